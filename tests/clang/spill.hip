/* Many live values held to 24 VGPRs (amdgpu_num_vgpr): the register allocator
** spills; the indexed array lives in the private segment (scratch). */
#include "hip_defs.h"

extern "C" __global__ __attribute__((amdgpu_num_vgpr(24))) void spill_mix(const float *in, float *out, int n, int k) {
  float v[48], loc[64];
  int i = blockIdx_x * 256 + threadIdx_x;
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
