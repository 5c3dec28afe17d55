/* testlib.h: the few helpers gpublob's C tests share.  Each test program ends
** with the line "N passed, N failed, N skipped" and exits non-zero on a failure. */
#ifndef TESTLIB_H
#define TESTLIB_H
#include <stddef.h>

#ifndef LLVM_BINDIR
#define LLVM_BINDIR "/usr/lib/llvm-22/bin"
#endif
#ifndef SPIRV_VAL
#define SPIRV_VAL "spirv-val"
#endif

/* check(ok, name, fmt, ...): one property.  A failure prints the test's file and
** line, the expression that was false, the name, and fmt's details. */
#define check(ok, name, ...) check_at(__FILE__, __LINE__, #ok, (ok) != 0, name, __VA_ARGS__)
void check_at(const char *file, int line, const char *expr, int ok, const char *name,
              const char *fmt, ...);
void skip(const char *name, const char *why);
int report(void);

/* Runs argv (no shell); stdout and stderr together into *out (malloc'd, may be NULL). */
int run(const char *const *argv, char **out);
int contains(const char *haystack, const char *needle);
int exists(const char *path);
unsigned char *slurp(const char *path, size_t *size);
int spill(const char *path, const void *data, size_t size);
/* A fresh private directory under $TMPDIR or /tmp, removed by report(). */
const char *scratch(void);
/* scratch()/name, in a static ring of buffers. */
const char *tmp_path(const char *name);
/* Files left in the scratch directory whose names contain part. */
int leftovers(const char *dir, const char *part);
/* The blob tool program of opts->target, found as a compile finds it, into buf
** ("" if none): gpublob_tool_info_get's code. */
struct gpublob;
struct gpublob_options;
int tool_path(struct gpublob *g, const struct gpublob_options *opts, char *buf, size_t size);
/* Whether the CUDA toolkit's ptxas is found the way gpublob finds it. */
int have_ptxas(void);
#endif
