/* src/ir_call.c: An LLVM IR call: from the plan through the pool to its outputs and the cache. */

/* ---- the outputs: a job's blob, or a pack of several ---- */
/* What made an output: the job's blob tool, or the pack's provider or program. */
static const char *output_tool(const plan_output *op, const job *j) {
  if (!op->pack) return j->tool_name;
  return op->pack_prov ? op->pack_prov->name : tool_choice_base_name(sb_str(&op->pack_tool));
}

static int make_output(plan *p, plan_output *op, gpublob_result *out) {
  job *j = p->jobs[op->first];
  gpublob_blob b = {0};
  strbuf chips = {0}, report = {0}; /* the chips' tool reports, each line naming its chip */
  for (size_t i = op->first; i < op->first + op->count; i++) {
    sb_addf(&chips, "%s%s", i > op->first ? "," : "", p->jobs[i]->chip);
    sb_addn(&report, sb_str(&p->jobs[i]->report), p->jobs[i]->report.len);
  }
  double t = util_now_ms(), cpu = provider_run_thread_cpu_ms(), child = j->tool_cpu_ms;
  int rc = op->pack ? pack_run(p->jobs + op->first, op->count, sb_str(&op->pack_tool), op->pack_prov, &b)
                     : GPUBLOB_OK;
  p->g->stats.tool_ms += util_now_ms() - t;
  /* a pack program's CPU (tool_wait adds it to the first job), or the provider's here */
  if (op->pack) p->g->stats.tool_cpu_ms += j->tool_cpu_ms - child + (op->pack_prov ? provider_run_thread_cpu_ms() - cpu : 0);
  if (rc) {
    report_take_error(p->g, &j->sink);
    p->failed = op->first; /* the pack's error names its first job's module */
  } else {
    if (!op->pack) {
      b = j->out;
      memset(&j->out, 0, sizeof j->out);
    }
    if (chips.oom || report.oom ||
        cache_lookup_result_add(out, j->t->name, sb_str(&chips), output_tool(op, j), sb_str(&report), p->o.block_size, &b))
      rc = handle_set_error(p->g, GPUBLOB_NOMEM, "out of memory");
  }
  util_blob_release(&b);
  sb_free(&chips);
  sb_free(&report);
  return rc;
}

GPUBLOB_PRIVATE int ir_call_plan_outputs(plan *p, gpublob_result *out) {
  int rc = GPUBLOB_OK;
  for (size_t i = 0; !rc && i < p->noutputs; i++) rc = make_output(p, &p->outputs[i], out);
  if (rc) gpublob_result_free(out);
  return rc;
}

/* ---- LLVM IR: a call, from the plan through the pool to its outputs ---- */
/* The pack that takes job i's blob, or NULL. */
static const plan_output *job_pack(const plan *p, size_t i) {
  for (size_t k = 0; k < p->noutputs; k++)
    if (i >= p->outputs[k].first && i < p->outputs[k].first + p->outputs[k].count)
      return p->outputs[k].pack ? &p->outputs[k] : NULL;
  return NULL;
}

/* How job i's pack is made (PACK_NONE without one), for the cache. */
static int job_pack_way(const plan *p, size_t i) {
  const plan_output *op = job_pack(p, i);
  return !op ? PACK_NONE : op->pack_prov ? PACK_INPROCESS : PACK_PROGRAM;
}

static const char *job_pack_tool(const plan *p, size_t i) {
  const plan_output *op = job_pack(p, i);
  return op ? sb_str(&op->pack_tool) : "";
}

/* k1: k0 and what each resolved job depends on, digested before any compile work. */
GPUBLOB_PRIVATE void ir_call_plan_entry_key(digest_cache *c, const digest_key128 *k0, plan *p) {
  XXH3_state_t st;
  XXH3_128bits_reset(&st);
  digest_hash_bytes(&st, k0->b, sizeof k0->b);
  for (size_t i = 0; i < p->njobs; i++) {
    digest_key128 d = cache_deps_job_key(c, p->jobs[i], job_pack_way(p, i), job_pack_tool(p, i));
    digest_hash_bytes(&st, d.b, sizeof d.b);
  }
  p->entry_key = digest_hash_key(&st);
}

GPUBLOB_PRIVATE void ir_call_cache_store_plan(digest_cache *c, const digest_key128 *k0, plan *p, const gpublob_result *res) {
  int *packed = calloc(p->njobs ? p->njobs : 1, sizeof *packed);
  for (size_t i = 0; packed && i < p->njobs; i++) packed[i] = job_pack_way(p, i);
  if (packed) cache_store(c, k0, p, packed, res);
  free(packed);
}

/* data holds a NUL at data[size]; every job parses it in its own context. */
GPUBLOB_PRIVATE int ir_call_compile(gpublob *g, const gpublob_options *opts, const unsigned char *data, size_t size,
                      const char *name, digest_cache *c, const digest_key128 *k0, gpublob_result *out) {
  plan p;
  plan_begin(&p, g, opts, name);
  int rc = plan_options(&p, 1);
  for (size_t i = 0; !rc && i < p.njobs; i++) {
    p.jobs[i]->src = data;
    p.jobs[i]->src_size = size;
    rc = dump_prepare(&p, i, name, NULL, 0);
  }
  if (!rc && c) ir_call_plan_entry_key(c, k0, &p);
  if (!rc) rc = pool_run(&p, NULL, NULL);
  if (!rc) rc = ir_call_plan_outputs(&p, out);
  if (!rc && c) ir_call_cache_store_plan(c, k0, &p, out);
  plan_end(&p);
  return rc;
}
