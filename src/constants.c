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
/* The value of module flag key (n bytes) as an integer: 1, or 0 when the module has no
** such flag, -1 when it has one that is no integer.  Read through llvm.module.flags:
** the C API gives a flag's operands as values. */
static int module_flag_int(job *j, const char *key, size_t n, long long *value) {
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
    if (!k || kn != n || memcmp(k, key, n)) continue;
    found = ops[2] && LLVMIsAConstantInt(ops[2]) ? 1 : -1;
    if (found > 0) *value = LLVMConstIntGetSExtValue(ops[2]);
  }
  free(nodes);
  return found;
}

/* A module that names its ABI (clang writes amdhsa_code_object_version) keeps it: it
** must be one the target and chip take, and agree with the one asked for, if any. */
GPUBLOB_PRIVATE int constants_module_abi(job *j) {
  const char *list = target_machine_job_module_flags(j), *w;
  size_t n;
  while ((w = util_next_word(&list, " ", &n))) {
    const char *eq = memchr(w, '=', n), *colon = eq ? memchr(eq, ':', n - (size_t)(eq - w)) : NULL;
    long long v = 0;
    int kn = eq ? (int)(eq - w) : 0, has;
    if (!colon || !util_word_is(colon + 1, n - (size_t)(colon + 1 - w), "{abi}") ||
        !(has = module_flag_int(j, w, (size_t)kn, &v)) || (has > 0 && v == (long long)j->abi))
      continue;
    if (has < 0 || v < 0 || v > 1000000)
      return handle_set_error(j->g, GPUBLOB_OPTION, "%s: the module's %.*s is no ABI version (%s)", j->name, kn, w,
                       has < 0 ? "not an integer" : "out of range");
    if (j->o->abi)
      return handle_set_error(j->g, GPUBLOB_OPTION, "%s: the module's %.*s is %lld, but the ABI version %s is %u; drop "
                       "one", j->name, kn, w, v, j->abi_from, j->o->abi);
    strbuf from = {0};
    sb_addf(&from, "%s's %.*s", j->name, kn, w);
    int rc = from.oom ? handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory") : resolve_check_abi(j, (unsigned)v, sb_str(&from));
    sb_free(&from);
    if (rc) return rc;
    j->abi = (unsigned)v;
  }
  return GPUBLOB_OK;
}

/* ---- constants: NAME:TYPE=VALUE, TYPE i8 i16 i32 or i64, VALUE a template ----
** NAME:TYPE==VALUE: a module's own definition must have this value (the chip's ISA
** version, its wave size: another chip's would give a wrong blob); with = a module's
** own stands (a math mode clang chose). */
typedef struct constant {
  strbuf name, value;
  unsigned bits;
  int must_agree;
  unsigned long long v;
} constant;

static int constant_error(job *j, const char *what, const char *w, size_t n) {
  return handle_set_error(j->g, GPUBLOB_LINK, "target %s: constant '%.*s' %s", j->t->name, (int)n, w, what);
}

static int parse_constant(job *j, const char *w, size_t n, constant *c) {
  const char *colon = memchr(w, ':', n), *eq = colon ? memchr(colon, '=', n - (size_t)(colon - w)) : NULL;
  if (!eq) return constant_error(j, "is not NAME:TYPE=VALUE", w, n);
  c->bits = (unsigned)strtoul(colon + 2, NULL, 10);
  if (colon[1] != 'i' || (c->bits != 8 && c->bits != 16 && c->bits != 32 && c->bits != 64))
    return constant_error(j, "has a TYPE that is not i8, i16, i32 or i64", w, n);
  c->must_agree = eq + 1 < w + n && eq[1] == '=';
  const char *v = eq + 1 + c->must_agree;
  sb_addn(&c->name, w, (size_t)(colon - w));
  template_expand(j, v, n - (size_t)(v - w), NULL, &c->value);
  if (c->name.oom || c->value.oom) return handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  char *end;
  errno = 0;
  c->v = strtoull(sb_str(&c->value), &end, 10);
  if (!c->value.len || *end || errno || !isdigit((unsigned char)c->value.s[0]) ||
      (c->bits < 64 && c->v >> c->bits))
    return handle_set_error(j->g, GPUBLOB_LINK, "target %s: constant %s is '%s' for chip %s, not a number that fits an i%u",
                     j->t->name, sb_str(&c->name), sb_str(&c->value), j->chip, c->bits);
  return GPUBLOB_OK;
}

/* A module's own definition of a constant that must agree (==) has the job's value:
** OK, or CHIP (OPTION for one the ABI version sets, {abi}) naming both values.  clang's
** HIP output, its device libraries linked in, defines them for the chip it was for. */
static int own_value_agrees(job *j, const constant *c, LLVMValueRef g, const char *tmpl) {
  LLVMValueRef init = LLVMGetInitializer(g);
  if (!c->must_agree) return GPUBLOB_OK;
  if (init && LLVMIsAConstantInt(init) && LLVMConstIntGetZExtValue(init) == c->v) return GPUBLOB_OK;
  int abi = strstr(tmpl, "{abi}") != NULL;
  char own[32] = "not a number";
  if (init && LLVMIsAConstantInt(init)) snprintf(own, sizeof own, "%llu", LLVMConstIntGetZExtValue(init));
  return handle_set_error(j->g, abi ? GPUBLOB_OPTION : GPUBLOB_CHIP, "%s: the module defines @%s as %s, but %s:%s%s "
                   "needs %s (were its device libraries linked for another %s? compile it for this one, or "
                   "without them)", j->name, sb_str(&c->name), own, j->t->name, j->chip, abi ? " at this ABI" : "",
                   sb_str(&c->value), abi ? "ABI version" : "chip");
}

/* The global the module gets: linkonce_odr, so a library's own definition or the
** optimiser may drop it; protected and local unnamed_addr, as MLIR writes them. */
/* A module's own definition: its value checked, and made visible to the libraries
** (an internal one, as clang leaves them, becomes linkonce_odr: the same value). */
static int module_defines(job *j, const constant *c, LLVMValueRef g, const char *tmpl) {
  int rc = own_value_agrees(j, c, g, tmpl);
  LLVMLinkage l = LLVMGetLinkage(g);
  if (!rc && (l == LLVMInternalLinkage || l == LLVMPrivateLinkage)) LLVMSetLinkage(g, LLVMLinkOnceODRLinkage);
  return rc;
}

static int define_constant(job *j, const constant *c, const char *tmpl) {
  LLVMModuleRef m = j->llvm->mod;
  LLVMTypeRef type = LLVMIntTypeInContext(j->llvm->ctx, c->bits);
  unsigned space = (unsigned)j->t->constant_space;
  const char *name = sb_str(&c->name);
  if (LLVMGetNamedGlobalAlias(m, name, c->name.len)) return GPUBLOB_OK; /* the module's own */
  if (LLVMGetNamedGlobalIFunc(m, name, c->name.len))
    return handle_set_error(j->g, GPUBLOB_LINK, "%s: the module has an ifunc @%s, which gpublob defines as a constant",
                     j->name, name);
  LLVMValueRef g = LLVMGetNamedGlobal(m, name);
  if (g && !LLVMIsDeclaration(g)) return module_defines(j, c, g, tmpl);
  if (g && (LLVMGlobalGetValueType(g) != type || LLVMGetPointerAddressSpace(LLVMTypeOf(g)) != space))
    return handle_set_error(j->g, GPUBLOB_LINK, "%s: the module declares @%s, which gpublob defines as an i%u in "
                     "address space %u, with another type or address space", j->name, sb_str(&c->name),
                     c->bits, space);
  if (!g && LLVMGetNamedFunction(m, sb_str(&c->name)))
    return handle_set_error(j->g, GPUBLOB_LINK, "%s: the module has a function @%s, which gpublob defines as a "
                     "constant", j->name, sb_str(&c->name));
  if (!g) g = LLVMAddGlobalInAddressSpace(m, type, sb_str(&c->name), space);
  LLVMSetInitializer(g, LLVMConstInt(type, c->v, 0));
  LLVMSetGlobalConstant(g, 1);
  LLVMSetLinkage(g, LLVMLinkOnceODRLinkage);
  LLVMSetVisibility(g, LLVMProtectedVisibility);
  LLVMSetUnnamedAddress(g, LLVMLocalUnnamedAddr);
  LLVMSetAlignment(g, c->bits / 8);
  return GPUBLOB_OK;
}

/* Every constant of the spec (defined where the module has none, checked where it
** has), or the first error; with check_only, the module's own are only checked. */
static int each_constant(job *j, int check_only) {
  const char *list = j->t->constants, *w;
  size_t n;
  int rc = GPUBLOB_OK;
  while (!rc && (w = util_next_word(&list, " ", &n))) {
    constant c = {0};
    strbuf tmpl = {0};
    sb_addn(&tmpl, w, n);
    rc = parse_constant(j, w, n, &c);
    LLVMValueRef g = rc || !check_only ? NULL : LLVMGetNamedGlobal(j->llvm->mod, sb_str(&c.name));
    if (!rc && !check_only) rc = define_constant(j, &c, sb_str(&tmpl));
    else if (!rc && g && !LLVMIsDeclaration(g)) rc = own_value_agrees(j, &c, g, sb_str(&tmpl));
    sb_free(&c.name);
    sb_free(&c.value);
    sb_free(&tmpl);
  }
  return rc;
}

GPUBLOB_PRIVATE int constants_write(job *j) { return each_constant(j, 0); }

/* A module that links no library: its own definitions of the constants (clang's HIP
** output carries them, internal) must agree with the job's chip and ABI. */
GPUBLOB_PRIVATE int constants_check_own(job *j) { return each_constant(j, 1); }
