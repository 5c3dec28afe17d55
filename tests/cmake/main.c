/* tests/cmake/main.c: finds the blobs gpublob_add_kernels linked in (amd.h,
** amd_pack.h: each source's STEM_blobs[] table) and checks each: its target and
** chip, its size, and its bytes: an AMD code object's ELF header (EM_AMDGPU, the
** chip's EF_AMDGPU_MACH in e_flags), a clang offload bundle's magic, a cubin's
** EM_CUDA; FORMAT offload's container (amd_off.h), found by the host object's
** symbols amd_off_saxpy_offload and amd_off_saxpy_offload_size: LLVM's OffloadBinary
** magic 10 FF 10 AD, its size the table's.  Prints a line per blob and "blobs ok";
** exit 1 at the first mismatch. */
#include <stdio.h>
#include <string.h>

#include "amd.h"
#include "amd_pack.h"
#include "amd_off.h"
#ifdef TEST_NVPTX
#include "nv.h"
#endif

static int bad;

static void expect(int ok, const char *what, const gpublob_embedded_blob *b) {
  if (ok) return;
  printf("MISMATCH: %s: %s %s (%zu bytes)\n", what, b->target, b->chip, b->size);
  bad = 1;
}

static unsigned le16(const unsigned char *p) { return p[0] | p[1] << 8; }
static unsigned long le32(const unsigned char *p) { return le16(p) | (unsigned long)le16(p + 2) << 16; }

/* An ELF64 object of machine (e_machine at 18, e_flags at 48). */
static int elf_of(const gpublob_embedded_blob *b, unsigned machine) {
  return b->size > 64 && !memcmp(b->data, "\177ELF\2\1", 6) && le16(b->data + 18) == machine;
}

/* gfx90a and gfx942, in the call's order: EF_AMDGPU_MACH 0x3f, 0x4c */
static void check_hsacos(const char *source, const gpublob_embedded_blob *t, size_t n) {
  static const char *const chips[] = {"gfx90a", "gfx942"};
  static const unsigned long mach[] = {0x3f, 0x4c};
  expect(n == 2, "two chips", t);
  for (size_t i = 0; i < n && i < 2; i++) {
    const gpublob_embedded_blob *b = &t[i];
    expect(!strcmp(b->target, "amdgcn") && !strcmp(b->chip, chips[i]), "target and chip", b);
    expect(!strcmp(b->suffix, ".hsaco"), "suffix .hsaco", b);
    expect(elf_of(b, 224) && (le32(b->data + 48) & 0xff) == mach[i], "an AMDGPU ELF of its chip", b);
    printf("%s %s %s %s %zu bytes\n", source, b->target, b->chip, b->suffix, b->size);
  }
}

int main(void) {
  check_hsacos("saxpy", amd_saxpy_blobs, amd_saxpy_blob_count);
  check_hsacos("scale", amd_scale_blobs, amd_scale_blob_count);
  const gpublob_embedded_blob *p = &amd_pack_scale_blobs[0];
  expect(amd_pack_scale_blob_count == 1, "one pack", p);
  expect(!strcmp(p->chip, "gfx90a,gfx942"), "the pack's chips", p);
  expect(p->size > 24 && !memcmp(p->data, "__CLANG_OFFLOAD_BUNDLE__", 24), "an offload bundle", p);
  printf("scale pack %s %s %s %zu bytes\n", p->target, p->chip, p->suffix, p->size);
  const gpublob_embedded_blob *o = &amd_off_saxpy_blobs[0];
  expect(amd_off_saxpy_blob_count == 1 && o->data == amd_off_saxpy_offload && o->size == amd_off_saxpy_offload_size,
         "one container, the host object's symbols", o);
  int magic = amd_off_saxpy_offload_size > 72 && !memcmp(amd_off_saxpy_offload, "\x10\xff\x10\xad", 4);
  expect(magic, "an OffloadBinary's magic", o);
  printf("saxpy offload %s %llu bytes\n", magic ? "magic" : "none", amd_off_saxpy_offload_size);
#ifdef TEST_NVPTX
  static const char *const sms[] = {"sm_80", "sm_90"};
  expect(nv_saxpy_nv_blob_count == 2, "two chips", &nv_saxpy_nv_blobs[0]);
  for (size_t i = 0; i < nv_saxpy_nv_blob_count && i < 2; i++) {
    const gpublob_embedded_blob *b = &nv_saxpy_nv_blobs[i];
    expect(!strcmp(b->target, "nvptx") && !strcmp(b->chip, sms[i]), "target and chip", b);
    expect(elf_of(b, 190), "a cubin (EM_CUDA)", b);
    printf("saxpy_nv %s %s %s %zu bytes\n", b->target, b->chip, b->suffix, b->size);
  }
#endif
  if (!bad) printf("blobs ok\n");
  return bad;
}
