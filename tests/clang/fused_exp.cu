/* fused_exp.cu: a*b + expf(x), as llm.c's softmax has it.  clang's CUDA
** (-ffp-contract=fast: the target machine's AllowFPOpFusion = Fast) fuses a*b into the
** add; gpublob --as clang's cubin must be clang's.  (In llm.c's kernels a contract flag
** on every operation, gpublob's --fp-contract fast before 1.5, fused expf's last
** multiply instead; this small kernel compiles alike either way.) */
#include "cuda_defs.h"

extern "C" __device__ float __nv_expf(float);

extern "C" __global__ void fused_exp(float *out, const float *a, const float *b, const float *x, float m) {
  int i = blockIdx_x * blockDim_x + threadIdx_x;
  out[i] = a[i] * b[i] + __nv_expf(x[i] - m);
}
