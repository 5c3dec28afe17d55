/* src/cache_lookup.c: The cache's reads: manifests (a call's jobs) and entries (its outputs), each
** validated before a byte of it is handed out. */

/* ---- the cache: manifests (a call's jobs) and entries (its outputs) ---- */

GPUBLOB_PRIVATE uint64_t cache_lookup_get_u64(cache_lookup_reader *r) {
  uint64_t v = 0;
  if (r->end - r->p < 8) {
    r->bad = 1;
    return v;
  }
  memcpy(&v, r->p, 8);
  r->p += 8;
  return v;
}

/* A string of the payload (NULL for a null one); its NUL is checked. */
GPUBLOB_PRIVATE const char *cache_lookup_get_str(cache_lookup_reader *r) {
  uint64_t n = cache_lookup_get_u64(r);
  if (r->bad || !n) return NULL;
  if ((uint64_t)(r->end - r->p) < n || r->p[n - 1]) {
    r->bad = 1;
    return NULL;
  }
  const char *s = (const char *)r->p;
  r->p += n;
  return s;
}

void gpublob_result_free(gpublob_result *r) {
  if (!r) return;
  for (size_t i = 0; i < r->count; i++) {
    util_blob_release(&r->outputs[i].blob);
    free((char *)r->outputs[i].target);
    free((char *)r->outputs[i].chip);
    output_report_note_drop(r->outputs[i].tool); /* before its key, the tool string, goes */
    free((char *)r->outputs[i].tool);
  }
  free(r->outputs);
  memset(r, 0, sizeof *r);
}

/* Suffixes and target names in a result point at static storage. */
static const char *static_suffix(const char *s) {
  static const char *const fixed[] = {".bc", ".ll", ".o", ".mlir", ".mlirbc"};
  for (size_t i = 0; s && i < sizeof fixed / sizeof *fixed; i++)
    if (!strcmp(s, fixed[i])) return fixed[i];
  for (int i = 0; s && i < target_count(); i++) {
    const char *const mine[] = {target_at(i)->suffix_asm, target_at(i)->suffix_bin, target_at(i)->suffix_pack,
                                target_at(i)->tool_suffix};
    for (int k = 0; k < 4; k++)
      if (*mine[k] && !strcmp(s, mine[k])) return mine[k];
  }
  return NULL;
}

/* A blob cache_store_put_blob wrote, its suffix mapped to static storage (NULL when unknown);
** 0 with none (a NULL suffix), -1 when the payload is cut short or memory is out. */
GPUBLOB_PRIVATE int cache_lookup_get_blob(cache_lookup_reader *r, gpublob_blob *out, int mode) {
  const char *suffix = cache_lookup_get_str(r);
  uint64_t n = cache_lookup_get_u64(r), here = r->bad ? 0 : (uint64_t)(r->end - r->p);
  if (!r->bad && mode != BLOB_STREAM && here < n) r->bad = 1;
  if (r->bad) return -1;
  if (!suffix) return 0; /* none */
  if (mode == BLOB_BORROW) out->data = (unsigned char *)r->p;
  if (mode == BLOB_COPY && !(out->data = malloc(n + 1))) {
    r->bad = 1;
    return -1;
  }
  if (mode == BLOB_COPY) memcpy(out->data, r->p, n);
  if (mode == BLOB_COPY) out->data[n] = 0;
  out->size = n;
  out->suffix = static_suffix(suffix);
  r->blob_at = r->p;
  r->p += here < n ? here : n;
  return 0;
}

/* Appends an output; its strings are copied into the result, "" for a NULL one; its
** tool's report and the call's block size kept with it (src/output_report.c). */
GPUBLOB_PRIVATE int cache_lookup_result_add(gpublob_result *r, const char *target, const char *chip, const char *tool,
                      const char *report, unsigned block_size, gpublob_blob *blob) {
  if (util_grow(&r->outputs, r->count, sizeof *r->outputs)) return -1;
  gpublob_output *o = &r->outputs[r->count];
  memset(o, 0, sizeof *o);
  o->target = strdup(target ? target : "");
  o->chip = strdup(chip ? chip : "");
  o->tool = strdup(tool ? tool : "");
  if (!o->target || !o->chip || !o->tool || output_report_note_set(o, report, block_size, 0)) {
    free((char *)o->target);
    free((char *)o->chip);
    free((char *)o->tool);
    return -1;
  }
  o->blob = *blob;
  memset(blob, 0, sizeof *blob);
  r->count++;
  return 0;
}

/* Strings read back from a cache file are checked as a compile would make them:
** the file may be anyone's bytes. */
static int chips_valid(const target_desc *t, const char *chips) {
  if (!t) return !*chips; /* MLIR's whole module has none */
  util_chip_list l = util_chip_list_of(chips);
  const char *w;
  size_t n, count = 0;
  while (util_next_chip(&l, &w, &n)) {
    if (!resolve_target_id_valid(t, w, n)) return 0;
    count++;
  }
  return count > 0;
}

static int tool_name_valid(const char *s) {
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && !strchr("._+-", *s)) return 0;
  return 1;
}

/* An output's note as gpublob writes it (src/tool_report.c's lines, MLIR's kernel
** summary, src/limits.c): lines of tab-separated fields, each line ended.  Its
** readers skip a line whose fields do not parse. */
static int report_valid(const char *s) {
  size_t n = strlen(s);
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)s[i] < ' ' && s[i] != '\t' && s[i] != '\n') return 0;
  return !n || s[n - 1] == '\n';
}

/* One output of an entry, or -1; its blob as cache_lookup_get_blob's mode says, and the call's
** block size kept with it. */
GPUBLOB_PRIVATE int cache_lookup_entry_output(cache_lookup_reader *r, gpublob_result *out, int mode, unsigned block_size) {
  const char *target = cache_lookup_get_str(r), *chip = cache_lookup_get_str(r), *tool = cache_lookup_get_str(r), *report = cache_lookup_get_str(r);
  const target_desc *t = target && *target ? resolve_target_named(target, strlen(target)) : NULL;
  gpublob_blob b = {0};
  if (r->bad || !chip || !tool || !report || (target && *target && !t) || !chips_valid(t, chip) ||
      !tool_name_valid(tool) || !report_valid(report) || cache_lookup_get_blob(r, &b, mode) || !b.suffix ||
      cache_lookup_result_add(out, t ? t->name : "", chip, tool, report, block_size, &b)) {
    if (mode == BLOB_COPY) util_blob_release(&b);
    return -1;
  }
  return 0;
}

/* The entry's last blob ends its payload, so the buffer the file was read into becomes
** that blob: its bytes moved to the buffer's start, in pages the read has already
** touched.  A hit of one big output (an MLIR module, a pack) then copies nothing into
** fresh memory: on a virtual machine each fresh page is a fault of microseconds. */
static void entry_take_last(cache_dir_file *e, gpublob_result *out) {
  gpublob_blob *b = &out->outputs[out->count - 1].blob;
  memmove(e->bytes, b->data, b->size);
  e->bytes[b->size] = 0; /* the header and the fields came before the blob: b->size < e->len */
  unsigned char *fit = realloc(e->bytes, b->size + 1); /* the other outputs' bytes go; in place */
  b->data = fit ? fit : e->bytes;
  e->bytes = NULL;
  cache_dir_file_free(e);
}

/* A warning's text as cache_store keeps it (n bytes): one line, no control character
** but a tab. */
GPUBLOB_PRIVATE int cache_lookup_warning_valid(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)s[i] < ' ' && s[i] != '\t') return 0;
  return 1;
}

/* The warnings an entry keeps (src/cache_store.c's warnings_put), a line each into out,
** labelled with this call's input name where the storing call's labelled them (its own
** name): a hit's warnings name the input as this call names it.  0, or -1 when malformed.
** The caller gives them to the handle once the entry is known good. */
GPUBLOB_PRIVATE int cache_lookup_entry_warnings(cache_lookup_reader *r, const char *name, strbuf *out) {
  uint64_t n = cache_lookup_get_u64(r);
  if (n > CACHE_LOOKUP_MAX_WARNINGS) r->bad = 1;
  for (uint64_t i = 0; !r->bad && i < n; i++) {
    uint64_t labelled = cache_lookup_get_u64(r);
    const char *text = cache_lookup_get_str(r);
    if (r->bad || labelled > 1 || !text || !cache_lookup_warning_valid(text, strlen(text))) r->bad = 1;
    else sb_addf(out, "%s%s\n", labelled && name ? name : "", text);
  }
  return r->bad || out->oom ? -1 : 0;
}

/* An entry's outputs, and its warnings into warnings; one that holds none, or anything
** malformed, is a miss. */
GPUBLOB_PRIVATE int cache_lookup_entry_get(cache_dir_file *e, gpublob_result *out, unsigned block_size, const char *name,
                                           strbuf *warnings) {
  cache_lookup_reader r = {e->data, e->data + e->size, 0, NULL};
  if (cache_lookup_entry_warnings(&r, name, warnings)) return -1;
  uint64_t count = cache_lookup_get_u64(&r);
  for (uint64_t i = 0; !r.bad && i < count && i < MAX_JOBS; i++)
    if (cache_lookup_entry_output(&r, out, i + 1 == count ? BLOB_BORROW : BLOB_COPY, block_size)) break;
  if (count && out->count == count && r.p == r.end) {
    entry_take_last(e, out);
    return 0;
  }
  if (count && out->count == count) out->outputs[count - 1].blob.data = NULL; /* borrowed */
  gpublob_result_free(out);
  return -1;
}

/* A job record of a manifest, as cache_store's manifest_put wrote it. */
typedef struct record {
  const char *target, *chip, *features;
  uint64_t opt, format, flags, abi, abi_default, packed, keep_asm, in_process;
  const char *tool_options;
  const char **link; /* nlink link files' paths (malloc'd: record_free), NULL for none */
  size_t nlink;
} record;

static void record_free(record *rec) {
  free(rec->link);
  rec->link = NULL;
}

/* Reads one record: 0, or -1 when the manifest is cut short or malformed. */
static int record_read(cache_lookup_reader *r, record *rec) {
  memset(rec, 0, sizeof *rec);
  rec->target = cache_lookup_get_str(r);
  rec->chip = cache_lookup_get_str(r);
  rec->features = cache_lookup_get_str(r);
  uint64_t *const v[] = {&rec->opt, &rec->format, &rec->flags, &rec->abi, &rec->abi_default,
                         &rec->packed, &rec->keep_asm, &rec->in_process};
  for (size_t i = 0; i < sizeof v / sizeof *v; i++) *v[i] = cache_lookup_get_u64(r);
  rec->tool_options = cache_lookup_get_str(r);
  uint64_t nlink = cache_lookup_get_u64(r);
  if (!r->bad && nlink && nlink <= 65536 && (rec->link = calloc((size_t)nlink, sizeof *rec->link)))
    for (uint64_t k = 0; k < nlink; k++) rec->link[k] = cache_lookup_get_str(r);
  rec->nlink = rec->link ? (size_t)nlink : 0;
  if (r->bad || !rec->target || (nlink && !rec->link)) {
    record_free(rec);
    return -1;
  }
  return 0;
}

/* Resolves a record's job again, as a compile would, and digests what it uses into
** *d (its part of k1): 0, or -1.  Its link files that are the call's are this call's. */
static int record_key(digest_cache *c, const gpublob_options *o, record *rec, gpublob *sink, digest_key128 *d) {
  for (size_t k = 0; k < rec->nlink; k++) /* none: this call's link file k (manifest_put) */
    if (!rec->link[k] && !(o->link && k < o->nlink && (rec->link[k] = o->link[k]))) return -1;
  gpublob_options jo = *o;
  jo.target = rec->target;
  jo.chip = rec->chip;
  jo.features = rec->features;
  jo.opt = (int)rec->opt;
  jo.format = (int)rec->format;
  jo.flags = ((unsigned)rec->flags & ~PLACE_FLAGS) | (o->flags & PLACE_FLAGS); /* searched where this call searches */
  jo.abi = rec->abi > 1000000 ? 1000001 : (unsigned)rec->abi; /* resolved again: a bad one is refused */
  jo.targets = NULL;
  jo.ntargets = 0;
  jo.tool_options = rec->tool_options;
  jo.link = rec->link;
  jo.nlink = rec->nlink;
  if (!rec->in_process && jo.tool_mode != GPUBLOB_TOOL_INPROCESS) /* as the compile ran it */
    jo.tool_mode = GPUBLOB_TOOL_PROGRAM;
  job j;
  job_state_begin(&j, sink, &jo, "");
  target_ref r = resolve_target_parse(jo.target, jo.chip);
  resolve_job_aim(&j, &r, r.chips);
  j.abi_default = rec->abi_default > 1000000 ? 1000001 : (unsigned)rec->abi_default;
  strbuf pack = {0};
  int rc = resolve_options(&j);
  if (!rc && rec->packed == PACK_PROGRAM) rc = search_find_pack_tool(&j, &pack);
  if (!rc && rec->packed == PACK_INPROCESS && j.t->pack_provider == PACK_PROVIDER_none) rc = -1;
  if (rec->packed > PACK_INPROCESS) rc = -1;
  j.keep_asm = (int)rec->keep_asm;
  if (!rc) rc = tool_choice_resolve_tool(&j, 0);
  if (!rc) *d = cache_deps_job_key(c, &j, (int)rec->packed, sb_str(&pack));
  sb_free(&pack);
  job_state_end(&j);
  return rc ? -1 : 0;
}

/* While the remote tier gets ready to fetch a manifest (cache_remote_warm), the jobs
** the call's options name (one target each) are resolved as a record of theirs
** would be, and their tools and libraries digested: the digests the manifest's
** records then ask for are the call's already (cache_deps: once per call).  An MLIR
** input whose options name no target names its jobs in its target attributes
** (inspect_mlir_targets: #nvvm.target<chip = "sm_90">).  A guess only: a manifest's
** records are resolved again all the same, and the digests of a job it does not
** hold are its cost. */
GPUBLOB_PRIVATE void cache_lookup_foresee(digest_cache *c, const gpublob_options *o) {
  enum { MLIR_GUESSES = 16 };
  gpublob sink = {0};
  inspect_target named[MLIR_GUESSES];
  size_t n = o->targets ? o->ntargets : o->target ? 1 : 0, nnamed = 0;
  if (!n && c->foreseen_mlir) n = nnamed = inspect_mlir_targets(c->foreseen_mlir, c->foreseen_mlir_size, named, MLIR_GUESSES);
  for (size_t i = 0; i < n; i++) {
    record rec = {.target = nnamed ? named[i].t->name : o->targets ? o->targets[i].target : o->target,
                  .chip = nnamed ? named[i].chip : o->targets ? o->targets[i].chip : o->chip,
                  .features = nnamed ? NULL : o->targets ? o->targets[i].features : o->features,
                  .opt = (uint64_t)o->opt, .format = (uint64_t)o->format, .flags = o->flags, .abi = o->abi,
                  .tool_options = o->tool_options};
    digest_key128 d;
    if (rec.target && !o->link) record_key(c, o, &rec, &sink, &d);
  }
  sb_free(&sink.msg);
  sb_free(&sink.warn);
}

/* A record already resolved in this lookup: its bytes (in the manifest), their
** XXH3-64 (compared first) and its part of k1. */
typedef struct record_seen {
  const unsigned char *p;
  size_t n;
  uint64_t h;
  digest_key128 d;
} record_seen;

/* Resolves a manifest's jobs again, as a compile would, and digests what they use.
** A call's jobs repeat a few records (16 gpu.modules x 2 chips: 2 records for 32
** jobs): each distinct record is resolved once, its tools and libraries searched
** and digested once, and its digest used for each job with the same bytes.  Those
** bytes are all a resolution reads besides the call's options, so equal bytes
** resolve alike; a changed tool or library is seen as before, once per call. */
GPUBLOB_PRIVATE int cache_lookup_manifest_key(digest_cache *c, const digest_key128 *k0, const gpublob_options *o, cache_lookup_reader *r,
                        digest_key128 *k1) {
  XXH3_state_t st;
  XXH3_128bits_reset(&st);
  digest_hash_bytes(&st, k0->b, sizeof k0->b);
  uint64_t n = cache_lookup_get_u64(r);
  /* no job: a call whose every object MLIR's own serialiser made, which k0 covers alone */
  int rc = r->bad || n > MAX_JOBS;
  gpublob sink = {0};
  record_seen *seen = NULL;
  size_t nseen = 0;
  for (uint64_t i = 0; !rc && i < n; i++) {
    const unsigned char *at = r->p;
    record rec;
    if ((rc = record_read(r, &rec))) break;
    size_t len = (size_t)(r->p - at);
    uint64_t h = XXH3_64bits(at, len);
    size_t k = 0;
    while (k < nseen && !(seen[k].h == h && seen[k].n == len && !memcmp(seen[k].p, at, len))) k++;
    if (k == nseen) {
      digest_key128 d;
      rc = record_key(c, o, &rec, &sink, &d);
      if (!rc) rc = util_grow(&seen, nseen, sizeof *seen);
      if (!rc) seen[nseen++] = (record_seen){at, len, h, d};
    }
    record_free(&rec);
    if (rc) break;
    digest_hash_bytes(&st, seen[k].d.b, sizeof seen[k].d.b);
  }
  free(seen);
  sb_free(&sink.msg);
  sb_free(&sink.warn);
  if (rc || r->bad || r->p != r->end) return -1;
  *k1 = digest_hash_key(&st);
  return 0;
}
