; A block reduction for launch_cuda: each block of 256 threads sums its 256
; elements of x (0 past n) in shared memory, a tree of halving steps with a
; barrier after each, and thread 0 adds the block's sum into *out with an atomic.
; Launched with (ptr x, ptr out, i32 n), 256 threads a block.
target triple = "nvptx64-nvidia-cuda"

@partial = internal addrspace(3) global [256 x float] undef, align 4

define ptx_kernel void @reduce(ptr addrspace(1) %x, ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = mul i32 %ctaid, 256
  %i = add i32 %base, %tid
  %inside = icmp slt i32 %i, %n
  br i1 %inside, label %load, label %store

load:
  %px = getelementptr inbounds float, ptr addrspace(1) %x, i32 %i
  %vx = load float, ptr addrspace(1) %px, align 4
  br label %store

store:
  %v = phi float [ %vx, %load ], [ 0.0, %entry ]
  %mine = getelementptr inbounds [256 x float], ptr addrspace(3) @partial, i32 0, i32 %tid
  store float %v, ptr addrspace(3) %mine, align 4
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  br label %step

step:
  %s = phi i32 [ 128, %store ], [ %half, %next ]
  %active = icmp ult i32 %tid, %s
  br i1 %active, label %add, label %next

add:
  %j = add i32 %tid, %s
  %other = getelementptr inbounds [256 x float], ptr addrspace(3) @partial, i32 0, i32 %j
  %a = load float, ptr addrspace(3) %mine, align 4
  %b = load float, ptr addrspace(3) %other, align 4
  %sum = fadd float %a, %b
  store float %sum, ptr addrspace(3) %mine, align 4
  br label %next

next:
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %half = lshr i32 %s, 1
  %more = icmp ne i32 %half, 0
  br i1 %more, label %step, label %done

done:
  %first = icmp eq i32 %tid, 0
  br i1 %first, label %atomic, label %exit

atomic:
  %total = load float, ptr addrspace(3) %mine, align 4
  %old = atomicrmw fadd ptr addrspace(1) %out, float %total monotonic, align 4
  br label %exit

exit:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)
