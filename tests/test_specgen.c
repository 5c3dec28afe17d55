/* test_specgen: the spec generator refuses bad specs with file:line: message,
** a non-zero exit and no output file, and labels its output DO NOT EDIT. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Runs specgen on text; checks exit, the message, and that no output is left. */
static void expect(const char *name, const char *text, const char *message) {
  const char *spec = tmp_path("t.spec"), *out = tmp_path("t.def");
  spill(spec, text, strlen(text));
  remove(out);
  const char *argv[] = {"build/specgen", spec, out, NULL};
  char *log = NULL;
  int rc = run(argv, &log);
  char want[512];
  snprintf(want, sizeof want, "%s:%s", spec, message);
  if (!message) check(rc == 0 && exists(out), name, "exit %d: %s", rc, log);
  else check(rc == 1 && contains(log, want) && !exists(out), name, "exit %d: %s (want %s)", rc, log, want);
  free(log);
}

static char *with(const char *add) {
  static char buf[4096];
  snprintf(buf, sizeof buf, "%s%s", good, add);
  return buf;
}

int main(void) {
  expect("specgen: a good spec passes", good, NULL);
  expect("specgen: unknown key", with("colour = blue\n"), "11: unknown key 'colour'");
  expect("specgen: duplicate key", with("chip = generic\n"), "11: duplicate key 'chip' (first at line 4)");
  expect("specgen: missing key", "[target t]\ntriple = x\n", "1: target 't': missing key 'chip'");
  expect("specgen: duplicate target", with("[target t]\n"), "11: duplicate target 't'");
  expect("specgen: key outside a section", "triple = x\n", "1: key 'triple' outside");
  expect("specgen: bad emit value", "[target t]\ntriple = x\nllvm_target = X\nchip = c\nchips = c\n"
         "emit = elf\ntool_kind = none\nattribute = a\nsuffix_asm = .s\nsuffix_bin = .b\n",
         "6: 'emit': unknown value 'elf'");
  expect("specgen: unknown placeholder", with("libs = lib_{arch}.bc\nlib_search = /x\n"),
         "11: 'libs': unknown placeholder '{arch}'");
  expect("specgen: unknown condition", with("libs = l_{if:turbo:a:b}.bc\nlib_search = /x\n"),
         "11: 'libs': unknown condition 'turbo'");
  expect("specgen: default chip not among chips", with("[target u]\ntriple = x\nllvm_target = X\n"
         "chip = c9\nchips = c1 c2\nemit = obj\ntool_kind = none\nattribute = a\nsuffix_asm = .s\n"
         "suffix_bin = .b\n"), "14: default chip 'c9' is not in 'chips'");
  expect("specgen: exec tool needs its argv", with("[target u]\ntriple = x\nllvm_target = X\n"
         "chip = c\nchips = c\nemit = obj\ntool_kind = exec\ntool = t\ntool_search = /x\n"
         "attribute = a\nsuffix_asm = .s\nsuffix_bin = .b\n"), "11: target 'u': tool_kind exec needs key 'tool_argv'");
  expect("specgen: bad module flag behaviour", with("module_flags = x=sometimes:1\n"),
         "11: 'module_flags': unknown behaviour 'sometimes'");
  expect("specgen: malformed line", with("just words\n"), "11: expected 'key = value'");

  size_t n = 0;
  char *def = (char *)slurp("build/gpublob_targets.def", &n);
  check(def && contains(def, "DO NOT EDIT") && contains(def, "GPUBLOB_TARGET(\"nvptx\"") &&
            contains(def, "GPUBLOB_LLVM_TARGET(AMDGPU)"),
        "specgen: the real table is labelled generated and lists the targets", NULL);
  free(def);
  return report();
}
