/* What no device library defines: foof, nobody's, and lroundf, C's, which ocml lacks
** (__ocml_lround_f32).  A blob for amdgcn may leave nothing undefined: LINK, by name. */
#include "hip_defs.h"

extern "C" __device__ float foof(float);
extern "C" __device__ long lroundf(float);

extern "C" __global__ void unknown(float *x, long *y) {
  int i = threadIdx_x;
  x[i] = foof(x[i]);
  y[i] = lroundf(x[i + 1]);
}
