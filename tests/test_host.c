/* test_host: a host program that links libgpublob.a and keeps going.
**
** In one process and one handle, with GPUBLOB_FLAG_ISOLATE: an input that aborts
** LLVM in-process (llvm.exp.f32 in an nvptx kernel: "Cannot select") is BACKEND,
** with LLVM's reason in the message, and this process lives on; then a good saxpy
** gives a valid cubin.  A zeroed gpublob_options (version 0) means every default,
** and so does GPUBLOB_OPTIONS_INIT where gpublob.h has it.
**
** The isolated sequence runs in a child of this test, which sends back each
** outcome: where isolation does not hold, LLVM's abort kills that child, and the
** test says so instead of dying without its closing line. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpublob.h"
#include "testlib.h"

#ifndef GPUBLOB_FLAG_ISOLATE /* the final name and value; defined here so this builds before it lands */
#define GPUBLOB_FLAG_ISOLATE 0x20
#endif

#define READELF LLVM_BINDIR "/llvm-readelf"
#define NV "examples/saxpy_nvptx.ll"
#define SP "examples/saxpy_spirv.ll"

static const char exp_nvptx[] = /* llvm.exp.f32 has no NVPTX lowering: LLVM aborts the process */
    "target triple = \"nvptx64-nvidia-cuda\"\n"
    "define ptx_kernel void @k(ptr addrspace(1) %p) {\n"
    "  %v = load float, ptr addrspace(1) %p\n"
    "  %e = call float @llvm.exp.f32(float %v)\n"
    "  store float %e, ptr addrspace(1) %p\n"
    "  ret void\n}\n"
    "declare float @llvm.exp.f32(float)\n";

static int ptxas;
static FILE *results; /* the isolated sequence's outcomes, to the parent */

static void outcome(int ok, const char *name, const char *detail) {
  fprintf(results, "%d\t%s\t", ok, name);
  for (const char *p = detail ? detail : ""; *p; p++) fputc(*p == '\n' || *p == '\t' ? ' ' : *p, results);
  fputc('\n', results);
  fflush(results);
}

/* The blob is a cubin with the saxpy kernel symbol (llvm-readelf -s). */
static int is_saxpy_cubin(const gpublob_blob *b, const char *file, char **why) {
  *why = NULL;
  if (!b->data || b->size < 16 || memcmp(b->data, "\x7f" "ELF", 4)) return 0;
  const char *path = tmp_path(file);
  spill(path, b->data, b->size);
  const char *argv[] = {READELF, "-s", path, NULL};
  char *syms = NULL;
  int rc = run(argv, &syms);
  int ok = rc == 0 && contains(syms, "FUNC") && contains(syms, " saxpy");
  *why = syms;
  return ok;
}

static void isolated_abort_then_good(gpublob *g) {
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = "nvptx:sm_90",
                       .format = ptxas ? GPUBLOB_FORMAT_BIN : GPUBLOB_FORMAT_ASM, .flags = GPUBLOB_FLAG_ISOLATE};
  for (int round = 1; round <= 2; round++) {
    gpublob_blob b = {(unsigned char *)"x", 1, NULL};
    int rc = gpublob_module_compile(g, &o, exp_nvptx, sizeof exp_nvptx - 1, "abort.ll", &b);
    const char *msg = gpublob_error_message(g);
    char name[200];
    snprintf(name, sizeof name,
             "host: isolated, an input that aborts LLVM is BACKEND with 'Cannot select'; the process lives (%s)",
             round == 1 ? "first" : "again, same handle");
    char detail[4096];
    snprintf(detail, sizeof detail, "got %d (%s)%s", rc, msg, b.data ? ", and a blob" : "");
    outcome(rc == GPUBLOB_BACKEND && gpublob_error_code(g) == GPUBLOB_BACKEND && b.data == NULL &&
                contains(msg, "Cannot select"),
            name, detail);
    if (b.data && b.size != 1) gpublob_blob_free(&b);
  }

  const char *name = "host: isolated, then a good saxpy on the same handle gives a cubin with the kernel";
  if (!ptxas) {
    outcome(-1, name, "CUDA toolkit (ptxas) not found");
    return;
  }
  gpublob_blob b = {0};
  int rc = gpublob_file_compile(g, &o, NV, &b);
  char *why = NULL, detail[8192];
  int ok = rc == GPUBLOB_OK && is_saxpy_cubin(&b, "host-isolated.cubin", &why);
  snprintf(detail, sizeof detail, "got %d (%s) %s", rc, rc ? gpublob_error_message(g) : "", why ? why : "");
  outcome(ok, name, detail);
  free(why);
  if (!rc) gpublob_blob_free(&b);
}

/* version 0: a zeroed struct is every default (the first spec target, nvptx, bin). */
static void test_version_zero(gpublob *g) {
  gpublob_options o = {0};
  const char *name = "host: gpublob_options o = {0} (version 0) compiles with the defaults (nvptx cubin)";
  if (!ptxas) {
    skip(name, "CUDA toolkit (ptxas) not found");
  } else {
    gpublob_blob b = {0};
    int rc = gpublob_file_compile(g, &o, NV, &b);
    char *why = NULL;
    check(rc == GPUBLOB_OK && is_saxpy_cubin(&b, "host-v0.cubin", &why), name, "got %d (%s) %s", rc,
          rc ? gpublob_error_message(g) : "", why ? why : "");
    free(why);
    if (!rc) gpublob_blob_free(&b);
  }
  gpublob_options s = {0};
  s.target = "spirv"; /* a version 1 field */
  gpublob_blob b = {0};
  int rc = gpublob_file_compile(g, &s, SP, &b);
  check(rc == GPUBLOB_OK && b.size > 20 && !memcmp(b.data, "\x03\x02\x23\x07", 4),
        "host: version 0 with .target = \"spirv\" gives a SPIR-V module", "got %d (%s)", rc,
        rc ? gpublob_error_message(g) : "");
  if (!rc) gpublob_blob_free(&b);
}

/* Runs the isolated sequence in a child with a handle of its own, and checks what it sends. */
static void test_isolated_abort_then_good(void) {
  int fds[2];
  if (pipe(fds)) return;
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    results = fdopen(fds[1], "w");
    gpublob *g;
    if (gpublob_open(&g)) _exit(2);
    isolated_abort_then_good(g);
    gpublob_close(g);
    fclose(results);
    _exit(0);
  }
  close(fds[1]);
  FILE *in = fdopen(fds[0], "r");
  char line[16384];
  int got = 0;
  while (in && fgets(line, sizeof line, in)) {
    char *name = strchr(line, '\t'), *detail = name ? strchr(name + 1, '\t') : NULL;
    if (!detail) continue;
    *name++ = 0;
    *detail++ = 0;
    detail[strcspn(detail, "\n")] = 0;
    if (atoi(line) < 0) skip(name, detail);
    else check(atoi(line) == 1, name, "%s", detail);
    got++;
  }
  if (in) fclose(in);
  int status = 0;
  waitpid(pid, &status, 0);
  check(WIFEXITED(status) && WEXITSTATUS(status) == 0 && got == 3,
        "host: the host process survives the isolated LLVM abort and finishes the sequence",
        "the host process %s %d after %d of 3 steps", WIFSIGNALED(status) ? "was killed by signal" : "exited",
        WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status), got);
}

static void test_options_init(gpublob *g) {
#ifdef GPUBLOB_OPTIONS_INIT
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
  gpublob_options o = GPUBLOB_OPTIONS_INIT;
#pragma GCC diagnostic pop
  check(o.version == GPUBLOB_OPTIONS_VERSION && o.target == NULL && o.flags == 0,
        "host: GPUBLOB_OPTIONS_INIT is this version with every field its default", "version %u", o.version);
  o.target = "spirv";
  gpublob_blob b = {0};
  int rc = gpublob_file_compile(g, &o, SP, &b);
  check(rc == GPUBLOB_OK && b.size > 20 && !memcmp(b.data, "\x03\x02\x23\x07", 4),
        "host: GPUBLOB_OPTIONS_INIT with .target = \"spirv\" compiles", "got %d (%s)", rc,
        rc ? gpublob_error_message(g) : "");
  if (!rc) gpublob_blob_free(&b);
#else
  skip("host: GPUBLOB_OPTIONS_INIT", "gpublob.h does not define it yet");
#endif
}

int main(void) {
  setenv("TMPDIR", scratch(), 1); /* the tools' private directories go here */
  ptxas = have_ptxas();
  test_isolated_abort_then_good();
  gpublob *g;
  if (gpublob_open(&g)) return 2;
  test_version_zero(g);
  test_options_init(g);
  gpublob_close(g);
  char left[1024] = "";
  DIR *d = opendir(scratch());
  for (struct dirent *e; d && (e = readdir(d));)
    if (strstr(e->d_name, "gpublob-") || strstr(e->d_name, "tmpxft"))
      snprintf(left + strlen(left), sizeof left - strlen(left), " %s", e->d_name);
  if (d) closedir(d);
  check(!*left, "host: no temporary left in TMPDIR", "left:%s", left);
  return report();
}
