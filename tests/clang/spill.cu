/* Many live values under __launch_bounds__(1024, 2): ptxas is held to 32 registers
** a thread and spills to local memory; the indexed array lives on the stack. */
#include "cuda_defs.h"

extern "C" __global__ void __launch_bounds__(1024, 2) spill_mix(const float *in, float *out, int n, int k) {
  float v[48], loc[64];
  int i = blockIdx_x * blockDim_x + threadIdx_x;
  for (int j = 0; j < 48; j++) v[j] = in[(i + j * 977) % n];
  for (int j = 0; j < 64; j++) loc[j] = in[(i * 3 + j) % n];
  float acc = 0.0f;
#pragma unroll
  for (int r = 0; r < 4; r++)
#pragma unroll
    for (int j = 0; j < 48; j++) acc += v[j] * v[(j * 7 + r) % 48] + loc[(j + r + k) & 63];
#pragma unroll
  for (int j = 0; j < 48; j++) out[i * 48 + j] = v[j] * acc;
}
