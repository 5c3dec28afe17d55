/* src/mlir_serialize.c: MLIR: the whole of one module, all gpu.modules or none. */

/* ---- MLIR: the whole of one module, all gpu.modules or none ---- */
static void mlir_call_state_end(mlir_plan_call_state *m) {
  for (size_t i = 0; i < m->nitems; i++) {
    mlir_plan_gpu_item *it = &m->items[i];
    if (it->owns_lowered) mlirOperationDestroy(it->lowered);
    sb_free(&it->features);
    sb_free(&it->pipeline);
    sb_free(&it->name);
    sb_free(&it->tool_options);
    sb_free(&it->link_paths);
    free(it->link);
    util_blob_release(&it->blob);
  }
  free(m->items);
  free(m->gpu_modules);
  sb_free(&m->diag);
  plan_end(&m->p);
}

static int serialize(mlir_plan_call_state *m, MlirOperation top) {
  int rc = m->may_outline ? mlir_lower_outline_launches(m, top) : GPUBLOB_OK;
  if (!rc) rc = mlir_plan_find_gpu_modules(m, top);
  for (size_t i = 0; !rc && i < m->ngpu_modules; i++) rc = mlir_plan_module(m, m->gpu_modules[i]);
  if (!rc) rc = mlir_plan_check_items(m);
  if (!rc) rc = mlir_select_check_attach(m);
  if (!rc) rc = mlir_translate_compile_items(m);
  if (!rc) rc = mlir_kernels_limits_check(m); /* before any gpu.module changes */
  if (rc) return rc;
  if (mlir_select_attach_mode(m) == GPUBLOB_ATTACH_LEGACY) mlir_attach_legacy(m);
  else rc = mlir_attach_binary(m);
  return rc;
}

static int deliver(mlir_plan_call_state *m, MlirOperation top, mlir_serialize_out *out) {
  gpublob_blob b = {0};
  strbuf summary = {0}; /* its kernels, for a hit's limits: kept where the cache is */
  double t = util_now_ms(); /* MLIR's printer (or bytecode writer): counted with emission */
  int rc = mlir_io_print(m->g, top, m->o.flags, &b);
  m->g->stats.emit_ms += util_now_ms() - t;
  if (!rc && out->c) rc = mlir_kernels_summary(m, &summary);
  if (!rc && cache_lookup_result_add(out->res, NULL, "", "", sb_str(&summary), m->o.block_size, &b))
    rc = handle_set_error(m->g, GPUBLOB_NOMEM, "out of memory");
  sb_free(&summary);
  util_blob_release(&b);
  if (!rc && out->c) ir_call_cache_store_plan(out->c, out->k0, &m->p, out->res);
  return rc;
}

/* On any context: translations registered (the pass does that in its initialize,
** before MLIR may run passes on threads), diagnostics captured. */
GPUBLOB_PRIVATE int mlir_serialize_in(gpublob *g, const gpublob_options *o, MlirOperation top,
                        const char *name, int register_translations, mlir_serialize_out *out) {
  mlir_plan_call_state m = {.g = g, .ctx = mlirOperationGetContext(top), .name = name, .o = *o};
  plan_begin(&m.p, g, &m.o, name);
  if (out) { /* the compile calls: the module is gpublob's own */
    m.c = out->c;
    m.k0 = out->k0;
    m.may_outline = 1;
  }
  if (m.o.ntargets && !m.o.targets)
    return handle_set_error(g, GPUBLOB_MISUSE, "ntargets is %zu but targets is NULL", m.o.ntargets);
  if (register_translations) mlirRegisterAllLLVMTranslations(m.ctx);
  MlirDiagnosticHandlerID h = mlirContextAttachDiagnosticHandler(m.ctx, mlir_init_on_diagnostic, &m.diag, NULL);
  int rc = plan_format_for_input(g, &m.o, GPUBLOB_INPUT_MLIR, name);
  if (!rc && (m.o.flags & GPUBLOB_FLAG_ISOLATE)) rc = gpublob_helper_start(g);
  if (!rc) rc = serialize(&m, top);
  if (!rc && out) rc = deliver(&m, top, out);
  mlirContextDetachDiagnosticHandler(m.ctx, h);
  mlir_call_state_end(&m);
  provider_settle(g); /* no loader this call started outlives it */
  return rc;
}

/* mlir_serialize_in on a thread with the parsers' large stack: lowering and translation
** recurse through a caller's deeply nested module too. */
typedef struct serialize_call {
  gpublob *g;
  const gpublob_options *o; /* settled */
  MlirOperation top;
  const char *name;
  int register_translations, rc;
} serialize_call;

static void *serialize_call_run(void *arg) {
  serialize_call *c = arg;
  c->rc = mlir_serialize_in(c->g, c->o, c->top, c->name, c->register_translations, NULL);
  return NULL;
}

GPUBLOB_PRIVATE int mlir_serialize_on_parse_stack(gpublob *g, const gpublob_options *o, MlirOperation top,
                                    const char *name, int register_translations) {
  serialize_call c = {g, o, top, name, register_translations, 0};
  pool_on_parse_stack(serialize_call_run, &c);
  return c.rc;
}
