/* src/api_compile.c: The public API's compile calls. */

/* ---- the public API: compiling ---- */
int gpublob_module_compile(gpublob *g, const gpublob_options *opts, const void *ir, size_t size,
                           const char *name, gpublob_blob *out) {
  gpublob_result r = {0};
  int rc = one_output(g, opts, out);
  if (!rc && !out) rc = set_error(g, GPUBLOB_MISUSE, "NULL output");
  if (!rc) rc = compile_memory(g, opts, GPUBLOB_INPUT_LLVM, ir, size, name, &r);
  return rc ? (gpublob_result_free(&r), rc) : single_blob(g, rc, &r, out);
}

int gpublob_file_compile(gpublob *g, const gpublob_options *opts, const char *path,
                         gpublob_blob *out) {
  gpublob_result r = {0};
  int rc = one_output(g, opts, out);
  if (!rc && !out) rc = set_error(g, GPUBLOB_MISUSE, "NULL output");
  if (!rc) rc = compile_file(g, opts, GPUBLOB_INPUT_LLVM, path, &r);
  return rc ? (gpublob_result_free(&r), rc) : single_blob(g, rc, &r, out);
}

int gpublob_module_compile_all(gpublob *g, const gpublob_options *opts, const void *ir, size_t size,
                               const char *name, gpublob_result *out) {
  return compile_memory(g, opts, GPUBLOB_INPUT_LLVM, ir, size, name, out);
}

int gpublob_file_compile_all(gpublob *g, const gpublob_options *opts, const char *path,
                             gpublob_result *out) {
  return compile_file(g, opts, GPUBLOB_INPUT_LLVM, path, out);
}
static int mlir_blob(gpublob *g, int rc, gpublob_result *r, gpublob_blob *out) {
  if (!rc) *out = r->outputs[0].blob, memset(&r->outputs[0].blob, 0, sizeof *out);
  gpublob_result_free(r);
  return rc;
}

int gpublob_mlir_compile(gpublob *g, const gpublob_options *opts, const void *data, size_t size,
                         const char *name, gpublob_blob *out) {
  gpublob_result r = {0};
  if (out) memset(out, 0, sizeof *out);
  if (g && !out) return call_reset(g), set_error(g, GPUBLOB_MISUSE, "NULL output");
  int rc = compile_memory(g, opts, GPUBLOB_INPUT_MLIR, data, size, name, &r);
  return g ? mlir_blob(g, rc, &r, out) : rc;
}

int gpublob_mlir_file_compile(gpublob *g, const gpublob_options *opts, const char *path,
                              gpublob_blob *out) {
  gpublob_result r = {0};
  if (out) memset(out, 0, sizeof *out);
  if (g && !out) return call_reset(g), set_error(g, GPUBLOB_MISUSE, "NULL output");
  int rc = compile_file(g, opts, GPUBLOB_INPUT_MLIR, path, &r);
  return g ? mlir_blob(g, rc, &r, out) : rc;
}
