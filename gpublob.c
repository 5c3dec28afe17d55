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
** The parts under src/ run in pipeline order: the shared ones (strings, the handle,
** options and targets, templates, search, the blob tool's choice, digests and the
** cache), then the compiler's (the plan, input, LLVM's parse, checks, target
** machine, device libraries, optimisation, emission, the blob tool, packs, the
** job, isolation, the pool), MLIR's, and last the public API.  Nothing here names
** a target: whatever differs between targets is a field of the descriptor
** generated from targets/, or a provider in a part of its own.  src/front.c is the
** cache front: the shared parts alone, without LLVM.
*/
#include "src/internal.h"
#include "src/names.h" /* shared with the CLI */

/* Shared with the cache front. */
#include "src/util.c"
#include "src/handle.c"
#include "src/live.c"
#include "src/options.c"
#include "src/target.c"
#include "src/template.c"
#include "src/search.c"
#include "src/provider_nvjitlink.c"
#include "src/provider_lld.c"
#include "src/provider.c"
#include "src/tool_choice.c"
#include "src/digest.c"
#include "src/cache_dir.c"
#include "src/cache_remote.c"
#include "src/cache_size.c"
#include "src/cache_deps.c"
#include "src/cache_lookup.c"
#include "src/input.c"
#include "src/msgpack.c"
#include "src/kernels.c"
#include "src/meta_amdgpu.c"
#include "src/meta_nvinfo.c"
#include "src/meta_pack.c"

/* The compiler: LLVM from here on. */
#include "src/report.c"
#include "src/live_enter.c"
#include "src/cache_store.c"
#include "src/plan.c"
#include "src/llvm.c"
#include "src/parse.c"
#include "src/module_check.c"
#include "src/pins.c"
#include "src/target_machine.c"
#include "src/constants.c"
#include "src/devlib_share.c"
#include "src/devlib.c"
#include "src/link_files.c"
#include "src/libm_names.c"
#include "src/type_check.c"
#include "src/optimise.c"
#include "src/emit.c"
#include "src/tmp_sweep.c"
#include "src/tool.c"
#include "src/proc.c"
#include "src/dump.c"
#include "src/tool_version.c"
#include "src/magic.c"
#include "src/pack_bundle.c"
#include "src/pack.c"
#include "src/provider_run.c"
#include "src/provider_lld_run.c"
#include "src/job.c"
#include "src/isolate_wire.c"
#include "src/isolate_child.c"
#include "src/isolate_helper.c"
#include "src/isolate_host.c"
#include "src/pool.c"
#include "src/ir_call.c"

/* MLIR (configure: libmlir-22-dev). */
#if GPUBLOB_MLIR
#include "src/mlir_init.c"
#include "src/mlir_plan.c"
#include "src/mlir_select.c"
#include "src/mlir_lower.c"
#include "src/mlir_translate.c"
#include "src/mlir_kernels.c"
#include "src/mlir_attach.c"
#include "src/mlir_serialize.c"
#include "src/mlir_io.c"
#include "src/mlir_pass.c"
#endif

/* The call and the public API. */
#include "src/call.c"
#include "src/api.c"
#include "src/api_compile.c"
#if GPUBLOB_MLIR
#include "src/api_mlir.c"
#endif
