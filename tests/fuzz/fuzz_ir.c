/* fuzz_ir: libFuzzer harness of the LLVM IR front, through gpublob.h alone.
** Each input (IR text or bitcode) is compiled to assembly (GPUBLOB_FORMAT_ASM:
** no blob tool runs) for each spec target in turn, hermetic, with the real
** device library directories, or for one input in four none (by its bytes, so a
** crash replays), cache off, one thread. */
#include "watchdog.h" /* first: it defines _GNU_SOURCE */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* These checks call the 1.0 calls too (gpublob_module_compile and the like), which
** stay supported: without their deprecation warnings. */
#define GPUBLOB_DISABLE_DEPRECATE_WARNINGS
#include "gpublob.h"

static const char libs[] = "/usr/local/cuda/nvvm/libdevice:/usr/lib/x86_64-linux-gnu/amdgcn/bitcode";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  watchdog_arm();
  static const char *const targets[] = {"nvptx", "amdgcn", "spirv"};
  unsigned sum = 0;
  for (size_t i = 0; i < size; i++) sum += data[i];
  gpublob *g;
  if (gpublob_open(&g)) abort();
  for (size_t t = 0; t < sizeof targets / sizeof *targets; t++) {
    gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION};
    o.target = targets[t];
    if (t == 1 && sum % 3 == 1) o.target = "amdgcn:gfx11-generic"; /* the module's ABI, code object v6 */
    if (t == 1 && sum % 3 == 2) o.target = "amdgcn:gfx942:sramecc-:xnack+";
    o.format = GPUBLOB_FORMAT_ASM;
    o.flags = GPUBLOB_FLAG_NO_DEFAULT_SEARCH;
    o.lib_dirs = sum % 4 == 3 ? NULL : libs;
    o.jobs = 1;
    o.cache_dir = NULL;
    gpublob_blob b;
    int rc = gpublob_module_compile(g, &o, data, size, "fuzz.ll", &b);
    if (getenv("FUZZ_VERBOSE")) /* what each input gives, when replaying one */
      fprintf(stderr, "%s%s: %s\n", targets[t], o.lib_dirs ? "" : " (no libs)",
              rc ? gpublob_error_message(g) : "ok");
    if (rc == GPUBLOB_OK) {
      if (!b.data || !b.size) abort(); /* an assembly output is never empty */
      gpublob_blob_free(&b);
    } else if (b.data || b.size || !*gpublob_error_message(g)) {
      abort(); /* on failure *out is zeroed, and there is a message */
    }
  }
  gpublob_close(g);
  return 0;
}
