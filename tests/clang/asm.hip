/* Inline assembly in a kernel, as HIP code (and ockl's printf) has it. */
#include "hip_defs.h"

extern "C" __global__ void with_asm(int *out) {
  asm volatile("s_nop 0");
  out[threadIdx_x] = 1;
}
