target triple = "spirv64-unknown-unknown"
module asm "nop"
define spir_kernel void @k() {
  ret void
}
