/* test_api: the 1.0 calls.  gpublob_compile with each input kind, AUTO taking a
** file as LLVM IR or MLIR by its content (whatever its name says); the input's
** misuses; LLVM IR text output (FORMAT_LL, checked by llvm-as); PACK and its old
** name; out-structs read as far as the caller's size; tool and library queries
** whose strings the handle owns; the old entry points as wrappers of the new. */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* These checks call the 1.0 calls too (gpublob_module_compile and the like), which
** stay supported: without their deprecation warnings. */
#define GPUBLOB_DISABLE_DEPRECATE_WARNINGS
#include "gpublob.h"
#include "testlib.h"

static gpublob *g;

static const char kernel_ll[] = /* no device-library call: compiles without CUDA */
    "target triple = \"nvptx64-nvidia-cuda\"\n"
    "define ptx_kernel void @twice(ptr addrspace(1) %p) {\n"
    "  %v = load float, ptr addrspace(1) %p\n"
    "  %w = fadd float %v, %v\n"
    "  store float %w, ptr addrspace(1) %p\n"
    "  ret void\n"
    "}\n";

static const char kernel_mlir[] =
    "// a gpu.module already in the llvm dialect\n"
    "module attributes {gpu.container_module} {\n"
    "  gpu.module @kernels {\n"
    "    llvm.func @twice(%p: !llvm.ptr<1>) attributes {gpu.kernel, nvvm.kernel} {\n"
    "      %v = llvm.load %p : !llvm.ptr<1> -> f32\n"
    "      %w = llvm.fadd %v, %v : f32\n"
    "      llvm.store %w, %p : f32, !llvm.ptr<1>\n"
    "      llvm.return\n"
    "    }\n"
    "  }\n"
    "}\n";

static gpublob_options asm_options(void) {
  gpublob_options o = GPUBLOB_OPTIONS_INIT;
  o.target = "nvptx:sm_80";
  o.format = GPUBLOB_FORMAT_ASM;
  return o;
}

static const char *blob_text(const gpublob_result *r) {
  return r->count == 1 && r->outputs[0].blob.data ? (const char *)r->outputs[0].blob.data : "";
}

/* A file of the given name holding text, in the scratch directory. */
static const char *file_with(const char *name, const char *text) {
  const char *path = tmp_path(name);
  spill(path, text, strlen(text));
  return path;
}

static void test_auto_kinds(void) {
  gpublob_options o = asm_options();
  gpublob_result r;
  gpublob_input in = {GPUBLOB_INPUT_AUTO, kernel_ll, sizeof kernel_ll - 1, NULL, "k.ll"};
  int rc = gpublob_compile(g, &o, &in, &r);
  check(rc == GPUBLOB_OK, "compile: LLVM IR text in memory, kind AUTO", "rc %d: %s", rc, gpublob_error_message(g));
  check(r.count == 1, "compile: LLVM IR gives one output per chip", "count %zu", r.count);
  check(contains(blob_text(&r), ".entry twice"), "compile: the output is PTX with the kernel", "%.200s", blob_text(&r));
  check_if(rc == GPUBLOB_OK && r.count == 1, same_str(r.outputs[0].target, "nvptx"),
           "compile: the output names its target and chip: target nvptx", "%s", shown(r.outputs[0].target));
  check_if(rc == GPUBLOB_OK && r.count == 1, same_str(r.outputs[0].chip, "sm_80"),
           "compile: the output names its target and chip: chip sm_80", "%s", shown(r.outputs[0].chip));
  gpublob_result_free(&r);
  check(r.outputs == NULL, "result_free: zeroes the result: outputs NULL", "%p", (void *)r.outputs);
  check(r.count == 0, "result_free: zeroes the result: count 0", "count %zu", r.count);

  in = (gpublob_input){GPUBLOB_INPUT_AUTO, NULL, 0, file_with("misnamed.mlir", kernel_ll), NULL};
  rc = gpublob_compile(g, &o, &in, &r);
  check(rc == GPUBLOB_OK, "compile: LLVM IR in a file named .mlir is taken as LLVM IR", "rc %d: %s", rc,
        gpublob_error_message(g));
  check(contains(blob_text(&r), ".entry twice"), "compile: ... and gives its PTX", NULL);
  gpublob_result_free(&r);

  in = (gpublob_input){GPUBLOB_INPUT_AUTO, NULL, 0, file_with("broken.mlir", "define void @k( {\n"), NULL};
  rc = gpublob_compile(g, &o, &in, &r);
  check(rc == GPUBLOB_PARSE, "compile: broken LLVM IR named .mlir is PARSE", "rc %d", rc);
  check(contains(gpublob_error_message(g), "cannot parse LLVM IR"), "compile: ... with the LLVM IR parser's message",
        "%s", gpublob_error_message(g));
  check(contains(gpublob_error_message(g), "broken.mlir"), "compile: ... naming the file", "%s",
        gpublob_error_message(g));
  check(r.count == 0, "compile: a failure leaves the result empty: count 0", "count %zu", r.count);
  check(r.outputs == NULL, "compile: a failure leaves the result empty: outputs NULL", "%p", (void *)r.outputs);

  if (!gpublob_mlir_enabled()) {
    skip("compile: MLIR in a file named .ll", "built without MLIR");
    return;
  }
  in = (gpublob_input){GPUBLOB_INPUT_AUTO, NULL, 0, file_with("misnamed.ll", kernel_mlir), NULL};
  rc = gpublob_compile(g, &o, &in, &r);
  check(rc == GPUBLOB_OK, "compile: MLIR in a file named .ll is taken as MLIR", "rc %d: %s", rc,
        gpublob_error_message(g));
  check(contains(blob_text(&r), "gpu.binary @kernels"), "compile: ... and gives the module with its gpu.binary",
        "%.300s", blob_text(&r));
  check(r.count == 1, "compile: MLIR's one output has empty target and tool strings, not NULL: one output",
        "count %zu", r.count);
  check_if(rc == GPUBLOB_OK && r.count == 1, same_str(r.outputs[0].target, ""),
           "compile: MLIR's one output has empty target and tool strings, not NULL: target \"\"", "%s",
           shown(r.outputs[0].target));
  check_if(rc == GPUBLOB_OK && r.count == 1, same_str(r.outputs[0].tool, ""),
           "compile: MLIR's one output has empty target and tool strings, not NULL: tool \"\"", "%s",
           shown(r.outputs[0].tool));
  gpublob_result_free(&r);

  in = (gpublob_input){GPUBLOB_INPUT_AUTO, NULL, 0, file_with("broken.ll", "module {\n  gpu.module @m {\n"), NULL};
  rc = gpublob_compile(g, &o, &in, &r);
  check(rc == GPUBLOB_PARSE, "compile: broken MLIR named .ll is PARSE", "rc %d: %s", rc, gpublob_error_message(g));
  check(contains(gpublob_error_message(g), "broken.ll:"), "compile: ... with MLIR's file:line message", "%s",
        gpublob_error_message(g));
  check(!contains(gpublob_error_message(g), "LLVM IR"), "compile: ... not the LLVM IR parser's", "%s",
        gpublob_error_message(g));
}

/* Bitcode and MLIR bytecode, made by LLVM's and MLIR's own tools, by their magic. */
static void test_auto_binary(void) {
  const char *ll = file_with("k.ll", kernel_ll), *bc = tmp_path("k.txt");
  const char *as[] = {LLVM_BINDIR "/llvm-as", ll, "-o", bc, NULL};
  char *log = NULL;
  int made = run(as, &log) == 0;
  free(log);
  check(made, "llvm-as makes bitcode", NULL);
  gpublob_options o = asm_options();
  gpublob_result r;
  gpublob_input in = {GPUBLOB_INPUT_AUTO, NULL, 0, bc, NULL};
  int rc = made ? gpublob_compile(g, &o, &in, &r) : -1;
  check(rc == GPUBLOB_OK, "compile: bitcode in a .txt file is taken by its magic", "rc %d: %s", rc,
        gpublob_error_message(g));
  if (!rc) gpublob_result_free(&r);
  if (!gpublob_mlir_enabled()) return skip("compile: MLIR bytecode", "built without MLIR");
  const char *mlir = file_with("k.mlir", kernel_mlir), *mlirbc = tmp_path("k.data");
  const char *opt[] = {LLVM_BINDIR "/mlir-opt", "--emit-bytecode", mlir, "-o", mlirbc, NULL};
  if (!have_program(opt[0])) return skip("compile: MLIR bytecode", "mlir-opt not found (mlir-22-tools)");
  made = run(opt, &log) == 0;
  free(log);
  check(made, "mlir-opt makes MLIR bytecode", NULL);
  in = (gpublob_input){GPUBLOB_INPUT_AUTO, NULL, 0, mlirbc, NULL};
  rc = made ? gpublob_compile(g, &o, &in, &r) : -1;
  check(rc == GPUBLOB_OK, "compile: MLIR bytecode in a .data file is taken by its magic", "rc %d: %s", rc,
        gpublob_error_message(g));
  check_if(rc == GPUBLOB_OK, contains(blob_text(&r), "gpu.binary"), "compile: ... and gives the module back",
           "%.300s", blob_text(&r));
  if (!rc) gpublob_result_free(&r);
}

/* AUTO on what real files start with. */
static void test_detect(void) {
  static const struct { const char *text; int kind; const char *name; } cases[] = {
      {"; ModuleID = 'k.cu'\nsource_filename = \"k.cu\"\n", GPUBLOB_INPUT_LLVM, "clang's ModuleID line"},
      {"target datalayout = \"e\"\n", GPUBLOB_INPUT_LLVM, "target datalayout"},
      {"%struct.T = type { i32 }\n", GPUBLOB_INPUT_LLVM, "a named LLVM type"},
      {"!llvm.module.flags = !{!0}\n!0 = !{i32 1, !\"k\", i32 1}\n", GPUBLOB_INPUT_LLVM, "LLVM metadata first"},
      {"!0 = distinct !DICompileUnit(language: DW_LANG_C99)\n", GPUBLOB_INPUT_LLVM, "distinct metadata first"},
      {"^0 = module: (path: \"k.o\")\n", GPUBLOB_INPUT_LLVM, "a summary entry"},
      {"!t = i32\nmodule {}\n", GPUBLOB_INPUT_MLIR, "an MLIR type alias first"},
      {"#map = affine_map<(d0) -> (d0)>\nmodule {}\n", GPUBLOB_INPUT_MLIR, "an MLIR attribute alias first"},
      {"\xef\xbb\xbfmodule {}\n", GPUBLOB_INPUT_MLIR, "a byte-order mark, then module"},
      {"// RUN: mlir-opt %s\r\nmodule {}\r\n", GPUBLOB_INPUT_MLIR, "a RUN line and CRLF"},
      {"gpu.binary @k [#gpu.object<#nvvm.target, \"\">]\n", GPUBLOB_INPUT_MLIR, "gpu.binary first"},
      {"func.func @f() { return }\n", GPUBLOB_INPUT_MLIR, "func.func first"},
      {"module asm \"x\"\n", GPUBLOB_INPUT_LLVM, "LLVM's module asm"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char name[160];
    snprintf(name, sizeof name, "detect: %s is %s", cases[i].name,
             cases[i].kind == GPUBLOB_INPUT_MLIR ? "MLIR" : "LLVM IR");
    int kind = gpublob_input_detect(cases[i].text, strlen(cases[i].text), NULL);
    check(kind == cases[i].kind, name, "got %d", kind);
  }
  check(gpublob_input_detect("", 0, "k.mlir") == GPUBLOB_INPUT_MLIR, "detect: empty text named .mlir is MLIR", NULL);
  check(gpublob_input_detect(NULL, 0, NULL) == GPUBLOB_INPUT_LLVM, "detect: nothing at all is LLVM IR", NULL);
  /* a path's suffix counts when the label has none */
  const char *path = file_with("alias.mlir", "!t = f32\nmodule {\n  llvm.func @f(%a: !t) { llvm.return }\n}\n");
  gpublob_options o = asm_options();
  gpublob_input in = {GPUBLOB_INPUT_AUTO, NULL, 0, path, "kernel"};
  gpublob_result r;
  int rc = gpublob_compile(g, &o, &in, &r);
  check(!contains(gpublob_error_message(g), "LLVM IR"), "detect: a labelled .mlir path is not parsed as LLVM IR",
        "rc %d: %s", rc, gpublob_error_message(g));
  if (gpublob_mlir_enabled())
    check(rc == GPUBLOB_NOGPU, "detect: ... but by MLIR's parser, which finds no gpu.module in it", "rc %d: %s", rc,
          gpublob_error_message(g));
  if (!rc) gpublob_result_free(&r);
}

static void expect_misuse(const char *name, const gpublob_input *in, gpublob_result *r) {
  gpublob_options o = asm_options();
  int rc = gpublob_compile(g, &o, in, r);
  check(rc == GPUBLOB_MISUSE, name, "rc %d: %s", rc, gpublob_error_message(g));
}

static void test_misuse(void) {
  gpublob_result r = {(gpublob_output *)&r, 7};
  expect_misuse("compile: a NULL input is MISUSE", NULL, &r);
  check(r.outputs == NULL, "compile: ... and the result is zeroed: outputs NULL", "%p", (void *)r.outputs);
  check(r.count == 0, "compile: ... and the result is zeroed: count 0", "count %zu", r.count);
  gpublob_input both = {GPUBLOB_INPUT_LLVM, kernel_ll, sizeof kernel_ll - 1, "x.ll", NULL};
  expect_misuse("compile: both data and path is MISUSE", &both, &r);
  check(contains(gpublob_error_message(g), "both"), "compile: ... saying so", "%s", gpublob_error_message(g));
  gpublob_input kind = {7, kernel_ll, sizeof kernel_ll - 1, NULL, NULL};
  expect_misuse("compile: an unknown kind is MISUSE", &kind, &r);
  check(contains(gpublob_error_message(g), "kind 7"), "compile: ... naming it", "%s", gpublob_error_message(g));
  gpublob_input nodata = {GPUBLOB_INPUT_LLVM, NULL, 12, NULL, NULL};
  expect_misuse("compile: a size without data is MISUSE", &nodata, &r);
  gpublob_input neither = {GPUBLOB_INPUT_AUTO, NULL, 0, NULL, NULL};
  expect_misuse("compile: neither data nor a path is MISUSE", &neither, &r);
  check(contains(gpublob_error_message(g), "neither"), "compile: ... saying so", "%s", gpublob_error_message(g));
  gpublob_blob empty;
  gpublob_options eo = asm_options();
  int erc = gpublob_module_compile(g, &eo, NULL, 0, "empty.ll", &empty);
  check(erc != GPUBLOB_MISUSE, "wrapper: module_compile of (NULL, 0) is an empty module, as before 1.0", "rc %d", erc);
  if (!erc) gpublob_blob_free(&empty);
  gpublob_input fine = {GPUBLOB_INPUT_LLVM, kernel_ll, sizeof kernel_ll - 1, NULL, NULL};
  expect_misuse("compile: a NULL result is MISUSE", &fine, NULL);
  gpublob_options o = asm_options();
  check(gpublob_compile(NULL, &o, &fine, &r) == GPUBLOB_MISUSE, "compile: a NULL handle is MISUSE", NULL);
  gpublob_input missing = {GPUBLOB_INPUT_AUTO, NULL, 0, tmp_path("no-such.ll"), NULL};
  int rc = gpublob_compile(g, &o, &missing, &r);
  check(rc == GPUBLOB_IO, "compile: a missing file is IO", "rc %d", rc);
  check(contains(gpublob_error_message(g), "no-such.ll"), "compile: ... naming it", "%s", gpublob_error_message(g));
}

/* FORMAT_LL: LLVM IR text that llvm-as reads back; MLIR input cannot have it. */
static void test_ll(void) {
  gpublob_options o = asm_options();
  o.format = GPUBLOB_FORMAT_LL;
  gpublob_result r;
  gpublob_input in = {GPUBLOB_INPUT_LLVM, kernel_ll, sizeof kernel_ll - 1, NULL, "k.ll"};
  int rc = gpublob_compile(g, &o, &in, &r);
  check(rc == GPUBLOB_OK, "ll: compiles", "rc %d: %s", rc, gpublob_error_message(g));
  check_if(rc == GPUBLOB_OK && r.count == 1, same_str(r.outputs[0].blob.suffix, ".ll"), "ll: suffix .ll", "%s",
           shown(r.outputs[0].blob.suffix));
  check(contains(blob_text(&r), "define ptx_kernel void @twice"), "ll: holds the kernel as text", "%.200s",
        blob_text(&r));
  check(contains(blob_text(&r), "target datalayout"), "ll: with the target's data layout", NULL);
  const char *path = tmp_path("out.ll");
  if (!rc) spill(path, r.outputs[0].blob.data, r.outputs[0].blob.size);
  const char *as[] = {LLVM_BINDIR "/llvm-as", path, "-o", "/dev/null", NULL};
  char *log = NULL;
  int as_rc = rc == GPUBLOB_OK ? run(as, &log) : -1;
  check_if(rc == GPUBLOB_OK, as_rc == 0, "ll: llvm-as reads it back", "exit %d: %s", as_rc, shown(log));
  free(log);
  if (!rc) gpublob_result_free(&r);
  if (!gpublob_mlir_enabled()) return skip("ll: MLIR input", "built without MLIR");
  in = (gpublob_input){GPUBLOB_INPUT_MLIR, kernel_mlir, sizeof kernel_mlir - 1, NULL, "k.mlir"};
  o.cache_dir = tmp_path("ll-cache");
  o.flags = GPUBLOB_FLAG_ISOLATE;
  rc = gpublob_compile(g, &o, &in, &r);
  check(rc == GPUBLOB_FORMAT, "ll: MLIR input is FORMAT", "rc %d: %s", rc, gpublob_error_message(g));
  check(contains(gpublob_error_message(g), "k.mlir"), "ll: ... naming the input", "%s", gpublob_error_message(g));
  check(!exists(o.cache_dir), "ll: ... refused before the cache directory is made", NULL);
}

static void test_pack_name(void) {
  check(GPUBLOB_FORMAT_FATBIN == GPUBLOB_FORMAT_PACK, "format: FATBIN is PACK's old name", NULL);
  gpublob_options o = GPUBLOB_OPTIONS_INIT;
  o.target = "spirv";
  o.format = GPUBLOB_FORMAT_PACK;
  gpublob_result r;
  gpublob_input in = {GPUBLOB_INPUT_LLVM, kernel_ll, sizeof kernel_ll - 1, NULL, "k.ll"};
  int rc = gpublob_compile(g, &o, &in, &r);
  check(rc == GPUBLOB_FORMAT, "format: PACK for a target without a pack step is FORMAT", "rc %d", rc);
  check(contains(gpublob_error_message(g), "pack_tool"), "format: ... naming the spec's missing key", "%s",
        gpublob_error_message(g));
}

/* Out-structs: as much as the caller's size holds; less than the first version is MISUSE. */
static void test_sizes(void) {
  gpublob_target_info info;
  memset(&info, 0xAB, sizeof info);
  int rc = gpublob_target_get(0, &info, sizeof info);
  check(rc == GPUBLOB_OK, "target_get: fills libs with the whole size: OK", "rc %d", rc);
  check_if(rc == GPUBLOB_OK, info.libs != NULL, "target_get: fills libs with the whole size: libs set", NULL);
  memset(&info, 0xAB, sizeof info);
  size_t old = offsetof(gpublob_target_info, libs);
  rc = gpublob_target_get(0, &info, old);
  check(rc == GPUBLOB_OK, "target_get: an older caller's size is accepted", "rc %d", rc);
  unsigned char *after = (unsigned char *)&info + old;
  check(after[0] == 0xAB, "target_get: ... and nothing past it is written", NULL);
  check(gpublob_target_get(0, &info, old - 1) == GPUBLOB_MISUSE, "target_get: a smaller size is MISUSE", NULL);
  check(gpublob_target_get(gpublob_target_count(), &info, sizeof info) == GPUBLOB_MISUSE,
        "target_get: an index past the end is MISUSE", NULL);
  struct { gpublob_stats s; double later[4]; } grown;
  memset(&grown, 0xAB, sizeof grown);
  rc = gpublob_stats_get(g, &grown.s, sizeof grown);
  check(rc == GPUBLOB_OK, "stats_get: a newer caller's larger size is accepted", "rc %d", rc);
  check(grown.later[3] == 0, "stats_get: ... its fields this gpublob lacks read as zero", NULL);
  size_t first = offsetof(gpublob_stats, provider_load_ms); /* 1.0's struct, the first version */
  check(gpublob_stats_get(g, &grown.s, first) == GPUBLOB_OK, "stats_get: 1.0's size is accepted", NULL);
  check(gpublob_stats_get(g, &grown.s, first - 1) == GPUBLOB_MISUSE, "stats_get: a size below 1.0's is MISUSE",
        NULL);
}

/* The figures --time shows beside the phases: the blob tool program's own CPU time
** (its rusage), the in-process provider's load (the first call of this process that
** loads it; so this runs first) and its thread CPU, and the pack program's CPU. */
static void test_tool_figures(void) {
  gpublob_options o = GPUBLOB_OPTIONS_INIT;
  gpublob_result r = {0};
  gpublob_stats s;
  o.target = "amdgcn:gfx90a";
  o.tool_mode = GPUBLOB_TOOL_PROGRAM;
  int rc;
  if (!have_program(LLVM_BINDIR "/ld.lld") || !have_program(LLVM_BINDIR "/clang-offload-bundler") ||
      !have_rocm_bitcode()) {
    skip("stats: the blob and pack programs' CPU time",
         "the ld.lld program (lld-22), clang-offload-bundler (clang-tools-22) or ROCm's bitcode not found");
  } else {
    rc = gpublob_file_compile_all(g, &o, "examples/saxpy_amdgcn.ll", &r);
    gpublob_stats_get(g, &s, sizeof s);
    check(rc == 0 && s.tool_cpu_ms > 0 && s.provider_load_ms == 0,
          "stats: a tool program's own CPU time (ld.lld), no provider load", "rc %d: %s; tool CPU %g ms, load %g ms",
          rc, gpublob_error_message(g), s.tool_cpu_ms, s.provider_load_ms);
    gpublob_result_free(&r);
    o.target = "amdgcn:gfx90a,gfx942";
    o.format = GPUBLOB_FORMAT_PACK;
    rc = gpublob_file_compile_all(g, &o, "examples/saxpy_amdgcn.ll", &r);
    gpublob_stats_get(g, &s, sizeof s);
    check(rc == 0 && s.tool_cpu_ms > 0, "stats: a pack (its program, ld.lld for each chip): the tools' CPU time",
          "rc %d: %s; tool CPU %g ms", rc, gpublob_error_message(g), s.tool_cpu_ms);
    gpublob_result_free(&r);
  }
  if (!have_ptxas()) {
    skip("stats: the in-process provider's load and CPU time", "no CUDA toolkit");
    return;
  }
  o = (gpublob_options)GPUBLOB_OPTIONS_INIT;
  o.target = "nvptx:sm_80";
  o.tool_mode = GPUBLOB_TOOL_INPROCESS;
  rc = gpublob_file_compile_all(g, &o, "examples/saxpy_nvptx.ll", &r);
  gpublob_stats_get(g, &s, sizeof s);
  int ran = rc == 0 && r.count == 1 && same_str(r.outputs[0].tool, "nvjitlink");
  check(ran, "stats: the in-process provider ran", "rc %d: %s", rc, gpublob_error_message(g));
  check_if(ran, s.provider_load_ms > 0 && s.tool_cpu_ms > 0,
           "stats: the in-process provider's first load and its CPU time", "load %g ms, tool CPU %g ms",
           s.provider_load_ms, s.tool_cpu_ms);
  gpublob_result_free(&r);
  rc = gpublob_file_compile_all(g, &o, "examples/saxpy_nvptx.ll", &r);
  gpublob_stats_get(g, &s, sizeof s);
  check_if(ran, rc == 0 && s.provider_load_ms == 0 && s.tool_cpu_ms > 0,
           "stats: loaded once per process: the next call's load is 0, its CPU time is not", "load %g ms, tool CPU %g ms",
           s.provider_load_ms, s.tool_cpu_ms);
  gpublob_result_free(&r);
}

static void test_tool_info(void) {
  gpublob_options o = GPUBLOB_OPTIONS_INIT;
  o.target = "spirv";
  gpublob_tool_info t;
  int rc = gpublob_tool_info_get(g, &o, 1, &t, sizeof t);
  check(rc == GPUBLOB_OK, "tool_info: spirv", "rc %d: %s", rc, gpublob_error_message(g));
  check(same_str(t.kind, "none"), "tool_info: spirv needs no tool; every string is \"\", not NULL: kind none", "%s",
        shown(t.kind));
  check(same_str(t.name, ""), "tool_info: spirv needs no tool; every string is \"\", not NULL: name", "%s",
        shown(t.name));
  check(same_str(t.path, ""), "tool_info: spirv needs no tool; every string is \"\", not NULL: path", "%s",
        shown(t.path));
  check(same_str(t.fallback, ""), "tool_info: spirv needs no tool; every string is \"\", not NULL: fallback", "%s",
        shown(t.fallback));
  o.format = 77;
  rc = gpublob_tool_info_get(g, &o, 1, &t, sizeof t);
  check(rc == GPUBLOB_FORMAT, "tool_info: an unknown format is FORMAT, as a compile's", "rc %d", rc);
  o.format = 0;
  o.version = 99;
  rc = gpublob_tool_info_get(g, &o, 1, &t, sizeof t);
  check(rc == GPUBLOB_OPTION, "tool_info: a newer options version is OPTION", "rc %d", rc);
  o.version = GPUBLOB_OPTIONS_VERSION;
  o.target = "nvptx";
  o.tool_mode = GPUBLOB_TOOL_PROGRAM;
  rc = gpublob_tool_info_get(g, &o, 1, &t, sizeof t);
  if (!have_ptxas()) {
    check(rc == GPUBLOB_NOTOOL, "tool_info: nvptx without CUDA is NOTOOL", "rc %d", rc);
    check(contains(gpublob_error_message(g), "ptxas"), "tool_info: ... naming ptxas", "%s", gpublob_error_message(g));
    return;
  }
  check(rc == GPUBLOB_OK, "tool_info: nvptx, program", "rc %d: %s", rc, gpublob_error_message(g));
  check(same_str(t.kind, "program"), "tool_info: ... is ptxas: kind program", "%s", shown(t.kind));
  check(same_str(t.name, "ptxas"), "tool_info: ... is ptxas: name ptxas", "%s", shown(t.name));
  check(exists(t.path), "tool_info: ... at a path that exists", "%s", t.path);
  o.target = "nosuch";
  check(gpublob_tool_info_get(g, &o, 1, &t, sizeof t) == GPUBLOB_TARGET, "tool_info: an unknown target is TARGET",
        NULL);
  check(t.kind == NULL, "tool_info: ... and the struct is zeroed: kind NULL", "%s", shown(t.kind));
  check(t.path == NULL, "tool_info: ... and the struct is zeroed: path NULL", "%s", shown(t.path));
}

static void test_libs(void) {
  gpublob_options o = GPUBLOB_OPTIONS_INIT;
  o.target = "spirv";
  const char *paths = NULL;
  int rc = gpublob_libs_find(g, &o, &paths);
  check(rc == GPUBLOB_OK, "libs_find: spirv has none: OK", "rc %d: %s", rc, gpublob_error_message(g));
  check_if(rc == GPUBLOB_OK, same_str(paths, ""), "libs_find: spirv has none: an empty list, not NULL", "%s",
           shown(paths));
  o.target = "amdgcn:gfx90a";
  rc = gpublob_libs_find(g, &o, &paths);
  check(rc == GPUBLOB_OK || rc == GPUBLOB_NOLIB, "libs_find: amdgcn gives OK or NOLIB", "rc %d", rc);
  if (rc == GPUBLOB_OK) check(contains(paths, "/ocml.bc\n"), "libs_find: amdgcn's libraries include ocml.bc",
                              "%s", paths);
  else check(contains(gpublob_error_message(g), "not found; tried:"), "libs_find: NOLIB lists the places tried",
             "%s", gpublob_error_message(g));
  o.target = "amdgcn:gfx9999";
  check(gpublob_libs_find(g, &o, &paths) == GPUBLOB_CHIP, "libs_find: an invalid chip is CHIP", NULL);
  check(gpublob_libs_find(g, &o, NULL) == GPUBLOB_MISUSE, "libs_find: NULL paths is MISUSE", NULL);
}

/* The cache: AUTO and the explicit kind find the same entry. */
static void test_cache_kind(void) {
  gpublob_options o = asm_options();
  o.cache_dir = tmp_path("cache");
  gpublob_result r;
  gpublob_input in = {GPUBLOB_INPUT_LLVM, kernel_ll, sizeof kernel_ll - 1, NULL, "k.ll"};
  int rc = gpublob_compile(g, &o, &in, &r);
  check(rc == GPUBLOB_OK, "cache: compiled and stored", "rc %d: %s", rc, gpublob_error_message(g));
  if (!rc) gpublob_result_free(&r);
  in.kind = GPUBLOB_INPUT_AUTO;
  rc = gpublob_cache_lookup(g, &o, &in, &r);
  check(rc == GPUBLOB_OK, "cache: a lookup with kind AUTO hits the LLVM entry", "rc %d: %s", rc,
        gpublob_error_message(g));
  check(contains(blob_text(&r), ".entry twice"), "cache: ... with the same PTX", NULL);
  if (!rc) gpublob_result_free(&r);
  in.data = kernel_mlir;
  in.size = sizeof kernel_mlir - 1;
  check(gpublob_cache_lookup(g, &o, &in, &r) == GPUBLOB_NOTCACHED, "cache: other bytes miss", NULL);
}

static void test_wrappers(void) {
  gpublob_options o = asm_options();
  gpublob_blob b;
  int rc = gpublob_module_compile(g, &o, kernel_ll, sizeof kernel_ll - 1, "k.ll", &b);
  check(rc == GPUBLOB_OK, "wrapper: module_compile: OK", "rc %d: %s", rc, gpublob_error_message(g));
  check_if(rc == GPUBLOB_OK, contains((const char *)b.data, ".entry twice"), "wrapper: module_compile: gives the PTX",
           "%.200s", shown((const char *)b.data));
  gpublob_blob_free(&b);
  check(b.data == NULL, "wrapper: blob_free zeroes the blob", NULL);
  o.target = "nvptx:sm_80,sm_90";
  rc = gpublob_module_compile(g, &o, kernel_ll, sizeof kernel_ll - 1, "k.ll", &b);
  check(rc == GPUBLOB_OPTION, "wrapper: module_compile for two chips is OPTION", "rc %d", rc);
  check(contains(gpublob_error_message(g), "gpublob_compile"), "wrapper: ... pointing at gpublob_compile", "%s",
        gpublob_error_message(g));
  check(gpublob_file_compile(g, &o, NULL, &b) == GPUBLOB_MISUSE, "wrapper: file_compile with a NULL path is MISUSE",
        NULL);
  check(!strcmp(gpublob_version(), GPUBLOB_VERSION_STRING), "version: the library's is the header's", "%s",
        gpublob_version());
}

/* ---- the 1.3 contract: the options' init call, the outputs' accessor, deprecation ---- */
static void test_options_init(void) {
  gpublob_options o;
  memset(&o, 0xAB, sizeof o);
  int rc = gpublob_options_init(&o, GPUBLOB_OPTIONS_VERSION);
  gpublob_options want = GPUBLOB_OPTIONS_INIT;
  check(rc == GPUBLOB_OK && !memcmp(&o, &want, sizeof o), "options_init: this version is GPUBLOB_OPTIONS_INIT, "
        "byte for byte", "rc %d", rc);
  struct { gpublob_options o; } v5;
  memset(&v5, 0xAB, sizeof v5);
  rc = gpublob_options_init(&v5.o, 5); /* 1.0's: up to abi */
  const unsigned char *past = (const unsigned char *)&v5.o + offsetof(gpublob_options, link);
  check(rc == GPUBLOB_OK && v5.o.version == 5 && v5.o.abi == 0 && past[0] == 0xAB,
        "options_init: version 5 (1.0's struct) zeroes 1.0's fields and nothing past them", "rc %d", rc);
  memset(&o, 0xAB, sizeof o);
  check(gpublob_options_init(&o, 0) == GPUBLOB_OK && o.version == 8 && o.fp_contract == 0,
        "options_init: version 0 is 8, the first with the call", NULL);
  const unsigned char *past8 = (const unsigned char *)&o + offsetof(gpublob_options, block_size);
  check(past8[0] == 0xAB && past8[sizeof o - offsetof(gpublob_options, block_size) - 1] == 0xAB,
        "options_init: version 8 (1.3's struct) writes nothing past 1.3's fields", NULL);
  /* 1.3's struct read by 1.4: what lies past it (here 0xAB, a limit's bits) is not read */
  o.target = "nvptx:sm_90";
  o.format = GPUBLOB_FORMAT_ASM;
  gpublob_input in = {.kind = GPUBLOB_INPUT_LLVM, .data = kernel_ll, .size = sizeof kernel_ll - 1, .name = "k.ll"};
  gpublob_result r = {0};
  rc = gpublob_compile(g, &o, &in, &r);
  check(rc == GPUBLOB_OK, "options: a version 8 struct is read only as far as 1.3's fields", "rc %d: %s", rc,
        gpublob_error_message(g));
  gpublob_result_free(&r);
  /* 1.4's struct (version 9) read by 1.5: its as, past it, is not read */
  memset(&o, 0xAB, sizeof o);
  rc = gpublob_options_init(&o, 9);
  const unsigned char *past9 = (const unsigned char *)&o + offsetof(gpublob_options, as);
  check(rc == GPUBLOB_OK && o.version == 9 && o.min_occupancy == 0 && past9[0] == 0xAB,
        "options_init: version 9 (1.4's struct) zeroes 1.4's fields and nothing past them (as)", "rc %d", rc);
  o.target = "nvptx:sm_90";
  o.format = GPUBLOB_FORMAT_ASM;
  rc = gpublob_compile(g, &o, &in, &r);
  check(rc == GPUBLOB_OK, "options: a version 9 struct is read only as far as 1.4's fields (its as, 0xABABABAB, "
        "is not read)", "rc %d: %s", rc, gpublob_error_message(g));
  gpublob_result_free(&r);
  gpublob_options bad = {.version = GPUBLOB_OPTIONS_VERSION, .target = "nvptx:sm_90", .format = GPUBLOB_FORMAT_ASM,
                         .as = 7};
  rc = gpublob_compile(g, &bad, &in, &r);
  check(rc == GPUBLOB_OPTION && strstr(gpublob_error_message(g), "unknown as 7"),
        "options: an as that is neither mlir nor clang is OPTION, naming it", "rc %d: %s", rc, gpublob_error_message(g));
  bad.as = GPUBLOB_AS_CLANG;
  rc = gpublob_compile(g, &bad, &in, &r);
  if (have_llvm_cxx())
    check(rc == GPUBLOB_OK && r.count == 1, "options: as = GPUBLOB_AS_CLANG compiles", "rc %d: %s", rc,
          gpublob_error_message(g));
  else
    check(rc == GPUBLOB_OPTION && strstr(gpublob_error_message(g), "src/passes.cpp"),
          "options: as = GPUBLOB_AS_CLANG for CUDA, built without src/passes.cpp, is OPTION naming it", "rc %d: %s",
          rc, gpublob_error_message(g));
  gpublob_result_free(&r);
  check(gpublob_options_init(&o, GPUBLOB_OPTIONS_VERSION + 1) == GPUBLOB_MISUSE,
        "options_init: a version this library does not know is MISUSE", NULL);
  check(gpublob_options_init(NULL, 1) == GPUBLOB_MISUSE, "options_init: NULL is MISUSE", NULL);
}

static void test_output_get(void) {
  gpublob_options o = asm_options();
  gpublob_input in = {.kind = GPUBLOB_INPUT_LLVM, .data = kernel_ll, .size = sizeof kernel_ll - 1, .name = "k.ll"};
  gpublob_result r = {0};
  int rc = gpublob_compile(g, &o, &in, &r);
  gpublob_output_info info;
  memset(&info, 0xAB, sizeof info);
  int got = rc ? -1 : gpublob_output_get(&r, 0, &info, sizeof info);
  check(got == GPUBLOB_OK && info.data == r.outputs[0].blob.data && info.size == r.outputs[0].blob.size &&
            !strcmp(info.suffix, ".ptx") && !strcmp(info.target, "nvptx") && !strcmp(info.chip, r.outputs[0].chip) &&
            info.tool == r.outputs[0].tool,
        "output_get: output 0's bytes, suffix, target, chip and tool", "rc %d, got %d", rc, got);
  struct { gpublob_output_info i; long later[2]; } grown;
  memset(&grown, 0xAB, sizeof grown);
  check(!rc && gpublob_output_get(&r, 0, &grown.i, sizeof grown) == GPUBLOB_OK && grown.later[1] == 0,
        "output_get: a later caller's larger size: what this library lacks reads as zero", NULL);
  memset(&info, 0xAB, sizeof info);
  check(gpublob_output_get(&r, r.count, &info, sizeof info) == GPUBLOB_MISUSE && info.data == NULL,
        "output_get: an index past the end is MISUSE, and the struct zeroed", NULL);
  /* the first version (1.3) ends at tool; 1.7 grew input after it */
  size_t first = offsetof(gpublob_output_info, tool) + sizeof info.tool;
  check(gpublob_output_get(&r, 0, &info, first - 1) == GPUBLOB_MISUSE,
        "output_get: a size below the first version is MISUSE", NULL);
  memset(&info, 0xAB, sizeof info);
  check(gpublob_output_get(&r, 0, &info, first) == GPUBLOB_OK && info.tool == r.outputs[0].tool &&
            info.input == (size_t)0xABABABABABABABABull,
        "output_get: a 1.3 caller's size: filled up to tool, input (since 1.7) not written", NULL);
  check(gpublob_output_get(NULL, 0, &info, sizeof info) == GPUBLOB_MISUSE, "output_get: a NULL result is MISUSE",
        NULL);
  gpublob_result_free(&r);
}

/* A program of today's header that calls a 1.0 call: cc -Werror=deprecated-declarations
** refuses it, naming the call to use; GPUBLOB_DISABLE_DEPRECATE_WARNINGS keeps it
** quiet, GPUBLOB_DEPRECATE_HARD leaves it out; a program of new calls alone passes. */
/* cc found on PATH, into buf; NULL when there is none. */
static const char *path_cc(char *buf, size_t size) {
  const char *path = getenv("PATH");
  for (const char *p = path ? path : "/usr/bin"; *p;) {
    size_t n = strcspn(p, ":");
    snprintf(buf, size, "%.*s/cc", (int)n, p);
    if (n && have_program(buf)) return buf;
    p += n + (p[n] == ':');
  }
  return NULL;
}

static void test_deprecated(void) {
  char cc[4096];
  if (!path_cc(cc, sizeof cc)) {
    skip("deprecated: the 1.0 calls under -Werror=deprecated-declarations", "no cc");
    return;
  }
  static const struct {
    const char *name, *defines, *body;
    int fails;
    const char *says;
  } cases[] = {
      {"deprecated: a call of gpublob_module_compile fails -Werror=deprecated-declarations, naming gpublob_compile",
       "", "gpublob_blob b; return gpublob_module_compile(0, 0, \"\", 0, \"k\", &b);", 1, "use gpublob_compile"},
      {"deprecated: so does gpublob_blob_free", "", "gpublob_blob_free(0); return 0;", 1, "gpublob_result_free"},
      {"deprecated: GPUBLOB_DISABLE_DEPRECATE_WARNINGS keeps the 1.0 calls without the warning",
       "#define GPUBLOB_DISABLE_DEPRECATE_WARNINGS\n", "gpublob_blob b; return gpublob_file_compile(0, 0, \"k\", &b);",
       0, NULL},
      {"deprecated: GPUBLOB_DEPRECATE_HARD leaves them out of the header", "#define GPUBLOB_DEPRECATE_HARD\n",
       "gpublob_blob b; return gpublob_file_compile(0, 0, \"k\", &b);", 1, "gpublob_file_compile"},
      {"deprecated: a program of today's calls compiles clean", "",
       "gpublob_options o; gpublob_result r = {0}; gpublob_options_init(&o, 0); gpublob_result_free(&r); return 0;", 0,
       NULL},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char src[1024];
    int n = snprintf(src, sizeof src, "%s#include \"gpublob.h\"\nint main(void) { %s }\n", cases[i].defines,
                     cases[i].body);
    const char *path = tmp_path("deprecated.c");
    spill(path, src, (size_t)n);
    const char *argv[] = {cc, "-std=c11", "-Werror=deprecated-declarations", "-Werror=implicit-function-declaration",
                          "-I.", "-fsyntax-only", path, NULL};
    char *out = NULL;
    int rc = run(argv, &out);
    check((rc != 0) == cases[i].fails && (!cases[i].says || contains(out, cases[i].says)), cases[i].name,
          "exit %d: %s", rc, shown(out));
    free(out);
  }
}

int main(void) {
  if (gpublob_open(&g)) return 1;
  test_tool_figures(); /* first: the process's first provider load */
  test_auto_kinds();
  test_auto_binary();
  test_detect();
  test_misuse();
  test_ll();
  test_pack_name();
  test_sizes();
  test_tool_info();
  test_libs();
  test_cache_kind();
  test_wrappers();
  test_options_init();
  test_output_get();
  test_deprecated();
  gpublob_close(g);
  return report();
}
