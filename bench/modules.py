# bench/modules.py N CHIPS: an MLIR module of N gpu.modules in the gpu dialect, each
# with its own kernel (a loop of libdevice/ocml math over a strided window, its
# length and constants varying per module), each carrying an #nvvm.target per chip.
import sys

n, chips = int(sys.argv[1]), sys.argv[2].split(",")
targets = ", ".join('#nvvm.target<chip = "%s", features = "+ptx80", O = 3>' % c for c in chips)
print("// %d gpu.modules for %s, written by bench/modules.py" % (n, ", ".join(chips)))
print("module attributes {gpu.container_module} {")
for k in range(n):
    print("""  gpu.module @m%(k)d [%(targets)s] {
    gpu.func @k%(k)d(%%x: memref<?xf32>, %%y: memref<?xf32>) kernel {
      %%i = gpu.thread_id x
      %%b = gpu.block_id x
      %%d = gpu.block_dim x
      %%t = arith.muli %%b, %%d : index
      %%g = arith.addi %%t, %%i : index
      %%c0 = arith.constant 0 : index
      %%c1 = arith.constant 1 : index
      %%len = arith.constant %(len)d : index
      %%n = memref.dim %%x, %%c0 : memref<?xf32>
      %%zero = arith.constant 0.0 : f32
      %%scale = arith.constant %(scale)s : f32
      %%acc = scf.for %%j = %%c0 to %%len step %%c1 iter_args(%%a = %%zero) -> (f32) {
        %%s = arith.addi %%g, %%j : index
        %%w = arith.remui %%s, %%n : index
        %%v = memref.load %%x[%%w] : memref<?xf32>
        %%u = arith.mulf %%v, %%scale : f32
        %%e = math.exp %%u : f32
        %%q = math.sin %%v : f32
        %%r = math.sqrt %%e : f32
        %%p = arith.mulf %%q, %%r : f32
        %%a2 = arith.addf %%a, %%p : f32
        scf.yield %%a2 : f32
      }
      %%ok = arith.cmpi ult, %%g, %%n : index
      scf.if %%ok {
        memref.store %%acc, %%y[%%g] : memref<?xf32>
      }
      gpu.return
    }
  }""" % {"k": k, "targets": targets, "len": 8 + 3 * k, "scale": "%.3f" % (0.5 + k / 16.0)})
print("}")
