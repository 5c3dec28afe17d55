/* src/pins.c: Pins: the chip and features clang writes on every function, which LLVM obeys
** over the target machine: refused (CHIP), or rewritten with RETARGET. */

/* ---- pins: the chip and features clang writes on every function ---- */
/* A function's string attribute, or NULL. */
GPUBLOB_PRIVATE const char *pins_fn_attr(LLVMValueRef f, const char *key, unsigned *len) {
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
  if (w[0] == '+' && util_list_index(j->t->chips, w + 1, n - 1) >= 0 && !util_word_is(w + 1, n - 1, j->cpu)) {
    sb_addf(why, "feature %.*s is chip %.*s", (int)n, w, (int)(n - 1), w + 1);
    return 1;
  }
  if ((u = resolve_opposite_in(sb_str(&j->condfeat), w, n, &m))) {
    sb_addf(why, "feature %.*s, where %s implies %.*s", (int)n, w, j->chip, (int)m, u);
    return 1;
  }
  if ((u = resolve_feature_below_min(j, w, n, &m))) {
    sb_addf(why, "feature %.*s, below the +%.*s that %s needs", (int)n, w, (int)m, u, j->chip);
    return 1;
  }
  return 0;
}

static int pin_error(job *j, LLVMValueRef f, const char *what) {
  return handle_set_error(j->g, GPUBLOB_CHIP, "%s: function @%s is pinned to another chip (%s), but this job "
                   "compiles for %s:%s; compile the source for %s, or pass --retarget "
                   "(GPUBLOB_FLAG_RETARGET) to rewrite the pins", j->name, LLVMGetValueName2(f, &(size_t){0}),
                   what, j->t->name, j->chip, j->chip);
}

static int check_pin(job *j, LLVMValueRef f) {
  unsigned len;
  const char *cpu = pins_fn_attr(f, "target-cpu", &len);
  strbuf why = {0};
  int rc = GPUBLOB_OK;
  if (cpu && (len != strlen(j->cpu) || strncmp(cpu, j->cpu, len))) {
    sb_addf(&why, "\"target-cpu\"=\"%.*s\"", (int)len, cpu);
    rc = pin_error(j, f, sb_str(&why));
  }
  const char *feats = rc ? NULL : pins_fn_attr(f, "target-features", &len), *w;
  strbuf list = {0};
  if (feats) sb_addn(&list, feats, len);
  const char *p = sb_str(&list);
  size_t n;
  while (!rc && feats && (w = util_next_word(&p, ",", &n)))
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
    if (!pins_fn_attr(f, "target-cpu", &len) && !pins_fn_attr(f, "target-features", &len)) continue;
    LLVMAddTargetDependentFunctionAttr(f, "target-cpu", j->cpu);
    LLVMRemoveStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, "target-features", 15);
    if (*feats) LLVMAddTargetDependentFunctionAttr(f, "target-features", feats);
    count++;
  }
  if (count)
    handle_add_warning(j->g, "--retarget: the functions clang pinned to a chip were compiled for each job's own "
                "chip and features");
  return GPUBLOB_OK;
}

/* The sign the definitions pin modifier name (n bytes) to ("+xnack" in their
** "target-features"): '+', '-', or 0 when none pins it; two that disagree are CHIP. */
static int pinned_sign(job *j, const char *name, size_t n, char *sign) {
  LLVMValueRef first = NULL;
  *sign = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(j->llvm->mod); f; f = LLVMGetNextFunction(f)) {
    unsigned len;
    const char *feats = LLVMIsDeclaration(f) ? NULL : pins_fn_attr(f, "target-features", &len);
    strbuf list = {0};
    if (feats) sb_addn(&list, feats, len);
    char s = feats ? resolve_last_sign(sb_str(&list), name, n) : 0;
    sb_free(&list);
    if (s && *sign && s != *sign)
      return handle_set_error(j->g, GPUBLOB_CHIP, "%s: functions @%s and @%s are pinned to opposite %.*s settings "
                       "(%c%.*s, %c%.*s), which one code object cannot hold; compile the source for one "
                       "target id", j->name, LLVMGetValueName2(first, &(size_t){0}),
                       LLVMGetValueName2(f, &(size_t){0}), (int)n, name, *sign, (int)n, name, s, (int)n, name);
    if (s && !*sign) {
      *sign = s;
      first = f;
    }
  }
  return GPUBLOB_OK;
}

/* A target id's modifier the job leaves open (gfx90a, not gfx90a:xnack+) that the
** definitions pin (HIP's --offload-arch=gfx90a:xnack+ writes "+xnack" on each): LLVM
** obeys the pins, so the code object names that setting, and so does the job's id
** (its output's chip, its pack entry).  A setting the job chose is checked as any
** pin is (check_pin: the opposite sign is CHIP). */
static int adopt_pinned_modifiers(job *j) {
  const char *list = j->t->chip_modifiers, *w;
  size_t n;
  int adopted = 0, rc = GPUBLOB_OK;
  while (!rc && (w = util_next_word(&list, " ", &n))) {
    const char *colon = memchr(w, ':', n), *name = colon ? colon + 1 : NULL;
    size_t nn = name ? n - (size_t)(name - w) : 0;
    if (!nn || !util_glob_match(w, (size_t)(colon - w), j->cpu) || resolve_last_sign(sb_str(&j->features), name, nn)) continue;
    char sign;
    rc = pinned_sign(j, name, nn, &sign);
    if (rc || !sign) continue;
    sb_addf(&j->features, "%s%c%.*s", j->features.len ? "," : "", sign, (int)nn, name);
    sb_addf(&j->condfeat, "%s%c%.*s", j->condfeat.len ? "," : "", sign, (int)nn, name);
    adopted = 1;
  }
  if (!rc && (j->features.oom || j->condfeat.oom)) rc = handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  return rc || !adopted ? rc : resolve_target_id(j);
}

/* The version of the spec's versioned feature (version_feature: ptx) that word w (n
** bytes, "+ptx88") names; -1 for any other word. */
static long version_of(const job *j, const char *w, size_t n) {
  const char *vf = j->t->version_feature;
  size_t p = strlen(vf);
  if (!p || n <= p + 1 || w[0] != '+' || strncmp(w + 1, vf, p)) return -1;
  for (size_t i = p + 1; i < n; i++)
    if (!isdigit((unsigned char)w[i])) return -1;
  return strtol(w + 1 + p, NULL, 10);
}

/* The highest version the definitions pin ("target-features"="+ptx88,+sm_90", as clang
** writes for the CUDA it found); -1 when none does. */
static long pinned_version(job *j) {
  long best = -1;
  for (LLVMValueRef f = LLVMGetFirstFunction(j->llvm->mod); f; f = LLVMGetNextFunction(f)) {
    unsigned len;
    const char *feats = LLVMIsDeclaration(f) ? NULL : pins_fn_attr(f, "target-features", &len), *w;
    strbuf list = {0};
    if (feats) sb_addn(&list, feats, len);
    const char *p = sb_str(&list);
    size_t n;
    long v;
    while (feats && (w = util_next_word(&p, ",", &n)))
      if ((v = version_of(j, w, n)) > best) best = v;
    sb_free(&list);
  }
  return best;
}

/* Where the job's features name no version (--features +ptx80 does), the version the
** definitions pin becomes the target machine's, as clang's is: LLVM writes the
** module's .version from the target machine, not from the functions.  Called before
** the target machine is made.  A version below the chip's minimum stays out (the
** pin is then refused, CHIP), and so does one the spec's feature_names lack. */
GPUBLOB_PRIVATE int pins_adopt_pinned_version(job *j) {
  if (!*j->t->version_feature || (j->flags & GPUBLOB_FLAG_RETARGET)) return GPUBLOB_OK;
  const char *have = sb_str(&j->features), *w;
  size_t n;
  while ((w = util_next_word(&have, ",", &n)))
    if (version_of(j, w, n) >= 0) return GPUBLOB_OK;
  long v = pinned_version(j);
  if (v < 0) return GPUBLOB_OK;
  char word[64];
  int wn = snprintf(word, sizeof word, "+%s%ld", j->t->version_feature, v);
  size_t mn;
  if (wn <= 0 || (size_t)wn >= sizeof word || resolve_feature_below_min(j, word, (size_t)wn, &mn)) return GPUBLOB_OK;
  const char *pats = *j->t->feature_names ? j->t->feature_names : "*", *pw;
  int known = 0;
  while (!known && (pw = util_next_word(&pats, " ", &n))) known = util_glob_match(pw, n, word + 1);
  if (!known) return GPUBLOB_OK;
  sb_addf(&j->features, "%s%s", j->features.len ? "," : "", word);
  sb_addf(&j->condfeat, "%s%s", j->condfeat.len ? "," : "", word);
  return j->features.oom || j->condfeat.oom ? handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory") : GPUBLOB_OK;
}

GPUBLOB_PRIVATE int pins_check(job *j) {
  if (j->flags & GPUBLOB_FLAG_RETARGET) return retarget(j);
  int rc = adopt_pinned_modifiers(j);
  for (LLVMValueRef f = LLVMGetFirstFunction(j->llvm->mod); f && !rc; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f)) rc = check_pin(j, f);
  return rc;
}
