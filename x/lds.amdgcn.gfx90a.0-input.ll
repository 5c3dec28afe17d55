; ModuleID = '/tmp/tmpu6nd9og1/lds.ll'
source_filename = "/tmp/tmpu6nd9og1/lds.ll"
target triple = "amdgcn-amd-amdhsa"

@lds = internal addrspace(3) global [64 x i32] poison

define amdgpu_kernel void @uses_lds(ptr addrspace(1) %p, i32 %i) {
  %q = getelementptr [64 x i32], ptr addrspace(3) @lds, i32 0, i32 %i
  store i32 1, ptr addrspace(3) %q, align 4
  %v = load i32, ptr addrspace(3) @lds, align 4
  store i32 %v, ptr addrspace(1) %p, align 4
  ret void
}
