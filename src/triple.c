/* src/triple.c: A module's target triple, read without LLVM (before any LLVM work,
** though a part of the compiler's group, the one that uses it), and whether a spec
** target takes a module of that triple.  gpublob_compile_inputs (src/call.c) compiles
** each of its inputs for the named targets its triple allows, and decides that before
** any LLVM work: from LLVM IR text's `target triple = "..."` line, or from bitcode's
** MODULE_CODE_TRIPLE record, which LLVM's writer puts in the module block as an
** unabbreviated record before it defines any abbreviation of that block (the blocks
** before it, BLOCKINFO, types and attributes, are skipped by their length).  A
** bitcode file written otherwise, whose triple cannot be found so, is taken as having
** none: every named target then compiles it, and the compile refuses one of another
** architecture (module_check_triple) as a single call does.  The same test of an
** architecture serves the compile (src/module_check.c, src/link_files.c). */

/* ---- a triple's architecture ---- */
/* The length of the triple's first part, its architecture. */
GPUBLOB_PRIVATE size_t triple_arch(const char *triple) {
  const char *dash = strchr(triple, '-');
  return dash ? (size_t)(dash - triple) : strlen(triple);
}

/* arch (n bytes) is a version of the spec's architecture spec (sn bytes): spirv64v1.5
** of spirv64. */
GPUBLOB_PRIVATE int triple_is_subarch(const char *arch, size_t n, const char *spec, size_t sn) {
  if (n <= sn + 1 || strncmp(arch, spec, sn) || arch[sn] != 'v' || !isdigit((unsigned char)arch[sn + 1]))
    return 0;
  for (size_t i = sn + 1; i < n; i++)
    if (!isdigit((unsigned char)arch[i]) && arch[i] != '.') return 0;
  return 1;
}

/* Target t compiles a module of triple ("" for none: every target does). */
GPUBLOB_PRIVATE int triple_takes(const target_desc *t, const char *triple) {
  size_t n = triple_arch(triple), sn = triple_arch(t->triple);
  return !*triple || (n == sn && !strncmp(triple, t->triple, n)) || triple_is_subarch(triple, n, t->triple, sn);
}

/* ---- LLVM IR text: the `target triple = "..."` line ---- */
static const char *ir_blanks(const char *p, const char *end) {
  while (p < end && (*p == ' ' || *p == '\t')) p++;
  return p;
}

/* The word w at p (followed by no identifier byte): past it, else NULL. */
static const char *ir_word(const char *p, const char *end, const char *w) {
  size_t n = strlen(w);
  if ((size_t)(end - p) < n || memcmp(p, w, n)) return NULL;
  return p + n < end && (isalnum((unsigned char)p[n]) || p[n] == '_') ? NULL : p + n;
}

/* The triple of one line, "target triple = \"T\"", into out; 1 when the line is one. */
static int text_line_triple(const char *p, const char *end, char *out, size_t size) {
  p = ir_blanks(p, end);
  if (!(p = ir_word(p, end, "target"))) return 0;
  if (!(p = ir_word(ir_blanks(p, end), end, "triple"))) return 0;
  p = ir_blanks(p, end);
  if (p == end || *p++ != '=') return 0;
  p = ir_blanks(p, end);
  if (p == end || *p++ != '"') return 0;
  const char *close = memchr(p, '"', (size_t)(end - p));
  if (!close || (size_t)(close - p) >= size) return 0;
  memcpy(out, p, (size_t)(close - p));
  out[close - p] = 0;
  return 1;
}

static void text_triple(const char *p, size_t n, char *out, size_t size) {
  for (const char *end = p + n, *line = p; line < end;) {
    const char *nl = memchr(line, '\n', (size_t)(end - line)), *stop = nl ? nl : end;
    if (text_line_triple(line, stop, out, size)) return;
    line = stop + 1;
  }
}

/* ---- bitcode: the module block's triple record ---- */
typedef struct bitstream {
  const unsigned char *p;
  size_t n, at; /* bytes; the position in bits */
  int bad;
} bitstream;

static uint64_t bs_fixed(bitstream *b, unsigned width) {
  uint64_t v = 0;
  for (unsigned i = 0; i < width; i++, b->at++) {
    if (b->at / 8 >= b->n) return b->bad = 1, 0;
    v |= (uint64_t)((b->p[b->at / 8] >> (b->at % 8)) & 1) << i;
  }
  return v;
}

static uint64_t bs_vbr(bitstream *b, unsigned width) {
  uint64_t v = 0, chunk;
  unsigned shift = 0;
  do {
    chunk = bs_fixed(b, width);
    if (shift < 64) v |= (chunk & ((1ULL << (width - 1)) - 1)) << shift;
    shift += width - 1;
  } while (!b->bad && (chunk >> (width - 1)) && shift < 70);
  return v;
}

/* A sub-block's header (after its abbreviation id): its id, abbreviation width and
** length in 32-bit words, with the position at its first word. */
static uint64_t bs_block(bitstream *b, unsigned *width, uint64_t *words) {
  uint64_t id = bs_vbr(b, 8);
  *width = (unsigned)bs_vbr(b, 4);
  b->at = (b->at + 31) & ~(size_t)31;
  *words = bs_fixed(b, 32);
  return id;
}

enum { BLOCK_MODULE = 8, RECORD_TRIPLE = 2, ABBREV_END = 0, ABBREV_ENTER = 1, ABBREV_UNABBREV = 3 };

/* The module block's records up to its triple; 1 when found (into out). */
static int module_triple(bitstream *b, unsigned width, char *out, size_t size) {
  while (!b->bad && width >= 2 && width <= 32) {
    uint64_t abbrev = bs_fixed(b, width), words;
    unsigned w;
    if (abbrev == ABBREV_ENTER) {
      bs_block(b, &w, &words);
      if (words > (b->n * 8 - b->at) / 32) return 0;
      b->at += (size_t)words * 32;
      continue;
    }
    if (abbrev != ABBREV_UNABBREV) return 0; /* the block's end, or an abbreviation: no triple read */
    uint64_t code = bs_vbr(b, 6), ops = bs_vbr(b, 6);
    if (code == RECORD_TRIPLE && ops < size) {
      for (uint64_t i = 0; i < ops; i++) out[i] = (char)bs_vbr(b, 6);
      out[ops] = 0;
      return !b->bad && strlen(out) == ops;
    }
    for (uint64_t i = 0; i < ops && !b->bad; i++) bs_vbr(b, 6);
  }
  return 0;
}

static void bitcode_triple(const unsigned char *p, size_t n, char *out, size_t size) {
  bitstream b = {p, n, 32, 0};
  if (n >= 28 && p[0] == 0xDE && p[1] == 0xC0) { /* the wrapper: offset and size of the bitcode */
    size_t off = (size_t)elf_le_n(p + 8, 4), len = (size_t)elf_le_n(p + 12, 4);
    if (off > n || len > n - off || len < 4) return;
    b = (bitstream){p + off, len, 32, 0};
  }
  while (!b.bad && b.at + 2 <= b.n * 8) { /* top level: abbreviation width 2 */
    uint64_t words, abbrev = bs_fixed(&b, 2);
    unsigned width;
    if (abbrev != ABBREV_ENTER) return;
    uint64_t id = bs_block(&b, &width, &words);
    if (b.bad) return;
    if (id == BLOCK_MODULE) {
      if (!module_triple(&b, width, out, size)) out[0] = 0;
      return;
    }
    if (words > (b.n * 8 - b.at) / 32) return;
    b.at += (size_t)words * 32;
  }
}

/* The module's triple (n bytes of LLVM IR text or bitcode) into out (size bytes);
** "" when it has none, or none can be read. */
GPUBLOB_PRIVATE void triple_of_module(const unsigned char *p, size_t n, char *out, size_t size) {
  out[0] = 0;
  if (input_looks_like_bitcode(p, n)) bitcode_triple(p, n, out, size);
  else text_triple((const char *)p, n, out, size);
}
