/* src/mlir_kernels.c: MLIR: the kernel table of a #gpu.object.  Each object of a bin
** blob gets kernels = #gpu.mlir_kernels_kernel_table<[...]>: a #gpu.kernel_metadata per kernel
** the blob records (read by the target's 'metadata' reader, src/meta_pack.c) that is
** an llvm.func of the gpu.module (its lowered copy where gpublob lowered it), with
** that function's type and a dictionary of the figures the blob records.  The keys
** are the reader's: amdgpu_note's are upstream's (ROCDL's getAMDHSAKernelsELFMetadata:
** vgpr_count, sgpr_count, agpr_count, vgpr_spill_count, sgpr_spill_count,
** wavefront_size, max_flat_workgroup_size, group_segment_fixed_size,
** private_segment_fixed_size, reqd_workgroup_size) and kernarg_segment_size;
** nv_info's, which upstream's NVVM target does not write, are the CUDA driver's
** function attributes (num_regs, shared_size_bytes, local_size_bytes,
** max_threads_per_block, param_size_bytes) and reqntid.  The table is built as text
** and parsed (the C API has no builder for it).  A pack's object and a blob whose
** reader records nothing get none; a blob its reader refuses gets none either: the
** compile stands, and gpublob_kernel_get on a bin output says why. */

/* ---- MLIR: the kernels of a #gpu.object ---- */
typedef struct mlir_kernel_key {
  const char *key;
  size_t off;
} mlir_kernel_key;

#define KOFF(field) offsetof(gpublob_kernel_info, field)
static const mlir_kernel_key amd_keys[] = {
#define GPUBLOB_MLIR_AMD_KEY(key, field) {#key, KOFF(field)},
    GPUBLOB_AMDGPU_KERNEL_KEYS(GPUBLOB_MLIR_AMD_KEY)
#undef GPUBLOB_MLIR_AMD_KEY
    {NULL, 0}};
static const mlir_kernel_key nv_keys[] = {
    {"num_regs", KOFF(registers)}, {"shared_size_bytes", KOFF(shared_bytes)},
    {"local_size_bytes", KOFF(local_bytes)}, {"max_threads_per_block", KOFF(max_threads)},
    {"param_size_bytes", KOFF(params_bytes)}, {NULL, 0}};
#undef KOFF

/* The body of the gpu.module the item's code came from: its lowered copy's, else its own. */
static MlirBlock kernel_body(const mlir_plan_gpu_item *it) {
  MlirOperation gm = it->gm;
  if (!mlirOperationIsNull(it->lowered)) {
    MlirBlock top = mlirRegionGetFirstBlock(mlirOperationGetRegion(it->lowered, 0));
    for (MlirOperation op = mlirBlockGetFirstOperation(top); !mlirOperationIsNull(op);
         op = mlirOperationGetNextInBlock(op))
      if (mlir_plan_op_is(op, "gpu.module")) gm = op;
  }
  return mlirRegionGetFirstBlock(mlirOperationGetRegion(gm, 0));
}

/* The type of llvm.func @name in body, printed into text; 0 when there is none. */
static int kernel_type(MlirBlock body, const char *name, strbuf *text) {
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (!mlir_plan_op_is(op, "llvm.func")) continue;
    MlirAttribute sym = mlirOperationGetAttributeByName(op, mlir_init_cref("sym_name"));
    MlirAttribute type = mlirOperationGetAttributeByName(op, mlir_init_cref("function_type"));
    if (mlirAttributeIsNull(sym) || mlirAttributeIsNull(type) || !mlirAttributeIsAString(sym) ||
        !mlirAttributeIsAType(type))
      continue;
    mlir_init_span s = mlir_init_sref(mlirStringAttrGetValue(sym));
    if (s.n != strlen(name) || memcmp(s.s, name, s.n)) continue;
    mlirTypePrint(mlirTypeAttrGetValue(type), mlir_init_append_ref, text);
    return 1;
  }
  return 0;
}

/* The figures of 1.4 under gpublob_kernel_info's names (its tool's report and the
** occupancy), for either reader; -1 is left out. */
static const mlir_kernel_key report_keys[] = {
    {"spill_store_bytes", offsetof(gpublob_kernel_info, spill_store_bytes)},
    {"spill_load_bytes", offsetof(gpublob_kernel_info, spill_load_bytes)},
    {"barriers", offsetof(gpublob_kernel_info, barriers)},
    {"blocks_per_sm", offsetof(gpublob_kernel_info, blocks_per_sm)},
    {"waves_per_simd", offsetof(gpublob_kernel_info, waves_per_simd)},
    {"occupancy_block_size", offsetof(gpublob_kernel_info, occupancy_block_size)},
    {NULL, 0}};

/* The item's kernels: its blob's (a bin blob's or a pack's), with its jobs' tool
** reports and their occupancy for the options' block size; the reader's error in
** scratch. */
static int item_kernels(mlir_plan_call_state *m, const mlir_plan_gpu_item *it, gpublob *scratch, ktable *kt) {
  const plan_output *op = &m->p.outputs[it->output];
  strbuf chips = {0}, report = {0};
  for (size_t k = op->first; k < op->first + op->count; k++) {
    sb_addf(&chips, "%s%s", k > op->first ? "," : "", m->p.jobs[k]->chip);
    sb_addn(&report, sb_str(&m->p.jobs[k]->report), m->p.jobs[k]->report.len);
  }
  gpublob_output o = {it->blob, it->t->name, sb_str(&chips), ""};
  int rc = chips.oom || report.oom ? handle_set_error(scratch, GPUBLOB_NOMEM, "out of memory")
                                   : meta_output_kernels(scratch, &o, sb_str(&report), m->o.block_size, kt);
  sb_free(&chips);
  sb_free(&report);
  return rc;
}

/* Every kernel of every gpu.module against the options' limits, before any
** gpu.module is changed: LIMIT names the first kernel over, with its gpu.module. */
GPUBLOB_PRIVATE int mlir_kernels_limits_check(mlir_plan_call_state *m) {
  if (!m->o.limits) return GPUBLOB_OK;
  limits_found f = {{0}, 0, 0};
  strbuf where = {0};
  int rc = GPUBLOB_OK;
  for (size_t i = 0; !rc && i < m->nitems; i++) {
    const mlir_plan_gpu_item *it = &m->items[i];
    if (it->own) continue; /* MLIR's own serialiser: no reader of its blob */
    gpublob scratch = {0};
    ktable kt = {0};
    sb_reset(&where);
    sb_addf(&where, "%s, %s", sb_str(&it->name), it->t->name);
    if (!item_kernels(m, it, &scratch, &kt)) limits_kernels_check(&m->o, &kt, sb_str(&where), &f);
    else if (scratch.code != GPUBLOB_FORMAT) rc = handle_set_error(m->g, scratch.code, "%s", sb_str(&scratch.msg));
    kt_free(&kt);
    sb_free(&scratch.msg);
    sb_free(&scratch.warn);
  }
  sb_free(&where);
  if (rc) sb_free(&f.first);
  return rc ? rc : limits_error(m->g, &f);
}

/* s with a tab, a newline or another control character as '?' (a field of a line). */
static void summary_text(strbuf *b, const char *s) {
  for (; *s; s++) sb_addn(b, (unsigned char)*s < ' ' ? "?" : s, 1);
}

/* k's line, for the kernels of WHERE, a gpu.module compiled for target t. */
static void summary_add(strbuf *b, const target_desc *t, const char *where, gpublob_kernel_info *k) {
  sb_addf(b, "%s\t", t->name);
  summary_text(b, k->chip);
  sb_add(b, "\t");
  summary_text(b, where);
  sb_add(b, "\t");
  summary_text(b, k->name);
  for (size_t i = 0; i < SUMMARY_NFIELDS; i++) sb_addf(b, "\t%lld", *limits_summary_field(k, i));
  sb_add(b, "\n");
}

/* Every kernel of every gpu.module summed up, a line each (src/limits.c), for the
** module output's note and cache entry: a hit checks the limits against it. */
GPUBLOB_PRIVATE int mlir_kernels_summary(mlir_plan_call_state *m, strbuf *summary) {
  for (size_t i = 0; i < m->nitems; i++) {
    const mlir_plan_gpu_item *it = &m->items[i];
    if (it->own) continue;
    gpublob scratch = {0};
    ktable kt = {0};
    if (!item_kernels(m, it, &scratch, &kt))
      for (size_t k = 0; k < kt.n; k++) summary_add(summary, it->t, sb_str(&it->name), &kt.k[k]);
    kt_free(&kt);
    sb_free(&scratch.msg);
    sb_free(&scratch.warn);
  }
  return summary->oom ? handle_set_error(m->g, GPUBLOB_NOMEM, "out of memory") : GPUBLOB_OK;
}

/* One #gpu.kernel_metadata<"name", type, metadata = {...}>. */
static void kernel_entry(strbuf *text, const gpublob_kernel_info *k, const mlir_kernel_key *keys,
                         const char *reqd_key, const strbuf *type) {
  sb_add(text, "#gpu.kernel_metadata<\"");
  for (const char *c = k->name; *c; c++) {
    if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20) sb_addf(text, "\\%02X", (unsigned char)*c);
    else sb_addn(text, c, 1);
  }
  sb_addf(text, "\", %s, metadata = {", sb_str(type));
  const char *sep = "";
  for (const mlir_kernel_key *key = keys; key->key; key++) {
    long long v = *(const long long *)((const char *)k + key->off);
    if (v < 0) continue;
    sb_addf(text, "%s%s = %lld : i64", sep, key->key, v);
    sep = ", ";
  }
  if (k->reqd_threads[0])
    sb_addf(text, "%s%s = array<i32: %lld, %lld, %lld>", sep, reqd_key, k->reqd_threads[0], k->reqd_threads[1],
            k->reqd_threads[2]), sep = ", ";
  for (const mlir_kernel_key *key = report_keys; key->key; key++) {
    long long v = *(const long long *)((const char *)k + key->off);
    if (v < 0) continue;
    sb_addf(text, "%s%s = %lld : i64", sep, key->key, v);
    sep = ", ";
  }
  if (k->occupancy >= 0)
    sb_addf(text, "%soccupancy = %.17e : f64, occupancy_limiter = \"%s\"", sep, k->occupancy, k->occupancy_limiter);
  sb_add(text, "}>");
}

/* The item's #gpu.mlir_kernels_kernel_table, or a null attribute (see above). */
GPUBLOB_PRIVATE MlirAttribute mlir_kernels_kernel_table(mlir_plan_call_state *m, const mlir_plan_gpu_item *it, int format) {
  MlirAttribute none = {NULL};
  const target_desc *t = it->t;
  if (format != GPUBLOB_FORMAT_BIN || t->metadata == METADATA_none) return none;
  gpublob scratch = {0}; /* the reader's errors, not the call's */
  ktable kt = {0};
  strbuf text = {0}, type = {0};
  int rc = item_kernels(m, it, &scratch, &kt);
  MlirBlock body = kernel_body(it);
  sb_add(&text, "#gpu.kernel_table<[");
  size_t n = 0;
  for (size_t i = 0; !rc && i < kt.n; i++) {
    sb_reset(&type);
    if (!kernel_type(body, kt.k[i].name, &type)) continue;
    if (n++) sb_add(&text, ", ");
    kernel_entry(&text, &kt.k[i], t->metadata == METADATA_amdgpu_note ? amd_keys : nv_keys,
                 t->metadata == METADATA_amdgpu_note ? "reqd_workgroup_size" : "reqntid", &type);
  }
  sb_add(&text, "]>");
  MlirAttribute table = !rc && !text.oom && !type.oom ? mlirAttributeParseGet(m->ctx, mlirStringRefCreate(text.s, text.len)) : none;
  if (text.oom || type.oom) m->oom = 1;
  kt_free(&kt);
  sb_free(&text);
  sb_free(&type);
  sb_free(&scratch.msg);
  sb_free(&scratch.warn);
  return table;
}
