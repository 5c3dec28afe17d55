// Two gpu.modules; the second uses shared memory and a barrier.
module attributes {gpu.container_module} {
  gpu.module @first {
    gpu.func @fill(%x: memref<?xi32>, %v: i32) kernel {
      %i = gpu.thread_id x
      memref.store %v, %x[%i] : memref<?xi32>
      gpu.return
    }
  }
  gpu.module @second {
    gpu.func @reverse(%x: memref<256xf32>) workgroup(%tile: memref<256xf32, #gpu.address_space<workgroup>>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<256xf32>
      memref.store %v, %tile[%i] : memref<256xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %c255 = arith.constant 255 : index
      %j = arith.subi %c255, %i : index
      %w = memref.load %tile[%j] : memref<256xf32, #gpu.address_space<workgroup>>
      memref.store %w, %x[%i] : memref<256xf32>
      gpu.return
    }
  }
}
