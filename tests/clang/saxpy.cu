/* saxpy with a libdevice call: y[i] = a * expf(x[i]) + y[i] */
#include "cuda_defs.h"

extern "C" __device__ float __nv_expf(float);

extern "C" __global__ void saxpy(float a, const float *x, float *y, int n) {
  int i = blockIdx_x * blockDim_x + threadIdx_x;
  if (i < n) y[i] = a * __nv_expf(x[i]) + y[i];
}
