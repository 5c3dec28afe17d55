/* src/pins.c: Pins: the chip and features clang writes on every function, which LLVM obeys
** over the target machine: refused (CHIP), or rewritten with RETARGET. */

/* ---- pins: the chip and features clang writes on every function ---- */
/* A function's string attribute, or NULL. */
static const char *fn_attr(LLVMValueRef f, const char *key, unsigned *len) {
  LLVMAttributeRef a = LLVMGetStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, key, (unsigned)strlen(key));
  return a ? LLVMGetStringAttributeValue(a, len) : NULL;
}

/* Whether a pinned feature contradicts the job's chip, and why (into why): another
** chip of the target (+sm_90 for sm_80), the opposite of what the chip implies
** (+wavefrontsize32 on gfx9), or a version the chip does not support (+ptx78 on
** sm_100a). */
static int feature_contradicts(const job *j, const char *w, size_t n, strbuf *why) {
  if (n < 2) return 0;
  const char *u;
  size_t m;
  if (w[0] == '+' && list_index(j->t->chips, w + 1, n - 1) >= 0 && !word_is(w + 1, n - 1, j->cpu)) {
    sb_addf(why, "feature %.*s is chip %.*s", (int)n, w, (int)(n - 1), w + 1);
    return 1;
  }
  if ((u = opposite_in(sb_str(&j->condfeat), w, n, &m))) {
    sb_addf(why, "feature %.*s, where %s implies %.*s", (int)n, w, j->chip, (int)m, u);
    return 1;
  }
  if ((u = feature_below_min(j, w, n, &m))) {
    sb_addf(why, "feature %.*s, below the +%.*s that %s needs", (int)n, w, (int)m, u, j->chip);
    return 1;
  }
  return 0;
}

static int pin_error(job *j, LLVMValueRef f, const char *what) {
  return set_error(j->g, GPUBLOB_CHIP, "%s: function @%s is pinned to another chip (%s), but this job "
                   "compiles for %s:%s; compile the source for %s, or pass --retarget "
                   "(GPUBLOB_FLAG_RETARGET) to rewrite the pins", j->name, LLVMGetValueName2(f, &(size_t){0}),
                   what, j->t->name, j->chip, j->chip);
}

static int check_pin(job *j, LLVMValueRef f) {
  unsigned len;
  const char *cpu = fn_attr(f, "target-cpu", &len);
  strbuf why = {0};
  int rc = GPUBLOB_OK;
  if (cpu && (len != strlen(j->cpu) || strncmp(cpu, j->cpu, len))) {
    sb_addf(&why, "\"target-cpu\"=\"%.*s\"", (int)len, cpu);
    rc = pin_error(j, f, sb_str(&why));
  }
  const char *feats = rc ? NULL : fn_attr(f, "target-features", &len), *w;
  strbuf list = {0};
  if (feats) sb_addn(&list, feats, len);
  const char *p = sb_str(&list);
  size_t n;
  while (!rc && feats && (w = next_word(&p, ",", &n)))
    if (feature_contradicts(j, w, n, &why)) rc = pin_error(j, f, sb_str(&why));
  sb_free(&why);
  sb_free(&list);
  return rc;
}

/* --retarget: every definition's pins become the job's chip and features. */
static int retarget(job *j) {
  size_t count = 0;
  const char *feats = sb_str(&j->features);
  for (LLVMValueRef f = LLVMGetFirstFunction(j->llvm->mod); f; f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f)) continue;
    unsigned len;
    if (!fn_attr(f, "target-cpu", &len) && !fn_attr(f, "target-features", &len)) continue;
    LLVMAddTargetDependentFunctionAttr(f, "target-cpu", j->cpu);
    LLVMRemoveStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, "target-features", 15);
    if (*feats) LLVMAddTargetDependentFunctionAttr(f, "target-features", feats);
    count++;
  }
  if (count)
    add_warning(j->g, "--retarget: the functions clang pinned to a chip were compiled for each job's own "
                "chip and features");
  return GPUBLOB_OK;
}

static int check_pins(job *j) {
  if (j->flags & GPUBLOB_FLAG_RETARGET) return retarget(j);
  int rc = GPUBLOB_OK;
  for (LLVMValueRef f = LLVMGetFirstFunction(j->llvm->mod); f && !rc; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f)) rc = check_pin(j, f);
  return rc;
}
