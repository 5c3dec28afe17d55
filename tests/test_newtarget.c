/* test_newtarget: gpublob.c built with one extra spec entry (tests/rdna.spec:
** AMD RDNA 3, gfx1100 in wave32: amdgcn with its differences) compiles a kernel
** for it; no code changed. */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* These checks call the 1.0 calls too (gpublob_module_compile and the like), which
** stay supported: without their deprecation warnings. */
#define GPUBLOB_DISABLE_DEPRECATE_WARNINGS
#include "gpublob.h"
#include "testlib.h"

static const char kernel[] =
    "define amdgpu_kernel void @scale(ptr addrspace(1) %p, float %s) {\n"
    "  %t = call i32 @llvm.amdgcn.workitem.id.x()\n"
    "  %q = getelementptr float, ptr addrspace(1) %p, i32 %t\n"
    "  %v = load float, ptr addrspace(1) %q\n"
    "  %r = fmul float %v, %s\n"
    "  store float %r, ptr addrspace(1) %q\n"
    "  ret void\n"
    "}\n"
    "declare i32 @llvm.amdgcn.workitem.id.x()\n";

int main(void) {
  gpublob *g;
  if (gpublob_open(&g)) return 2;
  gpublob_target_info rdna = {0};
  int named = 0;
  for (int i = 0; i < gpublob_target_count(); i++) {
    gpublob_target_info t;
    if (gpublob_target_get(i, &t, sizeof t) == GPUBLOB_OK && same_str(t.name, "rdna") && !named++) rdna = t;
  }
  check(named == 1, "newtarget: the extra spec entry is a target", "%d targets named rdna", named);
  check_if(named == 1, same_str(rdna.chip, "gfx1100"), "newtarget: the extra spec entry is a target: chip gfx1100",
           "%s", shown(rdna.chip));
  check_if(named == 1, same_str(rdna.triple, "amdgcn-amd-amdhsa"),
           "newtarget: it has amdgcn's values where it sets none (inherit): triple", "%s", shown(rdna.triple));
  check_if(named == 1, same_str(rdna.attribute, "rocdl.hsaco"),
           "newtarget: it has amdgcn's values where it sets none (inherit): attribute", "%s", shown(rdna.attribute));
  check_if(named == 1, same_str(rdna.suffix_bin, ".hsaco"),
           "newtarget: it has amdgcn's values where it sets none (inherit): suffix_bin", "%s", shown(rdna.suffix_bin));
  check_if(named == 1, same_str(rdna.tool_kind, "exec"),
           "newtarget: it has amdgcn's values where it sets none (inherit): tool_kind", "%s", shown(rdna.tool_kind));
  check_if(named == 1, same_str(rdna.mlir_target, ""),
           "newtarget: it has amdgcn's values where it sets none (inherit): no mlir_target", "%s",
           shown(rdna.mlir_target));

  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = "rdna"};
  gpublob_blob b = {0};
  if (!have_program(LLVM_BINDIR "/ld.lld")) { /* this build links no lld: the program links rdna's hsacos */
    skip("newtarget: rdna compiles an hsaco for gfx1100", "the ld.lld program not found (lld-22)");
    gpublob_close(g);
    return report();
  }
  int rc = gpublob_module_compile(g, &o, kernel, strlen(kernel), "scale.ll", &b);
  char *hdr = NULL, *notes = NULL;
  if (!rc) {
    const char *path = tmp_path("scale.hsaco");
    spill(path, b.data, b.size);
    const char *h[] = {LLVM_BINDIR "/llvm-readelf", "-h", path, NULL};
    const char *n[] = {LLVM_BINDIR "/llvm-readelf", "--notes", path, NULL};
    run(h, &hdr);
    run(n, &notes);
  }
  check(rc == 0, "newtarget: rdna compiles an hsaco for gfx1100", "rc %d: %s", rc, gpublob_error_message(g));
  check(b.size > 20, "newtarget: rdna compiles an hsaco for gfx1100: more than 20 bytes", "%zu bytes", b.size);
  check(elf_machine_of(b.data, b.size) == EM_AMDGPU, "newtarget: rdna compiles an hsaco for gfx1100: e_machine EM_AMDGPU",
        "%zu bytes, e_machine %u", b.size, elf_machine_of(b.data, b.size));
  check(contains(hdr, "gfx1100"), "newtarget: rdna compiles an hsaco for gfx1100: llvm-readelf -h names gfx1100", "%s",
        hdr);
  check(contains(notes, ".wavefront_size: 32"), "newtarget: the kernel runs in wave32", "notes: %s", notes);
  check(contains(notes, ".name:           scale"), "newtarget: the kernel runs in wave32: the notes name it", "notes: %s",
        notes);
  gpublob_blob_free(&b);

  /* The same entry's device libraries: Debian ships no oclc_isa_version_1100.bc,
     so a kernel that needs ocml either links or is refused with that file named. */
  size_t n;
  if (!need_rocm("newtarget: device libraries resolve per chip from the template")) {
    free(hdr), free(notes);
    gpublob_close(g);
    return report();
  }
  unsigned char *ir = slurp("examples/saxpy_amdgcn.ll", &n);
  rc = gpublob_module_compile(g, &o, ir, n, "saxpy_amdgcn.ll", &b);
  check(rc == GPUBLOB_OK || rc == GPUBLOB_NOLIB, "newtarget: device libraries resolve per chip from the template",
        "rc %d: %s", rc, gpublob_error_message(g));
  if (rc == GPUBLOB_NOLIB)
    check(contains(gpublob_error_message(g), "oclc_isa_version_1100.bc"),
          "newtarget: device libraries resolve per chip from the template: NOLIB names oclc_isa_version_1100.bc", "%s",
          gpublob_error_message(g));
  free(ir);
  free(hdr);
  free(notes);
  gpublob_blob_free(&b);
  gpublob_close(g);
  return report();
}
