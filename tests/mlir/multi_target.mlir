// One gpu.module with three targets: one object each.
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_80">, #nvvm.target<chip = "sm_90", features = "+ptx80", O = 3>, #rocdl.target<chip = "gfx90a">] {
    gpu.func @axpy(%a: f32, %x: memref<?xf32>, %y: memref<?xf32>) kernel {
      %i = gpu.thread_id x
      %xv = memref.load %x[%i] : memref<?xf32>
      %yv = memref.load %y[%i] : memref<?xf32>
      %m = arith.mulf %a, %xv : f32
      %s = arith.addf %m, %yv : f32
      memref.store %s, %y[%i] : memref<?xf32>
      gpu.return
    }
  }
}
