// saxpy in the gpu dialect, with host code that launches it.  gpublob lowers
// the gpu.module for each target (the spec's mlir_lower), compiles it, and
// replaces it by gpu.binary; the host side is left for mlir-opt --gpu-to-llvm.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @saxpy(%a: f32, %x: memref<?xf32>, %y: memref<?xf32>) kernel {
      %i = gpu.thread_id x
      %b = gpu.block_id x
      %d = gpu.block_dim x
      %t = arith.muli %b, %d : index
      %g = arith.addi %t, %i : index
      %c0 = arith.constant 0 : index
      %n = memref.dim %x, %c0 : memref<?xf32>
      %ok = arith.cmpi ult, %g, %n : index
      scf.if %ok {
        %xv = memref.load %x[%g] : memref<?xf32>
        %yv = memref.load %y[%g] : memref<?xf32>
        %e = math.exp %xv : f32
        %m = arith.mulf %a, %e : f32
        %s = arith.addf %m, %yv : f32
        memref.store %s, %y[%g] : memref<?xf32>
      }
      gpu.return
    }
  }
  func.func @main(%a: f32, %x: memref<?xf32>, %y: memref<?xf32>) {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    gpu.launch_func @kernels::@saxpy blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1)
        args(%a : f32, %x : memref<?xf32>, %y : memref<?xf32>)
    return
  }
}
