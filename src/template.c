/* src/template.c: Templates: the spec's argv and file names with {chip}, {opt}, {if:...} filled in
** from a job's resolved settings. */

/* ---- templates: {chip}, {chipid}, {opt}, {if:COND:THEN:ELSE} and friends ---- */
static int feature_on(const char *features, const char *name, size_t n) {
  int on = 0;
  const char *w;
  size_t m;
  while ((w = util_next_word(&features, ",", &m)))
    if (m == n + 1 && !strncmp(w + 1, name, n)) on = w[0] == '+';
  return on;
}

/* The math modes of src/math_modes.h, a row each: its flag, its name in the spec's
** templates and mlir_flags, and its flag's name (GPUBLOB_FLAG_...) for messages. */
static const struct math_mode {
  unsigned flag;
  const char *name, *flag_name;
} math_modes[] = {
#define MATH_MODE_ROW(a, id, name, brief_group, brief, full) {GPUBLOB_FLAG_##id, name, #id},
    GPUBLOB_MATH_MODES(MATH_MODE_ROW, ~)
#undef MATH_MODE_ROW
};
enum { NMATH_MODES = sizeof math_modes / sizeof *math_modes };

/* A math mode's flag by its name in the spec's templates and mlir_flags; 0 for none. */
GPUBLOB_PRIVATE unsigned template_math_mode_flag(const char *name, size_t n) {
  for (int i = 0; i < NMATH_MODES; i++)
    if (util_word_is(name, n, math_modes[i].name)) return math_modes[i].flag;
  return 0;
}

/* ---- math modes: each one the caller sets is one the target's spec reads ---- */
/* Does any template of target t test condition name ({if:NAME:...})?  Every STRING
** and LIST key of the spec is looked at: a key added later is covered too. */
GPUBLOB_PRIVATE int template_spec_tests_condition(const target_desc *t, const char *name) {
  strbuf pat = {0};
  sb_addf(&pat, "{if:%s:", name);
  const char *c = sb_str(&pat);
#define MODE_TESTED_IN(key, presence, type, form, doc) MODE_TESTED_IN_##type(key)
#define MODE_TESTED_IN_STRING(key) || strstr(t->key, c)
#define MODE_TESTED_IN_LIST(key) || strstr(t->key, c)
#define MODE_TESTED_IN_TEMPLATE(type, placeholders) MODE_TESTED_IN_##type
#define MODE_TESTED_IN_ENUM(values) MODE_NOT_TESTED
#define MODE_TESTED_IN_CENUM(tag, prefix, values) MODE_NOT_TESTED
#define MODE_TESTED_IN_INTEGER(min, max, unit) MODE_NOT_TESTED
#define MODE_NOT_TESTED(key)
  int tested = !pat.oom && (0 GPUBLOB_SPEC_KEYS(MODE_TESTED_IN));
#undef MODE_TESTED_IN
#undef MODE_TESTED_IN_STRING
#undef MODE_TESTED_IN_LIST
#undef MODE_TESTED_IN_TEMPLATE
#undef MODE_TESTED_IN_ENUM
#undef MODE_TESTED_IN_CENUM
#undef MODE_TESTED_IN_INTEGER
#undef MODE_NOT_TESTED
  sb_free(&pat);
  return tested;
}

/* Is row i the first of its flag's rows (ftz for FTZ and DAZ)? */
static int mode_first(int i) {
  for (int r = 0; r < i; r++)
    if (math_modes[r].flag == math_modes[i].flag) return 0;
  return 1;
}

/* Does target t's spec read the flag of row i by any of its names? */
static int mode_tested(const target_desc *t, int i) {
  for (int r = 0; r < NMATH_MODES; r++)
    if (math_modes[r].flag == math_modes[i].flag && template_spec_tests_condition(t, math_modes[r].name)) return 1;
  return 0;
}

/* The flag of row i as the CLI and the API name it: --ftz/--daz (GPUBLOB_FLAG_FTZ). */
static void mode_option(int i, strbuf *b) {
  size_t start = b->len;
  for (int r = 0; r < NMATH_MODES; r++)
    if (math_modes[r].flag == math_modes[i].flag)
      sb_addf(b, "%s--%s", b->len > start ? "/" : "", math_modes[r].name);
  sb_addf(b, " (GPUBLOB_FLAG_%s)", math_modes[i].flag_name);
}

/* A math mode the caller sets that the target's spec never reads would change
** nothing but the cache key: OPTION, naming it and what the target does read.
** Fast math stands for all of them: it is refused only where none is read. */
GPUBLOB_PRIVATE int template_check_math_modes(job *j) {
  strbuf reads = {0}, option = {0};
  int rc = GPUBLOB_OK;
  for (int i = 0; i < NMATH_MODES; i++)
    if (math_modes[i].flag != GPUBLOB_FLAG_FAST_MATH && mode_first(i) && mode_tested(j->t, i))
      sb_addf(&reads, "%s%s", reads.len ? ", " : "", math_modes[i].name);
  for (int i = 0; !rc && i < NMATH_MODES; i++) {
    int fast = math_modes[i].flag == GPUBLOB_FLAG_FAST_MATH;
    if (!mode_first(i) || !(j->flags & math_modes[i].flag) || (fast && reads.len) || mode_tested(j->t, i))
      continue;
    mode_option(i, &option);
    rc = handle_set_error(j->g, GPUBLOB_OPTION, "math mode %s has no effect on target %s: its spec reads %s; "
                   "leave it out for %s", sb_str(&option), j->t->name,
                   reads.len ? sb_str(&reads) : "no math mode", j->t->name);
  }
  sb_free(&reads);
  sb_free(&option);
  return rc;
}

/* The index of condition c (n bytes) in the target's isa_conditions (NAME:GLOB), or -1. */
static int isa_condition_index(const target_desc *t, const char *c, size_t n) {
  const char *list = t->isa_conditions, *w;
  size_t m;
  for (int i = 0; (w = util_next_word(&list, " ", &m)); i++) {
    const char *colon = memchr(w, ':', m);
    if (colon && (size_t)(colon - w) == n && !memcmp(w, c, n)) return i;
  }
  return -1;
}

/* A math mode holds with its flag, or with fast math, which implies each; clang and
** mlir with the defaults the call takes (--as); an isa_conditions NAME once the
** backend's assembly matched its glob (peer_job_isa_conditions; never before it). */
static int condition_holds(const job *j, const char *c, size_t n) {
  unsigned mode = template_math_mode_flag(c, n);
  if (mode) return (j->flags & (mode | GPUBLOB_FLAG_FAST_MATH)) != 0;
  if (util_word_is(c, n, "O0")) return j->opt == 0;
  if (util_word_is(c, n, "clang")) return j->as == GPUBLOB_AS_CLANG;
  if (util_word_is(c, n, "mlir")) return j->as != GPUBLOB_AS_CLANG;
  int isa = isa_condition_index(j->t, c, n);
  if (isa >= 0) return isa < 32 && (j->isa_conds >> isa & 1u);
  int on = feature_on(sb_str(&j->condfeat), c + 1, n - 1);
  return c[0] == '+' ? on : !on;
}

GPUBLOB_PRIVATE const char *template_chip_id(const job *j) {
  size_t p = strlen(j->t->chip_prefix);
  return strncmp(j->cpu, j->t->chip_prefix, p) ? j->cpu : j->cpu + p;
}

/* The spec's chip_version for the job's chip: "" when it has none. */
static void add_chip_version(const job *j, strbuf *b) {
  size_t n;
  const char *v = util_pair_value(j->t->chip_version, j->cpu, &n);
  if (v) sb_addn(b, v, n);
}

/* The chip MLIR's lowering is told: the spec's mlir_lower_chip for the job's, else it. */
static void add_lower_chip(const job *j, strbuf *b) {
  size_t n;
  const char *v = util_pair_value(j->t->mlir_lower_chip, j->cpu, &n);
  if (v) sb_addn(b, v, n);
  else sb_add(b, j->cpu);
}

/* The first ':' from p to e outside a nested {...} (an {if:}'s branch may hold placeholders). */
static const char *top_colon(const char *p, const char *e) {
  for (int depth = 0; p < e; p++) {
    if (*p == '{') depth++;
    else if (*p == '}') depth--;
    else if (*p == ':' && !depth) return p;
  }
  return NULL;
}

/* The '}' that closes the '{' at o, before e, counting nested placeholders; NULL: none. */
GPUBLOB_PRIVATE const char *template_closing_brace(const char *o, const char *e) {
  for (int depth = 0; o < e; o++) {
    if (*o == '{') depth++;
    else if (*o == '}' && --depth == 0) return o;
  }
  return NULL;
}

/* Expands one placeholder body (between the braces) into b.  An {if:COND:THEN:ELSE}'s
** branch is itself expanded: it may hold placeholders ({if:debug:-g:-O{opt}}). */
static void expand_one(const job *j, const char *p, size_t n, const char **vars, strbuf *b) {
  if (n > 3 && !strncmp(p, "if:", 3)) {
    const char *c = p + 3, *e = p + n;
    const char *c1 = top_colon(c, e);
    const char *c2 = c1 ? top_colon(c1 + 1, e) : NULL;
    if (!c2) return;
    if (condition_holds(j, c, (size_t)(c1 - c))) template_expand(j, c1 + 1, (size_t)(c2 - c1 - 1), vars, b);
    else template_expand(j, c2 + 1, (size_t)(e - c2 - 1), vars, b);
    return;
  }
  char opt[2] = {(char)('0' + j->opt), 0};
  if (util_word_is(p, n, "chip")) sb_add(b, j->cpu);
  else if (util_word_is(p, n, "chipid")) sb_add(b, template_chip_id(j));
  else if (util_word_is(p, n, "targetid")) sb_add(b, j->chip);
  else if (util_word_is(p, n, "chipversion")) add_chip_version(j, b);
  else if (util_word_is(p, n, "lowerchip")) add_lower_chip(j, b);
  else if (util_word_is(p, n, "abi")) sb_addf(b, "%u", j->abi);
  else if (util_word_is(p, n, "opt")) sb_add(b, opt);
  else {
    for (int i = 0; vars && vars[i]; i += 2)
      if (util_word_is(p, n, vars[i])) {
        sb_add(b, vars[i + 1]);
        return;
      }
    sb_addf(b, "{%.*s}", (int)n, p); /* not a placeholder: a caller's pass options */
  }
}

/* Text outside placeholders, where }} is a literal brace. */
static void add_unbraced(strbuf *b, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    sb_addn(b, s + i, 1);
    if (s[i] == '}' && i + 1 < n && s[i + 1] == '}') i++;
  }
}

/* vars: NULL-ended name/value pairs for {tool}, {in}, {out}; {{ and }} are braces. */
GPUBLOB_PRIVATE void template_expand(const job *j, const char *s, size_t n, const char **vars, strbuf *b) {
  const char *e = s + n;
  while (s < e) {
    const char *o = memchr(s, '{', (size_t)(e - s));
    if (o && o + 1 < e && o[1] == '{') { /* {{ is a literal brace */
      add_unbraced(b, s, (size_t)(o + 1 - s));
      s = o + 2;
      continue;
    }
    const char *c = o ? template_closing_brace(o, e) : NULL;
    if (!o || !c) {
      add_unbraced(b, s, (size_t)(e - s));
      return;
    }
    add_unbraced(b, s, (size_t)(o - s));
    expand_one(j, o + 1, (size_t)(c - o - 1), vars, b);
    s = c + 1;
  }
}
