/* fused_exp.cu: a*b + expf(x), as llm.c's softmax has it.  clang's CUDA
** (-ffp-contract=fast: the target machine's AllowFPOpFusion = Fast) fuses a*b into the
** add; a contract flag on every operation fused expf's last multiply instead. */
#include "cuda_defs.h"

extern "C" __device__ float __nv_expf(float);

extern "C" __global__ void fused_exp(float *out, const float *a, const float *b, const float *x, float m) {
  int i = blockIdx_x * blockDim_x + threadIdx_x;
  out[i] = a[i] * b[i] + __nv_expf(x[i] - m);
}
