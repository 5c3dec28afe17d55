/* fuzz_offload: libFuzzer harness of the OffloadBinary reader (src/offload.c), and
** through it the bin readers of its entries' targets (meta_nvinfo.c, meta_amdgpu.c),
** in the LLVM-free cache front (src/front.c is #included, as fuzz_kernels does).
** Input: the blob, read as an output of -f offload.  gpublob_kernel_count, then
** gpublob_kernel_get of every kernel; any code but OK and TOOL, or a kernel whose
** strings are missing, aborts.  The seeds (tests/fuzz/corpus/offload) are
** containers gpublob wrote: nvptx sm_80 and sm_90 cubins, amdgcn gfx90a and
** gfx942:xnack+ code objects. */
#include "src/front.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  unsigned char *blob = malloc(size + 1); /* its own allocation: ASan sees a read past it */
  if (!blob) return 0;
  if (size) memcpy(blob, data, size);
  gpublob_output o = {{blob, size, ".offload"}, "nvptx,amdgcn", "sm_80,gfx90a", ""};
  gpublob_result r = {&o, 1};
  gpublob *g;
  if (gpublob_open(&g)) abort();
  size_t n = 0;
  int rc = gpublob_kernel_count(g, &r, 0, &n);
  if (rc != GPUBLOB_OK && rc != GPUBLOB_TOOL && rc != GPUBLOB_FORMAT) abort();
  for (size_t k = 0; rc == GPUBLOB_OK && k < n; k++) {
    gpublob_kernel_info ki;
    if (gpublob_kernel_get(g, &r, 0, k, &ki, sizeof ki) || !ki.name || !ki.chip) abort();
  }
  gpublob_close(g);
  free(blob);
  return 0;
}
