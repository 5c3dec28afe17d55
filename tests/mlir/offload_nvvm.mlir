// Lowered gpu.modules for #nvvm.target, as --gpu-module-to-binary takes them: a kernel
// that calls nothing (mlir-opt-22 links libdevice into it all the same), one that calls
// libdevice's expf for three targets (ftz and fast, which mlir-opt-22 reads for nothing),
// and one for two chips.  Every chip is one CUDA 13's ptxas takes.
module attributes {gpu.container_module} {
  gpu.module @empty [#nvvm.target<chip = "sm_75">] {
    llvm.func @noop(%n: i32, %p: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
  gpu.module @expf [#nvvm.target<chip = "sm_80", flags = {ftz}>, #nvvm.target<chip = "sm_90", flags = {fast}>,
                    #nvvm.target<chip = "sm_120">] {
    llvm.func @__nv_expf(f32) -> f32
    llvm.func @exp_at(%p: !llvm.ptr, %x: f32) attributes {gpu.kernel, nvvm.kernel} {
      %e = llvm.call @__nv_expf(%x) : (f32) -> f32
      llvm.store %e, %p : f32, !llvm.ptr
      llvm.return
    }
  }
  gpu.module @twice [#nvvm.target<chip = "sm_75">, #nvvm.target<chip = "sm_90", O = 3>] {
    llvm.func @twice(%p: !llvm.ptr, %x: f32) attributes {gpu.kernel, nvvm.kernel} {
      %y = llvm.fadd %x, %x : f32
      llvm.store %y, %p : f32, !llvm.ptr
      llvm.return
    }
  }
}
