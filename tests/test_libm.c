/* test_libm: C's math functions by their plain names, and the math intrinsics a backend
** cannot select, as frontends leave them without the vendor's headers.
**
** At test time clang-22 compiles tests/clang/libm.* (CUDA -nocudalib, HIP and OpenCL
** -nogpulib) into IR that calls sinf, expf, pow and sqrt, undefined, and llvm.exp.f32,
** llvm.pow.f64, ... from the builtins; build/gpublob compiles it: the PTX calls none of
** them (libdevice's __nv_* are inlined), ptxas accepts it, the cubin and the hsaco
** (gfx90a) have no undefined symbol (llvm-readelf -s --dyn-syms).  A function nothing
** defines is LINK naming it (and, for one of C's, the device-library name it lacks); a
** declaration of another type than the library's function is LINK naming both types; an
** intrinsic with no device-library function of its type is TARGET before LLVM would end
** the process; a module's own sinf is kept; vprintf may stay undefined in a cubin, and
** anything in a SPIR-V module (the spec's undefined_ok).  NVIDIA parts skip without the
** CUDA toolkit (libdevice, ptxas). */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpublob.h"
#include "testlib.h"

#define CLANG LLVM_BINDIR "/clang"
#define READELF LLVM_BINDIR "/llvm-readelf"
#define CLI "build/gpublob"
#define SRC "tests/clang/"

static char ptxas[4096]; /* "" when the CUDA toolkit's ptxas is missing */
static int libdevice;    /* libdevice.10.bc is found as a compile finds it */


static const char *const cuda_flags[] = {"-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_90", "-nocudainc",
                                         "-nocudalib", "-O2", "-S", "-emit-llvm", NULL};
static const char *const hip_flags[] = {"-x", "hip", "--cuda-device-only", "--offload-arch=gfx90a", "-nogpuinc",
                                        "-nogpulib", "-O2", "-S", "-emit-llvm", NULL};

/* build/gpublob --no-cache ARGS: its exit status, stdout and stderr in *log. */
static int cli(const char *const *args, char **log) {
  const char *argv[40];
  int n = 0;
  argv[n++] = CLI;
  argv[n++] = "--no-cache";
  for (; *args && n < 38; args++) argv[n++] = *args;
  argv[n] = NULL;
  *log = NULL;
  return run(argv, log);
}

static int ident_char(char c) { return isalnum((unsigned char)c) || c == '_' || c == '$'; }

/* text names the symbol: word, not inside a longer identifier (sinf, not __nv_sinf) nor
** an instruction's name (sqrt, not sqrt.rn.f64). */
static int has_word(const char *text, const char *word) {
  size_t n = strlen(word);
  for (const char *p = text; p && (p = strstr(p, word)); p++)
    if (!(p > text && (ident_char(p[-1]) || p[-1] == '.')) && !ident_char(p[n]) && p[n] != '.') return 1;
  return 0;
}

/* A line of text that holds both a and b. */
static int line_with(const char *text, const char *a, const char *b) {
  for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
    const char *end = strchr(p, '\n'), *x = strstr(p, a), *y = strstr(p, b);
    if (x && y && (!end || (x < end && y < end))) return 1;
  }
  return 0;
}

/* The strong undefined symbols llvm-readelf -s --dyn-syms lists for an ELF (the null
** symbol and ptxas's own weak .nv.reservedSmem aside), one a line into *names
** (malloc'd); their count, -1 when readelf fails. */
static int undefined_symbols(const char *elf, char **names) {
  const char *argv[] = {READELF, "-s", "--dyn-syms", elf, NULL};
  char *out = NULL;
  int rc = run(argv, &out), count = 0;
  size_t len = 0;
  *names = calloc(1, out ? strlen(out) + 1 : 1);
  for (char *line = out; rc == 0 && line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
    char *end = strchr(line, '\n'), *und = strstr(line, " UND");
    char *weak = strstr(line, " WEAK ");
    if (!und || (end && und > end) || (weak && (!end || weak < end))) continue;
    const char *name = und + 4;
    while (*name == ' ') name++;
    if (*name == '\n' || !*name) continue; /* the null symbol */
    size_t n = end ? (size_t)(end - name) : strlen(name);
    memcpy(*names + len, name, n);
    len += n;
    (*names)[len++] = '\n';
    count++;
  }
  free(out);
  return rc == 0 ? count : -1;
}

static const char *part(char *buf, size_t size, const char *name, const char *what) {
  snprintf(buf, size, "%s: %s", name, what);
  return buf;
}
#define PART(what) part(label, sizeof label, name, what)

static int error_first(const char *log) { return !strncmp(log ? log : "", "gpublob: error: ", 16); }

/* IR (clang's, or ours) compiled to a blob with no undefined symbol: ELF, exit 0. */
static void blob_fully_defined(const char *name, const char *target, const char *ll, const char *out) {
  if (!strncmp(target, "amdgcn", 6) && !need_rocm(name)) return; /* C's names become ocml's */
  char label[400], *log = NULL, *und = NULL;
  const char *args[] = {"-t", target, ll, "-o", out, NULL};
  int rc = cli(args, &log);
  int n = rc == 0 ? undefined_symbols(out, &und) : -1;
  check(rc == 0, PART("exit 0"), "exit %d: %s", rc, log);
  check_if(rc == 0, n == 0, name, "%d undefined: %s", n, shown(und));
  free(log);
  free(und);
}

/* PTX of -f asm that calls none of C's names and declares nothing external. */
static void ptx_calls_no_libm(const char *name, const char *ll, const char *ptx, const char *const *names) {
  char label[400], *log = NULL;
  const char *args[] = {"-t", "nvptx:sm_90", "-f", "asm", ll, "-o", ptx, NULL};
  int rc = cli(args, &log);
  char *text = (char *)slurp(ptx, NULL);
  check(rc == 0, PART("exit 0"), "exit %d: %s", rc, log);
  check(lacks(text, ".extern"), PART("no .extern declaration"), "%.400s", shown(text));
  for (const char *const *w = names; *w; w++) {
    char what[160];
    snprintf(what, sizeof what, "no call of %s", *w);
    check_if(text, !has_word(text, *w), PART(what), "%s is in the PTX", *w);
  }
  free(log);
  log = NULL;
  snprintf(label, sizeof label, "%s: ptxas -arch=sm_90 accepts it", name);
  if (!*ptxas) {
    skip(label, "CUDA toolkit (ptxas) not found");
  } else {
    const char *pa[] = {ptxas, "-arch=sm_90", ptx, "-o", "/dev/null", NULL};
    int pr = text ? run(pa, &log) : -1;
    check(pr == 0, label, "ptxas exited %d: %s", pr, shown(log));
  }
  free(log);
  free(text);
}

/* what libm.cu, libm.hip and libm.cl call: C's names, and the builtins' intrinsics */
static const char *const libm_names[] = {"sinf", "expf", "pow", "sqrt", "log", "llvm.exp.f32", "llvm.pow.f64", NULL};

/* ---- CUDA: libdevice ---- */
static void cuda_libm(void) {
  const char *ll = tmp_path("cuda_libm.ll");
  if (clang_ir(cuda_flags, SRC "libm.cu", ll, "CUDA libm.cu (sm_90, -nocudalib) to LLVM IR")) return;
  char *ir = (char *)slurp(ll, NULL);
  check(contains(ir, "declare dso_local float @sinf(float"), "cuda libm: clang leaves sinf undefined", NULL);
  check(contains(ir, "@llvm.exp.f32("), "cuda libm: clang turns __builtin_expf into llvm.exp.f32", NULL);
  check(contains(ir, "@llvm.pow.f64("), "cuda libm: clang turns __builtin_pow into llvm.pow.f64", NULL);
  free(ir);
  if (!libdevice) {
    skip("cuda libm: PTX and cubin with libdevice's functions", "CUDA toolkit (libdevice.10.bc) not found");
    return;
  }
  ptx_calls_no_libm("cuda libm: -f asm gives PTX that calls neither C's names nor the intrinsics", ll,
                    tmp_path("cuda_libm.ptx"), libm_names);
  if (!*ptxas) skip("cuda libm: the cubin has no undefined symbol", "CUDA toolkit (ptxas) not found");
  else blob_fully_defined("cuda libm: the cubin has no undefined symbol", "nvptx:sm_90", ll, tmp_path("cuda_libm.cubin"));
}

/* vprintf stays undefined in the cubin, as the spec's undefined_ok lets it. */
static void cuda_printf(void) {
  const char *ll = tmp_path("cuda_printf.ll"), *cubin = tmp_path("cuda_printf.cubin");
  if (clang_ir(cuda_flags, SRC "libm_printf.cu", ll, "CUDA libm_printf.cu to LLVM IR")) return;
  const char *name = "cuda printf: vprintf may stay undefined in a cubin (undefined_ok), sqrtf is libdevice's";
  if (!libdevice || !*ptxas) {
    skip(name, "CUDA toolkit (libdevice, ptxas) not found");
    return;
  }
  char label[400], *log = NULL, *und = NULL;
  const char *args[] = {"-t", "nvptx:sm_90", ll, "-o", cubin, NULL};
  int rc = cli(args, &log);
  int n = rc == 0 ? undefined_symbols(cubin, &und) : -1;
  check(rc == 0, PART("exit 0"), "exit %d: %s", rc, log);
  check_if(rc == 0, n == 1 && has_word(und, "vprintf"), name, "undefined: %s", shown(und));
  free(log);
  free(und);
}

/* ---- HIP: ocml ---- */
static void hip_libm(void) {
  const char *ll = tmp_path("hip_libm.ll"), *s = tmp_path("hip_libm.s");
  if (clang_ir(hip_flags, SRC "libm.hip", ll, "HIP libm.hip (gfx90a, -nogpulib) to LLVM IR")) return;
  char *ir = (char *)slurp(ll, NULL);
  check(contains(ir, "declare hidden float @sinf(float"), "hip libm: clang leaves sinf undefined", NULL);
  check(contains(ir, "@llvm.log.f64("), "hip libm: clang turns __builtin_log into llvm.log.f64", NULL);
  free(ir);
  blob_fully_defined("hip libm: the hsaco (gfx90a) has no undefined symbol", "amdgcn", ll, tmp_path("hip_libm.hsaco"));
  char label[400], *log = NULL;
  const char *name = "hip libm: -f asm calls none of C's names";
  const char *args[] = {"-t", "amdgcn", "-f", "asm", ll, "-o", s, NULL};
  int rc = cli(args, &log);
  char *text = (char *)slurp(s, NULL);
  check(rc == 0, PART("exit 0"), "exit %d: %s", rc, log);
  for (const char *const *w = libm_names; *w; w++) check_if(text, !has_word(text, *w), name, "%s is there", *w);
  free(text);
  free(log);
}

/* -f ll shows the renaming: ocml's names, linked; a module's own sinf stays. */
static void hip_own_sinf(void) {
  const char *ll = tmp_path("hip_own.ll"), *out = tmp_path("hip_own.out.ll");
  if (clang_ir(hip_flags, SRC "libm_own.hip", ll, "HIP libm_own.hip to LLVM IR")) return;
  char label[400], *log = NULL;
  const char *name = "hip own sinf: the module's sinf is kept, expf becomes __ocml_exp_f32";
  const char *args[] = {"-t", "amdgcn", "-f", "ll", "-O0", ll, "-o", out, NULL};
  int rc = cli(args, &log);
  char *text = (char *)slurp(out, NULL);
  check(rc == 0, PART("exit 0"), "exit %d: %s", rc, log);
  check(line_with(text, "define", "@sinf(float"), PART("sinf is defined"), "%.300s", shown(text));
  check(line_with(text, "call", "@sinf(float"), PART("and called"), "%.300s", shown(text));
  check(lacks(text, "__ocml_sin_f32"), PART("no __ocml_sin_f32"), NULL);
  check(contains(text, "@__ocml_exp_f32("), PART("__ocml_exp_f32"), NULL);
  check(lacks(text, "@expf("), PART("no expf"), NULL);
  free(text);
  free(log);
  blob_fully_defined("hip own sinf: the hsaco has no undefined symbol", "amdgcn", ll, tmp_path("hip_own.hsaco"));
}

static const char own_public_sinf[] = /* a public definition of sinf, beside an undefined expf */
    "target triple = \"amdgcn-amd-amdhsa\"\n"
    "define float @sinf(float %x) {\n  %r = fmul float %x, 2.5\n  ret float %r\n}\n"
    "define amdgpu_kernel void @k(ptr addrspace(1) %p) {\n"
    "  %v = load float, ptr addrspace(1) %p\n"
    "  %s = call float @sinf(float %v)\n"
    "  %e = call float @expf(float %s)\n"
    "  store float %e, ptr addrspace(1) %p\n  ret void\n}\n"
    "declare float @expf(float)\n";

/* The same with a public sinf of the module's own, which stays public in -f ll. */
static void own_public(void) {
  const char *ll = tmp_path("own_public.ll"), *out = tmp_path("own_public.out.ll");
  spill(ll, own_public_sinf, sizeof own_public_sinf - 1);
  char label[400], *log = NULL;
  const char *name = "amdgcn: a public sinf of the module's own stays, called; expf becomes __ocml_exp_f32";
  const char *args[] = {"-t", "amdgcn", "-f", "ll", "-O0", ll, "-o", out, NULL};
  int rc = cli(args, &log);
  char *text = (char *)slurp(out, NULL);
  check(rc == 0, PART("exit 0"), "exit %d: %s", rc, log);
  check(contains(text, "define float @sinf(float"), name, "%.300s", shown(text));
  check(line_with(text, "call", "@sinf(float"), PART("called"), NULL);
  check(lacks(text, "__ocml_sin_f32"), PART("no __ocml_sin_f32"), NULL);
  check(line_with(text, "call", "@__ocml_exp_f32("), PART("__ocml_exp_f32 called"), NULL);
  free(text);
  free(log);
}

static const char dynamic_lds[] = /* HIP's extern __shared__ float buf[]: declared, and no undefined symbol */
    "target triple = \"amdgcn-amd-amdhsa\"\n"
    "@buf = external hidden addrspace(3) global [0 x float], align 4\n"
    "define amdgpu_kernel void @k(ptr addrspace(1) %p) {\n"
    "  %v = load float, ptr addrspace(1) %p\n"
    "  store float %v, ptr addrspace(3) @buf\n"
    "  %w = call float @sqrtf(float %v)\n"
    "  store float %w, ptr addrspace(1) %p\n  ret void\n}\n"
    "declare float @sqrtf(float)\n";

/* A failing compile: exit code, one error line first, no output, the message's words. */
static void fails(const char *name, const char *const *args, const char *out, int code, const char *const *words) {
  char label[400], *log = NULL;
  int rc = cli(args, &log);
  check(rc == 10 + code, name, "exit %d (want %d): %s", rc, 10 + code, log);
  check(!exists(out), PART("no output"), "%s is there", out);
  check(error_first(log), PART("stderr starts 'gpublob: error: '"), "%s", log);
  for (; *words; words++) {
    char what[200];
    snprintf(what, sizeof what, "the message names %s", *words);
    check(contains(log, *words), PART(what), "%s", log);
  }
  free(log);
}

static void hip_errors(void) {
  const char *ll = tmp_path("hip_unknown.ll"), *out = tmp_path("hip_unknown.hsaco");
  if (!clang_ir(hip_flags, SRC "libm_unknown.hip", ll, "HIP libm_unknown.hip to LLVM IR")) {
    const char *args[] = {"-t", "amdgcn", ll, "-o", out, NULL};
    const char *words[] = {"undefined functions", "'foof'", "'lroundf'", "__ocml_lround_f32", "undefined_ok", NULL};
    fails("hip unknown: foof and lroundf are LINK, by name, with lroundf's ocml name", args, out, GPUBLOB_LINK,
          words);
    const char *asm_args[] = {"-t", "amdgcn", "-f", "asm", ll, "-o", tmp_path("hip_unknown.s"), NULL};
    char *log = NULL;
    int rc = cli(asm_args, &log);
    check(rc == 0, "hip unknown: -f asm (not a whole blob) leaves them undefined, exit 0", "exit %d: %s", rc, log);
    free(log);
  }
  ll = tmp_path("hip_frexp.ll");
  out = tmp_path("hip_frexp.hsaco");
  if (!clang_ir(hip_flags, SRC "libm_frexp.hip", ll, "HIP libm_frexp.hip to LLVM IR")) {
    const char *args[] = {"-t", "amdgcn", ll, "-o", out, NULL};
    const char *words[] = {"'frexpf'", "__ocml_frexp_f32", "float (float, ptr)", "ptr addrspace(5)", NULL};
    fails("hip frexpf: declared with a generic pointer is LINK, naming ocml's function and both types", args, out,
          GPUBLOB_LINK, words);
  }
  ll = tmp_path("cl_gid.ll");
  out = tmp_path("cl_gid.hsaco");
  const char *flags[] = {"-x", "cl", "-cl-std=CL1.2", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx90a", "-nogpulib",
                         "-DGET_GLOBAL_ID", "-O2", "-S", "-emit-llvm", NULL};
  if (!clang_ir(flags, SRC "libm.cl", ll, "OpenCL libm.cl with get_global_id (amdgcn) to LLVM IR")) {
    /* the module is OpenCL (!opencl.ocl.version): ROCm's opencl.bc (the spec's lang_libs) defines it */
    const char *args[] = {"-t", "amdgcn", ll, "-o", out, NULL};
    char *log = NULL;
    int rc = cli(args, &log);
    check(rc == 0 && exists(out), "opencl get_global_id: amdgcn links ROCm's opencl.bc, and compiles", "exit %d: %s",
          rc, shown(log));
    free(log);
    unlink(out);
    /* a library directory without opencl.bc: NOLIB naming it */
    const char *dir = tmp_path("no-opencl-bc");
    mkdir(dir, 0700);
    gpublob *lg;
    const char *paths = "";
    gpublob_options lo = {.version = GPUBLOB_OPTIONS_VERSION, .target = "amdgcn:gfx90a"};
    if (!gpublob_open(&lg)) {
      if (!gpublob_libs_find(lg, &lo, &paths))
        for (const char *p = paths; *p;) {
          size_t n = strcspn(p, "\n");
          char from[4200], to[4400];
          snprintf(from, sizeof from, "%.*s", (int)n, p);
          snprintf(to, sizeof to, "%s/%s", dir, strrchr(from, '/') ? strrchr(from, '/') + 1 : from);
          if (symlink(from, to)) check(0, "opencl: a library directory of ocml and ockl", "%s", to);
          p += n + (p[n] == '\n');
        }
      gpublob_close(lg);
    }
    /* -f asm: no blob tool to find (--no-default-search hides the ld.lld program too) */
    const char *bare[] = {"--no-default-search", "--lib-dir", dir, "-t", "amdgcn", "-f", "asm", ll, "-o", out, NULL};
    const char *words[] = {"opencl.bc", NULL};
    fails("opencl get_global_id without the vendor's OpenCL library: NOLIB naming opencl.bc", bare, out,
          GPUBLOB_NOLIB, words);
  }
}

/* ---- OpenCL: amdgcn, nvptx, spirv ---- */
static void opencl_libm(void) {
  const char *ll = tmp_path("cl_amd.ll");
  const char *amd[] = {"-x", "cl", "-cl-std=CL1.2", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx90a", "-nogpulib",
                       "-O2", "-S", "-emit-llvm", NULL};
  if (!clang_ir(amd, SRC "libm.cl", ll, "OpenCL libm.cl (amdgcn, -nogpulib) to LLVM IR")) {
    char *ir = (char *)slurp(ll, NULL);
    check(contains(ir, "declare hidden double @pow(double"), "opencl amdgcn: clang leaves pow undefined", NULL);
    free(ir);
    blob_fully_defined("opencl amdgcn: the hsaco has no undefined symbol", "amdgcn", ll, tmp_path("cl_amd.hsaco"));
  }
  ll = tmp_path("cl_nv.ll");
  const char *nv[] = {"-x", "cl", "-cl-std=CL1.2", "-target", "nvptx64-nvidia-cuda", "-march=sm_90", "-nogpulib",
                      "-O2", "-S", "-emit-llvm", NULL};
  if (!clang_ir(nv, SRC "libm.cl", ll, "OpenCL libm.cl (nvptx) to LLVM IR")) {
    if (!libdevice) skip("opencl nvptx: PTX with libdevice's functions", "CUDA toolkit (libdevice) not found");
    else ptx_calls_no_libm("opencl nvptx: -f asm gives PTX that calls none of C's names", ll, tmp_path("cl_nv.ptx"),
                           libm_names);
  }
  ll = tmp_path("cl_spirv.ll");
  const char *sp[] = {"-x", "cl", "-cl-std=CL1.2", "-target", "spirv64", "-O2", "-S", "-emit-llvm", NULL};
  if (!clang_ir(sp, SRC "libm.cl", ll, "OpenCL libm.cl (spirv64) to LLVM IR")) {
    char label[400], *log = NULL;
    const char *spv = tmp_path("cl.spv");
    const char *name = "opencl spirv: sinf stays an import (undefined_ok = *), and spirv-val accepts the module";
    const char *args[] = {"-t", "spirv", ll, "-o", spv, NULL};
    int rc = cli(args, &log);
    check(rc == 0, PART("exit 0"), "exit %d: %s", rc, log);
    free(log);
    log = NULL;
    const char *val[] = {SPIRV_VAL, spv, NULL};
    int vr = rc == 0 ? run(val, &log) : -1;
    check(vr == 0, name, "spirv-val exited %d: %s", vr, shown(log));
    free(log);
    size_t n = 0;
    char *b = (char *)slurp(spv, &n);
    int found = 0;
    for (size_t i = 0; b && i + 5 <= n; i++) found |= !memcmp(b + i, "sinf", 5); /* OpName "sinf", NUL-ended */
    check_if(b != NULL, found, PART("the module names sinf"), NULL);
    free(b);
  }
}

/* ---- intrinsics as IR gives them ---- */
#define NVT "target triple = \"nvptx64-nvidia-cuda\"\n"

static const char afn_sin[] = /* sin.f32 with afn selects sin.approx; cos.f32 without does not */
    NVT "define ptx_kernel void @k(ptr addrspace(1) %p) {\n"
    "  %v = load float, ptr addrspace(1) %p\n"
    "  %s = call afn float @llvm.sin.f32(float %v)\n"
    "  %c = call float @llvm.cos.f32(float %s)\n"
    "  store float %c, ptr addrspace(1) %p\n  ret void\n}\n";

static const char sin_half[] = /* no C function of half */
    NVT "define ptx_kernel void @k(ptr addrspace(1) %p) {\n"
    "  %v = load half, ptr addrspace(1) %p\n"
    "  %s = call half @llvm.sin.f16(half %v)\n"
    "  store half %s, ptr addrspace(1) %p\n  ret void\n}\n";

static const char sincos_f32[] = /* sincosf is __nv_sincosf(float, ptr, ptr), not {float, float}(float) */
    NVT "define ptx_kernel void @k(ptr addrspace(1) %p) {\n"
    "  %v = load float, ptr addrspace(1) %p\n"
    "  %r = call { float, float } @llvm.sincos.f32(float %v)\n"
    "  %s = extractvalue { float, float } %r, 0\n"
    "  store float %s, ptr addrspace(1) %p\n  ret void\n}\n";

static const char ldexp_spirv[] = /* the SPIR-V backend cannot legalize ldexp, and spirv has no device library */
    "define spir_kernel void @k(ptr addrspace(1) %p, i32 %n) {\n"
    "  %v = load float, ptr addrspace(1) %p\n"
    "  %e = call float @llvm.ldexp.f32.i32(float %v, i32 %n)\n"
    "  store float %e, ptr addrspace(1) %p\n  ret void\n}\n";

static const char exp2_int_spirv[] = /* the optimiser makes exp2 of an integer llvm.ldexp */
    "define spir_kernel void @k(ptr addrspace(1) %p, i32 %n) {\n"
    "  %f = sitofp i32 %n to float\n"
    "  %e = call float @llvm.exp2.f32(float %f)\n"
    "  store float %e, ptr addrspace(1) %p\n  ret void\n}\n";

static void spirv_intrinsics(void) {
  const char *ll = tmp_path("ldexp.ll"), *out = tmp_path("ldexp.spv");
  spill(ll, ldexp_spirv, sizeof ldexp_spirv - 1);
  const char *args[] = {"-t", "spirv", ll, "-o", out, NULL};
  const char *words[] = {"llvm.ldexp.f32.i32", "cannot select", NULL};
  fails("spirv: llvm.ldexp is TARGET before LLVM (it would end the process)", args, out, GPUBLOB_TARGET, words);
  ll = tmp_path("exp2.ll");
  out = tmp_path("exp2.spv");
  spill(ll, exp2_int_spirv, sizeof exp2_int_spirv - 1);
  const char *opt_args[] = {"-t", "spirv", ll, "-o", out, NULL};
  const char *opt_words[] = {"the optimiser made a call of llvm.ldexp", "-O0", NULL};
  fails("spirv: llvm.exp2 of an integer, which the optimiser makes llvm.ldexp, is TARGET saying so", opt_args, out,
        GPUBLOB_TARGET, opt_words);
  char *log = NULL;
  const char *o0[] = {"-O0", "-t", "spirv", ll, "-o", out, NULL};
  int rc = cli(o0, &log);
  check(rc == 0 && exists(out), "spirv: the same at -O0 (llvm.exp2 kept) gives a SPIR-V module", "exit %d: %s", rc,
        log);
  free(log);
}

static void intrinsics(void) {
  if (!libdevice) {
    skip("intrinsics on nvptx", "CUDA toolkit (libdevice) not found");
    return;
  }
  const char *ll = tmp_path("afn.ll"), *ptx = tmp_path("afn.ptx");
  spill(ll, afn_sin, sizeof afn_sin - 1);
  char label[400], *log = NULL;
  const char *name = "nvptx: afn llvm.sin.f32 stays sin.approx.f32, llvm.cos.f32 becomes __nv_cosf";
  const char *args[] = {"-t", "nvptx", "-f", "asm", ll, "-o", ptx, NULL};
  int rc = cli(args, &log);
  char *text = (char *)slurp(ptx, NULL);
  check(rc == 0, PART("exit 0"), "exit %d: %s", rc, log);
  check(contains(text, "sin.approx.f32"), PART("sin.approx.f32"), "%.400s", shown(text));
  check(lacks(text, "cos.approx"), PART("no cos.approx"), NULL);
  check(lacks(text, ".extern"), name, "%.400s", shown(text));
  free(text);
  free(log);

  ll = tmp_path("half.ll");
  spill(ll, sin_half, sizeof sin_half - 1);
  const char *out = tmp_path("half.ptx");
  const char *half_args[] = {"-t", "nvptx", "-f", "asm", ll, "-o", out, NULL};
  const char *half_words[] = {"llvm.sin.f16", "cannot select", "libm_intrinsics", NULL};
  fails("nvptx: llvm.sin.f16 (no C function of half) is TARGET before LLVM", half_args, out, GPUBLOB_TARGET,
        half_words);
  const char *iso_args[] = {"--isolate", "-t", "nvptx", "-f", "asm", ll, "-o", out, NULL};
  fails("nvptx: llvm.sin.f16, --isolate: the same TARGET (no LLVM abort)", iso_args, out, GPUBLOB_TARGET,
        half_words);
  const char *ll_out = tmp_path("half.out.ll");
  const char *keep[] = {"-t", "nvptx", "-f", "ll", ll, "-o", ll_out, NULL};
  rc = cli(keep, &log);
  text = (char *)slurp(ll_out, NULL);
  check(rc == 0 && contains(text, "@llvm.sin.f16("), "nvptx: -f ll (no backend) keeps llvm.sin.f16, exit 0",
        "exit %d: %s", rc, log);
  free(text);
  free(log);

  ll = tmp_path("sincos.ll");
  spill(ll, sincos_f32, sizeof sincos_f32 - 1);
  out = tmp_path("sincos.ptx");
  const char *sc_args[] = {"-t", "nvptx", "-f", "asm", ll, "-o", out, NULL};
  const char *sc_words[] = {"llvm.sincos.f32", "__nv_sincosf", "void (float, ptr, ptr)", NULL};
  fails("nvptx: llvm.sincos.f32 is TARGET naming __nv_sincosf and its type", sc_args, out, GPUBLOB_TARGET, sc_words);
}

int main(void) {
  if (!exists(CLI)) {
    printf("%s not built\n", CLI);
    return 2;
  }
  if (!exists(CLANG)) {
    skip("libm: every frontend case", CLANG " not found");
    return report();
  }
  gpublob *g;
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = "nvptx"};
  const char *paths = NULL;
  if (gpublob_open(&g)) return 2;
  if (tool_path(g, &o, ptxas, sizeof ptxas)) ptxas[0] = 0;
  libdevice = gpublob_libs_find(g, &o, &paths) == GPUBLOB_OK;
  gpublob_close(g);
  setenv("TMPDIR", scratch(), 1);

  cuda_libm();
  cuda_printf();
  /* for amdgcn, C's math names become ocml's: ROCm's bitcode */
  int rocm = need_rocm("libm: HIP and amdgcn: ocml by C's names, a module's own sinf, LINK by name");
  if (rocm) hip_libm();
  if (rocm) hip_own_sinf();
  if (rocm) own_public();
  spill(tmp_path("lds.ll"), dynamic_lds, sizeof dynamic_lds - 1);
  blob_fully_defined("amdgcn: a declared extern __shared__ array is no undefined function (exit 0)", "amdgcn",
                     tmp_path("lds.ll"), tmp_path("lds.hsaco"));
  if (rocm) hip_errors();
  opencl_libm();
  intrinsics();
  spirv_intrinsics();
  check(leftovers(scratch(), "gpublob-") == 0, "libm: no temporary left in TMPDIR (gpublob-*)", "%d left",
        leftovers(scratch(), "gpublob-"));
  return report();
}
