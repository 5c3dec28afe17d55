/* src/elf.c: a reader of ELF64 little-endian files (elf_), for the blob readers: the
** file and its section table checked to lie inside the bytes, a section by index or
** name, the symbol table and its names.  Every offset is checked before it is read:
** a blob is untrusted input. */

/* ---- ELF64, little-endian: sections and symbols, bounded ---- */
GPUBLOB_PRIVATE uint64_t elf_le_n(const unsigned char *p, size_t n) {
  uint64_t v = 0;
  while (n--) v = v << 8 | p[n];
  return v;
}

/* n bytes at off lie inside the blob. */
GPUBLOB_PRIVATE int elf_in_blob(size_t size, uint64_t off, uint64_t n) { return off <= size && n <= size - off; }

/* [a, a+an) and [b, b+bn) share a byte (each already inside one blob). */
GPUBLOB_PRIVATE int elf_overlap(uint64_t a, uint64_t an, uint64_t b, uint64_t bn) {
  return an && bn && a < b + bn && b < a + an;
}

/* An ELF64 little-endian file whose section table lies inside it; -1 (TOOL) else. */
GPUBLOB_PRIVATE int elf_open(gpublob *g, elf_view *e, const unsigned char *p, size_t n, const char *what) {
  memset(e, 0, sizeof *e);
  if (n < 64 || memcmp(p, "\177ELF", 4) || p[4] != 2 || p[5] != 1)
    return handle_set_error(g, GPUBLOB_TOOL, "%s: not a 64-bit little-endian ELF file (%zu bytes)", what, n);
  e->p = p;
  e->n = n;
  e->shoff = elf_le_n(p + 0x28, 8);
  e->shnum = (size_t)elf_le_n(p + 0x3c, 2);
  e->shstr = (size_t)elf_le_n(p + 0x3e, 2);
  if (elf_le_n(p + 0x3a, 2) != ELF_SHDR || !elf_in_blob(n, e->shoff, (uint64_t)e->shnum * ELF_SHDR) ||
      e->shstr >= e->shnum)
    return handle_set_error(g, GPUBLOB_TOOL, "%s: its section table lies outside its %zu bytes", what, n);
  return GPUBLOB_OK;
}

GPUBLOB_PRIVATE elf_section elf_sec(const elf_view *e, size_t i) {
  const unsigned char *h = e->p + e->shoff + i * ELF_SHDR;
  return (elf_section){(uint32_t)elf_le_n(h, 4), (uint32_t)elf_le_n(h + 4, 4), (uint32_t)elf_le_n(h + 40, 4),
                  (uint32_t)elf_le_n(h + 44, 4), elf_le_n(h + 24, 8), elf_le_n(h + 32, 8),
                  elf_le_n(h + 16, 8)};
}

/* Section i's bytes (NULL for NOBITS, or when they lie outside the blob). */
GPUBLOB_PRIVATE const unsigned char *elf_bytes(const elf_view *e, const elf_section *s) {
  return s->type != SHT_NOBITS_ && elf_in_blob(e->n, s->offset, s->size) ? e->p + s->offset : NULL;
}

/* The NUL-ended string at off in string section i, bounded by it; NULL if none. */
static const char *elf_str(const elf_view *e, size_t i, uint64_t off, size_t *len) {
  if (i >= e->shnum) return NULL;
  elf_section s = elf_sec(e, i);
  const unsigned char *b = elf_bytes(e, &s);
  if (!b || off >= s.size) return NULL;
  const unsigned char *z = memchr(b + off, 0, (size_t)(s.size - off));
  if (!z) return NULL;
  *len = (size_t)(z - (b + off));
  return (const char *)b + off;
}

/* Section i's name; "" when it has none the blob holds. */
GPUBLOB_PRIVATE const char *elf_sec_name(const elf_view *e, const elf_section *s, size_t *len) {
  const char *nm = elf_str(e, e->shstr, s->name, len);
  if (!nm) *len = 0;
  return nm ? nm : "";
}

/* The section named name (n bytes); -1 when there is none. */
GPUBLOB_PRIVATE long elf_find(const elf_view *e, const char *name, size_t n) {
  for (size_t i = 0; i < e->shnum; i++) {
    elf_section s = elf_sec(e, i);
    size_t len;
    const char *nm = elf_sec_name(e, &s, &len);
    if (len == n && !memcmp(nm, name, n)) return (long)i;
  }
  return -1;
}

/* The first symbol table: its symbols' count, 0 when it has none (or its bytes lie
** outside the blob). */
GPUBLOB_PRIVATE uint64_t elf_symtab(const elf_view *e, elf_section *tab) {
  for (size_t i = 0; i < e->shnum; i++) {
    *tab = elf_sec(e, i);
    if (tab->type == SHT_SYMTAB_) return elf_bytes(e, tab) ? tab->size / ELF_SYM : 0;
  }
  return 0;
}

/* Symbol idx of the table tab (idx below elf_symtab's count): its name, NULL when it
** has none the blob holds; its st_other byte in *other. */
GPUBLOB_PRIVATE const char *elf_sym(const elf_view *e, const elf_section *tab, uint64_t idx, size_t *len, unsigned *other) {
  const unsigned char *sym = elf_bytes(e, tab) + idx * ELF_SYM;
  *other = sym[5];
  return elf_str(e, tab->link, elf_le_n(sym, 4), len);
}

/* Symbol idx's name from the first symbol table; NULL when it has none. */
GPUBLOB_PRIVATE const char *elf_sym_name(const elf_view *e, uint64_t idx, size_t *len) {
  elf_section tab;
  unsigned other;
  return idx < elf_symtab(e, &tab) ? elf_sym(e, &tab, idx, len, &other) : NULL;
}
