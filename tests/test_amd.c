/* test_amd: every current AMD chip from Debian's device libraries, with the control
** constants gpublob writes (no oclc_*.bc), generic targets, target ids, ABI versions
** and math modes; checked with llvm-readelf, llvm-objdump and llvm-nm. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "gpublob.h"
#include "testlib.h"

#define READELF LLVM_BINDIR "/llvm-readelf"
#define OBJDUMP LLVM_BINDIR "/llvm-objdump"
#define NM LLVM_BINDIR "/llvm-nm"
#define BUNDLER LLVM_BINDIR "/clang-offload-bundler"
#define NO_BUNDLER "clang-offload-bundler not found (clang-tools-22)"

static gpublob *g;

static void chmod_x(const char *path) { chmod(path, 0755); }

/* A kernel that calls ocml (sin) and ockl (the work-group size). */
static const char ocml_kernel[] =
    "target triple = \"amdgcn-amd-amdhsa\"\n"
    "declare float @__ocml_sin_f32(float)\n"
    "declare i64 @__ockl_get_local_size(i32)\n"
    "define amdgpu_kernel void @k(ptr addrspace(1) %p) {\n"
    "  %x = load float, ptr addrspace(1) %p\n"
    "  %y = call float @__ocml_sin_f32(float %x)\n"
    "  %n = call i64 @__ockl_get_local_size(i32 0)\n"
    "  %f = uitofp i64 %n to float\n"
    "  %z = fadd float %y, %f\n"
    "  store float %z, ptr addrspace(1) %p\n"
    "  ret void\n"
    "}\n";

/* ocml's sqrt reads __oclc_correctly_rounded_sqrt32; log reads the others. */
static const char math_kernel[] =
    "target triple = \"amdgcn-amd-amdhsa\"\n"
    "declare float @__ocml_sqrt_f32(float)\n"
    "declare float @__ocml_log_f32(float)\n"
    "define amdgpu_kernel void @k(ptr addrspace(1) %p) {\n"
    "  %x = load float, ptr addrspace(1) %p\n"
    "  %y = call float @__ocml_sqrt_f32(float %x)\n"
    "  %z = call float @__ocml_log_f32(float %y)\n"
    "  store float %z, ptr addrspace(1) %p\n"
    "  ret void\n"
    "}\n";

static const char plain_kernel[] =
    "target triple = \"amdgcn-amd-amdhsa\"\n"
    "define amdgpu_kernel void @k(ptr addrspace(1) %p) {\n"
    "  store float 1.0, ptr addrspace(1) %p\n"
    "  ret void\n"
    "}\n";

/* One compile of text for target (NAME:CHIP); o's other fields as given. */
static int compile_with(gpublob_options o, const char *target, const char *text, gpublob_result *r) {
  o.version = GPUBLOB_OPTIONS_VERSION;
  o.target = target;
  gpublob_input in = {.kind = GPUBLOB_INPUT_LLVM, .data = text, .size = strlen(text), .name = "k.ll"};
  int rc = gpublob_compile(g, &o, &in, r);
  if (rc) printf("  (%s: %s)\n", target, gpublob_error_message(g));
  return rc;
}

static int compile(const char *target, const char *text, gpublob_result *r) {
  return compile_with((gpublob_options){0}, target, text, r);
}

/* A tool's output on the blob, written to a scratch file: malloc'd, or NULL. */
static char *tool_says(const char *tool, const char *flag1, const char *flag2, const gpublob_blob *b) {
  const char *path = tmp_path("k.hsaco");
  spill(path, b->data, b->size);
  const char *argv[] = {tool, flag1, flag2, path, NULL};
  if (!flag2) argv[2] = path, argv[3] = NULL;
  char *out = NULL;
  int rc = run(argv, &out);
  if (rc) {
    free(out);
    return NULL;
  }
  return out;
}

/* The LLVM IR text of a job at -O0, where the constants stay to be read. */
static char *ir_at_o0(gpublob_options o, const char *target, const char *text) {
  gpublob_result r = {0};
  o.format = GPUBLOB_FORMAT_LL;
  o.opt = GPUBLOB_OPT_O0;
  char *ir = NULL;
  if (!compile_with(o, target, text, &r) && r.count == 1) ir = strndup((char *)r.outputs[0].blob.data, r.outputs[0].blob.size);
  gpublob_result_free(&r);
  return ir;
}

/* The line of ir that defines constant name; "" when there is none. */
static const char *constant_line(const char *ir, const char *name, char *buf, size_t size) {
  char def[96];
  snprintf(def, sizeof def, "@%s = ", name);
  const char *p = ir ? strstr(ir, def) : NULL, *e = p ? strchr(p, '\n') : NULL;
  snprintf(buf, size, "%.*s", p ? (int)(e ? e - p : (long)strlen(p)) : 0, p ? p : "");
  return buf;
}

static int constant_is(const char *ir, const char *name, const char *value) {
  char buf[256];
  const char *line = constant_line(ir, name, buf, sizeof buf);
  return contains(line, value) && contains(line, "addrspace(4) constant");
}

/* ---- every current chip with Debian's ocml and ockl ---- */
static void test_chip(const char *chip, int wave, const char *version) {
  char target[64], label[160], note[80];
  snprintf(target, sizeof target, "amdgcn:%s", chip);
  gpublob_result r = {0};
  int rc = compile(target, ocml_kernel, &r);
  const gpublob_blob *b = !rc && r.count == 1 ? &r.outputs[0].blob : NULL;
#define L(what) (snprintf(label, sizeof label, "amd: %s with ocml and ockl: %s", chip, what), label)
  check(rc == 0, L("compiles"), "rc %d: %s", rc, gpublob_error_message(g));
  check_if(b, is_elf(b->data, b->size) && elf_machine_of(b->data, b->size) == 224, L("an AMDGPU ELF"), NULL);
  char *nm = b ? tool_says(NM, "--undefined-only", NULL, b) : NULL;
  check_if(b, nm && !contains(nm, " U "), L("no undefined symbol"), "%s", shown(nm));
  char *hdr = b ? tool_says(READELF, "--file-header", NULL, b) : NULL;
  snprintf(note, sizeof note, ", %s", chip);
  check_if(b, contains(hdr, note), L("the header's flags name the chip"), "%s", shown(hdr));
  char *notes = b ? tool_says(READELF, "--notes", NULL, b) : NULL;
  snprintf(note, sizeof note, ".wavefront_size: %d", wave);
  check_if(b, contains(notes, note), L("its wave size"), "want %s: %.600s", note, shown(notes));
  snprintf(note, sizeof note, "amdgcn-amd-amdhsa--%s", chip);
  check_if(b, contains(notes, note), L("the note's target"), "want %s", note);
  char mcpu[64];
  snprintf(mcpu, sizeof mcpu, "--mcpu=%s", chip);
  char *dis = b ? tool_says(OBJDUMP, "-d", mcpu, b) : NULL;
  check_if(b, contains(dis, "s_endpgm") && lacks(dis, "<unknown>"), L("llvm-objdump decodes it for the chip"),
           "%.400s", shown(dis));
  char *ir = ir_at_o0((gpublob_options){0}, target, ocml_kernel);
  check(constant_is(ir, "__oclc_ISA_version", version), L("__oclc_ISA_version is written"), "want %s: %.300s", version,
        shown(ir));
  check(constant_is(ir, "__oclc_wavefrontsize64", wave == 64 ? "i8 1" : "i8 0"), L("__oclc_wavefrontsize64"), NULL);
#undef L
  free(nm);
  free(hdr);
  free(notes);
  free(dis);
  free(ir);
  gpublob_result_free(&r);
}

static void test_chips(void) {
  test_chip("gfx90a", 64, "i32 9010");
  test_chip("gfx942", 64, "i32 9402");
  test_chip("gfx950", 64, "i32 9500");
  test_chip("gfx1100", 32, "i32 11000");
  test_chip("gfx1151", 32, "i32 11501");
  test_chip("gfx1201", 32, "i32 12001");
}

/* ---- generic targets: code object v6, the generic name in the header ---- */
static void test_generic(const char *chip, int wave) {
  char target[64], label[160], want[80];
  snprintf(target, sizeof target, "amdgcn:%s", chip);
  gpublob_result r = {0};
  int rc = compile(target, ocml_kernel, &r);
  const gpublob_blob *b = !rc && r.count == 1 ? &r.outputs[0].blob : NULL;
#define L(what) (snprintf(label, sizeof label, "amd: generic %s: %s", chip, what), label)
  check(rc == 0, L("compiles with ocml"), "rc %d: %s", rc, gpublob_error_message(g));
  char *hdr = b ? tool_says(READELF, "--file-header", NULL, b) : NULL;
  snprintf(want, sizeof want, ", %s, ", chip);
  check_if(b, contains(hdr, want) && contains(hdr, "generic_v1"), L("the header names the generic target"), "%s",
           shown(hdr));
  check_if(b, contains(hdr, "ABI Version:                       4"), L("code object v6 (ELF ABI version 4)"), "%s",
           shown(hdr));
  char *notes = b ? tool_says(READELF, "--notes", NULL, b) : NULL;
  snprintf(want, sizeof want, ".wavefront_size: %d", wave);
  check_if(b, contains(notes, want), L("its wave size"), "want %s", want);
  char *nm = b ? tool_says(NM, "--undefined-only", NULL, b) : NULL;
  check_if(b, nm && !contains(nm, " U "), L("no undefined symbol"), "%s", shown(nm));
  gpublob_result_free(&r);
  rc = compile_with((gpublob_options){.abi = 500}, target, plain_kernel, &r);
  check(rc == GPUBLOB_OPTION && contains(gpublob_error_message(g), "needs ABI version 600"),
        L("abi 500 is refused before LLVM (it would abort)"), "rc %d: %s", rc, gpublob_error_message(g));
#undef L
  free(hdr);
  free(notes);
  free(nm);
  gpublob_result_free(&r);
}

static void test_generics(void) {
  test_generic("gfx9-generic", 64);
  test_generic("gfx9-4-generic", 64);
  test_generic("gfx10-1-generic", 32);
  test_generic("gfx10-3-generic", 32);
  test_generic("gfx11-generic", 32);
  test_generic("gfx12-generic", 32);
}

/* ---- target ids: CHIP:FEATURE+|- reaches the backend; the code object names it ---- */
static void test_target_id(const char *asked, const char *canonical) {
  char target[96], label[200], want[128];
  snprintf(target, sizeof target, "amdgcn:%s", asked);
  gpublob_result r = {0};
  int rc = compile(target, plain_kernel, &r);
  const gpublob_blob *b = !rc && r.count == 1 ? &r.outputs[0].blob : NULL;
#define L(what) (snprintf(label, sizeof label, "amd: target id %s: %s", asked, what), label)
  check(rc == 0, L("compiles"), "rc %d: %s", rc, gpublob_error_message(g));
  check_if(b, same_str(r.outputs[0].chip, canonical), L("the output's chip is the id in LLVM's order"), "%s",
           r.outputs[0].chip);
  char *notes = b ? tool_says(READELF, "--notes", NULL, b) : NULL;
  snprintf(want, sizeof want, "amdgcn-amd-amdhsa--%s", canonical);
  check_if(b, contains(notes, want), L("the code object's target id"), "want %s: %.500s", want, shown(notes));
#undef L
  free(notes);
  gpublob_result_free(&r);
}

static void test_bad_id(const char *asked, const char *features, int code, const char *says) {
  char target[96], label[200];
  snprintf(target, sizeof target, "amdgcn:%s", asked);
  gpublob_result r = {0};
  int rc = compile_with((gpublob_options){.features = features}, target, plain_kernel, &r);
  snprintf(label, sizeof label, "amd: target id %s%s%s is refused", asked, features ? " with " : "",
           features ? features : "");
  check(rc == code && contains(gpublob_error_message(g), says), label, "rc %d: %s", rc, gpublob_error_message(g));
  check(r.count == 0, label, "%zu outputs", r.count);
}

static void test_target_ids(void) {
  test_target_id("gfx90a:xnack+", "gfx90a:xnack+");
  test_target_id("gfx90a:xnack-", "gfx90a:xnack-");
  test_target_id("gfx942:sramecc-:xnack+", "gfx942:sramecc-:xnack+");
  test_target_id("gfx942:xnack+:sramecc-", "gfx942:sramecc-:xnack+");
  test_target_id("gfx9-4-generic:xnack-", "gfx9-4-generic:xnack-");
  test_bad_id("gfx1100:xnack+", NULL, GPUBLOB_CHIP, "the chip has no 'xnack+'");
  test_bad_id("gfx90a:xnack", NULL, GPUBLOB_CHIP, "is not FEATURE+ or FEATURE-");
  test_bad_id("gfx90a:xnack+:xnack-", NULL, GPUBLOB_CHIP, "names a feature twice");
  test_bad_id("gfx90a:", NULL, GPUBLOB_CHIP, "is not FEATURE+ or FEATURE-");
  test_bad_id("gfx90a:xnack+", "-xnack", GPUBLOB_FEATURES, "contradicts");
  test_bad_id("gfx90q:xnack+", NULL, GPUBLOB_CHIP, "invalid chip 'gfx90q'");
  test_bad_id("gfx1100", "+xnack", GPUBLOB_FEATURES, "chip gfx1100 has no xnack");
  /* a modifier set by --features names the output as the code object names itself */
  gpublob_result r = {0};
  int rc = compile_with((gpublob_options){.features = "+xnack,-sramecc"}, "amdgcn:gfx942", plain_kernel, &r);
  check(rc == 0 && r.count == 1 && same_str(r.outputs[0].chip, "gfx942:sramecc-:xnack+"),
        "amd: --features +xnack,-sramecc on gfx942: the output's chip is gfx942:sramecc-:xnack+", "rc %d: %s", rc,
        r.count ? r.outputs[0].chip : gpublob_error_message(g));
  gpublob_result_free(&r);
}

/* ---- the ABI version: code object v4, v5, v6 ---- */
static void test_abi_one(unsigned abi, const char *elf_abi) {
  char label[160];
  gpublob_result r = {0};
  int rc = compile_with((gpublob_options){.abi = abi}, "amdgcn:gfx942", ocml_kernel, &r);
  const gpublob_blob *b = !rc && r.count == 1 ? &r.outputs[0].blob : NULL;
  snprintf(label, sizeof label, "amd: abi %u gives the ELF ABI version %s, and ld.lld takes it", abi, elf_abi);
  char *hdr = b ? tool_says(READELF, "--file-header", NULL, b) : NULL;
  check(rc == 0, label, "rc %d: %s", rc, gpublob_error_message(g));
  check_if(b, contains(hdr, elf_abi), label, "%s", shown(hdr));
  char want[32];
  snprintf(want, sizeof want, "i32 %u", abi);
  char *ir = ir_at_o0((gpublob_options){.abi = abi}, "amdgcn:gfx942", ocml_kernel);
  snprintf(label, sizeof label, "amd: abi %u: __oclc_ABI_version says it", abi);
  check(constant_is(ir, "__oclc_ABI_version", want), label, "%.300s", shown(ir));
  free(ir);
  free(hdr);
  gpublob_result_free(&r);
}

static const char with_cov4[] =
    "target triple = \"amdgcn-amd-amdhsa\"\n"
    "define amdgpu_kernel void @k(ptr addrspace(1) %p) {\n"
    "  store float 1.0, ptr addrspace(1) %p\n"
    "  ret void\n"
    "}\n"
    "!llvm.module.flags = !{!0}\n"
    "!0 = !{i32 1, !\"amdhsa_code_object_version\", i32 400}\n";

static void test_abi(void) {
  test_abi_one(400, "ABI Version:                       2");
  test_abi_one(500, "ABI Version:                       3");
  test_abi_one(600, "ABI Version:                       4");
  gpublob_result r = {0};
  int rc = compile_with((gpublob_options){.abi = 300}, "amdgcn:gfx942", plain_kernel, &r);
  check(rc == GPUBLOB_OPTION && contains(gpublob_error_message(g), "not one of target amdgcn's: 400 500 600"),
        "amd: abi 300 is OPTION, naming the versions", "rc %d: %s", rc, gpublob_error_message(g));
  rc = compile_with((gpublob_options){.abi = 500}, "spirv", "define spir_kernel void @k() { ret void }\n", &r);
  check(rc == GPUBLOB_OPTION && contains(gpublob_error_message(g), "no target of this call has ABI versions"),
        "amd: an abi for a call whose targets have no ABI versions is OPTION", "rc %d: %s", rc,
        gpublob_error_message(g));
  const gpublob_target_choice both[] = {{"spirv", NULL, NULL}, {"amdgcn:gfx942", NULL, NULL}};
  rc = compile_with((gpublob_options){.abi = 400, .targets = both, .ntargets = 2}, NULL,
                    "define void @f() { ret void }\n", &r);
  check(rc == 0 && r.count == 2, "amd: an abi with spirv and amdgcn in one call applies to amdgcn alone", "rc %d: %s", rc,
        gpublob_error_message(g));
  gpublob_result_free(&r);
  rc = compile("amdgcn:gfx942", with_cov4, &r);
  char *hdr = !rc && r.count == 1 ? tool_says(READELF, "--file-header", NULL, &r.outputs[0].blob) : NULL;
  check(rc == 0 && contains(hdr, "ABI Version:                       2"),
        "amd: a module's own amdhsa_code_object_version (400) stands", "rc %d: %s", rc, shown(hdr));
  free(hdr);
  gpublob_result_free(&r);
  rc = compile_with((gpublob_options){.abi = 600}, "amdgcn:gfx942", with_cov4, &r);
  check(rc == GPUBLOB_OPTION && contains(gpublob_error_message(g), "amdhsa_code_object_version is 400"),
        "amd: a module's 400 against the options' 600 is OPTION", "rc %d: %s", rc, gpublob_error_message(g));
  rc = compile("amdgcn:gfx11-generic", with_cov4, &r);
  check(rc == GPUBLOB_OPTION && contains(gpublob_error_message(g), "needs ABI version 600"),
        "amd: a module's 400 on a generic target is OPTION, not LLVM's abort", "rc %d: %s", rc,
        gpublob_error_message(g));
  gpublob_result_free(&r);
}

/* ---- math modes and the wave size: the constants ocml reads ---- */
static void test_math_modes(void) {
  static const struct {
    unsigned flags;
    const char *features;
    const char *name, *value, *what;
  } cases[] = {
      {0, NULL, "__oclc_daz_opt", "i8 0", "by default denormals are kept"},
      {0, NULL, "__oclc_correctly_rounded_sqrt32", "i8 1", "by default sqrt rounds correctly"},
      {GPUBLOB_FLAG_DAZ, NULL, "__oclc_daz_opt", "i8 1", "DAZ"},
      {GPUBLOB_FLAG_FINITE_ONLY, NULL, "__oclc_finite_only_opt", "i8 1", "FINITE_ONLY"},
      {GPUBLOB_FLAG_UNSAFE_MATH, NULL, "__oclc_unsafe_math_opt", "i8 1", "UNSAFE_MATH"},
      {GPUBLOB_FLAG_UNSAFE_SQRT, NULL, "__oclc_correctly_rounded_sqrt32", "i8 0", "UNSAFE_SQRT"},
      {GPUBLOB_FLAG_FAST_MATH, NULL, "__oclc_daz_opt", "i8 1", "FAST_MATH implies DAZ"},
      {GPUBLOB_FLAG_FAST_MATH, NULL, "__oclc_finite_only_opt", "i8 1", "FAST_MATH implies FINITE_ONLY"},
      {GPUBLOB_FLAG_FAST_MATH, NULL, "__oclc_correctly_rounded_sqrt32", "i8 0", "FAST_MATH implies UNSAFE_SQRT"},
      {GPUBLOB_FLAG_DAZ, NULL, "__oclc_finite_only_opt", "i8 0", "DAZ alone sets nothing else"},
      {0, "+wavefrontsize64", "__oclc_wavefrontsize64", "i8 1", "gfx1100 with +wavefrontsize64"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char label[200], buf[256];
    gpublob_options o = {.flags = cases[i].flags, .features = cases[i].features};
    char *ir = ir_at_o0(o, "amdgcn:gfx1100", math_kernel);
    snprintf(label, sizeof label, "amd: math modes: %s: %s is %s", cases[i].what, cases[i].name, cases[i].value);
    check(constant_is(ir, cases[i].name, cases[i].value), label, "%s", constant_line(ir, cases[i].name, buf, sizeof buf));
    free(ir);
  }
  gpublob_result r = {0};
  int rc = compile_with((gpublob_options){.features = "+wavefrontsize64"}, "amdgcn:gfx1100", ocml_kernel, &r);
  char *notes = !rc && r.count == 1 ? tool_says(READELF, "--notes", NULL, &r.outputs[0].blob) : NULL;
  check(contains(notes, ".wavefront_size: 64"), "amd: gfx1100 with +wavefrontsize64 has wave 64", "rc %d", rc);
  free(notes);
  gpublob_result_free(&r);
}

/* ---- a module's own constants, and ones gpublob cannot define ---- */
/* A kernel calling ocml, with def (a line of IR) before it. */
static char *with_def(const char *def) {
  static char buf[2048];
  snprintf(buf, sizeof buf,
           "target triple = \"amdgcn-amd-amdhsa\"\n%s\n"
           "declare float @__ocml_sin_f32(float)\n"
           "define amdgpu_kernel void @k(ptr addrspace(1) %%p) {\n"
           "  %%x = load float, ptr addrspace(1) %%p\n"
           "  %%y = call float @__ocml_sin_f32(float %%x)\n"
           "  store float %%y, ptr addrspace(1) %%p\n"
           "  ret void\n"
           "}\n",
           def);
  return buf;
}

static void expect_code(int code, const char *def, const char *says, const char *what) {
  gpublob_result r = {0};
  char label[200];
  int rc = compile("amdgcn:gfx942", with_def(def), &r);
  snprintf(label, sizeof label, "amd: a module that %s is %s, naming the constant", what, gpublob_error_string(code));
  check(rc == code && contains(gpublob_error_message(g), says), label, "rc %d: %s", rc, gpublob_error_message(g));
  check(r.count == 0, label, "%zu outputs", r.count);
  gpublob_result_free(&r);
}

static void expect_link(const char *def, const char *says, const char *what) {
  expect_code(GPUBLOB_LINK, def, says, what);
}

static void test_module_constants(void) {
  const char *isa9000 = "@__oclc_ISA_version = linkonce_odr protected addrspace(4) constant i32 9000, align 4";
  char *ir = ir_at_o0((gpublob_options){0}, "amdgcn:gfx900", with_def(isa9000));
  check(constant_is(ir, "__oclc_ISA_version", "i32 9000"), "amd: a module's own __oclc_ISA_version of its chip stands",
        "%.300s", shown(ir));
  free(ir);
  ir = ir_at_o0((gpublob_options){0}, "amdgcn:gfx942",
                with_def("@__oclc_daz_opt = linkonce_odr protected addrspace(4) constant i8 1, align 1"));
  check(constant_is(ir, "__oclc_daz_opt", "i8 1"), "amd: a module's own math mode (__oclc_daz_opt = 1) stands", "%.300s",
        shown(ir));
  free(ir);
  /* another chip's constants: CHIP, naming both values */
  expect_code(GPUBLOB_CHIP, isa9000, "@__oclc_ISA_version as 9000, but amdgcn:gfx942 needs 9402",
              "defines another chip's __oclc_ISA_version");
  expect_code(GPUBLOB_CHIP, "@__oclc_wavefrontsize64 = linkonce_odr addrspace(4) constant i8 0",
              "@__oclc_wavefrontsize64 as 0, but amdgcn:gfx942 needs 1", "defines another wave size");
  expect_code(GPUBLOB_OPTION, "@__oclc_ABI_version = linkonce_odr addrspace(4) constant i32 400",
              "@__oclc_ABI_version as 400, but amdgcn:gfx942 at this ABI needs 500", "defines another ABI version");
  expect_link("@__oclc_ISA_version = external addrspace(4) constant i64", "@__oclc_ISA_version",
              "declares a constant with another type");
  expect_link("@__oclc_ABI_version = external addrspace(1) global i32", "@__oclc_ABI_version",
              "declares a constant in another address space");
  /* clang's HIP leaves the libraries' constants internal: one that agrees is made visible to
     the libraries gpublob links, unchanged */
  gpublob_result r = {0};
  int rc = compile("amdgcn:gfx942", with_def("@__oclc_ISA_version = internal addrspace(4) constant i32 9402"), &r);
  check(rc == GPUBLOB_OK && r.count == 1, "amd: a module's own internal constant that agrees links the libraries",
        "rc %d: %s", rc, gpublob_error_message(g));
  gpublob_result_free(&r);
  expect_link("define i32 @__oclc_ISA_version() { ret i32 1 }", "function @__oclc_ISA_version",
              "has a function of a constant's name");
  expect_link("@__oclc_ISA_version = ifunc i32 (), ptr @resolve\ndefine ptr @resolve() { ret ptr null }",
              "ifunc @__oclc_ISA_version", "has an ifunc of a constant's name");
}

/* ---- the module's code object version flag ---- */
static void test_module_abi_flag(void) {
  static const char not_int[] =
      "target triple = \"amdgcn-amd-amdhsa\"\n"
      "define amdgpu_kernel void @k() { ret void }\n"
      "!llvm.module.flags = !{!0}\n"
      "!0 = !{i32 1, !\"amdhsa_code_object_version\", !\"500\"}\n";
  gpublob_result r = {0};
  int rc = compile_with((gpublob_options){.abi = 400}, "amdgcn:gfx90a", not_int, &r);
  check(rc == GPUBLOB_OPTION && contains(gpublob_error_message(g), "not an integer"),
        "amd: a module's amdhsa_code_object_version that is no integer is OPTION (LLVM would pick v6)", "rc %d: %s", rc,
        gpublob_error_message(g));
  gpublob_result_free(&r);
  static const char negative[] =
      "target triple = \"amdgcn-amd-amdhsa\"\n"
      "define amdgpu_kernel void @k() { ret void }\n"
      "!llvm.module.flags = !{!0}\n"
      "!0 = !{i32 1, !\"amdhsa_code_object_version\", i32 -400}\n";
  rc = compile("amdgcn:gfx90a", negative, &r);
  check(rc == GPUBLOB_OPTION && contains(gpublob_error_message(g), "out of range"),
        "amd: a negative amdhsa_code_object_version is OPTION", "rc %d: %s", rc, gpublob_error_message(g));
  gpublob_result_free(&r);
}

/* ---- an ld.lld too old for code object v6 says so ---- */
static void test_old_linker(void) {
  const char *tool = tmp_path("ld.lld-17");
  static const char script[] =
      "#!/bin/sh\n"
      "case \"$1\" in --version) echo 'Debian LLD 17.0.6 (compatible with GNU linkers)'; exit 0;; esac\n"
      "echo 'ld.lld: error: /dev/fd/3: unknown abi version: 4' >&2; exit 1\n";
  spill(tool, script, sizeof script - 1);
  chmod_x(tool);
  gpublob_result r = {0};
  int rc = compile_with((gpublob_options){.abi = 600, .tool = tool}, "amdgcn:gfx942", plain_kernel, &r);
  check(rc == GPUBLOB_TOOL && contains(gpublob_error_message(g), "is version 17; ABI version 600 needs version 19"),
        "amd: an ld.lld 17 failing on code object v6 is TOOL, saying it is too old", "rc %d: %s", rc,
        gpublob_error_message(g));
  rc = compile_with((gpublob_options){.abi = 500, .tool = tool}, "amdgcn:gfx942", plain_kernel, &r);
  check(rc == GPUBLOB_TOOL && lacks(gpublob_error_message(g), "needs version"),
        "amd: the same failure on code object v5 blames nothing on the version", "rc %d: %s", rc,
        gpublob_error_message(g));
  gpublob_result_free(&r);
}

/* ---- one call, every chip: nothing fails for want of an oclc file ---- */
static void test_many_chips(void) {
  gpublob_result r = {0};
  int rc = compile("amdgcn:gfx90a,gfx942,gfx950,gfx1030,gfx1100,gfx1151,gfx1201,gfx12-generic", ocml_kernel, &r);
  check(rc == 0 && r.count == 8, "amd: one call for eight chips, old and new, writes eight blobs", "rc %d: %s",
        rc, gpublob_error_message(g));
  gpublob_result_free(&r);
}

/* ---- the CLI: --abi and the math flags ---- */
static void test_cli(void) {
  const char *in = tmp_path("cli.ll"), *out = tmp_path("cli.hsaco");
  spill(in, ocml_kernel, strlen(ocml_kernel));
  const char *a1[] = {"build/gpublob", "--no-cache", "-t", "amdgcn:gfx1100", "--abi", "600", "--daz", "--finite-only",
                      "--unsafe-math", "--unsafe-sqrt", in, "-o", out, NULL};
  char *o = NULL;
  int rc = run(a1, &o);
  size_t n = 0;
  unsigned char *blob = rc ? NULL : slurp(out, &n);
  gpublob_blob b = {blob, n, ""};
  char *hdr = blob ? tool_says(READELF, "--file-header", NULL, &b) : NULL;
  check(rc == 0 && contains(hdr, "ABI Version:                       4"),
        "amd: cli --abi 600 and the math flags give a code object v6", "rc %d: %s %s", rc, shown(o), shown(hdr));
  free(hdr);
  free(blob);
  free(o);
  const char *a2[] = {"build/gpublob", "--no-cache", "-t", "amdgcn", "--abi", "v5", in, "-o", out, NULL};
  rc = run(a2, &o);
  check(rc == 2 && contains(o, "--abi wants"), "amd: cli --abi v5 is a usage error", "rc %d: %s", rc, shown(o));
  free(o);
  const char *a3[] = {"build/gpublob", "--no-cache", "-t", "amdgcn:gfx90a:xnack+", in, "-o", tmp_path("{chip}.hsaco"),
                      NULL};
  rc = run(a3, &o);
  check(rc == 0 && exists(tmp_path("gfx90a-xnack+.hsaco")) && !exists(tmp_path("gfx90a:xnack+.hsaco")),
        "amd: cli -t amdgcn:gfx90a:xnack+ names the output by the id, its colon a dash", "rc %d: %s", rc, shown(o));
  free(o);
  /* beside the input, and from the front's cache hit: the same safe names */
  char cache[4200], input[4200], dir[4200]; /* tmp_path's ring is reused below */
  snprintf(cache, sizeof cache, "%s", tmp_path("cli-cache"));
  snprintf(input, sizeof input, "%s", in);
  snprintf(dir, sizeof dir, "%s", tmp_path("ids/"));
  const char *a4[] = {"build/gpublob", "--cache-dir", cache, "-t", "amdgcn:gfx90a:xnack+,gfx942:sramecc-:xnack+",
                      input, "-o", dir, NULL};
  for (int pass = 0; pass < 2; pass++) {
    rc = run(a4, &o);
    char label[200];
    snprintf(label, sizeof label, "amd: cli, two target ids into DIR/ (%s): no colon in the names",
             pass ? "the front's cache hit" : "compiled");
    check(rc == 0 && exists(tmp_path("ids/cli.amdgcn.gfx90a-xnack+.hsaco")) &&
              exists(tmp_path("ids/cli.amdgcn.gfx942-sramecc--xnack+.hsaco")) &&
              leftovers(tmp_path("ids"), ":") == 0,
          label, "rc %d: %s", rc, shown(o));
    free(o);
    if (!pass) {
      unlink(tmp_path("ids/cli.amdgcn.gfx90a-xnack+.hsaco"));
      unlink(tmp_path("ids/cli.amdgcn.gfx942-sramecc--xnack+.hsaco"));
    }
  }
}


/* ---- MLIR: #rocdl.target's abi and flags, gpu.printf ---- */
/* The string after marker in MLIR's text, its escapes (\XX, \", \\) undone: malloc'd. */
static unsigned char *mlir_string_after(const char *text, const char *marker, size_t *n) {
  const char *p = text ? strstr(text, marker) : NULL;
  if (!p) return NULL;
  p += strlen(marker);
  unsigned char *out = malloc(strlen(p) + 1);
  size_t k = 0;
  for (; out && *p && *p != '"'; p++) {
    if (*p != '\\') out[k++] = (unsigned char)*p;
    else if (p[1] == '"' || p[1] == '\\') out[k++] = (unsigned char)*++p;
    else if (p[1] && p[2]) {
      char hex[3] = {p[1], p[2], 0};
      out[k++] = (unsigned char)strtoul(hex, NULL, 16);
      p += 2;
    }
  }
  *n = k;
  return out;
}

static const char mlir_head[] = "module attributes {gpu.container_module} {\n  gpu.module @kernels ";
static const char mlir_body[] =
    " {\n"
    "    gpu.func @k(%p: memref<16xf32>) kernel {\n"
    "      %i = gpu.thread_id x\n"
    "      %x = memref.load %p[%i] : memref<16xf32>\n"
    "      %y = math.sin %x : f32\n"
    "      gpu.printf \"y %f\\n\", %y : f32\n"
    "      memref.store %y, %p[%i] : memref<16xf32>\n"
    "      gpu.return\n"
    "    }\n"
    "  }\n"
    "}\n";

/* The MLIR module with targets (a gpu.module's [...] list) through gpublob: rc, and
** the blob of marker (rocdl.hsaco = " for legacy attach, bin = " for binary). */
static int mlir_compile(const char *targets, const char *target_opt, int attach, const char *marker,
                        gpublob_blob *blob, char **text) {
  char src[2048];
  snprintf(src, sizeof src, "%s%s%s", mlir_head, targets, mlir_body);
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = target_opt, .attach = attach};
  gpublob_input in = {.kind = GPUBLOB_INPUT_MLIR, .data = src, .size = strlen(src), .name = "k.mlir"};
  gpublob_result r = {0};
  int rc = gpublob_compile(g, &o, &in, &r);
  if (rc) printf("  (%s: %s)\n", targets, gpublob_error_message(g));
  *blob = (gpublob_blob){0};
  *text = NULL;
  if (!rc && r.count == 1) {
    *text = strndup((char *)r.outputs[0].blob.data, r.outputs[0].blob.size);
    blob->data = mlir_string_after(*text, marker, &blob->size);
  }
  gpublob_result_free(&r);
  return rc;
}

static void test_mlir_one(const char *targets, const char *what, const char *want_hdr, const char *want_note) {
  gpublob_blob b;
  char *text, label[300];
  int rc = mlir_compile(targets, NULL, GPUBLOB_ATTACH_LEGACY, "rocdl.hsaco = \"", &b, &text);
  snprintf(label, sizeof label, "amd: mlir %s: %s", targets, what);
  char *hdr = b.data ? tool_says(READELF, "--file-header", NULL, &b) : NULL;
  char *notes = b.data ? tool_says(READELF, "--notes", NULL, &b) : NULL;
  char *nm = b.data ? tool_says(NM, "--undefined-only", NULL, &b) : NULL;
  check(rc == 0, label, "rc %d: %s", rc, gpublob_error_message(g));
  check_if(b.data, contains(hdr, want_hdr), label, "want %s: %s", want_hdr, shown(hdr));
  check_if(b.data, contains(notes, want_note), label, "want %s", want_note);
  check_if(b.data, nm && !contains(nm, " U "), label, "undefined: %s", shown(nm));
  free(hdr);
  free(notes);
  free(nm);
  free(b.data);
  free(text);
}

static void test_mlir_bad(const char *targets, int code, const char *says) {
  gpublob_blob b;
  char *text, label[300];
  int rc = mlir_compile(targets, NULL, GPUBLOB_ATTACH_LEGACY, "rocdl.hsaco = \"", &b, &text);
  snprintf(label, sizeof label, "amd: mlir %s is refused", targets);
  check(rc == code && contains(gpublob_error_message(g), says), label, "rc %d: %s", rc, gpublob_error_message(g));
  free(b.data);
  free(text);
}

static void test_mlir(void) {
  if (!gpublob_mlir_enabled()) {
    skip("amd: mlir", "gpublob was built without MLIR");
    return;
  }
  test_mlir_one("[#rocdl.target<chip = \"gfx942\", abi = \"400\", flags = {daz, unsafe_sqrt}>]",
                "abi 400 is code object v4; gpu.printf uses HIP's hostcall", "ABI Version:                       2",
                "hidden_hostcall_buffer");
  test_mlir_one("[#rocdl.target<chip = \"gfx942\">]", "no abi means MLIR's default, 600 (v6)",
                "ABI Version:                       4", ".wavefront_size: 64");
  test_mlir_one("[#rocdl.target<chip = \"gfx1100\", flags = {wave64}>]", "wave64 is wave 64 on gfx1100", ", gfx1100",
                ".wavefront_size: 64");
  test_mlir_one("[#rocdl.target<chip = \"gfx1201\", flags = {fast}>]", "gfx1201 with fast", ", gfx1201",
                ".wavefront_size: 32");
  test_mlir_one("[#rocdl.target<chip = \"gfx11-generic\">]", "a generic target", ", gfx11-generic, generic_v1",
                ".wavefront_size: 32");
  test_mlir_one("[#rocdl.target<chip = \"gfx942\", flags = {daz = false, \"unsafe_math\" = [1, 2]}>]",
                "a flag with a value counts, as MLIR's hasFlag counts it", ", gfx942", ".wavefront_size: 64");
  test_mlir_one("[#rocdl.target<chip = \"gfx942\", flags = {}>]", "no flags", ", gfx942", ".wavefront_size: 64");
  test_mlir_bad("[#rocdl.target<chip = \"gfx942\", flags = {\"daz, wave64\" = 1}>]", GPUBLOB_OPTION,
                "flag 'daz, wave64'");
  test_mlir_bad("[#rocdl.target<chip = \"gfx942\", flags = {no_wave64}>]", GPUBLOB_FEATURES, "contradicts chip");
  test_mlir_bad("[#rocdl.target<chip = \"gfx942\", flags = {turbo}>]", GPUBLOB_OPTION, "flag 'turbo'");
  test_mlir_bad("[#rocdl.target<chip = \"gfx11-generic\", abi = \"500\">]", GPUBLOB_OPTION, "needs ABI version 600");
  gpublob_blob b;
  char *text;
  int rc = mlir_compile("[#rocdl.target<chip = \"gfx942\">]", "amdgcn:gfx90a", GPUBLOB_ATTACH_BINARY, "bin = \"", &b,
                        &text);
  char *hdr = b.data ? tool_says(READELF, "--file-header", NULL, &b) : NULL;
  check(rc == 0 && contains(text, "abi = \"500\""), "amd: mlir -t amdgcn:gfx90a: the object's attribute says abi 500",
        "rc %d: %.400s", rc, shown(text));
  check_if(b.data, contains(hdr, "ABI Version:                       3") && contains(hdr, ", gfx90a"),
           "amd: mlir -t amdgcn:gfx90a: the object is gfx90a's, code object v5", "%s", shown(hdr));
  free(hdr);
  free(b.data);
  free(text);
  rc = mlir_compile("[#rocdl.target<chip = \"gfx942\">]", "amdgcn:gfx90a:xnack+", GPUBLOB_ATTACH_BINARY, "bin = \"", &b,
                    &text);
  check(rc == 0 && contains(text, "chip = \"gfx90a\", features = \"+xnack\""),
        "amd: mlir -t amdgcn:gfx90a:xnack+: the object's attribute has the chip, and the id's modifier as a feature",
        "rc %d: %.400s", rc, shown(text));
  free(b.data);
  free(text);
}

/* ---- the cache: target ids and an MLIR attribute's ABI version hit ---- */
static int cached_twice(const char *target, const char *text, int kind) {
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = target, .cache_dir = tmp_path("cache")};
  gpublob_input in = {.kind = kind, .data = text, .size = strlen(text), .name = "k"};
  gpublob_result r = {0};
  gpublob_stats s = {0};
  int rc = gpublob_compile(g, &o, &in, &r);
  gpublob_result_free(&r);
  rc = rc ? rc : gpublob_compile(g, &o, &in, &r);
  gpublob_stats_get(g, &s, sizeof s);
  gpublob_result_free(&r);
  return !rc && s.cache_hits == 1;
}

static void test_cache(void) {
  check(cached_twice("amdgcn:gfx942:sramecc-:xnack+", ocml_kernel, GPUBLOB_INPUT_LLVM),
        "amd: cache: a target id's second call hits", "%s", gpublob_error_message(g));
  if (!gpublob_mlir_enabled()) return;
  char src[2048];
  snprintf(src, sizeof src, "%s%s%s", mlir_head, "[#rocdl.target<chip = \"gfx942\">]", mlir_body);
  check(cached_twice(NULL, src, GPUBLOB_INPUT_MLIR), "amd: cache: an MLIR attribute without abi (v6) hits", "%s",
        gpublob_error_message(g));
  snprintf(src, sizeof src, "%s%s%s", mlir_head, "[#rocdl.target<chip = \"gfx942\", abi = \"400\", flags = {daz}>]",
           mlir_body);
  check(cached_twice(NULL, src, GPUBLOB_INPUT_MLIR), "amd: cache: an MLIR attribute with abi 400 and daz hits", "%s",
        gpublob_error_message(g));
}

/* ---- a bundle of target ids: HIP picks the entry of the device's xnack mode ---- */
static void test_bundle_ids(void) {
  gpublob_result r = {0};
  const gpublob_target_choice ids[] = {{"amdgcn:gfx90a:xnack+,gfx90a:xnack-", NULL, NULL},
                                       {"amdgcn:gfx942", NULL, "+xnack"}};
  gpublob_options o = {.format = GPUBLOB_FORMAT_PACK, .targets = ids, .ntargets = 2};
  int rc = compile_with(o, NULL, plain_kernel, &r);
  if (!rc && r.count == 2) { /* one pack per choice: the first's, then gfx942's alone */
    gpublob_output keep = r.outputs[1];
    char *list = NULL;
    const char *path = tmp_path("one.hipfb");
    spill(path, keep.blob.data, keep.blob.size);
    char input[4200];
    snprintf(input, sizeof input, "-input=%s", path);
    const char *argv[] = {LLVM_BINDIR "/clang-offload-bundler", "-list", "-type=o", input, NULL};
    run(argv, &list);
    if (have_program(BUNDLER))
      check(contains(list, "hipv4-amdgcn-amd-amdhsa--gfx942:xnack+\n"),
            "amd: -f fatbin for gfx942 with --features +xnack: the entry says xnack+, as its code object does", "%s",
            shown(list));
    else
      skip("amd: -f fatbin for gfx942 with --features +xnack: the entry says xnack+", NO_BUNDLER);
    free(list);
  }
  const gpublob_blob *b = !rc && r.count == 2 ? &r.outputs[0].blob : NULL;
  char *list = NULL;
  if (b) {
    const char *path = tmp_path("ids.hipfb");
    spill(path, b->data, b->size);
    char input[4200];
    snprintf(input, sizeof input, "-input=%s", path);
    const char *argv[] = {LLVM_BINDIR "/clang-offload-bundler", "-list", "-type=o", input, NULL};
    if (run(argv, &list)) {
      free(list);
      list = NULL;
    }
  }
#define IDS "amd: -f fatbin for gfx90a:xnack+ and gfx90a:xnack-: clang-offload-bundler lists an entry per id"
  check(rc == 0, IDS ": compiles", "rc %d: %s", rc, gpublob_error_message(g));
  if (have_program(BUNDLER))
    check_if(b, contains(list, "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+\n") &&
                    contains(list, "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-\n"),
             IDS, "%s", shown(list));
  else
    skip(IDS, NO_BUNDLER);
#undef IDS
  free(list);
  gpublob_result_free(&r);
}

/* ---- HIP from clang-22 for the new chips and a target id: pinned, v6, ocml by plain names ---- */
static void test_hip_chip(const char *arch) {
  char label[300], offload[96], target[96], want[128];
  const char *ll = tmp_path("libm.ll"), *hsaco = tmp_path("libm.hsaco");
  snprintf(offload, sizeof offload, "--offload-arch=%s", arch);
  snprintf(target, sizeof target, "amdgcn:%s", arch);
  const char *cc[] = {LLVM_BINDIR "/clang", "-x", "hip", "--cuda-device-only", offload, "-nogpuinc", "-nogpulib", "-O2",
                      "-S", "-emit-llvm", "-Itests/clang", "tests/clang/libm.hip", "-o", ll, NULL};
  char *log = NULL;
  int rc = run(cc, &log);
  snprintf(label, sizeof label, "amd: HIP tests/clang/libm.hip by clang-22 %s", offload);
  check(rc == 0, label, "clang: %s", shown(log));
  free(log);
  const char *gb[] = {"build/gpublob", "--no-cache", "-t", target, ll, "-o", hsaco, NULL};
  rc = rc ? rc : run(gb, &log);
  size_t n = 0;
  unsigned char *data = rc ? NULL : slurp(hsaco, &n);
  gpublob_blob b = {data, n, ""};
  snprintf(label, sizeof label, "amd: HIP libm.hip for %s: gpublob compiles clang's IR", arch);
  check(rc == 0 && data, label, "rc %d: %s", rc, shown(log));
  char *nm = data ? tool_says(NM, "--undefined-only", NULL, &b) : NULL;
  char *notes = data ? tool_says(READELF, "--notes", NULL, &b) : NULL;
  char *hdr = data ? tool_says(READELF, "--file-header", NULL, &b) : NULL;
  snprintf(label, sizeof label, "amd: HIP libm.hip for %s: no undefined symbol", arch);
  check_if(data, nm && !contains(nm, " U "), label, "%s", shown(nm));
  snprintf(want, sizeof want, "amdgcn-amd-amdhsa--%s", arch);
  snprintf(label, sizeof label, "amd: HIP libm.hip for %s: the code object's target id", arch);
  check_if(data, contains(notes, want), label, "want %s", want);
  snprintf(label, sizeof label, "amd: HIP libm.hip for %s: clang's code object v6 (its module flag) stands", arch);
  check_if(data, contains(hdr, "ABI Version:                       4"), label, "%s", shown(hdr));
  free(nm);
  free(notes);
  free(hdr);
  free(data);
  free(log);
}

/* ---- a target id clang pinned on the functions, read into the job's id ---- */
static const char pinned_kernel[] =
    "target triple = \"amdgcn-amd-amdhsa\"\n"
    "define amdgpu_kernel void @k(ptr addrspace(1) %%p) #0 {\n"
    "  store float 1.0, ptr addrspace(1) %%p\n"
    "  ret void\n"
    "}\n"
    "define void @helper(ptr addrspace(1) %%p) #1 {\n"
    "  store float 2.0, ptr addrspace(1) %%p\n"
    "  ret void\n"
    "}\n"
    "attributes #0 = { \"target-cpu\"=\"gfx90a\" \"target-features\"=\"+xnack,+wavefrontsize64\" }\n"
    "attributes #1 = { \"target-cpu\"=\"gfx90a\" \"target-features\"=\"%cxnack\" }\n";

static void test_pinned_id_of(unsigned flags, const char *how) {
  char text[1024], label[200];
  snprintf(text, sizeof text, pinned_kernel, '+');
  gpublob_result r = {0};
  int rc = compile_with((gpublob_options){.flags = flags}, "amdgcn:gfx90a", text, &r);
  snprintf(label, sizeof label, "amd: functions pinned +xnack, -t amdgcn:gfx90a%s: the output's chip is gfx90a:xnack+", how);
  check(rc == 0 && r.count == 1 && same_str(r.outputs[0].chip, "gfx90a:xnack+"), label, "rc %d: %s", rc,
        rc ? gpublob_error_message(g) : r.count ? r.outputs[0].chip : "no output");
  char *notes = rc || r.count != 1 ? NULL : tool_says(READELF, "--notes", NULL, &r.outputs[0].blob);
  snprintf(label, sizeof label, "amd: functions pinned +xnack%s: the code object says gfx90a:xnack+ too", how);
  check_if(notes, contains(notes, "amdgcn-amd-amdhsa--gfx90a:xnack+"), label, "%s", shown(notes));
  free(notes);
  gpublob_result_free(&r);
}

static void test_pinned_ids(void) {
  test_pinned_id_of(0, "");
  test_pinned_id_of(GPUBLOB_FLAG_ISOLATE, ", isolated");
  char text[1024];
  snprintf(text, sizeof text, pinned_kernel, '+');
  gpublob_result r = {0};
  const gpublob_target_choice pack[] = {{"amdgcn:gfx90a", NULL, NULL}};
  int rc = compile_with((gpublob_options){.format = GPUBLOB_FORMAT_PACK, .targets = pack, .ntargets = 1}, NULL,
                        text, &r);
  char *list = NULL;
  if (!rc && r.count == 1) {
    const char *path = tmp_path("pinned.hipfb");
    spill(path, r.outputs[0].blob.data, r.outputs[0].blob.size);
    char input[4200];
    snprintf(input, sizeof input, "-input=%s", path);
    const char *argv[] = {LLVM_BINDIR "/clang-offload-bundler", "-list", "-type=o", input, NULL};
    run(argv, &list);
  }
  if (have_program(BUNDLER))
    check(rc == 0 && contains(list, "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+\n"),
          "amd: -f fatbin of functions pinned +xnack for gfx90a: the bundle's entry is gfx90a:xnack+", "rc %d: %s", rc,
          rc ? gpublob_error_message(g) : shown(list));
  else
    check(rc == 0, "amd: -f fatbin of functions pinned +xnack for gfx90a (its entry unread: " NO_BUNDLER ")",
          "rc %d: %s", rc, gpublob_error_message(g));
  free(list);
  gpublob_result_free(&r);
  check(cached_twice("amdgcn:gfx90a", text, GPUBLOB_INPUT_LLVM), "amd: cache: functions pinned +xnack, the second "
        "call hits", "%s", gpublob_error_message(g));
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = "amdgcn:gfx90a", .cache_dir = tmp_path("cache")};
  gpublob_input in = {.kind = GPUBLOB_INPUT_LLVM, .data = text, .size = strlen(text), .name = "k"};
  rc = gpublob_compile(g, &o, &in, &r);
  check(rc == 0 && r.count == 1 && same_str(r.outputs[0].chip, "gfx90a:xnack+"),
        "amd: cache: a hit of functions pinned +xnack names gfx90a:xnack+", "rc %d: %s", rc,
        rc ? gpublob_error_message(g) : r.count ? r.outputs[0].chip : "no output");
  gpublob_result_free(&r);
  rc = compile("amdgcn:gfx90a:xnack-", text, &r);
  check(rc == GPUBLOB_CHIP && contains(gpublob_error_message(g), "+xnack"),
        "amd: functions pinned +xnack, -t amdgcn:gfx90a:xnack-: CHIP", "rc %d: %s", rc, gpublob_error_message(g));
  gpublob_result_free(&r);
  snprintf(text, sizeof text, pinned_kernel, '-');
  rc = compile("amdgcn:gfx90a", text, &r);
  check(rc == GPUBLOB_CHIP && contains(gpublob_error_message(g), "opposite xnack settings"),
        "amd: functions pinned +xnack and -xnack: CHIP, naming both", "rc %d: %s", rc, gpublob_error_message(g));
  gpublob_result_free(&r);
}

static void test_hip(void) {
  if (!exists(LLVM_BINDIR "/clang")) {
    skip("amd: HIP from clang-22", "clang-22 not found");
    return;
  }
  test_hip_chip("gfx942");
  test_hip_chip("gfx1201");
  test_hip_chip("gfx90a:xnack+");
  test_hip_chip("gfx942:sramecc-:xnack+");
}

int main(void) {
  if (gpublob_open(&g)) return 1;
  gpublob_options probe = {.version = GPUBLOB_OPTIONS_VERSION, .target = "amdgcn"};
  const char *libs = NULL;
  if (gpublob_libs_find(g, &probe, &libs) != GPUBLOB_OK) {
    skip("amd: every test", "ROCm device libraries (ocml.bc, ockl.bc) not found");
    gpublob_close(g);
    return report();
  }
  test_chips();
  test_generics();
  test_target_ids();
  test_abi();
  test_math_modes();
  test_module_constants();
  test_module_abi_flag();
  test_old_linker();
  test_many_chips();
  test_cli();
  test_mlir();
  test_cache();
  test_bundle_ids();
  test_pinned_ids();
  test_hip();
  gpublob_close(g);
  return report();
}
