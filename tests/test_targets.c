/* test_targets: real blobs for every spec target, checked with real tools
** (ptxas, llvm-readelf, llvm-objdump, llvm-nm, spirv-val). */
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* These checks call the 1.0 calls too (gpublob_module_compile and the like), which
** stay supported: without their deprecation warnings. */
#define GPUBLOB_DISABLE_DEPRECATE_WARNINGS
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

static unsigned elf_machine(const gpublob_blob *b) { return elf_machine_of(b->data, b->size); }

/* The blob starts with the n bytes of magic. */
static int starts_with(const gpublob_blob *b, const char *magic, size_t n) {
  return b->data && b->size >= n && !memcmp(b->data, magic, n);
}

/* The blob's text for a message ("(no blob)" when there is none). */
static const char *text_of(const gpublob_blob *b) { return b->data ? (const char *)b->data : "(no blob)"; }

/* Writes the blob to a scratch file and runs a tool on it; the tool's output in *out. */
static int tool_on(const char *tool, const char *flag, const gpublob_blob *b, const char *name,
                   char **out) {
  const char *path = tmp_path(name);
  spill(path, b->data, b->size);
  const char *argv[] = {tool, flag, path, NULL};
  if (!flag) argv[1] = path, argv[2] = NULL;
  return run(argv, out);
}

/* llvm-nm --undefined-only on the blob, two checks: "NAME: llvm-nm reads it", and
** NAME: strong undefined symbols show as " U "; the reserved shared memory's
** .nv.reservedSmem.* (the driver's: weak from ptxas, global from nvJitLink) is fine.
** Without a blob both fail, not checked. */
static void check_no_undefined(const gpublob_blob *b, const char *file, const char *name) {
  char label[200], *out = NULL;
  int rc = -1;
  if (b->data) {
    const char *path = tmp_path(file);
    spill(path, b->data, b->size);
    const char *argv[] = {NM, "--undefined-only", path, NULL};
    rc = run(argv, &out);
  }
  snprintf(label, sizeof label, "%s: llvm-nm reads it", name);
  check_if(b->data, rc == 0, label, "llvm-nm exit %d: %s", rc, shown(out));
  int strong = 0;
  for (const char *l = out; l && *l; l += strcspn(l, "\n"), l += *l == '\n')
    strong |= !strncmp(l + strspn(l, " "), "U ", 2) && strncmp(l + strspn(l, " ") + 2, ".nv.reservedSmem.", 17);
  check_if(b->data, !strong, name, "undefined: %s", shown(out));
  free(out);
}

/* ---- nvptx ---- */
static void test_nvptx_asm(void) {
  gpublob_blob b = {0};
  int rc = compile_file("nvptx", "examples/saxpy_nvptx.ll", GPUBLOB_FORMAT_ASM, 0, NULL, &b);
  if (rc == GPUBLOB_NOLIB) {
    skip("nvptx: PTX with libdevice linked", "CUDA toolkit (libdevice.10.bc) not found");
    return;
  }
  check(rc == 0, "nvptx: PTX for sm_90 with the saxpy entry: compiles", "rc %d: %s", rc, gpublob_error_message(g));
  check(contains((char *)b.data, ".target sm_90"), "nvptx: PTX for sm_90 with the saxpy entry: .target sm_90",
        "%.300s", text_of(&b));
  check(contains((char *)b.data, ".entry saxpy"), "nvptx: PTX for sm_90 with the saxpy entry: .entry saxpy", "%.300s",
        text_of(&b));
  check(lacks((char *)b.data, "__nv_expf"), "nvptx: libdevice's expf is linked in: no __nv_expf left", "rc %d", rc);
  check(lacks((char *)b.data, ".extern"), "nvptx: libdevice's expf is linked in: nothing left extern", "rc %d", rc);
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
    check(rc == 0, "nvptx: ptxas accepts the PTX", "ptxas exit %d: %s", rc, shown(out));
    check(exists(cubin), "nvptx: ptxas accepts the PTX: writes the cubin", "ptxas: %s", shown(out));
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
  gpublob_blob b = {0};
  int rc = compile_file(target, "examples/saxpy_nvptx.ll", 0, opt, NULL, &b);
  if (rc == GPUBLOB_NOLIB) {
    skip(name, "CUDA toolkit (libdevice.10.bc) not found");
    return;
  }
  char *out = NULL, label[160];
  if (!rc) tool_on(READELF, "-h", &b, "saxpy.cubin", &out);
  snprintf(label, sizeof label, "%s: compiles", name);
  check(rc == 0, label, "rc %d: %s", rc, gpublob_error_message(g));
  snprintf(label, sizeof label, "%s: e_machine EM_CUDA", name);
  check(elf_machine(&b) == EM_CUDA, label, "e_machine %u", elf_machine(&b));
  snprintf(label, sizeof label, "%s: llvm-readelf -h names %s", name, chip);
  check(contains(out, chip), label, "readelf: %s", shown(out));
  snprintf(label, sizeof label, "%s: suffix .cubin", name);
  check(same_str(b.suffix, ".cubin"), label, "suffix %s", b.suffix ? b.suffix : "(none)");
  snprintf(name, sizeof name, "nvptx: %s cubin has no undefined symbols", chip);
  check_no_undefined(&b, "saxpy-nm.cubin", name);
  free(out);
  gpublob_blob_free(&b);
}

/* Only what the kernel references comes from libdevice (hundreds of functions). */
static void test_lazy_libdevice(void) {
  gpublob_blob b = {0};
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
#define LAZY "nvptx: -f llvm at -O0 links only what saxpy needs, inlined, none left undefined"
  check(rc == 0, LAZY ": compiles", "rc %d: %s", rc, gpublob_error_message(g));
  check(starts_with(&b, "BC\xc0\xde", 4), LAZY ": bitcode", "rc %d, %zu bytes", rc, b.size);
  check(contains(out, "saxpy"), LAZY ": llvm-nm lists saxpy", "llvm-nm: %s", shown(out));
  check(lacks(out, "__nv_expf"), LAZY ": no __nv_expf left", "llvm-nm: %s", shown(out));
  check_if(out, defined < 12, LAZY ": fewer than 12 symbols", "%d symbols: %s", defined, shown(out));
#undef LAZY
  free(out);
  gpublob_blob_free(&b);
}

/* libdevice compiled whole to PTX: no kernel selects what lives, so the backend's own
** pipeline compiles every function, as llc does (no middle end: optimise 0 ms), and
** ptxas accepts the PTX; saxpy's PTX, with a kernel, keeps O3 (its expf inlined). */
static void test_whole_libdevice(void) {
#define WHOLE "nvptx: libdevice.10.bc whole to PTX without the middle end"
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = "nvptx:sm_90"};
  const char *paths = NULL;
  if (gpublob_libs_find(g, &o, &paths) || !paths || !*paths) {
    skip(WHOLE, "CUDA toolkit (libdevice.10.bc) not found");
    return;
  }
  char lib[4096];
  snprintf(lib, sizeof lib, "%.*s", (int)strcspn(paths, "\n"), paths);
  gpublob_blob b = {0}, k = {0};
  gpublob_stats st, sk;
  int rc = compile_file("nvptx:sm_90", lib, GPUBLOB_FORMAT_ASM, 0, NULL, &b);
  gpublob_stats_get(g, &st, sizeof st);
  int rk = compile_file("nvptx:sm_90", "examples/saxpy_nvptx.ll", GPUBLOB_FORMAT_ASM, 0, NULL, &k);
  gpublob_stats_get(g, &sk, sizeof sk);
  check(rc == 0, WHOLE ": compiles", "rc %d: %s", rc, gpublob_error_message(g));
  check(contains(text_of(&b), ".func  (.param .b32 func_retval0) __nv_expf("), WHOLE ": __nv_expf is defined",
        "%.300s", text_of(&b));
  check(contains(text_of(&b), "__nv_tanhf("), WHOLE ": __nv_tanhf is defined", "%.300s", text_of(&b));
  check(rc == 0 && st.optimise_ms == 0, WHOLE ": no middle end ran", "optimise %.2f ms", st.optimise_ms);
  check(rk == 0 && sk.optimise_ms > 0, "nvptx: saxpy's PTX keeps the middle end", "rc %d, optimise %.2f ms", rk,
        sk.optimise_ms);
  check(rk == 0 && lacks(text_of(&k), "__nv_expf"), "nvptx: saxpy's PTX keeps the middle end: expf inlined",
        "%.300s", text_of(&k));
  if (!have_ptxas()) {
    skip(WHOLE ": ptxas accepts the PTX", "CUDA toolkit not found");
  } else if (!rc) {
    char ptxas[4096], *out = NULL;
    const char *ptx = tmp_path("libdevice.ptx"), *cubin = tmp_path("libdevice.cubin");
    spill(ptx, b.data, b.size);
    gpublob_options t = {.target = "nvptx"};
    tool_path(g, &t, ptxas, sizeof ptxas);
    const char *argv[] = {ptxas, "-arch=sm_90", ptx, "-o", cubin, NULL};
    int pr = run(argv, &out);
    check(pr == 0 && exists(cubin), WHOLE ": ptxas accepts the PTX", "ptxas exit %d: %s", pr, shown(out));
    free(out);
  }
#undef WHOLE
  gpublob_blob_free(&b);
  gpublob_blob_free(&k);
}

/* ---- amdgcn ---- */
static void test_amdgcn(const char *chip) {
  char name[96], target[64];
  snprintf(target, sizeof target, "amdgcn:%s", chip);
  gpublob_blob b = {0};
  int rc = compile_file(target, "examples/saxpy_amdgcn.ll", 0, 0, NULL, &b);
  char *hdr = NULL, *notes = NULL, *dis = NULL, label[200];
  if (!rc) {
    tool_on(READELF, "-h", &b, "saxpy.hsaco", &hdr);
    tool_on(READELF, "--notes", &b, "saxpy-n.hsaco", &notes);
    tool_on(OBJDUMP, "-d", &b, "saxpy-d.hsaco", &dis);
  }
  snprintf(name, sizeof name, "amdgcn: hsaco for %s has EM_AMDGPU and the chip in e_flags", chip);
  snprintf(label, sizeof label, "%s: compiles", name);
  check(rc == 0, label, "rc %d: %s", rc, gpublob_error_message(g));
  snprintf(label, sizeof label, "%s: e_machine EM_AMDGPU", name);
  check(elf_machine(&b) == EM_AMDGPU, label, "e_machine %u", elf_machine(&b));
  snprintf(label, sizeof label, "%s: llvm-readelf -h names %s", name, chip);
  check(contains(hdr, chip), label, "readelf: %s", shown(hdr));
  snprintf(name, sizeof name, "amdgcn: %s metadata notes name the kernel, code object v5", chip);
  snprintf(label, sizeof label, "%s: .name saxpy", name);
  check(contains(notes, ".name:           saxpy"), label, "notes: %s", shown(notes));
  snprintf(label, sizeof label, "%s: saxpy.kd", name);
  check(contains(notes, "saxpy.kd"), label, "notes: %s", shown(notes));
  snprintf(label, sizeof label, "%s: amdhsa.version 1.2", name);
  check(contains(notes, "amdhsa.version:\n  - 1\n  - 2"), label, "notes: %s", shown(notes));
  snprintf(name, sizeof name, "amdgcn: %s hsaco disassembles", chip);
  snprintf(label, sizeof label, "%s: <saxpy>:", name);
  check(contains(dis, "<saxpy>:"), label, "objdump: %.400s", shown(dis));
  snprintf(label, sizeof label, "%s: s_endpgm", name);
  check(contains(dis, "s_endpgm"), label, "objdump: %.400s", shown(dis));
  snprintf(name, sizeof name, "amdgcn: %s hsaco has no undefined symbols (ocml linked)", chip);
  check_no_undefined(&b, "saxpy-nm.hsaco", name);
  free(hdr);
  free(notes);
  free(dis);
  gpublob_blob_free(&b);
}

static void test_amdgcn_asm(void) {
  gpublob_blob b = {0};
  int rc = compile_file("amdgcn", "examples/saxpy_amdgcn.ll", GPUBLOB_FORMAT_ASM, 0, NULL, &b);
  check(rc == 0, "amdgcn: -f asm gives AMDGCN assembly for gfx90a: compiles", "rc %d: %s", rc,
        gpublob_error_message(g));
  check(contains((char *)b.data, ".amdgcn_target \"amdgcn-amd-amdhsa--gfx90a"),
        "amdgcn: -f asm gives AMDGCN assembly for gfx90a: .amdgcn_target gfx90a", "%.300s", text_of(&b));
  check(contains((char *)b.data, "saxpy:"), "amdgcn: -f asm gives AMDGCN assembly for gfx90a: saxpy:", "%.300s",
        text_of(&b));
  gpublob_blob_free(&b);
}

/* ---- spirv ---- */
static void test_spirv(void) {
  gpublob_blob b = {0};
  int rc = compile_file("spirv", "examples/saxpy_spirv.ll", 0, 0, NULL, &b);
  char *out = NULL;
  uint32_t magic = 0;
  if (!rc && b.size >= 4) memcpy(&magic, b.data, 4);
  int val = rc ? -1 : tool_on(SPIRV_VAL, NULL, &b, "saxpy.spv", &out);
  check(rc == 0, "spirv: the module passes spirv-val: compiles", "rc %d: %s", rc, gpublob_error_message(g));
  check(magic == 0x07230203u, "spirv: the module passes spirv-val: SPIR-V magic", "magic %08x", magic);
  if (have_program(SPIRV_VAL)) check_if(!rc, val == 0, "spirv: the module passes spirv-val", "spirv-val %d: %s", val, shown(out));
  else skip("spirv: the module passes spirv-val", "spirv-val not found (spirv-tools)");
  free(out);
  gpublob_blob_free(&b);
}

/* ---- flags choose device-library variants and module flags through the spec ---- */
static char *disassemble(const char *target, const char *path, unsigned flags, const char *name) {
  gpublob_options o = {.target = target, .format = GPUBLOB_FORMAT_LLVM, .opt = GPUBLOB_OPT_O0,
                       .flags = flags};
  gpublob_blob b = {0};
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
#define FLAGS "flags: amdgcn ftz picks oclc_daz_opt_on, and the isa library follows the chip"
  char *on = NULL, *off = NULL;
  if (need_rocm(FLAGS)) {
    on = disassemble("amdgcn", "examples/saxpy_amdgcn.ll", GPUBLOB_FLAG_FTZ, "ftz.bc");
    off = disassemble("amdgcn", "examples/saxpy_amdgcn.ll", 0, "noftz.bc");
    check(contains(on, "@__oclc_daz_opt = internal local_unnamed_addr addrspace(4) constant i8 1"),
          FLAGS ": ftz has __oclc_daz_opt 1", "%.300s", on ? on : "(did not compile)");
    check(contains(off, "@__oclc_daz_opt = internal local_unnamed_addr addrspace(4) constant i8 0"),
          FLAGS ": no ftz has __oclc_daz_opt 0", "%.300s", off ? off : "(did not compile)");
    check(contains(on, "@__oclc_ISA_version = internal local_unnamed_addr addrspace(4) constant i32 9010"),
          FLAGS ": __oclc_ISA_version 9010 for gfx90a", "%.300s", on ? on : "(did not compile)");
  }
#undef FLAGS
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
  gpublob_blob b = {0};
  int rc = as ? -1 : compile_file("amdgcn", bc, 0, 0, NULL, &b);
  check(as == 0, "input: bitcode (.bc) compiles: llvm-as makes it", "llvm-as %d", as);
  check(rc == 0, "input: bitcode (.bc) compiles", "rc %d", rc);
  check(elf_machine(&b) == EM_AMDGPU, "input: bitcode (.bc) compiles: e_machine EM_AMDGPU", "e_machine %u",
        elf_machine(&b));
  gpublob_blob_free(&b);
}

static void test_memory_input(void) {
  size_t n;
  unsigned char *ir = slurp("examples/saxpy_spirv.ll", &n);
  gpublob_options o = {.target = "spirv", .format = GPUBLOB_FORMAT_ASM};
  gpublob_blob b = {0};
  int rc = gpublob_module_compile(g, &o, ir, n, "saxpy_spirv.ll", &b);
  check(rc == 0, "input: from memory, SPIR-V text: compiles", "rc %d: %s", rc, gpublob_error_message(g));
  check(contains((char *)b.data, "OpEntryPoint Kernel"), "input: from memory, SPIR-V text: OpEntryPoint Kernel",
        "%.300s", text_of(&b));
  check(same_str(b.suffix, ".spvasm"), "input: from memory, SPIR-V text: suffix .spvasm", "suffix %s",
        b.suffix ? b.suffix : "(none)");
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
  check(rc == 0, "cli: stdin in, -o file out: exit 0", "rc %d: %s", rc, shown(log));
  check(n > 20, "cli: stdin in, -o file out: more than 20 bytes in the file", "%zu bytes", n);
  check(elf_machine_of(blob, n) == EM_AMDGPU, "cli: stdin in, -o file out: an EM_AMDGPU ELF in the file",
        "%zu bytes, e_machine %u", n, elf_machine_of(blob, n));
  free(blob);
  free(log);
}

static void test_cli_list_targets(void) {
  char *out = NULL;
  const char *argv[] = {"build/gpublob", "--list-targets", NULL};
  int rc = run(argv, &out);
#define LIST "cli: --list-targets names targets, triples, attributes and tools"
  check(rc == 0, LIST ": exit 0", "rc %d: %s", rc, shown(out));
  check(contains(out, "nvptx"), LIST ": nvptx", "%s", shown(out));
  check(contains(out, "nvptx64-nvidia-cuda"), LIST ": nvptx64-nvidia-cuda", "%s", shown(out));
  check(contains(out, "rocdl.hsaco"), LIST ": rocdl.hsaco", "%s", shown(out));
  check(contains(out, "gpublob.spirv"), LIST ": gpublob.spirv", "%s", shown(out));
  if (have_program(LLVM_BINDIR "/ld.lld")) check(contains(out, "ld.lld"), LIST ": ld.lld", "%s", shown(out));
  else skip(LIST ": ld.lld", "the ld.lld program not found (lld-22)");
#undef LIST
  free(out);
}

int main(void) {
  if (gpublob_open(&g)) return 2;
  test_nvptx_asm();
  test_nvptx_cubin("sm_90", GPUBLOB_OPT_O3);
  test_nvptx_cubin("sm_80", GPUBLOB_OPT_O0);
  test_lazy_libdevice();
  test_whole_libdevice();
  if (need_rocm("amdgcn: saxpy (expf by ocml) for gfx90a, gfx908 and gfx1030, -f asm, bitcode and stdin input")) {
    test_amdgcn("gfx90a");
    test_amdgcn("gfx908");
    test_amdgcn("gfx1030");
    test_amdgcn_asm();
    test_bitcode_input();
    test_cli_stdin();
  }
  test_spirv();
  test_flags();
  test_memory_input();
  test_cli_list_targets();
  gpublob_close(g);
  return report();
}
