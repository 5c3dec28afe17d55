/* src/magic.c: What a blob of its kind starts with (the spec's bin_magic, pack_magic): a tool
** that wrote something else failed. */

/* ---- what a blob of its kind starts with (the spec's bin_magic, pack_magic) ---- */
static void hex_bytes(const char *hex, strbuf *out) {
  for (; hex[0] && hex[1]; hex += 2) {
    char byte[3] = {hex[0], hex[1], 0};
    char c = (char)strtoul(byte, NULL, 16);
    sb_addn(out, &c, 1);
  }
}

/* 0 when b starts with the magic; else an error naming who made it, for what (chips:
** the job's chip, or a pack's members), and what it should have been (kind: the
** blob's suffix, or the pack's). */
static int check_magic_of(job *j, const gpublob_blob *b, const char *magic, const char *maker, int code,
                          const char *chips, const char *kind) {
  strbuf want = {0};
  hex_bytes(magic, &want);
  size_t n = want.len;
  int ok = !n || (b->size >= n && !memcmp(b->data, want.s, n));
  int oom = want.oom;
  sb_free(&want);
  if (oom) return set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  if (ok) return GPUBLOB_OK;
  strbuf got = {0};
  for (size_t i = 0; i < n && i < b->size; i++) sb_addf(&got, "%02x", b->data[i]);
  set_error(j->g, code, "%s for %s:%s gave %zu bytes that do not start as a %s does (%s; they start "
            "with %s)", maker, j->t->name, chips, b->size, kind, magic, got.len ? sb_str(&got) : "nothing");
  sb_free(&got);
  return code;
}

static int check_magic(job *j, const gpublob_blob *b, const char *magic, const char *maker, int code) {
  strbuf kind = {0};
  sb_addf(&kind, "%s blob", blob_suffix(j));
  int rc = kind.oom ? set_error(j->g, GPUBLOB_NOMEM, "out of memory")
                    : check_magic_of(j, b, magic, maker, code, j->chip, sb_str(&kind));
  sb_free(&kind);
  return rc;
}

/* A pack's: the error names its members, each chip, and the pack's suffix. */
static int check_pack_magic(job *const *members, size_t n, const gpublob_blob *b, const char *maker) {
  job *first = members[0];
  strbuf chips = {0}, kind = {0};
  for (size_t i = 0; i < n; i++) sb_addf(&chips, "%s%s", i ? "," : "", members[i]->chip);
  sb_addf(&kind, "%s pack of %zu member%s", first->t->suffix_pack, n, n == 1 ? "" : "s");
  int rc = chips.oom || kind.oom ? set_error(first->g, GPUBLOB_NOMEM, "out of memory")
           : check_magic_of(first, b, first->t->pack_magic, maker, GPUBLOB_TOOL, sb_str(&chips), sb_str(&kind));
  sb_free(&chips);
  sb_free(&kind);
  return rc;
}

/* ---- a bin blob that reads back: its structure, machine and chip ---- */
/* The ELF64 e_flags of an object or blob; -1 when it is not one. */
static long long elf_flags(const gpublob_blob *b) {
  if (b->size < 64 || memcmp(b->data, "\177ELF", 4) || b->data[4] != 2) return -1;
  return (long long)le_n(b->data + 0x30, 4);
}

/* The backend's object, before the blob tool links it: its e_flags, for the spec's
** bin_chip = object (the tool keeps them). */
static void note_object_flags(job *j) {
  j->object_flags = j->t->emit == EMIT_obj ? elf_flags(&j->out) : -1;
}

/* What the blob's e_flags must hold for the job's chip (the spec's bin_chip); OK, or
** code naming both. */
static int check_chip_flags(job *j, const char *maker, int code) {
  const char *how = j->t->bin_chip;
  long long flags = elf_flags(&j->out);
  unsigned shift, mask;
  if (!strcmp(how, "object")) {
    if (j->object_flags < 0 || flags == j->object_flags) return GPUBLOB_OK;
    return set_error(j->g, code, "%s for %s:%s gave a blob whose ELF flags 0x%llx are not the backend "
                     "object's 0x%llx: it is not the blob for %s", maker, j->t->name, j->chip, flags,
                     j->object_flags, j->chip);
  }
  if (sscanf(how, "flags:%u:%u", &shift, &mask) != 2) return GPUBLOB_OK;
  unsigned long want = strtoul(chip_id(j), NULL, 10), got = (unsigned long)(flags >> shift) & mask;
  if (got == want) return GPUBLOB_OK;
  return set_error(j->g, code, "%s for %s:%s gave a blob for another chip: its ELF flags 0x%llx name %lu, "
                   "not %lu", maker, j->t->name, j->chip, flags, got, want);
}

/* The blob reads back as the spec says it is: the metadata reader parses it (its ELF
** header, section table and kernel records), its machine is bin_machine and its
** flags name the job's chip; else code, so that nothing is written or cached. */
static int check_readable(job *j, const char *maker, int code) {
  const target_desc *t = j->t;
  if (strcmp(blob_suffix(j), t->suffix_bin)) return GPUBLOB_OK; /* a tool's blob of another kind (ocloc's) */
  if (t->metadata != METADATA_none) {
    ktable kt = {0};
    int rc = read_bin_kernels(j->g, t, j->out.data, j->out.size, j->chip, &kt);
    kt_free(&kt);
    if (rc == GPUBLOB_NOMEM) return rc;
    if (rc) {
      strbuf why = {0};
      sb_add(&why, sb_str(&j->g->msg));
      set_error(j->g, code, "%s for %s:%s gave %zu bytes that are no %s blob gpublob can read: %s", maker, t->name,
                j->chip, j->out.size, t->suffix_bin, sb_str(&why));
      sb_free(&why);
      return code;
    }
  }
  if (t->bin_machine) {
    unsigned machine = j->out.size >= 64 ? (unsigned)le_n(j->out.data + 0x12, 2) : 0;
    if (machine != (unsigned)t->bin_machine)
      return set_error(j->g, code, "%s for %s:%s gave an ELF file for machine %u, not %d", maker, t->name, j->chip,
                       machine, t->bin_machine);
  }
  return *t->bin_chip ? check_chip_flags(j, maker, code) : GPUBLOB_OK;
}

/* A bin blob from the tool, the provider or (tool_kind none) LLVM itself. */
static int check_blob(job *j) {
  if (j->format != GPUBLOB_FORMAT_BIN) return GPUBLOB_OK;
  int tool = needs_blob_tool(j), code = tool ? GPUBLOB_TOOL : GPUBLOB_BACKEND;
  const char *maker = !tool ? "LLVM's backend" : *j->tool_name ? j->tool_name : "the blob tool";
  const char *magic = tool && *j->t->tool_magic ? j->t->tool_magic : j->t->bin_magic;
  int rc = check_magic(j, &j->out, magic, maker, code);
  return rc ? rc : check_readable(j, maker, code);
}
