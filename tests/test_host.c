/* test_host: a host program that links libgpublob.a and keeps going.
**
** In one process and one handle, with GPUBLOB_FLAG_ISOLATE: an input that aborts
** LLVM in-process (wgmma in an nvptx kernel for sm_90: "Cannot select") is BACKEND,
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

/* These checks call the 1.0 calls too (gpublob_module_compile and the like), which
** stay supported: without their deprecation warnings. */
#define GPUBLOB_DISABLE_DEPRECATE_WARNINGS
#include "gpublob.h"
#include "testlib.h"

#ifndef GPUBLOB_FLAG_ISOLATE /* the final name and value; defined here so this builds before it lands */
#define GPUBLOB_FLAG_ISOLATE 0x20
#endif

#define READELF LLVM_BINDIR "/llvm-readelf"
#define NV "examples/saxpy_nvptx.ll"
#define SP "examples/saxpy_spirv.ll"

static const char wgmma_sm90[] = /* wgmma needs sm_90a: on sm_90 LLVM aborts the process ("Cannot select") */
    "target triple = \"nvptx64-nvidia-cuda\"\n"
    "define ptx_kernel void @k(ptr addrspace(1) %p) {\n"
    "  call void @llvm.nvvm.wgmma.fence.sync.aligned()\n"
    "  store i32 1, ptr addrspace(1) %p\n"
    "  ret void\n}\n"
    "declare void @llvm.nvvm.wgmma.fence.sync.aligned()\n";

static int ptxas;
static FILE *results; /* the isolated sequence's outcomes, to the parent */

/* One outcome of the isolated sequence, to the parent, which checks it as one property
** (its line and expression as here): "ok\tline\texpression\tname\tdetail"; ok -1 is a skip. */
#define outcome(ok, name, detail) outcome_at(__LINE__, #ok, (ok) != 0, name, detail)
#define outcome_skip(name, why) outcome_at(__LINE__, "", -1, name, why)
static void outcome_at(int line, const char *expr, int ok, const char *name, const char *detail) {
  fprintf(results, "%d\t%d\t%s\t%s\t", ok, line, expr, name);
  for (const char *p = detail ? detail : ""; *p; p++) fputc(*p == '\n' || *p == '\t' ? ' ' : *p, results);
  fputc('\n', results);
  fflush(results);
}

/* What makes the blob a cubin with the saxpy kernel symbol (llvm-readelf -s). */
typedef struct cubin_facts {
  int elf;       /* a blob that starts with ELFMAG (16 bytes or more) */
  int readelf;   /* llvm-readelf -s's exit status; -1 when it did not run */
  char *syms;    /* its output (malloc'd), or NULL */
} cubin_facts;

static cubin_facts look_at_cubin(const gpublob_blob *b, const char *file) {
  cubin_facts f = {is_elf(b->data, b->size) && b->size >= 16, -1, NULL};
  if (!f.elf) return f;
  const char *path = tmp_path(file);
  spill(path, b->data, b->size);
  const char *argv[] = {READELF, "-s", path, NULL};
  f.readelf = run(argv, &f.syms);
  return f;
}

/* The four properties of a saxpy cubin, each through report (check_at or outcome_at). */
typedef void (*reporter)(int line, const char *expr, int ok, const char *name, const char *detail);

static void report_cubin(reporter r, const char *name, const cubin_facts *f) {
#define REPORT(ok, label, detail) r(__LINE__, #ok, (ok) != 0, label, detail)
  char label[300], detail[8192];
  snprintf(detail, sizeof detail, "readelf exit %d: %s", f->readelf, f->syms ? f->syms : "");
  snprintf(label, sizeof label, "%s: an ELF", name);
  REPORT(f->elf, label, f->elf ? "" : "no ELF blob");
  snprintf(label, sizeof label, "%s: llvm-readelf -s reads it", name);
  REPORT(f->readelf == 0, label, detail);
  snprintf(label, sizeof label, "%s: a FUNC symbol", name);
  REPORT(contains(f->syms, "FUNC"), label, detail);
  REPORT(contains(f->syms, " saxpy"), name, detail);
#undef REPORT
}

static void check_reporter(int line, const char *expr, int ok, const char *name, const char *detail) {
  check_at(__FILE__, line, expr, ok, name, "%s", detail);
}

/* outcome()s the isolated sequence sends: 4 for each of 2 rounds, 5 for the good saxpy
** (1, a skip, without ptxas). */
#define OUTCOMES (2 * 4 + (ptxas ? 5 : 1))

/* A SPIR-V module, two checks: more than a header, and the magic. */
static void check_spirv(const char *name, int rc, const gpublob_blob *b, gpublob *g) {
  char label[300];
  check(rc == GPUBLOB_OK, name, "got %d (%s)", rc, rc ? gpublob_error_message(g) : "");
  snprintf(label, sizeof label, "%s: more than 20 bytes", name);
  check(b->size > 20, label, "%zu bytes", b->size);
  snprintf(label, sizeof label, "%s: the SPIR-V magic", name);
  check_if(b->data && b->size >= 4, !memcmp(b->data, "\x03\x02\x23\x07", 4), label, "%02x %02x %02x %02x", b->data[0],
           b->data[1], b->data[2], b->data[3]);
}

static void isolated_abort_then_good(gpublob *g) {
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = "nvptx:sm_90",
                       .format = ptxas ? GPUBLOB_FORMAT_BIN : GPUBLOB_FORMAT_ASM, .flags = GPUBLOB_FLAG_ISOLATE};
  for (int round = 1; round <= 2; round++) {
    gpublob_blob b = {(unsigned char *)"x", 1, NULL};
    int rc = gpublob_module_compile(g, &o, wgmma_sm90, sizeof wgmma_sm90 - 1, "abort.ll", &b);
    const char *msg = gpublob_error_message(g);
    char name[200];
    snprintf(name, sizeof name,
             "host: isolated, an input that aborts LLVM is BACKEND with 'Cannot select'; the process lives (%s)",
             round == 1 ? "first" : "again, same handle");
    char detail[4096], label[300];
    int ecode = gpublob_error_code(g);
    snprintf(detail, sizeof detail, "got %d (%s)%s", rc, msg, b.data ? ", and a blob" : "");
    outcome(rc == GPUBLOB_BACKEND, name, detail);
    snprintf(label, sizeof label, "%s: gpublob_error_code", name);
    snprintf(detail, sizeof detail, "gpublob_error_code %d", ecode);
    outcome(ecode == GPUBLOB_BACKEND, label, detail);
    snprintf(label, sizeof label, "%s: no blob", name);
    snprintf(detail, sizeof detail, "a blob of %zu bytes", b.size);
    outcome(b.data == NULL, label, detail);
    snprintf(label, sizeof label, "%s: the message has 'Cannot select'", name);
    outcome(contains(msg, "Cannot select"), label, msg);
    if (b.data && b.size != 1) gpublob_blob_free(&b);
  }

  const char *name = "host: isolated, then a good saxpy on the same handle gives a cubin with the kernel";
  if (!ptxas) {
    outcome_skip(name, "CUDA toolkit (ptxas) not found");
    return;
  }
  gpublob_blob b = {0};
  int rc = gpublob_file_compile(g, &o, NV, &b);
  char detail[8192], label[300];
  snprintf(detail, sizeof detail, "got %d (%s)", rc, rc ? gpublob_error_message(g) : "");
  snprintf(label, sizeof label, "%s: compiles", name);
  outcome(rc == GPUBLOB_OK, label, detail);
  cubin_facts f = look_at_cubin(&b, "host-isolated.cubin");
  report_cubin(outcome_at, name, &f);
  free(f.syms);
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
    char label[300];
    snprintf(label, sizeof label, "%s: compiles", name);
    check(rc == GPUBLOB_OK, label, "got %d (%s)", rc, rc ? gpublob_error_message(g) : "");
    cubin_facts f = look_at_cubin(&b, "host-v0.cubin");
    report_cubin(check_reporter, name, &f);
    free(f.syms);
    if (!rc) gpublob_blob_free(&b);
  }
  gpublob_options s = {0};
  s.target = "spirv"; /* a version 1 field */
  gpublob_blob b = {0};
  int rc = gpublob_file_compile(g, &s, SP, &b);
  check_spirv("host: version 0 with .target = \"spirv\" gives a SPIR-V module", rc, &b, g);
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
    char *field[5] = {line};
    int k = 1;
    for (char *p = line; k < 5 && (p = strchr(p, '\t')); k++) *p++ = 0, field[k] = p;
    if (k < 5) continue;
    char *detail = field[4];
    detail[strcspn(detail, "\n")] = 0;
    if (atoi(field[0]) < 0) skip(field[3], detail);
    else check_at(__FILE__, atoi(field[1]), field[2], atoi(field[0]) == 1, field[3], "%s", detail);
    got++;
  }
  if (in) fclose(in);
  int status = 0;
  waitpid(pid, &status, 0);
  check(exit_code(status) == 0, "host: the host process survives the isolated LLVM abort",
        "the host process %s %d after %d of %d steps", WIFSIGNALED(status) ? "was killed by signal" : "exited",
        WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status), got, OUTCOMES);
  check(got == OUTCOMES, "host: the host process survives the isolated LLVM abort and finishes the sequence",
        "%d of %d steps", got, OUTCOMES);
}

static void test_options_init(gpublob *g) {
#ifdef GPUBLOB_OPTIONS_INIT
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
  gpublob_options o = GPUBLOB_OPTIONS_INIT;
#pragma GCC diagnostic pop
  check(o.version == GPUBLOB_OPTIONS_VERSION, "host: GPUBLOB_OPTIONS_INIT is this version with every field its default",
        "version %u", o.version);
  check(o.target == NULL, "host: GPUBLOB_OPTIONS_INIT is this version with every field its default: target NULL",
        "target %s", o.target);
  check(o.flags == 0, "host: GPUBLOB_OPTIONS_INIT is this version with every field its default: flags 0", "flags %#x",
        o.flags);
  o.target = "spirv";
  gpublob_blob b = {0};
  int rc = gpublob_file_compile(g, &o, SP, &b);
  check_spirv("host: GPUBLOB_OPTIONS_INIT with .target = \"spirv\" compiles", rc, &b, g);
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
