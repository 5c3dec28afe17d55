/* bench/warm_call.c: the library's warm call, as a JIT makes it: one process
** (linked with -lgpublob) compiles FILE for TARGET N times on one handle, no cache,
** one job; prints the median call (timed around gpublob_compile) and the median of
** LLVM's own optimise + emit for it (gpublob_stats_get), and their ratio, after
** WARM unmeasured calls.  Usage: warm_call FILE TARGET N [TOOL_MODE(0 auto,1 program)] */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpublob.h"

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, by_value);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv) {
  if (argc < 4) return 2;
  int n = atoi(argv[3]), warm = 5;
  if (n < 1) return 2;
  gpublob *g;
  if (gpublob_open(&g)) return 1;
  gpublob_options o = GPUBLOB_OPTIONS_INIT;
  o.target = argv[2];
  o.jobs = 1;
  o.tool_mode = argc > 4 ? atoi(argv[4]) : GPUBLOB_TOOL_AUTO;
  gpublob_input in = {GPUBLOB_INPUT_AUTO, NULL, 0, argv[1], NULL};
  double *call = calloc((size_t)n, sizeof *call), *llvm = calloc((size_t)n, sizeof *llvm), *tool = calloc((size_t)n, sizeof *tool);
  const char *by = "";
  for (int i = -warm; i < n; i++) {
    gpublob_result r;
    double t0 = now_ms();
    int rc = gpublob_compile(g, &o, &in, &r);
    double ms = now_ms() - t0;
    if (rc) {
      fprintf(stderr, "warm_call: %s\n", gpublob_error_message(g));
      return 1;
    }
    gpublob_stats s;
    gpublob_stats_get(g, &s, sizeof s);
    if (i >= 0) {
      call[i] = ms;
      llvm[i] = s.optimise_ms + s.emit_ms;
      tool[i] = s.tool_ms;
    }
    by = r.outputs[0].tool[0] == 'l' && r.outputs[0].tool[1] == 'l' ? "lld (in-process)" : "ld.lld (program)";
    gpublob_result_free(&r);
  }
  double c = median(call, n), l = median(llvm, n), t = median(tool, n);
  printf("{\"case\": \"warm call %s %s\", \"tool\": \"%s\", \"calls\": %d, \"call_ms\": %.2f, "
         "\"optimise_emit_ms\": %.2f, \"tool_ms\": %.2f, \"ratio\": %.2f}\n",
         argv[1], argv[2], by, n, c, l, t, c / l);
  gpublob_close(g);
  return 0;
}
