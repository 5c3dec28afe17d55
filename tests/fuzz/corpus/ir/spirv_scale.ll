target triple = "spirv64-unknown-unknown"

define spir_kernel void @scale(ptr addrspace(1) %x, float %a) {
entry:
  %id = call i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr inbounds float, ptr addrspace(1) %x, i64 %id
  %v = load float, ptr addrspace(1) %p, align 4
  %r = fmul float %v, %a
  store float %r, ptr addrspace(1) %p, align 4
  ret void
}

declare i64 @_Z13get_global_idj(i32)
