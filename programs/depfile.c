/* programs/depfile.c: --depfile FILE, what the call's outputs depend on, in Make's
** syntax, for make, ninja and CMake's DEPFILE, so that a build reruns the call when
** any of those files changes, not only when its input does.  The target is the
** --emit-object object when there is one, else the --emit-c header (each holds
** every output: the file a program's build uses, which may leave the output files
** undeclared, and ninja refuses a depfile naming an output its rule does not
** declare), else each output written (not stdout), in the call's order.  The prerequisites are
** the inputs, each -l file, and, for each (target, chip) of the outputs (MLIR's
** module, -f offload's container of several targets: of the -t choices), the blob
** tool (a program, or an in-process provider's library; none for one linked in)
** for -f bin, pack and offload, the pack tool for -f pack, and the
** device libraries the spec names, each found as the compile finds it
** (gpublob_tool_info_get, gpublob_libs_find: the same in the LLVM-free front and
** in the compiler).  Only regular files are listed, each once; each also gets an
** empty rule of its own, as gcc -MP writes, so that make does not stop at a
** device library removed since.  Its text is made before any output is written
** (a path with a newline cannot be written in Make's syntax: usage error), and
** written with the outputs, all renamed into place at once (output_write.c). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "programs/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The prerequisites found so far, each once. */
typedef struct dep_list {
  char **paths;
  size_t count, cap;
  int oom;
} dep_list;

static void dep_add(dep_list *d, const char *path) {
  struct stat st;
  if (!path || !*path || stat(path, &st) || !S_ISREG(st.st_mode)) return;
  for (size_t i = 0; i < d->count; i++)
    if (!strcmp(d->paths[i], path)) return;
  if (d->count == d->cap) {
    size_t cap = d->cap ? 2 * d->cap : 16;
    char **grown = realloc(d->paths, cap * sizeof *grown);
    if (!grown) return (void)(d->oom = 1);
    d->paths = grown;
    d->cap = cap;
  }
  if (!(d->paths[d->count] = strdup(path))) return (void)(d->oom = 1);
  d->count++;
}

static void dep_free(dep_list *d) {
  for (size_t i = 0; i < d->count; i++) free(d->paths[i]);
  free(d->paths);
}

/* The blob tool of format (bin or pack) for one target and chip, when it is a file. */
static void dep_tool(gpublob *g, const gpublob_options *o, int format, dep_list *d) {
  gpublob_options one = *o;
  gpublob_tool_info info;
  one.format = format;
  if (!gpublob_tool_info_get(g, &one, 1, &info, sizeof info)) dep_add(d, info.path);
}

/* Each device library found (a missing one is the compile's to refuse). */
static void dep_libs(gpublob *g, const gpublob_options *o, dep_list *d) {
  const char *paths = "";
  gpublob_libs_find(g, o, &paths);
  while (*paths) {
    size_t n = strcspn(paths, "\n");
    char *path = strndup(paths, n);
    if (!path) d->oom = 1;
    dep_add(d, path);
    free(path);
    paths += n + (paths[n] == '\n');
  }
}

/* The tools and libraries of target NAME and each chip of the comma-separated chips
** ("": the target's default chip). */
static void dep_target(gpublob *g, const cli *c, const char *name, const char *chips, dep_list *d) {
  int format = c->opts.format;
  do {
    size_t n = strcspn(chips, ",");
    char *chip = strndup(chips, n);
    gpublob_options o = c->opts;
    o.target = name;
    o.chip = chip && *chip ? chip : NULL;
    o.targets = NULL;
    o.ntargets = 0;
    if (!chip) d->oom = 1;
    if (format == GPUBLOB_FORMAT_DEFAULT || format == GPUBLOB_FORMAT_BIN || format == GPUBLOB_FORMAT_PACK ||
        format == GPUBLOB_FORMAT_OFFLOAD)
      dep_tool(g, &o, GPUBLOB_FORMAT_BIN, d);
    if (format == GPUBLOB_FORMAT_PACK) dep_tool(g, &o, GPUBLOB_FORMAT_PACK, d);
    dep_libs(g, &o, d);
    free(chip);
    chips += n + (chips[n] == ',');
  } while (*chips);
}

/* A -t choice, NAME[:CHIP[,CHIP]] (a chip may be a target id, gfx90a:xnack+). */
static void dep_choice(gpublob *g, const cli *c, const char *choice, dep_list *d) {
  size_t n = strcspn(choice, ":");
  char *name = strndup(choice, n);
  if (!name) d->oom = 1;
  else dep_target(g, c, name, choice[n] ? choice + n + 1 : "", d);
  free(name);
}

/* An output of no one target: MLIR's module ("") or -f offload's container of several
** ("nvptx,amdgcn", whose chips cannot be told apart by target): the -t choices are its. */
static int joins_targets(const char *target) { return !*target || strchr(target, ','); }

/* path as Make reads it: a space, '#' and a backslash before them escaped, '$' doubled. */
static void make_path(text *t, const char *path) {
  for (const char *p = path; *p; p++) {
    if (*p == ' ' || *p == '#') {
      for (const char *b = p; b > path && b[-1] == '\\'; b--) text_addf(t, "\\");
      text_addf(t, "\\%c", *p);
    } else if (*p == '$') text_addf(t, "$$");
    else text_addf(t, "%c", *p);
  }
}

static int has_newline(const char *path) { return strpbrk(path, "\n\r") != NULL; }

/* The depfile's text into *t: 0, or 2 (said). */
int depfile_text(gpublob *g, const cli *c, const gpublob_result *r, int mlir, text *t) {
  char **paths = calloc(r->count + 1, sizeof *paths);
  dep_list d = {0};
  int rc = !paths ? fail("%s", "out of memory") : output_paths(c, r, mlir, paths);
  for (size_t i = 0; i < c->ninputs; i++)
    if (strcmp(c->inputs[i], "-")) dep_add(&d, c->inputs[i]);
  for (size_t i = 0; i < c->opts.nlink; i++) dep_add(&d, c->links[i]);
  for (size_t i = 0; !rc && i < r->count; i++)
    if (!joins_targets(r->outputs[i].target)) dep_target(g, c, r->outputs[i].target, r->outputs[i].chip, &d);
    else
      for (size_t k = 0; k < c->opts.ntargets; k++) dep_choice(g, c, c->choices[k].target, &d);
  const char *held = c->emit_object ? c->emit_object : c->emit_c; /* the file that holds every output */
  const char *bad = held && has_newline(held) ? held : NULL;
  for (size_t i = 0; !rc && paths && i < r->count; i++) bad = bad ? bad : has_newline(paths[i]) ? paths[i] : NULL;
  for (size_t i = 0; i < d.count; i++) bad = bad ? bad : has_newline(d.paths[i]) ? d.paths[i] : NULL;
  if (!rc && bad) rc = fail("--depfile: the path '%s' has a line break, which Make's syntax cannot hold", bad);
  size_t written = 0;
  if (!rc && held) make_path(t, held), written++;
  for (size_t i = 0; !rc && !held && i < r->count; i++)
    if (strcmp(paths[i], "-")) text_addf(t, "%s", written++ ? " " : ""), make_path(t, paths[i]);
  if (!rc && !written) rc = fail("%s", "--depfile: the call writes no file (only stdout) to name as its target");
  if (!rc) text_addf(t, ":");
  for (size_t i = 0; !rc && i < d.count; i++) text_addf(t, " \\\n  "), make_path(t, d.paths[i]);
  if (!rc) text_addf(t, "\n");
  for (size_t i = 0; !rc && i < d.count; i++) text_addf(t, "\n"), make_path(t, d.paths[i]), text_addf(t, ":\n");
  if (!rc && (d.oom || t->oom)) rc = fail("%s", "out of memory");
  for (size_t i = 0; paths && i < r->count; i++) free(paths[i]);
  free(paths);
  dep_free(&d);
  return rc;
}
