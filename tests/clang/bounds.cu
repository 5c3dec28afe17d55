/* A kernel with the block size it needs: __launch_bounds__ (maxntid) and a
** required block size (reqntid, from cluster-free __attribute__ on the IR side). */
#include "cuda_defs.h"

extern "C" __global__ void __launch_bounds__(128) bounded_scale(float *x, float a) {
  int i = blockIdx_x * blockDim_x + threadIdx_x;
  x[i] *= a;
}
