/* src/cache_store.c: The cache's writes: what a compile stores, once its outputs are made. */

/* ---- the cache: what a compile stores ---- */
GPUBLOB_PRIVATE void cache_store_put_u64(strbuf *b, uint64_t v) { sb_addn(b, (const char *)&v, sizeof v); }

/* A blob: its suffix, its size, its bytes (cache entries, isolated results). */
GPUBLOB_PRIVATE void cache_store_put_blob(strbuf *b, const gpublob_blob *blob) {
  cache_store_put_str(b, blob->suffix);
  cache_store_put_u64(b, blob->size);
  sb_addn(b, (const char *)blob->data, blob->size);
}

GPUBLOB_PRIVATE void cache_store_put_str(strbuf *b, const char *s) {
  cache_store_put_u64(b, s ? strlen(s) + 1 : 0);
  if (s) sb_addn(b, s, strlen(s) + 1);
}

/* One record per job: enough to resolve it again, and so to digest what it uses.  A
** job links the call's link files first (ncall of them), then an MLIR attribute's
** (whose paths are the input's bytes): the call's are written as none, for a lookup
** to take its own call's, wherever they lie (the entry's key has their bytes). */
static void manifest_put(strbuf *b, job *const *jobs, size_t n, const int *packed, size_t ncall) {
  cache_store_put_u64(b, n);
  for (size_t i = 0; i < n; i++) {
    const job *j = jobs[i];
    cache_store_put_str(b, j->t->name);
    cache_store_put_str(b, *j->planned ? j->planned : j->chip);
    cache_store_put_str(b, j->opts.features);
    cache_store_put_u64(b, (uint64_t)j->opts.opt);
    cache_store_put_u64(b, (uint64_t)j->opts.format);
    cache_store_put_u64(b, j->opts.flags);
    cache_store_put_u64(b, j->opts.abi);
    cache_store_put_u64(b, j->abi_default);
    cache_store_put_u64(b, (uint64_t)packed[i]);
    cache_store_put_u64(b, (uint64_t)j->keep_asm);
    cache_store_put_u64(b, (uint64_t)(*j->provider_path != 0)); /* in-process, or the program */
    cache_store_put_str(b, j->opts.tool_options); /* with an MLIR attribute's, which the call's options lack */
    cache_store_put_u64(b, j->opts.link ? j->opts.nlink : 0);
    for (size_t k = 0; j->opts.link && k < j->opts.nlink; k++) cache_store_put_str(b, k < ncall ? NULL : j->opts.link[k]);
  }
}

/* The cache's own warnings (its directory, the remote tier) are the call's, not the
** compile's: an entry does not keep them. */
static int cache_own_warning(const char *line, size_t n) {
  static const char *const own[] = {"cache directory ", "remote cache "};
  for (size_t i = 0; i < sizeof own / sizeof *own; i++)
    if (n >= strlen(own[i]) && !memcmp(line, own[i], strlen(own[i]))) return 1;
  return 0;
}

/* The compile's warnings (the handle's since c->warn_from), a line each, for its hits
** to give: a line that begins with the input's name (name: or name (...)) is kept
** without it, marked labelled, so that a hit labels it with its own call's name.
** How many lines, then per line whether labelled, and its text; -1 for a line or more
** lines than a lookup takes (cache_lookup_entry_warnings): the entry is not stored. */
static int warnings_put(strbuf *b, digest_cache *c, const char *name) {
  const strbuf *w = &c->g->warn;
  const char *p = sb_str(w) + (c->warn_from < w->len ? c->warn_from : w->len);
  size_t nn = name ? strlen(name) : 0;
  strbuf lines = {0};
  uint64_t count = 0;
  int valid = 1;
  while (*p) {
    const char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) : strlen(p);
    int labelled = nn && n > nn && !memcmp(p, name, nn) && (p[nn] == ':' || p[nn] == ' ');
    valid &= cache_lookup_warning_valid(p, n);
    if (n && !cache_own_warning(p, n)) {
      cache_store_put_u64(&lines, (uint64_t)labelled);
      cache_store_put_u64(&lines, n - (labelled ? nn : 0) + 1);
      sb_addn(&lines, p + (labelled ? nn : 0), n - (labelled ? nn : 0));
      sb_addn(&lines, "", 1);
      count++;
    }
    p += n + (nl != NULL);
  }
  cache_store_put_u64(b, count);
  sb_addn(b, lines.s ? lines.s : "", lines.len);
  if (lines.oom) b->oom = 1;
  sb_free(&lines);
  return !valid || count > CACHE_LOOKUP_MAX_WARNINGS ? -1 : 0;
}

/* The results: the compile's warnings (warnings_put), then per output its target, chip,
** tool, its tool's report (src/output_report.c), suffix and bytes (the last output's
** bytes end the entry: a hit streams them).  -1 when memory is out, or warnings_put
** refuses. */
static int entry_put(strbuf *b, digest_cache *c, const char *name, const gpublob_result *r) {
  int rc = warnings_put(b, c, name);
  cache_store_put_u64(b, r->count);
  strbuf report = {0};
  unsigned block_size;
  for (size_t i = 0; !rc && i < r->count; i++) {
    const gpublob_output *o = &r->outputs[i];
    sb_reset(&report);
    rc = output_report_note_get(o, &report, &block_size);
    cache_store_put_str(b, o->target);
    cache_store_put_str(b, o->chip);
    cache_store_put_str(b, o->tool);
    cache_store_put_str(b, sb_str(&report));
    cache_store_put_blob(b, &o->blob);
  }
  sb_free(&report);
  return rc;
}

/* After a compile of plan p: the manifest under k0, the outputs under p's entry key,
** the key of what made them (taken before the compile, so a tool replaced meanwhile
** misses).  A call with a dump directory that warned stores nothing: its warnings may
** be the dump's, which a hit has none of. */
GPUBLOB_PRIVATE void cache_store(digest_cache *c, const digest_key128 *k0, const struct plan *p, const int *packed,
                        const gpublob_result *res) {
  if (p->o.dump_dir && *p->o.dump_dir && c->g->warn.len > c->warn_from) return;
  strbuf m = {0}, e = {0};
  manifest_put(&m, p->jobs, p->njobs, packed, p->o.link ? p->o.nlink : 0);
  int rc = entry_put(&e, c, p->name, res);
  if (!rc && !m.oom && !e.oom && !cache_dir_write(c, &p->entry_key, 'e', &e) && !cache_dir_write(c, k0, 'm', &m))
    c->g->stats.cache_writes++;
  sb_free(&m);
  sb_free(&e);
}
