/* src/optimise.c: Whole program and optimisation: a blob keeps its entry points, and the new pass
** manager runs the level asked for. */

/* ---- whole program: where the spec says so, a module keeps its entry points ---- */
/* A target whose peer compiles a whole program (the spec's internalize = yes: clang's
** HIP, -amdgpu-internalize-symbols) makes the functions that are not entries (the
** spec's entry_cc) internal before optimisation, in each format the backend runs for,
** so that -f asm prints what -f bin assembles (-f llvm and -f ll keep them public): those no entry reaches are dropped.  A target whose
** peer keeps them (clang's CUDA: internalize = no) leaves every linkage alone, in
** every format, so the cubin is ptxas's of the very PTX -f asm prints.  A module with
** no entry (a library compiled whole) keeps its functions.  Global variables stay
** visible: the driver can look them up. */
static int has_entry(job *j) {
  for (LLVMValueRef f = LLVMGetFirstFunction(j->llvm->mod); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f) && module_check_is_entry(j, f)) return 1;
  return 0;
}

GPUBLOB_PRIVATE void optimise_keep_entries(job *j) {
  int backend = j->format == GPUBLOB_FORMAT_ASM || j->format == GPUBLOB_FORMAT_BIN; /* not -f llvm, ll */
  if (!backend || j->t->internalize != INTERNALIZE_yes || !*j->t->entry_cc ||
      (j->flags & GPUBLOB_FLAG_BACKEND_ONLY) || !has_entry(j))
    return;
  for (LLVMValueRef f = LLVMGetFirstFunction(j->llvm->mod); f; f = LLVMGetNextFunction(f)) {
    LLVMLinkage l = LLVMGetLinkage(f);
    if (!LLVMIsDeclaration(f) && l != LLVMInternalLinkage && l != LLVMPrivateLinkage && !module_check_is_entry(j, f))
      devlib_make_internal(f);
  }
}

/* ---- optimisation with the new pass manager ---- */
/* An asm or bin keeps every function when no entry point selects what lives: a
** module with no kernel, such as a device library compiled whole.  There the middle
** end specialises nothing, and the backend's own pipeline is what llc runs; kernels
** keep it (it inlines their calls). */
static int keeps_every_function(job *j) {
  if (j->format != GPUBLOB_FORMAT_ASM && j->format != GPUBLOB_FORMAT_BIN) return 0;
  return !has_entry(j);
}

/* ---- floating-point contraction, for the backend (options' fp_contract) ---- */
/* FAST is the target machine's fusion setting (new_target_machine: AllowFPOpFusion =
** Fast, clang's -ffp-contract=fast), so the backend forms FMA pairs as clang does; a
** build without src/passes.cpp, where LLVM's C API does not reach it, puts the
** contract flag on every fadd, fsub and fmul instead (which fuses otherwise where one
** operation feeds two).  OFF: the flag goes from each (src/passes.cpp: the C API's
** LLVMSetFastMathFlags only adds flags, so a build without it refuses OFF, in
** resolve_levels).  ON: the IR as it is.  After the middle end, so the optimiser
** works as before. */
GPUBLOB_PRIVATE void optimise_set_fp_contract(job *j) {
  if (j->fp_contract == GPUBLOB_FP_CONTRACT_ON) return;
#if GPUBLOB_LLVM_CXX
  if (j->fp_contract == GPUBLOB_FP_CONTRACT_OFF) gpublob__drop_contract(j->llvm->mod);
  return;
#endif
  int fast = j->fp_contract == GPUBLOB_FP_CONTRACT_FAST;
  for (LLVMValueRef f = LLVMGetFirstFunction(j->llvm->mod); f; f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
      for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
        LLVMOpcode op = LLVMGetInstructionOpcode(i);
        if ((op != LLVMFAdd && op != LLVMFSub && op != LLVMFMul) || !LLVMCanValueUseFastMathFlags(i)) continue;
        LLVMFastMathFlags m = LLVMGetFastMathFlags(i);
        LLVMSetFastMathFlags(i, fast ? m | LLVMFastMathAllowContract : m & ~(LLVMFastMathFlags)LLVMFastMathAllowContract);
      }
}

/* BACKEND_ONLY: no middle end (the module's producer ran its own); what nothing uses
** goes, as the device libraries' unused linkonce_odr code.  An MLIR input's job runs
** the pipeline as mlir-opt's serialisers do, where the build has src/passes.cpp. */
GPUBLOB_PRIVATE int optimise(job *j) {
  int backend_only = (j->flags & GPUBLOB_FLAG_BACKEND_ONLY) != 0;
  if (j->opt > 0 && !backend_only && keeps_every_function(j)) return GPUBLOB_OK;
#if GPUBLOB_MLIR_PASSES
  if (j->mlir_input && !backend_only) {
    double t0 = util_now_ms();
    gpublob__mlir_passes(j->llvm->mod, j->llvm->tm, j->opt);
    j->ms[PH_OPT] += util_now_ms() - t0;
    return GPUBLOB_OK;
  }
#endif
  char passes[32];
  if (backend_only) snprintf(passes, sizeof passes, "globaldce");
  else snprintf(passes, sizeof passes, "default<O%d>", j->opt);
  LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
  double t = util_now_ms();
  LLVMErrorRef err = LLVMRunPasses(j->llvm->mod, passes, j->llvm->tm, po);
  j->ms[PH_OPT] += util_now_ms() - t;
  LLVMDisposePassBuilderOptions(po);
  if (!err) return GPUBLOB_OK;
  char *msg = LLVMGetErrorMessage(err);
  handle_set_error(j->g, GPUBLOB_BACKEND, "optimisation (%s) failed: %s", passes, msg);
  LLVMDisposeErrorMessage(msg);
  return GPUBLOB_BACKEND;
}
