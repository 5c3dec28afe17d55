/* A module that defines its own sinf keeps it: gpublob renames only what is undefined.
** (expf, undefined, still becomes ocml's __ocml_exp_f32.) */
#include "hip_defs.h"

extern "C" __device__ float expf(float);

extern "C" __device__ __attribute__((noinline)) float sinf(float x) { return x * 0.25f + 7.0f; }

extern "C" __global__ void own_sinf(float *x) {
  int i = threadIdx_x;
  x[i] = sinf(x[i]) + expf(x[i + 1]);
}
