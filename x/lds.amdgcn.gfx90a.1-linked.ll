; ModuleID = '/tmp/tmpu6nd9og1/lds.ll'
source_filename = "/tmp/tmpu6nd9og1/lds.ll"
target datalayout = "e-m:e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128:128:48-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

@lds = internal addrspace(3) global [64 x i32] poison

define amdgpu_kernel void @uses_lds(ptr addrspace(1) %p, i32 %i) {
  %q = getelementptr [64 x i32], ptr addrspace(3) @lds, i32 0, i32 %i
  store i32 1, ptr addrspace(3) %q, align 4
  %v = load i32, ptr addrspace(3) @lds, align 4
  store i32 %v, ptr addrspace(1) %p, align 4
  ret void
}

!llvm.module.flags = !{!0}

!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
