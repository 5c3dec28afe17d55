/* Two kernels, one with a barrier and one without, and a device function ptxas keeps
** apart (noinline): each kernel's report (ptxas -v's, nvJitLink's info log) is its own. */
#include "cuda_defs.h"

__device__ __attribute__((noinline)) float triple(float x) { return 3.0f * x; }

extern "C" __global__ void with_barrier(float *data) {
  __shared__ float s[64];
  int t = threadIdx_x;
  s[t] = data[t];
  __syncthreads();
  data[t] = triple(s[63 - t]);
}

extern "C" __global__ void without_barrier(float *data) {
  int t = threadIdx_x;
  data[t] = triple(data[t]) + 1.0f;
}
