// printf in the gpu dialect, for launch_cuda: gpu.printf becomes a call to
// vprintf (convert-gpu-to-nvvm), as CUDA's printf is.  Every thread prints
// "hello from block B thread T".  No arguments.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @hello() kernel {
      %t = gpu.thread_id x
      %b = gpu.block_id x
      %t32 = arith.index_cast %t : index to i32
      %b32 = arith.index_cast %b : index to i32
      gpu.printf "hello from block %d thread %d\n", %b32, %t32 : i32, i32
      gpu.return
    }
  }
}
