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

/* A math mode holds with its flag, or with fast math, which implies each. */
static int condition_holds(const job *j, const char *c, size_t n) {
  unsigned mode = math_mode_flag(c, n);
  if (mode) return (j->flags & (mode | GPUBLOB_FLAG_FAST_MATH)) != 0;
  if (word_is(c, n, "O0")) return j->opt == 0;
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

/* Expands one placeholder body (between the braces) into b. */
static void expand_one(const job *j, const char *p, size_t n, const char **vars, strbuf *b) {
  if (n > 3 && !strncmp(p, "if:", 3)) {
    const char *c = p + 3, *e = p + n;
    const char *c1 = memchr(c, ':', (size_t)(e - c));
    const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(e - c1 - 1)) : NULL;
    if (!c2) return;
    if (condition_holds(j, c, (size_t)(c1 - c))) sb_addn(b, c1 + 1, (size_t)(c2 - c1 - 1));
    else sb_addn(b, c2 + 1, (size_t)(e - c2 - 1));
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
    const char *c = o ? memchr(o, '}', (size_t)(e - o)) : NULL;
    if (!o || !c) {
      add_unbraced(b, s, (size_t)(e - s));
      return;
    }
    add_unbraced(b, s, (size_t)(o - s));
    expand_one(j, o + 1, (size_t)(c - o - 1), vars, b);
    s = c + 1;
  }
}
