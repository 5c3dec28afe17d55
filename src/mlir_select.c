/* src/mlir_select.c: MLIR: how the blobs will be attached, checked before any work. */

/* ---- MLIR: how the blobs will be attached, checked before any work ---- */
GPUBLOB_PRIVATE int mlir_select_attach_mode(const mlir_plan_call_state *m) {
  return m->o.attach ? m->o.attach : GPUBLOB_ATTACH_BINARY;
}

/* A target chosen by the options gets an attribute written from the spec. */
/* The attribute's flags for the job's math modes and tool log: each mlir_flags name whose
** option the job asked for ("fast", "daz", "collect-compiler-diagnostics"), quoted,
** comma-separated into b. */
static void attr_flags_of(const job *j, const target_desc *t, strbuf *b) {
  const char *list = t->mlir_flags, *w;
  size_t n;
  while ((w = util_next_word(&list, " ", &n))) {
    const char *colon = memchr(w, ':', n), *e = colon ? colon + 1 : NULL;
    size_t en = e ? n - (size_t)(e - w) : 0;
    unsigned bit = e && *e != '+' && *e != '-' ? mlir_plan_flag_effect(e, en) : 0;
    if (bit && (j->flags & bit) == bit) sb_addf(b, "%s\"%.*s\"", b->len ? ", " : "", (int)(colon - w), w);
  }
}

/* #nvvm.target<O = 3, chip = "sm_90", features = "..."> for job j's chip (a target id's
** modifiers as features: MLIR's chip is the chip alone); its text in text. */
GPUBLOB_PRIVATE MlirAttribute mlir_select_target_attr_for(mlir_plan_call_state *m, const mlir_plan_gpu_item *it, const job *j, const char *chip, strbuf *text) {
  const char *colon = strchr(chip, ':');
  strbuf feats = {0}, flags = {0};
  if (j->opts.features) sb_add(&feats, j->opts.features);
  resolve_add_id_features(chip, &feats);
  attr_flags_of(j, it->t, &flags);
  sb_addf(text, "#%s<O = %d, chip = \"%.*s\"", it->t->mlir_target, j->opt,
          (int)(colon ? (size_t)(colon - chip) : strlen(chip)), chip);
  if (feats.len) sb_addf(text, ", features = \"%s\"", sb_str(&feats));
  if (*it->t->mlir_abi) sb_addf(text, ", abi = \"%u\"", j->abi);
  if (flags.len) sb_addf(text, ", flags = {%s}", sb_str(&flags));
  sb_add(text, ">");
  sb_free(&feats);
  sb_free(&flags);
  return mlirAttributeParseGet(m->ctx, mlirStringRefCreate(text->s, text->len));
}

static int make_target_attr(mlir_plan_call_state *m, mlir_plan_gpu_item *it) {
  if (!mlirAttributeIsNull(it->attr)) return GPUBLOB_OK;
  if (!*it->t->mlir_target)
    return mlir_plan_item_error(m, it, GPUBLOB_OPTION,
                      "%s: target %s has no MLIR target attribute in the spec (mlir_target), "
                      "so it has no #gpu.object; use legacy attach",
                      it->t->name);
  strbuf text = {0};
  it->attr = mlir_select_target_attr_for(m, it, mlir_plan_item_job(m, it), mlir_plan_item_chip(m, it), &text);
  int rc = mlirAttributeIsNull(it->attr)
               ? mlir_plan_item_error(m, it, GPUBLOB_LOWER, "%s: MLIR does not accept %s", sb_str(&text))
               : GPUBLOB_OK;
  sb_free(&text);
  return rc;
}

/* A gpu.module's #gpu.select_object<N> (or <#target>) must pick one of the objects
** its gpu.binary will hold: -t may give it fewer, or other targets, than it had. */
static int selection_error(mlir_plan_call_state *m, mlir_plan_gpu_item *it, const char *text, size_t count) {
  strbuf why = {0};
  sb_addf(&why, "%s selects none of the %zu object%s it gets", text, count, count == 1 ? "" : "s");
  mlir_plan_item_error(m, it, GPUBLOB_OPTION, "%s: its offloadingHandler %s (from -t or its own targets); select "
             "one that is there, or drop the handler", sb_str(&why));
  sb_free(&why);
  return GPUBLOB_OPTION;
}

/* Does an object of gm have the target attribute text inner (n bytes)? */
static int has_object_for(mlir_plan_call_state *m, MlirOperation gm, const char *inner, size_t n) {
  strbuf text = {0};
  int found = 0;
  for (size_t i = 0; i < m->nitems && !found; i++) {
    if (!mlirOperationEqual(m->items[i].gm, gm) || mlirAttributeIsNull(m->items[i].attr)) continue;
    sb_reset(&text);
    mlirAttributePrint(m->items[i].attr, mlir_init_append_ref, &text);
    found = text.len == n && !memcmp(sb_str(&text), inner, n);
  }
  sb_free(&text);
  return found;
}

static int check_selection(mlir_plan_call_state *m, MlirOperation gm) {
  MlirAttribute h = mlirOperationGetAttributeByName(gm, mlir_init_cref("offloadingHandler"));
  mlir_plan_gpu_item *first = NULL;
  size_t count = 0;
  for (size_t i = 0; i < m->nitems; i++)
    if (mlirOperationEqual(m->items[i].gm, gm)) {
      if (!first) first = &m->items[i];
      count++;
    }
  if (mlirAttributeIsNull(h) || !first) return GPUBLOB_OK;
  strbuf text = {0};
  mlirAttributePrint(h, mlir_init_append_ref, &text);
  const char *p = sb_str(&text), *prefix = "#gpu.select_object<";
  size_t n = strlen(prefix);
  int rc = GPUBLOB_OK;
  if (!strncmp(p, prefix, n) && text.len > n + 1) {
    const char *inner = p + n;
    int found = isdigit((unsigned char)*inner) ? strtoull(inner, NULL, 10) < count
                                               : has_object_for(m, gm, inner, text.len - n - 1);
    if (!found) rc = selection_error(m, first, p, count);
  }
  sb_free(&text);
  return rc;
}

/* Legacy attach keeps one blob per attribute name on each gpu.module. */
static int check_legacy_names(mlir_plan_call_state *m) {
  for (size_t i = 0; i < m->nitems; i++)
    for (size_t k = 0; k < i; k++)
      if (mlirOperationEqual(m->items[i].gm, m->items[k].gm) &&
          !strcmp(m->items[i].t->attribute, m->items[k].t->attribute))
        return mlir_plan_item_error(m, &m->items[i], GPUBLOB_OPTION,
                          "%s: two targets would share the attribute %s; use binary attach",
                          m->items[i].t->attribute);
  return GPUBLOB_OK;
}

GPUBLOB_PRIVATE int mlir_select_check_attach(mlir_plan_call_state *m) {
  int mode = mlir_select_attach_mode(m);
  if (mode != GPUBLOB_ATTACH_BINARY && mode != GPUBLOB_ATTACH_LEGACY)
    return handle_set_error(m->g, GPUBLOB_OPTION, "unknown attach mode %d", mode);
  int rc = GPUBLOB_OK;
  for (size_t i = 0; mode == GPUBLOB_ATTACH_LEGACY && !rc && i < m->nitems; i++) /* for verify_for_target */
    if (*m->items[i].t->mlir_target) rc = make_target_attr(m, &m->items[i]);
  if (mode == GPUBLOB_ATTACH_LEGACY) return rc ? rc : check_legacy_names(m);
  for (size_t i = 0; i < m->nitems; i++) {
    if (mlirBlockIsNull(mlirOperationGetBlock(m->items[i].gm)))
      return mlir_plan_item_error(m, &m->items[i], GPUBLOB_OPTION,
                        "%s: has no parent block to hold its gpu.binary; use legacy attach%s", "");
    rc = make_target_attr(m, &m->items[i]);
    if (rc) return rc;
  }
  for (size_t g = 0; !rc && g < m->ngpu_modules; g++) rc = check_selection(m, m->gpu_modules[g]);
  return rc;
}
