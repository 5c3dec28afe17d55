/* hip_defs.h: the little of HIP's headers these kernels use, from clang's own
** builtins and attributes (compiled with -nogpuinc -nogpulib). */
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define threadIdx_x __builtin_amdgcn_workitem_id_x()
#define blockIdx_x __builtin_amdgcn_workgroup_id_x()
#define __syncthreads() __builtin_amdgcn_s_barrier()
#define __launch_bounds__(n) __attribute__((amdgpu_flat_work_group_size(1, n)))
