/* test_configure: running ./configure again with the same arguments leaves ninja
** nothing to do.  configure replaces build/config.ninja only when its bytes change,
** and asks a generator of its own (build/specgen is ninja's), so nothing that
** depends on them (the target table, every object and link) is rebuilt.
**
** In a copy of the files configure and the generator read (never this tree's
** build/, whose configure arguments this test cannot know): ./configure, build
** the target table, ./configure again, and `ninja -n` must say "no work to do";
** then a changed argument must rewrite config.ninja (so the check is not blind).
** Not in the sanitized suites: it drives configure and ninja, with nothing of its
** own to instrument (as test_install).
**
** Then what configure asks for: LLVM_CONFIG naming a wrapper elsewhere gives the
** same config.ninja; no llvm-config stops it, naming llvm-22-dev; and with every
** optional part and every tool only the tests use hidden (an llvm-config whose
** --bindir and --includedir lack them, SPIRV_VAL and REDIS_SERVER pointing nowhere,
** --without-hiredis) it succeeds, its summary names each one missing, and the
** config.ninja it writes builds the front and plans every test. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "testlib.h"

/* sh -c "cd DIR && CMD"; the output into *out (may be NULL); the exit status. */
static int in_dir(const char *dir, const char *cmd, char **out) {
  char line[8192];
  snprintf(line, sizeof line, "cd '%s' && %s", dir, cmd);
  const char *argv[] = {"sh", "-c", line, NULL};
  char *text = NULL;
  int rc = exit_code(run(argv, &text));
  if (out) *out = text;
  else free(text);
  return rc;
}

/* path's bytes as a string ("" when unread), malloc'd. */
static char *text_of(const char *path) {
  char *t = (char *)slurp(path, NULL);
  return t ? t : strdup("");
}

/* A file of text, mode 0755. */
static int script(const char *path, const char *text) {
  return spill(path, text, strlen(text)) || chmod(path, 0755);
}

/* The modification time of dir/name in nanoseconds; -1 when it is not there. */
static long long mtime_of(const char *dir, const char *name) {
  char path[4096];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  if (stat(path, &st)) return -1;
  return (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
}

int main(void) {
  const char *dir = strdup(tmp_path("tree")); /* kept: tmp_path's buffers are a ring */
  char cmd[8192];
  snprintf(cmd, sizeof cmd,
           "mkdir -p '%s' && cp -R configure build.ninja gpublob.c gpublob.h gpublob_mlir.h gen src targets tests examples programs "
           "bench tools '%s'/", dir, dir);
  char *out = NULL;
  int rc = in_dir(".", cmd, &out);
  check(rc == 0, "copy the tree", "exit %d: %s", rc, shown(out));
  free(out);

  rc = in_dir(dir, "./configure --prefix=/opt/gpublob-configure-test", &out);
  check(rc == 0, "first ./configure", "exit %d: %s", rc, shown(out));
  free(out);
  rc = in_dir(dir, "ninja build/gpublob_targets.def", &out);
  check(rc == 0, "build the target table", "exit %d: %s", rc, shown(out));
  free(out);
  long long config0 = mtime_of(dir, "build/config.ninja"), specgen0 = mtime_of(dir, "build/specgen");

  rc = in_dir(dir, "sleep 1 && ./configure --prefix=/opt/gpublob-configure-test", &out);
  check(rc == 0, "second ./configure", "exit %d: %s", rc, shown(out));
  free(out);
  check(config0 > 0 && mtime_of(dir, "build/config.ninja") == config0, "config.ninja kept",
        "its time changed although its content did not");
  check(specgen0 > 0 && mtime_of(dir, "build/specgen") == specgen0, "specgen kept (ninja builds it; configure uses a copy of its own)",
        "its time changed although it is the same program");
  rc = in_dir(dir, "ninja -n build/gpublob_targets.def", &out);
  check(rc == 0 && contains(out, "no work to do"), "ninja -n after a rerun", "exit %d: %s", rc, shown(out));
  free(out);
  check(mtime_of(dir, "build/specgen-configure") < 0 && mtime_of(dir, "build/config.ninja.tmp") < 0,
        "no temporary file left", "build/specgen-configure or build/config.ninja.tmp is there");

  /* Another argument: config.ninja is rewritten (the comparison sees content). */
  rc = in_dir(dir, "./configure --prefix=/opt/gpublob-configure-other && grep -q configure-other "
                   "build/config.ninja", &out);
  check(rc == 0, "a changed argument rewrites config.ninja", "exit %d: %s", rc, shown(out));
  free(out);

  /* LLVM_CONFIG: a wrapper in a directory of its own (not Debian's), which execs the
  ** real llvm-config: configure asks it for everything, and writes the same file. */
  char path[4400], *before = text_of(tmp_path("tree/build/config.ninja"));
  const char *wrap = tmp_path("wrap");
  mkdir(wrap, 0755);
  snprintf(path, sizeof path, "%s/llvm-config", wrap);
  char text[8192];
  snprintf(text, sizeof text, "#!/bin/sh\nexec '%s/llvm-config' \"$@\"\n", LLVM_BINDIR);
  script(path, text);
  snprintf(cmd, sizeof cmd, "LLVM_CONFIG='%s' ./configure --prefix=/opt/gpublob-configure-other", path);
  rc = in_dir(dir, cmd, &out);
  char *after = text_of(tmp_path("tree/build/config.ninja"));
  check(rc == 0 && contains(out, path), "LLVM_CONFIG: a wrapper elsewhere is asked", "exit %d: %s", rc, shown(out));
  check(*before && same_str(before, after), "LLVM_CONFIG: the wrapper gives the same config.ninja", "before:\n%s\nafter:\n%s",
        before, after);
  free(out), free(before), free(after);

  /* No LLVM at all: configure stops, naming the package. */
  rc = in_dir(dir, "LLVM_CONFIG=/nonexistent/llvm-config ./configure", &out);
  check(rc != 0 && contains(out, "llvm-22-dev") && contains(out, "/nonexistent/llvm-config"),
        "no llvm-config: configure stops, naming llvm-22-dev", "exit %d: %s", rc, shown(out));
  free(out);

  /* The library's needs alone: the optional parts and test tools hidden.  An llvm-config
  ** (a wrapper of the real one) whose --bindir has none of clang, clang-offload-bundler,
  ** ld.lld, mlir-opt, mlir-translate, and whose --includedir has no MLIR headers;
  ** SPIRV_VAL and REDIS_SERVER pointing nowhere; no hiredis.  (lld's headers stay:
  ** a build without lld in-process is not one ninja can read yet, build.ninja's
  ** $lld_obj being an empty path there.) */
  const char *min = strdup(tmp_path("min")), *minbin = strdup(tmp_path("min/bin")),
             *mininc = strdup(tmp_path("min/include"));
  snprintf(cmd, sizeof cmd,
           "mkdir -p '%s' '%s' && ln -s '" LLVM_BINDIR "/llvm-readelf' '%s/' && "
           "inc=$('" LLVM_BINDIR "/llvm-config' --includedir) && for e in \"$inc\"/*; do "
           "case \"${e##*/}\" in mlir|mlir-c) ;; *) ln -s \"$e\" '%s/' ;; esac; done",
           minbin, mininc, minbin, mininc);
  rc = in_dir(".", cmd, &out);
  check(rc == 0, "a minimal LLVM's directories", "exit %d: %s", rc, shown(out));
  free(out);
  snprintf(path, sizeof path, "%s/llvm-config", min);
  snprintf(text, sizeof text,
           "#!/bin/sh\ncase \"$*\" in\n--bindir) echo '%s' ;;\n--includedir) echo '%s' ;;\n"
           "*) exec '%s/llvm-config' \"$@\" ;;\nesac\n",
           minbin, mininc, LLVM_BINDIR);
  script(path, text);
  snprintf(cmd, sizeof cmd,
           "LLVM_CONFIG='%s' SPIRV_VAL=/nonexistent/spirv-val REDIS_SERVER= NGINX= ./configure --without-hiredis --without-curl "
           "--prefix=/opt/gpublob-configure-min",
           path);
  rc = in_dir(dir, cmd, &out);
  check(rc == 0, "minimal: configure succeeds with only what the library needs", "exit %d: %s", rc, shown(out));
  static const char *const said[][2] = {
      {"MLIR: no", "MLIR missing"},
      {"remote cache tier: no", "the remote tier left out"},
      {"HTTP remote cache tier: no (--without-curl)", "the HTTP tier left out"},
      {"nginx-light: ", "nginx-light"},
      {"ld.lld: not found", "no ld.lld program"},
      {"CUDA toolkit: ", "the CUDA toolkit, found or not"},
      {"ROCm bitcode: ", "ROCm's bitcode, found or not"},
      {"tests: missing", "the tests' missing tools"},
      {"clang-22: ", "clang-22"},
      {"clang-tools-22: ", "clang-tools-22"},
      {"lld-22: ", "lld-22"},
      {"mlir-22-tools: ", "mlir-22-tools"},
      {"spirv-tools: ", "spirv-tools"},
      {"redis-server: ", "redis-server"},
  };
  for (size_t i = 0; i < sizeof said / sizeof *said; i++) {
    char name[200];
    snprintf(name, sizeof name, "minimal: the summary names %s", said[i][1]);
    check_if(rc == 0, contains(out, said[i][0]), name, "no '%s' in:\n%s", said[i][0], shown(out));
  }
  free(out);
  char *config = text_of(tmp_path("tree/build/config.ninja"));
  snprintf(text, sizeof text, "-DLLVM_BINDIR=\\\"%s\\\"", minbin);
  check(contains(config, "mlir = no\n") && contains(config, text) &&
            contains(config, "-DSPIRV_VAL=\\\"/nonexistent/spirv-val\\\"") && contains(config, "-DREDIS_SERVER=\\\"\\\""),
        "minimal: config.ninja has no MLIR, and LLVM's bindir from llvm-config", "%s", config);
  free(config);
  rc = in_dir(dir, "ninja build/gpublob >/dev/null && build/gpublob --version && ninja -n tests >/dev/null", &out);
  check(rc == 0 && contains(out, "gpublob ") && lacks(out, "MLIR"),
        "minimal: its config.ninja builds the front, for LLVM IR only, and plans the tests", "exit %d: %s", rc,
        shown(out));
  free(out);
  return report();
}
