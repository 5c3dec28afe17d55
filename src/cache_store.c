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

/* One record per job: enough to resolve it again, and so to digest what it uses. */
static void manifest_put(strbuf *b, job *const *jobs, size_t n, const int *packed) {
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
    for (size_t k = 0; j->opts.link && k < j->opts.nlink; k++) cache_store_put_str(b, j->opts.link[k]);
  }
}

/* The results: per output its target, chip, tool, its tool's report (src/
** output_report.c), suffix and bytes.  -1 when memory is out. */
static int entry_put(strbuf *b, const gpublob_result *r) {
  cache_store_put_u64(b, r->count);
  strbuf report = {0};
  unsigned block_size;
  int rc = 0;
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

/* After a compile: the manifest under k0, the outputs under k1, the key of what
** made them (taken before the compile, so a tool replaced meanwhile misses). */
GPUBLOB_PRIVATE void cache_store(digest_cache *c, const digest_key128 *k0, const digest_key128 *k1, job *const *jobs, size_t n,
                        const int *packed, const gpublob_result *res) {
  strbuf m = {0}, e = {0};
  manifest_put(&m, jobs, n, packed);
  int rc = entry_put(&e, res);
  if (!rc && !m.oom && !e.oom && !cache_dir_write(c, k1, 'e', &e) && !cache_dir_write(c, k0, 'm', &m))
    c->g->stats.cache_writes++;
  sb_free(&m);
  sb_free(&e);
}
