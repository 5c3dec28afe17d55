/* src/mlir_own.c: MLIR: the items whose target the spec gives MLIR's own serialiser
** (mlir_serializer = mlir, #spirv.target_env): a gpu.module whose body is a
** spirv.module has nothing for LLVM to compile; MLIR's SPIR-V serialiser writes its
** blob.  gpublob runs what mlir-opt runs, MLIR's gpu-module-to-binary pass, on a copy
** of the gpu.module that holds that one target, and takes the #gpu.object it makes as
** it is: its bytes, its format and its (absent) properties and kernel table are
** mlir-opt-22's, byte for byte.  The work stays on the calling thread, as all MLIR
** work does, isolated or not; the call's cache key (the input, the options, the spec
** and LLVM's version) covers all it depends on. */

/* ---- MLIR: an item made by MLIR's own serialiser ---- */
/* gpu-module-to-binary's name for the call's format (its objects' formats as gpublob's
** are: llvm is MLIR's offload, asm its assembly); NULL for one it has no name for. */
static const char *own_format_name(int format) {
  switch (format) {
  case GPUBLOB_FORMAT_DEFAULT:
  case GPUBLOB_FORMAT_BIN: return "bin";
  case GPUBLOB_FORMAT_ASM: return "isa";
  case GPUBLOB_FORMAT_LLVM: return "llvm";
  case GPUBLOB_FORMAT_FATBIN: return "fatbin";
  default: return NULL;
  }
}

/* The gpu.binary's first object in the copy, after the pass. */
static MlirWalkResult first_binary(MlirOperation op, void *arg) {
  if (!mlir_plan_op_is(op, "gpu.binary")) return MlirWalkResultAdvance;
  *(MlirOperation *)arg = op;
  return MlirWalkResultInterrupt;
}

static int own_object_from(mlir_plan_call_state *m, mlir_plan_gpu_item *it, MlirOperation wrap) {
  MlirOperation bin = {NULL};
  mlirOperationWalk(wrap, first_binary, &bin, MlirWalkPreOrder);
  MlirAttribute objs = bin.ptr ? mlirOperationGetAttributeByName(bin, mlir_init_cref("objects")) : (MlirAttribute){NULL};
  if (mlirAttributeIsNull(objs) || !mlirAttributeIsAArray(objs) || mlirArrayAttrGetNumElements(objs) != 1)
    return mlir_plan_item_error(m, it, GPUBLOB_LOWER, "%s: MLIR's gpu-module-to-binary left no #gpu.object%s", "");
  it->object = mlirArrayAttrGetElement(objs, 0);
  mlir_init_span bytes = mlir_init_sref(mlirGPUObjectAttrGetObject(it->object));
  it->blob.data = malloc(bytes.n ? bytes.n : 1);
  if (!it->blob.data) return handle_set_error(m->g, GPUBLOB_NOMEM, "out of memory");
  memcpy(it->blob.data, bytes.s, bytes.n);
  it->blob.size = bytes.n;
  it->blob.suffix = it->t->suffix_bin;
  return GPUBLOB_OK;
}

/* The pass on its copy: MLIR's diagnostics (the SPIR-V serialiser's "Failed to serialize
** SPIR-V module") are the error's detail. */
static int own_run(mlir_plan_call_state *m, mlir_plan_gpu_item *it, MlirOperation wrap, const char *format) {
  char pipe[96];
  snprintf(pipe, sizeof pipe, "builtin.module(gpu-module-to-binary{format=%s})", format);
  pthread_once(&mlir_init_passes_once, mlir_init_passes_init);
  MlirPassManager pm = mlirPassManagerCreateOnOperation(m->ctx, mlir_init_cref("builtin.module"));
  strbuf err = {0};
  int rc = GPUBLOB_OK;
  if (mlirLogicalResultIsFailure(mlirParsePassPipeline(mlirPassManagerGetAsOpPassManager(pm), mlir_init_cref(pipe),
                                                       mlir_lower_pipeline_error, &err)))
    rc = mlir_plan_item_error(m, it, GPUBLOB_LOWER, "%s: MLIR has no gpu-module-to-binary pass: %s", sb_str(&err));
  sb_reset(&m->diag);
  if (!rc && mlirLogicalResultIsFailure(mlirPassManagerRunOnOp(pm, wrap))) {
    mlir_plan_item_error(m, it, GPUBLOB_LOWER, "%s: MLIR's serialiser (gpu-module-to-binary, #%s) failed", it->t->mlir_target);
    handle_add_detail(m->g, sb_str(&m->diag));
    rc = GPUBLOB_LOWER;
  }
  sb_free(&err);
  mlirPassManagerDestroy(pm);
  return rc;
}

/* One own item: a copy of its gpu.module, alone in a builtin.module with its one target
** (another target of the gpu.module is another item's), serialised by MLIR. */
static int own_serialize(mlir_plan_call_state *m, mlir_plan_gpu_item *it) {
  const char *format = own_format_name(m->o.format);
  if (!mlir_lower_is_lowered(it)) /* a gpu-dialect body: MLIR's serialiser would only say it failed */
    return handle_set_error(m->g, GPUBLOB_LOWER, "%s: its body holds operations outside the dialects MLIR's serialiser of "
                     "#%s takes (%s): lower it to them first", sb_str(&it->name), it->t->mlir_target,
                     it->t->mlir_dialects);
  if (!format)
    return mlir_plan_item_error(m, it, GPUBLOB_FORMAT, "%s: MLIR's serialiser of #%s gives no such format", it->t->mlir_target);
  MlirModule wrap = mlirModuleCreateEmpty(mlirOperationGetLocation(it->gm));
  MlirOperation copy = mlirOperationClone(it->gm);
  mlirBlockAppendOwnedOperation(mlirModuleGetBody(wrap), copy);
  mlirOperationSetAttributeByName(copy, mlir_init_cref("targets"), mlirArrayAttrGet(m->ctx, 1, &it->attr));
  double t = util_now_ms();
  int rc = own_run(m, it, mlirModuleGetOperation(wrap), format);
  if (!rc) rc = own_object_from(m, it, mlirModuleGetOperation(wrap));
  m->g->stats.emit_ms += util_now_ms() - t;
  mlirModuleDestroy(wrap);
  return rc;
}

/* Every own item, before any job goes to the pool: the first failure is the call's. */
GPUBLOB_PRIVATE int mlir_own_items(mlir_plan_call_state *m) {
  int rc = GPUBLOB_OK;
  for (size_t i = 0; !rc && i < m->nitems; i++)
    if (m->items[i].own) rc = own_serialize(m, &m->items[i]);
  return rc;
}
