/* test_targets: real blobs for every spec target, checked with real tools
** (ptxas, llvm-readelf, llvm-objdump, llvm-nm, spirv-val). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpublob.h"
#include "testlib.h"

#define READELF LLVM_BINDIR "/llvm-readelf"
#define OBJDUMP LLVM_BINDIR "/llvm-objdump"
#define NM LLVM_BINDIR "/llvm-nm"
#define LLVM_AS LLVM_BINDIR "/llvm-as"

static gpublob *g;

static int compile_file(const char *target, const char *path, int format, int opt,
                        const char *features, gpublob_blob *b) {
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = target, .format = format,
                       .opt = opt, .features = features};
  int rc = gpublob_file_compile(g, &o, path, b);
  if (rc) printf("  (%s: %s)\n", target, gpublob_error_message(g));
  return rc;
}

static unsigned elf_machine(const gpublob_blob *b) {
  if (b->size < 20 || memcmp(b->data, "\177ELF", 4)) return 0;
  return (unsigned)b->data[18] | (unsigned)b->data[19] << 8;
}

/* Writes the blob to a scratch file and runs a tool on it; the tool's output in *out. */
static int tool_on(const char *tool, const char *flag, const gpublob_blob *b, const char *name,
                   char **out) {
  const char *path = tmp_path(name);
  spill(path, b->data, b->size);
  const char *argv[] = {tool, flag, path, NULL};
  if (!flag) argv[1] = path, argv[2] = NULL;
  return run(argv, out);
}

static int no_undefined(const gpublob_blob *b, const char *name, char **out) {
  const char *path = tmp_path(name);
  spill(path, b->data, b->size);
  const char *argv[] = {NM, "--undefined-only", path, NULL};
  int rc = run(argv, out);
  /* strong undefined symbols show as " U "; ptxas's own weak .nv.reservedSmem is fine */
  return rc == 0 && *out && !contains(*out, " U ");
}

/* ---- nvptx ---- */
static void test_nvptx_asm(void) {
  gpublob_blob b;
  int rc = compile_file("nvptx", "examples/saxpy_nvptx.ll", GPUBLOB_FORMAT_ASM, 0, NULL, &b);
  if (rc == GPUBLOB_NOLIB) {
    skip("nvptx: PTX with libdevice linked", "CUDA toolkit (libdevice.10.bc) not found");
    return;
  }
  check(rc == 0 && contains((char *)b.data, ".target sm_90") &&
            contains((char *)b.data, ".entry saxpy"),
        "nvptx: PTX for sm_90 with the saxpy entry", "rc %d", rc);
  check(!rc && !contains((char *)b.data, "__nv_expf") && !contains((char *)b.data, ".extern"),
        "nvptx: libdevice's expf is linked in, nothing left extern", NULL);
  if (!have_ptxas()) {
    skip("nvptx: ptxas accepts the PTX", "CUDA toolkit not found");
  } else {
    char *out = NULL;
    const char *ptx = tmp_path("saxpy.ptx"), *cubin = tmp_path("saxpy-ptxas.cubin");
    spill(ptx, b.data, b.size);
    char ptxas[4096];
    gpublob_options o = {.target = "nvptx"};
    tool_path(g, &o, ptxas, sizeof ptxas);
    const char *argv[] = {ptxas, "-arch=sm_90", ptx, "-o", cubin, NULL};
    rc = run(argv, &out);
    check(rc == 0 && exists(cubin), "nvptx: ptxas accepts the PTX", "ptxas: %s", out);
    free(out);
  }
  gpublob_blob_free(&b);
}

static void test_nvptx_cubin(const char *chip, int opt) {
  char name[64], target[64];
  snprintf(name, sizeof name, "nvptx: cubin for %s at -O%d", chip, opt - 1);
  if (!have_ptxas()) {
    skip(name, "CUDA toolkit not found");
    return;
  }
  snprintf(target, sizeof target, "nvptx:%s", chip);
  gpublob_blob b;
  int rc = compile_file(target, "examples/saxpy_nvptx.ll", 0, opt, NULL, &b);
  if (rc == GPUBLOB_NOLIB) {
    skip(name, "CUDA toolkit (libdevice.10.bc) not found");
    return;
  }
  char *out = NULL, *und = NULL;
  if (!rc) tool_on(READELF, "-h", &b, "saxpy.cubin", &out);
  check(!rc && elf_machine(&b) == 190 && contains(out, chip) && !strcmp(b.suffix, ".cubin"),
        name, "rc %d, e_machine %u, readelf: %s", rc, elf_machine(&b), out);
  snprintf(name, sizeof name, "nvptx: %s cubin has no undefined symbols", chip);
  if (!rc) check(no_undefined(&b, "saxpy-nm.cubin", &und), name, "undefined: %s", und);
  free(out);
  free(und);
  gpublob_blob_free(&b);
}

/* Only what the kernel references comes from libdevice (hundreds of functions). */
static void test_lazy_libdevice(void) {
  gpublob_blob b;
  int rc = compile_file("nvptx", "examples/saxpy_nvptx.ll", GPUBLOB_FORMAT_LLVM, 1, NULL, &b);
  if (rc == GPUBLOB_NOLIB) {
    skip("nvptx: -f llvm links only what saxpy needs", "CUDA toolkit (libdevice.10.bc) not found");
    return;
  }
  char *out = NULL;
  if (!rc) {
    const char *path = tmp_path("saxpy-O0.bc");
    spill(path, b.data, b.size);
    const char *argv[] = {NM, path, NULL};
    run(argv, &out);
  }
  int defined = 0;
  for (char *p = out; p && (p = strchr(p, '\n')); p++) defined++;
  check(!rc && !memcmp(b.data, "BC\xc0\xde", 4) && contains(out, "saxpy") &&
            !contains(out, "__nv_expf") && defined < 12,
        "nvptx: -f llvm at -O0 links only what saxpy needs, inlined, none left undefined", "rc %d, %d defined: %s", rc,
        defined, out);
  free(out);
  gpublob_blob_free(&b);
}

/* ---- amdgcn ---- */
static void test_amdgcn(const char *chip) {
  char name[96], target[64];
  snprintf(target, sizeof target, "amdgcn:%s", chip);
  gpublob_blob b;
  int rc = compile_file(target, "examples/saxpy_amdgcn.ll", 0, 0, NULL, &b);
  char *hdr = NULL, *notes = NULL, *dis = NULL, *und = NULL;
  if (!rc) {
    tool_on(READELF, "-h", &b, "saxpy.hsaco", &hdr);
    tool_on(READELF, "--notes", &b, "saxpy-n.hsaco", &notes);
    tool_on(OBJDUMP, "-d", &b, "saxpy-d.hsaco", &dis);
  }
  snprintf(name, sizeof name, "amdgcn: hsaco for %s has EM_AMDGPU and the chip in e_flags", chip);
  check(!rc && elf_machine(&b) == 224 && contains(hdr, chip), name, "rc %d, readelf: %s", rc, hdr);
  snprintf(name, sizeof name, "amdgcn: %s metadata notes name the kernel, code object v5", chip);
  check(!rc && contains(notes, ".name:           saxpy") && contains(notes, "saxpy.kd") &&
            contains(notes, "amdhsa.version:\n  - 1\n  - 2"),
        name, "notes: %s", notes);
  snprintf(name, sizeof name, "amdgcn: %s hsaco disassembles", chip);
  check(!rc && contains(dis, "<saxpy>:") && contains(dis, "s_endpgm"), name, "objdump: %.400s", dis);
  snprintf(name, sizeof name, "amdgcn: %s hsaco has no undefined symbols (ocml linked)", chip);
  if (!rc) check(no_undefined(&b, "saxpy-nm.hsaco", &und), name, "undefined: %s", und);
  free(hdr);
  free(notes);
  free(dis);
  free(und);
  gpublob_blob_free(&b);
}

static void test_amdgcn_asm(void) {
  gpublob_blob b;
  int rc = compile_file("amdgcn", "examples/saxpy_amdgcn.ll", GPUBLOB_FORMAT_ASM, 0, NULL, &b);
  check(!rc && contains((char *)b.data, ".amdgcn_target \"amdgcn-amd-amdhsa--gfx90a") &&
            contains((char *)b.data, "saxpy:"),
        "amdgcn: -f asm gives AMDGCN assembly for gfx90a", NULL);
  gpublob_blob_free(&b);
}

/* ---- spirv ---- */
static void test_spirv(void) {
  gpublob_blob b;
  int rc = compile_file("spirv", "examples/saxpy_spirv.ll", 0, 0, NULL, &b);
  char *out = NULL;
  uint32_t magic = 0;
  if (!rc && b.size >= 4) memcpy(&magic, b.data, 4);
  int val = rc ? -1 : tool_on(SPIRV_VAL, NULL, &b, "saxpy.spv", &out);
  check(!rc && magic == 0x07230203u && val == 0, "spirv: the module passes spirv-val",
        "rc %d, magic %08x, spirv-val %d: %s", rc, magic, val, out);
  free(out);
  gpublob_blob_free(&b);
}

/* ---- flags choose device-library variants and module flags through the spec ---- */
static char *disassemble(const char *target, const char *path, unsigned flags, const char *name) {
  gpublob_options o = {.target = target, .format = GPUBLOB_FORMAT_LLVM, .opt = GPUBLOB_OPT_O0,
                       .flags = flags};
  gpublob_blob b;
  char *out = NULL;
  if (gpublob_file_compile(g, &o, path, &b)) return NULL;
  const char *bc = tmp_path(name);
  spill(bc, b.data, b.size);
  const char *argv[] = {LLVM_BINDIR "/llvm-dis", bc, "-o", "-", NULL};
  run(argv, &out);
  gpublob_blob_free(&b);
  return out;
}

static void test_flags(void) {
  char *on = disassemble("amdgcn", "examples/saxpy_amdgcn.ll", GPUBLOB_FLAG_FTZ, "ftz.bc");
  char *off = disassemble("amdgcn", "examples/saxpy_amdgcn.ll", 0, "noftz.bc");
  check(contains(on, "@__oclc_daz_opt = internal local_unnamed_addr addrspace(4) constant i8 1") &&
            contains(off, "@__oclc_daz_opt = internal local_unnamed_addr addrspace(4) constant i8 0") &&
            contains(on, "@__oclc_ISA_version = internal local_unnamed_addr addrspace(4) constant i32 9010"),
        "flags: amdgcn ftz picks oclc_daz_opt_on, and the isa library follows the chip", NULL);
  free(on);
  free(off);
  char *nv = disassemble("nvptx", "examples/saxpy_nvptx.ll", GPUBLOB_FLAG_FTZ, "nvftz.bc");
  if (!nv) skip("flags: nvptx ftz sets nvvm-reflect-ftz", "CUDA toolkit (libdevice.10.bc) not found");
  else check(contains(nv, "!\"nvvm-reflect-ftz\", i32 1}"), "flags: nvptx ftz sets nvvm-reflect-ftz", "%.300s", nv);
  free(nv);
}

/* ---- inputs: bitcode, memory, stdin through the CLI ---- */
static void test_bitcode_input(void) {
  const char *bc = tmp_path("saxpy_amdgcn.bc");
  const char *argv[] = {LLVM_AS, "examples/saxpy_amdgcn.ll", "-o", bc, NULL};
  int as = run(argv, NULL);
  gpublob_blob b;
  int rc = as ? -1 : compile_file("amdgcn", bc, 0, 0, NULL, &b);
  check(!rc && elf_machine(&b) == 224, "input: bitcode (.bc) compiles", "llvm-as %d, rc %d", as, rc);
  gpublob_blob_free(&b);
}

static void test_memory_input(void) {
  size_t n;
  unsigned char *ir = slurp("examples/saxpy_spirv.ll", &n);
  gpublob_options o = {.target = "spirv", .format = GPUBLOB_FORMAT_ASM};
  gpublob_blob b;
  int rc = gpublob_module_compile(g, &o, ir, n, "saxpy_spirv.ll", &b);
  check(!rc && contains((char *)b.data, "OpEntryPoint Kernel") && !strcmp(b.suffix, ".spvasm"),
        "input: from memory, SPIR-V text", "rc %d: %s", rc, gpublob_error_message(g));
  gpublob_blob_free(&b);
  free(ir);
}

static void test_cli_stdin(void) {
  const char *out = tmp_path("stdin.hsaco");
  char *log = NULL;
  /* The CLI reads "-" from its standard input: feed it through a file redirect. */
  const char *argv[] = {"sh", "-c", "build/gpublob -t amdgcn:gfx908 -o \"$0\" - < examples/saxpy_amdgcn.ll",
                        out, NULL};
  int rc = run(argv, &log);
  size_t n = 0;
  unsigned char *blob = slurp(out, &n);
  check(rc == 0 && blob && n > 20 && blob[18] == 224, "cli: stdin in, -o file out",
        "rc %d: %s", rc, log);
  free(blob);
  free(log);
}

static void test_cli_list_targets(void) {
  char *out = NULL;
  const char *argv[] = {"build/gpublob", "--list-targets", NULL};
  int rc = run(argv, &out);
  check(rc == 0 && contains(out, "nvptx") && contains(out, "nvptx64-nvidia-cuda") &&
            contains(out, "rocdl.hsaco") && contains(out, "gpublob.spirv") &&
            contains(out, "ld.lld"),
        "cli: --list-targets names targets, triples, attributes and tools", "%s", out);
  free(out);
}

int main(void) {
  if (gpublob_open(&g)) return 2;
  test_nvptx_asm();
  test_nvptx_cubin("sm_90", GPUBLOB_OPT_O3);
  test_nvptx_cubin("sm_80", GPUBLOB_OPT_O0);
  test_lazy_libdevice();
  test_amdgcn("gfx90a");
  test_amdgcn("gfx908");
  test_amdgcn("gfx1030");
  test_amdgcn_asm();
  test_spirv();
  test_flags();
  test_bitcode_input();
  test_memory_input();
  test_cli_stdin();
  test_cli_list_targets();
  gpublob_close(g);
  return report();
}
