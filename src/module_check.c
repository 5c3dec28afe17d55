/* src/module_check.c: What the module asks of its target: its triple, entry points, intrinsics and
** symbols, refused with a message before the backend could fail on them. */

/* ---- what the module asks of its target: triple, entry points, symbols ---- */
static const target_desc *target_of_arch(const char *triple, size_t n) {
  for (int i = 0; i < target_count(); i++)
    if (triple_arch(target_at(i)->triple) == n && !strncmp(target_at(i)->triple, triple, n)) return target_at(i);
  return NULL;
}

/* A module made for another architecture (its triple's first part) is refused:
** its data layout, conventions and intrinsics are another backend's.  One for a
** version of the target's (clang -target spirv64v1.5) keeps its triple. */
GPUBLOB_PRIVATE int module_check_triple(job *j) {
  const char *triple = LLVMGetTarget(j->llvm->mod);
  size_t n = triple_arch(triple), sn = triple_arch(j->t->triple);
  if (strlen(j->t->triple) >= sizeof j->triple)
    return handle_set_error(j->g, GPUBLOB_TARGET, "target %s: the spec's triple %s is longer than %zu bytes",
                     j->t->name, j->t->triple, sizeof j->triple - 1);
  strcpy(j->triple, j->t->triple);
  if (!*triple || (n == sn && !strncmp(triple, j->t->triple, n))) return GPUBLOB_OK;
  if (triple_is_subarch(triple, n, j->t->triple, sn) && strlen(triple) < sizeof j->triple) {
    strcpy(j->triple, triple);
    return GPUBLOB_OK;
  }
  const target_desc *owner = target_of_arch(triple, n);
  if (owner)
    return handle_set_error(j->g, GPUBLOB_TARGET, "%s: the module is for target %s (triple %s), not %s; compile it "
                     "with -t %s", j->name, owner->name, triple, j->t->name, owner->name);
  return handle_set_error(j->g, GPUBLOB_TARGET, "%s: triple %s is not a GPU target of the spec (target %s is %s)",
                   j->name, triple, j->t->name, j->t->triple);
}

static int cc_listed(const char *list, unsigned cc) {
  const char *w;
  size_t n;
  while ((w = util_next_word(&list, " ", &n)))
    if (strtoul(w, NULL, 10) == cc) return 1;
  return 0;
}

GPUBLOB_PRIVATE int module_check_is_entry(const job *j, LLVMValueRef f) {
  return cc_listed(j->t->entry_cc, LLVMGetFunctionCallConv(f));
}

static int same_arch(const target_desc *a, const target_desc *b) {
  size_t n = triple_arch(a->triple);
  return n == triple_arch(b->triple) && !strncmp(a->triple, b->triple, n);
}

/* The target whose entry points use calling convention cc, when it is another
** backend's (two spec targets of one architecture share their conventions). */
static const target_desc *foreign_entry(const job *j, unsigned cc) {
  if (cc_listed(j->t->entry_cc, cc)) return NULL;
  for (int i = 0; i < target_count(); i++)
    if (!same_arch(target_at(i), j->t) && cc_listed(target_at(i)->entry_cc, cc)) return target_at(i);
  return NULL;
}

/* A kernel of another target would compile to a blob without it: refused.  A bin
** blob without any entry point is worth a warning: nothing in it can be launched. */
GPUBLOB_PRIVATE int module_check_entries(job *j) {
  int entries = 0;
  LLVMValueRef odd = NULL; /* a definition of another convention than C's */
  for (LLVMValueRef f = LLVMGetFirstFunction(j->llvm->mod); f; f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f)) continue;
    unsigned cc = LLVMGetFunctionCallConv(f);
    const target_desc *owner = foreign_entry(j, cc);
    if (owner)
      return handle_set_error(j->g, GPUBLOB_TARGET, "%s: @%s is a kernel of target %s (its calling convention), "
                       "which target %s has no entry point for", j->name, LLVMGetValueName2(f, &(size_t){0}),
                       owner->name, j->t->name);
    entries += module_check_is_entry(j, f);
    if (!odd && cc != LLVMCCallConv && cc != LLVMFastCallConv && cc != LLVMColdCallConv && !module_check_is_entry(j, f))
      odd = f;
  }
  if (!entries && j->format == GPUBLOB_FORMAT_BIN && *j->t->entry_cc) {
    strbuf why = {0};
    if (odd)
      sb_addf(&why, "; @%s has calling convention %u, not an entry point's, so it is dropped as an internal "
              "function", LLVMGetValueName2(odd, &(size_t){0}), LLVMGetFunctionCallConv(odd));
    handle_add_warning(j->g, "%s: no kernel for %s (no function has its entry calling convention), so the %s "
                "blob holds no code%s", j->name, j->t->name, j->t->suffix_bin, sb_str(&why));
    sb_free(&why);
  }
  return GPUBLOB_OK;
}

/* The module's kernels as the backend emitted them (after code generation, which may
** rename a symbol the target cannot name), for magic_check_blob: the blob a tool makes of
** them must hold each public one (a kernel of local linkage may be left out: LLVM's
** AMDGPU backend records none in its note) and no other kernel (src/magic.c).  Only
** a bin job of a target with entry points (the spec's entry_cc) knows them.  Each:
** a byte (1: public), a u32 length (little-endian), the name's bytes. */
GPUBLOB_PRIVATE int module_check_note_kernels(job *j) {
  sb_reset(&j->kernels);
  j->kernels_known = 0;
  if (j->format != GPUBLOB_FORMAT_BIN || !*j->t->entry_cc) return GPUBLOB_OK;
  for (LLVMValueRef f = LLVMGetFirstFunction(j->llvm->mod); f; f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f) || !module_check_is_entry(j, f)) continue;
    size_t n;
    const char *name = LLVMGetValueName2(f, &n);
    LLVMLinkage l = LLVMGetLinkage(f);
    unsigned char head[5] = {l != LLVMInternalLinkage && l != LLVMPrivateLinkage, (unsigned char)n,
                             (unsigned char)(n >> 8), (unsigned char)(n >> 16), (unsigned char)(n >> 24)};
    sb_addn(&j->kernels, (const char *)head, sizeof head);
    sb_addn(&j->kernels, name, n);
  }
  if (j->kernels.oom) return handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  j->kernels_known = 1;
  return GPUBLOB_OK;
}

/* Does c fall in a set like "A-Za-z0-9_$"? */
static int in_char_set(const char *set, char c) {
  for (const char *p = set; *p; p++) {
    if (p[1] == '-' && p[2]) {
      if (c >= p[0] && c <= p[2]) return 1;
      p += 2;
    } else if (*p == c) {
      return 1;
    }
  }
  return 0;
}

/* A public symbol the target's assembler cannot name aborts its backend. */
static int check_symbol(job *j, LLVMValueRef v) {
  LLVMLinkage l = LLVMGetLinkage(v);
  size_t n;
  const char *name = LLVMGetValueName2(v, &n);
  if (l == LLVMInternalLinkage || l == LLVMPrivateLinkage || l == LLVMAppendingLinkage || !n) return GPUBLOB_OK;
  if (n > 5 && !strncmp(name, "llvm.", 5)) return GPUBLOB_OK; /* llvm.used, intrinsics: never emitted */
  for (size_t i = 0; i < n; i++)
    if (!in_char_set(j->t->symbol_chars, name[i]))
      return handle_set_error(j->g, GPUBLOB_VERIFY, "%s: public symbol '%s' holds '%c', which target %s cannot "
                       "name (allowed: %s); rename it or make it internal", j->name, name, name[i],
                       j->t->name, j->t->symbol_chars);
  return GPUBLOB_OK;
}

GPUBLOB_PRIVATE int module_check_symbols(job *j) {
  if (!*j->t->symbol_chars) return GPUBLOB_OK;
  int rc = GPUBLOB_OK;
  for (LLVMValueRef f = LLVMGetFirstFunction(j->llvm->mod); f && !rc; f = LLVMGetNextFunction(f)) rc = check_symbol(j, f);
  for (LLVMValueRef g = LLVMGetFirstGlobal(j->llvm->mod); g && !rc; g = LLVMGetNextGlobal(g)) rc = check_symbol(j, g);
  for (LLVMValueRef a = LLVMGetFirstGlobalAlias(j->llvm->mod); a && !rc; a = LLVMGetNextGlobalAlias(a)) rc = check_symbol(j, a);
  return rc;
}
