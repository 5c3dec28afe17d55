/* src/llvm.c: LLVM: its C API, one-time initialisation of the spec's backends, a job's LLVM
** state, and a diagnostic handler per job (an error there fails the job). */


/* ---- LLVM: one-time initialisation, and a diagnostic handler per job ---- */
GPUBLOB_PRIVATE pthread_once_t llvm_once = PTHREAD_ONCE_INIT;

/* Only the backends the spec names: a static build links no other. */
GPUBLOB_PRIVATE void llvm_init(void) {
#define GPUBLOB_LLVM_TARGET(x)                                                    \
  LLVMInitialize##x##TargetInfo();                                                \
  LLVMInitialize##x##Target();                                                    \
  LLVMInitialize##x##TargetMC();                                                  \
  LLVMInitialize##x##AsmPrinter();
#define GPUBLOB_LLVM_ASM_PARSER(x) LLVMInitialize##x##AsmParser(); /* inline asm */
#include "gpublob_targets.def"
  /* The IR and bitcode readers upgrade debug info by verifying the module, and abort
  ** the process when it is broken; parse_verify_module does that work instead. */
  const char *const argv[] = {"gpublob", "-disable-auto-upgrade-debug-info"};
  LLVMParseCommandLineOptions(2, argv, NULL);
}

/* An error is remembered: LLVM may go on after one and return success with a
** wrong module (a dynamic alloca compiled as address 0).  A warning is the call's. */
GPUBLOB_PRIVATE void llvm_on_diagnostic(LLVMDiagnosticInfoRef di, void *ctx) {
  job *j = ctx;
  LLVMDiagnosticSeverity sev = LLVMGetDiagInfoSeverity(di);
  if (sev == LLVMDSRemark || sev == LLVMDSNote) return;
  char *text = LLVMGetDiagInfoDescription(di);
  sb_addf(&j->diag, "%s%s: %s", j->diag.len ? "\n" : "", sev == LLVMDSError ? "error" : "warning",
          text);
  if (sev == LLVMDSError) j->diag_errors++;
  else handle_add_warning(j->g, "%s (%s:%s): LLVM: %.300s", j->name, j->t->name, j->chip, text);
  LLVMDisposeMessage(text);
}

/* A step LLVM called a success, failed if it reported an error on the way. */
GPUBLOB_PRIVATE int llvm_diag_failed(job *j, const char *step) {
  if (!j->diag_errors) return GPUBLOB_OK;
  handle_set_error(j->g, GPUBLOB_BACKEND, "%s: LLVM reported an error in %s for %s:%s", j->name, step,
            j->t->name, j->chip);
  handle_add_detail(j->g, sb_str(&j->diag));
  return GPUBLOB_BACKEND;
}

/* The job's LLVM state with a fresh context whose diagnostics are the job's. */
GPUBLOB_PRIVATE int llvm_start(job *j) {
  if (!(j->llvm = calloc(1, sizeof *j->llvm))) return handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  double t0 = util_now_ms();
  j->llvm->ctx = LLVMContextCreate();
  j->ms[PH_LOAD] += util_now_ms() - t0;
  LLVMContextSetDiagnosticHandler(j->llvm->ctx, llvm_on_diagnostic, j);
  return GPUBLOB_OK;
}

/* The job's LLVM objects and a tool still running go; the job itself stays. */
GPUBLOB_PRIVATE void llvm_job_release(job *j) {
  tool_end(j);
  if (!j->llvm) return;
  double t = util_now_ms(); /* LLVM's own teardown: counted with loading, not as gpublob's */
  if (j->llvm->tm && !j->llvm->tm_kept) LLVMDisposeTargetMachine(j->llvm->tm);
  if (j->llvm->mod) LLVMDisposeModule(j->llvm->mod);
  if (j->llvm->ctx) LLVMContextDispose(j->llvm->ctx);
  j->ms[PH_LOAD] += util_now_ms() - t;
  free(j->llvm);
  j->llvm = NULL;
}
