/* src/disasm.c: a kernel's machine code as text (disasm_), by LLVM's C disassembler
** (llvm-c/Disassembler.h) in process: the target's triple, the chip (a target id's
** modifiers as features, after the spec's features) and the kernel's bytes, its ELF
** symbol's range (st_value and st_size, within its section).  One instruction a line,
** "\tMNEMONIC OPERANDS", as llvm-objdump -d --no-show-raw-insn --no-leading-addr
** prints it before its comment; bytes LLVM cannot decode are "\t<unknown>" and the
** next 4 (objdump's step).  A chip the spec's disasm_chips does not name (every chip
** of NVPTX and SPIR-V, which LLVM has no disassembler for; gfx6 and gfx7, which LLVM's
** ends the process on) is FORMAT, never given to LLVM; a kernel without a symbol, or
** one outside its section, TOOL. */
#include <llvm-c/Disassembler.h>

/* ---- a kernel's bytes: its symbol's range in the code object ---- */
enum { STT_FUNC_ = 2, DISASM_STEP = 4 };

/* The symbol name's bytes in the blob (*at, *size) and its address (*pc): OK, or TOOL. */
static int kernel_bytes(gpublob *g, const unsigned char *p, size_t n, const char *name, uint64_t *at, uint64_t *size,
                        uint64_t *pc) {
  elf_view e;
  elf_section tab;
  if (elf_open(g, &e, p, n, "blob")) return g->code;
  uint64_t count = elf_symtab(&e, &tab);
  for (uint64_t i = 0; i < count; i++) {
    size_t len;
    unsigned other;
    const char *nm = elf_sym(&e, &tab, i, &len, &other);
    const unsigned char *sym = elf_bytes(&e, &tab) + i * ELF_SYM;
    if (!nm || len != strlen(name) || memcmp(nm, name, len) || (sym[4] & 0xf) != STT_FUNC_) continue;
    uint64_t value = elf_le_n(sym + 8, 8), bytes = elf_le_n(sym + 16, 8), shndx = elf_le_n(sym + 6, 2);
    elf_section s = shndx < e.shnum ? elf_sec(&e, (size_t)shndx) : (elf_section){0};
    if (shndx >= e.shnum || !elf_bytes(&e, &s) || value < s.addr || !elf_in_blob(s.size, value - s.addr, bytes))
      return handle_set_error(g, GPUBLOB_TOOL, "kernel '%.80s': its symbol lies outside its section", name);
    *at = s.offset + (value - s.addr);
    *size = bytes;
    *pc = value;
    return GPUBLOB_OK;
  }
  return handle_set_error(g, GPUBLOB_TOOL, "kernel '%.80s': no function symbol of that name in the blob", name);
}

/* ---- LLVM's disassembler ---- */
/* Whether a glob of the spec's disasm_chips matches the chip (its modifiers left out):
** LLVM ends the process on a chip its disassembler does not read. */
static int disasm_reads(const target_desc *t, const char *chip) {
  char cpu[64];
  snprintf(cpu, sizeof cpu, "%.*s", (int)strcspn(chip, ":"), chip);
  const char *list = t->disasm_chips, *w;
  size_t n;
  while ((w = util_next_word(&list, " ", &n)))
    if (util_glob_match(w, n, cpu)) return 1;
  return 0;
}

static pthread_once_t disasm_once = PTHREAD_ONCE_INIT;
/* The disassemblers of the backends whose chips the spec's disasm_chips name, and no
** other: LLVMInitializeAllDisassemblers would reference every backend LLVM was built
** with, which a static link of libgpublob.a (pkg-config gpublob-static) has not. */
static void disasm_init(void) {
#define GPUBLOB_LLVM_DISASSEMBLER(x) LLVMInitialize##x##Disassembler();
#include "gpublob_targets.def"
}

/* Each instruction of n bytes at p (address pc) into out, a line each. */
static void decode(LLVMDisasmContextRef dc, const unsigned char *p, size_t n, uint64_t pc, strbuf *out) {
  char line[512];
  for (size_t at = 0; at < n;) {
    size_t used = LLVMDisasmInstruction(dc, (uint8_t *)(uintptr_t)(p + at), n - at, pc + at, line, sizeof line);
    if (!used) {
      sb_add(out, "\t<unknown>\n");
      at += n - at < DISASM_STEP ? n - at : DISASM_STEP;
      continue;
    }
    sb_addf(out, "%s\n", line);
    at += used;
  }
}

/* Kernel name's instructions of the bin blob p (n bytes) of target t for chip, into
** out: OK, FORMAT (no disassembler for the target), TOOL, NOMEM. */
GPUBLOB_PRIVATE int disasm_kernel(gpublob *g, const target_desc *t, const char *chip, const unsigned char *p, size_t n,
                                  const char *name, strbuf *out) {
  uint64_t at = 0, size = 0, pc = 0;
  if (kernel_bytes(g, p, n, name, &at, &size, &pc)) return g->code;
  if (!resolve_target_id_valid(t, chip, strlen(chip)))
    return handle_set_error(g, GPUBLOB_CHIP, "'%.64s' is not a chip of %s: its code is not decoded", chip, t->name);
  if (!disasm_reads(t, chip))
    return handle_set_error(g, GPUBLOB_FORMAT, "LLVM's disassembler does not read %s:%s (the spec's disasm_chips: %s)",
                            t->name, chip, *t->disasm_chips ? t->disasm_chips : "none");
  pthread_once(&disasm_once, disasm_init);
  strbuf cpu = {0}, features = {0};
  sb_addn(&cpu, chip, strcspn(chip, ":"));
  sb_add(&features, t->features);
  resolve_add_id_features(chip, &features);
  LLVMDisasmContextRef dc = cpu.oom || features.oom ? NULL
                            : LLVMCreateDisasmCPUFeatures(t->triple, sb_str(&cpu), sb_str(&features), NULL, 0, NULL, NULL);
  int rc = dc ? GPUBLOB_OK
              : handle_set_error(g, GPUBLOB_FORMAT, "LLVM has no disassembler for %s (%s:%s)", t->triple, t->name, chip);
  if (dc) decode(dc, p + at, (size_t)size, pc, out);
  if (dc) LLVMDisasmDispose(dc);
  if (!rc && out->oom) rc = handle_set_error(g, GPUBLOB_NOMEM, "out of memory");
  sb_free(&cpu);
  sb_free(&features);
  return rc;
}
