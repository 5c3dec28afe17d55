/* C math by plain names, as HIP code without HIP's headers calls it (-nogpulib):
** clang leaves sinf, expf, pow and sqrt undefined (libm), and turns the builtins into
** llvm.exp.f32, llvm.sin.f32, llvm.pow.f64 and llvm.log.f64 (libm_builtin), which AMDGPU
** cannot select in f64.  gpublob calls ocml's __ocml_sin_f32, __ocml_pow_f64, ... for both. */
#include "hip_defs.h"

extern "C" __device__ float sinf(float);
extern "C" __device__ float expf(float);
extern "C" __device__ double pow(double, double);
extern "C" __device__ double sqrt(double);

extern "C" __global__ void libm(float *x, double *y) {
  int i = blockIdx_x * 256 + threadIdx_x;
  x[i] = sinf(x[i]) + expf(x[i + 1]);
  y[i] = pow(y[i], y[i + 1]) + sqrt(y[i + 2]);
}

extern "C" __global__ void libm_builtin(float *x, double *y) {
  int i = blockIdx_x * 256 + threadIdx_x;
  x[i] = __builtin_expf(x[i]) + __builtin_sinf(x[i + 1]);
  y[i] = __builtin_pow(y[i], y[i + 1]) + __builtin_log(y[i + 2]);
}
