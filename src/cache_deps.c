/* src/cache_deps.c: The cache's keys: digests of the input, the options and every file a result
** depends on (blob tool, device libraries, pack tool). */

/* ---- the cache: digests of the files a result depends on ---- */
/* A file's digest is remembered with its device, inode, size and times: a file that
** is written or replaced gets new ones (ctime cannot be set back), and is hashed again. */
static int digest_fd(int fd, key128 *out) {
  strbuf chunk = {0};
  XXH3_state_t hs;
  XXH3_128bits_reset(&hs);
  ssize_t n;
  do {
    sb_reset(&chunk);
    n = read_upto(fd, &chunk, READ_CHUNK);
    if (n > 0) XXH3_128bits_update(&hs, chunk.s, (size_t)n);
  } while (n == READ_CHUNK);
  sb_free(&chunk);
  if (n < 0) return -1;
  *out = hash_key(&hs);
  return 0;
}

typedef struct file_id { /* what a file's digest is remembered by */
  uint64_t v[7];
} file_id;

/* The digest remembered for the file of identity id, into out: 0, or -1 for none. */
static int remembered_digest(cache *c, const key128 *memo, const file_id *id, key128 *out) {
  cache_file m;
  if (cache_read(c, memo, 'd', &m)) return -1;
  int same = m.size == sizeof id->v + sizeof out->b && !memcmp(m.data, id->v, sizeof id->v);
  if (same) memcpy(out->b, m.data + sizeof id->v, sizeof out->b);
  cache_file_free(&m);
  return same ? 0 : -1;
}

/* The file is opened once and its identity taken from that descriptor, so the
** digest and the identity it is remembered by describe the same file; it is read,
** not mapped, so a file cut short meanwhile cannot fault the process. */
static int file_digest(cache *c, const char *path, key128 *out) {
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
  hash_str(&hs, "file digest");
  hash_str(&hs, path);
  key128 memo = hash_key(&hs);
  int known = !remembered_digest(c, &memo, &id, out);
  int rc = known ? 0 : digest_fd(fd, out);
  close(fd);
  if (known || rc) return rc;
  strbuf b = {0};
  sb_addn(&b, (const char *)id.v, sizeof id.v);
  sb_addn(&b, (const char *)out->b, sizeof out->b);
  if (!b.oom) cache_write(c, &memo, 'd', &b);
  sb_free(&b);
  return 0;
}

/* A file's digest, once per call however many jobs use the file. */
static int call_digest(cache *c, const char *path, key128 *d) {
  for (size_t i = 0; i < c->nseen; i++)
    if (!strcmp(c->seen[i].path, path)) {
      *d = c->seen[i].d;
      return c->seen[i].ok ? 0 : -1;
    }
  int rc = file_digest(c, path, d);
  char *copy = strdup(path);
  if (copy && !grow(&c->seen, c->nseen, sizeof *c->seen))
    c->seen[c->nseen++] = (digest_seen){copy, *d, !rc};
  else
    free(copy);
  return rc;
}

static void cache_close(cache *c) {
  remote_close(c);
  if (c->rootfd >= 0) close(c->rootfd);
  c->rootfd = -1;
  sb_free(&c->root);
  for (size_t i = 0; i < c->nseen; i++) free(c->seen[i].path);
  free(c->seen);
  c->seen = NULL;
  c->nseen = 0;
}

static void hash_file(cache *c, XXH3_state_t *st, const char *path) {
  key128 d;
  hash_str(st, path);
  if (call_digest(c, path, &d)) hash_str(st, "unreadable");
  else hash_bytes(st, d.b, sizeof d.b);
}

static void hash_lib_list(cache *c, XXH3_state_t *st, job *j, const char *list, int lang) {
  const char *w;
  size_t n;
  while ((w = next_word(&list, " ", &n))) {
    const char *colon = lang ? memchr(w, ':', n) : NULL; /* lang_libs' LANG:LIBRARY */
    if (colon) n -= (size_t)(colon + 1 - w), w = colon + 1;
    strbuf name = {0};
    search s = {0};
    if (find_lib(j, w, n, &name, &s)) hash_file(c, st, sb_str(&s.found));
    else hash_str(st, sb_str(&name));
    sb_free(&name);
    search_end(&s);
  }
}

/* Each device library the spec lists for the job, and each its lang_libs name for any
** language (the key is made before the module is read): its digest, or that it is missing. */
static void hash_libs(cache *c, XXH3_state_t *st, job *j) {
  hash_lib_list(c, st, j, j->t->libs, 0);
  hash_lib_list(c, st, j, j->t->lang_libs, 1);
}

/* How a job's pack is made, as a manifest records it: no pack, the pack program, or
** the spec's in-process pack provider. */
enum pack_way { PACK_NONE, PACK_PROGRAM, PACK_INPROCESS };

/* What a job's output depends on beyond the call's input and options: with a pack,
** the pack program's bytes (at pack_tool), or the in-process provider's name. */
static void hash_job(cache *c, XXH3_state_t *st, job *j, int pack, const char *pack_tool) {
  hash_str(st, j->t->name);
  hash_str(st, j->chip);
  hash_str(st, sb_str(&j->features));
  hash_u64(st, (uint64_t)j->format << 32 | (uint64_t)j->opt << 16 | (j->flags & ~OUTPUT_NEUTRAL_FLAGS));
  hash_u64(st, (uint64_t)j->keep_asm << 32 | (uint64_t)j->abi);
  hash_u64(st, j->o->abi); /* asked for, or a default a module's own may replace */
  hash_u64(st, (uint64_t)j->fp_contract);
  hash_u64(st, (uint64_t)j->as); /* whose defaults: fp contraction, LLVM's and the tool's options */
  hash_str(st, j->tool_name);
  if (*j->provider_path && provider_ops_of(j->t)->linked) hash_str(st, j->provider_path); /* its identity */
  else if (*j->provider_path) hash_file(c, st, j->provider_path);
  else if (needs_blob_tool(j)) hash_file(c, st, j->tool);
  hash_libs(c, st, j);
  hash_str(st, j->o->tool_options); /* the options' and the attribute's words */
  hash_u64(st, j->o->link ? j->o->nlink : 0);
  for (size_t i = 0; j->o->link && i < j->o->nlink; i++) hash_file(c, st, j->o->link[i] ? j->o->link[i] : "");
  if (pack == PACK_PROGRAM) hash_file(c, st, pack_tool);
  else if (pack == PACK_INPROCESS) hash_str(st, j->t->pack_provider_name);
}

/* A job's part of k1: hash_job's digest of its own, so that a lookup can resolve a
** manifest's equal job records once and use the digest for each (manifest_key). */
static key128 job_key(cache *c, job *j, int pack, const char *pack_tool) {
  XXH3_state_t st;
  XXH3_128bits_reset(&st);
  hash_job(c, &st, j, pack, pack_tool);
  return hash_key(&st);
}

/* The hash of a call's input and options: the manifest's key.  Isolation, the tool
** timeout and the input limit change no output byte: a call with or without them
** finds the same entry. */
static key128 call_key(const gpublob_options *o, int input, const void *data, size_t size,
                       const char *name) {
  XXH3_state_t st;
  XXH3_128bits_reset(&st);
  /* 3: a manifest's jobs carry their ABI version; 4: #gpu.objects their kernel tables, and a
  ** manifest's jobs their tool options and link files */
  hash_str(&st, "gpublob cache 5");
  hash_str(&st, GPUBLOB_VERSION_STRING);
  hash_str(&st, LLVM_VERSION_STRING);
  hash_u64(&st, GPUBLOB_MLIR);
  hash_u64(&st, GPUBLOB_MLIR_PASSES); /* an MLIR job's pipeline, and the libraries' mlir_lib_drop */
  hash_u64(&st, GPUBLOB_LLVM_CXX);    /* how --fp-contract fast fuses (the target machine's, or flags) */
  hash_bytes(&st, spec_key.b, sizeof spec_key.b);
  hash_u64(&st, (uint64_t)input);
  hash_str(&st, name);
  hash_bytes(&st, data, size);
  const char *const strs[] = {o->target, o->chip, o->features, o->tool, o->tool_dirs, o->lib_dirs,
                              o->pipeline, o->tool_options, o->toolkit, o->section};
  for (size_t i = 0; i < sizeof strs / sizeof *strs; i++) hash_str(&st, strs[i]);
  hash_u64(&st, (uint64_t)o->format << 48 | (uint64_t)o->opt << 32 | (o->flags & ~OUTPUT_NEUTRAL_FLAGS));
  hash_u64(&st, (uint64_t)o->attach << 32 | (uint64_t)o->tool_mode);
  hash_u64(&st, o->abi);
  hash_u64(&st, (uint64_t)o->fp_contract);
  hash_u64(&st, (uint64_t)o->as);
  /* MLIR's module holds each kernel's occupancy in its #gpu.objects' kernel tables,
  ** figured for the block size: there it changes the output's bytes (LLVM IR's
  ** outputs are the blobs alone, whose occupancy is figured when read) */
  hash_u64(&st, input == GPUBLOB_INPUT_MLIR ? o->block_size : 0);
  hash_u64(&st, o->ntargets);
  hash_u64(&st, o->link ? o->nlink : 0); /* the files' bytes are in each job's key (hash_job) */
  for (size_t i = 0; o->link && i < o->nlink; i++) hash_str(&st, o->link[i]);
  for (size_t i = 0; o->targets && i < o->ntargets; i++) {
    hash_str(&st, o->targets[i].target);
    hash_str(&st, o->targets[i].chip);
    hash_str(&st, o->targets[i].features);
  }
  return hash_key(&st);
}
