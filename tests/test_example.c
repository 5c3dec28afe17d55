/* test_example: `ninja example` (examples/saxpy.sh) makes what README.md promises.
** Runs the script into a scratch directory, with a cache of its own, and checks
** each output again with the real tools, never by the script's word alone:
**  - saxpy.hsaco and an hsaco per chip (gfx90a, gfx942, gfx1100, gfx1201): AMD GPU
**    ELFs whose llvm-readelf flags name the chip (needs ROCm's device libraries:
**    saxpy's expf is ocml's);
**  - saxpy.hipfb: a clang offload bundle (its magic), whose gfx942 entry
**    clang-offload-bundler unbundles into a gfx942 hsaco (where the bundler is);
**  - saxpy.spv: SPIR-V's magic, and spirv-val accepts it (where it is);
**  - saxpy.out.mlir (built with MLIR): a gpu.binary @kernels in place of the
**    gpu.module, an ELF object per target;
**  - with the CUDA toolkit: saxpy.cubin (EM_CUDA) and, where fatbinary is found,
**    saxpy.fatbin (its magic); without, the script says so and exits 0.
** What is missing is reported skipped, with the reason.  Then the script's own
** checks: with an llvm-readelf that names another machine, it must say FAILED
** and exit 1.  Not in the sanitized suites (tests/sanitize.ninja says why): a
** driver of the script, as test_docs is. */
#define _POSIX_C_SOURCE 200809L
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpublob.h"
#include "testlib.h"

#ifndef GPUBLOB_MLIR
#define GPUBLOB_MLIR 0
#endif

static char *script_out;

/* dir/name's bytes (NULL when it is not there) and *size. */
static unsigned char *file_in(const char *dir, const char *name, size_t *size) {
  char path[4400];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return slurp(path, size);
}

static unsigned le32(const unsigned char *p) { return p[0] | p[1] << 8 | p[2] << 16 | (unsigned)p[3] << 24; }

/* The pack tool (fatbinary) of nvptx, found as a compile finds it. */
static int have_fatbinary(void) {
  gpublob *g;
  if (gpublob_open(&g)) return 0;
  gpublob_options o = GPUBLOB_OPTIONS_INIT;
  o.target = "nvptx";
  o.format = GPUBLOB_FORMAT_FATBIN;
  char path[4096];
  int ok = tool_path(g, &o, path, sizeof path) == 0 && *path;
  gpublob_close(g);
  return ok;
}

static void amd_outputs(const char *dir) {
  if (!have_rocm_bitcode()) {
    skip("example: the hsacos and the .hipfb", "no ROCm device libraries (ocml.bc in '" ROCM_BITCODE "')");
    check(contains(script_out, "skipped: no hsaco"), "example: says it made no hsaco, and why", "%s",
          shown(script_out));
    return;
  }
  const char *const files[][2] = {{"saxpy.hsaco", "gfx90a"},
                                  {"saxpy_amdgcn.gfx90a.hsaco", "gfx90a"},
                                  {"saxpy_amdgcn.gfx942.hsaco", "gfx942"},
                                  {"saxpy_amdgcn.gfx1100.hsaco", "gfx1100"},
                                  {"saxpy_amdgcn.gfx1201.hsaco", "gfx1201"}};
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    char path[4400], name[200];
    size_t n;
    snprintf(path, sizeof path, "%s/%s", dir, files[i][0]);
    unsigned char *b = slurp(path, &n);
    snprintf(name, sizeof name, "example: %s is an AMD GPU ELF", files[i][0]);
    check(b && elf_machine_of(b, n) == EM_AMDGPU, name, "%s", b ? "another machine" : "not there");
    snprintf(name, sizeof name, "example: %s is for %s (llvm-readelf's flags)", files[i][0], files[i][1]);
    if (have_program(LLVM_BINDIR "/llvm-readelf")) check_if(b, amdgpu_chip_is(path, files[i][1]), name, "another chip");
    else skip(name, "no llvm-readelf in " LLVM_BINDIR);
    free(b);
  }
  size_t n;
  unsigned char *b = file_in(dir, "saxpy.hipfb", &n);
  check(b && n > 24 && !memcmp(b, "__CLANG_OFFLOAD_BUNDLE__", 24), "example: saxpy.hipfb is a clang offload bundle",
        "%s", b ? "another magic" : "not there");
  free(b);
  const char *name = "example: saxpy.hipfb's gfx942 entry unbundles into a gfx942 hsaco";
  if (have_program(LLVM_BINDIR "/clang-offload-bundler")) {
    char path[4400];
    snprintf(path, sizeof path, "%s/saxpy.hipfb", dir);
    const char *entry = tmp_path("entry.gfx942.hsaco");
    int rc = unbundle(path, "hipv4-amdgcn-amd-amdhsa--gfx942", entry);
    check(rc == 0 && amdgpu_chip_is(entry, "gfx942"), name, "clang-offload-bundler exit %d", rc);
  } else {
    skip(name, "clang-offload-bundler not found (" LLVM_BINDIR "; apt-get install clang-tools-22)");
  }
}

static void spirv_output(const char *dir) {
  size_t n;
  unsigned char *b = file_in(dir, "saxpy.spv", &n);
  check(b && n >= 4 && le32(b) == 0x07230203u, "example: saxpy.spv is SPIR-V", "%s", b ? "another magic" : "not there");
  free(b);
  const char *name = "example: spirv-val accepts saxpy.spv";
  if (!have_program(SPIRV_VAL)) {
    skip(name, "spirv-val not found (apt-get install spirv-tools)");
    return;
  }
  char path[4400], *log = NULL;
  snprintf(path, sizeof path, "%s/saxpy.spv", dir);
  int rc = run((const char *[]){SPIRV_VAL, path, NULL}, &log);
  check(rc == 0, name, "spirv-val exit %d: %s", rc, shown(log));
  free(log);
}

static void mlir_output(const char *dir) {
  if (!GPUBLOB_MLIR) {
    skip("example: saxpy.out.mlir", "gpublob was configured without MLIR");
    return;
  }
  int targets = have_rocm_bitcode() + have_ptxas();
  if (!targets) {
    skip("example: saxpy.out.mlir", "saxpy.mlir's math.exp needs ROCm's ocml or CUDA's libdevice, and neither is here");
    return;
  }
  size_t n;
  char *m = (char *)file_in(dir, "saxpy.out.mlir", &n);
  check(contains(m, "gpu.binary @kernels"), "example: saxpy.out.mlir has gpu.binary @kernels", "%.300s", shown(m));
  check(lacks(m, "gpu.module"), "example: saxpy.out.mlir has no gpu.module left", "%s", m ? "one is there" : "no file");
  int objects = 0;
  for (const char *p = m; p && (p = strstr(p, "bin = \"\\7FELF")); p++) objects++;
  check(objects == targets, "example: saxpy.out.mlir has an ELF object per target", "%d objects, %d targets", objects,
        targets);
  check(!have_ptxas() || contains(m, "#gpu.object<#nvvm.target"), "example: saxpy.out.mlir has the nvvm object", "%s",
        m ? "none" : "no file");
  check(!have_rocm_bitcode() || contains(m, "#gpu.object<#rocdl.target"), "example: saxpy.out.mlir has the rocdl object",
        "%s", m ? "none" : "no file");
  free(m);
}

static void cuda_outputs(const char *dir) {
  if (!have_ptxas()) {
    skip("example: saxpy.cubin and saxpy.fatbin", "the CUDA toolkit's ptxas not found");
    check(contains(script_out, "skipped: no cubin"), "example: says it made no cubin, and why", "%s",
          shown(script_out));
    return;
  }
  size_t n;
  unsigned char *b = file_in(dir, "saxpy.cubin", &n);
  check(b && elf_machine_of(b, n) == EM_CUDA, "example: saxpy.cubin is a CUDA ELF", "%s", b ? "another machine" : "not there");
  free(b);
  if (!have_fatbinary()) {
    skip("example: saxpy.fatbin", "the CUDA toolkit's fatbinary not found");
    return;
  }
  b = file_in(dir, "saxpy.fatbin", &n);
  check(b && n >= 4 && le32(b) == 0xba55ed50u, "example: saxpy.fatbin is a fatbin", "%s", b ? "another magic" : "not there");
  free(b);
}

int main(void) {
  setenv("GPUBLOB_CACHE_DIR", tmp_path("cache"), 1);
  const char *dir = tmp_path("example");
  int rc = run((const char *[]){"sh", "examples/saxpy.sh", dir, NULL}, &script_out);
  check(rc == 0, "example: examples/saxpy.sh exits 0", "exit %d:\n%s", rc, shown(script_out));
  check(contains(script_out, "saxpy.sh: every output checked") && lacks(script_out, "FAILED"),
        "example: the script's own checks pass", "%s", shown(script_out));
  amd_outputs(dir);
  cuda_outputs(dir);
  spirv_output(dir);
  mlir_output(dir);

  /* Its checks are not blind: an llvm-readelf that names another machine fails it. */
  const char *bin = tmp_path("bin"), *fake = tmp_path("bin/llvm-readelf");
  run((const char *[]){"mkdir", "-p", bin, NULL}, NULL);
  const char sh[] = "#!/bin/sh\necho '  Machine:                           EM_X86_64'\n"
                    "echo '  Flags:                             0x0'\n";
  spill(fake, sh, sizeof sh - 1);
  run((const char *[]){"chmod", "+x", fake, NULL}, NULL);
  setenv("LLVM_BINDIR", bin, 1);
  char *out = NULL;
  rc = run((const char *[]){"sh", "examples/saxpy.sh", tmp_path("example2"), NULL}, &out);
  unsetenv("LLVM_BINDIR");
  if (have_ptxas() || have_rocm_bitcode())
    check(rc == 1 && contains(out, "FAILED: ") && contains(out, "saxpy.sh: FAILED"),
          "example: an ELF for another machine fails the script, saying so", "exit %d:\n%s", rc, shown(out));
  else
    skip("example: an ELF for another machine fails the script", "no ELF is made here (no CUDA toolkit, no ROCm)");
  free(out);
  free(script_out);
  return report();
}
