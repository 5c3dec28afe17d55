/* src/mlir_lower.c: MLIR: lowering a copy of a gpu.module whose body is not in the llvm dialect yet. */

/* ---- MLIR: lowering a copy of a gpu.module that is not in the llvm dialect yet ---- */
static MlirWalkResult find_unlowered(MlirOperation op, void *arg) {
  const char **dialects = arg;
  mlir_init_span n = mlir_init_sref(mlirIdentifierStr(mlirOperationGetName(op)));
  const char *dot = memchr(n.s, '.', n.n);
  size_t dn = dot ? (size_t)(dot - n.s) : n.n;
  if (mlir_plan_op_is(op, "gpu.module") || util_list_index(dialects[0], n.s, dn) >= 0) return MlirWalkResultAdvance;
  dialects[1] = "";
  return MlirWalkResultInterrupt;
}

GPUBLOB_PRIVATE int mlir_lower_is_lowered(const mlir_plan_gpu_item *it) {
  const char *state[2] = {it->t->mlir_dialects, NULL};
  mlirOperationWalk(it->gm, find_unlowered, state, MlirWalkPreOrder);
  return state[1] == NULL;
}

/* Another item of the same gpu.module, pipeline and kernel attributes may have lowered
** it already. */
static int reuse_lowered(mlir_plan_call_state *m, mlir_plan_gpu_item *it) {
  for (mlir_plan_gpu_item *p = m->items; p < it; p++)
    if (p->lowered.ptr && mlirOperationEqual(p->gm, it->gm) &&
        !strcmp(sb_str(&p->pipeline), sb_str(&it->pipeline)) &&
        !strcmp(p->t->mlir_kernel_attrs, it->t->mlir_kernel_attrs)) {
      it->lowered = p->lowered;
      return 1;
    }
  return 0;
}

GPUBLOB_PRIVATE void mlir_lower_pipeline_error(MlirStringRef r, void *arg) { sb_addn(arg, r.data, r.length); }

/* ---- MLIR: gpu.launch bodies outlined into gpu.modules, as upstream's pipelines do ---- */
/* A module with gpu.launch ops and no gpu.module (upstream's integration tests, a
** frontend that leaves outlining to the pipeline) gets MLIR's gpu-kernel-outlining
** first: each launch's body becomes a gpu.func in a gpu.module, and the launch a
** gpu.launch_func, which is what upstream runs before gpu-module-to-binary.  Only on
** a module of gpublob's own (the compile calls parse it): a caller's module passed to
** gpublob_mlir_serialize or the pass is never changed before its compile succeeds. */
static MlirWalkResult find_launch(MlirOperation op, void *arg) {
  int *found = arg;
  if (mlir_plan_op_is(op, "gpu.module")) {
    found[0] = 1;
    return MlirWalkResultInterrupt;
  }
  if (mlir_plan_op_is(op, "gpu.launch")) found[1] = 1;
  return MlirWalkResultAdvance;
}

GPUBLOB_PRIVATE int mlir_lower_outline_launches(mlir_plan_call_state *m, MlirOperation top) {
  int found[2] = {0, 0}; /* a gpu.module; a gpu.launch */
  mlirOperationWalk(top, find_launch, found, MlirWalkPreOrder);
  if (found[0] || !found[1]) return GPUBLOB_OK;
  pthread_once(&mlir_init_passes_once, mlir_init_passes_init);
  MlirPassManager pm = mlirPassManagerCreateOnOperation(m->ctx, mlir_init_cref("builtin.module"));
  strbuf err = {0};
  int rc = GPUBLOB_OK;
  if (mlirLogicalResultIsFailure(mlirParsePassPipeline(mlirPassManagerGetAsOpPassManager(pm),
                                                       mlir_init_cref("builtin.module(gpu-kernel-outlining)"),
                                                       mlir_lower_pipeline_error, &err)))
    rc = handle_set_error(m->g, GPUBLOB_LOWER, "%s: MLIR has no gpu-kernel-outlining pass: %s", m->name, sb_str(&err));
  sb_reset(&m->diag);
  if (!rc && mlirLogicalResultIsFailure(mlirPassManagerRunOnOp(pm, top))) {
    handle_set_error(m->g, GPUBLOB_LOWER, "%s: outlining its gpu.launch bodies into gpu.modules (gpu-kernel-outlining) "
              "failed", m->name);
    handle_add_detail(m->g, sb_str(&m->diag));
    rc = GPUBLOB_LOWER;
  }
  sb_free(&err);
  mlirPassManagerDestroy(pm);
  return rc;
}

static int add_lowering(mlir_plan_call_state *m, mlir_plan_gpu_item *it, MlirPassManager pm) {
  pthread_once(&mlir_init_passes_once, mlir_init_passes_init);
  const char *p = sb_str(&it->pipeline);
  strbuf err = {0};
  MlirLogicalResult r;
  if (!strncmp(p, "builtin.module(", 15))
    r = mlirParsePassPipeline(mlirPassManagerGetAsOpPassManager(pm), mlir_init_cref(p), mlir_lower_pipeline_error, &err);
  else
    r = mlirOpPassManagerAddPipeline(mlirPassManagerGetNestedUnder(pm, mlir_init_cref("gpu.module")), mlir_init_cref(p),
                                     mlir_lower_pipeline_error, &err);
  int rc = mlirLogicalResultIsFailure(r)
               ? mlir_plan_item_error(m, it, GPUBLOB_OPTION, "%s: invalid lowering pipeline: %s",
                            err.len ? sb_str(&err) : p)
               : GPUBLOB_OK;
  sb_free(&err);
  return rc;
}

static int run_lowering(mlir_plan_call_state *m, mlir_plan_gpu_item *it, MlirModule wrap) {
  MlirPassManager pm = mlirPassManagerCreateOnOperation(m->ctx, mlir_init_cref("builtin.module"));
  int rc = add_lowering(m, it, pm);
  sb_reset(&m->diag);
  if (!rc && mlirLogicalResultIsFailure(mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(wrap)))) {
    mlir_plan_item_error(m, it, GPUBLOB_LOWER, "%s: the lowering pipeline failed (%s)", sb_str(&it->pipeline));
    handle_add_detail(m->g, sb_str(&m->diag));
    rc = GPUBLOB_LOWER;
  }
  mlirPassManagerDestroy(pm);
  return rc;
}

/* The spec's mlir_kernel_attrs on each kernel of a lowered copy that lacks them (as
** upstream's XeVM serialiser gives a kernel its sub-group size). */
typedef struct kernel_attrs {
  mlir_plan_call_state *m;
  mlir_plan_gpu_item *it;
  int rc;
} kernel_attrs;

static MlirWalkResult add_kernel_attrs(MlirOperation op, void *arg) {
  kernel_attrs *k = arg;
  if (!mlir_plan_op_is(op, "llvm.func") || mlirAttributeIsNull(mlirOperationGetAttributeByName(op, mlir_init_cref("gpu.kernel"))))
    return MlirWalkResultAdvance;
  const char *list = k->it->t->mlir_kernel_attrs, *w;
  size_t n;
  while (!k->rc && (w = util_next_word(&list, " ", &n))) {
    const char *eq = memchr(w, '=', n);
    strbuf name = {0};
    sb_addn(&name, w, eq ? (size_t)(eq - w) : n);
    MlirAttribute v = eq ? mlirAttributeParseGet(k->m->ctx, mlirStringRefCreate(eq + 1, n - (size_t)(eq + 1 - w)))
                         : mlirUnitAttrGet(k->m->ctx);
    if (mlirAttributeIsNull(v))
      k->rc = mlir_plan_item_error(k->m, k->it, GPUBLOB_LOWER, "%s: the spec's mlir_kernel_attrs %s is no MLIR attribute",
                         sb_str(&name));
    else if (mlirAttributeIsNull(mlirOperationGetAttributeByName(op, mlir_init_cref(sb_str(&name)))))
      mlirOperationSetAttributeByName(op, mlir_init_cref(sb_str(&name)), v);
    sb_free(&name);
  }
  return k->rc ? MlirWalkResultInterrupt : MlirWalkResultAdvance;
}

/* Every item works on a copy, alone in a builtin.module (the lowering passes look
** at the parent, and translation may edit what it translates), lowered if need be. */
GPUBLOB_PRIVATE int mlir_lower_item(mlir_plan_call_state *m, mlir_plan_gpu_item *it) {
  if (it->lowered.ptr || reuse_lowered(m, it)) return GPUBLOB_OK;
  MlirModule wrap = mlirModuleCreateEmpty(mlirOperationGetLocation(it->gm));
  mlirBlockAppendOwnedOperation(mlirModuleGetBody(wrap), mlirOperationClone(it->gm));
  int rc = it->pipeline.len && !mlir_lower_is_lowered(it) ? run_lowering(m, it, wrap) : GPUBLOB_OK;
  kernel_attrs k = {m, it, GPUBLOB_OK};
  if (!rc && *it->t->mlir_kernel_attrs) {
    mlirOperationWalk(mlirModuleGetOperation(wrap), add_kernel_attrs, &k, MlirWalkPreOrder);
    rc = k.rc;
  }
  if (rc) {
    mlirModuleDestroy(wrap);
    return rc;
  }
  it->lowered = mlirModuleGetOperation(wrap);
  it->owns_lowered = 1;
  return GPUBLOB_OK;
}

/* The gpu.module to translate: the one in the item's copy (a whole-module
** pipeline may have moved or removed it). */
static MlirWalkResult first_gpu_module(MlirOperation op, void *arg) {
  if (!mlir_plan_op_is(op, "gpu.module")) return MlirWalkResultAdvance;
  *(MlirOperation *)arg = op;
  return MlirWalkResultInterrupt;
}

GPUBLOB_PRIVATE int mlir_lower_item_source(mlir_plan_call_state *m, const mlir_plan_gpu_item *it, MlirOperation *out) {
  *out = (MlirOperation){NULL};
  mlirOperationWalk(it->lowered, first_gpu_module, out, MlirWalkPreOrder);
  if (out->ptr) return GPUBLOB_OK;
  return mlir_plan_item_error(m, (mlir_plan_gpu_item *)it, GPUBLOB_LOWER, "%s: no gpu.module left after the pipeline %s",
                    sb_str(&it->pipeline));
}
