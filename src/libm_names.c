/* src/libm_names.c: C's math functions by their plain names (sinf, pow), as clang leaves
** them without the vendor's headers (HIP and OpenCL -nogpulib, CUDA -nocudalib), and the
** math intrinsics a backend cannot select (llvm.exp.f32 on nvptx), called as the device
** library's functions (__nv_sinf, __ocml_pow_f64) before device libraries are linked;
** and, before the backend runs, what still resolves nowhere, refused by name.
**
** Why: an undefined sinf otherwise reaches the blob tool, whose error (ld.lld's
** "undefined symbol", ptxas's "Unresolved extern function") does not say what to call
** instead; and an intrinsic the backend cannot select ends the process inside LLVM
** ("Cannot select").  The rules are the spec's data: libm_float and libm_double make the
** library's name from the C function's double name ({name}: sin, for sinf and sin),
** libm_intrinsics lists the intrinsics the backend cannot select, undefined_ok the
** functions a bin blob may leave to its tool or driver.  A rule applies only where a device
** library of the spec's libs defines the name it makes, with the very function type of
** the declaration (sinf's float (float) is __nv_sinf's); a function the module defines
** itself (its own sinf) is a definition, never renamed, and one a library defines under
** its own name is left for linking. */

/* ---- C math names and unselectable intrinsics, to the device library's functions ---- */

/* C's <math.h> (C11, and C23's exp10, sinpi, cospi, tanpi, rsqrt and roundeven), POSIX's
** Bessel functions and GNU's sincos, by their double names; the float one adds f. */
static const char libm_c_functions[] =
    "acos acosh asin asinh atan atan2 atanh cbrt ceil copysign cos cosh cospi erf erfc exp exp10 exp2 "
    "expm1 fabs fdim floor fma fmax fmin fmod frexp hypot ilogb j0 j1 jn ldexp lgamma llrint llround "
    "log log10 log1p log2 logb lrint lround modf nan nearbyint nextafter pow remainder remquo rint "
    "round roundeven rsqrt scalbln scalbn sin sincos sinh sinpi sqrt tan tanh tanpi tgamma trunc y0 "
    "y1 yn";

enum { LIBM_NONE, LIBM_ALWAYS, LIBM_UNLESS_AFN };

/* Is name (n bytes) one of C's math functions?  *base: the length of its double name,
** *is_float: it is the float one (sinf). */
GPUBLOB_PRIVATE int libm_names_c_function(const char *name, size_t n, size_t *base, int *is_float) {
  *is_float = util_list_index(libm_c_functions, name, n) < 0;
  *base = n - (size_t)*is_float;
  if (!*is_float) return 1;
  return n > 1 && name[n - 1] == 'f' && util_list_index(libm_c_functions, name, n - 1) >= 0;
}

/* The spec's device-library name for C's function (its double name: base bytes of name)
** into out: 1; 0 where the spec has no template for its type; -1 out of memory. */
GPUBLOB_PRIVATE int libm_names_device_name(const job *j, const char *name, size_t base, int is_float, strbuf *out) {
  const char *tmpl = is_float ? j->t->libm_float : j->t->libm_double;
  if (!*tmpl) return 0;
  strbuf c = {0};
  sb_addn(&c, name, base);
  const char *vars[] = {"name", sb_str(&c), NULL};
  template_expand(j, tmpl, strlen(tmpl), vars, out);
  int oom = c.oom || out->oom;
  sb_free(&c);
  return oom ? -1 : 1;
}

/* A device library's definition of name; NULL when none has one. */
static LLVMValueRef libm_lib_function(devlib *libs, int n, const char *name) {
  for (int i = 0; i < n; i++) {
    LLVMValueRef d = libs[i].lazy ? LLVMGetNamedFunction(libs[i].lazy, name) : NULL;
    if (d && !LLVMIsDeclaration(d)) return d;
  }
  return NULL;
}

/* a and b have one type and calling convention, and every call of a is of that type
** (opaque pointers let a call of another type name a function: double sinf(double)). */
static int same_signature(LLVMValueRef a, LLVMValueRef b) {
  LLVMTypeRef t = LLVMGlobalGetValueType(a);
  if (t != LLVMGlobalGetValueType(b) || LLVMGetFunctionCallConv(a) != LLVMGetFunctionCallConv(b)) return 0;
  for (LLVMUseRef u = LLVMGetFirstUse(a); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef c = LLVMGetUser(u);
    if (LLVMIsACallInst(c) && LLVMGetCalledValue(c) == a && LLVMGetCalledFunctionType(c) != t) return 0;
  }
  return 1;
}

/* How the spec's libm_intrinsics names intrinsic f (its name after "llvm."). */
static int libm_intrinsic_rule(const job *j, LLVMValueRef f) {
  if (!*j->t->libm_intrinsics || !LLVMGetIntrinsicID(f)) return LIBM_NONE;
  size_t n, wn;
  const char *name = LLVMGetValueName2(f, &n), *list = j->t->libm_intrinsics, *w;
  int rule = LIBM_NONE;
  while (n > 5 && (w = util_next_word(&list, " ", &wn))) {
    int afn = wn > 4 && !strncmp(w + wn - 4, "!afn", 4);
    if (!util_glob_match(w, afn ? wn - 4 : wn, name + 5)) continue;
    if (!afn) return LIBM_ALWAYS;
    rule = LIBM_UNLESS_AFN;
  }
  return rule;
}

/* A call of an intrinsic of that rule that the backend cannot select. */
static int libm_unselectable(LLVMValueRef call, int rule) {
  if (rule != LIBM_UNLESS_AFN) return rule == LIBM_ALWAYS;
  return !LLVMCanValueUseFastMathFlags(call) || !(LLVMGetFastMathFlags(call) & LLVMFastMathApproxFunc);
}

/* The first call of intrinsic f the backend cannot select; NULL when none. */
GPUBLOB_PRIVATE LLVMValueRef libm_names_unselectable_call(const job *j, LLVMValueRef f) {
  int rule = libm_intrinsic_rule(j, f);
  for (LLVMUseRef u = rule ? LLVMGetFirstUse(f) : NULL; u; u = LLVMGetNextUse(u)) {
    LLVMValueRef c = LLVMGetUser(u);
    if (LLVMIsACallInst(c) && LLVMGetCalledValue(c) == f && libm_unselectable(c, rule)) return c;
  }
  return NULL;
}

/* Does the module call an intrinsic its backend cannot select?  (devlib_link
** then runs even when nothing is undefined.) */
GPUBLOB_PRIVATE int libm_names_wanted(job *j) {
  for (LLVMValueRef f = LLVMGetFirstFunction(j->llvm->mod); f; f = LLVMGetNextFunction(f))
    if (LLVMIsDeclaration(f) && libm_names_unselectable_call(j, f)) return 1;
  return 0;
}

/* The C name of intrinsic f, llvm.NAME.TYPES: NAME, with f for float, as the type of its
** first argument says; 0 for any other type (half, a vector). */
static int intrinsic_c_name(LLVMValueRef f, strbuf *out) {
  size_t n;
  const char *name = LLVMGetValueName2(f, &n);
  const char *dot = n > 5 ? memchr(name + 5, '.', n - 5) : NULL;
  if (!dot || !LLVMCountParams(f)) return 0;
  LLVMTypeKind k = LLVMGetTypeKind(LLVMTypeOf(LLVMGetParam(f, 0)));
  if (k != LLVMFloatTypeKind && k != LLVMDoubleTypeKind) return 0;
  sb_addn(out, name + 5, (size_t)(dot - name - 5));
  if (k == LLVMFloatTypeKind) sb_add(out, "f");
  return 1;
}

/* The module's function devname of f's type (declared if missing); NULL when the module
** has that name for something else. */
static LLVMValueRef libm_declare(job *j, LLVMValueRef f, const char *devname) {
  LLVMModuleRef m = j->llvm->mod;
  LLVMValueRef g = LLVMGetNamedFunction(m, devname);
  if (g) return same_signature(f, g) ? g : NULL;
  if (LLVMGetNamedGlobal(m, devname) || LLVMGetNamedGlobalAlias(m, devname, strlen(devname))) return NULL;
  g = LLVMAddFunction(m, devname, LLVMGlobalGetValueType(f));
  LLVMSetFunctionCallConv(g, LLVMGetFunctionCallConv(f));
  return g;
}

/* What a C function (name, its double name base bytes of it) resolves to: the device
** library's definition of the spec's name for it, *def (NULL if none), that name in dev. */
static int libm_resolve(job *j, devlib *libs, int n, const char *name, size_t base, int is_float,
                        strbuf *dev, LLVMValueRef *def) {
  int named = libm_names_device_name(j, name, base, is_float, dev);
  if (named < 0) return handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  *def = named ? libm_lib_function(libs, n, sb_str(dev)) : NULL;
  return GPUBLOB_OK;
}

/* Does the spec's undefined_ok let a blob leave name undefined? */
GPUBLOB_PRIVATE int libm_names_undefined_allowed(const job *j, const char *name) {
  const char *list = j->t->undefined_ok, *w;
  size_t n;
  while ((w = util_next_word(&list, " ", &n)))
    if (util_glob_match(w, n, name)) return 1;
  return 0;
}

/* Why the device library's d (dev) cannot stand in for f, into text: another type or
** calling convention, or the module has dev already for something else. */
static void libm_why_not(job *j, LLVMValueRef f, LLVMValueRef d, const char *dev, strbuf *text) {
  if (same_signature(f, d)) {
    sb_addf(text, "the module has a %s of another type", dev);
    return;
  }
  char *has = LLVMPrintTypeToString(LLVMGlobalGetValueType(f));
  char *lib = LLVMPrintTypeToString(LLVMGlobalGetValueType(d));
  sb_addf(text, "%s is %s, and target %s's %s is %s", LLVMGetValueName2(f, &(size_t){0}), has, j->t->name, dev,
          lib);
  if (!strcmp(has, lib) && LLVMGetFunctionCallConv(d) != LLVMGetFunctionCallConv(f))
    sb_addf(text, " with calling convention %u, not %u", LLVMGetFunctionCallConv(d), LLVMGetFunctionCallConv(f));
  else if (!strcmp(has, lib))
    sb_add(text, ", as it is, but a call of it is of another type");
  LLVMDisposeMessage(has);
  LLVMDisposeMessage(lib);
}

/* C's function f, for which the device library's d (dev) cannot stand in: LINK for bin
** (the blob would leave it undefined), else a warning, and it stays undefined. */
static int libm_unrenamed(job *j, LLVMValueRef f, LLVMValueRef d, const char *dev) {
  const char *name = LLVMGetValueName2(f, &(size_t){0});
  if (libm_names_undefined_allowed(j, name)) return GPUBLOB_OK;
  strbuf text = {0};
  sb_addf(&text, "%s: calls '%s', whose device-library function is %s, but ", j->name, name, dev);
  libm_why_not(j, f, d, dev, &text);
  sb_addf(&text, ": call %s as it is declared there, or define %s", dev, name);
  int rc = GPUBLOB_OK;
  if (text.oom) rc = handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  else if (j->format == GPUBLOB_FORMAT_BIN) rc = handle_set_error(j->g, GPUBLOB_LINK, "%s", sb_str(&text));
  else handle_add_warning(j->g, "%s; it stays undefined", sb_str(&text));
  sb_free(&text);
  return rc;
}

/* A declared C math function f: its uses go to the device library's function. */
static int libm_rename_function(job *j, devlib *libs, int n, LLVMValueRef f) {
  size_t len, base;
  int is_float;
  const char *name = LLVMGetValueName2(f, &len);
  if (!libm_names_c_function(name, len, &base, &is_float)) return GPUBLOB_OK;
  int rc = devlib_load_all_lazy(j, libs, n); /* only for a module that has C math names */
  if (rc || libm_lib_function(libs, n, name)) return rc;
  strbuf dev = {0};
  LLVMValueRef d = NULL, g = NULL;
  rc = libm_resolve(j, libs, n, name, base, is_float, &dev, &d);
  if (!rc && d && same_signature(f, d)) g = libm_declare(j, f, sb_str(&dev));
  if (g) {
    LLVMReplaceAllUsesWith(f, g);
    LLVMDeleteFunction(f);
  } else if (!rc && d) {
    rc = libm_unrenamed(j, f, d, sb_str(&dev));
  }
  sb_free(&dev);
  return rc;
}

/* Each call of f the backend cannot select goes to g; f goes when nothing calls it. */
static void libm_redirect_calls(const job *j, LLVMValueRef f, LLVMValueRef g) {
  int rule = libm_intrinsic_rule(j, f);
  LLVMUseRef next;
  for (LLVMUseRef u = LLVMGetFirstUse(f); u; u = next) {
    next = LLVMGetNextUse(u);
    LLVMValueRef c = LLVMGetUser(u);
    if (LLVMIsACallInst(c) && LLVMGetCalledValue(c) == f && libm_unselectable(c, rule))
      LLVMSetOperand(c, (unsigned)LLVMGetNumOperands(c) - 1, g); /* a call's callee is its last operand */
  }
  if (!LLVMGetFirstUse(f)) LLVMDeleteFunction(f);
}

/* Intrinsic f, which the backend cannot select, has no device-library function of its
** type: TARGET, saying what it lacks, before LLVM would end the process.  cname: its
** name as C's would be (NULL for a type C has none of), named: it is one of C's. */
static int libm_intrinsic_error(job *j, LLVMValueRef f, const strbuf *cname, int named, LLVMValueRef d,
                                const strbuf *dev) {
  strbuf why = {0};
  if (!cname) {
    sb_add(&why, "and no C math function is of its type (device libraries have float and double ones): "
           "compute it in float or double");
  } else if (!named) {
    sb_addf(&why, "and %s is none of C's math functions, for which device libraries stand in", sb_str(cname));
  } else if (!dev->len) {
    sb_addf(&why, "and the spec names no device-library function for C's %s", sb_str(cname));
  } else if (!d) {
    sb_addf(&why, "and C's %s would be %s, which no device library of target %s defines", sb_str(cname),
            sb_str(dev), j->t->name);
  } else {
    sb_addf(&why, "and C's %s would be %s, but ", sb_str(cname), sb_str(dev));
    libm_why_not(j, f, d, sb_str(dev), &why);
    sb_addf(&why, ": call %s as it is declared there", sb_str(dev));
  }
  int rc = why.oom ? handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory")
                   : handle_set_error(j->g, GPUBLOB_TARGET, "%s: calls %s, which target %s's backend cannot select (the "
                               "spec's libm_intrinsics), %s", j->name, LLVMGetValueName2(f, &(size_t){0}),
                               j->t->name, sb_str(&why));
  sb_free(&why);
  return rc;
}

GPUBLOB_PRIVATE int libm_names_runs_backend(const job *j) {
  return j->format != GPUBLOB_FORMAT_LLVM && j->format != GPUBLOB_FORMAT_LL;
}

/* An intrinsic the backend cannot select: its calls go to the device library's
** function of its C name (llvm.exp.f32 to expf's __nv_expf), or it is TARGET. */
static int libm_rename_intrinsic(job *j, devlib *libs, int n, LLVMValueRef f) {
  if (!libm_names_unselectable_call(j, f)) return GPUBLOB_OK;
  strbuf cname = {0}, dev = {0};
  LLVMValueRef d = NULL, g = NULL;
  size_t base = 0;
  int is_float = 0, rc = GPUBLOB_OK;
  int typed = intrinsic_c_name(f, &cname);
  int named = typed && libm_names_c_function(sb_str(&cname), cname.len, &base, &is_float);
  if (cname.oom) rc = handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  if (!rc && named) rc = devlib_load_all_lazy(j, libs, n);
  if (!rc && named) rc = libm_resolve(j, libs, n, sb_str(&cname), base, is_float, &dev, &d);
  if (!rc && d && same_signature(f, d)) g = libm_declare(j, f, sb_str(&dev));
  if (g) libm_redirect_calls(j, f, g);
  else if (!rc && libm_names_runs_backend(j)) rc = libm_intrinsic_error(j, f, typed ? &cname : NULL, named, d, &dev);
  sb_free(&cname);
  sb_free(&dev);
  return rc;
}

/* Before device libraries are linked (devlib_link, with the libraries mapped): each
** declared C math function, and each call of an intrinsic the backend cannot select,
** goes to the device library's function for it.  The libraries are loaded lazily
** here only for a module that has such a name or call. */
GPUBLOB_PRIVATE int libm_names_rename(job *j, devlib *libs, int n) {
  if (!*j->t->libm_float && !*j->t->libm_double) return GPUBLOB_OK;
  int rc = GPUBLOB_OK;
  LLVMValueRef next;
  for (LLVMValueRef f = LLVMGetFirstFunction(j->llvm->mod); f && !rc; f = next) {
    next = LLVMGetNextFunction(f);
    if (!LLVMIsDeclaration(f) || !LLVMGetFirstUse(f)) continue;
    rc = LLVMGetIntrinsicID(f) ? libm_rename_intrinsic(j, libs, n, f) : libm_rename_function(j, libs, n, f);
  }
  return rc;
}
