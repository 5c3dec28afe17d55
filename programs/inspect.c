/* programs/inspect.c: the inspect job, `gpublob inspect [--json] [--disasm] FILE...`:
** each file read by gpublob_inspect (any blob gpublob writes or reads), and for each
** entry its target, chip, tool and size, and each kernel's lines as --verbose prints
** them, its figures and its parameters (on stdout); --json prints what --metadata writes, a document a file.  Both
** programs run it: the front (LLVM-free) for everything but --disasm, which it hands
** to gpublob-compiler (disasm.c, LLVM's disassembler).  A file gpublob cannot read is
** an error naming it (exit 10 + its code, the first one's); the other files are still
** inspected. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "programs/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct inspect_args {
  int json, disasm;
  char **files;
  int nfiles;
} inspect_args;

int inspect_is_job(int argc, char **argv) { return argc >= 2 && !strcmp(argv[1], "inspect"); }

/* The job's flags, then its files ("--" ends the flags); 0, or 2 on a usage error. */
static int inspect_args_read(int argc, char **argv, inspect_args *a) {
  int flags = 1;
  memset(a, 0, sizeof *a);
  a->files = argv + 2;
  for (int i = 2; i < argc; i++) {
    const char *w = argv[i];
    if (flags && !strcmp(w, "--")) flags = 0;
    else if (flags && !strcmp(w, "--json")) a->json = 1;
    else if (flags && !strcmp(w, "--disasm")) a->disasm = 1;
    else if (flags && w[0] == '-' && w[1]) return fail("inspect: unknown option '%s' (inspect takes --json, --disasm)", w);
    else a->files[a->nfiles++] = argv[i];
  }
  if (!a->nfiles) return fail("%s", "inspect: no file (gpublob inspect [--json] [--disasm] FILE...)");
  if (a->json && a->disasm) return fail("%s", "inspect: --json and --disasm: one at a time");
  return 0;
}

int inspect_wants_disasm(int argc, char **argv) {
  for (int i = 2; i < argc && strcmp(argv[i], "--"); i++)
    if (!strcmp(argv[i], "--disasm")) return 1;
  return 0;
}

static void print_warnings_of(gpublob *g, const char *file) {
  for (const char *w = gpublob_warnings(g); *w;) {
    size_t n = strcspn(w, "\n");
    fprintf(stderr, "gpublob: warning: %s: %.*s\n", file, (int)n, w);
    w += n + (w[n] == '\n');
  }
}

/* Entry i's line and its kernels' lines, each with its parameters' line (none for an
** entry that records none). */
static int print_entry(gpublob *g, const gpublob_result *r, size_t i, const char *file) {
  const gpublob_output *o = &r->outputs[i];
  size_t n = 0;
  printf("%s: %s %s %s, %zu bytes%s%s\n", file, o->target, o->chip, o->blob.suffix, o->blob.size,
         *o->tool ? ", tool " : "", o->tool);
  int rc = gpublob_kernel_count(g, r, i, &n);
  if (rc == GPUBLOB_FORMAT) return 0;
  for (size_t k = 0; !rc && k < n; k++) {
    gpublob_kernel_info info;
    if ((rc = gpublob_kernel_get(g, r, i, k, &info, sizeof info))) break;
    verbose_kernel(stdout, "  ", o, &info);
    text json = {0}; /* --verbose's params line; the JSON is --json's */
    rc = kernel_params(g, r, i, k, info.name, stdout, "  ", &json);
    free(json.s);
  }
  if (rc) fprintf(stderr, "gpublob: error: %s: kernel metadata of %s %s: %s\n", file, o->target, o->chip,
                  gpublob_error_message(g));
  return rc ? 10 + rc : 0;
}

/* One file: its entries as asked; 0 or 10 + the code. */
static int inspect_file(gpublob *g, const inspect_args *a, const char *file, inspect_disasm_fn disasm) {
  gpublob_result r = {0};
  const gpublob_input in = {GPUBLOB_INPUT_AUTO, NULL, 0, file, NULL};
  int rc = gpublob_inspect(g, &in, &r);
  if (rc) {
    fprintf(stderr, "gpublob: error: %s: %s\n", file, gpublob_error_message(g));
    return 10 + rc;
  }
  print_warnings_of(g, file);
  if (a->json) {
    cli quiet = {0};
    text json = {0};
    rc = read_kernels(g, &quiet, &r, &json);
    if (!rc) fputs(json.s, stdout);
    free(json.s);
  }
  for (size_t i = 0; !a->json && !rc && i < r.count; i++) {
    rc = print_entry(g, &r, i, file);
    if (!rc && a->disasm) rc = disasm(g, &r, i);
  }
  gpublob_result_free(&r);
  return rc;
}

/* The job: 0, 2 (usage), or 10 + the first failing file's code. */
int inspect_main(int argc, char **argv, inspect_disasm_fn disasm) {
  inspect_args a;
  gpublob *g;
  int rc = inspect_args_read(argc, argv, &a), first = 0;
  if (rc) return rc;
  if (a.disasm && !disasm) return fail("%s", "inspect --disasm: this program has no disassembler (gpublob-compiler has)");
  if (gpublob_open(&g)) return fail("%s", "out of memory");
  for (int f = 0; f < a.nfiles; f++)
    if ((rc = inspect_file(g, &a, a.files[f], disasm)) && !first) first = rc;
  gpublob_close(g);
  if (fflush(stdout) && !first) first = fail("%s", "cannot write to stdout");
  return first;
}
