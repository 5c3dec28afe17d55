/* src/digest.c: Digests: XXH3 of strings, files and the spec table, the keys the cache names its
** entries by; and a descriptor read whole. */

/* ---- digests and the cache: entries named by what made them, written atomically ---- */
/* A call's manifest is filed under the hash of its input and options, and lists its
** jobs; the result is filed under that hash, the jobs' settings and the digests of
** every file they depend on (the blob tool or provider library, each device
** library, the pack tool).  A changed toolkit gives new digests, so it misses. */
typedef struct key128 {
  unsigned char b[16];
} key128;

typedef struct digest_seen { /* a file already digested in this call */
  char *path;
  key128 d;
  int ok;
} digest_seen;

typedef struct cache {
  strbuf root;              /* DIR/v2, for messages */
  const char *dir;          /* DIR, the options' own string */
  int rootfd;               /* DIR/v2, opened: every file is reached from it */
  unsigned long long max;   /* bytes */
  int writable;             /* 0 once a write failed (warned once) */
  gpublob *g;               /* warnings and figures */
  digest_seen *seen;        /* each file once per call: jobs share tools and libraries */
  size_t nseen;
  struct remote_tier *remote; /* the Redis server behind it (src/cache_remote.c); NULL: none */
} cache;

typedef struct entry_header { /* every cache file starts so; 56 bytes */
  char magic[8];
  uint64_t size;            /* of the payload after it */
  unsigned char hash[16];   /* XXH3-128 of the payload */
  unsigned char key[16];    /* the file's own key */
  char kind, pad[7];        /* 'm' manifest, 'e' entry, 'd' file digest */
} entry_header;

#if defined(__has_attribute)
#if __has_attribute(nonstring)
#define GPUBLOB_NONSTRING __attribute__((nonstring))
#endif
#endif
#ifndef GPUBLOB_NONSTRING
#define GPUBLOB_NONSTRING
#endif
/* The layout's version: the directory under DIR and the remote keys' prefix.  v2 (1.4)
** keeps each output's tool report in an entry; v1 files stay where an older gpublob
** still uses them. */
#define CACHE_LAYOUT "v2"
static const char cache_magic[8] GPUBLOB_NONSTRING = "GPBLOB\x02\n"; /* 8 bytes, no NUL */

static void hash_u64(XXH3_state_t *st, uint64_t v) { XXH3_128bits_update(st, &v, sizeof v); }

static void hash_bytes(XXH3_state_t *st, const void *p, size_t n) {
  hash_u64(st, n);
  XXH3_128bits_update(st, p, n);
}

static void hash_str(XXH3_state_t *st, const char *s) {
  hash_u64(st, s ? 1 : 0);
  if (s) hash_bytes(st, s, strlen(s));
}

static key128 hash_key(XXH3_state_t *st) {
  XXH128_canonical_t c;
  XXH128_canonicalFromHash(&c, XXH3_128bits_digest(st));
  key128 k;
  memcpy(k.b, c.digest, sizeof k.b);
  return k;
}

static key128 digest_of(const void *p, size_t n) {
  XXH128_canonical_t c;
  XXH128_canonicalFromHash(&c, XXH3_128bits(p, n));
  key128 k;
  memcpy(k.b, c.digest, sizeof k.b);
  return k;
}

/* The spec is part of every key: a changed spec misses.  specgen writes its digest
** (XXH3-128 of every target's entry in the table: each key's value, in the key
** list's order) into the table, so the front and the compiler hold the same. */
static key128 spec_key;
static pthread_once_t spec_once = PTHREAD_ONCE_INIT;

static void spec_hash(void) {
  static const unsigned char digest[sizeof spec_key.b] = {
#define GPUBLOB_SPEC_DIGEST(...) __VA_ARGS__
#include "gpublob_targets.def"
  };
  memcpy(spec_key.b, digest, sizeof spec_key.b);
}

/* ---- reading a descriptor: one loop, into a string buffer ---- */
enum { READ_CHUNK = 65536 }; /* bytes asked of one read */

/* One read of at most n bytes (EINTR retried), appended to b: how many came, 0 at
** EOF, -1 on an error (errno: EAGAIN where a non-blocking descriptor has nothing,
** ENOMEM where b cannot grow). */
static ssize_t read_some(int fd, strbuf *b, size_t n) {
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
static ssize_t read_upto(int fd, strbuf *b, size_t n) {
  size_t got = 0;
  while (got < n) {
    size_t room = b->s ? b->cap - b->len - 1 : 0, chunk = room > READ_CHUNK ? room : READ_CHUNK;
    ssize_t r = read_some(fd, b, n - got < chunk ? n - got : chunk); /* a presized buffer: one read */
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
static int read_fd(int fd, unsigned char **data, size_t *size, size_t max) {
  strbuf b = {0};
  struct stat st; /* a regular file's size known: one buffer of that size, never grown */
  if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0 && (size_t)st.st_size <= max &&
      !sb_room(&b, (size_t)st.st_size + 1))
    populate(b.s, (size_t)st.st_size);
  ssize_t r = read_upto(fd, &b, max < SIZE_MAX ? max + 1 : max);
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
