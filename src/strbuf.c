/* src/strbuf.c: the one growable string buffer every part writes text into (sb_): room,
** appends (bytes, strings, formats), the text, and its reset, free and hand-over.  A
** buffer out of memory remembers it (oom) and takes no more, so a caller checks once. */

/* Room for n more bytes and a NUL after b's text; -1 (and b->oom) when there is none. */
GPUBLOB_PRIVATE int sb_room(strbuf *b, size_t n) {
  if (b->oom) return -1;
  if (b->s && n < b->cap - b->len) return 0;
  if (n >= SIZE_MAX / 2 - b->len) {
    b->oom = 1;
    return -1;
  }
  size_t cap = b->cap ? b->cap : 128;
  while (cap <= b->len + n && cap <= SIZE_MAX / 2) cap *= 2;
  char *p = cap > b->len + n ? realloc(b->s, cap) : NULL;
  if (!p) {
    b->oom = 1;
    return -1;
  }
  b->s = p;
  b->cap = cap;
  return 0;
}

GPUBLOB_PRIVATE void sb_addn(strbuf *b, const char *s, size_t n) {
  if (b->oom || (!n && b->s) || sb_room(b, n)) return;
  if (n) memcpy(b->s + b->len, s, n);
  b->len += n;
  b->s[b->len] = 0;
}

GPUBLOB_PRIVATE void sb_add(strbuf *b, const char *s) { sb_addn(b, s, strlen(s)); }

/* Formatted into the room b has, or into more made for it. */
GPUBLOB_PRIVATE void sb_vaddf(strbuf *b, const char *fmt, va_list ap) {
  if (b->oom) return;
  va_list again;
  va_copy(again, ap);
  size_t room = b->s ? b->cap - b->len : 0;
  int n = vsnprintf(room ? b->s + b->len : NULL, room, fmt, ap);
  if (n >= 0 && (size_t)n >= room && !sb_room(b, (size_t)n))
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, again);
  va_end(again);
  if (n >= 0 && !b->oom) b->len += (size_t)n;
  if (b->s) b->s[b->len] = 0;
}

GPUBLOB_PRIVATE void sb_addf(strbuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sb_vaddf(b, fmt, ap);
  va_end(ap);
}

GPUBLOB_PRIVATE const char *sb_str(const strbuf *b) { return b->s ? b->s : ""; }

GPUBLOB_PRIVATE void sb_reset(strbuf *b) {
  b->len = 0;
  b->oom = 0;
  if (b->s) b->s[0] = 0;
}

GPUBLOB_PRIVATE void sb_free(strbuf *b) {
  free(b->s);
  memset(b, 0, sizeof *b);
}

/* b's text handed over (the new owner frees it), b left empty. */
GPUBLOB_PRIVATE strbuf sb_move(strbuf *b) {
  strbuf moved = *b;
  memset(b, 0, sizeof *b);
  return moved;
}
