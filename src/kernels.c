/* src/kernels.c: Kernel metadata, the shared pieces: the table the readers fill
** (src/meta_amdgpu.c, src/meta_nvinfo.c, src/meta_pack.c), and a bounded view of an
** ELF64 file's sections and symbols for them.  The bytes are a blob the caller may
** have got from anywhere (a cache, a file): every offset and size is checked against
** the blob before it is read, and what does not fit is TOOL, naming the cause.
** The table is bounded too: KT_MAX_KERNELS records, names of KT_MAX_NAME bytes. */

/* ---- the kernel table ---- */
enum { KT_MAX_KERNELS = 1 << 16, KT_MAX_NAME = 4096 };

static void kt_free(ktable *t) {
  for (size_t i = 0; i < t->nstr; i++) free(t->str[i]);
  free(t->str);
  free(t->k);
  memset(t, 0, sizeof *t);
}

/* A copy of s (n bytes) the table owns; NULL when memory is out. */
static const char *kt_str(ktable *t, const char *s, size_t n) {
  char *c = grow(&t->str, t->nstr, sizeof *t->str) ? NULL : malloc(n + 1);
  if (!c) return NULL;
  memcpy(c, s, n);
  c[n] = 0;
  t->str[t->nstr++] = c;
  return c;
}

/* Figures as a reader combines them (a block's threads, spills of two kinds): each
** a count (>= 0), and -1 (not known) where the result is more than a long long holds,
** never a signed overflow (the figures are a blob's, anyone's). */
static long long count_mul(long long a, long long b) {
  if (a < 0 || b < 0) return -1;
  return a && b > LLONG_MAX / a ? -1 : a * b;
}

static long long count_add(long long a, long long b) {
  if (a < 0 || b < 0) return -1;
  return b > LLONG_MAX - a ? -1 : a + b;
}

/* A kernel of which nothing is known yet: every figure -1 (not recorded), no
** required size, no occupancy limiter. */
static gpublob_kernel_info kt_blank(const char *name, const char *chip) {
  return (gpublob_kernel_info){name, chip, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, {0, 0, 0},
                               -1, -1, -1, -1.0, "", -1, -1, -1};
}

/* A new record: every figure -1 (not recorded), no required size, name and chip
** copied; NULL with the handle's error (TOOL past KT_MAX_KERNELS, NOMEM). */
static gpublob_kernel_info *kt_add(gpublob *g, ktable *t, const char *name, size_t n, const char *chip) {
  if (t->n >= KT_MAX_KERNELS) {
    set_error(g, GPUBLOB_TOOL, "more than %d kernels in one blob", KT_MAX_KERNELS);
    return NULL;
  }
  if (n > KT_MAX_NAME) {
    set_error(g, GPUBLOB_TOOL, "a kernel's name is longer than %d bytes", KT_MAX_NAME);
    return NULL;
  }
  const char *nm = kt_str(t, name, n), *ch = nm ? kt_str(t, chip, strlen(chip)) : NULL;
  if (!ch || grow(&t->k, t->n, sizeof *t->k)) {
    set_error(g, GPUBLOB_NOMEM, "out of memory reading kernel metadata");
    return NULL;
  }
  gpublob_kernel_info *k = &t->k[t->n++];
  *k = kt_blank(nm, ch);
  return k;
}

/* ---- ELF64, little-endian: sections and symbols, bounded ---- */
enum { SHT_NOTE_ = 7, SHT_SYMTAB_ = 2, SHT_NOBITS_ = 8, ELF_SHDR = 64, ELF_SYM = 24 };

typedef struct elfview {
  const unsigned char *p;
  size_t n;
  uint64_t shoff;
  size_t shnum;
  size_t shstr; /* the section of section names */
} elfview;

typedef struct elfsec {
  uint32_t name, type, link, info;
  uint64_t offset, size;
} elfsec;

static uint64_t le_n(const unsigned char *p, size_t n) {
  uint64_t v = 0;
  while (n--) v = v << 8 | p[n];
  return v;
}

/* n bytes at off lie inside the blob. */
static int in_blob(size_t size, uint64_t off, uint64_t n) { return off <= size && n <= size - off; }

/* An ELF64 little-endian file whose section table lies inside it; -1 (TOOL) else. */
static int elf_open(gpublob *g, elfview *e, const unsigned char *p, size_t n, const char *what) {
  memset(e, 0, sizeof *e);
  if (n < 64 || memcmp(p, "\177ELF", 4) || p[4] != 2 || p[5] != 1)
    return set_error(g, GPUBLOB_TOOL, "%s: not a 64-bit little-endian ELF file (%zu bytes)", what, n);
  e->p = p;
  e->n = n;
  e->shoff = le_n(p + 0x28, 8);
  e->shnum = (size_t)le_n(p + 0x3c, 2);
  e->shstr = (size_t)le_n(p + 0x3e, 2);
  if (le_n(p + 0x3a, 2) != ELF_SHDR || !in_blob(n, e->shoff, (uint64_t)e->shnum * ELF_SHDR) ||
      e->shstr >= e->shnum)
    return set_error(g, GPUBLOB_TOOL, "%s: its section table lies outside its %zu bytes", what, n);
  return GPUBLOB_OK;
}

static elfsec elf_sec(const elfview *e, size_t i) {
  const unsigned char *h = e->p + e->shoff + i * ELF_SHDR;
  return (elfsec){(uint32_t)le_n(h, 4), (uint32_t)le_n(h + 4, 4), (uint32_t)le_n(h + 40, 4),
                  (uint32_t)le_n(h + 44, 4), le_n(h + 24, 8), le_n(h + 32, 8)};
}

/* Section i's bytes (NULL for NOBITS, or when they lie outside the blob). */
static const unsigned char *elf_bytes(const elfview *e, const elfsec *s) {
  return s->type != SHT_NOBITS_ && in_blob(e->n, s->offset, s->size) ? e->p + s->offset : NULL;
}

/* The NUL-ended string at off in string section i, bounded by it; NULL if none. */
static const char *elf_str(const elfview *e, size_t i, uint64_t off, size_t *len) {
  if (i >= e->shnum) return NULL;
  elfsec s = elf_sec(e, i);
  const unsigned char *b = elf_bytes(e, &s);
  if (!b || off >= s.size) return NULL;
  const unsigned char *z = memchr(b + off, 0, (size_t)(s.size - off));
  if (!z) return NULL;
  *len = (size_t)(z - (b + off));
  return (const char *)b + off;
}

/* Section i's name; "" when it has none the blob holds. */
static const char *elf_sec_name(const elfview *e, const elfsec *s, size_t *len) {
  const char *nm = elf_str(e, e->shstr, s->name, len);
  if (!nm) *len = 0;
  return nm ? nm : "";
}

/* The section named name (n bytes); -1 when there is none. */
static long elf_find(const elfview *e, const char *name, size_t n) {
  for (size_t i = 0; i < e->shnum; i++) {
    elfsec s = elf_sec(e, i);
    size_t len;
    const char *nm = elf_sec_name(e, &s, &len);
    if (len == n && !memcmp(nm, name, n)) return (long)i;
  }
  return -1;
}

/* The first symbol table: its symbols' count, 0 when it has none (or its bytes lie
** outside the blob). */
static uint64_t elf_symtab(const elfview *e, elfsec *tab) {
  for (size_t i = 0; i < e->shnum; i++) {
    *tab = elf_sec(e, i);
    if (tab->type == SHT_SYMTAB_) return elf_bytes(e, tab) ? tab->size / ELF_SYM : 0;
  }
  return 0;
}

/* Symbol idx of the table tab (idx below elf_symtab's count): its name, NULL when it
** has none the blob holds; its st_other byte in *other. */
static const char *elf_sym(const elfview *e, const elfsec *tab, uint64_t idx, size_t *len, unsigned *other) {
  const unsigned char *sym = elf_bytes(e, tab) + idx * ELF_SYM;
  *other = sym[5];
  return elf_str(e, tab->link, le_n(sym, 4), len);
}

/* Symbol idx's name from the first symbol table; NULL when it has none. */
static const char *elf_sym_name(const elfview *e, uint64_t idx, size_t *len) {
  elfsec tab;
  unsigned other;
  return idx < elf_symtab(e, &tab) ? elf_sym(e, &tab, idx, len, &other) : NULL;
}
