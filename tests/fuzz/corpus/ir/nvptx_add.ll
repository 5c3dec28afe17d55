target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @add(ptr addrspace(1) %a, ptr addrspace(1) %b, i32 %n) {
entry:
  %i = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %in = icmp slt i32 %i, %n
  br i1 %in, label %body, label %done
body:
  %pa = getelementptr inbounds float, ptr addrspace(1) %a, i32 %i
  %pb = getelementptr inbounds float, ptr addrspace(1) %b, i32 %i
  %x = load float, ptr addrspace(1) %pa, align 4
  %y = load float, ptr addrspace(1) %pb, align 4
  %s = fadd float %x, %y
  store float %s, ptr addrspace(1) %pa, align 4
  br label %done
done:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
