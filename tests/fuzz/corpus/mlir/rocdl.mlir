module attributes {gpu.container_module} {
  gpu.module @r [#rocdl.target<chip = "gfx90a">] {
    gpu.func @neg(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<16xf32>
      %n = arith.negf %v : f32
      memref.store %n, %x[%i] : memref<16xf32>
      gpu.return
    }
  }
}
