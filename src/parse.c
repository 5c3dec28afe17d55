/* src/parse.c: Parse and verify: the module in the job's own LLVMContext, debug info checked
** before LLVM would abort on it; and the bracket scan of text (a text input's nesting,
** MLIR's attribute text) that the call and MLIR's plan read with. */

/* ---- bracket depth: text with strings and comments skipped, brackets ( [ { < counted ---- */

/* Byte i of p (n bytes): a string or a comment skipped (returns its last byte), a bracket counted. */
GPUBLOB_PRIVATE size_t parse_bracket_scan(const char *p, size_t n, size_t i, unsigned how, long *depth) {
  char c = p[i];
  if (c == '"')
    for (i++; i < n && p[i] != '"'; i++) i += (how & SCAN_ESCAPES) && p[i] == '\\' && i + 1 < n;
  else if (((how & SCAN_SEMI_COMMENTS) && c == ';') ||
           ((how & SCAN_SLASH_COMMENTS) && c == '/' && i + 1 < n && p[i + 1] == '/'))
    while (i + 1 < n && p[i + 1] != '\n') i++;
  else if (c && strchr("([{<", c))
    ++*depth;
  else if (c && strchr(")]}>", c) && !((how & SCAN_FLOOR) && !*depth) &&
           !((how & SCAN_ARROWS) && c == '>' && i && p[i - 1] == '-'))
    --*depth;
  return i;
}

/* ---- parse and verify ---- */
/* data must hold a NUL at data[size]. */
GPUBLOB_PRIVATE int parse_module(job *j, const unsigned char *data, size_t size) {
  int bitcode = input_looks_like_bitcode(data, size);
  if (!bitcode && input_has_suffix(j->name, ".bc"))
    return handle_set_error(j->g, GPUBLOB_BITCODE, "%s: not LLVM bitcode (no bitcode magic)", j->name);
  int rc = llvm_start(j);
  if (rc) return rc;
  LLVMMemoryBufferRef buf =
      LLVMCreateMemoryBufferWithMemoryRange((const char *)data, size, j->name, 1);
  char *err = NULL;
  double t = util_now_ms();
  LLVMBool failed = LLVMParseIRInContext2(j->llvm->ctx, buf, &j->llvm->mod, &err);
  j->ms[PH_LOAD] += util_now_ms() - t;
  LLVMDisposeMemoryBuffer(buf);
  if (failed) {
    j->llvm->mod = NULL;
    rc = handle_set_error(j->g, bitcode ? GPUBLOB_BITCODE : GPUBLOB_PARSE, "%s: cannot parse %s", j->name,
                   bitcode ? "bitcode" : "LLVM IR");
    handle_add_detail(j->g, err ? err : sb_str(&j->diag));
  }
  LLVMDisposeMessage(err);
  return rc;
}

static int verify_text(job *j, char **err) {
  double t = util_now_ms();
  LLVMBool bad = LLVMVerifyModule(j->llvm->mod, LLVMReturnStatusAction, err);
  j->ms[PH_LOAD] += util_now_ms() - t;
  return bad;
}

/* LLVM's own upgrade of debug info (which aborts the process on a broken module)
** is turned off at initialisation; this does its work after verification: debug
** info of another version is dropped, and so is debug info that alone fails. */
GPUBLOB_PRIVATE int parse_verify_module(job *j) {
  char *err = NULL;
  int bad = verify_text(j, &err);
  if (bad && LLVMStripModuleDebugInfo(j->llvm->mod)) {
    char *again = NULL;
    if (!verify_text(j, &again)) {
      handle_add_warning(j->g, "%s: its debug info is broken and was dropped: %.200s", j->name, err ? err : "");
      bad = 0;
    }
    LLVMDisposeMessage(again);
  }
  if (bad) {
    handle_set_error(j->g, GPUBLOB_VERIFY, "%s: the module fails verification", j->name);
    handle_add_detail(j->g, err ? err : "");
  }
  LLVMDisposeMessage(err);
  unsigned version = LLVMGetModuleDebugMetadataVersion(j->llvm->mod);
  if (!bad && version != LLVMDebugMetadataVersion() && LLVMStripModuleDebugInfo(j->llvm->mod))
    handle_add_warning(j->g, "%s: debug info of version %u (this LLVM reads %u) was dropped", j->name, version,
                LLVMDebugMetadataVersion());
  return bad ? GPUBLOB_VERIFY : GPUBLOB_OK;
}

/* A call of another target's intrinsics would abort the backend: refuse it here.
** Besides the spec's targets, the namespaces of LLVM 22's CPU and other backends'
** intrinsics (IntrinsicsXXX.td's TargetPrefix): none of those can be selected. */
static const char llvm_intrinsic_namespaces[] =
    "aarch64 amdgcn arm bpf dx hexagon loongarch mips nvvm ppc r600 riscv s390 spv ve wasm x86 xcore";

/* The namespace of intrinsic llvm.NS.name (n bytes): NS, *nn bytes; NULL when none. */
static const char *intrinsic_namespace(const char *name, size_t n, size_t *nn) {
  const char *dot = n > 5 ? memchr(name + 5, '.', n - 5) : NULL;
  if (!dot) return NULL;
  *nn = (size_t)(dot - name - 5);
  return name + 5;
}

static const target_desc *intrinsic_owner(const char *ns, size_t n) {
  for (int i = 0; i < target_count(); i++)
    if (util_list_index(target_at(i)->intrinsics, ns, n) >= 0) return target_at(i);
  return NULL;
}

GPUBLOB_PRIVATE int parse_check_intrinsics(job *j) {
  for (LLVMValueRef f = LLVMGetFirstFunction(j->llvm->mod); f; f = LLVMGetNextFunction(f)) {
    size_t n, nn;
    const char *name = LLVMGetValueName2(f, &n);
    const char *ns = LLVMGetIntrinsicID(f) ? intrinsic_namespace(name, n, &nn) : NULL;
    if (!ns || util_list_index(j->t->intrinsics, ns, nn) >= 0) continue;
    const target_desc *owner = intrinsic_owner(ns, nn);
    if (owner)
      return handle_set_error(j->g, GPUBLOB_TARGET,
                       "%s: calls %s, an intrinsic of target %s, which target %s cannot compile",
                       j->name, name, owner->name, j->t->name);
    if (util_list_index(llvm_intrinsic_namespaces, ns, nn) >= 0)
      return handle_set_error(j->g, GPUBLOB_TARGET,
                       "%s: calls %s, an intrinsic of LLVM's %.*s backend, which target %s cannot compile",
                       j->name, name, (int)nn, ns, j->t->name);
  }
  return GPUBLOB_OK;
}
