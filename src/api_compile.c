/* ---- the public API: compiling ---- */
/* A file call without a path: MISUSE, with out (a blob or a result) zeroed. */
static int path_missing(gpublob *g, void *out, size_t size) {
  if (out) memset(out, 0, size);
  if (!g) return GPUBLOB_MISUSE;
  handle_call_reset(g);
  return handle_set_error(g, GPUBLOB_MISUSE, "NULL path");
}

int gpublob_compile(gpublob *g, const gpublob_options *opts, const gpublob_input *in, gpublob_result *out) {
  return call_run(g, opts, in, out);
}

int gpublob_module_compile(gpublob *g, const gpublob_options *opts, const void *ir, size_t size,
                           const char *name, gpublob_blob *out) {
  const gpublob_input in = {GPUBLOB_INPUT_LLVM, ir || size ? ir : "", size, NULL, name};
  return call_one_blob(g, opts, &in, out);
}

int gpublob_file_compile(gpublob *g, const gpublob_options *opts, const char *path,
                         gpublob_blob *out) {
  const gpublob_input in = {GPUBLOB_INPUT_LLVM, NULL, 0, path, NULL};
  return path ? call_one_blob(g, opts, &in, out) : path_missing(g, out, sizeof *out);
}

int gpublob_module_compile_all(gpublob *g, const gpublob_options *opts, const void *ir, size_t size,
                               const char *name, gpublob_result *out) {
  const gpublob_input in = {GPUBLOB_INPUT_LLVM, ir || size ? ir : "", size, NULL, name};
  return call_run(g, opts, &in, out);
}

int gpublob_file_compile_all(gpublob *g, const gpublob_options *opts, const char *path,
                             gpublob_result *out) {
  const gpublob_input in = {GPUBLOB_INPUT_LLVM, NULL, 0, path, NULL};
  return path ? call_run(g, opts, &in, out) : path_missing(g, out, sizeof *out);
}

int gpublob_mlir_compile(gpublob *g, const gpublob_options *opts, const void *data, size_t size,
                         const char *name, gpublob_blob *out) {
  const gpublob_input in = {GPUBLOB_INPUT_MLIR, data || size ? data : "", size, NULL, name};
  return call_one_blob(g, opts, &in, out);
}

int gpublob_mlir_file_compile(gpublob *g, const gpublob_options *opts, const char *path,
                              gpublob_blob *out) {
  const gpublob_input in = {GPUBLOB_INPUT_MLIR, NULL, 0, path, NULL};
  return path ? call_one_blob(g, opts, &in, out) : path_missing(g, out, sizeof *out);
}
