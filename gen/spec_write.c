/* gen/spec_write.c: specgen's writers, of a spec read and checked: the target table
** (build/gpublob_targets.def: each target's designated initialisers, its LLVM
** backends and MLIR dialects, the spec's digest), the LLVM components its backends
** need (configure's --llvm-components), and the no-op initialisers of the backends
** it names not (build/unused_backends.c). */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL /* header only: specgen is built alone */
#include <xxhash.h>

#include "spec.h"

/* The dialects every lowering needs, declared whatever the spec says. */
static const char *const base_dialects[] = {"gpu", "llvm", "cf", "arith", "memref", "scf", "math", NULL};

/* ---- writing the table ---- */
/* Bytes outside printable ASCII as three-digit octal escapes (no following
   digit can extend them). */
static void put_cstring(FILE *o, const char *s) {
  fputc('"', o);
  for (; s && *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(o, "\\%c", c);
    else if (c < 0x20 || c >= 0x7f) fprintf(o, "\\%03o", c);
    else fputc(c, o);
  }
  fputc('"', o);
}

static int seen_llvm_target(int i) {
  for (int k = 0; k < i; k++)
    if (!strcmp(targets[k].val[K_llvm_target], targets[i].val[K_llvm_target])) return 1;
  return 0;
}

/* Whether the backend of target i is the first of its kind with an assembly parser. */
static int first_asm_parser(int i) {
  if (strcmp(targets[i].val[K_asm_parser], "yes")) return 0;
  for (int k = 0; k < i; k++)
    if (!strcmp(targets[k].val[K_llvm_target], targets[i].val[K_llvm_target]) &&
        !strcmp(targets[k].val[K_asm_parser], "yes"))
      return 0;
  return 1;
}

/* Whether target i is the first of its backend whose chips LLVM's disassembler reads
   (a disasm_chips list). */
static int first_disassembler(int i) {
  const char *d = targets[i].val[K_disasm_chips];
  if (!d || !*d) return 0;
  for (int k = 0; k < i; k++) {
    const char *e = targets[k].val[K_disasm_chips];
    if (!strcmp(targets[k].val[K_llvm_target], targets[i].val[K_llvm_target]) && e && *e) return 0;
  }
  return 1;
}

static int dialect_seen(int upto, size_t at, const char *w, size_t n) {
  if (in_list(base_dialects, w, n)) return 1;
  for (int i = 0; i <= upto; i++) {
    const char *p = targets[i].val[K_mlir_dialects], *u;
    size_t m;
    while (p && (u = next_word(&p, &m)) && (i < upto || (size_t)(u - targets[i].val[K_mlir_dialects]) < at))
      if (m == n && !strncmp(u, w, n)) return 1;
  }
  return 0;
}

/* One field: a string, a number, or a C enum's constant and its word. */
static void write_field(FILE *o, int k, const char *v) {
  fprintf(o, "  .%s = ", keys[k].name);
  if (keys[k].type.kind == V_INTEGER) fputs(v, o);
  else if (keys[k].type.kind == V_CENUM) {
    fprintf(o, "%s%s, .%s_name = ", keys[k].type.prefix, v, keys[k].name);
    put_cstring(o, v);
  } else put_cstring(o, v);
  fputs(",\n", o);
}

/* A target's entry: its name, then a field per key, in the list's order. */
static void write_entry(FILE *o, const target *t) {
  fputs("GPUBLOB_TARGET_BEGIN(", o);
  put_cstring(o, t->name);
  fputs(")\n  .name = ", o);
  put_cstring(o, t->name);
  fputs(",\n", o);
  for (int k = 0; k < NKEYS; k++) write_field(o, k, t->val[k]);
  fputs("GPUBLOB_TARGET_END\n", o);
}

/* Every target's entry, as the table holds them (malloc'd, *size bytes). */
static char *entries_text(size_t *size) {
  char *text = NULL;
  FILE *m = open_memstream(&text, size);
  if (!m) die(0, "out of memory");
  for (int i = 0; i < ntargets; i++) write_entry(m, &targets[i]);
  if (fclose(m) || !text) die(0, "out of memory");
  return text;
}

static const char table_usage[] =
    "/* Define what you include this file for; it undefines each again at its end:\n"
    "**   GPUBLOB_TARGET_BEGIN(name) and GPUBLOB_TARGET_END: each target, as a target_desc's\n"
    "**     designated initialisers between the two: .name, then a field per key of\n"
    "**     src/spec_keys.h (include it first), in its order.  A CENUM key's KEY_name is\n"
    "**     its word; an absent key is \"\".\n"
    "**   GPUBLOB_LLVM_TARGET(X): each LLVM backend, once\n"
    "**   GPUBLOB_LLVM_ASM_PARSER(X): each backend whose assembly parser a target needs\n"
    "**   GPUBLOB_LLVM_DISASSEMBLER(X): each backend whose disassembler a target's\n"
    "**     disasm_chips read\n"
    "**   GPUBLOB_MLIR_DIALECT(x): each MLIR dialect the MLIR pass depends on\n"
    "**   GPUBLOB_SPEC_DIGEST(b0, ..., b15): XXH3-128 (canonical bytes) of the target\n"
    "**     entries as written here, every line from the first GPUBLOB_TARGET_BEGIN to\n"
    "**     the last GPUBLOB_TARGET_END: the spec's part of the cache's keys */\n"
    "#if !defined GPUBLOB_TARGET_BEGIN && !defined GPUBLOB_TARGET_END && !defined GPUBLOB_LLVM_TARGET && \\\n"
    "    !defined GPUBLOB_LLVM_ASM_PARSER && !defined GPUBLOB_LLVM_DISASSEMBLER && \\\n"
    "    !defined GPUBLOB_MLIR_DIALECT && !defined GPUBLOB_SPEC_DIGEST\n"
    "#error \"gpublob_targets.def: define what you include it for first: GPUBLOB_TARGET_BEGIN and "
    "GPUBLOB_TARGET_END, GPUBLOB_LLVM_TARGET, GPUBLOB_LLVM_ASM_PARSER, GPUBLOB_LLVM_DISASSEMBLER, "
    "GPUBLOB_MLIR_DIALECT or "
    "GPUBLOB_SPEC_DIGEST\"\n"
    "#endif\n"
    "#if defined GPUBLOB_TARGET_BEGIN != defined GPUBLOB_TARGET_END\n"
    "#error \"gpublob_targets.def: define GPUBLOB_TARGET_BEGIN(name) and GPUBLOB_TARGET_END together\"\n"
    "#endif\n";

static void write_header(FILE *o) {
  /* the path goes into a comment: nothing there may end it */
  fputs("/* Generated by gen/specgen from ", o);
  for (const char *c = spec_path; *c; c++)
    fputc((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f || (c[0] == '*' && c[1] == '/') ? '_' : *c, o);
  fputs(". DO NOT EDIT. */\n", o);
  fputs(table_usage, o);
}

/* The entries, for a table of target_desc built with this specgen's key list. */
static void write_targets(FILE *o, const char *entries, size_t size) {
  fprintf(o, "#ifdef GPUBLOB_TARGET_BEGIN\n"
             "#if !defined GPUBLOB_SPEC_KEY_COUNT || GPUBLOB_SPEC_KEY_COUNT != %d\n"
             "#error \"gpublob_targets.def: written for %d spec keys, not for the src/spec_keys.h "
             "included (or none): include it first, or rebuild build/specgen\"\n"
             "#endif\n", NKEYS, NKEYS);
  fwrite(entries, 1, size, o);
  fputs("#endif\n", o);
}

static void write_backends(FILE *o) {
  fputs("#ifdef GPUBLOB_LLVM_TARGET\n", o);
  for (int i = 0; i < ntargets; i++)
    if (!seen_llvm_target(i)) fprintf(o, "GPUBLOB_LLVM_TARGET(%s)\n", targets[i].val[K_llvm_target]);
  fputs("#endif\n#ifdef GPUBLOB_LLVM_ASM_PARSER\n", o);
  for (int i = 0; i < ntargets; i++)
    if (first_asm_parser(i)) fprintf(o, "GPUBLOB_LLVM_ASM_PARSER(%s)\n", targets[i].val[K_llvm_target]);
  fputs("#endif\n#ifdef GPUBLOB_LLVM_DISASSEMBLER\n", o);
  for (int i = 0; i < ntargets; i++)
    if (first_disassembler(i)) fprintf(o, "GPUBLOB_LLVM_DISASSEMBLER(%s)\n", targets[i].val[K_llvm_target]);
  fputs("#endif\n", o);
}

/* Every dialect named by an mlir_dialects list, once, after the ones every lowering needs. */
static void write_dialects(FILE *o) {
  fputs("#ifdef GPUBLOB_MLIR_DIALECT\n", o);
  for (int i = 0; base_dialects[i]; i++) fprintf(o, "GPUBLOB_MLIR_DIALECT(%s)\n", base_dialects[i]);
  for (int i = 0; i < ntargets; i++) {
    const char *p = targets[i].val[K_mlir_dialects], *w;
    size_t n;
    while (p && (w = next_word(&p, &n)))
      if (!dialect_seen(i, (size_t)(w - targets[i].val[K_mlir_dialects]), w, n))
        fprintf(o, "GPUBLOB_MLIR_DIALECT(%.*s)\n", (int)n, w);
  }
  fputs("#endif\n", o);
}

static void write_digest(FILE *o, const char *entries, size_t size) {
  XXH128_canonical_t c;
  XXH128_canonicalFromHash(&c, XXH3_128bits(entries, size));
  fputs("#ifdef GPUBLOB_SPEC_DIGEST\nGPUBLOB_SPEC_DIGEST(", o);
  for (size_t i = 0; i < sizeof c.digest; i++) fprintf(o, "%s0x%02x", i ? ", " : "", c.digest[i]);
  fputs(")\n#endif\n", o);
}

void write_table(FILE *o) {
  size_t size;
  char *entries = entries_text(&size);
  write_header(o);
  write_targets(o, entries, size);
  write_backends(o);
  write_dialects(o);
  write_digest(o, entries, size);
  free(entries);
  fputs("#undef GPUBLOB_TARGET_BEGIN\n#undef GPUBLOB_TARGET_END\n#undef GPUBLOB_LLVM_TARGET\n"
        "#undef GPUBLOB_LLVM_ASM_PARSER\n#undef GPUBLOB_LLVM_DISASSEMBLER\n#undef GPUBLOB_MLIR_DIALECT\n#undef GPUBLOB_SPEC_DIGEST\n", o);
}

/* The LLVM components the spec's backends need, for llvm-config --libs: the
   same backends and assembly parsers as the table's GPUBLOB_LLVM_TARGET and
   GPUBLOB_LLVM_ASM_PARSER lines. */
void print_components(FILE *o) {
  for (int i = 0; i < ntargets; i++) {
    if (!seen_llvm_target(i)) {
      for (const char *c = targets[i].val[K_llvm_target]; *c; c++) fputc(tolower((unsigned char)*c), o);
      fputc(' ', o);
    }
    if (first_asm_parser(i)) {
      for (const char *c = targets[i].val[K_llvm_target]; *c; c++) fputc(tolower((unsigned char)*c), o);
      fputs("asmparser ", o);
    }
  }
  fputc('\n', o);
}

/* Whether the spec names the backend W (N bytes) as some target's llvm_target. */
static int spec_names_backend(const char *w, size_t n) {
  for (int i = 0; i < ntargets; i++)
    if (strlen(targets[i].val[K_llvm_target]) == n && !memcmp(targets[i].val[K_llvm_target], w, n)) return 1;
  return 0;
}

/* The backends the spec does not name, as a C file of no-op definitions of
   their LLVMInitialize<T>{TargetInfo,Target,TargetMC,AsmPrinter,AsmParser,
   Disassembler}, for a static link: MLIR's LLVM IR target utilities call
   LLVMInitializeAll{TargetInfos,Targets,TargetMCs}, whose references would pull
   every backend LLVM was built with (X86, AArch64, RISCV, ...: some 45 MB and
   hundreds of page faults at every start) into the program.  Linked before the
   archives, these definitions answer the references and no backend archive
   member is taken for them; those backends are then never registered, which
   nothing in gpublob looks up.  The list is --llvm-targets, or LLVM 22's. */
void write_unused_backends(FILE *o) {
  static const char *const kinds[] = {"TargetInfo", "Target",    "TargetMC",
                                      "AsmPrinter", "AsmParser", "Disassembler", NULL};
  fputs("/* Written by specgen --unused-backends from targets/targets.spec. DO NOT EDIT.\n"
        "   No-op initialisers of the LLVM backends the spec does not name (gen/specgen.c\n"
        "   write_unused_backends says why). */\n", o);
  const char *p = built_targets, *w;
  size_t n;
  for (int i = 0;; i++) {
    if (built_targets) {
      if (!(w = next_word(&p, &n))) break;
    } else if ((w = llvm22_targets[i])) {
      n = strlen(w);
    } else {
      break;
    }
    if (spec_names_backend(w, n)) continue;
    for (int k = 0; kinds[k]; k++) fprintf(o, "void LLVMInitialize%.*s%s(void);\n", (int)n, w, kinds[k]);
    for (int k = 0; kinds[k]; k++) fprintf(o, "void LLVMInitialize%.*s%s(void) {}\n", (int)n, w, kinds[k]);
  }
}
