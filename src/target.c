/* src/target.c: Targets: the table generated from the spec, and the options resolved against it
** (target, chip, features, format, level), all checked before LLVM sees anything. */

/* ---- the target descriptors, generated from the spec ---- */
static const target_desc targets[] = {
#define GPUBLOB_TARGET_BEGIN(name) {
#define GPUBLOB_TARGET_END },
#include "gpublob_targets.def"
};
#define NTARGETS ((int)(sizeof targets / sizeof *targets))
/* ---- options: target, chip, features, format and level, checked before LLVM ---- */
static const target_desc *target_named(const char *name, size_t n) {
  for (int i = 0; i < NTARGETS; i++)
    if (word_is(name, n, targets[i].name)) return &targets[i];
  return NULL;
}

/* "NAME[:CHIP[,CHIP...]]": the length of the name; *chips the choice's own chip
** field when it has one, else what follows the colon, else NULL. */
static size_t target_spec(const char *spec, const char *chip, const char **chips) {
  const char *colon = strchr(spec, ':');
  *chips = chip ? chip : colon ? colon + 1 : NULL;
  return colon ? (size_t)(colon - spec) : strlen(spec);
}

/* One of the target's chips (n bytes), short enough for a job to hold. */
static int chip_valid(const target_desc *t, const char *chip, size_t n) {
  return n && n < sizeof ((job *)NULL)->chip && list_index(t->chips, chip, n) >= 0;
}

static int resolve_target(job *j) {
  const char *spec = j->o->target ? j->o->target : targets[0].name, *chip;
  size_t n = target_spec(spec, j->o->chip, &chip);
  j->t = target_named(spec, n);
  if (!j->t) {
    strbuf known = {0};
    for (int i = 0; i < NTARGETS; i++) sb_addf(&known, "%s%s", i ? " " : "", targets[i].name);
    set_error(j->g, GPUBLOB_TARGET, "unknown target '%.*s' (known: %s)", (int)n, spec,
              sb_str(&known));
    sb_free(&known);
    return GPUBLOB_TARGET;
  }
  if (!chip) chip = j->t->chip;
  if (!chip_valid(j->t, chip, strlen(chip)))
    return set_error(j->g, GPUBLOB_CHIP, "invalid chip '%s' for target %s (valid: %s)", chip,
                     j->t->name, j->t->chips);
  strcpy(j->chip, chip);
  return GPUBLOB_OK;
}

/* A feature +NAME of the versioned family (+ptx80) below the chip's minimum: that
** minimum (*mn bytes); NULL for any other feature, or one high enough. */
static const char *feature_below_min(const job *j, const char *w, size_t n, size_t *mn) {
  const target_desc *t = j->t;
  size_t p = strlen(t->version_feature);
  if (!p || n <= p + 1 || w[0] != '+' || strncmp(w + 1, t->version_feature, p)) return NULL;
  const char *min = pair_value(t->feature_min, j->chip, mn);
  if (!min || *mn <= p) return NULL;
  return strtol(w + 1 + p, NULL, 10) < strtol(min + p, NULL, 10) ? min : NULL;
}

static int check_feature_version(job *j, const char *w, size_t n) {
  size_t mn;
  const char *min = feature_below_min(j, w, n, &mn);
  if (!min) return GPUBLOB_OK;
  return set_error(j->g, GPUBLOB_FEATURES,
                   "feature '%.*s' is too low for chip %s: it needs at least +%.*s", (int)n, w,
                   j->chip, (int)mn, min);
}

static int check_feature(job *j, const char *w, size_t n) {
  if (n < 2 || (w[0] != '+' && w[0] != '-'))
    return set_error(j->g, GPUBLOB_FEATURES, "feature '%.*s' must start with '+' or '-'", (int)n, w);
  strbuf name = {0};
  sb_addn(&name, w + 1, n - 1);
  if (name.oom) return set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  const char *pats = *j->t->feature_names ? j->t->feature_names : "*", *pw;
  size_t pn;
  int ok = 0;
  while (!ok && (pw = next_word(&pats, " ", &pn))) ok = glob_match(pw, pn, sb_str(&name));
  sb_free(&name);
  if (!ok)
    return set_error(j->g, GPUBLOB_FEATURES, "unknown feature '%.*s' for target %s (accepted: %s)",
                     (int)n, w, j->t->name, j->t->feature_names);
  return check_feature_version(j, w, n);
}

static void add_features(strbuf *b, const char *list) {
  const char *w;
  size_t n;
  while ((w = next_word(&list, ", ", &n))) {
    if (b->len) sb_add(b, ",");
    sb_addn(b, w, n);
  }
}

static void add_chip_features(job *j) {
  const char *list = j->t->chip_features, *w;
  size_t n;
  while ((w = next_word(&list, " ", &n))) {
    const char *colon = memchr(w, ':', n);
    if (!colon || !glob_match(w, (size_t)(colon - w), j->chip)) continue;
    if (j->condfeat.len) sb_add(&j->condfeat, ",");
    sb_addn(&j->condfeat, colon + 1, n - (size_t)(colon + 1 - w));
  }
}

/* The feature of a comma-separated list that is w (n bytes) with the other sign
** (-wavefrontsize32 for +wavefrontsize32), *m bytes; NULL when there is none. */
static const char *opposite_in(const char *list, const char *w, size_t n, size_t *m) {
  const char *u;
  while ((u = next_word(&list, ",", m)))
    if (*m == n && u[0] != w[0] && !strncmp(u + 1, w + 1, n - 1)) return u;
  return NULL;
}

/* A feature that flips what the chip implies (+wavefrontsize32 on gfx9) is refused:
** LLVM would compile it into a broken blob. */
static int check_implied(job *j) {
  const char *implied = sb_str(&j->condfeat), *w, *u;
  size_t n, m;
  while ((w = next_word(&implied, ",", &n)))
    if ((u = opposite_in(sb_str(&j->features), w, n, &m)))
      return set_error(j->g, GPUBLOB_FEATURES, "feature '%.*s' contradicts chip %s, which implies %.*s",
                       (int)m, u, j->chip, (int)n, w);
  return GPUBLOB_OK;
}

static int resolve_features(job *j) {
  add_features(&j->features, j->t->features);
  if (j->o->features) add_features(&j->features, j->o->features);
  const char *list = sb_str(&j->features), *w;
  size_t n;
  int rc = GPUBLOB_OK;
  while (!rc && (w = next_word(&list, ",", &n))) rc = check_feature(j, w, n);
  if (rc) return rc;
  add_chip_features(j);
  rc = check_implied(j);
  if (rc) return rc;
  add_features(&j->condfeat, sb_str(&j->features));
  if (j->features.oom || j->condfeat.oom) return set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  return GPUBLOB_OK;
}

static int resolve_levels(job *j) {
  j->format = j->o->format ? j->o->format : GPUBLOB_FORMAT_BIN;
  if (j->format < GPUBLOB_FORMAT_BIN || j->format > GPUBLOB_FORMAT_LL)
    return set_error(j->g, GPUBLOB_FORMAT, "unknown output format %d", j->o->format);
  if (j->format == GPUBLOB_FORMAT_FATBIN && !*j->t->pack_tool && j->t->pack_provider == PACK_PROVIDER_none)
    return set_error(j->g, GPUBLOB_FORMAT,
                     "target %s has no fatbin: the spec gives it no pack step (pack_tool, pack_provider)",
                     j->t->name);
  if (j->format == GPUBLOB_FORMAT_FATBIN) j->format = GPUBLOB_FORMAT_BIN; /* a pack's member */
  int opt = j->o->opt ? j->o->opt : GPUBLOB_OPT_O3;
  if (opt < GPUBLOB_OPT_O0 || opt > GPUBLOB_OPT_O3)
    return set_error(j->g, GPUBLOB_OPTION, "unknown optimisation level %d", j->o->opt);
  j->opt = opt - GPUBLOB_OPT_O0;
  if (j->o->flags & ~(unsigned)(GPUBLOB_FLAG_FTZ | GPUBLOB_FLAG_FAST_MATH | GPUBLOB_FLAG_NO_DEFAULT_SEARCH |
                                GPUBLOB_FLAG_MLIR_BYTECODE | GPUBLOB_FLAG_RETARGET | GPUBLOB_FLAG_ISOLATE))
    return set_error(j->g, GPUBLOB_OPTION, "unknown flags 0x%x", j->o->flags);
  if (j->o->tool_mode < GPUBLOB_TOOL_AUTO || j->o->tool_mode > GPUBLOB_TOOL_INPROCESS)
    return set_error(j->g, GPUBLOB_OPTION, "unknown tool mode %d", j->o->tool_mode);
  j->flags = j->o->flags;
  return GPUBLOB_OK;
}

static int check_version(gpublob *g, const gpublob_options *o) {
  if (o->version <= GPUBLOB_OPTIONS_VERSION) return GPUBLOB_OK;
  return set_error(g, GPUBLOB_OPTION, "options version %u is newer than this gpublob (%d)",
                   o->version, GPUBLOB_OPTIONS_VERSION);
}

/* The options of one job: a single target and chip, as the plan gave them. */
static int resolve_options(job *j) {
  int rc = check_version(j->g, j->o);
  if (!rc) rc = resolve_target(j);
  if (!rc) rc = resolve_features(j);
  if (!rc) rc = resolve_levels(j);
  return rc;
}
