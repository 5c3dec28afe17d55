// A block reduction in the gpu dialect, for launch_cuda: each block of 256
// threads sums its 256 elements of x (0 past the end) in workgroup (shared)
// memory, halving 8 times with a barrier after each step, and thread 0 adds
// the block's sum into out[0] with memref.atomic_rmw.  Arguments: memref
// descriptors (launch_cuda --abi memref); n is the size of x.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @reduce(%x: memref<?xf32>, %out: memref<1xf32>)
        workgroup(%partial: memref<256xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %c128 = arith.constant 128 : index
      %c256 = arith.constant 256 : index
      %zero = arith.constant 0.0 : f32
      %t = gpu.thread_id x
      %b = gpu.block_id x
      %base = arith.muli %b, %c256 : index
      %i = arith.addi %base, %t : index
      %n = memref.dim %x, %c0 : memref<?xf32>
      %inside = arith.cmpi ult, %i, %n : index
      %v = scf.if %inside -> (f32) {
        %xv = memref.load %x[%i] : memref<?xf32>
        scf.yield %xv : f32
      } else {
        scf.yield %zero : f32
      }
      memref.store %v, %partial[%t] : memref<256xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      scf.for %k = %c0 to %c8 step %c1 {
        %s = arith.shrui %c128, %k : index
        %active = arith.cmpi ult, %t, %s : index
        scf.if %active {
          %j = arith.addi %t, %s : index
          %p = memref.load %partial[%t] : memref<256xf32, #gpu.address_space<workgroup>>
          %q = memref.load %partial[%j] : memref<256xf32, #gpu.address_space<workgroup>>
          %sum = arith.addf %p, %q : f32
          memref.store %sum, %partial[%t] : memref<256xf32, #gpu.address_space<workgroup>>
        }
        gpu.barrier
      }
      %first = arith.cmpi eq, %t, %c0 : index
      scf.if %first {
        %total = memref.load %partial[%c0] : memref<256xf32, #gpu.address_space<workgroup>>
        %old = memref.atomic_rmw addf %total, %out[%c0] : (f32, memref<1xf32>) -> f32
      }
      gpu.return
    }
  }
}
