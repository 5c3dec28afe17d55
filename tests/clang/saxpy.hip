/* saxpy with an ocml call: y[i] = a * expf(x[i]) + y[i] */
#include "hip_defs.h"

extern "C" __device__ float __ocml_exp_f32(float);

extern "C" __global__ void saxpy(float a, const float *x, float *y, int n) {
  int i = blockIdx_x * 256 + threadIdx_x;
  if (i < n) y[i] = a * __ocml_exp_f32(x[i]) + y[i];
}
