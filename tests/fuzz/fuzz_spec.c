/* fuzz_spec: libFuzzer harness of the spec generator's parser and checks.
** gen/specgen.c is compiled with -DSPECGEN_LIBRARY and linked with the reader,
** the checks and the writer (gen/spec_read.c, gen/spec_check.c, gen/spec_write.c):
** an error returns from specgen_run (longjmp) instead of exiting, and
** specgen_reset frees the state.
** On a spec it accepts, the table must be C11 that means what the spec says: no
** trigraph, no byte outside printable ASCII but newlines. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int specgen_run(const char *path, const char *data, size_t size, const char *llvm_targets,
                FILE *table, FILE *components);
const char *specgen_error(void);
void specgen_reset(void);

static void check_table(const char *t, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)t[i];
    if ((c < 0x20 && c != '\n') || c >= 0x7f) {
      fprintf(stderr, "fuzz_spec: byte 0x%02x at %zu of the table\n", c, i);
      abort();
    }
    if (c == '?' && i + 2 < n && t[i + 1] == '?' && strchr("=(/)'<!>-", t[i + 2])) {
      fprintf(stderr, "fuzz_spec: trigraph ??%c at %zu of the table\n", t[i + 2], i);
      abort();
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char *const lists[] = {NULL, "NVPTX AMDGPU SPIRV"};
  for (int i = 0; i < 2; i++) {
    char *table = NULL, *comps = NULL;
    size_t tn = 0, cn = 0;
    FILE *t = open_memstream(&table, &tn), *c = open_memstream(&comps, &cn);
    if (!t || !c) abort();
    int rc = specgen_run("fuzz.spec", (const char *)data, size, lists[i], t, c);
    fclose(t);
    fclose(c);
    if (rc == 0) check_table(table, tn);
    else if (!*specgen_error()) abort(); /* an error always has its message */
    specgen_reset();
    free(table);
    free(comps);
    if (rc) break;
  }
  return 0;
}
