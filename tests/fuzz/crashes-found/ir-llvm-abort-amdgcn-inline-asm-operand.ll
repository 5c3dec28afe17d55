target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @k(ptr addrspace(1) %out) {
  %v = call i32 asm sideeffect "v_mov_b32 $4, 7", "=v"()
  store i32 %v, ptr addrspace(1) %out, align 4
  ret void
}
