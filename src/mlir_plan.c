/* src/mlir_plan.c: MLIR: the gpu.modules of a module, and the targets each is compiled for. */

/* ---- MLIR: the gpu.modules of a module, and the targets each is compiled for ---- */

GPUBLOB_PRIVATE int mlir_plan_op_is(MlirOperation op, const char *name) {
  mlir_init_span n = mlir_init_sref(mlirIdentifierStr(mlirOperationGetName(op)));
  return n.n == strlen(name) && !memcmp(n.s, name, n.n);
}

static MlirWalkResult collect_gpu_module(MlirOperation op, void *arg) {
  mlir_plan_call_state *m = arg;
  if (!mlir_plan_op_is(op, "gpu.module")) return MlirWalkResultAdvance;
  MlirOperation *grown = realloc(m->gpu_modules, (m->ngpu_modules + 1) * sizeof *grown);
  if (!grown) {
    m->oom = 1;
    return MlirWalkResultInterrupt;
  }
  m->gpu_modules = grown;
  m->gpu_modules[m->ngpu_modules++] = op;
  return MlirWalkResultSkip;
}

GPUBLOB_PRIVATE int mlir_plan_find_gpu_modules(mlir_plan_call_state *m, MlirOperation top) {
  mlirOperationWalk(top, collect_gpu_module, m, MlirWalkPreOrder);
  if (m->oom) return handle_set_error(m->g, GPUBLOB_NOMEM, "out of memory");
  if (!m->ngpu_modules)
    return handle_set_error(m->g, GPUBLOB_NOGPU, "%s: no gpu.module in the module (nor a gpu.launch to outline)", m->name);
  return GPUBLOB_OK;
}

/* A gpu.module's symbol; "?" without one. */
static mlir_init_span gm_sym(MlirOperation gm) {
  MlirAttribute a = mlirOperationGetAttributeByName(gm, mlir_init_cref("sym_name"));
  return mlirAttributeIsAString(a) ? mlir_init_sref(mlirStringAttrGetValue(a)) : (mlir_init_span){"?", 1};
}

static void gm_name(MlirOperation gm, strbuf *b) {
  mlir_init_span n = gm_sym(gm);
  sb_addf(b, "gpu.module @%.*s", (int)n.n, n.s);
}

/* The spec target of an attribute's text, "#nvvm.target<...>" (n bytes): the word
** between '#' and '<' (or the end) is its mlir_target. */
static const target_desc *target_of_attr(const char *text, size_t n) {
  if (n < 2 || text[0] != '#') return NULL;
  const char *open = memchr(text + 1, '<', n - 1);
  return inspect_target_of_attr(text + 1, open ? (size_t)(open - text - 1) : n - 1);
}

/* p at a string's opening quote: its closing quote (escapes skipped), or the NUL
** that ends the text. */
static const char *string_end(const char *p) {
  for (p++; *p && *p != '"'; p++) p += *p == '\\' && p[1];
  return p;
}

/* The value of KEY in "#ns.name<KEY = VALUE, ...>": a string (unquoted, escapes
** kept) or a bare word; brackets and strings nest.  0 when absent. */
static int attr_param(const char *text, const char *key, strbuf *out) {
  const char *lt = strchr(text, '<');
  size_t k = strlen(key), n = strlen(text);
  long depth = 0;
  for (size_t i = lt ? (size_t)(lt - text) + 1 : n; i < n; i++) {
    const char *p = text + i; /* KEY, a word, at the top level: no string or bracket there */
    if (depth || strncmp(p, key, k) || (p[-1] != '<' && p[-1] != ' ') || (p[k] != ' ' && p[k] != '=')) {
      i = parse_bracket_scan(text, n, i, SCAN_ESCAPES, &depth);
    } else {
      const char *v = p + k;
      while (*v == ' ' || *v == '=') v++;
      const char *e = v;
      if (*v == '"') {
        e = string_end(v++);
      } else if (*v == '[') { /* an array, with its brackets */
        int d = 0;
        for (e = v; *e && (d += (*e == '[') - (*e == ']')); e++)
          if (*e == '"' && !*(e = string_end(e))) break;
        if (*e) e++;
      } else if (*v == '{') { /* a dictionary: its entries, without the braces */
        int d = 0;
        for (e = v; *e && (d += (*e == '{') - (*e == '}')); e++)
          if (*e == '"' && !*(e = string_end(e))) break;
        v++;
      } else {
        while (*e && !strchr(",> ", *e)) e++;
      }
      sb_addn(out, v, (size_t)(e - v));
      return 1;
    }
  }
  return 0;
}

GPUBLOB_PRIVATE int mlir_plan_item_error(mlir_plan_call_state *m, mlir_plan_gpu_item *it, int code, const char *fmt, const char *detail) {
  handle_set_error(m->g, code, fmt, sb_str(&it->name), detail);
  return code;
}

/* The next entry of a dictionary's text, up to a comma outside strings and brackets:
** its name (before any '=', without blanks or quotes) in *name, its value (after the
** '=', or empty) in *value; NULL at the end. */
static const char *dict_entry(const char *p, mlir_init_span *name, mlir_init_span *value) {
  while (*p == ' ' || *p == ',') p++;
  if (!*p) return NULL;
  const char *start = p, *eq = NULL;
  size_t n = strlen(p), i = 0;
  long depth = 0;
  for (; i < n && (depth > 0 || p[i] != ','); i++) {
    if (p[i] == '=' && !depth && !eq) eq = p + i;
    else if ((i = parse_bracket_scan(p, n, i, SCAN_ESCAPES, &depth)) >= n) break;
  }
  p += i;
  const char *e = eq ? eq : p, *v = eq ? eq + 1 : p;
  while (e > start && e[-1] == ' ') e--;
  if (e - start >= 2 && *start == '"' && e[-1] == '"') start++, e--;
  *name = (mlir_init_span){start, (size_t)(e - start)};
  while (*v == ' ') v++;
  *value = (mlir_init_span){v, (size_t)(p - v)};
  return p;
}

/* text (n bytes), MLIR's ["a", "b"]: each string into words, NUL-ended; *count of
** them.  OPTION (what names the key) when it is no array of strings. */
static int string_array(mlir_plan_call_state *m, mlir_plan_gpu_item *it, const char *what, const char *text, size_t n,
                        strbuf *words, size_t *count) {
  MlirAttribute a = mlirAttributeParseGet(m->ctx, mlirStringRefCreate(text, n));
  int ok = !mlirAttributeIsNull(a) && mlirAttributeIsAArray(a);
  *count = 0;
  for (intptr_t i = 0; ok && i < mlirArrayAttrGetNumElements(a); i++) {
    MlirAttribute e = mlirArrayAttrGetElement(a, i);
    if (!(ok = mlirAttributeIsAString(e))) break;
    mlir_init_span v = mlir_init_sref(mlirStringAttrGetValue(e));
    sb_addn(words, v.s, v.n);
    sb_addn(words, "", 1);
    ++*count;
  }
  if (words->oom) return handle_set_error(m->g, GPUBLOB_NOMEM, "out of memory");
  if (ok) return GPUBLOB_OK;
  handle_set_error(m->g, GPUBLOB_OPTION, "%s: %s = %.*s in the target attribute is not an array of strings",
            sb_str(&it->name), what, (int)n, text);
  return GPUBLOB_OPTION;
}

/* A word for the blob tool, quoted for util_shell_words, after the item's others. */
static void add_quoted_word(strbuf *b, const char *w) {
  sb_add(b, b->len ? " '" : "'");
  for (; *w; w++) sb_add(b, *w == '\'' ? "'\\''" : (char[2]){*w, 0});
  sb_add(b, "'");
}

/* The attribute's tool options (a flag whose effect is tool-options): its strings. */
static int attr_tool_options(mlir_plan_call_state *m, mlir_plan_gpu_item *it, mlir_init_span name, mlir_init_span value) {
  strbuf words = {0}, key = {0};
  size_t count = 0;
  sb_addn(&key, name.s, name.n);
  int rc = value.n ? string_array(m, it, sb_str(&key), value.s, value.n, &words, &count)
                   : mlir_plan_item_error(m, it, GPUBLOB_OPTION, "%s: flag %s of the target attribute needs an array "
                                "of strings", sb_str(&key));
  const char *w = sb_str(&words);
  for (size_t i = 0; !rc && i < count; i++, w += strlen(w) + 1) add_quoted_word(&it->tool_options, w);
  sb_free(&words);
  sb_free(&key);
  return rc;
}

/* What a FLAG:EFFECT of the spec's mlir_flags sets, besides a feature or the tool's
** options: a math mode, or tool-log (the blob tool's log kept); 0 for none. */
GPUBLOB_PRIVATE unsigned mlir_plan_flag_effect(const char *name, size_t n) {
  return util_word_is(name, n, "tool-log") ? GPUBLOB_FLAG_TOOL_LOG : template_math_mode_flag(name, n);
}

/* The attribute's flags = {a, b = ...}: each one the spec's mlir_flags name (MLIR asks
** only whether a flag is there, whatever its value), as a feature (into it->features)
** or a math mode (into *flags). */
static int attr_flags(mlir_plan_call_state *m, mlir_plan_gpu_item *it, const target_desc *t, const char *dict, unsigned *flags) {
  mlir_init_span f, value;
  while ((dict = dict_entry(dict, &f, &value))) {
    size_t en;
    strbuf name = {0};
    sb_addn(&name, f.s, f.n);
    const char *e = f.n ? util_pair_value(t->mlir_flags, sb_str(&name), &en) : NULL;
    sb_free(&name);
    if (!e)
      return handle_set_error(m->g, GPUBLOB_OPTION, "%s: flag '%.*s' of the target attribute is not one gpublob knows "
                       "for %s (known: %s)", sb_str(&it->name), (int)f.n, f.s, t->name,
                       *t->mlir_flags ? t->mlir_flags : "none");
    if (*e == '+' || *e == '-') sb_addf(&it->features, "%s%.*s", it->features.len ? "," : "", (int)en, e);
    else if (util_word_is(e, en, "tool-options")) {
      int rc = attr_tool_options(m, it, f, value);
      if (rc) return rc;
    } else *flags |= mlir_plan_flag_effect(e, en);
  }
  return GPUBLOB_OK;
}

/* The options' link files, then the attribute's link = [...] (linkFiles on some
** dialects' attributes): the item's jobs link them all. */
static int attr_link(mlir_plan_call_state *m, mlir_plan_gpu_item *it, const char *text, size_t *count) {
  strbuf v = {0};
  *count = 0;
  if (m->o.nlink && !m->o.link) return handle_set_error(m->g, GPUBLOB_MISUSE, "nlink is %zu but link is NULL", m->o.nlink);
  for (size_t i = 0; i < m->o.nlink; i++) {
    if (!m->o.link[i]) return handle_set_error(m->g, GPUBLOB_MISUSE, "link[%zu] is NULL (nlink is %zu)", i, m->o.nlink);
    sb_addn(&it->link_paths, m->o.link[i], strlen(m->o.link[i]) + 1);
    ++*count;
  }
  int rc = GPUBLOB_OK;
  const char *key = attr_param(text, "link", &v) ? "link" : attr_param(text, "linkFiles", &v) ? "linkFiles" : NULL;
  size_t more = 0;
  if (key) rc = string_array(m, it, key, sb_str(&v), v.len, &it->link_paths, &more);
  *count += more;
  sb_free(&v);
  if (rc || !*count) return rc;
  it->link = calloc(*count, sizeof *it->link);
  if (!it->link || it->link_paths.oom) return handle_set_error(m->g, GPUBLOB_NOMEM, "out of memory");
  const char *p = it->link_paths.s;
  for (size_t i = 0; i < *count; i++, p += strlen(p) + 1) it->link[i] = p;
  return GPUBLOB_OK;
}

/* The attribute's abi = "N", for a target with ABI versions: *abi, checked when
** resolved; *named whether the attribute gave it (else MLIR's default, mlir_abi). */
static int attr_abi(mlir_plan_call_state *m, mlir_plan_gpu_item *it, const target_desc *t, const char *text, unsigned *abi,
                    int *named) {
  strbuf v = {0};
  int rc = GPUBLOB_OK;
  if (!*t->abi) return GPUBLOB_OK;
  *named = attr_param(text, "abi", &v);
  if (!*named) sb_add(&v, t->mlir_abi);
  if (v.len) {
    char *end;
    unsigned long n = strtoul(sb_str(&v), &end, 10);
    if (*end || !v.len || n > 1000000)
      rc = mlir_plan_item_error(m, it, GPUBLOB_OPTION, "%s: abi = \"%s\" in the target attribute is no ABI version",
                      sb_str(&v));
    else *abi = (unsigned)n;
  }
  sb_free(&v);
  return rc;
}

static int unknown_attr(mlir_plan_call_state *m, mlir_plan_gpu_item *it, const strbuf *text) {
  strbuf known = {0};
  for (int i = 0; i < target_count(); i++)
    if (*target_at(i)->mlir_target) sb_addf(&known, " #%s", target_at(i)->mlir_target);
  handle_set_error(m->g, GPUBLOB_TARGET, "%s: unknown target attribute %s (the spec knows:%s)",
            sb_str(&it->name), sb_str(text), sb_str(&known));
  sb_free(&known);
  return GPUBLOB_TARGET;
}

/* An item MLIR's own serialiser makes (the spec's mlir_serializer): no job, no output in
** the plan; the attribute's parameters are that serialiser's to read. */
static int own_item(mlir_plan_gpu_item *it, const target_desc *t, MlirAttribute a) {
  it->own = 1;
  it->t = t;
  it->attr = a;
  it->output = (size_t)-1;
  return GPUBLOB_OK;
}

/* A job from an attribute such as #nvvm.target<chip = "sm_90", O = 3>: its target,
** chip, features and level, where absent fields mean what MLIR says they mean. */
static int item_from_attr(mlir_plan_call_state *m, mlir_plan_gpu_item *it, MlirAttribute a) {
  strbuf text = {0}, v = {0};
  mlirAttributePrint(a, mlir_init_append_ref, &text);
  const target_desc *t = target_of_attr(sb_str(&text), text.len);
  int rc = t ? GPUBLOB_OK : unknown_attr(m, it, &text);
  if (!rc && t->mlir_serializer == MLIR_SERIALIZER_mlir) { /* MLIR's serialiser reads the attribute */
    sb_free(&text);
    return own_item(it, t, a);
  }
  size_t nlink = 0;
  if (m->o.tool_options) sb_add(&it->tool_options, m->o.tool_options);
  if (!rc) rc = attr_link(m, it, sb_str(&text), &nlink);
  if (!rc && attr_param(sb_str(&text), "triple", &v) && strcmp(sb_str(&v), t->triple))
    rc = mlir_plan_item_error(m, it, GPUBLOB_TARGET, "%s: triple %s differs from the spec's", sb_str(&v));
  sb_reset(&v);
  /* MLIR's default level is 2; -O (the options) wins over the attribute. */
  int level = attr_param(sb_str(&text), "O", &v) ? atoi(sb_str(&v)) : 2;
  if (!rc && !m->o.opt && (level < 0 || level > 3))
    rc = mlir_plan_item_error(m, it, GPUBLOB_OPTION, "%s: unknown optimisation level O = %s in the attribute",
                    sb_str(&v));
  sb_reset(&v);
  if (!rc && attr_param(sb_str(&text), "features", &v)) sb_add(&it->features, sb_str(&v));
  sb_reset(&v);
  unsigned flags = 0, abi = 0;
  int abi_named = 0;
  if (!rc && attr_param(sb_str(&text), "flags", &v)) rc = attr_flags(m, it, t, sb_str(&v), &flags);
  sb_reset(&v);
  if (!rc) rc = attr_abi(m, it, t, sb_str(&text), &abi, &abi_named);
  const char *chip = !t ? "" : attr_param(sb_str(&text), "chip", &v) ? sb_str(&v)
                         : *t->mlir_chip ? t->mlir_chip : t->chip;
  size_t first = m->p.njobs;
  const target_ref r = {t ? t->name : "", t ? strlen(t->name) : 0, t, NULL}; /* the attribute's target, known */
  if (!rc)
    rc = plan_add_job(&m->p, &r, chip, strlen(chip),
                      it->features.len ? sb_str(&it->features) : NULL,
                      m->o.opt ? m->o.opt : GPUBLOB_OPT_O0 + level);
  if (!rc) { /* the options' math modes and ABI version win over the attribute's */
    m->p.jobs[first]->opts.flags |= flags;
    m->p.jobs[first]->opts.link = it->link;
    m->p.jobs[first]->opts.nlink = nlink;
    m->p.jobs[first]->opts.tool_options = it->tool_options.len ? sb_str(&it->tool_options) : NULL;
    if (!m->o.abi && abi_named) m->p.jobs[first]->opts.abi = abi; /* as the caller's: a module's own must agree */
    if (!m->o.abi && abi_named) m->p.jobs[first]->abi_from = "from the target attribute";
    if (!abi_named) m->p.jobs[first]->abi_default = abi; /* MLIR's default: a module's own stands */
  }
  if (!rc) rc = plan_add_output(&m->p, first, 1, m->o.format == GPUBLOB_FORMAT_FATBIN);
  it->output = m->p.noutputs - 1;
  it->attr = a;
  sb_free(&text);
  sb_free(&v);
  return rc;
}

static int add_item(mlir_plan_call_state *m, MlirOperation gm, mlir_plan_gpu_item **out) {
  mlir_plan_gpu_item *grown = realloc(m->items, (m->nitems + 1) * sizeof *grown);
  if (!grown) return handle_set_error(m->g, GPUBLOB_NOMEM, "out of memory");
  m->items = grown;
  mlir_plan_gpu_item *it = &m->items[m->nitems++];
  memset(it, 0, sizeof *it);
  it->gm = gm;
  sb_addf(&it->name, "%s: ", m->name);
  gm_name(gm, &it->name);
  *out = it;
  return it->name.oom ? handle_set_error(m->g, GPUBLOB_NOMEM, "out of memory") : GPUBLOB_OK;
}

/* A choice of the options: a job per chip, an item per output (a chip, or a pack). */
static int items_from_choice(mlir_plan_call_state *m, MlirOperation gm, const gpublob_target_choice *c) {
  size_t first = m->p.noutputs;
  int rc = plan_choice(&m->p, c, m->o.opt);
  for (size_t s = first; !rc && s < m->p.noutputs; s++) {
    mlir_plan_gpu_item *it = NULL;
    rc = add_item(m, gm, &it);
    if (!rc) it->output = s;
  }
  return rc;
}

GPUBLOB_PRIVATE int mlir_plan_module(mlir_plan_call_state *m, MlirOperation gm) {
  const gpublob_target_choice single = {m->o.target, m->o.chip, m->o.features};
  const gpublob_target_choice *list = m->o.ntargets ? m->o.targets : &single;
  size_t n = m->o.ntargets ? m->o.ntargets : 1;
  MlirAttribute attrs = mlirOperationGetAttributeByName(gm, mlir_init_cref("targets"));
  int own = !m->o.ntargets && !m->o.target && !mlirAttributeIsNull(attrs) &&
            mlirAttributeIsAArray(attrs) && mlirArrayAttrGetNumElements(attrs) > 0;
  if (own) n = (size_t)mlirArrayAttrGetNumElements(attrs);
  int rc = GPUBLOB_OK;
  for (size_t i = 0; !rc && i < n; i++) {
    mlir_plan_gpu_item *it = NULL;
    if (!own) rc = items_from_choice(m, gm, &list[i]);
    else if (!(rc = add_item(m, gm, &it)))
      rc = item_from_attr(m, it, mlirArrayAttrGetElement(attrs, (intptr_t)i));
  }
  return rc;
}

/* The item whose output job i makes. */
GPUBLOB_PRIVATE mlir_plan_gpu_item *mlir_plan_item_of_job(mlir_plan_call_state *m, size_t i) {
  for (size_t k = 0; k < m->nitems; k++) {
    if (m->items[k].own) continue;
    const plan_output *op = &m->p.outputs[m->items[k].output];
    if (i >= op->first && i < op->first + op->count) return &m->items[k];
  }
  return NULL;
}

GPUBLOB_PRIVATE job *mlir_plan_item_job(mlir_plan_call_state *m, const mlir_plan_gpu_item *it) { return m->p.jobs[m->p.outputs[it->output].first]; }

/* The chip an item's #gpu.object names: its job's, or a pack's newest (as
** planned, when it was not resolved). */
GPUBLOB_PRIVATE const char *mlir_plan_item_chip(mlir_plan_call_state *m, const mlir_plan_gpu_item *it) {
  const plan_output *op = &m->p.outputs[it->output];
  const job *j = op->newest ? op->newest : mlir_plan_item_job(m, it);
  return *j->chip ? j->chip : j->want;
}

/* A core error names the gpu.module and target it came from. */
GPUBLOB_PRIVATE void mlir_plan_name_error(mlir_plan_call_state *m, const mlir_plan_gpu_item *it) {
  const char *msg = gpublob_error_message(m->g);
  if (!it || !it->t || it->own || !strncmp(msg, sb_str(&it->name), it->name.len)) return;
  strbuf text = {0};
  sb_addf(&text, "%s (%s %s): %s", sb_str(&it->name), it->t->name, mlir_plan_item_chip(m, it), msg);
  handle_set_error(m->g, m->g->code, "%s", sb_str(&text));
  sb_free(&text);
}

/* Every job's options and tools, and every item's pipeline, are checked before any
** lowering or compile work is spent on any item. */
GPUBLOB_PRIVATE int mlir_plan_check_items(mlir_plan_call_state *m) {
  for (size_t i = 0; i < m->p.njobs; i++) m->p.jobs[i]->name = sb_str(&mlir_plan_item_of_job(m, i)->name);
  int rc = plan_resolve(&m->p, 1);
  for (size_t i = 0; !rc && i < m->p.njobs; i++) { /* the dump directory's names: STEM.MODULE.TARGET.CHIP. */
    mlir_init_span sym = gm_sym(mlir_plan_item_of_job(m, i)->gm);
    if ((rc = dump_prepare(&m->p, i, m->name, sym.s, sym.n))) m->p.failed = i;
  }
  for (size_t i = 0; i < m->nitems; i++)
    if (!m->items[i].own) m->items[i].t = mlir_plan_item_job(m, &m->items[i])->t;
  if (rc) {
    mlir_plan_name_error(m, mlir_plan_item_of_job(m, m->p.failed));
    return rc;
  }
  for (size_t i = 0; i < m->nitems; i++) {
    mlir_plan_gpu_item *it = &m->items[i];
    if (it->own) continue;
    if (it->t->mlir_serializer == MLIR_SERIALIZER_mlir) /* -t chose it: no attribute to serialise by */
      return handle_set_error(m->g, GPUBLOB_OPTION, "%s: target %s is serialised by MLIR from the gpu.module's own "
                       "#%s attribute; -t cannot choose it", sb_str(&it->name), it->t->name, it->t->mlir_target);
    job *j = mlir_plan_item_job(m, it);
    const char *pipe = m->o.pipeline ? m->o.pipeline : it->t->mlir_lower;
    if (strcmp(pipe, "none")) template_expand(j, pipe, strlen(pipe), NULL, &it->pipeline);
  }
  return GPUBLOB_OK;
}
