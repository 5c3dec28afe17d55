/* cuda_defs.h: the little of CUDA's headers these kernels use, from clang's own
** builtins and attributes (compiled with -nocudainc -nocudalib). */
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define threadIdx_x __nvvm_read_ptx_sreg_tid_x()
#define blockIdx_x __nvvm_read_ptx_sreg_ctaid_x()
#define blockDim_x __nvvm_read_ptx_sreg_ntid_x()
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
