/* test_errors: bad input gets its documented code and a message naming the
** cause, never a crash; the CLI then writes no output file and no temporary. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* These checks call the 1.0 calls too (gpublob_module_compile and the like), which
** stay supported: without their deprecation warnings. */
#define GPUBLOB_DISABLE_DEPRECATE_WARNINGS
#include "gpublob.h"
#include "testlib.h"

static gpublob *g;

static const char verify_fail[] = /* a use that does not dominate its definition */
    "define void @k(i32 %a) {\n"
    "  %x = add i32 %y, 1\n"
    "  %y = add i32 %a, 1\n"
    "  ret void\n"
    "}\n";

static const char foreign_intrinsic[] =
    "define amdgpu_kernel void @k(ptr addrspace(1) %p) {\n"
    "  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    "  store i32 %t, ptr addrspace(1) %p\n"
    "  ret void\n"
    "}\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n";

static const char unresolved_call[] =
    "define amdgpu_kernel void @k(ptr addrspace(1) %p) {\n"
    "  %v = call float @no_such_device_function(float 1.0)\n"
    "  store float %v, ptr addrspace(1) %p\n"
    "  ret void\n"
    "}\n"
    "declare float @no_such_device_function(float)\n";

/* One API call: its code (returned, and gpublob_error_code's), no blob, and a
** message part; a check each, NAME: code, NAME: error code, NAME: no blob, NAME. */
static void expect(const char *name, const gpublob_options *o, const void *ir, size_t n,
                   int code, const char *part) {
  static unsigned char x[] = "x"; /* what must be zeroed on failure */
  gpublob_blob b = {x, 1, NULL};
  int rc = gpublob_module_compile(g, o, ir, n, "bad.ll", &b);
  const char *msg = gpublob_error_message(g);
  int ecode = gpublob_error_code(g);
  char label[300];
  snprintf(label, sizeof label, "%s: code", name);
  check(rc == code, label, "got %d (%s), want %d", rc, msg, code);
  snprintf(label, sizeof label, "%s: gpublob_error_code", name);
  check(ecode == code, label, "gpublob_error_code %d, want %d", ecode, code);
  snprintf(label, sizeof label, "%s: no blob", name);
  check(b.data == NULL, label, "a blob of %zu bytes", b.size);
  check(contains(msg, part), name, "message '%s' lacks '%s'", msg, part);
  if (b.data && b.data != x) gpublob_blob_free(&b);
}

/* The CLI with the same fault: non-zero, "gpublob: error:" first, nothing left behind. */
static void expect_cli(const char *name, const char *const *args, const char *input_text,
                       int code) {
  const char *in = tmp_path("cli-in.ll"), *out = tmp_path("cli-out.bin");
  if (input_text) spill(in, input_text, strlen(input_text));
  const char *argv[32] = {"build/gpublob"};
  int n = 1;
  for (; *args; args++) argv[n++] = strcmp(*args, "IN") ? *args : in;
  argv[n++] = "-o";
  argv[n++] = out;
  argv[n] = NULL;
  char *log = NULL;
  int rc = run(argv, &log);
  char label[300];
  snprintf(label, sizeof label, "%s: exit", name);
  check(rc == 10 + code, label, "exit %d (want %d): %s", rc, 10 + code, log);
  snprintf(label, sizeof label, "%s: stderr starts 'gpublob: error: '", name);
  check(!strncmp(log ? log : "", "gpublob: error: ", 16), label, "%s", log);
  snprintf(label, sizeof label, "%s: no output file", name);
  check(!exists(out), label, "%s is there", out);
  snprintf(label, sizeof label, "%s: no output temporary", name);
  check(leftovers(scratch(), "cli-out.bin.tmp") == 0, label, "%d cli-out.bin.tmp* left",
        leftovers(scratch(), "cli-out.bin.tmp"));
  snprintf(label, sizeof label, "%s: no private directory left", name);
  check(leftovers(scratch(), "gpublob-") == 0, label, "%d gpublob-* left", leftovers(scratch(), "gpublob-"));
  free(log);
  unlink(in);
}

static const gpublob_options *opts(const char *target, const char *features) {
  static gpublob_options o;
  o = (gpublob_options){.version = GPUBLOB_OPTIONS_VERSION, .target = target, .features = features};
  return &o;
}

static void test_inputs(void) {
  const char *text = "define void @k( {\n";
  expect("error: malformed text IR is PARSE with file:line:col", opts("spirv", NULL), text,
         strlen(text), GPUBLOB_PARSE, "bad.ll:2:1: error: expected type");
  const char bc[] = "BC\xc0\xde\x35\x14\x00\x00\x05\x00\x00\x00\x62\x0c\x30\x24garbage";
  expect("error: garbage bitcode is BITCODE", opts("spirv", NULL), bc, sizeof bc - 1,
         GPUBLOB_BITCODE, "bitcode");
  expect("error: IR failing verification is VERIFY", opts("amdgcn", NULL), verify_fail,
         strlen(verify_fail), GPUBLOB_VERIFY, "Instruction does not dominate all uses");
  expect("error: another target's intrinsic is refused, not an LLVM abort", opts("amdgcn", NULL),
         foreign_intrinsic, strlen(foreign_intrinsic), GPUBLOB_TARGET, "llvm.nvvm.read.ptx.sreg.tid.x");
  gpublob_blob b = {0};
  int rc = gpublob_file_compile(g, NULL, "tests/no-such-file.ll", &b);
  check(rc == GPUBLOB_IO, "error: a missing input file is IO", "%d %s", rc, gpublob_error_message(g));
  check(contains(gpublob_error_message(g), "no-such-file.ll"), "error: a missing input file is IO: message names it",
        "%s", gpublob_error_message(g));
  gpublob_blob_free(&b);
}

static void test_options(void) {
  size_t n;
  char *ir = (char *)slurp("examples/saxpy_nvptx.ll", &n);
  expect("error: unknown target is TARGET", opts("cuda", NULL), ir, n, GPUBLOB_TARGET,
         "unknown target 'cuda'");
  expect("error: invalid chip is CHIP", opts("nvptx:sm_999", NULL), ir, n, GPUBLOB_CHIP,
         "invalid chip 'sm_999'");
  expect("error: an amdgcn chip given to nvptx is CHIP", opts("nvptx:gfx90a", NULL), ir, n,
         GPUBLOB_CHIP, "gfx90a");
  expect("error: PTX version too low for sm_90 is FEATURES, not an abort", opts("nvptx", "+ptx60"),
         ir, n, GPUBLOB_FEATURES, "+ptx78");
  expect("error: unknown nvptx feature is FEATURES", opts("nvptx", "+avx512f"), ir, n,
         GPUBLOB_FEATURES, "avx512f");
  expect("error: a PTX version LLVM does not know is FEATURES", opts("nvptx", "+ptx99"), ir, n,
         GPUBLOB_FEATURES, "ptx99");
  free(ir);
  ir = (char *)slurp("examples/saxpy_amdgcn.ll", &n);
  expect("error: wave32 on gfx90a (a wave64-only chip) is FEATURES", opts("amdgcn", "+wavefrontsize32"),
         ir, n, GPUBLOB_FEATURES, "implies -wavefrontsize32");
  expect("error: unknown amdgcn feature is FEATURES", opts("amdgcn", "+foo"), ir, n, GPUBLOB_FEATURES,
         "unknown feature '+foo'");
  free(ir);
  ir = (char *)slurp("examples/saxpy_nvptx.ll", &n);
  expect("error: a feature without a sign is FEATURES", opts("nvptx", "ptx80"), ir, n,
         GPUBLOB_FEATURES, "'+' or '-'");
  gpublob_options o = *opts("nvptx", NULL);
  o.format = 9;
  expect("error: unknown format is FORMAT", &o, ir, n, GPUBLOB_FORMAT, "format");
  o = *opts("nvptx", NULL);
  o.version = 99;
  expect("error: a newer options version is OPTION", &o, ir, n, GPUBLOB_OPTION, "version 99");
  /* Math modes: each one set is one the target's spec reads, or OPTION naming it. */
  o = *opts("nvptx", NULL);
  o.format = GPUBLOB_FORMAT_ASM;
  o.flags = GPUBLOB_FLAG_UNSAFE_SQRT;
  expect("error: --unsafe-sqrt on nvptx (its spec reads ftz alone) is OPTION", &o, ir, n, GPUBLOB_OPTION,
         "math mode --unsafe-sqrt (GPUBLOB_FLAG_UNSAFE_SQRT) has no effect on target nvptx: its spec reads ftz");
  o.flags = GPUBLOB_FLAG_FINITE_ONLY;
  expect("error: --finite-only on nvptx is OPTION", &o, ir, n, GPUBLOB_OPTION, "--finite-only");
  o.flags = GPUBLOB_FLAG_UNSAFE_MATH;
  expect("error: --unsafe-math on nvptx is OPTION", &o, ir, n, GPUBLOB_OPTION, "--unsafe-math");
  gpublob_blob b = {0};
  o.flags = GPUBLOB_FLAG_FAST_MATH | GPUBLOB_FLAG_FTZ;
  int rc = gpublob_module_compile(g, &o, ir, n, "saxpy.ll", &b);
  check(rc == 0, "math modes: --fast-math and --ftz on nvptx compile (ftz is read)", "rc %d: %s", rc,
        gpublob_error_message(g));
  gpublob_blob_free(&b);
  free(ir);
  ir = (char *)slurp("examples/saxpy_spirv.ll", &n);
  o = *opts("spirv", NULL);
  o.flags = GPUBLOB_FLAG_FTZ;
  expect("error: --ftz on spirv (its spec reads no math mode) is OPTION", &o, ir, n, GPUBLOB_OPTION,
         "--ftz/--daz (GPUBLOB_FLAG_FTZ) has no effect on target spirv: its spec reads no math mode");
  o.flags = GPUBLOB_FLAG_FAST_MATH;
  expect("error: --fast-math on spirv is OPTION", &o, ir, n, GPUBLOB_OPTION, "--fast-math");
  free(ir);
  if (!need_rocm("math modes: all four on amdgcn compile (its constants read each)")) return;
  ir = (char *)slurp("examples/saxpy_amdgcn.ll", &n);
  o = *opts("amdgcn", NULL);
  o.flags = GPUBLOB_FLAG_FTZ | GPUBLOB_FLAG_FINITE_ONLY | GPUBLOB_FLAG_UNSAFE_MATH | GPUBLOB_FLAG_UNSAFE_SQRT;
  rc = gpublob_module_compile(g, &o, ir, n, "saxpy.ll", &b);
  check(rc == 0, "math modes: all four on amdgcn compile (its constants read each)", "rc %d: %s", rc,
        gpublob_error_message(g));
  gpublob_blob_free(&b);
  free(ir);
}

static void test_tools(void) {
  size_t n;
  char *ir = (char *)slurp("examples/saxpy_nvptx.ll", &n);
  gpublob_options o = *opts("nvptx", NULL);
  o.flags = GPUBLOB_FLAG_NO_DEFAULT_SEARCH;
  o.tool_dirs = "/nonexistent/cuda/bin";
  expect("error: ptxas on no search path is NOTOOL, listing the paths tried", &o, ir, n,
         GPUBLOB_NOTOOL, "/nonexistent/cuda/bin/ptxas");
  o.format = GPUBLOB_FORMAT_ASM;
  o.lib_dirs = "/nonexistent/libdevice";
  expect("error: libdevice on no search path is NOLIB, listing the paths tried", &o, ir, n,
         GPUBLOB_NOLIB, "/nonexistent/libdevice/libdevice.10.bc");
  free(ir);

  /* both link ocml (saxpy's expf; the unresolved call's module links the device libraries first) */
  if (!need_rocm("error: an amdgcn blob tool exiting non-zero is TOOL; an unresolved device call is LINK")) return;
  const char *script = tmp_path("failing-tool");
  const char body[] = "#!/bin/sh\necho \"failing-tool: refused $*\" >&2\nexit 3\n";
  spill(script, body, sizeof body - 1);
  chmod(script, 0755);
  ir = (char *)slurp("examples/saxpy_amdgcn.ll", &n);
  o = *opts("amdgcn", NULL);
  o.tool = script;
  expect("error: a blob tool exiting non-zero is TOOL, with its stderr", &o, ir, n, GPUBLOB_TOOL,
         "exited with status 3:\nfailing-tool: refused -shared --no-undefined");
  free(ir);
  expect("error: an unresolved device call is LINK, by name, before ld.lld --no-undefined", opts("amdgcn", NULL),
         unresolved_call, strlen(unresolved_call), GPUBLOB_LINK, "undefined function 'no_such_device_function'");
}

/* ptxas starts before the backend runs; a failure after that stops it and cleans up. */
static void test_early_tool_stopped(void) {
  char ptxas[4096];
  gpublob_options o = *opts("nvptx", NULL);
  if (tool_path(g, &o, ptxas, sizeof ptxas)) {
    skip("error: a started ptxas is stopped when a later step fails", "CUDA toolkit not found");
    return;
  }
  *strrchr(ptxas, '/') = 0;
  setenv("TMPDIR", scratch(), 1);
  o.flags = GPUBLOB_FLAG_NO_DEFAULT_SEARCH;
  o.tool_dirs = ptxas;
  o.lib_dirs = "/nonexistent/libdevice";
  size_t n;
  char *ir = (char *)slurp("examples/saxpy_nvptx.ll", &n);
  expect("error: a started ptxas is stopped when a later step fails (NOLIB)", &o, ir, n,
         GPUBLOB_NOLIB, "libdevice.10.bc");
  check(leftovers(scratch(), "gpublob-") == 0, "error: ... and its private directory is removed",
        NULL);
  free(ir);
}

/* A host that reaps every child (SIGCHLD ignored) gets an error, never a hang or a false success. */
static void test_host_reaps_children(void) {
  if (!need_rocm("error: a host that reaps children gets TOOL, not a hang or a success")) return;
  size_t n;
  char *ir = (char *)slurp("examples/saxpy_amdgcn.ll", &n);
  gpublob_options o = *opts("amdgcn", NULL);
  o.tool = "/bin/false";
  signal(SIGCHLD, SIG_IGN);
  expect("error: a host that reaps children gets TOOL, not a hang or a success", &o, ir, n,
         GPUBLOB_TOOL, "lost the exit status");
  signal(SIGCHLD, SIG_DFL);
  free(ir);
}

static void test_cli(void) {
  setenv("TMPDIR", scratch(), 1); /* the blob tool's private directory goes here */
  expect_cli("cli: malformed IR exits non-zero, no output", (const char *[]){"-t", "spirv", "IN", NULL},
             "define void @k( {\n", GPUBLOB_PARSE);
  expect_cli("cli: unknown target exits non-zero, no output",
             (const char *[]){"-t", "nope", "examples/saxpy_nvptx.ll", NULL}, NULL, GPUBLOB_TARGET);
  expect_cli("cli: invalid chip exits non-zero, no output",
             (const char *[]){"-t", "amdgcn:gfx9999", "examples/saxpy_amdgcn.ll", NULL}, NULL,
             GPUBLOB_CHIP);
  expect_cli("cli: PTX too low exits non-zero, no output",
             (const char *[]){"-t", "nvptx", "--features", "+ptx70", "examples/saxpy_nvptx.ll", NULL},
             NULL, GPUBLOB_FEATURES);
  expect_cli("cli: missing ptxas exits non-zero, no output",
             (const char *[]){"-t", "nvptx", "--no-default-search", "examples/saxpy_nvptx.ll", NULL},
             NULL, GPUBLOB_NOTOOL);
  if (need_rocm("cli: failing amdgcn blob tool; unresolved call")) {
    expect_cli("cli: failing blob tool exits non-zero, no output, no temporary directory",
               (const char *[]){"-t", "amdgcn", "--tool", "/bin/false", "examples/saxpy_amdgcn.ll", NULL},
               NULL, GPUBLOB_TOOL);
    expect_cli("cli: unresolved call exits non-zero, no output", (const char *[]){"-t", "amdgcn", "IN", NULL},
               unresolved_call, GPUBLOB_LINK);
  }
  char *log = NULL;
  const char *argv[] = {"build/gpublob", "--bogus", NULL};
  int rc = run(argv, &log);
  check(rc == 2, "cli: unknown option exits 2", "%d %s", rc, log);
  check(contains(log, "unknown option '--bogus'"), "cli: unknown option exits 2: message names it", "%s", log);
  free(log);
}

int main(void) {
  if (gpublob_open(&g)) return 2;
  test_inputs();
  test_options();
  test_tools();
  test_early_tool_stopped();
  test_host_reaps_children();
  test_cli();
  gpublob_close(g);
  return report();
}
