/* src/digest.c: Digests: XXH3 of strings, files and the spec table, the keys the cache names its
** entries by.  A descriptor is read whole by src/io.c. */

/* ---- digests: the keys the cache's entries are named by, of what made them ---- */

GPUBLOB_PRIVATE const char digest_cache_magic[8] GPUBLOB_NONSTRING = "GPBLOB\x02\n"; /* 8 bytes, no NUL */

GPUBLOB_PRIVATE void digest_hash_u64(XXH3_state_t *st, uint64_t v) { XXH3_128bits_update(st, &v, sizeof v); }

GPUBLOB_PRIVATE void digest_hash_bytes(XXH3_state_t *st, const void *p, size_t n) {
  digest_hash_u64(st, n);
  XXH3_128bits_update(st, p, n);
}

GPUBLOB_PRIVATE void digest_hash_str(XXH3_state_t *st, const char *s) {
  digest_hash_u64(st, s ? 1 : 0);
  if (s) digest_hash_bytes(st, s, strlen(s));
}

GPUBLOB_PRIVATE digest_key128 digest_hash_key(XXH3_state_t *st) {
  XXH128_canonical_t c;
  XXH128_canonicalFromHash(&c, XXH3_128bits_digest(st));
  digest_key128 k;
  memcpy(k.b, c.digest, sizeof k.b);
  return k;
}

GPUBLOB_PRIVATE digest_key128 digest_of(const void *p, size_t n) {
  XXH128_canonical_t c;
  XXH128_canonicalFromHash(&c, XXH3_128bits(p, n));
  digest_key128 k;
  memcpy(k.b, c.digest, sizeof k.b);
  return k;
}

/* The spec is part of every key: a changed spec misses.  specgen writes its digest
** (XXH3-128 of every target's entry in the table: each key's value, in the key
** list's order) into the table, so the front and the compiler hold the same. */
GPUBLOB_PRIVATE digest_key128 digest_spec_key;
GPUBLOB_PRIVATE pthread_once_t digest_spec_once = PTHREAD_ONCE_INIT;

GPUBLOB_PRIVATE void digest_spec_hash(void) {
  static const unsigned char digest[sizeof digest_spec_key.b] = {
#define GPUBLOB_SPEC_DIGEST(...) __VA_ARGS__
#include "gpublob_targets.def"
  };
  memcpy(digest_spec_key.b, digest, sizeof digest_spec_key.b);
}
