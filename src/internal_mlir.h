/* src/internal_mlir.h: MLIR's seams: an MLIR part's calls into a later part,
** declared once, here.  gpublob.c includes it before MLIR's parts (GPUBLOB_MLIR). */
#ifndef GPUBLOB_INTERNAL_MLIR_H
#define GPUBLOB_INTERNAL_MLIR_H

#include <mlir-c/IR.h>

typedef struct mlir_plan_call_state mlir_plan_call_state; /* src/mlir_plan.c */

/* src/mlir_lower.c: gpu.launch bodies outlined into gpu.modules (src/mlir_serialize.c's) */
static int mlir_lower_outline_launches(mlir_plan_call_state *m, MlirOperation top);
/* src/mlir_io.c: the module printed as text or bytecode (src/mlir_serialize.c's) */
static int mlir_io_print(gpublob *g, MlirOperation top, unsigned flags, gpublob_blob *out);

#endif /* GPUBLOB_INTERNAL_MLIR_H */
