/* src/resolve.c: A job's options resolved against the spec's targets (target, chip,
** features, format, level, ABI, flags), all checked before LLVM sees anything. */
/* ---- options: target, chip, features, format and level, checked before LLVM ---- */
GPUBLOB_PRIVATE const target_desc *resolve_target_named(const char *name, size_t n) {
  for (int i = 0; i < target_count(); i++)
    if (util_word_is(name, n, target_at(i)->name)) return target_at(i);
  return NULL;
}

/* spec, "NAME[:CHIP[,CHIP...]]" (NULL: the first target), and a choice's chip field
** (NULL: none), parsed once: the one reading of a target string. */
GPUBLOB_PRIVATE target_ref resolve_target_parse(const char *spec, const char *chip) {
  spec = spec ? spec : target_at(0)->name;
  const char *colon = strchr(spec, ':');
  size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
  return (target_ref){spec, n, resolve_target_named(spec, n), chip ? chip : colon ? colon + 1 : NULL};
}

/* The job aimed at r's target and at chip (NULL: the target's default chip). */
GPUBLOB_PRIVATE void resolve_job_aim(job *j, const target_ref *r, const char *chip) {
  j->aim = *r;
  j->opts.chip = chip;
}

/* One of the target's chips (n bytes), short enough for a job to hold. */
static int chip_valid(const target_desc *t, const char *chip, size_t n) {
  return n && n < sizeof ((job *)NULL)->chip && util_list_index(t->chips, chip, n) >= 0;
}

/* The value of the first GLOB:VALUE pair of list whose glob matches chip; NULL when none does. */
GPUBLOB_PRIVATE const char *resolve_glob_value(const char *list, const char *chip, size_t *vn) {
  const char *w;
  size_t n;
  while ((w = util_next_word(&list, " ", &n))) {
    const char *colon = memchr(w, ':', n);
    if (!colon || !util_glob_match(w, (size_t)(colon - w), chip)) continue;
    *vn = n - (size_t)(colon + 1 - w);
    return colon + 1;
  }
  return NULL;
}

/* Does the spec's chip_modifiers let cpu be named with feature f (n bytes)? */
static int modifier_allowed(const target_desc *t, const char *cpu, const char *f, size_t n) {
  const char *list = t->chip_modifiers, *w;
  size_t m;
  while ((w = util_next_word(&list, " ", &m))) {
    const char *colon = memchr(w, ':', m);
    size_t fn = colon ? m - (size_t)(colon + 1 - w) : 0;
    if (colon && fn == n && !memcmp(colon + 1, f, n) && util_glob_match(w, (size_t)(colon - w), cpu)) return 1;
  }
  return 0;
}

/* The modifiers cpu may take, for a message: "xnack sramecc", or "none". */
static void modifiers_of(const target_desc *t, const char *cpu, strbuf *b) {
  const char *list = t->chip_modifiers, *w;
  size_t m;
  while ((w = util_next_word(&list, " ", &m))) {
    const char *colon = memchr(w, ':', m);
    if (colon && util_glob_match(w, (size_t)(colon - w), cpu))
      sb_addf(b, "%s%.*s", b->len ? " " : "", (int)(m - (size_t)(colon + 1 - w)), colon + 1);
  }
  if (!b->len) sb_add(b, "none");
}

/* A target id (n bytes) a compile could have made: the chip one of the target's, each
** modifier FEATURE+ or FEATURE- that chip takes (for a cache file's bytes). */
GPUBLOB_PRIVATE int resolve_target_id_valid(const target_desc *t, const char *id, size_t n) {
  const char *colon = memchr(id, ':', n);
  size_t cn = colon ? (size_t)(colon - id) : n;
  char cpu[64];
  if (!chip_valid(t, id, cn) || cn >= sizeof cpu) return 0;
  snprintf(cpu, sizeof cpu, "%.*s", (int)cn, id);
  for (const char *p = colon, *e = id + n; p; p = memchr(p + 1, ':', (size_t)(e - p - 1))) {
    const char *end = memchr(p + 1, ':', (size_t)(e - p - 1));
    size_t m = end ? (size_t)(end - p - 1) : (size_t)(e - p - 1);
    if (m < 2 || (p[m] != '+' && p[m] != '-') || !modifier_allowed(t, cpu, p + 1, m - 1)) return 0;
  }
  return 1;
}

typedef struct modifier {
  const char *name; /* FEATURE+ or FEATURE-, n bytes with its sign */
  size_t n;
} modifier;

static int modifier_order(const void *a, const void *b) {
  const modifier *x = a, *y = b;
  int c = memcmp(x->name, y->name, (x->n < y->n ? x->n : y->n) - 1);
  return c ? c : (int)x->n - (int)y->n;
}

static int modifier_error(job *j, const char *id, const char *why, const modifier *m) {
  strbuf takes = {0};
  modifiers_of(j->t, j->cpu, &takes);
  handle_set_error(j->g, GPUBLOB_CHIP, "target id '%s': %s '%.*s' (chip %s takes: %s; each as FEATURE+ or FEATURE-)",
            id, why, (int)m->n, m->name, j->cpu, sb_str(&takes));
  sb_free(&takes);
  return GPUBLOB_CHIP;
}

/* j->chip: j->cpu and its modifiers in LLVM's order (by name), as the code object
** names it; what names the id in a message. */
static int store_target_id(job *j, modifier *mods, size_t nm, const char *what) {
  qsort(mods, nm, sizeof *mods, modifier_order);
  strbuf id = {0};
  sb_add(&id, j->cpu);
  for (size_t i = 0; i < nm; i++) sb_addf(&id, ":%.*s", (int)mods[i].n, mods[i].name);
  int rc = id.oom ? handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory")
           : id.len >= sizeof j->chip ? handle_set_error(j->g, GPUBLOB_CHIP, "target id '%s' is too long",
                                                  what ? what : sb_str(&id))
                                      : GPUBLOB_OK;
  if (!rc) memcpy(j->chip, id.s, id.len + 1);
  sb_free(&id);
  return rc;
}

/* A target id, CHIP[:FEATURE+|-]...: the chip in j->cpu, and in j->chip the id with
** its modifiers in LLVM's order (by name), as the code object names it. */
static int parse_target_id(job *j, const char *id) {
  enum { MAX_MODIFIERS = 8 };
  const char *colon = strchr(id, ':');
  size_t cn = colon ? (size_t)(colon - id) : strlen(id);
  if (!chip_valid(j->t, id, cn))
    return handle_set_error(j->g, GPUBLOB_CHIP, "invalid chip '%.*s' for target %s (valid: %s)", (int)cn, id,
                     j->t->name, j->t->chips);
  snprintf(j->cpu, sizeof j->cpu, "%.*s", (int)cn, id);
  modifier mods[MAX_MODIFIERS];
  size_t nm = 0;
  for (const char *p = colon; p; p = strchr(p + 1, ':')) {
    const char *e = strchr(p + 1, ':');
    modifier m = {p + 1, e ? (size_t)(e - p - 1) : strlen(p + 1)};
    if (m.n < 2 || (m.name[m.n - 1] != '+' && m.name[m.n - 1] != '-'))
      return modifier_error(j, id, "is not FEATURE+ or FEATURE-:", &m);
    if (!modifier_allowed(j->t, j->cpu, m.name, m.n - 1)) return modifier_error(j, id, "the chip has no", &m);
    for (size_t i = 0; i < nm; i++)
      if (mods[i].n == m.n && !memcmp(mods[i].name, m.name, m.n - 1))
        return modifier_error(j, id, "names a feature twice:", &m);
    if (nm == MAX_MODIFIERS) return modifier_error(j, id, "has too many modifiers at", &m);
    mods[nm++] = m;
  }
  return store_target_id(j, mods, nm, id);
}

/* The target resolve_job_aim gave the job (no string parsed again), and its chip. */
GPUBLOB_PRIVATE int resolve_target(job *j) {
  j->t = j->aim.t;
  if (!j->t) {
    strbuf known = {0};
    for (int i = 0; i < target_count(); i++) sb_addf(&known, "%s%s", i ? " " : "", target_at(i)->name);
    handle_set_error(j->g, GPUBLOB_TARGET, "unknown target '%.*s' (known: %s)", (int)j->aim.n, j->aim.name,
              sb_str(&known));
    sb_free(&known);
    return GPUBLOB_TARGET;
  }
  return parse_target_id(j, j->o->chip ? j->o->chip : j->t->chip);
}

/* A feature +NAME of the versioned family (+ptx80) below the chip's minimum: that
** minimum (*mn bytes); NULL for any other feature, or one high enough. */
GPUBLOB_PRIVATE const char *resolve_feature_below_min(const job *j, const char *w, size_t n, size_t *mn) {
  const target_desc *t = j->t;
  size_t p = strlen(t->version_feature);
  if (!p || n <= p + 1 || w[0] != '+' || strncmp(w + 1, t->version_feature, p)) return NULL;
  const char *min = util_pair_value(t->feature_min, j->cpu, mn);
  if (!min || *mn <= p) return NULL;
  return strtol(w + 1 + p, NULL, 10) < strtol(min + p, NULL, 10) ? min : NULL;
}

static int check_feature_version(job *j, const char *w, size_t n) {
  size_t mn;
  const char *min = resolve_feature_below_min(j, w, n, &mn);
  if (!min) return GPUBLOB_OK;
  return handle_set_error(j->g, GPUBLOB_FEATURES,
                   "feature '%.*s' is too low for chip %s: it needs at least +%.*s", (int)n, w,
                   j->chip, (int)mn, min);
}

static int check_feature(job *j, const char *w, size_t n) {
  if (n < 2 || (w[0] != '+' && w[0] != '-'))
    return handle_set_error(j->g, GPUBLOB_FEATURES, "feature '%.*s' must start with '+' or '-'", (int)n, w);
  strbuf name = {0};
  sb_addn(&name, w + 1, n - 1);
  if (name.oom) return handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  const char *pats = *j->t->feature_names ? j->t->feature_names : "*", *pw;
  size_t pn;
  int ok = 0;
  while (!ok && (pw = util_next_word(&pats, " ", &pn))) ok = util_glob_match(pw, pn, sb_str(&name));
  sb_free(&name);
  if (!ok)
    return handle_set_error(j->g, GPUBLOB_FEATURES, "unknown feature '%.*s' for target %s (accepted: %s)",
                     (int)n, w, j->t->name, j->t->feature_names);
  return check_feature_version(j, w, n);
}

/* A feature that is a modifier of some chip (xnack) set on a chip that does not take
** it: LLVM would ignore it and write a warning to stderr. */
static int check_modifier_feature(job *j, const char *w, size_t n) {
  const char *list = j->t->chip_modifiers, *u;
  size_t m;
  int some = 0;
  while (!some && (u = util_next_word(&list, " ", &m))) {
    const char *colon = memchr(u, ':', m);
    some = colon && m - (size_t)(colon + 1 - u) == n - 1 && !memcmp(colon + 1, w + 1, n - 1);
  }
  if (!some || modifier_allowed(j->t, j->cpu, w + 1, n - 1)) return GPUBLOB_OK;
  strbuf takes = {0};
  modifiers_of(j->t, j->cpu, &takes);
  handle_set_error(j->g, GPUBLOB_FEATURES, "feature '%.*s': chip %s has no %.*s (it takes: %s)", (int)n, w, j->cpu,
            (int)(n - 1), w + 1, sb_str(&takes));
  sb_free(&takes);
  return GPUBLOB_FEATURES;
}

static void add_features(strbuf *b, const char *list) {
  const char *w;
  size_t n;
  while ((w = util_next_word(&list, ", ", &n))) {
    if (b->len) sb_add(b, ",");
    sb_addn(b, w, n);
  }
}

static void add_chip_features(job *j) {
  const char *list = j->t->chip_features, *w;
  size_t n;
  while ((w = util_next_word(&list, " ", &n))) {
    const char *colon = memchr(w, ':', n);
    if (!colon || !util_glob_match(w, (size_t)(colon - w), j->cpu)) continue;
    if (j->condfeat.len) sb_add(&j->condfeat, ",");
    sb_addn(&j->condfeat, colon + 1, n - (size_t)(colon + 1 - w));
  }
}

/* A target id's modifiers as features (":xnack+" is +xnack), after the list in b. */
GPUBLOB_PRIVATE void resolve_add_id_features(const char *id, strbuf *b) {
  for (const char *p = strchr(id, ':'); p; p = strchr(p + 1, ':')) {
    const char *e = strchr(p + 1, ':');
    size_t n = e ? (size_t)(e - p - 1) : strlen(p + 1);
    sb_addf(b, "%s%c%.*s", b->len ? "," : "", p[n], (int)(n - 1), p + 1);
  }
}

/* The feature of a comma-separated list that is w (n bytes) with the other sign
** (-wavefrontsize32 for +wavefrontsize32), *m bytes; NULL when there is none. */
GPUBLOB_PRIVATE const char *resolve_opposite_in(const char *list, const char *w, size_t n, size_t *m) {
  const char *u;
  while ((u = util_next_word(&list, ",", m)))
    if (*m == n && u[0] != w[0] && !strncmp(u + 1, w + 1, n - 1)) return u;
  return NULL;
}

/* A feature that flips what the chip implies (+wavefrontsize32 on gfx9) is refused:
** LLVM would compile it into a broken blob. */
static int check_implied(job *j) {
  const char *implied = sb_str(&j->condfeat), *w, *u;
  size_t n, m;
  while ((w = util_next_word(&implied, ",", &n)))
    if ((u = resolve_opposite_in(sb_str(&j->features), w, n, &m)))
      return handle_set_error(j->g, GPUBLOB_FEATURES, "feature '%.*s' contradicts chip %s, which implies %.*s",
                       (int)m, u, j->chip, (int)n, w);
  return GPUBLOB_OK;
}

/* The sign features end with for name (n bytes): '+', '-', or 0 when they do not name it. */
GPUBLOB_PRIVATE char resolve_last_sign(const char *features, const char *name, size_t n) {
  const char *w;
  size_t m;
  char sign = 0;
  while ((w = util_next_word(&features, ",", &m)))
    if (m == n + 1 && (w[0] == '+' || w[0] == '-') && !memcmp(w + 1, name, n)) sign = w[0];
  return sign;
}

/* The target id the code object will name: the chip and, for each modifier the chip
** takes, the sign the features end with (the id's own, or --features +xnack), in
** LLVM's order.  So a pack's entry and an output's name say what the code is. */
GPUBLOB_PRIVATE int resolve_target_id(job *j) {
  enum { MAX_IDS = 8 };
  modifier mods[MAX_IDS];
  char signed_names[MAX_IDS][48];
  size_t nm = 0;
  const char *list = j->t->chip_modifiers, *w;
  size_t n;
  while (nm < MAX_IDS && (w = util_next_word(&list, " ", &n))) {
    const char *colon = memchr(w, ':', n), *f = colon ? colon + 1 : NULL;
    size_t fn = f ? n - (size_t)(f - w) : 0;
    if (!f || !fn || fn + 2 > sizeof signed_names[0] || !util_glob_match(w, (size_t)(colon - w), j->cpu)) continue;
    char sign = resolve_last_sign(sb_str(&j->features), f, fn);
    int dup = 0;
    for (size_t i = 0; i < nm && !dup; i++) dup = mods[i].n == fn + 1 && !memcmp(mods[i].name, f, fn);
    if (!sign || dup) continue;
    snprintf(signed_names[nm], sizeof signed_names[nm], "%.*s%c", (int)fn, f, sign);
    mods[nm] = (modifier){signed_names[nm], fn + 1};
    nm++;
  }
  return store_target_id(j, mods, nm, NULL);
}

static int resolve_features(job *j) {
  add_features(&j->features, j->t->features);
  if (j->o->features) add_features(&j->features, j->o->features);
  const char *list = sb_str(&j->features), *w;
  size_t n;
  int rc = GPUBLOB_OK;
  while (!rc && (w = util_next_word(&list, ",", &n))) rc = check_feature(j, w, n);
  list = sb_str(&j->features);
  while (!rc && (w = util_next_word(&list, ",", &n))) rc = check_modifier_feature(j, w, n);
  if (rc) return rc;
  add_chip_features(j);
  resolve_add_id_features(j->chip, &j->condfeat);
  rc = check_implied(j);
  if (rc) return rc;
  resolve_add_id_features(j->chip, &j->features);
  add_features(&j->condfeat, sb_str(&j->features));
  if (j->features.oom || j->condfeat.oom) return handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  return resolve_target_id(j);
}

GPUBLOB_PRIVATE int resolve_levels(job *j) {
  j->format = j->o->format ? j->o->format : GPUBLOB_FORMAT_BIN;
  if (j->format == GPUBLOB_FORMAT_OFFLOAD && j->t->offload_image == OFFLOAD_IMAGE_none)
    return handle_set_error(j->g, GPUBLOB_FORMAT, "-f offload: the %s target has no image kind in LLVM's "
                     "OffloadBinary (spec: offload_image)", j->t->name);
  if (j->format == GPUBLOB_FORMAT_OFFLOAD) j->format = GPUBLOB_FORMAT_BIN; /* an entry's blob */
  if (j->format < GPUBLOB_FORMAT_BIN || j->format > GPUBLOB_FORMAT_LL)
    return handle_set_error(j->g, GPUBLOB_FORMAT, "unknown output format %d", j->o->format);
  if (j->format == GPUBLOB_FORMAT_FATBIN && !*j->t->pack_tool && j->t->pack_provider == PACK_PROVIDER_none)
    return handle_set_error(j->g, GPUBLOB_FORMAT,
                     "target %s has no fatbin: the spec gives it no pack step (pack_tool, pack_provider)",
                     j->t->name);
  if (j->format == GPUBLOB_FORMAT_FATBIN) j->format = GPUBLOB_FORMAT_BIN; /* a pack's member */
  int opt = j->o->opt ? j->o->opt : GPUBLOB_OPT_O3;
  if (opt < GPUBLOB_OPT_O0 || opt > GPUBLOB_OPT_O3)
    return handle_set_error(j->g, GPUBLOB_OPTION, "unknown optimisation level %d", j->o->opt);
  j->opt = opt - GPUBLOB_OPT_O0;
  static const int spec_fp[] = {[FP_CONTRACT_on] = GPUBLOB_FP_CONTRACT_ON, [FP_CONTRACT_fast] = GPUBLOB_FP_CONTRACT_FAST,
                                [FP_CONTRACT_off] = GPUBLOB_FP_CONTRACT_OFF};
  if (j->o->fp_contract < GPUBLOB_FP_CONTRACT_DEFAULT || j->o->fp_contract > GPUBLOB_FP_CONTRACT_OFF)
    return handle_set_error(j->g, GPUBLOB_OPTION, "unknown fp contraction %d", j->o->fp_contract);
  j->fp_contract = j->o->fp_contract ? j->o->fp_contract : spec_fp[j->t->fp_contract];
  if (!GPUBLOB_LLVM_CXX && j->o->fp_contract == GPUBLOB_FP_CONTRACT_OFF)
    return handle_set_error(j->g, GPUBLOB_OPTION, "fp contraction off: this gpublob was built without src/passes.cpp (no "
                     "C++ compiler), and LLVM's C API cannot take a contract flag off an operation");
  if (j->o->as < GPUBLOB_AS_DEFAULT || j->o->as > GPUBLOB_AS_CLANG)
    return handle_set_error(j->g, GPUBLOB_OPTION, "unknown as %d (GPUBLOB_AS_MLIR or GPUBLOB_AS_CLANG: whose defaults "
                     "the call takes)", j->o->as);
  j->as = j->o->as ? j->o->as : GPUBLOB_AS_MLIR;
  if (j->o->debug < GPUBLOB_DEBUG_AUTO || j->o->debug > GPUBLOB_DEBUG_FULL)
    return handle_set_error(j->g, GPUBLOB_OPTION, "unknown debug %d (GPUBLOB_DEBUG_AUTO, NONE, LINES or FULL: the "
                     "debug information the blob keeps)", j->o->debug);
  if (j->o->flags & ~(unsigned)(GPUBLOB_FLAG_FTZ | GPUBLOB_FLAG_FAST_MATH | GPUBLOB_FLAG_NO_DEFAULT_SEARCH |
                                GPUBLOB_FLAG_MLIR_BYTECODE | GPUBLOB_FLAG_RETARGET | GPUBLOB_FLAG_ISOLATE |
                                GPUBLOB_FLAG_FINITE_ONLY | GPUBLOB_FLAG_UNSAFE_MATH | GPUBLOB_FLAG_UNSAFE_SQRT |
                                GPUBLOB_FLAG_TOOL_LOG | GPUBLOB_FLAG_REMOTE_READ_ONLY | GPUBLOB_FLAG_BACKEND_ONLY |
                                GPUBLOB_FLAG_NO_TOOL_REPORT))
    return handle_set_error(j->g, GPUBLOB_OPTION, "unknown flags 0x%x", j->o->flags);
  if (options_limits_valid(j->g, j->o)) return j->g->code;
  if (j->o->tool_mode < GPUBLOB_TOOL_AUTO || j->o->tool_mode > GPUBLOB_TOOL_INPROCESS)
    return handle_set_error(j->g, GPUBLOB_OPTION, "unknown tool mode %d", j->o->tool_mode);
  /* a job with a timeout runs isolated: LLVM's work cannot be stopped in this process */
  j->flags = j->o->flags | (j->t->isolate == ISOLATE_always || j->o->job_timeout ? GPUBLOB_FLAG_ISOLATE : 0u);
  /* clang asks its tools for no report (ptxas gets no -v): the blob is the one its command makes */
  if (j->as == GPUBLOB_AS_CLANG) j->flags |= GPUBLOB_FLAG_NO_TOOL_REPORT;
  return GPUBLOB_OK;
}

/* The lowest ABI version the spec's abi_min gives the job's chip; 0 when none. */
static unsigned chip_abi_min(const job *j) {
  size_t n;
  const char *v = resolve_glob_value(j->t->abi_min, j->cpu, &n);
  return v ? (unsigned)strtoul(v, NULL, 10) : 0;
}

/* Is abi one of the target's abi_versions? */
static int abi_known(const target_desc *t, unsigned abi) {
  char text[16];
  snprintf(text, sizeof text, "%u", abi);
  return util_list_index(t->abi_versions, text, strlen(text)) >= 0;
}

/* abi for the job's chip, or the error: one the target knows, and at least the chip's minimum. */
GPUBLOB_PRIVATE int resolve_check_abi(job *j, unsigned abi, const char *from) {
  unsigned min = chip_abi_min(j);
  if (!abi_known(j->t, abi))
    return handle_set_error(j->g, GPUBLOB_OPTION, "ABI version %u (%s) is not one of target %s's: %s", abi, from,
                     j->t->name, j->t->abi_versions);
  if (abi < min)
    return handle_set_error(j->g, GPUBLOB_OPTION, "chip %s needs ABI version %u or later, not %u (%s)", j->chip, min,
                     abi, from);
  return GPUBLOB_OK;
}

/* The ABI version: the caller's, else the spec's default raised to the chip's
** minimum.  A module's own choice is read when it is parsed (constants_module_abi). */
static int resolve_abi(job *j) {
  if (!*j->t->abi) return GPUBLOB_OK; /* the call's other targets may have (plan_resolve) */
  unsigned dflt = j->abi_default ? j->abi_default : (unsigned)strtoul(j->t->abi, NULL, 10), min = chip_abi_min(j);
  j->abi = j->o->abi ? j->o->abi : dflt > min ? dflt : min;
  return resolve_check_abi(j, j->abi, j->o->abi ? j->abi_from : "the default");
}

/* The options of one job: a single target and chip, as the plan gave them (its
** options settled, their version checked, where the call entered). */
GPUBLOB_PRIVATE int resolve_options(job *j) {
  int rc = resolve_target(j);
  if (!rc) rc = resolve_features(j);
  if (!rc) rc = resolve_levels(j);
  if (!rc) rc = template_check_math_modes(j);
  if (!rc) rc = resolve_abi(j);
  if (!rc) memcpy(j->planned, j->chip, sizeof j->planned);
  return rc;
}
