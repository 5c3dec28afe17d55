/* src/toolchain_id.c: The toolchain identity (gpublob_toolchain_id): a digest of everything
** but the input that decides a blob.  gpublob's and LLVM's versions, the spec, the settled
** options less their places (paths, the cache, flags that change no output), and, for each
** (target, chip) of the options, resolved as a compile resolves it, the bytes of its blob
** tool (or the provider), device libraries, link files and pack tool, digested as the
** cache's keys digest them (src/cache_deps.c, content_only).  No path is in it: a
** byte-identical toolkit elsewhere has the same identity.  LLVM-free: the front has it. */

/* ---- the toolchain identity: what decides a blob, but the input ---- */
/* The options that decide a blob, in no place: not tool, tool_dirs, lib_dirs, toolkit,
** the cache or the remote tier, the limits, jobs, timeouts or memory bounds. */
static void hash_options(XXH3_state_t *st, const gpublob_options *o) {
  digest_hash_str(st, "gpublob toolchain id 1");
  digest_hash_str(st, GPUBLOB_VERSION_STRING);
  digest_hash_str(st, LLVM_VERSION_STRING);
  digest_hash_u64(st, GPUBLOB_MLIR);
  digest_hash_u64(st, GPUBLOB_MLIR_PASSES);
  digest_hash_u64(st, GPUBLOB_LLVM_CXX);
  pthread_once(&digest_spec_once, digest_spec_hash);
  digest_hash_bytes(st, digest_spec_key.b, sizeof digest_spec_key.b);
  const char *const strs[] = {o->features, o->pipeline, o->tool_options, o->section};
  for (size_t i = 0; i < sizeof strs / sizeof *strs; i++) digest_hash_str(st, strs[i]);
  /* a default and the value it stands for are one choice (a binding that passes format
  ** BIN, the CLI that passes none) */
  unsigned neutral = OUTPUT_NEUTRAL_FLAGS | PLACE_FLAGS;
  uint64_t format = (uint64_t)(o->format ? o->format : GPUBLOB_FORMAT_BIN);
  uint64_t opt = (uint64_t)(o->opt ? o->opt : GPUBLOB_OPT_O3);
  uint64_t attach = (uint64_t)(o->attach ? o->attach : GPUBLOB_ATTACH_BINARY);
  digest_hash_u64(st, format << 48 | opt << 32 | (o->flags & ~neutral));
  digest_hash_u64(st, attach << 32 | (uint64_t)o->tool_mode);
  digest_hash_u64(st, o->abi);
  digest_hash_u64(st, (uint64_t)o->fp_contract); /* DEFAULT: --as clang's is the module's language's */
  digest_hash_u64(st, (uint64_t)(o->as ? o->as : GPUBLOB_AS_MLIR));
  digest_hash_u64(st, (uint64_t)o->debug); /* AUTO stands for no one level: the module's */
  digest_hash_u64(st, o->block_size); /* MLIR's kernel tables are figured for it */
  digest_hash_u64(st, o->link ? o->nlink : 0); /* their bytes are in each job's digest */
}

/* A target choice as written (the jobs' digests hold it resolved): target and chip alone,
** or a list of one, are the same choice. */
static void hash_choice_words(XXH3_state_t *st, const gpublob_target_choice *ch) {
  digest_hash_str(st, ch->target);
  digest_hash_str(st, ch->chip);
  digest_hash_str(st, ch->features);
}

/* One job of r's target and chip (cn bytes; NULL: the target's default), resolved as a
** compile resolves it (src/plan.c's plan_add_job and plan_resolve, without loading a
** provider, as a cache lookup does), and its digest of what it uses added to st. */
static int hash_one_job(digest_cache *c, XXH3_state_t *st, gpublob *g, const gpublob_options *o,
                        const target_ref *r, const char *chip, size_t cn, const char *features) {
  job j;
  job_state_begin(&j, g, o, "");
  int rc = GPUBLOB_OK;
  if (r->n >= sizeof j.target || (chip && cn >= sizeof j.want))
    rc = handle_set_error(g, r->n >= sizeof j.target ? GPUBLOB_TARGET : GPUBLOB_CHIP,
                          "target or chip name too long: '%.*s'", (int)(chip ? cn : r->n), chip ? chip : r->name);
  if (!rc) {
    snprintf(j.target, sizeof j.target, "%.*s", (int)r->n, r->name);
    if (chip) snprintf(j.want, sizeof j.want, "%.*s", (int)cn, chip);
    j.opts.target = j.target;
    resolve_job_aim(&j, r, chip ? j.want : NULL);
    j.opts.features = features;
    j.opts.targets = NULL;
    j.opts.ntargets = 0;
    rc = resolve_options(&j);
  }
  if (!rc) rc = tool_choice_resolve_tool(&j, 0);
  strbuf pack = {0};
  int way = PACK_NONE;
  if (!rc && j.o->format == GPUBLOB_FORMAT_PACK) rc = tool_choice_pack_way(&j, &pack, &way);
  if (!rc && pack.oom) rc = handle_set_error(g, GPUBLOB_NOMEM, "out of memory");
  if (!rc) {
    digest_key128 d = cache_deps_job_key(c, &j, way, sb_str(&pack));
    digest_hash_bytes(st, d.b, sizeof d.b);
  }
  sb_free(&pack);
  job_state_end(&j);
  return rc;
}

/* A target choice's jobs, "NAME[:CHIP[,CHIP...]]" or its chip field, as the plan reads it. */
static int hash_choice(digest_cache *c, XXH3_state_t *st, gpublob *g, const gpublob_options *o,
                       const gpublob_target_choice *ch) {
  const target_ref r = resolve_target_parse(ch->target, ch->chip);
  const char *chips = r.chips, *w;
  size_t cn;
  if (!chips) return hash_one_job(c, st, g, o, &r, NULL, 0, ch->features);
  if (!*chips) return handle_set_error(g, GPUBLOB_CHIP, "empty chip list for target %.*s", (int)r.n, r.name);
  util_chip_list l = util_chip_list_of(chips);
  int rc = GPUBLOB_OK;
  while (!rc && util_next_chip(&l, &w, &cn)) {
    if (!cn || (l.rest && !*l.rest)) return handle_set_error(g, GPUBLOB_CHIP, "empty chip in the list '%s'", chips);
    rc = hash_one_job(c, st, g, o, &r, w, cn, ch->features);
  }
  return rc;
}

/* The identity of the settled options o into *out: OK, or the error a compile's plan
** would give (TARGET, CHIP, FEATURES, FORMAT, OPTION, NOTOOL), in the handle.  With a
** cache directory in o, the files' digests are remembered there, as a compile's are (a
** 37 MB ptxas is hashed once, not per call); the remote tier is not asked. */
GPUBLOB_PRIVATE int toolchain_id_digest(gpublob *g, const gpublob_options *o, digest_key128 *out) {
  if (o->ntargets && !o->targets)
    return handle_set_error(g, GPUBLOB_MISUSE, "ntargets is %zu but targets is NULL", o->ntargets);
  XXH3_state_t st;
  XXH3_128bits_reset(&st);
  hash_options(&st, o);
  gpublob_options local = *o;
  local.remote_cache = NULL; /* a file's digest is this machine's: the local directory alone */
  digest_cache c;
  cache_dir_open(&c, g, &local);
  c.content_only = 1;
  const gpublob_target_choice single = {o->target, o->chip, o->features};
  const gpublob_target_choice *list = o->ntargets ? o->targets : &single;
  size_t n = o->ntargets ? o->ntargets : 1;
  int rc = GPUBLOB_OK;
  digest_hash_u64(&st, n);
  for (size_t i = 0; i < n; i++) hash_choice_words(&st, &list[i]);
  for (size_t i = 0; !rc && i < n; i++) rc = hash_choice(&c, &st, g, o, &list[i]);
  cache_deps_close(&c);
  if (!rc) *out = digest_hash_key(&st);
  return rc;
}
