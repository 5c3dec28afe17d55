; printf for launch_cuda, as CUDA's printf is: vprintf(format, args), where args
; points to the arguments packed in local memory.  Every thread prints
; "hello from block B thread T".  Launched with no arguments.
target triple = "nvptx64-nvidia-cuda"

@format = private unnamed_addr addrspace(1) constant [31 x i8] c"hello from block %d thread %d\0A\00", align 1

define ptx_kernel void @hello() {
entry:
  %args = alloca { i32, i32 }, align 8
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %p0 = getelementptr inbounds { i32, i32 }, ptr %args, i32 0, i32 0
  store i32 %ctaid, ptr %p0, align 8
  %p1 = getelementptr inbounds { i32, i32 }, ptr %args, i32 0, i32 1
  store i32 %tid, ptr %p1, align 4
  %fmt = addrspacecast ptr addrspace(1) @format to ptr
  %r = call i32 @vprintf(ptr %fmt, ptr %args)
  ret void
}

declare i32 @vprintf(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
