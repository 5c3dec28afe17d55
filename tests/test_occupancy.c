/* test_occupancy: kernel occupancy (src/occupancy.c) against its two oracles.
**   Spec: every nvptx chip and every amdgcn chip but the generic ones has limits; a
**     generic chip has none (-1, "").
**   Hand-worked cases, each with another limiter, for sm_80, sm_90, gfx90a, gfx1010
**     and gfx906 (worked in the comments beside them).
**   NVIDIA: the CUDA toolkit's cuda_occupancy.h, where it is installed, compiled into a
**     small C++ program (g++) given each chip's figures from the spec; its
**     cudaOccMaxActiveBlocksPerMultiprocessor for registers x static shared bytes x
**     block sizes equals blocks_per_sm, and its limiting factors hold gpublob's limiter.
**     The header's own tables (allocation units, sub-partitions, blocks per SM, the
**     carveouts) so check the spec's copies of them.
**   AMD: for every non-generic amdgcn chip (wave32 and wave64 where the chip has both),
**     IR kernels of several block sizes (amdgpu-flat-work-group-size="N,N"), LDS sizes
**     and register pressures, compiled by llc-22 to assembly (its '; Occupancy:') and
**     to an object linked by ld.lld into an hsaco read with gpublob_kernel_get (whose
**     reader calls occupancy_fill): waves_per_simd equals llc's for every kernel; CU
**     mode (+cumode) through the chip "CHIP:cumode+".
** The test includes the LLVM-free core (src/front.c) to call occupancy_fill itself. */

#include "src/front.c"

#include <limits.h>
#include <stdio.h>

#include "testlib.h"

#define LLC LLVM_BINDIR "/llc"
#define LLD LLVM_BINDIR "/ld.lld"
#define CUDA_OCC "/usr/local/cuda/include/cuda_occupancy.h"

static gpublob_kernel_info fig(long long regs, long long sgprs, long long shared, long long wave) {
  gpublob_kernel_info k = kt_blank("k", "");
  k.registers = regs, k.sgprs = sgprs, k.shared_bytes = shared, k.wave_size = wave;
  return k;
}

static const target_desc *tgt(const char *name) { return resolve_target_named(name, strlen(name)); }

/* ---- the spec: which chips have limits ---- */
static void spec_chips(void) {
  static const char *const names[] = {"nvptx", "amdgcn"};
  for (int i = 0; i < 2; i++) {
    const target_desc *t = tgt(names[i]);
    const char *list = t->chips, *w;
    size_t n;
    int with = 0, without = 0;
    while ((w = util_next_word(&list, " ", &n))) {
      char chip[64];
      snprintf(chip, sizeof chip, "%.*s", (int)n, w);
      gpublob_kernel_info k = fig(8, 8, 0, -1);
      occupancy_fill(t, chip, 256, &k);
      int generic = strstr(chip, "generic") != NULL;
      if (generic) {
        without++;
        check(k.occupancy == -1.0 && !*k.occupancy_limiter && k.blocks_per_sm == -1 && k.waves_per_simd == -1 &&
                  k.occupancy_block_size == -1,
              "a generic chip has no limits", "%s: %g '%s'", chip, k.occupancy, k.occupancy_limiter);
      } else {
        with++;
        check(*k.occupancy_limiter && k.occupancy > 0 && k.occupancy <= 1 && k.occupancy_block_size == 256 &&
                  (i == 0 ? k.blocks_per_sm > 0 && k.waves_per_simd == -1 : k.waves_per_simd > 0 && k.blocks_per_sm == -1),
              "every chip has limits", "%s: %g '%s' %lld %lld", chip, k.occupancy, k.occupancy_limiter,
              k.blocks_per_sm, k.waves_per_simd);
      }
    }
    printf("  %s: %d chips with limits, %d without\n", names[i], with, without);
  }
  gpublob_kernel_info k = fig(8, 8, 0, -1);
  occupancy_fill(tgt("spirv"), "generic", 0, &k);
  check(k.occupancy == -1.0 && !*k.occupancy_limiter, "a target without a model has none", "%g", k.occupancy);
  /* the block size: 0 is max_threads, else reqd_threads' product, else 1024 */
  k = fig(8, -1, 0, -1);
  occupancy_fill(tgt("nvptx"), "sm_90", 0, &k);
  check(k.occupancy_block_size == 1024, "default block size 1024", "%lld", k.occupancy_block_size);
  k.reqd_threads[0] = 16, k.reqd_threads[1] = 8, k.reqd_threads[2] = 2;
  occupancy_fill(tgt("nvptx"), "sm_90", 0, &k);
  check(k.occupancy_block_size == 256, "block size of reqd_threads", "%lld", k.occupancy_block_size);
  k.max_threads = 128;
  occupancy_fill(tgt("nvptx"), "sm_90", 0, &k);
  check(k.occupancy_block_size == 128, "block size of max_threads", "%lld", k.occupancy_block_size);
  occupancy_fill(tgt("nvptx"), "sm_90", 256, &k); /* more than the kernel allows */
  check(k.occupancy == 0 && same_str(k.occupancy_limiter, "warps") && k.blocks_per_sm == 0,
        "a block above max_threads fits none", "%g %s", k.occupancy, k.occupancy_limiter);
}

/* ---- hand-worked cases ---- */
typedef struct hand {
  const char *target, *chip;
  long long regs, sgprs, shared, wave, block;
  long long count; /* blocks_per_sm (NVIDIA) or waves_per_simd (AMD) */
  double occupancy;
  const char *limiter;
} hand;

static const hand hands[] = {
    /* sm_80 (64 warps, 32 blocks, 64K registers in 4 sub-partitions, 164 KB shared,
       1 KB reserved a block, units of 256 registers and 128 bytes).  16 registers,
       256 threads (8 warps): warps 64/8 = 8 blocks; registers 16*32 = 512 a warp,
       16384/512 = 32 warps a sub-partition, 128/8 = 16 blocks; shared (0 + 1024)
       -> 167936/1024 = 164; blocks 32: 8 blocks, 64 warps, occupancy 1, warps. */
    {"nvptx", "sm_80", 16, -1, 0, -1, 256, 8, 1.0, "warps"},
    /* sm_80, 128 registers, 256 threads: 128*32 = 4096 a warp, 16384/4096 = 4 warps a
       sub-partition, 16/8 = 2 blocks (warps 8, shared 164, blocks 32): 16 warps of
       64, 0.25, registers. */
    {"nvptx", "sm_80", 128, -1, 0, -1, 256, 2, 0.25, "registers"},
    /* sm_80, 2048 threads: more than a block may have: none fit, warps. */
    {"nvptx", "sm_80", 16, -1, 0, -1, 2048, 0, 0.0, "warps"},
    /* sm_90 (64 warps, 32 blocks, 228 KB shared), 32 registers, 40000 static shared
       bytes, 128 threads (4 warps): shared 40000 + 1024 = 41024 -> 41088 (128s),
       233472/41088 = 5 blocks; warps 64/4 = 16; registers 1024 a warp, 16 a
       sub-partition, 64/4 = 16: 5 blocks, 20 warps, 0.3125, shared. */
    {"nvptx", "sm_90", 32, -1, 40000, -1, 128, 5, 0.3125, "shared"},
    /* sm_90, 16 registers, 32 threads (1 warp): warps 64, registers 128, shared 228,
       blocks 32: 32 blocks, 32 warps, 0.5, blocks. */
    {"nvptx", "sm_90", 16, -1, 0, -1, 32, 32, 0.5, "blocks"},
    /* gfx90a (8 waves a SIMD, 4 SIMDs, 512 VGPRs x 64 lanes = 32768, unit 8 x 64 =
       512, 64 KB LDS, 16 barriers): 128 VGPRs, 256 threads (4 waves): VGPRs 128*64
       = 8192 -> 32768/8192 = 4; slots 32/4 = 8 groups -> 8 waves: 4, 0.5, registers. */
    {"amdgcn", "gfx90a:xnack-", 128, 16, 0, 64, 256, 4, 0.5, "registers"},
    /* gfx90a, 16 VGPRs, 40000 bytes of LDS, 256 threads: 65536/40000 = 1 group, 4
       waves over 4 SIMDs = 1; VGPRs 32768/1024 = 32 -> 8: 1, 0.125, shared. */
    {"amdgcn", "gfx90a", 16, 16, 40000, 64, 256, 1, 0.125, "shared"},
    /* gfx1010 wave32 (20 waves, 4 SIMDs of a WGP: 80 slots, 32 barriers), 8 VGPRs,
       64 threads (2 waves): slots 80/2 = 40 groups -> 20; barriers 32 groups, 64
       waves / 4 = 16; VGPRs 8*32 = 256 -> 32768/256 = 128 -> 20: 16, 0.8, blocks. */
    {"amdgcn", "gfx1010", 8, 16, 0, 32, 64, 16, 0.8, "blocks"},
    /* CU mode halves a WGP: 2 SIMDs, 40 slots, 16 barriers: 16 groups, 32 waves / 2 =
       16, 0.8, blocks; 64 KB of LDS, so 40000 bytes leave one group: 2 waves / 2 = 1,
       shared. */
    {"amdgcn", "gfx1010:cumode+", 8, 16, 0, 32, 64, 16, 0.8, "blocks"},
    {"amdgcn", "gfx1010:cumode+", 8, 16, 40000, 32, 64, 1, 0.05, "shared"},
    /* gfx906 (10 waves, SGPR table of gfx8-9: 100 or fewer: 8), 8 VGPRs, 96 SGPRs,
       256 threads: slots 40/4 = 10 groups -> 10; VGPRs 256/(8 rounded to 4: 8) = 32
       -> 10; SGPRs 8: 8, 0.8, registers. */
    {"amdgcn", "gfx906", 8, 96, 0, 64, 256, 8, 0.8, "registers"},
    /* gfx1100 wave32, 1024 threads (32 waves), nothing else: 64 slots / 32 = 2
       groups, 64 waves / 4 = 16 of 16: 1, warps. */
    {"amdgcn", "gfx1100", 8, 16, 0, 32, 1024, 16, 1.0, "warps"},
};

static void hand_cases(void) {
  for (size_t i = 0; i < sizeof hands / sizeof *hands; i++) {
    const hand *h = &hands[i];
    gpublob_kernel_info k = fig(h->regs, h->sgprs, h->shared, h->wave);
    occupancy_fill(tgt(h->target), h->chip, h->block, &k);
    long long count = *h->target == 'n' ? k.blocks_per_sm : k.waves_per_simd;
    check(count == h->count && k.occupancy > h->occupancy - 1e-9 && k.occupancy < h->occupancy + 1e-9 &&
              same_str(k.occupancy_limiter, h->limiter) && k.occupancy_block_size == h->block,
          "hand-worked case", "%s regs %lld shared %lld block %lld: %lld %g %s, wanted %lld %g %s", h->chip, h->regs,
          h->shared, h->block, count, k.occupancy, k.occupancy_limiter, h->count, h->occupancy, h->limiter);
  }
}

/* ---- NVIDIA: cuda_occupancy.h ---- */
static const int nv_regs[] = {0, 8, 16, 24, 32, 40, 48, 64, 72, 96, 128, 168, 200, 255};
static const int nv_shared[] = {0, 1, 100, 1000, 3000, 4096, 12000, 24576, 40000, 48128, 49152, 50000};
static const int nv_blocks[] = {1, 32, 33, 64, 96, 128, 160, 192, 256, 320, 384, 512, 640, 768, 1024, 1025};

static void cuda_oracle(void) {
  if (!exists(CUDA_OCC) || !have_program("/usr/bin/g++")) {
    skip("cuda_occupancy.h", exists(CUDA_OCC) ? "no g++" : "no CUDA toolkit (" CUDA_OCC ")");
    return;
  }
  const target_desc *t = tgt("nvptx");
  strbuf src = {0};
  sb_add(&src, "#include <cstdio>\n#include \"" CUDA_OCC "\"\n"
               "static void one(const char *chip, int major, int minor, int warps, int regs, int block_regs,\n"
               "                size_t smem, size_t reserved, size_t smem_block) {\n"
               "  cudaOccDeviceProp p; p.computeMajor = major; p.computeMinor = minor; p.maxThreadsPerBlock = 1024;\n"
               "  p.maxThreadsPerMultiprocessor = warps * 32; p.regsPerBlock = block_regs; p.regsPerMultiprocessor = regs;\n"
               "  p.warpSize = 32; p.sharedMemPerBlock = smem_block; p.sharedMemPerMultiprocessor = smem; p.numSms = 1;\n"
               "  p.sharedMemPerBlockOptin = smem; p.reservedSharedMemPerBlock = reserved;\n"
               "  cudaOccDeviceState s;\n");
  sb_addf(&src, "  static const int R[] = {");
  for (size_t i = 0; i < sizeof nv_regs / sizeof *nv_regs; i++) sb_addf(&src, "%d,", nv_regs[i]);
  sb_addf(&src, "}; static const int S[] = {");
  for (size_t i = 0; i < sizeof nv_shared / sizeof *nv_shared; i++) sb_addf(&src, "%d,", nv_shared[i]);
  sb_addf(&src, "}; static const int B[] = {");
  for (size_t i = 0; i < sizeof nv_blocks / sizeof *nv_blocks; i++) sb_addf(&src, "%d,", nv_blocks[i]);
  sb_add(&src, "};\n"
               "  for (int r : R) for (int sh : S) for (int b : B) {\n"
               "    cudaOccFuncAttributes a; a.maxThreadsPerBlock = 1024; a.numRegs = r; a.sharedSizeBytes = sh;\n"
               "    a.numBlockBarriers = 1;\n"
               "    cudaOccResult res; int e = cudaOccMaxActiveBlocksPerMultiprocessor(&res, &p, &a, &s, b, 0);\n"
               "    printf(\"%s %d %d %d %d %d %u\\n\", chip, r, sh, b, e, e ? -1 : res.activeBlocksPerMultiprocessor,\n"
               "           res.limitingFactors);\n"
               "  }\n}\nint main() {\n");
  const char *list = t->chips, *w;
  size_t n;
  int chips = 0;
  while ((w = util_next_word(&list, " ", &n))) {
    char chip[64];
    snprintf(chip, sizeof chip, "%.*s", (int)n, w);
    int num = atoi(chip + 3);
    long long br = occ_value(t->occupancy_block_regs, chip);
    sb_addf(&src, "  one(\"%s\", %d, %d, %lld, %lld, %lld, %lld, %lld, %lld);\n", chip, num / 10, num % 10,
            occ_value(t->occupancy_warps, chip), occ_value(t->occupancy_regs, chip),
            br > 0 ? br : occ_value(t->occupancy_regs, chip), occ_value(t->occupancy_shared, chip),
            occ_used(occ_value(t->occupancy_reserved, chip)), occ_value(t->occupancy_shared_block, chip));
    chips++;
  }
  sb_add(&src, "  return 0;\n}\n");
  char cpp[4200], exe[4200];
  snprintf(cpp, sizeof cpp, "%s", tmp_path("occ.cpp"));
  snprintf(exe, sizeof exe, "%s", tmp_path("occ"));
  spill(cpp, src.s, src.len);
  sb_free(&src);
  char *out = NULL;
  const char *cc[] = {"g++", "-O1", "-w", "-o", exe, cpp, NULL};
  int st = run(cc, &out);
  check(st == 0, "cuda_occupancy.h compiles", "%s", shown(out));
  free(out), out = NULL;
  if (st) return;
  const char *ex[] = {exe, NULL};
  st = run(ex, &out);
  check(st == 0 && out, "the oracle runs", "%d", st);
  int cases = 0, bad = 0;
  for (char *line = out, *next; line && *line; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = 0;
    char chip[64];
    int r, sh, b, e, blocks;
    unsigned flags;
    if (sscanf(line, "%63s %d %d %d %d %d %u", chip, &r, &sh, &b, &e, &blocks, &flags) != 7) continue;
    gpublob_kernel_info k = fig(r, -1, sh, -1);
    occupancy_fill(t, chip, b, &k);
    /* cudaOcc's flags: 1 warps, 2 registers, 4 shared, 8 blocks */
    unsigned want = same_str(k.occupancy_limiter, "warps") ? 1 : same_str(k.occupancy_limiter, "registers") ? 2
                    : same_str(k.occupancy_limiter, "shared") ? 4 : 8;
    int ok = !e && k.blocks_per_sm == blocks && (blocks == 0 || (flags & want));
    cases++;
    if (!ok && bad++ < 10)
      check(ok, "cuda_occupancy.h's blocks", "%s regs %d shared %d block %d: cudaOcc %d (error %d, flags %u), "
            "gpublob %lld %s", chip, r, sh, b, blocks, e, flags, k.blocks_per_sm, k.occupancy_limiter);
  }
  free(out);
  check(bad == 0 && cases == chips * (int)(sizeof nv_regs / sizeof *nv_regs * sizeof nv_shared / sizeof *nv_shared *
                                            sizeof nv_blocks / sizeof *nv_blocks),
        "cuda_occupancy.h agrees on every case", "%d of %d differ", bad, cases);
  printf("  cuda_occupancy.h: %d cases on %d chips\n", cases, chips);
}

/* ---- AMD: llc's '; Occupancy:' ---- */
static const int amd_sizes[] = {64, 96, 256, 320, 512, 768, 1024};
static const int amd_lds[] = {2048, 9000, 17000, 30000};
static const int amd_live[] = {24, 60, 100, 150};

/* The IR: s_N (a store, blocks of N), l_X (X bytes of LDS, blocks of 256 and 1024),
   r_V (V live floats, blocks of 256). */
static void amd_module(strbuf *ir) {
  sb_add(ir, "declare i32 @llvm.amdgcn.workitem.id.x()\ndeclare void @llvm.amdgcn.s.barrier()\n");
  int a = 0;
  for (size_t i = 0; i < sizeof amd_sizes / sizeof *amd_sizes; i++, a++) {
    sb_addf(ir, "define amdgpu_kernel void @s_%d(ptr addrspace(1) %%p) #%d {\n"
                "  %%i = call i32 @llvm.amdgcn.workitem.id.x()\n  %%q = getelementptr i32, ptr addrspace(1) %%p, i32 %%i\n"
                "  store i32 %%i, ptr addrspace(1) %%q\n  ret void\n}\n"
                "attributes #%d = { \"amdgpu-flat-work-group-size\"=\"%d,%d\" }\n",
            amd_sizes[i], a, a, amd_sizes[i], amd_sizes[i]);
  }
  for (size_t i = 0; i < sizeof amd_lds / sizeof *amd_lds; i++)
    for (int big = 0; big < 2; big++, a++) {
      int x = amd_lds[i], m = x / 4, size = big ? 1024 : 256;
      sb_addf(ir, "@lds_%d_%d = internal addrspace(3) global [%d x i32] poison, align 4\n"
                  "define amdgpu_kernel void @l_%d_%d(ptr addrspace(1) %%p) #%d {\n"
                  "  %%i = call i32 @llvm.amdgcn.workitem.id.x()\n"
                  "  %%a = getelementptr [%d x i32], ptr addrspace(3) @lds_%d_%d, i32 0, i32 %%i\n"
                  "  store i32 %%i, ptr addrspace(3) %%a\n  call void @llvm.amdgcn.s.barrier()\n"
                  "  %%j = sub i32 %d, %%i\n"
                  "  %%b = getelementptr [%d x i32], ptr addrspace(3) @lds_%d_%d, i32 0, i32 %%j\n"
                  "  %%v = load i32, ptr addrspace(3) %%b\n  %%q = getelementptr i32, ptr addrspace(1) %%p, i32 %%i\n"
                  "  store i32 %%v, ptr addrspace(1) %%q\n  ret void\n}\n"
                  "attributes #%d = { \"amdgpu-flat-work-group-size\"=\"%d,%d\" }\n",
              x, size, m, x, size, a, m, x, size, m - 1, m, x, size, a, size, size);
    }
  for (size_t i = 0; i < sizeof amd_live / sizeof *amd_live; i++, a++) {
    int v = amd_live[i];
    sb_addf(ir, "define amdgpu_kernel void @r_%d(ptr addrspace(1) %%p) #%d {\n"
                "  %%i = call i32 @llvm.amdgcn.workitem.id.x()\n  %%base = mul i32 %%i, %d\n", v, a, v);
    for (int j = 0; j < v; j++)
      sb_addf(ir, "  %%a%d = add i32 %%base, %d\n  %%q%d = getelementptr float, ptr addrspace(1) %%p, i32 %%a%d\n"
                  "  %%v%d = load volatile float, ptr addrspace(1) %%q%d\n", j, j, j, j, j, j);
    sb_addf(ir, "  %%s0 = fmul float %%v%d, 3.0\n", v - 1);
    for (int j = 1; j < v; j++) sb_addf(ir, "  %%s%d = fmul float %%s%d, %%v%d\n", j, j - 1, v - 1 - j);
    sb_addf(ir, "  store volatile float %%s%d, ptr addrspace(1) %%p\n  ret void\n}\n"
                "attributes #%d = { \"amdgpu-flat-work-group-size\"=\"256,256\" }\n", v - 1, a);
  }
}

/* llc's occupancy of kernel name in asm, or -1. */
static int llc_occupancy(const char *as, const char *name) {
  char label[128];
  snprintf(label, sizeof label, "\n%s:", name);
  const char *p = strstr(as, label);
  const char *o = p ? strstr(p, "; Occupancy: ") : NULL;
  return o ? atoi(o + 13) : -1;
}

static int amd_compared, amd_chips;

/* chip (llc's -mcpu) with mattr; id the chip occupancy_fill is told. */
static void amd_one(const char *ll, const char *chip, const char *mattr, const char *id) {
  char as[4200], obj[4200], hsaco[4200];
  snprintf(as, sizeof as, "%s", tmp_path("k.s"));
  snprintf(obj, sizeof obj, "%s", tmp_path("k.o"));
  snprintf(hsaco, sizeof hsaco, "%s", tmp_path("k.hsaco"));
  char cpu[64], attr[128];
  snprintf(cpu, sizeof cpu, "-mcpu=%s", chip);
  snprintf(attr, sizeof attr, "-mattr=%s", *mattr ? mattr : "+promote-alloca");
  const char *a1[] = {LLC, "-mtriple=amdgcn-amd-amdhsa", cpu, attr, "-O2", ll, "-o", as, NULL};
  const char *a2[] = {LLC, "-mtriple=amdgcn-amd-amdhsa", cpu, attr, "-O2", "-filetype=obj", ll, "-o", obj, NULL};
  const char *a3[] = {LLD, "-shared", obj, "-o", hsaco, NULL};
  char *out = NULL;
  int st = run(a1, &out);
  if (!st) free(out), out = NULL, st = run(a2, &out);
  if (!st) free(out), out = NULL, st = run(a3, &out);
  check(st == 0, "llc-22 and ld.lld make the kernels", "%s %s: %s", chip, mattr, shown(out));
  free(out);
  if (st) return;
  size_t asn, n;
  char *text = (char *)slurp(as, &asn);
  unsigned char *blob = slurp(hsaco, &n);
  gpublob *g = NULL;
  gpublob_open(&g);
  gpublob_output o = {{blob, n, ".hsaco"}, "amdgcn", chip, ""};
  gpublob_result r = {&o, 1};
  size_t count = 0;
  int rc = gpublob_kernel_count(g, &r, 0, &count);
  check(rc == GPUBLOB_OK && count > 0, "the hsaco's kernels", "%s: %s", chip, gpublob_error_message(g));
  int bad = 0;
  for (size_t i = 0; rc == GPUBLOB_OK && i < count; i++) {
    gpublob_kernel_info k;
    if (gpublob_kernel_get(g, &r, 0, i, &k, sizeof k) != GPUBLOB_OK) continue;
    gpublob_kernel_info c = k;
    if (strchr(id, ':') && strstr(id, "cumode")) occupancy_fill(tgt("amdgcn"), id, 0, &c); /* CU mode by name */
    int want = llc_occupancy(text, k.name);
    amd_compared++;
    if (c.waves_per_simd != want && bad++ < 3)
      check(0, "waves_per_simd is llc's", "%s %s %s: llc %d, gpublob %lld (%s; vgprs %lld sgprs %lld lds %lld "
            "wave %lld block %lld)", id, mattr, k.name, want, c.waves_per_simd, c.occupancy_limiter, k.registers,
            k.sgprs, k.shared_bytes, k.wave_size, c.occupancy_block_size);
  }
  check(bad == 0, "every kernel's waves_per_simd is llc's", "%s %s: %d differ", id, mattr, bad);
  gpublob_close(g);
  free(text);
  free(blob);
}

static void amd_oracle(void) {
  if (!have_program(LLC) || !have_program(LLD)) {
    skip("llc's occupancy", "no llc-22 or ld.lld");
    return;
  }
  strbuf ir = {0};
  amd_module(&ir);
  static char ll[4200]; /* tmp_path's buffers are a ring */
  snprintf(ll, sizeof ll, "%s", tmp_path("k.ll"));
  spill(ll, ir.s, ir.len);
  sb_free(&ir);
  const target_desc *t = tgt("amdgcn");
  const char *list = t->chips, *w;
  size_t n;
  while ((w = util_next_word(&list, " ", &n))) {
    char chip[64], cu[80];
    snprintf(chip, sizeof chip, "%.*s", (int)n, w);
    if (strstr(chip, "generic")) continue;
    amd_chips++;
    amd_one(ll, chip, "", chip);
    if (atoi(chip + 3) >= 1000) { /* gfx10 on: wave64 and CU mode too */
      amd_one(ll, chip, "+wavefrontsize64", chip);
      snprintf(cu, sizeof cu, "%s:cumode+", chip);
      amd_one(ll, chip, "+cumode", cu);
    }
  }
  printf("  llc-22: %d kernels compared on %d chips\n", amd_compared, amd_chips);
}

/* Figures no chip has, as a crafted code object's note or a cache file may hold
** them: no occupancy, and no arithmetic fault (a wave size near LLONG_MAX made a
** divisor 0). */
static void hostile_figures(void) {
  static const struct { const char *target, *chip; } on[] = {{"amdgcn", "gfx90a"}, {"nvptx", "sm_90"}};
  for (size_t i = 0; i < sizeof on / sizeof *on; i++) {
    const long long huge[] = {LLONG_MAX, (long long)1 << 40, (long long)1 << 25};
    for (size_t h = 0; h < sizeof huge / sizeof *huge; h++) {
      long long *field[] = {NULL, NULL, NULL, NULL, NULL};
      gpublob_kernel_info k = kt_blank("k", on[i].chip);
      field[0] = &k.wave_size, field[1] = &k.registers, field[2] = &k.max_threads, field[3] = &k.reqd_threads[0],
      field[4] = &k.sgprs;
      for (size_t f = 0; f < sizeof field / sizeof *field; f++) {
        k = kt_blank("k", on[i].chip);
        k.registers = 16;
        *field[f] = huge[h];
        if (f == 3) k.reqd_threads[1] = k.reqd_threads[2] = huge[h];
        occupancy_fill(tgt(on[i].target), on[i].chip, 0, &k);
        char label[160];
        snprintf(label, sizeof label, "hostile figures: %s %s, field %zu at %lld: no occupancy", on[i].target,
                 on[i].chip, f, huge[h]);
        check(k.occupancy == -1.0 && k.blocks_per_sm == -1 && k.waves_per_simd == -1, label, "%g", k.occupancy);
      }
    }
  }
  gpublob_kernel_info k = kt_blank("k", "sm_90");
  occupancy_fill(tgt("nvptx"), "sm_90", (long long)1 << 30, &k);
  check(k.occupancy == -1.0, "hostile figures: a block size no chip has gives no occupancy", "%g", k.occupancy);
}

/* Figures that pass occ_sane alone but whose product is past a long long: a kernel
** requiring 2097152 x 2097152 x 2097152 threads (2^63, clang's
** "nvvm.reqntid"="2097152,2097152,2097152"), 2^24 in each; the readers' own sums and
** products (a cubin's .nv.info, an AMD note's spills, an MLIR module's summary line):
** no signed overflow (the sanitized suite's -fsanitize=signed-integer-overflow ends
** the test on one), no occupancy, and -1 (not known) where a figure does not fit. */
static void overflowing_figures(void) {
  static const long long dims[] = {2097152, (long long)1 << 24, 1290, 1 << 12};
  static const struct { const char *target, *chip; } on[] = {{"amdgcn", "gfx90a"}, {"nvptx", "sm_90"}};
  for (size_t i = 0; i < sizeof on / sizeof *on; i++)
    for (size_t d = 0; d < sizeof dims / sizeof *dims; d++) {
      gpublob_kernel_info k = kt_blank("k", on[i].chip);
      k.registers = 16;
      k.reqd_threads[0] = k.reqd_threads[1] = k.reqd_threads[2] = dims[d];
      occupancy_fill(tgt(on[i].target), on[i].chip, 0, &k);
      char label[200];
      snprintf(label, sizeof label, "overflowing figures: %s %s, required %lld x %lld x %lld threads: no occupancy",
               on[i].target, on[i].chip, dims[d], dims[d], dims[d]);
      check(k.occupancy == -1.0 && k.occupancy_block_size == -1 && !*k.occupancy_limiter, label,
            "occupancy %g for blocks of %lld", k.occupancy, k.occupancy_block_size);
    }
  /* a cubin's kernel section: REQNTID and MAX_THREADS of 0xffffffff each (their product 2^96) */
  gpublob gh;
  memset(&gh, 0, sizeof gh);
  unsigned char sec[32] = {EIFMT_SVAL, EIATTR_REQNTID, 12, 0};
  memset(sec + 4, 0xff, 12);
  gpublob_kernel_info k = kt_blank("k", "sm_90");
  int rc = nv_kernel_section(&gh, sec, 16, "s", 1, &k);
  check(rc == 0 && k.reqd_threads[0] == 0xffffffffLL && k.max_threads == -1,
        "overflowing figures: a cubin's REQNTID of 0xffffffff x3: max_threads not known (-1)", "rc %d, max %lld",
        rc, k.max_threads);
  sec[1] = EIATTR_MAX_THREADS;
  k = kt_blank("k", "sm_90");
  rc = nv_kernel_section(&gh, sec, 16, "s", 1, &k);
  check(rc == 0 && k.max_threads == -1, "overflowing figures: a cubin's MAX_THREADS of 0xffffffff x3: -1",
        "rc %d, max %lld", rc, k.max_threads);
  occupancy_fill(tgt("nvptx"), "sm_90", 0, &k);
  check(k.occupancy_block_size == 1024, "overflowing figures: ... its occupancy for blocks of 1024", "%lld",
        k.occupancy_block_size);
  /* an AMD note whose two spill counts are INT64_MAX: their sum is not known */
  static const unsigned char note[] = {
      0x81, 0xae, 'a', 'm', 'd', 'h', 's', 'a', '.', 'k', 'e', 'r', 'n', 'e', 'l', 's', 0x91, 0x83,
      0xa5, '.', 'n', 'a', 'm', 'e', 0xa1, 'k',
      0xb1, '.', 'v', 'g', 'p', 'r', '_', 's', 'p', 'i', 'l', 'l', '_', 'c', 'o', 'u', 'n', 't',
      0xd3, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
      0xb1, '.', 's', 'g', 'p', 'r', '_', 's', 'p', 'i', 'l', 'l', '_', 'c', 'o', 'u', 'n', 't',
      0xd3, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
  ktable kt = {0};
  rc = amd_map(&gh, note, sizeof note, &kt, "gfx90a");
  check_if(rc == 0 && kt.n == 1, kt.k[0].vgpr_spills == LLONG_MAX && kt.k[0].spills == -1,
           "overflowing figures: an AMD note's spill counts of INT64_MAX: their sum not known (-1)", "%lld",
           kt.k[0].spills);
  kt_free(&kt);
  /* an MLIR module's summary line (a cache file's bytes) requiring 2097152 threads each way, with
     min_occupancy: no occupancy, so a warning, not LIMIT and no overflow */
  gpublob_options o = GPUBLOB_OPTIONS_INIT;
  o.limits = GPUBLOB_LIMIT_OCCUPANCY;
  o.min_occupancy = 0.5;
  limits_found f = {{0}, 0, 0};
  summary_check_all(&o, 0, "nvptx\tsm_90\tgpu.module @m\tk\t16\t-1\t-1\t-1\t-1\t-1\t0\t0\t-1\t8\t-1\t2097152\t2097152"
                           "\t2097152\t0\t0\t0\n", &f);
  check(f.count == 0 && (f.unknown & GPUBLOB_LIMIT_OCCUPANCY),
        "overflowing figures: an MLIR summary line requiring 2097152 x 2097152 x 2097152 threads: not checked, said",
        "%d over, unknown 0x%x", f.count, f.unknown);
  sb_free(&f.first);
  sb_free(&gh.msg);
  sb_free(&gh.warn);
}

/* The CLI on a kernel clang would write with "nvvm.reqntid"="2097152,2097152,2097152": it
** compiles, and --verbose prints the figures it has, none of them negative. */
static void reqntid_cli(void) {
  if (!have_ptxas()) {
    skip("overflowing figures: the CLI's --verbose on a kernel requiring 2^63 threads", "no ptxas");
    return;
  }
  static const char ir[] = "target triple = \"nvptx64-nvidia-cuda\"\n"
                           "define ptx_kernel void @big(ptr %p) #0 {\n  store i32 1, ptr %p\n  ret void\n}\n"
                           "attributes #0 = { \"nvvm.reqntid\"=\"2097152,2097152,2097152\" }\n";
  const char *in = tmp_path("reqntid.ll"), *out = tmp_path("reqntid.cubin");
  spill(in, ir, sizeof ir - 1);
  const char *argv[] = {"build/gpublob-compiler", "--no-cache", "--verbose", "-t", "nvptx:sm_80", in, "-o", out, NULL};
  char *log = NULL;
  int rc = run(argv, &log);
  check(rc == 0 && contains(log, "big (nvptx sm_80): ") && contains(log, "required 2097152x2097152x2097152 threads") &&
            lacks(log, " -") && lacks(log, "occupancy"),
        "overflowing figures: the CLI's --verbose on a kernel requiring 2^63 threads: its figures, no negative one, "
        "no occupancy", "exit %d: %s", rc, shown(log));
  free(log);
}

int main(void) {
  overflowing_figures();
  reqntid_cli();
  hostile_figures();
  spec_chips();
  hand_cases();
  cuda_oracle();
  amd_oracle();
  return report();
}
