/* test_bad: a table of bad inputs and bad calls through the CLI (build/gpublob).
**
** Each row is one case: a name, the arguments, an input (text, or a generator for
** the big and binary ones) and the exit status it should get (2 for a usage error,
** else 10 + code).  Every case runs with --no-cache, TMPDIR set to a fresh empty
** directory, in a directory of its own holding only its input, and must keep the
** invariant of docs/cli.md:
**   - it exits with a status from 1 to 127 (never a signal, never >= 128);
**   - it finishes (hang: it ran past the row's time limit and was killed);
**   - stderr's first line starts with "gpublob: error: ", and exactly one line does;
**   - no output file is made (nothing new in its directory, nothing changed there);
**   - no temporary is left (its TMPDIR is empty; no gpublob-*, *.tmp-*, tmpxft*).
** Each is a check of its own, "bad[invariant: WHAT] NAME" (WHAT: exit 1-127, finishes,
** error first, one error line, no output, input unchanged, no temporary, and tools
** gone for the rows that ask it); the exit status the row expects is the separate check
** "bad[code] NAME" (and "bad[msg] NAME" where a row wants a part of the message), so
** that a failure names the one property that broke.  A summary at the end lists the
** failing cases grouped by cause.
**
** After the table come a few calls that should succeed or be refused in one of two
** acceptable ways: -o onto a device or a FIFO, signals to the CLI while a tool
** runs, a tool leaving a child that holds its stdout, the tool's private TMPDIR, a bin
** blob with no entry point, MLIR top-level ops without a module, and
** #gpu.select_object past the objects.
**
** Cases run on two worker processes at once (each has its own directories), so the
** whole table takes well under a minute. */
#define _GNU_SOURCE
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpublob.h"
#include "testlib.h"

#define E(code) (10 + GPUBLOB_##code)
#define USAGE 2
#define CLI "build/gpublob"
#define NV "examples/saxpy_nvptx.ll"
#define AM "examples/saxpy_amdgcn.ll"
#define SP "examples/saxpy_spirv.ll"
#define LLVM_AS LLVM_BINDIR "/llvm-as"
#define LLVM_DIS LLVM_BINDIR "/llvm-dis"
#define MLIR_OPT LLVM_BINDIR "/mlir-opt"
#define ROCM_BC ROCM_BITCODE
#define LD_LLD LLVM_BINDIR "/ld.lld"

extern char **environ;

/* ---- inputs given as text ---- */

#define NVT "target triple = \"nvptx64-nvidia-cuda\"\n"
#define AMT "target triple = \"amdgcn-amd-amdhsa\"\n"

/* A kernel that is fine, to carry a bad module-level line. */
#define OK_KERNEL "define ptx_kernel void @k(ptr addrspace(1) %p) {\n  store i32 1, ptr addrspace(1) %p\n  ret void\n}\n"

static const char verify_dominance[] =
    "define void @k(i32 %a) {\n  %x = add i32 %y, 1\n  %y = add i32 %a, 1\n  ret void\n}\n";

static const char debug_broken[] = /* verification fails, and the module carries debug info */
    NVT
    "define ptx_kernel void @k(i32 %a) {\n  %x = add i32 %y, 1\n  %y = add i32 %a, 1\n  ret void\n}\n"
    "!llvm.module.flags = !{!0}\n!0 = !{i32 2, !\"Debug Info Version\", i32 3}\n";

static const char sin_half_nvptx[] = /* llvm.sin.f16 has no NVPTX lowering and no C function (libm) */
    NVT
    "define ptx_kernel void @k(ptr addrspace(1) %p) {\n"
    "  %v = load half, ptr addrspace(1) %p\n"
    "  %e = call half @llvm.sin.f16(half %v)\n"
    "  store half %e, ptr addrspace(1) %p\n"
    "  ret void\n}\n"
    "declare half @llvm.sin.f16(half)\n";

static const char dash_symbol[] = /* a public PTX symbol may not hold '-' */
    NVT
    "define void @\"my-helper\"(ptr addrspace(1) %p) {\n  store i32 1, ptr addrspace(1) %p\n  ret void\n}\n"
    "define ptx_kernel void @k(ptr addrspace(1) %p) {\n"
    "  call void @\"my-helper\"(ptr addrspace(1) %p)\n  ret void\n}\n";

static const char dash_global[] =
    NVT "@\"my-counter\" = addrspace(1) global i32 0\n"
    "define ptx_kernel void @k() {\n  store i32 1, ptr addrspace(1) @\"my-counter\"\n  ret void\n}\n";

static const char wgmma_sm80[] = /* wgmma needs sm_90a */
    NVT
    "define ptx_kernel void @k() {\n"
    "  call void @llvm.nvvm.wgmma.fence.sync.aligned()\n"
    "  call void @llvm.nvvm.wgmma.commit_group.sync.aligned()\n"
    "  ret void\n}\n"
    "declare void @llvm.nvvm.wgmma.fence.sync.aligned()\n"
    "declare void @llvm.nvvm.wgmma.commit_group.sync.aligned()\n";

static const char mfma_gfx803[] = /* MFMA needs gfx908 or later */
    AMT
    "define amdgpu_kernel void @k(ptr addrspace(1) %p) {\n"
    "  %r = call <32 x float> @llvm.amdgcn.mfma.f32.32x32x1f32(float 1.0, float 2.0, <32 x float> zeroinitializer, i32 0, i32 0, i32 0)\n"
    "  store <32 x float> %r, ptr addrspace(1) %p\n"
    "  ret void\n}\n"
    "declare <32 x float> @llvm.amdgcn.mfma.f32.32x32x1f32(float, float, <32 x float>, i32, i32, i32)\n";

static const char permlane_gfx90a[] = /* permlane16 is gfx10+ */
    AMT
    "define amdgpu_kernel void @k(ptr addrspace(1) %p, i32 %v) {\n"
    "  %r = call i32 @llvm.amdgcn.permlane16.i32(i32 %v, i32 %v, i32 0, i32 0, i1 false, i1 false)\n"
    "  store i32 %r, ptr addrspace(1) %p\n"
    "  ret void\n}\n"
    "declare i32 @llvm.amdgcn.permlane16.i32(i32, i32, i32, i32, i1, i1)\n";

static const char rdtsc_nvptx[] =
    NVT
    "define ptx_kernel void @k(ptr addrspace(1) %p) {\n"
    "  %t = call i64 @llvm.x86.rdtsc()\n  store i64 %t, ptr addrspace(1) %p\n  ret void\n}\n"
    "declare i64 @llvm.x86.rdtsc()\n";

static const char rdtsc_amdgcn[] =
    AMT
    "define amdgpu_kernel void @k(ptr addrspace(1) %p) {\n"
    "  %t = call i64 @llvm.x86.rdtsc()\n  store i64 %t, ptr addrspace(1) %p\n  ret void\n}\n"
    "declare i64 @llvm.x86.rdtsc()\n";

static const char aarch64_on_spirv[] =
    "define spir_kernel void @k() {\n  call void @llvm.aarch64.hint(i32 0)\n  ret void\n}\n"
    "declare void @llvm.aarch64.hint(i32)\n";

static const char spv_on_nvptx[] =
    NVT
    "define ptx_kernel void @k(ptr addrspace(1) %p) {\n"
    "  %t = call i32 @llvm.spv.thread.id(i32 0)\n  store i32 %t, ptr addrspace(1) %p\n  ret void\n}\n"
    "declare i32 @llvm.spv.thread.id(i32)\n";

static const char amdgcn_on_nvptx[] =
    NVT
    "define ptx_kernel void @k(ptr addrspace(1) %p) {\n"
    "  %t = call i32 @llvm.amdgcn.workitem.id.x()\n  store i32 %t, ptr addrspace(1) %p\n  ret void\n}\n"
    "declare i32 @llvm.amdgcn.workitem.id.x()\n";

static const char nvvm_on_amdgcn[] =
    AMT
    "define amdgpu_kernel void @k(ptr addrspace(1) %p) {\n"
    "  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n  store i32 %t, ptr addrspace(1) %p\n  ret void\n}\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n";

static const char r600_on_nvptx[] =
    NVT
    "define ptx_kernel void @k(ptr addrspace(1) %p) {\n"
    "  %t = call i32 @llvm.r600.read.tidig.x()\n  store i32 %t, ptr addrspace(1) %p\n  ret void\n}\n"
    "declare i32 @llvm.r600.read.tidig.x()\n";

static const char bfloat_spirv[] = /* LLVM 22's SPIR-V backend aborts on bfloat (SPV_KHR_bfloat16) */
    "target triple = \"spirv64-unknown-unknown\"\n"
    "define spir_kernel void @k(ptr addrspace(1) %p) {\n"
    "  %v = load bfloat, ptr addrspace(1) %p\n  %w = fadd bfloat %v, %v\n"
    "  store bfloat %w, ptr addrspace(1) %p\n  ret void\n}\n";
static const char fp128_sqrt_spirv[] = /* and on fp128 math ("unable to legalize G_FSQRT") */
    "target triple = \"spirv64-unknown-unknown\"\n"
    "declare fp128 @llvm.sqrt.f128(fp128)\n"
    "define spir_kernel void @k(ptr addrspace(1) %p) {\n"
    "  %v = load fp128, ptr addrspace(1) %p\n  %w = call fp128 @llvm.sqrt.f128(fp128 %v)\n"
    "  store fp128 %w, ptr addrspace(1) %p\n  ret void\n}\n";
static const char fp128_add_spirv[] = /* and writes an OpTypeFloat 128 spirv-val refuses for the rest */
    "target triple = \"spirv64-unknown-unknown\"\n"
    "define spir_kernel void @k(ptr addrspace(1) %p) {\n"
    "  %v = load fp128, ptr addrspace(1) %p\n  %w = fadd fp128 %v, %v\n"
    "  store fp128 %w, ptr addrspace(1) %p\n  ret void\n}\n";
static const char ptx_kernel_bare[] =
    "define ptx_kernel void @k(ptr addrspace(1) %p) {\n  store i32 1, ptr addrspace(1) %p\n  ret void\n}\n";
static const char amdgpu_kernel_bare[] =
    "define amdgpu_kernel void @k(ptr addrspace(1) %p) {\n  store i32 1, ptr addrspace(1) %p\n  ret void\n}\n";
static const char spir_kernel_bare[] =
    "define spir_kernel void @k(ptr addrspace(1) %p) {\n  store i32 1, ptr addrspace(1) %p\n  ret void\n}\n";
static const char x86_module[] =
    "target triple = \"x86_64-pc-linux-gnu\"\n"
    "define void @k(ptr %p) {\n  store i32 1, ptr %p\n  ret void\n}\n";
static const char aarch64_module[] =
    "target triple = \"aarch64-unknown-linux-gnu\"\n"
    "define void @k(ptr %p) {\n  store i32 1, ptr %p\n  ret void\n}\n";
static const char hexagon_module[] =
    "target triple = \"hexagon-unknown-elf\"\n"
    "define void @k(ptr %p) {\n  store i32 1, ptr %p\n  ret void\n}\n";

static const char dyn_alloca_nvptx[] = /* dynamic alloca needs PTX 7.3: an error on sm_75 */
    NVT
    "define ptx_kernel void @k(ptr addrspace(1) %out, i32 %n) {\n"
    "  %buf = alloca i32, i32 %n\n"
    "  store volatile i32 1, ptr %buf\n"
    "  %v = load volatile i32, ptr %buf\n"
    "  store i32 %v, ptr addrspace(1) %out\n"
    "  ret void\n}\n";

static const char big_lds[] = /* 4 MB of LDS: far past any chip's 64 KB */
    AMT
    "@lds = internal addrspace(3) global [1048576 x i32] poison\n"
    "define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %i) {\n"
    "  %p = getelementptr [1048576 x i32], ptr addrspace(3) @lds, i32 0, i32 %i\n"
    "  store volatile i32 1, ptr addrspace(3) %p\n"
    "  %v = load volatile i32, ptr addrspace(3) %p\n"
    "  store i32 %v, ptr addrspace(1) %out\n"
    "  ret void\n}\n";

static const char amdgpu_ps_hsa[] = /* a graphics shader in an HSA (compute) module */
    AMT
    "define amdgpu_ps void @ps(float inreg %x, ptr addrspace(1) inreg %p) {\n"
    "  store float %x, ptr addrspace(1) %p\n  ret void\n}\n";

static const char asm_constraint_nvptx[] =
    NVT
    "define ptx_kernel void @k(ptr addrspace(1) %p) {\n"
    "  %r = call i32 asm sideeffect \"mov.u32 $0, 0;\", \"={no_such_reg}\"()\n"
    "  store i32 %r, ptr addrspace(1) %p\n  ret void\n}\n";

static const char asm_constraint_amdgcn[] =
    AMT
    "define amdgpu_kernel void @k(ptr addrspace(1) %p) {\n"
    "  %r = call i32 asm sideeffect \"v_mov_b32 $0, 0\", \"={v99999}\"()\n"
    "  store i32 %r, ptr addrspace(1) %p\n  ret void\n}\n";

static const char asm_bad_text_amdgcn[] = /* the assembler refuses the instruction (bin only) */
    AMT
    "define amdgpu_kernel void @k() {\n"
    "  call void asm sideeffect \"no_such_instruction v0, v1\", \"\"()\n  ret void\n}\n";

static const char undefined_call_amdgcn[] =
    AMT
    "define amdgpu_kernel void @k(ptr addrspace(1) %p) {\n"
    "  %v = call float @no_such_device_function(float 1.0)\n"
    "  store float %v, ptr addrspace(1) %p\n  ret void\n}\n"
    "declare float @no_such_device_function(float)\n";

/* Functions pinned by clang to a chip (as -S -emit-llvm writes them). */
static const char pinned_sm90[] =
    NVT
    "define ptx_kernel void @pinned_kernel(ptr addrspace(1) %p) #0 {\n"
    "  store i32 1, ptr addrspace(1) %p\n  ret void\n}\n"
    "attributes #0 = { \"target-cpu\"=\"sm_90\" \"target-features\"=\"+ptx80,+sm_90\" }\n";
static const char pinned_sm90_features_only[] =
    NVT
    "define ptx_kernel void @pinned_kernel(ptr addrspace(1) %p) #0 {\n"
    "  store i32 1, ptr addrspace(1) %p\n  ret void\n}\n"
    "attributes #0 = { \"target-features\"=\"+ptx80,+sm_90\" }\n";
static const char pinned_helper_sm90[] =
    NVT
    "define void @pinned_helper(ptr addrspace(1) %p) #0 {\n"
    "  store i32 1, ptr addrspace(1) %p\n  ret void\n}\n"
    "define ptx_kernel void @k(ptr addrspace(1) %p) {\n"
    "  call void @pinned_helper(ptr addrspace(1) %p)\n  ret void\n}\n"
    "attributes #0 = { noinline \"target-cpu\"=\"sm_90\" }\n";
static const char pinned_gfx90a[] =
    AMT
    "define amdgpu_kernel void @pinned_kernel(ptr addrspace(1) %p) #0 {\n"
    "  store i32 1, ptr addrspace(1) %p\n  ret void\n}\n"
    "attributes #0 = { \"target-cpu\"=\"gfx90a\" \"target-features\"=\"+16-bit-insts,+dpp,+gfx8-insts,+gfx9-insts,+gfx90a-insts,+mai-insts,+wavefrontsize64\" }\n";
static const char pinned_gfx1030[] =
    AMT
    "define amdgpu_kernel void @pinned_kernel(ptr addrspace(1) %p) #0 {\n"
    "  store i32 1, ptr addrspace(1) %p\n  ret void\n}\n"
    "attributes #0 = { \"target-cpu\"=\"gfx1030\" \"target-features\"=\"+16-bit-insts,+dpp,+gfx10-insts,+gfx10-3-insts,+wavefrontsize32\" }\n";

/* ---- MLIR inputs ---- */
#define MLIR_GPU_KERNEL(targets)                                     \
  "module attributes {gpu.container_module} {\n"                      \
  "  gpu.module @kernels " targets " {\n"                             \
  "    gpu.func @f(%x: memref<4xf32>) kernel {\n"                     \
  "      %i = gpu.thread_id x\n"                                      \
  "      %v = memref.load %x[%i] : memref<4xf32>\n"                   \
  "      memref.store %v, %x[%i] : memref<4xf32>\n"                   \
  "      gpu.return\n"                                                \
  "    }\n"                                                           \
  "  }\n"                                                             \
  "}\n"
#define MLIR_LLVM_KERNEL(targets, body)                                       \
  "module attributes {gpu.container_module} {\n"                               \
  "  gpu.module @kernels " targets " {\n" body "  }\n"                          \
  "}\n"
#define ROCDL_A "    llvm.func @a() attributes {gpu.kernel, rocdl.kernel} { llvm.return }\n"

/* ---- generators: the big and the binary inputs ---- */
static char gen_why[256];

static int write_repeat(FILE *f, const char *s, long n) {
  for (long i = 0; i < n; i++)
    if (fputs(s, f) == EOF) return -1;
  return 0;
}

#define DEEP 100000L

static int gen_nested_arrays(const char *path) { /* @g = global [1 x [1 x ... i8 ]] zeroinitializer */
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fputs("@g = global ", f);
  write_repeat(f, "[1 x ", DEEP);
  fputs("i8", f);
  write_repeat(f, "]", DEEP);
  fputs(" zeroinitializer\n" OK_KERNEL, f);
  return fclose(f);
}

static int gen_nested_structs(const char *path) { /* %t = type {{{ ... i8 }}} */
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fputs("@g = global ", f);
  write_repeat(f, "{ ", DEEP);
  fputs("i8", f);
  write_repeat(f, " }", DEEP);
  fputs(" zeroinitializer\n" OK_KERNEL, f);
  return fclose(f);
}

static int gen_nested_constexprs(const char *path) { /* getelementptr (i8, ptr getelementptr (...)) */
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fputs("@x = global i8 0\n@g = global ptr ", f);
  write_repeat(f, "getelementptr (i8, ptr ", DEEP);
  fputs("@x", f);
  write_repeat(f, ", i64 1)", DEEP);
  fputs("\n" OK_KERNEL, f);
  return fclose(f);
}

static int gen_nested_metadata(const char *path) { /* !0 = !{!{!{ ... }}} */
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fputs(OK_KERNEL "!named = !{!0}\n!0 = ", f);
  write_repeat(f, "!{", DEEP);
  fputs("i32 0", f);
  write_repeat(f, "}", DEEP);
  fputs("\n", f);
  return fclose(f);
}

static int gen_nested_mlir(const char *path) { /* an attribute of nested arrays */
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fputs("module attributes {gpu.container_module, test.deep = ", f);
  write_repeat(f, "[", DEEP);
  write_repeat(f, "]", DEEP);
  fputs("} {\n  gpu.module @kernels [#rocdl.target<chip = \"gfx90a\">] {\n" ROCDL_A "  }\n}\n", f);
  return fclose(f);
}

static int gen_big_text(const char *path) { /* 2 KiB of comments before a fine kernel */
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  write_repeat(f, "; padding padding padding padding padding padding padding padding\n", 32);
  fputs(OK_KERNEL, f);
  return fclose(f);
}

static int gen_sparse_1g(const char *path) { /* 1 GiB + 1 byte of holes, past the default 1G */
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return -1;
  int rc = ftruncate(fd, (1LL << 30) + 1);
  return close(fd) | rc;
}

/* Bitcode: a real module from llvm-as, then cut or flipped. */
static unsigned char *good_bc;
static size_t good_bc_n;

static int need_bc(void) {
  if (good_bc) return 0;
  const char *bc = tmp_path("saxpy.bc");
  const char *argv[] = {LLVM_AS, NV, "-o", bc, NULL};
  if (run(argv, NULL) != 0 || !(good_bc = slurp(bc, &good_bc_n)) || good_bc_n < 256) {
    snprintf(gen_why, sizeof gen_why, "%s could not make bitcode", LLVM_AS);
    return -1;
  }
  return 0;
}

static int put(const char *path, const unsigned char *p, size_t n) { return spill(path, p, n); }

static int bc_cut(const char *path, size_t n) { return need_bc() ? -1 : put(path, good_bc, n); }
static int gen_bc_cut20(const char *p) { return bc_cut(p, 20); }
static int gen_bc_cut_quarter(const char *p) { return need_bc() ? -1 : bc_cut(p, good_bc_n / 4); }
static int gen_bc_cut_half(const char *p) { return need_bc() ? -1 : bc_cut(p, good_bc_n / 2); }
static int gen_bc_cut_word(const char *p) { return need_bc() ? -1 : bc_cut(p, good_bc_n - 4); }
static int gen_bc_cut_byte(const char *p) { return need_bc() ? -1 : bc_cut(p, good_bc_n - 1); }

static int bc_mutate(const char *path, int how, size_t arg) {
  if (need_bc()) return -1;
  unsigned char *m = malloc(good_bc_n);
  memcpy(m, good_bc, good_bc_n);
  if (how == 0) m[arg] ^= 0xff;                                            /* one byte flipped */
  if (how == 1) memset(m + arg, 0xff, good_bc_n - arg);                    /* tail of 0xff */
  if (how == 2) memset(m + arg, 0x00, good_bc_n - arg);                    /* tail of zeros */
  if (how == 3)
    for (size_t i = arg; i < good_bc_n; i += 7) m[i] ^= 0x5a;             /* every 7th byte */
  int rc = put(path, m, good_bc_n);
  free(m);
  return rc;
}
static int gen_bc_flip4(const char *p) { return bc_mutate(p, 0, 4); }
static int gen_bc_flip8(const char *p) { return bc_mutate(p, 0, 8); }
static int gen_bc_flip12(const char *p) { return bc_mutate(p, 0, 12); }
static int gen_bc_flip16(const char *p) { return bc_mutate(p, 0, 16); }
static int gen_bc_flip32(const char *p) { return bc_mutate(p, 0, 32); }
static int gen_bc_flip_mid(const char *p) { return need_bc() ? -1 : bc_mutate(p, 0, good_bc_n / 2); }
static int gen_bc_ff_tail(const char *p) { return bc_mutate(p, 1, 100); }
static int gen_bc_zero_tail(const char *p) { return bc_mutate(p, 2, 100); }
static int gen_bc_every7(const char *p) { return bc_mutate(p, 3, 64); }

static int gen_bc_wrapper(const char *path) { /* a bitcode wrapper header whose offset is past the end */
  if (need_bc()) return -1;
  unsigned char h[20] = {0xde, 0xc0, 0x17, 0x0b, 0, 0, 0, 0, 0x00, 0x10, 0, 0};
  size_t n = good_bc_n;
  h[12] = n & 0xff, h[13] = (n >> 8) & 0xff, h[14] = (n >> 16) & 0xff, h[15] = n >> 24;
  unsigned char *m = malloc(n + 20);
  memcpy(m, h, 20);
  memcpy(m + 20, good_bc, n);
  int rc = put(path, m, n + 20);
  free(m);
  return rc;
}

static int gen_bc_garbage(const char *path) {
  static const char bc[] = "BC\xc0\xde\x35\x14\x00\x00\x05\x00\x00\x00\x62\x0c\x30\x24garbage";
  return put(path, (const unsigned char *)bc, sizeof bc - 1);
}

static int gen_bc_amdgcn(const char *path) { /* fine bitcode, of another target */
  const char *argv[] = {LLVM_AS, AM, "-o", path, NULL};
  if (run(argv, NULL) == 0) return 0;
  snprintf(gen_why, sizeof gen_why, "%s could not make bitcode", LLVM_AS);
  return -1;
}

static int gen_mlirbc_garbage(const char *path) {
  static const char bc[] = "ML\xefR\x06garbage garbage garbage";
  return put(path, (const unsigned char *)bc, sizeof bc - 1);
}

static int gen_mlirbc_cut(const char *path) { /* real bytecode from mlir-opt, cut in half */
  const char *txt = tmp_path("k.mlir"), *bc = tmp_path("k.mlirbc");
  static const char k[] = MLIR_LLVM_KERNEL("[#rocdl.target<chip = \"gfx90a\">]", ROCDL_A);
  spill(txt, k, sizeof k - 1);
  const char *argv[] = {MLIR_OPT, "--emit-bytecode", txt, "-o", bc, NULL};
  size_t n;
  unsigned char *p;
  if (run(argv, NULL) != 0 || !(p = slurp(bc, &n)) || n < 32) {
    snprintf(gen_why, sizeof gen_why, "%s could not make MLIR bytecode", MLIR_OPT);
    return -1;
  }
  int rc = put(path, p, n / 2);
  free(p);
  return rc;
}

static int gen_nul_keyword(const char *path) {
  static const char t[] = "def\0ine void @k() {\n  ret void\n}\n";
  return put(path, (const unsigned char *)t, sizeof t - 1);
}
static int gen_nul_type(const char *path) {
  static const char t[] = "define void @k() {\n  ret vo\0id\n}\n";
  return put(path, (const unsigned char *)t, sizeof t - 1);
}
static int gen_nul_mlir(const char *path) {
  static const char t[] = "module {\n  gpu.mod\0ule @k {\n  }\n}\n";
  return put(path, (const unsigned char *)t, sizeof t - 1);
}

/* ---- the table ---- */
typedef struct bad_case {
  const char *name;
  const char *args;       /* split on blanks; see expand() for the @ words */
  const char *text;       /* the input @IN, or NULL */
  int (*gen)(const char *path); /* or a generator writing @IN */
  const char *sfx;        /* @IN's suffix (default .ll) */
  int exit, alt;          /* the exit status it should get; alt: another one also right */
  const char *msg;        /* a part the message should have, or NULL */
  const char *wrap;       /* shell commands to run before exec'ing the CLI (ulimit) */
  double limit;           /* seconds before it is a hang (default 20) */
  int (*setup)(const char *dir); /* prepares the case's directory (before the snapshot) */
  int bitcode_check;      /* skip the case if llvm-dis accepts the input */
  int needs_ptxas;        /* nvptx bin: skipped without the CUDA toolkit */
  int needs_ld_lld;       /* runs the ld.lld program: skipped without it (lld-22) */
  int needs_rocm;         /* links ROCm's device libraries: skipped without them; so is
                             every case of saxpy_amdgcn.ll (AM) whose error comes after */
  int tools_dead;         /* the tool's process group must be gone when the CLI ends */
} bad_case;

static int setup_dir_at_ptx(const char *dir) {
  char p[4200];
  snprintf(p, sizeof p, "%s/in.ptx", dir);
  return mkdir(p, 0755);
}

static int setup_full_device(const char *dir) {
  char p[4200];
  snprintf(p, sizeof p, "%s/full", dir);
  if (mknod(p, S_IFCHR | 0666, makedev(1, 7))) {
    snprintf(gen_why, sizeof gen_why, "cannot make a character device (mknod: %s)", strerror(errno));
    return -1;
  }
  return 0;
}

/* Tools for --tool: written into scratch/tools at start.  Every one records its pid
** (and its children's) so that what a case leaves running is killed at the end. */
#define TOOL_HEAD                                                                       \
  "#!/bin/sh\nPIDS=${GPUBLOB_TEST_PIDS:-@PIDS}\necho $$ >> $PIDS\nout=; prev=\n"           \
  "for a in \"$@\"; do [ \"$prev\" = -o ] && out=$a; prev=$a; done\n"
/* An ELF identification byte for a tool's printf: "\\00N" of an <elf.h> value below 8. */
#define XSTR(x) #x
#define STR(x) XSTR(x)
#define EI(value) "\\00" STR(value)
#define DRAIN \
  "for a in \"$@\"; do case $a in /dev/fd/*) cat \"$a\" > /dev/null ;; -) cat > /dev/null ;; esac; done\n"
static const struct {
  const char *name, *body;
} tools[] = {
    {"exit1", TOOL_HEAD DRAIN "echo 'fake tool: refused' >&2\nexit 1\n"},
    {"segv", TOOL_HEAD DRAIN "kill -SEGV $$\nsleep 5\n"},
    {"sigkill", TOOL_HEAD DRAIN "kill -KILL $$\nsleep 5\n"},
    {"garbage", TOOL_HEAD DRAIN "echo 'this is not an ELF file' > \"$out\"\nexit 0\n"},
    {"badmagic", TOOL_HEAD DRAIN "printf '\\177ELG" EI(ELFCLASS32) EI(ELFDATA2LSB) EI(EV_CURRENT) EI(ELFOSABI_NONE)
                                 "\\000\\000\\000\\000' > \"$out\"\nexit 0\n"}, /* "ELG": the magic, wrong */
    {"empty", TOOL_HEAD DRAIN ": > \"$out\"\nexit 0\n"},
    /* an ELF magic and class, then garbage: a blob no reader takes */
    {"elf-garbage", TOOL_HEAD DRAIN "printf '\\177ELF" EI(ELFCLASS64) EI(ELFDATA2LSB) EI(EV_CURRENT)
                                    "' > \"$out\"\nhead -c 200 /dev/urandom >> \"$out\"\nexit 0\n"},
    /* the real tool's blob, for another chip: ld.lld's hsaco with another EF_AMDGPU_MACH, ptxas for
       sm_80 whatever the job's chip */
    {"ld.lld-other-chip", TOOL_HEAD LLVM_BINDIR "/ld.lld \"$@\" || exit 1\n"
                          "printf '\\100' | dd of=\"$out\" bs=1 seek=48 count=1 conv=notrunc 2>/dev/null\n"},
    {"ptxas-other-chip", TOOL_HEAD "sed 's/^[.]target sm_[0-9a-z]*/.target sm_80/' | "
                         "\"${PTXAS:-ptxas}\" -arch=sm_80 - -o \"$out\"\n"},
    {"nooutput", TOOL_HEAD DRAIN "exit 0\n"},
    {"elf-then-fail", TOOL_HEAD DRAIN "printf '\\177ELF" EI(ELFCLASS64) EI(ELFDATA2LSB) EI(EV_CURRENT)
                                      "' > \"$out\"\necho 'fake tool: failed late' >&2\nexit 1\n"},
    {"forever", TOOL_HEAD DRAIN "exec sleep 1000\n"},
    {"forever-noread", TOOL_HEAD "exec sleep 1000\n"},
    {"ignore-term", TOOL_HEAD DRAIN "trap '' TERM\nsleep 1000 &\necho $! >> $PIDS\nwait\nwait\n"},
    {"child-holds-stdout", TOOL_HEAD DRAIN "sleep 30 &\necho $! >> $PIDS\nexit 0\n"},
    {"child-holds-stderr-fail", TOOL_HEAD DRAIN "sleep 30 >&2 &\necho $! >> $PIDS\necho 'fake tool: failed' >&2\nexit 1\n"},
    {"setsid-child", TOOL_HEAD DRAIN "setsid sleep 30 &\necho $! >> $PIDS\nexit 0\n"},
    {"tmpdir-subdir", TOOL_HEAD DRAIN "d=${TMPDIR:?no TMPDIR}\nmkdir -p \"$d/sub/deeper\" && echo x > \"$d/sub/deeper/f\"\nexit 1\n"},
    {"tmpxft", TOOL_HEAD DRAIN "d=${TMPDIR:?no TMPDIR}\necho x > \"$d/tmpxft_0000beef_00000000-1_k.ptx\"\necho x > \"$d/tmpxft_0000beef_00000000-2_k.cubin\"\nexit 1\n"},
    {"tmpdir-other-output", TOOL_HEAD DRAIN "d=${TMPDIR:?no TMPDIR}\necho x > \"$d/elsewhere.o\"\nexit 0\n"},
    {"huge-stderr", TOOL_HEAD DRAIN "head -c 1048576 /dev/zero | tr '\\000' e >&2\nexit 1\n"},
    {"noread", TOOL_HEAD "exit 0\n"},
    {"noread-fail", TOOL_HEAD "exit 1\n"},
    {"closed-fds", TOOL_HEAD DRAIN "exec >&- 2>&-\nexit 3\n"},
    {"bad-shebang", "#!/nonexistent/interpreter\nexit 0\n"},
    {"noexec", NULL}, /* a file without the execute bit */
    /* not for the table: a good ld.lld run that leaves a child holding stdout */
    {"lld-child-holds-stdout",
     "#!/bin/sh\n" LLVM_BINDIR "/ld.lld \"$@\"\nrc=$?\nsleep 30 &\necho $! >> @PIDS\nexit $rc\n"},
    {"lld-record-tmpdir", "#!/bin/sh\necho \"$TMPDIR\" > @S/tool-tmpdir\n"
                          "[ -n \"$TMPDIR\" ] && mkdir -p \"$TMPDIR/made-by-tool\" && echo x > \"$TMPDIR/made-by-tool/f\"\n"
                          "exec " LLVM_BINDIR "/ld.lld \"$@\"\n"},
    {"slow", "#!/bin/sh\necho $$ >> @S/slow-pids\nsleep 30 &\necho $! >> @S/slow-pids\necho $! >> @PIDS\nwait\n"},
    /* pack programs, linked as clang-offload-bundler by make_lib_dirs: it names its output -output=FILE */
    {"bundler-exit1", "#!/bin/sh\necho $$ >> ${GPUBLOB_TEST_PIDS:-@PIDS}\necho 'fake bundler: refused' >&2\nexit 1\n"},
    {"bundler-garbage", "#!/bin/sh\necho $$ >> ${GPUBLOB_TEST_PIDS:-@PIDS}\n"
                        "for a in \"$@\"; do case $a in -output=*) echo 'not a bundle' > \"${a#-output=}\" ;; esac; done\n"},
};

static const bad_case cases[] = {
    /* ---- usage errors: exit 2 ---- */
    {"usage: unknown option", "--bogus " NV, .exit = USAGE, .msg = "--bogus"},
    {"usage: -O4", "-O4 " NV, .exit = USAGE},
    {"usage: -O without a level", "-O " NV, .exit = USAGE},
    {"usage: -Ofast", "-Ofast " NV, .exit = USAGE},
    {"usage: -j 0", "-j 0 -f asm " NV, .exit = USAGE},
    {"usage: -j0", "-j0 -f asm " NV, .exit = USAGE},
    {"usage: -j -1", "-j -1 -f asm " NV, .exit = USAGE},
    {"usage: -j abc", "-j abc -f asm " NV, .exit = USAGE},
    {"usage: -j 100000", "-j 100000 -f asm " NV, .exit = USAGE},
    {"usage: --jobs without a value", "-o @OUT " NV " --jobs", .exit = USAGE},
    {"usage: --cache-size 0", "--cache-size 0 -f asm " NV, .exit = USAGE},
    {"usage: --cache-size 10X", "--cache-size 10X -f asm " NV, .exit = USAGE},
    {"usage: --cache-size -5", "--cache-size -5 -f asm " NV, .exit = USAGE},
    {"usage: --cache-size K", "--cache-size K -f asm " NV, .exit = USAGE},
    {"usage: --cache-size overflowing", "--cache-size 99999999999999999999G -f asm " NV, .exit = USAGE},
    {"usage: --tool-mode bogus", "--tool-mode bogus " NV, .exit = USAGE},
    {"usage: unknown format", "-f elf " NV, .exit = USAGE, .msg = "elf"},
    {"usage: format in capitals", "-f BIN " NV, .exit = USAGE},
    {"usage: --attach bogus", "--attach bogus " NV, .exit = USAGE},
    {"usage: two inputs", "-f asm " NV " " AM, .exit = USAGE},
    {"usage: no input", "-t nvptx -f asm", .exit = USAGE},
    {"usage: -t without a value", "-o @OUT " NV " -t", .exit = USAGE},
    {"usage: --features without a value", "-o @OUT " NV " --features", .exit = USAGE},
    {"usage: -o without a value", NV " -o", .exit = USAGE},
    {"usage: --pipeline without a value", "-o @OUT " NV " --pipeline", .exit = USAGE},
    {"usage: several outputs into one -o file", "-t nvptx:sm_80,sm_90 -f asm " NV, .exit = USAGE},
    {"usage: two -t into one -o file", "-t nvptx -t amdgcn -f asm " NV, .exit = USAGE},
    {"usage: several outputs to stdout", "-o - -t nvptx:sm_80,sm_90 -f asm " NV, .exit = USAGE},
    {"usage: --max-input not a size", "--max-input lots -f asm " NV, .exit = USAGE},
    {"usage: --max-input 5Q", "--max-input 5Q -f asm " NV, .exit = USAGE},
    {"usage: --max-input without a value", "-o @OUT " NV " --max-input", .exit = USAGE},
    {"usage: --tool-timeout -3", "--tool-timeout -3 -f asm " NV, .exit = USAGE},
    {"usage: --tool-timeout abc", "--tool-timeout abc -f asm " NV, .exit = USAGE},
    {"usage: --tool-timeout without a value", "-o @OUT " NV " --tool-timeout", .exit = USAGE},
    {"usage: --retarget takes no value", "--retarget=yes -f asm " NV, .exit = USAGE},

    /* ---- input and output: IO ---- */
    {"io: missing input", "-f asm tests/no-such-file.ll", .exit = E(IO), .msg = "no-such-file.ll"},
    {"io: input is a directory", "-f asm @D", .exit = E(IO)},
    {"io: endless input past --max-input", "--max-input 1M -f asm /dev/zero", .exit = E(IO), .limit = 10},
    {"io: input past --max-input 100", "--max-input 100 -f asm " NV, .exit = E(IO)},
    {"io: input past --max-input 1K", "--max-input 1K -f asm @IN", .gen = gen_big_text, .exit = E(IO)},
    {"io: stdin past --max-input 1K", "--max-input 1K -f asm @STDIN", .gen = gen_big_text, .exit = E(IO)},
    {"io: sparse 1 GiB + 1 input past the default limit", "-f asm @IN", .gen = gen_sparse_1g, .exit = E(IO),
     .limit = 30},
    {"io: -o into a missing directory", "-f asm -o @D/no/such/dir/out.ptx " NV, .exit = E(IO)},
    {"io: -o under a regular file", "-f asm -o @IN/x.ptx @IN", .text = ptx_kernel_bare, .exit = E(IO)},
    {"io: -o is the input", "-f asm -o @IN @IN", .text = NVT OK_KERNEL, .exit = E(IO)},
    {"io: output path (pattern) is a directory", "-f asm -o @D/{stem}.ptx @IN", .text = NVT OK_KERNEL,
     .exit = E(IO), .setup = setup_dir_at_ptx},
    {"io: output path (beside the input) is a directory", "-f asm @NOOUT @IN", .text = NVT OK_KERNEL,
     .exit = E(IO), .setup = setup_dir_at_ptx},
    {"io: -o into /proc", "-f asm -o /proc/gpublob-test.ptx " NV, .exit = E(IO)},
    {"io: -o onto a full device (ENOSPC)", "-f asm -o @D/full " NV, .exit = E(IO), .setup = setup_full_device},
    {"io: ulimit -f (SIGXFSZ), PTX", "-f asm " NV, .exit = E(IO), .wrap = "ulimit -f 1"},
    {"io: ulimit -f (SIGXFSZ), amdgcn bitcode", "-t amdgcn -f llvm " AM, .exit = E(IO), .wrap = "ulimit -f 1"},
    {"io: ulimit -f (SIGXFSZ), SPIR-V to stdout", "-t spirv -o - " SP, .exit = E(IO), .wrap = "ulimit -f 1"},
    {"io: two outputs on one path (pattern)", "-t nvptx:sm_80,sm_90 -f asm -o @D/same.ptx{suffix} " NV,
     .exit = E(IO)},

    /* ---- malformed LLVM IR text: PARSE ---- */
#define PT "-t nvptx -f asm @IN"
    {"parse: truncated function", PT, .text = "define void @k() {\n", .exit = E(PARSE)},
    {"parse: truncated instruction", PT, .text = "define void @k(ptr %p) {\n  store i32 1, ptr", .exit = E(PARSE)},
    {"parse: unterminated string", PT, .text = "target triple = \"nvptx64", .exit = E(PARSE)},
    {"parse: i0", PT, .text = "define void @k(i0 %x) {\n  ret void\n}\n", .exit = E(PARSE)},
    {"parse: integer type too wide", PT, .text = "define void @k(i16777216 %x) {\n  ret void\n}\n", .exit = E(PARSE)},
    {"parse: unknown instruction", PT, .text = "define void @k() {\n  frobnicate i32 1\n  ret void\n}\n",
     .exit = E(PARSE), .msg = "in.ll:2:"},
    {"parse: undefined metadata", PT, .text = OK_KERNEL "!named = !{!0}\n!0 = !{!1}\n", .exit = E(PARSE)},
    {"parse: unterminated metadata", PT, .text = OK_KERNEL "!named = !{!0}\n!0 = !{", .exit = E(PARSE)},
    {"parse: unknown specialised metadata", PT, .text = OK_KERNEL "!named = !{!0}\n!0 = !DIFrobnicator()\n",
     .exit = E(PARSE)},
    {"parse: vector size too large", PT, .text = "define void @k(<4294967296 x i8> %v) {\n  ret void\n}\n",
     .exit = E(PARSE)},
    {"parse: debug line number too large", PT,
     .text = "define void @k() {\n  ret void, !dbg !0\n}\n!0 = !DILocation(line: 99999999999999999999, scope: !1)\n"
             "!1 = distinct !DISubprogram(name: \"k\")\n",
     .exit = E(PARSE)},
    {"parse: invalid UTF-8 bytes", PT, .text = "define void @k() {\n  \xff\xfe ret void\n}\n", .exit = E(PARSE)},
    {"parse: invalid UTF-8 in a name", PT, .text = "define void @k\xc3\x28() {\n  ret void\n}\n", .exit = E(PARSE)},
    {"parse: NUL inside a keyword", PT, .gen = gen_nul_keyword, .exit = E(PARSE)},
    {"parse: NUL inside a type", PT, .gen = gen_nul_type, .exit = E(PARSE)},
    {"parse: binary garbage", PT, .text = "\x01\x02\x03\x04 garbage \x7f\x80", .exit = E(PARSE)},
    {"parse: undefined value", PT, .text = "define i32 @k() {\n  %x = add i32 %y, 1\n  ret i32 %x\n}\n",
     .exit = E(PARSE)},
    {"parse: operand type mismatch", PT, .text = "define void @k() {\n  %x = add i32 1, i64 2\n  ret void\n}\n",
     .exit = E(PARSE)},
    {"parse: float constant for an integer", PT, .text = "define void @k() {\n  %x = add i32 1.5, 2\n  ret void\n}\n",
     .exit = E(PARSE)},
    {"parse: redefinition of a function", PT,
     .text = "define void @k() {\n  ret void\n}\ndefine void @k() {\n  ret void\n}\n", .exit = E(PARSE)},
    {"parse: redefinition of a global", PT, .text = "@g = global i32 0\n@g = global i32 1\n", .exit = E(PARSE)},
    {"parse: call of an undeclared function", PT, .text = "define void @k() {\n  call void @nope()\n  ret void\n}\n",
     .exit = E(PARSE)},
    {"parse: trailing comma in the arguments", PT,
     .text = "declare void @f(i32)\ndefine void @k() {\n  call void @f(i32 1, )\n  ret void\n}\n", .exit = E(PARSE)},
    {"parse: block without terminator", PT, .text = "define void @k() {\nentry:\n  %x = add i32 1, 2\n}\n",
     .exit = E(PARSE)},
    {"parse: return type mismatch", PT, .text = "define i32 @k() {\n  ret void\n}\n", .exit = E(PARSE)},
    {"parse: unknown attribute", PT, .text = "define void @k() nosuchattribute {\n  ret void\n}\n", .exit = E(PARSE)},
    {"parse: unterminated attribute string", PT, .text = OK_KERNEL "attributes #0 = { \"unterminated }\n",
     .exit = E(PARSE)},
    {"parse: calling convention number too large", PT, .text = "define cc99999999999 void @k() {\n  ret void\n}\n",
     .exit = E(PARSE)},
    {"parse: undefined label", PT, .text = "define void @k() {\n  br label %nowhere\n}\n", .exit = E(PARSE)},
    {"parse: alignment not a power of two", PT,
     .text = "define void @k(ptr %p) {\n  store i32 1, ptr %p, align 3\n  ret void\n}\n", .exit = E(PARSE)},
    {"parse: alignment too large", PT,
     .text = "define void @k(ptr %p) {\n  store i32 1, ptr %p, align 8589934592\n  ret void\n}\n", .exit = E(PARSE)},
    {"parse: address space too large", PT, .text = "define void @k(ptr addrspace(99999999999) %p) {\n  ret void\n}\n",
     .exit = E(PARSE)},
    {"parse: zero-element vector", PT, .text = "define void @k(<0 x i32> %v) {\n  ret void\n}\n", .exit = E(PARSE)},
    {"parse: array size overflowing 64 bits", PT, .text = "@g = global [18446744073709551616 x i8] zeroinitializer\n",
     .exit = E(PARSE)},
    {"parse: malformed data layout", PT, .text = "target datalayout = \"zzz-p:-1\"\n" OK_KERNEL, .exit = E(PARSE)},
    {"parse: triple not a string", PT, .text = "target triple = 42\n", .exit = E(PARSE)},
    {"parse: unknown top-level keyword", PT, .text = "frobnicate @k\n", .exit = E(PARSE)},
    {"parse: lone sigil", PT, .text = "define void @k() {\n  %\n}\n", .exit = E(PARSE)},
    {"parse: unclosed parameter list", PT, .text = "define void @k(i32 {\n  ret void\n}\n", .exit = E(PARSE)},
    {"parse: unterminated source_filename", PT, .text = "source_filename = \"k.cu\n", .exit = E(PARSE)},
    {"parse: 100000 nested array types", PT, .gen = gen_nested_arrays, .exit = E(PARSE), .alt = E(BACKEND)},
    {"parse: 100000 nested array types, --no-isolate", "--no-isolate " PT, .gen = gen_nested_arrays,
     .exit = E(PARSE), .alt = E(BACKEND)},
    {"parse: 100000 nested struct types", PT, .gen = gen_nested_structs, .exit = E(PARSE), .alt = E(BACKEND)},
    {"parse: 100000 nested constant expressions", PT, .gen = gen_nested_constexprs, .exit = E(PARSE),
     .alt = E(BACKEND)},
    {"parse: 100000 nested metadata tuples", PT, .gen = gen_nested_metadata, .exit = E(PARSE), .alt = E(BACKEND)},

    /* ---- malformed bitcode: BITCODE ---- */
#define BT "-t nvptx -f asm @IN", .sfx = ".bc", .exit = E(BITCODE), .bitcode_check = 1
    {"bitcode: cut at 20 bytes", BT, .gen = gen_bc_cut20},
    {"bitcode: cut at a quarter", BT, .gen = gen_bc_cut_quarter},
    {"bitcode: cut in half", BT, .gen = gen_bc_cut_half},
    {"bitcode: last word cut", BT, .gen = gen_bc_cut_word},
    {"bitcode: last byte cut", BT, .gen = gen_bc_cut_byte},
    {"bitcode: tail of 0xff", BT, .gen = gen_bc_ff_tail},
    {"bitcode: tail of zeros", BT, .gen = gen_bc_zero_tail},
    {"bitcode: byte 4 flipped", BT, .gen = gen_bc_flip4},
    {"bitcode: byte 8 flipped", BT, .gen = gen_bc_flip8},
    {"bitcode: byte 12 flipped", BT, .gen = gen_bc_flip12},
    {"bitcode: byte 16 flipped", BT, .gen = gen_bc_flip16},
    {"bitcode: byte 32 flipped", BT, .gen = gen_bc_flip32},
    {"bitcode: middle byte flipped", BT, .gen = gen_bc_flip_mid},
    {"bitcode: every 7th byte flipped", BT, .gen = gen_bc_every7},
    {"bitcode: wrapper header pointing past the end", BT, .gen = gen_bc_wrapper},
    {"bitcode: magic then garbage", BT, .gen = gen_bc_garbage},
    {"bitcode: garbage on stdin", "-t nvptx -f asm @STDIN", .sfx = ".bc", .exit = E(BITCODE), .gen = gen_bc_garbage},

    /* ---- verifier failures: VERIFY ---- */
#define VT "-t nvptx -f asm @IN", .exit = E(VERIFY)
    {"verify: use before its definition", VT, .text = verify_dominance, .msg = "does not dominate"},
    {"verify: PHI after an instruction", VT,
     .text = "define i32 @k(i1 %c) {\nentry:\n  br i1 %c, label %a, label %b\na:\n  br label %b\n"
             "b:\n  %y = add i32 1, 2\n  %p = phi i32 [ 0, %entry ], [ 1, %a ]\n  ret i32 %p\n}\n"},
    {"verify: entry block with a predecessor", VT, .text = "define void @k() {\nentry:\n  br label %entry\n}\n"},
    {"verify: instruction using itself", VT,
     .text = "define i32 @k() {\nentry:\n  br label %b\nb:\n  %x = add i32 %x, 1\n  br label %b\n}\n"},
    {"verify: intrinsic with a wrong signature", VT,
     .text = NVT "define ptx_kernel void @k(ptr addrspace(1) %p) {\n  %t = call i64 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
                 "  store i64 %t, ptr addrspace(1) %p\n  ret void\n}\ndeclare i64 @llvm.nvvm.read.ptx.sreg.tid.x()\n"},
    {"verify: amdgpu_kernel returning a value", "-t amdgcn -f asm @IN", .exit = E(VERIFY),
     .text = AMT "define amdgpu_kernel i32 @k() {\n  ret i32 0\n}\n"},
    {"verify: amdgpu_kernel with varargs", "-t amdgcn -f asm @IN", .exit = E(VERIFY),
     .text = AMT "define amdgpu_kernel void @k(...) {\n  ret void\n}\n"},
    {"verify: call of a kernel", "-t amdgcn -f asm @IN", .exit = E(VERIFY),
     .text = AMT "define amdgpu_kernel void @a() {\n  ret void\n}\n"
                 "define amdgpu_kernel void @b() {\n  call amdgpu_kernel void @a()\n  ret void\n}\n"},
    {"verify: empty range metadata", VT,
     .text = "define i32 @k(ptr %p) {\n  %v = load i32, ptr %p, !range !0\n  ret i32 %v\n}\n!0 = !{i32 0, i32 0}\n"},
    {"verify: bad module flag behaviour", VT,
     .text = OK_KERNEL "!llvm.module.flags = !{!0}\n!0 = !{i32 99, !\"x\", i32 1}\n"},
    {"verify: llvm.used of the wrong type", VT, .text = "@llvm.used = appending global i32 0\n" OK_KERNEL},
    {"verify: musttail not followed by ret", VT,
     .text = "declare i32 @f()\ndefine i32 @k() {\n  %r = musttail call i32 @f()\n  %s = add i32 %r, 1\n  ret i32 %s\n}\n"},
    {"verify: broken module with Debug Info Version (LLVM aborts in-process)", VT, .text = debug_broken},
    {"verify: broken module with Debug Info Version, --isolate", "--isolate -t nvptx -f asm @IN",
     .exit = E(VERIFY), .text = debug_broken},
    {"verify: broken module with Debug Info Version, --no-isolate", "--no-isolate -t nvptx -f asm @IN",
     .exit = E(VERIFY), .text = debug_broken},

    /* ---- another target's module, calling convention or intrinsics: TARGET ---- */
    {"target: nvptx64 triple given to -t amdgcn", "-t amdgcn -f asm " NV, .exit = E(TARGET), .msg = "nvptx64"},
    {"target: amdgcn triple given to -t nvptx", "-t nvptx -f asm " AM, .exit = E(TARGET), .msg = "amdgcn"},
    {"target: spirv64 triple given to -t amdgcn", "-t amdgcn -f asm " SP, .exit = E(TARGET)},
    {"target: nvptx64 triple given to -t spirv", "-t spirv " NV, .exit = E(TARGET)},
    {"target: x86_64 triple given to -t nvptx", "-t nvptx -f asm @IN", .text = x86_module, .exit = E(TARGET)},
    {"target: aarch64 triple given to -t amdgcn", "-t amdgcn -f asm @IN", .text = aarch64_module, .exit = E(TARGET)},
    {"target: hexagon triple given to -t spirv", "-t spirv @IN", .text = hexagon_module, .exit = E(TARGET)},
    {"target: ptx_kernel (no triple) given to -t amdgcn", "-t amdgcn -f asm @IN", .text = ptx_kernel_bare,
     .exit = E(TARGET), .msg = "kernel of target nvptx"},
    {"target: amdgpu_kernel (no triple) given to -t nvptx", "-t nvptx -f asm @IN", .text = amdgpu_kernel_bare,
     .exit = E(TARGET), .msg = "kernel of target amdgcn"},
    {"target: spir_kernel (no triple) given to -t nvptx", "-t nvptx -f asm @IN", .text = spir_kernel_bare,
     .exit = E(TARGET)},
    {"target: amdgpu_kernel (no triple) given to -t spirv", "-t spirv @IN", .text = amdgpu_kernel_bare,
     .exit = E(TARGET)},
    {"target: nvvm intrinsic given to amdgcn", "-t amdgcn -f asm @IN", .text = nvvm_on_amdgcn, .exit = E(TARGET),
     .msg = "llvm.nvvm.read.ptx.sreg.tid.x"},
    {"target: amdgcn intrinsic given to nvptx", "-t nvptx -f asm @IN", .text = amdgcn_on_nvptx, .exit = E(TARGET),
     .msg = "llvm.amdgcn.workitem.id.x"},
    {"target: r600 intrinsic given to nvptx", "-t nvptx -f asm @IN", .text = r600_on_nvptx, .exit = E(TARGET)},
    {"target: spv intrinsic given to nvptx", "-t nvptx -f asm @IN", .text = spv_on_nvptx, .exit = E(TARGET)},
    {"target: aarch64 intrinsic given to spirv", "-t spirv @IN", .text = aarch64_on_spirv, .exit = E(TARGET)},
    {"target: x86 intrinsic (rdtsc) on nvptx", "-t nvptx -f asm @IN", .text = rdtsc_nvptx, .exit = E(TARGET),
     .msg = "llvm.x86.rdtsc"},
    {"target: x86 intrinsic (rdtsc) on nvptx, --isolate", "--isolate -t nvptx -f asm @IN", .text = rdtsc_nvptx,
     .exit = E(TARGET)},
    {"target: x86 intrinsic (rdtsc) on nvptx, --no-isolate", "--no-isolate -t nvptx -f asm @IN",
     .text = rdtsc_nvptx, .exit = E(TARGET)},
    {"target: x86 intrinsic (rdtsc) on amdgcn", "-t amdgcn -f asm @IN", .text = rdtsc_amdgcn, .exit = E(TARGET)},
    {"target: bfloat on spirv, --no-isolate", "--no-isolate -t spirv @IN", .text = bfloat_spirv, .exit = E(TARGET),
     .msg = "function @k uses type bfloat, which target spirv cannot lower"},
    {"target: bfloat on spirv, --isolate", "--isolate -t spirv @IN", .text = bfloat_spirv, .exit = E(TARGET),
     .msg = "uses type bfloat"},
    {"target: bfloat on spirv -f asm -O0", "-t spirv -f asm -O0 @IN", .text = bfloat_spirv, .exit = E(TARGET),
     .msg = "uses type bfloat"},
    {"target: fp128 sqrt on spirv, --no-isolate", "--no-isolate -t spirv @IN", .text = fp128_sqrt_spirv,
     .exit = E(TARGET), .msg = "uses type fp128"},
    {"target: fp128 sqrt on spirv, --isolate", "--isolate -t spirv @IN", .text = fp128_sqrt_spirv, .exit = E(TARGET),
     .msg = "uses type fp128"},
    {"target: fp128 fadd on spirv (an invalid blob otherwise)", "-t spirv @IN", .text = fp128_add_spirv,
     .exit = E(TARGET), .msg = "uses type fp128"},
    {"target: amdgcn bitcode given to -t nvptx", "-t nvptx -f asm @IN", .sfx = ".bc", .gen = gen_bc_amdgcn,
     .exit = E(TARGET)},
    {"target: unknown target", "-t nope " NV, .exit = E(TARGET), .msg = "nope"},
    {"target: empty target name", "-t :sm_90 " NV, .exit = E(TARGET)},
    {"target: target name in capitals", "-t NVPTX " NV, .exit = E(TARGET)},

    /* ---- chips ---- */
    {"chip: sm_999", "-t nvptx:sm_999 -f asm " NV, .exit = E(CHIP), .msg = "sm_999"},
    {"chip: gfx9999", "-t amdgcn:gfx9999 -f asm " AM, .exit = E(CHIP)},
    /* clang's HIP output with its device libraries linked for gfx90a (their constants internal),
       retargeted to gfx942: CHIP naming both ISA versions, and the error before --retarget's warning */
    {"chip: a module's own __oclc_ISA_version for another chip (--retarget)", "--retarget -t amdgcn:gfx942 @IN",
     .text = AMT "@__oclc_ISA_version = internal addrspace(4) constant i32 9010\n"
                 "define amdgpu_kernel void @k(ptr addrspace(1) %p) #0 {\n"
                 "  %v = load i32, ptr addrspace(4) @__oclc_ISA_version\n"
                 "  store i32 %v, ptr addrspace(1) %p\n  ret void\n}\n"
                 "attributes #0 = { \"target-cpu\"=\"gfx90a\" }\n",
     .exit = E(CHIP), .msg = "as 9010, but amdgcn:gfx942 needs 9402"},
    {"chip: an amdgcn chip for nvptx", "-t nvptx:gfx90a -f asm " NV, .exit = E(CHIP)},
    {"chip: an nvptx chip for amdgcn", "-t amdgcn:sm_90 -f asm " AM, .exit = E(CHIP)},
    {"chip: a chip for spirv", "-t spirv:gfx90a " SP, .exit = E(CHIP)},
    {"chip: one bad chip of two", "-t nvptx:sm_80,sm_999 -f asm -o @D/{chip}{suffix} " NV, .exit = E(CHIP)},
    {"chip: an empty chip after a comma", "-t nvptx:sm_80, -f asm -o @D/{chip}{suffix} " NV, .exit = E(CHIP)},
    {"chip: pinned to sm_90, -t nvptx:sm_80 (no --retarget)", "-t nvptx:sm_80 -f asm @IN", .text = pinned_sm90,
     .exit = E(CHIP), .msg = "--retarget"},
    {"chip: pinned to sm_90 by its features only, -t nvptx:sm_80", "-t nvptx:sm_80 -f asm @IN",
     .text = pinned_sm90_features_only, .exit = E(CHIP)},
    {"chip: a helper pinned to sm_90, -t nvptx:sm_75", "-t nvptx:sm_75 -f asm @IN", .text = pinned_helper_sm90,
     .exit = E(CHIP), .msg = "pinned_helper"},
    {"chip: pinned to gfx90a, -t amdgcn:gfx1030", "-t amdgcn:gfx1030 -f asm @IN", .text = pinned_gfx90a,
     .exit = E(CHIP), .msg = "gfx1030"},
    {"chip: pinned to gfx1030, -t amdgcn:gfx90a", "-t amdgcn:gfx90a -f asm @IN", .text = pinned_gfx1030,
     .exit = E(CHIP), .msg = "pinned_kernel"},
    {"chip: pinned to gfx90a, -t amdgcn:gfx90a,gfx1030", "-t amdgcn:gfx90a,gfx1030 -f asm -o @D/{chip}{suffix} @IN",
     .text = pinned_gfx90a, .exit = E(CHIP)},
    {"chip: pinned to gfx90a, -t amdgcn:gfx803 bin", "-t amdgcn:gfx803 @IN", .text = pinned_gfx90a, .exit = E(CHIP)},

    /* ---- features ---- */
    {"features: nvptx +ptx60 below sm_90's minimum", "--features +ptx60 -f asm " NV, .exit = E(FEATURES)},
    {"features: nvptx +avx512f", "--features +avx512f -f asm " NV, .exit = E(FEATURES)},
    {"features: nvptx without a sign", "--features ptx80 -f asm " NV, .exit = E(FEATURES)},
    {"features: nvptx +ptx99", "--features +ptx99 -f asm " NV, .exit = E(FEATURES)},
    {"features: nvptx a lone +", "--features + -f asm " NV, .exit = E(FEATURES)},
    {"features: nvptx +sm_80 (the chip's, not a feature)", "--features +sm_80 -f asm " NV, .exit = E(FEATURES)},
#define AF(f) {"features: amdgcn " f, "-t amdgcn -f asm --features " f " " AM, .exit = E(FEATURES), .msg = f}
    AF("-fp64"), AF("-flat-address-space"), AF("-16-bit-insts"), AF("+wavefrontsize16"),
    AF("+scalar-dwordx3-loads"), AF("+requires-cov6"), AF("-gfx9-insts"), AF("-dpp"), AF("-vop3p"),
    AF("+add-sub-u64-insts"), AF("+flat-for-global"), AF("-sdwa"), AF("+gfx10-insts"), AF("+gfx11-insts"),
    AF("-ci-insts"), AF("-gfx8-insts"), AF("+real-true16"), AF("+unaligned-scratch-access"), AF("-mai-insts"),
    AF("+wavefrontsize32"), AF("-wavefrontsize64"), AF("+foo"),
    {"features: amdgcn +mai-insts on gfx1030", "-t amdgcn:gfx1030 -f asm --features +mai-insts " AM,
     .exit = E(FEATURES)},
    {"features: amdgcn an allowed one then -fp64", "-t amdgcn -f asm --features +xnack,-fp64 " AM,
     .exit = E(FEATURES), .msg = "-fp64"},
    {"features: amdgcn +cumode,+wavefrontsize16", "-t amdgcn -f asm --features +cumode,+wavefrontsize16 " AM,
     .exit = E(FEATURES)},
    {"features: amdgcn +wavefrontsize16, --no-isolate", "--no-isolate -t amdgcn -f asm --features +wavefrontsize16 " AM,
     .exit = E(FEATURES)},
    {"features: amdgcn -fp64, --no-isolate", "--no-isolate -t amdgcn -f asm --features -fp64 " AM, .exit = E(FEATURES)},
    {"features: amdgcn -flat-address-space, --no-isolate",
     "--no-isolate -t amdgcn -f asm --features -flat-address-space " AM, .exit = E(FEATURES)},
    {"features: amdgcn +requires-cov6, --no-isolate", "--no-isolate -t amdgcn -f asm --features +requires-cov6 " AM,
     .exit = E(FEATURES)},
    {"features: amdgcn -fp64, bin", "-t amdgcn --features -fp64 " AM, .exit = E(FEATURES)},

    /* ---- formats ---- */
    {"format: fatbin for spirv", "-t spirv -f fatbin " SP, .exit = E(FORMAT)},
    {"option: a pack holds a chip once (amdgcn)", "-t amdgcn:gfx90a,gfx1030,gfx90a -f fatbin " AM, .exit = E(OPTION),
     .msg = "gfx90a is in it twice"},
    {"option: a pack holds a chip once (nvptx)", "-t nvptx:sm_80,sm_80 -f fatbin " NV, .exit = E(OPTION),
     .needs_ptxas = 1},

    /* ---- blob tools not found: NOTOOL ---- */
    {"notool: ptxas on no search path", "--no-default-search -t nvptx " NV, .exit = E(NOTOOL)},
    /* --tool-mode program: where lld is linked in, auto needs no ld.lld program */
    {"notool: ld.lld on no search path", "--tool-mode program --no-default-search -t amdgcn " AM, .exit = E(NOTOOL)},
    {"notool: --tool-dir that does not exist",
     "--tool-mode program --no-default-search --tool-dir /nonexistent -t amdgcn " AM,
     .exit = E(NOTOOL), .msg = "/nonexistent"},
    {"notool: --tool that does not exist", "--tool /nonexistent/ld.lld -t amdgcn " AM, .exit = E(NOTOOL)},
    {"notool: --tool without the execute bit", "--tool @S/tools/noexec -t amdgcn " AM, .exit = E(NOTOOL)},
    {"notool: --tool that is a directory", "--tool @S/tools -t amdgcn " AM, .exit = E(NOTOOL), .alt = E(TOOL)},
    {"notool: in-process nvJitLink on no search path", "--tool-mode in-process --no-default-search -t nvptx " NV,
     .exit = E(NOTOOL)},
    {"notool: fatbinary missing (only ptxas on the path)",
     "--no-default-search --tool-dir @S/ptxas-only -t nvptx:sm_80,sm_90 -f fatbin " NV, .exit = E(NOTOOL)},
    {"notool: clang-offload-bundler missing (--tool-mode program, only ld.lld on the path)",
     "--tool-mode program --no-default-search --tool-dir @S/lld-only -t amdgcn:gfx90a,gfx1030 -f fatbin " AM,
     .exit = E(NOTOOL), .msg = "clang-offload-bundler", .needs_ld_lld = 1},

    /* ---- blob tools failing: TOOL ---- */
#define PACKT(dir) "--tool-mode program --tool-dir @S/" dir " -t amdgcn:gfx90a,gfx1030 -f fatbin " AM
    {"tool: clang-offload-bundler exits 1 (--tool-mode program)", PACKT("bundler-exit1"), .exit = E(TOOL),
     .msg = "fake bundler: refused", .needs_ld_lld = 1},
    {"tool: clang-offload-bundler writes no bundle (--tool-mode program)", PACKT("bundler-garbage"), .exit = E(TOOL),
     .msg = "5f5f434c414e475f", .needs_ld_lld = 1},
#define AT(tool) "--tool @S/tools/" tool " -t amdgcn " AM
#define NT(tool) "--tool @S/tools/" tool " --tool-mode program -t nvptx " NV
    {"tool: exits 1", AT("exit1"), .exit = E(TOOL), .msg = "fake tool: refused"},
    {"tool: killed by SIGSEGV", AT("segv"), .exit = E(TOOL)},
    {"tool: killed by SIGKILL", AT("sigkill"), .exit = E(TOOL)},
    {"tool: writes garbage, not an ELF file", AT("garbage"), .exit = E(TOOL)},
    {"tool: writes a wrong magic", AT("badmagic"), .exit = E(TOOL)},
    {"tool: writes the ELF magic, then garbage (amdgcn)", AT("elf-garbage"), .exit = E(TOOL),
     .msg = "gpublob can read"},
    {"tool: writes the ELF magic, then garbage (nvptx)", NT("elf-garbage"), .exit = E(TOOL),
     .msg = "gpublob can read"},
    {"tool: an hsaco for another chip", AT("ld.lld-other-chip"), .exit = E(TOOL),
     .msg = "not the backend object's", .needs_ld_lld = 1},
    {"tool: a cubin for another chip", "--tool @S/tools/ptxas-other-chip --tool-mode program -t nvptx:sm_90 " NV,
     .exit = E(TOOL), .msg = "for another chip", .needs_ptxas = 1},
    {"tool: writes an empty output", AT("empty"), .exit = E(TOOL)},
    {"tool: writes no output and exits 0", AT("nooutput"), .exit = E(TOOL)},
    {"tool: writes an output, then exits 1", AT("elf-then-fail"), .exit = E(TOOL)},
    {"tool: sleeps forever (--tool-timeout 2)", "--tool-timeout 2 " AT("forever"), .exit = E(TOOL), .limit = 12,
     .tools_dead = 1},
    {"tool: sleeps forever without reading its input (--tool-timeout 2)", "--tool-timeout 2 " AT("forever-noread"),
     .exit = E(TOOL), .limit = 12, .tools_dead = 1},
    {"tool: ignores SIGTERM and sleeps (--tool-timeout 2)", "--tool-timeout 2 " AT("ignore-term"), .exit = E(TOOL),
     .limit = 12, .tools_dead = 1},
    {"tool: leaves a child holding stdout, exits 0 with no output", AT("child-holds-stdout"), .exit = E(TOOL),
     .limit = 12},
    {"tool: leaves a child holding stderr, exits 1", AT("child-holds-stderr-fail"), .exit = E(TOOL), .limit = 12},
    {"tool: leaves a setsid child holding stdout", AT("setsid-child"), .exit = E(TOOL), .limit = 12},
    {"tool: makes a subdirectory in its TMPDIR, exits 1", AT("tmpdir-subdir"), .exit = E(TOOL)},
    {"tool: writes tmpxft files into its TMPDIR, exits 1", AT("tmpxft"), .exit = E(TOOL)},
    {"tool: writes its output elsewhere in TMPDIR", AT("tmpdir-other-output"), .exit = E(TOOL)},
    {"tool: 1 MiB of stderr, exits 1", AT("huge-stderr"), .exit = E(TOOL)},
    {"tool: exits 0 without reading its input", AT("noread"), .exit = E(TOOL)},
    {"tool: exits 1 without reading its input", AT("noread-fail"), .exit = E(TOOL)},
    {"tool: closes stdout and stderr, exits 3", AT("closed-fds"), .exit = E(TOOL)},
    {"tool: a script whose interpreter is missing", AT("bad-shebang"), .exit = E(TOOL), .alt = E(NOTOOL)},
    {"tool: ptxas stand-in exits 1", NT("exit1"), .exit = E(TOOL)},
    {"tool: ptxas stand-in writes garbage", NT("garbage"), .exit = E(TOOL)},
    {"tool: ptxas stand-in writes an empty cubin", NT("empty"), .exit = E(TOOL)},
    {"tool: ptxas stand-in killed by SIGSEGV", NT("segv"), .exit = E(TOOL)},
    {"tool: ptxas stand-in sleeps forever (--tool-timeout 2)", "--tool-timeout 2 " NT("forever"), .exit = E(TOOL),
     .limit = 12, .tools_dead = 1},
    {"tool: ptxas stand-in never reads stdin", NT("noread"), .exit = E(TOOL)},
    {"link: unresolved device call (before ld.lld --no-undefined)", "-t amdgcn @IN", .text = undefined_call_amdgcn,
     .exit = E(LINK), .msg = "'no_such_device_function'", .needs_rocm = 1},

    /* ---- device libraries ---- */
    {"nolib: ROCm device libraries on no search path",
     "--no-default-search --tool-dir " LLVM_BINDIR " -t amdgcn " AM, .exit = E(NOLIB), .msg = "ocml.bc"},
    {"nolib: libdevice on no search path", "--no-default-search --lib-dir /nonexistent -t nvptx -f asm " NV,
     .exit = E(NOLIB), .msg = "/nonexistent/libdevice.10.bc"},
    {"nolib: ockl.bc on no search path (only ocml.bc's directory)",
     "--no-default-search --tool-dir " LLVM_BINDIR " --lib-dir @S/only-ocml -t amdgcn " AM, .exit = E(NOLIB),
     .msg = "ockl.bc", .needs_rocm = 1},
    /* ---- AMD: target ids, ABI versions, generic targets ---- */
    {"chip: a target id modifier the chip lacks (gfx1100:xnack+)", "-t amdgcn:gfx1100:xnack+ " AM, .exit = E(CHIP),
     .msg = "the chip has no 'xnack+'"},
    {"chip: a target id modifier without its sign", "-t amdgcn:gfx90a:xnack " AM, .exit = E(CHIP),
     .msg = "FEATURE+ or FEATURE-"},
    {"chip: a target id naming a feature twice", "-t amdgcn:gfx942:xnack+:xnack- " AM, .exit = E(CHIP),
     .msg = "twice"},
    {"features: against the target id", "-t amdgcn:gfx90a:xnack+ --features -xnack " AM, .exit = E(FEATURES),
     .msg = "contradicts"},
    {"option: --abi 500 on a generic target (LLVM would abort)", "-t amdgcn:gfx11-generic --abi 500 " AM,
     .exit = E(OPTION), .msg = "needs ABI version 600"},
    {"option: --abi 300", "-t amdgcn:gfx942 --abi 300 " AM, .exit = E(OPTION), .msg = "400 500 600"},
    {"option: -l of a directory", "-l /tmp -f asm " NV, .exit = E(IO), .msg = "link file /tmp"},
    {"option: -l of /dev/zero (no regular file, never read)", "-l /dev/zero -f asm " NV, .exit = E(IO),
     .msg = "/dev/zero"},
    {"option: -l of LLVM IR text that does not parse", "-l examples/saxpy.mlir -f asm " NV, .exit = E(BITCODE),
     .msg = "saxpy.mlir"},
    {"option: -l of the amdgcn module into nvptx", "-l " AM " -f asm " NV, .exit = E(TARGET),
     .msg = "is for amdgcn"},
    {"option: --opts with an unclosed quote", "--opts '-O3 " NV, .exit = E(OPTION), .msg = "not closed"},
    {"option: --opts nvJitLink has no counterpart of, in-process", "--tool-mode in-process --opts --no-such " NV,
     .exit = E(OPTION), .msg = "--no-such"},
    {"option: --abi on a target without ABI versions", "-t spirv --abi 500 @IN", .text = "define spir_kernel void @k() { ret void }\n",
     .exit = E(OPTION), .msg = "has ABI versions"},
    {"option: a module's code object v5 on a generic target (LLVM would abort)", "-t amdgcn:gfx12-generic @IN",
     .text = "target triple = \"amdgcn-amd-amdhsa\"\n"
             "define amdgpu_kernel void @k() { ret void }\n"
             "!llvm.module.flags = !{!0}\n!0 = !{i32 1, !\"amdhsa_code_object_version\", i32 500}\n",
     .exit = E(OPTION), .msg = "needs ABI version 600"},
    {"link: a module declaring a control constant with another type", "-t amdgcn:gfx942 @IN",
     .text = "target triple = \"amdgcn-amd-amdhsa\"\n"
             "@__oclc_ABI_version = external addrspace(1) global i32\n"
             "declare float @__ocml_sin_f32(float)\n"
             "define amdgpu_kernel void @k(ptr addrspace(1) %p) {\n"
             "  %v = load i32, ptr addrspace(1) @__oclc_ABI_version\n"
             "  %x = sitofp i32 %v to float\n  %y = call float @__ocml_sin_f32(float %x)\n"
             "  store float %y, ptr addrspace(1) %p\n  ret void\n}\n",
     .exit = E(LINK), .msg = "__oclc_ABI_version", .needs_rocm = 1},

    {"link: ocml.bc is garbage", "--no-default-search --tool-dir " LLVM_BINDIR " --lib-dir @S/bad-ocml -t amdgcn " AM,
     .exit = E(LINK), .alt = E(BITCODE)},
    {"link: ocml.bc is empty", "--no-default-search --tool-dir " LLVM_BINDIR " --lib-dir @S/empty-ocml -t amdgcn " AM,
     .exit = E(LINK), .alt = E(NOLIB)},
    {"link: libdevice.10.bc is garbage", "--no-default-search --lib-dir @S/bad-libdevice -t nvptx -f asm " NV,
     .exit = E(LINK), .alt = E(BITCODE)},

    /* ---- LLVM diagnostics of error severity: BACKEND ---- */
    {"backend: dynamic alloca on sm_75", "-t nvptx:sm_75 -f asm @IN", .text = dyn_alloca_nvptx, .exit = E(BACKEND)},
    {"backend: 4 MB of LDS on amdgcn", "-t amdgcn -f asm @IN", .text = big_lds, .exit = E(BACKEND)},
    {"backend: 4 MB of LDS on amdgcn, bin", "-t amdgcn @IN", .text = big_lds, .exit = E(BACKEND)},
    {"backend: amdgpu_ps in an HSA module", "-t amdgcn -f asm @IN", .text = amdgpu_ps_hsa, .exit = E(BACKEND)},
    {"backend: inline asm constraint nvptx cannot allocate", "-t nvptx -f asm @IN", .text = asm_constraint_nvptx,
     .exit = E(BACKEND)},
    {"backend: inline asm constraint amdgcn cannot allocate", "-t amdgcn -f asm @IN", .text = asm_constraint_amdgcn,
     .exit = E(BACKEND)},
    {"backend: inline asm the assembler refuses", "-t amdgcn @IN", .text = asm_bad_text_amdgcn, .exit = E(BACKEND)},
    {"backend: permlane16 on gfx90a", "-t amdgcn:gfx90a -f asm @IN", .text = permlane_gfx90a, .exit = E(BACKEND)},
    /* LLVM fatal errors: default (the CLI may isolate), --isolate, --no-isolate */
#define ABORT3(what, args, input)                                                                 \
  {"abort: " what, args, .text = input, .exit = E(BACKEND)},                                      \
  {"abort: " what ", --isolate", "--isolate " args, .text = input, .exit = E(BACKEND)},           \
  {"abort: " what ", --no-isolate", "--no-isolate " args, .text = input, .exit = E(BACKEND)}
    /* an intrinsic the backend cannot select, with no device-library function (src/libm_names.c):
       refused before LLVM, isolated or not (NOLIB where libdevice is missing) */
    {"target: llvm.sin.f16 in an nvptx kernel", "-t nvptx -f asm @IN", .text = sin_half_nvptx, .exit = E(TARGET),
     .alt = E(NOLIB), .msg = "llvm.sin.f16"},
    {"target: llvm.sin.f16 in an nvptx kernel, --isolate", "--isolate -t nvptx -f asm @IN", .text = sin_half_nvptx,
     .exit = E(TARGET), .alt = E(NOLIB)},
    {"target: llvm.sin.f16 in an nvptx kernel, --no-isolate", "--no-isolate -t nvptx -f asm @IN",
     .text = sin_half_nvptx, .exit = E(TARGET), .alt = E(NOLIB)},
    {"target: llvm.sin.f16 in an nvptx kernel, bin", "-t nvptx @IN", .text = sin_half_nvptx, .exit = E(TARGET),
     .msg = "cannot select", .needs_ptxas = 1},
    /* a name PTX cannot hold: refused before the backend (VERIFY), or the backend's error */
    {"abort: a public function with a dash in its name on nvptx", "-t nvptx -f asm @IN", .text = dash_symbol,
     .exit = E(VERIFY), .alt = E(BACKEND), .msg = "my-helper"},
    {"abort: a public function with a dash in its name on nvptx, --no-isolate", "--no-isolate -t nvptx -f asm @IN",
     .text = dash_symbol, .exit = E(VERIFY), .alt = E(BACKEND)},
    {"abort: a public global with a dash in its name on nvptx", "-t nvptx -f asm @IN", .text = dash_global,
     .exit = E(VERIFY), .alt = E(BACKEND), .msg = "my-counter"},
    {"abort: a public global with a dash in its name on nvptx, bin", "-t nvptx @IN", .text = dash_global,
     .exit = E(VERIFY), .alt = E(BACKEND), .needs_ptxas = 1},
    ABORT3("wgmma on sm_80", "-t nvptx:sm_80 -f asm @IN", wgmma_sm80),
    ABORT3("mfma on gfx803", "-t amdgcn:gfx803 -f asm @IN", mfma_gfx803),

    /* ---- MLIR ---- */
#define MT(args) args " @IN", .sfx = ".mlir"
    {"mlir: an unknown #rocdl.target flag", MT(""),
     .text = MLIR_GPU_KERNEL("[#rocdl.target<chip = \"gfx942\", flags = {turbo}>]"), .exit = E(OPTION),
     .msg = "flag 'turbo'"},
    {"mlir: #rocdl.target abi that is no number", MT(""),
     .text = MLIR_GPU_KERNEL("[#rocdl.target<chip = \"gfx942\", abi = \"v5\">]"), .exit = E(OPTION),
     .msg = "no ABI version"},
    {"mlir: unterminated module", MT("-t amdgcn"), .text = "module {\n  gpu.module @k {\n", .exit = E(PARSE)},
    {"mlir: garbage after the module", MT("-t amdgcn"), .text = "module {\n}\n}\n", .exit = E(PARSE)},
    {"mlir: unregistered operation", MT("-t amdgcn"), .text = "module {\n  foo.bar\n}\n", .exit = E(PARSE)},
    {"mlir: verifier error", MT("-t amdgcn"),
     .text = "module {\n  func.func @f() -> i32 {\n    %0 = \"arith.addi\"() : () -> i32\n    return %0 : i32\n  }\n}\n",
     .exit = E(PARSE), .msg = "in.mlir:3:"},
    {"mlir: invalid UTF-8", MT("-t amdgcn"), .text = "module {\n  \xff\xfe\n}\n", .exit = E(PARSE)},
    {"mlir: NUL inside an op name", MT("-t amdgcn"), .gen = gen_nul_mlir, .exit = E(PARSE)},
    {"mlir: 100000 nested arrays in an attribute", MT("-t amdgcn"), .gen = gen_nested_mlir, .exit = E(PARSE),
     .alt = E(BACKEND)},
    {"mlir: no gpu.module", MT("-t amdgcn"), .text = "module {\n  func.func @f() { return }\n}\n", .exit = E(NOGPU)},
    {"mlir: empty file", MT("-t amdgcn"), .text = "", .exit = E(NOGPU)},
    {"mlir: #spirv.target_env on a gpu-dialect body", MT(""), .text = MLIR_GPU_KERNEL("[#spirv.target_env<#spirv.vce<v1.0, "
     "[Kernel], []>, #spirv.resource_limits<>>]"), .exit = E(LOWER), .msg = "MLIR's serialiser of #spirv.target_env"},
    {"mlir: unknown target name", MT("-t nope"), .text = MLIR_GPU_KERNEL(""), .exit = E(TARGET)},
    {"mlir: chip not in the spec", MT(""), .text = MLIR_GPU_KERNEL("[#nvvm.target<chip = \"sm_99\">]"),
     .exit = E(CHIP)},
    {"mlir: refused amdgcn feature in the attribute", MT(""),
     .text = MLIR_GPU_KERNEL("[#rocdl.target<chip = \"gfx90a\", features = \"-fp64\">]"), .exit = E(FEATURES)},
    {"mlir: PTX version too low in the attribute", MT("-f asm"),
     .text = MLIR_GPU_KERNEL("[#nvvm.target<chip = \"sm_90\", features = \"+ptx60\">]"), .exit = E(FEATURES)},
    {"mlir: a missing file in a target attribute's link = [...]", MT(""),
     .text = MLIR_GPU_KERNEL("[#rocdl.target<chip = \"gfx90a\", link = [\"extra.bc\"]>]"), .exit = E(IO),
     .msg = "link file extra.bc"},
    {"mlir: unknown pass in --pipeline", MT("-t amdgcn --pipeline convert-scf-to-cf,no-such-pass"),
     .text = MLIR_GPU_KERNEL(""), .exit = E(OPTION)},
    {"mlir: malformed --pipeline", MT("-t amdgcn --pipeline builtin.module("), .text = MLIR_GPU_KERNEL(""),
     .exit = E(OPTION)},
    /* MLIR's own "for the --index-bitwidth option: ..." comes after gpublob's error line */
    {"mlir: a pass option that does not parse", MT("-t amdgcn --pipeline convert-gpu-to-rocdl{index-bitwidth=banana}"),
     .text = MLIR_GPU_KERNEL(""), .exit = E(OPTION), .msg = "index-bitwidth=banana"},
    {"mlir: --pipeline leaving the gpu dialect", MT("-t amdgcn --pipeline convert-scf-to-cf"),
     .text = MLIR_GPU_KERNEL(""), .exit = E(LOWER)},
    {"mlir: --pipeline none on a gpu-dialect body", MT("-t amdgcn --pipeline none"), .text = MLIR_GPU_KERNEL(""),
     .exit = E(LOWER)},
    {"mlir: legacy attach of two blobs under one attribute", MT("--attach legacy -f asm -t nvptx:sm_80,sm_90"),
     .text = MLIR_GPU_KERNEL(""), .exit = E(OPTION)},
    {"mlir: binary attach for spirv (no MLIR attribute)", MT("-t spirv"), .text = MLIR_GPU_KERNEL(""),
     .exit = E(OPTION)},
    {"mlir: undefined function (LINK, before ld.lld --no-undefined)", MT(""),
     .text = MLIR_LLVM_KERNEL("[#rocdl.target<chip = \"gfx90a\">]",
                              "    llvm.func @missing()\n"
                              "    llvm.func @b() attributes {gpu.kernel, rocdl.kernel} {\n"
                              "      llvm.call @missing() : () -> ()\n      llvm.return\n    }\n"),
     .exit = E(LINK), .msg = "'missing'", .needs_rocm = 1},
    {"mlir: nvvm op in a gpu.module for rocdl", MT(""),
     .text = MLIR_LLVM_KERNEL("[#rocdl.target<chip = \"gfx90a\">]",
                              "    llvm.func @b(%p: !llvm.ptr<1>) attributes {gpu.kernel, rocdl.kernel} {\n"
                              "      %t = nvvm.read.ptx.sreg.tid.x : i32\n"
                              "      llvm.store %t, %p : i32, !llvm.ptr<1>\n      llvm.return\n    }\n"),
     .exit = E(TARGET)},
    {"mlir: bytecode garbage", "-t amdgcn @IN", .sfx = ".mlirbc", .gen = gen_mlirbc_garbage, .exit = E(BITCODE)},
    {"mlir: bytecode cut in half", "-t amdgcn @IN", .sfx = ".mlirbc", .gen = gen_mlirbc_cut, .exit = E(BITCODE)},
    {"mlir: bytecode garbage on stdin", "-t amdgcn @STDIN", .gen = gen_mlirbc_garbage, .exit = E(BITCODE)},
};
#define NCASES (sizeof cases / sizeof *cases)

/* ---- running one case ---- */
typedef struct verdict {
  int ran, skipped;
  int rc;       /* exit status; 128 + signal when killed */
  int hung;     /* killed by us after the limit */
  double secs;
  int err_first_ok, err_lines, msg_ok, input_changed;
  int tools_alive, tools_recorded; /* processes the fake tool recorded, still alive when the CLI ended */
  char first[320], extra[400], left[400], why[256];
} verdict;

static verdict *verdicts; /* shared with the workers */
static int ptxas_found;
static char tools_dir[4200], pids_file[4200];

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

static void append(char *buf, size_t size, const char *s) {
  size_t n = strlen(buf), m = strlen(s);
  if (n + m + 2 > size) return;
  if (n) buf[n++] = ' ';
  memcpy(buf + n, s, m + 1);
}

static int is_temp_name(const char *n) {
  return !strncmp(n, "gpublob-", 8) || strstr(n, ".tmp-") || !strncmp(n, "tmpxft", 6);
}

/* Everything under dir, as "relative/path" words, into buf. */
static void walk(const char *dir, const char *rel, char *buf, size_t size, int *count) {
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && (e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char path[4400], r[1200];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    snprintf(r, sizeof r, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
    append(buf, size, r);
    (*count)++;
    struct stat st;
    if (!lstat(path, &st) && S_ISDIR(st.st_mode)) walk(path, r, buf, size, count);
  }
  if (d) closedir(d);
}

typedef struct entry {
  char name[256];
  mode_t type;
} entry;

static int snapshot(const char *dir, entry *list, int max) {
  DIR *d = opendir(dir);
  struct dirent *e;
  int n = 0;
  while (d && (e = readdir(d)) && n < max) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char path[4400];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    snprintf(list[n].name, sizeof list[n].name, "%s", e->d_name);
    list[n++].type = lstat(path, &st) ? 0 : (st.st_mode & S_IFMT);
  }
  if (d) closedir(d);
  return n;
}

static char *expand(const char *w, const char *dir, const char *in) {
  char buf[8400];
  if (!strncmp(w, "@IN", 3)) snprintf(buf, sizeof buf, "%s%s", in, w + 3); /* @IN, @IN/x */
  else if (!strcmp(w, "@OUT")) snprintf(buf, sizeof buf, "%s/out.bin", dir);
  else if (!strcmp(w, "@D")) snprintf(buf, sizeof buf, "%s", dir);
  else if (!strncmp(w, "@D/", 3)) snprintf(buf, sizeof buf, "%s/%s", dir, w + 3);
  else if (!strncmp(w, "@S/", 3)) snprintf(buf, sizeof buf, "%s/%s", scratch(), w + 3);
  else if (!strcmp(w, "@STDIN")) snprintf(buf, sizeof buf, "-");
  else snprintf(buf, sizeof buf, "%s", w);
  return strdup(buf);
}

/* Runs argv with TMPDIR=tmpdir and stdin from stdin_path (or /dev/null), stdout and
** stderr into files; kills its process group after limit seconds. */
static int run_limited(char *const *argv, const char *tmpdir, const char *stdin_path, const char *out_path,
                       const char *err_path, double limit, int *hung, double *secs, const char *pids) {
  double t0 = now();
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    setpgid(0, 0);
    int in = open(stdin_path ? stdin_path : "/dev/null", O_RDONLY);
    int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(in, 0), dup2(out, 1), dup2(err, 2);
    if (tmpdir) setenv("TMPDIR", tmpdir, 1);
    if (pids) setenv("GPUBLOB_TEST_PIDS", pids, 1);
    unsetenv("GPUBLOB_CACHE_DIR");
    execv(argv[0], argv);
    _exit(127);
  }
  setpgid(pid, pid);
  int status = 0;
  *hung = 0;
  for (;;) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) return -1;
    if (now() - t0 > limit) {
      *hung = 1;
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    usleep(5000);
  }
  kill(-pid, SIGKILL); /* what the CLI left in its own process group */
  *secs = now() - t0;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int alive(long pid) { /* a process, not a zombie */
  char p[64], st[512] = "";
  snprintf(p, sizeof p, "/proc/%ld/stat", pid);
  FILE *s = fopen(p, "r");
  if (!s) return 0;
  size_t n = fread(st, 1, sizeof st - 1, s);
  fclose(s);
  st[n] = 0;
  char *paren = strrchr(st, ')');
  return paren && paren[1] && paren[2] != 'Z';
}

/* Processes listed in file still alive; *recorded: how many were listed. */
static int alive_in(const char *file, int *recorded) {
  FILE *f = fopen(file, "r");
  long pid;
  int n = 0;
  *recorded = 0;
  while (f && fscanf(f, "%ld", &pid) == 1) {
    (*recorded)++;
    n += alive(pid);
  }
  if (f) fclose(f);
  return n;
}

/* Kill what the fake tools left running: only pids that are still a sleep or a sh. */
static void kill_strays(const char *file) {
  FILE *f = fopen(file, "r");
  long pid;
  while (f && fscanf(f, "%ld", &pid) == 1) {
    char p[64], cmd[256] = "";
    snprintf(p, sizeof p, "/proc/%ld/cmdline", pid);
    FILE *c = fopen(p, "r");
    if (!c) continue;
    size_t n = fread(cmd, 1, sizeof cmd - 1, c);
    fclose(c);
    cmd[n] = 0;
    if (strstr(cmd, "sleep") || strstr(cmd, "sh")) kill((pid_t)pid, SIGKILL);
  }
  if (f) fclose(f);
}

static int bitcode_accepted(const char *path) {
  const char *argv[] = {LLVM_DIS, path, "-o", "/dev/null", NULL};
  return run(argv, NULL) == 0;
}

/* A build without MLIR (configure --without-mlir) answers an MLIR case NOMLIR, with
** its own message: the case's invariants still hold, and that code stands for its own. */
static int nomlir_answer(const bad_case *c, int rc) {
  return !gpublob_mlir_enabled() && !strncmp(c->name, "mlir: ", 6) && rc == E(NOMLIR);
}

static void run_case(size_t i, verdict *v) {
  const bad_case *c = &cases[i];
  char dir[4200], tmp[4300], in[4300], outf[4300], errf[4300];
  snprintf(dir, sizeof dir, "%s/case%03zu", scratch(), i);
  snprintf(tmp, sizeof tmp, "%s/tmp", dir);
  snprintf(in, sizeof in, "%s/in%s", dir, c->sfx ? c->sfx : ".ll");
  snprintf(outf, sizeof outf, "%s/stdout-%03zu", scratch(), i);
  snprintf(errf, sizeof errf, "%s/stderr-%03zu", scratch(), i);
  mkdir(dir, 0755);
  mkdir(tmp, 0755);
  gen_why[0] = 0;
  int prep = 0;
  if (c->text) prep = spill(in, c->text, strlen(c->text));
  else if (c->gen) prep = c->gen(in);
  if (!prep && c->setup) prep = c->setup(dir);
  if (prep) {
    v->skipped = 1;
    snprintf(v->why, sizeof v->why, "%s", *gen_why ? gen_why : "could not write the input");
    return;
  }
  if (c->needs_ptxas && !ptxas_found) {
    v->skipped = 1;
    snprintf(v->why, sizeof v->why, "CUDA toolkit (ptxas) not found");
    return;
  }
  if ((c->needs_rocm || (strstr(c->args, AM) && (c->exit == E(TOOL) || c->exit == E(LINK) || c->exit == E(IO)))) &&
      !have_rocm_bitcode()) {
    v->skipped = 1;
    snprintf(v->why, sizeof v->why, "ROCm's device libraries not found (ocml.bc in '%s')", ROCM_BITCODE);
    return;
  }
  if (c->needs_ld_lld && !have_program(LD_LLD)) {
    v->skipped = 1;
    snprintf(v->why, sizeof v->why, "the ld.lld program not found (lld-22)");
    return;
  }
  if (c->bitcode_check && bitcode_accepted(in)) {
    v->skipped = 1;
    snprintf(v->why, sizeof v->why, "llvm-dis accepts this mutation: not a bad input");
    return;
  }
  size_t in_n = 0;
  unsigned char *in_before = (c->text || c->gen) ? slurp(in, &in_n) : NULL;
  entry before[64];
  int nbefore = snapshot(dir, before, 64);

  char *argv[128];
  int n = 0, has_o = 0, stdin_in = 0, no_out = 0;
  if (c->wrap) {
    static char script[512];
    snprintf(script, sizeof script, "%s; exec \"$0\" \"$@\"", c->wrap);
    argv[n++] = strdup("/bin/sh");
    argv[n++] = strdup("-c");
    argv[n++] = strdup(script);
  }
  argv[n++] = strdup(CLI);
  argv[n++] = strdup("--no-cache");
  char *words = strdup(c->args);
  for (char *save, *w = strtok_r(words, " ", &save); w && n < 120; w = strtok_r(NULL, " ", &save)) {
    if (!strcmp(w, "@NOOUT")) {
      no_out = 1;
      continue;
    }
    if (!strcmp(w, "-o")) has_o = 1;
    if (!strcmp(w, "@STDIN")) stdin_in = 1;
    argv[n++] = expand(w, dir, in);
  }
  free(words);
  if (!has_o && !no_out) {
    argv[n++] = strdup("-o");
    argv[n++] = expand("@OUT", dir, in);
  }
  argv[n] = NULL;
  char pids[4300];
  snprintf(pids, sizeof pids, "%s/pids-%03zu", scratch(), i);
  v->rc = run_limited(argv, tmp, stdin_in ? in : NULL, outf, errf, c->limit > 0 ? c->limit : 20, &v->hung,
                      &v->secs, pids);
  usleep(c->tools_dead ? 200000 : 0); /* a killed group's last member may still be on its way out */
  v->tools_alive = alive_in(pids, &v->tools_recorded);
  kill_strays(pids);
  for (int k = 0; k < n; k++) free(argv[k]);
  v->ran = 1;

  /* stderr */
  size_t en = 0;
  char *err = (char *)slurp(errf, &en);
  if (!err) err = strdup("");
  const char *nl = strchr(err, '\n');
  snprintf(v->first, sizeof v->first, "%.*s", (int)(nl ? nl - err : (long)strlen(err)), err);
  v->err_first_ok = !strncmp(err, "gpublob: error: ", 16);
  v->err_lines = 0;
  for (const char *p = err; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
    if (!strncmp(p, "gpublob: error:", 15)) v->err_lines++;
  v->msg_ok = !c->msg || contains(err, c->msg) || nomlir_answer(c, v->rc);
  free(err);

  /* the case's directory: only what was there before, unchanged */
  entry after[64];
  int nafter = snapshot(dir, after, 64);
  for (int a = 0; a < nafter; a++) {
    int found = -1;
    for (int b = 0; b < nbefore; b++)
      if (!strcmp(after[a].name, before[b].name)) found = b;
    if (!strcmp(after[a].name, "tmp")) continue;
    if (found < 0) append(is_temp_name(after[a].name) ? v->left : v->extra, sizeof v->extra, after[a].name);
    else if (after[a].type != before[found].type) {
      char what[sizeof before[0].name + 32];
      snprintf(what, sizeof what, "%.200s(replaced:type-changed)", after[a].name);
      append(v->extra, sizeof v->extra, what);
    }
  }
  for (int b = 0; b < nbefore; b++) {
    int found = 0;
    for (int a = 0; a < nafter; a++) found |= !strcmp(after[a].name, before[b].name);
    if (!found) {
      char what[sizeof before[0].name + 32];
      snprintf(what, sizeof what, "%.200s(removed)", before[b].name);
      append(v->extra, sizeof v->extra, what);
    }
  }
  int count = 0;
  char inside[400] = "";
  walk(tmp, "", inside, sizeof inside, &count);
  if (count) {
    char what[420];
    snprintf(what, sizeof what, "TMPDIR:[%s]", inside);
    append(v->left, sizeof v->left, what);
  }
  if (in_before) {
    size_t now_n = 0;
    unsigned char *in_now = slurp(in, &now_n);
    v->input_changed = !in_now || now_n != in_n || memcmp(in_now, in_before, in_n);
    free(in_now);
    free(in_before);
  }
}

/* ---- fixtures ---- */
static void write_tools(void) {
  snprintf(tools_dir, sizeof tools_dir, "%s/tools", scratch());
  snprintf(pids_file, sizeof pids_file, "%s/pids", scratch());
  mkdir(tools_dir, 0755);
  for (size_t i = 0; i < sizeof tools / sizeof *tools; i++) {
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", tools_dir, tools[i].name);
    const char *body = tools[i].body ? tools[i].body : "#!/bin/sh\nexit 0\n";
    /* @PIDS and @S in a body: the pids file, the scratch directory */
    char text[8192];
    size_t n = 0;
    for (const char *p = body; *p && n + 4200 < sizeof text;) {
      const char *with = !strncmp(p, "@PIDS", 5) ? pids_file : !strncmp(p, "@S", 2) ? scratch() : NULL;
      if (with) {
        n += (size_t)snprintf(text + n, sizeof text - n, "%s", with);
        p += with == pids_file ? 5 : 2;
      } else text[n++] = *p++;
    }
    text[n] = 0;
    spill(path, text, strlen(text));
    chmod(path, tools[i].body ? 0755 : 0644);
  }
}

static void make_lib_dirs(void) {
  const char *dirs[] = {"bad-ocml", "empty-ocml", "bad-libdevice", "ptxas-only", "lld-only", "bundler-exit1",
                        "bundler-garbage", "only-ocml"};
  char path[4400], target[4400];
  for (int i = 0; i < 8; i++) {
    snprintf(path, sizeof path, "%s/%s", scratch(), dirs[i]);
    mkdir(path, 0755);
  }
  DIR *d = opendir(ROCM_BC);
  struct dirent *e;
  while (d && (e = readdir(d))) {
    if (!strstr(e->d_name, ".bc") || !strcmp(e->d_name, "ocml.bc")) continue;
    snprintf(target, sizeof target, "%s/%s", ROCM_BC, e->d_name);
    for (int i = 0; i < 2; i++) {
      snprintf(path, sizeof path, "%s/%s/%s", scratch(), dirs[i], e->d_name);
      if (symlink(target, path)) {}
    }
  }
  if (d) closedir(d);
  snprintf(path, sizeof path, "%s/only-ocml/ocml.bc", scratch());
  if (symlink(ROCM_BC "/ocml.bc", path)) {}
  snprintf(path, sizeof path, "%s/bad-ocml/ocml.bc", scratch());
  spill(path, "BC\xc0\xde garbage, not a library", sizeof "BC\xc0\xde garbage, not a library" - 1);
  snprintf(path, sizeof path, "%s/empty-ocml/ocml.bc", scratch());
  spill(path, "", 0);
  snprintf(path, sizeof path, "%s/bad-libdevice/libdevice.10.bc", scratch());
  spill(path, "BC\xc0\xde garbage, not libdevice", 28);
  snprintf(path, sizeof path, "%s/lld-only/ld.lld", scratch());
  if (symlink(LLVM_BINDIR "/ld.lld", path)) {}
  for (int i = 5; i < 7; i++) { /* a pack program of that name, as the spec's pack_tool names it */
    snprintf(target, sizeof target, "%s/%s", tools_dir, dirs[i]);
    snprintf(path, sizeof path, "%s/%s/clang-offload-bundler", scratch(), dirs[i]);
    if (symlink(target, path)) {}
  }
  gpublob *g;
  char ptxas[4096];
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = "nvptx"};
  if (!gpublob_open(&g)) {
    if (!tool_path(g, &o, ptxas, sizeof ptxas)) {
      snprintf(path, sizeof path, "%s/ptxas-only/ptxas", scratch());
      if (symlink(ptxas, path)) {}
    }
    gpublob_close(g);
  }
}

/* ---- the table, on two workers, then the checks in order ---- */
static void run_table(void) {
  verdicts = mmap(NULL, NCASES * sizeof *verdicts, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (verdicts == MAP_FAILED) {
    perror("mmap");
    exit(2);
  }
  memset(verdicts, 0, NCASES * sizeof *verdicts);
  const int workers = 2;
  pid_t pids[2];
  double t0 = now();
  for (int w = 0; w < workers; w++) {
    if ((pids[w] = fork()) == 0) {
      for (size_t i = (size_t)w; i < NCASES; i += (size_t)workers) run_case(i, &verdicts[i]);
      _exit(0);
    }
  }
  for (int w = 0; w < workers; w++) waitpid(pids[w], NULL, 0);
  double wall = now() - t0;

  char crash[8192] = "", hang[8192] = "", wrong[16384] = "", extra[8192] = "", left[8192] = "",
       stderr_fmt[8192] = "", msgs[8192] = "", strays[4096] = "";
  int ran = 0, skipped = 0, inv_ok = 0, code_ok = 0, all_ok = 0;
  int verbose = getenv("TEST_BAD_VERBOSE") != NULL; /* every case's exit, time and first line */
  for (size_t i = 0; i < NCASES; i++) {
    const bad_case *c = &cases[i];
    verdict *v = &verdicts[i];
    char name[400], quoted[420];
    snprintf(quoted, sizeof quoted, "'%s'", c->name);
    if (v->skipped || !v->ran) {
      snprintf(name, sizeof name, "bad %s", c->name);
      skip(name, v->skipped ? v->why : "did not run");
      skipped++;
      continue;
    }
    ran++;
    int crashed = v->rc >= 128 || v->rc < 0, stderr_ok = v->err_first_ok && v->err_lines == 1;
    int tools_ok = !c->tools_dead || v->tools_alive == 0; /* that the tool ran at all, the code shows */
    int inv = !crashed && !v->hung && v->rc >= 1 && stderr_ok && !*v->extra && !*v->left && !v->input_changed &&
              tools_ok;
    int code = v->rc == c->exit || (c->alt && v->rc == c->alt) || nomlir_answer(c, v->rc);
#define INVARIANT(what) snprintf(name, sizeof name, "bad[invariant: %s] %s", what, c->name)
    INVARIANT("exit 1-127");
    check(v->rc >= 1 && v->rc <= 127, name, "exit %d%s%s (%.1f s): %s", v->rc, crashed && !v->hung ? " CRASH" : "",
          v->hung ? " HANG (killed)" : "", v->secs, v->first);
    INVARIANT("finishes");
    check(!v->hung, name, "HANG: killed after %.1f s (exit %d)", v->secs, v->rc);
    INVARIANT("error first");
    check(v->err_first_ok, name, "exit %d; stderr first line '%s'", v->rc, v->first);
    INVARIANT("one error line");
    check(v->err_lines == 1, name, "exit %d; %d error lines; first '%s'", v->rc, v->err_lines, v->first);
    INVARIANT("no output");
    check(!*v->extra, name, "exit %d; extra [%s]", v->rc, v->extra);
    INVARIANT("input unchanged");
    check(!v->input_changed, name, "exit %d; the input was changed", v->rc);
    INVARIANT("no temporary");
    check(!*v->left, name, "exit %d; left [%s]", v->rc, v->left);
    if (c->tools_dead) {
      INVARIANT("tools gone");
      check(v->tools_alive == 0, name, "exit %d; %d of the %d tool processes it recorded still alive", v->rc,
            v->tools_alive, v->tools_recorded);
    }
#undef INVARIANT
    snprintf(name, sizeof name, "bad[code] %s", c->name);
    char alt[32] = "";
    if (c->alt) snprintf(alt, sizeof alt, " or %d", c->alt);
    check(code, name, "exit %d, want %d%s: %s", v->rc, c->exit, alt, v->first);
    if (c->msg) {
      snprintf(name, sizeof name, "bad[msg] %s", c->name);
      check(v->msg_ok, name, "stderr lacks '%s': %s", c->msg, v->first);
      if (!v->msg_ok) append(msgs, sizeof msgs, quoted);
    }
    if (verbose) printf("case %-70s exit %3d %5.2f s  %s\n", c->name, v->rc, v->secs, v->first);
    inv_ok += inv;
    code_ok += code;
    all_ok += inv && code && v->msg_ok;
    char item[600];
    if (v->hung) append(hang, sizeof hang, quoted);
    else if (crashed) {
      snprintf(item, sizeof item, "%s(%d)", quoted, v->rc);
      append(crash, sizeof crash, item);
    } else if (!code) {
      snprintf(item, sizeof item, "%s(%d!=%d)", quoted, v->rc, c->exit);
      append(wrong, sizeof wrong, item);
    }
    if (*v->extra || v->input_changed) append(extra, sizeof extra, quoted);
    if (*v->left) append(left, sizeof left, quoted);
    if (!tools_ok) append(strays, sizeof strays, quoted);
    if (!stderr_ok && !crashed && !v->hung) append(stderr_fmt, sizeof stderr_fmt, quoted);
  }
  printf("summary: %zu cases, %d ran, %d skipped, %.1f s on %d workers\n", NCASES, ran, skipped, wall, workers);
  printf("summary: %d keep the invariant, %d get the expected code, %d pass entirely\n", inv_ok, code_ok, all_ok);
  printf("summary: crash (exit >= 128): %s\n", *crash ? crash : "none");
  printf("summary: hang: %s\n", *hang ? hang : "none");
  printf("summary: wrong code: %s\n", *wrong ? wrong : "none");
  printf("summary: extra output: %s\n", *extra ? extra : "none");
  printf("summary: leftover files: %s\n", *left ? left : "none");
  printf("summary: tool processes left running: %s\n", *strays ? strays : "none");
  printf("summary: stderr not one 'gpublob: error:' line first: %s\n", *stderr_fmt ? stderr_fmt : "none");
  printf("summary: message lacks its part: %s\n", *msgs ? msgs : "none");
}

/* ---- calls outside the table ---- */
typedef struct outcome {
  int rc, hung;
  double secs;
  char *err;
} outcome;

static outcome cli(const char *const *args, const char *tmpdir, double limit) {
  char *argv[64];
  int n = 0;
  argv[n++] = CLI;
  argv[n++] = "--no-cache";
  for (; *args && n < 62; args++) argv[n++] = (char *)*args;
  argv[n] = NULL;
  outcome o = {0};
  const char *outf = tmp_path("extra-stdout"), *errf = tmp_path("extra-stderr");
  o.rc = run_limited(argv, tmpdir, NULL, outf, errf, limit, &o.hung, &o.secs, NULL);
  o.err = (char *)slurp(errf, NULL);
  if (!o.err) o.err = strdup("");
  return o;
}

static const char *fresh_dir(const char *name) {
  const char *p = tmp_path(name);
  mkdir(p, 0755);
  return p;
}

static int dir_empty(const char *dir) {
  int count = 0;
  char buf[400] = "";
  walk(dir, "", buf, sizeof buf, &count);
  return count == 0;
}

/* -o onto a character device writes into it and leaves it a device.  Not the real
** /dev/null: as root, a CLI that renames a temporary onto its output would replace
** the system's /dev/null; a device node of the same kind made here shows the same. */
static void test_device_output(void) {
  const char *tmp = fresh_dir("dev-tmp"), *dev = tmp_path("null-device");
  const char *name = "extra: -o onto a character device (as /dev/null) leaves it a character device";
  if (mknod(dev, S_IFCHR | 0666, makedev(1, 3))) {
    if (geteuid() == 0) {
      skip(name, "cannot mknod, and as root -o /dev/null could replace the real one");
      return;
    }
    dev = "/dev/null"; /* not root: the CLI cannot replace it */
  }
  const char *args[] = {"-f", "asm", "-o", dev, NV, NULL};
  outcome o = cli(args, tmp, 20);
  struct stat st;
  int is_chr = !stat(dev, &st) && S_ISCHR(st.st_mode);
  char label[300];
#define PART(what) (snprintf(label, sizeof label, "%s: %s", name, what), label)
  check(o.rc == 0, PART("exit 0"), "exit %d: %s", o.rc, o.err);
  check(is_chr, name, "no longer a character device");
  check(leftovers(scratch(), "null-device.tmp-") == 0, PART("no temporary beside it"), "%d left",
        leftovers(scratch(), "null-device.tmp-"));
  check(dir_empty(tmp), PART("TMPDIR empty"), NULL);
#undef PART
  free(o.err);
  if (!is_chr && strcmp(dev, "/dev/null")) unlink(dev);
}

/* -o onto a FIFO writes into it: a reader at the other end gets the PTX. */
static void test_fifo_output(void) {
  const char *tmp = fresh_dir("fifo-tmp"), *fifo = tmp_path("out.fifo"), *got = tmp_path("fifo-got");
  const char *name = "extra: -o onto a FIFO writes into it (a reader gets the PTX; still a FIFO)";
  if (mkfifo(fifo, 0644)) {
    skip(name, "mkfifo failed");
    return;
  }
  pid_t reader = fork();
  if (reader == 0) {
    alarm(30);
    int in = open(fifo, O_RDONLY), out = open(got, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    char buf[4096];
    for (ssize_t r; in >= 0 && (r = read(in, buf, sizeof buf)) > 0;)
      if (write(out, buf, (size_t)r) != r) break;
    _exit(0);
  }
  const char *args[] = {"-f", "asm", "-o", fifo, NV, NULL};
  outcome o = cli(args, tmp, 15);
  struct stat st;
  int is_fifo = !stat(fifo, &st) && S_ISFIFO(st.st_mode);
  /* a reader still waiting (the FIFO was replaced) is let go */
  int wfd = is_fifo ? open(fifo, O_WRONLY | O_NONBLOCK) : -1;
  if (wfd >= 0) close(wfd);
  usleep(100000);
  kill(reader, SIGKILL);
  waitpid(reader, NULL, 0);
  char *ptx = (char *)slurp(got, NULL);
  char label[300];
#define PART(what) (snprintf(label, sizeof label, "%s: %s", name, what), label)
  check(o.rc == 0, PART("exit 0"), "exit %d: %s", o.rc, o.err);
  check(is_fifo, PART("still a FIFO"), NULL);
  check(contains(ptx, ".entry saxpy"), name, "reader got %zu bytes", ptx ? strlen(ptx) : 0);
  check(leftovers(scratch(), "out.fifo.tmp-") == 0, PART("no temporary beside it"), "%d left",
        leftovers(scratch(), "out.fifo.tmp-"));
#undef PART
  free(ptx);
  free(o.err);
}

/* The CLI compiling saxpy with the fake tool that sleeps (tools/slow), TMPDIR=tmp, its
** output out, in a process group of its own, returned once the tool runs (it has
** written its pids to slow_pids: this scratch's slow-pids); *t0 when it started. */
static pid_t start_slow_call(const char *tmp, const char *out, char *slow_pids, size_t n, double *t0) {
  char slow[4400];
  snprintf(slow, sizeof slow, "%s/slow", tools_dir);
  snprintf(slow_pids, n, "%s/slow-pids", scratch());
  unlink(slow_pids);
  *t0 = now();
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    int null = open("/dev/null", O_RDWR);
    dup2(null, 0), dup2(null, 1), dup2(null, 2);
    setenv("TMPDIR", tmp, 1);
    execl(CLI, CLI, "--no-cache", "--tool", slow, "-t", "amdgcn", AM, "-o", out, (char *)NULL);
    _exit(127);
  }
  while (now() - *t0 < 15 && !exists(slow_pids)) usleep(10000);
  usleep(300000);
  return pid;
}

/* --job-timeout: a kernel whose code generation takes seconds (a chain of 1,800 loads,
** adds and stores the scheduler weighs against each other).  Isolated, its process is
** killed at the limit; in the calling process it stops at the end of the phase. */
static void test_job_timeout(void) {
  const char *ll = tmp_path("slow.ll"), *out = tmp_path("slow.hsaco");
  FILE *f = fopen(ll, "w");
  if (!f) {
    check(0, "job timeout: the slow kernel written", "%s", ll);
    return;
  }
  fprintf(f, "target triple = \"amdgcn-amd-amdhsa\"\ndefine amdgpu_kernel void @slow(ptr addrspace(1) %%p) {\n"
             "  %%x0 = load float, ptr addrspace(1) %%p\n");
  for (int i = 1; i < 1800; i++)
    fprintf(f, "  %%q%d = getelementptr float, ptr addrspace(1) %%p, i64 %d\n  %%y%d = load float, ptr addrspace(1) "
               "%%q%d\n  %%x%d = fadd float %%x%d, %%y%d\n  store float %%x%d, ptr addrspace(1) %%q%d\n",
            i, i, i, i, i, i - 1, i, i, i);
  fprintf(f, "  ret void\n}\n");
  fclose(f);
  static const char *const modes[] = {"--isolate", "--no-isolate"};
  for (int m = 0; m < 2; m++) {
    char *err = NULL, name[200];
    unlink(out);
    const char *argv[] = {CLI, "--no-cache", modes[m], "--job-timeout", "1", "-t", "amdgcn:gfx90a", ll, "-o", out, NULL};
    double t0 = now();
    int rc = run(argv, &err);
    double secs = now() - t0;
    snprintf(name, sizeof name, "job timeout, %s: BACKEND naming the limit, no output", modes[m]);
    check(rc == E(BACKEND) && contains(err, "job timeout (1 s") && !exists(out) &&
              !strncmp(err ? err : "", "gpublob: error: ", 16),
          name, "exit %d after %.1f s: %s", rc, secs, shown(err));
    /* a job with a timeout runs isolated, asked or not: killed at the limit both ways */
    snprintf(name, sizeof name, "job timeout, %s: killed at the limit, isolated", modes[m]);
    check(secs < 6 && contains(err, "isolated process was killed"), name, "%.1f s: %s", secs, shown(err));
    free(err);
  }
}

/* This process's start time, /proc/self/stat's field 22, as the library names its
** private directories (gpublob-PID-START-XXXXXX). */
static unsigned long long own_start_time(void) {
  char buf[1024] = "";
  FILE *f = fopen("/proc/self/stat", "r");
  size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
  if (f) fclose(f);
  buf[n] = 0;
  char *p = strrchr(buf, ')');
  for (int field = 2; p && field < 22; field++) p = strchr(p + 1, ' ');
  return p ? strtoull(p + 1, NULL, 10) : 0;
}

/* A pid that ran and is gone. */
static long gone_pid(void) {
  pid_t pid = fork();
  if (pid == 0) _exit(0);
  waitpid(pid, NULL, 0);
  return (long)pid;
}

/* A call killed with SIGKILL leaves its private directory; the next call's first
** directory sweeps it, and every stale one whose maker is gone (or whose pid now runs
** a process that started at another time), never a live maker's, another user's, a
** link, or a name of another shape. */
static void test_stale_dirs(void) {
  /* a killed call of saxpy (ocml), then one that runs the ld.lld program */
  if (!need_rocm("stale: private directories of killed calls are swept")) return;
  if (!have_program(LD_LLD)) {
    skip("stale: private directories of killed calls are swept", "the ld.lld program not found (lld-22)");
    return;
  }
  const char *tmp = fresh_dir("stale-tmp"), *out = tmp_path("stale.hsaco");
  char slow_pids[4400], path[4600];
  double t0;
  pid_t pid = start_slow_call(tmp, out, slow_pids, sizeof slow_pids, &t0);
  kill(pid, SIGKILL); /* the CLI alone: nothing of it runs to clean up */
  waitpid(pid, NULL, 0);
  FILE *f = fopen(slow_pids, "r");
  long p;
  while (f && fscanf(f, "%ld", &p) == 1) kill((pid_t)p, SIGKILL);
  if (f) fclose(f);
  check(leftovers(tmp, "gpublob-") == 1, "stale: a call killed with SIGKILL leaves its directory", "%d in %s",
        leftovers(tmp, "gpublob-"), tmp);
  long dead = gone_pid();
  unsigned long long start = own_start_time();
  struct { const char *fmt; int stays; } dirs[] = {
      {"gpublob-%ld-12345-abcdef", 0},  /* its maker is gone */
      {"gpublob-%ld-1-abcdeg", 0},      /* this pid, another start: a reused pid */
      {"gpublob-%ld-%llu-livexx", 1},   /* this process: live */
      {"gpublob-%ld-7-otheru", 1},      /* another user's */
      {"gpublob-abcdef", 1},            /* another shape (1.0's names) */
      {"gpublob-%ld-9-abcdef-x", 1},    /* another shape */
  };
  char made[6][4400];
  for (size_t i = 0; i < 6; i++) {
    long who = i == 1 || i == 2 ? (long)getpid() : dead;
    char name[128];
    snprintf(name, sizeof name, dirs[i].fmt, who, start);
    snprintf(made[i], sizeof made[i], "%s/%s", tmp, name);
    mkdir(made[i], 0700);
    snprintf(path, sizeof path, "%.4400s/in.o", made[i]);
    spill(path, "x", 1);
    if (i == 3 && chown(made[i], 65534, 65534)) check(0, "stale: chown for another user's directory", "%s", made[i]);
  }
  /* a directory a live maker holds (its flock: a process in another PID namespace, or one
     /proc cannot show), named for a pid that is gone here */
  char held[4400];
  snprintf(held, sizeof held, "%s/gpublob-%ld-77-heldxx", tmp, dead);
  mkdir(held, 0700);
  int held_fd = open(held, O_RDONLY | O_DIRECTORY);
  if (held_fd < 0 || flock(held_fd, LOCK_EX)) check(0, "stale: a held directory", "%s", held);
  char link[4400], target[4400];
  snprintf(target, sizeof target, "%s/keep", tmp);
  mkdir(target, 0700);
  snprintf(link, sizeof link, "%s/gpublob-%ld-3-linkxx", tmp, dead);
  if (symlink(target, link)) check(0, "stale: a link named so", "%s", link);
  char *err = NULL;
  const char *argv[] = {CLI, "--no-cache", "--tool-mode", "program", "-t", "amdgcn", AM, "-o", out, NULL};
  setenv("TMPDIR", tmp, 1);
  int rc = run(argv, &err);
  unsetenv("TMPDIR");
  check(rc == 0, "stale: the next call compiles", "exit %d: %s", rc, shown(err));
  free(err);
  int killed_left = 0;
  DIR *d = opendir(tmp);
  struct dirent *e;
  while (d && (e = readdir(d))) {
    long who;
    unsigned long long st;
    char tail[16];
    if (sscanf(e->d_name, "gpublob-%ld-%llu-%15s", &who, &st, tail) == 3 && who == (long)pid) killed_left++;
  }
  if (d) closedir(d);
  check(killed_left == 0, "stale: the next call sweeps the killed call's directory", "%d left in %s", killed_left,
        tmp);
  for (size_t i = 0; i < 6; i++) {
    struct stat st;
    int there = !lstat(made[i], &st);
    check(there == dirs[i].stays, dirs[i].stays ? "stale: a directory that is not stale stays"
                                                : "stale: a dead maker's directory goes",
          "%s %s", made[i], there ? "is there" : "is gone");
  }
  struct stat st;
  check(!lstat(link, &st) && S_ISLNK(st.st_mode) && exists(target), "stale: a link named so stays, and its target",
        "%s", link);
  check(!lstat(held, &st) && S_ISDIR(st.st_mode), "stale: a directory its maker still holds (flock) stays", "%s",
        held);
  if (held_fd >= 0) close(held_fd);
}

/* SIGINT / SIGTERM to the CLI while its tool runs: the tool is killed, nothing is left. */
static void test_signal(int sig, const char *signame) {
  char name[200], tmpname[64], outname[64], pidsname[64];
  snprintf(name, sizeof name, "extra: %s to the CLI while its tool runs kills the tool, leaves nothing", signame);
  if (!need_rocm(name)) return; /* the tool runs after saxpy's ocml is linked */
  snprintf(tmpname, sizeof tmpname, "sig-tmp-%d", sig);
  snprintf(outname, sizeof outname, "sig-out-%d.hsaco", sig);
  const char *tmp = fresh_dir(tmpname), *out = tmp_path(outname);
  char slow_pids[4400];
  snprintf(pidsname, sizeof pidsname, "%s", "slow-pids");
  double t0;
  pid_t pid = start_slow_call(tmp, out, slow_pids, sizeof slow_pids, &t0); /* once the tool runs */
  kill(pid, sig); /* the CLI alone */
  int status = 0, done = 0;
  while (now() - t0 < 25 && !(done = waitpid(pid, &status, WNOHANG) == pid)) usleep(10000);
  if (!done) {
    kill(-pid, SIGKILL);
    waitpid(pid, &status, 0);
  }
  usleep(200000);
  int alive = 0;
  FILE *f = fopen(slow_pids, "r");
  long p;
  while (f && fscanf(f, "%ld", &p) == 1) {
    char procp[64], st[512] = "";
    snprintf(procp, sizeof procp, "/proc/%ld/stat", p);
    FILE *s = fopen(procp, "r");
    if (s) {
      size_t n = fread(st, 1, sizeof st - 1, s);
      st[n] = 0;
      fclose(s);
      char *close_paren = strrchr(st, ')');
      if (close_paren && close_paren[2] != 'Z') alive++;
    }
  }
  if (f) fclose(f);
  int rc = exit_code(status);
  int by_signal = WIFSIGNALED(status) && WTERMSIG(status) == sig;
  char label[300];
#define PART(what) (snprintf(label, sizeof label, "%s: %s", name, what), label)
  check(done, PART("the CLI ends"), "still running after 25 s");
  check(alive == 0, PART("the tool is killed"), "tool processes alive %d", alive);
  check(!exists(out), PART("no output"), "%s is there", out);
  check(leftovers(scratch(), "sig-out-") == 0, PART("no temporary beside the output"), "%d left",
        leftovers(scratch(), "sig-out-"));
  check(dir_empty(tmp), PART("TMPDIR empty"), NULL);
  check(rc == 10 + GPUBLOB_INTERRUPTED, PART("exit 31 (INTERRUPTED)"), "status %d", rc);
  check(!by_signal, name, "the CLI died of the signal (status %d)", rc);
#undef PART
  kill_strays(slow_pids);
}

/* A tool that leaves a child holding its stdout does not hang a good compile. */
static void test_tool_child_good(void) {
  const char *tmp = fresh_dir("child-tmp"), *out = tmp_path("child.hsaco");
  char tool[4400];
  snprintf(tool, sizeof tool, "%s/lld-child-holds-stdout", tools_dir);
  if (!need_rocm("extra: a good tool leaving a child that holds stdout does not hang the CLI")) return;
  if (!have_program(LD_LLD)) {
    skip("extra: a good tool leaving a child that holds stdout does not hang the CLI",
         "the tool runs the ld.lld program, not found (lld-22)");
    return;
  }
  const char *args[] = {"--tool", tool, "-t", "amdgcn", AM, "-o", out, NULL};
  outcome o = cli(args, tmp, 15);
  size_t n = 0;
  unsigned char *b = slurp(out, &n);
#define CHILD "extra: a good tool leaving a child that holds stdout does not hang the CLI"
  check(o.rc == 0, CHILD ": exit 0", "exit %d: %s", o.rc, o.err);
  check(!o.hung, CHILD ": not killed at the limit", "%.1f s", o.secs);
  check(o.secs < 10, CHILD, "%.1f s", o.secs);
  check(n > 4, CHILD ": an output of more than 4 bytes", "output %zu bytes", n);
  check(is_elf(b, n), CHILD ": the output is an ELF", "output %zu bytes", n);
  check(dir_empty(tmp), CHILD ": TMPDIR empty", NULL);
#undef CHILD
  free(b);
  free(o.err);
}

/* The tool gets a private TMPDIR under the caller's, removed afterwards with what is in it. */
static void test_tool_tmpdir(void) {
  const char *tmp = fresh_dir("tooltmp-tmp"), *out = tmp_path("tooltmp.hsaco"), *seen = tmp_path("tool-tmpdir");
  char tool[4400];
  snprintf(tool, sizeof tool, "%s/lld-record-tmpdir", tools_dir);
  if (!need_rocm("extra: the tool's TMPDIR is a private directory under TMPDIR, removed afterwards")) return;
  if (!have_program(LD_LLD)) {
    skip("extra: the tool's TMPDIR is a private directory under TMPDIR, removed afterwards",
         "the tool runs the ld.lld program, not found (lld-22)");
    return;
  }
  unlink(seen);
  const char *args[] = {"--tool", tool, "-t", "amdgcn", AM, "-o", out, NULL};
  outcome o = cli(args, tmp, 15);
  char *dir = (char *)slurp(seen, NULL);
  if (dir && strchr(dir, '\n')) *strchr(dir, '\n') = 0;
  size_t tl = strlen(tmp);
  int private = dir && !strncmp(dir, tmp, tl) && dir[tl] == '/' && dir[tl + 1];
#define PRIV "extra: the tool's TMPDIR is a private directory under TMPDIR, removed afterwards"
  check(o.rc == 0, PRIV ": exit 0", "exit %d: %s", o.rc, o.err);
  check(private, PRIV, "tool saw TMPDIR='%s' (ours %s)", dir ? dir : "", tmp);
  check_if(dir, !exists(dir), PRIV ": removed", "%s is still there", dir);
  check(dir_empty(tmp), PRIV ": TMPDIR empty", NULL);
#undef PRIV
  free(dir);
  free(o.err);
}

/* A bin blob with no entry point is a warning, not an error. */
static void test_no_entry_point(void) {
  const char *tmp = fresh_dir("noentry-tmp"), *in = tmp_path("noentry.ll"), *out = tmp_path("noentry.hsaco");
  static const char text[] = AMT "define void @helper(ptr addrspace(1) %p) {\n  store i32 1, ptr addrspace(1) %p\n"
                                 "  ret void\n}\n";
  spill(in, text, sizeof text - 1);
  const char *args[] = {"-t", "amdgcn", in, "-o", out, NULL};
  outcome o = cli(args, tmp, 20);
#define NOENTRY "extra: a bin blob with no entry point is a warning, not an error"
  check(o.rc == 0, NOENTRY, "exit %d: %s", o.rc, o.err);
  check(exists(out), NOENTRY ": the output is written", "no %s", out);
  check(contains(o.err, "gpublob: warning:"), NOENTRY ": a warning", "%s", o.err);
  check(dir_empty(tmp), NOENTRY ": TMPDIR empty", NULL);
#undef NOENTRY
  free(o.err);
}

/* Several top-level ops without a module are wrapped, as mlir-opt does. */
static void test_mlir_wrapped(void) {
  if (!gpublob_mlir_enabled()) {
    skip("extra: MLIR: two top-level gpu.modules without a module are wrapped", "built without MLIR");
    return;
  }
  const char *tmp = fresh_dir("wrap-tmp"), *in = tmp_path("two.mlir"), *out = tmp_path("two.out.mlir");
  static const char text[] =
      "gpu.module @one [#rocdl.target<chip = \"gfx90a\">] {\n" ROCDL_A "}\n"
      "gpu.module @two [#rocdl.target<chip = \"gfx90a\">] {\n" ROCDL_A "}\n";
  spill(in, text, sizeof text - 1);
  const char *args[] = {"-f", "asm", in, "-o", out, NULL};
  outcome o = cli(args, tmp, 20);
  char *b = (char *)slurp(out, NULL);
#define WRAP "extra: MLIR: two top-level gpu.modules without a module are wrapped"
  check(o.rc == 0, WRAP ": exit 0", "exit %d: %s", o.rc, o.err);
  check(contains(b, "gpu.binary @one"), WRAP ": gpu.binary @one", "%.300s", b ? b : "(no output)");
  check(contains(b, "gpu.binary @two"), WRAP ": gpu.binary @two", "%.300s", b ? b : "(no output)");
#undef WRAP
  free(b);
  free(o.err);
}

/* #gpu.select_object<1> after -t leaves one object: refused (OPTION) or kept valid. */
static void test_select_object(void) {
  if (!gpublob_mlir_enabled()) {
    skip("extra: MLIR: #gpu.select_object past the objects after -t", "built without MLIR");
    return;
  }
  const char *tmp = fresh_dir("sel-tmp"), *in = tmp_path("sel.mlir"), *out = tmp_path("sel.out.mlir");
  static const char text[] =
      MLIR_GPU_KERNEL("<#gpu.select_object<1>> [#nvvm.target<chip = \"sm_90\">, #rocdl.target<chip = \"gfx90a\">]");
  spill(in, text, sizeof text - 1);
  const char *args[] = {"-t", "amdgcn", "-f", "asm", in, "-o", out, NULL};
  outcome o = cli(args, tmp, 20);
  char *b = (char *)slurp(out, NULL);
  /* kept valid: the handler (if any) selects an object the gpu.binary has */
  int objects = 0;
  long index = 0;
  for (const char *p = b; p && (p = strstr(p, "#gpu.object<")); p++) objects++;
  const char *sel = b ? strstr(b, "select_object<") : NULL;
  if (sel) index = strtol(sel + strlen("select_object<"), NULL, 10);
#define SEL "extra: MLIR: #gpu.select_object<1> past the objects after -t is refused or kept valid"
  check(o.rc == E(OPTION) || o.rc == 0, SEL, "exit %d: %s", o.rc, o.err);
  if (o.rc == E(OPTION)) { /* refused */
    check(contains(o.err, "select_object"), SEL ": refused: the message names select_object", "%s", o.err);
    check(!b, SEL ": refused: no output", "%s is there", out);
  } else if (o.rc == 0) { /* kept valid */
    check(b != NULL, SEL ": kept: the output is written", "no %s", out);
    check(contains(b, "gpu.binary @kernels"), SEL ": kept: gpu.binary @kernels", "%.300s", b ? b : "");
    check(objects >= 1, SEL ": kept: an object", "%d objects", objects);
    check(index < objects, SEL ": kept: select_object names one of them", "select_object<%ld> of %d objects", index,
          objects);
    if (!exists(MLIR_OPT)) skip(SEL ": kept: mlir-opt reads it", MLIR_OPT " not found");
    else {
      const char *argv[] = {MLIR_OPT, out, "-o", "/dev/null", NULL};
      int rc = b ? run(argv, NULL) : -1;
      check_if(b, rc == 0, SEL ": kept: mlir-opt reads it", "mlir-opt exit %d", rc);
    }
  }
#undef SEL
  free(b);
  free(o.err);
}

/* The nesting limit counts brackets that nest, not those in comments and strings,
** and lets a deep but reasonable nesting through. */
static void test_nesting_not_refused(void) {
  static const struct {
    const char *name, *sfx, *head, *open, *close, *tail;
    long n;
  } inputs[] = {
      {"100000 '[' in an LLVM IR comment", ".ll", "; ", "[", "", "\n" NVT OK_KERNEL, 100000},
      {"100000 '[' in an LLVM IR string", ".ll", NVT "@s = constant [100001 x i8] c\"", "[", "", "\\00\"\n" OK_KERNEL,
       100000},
      {"900 nested array types", ".ll", NVT "@g = global ", "[1 x ", "]", " zeroinitializer\n" OK_KERNEL, 900},
      {"100000 '[' in an MLIR comment", ".mlir", "// ", "[", "",
       "\n" MLIR_LLVM_KERNEL("[#rocdl.target<chip = \"gfx90a\">]", ROCDL_A), 100000},
  };
  for (size_t i = 0; i < sizeof inputs / sizeof *inputs; i++) {
    char file[64], outname[64], tmpname[64], name[200];
    if (!strcmp(inputs[i].sfx, ".mlir") && !gpublob_mlir_enabled()) {
      snprintf(name, sizeof name, "extra: %s is not refused as deep nesting (compiles)", inputs[i].name);
      skip(name, "built without MLIR");
      continue;
    }
    snprintf(file, sizeof file, "nest-%zu%s", i, inputs[i].sfx);
    snprintf(outname, sizeof outname, "nest-%zu.out", i);
    snprintf(tmpname, sizeof tmpname, "nest-tmp-%zu", i);
    const char *in = tmp_path(file), *out = tmp_path(outname), *tmp = fresh_dir(tmpname);
    snprintf(name, sizeof name, "extra: %s is not refused as deep nesting (compiles)", inputs[i].name);
    FILE *f = fopen(in, "w");
    if (!f) {
      check(f != NULL, name, "cannot write %s", in);
      continue;
    }
    fputs(inputs[i].head, f);
    write_repeat(f, inputs[i].open, inputs[i].n);
    if (*inputs[i].close) fputs("i8", f);
    write_repeat(f, inputs[i].close, inputs[i].n);
    fputs(inputs[i].tail, f);
    fclose(f);
    const char *args[] = {"-f", "asm", in, "-o", out, NULL};
    outcome o = cli(args, tmp, 20);
    char label[300];
    check(o.rc == 0, name, "exit %d: %.300s", o.rc, o.err);
    snprintf(label, sizeof label, "%s: the output is written", name);
    check(exists(out), label, "no %s", out);
    snprintf(label, sizeof label, "%s: TMPDIR empty", name);
    check(dir_empty(tmp), label, NULL);
    free(o.err);
  }
}

int main(void) {
  if (!exists(CLI)) {
    printf("%s not built\n", CLI);
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  write_tools();
  make_lib_dirs();
  need_bc(); /* once, before the workers start */
  ptxas_found = have_ptxas();
  if (ptxas_found) { /* for the fake tool that runs the real ptxas for another chip */
    gpublob *pg;
    char path[4096] = "";
    gpublob_options po = {.version = GPUBLOB_OPTIONS_VERSION, .target = "nvptx"};
    if (!gpublob_open(&pg)) {
      if (!tool_path(pg, &po, path, sizeof path) && *path) setenv("PTXAS", path, 1);
      gpublob_close(pg);
    }
  }
  run_table();
  test_device_output();
  test_fifo_output();
  test_signal(SIGINT, "SIGINT");
  test_signal(SIGTERM, "SIGTERM");
  test_stale_dirs();
  test_job_timeout();
  test_tool_child_good();
  test_tool_tmpdir();
  test_no_entry_point();
  test_mlir_wrapped();
  test_select_object();
  test_nesting_not_refused();
  kill_strays(pids_file);
  return report();
}
