/* struct_copy.cu: a record copied through local memory and a local array zeroed store
** by store, as llm.c's layernorm_backward has them.  clang's CUDA passes -mllvm
** -enable-memcpyopt-without-libcalls, so memcpyopt merges the stores into a memset
** (NVPTX has no memset to call, and expands it): without the option the PTX orders
** its st.local otherwise. */
#include "cuda_defs.h"

struct rec {
  float v[6];
  int n;
  char tag[3];
};

extern "C" __global__ void struct_copy(float *out, const float *in, rec *recs, int n, int pick) {
  int i = blockIdx_x * blockDim_x + threadIdx_x;
  float buf[16];
  for (int k = 0; k < 16; k++) buf[k] = 0.0f;
  for (int k = 0; k < n && k < 16; k++) buf[(k * pick) & 15] += in[i * 16 + k];
  rec r[2];
  r[0] = recs[i];
  r[1] = recs[i + 1];
  rec t = r[pick & 1];
  for (int k = 0; k < 6; k++) t.v[k] *= buf[k];
  t.tag[0] = t.tag[1] = t.tag[2] = 0;
  recs[i + 2] = t;
  out[i] = buf[pick & 15];
}
