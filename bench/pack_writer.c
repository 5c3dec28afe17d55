/* bench/pack_writer.c: the offload_bundle pack provider (src/pack_bundle.c) alone,
** timed: offload_bundle_run over N members with 4080-byte blobs (the size of a small
** hsaco), with amdgcn's spec options, 20,000 times.  bench/pack.sh builds and runs it:
**   cc -std=c11 -O2 -I. -Ibuild $(llvm-config-22 --cflags) bench/pack_writer.c -lxxhash
** It includes the parts it needs, as gpublob.c does. */
#include "src/internal.h"
#include "src/util.c"
#include "src/handle.c"
#include "src/pack_bundle.c"

enum { MAX_MEMBERS = 8, BLOB = 4080, ITERS = 20000 };

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 0;
  if (n < 1 || n > MAX_MEMBERS) return fprintf(stderr, "usage: pack_writer CHIPS (1 to %d)\n", MAX_MEMBERS), 2;
  static target_desc t = {.name = "amdgcn"};
  static gpublob g;
  static job jobs[MAX_MEMBERS];
  static unsigned char blobs[MAX_MEMBERS][BLOB];
  static char id_text[MAX_MEMBERS][64];
  job *members[MAX_MEMBERS];
  char *ids[MAX_MEMBERS];
  for (int i = 0; i < n; i++) {
    jobs[i] = (job){.g = &g, .t = &t, .out = {blobs[i], BLOB, NULL}};
    members[i] = &jobs[i];
    snprintf(id_text[i], sizeof id_text[i], "hipv4-amdgcn-amd-amdhsa--gfx90%c", 'a' + i);
    ids[i] = id_text[i];
  }
  char *opts[] = {"-bundle-align=4096", "-empty=host-x86_64-unknown-linux-gnu-"};
  double t0 = now_us();
  for (int k = 0; k < ITERS; k++) {
    gpublob_blob out;
    if (offload_bundle_run(members, (size_t)n, ids, opts, 2, &out)) return fprintf(stderr, "%s\n", sb_str(&g.msg)), 1;
    free(out.data);
  }
  printf("%d chips: %.2f us per bundle\n", n, (now_us() - t0) / ITERS);
  return 0;
}
