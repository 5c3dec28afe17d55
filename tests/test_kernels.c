/* test_kernels: kernel metadata (gpublob_kernel_count, gpublob_kernel_get, the CLI's
** --metadata and --verbose), checked against the vendors' own tools.
**
** clang-22 makes LLVM IR of the CUDA, HIP and OpenCL kernels of tests/clang/ at test
** time (saxpy, reduce with __shared__ memory, spill with many live values under a
** register limit, bounds with __launch_bounds__, amdgpu_flat_work_group_size,
** reqd_work_group_size).  Then:
**   NVIDIA (sm_75, sm_90; CUDA 13's ptxas has no sm_70): each kernel's registers,
**     static shared bytes and stack frame equal what ptxas -v prints for the PTX
**     gpublob makes (-f asm) of the same IR; its parameter bytes and block sizes
**     equal the PTX's own .entry parameters and .maxntid/.reqntid; spills, which a
**     cubin does not record, are -1 (ptxas -v's spill stores are printed, not kept).
**   AMD (gfx90a, gfx942, gfx1100): every figure equals llvm-readelf --notes' map.
**   A pack's members, each with its chip; a cache hit; the front on a hit writing
**   the same --metadata JSON; FORMAT for assembly, bitcode and MLIR; MISUSE;
**   hostile blobs (truncated, bytes flipped, a note that runs past its section)
**   refused with TOOL, never a crash.
** Parts whose tool is missing (ptxas, ocml) are skipped with the reason. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpublob.h"
#include "src/kernel_keys.h" /* the reader's AMD keys */
#include "testlib.h"

#define CLANG LLVM_BINDIR "/clang"
#define READELF LLVM_BINDIR "/llvm-readelf"
#define CLI "build/gpublob"
#define SRC "tests/clang/"

static char ptxas[4096]; /* "" when the CUDA toolkit is missing */
static gpublob *g;

/* A kernel's figures, its strings copied (the handle's last only until its next call). */
typedef struct kinfo {
  gpublob_kernel_info k;
  char name[256], chip[64];
} kinfo;
enum { MAXK = 16 };
/* check(), then ok itself (a pure expression, evaluated twice), to go on or not. */
#define checked(ok, name, ...) (check(ok, name, __VA_ARGS__), (ok))

/* ---- making blobs ---- */

static int compile(const char *ll, const char *target, int format, const char *cache, int tool_mode,
                   gpublob_result *r) {
  gpublob_options o = GPUBLOB_OPTIONS_INIT;
  o.target = target;
  o.format = format;
  o.flags = GPUBLOB_FLAG_RETARGET;
  o.cache_dir = cache;
  o.tool_mode = tool_mode;
  o.jobs = 1;
  gpublob_input in = {GPUBLOB_INPUT_LLVM, NULL, 0, ll, NULL};
  return gpublob_compile(g, &o, &in, r);
}

/* The kernels of output i; the count, or -1 with the code in *code. */
static int kernels_of(const gpublob_result *r, size_t i, kinfo *out, int *code) {
  size_t n = 0;
  int rc = gpublob_kernel_count(g, r, i, &n);
  if (code) *code = rc;
  if (rc) return -1;
  for (size_t k = 0; k < n && k < MAXK; k++) {
    rc = gpublob_kernel_get(g, r, i, k, &out[k].k, sizeof out[k].k);
    if (rc) return *code = rc, -1;
    snprintf(out[k].name, sizeof out[k].name, "%s", out[k].k.name);
    snprintf(out[k].chip, sizeof out[k].chip, "%s", out[k].k.chip);
  }
  return (int)(n < MAXK ? n : MAXK);
}

static const kinfo *find_kernel(const kinfo *k, int n, const char *name, const char *chip) {
  for (int i = 0; i < n; i++)
    if (!strcmp(k[i].name, name) && (!chip || !strcmp(k[i].chip, chip))) return &k[i];
  return NULL;
}

/* ---- ptxas -v and the PTX ---- */
/* The number before suffix in the text after from (up to the next "Compiling"); -1 if none. */
static long long number_before(const char *from, const char *suffix) {
  const char *end = strstr(from, "Compiling entry");
  const char *s = strstr(from, suffix);
  if (!s || (end && s > end)) return -1;
  while (s > from && s[-1] == ' ') s--;
  while (s > from && s[-1] >= '0' && s[-1] <= '9') s--;
  return strtoll(s, NULL, 10);
}

typedef struct ptxas_v {
  long long registers, smem, stack, spill_stores, spill_loads, barriers;
} ptxas_v;

/* ptxas -v -arch=chip on the PTX: the kernel's figures; 0 when it ran and printed them. */
static int run_ptxas_v(const char *ptx, const char *chip, const char *kernel, ptxas_v *v) {
  char arch[64], marker[300];
  snprintf(arch, sizeof arch, "-arch=%s", chip);
  const char *argv[] = {ptxas, "-v", "-O3", arch, ptx, "-o", "/dev/null", NULL};
  char *log = NULL;
  int rc = run(argv, &log);
  snprintf(marker, sizeof marker, "Compiling entry function '%s'", kernel);
  const char *at = log ? strstr(log, marker) : NULL;
  if (rc || !at) {
    free(log);
    return -1;
  }
  at += strlen(marker);
  v->registers = number_before(at, " registers");
  v->smem = number_before(at, " bytes smem");
  if (v->smem < 0) v->smem = 0; /* ptxas prints smem only when there is some */
  v->stack = number_before(at, " bytes stack frame");
  v->spill_stores = number_before(at, " bytes spill stores");
  v->spill_loads = number_before(at, " bytes spill loads");
  v->barriers = number_before(at, " barriers");
  free(log);
  return v->registers < 0 || v->stack < 0 ? -1 : 0;
}

/* The PTX .entry's parameter bytes, laid out as PTX lays them (each at its alignment). */
static long long ptx_params(const char *ptx, const char *kernel) {
  char marker[300];
  snprintf(marker, sizeof marker, ".entry %s(", kernel);
  const char *p = strstr(ptx, marker), *end = p ? strchr(p, ')') : NULL;
  if (!p || !end) return -1;
  long long off = 0;
  for (const char *q = strstr(p, ".param"); q && q < end; q = strstr(q + 6, ".param")) {
    const char *line_end = strchr(q, '\n');
    char line[512];
    snprintf(line, sizeof line, "%.*s", (int)(line_end ? line_end - q : 100), q);
    long long size = 0, align = 0;
    const char *b = strstr(line, " .b"), *bracket = strchr(line, '['), *al = strstr(line, ".align ");
    if (!b) b = strstr(line, " .u");
    if (!b) b = strstr(line, " .f");
    if (!b) b = strstr(line, " .s");
    if (!b) return -1;
    size = strtoll(b + 3, NULL, 10) / 8;
    align = size;
    if (bracket) size *= strtoll(bracket + 1, NULL, 10), align = al ? strtoll(al + 7, NULL, 10) : 1;
    if (align > 0) off = (off + align - 1) / align * align;
    off += size;
  }
  return off;
}

/* .maxntid or .reqntid of the kernel's PTX: x*y*z into *total and the three; 0 when absent. */
static int ptx_ntid(const char *ptx, const char *kernel, const char *directive, long long xyz[3]) {
  char marker[300];
  snprintf(marker, sizeof marker, ".entry %s(", kernel);
  const char *p = strstr(ptx, marker), *body = p ? strchr(p, '{') : NULL, *d = p ? strstr(p, directive) : NULL;
  xyz[0] = xyz[1] = xyz[2] = 0;
  if (!d || (body && d > body)) return 0;
  char *e;
  xyz[0] = strtoll(d + strlen(directive), &e, 10);
  xyz[1] = *e == ',' ? strtoll(e + 1, &e, 10) : 1;
  xyz[2] = *e == ',' ? strtoll(e + 1, &e, 10) : 1;
  return 1;
}

/* ---- NVIDIA ---- */
static void nv_case(const char *ll, const char *stem, const char *const *kernels, const char *chip) {
  char target[64], label[400], ptxpath[4200];
  snprintf(target, sizeof target, "nvptx:%s", chip);
  gpublob_result bin = {0}, as = {0};
  int rc = compile(ll, target, GPUBLOB_FORMAT_BIN, NULL, GPUBLOB_TOOL_PROGRAM, &bin);
  snprintf(label, sizeof label, "nvptx %s %s: compiles to a cubin (ptxas)", stem, chip);
  if (!checked(rc == 0, label, "%s", gpublob_error_message(g))) return;
  rc = compile(ll, target, GPUBLOB_FORMAT_ASM, NULL, 0, &as);
  snprintf(ptxpath, sizeof ptxpath, "%s/%s_%s.ptx", scratch(), stem, chip);
  if (!rc) spill(ptxpath, as.outputs[0].blob.data, as.outputs[0].blob.size);
  char *ptx = rc ? NULL : strndup((const char *)as.outputs[0].blob.data, as.outputs[0].blob.size);
  kinfo k[MAXK];
  int code, n = kernels_of(&bin, 0, k, &code);
  snprintf(label, sizeof label, "nvptx %s %s: the cubin's kernels are read", stem, chip);
  check(n > 0, label, "code %d: %s", code, gpublob_error_message(g));
  for (const char *const *kn = kernels; *kn && ptx; kn++) {
    const kinfo *ki = find_kernel(k, n, *kn, chip);
    snprintf(label, sizeof label, "nvptx %s %s: kernel %s listed with its chip", stem, chip, *kn);
    if (!checked(ki != NULL, label, "%d kernels", n)) continue;
    ptxas_v v;
    int have = *ptxas && !run_ptxas_v(ptxpath, chip, *kn, &v);
    snprintf(label, sizeof label, "nvptx %s %s %s: ptxas -v ran on gpublob's PTX", stem, chip, *kn);
    if (!*ptxas) skip(label, "no ptxas");
    else check(have, label, "%s", ptxpath);
#define NV_SAME(field, want, what)                                                                          \
  snprintf(label, sizeof label, "nvptx %s %s %s: %s as ptxas -v", stem, chip, *kn, what);                  \
  check_if(have, ki->k.field == (want), label, "gpublob %lld, ptxas %lld", ki->k.field, (long long)(want))
    NV_SAME(registers, v.registers, "registers");
    NV_SAME(shared_bytes, v.smem, "static shared bytes");
    NV_SAME(local_bytes, v.stack, "stack frame bytes");
    snprintf(label, sizeof label, "nvptx %s %s %s: spills -1 (a cubin records no registers spilled)", stem, chip, *kn);
    check(ki->k.spills == -1 && ki->k.vgpr_spills == -1 && ki->k.sgprs == -1, label, "%lld", ki->k.spills);
    /* what the cubin does not record, from ptxas's own -v report of the compile */
    NV_SAME(spill_store_bytes, v.spill_stores, "spill store bytes (the tool's report)");
    NV_SAME(spill_load_bytes, v.spill_loads, "spill load bytes (the tool's report)");
    NV_SAME(barriers, v.barriers, "barriers (the tool's report)");
    if (!strcmp(stem, "spill")) {
      snprintf(label, sizeof label, "nvptx %s %s %s: the spilling kernel shows its spills", stem, chip, *kn);
      check(ki->k.spill_store_bytes > 0 && ki->k.spill_load_bytes > 0, label, "%lld, %lld", ki->k.spill_store_bytes,
            ki->k.spill_load_bytes);
    }
    long long params = ptx_params(ptx, *kn), mx[3], rq[3];
    snprintf(label, sizeof label, "nvptx %s %s %s: parameter bytes as the PTX .entry lays them out", stem, chip, *kn);
    check(params > 0 && ki->k.params_bytes == params, label, "gpublob %lld, PTX %lld", ki->k.params_bytes, params);
    int has_max = ptx_ntid(ptx, *kn, ".maxntid ", mx), has_req = ptx_ntid(ptx, *kn, ".reqntid ", rq);
    long long want_max = has_max ? mx[0] * mx[1] * mx[2] : has_req ? rq[0] * rq[1] * rq[2] : -1;
    snprintf(label, sizeof label, "nvptx %s %s %s: max threads as the PTX's .maxntid (-1 without)", stem, chip, *kn);
    check(ki->k.max_threads == want_max, label, "gpublob %lld, PTX %lld", ki->k.max_threads, want_max);
    snprintf(label, sizeof label, "nvptx %s %s %s: required block as the PTX's .reqntid (0 without)", stem, chip, *kn);
    check(ki->k.reqd_threads[0] == rq[0] && ki->k.reqd_threads[1] == (has_req ? rq[1] : 0) &&
              ki->k.reqd_threads[2] == (has_req ? rq[2] : 0),
          label, "gpublob %lldx%lldx%lld, PTX %lldx%lldx%lld", ki->k.reqd_threads[0], ki->k.reqd_threads[1],
          ki->k.reqd_threads[2], rq[0], rq[1], rq[2]);
  }
  /* the cubin is ptxas's own of the PTX: with -v (the report gpublob asks for, which
  ** ptxas records in the cubin's tool note), and without it under NO_TOOL_REPORT */
  for (int plain = 0; ptx && *ptxas && plain < 2; plain++) {
    char cubin[4200], arch[64];
    snprintf(cubin, sizeof cubin, "%s/%s_%s_%d.cubin", scratch(), stem, chip, plain);
    snprintf(arch, sizeof arch, "-arch=%s", chip);
    const char *with_v[] = {ptxas, arch, "-O3", "-v", ptxpath, "-o", cubin, NULL};
    const char *without[] = {ptxas, arch, "-O3", ptxpath, "-o", cubin, NULL};
    char *log = NULL;
    int prc = run(plain ? without : with_v, &log);
    free(log);
    gpublob_result own = {0};
    gpublob_options o = GPUBLOB_OPTIONS_INIT;
    o.target = target;
    o.flags = GPUBLOB_FLAG_RETARGET | (plain ? GPUBLOB_FLAG_NO_TOOL_REPORT : 0);
    o.tool_mode = GPUBLOB_TOOL_PROGRAM;
    gpublob_input in = {GPUBLOB_INPUT_LLVM, NULL, 0, ll, NULL};
    int grc = gpublob_compile(g, &o, &in, &own);
    size_t n = 0;
    unsigned char *want = prc ? NULL : slurp(cubin, &n);
    snprintf(label, sizeof label, "nvptx %s %s: the cubin is ptxas %s's, byte for byte", stem, chip,
             plain ? "without -v (NO_TOOL_REPORT)" : "-v");
    check(grc == 0 && want && own.outputs[0].blob.size == n && !memcmp(own.outputs[0].blob.data, want, n), label,
          "rc %d/%d, %zu bytes against %zu", grc, prc, grc ? 0 : own.outputs[0].blob.size, n);
    if (plain && grc == 0) {
      kinfo pk[MAXK];
      int np = kernels_of(&own, 0, pk, &code);
      snprintf(label, sizeof label, "nvptx %s %s: without the report, spill bytes and barriers are -1", stem, chip);
      check(np > 0 && pk[0].k.spill_store_bytes == -1 && pk[0].k.barriers == -1, label, "%d kernels", np);
    }
    free(want);
    gpublob_result_free(&own);
  }
  /* nvJitLink's cubin (in-process): the same kernels, shared memory and parameters
  ** (its registers may differ: its CUDA version's compiler) */
  gpublob_result jit = {0};
  rc = compile(ll, target, GPUBLOB_FORMAT_BIN, NULL, GPUBLOB_TOOL_INPROCESS, &jit);
  snprintf(label, sizeof label, "nvptx %s %s: nvJitLink's cubin has the same kernels, shared and parameter bytes",
           stem, chip);
  if (rc == GPUBLOB_NOTOOL) skip(label, "no libnvJitLink");
  else {
    kinfo j[MAXK];
    int nj = kernels_of(&jit, 0, j, &code), same = rc == 0 && nj == n;
    for (int i = 0; same && i < n; i++)
      same = !strcmp(j[i].name, k[i].name) && j[i].k.registers > 0 && j[i].k.shared_bytes == k[i].k.shared_bytes &&
             j[i].k.params_bytes == k[i].k.params_bytes && j[i].k.max_threads == k[i].k.max_threads &&
             !memcmp(j[i].k.reqd_threads, k[i].k.reqd_threads, sizeof k[i].k.reqd_threads);
    check(same, label, "rc %d, %d kernels against %d", rc, nj, n);
    /* nvJitLink's info log (-verbose) reports its own compile: its figures are its
    ** ptxas's -v of the same PTX, the stack frame the cubin's own */
    for (int i = 0; rc == 0 && i < nj; i++) {
      ptxas_v v;
      int have = *ptxas && !run_ptxas_v(ptxpath, chip, j[i].name, &v);
      snprintf(label, sizeof label, "nvptx %s %s %s: nvJitLink's spill bytes and barriers as ptxas -v (its info log)",
               stem, chip, j[i].name);
      if (!have) skip(label, "no ptxas");
      else
        check(j[i].k.spill_store_bytes == v.spill_stores && j[i].k.spill_load_bytes == v.spill_loads &&
                  j[i].k.barriers == v.barriers && j[i].k.local_bytes == v.stack,
              label, "nvJitLink %lld/%lld/%lld/%lld, ptxas %lld/%lld/%lld/%lld", j[i].k.spill_store_bytes,
              j[i].k.spill_load_bytes, j[i].k.barriers, j[i].k.local_bytes, v.spill_stores, v.spill_loads, v.barriers,
              v.stack);
    }
  }
  gpublob_result_free(&jit);
  /* assembly records none */
  size_t cnt = 7;
  snprintf(label, sizeof label, "nvptx %s %s: -f asm (PTX) is FORMAT, count 0", stem, chip);
  check(gpublob_kernel_count(g, &as, 0, &cnt) == GPUBLOB_FORMAT && cnt == 0, label, "%s", gpublob_error_message(g));
  free(ptx);
  gpublob_result_free(&bin);
  gpublob_result_free(&as);
}

/* ---- AMD: llvm-readelf --notes ---- */
/* The kernel's block of the notes' YAML (from its "  - " to the next one), copied. */
static char *notes_block(const char *notes, const char *kernel) {
  char marker[300];
  snprintf(marker, sizeof marker, ".name:           %s\n", kernel);
  const char *at = strstr(notes, marker);
  if (!at) {
    snprintf(marker, sizeof marker, ".name: %s\n", kernel);
    if (!(at = strstr(notes, marker))) return NULL;
  }
  const char *start = at;
  while (start > notes && strncmp(start, "\n  - .", 6)) start--;
  const char *end = strstr(at, "\n  - .");
  const char *tgt = strstr(at, "\namdhsa.");
  if (!end || (tgt && tgt < end)) end = tgt ? tgt : at + strlen(at);
  return strndup(start, (size_t)(end - start));
}

static long long notes_int(const char *block, const char *key) {
  char m1[128], m2[128];
  snprintf(m1, sizeof m1, "\n    %s:", key);
  snprintf(m2, sizeof m2, "\n  - %s:", key);
  const char *at = strstr(block, m1);
  if (!at) at = strstr(block, m2);
  if (!at) return -1;
  return strtoll(at + strlen(m1), NULL, 10);
}

static void amd_case(const char *ll, const char *stem, const char *const *kernels, const char *chip) {
  char target[64], label[400], path[4200];
  snprintf(target, sizeof target, "amdgcn:%s", chip);
  gpublob_result bin = {0};
  int rc = compile(ll, target, GPUBLOB_FORMAT_BIN, NULL, 0, &bin);
  snprintf(label, sizeof label, "amdgcn %s %s: compiles to a code object", stem, chip);
  if (rc == GPUBLOB_NOLIB) {
    skip(label, gpublob_error_message(g));
    return;
  }
  if (!checked(rc == 0, label, "%s", gpublob_error_message(g))) return;
  snprintf(path, sizeof path, "%s/%s_%s.hsaco", scratch(), stem, chip);
  spill(path, bin.outputs[0].blob.data, bin.outputs[0].blob.size);
  const char *argv[] = {READELF, "--notes", path, NULL};
  char *notes = NULL;
  int nrc = run(argv, &notes);
  snprintf(label, sizeof label, "amdgcn %s %s: llvm-readelf --notes prints the metadata", stem, chip);
  check(nrc == 0 && contains(notes, "amdhsa.kernels"), label, "%s", shown(notes));
  kinfo k[MAXK];
  int code, n = kernels_of(&bin, 0, k, &code);
  snprintf(label, sizeof label, "amdgcn %s %s: the code object's kernels are read", stem, chip);
  check(n > 0, label, "code %d: %s", code, gpublob_error_message(g));
  for (const char *const *kn = kernels; *kn && notes; kn++) {
    const kinfo *ki = find_kernel(k, n, *kn, chip);
    char *b = notes_block(notes, *kn);
    snprintf(label, sizeof label, "amdgcn %s %s: kernel %s read and in the notes", stem, chip, *kn);
    if (!checked(ki && b, label, "%d kernels; notes block %s", n, b ? "found" : "missing")) {
      free(b);
      continue;
    }
    static const struct { const char *key; size_t off; } keys[] = { /* the reader's own list; values: llvm-readelf's */
#define TEST_AMD_KEY(key, field) {"." #key, offsetof(gpublob_kernel_info, field)},
        GPUBLOB_AMDGPU_KERNEL_KEYS(TEST_AMD_KEY)
#undef TEST_AMD_KEY
    };
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
      long long want = notes_int(b, keys[i].key), got = *(const long long *)((const char *)&ki->k + keys[i].off);
      snprintf(label, sizeof label, "amdgcn %s %s %s: %s as llvm-readelf --notes", stem, chip, *kn, keys[i].key);
      check(got == want, label, "gpublob %lld, notes %lld", got, want);
    }
    long long vs = notes_int(b, ".vgpr_spill_count"), ss = notes_int(b, ".sgpr_spill_count");
    snprintf(label, sizeof label, "amdgcn %s %s %s: spills are the VGPR and SGPR spills", stem, chip, *kn);
    check(ki->k.spills == (vs >= 0 && ss >= 0 ? vs + ss : -1), label, "%lld", ki->k.spills);
    const char *rq = strstr(b, ".reqd_workgroup_size:");
    long long want[3] = {0, 0, 0};
    for (int i = 0; rq && i < 3; i++) {
      rq = strstr(rq, "- ");
      if (rq) want[i] = strtoll(rq += 2, NULL, 10);
    }
    snprintf(label, sizeof label, "amdgcn %s %s %s: .reqd_workgroup_size as the notes (0 without)", stem, chip, *kn);
    check(!memcmp(want, ki->k.reqd_threads, sizeof want), label, "gpublob %lldx%lldx%lld, notes %lldx%lldx%lld",
          ki->k.reqd_threads[0], ki->k.reqd_threads[1], ki->k.reqd_threads[2], want[0], want[1], want[2]);
    free(b);
  }
  free(notes);
  gpublob_result_free(&bin);
}

/* ---- packs: each member's kernels with its chip, as its own bin's ---- */
static void pack_case(const char *ll, const char *target, const char *const *chips, const char *kernel) {
  char label[400], one[64];
  gpublob_result pack = {0};
  /* nvptx: ptxas for the members, as for the bins (three jobs would take nvJitLink,
  ** whose registers may differ); amdgcn: the in-process bundle */
  int mode = !strncmp(target, "nvptx", 5) ? GPUBLOB_TOOL_PROGRAM : 0;
  int rc = compile(ll, target, GPUBLOB_FORMAT_PACK, NULL, mode, &pack);
  snprintf(label, sizeof label, "pack %s: compiles", target);
  if (!checked(rc == 0, label, "%s", gpublob_error_message(g))) return;
  kinfo k[MAXK];
  int code, n = kernels_of(&pack, 0, k, &code);
  snprintf(label, sizeof label, "pack %s: its members' kernels are read", target);
  check(n > 0, label, "code %d: %s", code, gpublob_error_message(g));
  for (const char *const *c = chips; *c; c++) {
    const kinfo *ki = find_kernel(k, n, kernel, *c);
    snprintf(one, sizeof one, "%.*s:%s", (int)strcspn(target, ":"), target, *c);
    gpublob_result bin = {0};
    rc = compile(ll, one, GPUBLOB_FORMAT_BIN, NULL, GPUBLOB_TOOL_PROGRAM, &bin);
    kinfo b[MAXK];
    int nb = rc ? -1 : kernels_of(&bin, 0, b, &code);
    const kinfo *bi = nb > 0 ? find_kernel(b, nb, kernel, *c) : NULL;
    snprintf(label, sizeof label, "pack %s: %s's kernel %s, with its chip, as the %s bin's", target, *c, kernel, *c);
    check(ki && bi && ki->k.registers == bi->k.registers && ki->k.shared_bytes == bi->k.shared_bytes &&
              ki->k.local_bytes == bi->k.local_bytes && ki->k.params_bytes == bi->k.params_bytes,
          label, "member %s, bin %s", ki ? "found" : "missing", bi ? "found" : "missing");
    gpublob_result_free(&bin);
  }
  snprintf(label, sizeof label, "pack %s: one kernel per member", target);
  int members = 0;
  for (const char *const *c = chips; *c; c++) members++;
  check(n == members, label, "%d kernels, %d members", n, members);
  gpublob_result_free(&pack);
}

/* ---- MLIR: each #gpu.object's kernel table ---- */
/* The "metadata = {...}" of kernel's #gpu.kernel_metadata in text, copied; NULL if none. */
static char *table_entry(const char *text, const char *kernel) {
  char marker[300];
  snprintf(marker, sizeof marker, "#gpu.kernel_metadata<\"%s\", ", kernel);
  const char *at = text ? strstr(text, marker) : NULL, *md = at ? strstr(at, "metadata = {") : NULL;
  const char *end = md ? strchr(md, '}') : NULL;
  return end ? strndup(md, (size_t)(end - md + 1)) : NULL;
}

/* The integer of "key = N : i64" in an entry; -1 if absent. */
static long long entry_int(const char *entry, const char *key) {
  char marker[128];
  snprintf(marker, sizeof marker, "%s = ", key);
  const char *at = entry;
  while ((at = strstr(at, marker)) && at > entry && at[-1] != ' ' && at[-1] != '{') at++;
  return at ? strtoll(at + strlen(marker), NULL, 10) : -1;
}

/* mlir-opt lowers and attaches; gpublob and mlir-opt --gpu-module-to-binary serialise. */
static int mlir_lowered(const char *in, const char *attach, const char *lower, const char *out) {
  char pipeline[512];
  snprintf(pipeline, sizeof pipeline, "--pass-pipeline=builtin.module(%s,gpu.module(%s))", attach, lower);
  const char *argv[] = {LLVM_BINDIR "/mlir-opt", in, pipeline, "-o", out, NULL};
  char *log = NULL;
  int rc = run(argv, &log);
  check(rc == 0, "mlir: mlir-opt lowers and attaches", "%s", shown(log));
  free(log);
  return rc;
}

static void mlir_case(void) {
  if (!gpublob_mlir_enabled()) {
    skip("mlir: kernel tables", "built without MLIR");
    return;
  }
  if (!have_program(LLVM_BINDIR "/mlir-opt")) { /* it lowers the inputs, and reads the results back */
    skip("mlir: kernel tables", "mlir-opt not found (mlir-22-tools)");
    return;
  }
  static const struct { const char *attach, *lower, *key, *kind; } tg[] = {
      {"nvvm-attach-target{chip=sm_90 O=3}", "convert-scf-to-cf,convert-gpu-to-nvvm,reconcile-unrealized-casts",
       "num_regs", "nvvm"},
      {"rocdl-attach-target{chip=gfx90a O=3}",
       "convert-scf-to-cf,convert-gpu-to-rocdl{chipset=gfx90a},reconcile-unrealized-casts", "vgpr_count", "rocdl"}};
  static const struct { const char *in, *kernels[3]; } ins[] = {
      {"examples/saxpy.mlir", {"saxpy"}}, {"tests/mlir/two_kernels.mlir", {"scale", "rowsum"}},
      {"tests/mlir/two_modules.mlir", {"fill", "reverse"}}};
  const char *rocm = rocm_folder();
  char up_opt[4400];
  int rocm_ok = rocm != NULL;
  if (rocm) snprintf(up_opt, sizeof up_opt, "--gpu-module-to-binary=format=fatbin toolkit=%s", rocm);
  for (size_t t = 0; t < 2; t++)
    for (size_t i = 0; i < 3; i++) {
      char lowered[4200], ours[4200], theirs[4200], label[400];
      snprintf(lowered, sizeof lowered, "%s/%s_%zu_lowered.mlir", scratch(), tg[t].kind, i);
      snprintf(ours, sizeof ours, "%s/%s_%zu_ours.mlir", scratch(), tg[t].kind, i);
      snprintf(theirs, sizeof theirs, "%s/%s_%zu_theirs.mlir", scratch(), tg[t].kind, i);
      if (!strcmp(tg[t].kind, "nvvm") && !*ptxas) {
        skip("mlir: nvvm kernel tables", "no ptxas");
        continue;
      }
      if (!strcmp(tg[t].kind, "rocdl") && i == 0 && !need_rocm("mlir rocdl examples/saxpy.mlir (math.exp is ocml's)"))
        continue;
      if (mlir_lowered(ins[i].in, tg[t].attach, tg[t].lower, lowered)) continue;
      gpublob_options o = GPUBLOB_OPTIONS_INIT;
      gpublob_input in = {GPUBLOB_INPUT_MLIR, NULL, 0, lowered, NULL};
      gpublob_result r = {0};
      int rc = gpublob_compile(g, &o, &in, &r);
      snprintf(label, sizeof label, "mlir %s %s: compiles", tg[t].kind, ins[i].in);
      if (!checked(rc == 0, label, "%s", gpublob_error_message(g))) continue;
      spill(ours, r.outputs[0].blob.data, r.outputs[0].blob.size);
      char *text = strndup((const char *)r.outputs[0].blob.data, r.outputs[0].blob.size);
      size_t n = 9;
      snprintf(label, sizeof label, "mlir %s %s: the whole module is FORMAT for gpublob_kernel_count", tg[t].kind,
               ins[i].in);
      check(gpublob_kernel_count(g, &r, 0, &n) == GPUBLOB_FORMAT && n == 0, label, NULL);
      gpublob_result_free(&r);
      const char *parse[] = {LLVM_BINDIR "/mlir-opt", ours, "-o", "/dev/null", NULL};
      char *log = NULL;
      rc = run(parse, &log);
      snprintf(label, sizeof label, "mlir %s %s: mlir-opt-22 parses every #gpu.object with its kernel table",
               tg[t].kind, ins[i].in);
      check(rc == 0 && contains(text, "kernels = <[#gpu.kernel_metadata<"), label, "%s", shown(log));
      free(log);
      /* upstream's ROCDL writes a kernel table for format=fatbin: the same figures */
      char *up = NULL;
      if (!strcmp(tg[t].kind, "rocdl") && rocm_ok) {
        const char *argv[] = {LLVM_BINDIR "/mlir-opt", lowered, up_opt, "-o", theirs, NULL};
        char *ulog = NULL;
        if (!run(argv, &ulog)) up = (char *)slurp(theirs, NULL);
        free(ulog);
        snprintf(label, sizeof label, "mlir rocdl %s: mlir-opt --gpu-module-to-binary=format=fatbin", ins[i].in);
        check(up != NULL, label, NULL);
      }
      for (const char *const *k = ins[i].kernels; *k; k++) {
        char *e = table_entry(text, *k), *u = up ? table_entry(up, *k) : NULL;
        snprintf(label, sizeof label, "mlir %s %s: %s's entry, with !llvm.func and %s", tg[t].kind, ins[i].in, *k,
                 tg[t].key);
        check(e && contains(text, "!llvm.func<") && entry_int(e, tg[t].key) > 0, label, "%s", shown(e));
        static const char *const keys[] = {"vgpr_count", "sgpr_count", "agpr_count", "vgpr_spill_count",
                                           "sgpr_spill_count", "wavefront_size", "max_flat_workgroup_size",
                                           "group_segment_fixed_size", "private_segment_fixed_size", NULL};
        for (const char *const *key = keys; u && e && *key; key++) {
          snprintf(label, sizeof label, "mlir rocdl %s %s: %s as upstream's kernel table", ins[i].in, *k, *key);
          check(entry_int(e, *key) == entry_int(u, *key), label, "ours %lld, upstream %lld", entry_int(e, *key),
                entry_int(u, *key));
        }
        free(e);
        free(u);
      }
      free(up);
      free(text);
    }
}

/* ---- the cache, and the front on a hit ---- */
/* The spilling kernel: a hit gives the miss's spill bytes, kept with the entry (a
** cubin does not record them), through the library and the CLI's front. */
static void spill_cache_case(const char *ll) {
  char dir[4200], json[4200], outp[4200];
  snprintf(dir, sizeof dir, "%s/spillcache", scratch());
  gpublob_result r1 = {0}, r2 = {0};
  int rc1 = compile(ll, "nvptx:sm_90", GPUBLOB_FORMAT_BIN, dir, GPUBLOB_TOOL_PROGRAM, &r1);
  int rc2 = compile(ll, "nvptx:sm_90", GPUBLOB_FORMAT_BIN, dir, GPUBLOB_TOOL_PROGRAM, &r2);
  gpublob_stats s2;
  gpublob_stats_get(g, &s2, sizeof s2);
  kinfo k1[MAXK], k2[MAXK];
  int code, n1 = rc1 ? -1 : kernels_of(&r1, 0, k1, &code), n2 = rc2 ? -1 : kernels_of(&r2, 0, k2, &code);
  check(s2.cache_hits == 1 && n1 == 1 && n2 == 1 && k1[0].k.spill_store_bytes > 0 &&
            k2[0].k.spill_store_bytes == k1[0].k.spill_store_bytes &&
            k2[0].k.spill_load_bytes == k1[0].k.spill_load_bytes && k2[0].k.barriers == k1[0].k.barriers,
        "cache: a hit gives the miss's spill bytes and barriers (the tool's report, kept in the entry)",
        "hits %zu, %d/%d kernels, stores %lld/%lld", s2.cache_hits, n1, n2, n1 == 1 ? k1[0].k.spill_store_bytes : -2,
        n2 == 1 ? k2[0].k.spill_store_bytes : -2);
  char want[64];
  snprintf(want, sizeof want, "\"spill_store_bytes\": %lld,", n1 == 1 ? k1[0].k.spill_store_bytes : -2);
  gpublob_result_free(&r1);
  gpublob_result_free(&r2);
  snprintf(json, sizeof json, "%s/spillhit.json", scratch());
  snprintf(outp, sizeof outp, "%s/spillhit.cubin", scratch());
  const char *hit[] = {CLI, "--cache-dir", dir, "-t", "nvptx:sm_90", "--retarget", ll, "-o", outp, "--metadata", json,
                       "--time", NULL};
  char *log = NULL, *miss_log = NULL;
  int miss_rc = run(hit, &miss_log); /* the CLI's options are its own: a miss first */
  char *miss_json = (char *)slurp(json, NULL);
  int rc = run(hit, &log);
  char *j = (char *)slurp(json, NULL);
  check(miss_rc == 0 && contains(miss_json, want), "cache: the CLI's compiler writes the spill bytes", "%d: %s\n%s",
        miss_rc, shown(miss_log), shown(miss_json));
  check(rc == 0 && contains(log, "time (front)") && contains(j, want),
        "cache: the CLI's front on a hit writes the spill bytes", "%d: %s\n%s", rc, shown(log), shown(j));
  free(miss_log);
  free(miss_json);
  free(log);
  free(j);
}

static void cache_case(const char *ll) {
  char dir[4200], a[4200], b[4200], outp[4200];
  snprintf(dir, sizeof dir, "%s/cache", scratch());
  gpublob_result r1 = {0}, r2 = {0};
  int rc1 = compile(ll, "nvptx:sm_90", GPUBLOB_FORMAT_BIN, dir, 0, &r1);
  gpublob_stats s1;
  gpublob_stats_get(g, &s1, sizeof s1);
  int rc2 = compile(ll, "nvptx:sm_90", GPUBLOB_FORMAT_BIN, dir, 0, &r2);
  gpublob_stats s2;
  gpublob_stats_get(g, &s2, sizeof s2);
  check(rc1 == 0 && rc2 == 0 && s1.cache_misses == 1 && s2.cache_hits == 1,
        "cache: a miss, then a hit", "rc %d %d, misses %zu, hits %zu", rc1, rc2, s1.cache_misses, s2.cache_hits);
  kinfo k1[MAXK], k2[MAXK];
  int code, n1 = rc1 ? -1 : kernels_of(&r1, 0, k1, &code), n2 = rc2 ? -1 : kernels_of(&r2, 0, k2, &code);
  int same = n1 > 0 && n1 == n2;
  for (int i = 0; same && i < n1; i++)
    same = !strcmp(k1[i].name, k2[i].name) && !strcmp(k1[i].chip, k2[i].chip) &&
           !memcmp((const char *)&k1[i].k + 2 * sizeof(char *), (const char *)&k2[i].k + 2 * sizeof(char *),
                   sizeof k1[i].k - 2 * sizeof(char *));
  check(same, "cache: a hit's kernels are the compile's", "%d and %d kernels", n1, n2);
  gpublob_result_free(&r1);
  gpublob_result_free(&r2);

  /* the CLI: the compiler on a miss, the front on the hit, the same JSON */
  snprintf(a, sizeof a, "%s/miss.json", scratch());
  snprintf(b, sizeof b, "%s/hit.json", scratch());
  snprintf(outp, sizeof outp, "%s/cli.cubin", scratch());
  snprintf(dir, sizeof dir, "%s/clicache", scratch());
  const char *miss[] = {CLI, "--cache-dir", dir, "-t", "nvptx:sm_90", "--retarget", ll, "-o", outp,
                        "--metadata", a, "--verbose", "--time", NULL};
  const char *hit[] = {CLI, "--cache-dir", dir, "-t", "nvptx:sm_90", "--retarget", ll, "-o", outp,
                       "--metadata", b, "--verbose", "--time", NULL};
  char *log1 = NULL, *log2 = NULL;
  int c1 = run(miss, &log1), c2 = run(hit, &log2);
  check(c1 == 0 && contains(log1, "time (compiler)"), "cli: --metadata on a miss (the compiler)", "%d: %s", c1,
        shown(log1));
  check(c2 == 0 && contains(log2, "time (front)"), "cli: --metadata on a hit (the front)", "%d: %s", c2, shown(log2));
  char *ja = (char *)slurp(a, NULL), *jb = (char *)slurp(b, NULL);
  check(same_str(ja, jb), "cli: the front's JSON is the compiler's", "miss:\n%s\nhit:\n%s", shown(ja), shown(jb));
  check(contains(ja, "\"name\": \"reduce_sum\"") && contains(ja, "\"registers\": ") &&
            contains(ja, "\"shared_bytes\": 1024") && contains(ja, "\"target\": \"nvptx\""),
        "cli: the JSON names the kernel and its figures", "%s", shown(ja));
  const char *vline = "gpublob: reduce_sum (nvptx sm_90): ";
  check(contains(log1, vline) && contains(log2, vline) && contains(log2, "1024 bytes shared"),
        "cli: --verbose prints a line per kernel, miss and hit", "%s\n%s", shown(log1), shown(log2));
  const char *py[] = {"python3", "-c", "import json,sys; json.load(open(sys.argv[1]))", a, NULL};
  char *pylog = NULL;
  int prc = run(py, &pylog);
  if (prc == 127 || contains(pylog, "No such file")) skip("cli: the JSON parses (python3's json)", "no python3");
  else check(prc == 0, "cli: the JSON parses (python3's json)", "%s", shown(pylog));
  /* assembly and MLIR's module record none: listed, with "kernels": null */
  char asm_json[4200], asm_out[4200];
  snprintf(asm_json, sizeof asm_json, "%s/asm.json", scratch());
  snprintf(asm_out, sizeof asm_out, "%s/cli.ptx", scratch());
  const char *as[] = {CLI, "--no-cache", "-t", "nvptx:sm_90", "-f", "asm", "--retarget", ll, "-o", asm_out,
                      "--metadata", asm_json, NULL};
  char *alog = NULL;
  int arc = run(as, &alog);
  char *aj = (char *)slurp(asm_json, NULL);
  check(arc == 0 && contains(aj, "\"target\": \"nvptx\", \"chip\": \"sm_90\", \"kernels\": null"),
        "cli: -f asm's --metadata lists the output with \"kernels\": null", "%d: %s\n%s", arc, shown(alog), shown(aj));
  free(alog);
  free(aj);
  check(leftovers(scratch(), ".tmp-") == 0, "cli: no temporary left", NULL);
  free(ja);
  free(jb);
  free(log1);
  free(log2);
  free(pylog);
}

/* ---- what records none, and misuse ---- */
static void format_and_misuse(const char *ll) {
  gpublob_result r = {0};
  size_t n = 5;
  int rc = compile(ll, "nvptx:sm_90", GPUBLOB_FORMAT_LLVM, NULL, 0, &r);
  check(rc == 0 && gpublob_kernel_count(g, &r, 0, &n) == GPUBLOB_FORMAT && n == 0,
        "format: bitcode is FORMAT", "%s", gpublob_error_message(g));
  check(contains(gpublob_error_message(g), "records no kernel metadata"), "format: the message says why", "%s",
        gpublob_error_message(g));
  gpublob_kernel_info k;
  memset(&k, 0x55, sizeof k);
  check(gpublob_kernel_get(g, &r, 0, 0, &k, sizeof k) == GPUBLOB_FORMAT && k.name == NULL && k.registers == 0,
        "format: get is FORMAT, *out zeroed", NULL);
  gpublob_result_free(&r);
  gpublob_output mo = {{(unsigned char *)"module {}", 9, ".mlir"}, "", "", ""};
  gpublob_result mr = {&mo, 1};
  check(gpublob_kernel_count(g, &mr, 0, &n) == GPUBLOB_FORMAT, "format: MLIR's whole module is FORMAT", NULL);
  check(gpublob_kernel_count(NULL, &mr, 0, &n) == GPUBLOB_MISUSE, "misuse: NULL handle", NULL);
  check(gpublob_kernel_count(g, NULL, 0, &n) == GPUBLOB_MISUSE, "misuse: NULL result", NULL);
  check(gpublob_kernel_count(g, &mr, 0, NULL) == GPUBLOB_MISUSE, "misuse: NULL count", NULL);
  check(gpublob_kernel_count(g, &mr, 1, &n) == GPUBLOB_MISUSE, "misuse: output out of range", NULL);
  rc = compile(ll, "nvptx:sm_90", GPUBLOB_FORMAT_BIN, NULL, 0, &r);
  check(rc == 0 && gpublob_kernel_get(g, &r, 0, 99, &k, sizeof k) == GPUBLOB_MISUSE, "misuse: kernel out of range",
        "%s", gpublob_error_message(g));
  check(gpublob_kernel_get(g, &r, 0, 0, &k, 8) == GPUBLOB_MISUSE, "misuse: an out-struct smaller than its first version",
        NULL);
  check(gpublob_kernel_get(g, &r, 0, 0, &k, sizeof k) == GPUBLOB_OK && !strcmp(k.name, "reduce_sum"),
        "get: kernel 0 of the cubin", "%s", gpublob_error_message(g));
  struct {
    gpublob_kernel_info k;
    long long later;
  } big;
  memset(&big, 0x55, sizeof big);
  check(gpublob_kernel_get(g, &r, 0, 0, &big.k, sizeof big) == GPUBLOB_OK && big.later == 0,
        "get: a later, larger struct's tail zeroed", NULL);
  gpublob_result_free(&r);
}

/* ---- hostile blobs ---- */
static unsigned lcg(unsigned *s) { return *s = *s * 1103515245u + 12345u, *s >> 8; }

static void hostile_one(const char *what, const char *target, const char *chip, const char *suffix,
                        const unsigned char *blob, size_t size) {
  char label[300];
  unsigned char *m = malloc(size + 1);
  gpublob_output o = {{m, 0, suffix}, target, chip, ""};
  gpublob_result r = {&o, 1};
  int bad = 0, refused = 0, tries = 0;
  size_t step = size / 400 ? size / 400 : 1, n;
  for (size_t len = 0; len < size; len += step, tries++) { /* every cut */
    memcpy(m, blob, len);
    o.blob.size = len;
    int rc = gpublob_kernel_count(g, &r, 0, &n);
    bad += rc != GPUBLOB_OK && rc != GPUBLOB_TOOL;
    refused += rc == GPUBLOB_TOOL;
  }
  snprintf(label, sizeof label, "hostile %s: every cut is OK or TOOL, most TOOL", what);
  check(!bad && refused > tries / 2, label, "%d of %d not OK/TOOL, %d TOOL", bad, tries, refused);
  unsigned seed = 7;
  bad = 0;
  for (int i = 0; i < 3000; i++) { /* a few bytes flipped */
    memcpy(m, blob, size);
    o.blob.size = size;
    for (int f = 1 + (int)(lcg(&seed) % 8); f > 0; f--) m[lcg(&seed) % size] ^= (unsigned char)(1 + lcg(&seed) % 255);
    int rc = gpublob_kernel_count(g, &r, 0, &n);
    for (size_t k = 0; rc == GPUBLOB_OK && k < n; k++) {
      gpublob_kernel_info ki;
      rc = gpublob_kernel_get(g, &r, 0, k, &ki, sizeof ki);
      bad += rc == GPUBLOB_OK && (!ki.name || !ki.chip);
    }
    bad += rc != GPUBLOB_OK && rc != GPUBLOB_TOOL;
  }
  snprintf(label, sizeof label, "hostile %s: 3000 blobs with bytes flipped are OK or TOOL", what);
  check(!bad, label, "%d", bad);
  free(m);
}

static void hostile(const char *nv_ll, const char *amd_ll) {
  gpublob_result a = {0}, b = {0}, pa = {0}, pb = {0};
  if (!compile(nv_ll, "nvptx:sm_90", GPUBLOB_FORMAT_BIN, NULL, 0, &a)) {
    hostile_one("cubin", "nvptx", "sm_90", ".cubin", a.outputs[0].blob.data, a.outputs[0].blob.size);
    spill(tmp_path("seed.cubin"), a.outputs[0].blob.data, a.outputs[0].blob.size);
  }
  if (!compile(nv_ll, "nvptx:sm_75,sm_90", GPUBLOB_FORMAT_PACK, NULL, 0, &pa)) {
    hostile_one("fatbin", "nvptx", "sm_75,sm_90", ".fatbin", pa.outputs[0].blob.data, pa.outputs[0].blob.size);
    /* an ELF entry whose flags say compressed: refused, not guessed at */
    unsigned char *f = malloc(pa.outputs[0].blob.size);
    memcpy(f, pa.outputs[0].blob.data, pa.outputs[0].blob.size);
    f[16 + 41] |= 0x20; /* flags 0x2000 of the first entry */
    gpublob_output o = {{f, pa.outputs[0].blob.size, ".fatbin"}, "nvptx", "sm_75,sm_90", ""};
    gpublob_result r = {&o, 1};
    size_t n;
    check(gpublob_kernel_count(g, &r, 0, &n) == GPUBLOB_TOOL && contains(gpublob_error_message(g), "compressed"),
          "hostile fatbin: a compressed entry is TOOL, named", "%s", gpublob_error_message(g));
    free(f);
  }
  if (!compile(amd_ll, "amdgcn:gfx90a", GPUBLOB_FORMAT_BIN, NULL, 0, &b)) {
    const unsigned char *p = b.outputs[0].blob.data;
    size_t size = b.outputs[0].blob.size;
    hostile_one("hsaco", "amdgcn", "gfx90a", ".hsaco", p, size);
    spill(tmp_path("seed.hsaco"), p, size);
    /* the note's descsz made huge: it runs past its section */
    const unsigned char *at = memmem(p, size, "AMDGPU\0", 7);
    unsigned char *m = malloc(size);
    memcpy(m, p, size);
    if (at && at - p >= 12) m[at - p - 8 + 3] = 0x7f;
    gpublob_output o = {{m, size, ".hsaco"}, "amdgcn", "gfx90a", ""};
    gpublob_result r = {&o, 1};
    size_t n;
    check_if(at != NULL, gpublob_kernel_count(g, &r, 0, &n) == GPUBLOB_TOOL &&
             contains(gpublob_error_message(g), "runs past"),
             "hostile hsaco: a note past its section is TOOL, named", "%s", gpublob_error_message(g));
    free(m);
  }
  if (!compile(amd_ll, "amdgcn:gfx90a,gfx1100", GPUBLOB_FORMAT_PACK, NULL, 0, &pb))
    hostile_one("offload bundle", "amdgcn", "gfx90a,gfx1100", ".hipfb", pb.outputs[0].blob.data, pb.outputs[0].blob.size);
  gpublob_result_free(&a);
  gpublob_result_free(&b);
  gpublob_result_free(&pa);
  gpublob_result_free(&pb);
}

int main(void) {
  if (gpublob_open(&g)) return 1;
  if (!have_ptxas() || tool_path(g, &(gpublob_options){.version = GPUBLOB_OPTIONS_VERSION, .target = "nvptx"},
                                 ptxas, sizeof ptxas))
    ptxas[0] = 0;
  static const char *const cuda[] = {"-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_90", "-nocudainc",
                                     "-nocudalib", "-O2", "-S", "-emit-llvm", NULL};
  static const char *const hip[] = {"-x", "hip", "--cuda-device-only", "--offload-arch=gfx90a", "-nogpuinc",
                                    "-nogpulib", "-O2", "-S", "-emit-llvm", NULL};
  static const char *const ocl[] = {"-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx90a",
                                    "-nogpulib", "-O2", "-S", "-emit-llvm", NULL};
  static const struct { const char *src, *stem, *kernels[3]; } cu[] = {
      {"saxpy.cu", "saxpy", {"saxpy"}}, {"reduce.cu", "reduce", {"reduce_sum"}},
      {"spill.cu", "spill", {"spill_mix"}}, {"bounds.cu", "bounds", {"bounded_scale"}},
      {"barriers.cu", "barriers", {"with_barrier", "without_barrier"}}};
  static const struct { const char *src, *stem, *kernels[3]; } hp[] = {
      {"saxpy.hip", "saxpy", {"saxpy"}}, {"reduce.hip", "reduce", {"reduce_sum"}},
      {"spill.hip", "spill", {"spill_mix"}}, {"bounds.hip", "bounds", {"bounded_scale", "flat_scale"}},
      {"bounds.cl", "reqd", {"reqd_fill"}}};
  static const char *const nv_chips[] = {"sm_75", "sm_90"}, *const amd_chips[] = {"gfx90a", "gfx942", "gfx1100"};
  char ll[4200], src[256], reduce_nv[4200] = "", spill_nv[4200] = "", reduce_amd[4200] = "", spill_amd[4200] = "";
  int have_clang = exists(CLANG);
  if (!have_clang) skip("kernels: every case of tests/clang's kernels", CLANG " not found");
  for (size_t i = 0; i < sizeof cu / sizeof *cu; i++) {
    snprintf(ll, sizeof ll, "%s/cu_%s.ll", scratch(), cu[i].stem);
    snprintf(src, sizeof src, SRC "%s", cu[i].src);
    if (!have_clang || clang_ir(cuda, src, ll, src)) continue;
    if (!strcmp(cu[i].stem, "reduce")) snprintf(reduce_nv, sizeof reduce_nv, "%s", ll);
    if (!strcmp(cu[i].stem, "spill")) snprintf(spill_nv, sizeof spill_nv, "%s", ll);
    for (size_t c = 0; c < 2; c++) nv_case(ll, cu[i].stem, cu[i].kernels, nv_chips[c]);
    if (strcmp(cu[i].stem, "bounds")) continue;
    /* a required block size: CUDA has no attribute for it, so bounds.cu's IR with
    ** its "nvvm.maxntid" made "nvvm.reqntid" (what LLVM writes .reqntid for) */
    size_t n;
    char *ir = (char *)slurp(ll, &n), *at = ir ? strstr(ir, "\"nvvm.maxntid\"=\"128\"") : NULL;
    check(at != NULL, "cuda bounds: clang wrote nvvm.maxntid for __launch_bounds__", NULL);
    if (!at) continue;
    char req[4200];
    snprintf(req, sizeof req, "%s/cu_reqntid.ll", scratch());
    FILE *f = fopen(req, "w");
    fprintf(f, "%.*s\"nvvm.reqntid\"=\"64,2\"%s", (int)(at - ir), ir, at + strlen("\"nvvm.maxntid\"=\"128\""));
    fclose(f);
    free(ir);
    for (size_t c = 0; c < 2; c++) nv_case(req, "reqntid", cu[i].kernels, nv_chips[c]);
  }
  for (size_t i = 0; i < sizeof hp / sizeof *hp; i++) {
    snprintf(ll, sizeof ll, "%s/hip_%s.ll", scratch(), hp[i].stem);
    snprintf(src, sizeof src, SRC "%s", hp[i].src);
    if (!have_clang || clang_ir(strstr(hp[i].src, ".cl") ? ocl : hip, src, ll, src)) continue;
    if (!strcmp(hp[i].stem, "reduce")) snprintf(reduce_amd, sizeof reduce_amd, "%s", ll);
    if (!strcmp(hp[i].stem, "spill")) snprintf(spill_amd, sizeof spill_amd, "%s", ll);
    for (size_t c = 0; c < 3; c++) amd_case(ll, hp[i].stem, hp[i].kernels, amd_chips[c]);
  }
  static const char *const nv_pack[] = {"sm_75", "sm_90", "sm_90a", NULL}, *const amd_pack[] = {"gfx90a", "gfx942", "gfx1100", NULL};
  if (*reduce_nv) pack_case(reduce_nv, "nvptx:sm_75,sm_90,sm_90a", nv_pack, "reduce_sum");
  if (*spill_amd) pack_case(spill_amd, "amdgcn:gfx90a,gfx942,gfx1100", amd_pack, "spill_mix");
  mlir_case();
  if (*reduce_nv) cache_case(reduce_nv);
  if (*spill_nv && *ptxas) spill_cache_case(spill_nv);
  else skip("cache: a hit gives the miss's spill bytes", "no ptxas, or no clang-22");
  if (*reduce_nv) format_and_misuse(reduce_nv);
  if (*reduce_nv && *reduce_amd) hostile(reduce_nv, reduce_amd);
  gpublob_close(g);
  return report();
}
