target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @e(ptr addrspace(1) %x) {
  %v = load float, ptr addrspace(1) %x, align 4
  %r = call float @__ocml_exp_f32(float %v)
  store float %r, ptr addrspace(1) %x, align 4
  ret void
}

declare float @__ocml_exp_f32(float)
