/* src/mlir_attach.c: MLIR: attaching the blobs, once every one of them is made. */

/* ---- MLIR: attaching the blobs, once every one of them is made ---- */
static uint32_t object_format(int format) { /* gpu::CompilationTarget */
  return format == GPUBLOB_FORMAT_LLVM ? 1 : format == GPUBLOB_FORMAT_ASM ? 2
         : format == GPUBLOB_FORMAT_FATBIN ? 4 : 3;
}

static MlirStringRef blob_ref(const mlir_plan_gpu_item *it) {
  return mlirStringRefCreate((const char *)it->blob.data, it->blob.size);
}

GPUBLOB_PRIVATE void mlir_attach_legacy(mlir_plan_call_state *m) {
  for (size_t i = 0; i < m->nitems; i++) {
    mlir_plan_gpu_item *it = &m->items[i];
    mlirOperationSetAttributeByName(it->gm, mlir_init_cref(it->t->attribute),
                                    mlirStringAttrGet(m->ctx, blob_ref(it)));
  }
}

/* gpu.binary @name <handler> [objects], where it replaces the gpu.module. */
static void replace_by_binary(mlir_plan_call_state *m, MlirOperation gm, MlirAttribute *objects, intptr_t n) {
  MlirAttribute handler = mlirOperationGetAttributeByName(gm, mlir_init_cref("offloadingHandler"));
  if (mlirAttributeIsNull(handler)) handler = mlirAttributeParseGet(m->ctx, mlir_init_cref("#gpu.select_object<0>"));
  MlirNamedAttribute attrs[3] = {
      mlirNamedAttributeGet(mlirIdentifierGet(m->ctx, mlir_init_cref("sym_name")),
                            mlirOperationGetAttributeByName(gm, mlir_init_cref("sym_name"))),
      mlirNamedAttributeGet(mlirIdentifierGet(m->ctx, mlir_init_cref("offloadingHandler")), handler),
      mlirNamedAttributeGet(mlirIdentifierGet(m->ctx, mlir_init_cref("objects")),
                            mlirArrayAttrGet(m->ctx, n, objects))};
  MlirOperationState st = mlirOperationStateGet(mlir_init_cref("gpu.binary"), mlirOperationGetLocation(gm));
  mlirOperationStateAddAttributes(&st, 3, attrs);
  MlirOperation bin = mlirOperationCreate(&st);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(gm), gm, bin);
  mlirOperationDestroy(gm);
}

/* An object's properties, as upstream's gpu-module-to-binary writes them: the blob
** tool's log of its jobs (ISACompilerLog, with GPUBLOB_FLAG_TOOL_LOG, as the
** collect-compiler-diagnostics flag asks) and the options' ELF section ("section",
** where gpu-to-llvm's embedding puts the blob); null when it has neither. */
static MlirAttribute object_properties(mlir_plan_call_state *m, const mlir_plan_gpu_item *it, strbuf *log) {
  const plan_output *op = &m->p.outputs[it->output];
  sb_reset(log);
  for (size_t k = op->first; k < op->first + op->count; k++) sb_add(log, sb_str(&m->p.jobs[k]->tool_log));
  MlirNamedAttribute props[2];
  intptr_t n = 0;
  if (log->len)
    props[n++] = mlirNamedAttributeGet(mlirIdentifierGet(m->ctx, mlir_init_cref("ISACompilerLog")),
                                       mlirStringAttrGet(m->ctx, mlirStringRefCreate(log->s, log->len)));
  if (m->o.section && *m->o.section)
    props[n++] = mlirNamedAttributeGet(mlirIdentifierGet(m->ctx, mlir_init_cref("section")),
                                       mlirStringAttrGet(m->ctx, mlir_init_cref(m->o.section)));
  return n ? mlirDictionaryAttrGet(m->ctx, n, props) : (MlirAttribute){NULL};
}

GPUBLOB_PRIVATE int mlir_attach_binary(mlir_plan_call_state *m) {
  MlirAttribute *objects = malloc((m->nitems ? m->nitems : 1) * sizeof *objects);
  if (!objects) return handle_set_error(m->g, GPUBLOB_NOMEM, "out of memory");
  int format = m->o.format ? m->o.format : GPUBLOB_FORMAT_BIN;
  strbuf log = {0};
  for (size_t g = 0; g < m->ngpu_modules; g++) {
    intptr_t n = 0;
    for (size_t i = 0; i < m->nitems; i++) {
      if (!mlirOperationEqual(m->items[i].gm, m->gpu_modules[g])) continue;
      if (m->items[i].own) objects[n++] = m->items[i].object; /* as MLIR's serialiser made it */
      else objects[n++] = mlirGPUObjectAttrGetWithKernels(m->ctx, m->items[i].attr, object_format(format),
                                                       blob_ref(&m->items[i]), object_properties(m, &m->items[i], &log),
                                                       mlir_kernels_kernel_table(m, &m->items[i], format));
    }
    replace_by_binary(m, m->gpu_modules[g], objects, n);
  }
  free(objects);
  int oom = log.oom;
  sb_free(&log);
  return oom ? handle_set_error(m->g, GPUBLOB_NOMEM, "out of memory") : GPUBLOB_OK;
}
