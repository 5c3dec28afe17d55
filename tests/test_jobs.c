/* test_jobs: many (target, chip) jobs in one call on the pool: outputs in plan
** order and byte-identical whatever the thread count; the first failure in that
** order is the call's, and nothing is written; nvJitLink in-process and ptxas give
** valid cubins with the same kernels; -f fatbin packs a cubin per chip and the
** newest chip's PTX (read back entry by entry). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpublob.h"
#include "testlib.h"

#define READELF LLVM_BINDIR "/llvm-readelf"

static gpublob *g;

static unsigned elf_machine(const gpublob_blob *b) {
  if (b->size < 20 || memcmp(b->data, "\177ELF", 4)) return 0;
  return (unsigned)b->data[18] | (unsigned)b->data[19] << 8;
}

static int compile_list(const char *path, const gpublob_target_choice *list, size_t n, int format,
                        unsigned jobs, int tool_mode, gpublob_result *r) {
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .targets = list, .ntargets = n,
                       .format = format, .jobs = jobs, .tool_mode = tool_mode};
  int rc = gpublob_file_compile_all(g, &o, path, r);
  if (rc) printf("  (%s)\n", gpublob_error_message(g));
  return rc;
}

/* Same count, labels and bytes. */
static int same_results(const gpublob_result *a, const gpublob_result *b) {
  if (a->count != b->count) return 0;
  for (size_t i = 0; i < a->count; i++) {
    const gpublob_output *x = &a->outputs[i], *y = &b->outputs[i];
    if (strcmp(x->target, y->target) || strcmp(x->chip, y->chip) || strcmp(x->tool, y->tool) ||
        x->blob.size != y->blob.size || memcmp(x->blob.data, y->blob.data, x->blob.size))
      return 0;
  }
  return 1;
}

/* The kernel (FUNC) symbols of an ELF blob, as llvm-readelf lists them. */
static char *elf_functions(const gpublob_blob *b, const char *name) {
  const char *path = tmp_path(name);
  spill(path, b->data, b->size);
  const char *argv[] = {READELF, "--syms", path, NULL};
  char *out = NULL, *funcs = calloc(1, 4096);
  run(argv, &out);
  for (char *line = out; line && *line && funcs;) {
    char *nl = strchr(line, '\n');
    if (nl) *nl = 0;
    char *name_at = strrchr(line, ' ');
    if (strstr(line, " FUNC ") && name_at) snprintf(funcs + strlen(funcs), 4096 - strlen(funcs), "%s ", name_at + 1);
    line = nl ? nl + 1 : NULL;
  }
  free(out);
  return funcs;
}

/* ---- several targets and chips: an output each, in the order asked ---- */
static void test_order(void) {
  const gpublob_target_choice list[] = {{"amdgcn:gfx90a,gfx908", NULL, NULL}, {"amdgcn", "gfx1030", NULL}};
  gpublob_result r = {0};
  int rc = compile_list("examples/saxpy_amdgcn.ll", list, 2, 0, 2, 0, &r);
  const char *want[] = {"gfx90a", "gfx908", "gfx1030"};
  int ok = !rc && r.count == 3;
  for (size_t i = 0; ok && i < 3; i++)
    ok = !strcmp(r.outputs[i].target, "amdgcn") && !strcmp(r.outputs[i].chip, want[i]) &&
         elf_machine(&r.outputs[i].blob) == 224 && !strcmp(r.outputs[i].blob.suffix, ".hsaco") &&
         !strcmp(r.outputs[i].tool, "ld.lld");
  check(ok, "jobs: a chip list and a second target give an hsaco each, in the order asked", "rc %d, %zu outputs", rc,
        r.count);
  gpublob_stats s;
  gpublob_stats_get(g, &s, sizeof s);
  check(s.jobs == 3 && s.threads == 2 && s.optimise_ms > 0 && s.wall_ms > 0,
        "jobs: the figures count 3 jobs on 2 threads", "%zu jobs, %zu threads", s.jobs, s.threads);
  gpublob_result_free(&r);
  gpublob_blob b;
  gpublob_options one = {.version = GPUBLOB_OPTIONS_VERSION, .target = "amdgcn:gfx90a,gfx908"};
  rc = gpublob_file_compile(g, &one, "examples/saxpy_amdgcn.ll", &b);
  check(rc == GPUBLOB_OPTION && contains(gpublob_error_message(g), "gpublob_module_compile_all") && !b.data,
        "jobs: the one-blob call refuses two chips, pointing to _all", "rc %d", rc);
}

/* ---- the pool: byte-identical to a serial run, whatever the thread count ---- */
static void test_deterministic(void) {
  int cuda = have_ptxas();
  const gpublob_target_choice amd[] = {{"amdgcn:gfx90a,gfx908,gfx1030,gfx906", NULL, NULL}};
  const gpublob_target_choice nv[] = {{"nvptx:sm_80,sm_86,sm_89,sm_90", NULL, NULL}};
  const char *path = cuda ? "examples/saxpy_nvptx.ll" : "examples/saxpy_amdgcn.ll";
  const gpublob_target_choice *list = cuda ? nv : amd;
  gpublob_result serial = {0}, par = {0}, again = {0};
  int rc = compile_list(path, list, 1, 0, 1, 0, &serial);
  int rc2 = compile_list(path, list, 1, 0, 4, 0, &par);
  int rc3 = compile_list(path, list, 1, 0, 3, 0, &again);
  check(!rc && !rc2 && !rc3 && serial.count == 4 && same_results(&serial, &par) && same_results(&par, &again),
        cuda ? "jobs: 4 nvptx chips on 1, 4 and 3 threads: the same outputs, byte for byte, in order"
             : "jobs: 4 amdgcn chips on 1, 4 and 3 threads: the same outputs, byte for byte, in order",
        "rc %d %d %d", rc, rc2, rc3);
  gpublob_result_free(&serial);
  gpublob_result_free(&par);
  gpublob_result_free(&again);
  /* amdgcn too, when nvptx was the case above */
  if (!cuda) return;
  rc = compile_list("examples/saxpy_amdgcn.ll", amd, 1, 0, 1, 0, &serial);
  rc2 = compile_list("examples/saxpy_amdgcn.ll", amd, 1, 0, 4, 0, &par);
  check(!rc && !rc2 && serial.count == 4 && same_results(&serial, &par),
        "jobs: 4 amdgcn chips on 1 and 4 threads: the same outputs, byte for byte", "rc %d %d", rc, rc2);
  gpublob_result_free(&serial);
  gpublob_result_free(&par);
}

/* ---- a failing job fails the call with its own message; the first in order wins ---- */
static void test_failure(void) {
  /* saxpy calls expf: ocml needs oclc_isa_version_NNN.bc, which Debian lacks for
  ** gfx942 and gfx1100, so those jobs fail in the pool (NOLIB), the others pass. */
  const gpublob_target_choice a[] = {{"amdgcn:gfx90a,gfx942,gfx908,gfx1100", NULL, NULL}};
  const gpublob_target_choice b[] = {{"amdgcn:gfx90a,gfx1100,gfx908,gfx942", NULL, NULL}};
  for (unsigned jobs = 1; jobs <= 4; jobs += 3) {
    gpublob_result r = {(void *)1, 7};
    int rc = compile_list("examples/saxpy_amdgcn.ll", a, 1, 0, jobs, 0, &r);
    const char *msg = gpublob_error_message(g);
    char name[128];
    snprintf(name, sizeof name, "jobs: on %u thread%s, the first failing job in order is the error, and no output",
             jobs, jobs > 1 ? "s" : "");
    check(rc == GPUBLOB_NOLIB && contains(msg, "oclc_isa_version_942.bc") && !contains(msg, "1100") &&
              r.count == 0 && r.outputs == NULL,
          name, "rc %d: %s", rc, msg);
    rc = compile_list("examples/saxpy_amdgcn.ll", b, 1, 0, jobs, 0, &r);
    msg = gpublob_error_message(g);
    snprintf(name, sizeof name, "jobs: on %u thread%s, the other order reports the other chip", jobs, jobs > 1 ? "s" : "");
    check(rc == GPUBLOB_NOLIB && contains(msg, "oclc_isa_version_1100.bc") && r.count == 0, name, "rc %d: %s", rc, msg);
  }
  /* options are checked for every job before any work */
  const gpublob_target_choice bad[] = {{"amdgcn:gfx90a,gfx9999", NULL, NULL}};
  gpublob_result r = {0};
  int rc = compile_list("examples/saxpy_amdgcn.ll", bad, 1, 0, 2, 0, &r);
  gpublob_stats s;
  gpublob_stats_get(g, &s, sizeof s);
  check(rc == GPUBLOB_CHIP && contains(gpublob_error_message(g), "gfx9999") && s.optimise_ms == 0,
        "jobs: a bad chip in a list is CHIP before any job runs", "rc %d: %s", rc, gpublob_error_message(g));
  const gpublob_target_choice empty[] = {{"amdgcn:gfx90a,,gfx908", NULL, NULL}};
  rc = compile_list("examples/saxpy_amdgcn.ll", empty, 1, 0, 2, 0, &r);
  check(rc == GPUBLOB_CHIP && contains(gpublob_error_message(g), "empty chip"), "jobs: an empty chip in a list is CHIP",
        "rc %d", rc);
}

/* The CLI with a failing job: exit 10 + NOLIB, no output file, no temporary. */
static void test_cli_failure(void) {
  const char *dir = tmp_path("fail-out");
  char pattern[4300];
  snprintf(pattern, sizeof pattern, "%s/{chip}{suffix}", dir);
  const char *mk[] = {"mkdir", "-p", dir, NULL};
  run(mk, NULL);
  const char *argv[] = {"build/gpublob", "--no-cache", "-j", "2", "-t", "amdgcn:gfx90a,gfx908,gfx942",
                        "examples/saxpy_amdgcn.ll", "-o", pattern, NULL};
  char *log = NULL;
  int rc = run(argv, &log);
  check(rc == 10 + GPUBLOB_NOLIB && contains(log, "gpublob: error: ") && leftovers(dir, "") == 2,
        "cli: a failing job writes none of the outputs (only . and ..)", "rc %d, %d entries: %s", rc,
        leftovers(dir, ""), log);
  free(log);
  const char *ok[] = {"build/gpublob", "--no-cache", "-t", "amdgcn:gfx90a,gfx908", "-t", "spirv",
                      "examples/saxpy_amdgcn.ll", "-o", pattern, NULL};
  rc = run(ok, &log);
  check(rc == 10 + GPUBLOB_TARGET && contains(log, "target amdgcn"),
        "cli: an amdgcn kernel for spirv is TARGET, before any output", "rc %d: %s", rc, log);
  free(log);
  const char *two[] = {"build/gpublob", "--no-cache", "-t", "amdgcn:gfx90a,gfx908", "examples/saxpy_amdgcn.ll",
                       "-o", tmp_path("one-name.hsaco"), NULL};
  rc = run(two, &log);
  check(rc == 2 && contains(log, "give -o DIR/ or -o PATTERN") && !exists(tmp_path("one-name.hsaco")),
        "cli: two outputs and a plain -o FILE is a usage error, nothing written", "rc %d: %s", rc, log);
  free(log);
  char dirslash[4300];
  snprintf(dirslash, sizeof dirslash, "%s/", dir);
  const char *todir[] = {"build/gpublob", "--no-cache", "-t", "amdgcn:gfx90a,gfx908", "examples/saxpy_amdgcn.ll",
                         "-o", dirslash, NULL};
  rc = run(todir, &log);
  char p1[4400], p2[4400];
  snprintf(p1, sizeof p1, "%s/saxpy_amdgcn.amdgcn.gfx90a.hsaco", dir);
  snprintf(p2, sizeof p2, "%s/saxpy_amdgcn.amdgcn.gfx908.hsaco", dir);
  check(rc == 0 && exists(p1) && exists(p2), "cli: -o DIR/ names each output {stem}.{target}.{chip}{suffix}",
        "rc %d: %s", rc, log);
  free(log);
  const char *blocked = tmp_path("blocked");
  char busy[4400], first[4400], pat[4400];
  snprintf(busy, sizeof busy, "%s/gfx908", blocked);
  snprintf(first, sizeof first, "%s/gfx90a", blocked);
  snprintf(pat, sizeof pat, "%s/{chip}", blocked);
  const char *mkbusy[] = {"mkdir", "-p", busy, NULL};
  run(mkbusy, NULL);
  const char *onto[] = {"build/gpublob", "--no-cache", "-t", "amdgcn:gfx90a,gfx908", "examples/saxpy_amdgcn.ll",
                        "-o", pat, NULL};
  rc = run(onto, &log);
  check(rc == 10 + GPUBLOB_IO && contains(log, "is a directory") && !exists(first) && leftovers(blocked, "") == 3,
        "cli: an output that is a directory fails before any output is written", "rc %d: %s", rc, log);
  free(log);
}

/* ---- nvJitLink in-process and ptxas as a program: valid cubins, the same kernels ---- */
static void test_provider(void) {
  if (!have_ptxas()) {
    skip("provider: nvJitLink and ptxas give the same kernels", "CUDA toolkit not found");
    return;
  }
  gpublob_tool_info info;
  gpublob_options q = {.version = GPUBLOB_OPTIONS_VERSION, .target = "nvptx", .tool_mode = GPUBLOB_TOOL_INPROCESS};
  if (gpublob_tool_info_get(g, &q, 1, &info, sizeof info)) {
    skip("provider: nvJitLink and ptxas give the same kernels", "libnvJitLink not found in the CUDA toolkit");
    return;
  }
  const gpublob_target_choice list[] = {{"nvptx:sm_90", NULL, NULL}};
  gpublob_result prog = {0}, inproc = {0};
  int rc = compile_list("bench/kernels/matmul_nvptx.ll", list, 1, 0, 1, GPUBLOB_TOOL_PROGRAM, &prog);
  int rc2 = compile_list("bench/kernels/matmul_nvptx.ll", list, 1, 0, 1, GPUBLOB_TOOL_INPROCESS, &inproc);
  char *f1 = rc ? NULL : elf_functions(&prog.outputs[0].blob, "prog.cubin");
  char *f2 = rc2 ? NULL : elf_functions(&inproc.outputs[0].blob, "inproc.cubin");
  check(!rc && !rc2 && !strcmp(prog.outputs[0].tool, "ptxas") && !strcmp(inproc.outputs[0].tool, "nvjitlink") &&
            elf_machine(&prog.outputs[0].blob) == 190 && elf_machine(&inproc.outputs[0].blob) == 190 &&
            f1 && f2 && *f1 && !strcmp(f1, f2) && contains(f1, "matmul"),
        "provider: sm_90 cubins from ptxas and from nvJitLink in-process, both EM_CUDA, the same kernels",
        "rc %d %d, functions '%s' and '%s'", rc, rc2, f1, f2);
  free(f1);
  free(f2);
  gpublob_result_free(&prog);
  gpublob_result_free(&inproc);
  /* auto: the provider only for calls of provider_min (3) jobs or more */
  const gpublob_target_choice three[] = {{"nvptx:sm_80,sm_89,sm_90", NULL, NULL}};
  rc = compile_list("examples/saxpy_nvptx.ll", list, 1, 0, 0, 0, &prog);
  rc2 = compile_list("examples/saxpy_nvptx.ll", three, 1, 0, 0, 0, &inproc);
  check(!rc && !rc2 && !strcmp(prog.outputs[0].tool, "ptxas") && inproc.count == 3 &&
            !strcmp(inproc.outputs[2].tool, "nvjitlink") && elf_machine(&inproc.outputs[0].blob) == 190,
        "provider: auto runs ptxas for one job, nvJitLink for three", "rc %d %d", rc, rc2);
  gpublob_result_free(&prog);
  gpublob_result_free(&inproc);
  /* a library that does not load: auto warns and runs ptxas; in-process is NOTOOL */
  const char *dir = tmp_path("badlib");
  const char *mk[] = {"mkdir", "-p", dir, NULL};
  run(mk, NULL);
  char lib[4300];
  snprintf(lib, sizeof lib, "%s/libnvJitLink.so.13", dir);
  spill(lib, "not a library\n", 14);
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .targets = three, .ntargets = 1, .tool_dirs = dir};
  rc = gpublob_file_compile_all(g, &o, "examples/saxpy_nvptx.ll", &prog);
  check(!rc && prog.count == 3 && !strcmp(prog.outputs[0].tool, "ptxas") &&
            contains(gpublob_warnings(g), "did not load") && contains(gpublob_warnings(g), "running ptxas"),
        "provider: a library that does not load falls back to ptxas, with a warning", "rc %d: %s / %s", rc,
        gpublob_error_message(g), gpublob_warnings(g));
  gpublob_result_free(&prog);
  o.tool_mode = GPUBLOB_TOOL_INPROCESS;
  rc = gpublob_file_compile_all(g, &o, "examples/saxpy_nvptx.ll", &prog);
  check(rc == GPUBLOB_NOTOOL && contains(gpublob_error_message(g), "did not load"),
        "provider: in-process with a library that does not load is NOTOOL", "rc %d: %s", rc, gpublob_error_message(g));
}

/* ---- fatbin: a cubin per chip and the newest chip's PTX, as fatbinary packs them ---- */
typedef struct fat_entry {
  unsigned kind, arch; /* kind 1 PTX, 2 ELF */
  int elf;             /* the payload starts with an ELF header */
} fat_entry;

/* The entries of a fatbin: a 16-byte header (magic 0xBA55ED50), then entries, each a
** header (kind, version, header size, payload size, ..., sm arch at 0x1c) and payload. */
static int fat_entries(const gpublob_blob *b, fat_entry *e, int max) {
  uint32_t magic, hsize;
  uint64_t size;
  if (b->size < 16) return -1;
  memcpy(&magic, b->data, 4);
  hsize = b->data[6] | b->data[7] << 8;
  memcpy(&size, b->data + 8, 8);
  if (magic != 0xBA55ED50u || hsize + size > b->size) return -1;
  int n = 0;
  for (uint64_t off = hsize; off + 0x20 <= hsize + size && n < max; n++) {
    uint32_t ehs, arch;
    uint64_t psize;
    memcpy(&ehs, b->data + off + 4, 4);
    memcpy(&psize, b->data + off + 8, 8);
    memcpy(&arch, b->data + off + 0x1c, 4);
    e[n].kind = b->data[off] | b->data[off + 1] << 8;
    e[n].arch = arch;
    e[n].elf = off + ehs + 4 <= b->size && !memcmp(b->data + off + ehs, "\177ELF", 4);
    off += ehs + psize;
  }
  return n;
}

/* An entry of this kind (1 PTX, 2 ELF, whose payload is an ELF header) for arch. */
static int has_entry(const fat_entry *e, int n, unsigned kind, unsigned arch) {
  for (int i = 0; i < n; i++)
    if (e[i].kind == kind && e[i].arch == arch && (kind != 2 || e[i].elf)) return 1;
  return 0;
}

static void test_fatbin(void) {
  gpublob_result r = {0};
  const gpublob_target_choice amd[] = {{"amdgcn:gfx90a", NULL, NULL}};
  int rc = compile_list("examples/saxpy_amdgcn.ll", amd, 1, GPUBLOB_FORMAT_FATBIN, 0, 0, &r);
  check(rc == GPUBLOB_FORMAT && contains(gpublob_error_message(g), "no fatbin"),
        "fatbin: a target whose spec has no pack step is FORMAT", "rc %d", rc);
  if (!have_ptxas()) {
    skip("fatbin: a cubin per chip and the newest chip's PTX", "CUDA toolkit not found");
    return;
  }
  const gpublob_target_choice nv[] = {{"nvptx:sm_90,sm_80", NULL, NULL}, {"nvptx:sm_89", NULL, NULL}};
  rc = compile_list("examples/saxpy_nvptx.ll", nv, 2, GPUBLOB_FORMAT_FATBIN, 0, 0, &r);
  fat_entry e[8];
  int n = rc || r.count != 2 ? -1 : fat_entries(&r.outputs[0].blob, e, 8);
  check(n == 3 && has_entry(e, n, 2, 90) && has_entry(e, n, 2, 80) && has_entry(e, n, 1, 90) &&
            !has_entry(e, n, 1, 80) && !strcmp(r.outputs[0].chip, "sm_90,sm_80") &&
            !strcmp(r.outputs[0].blob.suffix, ".fatbin") && !strcmp(r.outputs[0].tool, "fatbinary"),
        "fatbin: one per target choice: ELF sm_90, ELF sm_80, and only the newest's PTX (sm_90)", "rc %d, %d entries", rc,
        n);
  n = rc || r.count != 2 ? -1 : fat_entries(&r.outputs[1].blob, e, 8);
  check(n == 2 && has_entry(e, n, 2, 89) && has_entry(e, n, 1, 89),
        "fatbin: a single chip packs its cubin and its PTX", "%d entries", n);
  gpublob_result_free(&r);
  /* the CLI: -f fatbin gives one file */
  const char *out = tmp_path("saxpy.fatbin");
  const char *argv[] = {"build/gpublob", "--no-cache", "-f", "fatbin", "-t", "nvptx:sm_80,sm_90",
                        "examples/saxpy_nvptx.ll", "-o", out, NULL};
  char *log = NULL;
  rc = run(argv, &log);
  size_t size = 0;
  unsigned char *data = slurp(out, &size);
  gpublob_blob b = {data, size, NULL};
  n = data ? fat_entries(&b, e, 8) : -1;
  check(rc == 0 && n == 3 && has_entry(e, n, 1, 90) && has_entry(e, n, 2, 80), "cli: -f fatbin -t nvptx:sm_80,sm_90 writes one fatbin",
        "rc %d, %d entries: %s", rc, n, log);
  free(data);
  free(log);
}

int main(void) {
  if (gpublob_open(&g)) return 2;
  test_order();
  test_deterministic();
  test_failure();
  test_cli_failure();
  test_provider();
  test_fatbin();
  gpublob_close(g);
  return report();
}
