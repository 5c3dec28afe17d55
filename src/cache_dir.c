/* src/cache_dir.c: The cache's directory: this user's alone, reached without following links, its
** files written to a temporary name (src/io.c's io_write_new_file) and renamed into place. */

/* ---- the cache: a directory of this user's alone, reached without links ---- */
/* The directory given is followed as the user named it; below it nothing is: every
** subdirectory and file is opened from its parent's descriptor with O_NOFOLLOW, and
** only regular files are read.  A directory that another user owns, or that others
** may write, is not used at all: its files could be anything. */
GPUBLOB_PRIVATE int cache_dir_trusted(int fd) {
  struct stat st;
  return !fstat(fd, &st) && S_ISDIR(st.st_mode) && st.st_uid == geteuid() && !(st.st_mode & 022);
}

static void cache_unwritable(digest_cache *c, const char *what, int err) {
  if (!c->writable) return;
  c->writable = 0;
  handle_add_warning(c->g, "cache directory %s cannot be written (%s: %s): nothing is stored", c->dir, what,
              strerror(err));
}

/* DIR/NAME, made if it can be, opened without following a link; -1 if it is not
** a directory of this user's alone. */
static int open_subdir(digest_cache *c, int dirfd, const char *name, const char *shown) {
  if (mkdirat(dirfd, name, 0700) && errno != EEXIST) cache_unwritable(c, shown, errno);
  int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0 && !cache_dir_trusted(fd)) {
    handle_add_warning(c->g, "cache directory %s is not used: %s is a link, another user's, or writable by "
                "others", c->dir, shown);
    close(fd);
    return -1;
  }
  return fd;
}

static void refuse_cache(digest_cache *c, const char *why) {
  handle_add_warning(c->g, "cache directory %s is not used: %s", c->dir, why);
  if (c->rootfd >= 0) close(c->rootfd);
  c->rootfd = -1;
}

GPUBLOB_PRIVATE int cache_dir_open(digest_cache *c, gpublob *g, const gpublob_options *o) {
  memset(c, 0, sizeof *c);
  c->rootfd = -1;
  if (!o->cache_dir || !*o->cache_dir) return 0;
  c->dir = o->cache_dir;
  c->max = o->cache_max ? o->cache_max : 1ULL << 30;
  c->writable = 1;
  c->g = g;
  pthread_once(&digest_spec_once, digest_spec_hash);
  if (io_make_dirs(c->dir, 0700)) cache_unwritable(c, c->dir, errno);
  int top = open(c->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (top < 0) {
    refuse_cache(c, strerror(errno));
    return 0;
  }
  if (!cache_dir_trusted(top)) {
    close(top);
    refuse_cache(c, "it is another user's, or others may write it");
    return 0;
  }
  sb_addf(&c->root, "%s/" CACHE_LAYOUT, c->dir);
  if (c->root.oom) refuse_cache(c, "out of memory");
  else c->rootfd = open_subdir(c, top, CACHE_LAYOUT, sb_str(&c->root));
  close(top);
  cache_remote_open(c, o); /* behind the local tier: only where there is one */
  return 1; /* without DIR/v2 (a read-only directory) every lookup misses */
}

GPUBLOB_PRIVATE void cache_dir_key_hex(const digest_key128 *k, char hex[33]) {
  for (int i = 0; i < 16; i++) snprintf(hex + 2 * i, 3, "%02x", k->b[i]);
}

/* The file's subdirectory, opened (made when create), and its name in it. */
GPUBLOB_PRIVATE int cache_dir_place(digest_cache *c, const digest_key128 *k, char kind, char name[40], int create) {
  char hex[33], sub[3];
  cache_dir_key_hex(k, hex);
  snprintf(sub, sizeof sub, "%.2s", hex);
  snprintf(name, 40, "%s.%c", hex + 2, kind);
  if (!create) {
    int fd = openat(c->rootfd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0 && !cache_dir_trusted(fd)) {
      close(fd);
      fd = -1;
    }
    return fd;
  }
  return open_subdir(c, c->rootfd, sub, sb_str(&c->root));
}

/* The local file: a temporary file beside the final name, then rename: readers
** never see a part. */
static int cache_write_local(digest_cache *c, const digest_key128 *k, char kind, const digest_entry_header *head,
                             const void *payload, size_t n) {
  if (!c->writable || c->rootfd < 0) return -1;
  char name[40], tmp[64];
  int dirfd = cache_dir_place(c, k, kind, name, 1);
  if (dirfd < 0) return -1;
  static atomic_uint counter;
  snprintf(tmp, sizeof tmp, ".tmp-%d-%u", (int)getpid(), atomic_fetch_add(&counter, 1));
  digest_entry_header h = *head;
  int rc = io_write_new_file(dirfd, tmp, 0600, &h, sizeof h, payload, n);
  int err = errno;
  struct stat old; /* a file replaced counts only by what it grew */
  long long was = fstatat(dirfd, name, &old, AT_SYMLINK_NOFOLLOW) || !S_ISREG(old.st_mode) ? 0 : (long long)old.st_size;
  if (!rc && renameat(dirfd, tmp, dirfd, name)) {
    rc = -1;
    err = errno;
  }
  if (rc) unlinkat(dirfd, tmp, 0);
  close(dirfd);
  if (rc) {
    cache_unwritable(c, sb_str(&c->root), err);
    return -1;
  }
  cache_size_account(c, (long long)(sizeof h + n) - was);
  return 0;
}

/* A file of the cache: its header (kind, own key, payload length and hash), then the
** payload; written locally and to the remote tier, if any (a file that cannot be
** written locally may still be shared).  0 when the local file was written. */
GPUBLOB_PRIVATE int cache_dir_write(digest_cache *c, const digest_key128 *k, char kind, const strbuf *payload) {
  digest_entry_header h = {.size = payload->len, .key = {0}, .kind = kind};
  memcpy(h.magic, digest_cache_magic, sizeof h.magic);
  digest_key128 d = digest_of(sb_str(payload), payload->len);
  memcpy(h.hash, d.b, sizeof h.hash);
  memcpy(h.key, k->b, sizeof h.key);
  cache_remote_put(c, k, kind, &h, sizeof h, sb_str(payload), payload->len);
  return cache_write_local(c, k, kind, &h, sb_str(payload), payload->len);
}

GPUBLOB_PRIVATE void cache_dir_file_free(cache_dir_file *m) {
  free(m->bytes);
  memset(m, 0, sizeof *m);
}

/* The file read, if it is a regular file (a link, a FIFO, a device: -2; none: -1). */
static int read_cache_file(int dirfd, const char *name, cache_dir_file *m) {
  int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  if (fd < 0) return errno == ENOENT ? -1 : -2;
  int regular = !fstat(fd, &st) && S_ISREG(st.st_mode);
  if (regular && st.st_size > 0 && !io_read_fd(fd, &m->bytes, &m->len, (size_t)st.st_size))
    futimens(fd, NULL); /* used now: the last to be evicted */
  close(fd);
  return regular ? 0 : -2;
}

/* Whether the bytes read are a valid file of this key and kind (magic, kind, own key,
** length, hash): m->data and m->size set to its payload, or m freed. */
static int cache_valid(const digest_key128 *k, char kind, cache_dir_file *m) {
  digest_entry_header h;
  int ok = m->len >= sizeof h;
  if (ok) memcpy(&h, m->bytes, sizeof h);
  ok = ok && !memcmp(h.magic, digest_cache_magic, sizeof h.magic) && h.kind == kind &&
       !memcmp(h.key, k->b, sizeof h.key) && h.size == m->len - sizeof h;
  m->data = ok ? (const unsigned char *)m->bytes + sizeof h : NULL;
  m->size = ok ? m->len - sizeof h : 0;
  digest_key128 d = ok ? digest_of(m->data, m->size) : (digest_key128){{0}};
  ok = ok && !memcmp(d.b, h.hash, sizeof d.b);
  if (!ok) cache_dir_file_free(m);
  return ok;
}

/* The file from the remote tier, on a local miss: validated as a local file is (a
** bad value is a miss, never served, and the compile's store overwrites it), then
** copied into the local cache. */
static int cache_read_remote(digest_cache *c, const digest_key128 *k, char kind, cache_dir_file *m) {
  if (kind == 'm' && c->foreseen && cache_remote_warm(c)) cache_lookup_foresee(c, c->foreseen);
  int got = c->remote ? cache_remote_get(c, k, kind, m) : -2;
  if (got) {
    if (got == -1) c->g->stats.remote_misses++; /* asked, and not there (-2: not asked) */
    return -1;
  }
  if (!cache_valid(k, kind, m)) {
    c->g->stats.remote_misses++;
    return -1;
  }
  c->g->stats.remote_hits++;
  digest_entry_header h;
  memcpy(&h, m->bytes, sizeof h);
  cache_write_local(c, k, kind, &h, m->data, m->size);
  return 0;
}

/* The payload of a valid file; a corrupt or truncated one, or anything that is not
** a regular file, is removed (from this directory only), never served.  A local miss
** asks the remote tier. */
GPUBLOB_PRIVATE int cache_dir_read(digest_cache *c, const digest_key128 *k, char kind, cache_dir_file *m) {
  char name[40];
  memset(m, 0, sizeof *m);
  int dirfd = c->rootfd < 0 ? -1 : cache_dir_place(c, k, kind, name, 0);
  if (dirfd < 0) return cache_read_remote(c, k, kind, m);
  int found = read_cache_file(dirfd, name, m);
  size_t len = m->len;
  int ok = !found && cache_valid(k, kind, m);
  if (!ok) cache_dir_file_free(m);
  if (!ok && found != -1 && !unlinkat(dirfd, name, 0) && len) cache_size_account(c, -(long long)len);
  close(dirfd);
  return ok ? 0 : cache_read_remote(c, k, kind, m);
}
