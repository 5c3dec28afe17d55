/* test_params: kernel parameters (gpublob_param_count, gpublob_param_get, the CLI's
** --metadata "params"), read from the blob, against real oracles.
**   AMD (gfx90a, gfx1100; code object v5): every kernel of tests/clang's HIP sources
**   (clang-22 to IR) and examples/saxpy_amdgcn.ll; each parameter equals the entry of
**   llvm-readelf --notes' .args at its place: offset, size, value kind, address space,
**   name, hidden for hidden_* kinds, none left over.
**   NVIDIA (sm_75, sm_90; skipped without ptxas): tests/clang/params.cu (a char, a
**   double, a 12-byte struct, a pointer, a __grid_constant__ struct); each parameter
**   equals what the PTX's .param lines imply (gpublob -f asm): its size, its offset (laid
**   out by each .align), "pointer" and its state space for a .ptr one; the parameter
**   bank ends where the last one does.  A kernel past 4 KiB of parameters (ptxas's
**   KPARAM_INFO_V2) has the PTX's too; with those records spoilt it is TOOL.
**   The CLI's --metadata gives the same parameters from the cache (a second run with
**   --cache-dir, in the LLVM-free front) as from the compile.
**   Hostile blobs (a KPARAM_INFO record cut short, a size past the bank, two at one
**   ordinal, a state space ptxas never writes, an .args size past the kernarg
**   segment) are TOOL; misuse is MISUSE. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpublob.h"
#include "testlib.h"

#define READELF LLVM_BINDIR "/llvm-readelf"
#define CLI "build/gpublob"
#define SRC "tests/clang/"

static gpublob *g;
static int count_of(unsigned char *b, size_t n, const char *target, const char *chip, const char *suffix);
static unsigned char *find_bytes(unsigned char *b, size_t n, const void *pattern, size_t m);

/* A parameter, its strings copied (the handle's last only until its next call). */
typedef struct param {
  gpublob_param_info p;
  char kind[64], space[32], name[64];
} param;
enum { MAXP = 64 };

/* The parameters of kernel k of output i into out; their count, or -1 with the code in *code. */
static int params_of(const gpublob_result *r, size_t i, size_t k, param *out, int *code) {
  size_t n = 0;
  *code = gpublob_param_count(g, r, i, k, &n);
  for (size_t p = 0; !*code && p < n && p < MAXP; p++) {
    *code = gpublob_param_get(g, r, i, k, p, &out[p].p, sizeof out[p].p);
    if (*code) break;
    snprintf(out[p].kind, sizeof out[p].kind, "%s", out[p].p.kind);
    snprintf(out[p].space, sizeof out[p].space, "%s", out[p].p.address_space);
    snprintf(out[p].name, sizeof out[p].name, "%s", out[p].p.name);
  }
  return *code ? -1 : (int)(n < MAXP ? n : MAXP);
}

/* The index of the kernel named name in output i, or -1. */
static long kernel_index(const gpublob_result *r, size_t i, const char *name) {
  size_t n = 0;
  if (gpublob_kernel_count(g, r, i, &n)) return -1;
  for (size_t k = 0; k < n; k++) {
    gpublob_kernel_info ki;
    if (!gpublob_kernel_get(g, r, i, k, &ki, sizeof ki) && !strcmp(ki.name, name)) return (long)k;
  }
  return -1;
}

static int compile_ll(const char *ll, const char *target, int format, gpublob_result *r) {
  gpublob_options o = GPUBLOB_OPTIONS_INIT;
  o.target = target;
  o.format = format;
  o.flags = GPUBLOB_FLAG_RETARGET;
  o.jobs = 1;
  gpublob_input in = {GPUBLOB_INPUT_LLVM, NULL, 0, ll, NULL};
  return gpublob_compile(g, &o, &in, r);
}

/* ---- AMD: llvm-readelf --notes' .args ---- */
/* The YAML of the kernel's map in the notes (from its "  - " to the next), copied. */
static char *notes_block(const char *notes, const char *kernel) {
  char marker[300];
  snprintf(marker, sizeof marker, "\n    .name:           %s\n", kernel);
  const char *at = strstr(notes, marker);
  if (!at) return NULL;
  const char *start = at;
  while (start > notes && strncmp(start, "\n  - .", 6)) start--;
  const char *end = strstr(at + 1, "\n  - .");
  const char *tgt = strstr(at, "\namdhsa.");
  if (!end || (tgt && tgt < end)) end = tgt ? tgt : at + strlen(at);
  return strndup(start, (size_t)(end - start));
}

/* An argument of .args as llvm-readelf prints it. */
typedef struct yarg {
  long long offset, size;
  char kind[128], space[128], name[128];
} yarg;

/* The value of "KEY: value" on the line at p, into buf. */
static void yaml_value(const char *p, char *buf, size_t size) {
  const char *colon = strchr(p, ':'), *eol = strchr(p, '\n');
  if (!eol) eol = p + strlen(p);
  const char *v = colon && colon < eol ? colon + 1 : eol;
  while (v < eol && *v == ' ') v++;
  snprintf(buf, size, "%.*s", (int)(eol - v), v);
}

/* The .args of a kernel's block: their count (at most MAXP) into a. */
static int yaml_args(const char *block, yarg *a) {
  const char *p = strstr(block, "\n    .args:\n");
  int n = -1;
  if (!p) p = strstr(block, "\n  - .args:\n"); /* the map's first key (no .agpr_count before it) */
  if (!p) return 0;
  for (p = strchr(p + 1, '\n') + 1; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p)) {
    if (!strncmp(p, "      - ", 8)) {
      if (++n >= MAXP) return MAXP;
      a[n] = (yarg){-1, -1, "", "", ""};
    } else if (strncmp(p, "        ", 8))
      break; /* the next key of the kernel's map */
    if (n < 0) continue;
    const char *key = p + 8;
    char v[128];
    yaml_value(key, v, sizeof v);
    if (!strncmp(key, ".offset:", 8)) a[n].offset = strtoll(v, NULL, 10);
    else if (!strncmp(key, ".size:", 6)) a[n].size = strtoll(v, NULL, 10);
    else if (!strncmp(key, ".value_kind:", 12)) snprintf(a[n].kind, sizeof a[n].kind, "%s", v);
    else if (!strncmp(key, ".address_space:", 15)) snprintf(a[n].space, sizeof a[n].space, "%s", v);
    else if (!strncmp(key, ".name:", 6)) snprintf(a[n].name, sizeof a[n].name, "%s", v);
  }
  return n + 1;
}

/* Output 0 of r (an hsaco) against llvm-readelf --notes: every kernel's parameters. */
static void amd_against_notes(const gpublob_result *r, const char *what, int *hidden_seen) {
  char path[4200], label[600];
  snprintf(path, sizeof path, "%s/params.hsaco", scratch());
  spill(path, r->outputs[0].blob.data, r->outputs[0].blob.size);
  const char *argv[] = {READELF, "--notes", path, NULL};
  char *notes = NULL;
  int rc = run(argv, &notes);
  snprintf(label, sizeof label, "%s: llvm-readelf --notes prints the metadata, code object v5", what);
  check(rc == 0 && contains(notes, "amdhsa.kernels") && contains(notes, "amdhsa.version:\n  - 1\n  - 2"), label,
        "%.400s", shown(notes));
  size_t nk = 0;
  rc = gpublob_kernel_count(g, r, 0, &nk);
  snprintf(label, sizeof label, "%s: kernels read", what);
  check(rc == 0 && nk > 0, label, "%s", gpublob_error_message(g));
  for (size_t k = 0; notes && k < nk; k++) {
    gpublob_kernel_info ki;
    char kname[256];
    if (gpublob_kernel_get(g, r, 0, k, &ki, sizeof ki)) continue;
    snprintf(kname, sizeof kname, "%s", ki.name);
    char *block = notes_block(notes, kname);
    yarg want[MAXP];
    param got[MAXP];
    int nw = block ? yaml_args(block, want) : -1, code, ng = params_of(r, 0, k, got, &code);
    snprintf(label, sizeof label, "%s: kernel %s has the notes' %d .args", what, kname, nw);
    check(block && ng == nw, label, "%d parameters (%s)", ng, code ? gpublob_error_message(g) : "OK");
    int same = ng == nw, bad = -1;
    for (int p = 0; same && p < ng; p++) {
      const gpublob_param_info *a = &got[p].p;
      int hidden = !strncmp(want[p].kind, "hidden_", 7);
      *hidden_seen += hidden;
      if (a->index != p || a->offset != want[p].offset || a->size != want[p].size || strcmp(got[p].kind, want[p].kind) ||
          strcmp(got[p].space, want[p].space) || strcmp(got[p].name, want[p].name) || a->hidden != hidden)
        same = 0, bad = p;
    }
    snprintf(label, sizeof label, "%s: kernel %s: each parameter's offset, size, kind, address space, name and "
             "hidden mark are the notes'", what, kname);
    check(same, label, "parameter %d: %lld@%lld:%lld %s '%s' '%s' hidden %d; notes: @%lld:%lld %s '%s' '%s'", bad,
          bad >= 0 ? got[bad].p.index : -1, bad >= 0 ? got[bad].p.offset : -1, bad >= 0 ? got[bad].p.size : -1,
          bad >= 0 ? got[bad].kind : "", bad >= 0 ? got[bad].space : "", bad >= 0 ? got[bad].name : "",
          bad >= 0 ? got[bad].p.hidden : -1, bad >= 0 ? want[bad].offset : -1, bad >= 0 ? want[bad].size : -1,
          bad >= 0 ? want[bad].kind : "", bad >= 0 ? want[bad].space : "", bad >= 0 ? want[bad].name : "");
    free(block);
  }
  free(notes);
}

static int hidden_seen; /* hidden arguments the HIP kernels have (code object v5) */

static void amd_source(const char *ll, const char *what) {
  static const char *const chips[] = {"gfx90a", "gfx1100"};
  char label[400], target[64], name[300];
  for (size_t c = 0; c < sizeof chips / sizeof *chips; c++) {
    snprintf(target, sizeof target, "amdgcn:%s", chips[c]);
    snprintf(name, sizeof name, "%s %s", what, chips[c]);
    gpublob_result r = {0};
    int rc = compile_ll(ll, target, GPUBLOB_FORMAT_BIN, &r);
    snprintf(label, sizeof label, "%s: compiles to a code object", name);
    if (rc == GPUBLOB_NOLIB) {
      skip(label, gpublob_error_message(g));
      continue;
    }
    check(rc == 0 && r.count == 1, label, "%s", gpublob_error_message(g));
    if (!rc && r.count == 1) amd_against_notes(&r, name, &hidden_seen);
    gpublob_result_free(&r);
  }
}

static void amd(void) {
  static const char *const hip[] = {"asm", "bounds", "dynshared", "helper", "reduce", "saxpy", "spill", "libm"};
  char src[256], ll[4200], what[300];
  for (size_t i = 0; i < sizeof hip / sizeof *hip; i++) {
    snprintf(src, sizeof src, SRC "%s.hip", hip[i]);
    snprintf(ll, sizeof ll, "%s/hip_%s.ll", scratch(), hip[i]);
    const char *flags[] = {"-x", "hip", "--cuda-device-only", "--offload-arch=gfx90a", "-nogpuinc", "-nogpulib",
                           "-mcode-object-version=5", "-O2", "-S", "-emit-llvm", NULL};
    snprintf(what, sizeof what, "HIP %s (gfx90a, code object v5) to LLVM IR", src);
    if (clang_ir(flags, src, ll, what)) continue;
    snprintf(what, sizeof what, "hip %s", hip[i]);
    amd_source(ll, what);
  }
  check(hidden_seen > 0, "hip: the hidden arguments of code object v5 (dynshared's) are listed, marked hidden",
        NULL);
  if (need_rocm("examples/saxpy_amdgcn.ll's parameters")) amd_source("examples/saxpy_amdgcn.ll", "saxpy_amdgcn.ll");
}

/* ---- NVIDIA: the PTX's .param lines ---- */
typedef struct pparam {
  long long offset, size;
  int pointer;
  char space[16];
} pparam;

/* A .param line's size and alignment (the PTX ISA's: a scalar's own size, a .b8
** array's .align, 1 without), and for a .ptr its state space ("generic" without one). */
static int ptx_param(const char *line, pparam *p, long long *align) {
  static const struct { const char *type; long long size; } types[] = {
      {".u8 ", 1}, {".s8 ", 1}, {".b8 ", 1}, {".u16 ", 2}, {".s16 ", 2}, {".b16 ", 2}, {".f16 ", 2},
      {".u32 ", 4}, {".s32 ", 4}, {".b32 ", 4}, {".f32 ", 4}, {".u64 ", 8}, {".s64 ", 8}, {".b64 ", 8}, {".f64 ", 8}};
  const char *arr = strchr(line, '['), *al = strstr(line, ".align ");
  p->pointer = contains(line, ".ptr");
  snprintf(p->space, sizeof p->space, "%s", !p->pointer ? "" : contains(line, ".global") ? "global"
                                            : contains(line, ".shared") ? "shared" : contains(line, ".local") ? "local"
                                            : "generic");
  p->size = -1;
  for (size_t i = 0; i < sizeof types / sizeof *types; i++)
    if (strstr(line, types[i].type)) p->size = types[i].size;
  *align = p->size;
  if (arr && !p->pointer) { /* .align N .b8 name[K] */
    p->size = strtoll(arr + 1, NULL, 10);
    *align = al ? strtoll(al + 7, NULL, 10) : 1;
  }
  return p->size > 0 && *align > 0 ? 0 : -1;
}

/* The parameters of .entry kernel in the PTX, laid out in order: their count (-1 if
** the entry is not there); *end where the last ends. */
static int ptx_params(const char *ptx, const char *kernel, pparam *out, long long *end) {
  char marker[300];
  snprintf(marker, sizeof marker, ".entry %s(", kernel);
  const char *at = ptx ? strstr(ptx, marker) : NULL;
  int n = 0;
  *end = 0;
  if (!at) return -1;
  for (const char *p = strchr(at, '\n'); p && n < MAXP; p = strchr(p + 1, '\n')) {
    const char *line = p + 1;
    while (*line == ' ' || *line == '\t') line++;
    if (strncmp(line, ".param", 6)) break;
    char buf[300];
    const char *eol = strchr(line, '\n');
    snprintf(buf, sizeof buf, "%.*s ", (int)(eol ? eol - line : (long)strlen(line)), line);
    long long align;
    if (ptx_param(buf, &out[n], &align)) return -1;
    out[n].offset = (*end + align - 1) / align * align;
    *end = out[n].offset + out[n].size;
    n++;
  }
  return n;
}

static void nvidia_chip(const char *chip) {
  char ll[4200], what[300], label[600], target[64], arch[64];
  snprintf(ll, sizeof ll, "%s/params_%s.ll", scratch(), chip);
  snprintf(arch, sizeof arch, "--cuda-gpu-arch=%s", chip);
  const char *flags[] = {"-x", "cuda", "--cuda-device-only", arch, "-nocudainc", "-nocudalib", "-O2", "-S",
                         "-emit-llvm", NULL};
  snprintf(what, sizeof what, "CUDA params.cu (%s) to LLVM IR", chip);
  if (clang_ir(flags, SRC "params.cu", ll, what)) return;
  snprintf(target, sizeof target, "nvptx:%s", chip);
  gpublob_result asm_r = {0}, bin = {0};
  int rc = compile_ll(ll, target, GPUBLOB_FORMAT_ASM, &asm_r);
  snprintf(label, sizeof label, "nvptx %s: params.cu to PTX", chip);
  check(rc == 0 && asm_r.count == 1, label, "%s", gpublob_error_message(g));
  char *ptx = rc || asm_r.count != 1 ? NULL : strndup((const char *)asm_r.outputs[0].blob.data, asm_r.outputs[0].blob.size);
  rc = compile_ll(ll, target, GPUBLOB_FORMAT_BIN, &bin);
  snprintf(label, sizeof label, "nvptx %s: params.cu to a cubin", chip);
  check(rc == 0 && bin.count == 1, label, "%s", gpublob_error_message(g));
  static const char *const kernels[] = {"mixed", "shorts", "none"};
  for (size_t i = 0; !rc && ptx && i < sizeof kernels / sizeof *kernels; i++) {
    pparam want[MAXP];
    param got[MAXP];
    long long end;
    long k = kernel_index(&bin, 0, kernels[i]);
    int nw = ptx_params(ptx, kernels[i], want, &end), code, ng = k < 0 ? -1 : params_of(&bin, 0, (size_t)k, got, &code);
    snprintf(label, sizeof label, "nvptx %s: kernel %s has the PTX's %d parameters", chip, kernels[i], nw);
    check(k >= 0 && nw >= 0 && ng == nw, label, "kernel %ld, %d parameters", k, ng);
    int same = ng == nw, bad = -1;
    for (int p = 0; same && p < ng; p++) {
      const char *kind = want[p].pointer ? "pointer" : "by_value";
      if (got[p].p.index != p || got[p].p.offset != want[p].offset || got[p].p.size != want[p].size ||
          strcmp(got[p].kind, kind) || strcmp(got[p].space, want[p].space) || got[p].p.hidden || *got[p].name)
        same = 0, bad = p;
    }
    snprintf(label, sizeof label, "nvptx %s: kernel %s: each parameter's offset, size, kind and state space are "
             "what the PTX's .param lines imply", chip, kernels[i]);
    check(same, label, "parameter %d: %lld@%lld:%lld %s %s; PTX: @%lld:%lld %s", bad, bad >= 0 ? got[bad].p.index : -1,
          bad >= 0 ? got[bad].p.offset : -1, bad >= 0 ? got[bad].p.size : -1, bad >= 0 ? got[bad].kind : "",
          bad >= 0 ? got[bad].space : "", bad >= 0 ? want[bad].offset : -1, bad >= 0 ? want[bad].size : -1,
          bad >= 0 ? want[bad].space : "");
    gpublob_kernel_info ki = {0};
    if (k >= 0) gpublob_kernel_get(g, &bin, 0, (size_t)k, &ki, sizeof ki);
    snprintf(label, sizeof label, "nvptx %s: kernel %s: the parameter bank's size (PARAM_CBANK) is where the last "
             "parameter ends", chip, kernels[i]);
    check(k >= 0 && (nw ? ki.params_bytes == end : ki.params_bytes <= 0), label, "%lld bytes, the PTX's %lld",
          ki.params_bytes, end);
  }
  /* the PTX itself records none: FORMAT, as for its kernels */
  size_t n = 9;
  snprintf(label, sizeof label, "nvptx %s: the PTX output's parameters are FORMAT, as its kernels are", chip);
  check(!asm_r.count || gpublob_param_count(g, &asm_r, 0, 0, &n) == GPUBLOB_FORMAT, label, "%s", gpublob_error_message(g));
  free(ptx);
  gpublob_result_free(&asm_r);
  gpublob_result_free(&bin);
}

static void nvidia(void) {
  if (!have_ptxas()) {
    skip("nvptx: parameters against the PTX's .param lines", "no ptxas (the CUDA toolkit, /usr/local/cuda)");
    return;
  }
  nvidia_chip("sm_75");
  nvidia_chip("sm_90");
}

/* A kernel past 4 KiB of parameters (PTX ISA 8.1), which ptxas 13.0 records with
** KPARAM_INFO_V2 (0x45), not 0x17: its parameters are the PTX's; with those records
** spoilt, the kernel's bank has bytes and no record, which is TOOL. */
static const char big_ptx[] = ".version 8.1\n.target sm_80\n.address_size 64\n\n.visible .entry big(\n"
                              "\t.param .u32 big_a,\n\t.param .align 8 .b8 big_p[20000],\n\t.param .u64 big_q\n)\n"
                              "{\n\t.reg .b64 %rd<2>;\n\tld.param.u64 %rd1, [big_q];\n\tst.global.u64 [%rd1], %rd1;\n"
                              "\tret;\n}\n";

static void nvidia_large(void) {
  if (!have_ptxas()) {
    skip("nvptx: parameters past 4 KiB (KPARAM_INFO_V2)", "no ptxas (the CUDA toolkit, /usr/local/cuda)");
    return;
  }
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = "nvptx", .tool_mode = GPUBLOB_TOOL_PROGRAM};
  char ptxas[4096], label[300];
  const char *ptx = tmp_path("big.ptx"), *cubin = tmp_path("big.cubin");
  int have = tool_path(g, &o, ptxas, sizeof ptxas) == 0 && *ptxas && !spill(ptx, big_ptx, sizeof big_ptx - 1);
  const char *argv[] = {ptxas, "-arch", "sm_80", ptx, "-o", cubin, NULL};
  char *log = NULL;
  int rc = have ? run(argv, &log) : -1;
  size_t n = 0;
  unsigned char *b = rc ? NULL : slurp(cubin, &n);
  check(b && n, "nvptx: ptxas assembles a kernel with 20016 bytes of parameters", "exit %d: %s", rc, shown(log));
  free(log);
  if (!b) return;
  pparam want[MAXP];
  param got[MAXP];
  long long end;
  int nw = ptx_params(big_ptx, "big", want, &end), code = 0;
  gpublob_output out = {{b, n, ".cubin"}, "nvptx", "sm_80", ""};
  gpublob_result r = {&out, 1};
  int ng = params_of(&r, 0, 0, got, &code), same = nw == 3 && ng == nw, bad = -1;
  for (int p = 0; same && p < ng; p++)
    if (got[p].p.index != p || got[p].p.offset != want[p].offset || got[p].p.size != want[p].size ||
        strcmp(got[p].kind, "by_value"))
      same = 0, bad = p;
  check(same, "nvptx: a kernel past 4 KiB of parameters has the PTX's 3, each at its offset and size (KPARAM_INFO_V2)",
        "%d of %d (%s); parameter %d: %lld@%lld:%lld, PTX @%lld:%lld", ng, nw, gpublob_error_message(g), bad,
        bad >= 0 ? got[bad].p.index : -1, bad >= 0 ? got[bad].p.offset : -1, bad >= 0 ? got[bad].p.size : -1,
        bad >= 0 ? want[bad].offset : -1, bad >= 0 ? want[bad].size : -1);
  static const unsigned char v2[] = {0x04, 0x45, 0x0c, 0x00};
  int spoilt = 0;
  for (unsigned char *at; (at = find_bytes(b, n, v2, sizeof v2)); spoilt++) at[1] = 0x01; /* an attribute unread */
  rc = count_of(b, n, "nvptx", "sm_80", ".cubin");
  snprintf(label, sizeof label, "hostile cubin: a kernel with bytes of parameters but no KPARAM_INFO record is TOOL, "
           "not an empty list");
  check(spoilt == 3 && rc == GPUBLOB_TOOL && contains(gpublob_error_message(g), "no KPARAM_INFO record"), label,
        "%d records spoilt: %d %s", spoilt, rc, gpublob_error_message(g));
  free(b);
}

/* ---- the CLI: --metadata from the compile and from the cache ---- */
static void cli_cache(void) {
  const char *cache = tmp_path("cache"), *m1 = tmp_path("miss.json"), *m2 = tmp_path("hit.json");
  const char *out = tmp_path("cli.hsaco");
  char label[300];
  const char *miss[] = {CLI, "--cache-dir", cache, "-t", "amdgcn:gfx90a", "examples/saxpy_amdgcn.ll", "-o", out,
                        "--metadata", m1, "--verbose", NULL};
  const char *hit[] = {CLI, "--cache-dir", cache, "-t", "amdgcn:gfx90a", "examples/saxpy_amdgcn.ll", "-o", out,
                       "--metadata", m2, "--verbose", NULL};
  if (!need_rocm("the CLI's parameters of examples/saxpy_amdgcn.ll")) return;
  char *log1 = NULL, *log2 = NULL;
  int rc1 = run(miss, &log1), rc2 = run(hit, &log2);
  char *j1 = (char *)slurp(m1, NULL), *j2 = (char *)slurp(m2, NULL);
  check(rc1 == 0 && contains(j1, "\"params\": [{\"index\": 0, \"offset\": 0, \"size\": 4, \"kind\": \"by_value\", "
                                  "\"hidden\": false, \"name\": \"a\"}, {\"index\": 1, \"offset\": 8, \"size\": 8, "
                                  "\"kind\": \"global_buffer\", \"hidden\": false, \"address_space\": \"global\", "
                                  "\"name\": \"x\"}"),
        "cli: --metadata's kernel has its \"params\", saxpy's a and x as the notes have them", "exit %d: %s %s", rc1,
        shown(log1), shown(j1));
  check(contains(log1, "gpublob: saxpy params: 0@0:4 by_value, 1@8:8 global_buffer global, 2@16:8 global_buffer "
                       "global, 3@24:4 by_value\n"),
        "cli: --verbose prints the kernel's parameters on a line", "%s", shown(log1));
  snprintf(label, sizeof label, "cli: a cache hit (the LLVM-free front) gives the compile's parameters, byte for byte");
  check(rc2 == 0 && same_str(j1, j2), label, "exit %d: %s\n%s\n%s", rc2, shown(log2),
        shown(j1), shown(j2));
  free(j1);
  free(j2);
  free(log1);
  free(log2);
}

/* ---- hostile blobs and misuse ---- */
/* A result of one output of bytes b (n) taken as target's suffix blob for chip: its
** kernels counted, then each one's parameters: the first code but OK. */
static int count_of(unsigned char *b, size_t n, const char *target, const char *chip, const char *suffix) {
  gpublob_output o = {{b, n, suffix}, target, chip, ""};
  gpublob_result r = {&o, 1};
  size_t k = 0, np = 0;
  int rc = gpublob_kernel_count(g, &r, 0, &k);
  for (size_t i = 0; !rc && i < k; i++) rc = gpublob_param_count(g, &r, 0, i, &np);
  return rc;
}

/* The first place in b (n bytes) of the pattern (m bytes), or NULL. */
static unsigned char *find_bytes(unsigned char *b, size_t n, const void *pattern, size_t m) {
  for (size_t i = 0; i + m <= n; i++)
    if (!memcmp(b + i, pattern, m)) return b + i;
  return NULL;
}

static void hostile_nvidia(void) {
  if (!have_ptxas()) {
    skip("hostile cubins' KPARAM_INFO", "no ptxas (the CUDA toolkit, /usr/local/cuda)");
    return;
  }
  char ll[4200];
  snprintf(ll, sizeof ll, "%s/params_sm_90.ll", scratch());
  gpublob_result bin = {0};
  int rc = exists(ll) ? compile_ll(ll, "nvptx:sm_90", GPUBLOB_FORMAT_BIN, &bin) : -1;
  check(rc == 0 && bin.count == 1, "hostile: a cubin of params.cu to spoil", "%s", rc < 0 ? "no IR" : gpublob_error_message(g));
  if (rc || bin.count != 1) return;
  size_t n = bin.outputs[0].blob.size;
  /* mixed's KPARAM_INFO for parameter 4 (ordinal 4, offset 40): 04 17 0c 00, index 0, 04 00 28 00 */
  static const unsigned char rec[] = {0x04, 0x17, 0x0c, 0x00, 0, 0, 0, 0, 0x04, 0x00, 0x28, 0x00};
  struct { const char *what; size_t at; unsigned char v; const char *msg; } spoil[] = {
      {"a KPARAM_INFO record 8 bytes long", 2, 0x08, "not 12 bytes"},
      {"a parameter's size past the parameter bank", 15, 0xff, "lies outside"},
      {"two parameters at one ordinal", 8, 0x03, "two parameters at index 3"},
      {"a pointer's state space that ptxas never writes (7)", 13, 0x07, "names no state space"},
  };
  for (size_t i = 0; i < sizeof spoil / sizeof *spoil; i++) {
    unsigned char *b = malloc(n);
    memcpy(b, bin.outputs[0].blob.data, n);
    unsigned char *at = find_bytes(b, n, rec, sizeof rec);
    char label[300];
    snprintf(label, sizeof label, "hostile cubin: %s is TOOL, naming it", spoil[i].what);
    if (at) at[spoil[i].at] = spoil[i].v;
    rc = at ? count_of(b, n, "nvptx", "sm_90", ".cubin") : -1;
    check(at && rc == GPUBLOB_TOOL && contains(gpublob_error_message(g), spoil[i].msg), label, "%s: %d %s",
          at ? "found" : "record not found", rc, gpublob_error_message(g));
    free(b);
  }
  gpublob_result_free(&bin);
}

static void hostile_amd(void) {
  if (!need_rocm("hostile code objects' .args")) return;
  gpublob_result r = {0};
  int rc = compile_ll("examples/saxpy_amdgcn.ll", "amdgcn:gfx90a", GPUBLOB_FORMAT_BIN, &r);
  check(rc == 0 && r.count == 1, "hostile: a code object of saxpy_amdgcn.ll to spoil", "%s", gpublob_error_message(g));
  if (rc || r.count != 1) return;
  size_t n = r.outputs[0].blob.size;
  struct { const char *what, *key; unsigned char v; const char *msg; } spoil[] = {
      {"an argument's .size past the kernarg segment", "\xa5.size", 0x7f, "lies outside"},
      {"an argument's .offset that is no count", "\xa7.offset", 0xc0, ".offset is not a count"},
      {"an argument's .value_kind that is no string", "\xab.value_kind", 0x01, ".value_kind is not a string"},
  };
  for (size_t i = 0; i < sizeof spoil / sizeof *spoil; i++) {
    unsigned char *b = malloc(n);
    memcpy(b, r.outputs[0].blob.data, n);
    unsigned char *at = find_bytes(b, n, spoil[i].key, strlen(spoil[i].key));
    char label[300];
    snprintf(label, sizeof label, "hostile code object: %s is TOOL, naming it", spoil[i].what);
    if (at) at[strlen(spoil[i].key)] = spoil[i].v;
    rc = at ? count_of(b, n, "amdgcn", "gfx90a", ".hsaco") : -1;
    check(at && rc == GPUBLOB_TOOL && contains(gpublob_error_message(g), spoil[i].msg), label, "%s: %d %s",
          at ? "found" : "key not found", rc, gpublob_error_message(g));
    free(b);
  }
  /* misuse: a kernel, a parameter out of range, a short struct, NULLs */
  size_t c = 9;
  gpublob_param_info pi;
  check(gpublob_param_count(g, &r, 0, 1, &c) == GPUBLOB_MISUSE && c == 0, "misuse: a kernel out of range is MISUSE, "
        "the count 0", "%s", gpublob_error_message(g));
  check(gpublob_param_get(g, &r, 0, 0, 4, &pi, sizeof pi) == GPUBLOB_MISUSE && !pi.kind,
        "misuse: a parameter out of range is MISUSE, the struct zeroed", "%s", gpublob_error_message(g));
  check(gpublob_param_get(g, &r, 0, 0, 0, &pi, sizeof pi - 1) == GPUBLOB_MISUSE,
        "misuse: a struct smaller than 1.7's is MISUSE", "%s", gpublob_error_message(g));
  check(gpublob_param_count(g, &r, 1, 0, &c) == GPUBLOB_MISUSE && gpublob_param_count(g, &r, 0, 0, NULL) ==
        GPUBLOB_MISUSE && gpublob_param_count(NULL, &r, 0, 0, &c) == GPUBLOB_MISUSE,
        "misuse: an output out of range, a NULL count or handle is MISUSE", NULL);
  check(gpublob_param_get(g, &r, 0, 0, 3, &pi, sizeof pi) == 0 && pi.index == 3 && !strcmp(pi.name, "n"),
        "gpublob_param_get: saxpy's last parameter is n", "%s", gpublob_error_message(g));
  gpublob_result_free(&r);
}

int main(void) {
  if (gpublob_open(&g)) return 1;
  amd();
  nvidia();
  nvidia_large();
  cli_cache();
  hostile_nvidia();
  hostile_amd();
  gpublob_close(g);
  return report();
}
