/* src/util.c: Strings: the one growable buffer every part writes text into, blank-separated
** lists and globs, as the spec's fields use them. */

/* ---- strings: a growable buffer, blank-separated lists, globs ---- */

/* Room for n more bytes and a NUL after b's text; -1 (and b->oom) when there is none. */
static int sb_room(strbuf *b, size_t n) {
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

static void sb_addn(strbuf *b, const char *s, size_t n) {
  if (b->oom || (!n && b->s) || sb_room(b, n)) return;
  if (n) memcpy(b->s + b->len, s, n);
  b->len += n;
  b->s[b->len] = 0;
}

static void sb_add(strbuf *b, const char *s) { sb_addn(b, s, strlen(s)); }

/* Formatted into the room b has, or into more made for it. */
static void sb_vaddf(strbuf *b, const char *fmt, va_list ap) {
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

static void sb_addf(strbuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sb_vaddf(b, fmt, ap);
  va_end(ap);
}

static const char *sb_str(const strbuf *b) { return b->s ? b->s : ""; }
static void sb_reset(strbuf *b) {
  b->len = 0;
  b->oom = 0;
  if (b->s) b->s[0] = 0;
}
static void sb_free(strbuf *b) {
  free(b->s);
  memset(b, 0, sizeof *b);
}

/* Room for one more element in *pp, an array of n of size bytes each. */
static int grow(void *pp, size_t n, size_t size) {
  void *q = realloc(*(void **)pp, (n + 1) * size);
  if (!q) return -1;
  *(void **)pp = q;
  return 0;
}

/* The next word of a list separated by any of seps; NULL at the end. */
static const char *next_word(const char **p, const char *seps, size_t *n) {
  const char *s = *p;
  while (*s && strchr(seps, *s)) s++;
  if (!*s) return NULL;
  const char *e = s;
  while (*e && !strchr(seps, *e)) e++;
  *n = (size_t)(e - s);
  *p = e;
  return s;
}

static int word_is(const char *w, size_t n, const char *s) {
  return strlen(s) == n && !strncmp(w, s, n);
}

static int list_has(const char *list, const char *s) {
  size_t n;
  const char *w;
  while ((w = next_word(&list, " ", &n)))
    if (word_is(w, n, s)) return 1;
  return 0;
}

/* Value of KEY in a "KEY:VALUE KEY:VALUE" list, copied into out; 0 if absent. */
static int pair_value(const char *list, const char *key, char *out, size_t size) {
  size_t n, k = strlen(key);
  const char *w;
  while ((w = next_word(&list, " ", &n)))
    if (n > k && w[k] == ':' && !strncmp(w, key, k)) {
      snprintf(out, size, "%.*s", (int)(n - k - 1), w + k + 1);
      return 1;
    }
  return 0;
}

static int glob_match(const char *pattern, size_t n, const char *s) {
  char pat[128];
  snprintf(pat, sizeof pat, "%.*s", (int)n, pattern);
  return fnmatch(pat, s, 0) == 0;
}
