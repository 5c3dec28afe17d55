/* test_lean: a static build links only the LLVM backends the spec names, and
** carries no RUNPATH.  MLIR's LLVM IR target utilities and lld's driver call
** llvm::InitializeAll*, whose references would pull every backend LLVM was built
** with into each program: with lld in-process, src/lld.cpp's copies of them name
** the spec's backends alone; without it, build/unused_backends.o (gen/specgen.c
** --unused-backends) answers the rest with no-ops.  For build/gpublob-compiler and for this test program (linked
** as every test is), with llvm-nm and llvm-readelf at test time:
**   - each backend of config.ninja's llvm_targets that the spec's components
**     (build/specgen --llvm-components) lack has a no-op LLVMInitialize<T>Target
**     (at most a few bytes) or none; each one the spec names has its real one (so
**     the check is not blind); no llvm::X86Subtarget code where X86 is unused,
**     llvm::NVPTXSubtarget code where NVPTX is named;
**   - no RUNPATH or RPATH entry on a static build (--shared-llvm: there is one);
**   - on a static build, the static constructors in build/startup.ld's section
**     .text.gpublob_startup, and no NEEDED zlib, zstd or libgcc_s where configure
**     linked their archives.
*/
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "testlib.h"

/* The value of "KEY = VALUE" in config (malloc'd), or NULL. */
static char *config_value(const char *config, const char *key) {
  size_t n = strlen(key);
  for (const char *p = config; p && *p;) {
    const char *end = strchr(p, '\n');
    if (!end) end = p + strlen(p);
    if (!strncmp(p, key, n) && !strncmp(p + n, " = ", 3)) {
      size_t len = (size_t)(end - p) - n - 3;
      char *v = malloc(len + 1);
      if (!v) return NULL;
      memcpy(v, p + n + 3, len);
      v[len] = 0;
      return v;
    }
    p = *end ? end + 1 : end;
  }
  return NULL;
}

/* Whether the blank-separated list holds word (n bytes), compared without case. */
static int has_word(const char *list, const char *word, size_t n) {
  for (const char *p = list; p && *p;) {
    while (*p && isspace((unsigned char)*p)) p++;
    const char *w = p;
    while (*p && !isspace((unsigned char)*p)) p++;
    if ((size_t)(p - w) == n && !strncasecmp(w, word, n)) return 1;
  }
  return 0;
}

/* The size nm gives LLVMInitialize<T>Target in syms (its -S output); -1: absent. */
static long init_size(const char *syms, const char *t, size_t n) {
  char name[128];
  snprintf(name, sizeof name, " LLVMInitialize%.*sTarget\n", (int)n, t);
  const char *hit = strstr(syms, name);
  if (!hit) return -1;
  const char *line = hit;
  while (line > syms && line[-1] != '\n') line--;
  /* ADDRESS SIZE TYPE NAME */
  const char *sz = strchr(line, ' ');
  return sz && sz < hit ? strtol(sz + 1, NULL, 16) : -1;
}

static void check_program(const char *prog, const char *shown_name, const char *targets, const char *components,
                          int shared) {
  char cmd[4096], name[512];
  snprintf(cmd, sizeof cmd,
           "%s/llvm-nm -C -S --defined-only '%s' | grep -E 'LLVMInitialize[A-Za-z0-9]*Target$|"
           "llvm::(X86|NVPTX)Subtarget::' | sed 's/(.*//' | sort -u",
           LLVM_BINDIR, prog);
  const char *nm[] = {"sh", "-c", cmd, NULL};
  char *syms = NULL;
  int rc = exit_code(run(nm, &syms));
  snprintf(name, sizeof name, "%s: llvm-nm lists its initialisers", shown_name);
  check(rc == 0 && contains(syms, "LLVMInitialize"), name, "exit %d: %.300s", rc, shown(syms));

  for (const char *p = targets; syms && *p;) {
    while (*p == ' ') p++;
    const char *t = p;
    while (*p && *p != ' ') p++;
    size_t n = (size_t)(p - t);
    if (!n) break;
    long size = init_size(syms, t, n);
    if (has_word(components, t, n)) {
      snprintf(name, sizeof name, "%s: the spec's backend %.*s is linked (its real initialiser)", shown_name,
               (int)n, t);
      check(size > 16, name, "LLVMInitialize%.*sTarget: size %ld", (int)n, t, size);
    } else if (!shared) {
      snprintf(name, sizeof name, "%s: the unused backend %.*s is not linked (a no-op initialiser or none)",
               shown_name, (int)n, t);
      check(size <= 16, name, "LLVMInitialize%.*sTarget: size %ld", (int)n, t, size);
    }
  }
  if (!shared && has_word(targets, "X86", 3) && !has_word(components, "x86", 3)) {
    snprintf(name, sizeof name, "%s: no X86 backend code (llvm::X86Subtarget)", shown_name);
    check(lacks(syms, "llvm::X86Subtarget::"), name, "nm finds llvm::X86Subtarget's members");
  }
  if (has_word(components, "nvptx", 5)) {
    snprintf(name, sizeof name, "%s: the NVPTX backend's code is there (llvm::NVPTXSubtarget)", shown_name);
    check(contains(syms, "llvm::NVPTXSubtarget::"), name, "nm finds no llvm::NVPTXSubtarget member");
  }
  free(syms);

  const char *readelf[] = {LLVM_BINDIR "/llvm-readelf", "-d", prog, NULL};
  char *dyn = NULL;
  rc = exit_code(run(readelf, &dyn));
  int runpath = contains(dyn, "RUNPATH") || contains(dyn, "(RPATH)");
  if (shared) {
    snprintf(name, sizeof name, "%s: --shared-llvm: a RUNPATH to LLVM's libdir", shown_name);
    check(rc == 0 && runpath, name, "exit %d: %.500s", rc, shown(dyn));
  } else {
    snprintf(name, sizeof name, "%s: a static LLVM: no RUNPATH or RPATH", shown_name);
    check(rc == 0 && !runpath, name, "exit %d: %.500s", rc, shown(dyn));
  }
  free(dyn);
}

/* With build/startup.ld in the link (configure's probe passed): the static
** constructors lie in the one section it makes, ahead of .text. */
static void check_startup(const char *prog, const char *shown_name, const char *ldflags) {
  char cmd[4096], name[512];
  if (!ldflags || !contains(ldflags, "build/startup.ld")) {
    snprintf(name, sizeof name, "%s: constructors gathered", shown_name);
    skip(name, "configure's linker took no build/startup.ld (shared LLVM, or no INSERT)");
    return;
  }
  snprintf(cmd, sizeof cmd,
           "%s/llvm-readelf -S -W '%s' | awk '$2 == \".text.gpublob_startup\" {print $4, $6}'; "
           "%s/llvm-nm '%s' | grep ' _GLOBAL__sub_I_' | cut -d' ' -f1",
           LLVM_BINDIR, prog, LLVM_BINDIR, prog);
  const char *sh[] = {"sh", "-c", cmd, NULL};
  char *out = NULL;
  int rc = exit_code(run(sh, &out));
  unsigned long long start = 0, size = 0, addr;
  int n = 0, inside = 0, at = 0;
  if (rc == 0 && out && sscanf(out, "%llx %llx%n", &start, &size, &at) == 2)
    for (const char *p = out + at; sscanf(p, "%llx%n", &addr, &at) == 1; p += at, n++)
      inside += addr >= start && addr < start + size;
  snprintf(name, sizeof name, "%s: its static constructors lie together in .text.gpublob_startup", shown_name);
  check(size > 0 && n > 10 && inside == n, name, "exit %d: section at %llx size %llx; %d of %d constructors in it",
        rc, start, size, inside, n);
  free(out);
}

/* zlib, zstd and libgcc linked in when their archives are there: no such NEEDED entry. */
static void check_needed(const char *prog, const char *shown_name, const char *libs) {
  char cmd[1024], name[512];
  snprintf(cmd, sizeof cmd, "%s/llvm-readelf -d '%s' | grep NEEDED", LLVM_BINDIR, prog);
  const char *sh[] = {"sh", "-c", cmd, NULL};
  char *dyn = NULL;
  int rc = exit_code(run(sh, &dyn));
  const char *archived[][2] = {{"-l:libz.a", "libz.so"}, {"-l:libzstd.a", "libzstd.so"}};
  for (size_t i = 0; i < 2; i++) {
    snprintf(name, sizeof name, "%s: %s linked in (no NEEDED %s)", shown_name, archived[i][0], archived[i][1]);
    if (!libs || !contains(libs, archived[i][0])) skip(name, "configure found no archive");
    else check(rc == 0 && lacks(dyn, archived[i][1]), name, "exit %d: %.500s", rc, shown(dyn));
  }
  snprintf(name, sizeof name, "%s: -static-libgcc (no NEEDED libgcc_s)", shown_name);
  check(rc == 0 && lacks(dyn, "libgcc_s"), name, "exit %d: %.500s", rc, shown(dyn));
  free(dyn);
}

int main(void) {
  char *config = (char *)slurp("build/config.ninja", &(size_t){0});
  if (!config) {
    skip("the lean link", "no build/config.ninja (run ./configure)");
    return report();
  }
  char *shared_v = config_value(config, "shared_llvm"), *targets = config_value(config, "llvm_targets");
  int shared = shared_v && !strcmp(shared_v, "1");
  check(targets && *targets, "config.ninja names the backends LLVM has (llvm_targets)", "%s", shown(targets));

  char cmd[4096];
  snprintf(cmd, sizeof cmd, "build/specgen --llvm-targets '%s' --llvm-components targets/targets.spec",
           targets ? targets : "");
  const char *argv[] = {"sh", "-c", cmd, NULL};
  char *components = NULL;
  int rc = exit_code(run(argv, &components));
  check(rc == 0 && components && *components, "the spec's LLVM components", "exit %d: %s", rc, shown(components));

  char *ldflags = config_value(config, "ldflags"), *libs = config_value(config, "llvm_libs");
  if (!shared) {
    check_startup("build/gpublob-compiler", "gpublob-compiler", ldflags);
    check_needed("build/gpublob-compiler", "gpublob-compiler", libs);
  }
  free(ldflags);
  free(libs);
  if (targets && components) {
    check_program("build/gpublob-compiler", "gpublob-compiler", targets, components, shared);
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    check(n > 0, "this test program's path", "readlink /proc/self/exe failed");
    if (n > 0) {
      self[n] = 0;
      check_program(self, "a test program", targets, components, shared);
    }
  }
  free(components);
  free(targets);
  free(shared_v);
  free(config);
  return report();
}
