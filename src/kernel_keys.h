/* src/kernel_keys.h: the one table of an AMD code object's kernel keys and the
** gpublob_kernel_info field each fills: X(KEY, FIELD).  The keys are LLVM's
** AMDGPUHSAMetadataStreamer's, as the NT_AMDGPU_METADATA note holds them and
** llvm-readelf --notes prints them with a leading dot (.vgpr_count); upstream
** MLIR's ROCDL kernel table names them without it.  The note's reader
** (src/meta_amdgpu.c), the MLIR kernel table (src/mlir_kernels.c) and test_kernels
** (whose expected figures are llvm-readelf's) all use this list.  Plain C, no
** includes: tests include it too. */
#ifndef GPUBLOB_KERNEL_KEYS_H
#define GPUBLOB_KERNEL_KEYS_H

#define GPUBLOB_AMDGPU_KERNEL_KEYS(X)                                      \
  X(vgpr_count, registers)                                                 \
  X(sgpr_count, sgprs)                                                     \
  X(agpr_count, agprs)                                                     \
  X(vgpr_spill_count, vgpr_spills)                                         \
  X(sgpr_spill_count, sgpr_spills)                                         \
  X(group_segment_fixed_size, shared_bytes)                                \
  X(private_segment_fixed_size, local_bytes)                               \
  X(max_flat_workgroup_size, max_threads)                                  \
  X(kernarg_segment_size, params_bytes)                                    \
  X(wavefront_size, wave_size)

#endif /* GPUBLOB_KERNEL_KEYS_H */
