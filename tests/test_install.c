/* test_install: gpublob as a user's project gets it.  Installs this build with
** tools/install.sh (what `ninja install` runs; run directly here, never a nested
** ninja) twice: into a temporary PREFIX, and into DESTDIR with another prefix,
** then moved into place as a package would be.  Checks every installed file,
** the installed CLI (--version, a compile through the front and its compiler,
** and a cache hit the front answers), and builds tests/install/user.c, a
** C-only program, three ways: with pkg-config (cc ... $(pkg-config --cflags
** --static --libs gpublob)), with CMake (find_package(gpublob) in
** tests/install/CMakeLists.txt, project(... C), Ninja generator), and as the
** docs/building.md's vendoring lines do (build/vendor/gpublob.c and gpublob.h copied, one
** cc line, shared libLLVM; with MLIR, shared libMLIR and its rpath).  Each
** program compiles a kernel to PTX (format asm: no CUDA toolkit needed) and,
** with MLIR, a gpu.module; the install's .pc and CMake files must match this
** build (MLIR in or out).  Then tools/amalgamate's #line lines: a copy of the tree
** with errors planted in parts, amalgamated and compiled, has each named at its
** part's file and line.  Without pkg-config, cmake or llvm-config-22, those parts
** are skipped.
**
** Not in the sanitized suites (tests/sanitize.ninja says why). */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpublob.h"
#include "testlib.h"

#ifndef GPUBLOB_MLIR
#define GPUBLOB_MLIR 0
#endif
#define STR_(x) #x
#define STR(x) STR_(x)
#define STAGED_PREFIX "/opt/gpublob-install-test"

static const char kernel_ll[] =
    "target triple = \"nvptx64-nvidia-cuda\"\n"
    "define ptx_kernel void @twice(ptr addrspace(1) %p) {\n"
    "  %v = load float, ptr addrspace(1) %p, align 4\n"
    "  %r = fadd float %v, %v\n"
    "  store float %r, ptr addrspace(1) %p, align 4\n"
    "  ret void\n"
    "}\n";

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

static int have(const char *program) {
  return sh(fmt("command -v %s >/dev/null 2>&1", program), NULL) == 0;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static const char *tail(const char *out) { /* the end of a long output, for a failure */
  if (!out) return "(no output)";
  size_t n = strlen(out);
  return n > 3000 ? out + n - 3000 : out;
}

static int copy(const char *from, const char *to) {
  size_t size;
  unsigned char *data = slurp(from, &size);
  int rc = data ? spill(to, data, size) : -1;
  free(data);
  return rc;
}

/* The installed files, relative to a prefix (the default bin, lib, include). */
static const char *const files[] = {
    "include/gpublob.h",
    "lib/libgpublob.a",
    "lib/libgpublob.so.1",
    "lib/libgpublob.so",
    "lib/pkgconfig/gpublob-static.pc",
    "bin/gpublob",
    "bin/gpublob-compiler",
    "lib/pkgconfig/gpublob.pc",
    "lib/cmake/gpublob/gpublobConfig.cmake",
    "lib/cmake/gpublob/gpublobConfigVersion.cmake",
};

static void check_files(const char *how, const char *prefix) {
  for (size_t i = 0; i < sizeof files / sizeof *files; i++)
    check(exists(fmt("%s/%s", prefix, files[i])), fmt("%s: %s installed", how, files[i]), "%s/%s is missing",
          prefix, files[i]);
  check(access(fmt("%s/bin/gpublob", prefix), X_OK) == 0,
        fmt("%s: bin/gpublob and bin/gpublob-compiler executable: bin/gpublob", how), "in %s/bin", prefix);
  check(access(fmt("%s/bin/gpublob-compiler", prefix), X_OK) == 0,
        fmt("%s: bin/gpublob and bin/gpublob-compiler executable: bin/gpublob-compiler", how), "in %s/bin", prefix);
  check(leftovers(fmt("%s/bin", prefix), ".install-") + leftovers(fmt("%s/lib", prefix), ".install-") == 0,
        fmt("%s: no temporary file left", how), "%s/bin or lib has .*.install-* files", prefix);
}

/* What user.c prints for this build: the PTX's .entry, MLIR in or out, and with
** MLIR the gpu.binary. */
static void check_user(const char *how, const char *program) {
  char *out = NULL;
  int rc = run((const char *[]){program, NULL}, &out);
  check(rc == 0, fmt("%s: the program runs", how), "exit %d: %s", rc, tail(out));
  check(contains(out, ".entry twice") || contains(out, ".entry scale"), fmt("%s: its PTX has .entry", how),
        "%s", tail(out));
  check(contains(out, "gpublob " GPUBLOB_VERSION_STRING " (header " GPUBLOB_VERSION_STRING ")"),
        fmt("%s: library and header of this version", how), "%s", tail(out));
  check(contains(out, GPUBLOB_MLIR ? "mlir 1" : "mlir 0"),
        fmt("%s: MLIR %s, as this build", how, GPUBLOB_MLIR ? "in" : "out"), "%s", tail(out));
  if (GPUBLOB_MLIR)
    check(contains(out, "gpu.binary @k"), fmt("%s: an MLIR gpu.module compiled", how), "%s", tail(out));
  free(out);
}

/* The lines of a file (its newlines), -1 when it cannot be read. */
static long lines_of(const char *path) {
  size_t n;
  unsigned char *data = slurp(path, &n);
  if (!data) return -1;
  long count = 0;
  for (size_t i = 0; i < n; i++) count += data[i] == '\n';
  free(data);
  return count;
}

/* tools/amalgamate on a copy of the tree with three bad lines planted: one inside the
** first part (src/util.c, line 6), one after the target table's #include in
** src/target.c (its last line), one in gpublob.c after every part (its last line).
** The vendored file, compiled, must name each at its file and line: `src/util.c:6:`,
** not a line of the one file. */
static void vendor_lines(const char *s) {
  const char *what = "vendoring: a diagnostic in the vendored file names the part and its line";
  if (!have("llvm-config-22") || !have("cc")) {
    skip(what, "no llvm-config-22 or cc on PATH");
    return;
  }
  char here[4096];
  if (!getcwd(here, sizeof here)) {
    check(0, what, "getcwd failed");
    return;
  }
  const char *d = strdup(fmt("%s/vendor-lines", s));
  char *out = NULL;
  int rc = sh(fmt("rm -rf %s && mkdir -p %s/src %s/build && cp gpublob.c gpublob.h gpublob_mlir.h %s/ && cp src/*.c src/*.h %s/src/ && "
                  "cp build/gpublob_targets.def %s/build/",
                  d, d, d, d, d, d),
              &out);
  check(rc == 0, fmt("%s: the tree copied", what), "exit %d: %s", rc, tail(out));
  free(out);
  if (rc) return;
  long target_end = lines_of(fmt("%s/src/target.c", d)), core_end = lines_of(fmt("%s/gpublob.c", d));
  rc = sh(fmt("cd %s && sed -i '6i static int planted_util = planted_undeclared_util;' src/util.c && "
              "echo 'static int planted_target = planted_undeclared_target;' >> src/target.c && "
              "echo 'static int planted_core = planted_undeclared_core;' >> gpublob.c && "
              "%s/build/amalgamate gpublob.c build/gpublob_targets.def out.c",
              d, here),
          &out);
  check(rc == 0, fmt("%s: amalgamate on the planted copy", what), "exit %d: %s", rc, tail(out));
  free(out);
  if (rc) return;
  rc = sh(fmt("cd %s && cc -std=c11 -fsyntax-only -I. out.c $(llvm-config-22 --cflags)", d), &out);
  check(rc != 0, fmt("%s: the planted copy does not compile", what), "exit %d", rc);
  char where[3][64];
  snprintf(where[0], sizeof where[0], "src/util.c:6:");
  snprintf(where[1], sizeof where[1], "src/target.c:%ld:", target_end + 1);
  snprintf(where[2], sizeof where[2], "gpublob.c:%ld:", core_end + 1);
  const char *const name[3] = {"planted_undeclared_util", "planted_undeclared_target", "planted_undeclared_core"};
  for (int i = 0; i < 3; i++) {
    /* a line of the compiler's output that starts with where and names the identifier */
    int named = 0;
    for (const char *line = out; line && *line && !named; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
      const char *nl = strchr(line, '\n'), *id = strstr(line, name[i]);
      named = !strncmp(line, where[i], strlen(where[i])) && id && (!nl || id < nl);
    }
    check(named, fmt("%s: %s %s", what, where[i], name[i]), "%s", tail(out));
  }
  free(out);
}

int main(void) {
  const char *s = scratch();
  char *out = NULL;
  int rc;
  double t0, t_install, t_pc = 0, t_cmake = 0, t_vendor = 0;

  /* ---- install: into a PREFIX; and into DESTDIR, then moved into place ---- */
  const char *prefix = fmt("%s/prefix", s);
  setenv("PREFIX", prefix, 1);
  t0 = now();
  rc = sh("sh tools/install.sh", &out);
  t_install = now() - t0;
  unsetenv("PREFIX");
  check(rc == 0, "PREFIX=DIR sh tools/install.sh", "exit %d: %s", rc, tail(out));
  check(contains(out, fmt("in %s", prefix)), "install: says where it installed", "%s", tail(out));
  free(out);
  if (rc != 0) return report(); /* nothing below has anything to check */
  prefix = strdup(prefix);
  check_files("PREFIX", prefix);

  const char *stage = strdup(fmt("%s/stage", s));
  setenv("DESTDIR", stage, 1);
  setenv("PREFIX", STAGED_PREFIX, 1);
  rc = sh("sh tools/install.sh", &out);
  unsetenv("DESTDIR");
  unsetenv("PREFIX");
  check(rc == 0, "DESTDIR=STAGE PREFIX=" STAGED_PREFIX " sh tools/install.sh", "exit %d: %s", rc, tail(out));
  free(out);
  check(!exists(STAGED_PREFIX), "DESTDIR: nothing written outside it", STAGED_PREFIX " exists");
  const char *moved = strdup(fmt("%s/moved", s));
  rc = rename(fmt("%s" STAGED_PREFIX, stage), moved);
  check(rc == 0, "DESTDIR: the staged tree moves into place", "rename %s" STAGED_PREFIX " -> %s", stage, moved);
  if (rc != 0) return report();
  check_files("DESTDIR, moved", moved);

  /* ---- the installed CLI, where it was moved: the front and its compiler ---- */
  rc = run((const char *[]){fmt("%s/bin/gpublob", moved), "--version", NULL}, &out);
  check(rc == 0, "installed bin/gpublob --version: exit 0", "exit %d: %s", rc, tail(out));
  check(contains(out, GPUBLOB_VERSION_STRING), "installed bin/gpublob --version: this version",
        "want " GPUBLOB_VERSION_STRING ": %s", tail(out));
  free(out);
  spill(tmp_path("twice.ll"), kernel_ll, sizeof kernel_ll - 1);
  const char *cache = strdup(tmp_path("cache"));
  for (int hit = 0; hit < 2; hit++) {
    const char *ptx = hit ? tmp_path("hit.ptx") : tmp_path("miss.ptx");
    rc = run((const char *[]){fmt("%s/bin/gpublob", moved), "-t", "nvptx:sm_80", "-f", "asm", "--cache-dir",
                              cache, "--time", tmp_path("twice.ll"), "-o", ptx, NULL},
             &out);
    char *text = (char *)slurp(ptx, NULL);
    const char *what = hit ? "installed CLI: the same compile again gives the PTX"
                           : "installed CLI: the front runs bin/gpublob-compiler beside it, which compiles";
    check(rc == 0, fmt("%s: exit 0", what), "exit %d: %s", rc, tail(out));
    check(contains(text, ".entry twice"), fmt("%s: the PTX has .entry twice", what), "%s: %.300s", ptx,
          text ? text : "(unreadable)");
    check(contains(out, hit ? "time (front)" : "time (compiler)"),
          hit ? "installed CLI: the front answers the cache hit" : "installed CLI: a miss is the compiler's",
          "%s", tail(out));
    free(text);
    free(out);
  }

  /* ---- pkg-config, on the PREFIX install ---- */
  if (!have("pkg-config") || !have("cc")) {
    skip("pkg-config: the user's build", "no pkg-config or cc (apt-get install pkgconf)");
  } else {
    setenv("PKG_CONFIG_PATH", fmt("%s/lib/pkgconfig", prefix), 1);
    rc = sh("pkg-config --modversion gpublob", &out);
    check(rc == 0, "pkg-config --modversion gpublob: exit 0", "exit %d: %s", rc, tail(out));
    check(contains(out, GPUBLOB_VERSION_STRING), "pkg-config --modversion gpublob: this version",
          "want " GPUBLOB_VERSION_STRING ": %s", tail(out));
    free(out);
    rc = sh("pkg-config --variable=mlir gpublob", &out);
    check(rc == 0, "pkg-config: mlir variable as this build: exit 0", "exit %d: %s", rc, tail(out));
    check(contains(out, GPUBLOB_MLIR ? "yes" : "no"), "pkg-config: mlir variable as this build",
          "want %s: %s", GPUBLOB_MLIR ? "yes" : "no", tail(out));
    free(out);
    rc = sh("pkg-config --libs gpublob", &out);
    check(rc == 0 && out && strlen(out) < 200 && contains(out, "-lgpublob") && lacks(out, "LLVM"),
          "pkg-config --libs gpublob: -L... -lgpublob, under 200 characters", "exit %d: %zu characters: %s", rc,
          out ? strlen(out) : 0, tail(out));
    free(out);
    t0 = now();
    rc = sh(fmt("cc -std=c11 -o %s/user-pc tests/install/user.c $(pkg-config --cflags --libs gpublob)", s), &out);
    t_pc = now() - t0;
    check(rc == 0, "pkg-config: cc user.c $(pkg-config --cflags --libs gpublob) (the shared library)",
          "exit %d: %s", rc, tail(out));
    free(out);
    /* the static line: the spec's backends alone (lld's driver and MLIR reach no other:
    ** src/lld.cpp's InitializeAll*), and none of MLIR's test-pass archives */
    rc = sh("pkg-config --libs gpublob-static", &out);
    check(rc == 0 && lacks(out, "LLVMX86CodeGen") && lacks(out, "LLVMAArch64CodeGen") && lacks(out, "LLVMRISCVCodeGen") &&
              lacks(out, "Test") && contains(out, "LLVMAMDGPUCodeGen") && contains(out, "LLVMNVPTXCodeGen"),
          "pkg-config --libs gpublob-static: the spec's LLVM backends (AMDGPU, NVPTX) and no other (X86, AArch64, "
          "RISCV), no MLIR test passes", "exit %d: %s", rc, tail(out));
    free(out);
    rc = sh(fmt("cc -std=c11 -o %s/user-pc-static tests/install/user.c $(pkg-config --cflags --libs gpublob-static)",
                s),
            &out);
    check(rc == 0, "pkg-config: cc user.c $(pkg-config --cflags --libs gpublob-static) (the static library)",
          "exit %d: %s", rc, tail(out));
    free(out);
    unsetenv("PKG_CONFIG_PATH");
    setenv("LD_LIBRARY_PATH", fmt("%s/lib", prefix), 1); /* a prefix the loader does not search */
    if (exists(fmt("%s/user-pc", s))) check_user("pkg-config, shared", fmt("%s/user-pc", s));
    unsetenv("LD_LIBRARY_PATH");
    if (exists(fmt("%s/user-pc-static", s))) check_user("pkg-config, static", fmt("%s/user-pc-static", s));
    rc = sh(fmt(LLVM_BINDIR "/llvm-readelf --dynamic %s/user-pc-static", s), &out);
    check(rc == 0 && lacks(out, "libgpublob"), "pkg-config, static: needs no libgpublob.so", "%s", tail(out));
    free(out);
  }

  /* ---- CMake, on the moved DESTDIR install ---- */
  if (!have("cmake") || !have("ninja")) {
    skip("CMake: the user's build", "no cmake or ninja (apt-get install cmake)");
  } else {
    t0 = now();
    rc = sh(fmt("cmake -G Ninja -S tests/install -B %s/cmake -DCMAKE_PREFIX_PATH=%s", s, moved), &out);
    check(rc == 0, "CMake: find_package(gpublob 1.0 REQUIRED) in a C-only project", "exit %d: %s", rc,
          tail(out));
    free(out);
    if (rc == 0) {
      rc = sh(fmt("cmake --build %s/cmake", s), &out);
      check(rc == 0, "CMake: links against gpublob::gpublob (shared) and gpublob::static", "exit %d: %s", rc,
            tail(out));
      free(out);
    }
    t_cmake = now() - t0;
    if (rc == 0) check_user("CMake, gpublob::gpublob", fmt("%s/cmake/user", s));
    if (rc == 0) check_user("CMake, gpublob::static", fmt("%s/cmake/user_static", s));

    /* gpublobConfigVersion.cmake: which requests it accepts. */
    char next_major[32], next_minor[32];
    snprintf(next_major, sizeof next_major, "%d.0", GPUBLOB_VERSION_MAJOR + 1);
    snprintf(next_minor, sizeof next_minor, "%d.%d", GPUBLOB_VERSION_MAJOR, GPUBLOB_VERSION_MINOR + 1);
    const char *want[][2] = {
        {STR(GPUBLOB_VERSION_MAJOR) "." STR(GPUBLOB_VERSION_MINOR), "1"},
        {GPUBLOB_VERSION_STRING, "1"},
        {next_major, "0"},
        {next_minor, "0"},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
      int ok = want[i][1][0] == '1';
      rc = sh(fmt("cmake -S tests/install/version -B %s/cmv%zu -DCMAKE_PREFIX_PATH=%s -DGPUBLOB_WANT=%s", s, i,
                  moved, want[i][0]),
              &out);
      const char *what =
          fmt("CMake: find_package(gpublob %s) %s", want[i][0], ok ? "finds " GPUBLOB_VERSION_STRING : "refuses it");
      const char *says = ok ? fmt("gpublob %s, MLIR %s", GPUBLOB_VERSION_STRING, GPUBLOB_MLIR ? "ON" : "OFF")
                            : "version: " GPUBLOB_VERSION_STRING;
      check(ok ? rc == 0 : rc != 0, fmt("%s: cmake exits %s", what, ok ? "0" : "non-zero"), "exit %d: %s", rc,
            tail(out));
      check(contains(out, says), fmt("%s: cmake says '%s'", what, says), "exit %d: %s", rc, tail(out));
      free(out);
    }
  }

  /* ---- vendoring: docs/building.md's lines, in a directory of their own ---- */
  const char *v = strdup(fmt("%s/vendor", s));
  sh(fmt("mkdir -p %s", v), NULL);
  int copied_c = !copy("build/vendor/gpublob.c", fmt("%s/gpublob.c", v));
  int copied_h = !copy("gpublob.h", fmt("%s/gpublob.h", v));
  int copied_app = !copy("tests/install/user.c", fmt("%s/app.c", v));
  check(copied_c, "vendoring: build/vendor/gpublob.c and gpublob.h copied: gpublob.c", "into %s", v);
  check(copied_h, "vendoring: build/vendor/gpublob.c and gpublob.h copied: gpublob.h", "into %s", v);
  check(copied_app, "vendoring: build/vendor/gpublob.c and gpublob.h copied: tests/install/user.c as app.c",
        "into %s", v);
  int copied = copied_c && copied_h && copied_app;
  if (!have("llvm-config-22") || !have("cc")) {
    skip("vendoring: docs/building.md's lines", "no llvm-config-22 or cc on PATH");
  } else if (copied) {
    t0 = now();
    rc = sh(fmt("cd %s && cc -std=c11 -O2 -c gpublob.c $(llvm-config-22 --cflags) && "
                "cc -o app app.c gpublob.o $(llvm-config-22 --ldflags --libs) -lxxhash -lpthread",
                v),
            &out);
    check(rc == 0, "vendoring, LLVM IR only: docs/building.md's compile and link lines", "exit %d: %s", rc, tail(out));
    free(out);
    if (rc == 0) {
      rc = run((const char *[]){fmt("%s/app", v), NULL}, &out);
      check(rc == 0, "vendoring, LLVM IR only: the program runs and compiles: exit 0", "exit %d: %s", rc,
            tail(out));
      check(contains(out, ".entry scale"), "vendoring, LLVM IR only: the program runs and compiles: .entry scale",
            "%s", tail(out));
      check(contains(out, "mlir 0"), "vendoring, LLVM IR only: the program runs and compiles: mlir 0", "%s",
            tail(out));
      free(out);
    }
    if (!GPUBLOB_MLIR) {
      skip("vendoring with MLIR", "this build has no MLIR (libmlir-22-dev)");
    } else {
      rc = sh(fmt("cd %s && cc -std=c11 -O2 -DGPUBLOB_MLIR=1 -c gpublob.c $(llvm-config-22 --cflags) && "
                  "cc -o app-mlir app.c gpublob.o $(llvm-config-22 --ldflags) -Wl,-rpath,$(llvm-config-22 "
                  "--libdir) -Wl,--start-group $(llvm-config-22 --libdir)/libMLIRCAPI*.a -Wl,--end-group -lMLIR "
                  "$(llvm-config-22 --libs) -lstdc++ -lxxhash -lpthread",
                  v),
              &out);
      check(rc == 0, "vendoring with MLIR: docs/building.md's compile and link lines", "exit %d: %s", rc, tail(out));
      free(out);
      if (rc == 0) {
        rc = run((const char *[]){fmt("%s/app-mlir", v), NULL}, &out);
        check(rc == 0, "vendoring with MLIR: the program starts (rpath) and compiles MLIR: exit 0", "exit %d: %s",
              rc, tail(out));
        check(contains(out, "mlir 1"), "vendoring with MLIR: the program starts (rpath) and compiles MLIR: mlir 1",
              "%s", tail(out));
        check(contains(out, "gpu.binary @k"),
              "vendoring with MLIR: the program starts (rpath) and compiles MLIR: gpu.binary @k", "%s", tail(out));
        free(out);
      }
    }
    t_vendor = now() - t0;
  }

  /* ---- the vendored file's #line lines: a diagnostic names the part and its line ---- */
  vendor_lines(s);

  printf("time: install %.1f s, pkg-config build %.1f s, CMake configure and build %.1f s, vendoring %.1f s\n",
         t_install, t_pc, t_cmake, t_vendor);
  return report();
}
