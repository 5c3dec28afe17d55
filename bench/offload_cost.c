/* bench/offload_cost.c: what writing -f offload's container (src/offload.c's
** offload_wrap) costs, alone: the blobs given (the bin outputs of a call, written by
** gpublob -f bin) made a result, then wrapped into one container, 20,000 times; the
** median of 9 rounds, in microseconds a container.  Compare it with the call's own
** time (gpublob-compiler --no-cache --time) to get the share writing the container
** adds.  It includes the LLVM-free core, as the fuzz harnesses do:
**   cc -std=c11 -O2 -I. -Ibuild $(llvm-config-22 --cflags) bench/offload_cost.c -l:libhiredis.a -l:libxxhash.a -lpthread
**   build/offload_cost amdgcn gfx90a a.hsaco gfx942:xnack+ b.hsaco */
#include "src/front.c"

enum { ITERS = 20000, ROUNDS = 9, MAX_BLOBS = 16 };

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc < 4 || argc % 2 || (argc - 2) / 2 > MAX_BLOBS)
    return fprintf(stderr, "usage: offload_cost TARGET CHIP BLOB [CHIP BLOB]...\n"), 2;
  const target_desc *t = resolve_target_named(argv[1], strlen(argv[1]));
  size_t n = (size_t)(argc - 2) / 2, sizes[MAX_BLOBS];
  unsigned char *data[MAX_BLOBS];
  for (size_t i = 0; i < n; i++) {
    int fd = open(argv[3 + 2 * i], O_RDONLY | O_CLOEXEC);
    if (!t || fd < 0 || io_read_fd(fd, &data[i], &sizes[i], (size_t)1 << 30))
      return fprintf(stderr, "offload_cost: cannot read %s\n", argv[3 + 2 * i]), 1;
    close(fd);
  }
  gpublob *g;
  if (gpublob_open(&g)) return 1;
  double round_us[ROUNDS];
  size_t total = 0;
  for (int round = 0; round < ROUNDS; round++) {
    double t0 = now_us();
    for (int it = 0; it < ITERS; it++) {
      gpublob_result r = {0};
      for (size_t i = 0; i < n; i++) {
        gpublob_blob b = {malloc(sizes[i] + 1), sizes[i], t->suffix_bin};
        memcpy(b.data, data[i], sizes[i]);
        if (cache_lookup_result_add(&r, t->name, argv[2 + 2 * i], "", "", 0, &b)) return 1;
      }
      if (offload_wrap(g, &r, NULL)) return fprintf(stderr, "offload_cost: %s\n", gpublob_error_message(g)), 1;
      total = r.outputs[0].blob.size;
      gpublob_result_free(&r);
    }
    round_us[round] = (now_us() - t0) / ITERS;
  }
  qsort(round_us, ROUNDS, sizeof *round_us, by_value);
  printf("offload_cost: %zu blobs, a %zu-byte container: %.2f us a container (median of %d rounds of %d; "
         "the blobs' copies included)\n", n, total, round_us[ROUNDS / 2], ROUNDS, ITERS);
  gpublob_close(g);
  return 0;
}
