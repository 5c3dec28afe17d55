/* Kernels with the work-group size they need: __launch_bounds__ and
** amdgpu_flat_work_group_size (.max_flat_workgroup_size). */
#include "hip_defs.h"

extern "C" __global__ void __launch_bounds__(128) bounded_scale(float *x, float a) {
  int i = blockIdx_x * 128 + threadIdx_x;
  x[i] *= a;
}

extern "C" __global__ __attribute__((amdgpu_flat_work_group_size(64, 256))) void flat_scale(float *x, float a) {
  int i = blockIdx_x * 256 + threadIdx_x;
  x[i] *= a;
}
