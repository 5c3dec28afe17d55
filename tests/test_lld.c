/* test_lld: lld's ELF driver in-process (src/lld.cpp, the spec's provider = lld).
** Every AMD chip the spec lists, on every code object version it may have, and
** offload bundles: the hsaco that auto makes in-process is ld.lld-22's, byte for
** byte (the same call with --tool-mode program).  lld's errors are TOOL with lld's
** own message and the host lives on: an undefined symbol (lld may run again), a
** malformed object (lld's fatal(): it ends the child process lld runs in,
** src/provider_child.c, and lld in-process goes on in the next).  A build without lld
** (configure without liblld-22-dev) says skipped. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpublob.h"
#include "testlib.h"

static gpublob *g;

static const char undefined_kernel[] =
    "target triple = \"amdgcn-amd-amdhsa\"\n"
    "@ext = external addrspace(1) global i32\n"
    "define amdgpu_kernel void @k(ptr addrspace(1) %p) {\n"
    "  %v = load i32, ptr addrspace(1) @ext\n"
    "  store i32 %v, ptr addrspace(1) %p\n"
    "  ret void\n"
    "}\n";

static gpublob_options options(const char *target, int mode) {
  gpublob_options o = GPUBLOB_OPTIONS_INIT;
  o.target = target;
  o.tool_mode = mode;
  o.jobs = 1;
  return o;
}

/* The kind and name of the tool a call with these options takes, into kind/name. */
static void tool_of(const gpublob_options *o, char *kind, char *name, size_t n) {
  gpublob_tool_info t;
  kind[0] = name[0] = 0;
  if (gpublob_tool_info_get(g, o, 1, &t, sizeof t)) return;
  snprintf(kind, n, "%s", t.kind);
  snprintf(name, n, "%s", t.name);
}

static int compile_text(const gpublob_options *o, const char *text, gpublob_result *r) {
  gpublob_input in = {GPUBLOB_INPUT_AUTO, text, strlen(text), NULL, "k.ll"};
  return gpublob_compile(g, o, &in, r);
}

static int compile_file(const gpublob_options *o, const char *path, gpublob_result *r) {
  gpublob_input in = {GPUBLOB_INPUT_AUTO, NULL, 0, path, NULL};
  return gpublob_compile(g, o, &in, r);
}

static int same_blob(const gpublob_result *a, const gpublob_result *b) {
  return a->count == 1 && b->count == 1 && a->outputs[0].blob.size == b->outputs[0].blob.size &&
         !memcmp(a->outputs[0].blob.data, b->outputs[0].blob.data, a->outputs[0].blob.size);
}

/* One chip and code object version: in-process (auto) against the program. */
static void check_chip(const char *chip, unsigned abi, int *same, int *tried) {
  char target[96];
  snprintf(target, sizeof target, "amdgcn:%s", chip);
  gpublob_options in = options(target, GPUBLOB_TOOL_AUTO), prog = options(target, GPUBLOB_TOOL_PROGRAM);
  in.abi = prog.abi = abi;
  gpublob_result a = {0}, b = {0};
  int rb = compile_file(&prog, "examples/saxpy_amdgcn.ll", &b);
  int ra = compile_file(&in, "examples/saxpy_amdgcn.ll", &a);
  if (rb) { /* a generic chip on v4 or v5: refused alike, before any tool */
    check(ra == rb, "refused alike", "%s v%u: program %d, in-process %d", chip, abi / 100, rb, ra);
  } else {
    (*tried)++;
    int ok = !ra && same_blob(&a, &b) && !strcmp(a.outputs[0].tool, "lld") &&
             !strcmp(b.outputs[0].tool, "ld.lld");
    if (ok) (*same)++;
    else
      check(ok, "lld's bytes", "%s v%u: rc %d, tools %s / %s, sizes %zu / %zu", chip, abi / 100, ra,
            ra || !a.count ? "-" : a.outputs[0].tool, b.count ? b.outputs[0].tool : "-",
            ra || !a.count ? 0 : a.outputs[0].blob.size, b.count ? b.outputs[0].blob.size : 0);
  }
  if (!ra) gpublob_result_free(&a);
  if (!rb) gpublob_result_free(&b);
}

static void every_chip(void) {
  gpublob_target_info t;
  int found = 0;
  for (int i = 0; i < gpublob_target_count() && !found; i++)
    if (!gpublob_target_get(i, &t, sizeof t) && !strcmp(t.name, "amdgcn")) found = 1;
  check(found, "amdgcn in the spec", "no amdgcn target");
  if (!found) return;
  static const unsigned abis[] = {400, 500, 600};
  int same = 0, tried = 0;
  char chip[64];
  for (const char *p = t.chips; *p;) {
    size_t n = strcspn(p, " ");
    snprintf(chip, sizeof chip, "%.*s", (int)n, p);
    p += n + (p[n] == ' ');
    for (size_t k = 0; k < sizeof abis / sizeof *abis; k++) check_chip(chip, abis[k], &same, &tried);
  }
  check(tried >= 100 && same == tried, "every chip and version",
        "%d of %d hsacos are ld.lld's bytes", same, tried);
  printf("  lld in-process: %d of %d (chip, code object version) hsacos equal ld.lld-22's\n", same, tried);
}

static void bundles(void) {
  static const char *const sets[] = {"amdgcn:gfx90a:xnack+,gfx942", "amdgcn:gfx908,gfx1100,gfx1201"};
  for (size_t i = 0; i < 2; i++) {
    gpublob_options in = options(sets[i], GPUBLOB_TOOL_AUTO), prog = options(sets[i], GPUBLOB_TOOL_PROGRAM);
    in.format = prog.format = GPUBLOB_FORMAT_PACK;
    gpublob_result a = {0}, b = {0};
    int rb = compile_file(&prog, "examples/saxpy_amdgcn.ll", &b);
    int ra = compile_file(&in, "examples/saxpy_amdgcn.ll", &a);
    check(!ra && !rb && same_blob(&a, &b), "a bundle's bytes", "%s: rc %d / %d", sets[i], ra, rb);
    if (!ra) gpublob_result_free(&a);
    if (!rb) gpublob_result_free(&b);
  }
}

/* An undefined symbol is lld's error: TOOL with its message, and lld runs again. */
static void undefined_symbol(void) {
  gpublob_options o = options("amdgcn:gfx90a", GPUBLOB_TOOL_INPROCESS);
  gpublob_result r = {0};
  int rc = compile_text(&o, undefined_kernel, &r);
  const char *msg = gpublob_error_message(g);
  check(rc == GPUBLOB_TOOL, "undefined symbol: TOOL", "rc %d: %s", rc, msg);
  check(contains(msg, "lld (in-process)") && contains(msg, "undefined symbol: ext"),
        "undefined symbol: lld's message", "%s", msg);
  check(leftovers(scratch(), "gpublob-") == 0, "undefined symbol: lld's directory is removed", "%d left in %s",
        leftovers(scratch(), "gpublob-"), scratch());
  rc = compile_file(&o, "examples/saxpy_amdgcn.ll", &r);
  check(!rc && r.count == 1 && !strcmp(r.outputs[0].tool, "lld"), "lld runs again after an error", "rc %d: %s",
        rc, gpublob_error_message(g));
  if (!rc) gpublob_result_free(&r);
}

/* Options that would reach beyond the job in-process (-mllvm: LLVM's process-wide
** options) have no counterpart: in-process mode is OPTION, auto runs ld.lld. */
static void process_wide_options(void) {
  gpublob_options o = options("amdgcn:gfx90a", GPUBLOB_TOOL_INPROCESS);
  o.tool_options = "-mllvm -print-after-all";
  gpublob_result r = {0};
  int rc = compile_file(&o, "examples/saxpy_amdgcn.ll", &r);
  check(rc == GPUBLOB_OPTION && contains(gpublob_error_message(g), "-mllvm"),
        "-mllvm in-process is OPTION, naming it", "rc %d: %s", rc, gpublob_error_message(g));
  if (!rc) gpublob_result_free(&r);
  o.tool_mode = GPUBLOB_TOOL_AUTO;
  rc = compile_file(&o, "examples/saxpy_amdgcn.ll", &r);
  check(!rc && r.count == 1 && !strcmp(r.outputs[0].tool, "ld.lld"), "-mllvm in auto runs the ld.lld program",
        "rc %d: %s", rc, gpublob_error_message(g));
  if (!rc) gpublob_result_free(&r);
}

/* A malformed object among lld's inputs (a tool option) is lld's fatal error: the
** host lives, the call is TOOL, and lld runs no more in this process. */
static void malformed_object(void) {
  char kind[32], name[32];
  gpublob_options o = options("amdgcn:gfx90a", GPUBLOB_TOOL_AUTO);
  gpublob_result r = {0};
  int rc = compile_file(&o, "examples/saxpy_amdgcn.ll", &r);
  check(!rc && r.count == 1, "an object to break", "rc %d: %s", rc, gpublob_error_message(g));
  if (rc || r.count != 1) return;
  /* the hsaco with its section header table said to start past the end of the file */
  size_t n = r.outputs[0].blob.size;
  unsigned char *bad = malloc(n);
  memcpy(bad, r.outputs[0].blob.data, n);
  gpublob_result_free(&r);
  unsigned long long past = n + 4096;
  memcpy(bad + 0x28, &past, 8); /* e_shoff (little-endian ELF64) */
  const char *path = tmp_path("malformed.o");
  spill(path, bad, n);
  free(bad);
  char opts[600];
  snprintf(opts, sizeof opts, "'%s'", path);
  o.tool_options = opts;
  rc = compile_file(&o, "examples/saxpy_amdgcn.ll", &r);
  const char *msg = gpublob_error_message(g);
  check(rc == GPUBLOB_TOOL, "malformed object: TOOL", "rc %d: %s", rc, msg);
  check(contains(msg, "lld (in-process)") && contains(msg, "malformed.o"), "malformed object: lld's message",
        "%s", msg);
  int fatal = contains(msg, "failed fatally");
  check(fatal, "a malformed object is lld's fatal error", "%s", msg);
  if (!fatal) return;
  o.tool_options = NULL;
  /* lld ran in a child process (src/provider_child.c): its fatal error ended that
  ** child alone, and lld in-process goes on in this one, in auto and in-process mode */
  tool_of(&o, kind, name, sizeof kind);
  check(!strcmp(kind, "in-process") && !strcmp(name, "lld"), "auto keeps lld in-process after its fatal error",
        "%s %s", kind, name);
  rc = compile_file(&o, "examples/saxpy_amdgcn.ll", &r);
  check(!rc && r.count == 1 && !strcmp(r.outputs[0].tool, "lld"), "auto compiles with lld in-process after it",
        "rc %d: %s", rc, gpublob_error_message(g));
  if (!rc) gpublob_result_free(&r);
  o.tool_mode = GPUBLOB_TOOL_INPROCESS;
  rc = compile_file(&o, "examples/saxpy_amdgcn.ll", &r);
  check(!rc && r.count == 1, "in-process mode compiles after lld's fatal error", "rc %d: %s", rc,
        gpublob_error_message(g));
  if (!rc) gpublob_result_free(&r);
}

int main(void) {
  setenv("TMPDIR", scratch(), 1); /* lld's private directories, counted here */
  if (gpublob_open(&g)) return 1;
  char kind[32], name[32];
  gpublob_options o = options("amdgcn:gfx90a", GPUBLOB_TOOL_AUTO);
  tool_of(&o, kind, name, sizeof kind);
  char program[4096] = "";
  gpublob_options po = options("amdgcn:gfx90a", GPUBLOB_TOOL_PROGRAM);
  if (strcmp(name, "lld")) {
    skip("lld in-process", "this build links no lld (./configure found no liblld-22-dev, or --without-lld)");
  } else if (tool_path(g, &po, program, sizeof program) || !*program) {
    skip("lld in-process against ld.lld", "no ld.lld program to compare with (apt-get install lld-22)");
  } else if (!need_rocm("lld in-process: saxpy's expf needs ocml")) {
  } else {
    every_chip();
    bundles();
    undefined_symbol();
    process_wide_options();
    malformed_object(); /* last */
  }
  gpublob_close(g);
  return report();
}
