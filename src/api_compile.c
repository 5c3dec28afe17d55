/* src/api_compile.c: the public API's compile calls.  Each is where a call enters the
** library: the handle reset, the output zeroed, a NULL output and a bad input struct
** said first, then the caller's options settled once (options_normalise) into the
** copy that everything after reads; then the call's path (src/call.c). */

/* ---- the public API: compiling ---- */
/* A call that gives a result, of n inputs, enters: 0, with *o the settled options, or
** the error. */
static int enter_for_result(gpublob *g, const gpublob_options *opts, const gpublob_input *in, size_t n,
                            gpublob_result *out, gpublob_options *o) {
  if (!g) return GPUBLOB_MISUSE;
  handle_call_reset(g);
  if (out) memset(out, 0, sizeof *out);
  if (!out) return handle_set_error(g, GPUBLOB_MISUSE, "NULL result");
  if (!n) return handle_set_error(g, GPUBLOB_MISUSE, "no inputs (ninputs is 0)");
  if (!in && n > 1) return handle_set_error(g, GPUBLOB_MISUSE, "NULL inputs");
  for (size_t i = 0; i < n; i++)
    if (input_check(g, in ? &in[i] : NULL)) return g->code;
  return options_normalise(g, opts, o) ? g->code : GPUBLOB_OK;
}

/* A call that gives one blob enters: 0, with *o the settled options, or the error. */
static int enter_for_blob(gpublob *g, const gpublob_options *opts, gpublob_blob *out, gpublob_options *o) {
  if (!g) return GPUBLOB_MISUSE;
  if (out) memset(out, 0, sizeof *out);
  handle_call_reset(g);
  if (!out) return handle_set_error(g, GPUBLOB_MISUSE, "NULL output");
  return options_normalise(g, opts, o) ? g->code : GPUBLOB_OK;
}

/* in compiled into a result, or one blob: each from its entry. */
static int compile_result(gpublob *g, const gpublob_options *opts, const gpublob_input *in, gpublob_result *out) {
  gpublob_options o;
  int rc = enter_for_result(g, opts, in, 1, out, &o);
  return rc ? rc : call_run(g, &o, in, out);
}

static int compile_blob(gpublob *g, const gpublob_options *opts, const gpublob_input *in, gpublob_blob *out) {
  gpublob_options o;
  int rc = enter_for_blob(g, opts, out, &o);
  return rc ? rc : call_one_blob(g, &o, in, out);
}
/* A file call without a path: MISUSE, with out (a blob or a result) zeroed. */
static int path_missing(gpublob *g, void *out, size_t size) {
  if (out) memset(out, 0, size);
  if (!g) return GPUBLOB_MISUSE;
  handle_call_reset(g);
  return handle_set_error(g, GPUBLOB_MISUSE, "NULL path");
}

int gpublob_compile(gpublob *g, const gpublob_options *opts, const gpublob_input *in, gpublob_result *out) {
  return compile_result(g, opts, in, out);
}

int gpublob_compile_inputs(gpublob *g, const gpublob_options *opts, const gpublob_input *inputs, size_t ninputs,
                           gpublob_result *out) {
  gpublob_options o;
  int rc = enter_for_result(g, opts, inputs, ninputs, out, &o);
  return rc ? rc : call_inputs(g, &o, inputs, ninputs, out);
}

int gpublob_module_compile(gpublob *g, const gpublob_options *opts, const void *ir, size_t size,
                           const char *name, gpublob_blob *out) {
  const gpublob_input in = {GPUBLOB_INPUT_LLVM, ir || size ? ir : "", size, NULL, name};
  return compile_blob(g, opts, &in, out);
}

int gpublob_file_compile(gpublob *g, const gpublob_options *opts, const char *path,
                         gpublob_blob *out) {
  const gpublob_input in = {GPUBLOB_INPUT_LLVM, NULL, 0, path, NULL};
  return path ? compile_blob(g, opts, &in, out) : path_missing(g, out, sizeof *out);
}

int gpublob_module_compile_all(gpublob *g, const gpublob_options *opts, const void *ir, size_t size,
                               const char *name, gpublob_result *out) {
  const gpublob_input in = {GPUBLOB_INPUT_LLVM, ir || size ? ir : "", size, NULL, name};
  return compile_result(g, opts, &in, out);
}

int gpublob_file_compile_all(gpublob *g, const gpublob_options *opts, const char *path,
                             gpublob_result *out) {
  const gpublob_input in = {GPUBLOB_INPUT_LLVM, NULL, 0, path, NULL};
  return path ? compile_result(g, opts, &in, out) : path_missing(g, out, sizeof *out);
}

int gpublob_mlir_compile(gpublob *g, const gpublob_options *opts, const void *data, size_t size,
                         const char *name, gpublob_blob *out) {
  const gpublob_input in = {GPUBLOB_INPUT_MLIR, data || size ? data : "", size, NULL, name};
  return compile_blob(g, opts, &in, out);
}

int gpublob_mlir_file_compile(gpublob *g, const gpublob_options *opts, const char *path,
                              gpublob_blob *out) {
  const gpublob_input in = {GPUBLOB_INPUT_MLIR, NULL, 0, path, NULL};
  return path ? compile_blob(g, opts, &in, out) : path_missing(g, out, sizeof *out);
}

/* ---- the public API: a kernel's machine code ---- */
int gpublob_disasm(gpublob *g, const gpublob_result *r, size_t i, size_t k, const char **text) {
  if (text) *text = "";
  if (!g) return GPUBLOB_MISUSE;
  gpublob_kernel_info info;
  if (!text) return handle_call_reset(g), handle_set_error(g, GPUBLOB_MISUSE, "NULL text");
  if (gpublob_kernel_get(g, r, i, k, &info, sizeof info)) return g->code; /* resets the handle */
  const gpublob_output *o = &r->outputs[i];
  const target_desc *t = resolve_target_named(o->target ? o->target : "", o->target ? strlen(o->target) : 0);
  if (!t) /* several targets' container (-f offload), or an entry of a triple no spec target has */
    return handle_set_error(g, GPUBLOB_FORMAT, "output %zu is not one spec target's (its target is \"%s\"): its "
                            "entries' code is read from their own outputs (gpublob_inspect lists them)", i,
                            o->target ? o->target : "");
  if (strcmp(o->blob.suffix ? o->blob.suffix : "", t->suffix_bin))
    return handle_set_error(g, GPUBLOB_FORMAT, "output %zu is a %s pack: its members' code is read from their own "
                            "outputs (gpublob_inspect lists them)", i, t->name);
  strbuf *held = &g->held[0];
  sb_reset(held);
  int rc = disasm_kernel(g, t, info.chip, o->blob.data, o->blob.size, info.name, held);
  if (!rc) *text = sb_str(held);
  return rc;
}
