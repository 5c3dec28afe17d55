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
  if (oom) return handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  if (ok) return GPUBLOB_OK;
  strbuf got = {0};
  for (size_t i = 0; i < n && i < b->size; i++) sb_addf(&got, "%02x", b->data[i]);
  handle_set_error(j->g, code, "%s for %s:%s gave %zu bytes that do not start as a %s does (%s; they start "
            "with %s)", maker, j->t->name, chips, b->size, kind, magic, got.len ? sb_str(&got) : "nothing");
  sb_free(&got);
  return code;
}

static int check_magic(job *j, const gpublob_blob *b, const char *magic, const char *maker, int code) {
  strbuf kind = {0};
  sb_addf(&kind, "%s blob", tool_blob_suffix(j));
  int rc = kind.oom ? handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory")
                    : check_magic_of(j, b, magic, maker, code, j->chip, sb_str(&kind));
  sb_free(&kind);
  return rc;
}

static uint64_t sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

/* The bytes a pack's own header accounts for, by the layout the spec's pack_metadata
** names (src/meta_pack.c): a fatbin's header size + the size of its entries; an
** offload bundle's entry table's end and each entry's offset + size.  fatbinary,
** clang-offload-bundler and the in-process bundle write exactly that many bytes.  0:
** a layout not read (none, a compressed bundle): nothing to check; UINT64_MAX: the
** header lies past the pack's end. */
static uint64_t pack_extent(const target_desc *t, const unsigned char *p, size_t n) {
  if (t->pack_metadata == PACK_METADATA_fatbin)
    return n < 16 ? UINT64_MAX : sat_add(elf_le_n(p + 6, 2), elf_le_n(p + 8, 8));
  if (t->pack_metadata != PACK_METADATA_offload_bundle || n < BUNDLE_MAGIC_LEN + 8 ||
      memcmp(p, META_PACK_BUNDLE_MAGIC, BUNDLE_MAGIC_LEN))
    return 0;
  uint64_t count = elf_le_n(p + BUNDLE_MAGIC_LEN, 8), at = BUNDLE_MAGIC_LEN + 8, end = at;
  if (count > PACK_MAX_MEMBERS) return UINT64_MAX;
  for (uint64_t i = 0; i < count; i++) {
    if (!elf_in_blob(n, at, 24)) return UINT64_MAX;
    uint64_t to = sat_add(elf_le_n(p + at, 8), elf_le_n(p + at + 8, 8));
    at = sat_add(at + 24, elf_le_n(p + at + 16, 8));
    if (to > end) end = to;
    if (at > end) end = at;
    if (at > n) return UINT64_MAX;
  }
  return end;
}

/* A pack's: the error names its members, each chip, and the pack's suffix; and its
** size is what its header accounts for (pack_extent). */
GPUBLOB_PRIVATE int magic_check_pack(job *const *members, size_t n, const gpublob_blob *b, const char *maker) {
  job *first = members[0];
  strbuf chips = {0}, kind = {0};
  for (size_t i = 0; i < n; i++) sb_addf(&chips, "%s%s", i ? "," : "", members[i]->chip);
  sb_addf(&kind, "%s pack of %zu member%s", first->t->suffix_pack, n, n == 1 ? "" : "s");
  int rc = chips.oom || kind.oom ? handle_set_error(first->g, GPUBLOB_NOMEM, "out of memory")
           : check_magic_of(first, b, first->t->pack_magic, maker, GPUBLOB_TOOL, sb_str(&chips), sb_str(&kind));
  uint64_t end = rc ? 0 : pack_extent(first->t, b->data, b->size);
  if (end && end != b->size) {
    if (end < b->size)
      rc = handle_set_error(first->g, GPUBLOB_TOOL, "%s for %s:%s gave a %s of %zu bytes, but its header accounts for "
                     "%llu: %llu bytes are appended that it does not name", maker, first->t->name, sb_str(&chips),
                     sb_str(&kind), b->size, (unsigned long long)end, (unsigned long long)(b->size - end));
    else
      rc = handle_set_error(first->g, GPUBLOB_TOOL, "%s for %s:%s gave a %s of %zu bytes, but its header names bytes "
                     "up to %s%llu: it is cut short", maker, first->t->name, sb_str(&chips), sb_str(&kind),
                     b->size, end == UINT64_MAX ? "beyond " : "",
                     (unsigned long long)(end == UINT64_MAX ? b->size : end));
  }
  sb_free(&chips);
  sb_free(&kind);
  return rc;
}

/* ---- a bin blob that reads back: its structure, machine and chip ---- */
/* The ELF64 e_flags of an object or blob; -1 when it is not one. */
static long long elf_flags(const gpublob_blob *b) {
  if (b->size < 64 || memcmp(b->data, "\177ELF", 4) || b->data[4] != 2) return -1;
  return (long long)elf_le_n(b->data + 0x30, 4);
}

/* The backend's object, before the blob tool links it: its e_flags, for the spec's
** bin_chip = object (the tool keeps them). */
GPUBLOB_PRIVATE void magic_note_object_flags(job *j) {
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
    return handle_set_error(j->g, code, "%s for %s:%s gave a blob whose ELF flags 0x%llx are not the backend "
                     "object's 0x%llx: it is not the blob for %s", maker, j->t->name, j->chip, flags,
                     j->object_flags, j->chip);
  }
  if (sscanf(how, "flags:%u:%u", &shift, &mask) != 2) return GPUBLOB_OK;
  unsigned long want = strtoul(template_chip_id(j), NULL, 10), got = (unsigned long)(flags >> shift) & mask;
  if (got == want) return GPUBLOB_OK;
  return handle_set_error(j->g, code, "%s for %s:%s gave a blob for another chip: its ELF flags 0x%llx name %lu, "
                   "not %lu", maker, j->t->name, j->chip, flags, got, want);
}

/* ---- an ELF file's extent: where its headers say its bytes end ---- */

/* The bytes an ELF64 file's headers account for: the largest of its ELF header's
** end, its section header table's end, each section's offset + size (but NOBITS,
** which holds no bytes), its program header table's end and each segment's
** offset + filesz.  ptxas, nvJitLink, ld.lld and lld in-process all write files of
** exactly that size (every blob of the tests and tools/outputs_digest.sh's set): a
** larger file has bytes appended that no header names.  e is elf_open's view. */
static uint64_t elf_extent(const elf_view *e) {
  const unsigned char *p = e->p;
  uint64_t end = elf_le_n(p + 0x34, 2), table = sat_add(e->shoff, (uint64_t)e->shnum * ELF_SHDR);
  if (e->shnum && table > end) end = table;
  for (size_t i = 0; i < e->shnum; i++) {
    elf_section s = elf_sec(e, i);
    uint64_t to = s.type == SHT_NOBITS_ ? 0 : sat_add(s.offset, s.size);
    if (to > end) end = to;
  }
  uint64_t phoff = elf_le_n(p + 0x20, 8), phent = elf_le_n(p + 0x36, 2), phnum = elf_le_n(p + 0x38, 2);
  if (phnum) {
    uint64_t to = sat_add(phoff, phnum * phent);
    if (to > end) end = to;
  }
  for (uint64_t i = 0; phnum && i < phnum; i++) {
    uint64_t at = phoff + i * phent;
    if (phent < 56 || !elf_in_blob(e->n, at, 56)) return UINT64_MAX; /* a table outside the file */
    uint64_t to = sat_add(elf_le_n(p + at + 8, 8), elf_le_n(p + at + 32, 8));
    if (to > end) end = to;
  }
  return end;
}

/* An ELF blob's size is what its headers account for (elf_extent): else code,
** naming the bytes appended (or the headers that reach past its end). */
static int check_extent(job *j, const char *maker, int code) {
  elf_view e;
  if (j->out.size < 4 || memcmp(j->out.data, "\177ELF", 4)) return GPUBLOB_OK; /* not ELF: no headers to sum */
  if (elf_open(j->g, &e, j->out.data, j->out.size, j->t->suffix_bin)) return GPUBLOB_OK; /* meta_blob_read_kernels' */
  uint64_t end = elf_extent(&e);
  if (end == j->out.size) return GPUBLOB_OK;
  if (end < j->out.size)
    return handle_set_error(j->g, code, "%s for %s:%s gave %zu bytes, but its ELF headers account for %llu: %llu bytes "
                     "are appended that no header names", maker, j->t->name, j->chip, j->out.size,
                     (unsigned long long)end, (unsigned long long)(j->out.size - end));
  return handle_set_error(j->g, code, "%s for %s:%s gave %zu bytes, but its ELF headers name bytes up to %s%llu: it is "
                   "cut short", maker, j->t->name, j->chip, j->out.size, end == UINT64_MAX ? "beyond " : "",
                   (unsigned long long)(end == UINT64_MAX ? j->out.size : end));
}

/* name (n bytes) for a message: at most 80 bytes, a control character as '?'. */
static void kernel_name_text(strbuf *b, const char *name, size_t n) {
  for (size_t i = 0; i < n && i < 80; i++) sb_addn(b, (unsigned char)name[i] < ' ' ? "?" : name + i, 1);
  if (n > 80) sb_add(b, "...");
}

/* The next kernel of the job's list at *at (module_check_note_kernels' layout), and whether it is
** public; 0 at its end. */
static int next_kernel(const job *j, size_t *at, const char **name, size_t *n, int *pub) {
  const unsigned char *p = (const unsigned char *)j->kernels.s;
  if (*at + 5 > j->kernels.len) return 0;
  *pub = p[*at];
  *n = (size_t)elf_le_n(p + *at + 1, 4);
  *name = (const char *)p + *at + 5;
  *at += 5 + *n;
  return *at <= j->kernels.len;
}

/* Whether the blob's table kt holds the kernel name (n bytes). */
static int kt_has(const ktable *kt, const char *name, size_t n) {
  for (size_t i = 0; i < kt->n; i++)
    if (strlen(kt->k[i].name) == n && !memcmp(kt->k[i].name, name, n)) return 1;
  return 0;
}

/* Whether the module defines the kernel name (n bytes). */
static int module_has(const job *j, const char *name, size_t n) {
  size_t at = 0, len;
  const char *k;
  int pub;
  while (next_kernel(j, &at, &k, &len, &pub))
    if (len == n && !memcmp(k, name, n)) return 1;
  return 0;
}

/* The blob holds the module's kernels (module_check_note_kernels), each public one and no other
** kernel, as the blob's reader finds them (kt): else code, naming the first kernel missing or
** foreign and how many kernels each has.  A tool that wrote a valid blob of another
** module for the chip fails here. */
static int check_kernels(job *j, const ktable *kt, const char *maker, int code) {
  if (!j->kernels_known) return GPUBLOB_OK;
  size_t at = 0, n, mine = 0;
  const char *name;
  const char *missing = NULL, *foreign = NULL;
  size_t missing_n = 0, foreign_n = 0;
  int pub;
  while (next_kernel(j, &at, &name, &n, &pub)) {
    mine++;
    if (!missing && pub && !kt_has(kt, name, n)) missing = name, missing_n = n;
  }
  for (size_t i = 0; i < kt->n && !foreign; i++)
    if (!module_has(j, kt->k[i].name, strlen(kt->k[i].name))) foreign = kt->k[i].name, foreign_n = strlen(foreign);
  if (!missing && !foreign) return GPUBLOB_OK;
  strbuf nm = {0};
  kernel_name_text(&nm, missing ? missing : foreign, missing ? missing_n : foreign_n);
  handle_set_error(j->g, code, "%s for %s:%s gave a blob %s kernel '%s', which the module %s (the module defines %zu "
            "kernel%s, the blob holds %zu): it is not the blob of %s", maker, j->t->name, j->chip,
            missing ? "without" : "with", sb_str(&nm), missing ? "defines" : "does not define", mine,
            mine == 1 ? "" : "s", kt->n, j->name);
  sb_free(&nm);
  return code;
}

/* The blob reads back as the spec says it is: the metadata reader parses it (its ELF
** header, section table and kernel records), its machine is bin_machine, its flags
** name the job's chip, its size is what its ELF headers account for and it holds the
** module's kernels, each and no other; else code, so that nothing is written or
** cached. */
static int check_readable(job *j, const char *maker, int code) {
  const target_desc *t = j->t;
  if (strcmp(tool_blob_suffix(j), t->suffix_bin)) return GPUBLOB_OK; /* a tool's blob of another kind (ocloc's) */
  ktable kt = {0};
  if (t->metadata != METADATA_none) {
    int rc = meta_blob_read_kernels(j->g, t, j->out.data, j->out.size, j->chip, &kt);
    if (rc) kt_free(&kt);
    if (rc == GPUBLOB_NOMEM) return rc;
    if (rc) {
      strbuf why = {0};
      sb_add(&why, sb_str(&j->g->msg));
      handle_set_error(j->g, code, "%s for %s:%s gave %zu bytes that are no %s blob gpublob can read: %s", maker, t->name,
                j->chip, j->out.size, t->suffix_bin, sb_str(&why));
      sb_free(&why);
      return code;
    }
  }
  int rc = GPUBLOB_OK;
  if (t->bin_machine) {
    unsigned machine = j->out.size >= 64 ? (unsigned)elf_le_n(j->out.data + 0x12, 2) : 0;
    if (machine != (unsigned)t->bin_machine)
      rc = handle_set_error(j->g, code, "%s for %s:%s gave an ELF file for machine %u, not %d", maker, t->name, j->chip,
                     machine, t->bin_machine);
  }
  if (!rc && *t->bin_chip) rc = check_chip_flags(j, maker, code);
  if (!rc) rc = check_extent(j, maker, code);
  if (!rc && t->metadata != METADATA_none) rc = check_kernels(j, &kt, maker, code);
  kt_free(&kt);
  return rc;
}

/* A bin blob from the tool, the provider or (tool_kind none) LLVM itself. */
GPUBLOB_PRIVATE int magic_check_blob(job *j) {
  if (j->format != GPUBLOB_FORMAT_BIN) return GPUBLOB_OK;
  int tool = tool_choice_needs_blob_tool(j), code = tool ? GPUBLOB_TOOL : GPUBLOB_BACKEND;
  const char *maker = !tool ? "LLVM's backend" : *j->tool_name ? j->tool_name : "the blob tool";
  const char *magic = tool && *j->t->tool_magic ? j->t->tool_magic : j->t->bin_magic;
  int rc = check_magic(j, &j->out, magic, maker, code);
  return rc ? rc : check_readable(j, maker, code);
}
