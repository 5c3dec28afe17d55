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

/* ---- a bin blob's chip and tool, as the blob names them ---- */
/* What follows the four parts of a triple (arch-vendor-os-env-ID) in a target id;
** the whole id when it has fewer. */
static const char *after_triple(const char *id) {
  const char *p = id;
  for (int dashes = 0; *p && dashes < 4; p++)
    if (*p == '-') dashes++;
  return *p ? p : id;
}

/* A bin blob's chip and the tool that made it, as the blob names them, into chip and
** tool (each NUL-ended in its size): the chip its reader finds (a code object's
** target id), else its ELF flags' number (the spec's bin_chip = flags:SHIFT:MASK),
** else the target's default chip; the tool its reader finds, else "".  A blob its
** reader refuses is its reader's code (TOOL). */
GPUBLOB_PRIVATE int meta_blob_identify(gpublob *g, const target_desc *t, const unsigned char *p, size_t n, char *chip,
                                       size_t chip_size, char *tool, size_t tool_size) {
  elf_view e;
  unsigned shift, mask;
  char id[256];
  *chip = *tool = 0;
  int elf = n >= 4 && !memcmp(p, "\177ELF", 4);
  if (elf && elf_open(g, &e, p, n, t->suffix_bin)) return g->code;
  switch (t->metadata) {
  case METADATA_amdgpu_note:
    if (meta_amdgpu_read_target(g, p, n, id, sizeof id)) return g->code;
    snprintf(chip, chip_size, "%s", after_triple(id));
    if (elf) meta_amdgpu_read_tool(&e, tool, tool_size);
    break;
  case METADATA_nv_info:
    if (elf) meta_nvinfo_read_tool(&e, tool, tool_size);
    break;
  case METADATA_none: break;
  }
  if (!*chip && elf && sscanf(t->bin_chip, "flags:%u:%u", &shift, &mask) == 2 && shift < 32)
    snprintf(chip, chip_size, "%s%u", t->chip_prefix, (unsigned)(elf_le_n(p + 0x30, 4) >> shift) & mask);
  if (!*chip) snprintf(chip, chip_size, "%s", t->chip);
  return GPUBLOB_OK;
}
