target triple = "amdgcn-amd-amdhsa"

@table = internal addrspace(4) constant [4 x i32] [i32 1, i32 2, i32 3, i32 5]

define amdgpu_kernel void @sum(ptr addrspace(1) %out, i32 %n) {
entry:
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  br label %loop
loop:
  %k = phi i32 [ 0, %entry ], [ %k1, %loop ]
  %acc = phi i32 [ 0, %entry ], [ %acc1, %loop ]
  %m = and i32 %k, 3
  %p = getelementptr inbounds [4 x i32], ptr addrspace(4) @table, i32 0, i32 %m
  %v = load i32, ptr addrspace(4) %p, align 4
  %acc1 = add i32 %acc, %v
  %k1 = add i32 %k, 1
  %more = icmp slt i32 %k1, %n
  br i1 %more, label %loop, label %exit
exit:
  %q = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %id
  store i32 %acc1, ptr addrspace(1) %q, align 4
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
