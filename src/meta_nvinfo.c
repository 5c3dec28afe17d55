/* src/meta_nvinfo.c: The nv_info metadata reader: a cubin's kernels, from its .nv.info
** sections as ptxas and nvJitLink write them.  Each kernel has a section
** .nv.info.<kernel>; .nv.info holds records for every function by its symbol.  A
** section is a list of records: a format byte, an attribute byte, then for format
** EIFMT_SVAL (4) a u16 size and that many bytes, else 2 bytes of value (EIFMT_HVAL,
** 3; EIFMT_BVAL, 2; EIFMT_NVAL, 1).  The attributes read, as checked against ptxas -v
** (CUDA 13.0) on tests/clang's kernels (tests/test_kernels.c):
**   REGCOUNT 0x2f and FRAME_SIZE 0x11 (ptxas's stack frame) in .nv.info: symbol, value;
**   MAX_THREADS 0x05, REQNTID 0x10: x, y, z; PARAM_CBANK 0x0a: symbol, then offset
**   (low 16 bits) and size (high 16) of the parameters; CBANK_PARAM_SIZE 0x19 (HVAL);
**   KPARAM_INFO 0x17, one a parameter (ptxas writes the last first): 12 bytes, u32 index
**   (0), u16 ordinal, u16 offset in the bank, u32 w: pointee's log2 alignment (w & 0xff),
**   state space (w >> 8 & 0xf: 0 not a pointer; a PTX .ptr's 1 .local, 2 .shared, 4
**   .global (.const too), 5 generic), bank (w >> 12 & 0x1f), size (w >> 18), as checked
**   against the PTX's .param lines (tests/test_params.c) and public reverse-engineering
**   (CuAssembler's CuNVInfo).  Past 4 KiB of parameters (ptxas 13.0's PTX 8.1 large
**   kernel parameters; 4000 bytes still 0x17, 4400 not) it writes KPARAM_INFO_V2 0x45
**   instead: 12 bytes, u32 index (0), u16 ordinal, u16 offset, u32 size in bytes, no
**   state space (read as by_value, no address space), as checked against the PTX's
**   .param lines (tests/test_params.c).  A kernel whose bank holds bytes but that has
**   neither record is TOOL, never an empty list.
** The registers are also the high byte of .text.<kernel>'s sh_info; static shared
** memory is the size of .nv.shared.<kernel> (NOBITS), less the shared memory the
** chip reserves, which ptxas and nvJitLink lay before a kernel's own where the cubin
** refers to it: a symbol .nv.reservedSmem.* (sm_90, sm_100; not sm_75, sm_80), whose
** size .nv.reservedSmem.cap's value gives (sm_100: 1024), else 1 KB (sm_90's, which
** ptxas -v confirms).  A cubin records no spills: -1. */

/* ---- .nv.info: a cubin's kernels ---- */
enum {
  EIFMT_SVAL = 4,
  EIATTR_MAX_THREADS = 0x05,
  EIATTR_PARAM_CBANK = 0x0a,
  EIATTR_REQNTID = 0x10,
  EIATTR_FRAME_SIZE = 0x11,
  EIATTR_KPARAM_INFO = 0x17,
  EIATTR_CBANK_PARAM_SIZE = 0x19,
  EIATTR_KPARAM_INFO_V2 = 0x45,
  EIATTR_REGCOUNT = 0x2f,
  NV_RESERVED_SHARED = 1024
};

typedef struct nvrec {
  int fmt, attr;
  const unsigned char *v; /* SVAL: its bytes; else the 2 bytes of value */
  size_t n;
} nvrec;

/* The next record of a section at *off; 0 at its end, -1 when one runs past it. */
static int nv_next(const unsigned char *b, uint64_t size, uint64_t *off, nvrec *r) {
  if (*off >= size) return 0;
  if (size - *off < 4) return -1;
  const unsigned char *h = b + *off;
  r->fmt = h[0];
  r->attr = h[1];
  r->v = h + 2;
  r->n = 2;
  if (r->fmt == EIFMT_SVAL) {
    r->n = (size_t)elf_le_n(h + 2, 2);
    r->v = h + 4;
    if (size - *off - 4 < r->n) return -1;
  }
  *off += r->fmt == EIFMT_SVAL ? 4 + r->n : 4;
  return 1;
}

static int nv_bad(gpublob *g, const char *sec, size_t n, const char *what) {
  return handle_set_error(g, GPUBLOB_TOOL, "cubin: section %.*s: %s", (int)(n < 80 ? n : 80), sec, what);
}

/* A KPARAM_INFO or KPARAM_INFO_V2 record: a parameter of the table's last kernel (see
** above). */
static int nv_param(gpublob *g, ktable *t, const nvrec *r, const char *nm, size_t nl) {
  static const char *const spaces[] = {"", "local", "shared", "", "global", "generic"};
  if (r->fmt != EIFMT_SVAL || r->n != 12) return nv_bad(g, nm, nl, "a KPARAM_INFO record is not 12 bytes");
  uint64_t w = elf_le_n(r->v + 8, 4);
  int v2 = r->attr == EIATTR_KPARAM_INFO_V2;
  unsigned space = v2 ? 0 : (unsigned)(w >> 8 & 0xf);
  if (space >= sizeof spaces / sizeof *spaces) return nv_bad(g, nm, nl, "a KPARAM_INFO record names no state space ptxas writes");
  const char *kind = space ? "pointer" : "by_value";
  gpublob_param_info *a = kt_param_add(g, t, t->n - 1, kind, strlen(kind));
  if (!a) return g->code;
  a->index = (long long)elf_le_n(r->v + 4, 2);
  a->offset = (long long)elf_le_n(r->v + 6, 2);
  a->size = (long long)(v2 ? w : w >> 18 & 0x3fff);
  a->address_space = spaces[space];
  return GPUBLOB_OK;
}

/* A kernel's own section: block sizes and the parameters' bytes. */
static int nv_kernel_section(gpublob *g, const unsigned char *b, uint64_t size, const char *nm, size_t nl,
                             gpublob_kernel_info *k) {
  uint64_t off = 0;
  nvrec r;
  int more;
  while ((more = nv_next(b, size, &off, &r)) > 0) {
    if ((r.attr == EIATTR_MAX_THREADS || r.attr == EIATTR_REQNTID) && r.fmt == EIFMT_SVAL && r.n == 12) {
      long long x = (long long)elf_le_n(r.v, 4), y = (long long)elf_le_n(r.v + 4, 4), z = (long long)elf_le_n(r.v + 8, 4);
      if (r.attr == EIATTR_REQNTID) k->reqd_threads[0] = x, k->reqd_threads[1] = y, k->reqd_threads[2] = z;
      else k->max_threads = kt_count_mul(kt_count_mul(x, y), z); /* u32s: -1 past a long long */
    } else if (r.attr == EIATTR_PARAM_CBANK && r.fmt == EIFMT_SVAL && r.n == 8)
      k->params_bytes = (long long)(elf_le_n(r.v + 4, 4) >> 16);
    else if (r.attr == EIATTR_CBANK_PARAM_SIZE && r.fmt != EIFMT_SVAL && k->params_bytes < 0)
      k->params_bytes = (long long)elf_le_n(r.v, 2);
  }
  if (more < 0) return nv_bad(g, nm, nl, "a record runs past the section");
  if (k->max_threads < 0 && k->reqd_threads[0])
    k->max_threads = kt_count_mul(kt_count_mul(k->reqd_threads[0], k->reqd_threads[1]), k->reqd_threads[2]);
  return GPUBLOB_OK;
}

/* The parameters of the table's last kernel, from its own section (already walked by
** nv_kernel_section: every record lies inside it), checked against its bank's size. */
static int nv_kernel_params(gpublob *g, const unsigned char *b, uint64_t size, const char *nm, size_t nl, ktable *t) {
  uint64_t off = 0;
  nvrec r;
  size_t records = 0;
  while (nv_next(b, size, &off, &r) > 0)
    if (r.attr == EIATTR_KPARAM_INFO || r.attr == EIATTR_KPARAM_INFO_V2) {
      if (nv_param(g, t, &r, nm, nl)) return g->code;
      records++;
    }
  if (!records && t->k[t->n - 1].params_bytes > 0)
    return nv_bad(g, nm, nl, "the kernel has bytes of parameters but no KPARAM_INFO record (0x17 or 0x45)");
  char what[128];
  snprintf(what, sizeof what, "cubin: section %.*s: KPARAM_INFO", (int)(nl < 80 ? nl : 80), nm);
  return kt_params_check(g, t, t->n - 1, t->k[t->n - 1].params_bytes, what);
}

/* .nv.info's records for the kernel k (by its symbol's name). */
static int nv_global(gpublob *g, const elf_view *e, ktable *t, size_t first) {
  long i = elf_find(e, ".nv.info", 8);
  if (i < 0) return GPUBLOB_OK;
  elf_section s = elf_sec(e, (size_t)i);
  const unsigned char *b = elf_bytes(e, &s);
  if (!b) return nv_bad(g, ".nv.info", 8, "lies outside the cubin");
  uint64_t off = 0;
  nvrec r;
  int more;
  while ((more = nv_next(b, s.size, &off, &r)) > 0) {
    if (r.fmt != EIFMT_SVAL || r.n != 8 || (r.attr != EIATTR_REGCOUNT && r.attr != EIATTR_FRAME_SIZE))
      continue;
    size_t len;
    const char *sym = elf_sym_name(e, elf_le_n(r.v, 4), &len);
    long long v = (long long)elf_le_n(r.v + 4, 4);
    for (size_t j = first; sym && j < t->n; j++) {
      gpublob_kernel_info *k = &t->k[j];
      if (strlen(k->name) != len || memcmp(k->name, sym, len)) continue;
      if (r.attr == EIATTR_REGCOUNT) k->registers = v;
      else if (r.attr == EIATTR_FRAME_SIZE) k->local_bytes = v;
    }
  }
  return more < 0 ? nv_bad(g, ".nv.info", 8, "a record runs past the section") : GPUBLOB_OK;
}

/* "PREFIXkernel"'s section: its index, or -1. */
static long nv_section_of(const elf_view *e, const char *prefix, const char *kernel) {
  strbuf name = {0};
  sb_add(&name, prefix);
  sb_add(&name, kernel);
  long i = name.oom ? -1 : elf_find(e, name.s, name.len);
  sb_free(&name);
  return i;
}

/* The first symbol named name (n bytes), or, with prefix, whose name starts so: 1 with
** its st_other in *other and st_value in *value; 0 when the symbol table has none. */
static int nv_symbol(const elf_view *e, const char *name, size_t n, int prefix, unsigned *other, uint64_t *value) {
  elf_section tab;
  uint64_t count = elf_symtab(e, &tab);
  for (uint64_t k = 0; k < count; k++) {
    size_t len;
    const char *nm = elf_sym(e, &tab, k, &len, other);
    if (nm && (prefix ? len >= n : len == n) && !memcmp(nm, name, n)) {
      *value = elf_le_n(elf_bytes(e, &tab) + k * ELF_SYM + 8, 8);
      return 1;
    }
  }
  return 0;
}

/* The shared memory the chip reserves before a kernel's own (see above); 0 if none. */
static uint64_t nv_reserved(const elf_view *e) {
  unsigned other;
  uint64_t cap;
  if (nv_symbol(e, ".nv.reservedSmem.cap", 20, 0, &other, &cap)) return cap;
  return nv_symbol(e, ".nv.reservedSmem.", 17, 1, &other, &cap) ? NV_RESERVED_SHARED : 0;
}

/* The shared memory and the registers of .text of kernel k. */
static void nv_sections(const elf_view *e, gpublob_kernel_info *k, uint64_t reserved) {
  long i = nv_section_of(e, ".nv.shared.", k->name);
  elf_section s;
  if (i < 0) k->shared_bytes = 0; /* no section: none */
  else if ((s = elf_sec(e, (size_t)i)).type == SHT_NOBITS_)
    k->shared_bytes = (long long)(s.size >= reserved ? s.size - reserved : s.size);
  if (k->registers < 0 && (i = nv_section_of(e, ".text.", k->name)) >= 0)
    k->registers = (long long)(elf_sec(e, (size_t)i).info >> 24);
}

/* Whether the function name (n bytes) is an entry: its symbol's st_other has
** STO_CUDA_ENTRY (0x10).  nvJitLink keeps a device function apart, with a .nv.info
** section of its own, where ptxas clones it into each kernel; it is no kernel.  A
** cubin whose symbol table does not name the function keeps it (1). */
static int nv_is_entry(const elf_view *e, const char *name, size_t n) {
  enum { STO_CUDA_ENTRY = 0x10 };
  unsigned other;
  uint64_t value;
  return nv_symbol(e, name, n, 0, &other, &value) ? (other & STO_CUDA_ENTRY) != 0 : 1;
}

GPUBLOB_PRIVATE int meta_nvinfo_read(gpublob *g, const unsigned char *p, size_t n, const char *chip, ktable *t) {
  elf_view e;
  if (elf_open(g, &e, p, n, "cubin")) return g->code;
  size_t first = t->n;
  uint64_t reserved = nv_reserved(&e);
  for (size_t i = 0; i < e.shnum; i++) {
    elf_section s = elf_sec(&e, i);
    size_t len;
    const char *nm = elf_sec_name(&e, &s, &len);
    if (len <= 9 || memcmp(nm, ".nv.info.", 9) || !nv_is_entry(&e, nm + 9, len - 9)) continue;
    const unsigned char *b = elf_bytes(&e, &s);
    if (!b) return nv_bad(g, nm, len, "lies outside the cubin");
    gpublob_kernel_info *k = kt_add(g, t, nm + 9, len - 9, chip);
    if (!k || nv_kernel_section(g, b, s.size, nm, len, k) || nv_kernel_params(g, b, s.size, nm, len, t)) return g->code;
  }
  if (nv_global(g, &e, t, first)) return g->code;
  for (size_t j = first; j < t->n; j++) nv_sections(&e, &t->k[j], reserved);
  return GPUBLOB_OK;
}

/* The tool that made a cubin, as its .note.nv.tkinfo names it ("ptxas", nvJitLink's
** "nvJIT API"), into tool (size bytes, NUL-ended); "" when it names none.  The note
** (owner "NVIDIA Corp", type 2000) holds a u32 version, then u32 offsets of its
** strings (the object's name, the tool's, its version, its build, its options), then
** the strings, each NUL-ended, from byte 24. */
GPUBLOB_PRIVATE void meta_nvinfo_read_tool(const elf_view *e, char *tool, size_t size) {
  enum { TKINFO_STRINGS = 24, TKINFO_TOOL_AT = 8 };
  long i = elf_find(e, ".note.nv.tkinfo", 15);
  elf_section s = i < 0 ? (elf_section){0} : elf_sec(e, (size_t)i);
  const unsigned char *b = i < 0 ? NULL : elf_bytes(e, &s);
  *tool = 0;
  if (!b || s.size < 12) return;
  uint64_t namesz = elf_le_n(b, 4), descsz = elf_le_n(b + 4, 4), desc = 12 + ((namesz + 3) & ~(uint64_t)3);
  if (!elf_in_blob(s.size, desc, descsz) || descsz < TKINFO_STRINGS) return;
  const unsigned char *d = b + desc;
  uint64_t at = TKINFO_STRINGS + elf_le_n(d + TKINFO_TOOL_AT, 4);
  const unsigned char *z = at < descsz ? memchr(d + at, 0, (size_t)(descsz - at)) : NULL;
  size_t n = z ? (size_t)(z - (d + at)) : 0;
  if (z && n < size) memcpy(tool, d + at, n), tool[n] = 0;
}
