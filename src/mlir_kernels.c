/* src/mlir_kernels.c: MLIR: the kernel table of a #gpu.object.  Each object of a bin
** blob gets kernels = #gpu.kernel_table<[...]>: a #gpu.kernel_metadata per kernel
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
static MlirBlock kernel_body(const gpu_item *it) {
  MlirOperation gm = it->gm;
  if (!mlirOperationIsNull(it->lowered)) {
    MlirBlock top = mlirRegionGetFirstBlock(mlirOperationGetRegion(it->lowered, 0));
    for (MlirOperation op = mlirBlockGetFirstOperation(top); !mlirOperationIsNull(op);
         op = mlirOperationGetNextInBlock(op))
      if (op_is(op, "gpu.module")) gm = op;
  }
  return mlirRegionGetFirstBlock(mlirOperationGetRegion(gm, 0));
}

/* The type of llvm.func @name in body, printed into text; 0 when there is none. */
static int kernel_type(MlirBlock body, const char *name, strbuf *text) {
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (!op_is(op, "llvm.func")) continue;
    MlirAttribute sym = mlirOperationGetAttributeByName(op, cref("sym_name"));
    MlirAttribute type = mlirOperationGetAttributeByName(op, cref("function_type"));
    if (mlirAttributeIsNull(sym) || mlirAttributeIsNull(type) || !mlirAttributeIsAString(sym) ||
        !mlirAttributeIsAType(type))
      continue;
    span s = sref(mlirStringAttrGetValue(sym));
    if (s.n != strlen(name) || memcmp(s.s, name, s.n)) continue;
    mlirTypePrint(mlirTypeAttrGetValue(type), append_ref, text);
    return 1;
  }
  return 0;
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
            k->reqd_threads[2]);
  sb_add(text, "}>");
}

/* The item's #gpu.kernel_table, or a null attribute (see above). */
static MlirAttribute kernel_table(mlir_call_state *m, const gpu_item *it, int format) {
  MlirAttribute none = {NULL};
  const target_desc *t = it->t;
  if (format != GPUBLOB_FORMAT_BIN || t->metadata == METADATA_none) return none;
  gpublob scratch = {0}; /* the reader's errors, not the call's */
  ktable kt = {0};
  strbuf text = {0}, type = {0};
  int rc = read_bin_kernels(&scratch, t, it->blob.data ? it->blob.data : (const unsigned char *)"", it->blob.size,
                            item_job(m, it)->chip, &kt);
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
  return table;
}
