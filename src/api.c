/* src/api.c: The public API that needs no LLVM: handles, errors, targets, tools, the cache. */

/* ---- the public API ---- */
/* call_engine_open, call_engine_close: what the build's engine does with a handle (the
** compiler: LLVM's initialisation, the isolation helper; the front: nothing). */
int gpublob_open(gpublob **out) {
  if (!out) return GPUBLOB_MISUSE;
  *out = calloc(1, sizeof **out);
  if (!*out) return GPUBLOB_NOMEM;
  pthread_mutex_init(&(*out)->helper_mu, NULL);
  (*out)->helper_live = -1;
  call_engine_open();
  return GPUBLOB_OK;
}

void gpublob_close(gpublob *g) {
  if (!g) return;
  call_engine_close(g);
  pthread_mutex_destroy(&g->helper_mu);
  sb_free(&g->msg);
  sb_free(&g->warn);
  for (int i = 0; i < 3; i++) sb_free(&g->held[i]);
  kt_free(&g->kernels.t);
  free(g);
}


void gpublob_blob_free(gpublob_blob *b) { util_blob_release(b); }

/* A lookup alone: OK on a hit, NOTCACHED on a miss or a cache that cannot be used;
** with s, the last output streamed to it (IO when s failed). */
static int cache_only(gpublob *g, const gpublob_options *o, const input_held *h, gpublob_result *out,
                      cache_stream_sink *s) {
  digest_cache c;
  if (!cache_dir_open(&c, g, o))
    return handle_set_error(g, GPUBLOB_NOTCACHED, "not in the cache %s: %s", o->cache_dir, gpublob_warnings(g));
  digest_key128 k0 = cache_deps_call_key(o, h->kind, h->data, h->size, h->name);
  int rc = cache_stream_lookup(&c, &k0, o, h->name, h->kind == GPUBLOB_INPUT_MLIR ? h->data : NULL, h->size, out, s);
  cache_deps_close(&c);
  if (!rc) g->stats.cache_hits++;
  else g->stats.cache_misses++;
  if (rc == -2) return handle_set_error(g, GPUBLOB_IO, "the cached output could not be handed on: its write failed");
  return !rc ? GPUBLOB_OK : handle_set_error(g, GPUBLOB_NOTCACHED, "not in the cache %s", c.dir);
}

/* -f offload's lookup is bin's (its container is made of the hit); with
** GPUBLOB_FLAG_OFFLOAD_ASM, whose assembly is a second lookup, NOTCACHED (the call compiles). */
static int offload_lookup_options(gpublob *g, gpublob_options *o, const input_held *h) {
  gpublob_options bin;
  if (o->flags & GPUBLOB_FLAG_OFFLOAD_ASM)
    return handle_set_error(g, GPUBLOB_NOTCACHED, "-f offload with its assembly entries is not looked up alone");
  int rc = offload_options(g, o, h->kind, h->name, &bin);
  if (!rc) *o = bin;
  return rc;
}

static int lookup_call(gpublob *g, const gpublob_options *opts, const gpublob_input *in,
                       gpublob_result *out, cache_stream_sink *s) {
  if (!g) return GPUBLOB_MISUSE;
  handle_call_reset(g);
  if (out) memset(out, 0, sizeof *out);
  if (!out) return handle_set_error(g, GPUBLOB_MISUSE, "NULL result");
  if (s && !s->write) return handle_set_error(g, GPUBLOB_MISUSE, "NULL write function");
  double t = util_now_ms();
  gpublob_options o;
  if (input_check(g, in) || options_normalise(g, opts, &o) || options_limits_valid(g, &o)) return g->code;
  if (!o.cache_dir || !*o.cache_dir) return handle_set_error(g, GPUBLOB_OPTION, "no cache directory in the options");
  if (s && o.limits)
    return handle_set_error(g, GPUBLOB_OPTION, "the options' limits are checked against the outputs' bytes, which a "
                     "streamed lookup does not keep: use gpublob_cache_lookup");
  if (s && o.format == GPUBLOB_FORMAT_OFFLOAD)
    return handle_set_error(g, GPUBLOB_OPTION, "-f offload's container is made from the outputs' bytes, which a "
                     "streamed lookup does not keep: use gpublob_cache_lookup");
  input_held h;
  if (input_hold(g, &o, in, &h)) return g->code;
  int offload = o.format == GPUBLOB_FORMAT_OFFLOAD, rc = GPUBLOB_OK;
  if (offload) rc = offload_lookup_options(g, &o, &h);
  if (!rc) rc = cache_only(g, &o, &h, out, s);
  if (!rc) rc = limits_check(g, &o, out); /* a hit's as a compile's */
  if (!rc && offload) rc = offload_wrap(g, out, NULL);
  free(h.data);
  g->stats.cache_ms = g->stats.wall_ms = util_now_ms() - t;
  return rc;
}

int gpublob_cache_lookup(gpublob *g, const gpublob_options *opts, const gpublob_input *in,
                         gpublob_result *out) {
  return lookup_call(g, opts, in, out, NULL);
}

int gpublob_cache_lookup_stream(gpublob *g, const gpublob_options *opts, const gpublob_input *in,
                                gpublob_result *out, gpublob_write_fn write, void *ctx) {
  cache_stream_sink s = {write, ctx};
  return lookup_call(g, opts, in, out, &s);
}

const char *gpublob_warnings(const gpublob *g) { return g && !g->warn.oom ? sb_str(&g->warn) : ""; }

/* An out-struct of the caller's size: as much of full as fits; smaller than the
** struct's first version (its oldest fields, up to oldest_end) is MISUSE. */
static int copy_out(void *out, size_t size, const void *full, size_t full_size, size_t oldest_end) {
  if (!out || size < oldest_end) return GPUBLOB_MISUSE;
  memset(out, 0, size);
  memcpy(out, full, size < full_size ? size : full_size);
  return GPUBLOB_OK;
}

int gpublob_stats_get(const gpublob *g, gpublob_stats *out, size_t size) {
  if (!g) return GPUBLOB_MISUSE;
  /* 1.0's struct ends before provider_load_ms: a caller built against it passes that size */
  return copy_out(out, size, &g->stats, sizeof g->stats, offsetof(gpublob_stats, provider_load_ms));
}

/* Output i as the growable struct: its first version is every field 1.3 has. */
int gpublob_output_get(const gpublob_result *r, size_t i, gpublob_output_info *out, size_t size) {
  size_t first = offsetof(gpublob_output_info, tool) + sizeof out->tool;
  if (!r || i >= r->count) {
    if (out && size >= first) memset(out, 0, size);
    return GPUBLOB_MISUSE;
  }
  const gpublob_output *o = &r->outputs[i];
  gpublob_output_info info = {o->blob.data, o->blob.size, o->blob.suffix ? o->blob.suffix : "", o->target, o->chip,
                              o->tool, output_report_note_input(o)};
  return copy_out(out, size, &info, sizeof info, first);
}

/* The options struct of a caller built at version v ends where v+1's fields start
** (options_size): only that much is the caller's to zero. */
int gpublob_options_init(gpublob_options *opts, unsigned version) {
  if (!version) version = 8; /* the options of 1.3, the first with this call: never past a caller's struct */
  if (!opts || version > GPUBLOB_OPTIONS_VERSION) return GPUBLOB_MISUSE;
  memset(opts, 0, options_size(version));
  opts->version = version;
  return GPUBLOB_OK;
}

int gpublob_error_code(const gpublob *g) { return g ? g->code : GPUBLOB_MISUSE; }

const char *gpublob_error_message(const gpublob *g) {
  if (!g) return handle_error_text(GPUBLOB_MISUSE);
  if (g->msg.oom) return handle_error_text(GPUBLOB_NOMEM);
  return g->msg.len ? g->msg.s : handle_error_text(g->code);
}

const char *gpublob_error_string(int code) {
  const char *text = handle_error_text(code);
  return text ? text : "unknown error code";
}

int gpublob_target_count(void) { return target_count(); }

int gpublob_target_get(int index, gpublob_target_info *out, size_t size) {
  if (index < 0 || index >= target_count()) return GPUBLOB_MISUSE;
  const target_desc *t = target_at(index);
  const gpublob_target_info info = {t->name,       t->triple,     t->chip,       t->features,
                                    t->attribute,  t->suffix_asm, t->suffix_bin, t->tool_kind_name,
                                    t->chips,      t->mlir_target, t->libs};
  return copy_out(out, size, &info, sizeof info, offsetof(gpublob_target_info, libs));
}

/* ---- kernel metadata: read when asked, kept for the blob asked about last ---- */
/* The kernels of output i of r in g->kernels: read from its blob unless they are the
** ones read last (the same bytes at the same place, the same target and chip, the
** same report and block size kept with it). */
static int kernels_load(gpublob *g, const gpublob_result *r, size_t i) {
  if (!r || !r->outputs || i >= r->count)
    return handle_set_error(g, GPUBLOB_MISUSE, r ? "output %zu of %zu" : "NULL result", i, r ? r->count : 0);
  const gpublob_output *o = &r->outputs[i];
  strbuf report = {0};
  unsigned block_size;
  if (output_report_note_get(o, &report, &block_size)) return handle_set_error(g, GPUBLOB_NOMEM, "out of memory");
  const char *label[] = {o->target ? o->target : "", o->chip ? o->chip : "", sb_str(&report)};
  uint64_t h = XXH3_64bits(o->blob.data ? o->blob.data : (const void *)"", o->blob.data ? o->blob.size : 0);
  for (int k = 0; k < 3; k++) h = XXH3_64bits_withSeed(label[k], strlen(label[k]) + 1, h + (k == 2 ? block_size : 0));
  kernel_cache *c = &g->kernels;
  int rc = GPUBLOB_OK;
  if (!(c->valid && c->data == o->blob.data && c->size == o->blob.size && c->hash == h)) {
    kt_free(&c->t);
    c->valid = 0;
    ktable t = {0};
    rc = meta_output_kernels(g, o, sb_str(&report), block_size, &t);
    if (rc) kt_free(&t);
    else *c = (kernel_cache){t, o->blob.data, o->blob.size, h, 1};
  }
  sb_free(&report);
  return rc;
}

int gpublob_kernel_count(gpublob *g, const gpublob_result *r, size_t i, size_t *count) {
  if (count) *count = 0;
  if (!g) return GPUBLOB_MISUSE;
  handle_call_reset(g);
  if (!count) return handle_set_error(g, GPUBLOB_MISUSE, "NULL count");
  if (kernels_load(g, r, i)) return g->code;
  *count = g->kernels.t.n;
  return GPUBLOB_OK;
}

int gpublob_kernel_get(gpublob *g, const gpublob_result *r, size_t i, size_t k, gpublob_kernel_info *out,
                       size_t size) {
  const size_t oldest = offsetof(gpublob_kernel_info, spill_store_bytes); /* 1.1's struct */
  if (out && size >= oldest) memset(out, 0, size);
  if (!g) return GPUBLOB_MISUSE;
  handle_call_reset(g);
  if (!out || size < oldest) return handle_set_error(g, GPUBLOB_MISUSE, "the kernel info is %zu bytes, not %zu", out ? size : 0, oldest);
  if (kernels_load(g, r, i)) return g->code;
  if (k >= g->kernels.t.n)
    return handle_set_error(g, GPUBLOB_MISUSE, "kernel %zu of output %zu, which has %zu", k, i, g->kernels.t.n);
  return copy_out(out, size, &g->kernels.t.k[k], sizeof *g->kernels.t.k, oldest);
}

/* Kernel k of output i's parameters in g->kernels: how many, the first at *first;
** MISUSE for k out of range. */
static int params_load(gpublob *g, const gpublob_result *r, size_t i, size_t k, size_t *n, size_t *first) {
  if (kernels_load(g, r, i)) return g->code;
  if (k >= g->kernels.t.n)
    return handle_set_error(g, GPUBLOB_MISUSE, "kernel %zu of output %zu, which has %zu", k, i, g->kernels.t.n);
  *n = kt_params_of(&g->kernels.t, k, first);
  return GPUBLOB_OK;
}

int gpublob_param_count(gpublob *g, const gpublob_result *r, size_t i, size_t k, size_t *count) {
  if (count) *count = 0;
  if (!g) return GPUBLOB_MISUSE;
  handle_call_reset(g);
  if (!count) return handle_set_error(g, GPUBLOB_MISUSE, "NULL count");
  size_t first, n;
  if (params_load(g, r, i, k, &n, &first)) return g->code;
  *count = n;
  return GPUBLOB_OK;
}

int gpublob_param_get(gpublob *g, const gpublob_result *r, size_t i, size_t k, size_t p, gpublob_param_info *out,
                      size_t size) {
  const size_t oldest = sizeof(gpublob_param_info); /* 1.7's struct */
  if (out && size >= oldest) memset(out, 0, size);
  if (!g) return GPUBLOB_MISUSE;
  handle_call_reset(g);
  if (!out || size < oldest) return handle_set_error(g, GPUBLOB_MISUSE, "the param info is %zu bytes, not %zu", out ? size : 0, oldest);
  size_t first, n;
  if (params_load(g, r, i, k, &n, &first)) return g->code;
  if (p >= n) return handle_set_error(g, GPUBLOB_MISUSE, "parameter %zu of kernel %zu, which has %zu", p, k, n);
  return copy_out(out, size, &g->kernels.t.p[first + p].info, sizeof(gpublob_param_info), oldest);
}

/* A job for questions about o->target (its name only; the chip does not matter); o settled. */
static int query_job(job *j, gpublob *g, const gpublob_options *o) {
  job_state_begin(j, g, o, NULL);
  target_ref r = resolve_target_parse(o->target, NULL);
  if (r.n >= sizeof j->target)
    return handle_set_error(g, GPUBLOB_TARGET, "unknown target '%.*s...' (longer than any)", 40, r.name);
  memcpy(j->target, r.name, r.n);
  j->target[r.n] = 0;
  j->opts.target = j->target;
  resolve_job_aim(j, &r, NULL);
  return resolve_target(j);
}

/* The tool a query job resolved, its strings held by the handle. */
static void tool_info_fill(job *j, gpublob_tool_info *info) {
  gpublob *g = j->g;
  for (int i = 0; i < 3; i++) sb_reset(&g->held[i]);
  if (*j->provider_path) {
    info->kind = "in-process";
    sb_add(&g->held[0], j->t->provider_name);
    sb_add(&g->held[1], j->provider_path);
  } else if (tool_choice_needs_blob_tool(j)) {
    info->kind = "program";
    sb_add(&g->held[0], tool_choice_base_name(j->tool));
    sb_add(&g->held[1], j->tool);
  }
  info->name = sb_str(&g->held[0]);
  info->path = sb_str(&g->held[1]);
  info->fallback = sb_str(&g->held[2]);
}

/* The query's format, checked as a compile checks it; the tool is a bin's or a pack's. */
static int query_format(job *j) {
  int format = j->o->format;
  if (format < GPUBLOB_FORMAT_DEFAULT || format > GPUBLOB_FORMAT_OFFLOAD)
    return handle_set_error(j->g, GPUBLOB_FORMAT, "unknown output format %d", format);
  if (format != GPUBLOB_FORMAT_PACK) j->opts.format = GPUBLOB_FORMAT_BIN;
  return resolve_levels(j);
}

int gpublob_tool_info_get(gpublob *g, const gpublob_options *opts, size_t njobs,
                          gpublob_tool_info *out, size_t size) {
  gpublob_tool_info info = {"none", "", "", ""};
  if (copy_out(out, size, &info, sizeof info, sizeof info)) return GPUBLOB_MISUSE;
  memset(out, 0, size);
  if (!g) return GPUBLOB_MISUSE;
  handle_call_reset(g);
  gpublob_options o;
  if (options_normalise(g, opts, &o)) return g->code;
  job j;
  int rc = query_job(&j, g, &o);
  (void)njobs; /* 1.0 chose the tool by the call's size; no mode does now */
  if (!rc) rc = query_format(&j);
  if (!rc) rc = tool_choice_resolve_tool(&j, 1);
  if (!rc && j.prov) rc = provider_ready(&j);
  provider_settle(g);
  if (!rc) tool_info_fill(&j, &info);
  job_state_end(&j);
  if (!rc && (g->held[0].oom || g->held[1].oom || g->held[2].oom)) rc = handle_set_error(g, GPUBLOB_NOMEM, "out of memory");
  return rc ? rc : copy_out(out, size, &info, sizeof info, sizeof info);
}

/* Each device library of the job's target and chip, found or not, into found. */
static int libs_list(job *j, strbuf *found) {
  const char *list = j->t->libs, *w;
  size_t n;
  int rc = GPUBLOB_OK;
  while ((w = util_next_word(&list, " ", &n))) {
    strbuf name = {0};
    search s = {0};
    if (search_find_lib(j, w, n, &name, &s))
      sb_addf(found, "%s\n", sb_str(&s.found));
    else if (!rc)
      rc = handle_set_error(j->g, GPUBLOB_NOLIB, "device library %s for %s:%s not found; tried:%s", sb_str(&name),
                     j->t->name, j->chip, s.tried.len ? sb_str(&s.tried) : " nothing (no search directory)");
    sb_free(&name);
    search_end(&s);
  }
  return rc;
}

int gpublob_libs_find(gpublob *g, const gpublob_options *opts, const char **paths) {
  if (paths) *paths = "";
  if (!g) return GPUBLOB_MISUSE;
  handle_call_reset(g);
  if (!paths) return handle_set_error(g, GPUBLOB_MISUSE, "NULL paths");
  sb_reset(&g->held[0]);
  gpublob_options o;
  if (options_normalise(g, opts, &o)) return g->code;
  job j;
  job_state_begin(&j, g, &o, NULL);
  target_ref r = resolve_target_parse(o.target, o.chip);
  resolve_job_aim(&j, &r, r.chips);
  int rc = resolve_options(&j);
  if (!rc) rc = libs_list(&j, &g->held[0]);
  job_state_end(&j);
  if (g->held[0].oom) rc = handle_set_error(g, GPUBLOB_NOMEM, "out of memory");
  *paths = g->held[0].oom ? "" : sb_str(&g->held[0]);
  return rc;
}

int gpublob_toolchain_id(gpublob *g, const gpublob_options *opts, char *hex, size_t size) {
  if (hex && size) *hex = 0;
  if (!g) return GPUBLOB_MISUSE;
  handle_call_reset(g);
  if (!hex || size < GPUBLOB_TOOLCHAIN_ID_SIZE)
    return handle_set_error(g, GPUBLOB_MISUSE, "the identity's buffer is %zu bytes, not %d", hex ? size : 0,
                     GPUBLOB_TOOLCHAIN_ID_SIZE);
  gpublob_options o;
  if (options_normalise(g, opts, &o)) return g->code;
  digest_key128 k;
  int rc = toolchain_id_digest(g, &o, &k);
  if (!rc) cache_dir_key_hex(&k, hex);
  return rc;
}

int gpublob_inspect(gpublob *g, const gpublob_input *in, gpublob_result *out) {
  if (out) memset(out, 0, sizeof *out);
  if (!g) return GPUBLOB_MISUSE;
  handle_call_reset(g);
  if (!out) return handle_set_error(g, GPUBLOB_MISUSE, "NULL result");
  if (in && in->kind != GPUBLOB_INPUT_AUTO)
    return handle_set_error(g, GPUBLOB_MISUSE, "an inspected file's kind is read from it: give kind AUTO, not %d", in->kind);
  const gpublob_options defaults = {0};
  input_held h;
  if (input_hold(g, &defaults, in, &h)) return g->code;
  int rc = inspect_read(g, h.data, h.size, out);
  free(h.data);
  if (rc) gpublob_result_free(out);
  return rc;
}

int gpublob_input_detect(const void *data, size_t size, const char *name) {
  return input_kind_of(GPUBLOB_INPUT_AUTO, data ? data : (const void *)"", data ? size : 0, name, NULL);
}

const char *gpublob_version(void) { return GPUBLOB_VERSION_STRING; }

/* ---- the public API: MLIR ---- */
int gpublob_mlir_enabled(void) { return GPUBLOB_MLIR; }
