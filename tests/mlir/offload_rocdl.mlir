// Lowered gpu.modules for #rocdl.target, as --gpu-module-to-binary takes them: a kernel
// that calls nothing, and one that calls ocml's exp for a chip with daz and for the
// default chip.
module attributes {gpu.container_module} {
  gpu.module @empty [#rocdl.target<chip = "gfx90a">] {
    llvm.func @noop(%n: i32, %p: !llvm.ptr) attributes {gpu.kernel, rocdl.kernel} {
      llvm.return
    }
  }
  gpu.module @expf [#rocdl.target<chip = "gfx942", flags = {daz}>, #rocdl.target] {
    llvm.func @__ocml_exp_f32(f32) -> f32
    llvm.func @exp_at(%p: !llvm.ptr, %x: f32) attributes {gpu.kernel, rocdl.kernel} {
      %e = llvm.call @__ocml_exp_f32(%x) : (f32) -> f32
      llvm.store %e, %p : f32, !llvm.ptr
      llvm.return
    }
  }
}
