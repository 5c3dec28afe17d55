/* frexpf as C declares it, with a generic int *: ocml's __ocml_frexp_f32 takes a
** private (addrspace 5) pointer, so it cannot stand in for this declaration. */
#include "hip_defs.h"

extern "C" __device__ float frexpf(float, int *);

extern "C" __global__ void frexp_generic(float *x, int *e) {
  int i = threadIdx_x;
  x[i] = frexpf(x[i], &e[i]);
}
