// A kernel that prints its thread's index with gpu.printf, lowered with runtime=HIP
// to ockl's hostcall printf (__ockl_printf_begin and friends, whose
// __ockl_hostcall_internal ockl.bc marks optnone); test_mlir compares gpublob's
// AMDGCN assembly of it with mlir-opt-22's, byte for byte.
module attributes {gpu.container_module} {
  gpu.module @print {
    gpu.func @say() kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      gpu.printf "thread %d of block %d\n", %tid, %bid : index, index
      gpu.return
    }
  }
}
