/* A kernel whose work-group size is required (reqd_work_group_size): AMD's
** .reqd_workgroup_size.  get_local_id is clang's builtin, no OpenCL headers. */
__kernel __attribute__((reqd_work_group_size(64, 2, 1))) void reqd_fill(__global float *x, float a) {
  x[__builtin_amdgcn_workitem_id_x() + 64 * __builtin_amdgcn_workitem_id_y()] = a;
}
