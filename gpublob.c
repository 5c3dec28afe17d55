/* gpublob.c: the one translation unit of gpublob's target-neutral core.
**
** In-tree:  ./configure && ninja   (build/gpublob_targets.def comes from the spec);
**           ninja install: gpublob.h, libgpublob.a, the CLI, gpublob.pc and the
**           CMake package gpublob::gpublob, under ./configure --prefix.
** Vendored: build/vendor/gpublob.c is this file with every part and the target
**           table pasted in once (tools/amalgamate, as SQLite's mksqlite3c does):
**           cc -std=c11 -O2 -c gpublob.c $(llvm-config-22 --cflags), linked with
**           $(llvm-config-22 --ldflags --libs) -lxxhash -lpthread.  For MLIR input
**           add -DGPUBLOB_MLIR=1 and link the MLIR C API archives, -lMLIR, -lstdc++
**           and -Wl,-rpath,$(llvm-config-22 --libdir) (docs/building.md, "Using gpublob
**           in your project", has the lines, which tests/test_install.c runs).
**
** The parts under src/ are src/parts.h's list, in pipeline order: the shared ones,
** the compiler's, MLIR's, and last the public API.  Nothing here names a target:
** whatever differs between targets is a field of the descriptor generated from
** targets/, or a provider in a part of its own.  src/front.c is the cache front:
** the shared parts alone, without LLVM.
*/
#include "src/internal.h"

#include "src/parts.h"
