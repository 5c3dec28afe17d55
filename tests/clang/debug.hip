/* Compiled with -g: debug.cu's HIP twin, a kernel carrying DWARF debug information. */
#include "hip_defs.h"

static __device__ int clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

extern "C" __global__ void scale_clamped(int *data, int factor, int n) {
  int i = blockIdx_x * 256 + threadIdx_x;
  if (i < n) data[i] = clamp(data[i] * factor, -1000, 1000);
}
