/* src/meta_blob.c: Kernel metadata of a bin blob: the target's 'metadata' reader
** (amdgpu_note, src/meta_amdgpu.c; nv_info, src/meta_nvinfo.c) reads it, each kernel
** with the chip it is for. */

/* ---- a bin blob, by its target's reader ---- */
/* A bin blob's kernels, by the target's reader, each with chip. */
GPUBLOB_PRIVATE int meta_blob_read_kernels(gpublob *g, const target_desc *t, const unsigned char *p, size_t n, const char *chip,
                            ktable *kt) {
  switch (t->metadata) {
  case METADATA_amdgpu_note: return meta_amdgpu_read_note(g, p, n, chip, kt);
  case METADATA_nv_info: return meta_nvinfo_read(g, p, n, chip, kt);
  case METADATA_none: break;
  }
  return handle_set_error(g, GPUBLOB_FORMAT, "a %s blob records no kernel metadata gpublob reads (spec: metadata = none)",
                   t->name);
}
