/* test_keys: cache keys that follow content, not places.  Two checkouts in different
** folders, each run from its own folder under its own HOME with the same cache
** directory: the second's call is the front's hit, byte for byte the first's; a copy of
** the device libraries (ROCm's bitcode folder) and of ptxas and libdevice (where CUDA
** is) at another path hits, one changed byte of a copy misses; link files at other
** paths hit; a hit's stored warning is labelled with the second call's input name;
** the outputs of the same input from two folders are the same bytes, but -f ll of LLVM
** IR (its ModuleID is the name), MLIR bytecode (its locations name the input: MLIR
** text prints none) and debug info (its paths are the input's bytes); the
** toolchain identity is the same wherever the toolkit lies; the layout is v3. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpublob.h"
#include "testlib.h"

static char front[PATH_MAX], compiler[PATH_MAX], repo[PATH_MAX];
static const char *cache;

static int shell(const char *cmd, char **out) {
  const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
  return exit_code(run(argv, out));
}

/* sh -c CMD, quiet unless it fails: 0 when it exits 0. */
static int sh(const char *cmd) {
  char *out = NULL;
  int rc = shell(cmd, &out);
  if (rc) printf("  (%s: exit %d: %s)\n", cmd, rc, shown(out));
  free(out);
  return rc;
}

/* prog ARGS run in the checkout dir (its folder the working directory, dir/home its
** HOME, no XDG_CACHE_HOME), with the shared cache; stdout and stderr into *out. */
static int in_checkout(const char *dir, const char *prog, const char *args, char **out) {
  char cmd[16384];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s/home' && cd '%s' && HOME='%s/home' XDG_CACHE_HOME= exec '%s' --cache-dir '%s' %s",
           dir, dir, dir, prog, cache, args);
  return shell(cmd, out);
}

/* The front answered the call, from the cache (its --time line). */
static int front_hit(const char *log) { return contains(log, "time (front)") && contains(log, "cache 1 hits"); }

/* Files a and b exist and hold the same bytes. */
static int same_bytes(const char *a, const char *b) {
  size_t na, nb;
  unsigned char *x = slurp(a, &na), *y = slurp(b, &nb);
  int same = x && y && na == nb && na && !memcmp(x, y, na);
  free(x);
  free(y);
  return same;
}

static const char *one, *two; /* the two checkouts */

/* src (in the repository) copied to dir/rel, its folders made. */
static int put(const char *src, const char *dir, const char *rel) {
  char cmd[12000];
  snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s/%s')\" && cp '%s/%s' '%s/%s'", dir, rel, repo, src, dir, rel);
  return sh(cmd);
}

/* ---- two checkouts: the second call is the front's hit, the same bytes ---- */
typedef struct key_case {
  const char *src, *target, *format, *suffix;
} key_case;

/* The case compiled in checkout one as src/k.EXT and in checkout two as lib/deep/NAME:
** a miss, then the front's hit; then a fresh compile in two (--no-cache): the same bytes. */
static void two_checkouts(const key_case *k) {
  char args[8000], out1[4200], out2[4200], fresh[4200], name[300];
  const char *ext = strrchr(k->src, '.');
  snprintf(name, sizeof name, "keys: %s -t %s -f %s", k->src, k->target, k->format);
  char rel1[200], rel2[200];
  snprintf(rel1, sizeof rel1, "src/k%s", ext);
  snprintf(rel2, sizeof rel2, "lib/deep/kernel_%s%s", k->format, ext);
  if (put(k->src, one, rel1) || put(k->src, two, rel2)) {
    check(0, name, "could not copy the input");
    return;
  }
  snprintf(out1, sizeof out1, "%s/out_%s%s", one, k->format, k->suffix);
  snprintf(out2, sizeof out2, "%s/out_%s%s", two, k->format, k->suffix);
  snprintf(fresh, sizeof fresh, "%s/fresh_%s%s", two, k->format, k->suffix);
  char *log1 = NULL, *log2 = NULL, *log3 = NULL;
  snprintf(args, sizeof args, "--time -t %s -f %s %s -o '%s'", k->target, k->format, rel1, out1);
  int rc1 = in_checkout(one, front, args, &log1);
  snprintf(args, sizeof args, "--time -t %s -f %s %s -o '%s'", k->target, k->format, rel2, out2);
  int rc2 = in_checkout(two, front, args, &log2);
  snprintf(args, sizeof args, "--no-cache -t %s -f %s %s -o '%s'", k->target, k->format, rel2, fresh);
  int rc3 = in_checkout(two, front, args, &log3);
  char label[600];
  snprintf(label, sizeof label, "%s: checkout one compiles (a miss)", name);
  check(rc1 == 0 && contains(log1, "cache 0 hits, 1 misses"), label, "exit %d: %s", rc1, shown(log1));
  snprintf(label, sizeof label, "%s: checkout two (another folder, HOME and name) is the front's hit", name);
  check(rc2 == 0 && front_hit(log2), label, "exit %d: %s", rc2, shown(log2));
  snprintf(label, sizeof label, "%s: the hit's bytes are the first compile's", name);
  check(same_bytes(out1, out2), label, "%s against %s", out1, out2);
  snprintf(label, sizeof label, "%s: a fresh compile in checkout two gives the same bytes (no path in the output)", name);
  check(rc3 == 0 && same_bytes(out1, fresh), label, "exit %d: %s", rc3, shown(log3));
  free(log1);
  free(log2);
  free(log3);
}

static void checkouts(void) {
  static const key_case cases[] = {
      {"bench/kernels/saxpy_amdgcn.ll", "amdgcn:gfx90a", "bin", ".hsaco"},
      {"bench/kernels/saxpy_amdgcn.ll", "amdgcn:gfx90a", "asm", ".s"},
      {"bench/kernels/matmul_amdgcn.ll", "amdgcn:gfx90a,gfx942", "pack", ".hipfb"},
      {"bench/kernels/matmul_amdgcn.ll", "amdgcn:gfx90a,gfx942", "offload", ".offload"},
      {"bench/kernels/saxpy_nvptx.ll", "nvptx:sm_80", "asm", ".ptx"},
      {"bench/kernels/saxpy_nvptx.ll", "nvptx:sm_80", "bin", ".cubin"},
      {"examples/saxpy_spirv.ll", "spirv", "bin", ".spv"},
      {"examples/saxpy.mlir", "amdgcn:gfx90a", "bin", ".mlir"},
      {"examples/saxpy.mlir", "nvptx:sm_80", "llvm", ".mlir"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    if (!strcmp(cases[i].format, "bin") && !strncmp(cases[i].target, "nvptx", 5) && !have_ptxas()) {
      skip("keys: nvptx cubins from two checkouts", "CUDA toolkit (ptxas) not found");
      continue;
    }
    if (strstr(cases[i].src, ".mlir") && !gpublob_mlir_enabled()) {
      skip("keys: MLIR from two checkouts", "gpublob was configured without MLIR");
      continue;
    }
    two_checkouts(&cases[i]);
  }
}

/* ---- the input's name reaches an output: it stays in the key ---- */
typedef struct name_case {
  const char *src, *ext, *args, *what; /* ext: the output's; args: the call's, less input and -o */
} name_case;

/* The case's input as src/k.EXT in checkout one, as lib/other.EXT (another name) and
** src/k.EXT (the same name) in checkout two (EXT: the input's): another name misses and its output holds
** that name, not the first's; the same name in another folder hits, the same bytes. */
static void name_reaches(const name_case *n) {
  char r1[64], r2[64], label[400];
  const char *in_ext = strrchr(n->src, '.');
  snprintf(r1, sizeof r1, "src/k%s", in_ext);
  snprintf(r2, sizeof r2, "lib/other%s", in_ext);
  if (put(n->src, one, r1) || put(n->src, two, r1) || put(n->src, two, r2)) {
    check(0, n->what, "could not copy the input");
    return;
  }
  char *a = NULL, *b = NULL, *c = NULL, o1[4200], o2[4200], o3[4200], args[9000];
  snprintf(o1, sizeof o1, "%s/n1%s", one, n->ext);
  snprintf(o2, sizeof o2, "%s/n2%s", two, n->ext);
  snprintf(o3, sizeof o3, "%s/n3%s", two, n->ext);
  snprintf(args, sizeof args, "--time %s %s -o '%s'", n->args, r1, o1);
  int rc1 = in_checkout(one, front, args, &a);
  snprintf(args, sizeof args, "--time %s %s -o '%s'", n->args, r2, o2);
  int rc2 = in_checkout(two, front, args, &b);
  snprintf(args, sizeof args, "--time %s %s -o '%s'", n->args, r1, o3);
  int rc3 = in_checkout(two, front, args, &c);
  size_t n2 = 0;
  char *t2 = (char *)slurp(o2, &n2);
  int named = t2 && memmem(t2, n2, r2, strlen(r2)) && !memmem(t2, n2, r1, strlen(r1));
  snprintf(label, sizeof label, "%s: under another name misses, and its output names that name, not the first's", n->what);
  check(rc1 == 0 && rc2 == 0 && contains(b, "cache 0 hits, 1 misses") && named, label, "exit %d %d: %s", rc1, rc2, shown(b));
  snprintf(label, sizeof label, "%s: under the same name in another folder is the front's hit, the same bytes", n->what);
  check(rc3 == 0 && front_hit(c) && same_bytes(o1, o3), label, "exit %d: %s", rc3, shown(c));
  free(t2);
  free(a);
  free(b);
  free(c);
}

static void names_in_outputs(void) {
  static const name_case cases[] = {
      {"bench/kernels/saxpy_amdgcn.ll", ".ll", "-t amdgcn:gfx90a -f ll", "keys: -f ll of LLVM IR names its input (ModuleID)"},
      {"examples/saxpy.mlir", ".mlirbc", "--emit-bytecode -t amdgcn:gfx90a",
       "keys: MLIR bytecode names its input (its locations)"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    if (strstr(cases[i].src, ".mlir") && !gpublob_mlir_enabled()) {
      skip(cases[i].what, "gpublob was configured without MLIR");
      continue;
    }
    name_reaches(&cases[i]);
  }
}

/* ---- debug info: its paths are the input's bytes, which the key holds ---- */
static void debug_paths(void) {
  char ll[4200], moved[4200], cmd[40000];
  snprintf(ll, sizeof ll, "%s/debug.ll", scratch());
  snprintf(moved, sizeof moved, "%s/debug_moved.ll", scratch());
  const char *flags[] = {"-x", "hip", "--cuda-device-only", "--offload-arch=gfx90a", "-nogpuinc", "-nogpulib",
                         "-O2", "-g", "-S", "-emit-llvm", NULL};
  if (clang_ir(flags, "tests/clang/reduce.hip", ll, "HIP reduce.hip -g to LLVM IR (debug info)")) return;
  /* the same module as if built in another folder: its DIFile directories another path */
  snprintf(cmd, sizeof cmd, "sed 's|directory: \"[^\"]*\"|directory: \"/elsewhere/build\"|' '%s' > '%s' && mkdir -p '%s/dbg' "
           "'%s/dbg' && cp '%s' '%s/dbg/r.ll' && cp '%s' '%s/dbg/r.ll' && cp '%s' '%s/dbg/moved.ll'",
           ll, moved, one, two, ll, one, ll, two, moved, two);
  if (sh(cmd)) {
    check(0, "keys: debug info", "could not copy the module");
    return;
  }
  char *a = NULL, *b = NULL, *c = NULL, o1[4200], o2[4200], o3[4200], args[9000];
  snprintf(o1, sizeof o1, "%s/dbg/r.hsaco", one);
  snprintf(o2, sizeof o2, "%s/dbg/r.hsaco", two);
  snprintf(o3, sizeof o3, "%s/dbg/moved.hsaco", two);
  snprintf(args, sizeof args, "--time -t amdgcn:gfx90a dbg/r.ll -o '%s'", o1);
  int rc1 = in_checkout(one, front, args, &a);
  snprintf(args, sizeof args, "--time -t amdgcn:gfx90a dbg/r.ll -o '%s'", o2);
  int rc2 = in_checkout(two, front, args, &b);
  snprintf(args, sizeof args, "--time -t amdgcn:gfx90a dbg/moved.ll -o '%s'", o3);
  int rc3 = in_checkout(two, front, args, &c);
  check(rc1 == 0 && rc2 == 0 && front_hit(b) && same_bytes(o1, o2),
        "keys: a module with debug info, the same bytes in another folder: the front's hit, the same bytes", "exit %d %d: %s",
        rc1, rc2, shown(b));
  char *dw = NULL;
  snprintf(cmd, sizeof cmd, "%s/llvm-dwarfdump --debug-info '%s'", LLVM_BINDIR, o3);
  int rc4 = shell(cmd, &dw);
  check(rc3 == 0 && !front_hit(c) && rc4 == 0 && contains(dw, "/elsewhere/build"),
        "keys: debug info naming another build folder misses, and the output's DWARF names that folder", "exit %d %d: %s",
        rc3, rc4, shown(c));
  free(dw);
  free(a);
  free(b);
  free(c);
}

/* ---- the stored warning, labelled with this call's input name ---- */
static const char no_kernel[] = "target triple = \"amdgcn-amd-amdhsa\"\n"
                                "define void @helper(ptr addrspace(1) %p) {\n"
                                "  store float 1.0, ptr addrspace(1) %p\n  ret void\n}\n";

static void relabelled_warning(void) {
  char p1[4200], p2[4200], cmd[9000], args[9000];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s/warn' '%s/other/place'", one, two);
  snprintf(p1, sizeof p1, "%s/warn/helper_only.ll", one);
  snprintf(p2, sizeof p2, "%s/other/place/renamed.ll", two);
  if (sh(cmd) || spill(p1, no_kernel, sizeof no_kernel - 1) || spill(p2, no_kernel, sizeof no_kernel - 1)) {
    check(0, "keys: a hit's warning", "could not write the inputs");
    return;
  }
  char *a = NULL, *b = NULL, *c = NULL;
  int rc1 = in_checkout(one, front, "--time -t amdgcn:gfx90a warn/helper_only.ll -o w1.hsaco", &a);
  int rc2 = in_checkout(two, front, "--time -t amdgcn:gfx90a other/place/renamed.ll -o w2.hsaco", &b);
  snprintf(args, sizeof args, "--time -t amdgcn:gfx90a -o w3.hsaco '%s'", p2);
  int rc3 = in_checkout(two, compiler, args, &c);
  check(rc1 == 0 && contains(a, "warning: warn/helper_only.ll: no kernel for amdgcn"),
        "keys: a module without a kernel warns, naming its input", "exit %d: %s", rc1, shown(a));
  check(rc2 == 0 && front_hit(b) && contains(b, "warning: other/place/renamed.ll: no kernel for amdgcn") &&
            lacks(b, "helper_only"),
        "keys: the front's hit gives the stored warning, labelled with this call's input name", "exit %d: %s", rc2, shown(b));
  char want[4400];
  snprintf(want, sizeof want, "warning: %s: no kernel for amdgcn", p2);
  check(rc3 == 0 && contains(c, "cache 1 hits") && contains(c, want) && lacks(c, "helper_only"),
        "keys: the compiler's hit too (an absolute name)", "exit %d: %s", rc3, shown(c));
  /* the library's: gpublob_warnings after a lookup */
  gpublob *g;
  gpublob_result r = {0};
  const gpublob_target_choice t = {"amdgcn:gfx90a", NULL, NULL}; /* as the CLI's -t gives it */
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .targets = &t, .ntargets = 1, .cache_dir = cache};
  const gpublob_input in = {GPUBLOB_INPUT_LLVM, no_kernel, sizeof no_kernel - 1, NULL, "<the caller's buffer>"};
  int rc = gpublob_open(&g) ? -1 : gpublob_cache_lookup(g, &o, &in, &r);
  check(rc == 0 && contains(gpublob_warnings(g), "<the caller's buffer>: no kernel for amdgcn"),
        "keys: gpublob_cache_lookup's hit gives the warning, labelled with the input's name", "rc %d: %s", rc,
        rc >= 0 ? gpublob_warnings(g) : "");
  gpublob_result_free(&r);
  if (rc >= 0) gpublob_close(g);
  free(a);
  free(b);
  free(c);
}

/* ---- link files at other paths ---- */
static const char link_ir[] = "target triple = \"amdgcn-amd-amdhsa\"\n"
                              "define float @twice(float %x) {\n  %y = fmul float %x, %FACTOR\n  ret float %y\n}\n";

/* A link file of factor (a float literal) at path, by llvm-as (which writes the .ll's
** path into it: copy one file to have the same bytes elsewhere): 0 when made. */
static int link_file(const char *path, const char *factor) {
  char ir[600], ll[4300], cmd[9000];
  const char *at = strstr(link_ir, "%FACTOR");
  snprintf(ir, sizeof ir, "%.*s%s%s", (int)(at - link_ir), link_ir, factor, at + 7);
  snprintf(ll, sizeof ll, "%s.ll", path);
  if (spill(ll, ir, strlen(ir))) return -1;
  snprintf(cmd, sizeof cmd, "%s/llvm-as '%s' -o '%s'", LLVM_BINDIR, ll, path);
  return sh(cmd);
}

static void link_files(void) {
  char l1[4200], l2[4200], l3[4200], args[9000], cmd[9000];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s/ext' '%s/vendor/libs'", one, two);
  snprintf(l1, sizeof l1, "%s/ext/twice.bc", one);
  snprintf(l2, sizeof l2, "%s/vendor/libs/twice.bc", two);
  snprintf(l3, sizeof l3, "%s/vendor/libs/thrice.bc", two);
  char copy[9000];
  snprintf(copy, sizeof copy, "cp '%s' '%s'", l1, l2); /* llvm-as names its .ll in the file: one file, copied */
  if (sh(cmd) || link_file(l1, "2.0") || sh(copy) || link_file(l3, "3.0") ||
      put("bench/kernels/saxpy_amdgcn.ll", one, "src/k.ll") || put("bench/kernels/saxpy_amdgcn.ll", two, "src/k.ll")) {
    check(0, "keys: link files", "could not make them");
    return;
  }
  char *a = NULL, *b = NULL, *c = NULL;
  int rc1 = in_checkout(one, front, "--time -t amdgcn:gfx90a -l ext/twice.bc src/k.ll -o l1.hsaco", &a);
  snprintf(args, sizeof args, "--time -t amdgcn:gfx90a -l '%s' src/k.ll -o l2.hsaco", l2);
  int rc2 = in_checkout(two, front, args, &b);
  int rc3 = in_checkout(two, front, "--time -t amdgcn:gfx90a -l vendor/libs/thrice.bc src/k.ll -o l3.hsaco", &c);
  check(rc1 == 0 && rc2 == 0 && front_hit(b), "keys: a link file of the same bytes at another path is the front's hit",
        "exit %d %d: %s / %s", rc1, rc2, shown(a), shown(b));
  check(rc3 == 0 && !front_hit(c) && contains(c, "1 misses"), "keys: a link file of other bytes misses", "exit %d: %s",
        rc3, shown(c));
  free(a);
  free(b);
  free(c);
}

/* ---- toolkits at other paths ---- */
/* A lookup alone of src for target (-t) with lib_dirs and toolkit: its code (OK a hit,
** NOTCACHED a miss). */
static int lookup(const char *target, const char *lib_dirs, const char *toolkit, const char *src) {
  size_t n;
  char path[PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/%s", repo, src);
  unsigned char *ir = slurp(path, &n);
  gpublob *g;
  gpublob_result r = {0};
  const gpublob_target_choice t = {target, NULL, NULL}; /* as the CLI's -t gives it */
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .targets = &t, .ntargets = 1, .cache_dir = cache,
                       .lib_dirs = lib_dirs, .toolkit = toolkit};
  int rc = !ir || gpublob_open(&g) ? -1 : gpublob_cache_lookup(g, &o, &(gpublob_input){GPUBLOB_INPUT_LLVM, ir, n, NULL, "k.ll"}, &r);
  gpublob_result_free(&r);
  if (ir && rc != -1) gpublob_close(g);
  free(ir);
  return rc;
}

/* The toolchain identity of args, run in dir (32 hex digits and a newline), into id. */
static int toolchain_id(const char *dir, const char *args, char id[40]) {
  char *out = NULL, all[9000];
  snprintf(all, sizeof all, "--toolchain-id %s", args);
  int rc = in_checkout(dir, front, all, &out);
  snprintf(id, 40, "%.32s", out ? out : "");
  free(out);
  return rc || strlen(id) != 32;
}

static void rocm_copy(void) {
  const char *name = "keys: a copy of ROCm's device libraries at another path";
  if (!have_rocm_bitcode()) {
    skip(name, "ROCm's device libraries (rocm-device-libs) not found");
    return;
  }
  char copy[4200], cmd[9000], args[9000], id1[40], id2[40];
  snprintf(copy, sizeof copy, "%s/rocm copy/amdgcn/bitcode", two);
  snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp -L '%s'/*.bc '%s/'", copy, ROCM_BITCODE, copy);
  if (sh(cmd) || put("examples/saxpy_amdgcn.ll", one, "src/saxpy.ll") || put("examples/saxpy_amdgcn.ll", two, "k.ll")) {
    check(0, name, "could not copy them");
    return;
  }
  char *a = NULL, *b = NULL;
  int rc1 = in_checkout(one, front, "--time -t amdgcn:gfx90a src/saxpy.ll -o r1.hsaco", &a);
  snprintf(args, sizeof args, "--time -t amdgcn:gfx90a --lib-dir '%s' k.ll -o r2.hsaco", copy);
  int rc2 = in_checkout(two, front, args, &b);
  char o1[4300], o2[4300];
  snprintf(o1, sizeof o1, "%s/r1.hsaco", one);
  snprintf(o2, sizeof o2, "%s/r2.hsaco", two);
  check(rc1 == 0 && rc2 == 0 && front_hit(b) && same_bytes(o1, o2),
        "keys: saxpy (its expf is ocml's) with a copy of ROCm's bitcode at another path (--lib-dir): the front's hit",
        "exit %d %d: %s / %s", rc1, rc2, shown(a), shown(b));
  free(a);
  free(b);
  int rc = lookup("amdgcn:gfx90a", copy, NULL, "examples/saxpy_amdgcn.ll");
  check(rc == GPUBLOB_OK, "keys: the copy's lookup (lib_dirs) hits", "rc %d", rc);
  snprintf(args, sizeof args, "-t amdgcn:gfx90a --lib-dir '%s'", copy);
  check(!toolchain_id(one, "-t amdgcn:gfx90a", id1) && !toolchain_id(two, args, id2) && !strcmp(id1, id2),
        "keys: the toolchain identity with the copy is the same", "%s against %s", id1, id2);
  /* one changed byte of the copy's ocml.bc (in place: the digest remembered by its times goes) */
  snprintf(cmd, sizeof cmd, "printf '\\001' | dd of='%s/ocml.bc' bs=1 seek=4096 conv=notrunc 2>/dev/null", copy);
  rc = sh(cmd) ? -2 : lookup("amdgcn:gfx90a", copy, NULL, "examples/saxpy_amdgcn.ll");
  check(rc == GPUBLOB_NOTCACHED, "keys: one changed byte in the copy's ocml.bc misses", "rc %d", rc);
  check(!toolchain_id(two, args, id2) && strcmp(id1, id2), "keys: ... and changes the toolchain identity", "%s", id2);
}

static void cuda_copy(void) {
  const char *name = "keys: a copy of ptxas and libdevice at another path (--toolkit)";
  char ptxas[PATH_MAX];
  gpublob *g;
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = "nvptx"};
  int found = !gpublob_open(&g) && !tool_path(g, &o, ptxas, sizeof ptxas) && *ptxas;
  gpublob_close(g);
  char root[PATH_MAX], lib[PATH_MAX + 64];
  snprintf(root, sizeof root, "%s", found ? ptxas : "");
  for (int up = 0; up < 2; up++) { /* ROOT/bin/ptxas */
    char *slash = strrchr(root, '/');
    if (slash) *slash = 0;
  }
  snprintf(lib, sizeof lib, "%s/nvvm/libdevice/libdevice.10.bc", root);
  if (!found || !exists(lib)) {
    skip(name, "CUDA toolkit (ptxas and libdevice) not found");
    return;
  }
  char tk[4200], cmd[40000], args[9000], id1[40], id2[40];
  snprintf(tk, sizeof tk, "%s/cuda elsewhere", two);
  snprintf(cmd, sizeof cmd, "mkdir -p '%s/bin' '%s/nvvm/libdevice' && cp -L '%s' '%s/bin/ptxas' && cp -L '%s' '%s/nvvm/libdevice/'",
           tk, tk, ptxas, tk, lib, tk);
  if (sh(cmd) || put("examples/saxpy_nvptx.ll", one, "src/saxpy.ll") || put("examples/saxpy_nvptx.ll", two, "k.ll")) {
    check(0, name, "could not copy them");
    return;
  }
  char *a = NULL, *b = NULL;
  int rc1 = in_checkout(one, front, "--time -t nvptx:sm_80 src/saxpy.ll -o n1.cubin", &a);
  snprintf(args, sizeof args, "--time -t nvptx:sm_80 --toolkit '%s' k.ll -o n2.cubin", tk);
  int rc2 = in_checkout(two, front, args, &b);
  char o1[4300], o2[4300];
  snprintf(o1, sizeof o1, "%s/n1.cubin", one);
  snprintf(o2, sizeof o2, "%s/n2.cubin", two);
  check(rc1 == 0 && rc2 == 0 && front_hit(b) && same_bytes(o1, o2),
        "keys: saxpy (its expf is libdevice's) with ptxas and libdevice copied elsewhere (--toolkit): the front's hit",
        "exit %d %d: %s / %s", rc1, rc2, shown(a), shown(b));
  free(a);
  free(b);
  snprintf(args, sizeof args, "-t nvptx:sm_80 --toolkit '%s'", tk);
  check(!toolchain_id(one, "-t nvptx:sm_80", id1) && !toolchain_id(two, args, id2) && !strcmp(id1, id2),
        "keys: the toolchain identity with the copied toolkit is the same", "%s against %s", id1, id2);
  snprintf(cmd, sizeof cmd, "printf '\\001' | dd of='%s/nvvm/libdevice/libdevice.10.bc' bs=1 seek=4096 conv=notrunc 2>/dev/null", tk);
  int rc = sh(cmd) ? -2 : lookup("nvptx:sm_80", NULL, tk, "examples/saxpy_nvptx.ll");
  check(rc == GPUBLOB_NOTCACHED, "keys: one changed byte in the copied libdevice misses", "rc %d", rc);
}

int main(void) {
  if (!realpath("build/gpublob", front) || !realpath("build/gpublob-compiler", compiler) || !getcwd(repo, sizeof repo)) {
    check(0, "keys: the CLI is built", "no build/gpublob or build/gpublob-compiler");
    return report();
  }
  cache = tmp_path("shared cache");
  one = strdup(tmp_path("checkout one"));
  two = strdup(tmp_path("elsewhere/checkout two"));
  char cmd[9000];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s' '%s'", one, two);
  if (sh(cmd)) check(0, "keys: the checkouts' folders", "could not make them");
  checkouts();
  names_in_outputs();
  debug_paths();
  relabelled_warning();
  link_files();
  rocm_copy();
  cuda_copy();
  char layout[4300];
  snprintf(layout, sizeof layout, "%s/v3", cache);
  check(exists(layout), "keys: the layout's version is v3 (keys changed in 1.7)", "%s", layout);
  free((char *)one);
  free((char *)two);
  return report();
}
