/* src/call.c: A call: its cache lookup, its compile (LLVM IR or MLIR), and its figures. */

/* ---- a call: its cache lookup, its compile, and its figures ---- */
/* Outputs a single-blob call would give: chips per choice, or a pack per choice. */
static size_t outputs_planned(const gpublob_options *o) {
  const gpublob_target_choice single = {o->target, o->chip, o->features};
  const gpublob_target_choice *list = o->ntargets && o->targets ? o->targets : &single;
  size_t n = o->ntargets && o->targets ? o->ntargets : 1, count = 0;
  for (size_t i = 0; i < n; i++) {
    const char *w;
    size_t chipn = 0, cn;
    for (util_chip_list l = util_chip_list_of(resolve_target_parse(list[i].target, list[i].chip).chips); util_next_chip(&l, &w, &cn);)
      chipn++;
    count += o->format == GPUBLOB_FORMAT_FATBIN || !chipn ? 1 : chipn;
  }
  return o->format == GPUBLOB_FORMAT_OFFLOAD ? 1 : count;
}

/* ---- text input: how deep its brackets go, checked before a parser recurses ---- */
/* Brackets ( [ { < outside strings and comments (; in LLVM IR, // in MLIR); MLIR's
** arrow -> is no bracket.  Bitcode and MLIR bytecode have no text to look at. */
static int check_nesting(gpublob *g, int input, const unsigned char *p, size_t n, const char *name) {
  int mlir = input == GPUBLOB_INPUT_MLIR;
  if (input_looks_like_bitcode(p, n) || input_looks_like_mlir_bytecode(p, n)) return GPUBLOB_OK;
  /* LLVM IR has no escaped quote (\22); MLIR has \" */
  unsigned how = SCAN_ARROWS | SCAN_FLOOR | (mlir ? SCAN_ESCAPES | SCAN_SLASH_COMMENTS : SCAN_SEMI_COMMENTS);
  size_t line = 1, col = 0;
  long depth = 0;
  for (size_t i = 0; i < n; i++, col++) {
    if (p[i] == '\n') {
      line++;
      col = 0;
    } else
      i = parse_bracket_scan((const char *)p, n, i, how, &depth);
    if (depth > GPUBLOB_MAX_NESTING)
      return handle_set_error(g, GPUBLOB_PARSE, "%s:%zu:%zu: brackets nest deeper than %d levels; gpublob refuses "
                       "that before the parser, which would recurse once a level", name, line, col + 1,
                       GPUBLOB_MAX_NESTING);
  }
  return GPUBLOB_OK;
}

#if GPUBLOB_MLIR
typedef struct mlir_compile_args { /* mlir_io_compile's arguments, for the parse thread */
  gpublob *g;
  const gpublob_options *o; /* settled */
  const void *data;
  size_t size;
  const char *name;
  mlir_serialize_out *out;
  int rc;
} mlir_compile_args;

static void *mlir_compile_run(void *arg) {
  mlir_compile_args *m = arg;
  m->rc = mlir_io_compile(m->g, m->o, m->data, m->size, m->name, m->out);
  return NULL;
}
#endif

/* data holds a NUL at data[size]; o is the call's settled options (its version
** checked where it entered).  MLIR gives one output, the whole module. */
static int call_compile(gpublob *g, const gpublob_options *o, int input, const unsigned char *data,
                        size_t size, const char *name, gpublob_result *out) {
  double t0 = util_now_ms();
  digest_cache c;
  digest_key128 k0;
  if (options_limits_valid(g, o)) return g->code;
  if (plan_format_for_input(g, o, input, name)) return g->code;
  int cached = cache_dir_open(&c, g, o), rc = -1;
  if (cached) {
    k0 = cache_deps_call_key(o, input, data, size, name);
    rc = cache_stream_lookup(&c, &k0, o, name, input == GPUBLOB_INPUT_MLIR ? data : NULL, size, out, NULL);
    c.warn_from = g->warn.len; /* a compile's warnings begin here: its entry keeps them */
    g->stats.cache_ms += util_now_ms() - t0;
    if (rc) g->stats.cache_misses++;
    else g->stats.cache_hits++;
  }
  int hit = !rc;
  rc = hit ? GPUBLOB_OK : check_nesting(g, input, data, size, name);
  if (!hit && !rc && (o->flags & GPUBLOB_FLAG_ISOLATE)) rc = gpublob_helper_start(g);
  if (!hit && !rc && input == GPUBLOB_INPUT_MLIR) {
#if GPUBLOB_MLIR
    mlir_serialize_out mo = {out, cached ? &c : NULL, &k0};
    mlir_compile_args mc = {g, o, data, size, name, &mo, 0};
    pool_on_parse_stack(mlir_compile_run, &mc); /* MLIR parses, lowers and translates here */
    rc = mc.rc;
#else
    rc = handle_set_error(g, GPUBLOB_NOMLIR, "%s: MLIR input needs a gpublob built with MLIR (%s)", name,
#if GPUBLOB_VENDORED /* build/vendor/gpublob.c, compiled by a project of its own */
                   "compile gpublob.c with -DGPUBLOB_MLIR=1 and link the MLIR C API: docs/building.md, Vendoring"
#else
                   "install libmlir-22-dev, LLVM's MLIR C API, and run ./configure again without --without-mlir"
#endif
    );
#endif
  } else if (!hit && !rc) {
    rc = ir_call_compile(g, o, data, size, name, cached ? &c : NULL, &k0, out);
  }
  if (!rc) rc = limits_check(g, o, out); /* a hit's as a compile's: nothing written when over */
  if (cached) cache_deps_close(&c);
  provider_settle(g); /* no loader this call started outlives it */
  g->stats.wall_ms = util_now_ms() - t0;
  return rc;
}

/* -f offload: the call's bin blobs (and, with GPUBLOB_FLAG_OFFLOAD_ASM, its assembly)
** compiled as those formats' own calls, then one container of them (src/offload.c). */
static int call_offload(gpublob *g, const gpublob_options *o, const input_held *h, gpublob_result *out) {
  gpublob_options bin;
  gpublob_result asm_r = {0};
  int rc = offload_options(g, o, h->kind, h->name, &bin);
  if (!rc && (o->flags & GPUBLOB_FLAG_OFFLOAD_ASM)) {
    gpublob_options assembly = bin;
    assembly.format = GPUBLOB_FORMAT_ASM;
    assembly.limits = 0; /* checked on the blobs */
    rc = call_compile(g, &assembly, h->kind, h->data, h->size, h->name, &asm_r);
  }
  if (!rc) rc = call_compile(g, &bin, h->kind, h->data, h->size, h->name, out);
  if (!rc) rc = offload_wrap(g, out, o->flags & GPUBLOB_FLAG_OFFLOAD_ASM ? &asm_r : NULL);
  gpublob_result_free(&asm_r);
  if (rc) gpublob_result_free(out);
  return rc;
}

/* h compiled under o, the call's settled options. */
static int call_held(gpublob *g, const gpublob_options *o, const input_held *h, gpublob_result *out) {
  if (o->format == GPUBLOB_FORMAT_OFFLOAD) return call_offload(g, o, h, out);
  return call_compile(g, o, h->kind, h->data, h->size, h->name, out);
}

/* in held, then compiled under o, the call's settled options. */
static int call_input(gpublob *g, const gpublob_options *o, const gpublob_input *in, gpublob_result *out) {
  input_held h;
  int rc = input_hold(g, o, in, &h);
  if (!rc) rc = call_held(g, o, &h, out);
  free(h.data);
  return rc;
}

/* The compile path of every public call that gives a result: o settled at the entry
** (src/api_compile.c), the input held, then compiled. */
GPUBLOB_PRIVATE int call_run(gpublob *g, const gpublob_options *o, const gpublob_input *in, gpublob_result *out) {
  return call_input(g, o, in, out);
}

/* ---- several inputs: each for the named targets its triple allows ---- */
enum { MAX_INPUTS = 1024 }; /* in one call */

/* The options' target list (or the single target) as a list in *list, *n long. */
static void choices_of(const gpublob_options *o, const gpublob_target_choice **list, size_t *n,
                       gpublob_target_choice *single) {
  *single = (gpublob_target_choice){o->target, o->chip, o->features};
  *list = o->ntargets && o->targets ? o->targets : single;
  *n = o->ntargets && o->targets ? o->ntargets : 1;
}

/* *mine: o with the named targets h's triple allows (a target the spec does not know
** stays, for the compile to refuse); o itself where it allows them all, so that the
** input's cache lookup is a single call's.  kept holds the list (o's length).  An
** input that no named target takes is TARGET, naming it. */
static int input_options(gpublob *g, const gpublob_options *o, const input_held *h, gpublob_target_choice *kept,
                         gpublob_options *mine) {
  const gpublob_target_choice *list;
  gpublob_target_choice single;
  size_t n, count = 0;
  char triple[256];
  choices_of(o, &list, &n, &single);
  triple_of_module(h->data, h->size, triple, sizeof triple);
  strbuf named = {0};
  for (size_t i = 0; i < n; i++) {
    const target_ref r = resolve_target_parse(list[i].target, list[i].chip);
    if (!r.t || triple_takes(r.t, triple)) kept[count++] = list[i];
    sb_addf(&named, "%s%.*s", i ? ", " : "", (int)r.n, r.name);
  }
  *mine = *o;
  if (count && count < n) {
    mine->targets = kept;
    mine->ntargets = count;
  }
  int rc = count ? GPUBLOB_OK : handle_set_error(g, GPUBLOB_TARGET, "%s: no named target (%s) takes a module of "
                                                   "triple %s", h->name, sb_str(&named), triple);
  sb_free(&named);
  return rc;
}

/* r's outputs moved to the end of out, each marked with its input's index. */
static int outputs_append(gpublob *g, gpublob_result *out, gpublob_result *r, size_t input) {
  if (!r->count) return GPUBLOB_OK;
  gpublob_output *grown = realloc(out->outputs, (out->count + r->count) * sizeof *grown);
  if (grown) out->outputs = grown;
  for (size_t i = 0; grown && i < r->count; i++) {
    strbuf report = {0};
    unsigned block_size;
    if (output_report_note_get(&r->outputs[i], &report, &block_size) ||
        output_report_note_set(&r->outputs[i], sb_str(&report), block_size, input))
      grown = NULL;
    sb_free(&report);
  }
  if (!grown) return handle_set_error(g, GPUBLOB_NOMEM, "out of memory");
  memcpy(out->outputs + out->count, r->outputs, r->count * sizeof *r->outputs);
  out->count += r->count;
  free(r->outputs);
  *r = (gpublob_result){0};
  return GPUBLOB_OK;
}

/* Input h (number i) compiled under its own options into out, and, for -f offload,
** its bin blobs into out and, with GPUBLOB_FLAG_OFFLOAD_ASM, its assembly into asm_out. */
static int inputs_one(gpublob *g, const gpublob_options *o, const input_held *h, size_t i, gpublob_result *out,
                      gpublob_result *asm_out) {
  gpublob_target_choice *kept = calloc(o->ntargets + 1, sizeof *kept);
  gpublob_options mine, bin;
  gpublob_result r = {0}, asm_r = {0};
  int offload = o->format == GPUBLOB_FORMAT_OFFLOAD, rc = kept ? GPUBLOB_OK : handle_set_error(g, GPUBLOB_NOMEM, "out of memory");
  if (!rc) rc = input_options(g, o, h, kept, &mine);
  if (!rc && offload) rc = offload_options(g, &mine, h->kind, h->name, &bin);
  if (!rc && offload && (o->flags & GPUBLOB_FLAG_OFFLOAD_ASM)) {
    gpublob_options assembly = bin;
    assembly.format = GPUBLOB_FORMAT_ASM;
    assembly.limits = 0; /* checked on the blobs */
    rc = call_compile(g, &assembly, h->kind, h->data, h->size, h->name, &asm_r);
  }
  if (!rc) rc = call_compile(g, offload ? &bin : &mine, h->kind, h->data, h->size, h->name, &r);
  if (!rc) rc = outputs_append(g, out, &r, i);
  if (!rc) rc = outputs_append(g, asm_out, &asm_r, i);
  gpublob_result_free(&r);
  gpublob_result_free(&asm_r);
  free(kept);
  return rc;
}

/* Every input held first (a bad one costs no compile); MLIR compiles alone. */
static int inputs_hold(gpublob *g, const gpublob_options *o, const gpublob_input *in, size_t n, input_held *held) {
  if (n > MAX_INPUTS) return handle_set_error(g, GPUBLOB_OPTION, "%zu inputs in one call, more than %d", n, MAX_INPUTS);
  for (size_t i = 0; i < n; i++) {
    if (input_hold(g, o, &in[i], &held[i])) return g->code;
    if (held[i].kind == GPUBLOB_INPUT_MLIR && n > 1)
      return handle_set_error(g, GPUBLOB_FORMAT, "%s: MLIR input compiles alone, not as one of %zu inputs: its "
                              "gpu.modules are the call's (one MLIR module a call)", held[i].name, n);
  }
  return GPUBLOB_OK;
}

/* gpublob_compile_inputs: o settled at the entry (src/api_compile.c).  Each LLVM IR
** input is compiled as a single call for the named targets its triple allows (its
** cache lookup a single call's), its outputs after the previous input's; -f offload
** holds them all in one container, in that order.  One MLIR input is a single call. */
GPUBLOB_PRIVATE int call_inputs(gpublob *g, const gpublob_options *o, const gpublob_input *in, size_t n,
                                gpublob_result *out) {
  double t0 = util_now_ms();
  input_held *held = calloc(n + 1, sizeof *held);
  gpublob_result asm_r = {0};
  int rc = held ? inputs_hold(g, o, in, n, held) : handle_set_error(g, GPUBLOB_NOMEM, "out of memory");
  int alone = !rc && n == 1 && held[0].kind == GPUBLOB_INPUT_MLIR; /* a single call */
  if (alone) rc = call_held(g, o, &held[0], out);
  size_t jobs = 0, threads = 0; /* the stats' over every input: each compile sets its own */
  for (size_t i = 0; !rc && !alone && i < n; i++) {
    g->stats.jobs = g->stats.threads = 0;
    rc = inputs_one(g, o, &held[i], i, out, &asm_r);
    jobs += g->stats.jobs;
    threads = threads > g->stats.threads ? threads : g->stats.threads;
  }
  if (!alone) g->stats.jobs = jobs, g->stats.threads = threads;
  if (!rc && !alone && o->format == GPUBLOB_FORMAT_OFFLOAD)
    rc = offload_wrap(g, out, o->flags & GPUBLOB_FLAG_OFFLOAD_ASM ? &asm_r : NULL);
  for (size_t i = 0; held && i < n; i++) free(held[i].data);
  free(held);
  gpublob_result_free(&asm_r);
  if (rc) gpublob_result_free(out);
  if (!alone) g->stats.wall_ms = util_now_ms() - t0;
  return rc;
}

/* A result of exactly one output, as one blob. */
static int single_blob(gpublob *g, gpublob_result *r, gpublob_blob *out) {
  int rc = GPUBLOB_OK;
  if (r->count != 1)
    rc = handle_set_error(g, GPUBLOB_OPTION, "the call gave %zu outputs; use gpublob_compile (or "
                   "gpublob_module_compile_all)", r->count);
  if (!rc) {
    *out = r->outputs[0].blob;
    memset(&r->outputs[0].blob, 0, sizeof *out);
  }
  gpublob_result_free(r);
  return rc;
}

/* in compiled, its one output as a blob, o settled at the entry (src/api_compile.c):
** LLVM IR that plans several is OPTION. */
GPUBLOB_PRIVATE int call_one_blob(gpublob *g, const gpublob_options *o, const gpublob_input *in, gpublob_blob *out) {
  size_t n = in->kind == GPUBLOB_INPUT_MLIR ? 1 : outputs_planned(o);
  if (n != 1)
    return handle_set_error(g, GPUBLOB_OPTION, "LLVM IR input for %zu outputs needs gpublob_compile (or "
                     "gpublob_module_compile_all; gpublob_module_compile gives one blob)", n);
  gpublob_result r = {0};
  int rc = call_input(g, o, in, &r);
  if (rc) return rc;
  return single_blob(g, &r, out);
}

/* The compiler's engine: LLVM initialised once, before any thread of a call starts;
** a handle's isolation helper stopped with it. */
GPUBLOB_PRIVATE void call_engine_open(void) { pthread_once(&llvm_once, llvm_init); }
GPUBLOB_PRIVATE void call_engine_close(gpublob *g) { isolate_helper_stop(g); }
