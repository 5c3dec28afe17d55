/* src/constants.c: Control constants: the spec's NAME:TYPE=VALUE list, written into the module
** just before its device libraries link, and the module's own ABI version read first.
**
** Device libraries read the job's settings from constants (AMD's ocml and ockl read
** __oclc_ISA_version, __oclc_daz_opt and friends).  A library file per setting
** (oclc_isa_version_942.bc) ties a chip to a ROCm release: Debian's 5.2 has none for
** gfx942, gfx11 or gfx12.  So the spec says each constant's value as a template of the
** chip's version, the ABI and the math modes, and the core writes it, as MLIR, IREE and
** Triton do; the libraries it then links are only those the module still needs.
** A constant the module already defines (clang linked its own) is left as it is. */

/* ---- the module's ABI version: a module flag whose spec value is {abi} ---- */
/* The value of module flag key (n bytes) as an integer; 0 when it is none or not one.
** Read through llvm.module.flags: the C API gives a flag's operands as values. */
static int module_flag_int(job *j, const char *key, size_t n, unsigned long long *value) {
  const char *flags = "llvm.module.flags";
  unsigned count = LLVMGetNamedMetadataNumOperands(j->llvm->mod, flags);
  LLVMValueRef *nodes = count ? calloc(count, sizeof *nodes) : NULL;
  if (!nodes) return 0;
  LLVMGetNamedMetadataOperands(j->llvm->mod, flags, nodes);
  int found = 0;
  for (unsigned i = 0; i < count && !found; i++) {
    LLVMValueRef ops[3];
    if (LLVMGetMDNodeNumOperands(nodes[i]) != 3) continue;
    LLVMGetMDNodeOperands(nodes[i], ops);
    unsigned kn = 0;
    const char *k = ops[1] ? LLVMGetMDString(ops[1], &kn) : NULL;
    if (!k || kn != n || memcmp(k, key, n) || !ops[2] || !LLVMIsAConstantInt(ops[2])) continue;
    *value = LLVMConstIntGetZExtValue(ops[2]);
    found = 1;
  }
  free(nodes);
  return found;
}

/* A module that names its ABI (clang writes amdhsa_code_object_version) keeps it: it
** must be one the target and chip take, and agree with the options' when they give one. */
static int module_abi(job *j) {
  const char *list = j->t->module_flags, *w;
  size_t n;
  while ((w = next_word(&list, " ", &n))) {
    const char *eq = memchr(w, '=', n), *colon = eq ? memchr(eq, ':', n - (size_t)(eq - w)) : NULL;
    unsigned long long v;
    if (!colon || !word_is(colon + 1, n - (size_t)(colon + 1 - w), "{abi}") ||
        !module_flag_int(j, w, (size_t)(eq - w), &v) || v == j->abi)
      continue;
    if (j->o->abi)
      return set_error(j->g, GPUBLOB_OPTION, "%s: the module's %.*s is %llu, the options' ABI version %u; "
                       "drop one", j->name, (int)(eq - w), w, v, j->o->abi);
    if (v > 1000000)
      return set_error(j->g, GPUBLOB_OPTION, "%s: the module's %.*s, %llu, is no ABI version", j->name,
                       (int)(eq - w), w, v);
    int rc = check_abi(j, (unsigned)v, "the module's own");
    if (rc) return rc;
    j->abi = (unsigned)v;
  }
  return GPUBLOB_OK;
}

/* ---- constants: NAME:TYPE=VALUE, TYPE i8 i16 i32 or i64, VALUE a template ---- */
typedef struct constant {
  strbuf name, value;
  unsigned bits;
} constant;

static int constant_error(job *j, const char *what, const char *w, size_t n) {
  return set_error(j->g, GPUBLOB_LINK, "target %s: constant '%.*s' %s", j->t->name, (int)n, w, what);
}

static int parse_constant(job *j, const char *w, size_t n, constant *c) {
  const char *colon = memchr(w, ':', n), *eq = colon ? memchr(colon, '=', n - (size_t)(colon - w)) : NULL;
  if (!eq) return constant_error(j, "is not NAME:TYPE=VALUE", w, n);
  c->bits = (unsigned)strtoul(colon + 2, NULL, 10);
  if (colon[1] != 'i' || (c->bits != 8 && c->bits != 16 && c->bits != 32 && c->bits != 64))
    return constant_error(j, "has a TYPE that is not i8, i16, i32 or i64", w, n);
  sb_addn(&c->name, w, (size_t)(colon - w));
  expand(j, eq + 1, n - (size_t)(eq + 1 - w), NULL, &c->value);
  if (c->name.oom || c->value.oom) return set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  char *end;
  errno = 0;
  strtoull(sb_str(&c->value), &end, 10);
  if (!c->value.len || *end || errno)
    return set_error(j->g, GPUBLOB_LINK, "target %s: constant %s is '%s' for chip %s, not a number", j->t->name,
                     sb_str(&c->name), sb_str(&c->value), j->chip);
  return GPUBLOB_OK;
}

/* The global the module gets: linkonce_odr, so a library's own definition or the
** optimiser may drop it; protected and local unnamed_addr, as MLIR writes them. */
static int define_constant(job *j, const constant *c) {
  LLVMModuleRef m = j->llvm->mod;
  LLVMTypeRef type = LLVMIntTypeInContext(j->llvm->ctx, c->bits);
  unsigned space = (unsigned)j->t->constant_space;
  LLVMValueRef g = LLVMGetNamedGlobal(m, sb_str(&c->name));
  if (g && !LLVMIsDeclaration(g)) return GPUBLOB_OK; /* the module's own */
  if (g && (LLVMGlobalGetValueType(g) != type || LLVMGetPointerAddressSpace(LLVMTypeOf(g)) != space))
    return set_error(j->g, GPUBLOB_LINK, "%s: the module declares @%s, which gpublob defines as an i%u in "
                     "address space %u, with another type or address space", j->name, sb_str(&c->name),
                     c->bits, space);
  if (!g && LLVMGetNamedFunction(m, sb_str(&c->name)))
    return set_error(j->g, GPUBLOB_LINK, "%s: the module has a function @%s, which gpublob defines as a "
                     "constant", j->name, sb_str(&c->name));
  if (!g) g = LLVMAddGlobalInAddressSpace(m, type, sb_str(&c->name), space);
  LLVMSetInitializer(g, LLVMConstInt(type, strtoull(sb_str(&c->value), NULL, 10), 0));
  LLVMSetGlobalConstant(g, 1);
  LLVMSetLinkage(g, LLVMLinkOnceODRLinkage);
  LLVMSetVisibility(g, LLVMProtectedVisibility);
  LLVMSetUnnamedAddress(g, LLVMLocalUnnamedAddr);
  LLVMSetAlignment(g, c->bits / 8);
  return GPUBLOB_OK;
}

/* Every constant of the spec, or the first error. */
static int write_constants(job *j) {
  const char *list = j->t->constants, *w;
  size_t n;
  int rc = GPUBLOB_OK;
  while (!rc && (w = next_word(&list, " ", &n))) {
    constant c = {0};
    rc = parse_constant(j, w, n, &c);
    if (!rc) rc = define_constant(j, &c);
    sb_free(&c.name);
    sb_free(&c.value);
  }
  return rc;
}
