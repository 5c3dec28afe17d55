/* A block-wide sum in LDS, one atomic add per block. */
#include "hip_defs.h"

extern "C" __global__ void reduce_sum(const float *in, float *out, int n) {
  __shared__ float part[256];
  int t = threadIdx_x;
  int i = blockIdx_x * 256 + t;
  part[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = 128; s > 0; s >>= 1) {
    if (t < s) part[t] += part[t + s];
    __syncthreads();
  }
  if (t == 0) __atomic_fetch_add(out, part[0], __ATOMIC_RELAXED);
}
