; C math by plain names and math intrinsics a backend cannot select (src/libm_names.c)
define void @k(ptr %p, ptr %q) {
  %v = load float, ptr %p
  %a = call float @sinf(float %v)
  %b = call float @llvm.exp.f32(float %a)
  %c = call afn float @llvm.sin.f32(float %b)
  %r = call { float, float } @llvm.sincos.f32(float %c)
  %s = extractvalue { float, float } %r, 0
  store float %s, ptr %p
  %d = load double, ptr %q
  %e = call double @pow(double %d, double %d)
  %f = call double @llvm.log.f64(double %e)
  %g = call double @frexp(double %f, ptr %p)
  %h = call float @foof(float %s)
  store double %g, ptr %q
  store float %h, ptr %p
  ret void
}
declare float @sinf(float)
declare double @pow(double, double)
declare double @frexp(double, ptr)
declare float @foof(float)
