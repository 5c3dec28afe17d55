/* dynshared.hip: dynamic shared memory (extern __shared__, an external addrspace(3)
** array the launch sizes) and calls into ocml and ockl, compiled as clang compiles HIP
** by default: the device libraries linked in by clang, their __oclc_* constants internal. */
#include "hip_defs.h"
extern "C" __device__ float __ocml_sin_f32(float);
extern "C" __device__ unsigned long __ockl_get_local_size(unsigned);
extern __shared__ float dyn[];
extern "C" __global__ void dynshared(const float *in, float *out, int n) {
  int t = threadIdx_x;
  dyn[t] = in[t];
  __syncthreads();
  out[t] = __ocml_sin_f32(dyn[(t + 1) % n]) + (float)__ockl_get_local_size(0);
}
