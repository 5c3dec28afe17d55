/* src/cache_deps.c: The cache's keys: digests of the input, the options and every file a result
** depends on (blob tool, device libraries, pack tool). */

/* ---- the cache: digests of the files a result depends on ---- */
/* A file's digest is remembered with its device, inode, size and times: a file that
** is written or replaced gets new ones (ctime cannot be set back), and is hashed again.
** The chunk read into is page-aligned: read() copying a page cache's pages into a
** buffer 16 bytes past a page's start (malloc's header on a block it maps, as a
** strbuf's 128 KB is) measured 4 times slower on this project's machines (ptxas's
** 37 MB: 34 ms against 7.7), the largest cost of a cold cache's hit. */
static int digest_fd(int fd, digest_key128 *out) {
  enum { PAGE = 4096 };
  strbuf chunk = {.s = aligned_alloc(PAGE, READ_CHUNK + PAGE), .cap = READ_CHUNK + PAGE};
  if (!chunk.s) return -1;
  XXH3_state_t hs;
  XXH3_128bits_reset(&hs);
  ssize_t n;
  do {
    sb_reset(&chunk);
    n = io_read_upto(fd, &chunk, READ_CHUNK);
    if (n > 0) XXH3_128bits_update(&hs, chunk.s, (size_t)n);
  } while (n == READ_CHUNK);
  sb_free(&chunk);
  if (n < 0) return -1;
  *out = digest_hash_key(&hs);
  return 0;
}

typedef struct file_id { /* what a file's digest is remembered by */
  uint64_t v[7];
} file_id;

/* The digest remembered for the file of identity id, into out: 0, or -1 for none. */
static int remembered_digest(digest_cache *c, const digest_key128 *memo, const file_id *id, digest_key128 *out) {
  cache_dir_file m;
  if (cache_dir_read(c, memo, 'd', &m)) return -1;
  int same = m.size == sizeof id->v + sizeof out->b && !memcmp(m.data, id->v, sizeof id->v);
  if (same) memcpy(out->b, m.data + sizeof id->v, sizeof out->b);
  cache_dir_file_free(&m);
  return same ? 0 : -1;
}

/* The file is opened once and its identity taken from that descriptor, so the
** digest and the identity it is remembered by describe the same file; it is read,
** not mapped, so a file cut short meanwhile cannot fault the process. */
static int file_digest(digest_cache *c, const char *path, digest_key128 *out) {
  struct stat st;
  /* non-blocking: a FIFO named by a manifest (a remote one is anyone's bytes) must not
  ** hang the open; only a regular file is digested (not /dev/zero) */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return -1;
  if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
    close(fd);
    return -1;
  }
  file_id id = {{(uint64_t)st.st_dev, (uint64_t)st.st_ino, (uint64_t)st.st_size,
                 (uint64_t)st.st_mtim.tv_sec, (uint64_t)st.st_mtim.tv_nsec,
                 (uint64_t)st.st_ctim.tv_sec, (uint64_t)st.st_ctim.tv_nsec}};
  XXH3_state_t hs;
  XXH3_128bits_reset(&hs);
  digest_hash_str(&hs, "file digest");
  digest_hash_str(&hs, path);
  digest_key128 memo = digest_hash_key(&hs);
  int known = !remembered_digest(c, &memo, &id, out);
  int rc = known ? 0 : digest_fd(fd, out);
  close(fd);
  if (known || rc) return rc;
  strbuf b = {0};
  sb_addn(&b, (const char *)id.v, sizeof id.v);
  sb_addn(&b, (const char *)out->b, sizeof out->b);
  if (!b.oom) cache_dir_write(c, &memo, 'd', &b);
  sb_free(&b);
  return 0;
}

/* A file's digest, once per call however many jobs use the file. */
static int call_digest(digest_cache *c, const char *path, digest_key128 *d) {
  for (size_t i = 0; i < c->nseen; i++)
    if (!strcmp(c->seen[i].path, path)) {
      *d = c->seen[i].d;
      return c->seen[i].ok ? 0 : -1;
    }
  int rc = file_digest(c, path, d);
  char *copy = strdup(path);
  if (copy && !util_grow(&c->seen, c->nseen, sizeof *c->seen))
    c->seen[c->nseen++] = (digest_seen){copy, *d, !rc};
  else
    free(copy);
  return rc;
}

GPUBLOB_PRIVATE void cache_deps_close(digest_cache *c) {
  cache_remote_close(c);
  if (c->rootfd >= 0) close(c->rootfd);
  c->rootfd = -1;
  sb_free(&c->root);
  for (size_t i = 0; i < c->nseen; i++) free(c->seen[i].path);
  free(c->seen);
  c->seen = NULL;
  c->nseen = 0;
}

/* A file's bytes' digest, never its path: the same bytes at another path (a toolkit
** installed elsewhere, a copy of the device libraries) give the same key. */
static void hash_file(digest_cache *c, XXH3_state_t *st, const char *path) {
  digest_key128 d;
  if (call_digest(c, path, &d)) digest_hash_str(st, "unreadable");
  else digest_hash_bytes(st, d.b, sizeof d.b);
}

static void hash_lib_list(digest_cache *c, XXH3_state_t *st, job *j, const char *list, int lang) {
  const char *w;
  size_t n;
  while ((w = util_next_word(&list, " ", &n))) {
    const char *colon = lang ? memchr(w, ':', n) : NULL; /* lang_libs' LANG:LIBRARY */
    if (colon) n -= (size_t)(colon + 1 - w), w = colon + 1;
    strbuf name = {0};
    search s = {0};
    if (search_find_lib(j, w, n, &name, &s)) hash_file(c, st, sb_str(&s.found));
    else digest_hash_str(st, sb_str(&name));
    sb_free(&name);
    search_end(&s);
  }
}

/* Each device library the spec lists for the job, and each its lang_libs name for any
** language (the key is made before the module is read): its digest, or that it is missing. */
static void hash_libs(digest_cache *c, XXH3_state_t *st, job *j) {
  hash_lib_list(c, st, j, j->t->libs, 0);
  hash_lib_list(c, st, j, j->t->lang_libs, 1);
}

/* What a job's output depends on beyond the call's input and options: with a pack,
** the pack program's bytes (at pack_tool), or the in-process provider's name. */
static void hash_job(digest_cache *c, XXH3_state_t *st, job *j, int pack, const char *pack_tool) {
  digest_hash_str(st, j->t->name);
  digest_hash_str(st, j->chip);
  digest_hash_str(st, sb_str(&j->features));
  /* where the tools are searched is a place; what is found is digested below */
  unsigned neutral = OUTPUT_NEUTRAL_FLAGS | PLACE_FLAGS;
  digest_hash_u64(st, (uint64_t)j->format << 32 | (uint64_t)j->opt << 16 | (j->flags & ~neutral));
  digest_hash_u64(st, (uint64_t)j->keep_asm << 32 | (uint64_t)j->abi);
  digest_hash_u64(st, j->o->abi); /* asked for, or a default a module's own may replace */
  digest_hash_u64(st, (uint64_t)j->fp_contract);
  digest_hash_u64(st, (uint64_t)j->as); /* whose defaults: fp contraction, LLVM's and the tool's options */
  digest_hash_u64(st, (uint64_t)j->o->debug); /* the debug information kept (AUTO: the module's, in the input) */
  /* a program's name is its path's last part: content_only knows it by its bytes alone */
  int program = !*j->provider_path && tool_choice_needs_blob_tool(j);
  digest_hash_str(st, c->content_only && program ? "program" : j->tool_name);
  if (*j->provider_path && provider_ops_of(j->t)->linked) digest_hash_str(st, j->provider_path); /* its identity */
  else if (*j->provider_path) hash_file(c, st, j->provider_path);
  else if (tool_choice_needs_blob_tool(j)) hash_file(c, st, j->tool);
  hash_libs(c, st, j);
  digest_hash_str(st, j->o->tool_options); /* the options' and the attribute's words */
  digest_hash_u64(st, j->o->link ? j->o->nlink : 0);
  for (size_t i = 0; j->o->link && i < j->o->nlink; i++) hash_file(c, st, j->o->link[i] ? j->o->link[i] : "");
  if (pack == PACK_PROGRAM) hash_file(c, st, pack_tool);
  else if (pack == PACK_INPROCESS) digest_hash_str(st, j->t->pack_provider_name);
}

/* A job's part of k1: hash_job's digest of its own, so that a lookup can resolve a
** manifest's equal job records once and use the digest for each (cache_lookup_manifest_key). */
GPUBLOB_PRIVATE digest_key128 cache_deps_job_key(digest_cache *c, job *j, int pack, const char *pack_tool) {
  XXH3_state_t st;
  XXH3_128bits_reset(&st);
  hash_job(c, &st, j, pack, pack_tool);
  return digest_hash_key(&st);
}

/* Whether the input's name reaches an output: LLVM IR made of LLVM IR input (-f llvm,
** -f ll) names its module by it (ModuleID), and so does its source_filename when the
** input has none; MLIR written as bytecode (--emit-bytecode) keeps every location,
** which names the input (src/mlir_io.c), where MLIR text prints none.  Elsewhere the
** name labels messages only (a hit re-labels its warnings: src/cache_lookup.c), and
** outputs from two places are the same bytes (tests/test_keys.c). */
static int name_reaches_output(const gpublob_options *o, int input) {
  if (input == GPUBLOB_INPUT_MLIR) return (o->flags & GPUBLOB_FLAG_MLIR_BYTECODE) != 0;
  return o->format == GPUBLOB_FORMAT_LLVM || o->format == GPUBLOB_FORMAT_LL;
}

/* The hash of a call's input and options: the manifest's key.  Isolation, the tool
** timeout and the input limit change no output byte: a call with or without them
** finds the same entry.  Places are not in it (the blob tool's path, the search and
** library directories, the toolkit's root, the link files' paths): what a job finds
** there is digested by its bytes in the entry's key (hash_job), so a checkout or a
** toolkit elsewhere with the same bytes finds the same entries. */
GPUBLOB_PRIVATE digest_key128 cache_deps_call_key(const gpublob_options *o, int input, const void *data, size_t size,
                       const char *name) {
  XXH3_state_t st;
  XXH3_128bits_reset(&st);
  /* 3: a manifest's jobs carry their ABI version; 4: #gpu.objects their kernel tables, and a
  ** manifest's jobs their tool options and link files; 6: no places, and entries keep
  ** their warnings */
  digest_hash_str(&st, "gpublob cache 6");
  digest_hash_str(&st, GPUBLOB_VERSION_STRING);
  digest_hash_str(&st, LLVM_VERSION_STRING);
  digest_hash_u64(&st, GPUBLOB_MLIR);
  digest_hash_u64(&st, GPUBLOB_MLIR_PASSES); /* an MLIR job's pipeline, and the libraries' mlir_lib_drop */
  digest_hash_u64(&st, GPUBLOB_LLVM_CXX);    /* how --fp-contract fast fuses (the target machine's, or flags) */
  digest_hash_bytes(&st, digest_spec_key.b, sizeof digest_spec_key.b);
  digest_hash_u64(&st, (uint64_t)input);
  digest_hash_str(&st, name_reaches_output(o, input) ? name : NULL);
  digest_hash_bytes(&st, data, size);
  const char *const strs[] = {o->target, o->chip, o->features, o->pipeline, o->tool_options, o->section};
  for (size_t i = 0; i < sizeof strs / sizeof *strs; i++) digest_hash_str(&st, strs[i]);
  digest_hash_u64(&st, (uint64_t)o->format << 48 | (uint64_t)o->opt << 32 | (o->flags & ~(OUTPUT_NEUTRAL_FLAGS | PLACE_FLAGS)));
  digest_hash_u64(&st, (uint64_t)o->attach << 32 | (uint64_t)o->tool_mode);
  digest_hash_u64(&st, o->abi);
  digest_hash_u64(&st, (uint64_t)o->fp_contract);
  digest_hash_u64(&st, (uint64_t)o->as);
  digest_hash_u64(&st, (uint64_t)o->debug);
  /* MLIR's module holds each kernel's occupancy in its #gpu.objects' kernel tables,
  ** figured for the block size: there it changes the output's bytes (LLVM IR's
  ** outputs are the blobs alone, whose occupancy is figured when read) */
  digest_hash_u64(&st, input == GPUBLOB_INPUT_MLIR ? o->block_size : 0);
  digest_hash_u64(&st, o->ntargets);
  digest_hash_u64(&st, o->link ? o->nlink : 0); /* the files' bytes are in each job's key (hash_job) */
  for (size_t i = 0; o->targets && i < o->ntargets; i++) {
    digest_hash_str(&st, o->targets[i].target);
    digest_hash_str(&st, o->targets[i].chip);
    digest_hash_str(&st, o->targets[i].features);
  }
  return digest_hash_key(&st);
}
