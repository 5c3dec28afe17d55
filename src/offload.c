/* src/offload.c: LLVM's OffloadBinary, written and read without LLVM (-f offload,
** docs/offload.md).  One call's bin blobs, across targets, become one file that
** LLVM's tools (llvm-offload-binary, clang-offload-packager, llvm-objdump
** --offloading, clang-linker-wrapper) read: version 1 of the format, which LLVM 22
** reads and writes, holds one entry behind each header, so the file is one binary
** per entry, each 8-byte aligned, one after another, as llvm-offload-binary writes
** several.  A binary, every integer little-endian:
**   header (32 bytes): magic 10 FF 10 AD, u32 version (1), u64 size (of this binary,
**     a multiple of 8), u64 entry offset, u64 entry size;
**   entry (40 bytes): u16 image kind, u16 offload kind, u32 flags, u64 string offset,
**     u64 number of strings, u64 image offset, u64 image size;
**   the strings: a (u64 key offset, u64 value offset) pair each, offsets from the
**     binary's start to NUL-ended strings; then the string table; then, 8-byte
**     aligned, the image.
** The image and offload kinds are the spec's (offload_image, offload_asm_image,
** offload_kind), so that a target needs no code here.  Each entry's strings:
** triple, arch (the chip: an AMD target id with its features), and gpublob's own,
** namespaced: gpublob.target (the spec target) and gpublob.version.
** The reader treats every file as hostile: every offset and size is checked against
** the binary it is in before a byte is read, a binary's parts may not overlap, and
** at most OFFLOAD_MAX_ENTRIES binaries are read. */

/* ---- the format's numbers ---- */
static const unsigned char offload_magic[4] = {0x10, 0xFF, 0x10, 0xAD};
enum {
  OFFLOAD_VERSION = 1,
  OFFLOAD_HEADER = 32,
  OFFLOAD_ENTRY = 40,
  OFFLOAD_STRING = 16,
  OFFLOAD_ALIGN = 8,
  OFFLOAD_MAX_ENTRIES = PACK_MAX_MEMBERS,
  OFFLOAD_MAX_STRINGS = 64
};

GPUBLOB_PRIVATE const char offload_suffix[] = ".offload";

/* LLVM's ImageKind of the spec's offload_image word (the words are in LLVM's order). */
static unsigned offload_image_number(enum offload_image_kind k) {
  static const unsigned number[] = {[OFFLOAD_IMAGE_none] = 0,  [OFFLOAD_IMAGE_object] = 1,
                                    [OFFLOAD_IMAGE_bitcode] = 2, [OFFLOAD_IMAGE_cubin] = 3,
                                    [OFFLOAD_IMAGE_fatbinary] = 4, [OFFLOAD_IMAGE_ptx] = 5,
                                    [OFFLOAD_IMAGE_spirv] = 6};
  return number[k];
}

static unsigned offload_asm_image_number(enum offload_asm_image_kind k) {
  return k == OFFLOAD_ASM_IMAGE_ptx ? 5 : 0;
}

/* LLVM's OffloadKind (a bit each) of the spec's offload_kind word. */
static unsigned offload_kind_number(enum offload_producer k) {
  static const unsigned number[] = {[OFFLOAD_KIND_none] = 0, [OFFLOAD_KIND_openmp] = 1, [OFFLOAD_KIND_cuda] = 2,
                                    [OFFLOAD_KIND_hip] = 4, [OFFLOAD_KIND_sycl] = 8};
  return number[k];
}

static uint64_t align_up(uint64_t n) { return (n + OFFLOAD_ALIGN - 1) & ~(uint64_t)(OFFLOAD_ALIGN - 1); }

static unsigned char *put_le(unsigned char *p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; i++) p[i] = (unsigned char)(v >> 8 * i);
  return p + bytes;
}

/* ---- writing: one binary per entry ---- */
enum { ENTRY_KEYS = 4 };
typedef struct offload_entry {
  const target_desc *t;
  const char *chip;
  const gpublob_blob *image;
  unsigned image_kind;
  const char *key[ENTRY_KEYS], *value[ENTRY_KEYS];
  uint64_t table, image_at, size; /* the string table's size, the image's offset, the binary's size */
} offload_entry;

/* The entry's strings, and where its parts go. */
static void entry_layout(offload_entry *e) {
  const char *key[ENTRY_KEYS] = {"triple", "arch", "gpublob.target", "gpublob.version"};
  const char *value[ENTRY_KEYS] = {e->t->triple, e->chip, e->t->name, GPUBLOB_VERSION_STRING};
  e->table = 1;
  for (int i = 0; i < ENTRY_KEYS; i++) {
    e->key[i] = key[i];
    e->value[i] = value[i];
    e->table += strlen(key[i]) + 1 + strlen(value[i]) + 1;
  }
  e->image_at = align_up(OFFLOAD_HEADER + OFFLOAD_ENTRY + OFFLOAD_STRING * ENTRY_KEYS + e->table);
  e->size = align_up(e->image_at + e->image->size);
}

/* One binary at p (zeroed, e->size bytes). */
static void entry_write(const offload_entry *e, unsigned char *p) {
  memcpy(p, offload_magic, 4);
  unsigned char *w = put_le(p + 4, OFFLOAD_VERSION, 4);
  w = put_le(put_le(put_le(w, e->size, 8), OFFLOAD_HEADER, 8), OFFLOAD_ENTRY, 8);
  uint64_t strings = OFFLOAD_HEADER + OFFLOAD_ENTRY, table = strings + OFFLOAD_STRING * ENTRY_KEYS;
  w = put_le(put_le(w, e->image_kind, 2), offload_kind_number(e->t->offload_kind), 2);
  w = put_le(put_le(put_le(w, 0, 4), strings, 8), ENTRY_KEYS, 8);
  put_le(put_le(w, e->image_at, 8), e->image->size, 8);
  uint64_t at = table + 1; /* the table opens with an empty string */
  for (int i = 0; i < ENTRY_KEYS; i++) {
    size_t kn = strlen(e->key[i]) + 1, vn = strlen(e->value[i]) + 1;
    put_le(put_le(p + strings + OFFLOAD_STRING * (uint64_t)i, at, 8), at + kn, 8);
    memcpy(p + at, e->key[i], kn);
    memcpy(p + at + kn, e->value[i], vn);
    at += kn + vn;
  }
  if (e->image->size) memcpy(p + e->image_at, e->image->data, e->image->size);
}

/* Output o's entry (its bin blob), or its assembly's (asm_kind): FORMAT for a
** target without an image kind, or a blob that is not its bin (a tool's own kind). */
static int entry_of(gpublob *g, const gpublob_output *o, int assembly, offload_entry *e) {
  const target_desc *t = resolve_target_named(o->target, strlen(o->target));
  memset(e, 0, sizeof *e);
  if (!t || t->offload_image == OFFLOAD_IMAGE_none)
    return handle_set_error(g, GPUBLOB_FORMAT, "-f offload: the %s target has no image kind in LLVM's "
                            "OffloadBinary (spec: offload_image)", t ? t->name : o->target);
  const char *want = assembly ? t->suffix_asm : t->suffix_bin;
  if (!o->blob.suffix || strcmp(o->blob.suffix, want))
    return handle_set_error(g, GPUBLOB_FORMAT, "-f offload: the %s blob for %s is %s, not the target's %s",
                            t->name, o->chip, o->blob.suffix ? o->blob.suffix : "(none)", want);
  *e = (offload_entry){.t = t, .chip = o->chip, .image = &o->blob};
  e->image_kind = assembly ? offload_asm_image_number(t->offload_asm_image) : offload_image_number(t->offload_image);
  entry_layout(e);
  return GPUBLOB_OK;
}

/* The container's target and chip strings (each distinct target, each chip, joined by
** commas) and its tool's report: the members' reports together. */
static void container_labels(const gpublob_result *r, strbuf *targets, strbuf *chips, strbuf *report,
                             unsigned *block_size) {
  for (size_t i = 0; i < r->count; i++) {
    const gpublob_output *o = &r->outputs[i];
    int seen = 0;
    for (size_t k = 0; k < i && !seen; k++) seen = !strcmp(r->outputs[k].target, o->target);
    if (!seen) sb_addf(targets, "%s%s", targets->len ? "," : "", o->target);
    sb_addf(chips, "%s%s", i ? "," : "", o->chip);
    strbuf one = {0};
    if (output_report_note_get(o, &one, block_size)) report->oom = 1;
    if (one.len) sb_addf(report, "%s%s", sb_str(&one), one.s[one.len - 1] == '\n' ? "" : "\n");
    sb_free(&one);
  }
}

/* The entries of r's outputs (and, with asm_r, each chip's assembly after its blob
** where the spec names its image kind) in *entries, *n of them. */
static int entries_of(gpublob *g, const gpublob_result *r, const gpublob_result *asm_r, offload_entry **entries,
                      size_t *n) {
  *n = 0;
  if (r->count > OFFLOAD_MAX_ENTRIES / 2)
    return handle_set_error(g, GPUBLOB_OPTION, "-f offload: %zu outputs, more than %d", r->count, OFFLOAD_MAX_ENTRIES / 2);
  if (asm_r && asm_r->count != r->count)
    return handle_set_error(g, GPUBLOB_FORMAT, "-f offload: %zu assembly outputs for %zu blobs", asm_r->count, r->count);
  *entries = calloc(2 * r->count + 1, sizeof **entries);
  if (!*entries) return handle_set_error(g, GPUBLOB_NOMEM, "out of memory");
  for (size_t i = 0; i < r->count; i++) {
    if (entry_of(g, &r->outputs[i], 0, &(*entries)[(*n)++])) return g->code;
    const target_desc *t = (*entries)[*n - 1].t;
    if (asm_r && t->offload_asm_image != OFFLOAD_ASM_IMAGE_none && entry_of(g, &asm_r->outputs[i], 1, &(*entries)[(*n)++]))
      return g->code;
  }
  return GPUBLOB_OK;
}

/* The container's bytes (NUL-ended, as every blob is) in *out. */
static int container_write(gpublob *g, const offload_entry *e, size_t n, gpublob_blob *out) {
  uint64_t total = 0;
  for (size_t i = 0; i < n; i++) {
    if (e[i].size > SIZE_MAX - 1 - total) return handle_set_error(g, GPUBLOB_NOMEM, "out of memory: the container would not fit");
    total += e[i].size;
  }
  unsigned char *data = calloc((size_t)total + 1, 1);
  if (!data) return handle_set_error(g, GPUBLOB_NOMEM, "out of memory");
  for (uint64_t i = 0, at = 0; i < n; at += e[i].size, i++) entry_write(&e[i], data + at);
  *out = (gpublob_blob){data, (size_t)total, offload_suffix};
  return GPUBLOB_OK;
}

/* r's outputs (bin blobs, in the call's order) become one output, the container; with
** asm_r (the same call's -f asm outputs, in the same order), each chip's assembly
** goes in too, where its target names an image kind for it. */
GPUBLOB_PRIVATE int offload_wrap(gpublob *g, gpublob_result *r, const gpublob_result *asm_r) {
  offload_entry *entries = NULL;
  size_t n = 0;
  gpublob_blob blob = {0};
  gpublob_result one = {0};
  strbuf targets = {0}, chips = {0}, report = {0};
  unsigned block_size = 0;
  int rc = entries_of(g, r, asm_r, &entries, &n);
  if (!rc) rc = container_write(g, entries, n, &blob);
  if (!rc) container_labels(r, &targets, &chips, &report, &block_size);
  if (!rc && (targets.oom || chips.oom || report.oom ||
              cache_lookup_result_add(&one, sb_str(&targets), sb_str(&chips), "offload", sb_str(&report), block_size, &blob)))
    rc = handle_set_error(g, GPUBLOB_NOMEM, "out of memory");
  util_blob_release(&blob);
  free(entries);
  sb_free(&targets);
  sb_free(&chips);
  sb_free(&report);
  gpublob_result_free(r);
  if (rc) gpublob_result_free(&one);
  *r = one;
  return rc;
}

/* The options a -f offload call compiles with: its own, with format bin (so that its
** cache entries are bin's); FORMAT for MLIR input, whose #gpu.object goes to the
** GPU runtime (mgpuModuleLoad: cuModuleLoadData, hipModuleLoadData), which reads
** no OffloadBinary (docs/mlir.md). */
GPUBLOB_PRIVATE int offload_options(gpublob *g, const gpublob_options *o, int kind, const char *name,
                                    gpublob_options *bin) {
  *bin = *o;
  bin->format = GPUBLOB_FORMAT_BIN;
  bin->flags &= ~(unsigned)GPUBLOB_FLAG_OFFLOAD_ASM;
  if (kind == GPUBLOB_INPUT_MLIR)
    return handle_set_error(g, GPUBLOB_FORMAT, "%s: -f offload is for LLVM IR input: an MLIR module's #gpu.object "
                            "holds a blob the GPU runtime loads (cuModuleLoadData, hipModuleLoadData), which reads "
                            "no OffloadBinary; use -f bin (docs/mlir.md)", name);
  return GPUBLOB_OK;
}

/* ---- reading: each binary, bounded ---- */
typedef struct offload_view {
  unsigned image_kind;
  const unsigned char *image;
  uint64_t image_size, size;
  const char *triple, *arch, *target; /* "" where the binary has none */
} offload_view;

static int bad(gpublob *g, uint64_t at, const char *what) {
  return handle_set_error(g, GPUBLOB_TOOL, "offload binary at byte %llu: %s", (unsigned long long)at, what);
}

/* The string at off of the binary p (size bytes): NUL-ended within it, else NULL. */
static const char *string_at(const unsigned char *p, uint64_t size, uint64_t off) {
  if (off >= size) return NULL;
  return memchr(p + off, 0, (size_t)(size - off)) ? (const char *)p + off : NULL;
}

/* The strings of the binary p: triple, arch and gpublob.target into v. */
static int view_strings(gpublob *g, uint64_t at, const unsigned char *p, uint64_t size, uint64_t off, uint64_t count,
                        offload_view *v) {
  v->triple = v->arch = v->target = "";
  for (uint64_t i = 0; i < count; i++) {
    const char *key = string_at(p, size, elf_le_n(p + off + OFFLOAD_STRING * i, 8));
    const char *value = string_at(p, size, elf_le_n(p + off + OFFLOAD_STRING * i + 8, 8));
    if (!key || !value) return bad(g, at, "a string lies outside its binary");
    if (!strcmp(key, "triple")) v->triple = value;
    else if (!strcmp(key, "arch")) v->arch = value;
    else if (!strcmp(key, "gpublob.target")) v->target = value;
  }
  return GPUBLOB_OK;
}

/* The binary at p[at..n): its header, entry, strings and image, each checked. */
static int view_at(gpublob *g, const unsigned char *base, size_t n, uint64_t at, offload_view *v) {
  const unsigned char *p = base + at;
  uint64_t left = n - at;
  if (left < OFFLOAD_HEADER + OFFLOAD_ENTRY) return bad(g, at, "its header is cut short");
  if (memcmp(p, offload_magic, 4)) return bad(g, at, "no magic 10 FF 10 AD");
  uint64_t version = elf_le_n(p + 4, 4), size = elf_le_n(p + 8, 8), eoff = elf_le_n(p + 16, 8), esize = elf_le_n(p + 24, 8);
  if (version != OFFLOAD_VERSION) return bad(g, at, version > OFFLOAD_VERSION ? "a later version than 1, which gpublob does not read" : "version 0");
  if (size < OFFLOAD_HEADER + OFFLOAD_ENTRY || size > left) return bad(g, at, "its size lies (past the file, or short of a header and an entry)");
  if (esize < OFFLOAD_ENTRY || !elf_in_blob((size_t)size, eoff, OFFLOAD_ENTRY) || eoff < OFFLOAD_HEADER)
    return bad(g, at, "its entry lies outside it");
  const unsigned char *e = p + eoff;
  uint64_t soff = elf_le_n(e + 8, 8), count = elf_le_n(e + 16, 8), ioff = elf_le_n(e + 24, 8), isize = elf_le_n(e + 32, 8);
  if (count > OFFLOAD_MAX_STRINGS) return bad(g, at, "more strings than gpublob reads (64)");
  if (!elf_in_blob((size_t)size, soff, count * OFFLOAD_STRING) || !elf_in_blob((size_t)size, ioff, isize))
    return bad(g, at, "its strings or its image lie outside it");
  if (elf_overlap(ioff, isize, 0, OFFLOAD_HEADER) || elf_overlap(ioff, isize, eoff, OFFLOAD_ENTRY) ||
      elf_overlap(ioff, isize, soff, count * OFFLOAD_STRING) ||
      elf_overlap(soff, count * OFFLOAD_STRING, eoff, OFFLOAD_ENTRY))
    return bad(g, at, "its image, entry and strings overlap");
  *v = (offload_view){.image_kind = (unsigned)elf_le_n(e, 2), .image = p + ioff, .image_size = isize, .size = size};
  return view_strings(g, at, p, size, soff, count, v);
}

/* The spec target whose image the binary holds, *assembly set where it is the target's
** assembly (offload_asm_image): gpublob.target's where it names one of that triple
** and kind, else the first of its triple whose image kind (or assembly's) is the
** entry's; NULL for none (another producer's kind, a triple no target has). */
static int holds_image(const target_desc *t, const offload_view *v, int *assembly) {
  if (strcmp(t->triple, v->triple)) return 0;
  if (t->offload_image != OFFLOAD_IMAGE_none && offload_image_number(t->offload_image) == v->image_kind)
    return *assembly = 0, 1;
  if (t->offload_asm_image != OFFLOAD_ASM_IMAGE_none && offload_asm_image_number(t->offload_asm_image) == v->image_kind)
    return *assembly = 1, 1;
  return 0;
}

static const target_desc *view_target(const offload_view *v, int *assembly) {
  const target_desc *named = *v->target ? resolve_target_named(v->target, strlen(v->target)) : NULL;
  if (named && holds_image(named, v, assembly)) return named;
  for (int i = 0; i < target_count(); i++)
    if (holds_image(target_at(i), v, assembly)) return target_at(i);
  return NULL;
}

/* LLVM's name of an image kind (its getImageKindName), as a suffix: "" for none. */
static const char *image_kind_suffix(unsigned kind) {
  static const char *const suffix[] = {"", ".o", ".bc", ".cubin", ".fatbin", ".s", ".spv"};
  return kind < sizeof suffix / sizeof *suffix ? suffix[kind] : "";
}

GPUBLOB_PRIVATE int offload_is(const unsigned char *p, size_t n) { return p && n >= 4 && !memcmp(p, offload_magic, 4); }

/* Each binary of the n bytes at p, checked, to visit in the file's order: at most
** OFFLOAD_MAX_ENTRIES; a binary that lies, or an arch past KT_MAX_NAME, is TOOL. */
GPUBLOB_PRIVATE int offload_each(gpublob *g, const unsigned char *p, size_t n, offload_visit visit, void *ctx) {
  uint64_t at = 0;
  for (size_t entries = 0; at < n; entries++) {
    offload_view v = {0};
    if (entries == OFFLOAD_MAX_ENTRIES) return bad(g, at, "more binaries than gpublob reads (4096)");
    if (view_at(g, p, n, at, &v)) return g->code;
    if (strlen(v.arch) > KT_MAX_NAME) return bad(g, at, "its arch is too long");
    offload_item e = {.image = v.image, .image_size = (size_t)v.image_size, .image_kind = v.image_kind,
                      .kind_suffix = image_kind_suffix(v.image_kind), .triple = v.triple, .arch = v.arch, .at = at};
    e.t = view_target(&v, &e.assembly);
    int rc = visit(g, ctx, &e);
    if (rc) return rc;
    at += v.size;
  }
  return GPUBLOB_OK;
}

/* The processor of a chip or target id: up to its first ':' (gfx90a:xnack+: gfx90a). */
static size_t processor_len(const char *chip) { return strcspn(chip, ":"); }

/* The entry's arch names its blob's own processor: the same, or, where the blob's ELF
** flags give only a number (the spec's bin_chip = flags:..., sm_90 for sm_90a), that
** with a suffix that is no digit.
** An entry without an arch, of no spec target or assembly, or of a target whose blobs
** name no chip (no bin_chip: SPIR-V's), is not checked; a mismatch is TOOL naming
** both (the arch is a label, the blob what runs). */
GPUBLOB_PRIVATE int offload_check_arch(gpublob *g, const offload_item *e) {
  char chip[KT_MAX_NAME + 1], tool[KT_MAX_NAME + 1];
  if (!e->t || e->assembly || !*e->arch || !*e->t->bin_chip) return GPUBLOB_OK;
  if (meta_blob_identify(g, e->t, e->image, e->image_size, chip, sizeof chip, tool, sizeof tool)) return g->code;
  size_t own = processor_len(chip), named = processor_len(e->arch);
  if (own == named ? !memcmp(chip, e->arch, own)
                   : named > own && !memcmp(chip, e->arch, own) && !isdigit((unsigned char)e->arch[own]) &&
                         !strncmp(e->t->bin_chip, "flags:", 6))
    return GPUBLOB_OK;
  return handle_set_error(g, GPUBLOB_TOOL, "offload binary at byte %llu: its arch %s is not its blob's own chip %.*s",
                          (unsigned long long)e->at, e->arch, (int)own, chip);
}

/* One binary's kernels into the ktable ctx: its target's bin reader's, each with the
** binary's arch as its chip; none for an assembly entry, a binary of no spec target
** or of one that records no metadata. */
typedef struct read_run {
  unsigned block_size;
  ktable *kt;
} read_run;

static int read_entry(gpublob *g, void *ctx, const offload_item *e) {
  read_run *rr = ctx;
  size_t first = rr->kt->n;
  if (!e->t || e->assembly || e->t->metadata == METADATA_none) return GPUBLOB_OK;
  if (offload_check_arch(g, e) || meta_blob_read_kernels(g, e->t, e->image, e->image_size, e->arch, rr->kt)) return g->code;
  for (size_t k = first; k < rr->kt->n; k++) occupancy_fill(e->t, rr->kt->k[k].chip, rr->block_size, &rr->kt->k[k]);
  return GPUBLOB_OK;
}

/* Each binary's kernels, as its target's bin reader reads them, each with the
** binary's arch as its chip and its occupancy for blocks of block_size threads.  A
** binary of no spec target, or of one that records no metadata, holds none. */
GPUBLOB_PRIVATE int offload_read_kernels(gpublob *g, const unsigned char *p, size_t n, unsigned block_size, ktable *kt) {
  read_run rr = {block_size, kt};
  return offload_each(g, p, n, read_entry, &rr);
}
