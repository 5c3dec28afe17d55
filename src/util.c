/* src/util.c: Small helpers every part uses (util_): an array grown by one, blank-separated
** lists and globs as the spec's fields use them, the comma-separated chip lists of the
** options and the cache, the clocks, and util_blob_release, which frees a blob's bytes for
** every part.  The string buffer is src/strbuf.c's; reads and writes are src/io.c's. */

/* ---- arrays, blank-separated lists, globs ---- */

/* A blob's bytes freed and the blob left empty (NULL: nothing).  The core's parts call
** this; the public gpublob_blob_free (src/api.c) is it for a caller. */
GPUBLOB_PRIVATE void util_blob_release(gpublob_blob *b) {
  if (!b) return;
  free(b->data);
  memset(b, 0, sizeof *b);
}

/* Room for one more element in *pp, an array of n of size bytes each. */
GPUBLOB_PRIVATE int util_grow(void *pp, size_t n, size_t size) {
  void *q = realloc(*(void **)pp, (n + 1) * size);
  if (!q) return -1;
  *(void **)pp = q;
  return 0;
}

/* The next word of a list separated by any of seps; NULL at the end. */
GPUBLOB_PRIVATE const char *util_next_word(const char **p, const char *seps, size_t *n) {
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
GPUBLOB_PRIVATE int util_shell_words(const char *s, strbuf *out, size_t *count) {
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

GPUBLOB_PRIVATE int util_word_is(const char *w, size_t n, const char *s) {
  return strlen(s) == n && !strncmp(w, s, n);
}

/* The position of s (n bytes) in a blank-separated list; -1 when it is not there. */
GPUBLOB_PRIVATE int util_list_index(const char *list, const char *s, size_t n) {
  size_t wn;
  const char *w;
  for (int i = 0; (w = util_next_word(&list, " ", &wn)); i++)
    if (wn == n && !memcmp(w, s, n)) return i;
  return -1;
}

/* The value of KEY in a "KEY:VALUE KEY:VALUE" list (*n bytes of it); NULL if absent. */
GPUBLOB_PRIVATE const char *util_pair_value(const char *list, const char *key, size_t *n) {
  size_t wn, k = strlen(key);
  const char *w;
  while ((w = util_next_word(&list, " ", &wn)))
    if (wn > k && w[k] == ':' && !strncmp(w, key, k)) {
      *n = wn - k - 1;
      return w + k + 1;
    }
  return NULL;
}

GPUBLOB_PRIVATE int util_glob_match(const char *pattern, size_t n, const char *s) {
  strbuf pat = {0};
  sb_addn(&pat, pattern, n);
  int match = !pat.oom && fnmatch(sb_str(&pat), s, 0) == 0;
  sb_free(&pat);
  return match;
}

/* ---- chip lists: "sm_80,sm_90", as the options and the cache's entries give them ---- */

GPUBLOB_PRIVATE util_chip_list util_chip_list_of(const char *list) {
  util_chip_list l = {list && *list ? list : NULL};
  return l;
}

/* The next chip, n bytes (0: an empty one); 0 at the end of the list. */
GPUBLOB_PRIVATE int util_next_chip(util_chip_list *l, const char **chip, size_t *n) {
  if (!l->rest) return 0;
  const char *comma = strchr(l->rest, ',');
  *chip = l->rest;
  *n = comma ? (size_t)(comma - l->rest) : strlen(l->rest);
  l->rest = comma ? comma + 1 : NULL;
  return 1;
}

GPUBLOB_PRIVATE double util_clock_ms(clockid_t clock) {
  struct timespec t;
  if (clock_gettime(clock, &t)) return 0;
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

GPUBLOB_PRIVATE double util_now_ms(void) { return util_clock_ms(CLOCK_MONOTONIC); }
