; bench: a 16x16 tiled matmul in shared memory, C = A * B (n x n, n a multiple of 16), hand-written SSA
target triple = "nvptx64-nvidia-cuda"

@ta = internal addrspace(3) global [16 x [16 x float]] poison, align 4
@tb = internal addrspace(3) global [16 x [16 x float]] poison, align 4

define ptx_kernel void @matmul(ptr addrspace(1) noalias %a, ptr addrspace(1) noalias %b, ptr addrspace(1) noalias %c, i32 %n) {
entry:
  %tx = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ty = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %bx = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %by = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
  %bx16 = shl i32 %bx, 4
  %by16 = shl i32 %by, 4
  %col = add i32 %bx16, %tx
  %row = add i32 %by16, %ty
  %rown = mul i32 %row, %n
  %tiles = lshr i32 %n, 4
  %sa = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @ta, i32 0, i32 %ty, i32 %tx
  %sb = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @tb, i32 0, i32 %ty, i32 %tx
  %any = icmp ne i32 %tiles, 0
  br i1 %any, label %tile, label %done

tile:                                   ; one 16x16 tile of A and of B per iteration
  %t = phi i32 [ 0, %entry ], [ %t.next, %tile.end ]
  %acc = phi float [ 0.0, %entry ], [ %acc.k, %tile.end ]
  %t16 = shl i32 %t, 4
  %acol = add i32 %t16, %tx
  %ai = add i32 %rown, %acol
  %brow = add i32 %t16, %ty
  %brown = mul i32 %brow, %n
  %bi = add i32 %brown, %col
  %pa = getelementptr inbounds float, ptr addrspace(1) %a, i32 %ai
  %pb = getelementptr inbounds float, ptr addrspace(1) %b, i32 %bi
  %va = load float, ptr addrspace(1) %pa, align 4
  %vb = load float, ptr addrspace(1) %pb, align 4
  store float %va, ptr addrspace(3) %sa, align 4
  store float %vb, ptr addrspace(3) %sb, align 4
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  br label %dot

dot:                                    ; 16 multiply-adds, unrolled by 4
  %k = phi i32 [ 0, %tile ], [ %k.next, %dot ]
  %s = phi float [ %acc, %tile ], [ %s3, %dot ]
  %pa0 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @ta, i32 0, i32 %ty, i32 %k
  %pb0 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @tb, i32 0, i32 %k, i32 %tx
  %a0 = load float, ptr addrspace(3) %pa0, align 4
  %b0 = load float, ptr addrspace(3) %pb0, align 4
  %s0 = call float @llvm.fmuladd.f32(float %a0, float %b0, float %s)
  %k1 = add i32 %k, 1
  %pa1 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @ta, i32 0, i32 %ty, i32 %k1
  %pb1 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @tb, i32 0, i32 %k1, i32 %tx
  %a1 = load float, ptr addrspace(3) %pa1, align 4
  %b1 = load float, ptr addrspace(3) %pb1, align 4
  %s1 = call float @llvm.fmuladd.f32(float %a1, float %b1, float %s0)
  %k2 = add i32 %k, 2
  %pa2 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @ta, i32 0, i32 %ty, i32 %k2
  %pb2 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @tb, i32 0, i32 %k2, i32 %tx
  %a2 = load float, ptr addrspace(3) %pa2, align 4
  %b2 = load float, ptr addrspace(3) %pb2, align 4
  %s2 = call float @llvm.fmuladd.f32(float %a2, float %b2, float %s1)
  %k3 = add i32 %k, 3
  %pa3 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @ta, i32 0, i32 %ty, i32 %k3
  %pb3 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @tb, i32 0, i32 %k3, i32 %tx
  %a3 = load float, ptr addrspace(3) %pa3, align 4
  %b3 = load float, ptr addrspace(3) %pb3, align 4
  %s3 = call float @llvm.fmuladd.f32(float %a3, float %b3, float %s2)
  %k.next = add i32 %k, 4
  %k.more = icmp ult i32 %k.next, 16
  br i1 %k.more, label %dot, label %tile.end

tile.end:
  %acc.k = phi float [ %s3, %dot ]
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %t.next = add i32 %t, 1
  %t.more = icmp ult i32 %t.next, %tiles
  br i1 %t.more, label %tile, label %done

done:
  %sum = phi float [ 0.0, %entry ], [ %acc.k, %tile.end ]
  %ci = add i32 %rown, %col
  %pc = getelementptr inbounds float, ptr addrspace(1) %c, i32 %ci
  store float %sum, ptr addrspace(1) %pc, align 4
  ret void
}

declare float @llvm.fmuladd.f32(float, float, float)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)
