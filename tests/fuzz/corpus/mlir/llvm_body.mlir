module attributes {gpu.container_module} {
  gpu.module @k [#nvvm.target<chip = "sm_80">] {
    llvm.func @add(%a: !llvm.ptr<1>, %b: f32) attributes {gpu.kernel, nvvm.kernel} {
      %v = llvm.load %a : !llvm.ptr<1> -> f32
      %s = llvm.fadd %v, %b : f32
      llvm.store %s, %a : f32, !llvm.ptr<1>
      llvm.return
    }
  }
}
