/* src/api.c: The public API that needs no LLVM: handles, errors, targets, tools, the cache. */

/* ---- the public API ---- */
/* engine_open, engine_close: what the build's engine does with a handle (the
** compiler: LLVM's initialisation, the isolation helper; the front: nothing). */
int gpublob_open(gpublob **out) {
  if (!out) return GPUBLOB_MISUSE;
  *out = calloc(1, sizeof **out);
  if (!*out) return GPUBLOB_NOMEM;
  pthread_mutex_init(&(*out)->helper_mu, NULL);
  (*out)->helper_live = -1;
  engine_open();
  return GPUBLOB_OK;
}

void gpublob_close(gpublob *g) {
  if (!g) return;
  engine_close(g);
  pthread_mutex_destroy(&g->helper_mu);
  sb_free(&g->msg);
  sb_free(&g->warn);
  free(g);
}


void gpublob_blob_free(gpublob_blob *b) {
  if (!b) return;
  free(b->data);
  memset(b, 0, sizeof *b);
}

int gpublob_cache_lookup(gpublob *g, const gpublob_options *opts, int input, const void *data,
                         size_t size, const char *name, gpublob_result *out) {
  if (!g) return GPUBLOB_MISUSE;
  call_reset(g);
  if (out) memset(out, 0, sizeof *out);
  if (!out || (!data && size) || (input != GPUBLOB_INPUT_LLVM && input != GPUBLOB_INPUT_MLIR))
    return set_error(g, GPUBLOB_MISUSE, "NULL output or input, or an unknown input kind");
  double t = now_ms();
  gpublob_options o;
  options_normalise(opts, &o);
  cache c;
  if (check_version(g, &o)) return g->code;
  if (!o.cache_dir || !*o.cache_dir) return set_error(g, GPUBLOB_OPTION, "no cache directory in the options");
  if (!cache_open(&c, g, &o))
    return set_error(g, GPUBLOB_NOTCACHED, "not in the cache %s: %s", o.cache_dir, gpublob_warnings(g));
  key128 k0 = call_key(&o, input, data ? data : "", size, name ? name : "<memory>");
  int hit = !cache_lookup(&c, &k0, &o, out);
  cache_close(&c);
  hit ? g->stats.cache_hits++ : g->stats.cache_misses++;
  g->stats.cache_ms = g->stats.wall_ms = now_ms() - t;
  return hit ? GPUBLOB_OK : set_error(g, GPUBLOB_NOTCACHED, "not in the cache %s", c.dir);
}

const char *gpublob_warnings(const gpublob *g) { return g && !g->warn.oom ? sb_str(&g->warn) : ""; }

int gpublob_stats_get(const gpublob *g, gpublob_stats *out) {
  if (!g || !out) return GPUBLOB_MISUSE;
  *out = g->stats;
  return GPUBLOB_OK;
}

int gpublob_error_code(const gpublob *g) { return g ? g->code : GPUBLOB_MISUSE; }

const char *gpublob_error_message(const gpublob *g) {
  if (!g) return error_strings[GPUBLOB_MISUSE];
  if (g->msg.oom) return error_strings[GPUBLOB_NOMEM];
  return g->msg.len ? g->msg.s : error_strings[g->code];
}

const char *gpublob_error_string(int code) {
  int n = (int)(sizeof error_strings / sizeof *error_strings);
  return code >= 0 && code < n && error_strings[code] ? error_strings[code] : "unknown error code";
}

int gpublob_target_count(void) { return NTARGETS; }

int gpublob_target_get(int index, gpublob_target_info *out) {
  if (index < 0 || index >= NTARGETS || !out) return GPUBLOB_MISUSE;
  const target_desc *t = &targets[index];
  *out = (gpublob_target_info){t->name,       t->triple,     t->chip,           t->features,
                               t->attribute,  t->suffix_asm, t->suffix_bin,     t->tool_kind_name,
                               t->chips,      t->mlir_target};
  return GPUBLOB_OK;
}

/* A job for questions about opts->target (its name only; the chip does not matter). */
static int query_job(job *j, gpublob *g, const gpublob_options *opts) {
  job_begin(j, g, opts, NULL);
  const char *spec = j->o->target ? j->o->target : targets[0].name, *colon = strchr(spec, ':');
  snprintf(j->target, sizeof j->target, "%.*s", (int)(colon ? colon - spec : (ptrdiff_t)strlen(spec)), spec);
  j->opts.target = j->target;
  j->opts.chip = NULL;
  if (j->opts.format != GPUBLOB_FORMAT_FATBIN) j->opts.format = GPUBLOB_FORMAT_BIN;
  return resolve_target(j);
}

int gpublob_tool_find(gpublob *g, const gpublob_options *opts, char *buf, size_t size) {
  if (!g || !buf || !size) return GPUBLOB_MISUSE;
  job j;
  int rc = query_job(&j, g, opts);
  buf[0] = 0;
  if (!rc && j.t->tool_kind == TOOL_exec) rc = find_tool(&j, buf, size);
  job_end(&j);
  return rc;
}

int gpublob_tool_info_get(gpublob *g, const gpublob_options *opts, size_t njobs,
                          gpublob_tool_info *out) {
  if (!g || !out) return GPUBLOB_MISUSE;
  memset(out, 0, sizeof *out);
  out->kind = "none";
  out->name = "";
  job j;
  int rc = query_job(&j, g, opts);
  j.peers = njobs;
  if (!rc) rc = resolve_levels(&j);
  if (!rc) rc = resolve_tool(&j, 1);
  if (!rc && *j.provider_path) {
    out->kind = "in-process";
    snprintf(out->path, sizeof out->path, "%s", j.provider_path);
    if (find_tool(&j, out->fallback, sizeof out->fallback)) out->fallback[0] = 0;
    j.g->code = GPUBLOB_OK;
  } else if (!rc && needs_blob_tool(&j)) {
    out->kind = "program";
    snprintf(out->path, sizeof out->path, "%s", j.tool);
  }
  out->name = rc || !j.t || !needs_blob_tool(&j) ? "" : *j.provider_path ? j.t->provider_name : base_name(out->path);
  job_end(&j);
  return rc;
}

const char *gpublob_version(void) { return GPUBLOB_VERSION_STRING; }

/* ---- the public API: MLIR ---- */
int gpublob_mlir_enabled(void) { return GPUBLOB_MLIR; }
