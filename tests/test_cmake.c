/* test_cmake: kernels compiled at build time by a CMake project, and the CLI's
** --depfile that makes its rebuilds right.
**
** --depfile (build/gpublob): the targets (the --emit-object object alone, else the
** --emit-c header alone, else each output), every input of several, the input, an -l file, the device libraries found in --lib-dir (a copy
** of ROCm's), ld.lld with --tool-mode program and clang-offload-bundler for a pack
** (when they are programs here), a path with a space escaped; the front's cache
** hit writes the same file; a call writing only to stdout is a usage error, and
** nothing is written.
**
** gpublob_add_kernels: installs this build into a temporary prefix
** (tools/install.sh, as test_install), configures tests/cmake (copied, so that
** its kernels can be edited) with CMake's Ninja generator, builds and runs its
** app, which checks the blobs it finds linked in (tests/cmake/main.c).  Then:
** building again does nothing; a comment appended to one kernel reruns that
** kernel's commands alone; a device library touched reruns every AMD command
** and not the NVIDIA one; and nothing rebuilds after.  A FORMAT offload kernel
** set (gpublob --emit-object's host object, one of the library's objects): main.c
** finds the container's magic by the object's symbols, and llvm-objdump-22
** --offloading lists the built object's entries.  AMD only unless a CUDA
** toolkit is found (ptxas and libdevice), which adds an NVIDIA kernel.  Without
** cmake, ninja, cc or ROCm's bitcode those checks are skipped.
**
** Not in the sanitized suites (a driver of install, CMake and ninja, as
** test_install). */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpublob.h"
#include "testlib.h"

/* A path or command from fmt, in a static ring of buffers. */
static const char *fmt(const char *f, ...) {
  static char ring[8][8192];
  static int i;
  char *p = ring[i++ % 8];
  va_list ap;
  va_start(ap, f);
  vsnprintf(p, sizeof ring[0], f, ap);
  va_end(ap);
  return p;
}

/* sh -c cmd; its output (stdout and stderr) into *out. */
static int sh(const char *cmd, char **out) {
  const char *argv[] = {"sh", "-c", cmd, NULL};
  return run(argv, out);
}

static int have(const char *program) { return sh(fmt("command -v %s >/dev/null 2>&1", program), NULL) == 0; }

static const char *tail(const char *out) { /* the end of a long output, for a failure */
  if (!out) return "(no output)";
  size_t n = strlen(out);
  return n > 3000 ? out + n - 3000 : out;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The device libraries of target:chip, found as a compile finds them (lib_dirs
** searched first), newline-separated into buf; 0 when every one was found. */
static int libs_of(const char *target, const char *lib_dirs, char *buf, size_t size) {
  gpublob *g;
  gpublob_options o = GPUBLOB_OPTIONS_INIT;
  const char *paths = "";
  o.target = target;
  o.lib_dirs = lib_dirs;
  if (gpublob_open(&g)) return -1;
  int rc = gpublob_libs_find(g, &o, &paths);
  snprintf(buf, size, "%s", paths);
  gpublob_close(g);
  return rc;
}

/* -f offload of an NVIDIA and an AMD module: each (target, chip)'s blob tool and
** device libraries, as -f bin lists them (ptxas, libdevice; ocml.bc, ockl.bc). */
static void depfile_offload_nvptx(const char *dir, const char *amd, const char *libs) {
  const char *what = "--depfile of -f offload, nvptx:sm_80 and amdgcn:gfx90a";
  char devlibs[8192], ptxas[4096] = "";
  gpublob *g;
  gpublob_options o = GPUBLOB_OPTIONS_INIT;
  gpublob_tool_info info;
  o.target = "nvptx";
  o.chip = "sm_80";
  if (!gpublob_open(&g)) {
    if (!gpublob_tool_info_get(g, &o, 1, &info, sizeof info)) snprintf(ptxas, sizeof ptxas, "%s", info.path);
    gpublob_close(g);
  }
  if (!have_ptxas() || !*ptxas || libs_of("nvptx", NULL, devlibs, sizeof devlibs)) {
    skip(what, "no CUDA toolkit (ptxas, libdevice)");
    return;
  }
  const char *nv = strdup(fmt("%s/nv.ll", dir)), *dep = strdup(fmt("%s/two.d", dir));
  sh(fmt("cp bench/kernels/saxpy_nvptx.ll '%s'", nv), NULL);
  char *out = NULL;
  int rc = run((const char *[]){"build/gpublob", "-t", "nvptx:sm_80", "-t", "amdgcn:gfx90a", "--no-cache", "--lib-dir",
                                libs, "-f", "offload", "-o", fmt("%s/two.offload", dir), "--emit-object",
                                fmt("%s/two.o", dir), "--depfile", dep, nv, amd, NULL},
               &out);
  char *text = (char *)slurp(dep, NULL);
  check(rc == 0 && text && contains(text, "/dep\\ dir/two.o: \\\n"), fmt("%s: exit 0, the object the target", what),
        "exit %d: %s / %s", rc, tail(out), shown(text));
  check(contains(text, fmt("%s \\\n", ptxas)), fmt("%s: nvptx's blob tool (ptxas)", what), "want %s: %s", ptxas,
        shown(text));
  int each = 1;
  for (char *line = devlibs, *nl; *line && (nl = strchr(line, '\n')); line = nl + 1) {
    *nl = 0;
    each = each && contains(text, fmt("%s \\\n", line));
  }
  check(each, fmt("%s: nvptx's device libraries (libdevice)", what), "%s", shown(text));
  check(contains(text, fmt("%s/ocml.bc", libs)) && contains(text, fmt("%s/ockl.bc", libs)),
        fmt("%s: amdgcn's device libraries (ocml.bc, ockl.bc)", what), "%s", shown(text));
  free(text);
  free(out);
  free((char *)nv);
  free((char *)dep);
}

/* A --depfile that cannot be written: the call fails (13) and writes no output. */
static void depfile_failed(const char *dir, const char *in, const char *spv, const char *libs) {
  char *out = NULL, *left = NULL;
  int rc = run((const char *[]){"build/gpublob", "-t", "amdgcn:gfx90a", "-t", "spirv", "--no-cache", "--lib-dir", libs,
                                "-f", "offload", "-o", fmt("%s/fail.offload", dir), "--emit-object",
                                fmt("%s/fail.o", dir), "--metadata", fmt("%s/fail.json", dir), "--depfile",
                                fmt("%s/no such dir/fail.d", dir), in, spv, NULL},
               &out);
  sh(fmt("ls -a '%s' | grep fail", dir), &left);
  check(rc == 10 + GPUBLOB_IO && contains(out, "no such dir/fail.d") && (!left || !*left),
        "--depfile into a missing folder: exit 13, and no output, object, --metadata file nor temporary left",
        "exit %d: %s / left: %s", rc, tail(out), shown(left));
  free(out);
  free(left);
}

/* ---- --depfile, the CLI's ---- */
static void depfile_cli(const char *s, const char *libs) {
  const char *dir = strdup(fmt("%s/dep dir", s)), *in = strdup(fmt("%s/dep dir/k.ll", s));
  const char *cache = strdup(fmt("%s/dep-cache", s));
  sh(fmt("mkdir -p '%s' && cp tests/cmake/kernels/scale.ll '%s'", dir, in), NULL);
  char *out = NULL, *d = NULL;
  /* the header alone as the target; the input (its space escaped); the device libraries */
  for (int hit = 0; hit < 2; hit++) {
    const char *dep = fmt("%s/%s.d", dir, hit ? "hit" : "miss");
    int rc = run((const char *[]){"build/gpublob", "-t", "amdgcn:gfx90a,gfx942", "--cache-dir", cache, "--time",
                                  "--lib-dir", libs, "-o", fmt("%s/{stem}.{chip}{suffix}", dir), "--emit-c",
                                  fmt("%s/k.h", dir), "--depfile", dep, in, NULL},
                 &out);
    const char *what = hit ? "--depfile, the front's cache hit" : "--depfile, a compile";
    check(rc == 0, fmt("%s: exit 0", what), "exit %d: %s", rc, tail(out));
    check(contains(out, hit ? "time (front)" : "time (compiler)"), fmt("%s: answered by the %s", what,
          hit ? "front" : "compiler"), "%s", tail(out));
    free(out);
    char *text = (char *)slurp(dep, NULL);
    check(text && !strncmp(text, s, strlen(s)) && contains(text, "/dep\\ dir/k.h: \\\n"),
          fmt("%s: its one target is the --emit-c header, its space escaped", what), "%s", shown(text));
    check(contains(text, "/dep\\ dir/k.ll \\\n") && contains(text, "/dep\\ dir/k.ll:\n"),
          fmt("%s: the input, and an empty rule for it (gcc -MP)", what), "%s", shown(text));
    check(contains(text, fmt("%s/ocml.bc", libs)) && contains(text, fmt("%s/ockl.bc", libs)),
          fmt("%s: the device libraries found in --lib-dir", what), "%s", shown(text));
    check(lacks(text, ".hsaco"), fmt("%s: the outputs are not targets beside the header", what), "%s", shown(text));
    if (hit) check(same_str(d, text), "--depfile: the front's cache hit writes the compile's file", "%s\n---\n%s",
                   shown(d), shown(text));
    free(d);
    d = text;
  }
  free(d);
  /* without --emit-c: every output; an -l file; the blob and pack programs */
  const char *link = fmt("%s/link.ll", dir), *dep = fmt("%s/pack.d", dir);
  spill(link, "target triple = \"amdgcn-amd-amdhsa\"\n", 36);
  char ld[4096] = "", bundler[4096] = "";
  gpublob *g;
  gpublob_options o = GPUBLOB_OPTIONS_INIT;
  gpublob_tool_info info;
  o.target = "amdgcn";
  o.tool_mode = GPUBLOB_TOOL_PROGRAM;
  if (!gpublob_open(&g)) {
    if (!gpublob_tool_info_get(g, &o, 1, &info, sizeof info)) snprintf(ld, sizeof ld, "%s", info.path);
    o.format = GPUBLOB_FORMAT_PACK;
    if (!gpublob_tool_info_get(g, &o, 1, &info, sizeof info)) snprintf(bundler, sizeof bundler, "%s", info.path);
    gpublob_close(g);
  }
  if (!*ld || !*bundler) {
    skip("--depfile: the blob and pack programs", "no ld.lld or clang-offload-bundler (lld-22, clang-tools-22)");
    return;
  }
  int rc = run((const char *[]){"build/gpublob", "-t", "amdgcn:gfx90a,gfx942", "-f", "pack", "--tool-mode", "program",
                                "--no-cache", "--lib-dir", libs, "-l", link, "-o", fmt("%s/k.hipfb", dir), "--depfile",
                                dep, in, NULL},
               &out);
  check(rc == 0, "--depfile, a pack of programs: exit 0", "exit %d: %s", rc, tail(out));
  free(out);
  char *text = (char *)slurp(dep, NULL);
  check(text && contains(text, "/dep\\ dir/k.hipfb: \\\n"), "--depfile without --emit-c: the output is the target",
        "%s", shown(text));
  check(contains(text, "/dep\\ dir/link.ll \\\n"), "--depfile: the -l file", "%s", shown(text));
  check(contains(text, fmt("%s \\\n", ld)), "--depfile: the blob program (ld.lld, --tool-mode program)",
        "want %s: %s", ld, shown(text));
  check(contains(text, fmt("  %s ", bundler)), "--depfile: the pack program (clang-offload-bundler)", "want %s: %s",
        bundler, shown(text));
  free(text);
  /* stdout only: nothing to name */
  rc = run((const char *[]){"build/gpublob", "-t", "amdgcn", "--no-cache", "-o", "-", "--depfile",
                            fmt("%s/none.d", dir), in, NULL},
           &out);
  check(rc == 2 && contains(out, "--depfile") && !exists(fmt("%s/none.d", dir)),
        "--depfile with -o - alone: usage error (exit 2), no file", "exit %d: %s", rc, tail(out));
  free(out);
  /* --emit-object: the object is the target; several inputs: each a prerequisite */
  const char *spv = strdup(fmt("%s/k_spv.ll", dir));
  sh(fmt("cp examples/saxpy_spirv.ll '%s'", spv), NULL);
  rc = run((const char *[]){"build/gpublob", "-t", "amdgcn:gfx90a", "-t", "spirv", "--no-cache", "--lib-dir", libs,
                            "-f", "offload", "-o", fmt("%s/k.offload", dir), "--emit-object", fmt("%s/k.o", dir),
                            "--depfile", fmt("%s/obj.d", dir), in, spv, NULL},
           &out);
  text = (char *)slurp(fmt("%s/obj.d", dir), NULL);
  check(rc == 0 && text && contains(text, "/dep\\ dir/k.o: \\\n") && contains(text, "/dep\\ dir/k.ll \\\n") &&
            contains(text, "/dep\\ dir/k_spv.ll"),
        "--depfile with --emit-object: the object is the target, each input a prerequisite", "exit %d: %s / %s", rc,
        tail(out), shown(text));
  check(contains(text, fmt("%s/ocml.bc", libs)) && contains(text, fmt("%s/ockl.bc", libs)),
        "--depfile of -f offload of two targets (its container's \"amdgcn,spirv\"): amdgcn's device libraries",
        "%s", shown(text));
  free(text);
  free(out);
  depfile_offload_nvptx(dir, in, libs);
  depfile_failed(dir, in, spv, libs);
}

/* ---- gpublob_add_kernels, from an installed prefix ---- */
/* ninja's lines for a build, their "[n/N] DESCRIPTION" lines only. */
static int build(const char *b, char **out) { return sh(fmt("cmake --build %s 2>&1 | grep -v '^gpublob: wrote'", b), out); }

static void cmake_project(const char *s, const char *libs, int nvptx) {
  const char *prefix = strdup(fmt("%s/prefix", s)), *proj = strdup(fmt("%s/proj", s)), *b = strdup(fmt("%s/build", s));
  char *out = NULL;
  setenv("PREFIX", prefix, 1);
  int rc = sh("sh tools/install.sh", &out);
  unsetenv("PREFIX");
  check(rc == 0, "PREFIX=DIR sh tools/install.sh", "exit %d: %s", rc, tail(out));
  free(out);
  if (rc) return;
  check(exists(fmt("%s/lib/cmake/gpublob/gpublobKernels.cmake", prefix)) &&
            exists(fmt("%s/lib/cmake/gpublob/gpublobEmbed.cmake", prefix)),
        "install: gpublobKernels.cmake and gpublobEmbed.cmake beside gpublobConfig.cmake", "in %s", prefix);
  sh(fmt("cp -r tests/cmake %s", proj), NULL);
  double t0 = now();
  rc = sh(fmt("cmake -G Ninja -S %s -B %s -DCMAKE_PREFIX_PATH=%s '-DGPUBLOB_TEST_OPTIONS=--lib-dir;%s;--cache-dir;%s/cache' "
              "-DGPUBLOB_TEST_NVPTX=%s",
              proj, b, prefix, libs, s, nvptx ? "ON" : "OFF"),
          &out);
  check(rc == 0, "CMake: find_package(gpublob) and gpublob_add_kernels configure", "exit %d: %s", rc, tail(out));
  free(out);
  if (rc) return;
  rc = build(b, &out);
  double t_build = now() - t0;
  check(rc == 0 && contains(out, "gpublob amd: kernels/saxpy.ll") && contains(out, "gpublob amd: kernels/scale.ll") &&
            contains(out, "gpublob amd_pack: kernels/scale.ll") && contains(out, "gpublob amd_off: kernels/saxpy.ll"),
        "CMake: the build runs gpublob for each source", "exit %d: %s", rc, tail(out));
  free(out);
  rc = run((const char *[]){fmt("%s/app", b), NULL}, &out);
  check(rc == 0 && contains(out, "blobs ok"), "app: finds each blob linked in, of its target and chip (main.c)",
        "exit %d: %s", rc, tail(out));
  check(contains(out, "scale pack amdgcn gfx90a,gfx942 .hipfb"), "app: the pack, one blob of both chips", "%s",
        tail(out));
  check(contains(out, "saxpy offload magic"), "app: FORMAT offload's container found by its object's symbols, its magic",
        "%s", tail(out));
  free(out);
  out = NULL;
  rc = run((const char *[]){LLVM_BINDIR "/llvm-objdump", "--offloading", fmt("%s/gpublob/amd_off/amd_off_saxpy.o", b),
                            NULL},
           &out);
  check(rc == 0 && contains(out, "arch            gfx90a\ntriple          amdgcn-amd-amdhsa") &&
            contains(out, "arch            gfx942\ntriple          amdgcn-amd-amdhsa"),
        "FORMAT offload: llvm-objdump --offloading lists the built object's entries", "exit %d: %s", rc, tail(out));
  free(out);
  out = NULL;
  run((const char *[]){fmt("%s/app", b), NULL}, &out);
  if (nvptx) check(contains(out, "saxpy_nv nvptx sm_90 .cubin"), "app: the NVIDIA kernel's cubins", "%s", tail(out));
  else skip("app: the NVIDIA kernel's cubins", "no CUDA toolkit (ptxas, libdevice)");
  free(out);

  rc = build(b, &out);
  check(rc == 0 && contains(out, "no work to do"), "CMake: built again, nothing reruns", "exit %d: %s", rc, tail(out));
  free(out);
  /* one kernel edited: its commands (amd's and amd_pack's scale.ll), none of saxpy's */
  sh(fmt("echo '; edited' >> %s/kernels/scale.ll", proj), NULL);
  rc = build(b, &out);
  check(rc == 0 && contains(out, "gpublob amd: kernels/scale.ll") && contains(out, "gpublob amd_pack: kernels/scale.ll"),
        "CMake: a kernel edited reruns its commands", "exit %d: %s", rc, tail(out));
  check(lacks(out, "kernels/saxpy"), "CMake: a kernel edited reruns no other kernel's", "%s", tail(out));
  free(out);
  /* a device library (the copy in --lib-dir, which the depfiles name) touched */
  sh(fmt("touch %s/ocml.bc", libs), NULL);
  rc = build(b, &out);
  check(rc == 0 && contains(out, "gpublob amd: kernels/saxpy.ll") && contains(out, "gpublob amd: kernels/scale.ll") &&
            contains(out, "gpublob amd_pack: kernels/scale.ll") && contains(out, "gpublob amd_off: kernels/saxpy.ll"),
        "CMake: a device library touched reruns every AMD kernel (DEPFILE), the object's too", "exit %d: %s", rc,
        tail(out));
  if (nvptx) check(lacks(out, "saxpy_nv"), "CMake: an AMD library touched reruns no NVIDIA kernel", "%s", tail(out));
  free(out);
  rc = build(b, &out);
  check(rc == 0 && contains(out, "no work to do"), "CMake: then nothing reruns", "exit %d: %s", rc, tail(out));
  free(out);
  rc = run((const char *[]){fmt("%s/app", b), NULL}, &out);
  check(rc == 0 && contains(out, "blobs ok"), "app: rebuilt, finds its blobs again", "exit %d: %s", rc, tail(out));
  free(out);
  printf("time: configure and first build %.1f s\n", t_build);
}

int main(void) {
  const char *s = scratch();
  char found[8192];
  /* a copy of ROCm's bitcode, searched first, so that it can be touched */
  const char *libs = strdup(fmt("%s/libs", s));
  sh(fmt("mkdir -p %s", libs), NULL);
  if (libs_of("amdgcn", NULL, found, sizeof found)) {
    skip("--depfile and gpublob_add_kernels", "no ROCm device bitcode (rocm-device-libs: ocml.bc, ockl.bc)");
    return report();
  }
  for (char *line = found, *nl; *line; line = nl + 1) {
    if (!(nl = strchr(line, '\n'))) break;
    *nl = 0;
    sh(fmt("cp '%s' %s/", line, libs), NULL);
  }
  depfile_cli(s, libs);
  if (!have("cmake") || !have("ninja") || !have("cc")) {
    skip("gpublob_add_kernels: the CMake project", "no cmake, ninja or cc (apt-get install cmake ninja-build)");
    return report();
  }
  int nvptx = have_ptxas() && !libs_of("nvptx", NULL, found, sizeof found);
  cmake_project(s, libs, nvptx);
  return report();
}
