/* gen/spec_check.c: specgen's checks of a target as read: the keys src/spec_keys.h
** requires, defaults and types, the placeholders of each template key (its line's
** TEMPLATE), each key's value by its line's FORM (check_form), and what keys need of
** one another; across targets, that an MLIR target attribute selects one.  Whatever would not build, or would
** mean something other than it says, is refused here, as file:line: message. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"
#include "../src/math_modes.h"

/* Keys that come together, each list ending in -1: what an exec tool needs, what a
   provider needs, the pack step's keys, and what a pack program needs. */
static const int exec_keys[] = {K_tool, K_tool_argv, K_tool_search, -1};
static const int provider_keys[] = {K_provider_lib, K_provider_search, -1};
static const int pack_keys[] = {K_pack_tool, K_pack_argv, K_pack_image, K_pack_asm_image, K_pack_target,
                                K_pack_provider_argv, K_suffix_pack, -1};
static const int pack_program_keys[] = {K_pack_tool, K_pack_argv, K_pack_image, -1};

/* LLVM's calling conventions of GPU entry points (llvm/IR/CallingConv.h, stable values). */
static const struct { const char *name; int value; } calling_conventions[] = {
    {"ptx_kernel", 71}, {"spir_kernel", 76}, {"amdgpu_kernel", 91}, {NULL, 0}};
/* Module flags get an i32 value; LLVM's verifier wants metadata for require,
   append and appendunique, so only these behaviours take a number. */
static const char *const flag_behaviours[] = {"error", "warning", "override", NULL};
static const char *const metadata_behaviours[] = {"require", "append", "appendunique", NULL};
/* The conditions of {if:COND:..} besides +feature, -feature and a target's isa_conditions:
   the math modes (src/math_modes.h), -O0, and whose defaults the call takes (--as clang,
   --as mlir). */
#define MATH_MODE_NAME(a, id, name, brief_group, brief, full) name,
static const char *const conditions[] = {GPUBLOB_MATH_MODES(MATH_MODE_NAME, ~) "O0", "clang", "mlir", NULL};
/* What a flag of an MLIR target attribute may set besides a feature (mlir_flags): a math mode. */
static const char *const flag_options[] = {GPUBLOB_MATH_MODES(MATH_MODE_NAME, ~) NULL};
#undef MATH_MODE_NAME
/* What else an mlir_flags FLAG may do (src/mlir_plan.c): add its strings to the blob
** tool's options, or keep the tool's log in the object's properties. */
static const char *const flag_effects[] = {"tool-options", "tool-log", NULL};

/* LLVM 22's targets: LLVM_ALL_TARGETS and LLVM_ALL_EXPERIMENTAL_TARGETS of
   llvm/CMakeLists.txt; llvm-config-22 --targets-built on Debian's LLVM 22 lists
   the first 20 and M68k and Xtensa.  A build's own list comes with --llvm-targets. */
const char *const llvm22_targets[] = {
    "AArch64", "AMDGPU", "ARM", "AVR", "BPF", "Hexagon", "Lanai", "LoongArch", "Mips",
    "MSP430", "NVPTX", "PowerPC", "RISCV", "Sparc", "SPIRV", "SystemZ", "VE", "WebAssembly",
    "X86", "XCore", "ARC", "CSKY", "DirectX", "M68k", "Xtensa", NULL};
/* Those without an assembly parser (no lib/Target/X/AsmParser, no
   LLVMInitializeXAsmParser, no llvm-config component xasmparser). */
static const char *const no_asm_parser[] = {"ARC", "DirectX", "NVPTX", "SPIRV", "XCore", NULL};

/* The MLIR dialects with a C API handle in LLVM 22, the Namespace of each
   MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Name, Namespace) in the headers of
   /usr/lib/llvm-22/include/mlir-c/Dialect/, which declares
   mlirGetDialectHandle__Namespace__ (48, all defined in libMLIRCAPI*.a).
   gpublob.c calls the handle of each dialect of an mlir_dialects list. */
static const char *const mlir_handles[] = {
    "acc", "affine", "amdgpu", "amx", "arith", "arm_neon", "arm_sme", "arm_sve", "async",
    "bufferization", "cf", "complex", "dlti", "emitc", "func", "gpu", "index", "irdl",
    "linalg", "llvm", "math", "memref", "ml_program", "mpi", "nvgpu", "nvvm", "omp", "pdl",
    "pdl_interp", "ptr", "quant", "rocdl", "scf", "shape", "shard", "smt", "sparse_tensor",
    "spirv", "tensor", "tosa", "transform", "ub", "vcix", "vector", "wasmssa", "x86vector",
    "xegpu", "xevm", NULL};

/* ---- checking a target: required keys, enums, placeholders, chips ---- */

/* Every value goes into the table's C source: no trigraph, which -std=c11
   would replace even inside a string literal. */
static void check_trigraphs(const target *t, int k) {
  for (const char *p = t->val[k]; (p = strstr(p, "??")); p++)
    if (p[2] && strchr("=(/)'<!>-", p[2]))
      die(t->key_line[k], "'%s': '??%c' is a C trigraph (the table is compiled as C11); write it otherwise",
          keys[k].name, p[2]);
}

/* The '}' that closes the placeholder opened at p ('{'), where an {if:...}'s branches
   may hold placeholders of their own; NULL when none does. */
static const char *close_brace(const char *p) {
  int depth = 0;
  for (; *p; p++) {
    if (*p == '{') depth++;
    else if (*p == '}' && --depth == 0) return p;
  }
  return NULL;
}

/* The ':' after p at the placeholders' top level (not inside a nested {...}), before e. */
static const char *top_colon(const char *p, const char *e) {
  int depth = 0;
  for (; p < e; p++) {
    if (*p == '{') depth++;
    else if (*p == '}') depth--;
    else if (*p == ':' && !depth) return p;
  }
  return NULL;
}

/* Is c (n bytes) a condition of target t's isa_conditions (NAME:GLOB)? */
static int isa_condition(const target *t, const char *c, size_t n) {
  const char *p = t->val[K_isa_conditions], *w;
  size_t m;
  while (p && (w = next_word(&p, &m))) {
    const char *colon = memchr(w, ':', m);
    if (colon && (size_t)(colon - w) == n && !memcmp(w, c, n)) return 1;
  }
  return 0;
}

static void check_template_text(const target *t, int k, const char *allowed, const char *v, const char *end);

/* Each {NAME} of v (up to end) is one of the placeholders its key's line names, or an
   {if:COND:THEN:ELSE} whose THEN and ELSE are such text. */
static void check_template_text(const target *t, int k, const char *allowed, const char *v, const char *end) {
  int line = t->key_line[k];
  for (const char *p = v; p < end && (p = memchr(p, '{', (size_t)(end - p))); p++) {
    if (p + 1 < end && p[1] == '{') { /* {{ is a literal brace */
      p++;
      continue;
    }
    const char *e = close_brace(p);
    if (!e || e >= end) die(line, "'%s': unclosed '{'", keys[k].name);
    const char *name = p + 1;
    size_t n = (size_t)(e - name);
    if (n > 3 && !strncmp(name, "if:", 3)) {
      const char *c = name + 3, *colon = top_colon(c, e), *colon2 = colon ? top_colon(colon + 1, e) : NULL;
      if (!colon || !colon2) die(line, "'%s': {if:COND:THEN:ELSE} needs three parts", keys[k].name);
      size_t cn = (size_t)(colon - c);
      if (!(cn > 1 && (*c == '+' || *c == '-')) && !in_list(conditions, c, cn) && !isa_condition(t, c, cn))
        die(line, "'%s': unknown condition '%.*s' (use +feature, -feature, %s, or a NAME of isa_conditions)",
            keys[k].name, (int)cn, c, list_text(conditions));
      if (memchr(c, ' ', (size_t)(e - c)))
        die(line, "'%s': '{%.*s}' holds a blank (a template's words are split on blanks first)", keys[k].name,
            (int)n, name);
      check_template_text(t, k, allowed, colon + 1, colon2);
      check_template_text(t, k, allowed, colon2 + 1, e);
    } else if (memchr(name, '{', n) || memchr(name, ' ', n)) {
      die(line, "'%s': '{%.*s' is not a placeholder (write a literal brace as {{)", keys[k].name, (int)n, name);
    } else if (!word_in(allowed, name, n)) {
      die(line, "'%s': unknown placeholder '{%.*s}' (this key has: %s)", keys[k].name, (int)n, name, allowed);
    }
    p = e;
  }
}

static void check_template(const target *t, int k, const char *allowed) {
  const char *v = t->val[k];
  check_template_text(t, k, allowed, v, v + strlen(v));
}

/* What the key list says of a value: one of an ENUM's words, an INTEGER in range. */
static void check_value_type(const target *t, int k) {
  const value_type *type = &keys[k].type;
  const char *v = t->val[k];
  if (!v && (type->kind == V_CENUM || type->kind == V_INTEGER))
    die(t->line, "target '%s': key '%s' has no value (src/spec_keys.h gives it no default)", t->name,
        keys[k].name);
  if (!v) return;
  if (type->values && !word_in(type->values, v, strlen(v)))
    die(t->key_line[k], "'%s': unknown value '%s'", keys[k].name, v);
  long n;
  if (type->kind == V_INTEGER && (!plain_number(v, strlen(v), type->max, &n) || n < type->min))
    die(t->key_line[k], "'%s': '%s' is not a number of %s (%ld-%ld, plain digits: no sign or leading zero)",
        keys[k].name, v, type->unit, type->min, type->max);
}

/* Every key as the list has it: the required ones there, the defaults filled in,
   each value of its type; and no value with a trigraph. */
static void check_keys(target *t) {
  for (int k = 0; k < NKEYS; k++)
    if (keys[k].required && (!t->val[k] || !*t->val[k]))
      die(t->line, "target '%s': missing key '%s'", t->name, keys[k].name);
  for (int k = 0; k < NKEYS; k++)
    if (t->val[k]) check_trigraphs(t, k);
  for (int k = 0; k < NKEYS; k++) {
    if (!t->val[k] && keys[k].default_value) t->val[k] = xstrdup(keys[k].default_value);
    check_value_type(t, k);
  }
}

/* Each key of a group (ending in -1) that another key's value needs. */
static void need_keys(const target *t, const int *group, const char *why) {
  for (; *group >= 0; group++)
    if (!t->val[*group] || !*t->val[*group])
      die(t->line, "target '%s': %s needs key '%s'", t->name, why, keys[*group].name);
}

static void check_chip_pairs(const target *t, int k) {
  enum gpublob_spec_form form = keys[k].form;
  const char *p = t->val[k], *w;
  size_t n;
  int chip_must_exist = form == GPUBLOB_SPEC_FORM_CHIP_FEATURE_MIN;
  while ((w = next_word(&p, &n))) {
    const char *colon = memchr(w, ':', n);
    if (!colon || colon == w || colon == w + n - 1)
      die(t->key_line[k], "'%s': '%.*s' is not CHIP:VALUE", keys[k].name, (int)n, w);
    if (chip_must_exist && !word_in(t->val[K_chips], w, (size_t)(colon - w)))
      die(t->key_line[k], "'%s': chip '%.*s' is not in 'chips'", keys[k].name,
          (int)(colon - w), w);
    if ((size_t)(colon - w) > GLOB_MAX_LEN)
      die(t->key_line[k], "'%s': '%.*s' is longer than %d bytes", keys[k].name, (int)(colon - w), w,
          GLOB_MAX_LEN);
    const char *v = colon + 1;
    size_t vn = n - (size_t)(v - w);
    if (form == GPUBLOB_SPEC_FORM_CHIP_FEATURE_MIN) { /* gpublob reads the number after the version feature */
      size_t p = strlen(t->val[K_version_feature]);
      if (vn <= p || vn > FEATURE_MIN_MAX_LEN || strncmp(v, t->val[K_version_feature], p) ||
          !plain_number(v + p, vn - p, 999999, NULL))
        die(t->key_line[k], "'feature_min': '%.*s' is not %sNUMBER (the version_feature, then plain digits)",
            (int)vn, v, t->val[K_version_feature]);
    } else if (form == GPUBLOB_SPEC_FORM_CHIP_VERSION) {
      if (!plain_number(v, vn, 2147483647, NULL))
        die(t->key_line[k], "'chip_version': '%.*s' is not a plain number", (int)vn, v);
    } else if (form == GPUBLOB_SPEC_FORM_CHIP_ABI) {
      const char *versions = t->val[K_abi_versions] ? t->val[K_abi_versions] : "";
      if (!plain_number(v, vn, 1000000, NULL) || !word_in(versions, v, vn))
        die(t->key_line[k], "'abi_min': '%.*s' is not one of 'abi_versions'", (int)vn, v);
    } else if (form == GPUBLOB_SPEC_FORM_ABI_TOOL) {
      const char *versions = t->val[K_abi_versions] ? t->val[K_abi_versions] : "";
      if (!plain_number(v, vn, 1000000, NULL) || !word_in(versions, w, (size_t)(colon - w)))
        die(t->key_line[k], "'abi_tool_min': '%.*s' is not ABI:VERSION (an ABI of 'abi_versions', a plain number)",
            (int)n, w);
    } else if (form == GPUBLOB_SPEC_FORM_CHIP_CHIP) {
      if (word_in(t->val[K_chips], w, (size_t)(colon - w)) && !word_in(t->val[K_chips], v, vn))
        die(t->key_line[k], "'mlir_lower_chip': '%.*s' is not in 'chips'", (int)vn, v);
    } else if (form == GPUBLOB_SPEC_FORM_CHIP_MODIFIER) {
      for (size_t i = 0; i < vn; i++)
        if (!isalnum((unsigned char)v[i]) && v[i] != '-' && v[i] != '_')
          die(t->key_line[k], "'chip_modifiers': '%.*s' is not a feature name (no sign)", (int)vn, v);
    } else if (vn < 2 || (*v != '+' && *v != '-')) { /* chip_features */
      die(t->key_line[k], "'%s': '%.*s' is not +feature or -feature", keys[k].name, (int)vn, v);
    }
  }
}

/* NAME=BEHAVIOUR:VALUE, where VALUE is a plain number or {if:COND:NUMBER:NUMBER};
   gpublob reads it with strtol(.., 0), where 010 would be 8 and 0x10 16.  Key k is
   module_flags or mlir_module_flags (an MLIR input's job's, in its place). */
static void check_module_flags(const target *t, int k) {
  const char *p = t->val[k], *w, *key = keys[k].name;
  int line = t->key_line[k];
  size_t n;
  while ((w = next_word(&p, &n))) {
    const char *eq = memchr(w, '=', n), *colon = eq ? memchr(eq, ':', n - (size_t)(eq - w)) : NULL;
    if (!eq || !colon || eq == w || colon == w + n - 1)
      die(line, "'%s': '%.*s' is not NAME=BEHAVIOUR:VALUE", key, (int)n, w);
    size_t bn = (size_t)(colon - eq - 1);
    if (in_list(metadata_behaviours, eq + 1, bn))
      die(line, "'%s': behaviour '%.*s' needs a metadata value, and gpublob adds an i32 "
          "(use error, warning or override)", key, (int)bn, eq + 1);
    if (!in_list(flag_behaviours, eq + 1, bn))
      die(line, "'%s': unknown behaviour '%.*s'", key, (int)bn, eq + 1);
    const char *v = colon + 1, *end = w + n;
    size_t vn = (size_t)(end - v);
    int ok = plain_number(v, vn, 2147483647, NULL);
    if (!ok && vn > 5 && !strncmp(v, "{if:", 4) && end[-1] == '}') {
      const char *c1 = memchr(v + 4, ':', vn - 5), *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(end - c1 - 2)) : NULL;
      ok = c2 && !memchr(v + 1, '{', vn - 1) && !memchr(v, '}', vn - 1) &&
           plain_number(c1 + 1, (size_t)(c2 - c1 - 1), 2147483647, NULL) &&
           plain_number(c2 + 1, (size_t)(end - c2 - 2), 2147483647, NULL);
      size_t cn = c1 ? (size_t)(c1 - v - 4) : 0;
      if (ok && !(cn > 1 && (v[4] == '+' || v[4] == '-')) && !in_list(conditions, v + 4, cn))
        die(line, "'%s': unknown condition '%.*s' (use +feature, -feature, %s)", key, (int)cn, v + 4,
            list_text(conditions));
    }
    static const char *const numeric[] = {"abi", "chipversion", "opt", NULL};
    if (!ok && vn > 2 && v[0] == '{' && end[-1] == '}' && in_list(numeric, v + 1, vn - 2)) {
      ok = 1; /* a whole placeholder, such as {abi} */
      if (!strncmp(v, "{abi}", vn) && (!t->val[K_abi] || !*t->val[K_abi]))
        die(line, "'%s': {abi} needs key 'abi'", key);
    }
    if (!ok)
      die(line, "'%s': value '%.*s' is not a plain number (0 to 2147483647, no sign or "
          "leading zero), {if:COND:NUMBER:NUMBER} or one number's placeholder ({abi}, {chipversion}, {opt})",
          key, (int)vn, v);
  }
}

/* Magic bytes: an even number of hex digits, at most 32 bytes (an offload bundle's is 24). */
static void check_hex(const target *t, int k) {
  const char *v = t->val[k];
  if (!v) return;
  size_t n = strlen(v);
  for (size_t i = 0; i < n; i++)
    if (!isxdigit((unsigned char)v[i]))
      die(t->key_line[k], "'%s': '%s' is not hex digits", keys[k].name, v);
  if (!n || n % 2 || n > 64)
    die(t->key_line[k], "'%s': '%s' is not 1 to 32 whole bytes of hex", keys[k].name, v);
}

/* An in-process provider stands in for an exec tool, and needs its library unless it
   is linked into gpublob. */
static void check_provider(const target *t) {
  if (!strcmp(t->val[K_provider], "none")) return;
  if (strcmp(t->val[K_tool_kind], "exec"))
    die(t->key_line[K_provider], "target '%s': a provider stands in for tool_kind exec", t->name);
  char why[128];
  snprintf(why, sizeof why, "provider %s", t->val[K_provider]);
  if (strcmp(t->val[K_provider_from], "linked")) need_keys(t, provider_keys, why);
}

/* Calling-convention names become LLVM's numbers; a number is taken as it is. */
static int cc_value(const char *w, size_t n) {
  for (int i = 0; calling_conventions[i].name; i++)
    if (strlen(calling_conventions[i].name) == n && !strncmp(w, calling_conventions[i].name, n))
      return calling_conventions[i].value;
  long num;
  if (plain_number(w, n, 1023, &num) && num > 0) return (int)num;
  return -1;
}

static void check_entry_cc(target *t, int k) {
  if (!t->val[k]) return;
  const char *p = t->val[k], *w;
  size_t n;
  while ((w = next_word(&p, &n)))
    if (cc_value(w, n) < 0)
      die(t->key_line[k], "'entry_cc': unknown calling convention '%.*s' (known: ptx_kernel, "
          "spir_kernel, amdgpu_kernel, or LLVM's number, 1-1023 in plain digits)", (int)n, w);
  /* each word becomes a number no longer than it, so the list fits in its own length */
  char *out = malloc(strlen(t->val[k]) + 1);
  if (!out) die(0, "out of memory");
  out[0] = 0;
  p = t->val[k];
  size_t len = 0;
  while ((w = next_word(&p, &n))) len += (size_t)sprintf(out + len, "%s%d", len ? " " : "", cc_value(w, n));
  free(t->val[k]);
  t->val[k] = out;
}

/* {images} is a word of pack_argv's own: gpublob replaces it only so. */
static void check_images_word(const target *t) {
  if (!word_in(t->val[K_pack_argv], "{images}", 8))
    die(t->key_line[K_pack_argv], "'pack_argv' has no {images} word");
  const char *p = t->val[K_pack_argv], *w;
  size_t wn;
  while ((w = next_word(&p, &wn)))
    for (size_t i = 0; wn != 8 && i + 8 <= wn; i++)
      if (!strncmp(w + i, "{images}", 8))
        die(t->key_line[K_pack_argv], "'pack_argv': {images} stands for words of its own; '%.*s' "
            "would keep it as it is", (int)wn, w);
}

/* pack_target is one entry's id: one word, no comma ({targets} joins the ids with
   commas), and naming its chip, so that no two entries of a pack have one id. */
static void check_pack_target(const target *t) {
  const char *v = t->val[K_pack_target];
  if (strpbrk(v, " \t,"))
    die(t->key_line[K_pack_target], "'pack_target': an entry's id is one word without a comma: '%s'", v);
  if (!strstr(v, "{chip}") && !strstr(v, "{chipid}") && !strstr(v, "{targetid}"))
    die(t->key_line[K_pack_target], "'pack_target': '%s' names no chip ({chip}, {chipid} or {targetid}), so every "
        "entry of a pack would have the same id", v);
}

static int has_value(const target *t, int k) { return t->val[k] && *t->val[k]; }

/* The pack step: a program (pack_tool, pack_argv, pack_image together), an
   in-process pack provider, or both; a suffix; the assembly image needs assembly
   and the program; {targets} needs pack_target. */
static void check_pack(target *t) {
  int n = 0, provider = t->val[K_pack_provider] && strcmp(t->val[K_pack_provider], "none");
  for (const int *k = pack_keys; *k >= 0; k++) n += has_value(t, *k);
  if (!n && !provider) return;
  if (has_value(t, K_pack_provider_argv) && !provider)
    die(t->key_line[K_pack_provider_argv], "'pack_provider_argv' needs a 'pack_provider'");
  int program = has_value(t, K_pack_tool) || has_value(t, K_pack_argv) || has_value(t, K_pack_image);
  if (program || !provider) need_keys(t, pack_program_keys, "packing with a program");
  if (!has_value(t, K_suffix_pack)) die(t->line, "target '%s': packing needs key 'suffix_pack'", t->name);
  if (provider && !has_value(t, K_pack_target))
    die(t->key_line[K_pack_provider], "target '%s': pack_provider %s needs key 'pack_target' (each entry's id)",
        t->name, t->val[K_pack_provider]);
  if (has_value(t, K_pack_asm_image) && strcmp(t->val[K_emit], "asm"))
    die(t->key_line[K_pack_asm_image], "'pack_asm_image' needs emit = asm");
  if (has_value(t, K_pack_asm_image) && provider)
    die(t->key_line[K_pack_asm_image], "'pack_asm_image': pack_provider %s packs the chips' blobs only",
        t->val[K_pack_provider]);
  if (has_value(t, K_pack_target)) check_pack_target(t);
  if (!program) return;
  check_images_word(t);
  if (strstr(t->val[K_pack_argv], "{targets}") && !has_value(t, K_pack_target))
    die(t->key_line[K_pack_argv], "'pack_argv': {targets} needs key 'pack_target'");
  if (!has_value(t, K_tool_search))
    die(t->line, "target '%s': the pack tool is searched in 'tool_search', which is empty", t->name);
}

/* The kernel metadata readers: a pack's reader reads its members with 'metadata',
   so it needs one, and a pack step with the suffix its outputs carry. */
static void check_metadata(const target *t) {
  if (!t->val[K_pack_metadata] || !strcmp(t->val[K_pack_metadata], "none")) return;
  if (!t->val[K_metadata] || !strcmp(t->val[K_metadata], "none"))
    die(t->key_line[K_pack_metadata], "'pack_metadata': reading a pack's members needs key 'metadata'");
  if (!has_value(t, K_suffix_pack))
    die(t->key_line[K_pack_metadata], "'pack_metadata' needs a pack step (key 'suffix_pack')");
}

static int same_letters(const char *a, const char *b, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (tolower((unsigned char)a[i]) != tolower((unsigned char)b[i])) return 0;
  return 1;
}

/* llvm_target names a backend: LLVMInitialize<it>Target and its llvm-config
   component (lower case) must exist, so the case is LLVM's. */
static void check_llvm_target(const target *t, int k) {
  const char *v = t->val[k];
  int line = t->key_line[k];
  for (const char *c = v; *c; c++)
    if (!isalnum((unsigned char)*c) && *c != '_')
      die(line, "'llvm_target': '%s' is not an LLVM target name", v);
  const char *hint = "";
  char like[64] = "";
  if (built_targets) {
    if (!word_in(built_targets, v, strlen(v))) {
      const char *p = built_targets, *w;
      size_t n;
      while ((w = next_word(&p, &n)))
        if (n == strlen(v) && same_letters(w, v, n)) snprintf(like, sizeof like, "%.*s", (int)n, w);
      if (*like) hint = "; did you mean ";
      die(line, "'llvm_target': '%s' is not a backend of this LLVM (--llvm-targets: %s)%s%s%s", v,
          built_targets, hint, like, *like ? "?" : "");
    }
  } else if (!in_list(llvm22_targets, v, strlen(v))) {
    for (int i = 0; llvm22_targets[i]; i++)
      if (strlen(llvm22_targets[i]) == strlen(v) && same_letters(llvm22_targets[i], v, strlen(v))) snprintf(like, sizeof like, "%s", llvm22_targets[i]);
    if (*like) hint = "; did you mean ";
    die(line, "'llvm_target': unknown LLVM target '%s' (LLVM 22 has: %s)%s%s%s", v,
        list_text(llvm22_targets), hint, like, *like ? "?" : "");
  }
}

/* Each dialect becomes a call of mlirGetDialectHandle__NAME__(): it must exist. */
static void check_mlir_dialects(const target *t, int k) {
  const char *p = t->val[k], *w;
  size_t n;
  while ((w = next_word(&p, &n))) {
    for (size_t i = 0; i < n; i++)
      if (!ident_char((unsigned char)w[i], 0))
        die(t->key_line[k], "'mlir_dialects': '%.*s' is not a dialect name "
            "(lower-case letters, digits and '_')", (int)n, w);
    if (!in_list(mlir_handles, w, n))
      die(t->key_line[k], "'mlir_dialects': '%.*s' is not an MLIR dialect with a C API "
          "handle in LLVM 22 (known: %s)", (int)n, w, list_text(mlir_handles));
  }
}

/* The chips and features: the default chip among the chips; feature_min's version. */
static void check_chips(const target *t) {
  if (!word_in(t->val[K_chips], t->val[K_chip], strlen(t->val[K_chip])))
    die(t->key_line[K_chip], "default chip '%s' is not in 'chips'", t->val[K_chip]);
  if (t->val[K_feature_min]) {
    if (!t->val[K_version_feature] || !*t->val[K_version_feature])
      die(t->key_line[K_feature_min], "'feature_min' needs 'version_feature'");
  }
  if (t->val[K_mlir_chip] && !word_in(t->val[K_chips], t->val[K_mlir_chip], strlen(t->val[K_mlir_chip])))
    die(t->key_line[K_mlir_chip], "'mlir_chip': '%s' is not in 'chips'", t->val[K_mlir_chip]);
}

/* Every chip has a version, given once (k: chip_version's form). */
static void check_chip_versions(const target *t, int k) {
  check_chip_pairs(t, k); /* an inheriting target may have fewer chips */
  const char *p = t->val[K_chips], *w;
  size_t n;
  while ((w = next_word(&p, &n))) {
    int count = 0;
    const char *q = t->val[k], *u;
    size_t m;
    while ((u = next_word(&q, &m))) count += m > n && u[n] == ':' && !memcmp(u, w, n);
    if (count != 1)
      die(t->key_line[k], "'%s': chip '%.*s' has %s", keys[k].name, (int)n, w,
          count ? "more than one version" : "no version");
  }
}

/* Words no longer than max bytes. */
static void check_lengths(const target *t, int k, size_t max) {
  const char *p = t->val[k], *w;
  size_t n;
  while ((w = next_word(&p, &n)))
    if (n > max) die(t->key_line[k], "'%s': '%.*s' is longer than %d bytes", keys[k].name, (int)n, w, (int)max);
}

/* Plain numbers. */
static void check_numbers(const target *t, int k) {
  const char *p = t->val[k], *w;
  size_t n;
  while ((w = next_word(&p, &n)))
    if (!plain_number(w, n, 1000000, NULL))
      die(t->key_line[k], "'%s': '%.*s' is not a plain number", keys[k].name, (int)n, w);
}

/* abi in abi_versions; abi_min and abi_tool_min need it. */
static void check_abi(const target *t) {
  const char *abi = t->val[K_abi];
  int has_abi = abi && *abi;
  if (has_abi && !word_in(t->val[K_abi_versions] ? t->val[K_abi_versions] : "", abi, strlen(abi)))
    die(t->key_line[K_abi], "'abi': '%s' is not one of 'abi_versions'", abi);
  if (!has_abi && t->val[K_abi_versions] && *t->val[K_abi_versions])
    die(t->key_line[K_abi_versions], "'abi_versions' needs 'abi' (the default)");
  const char *mabi = t->val[K_mlir_abi];
  if (mabi && *mabi && !word_in(t->val[K_abi_versions] ? t->val[K_abi_versions] : "", mabi, strlen(mabi)))
    die(t->key_line[K_mlir_abi], "'mlir_abi': '%s' is not one of 'abi_versions'", mabi);
  if (t->val[K_abi_min] && *t->val[K_abi_min]) {
    if (!has_abi) die(t->key_line[K_abi_min], "'abi_min' needs 'abi'");
  }
  if (t->val[K_abi_tool_min] && *t->val[K_abi_tool_min]) {
    if (!has_abi) die(t->key_line[K_abi_tool_min], "'abi_tool_min' needs 'abi'");
    if (!t->val[K_tool_version] || !*t->val[K_tool_version])
      die(t->key_line[K_abi_tool_min], "'abi_tool_min' needs 'tool_version'");
  }
}

/* NAME:TYPE=VALUE, TYPE i8 i16 i32 i64, NAME a symbol; VALUE a template (checked apart). */
static void check_constants(const target *t, int k) {
  const char *p = t->val[k], *w;
  size_t n;
  while ((w = next_word(&p, &n))) {
    const char *colon = memchr(w, ':', n), *eq = colon ? memchr(colon, '=', n - (size_t)(colon - w)) : NULL;
    static const char *const types[] = {"i8", "i16", "i32", "i64", NULL};
    size_t tn = eq ? (size_t)(eq - colon - 1) : 0;
    const char *v = eq ? eq + 1 + (eq + 1 < w + n && eq[1] == '=') : NULL;
    if (!eq || colon == w || v >= w + n || !in_list(types, colon + 1, tn))
      die(t->key_line[k], "'constants': '%.*s' is not NAME:TYPE=VALUE or NAME:TYPE==VALUE (TYPE i8, "
          "i16, i32 or i64)", (int)n, w);
    const char *q = t->val[k], *u;
    size_t m;
    while ((u = next_word(&q, &m)) && u != w)
      if (memchr(u, ':', m) && (size_t)((const char *)memchr(u, ':', m) - u) == (size_t)(colon - w) &&
          !memcmp(u, w, (size_t)(colon - w)))
        die(t->key_line[k], "'constants': '%.*s' is given twice", (int)(colon - w), w);
    for (const char *c = w; c < colon; c++)
      if (!isalnum((unsigned char)*c) && *c != '_' && *c != '.' && *c != '$')
        die(t->key_line[k], "'constants': '%.*s' is not a symbol name", (int)(colon - w), w);
  }
}

/* FLAG:EFFECT, EFFECT a +feature, a -feature, or an option (a math mode). */
static void check_mlir_flags(const target *t, int k) {
  const char *p = t->val[k], *w;
  size_t n;
  while ((w = next_word(&p, &n))) {
    const char *colon = memchr(w, ':', n), *e = colon ? colon + 1 : NULL;
    size_t en = e ? n - (size_t)(e - w) : 0;
    if (!colon || colon == w || !en ||
        !((en > 1 && (*e == '+' || *e == '-')) || in_list(flag_options, e, en) || in_list(flag_effects, e, en)))
      die(t->key_line[k], "'mlir_flags': '%.*s' is not FLAG:+feature, FLAG:-feature, FLAG:OPTION "
          "(OPTION one of %s) or FLAG:EFFECT (EFFECT tool-options or tool-log)", (int)n, w,
          list_text(flag_options));
    const char *q = t->val[k], *u;
    size_t m;
    while ((u = next_word(&q, &m)) && u != w)
      if (m > (size_t)(colon - w) && u[colon - w] == ':' && !memcmp(u, w, (size_t)(colon - w)))
        die(t->key_line[k], "'mlir_flags': flag '%.*s' is given twice", (int)(colon - w), w);
  }
}

/* Every template key of src/spec_keys.h (TEMPLATE) that the target gives a value. */
static void check_templates(const target *t) {
  for (int k = 0; k < NKEYS; k++)
    if (keys[k].type.placeholders && t->val[k]) check_template(t, k, keys[k].type.placeholders);
}

/* libm_float and libm_double make one function name from {name}. */
static void check_function_name(const target *t, int k) {
  const char *v = t->val[k];
  if (*v && (!strstr(v, "{name}") || strpbrk(v, " \t")))
    die(t->key_line[k], "'%s': '%s' is not one function name made from {name} (the C function's "
        "double name: __nv_{name}f)", keys[k].name, v);
}

/* A libm_intrinsics word is a glob, perhaps with the one condition !afn after it. */
static void check_intrinsic_globs(const target *t, int k) {
  const char *p = t->val[k], *w;
  size_t n;
  while ((w = next_word(&p, &n))) {
    const char *bang = memchr(w, '!', n);
    size_t glob = bang ? (size_t)(bang - w) : n;
    if ((bang && (n - glob != 4 || strncmp(bang, "!afn", 4))) || !glob || glob > GLOB_MAX_LEN)
      die(t->key_line[k], "'%s': '%.*s' is not a glob of intrinsic names (after "
          "llvm., at most %d bytes), perhaps followed by !afn", keys[k].name, (int)n, w, GLOB_MAX_LEN);
  }
}

/* unsupported_types names LLVM's floating-point types (the core's type_kind_name). */
static void check_unsupported_types(const target *t, int k) {
  static const char *const kinds[] = {"half", "bfloat", "float", "double", "fp128", "x86_fp80", "ppc_fp128", NULL};
  const char *p = t->val[k], *w;
  size_t n;
  while (p && (w = next_word(&p, &n)))
    if (!in_list(kinds, w, n))
      die(t->key_line[k], "'unsupported_types': '%.*s' is not one of half bfloat float double "
          "fp128 x86_fp80 ppc_fp128", (int)n, w);
}

/* bin_chip: "object", or "flags:SHIFT:MASK" with SHIFT below 32 and MASK from 1 up. */
static void check_bin_chip(const target *t, int k) {
  const char *v = t->val[k];
  if (!v || !*v || !strcmp(v, "object")) return;
  unsigned shift, mask;
  char end;
  if (sscanf(v, "flags:%u:%u%c", &shift, &mask, &end) != 2 || shift > 31 || !mask)
    die(t->key_line[k], "'bin_chip': '%s' is not 'object' or 'flags:SHIFT:MASK' (SHIFT 0 to 31, "
        "MASK from 1)", v);
}

/* The occupancy_* keys (src/occupancy.c), by their form: GLOB:N words, plain numbers;
   GLOB:N or GLOB:N,M; GLOB:S=W,...,W ending in a W; GLOB:FEATURE. */
static void check_glob_pairs(const target *t, int k) {
  enum gpublob_spec_form form = keys[k].form;
  const char *p = t->val[k], *w;
  size_t n;
  while ((w = next_word(&p, &n))) {
    const char *colon = memchr(w, ':', n);
    if (!colon || colon == w || colon == w + n - 1)
      die(t->key_line[k], "'%s': '%.*s' is not GLOB:VALUE", keys[k].name, (int)n, w);
    const char *v = colon + 1, *end = w + n;
    int ok = 1;
    if (form == GPUBLOB_SPEC_FORM_GLOB_FEATURE) {
      for (const char *c = v; c < end; c++) ok &= isalnum((unsigned char)*c) || *c == '-' || *c == '_';
    } else {
      int parts = 0, last_plain = 0;
      for (const char *q = v; q < end && ok; parts++) {
        const char *comma = memchr(q, ',', (size_t)(end - q)), *stop = comma ? comma : end;
        const char *eq = form == GPUBLOB_SPEC_FORM_GLOB_STEPS ? memchr(q, '=', (size_t)(stop - q)) : NULL;
        ok = eq ? plain_number(q, (size_t)(eq - q), 1000000, NULL) && plain_number(eq + 1, (size_t)(stop - eq - 1), 1000000, NULL)
                : plain_number(q, (size_t)(stop - q), 2147483647, NULL);
        last_plain = !eq;
        q = comma ? comma + 1 : end;
        if (comma && comma + 1 == end) ok = 0;
      }
      if (form == GPUBLOB_SPEC_FORM_GLOB_STEPS) ok &= last_plain;
      else if (form == GPUBLOB_SPEC_FORM_GLOB_N_M) ok &= parts <= 2;
      else ok &= parts == 1;
    }
    if (!ok)
      die(t->key_line[k], "'%s': '%.*s' is not %s", keys[k].name, (int)n, w,
          form == GPUBLOB_SPEC_FORM_GLOB_STEPS ? "GLOB:S=W,...,W (plain numbers, the last a W alone)"
          : form == GPUBLOB_SPEC_FORM_GLOB_N_M ? "GLOB:N or GLOB:N,M (plain numbers)"
          : form == GPUBLOB_SPEC_FORM_GLOB_FEATURE ? "GLOB:FEATURE (a feature name, no sign)" : "GLOB:N (a plain number)");
  }
}

/* --as clang's keys (LANG:MODE, LANG:WORD) and isa_conditions (NAME:GLOB), by their
   form: each word a pair with both halves; a mode one of on, fast, off; an LLVM
   option starting with '-'; a condition's name none of the built-in ones, nor a
   feature's (+x, -x). */
static void check_lang_pairs(const target *t, int k) {
  static const char *const modes[] = {"on", "fast", "off", NULL};
  enum gpublob_spec_form form = keys[k].form;
  const char *p = t->val[k], *w;
  size_t n;
  while ((w = next_word(&p, &n))) {
    const char *colon = memchr(w, ':', n), *v = colon ? colon + 1 : NULL;
    size_t ln = colon ? (size_t)(colon - w) : 0, vn = colon ? n - ln - 1 : 0;
    int ok = colon && ln && vn;
    if (ok && form == GPUBLOB_SPEC_FORM_LANG_MODE) ok = in_list(modes, v, vn);
    if (ok && form == GPUBLOB_SPEC_FORM_LANG_OPTION) ok = *v == '-' && vn > 1;
    if (ok && form == GPUBLOB_SPEC_FORM_NAME_GLOB)
      ok = *w != '+' && *w != '-' && !in_list(conditions, w, ln) && !memchr(w, '{', n) && !memchr(w, '}', n);
    if (!ok)
      die(t->key_line[k], "'%s': '%.*s' is not %s", keys[k].name, (int)n, w,
          form == GPUBLOB_SPEC_FORM_LANG_MODE ? "LANG:MODE (MODE on, fast or off)"
          : form == GPUBLOB_SPEC_FORM_LANG_OPTION ? "LANG:-OPTION (an LLVM option, -NAME or -NAME=VALUE)"
          : "NAME:GLOB (NAME no built-in condition, +feature or -feature; no brace)");
  }
}

/* Key k's value (not NULL) by its form (src/spec_keys.h's FORM). */
static void check_form(target *t, int k) {
  switch (keys[k].form) {
  case GPUBLOB_SPEC_FORM_NONE: break;
  case GPUBLOB_SPEC_FORM_CHIP_FEATURE:
  case GPUBLOB_SPEC_FORM_CHIP_MODIFIER:
  case GPUBLOB_SPEC_FORM_CHIP_FEATURE_MIN:
  case GPUBLOB_SPEC_FORM_CHIP_CHIP: check_chip_pairs(t, k); break;
  case GPUBLOB_SPEC_FORM_CHIP_ABI: /* an empty one says nothing */
  case GPUBLOB_SPEC_FORM_ABI_TOOL:
    if (*t->val[k]) check_chip_pairs(t, k);
    break;
  case GPUBLOB_SPEC_FORM_CHIP_VERSION:
    if (*t->val[k]) check_chip_versions(t, k);
    break;
  case GPUBLOB_SPEC_FORM_GLOB_N:
  case GPUBLOB_SPEC_FORM_GLOB_N_M:
  case GPUBLOB_SPEC_FORM_GLOB_STEPS:
  case GPUBLOB_SPEC_FORM_GLOB_FEATURE: check_glob_pairs(t, k); break;
  case GPUBLOB_SPEC_FORM_LANG_MODE:
  case GPUBLOB_SPEC_FORM_LANG_OPTION:
  case GPUBLOB_SPEC_FORM_NAME_GLOB: check_lang_pairs(t, k); break;
  case GPUBLOB_SPEC_FORM_MODULE_FLAGS: check_module_flags(t, k); break;
  case GPUBLOB_SPEC_FORM_HEX: check_hex(t, k); break;
  case GPUBLOB_SPEC_FORM_BIN_CHIP: check_bin_chip(t, k); break;
  case GPUBLOB_SPEC_FORM_NAMES: check_lengths(t, k, NAME_MAX_LEN); break;
  case GPUBLOB_SPEC_FORM_GLOBS: check_lengths(t, k, GLOB_MAX_LEN); break;
  case GPUBLOB_SPEC_FORM_NUMBERS: check_numbers(t, k); break;
  case GPUBLOB_SPEC_FORM_CONSTANTS: check_constants(t, k); break;
  case GPUBLOB_SPEC_FORM_MLIR_FLAGS: check_mlir_flags(t, k); break;
  case GPUBLOB_SPEC_FORM_DIALECTS: check_mlir_dialects(t, k); break;
  case GPUBLOB_SPEC_FORM_CALLING_CONVENTIONS: check_entry_cc(t, k); break;
  case GPUBLOB_SPEC_FORM_FUNCTION_NAME: check_function_name(t, k); break;
  case GPUBLOB_SPEC_FORM_INTRINSIC_GLOBS: check_intrinsic_globs(t, k); break;
  case GPUBLOB_SPEC_FORM_FLOAT_TYPES: check_unsupported_types(t, k); break;
  case GPUBLOB_SPEC_FORM_LLVM_TARGET: check_llvm_target(t, k); break;
  }
}

static void check_target(target *t) {
  check_keys(t);
  if (!strcmp(t->val[K_tool_kind], "exec")) need_keys(t, exec_keys, "tool_kind exec");
  if (!strcmp(t->val[K_tool_kind], "asked")) need_keys(t, exec_keys, "tool_kind asked");
  if (!strcmp(t->val[K_asm_parser], "yes") && in_list(no_asm_parser, t->val[K_llvm_target],
                                                      strlen(t->val[K_llvm_target])))
    die(t->key_line[K_asm_parser], "'asm_parser': LLVM's %s backend has no assembly parser",
        t->val[K_llvm_target]);
  check_provider(t);
  check_pack(t);
  check_metadata(t);
  if (t->val[K_libs] && *t->val[K_libs] && (!t->val[K_lib_search] || !*t->val[K_lib_search]))
    die(t->key_line[K_libs], "target '%s': 'libs' needs 'lib_search'", t->name);
  check_chips(t);
  if (!strcmp(t->val[K_mlir_lib_link], "always") && (!t->val[K_libs] || !*t->val[K_libs]))
    die(t->key_line[K_mlir_lib_link], "target '%s': 'mlir_lib_link = always' needs 'libs'", t->name);
  check_abi(t);
  if (strcmp(t->val[K_occupancy], "none") && (!t->val[K_occupancy_regs] || !*t->val[K_occupancy_regs]))
    die(t->key_line[K_occupancy], "target '%s': occupancy %s needs key 'occupancy_regs'", t->name, t->val[K_occupancy]);
  for (int k = 0; k < NKEYS; k++)
    if (t->val[k]) check_form(t, k);
  check_templates(t);
}

/* Checks across targets: an MLIR target attribute selects one target. */
void check_all(void) {
  for (int i = 0; i < ntargets; i++) check_target(&targets[i]);
  for (int i = 0; i < ntargets; i++)
    for (int k = 0; k < i; k++)
      if (targets[i].val[K_mlir_target] && *targets[i].val[K_mlir_target] && targets[k].val[K_mlir_target] &&
          !strcmp(targets[i].val[K_mlir_target], targets[k].val[K_mlir_target]))
        die(targets[i].key_line[K_mlir_target], "'mlir_target': '%s' is target '%s''s too (line %d); "
            "the attribute would select only that one", targets[i].val[K_mlir_target], targets[k].name,
            targets[k].key_line[K_mlir_target]);
}
