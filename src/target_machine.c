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
  while ((w = next_word(&list, " ", &n))) {
    const char *colon = memchr(w, ':', n);
    if (!colon || !glob_match(w, (size_t)(colon - w), j->cpu)) continue;
    sb_addn(b, colon + 1, n - (size_t)(colon + 1 - w));
    return sb_str(b);
  }
  return j->cpu;
}

static int make_target_machine(job *j) {
  LLVMTargetRef target;
  char *err = NULL;
  if (LLVMGetTargetFromTriple(j->triple, &target, &err)) {
    set_error(j->g, GPUBLOB_TARGET, "this LLVM has no backend for %s (%s)", j->triple, err ? err : "");
    LLVMDisposeMessage(err);
    return GPUBLOB_TARGET;
  }
  double t = now_ms(); /* the code generator's set-up: counted with emission */
  strbuf cpu = {0};
  j->llvm->tm = LLVMCreateTargetMachine(target, j->triple, llvm_cpu(j, &cpu), sb_str(&j->features),
                                  codegen_level(j->opt), LLVMRelocDefault, LLVMCodeModelDefault);
  sb_free(&cpu);
  j->ms[PH_EMIT] += now_ms() - t;
  if (!j->llvm->tm)
    return set_error(j->g, GPUBLOB_TARGET, "cannot create a target machine for %s", j->triple);
  LLVMSetTarget(j->llvm->mod, j->triple);
  LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(j->llvm->tm);
  char *layout = LLVMCopyStringRepOfTargetData(dl);
  LLVMSetDataLayout(j->llvm->mod, layout);
  LLVMDisposeMessage(layout);
  LLVMDisposeTargetData(dl);
  return GPUBLOB_OK;
}

/* ---- module flags from the spec (NAME=BEHAVIOUR:VALUE) ---- */
static LLVMModuleFlagBehavior flag_behaviour(const char *s, size_t n) {
  static const char *const names[] = {"error", "warning", "require", "override", "append",
                                      "appendunique"};
  static const LLVMModuleFlagBehavior values[] = {
      LLVMModuleFlagBehaviorError,    LLVMModuleFlagBehaviorWarning,
      LLVMModuleFlagBehaviorRequire,  LLVMModuleFlagBehaviorOverride,
      LLVMModuleFlagBehaviorAppend,   LLVMModuleFlagBehaviorAppendUnique};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (word_is(s, n, names[i])) return values[i];
  return LLVMModuleFlagBehaviorError;
}

static void add_module_flag(job *j, const char *w, size_t n) {
  const char *eq = memchr(w, '=', n), *colon = eq ? memchr(eq, ':', n - (size_t)(eq - w)) : NULL;
  if (!colon) return;
  size_t kn = (size_t)(eq - w);
  if (LLVMGetModuleFlag(j->llvm->mod, w, kn)) return; /* the module's own value stands */
  strbuf v = {0};
  expand(j, colon + 1, n - (size_t)(colon + 1 - w), NULL, &v);
  long value = strtol(sb_str(&v), NULL, 0);
  sb_free(&v);
  LLVMValueRef c = LLVMConstInt(LLVMInt32TypeInContext(j->llvm->ctx), (unsigned long long)value, 1);
  LLVMAddModuleFlag(j->llvm->mod, flag_behaviour(eq + 1, (size_t)(colon - eq - 1)), w, kn,
                    LLVMValueAsMetadata(c));
}

static void add_module_flags(job *j) {
  const char *list = j->t->module_flags, *w;
  size_t n;
  while ((w = next_word(&list, " ", &n))) add_module_flag(j, w, n);
}
