/* src/target_machine.c: The target machine (triple, chip, features, data layout) and the spec's module
** flags. */

/* ---- target machine: triple, chip, features, data layout ---- */
static LLVMCodeGenOptLevel codegen_level(int opt) {
  static const LLVMCodeGenOptLevel levels[] = {LLVMCodeGenLevelNone, LLVMCodeGenLevelLess,
                                               LLVMCodeGenLevelDefault, LLVMCodeGenLevelAggressive};
  return levels[opt];
}

/* The CPU LLVM gets: the spec's llvm_chip for the job's chip (a glob), else the chip. */
static const char *llvm_cpu(const job *j, strbuf *b) {
  const char *list = j->t->llvm_chip, *w;
  size_t n;
  while ((w = util_next_word(&list, " ", &n))) {
    const char *colon = memchr(w, ':', n);
    if (!colon || !util_glob_match(w, (size_t)(colon - w), j->cpu)) continue;
    sb_addn(b, colon + 1, n - (size_t)(colon + 1 - w));
    return sb_str(b);
  }
  return j->cpu;
}

GPUBLOB_PRIVATE _Thread_local target_machine_workers *target_machine_this_worker;

GPUBLOB_PRIVATE void target_machine_workers_free(target_machine_workers *w) {
  for (size_t i = 0; i < w->n; i++) {
    LLVMDisposeTargetMachine(w->v[i].tm);
    sb_free(&w->v[i].key);
  }
  w->n = 0;
}

static void tm_key(const job *j, const char *cpu, strbuf *key) {
  sb_addn(key, j->triple, strlen(j->triple) + 1);
  sb_addn(key, cpu, strlen(cpu) + 1);
  sb_addn(key, sb_str(&j->features), j->features.len + 1);
  sb_addf(key, "%d", j->opt);
  sb_addf(key, "%c%d%d%c%s", 0, j->fp_contract == GPUBLOB_FP_CONTRACT_FAST, j->as, 0, sb_str(&j->mllvm));
}

static LLVMTargetMachineRef worker_tm_find(const strbuf *key) {
  target_machine_workers *w = target_machine_this_worker;
  for (size_t i = 0; w && !key->oom && i < w->n; i++)
    if (w->v[i].key.len == key->len && !memcmp(sb_str(&w->v[i].key), sb_str(key), key->len)) return w->v[i].tm;
  return NULL;
}

/* Keeps tm for the worker's next jobs: 1, or 0 (no worker, or its table is full). */
static int worker_tm_keep(strbuf *key, LLVMTargetMachineRef tm) {
  target_machine_workers *w = target_machine_this_worker;
  if (!w || key->oom || w->n == GPUBLOB_WORKER_TARGET_MACHINES) return 0;
  w->v[w->n].key = *key;
  w->v[w->n++].tm = tm;
  *key = (strbuf){0};
  return 1;
}

/* A new target machine.  --fp-contract fast (clang's -ffp-contract=fast) is its fusion
** setting, AllowFPOpFusion = Fast, as clang and llc -fp-contract=fast set it: the backend
** may fuse any multiply into an add (and NVPTX leaves ptxas free to: mul.f32, not
** mul.rn.f32), where a contract flag on each operation (a build without src/passes.cpp:
** optimise_set_fp_contract) fuses otherwise where an operation feeds two (a*b + expf(x)).  --as
** clang writes assembly with clang -S's comments (MCOptions.AsmVerbose): its text, and
** the PTX lines ptxas -lineinfo's line table counts, are clang's. */
static LLVMTargetMachineRef new_target_machine(job *j, LLVMTargetRef target, const char *cpu) {
  LLVMTargetMachineRef tm = LLVMCreateTargetMachine(target, j->triple, cpu, sb_str(&j->features),
                                                    codegen_level(j->opt), LLVMRelocDefault, LLVMCodeModelDefault);
#if GPUBLOB_LLVM_CXX
  if (tm) gpublob__tm_options(tm, j->fp_contract == GPUBLOB_FP_CONTRACT_FAST, j->as == GPUBLOB_AS_CLANG);
#endif
  return tm;
}

GPUBLOB_PRIVATE int target_machine_make(job *j) {
  LLVMTargetRef target;
  char *err = NULL;
  if (LLVMGetTargetFromTriple(j->triple, &target, &err)) {
    handle_set_error(j->g, GPUBLOB_TARGET, "this LLVM has no backend for %s (%s)", j->triple, err ? err : "");
    LLVMDisposeMessage(err);
    return GPUBLOB_TARGET;
  }
  double t = util_now_ms(); /* the code generator's set-up: counted with emission */
  strbuf cpu = {0}, key = {0};
  const char *chip = llvm_cpu(j, &cpu);
  tm_key(j, chip, &key);
  j->llvm->tm = worker_tm_find(&key);
  j->llvm->tm_kept = j->llvm->tm != NULL;
  if (!j->llvm->tm && (j->llvm->tm = new_target_machine(j, target, chip)))
    j->llvm->tm_kept = worker_tm_keep(&key, j->llvm->tm);
  sb_free(&cpu);
  sb_free(&key);
  j->ms[PH_EMIT] += util_now_ms() - t;
  if (!j->llvm->tm)
    return handle_set_error(j->g, GPUBLOB_TARGET, "cannot create a target machine for %s", j->triple);
  LLVMSetTarget(j->llvm->mod, j->triple);
  LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(j->llvm->tm);
  char *layout = LLVMCopyStringRepOfTargetData(dl);
  LLVMSetDataLayout(j->llvm->mod, layout);
  LLVMDisposeMessage(layout);
  LLVMDisposeTargetData(dl);
  return GPUBLOB_OK;
}

/* ---- module flags from the spec (NAME=BEHAVIOUR:VALUE) ---- */
/* The job's list: an MLIR input's job has its peer's, the spec's mlir_module_flags
** (mlir-opt-22's NVVM serialiser writes none; ROCDL's the code object version). */
GPUBLOB_PRIVATE const char *target_machine_job_module_flags(const job *j) {
  return j->mlir_input ? j->t->mlir_module_flags : j->t->module_flags;
}

static LLVMModuleFlagBehavior flag_behaviour(const char *s, size_t n) {
  static const char *const names[] = {"error", "warning", "require", "override", "append",
                                      "appendunique"};
  static const LLVMModuleFlagBehavior values[] = {
      LLVMModuleFlagBehaviorError,    LLVMModuleFlagBehaviorWarning,
      LLVMModuleFlagBehaviorRequire,  LLVMModuleFlagBehaviorOverride,
      LLVMModuleFlagBehaviorAppend,   LLVMModuleFlagBehaviorAppendUnique};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (util_word_is(s, n, names[i])) return values[i];
  return LLVMModuleFlagBehaviorError;
}

static void add_module_flag(job *j, const char *w, size_t n) {
  const char *eq = memchr(w, '=', n), *colon = eq ? memchr(eq, ':', n - (size_t)(eq - w)) : NULL;
  if (!colon) return;
  size_t kn = (size_t)(eq - w);
  if (LLVMGetModuleFlag(j->llvm->mod, w, kn)) return; /* the module's own value stands */
  strbuf v = {0};
  template_expand(j, colon + 1, n - (size_t)(colon + 1 - w), NULL, &v);
  long value = strtol(sb_str(&v), NULL, 0);
  sb_free(&v);
  LLVMValueRef c = LLVMConstInt(LLVMInt32TypeInContext(j->llvm->ctx), (unsigned long long)value, 1);
  LLVMAddModuleFlag(j->llvm->mod, flag_behaviour(eq + 1, (size_t)(colon - eq - 1)), w, kn,
                    LLVMValueAsMetadata(c));
}

GPUBLOB_PRIVATE void target_machine_add_module_flags(job *j) {
  const char *list = target_machine_job_module_flags(j), *w;
  size_t n;
  while ((w = util_next_word(&list, " ", &n))) add_module_flag(j, w, n);
}
