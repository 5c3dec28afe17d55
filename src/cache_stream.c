/* src/cache_stream.c: A cache hit streamed (gpublob_cache_lookup_stream): the last
** output's bytes handed to the caller's sink in pieces as they are read and hashed,
** never held whole (src/cache_lookup.c validates the manifest and the entry). */
/* ---- a hit streamed: the last output's bytes handed on as they are read ---- */
/* A big output read whole into fresh memory costs a page fault (and, on a virtual
** machine, more) for each of its pages: 163 of them for the 16 x 2 batch's 665 KB
** module, more than reading and writing the bytes.  A streamed hit reads the entry
** in pieces into one buffer, hashes each piece, and hands the last output's bytes to
** the caller's sink; only the end of the file says whether they were the entry's,
** so the caller writes them where it can take them back (gpublob.h). */
enum { STREAM_PIECE = 64 << 10 };

/* Up to n bytes of fd into the piece's buffer, replacing what it held (fewer only
** at the file's end), or -1: io_read_upto's loop, into room made once. */
static ssize_t read_piece(int fd, strbuf *piece, size_t n) {
  piece->len = 0;
  return io_read_upto(fd, piece, n);
}

/* The header of an entry of key k whose file is file_size bytes: 0, or 1 when it is none. */
static int entry_header_check(const unsigned char *p, size_t got, const digest_key128 *k, off_t file_size,
                              digest_entry_header *h) {
  if (got < sizeof *h) return 1;
  memcpy(h, p, sizeof *h);
  return memcmp(h->magic, digest_cache_magic, sizeof h->magic) || h->kind != 'e' ||
         memcmp(h->key, k->b, sizeof h->key) || h->size != (uint64_t)file_size - sizeof *h;
}

/* The rest of the payload (left bytes after the first piece): hashed, and handed to
** s.  0; 1 when the file ends short or runs on; -2 when s failed. */
static int stream_rest(int fd, strbuf *piece, uint64_t left, XXH3_state_t *st, cache_stream_sink *s) {
  while (left) {
    ssize_t got = read_piece(fd, piece, left < STREAM_PIECE ? (size_t)left : STREAM_PIECE);
    if (got <= 0) return 1;
    XXH3_128bits_update(st, piece->s, (size_t)got);
    if (s->write(s->ctx, piece->s, (size_t)got)) return -2;
    left -= (uint64_t)got;
  }
  return read_piece(fd, piece, 1) == 0 ? 0 : 1;
}

/* The entry open at fd, streamed: every output but the last must lie in the first
** piece; the last one's bytes go to s.  0 a hit; 1 not the entry of k, found once
** s has bytes (a miss: the file goes); 2 not streamed, nothing handed on (it is
** read whole instead: cache_dir_read checks it, removes only a corrupt file, and asks
** the remote tier); -2 s failed. */
static int entry_stream_fd(int fd, off_t file_size, const digest_key128 *k, strbuf *piece, gpublob_result *out,
                           cache_stream_sink *s, unsigned block_size, const char *name, strbuf *warnings) {
  digest_entry_header h;
  size_t want = (uint64_t)file_size < STREAM_PIECE ? (size_t)file_size : STREAM_PIECE;
  ssize_t got = read_piece(fd, piece, want); /* into room made for a piece: piece->s stays */
  const unsigned char *first = (const unsigned char *)piece->s;
  if (got != (ssize_t)want || entry_header_check(first, (size_t)got, k, file_size, &h)) return 2;
  const unsigned char *payload = first + sizeof h;
  cache_lookup_reader r = {payload, first + got, 0, NULL};
  if (cache_lookup_entry_warnings(&r, name, warnings)) return 2; /* cut short by the piece, or malformed */
  uint64_t count = cache_lookup_get_u64(&r);
  for (uint64_t i = 0; !r.bad && i < count && i < MAX_JOBS; i++)
    if (cache_lookup_entry_output(&r, out, i + 1 == count ? BLOB_STREAM : BLOB_COPY, block_size)) break;
  if (!count || out->count != count || r.p != r.end) return 2; /* cut short by the piece, malformed, or no memory */
  const gpublob_blob *last = &out->outputs[count - 1].blob;
  uint64_t at = (uint64_t)(r.blob_at - payload);
  if (at > h.size || last->size != h.size - at) return 2; /* the last blob ends the payload */
  XXH3_state_t st;
  XXH3_128bits_reset(&st);
  XXH3_128bits_update(&st, payload, (size_t)(r.end - payload));
  if (r.end > r.blob_at && s->write(s->ctx, r.blob_at, (size_t)(r.end - r.blob_at))) return -2;
  int rc = stream_rest(fd, piece, h.size - (uint64_t)(r.end - payload), &st, s);
  digest_key128 d = digest_hash_key(&st);
  return rc ? rc : memcmp(d.b, h.hash, sizeof d.b) ? 1 : 0;
}

/* The entry read whole (a remote one, or one whose other outputs are big), its last
** output's bytes handed to s and not kept: 0, -1 a miss, -2 s failed. */
static int entry_whole_to_sink(digest_cache *c, const digest_key128 *k, gpublob_result *out, cache_stream_sink *s,
                               unsigned block_size, const char *name, strbuf *warnings) {
  cache_dir_file e;
  if (cache_dir_read(c, k, 'e', &e)) return -1;
  int rc = cache_lookup_entry_get(&e, out, block_size, name, warnings);
  cache_dir_file_free(&e);
  if (rc) return -1;
  gpublob_blob *last = &out->outputs[out->count - 1].blob;
  rc = s->write(s->ctx, last->data, last->size) ? -2 : 0;
  free(last->data);
  last->data = NULL;
  if (rc) gpublob_result_free(out);
  return rc;
}

/* Whether name in dirfd is still the file st describes (not one stored meanwhile). */
static int same_file(int dirfd, const char *name, const struct stat *st) {
  struct stat now;
  return !fstatat(dirfd, name, &now, AT_SYMLINK_NOFOLLOW) && now.st_dev == st->st_dev && now.st_ino == st->st_ino;
}

/* An entry streamed to s: 0 a hit, -1 a miss, -2 s failed.  An invalid file is
** removed, as cache_dir_read removes one. */
static int entry_stream(digest_cache *c, const digest_key128 *k, gpublob_result *out, cache_stream_sink *s, unsigned block_size,
                        const char *input_name, strbuf *warnings) {
  char name[40];
  int dirfd = c->rootfd < 0 ? -1 : cache_dir_place(c, k, 'e', name, 0), rc = 2;
  strbuf piece = {0};
  int room = dirfd >= 0 && !sb_room(&piece, STREAM_PIECE + 1);
  int fd = room ? openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) : -1;
  struct stat st;
  if (fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode))
    rc = entry_stream_fd(fd, st.st_size, k, &piece, out, s, block_size, input_name, warnings);
  if (!rc) futimens(fd, NULL); /* used now: the last to be evicted */
  if (fd >= 0) close(fd);
  if (rc == 1 && same_file(dirfd, name, &st) && !unlinkat(dirfd, name, 0)) cache_size_account(c, -(long long)st.st_size);
  if (dirfd >= 0) close(dirfd);
  sb_free(&piece);
  if (rc) gpublob_result_free(out);
  if (rc) sb_reset(warnings);
  if (rc == 2) /* absent here (the remote tier), or not streamed */
    return entry_whole_to_sink(c, k, out, s, block_size, input_name, warnings);
  return rc == 1 ? -1 : rc;
}

/* A hit's warnings (a line each) given to the call's handle, as its compile gave them. */
static void give_warnings(gpublob *g, strbuf *w) {
  for (char *p = w->s, *nl; p && *p; p = nl + 1) {
    if (!(nl = strchr(p, '\n'))) break; /* every line is ended (cache_lookup_entry_warnings) */
    *nl = 0;
    handle_warn_once(g, p);
  }
}

/* The entry of k1, with s streamed: 0 a hit (its warnings in warnings), -1 a miss, -2 s failed. */
static int entry_lookup(digest_cache *c, const digest_key128 *k1, const gpublob_options *o, const char *name,
                        gpublob_result *out, cache_stream_sink *s, strbuf *warnings) {
  cache_dir_file e;
  if (s) return entry_stream(c, k1, out, s, o->block_size, name, warnings);
  if (cache_dir_read(c, k1, 'e', &e)) return -1;
  int rc = cache_lookup_entry_get(&e, out, o->block_size, name, warnings);
  cache_dir_file_free(&e);
  return rc;
}

/* A call's result from the cache, or -1 (-2: s failed): nothing is compiled here.
** With s, the last output is streamed to it.  A call with a dump directory misses:
** its dumps are made by compiling (what it compiles is stored).  A hit gives the
** warnings its compile gave, labelled with name, this call's input's.  mlir: an MLIR
** input's text (NULL for another), whose jobs a remote lookup guesses from it. */
GPUBLOB_PRIVATE int cache_stream_lookup(digest_cache *c, const digest_key128 *k0, const gpublob_options *o, const char *name,
                                        const unsigned char *mlir, size_t mlir_size, gpublob_result *out,
                                        cache_stream_sink *s) {
  cache_dir_file m;
  if (o->dump_dir && *o->dump_dir) return -1;
  c->foreseen = o;
  c->foreseen_mlir = (const char *)mlir;
  c->foreseen_mlir_size = mlir ? mlir_size : 0;
  int missed = cache_dir_read(c, k0, 'm', &m);
  c->foreseen = NULL;
  c->foreseen_mlir = NULL;
  if (missed) return -1;
  cache_lookup_reader r = {m.data, m.data + m.size, 0, NULL};
  digest_key128 k1;
  int rc = cache_lookup_manifest_key(c, k0, o, &r, &k1);
  cache_dir_file_free(&m);
  if (rc) return -1;
  strbuf warnings = {0};
  rc = entry_lookup(c, &k1, o, name, out, s, &warnings);
  if (!rc) give_warnings(c->g, &warnings);
  sb_free(&warnings);
  return rc;
}
