// saxpy in the gpu dialect, for launch_cuda: y[i] = a * exp(x[i]) + y[i].
// math.exp becomes libdevice's __nv_expf (convert-gpu-to-nvvm).  Each memref
// argument is lowered to MLIR's descriptor (allocated, aligned, offset, size,
// stride): launch_cuda --abi memref passes it so; n is the size of x.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @saxpy(%a: f32, %x: memref<?xf32>, %y: memref<?xf32>) kernel {
      %t = gpu.thread_id x
      %b = gpu.block_id x
      %d = gpu.block_dim x
      %base = arith.muli %b, %d : index
      %i = arith.addi %base, %t : index
      %c0 = arith.constant 0 : index
      %n = memref.dim %x, %c0 : memref<?xf32>
      %inside = arith.cmpi ult, %i, %n : index
      scf.if %inside {
        %xv = memref.load %x[%i] : memref<?xf32>
        %yv = memref.load %y[%i] : memref<?xf32>
        %e = math.exp %xv : f32
        %m = arith.mulf %a, %e : f32
        %s = arith.addf %m, %yv : f32
        memref.store %s, %y[%i] : memref<?xf32>
      }
      gpu.return
    }
  }
}
