/* gpublob_mlir.h: the gpublob calls that take the caller's MLIR C API objects.
**
** gpublob.h compiles MLIR text and bytecode (gpublob_compile) and needs no MLIR
** header; the calls here take an MlirOperation or give an MlirPass, so this header
** includes the MLIR C API's own (mlir-c/IR.h, mlir-c/Pass.h: LLVM 22's, as
** gpublob's).  Include it instead of, or after, gpublob.h.
**
** These calls share the caller's MLIR, which must be the same MLIR as gpublob's:
** they are in libgpublob.a only (pkg-config --static gpublob, CMake's
** gpublob::static).  libgpublob.so.1, whose LLVM and MLIR are private to it, does
** not export them.
** The caller's context needs the dialects of its module registered (for instance
** by mlirRegisterAllDialects); gpublob registers the LLVM IR translations.
** Moved here from gpublob.h in 1.3, where 1.0 declared them only when mlir-c/IR.h
** (or mlir-c/Pass.h) came first: a 1.0 program that calls them includes this
** header.
*/
#ifndef GPUBLOB_MLIR_H
#define GPUBLOB_MLIR_H

#include <mlir-c/IR.h>
#include <mlir-c/Pass.h>

#include "gpublob.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Serialises every gpu.module under module in place, or changes nothing on error
** (codes as gpublob_compile's; MISUSE for a null module).  Diagnostics are
** captured into the handle's message, not printed. */
GPUBLOB_API int gpublob_mlir_serialize(gpublob *g, const gpublob_options *opts, MlirOperation module);

/* An MLIR pass on builtin.module ("gpublob-serialize") that does what
** gpublob_mlir_serialize does; a failure is an error diagnostic at the module and
** fails the pass.  opts is copied.  The caller owns the pass until it adds it to
** a pass manager, which then owns it.  A null pass when MLIR is not built in or
** memory runs out. */
GPUBLOB_API MlirPass gpublob_mlir_pass_create(const gpublob_options *opts);

#ifndef GPUBLOB_DEPRECATE_HARD
/* gpublob_mlir_pass_create's name before 1.0. */
GPUBLOB_DEPRECATED("use gpublob_mlir_pass_create")
GPUBLOB_API MlirPass gpublob_pass_create(const gpublob_options *opts);
#endif

#ifdef __cplusplus
}
#endif
#endif /* GPUBLOB_MLIR_H */
