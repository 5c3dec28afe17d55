/* fuzz_mlir: libFuzzer harness of the MLIR front, through gpublob.h alone.
** Each input (MLIR text or bytecode) is compiled with its gpu.modules' own
** target attributes (no options' targets) to assembly (GPUBLOB_FORMAT_ASM: no
** blob tool runs), hermetic with the real device library directories, cache
** off, one thread. */
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
  gpublob *g;
  if (gpublob_open(&g)) abort();
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION};
  o.format = GPUBLOB_FORMAT_ASM;
  o.flags = GPUBLOB_FLAG_NO_DEFAULT_SEARCH;
  o.lib_dirs = libs;
  o.jobs = 1;
  o.cache_dir = NULL;
  gpublob_blob b;
  int rc = gpublob_mlir_compile(g, &o, data, size, "fuzz.mlir", &b);
  if (getenv("FUZZ_VERBOSE")) /* what each input gives, when replaying one */
    fprintf(stderr, "%s\n", rc ? gpublob_error_message(g) : "ok");
  if (rc == GPUBLOB_OK) {
    if (!b.data || !b.size) abort(); /* the module comes back whole */
    gpublob_blob_free(&b);
  } else if (b.data || b.size || !*gpublob_error_message(g)) {
    abort(); /* on failure *out is zeroed, and there is a message */
  }
  gpublob_close(g);
  return 0;
}
