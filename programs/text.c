/* programs/text.c: the growing text (cli.h's text) the CLI builds its files and
** messages in: --metadata's JSON (kernels.c), --emit-c's header (emit_c.c) and the
** front's hand-off (front.c).  Below the files that use it, so that none of them
** calls another for it. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "programs/cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void text_addf(text *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (t->oom || n < 0) return;
  if (t->len + (size_t)n + 1 > t->cap) {
    size_t cap = (t->len + (size_t)n + 1) * 2;
    char *s = realloc(t->s, cap);
    if (!s) {
      t->oom = 1;
      return;
    }
    t->s = s;
    t->cap = cap;
  }
  va_start(ap, fmt);
  vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
  va_end(ap);
  t->len += (size_t)n;
}
