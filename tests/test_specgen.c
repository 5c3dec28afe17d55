/* test_specgen: the spec generator refuses bad specs with file:line: message,
** a non-zero exit and no output file, and labels its output DO NOT EDIT. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* A table compiled with -std=c11 gives back the spec's strings byte for byte. */
static void compiled_table(void) {
  static const char spec[] =
      "[target t]\ntriple = spirv64-unknown-unknown\nllvm_target = SPIRV\nchip = generic\n"
      "chips = generic\nemit = obj\ntool_kind = none\nattribute = a\"b\\c?? \xc3\xa9??x\n"
      "suffix_asm = .s\nsuffix_bin = .spv\n";
  char *def = table_of(spec, tmp_path("c.spec"));
  const char *defp = tmp_path("gpublob_targets.def"), *src = tmp_path("t.c"), *exe = tmp_path("t");
  if (!def) {
    check(0, "specgen: a table of quotes, backslashes, ?? and UTF-8 compiles as C11", "specgen failed");
    return;
  }
  spill(defp, def, strlen(def));
  free(def);
  static const char prog[] =
      "#include <stdio.h>\n#include <string.h>\n"
      "#define GPUBLOB_TARGET(name, triple, chip, a, b, c, d, e, f, g, emit, tk, ti, h, i, j, pr, k, l,"
      " m, pm, n, o, p, q, r, attribute, ...) \\\n"
      "  int main(void) { return strcmp(attribute, \"a\\\"b\\\\c\\?\\? \\303\\251\\?\\?x\") != 0; }\n"
      "#include \"gpublob_targets.def\"\n";
  spill(src, prog, strlen(prog));
  const char *cc[] = {"cc", "-std=c11", "-pedantic-errors", "-Wall", "-Werror", "-o", exe, src, NULL};
  char *log = NULL;
  int rc = run(cc, &log);
  if (rc == 127 || rc < 0) {
    skip("specgen: a table of quotes, backslashes, ?? and UTF-8 compiles as C11", "no cc");
    free(log);
    return;
  }
  const char *prog_argv[] = {exe, NULL};
  int rc2 = rc ? -1 : run(prog_argv, NULL);
  check(rc == 0, "specgen: a table of quotes, backslashes, ?? and UTF-8 compiles as C11", "cc exit %d: %s", rc, log);
  check_if(rc == 0, rc2 == 0, "specgen: a table of quotes, backslashes, ?? and UTF-8 compiles as C11: the strings match",
           "program exit %d", rc2);
  free(log);
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

  /* numbers as C reads them: no leading zero, sign or other character */
  expect("specgen: provider_min with a leading zero", with("provider_min = 010\n"),
         "11: 'provider_min': '010' is not a number of jobs");
  expect("specgen: provider_min with a sign", with("provider_min = +3\n"),
         "11: 'provider_min': '+3' is not a number of jobs");
  expect("specgen: provider_min not digits", with("provider_min = 3x\n"),
         "11: 'provider_min': '3x' is not a number of jobs");
  expect("specgen: entry_cc number with a leading zero", with("entry_cc = spir_kernel 076\n"),
         "11: 'entry_cc': unknown calling convention '076'");
  /* trigraphs: -std=c11 replaces them even in a string literal */
  expect("specgen: a trigraph in a value", with("mlir_target = x?\?=y\n"),
         "11: 'mlir_target': '?\?=' is a C trigraph");
  expect("specgen: a trigraph on a continuation line", with("lib_search = /a \\\n  /b?\?/c\n"),
         "11: 'lib_search': '?\?/' is a C trigraph");
  expect("specgen: ?? before another character passes", with("mlir_target = x??y\n"), NULL);
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
  expect("specgen: placeholder the key does not expand", with("libs = l_{in}.bc\nlib_search = /x\n"),
         "11: 'libs': unknown placeholder '{in}' (this key has: chip chipid opt)");
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
  check(contains(def, "GPUBLOB_TARGET(\"nvptx\""), "specgen: the real table lists the targets: nvptx", NULL);
  check(contains(def, "GPUBLOB_LLVM_TARGET(AMDGPU)"), "specgen: the real table lists the targets: LLVM's AMDGPU", NULL);
  free(def);
  return report();
}
