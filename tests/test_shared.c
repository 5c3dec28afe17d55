/* test_shared: libgpublob.so.1, the shared library that hides LLVM.
** - It exports gpublob.h's calls and nothing else (llvm-nm --dynamic), less the three
**   that take the caller's MLIR objects (libgpublob.a only), all versioned GPUBLOB_1,
**   and src/gpublob.map lists exactly those; its soname is libgpublob.so.1 and it
**   needs no LLVM, MLIR or libstdc++ library (llvm-readelf --dynamic).
** - A host with an LLVM of its own lives beside it: tests/shared/host.c linked with
**   -lgpublob -lLLVM-14, and again loading libLLVM-14 with dlopen, starts, compiles
**   with gpublob (LLVM IR and MLIR), makes an LLVM 14 module, and exits 0; its hsaco
**   is for gfx90a (llvm-readelf).
** - A C++ program links with -lgpublob alone, and a C program with plain cc.
** Without llvm-14-dev the LLVM 14 hosts say skipped. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpublob.h"
#include "testlib.h"

#define SO "build/libgpublob.so.1"
#define LLVM14 "/usr/lib/llvm-14/lib/libLLVM-14.so"

/* A list of names, one per line, in a string buffer of the test's own. */
typedef struct names {
  char text[8192];
  size_t len;
  int count;
} names;

static void add_name(names *n, const char *s, size_t len) {
  if (n->len + len + 2 >= sizeof n->text) return;
  memcpy(n->text + n->len, s, len);
  n->len += len;
  n->text[n->len++] = '\n';
  n->text[n->len] = 0;
  n->count++;
}

static int has_name(const names *n, const char *s, size_t len) {
  for (const char *p = n->text; *p;) {
    size_t m = strcspn(p, "\n");
    if (m == len && !memcmp(p, s, len)) return 1;
    p += m + 1;
  }
  return 0;
}

static int is_ident(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

/* The calls gpublob.h declares (GPUBLOB_API ... gpublob_x(); those that take MLIR
** objects are gpublob_mlir.h's, which the shared library does not export).  It
** names no MLIR type: one found is a failed check. */
static void header_calls(names *out) {
  size_t size;
  char *h = (char *)slurp("gpublob.h", &size);
  check(h != NULL, "gpublob.h read", "");
  if (!h) return;
  check(!strstr(h, "Mlir") && !strstr(h, "mlir-c/"), "gpublob.h names no MLIR type and includes no MLIR header "
        "(gpublob_mlir.h does)", NULL);
  for (char *line = h; line && *line;) {
    char *end = strchr(line, '\n');
    if (end) *end = 0;
    char *api = strstr(line, "GPUBLOB_API ");
    char *name = api ? strstr(api, "gpublob_") : NULL;
    if (name && strchr(name, '(')) {
      size_t n = 0;
      while (is_ident(name[n])) n++;
      if (name[n] == '(' && !has_name(out, name, n)) add_name(out, name, n);
    }
    line = end ? end + 1 : NULL;
  }
  free(h);
}

/* The global names of src/gpublob.map (the lines "    NAME;" before local:). */
static void map_calls(names *out) {
  size_t size;
  char *m = (char *)slurp("src/gpublob.map", &size);
  check(m != NULL, "src/gpublob.map read", "");
  if (!m) return;
  /* every version node's global: list (GPUBLOB_1, then GPUBLOB_1.3, ...), up to its local: or its end */
  for (char *g = strstr(m, "global:"); g; g = strstr(g + 7, "global:")) {
    char *end = strstr(g + 7, "global:"), *local = strstr(g, "local:");
    if (local && (!end || local < end)) end = local;
    for (char *p = g; !end || p < end; p++) {
      if (!*p) break;
      if (strncmp(p, "gpublob_", 8) || (p > m && is_ident(p[-1]))) continue;
      size_t n = 0;
      while (is_ident(p[n])) n++;
      if (p[n] == ';') add_name(out, p, n);
      p += n;
    }
  }
  free(m);
}

/* The library's defined dynamic symbols (llvm-nm --dynamic --defined-only). */
static void exported(names *out, int *unversioned, int *foreign) {
  const char *argv[] = {LLVM_BINDIR "/llvm-nm", "--dynamic", "--defined-only", "--format=just-symbols", SO, NULL};
  char *text = NULL;
  int rc = run(argv, &text);
  check(rc == 0, "llvm-nm --dynamic", "exit %d: %s", rc, shown(text));
  for (const char *p = text ? text : ""; *p;) {
    size_t n = strcspn(p, "\n");
    const char *at = memchr(p, '@', n);
    size_t name = at ? (size_t)(at - p) : n;
    if (n && strncmp(p, "GPUBLOB_", 8)) { /* not a version node itself (GPUBLOB_1, GPUBLOB_1.3) */
      if (!at || strncmp(at, "@@GPUBLOB_1", 11)) (*unversioned)++;
      if (strncmp(p, "gpublob_", 8)) {
        (*foreign)++;
        if (*foreign <= 5) printf("  exported but not gpublob's: %.*s\n", (int)n, p);
      }
      add_name(out, p, name);
    }
    p += n + (p[n] == '\n');
  }
  free(text);
}

static void exports(void) {
  names header = {0}, map = {0}, so = {0};
  int unversioned = 0, foreign = 0;
  header_calls(&header);
  map_calls(&map);
  exported(&so, &unversioned, &foreign);
  check(header.count > 25, "gpublob.h's calls", "%d", header.count);
  check(foreign == 0, "only gpublob_* exported", "%d other symbols", foreign);
  check(unversioned == 0, "every export is versioned: 1.0's GPUBLOB_1, later ones GPUBLOB_1.N", "%d without",
        unversioned);
  int missing = 0, extra = 0, unmapped = 0;
  for (const char *p = header.text; *p;) {
    size_t n = strcspn(p, "\n");
    if (!has_name(&so, p, n)) printf("  gpublob.h's %.*s is not exported\n", (int)n, p), missing++;
    if (!has_name(&map, p, n)) printf("  gpublob.h's %.*s is not in src/gpublob.map\n", (int)n, p), unmapped++;
    p += n + 1;
  }
  for (const char *p = so.text; *p;) {
    size_t n = strcspn(p, "\n");
    if (!has_name(&header, p, n)) printf("  %.*s is exported, not a call of gpublob.h outside MLIR's\n", (int)n, p), extra++;
    p += n + 1;
  }
  check(!missing && !extra && so.count == header.count, "the exports are gpublob.h's calls",
        "%d missing, %d extra (%d exported, %d declared)", missing, extra, so.count, header.count);
  check(!unmapped && map.count == header.count, "src/gpublob.map lists gpublob.h's calls", "%d unlisted, %d listed",
        unmapped, map.count);
  static const char *const mlir_only[] = {"gpublob_mlir_serialize", "gpublob_mlir_pass_create", "gpublob_pass_create"};
  for (size_t i = 0; i < 3; i++)
    check(!has_name(&so, mlir_only[i], strlen(mlir_only[i])), "MLIR-object calls are libgpublob.a's", "%s exported",
          mlir_only[i]);
}

static void dynamic_section(void) {
  const char *argv[] = {LLVM_BINDIR "/llvm-readelf", "--dynamic", SO, NULL};
  char *text = NULL;
  int rc = run(argv, &text);
  check(rc == 0 && contains(text, "Library soname: [libgpublob.so.1]"), "soname libgpublob.so.1", "%s", shown(text));
  check(lacks(text, "libLLVM") && lacks(text, "libMLIR") && lacks(text, "libstdc++") && lacks(text, "liblld"),
        "needs no LLVM, MLIR, lld or libstdc++ library", "%s", shown(text));
  free(text);
}

/* cc (or c++) SRC -o OUT with words after; 0 when it built. */
static int build(const char *compiler, const char *src, const char *out, const char *const *more, const char *what) {
  const char *argv[32] = {compiler, "-D_GNU_SOURCE", "-I.", "-o", out, src, "-Lbuild", "-lgpublob", "-Wl,-rpath," };
  char rpath[1200], cwd[1024];
  if (!getcwd(cwd, sizeof cwd)) cwd[0] = 0;
  snprintf(rpath, sizeof rpath, "-Wl,-rpath,%s/build", cwd);
  argv[8] = rpath;
  int n = 9;
  for (int i = 0; more && more[i] && n < 31; i++) argv[n++] = more[i];
  argv[n] = NULL;
  char *text = NULL;
  int rc = run(argv, &text);
  check(rc == 0, what, "exit %d: %s", rc, shown(text));
  free(text);
  return rc;
}

static void host(const char *what, const char *const *more) {
  const char *exe = tmp_path(more[0] && !strcmp(more[0], "-DDLOPEN_LLVM14") ? "host_dlopen" : "host_linked");
  char name[128];
  snprintf(name, sizeof name, "%s: builds", what);
  if (build("cc", "tests/shared/host.c", exe, more, name)) return;
  const char *hsaco = tmp_path("host.hsaco");
  unlink(hsaco);
  const char *argv[] = {exe, hsaco, "examples", NULL};
  char *text = NULL;
  int rc = run(argv, &text);
  snprintf(name, sizeof name, "%s: starts, compiles, exits 0", what);
  check(rc == 0 && contains(text, "LLVM 14 module: printed") && contains(text, "host: done"), name, "exit %d: %s", rc,
        shown(text));
  snprintf(name, sizeof name, "%s: its hsaco is gfx90a's", what);
  check(amdgpu_chip_is(hsaco, "gfx90a"), name, "%s", hsaco);
  free(text);
}

static void cxx_program(void) {
  static const char src[] =
      "#include \"gpublob.h\"\n#include <cstdio>\n#include <string>\n"
      "int main() {\n  gpublob *g = nullptr;\n  if (gpublob_open(&g)) return 1;\n"
      "  std::string v = gpublob_version();\n  std::printf(\"%s %d\\n\", v.c_str(), gpublob_target_count());\n"
      "  gpublob_close(g);\n  return v.empty();\n}\n";
  const char *path = tmp_path("user.cpp"), *exe = tmp_path("user_cxx");
  spill(path, src, sizeof src - 1);
  if (build("c++", path, exe, NULL, "a C++ program links with -lgpublob")) return;
  const char *argv[] = {exe, NULL};
  char *text = NULL;
  int rc = run(argv, &text);
  check(rc == 0 && contains(text, GPUBLOB_VERSION_STRING), "the C++ program runs", "exit %d: %s", rc, shown(text));
  free(text);
}

int main(void) {
  check(exists(SO), "built", "%s is missing (ninja build/libgpublob.so)", SO);
  if (!exists(SO)) return report();
  exports();
  dynamic_section();
  if (exists(LLVM14) && need_rocm("hosts with LLVM 14: saxpy's expf needs ocml")) {
    const char *linked[] = {"-L/usr/lib/llvm-14/lib", "-lLLVM-14", "-Wl,-rpath,/usr/lib/llvm-14/lib", NULL};
    const char *loaded[] = {"-DDLOPEN_LLVM14", "-ldl", NULL};
    host("a host linked with -lLLVM-14", linked);
    host("a host that loads libLLVM-14 with dlopen", loaded);
  } else {
    skip("hosts with LLVM 14", "no " LLVM14 " (apt-get install llvm-14-dev)");
  }
  cxx_program();
  return report();
}
