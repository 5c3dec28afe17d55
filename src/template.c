/* src/template.c: Templates: the spec's argv and file names with {chip}, {opt}, {if:...} filled in
** from a job's resolved settings. */

/* ---- templates: {chip}, {chipid}, {opt}, {if:COND:THEN:ELSE} and friends ---- */
static int feature_on(const char *features, const char *name, size_t n) {
  int on = 0;
  const char *w;
  size_t m;
  while ((w = next_word(&features, ",", &m)))
    if (m == n + 1 && !strncmp(w + 1, name, n)) on = w[0] == '+';
  return on;
}

/* A math mode's flag by its name in the spec's templates and mlir_flags; 0 for none. */
static unsigned math_mode_flag(const char *name, size_t n) {
  static const struct {
    const char *name;
    unsigned flag;
  } modes[] = {{"ftz", GPUBLOB_FLAG_FTZ},
               {"daz", GPUBLOB_FLAG_DAZ},
               {"fast-math", GPUBLOB_FLAG_FAST_MATH},
               {"finite-only", GPUBLOB_FLAG_FINITE_ONLY},
               {"unsafe-math", GPUBLOB_FLAG_UNSAFE_MATH},
               {"unsafe-sqrt", GPUBLOB_FLAG_UNSAFE_SQRT}};
  for (size_t i = 0; i < sizeof modes / sizeof *modes; i++)
    if (word_is(name, n, modes[i].name)) return modes[i].flag;
  return 0;
}

/* ---- math modes: each one the caller sets is one the target's spec reads ---- */
/* Does any template of target t test condition name ({if:NAME:...})?  Every STRING
** and LIST key of the spec is looked at: a key added later is covered too. */
static int spec_tests_condition(const target_desc *t, const char *name) {
  strbuf pat = {0};
  sb_addf(&pat, "{if:%s:", name);
  const char *c = sb_str(&pat);
#define MODE_TESTED_IN(key, presence, type, doc) MODE_TESTED_IN_##type(key)
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

static const struct math_mode {
  unsigned flag;
  const char *names[2]; /* as the spec's conditions name it */
  const char *option;   /* the CLI's and the API's names, for messages */
} math_modes[] = {
    {GPUBLOB_FLAG_FTZ, {"ftz", "daz"}, "--ftz/--daz (GPUBLOB_FLAG_FTZ)"},
    {GPUBLOB_FLAG_FINITE_ONLY, {"finite-only", NULL}, "--finite-only (GPUBLOB_FLAG_FINITE_ONLY)"},
    {GPUBLOB_FLAG_UNSAFE_MATH, {"unsafe-math", NULL}, "--unsafe-math (GPUBLOB_FLAG_UNSAFE_MATH)"},
    {GPUBLOB_FLAG_UNSAFE_SQRT, {"unsafe-sqrt", NULL}, "--unsafe-sqrt (GPUBLOB_FLAG_UNSAFE_SQRT)"},
};
enum { NMATH_MODES = sizeof math_modes / sizeof *math_modes };

static int mode_tested(const target_desc *t, const struct math_mode *m) {
  return spec_tests_condition(t, m->names[0]) || (m->names[1] && spec_tests_condition(t, m->names[1]));
}

/* A math mode the caller sets that the target's spec never reads would change
** nothing but the cache key: OPTION, naming it and what the target does read.
** Fast math stands for all of them: it is refused only where none is read. */
static int check_math_modes(job *j) {
  strbuf reads = {0};
  int fast_read = spec_tests_condition(j->t, "fast-math"), rc = GPUBLOB_OK;
  for (int i = 0; i < NMATH_MODES; i++)
    if (mode_tested(j->t, &math_modes[i])) {
      sb_addf(&reads, "%s%s", reads.len ? ", " : "", math_modes[i].names[0]);
      fast_read = 1;
    }
  for (int i = 0; !rc && i < NMATH_MODES; i++)
    if ((j->flags & math_modes[i].flag) && !mode_tested(j->t, &math_modes[i]))
      rc = set_error(j->g, GPUBLOB_OPTION, "math mode %s has no effect on target %s: its spec reads %s; "
                     "leave it out for %s", math_modes[i].option, j->t->name,
                     reads.len ? sb_str(&reads) : "no math mode", j->t->name);
  if (!rc && (j->flags & GPUBLOB_FLAG_FAST_MATH) && !fast_read)
    rc = set_error(j->g, GPUBLOB_OPTION, "math mode --fast-math (GPUBLOB_FLAG_FAST_MATH) has no effect on target "
                   "%s: its spec reads no math mode; leave it out for %s", j->t->name, j->t->name);
  sb_free(&reads);
  return rc;
}

/* The index of condition c (n bytes) in the target's isa_conditions (NAME:GLOB), or -1. */
static int isa_condition_index(const target_desc *t, const char *c, size_t n) {
  const char *list = t->isa_conditions, *w;
  size_t m;
  for (int i = 0; (w = next_word(&list, " ", &m)); i++) {
    const char *colon = memchr(w, ':', m);
    if (colon && (size_t)(colon - w) == n && !memcmp(w, c, n)) return i;
  }
  return -1;
}

/* A math mode holds with its flag, or with fast math, which implies each; clang and
** mlir with the defaults the call takes (--as); an isa_conditions NAME once the
** backend's assembly matched its glob (job_isa_conditions; never before it). */
static int condition_holds(const job *j, const char *c, size_t n) {
  unsigned mode = math_mode_flag(c, n);
  if (mode) return (j->flags & (mode | GPUBLOB_FLAG_FAST_MATH)) != 0;
  if (word_is(c, n, "O0")) return j->opt == 0;
  if (word_is(c, n, "clang")) return j->as == GPUBLOB_AS_CLANG;
  if (word_is(c, n, "mlir")) return j->as != GPUBLOB_AS_CLANG;
  int isa = isa_condition_index(j->t, c, n);
  if (isa >= 0) return isa < 32 && (j->isa_conds >> isa & 1u);
  int on = feature_on(sb_str(&j->condfeat), c + 1, n - 1);
  return c[0] == '+' ? on : !on;
}

static const char *chip_id(const job *j) {
  size_t p = strlen(j->t->chip_prefix);
  return strncmp(j->cpu, j->t->chip_prefix, p) ? j->cpu : j->cpu + p;
}

/* The spec's chip_version for the job's chip: "" when it has none. */
static void add_chip_version(const job *j, strbuf *b) {
  size_t n;
  const char *v = pair_value(j->t->chip_version, j->cpu, &n);
  if (v) sb_addn(b, v, n);
}

/* The chip MLIR's lowering is told: the spec's mlir_lower_chip for the job's, else it. */
static void add_lower_chip(const job *j, strbuf *b) {
  size_t n;
  const char *v = pair_value(j->t->mlir_lower_chip, j->cpu, &n);
  if (v) sb_addn(b, v, n);
  else sb_add(b, j->cpu);
}

static void expand(const job *j, const char *s, size_t n, const char **vars, strbuf *b);

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
static const char *closing_brace(const char *o, const char *e) {
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
    if (condition_holds(j, c, (size_t)(c1 - c))) expand(j, c1 + 1, (size_t)(c2 - c1 - 1), vars, b);
    else expand(j, c2 + 1, (size_t)(e - c2 - 1), vars, b);
    return;
  }
  char opt[2] = {(char)('0' + j->opt), 0};
  if (word_is(p, n, "chip")) sb_add(b, j->cpu);
  else if (word_is(p, n, "chipid")) sb_add(b, chip_id(j));
  else if (word_is(p, n, "targetid")) sb_add(b, j->chip);
  else if (word_is(p, n, "chipversion")) add_chip_version(j, b);
  else if (word_is(p, n, "lowerchip")) add_lower_chip(j, b);
  else if (word_is(p, n, "abi")) sb_addf(b, "%u", j->abi);
  else if (word_is(p, n, "opt")) sb_add(b, opt);
  else {
    for (int i = 0; vars && vars[i]; i += 2)
      if (word_is(p, n, vars[i])) {
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
static void expand(const job *j, const char *s, size_t n, const char **vars, strbuf *b) {
  const char *e = s + n;
  while (s < e) {
    const char *o = memchr(s, '{', (size_t)(e - s));
    if (o && o + 1 < e && o[1] == '{') { /* {{ is a literal brace */
      add_unbraced(b, s, (size_t)(o + 1 - s));
      s = o + 2;
      continue;
    }
    const char *c = o ? closing_brace(o, e) : NULL;
    if (!o || !c) {
      add_unbraced(b, s, (size_t)(e - s));
      return;
    }
    add_unbraced(b, s, (size_t)(o - s));
    expand_one(j, o + 1, (size_t)(c - o - 1), vars, b);
    s = c + 1;
  }
}
