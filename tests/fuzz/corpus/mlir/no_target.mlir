module attributes {gpu.container_module} {
  gpu.module @plain {
    gpu.func @loop(%x: memref<?xi32>, %n: index) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      scf.for %i = %c0 to %n step %c1 {
        %v = memref.load %x[%i] : memref<?xi32>
        %w = arith.addi %v, %v : i32
        memref.store %w, %x[%i] : memref<?xi32>
      }
      gpu.return
    }
  }
}
