/* programs/process.c: what both programs do around a call.  Signals: no output
** and no temporary file is left, and the exit is below 128 (a crash is BACKEND, an
** interruption INTERRUPTED).  The input, read whole, then MLIR or LLVM IR by
** content (gpublob_input_detect).  --time's lines.  --toolchain-id's answer, the
** same from both (the front's is its own, without the compiler). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "programs/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stderr_fd = 2; /* where say() writes: stderr, also while a call's is caught */
static volatile sig_atomic_t stray_fd = -1; /* the memory file catching the call's stderr, or -1 */

/* The call's stderr caught in file (-1: no more), the real one now at saved. */
void stray_watch(int file, int saved) {
  stderr_fd = saved;
  stray_fd = file;
}

/* What the call wrote to its caught stderr, copied to the real one: a crash's or a
** fatal error's last words.  System calls only (a signal handler calls it). */
static void stray_flush(void) {
  int from = stray_fd;
  char buf[4096];
  ssize_t n;
  if (from < 0 || lseek(from, 0, SEEK_SET) < 0) return;
  while ((n = read(from, buf, sizeof buf)) > 0)
    if (write(stderr_fd, buf, (size_t)n) < 0) break;
}

void say(const char *a, const char *b) {
  int fd = stderr_fd;
  if (write(fd, a, strlen(a)) < 0 || write(fd, b, strlen(b)) < 0 || write(fd, "\n", 1) < 0) {}
  stray_flush();
}

static const char *signal_name(int sig) {
  switch (sig) {
  case SIGINT: return "SIGINT";
  case SIGTERM: return "SIGTERM";
  case SIGHUP: return "SIGHUP";
  case SIGSEGV: return "SIGSEGV";
  case SIGBUS: return "SIGBUS";
  case SIGILL: return "SIGILL";
  case SIGFPE: return "SIGFPE";
  case SIGABRT: return "SIGABRT";
  default: return "a signal";
  }
}

volatile sig_atomic_t isolating; /* for the crash message */

/* Every tool and helper gone, every temporary removed, then out. */
static void on_signal(int sig) {
  gpublob_process_cleanup();
  remove_pending();
  int crash = sig != SIGINT && sig != SIGTERM && sig != SIGHUP;
  say(!crash ? "gpublob: error: interrupted by "
      : isolating ? "gpublob: error: crashed in this process (MLIR's parsing, lowering and translation "
                    "are not isolated): "
                  : "gpublob: error: LLVM crashed in this process (--isolate would have kept it out): ",
      signal_name(sig));
  _exit(10 + (crash ? GPUBLOB_BACKEND : GPUBLOB_INTERRUPTED));
}

void catch_signals(void) {
  static char alt[65536]; /* a stack overflow's SIGSEGV needs a stack of its own */
  stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt};
  sigaltstack(&ss, NULL);
  struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_ONSTACK};
  sigfillset(&sa.sa_mask);
  const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
  for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) sigaction(sigs[i], &sa, NULL);
  signal(SIGXFSZ, SIG_IGN); /* a file size limit: a write fails with EFBIG, an IO error */
  signal(SIGPIPE, SIG_IGN); /* a reader of -o - that quit: EPIPE, an IO error, not exit 141 */
}

/* ---- input: read whole, then MLIR or LLVM IR by suffix, magic or first word ---- */
/* Reads to EOF or one byte past max: the library refuses an input over the limit
** (--max-input) with its own message, and an endless one (/dev/zero) ends. */
static int read_all_fd(int fd, unsigned char **data, size_t *size, unsigned long long max) {
  size_t cap = 1 << 16, n = 0;
  unsigned char *p = malloc(cap);
  for (ssize_t r = 1; p && r && n <= max;) {
    if (n == cap) {
      unsigned char *grown = realloc(p, cap *= 2);
      if (!grown) free(p);
      if (!(p = grown)) break;
    }
    size_t room = cap - n, left = (size_t)(max + 1 - n); /* never more than one byte past max */
    r = read(fd, p + n, room < left ? room : left);
    if (r < 0 && errno != EINTR) {
      free(p);
      return -1;
    }
    if (r > 0) n += (size_t)r;
  }
  if (!p) return -1;
  *data = p;
  *size = n;
  return 0;
}

int read_input(const cli *c, unsigned char **data, size_t *size) { return read_input_path(c, c->input, data, size); }

/* One of several inputs (-: stdin), within --max-input. */
int read_input_path(const cli *c, const char *path, unsigned char **data, size_t *size) {
  int is_stdin = !strcmp(path, "-"), fd = is_stdin ? 0 : open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  int rc = read_all_fd(fd, data, size, c->opts.max_input ? c->opts.max_input : 1ULL << 30);
  int err = errno;
  if (!is_stdin) close(fd);
  errno = err;
  return rc;
}

/* As the library's AUTO takes it: by content, then by name. */
int is_mlir(const char *path, const unsigned char *p, size_t n) {
  return gpublob_input_detect(p, n, path) == GPUBLOB_INPUT_MLIR;
}

void print_time(gpublob *g, const char *who, int remote) {
  gpublob_stats s;
  gpublob_stats_get(g, &s, sizeof s);
  double phases = s.load_ms + s.link_ms + s.optimise_ms + s.emit_ms + s.tool_ms;
  fprintf(stderr,
          "gpublob: time (%s): %zu jobs on %zu threads; cache %zu hits, %zu misses, %zu stored; "
          "wall %.2f ms; load %.2f, link %.2f, optimise %.2f, emit %.2f, tool %.2f, cache %.2f ms "
          "(phases sum %.2f ms); provider load %.2f ms, tool CPU %.2f ms\n",
          who, s.jobs, s.threads, s.cache_hits, s.cache_misses, s.cache_writes, s.wall_ms, s.load_ms,
          s.link_ms, s.optimise_ms, s.emit_ms, s.tool_ms, s.cache_ms, phases, s.provider_load_ms, s.tool_cpu_ms);
  if (remote)
    fprintf(stderr,
            "gpublob: time (%s): remote cache %zu hits, %zu misses, %zu stored, %llu bytes read, "
            "%llu written, %.2f ms%s\n",
            who, s.remote_hits, s.remote_misses, s.remote_stores, s.remote_bytes_read, s.remote_bytes_written,
            s.remote_ms, s.remote_errors ? " (off after a fault)" : "");
}

/* The handle's warnings on stderr, a line each. */
void print_warnings(const gpublob *g) {
  for (const char *w = gpublob_warnings(g); *w;) {
    size_t n = strcspn(w, "\n");
    fprintf(stderr, "gpublob: warning: %.*s\n", (int)n, w);
    w += n + (w[n] == '\n');
  }
}

/* --toolchain-id: the identity of the flags on stdout, exit 0; an error as a call's
** (exit 10 + its code).  The handle's warnings (a cache directory that cannot be
** written) follow on stderr. */
int print_toolchain_id(const cli *c) {
  gpublob *g;
  char hex[GPUBLOB_TOOLCHAIN_ID_SIZE];
  if (gpublob_open(&g)) return fail("%s", "out of memory");
  int rc = gpublob_toolchain_id(g, &c->opts, hex, sizeof hex);
  if (rc) fprintf(stderr, "gpublob: error: %s\n", gpublob_error_message(g));
  else printf("%s\n", hex);
  print_warnings(g);
  gpublob_close(g);
  if (fflush(stdout)) return fail("%s", "cannot write the identity to stdout");
  return rc ? 10 + rc : 0;
}
