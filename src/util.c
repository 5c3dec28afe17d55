/* src/util.c: Strings: the one growable buffer every part writes text into, blank-separated
** lists and globs, as the spec's fields use them, and the comma-separated chip lists of the
** options and the cache; and blob_release, which frees a blob's bytes for every part. */

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
/* b's text handed over (the new owner frees it), b left empty. */
static strbuf sb_move(strbuf *b) {
  strbuf moved = *b;
  memset(b, 0, sizeof *b);
  return moved;
}

/* A blob's bytes freed and the blob left empty (NULL: nothing).  The core's parts call
** this; the public gpublob_blob_free (src/api.c) is it for a caller. */
static void blob_release(gpublob_blob *b) {
  if (!b) return;
  free(b->data);
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

/* The words of s as a POSIX shell splits them (blanks part words; '...' keeps all,
** "..." keeps all but a backslash before " \ $ `, and a backslash elsewhere keeps the
** next character), each ended by a NUL, into out; *count of them.  -1 for an
** unterminated quote (out then holds the words before it). */
static int shell_words(const char *s, strbuf *out, size_t *count) {
  *count = 0;
  while (s && *s) {
    while (*s == ' ' || *s == '\t' || *s == '\n') s++;
    if (!*s) break;
    char q = 0;
    for (; *s && (q || !strchr(" \t\n", *s)); s++) {
      if (q == '\'') {
        if (*s == '\'') q = 0;
        else sb_addn(out, s, 1);
      } else if (*s == '\\' && s[1] && (!q || strchr("\"\\$`", s[1]))) {
        sb_addn(out, ++s, 1);
      } else if (q == '"' && *s == '"') {
        q = 0;
      } else if (!q && (*s == '\'' || *s == '"')) {
        q = *s;
      } else {
        sb_addn(out, s, 1);
      }
    }
    if (q) return -1;
    sb_addn(out, "", 1);
    ++*count;
  }
  return 0;
}

static int word_is(const char *w, size_t n, const char *s) {
  return strlen(s) == n && !strncmp(w, s, n);
}

/* The position of s (n bytes) in a blank-separated list; -1 when it is not there. */
static int list_index(const char *list, const char *s, size_t n) {
  size_t wn;
  const char *w;
  for (int i = 0; (w = next_word(&list, " ", &wn)); i++)
    if (wn == n && !memcmp(w, s, n)) return i;
  return -1;
}

/* The value of KEY in a "KEY:VALUE KEY:VALUE" list (*n bytes of it); NULL if absent. */
static const char *pair_value(const char *list, const char *key, size_t *n) {
  size_t wn, k = strlen(key);
  const char *w;
  while ((w = next_word(&list, " ", &wn)))
    if (wn > k && w[k] == ':' && !strncmp(w, key, k)) {
      *n = wn - k - 1;
      return w + k + 1;
    }
  return NULL;
}

static int glob_match(const char *pattern, size_t n, const char *s) {
  strbuf pat = {0};
  sb_addn(&pat, pattern, n);
  int match = !pat.oom && fnmatch(sb_str(&pat), s, 0) == 0;
  sb_free(&pat);
  return match;
}

/* ---- chip lists: "sm_80,sm_90", as the options and the cache's entries give them ---- */
/* Each comma parts two chips, so ",," or a comma at either end leaves an empty one;
** "" (or NULL) holds none. */
typedef struct chip_list {
  const char *rest; /* what is left of the list; NULL after its last chip */
} chip_list;

static chip_list chip_list_of(const char *list) {
  chip_list l = {list && *list ? list : NULL};
  return l;
}

/* The next chip, n bytes (0: an empty one); 0 at the end of the list. */
static int next_chip(chip_list *l, const char **chip, size_t *n) {
  if (!l->rest) return 0;
  const char *comma = strchr(l->rest, ',');
  *chip = l->rest;
  *n = comma ? (size_t)(comma - l->rest) : strlen(l->rest);
  l->rest = comma ? comma + 1 : NULL;
  return 1;
}
