/* src/util.c: Strings: the one growable buffer every part writes text into, blank-separated
** lists and globs, as the spec's fields use them. */

/* ---- strings: a growable buffer, blank-separated lists, globs ---- */

static void sb_addn(strbuf *b, const char *s, size_t n) {
  if (b->oom || (!n && b->s)) return;
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 128;
    while (cap < b->len + n + 1) cap *= 2;
    char *p = realloc(b->s, cap);
    if (!p) {
      b->oom = 1;
      return;
    }
    b->s = p;
    b->cap = cap;
  }
  if (n) memcpy(b->s + b->len, s, n);
  b->len += n;
  b->s[b->len] = 0;
}

static void sb_add(strbuf *b, const char *s) { sb_addn(b, s, strlen(s)); }

static void sb_addf(strbuf *b, const char *fmt, ...) {
  char small[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n < sizeof small) {
    sb_addn(b, small, (size_t)n);
    return;
  }
  char *big = malloc((size_t)n + 1);
  if (!big) {
    b->oom = 1;
    return;
  }
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  sb_addn(b, big, (size_t)n);
  free(big);
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
