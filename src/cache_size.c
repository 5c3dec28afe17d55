/* src/cache_size.c: The cache's size: accounted in a file under flock, kept under the limit by
** evicting the oldest files. */

/* ---- the cache: its size, kept under the limit by evicting the oldest files ---- */
typedef struct cfile { /* DIR/v3/sub/name */
  struct timespec mtime;
  unsigned long long size;
  char sub[3], name[40];
} cfile;

static int older(const void *a, const void *b) {
  const struct timespec *x = &((const cfile *)a)->mtime, *y = &((const cfile *)b)->mtime;
  return x->tv_sec != y->tv_sec ? (x->tv_sec < y->tv_sec ? -1 : 1)
                                : (x->tv_nsec < y->tv_nsec ? -1 : x->tv_nsec > y->tv_nsec);
}

static int all_hex(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i])) return 0;
  return 1;
}

/* The names the cache makes: 30 hex digits and .m .e .d, or a .tmp- of a writer. */
static int cache_name(const char *n) {
  size_t len = strlen(n);
  if (!strncmp(n, ".tmp-", 5)) return len < 40;
  return len == 32 && all_hex(n, 30) && n[30] == '.' && strchr("med", n[31]) && n[31];
}

static int add_cfile(cfile **out, size_t *n, size_t *cap, const char *sub, const char *name,
                     const struct stat *st) {
  if (*n == *cap) {
    cfile *more = realloc(*out, (*cap = *cap ? *cap * 2 : 256) * sizeof *more);
    if (!more) return -1;
    *out = more;
  }
  cfile *cf = &(*out)[(*n)++];
  cf->mtime = st->st_mtim;
  cf->size = (unsigned long long)st->st_size;
  snprintf(cf->sub, sizeof cf->sub, "%s", sub);
  snprintf(cf->name, sizeof cf->name, "%s", name);
  return 0;
}

/* The files of one subdirectory; temporaries older than an hour are a crash's and go. */
static void scan_sub(int subfd, const char *sub, cfile **out, size_t *n, size_t *cap) {
  DIR *d = fdopendir(subfd);
  if (!d) {
    close(subfd);
    return;
  }
  time_t now = time(NULL);
  struct dirent *f;
  while ((f = readdir(d))) {
    struct stat st;
    if (!cache_name(f->d_name) || fstatat(subfd, f->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
      continue;
    if (f->d_name[0] == '.') {
      if (now - st.st_mtime >= 3600) unlinkat(subfd, f->d_name, 0);
      continue;
    }
    if (add_cfile(out, n, cap, sub, f->d_name, &st)) break;
  }
  closedir(d);
}

/* Every file of the cache, in subdirectories of this user's alone. */
static size_t cache_scan(digest_cache *c, cfile **out) {
  size_t n = 0, cap = 0;
  *out = NULL;
  int top = openat(c->rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC); /* its own offset */
  DIR *d = top >= 0 ? fdopendir(top) : NULL;
  struct dirent *e;
  while (d && (e = readdir(d))) {
    if (strlen(e->d_name) != 2 || !all_hex(e->d_name, 2)) continue;
    int sub = openat(c->rootfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub >= 0 && cache_dir_trusted(sub)) scan_sub(sub, e->d_name, out, &n, &cap);
    else if (sub >= 0) close(sub);
  }
  if (d) closedir(d);
  else if (top >= 0) close(top);
  return n;
}

/* Removes the oldest files until the cache holds 80% of its limit; its new size. */
static unsigned long long cache_evict(digest_cache *c) {
  cfile *files;
  size_t n = cache_scan(c, &files);
  unsigned long long total = 0;
  for (size_t i = 0; i < n; i++) total += files[i].size;
  qsort(files, n, sizeof *files, older);
  for (size_t i = 0; i < n && total > c->max / 10 * 8; i++) {
    int sub = openat(c->rootfd, files[i].sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub >= 0 && !unlinkat(sub, files[i].name, 0)) total -= files[i].size;
    if (sub >= 0) close(sub);
  }
  free(files);
  return total;
}

/* DIR/v3/size holds the bytes the cache holds, under an flock: any process adds to
** it, and the one that takes it over the limit evicts. */
/* The size file, opened; anything but a regular file there (a link, a FIFO) is
** removed and a new one made, so the cache's size stays accounted. */
static int open_size_file(digest_cache *c) {
  for (int tries = 0; tries < 2; tries++) {
    int fd = openat(c->rootfd, "size", O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
    struct stat st;
    if (fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode)) return fd;
    if (fd >= 0) close(fd);
    if (unlinkat(c->rootfd, "size", 0) && unlinkat(c->rootfd, "size", AT_REMOVEDIR)) return -1;
  }
  return -1;
}

GPUBLOB_PRIVATE void cache_size_account(digest_cache *c, long long delta) {
  char text[32] = "";
  int fd = open_size_file(c);
  if (fd < 0 || flock(fd, LOCK_EX)) {
    if (fd >= 0) close(fd);
    return;
  }
  ssize_t r = pread(fd, text, sizeof text - 1, 0);
  unsigned long long total = r > 0 ? strtoull(text, NULL, 10) : 0;
  total = delta < 0 && (unsigned long long)-delta > total ? 0 : total + (unsigned long long)delta;
  if (total > c->max) total = cache_evict(c);
  int len = snprintf(text, sizeof text, "%llu\n", total);
  if (pwrite(fd, text, (size_t)len, 0) == len) (void)!ftruncate(fd, len);
  close(fd); /* and the lock with it */
}
