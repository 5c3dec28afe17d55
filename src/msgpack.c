/* src/msgpack.c: A bounded MessagePack reader, for the AMDGPU metadata note (src/meta_amdgpu.c).
** It reads untrusted bytes: every length is checked against what is left before it is
** used, a container's count cannot exceed the bytes left (each element takes one at
** least), and skipping nests at most MSGPACK_MAX_DEPTH deep.  A malformed value sets
** the cursor's bad flag; every later read then fails, so a caller checks it once.
** Only what the note needs: maps, arrays, strings, integers (floats, bin, ext and the
** rest are skipped). */

/* ---- MessagePack: a cursor over untrusted bytes ---- */

static size_t mp_left(const mp_cur *c) { return c->bad ? 0 : (size_t)(c->end - c->p); }

/* n bytes taken from the cursor; NULL (and bad) when fewer are left. */
static const unsigned char *mp_take(mp_cur *c, size_t n) {
  if (c->bad || n > (size_t)(c->end - c->p)) {
    c->bad = 1;
    return NULL;
  }
  const unsigned char *q = c->p;
  c->p += n;
  return q;
}

/* A big-endian integer of n bytes (1, 2, 4 or 8). */
static uint64_t mp_be(mp_cur *c, size_t n) {
  const unsigned char *q = mp_take(c, n);
  uint64_t v = 0;
  for (size_t i = 0; q && i < n; i++) v = v << 8 | q[i];
  return v;
}

/* The next byte, not taken; -1 at the end. */
static int mp_peek(const mp_cur *c) { return mp_left(c) ? *c->p : -1; }

/* A map's or array's count (map: its pairs), checked against the bytes left. */
static int mp_container(mp_cur *c, int map, size_t *count) {
  int b = mp_peek(c);
  uint64_t n;
  if (map && b >= 0x80 && b <= 0x8f) n = (uint64_t)(mp_take(c, 1)[0] & 0x0f);
  else if (!map && b >= 0x90 && b <= 0x9f) n = (uint64_t)(mp_take(c, 1)[0] & 0x0f);
  else if (b == (map ? 0xde : 0xdc)) mp_take(c, 1), n = mp_be(c, 2);
  else if (b == (map ? 0xdf : 0xdd)) mp_take(c, 1), n = mp_be(c, 4);
  else return -1; /* another type: not an error of the bytes, the caller decides */
  if (c->bad || n > mp_left(c) / (map ? 2 : 1)) return c->bad = 1, -1;
  *count = (size_t)n;
  return 0;
}
GPUBLOB_PRIVATE int mp_map(mp_cur *c, size_t *pairs) { return mp_container(c, 1, pairs); }
GPUBLOB_PRIVATE int mp_array(mp_cur *c, size_t *count) { return mp_container(c, 0, count); }

/* A string: its bytes (not NUL-ended) and length; -1 for another type. */
GPUBLOB_PRIVATE int mp_str(mp_cur *c, const char **s, size_t *n) {
  int b = mp_peek(c);
  uint64_t len;
  if (b >= 0xa0 && b <= 0xbf) len = (uint64_t)(mp_take(c, 1)[0] & 0x1f);
  else if (b == 0xd9) mp_take(c, 1), len = mp_be(c, 1);
  else if (b == 0xda) mp_take(c, 1), len = mp_be(c, 2);
  else if (b == 0xdb) mp_take(c, 1), len = mp_be(c, 4);
  else return -1;
  const unsigned char *q = c->bad ? NULL : mp_take(c, (size_t)len);
  if (!q) return -1;
  *s = (const char *)q;
  *n = (size_t)len;
  return 0;
}

/* An integer, signed or not, that fits a long long; -1 for another type (or a uint64 above it). */
GPUBLOB_PRIVATE int mp_int(mp_cur *c, long long *v) {
  int b = mp_peek(c);
  if (b < 0) return -1;
  if (b <= 0x7f || b >= 0xe0) {
    *v = (signed char)mp_take(c, 1)[0];
    if (b <= 0x7f) *v = b;
    return 0;
  }
  if (b >= 0xcc && b <= 0xcf) {
    mp_take(c, 1);
    uint64_t u = mp_be(c, (size_t)1 << (b - 0xcc));
    if (c->bad || u > (uint64_t)INT64_MAX) return -1;
    *v = (long long)u;
    return 0;
  }
  if (b >= 0xd0 && b <= 0xd3) {
    mp_take(c, 1);
    size_t n = (size_t)1 << (b - 0xd0);
    uint64_t u = mp_be(c, n);
    if (c->bad) return -1;
    if (n < 8 && (u >> (8 * n - 1) & 1)) u |= ~(uint64_t)0 << (8 * n); /* sign-extend */
    *v = (long long)u;
    return 0;
  }
  return -1;
}

/* The bytes of a value of fixed size after its type byte b, or (size 0, *len_bytes
** set) the bytes of the length that precedes a variable one; -1 for a container. */
static int mp_fixed(int b, size_t *size, size_t *len_bytes) {
  *len_bytes = 0;
  if (b <= 0x7f || b >= 0xe0 || (b >= 0xc0 && b <= 0xc3)) return *size = 0, 0;
  if (b >= 0xa0 && b <= 0xbf) return *size = (size_t)(b & 0x1f), 0;
  switch (b) {
  case 0xcc: case 0xd0: return *size = 1, 0;
  case 0xcd: case 0xd1: return *size = 2, 0;
  case 0xca: case 0xce: case 0xd2: return *size = 4, 0;
  case 0xcb: case 0xcf: case 0xd3: return *size = 8, 0;
  case 0xd4: return *size = 2, 0; /* fixext: a type byte and 1, 2, 4, 8, 16 bytes */
  case 0xd5: return *size = 3, 0;
  case 0xd6: return *size = 5, 0;
  case 0xd7: return *size = 9, 0;
  case 0xd8: return *size = 17, 0;
  case 0xc4: case 0xd9: return *size = 0, *len_bytes = 1, 0;
  case 0xc5: case 0xda: return *size = 0, *len_bytes = 2, 0;
  case 0xc6: case 0xdb: return *size = 0, *len_bytes = 4, 0;
  case 0xc7: return *size = 1, *len_bytes = 1, 0; /* ext: its type byte after the length */
  case 0xc8: return *size = 1, *len_bytes = 2, 0;
  case 0xc9: return *size = 1, *len_bytes = 4, 0;
  }
  return -1;
}

/* Skips one value, containers to depth levels; bad when malformed or nested deeper. */
GPUBLOB_PRIVATE void mp_skip(mp_cur *c, int depth) {
  size_t n, size, len_bytes;
  int b = mp_peek(c);
  if (b < 0) {
    c->bad = 1;
    return;
  }
  int map = (b >= 0x80 && b <= 0x8f) || b == 0xde || b == 0xdf;
  if (map || (b >= 0x90 && b <= 0x9f) || b == 0xdc || b == 0xdd) {
    if (depth <= 0 || mp_container(c, map, &n)) {
      c->bad = 1;
      return;
    }
    for (size_t i = 0; !c->bad && i < (map ? 2 * n : n); i++) mp_skip(c, depth - 1);
    return;
  }
  if (b == 0xc1 || mp_fixed(b, &size, &len_bytes)) {
    c->bad = 1; /* 0xc1 is never used */
    return;
  }
  mp_take(c, 1);
  uint64_t len = len_bytes ? mp_be(c, len_bytes) : 0;
  if (len > mp_left(c)) c->bad = 1;
  else mp_take(c, size + (size_t)len);
}

/* The string s (n bytes) is the NUL-ended key. */
GPUBLOB_PRIVATE int mp_is(const char *s, size_t n, const char *key) { return util_word_is(s, n, key); }
