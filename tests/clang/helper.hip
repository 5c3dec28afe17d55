/* helper.hip: a kernel that calls a noinline __device__ function, beside one no kernel
** calls and a weak one: clang's HIP internalises them (-amdgpu-internalize-symbols). */
#include "hip_defs.h"
__device__ __attribute__((noinline)) float twice(float x) { return 2.0f * x; }
__device__ float unused_helper(float x) { return x * x; }
__device__ __attribute__((weak)) float weak_helper(float x) { return x + 1.0f; }
extern "C" __global__ void use_helper(float *p) { p[threadIdx_x] = twice(p[threadIdx_x]); }
