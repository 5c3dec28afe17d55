/* fma.cu: multiplies feeding adds, as BlackScholes' are: clang's CUDA fuses them
** (-ffp-contract=fast), and so does gpublob with --fp-contract fast. */
#include "cuda_defs.h"
extern "C" __global__ void bs(float *out, const float *a, const float *b, const float *c, int n) {
  int i = threadIdx_x;
  float x = a[i] * b[i] + c[i];
  float y = x * x - a[i] * c[i];
  out[i] = y * 0.5f + x * b[i];
}
