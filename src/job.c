/* src/job.c: A job, start to end, on whichever thread the pool gives it: the module checked,
** linked, optimised and emitted, then the blob tool and the blob's check. */

/* ---- a job, start to end, on whichever thread the pool gives it ---- */
/* The blob tool's step: the provider in-process, else the program (perhaps started
** early); an object the backend wrote is itself the blob. */
static int run_blob_tool(job *j) {
  if (!tool_choice_needs_blob_tool(j)) {
    if (j->format == GPUBLOB_FORMAT_BIN) j->out.suffix = j->t->suffix_bin; /* the object is the blob */
    return GPUBLOB_OK;
  }
  magic_note_object_flags(j);
  int rc = debug_info_stamp_files(j);
  if (!rc) rc = peer_job_isa_conditions(j);
  /* a tool started before the backend ran took none of the assembly's conditions: one
  ** that holds (ptxas's debug options) starts it again with them */
  if (!rc && j->isa_conds && j->run.p.pid) tool_end(j);
  if (!rc) rc = dump_tool_script(j);
  if (!rc && j->prov) {
    rc = provider_ready(j);
    if (!rc) rc = provider_run(j);
  } else {
    if (!rc && !j->run.p.pid) rc = tool_start(j);
    if (!rc) rc = tool_finish(j);
    if (rc == GPUBLOB_TOOL) tool_version_hint(j);
  }
  if (!rc) rc = tool_report_take(j); /* its report read, its log kept */
  return dump_tool_log(j, rc);
}

static int emit_output(job *j) {
  if (j->format == GPUBLOB_FORMAT_LLVM) return emit_bitcode(j);
  if (j->format == GPUBLOB_FORMAT_LL) return emit_text(j);
  if (j->format == GPUBLOB_FORMAT_ASM) return emit(j, 1);
  int rc = emit(j, j->t->emit == EMIT_asm);
  if (rc || !j->keep_asm) return rc;
  j->asm_out.data = malloc(j->out.size + 1);
  if (!j->asm_out.data) return handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  memcpy(j->asm_out.data, j->out.data, j->out.size + 1);
  j->asm_out.size = j->out.size;
  j->asm_out.suffix = j->t->suffix_asm;
  return GPUBLOB_OK;
}

/* What the module asks of the job's target, checked before LLVM's backend sees it:
** each of these would otherwise abort the process or give a wrong blob. */
/* Inline asm is parsed by a backend that emits objects (the spec's emit = obj),
** even for its assembly output: one without an assembly parser (the spec's
** asm_parser; SPIR-V's) aborts on it.  A backend that emits assembly (PTX) passes
** it through as text. */
static int check_inline_asm(job *j) {
  if (!strcmp(j->t->asm_parser, "yes") || j->format == GPUBLOB_FORMAT_LLVM ||
      j->format == GPUBLOB_FORMAT_LL || j->t->emit != EMIT_obj)
    return GPUBLOB_OK;
  size_t n = 0;
  LLVMGetModuleInlineAsm(j->llvm->mod, &n);
  int calls = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(j->llvm->mod); f && !calls && !n; f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b && !calls; b = LLVMGetNextBasicBlock(b))
      for (LLVMValueRef i = LLVMGetFirstInstruction(b); i && !calls; i = LLVMGetNextInstruction(i))
        calls = LLVMIsACallInst(i) && LLVMIsAInlineAsm(LLVMGetCalledValue(i));
  if (!n && !calls) return GPUBLOB_OK;
  return handle_set_error(j->g, GPUBLOB_TARGET, "%s: holds %s, which target %s cannot assemble (its backend has "
                   "no assembly parser)", j->name,
                   n ? "module-level inline asm" : "inline asm", j->t->name);
}

static int check_module(job *j) {
  int rc = check_inline_asm(j);
  if (!rc) rc = parse_check_intrinsics(j);
  if (!rc) rc = module_check_entries(j);
  if (!rc) rc = module_check_symbols(j);
  if (!rc) rc = pins_check(j);
  return rc;
}

/* The job's time limit (options' job_timeout) in the calling process: LLVM cannot be
** stopped within a phase, so a job past it stops at the end of the phase that ran past
** it, BACKEND naming the limit and the phase.  (An isolated job's process is killed at
** the limit: src/isolate_child.c.) */
static int within_job_timeout(job *j, double t0, const char *phase) {
  if (!j->o->job_timeout || util_now_ms() - t0 <= 1000.0 * j->o->job_timeout) return GPUBLOB_OK;
  return handle_set_error(j->g, GPUBLOB_BACKEND, "%s: compiling for %s:%s ran past the job timeout (%u s, "
                   "--job-timeout) in its %s; in the calling process LLVM cannot be stopped within a phase "
                   "(--isolate stops it at the limit)", j->name, j->t->name, j->chip, j->o->job_timeout, phase);
}

/* Parse (LLVM IR; MLIR's translation gave the module already) through emission:
** the job's LLVM work, the part an isolated job does in a child process.  The
** triple and data layout are set before verification (LLVM's verifier needs them). */
GPUBLOB_PRIVATE int job_llvm(job *j) {
  double t0 = util_now_ms();
  int rc = j->src ? parse_module(j, j->src, j->src_size) : GPUBLOB_OK;
  if (!rc) rc = within_job_timeout(j, t0, "parse");
  if (!rc) rc = dump_module(j, "0-input.ll");
  if (!rc) rc = module_check_triple(j);
  if (!rc) rc = peer_job_language(j);
  if (!rc) rc = pins_adopt_pinned_version(j);
  if (!rc) rc = target_machine_make(j);
  if (!rc) rc = parse_verify_module(j);
  if (!rc) rc = check_module(j);
  if (!rc) rc = debug_info_settle(j);
  if (!rc) rc = constants_module_abi(j);
  if (!rc) target_machine_add_module_flags(j);
  if (!rc) rc = link_files(j);
  if (!rc) rc = devlib_link(j);
  if (!rc) rc = within_job_timeout(j, t0, "device-library link");
  if (!rc) rc = dump_module(j, "1-linked.ll");
  if (!rc) rc = unresolved_check_unselectable(j, 0);
  if (!rc) optimise_keep_entries(j);
  int gated = 0; /* LLVM's options (clang_mllvm) are the job's from here to its emission's end */
  if (!rc) gated = !(rc = peer_llvm_options_enter(j));
  if (!rc) rc = optimise(j);
  if (!rc) rc = llvm_diag_failed(j, "optimisation");
  if (!rc) rc = within_job_timeout(j, t0, "optimisation");
  if (!rc) optimise_set_fp_contract(j);
  if (!rc) rc = dump_module(j, "2-optimised.ll");
  if (!rc) rc = unresolved_check(j);
  if (!rc) rc = type_check_unsupported_types(j);
  dump_isa_saved isa = {NULL, 0};
  if (!rc) isa = dump_isa_copy(j);
  if (!rc) rc = emit_output(j);
  if (!rc) rc = llvm_diag_failed(j, "code generation");
  if (!rc) rc = module_check_note_kernels(j);
  if (!rc) rc = within_job_timeout(j, t0, "code generation");
  rc = dump_emitted(j, isa, rc);
  if (gated) peer_llvm_options_leave();
  return rc;
}

/* A job start to end.  The blob tool starts first when it can overlap the compile.
** The job's LLVM objects go as soon as it ends; its blob stays.  Its phase times
** hold only LLVM's own work and the blob tool's: what is left of a call's wall
** time is gpublob's overhead. */
GPUBLOB_PRIVATE int job_run(job *j) {
  double t = util_now_ms();
  int rc = tool_early(j) ? tool_start(j) : GPUBLOB_OK;
  j->ms[PH_TOOL] += util_now_ms() - t;
  if (!rc) rc = j->flags & GPUBLOB_FLAG_ISOLATE ? isolate_host_job(j) : job_llvm(j);
  t = util_now_ms();
  if (!rc) rc = run_blob_tool(j);
  if (!rc) rc = magic_check_blob(j);
  j->ms[PH_TOOL] += util_now_ms() - t;
  j->state = rc ? JOB_FAILED : JOB_DONE;
  llvm_job_release(j);
  return rc;
}

/* A thread with a stack of size bytes (a smaller one if that cannot be had). */
GPUBLOB_PRIVATE int job_thread_start(pthread_t *t, size_t size, void *(*fn)(void *), void *arg) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  int rc = pthread_attr_setstacksize(&attr, size);
  if (!rc) rc = pthread_create(t, &attr, fn, arg);
  if (rc) {
    pthread_attr_setstacksize(&attr, 16u << 20);
    rc = pthread_create(t, &attr, fn, arg);
  }
  pthread_attr_destroy(&attr);
  return rc;
}
