// Two kernels in one gpu.module; one calls sqrt and one has a loop.
module attributes {gpu.container_module} {
  gpu.module @ops {
    gpu.func @scale(%x: memref<?xf32>, %s: f32) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<?xf32>
      %r = math.sqrt %v : f32
      %m = arith.mulf %r, %s : f32
      memref.store %m, %x[%i] : memref<?xf32>
      gpu.return
    }
    gpu.func @rowsum(%a: memref<?x?xf32>, %out: memref<?xf32>) kernel {
      %i = gpu.block_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %n = memref.dim %a, %c1 : memref<?x?xf32>
      %z = arith.constant 0.0 : f32
      %sum = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (f32) {
        %v = memref.load %a[%i, %j] : memref<?x?xf32>
        %t = arith.addf %acc, %v : f32
        scf.yield %t : f32
      }
      memref.store %sum, %out[%i] : memref<?xf32>
      gpu.return
    }
  }
}
