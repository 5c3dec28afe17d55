/* test_limits: the options' limits (gpublob_options version 9; the CLI's --max-registers,
** --max-spills, --max-shared, --max-stack, --min-occupancy) on tests/clang's kernels as
** clang-22 writes them, for NVIDIA (sm_90; ptxas) and AMD (gfx90a).  For each limit
** and vendor, a kernel whose figure is above zero is compiled without limits for its
** figures, then with the limit at its figure (OK) and one under it (LIMIT, naming the
** kernel, its target, chip, figure and limit, and giving an empty result), each
** compiled and again from the cache (a hit).  Also: several kernels over (the first
** named, the others counted), MLIR's gpu.module named, compiled and from the cache,
** and the CLI (exit 32, no output file).  Parts whose tool is missing say skipped. */
#include "gpublob.h"
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLI "build/gpublob"
#define SRC "tests/clang/"
#define CLANG LLVM_BINDIR "/clang"

static gpublob *g;

/* The limit of one case: its bit, and where its value goes. */
typedef struct limit_case {
  unsigned bit;
  const char *what; /* as the message names it */
} limit_case;

static int compile_file(const char *path, int kind, const char *target, const char *cache, const gpublob_options *lim,
                        gpublob_result *r) {
  gpublob_options o = GPUBLOB_OPTIONS_INIT;
  if (lim) o = *lim;
  o.version = GPUBLOB_OPTIONS_VERSION;
  o.target = target;
  o.flags = GPUBLOB_FLAG_RETARGET;
  o.cache_dir = cache;
  gpublob_input in = {kind, NULL, 0, path, NULL};
  return gpublob_compile(g, &o, &in, r);
}

/* The first kernel of output 0; 0 when read. */
static int first_kernel(const gpublob_result *r, gpublob_kernel_info *k) {
  size_t n = 0;
  return gpublob_kernel_count(g, r, 0, &n) || !n || gpublob_kernel_get(g, r, 0, 0, k, sizeof *k);
}

/* The figure a limit reads (NVIDIA's spills are spill-store bytes, AMD's registers). */
static double figure_of(const gpublob_kernel_info *k, unsigned bit) {
  switch (bit) {
  case GPUBLOB_LIMIT_REGISTERS: return (double)k->registers;
  case GPUBLOB_LIMIT_SPILLS: return (double)(k->spill_store_bytes >= 0 ? k->spill_store_bytes : k->spills);
  case GPUBLOB_LIMIT_SHARED: return (double)k->shared_bytes;
  case GPUBLOB_LIMIT_STACK: return (double)k->local_bytes;
  default: return k->occupancy;
  }
}

/* lim with bit's limit at value. */
static void set_limit(gpublob_options *lim, unsigned bit, double value) {
  lim->limits = bit;
  switch (bit) {
  case GPUBLOB_LIMIT_REGISTERS: lim->max_registers = (unsigned long long)value; break;
  case GPUBLOB_LIMIT_SPILLS: lim->max_spills = (unsigned long long)value; break;
  case GPUBLOB_LIMIT_SHARED: lim->max_shared = (unsigned long long)value; break;
  case GPUBLOB_LIMIT_STACK: lim->max_stack = (unsigned long long)value; break;
  default: lim->min_occupancy = value;
  }
}

/* One limit of one kernel: at its figure and past it, compiled and from the cache. */
static void limit_case_run(const char *ll, const char *target, const char *chip, const char *kernel, unsigned bit,
                           const char *what, unsigned block_size) {
  char label[512], cache[4200];
  static int serial;
  snprintf(cache, sizeof cache, "%s/cache%d", scratch(), serial++);
  gpublob_options lim = GPUBLOB_OPTIONS_INIT;
  lim.block_size = block_size;
  gpublob_result r = {0};
  gpublob_kernel_info k;
  int rc = compile_file(ll, GPUBLOB_INPUT_LLVM, target, cache, &lim, &r); /* stored, for the hits below */
  snprintf(label, sizeof label, "%s %s: compiles without limits, its kernel read", target, kernel);
  int ok = rc == 0 && !first_kernel(&r, &k) && !strcmp(k.name, kernel);
  check(ok, label, "rc %d: %s", rc, gpublob_error_message(g));
  double fig = ok ? figure_of(&k, bit) : -1;
  gpublob_result_free(&r);
  snprintf(label, sizeof label, "%s %s: its %s is above the bound a limit can be put under", target, kernel, what);
  int above = bit == GPUBLOB_LIMIT_OCCUPANCY ? fig > 0 && fig < 1 : fig > 0;
  check(above, label, "%g", fig);
  if (!ok || !above) return;
  for (int from_cache = 0; from_cache < 2; from_cache++) {
    const char *where = from_cache ? "a cache hit" : "compiled";
    const char *dir = from_cache ? cache : NULL;
    set_limit(&lim, bit, fig);
    rc = compile_file(ll, GPUBLOB_INPUT_LLVM, target, dir, &lim, &r);
    gpublob_stats s;
    gpublob_stats_get(g, &s, sizeof s);
    snprintf(label, sizeof label, "%s %s: %s at the bound (%g) is OK (%s)", target, kernel, what, fig, where);
    check(rc == 0 && r.count == 1 && (!from_cache || s.cache_hits == 1), label, "rc %d, hits %zu: %s", rc,
          s.cache_hits, gpublob_error_message(g));
    gpublob_result_free(&r);
    set_limit(&lim, bit, bit == GPUBLOB_LIMIT_OCCUPANCY ? (fig + 1) / 2 : fig - 1);
    rc = compile_file(ll, GPUBLOB_INPUT_LLVM, target, dir, &lim, &r);
    gpublob_stats_get(g, &s, sizeof s);
    const char *msg = gpublob_error_message(g);
    char named[300];
    snprintf(named, sizeof named, "kernel %s (", kernel);
    snprintf(label, sizeof label, "%s %s: %s past the bound is LIMIT, naming kernel, target, chip (%s)", target,
             kernel, what, where);
    check(rc == GPUBLOB_LIMIT && contains(msg, named) && contains(msg, chip) && contains(msg, "over the limit of ") +
              contains(msg, "(min_occupancy, --min-occupancy)") == 1 && (!from_cache || s.cache_hits == 1),
          label, "rc %d, hits %zu: %s", rc, s.cache_hits, msg);
    snprintf(label, sizeof label, "%s %s: %s past the bound leaves the result empty (%s)", target, kernel, what, where);
    check(r.count == 0 && r.outputs == NULL, label, "%zu outputs", r.count);
    gpublob_result_free(&r);
  }
}

/* Two chips over one limit: the first kernel named, the other counted. */
static void several_over(const char *ll) {
  gpublob_options lim = GPUBLOB_OPTIONS_INIT;
  lim.limits = GPUBLOB_LIMIT_SPILLS; /* max_spills 0: none at all */
  gpublob_result r = {0};
  int rc = compile_file(ll, GPUBLOB_INPUT_LLVM, "nvptx:sm_80,sm_90", NULL, &lim, &r);
  const char *msg = gpublob_error_message(g);
  check(rc == GPUBLOB_LIMIT && contains(msg, "kernel spill_mix (nvptx sm_80)") &&
            contains(msg, "and 1 other kernel is over a limit"),
        "several kernels over: the first named, the others counted", "rc %d: %s", rc, msg);
  gpublob_result_free(&r);
}

/* MLIR: the gpu.module named, compiled and from the cache; the caller's module unchanged. */
static void mlir_case(void) {
  if (!gpublob_mlir_enabled()) {
    skip("mlir: a gpu.module over a limit", "built without MLIR");
    return;
  }
  char cache[4200];
  snprintf(cache, sizeof cache, "%s/mlircache", scratch());
  gpublob_result r = {0};
  int rc = compile_file("examples/saxpy.mlir", GPUBLOB_INPUT_MLIR, "amdgcn:gfx90a", cache, NULL, &r);
  check(rc == 0, "mlir: compiles without limits (stored)", "rc %d: %s", rc, gpublob_error_message(g));
  gpublob_result_free(&r);
  for (int from_cache = 0; from_cache < 2; from_cache++) {
    gpublob_options lim = GPUBLOB_OPTIONS_INIT;
    lim.limits = GPUBLOB_LIMIT_REGISTERS;
    lim.max_registers = 1;
    rc = compile_file("examples/saxpy.mlir", GPUBLOB_INPUT_MLIR, "amdgcn:gfx90a", from_cache ? cache : NULL, &lim, &r);
    gpublob_stats s;
    gpublob_stats_get(g, &s, sizeof s);
    const char *msg = gpublob_error_message(g);
    char label[200];
    snprintf(label, sizeof label, "mlir: a kernel over a limit is LIMIT naming its gpu.module (%s)",
             from_cache ? "a cache hit" : "compiled");
    check(rc == GPUBLOB_LIMIT && contains(msg, "gpu.module @kernels") && contains(msg, "kernel saxpy") &&
              contains(msg, "over the limit of 1 (max_registers, --max-registers)") && r.count == 0 && (!from_cache || s.cache_hits == 1),
          label, "rc %d, hits %zu: %s", rc, s.cache_hits, msg);
    gpublob_result_free(&r);
  }
}

/* The CLI: exit 10 + LIMIT and no file; at the bound the file is written. */
static void cli_case(const char *ll, const char *target, const char *flag, const char *over, const char *bound) {
  char out[4200], label[300];
  snprintf(out, sizeof out, "%s/cli_out.bin", scratch());
  remove(out);
  const char *argv_over[] = {CLI, "--no-cache", "--retarget", "-t", target, flag, over, ll, "-o", out, NULL};
  char *log = NULL;
  int rc = run(argv_over, &log);
  snprintf(label, sizeof label, "cli %s %s %s: exit 32 (LIMIT), nothing written", target, flag, over);
  check(rc == 10 + GPUBLOB_LIMIT && !exists(out) && contains(log, "gpublob: error: kernel "), label, "%d: %s", rc,
        shown(log));
  free(log);
  const char *argv_ok[] = {CLI, "--no-cache", "--retarget", "-t", target, flag, bound, ll, "-o", out, NULL};
  rc = run(argv_ok, &log);
  snprintf(label, sizeof label, "cli %s %s %s: at the bound, written", target, flag, bound);
  check(rc == 0 && exists(out), label, "%d: %s", rc, shown(log));
  free(log);
  /* a hit: the LLVM-free front says LIMIT itself, as the compiler does */
  char cache[4200];
  static int serial;
  snprintf(cache, sizeof cache, "%s/cli_cache%d", scratch(), serial++);
  remove(out);
  const char *store[] = {CLI, "--cache-dir", cache, "--retarget", "-t", target, ll, "-o", out, NULL};
  const char *hit[] = {CLI, "--cache-dir", cache, "--time", "--retarget", "-t", target, flag, over, ll, "-o", out, NULL};
  int src = run(store, &log);
  free(log);
  remove(out);
  rc = run(hit, &log);
  snprintf(label, sizeof label, "cli %s %s %s: a hit is exit 32 from the front, nothing written", target, flag, over);
  check(src == 0 && rc == 10 + GPUBLOB_LIMIT && !exists(out) && contains(log, "time (front)") &&
            contains(log, "gpublob: error: kernel "),
        label, "%d/%d: %s", src, rc, shown(log));
  free(log);
}

/* A kernel whose LDS (40 KB of gfx90a's 64 KB a CU) lets one work-group of four waves
** on a CU: one wave a SIMD of eight, occupancy 1/8, limited by shared memory. */
static const char lds_kernel[] =
    "target triple = \"amdgcn-amd-amdhsa\"\n"
    "@lds = internal addrspace(3) global [10240 x float] undef, align 4\n"
    "declare i32 @llvm.amdgcn.workitem.id.x()\n"
    "define amdgpu_kernel void @big_lds(ptr addrspace(1) %out) #0 {\n"
    "  %id = call i32 @llvm.amdgcn.workitem.id.x()\n"
    "  %p = getelementptr [10240 x float], ptr addrspace(3) @lds, i32 0, i32 %id\n"
    "  store volatile float 1.0, ptr addrspace(3) %p\n"
    "  %r = sub i32 10239, %id\n"
    "  %q = getelementptr [10240 x float], ptr addrspace(3) @lds, i32 0, i32 %r\n"
    "  %v = load volatile float, ptr addrspace(3) %q\n"
    "  %o = getelementptr float, ptr addrspace(1) %out, i32 %id\n"
    "  store float %v, ptr addrspace(1) %o\n"
    "  ret void\n"
    "}\n"
    "attributes #0 = { \"amdgpu-flat-work-group-size\"=\"1,256\" }\n";

/* Every block size the options take gets an occupancy, or is OPTION naming block_size:
** 16777216 (the most, 1 << 24) is occupancy 0 (no chip takes so large a block), so
** min_occupancy is LIMIT there; one more, and UINT_MAX, are OPTION, with or without
** limits, compiled or looked up; never a warning that the limit went unchecked. */
static void block_size_bounds(const char *ll) {
  char cache[4200], label[300];
  snprintf(cache, sizeof cache, "%s/cache-block", scratch());
  gpublob_options lim = GPUBLOB_OPTIONS_INIT;
  gpublob_result r = {0};
  gpublob_kernel_info k;
  lim.block_size = 1u << 24;
  int rc = compile_file(ll, GPUBLOB_INPUT_LLVM, "amdgcn:gfx90a", cache, &lim, &r);
  int read = rc == 0 && !first_kernel(&r, &k);
  check(read, "block_size 16777216: compiles, its kernel read", "rc %d: %s", rc, gpublob_error_message(g));
  check_if(read, k.occupancy == 0 && k.occupancy_block_size == 1 << 24,
           "block_size 16777216: an occupancy of 0 for blocks of 16777216 threads, not unknown",
           "occupancy %g for %lld", k.occupancy, k.occupancy_block_size);
  gpublob_result_free(&r);
  set_limit(&lim, GPUBLOB_LIMIT_OCCUPANCY, 0.5);
  rc = compile_file(ll, GPUBLOB_INPUT_LLVM, "amdgcn:gfx90a", NULL, &lim, &r);
  check(rc == GPUBLOB_LIMIT && contains(gpublob_error_message(g), "blocks of 16777216 threads"),
        "block_size 16777216 with min_occupancy 0.5: LIMIT", "rc %d: %s", rc, gpublob_error_message(g));
  gpublob_result_free(&r);
  static const unsigned past[] = {(1u << 24) + 1, 4294967295u};
  for (size_t i = 0; i < sizeof past / sizeof *past; i++)
    for (int limits = 0; limits < 2; limits++)
      for (int lookup = 0; lookup < 2; lookup++) {
        lim.block_size = past[i];
        lim.limits = limits ? GPUBLOB_LIMIT_OCCUPANCY : 0;
        if (lookup) {
          gpublob_options o = lim;
          o.version = GPUBLOB_OPTIONS_VERSION;
          o.target = "amdgcn:gfx90a";
          o.flags = GPUBLOB_FLAG_RETARGET;
          o.cache_dir = cache;
          gpublob_input in = {GPUBLOB_INPUT_LLVM, NULL, 0, ll, NULL};
          rc = gpublob_cache_lookup(g, &o, &in, &r);
        } else
          rc = compile_file(ll, GPUBLOB_INPUT_LLVM, "amdgcn:gfx90a", NULL, &lim, &r);
        const char *msg = gpublob_error_message(g);
        snprintf(label, sizeof label, "block_size %u%s (%s): OPTION naming block_size", past[i],
                 limits ? " with min_occupancy 0.5" : "", lookup ? "a cache lookup" : "compiled");
        check(rc == GPUBLOB_OPTION && contains(msg, "block_size") && r.count == 0, label, "rc %d: %s", rc, msg);
        gpublob_result_free(&r);
      }
}

int main(void) {
  if (gpublob_open(&g)) return 1;
  static const char *const cuda[] = {"-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_90", "-nocudainc",
                                     "-nocudalib", "-O2", "-S", "-emit-llvm", NULL};
  static const char *const hip[] = {"-x", "hip", "--cuda-device-only", "--offload-arch=gfx90a", "-nogpuinc",
                                    "-nogpulib", "-O2", "-S", "-emit-llvm", NULL};
  char cu_reduce[4200], cu_spill[4200], hip_reduce[4200], hip_spill[4200];
  snprintf(cu_reduce, sizeof cu_reduce, "%s/cu_reduce.ll", scratch());
  snprintf(cu_spill, sizeof cu_spill, "%s/cu_spill.ll", scratch());
  snprintf(hip_reduce, sizeof hip_reduce, "%s/hip_reduce.ll", scratch());
  snprintf(hip_spill, sizeof hip_spill, "%s/hip_spill.ll", scratch());
  int have_clang = exists(CLANG);
  if (!have_clang) skip("limits: tests/clang's kernels", CLANG " not found");
  int nv = have_clang && have_ptxas() && !clang_ir(cuda, SRC "reduce.cu", cu_reduce, "reduce.cu") &&
           !clang_ir(cuda, SRC "spill.cu", cu_spill, "spill.cu");
  int amd = have_clang && !clang_ir(hip, SRC "reduce.hip", hip_reduce, "reduce.hip") &&
            !clang_ir(hip, SRC "spill.hip", hip_spill, "spill.hip");
  if (have_clang && !have_ptxas()) skip("limits: NVIDIA", "no ptxas");
  char lds[4200];
  snprintf(lds, sizeof lds, "%s/big_lds.ll", scratch());
  spill(lds, lds_kernel, sizeof lds_kernel - 1);
  limit_case_run(lds, "amdgcn:gfx90a", "gfx90a", "big_lds", GPUBLOB_LIMIT_OCCUPANCY, "occupancy", 0);
  block_size_bounds(lds);
  static const struct { unsigned bit; const char *what; int spill; unsigned block; } lc[] = {
      {GPUBLOB_LIMIT_REGISTERS, "registers", 1, 0},   {GPUBLOB_LIMIT_SPILLS, "spills", 1, 0},
      {GPUBLOB_LIMIT_SHARED, "shared bytes", 0, 0},   {GPUBLOB_LIMIT_STACK, "stack bytes", 1, 0},
      {GPUBLOB_LIMIT_OCCUPANCY, "occupancy", 0, 32}}; /* blocks of one warp: under 1 on both */
  for (size_t i = 0; i < sizeof lc / sizeof *lc; i++) {
    if (nv)
      limit_case_run(lc[i].spill ? cu_spill : cu_reduce, "nvptx:sm_90", "sm_90", lc[i].spill ? "spill_mix" : "reduce_sum",
                     lc[i].bit, lc[i].what, lc[i].block);
    if (amd && lc[i].bit != GPUBLOB_LIMIT_OCCUPANCY) /* big_lds's, above: tests/clang's fill a SIMD */
      limit_case_run(lc[i].spill ? hip_spill : hip_reduce, "amdgcn:gfx90a", "gfx90a",
                     lc[i].spill ? "spill_mix" : "reduce_sum", lc[i].bit, lc[i].what, lc[i].block);
  }
  if (nv) several_over(cu_spill);
  if (nv) cli_case(cu_spill, "nvptx:sm_90", "--max-spills", "0", "100000");
  if (amd) cli_case(hip_spill, "amdgcn:gfx90a", "--max-stack", "100", "1K");
  if (amd) cli_case(hip_reduce, "amdgcn:gfx90a", "--max-shared", "1023", "1K");
  mlir_case();
  gpublob_close(g);
  return report();
}
