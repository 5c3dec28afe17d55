/* src/api_mlir.c: The public API's MLIR C API calls: serialise in place, and the pass. */

/* ---- the public API: the MLIR C API ---- */
int gpublob_mlir_serialize(gpublob *g, const gpublob_options *opts, MlirOperation module) {
  if (!g) return GPUBLOB_MISUSE;
  call_reset(g);
  if (mlirOperationIsNull(module)) return set_error(g, GPUBLOB_MISUSE, "null module");
  pthread_once(&mlir_once, mlir_init);
  gpublob_options o;
  if (options_normalise(g, opts, &o)) return g->code;
  strbuf name = {0};
  int rc = serialize_on_parse_stack(g, &o, module, location_name(module, &name), 1);
  sb_free(&name);
  return rc;
}

MlirPass gpublob_mlir_pass_create(const gpublob_options *opts) {
  pthread_once(&llvm_once, llvm_init);
  pthread_once(&mlir_once, mlir_init);
  gpublob_options o;
  options_normalise(NULL, opts, &o); /* a newer version is said when the pass runs (pass_run) */
  pass_state *s = pass_state_new(&o);
  if (!s) return (MlirPass){NULL};
  MlirExternalPassCallbacks cb = {pass_construct, pass_destruct, pass_initialize, pass_clone,
                                  pass_run};
  MlirDialectHandle deps[] = {
#define GPUBLOB_MLIR_DIALECT(x) mlirGetDialectHandle__##x##__(),
#include "gpublob_targets.def"
  };
  return mlirCreateExternalPass(pass_type_id(), cref("GpublobSerialize"), cref("gpublob-serialize"),
                                cref("Serialise every gpu.module into blobs for its targets"),
                                cref("builtin.module"), (intptr_t)(sizeof deps / sizeof *deps), deps,
                                cb, s);
}

MlirPass gpublob_pass_create(const gpublob_options *opts) { return gpublob_mlir_pass_create(opts); }
