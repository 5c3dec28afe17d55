/* params: kernels whose parameters are of mixed sizes and alignments, for
** tests/test_params.c: a char, a double, a 12-byte struct, a pointer and a
** __grid_constant__ struct; the offsets and sizes gpublob reads from the cubin's
** .nv.info (EIATTR_KPARAM_INFO) are checked against the PTX's .param lines. */
#include "cuda_defs.h"

#define __grid_constant__ __attribute__((grid_constant))

struct three { int a, b, c; };              /* 12 bytes, 4-aligned */
struct big { double d[3]; char tag; };      /* 32 bytes, 8-aligned */

extern "C" __global__ void mixed(char c, double d, three t, float *out, const __grid_constant__ big g) {
  int i = blockIdx_x * blockDim_x + threadIdx_x;
  out[i] = (float)c + (float)d + (float)(t.a + t.b + t.c) + (float)g.d[i & 1] + (float)g.tag;
}

extern "C" __global__ void none(void) {}

extern "C" __global__ void shorts(short s, char c, long long l, float *out) {
  out[threadIdx_x] = (float)s + (float)c + (float)l;
}
