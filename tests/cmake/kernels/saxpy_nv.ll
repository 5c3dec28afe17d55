; saxpy with a call to expf, for NVIDIA: y[i] = a * expf(x[i]) + y[i]
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @saxpy(float %a, ptr addrspace(1) %x, ptr addrspace(1) %y, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %base = mul i32 %ctaid, %ntid
  %i = add i32 %base, %tid
  %inside = icmp slt i32 %i, %n
  br i1 %inside, label %body, label %exit

body:
  %px = getelementptr inbounds float, ptr addrspace(1) %x, i32 %i
  %py = getelementptr inbounds float, ptr addrspace(1) %y, i32 %i
  %vx = load float, ptr addrspace(1) %px, align 4
  %vy = load float, ptr addrspace(1) %py, align 4
  %ex = call float @__nv_expf(float %vx)
  %ax = fmul float %a, %ex
  %r = fadd float %ax, %vy
  store float %r, ptr addrspace(1) %py, align 4
  br label %exit

exit:
  ret void
}

declare float @__nv_expf(float)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
