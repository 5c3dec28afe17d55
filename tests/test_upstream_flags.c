/* test_upstream_flags: the options of MLIR's gpu-module-to-binary (toolkit, l, opts,
** format, section) and every key and flag MLIR 22 takes on #nvvm.target,
** #rocdl.target and #xevm.target, each honoured (its effect looked at with the real
** tools: ptxas's register count in the cubin, llvm-nm's symbols, ld.lld's link,
** spirv-val, mlir-translate's section) or refused with a message naming it. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if GPUBLOB_MLIR
#include <mlir-c/IR.h>
#include <mlir-c/Pass.h>
#include <mlir-c/RegisterEverything.h>
#endif
/* These checks call the 1.0 calls too (gpublob_module_compile and the like), which
** stay supported: without their deprecation warnings. */
#define GPUBLOB_DISABLE_DEPRECATE_WARNINGS
#include "gpublob_mlir.h" /* gpublob.h, and the calls that take MLIR objects */
#include "testlib.h"

#define READELF LLVM_BINDIR "/llvm-readelf"
#define LLVM_AS LLVM_BINDIR "/llvm-as"
#define LLVM_NM LLVM_BINDIR "/llvm-nm"
#define MLIR_TRANSLATE LLVM_BINDIR "/mlir-translate"
#define SPIRV_AS "spirv-as"

static gpublob *g;
static int cuda, rocm;

/* ---- inputs ---- */
/* helper(x) = x * 3, in bitcode for triple (llvm-as), at path. */
static const char *helper_bc(const char *triple, const char *name, const char *factor) {
  char text[512], ll[64];
  snprintf(text, sizeof text, "target triple = \"%s\"\ndefine float @helper(float %%x) {\n"
           "  %%y = fmul float %%x, %s\n  ret float %%y\n}\n", triple, factor);
  snprintf(ll, sizeof ll, "%s.ll", name);
  const char *src = tmp_path(ll), *bc = tmp_path(name);
  spill(src, text, strlen(text));
  const char *argv[] = {LLVM_AS, src, "-o", bc, NULL};
  char *out = NULL;
  int rc = run(argv, &out);
  check(rc == 0, "setup: llvm-as-22 writes the link file", "%s", shown(out));
  free(out);
  static char paths[16][512]; /* tmp_path's ring is reused: the path is kept here */
  static int next;
  char *kept = paths[next++ % 16];
  snprintf(kept, sizeof paths[0], "%s", bc);
  return kept;
}

/* A kernel calling helper, in LLVM IR for a target. */
static char *caller_ll(const char *triple, const char *cc) {
  static char text[1024];
  snprintf(text, sizeof text, "target triple = \"%s\"\ndeclare float @helper(float)\n"
           "define %s void @kern(ptr addrspace(1) %%a, float %%x) {\n"
           "  %%r = call float @helper(float %%x)\n  store float %%r, ptr addrspace(1) %%a\n  ret void\n}\n",
           triple, cc);
  return text;
}

/* A kernel whose 48 live loads need more than 32 registers unless ptxas is limited. */
static char *heavy_ll(void) {
  static char text[32768];
  size_t n = 0;
  n += (size_t)snprintf(text + n, sizeof text - n, "target triple = \"nvptx64-nvidia-cuda\"\n"
                        "define ptx_kernel void @heavy(ptr addrspace(1) %%a, ptr addrspace(1) %%o) {\n");
  for (int i = 0; i < 48; i++)
    n += (size_t)snprintf(text + n, sizeof text - n, "  %%p%d = getelementptr float, ptr addrspace(1) %%a, i64 %d\n"
                          "  %%v%d = load volatile float, ptr addrspace(1) %%p%d\n", i, i, i, i);
  for (int i = 0; i < 48; i++)
    n += (size_t)snprintf(text + n, sizeof text - n, "  %%m%d = fmul float %%v%d, %%v%d\n"
                          "  %%n%d = fadd float %%m%d, %%v%d\n  %%q%d = getelementptr float, ptr addrspace(1) %%o, i64 %d\n"
                          "  store volatile float %%n%d, ptr addrspace(1) %%q%d\n",
                          i, i, (i * 7 + 3) % 48, i, i, (i * 5 + 1) % 48, i, i, i, i);
  snprintf(text + n, sizeof text - n, "  ret void\n}\n");
  return text;
}

static int compile_ir(const gpublob_options *o, const char *text, gpublob_blob *b) {
  memset(b, 0, sizeof *b);
  int rc = gpublob_module_compile(g, o, text, strlen(text), "in.ll", b);
  if (rc) printf("  (%s)\n", gpublob_error_message(g));
  return rc;
}

/* The register count ptxas gave kernel fn of a cubin: its .text.FN section's sh_info
** bits 24-31, as llvm-readelf -S prints the Info field; -1 when not found. */
static int cubin_registers(const gpublob_blob *b, const char *fn) {
  const char *path = tmp_path("regs.cubin");
  spill(path, b->data, b->size);
  const char *argv[] = {READELF, "-S", "-W", path, NULL};
  char *out = NULL, want[128];
  run(argv, &out);
  snprintf(want, sizeof want, " .text.%s ", fn);
  const char *line = out ? strstr(out, want) : NULL;
  long info = -1;
  if (line) { /* Name Type Address Off Size ES Flg Lk Inf Al: Inf is the 9th field after the name */
    const char *p = line + strlen(want);
    char f[10][64];
    if (sscanf(p, "%63s %63s %63s %63s %63s %63s %63s %63s %63s", f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7],
               f[8]) == 9)
      info = strtol(f[7], NULL, 10);
  }
  free(out);
  return info < 0 ? -1 : (int)((unsigned long)info >> 24);
}

/* llvm-nm's line for sym in bitcode b: "T" defined, "U" undefined, "" absent. */
static const char *nm_kind(const gpublob_blob *b, const char *sym) {
  static char kind[4];
  const char *path = tmp_path("nm.bc");
  spill(path, b->data, b->size);
  const char *argv[] = {LLVM_NM, path, NULL};
  char *out = NULL, want[128];
  run(argv, &out);
  snprintf(want, sizeof want, " %s\n", sym);
  const char *at = out ? strstr(out, want) : NULL;
  kind[0] = 0;
  if (at && at - out >= 1) kind[0] = at[-1], kind[1] = 0;
  free(out);
  return kind;
}

/* ---- the pass options, as gpublob_options ---- */
static void test_link_option(void) {
  const char *bc = helper_bc("nvptx64-nvidia-cuda", "helper3.bc", "3.0");
  const char *links[] = {bc};
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = "nvptx:sm_80",
                       .format = GPUBLOB_FORMAT_LLVM, .opt = GPUBLOB_OPT_O0};
  gpublob_blob b;
  int rc = compile_ir(&o, caller_ll("nvptx64-nvidia-cuda", "ptx_kernel"), &b);
  check_if(rc == 0, !strcmp(nm_kind(&b, "helper"), "U"), "l: without link files, llvm-nm shows helper undefined",
           "'%s'", nm_kind(&b, "helper"));
  gpublob_blob_free(&b);
  o.link = links;
  o.nlink = 1;
  rc = compile_ir(&o, caller_ll("nvptx64-nvidia-cuda", "ptx_kernel"), &b);
  check(rc == 0, "l: a link file compiles", "rc %d", rc);
  check_if(rc == 0, strchr("Tt", nm_kind(&b, "helper")[0]) && *nm_kind(&b, "helper"),
           "l: the link file's helper is defined in the linked module (llvm-nm)", "'%s'", nm_kind(&b, "helper"));
  gpublob_blob_free(&b);
  o.flags = GPUBLOB_FLAG_ISOLATE; /* the job's LLVM work in a child: the files go with it */
  rc = compile_ir(&o, caller_ll("nvptx64-nvidia-cuda", "ptx_kernel"), &b);
  check_if(rc == 0, strchr("Tt", nm_kind(&b, "helper")[0]) && *nm_kind(&b, "helper"),
           "l: isolated, the link file's helper is defined too", "'%s'", nm_kind(&b, "helper"));
  gpublob_blob_free(&b);
  o.flags = 0;
  if (cuda) { /* bin: ptxas needs helper defined */
    o.format = GPUBLOB_FORMAT_BIN;
    rc = compile_ir(&o, caller_ll("nvptx64-nvidia-cuda", "ptx_kernel"), &b);
    check(rc == 0 && is_elf(b.data, b.size), "l: the cubin links (helper resolved)", "rc %d", rc);
    gpublob_blob_free(&b);
    o.format = GPUBLOB_FORMAT_LLVM;
  }
  const char *missing[] = {tmp_path("no-such.bc")};
  o.link = missing;
  rc = compile_ir(&o, caller_ll("nvptx64-nvidia-cuda", "ptx_kernel"), &b);
  check(rc == GPUBLOB_IO && contains(gpublob_error_message(g), "no-such.bc"), "l: a missing link file is IO naming it",
        "rc %d: %s", rc, gpublob_error_message(g));
  const char *junk_path = tmp_path("junk.bc");
  spill(junk_path, "BC\xc0\xde junk", 9);
  const char *junk[] = {junk_path};
  o.link = junk;
  rc = compile_ir(&o, caller_ll("nvptx64-nvidia-cuda", "ptx_kernel"), &b);
  check(rc == GPUBLOB_BITCODE && contains(gpublob_error_message(g), "junk.bc"),
        "l: malformed bitcode is BITCODE naming the file", "rc %d: %s", rc, gpublob_error_message(g));
  const char *amd[] = {helper_bc("amdgcn-amd-amdhsa", "amd.bc", "3.0")};
  o.link = amd;
  rc = compile_ir(&o, caller_ll("nvptx64-nvidia-cuda", "ptx_kernel"), &b);
  check(rc == GPUBLOB_TARGET && contains(gpublob_error_message(g), "amd.bc is for amdgcn-amd-amdhsa"),
        "l: a link file for another architecture is TARGET naming it", "rc %d: %s", rc, gpublob_error_message(g));
  o.link = NULL;
  o.nlink = 2;
  rc = compile_ir(&o, caller_ll("nvptx64-nvidia-cuda", "ptx_kernel"), &b);
  check(rc == GPUBLOB_MISUSE, "l: nlink without link is MISUSE", "rc %d", rc);
}

/* The link file's bytes are in the cache's key: a file rewritten in place gives a new result. */
static void test_link_cache(void) {
  const char *dir = tmp_path("cache");
  mkdir(dir, 0700);
  const char *bc = helper_bc("nvptx64-nvidia-cuda", "cached.bc", "3.0");
  const char *links[] = {bc};
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = "nvptx:sm_80", .format = GPUBLOB_FORMAT_ASM,
                       .link = links, .nlink = 1, .cache_dir = dir};
  gpublob_blob a, b, c;
  int r1 = compile_ir(&o, caller_ll("nvptx64-nvidia-cuda", "ptx_kernel"), &a);
  int r2 = compile_ir(&o, caller_ll("nvptx64-nvidia-cuda", "ptx_kernel"), &b);
  gpublob_stats st = {0};
  gpublob_stats_get(g, &st, sizeof st);
  check(r1 == 0 && r2 == 0 && st.cache_hits == 1, "cache: the same link file is a hit", "rc %d %d, hits %u", r1, r2,
        (unsigned)st.cache_hits);
  helper_bc("nvptx64-nvidia-cuda", "cached.bc", "5.0");
  int r3 = compile_ir(&o, caller_ll("nvptx64-nvidia-cuda", "ptx_kernel"), &c);
  gpublob_stats_get(g, &st, sizeof st);
  check_if(r1 == 0 && r3 == 0, st.cache_hits == 0 && (a.size != c.size || memcmp(a.data, c.data, a.size)),
           "cache: a rewritten link file is a miss, and its PTX differs", "hits %u", (unsigned)st.cache_hits);
  gpublob_blob_free(&a);
  gpublob_blob_free(&b);
  gpublob_blob_free(&c);
}

static void test_opts(void) {
  if (!cuda) {
    skip("opts: -maxrregcount for ptxas and nvJitLink", "ptxas (CUDA toolkit) not found");
    return;
  }
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = "nvptx:sm_80",
                       .tool_mode = GPUBLOB_TOOL_PROGRAM};
  gpublob_blob b;
  int rc = compile_ir(&o, heavy_ll(), &b);
  int plain = rc ? -1 : cubin_registers(&b, "heavy");
  gpublob_blob_free(&b);
  check(plain > 32, "opts: the heavy kernel needs more than 32 registers by default (llvm-readelf)", "%d", plain);
  const char *modes[] = {"program (ptxas)", "in-process (nvJitLink)"};
  for (int m = 0; m < 2; m++) {
    char name[160];
    o.tool_mode = m ? GPUBLOB_TOOL_INPROCESS : GPUBLOB_TOOL_PROGRAM;
    o.tool_options = "'-maxrregcount=32'";
    gpublob_tool_info t;
    if (m && gpublob_tool_info_get(g, &o, 1, &t, sizeof t)) {
      skip("opts: -maxrregcount=32 in-process", "libnvJitLink not found");
      continue;
    }
    rc = compile_ir(&o, heavy_ll(), &b);
    int limited = rc ? -1 : cubin_registers(&b, "heavy");
    gpublob_blob_free(&b);
    snprintf(name, sizeof name, "opts: -maxrregcount=32 (quoted) limits the cubin to 32 registers, %s", modes[m]);
    check(limited > 0 && limited <= 32, name, "%d (default %d)", limited, plain);
    o.tool_options = "--no-such-ptxas-option";
    rc = compile_ir(&o, heavy_ll(), &b);
    snprintf(name, sizeof name, "opts: an option neither takes is refused naming it, %s", modes[m]);
    check(rc == (m ? GPUBLOB_OPTION : GPUBLOB_TOOL) && contains(gpublob_error_message(g), "no-such-ptxas-option"),
          name, "rc %d: %s", rc, gpublob_error_message(g));
    gpublob_blob_free(&b);
  }
  /* auto: an option nvJitLink lacks keeps the call on ptxas, however many jobs it has */
  gpublob_options a = {.version = GPUBLOB_OPTIONS_VERSION, .target = "nvptx", .tool_options = "--no-such"};
  gpublob_tool_info t;
  int in_process = !gpublob_tool_info_get(g, &a, 16, &t, sizeof t) && same_str(t.kind, "in-process");
  a.tool_options = "-v --maxrregcount=40";
  int mapped = !gpublob_tool_info_get(g, &a, 16, &t, sizeof t) && same_str(t.kind, "in-process");
  a.tool_options = "-v --no-such";
  rc = gpublob_tool_info_get(g, &a, 16, &t, sizeof t);
  check(!in_process && (!mapped || (rc == 0 && same_str(t.kind, "program"))),
        "opts: auto runs ptxas for options nvJitLink lacks, nvJitLink for those it has", "rc %d, %s", rc,
        rc ? gpublob_error_message(g) : t.kind);
  o.tool_options = "-maxrregcount='32";
  rc = compile_ir(&o, heavy_ll(), &b);
  check(rc == GPUBLOB_OPTION && contains(gpublob_error_message(g), "quote"), "opts: an unclosed quote is OPTION",
        "rc %d: %s", rc, gpublob_error_message(g));
}

/* A toolkit's bin/ and nvvm/libdevice (CUDA), amdgcn/bitcode (ROCm) are searched first. */
static void test_toolkit(void) {
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = "nvptx", .tool_mode = GPUBLOB_TOOL_PROGRAM,
                       .flags = GPUBLOB_FLAG_NO_DEFAULT_SEARCH};
  gpublob_tool_info t;
  char root[512], dir[600], link[700], real[512];
  snprintf(root, sizeof root, "%s", tmp_path("toolkit"));
  snprintf(dir, sizeof dir, "%s/bin", root);
  mkdir(root, 0700);
  mkdir(dir, 0700);
  int rc = gpublob_tool_info_get(g, &o, 1, &t, sizeof t);
  check(rc == GPUBLOB_NOTOOL, "toolkit: without it, --no-default-search finds no ptxas", "rc %d", rc);
  gpublob_options found = o;
  found.flags = 0;
  if (cuda && !tool_path(g, &found, real, sizeof real) && *real) {
    snprintf(link, sizeof link, "%s/ptxas", dir);
    check(symlink(real, link) == 0, "toolkit: setup", NULL);
    o.toolkit = root;
    rc = gpublob_tool_info_get(g, &o, 1, &t, sizeof t);
    check(rc == 0 && same_str(t.path, link), "toolkit: DIR/bin/ptxas is the blob tool", "rc %d: %s", rc,
          rc ? gpublob_error_message(g) : t.path);
  } else {
    skip("toolkit: DIR/bin/ptxas", "ptxas (CUDA toolkit) not found");
  }
  /* DIR/lib64 holds the provider's library */
  gpublob_options inproc = {.version = GPUBLOB_OPTIONS_VERSION, .target = "nvptx", .tool_mode = GPUBLOB_TOOL_INPROCESS};
  if (!gpublob_tool_info_get(g, &inproc, 1, &t, sizeof t)) {
    snprintf(real, sizeof real, "%s", t.path);
    const char *base = strrchr(real, '/');
    snprintf(dir, sizeof dir, "%s/lib64", root);
    mkdir(dir, 0700);
    snprintf(link, sizeof link, "%s%s", dir, base ? base : "/lib");
    check(symlink(real, link) == 0, "toolkit: setup (lib64)", NULL);
    inproc.flags = GPUBLOB_FLAG_NO_DEFAULT_SEARCH;
    inproc.toolkit = root;
    rc = gpublob_tool_info_get(g, &inproc, 1, &t, sizeof t);
    check(rc == 0 && same_str(t.path, link), "toolkit: DIR/lib64 holds nvJitLink", "rc %d: %s", rc,
          rc ? gpublob_error_message(g) : t.path);
  } else {
    skip("toolkit: DIR/lib64 holds nvJitLink", "libnvJitLink not found");
  }
  const char *libs = NULL;
  gpublob_options amd = {.version = GPUBLOB_OPTIONS_VERSION, .target = "amdgcn:gfx90a",
                         .flags = GPUBLOB_FLAG_NO_DEFAULT_SEARCH};
  rc = gpublob_libs_find(g, &amd, &libs);
  check(rc == GPUBLOB_NOLIB, "toolkit: without it, --no-default-search finds no ocml.bc", "rc %d", rc);
  amd.flags = 0;
  rc = gpublob_libs_find(g, &amd, &libs);
  char first[512] = "";
  if (!rc && libs) sscanf(libs, "%511[^\n]", first);
  char *slash = strrchr(first, '/');
  if (!rc && slash) {
    *slash = 0;
    snprintf(dir, sizeof dir, "%s/amdgcn", root);
    mkdir(dir, 0700);
    snprintf(link, sizeof link, "%s/bitcode", dir);
    check(symlink(first, link) == 0, "toolkit: setup (bitcode)", NULL);
    amd.flags = GPUBLOB_FLAG_NO_DEFAULT_SEARCH;
    amd.toolkit = root;
    rc = gpublob_libs_find(g, &amd, &libs);
    check(rc == 0 && contains(libs, link), "toolkit: DIR/amdgcn/bitcode holds the device libraries", "rc %d: %s",
          rc, rc ? gpublob_error_message(g) : libs);
  } else {
    skip("toolkit: DIR/amdgcn/bitcode", "ROCm device libraries not found");
  }
}

#if GPUBLOB_MLIR
/* ---- MLIR: the target attributes' keys and flags ---- */
static const char *kernel_mlir(const char *targets, const char *cc) {
  static char text[2048];
  snprintf(text, sizeof text,
           "module attributes {gpu.container_module} {\n  gpu.module @k %s {\n"
           "    llvm.func @helper(f32) -> f32\n"
           "    llvm.func %s @kern(%%a: !llvm.ptr<1>, %%x: f32) attributes {gpu.kernel%s} {\n"
           "      %%r = llvm.call @helper(%%x) : (f32) -> f32\n"
           "      llvm.store %%r, %%a : f32, !llvm.ptr<1>\n      llvm.return\n    }\n  }\n}\n",
           targets, cc, strcmp(cc, "") ? "" : ", nvvm.kernel");
  return text;
}

static char *compile_mlir_text(const gpublob_options *o, const char *text, int *rc) {
  gpublob_blob b = {0};
  *rc = gpublob_mlir_compile(g, o, text, strlen(text), "in.mlir", &b);
  if (*rc) return NULL;
  char *s = malloc(b.size + 1);
  memcpy(s, b.data, b.size);
  s[b.size] = 0;
  gpublob_blob_free(&b);
  return s;
}

/* The "Used N registers" of a ptxas log in the MLIR text; -1 when absent. */
static int log_registers(const char *text) {
  const char *p = text ? strstr(text, "ISACompilerLog = ") : NULL;
  p = p ? strstr(p, "Used ") : NULL;
  return p ? atoi(p + 5) : -1;
}

/* fails(targets, code, needle): the attribute is refused with code, the message naming needle. */
static void refused(const char *name, const char *targets, const char *cc, int code, const char *needle) {
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .format = GPUBLOB_FORMAT_LLVM};
  int rc;
  char *out = compile_mlir_text(&o, kernel_mlir(targets, cc), &rc);
  check(rc == code && contains(gpublob_error_message(g), needle), name, "rc %d: %s", rc,
        rc ? gpublob_error_message(g) : "compiled");
  free(out);
}

/* with (an attribute with a link file) defines helper in the -O0 assembly: it holds
** defined and lacks undefined; without (the same, no file) holds undefined. */
static void link_shows(const char *what, const char *with, const char *without, const char *cc,
                       const char *defined, const char *undefined) {
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .format = GPUBLOB_FORMAT_ASM, .opt = GPUBLOB_OPT_O0};
  char name[200];
  int rc;
  char *out = compile_mlir_text(&o, kernel_mlir(with, cc), &rc);
  snprintf(name, sizeof name, "%s defines helper in the assembly", what);
  check(rc == 0 && contains(out, defined) && lacks(out, undefined), name, "rc %d: %s", rc,
        rc ? gpublob_error_message(g) : "");
  free(out);
  out = compile_mlir_text(&o, kernel_mlir(without, cc), &rc);
  snprintf(name, sizeof name, "%s: without it, helper is only declared in the assembly", what);
  check(rc == 0 && contains(out, undefined), name, "rc %d", rc);
  free(out);
}

static void test_nvvm(const char *helper) {
  char t[1024];
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .format = GPUBLOB_FORMAT_ASM};
  int rc;
  /* link: the helper is defined in the PTX (a .func of its own at -O0), not .extern */
  snprintf(t, sizeof t, "[#nvvm.target<O = 0, chip = \"sm_80\", link = [\"%s\"]>]", helper);
  link_shows("nvvm: link = [file]", t, "[#nvvm.target<O = 0, chip = \"sm_80\">]", "", ".func", ".extern .func");
  char *out;
  refused("nvvm: a missing link file is IO naming it", "[#nvvm.target<link = [\"/no/such/file.bc\"]>]", "",
          GPUBLOB_IO, "/no/such/file.bc");
  /* what MLIR's own verifier of the attribute refuses (PARSE, its message) */
  refused("nvvm: link = [1] is refused by MLIR naming link", "[#nvvm.target<link = [1]>]", "", GPUBLOB_PARSE,
          "`link` array must be strings");
  refused("nvvm: O = 7 is refused by MLIR naming the level", "[#nvvm.target<O = 7>]", "", GPUBLOB_PARSE,
          "optimization level must be a number between 0 and 3");
  refused("nvvm: an unknown flag is OPTION naming it", "[#nvvm.target<flags = {\"no-such-flag\"}>]", "",
          GPUBLOB_OPTION, "no-such-flag");
  refused("nvvm: another triple is TARGET naming it", "[#nvvm.target<triple = \"nvptx-nvidia-cuda\">]", "",
          GPUBLOB_TARGET, "nvptx-nvidia-cuda");
  refused("nvvm: ptxas-cmd-options that are no strings are OPTION",
          "[#nvvm.target<flags = {\"ptxas-cmd-options\" = [3]}>]", "", GPUBLOB_OPTION, "ptxas-cmd-options");
  /* fast, ftz, features, verifyTarget, chip: taken (their effects: test_mlir, test_libm) */
  out = compile_mlir_text(&o, kernel_mlir("[#nvvm.target<chip = \"sm_90\", features = \"+ptx80\", flags = {fast, "
                                          "ftz}, verifyTarget = false>]", ""), &rc);
  check(rc == 0 && contains(out, ".target sm_90") && contains(out, ".version 8.0"),
        "nvvm: chip, features, fast, ftz and verifyTarget are taken", "rc %d: %s", rc,
        rc ? gpublob_error_message(g) : "");
  free(out);
  if (!cuda) {
    skip("nvvm: ptxas-cmd-options and collect-compiler-diagnostics", "ptxas (CUDA toolkit) not found");
    return;
  }
  o.format = GPUBLOB_FORMAT_BIN;
  snprintf(t, sizeof t, "[#nvvm.target<chip = \"sm_80\", link = [\"%s\"], flags = {\"collect-compiler-diagnostics\", "
           "\"ptxas-cmd-options\" = [\"-v\"]}>]", helper);
  out = compile_mlir_text(&o, kernel_mlir(t, ""), &rc);
  check(rc == 0 && contains(out, "ISACompilerLog = ") && contains(out, "Compiling entry function 'kern'"),
        "nvvm: collect-compiler-diagnostics puts ptxas -v's log in properties' ISACompilerLog", "rc %d: %s", rc,
        rc ? gpublob_error_message(g) : "");
  free(out);
  snprintf(t, sizeof t, "[#nvvm.target<chip = \"sm_80\", link = [\"%s\"]>]", helper);
  out = compile_mlir_text(&o, kernel_mlir(t, ""), &rc);
  check(rc == 0 && lacks(out, "ISACompilerLog"), "nvvm: without the flag, no ISACompilerLog", "rc %d", rc);
  free(out);
  /* ptxas-cmd-options: the heavy kernel's register count, as ptxas's own log says */
  char *heavy = malloc(65536);
  const char *mlir_heavy_head = "module attributes {gpu.container_module} {\n  gpu.module @k %s {\n"
                                "    llvm.func @heavy(%%a: !llvm.ptr<1>, %%o: !llvm.ptr<1>) attributes {gpu.kernel, "
                                "nvvm.kernel} {\n";
  for (int pass = 0; pass < 3; pass++) {
    /* 0: -v alone; 1: -maxrregcount=32 too, ptxas; 2: the same in-process (nvJitLink's -verbose) */
    const char *flags = pass == 0 ? "\"collect-compiler-diagnostics\", \"ptxas-cmd-options\" = [\"-v\"]"
                                  : "\"collect-compiler-diagnostics\", \"ptxas-cmd-options\" = [\"-v\", "
                                    "\"-maxrregcount=32\"]";
    snprintf(t, sizeof t, "[#nvvm.target<chip = \"sm_80\", flags = {%s}>]", flags);
    size_t n = (size_t)snprintf(heavy, 65536, mlir_heavy_head, t);
    for (int i = 0; i < 48; i++)
      n += (size_t)snprintf(heavy + n, 65536 - n,
                            "      %%i%d = llvm.mlir.constant(%d : i64) : i64\n"
                            "      %%p%d = llvm.getelementptr %%a[%%i%d] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32\n"
                            "      %%v%d = llvm.load volatile %%p%d : !llvm.ptr<1> -> f32\n", i, i, i, i, i, i);
    for (int i = 0; i < 48; i++)
      n += (size_t)snprintf(heavy + n, 65536 - n,
                            "      %%m%d = llvm.fmul %%v%d, %%v%d : f32\n      %%n%d = llvm.fadd %%m%d, %%v%d : f32\n"
                            "      %%q%d = llvm.getelementptr %%o[%%i%d] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32\n"
                            "      llvm.store volatile %%n%d, %%q%d : f32, !llvm.ptr<1>\n",
                            i, i, (i * 7 + 3) % 48, i, i, (i * 5 + 1) % 48, i, i, i, i);
    snprintf(heavy + n, 65536 - n, "      llvm.return\n    }\n  }\n}\n");
    gpublob_options h = {.version = GPUBLOB_OPTIONS_VERSION,
                         .tool_mode = pass == 2 ? GPUBLOB_TOOL_INPROCESS : GPUBLOB_TOOL_PROGRAM};
    out = compile_mlir_text(&h, heavy, &rc);
    int regs = log_registers(out);
    if (pass == 0)
      check(rc == 0 && regs > 32, "nvvm: ptxas-cmd-options = [\"-v\"]: the log says more than 32 registers",
            "rc %d, %d registers: %s", rc, regs, rc ? gpublob_error_message(g) : "");
    else
      check(rc == 0 && regs > 0 && regs <= 32,
            pass == 1 ? "nvvm: ptxas-cmd-options = [\"-maxrregcount=32\"] limits ptxas to 32 registers"
                      : "nvvm: ptxas-cmd-options = [\"-maxrregcount=32\"] limits nvJitLink to 32 registers",
            "rc %d, %d registers: %s", rc, regs, rc ? gpublob_error_message(g) : "");
    free(out);
  }
  free(heavy);
}

static void test_section(const char *helper) {
  if (!cuda) {
    skip("section: properties and mlir-translate's global", "ptxas (CUDA toolkit) not found");
    return;
  }
  char t[512];
  snprintf(t, sizeof t, "[#nvvm.target<chip = \"sm_80\", link = [\"%s\"]>]", helper);
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .section = "__gpublob_test_section"};
  int rc;
  char *out = compile_mlir_text(&o, kernel_mlir(t, ""), &rc);
  check(rc == 0 && contains(out, "section = \"__gpublob_test_section\""),
        "section: each #gpu.object's properties name it", "rc %d: %s", rc, rc ? gpublob_error_message(g) : "");
  const char *path = tmp_path("section.mlir");
  if (out) spill(path, out, strlen(out));
  const char *argv[] = {MLIR_TRANSLATE, "--mlir-to-llvmir", path, NULL};
  char *ir = NULL;
  int tr = out ? run(argv, &ir) : -1;
  if (have_program(MLIR_TRANSLATE))
    check_if(out, tr == 0 && contains(ir, "section \"__gpublob_test_section\""),
             "section: mlir-translate-22 puts the blob's global in it", "exit %d", tr);
  else skip("section: mlir-translate-22 puts the blob's global in it", MLIR_TRANSLATE " not found (mlir-22-tools)");
  free(ir);
  free(out);
}

/* The external pass gets the options: a pass manager running it writes the section
** and the log, and links the file (the caller's strings may change meanwhile). */
typedef struct text_sink {
  char *s;
  size_t n, cap;
} text_sink;

static void to_sink(MlirStringRef r, void *arg) {
  text_sink *t = arg;
  if (t->n + r.length + 1 > t->cap) {
    size_t cap = (t->n + r.length + 1) * 2;
    char *p = realloc(t->s, cap);
    if (!p) return;
    t->s = p;
    t->cap = cap;
  }
  memcpy(t->s + t->n, r.data, r.length);
  t->n += r.length;
  t->s[t->n] = 0;
}

static void test_pass_options(const char *helper) {
  if (!cuda) {
    skip("pass: the options reach gpublob_mlir_pass_create's pass", "ptxas (CUDA toolkit) not found");
    return;
  }
  char sect[64] = "__pass_section", opts[16] = "-v";
  const char *links[] = {helper};
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .section = sect, .link = links, .nlink = 1,
                       .tool_options = opts, .flags = GPUBLOB_FLAG_TOOL_LOG};
  MlirDialectRegistry r = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(r);
  MlirContext ctx = mlirContextCreateWithRegistry(r, false);
  mlirDialectRegistryDestroy(r);
  MlirOperation top = mlirOperationCreateParse(
      ctx, mlirStringRefCreateFromCString(kernel_mlir("[#nvvm.target<chip = \"sm_80\">]", "")),
      mlirStringRefCreateFromCString("pass.mlir"));
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  mlirPassManagerAddOwnedPass(pm, gpublob_mlir_pass_create(&o));
  strcpy(sect, "__changed"); /* the pass keeps its own copies */
  strcpy(opts, "--bad");
  int ok = !mlirOperationIsNull(top) && mlirLogicalResultIsSuccess(mlirPassManagerRunOnOp(pm, top));
  text_sink t = {0};
  if (ok) mlirOperationPrint(top, to_sink, &t);
  check(ok, "pass: gpublob_mlir_pass_create's pass runs with link, opts, section and the log flag", NULL);
  check_if(ok, contains(t.s, "section = \"__pass_section\"") && contains(t.s, "ISACompilerLog = \"") &&
                   contains(t.s, "Compiling entry function 'kern'"),
           "pass: its objects' properties hold the section and ptxas -v's log", "%.300s", shown(t.s));
  free(t.s);
  mlirPassManagerDestroy(pm);
  if (!mlirOperationIsNull(top)) mlirOperationDestroy(top);
  mlirContextDestroy(ctx);
}

static void test_rocdl(void) {
  const char *helper = helper_bc("amdgcn-amd-amdhsa", "helper_amd.bc", "3.0");
  char t[512];
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION};
  int rc;
  if (rocm) {
    snprintf(t, sizeof t, "[#rocdl.target<chip = \"gfx90a\", link = [\"%s\"]>]", helper);
    char *out = compile_mlir_text(&o, kernel_mlir(t, "amdgpu_kernelcc"), &rc);
    check(rc == 0, "rocdl: link = [file]: ld.lld --no-undefined links the hsaco", "rc %d: %s", rc,
          rc ? gpublob_error_message(g) : "");
    free(out);
    out = compile_mlir_text(&o, kernel_mlir("[#rocdl.target<chip = \"gfx90a\">]", "amdgpu_kernelcc"), &rc);
    check(rc != 0 && contains(gpublob_error_message(g), "helper"), "rocdl: without link, helper is unresolved",
          "rc %d: %s", rc, rc ? gpublob_error_message(g) : "compiled");
    free(out);
  } else {
    skip("rocdl: link = [file] through ld.lld", "ld.lld or the ROCm device libraries not found");
  }
  refused("rocdl: an unknown flag is OPTION naming it", "[#rocdl.target<flags = {ftz}>]", "amdgpu_kernelcc",
          GPUBLOB_OPTION, "'ftz'");
  refused("rocdl: abi = \"x\" is OPTION naming it", "[#rocdl.target<abi = \"x\">]", "amdgpu_kernelcc",
          GPUBLOB_OPTION, "abi");
  if (!need_rocm("rocdl: chip, abi, features and every flag MLIR 22 reads are taken")) return;
  gpublob_options l = {.version = GPUBLOB_OPTIONS_VERSION, .format = GPUBLOB_FORMAT_LLVM};
  char *out = compile_mlir_text(&l, kernel_mlir("[#rocdl.target<chip = \"gfx1100\", abi = \"500\", features = "
                                                "\"+cumode\", flags = {wave64, daz, finite_only, unsafe_math, "
                                                "unsafe_sqrt, fast}>]", "amdgpu_kernelcc"), &rc);
  check(rc == 0, "rocdl: chip, abi, features and every flag MLIR 22 reads are taken", "rc %d: %s", rc,
        rc ? gpublob_error_message(g) : "");
  free(out);
}

/* The bytes of the first #gpu.object's bin = "..." in MLIR text (MLIR's escapes: \HH, \\, \"). */
static size_t object_bin(const char *text, unsigned char *out, size_t max) {
  const char *p = text ? strstr(text, "bin = \"") : NULL;
  size_t n = 0;
  for (p = p ? p + 7 : NULL; p && *p && *p != '"' && n < max; n++) {
    if (*p == '\\' && isxdigit((unsigned char)p[1]) && isxdigit((unsigned char)p[2])) {
      char h[3] = {p[1], p[2], 0};
      out[n] = (unsigned char)strtoul(h, NULL, 16);
      p += 3;
    } else if (*p == '\\' && p[1]) {
      out[n] = (unsigned char)p[1];
      p += 2;
    } else {
      out[n] = (unsigned char)*p++;
    }
  }
  return n;
}

/* XeVM: SPIR-V from the xevm lowering (spirv-val); bin is the SPIR-V module, as
** mlir-opt-22 gives it, ocloc's native binary only with --tool-mode program. */
static void test_xevm(void) {
  const char *gpu =
      "module attributes {gpu.container_module} {\n  gpu.module @k [#xevm.target<chip = \"pvc\"%s>] {\n"
      "    gpu.func @add(%%a: memref<16xf32>, %%b: memref<16xf32>) kernel {\n      %%i = gpu.thread_id x\n"
      "      %%v = memref.load %%a[%%i] : memref<16xf32>\n      %%w = arith.addf %%v, %%v : f32\n"
      "      memref.store %%w, %%b[%%i] : memref<16xf32>\n      gpu.return\n    }\n  }\n}\n";
  char text[2048];
  snprintf(text, sizeof text, gpu, "");
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .format = GPUBLOB_FORMAT_ASM,
                       .attach = GPUBLOB_ATTACH_LEGACY};
  gpublob_blob b = {0};
  int rc = gpublob_mlir_compile(g, &o, text, strlen(text), "x.mlir", &b);
  check(rc == 0 && contains((const char *)b.data, "gpublob.xevm = \"") &&
            contains((const char *)b.data, "SubgroupSize 16"),
        "xevm: #xevm.target lowers to SPIR-V text, its kernel at sub-group size 16", "rc %d: %s", rc,
        rc ? gpublob_error_message(g) : "");
  gpublob_blob_free(&b);
  /* the SPIR-V itself: -t xevm on the lowered LLVM IR, assembled and validated */
  gpublob_options ir = {.version = GPUBLOB_OPTIONS_VERSION, .target = "xevm", .format = GPUBLOB_FORMAT_ASM};
  const char *spirv_kernel = "target triple = \"spirv64-unknown-unknown\"\n"
                             "define spir_kernel void @k(ptr addrspace(1) %a) {\n"
                             "  store float 1.0, ptr addrspace(1) %a\n  ret void\n}\n";
  rc = compile_ir(&ir, spirv_kernel, &b);
  const char *spvasm = tmp_path("x.spvasm"), *spv = tmp_path("x.spv");
  if (!rc) spill(spvasm, b.data, b.size);
  gpublob_blob_free(&b);
  const char *as[] = {SPIRV_AS, spvasm, "-o", spv, NULL}, *val[] = {SPIRV_VAL, spv, NULL};
  char *out = NULL;
  int ar = rc ? -1 : run(as, &out), vr = -1;
  free(out);
  out = NULL;
  if (!ar) vr = run(val, &out);
  if (have_program(SPIRV_VAL))
    check(rc == 0 && ar == 0 && vr == 0, "xevm: the SPIR-V passes spirv-val", "rc %d, spirv-as %d, spirv-val %d: %s",
          rc, ar, vr, shown(out));
  else skip("xevm: the SPIR-V passes spirv-val", "spirv-as or spirv-val not found (spirv-tools)");
  free(out);
  /* -f bin: the SPIR-V module, mlir-opt-22's bytes, with no tool */
  gpublob_options plain = {.version = GPUBLOB_OPTIONS_VERSION, .flags = GPUBLOB_FLAG_NO_DEFAULT_SEARCH};
  rc = gpublob_mlir_compile(g, &plain, text, strlen(text), "x.mlir", &b);
  static unsigned char ours[65536], theirs[65536];
  size_t on = rc ? 0 : object_bin((const char *)b.data, ours, sizeof ours);
  gpublob_blob_free(&b);
  check(rc == 0 && on > 20 && !memcmp(ours, "\x03\x02\x23\x07", 4), "xevm: -f bin is a SPIR-V module, with no tool",
        "rc %d: %s", rc, rc ? gpublob_error_message(g) : "");
  const char *mlir_in = tmp_path("xevm.mlir"), *mlir_out = tmp_path("xevm.up.mlir");
  spill(mlir_in, text, strlen(text));
  if (!have_program(LLVM_BINDIR "/mlir-opt")) {
    skip("xevm: -f bin is mlir-opt-22's SPIR-V, byte for byte", "no mlir-opt-22");
  } else {
    const char *up[] = {LLVM_BINDIR "/mlir-opt", mlir_in,
                        "--pass-pipeline=builtin.module(gpu.module(convert-scf-to-cf,convert-gpu-to-llvm-spv{"
                        "use-64bit-index=true},convert-xevm-to-llvm,convert-to-llvm,reconcile-unrealized-casts),"
                        "gpu-module-to-binary{format=bin})",
                        "-o", mlir_out, NULL};
    char *upl = NULL;
    int ur = run(up, &upl);
    free(upl);
    char *upt = (char *)slurp(mlir_out, NULL);
    size_t tn = upt ? object_bin(upt, theirs, sizeof theirs) : 0;
    free(upt);
    check(ur == 0 && tn == on && on && !memcmp(ours, theirs, on), "xevm: -f bin is mlir-opt-22's SPIR-V, byte for byte",
          "mlir-opt exit %d: %zu and %zu bytes", ur, on, tn);
  }
  /* --tool-mode program: ocloc, searched in the toolkit and $PATH; a fake one writes a known binary */
  gpublob_options bin = {.version = GPUBLOB_OPTIONS_VERSION, .flags = GPUBLOB_FLAG_NO_DEFAULT_SEARCH,
                         .tool_mode = GPUBLOB_TOOL_PROGRAM};
  rc = gpublob_mlir_compile(g, &bin, text, strlen(text), "x.mlir", &b);
  check(rc == GPUBLOB_NOTOOL && contains(gpublob_error_message(g), "ocloc not found"),
        "xevm: --tool-mode program without ocloc is NOTOOL naming it", "rc %d: %s", rc, gpublob_error_message(g));
  char root[512], dir[600], fake[700];
  snprintf(root, sizeof root, "%s", tmp_path("oneapi"));
  snprintf(dir, sizeof dir, "%s/bin", root);
  snprintf(fake, sizeof fake, "%s/ocloc", dir);
  mkdir(root, 0700);
  mkdir(dir, 0700);
  char script[4096];
  snprintf(script, sizeof script,
           "#!/bin/sh\n# ocloc compile -file IN -spirv_input -device CHIP -output OUT -output_no_suffix\n"
           "[ \"$1\" = compile ] || exit 9\nwhile [ $# -gt 0 ]; do case \"$1\" in\n"
           "  -file) in=$2; shift;; -device) dev=$2; shift;; -output) out=$2; shift;;\n"
           "  -options) printf '[%%s]' \"$2\" > '%s/ocloc-options'; shift;; esac; shift; done\n"
           "cp \"$in\" '%s/ocloc-input.spv' || exit 8\n"
           "printf '\\177ELF-fake-ocloc-for-%%s' \"$dev\" > \"$out.bin\"\n", root, root);
  spill(fake, script, strlen(script));
  chmod(fake, 0755);
  bin.toolkit = root;
  bin.tool_options = "-g  '-cl-opt-disable'";
  rc = gpublob_mlir_compile(g, &bin, text, strlen(text), "x.mlir", &b);
  check(rc == 0 && contains((const char *)b.data, "bin = \"\\7FELF-fake-ocloc-for-pvc\""),
        "xevm: -f bin: ocloc's output (for -device pvc) is the #gpu.object", "rc %d: %s", rc,
        rc ? gpublob_error_message(g) : (const char *)b.data);
  gpublob_blob_free(&b);
  char input[700];
  snprintf(input, sizeof input, "%s/ocloc-options", root);
  unsigned char *given = slurp(input, &(size_t){0});
  check(same_str((const char *)given, "[-g -cl-opt-disable]"), "xevm: the tool options reach ocloc as one -options word",
        "%s", shown((const char *)given));
  free(given);
  snprintf(input, sizeof input, "%s/ocloc-input.spv", root);
  const char *val2[] = {SPIRV_VAL, input, NULL};
  out = NULL;
  vr = rc ? -1 : run(val2, &out);
  if (have_program(SPIRV_VAL))
    check(vr == 0, "xevm: the SPIR-V handed to ocloc passes spirv-val", "spirv-val %d: %s", vr, shown(out));
  else skip("xevm: the SPIR-V handed to ocloc passes spirv-val", "spirv-val not found (spirv-tools)");
  free(out);
  /* linkFiles: the SPIR-V defines helper, not only imports it */
  const char *helper = helper_bc("spirv64-unknown-unknown", "helper_spv.bc", "3.0");
  char attr[600];
  snprintf(attr, sizeof attr, "[#xevm.target<linkFiles = [\"%s\"]>]", helper);
  link_shows("xevm: linkFiles = [file]", attr, "[#xevm.target]", "spir_kernelcc", "\\22helper\\22 Export",
             "\\22helper\\22 Import");
  refused("xevm: a flag is OPTION naming it", "[#xevm.target<flags = {\"cmd-options\"}>]", "spir_kernelcc",
          GPUBLOB_OPTION, "cmd-options");
  refused("xevm: O = 4 is OPTION naming it", "[#xevm.target<O = 4>]", "spir_kernelcc", GPUBLOB_OPTION, "O = 4");
  refused("xevm: a chip the spec lacks is CHIP", "[#xevm.target<chip = \"nochip\">]", "spir_kernelcc",
          GPUBLOB_CHIP, "nochip");
}
#endif

int main(void) {
  if (gpublob_open(&g)) return 1;
  cuda = have_ptxas();
  const char *lib = NULL;
  gpublob_options amd = {.version = GPUBLOB_OPTIONS_VERSION, .target = "amdgcn"};
  gpublob_tool_info t;
  rocm = !gpublob_libs_find(g, &amd, &lib) && !gpublob_tool_info_get(g, &amd, 1, &t, sizeof t);
  test_link_option();
  test_link_cache();
  test_opts();
  test_toolkit();
#if GPUBLOB_MLIR
  const char *helper = helper_bc("nvptx64-nvidia-cuda", "helper_nv.bc", "3.0");
  test_nvvm(helper);
  test_section(helper);
  test_pass_options(helper);
  test_rocdl();
  test_xevm();
#else
  skip("mlir: the target attributes", "gpublob was configured without MLIR");
#endif
  gpublob_close(g);
  return report();
}
