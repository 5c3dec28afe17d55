/* src/mlir_translate.c: MLIR: translation to LLVM IR on this thread; the job then goes to the pool. */

/* ---- MLIR: translation to LLVM IR on this thread, then the job goes to the pool ---- */
static int translate_into(mlir_plan_call_state *m, mlir_plan_gpu_item *it, job *j, MlirOperation src) {
  int rc = llvm_start(j);
  if (rc) return report_take_error(m->g, j->g); /* the job's handle is its sink here: the call's gets it */
  sb_reset(&m->diag);
  j->llvm->mod = mlirTranslateModuleToLLVMIR(src, j->llvm->ctx);
  if (j->llvm->mod) return GPUBLOB_OK;
  mlir_plan_item_error(m, it, GPUBLOB_LOWER, "%s: cannot translate to LLVM IR%s", "");
  handle_add_detail(m->g, sb_str(&m->diag));
  return GPUBLOB_LOWER;
}

/* Job i's module: its item lowered (once), then translated into the job's context.
** MLIR stays on the calling thread; only LLVM work goes to the pool. */
/* With -t, the copy a job translates carries the chosen target, and is verified so:
** an op that needs another chip (nvvm.wgmma on sm_90, not sm_90a) fails here, as
** mlir-opt would fail it, not in LLVM's backend. */
static int verify_for_target(mlir_plan_call_state *m, mlir_plan_gpu_item *it, const job *j, MlirOperation src) {
  if ((!m->o.ntargets && !m->o.target) || mlirAttributeIsNull(it->attr)) return GPUBLOB_OK;
  strbuf text = {0}; /* a pack's member: the attribute of its own chip, not the newest's */
  MlirAttribute attr = m->p.outputs[it->output].count > 1 ? mlir_select_target_attr_for(m, it, j, j->chip, &text) : it->attr;
  sb_free(&text);
  if (mlirAttributeIsNull(attr)) attr = it->attr;
  mlirOperationSetAttributeByName(src, mlir_init_cref("targets"), mlirArrayAttrGet(m->ctx, 1, &attr));
  sb_reset(&m->diag);
  if (mlirOperationVerify(src)) return GPUBLOB_OK;
  mlir_plan_item_error(m, it, GPUBLOB_VERIFY, "%s: fails verification for the chosen target%s", "");
  handle_add_detail(m->g, sb_str(&m->diag));
  return GPUBLOB_VERIFY;
}

static int mlir_prepare(void *arg, size_t i) {
  mlir_plan_call_state *m = arg;
  mlir_plan_gpu_item *it = mlir_plan_item_of_job(m, i);
  job *j = m->p.jobs[i];
  double t = util_now_ms();
  MlirOperation src;
  j->mlir_input = 1;
  int rc = mlir_lower_item(m, it);
  j->ms[PH_LOAD] += util_now_ms() - t;
  if (!rc) rc = mlir_lower_item_source(m, it, &src);
  if (!rc) rc = verify_for_target(m, it, j, src);
  t = util_now_ms();
  if (!rc) rc = translate_into(m, it, j, src);
  j->ms[PH_LOAD] += util_now_ms() - t;
  return rc;
}

/* Every job through the pool; each item's blob, or the first error, named. */
GPUBLOB_PRIVATE int mlir_translate_compile_items(mlir_plan_call_state *m) {
  if (m->c) ir_call_plan_entry_key(m->c, m->k0, &m->p);
  int rc = mlir_own_items(m);
  if (rc) return rc;
  rc = pool_run(&m->p, mlir_prepare, m);
  if (rc && m->p.failed < m->p.njobs && m->p.jobs[m->p.failed]->state == JOB_FAILED)
    mlir_plan_name_error(m, mlir_plan_item_of_job(m, m->p.failed));
  gpublob_result res = {0};
  if (!rc) rc = ir_call_plan_outputs(&m->p, &res);
  if (rc && m->p.failed < m->p.njobs) mlir_plan_name_error(m, mlir_plan_item_of_job(m, m->p.failed));
  for (size_t i = 0; !rc && i < m->nitems; i++) {
    if (m->items[i].own) continue; /* its blob is MLIR's */
    m->items[i].blob = res.outputs[m->items[i].output].blob;
    memset(&res.outputs[m->items[i].output].blob, 0, sizeof(gpublob_blob));
  }
  gpublob_result_free(&res);
  return rc;
}
