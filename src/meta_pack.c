/* src/meta_pack.c: Kernel metadata of a pack: its 'pack_metadata' reader finds the
** members and reads each with the target's bin reader (src/meta_blob.c), under the
** member's chip:
**   offload_bundle: a clang offload bundle (the layout of src/pack_bundle.c); each
**     entry with bytes is a code object, its chip the target id its id ends with
**     (hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+: gfx90a:xnack+).  A compressed bundle
**     (clang-offload-bundler -compress, magic CCOB) is TOOL, not guessed at, and so
**     are entries whose bytes overlap (each member is copied once: no more bytes than
**     the bundle's; a fatbin's entries lie one after another, so cannot).
**   fatbin: CUDA's fatbin, as fatbinary writes it: a header (magic 0xBA55ED50, u16
**     version, u16 header size, u64 size of the entries), then entries, each a header
**     (u16 kind: 1 PTX, 2 ELF; u32 header size at 4; u64 payload size at 8; u32 sm at
**     28; u64 flags at 40) and its payload.  ELF entries are cubins; PTX entries hold
**     no metadata and are skipped; an entry whose flags say compressed (0x2000,
**     0x8000) is TOOL.  An ELF entry's chip is chip_prefix and its sm, or, where the
**     output's chip list has the chip in the entry's place and it is that sm with a
**     suffix (sm_90a: the entry says 90), the listed chip. */

/* ---- the members of a pack, each read as a bin blob ---- */

/* The target id an offload entry's id ends with: what follows its kind and the four
** parts of its triple (kind-arch-vendor-os-env-ID); the whole id when it has fewer. */
static const char *bundle_chip(const char *id, size_t n, size_t *len) {
  size_t i = 0;
  for (int dashes = 0; i < n && dashes < 5; i++)
    if (id[i] == '-') dashes++;
  if (i >= n) i = 0;
  *len = n - i;
  return id + i;
}

/* The entry [off, off+size) shares a byte with one of the earlier entries' ranges
** (2 u64s each, count of them). */
static int bundle_overlaps(const uint64_t *ranges, uint64_t count, uint64_t off, uint64_t size) {
  for (uint64_t i = 0; i < count; i++)
    if (elf_overlap(ranges[2 * i], ranges[2 * i + 1], off, size)) return 1;
  return 0;
}

/* The entries of the bundle (count checked by the caller), as meta_pack_bundle_each
** says; ranges holds room for each entry's offset and size. */
static int bundle_each(gpublob *g, const unsigned char *p, size_t n, uint64_t *ranges, meta_pack_visit visit,
                       void *ctx) {
  uint64_t count = elf_le_n(p + BUNDLE_MAGIC_LEN, 8), at = BUNDLE_MAGIC_LEN + 8, kept = 0;
  for (uint64_t i = 0; i < count; i++) {
    if (!elf_in_blob(n, at, 24)) return handle_set_error(g, GPUBLOB_TOOL, "offload bundle: entry %llu's header is cut short", (unsigned long long)i);
    uint64_t off = elf_le_n(p + at, 8), size = elf_le_n(p + at + 8, 8), idn = elf_le_n(p + at + 16, 8);
    if (!elf_in_blob(n, at + 24, idn) || idn > KT_MAX_NAME || !elf_in_blob(n, off, size))
      return handle_set_error(g, GPUBLOB_TOOL, "offload bundle: entry %llu lies outside the bundle", (unsigned long long)i);
    size_t cl;
    const char *chip = bundle_chip((const char *)p + at + 24, (size_t)idn, &cl);
    at += 24 + idn;
    if (!size) continue; /* the empty host entry */
    if (bundle_overlaps(ranges, kept, off, size))
      return handle_set_error(g, GPUBLOB_TOOL, "offload bundle: entry %llu's bytes (%llu at %llu) overlap an earlier "
                              "entry's", (unsigned long long)i, (unsigned long long)size, (unsigned long long)off);
    ranges[2 * kept] = off, ranges[2 * kept + 1] = size, kept++;
    char buf[KT_MAX_NAME + 1];
    memcpy(buf, chip, cl);
    buf[cl] = 0;
    meta_pack_entry e = {p + off, (size_t)size, buf, 1, 0, 0};
    if (visit(g, ctx, &e)) return g->code;
  }
  return GPUBLOB_OK;
}

/* Each entry with bytes of an offload bundle to visit, in the bundle's order, under the
** chip its id ends with; the bundle's faults are TOOL, among them entries whose bytes
** overlap (so that the members' bytes together are at most the bundle's). */
GPUBLOB_PRIVATE int meta_pack_bundle_each(gpublob *g, const unsigned char *p, size_t n, meta_pack_visit visit, void *ctx) {
  if (n >= 4 && !memcmp(p, "CCOB", 4))
    return handle_set_error(g, GPUBLOB_TOOL, "offload bundle: compressed (CCOB); its members are not read");
  if (n < BUNDLE_MAGIC_LEN + 8 || memcmp(p, META_PACK_BUNDLE_MAGIC, BUNDLE_MAGIC_LEN))
    return handle_set_error(g, GPUBLOB_TOOL, "offload bundle: no %s magic", META_PACK_BUNDLE_MAGIC);
  uint64_t count = elf_le_n(p + BUNDLE_MAGIC_LEN, 8);
  if (count > PACK_MAX_MEMBERS) return handle_set_error(g, GPUBLOB_TOOL, "offload bundle: %llu entries", (unsigned long long)count);
  uint64_t *ranges = malloc(2 * sizeof *ranges * (count ? (size_t)count : 1));
  if (!ranges) return handle_set_error(g, GPUBLOB_NOMEM, "out of memory (%llu bundle entries)", (unsigned long long)count);
  int rc = bundle_each(g, p, n, ranges, visit, ctx);
  free(ranges);
  return rc;
}

/* A member's kernels, into the table ctx (its target's bin reader). */
typedef struct member_read {
  const target_desc *t;
  ktable *kt;
} member_read;

static int read_member(gpublob *g, void *ctx, const meta_pack_entry *e) {
  member_read *m = ctx;
  if (!e->bin) return GPUBLOB_OK; /* assembly: no metadata */
  if (e->compressed)
    return handle_set_error(g, GPUBLOB_TOOL, "fatbin: the %s cubin is compressed (flags 0x%llx); not read", e->chip,
                            e->flags);
  return meta_blob_read_kernels(g, m->t, e->p, e->n, e->chip, m->kt);
}

GPUBLOB_PRIVATE int meta_pack_read_bundle(gpublob *g, const target_desc *t, const unsigned char *p, size_t n, ktable *kt) {
  member_read m = {t, kt};
  return meta_pack_bundle_each(g, p, n, read_member, &m);
}

enum { FATBIN_MAGIC = 0xBA55ED50u, FATBIN_ELF = 2, FATBIN_ENTRY_MIN = 48, FATBIN_COMPRESSED = 0x2000 | 0x8000 };

/* The chip of the cubin entry with this sm, the which-th cubin of the fatbin (see above). */
static void fatbin_chip(const target_desc *t, const char *chips, int which, uint64_t sm, char *chip, size_t size) {
  snprintf(chip, size, "%s%llu", t->chip_prefix, (unsigned long long)sm);
  const char *w = NULL;
  size_t n = 0, len = strlen(chip);
  for (int i = 0; i <= which && (w = util_next_word(&chips, ",", &n)); i++) {}
  if (w && n > len && n < size && !memcmp(w, chip, len) && !isdigit((unsigned char)w[len])) {
    memcpy(chip, w, n);
    chip[n] = 0;
  }
}

/* Each entry of a fatbin to visit, in its order, with its chip (see above); its
** faults are TOOL. */
GPUBLOB_PRIVATE int meta_pack_fatbin_each(gpublob *g, const target_desc *t, const unsigned char *p, size_t n,
                                          const char *chips, meta_pack_visit visit, void *ctx) {
  if (n < 16 || elf_le_n(p, 4) != FATBIN_MAGIC) return handle_set_error(g, GPUBLOB_TOOL, "fatbin: no magic 0x%X", FATBIN_MAGIC);
  uint64_t hdr = elf_le_n(p + 6, 2), size = elf_le_n(p + 8, 8);
  if (hdr < 16 || !elf_in_blob(n, hdr, size)) return handle_set_error(g, GPUBLOB_TOOL, "fatbin: its entries lie outside its %zu bytes", n);
  uint64_t at = hdr, end = hdr + size;
  for (int members = 0, cubins = 0; at < end; members++) {
    if (members >= PACK_MAX_MEMBERS) return handle_set_error(g, GPUBLOB_TOOL, "fatbin: more than %d entries", PACK_MAX_MEMBERS);
    if (!elf_in_blob((size_t)end, at, FATBIN_ENTRY_MIN)) return handle_set_error(g, GPUBLOB_TOOL, "fatbin: an entry's header is cut short");
    const unsigned char *e = p + at;
    uint64_t eh = elf_le_n(e + 4, 4), payload = elf_le_n(e + 8, 8), sm = elf_le_n(e + 28, 4), flags = elf_le_n(e + 40, 8);
    if (eh < FATBIN_ENTRY_MIN || !elf_in_blob((size_t)end, at + eh, payload))
      return handle_set_error(g, GPUBLOB_TOOL, "fatbin: an entry lies outside the fatbin");
    char chip[64];
    int elf = elf_le_n(e, 2) == FATBIN_ELF;
    if (elf) fatbin_chip(t, chips, cubins++, sm, chip, sizeof chip);
    else snprintf(chip, sizeof chip, "%s%llu", t->chip_prefix, (unsigned long long)sm);
    meta_pack_entry m = {e + eh, (size_t)payload, chip, elf, (flags & FATBIN_COMPRESSED) != 0,
                         (unsigned long long)flags};
    if (visit(g, ctx, &m)) return g->code;
    at += eh + payload;
  }
  return GPUBLOB_OK;
}

GPUBLOB_PRIVATE int meta_pack_read_fatbin(gpublob *g, const target_desc *t, const unsigned char *p, size_t n,
                               const char *chips, ktable *kt) {
  member_read m = {t, kt};
  return meta_pack_fatbin_each(g, t, p, n, chips, read_member, &m);
}
