/* src/io.c: reads and writes of whole descriptors and files (io_), each retried on EINTR
** and bounded: a read up to a size into a buffer or a new allocation, a write of every
** byte (a non-blocking descriptor waits in poll for room), a new file written whole, a
** folder and its parents made.  Every part that reads or writes a file uses these. */

/* One read of at most n bytes (EINTR retried), appended to b: how many came, 0 at
** EOF, -1 on an error (errno: EAGAIN where a non-blocking descriptor has nothing,
** ENOMEM where b cannot grow). */
GPUBLOB_PRIVATE ssize_t io_read_some(int fd, strbuf *b, size_t n) {
  if (sb_room(b, n)) {
    errno = ENOMEM;
    return -1;
  }
  ssize_t r;
  while ((r = read(fd, b->s + b->len, n)) < 0 && errno == EINTR) {}
  if (r > 0) b->len += (size_t)r;
  b->s[b->len] = 0;
  return r;
}

/* Reads until n bytes have come or EOF, appended to b: how many came, or -1 on an
** error (what came before it stays in b).  The one read loop: a descriptor read
** whole, a file digested, a record, a tool's output after its exit. */
GPUBLOB_PRIVATE ssize_t io_read_upto(int fd, strbuf *b, size_t n) {
  size_t got = 0;
  while (got < n) {
    size_t room = b->s ? b->cap - b->len - 1 : 0, chunk = room > READ_CHUNK ? room : READ_CHUNK;
    ssize_t r = io_read_some(fd, b, n - got < chunk ? n - got : chunk); /* a presized buffer: one read */
    if (r < 0) return -1;
    if (!r) break;
    got += (size_t)r;
  }
  return (ssize_t)got;
}

/* Fresh pages of a buffer about to be filled, made present in one call rather than a
** fault each (Linux 5.14's MADV_POPULATE_WRITE; elsewhere nothing is done): on a
** virtual machine a fault costs microseconds, and a 665 KB cache entry is 163 pages.
** Only the whole pages inside the buffer are touched; its bytes are not changed. */
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
static void populate(void *p, size_t n) {
  enum { SMALL = 256 << 10 }; /* below this, malloc's pages are mostly present already */
  long size = sysconf(_SC_PAGESIZE);
  uintptr_t page = size > 0 ? (uintptr_t)size : 4096;
  uintptr_t a = ((uintptr_t)p + page - 1) & ~(page - 1), e = ((uintptr_t)p + n) & ~(page - 1);
  if (n >= SMALL && e > a) (void)madvise((void *)a, e - a, MADV_POPULATE_WRITE);
}

/* The descriptor read whole, NUL-terminated (the IR parser needs the NUL), *data
** malloc'd; at most max bytes: EFBIG past that. */
GPUBLOB_PRIVATE int io_read_fd(int fd, unsigned char **data, size_t *size, size_t max) {
  strbuf b = {0};
  struct stat st; /* a regular file's size known: one buffer of that size, never grown */
  if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0 && (size_t)st.st_size <= max &&
      !sb_room(&b, (size_t)st.st_size + 1))
    populate(b.s, (size_t)st.st_size);
  ssize_t r = io_read_upto(fd, &b, max < SIZE_MAX ? max + 1 : max);
  int err = r < 0 ? errno : (size_t)r > max ? EFBIG : 0;
  if (!err) sb_addn(&b, "", 0); /* a buffer even for an empty file */
  if (!err && b.oom) err = ENOMEM;
  if (err) {
    sb_free(&b);
    errno = err;
    return -1;
  }
  *data = (unsigned char *)b.s;
  *size = b.len;
  return 0;
}

/* mkdir -p of the directory given, each one made with mode (under the umask): the
** cache's 0700, the dump directory's 0777 (as -o DIR/ makes its directories). */
GPUBLOB_PRIVATE int io_make_dirs(const char *path, mode_t mode) {
  char *p = strdup(path);
  if (!p) return -1;
  int rc = 0;
  for (char *s = p + 1; !rc; s++) {
    if (*s && *s != '/') continue;
    char end = *s;
    *s = 0;
    if (mkdir(p, mode) && errno != EEXIST) rc = -1;
    *s = end;
    if (!end) break;
  }
  int err = errno;
  free(p);
  errno = err;
  return rc;
}

/* One write.  A reader that quit early shows in its own exit status, so SIGPIPE is
** blocked in this thread for the write and consumed, never raised.  The bytes
** written; 0 for "try again" (a non-blocking descriptor that is full); -1. */
GPUBLOB_PRIVATE ssize_t io_write_some(int fd, const void *p, size_t n) {
  sigset_t pipe_set, old;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
  ssize_t w;
  while ((w = write(fd, p, n)) < 0 && errno == EINTR) {}
  int err = errno;
  if (w < 0 && err == EPIPE) sigtimedwait(&pipe_set, NULL, &(struct timespec){0, 0});
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return w >= 0 ? w : err == EAGAIN || err == EWOULDBLOCK ? 0 : -1;
}

/* All of data, on a blocking descriptor: the one write loop (a tool's input, on a
** non-blocking one, is written a io_write_some at a time as poll finds room). */
GPUBLOB_PRIVATE int io_write_all(int fd, const void *data, size_t n) {
  const unsigned char *p = data;
  for (ssize_t w = 0; n; p += w, n -= (size_t)w)
    if ((w = io_write_some(fd, p, n)) <= 0) return -1;
  return 0;
}

/* A new file (none of that name may exist) of the mode (under the umask) holding
** head, then data; -1 with errno set, and what was made left for the caller to remove. */
GPUBLOB_PRIVATE int io_write_new_file(int dirfd, const char *name, mode_t mode, const void *head, size_t hn,
                          const void *data, size_t n) {
  int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) return -1;
  int rc = io_write_all(fd, head, hn) || io_write_all(fd, data, n) ? -1 : 0;
  int err = errno;
  if (close(fd) && !rc) {
    rc = -1;
    err = errno;
  }
  errno = err;
  return rc;
}

#if !GPUBLOB_PARTS_FRONT /* the compiler's parts call it */
GPUBLOB_PRIVATE int io_write_file(const char *path, const void *data, size_t n) {
  return io_write_new_file(AT_FDCWD, path, 0600, NULL, 0, data, n);
}
#endif
