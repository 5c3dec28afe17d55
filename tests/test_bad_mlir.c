/* test_bad_mlir: bad MLIR through the CLI: unknown target attributes and flags, bad modules,
** bytecode garbage and cut short, deep nesting, NULs; then top-level ops without a
** module (wrapped) and #gpu.select_object past the objects.  The harness and the
** invariants every case keeps: tests/bad.h */
#include "bad.h"

static int gen_nested_mlir(const char *path) { /* an attribute of nested arrays */
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fputs("module attributes {gpu.container_module, test.deep = ", f);
  write_repeat(f, "[", DEEP);
  write_repeat(f, "]", DEEP);
  fputs("} {\n  gpu.module @kernels [#rocdl.target<chip = \"gfx90a\">] {\n" ROCDL_A "  }\n}\n", f);
  return fclose(f);
}

static int gen_mlirbc_garbage(const char *path) {
  static const char bc[] = "ML\xefR\x06garbage garbage garbage";
  return put(path, (const unsigned char *)bc, sizeof bc - 1);
}

static int gen_mlirbc_cut(const char *path) { /* real bytecode from mlir-opt, cut in half */
  const char *txt = tmp_path("k.mlir"), *bc = tmp_path("k.mlirbc");
  static const char k[] = MLIR_LLVM_KERNEL("[#rocdl.target<chip = \"gfx90a\">]", ROCDL_A);
  spill(txt, k, sizeof k - 1);
  const char *argv[] = {MLIR_OPT, "--emit-bytecode", txt, "-o", bc, NULL};
  size_t n;
  unsigned char *p;
  if (run(argv, NULL) != 0 || !(p = slurp(bc, &n)) || n < 32) {
    snprintf(gen_why, sizeof gen_why, "%s could not make MLIR bytecode", MLIR_OPT);
    return -1;
  }
  int rc = put(path, p, n / 2);
  free(p);
  return rc;
}

static int gen_nul_mlir(const char *path) {
  static const char t[] = "module {\n  gpu.mod\0ule @k {\n  }\n}\n";
  return put(path, (const unsigned char *)t, sizeof t - 1);
}

static const bad_case cases[] = {
    /* ---- MLIR ---- */
#define MT(args) args " @IN", .sfx = ".mlir"
    {"mlir: an unknown #rocdl.target flag", MT(""),
     .text = MLIR_GPU_KERNEL("[#rocdl.target<chip = \"gfx942\", flags = {turbo}>]"), .exit = E(OPTION),
     .msg = "flag 'turbo'"},
    {"mlir: #rocdl.target abi that is no number", MT(""),
     .text = MLIR_GPU_KERNEL("[#rocdl.target<chip = \"gfx942\", abi = \"v5\">]"), .exit = E(OPTION),
     .msg = "no ABI version"},
    {"mlir: unterminated module", MT("-t amdgcn"), .text = "module {\n  gpu.module @k {\n", .exit = E(PARSE)},
    {"mlir: garbage after the module", MT("-t amdgcn"), .text = "module {\n}\n}\n", .exit = E(PARSE)},
    {"mlir: unregistered operation", MT("-t amdgcn"), .text = "module {\n  foo.bar\n}\n", .exit = E(PARSE)},
    {"mlir: verifier error", MT("-t amdgcn"),
     .text = "module {\n  func.func @f() -> i32 {\n    %0 = \"arith.addi\"() : () -> i32\n    return %0 : i32\n  }\n}\n",
     .exit = E(PARSE), .msg = "in.mlir:3:"},
    {"mlir: invalid UTF-8", MT("-t amdgcn"), .text = "module {\n  \xff\xfe\n}\n", .exit = E(PARSE)},
    {"mlir: NUL inside an op name", MT("-t amdgcn"), .gen = gen_nul_mlir, .exit = E(PARSE)},
    {"mlir: 100000 nested arrays in an attribute", MT("-t amdgcn"), .gen = gen_nested_mlir, .exit = E(PARSE),
     .alt = E(BACKEND)},
    {"mlir: no gpu.module", MT("-t amdgcn"), .text = "module {\n  func.func @f() { return }\n}\n", .exit = E(NOGPU)},
    {"mlir: empty file", MT("-t amdgcn"), .text = "", .exit = E(NOGPU)},
    {"mlir: #spirv.target_env on a gpu-dialect body", MT(""), .text = MLIR_GPU_KERNEL("[#spirv.target_env<#spirv.vce<v1.0, "
     "[Kernel], []>, #spirv.resource_limits<>>]"), .exit = E(LOWER), .msg = "MLIR's serialiser of #spirv.target_env"},
    {"mlir: unknown target name", MT("-t nope"), .text = MLIR_GPU_KERNEL(""), .exit = E(TARGET)},
    {"mlir: chip not in the spec", MT(""), .text = MLIR_GPU_KERNEL("[#nvvm.target<chip = \"sm_99\">]"),
     .exit = E(CHIP)},
    {"mlir: refused amdgcn feature in the attribute", MT(""),
     .text = MLIR_GPU_KERNEL("[#rocdl.target<chip = \"gfx90a\", features = \"-fp64\">]"), .exit = E(FEATURES)},
    {"mlir: PTX version too low in the attribute", MT("-f asm"),
     .text = MLIR_GPU_KERNEL("[#nvvm.target<chip = \"sm_90\", features = \"+ptx60\">]"), .exit = E(FEATURES)},
    {"mlir: a missing file in a target attribute's link = [...]", MT(""),
     .text = MLIR_GPU_KERNEL("[#rocdl.target<chip = \"gfx90a\", link = [\"extra.bc\"]>]"), .exit = E(IO),
     .msg = "link file extra.bc"},
    {"mlir: unknown pass in --pipeline", MT("-t amdgcn --pipeline convert-scf-to-cf,no-such-pass"),
     .text = MLIR_GPU_KERNEL(""), .exit = E(OPTION)},
    {"mlir: malformed --pipeline", MT("-t amdgcn --pipeline builtin.module("), .text = MLIR_GPU_KERNEL(""),
     .exit = E(OPTION)},
    /* MLIR's own "for the --index-bitwidth option: ..." comes after gpublob's error line */
    {"mlir: a pass option that does not parse", MT("-t amdgcn --pipeline convert-gpu-to-rocdl{index-bitwidth=banana}"),
     .text = MLIR_GPU_KERNEL(""), .exit = E(OPTION), .msg = "index-bitwidth=banana"},
    {"mlir: --pipeline leaving the gpu dialect", MT("-t amdgcn --pipeline convert-scf-to-cf"),
     .text = MLIR_GPU_KERNEL(""), .exit = E(LOWER)},
    {"mlir: --pipeline none on a gpu-dialect body", MT("-t amdgcn --pipeline none"), .text = MLIR_GPU_KERNEL(""),
     .exit = E(LOWER)},
    {"mlir: legacy attach of two blobs under one attribute", MT("--attach legacy -f asm -t nvptx:sm_80,sm_90"),
     .text = MLIR_GPU_KERNEL(""), .exit = E(OPTION)},
    {"mlir: binary attach for spirv (no MLIR attribute)", MT("-t spirv"), .text = MLIR_GPU_KERNEL(""),
     .exit = E(OPTION)},
    {"mlir: undefined function (LINK, before ld.lld --no-undefined)", MT(""),
     .text = MLIR_LLVM_KERNEL("[#rocdl.target<chip = \"gfx90a\">]",
                              "    llvm.func @missing()\n"
                              "    llvm.func @b() attributes {gpu.kernel, rocdl.kernel} {\n"
                              "      llvm.call @missing() : () -> ()\n      llvm.return\n    }\n"),
     .exit = E(LINK), .msg = "'missing'", .needs_rocm = 1},
    {"mlir: nvvm op in a gpu.module for rocdl", MT(""),
     .text = MLIR_LLVM_KERNEL("[#rocdl.target<chip = \"gfx90a\">]",
                              "    llvm.func @b(%p: !llvm.ptr<1>) attributes {gpu.kernel, rocdl.kernel} {\n"
                              "      %t = nvvm.read.ptx.sreg.tid.x : i32\n"
                              "      llvm.store %t, %p : i32, !llvm.ptr<1>\n      llvm.return\n    }\n"),
     .exit = E(TARGET)},
    {"mlir: bytecode garbage", "-t amdgcn @IN", .sfx = ".mlirbc", .gen = gen_mlirbc_garbage, .exit = E(BITCODE)},
    {"mlir: bytecode cut in half", "-t amdgcn @IN", .sfx = ".mlirbc", .gen = gen_mlirbc_cut, .exit = E(BITCODE)},
    {"mlir: bytecode garbage on stdin", "-t amdgcn @STDIN", .gen = gen_mlirbc_garbage, .exit = E(BITCODE)},
};

/* Several top-level ops without a module are wrapped, as mlir-opt does. */
static void test_mlir_wrapped(void) {
  if (!gpublob_mlir_enabled()) {
    skip("extra: MLIR: two top-level gpu.modules without a module are wrapped", "built without MLIR");
    return;
  }
  const char *tmp = fresh_dir("wrap-tmp"), *in = tmp_path("two.mlir"), *out = tmp_path("two.out.mlir");
  static const char text[] =
      "gpu.module @one [#rocdl.target<chip = \"gfx90a\">] {\n" ROCDL_A "}\n"
      "gpu.module @two [#rocdl.target<chip = \"gfx90a\">] {\n" ROCDL_A "}\n";
  spill(in, text, sizeof text - 1);
  const char *args[] = {"-f", "asm", in, "-o", out, NULL};
  outcome o = cli(args, tmp, 20);
  char *b = (char *)slurp(out, NULL);
#define WRAP "extra: MLIR: two top-level gpu.modules without a module are wrapped"
  check(o.rc == 0, WRAP ": exit 0", "exit %d: %s", o.rc, o.err);
  check(contains(b, "gpu.binary @one"), WRAP ": gpu.binary @one", "%.300s", b ? b : "(no output)");
  check(contains(b, "gpu.binary @two"), WRAP ": gpu.binary @two", "%.300s", b ? b : "(no output)");
#undef WRAP
  free(b);
  free(o.err);
}

/* #gpu.select_object<1> after -t leaves one object: refused (OPTION) or kept valid. */
static void test_select_object(void) {
  if (!gpublob_mlir_enabled()) {
    skip("extra: MLIR: #gpu.select_object past the objects after -t", "built without MLIR");
    return;
  }
  const char *tmp = fresh_dir("sel-tmp"), *in = tmp_path("sel.mlir"), *out = tmp_path("sel.out.mlir");
  static const char text[] =
      MLIR_GPU_KERNEL("<#gpu.select_object<1>> [#nvvm.target<chip = \"sm_90\">, #rocdl.target<chip = \"gfx90a\">]");
  spill(in, text, sizeof text - 1);
  const char *args[] = {"-t", "amdgcn", "-f", "asm", in, "-o", out, NULL};
  outcome o = cli(args, tmp, 20);
  char *b = (char *)slurp(out, NULL);
  /* kept valid: the handler (if any) selects an object the gpu.binary has */
  int objects = 0;
  long index = 0;
  for (const char *p = b; p && (p = strstr(p, "#gpu.object<")); p++) objects++;
  const char *sel = b ? strstr(b, "select_object<") : NULL;
  if (sel) index = strtol(sel + strlen("select_object<"), NULL, 10);
#define SEL "extra: MLIR: #gpu.select_object<1> past the objects after -t is refused or kept valid"
  check(o.rc == E(OPTION) || o.rc == 0, SEL, "exit %d: %s", o.rc, o.err);
  if (o.rc == E(OPTION)) { /* refused */
    check(contains(o.err, "select_object"), SEL ": refused: the message names select_object", "%s", o.err);
    check(!b, SEL ": refused: no output", "%s is there", out);
  } else if (o.rc == 0) { /* kept valid */
    check(b != NULL, SEL ": kept: the output is written", "no %s", out);
    check(contains(b, "gpu.binary @kernels"), SEL ": kept: gpu.binary @kernels", "%.300s", b ? b : "");
    check(objects >= 1, SEL ": kept: an object", "%d objects", objects);
    check(index < objects, SEL ": kept: select_object names one of them", "select_object<%ld> of %d objects", index,
          objects);
    if (!exists(MLIR_OPT)) skip(SEL ": kept: mlir-opt reads it", MLIR_OPT " not found");
    else {
      const char *argv[] = {MLIR_OPT, out, "-o", "/dev/null", NULL};
      int rc = b ? run(argv, NULL) : -1;
      check_if(b, rc == 0, SEL ": kept: mlir-opt reads it", "mlir-opt exit %d", rc);
    }
  }
#undef SEL
  free(b);
  free(o.err);
}

int main(void) {
  if (bad_start()) return 2;
  run_table(cases, sizeof cases / sizeof *cases);
  test_mlir_wrapped();
  test_select_object();
  return bad_end();
}
