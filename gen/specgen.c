/* specgen: turn the target spec (targets/targets.spec) into the X-macro table gpublob.c includes.
**
**   specgen SPEC OUT.def              write the table (DO NOT EDIT output)
**   specgen --vendor CORE DEF OUT.c   write CORE with DEF pasted in place of
**                                     its #include, for vendoring in one file
**   specgen --llvm-components SPEC    print the LLVM components its backends need
**
** Errors are printed as `file:line: message` and exit with status 1; no
** output file is left behind then.  Build: cc -std=c11 -o specgen specgen.c
*/
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the keys a target section may hold, in the order of the X-macro ---- */
enum { REQ = 1, OPT = 0 };
#define SPEC_KEYS(X)                                                          \
  X(triple, REQ, "target triple")                                              \
  X(chip, REQ, "default chip")                                                 \
  X(chip_prefix, OPT, "prefix stripped from the chip for {chipid}")            \
  X(chips, REQ, "valid chip names")                                            \
  X(chip_features, OPT, "GLOB:+feature pairs a chip implies")                  \
  X(features, OPT, "default LLVM target features")                             \
  X(feature_names, OPT, "glob patterns of accepted feature names")             \
  X(version_feature, OPT, "prefix of a versioned feature, such as ptx")        \
  X(feature_min, OPT, "CHIP:FEATURE minimum versioned feature per chip")       \
  X(emit, REQ, "what the backend emits for the blob step: asm or obj")         \
  X(tool_kind, REQ, "kind of blob tool: exec or none")                         \
  X(tool_input, OPT, "how the tool gets its input: file (default), stdin or pipe")   \
  X(tool, OPT, "candidate names of the blob tool")                             \
  X(tool_argv, OPT, "argv template of the blob tool")                          \
  X(tool_search, OPT, "directories searched for the blob tool")                \
  X(provider, OPT, "in-process provider of the blob step: none or nvjitlink")  \
  X(provider_lib, OPT, "candidate file names of the provider's library")       \
  X(provider_search, OPT, "directories searched for the provider's library")   \
  X(provider_argv, OPT, "the provider's options (template)")                  \
  X(provider_min, OPT, "jobs for the target a call needs before the provider is used") \
  X(pack_tool, OPT, "candidate names of the tool that packs chips into one blob") \
  X(pack_argv, OPT, "argv template of the pack tool; {images} stands for the images") \
  X(pack_image, OPT, "the words for each chip's blob (template, {in} its file)")  \
  X(pack_asm_image, OPT, "the words for the newest chip's assembly (template)") \
  X(suffix_pack, OPT, "file suffix of a pack")                                 \
  X(attribute, REQ, "MLIR attribute name of the blob")                         \
  X(suffix_asm, REQ, "file suffix of assembly")                                \
  X(suffix_bin, REQ, "file suffix of the blob")                                \
  X(bin_magic, OPT, "hex bytes every blob of the bin format starts with")      \
  X(pack_magic, OPT, "hex bytes every pack starts with")                       \
  X(symbol_chars, OPT, "characters a public symbol may hold (ranges a-z allowed)") \
  X(libs, OPT, "device bitcode libraries (templates)")                         \
  X(lib_search, OPT, "directories searched for device libraries")              \
  X(module_flags, OPT, "NAME=BEHAVIOUR:VALUE module flags")                     \
  X(intrinsics, OPT, "intrinsic namespaces the backend selects, e.g. nvvm")   \
  X(entry_cc, OPT, "calling conventions of entry points; bin keeps only them")  \
  X(mlir_target, OPT, "MLIR target attribute that selects the target, e.g. nvvm.target") \
  X(mlir_chip, OPT, "chip the MLIR attribute means when it names none")        \
  X(mlir_lower, OPT, "MLIR passes (template) that lower a gpu.module body")     \
  X(mlir_dialects, OPT, "dialects a lowered gpu.module body may hold")          \
  X(llvm_target, REQ, "LLVM backend to initialise and link, e.g. NVPTX")      \
  X(asm_parser, OPT, "yes: the backend has an assembly parser (inline asm needs it)")

enum {
#define KEY_ENUM(k, r, d) K_##k,
  SPEC_KEYS(KEY_ENUM) NKEYS
};
static const char *const key_names[] = {
#define KEY_NAME(k, r, d) #k,
    SPEC_KEYS(KEY_NAME)};
static const int key_required[] = {
#define KEY_REQ(k, r, d) r,
    SPEC_KEYS(KEY_REQ)};

static const char *const emit_values[] = {"asm", "obj", NULL};
static const char *const tool_kinds[] = {"exec", "none", NULL};
static const char *const tool_inputs[] = {"file", "stdin", "pipe", NULL};
static const char *const providers[] = {"none", "nvjitlink", NULL};
static const char *const yes_no[] = {"yes", "no", NULL};
/* LLVM's calling conventions of GPU entry points (llvm/IR/CallingConv.h, stable values). */
static const struct { const char *name; int value; } calling_conventions[] = {
    {"ptx_kernel", 71}, {"spir_kernel", 76}, {"amdgpu_kernel", 91}, {NULL, 0}};
static const char *const flag_behaviours[] = {"error", "warning", "require", "override",
                                              "append", "appendunique", NULL};
static const char *const placeholders[] = {"tool", "chip", "chipid", "in", "out", "opt", "images", NULL};
static const char *const conditions[] = {"ftz", "fast-math", "O0", NULL};

#define MAX_TARGETS 64

typedef struct target {
  char *name;
  int line;
  char *val[NKEYS];
  int key_line[NKEYS];
} target;

static const char *spec_path;
static target targets[MAX_TARGETS];
static int ntargets;

/* ---- errors: file:line: message, then exit 1 ---- */
static void die(int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (line > 0) fprintf(stderr, "%s:%d: ", spec_path, line);
  else fprintf(stderr, "%s: ", spec_path);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(1);
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

/* ---- reading the spec: sections, keys, continuation lines ---- */
static int key_index(const char *k) {
  for (int i = 0; i < NKEYS; i++)
    if (!strcmp(key_names[i], k)) return i;
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
  for (int i = 0; i < ntargets; i++)
    if (!strcmp(targets[i].name, name))
      die(line, "duplicate target '%s' (first defined at line %d)", name, targets[i].line);
  if (ntargets == MAX_TARGETS) die(line, "more than %d targets", MAX_TARGETS);
  targets[ntargets].name = xstrdup(name);
  targets[ntargets].line = line;
  ntargets++;
}

static void set_key(char *text, int line) {
  char *eq = strchr(text, '=');
  if (!eq) die(line, "expected 'key = value'");
  *eq = 0;
  char *key = trim(text), *val = trim(eq + 1);
  int k = key_index(key);
  if (k < 0) die(line, "unknown key '%s'", key);
  if (!ntargets) die(line, "key '%s' outside a [target NAME] section", key);
  target *t = &targets[ntargets - 1];
  if (t->val[k]) die(line, "duplicate key '%s' (first at line %d)", key, t->key_line[k]);
  char *w = val;
  for (char *c = val; *c; c++) {
    if (isspace((unsigned char)*c) && (w == val || w[-1] == ' ')) continue;
    *w++ = isspace((unsigned char)*c) ? ' ' : *c;
  }
  *w = 0;
  t->val[k] = xstrdup(val);
  t->key_line[k] = line;
}

static void read_spec(FILE *f) {
  char buf[4096], logical[65536];
  int line = 0, start = 0;
  size_t len = 0;
  while (fgets(buf, sizeof buf, f)) {
    line++;
    if (!strchr(buf, '\n') && !feof(f)) die(line, "line longer than %zu bytes", sizeof buf - 2);
    char *hash = strchr(buf, '#');
    if (hash) *hash = 0;
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
}

/* ---- checking a target: required keys, enums, placeholders, chips ---- */
static void check_template(const target *t, int k) {
  const char *v = t->val[k];
  int line = t->key_line[k];
  for (const char *p = v; (p = strchr(p, '{')); p++) {
    if (p[1] == '{') { /* {{ is a literal brace */
      p++;
      continue;
    }
    const char *e = strchr(p, '}');
    if (!e) die(line, "'%s': unclosed '{'", key_names[k]);
    const char *name = p + 1;
    size_t n = (size_t)(e - name);
    if (n > 3 && !strncmp(name, "if:", 3)) {
      const char *c = name + 3, *colon = memchr(c, ':', (size_t)(e - c));
      if (!colon || !memchr(colon + 1, ':', (size_t)(e - colon - 1)))
        die(line, "'%s': {if:COND:THEN:ELSE} needs three parts", key_names[k]);
      size_t cn = (size_t)(colon - c);
      if (!(cn > 1 && (*c == '+' || *c == '-')) && !in_list(conditions, c, cn))
        die(line, "'%s': unknown condition '%.*s' (use +feature, -feature, ftz, fast-math or O0)",
            key_names[k], (int)cn, c);
    } else if (!in_list(placeholders, name, n)) {
      die(line, "'%s': unknown placeholder '{%.*s}'", key_names[k], (int)n, name);
    }
    p = e;
  }
}

static void check_enum(const target *t, int k, const char *const *values) {
  if (!in_list(values, t->val[k], strlen(t->val[k])))
    die(t->key_line[k], "'%s': unknown value '%s'", key_names[k], t->val[k]);
}

static void check_chip_pairs(const target *t, int k, int chip_must_exist) {
  const char *p = t->val[k], *w;
  size_t n;
  while ((w = next_word(&p, &n))) {
    const char *colon = memchr(w, ':', n);
    if (!colon || colon == w || colon == w + n - 1)
      die(t->key_line[k], "'%s': '%.*s' is not CHIP:VALUE", key_names[k], (int)n, w);
    if (chip_must_exist && !word_in(t->val[K_chips], w, (size_t)(colon - w)))
      die(t->key_line[k], "'%s': chip '%.*s' is not in 'chips'", key_names[k],
          (int)(colon - w), w);
  }
}

static void check_module_flags(const target *t) {
  const char *p = t->val[K_module_flags], *w;
  size_t n;
  while ((w = next_word(&p, &n))) {
    const char *eq = memchr(w, '=', n), *colon = eq ? memchr(eq, ':', n - (size_t)(eq - w)) : NULL;
    if (!eq || !colon || eq == w || colon == w + n - 1)
      die(t->key_line[K_module_flags], "'module_flags': '%.*s' is not NAME=BEHAVIOUR:VALUE",
          (int)n, w);
    if (!in_list(flag_behaviours, eq + 1, (size_t)(colon - eq - 1)))
      die(t->key_line[K_module_flags], "'module_flags': unknown behaviour '%.*s'",
          (int)(colon - eq - 1), eq + 1);
  }
}

/* Magic bytes: an even number of hex digits, at most 16 bytes. */
static void check_hex(const target *t, int k) {
  const char *v = t->val[k];
  if (!v) return;
  size_t n = strlen(v);
  for (size_t i = 0; i < n; i++)
    if (!isxdigit((unsigned char)v[i]))
      die(t->key_line[k], "'%s': '%s' is not hex digits", key_names[k], v);
  if (!n || n % 2 || n > 32)
    die(t->key_line[k], "'%s': '%s' is not 1 to 16 whole bytes of hex", key_names[k], v);
}

/* An in-process provider stands in for an exec tool, and needs its library. */
static void check_provider(target *t) {
  if (!t->val[K_provider]) t->val[K_provider] = xstrdup("none");
  check_enum(t, K_provider, providers);
  if (!t->val[K_provider_min]) t->val[K_provider_min] = xstrdup("1");
  char *end;
  long min = strtol(t->val[K_provider_min], &end, 10);
  if (*end || min < 1 || min > 4096)
    die(t->key_line[K_provider_min], "'provider_min': '%s' is not a number of jobs (1-4096)",
        t->val[K_provider_min]);
  if (!strcmp(t->val[K_provider], "none")) return;
  if (strcmp(t->val[K_tool_kind], "exec"))
    die(t->key_line[K_provider], "target '%s': a provider stands in for tool_kind exec", t->name);
  for (int k = K_provider_lib; k <= K_provider_search; k++)
    if (!t->val[k] || !*t->val[k])
      die(t->line, "target '%s': provider %s needs key '%s'", t->name, t->val[K_provider], key_names[k]);
}

/* Calling-convention names become LLVM's numbers; a number is taken as it is. */
static void check_entry_cc(target *t) {
  if (!t->val[K_entry_cc]) return;
  char out[256] = "";
  const char *p = t->val[K_entry_cc], *w;
  size_t n;
  while ((w = next_word(&p, &n))) {
    int value = -1;
    for (int i = 0; calling_conventions[i].name; i++)
      if (strlen(calling_conventions[i].name) == n && !strncmp(w, calling_conventions[i].name, n))
        value = calling_conventions[i].value;
    char *end;
    long num = strtol(w, &end, 10);
    if (value < 0 && end == w + n && num > 0 && num < 1024) value = (int)num;
    if (value < 0)
      die(t->key_line[K_entry_cc], "'entry_cc': unknown calling convention '%.*s' (known: ptx_kernel, "
          "spir_kernel, amdgpu_kernel, or LLVM's number)", (int)n, w);
    snprintf(out + strlen(out), sizeof out - strlen(out), "%s%d", *out ? " " : "", value);
  }
  free(t->val[K_entry_cc]);
  t->val[K_entry_cc] = xstrdup(out);
}

/* The pack keys come together, and the assembly image needs assembly. */
static void check_pack(target *t) {
  int n = 0;
  for (int k = K_pack_tool; k <= K_suffix_pack; k++) n += t->val[k] && *t->val[k];
  if (!n) return;
  for (int k = K_pack_tool; k <= K_suffix_pack; k++)
    if (k != K_pack_asm_image && (!t->val[k] || !*t->val[k]))
      die(t->line, "target '%s': packing needs key '%s'", t->name, key_names[k]);
  if (t->val[K_pack_asm_image] && strcmp(t->val[K_emit], "asm"))
    die(t->key_line[K_pack_asm_image], "'pack_asm_image' needs emit = asm");
  if (!strstr(t->val[K_pack_argv], "{images}"))
    die(t->key_line[K_pack_argv], "'pack_argv' has no {images}");
  if (!t->val[K_tool_search] || !*t->val[K_tool_search])
    die(t->line, "target '%s': the pack tool is searched in 'tool_search', which is empty", t->name);
}

static void check_target(target *t) {
  for (int k = 0; k < NKEYS; k++)
    if (key_required[k] && (!t->val[k] || !*t->val[k]))
      die(t->line, "target '%s': missing key '%s'", t->name, key_names[k]);
  check_enum(t, K_emit, emit_values);
  for (const char *c = t->val[K_llvm_target]; *c; c++)
    if (!isalnum((unsigned char)*c) && *c != '_')
      die(t->key_line[K_llvm_target], "'llvm_target': '%s' is not an LLVM target name",
          t->val[K_llvm_target]);
  check_enum(t, K_tool_kind, tool_kinds);
  if (!t->val[K_tool_input]) t->val[K_tool_input] = xstrdup("file");
  check_enum(t, K_tool_input, tool_inputs);
  if (!strcmp(t->val[K_tool_kind], "exec"))
    for (int k = K_tool; k <= K_tool_search; k++)
      if (!t->val[k] || !*t->val[k])
        die(t->line, "target '%s': tool_kind exec needs key '%s'", t->name, key_names[k]);
  if (!t->val[K_asm_parser]) t->val[K_asm_parser] = xstrdup("no");
  check_enum(t, K_asm_parser, yes_no);
  check_hex(t, K_bin_magic);
  check_hex(t, K_pack_magic);
  check_provider(t);
  check_pack(t);
  check_entry_cc(t);
  if (t->val[K_libs] && *t->val[K_libs] && (!t->val[K_lib_search] || !*t->val[K_lib_search]))
    die(t->key_line[K_libs], "target '%s': 'libs' needs 'lib_search'", t->name);
  if (!word_in(t->val[K_chips], t->val[K_chip], strlen(t->val[K_chip])))
    die(t->key_line[K_chip], "default chip '%s' is not in 'chips'", t->val[K_chip]);
  if (t->val[K_feature_min]) {
    if (!t->val[K_version_feature]) die(t->key_line[K_feature_min], "'feature_min' needs 'version_feature'");
    check_chip_pairs(t, K_feature_min, 1);
  }
  if (t->val[K_chip_features]) check_chip_pairs(t, K_chip_features, 0);
  if (t->val[K_module_flags]) check_module_flags(t);
  if (t->val[K_mlir_chip] && !word_in(t->val[K_chips], t->val[K_mlir_chip], strlen(t->val[K_mlir_chip])))
    die(t->key_line[K_mlir_chip], "'mlir_chip': '%s' is not in 'chips'", t->val[K_mlir_chip]);
  int templ[] = {K_tool_argv, K_libs, K_module_flags, K_mlir_lower, K_provider_argv,
                 K_pack_argv, K_pack_image, K_pack_asm_image};
  for (size_t i = 0; i < sizeof templ / sizeof *templ; i++)
    if (t->val[templ[i]]) check_template(t, templ[i]);
}

/* ---- writing the table ---- */
static void put_cstring(FILE *o, const char *s) {
  fputc('"', o);
  for (; s && *s; s++) {
    if (*s == '"' || *s == '\\') fputc('\\', o);
    fputc(*s, o);
  }
  fputc('"', o);
}

static void write_table(FILE *o) {
  fprintf(o, "/* Generated by gen/specgen from %s. DO NOT EDIT. */\n", spec_path);
  fprintf(o, "/* GPUBLOB_TARGET(name");
  for (int k = 0; k < NKEYS; k++) fprintf(o, ", %s", key_names[k]);
  fprintf(o, ")\n   emit, tool_kind, tool_input and llvm_target are bare words; every other field is a\n"
             "   string.  GPUBLOB_LLVM_TARGET(X) names each LLVM backend once;\n"
             "   GPUBLOB_MLIR_DIALECT(X) each MLIR dialect the MLIR pass depends on. */\n");
  fprintf(o, "#ifndef GPUBLOB_TARGET\n#define GPUBLOB_TARGET(...)\n#endif\n");
  fprintf(o, "#ifndef GPUBLOB_LLVM_TARGET\n#define GPUBLOB_LLVM_TARGET(x)\n#endif\n");
  fprintf(o, "#ifndef GPUBLOB_MLIR_DIALECT\n#define GPUBLOB_MLIR_DIALECT(x)\n#endif\n");
  fprintf(o, "#ifndef GPUBLOB_LLVM_ASM_PARSER\n#define GPUBLOB_LLVM_ASM_PARSER(x)\n#endif\n");
  for (int i = 0; i < ntargets; i++) {
    target *t = &targets[i];
    fprintf(o, "GPUBLOB_TARGET(");
    put_cstring(o, t->name);
    for (int k = 0; k < NKEYS; k++) {
      fputs(",\n    ", o);
      if (k == K_emit || k == K_tool_kind || k == K_tool_input || k == K_llvm_target ||
          k == K_provider || k == K_provider_min)
        fputs(t->val[k], o);
      else put_cstring(o, t->val[k]);
    }
    fputs(")\n", o);
  }
  for (int i = 0; i < ntargets; i++) {
    int seen = 0;
    for (int k = 0; k < i; k++) seen |= !strcmp(targets[k].val[K_llvm_target], targets[i].val[K_llvm_target]);
    if (!seen) fprintf(o, "GPUBLOB_LLVM_TARGET(%s)\n", targets[i].val[K_llvm_target]);
  }
  for (int i = 0; i < ntargets; i++) {
    int seen = 0;
    for (int k = 0; k < i; k++)
      seen |= !strcmp(targets[k].val[K_llvm_target], targets[i].val[K_llvm_target]) &&
              !strcmp(targets[k].val[K_asm_parser], "yes");
    if (!seen && !strcmp(targets[i].val[K_asm_parser], "yes"))
      fprintf(o, "GPUBLOB_LLVM_ASM_PARSER(%s)\n", targets[i].val[K_llvm_target]);
  }
  /* every dialect named by an mlir_dialects list, once, after the ones every
     lowering needs */
  static const char *const base[] = {"gpu", "llvm", "cf", "arith", "memref", "scf", "math", NULL};
  char seen[4096] = " ";
  for (int i = 0; base[i]; i++) {
    fprintf(o, "GPUBLOB_MLIR_DIALECT(%s)\n", base[i]);
    snprintf(seen + strlen(seen), sizeof seen - strlen(seen), "%s ", base[i]);
  }
  for (int i = 0; i < ntargets; i++) {
    const char *p = targets[i].val[K_mlir_dialects], *w;
    size_t n;
    while (p && (w = next_word(&p, &n))) {
      char key[128];
      snprintf(key, sizeof key, " %.*s ", (int)n, w);
      if (strstr(seen, key)) continue;
      fprintf(o, "GPUBLOB_MLIR_DIALECT(%.*s)\n", (int)n, w);
      snprintf(seen + strlen(seen), sizeof seen - strlen(seen), "%.*s ", (int)n, w);
    }
  }
  fprintf(o, "#undef GPUBLOB_TARGET\n#undef GPUBLOB_LLVM_TARGET\n#undef GPUBLOB_MLIR_DIALECT\n"
             "#undef GPUBLOB_LLVM_ASM_PARSER\n");
}

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

static int vendor(const char *core, const char *def, const char *out) {
  FILE *c = fopen(core, "r"), *d = fopen(def, "r");
  if (!c || !d) {
    fprintf(stderr, "specgen: cannot read %s\n", c ? def : core);
    return 1;
  }
  char tmp[4096], line[4096];
  FILE *o = open_out(out, tmp, sizeof tmp);
  int pasted = 0;
  while (fgets(line, sizeof line, c)) {
    if (!strcmp(line, "#include \"gpublob_targets.def\"\n")) {
      rewind(d);
      int ch;
      while ((ch = fgetc(d)) != EOF) fputc(ch, o);
      pasted++;
    } else {
      fputs(line, o);
    }
  }
  fclose(c);
  fclose(d);
  if (pasted < 2) {
    fclose(o);
    remove(tmp);
    fprintf(stderr, "specgen: %s must include gpublob_targets.def (it does %d times)\n", core, pasted);
    return 1;
  }
  return close_out(o, tmp, out);
}

/* The LLVM components the spec's backends need, for llvm-config --libs. */
static void print_components(void) {
  for (int i = 0; i < ntargets; i++) {
    int seen = 0;
    for (int k = 0; k < i; k++) seen |= !strcmp(targets[k].val[K_llvm_target], targets[i].val[K_llvm_target]);
    if (seen) continue;
    for (const char *c = targets[i].val[K_llvm_target]; *c; c++) putchar(tolower((unsigned char)*c));
    putchar(' ');
    if (!strcmp(targets[i].val[K_asm_parser], "yes")) {
      for (const char *c = targets[i].val[K_llvm_target]; *c; c++) putchar(tolower((unsigned char)*c));
      fputs("asmparser ", stdout);
    }
  }
  putchar('\n');
}

int main(int argc, char **argv) {
  if (argc == 5 && !strcmp(argv[1], "--vendor")) return vendor(argv[2], argv[3], argv[4]);
  if (argc == 3 && !strcmp(argv[1], "--llvm-components")) {
    spec_path = argv[2];
    FILE *f = fopen(spec_path, "r");
    if (!f) die(0, "cannot open");
    read_spec(f);
    fclose(f);
    for (int i = 0; i < ntargets; i++) check_target(&targets[i]);
    print_components();
    return 0;
  }
  if (argc != 3) {
    fprintf(stderr, "usage: specgen SPEC OUT.def | specgen --vendor CORE.c DEF OUT.c\n");
    return 2;
  }
  spec_path = argv[1];
  FILE *f = fopen(spec_path, "r");
  if (!f) die(0, "cannot open");
  read_spec(f);
  fclose(f);
  for (int i = 0; i < ntargets; i++) check_target(&targets[i]);
  char tmp[4096];
  FILE *o = open_out(argv[2], tmp, sizeof tmp);
  write_table(o);
  return close_out(o, tmp, argv[2]);
}
