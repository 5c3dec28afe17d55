/* programs/compiler.c: gpublob-compiler's main, the whole CLI, with LLVM: reads
** the arguments, compiles the input (or lists the targets), writes the outputs.
** What LLVM and MLIR write to stderr themselves during a call is caught and printed
** after the call's own first line.  Started by the front (front.c) for anything
** but a cache hit, with its hand-off (cli.h, HANDOFF_ENV) when the front met a
** fault of the remote tier. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "programs/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <llvm-c/ErrorHandling.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h> /* memfd_create */
#include <unistd.h>

/* What LLVM and MLIR write to stderr themselves during a call (cl::opt's "for the
** --index-bitwidth option: ..." when a pass option does not parse, a dump before an
** error), outside gpublob's message: caught in a memory file while the call runs, and
** printed after the call's own first line, so that an error is still stderr's first. */
typedef struct stray {
  int saved, file;
} stray;

static stray stray_begin(void) {
  stray s = {-1, -1};
  fflush(stderr);
  s.file = memfd_create("gpublob-stderr", MFD_CLOEXEC);
  s.saved = s.file < 0 ? -1 : fcntl(2, F_DUPFD_CLOEXEC, 3);
  if (s.saved < 0 || dup2(s.file, 2) < 0) {
    if (s.saved >= 0) close(s.saved);
    if (s.file >= 0) close(s.file);
    return (stray){-1, -1};
  }
  stray_watch(s.file, s.saved);
  return s;
}

/* stderr back, before anything is printed. */
static void stray_end(stray *s) {
  if (s->file < 0) return;
  fflush(stderr);
  dup2(s->saved, 2);
  stray_watch(-1, 2);
  close(s->saved);
  s->saved = -1;
}

/* What was caught, as it was written, after the call's own lines. */
static void stray_print(stray *s) {
  if (s->file < 0) return;
  char buf[4096];
  ssize_t n;
  fflush(stderr);
  lseek(s->file, 0, SEEK_SET);
  while ((n = read(s->file, buf, sizeof buf)) > 0)
    if (write(2, buf, (size_t)n) < 0) break;
  close(s->file);
  s->file = -1;
}

/* The front's hand-off (cli.h, HANDOFF_ENV): when there is one, the remote tier is
** off for this call (the front met its fault, its one timeout is spent), and the
** front's warnings are returned, "warning TEXT" lines among the others. */
static const char *front_handoff; /* the hand-off, NULL when the front gave none */

static const char *handoff_take(cli *c) {
  const char *h = getenv(HANDOFF_ENV);
  if (!h || strncmp(h, HANDOFF_HEADER "\n", strlen(HANDOFF_HEADER) + 1)) return NULL;
  for (const char *line = h; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
    if (!strncmp(line, "remote-off\n", 11) || !strcmp(line, "remote-off")) c->opts.remote_cache = NULL;
  return h;
}

/* Whether the n bytes of line are one of the lines of warnings. */
static int has_line(const char *warnings, const char *line, size_t n) {
  for (const char *w = warnings; *w;) {
    size_t wn = strcspn(w, "\n");
    if (wn == n && !strncmp(w, line, n)) return 1;
    w += wn + (w[wn] == '\n');
  }
  return 0;
}

/* The front's warnings this call did not give itself (its remote tier's fault). */
static void print_handoff_warnings(gpublob *g, const char *handoff) {
  for (const char *line = handoff; line && *line;) {
    size_t n = strcspn(line, "\n");
    if (n > 8 && !strncmp(line, "warning ", 8) && !has_line(gpublob_warnings(g), line + 8, n - 8))
      fprintf(stderr, "gpublob: warning: %.*s\n", (int)(n - 8), line + 8);
    line += n + (line[n] == '\n');
  }
}


/* ---- compile ---- */
/* Every input read and taken as LLVM IR or MLIR, into in (n of them); *mlir: the one
** input is MLIR.  0, or the exit status (said). */
static int read_inputs(const cli *c, gpublob_input *in, unsigned char **held, int *mlir) {
  size_t n = c->ninputs;
  for (size_t i = 0; i < n; i++) {
    const char *path = c->inputs[i];
    size_t size;
    if (read_input_path(c, path, &held[i], &size)) {
      fprintf(stderr, "gpublob: error: cannot read '%s': %s\n", path, strerror(errno));
      return 10 + GPUBLOB_IO;
    }
    int kind = is_mlir(path, held[i], size) ? GPUBLOB_INPUT_MLIR : GPUBLOB_INPUT_LLVM;
    in[i] = (gpublob_input){kind, held[i], size, NULL, strcmp(path, "-") ? path : "<stdin>"};
  }
  *mlir = n == 1 && in[0].kind == GPUBLOB_INPUT_MLIR;
  return check_many(c, outputs_asked(c, *mlir)) ? 2 : 0;
}

/* One input: gpublob_compile; several: gpublob_compile_inputs, each for the targets
** its triple allows. */
static int compile_input(gpublob *g, const cli *c, gpublob_result *r, int *mlir) {
  gpublob_input *in = calloc(c->ninputs, sizeof *in);
  unsigned char **held = calloc(c->ninputs, sizeof *held);
  int status = !in || !held ? fail("%s", "out of memory") : read_inputs(c, in, held, mlir), rc = 0;
  stray caught = status ? (stray){-1, -1} : stray_begin();
  if (!status && c->ninputs == 1) rc = gpublob_compile(g, &c->opts, in, r);
  else if (!status) rc = gpublob_compile_inputs(g, &c->opts, in, c->ninputs, r);
  for (size_t i = 0; held && i < c->ninputs; i++) free(held[i]);
  free(held);
  free(in);
  if (status) return status; /* said */
  stray_end(&caught); /* stderr is stderr again before anything is printed */
  /* the error is stderr's first line; the call's warnings, and what LLVM wrote, follow it */
  if (rc) fprintf(stderr, "gpublob: error: %s\n", gpublob_error_message(g));
  print_warnings(g);
  stray_print(&caught);
  if (front_handoff) print_handoff_warnings(g, front_handoff);
  if (c->time) print_time(g, "compiler", c->opts.remote_cache && *c->opts.remote_cache);
  return rc ? 10 + gpublob_error_code(g) : 0;
}

/* An LLVM fatal error in this process (--no-isolate, or MLIR's translation) ends it: cleanly. */
static void on_llvm_fatal(const char *reason) {
  gpublob_process_cleanup();
  remove_pending();
  say(isolating ? "gpublob: error: LLVM fatal error in this process: "
                : "gpublob: error: LLVM fatal error (--isolate would have kept it out): ", reason);
  _exit(10 + GPUBLOB_BACKEND);
}

/* A compile allocates and frees tens of megabytes a job (LLVM's modules, nvJitLink's
** buffers).  glibc's defaults hand freed memory back to the kernel at once, and the
** next job faults every page in again: on a virtual machine a fault costs
** microseconds, and the 16 x 2 batch took 49,000 to 79,000 of them.  This short-lived
** process keeps what it frees instead (heap growth padded by 64 MiB, no trimming
** below 1 GiB): 10,800 faults, and 0.70 s instead of 1.03 to 1.30 s in-process
** (docs/benchmarks.md).  A host that links the library chooses its own malloc
** settings (docs/library.md). */
/* The front's GLIBC_TUNABLES (cli.h) was read by glibc as this process started:
** taken off, so that the tools this process runs see the user's environment. */
static void front_tunables_take(void) {
  if (!getenv(TUNABLES_ENV)) return;
  unsetenv("GLIBC_TUNABLES");
  unsetenv(TUNABLES_ENV);
}

static void malloc_keep_freed(void) {
  mallopt(M_TOP_PAD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
}

int main(int argc, char **argv) {
  cli c = {.opts = {.version = GPUBLOB_OPTIONS_VERSION, .flags = CLI_DEFAULT_FLAGS}};
  if (inspect_is_job(argc, argv)) {
    front_tunables_take();
    catch_signals();
    LLVMInstallFatalErrorHandler(on_llvm_fatal);
    int rc = inspect_main(argc, argv, disasm_entry);
    fflush(NULL);
    _exit(rc);
  }
  int rc = parse_args(&c, argc, argv);
  if (rc) return rc == 1 ? 0 : 2;
  if (c.toolchain_id) return print_toolchain_id(&c); /* as the front answers it */
  front_tunables_take();
  malloc_keep_freed();
  front_handoff = handoff_take(&c);
  isolating = (c.opts.flags & GPUBLOB_FLAG_ISOLATE) != 0;
  catch_signals();
  gpublob *g;
  if (gpublob_open(&g)) return fail("%s", "out of memory");
  LLVMInstallFatalErrorHandler(on_llvm_fatal);
  if (c.list_targets) {
    rc = list_targets(g, &c);
    gpublob_close(g);
    return rc;
  }
  gpublob_result r = {0};
  int mlir = 0;
  if (!(rc = compile_input(g, &c, &r, &mlir))) rc = write_results(g, &c, &r, mlir);
  /* Everything is written: skip LLVM's static destructors, and the wait for the
  ** isolation helper, which ends when this process closes its socket. */
  fflush(NULL);
  _exit(rc);
}

