; saxpy with a call to expf, for SPIR-V (OpenCL kernel): y[i] = a * expf(x[i]) + y[i]
target triple = "spirv64-unknown-unknown"

define spir_kernel void @saxpy(float %a, ptr addrspace(1) %x, ptr addrspace(1) %y, i32 %n) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %i = trunc i64 %gid to i32
  %inside = icmp slt i32 %i, %n
  br i1 %inside, label %body, label %exit

body:
  %px = getelementptr inbounds float, ptr addrspace(1) %x, i64 %gid
  %py = getelementptr inbounds float, ptr addrspace(1) %y, i64 %gid
  %vx = load float, ptr addrspace(1) %px, align 4
  %vy = load float, ptr addrspace(1) %py, align 4
  %ex = call float @llvm.exp.f32(float %vx)
  %ax = fmul float %a, %ex
  %r = fadd float %ax, %vy
  store float %r, ptr addrspace(1) %py, align 4
  br label %exit

exit:
  ret void
}

declare i64 @_Z13get_global_idj(i32)
declare float @llvm.exp.f32(float)
