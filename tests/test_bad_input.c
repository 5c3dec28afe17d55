/* test_bad_input: bad modules through the CLI: malformed LLVM IR text (PARSE, deep nesting, NULs),
** malformed bitcode (BITCODE), verifier failures (VERIFY), and another target's
** modules, calling conventions and intrinsics (TARGET); then nestings the limit lets
** through.  The harness and the invariants every case keeps: tests/bad.h */
#include "bad.h"

static const char verify_dominance[] =
    "define void @k(i32 %a) {\n  %x = add i32 %y, 1\n  %y = add i32 %a, 1\n  ret void\n}\n";

static const char debug_broken[] = /* verification fails, and the module carries debug info */
    NVT
    "define ptx_kernel void @k(i32 %a) {\n  %x = add i32 %y, 1\n  %y = add i32 %a, 1\n  ret void\n}\n"
    "!llvm.module.flags = !{!0}\n!0 = !{i32 2, !\"Debug Info Version\", i32 3}\n";

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

static int gen_nul_keyword(const char *path) {
  static const char t[] = "def\0ine void @k() {\n  ret void\n}\n";
  return put(path, (const unsigned char *)t, sizeof t - 1);
}
static int gen_nul_type(const char *path) {
  static const char t[] = "define void @k() {\n  ret vo\0id\n}\n";
  return put(path, (const unsigned char *)t, sizeof t - 1);
}

static const bad_case cases[] = {
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
};

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
  if (bad_start()) return 2;
  need_bc(); /* once, before the workers start */
  run_table(cases, sizeof cases / sizeof *cases);
  test_nesting_not_refused();
  return bad_end();
}
