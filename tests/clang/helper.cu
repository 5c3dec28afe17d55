/* helper.cu: a kernel that calls a noinline __device__ function, beside one no kernel
** calls: clang keeps both (internalize = no), in -S as in the cubin. */
#include "cuda_defs.h"
__device__ __attribute__((noinline)) float twice(float x) { return 2.0f * x; }
__device__ float unused_helper(float x) { return x * x; }
extern "C" __global__ void use_helper(float *p) { p[threadIdx_x] = twice(p[threadIdx_x]); }
