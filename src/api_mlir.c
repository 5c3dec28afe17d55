/* src/api_mlir.c: The public API's MLIR C API calls: serialise in place, and the pass. */

/* ---- the public API: the MLIR C API ---- */
int gpublob_mlir_serialize(gpublob *g, const gpublob_options *opts, MlirOperation module) {
  if (!g) return GPUBLOB_MISUSE;
  handle_call_reset(g);
  if (mlirOperationIsNull(module)) return handle_set_error(g, GPUBLOB_MISUSE, "null module");
  pthread_once(&mlir_init_once, mlir_init);
  gpublob_options o;
  if (options_normalise(g, opts, &o)) return g->code;
  strbuf name = {0};
  int rc = mlir_serialize_on_parse_stack(g, &o, module, mlir_pass_location_name(module, &name), 1);
  sb_free(&name);
  return rc;
}

MlirPass gpublob_mlir_pass_create(const gpublob_options *opts) {
  pthread_once(&llvm_once, llvm_init);
  pthread_once(&mlir_init_once, mlir_init);
  gpublob_options o;
  options_normalise(NULL, opts, &o); /* a newer version is said when the pass runs (mlir_pass_run) */
  mlir_pass_state *s = mlir_pass_state_new(&o);
  if (!s) return (MlirPass){NULL};
  MlirExternalPassCallbacks cb = {mlir_pass_construct, mlir_pass_destruct, mlir_pass_initialize, mlir_pass_clone,
                                  mlir_pass_run};
  MlirDialectHandle deps[] = {
#define GPUBLOB_MLIR_DIALECT(x) mlirGetDialectHandle__##x##__(),
#include "gpublob_targets.def"
  };
  return mlirCreateExternalPass(mlir_pass_type_id(), mlir_init_cref("GpublobSerialize"), mlir_init_cref("gpublob-serialize"),
                                mlir_init_cref("Serialise every gpu.module into blobs for its targets"),
                                mlir_init_cref("builtin.module"), (intptr_t)(sizeof deps / sizeof *deps), deps,
                                cb, s);
}

MlirPass gpublob_pass_create(const gpublob_options *opts) { return gpublob_mlir_pass_create(opts); }
