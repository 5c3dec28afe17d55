/* test_specgen: the spec generator refuses bad specs with file:line: message,
** a non-zero exit and no output file, and labels its output DO NOT EDIT; inherit
** copies an earlier target; the table's digest covers every key of every target. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <xxhash.h>

#include "src/spec_keys.h"
#include "testlib.h"

static const char good[] =
    "[target t]\n"
    "triple = spirv64-unknown-unknown\n"
    "llvm_target = SPIRV\n"
    "chip = generic\n"
    "chips = generic\n"
    "emit = obj\n"
    "tool_kind = none\n"
    "attribute = spirv.binary\n"
    "suffix_asm = .spvasm\n"
    "suffix_bin = .spv\n";

/* Runs specgen (with opt, "--llvm-targets LIST", when given) on len bytes of
** text; checks exit, the message, and that no output is left. */
static void expect_with(const char *name, const char *text, size_t len, const char *targets,
                        const char *message) {
  const char *spec = tmp_path("t.spec"), *out = tmp_path("t.def");
  spill(spec, text, len);
  remove(out);
  const char *argv[] = {"build/specgen", spec, out, NULL, NULL, NULL};
  if (targets) {
    argv[1] = "--llvm-targets", argv[2] = targets, argv[3] = spec, argv[4] = out;
  }
  char *log = NULL;
  int rc = run(argv, &log);
  char want[512];
  snprintf(want, sizeof want, "%s:%s", spec, message ? message : "");
  char label[300];
  if (!message) {
    check(rc == 0, name, "exit %d: %s", rc, log);
    snprintf(label, sizeof label, "%s: writes the table", name);
    check(exists(out), label, "no %s: %s", out, log);
  } else {
    snprintf(label, sizeof label, "%s: exit 1", name);
    check(rc == 1, label, "exit %d: %s", rc, log);
    check(contains(log, want), name, "%s (want %s)", log, want);
    snprintf(label, sizeof label, "%s: no output file", name);
    check(!exists(out), label, "%s is there", out);
  }
  free(log);
}

static void expect(const char *name, const char *text, const char *message) {
  expect_with(name, text, strlen(text), NULL, message);
}

static char *with(const char *add) {
  static char buf[4096];
  snprintf(buf, sizeof buf, "%s%s", good, add);
  return buf;
}

/* good with line 3 (llvm_target) replaced by line. */
static char *target_line(const char *line) {
  static char buf[4096];
  const char *l3 = strstr(good, "llvm_target"), *l4 = strchr(l3, '\n') + 1;
  snprintf(buf, sizeof buf, "%.*s%s\n%s", (int)(l3 - good), good, line, l4);
  return buf;
}

/* Runs specgen on text and returns its table (malloc'd), or NULL. */
static char *table_of(const char *text, const char *spec) {
  const char *out = tmp_path("table.def");
  spill(spec, text, strlen(text));
  remove(out);
  const char *argv[] = {"build/specgen", spec, out, NULL};
  char *log = NULL;
  int rc = run(argv, &log);
  free(log);
  return rc ? NULL : (char *)slurp(out, NULL);
}

/* The components specgen prints for text. */
static char *components_of(const char *text) {
  const char *spec = tmp_path("c.spec");
  spill(spec, text, strlen(text));
  const char *argv[] = {"build/specgen", "--llvm-components", spec, NULL};
  char *log = NULL;
  int rc = run(argv, &log);
  if (rc) {
    free(log);
    return NULL;
  }
  return log;
}

/* Compiles prog with def as its gpublob_targets.def (-std=c11 -pedantic-errors
** -Werror, src/ on the include path) and runs it; the compiler's exit (-1: none
** ran), the program's in *prog_rc, cc's output in *log. */
static int compile_with_table(const char *def, const char *prog, int *prog_rc, char **log) {
  const char *defp = tmp_path("gpublob_targets.def"), *src = tmp_path("t.c"), *exe = tmp_path("t");
  spill(defp, def, strlen(def));
  spill(src, prog, strlen(prog));
  remove(exe);
  const char *cc[] = {"cc", "-std=c11", "-pedantic-errors", "-Wall", "-Wextra", "-Werror", "-Isrc", "-o", exe,
                      src, NULL};
  int rc = run(cc, log);
  if (rc == 127 || rc < 0) return -1;
  const char *prog_argv[] = {exe, NULL};
  *prog_rc = rc ? -1 : run(prog_argv, NULL);
  return rc;
}

/* A program that builds target_desc as src/internal.h does, its table from the .def. */
#define TABLE_PROGRAM(main_body)                                                                 \
  "#include <string.h>\n#include \"spec_keys.h\"\n"                                              \
  "typedef struct target_desc { const char *name; GPUBLOB_SPEC_KEYS(GPUBLOB_SPEC_FIELD) } target_desc;\n" \
  "static const target_desc t[] = {\n#define GPUBLOB_TARGET_BEGIN(name) {\n"                     \
  "#define GPUBLOB_TARGET_END },\n#include \"gpublob_targets.def\"\n};\n"                         \
  "int main(void) { " main_body " }\n"

/* A table compiled with -std=c11 gives back the spec's strings byte for byte. */
static void compiled_table(void) {
  static const char spec[] =
      "[target t]\ntriple = spirv64-unknown-unknown\nllvm_target = SPIRV\nchip = generic\n"
      "chips = generic\nemit = obj\ntool_kind = none\nattribute = a\"b\\c?? \xc3\xa9??x\n"
      "suffix_asm = .s\nsuffix_bin = .spv\n";
  const char *name = "specgen: a table of quotes, backslashes, ?? and UTF-8 compiles as C11";
  char *def = table_of(spec, tmp_path("c.spec")), *log = NULL;
  if (!def) {
    check(0, name, "specgen failed");
    return;
  }
  static const char prog[] = TABLE_PROGRAM(
      "return strcmp(t[0].attribute, \"a\\\"b\\\\c\\?\\? \\303\\251\\?\\?x\") != 0;");
  int rc2 = -1, rc = compile_with_table(def, prog, &rc2, &log);
  if (rc < 0) skip(name, "no cc");
  else {
    check(rc == 0, name, "cc exit %d: %s", rc, log);
    check_if(rc == 0, rc2 == 0, "specgen: a table of quotes, backslashes, ?? and UTF-8 compiles as C11: the strings match",
             "program exit %d", rc2);
  }
  free(log);
  log = NULL;
  /* One program per property: each returns 0 where its property holds. */
  static const struct { const char *what, *holds; } props[] = {
      {"emit is the CENUM's constant EMIT_obj", "t[0].emit == EMIT_obj"},
      {"emit_name is its word \"obj\"", "!strcmp(t[0].emit_name, \"obj\")"},
      {"tool_input defaults to INPUT_file", "t[0].tool_input == INPUT_file"},
      {"tool_input_name defaults to \"file\"", "!strcmp(t[0].tool_input_name, \"file\")"},
      {"provider defaults to PROVIDER_none", "t[0].provider == PROVIDER_none"},
      {"constant_space defaults to 0", "t[0].constant_space == 0"},
      {"asm_parser defaults to \"no\"", "!strcmp(t[0].asm_parser, \"no\")"},
      {"llvm_target is \"SPIRV\"", "!strcmp(t[0].llvm_target, \"SPIRV\")"},
      {"an absent mlir_chip is \"\"", "!*t[0].mlir_chip"}};
  for (size_t i = 0; i < sizeof props / sizeof *props; i++) {
    char defaults[4096], what[256];
    snprintf(defaults, sizeof defaults, TABLE_PROGRAM("return !(%s);"), props[i].holds);
    snprintf(what, sizeof what, "specgen: a CENUM's constant and word, defaults and absent keys in the table: %s",
             props[i].what);
    rc2 = -1;
    rc = compile_with_table(def, defaults, &rc2, &log);
    if (rc < 0) skip(what, "no cc");
    else {
      check(rc == 0, what, "cc exit %d: %s", rc, shown(log));
      check_if(rc == 0, rc2 == 0, what, "program exit %d (%s)", rc2, props[i].holds);
    }
    free(log);
    log = NULL;
  }
  free(def);
}

/* The table refuses an includer that defines none of its macros, or half of a pair,
** or a key list other than the one it was written for. */
static void misused_table(void) {
  char *def = table_of(good, tmp_path("m.spec"));
  static const struct { const char *name, *prog, *error; } cases[] = {
      {"specgen: the table included for nothing is an #error",
       "#include \"gpublob_targets.def\"\nint main(void) { return 0; }\n",
       "gpublob_targets.def: define what you include it for first"},
      {"specgen: GPUBLOB_TARGET_BEGIN without GPUBLOB_TARGET_END is an #error",
       "#include \"spec_keys.h\"\n#define GPUBLOB_TARGET_BEGIN(name) {\n#include \"gpublob_targets.def\"\n"
       "int main(void) { return 0; }\n",
       "define GPUBLOB_TARGET_BEGIN(name) and GPUBLOB_TARGET_END together"},
      {"specgen: the targets without src/spec_keys.h are an #error",
       "struct s { const char *name; };\nstatic const struct s t[] = {\n#define GPUBLOB_TARGET_BEGIN(n) {\n"
       "#define GPUBLOB_TARGET_END },\n#include \"gpublob_targets.def\"\n};\nint main(void) { return !t; }\n",
       "not for the src/spec_keys.h included (or none)"}};
  for (size_t i = 0; def && i < sizeof cases / sizeof *cases; i++) {
    char *log = NULL;
    int rc2, rc = compile_with_table(def, cases[i].prog, &rc2, &log);
    if (rc < 0) skip(cases[i].name, "no cc");
    else {
      char what[256];
      snprintf(what, sizeof what, "%s: cc refuses it", cases[i].name);
      check(rc != 0, what, "cc exit %d: %s", rc, shown(log));
      snprintf(what, sizeof what, "%s: cc's output has the #error's text", cases[i].name);
      check(contains(log, cases[i].error), what, "want '%s' in: %s", cases[i].error, shown(log));
    }
    free(log);
  }
  check(def != NULL, "specgen: a good spec gives a table", NULL);
  free(def);
}

/* ---- the digest: XXH3-128 of the entries, which hold every key of every target ---- */
/* The table's GPUBLOB_SPEC_DIGEST(...) line, or "" (a static buffer). */
static const char *digest_line(const char *def) {
  static char line[256];
  const char *d = def ? strstr(def, "\nGPUBLOB_SPEC_DIGEST(") : NULL;
  const char *end = d ? strchr(d + 1, '\n') : NULL;
  snprintf(line, sizeof line, "%.*s", end ? (int)(end - d - 1) : 0, end ? d + 1 : "");
  return line;
}

static char *copy_of(const char *s) {
  char *c = malloc(strlen(s) + 1);
  if (c) strcpy(c, s);
  return c;
}

/* The digest of the spec text, as specgen writes it into the table (malloc'd). */
static char *spec_digest(const char *text) {
  char *def = table_of(text, tmp_path("d.spec"));
  char *line = copy_of(digest_line(def));
  free(def);
  return line;
}

static void expect_digests(const char *name, const char *a, const char *b, int same) {
  char *da = spec_digest(a), *db = spec_digest(b);
  char what[256];
  snprintf(what, sizeof what, "%s: the first spec has a digest", name);
  check(*da, what, "'%s'", da);
  snprintf(what, sizeof what, "%s: the second spec has a digest", name);
  check(*db, what, "'%s'", db);
  check_if(*da && *db, (strcmp(da, db) == 0) == same, name, "%s / %s", da, db);
  free(da);
  free(db);
}

/* The table's entries: from its first GPUBLOB_TARGET_BEGIN line to the end of its last
** GPUBLOB_TARGET_END line. */
static const char *entries_of(const char *def, size_t *size) {
  const char *first = def ? strstr(def, "\nGPUBLOB_TARGET_BEGIN(") : NULL, *last = NULL;
  for (const char *p = first; p && (p = strstr(p + 1, "\nGPUBLOB_TARGET_END\n"));) last = p;
  if (!first || !last) return NULL;
  *size = (size_t)(last + strlen("\nGPUBLOB_TARGET_END\n") - (first + 1));
  return first + 1;
}

static int count_of(const char *s, const char *part) {
  int n = 0;
  for (const char *p = s; p && (p = strstr(p, part)); p++) n++;
  return n;
}

/* Whether each of the entries has a field for key. */
static int in_every_entry(const char *entries, const char *key, int targets) {
  char field[128];
  snprintf(field, sizeof field, "\n  .%s = ", key);
  if (count_of(entries, field) == targets) return 1;
  printf("  no field %s in every entry\n", key);
  return 0;
}

/* The real table: its digest is the XXH3-128 of its entries, and every key of
** src/spec_keys.h is a field of every entry, so no key's value escapes the digest. */
static void real_table_digest(void) {
  char *def = (char *)slurp("build/gpublob_targets.def", NULL);
  size_t size = 0;
  const char *entries = entries_of(def, &size);
  char want[256] = "", *w = want;
  if (entries) {
    XXH128_canonical_t c;
    XXH128_canonicalFromHash(&c, XXH3_128bits(entries, size));
    w += sprintf(w, "GPUBLOB_SPEC_DIGEST(");
    for (int i = 0; i < 16; i++) w += sprintf(w, "%s0x%02x", i ? ", " : "", c.digest[i]);
    sprintf(w, ")");
  }
  check(entries != NULL, "specgen: the digest is the XXH3-128 of the entries: the table has entries", "%s",
        def ? "no GPUBLOB_TARGET_BEGIN .. GPUBLOB_TARGET_END" : "build/gpublob_targets.def unread");
  check_if(entries != NULL, same_str(digest_line(def), want), "specgen: the digest is the XXH3-128 of the entries",
           "%s, want %s", digest_line(def), want);
  int targets = count_of(entries, "\nGPUBLOB_TARGET_BEGIN(") + 1, missing = 0;
#define KEY_IN_EVERY_ENTRY(key, presence, type, form, doc) missing += !in_every_entry(entries, #key, targets);
  if (entries) {
    GPUBLOB_SPEC_KEYS(KEY_IN_EVERY_ENTRY)
  }
  check_if(entries != NULL, targets >= 3, "specgen: every key of src/spec_keys.h is in every entry: 3 targets or more",
           "%d targets", targets);
  check_if(entries != NULL, missing == 0, "specgen: every key of src/spec_keys.h is in every entry",
           "%d targets, %d keys missing", targets, missing);
  free(def);
}

/* good with add appended (malloc'd: with()'s buffer is shared). */
static char *good_with(const char *add) { return copy_of(with(add)); }

static void digests(void) {
  char other[4096];
  snprintf(other, sizeof other, "%s", good);
  memcpy(strstr(other, ".spv\n"), ".spw", 4);
  expect_digests("specgen: one changed value changes the digest", good, other, 0);
  snprintf(other, sizeof other, "%s", good);
  memcpy(strstr(other, "[target t]"), "[target u]", 10);
  expect_digests("specgen: a renamed target changes the digest", good, other, 0);
  char *more = good_with("symbol_chars = a-z\n");
  expect_digests("specgen: an optional key set changes the digest", good, more, 0);
  free(more);
  more = good_with("tool_input = file\n");
  expect_digests("specgen: a key set to its default keeps the digest", good, more, 1);
  free(more);
  static const char reordered[] =
      "# the same target, its keys in another order\n[target t]\nsuffix_bin = .spv\nsuffix_asm = .spvasm\n"
      "attribute = spirv.binary\ntool_kind = none\nemit = obj\nchips = \\\n  generic\nchip = generic\n"
      "llvm_target = SPIRV\ntriple = spirv64-unknown-unknown\n";
  expect_digests("specgen: key order, comments and continuations keep the digest", good, reordered, 1);
  real_table_digest();
}

/* ---- inherit = NAME ---- */
static void inherits(void) {
  expect("specgen: inherit from an unknown target", with("[target u]\ninherit = nosuch\n"),
         "12: 'inherit': no target 'nosuch' in the spec");
  expect("specgen: inherit not first", with("[target u]\nchip = generic\ninherit = t\n"),
         "13: 'inherit' must be the first key of target 'u' ('chip' comes before it, at line 12)");
  expect("specgen: inherit from itself", with("[target u]\ninherit = u\n"),
         "12: 'inherit': target 'u' cannot inherit from itself");
  expect("specgen: inherit from a later target", with("[target u]\ninherit = v\n[target v]\ninherit = t\n"),
         "12: 'inherit': target 'v' comes later (line 13); a target inherits from an earlier one");
  expect("specgen: inherit twice", with("[target u]\ninherit = t\ninherit = t\n"),
         "13: duplicate key 'inherit' (first at line 12)");
  expect("specgen: an inherited value is checked in its new target, at the inherit line",
         with("[target u]\ninherit = t\nchips = other\n"), "12: default chip 'generic' is not in 'chips'");
  char *def = table_of(with("[target u]\ninherit = t\nsuffix_bin = .u\n[target v]\ninherit = u\nchip = c\n"
                            "chips = c generic\n"),
                       tmp_path("i.spec"));
  const char *u = def ? strstr(def, "GPUBLOB_TARGET_BEGIN(\"u\")") : NULL;
  const char *v = u ? strstr(u, "GPUBLOB_TARGET_BEGIN(\"v\")") : NULL;
  const char *shown_def = def ? def : "specgen failed";
  check(v != NULL, "specgen: a target inherits every key it does not set, from a target that inherits too: "
        "the table has u, then v", "%s", shown_def);
  check_if(v != NULL, contains(u, ".triple = \"spirv64-unknown-unknown\""),
           "specgen: a target inherits every key it does not set, from a target that inherits too: u's triple from t",
           "%s", shown_def);
  check_if(v != NULL, contains(u, ".suffix_bin = \".u\""),
           "specgen: a target inherits every key it does not set, from a target that inherits too: u's own suffix_bin",
           "%s", shown_def);
  check_if(v != NULL, contains(v, ".suffix_bin = \".u\""),
           "specgen: a target inherits every key it does not set, from a target that inherits too: v's suffix_bin "
           "from u", "%s", shown_def);
  check_if(v != NULL, contains(v, ".chip = \"c\""),
           "specgen: a target inherits every key it does not set, from a target that inherits too: v's own chip",
           "%s", shown_def);
  check_if(v != NULL, contains(v, ".attribute = \"spirv.binary\""),
           "specgen: a target inherits every key it does not set, from a target that inherits too: v's attribute "
           "from t, through u", "%s", shown_def);
  free(def);
  def = (char *)slurp("build/tests/rdna/gpublob_targets.def", NULL);
  const char *rdna = def ? strstr(def, "GPUBLOB_TARGET_BEGIN(\"rdna\")") : NULL;
  check(rdna != NULL, "specgen: tests/rdna.spec is amdgcn with its differences: the table has rdna", "%s",
        def ? "no GPUBLOB_TARGET_BEGIN(\"rdna\")" : "build/tests/rdna/gpublob_targets.def unread");
  check_if(rdna != NULL, contains(rdna, ".chip = \"gfx1100\""),
           "specgen: tests/rdna.spec is amdgcn with its differences: chip gfx1100", "%.1500s", rdna);
  check_if(rdna != NULL, contains(rdna, ".tool_input = INPUT_pipe"),
           "specgen: tests/rdna.spec is amdgcn with its differences: tool_input pipe", "%.1500s", rdna);
  check_if(rdna != NULL, contains(rdna, ".triple = \"amdgcn-amd-amdhsa\""),
           "specgen: tests/rdna.spec is amdgcn with its differences: amdgcn's triple", "%.1500s", rdna);
  check_if(rdna != NULL, contains(rdna, ".mlir_target = \"\""),
           "specgen: tests/rdna.spec is amdgcn with its differences: no mlir_target", "%.1500s", rdna);
  free(def);
}

int main(void) {
  expect("specgen: a good spec passes", good, NULL);
  expect("specgen: unknown key", with("colour = blue\n"), "11: unknown key 'colour'");
  expect("specgen: duplicate key", with("chip = generic\n"), "11: duplicate key 'chip' (first at line 4)");
  expect("specgen: missing key", "[target t]\ntriple = x\n", "1: target 't': missing key 'chip'");
  expect("specgen: duplicate target", with("[target t]\n"), "11: duplicate target 't'");
  expect("specgen: key outside a section", "triple = x\n", "1: key 'triple' outside");
  expect("specgen: bad emit value", "[target t]\ntriple = x\nllvm_target = SPIRV\nchip = c\nchips = c\n"
         "emit = elf\ntool_kind = none\nattribute = a\nsuffix_asm = .s\nsuffix_bin = .b\n",
         "6: 'emit': unknown value 'elf'");
  expect("specgen: unknown placeholder", with("libs = lib_{arch}.bc\nlib_search = /x\n"),
         "11: 'libs': unknown placeholder '{arch}'");
  expect("specgen: unknown condition", with("libs = l_{if:turbo:a:b}.bc\nlib_search = /x\n"),
         "11: 'libs': unknown condition 'turbo'");
  expect("specgen: default chip not among chips", with("[target u]\ntriple = x\nllvm_target = SPIRV\n"
         "chip = c9\nchips = c1 c2\nemit = obj\ntool_kind = none\nattribute = a\nsuffix_asm = .s\n"
         "suffix_bin = .b\n"), "14: default chip 'c9' is not in 'chips'");
  expect("specgen: exec tool needs its argv", with("[target u]\ntriple = x\nllvm_target = SPIRV\n"
         "chip = c\nchips = c\nemit = obj\ntool_kind = exec\ntool = t\ntool_search = /x\n"
         "attribute = a\nsuffix_asm = .s\nsuffix_bin = .b\n"), "11: target 'u': tool_kind exec needs key 'tool_argv'");
  expect("specgen: bad module flag behaviour", with("module_flags = x=sometimes:1\n"),
         "11: 'module_flags': unknown behaviour 'sometimes'");
  expect("specgen: malformed line", with("just words\n"), "11: expected 'key = value'");
  /* libm: a template makes one name from {name}; an intrinsic glob may end in !afn */
  expect("specgen: libm_float without {name}", with("libm_float = __nv_sinf\n"),
         "11: 'libm_float': '__nv_sinf' is not one function name made from {name}");
  expect("specgen: libm_double of two words", with("libm_double = __x_{name} y\n"),
         "11: 'libm_double': '__x_{name} y' is not one function name made from {name}");
  expect("specgen: libm_float with an unknown placeholder", with("libm_float = __x_{name}_{arch}\n"),
         "11: 'libm_float': unknown placeholder '{arch}' (this key has: name chip chipid targetid chipversion abi opt)");
  expect("specgen: libm_intrinsics with another condition", with("libm_intrinsics = sin.* cos.*!nnan\n"),
         "11: 'libm_intrinsics': 'cos.*!nnan' is not a glob of intrinsic names");
  expect("specgen: libm_intrinsics with only a condition", with("libm_intrinsics = !afn\n"),
         "11: 'libm_intrinsics': '!afn' is not a glob of intrinsic names");
  expect("specgen: libm keys as the spec writes them",
         with("libm_float = __nv_{name}f\nlibm_double = __nv_{name}\nlibm_intrinsics = sin.*!afn exp.*\n"
              "undefined_ok = vprintf *\n"), NULL);

  /* numbers as C reads them: no leading zero, sign or other character */
  expect("specgen: constant_space with a leading zero", with("constant_space = 010\n"),
         "11: 'constant_space': '010' is not a number of address space");
  expect("specgen: constant_space with a sign", with("constant_space = +3\n"),
         "11: 'constant_space': '+3' is not a number of address space");
  expect("specgen: constant_space not digits", with("constant_space = 3x\n"),
         "11: 'constant_space': '3x' is not a number of address space");
  expect("specgen: provider_min is no key (auto no longer depends on the call's size)",
         with("provider_min = 3\n"), "11: unknown key 'provider_min'");
  expect("specgen: entry_cc number with a leading zero", with("entry_cc = spir_kernel 076\n"),
         "11: 'entry_cc': unknown calling convention '076'");
  /* trigraphs: -std=c11 replaces them even in a string literal */
  expect("specgen: a trigraph in a value", with("mlir_target = x?\?=y\n"),
         "11: 'mlir_target': '?\?=' is a C trigraph");
  expect("specgen: a trigraph on a continuation line", with("lib_search = /a \\\n  /b?\?/c\n"),
         "11: 'lib_search': '?\?/' is a C trigraph");
  expect("specgen: ?? before another character passes", with("mlir_target = x??y\n"), NULL);
  /* control constants, chip versions, modifiers, ABI versions, MLIR flags (AMD's, as data) */
  expect("specgen: constants well formed",
         with("chip_version = generic:1\nconstants = c_a:i32={chipversion} c_b:i8={if:daz:1:0}\n"), NULL);
  expect("specgen: a constant of an unknown type", with("constants = c_a:f32=1\n"),
         "11: 'constants': 'c_a:f32=1' is not NAME:TYPE=VALUE");
  expect("specgen: a constant without a value", with("constants = c_a:i32\n"),
         "11: 'constants': 'c_a:i32' is not NAME:TYPE=VALUE");
  expect("specgen: a constant with an unknown placeholder", with("constants = c_a:i32={chipnum}\n"),
         "11: 'constants': unknown placeholder '{chipnum}'");
  expect("specgen: a constant with an unknown condition", with("constants = c_a:i8={if:turbo:1:0}\n"),
         "11: 'constants': unknown condition 'turbo'");
  expect("specgen: a chip without a version", with("chip_version = other:1\n"),
         "11: 'chip_version': chip 'generic' has no version");
  expect("specgen: a chip with two versions", with("chip_version = generic:1 generic:2\n"),
         "11: 'chip_version': chip 'generic' has more than one version");
  expect("specgen: a chip version not a number", with("chip_version = generic:1a\n"),
         "11: 'chip_version': '1a' is not a plain number");
  expect("specgen: a chip modifier with a sign", with("chip_modifiers = gen*:+xnack\n"),
         "11: 'chip_modifiers': '+xnack' is not a feature name");
  expect("specgen: abi not among abi_versions", with("abi = 500\nabi_versions = 400 600\n"),
         "11: 'abi': '500' is not one of 'abi_versions'");
  expect("specgen: abi_versions without abi", with("abi_versions = 400 600\n"),
         "11: 'abi_versions' needs 'abi'");
  expect("specgen: abi_min not among abi_versions", with("abi = 500\nabi_versions = 500\nabi_min = g*:600\n"),
         "13: 'abi_min': '600' is not one of 'abi_versions'");
  expect("specgen: {abi} in module_flags without abi", with("module_flags = cov=error:{abi}\n"),
         "11: 'module_flags': {abi} needs key 'abi'");
  expect("specgen: mlir_flags with an unknown option", with("mlir_flags = fast:turbo\n"),
         "11: 'mlir_flags': 'fast:turbo' is not FLAG:+feature");
  expect("specgen: a constant of type i3 (not i8)", with("constants = c_a:i3=1\n"),
         "11: 'constants': 'c_a:i3=1' is not NAME:TYPE=VALUE");
  expect("specgen: a constant that must agree", with("constants = c_a:i8=={if:daz:1:0}\n"), NULL);
  expect("specgen: a constant given twice", with("constants = c_a:i8=1 c_a:i32=2\n"),
         "11: 'constants': 'c_a' is given twice");
  expect("specgen: an mlir flag given twice", with("mlir_flags = fast:fast-math fast:daz\n"),
         "11: 'mlir_flags': flag 'fast' is given twice");
  expect("specgen: a module flag of a placeholder that is no number", with("module_flags = cov=error:{chipid}\n"),
         "11: 'module_flags': value '{chipid}' is not a plain number");
  expect("specgen: unsupported_types of a type LLVM has no kind for", with("unsupported_types = bfloat16\n"),
         "11: 'unsupported_types': 'bfloat16' is not one of half bfloat");
  expect("specgen: unsupported_types well formed", with("unsupported_types = bfloat fp128\n"), NULL);
  expect("specgen: mlir_flags well formed", with("mlir_flags = fast:fast-math wave64:+wavefrontsize64\n"), NULL);
  expect("specgen: mlir_abi not among abi_versions", with("abi = 500\nabi_versions = 500\nmlir_abi = 600\n"),
         "13: 'mlir_abi': '600' is not one of 'abi_versions'");
  /* MLIR dialects: each a C API handle of LLVM 22 */
  expect("specgen: mlir_dialects known", with("mlir_dialects = llvm nvvm rocdl spirv\n"), NULL);
  expect("specgen: mlir_dialects without a handle", with("mlir_dialects = llvm foo\n"),
         "11: 'mlir_dialects': 'foo' is not an MLIR dialect with a C API handle in LLVM 22");
  expect("specgen: mlir_dialects not an identifier", with("mlir_dialects = llvm nv-vm\n"),
         "11: 'mlir_dialects': 'nv-vm' is not a dialect name");
  expect("specgen: mlir_dialects in upper case", with("mlir_dialects = NVVM\n"),
         "11: 'mlir_dialects': 'NVVM' is not a dialect name");
  /* llvm_target: LLVM 22's names, or --llvm-targets, in LLVM's case */
  expect("specgen: llvm_target in the wrong case", target_line("llvm_target = spirv"),
         "3: 'llvm_target': unknown LLVM target 'spirv' (LLVM 22 has: AArch64 AMDGPU");
  expect("specgen: unknown llvm_target", target_line("llvm_target = GPU9000"),
         "3: 'llvm_target': unknown LLVM target 'GPU9000'");
  expect("specgen: another LLVM 22 target passes", target_line("llvm_target = X86"), NULL);
  const char *tl = target_line("llvm_target = X86");
  expect_with("specgen: llvm_target outside --llvm-targets", tl, strlen(tl), "NVPTX AMDGPU SPIRV",
              "3: 'llvm_target': 'X86' is not a backend of this LLVM (--llvm-targets: NVPTX AMDGPU SPIRV)");
  expect_with("specgen: llvm_target within --llvm-targets", good, strlen(good), "NVPTX AMDGPU SPIRV", NULL);
  expect_with("specgen: an empty --llvm-targets is LLVM 22's list", tl, strlen(tl), "", NULL);
  /* a NUL byte, where it is */
  static const char nul[] = "[target t]\ntriple = spirv64-unknown-unknown\nllvm_target = SPI\0RV\n";
  expect_with("specgen: a NUL byte", nul, sizeof nul - 1, NULL, "3: NUL byte (column 18)");
  char *nul2 = with("mlir_chip = generic\n");
  size_t nl = strlen(nul2);
  nul2[nl - 4] = 0;
  expect_with("specgen: a NUL byte on the last line", nul2, nl, NULL, "11: NUL byte");
  /* what would compile into something else, or not link */
  expect("specgen: a control character", with("mlir_target = a\001b\n"), "11: control character 0x01 (column 16)");
  expect("specgen: module flag behaviour needing metadata", with("module_flags = x=require:1\n"),
         "11: 'module_flags': behaviour 'require' needs a metadata value");
  expect("specgen: module flag value with a leading zero", with("module_flags = x=error:010\n"),
         "11: 'module_flags': value '010' is not a plain number");
  expect("specgen: module flag value not a number", with("module_flags = x=error:{if:ftz:1:on}\n"),
         "11: 'module_flags': value '{if:ftz:1:on}' is not a plain number");
  expect("specgen: module flag value of an unknown condition", with("module_flags = x=error:{if:turbo:1:0}\n"),
         "11: 'module_flags': unknown condition 'turbo'");
  expect("specgen: module flag value of a condition", with("module_flags = x=override:{if:ftz:1:0}\n"), NULL);
  expect("specgen: an MLIR job's module flags are checked as module_flags", with("mlir_module_flags = x=append:1\n"),
         "11: 'mlir_module_flags': behaviour 'append' needs a metadata value");
  expect("specgen: an MLIR job's module flag of an unknown condition",
         with("mlir_module_flags = x=error:{if:turbo:1:0}\n"), "11: 'mlir_module_flags': unknown condition 'turbo'");
  expect("specgen: an MLIR job's module flags", with("mlir_module_flags = x=override:{if:ftz:1:0} y=error:7\n"), NULL);
  expect("specgen: mlir_lib_link always without libs", with("mlir_lib_link = always\n"),
         "11: target 't': 'mlir_lib_link = always' needs 'libs'");
  expect("specgen: mlir_lib_link of another word", with("mlir_lib_link = sometimes\n"),
         "11: 'mlir_lib_link': unknown value 'sometimes'");
  expect("specgen: mlir_lib_link always with libs", with("mlir_lib_link = always\nlibs = l.bc\nlib_search = /x\n"),
         NULL);
  expect("specgen: placeholder the key does not expand", with("libs = l_{in}.bc\nlib_search = /x\n"),
         "11: 'libs': unknown placeholder '{in}' (this key has: chip chipid targetid chipversion abi opt)");
  expect("specgen: asm_parser of a backend without one", with("asm_parser = yes\n"),
         "11: 'asm_parser': LLVM's SPIRV backend has no assembly parser");
  expect("specgen: feature_min not the version feature", with("version_feature = ptx\nfeature_min = generic:78\n"),
         "12: 'feature_min': '78' is not ptxNUMBER");
  expect("specgen: chip_features without a sign", with("chip_features = gen*:wavefrontsize64\n"),
         "11: 'chip_features': 'wavefrontsize64' is not +feature or -feature");
  expect("specgen: a target name too long for gpublob", "[target "
         "t123456789012345678901234567890123456789012345678901234567890123]\n",
         "1: target name 't1234567890");
  expect("specgen: one mlir_target for two targets",
         with("mlir_target = x.target\n[target u]\ntriple = x\nllvm_target = SPIRV\nchip = c\nchips = c\n"
              "emit = obj\ntool_kind = none\nattribute = a\nsuffix_asm = .s\nsuffix_bin = .b\n"
              "mlir_target = x.target\n"),
         "22: 'mlir_target': 'x.target' is target 't''s too (line 11)");
  expect("specgen: {images} inside a word",
         with("[target u]\ntriple = x\nllvm_target = NVPTX\nchip = c\nchips = c\nemit = asm\n"
              "tool_kind = exec\ntool = t\ntool_argv = {tool}\ntool_search = /x\nattribute = a\n"
              "suffix_asm = .s\nsuffix_bin = .b\npack_tool = p\npack_argv = {tool} --images={images}\n"
              "pack_image = {in}\nsuffix_pack = .f\n"),
         "25: 'pack_argv' has no {images} word");
  /* the pack step: a program, an in-process provider, the ids of its entries */
  expect("specgen: a pack provider alone is a pack step",
         with("pack_provider = offload_bundle\npack_target = x-{chip}\nsuffix_pack = .p\n"), NULL);
  expect("specgen: an unknown metadata reader", with("metadata = elf\n"), "11: 'metadata': unknown value 'elf'");
  expect("specgen: pack_metadata without metadata", with("pack_metadata = fatbin\npack_provider = offload_bundle\npack_target = x-{chip}\nsuffix_pack = .p\n"),
         "11: 'pack_metadata': reading a pack's members needs key 'metadata'");
  expect("specgen: pack_metadata without a pack",
         with("metadata = nv_info\npack_metadata = fatbin\n"), "12: 'pack_metadata' needs a pack step (key 'suffix_pack')");
  expect("specgen: an unknown pack provider", with("pack_provider = zip\n"), "11: 'pack_provider': unknown value 'zip'");
  expect("specgen: a pack provider without pack_target", with("pack_provider = offload_bundle\nsuffix_pack = .p\n"),
         "11: target 't': pack_provider offload_bundle needs key 'pack_target' (each entry's id)");
  expect("specgen: a pack provider without suffix_pack", with("pack_provider = offload_bundle\npack_target = x-{chip}\n"),
         "1: target 't': packing needs key 'suffix_pack'");
  expect("specgen: pack_target naming no chip",
         with("pack_provider = offload_bundle\npack_target = x\nsuffix_pack = .p\n"),
         "12: 'pack_target': 'x' names no chip ({chip}, {chipid} or {targetid})");
  expect("specgen: pack_target holding a comma",
         with("pack_provider = offload_bundle\npack_target = a,{chip}\nsuffix_pack = .p\n"),
         "12: 'pack_target': an entry's id is one word without a comma: 'a,{chip}'");
  expect("specgen: pack_target with a placeholder it does not expand",
         with("pack_provider = offload_bundle\npack_target = a-{chip}-{in}\nsuffix_pack = .p\n"),
         "12: 'pack_target': unknown placeholder '{in}' (this key has: chip chipid targetid chipversion abi opt)");
  expect("specgen: pack_provider_argv without a provider", with("pack_provider_argv = -x\n"),
         "11: 'pack_provider_argv' needs a 'pack_provider'");
  expect("specgen: a pack program without pack_image", with("pack_tool = p\npack_argv = {tool} {images}\nsuffix_pack = .p\n"),
         "1: target 't': packing with a program needs key 'pack_image'");
  expect("specgen: {targets} without pack_target",
         with("tool_search = /x\npack_tool = p\npack_argv = {tool} -t={targets} {images}\npack_image = {in}\n"
              "suffix_pack = .p\n"),
         "13: 'pack_argv': {targets} needs key 'pack_target'");
  expect("specgen: {targets} with pack_target",
         with("tool_search = /x\npack_tool = p\npack_argv = {tool} -t={targets} {images}\npack_image = {in}\n"
              "pack_target = k-{chip}\nsuffix_pack = .p\n"), NULL);
  expect("specgen: a 24-byte pack_magic", with("pack_magic = 5f5f434c414e475f4f46464c4f41445f42554e444c455f5f\n"), NULL);
  expect("specgen: a magic of more than 32 bytes", with("bin_magic = 5f5f434c414e475f4f46464c4f41445f42554e444c455f5f5f5f434c414e475f4f46\n"),
         "11: 'bin_magic': '5f5f");
  /* the table: escaped bytes, a long entry_cc list kept whole, the path's comment */
  char long_cc[2048] = "entry_cc =";
  for (int i = 0; i < 150; i++) strcat(long_cc, " spir_kernel");
  strcat(long_cc, " 1023\n");
  char *def = table_of(with(long_cc), tmp_path("cc.spec"));
  check(contains(def, "76 76 76 1023\""), "specgen: a long entry_cc list is kept whole", "%s",
        def ? def : "specgen failed");
  free(def);
  char dir[4300];
  snprintf(dir, sizeof dir, "%s", tmp_path("odd*"));
  mkdir(dir, 0700);
  snprintf(dir + strlen(dir), sizeof dir - strlen(dir), "/t.spec");
  def = table_of(good, dir);
  char *first = def ? strchr(def, '\n') : NULL;
  if (first) *first = 0;
  check(lacks(def, "*/t.spec"), "specgen: a path with */ does not end the table's comment", "%s",
        def ? def : "specgen failed");
  check(contains(def, "DO NOT EDIT. */"), "specgen: a path with */ does not end the table's comment: the comment ends after",
        "%s", def ? def : "specgen failed");
  free(def);
  compiled_table();
  misused_table();
  digests();
  inherits();
  /* the components configure links: an assembly parser wherever a target asks */
  char two[4096];
  snprintf(two, sizeof two, "%s", target_line("llvm_target = AMDGPU"));
  strcat(two, "[target u]\ntriple = x\nllvm_target = AMDGPU\nasm_parser = yes\nchip = c\nchips = c\n"
              "emit = obj\ntool_kind = none\nattribute = a\nsuffix_asm = .s\nsuffix_bin = .b\n");
  char *comps = components_of(two);
  check(same_str(comps, "amdgpu amdgpuasmparser \n"),
        "specgen: --llvm-components names the assembly parser a later target needs", "got '%s'",
        comps ? comps : "(failed)");
  free(comps);

  size_t n = 0;
  def = (char *)slurp("build/gpublob_targets.def", &n);
  check(contains(def, "DO NOT EDIT"), "specgen: the real table is labelled generated", "%s",
        def ? "no DO NOT EDIT" : "no build/gpublob_targets.def");
  check(contains(def, "GPUBLOB_TARGET_BEGIN(\"nvptx\")"), "specgen: the real table lists the targets: nvptx", NULL);
  check(contains(def, "GPUBLOB_LLVM_TARGET(AMDGPU)"), "specgen: the real table lists the targets: LLVM's AMDGPU", NULL);
  free(def);
  return report();
}
