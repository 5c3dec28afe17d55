/* testlib.h: the few helpers gpublob's C tests share.  Each test program ends
** with the line "N passed, N failed, N skipped" and exits non-zero on a failure. */
#ifndef TESTLIB_H
#define TESTLIB_H
#include <stddef.h>

/* The tools' places configure found (build.ninja's test_defs), else Debian's. */
#ifndef LLVM_BINDIR
#define LLVM_BINDIR "/usr/lib/llvm-22/bin"
#endif
#ifndef SPIRV_VAL
#define SPIRV_VAL "spirv-val"
#endif

#ifndef REDIS_SERVER
#define REDIS_SERVER "/usr/bin/redis-server"
#endif
/* The ROCm device libraries' bitcode directory configure found ("" when none). */
#ifndef ROCM_BITCODE
#define ROCM_BITCODE "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"
#endif

/* check(ok, name, fmt, ...): one property.  A failure prints the test's file and
** line, the expression that was false, the name, and fmt's details. */
#define check(ok, name, ...) check_at(__FILE__, __LINE__, #ok, (ok) != 0, name, __VA_ARGS__)
void check_at(const char *file, int line, const char *expr, int ok, const char *name,
              const char *fmt, ...);
/* check_if(pre, ok, name, fmt, ...): one property that can be looked at only where pre
** holds (a blob to read, an output to index).  Where pre is false, neither ok nor fmt's
** arguments are evaluated and the check fails, naming pre: never a silent pass. */
#define check_if(pre, ok, name, ...)                                                  \
  ((pre) ? check_at(__FILE__, __LINE__, #ok, (ok) != 0, name, __VA_ARGS__)            \
         : check_unmet(__FILE__, __LINE__, #pre, #ok, name))
void check_unmet(const char *file, int line, const char *pre, const char *expr, const char *name);
void skip(const char *name, const char *why);
int report(void);

/* Runs argv (no shell); stdout and stderr together into *out (malloc'd, may be NULL). */
int run(const char *const *argv, char **out);
int contains(const char *haystack, const char *needle);
/* s, or "(none)" where it is NULL: for a message's %s. */
const char *shown(const char *s);
/* haystack is there and has no needle (a NULL haystack fails, where !contains passes). */
int lacks(const char *haystack, const char *needle);
/* Both strings are there and equal. */
int same_str(const char *a, const char *b);
/* A waitpid status as run() answers: the exit status, or 128 + the signal; -1 for neither. */
int exit_code(int status);
/* ELF headers, with <elf.h>'s names: is_elf is ELFMAG at the start; elf_machine_of is
** e_machine (EM_CUDA, EM_AMDGPU), elf_flags_of e_flags of an ELF64 header; 0 when data
** is not an ELF (or too short). */
int is_elf(const void *data, size_t size);
unsigned elf_machine_of(const void *data, size_t size);
unsigned elf_flags_of(const void *data, size_t size);
int exists(const char *path);
/* A program at path that can run (path not NULL or ""): where a tool the tests use
** is missing (configure's summary lists them), its checks say skipped, not failed. */
int have_program(const char *path);
/* Whether the gpublob program at cli was built with MLIR ("and MLIR" in its --version). */
int built_with_mlir(const char *cli);
/* ROCm's device libraries (ocml.bc in ROCM_BITCODE): AMD kernels that call ocml or
** ockl, as saxpy's expf does, need them; without, their checks say skipped. */
int have_rocm_bitcode(void);
/* have_rocm_bitcode(), else skip(what, why) and 0: for checks on AMD kernels that call
** ocml (examples/saxpy_amdgcn.ll's expf). */
int need_rocm(const char *what);
/* The file's bytes (malloc'd, NUL-terminated) and *size; NULL and *size 0 if unread. */
unsigned char *slurp(const char *path, size_t *size);
int spill(const char *path, const void *data, size_t size);
/* A fresh private directory under $TMPDIR or /tmp, removed by report(). */
const char *scratch(void);
/* scratch()/name, in a static ring of buffers. */
const char *tmp_path(const char *name);
/* Files left in the scratch directory whose names contain part. */
int leftovers(const char *dir, const char *part);
/* The blob tool program of opts->target, found as a compile finds it, into buf
** ("" if none): gpublob_tool_info_get's code. */
struct gpublob;
struct gpublob_options;
int tool_path(struct gpublob *g, const struct gpublob_options *opts, char *buf, size_t size);
/* What auto makes target's blobs with, as gpublob_tool_info_get names it ("ld.lld",
** or "lld" where the build links lld in-process); "" if none. */
const char *auto_tool(const char *target);
/* Whether the CUDA toolkit's ptxas is found the way gpublob finds it. */
int have_ptxas(void);
/* 0 where the library was built without src/passes.cpp (no C++ compiler, a sanitized
** build): --fp-contract off is OPTION there, and --as clang cannot set LLVM's options
** for CUDA; 1 elsewhere. */
int have_llvm_cxx(void);
/* clang-offload-bundler -unbundle -type=o: the entry id of bundle into the file out;
** its exit status (run()'s). */
int unbundle(const char *bundle, const char *id, const char *out);
/* The AMD GPU ELF at path is for chip: llvm-readelf --file-header's Flags line
** names it (the EF_AMDGPU_MACH field, "Flags: 0x54c, gfx942, xnack, sramecc"). */
int amdgpu_chip_is(const char *path, const char *chip);
/* clang-22 FLAGS -Itests/clang SRC -o OUT: a kernel of tests/clang/ made LLVM IR the
** way a frontend makes it; one check, "clang: WHAT" (skipped without clang-22); 0
** when it wrote OUT. */
int clang_ir(const char *const *flags, const char *src, const char *out, const char *what);
/* A ROCm-shaped folder under scratch() for upstream's ROCDL serialiser (mlir-opt
** --gpu-module-to-binary toolkit=...): llvm/bin/ld.lld and amdgcn/bitcode, links to
** this system's; its path, or NULL when it cannot be made (no ld.lld or bitcode). */
const char *rocm_folder(void);
#endif
