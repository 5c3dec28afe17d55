/* test_clang: LLVM IR as real frontends write it, through the CLI.
**
** At test time clang-22 compiles the sources in tests/clang/ (CUDA, HIP, OpenCL C)
** to LLVM IR text, with the functions pinned to a chip ("target-cpu",
** "target-features") as clang pins them; build/gpublob compiles that IR, and the
** outputs are checked with the real tools: llvm-readelf, llvm-objdump, ptxas,
** spirv-val.  The pins make a job for another chip CHIP unless --retarget, which
** rewrites them to the job's chip (wave32 code on gfx1030, not gfx90a's wave64).
** A module of another target (OpenCL's spir_kernel, triple spirv64) is TARGET.
** Parts whose tool is missing (ptxas) are skipped with the reason. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpublob.h"
#include "testlib.h"

#define CLANG LLVM_BINDIR "/clang"
#define READELF LLVM_BINDIR "/llvm-readelf"
#define OBJDUMP LLVM_BINDIR "/llvm-objdump"
#define CLI "build/gpublob"
#define SRC "tests/clang/"

static char ptxas[4096]; /* "" when the CUDA toolkit is missing */


/* build/gpublob --no-cache ARGS; its exit status, its stderr and stdout in *log. */
static int gpublob_cli(const char *const *args, char **log) {
  const char *argv[40];
  int n = 0;
  argv[n++] = CLI;
  argv[n++] = "--no-cache";
  for (; *args && n < 38; args++) argv[n++] = *args;
  argv[n] = NULL;
  return run(argv, log);
}

static char *tool_output(const char *const *argv, int *rc) {
  char *out = NULL;
  int r = run(argv, &out);
  if (rc) *rc = r;
  return out ? out : strdup("");
}

static int starts_elf(const char *path) {
  size_t n = 0;
  unsigned char *b = slurp(path, &n);
  int ok = n > 16 && is_elf(b, n);
  free(b);
  return ok;
}

/* Lines of text that start with prefix and hold one of the words. */
static int count_lines(const char *text, const char *prefix, const char *const *words) {
  int n = 0;
  for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
    if (strncmp(p, prefix, strlen(prefix))) continue;
    const char *end = strchr(p, '\n');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    char line[2048];
    snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), p);
    for (const char *const *w = words; *w; w++)
      if (strstr(line, *w)) {
        n++;
        break;
      }
  }
  return n;
}

static const char *const retarget_words[] = {"retarget", "pinned", "pin", NULL};

/* "NAME: what" into buf, for one property of the case NAME. */
static const char *part(char *buf, size_t size, const char *name, const char *what) {
  snprintf(buf, size, "%s: %s", name, what);
  return buf;
}
#define PART(what) part(label, sizeof label, name, what)

/* stderr's first line is the error. */
static int error_first(const char *log) { return !strncmp(log ? log : "", "gpublob: error: ", 16); }

/* ---- CUDA ---- */
static int ptxas_accepts(const char *ptx, const char *arch, char **log) {
  char a[64];
  snprintf(a, sizeof a, "-arch=%s", arch);
  const char *argv[] = {ptxas, a, ptx, "-o", "/dev/null", NULL};
  return run(argv, log) == 0;
}

static void cuda_kernel(const char *src, const char *stem, const char *kernel, int debug) {
  char ll[4200], cubin[4200], ptx[4200], name[256], label[400];
  snprintf(ll, sizeof ll, "%s/cuda_%s.ll", scratch(), stem);
  snprintf(cubin, sizeof cubin, "%s/cuda_%s.cubin", scratch(), stem);
  snprintf(ptx, sizeof ptx, "%s/cuda_%s.ptx", scratch(), stem);
  const char *plain[] = {"-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_90", "-nocudainc", "-nocudalib",
                         "-O2", "-S", "-emit-llvm", NULL};
  const char *withg[] = {"-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_90", "-nocudainc", "-nocudalib",
                         "-O2", "-g", "-S", "-emit-llvm", NULL};
  char what[128];
  snprintf(what, sizeof what, "CUDA %s (sm_90%s) to LLVM IR", src, debug ? ", -g" : "");
  if (clang_ir(debug ? withg : plain, src, ll, what)) return;
  char *ir = (char *)slurp(ll, NULL);
  snprintf(name, sizeof name, "cuda %s: clang pins the kernel to sm_90", stem);
  check(contains(ir, "\"target-cpu\"=\"sm_90\""), name, NULL);
  check(contains(ir, "ptx_kernel"), PART("a ptx_kernel"), NULL);
  free(ir);

  /* PTX for sm_90, which ptxas accepts */
  char *log = NULL, *out = NULL;
  const char *asm_args[] = {"-t", "nvptx:sm_90", "-f", "asm", ll, "-o", ptx, NULL};
  int rc = gpublob_cli(asm_args, &log);
  char *text = (char *)slurp(ptx, NULL);
  char entry[160];
  snprintf(entry, sizeof entry, ".entry %s", kernel);
  snprintf(name, sizeof name, "cuda %s: -f asm -t nvptx:sm_90 gives PTX for sm_90 with the kernel", stem);
  check(rc == 0, PART("exit 0"), "exit %d: %s", rc, log);
  check(contains(text, ".target sm_90"), PART(".target sm_90"), "%.300s", text ? text : "(no PTX)");
  check(contains(text, entry), name, "no '%s' in %.300s", entry, text ? text : "(no PTX)");
  /* the PTX version clang pins ("target-features"="+ptx88") is the module's, as in clang's own PTX */
  char clang_ptx[4200];
  snprintf(clang_ptx, sizeof clang_ptx, "%s/cuda_%s.clang.ptx", scratch(), stem);
  const char *to_ptx[] = {"-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_90", "-nocudainc", "-nocudalib",
                          "-O2", "-S", debug ? "-g" : "-O2", NULL};
  snprintf(what, sizeof what, "CUDA %s (sm_90) to PTX", src);
  if (!clang_ir(to_ptx, src, clang_ptx, what)) {
    char *theirs = (char *)slurp(clang_ptx, NULL);
    const char *v1 = text ? strstr(text, "\n.version ") : NULL, *v2 = theirs ? strstr(theirs, "\n.version ") : NULL;
    size_t n1 = v1 ? strcspn(v1 + 1, "\n") : 0, n2 = v2 ? strcspn(v2 + 1, "\n") : 0;
    snprintf(name, sizeof name, "cuda %s: the PTX's .version is clang's (the version clang pins)", stem);
    check(v1 && v2 && n1 == n2 && !memcmp(v1, v2, n1 + 1), name, "gpublob %.*s, clang %.*s", (int)n1,
          v1 ? v1 + 1 : "", (int)n2, v2 ? v2 + 1 : "");
    free(theirs);
  }
  if (debug) {
    snprintf(name, sizeof name, "cuda %s: the PTX keeps clang's debug information (.loc, .file)", stem);
    check(contains(text, ".loc"), PART(".loc"), NULL);
    check(contains(text, ".file"), PART(".file"), NULL);
  }
  if (!strcmp(stem, "reduce")) {
    snprintf(name, sizeof name, "cuda %s: the PTX has the shared array and an atomic add", stem);
    check(contains(text, ".shared"), PART("the shared array"), NULL);
    check(contains(text, "atom.") || contains(text, "red."), PART("an atomic add"), NULL);
  }
  free(log);
  log = NULL;
  snprintf(name, sizeof name, "cuda %s: ptxas -arch=sm_90 accepts the PTX", stem);
  if (!*ptxas) skip(name, "CUDA toolkit (ptxas) not found");
  else if (rc == 0) check(ptxas_accepts(ptx, "sm_90", &log), name, "%s", log);
  else check(0, name, "no PTX");
  free(log);
  free(text);
  log = NULL;

  /* a cubin for sm_90, made by ptxas, with the kernel symbol */
  snprintf(name, sizeof name, "cuda %s: -t nvptx:sm_90 gives a cubin from ptxas with the kernel symbol", stem);
  if (!*ptxas) {
    skip(name, "CUDA toolkit (ptxas) not found");
  } else {
    const char *bin_args[] = {"-t", "nvptx:sm_90", ll, "-o", cubin, NULL};
    rc = gpublob_cli(bin_args, &log);
    const char *syms[] = {READELF, "-s", cubin, NULL}, *hdr[] = {READELF, "-h", "-S", cubin, NULL};
    char *s = rc == 0 ? tool_output(syms, NULL) : strdup(""), *h = rc == 0 ? tool_output(hdr, NULL) : strdup("");
    int sym = 0;
    for (const char *p = s; (p = strstr(p, kernel)); p++)
      if (p[strlen(kernel)] == '\n' || p[strlen(kernel)] == 0) sym = 1;
    /* EM_CUDA, and the .nv.info sections only ptxas writes */
    check(rc == 0, PART("exit 0"), "exit %d: %s", rc, log);
    check(starts_elf(cubin), PART("an ELF"), "%s", cubin);
    check(sym, name, "no symbol %s: %s", kernel, s);
    check(contains(s, "FUNC"), PART("a FUNC symbol"), "%s", s);
    check(contains(h, "NVIDIA CUDA"), PART("EM_CUDA (readelf: NVIDIA CUDA)"), "%.400s", h);
    check(contains(h, ".nv.info"), PART("ptxas's .nv.info sections"), "%.400s", h);
    free(s);
    free(h);
    free(log);
    log = NULL;
  }

  /* the same IR for sm_80: CHIP without --retarget, sm_80 PTX with it */
  char ptx80[4200];
  snprintf(ptx80, sizeof ptx80, "%s/cuda_%s.sm_80.ptx", scratch(), stem);
  const char *chip_args[] = {"-t", "nvptx:sm_80", "-f", "asm", ll, "-o", ptx80, NULL};
  rc = gpublob_cli(chip_args, &log);
  char fn[160];
  snprintf(fn, sizeof fn, "@%s", kernel);
  snprintf(name, sizeof name, "cuda %s: -t nvptx:sm_80 without --retarget is CHIP naming the function, sm_90, sm_80, --retarget",
           stem);
  check(rc == 10 + GPUBLOB_CHIP, name, "exit %d: %s", rc, log);
  check(!exists(ptx80), PART("no output"), "%s is there", ptx80);
  check(error_first(log), PART("stderr starts 'gpublob: error: '"), "%s", log);
  check(contains(log, kernel), PART("the message names the function"), "%s", log);
  check(contains(log, "sm_90"), PART("the message names sm_90"), "%s", log);
  check(contains(log, "sm_80"), PART("the message names sm_80"), "%s", log);
  check(contains(log, "--retarget"), PART("the message names --retarget"), "%s", log);
  free(log);
  log = NULL;
  const char *re_args[] = {"--retarget", "-t", "nvptx:sm_80", "-f", "asm", ll, "-o", ptx80, NULL};
  rc = gpublob_cli(re_args, &log);
  text = (char *)slurp(ptx80, NULL);
  snprintf(name, sizeof name, "cuda %s: --retarget -t nvptx:sm_80 gives sm_80 PTX, with one warning", stem);
  check(rc == 0, PART("exit 0"), "exit %d: %s", rc, log);
  check(contains(text, ".target sm_80"), name, "%.300s", text ? text : "(no PTX)");
  check(lacks(text, "sm_90"), PART("no sm_90 left"), "%.300s", text ? text : "(no PTX)");
  check(count_lines(log, "gpublob: warning:", retarget_words) == 1, PART("one warning"), "%s", log);
  free(log);
  log = NULL;
  snprintf(name, sizeof name, "cuda %s: ptxas -arch=sm_80 accepts the retargeted PTX", stem);
  if (!*ptxas) skip(name, "CUDA toolkit (ptxas) not found");
  else if (rc == 0 && text) check(ptxas_accepts(ptx80, "sm_80", &log), name, "%s", log);
  else check(0, name, "no PTX");
  free(log);
  free(text);
  free(out);
}

/* ---- HIP ---- */
typedef struct hsaco_facts {
  int elf, mach, wave64, wave32, named, decoded, illegal;
  char *notes, *dis;
} hsaco_facts;

static hsaco_facts look_at_hsaco(const char *path, const char *chip, const char *kernel) {
  hsaco_facts f = {0};
  f.elf = starts_elf(path);
  char mcpu[64], flags[80], nameline[160];
  snprintf(mcpu, sizeof mcpu, "--mcpu=%s", chip);
  const char *hdr[] = {READELF, "-h", path, NULL}, *notes[] = {READELF, "--notes", path, NULL},
             *dis[] = {OBJDUMP, "-d", mcpu, path, NULL};
  char *h = tool_output(hdr, NULL);
  snprintf(flags, sizeof flags, ", %s", chip); /* Flags: 0x53f, gfx90a, xnack, sramecc */
  for (const char *p = h; (p = strstr(p, flags)); p++) {
    char after = p[strlen(flags)];
    if (after == ',' || after == '\n' || after == 0) f.mach = 1;
  }
  f.notes = tool_output(notes, NULL);
  f.wave64 = contains(f.notes, ".wavefront_size: 64");
  f.wave32 = contains(f.notes, ".wavefront_size: 32");
  snprintf(nameline, sizeof nameline, ".name:           %s", kernel);
  f.named = contains(f.notes, nameline) || contains(f.notes, kernel);
  f.dis = tool_output(dis, NULL);
  f.decoded = contains(f.dis, "s_endpgm");
  f.illegal = contains(f.dis, "v_illegal") || contains(f.dis, "<unknown>");
  free(h);
  return f;
}

/* The disassembly's lines that did not decode, at most five, for a message. */
static const char *illegal_lines(const char *dis) {
  static char buf[1200];
  buf[0] = 0;
  int n = 0;
  for (const char *p = dis; p && *p && n < 5; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
    const char *end = strchr(p, '\n');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    char line[300];
    snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), p);
    if (!strstr(line, "v_illegal") && !strstr(line, "<unknown>")) continue;
    size_t at = strlen(buf);
    snprintf(buf + at, sizeof buf - at, "\n  %s", line);
    n++;
  }
  return *buf ? buf : " (nothing decoded)";
}

static void facts_free(hsaco_facts *f) {
  free(f->notes);
  free(f->dis);
}

static void hip_kernel(const char *src, const char *stem, const char *kernel) {
  char ll[4200], hsaco[4200], pattern[4200], name[300], label[400];
  snprintf(ll, sizeof ll, "%s/hip_%s.ll", scratch(), stem);
  snprintf(hsaco, sizeof hsaco, "%s/hip_%s.hsaco", scratch(), stem);
  const char *flags[] = {"-x", "hip", "--cuda-device-only", "--offload-arch=gfx90a", "-nogpuinc", "-nogpulib",
                         "-O2", "-S", "-emit-llvm", NULL};
  char what[128];
  snprintf(what, sizeof what, "HIP %s (gfx90a) to LLVM IR", src);
  if (clang_ir(flags, src, ll, what)) return;
  char *ir = (char *)slurp(ll, NULL);
  snprintf(name, sizeof name, "hip %s: clang pins the kernel to gfx90a", stem);
  check(contains(ir, "\"target-cpu\"=\"gfx90a\""), name, NULL);
  check(contains(ir, "amdgpu_kernel"), PART("an amdgpu_kernel"), NULL);
  free(ir);

  /* gfx90a: its own chip, wave64, the kernel, code that decodes */
  char *log = NULL;
  const char *args[] = {"-t", "amdgcn:gfx90a", ll, "-o", hsaco, NULL};
  int rc = gpublob_cli(args, &log);
  hsaco_facts f = look_at_hsaco(hsaco, "gfx90a", kernel);
  snprintf(name, sizeof name, "hip %s: -t amdgcn:gfx90a gives an hsaco for gfx90a, wave64, with the kernel", stem);
  check(rc == 0, PART("exit 0"), "exit %d: %s", rc, log);
  check(f.elf, PART("an ELF"), "%s", hsaco);
  check(f.mach, PART("for gfx90a (e_flags)"), NULL);
  check(f.wave64, PART("wave64"), "%.300s", f.notes);
  check(f.named, name, "no %s in the notes", kernel);
  snprintf(name, sizeof name, "hip %s: llvm-objdump --mcpu=gfx90a decodes it, no v_illegal or <unknown>", stem);
  check(f.decoded, name, "%.300s", f.dis);
  check_if(rc == 0, !f.illegal, PART("no v_illegal or <unknown>"), "%s", illegal_lines(f.dis));
  if (!strcmp(stem, "asm")) {
    snprintf(name, sizeof name, "hip %s: the inline s_nop is in the code", stem);
    check(contains(f.dis, "s_nop 0"), name, NULL);
  }
  if (!strcmp(stem, "reduce")) {
    snprintf(name, sizeof name, "hip %s: the kernel's LDS (1024 bytes) is in its descriptor", stem);
    check(contains(f.notes, ".group_segment_fixed_size: 1024"), name, NULL);
  }
  facts_free(&f);
  free(log);
  log = NULL;
  size_t plain_n = 0;
  unsigned char *plain = slurp(hsaco, &plain_n);

  /* gfx90a and gfx1030 from gfx90a-pinned IR: CHIP without --retarget */
  snprintf(pattern, sizeof pattern, "%s/hip_%s.{chip}{suffix}", scratch(), stem);
  char out90a[4200], out1030[4200];
  snprintf(out90a, sizeof out90a, "%s/hip_%s.gfx90a.hsaco", scratch(), stem);
  snprintf(out1030, sizeof out1030, "%s/hip_%s.gfx1030.hsaco", scratch(), stem);
  const char *two[] = {"-t", "amdgcn:gfx90a,gfx1030", ll, "-o", pattern, NULL};
  rc = gpublob_cli(two, &log);
  snprintf(name, sizeof name,
           "hip %s: -t amdgcn:gfx90a,gfx1030 without --retarget is CHIP naming the function, gfx90a and gfx1030", stem);
  check(rc == 10 + GPUBLOB_CHIP, name, "exit %d: %s", rc, log);
  check(!exists(out90a), PART("no gfx90a output"), "%s is there", out90a);
  check(!exists(out1030), PART("no gfx1030 output"), "%s is there", out1030);
  check(error_first(log), PART("stderr starts 'gpublob: error: '"), "%s", log);
  check(contains(log, kernel), PART("the message names the function"), "%s", log);
  check(contains(log, "gfx90a"), PART("the message names gfx90a"), "%s", log);
  check(contains(log, "gfx1030"), PART("the message names gfx1030"), "%s", log);
  free(log);
  log = NULL;

  /* with --retarget: gfx1030 is wave32 code for gfx1030; gfx90a is as before */
  const char *re[] = {"--retarget", "-t", "amdgcn:gfx90a,gfx1030", ll, "-o", pattern, NULL};
  rc = gpublob_cli(re, &log);
  hsaco_facts g = look_at_hsaco(out1030, "gfx1030", kernel), a = look_at_hsaco(out90a, "gfx90a", kernel);
  snprintf(name, sizeof name, "hip %s: --retarget -t amdgcn:gfx90a,gfx1030", stem);
  check(rc == 0, PART("exit 0"), "exit %d: %s", rc, log);
  snprintf(name, sizeof name, "hip %s: --retarget: the gfx1030 hsaco is for gfx1030 and wave32", stem);
  check(g.elf, PART("an ELF"), "%s", out1030);
  check(g.mach, PART("for gfx1030 (e_flags)"), NULL);
  check(g.wave32, name, "%.300s", g.notes);
  check_if(rc == 0, !g.wave64, PART("not wave64"), "%.300s", g.notes);
  check(g.named, PART("the kernel"), "no %s in the notes", kernel);
  snprintf(name, sizeof name, "hip %s: --retarget: llvm-objdump --mcpu=gfx1030 decodes it, no v_illegal", stem);
  check(g.decoded, name, "%.300s", g.dis);
  check_if(rc == 0, !g.illegal, PART("no v_illegal or <unknown>"), "%s", illegal_lines(g.dis));
  snprintf(name, sizeof name, "hip %s: --retarget: the gfx90a hsaco is still gfx90a and wave64", stem);
  check(a.elf, PART("an ELF"), "%s", out90a);
  check(a.mach, PART("for gfx90a (e_flags)"), NULL);
  check(a.wave64, name, "%.300s", a.notes);
  check_if(rc == 0, !a.wave32, PART("not wave32"), "%.300s", a.notes);
  check(a.named, PART("the kernel"), "no %s in the notes", kernel);
  size_t re_n = 0;
  unsigned char *re90a = slurp(out90a, &re_n);
  snprintf(name, sizeof name, "hip %s: --retarget: the gfx90a hsaco is byte-identical to the one without it", stem);
  check(plain != NULL, PART("the one without it"), "no %s", hsaco);
  check(re90a != NULL, PART("the one with it"), "no %s", out90a);
  check_if(plain && re90a, plain_n == re_n && !memcmp(plain, re90a, re_n), name, "%zu bytes against %zu", re_n,
           plain_n);
  snprintf(name, sizeof name, "hip %s: --retarget warns once for the call", stem);
  check(count_lines(log, "gpublob: warning:", retarget_words) == 1, name, "%s", log);
  free(plain);
  free(re90a);
  facts_free(&g);
  facts_free(&a);
  free(log);
}

/* ---- OpenCL ---- */
static void opencl_kernel(void) {
  char ll[4200], spv[4200], ptx[4200];
  snprintf(ll, sizeof ll, "%s/cl_vadd.ll", scratch());
  snprintf(spv, sizeof spv, "%s/cl_vadd.spv", scratch());
  snprintf(ptx, sizeof ptx, "%s/cl_vadd.ptx", scratch());
  const char *flags[] = {"-cl-std=CL2.0", "-target", "spirv64", "-O2", "-S", "-emit-llvm", "-Xclang",
                         "-finclude-default-header", NULL};
  if (clang_ir(flags, SRC "vadd.cl", ll, "OpenCL vadd.cl (spirv64) to LLVM IR")) return;
  char *log = NULL;
  const char *args[] = {"-t", "spirv", ll, "-o", spv, NULL};
  int rc = gpublob_cli(args, &log);
  size_t n = 0;
  unsigned char *b = slurp(spv, &n);
  check(rc == 0, "opencl vadd: -t spirv gives a SPIR-V module", "exit %d: %s", rc, log);
  check(n > 20, "opencl vadd: -t spirv gives a SPIR-V module: more than 20 bytes", "%zu bytes", n);
  check_if(b && n >= 4, !memcmp(b, "\x03\x02\x23\x07", 4), "opencl vadd: -t spirv gives a SPIR-V module: the magic",
           NULL);
  free(b);
  free(log);
  log = NULL;
  if (!exists(SPIRV_VAL) && SPIRV_VAL[0] == '/') {
    skip("opencl vadd: spirv-val accepts it", "spirv-val not found");
  } else if (rc == 0) {
    const char *val[] = {SPIRV_VAL, spv, NULL};
    int vr = run(val, &log);
    check(vr == 0, "opencl vadd: spirv-val accepts it", "spirv-val exited %d: %s", vr, log);
    free(log);
    log = NULL;
  } else {
    check(0, "opencl vadd: spirv-val accepts it", "no SPIR-V");
  }
  const char *nv[] = {"-t", "nvptx", "-f", "asm", ll, "-o", ptx, NULL};
  rc = gpublob_cli(nv, &log);
#define NVCL "opencl vadd: the OpenCL module given to -t nvptx is TARGET (its triple, spir_kernel)"
  check(rc == 10 + GPUBLOB_TARGET, NVCL, "exit %d: %s", rc, log);
  check(!exists(ptx), NVCL ": no output", "%s is there", ptx);
  check(error_first(log), NVCL ": stderr starts 'gpublob: error: '", "%s", log);
  check(contains(log, "spirv"), NVCL ": the message names spirv", "%s", log);
#undef NVCL
  free(log);
  log = NULL;
  const char *am[] = {"-t", "amdgcn", "-f", "asm", ll, "-o", ptx, NULL};
  rc = gpublob_cli(am, &log);
  check(rc == 10 + GPUBLOB_TARGET, "opencl vadd: the OpenCL module given to -t amdgcn is TARGET", "exit %d: %s", rc,
        log);
  check(!exists(ptx), "opencl vadd: the OpenCL module given to -t amdgcn is TARGET: no output", "%s is there", ptx);
  free(log);
}

/* The lines of text that keep() keeps, each cut to the length it returns (0: dropped),
** into a buffer of its own. */
static char *filter_lines(const char *text, size_t (*keep)(const char *line, size_t len)) {
  size_t n = text ? strlen(text) : 0, o = 0;
  char *out = malloc(n + 1);
  for (const char *p = text; out && p && *p;) {
    size_t len = strcspn(p, "\n"), k = keep(p, len);
    if (k) {
      memcpy(out + o, p, k);
      o += k;
      out[o++] = '\n';
    }
    p += len + (p[len] == '\n');
  }
  if (out) out[o] = 0;
  return out;
}

/* A line up to its comment ("//"), without trailing blanks; 0 for one blank after that. */
static size_t code_of(const char *p, size_t len) {
  const char *cut = memmem(p, len, "//", 2);
  size_t keep = cut ? (size_t)(cut - p) : len;
  while (keep && (p[keep - 1] == ' ' || p[keep - 1] == '\t')) keep--;
  return keep;
}

/* Text without its comments and blank lines (LLVM's verbose assembly puts a comment
** where the plain one leaves a line empty). */
static char *without_comments(const char *text) { return filter_lines(text, code_of); }

/* The dump's ISA of a bin compile (--dump-dir DIR: DIR/STEM.TARGET.CHIP.3-isa.SUFFIX). */
static char *dumped_isa(const char *dir, const char *stem, const char *target, const char *suffix) {
  char path[4400];
  snprintf(path, sizeof path, "%s/%s.%s.3-isa%s", dir, stem, target, suffix);
  return (char *)slurp(path, NULL);
}

/* One job optimises one way, whatever its format: -f asm prints what -f bin assembles
** (the ISA --dump-dir keeps of the bin compile).  CUDA keeps every function, as clang
** does (its PTX is clang's -S PTX but for comments); HIP internalises all but the
** kernels, as clang's HIP does, so no unused or weak helper is left. */
static void formats_agree(const char *lang, const char *src, const char *target, const char *suffix) {
  char ll[4200], asm_out[4200], bin_out[4200], dir[4200], clang_asm[4200], name[300], label[400], stem[64];
  snprintf(stem, sizeof stem, "agree_%s", lang);
  snprintf(name, sizeof name, "%s helper: -f asm, -f bin and --dump-dir agree", lang);
  snprintf(ll, sizeof ll, "%s/%s.ll", scratch(), stem);
  snprintf(asm_out, sizeof asm_out, "%s/%s%s", scratch(), stem, suffix);
  snprintf(bin_out, sizeof bin_out, "%s/%s.bin", scratch(), stem);
  snprintf(dir, sizeof dir, "%s/%s-dump", scratch(), stem);
  snprintf(clang_asm, sizeof clang_asm, "%s/%s.clang%s", scratch(), stem, suffix);
  int cuda = !strcmp(lang, "cuda");
  const char *cu[] = {"-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_90", "-nocudainc", "-nocudalib",
                      "-O2", "-S", "-emit-llvm", NULL};
  const char *hip[] = {"-x", "hip", "--cuda-device-only", "--offload-arch=gfx90a", "-nogpuinc", "-nogpulib",
                       "-O2", "-S", "-emit-llvm", NULL};
  const char *cu_s[] = {"-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_90", "-nocudainc", "-nocudalib",
                        "-O2", "-S", NULL};
  char what[128];
  snprintf(what, sizeof what, "%s %s to LLVM IR", lang, src);
  if (clang_ir(cuda ? cu : hip, src, ll, what)) return;
  char *log = NULL;
  const char *a1[] = {"-t", target, "-f", "asm", ll, "-o", asm_out, NULL};
  const char *a2[] = {"-t", target, "--dump-dir", dir, ll, "-o", bin_out, NULL};
  int rc = gpublob_cli(a1, &log);
  free(log);
  log = NULL;
  int rc2 = gpublob_cli(a2, &log);
  check(rc == 0 && rc2 == 0, PART("both compile"), "exit %d, %d: %s", rc, rc2, shown(log));
  free(log);
  char dotted[64];
  snprintf(dotted, sizeof dotted, "%s", target);
  for (char *c = dotted; *c; c++) *c = *c == ':' ? '.' : *c;
  char *printed = (char *)slurp(asm_out, NULL), *assembled = dumped_isa(dir, stem, dotted, suffix);
  check(printed && assembled && !strcmp(printed, assembled), PART("-f asm prints what -f bin assembles"),
        "%zu and %zu bytes", printed ? strlen(printed) : 0, assembled ? strlen(assembled) : 0);
  if (cuda) {
    check(contains(printed, "unused_helper"), PART("the function no kernel calls is kept, as clang keeps it"), NULL);
    if (!clang_ir(cu_s, src, clang_asm, "CUDA helper.cu to PTX")) {
      char *theirs = (char *)slurp(clang_asm, NULL), *x = without_comments(printed), *y = without_comments(theirs);
      check(x && y && !strcmp(x, y), PART("the PTX is clang's -S PTX, but for comments"), "gpublob:\n%.400s\nclang:\n%.400s",
            shown(x), shown(y));
      free(theirs), free(x), free(y);
    }
  } else {
    check(lacks(printed, "unused_helper") && lacks(printed, "weak_helper"),
          PART("no helper no kernel calls, weak or not: internalised, as clang's HIP does"), NULL);
  }
  free(printed);
  free(assembled);
}

/* OpenCL C compiled by clang for amdgcn and nvptx (-nogpulib): amdgcn links ROCm's
** opencl.bc (the spec's lang_libs) before ocml and ockl, as clang does, so get_global_id
** resolves; nvptx has no OpenCL library, and its LINK error says so. */
static void opencl_native(void) {
  char ll[4200], nvll[4200], hsaco[4200], cubin[4200], label[400];
  const char *name = "opencl vadd for amdgcn and nvptx";
  snprintf(ll, sizeof ll, "%s/cl_amd.ll", scratch());
  snprintf(nvll, sizeof nvll, "%s/cl_nv.ll", scratch());
  snprintf(hsaco, sizeof hsaco, "%s/cl_amd.hsaco", scratch());
  snprintf(cubin, sizeof cubin, "%s/cl_nv.cubin", scratch());
  const char *amd[] = {"-x", "cl", "-cl-std=CL2.0", "--target=amdgcn-amd-amdhsa", "-mcpu=gfx90a", "-nogpulib",
                       "-O2", "-S", "-emit-llvm", NULL};
  const char *nv[] = {"-x", "cl", "-cl-std=CL2.0", "--target=nvptx64-nvidia-cuda", "-march=sm_90", "-nogpulib",
                      "-O2", "-S", "-emit-llvm", NULL};
  if (clang_ir(amd, SRC "vadd.cl", ll, "OpenCL vadd.cl (amdgcn, gfx90a) to LLVM IR")) return;
  char *log = NULL;
  const char *a1[] = {"-t", "amdgcn:gfx90a", ll, "-o", hsaco, NULL};
  int rc = gpublob_cli(a1, &log);
  check(rc == 0, PART("amdgcn links opencl.bc: get_global_id resolves"), "exit %d: %s", rc, shown(log));
  free(log);
  log = NULL;
  hsaco_facts f = look_at_hsaco(hsaco, "gfx90a", "vadd");
  check(f.elf && f.mach && f.named, PART("an hsaco for gfx90a with the kernel vadd"), "%.300s", shown(f.notes));
  facts_free(&f);
  if (clang_ir(nv, SRC "vadd.cl", nvll, "OpenCL vadd.cl (nvptx, sm_90) to LLVM IR")) return;
  const char *a2[] = {"-t", "nvptx:sm_90", nvll, "-o", cubin, NULL};
  rc = gpublob_cli(a2, &log);
  check(rc == 10 + GPUBLOB_LINK && contains(log, "_Z13get_global_idj") && contains(log, "lang_libs"),
        PART("nvptx has no OpenCL library: LINK, naming get_global_id and the spec's lang_libs"), "exit %d: %s", rc,
        shown(log));
  check(!exists(cubin), PART("nvptx: no output"), "%s is there", cubin);
  free(log);
}

/* A line with a floating-point multiply, add or fma, whole; 0 for any other. */
static size_t fp_op(const char *p, size_t len) {
  const char *t = p + strspn(p, " \t");
  if (t >= p + len) return 0;
  int fp = !strncmp(t, "fma.", 4) || (!strncmp(t, "mul.", 4) && strncmp(t, "mul.wide", 8) && strncmp(t, "mul.lo", 6)) ||
           (!strncmp(t, "add.", 4) && (memmem(t, len - (size_t)(t - p), ".f32", 4) || memmem(t, len - (size_t)(t - p), ".f64", 4)));
  return fp ? len : 0;
}

/* The PTX's lines with a floating-point multiply, add or fma, in order. */
static char *fp_lines(const char *ptx) { return filter_lines(ptx, fp_op); }

/* CUDA src made LLVM IR by clang (to_ir), through gpublob -t nvptx:sm_90 -f asm with
** flag (and value, where not NULL): the PTX is clang's own -O3 -S PTX of src, but for
** comments.  Checks named name; stem names the scratch files. */
static void ptx_as_clang(const char *name, const char *src, const char *stem, const char *const *to_ir,
                         const char *flag, const char *value) {
  char ll[4200], ours[4200], theirs[4200], label[400], what[200];
  snprintf(ll, sizeof ll, "%s/%s.ll", scratch(), stem);
  snprintf(ours, sizeof ours, "%s/%s.ptx", scratch(), stem);
  snprintf(theirs, sizeof theirs, "%s/%s.clang.ptx", scratch(), stem);
  const char *to_ptx[] = {"-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_90", "-nocudainc", "-nocudalib",
                          "-O3", "-S", NULL};
  snprintf(what, sizeof what, "CUDA %s to LLVM IR", src);
  if (clang_ir(to_ir, src, ll, what)) return;
  snprintf(what, sizeof what, "CUDA %s -O3 to PTX", src);
  if (clang_ir(to_ptx, src, theirs, what)) return;
  char *log = NULL;
  const char *with_value[] = {flag, value, "-t", "nvptx:sm_90", "-f", "asm", ll, "-o", ours, NULL};
  const char *alone[] = {flag, "-t", "nvptx:sm_90", "-f", "asm", ll, "-o", ours, NULL};
  int rc = gpublob_cli(value ? with_value : alone, &log);
  check(rc == 0, PART("compiles"), "exit %d: %s", rc, shown(log));
  free(log);
  char *a = (char *)slurp(ours, NULL), *b = (char *)slurp(theirs, NULL);
  char *x = without_comments(a), *y = without_comments(b);
  check(x && y && !strcmp(x, y), PART("the PTX is clang's -O3 -S PTX"), "gpublob:\n%.600s\nclang:\n%.600s",
        shown(x), shown(y));
  free(a), free(b), free(x), free(y);
}

/* --fp-contract: clang's unoptimised CUDA IR (-O3 -Xclang -disable-llvm-passes) of
** fma.cu gives clang's own -O3 PTX with --fp-contract fast; plain IR (fmul and fadd
** without flags) gives llc -fp-contract=fast's fma.rn.f32 with fast, llc's default
** mul.rn.f32 and add.rn.f32 with on, as llc -fp-contract=on does. */
static void fp_contract(void) {
  char label[400];
  const char *to_ir[] = {"-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_90", "-nocudainc", "-nocudalib",
                         "-O3", "-Xclang", "-disable-llvm-passes", "-S", "-emit-llvm", NULL};
  ptx_as_clang("cuda fma.cu, --fp-contract fast", SRC "fma.cu", "fma", to_ir, "--fp-contract", "fast");
  /* plain IR: the backend alone, against llc */
  static const char plain[] = "target triple = \"nvptx64-nvidia-cuda\"\n"
                              "define ptx_kernel void @k(ptr addrspace(1) %p, float %a, float %b, float %c) {\n"
                              "  %m = fmul float %a, %b\n  %s = fadd float %m, %c\n"
                              "  store float %s, ptr addrspace(1) %p\n  ret void\n}\n";
  const char *in = tmp_path("plain_fma.ll");
  spill(in, plain, sizeof plain - 1);
  static const char *const modes[] = {"fast", "on"};
  for (int m = 0; m < 2; m++) {
    char mine[4200], llc_out[4200], flag[64], n2[120];
    snprintf(mine, sizeof mine, "%s/plain_%s.ptx", scratch(), modes[m]);
    snprintf(llc_out, sizeof llc_out, "%s/plain_%s.llc.ptx", scratch(), modes[m]);
    snprintf(flag, sizeof flag, "-fp-contract=%s", modes[m]);
    snprintf(n2, sizeof n2, "plain IR, --fp-contract %s", modes[m]);
    char *log = NULL;
    const char *args[] = {"--backend-only", "--fp-contract", modes[m], "-t", "nvptx:sm_90", "-f", "asm", in, "-o",
                          mine, NULL};
    int rc = gpublob_cli(args, &log);
    free(log);
    const char *llc[] = {LLVM_BINDIR "/llc", "-O3", "-mcpu=sm_90", flag, in, "-o", llc_out, NULL};
    int lr = run(llc, &log);
    free(log);
    char *a = (char *)slurp(mine, NULL), *b = (char *)slurp(llc_out, NULL);
    char *x = fp_lines(a), *y = fp_lines(b);
    snprintf(label, sizeof label, "%s: gpublob's fp operations are llc %s's (%s)", n2, flag,
             m == 0 ? "fma.rn.f32" : "mul.rn.f32, add.rn.f32");
    check(rc == 0 && lr == 0 && x && y && *x && !strcmp(x, y) &&
              contains(x, m == 0 ? "fma.rn.f32" : "add.rn.f32"),
          label, "exit %d, llc %d\ngpublob:\n%s\nllc:\n%s", rc, lr, shown(x), shown(y));
    free(a), free(b), free(x), free(y);
  }
}

/* IR clang optimised itself (-O3 -emit-llvm), with --backend-only: the backend alone,
** so the PTX is clang's own -O3 -S PTX, but for comments. */
static void cuda_backend_only(void) {
  const char *to_ir[] = {"-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_90", "-nocudainc", "-nocudalib",
                         "-O3", "-S", "-emit-llvm", NULL};
  ptx_as_clang("cuda reduce -O3, --backend-only", SRC "reduce.cu", "cuda_reduce_O3", to_ir, "--backend-only", NULL);
}

/* HIP as clang compiles it by default: the device libraries linked by clang itself
** (ROCm's bitcode, where gpublob finds it; code object v5, which Debian's ROCm has), a
** fixed -cuid, at -O0 and -O2.  gpublob compiles the IR as it is, at the same level,
** into clang's own hsaco, byte for byte. */
static void hip_with_libs(const char *opt) {
  char ll[4200], ours[4200], theirs[4200], libdir[4200], libflag[4300], name[300], label[400];
  gpublob *g;
  const char *paths = "";
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = "amdgcn:gfx90a"};
  if (gpublob_open(&g)) return;
  int found = !gpublob_libs_find(g, &o, &paths) && *paths;
  snprintf(libdir, sizeof libdir, "%.*s", (int)strcspn(paths, "\n"), paths);
  gpublob_close(g);
  char *slash = strrchr(libdir, '/');
  if (!found || !slash) {
    skip("hip with its device libraries", "no ROCm bitcode found (apt-get install rocm-device-libs)");
    return;
  }
  *slash = 0;
  snprintf(libflag, sizeof libflag, "--rocm-device-lib-path=%s", libdir);
  snprintf(ll, sizeof ll, "%s/hip_libs%s.ll", scratch(), opt);
  snprintf(ours, sizeof ours, "%s/hip_libs%s.hsaco", scratch(), opt);
  snprintf(theirs, sizeof theirs, "%s/hip_libs%s.clang.hsaco", scratch(), opt);
  const char *to_ir[] = {"-x", "hip", "--cuda-device-only", "--offload-arch=gfx90a", "-nogpuinc", libflag,
                         "-mcode-object-version=5", "-cuid=gpublob-test", opt, "-S", "-emit-llvm", NULL};
  const char *to_hsaco[] = {"-x", "hip", "--cuda-device-only", "--offload-arch=gfx90a", "-nogpuinc", libflag,
                            "-mcode-object-version=5", "-cuid=gpublob-test", opt, "--no-gpu-bundle-output", NULL};
  char what[128];
  snprintf(what, sizeof what, "HIP dynshared.hip %s with its device libraries to LLVM IR", opt);
  if (clang_ir(to_ir, SRC "dynshared.hip", ll, what)) return;
  snprintf(what, sizeof what, "HIP dynshared.hip %s with its device libraries to an hsaco", opt);
  if (clang_ir(to_hsaco, SRC "dynshared.hip", theirs, what)) return;
  char *ir = (char *)slurp(ll, NULL);
  snprintf(name, sizeof name, "hip with libraries %s", opt);
  check(contains(ir, "@__oclc_ISA_version = internal") || !strcmp(opt, "-O2"),
        PART("clang left the device libraries' constants internal"), NULL);
  check(contains(ir, "external hidden") && contains(ir, "addrspace(3) global [0 x float]"),
        PART("the dynamic shared array is an external declaration"), NULL);
  free(ir);
  char *log = NULL;
  const char *args[] = {"-t", "amdgcn:gfx90a", opt, ll, "-o", ours, NULL};
  int rc = gpublob_cli(args, &log);
  check(rc == 0, PART("compiles as it is"), "exit %d: %s", rc, shown(log));
  free(log);
  size_t a = 0, b = 0;
  unsigned char *x = slurp(ours, &a), *y = slurp(theirs, &b);
  check(x && y && a == b && !memcmp(x, y, a), PART("the hsaco is clang's, byte for byte"), "%zu and %zu bytes", a, b);
  free(x);
  free(y);
}

/* HIP without its device libraries (-nogpulib): the ocml and ockl functions gpublob
** links get the module's pins, as clang's -mlink-builtin-bitcode gives them: "target-cpu",
** "target-features" and convergent (-O0 -f ll keeps them to look at). */
static void hip_linked_pins(void) {
  char ll[4200], out[4200], label[400];
  const char *name = "hip -nogpulib, the libraries gpublob links";
  snprintf(ll, sizeof ll, "%s/hip_pins.ll", scratch());
  snprintf(out, sizeof out, "%s/hip_pins.out.ll", scratch());
  const char *flags[] = {"-x", "hip", "--cuda-device-only", "--offload-arch=gfx90a", "-nogpuinc", "-nogpulib",
                         "-O2", "-S", "-emit-llvm", NULL};
  if (clang_ir(flags, SRC "dynshared.hip", ll, "HIP dynshared.hip -nogpulib to LLVM IR")) return;
  char *log = NULL;
  const char *args[] = {"-O0", "-f", "ll", "-t", "amdgcn:gfx90a", ll, "-o", out, NULL};
  int rc = gpublob_cli(args, &log);
  check(rc == 0, PART("compiles"), "exit %d: %s", rc, shown(log));
  free(log);
  char *text = (char *)slurp(out, NULL);
  const char *def = NULL; /* its definition's line, not a call's */
  for (const char *p = text ? strstr(text, "\ndefine ") : NULL; p && !def; p = strstr(p + 1, "\ndefine ")) {
    const char *e = strchr(p + 1, '\n'), *at = strstr(p, "@__ocml_sin_f32(");
    if (at && (!e || at < e)) def = at;
  }
  const char *line_end = def ? strchr(def, '\n') : NULL, *hash = NULL;
  for (const char *p = def; p && p < line_end; p++)
    if (*p == '#') hash = p;
  char group[64] = "";
  if (hash) snprintf(group, sizeof group, "attributes %.*s = {", (int)strspn(hash + 1, "0123456789") + 1, hash);
  const char *attrs = *group && text ? strstr(text, group) : NULL;
  size_t an = attrs ? strcspn(attrs, "\n") : 0;
  char *line = attrs ? strndup(attrs, an) : NULL;
  check(line && contains(line, "\"target-cpu\"=\"gfx90a\""), PART("ocml's sin has the module's target-cpu"), "%s",
        shown(line));
  check(line && contains(line, "\"target-features\"="), PART("and its target-features"), "%s", shown(line));
  check(line && contains(line, "convergent"), PART("and convergent"), "%s", shown(line));
  free(line);
  free(text);
}

/* ---- --as clang: clang's own blob, byte for byte ---- */
static char cuda_root[4200]; /* the CUDA toolkit ptxas is in: clang's --cuda-path */

/* Two files' bytes the same: 1, else 0 (sizes in *a, *b). */
static int same_bytes(const char *x, const char *y, size_t *a, size_t *b) {
  unsigned char *p = slurp(x, a), *q = slurp(y, b);
  int same = p && q && *a == *b && !memcmp(p, q, *a);
  free(p), free(q);
  return same;
}

/* clang-22's own cubin of a CUDA source (its ptxas run, -c) and the IR clang gives gpublob
** (-Xclang -disable-llvm-passes: clang's front end alone, at the same level), compiled by
** gpublob --as clang (and extra, where not NULL): the cubin is clang's, byte for byte.
** libs: clang links libdevice itself (--cuda-path), else -nocudalib. */
static void cuda_as_clang(const char *src, const char *stem, const char *opt, const char *g, int libs) {
  char ll[4200], ours[4200], theirs[4200], name[300], label[400], cuda[4300];
  snprintf(name, sizeof name, "cuda %s %s%s, --as clang", stem, opt, g ? " -g" : "");
  if (!*ptxas) {
    skip(name, "CUDA toolkit (ptxas) not found");
    return;
  }
  snprintf(cuda, sizeof cuda, "--cuda-path=%s", cuda_root);
  snprintf(ll, sizeof ll, "%s/asclang_%s%s%s.ll", scratch(), stem, opt, g ? "g" : "");
  snprintf(ours, sizeof ours, "%s/asclang_%s%s%s.cubin", scratch(), stem, opt, g ? "g" : "");
  snprintf(theirs, sizeof theirs, "%s/asclang_%s%s%s.clang.cubin", scratch(), stem, opt, g ? "g" : "");
  const char *lib = libs ? "-nocudainc" : "-nocudalib";
  const char *to_ir[] = {"-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_90", "-nocudainc", lib, cuda, opt,
                         g ? g : opt, "-Xclang", "-disable-llvm-passes", "-S", "-emit-llvm", NULL};
  const char *to_cubin[] = {"-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_90", "-nocudainc", lib, cuda, opt,
                            g ? g : opt, "-c", NULL};
  char what[200];
  snprintf(what, sizeof what, "CUDA %s %s to LLVM IR, as gpublob's input", src, opt);
  if (clang_ir(to_ir, src, ll, what)) return;
  snprintf(what, sizeof what, "CUDA %s %s to a cubin (clang's own ptxas run)", src, opt);
  if (clang_ir(to_cubin, src, theirs, what)) return;
  char *log = NULL;
  const char *args[] = {"--as", "clang", "-t", "nvptx:sm_90", opt, ll, "-o", ours, NULL};
  int rc = gpublob_cli(args, &log);
  check(rc == 0, PART("compiles"), "exit %d: %s", rc, shown(log));
  free(log);
  size_t a = 0, b = 0;
  check_if(rc == 0, same_bytes(ours, theirs, &a, &b), PART("the cubin is clang's, byte for byte"),
           "%zu and %zu bytes", a, b);
}

/* What each of --as clang's defaults is for: without clang's -mllvm word
** (-enable-memcpyopt-without-libcalls) the three flags that gave clang's other cubins
** (--fp-contract fast --no-tool-report --opts -m64) do not give struct_copy.cu's; an
** explicit --fp-contract wins over --as clang's (fma.cu with off keeps mul.rn.f32,
** which clang's fast never writes); -f asm under --as clang is clang's -S PTX, comments
** and all; --verbose says the tool's report was not asked for. */
static void as_clang_parts(void) {
  char ll[4200], three[4200], theirs[4200], ptx[4200], clang_ptx[4200], label[400], cuda[4300];
  const char *name = "cuda --as clang's parts";
  if (!*ptxas) {
    skip(name, "CUDA toolkit (ptxas) not found");
    return;
  }
  snprintf(cuda, sizeof cuda, "--cuda-path=%s", cuda_root);
  snprintf(ll, sizeof ll, "%s/asclang_struct_copy-O3.ll", scratch()); /* cuda_as_clang's */
  snprintf(theirs, sizeof theirs, "%s/asclang_struct_copy-O3.clang.cubin", scratch());
  snprintf(three, sizeof three, "%s/asclang_three.cubin", scratch());
  char *log = NULL;
  const char *args[] = {"--fp-contract", "fast", "--no-tool-report", "--opts", "-m64", "-t", "nvptx:sm_90", ll, "-o",
                        three, NULL};
  int rc = gpublob_cli(args, &log);
  size_t a = 0, b = 0;
  check(rc == 0 && !same_bytes(three, theirs, &a, &b),
        PART("struct_copy.cu without clang's -mllvm word: not clang's cubin (memcpyopt's memset matters)"),
        "exit %d, %zu and %zu bytes: %s", rc, a, b, shown(log));
  free(log);
  log = NULL;
  snprintf(ll, sizeof ll, "%s/asclang_fma-O3.ll", scratch());
  snprintf(ptx, sizeof ptx, "%s/asclang_fma_on.ptx", scratch());
  const char *on[] = {"--as", "clang", "--fp-contract", "off", "-f", "asm", "-t", "nvptx:sm_90", ll, "-o", ptx, NULL};
  rc = gpublob_cli(on, &log);
  char *text = (char *)slurp(ptx, NULL);
  check(rc == 0 && contains(text, "mul.rn.f32") && lacks(text, "fma.rn.f32"),
        PART("--fp-contract off wins over --as clang's fast: mul.rn.f32, no fma"), "exit %d: %s", rc, shown(log));
  free(text);
  free(log);
  log = NULL;
  snprintf(clang_ptx, sizeof clang_ptx, "%s/asclang_fma.clang.ptx", scratch());
  const char *to_ptx[] = {"-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_90", "-nocudainc", "-nocudalib",
                          cuda, "-O3", "-S", NULL};
  if (!clang_ir(to_ptx, SRC "fma.cu", clang_ptx, "CUDA fma.cu -O3 to PTX (-S)")) {
    const char *asm_args[] = {"--as", "clang", "-f", "asm", "-t", "nvptx:sm_90", ll, "-o", ptx, NULL};
    rc = gpublob_cli(asm_args, &log);
    check(rc == 0 && same_bytes(ptx, clang_ptx, &a, &b), PART("-f asm is clang's -S PTX byte for byte, comments too"),
          "exit %d, %zu and %zu bytes: %s", rc, a, b, shown(log));
    free(log);
    log = NULL;
  }
  snprintf(three, sizeof three, "%s/asclang_fma.cubin", scratch());
  const char *verbose[] = {"--as", "clang", "--verbose", "-t", "nvptx:sm_90", ll, "-o", three, NULL};
  rc = gpublob_cli(verbose, &log);
  check(rc == 0 && contains(log, "--as clang") && contains(log, "no report") && lacks(log, "spill stores"),
        PART("--verbose says the blob tool was asked for no report: no spill figures"), "exit %d: %s", rc, shown(log));
  free(log);
}

/* -O0 -g CUDA IR: its PTX says ".target sm_90, debug", which ptxas compiles only with -g;
** gpublob gives ptxas clang's debug options (-g --dont-merge-basicblocks --return-at-end,
** no -O) by default and with --as clang (and -m64 there), as the dump's script shows. */
static void cuda_debug_O0(int cxx) {
  char ll[4200], cubin[4200], dir[4200], script[4400], label[400];
  const char *name = "cuda debug.cu -O0 -g";
  if (!*ptxas) {
    skip(name, "CUDA toolkit (ptxas) not found");
    return;
  }
  snprintf(ll, sizeof ll, "%s/debug_O0.ll", scratch());
  const char *to_ir[] = {"-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_90", "-nocudainc", "-nocudalib",
                         "-O0", "-g", "-S", "-emit-llvm", NULL};
  if (clang_ir(to_ir, SRC "debug.cu", ll, "CUDA debug.cu -O0 -g to LLVM IR")) return;
  for (int as = 0; as < 1 + cxx; as++) {
    snprintf(cubin, sizeof cubin, "%s/debug_O0_%d.cubin", scratch(), as);
    snprintf(dir, sizeof dir, "%s/debug_O0_dump_%d", scratch(), as);
    char *log = NULL;
    const char *plain[] = {"-O0", "-t", "nvptx:sm_90", "--dump-dir", dir, ll, "-o", cubin, NULL};
    const char *clang[] = {"--as", "clang", "-O0", "-t", "nvptx:sm_90", "--dump-dir", dir, ll, "-o", cubin, NULL};
    int rc = gpublob_cli(as ? clang : plain, &log);
    snprintf(label, sizeof label, "%s%s: compiles (ptxas: no 'Optimized debugging not supported')", name,
             as ? ", --as clang" : "");
    check(rc == 0 && starts_elf(cubin), label, "exit %d: %s", rc, shown(log));
    free(log);
    snprintf(script, sizeof script, "%s/debug_O0.nvptx.sm_90.4-tool.sh", dir);
    char *sh = (char *)slurp(script, NULL);
    snprintf(label, sizeof label, "%s%s: ptxas gets -g --dont-merge-basicblocks --return-at-end%s, no -O", name,
             as ? ", --as clang" : "", as ? " -m64" : "");
    check(contains(sh, "'-g' '--dont-merge-basicblocks' '--return-at-end'") && lacks(sh, "'-O") &&
              (as ? contains(sh, "'-m64'") : lacks(sh, "-m64")),
          label, "%s", shown(sh));
    free(sh);
    const char *hdr[] = {READELF, "-S", cubin, NULL};
    char *h = tool_output(hdr, NULL);
    snprintf(label, sizeof label, "%s%s: the cubin has ptxas's DWARF (.debug_info)", name, as ? ", --as clang" : "");
    check(contains(h, ".debug_info"), label, "%.400s", shown(h));
    free(h);
  }
}

/* HIP: clang-22's own hsaco (-c --no-gpu-bundle-output) and gpublob --as clang's of the
** IR clang gives it (-Xclang -disable-llvm-passes), byte for byte; with its device
** libraries linked by clang (libdir) or -nogpulib. */
static void hip_as_clang(const char *src, const char *stem, const char *libdir) {
  char ll[4200], ours[4200], theirs[4200], name[300], label[400], libflag[4300];
  snprintf(name, sizeof name, "hip %s -O3%s, --as clang", stem, libdir ? " (device libraries)" : "");
  snprintf(ll, sizeof ll, "%s/asclang_hip_%s.ll", scratch(), stem);
  snprintf(ours, sizeof ours, "%s/asclang_hip_%s.hsaco", scratch(), stem);
  snprintf(theirs, sizeof theirs, "%s/asclang_hip_%s.clang.hsaco", scratch(), stem);
  snprintf(libflag, sizeof libflag, "--rocm-device-lib-path=%s", libdir ? libdir : "");
  const char *lib = libdir ? libflag : "-nogpulib";
  const char *to_ir[] = {"-x", "hip", "--cuda-device-only", "--offload-arch=gfx90a", "-nogpuinc", lib,
                         "-mcode-object-version=5", "-cuid=gpublob-test", "-O3", "-Xclang", "-disable-llvm-passes",
                         "-S", "-emit-llvm", NULL};
  const char *to_hsaco[] = {"-x", "hip", "--cuda-device-only", "--offload-arch=gfx90a", "-nogpuinc", lib,
                            "-mcode-object-version=5", "-cuid=gpublob-test", "-O3", "--no-gpu-bundle-output", "-c",
                            NULL};
  char what[200];
  snprintf(what, sizeof what, "HIP %s -O3 to LLVM IR, as gpublob's input", src);
  if (clang_ir(to_ir, src, ll, what)) return;
  snprintf(what, sizeof what, "HIP %s -O3 to an hsaco", src);
  if (clang_ir(to_hsaco, src, theirs, what)) return;
  char *log = NULL;
  const char *args[] = {"--as", "clang", "-t", "amdgcn:gfx90a", ll, "-o", ours, NULL};
  int rc = gpublob_cli(args, &log);
  check(rc == 0, PART("compiles"), "exit %d: %s", rc, shown(log));
  free(log);
  size_t a = 0, b = 0;
  check_if(rc == 0, same_bytes(ours, theirs, &a, &b), PART("the hsaco is clang's, byte for byte"), "%zu and %zu bytes",
           a, b);
}

/* A build without src/passes.cpp (no C++ compiler; the sanitized suite's) cannot set
** LLVM's options for one job: --as clang for CUDA IR is OPTION naming it, and so is
** --fp-contract off; HIP's hsacos need neither. */
static void as_clang_without_cxx(void) {
  char ll[4200], out[4200];
  const char *name = "cuda --as clang, built without src/passes.cpp";
  snprintf(ll, sizeof ll, "%s/asclang_nocxx.ll", scratch());
  snprintf(out, sizeof out, "%s/asclang_nocxx.ptx", scratch());
  const char *to_ir[] = {"-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_90", "-nocudainc", "-nocudalib",
                         "-O3", "-Xclang", "-disable-llvm-passes", "-S", "-emit-llvm", NULL};
  if (clang_ir(to_ir, SRC "fma.cu", ll, "CUDA fma.cu to LLVM IR")) return;
  char *log = NULL;
  const char *args[] = {"--as", "clang", "-f", "asm", "-t", "nvptx:sm_90", ll, "-o", out, NULL};
  int rc = gpublob_cli(args, &log);
  check(rc == 10 + GPUBLOB_OPTION && contains(log, "src/passes.cpp") && contains(log, "enable-memcpyopt") &&
            !exists(out),
        name, "exit %d: %s", rc, shown(log));
  free(log);
}

static void as_clang(void) {
  int cxx = have_llvm_cxx();
  if (!cxx) as_clang_without_cxx();
  if (*ptxas && cxx) {
    snprintf(cuda_root, sizeof cuda_root, "%s", ptxas);
    for (int i = 0; i < 2; i++) {
      char *slash = strrchr(cuda_root, '/');
      if (slash) *slash = 0;
    }
  }
  static const struct { const char *src, *stem; int libs; } cuda[] = {
      {SRC "saxpy.cu", "saxpy", 1},         {SRC "reduce.cu", "reduce", 0},   {SRC "fma.cu", "fma", 0},
      {SRC "fused_exp.cu", "fused_exp", 1}, {SRC "struct_copy.cu", "struct_copy", 0},
      {SRC "helper.cu", "helper", 0},       {SRC "barriers.cu", "barriers", 0}, {SRC "bounds.cu", "bounds", 0},
      {SRC "spill.cu", "spill", 0},         {SRC "debug.cu", "debug", 0}};
  if (!cxx) skip("cuda --as clang: clang's cubins, byte for byte", "built without src/passes.cpp");
  for (size_t i = 0; cxx && i < sizeof cuda / sizeof *cuda; i++)
    cuda_as_clang(cuda[i].src, cuda[i].stem, "-O3", NULL, cuda[i].libs);
  if (cxx) {
    cuda_as_clang(SRC "debug.cu", "debug", "-O2", "-g", 0); /* -lineinfo, and the PTX's lines as clang's */
    as_clang_parts();
  }
  cuda_debug_O0(cxx);
  static const struct { const char *src, *stem; } hip[] = {
      {SRC "reduce.hip", "reduce"}, {SRC "asm.hip", "asm"}, {SRC "helper.hip", "helper"},
      {SRC "spill.hip", "spill"},   {SRC "bounds.hip", "bounds"}};
  for (size_t i = 0; i < sizeof hip / sizeof *hip; i++) hip_as_clang(hip[i].src, hip[i].stem, NULL);
  gpublob *g;
  const char *paths = "";
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = "amdgcn:gfx90a"};
  if (gpublob_open(&g)) return;
  char libdir[4200];
  int found = !gpublob_libs_find(g, &o, &paths) && *paths;
  snprintf(libdir, sizeof libdir, "%.*s", (int)strcspn(paths, "\n"), paths);
  gpublob_close(g);
  char *slash = strrchr(libdir, '/');
  if (!found || !slash) skip("hip dynshared -O3 (device libraries), --as clang", "no ROCm bitcode found");
  else {
    *slash = 0;
    hip_as_clang(SRC "dynshared.hip", "dynshared", libdir);
  }
}

int main(void) {
  if (!exists(CLI)) {
    printf("%s not built\n", CLI);
    return 2;
  }
  if (!exists(CLANG)) {
    skip("clang: every frontend case", CLANG " not found");
    return report();
  }
  gpublob *g;
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = "nvptx"};
  if (gpublob_open(&g)) return 2;
  if (tool_path(g, &o, ptxas, sizeof ptxas)) ptxas[0] = 0;
  gpublob_close(g);
  setenv("TMPDIR", scratch(), 1);

  cuda_kernel(SRC "saxpy.cu", "saxpy", "saxpy", 0);
  cuda_kernel(SRC "reduce.cu", "reduce", "reduce_sum", 0);
  cuda_kernel(SRC "debug.cu", "debug", "scale_clamped", 1);
  if (need_rocm("hip saxpy (its expf is ocml's)")) hip_kernel(SRC "saxpy.hip", "saxpy", "saxpy");
  hip_kernel(SRC "reduce.hip", "reduce", "reduce_sum");
  hip_kernel(SRC "asm.hip", "asm", "with_asm");
  cuda_backend_only();
  fp_contract();
  opencl_native();
  formats_agree("cuda", SRC "helper.cu", "nvptx:sm_90", ".ptx");
  formats_agree("hip", SRC "helper.hip", "amdgcn:gfx90a", ".s");
  hip_linked_pins();
  hip_with_libs("-O0");
  hip_with_libs("-O2");
  as_clang();
  opencl_kernel();
  check(leftovers(scratch(), "gpublob-") == 0, "clang: no temporary left in TMPDIR (gpublob-*)", "%d left",
        leftovers(scratch(), "gpublob-"));
  check(leftovers(scratch(), ".tmp-") == 0, "clang: no temporary left beside the outputs (*.tmp-*)", "%d left",
        leftovers(scratch(), ".tmp-"));
  return report();
}
