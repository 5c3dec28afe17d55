/* fuzz_inspect: libFuzzer harness of gpublob_inspect's readers (src/inspect.c: the
** spec's magic, packs, bin blobs' chip and tool, PTX text, MLIR text's #gpu.objects;
** and the kernel readers under them), in the LLVM-free cache front (src/front.c is
** #included, as fuzz_kernels does).  Input: any bytes, inspected as a file; then
** gpublob_kernel_count and gpublob_kernel_get of every entry's kernels.  Any code
** but OK, FORMAT, TOOL and PARSE, an entry without its strings, or a kernel whose
** strings are missing, aborts.  The seeds (tests/fuzz/corpus/inspect) are an hsaco,
** a bundle, a cubin, a fatbin, SPIR-V, PTX, an MLIR module's objects and an
** OffloadBinary file (SPIR-V, then an sm_80 cubin and its PTX), made by gpublob
** from examples/.  The same bytes are also read as an MLIR text whose target
** attributes a remote lookup guesses its jobs from (inspect_mlir_targets): every
** guess a spec target, its chip's string ended. */
#include "src/front.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  unsigned char *file = malloc(size ? size : 1); /* its own allocation: ASan sees a read past it */
  if (!file) return 0;
  memcpy(file, data, size);
  gpublob_input in = {GPUBLOB_INPUT_AUTO, file, size, NULL, "fuzz"};
  gpublob_result r;
  gpublob *g;
  if (gpublob_open(&g)) abort();
  int rc = gpublob_inspect(g, &in, &r);
  if (rc != GPUBLOB_OK && rc != GPUBLOB_FORMAT && rc != GPUBLOB_TOOL && rc != GPUBLOB_PARSE) abort();
  for (size_t i = 0; rc == GPUBLOB_OK && i < r.count; i++) {
    const gpublob_output *o = &r.outputs[i];
    if (!o->target || !o->chip || !o->tool || !o->blob.suffix || !o->blob.data) abort();
    size_t n = 0;
    int krc = gpublob_kernel_count(g, &r, i, &n);
    if (krc != GPUBLOB_OK && krc != GPUBLOB_FORMAT && krc != GPUBLOB_TOOL) abort();
    for (size_t k = 0; krc == GPUBLOB_OK && k < n; k++) {
      gpublob_kernel_info ki;
      if (gpublob_kernel_get(g, &r, i, k, &ki, sizeof ki) || !ki.name || !ki.chip) abort();
    }
  }
  inspect_target guessed[16];
  size_t nguessed = inspect_mlir_targets((const char *)file, size, guessed, 16);
  for (size_t i = 0; i < nguessed; i++)
    if (nguessed > 16 || !guessed[i].t || !memchr(guessed[i].chip, 0, sizeof guessed[i].chip)) abort();
  gpublob_result_free(&r);
  gpublob_close(g);
  free(file);
  return 0;
}
