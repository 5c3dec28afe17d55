/* programs/emit_object.c: --emit-object FILE.o, -f offload's container in a host ELF
** relocatable object (x86-64 or aarch64, ELF64 little-endian), written without LLVM
** (docs/offload.md).  Its sections:
**   .llvm.offloading  SHT_LLVM_OFFLOADING (0x6fff4c0b), the container's bytes, 8-byte
**                     aligned, so that llvm-objdump --offloading and
**                     clang-linker-wrapper find it.  It is SHF_ALLOC and not
**                     SHF_EXCLUDE: clang marks its own SHF_EXCLUDE, for the linker
**                     wrapper to take out before the host link, and GNU ld drops an
**                     excluded section, so a plain cc link of a program with this object would leave
**                     the program without its kernels; allocated, it is loaded with
**                     the program and the symbols below point into it.
**   .rodata           the container's size, a u64, for the second symbol.
**   .note.GNU-stack   empty: the object asks for no executable stack.
**   .symtab, .strtab, .shstrtab.
** Two global objects: STEM_offload (the container's first byte, its size the
** container's) and STEM_offload_size (the u64), STEM the output's stem (-o's, else
** the input's) made a C identifier, so that several objects link into one program.
** No relocation is needed: both symbols are defined here. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "programs/cli.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
  EHDR = 64, SHDR = 64, SYM = 24, NSECTIONS = 7,
  SHT_PROGBITS_ = 1, SHT_SYMTAB_ = 2, SHT_STRTAB_ = 3, SHT_LLVM_OFFLOADING_ = 0x6fff4c0b,
  SHF_ALLOC_ = 2, EM_X86_64_ = 62, EM_AARCH64_ = 183
};
enum { S_OFFLOAD = 1, S_RODATA, S_STACK, S_SYMTAB, S_STRTAB, S_SHSTRTAB }; /* section indices */

static const char shstrtab[] = "\0.llvm.offloading\0.rodata\0.note.GNU-stack\0.symtab\0.strtab\0.shstrtab";
/* each section's name's offset in shstrtab, by index */
static const unsigned shname[NSECTIONS] = {0, 1, 18, 26, 42, 50, 58};

static uint64_t align8(uint64_t n) { return (n + 7) & ~(uint64_t)7; }

static unsigned char *put(unsigned char *p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; i++) p[i] = (unsigned char)(v >> 8 * i);
  return p + bytes;
}

/* The machine of --object-arch (NULL: this host's); 0 for another name. */
static unsigned machine_of(const char *arch) {
  if (!arch) {
#if defined(__aarch64__)
    return EM_AARCH64_;
#else
    return EM_X86_64_;
#endif
  }
  if (!strcmp(arch, "x86-64") || !strcmp(arch, "x86_64")) return EM_X86_64_;
  if (!strcmp(arch, "aarch64") || !strcmp(arch, "arm64")) return EM_AARCH64_;
  return 0;
}

/* STEM: -o's file name (else the input's) without its last suffix, each byte that
** cannot be in a C identifier '_', and '_' before a leading digit. */
static void symbol_stem(const cli *c, char *stem, size_t size) {
  const char *from = c->output && strcmp(c->output, "-") && !strchr(c->output, '{') ? c->output : c->input;
  if (!strcmp(from, "-")) from = "stdin";
  const char *slash = strrchr(from, '/'), *base = slash ? slash + 1 : from, *dot = strrchr(base, '.');
  size_t n = dot && dot > base ? (size_t)(dot - base) : strlen(base), at = 0;
  if (isdigit((unsigned char)*base) || !n) stem[at++] = '_';
  for (size_t i = 0; i < n && at + 1 < size; i++)
    stem[at++] = isalnum((unsigned char)base[i]) ? base[i] : '_';
  stem[at] = 0;
}

static unsigned char *section_header(unsigned char *p, unsigned name, unsigned type, uint64_t flags, uint64_t off,
                                     uint64_t size, unsigned link, unsigned info, uint64_t align, uint64_t entsize) {
  p = put(put(put(p, name, 4), type, 4), flags, 8);
  p = put(put(put(p, 0, 8), off, 8), size, 8);
  p = put(put(p, link, 4), info, 4);
  return put(put(p, align, 8), entsize, 8);
}

static unsigned char *symbol(unsigned char *p, unsigned name, unsigned section, uint64_t size) {
  p = put(p, name, 4);
  p = put(put(p, 1 << 4 | 1, 1), 0, 1); /* STB_GLOBAL, STT_OBJECT; STV_DEFAULT */
  return put(put(put(p, section, 2), 0, 8), size, 8);
}

/* The object of the container (r's one output) into *b (malloc'd); 0, or 2 for a
** usage error (said). */
int host_object(const cli *c, const gpublob_result *r, gpublob_blob *b) {
  unsigned machine = machine_of(c->object_arch);
  if (!machine) return fail("--object-arch wants x86-64 or aarch64, not '%s'", c->object_arch);
  if (r->count != 1 || strcmp(r->outputs[0].blob.suffix, ".offload"))
    return fail("%s", "--emit-object wants -f offload (one container)");
  const gpublob_blob *in = &r->outputs[0].blob;
  char stem[512], strtab[1200];
  symbol_stem(c, stem, sizeof stem);
  int sn = snprintf(strtab, sizeof strtab, "%c%s_offload%c%s_offload_size", 0, stem, 0, stem);
  uint64_t strtab_n = (uint64_t)sn + 1, size_name = 1 + strlen(stem) + strlen("_offload") + 1;
  uint64_t off_at = EHDR, rodata_at = align8(off_at + in->size), symtab_at = rodata_at + 8;
  uint64_t strtab_at = symtab_at + 3 * SYM, shstr_at = strtab_at + strtab_n;
  uint64_t sh_at = align8(shstr_at + sizeof shstrtab), total = sh_at + NSECTIONS * SHDR;
  unsigned char *p = calloc((size_t)total, 1);
  if (!p) return fail("%s", "out of memory");
  memcpy(p, "\177ELF\2\1\1", 7); /* ELFCLASS64, ELFDATA2LSB, EV_CURRENT */
  unsigned char *w = put(put(put(p + 16, 1, 2), machine, 2), 1, 4); /* ET_REL */
  w = put(put(put(w, 0, 8), 0, 8), sh_at, 8);
  put(put(put(put(put(put(put(w, 0, 4), EHDR, 2), 0, 2), 0, 2), SHDR, 2), NSECTIONS, 2), S_SHSTRTAB, 2);
  memcpy(p + off_at, in->data, in->size);
  put(p + rodata_at, in->size, 8);
  symbol(symbol(p + symtab_at + SYM, 1, S_OFFLOAD, in->size), (unsigned)size_name, S_RODATA, 8);
  memcpy(p + strtab_at, strtab, (size_t)strtab_n);
  memcpy(p + shstr_at, shstrtab, sizeof shstrtab);
  w = p + sh_at + SHDR;
  w = section_header(w, shname[S_OFFLOAD], SHT_LLVM_OFFLOADING_, SHF_ALLOC_, off_at, in->size, 0, 0, 8, 0);
  w = section_header(w, shname[S_RODATA], SHT_PROGBITS_, SHF_ALLOC_, rodata_at, 8, 0, 0, 8, 0);
  w = section_header(w, shname[S_STACK], SHT_PROGBITS_, 0, symtab_at, 0, 0, 0, 1, 0);
  w = section_header(w, shname[S_SYMTAB], SHT_SYMTAB_, 0, symtab_at, 3 * SYM, S_STRTAB, 1, 8, SYM);
  w = section_header(w, shname[S_STRTAB], SHT_STRTAB_, 0, strtab_at, strtab_n, 0, 0, 1, 0);
  section_header(w, shname[S_SHSTRTAB], SHT_STRTAB_, 0, shstr_at, sizeof shstrtab, 0, 0, 1, 0);
  *b = (gpublob_blob){p, (size_t)total, ".o"};
  return 0;
}
