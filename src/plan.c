/* src/plan.c: The call's plan: a job per (target, chip), an output per job or per pack, every
** job's settings resolved (and its tool found) before the first compile starts. */

/* ---- the call's plan: a job per (target, chip), an output per job or per pack ---- */

GPUBLOB_PRIVATE void plan_begin(plan *p, gpublob *g, const gpublob_options *o, const char *name) {
  memset(p, 0, sizeof *p);
  p->g = g;
  p->o = *o;
  p->name = name ? name : "<memory>";
}

GPUBLOB_PRIVATE void plan_end(plan *p) {
  for (size_t i = 0; i < p->njobs; i++) {
    job_state_end(p->jobs[i]);
    free(p->jobs[i]);
  }
  free(p->jobs);
  for (size_t i = 0; i < p->noutputs; i++) sb_free(&p->outputs[i].pack_tool);
  free(p->outputs);
  memset(p, 0, sizeof *p);
}

/* A job for r's target and one chip, cn bytes (NULL: the target's default). */
GPUBLOB_PRIVATE int plan_add_job(plan *p, const target_ref *r, const char *chip, size_t cn, const char *features,
                        int opt) {
  const char *name = r->name;
  size_t n = r->n;
  p->failed = p->njobs;
  if (p->njobs == MAX_JOBS) return handle_set_error(p->g, GPUBLOB_OPTION, "more than %d jobs in one call", MAX_JOBS);
  job *j = malloc(sizeof *j);
  if (!j || util_grow(&p->jobs, p->njobs, sizeof *p->jobs)) {
    free(j);
    return handle_set_error(p->g, GPUBLOB_NOMEM, "out of memory");
  }
  job_state_begin(j, p->g, &p->o, p->name);
  p->jobs[p->njobs++] = j;
  if (n >= sizeof j->target || (chip && cn >= sizeof j->chip))
    return handle_set_error(p->g, n >= sizeof j->target ? GPUBLOB_TARGET : GPUBLOB_CHIP,
                     "target or chip name too long: '%.*s'", (int)(chip ? cn : n), chip ? chip : name);
  snprintf(j->target, sizeof j->target, "%.*s", (int)n, name);
  if (chip) snprintf(j->want, sizeof j->want, "%.*s", (int)cn, chip);
  j->opts.target = j->target;
  resolve_job_aim(j, r, chip ? j->want : NULL);
  j->opts.features = features;
  j->opts.opt = opt;
  j->opts.targets = NULL;
  j->opts.ntargets = 0;
  return GPUBLOB_OK;
}

GPUBLOB_PRIVATE int plan_add_output(plan *p, size_t first, size_t count, int pack) {
  if (util_grow(&p->outputs, p->noutputs, sizeof *p->outputs)) return handle_set_error(p->g, GPUBLOB_NOMEM, "out of memory");
  plan_output *op = &p->outputs[p->noutputs++];
  memset(op, 0, sizeof *op);
  op->first = first;
  op->count = count;
  op->pack = pack;
  return GPUBLOB_OK;
}

/* "NAME[:CHIP[,CHIP...]]", or chips from the choice's chip field: a job per chip;
** one output per job, or one per choice when packing.  opt: the level for them. */
GPUBLOB_PRIVATE int plan_choice(plan *p, const gpublob_target_choice *c, int opt) {
  const target_ref r = resolve_target_parse(c->target, c->chip); /* the choice's one parse */
  const char *chips = r.chips, *w;
  size_t first = p->njobs, cn;
  int rc = chips ? GPUBLOB_OK : plan_add_job(p, &r, NULL, 0, c->features, opt);
  util_chip_list l = util_chip_list_of(chips);
  while (!rc && util_next_chip(&l, &w, &cn)) {
    if (!cn || (l.rest && !*l.rest)) /* an empty chip, or a comma that ends the list */
      return handle_set_error(p->g, GPUBLOB_CHIP, "empty chip in the list '%s'", chips);
    rc = plan_add_job(p, &r, w, cn, c->features, opt);
  }
  if (chips && !*chips) return handle_set_error(p->g, GPUBLOB_CHIP, "empty chip list for target %.*s", (int)r.n, r.name);
  int pack = p->o.format == GPUBLOB_FORMAT_FATBIN;
  for (size_t i = first; !rc && i < p->njobs; i += pack ? p->njobs - first : 1)
    rc = plan_add_output(p, i, pack ? p->njobs - first : 1, pack);
  return rc;
}

/* The position of the job's chip in the spec's list: later is newer. */
static size_t chip_rank(const job *j) {
  int i = util_list_index(j->t->chips, j->cpu, strlen(j->cpu));
  return i < 0 ? 0 : (size_t)i;
}

/* The pack's step (tool_choice_pack_way): the spec's in-process pack provider, or the
** program, found before any compile work. */
static int resolve_pack(job *j, plan_output *op) {
  int way, rc = tool_choice_pack_way(j, &op->pack_tool, &way);
  op->pack_prov = !rc && way == PACK_INPROCESS ? pack_provider_of(j->t) : NULL;
  return rc;
}

/* A pack holds one target and each chip once; its newest chip keeps its assembly. */
static int plan_pack(plan *p, plan_output *op) {
  job *newest = p->jobs[op->first];
  for (size_t i = op->first; i < op->first + op->count; i++) {
    job *j = p->jobs[i];
    if (j->t != newest->t)
      return handle_set_error(p->g, GPUBLOB_OPTION, "a pack holds one target, not %s and %s", newest->t->name,
                       j->t->name);
    for (size_t k = op->first; k < i; k++)
      if (!strcmp(p->jobs[k]->chip, j->chip))
        return handle_set_error(p->g, GPUBLOB_OPTION, "a pack holds each chip once, and %s:%s is in it twice",
                         j->t->name, j->chip);
    if (chip_rank(j) > chip_rank(newest)) newest = j;
  }
  newest->keep_asm = *newest->t->pack_asm_image != 0;
  op->newest = newest;
  return resolve_pack(newest, op);
}

/* Every job's options are checked and every tool found before any work: the
** first problem, in the plan's order, is the call's error. */
GPUBLOB_PRIVATE int plan_resolve(plan *p, int load) {
  int rc = GPUBLOB_OK;
  for (p->failed = 0; !rc && p->failed < p->njobs; p->failed += !rc) rc = resolve_options(p->jobs[p->failed]);
  int takes_abi = 0;
  for (size_t i = 0; !rc && i < p->njobs; i++) takes_abi |= *p->jobs[i]->t->abi != 0;
  if (!rc && p->o.abi && !takes_abi)
    return handle_set_error(p->g, GPUBLOB_OPTION, "ABI version %u: no target of this call has ABI versions (the spec's "
                     "abi_versions)", p->o.abi);
  for (p->failed = 0; !rc && p->failed < p->njobs; p->failed += !rc) rc = tool_choice_resolve_tool(p->jobs[p->failed], load);
  for (size_t i = 0; !rc && i < p->noutputs; i++)
    if (p->outputs[i].pack && (rc = plan_pack(p, &p->outputs[i]))) p->failed = p->outputs[i].first;
  return rc;
}

/* The options' target list (or the single target) as jobs and outputs. */
GPUBLOB_PRIVATE int plan_options(plan *p, int load) {
  int rc = GPUBLOB_OK;
  if (p->o.ntargets && !p->o.targets)
    return handle_set_error(p->g, GPUBLOB_MISUSE, "ntargets is %zu but targets is NULL", p->o.ntargets);
  const gpublob_target_choice single = {p->o.target, p->o.chip, p->o.features};
  const gpublob_target_choice *list = p->o.ntargets ? p->o.targets : &single;
  size_t n = p->o.ntargets ? p->o.ntargets : 1;
  for (size_t i = 0; !rc && i < n; i++) rc = plan_choice(p, &list[i], p->o.opt);
  return rc ? rc : plan_resolve(p, load);
}

/* A format the input can have: MLIR's #gpu.object holds bitcode, assembly or a
** binary, never LLVM IR text.  Checked before any work (a cache directory, a helper). */
GPUBLOB_PRIVATE int plan_format_for_input(gpublob *g, const gpublob_options *o, int kind, const char *name) {
  if (kind != GPUBLOB_INPUT_MLIR || o->format != GPUBLOB_FORMAT_LL) return GPUBLOB_OK;
  return handle_set_error(g, GPUBLOB_FORMAT, "%s: MLIR input cannot give LLVM IR text (ll): a #gpu.object holds "
                   "bitcode (llvm), assembly or a binary", name);
}
