/* src/names.h: names made from an input's name, a target and a chip (a target id such
** as gfx90a:xnack+): a part of a file name (the dump directory's files; the CLI's
** output names), and a part of a C identifier (the CLI's --emit-c).  Plain C with
** no LLVM and no other header of gpublob's, shared by the core (gpublob.c includes
** it) and the CLI (both its builds include it), so the two agree on every name.
** Each function appends to a NUL-terminated buffer of size bytes, cutting what does
** not fit; the caller checks the length it needs. */
#ifndef GPUBLOB_NAMES_H
#define GPUBLOB_NAMES_H

#include <stddef.h>
#include <string.h>

static inline void name_put(char *out, size_t size, const char *s) {
  size_t len = strlen(out);
  while (*s && len + 1 < size) out[len++] = *s++;
  out[len] = 0;
}

/* A file name's part from n bytes of s: letters, digits, '.', '_', '+' and '-' are
** kept, ':' (a target id's separator) becomes '-', anything else (a '/', a blank, a
** comma of a pack's chip list) '_'.  gfx90a:xnack+ -> gfx90a-xnack+;
** sm_80,sm_90 -> sm_80_sm_90; "" -> "" (the caller names the empty part). */
static inline void safe_chip_name(char *out, size_t size, const char *s, size_t n) {
  for (size_t i = 0; i < n && s[i]; i++) {
    char c = s[i], one[2] = {c, 0};
    int keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
               c == '_' || c == '+' || c == '-';
    if (!keep) one[0] = c == ':' ? '-' : '_';
    name_put(out, size, one);
  }
}

/* A C identifier's part from n bytes of s: letters, digits and '_' are kept; a '+'
** becomes "_plus" and a '-' that ends a word (before ':', ',' or the end: a target
** id's feature off) "_minus"; any other character '_'.  A digit that would start
** the identifier (out still empty) gets a '_' first.  gfx90a:xnack+ ->
** gfx90a_xnack_plus; gfx90a:xnack- -> gfx90a_xnack_minus; gfx9-generic ->
** gfx9_generic. */
static inline void c_name_part(char *out, size_t size, const char *s, size_t n) {
  for (size_t i = 0; i < n && s[i]; i++) {
    char c = s[i], one[2] = {c, 0};
    int end = i + 1 == n || !s[i + 1] || s[i + 1] == ':' || s[i + 1] == ',';
    if (!*out && c >= '0' && c <= '9') name_put(out, size, "_");
    if (c == '+') name_put(out, size, "_plus");
    else if (c == '-' && end) name_put(out, size, "_minus");
    else {
      int keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
      if (!keep) one[0] = '_';
      name_put(out, size, one);
    }
  }
}

/* An input's stem: the name after its last '/', up to its last '.' (saxpy.ll ->
** saxpy); the whole of it when it has no '.' past the first character. */
static inline size_t name_stem(const char *name, const char **stem) {
  const char *slash = strrchr(name, '/'), *base = slash ? slash + 1 : name;
  const char *dot = strrchr(base, '.');
  *stem = base;
  return dot && dot > base ? (size_t)(dot - base) : strlen(base);
}

#endif /* GPUBLOB_NAMES_H */
