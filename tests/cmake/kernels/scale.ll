; scale, for AMD: x[i] = a * x[i] (no device-library call)
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @scale(float %a, ptr addrspace(1) %x, i32 %n) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %gid = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = mul i32 %gid, 256
  %i = add i32 %base, %tid
  %inside = icmp slt i32 %i, %n
  br i1 %inside, label %body, label %exit

body:
  %px = getelementptr inbounds float, ptr addrspace(1) %x, i32 %i
  %vx = load float, ptr addrspace(1) %px, align 4
  %r = fmul float %a, %vx
  store float %r, ptr addrspace(1) %px, align 4
  br label %exit

exit:
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
