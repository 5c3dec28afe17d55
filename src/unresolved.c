/* src/unresolved.c: Before the backend, what still resolves nowhere: an intrinsic the
** backend cannot select (TARGET, before LLVM would end the process on it), and a
** function no device library defined (LINK, naming it), each said with its cause. */
/* ---- before the backend: what still resolves nowhere ---- */

/* A call of an intrinsic the backend cannot select would end the process in LLVM:
** TARGET.  Before optimisation (after the renaming), one a target without device
** libraries keeps (spirv's llvm.ldexp); after, one the optimiser made (llvm.exp2 of
** an integer becomes llvm.ldexp). */
GPUBLOB_PRIVATE int unresolved_check_unselectable(job *j, int optimised) {
  if (!libm_names_runs_backend(j)) return GPUBLOB_OK;
  for (LLVMValueRef f = LLVMGetFirstFunction(j->llvm->mod); f; f = LLVMGetNextFunction(f))
    if (LLVMIsDeclaration(f) && libm_names_unselectable_call(j, f))
      return handle_set_error(j->g, GPUBLOB_TARGET, "%s: %s %s, which target %s's backend cannot select (the spec's "
                       "libm_intrinsics), and no device-library function of its type stands in for it%s", j->name,
                       optimised ? "the optimiser made a call of" : "calls", LLVMGetValueName2(f, &(size_t){0}),
                       j->t->name, optimised ? "; compile with -O0, or write the math otherwise" : "");
  return GPUBLOB_OK;
}

/* A function the blob would leave undefined: called (or referenced), declared only, not
** weak, not an intrinsic, and not one the spec's undefined_ok leaves to the tool or
** driver.  (Variables are not checked: a declared one can be the target's own, such as
** CUDA's and HIP's extern __shared__ array, whose size comes at launch.) */
static int left_undefined(const job *j, LLVMValueRef f) {
  if (!LLVMIsDeclaration(f) || !LLVMGetFirstUse(f) || LLVMGetIntrinsicID(f) ||
      LLVMGetLinkage(f) == LLVMExternalWeakLinkage)
    return 0;
  return !libm_names_undefined_allowed(j, LLVMGetValueName2(f, &(size_t){0}));
}

/* For one of C's math functions, the device-library name it found no definition for. */
static void add_libm_hint(const job *j, const char *name, size_t n, strbuf *hints) {
  size_t base;
  int is_float;
  strbuf dev = {0};
  if (libm_names_c_function(name, n, &base, &is_float) && libm_names_device_name(j, name, base, is_float, &dev) > 0)
    sb_addf(hints, "; %s is C's, and target %s's device libraries have no %s for it", name, j->t->name,
            sb_str(&dev));
  if (dev.oom) hints->oom = 1;
  sb_free(&dev);
}

/* The functions the module would leave undefined, 'a', 'b' and 'c', into names, hints
** for C's math functions into hints; their count. */
static int undefined_functions(const job *j, strbuf *names, strbuf *hints) {
  int count = 0, i = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(j->llvm->mod); f; f = LLVMGetNextFunction(f))
    count += left_undefined(j, f);
  for (LLVMValueRef f = LLVMGetFirstFunction(j->llvm->mod); f; f = LLVMGetNextFunction(f)) {
    if (!left_undefined(j, f)) continue;
    size_t n;
    const char *name = LLVMGetValueName2(f, &n);
    sb_addf(names, "%s'%s'", !i ? "" : i == count - 1 ? " and " : ", ", name);
    add_libm_hint(j, name, n, hints);
    i++;
  }
  return count;
}

/* A bin blob is whole: a function it would leave undefined is LINK, named, before the
** blob tool's own error (ld.lld's undefined symbol, ptxas's unresolved extern function). */
static int check_undefined(job *j) {
  if (j->format != GPUBLOB_FORMAT_BIN) return GPUBLOB_OK;
  strbuf names = {0}, hints = {0};
  int count = undefined_functions(j, &names, &hints), rc = GPUBLOB_OK;
  if (names.oom || hints.oom)
    rc = handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  else if (count)
    rc = handle_set_error(j->g, GPUBLOB_LINK, "%s: undefined function%s %s: neither the module nor a device library of "
                   "target %s defines %s, and the target leaves %s%s undefined in a blob (the spec's undefined_ok)%s",
                   j->name, count > 1 ? "s" : "", sb_str(&names), j->t->name, count > 1 ? "them" : "it",
                   *j->t->undefined_ok ? "only " : "nothing", j->t->undefined_ok, sb_str(&hints));
  if (rc == GPUBLOB_LINK && devlib_module_lang(j) && !strstr(j->t->lang_libs, devlib_module_lang(j)))
    sb_addf(&j->g->msg, "; the module is %s (!opencl.ocl.version), whose built-ins (get_global_id, ...) need "
            "a library of its language, and target %s names none (the spec's lang_libs)", devlib_module_lang(j),
            j->t->name);
  sb_free(&names);
  sb_free(&hints);
  return rc;
}

/* After optimisation, before the backend: what still resolves nowhere. */
GPUBLOB_PRIVATE int unresolved_check(job *j) {
  int rc = unresolved_check_unselectable(j, 1);
  return rc ? rc : check_undefined(j);
}
