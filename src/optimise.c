/* src/optimise.c: Whole program and optimisation: a blob keeps its entry points, and the new pass
** manager runs the level asked for. */

/* ---- whole program: a blob keeps its entry points, the optimiser drops the rest ---- */
/* A cubin or hsaco is whole-program: nothing but its kernels can be called from
** outside (ptxas drops every function no kernel reaches).  So for bin, functions
** that are not entries (the spec's entry_cc) become internal before optimisation,
** and those no entry reaches are not optimised and compiled for nothing.
** Global variables stay visible: the driver can look them up. */
static void keep_entries(job *j) {
  if (j->format != GPUBLOB_FORMAT_BIN || !*j->t->entry_cc || (j->flags & GPUBLOB_FLAG_BACKEND_ONLY)) return;
  for (LLVMValueRef f = LLVMGetFirstFunction(j->llvm->mod); f; f = LLVMGetNextFunction(f)) {
    LLVMLinkage l = LLVMGetLinkage(f);
    if (!LLVMIsDeclaration(f) && l != LLVMInternalLinkage && l != LLVMPrivateLinkage && !is_entry(j, f))
      make_internal(f);
  }
}

/* ---- optimisation with the new pass manager ---- */
/* A blob keeps every function when no entry point selects what lives: an asm (or a
** bin of a target without entry points) of a module with no kernel, such as a device
** library compiled whole.  There the middle end specialises nothing, and the
** backend's own pipeline is what llc runs; kernels keep it (it inlines their calls). */
static int keeps_every_function(job *j) {
  if (j->format != GPUBLOB_FORMAT_ASM && (j->format != GPUBLOB_FORMAT_BIN || *j->t->entry_cc)) return 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(j->llvm->mod); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f) && is_entry(j, f)) return 0;
  return 1;
}

/* BACKEND_ONLY: no middle end (the module's producer ran its own); what nothing uses
** goes, as the device libraries' unused linkonce_odr code. */
static int optimise(job *j) {
  int backend_only = (j->flags & GPUBLOB_FLAG_BACKEND_ONLY) != 0;
  if (j->opt > 0 && !backend_only && keeps_every_function(j)) return GPUBLOB_OK;
  char passes[32];
  if (backend_only) snprintf(passes, sizeof passes, "globaldce");
  else snprintf(passes, sizeof passes, "default<O%d>", j->opt);
  LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
  double t = now_ms();
  LLVMErrorRef err = LLVMRunPasses(j->llvm->mod, passes, j->llvm->tm, po);
  j->ms[PH_OPT] += now_ms() - t;
  LLVMDisposePassBuilderOptions(po);
  if (!err) return GPUBLOB_OK;
  char *msg = LLVMGetErrorMessage(err);
  set_error(j->g, GPUBLOB_BACKEND, "optimisation (%s) failed: %s", passes, msg);
  LLVMDisposeErrorMessage(msg);
  return GPUBLOB_BACKEND;
}
