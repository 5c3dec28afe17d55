/* vprintf, which the CUDA driver provides: a cubin may leave it undefined (the spec's
** undefined_ok), beside sqrtf, which libdevice gives. */
#include "cuda_defs.h"

extern "C" __device__ int vprintf(const char *, void *);
extern "C" __device__ float sqrtf(float);

extern "C" __global__ void print_sqrt(float *x) {
  float v = sqrtf(x[threadIdx_x]);
  vprintf("%f\n", &v);
  x[threadIdx_x] = v;
}
