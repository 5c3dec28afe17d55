/* OpenCL C calling C's math functions by their plain names, compiled for amdgcn and
** nvptx without a device library (-nogpulib), and for spirv64: sinf, expf, pow and
** sqrt stay undefined in the IR.  The work-item index comes from the target's own
** builtin; with -DGET_GLOBAL_ID from OpenCL's get_global_id, which without the
** vendor's OpenCL library is an undefined _Z13get_global_idj. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

float sinf(float);
float expf(float);
double pow(double, double);
double sqrt(double);

#if defined(GET_GLOBAL_ID) || defined(__SPIRV__) || defined(__SPIR__)
#define INDEX ((int)get_global_id(0))
#elif defined(__AMDGCN__)
#define INDEX ((int)__builtin_amdgcn_workitem_id_x())
#else
#define INDEX ((int)__nvvm_read_ptx_sreg_tid_x())
#endif

kernel void libm(global float *x, global double *y) {
  int i = INDEX;
  x[i] = sinf(x[i]) + expf(x[i + 1]);
  y[i] = pow(y[i], y[i + 1]) + sqrt(y[i + 2]);
}
