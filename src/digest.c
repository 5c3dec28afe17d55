/* src/digest.c: Digests: XXH3 of strings, files and the spec table, the keys the cache names its
** entries by; and a descriptor read whole. */

/* ---- digests and the cache: entries named by what made them, written atomically ---- */
/* A call's manifest is filed under the hash of its input and options, and lists its
** jobs; the result is filed under that hash, the jobs' settings and the digests of
** every file they depend on (the blob tool or provider library, each device
** library, the pack tool).  A changed toolkit gives new digests, so it misses. */
typedef struct digest_key128 {
  unsigned char b[16];
} digest_key128;

typedef struct digest_seen { /* a file already digested in this call */
  char *path;
  digest_key128 d;
  int ok;
} digest_seen;

typedef struct digest_cache {
  strbuf root;              /* DIR/v2, for messages */
  const char *dir;          /* DIR, the options' own string */
  int rootfd;               /* DIR/v2, opened: every file is reached from it */
  unsigned long long max;   /* bytes */
  int writable;             /* 0 once a write failed (warned once) */
  gpublob *g;               /* warnings and figures */
  digest_seen *seen;        /* each file once per call: jobs share tools and libraries */
  size_t nseen;
  struct cache_remote_tier *remote; /* the Redis server behind it (src/cache_remote.c); NULL: none */
} digest_cache;

typedef struct digest_entry_header { /* every cache file starts so; 56 bytes */
  char magic[8];
  uint64_t size;            /* of the payload after it */
  unsigned char hash[16];   /* XXH3-128 of the payload */
  unsigned char key[16];    /* the file's own key */
  char kind, pad[7];        /* 'm' manifest, 'e' entry, 'd' file digest */
} digest_entry_header;

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
static const char digest_cache_magic[8] GPUBLOB_NONSTRING = "GPBLOB\x02\n"; /* 8 bytes, no NUL */

static void digest_hash_u64(XXH3_state_t *st, uint64_t v) { XXH3_128bits_update(st, &v, sizeof v); }

static void digest_hash_bytes(XXH3_state_t *st, const void *p, size_t n) {
  digest_hash_u64(st, n);
  XXH3_128bits_update(st, p, n);
}

static void digest_hash_str(XXH3_state_t *st, const char *s) {
  digest_hash_u64(st, s ? 1 : 0);
  if (s) digest_hash_bytes(st, s, strlen(s));
}

static digest_key128 digest_hash_key(XXH3_state_t *st) {
  XXH128_canonical_t c;
  XXH128_canonicalFromHash(&c, XXH3_128bits_digest(st));
  digest_key128 k;
  memcpy(k.b, c.digest, sizeof k.b);
  return k;
}

static digest_key128 digest_of(const void *p, size_t n) {
  XXH128_canonical_t c;
  XXH128_canonicalFromHash(&c, XXH3_128bits(p, n));
  digest_key128 k;
  memcpy(k.b, c.digest, sizeof k.b);
  return k;
}

/* The spec is part of every key: a changed spec misses.  specgen writes its digest
** (XXH3-128 of every target's entry in the table: each key's value, in the key
** list's order) into the table, so the front and the compiler hold the same. */
static digest_key128 digest_spec_key;
static pthread_once_t digest_spec_once = PTHREAD_ONCE_INIT;

static void digest_spec_hash(void) {
  static const unsigned char digest[sizeof digest_spec_key.b] = {
#define GPUBLOB_SPEC_DIGEST(...) __VA_ARGS__
#include "gpublob_targets.def"
  };
  memcpy(digest_spec_key.b, digest, sizeof digest_spec_key.b);
}
