/* specgen: turn the target spec (targets/targets.spec) into the table gpublob.c includes.
**
**   specgen [--llvm-targets LIST] SPEC OUT.def   write the table (DO NOT EDIT output)
**   specgen [--llvm-targets LIST] --llvm-components SPEC
**                                     print the LLVM components its backends need
**   specgen [--llvm-targets LIST] --unused-backends SPEC OUT.c
**                                     write no-op LLVMInitialize* functions for
**                                     each backend of LIST the spec names not
**
** --llvm-targets "NVPTX AMDGPU ...": the backends this LLVM was built with
** (llvm-config --targets-built); an llvm_target outside it is refused.  Without
** it, or with an empty list, LLVM 22's own list of targets is the limit.
**
** The keys a target may hold are the list of src/spec_keys.h, which the core
** declares target_desc's fields from too: the table is a target_desc's designated
** initialisers per target (write_table says what else it holds), and its digest,
** the spec's part of the cache's keys, is the XXH3-128 of those entries.  A target
** whose first key is `inherit = NAME` starts as a copy of the earlier target NAME.
**
** Errors are printed as `file:line: message` and exit with status 1; no
** output file is left behind then.  Build: cc -std=c11 -o specgen specgen.c
** (xxhash.h, header only: libxxhash-dev).  The one-file form of the core
** (build/vendor/gpublob.c) is another program's: tools/amalgamate.c.
**
** Built with -DSPECGEN_LIBRARY there is no main(): specgen_run() parses and
** checks a spec held in memory, an error returns (longjmp) instead of exiting,
** and specgen_reset() frees the state, so that a fuzzer can run it many times.
*/
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL /* header only: specgen is built alone */
#include <xxhash.h>

/* ---- the keys a target section may hold: the list of src/spec_keys.h ---- */
#include "../src/spec_keys.h"

enum value_kind { V_STRING, V_LIST, V_ENUM, V_CENUM, V_INTEGER };

typedef struct value_type {
  int kind;
  const char *values; /* ENUM, CENUM: the words a value may be */
  const char *prefix; /* CENUM: of the C constants */
  long min, max;      /* INTEGER */
  const char *unit;   /* INTEGER: what it counts */
  const char *placeholders; /* TEMPLATE: the {NAME}s it expands; NULL: no template */
} value_type;

typedef struct key_info {
  const char *name;
  int required;
  const char *default_value; /* of a target without the key; NULL: none */
  value_type type;
} key_info;

/* A key's PRESENCE and TYPE, each named by its word (applied to its arguments). */
#define SPEC_REQUIRED_REQUIRED 1
#define SPEC_REQUIRED_OPTIONAL 0
#define SPEC_REQUIRED_DEFAULT(value) 0
#define SPEC_DEFAULT_VALUE_REQUIRED NULL
#define SPEC_DEFAULT_VALUE_OPTIONAL NULL
#define SPEC_DEFAULT_VALUE_DEFAULT(value) value
#define SPEC_KIND_STRING V_STRING
#define SPEC_KIND_LIST V_LIST
#define SPEC_TYPE_STRING {.kind = V_STRING}
#define SPEC_TYPE_LIST {.kind = V_LIST}
#define SPEC_TYPE_TEMPLATE(type, words) {.kind = SPEC_KIND_##type, .placeholders = words}
#define SPEC_TYPE_ENUM(words) {.kind = V_ENUM, .values = GPUBLOB_SPEC_WORDS(words)}
#define SPEC_TYPE_CENUM(tag, constant_prefix, words) \
  {.kind = V_CENUM, .values = GPUBLOB_SPEC_WORDS(words), .prefix = #constant_prefix}
#define SPEC_TYPE_INTEGER(lo, hi, what) {.kind = V_INTEGER, .min = lo, .max = hi, .unit = what}

#define KEY_INFO(key, presence, type, doc) \
  {#key, SPEC_REQUIRED_##presence, SPEC_DEFAULT_VALUE_##presence, SPEC_TYPE_##type},
static const key_info keys[] = {GPUBLOB_SPEC_KEYS(KEY_INFO)};

enum {
#define KEY_ENUM(key, presence, type, doc) K_##key,
  GPUBLOB_SPEC_KEYS(KEY_ENUM) NKEYS
};

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
static const char *const conditions[] = {"ftz", "fast-math", "O0", "daz", "finite-only", "unsafe-math",
                                         "unsafe-sqrt", NULL};
/* What a flag of an MLIR target attribute may set besides a feature (mlir_flags). */
static const char *const flag_options[] = {"ftz", "fast-math", "daz", "finite-only", "unsafe-math",
                                           "unsafe-sqrt", NULL};
/* What else an mlir_flags FLAG may do (src/mlir_plan.c): add its strings to the blob
** tool's options, or keep the tool's log in the object's properties. */
static const char *const flag_effects[] = {"tool-options", "tool-log", NULL};

/* LLVM 22's targets: LLVM_ALL_TARGETS and LLVM_ALL_EXPERIMENTAL_TARGETS of
   llvm/CMakeLists.txt; llvm-config-22 --targets-built on Debian's LLVM 22 lists
   the first 20 and M68k and Xtensa.  A build's own list comes with --llvm-targets. */
static const char *const llvm22_targets[] = {
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
/* The dialects every lowering needs, declared whatever the spec says. */
static const char *const base_dialects[] = {"gpu", "llvm", "cf", "arith", "memref", "scf", "math", NULL};

/* gpublob.c keeps a target's name, a chip and a feature in char[64] buffers,
   and a glob pattern and a versioned feature's minimum in char[128] and char[32]. */
enum { NAME_MAX_LEN = 63, GLOB_MAX_LEN = 127, FEATURE_MIN_MAX_LEN = 31 };

#define MAX_TARGETS 64
#define MAX_LINE 4094 /* bytes of one line, not counting its newline */

typedef struct target {
  char *name;
  int line;
  char *inherit;    /* inherit = NAME: the earlier target it starts as a copy of, or NULL */
  int inherit_line;
  char *val[NKEYS];
  int key_line[NKEYS]; /* where the value is written; an inherited one's: the inherit line */
} target;

static const char *spec_path;
static target targets[MAX_TARGETS];
static int ntargets;
static const char *built_targets; /* --llvm-targets: blank-separated, or NULL */

/* ---- errors: file:line: message, then exit 1 (or, in the library, return) ---- */
#ifdef SPECGEN_LIBRARY
static jmp_buf die_jump;
static char die_message[1024];
#endif

static void die(int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
#ifdef SPECGEN_LIBRARY
  int n = line > 0 ? snprintf(die_message, sizeof die_message, "%s:%d: ", spec_path, line)
                   : snprintf(die_message, sizeof die_message, "%s: ", spec_path);
  if (n < 0 || (size_t)n >= sizeof die_message) n = 0;
  vsnprintf(die_message + n, sizeof die_message - (size_t)n, fmt, ap);
  va_end(ap);
  longjmp(die_jump, 1);
#else
  if (line > 0) fprintf(stderr, "%s:%d: ", spec_path, line);
  else fprintf(stderr, "%s: ", spec_path);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(1);
#endif
}

static char *xstrdup(const char *s) {
  char *d = strdup(s);
  if (!d) die(0, "out of memory");
  return d;
}

static char *trim(char *s) {
  while (isspace((unsigned char)*s)) s++;
  size_t n = strlen(s);
  while (n && isspace((unsigned char)s[n - 1])) s[--n] = 0;
  return s;
}

static int in_list(const char *const *list, const char *s, size_t n) {
  for (; *list; list++)
    if (strlen(*list) == n && !strncmp(*list, s, n)) return 1;
  return 0;
}

/* Each blank-separated word of a list, in turn; returns its length. */
static const char *next_word(const char **p, size_t *n) {
  const char *s = *p;
  while (*s == ' ') s++;
  if (!*s) return NULL;
  const char *e = s;
  while (*e && *e != ' ') e++;
  *n = (size_t)(e - s);
  *p = e;
  return s;
}

static int word_in(const char *list, const char *w, size_t n) {
  size_t m;
  const char *s;
  while ((s = next_word(&list, &m)))
    if (m == n && !strncmp(s, w, n)) return 1;
  return 0;
}

/* The list as one blank-separated line, for messages. */
static const char *list_text(const char *const *list) {
  static char buf[1024];
  buf[0] = 0;
  for (; *list; list++)
    snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", *buf ? " " : "", *list);
  return buf;
}

/* A number C, strtol(s, 0, 0) and gpublob read alike: digits only, no sign and
   no leading zero (C and strtol's base 0 would read 010 as octal 8). */
static int plain_number(const char *s, size_t n, long max, long *out) {
  if (!n || n > 9 || (s[0] == '0' && n > 1)) return 0;
  long v = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return 0;
    v = v * 10 + (s[i] - '0');
  }
  if (v > max) return 0;
  if (out) *out = v;
  return 1;
}

static int same_letters(const char *a, const char *b, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (tolower((unsigned char)a[i]) != tolower((unsigned char)b[i])) return 0;
  return 1;
}

static int ident_char(int c, int upper) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         (upper && c >= 'A' && c <= 'Z');
}

/* ---- reading the spec: sections, keys, continuation lines ---- */
static int key_index(const char *k) {
  for (int i = 0; i < NKEYS; i++)
    if (!strcmp(keys[i].name, k)) return i;
  return -1;
}

static void open_section(char *hdr, int line) {
  char *end = strchr(hdr, ']');
  if (!end || trim(end + 1)[0]) die(line, "malformed section header; expected [target NAME]");
  *end = 0;
  hdr = trim(hdr + 1);
  if (strncmp(hdr, "target", 6) || !isspace((unsigned char)hdr[6]))
    die(line, "unknown section '[%s]'; expected [target NAME]", hdr);
  char *name = trim(hdr + 6);
  if (!*name) die(line, "target section without a name");
  for (char *c = name; *c; c++)
    if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-')
      die(line, "target name '%s' has a character other than letters, digits, '_' or '-'", name);
  if (strlen(name) > NAME_MAX_LEN)
    die(line, "target name '%s' is longer than %d bytes", name, NAME_MAX_LEN);
  for (int i = 0; i < ntargets; i++)
    if (!strcmp(targets[i].name, name))
      die(line, "duplicate target '%s' (first defined at line %d)", name, targets[i].line);
  if (ntargets == MAX_TARGETS) die(line, "more than %d targets", MAX_TARGETS);
  targets[ntargets].name = xstrdup(name);
  targets[ntargets].line = line;
  ntargets++;
}

/* inherit = NAME: the section's first key; the copy is made once the spec is read. */
static void set_inherit(target *t, const char *name, int line) {
  if (t->inherit) die(line, "duplicate key 'inherit' (first at line %d)", t->inherit_line);
  for (int k = 0; k < NKEYS; k++)
    if (t->val[k])
      die(line, "'inherit' must be the first key of target '%s' ('%s' comes before it, at line %d)",
          t->name, keys[k].name, t->key_line[k]);
  t->inherit = xstrdup(name);
  t->inherit_line = line;
}

/* The value with each run of blanks one space. */
static void squeeze_blanks(char *val) {
  char *w = val;
  for (char *c = val; *c; c++) {
    if (isspace((unsigned char)*c) && (w == val || w[-1] == ' ')) continue;
    *w++ = isspace((unsigned char)*c) ? ' ' : *c;
  }
  *w = 0;
}

static void set_key(char *text, int line) {
  char *eq = strchr(text, '=');
  if (!eq) die(line, "expected 'key = value'");
  *eq = 0;
  char *key = trim(text), *val = trim(eq + 1);
  int k = key_index(key), inherit = !strcmp(key, "inherit");
  if (k < 0 && !inherit) die(line, "unknown key '%s'", key);
  if (!ntargets) die(line, "key '%s' outside a [target NAME] section", key);
  target *t = &targets[ntargets - 1];
  squeeze_blanks(val);
  if (inherit) {
    set_inherit(t, val, line);
    return;
  }
  if (t->val[k]) die(line, "duplicate key '%s' (first at line %d)", key, t->key_line[k]);
  t->val[k] = xstrdup(val);
  t->key_line[k] = line;
}

static int target_index(const char *name) {
  for (int i = 0; i < ntargets; i++)
    if (!strcmp(targets[i].name, name)) return i;
  return -1;
}

/* Target i starts as a copy of the earlier target it inherits from (already
   complete, copies included): each key it does not set has that target's value. */
static void apply_inherit(int i) {
  target *t = &targets[i];
  if (!t->inherit) return;
  int from = target_index(t->inherit);
  if (from < 0) die(t->inherit_line, "'inherit': no target '%s' in the spec", t->inherit);
  if (from == i) die(t->inherit_line, "'inherit': target '%s' cannot inherit from itself", t->name);
  if (from > i)
    die(t->inherit_line, "'inherit': target '%s' comes later (line %d); a target inherits from an earlier one",
        t->inherit, targets[from].line);
  for (int k = 0; k < NKEYS; k++)
    if (!t->val[k] && targets[from].val[k]) {
      t->val[k] = xstrdup(targets[from].val[k]);
      t->key_line[k] = t->inherit_line;
    }
}

/* The spec, whole in memory: lines end at '\n' (the last may lack one). */
static void read_spec(const char *data, size_t size) {
  char buf[MAX_LINE + 1], logical[65536];
  int line = 0, start = 0;
  size_t len = 0, pos = 0;
  while (pos < size) {
    line++;
    const char *s0 = data + pos, *nl = memchr(s0, '\n', size - pos);
    size_t n0 = nl ? (size_t)(nl - s0) : size - pos;
    pos += n0 + (nl != NULL);
    const char *nul = memchr(s0, 0, n0);
    if (nul) die(line, "NUL byte (column %zu)", (size_t)(nul - s0) + 1);
    if (n0 > MAX_LINE) die(line, "line longer than %d bytes", MAX_LINE);
    memcpy(buf, s0, n0);
    buf[n0] = 0;
    char *hash = strchr(buf, '#');
    if (hash) *hash = 0;
    /* A control character would go into a C string of the table as it is. */
    for (const char *c = buf; *c; c++)
      if (((unsigned char)*c < 0x20 && !isspace((unsigned char)*c)) || *c == 0x7f)
        die(line, "control character 0x%02x (column %zu)", (unsigned char)*c, (size_t)(c - buf) + 1);
    char *s = trim(buf);
    size_t n = strlen(s);
    int more = n && s[n - 1] == '\\';
    if (more) s[--n] = 0;
    if (!len) start = line;
    if (len + n + 2 > sizeof logical) die(line, "logical line too long");
    if (len && n) logical[len++] = ' ';
    memcpy(logical + len, s, n);
    len += n;
    logical[len] = 0;
    if (more) continue;
    char *l = trim(logical);
    if (*l == '[') open_section(l, start);
    else if (*l) set_key(l, start);
    len = 0;
  }
  if (len) die(line, "continuation '\\' on the last line");
  if (!ntargets) die(0, "no [target NAME] section");
  for (int i = 0; i < ntargets; i++) apply_inherit(i);
}

/* ---- checking a target: required keys, enums, placeholders, chips ---- */

/* Every value goes into the table's C source: no trigraph, which -std=c11
   would replace even inside a string literal. */
static void check_trigraphs(const target *t, int k) {
  for (const char *p = t->val[k]; (p = strstr(p, "??")); p++)
    if (p[2] && strchr("=(/)'<!>-", p[2]))
      die(t->key_line[k], "'%s': '??%c' is a C trigraph (the table is compiled as C11); write it otherwise",
          keys[k].name, p[2]);
}

/* Each {NAME} of the value is one of the placeholders its key's line names. */
static void check_template(const target *t, int k, const char *allowed) {
  const char *v = t->val[k];
  int line = t->key_line[k];
  for (const char *p = v; (p = strchr(p, '{')); p++) {
    if (p[1] == '{') { /* {{ is a literal brace */
      p++;
      continue;
    }
    const char *e = strchr(p, '}');
    if (!e) die(line, "'%s': unclosed '{'", keys[k].name);
    const char *name = p + 1;
    size_t n = (size_t)(e - name);
    if (memchr(name, '{', n) || memchr(name, ' ', n))
      die(line, "'%s': '{%.*s' is not a placeholder (write a literal brace as {{)", keys[k].name,
          (int)n, name);
    if (n > 3 && !strncmp(name, "if:", 3)) {
      const char *c = name + 3, *colon = memchr(c, ':', (size_t)(e - c));
      if (!colon || !memchr(colon + 1, ':', (size_t)(e - colon - 1)))
        die(line, "'%s': {if:COND:THEN:ELSE} needs three parts", keys[k].name);
      size_t cn = (size_t)(colon - c);
      if (!(cn > 1 && (*c == '+' || *c == '-')) && !in_list(conditions, c, cn))
        die(line, "'%s': unknown condition '%.*s' (use +feature, -feature, %s)", keys[k].name, (int)cn, c,
            list_text(conditions));
    } else if (!word_in(allowed, name, n)) {
      die(line, "'%s': unknown placeholder '{%.*s}' (this key has: %s)", keys[k].name, (int)n, name, allowed);
    }
    p = e;
  }
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

static void check_chip_pairs(const target *t, int k, int chip_must_exist) {
  const char *p = t->val[k], *w;
  size_t n;
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
    if (k == K_feature_min) { /* gpublob reads the number after the version feature */
      size_t p = strlen(t->val[K_version_feature]);
      if (vn <= p || vn > FEATURE_MIN_MAX_LEN || strncmp(v, t->val[K_version_feature], p) ||
          !plain_number(v + p, vn - p, 999999, NULL))
        die(t->key_line[k], "'feature_min': '%.*s' is not %sNUMBER (the version_feature, then plain digits)",
            (int)vn, v, t->val[K_version_feature]);
    } else if (k == K_chip_version) {
      if (!plain_number(v, vn, 2147483647, NULL))
        die(t->key_line[k], "'chip_version': '%.*s' is not a plain number", (int)vn, v);
    } else if (k == K_abi_min) {
      if (!plain_number(v, vn, 1000000, NULL) || !word_in(t->val[K_abi_versions], v, vn))
        die(t->key_line[k], "'abi_min': '%.*s' is not one of 'abi_versions'", (int)vn, v);
    } else if (k == K_abi_tool_min) {
      if (!plain_number(v, vn, 1000000, NULL) || !word_in(t->val[K_abi_versions], w, (size_t)(colon - w)))
        die(t->key_line[k], "'abi_tool_min': '%.*s' is not ABI:VERSION (an ABI of 'abi_versions', a plain number)",
            (int)n, w);
    } else if (k == K_mlir_lower_chip) {
      if (word_in(t->val[K_chips], w, (size_t)(colon - w)) && !word_in(t->val[K_chips], v, vn))
        die(t->key_line[k], "'mlir_lower_chip': '%.*s' is not in 'chips'", (int)vn, v);
    } else if (k == K_chip_modifiers) {
      for (size_t i = 0; i < vn; i++)
        if (!isalnum((unsigned char)v[i]) && v[i] != '-' && v[i] != '_')
          die(t->key_line[k], "'chip_modifiers': '%.*s' is not a feature name (no sign)", (int)vn, v);
    } else if (vn < 2 || (*v != '+' && *v != '-')) { /* chip_features */
      die(t->key_line[k], "'%s': '%.*s' is not +feature or -feature", keys[k].name, (int)vn, v);
    }
  }
}

/* NAME=BEHAVIOUR:VALUE, where VALUE is a plain number or {if:COND:NUMBER:NUMBER};
   gpublob reads it with strtol(.., 0), where 010 would be 8 and 0x10 16. */
static void check_module_flags(const target *t) {
  const char *p = t->val[K_module_flags], *w;
  int line = t->key_line[K_module_flags];
  size_t n;
  while ((w = next_word(&p, &n))) {
    const char *eq = memchr(w, '=', n), *colon = eq ? memchr(eq, ':', n - (size_t)(eq - w)) : NULL;
    if (!eq || !colon || eq == w || colon == w + n - 1)
      die(line, "'module_flags': '%.*s' is not NAME=BEHAVIOUR:VALUE", (int)n, w);
    size_t bn = (size_t)(colon - eq - 1);
    if (in_list(metadata_behaviours, eq + 1, bn))
      die(line, "'module_flags': behaviour '%.*s' needs a metadata value, and gpublob adds an i32 "
          "(use error, warning or override)", (int)bn, eq + 1);
    if (!in_list(flag_behaviours, eq + 1, bn))
      die(line, "'module_flags': unknown behaviour '%.*s'", (int)bn, eq + 1);
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
        die(line, "'module_flags': unknown condition '%.*s' (use +feature, -feature, %s)", (int)cn, v + 4,
            list_text(conditions));
    }
    static const char *const numeric[] = {"abi", "chipversion", "opt", NULL};
    if (!ok && vn > 2 && v[0] == '{' && end[-1] == '}' && in_list(numeric, v + 1, vn - 2)) {
      ok = 1; /* a whole placeholder, such as {abi} */
      if (!strncmp(v, "{abi}", vn) && (!t->val[K_abi] || !*t->val[K_abi]))
        die(line, "'module_flags': {abi} needs key 'abi'");
    }
    if (!ok)
      die(line, "'module_flags': value '%.*s' is not a plain number (0 to 2147483647, no sign or "
          "leading zero), {if:COND:NUMBER:NUMBER} or one number's placeholder ({abi}, {chipversion}, {opt})",
          (int)vn, v);
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

static void check_entry_cc(target *t) {
  if (!t->val[K_entry_cc]) return;
  const char *p = t->val[K_entry_cc], *w;
  size_t n;
  while ((w = next_word(&p, &n)))
    if (cc_value(w, n) < 0)
      die(t->key_line[K_entry_cc], "'entry_cc': unknown calling convention '%.*s' (known: ptx_kernel, "
          "spir_kernel, amdgpu_kernel, or LLVM's number, 1-1023 in plain digits)", (int)n, w);
  /* each word becomes a number no longer than it, so the list fits in its own length */
  char *out = malloc(strlen(t->val[K_entry_cc]) + 1);
  if (!out) die(0, "out of memory");
  out[0] = 0;
  p = t->val[K_entry_cc];
  size_t len = 0;
  while ((w = next_word(&p, &n))) len += (size_t)sprintf(out + len, "%s%d", len ? " " : "", cc_value(w, n));
  free(t->val[K_entry_cc]);
  t->val[K_entry_cc] = out;
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

/* llvm_target names a backend: LLVMInitialize<it>Target and its llvm-config
   component (lower case) must exist, so the case is LLVM's. */
static void check_llvm_target(const target *t) {
  const char *v = t->val[K_llvm_target];
  int line = t->key_line[K_llvm_target];
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
static void check_mlir_dialects(const target *t) {
  const char *p = t->val[K_mlir_dialects], *w;
  size_t n;
  while ((w = next_word(&p, &n))) {
    for (size_t i = 0; i < n; i++)
      if (!ident_char((unsigned char)w[i], 0))
        die(t->key_line[K_mlir_dialects], "'mlir_dialects': '%.*s' is not a dialect name "
            "(lower-case letters, digits and '_')", (int)n, w);
    if (!in_list(mlir_handles, w, n))
      die(t->key_line[K_mlir_dialects], "'mlir_dialects': '%.*s' is not an MLIR dialect with a C API "
          "handle in LLVM 22 (known: %s)", (int)n, w, list_text(mlir_handles));
  }
}

static void check_names(const target *t, int k) {
  const char *p = t->val[k], *w;
  size_t n;
  while ((w = next_word(&p, &n)))
    if (n > NAME_MAX_LEN)
      die(t->key_line[k], "'%s': '%.*s' is longer than %d bytes", keys[k].name, (int)n, w, NAME_MAX_LEN);
}

static void check_chip_versions(const target *t);

/* The chips and features: the default chip among the chips, each pair's chip. */
static void check_chips(const target *t) {
  check_names(t, K_chips);
  if (!word_in(t->val[K_chips], t->val[K_chip], strlen(t->val[K_chip])))
    die(t->key_line[K_chip], "default chip '%s' is not in 'chips'", t->val[K_chip]);
  if (t->val[K_feature_min]) {
    if (!t->val[K_version_feature] || !*t->val[K_version_feature])
      die(t->key_line[K_feature_min], "'feature_min' needs 'version_feature'");
    check_chip_pairs(t, K_feature_min, 1);
  }
  if (t->val[K_chip_features]) check_chip_pairs(t, K_chip_features, 0);
  if (t->val[K_chip_modifiers]) check_chip_pairs(t, K_chip_modifiers, 0);
  if (t->val[K_mlir_lower_chip]) check_chip_pairs(t, K_mlir_lower_chip, 0);
  if (t->val[K_chip_version] && *t->val[K_chip_version]) check_chip_versions(t);
  if (t->val[K_feature_names]) {
    const char *p = t->val[K_feature_names], *w;
    size_t n;
    while ((w = next_word(&p, &n)))
      if (n > GLOB_MAX_LEN)
        die(t->key_line[K_feature_names], "'feature_names': '%.*s' is longer than %d bytes", (int)n, w,
            GLOB_MAX_LEN);
  }
  if (t->val[K_mlir_chip] && !word_in(t->val[K_chips], t->val[K_mlir_chip], strlen(t->val[K_mlir_chip])))
    die(t->key_line[K_mlir_chip], "'mlir_chip': '%s' is not in 'chips'", t->val[K_mlir_chip]);
}

/* Every chip has a version, given once. */
static void check_chip_versions(const target *t) {
  check_chip_pairs(t, K_chip_version, 0); /* an inheriting target may have fewer chips */
  const char *p = t->val[K_chips], *w;
  size_t n;
  while ((w = next_word(&p, &n))) {
    int count = 0;
    const char *q = t->val[K_chip_version], *u;
    size_t m;
    while ((u = next_word(&q, &m))) count += m > n && u[n] == ':' && !memcmp(u, w, n);
    if (count != 1)
      die(t->key_line[K_chip_version], "'chip_version': chip '%.*s' has %s", (int)n, w,
          count ? "more than one version" : "no version");
  }
}

/* abi in abi_versions, plain numbers; abi_min needs them. */
static void check_abi(const target *t) {
  const char *abi = t->val[K_abi], *p = t->val[K_abi_versions], *w;
  size_t n;
  int has_abi = abi && *abi;
  while (p && (w = next_word(&p, &n)))
    if (!plain_number(w, n, 1000000, NULL))
      die(t->key_line[K_abi_versions], "'abi_versions': '%.*s' is not a plain number", (int)n, w);
  if (has_abi && !word_in(t->val[K_abi_versions] ? t->val[K_abi_versions] : "", abi, strlen(abi)))
    die(t->key_line[K_abi], "'abi': '%s' is not one of 'abi_versions'", abi);
  if (!has_abi && t->val[K_abi_versions] && *t->val[K_abi_versions])
    die(t->key_line[K_abi_versions], "'abi_versions' needs 'abi' (the default)");
  const char *mabi = t->val[K_mlir_abi];
  if (mabi && *mabi && !word_in(t->val[K_abi_versions] ? t->val[K_abi_versions] : "", mabi, strlen(mabi)))
    die(t->key_line[K_mlir_abi], "'mlir_abi': '%s' is not one of 'abi_versions'", mabi);
  if (t->val[K_abi_min] && *t->val[K_abi_min]) {
    if (!has_abi) die(t->key_line[K_abi_min], "'abi_min' needs 'abi'");
    check_chip_pairs(t, K_abi_min, 0);
  }
  if (t->val[K_abi_tool_min] && *t->val[K_abi_tool_min]) {
    if (!has_abi) die(t->key_line[K_abi_tool_min], "'abi_tool_min' needs 'abi'");
    if (!t->val[K_tool_version] || !*t->val[K_tool_version])
      die(t->key_line[K_abi_tool_min], "'abi_tool_min' needs 'tool_version'");
    check_chip_pairs(t, K_abi_tool_min, 0);
  }
}

/* NAME:TYPE=VALUE, TYPE i8 i16 i32 i64, NAME a symbol; VALUE a template (checked apart). */
static void check_constants(const target *t) {
  const char *p = t->val[K_constants], *w;
  size_t n;
  while ((w = next_word(&p, &n))) {
    const char *colon = memchr(w, ':', n), *eq = colon ? memchr(colon, '=', n - (size_t)(colon - w)) : NULL;
    static const char *const types[] = {"i8", "i16", "i32", "i64", NULL};
    size_t tn = eq ? (size_t)(eq - colon - 1) : 0;
    const char *v = eq ? eq + 1 + (eq + 1 < w + n && eq[1] == '=') : NULL;
    if (!eq || colon == w || v >= w + n || !in_list(types, colon + 1, tn))
      die(t->key_line[K_constants], "'constants': '%.*s' is not NAME:TYPE=VALUE or NAME:TYPE==VALUE (TYPE i8, "
          "i16, i32 or i64)", (int)n, w);
    const char *q = t->val[K_constants], *u;
    size_t m;
    while ((u = next_word(&q, &m)) && u != w)
      if (memchr(u, ':', m) && (size_t)((const char *)memchr(u, ':', m) - u) == (size_t)(colon - w) &&
          !memcmp(u, w, (size_t)(colon - w)))
        die(t->key_line[K_constants], "'constants': '%.*s' is given twice", (int)(colon - w), w);
    for (const char *c = w; c < colon; c++)
      if (!isalnum((unsigned char)*c) && *c != '_' && *c != '.' && *c != '$')
        die(t->key_line[K_constants], "'constants': '%.*s' is not a symbol name", (int)(colon - w), w);
  }
}

/* FLAG:EFFECT, EFFECT a +feature, a -feature, or an option (ftz, fast-math, ...). */
static void check_mlir_flags(const target *t) {
  const char *p = t->val[K_mlir_flags], *w;
  size_t n;
  while ((w = next_word(&p, &n))) {
    const char *colon = memchr(w, ':', n), *e = colon ? colon + 1 : NULL;
    size_t en = e ? n - (size_t)(e - w) : 0;
    if (!colon || colon == w || !en ||
        !((en > 1 && (*e == '+' || *e == '-')) || in_list(flag_options, e, en) || in_list(flag_effects, e, en)))
      die(t->key_line[K_mlir_flags], "'mlir_flags': '%.*s' is not FLAG:+feature, FLAG:-feature, FLAG:OPTION "
          "(OPTION one of %s) or FLAG:EFFECT (EFFECT tool-options or tool-log)", (int)n, w,
          list_text(flag_options));
    const char *q = t->val[K_mlir_flags], *u;
    size_t m;
    while ((u = next_word(&q, &m)) && u != w)
      if (m > (size_t)(colon - w) && u[colon - w] == ':' && !memcmp(u, w, (size_t)(colon - w)))
        die(t->key_line[K_mlir_flags], "'mlir_flags': flag '%.*s' is given twice", (int)(colon - w), w);
  }
}

/* Every template key of src/spec_keys.h (TEMPLATE) that the target gives a value. */
static void check_templates(const target *t) {
  for (int k = 0; k < NKEYS; k++)
    if (keys[k].type.placeholders && t->val[k]) check_template(t, k, keys[k].type.placeholders);
}

/* libm_float and libm_double make one function name from {name}; a libm_intrinsics
   word is a glob, perhaps with the one condition !afn after it. */
static void check_libm(const target *t) {
  static const int names[] = {K_libm_float, K_libm_double};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    const char *v = t->val[names[i]];
    if (v && *v && (!strstr(v, "{name}") || strpbrk(v, " \t")))
      die(t->key_line[names[i]], "'%s': '%s' is not one function name made from {name} (the C function's "
          "double name: __nv_{name}f)", keys[names[i]].name, v);
  }
  const char *p = t->val[K_libm_intrinsics], *w;
  size_t n;
  while (p && (w = next_word(&p, &n))) {
    const char *bang = memchr(w, '!', n);
    size_t glob = bang ? (size_t)(bang - w) : n;
    if ((bang && (n - glob != 4 || strncmp(bang, "!afn", 4))) || !glob || glob > GLOB_MAX_LEN)
      die(t->key_line[K_libm_intrinsics], "'libm_intrinsics': '%.*s' is not a glob of intrinsic names (after "
          "llvm., at most %d bytes), perhaps followed by !afn", (int)n, w, GLOB_MAX_LEN);
  }
}

/* unsupported_types names LLVM's floating-point types (the core's type_kind_name). */
static void check_unsupported_types(const target *t) {
  static const char *const kinds[] = {"half", "bfloat", "float", "double", "fp128", "x86_fp80", "ppc_fp128", NULL};
  const char *p = t->val[K_unsupported_types], *w;
  size_t n;
  while (p && (w = next_word(&p, &n)))
    if (!in_list(kinds, w, n))
      die(t->key_line[K_unsupported_types], "'unsupported_types': '%.*s' is not one of half bfloat float double "
          "fp128 x86_fp80 ppc_fp128", (int)n, w);
}

/* bin_chip: "object", or "flags:SHIFT:MASK" with SHIFT below 32 and MASK from 1 up. */
static void check_bin_chip(const target *t) {
  const char *v = t->val[K_bin_chip];
  if (!v || !*v || !strcmp(v, "object")) return;
  unsigned shift, mask;
  char end;
  if (sscanf(v, "flags:%u:%u%c", &shift, &mask, &end) != 2 || shift > 31 || !mask)
    die(t->key_line[K_bin_chip], "'bin_chip': '%s' is not 'object' or 'flags:SHIFT:MASK' (SHIFT 0 to 31, "
        "MASK from 1)", v);
}

static void check_target(target *t) {
  check_keys(t);
  check_llvm_target(t);
  if (!strcmp(t->val[K_tool_kind], "exec")) need_keys(t, exec_keys, "tool_kind exec");
  if (!strcmp(t->val[K_tool_kind], "asked")) need_keys(t, exec_keys, "tool_kind asked");
  check_hex(t, K_tool_magic);
  if (!strcmp(t->val[K_asm_parser], "yes") && in_list(no_asm_parser, t->val[K_llvm_target],
                                                      strlen(t->val[K_llvm_target])))
    die(t->key_line[K_asm_parser], "'asm_parser': LLVM's %s backend has no assembly parser",
        t->val[K_llvm_target]);
  check_hex(t, K_bin_magic);
  check_hex(t, K_pack_magic);
  check_bin_chip(t);
  check_provider(t);
  check_pack(t);
  check_metadata(t);
  check_entry_cc(t);
  if (t->val[K_libs] && *t->val[K_libs] && (!t->val[K_lib_search] || !*t->val[K_lib_search]))
    die(t->key_line[K_libs], "target '%s': 'libs' needs 'lib_search'", t->name);
  check_chips(t);
  if (t->val[K_module_flags]) check_module_flags(t);
  if (t->val[K_mlir_dialects]) check_mlir_dialects(t);
  check_abi(t);
  if (t->val[K_constants]) check_constants(t);
  if (t->val[K_mlir_flags]) check_mlir_flags(t);
  check_libm(t);
  check_unsupported_types(t);
  check_templates(t);
}

/* Checks across targets: an MLIR target attribute selects one target. */
static void check_all(void) {
  for (int i = 0; i < ntargets; i++) check_target(&targets[i]);
  for (int i = 0; i < ntargets; i++)
    for (int k = 0; k < i; k++)
      if (targets[i].val[K_mlir_target] && *targets[i].val[K_mlir_target] && targets[k].val[K_mlir_target] &&
          !strcmp(targets[i].val[K_mlir_target], targets[k].val[K_mlir_target]))
        die(targets[i].key_line[K_mlir_target], "'mlir_target': '%s' is target '%s''s too (line %d); "
            "the attribute would select only that one", targets[i].val[K_mlir_target], targets[k].name,
            targets[k].key_line[K_mlir_target]);
}

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
    "**   GPUBLOB_MLIR_DIALECT(x): each MLIR dialect the MLIR pass depends on\n"
    "**   GPUBLOB_SPEC_DIGEST(b0, ..., b15): XXH3-128 (canonical bytes) of the target\n"
    "**     entries as written here, every line from the first GPUBLOB_TARGET_BEGIN to\n"
    "**     the last GPUBLOB_TARGET_END: the spec's part of the cache's keys */\n"
    "#if !defined GPUBLOB_TARGET_BEGIN && !defined GPUBLOB_TARGET_END && !defined GPUBLOB_LLVM_TARGET && \\\n"
    "    !defined GPUBLOB_LLVM_ASM_PARSER && !defined GPUBLOB_MLIR_DIALECT && !defined GPUBLOB_SPEC_DIGEST\n"
    "#error \"gpublob_targets.def: define what you include it for first: GPUBLOB_TARGET_BEGIN and "
    "GPUBLOB_TARGET_END, GPUBLOB_LLVM_TARGET, GPUBLOB_LLVM_ASM_PARSER, GPUBLOB_MLIR_DIALECT or "
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

static void write_table(FILE *o) {
  size_t size;
  char *entries = entries_text(&size);
  write_header(o);
  write_targets(o, entries, size);
  write_backends(o);
  write_dialects(o);
  write_digest(o, entries, size);
  free(entries);
  fputs("#undef GPUBLOB_TARGET_BEGIN\n#undef GPUBLOB_TARGET_END\n#undef GPUBLOB_LLVM_TARGET\n"
        "#undef GPUBLOB_LLVM_ASM_PARSER\n#undef GPUBLOB_MLIR_DIALECT\n#undef GPUBLOB_SPEC_DIGEST\n", o);
}

/* The LLVM components the spec's backends need, for llvm-config --libs: the
   same backends and assembly parsers as the table's GPUBLOB_LLVM_TARGET and
   GPUBLOB_LLVM_ASM_PARSER lines. */
static void print_components(FILE *o) {
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

#ifndef SPECGEN_LIBRARY
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
static void write_unused_backends(FILE *o) {
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
#endif

/* Sets the --llvm-targets list; returns 0, or -1 for a word that is no name. */
static int set_built_targets(const char *list) {
  built_targets = NULL;
  const char *p = list, *w;
  size_t n;
  int words = 0;
  for (; (w = next_word(&p, &n)); words++)
    for (size_t i = 0; i < n; i++)
      if (!ident_char((unsigned char)w[i], 1)) return -1;
  if (words) built_targets = list;
  return 0;
}

#ifdef SPECGEN_LIBRARY
/* ---- the library: parse and check in memory, then free the state ---- */
static void reset(void) {
  for (int i = 0; i < ntargets; i++) {
    free(targets[i].name);
    free(targets[i].inherit);
    for (int k = 0; k < NKEYS; k++) free(targets[i].val[k]);
  }
  memset(targets, 0, sizeof targets);
  ntargets = 0;
}

/* Parses and checks DATA (SIZE bytes, named PATH in messages) with LLVM_TARGETS
   as --llvm-targets (NULL: none), then writes the table to TABLE and the
   components to COMPONENTS where they are not NULL.  Returns 0, or 1 with the
   message in specgen_error() (2: a bad LLVM_TARGETS).  specgen_reset() frees. */
int specgen_run(const char *path, const char *data, size_t size, const char *llvm_targets,
                FILE *table, FILE *components);
const char *specgen_error(void);
void specgen_reset(void);

int specgen_run(const char *path, const char *data, size_t size, const char *llvm_targets,
                FILE *table, FILE *components) {
  reset();
  die_message[0] = 0;
  spec_path = path;
  if (set_built_targets(llvm_targets ? llvm_targets : "")) {
    snprintf(die_message, sizeof die_message, "--llvm-targets: not a list of names");
    return 2;
  }
  if (setjmp(die_jump)) return 1;
  read_spec(data, size);
  check_all();
  if (table) write_table(table);
  if (components) print_components(components);
  return 0;
}

const char *specgen_error(void) { return die_message; }
void specgen_reset(void) { reset(); }
#else

/* ---- output files: written beside, then renamed into place ---- */
static FILE *open_out(const char *out, char *tmp, size_t n) {
  snprintf(tmp, n, "%s.tmp", out);
  FILE *o = fopen(tmp, "w");
  if (!o) {
    fprintf(stderr, "specgen: cannot write %s\n", tmp);
    exit(1);
  }
  return o;
}

static int close_out(FILE *o, const char *tmp, const char *out) {
  if (ferror(o) | fclose(o) || rename(tmp, out)) {
    remove(tmp);
    fprintf(stderr, "specgen: cannot write %s\n", out);
    return 1;
  }
  return 0;
}

/* Reads, parses and checks the spec at path (exits on an error). */
static void load_spec(const char *path) {
  spec_path = path;
  FILE *f = fopen(spec_path, "rb");
  if (!f) die(0, "cannot open");
  size_t size = 0, cap = 65536;
  char *data = malloc(cap);
  for (size_t r; data && (r = fread(data + size, 1, cap - size, f)) > 0;) {
    size += r;
    if (size == cap) {
      char *bigger = cap < ((size_t)1 << 30) ? realloc(data, cap *= 2) : NULL;
      if (!bigger) free(data);
      data = bigger;
    }
  }
  if (!data) die(0, "out of memory (or larger than 1 GiB)");
  if (ferror(f)) die(0, "cannot read");
  fclose(f);
  read_spec(data, size);
  free(data);
  check_all();
}

static const char usage[] =
    "usage: specgen [--llvm-targets \"NVPTX AMDGPU ...\"] SPEC OUT.def\n"
    "       specgen [--llvm-targets \"NVPTX AMDGPU ...\"] --llvm-components SPEC\n"
    "       specgen [--llvm-targets \"NVPTX AMDGPU ...\"] --unused-backends SPEC OUT.c\n";

int main(int argc, char **argv) {
  if (argc >= 3 && !strcmp(argv[1], "--llvm-targets")) {
    if (set_built_targets(argv[2])) {
      fprintf(stderr, "specgen: --llvm-targets '%s': not a blank-separated list of LLVM target names\n", argv[2]);
      return 2;
    }
    argv += 2;
    argc -= 2;
  }
  if (argc == 3 && !strcmp(argv[1], "--llvm-components")) {
    load_spec(argv[2]);
    print_components(stdout);
    return 0;
  }
  if (argc == 4 && !strcmp(argv[1], "--unused-backends")) {
    load_spec(argv[2]);
    char tmp[4096];
    FILE *o = open_out(argv[3], tmp, sizeof tmp);
    write_unused_backends(o);
    return close_out(o, tmp, argv[3]);
  }
  if (argc != 3 || argv[1][0] == '-') {
    fputs(usage, stderr);
    return 2;
  }
  load_spec(argv[1]);
  char tmp[4096];
  FILE *o = open_out(argv[2], tmp, sizeof tmp);
  write_table(o);
  return close_out(o, tmp, argv[2]);
}
#endif
