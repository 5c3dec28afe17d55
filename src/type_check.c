/* src/type_check.c: LLVM types a backend cannot lower (the spec's unsupported_types), refused
** before it sees them: LLVM 22's SPIR-V backend ends the process on any bfloat ("requires
** the SPIR-V extension SPV_KHR_bfloat16") and on fp128 math ("unable to legalize"), and
** writes an invalid OpTypeFloat 128 for the rest of fp128.  Checked on the module that
** reaches the backend (after optimisation, which may have removed a use), so the
** answer is TARGET naming the type and where it is, in-process or isolated. */

/* ---- types the backend cannot lower ---- */
/* The spec's name of a type kind that may be listed; NULL for the rest. */
static const char *type_kind_name(LLVMTypeKind k) {
  switch (k) {
  case LLVMHalfTypeKind: return "half";
  case LLVMBFloatTypeKind: return "bfloat";
  case LLVMFloatTypeKind: return "float";
  case LLVMDoubleTypeKind: return "double";
  case LLVMFP128TypeKind: return "fp128";
  case LLVMX86_FP80TypeKind: return "x86_fp80";
  case LLVMPPC_FP128TypeKind: return "ppc_fp128";
  default: return NULL;
  }
}

/* The listed type ty holds (itself, or an element, to a bounded depth); NULL for none. */
static const char *listed_type_in(const char *list, LLVMTypeRef ty, int depth) {
  if (!ty || depth > 32) return NULL;
  LLVMTypeKind k = LLVMGetTypeKind(ty);
  const char *name = type_kind_name(k);
  if (name) return util_list_index(list, name, strlen(name)) >= 0 ? name : NULL;
  if (k == LLVMArrayTypeKind || k == LLVMVectorTypeKind || k == LLVMScalableVectorTypeKind)
    return listed_type_in(list, LLVMGetElementType(ty), depth + 1);
  if (k == LLVMFunctionTypeKind) {
    const char *found = listed_type_in(list, LLVMGetReturnType(ty), depth + 1);
    unsigned n = LLVMCountParamTypes(ty);
    LLVMTypeRef *params = n ? malloc(n * sizeof *params) : NULL;
    if (params) LLVMGetParamTypes(ty, params);
    for (unsigned i = 0; params && !found && i < n; i++) found = listed_type_in(list, params[i], depth + 1);
    free(params);
    return found;
  }
  if (k != LLVMStructTypeKind) return NULL;
  const char *found = NULL;
  unsigned n = LLVMCountStructElementTypes(ty);
  for (unsigned i = 0; !found && i < n; i++) found = listed_type_in(list, LLVMStructGetTypeAtIndex(ty, i), depth + 1);
  return found;
}

/* What an instruction touches: its own type, its operands', and the types it names. */
static const char *listed_in_instruction(const char *list, LLVMValueRef i) {
  const char *found = listed_type_in(list, LLVMTypeOf(i), 0);
  int n = LLVMGetNumOperands(i);
  for (int k = 0; !found && k < n; k++) found = listed_type_in(list, LLVMTypeOf(LLVMGetOperand(i, (unsigned)k)), 0);
  if (!found && LLVMIsAAllocaInst(i)) found = listed_type_in(list, LLVMGetAllocatedType(i), 0);
  if (!found && LLVMIsAGetElementPtrInst(i)) found = listed_type_in(list, LLVMGetGEPSourceElementType(i), 0);
  if (!found && LLVMIsACallInst(i)) found = listed_type_in(list, LLVMGetCalledFunctionType(i), 0);
  return found;
}

static int type_error(job *j, const char *type, const char *what, LLVMValueRef v) {
  return handle_set_error(j->g, GPUBLOB_TARGET, "%s: %s @%s uses type %s, which target %s cannot lower (the spec's "
                   "unsupported_types: %s); use another type for it", j->name, what,
                   LLVMGetValueName2(v, &(size_t){0}), type, j->t->name, j->t->unsupported_types);
}

static int check_function_types(job *j, LLVMValueRef f) {
  const char *found = listed_type_in(j->t->unsupported_types, LLVMGlobalGetValueType(f), 0);
  if (found) return type_error(j, found, "function", f);
  for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
    for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i))
      if ((found = listed_in_instruction(j->t->unsupported_types, i))) return type_error(j, found, "function", f);
  return GPUBLOB_OK;
}

/* Before the backend: every global's and function's type, and every instruction's. */
GPUBLOB_PRIVATE int type_check_unsupported_types(job *j) {
  if (!*j->t->unsupported_types || j->format == GPUBLOB_FORMAT_LLVM || j->format == GPUBLOB_FORMAT_LL)
    return GPUBLOB_OK;
  int rc = GPUBLOB_OK;
  for (LLVMValueRef g = LLVMGetFirstGlobal(j->llvm->mod); g && !rc; g = LLVMGetNextGlobal(g)) {
    const char *found = listed_type_in(j->t->unsupported_types, LLVMGlobalGetValueType(g), 0);
    if (found) rc = type_error(j, found, "global", g);
  }
  for (LLVMValueRef f = LLVMGetFirstFunction(j->llvm->mod); f && !rc; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f) || LLVMGetFirstUse(f)) rc = check_function_types(j, f);
  return rc;
}
