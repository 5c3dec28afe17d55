/* src/occupancy.c: a kernel's occupancy, the warps (waves) that can be resident at once
** for blocks of one size, from the figures its blob records (src/meta_amdgpu.c,
** src/meta_nvinfo.c) and the chip's limits in the spec.  Why here: the figures are in
** every bin blob, so a caller learns what bounds a kernel without a GPU or a vendor's
** tool, on a cache hit as on a compile.
**
** The core names no chip and no vendor: the spec's occupancy key names the formula
** and its occupancy_* keys (GLOB:VALUE words, resolve_glob_value's, the first match wins) give
** every number.  The two formulas are their sources', rewritten in C:
**   cuda    the CUDA occupancy calculator, CUDA 13's include/cuda_occupancy.h
**           (cudaOccMaxActiveBlocksPerMultiprocessor with the default carveout, no
**           dynamic shared memory, partitioned global caching off): blocks an SM
**           holds, the least of its warps limit, its blocks limit, its registers
**           limit (cudaOccMaxBlocksPerSMRegsLimit: a warp's registers rounded up to
**           the allocation unit, held per sub-partition; a block must fit in the
**           registers a block may hold with its warps rounded up to the
**           sub-partitions) and its shared-memory limit (static shared bytes plus
**           the bytes reserved per block, rounded up to the allocation unit, against
**           the SM's shared memory; more than a block may hold fits none).
**   amdgpu  LLVM's AMDGPU backend, the '; Occupancy:' llc prints
**           (GCNSubtarget::computeOccupancy, AMDGPUMCExpr::createOccupancy): waves a
**           SIMD holds, the least of the work-groups a CU holds for the block size
**           (AMDGPUSubtarget::getOccupancyWithWorkGroupSizes with the least and the
**           most size both the block size: wave slots, barriers for groups of more
**           than one wave, LDS), the VGPRs (IsaInfo::getNumWavesPerEUWithNumVGPRs)
**           and the SGPRs before gfx10 (getOccupancyWithNumSGPRs, a step table).
** Registers: NVIDIA's k->registers; AMD's k->registers is the note's .vgpr_count,
** which is already LLVM's total of the unified VGPR/AGPR file (alignTo(VGPRs, 4) +
** AGPRs on gfx90a, gfx942 and gfx950, llc's "TotalNumVgprs"), and k->sgprs the
** note's .sgpr_count, VCC, flat scratch and XNACK's included, as computeOccupancy's.
** A figure of -1 (not recorded) counts as none used.
**
** The limiter is the first of warps, registers, shared, blocks (the order
** cuda_occupancy.h tests its limiting factors in) whose own limit alone gives the
** result: "warps" when the block size is all that bounds it.  A block larger than
** the chip or the kernel allows fits nothing: occupancy 0, limiter "warps"; so do
** registers or shared memory more than one block may hold ("registers", "shared").
** Where LLVM says 1 for an LDS larger than a CU's, this says 0 ("shared").
** Not covered: dynamic shared memory (unknown, 0), a carveout other than the default,
** NVIDIA's barriers and virtual resources (one barrier never binds), amdgpu-waves-per-
** eu, LLVM's range of work-group sizes (llc's figure for a kernel without
** amdgpu-flat-work-group-size="N,N" is the best over sizes 1 to its most, this the
** figure for blocks of exactly the size), scratch, and CU mode unless the chip is named
** CHIP:cumode+ (a target id never says it: WGP mode, LLVM's default, is assumed). */

enum { OCC_NONE_BITS = 62 };
/* A spec number stops growing past this (no chip's figure comes near): never an overflow. */
#define OCC_SPEC_MAX ((long long)1 << 40)
#define OCC_NONE ((long long)1 << OCC_NONE_BITS) /* a limit that does not bind */

/* The number chip's word of spec list gives (its first, before any comma), or -1. */
static long long occ_value(const char *list, const char *chip) {
  size_t n;
  const char *v = resolve_glob_value(list, chip, &n);
  if (!v || !n || *v < '0' || *v > '9') return -1;
  long long x = 0;
  for (size_t i = 0; i < n && v[i] >= '0' && v[i] <= '9' && x <= OCC_SPEC_MAX; i++) x = x * 10 + (v[i] - '0');
  return x;
}

/* The second number of chip's word (N,M), or -1. */
static long long occ_second(const char *list, const char *chip) {
  size_t n;
  const char *v = resolve_glob_value(list, chip, &n), *c = v ? memchr(v, ',', n) : NULL;
  if (!c) return -1;
  long long x = 0;
  for (c++; c < v + n && *c >= '0' && *c <= '9' && x <= OCC_SPEC_MAX; c++) x = x * 10 + (*c - '0');
  return x;
}

/* occupancy_sgprs' waves for s scalar registers: S=W,...,W; -1 for no limit. */
static long long occ_sgpr_waves(const char *list, const char *chip, long long s) {
  size_t n;
  const char *v = resolve_glob_value(list, chip, &n), *end = v ? v + n : NULL;
  while (v && v < end) {
    const char *comma = memchr(v, ',', (size_t)(end - v)), *stop = comma ? comma : end;
    const char *eq = memchr(v, '=', (size_t)(stop - v));
    long long a = 0, w = 0;
    for (const char *p = v; p < (eq ? eq : stop) && a <= OCC_SPEC_MAX; p++) a = a * 10 + (*p - '0');
    if (!eq) return a; /* the last word: any count above */
    for (const char *p = eq + 1; p < stop && w <= OCC_SPEC_MAX; p++) w = w * 10 + (*p - '0');
    if (s <= a) return w;
    v = comma ? comma + 1 : end;
  }
  return -1;
}

static long long occ_min(long long a, long long b) { return a < b ? a : b; }
static long long occ_ceil(long long a, long long b) { return (a + b - 1) / b; }
static long long occ_round_up(long long a, long long b) { return b > 0 ? occ_ceil(a, b) * b : a; }
static long long occ_used(long long x) { return x > 0 ? x : 0; }

/* The limiter: the first of the four limits, in the documented order, equal to the
** result; each is a count of the unit the result is in. */
static const char *occ_limiter(long long result, long long warps, long long regs, long long shared,
                               long long blocks) {
  if (warps == result) return "warps";
  if (regs == result) return "registers";
  if (shared == result) return "shared";
  if (blocks == result) return "blocks";
  return "warps";
}

/* The eight limits both formulas read, each chip's word of its occupancy_* key. */
typedef struct occ_limits {
  long long regs, unit, warps, blocks, shared, partitions, warp_size, max_block;
} occ_limits;

/* Reads chip's eight limits into l; 0 when one is missing or not positive (no limits). */
static int occ_read_limits(const target_desc *t, const char *chip, occ_limits *l) {
  l->regs = occ_value(t->occupancy_regs, chip), l->unit = occ_value(t->occupancy_reg_unit, chip);
  l->warps = occ_value(t->occupancy_warps, chip), l->blocks = occ_value(t->occupancy_blocks, chip);
  l->shared = occ_value(t->occupancy_shared, chip), l->partitions = occ_value(t->occupancy_partitions, chip);
  l->warp_size = occ_value(t->occupancy_warp_size, chip), l->max_block = occ_value(t->occupancy_max_block, chip);
  return l->regs > 0 && l->unit > 0 && l->warps > 0 && l->blocks > 0 && l->shared > 0 && l->partitions > 0 &&
         l->warp_size > 0 && l->max_block > 0;
}

/* cuda_occupancy.h's blocks an SM holds: each limit in blocks. */
static void occ_cuda(const target_desc *t, const char *chip, const occ_limits *l, long long bs,
                     gpublob_kernel_info *k) {
  long long regs_sm = l->regs, unit = l->unit, max_warps = l->warps, max_blocks = l->blocks;
  long long smem = l->shared, parts = l->partitions, ws = l->warp_size, max_block = l->max_block;
  long long block_regs = occ_value(t->occupancy_block_regs, chip), parts2 = occ_second(t->occupancy_partitions, chip);
  long long sunit = occ_value(t->occupancy_shared_unit, chip), sblock = occ_value(t->occupancy_shared_block, chip);
  long long reserved = occ_used(occ_value(t->occupancy_reserved, chip));
  if (block_regs <= 0) block_regs = regs_sm;
  if (k->wave_size > 0) ws = k->wave_size;
  long long warps = occ_ceil(bs, ws);
  long long lim_warps = bs > max_block || (k->max_threads > 0 && bs > k->max_threads) ? 0 : max_warps / warps;
  /* registers: a warp's rounded up to the unit, each sub-partition holding whole warps */
  long long per_warp = occ_round_up(occ_used(k->registers) * ws, unit), lim_regs = OCC_NONE;
  for (int pass = 0; pass < (parts2 > 0 ? 2 : 1) && per_warp > 0; pass++) {
    long long p = pass ? parts2 : parts, l;
    if (block_regs < per_warp * occ_round_up(warps, p) || block_regs < per_warp * warps || k->registers > 256)
      l = 0;
    else
      l = (regs_sm / p / per_warp) * p / warps;
    if (!pass) lim_regs = l;
    else if (!l) lim_regs = 0; /* a block a GP10x-like SM could not hold counts as none */
  }
  /* shared memory: static bytes plus the reserved, rounded up to the unit */
  long long alloc = occ_round_up(occ_used(k->shared_bytes) + reserved, sunit), lim_shared = OCC_NONE;
  if (sblock > 0 && alloc > sblock + reserved) lim_shared = 0;
  else if (alloc > 0) lim_shared = smem / alloc;
  long long blocks = occ_min(occ_min(lim_warps, lim_regs), occ_min(lim_shared, max_blocks));
  k->blocks_per_sm = blocks;
  k->occupancy = (double)(blocks * warps) / (double)max_warps;
  k->occupancy_limiter = occ_limiter(blocks, lim_warps, lim_regs, lim_shared, max_blocks);
}

/* Does the chip's name (a target id) set feature f with a '+'? */
static int occ_feature_on(const char *chip, const char *f, size_t n) {
  const char *c = strchr(chip, ':');
  while (c) {
    c++;
    const char *next = strchr(c, ':');
    size_t len = next ? (size_t)(next - c) : strlen(c);
    if (len == n + 1 && !memcmp(c, f, n) && c[n] == '+') return 1;
    c = next;
  }
  return 0;
}

/* LLVM's waves a SIMD holds: each limit in waves a SIMD. */
static void occ_amdgpu(const target_desc *t, const char *chip, const char *id, const occ_limits *l, long long bs,
                       gpublob_kernel_info *k) {
  long long regs = l->regs, unit = l->unit, max_waves = l->warps, barriers = l->blocks;
  long long lds = l->shared, simds = l->partitions, ws = l->warp_size, max_block = l->max_block;
  size_t sn;
  const char *split = resolve_glob_value(t->occupancy_split, chip, &sn);
  if (split && sn && occ_feature_on(id, split, sn)) simds /= 2, lds /= 2, barriers /= 2; /* CU mode */
  if (k->wave_size > 0) ws = k->wave_size;
  long long waves = occ_ceil(bs, ws), slots = max_waves * simds;
  int fits = bs <= max_block && (k->max_threads <= 0 || bs <= k->max_threads);
  /* work-groups a CU holds for wave slots, and for barriers (a one-wave group takes none) */
  long long lim_warps = fits ? occ_min(occ_ceil(slots / waves * waves, simds), max_waves) : 0;
  long long lim_blocks = waves > 1 ? occ_min(occ_ceil(barriers * waves, simds), max_waves) : max_waves;
  long long groups_lds = lds / (occ_used(k->shared_bytes) ? occ_used(k->shared_bytes) : 1);
  long long lim_shared = occ_min(occ_ceil(groups_lds * waves, simds), max_waves);
  /* registers: VGPRs (LLVM: fewer than a granule leave every slot), SGPRs by the table */
  long long v = occ_used(k->registers), lim_regs = max_waves;
  if (v && v * ws >= unit) lim_regs = occ_min(max_waves, regs / occ_round_up(v * ws, unit));
  if (v && lim_regs < 1) lim_regs = 1;
  long long sw = occ_used(k->sgprs) ? occ_sgpr_waves(t->occupancy_sgprs, chip, occ_used(k->sgprs)) : -1;
  if (sw > 0) lim_regs = occ_min(lim_regs, sw);
  long long w = occ_min(occ_min(lim_warps, lim_regs), occ_min(lim_shared, lim_blocks));
  if (w < 1 && lim_warps > 0 && lim_shared > 0) w = 1; /* LLVM's clamp */
  k->waves_per_simd = w;
  k->occupancy = (double)w / (double)max_waves;
  k->occupancy_limiter = occ_limiter(w, lim_warps, lim_regs, lim_shared, lim_blocks);
}

/* Fills k's occupancy fields for blocks of block_size threads (0: k->max_threads when
** > 0, else the product of k->reqd_threads when set, else 1024) on chip (a target id
** such as "gfx90a:xnack+" or "sm_90"; the ":feature" modifiers are stripped, and
** read only for occupancy_split) of target t; a chip without limits in the spec
** leaves them -1 and "". */
/* Figures no chip has (a crafted note, a cache file's bytes: anyone's) would overflow
** the arithmetic above, or make a divisor 0: with one, no occupancy is figured. */
enum { OCC_MAX_COUNT = 1 << 24 };
_Static_assert((int)OCC_MAX_COUNT == (int)MAX_BLOCK_SIZE, "every block size the options take gets an occupancy");
static int occ_sane(const gpublob_kernel_info *k, long long block_size) {
  const long long counts[] = {k->registers, k->sgprs, k->wave_size, k->max_threads, k->reqd_threads[0],
                              k->reqd_threads[1], k->reqd_threads[2], block_size};
  for (size_t i = 0; i < sizeof counts / sizeof *counts; i++)
    if (counts[i] > OCC_MAX_COUNT) return 0;
  return k->shared_bytes <= ((long long)1 << 40);
}

GPUBLOB_PRIVATE void occupancy_fill(const target_desc *t, const char *chip, long long block_size, gpublob_kernel_info *k) {
  k->occupancy = -1.0, k->occupancy_limiter = "", k->blocks_per_sm = -1, k->waves_per_simd = -1;
  k->occupancy_block_size = -1;
  if (!occ_sane(k, block_size)) return;
  long long bs = block_size;
  if (bs <= 0) bs = k->max_threads > 0 ? k->max_threads : 0;
  if (bs <= 0 && k->reqd_threads[0] > 0) {
    /* each at most OCC_MAX_COUNT (occ_sane), their product up to 2^72: none past it is figured */
    bs = kt_count_mul(kt_count_mul(k->reqd_threads[0], k->reqd_threads[1] > 0 ? k->reqd_threads[1] : 1),
                   k->reqd_threads[2] > 0 ? k->reqd_threads[2] : 1);
    if (bs < 0 || bs > OCC_MAX_COUNT) return; /* a block of more threads than any chip's, by far */
  }
  if (bs <= 0) bs = 1024;
  if (bs > OCC_MAX_COUNT || !t || !chip) return;
  char name[64];
  size_t n = strcspn(chip, ":");
  if (n >= sizeof name) return;
  memcpy(name, chip, n);
  name[n] = 0;
  occ_limits l;
  if (t->occupancy == OCCUPANCY_none || !occ_read_limits(t, name, &l)) return; /* no limits for this chip */
  if (t->occupancy == OCCUPANCY_cuda) occ_cuda(t, name, &l, bs, k);
  else if (t->occupancy == OCCUPANCY_amdgpu) occ_amdgpu(t, name, chip, &l, bs, k);
  if (*k->occupancy_limiter) k->occupancy_block_size = bs;
}
