/* test_jobs: many (target, chip) jobs in one call on the pool: outputs in plan
** order and byte-identical whatever the thread count; the first failure in that
** order is the call's, and nothing is written; nvJitLink in-process and ptxas give
** valid cubins with the same kernels; -f fatbin packs a cubin per chip and the
** newest chip's PTX (read back entry by entry); SPIR-V, whose backend keeps state in
** the process, the same in many calls and many jobs. */
#define _DEFAULT_SOURCE
#include <elf.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* These checks call the 1.0 calls too (gpublob_module_compile and the like), which
** stay supported: without their deprecation warnings. */
#define GPUBLOB_DISABLE_DEPRECATE_WARNINGS
#include "gpublob.h"
#include "testlib.h"

#define READELF LLVM_BINDIR "/llvm-readelf"

static gpublob *g;

static unsigned elf_machine(const gpublob_blob *b) { return elf_machine_of(b->data, b->size); }

static int compile_list(const char *path, const gpublob_target_choice *list, size_t n, int format,
                        unsigned jobs, int tool_mode, gpublob_result *r) {
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .targets = list, .ntargets = n,
                       .format = format, .jobs = jobs, .tool_mode = tool_mode};
  int rc = gpublob_file_compile_all(g, &o, path, r);
  if (rc) printf("  (%s)\n", gpublob_error_message(g));
  return rc;
}

/* NULL when a and b have the same count, labels and bytes; else the first difference. */
static const char *differs(const gpublob_result *a, const gpublob_result *b) {
  static char why[160];
  if (a->count != b->count) {
    snprintf(why, sizeof why, "%zu outputs against %zu", a->count, b->count);
    return why;
  }
  for (size_t i = 0; i < a->count; i++) {
    const gpublob_output *x = &a->outputs[i], *y = &b->outputs[i];
    if (strcmp(x->target, y->target) || strcmp(x->chip, y->chip) || strcmp(x->tool, y->tool) ||
        x->blob.size != y->blob.size || memcmp(x->blob.data, y->blob.data, x->blob.size)) {
      snprintf(why, sizeof why, "output %zu: %s %s %s, %zu bytes against %s %s %s, %zu bytes", i, x->target, x->chip,
               x->tool, x->blob.size, y->target, y->chip, y->tool, y->blob.size);
      return why;
    }
  }
  return NULL;
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
#define ORDER "jobs: a chip list and a second target give an hsaco each, in the order asked"
  check(rc == 0, ORDER ": compiles", "rc %d: %s", rc, gpublob_error_message(g));
  check(r.count == 3, ORDER ": 3 outputs", "%zu outputs", r.count);
  for (size_t i = 0; i < 3; i++) {
    const gpublob_output *x = i < r.count ? &r.outputs[i] : NULL;
    char label[200];
    snprintf(label, sizeof label, ORDER ": output %zu: target amdgcn", i);
    check_if(x, same_str(x->target, "amdgcn"), label, "target %s", x->target);
    snprintf(label, sizeof label, ORDER ": output %zu: chip %s", i, want[i]);
    check_if(x, same_str(x->chip, want[i]), label, "chip %s", x->chip);
    snprintf(label, sizeof label, ORDER ": output %zu: e_machine EM_AMDGPU", i);
    check_if(x, elf_machine(&x->blob) == EM_AMDGPU, label, "e_machine %u", elf_machine(&x->blob));
    snprintf(label, sizeof label, ORDER ": output %zu: suffix .hsaco", i);
    check_if(x, same_str(x->blob.suffix, ".hsaco"), label, "suffix %s", x->blob.suffix);
    snprintf(label, sizeof label, ORDER ": output %zu: made by auto's tool (ld.lld, or lld in-process)", i);
    check_if(x, same_str(x->tool, auto_tool("amdgcn")), label, "tool %s", x->tool);
  }
#undef ORDER
  gpublob_stats s;
  gpublob_stats_get(g, &s, sizeof s);
  check(s.jobs == 3, "jobs: the figures count 3 jobs on 2 threads: 3 jobs", "%zu jobs", s.jobs);
  check(s.threads == 2, "jobs: the figures count 3 jobs on 2 threads: 2 threads", "%zu threads", s.threads);
  check(s.optimise_ms > 0, "jobs: the figures count 3 jobs on 2 threads: optimise time", "%g ms", s.optimise_ms);
  check(s.wall_ms > 0, "jobs: the figures count 3 jobs on 2 threads: wall time", "%g ms", s.wall_ms);
  gpublob_result_free(&r);
  gpublob_blob b = {0};
  gpublob_options one = {.version = GPUBLOB_OPTIONS_VERSION, .target = "amdgcn:gfx90a,gfx908"};
  rc = gpublob_file_compile(g, &one, "examples/saxpy_amdgcn.ll", &b);
  check(rc == GPUBLOB_OPTION, "jobs: the one-blob call refuses two chips, pointing to _all", "rc %d", rc);
  check(contains(gpublob_error_message(g), "gpublob_module_compile_all"),
        "jobs: the one-blob call refuses two chips, pointing to _all: the message names it", "%s",
        gpublob_error_message(g));
  check(!b.data, "jobs: the one-blob call refuses two chips, pointing to _all: no blob", "a blob of %zu bytes", b.size);
  gpublob_blob_free(&b);
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
  const char *det = cuda ? "jobs: 4 nvptx chips on 1, 4 and 3 threads: the same outputs, byte for byte, in order"
                         : "jobs: 4 amdgcn chips on 1, 4 and 3 threads: the same outputs, byte for byte, in order";
  char label[200];
  snprintf(label, sizeof label, "%s: 1 thread compiles", det);
  check(rc == 0, label, "rc %d", rc);
  snprintf(label, sizeof label, "%s: 4 threads compile", det);
  check(rc2 == 0, label, "rc %d", rc2);
  snprintf(label, sizeof label, "%s: 3 threads compile", det);
  check(rc3 == 0, label, "rc %d", rc3);
  snprintf(label, sizeof label, "%s: 4 outputs", det);
  check(serial.count == 4, label, "%zu outputs", serial.count);
  const char *d;
  snprintf(label, sizeof label, "%s: 1 and 4 threads", det);
  d = differs(&serial, &par);
  check(!d, label, "%s", d);
  snprintf(label, sizeof label, "%s: 4 and 3 threads", det);
  d = differs(&par, &again);
  check(!d, label, "%s", d);
  gpublob_result_free(&serial);
  gpublob_result_free(&par);
  gpublob_result_free(&again);
  /* amdgcn too, when nvptx was the case above */
  if (!cuda) return;
  rc = compile_list("examples/saxpy_amdgcn.ll", amd, 1, 0, 1, 0, &serial);
  rc2 = compile_list("examples/saxpy_amdgcn.ll", amd, 1, 0, 4, 0, &par);
#define AMD "jobs: 4 amdgcn chips on 1 and 4 threads: the same outputs, byte for byte"
  check(rc == 0, AMD ": 1 thread compiles", "rc %d", rc);
  check(rc2 == 0, AMD ": 4 threads compile", "rc %d", rc2);
  check(serial.count == 4, AMD ": 4 outputs", "%zu outputs", serial.count);
  d = differs(&serial, &par);
  check(!d, AMD, "%s", d);
#undef AMD
  gpublob_result_free(&serial);
  gpublob_result_free(&par);
}

/* ---- a backend that keeps state in the process: SPIR-V, isolated always ---- */
/* LLVM 22's SPIR-V backend keeps one module's state in the process for the next (a
** global, SPIRVModuleAnalysis::MAI): run in one process, about one module in twenty
** came out invalid (an id defined twice) and a reused target machine crashed.  The
** spec isolates its jobs (isolate = always): many calls in this process, one after
** another and eight jobs at once, give the one module a fresh process gives, and
** spirv-val passes it. */
static const char spirv_two[] = "target triple = \"spirv64-unknown-unknown\"\n"
                                "define spir_kernel void @twice(ptr addrspace(1) %p, i32 %n) {\n"
                                "  %v = mul i32 %n, 2\n"
                                "  store i32 %v, ptr addrspace(1) %p\n"
                                "  ret void\n"
                                "}\n";

static void test_spirv_state(void) {
  const gpublob_target_choice one[] = {{"spirv", NULL, NULL}};
  gpublob_result first = {0}, r = {0};
  int rc = compile_list("examples/saxpy_spirv.ll", one, 1, 0, 1, 0, &first), same = 0, calls = 40;
  check(rc == 0 && first.count == 1, "spirv: saxpy compiles", "rc %d", rc);
  gpublob_options o2 = {.version = GPUBLOB_OPTIONS_VERSION, .target = "spirv"};
  for (int i = 0; i < calls && !rc; i++) {
    gpublob_result other = {0}; /* another module between, as a JIT's calls come */
    gpublob_input in = {.kind = GPUBLOB_INPUT_LLVM, .data = spirv_two, .size = sizeof spirv_two - 1, .name = "two.ll"};
    if (gpublob_compile(g, &o2, &in, &other)) rc = -1;
    gpublob_result_free(&other);
    if (compile_list("examples/saxpy_spirv.ll", one, 1, 0, 1, 0, &r)) rc = -1;
    same += !rc && !differs(&first, &r);
    gpublob_result_free(&r);
  }
  check(same == calls, "spirv: 40 more calls in this process, each after another module, give saxpy's first "
        "SPIR-V, byte for byte", "%d of %d the same (rc %d)", same, calls, rc);
  gpublob_target_choice eight[8];
  for (size_t i = 0; i < 8; i++) eight[i] = one[0];
  rc = compile_list("examples/saxpy_spirv.ll", eight, 8, 0, 4, 0, &r);
  same = 0;
  for (size_t i = 0; !rc && i < r.count && first.count; i++)
    same += r.outputs[i].blob.size == first.outputs[0].blob.size &&
            !memcmp(r.outputs[i].blob.data, first.outputs[0].blob.data, first.outputs[0].blob.size);
  check(rc == 0 && same == 8, "spirv: 8 jobs on 4 threads in one call give saxpy's SPIR-V, each", "rc %d: %d of 8",
        rc, same);
  gpublob_result_free(&r);
  if (!have_program(SPIRV_VAL)) {
    skip("spirv: spirv-val passes the SPIR-V", "no spirv-val (spirv-tools)");
  } else if (first.count) {
    const char *path = tmp_path("state.spv");
    spill(path, first.outputs[0].blob.data, first.outputs[0].blob.size);
    const char *argv[] = {SPIRV_VAL, path, NULL};
    char *out = NULL;
    int ran = run(argv, &out);
    check(ran == 0, "spirv: spirv-val passes the SPIR-V", "exit %d: %s", ran, shown(out));
    free(out);
  }
  gpublob_result_free(&first);
}

/* ---- a failing job fails the call with its own message; the first in order wins ---- */
/* Inline asm of an instruction gfx9's matrix cores have and gfx10 and gfx11 lack: the
** backend reports it for those chips only, in the pool (BACKEND), the others pass. */
static const char mai_asm[] =
    "target triple = \"amdgcn-amd-amdhsa\"\n"
    "define amdgpu_kernel void @k() {\n"
    "  call void asm sideeffect \"v_accvgpr_write_b32 a0, 0\", \"\"()\n"
    "  ret void\n"
    "}\n";

static void test_failure(void) {
  const char *mai = tmp_path("mai.ll");
  spill(mai, mai_asm, sizeof mai_asm - 1);
  const gpublob_target_choice a[] = {{"amdgcn:gfx90a,gfx1030,gfx908,gfx1100", NULL, NULL}};
  const gpublob_target_choice b[] = {{"amdgcn:gfx90a,gfx1100,gfx908,gfx1030", NULL, NULL}};
  for (unsigned jobs = 1; jobs <= 4; jobs += 3) {
    gpublob_result r = {(void *)1, 7};
    int rc = compile_list(mai, a, 1, 0, jobs, 0, &r);
    const char *msg = gpublob_error_message(g);
    char name[128];
    snprintf(name, sizeof name, "jobs: on %u thread%s, the first failing job in order is the error, and no output",
             jobs, jobs > 1 ? "s" : "");
    char label[300];
    snprintf(label, sizeof label, "%s: BACKEND", name);
    check(rc == GPUBLOB_BACKEND, label, "rc %d: %s", rc, msg);
    snprintf(label, sizeof label, "%s: the message names gfx1030 and the instruction", name);
    check(contains(msg, "amdgcn:gfx1030") && contains(msg, "not supported on this GPU"), label, "%s", msg);
    snprintf(label, sizeof label, "%s: the message does not name gfx1100", name);
    check(lacks(msg, "1100"), label, "%s", msg);
    snprintf(label, sizeof label, "%s: no output counted", name);
    check(r.count == 0, label, "%zu outputs", r.count);
    snprintf(label, sizeof label, "%s: no outputs", name);
    check(r.outputs == NULL, label, "outputs %p", (void *)r.outputs);
    rc = compile_list(mai, b, 1, 0, jobs, 0, &r);
    msg = gpublob_error_message(g);
    snprintf(name, sizeof name, "jobs: on %u thread%s, the other order reports the other chip", jobs, jobs > 1 ? "s" : "");
    snprintf(label, sizeof label, "%s: BACKEND", name);
    check(rc == GPUBLOB_BACKEND, label, "rc %d: %s", rc, msg);
    check(contains(msg, "amdgcn:gfx1100") && lacks(msg, "1030"), name, "%s", msg);
    snprintf(label, sizeof label, "%s: no output", name);
    check(r.count == 0, label, "%zu outputs", r.count);
  }
  /* options are checked for every job before any work */
  const gpublob_target_choice bad[] = {{"amdgcn:gfx90a,gfx9999", NULL, NULL}};
  gpublob_result r = {0};
  int rc = compile_list("examples/saxpy_amdgcn.ll", bad, 1, 0, 2, 0, &r);
  gpublob_stats s;
  gpublob_stats_get(g, &s, sizeof s);
  check(rc == GPUBLOB_CHIP, "jobs: a bad chip in a list is CHIP before any job runs", "rc %d: %s", rc,
        gpublob_error_message(g));
  check(contains(gpublob_error_message(g), "gfx9999"), "jobs: a bad chip in a list is CHIP before any job runs: "
        "the message names gfx9999", "%s", gpublob_error_message(g));
  check(s.optimise_ms == 0, "jobs: a bad chip in a list is CHIP before any job runs: nothing optimised", "%g ms",
        s.optimise_ms);
  const gpublob_target_choice empty[] = {{"amdgcn:gfx90a,,gfx908", NULL, NULL}};
  rc = compile_list("examples/saxpy_amdgcn.ll", empty, 1, 0, 2, 0, &r);
  check(rc == GPUBLOB_CHIP, "jobs: an empty chip in a list is CHIP", "rc %d", rc);
  check(contains(gpublob_error_message(g), "empty chip"), "jobs: an empty chip in a list is CHIP: the message says so",
        "%s", gpublob_error_message(g));
}

/* The CLI with a failing job: exit 10 + BACKEND, no output file, no temporary. */
static void test_cli_failure(void) {
  const char *dir = tmp_path("fail-out");
  char pattern[4300];
  snprintf(pattern, sizeof pattern, "%s/{chip}{suffix}", dir);
  const char *mk[] = {"mkdir", "-p", dir, NULL};
  run(mk, NULL);
  const char *mai = tmp_path("mai-cli.ll");
  spill(mai, mai_asm, sizeof mai_asm - 1);
  const char *argv[] = {"build/gpublob", "--no-cache", "-j", "2", "-t", "amdgcn:gfx90a,gfx908,gfx1100",
                        mai, "-o", pattern, NULL};
  char *log = NULL;
  int rc = run(argv, &log);
  check(rc == 10 + GPUBLOB_BACKEND, "cli: a failing job writes none of the outputs: exit 10 + BACKEND", "rc %d: %s", rc,
        log);
  check(contains(log, "gpublob: error: "), "cli: a failing job writes none of the outputs: an error", "%s", log);
  check(leftovers(dir, "") == 2, "cli: a failing job writes none of the outputs (only . and ..)", "%d entries",
        leftovers(dir, ""));
  free(log);
  const char *ok[] = {"build/gpublob", "--no-cache", "-t", "amdgcn:gfx90a,gfx908", "-t", "spirv",
                      "examples/saxpy_amdgcn.ll", "-o", pattern, NULL};
  rc = run(ok, &log);
  check(rc == 10 + GPUBLOB_TARGET, "cli: an amdgcn kernel for spirv is TARGET, before any output", "rc %d: %s", rc,
        log);
  check(contains(log, "target amdgcn"), "cli: an amdgcn kernel for spirv is TARGET: the message names target amdgcn",
        "%s", log);
  free(log);
  const char *two[] = {"build/gpublob", "--no-cache", "-t", "amdgcn:gfx90a,gfx908", "examples/saxpy_amdgcn.ll",
                       "-o", tmp_path("one-name.hsaco"), NULL};
  rc = run(two, &log);
#define TWO "cli: two outputs and a plain -o FILE is a usage error, nothing written"
  check(rc == 2, TWO ": exit 2", "rc %d: %s", rc, log);
  check(contains(log, "give -o DIR/ or -o PATTERN"), TWO ": the message says what to give", "%s", log);
  check(!exists(tmp_path("one-name.hsaco")), TWO ": nothing written", "one-name.hsaco is there");
#undef TWO
  free(log);
  char dirslash[4300];
  snprintf(dirslash, sizeof dirslash, "%s/", dir);
  const char *todir[] = {"build/gpublob", "--no-cache", "-t", "amdgcn:gfx90a,gfx908", "examples/saxpy_amdgcn.ll",
                         "-o", dirslash, NULL};
  rc = run(todir, &log);
  char p1[4400], p2[4400];
  snprintf(p1, sizeof p1, "%s/saxpy_amdgcn.amdgcn.gfx90a.hsaco", dir);
  snprintf(p2, sizeof p2, "%s/saxpy_amdgcn.amdgcn.gfx908.hsaco", dir);
#define TODIR "cli: -o DIR/ names each output {stem}.{target}.{chip}{suffix}"
  check(rc == 0, TODIR ": exit 0", "rc %d: %s", rc, log);
  check(exists(p1), TODIR ": the gfx90a output", "no %s", p1);
  check(exists(p2), TODIR ": the gfx908 output", "no %s", p2);
#undef TODIR
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
#define ONTO "cli: an output that is a directory fails before any output is written"
  check(rc == 10 + GPUBLOB_IO, ONTO ": exit 10 + IO", "rc %d: %s", rc, log);
  check(contains(log, "is a directory"), ONTO ": the message says it is a directory", "%s", log);
  check(!exists(first), ONTO, "%s is there", first);
  check(leftovers(blocked, "") == 3, ONTO ": nothing else (only ., .. and the directory)", "%d entries",
        leftovers(blocked, ""));
#undef ONTO
  free(log);
}

/* ---- nvJitLink in-process and ptxas as a program: valid cubins, the same kernels ---- */
/* A scratch directory (name) holding libnvJitLink.so.13: a link to real_lib, or, with
** real_lib NULL, a file that is no library.  The directory's path (tmp_path's ring). */
static const char *dir_with_nvjitlink(const char *name, const char *real_lib) {
  const char *dir = tmp_path(name);
  const char *mk[] = {"mkdir", "-p", dir, NULL};
  run(mk, NULL);
  char lib[4400];
  snprintf(lib, sizeof lib, "%s/libnvJitLink.so.13", dir);
  unlink(lib);
  int made = real_lib ? symlink(real_lib, lib) : spill(lib, "not a library\n", 14);
  check(made == 0, "a directory with libnvJitLink.so.13 alone", "%s", lib);
  return dir;
}

/* The directory of the nvptx target's device library (libdevice), found as a compile
** finds it, into dir; 0, or -1 when it is not found. */
static int libdevice_dir(char *dir, size_t n) {
  gpublob_options q = {.version = GPUBLOB_OPTIONS_VERSION, .target = "nvptx"};
  const char *paths = NULL;
  if (gpublob_libs_find(g, &q, &paths) || !paths || !*paths) return -1;
  snprintf(dir, n, "%.*s", (int)strcspn(paths, "\n"), paths);
  char *slash = strrchr(dir, '/');
  if (slash) *slash = 0;
  return 0;
}

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
#define PROV "provider: sm_90 cubins from ptxas and from nvJitLink in-process, both EM_CUDA, the same kernels"
  const gpublob_output *p0 = prog.count > 0 ? &prog.outputs[0] : NULL, *i0 = inproc.count > 0 ? &inproc.outputs[0] : NULL;
  check(rc == 0, PROV ": ptxas compiles", "rc %d", rc);
  check(rc2 == 0, PROV ": nvJitLink compiles", "rc %d", rc2);
  check_if(p0, same_str(p0->tool, "ptxas"), PROV ": the program is ptxas", "tool %s", p0->tool);
  check_if(i0, same_str(i0->tool, "nvjitlink"), PROV ": in-process is nvjitlink", "tool %s", i0->tool);
  check_if(p0, elf_machine(&p0->blob) == EM_CUDA, PROV ": ptxas's is EM_CUDA", "e_machine %u", elf_machine(&p0->blob));
  check_if(i0, elf_machine(&i0->blob) == EM_CUDA, PROV ": nvJitLink's is EM_CUDA", "e_machine %u",
           elf_machine(&i0->blob));
  check(f1 && *f1, PROV ": ptxas's has kernels", "functions '%s'", f1 ? f1 : "(none read)");
  check(f2 != NULL, PROV ": nvJitLink's functions are read", "rc %d", rc2);
  check(same_str(f1, f2), PROV, "functions '%s' and '%s'", shown(f1), shown(f2));
  check(contains(f1, "matmul"), PROV ": matmul among them", "functions '%s'", shown(f1));
#undef PROV
  free(f1);
  free(f2);
  gpublob_result_free(&prog);
  gpublob_result_free(&inproc);
  /* auto runs the program whatever the call's size: a job's blob is its own */
  const gpublob_target_choice three[] = {{"nvptx:sm_80,sm_89,sm_90", NULL, NULL}};
  rc = compile_list("examples/saxpy_nvptx.ll", list, 1, 0, 0, 0, &prog);
  rc2 = compile_list("examples/saxpy_nvptx.ll", three, 1, 0, 0, 0, &inproc);
#define AUTO "provider: auto runs ptxas for one job and for three"
  check(rc == 0, AUTO ": one job compiles", "rc %d", rc);
  check(rc2 == 0, AUTO ": three jobs compile", "rc %d", rc2);
  check_if(prog.count > 0, same_str(prog.outputs[0].tool, "ptxas"), AUTO ": one job: ptxas", "tool %s",
           prog.outputs[0].tool);
  check(inproc.count == 3, AUTO ": three outputs", "%zu outputs", inproc.count);
  for (size_t i = 0; i < inproc.count; i++)
    check(same_str(inproc.outputs[i].tool, "ptxas"), AUTO ": three jobs: ptxas", "output %zu: tool %s", i,
          inproc.outputs[i].tool);
  check_if(inproc.count > 0, elf_machine(&inproc.outputs[0].blob) == EM_CUDA, AUTO ": EM_CUDA", "e_machine %u",
           elf_machine(&inproc.outputs[0].blob));
#undef AUTO
  gpublob_result_free(&prog);
  gpublob_result_free(&inproc);
  /* a library that does not load: auto never loads it while ptxas is there; in-process is NOTOOL */
  const char *dir = dir_with_nvjitlink("badlib", NULL);
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .targets = three, .ntargets = 1, .tool_dirs = dir};
  rc = gpublob_file_compile_all(g, &o, "examples/saxpy_nvptx.ll", &prog);
#define BADLIB "provider: a library that does not load is not touched by auto, which runs ptxas"
  check(rc == 0, BADLIB ": compiles", "rc %d: %s", rc, gpublob_error_message(g));
  check(prog.count == 3, BADLIB ": three outputs", "%zu outputs", prog.count);
  check_if(prog.count > 0, same_str(prog.outputs[0].tool, "ptxas"), BADLIB, "tool %s", prog.outputs[0].tool);
  check(!contains(gpublob_warnings(g), "did not load"), BADLIB ": no warning", "%s", gpublob_warnings(g));
#undef BADLIB
  gpublob_result_free(&prog);
  o.tool_mode = GPUBLOB_TOOL_INPROCESS;
  rc = gpublob_file_compile_all(g, &o, "examples/saxpy_nvptx.ll", &prog);
  check(rc == GPUBLOB_NOTOOL, "provider: in-process with a library that does not load is NOTOOL", "rc %d: %s", rc,
        gpublob_error_message(g));
  check(contains(gpublob_error_message(g), "did not load"),
        "provider: in-process with a library that does not load is NOTOOL: the message says so", "%s",
        gpublob_error_message(g));
  check(prog.count == 0, "provider: in-process with a library that does not load: no output (its load, on a "
        "thread of its own, fails every job at its blob tool)", "%zu outputs", prog.count);
  gpublob_result_free(&prog);
}

/* ---- a job's blob is its own: the same bytes alone and among 15 other jobs ---- */
/* amdgcn: one thread runs six jobs of two chips (its target machines kept across
** them); each blob is the bytes of that chip's job alone. */
static void own_blob_amdgcn(void) {
  if (!need_rocm("own blob: saxpy (expf from ocml) for six gfx90a/gfx942 jobs")) return;
  const gpublob_target_choice six[] = {{"amdgcn:gfx90a,gfx942,gfx90a,gfx942,gfx90a,gfx942", NULL, NULL}};
  const gpublob_target_choice a90[] = {{"amdgcn:gfx90a", NULL, NULL}}, a942[] = {{"amdgcn:gfx942", NULL, NULL}};
  gpublob_result many = {0}, alone[2] = {{0}};
  int rc = compile_list("bench/kernels/matmul_amdgcn.ll", six, 1, 0, 1, 0, &many);
  rc |= compile_list("bench/kernels/matmul_amdgcn.ll", a90, 1, 0, 1, 0, &alone[0]);
  rc |= compile_list("bench/kernels/matmul_amdgcn.ll", a942, 1, 0, 1, 0, &alone[1]);
#define OWN "own blob: matmul for gfx90a and gfx942, each alone and three times over on one thread, the same bytes"
  check(rc == 0, OWN ": all compile", "rc %d", rc);
  check(many.count == 6, OWN ": 6 outputs", "%zu outputs", many.count);
  for (size_t i = 0; !rc && i < many.count; i++) {
    const gpublob_blob *a = &alone[i % 2].outputs[0].blob, *b = &many.outputs[i].blob;
    check(a->size == b->size && !memcmp(a->data, b->data, a->size), OWN, "output %zu (%s): %zu bytes against %zu", i,
          many.outputs[i].chip, b->size, a->size);
  }
#undef OWN
  /* an isolated job shares no library subset with the others: its own, the same bytes */
  gpublob_result iso = {0};
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .targets = six, .ntargets = 1, .jobs = 2,
                       .flags = GPUBLOB_FLAG_ISOLATE};
  rc = gpublob_file_compile_all(g, &o, "examples/saxpy_amdgcn.ll", &iso);
  gpublob_result_free(&many);
  rc |= compile_list("examples/saxpy_amdgcn.ll", six, 1, 0, 2, 0, &many);
  const char *d = rc ? "a compile failed" : differs(&iso, &many);
  check(!d, "own blob: saxpy (expf from ocml) for six gfx90a/gfx942 jobs: isolated and sharing the call's "
            "library subsets, the same bytes", "%s", d);
  gpublob_result_free(&iso);
  gpublob_result_free(&many);
  gpublob_result_free(&alone[0]);
  gpublob_result_free(&alone[1]);
}

static void test_own_blob(void) {
  own_blob_amdgcn();
  if (!have_ptxas()) {
    skip("own blob: a job alone and in a call of 16 give the same bytes", "CUDA toolkit not found");
    return;
  }
  const gpublob_target_choice one[] = {{"nvptx:sm_90", NULL, NULL}};
  char sixteen_chips[16 * 6 + 8] = "nvptx:";
  for (int i = 0; i < 16; i++) strcat(sixteen_chips, i ? ",sm_90" : "sm_90");
  const gpublob_target_choice sixteen[] = {{sixteen_chips, NULL, NULL}};
  gpublob_result alone = {0}, many = {0}, inproc = {0};
  int rc = compile_list("bench/kernels/matmul_nvptx.ll", one, 1, 0, 0, 0, &alone);
  int rc2 = compile_list("bench/kernels/matmul_nvptx.ll", sixteen, 1, 0, 2, 0, &many);
#define OWN "own blob: matmul for sm_90 alone and as each of 16 jobs of one call (auto) give the same bytes"
  check(rc == 0 && rc2 == 0, OWN ": both compile", "rc %d, %d", rc, rc2);
  check(many.count == 16, OWN ": 16 outputs", "%zu outputs", many.count);
  for (size_t i = 0; alone.count == 1 && i < many.count; i++) {
    const gpublob_blob *a = &alone.outputs[0].blob, *b = &many.outputs[i].blob;
    check(a->size == b->size && !memcmp(a->data, b->data, a->size), OWN, "output %zu: %zu bytes against %zu (%s, %s)",
          i, b->size, a->size, many.outputs[i].tool, alone.outputs[0].tool);
  }
#undef OWN
  /* what the test guards against: nvJitLink's cubin of the same PTX is other bytes */
  gpublob_tool_info info;
  gpublob_options q = {.version = GPUBLOB_OPTIONS_VERSION, .target = "nvptx", .tool_mode = GPUBLOB_TOOL_INPROCESS};
  if (gpublob_tool_info_get(g, &q, 1, &info, sizeof info)) {
    skip("own blob: nvJitLink's cubin differs from ptxas's", "libnvJitLink not found");
  } else {
    char nvjitlink[4300];
    snprintf(nvjitlink, sizeof nvjitlink, "%s", info.path);
    rc = compile_list("bench/kernels/matmul_nvptx.ll", one, 1, 0, 0, GPUBLOB_TOOL_INPROCESS, &inproc);
    check_if(rc == 0 && alone.count == 1 && inproc.count == 1,
             inproc.outputs[0].blob.size != alone.outputs[0].blob.size ||
                 memcmp(inproc.outputs[0].blob.data, alone.outputs[0].blob.data, alone.outputs[0].blob.size),
             "own blob: nvJitLink's cubin of the same module is other bytes (so a tool per call size would differ)",
             "rc %d", rc);
    gpublob_result_free(&inproc);
    /* auto without ptxas: nvJitLink stands in */
    char libdir[4300] = "";
    check(libdevice_dir(libdir, sizeof libdir) == 0, "own blob: libdevice is found", "nvptx's libraries: none");
    gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .targets = one, .ntargets = 1,
                         .tool_dirs = dir_with_nvjitlink("jitlink-only", nvjitlink), .lib_dirs = libdir,
                         .flags = GPUBLOB_FLAG_NO_DEFAULT_SEARCH};
    rc = gpublob_file_compile_all(g, &o, "examples/saxpy_nvptx.ll", &inproc);
    check(rc == 0, "own blob: auto without ptxas uses nvJitLink", "rc %d: %s", rc, gpublob_error_message(g));
    check_if(inproc.count == 1, same_str(inproc.outputs[0].tool, "nvjitlink"),
             "own blob: auto without ptxas uses nvJitLink: its tool", "tool %s", inproc.outputs[0].tool);
    gpublob_result_free(&inproc);
    /* and without either: NOTOOL naming both */
    o.tool_dirs = dir_with_nvjitlink("badlib-only", NULL);
    rc = gpublob_file_compile_all(g, &o, "examples/saxpy_nvptx.ll", &inproc);
    check(rc == GPUBLOB_NOTOOL, "own blob: auto with no ptxas and a library that does not load is NOTOOL", "rc %d",
          rc);
    check(contains(gpublob_error_message(g), "ptxas") && contains(gpublob_error_message(g), "did not load"),
          "own blob: the message names ptxas's places and why nvJitLink did not load", "%s",
          gpublob_error_message(g));
    gpublob_result_free(&inproc);
  }
  gpublob_result_free(&alone);
  gpublob_result_free(&many);
}

/* ---- fatbin: a cubin per chip and the newest chip's PTX, as fatbinary packs them ---- */
enum { FAT_PTX = 1, FAT_ELF = 2 }; /* a fatbin entry's kind */

typedef struct fat_entry {
  unsigned kind, arch; /* FAT_PTX or FAT_ELF */
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
    e[n].elf = off + ehs <= b->size && is_elf(b->data + off + ehs, b->size - off - ehs);
    off += ehs + psize;
  }
  return n;
}

/* An entry of this kind (FAT_PTX, or FAT_ELF whose payload is an ELF header) for arch. */
static int has_entry(const fat_entry *e, int n, unsigned kind, unsigned arch) {
  for (int i = 0; i < n; i++)
    if (e[i].kind == kind && e[i].arch == arch && (kind != FAT_ELF || e[i].elf)) return 1;
  return 0;
}

static void test_fatbin(void) {
  gpublob_result r = {0};
  const gpublob_target_choice spv[] = {{"spirv", NULL, NULL}};
  int rc = compile_list("examples/saxpy_spirv.ll", spv, 1, GPUBLOB_FORMAT_FATBIN, 0, 0, &r);
  check(rc == GPUBLOB_FORMAT, "fatbin: a target whose spec has no pack step is FORMAT", "rc %d", rc);
  check(contains(gpublob_error_message(g), "no fatbin"),
        "fatbin: a target whose spec has no pack step is FORMAT: the message says no fatbin", "%s",
        gpublob_error_message(g));
  if (!have_ptxas()) {
    skip("fatbin: a cubin per chip and the newest chip's PTX", "CUDA toolkit not found");
    return;
  }
  const gpublob_target_choice nv[] = {{"nvptx:sm_90,sm_80", NULL, NULL}, {"nvptx:sm_89", NULL, NULL}};
  rc = compile_list("examples/saxpy_nvptx.ll", nv, 2, GPUBLOB_FORMAT_FATBIN, 0, 0, &r);
  fat_entry e[8] = {{0}};
#define ONE "fatbin: one per target choice: ELF sm_90, ELF sm_80, and only the newest's PTX (sm_90)"
  check(rc == 0, ONE ": compiles", "rc %d: %s", rc, gpublob_error_message(g));
  check(r.count == 2, ONE ": two outputs", "%zu outputs", r.count);
  int n = rc || r.count != 2 ? -1 : fat_entries(&r.outputs[0].blob, e, 8);
  check(n == 3, ONE ": 3 entries", "%d entries", n);
  check(has_entry(e, n, FAT_ELF, 90), ONE ": ELF sm_90", "%d entries", n);
  check(has_entry(e, n, FAT_ELF, 80), ONE ": ELF sm_80", "%d entries", n);
  check(has_entry(e, n, FAT_PTX, 90), ONE ": PTX sm_90", "%d entries", n);
  check_if(n >= 0, !has_entry(e, n, FAT_PTX, 80), ONE ": no PTX sm_80", "%d entries", n);
  const gpublob_output *x = r.count > 0 ? &r.outputs[0] : NULL;
  check_if(x, same_str(x->chip, "sm_90,sm_80"), ONE ": chip sm_90,sm_80", "chip %s", x->chip);
  check_if(x, same_str(x->blob.suffix, ".fatbin"), ONE ": suffix .fatbin", "suffix %s", x->blob.suffix);
  check_if(x, same_str(x->tool, "fatbinary"), ONE ": made by fatbinary", "tool %s", x->tool);
#undef ONE
  n = rc || r.count != 2 ? -1 : fat_entries(&r.outputs[1].blob, e, 8);
  check(n == 2, "fatbin: a single chip packs its cubin and its PTX: 2 entries", "%d entries", n);
  check(has_entry(e, n, FAT_ELF, 89), "fatbin: a single chip packs its cubin and its PTX: ELF sm_89", "%d entries", n);
  check(has_entry(e, n, FAT_PTX, 89), "fatbin: a single chip packs its cubin and its PTX: PTX sm_89", "%d entries", n);
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
#define CLI_FAT "cli: -f fatbin -t nvptx:sm_80,sm_90 writes one fatbin"
  check(rc == 0, CLI_FAT ": exit 0", "rc %d: %s", rc, log);
  check(n == 3, CLI_FAT ": 3 entries", "%d entries", n);
  check(has_entry(e, n, FAT_PTX, 90), CLI_FAT ": PTX sm_90", "%d entries", n);
  check(has_entry(e, n, FAT_ELF, 80), CLI_FAT ": ELF sm_80", "%d entries", n);
#undef CLI_FAT
  free(data);
  free(log);
}

/* ---- a fork while a provider loads: the child's calls answer, and do not wait ---- */
/* A stand-in libnvJitLink.so.13 whose constructor marks a file and sleeps, so that a
** load is surely running when the test forks; it exports nothing, so the load fails. */
static const char slow_lib_source[] =
    "#include <stdio.h>\n#include <stdlib.h>\n#include <unistd.h>\n"
    "__attribute__((constructor)) static void slow(void) {\n"
    "  FILE *f = fopen(getenv(\"GPUBLOB_TEST_LOADING\"), \"w\");\n"
    "  if (f) fclose(f);\n  usleep(1500000);\n}\n";

typedef struct fork_call {
  gpublob_options o;
  int rc;
} fork_call;

static int compile_saxpy(const gpublob_options *o) {
  gpublob *h;
  gpublob_result r = {0};
  if (gpublob_open(&h)) return -1;
  int rc = gpublob_file_compile_all(h, o, "examples/saxpy_nvptx.ll", &r);
  if (rc == GPUBLOB_NOTOOL && !contains(gpublob_error_message(h), "did not load")) rc = -2;
  if (rc == GPUBLOB_NOTOOL && contains(gpublob_error_message(h), "cut short by a fork")) rc = 100;
  gpublob_result_free(&r);
  gpublob_close(h);
  return rc;
}

static void *fork_call_run(void *arg) {
  fork_call *c = arg;
  c->rc = compile_saxpy(&c->o);
  return NULL;
}

static void test_fork_while_loading(void) {
  char libdir[4300] = "", src[4400], lib[4400], cmd[9000];
  if (libdevice_dir(libdir, sizeof libdir)) {
    skip("fork while a provider loads", "libdevice not found (CUDA toolkit)");
    return;
  }
  const char *dir = tmp_path("slowlib"), *mark = tmp_path("slowlib-loading");
  snprintf(src, sizeof src, "%s.c", dir);
  snprintf(lib, sizeof lib, "%s/libnvJitLink.so.13", dir);
  snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cc -shared -fPIC -o '%s' '%s'", dir, lib, src);
  const char *sh[] = {"sh", "-c", cmd, NULL};
  if (spill(src, slow_lib_source, sizeof slow_lib_source - 1) || run(sh, NULL)) {
    skip("fork while a provider loads", "cannot build a shared library with cc");
    return;
  }
  setenv("GPUBLOB_TEST_LOADING", mark, 1);
  fork_call c = {.o = {.version = GPUBLOB_OPTIONS_VERSION, .target = "nvptx", .chip = "sm_80",
                       .tool_mode = GPUBLOB_TOOL_INPROCESS, .tool_dirs = dir, .lib_dirs = libdir,
                       .flags = GPUBLOB_FLAG_NO_DEFAULT_SEARCH}};
  pthread_t t;
  if (pthread_create(&t, NULL, fork_call_run, &c)) return;
  struct stat st;
  for (int i = 0; i < 2000 && stat(mark, &st); i++) usleep(5000); /* the load has begun */
  check(stat(mark, &st) == 0, "fork while a provider loads: the load began", "no %s", mark);
  pid_t pid = fork();
  if (pid == 0) { /* the child: no loader thread here; its calls must answer */
    alarm(30);
    _exit(compile_saxpy(&c.o) == 100 ? 0 : 1);
  }
  int status = 0;
  if (pid > 0) waitpid(pid, &status, 0);
  check(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
        "fork while a provider loads: the child's call is NOTOOL at once, saying the load was cut short by "
        "the fork (no wait for a loader it does not have)",
        "pid %d, status %#x", (int)pid, status);
  pthread_join(t, NULL);
  check(c.rc == GPUBLOB_NOTOOL, "fork while a provider loads: the parent's call ends, NOTOOL (the library "
        "exports nothing)", "rc %d", c.rc);
  unsetenv("GPUBLOB_TEST_LOADING");
}

int main(void) {
  if (gpublob_open(&g)) return 2;
  /* these compile saxpy_amdgcn.ll, whose expf is ocml's: ROCm's bitcode */
  int rocm = need_rocm("jobs: saxpy_amdgcn.ll's chips in order, byte for byte on 1 and 4 threads, the CLI's outputs");
  if (rocm) test_order();
  if (rocm) test_deterministic();
  test_failure();
  test_spirv_state();
  if (rocm) test_cli_failure();
  test_provider();
  test_own_blob();
  test_fatbin();
  test_fork_while_loading();
  gpublob_close(g);
  return report();
}
