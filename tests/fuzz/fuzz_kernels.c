/* fuzz_kernels: libFuzzer harness of the kernel metadata readers (src/msgpack.c,
** kernels.c, meta_amdgpu.c, meta_nvinfo.c, meta_pack.c), in the LLVM-free cache
** front (src/front.c is #included, as fuzz_cache does).  Input: MODE BLOB, where
** MODE % 4 says what BLOB is taken for: 0 an nvptx cubin, 1 an amdgcn code object,
** 2 an nvptx fatbin, 3 an amdgcn offload bundle.  gpublob_kernel_count, then
** gpublob_kernel_get of every kernel and gpublob_param_get of each of its parameters
** (AMD's .args, NVIDIA's KPARAM_INFO); any code but OK and TOOL, a kernel or parameter
** whose strings are missing, or a parameter with a negative offset or size, aborts.  The seeds (tests/fuzz/corpus/kernels) are a real
** cubin, hsaco, fatbin and bundle of tests/clang/reduce.* made by gpublob. */
#include "src/front.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const struct { const char *target, *chip, *suffix; } as[] = {
      {"nvptx", "sm_90", ".cubin"}, {"amdgcn", "gfx90a", ".hsaco"},
      {"nvptx", "sm_75,sm_90", ".fatbin"}, {"amdgcn", "gfx90a,gfx1100", ".hipfb"}};
  if (!size) return 0;
  int mode = data[0] % 4;
  unsigned char *blob = malloc(size); /* its own allocation: ASan sees a read past it */
  if (!blob) return 0;
  memcpy(blob, data + 1, size - 1);
  gpublob_output o = {{blob, size - 1, as[mode].suffix}, as[mode].target, as[mode].chip, ""};
  gpublob_result r = {&o, 1};
  gpublob *g;
  if (gpublob_open(&g)) abort();
  size_t n = 0;
  int rc = gpublob_kernel_count(g, &r, 0, &n);
  if (rc != GPUBLOB_OK && rc != GPUBLOB_TOOL) abort();
  for (size_t k = 0; rc == GPUBLOB_OK && k < n; k++) {
    gpublob_kernel_info ki;
    if (gpublob_kernel_get(g, &r, 0, k, &ki, sizeof ki) || !ki.name || !ki.chip) abort();
    size_t np = 0;
    if (gpublob_param_count(g, &r, 0, k, &np)) abort();
    for (size_t p = 0; p < np; p++) {
      gpublob_param_info pi;
      if (gpublob_param_get(g, &r, 0, k, p, &pi, sizeof pi) || !pi.kind || !pi.address_space || !pi.name ||
          pi.offset < 0 || pi.size < 0)
        abort();
    }
  }
  gpublob_close(g);
  free(blob);
  return 0;
}
