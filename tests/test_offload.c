#define _GNU_SOURCE
/* test_offload: -f offload (GPUBLOB_FORMAT_OFFLOAD), LLVM's OffloadBinary, checked with
** LLVM's own tools.  For nvptx sm_80 and sm_90 (skipped without CUDA's ptxas), amdgcn
** gfx90a and gfx942:xnack+, and spirv, each kernel a plain store (no device library):
** llvm-offload-binary extracts every entry of the container, and clang-offload-packager
** too, each byte for byte the blob -f bin gives for its chip; llvm-objdump --offloading
** lists each entry's kind, arch, triple and producer; the container is the same bytes on
** 1 to 4 threads and from run to run; its kernels (gpublob_kernel_get) are the blobs'
** own; --offload-asm adds the PTX as an entry of its own; MLIR input is FORMAT.  The
** reader's hostile cases: a header cut short, offsets past the end, an image over the
** header, a size that lies, a billion strings, a later version: each TOOL, never a
** crash.  The CLI: -f offload, and --emit-object's host object, listed by
** llvm-objdump --offloading and linked with plain cc into a program that finds the
** container's magic at run time.  Several inputs (gpublob_compile_inputs, the CLI's
** INPUT...): one call of examples/saxpy_{nvptx,amdgcn,spirv}.ll for nvptx sm_80,sm_90,
** amdgcn gfx90a,gfx942:xnack+ and spirv gives one container of five entries (three
** without CUDA) that both LLVM tools extract, each -f bin's blob of its chip, listed in
** the inputs' order, the same bytes on 1 to 4 threads and from the CLI; -f bin gives
** each input's blobs with their input's index; an input no target takes is TARGET. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpublob.h"
#include "testlib.h"

#define OFFLOAD_BINARY LLVM_BINDIR "/llvm-offload-binary"
#define PACKAGER LLVM_BINDIR "/clang-offload-packager"
#define OBJDUMP LLVM_BINDIR "/llvm-objdump"
#define CLI "build/gpublob"

static const char nv_ll[] = "target triple = \"nvptx64-nvidia-cuda\"\n"
                            "define ptx_kernel void @store(ptr addrspace(1) %p) {\n"
                            "  store i32 42, ptr addrspace(1) %p\n  ret void\n}\n";
static const char amd_ll[] = "target triple = \"amdgcn-amd-amdhsa\"\n"
                             "define amdgpu_kernel void @store(ptr addrspace(1) %p) {\n"
                             "  store i32 42, ptr addrspace(1) %p\n  ret void\n}\n";
static const char spv_ll[] = "target triple = \"spirv64-unknown-unknown\"\n"
                             "define spir_kernel void @store(ptr addrspace(1) %p) {\n"
                             "  store i32 42, ptr addrspace(1) %p\n  ret void\n}\n";

/* One vendor's input, the chips it is compiled for, and the kind llvm-objdump-22 --offloading
** prints for its entries: "elf" for IMG_Object; "<none>" for IMG_SPIRV (6), which LLVM 22's
** name table stops short of (its reader takes the entry; llvm-offload-binary extracts it). */
typedef struct vendor {
  const char *name, *target, *triple, *kind, *ll;
  const char *chips[2];
  size_t nchips;
} vendor;

static const vendor vendors[] = {
    {"nvptx", "nvptx:sm_80,sm_90", "nvptx64-nvidia-cuda", "cubin", nv_ll, {"sm_80", "sm_90"}, 2},
    {"amdgcn", "amdgcn:gfx90a,gfx942:xnack+", "amdgcn-amd-amdhsa", "elf", amd_ll, {"gfx90a", "gfx942:xnack+"}, 2},
    {"spirv", "spirv", "spirv64-unknown-unknown", "<none>", spv_ll, {"generic"}, 1}};

static gpublob *g;

static int compile(const vendor *v, int format, unsigned jobs, unsigned flags, gpublob_result *r) {
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = v->target, .format = format, .jobs = jobs,
                       .flags = flags};
  gpublob_input in = {GPUBLOB_INPUT_LLVM, v->ll, strlen(v->ll), NULL, "store.ll"};
  int rc = gpublob_compile(g, &o, &in, r);
  if (rc) printf("  (%s: %s)\n", v->name, gpublob_error_message(g));
  return rc;
}

static int same_blob(const gpublob_blob *a, const unsigned char *p, size_t n) {
  return a->size == n && !memcmp(a->data, p, n);
}

/* llvm-offload-binary (or clang-offload-packager) extracts the entry of triple and arch
** from path into out: its exit status. */
static int extract(const char *tool, const char *path, const char *triple, const char *arch, const char *out) {
  char image[1024];
  snprintf(image, sizeof image, "--image=file=%s,triple=%s,arch=%s", out, triple, arch);
  char *log = NULL;
  const char *argv[] = {tool, path, image, NULL};
  int st = run(argv, &log);
  if (st) printf("  (%s: %s)\n", tool, shown(log));
  free(log);
  return st;
}

/* Each entry of the vendor's container, extracted by both tools, is -f bin's blob. */
static void check_extracted(const vendor *v, const char *path, const gpublob_result *bin) {
  const char *tools[] = {OFFLOAD_BINARY, PACKAGER};
  for (int t = 0; t < 2; t++)
    for (size_t i = 0; i < v->nchips && i < bin->count; i++) {
      char out[64], name[160];
      snprintf(out, sizeof out, "x%d_%s_%zu", t, v->name, i);
      snprintf(name, sizeof name, "%s: %s extracts %s's entry, byte for byte -f bin's blob", v->name,
               t ? "clang-offload-packager" : "llvm-offload-binary", v->chips[i]);
      size_t n = 0;
      int st = extract(tools[t], path, v->triple, v->chips[i], tmp_path(out));
      unsigned char *got = st ? NULL : slurp(tmp_path(out), &n);
      check(got && same_blob(&bin->outputs[i].blob, got, n), name, "status %d, %zu bytes, not %zu", st, n,
            bin->outputs[i].blob.size);
      free(got);
    }
}

/* llvm-objdump --offloading lists each entry's kind, arch, triple and producer. */
static void check_listed(const char *what, const char *path, const vendor *const *vs, size_t nv) {
  char *out = NULL;
  const char *argv[] = {OBJDUMP, "--offloading", path, NULL};
  int st = run(argv, &out);
  const char *at = out ? out : "";
  int ok = !st;
  size_t images = 0;
  for (size_t k = 0; k < nv; k++)
    for (size_t i = 0; i < vs[k]->nchips; i++, images++) {
      char want[512];
      snprintf(want, sizeof want, "IMAGE [%zu]:\nkind            %s\narch            %s\ntriple          %s\nproducer",
               images, vs[k]->kind, vs[k]->chips[i], vs[k]->triple);
      const char *p = strstr(at, want);
      ok = ok && p;
      if (p) at = p;
    }
  check(ok, what, "status %d: %s", st, shown(out));
  free(out);
}

/* The container's kernels are the bin blobs' own, in order, each with its chip. */
static void check_kernels(const vendor *v, const gpublob_result *bin, const gpublob_result *off) {
  size_t n = 0, want = 0;
  int ok = !gpublob_kernel_count(g, off, 0, &n);
  for (size_t i = 0; i < bin->count; i++) {
    size_t m = 0;
    int rc = gpublob_kernel_count(g, bin, i, &m);
    want += rc == GPUBLOB_OK ? m : 0;
  }
  ok = ok && n == want;
  for (size_t i = 0, k = 0; ok && i < bin->count; i++) {
    size_t m = 0;
    if (gpublob_kernel_count(g, bin, i, &m)) continue;
    for (size_t j = 0; ok && j < m; j++, k++) {
      gpublob_kernel_info a, b;
      ok = !gpublob_kernel_get(g, bin, i, j, &a, sizeof a);
      char name[256], chip[64];
      snprintf(name, sizeof name, "%s", a.name);
      snprintf(chip, sizeof chip, "%s", a.chip);
      gpublob_kernel_info copy = a;
      ok = ok && !gpublob_kernel_get(g, off, 0, k, &b, sizeof b);
      ok = ok && !strcmp(name, b.name) && !strcmp(chip, b.chip) && copy.registers == b.registers &&
           copy.shared_bytes == b.shared_bytes && copy.params_bytes == b.params_bytes &&
           copy.occupancy == b.occupancy && copy.spill_store_bytes == b.spill_store_bytes;
    }
  }
  char what[128];
  snprintf(what, sizeof what, "%s: the container's kernels are each blob's own (%zu), with their chips", v->name, want);
  check(ok, what, "%zu kernels, %zu wanted: %s", n, want, gpublob_error_message(g));
}

/* One vendor: the container against -f bin, on 1 to 4 threads; its file in *path. */
static int check_vendor(const vendor *v, char *path, size_t size, unsigned char **bytes, size_t *n) {
  gpublob_result bin = {0}, off = {0};
  int rc = compile(v, GPUBLOB_FORMAT_BIN, 1, 0, &bin) || compile(v, GPUBLOB_FORMAT_OFFLOAD, 1, 0, &off);
  check(!rc && bin.count == v->nchips && off.count == 1, v->name, "-f bin gives %zu blobs, -f offload %zu outputs",
        bin.count, off.count);
  if (rc || off.count != 1) {
    gpublob_result_free(&bin);
    gpublob_result_free(&off);
    return -1;
  }
  snprintf(path, size, "%s", tmp_path(v->name));
  spill(path, off.outputs[0].blob.data, off.outputs[0].blob.size);
  check(!strcmp(off.outputs[0].blob.suffix, ".offload") && !memcmp(off.outputs[0].blob.data, "\x10\xff\x10\xad", 4),
        "-f offload's output is .offload and starts with 10 FF 10 AD", "%s", off.outputs[0].blob.suffix);
  int same = 1;
  for (unsigned jobs = 2; jobs <= 4; jobs++) {
    gpublob_result again = {0};
    same = same && !compile(v, GPUBLOB_FORMAT_OFFLOAD, jobs, 0, &again) && again.count == 1 &&
           same_blob(&again.outputs[0].blob, off.outputs[0].blob.data, off.outputs[0].blob.size);
    gpublob_result_free(&again);
  }
  check(same, "the container is the same bytes on 1 to 4 threads", "%s", v->name);
  check_extracted(v, path, &bin);
  check_kernels(v, &bin, &off);
  *n = off.outputs[0].blob.size;
  *bytes = malloc(*n);
  if (*bytes) memcpy(*bytes, off.outputs[0].blob.data, *n);
  gpublob_result_free(&bin);
  gpublob_result_free(&off);
  return 0;
}

/* ---- the reader's hostile cases: a result of the caller's own bytes ---- */
static void put_le(unsigned char *p, uint64_t v, int n) {
  for (int i = 0; i < n; i++) p[i] = (unsigned char)(v >> 8 * i);
}

static void hostile(const char *what, const unsigned char *good, size_t n, size_t cut, size_t at, uint64_t value,
                    int bytes) {
  unsigned char *p = malloc(n + 1);
  memcpy(p, good, n);
  if (bytes) put_le(p + at, value, bytes);
  gpublob_output o = {{p, cut, ".offload"}, "amdgcn", "gfx90a", ""};
  gpublob_result r = {&o, 1};
  size_t count = 99;
  int rc = gpublob_kernel_count(g, &r, 0, &count);
  check(rc == GPUBLOB_TOOL && count == 0 && contains(gpublob_error_message(g), "offload binary"), what,
        "rc %d, %zu kernels: %s", rc, count, gpublob_error_message(g));
  free(p);
}

static void check_hostile(const unsigned char *good, size_t n) {
  uint64_t first = good[8] | (uint64_t)good[9] << 8; /* the first binary's size (small) */
  hostile("hostile: a header cut short is TOOL", good, n, 40, 0, 0, 0);
  hostile("hostile: the second binary cut short is TOOL", good, n, (size_t)first + 20, 0, 0, 0);
  hostile("hostile: a size past the file is TOOL", good, n, n, 8, (uint64_t)n + 8, 8);
  hostile("hostile: a size of 2^64-8 is TOOL", good, n, n, 8, UINT64_MAX - 7, 8);
  hostile("hostile: an image offset past the end is TOOL", good, n, n, 32 + 24, 1ull << 40, 8);
  hostile("hostile: an image over the header (overlapping) is TOOL", good, n, n, 32 + 24, 0, 8);
  hostile("hostile: an image size that lies is TOOL", good, n, n, 32 + 32, UINT64_MAX, 8);
  hostile("hostile: a billion strings is TOOL", good, n, n, 32 + 16, 1000000000ull, 8);
  hostile("hostile: an entry offset past the end is TOOL", good, n, n, 16, UINT64_MAX - 3, 8);
  hostile("hostile: a string offset past the end is TOOL", good, n, n, 72, 1ull << 33, 8);
  hostile("hostile: version 2 is TOOL", good, n, n, 4, 2, 4);
  /* a billion binaries: the same small binary over and over */
  size_t many = 5000 * 80;
  unsigned char *p = calloc(many, 1);
  for (size_t at = 0; at + 80 <= many; at += 80) {
    memcpy(p + at, "\x10\xff\x10\xad", 4);
    put_le(p + at + 4, 1, 4);
    put_le(p + at + 8, 80, 8);
    put_le(p + at + 16, 32, 8);
    put_le(p + at + 24, 40, 8);
    put_le(p + at + 32 + 8, 72, 8);
    put_le(p + at + 32 + 24, 72, 8);
    put_le(p + at + 32 + 32, 8, 8);
  }
  hostile("hostile: 5000 binaries (more than 4096) is TOOL", p, many, many, 0, 0, 0);
  free(p);
}

/* MLIR input: -f offload is FORMAT, naming why. */
static void check_mlir(void) {
  static const char mlir[] = "module attributes {gpu.container_module} {\n"
                             "  gpu.module @k {\n    llvm.func @f() { llvm.return }\n  }\n}\n";
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = "amdgcn", .format = GPUBLOB_FORMAT_OFFLOAD};
  gpublob_input in = {GPUBLOB_INPUT_MLIR, mlir, sizeof mlir - 1, NULL, "k.mlir"};
  gpublob_result r = {0};
  int rc = gpublob_compile(g, &o, &in, &r);
  check(rc == GPUBLOB_FORMAT && r.count == 0 && contains(gpublob_error_message(g), "OffloadBinary"),
        "MLIR input with -f offload is FORMAT, saying why", "rc %d: %s", rc, gpublob_error_message(g));
}

/* --offload-asm: the PTX of each chip as an entry of its own, after its cubin. */
static void check_asm(void) {
  gpublob_result r = {0};
  int rc = compile(&vendors[0], GPUBLOB_FORMAT_OFFLOAD, 2, GPUBLOB_FLAG_OFFLOAD_ASM, &r);
  if (!rc && r.count == 1) spill(tmp_path("asm.offload"), r.outputs[0].blob.data, r.outputs[0].blob.size);
  char *out = NULL;
  const char *argv[] = {OBJDUMP, "--offloading", tmp_path("asm.offload"), NULL};
  int st = rc ? -1 : run(argv, &out);
  const char *a = out ? strstr(out, "IMAGE [1]:\nkind            ptx\narch            sm_80") : NULL;
  check(!st && out && contains(out, "IMAGE [0]:\nkind            cubin\narch            sm_80") && a &&
            contains(a, "IMAGE [3]:\nkind            ptx\narch            sm_90"),
        "--offload-asm: each chip's cubin, then its PTX", "%s", shown(out));
  free(out);
  gpublob_result_free(&r);
}

/* ---- several inputs in one call: examples/saxpy_*.ll, one a vendor ---- */
static const char *const example[3] = {"examples/saxpy_nvptx.ll", "examples/saxpy_amdgcn.ll", "examples/saxpy_spirv.ll"};

/* gpublob_compile_inputs of the examples from first on, with the vendors' targets from
** first on, into r. */
static int compile_examples(int first, int format, unsigned jobs, gpublob_result *r) {
  gpublob_target_choice choices[3];
  gpublob_input in[3];
  size_t n = 0;
  for (int i = first; i < 3; i++, n++) {
    choices[n] = (gpublob_target_choice){vendors[i].target, NULL, NULL};
    in[n] = (gpublob_input){GPUBLOB_INPUT_AUTO, NULL, 0, example[i], NULL};
  }
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .targets = choices, .ntargets = n, .format = format,
                       .jobs = jobs};
  int rc = gpublob_compile_inputs(g, &o, in, n, r);
  if (rc) printf("  (compile_inputs: %s)\n", gpublob_error_message(g));
  return rc;
}

/* The example of vendor i alone, -f bin for its target: the blobs its entries must be. */
static int example_bin(int i, gpublob_result *r) {
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = vendors[i].target, .format = GPUBLOB_FORMAT_BIN};
  gpublob_input in = {GPUBLOB_INPUT_AUTO, NULL, 0, example[i], NULL};
  return gpublob_compile(g, &o, &in, r);
}

/* An input that no named target takes is TARGET, naming it; MLIR among several is FORMAT. */
static void check_inputs_refused(void) {
  gpublob_target_choice amd = {"amdgcn:gfx90a", NULL, NULL};
  gpublob_input in[2] = {{GPUBLOB_INPUT_AUTO, NULL, 0, example[1], NULL}, {GPUBLOB_INPUT_AUTO, NULL, 0, example[2], NULL}};
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .targets = &amd, .ntargets = 1,
                       .format = GPUBLOB_FORMAT_OFFLOAD};
  gpublob_result r = {0};
  int rc = gpublob_compile_inputs(g, &o, in, 2, &r);
  check(rc == GPUBLOB_TARGET && r.count == 0 && contains(gpublob_error_message(g), "saxpy_spirv.ll") &&
            contains(gpublob_error_message(g), "spirv64-unknown-unknown"),
        "several inputs: one that no named target takes is TARGET, naming it and its triple", "rc %d: %s", rc,
        gpublob_error_message(g));
  in[1] = (gpublob_input){GPUBLOB_INPUT_AUTO, NULL, 0, "examples/saxpy.mlir", NULL};
  rc = gpublob_compile_inputs(g, &o, in, 2, &r);
  check(rc == GPUBLOB_FORMAT && r.count == 0 && contains(gpublob_error_message(g), "saxpy.mlir"),
        "several inputs: an MLIR input among them is FORMAT", "rc %d: %s", rc, gpublob_error_message(g));
  rc = gpublob_compile_inputs(g, &o, in, 0, &r);
  check(rc == GPUBLOB_MISUSE, "gpublob_compile_inputs of no input is MISUSE", "rc %d", rc);
  const char *cli[] = {CLI, "--no-cache", "-t", "amdgcn:gfx90a", example[1], example[2], "-o", tmp_path("refused/"), NULL};
  char *out = NULL;
  int st = run(cli, &out);
  check(st == 10 + GPUBLOB_TARGET && contains(out, "saxpy_spirv.ll") && !exists(tmp_path("refused")),
        "CLI: an input no -t takes is TARGET (exit 17), nothing written", "%d: %s", st, shown(out));
  free(out);
}

/* -f bin of several inputs: an output per (input, target, chip), each with its input. */
static void check_inputs_bin(int first) {
  gpublob_result r = {0};
  int rc = compile_examples(first, GPUBLOB_FORMAT_BIN, 2, &r), ok = !rc;
  size_t at = 0;
  for (int i = first; ok && i < 3; i++) {
    gpublob_result one = {0};
    ok = !example_bin(i, &one);
    for (size_t k = 0; ok && k < one.count; k++, at++) {
      gpublob_output_info info;
      ok = at < r.count && !gpublob_output_get(&r, at, &info, sizeof info) && info.input == (size_t)(i - first) &&
           same_blob(&one.outputs[k].blob, info.data, info.size) && !strcmp(info.chip, one.outputs[k].chip);
    }
    gpublob_result_free(&one);
  }
  check(ok && at == r.count, "-f bin of several inputs: each input's blobs in order, each output naming its input",
        "rc %d, %zu outputs", rc, r.count);
  gpublob_result_free(&r);
}

/* ONE call of the three examples, -f offload: five entries (three without CUDA), each
** the -f bin blob of its chip, with its triple and arch, the same bytes on 1 to 4
** threads and from the CLI. */
static void check_inputs(void) {
  if (!need_rocm("several inputs: saxpy's expf on amdgcn")) return;
  int first = have_ptxas() ? 0 : 1;
  if (!first) printf("  (several inputs: five entries, nvptx, amdgcn and spirv)\n");
  else skip("several inputs: the nvptx entries (two of five)", "no ptxas (CUDA)");
  gpublob_result off = {0};
  int rc = compile_examples(first, GPUBLOB_FORMAT_OFFLOAD, 1, &off);
  check(!rc && off.count == 1, "gpublob_compile_inputs of three inputs, -f offload: one container", "rc %d, %zu", rc,
        off.count);
  if (rc || off.count != 1) return;
  size_t nk = 0;
  const char *code = NULL;
  int krc = gpublob_kernel_count(g, &off, 0, &nk), drc = krc || !nk ? -1 : gpublob_disasm(g, &off, 0, 0, &code);
  check(drc == GPUBLOB_FORMAT && code && !*code && contains(gpublob_error_message(g), "not one spec target's"),
        "several targets' container: gpublob_disasm of its kernel is FORMAT (an entry's code is its own output's)",
        "count %d (%zu kernels), disasm %d: %s", krc, nk, drc, gpublob_error_message(g));
  spill(tmp_path("inputs.offload"), off.outputs[0].blob.data, off.outputs[0].blob.size);
  const vendor *listed[3];
  size_t nlisted = 0;
  for (int i = first; i < 3; i++) {
    gpublob_result bin = {0};
    vendor v = vendors[i];
    v.name = i == 0 ? "inputs-nvptx" : i == 1 ? "inputs-amdgcn" : "inputs-spirv";
    if (!example_bin(i, &bin)) check_extracted(&v, tmp_path("inputs.offload"), &bin);
    else check(0, "-f bin of an example", "%s: %s", example[i], gpublob_error_message(g));
    gpublob_result_free(&bin);
    listed[nlisted++] = &vendors[i];
  }
  check_listed("several inputs: llvm-objdump --offloading lists every entry, the inputs' order", tmp_path("inputs.offload"),
               listed, nlisted);
  int same = 1;
  for (unsigned jobs = 2; jobs <= 4; jobs++) {
    gpublob_result again = {0};
    same = same && !compile_examples(first, GPUBLOB_FORMAT_OFFLOAD, jobs, &again) && again.count == 1 &&
           same_blob(&again.outputs[0].blob, off.outputs[0].blob.data, off.outputs[0].blob.size);
    gpublob_result_free(&again);
  }
  check(same, "several inputs: the container is the same bytes on 1 to 4 threads", "%s", "differs");
  const char *cli[] = {CLI, "--no-cache", "-t", vendors[0].target, "-t", vendors[1].target, "-t", vendors[2].target,
                       "-f", "offload", example[0], example[1], example[2], "-o", tmp_path("cli.offload"), NULL};
  char *out = NULL;
  int st = run(first ? (const char *[]){CLI, "--no-cache", "-t", vendors[1].target, "-t", vendors[2].target, "-f",
                                        "offload", example[1], example[2], "-o", tmp_path("cli.offload"), NULL}
                     : cli,
               &out);
  size_t n = 0;
  unsigned char *got = st ? NULL : slurp(tmp_path("cli.offload"), &n);
  check(got && same_blob(&off.outputs[0].blob, got, n), "CLI: -f offload of several INPUTs is the library's container",
        "%d: %s", st, shown(out));
  free(got);
  free(out);
  gpublob_result_free(&off);
  check_inputs_bin(first);
  check_inputs_refused();
}

/* ---- the CLI: -f offload and --emit-object ---- */
static const char host_c[] = "#include <stdio.h>\n#include <string.h>\n"
                             "extern const unsigned char store_offload[];\n"
                             "extern const unsigned long long store_offload_size;\n"
                             "int main(void) {\n"
                             "  int ok = store_offload_size > 72 && !memcmp(store_offload, \"\\x10\\xff\\x10\\xad\", 4);\n"
                             "  printf(\"%s %llu\\n\", ok ? \"magic\" : \"none\", store_offload_size);\n"
                             "  return !ok;\n}\n";

static void check_object(void) {
  spill(tmp_path("store.ll"), amd_ll, sizeof amd_ll - 1);
  char *out = NULL;
  const char *cli[] = {CLI, "--no-cache", "-t", "amdgcn:gfx90a,gfx942:xnack+", "-f", "offload", tmp_path("store.ll"),
                       "-o", tmp_path("store.offload"), "--emit-object", tmp_path("store.o"), NULL};
  int st = run(cli, &out);
  check(!st && exists(tmp_path("store.offload")) && exists(tmp_path("store.o")), "CLI: -f offload --emit-object writes both",
        "%d: %s", st, shown(out));
  free(out);
  const vendor *amd[] = {&vendors[1]};
  check_listed("--emit-object: llvm-objdump --offloading lists the host object's entries", tmp_path("store.o"), amd, 1);
  spill(tmp_path("main.c"), host_c, sizeof host_c - 1);
  size_t n = 0;
  unsigned char *container = slurp(tmp_path("store.offload"), &n);
  char want[64];
  snprintf(want, sizeof want, "magic %zu\n", n);
  const char *cc[] = {"/usr/bin/cc", tmp_path("main.c"), tmp_path("store.o"), "-o", tmp_path("main"), NULL};
  const char *prog[] = {tmp_path("main"), NULL};
  out = NULL;
  st = have_program("/usr/bin/cc") ? run(cc, &out) : -1;
  char *ran = NULL;
  int rst = st ? -1 : run(prog, &ran);
  check(container && !rst && same_str(ran, want), "a C program linked with plain cc finds the container's magic and size",
        "cc %d (%s), run %d: %s", st, shown(out), rst, shown(ran));
  free(out);
  free(ran);
  free(container);
  const char *arm[] = {CLI, "--no-cache", "-t", "amdgcn:gfx90a", "-f", "offload", tmp_path("store.ll"), "-o",
                       tmp_path("arm.offload"), "--emit-object", tmp_path("arm.o"), "--object-arch", "aarch64", NULL};
  st = run(arm, NULL);
  out = NULL;
  const char *readelf[] = {LLVM_BINDIR "/llvm-readelf", "--file-header", "--sections", tmp_path("arm.o"), NULL};
  int rs = st ? -1 : run(readelf, &out);
  check(!rs && contains(out, "AArch64") && contains(out, "LLVM_OFFLOADING") && contains(out, "REL (Relocatable file)"),
        "--object-arch aarch64: an AArch64 relocatable with .llvm.offloading", "%d: %s", st, shown(out));
  free(out);
  const char *bad[] = {CLI, "--no-cache", "-t", "amdgcn:gfx90a", tmp_path("store.ll"), "-o", tmp_path("bad.hsaco"),
                       "--emit-object", tmp_path("bad.o"), NULL};
  out = NULL;
  st = run(bad, &out);
  check(st == 2 && contains(out, "-f offload") && !exists(tmp_path("bad.o")) && !exists(tmp_path("bad.hsaco")),
        "--emit-object without -f offload is a usage error (2), nothing written", "%d: %s", st, shown(out));
  free(out);
}

int main(void) {
  if (!have_program(OFFLOAD_BINARY) || !have_program(OBJDUMP)) {
    skip("offload", "no llvm-offload-binary-22 or llvm-objdump-22");
    return report();
  }
  if (gpublob_open(&g)) return 1;
  scratch();
  unsigned char *bytes[3] = {NULL, NULL, NULL};
  size_t sizes[3] = {0, 0, 0};
  char paths[3][4200];
  const vendor *listed[3];
  size_t nlisted = 0;
  for (int i = 0; i < 3; i++) {
    if (i == 0 && !have_ptxas()) {
      skip("nvptx: sm_80 and sm_90 entries", "no ptxas (CUDA)");
      continue;
    }
    if (!check_vendor(&vendors[i], paths[i], sizeof paths[i], &bytes[i], &sizes[i])) listed[nlisted++] = &vendors[i];
  }
  /* every vendor's container, one after another: one file LLVM's tools read whole */
  FILE *all = fopen(tmp_path("all.offload"), "wb");
  for (int i = 0; i < 3 && all; i++)
    if (bytes[i]) fwrite(bytes[i], 1, sizes[i], all);
  if (all) fclose(all);
  check_listed("llvm-objdump --offloading lists every entry of the vendors' containers together", tmp_path("all.offload"),
               listed, nlisted);
  if (bytes[1]) check_hostile(bytes[1], sizes[1]);
  check_mlir();
  if (have_ptxas()) check_asm();
  check_object();
  check_inputs();
  for (int i = 0; i < 3; i++) free(bytes[i]);
  gpublob_close(g);
  return report();
}
