/* test_launch: the proof on a GPU.  Compiles each kernel of examples/gpu/ (saxpy
** with expf, a block reduction in shared memory with an atomic, printf) from
** LLVM IR and from MLIR with build/gpublob: a cubin through ptxas, a cubin
** through nvJitLink, and a fatbin, for the device's own SM, and a cubin for an
** older SM that the driver must refuse.  Checks each blob (an ELF for CUDA with
** the kernel's symbol and the SM asked for; a fatbin's magic), the blob that
** build/launch_cuda takes out of gpublob's MLIR (the same bytes as a cubin
** compiled from that MLIR's own LLVM IR), and then launches each with
** build/launch_cuda, which compares the result with the CPU's.
**
** Without libcuda.so.1, with only the CUDA toolkit's stub, or without a device,
** every launch case is reported skipped with launch_cuda's reason: a launch
** counts as a pass only when it ran on a GPU and matched. */
#define _POSIX_C_SOURCE 200809L
#include <elf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpublob.h"
#include "testlib.h"

#define GPUBLOB "build/gpublob"
#define LAUNCH "build/launch_cuda"
#define READELF LLVM_BINDIR "/llvm-readelf"
#define SKIP_CODE 77

typedef struct {
  const char *kind;   /* launch_cuda --kernel */
  const char *symbol; /* the kernel's name in the blob */
  const char *file;   /* examples/gpu/FILE.ll and FILE.mlir */
} kernel;

static const kernel kernels[] = {{"saxpy", "saxpy", "saxpy"}, {"reduce", "reduce", "reduce"}, {"printf", "hello", "printf"}};

typedef struct {
  const char *name, *tool_mode, *format;
} build_way;

static const build_way ptxas = {"ptxas", "program", "bin"}, nvjitlink = {"nvjitlink", "in-process", "bin"},
                       fatbin = {"fatbin", "auto", "fatbin"};

static struct {
  int present;      /* a device to launch on */
  char sm[32];      /* its SM, or sm_90 to compile for without one */
  char older[32];   /* an SM whose cubin it must refuse; "" if none */
  char why[512];    /* why launches are skipped */
  const char *nvjitlink_missing;
} gpu;

/* ---- small helpers ---- */
static char *path_in_scratch(const char *fmt, ...) {
  char name[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(name, sizeof name, fmt, ap);
  va_end(ap);
  size_t n = strlen(scratch()) + strlen(name) + 2;
  char *p = malloc(n);
  if (p) snprintf(p, n, "%s/%s", scratch(), name);
  return p;
}

/* The last line of out that is not empty, for messages. */
static const char *last_line(const char *out) {
  static char line[400];
  const char *end = out ? out + strlen(out) : NULL;
  while (end && end > out && end[-1] == '\n') end--;
  const char *start = end;
  while (start && start > out && start[-1] != '\n') start--;
  snprintf(line, sizeof line, "%.*s", start ? (int)(end - start) : 0, start ? start : "");
  return line;
}

static const char *status_text(int rc) {
  static char text[64];
  if (rc == 124) snprintf(text, sizeof text, "timed out (exit 124)");
  else if (rc >= 128) snprintf(text, sizeof text, "killed by signal %d", rc - 128);
  else snprintf(text, sizeof text, "exit %d", rc);
  return text;
}

/* Runs argv under coreutils' timeout when there is one, 60 s for launch_cuda (a
** kernel may hang) and 300 s for the rest: a hang fails its case (exit 124). */
static int run_limited(const char *const *argv, char **out) {
  static int have = -1;
  if (have < 0) have = exists("/usr/bin/timeout") || exists("/bin/timeout");
  if (!have) return run(argv, out);
  const char *limited[40] = {"timeout", "-k", "5", strcmp(argv[0], LAUNCH) ? "300" : "60"};
  size_t n = 4;
  for (size_t i = 0; argv[i] && n < 39; i++) limited[n++] = argv[i];
  limited[n] = NULL;
  return run(limited, out);
}

/* The first line of out, trimmed, into buf. */
static void first_line(const char *out, char *buf, size_t size) {
  size_t n = out ? strcspn(out, "\n") : 0;
  snprintf(buf, size, "%.*s", (int)n, out ? out : "");
}

/* "sm_90" -> 90; 0 when it is not one. */
static int sm_number(const char *sm) { return !strncmp(sm, "sm_", 3) ? atoi(sm + 3) : 0; }

/* The newest of a few SMs ptxas of CUDA 13 targets whose major is below the
** device's: a cubin the driver must refuse (SASS runs only within its major). */
static void choose_older(const char *sm, char *out, size_t size) {
  static const int candidates[] = {120, 100, 90, 80, 75};
  int major = sm_number(sm) / 10;
  *out = 0;
  for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++)
    if (candidates[i] / 10 < major) {
      snprintf(out, size, "sm_%d", candidates[i]);
      return;
    }
}

/* ---- the device, as launch_cuda sees it ---- */
static int names_a_reason(const char *line) {
  return !strncmp(line, "skip: no libcuda.so.1", 21) || !strncmp(line, "skip: stub driver", 17) ||
         !strncmp(line, "skip: no CUDA device", 20);
}

static void probe_device(void) {
  const char *argv[] = {LAUNCH, "--device-sm", NULL};
  char *out = NULL, line[512];
  int rc = run_limited(argv, &out);
  first_line(out, line, sizeof line);
  snprintf(gpu.sm, sizeof gpu.sm, "sm_90");
  if (rc == 0 && sm_number(line) > 0) {
    gpu.present = 1;
    snprintf(gpu.sm, sizeof gpu.sm, "%.*s", (int)sizeof gpu.sm - 1, line);
    const char *info[] = {LAUNCH, "--device-info", NULL};
    char *text = NULL;
    run_limited(info, &text);
    printf("  %s", text ? text : "");
    free(text);
  } else if (rc == SKIP_CODE) {
    check(names_a_reason(line), "launch_cuda: with nothing to launch on, exits 77 with 'skip: REASON'", "%s", line);
    snprintf(gpu.why, sizeof gpu.why, "%s", line[0] ? line + (strncmp(line, "skip: ", 6) ? 0 : 6) : "no reason given");
  } else {
    check(0, "launch_cuda --device-sm", "%s: %s", status_text(rc), last_line(out));
    snprintf(gpu.why, sizeof gpu.why, "launch_cuda --device-sm failed (%s)", status_text(rc));
  }
  free(out);
  choose_older(gpu.sm, gpu.older, sizeof gpu.older);
  printf("  device SM %s%s, older SM for the refusal %s\n", gpu.sm, gpu.present ? "" : " (no device: compiled for)",
         *gpu.older ? gpu.older : "(none)");
}

/* Whether gpublob would find libnvJitLink (its --list-targets says where). */
static void probe_nvjitlink(void) {
  const char *argv[] = {GPUBLOB, "--list-targets", NULL};
  char *out = NULL;
  run_limited(argv, &out);
  if (!contains(out, "nvjitlink in-process, /")) gpu.nvjitlink_missing = "gpublob finds no libnvJitLink (--list-targets)";
  free(out);
}

/* ---- compiling, and checking what came out ---- */
typedef struct {
  const kernel *k;
  const char *source; /* "ll" or "mlir" */
  build_way way;
  const char *sm;
  const char *attach; /* MLIR: NULL (binary) or "legacy" */
} blob_case;

static void case_name(const blob_case *c, char *buf, size_t size) {
  snprintf(buf, size, "%s.%s %s %s%s%s", c->k->file, c->source, c->way.name, c->sm,
           c->attach ? " --attach " : "", c->attach ? c->attach : "");
}

/* The -t argument: a fatbin holds the older SM too, so the driver must pick. */
static void target_arg(const blob_case *c, char *buf, size_t size) {
  if (!strcmp(c->way.format, "fatbin") && *gpu.older) snprintf(buf, size, "nvptx:%s,%s", gpu.older, c->sm);
  else snprintf(buf, size, "nvptx:%s", c->sm);
}

/* Compiles c; the output's path (malloc'd), or NULL after a failed check. */
static char *compile(const blob_case *c) {
  char name[256], target[96], input[256];
  case_name(c, name, sizeof name);
  target_arg(c, target, sizeof target);
  snprintf(input, sizeof input, "examples/gpu/%s.%s", c->k->file, c->source);
  int mlir = !strcmp(c->source, "mlir");
  char *out_path = path_in_scratch("%s.%s.%s.%s%s%s", c->k->file, c->source, c->way.name, c->sm,
                                   c->attach ? ".legacy" : "", mlir ? ".mlir" : !strcmp(c->way.format, "fatbin") ? ".fatbin" : ".cubin");
  const char *argv[16] = {GPUBLOB, "--no-cache", "--tool-mode", c->way.tool_mode, "-f", c->way.format, "-t", target};
  int n = 8;
  if (c->attach) argv[n++] = "--attach", argv[n++] = c->attach;
  argv[n++] = input, argv[n++] = "-o", argv[n++] = out_path, argv[n] = NULL;
  char *out = NULL, label[320];
  int rc = run_limited(argv, &out);
  snprintf(label, sizeof label, "compile %s", name);
  check(rc == 0, label, "%s: %s", status_text(rc), last_line(out));
  snprintf(label, sizeof label, "compile %s: writes the output", name);
  check(exists(out_path), label, "no %s", out_path);
  free(out);
  if (rc == 0 && exists(out_path)) return out_path;
  free(out_path);
  return NULL;
}

/* launch_cuda --extract: the blob inside gpublob's MLIR, as the driver would get it. */
static char *extract(const char *mlir, const char *suffix) {
  char *blob = path_in_scratch("%s%s", strrchr(mlir, '/') + 1, suffix);
  const char *argv[] = {LAUNCH, "--blob", mlir, "--extract", blob, NULL};
  char *out = NULL, label[320];
  int rc = run_limited(argv, &out);
  snprintf(label, sizeof label, "launch_cuda --extract %s", strrchr(blob, '/') + 1);
  check(rc == 0, label, "%s: %s", status_text(rc), last_line(out));
  snprintf(label, sizeof label, "launch_cuda --extract %s: writes the blob", strrchr(blob, '/') + 1);
  check(exists(blob), label, "no %s", blob);
  free(out);
  if (rc == 0 && exists(blob)) return blob;
  free(blob);
  return NULL;
}

/* A FUNC symbol named symbol in llvm-readelf's listing. */
static int has_function(const char *listing, const char *symbol) {
  for (const char *line = listing; line && *line;) {
    const char *nl = strchr(line, '\n');
    size_t len = nl ? (size_t)(nl - line) : strlen(line), sl = strlen(symbol);
    char text[512];
    snprintf(text, sizeof text, "%.*s", (int)len, line);
    if (strstr(text, " FUNC ") && len > sl && !strcmp(text + strlen(text) - sl, symbol) &&
        text[strlen(text) - sl - 1] == ' ')
      return 1;
    line = nl ? nl + 1 : NULL;
  }
  return 0;
}

/* An ELF for CUDA (EM_CUDA) built for sm, with the kernel's symbol: a check each. */
static void check_cubin(const char *path, const blob_case *c) {
  size_t size = 0;
  unsigned char *p = slurp(path, &size);
  unsigned machine = p && size > 20 ? elf_machine_of(p, size) : 0;
  int elf = p && size > 20 && is_elf(p, size);
  free(p);
  const char *header[] = {READELF, "-h", path, NULL}, *syms[] = {READELF, "--syms", path, NULL};
  char *h = NULL, *s = NULL, name[256], label[400], flags[64];
  run_limited(header, &h);
  run_limited(syms, &s);
  snprintf(flags, sizeof flags, ", %s\n", c->sm);
  case_name(c, name, sizeof name);
  snprintf(label, sizeof label, "blob %s: a CUDA ELF for %s with FUNC %s (%zu bytes): an ELF", name, c->sm,
           c->k->symbol, size);
  check(elf, label, "%zu bytes, not an ELF", size);
  snprintf(label, sizeof label, "blob %s: a CUDA ELF for %s with FUNC %s: e_machine EM_CUDA", name, c->sm, c->k->symbol);
  check(machine == EM_CUDA, label, "e_machine %u", machine);
  snprintf(label, sizeof label, "blob %s: a CUDA ELF for %s with FUNC %s: llvm-readelf -h names %s", name, c->sm,
           c->k->symbol, c->sm);
  check(contains(h, flags), label, "no '%.*s' in the header", (int)strlen(flags) - 1, flags);
  snprintf(label, sizeof label, "blob %s: a CUDA ELF for %s with FUNC %s", name, c->sm, c->k->symbol);
  check(has_function(s, c->k->symbol), label, "no FUNC %s in llvm-readelf --syms", c->k->symbol);
  free(h);
  free(s);
}

static void check_fatbin(const char *path, const blob_case *c) {
  size_t size = 0;
  unsigned char *p = slurp(path, &size);
  unsigned magic = p && size >= 4 ? (unsigned)p[0] | (unsigned)p[1] << 8 | (unsigned)p[2] << 16 | (unsigned)p[3] << 24 : 0;
  free(p);
  char name[256], label[400];
  case_name(c, name, sizeof name);
  snprintf(label, sizeof label, "blob %s: a fatbin (magic 0xBA55ED50, %zu bytes)", name, size);
  check(magic == 0xBA55ED50u, label, "magic 0x%08X", magic);
}

static void check_blob(const char *path, const blob_case *c) {
  if (!strcmp(c->way.format, "fatbin")) check_fatbin(path, c);
  else check_cubin(path, c);
}

/* ---- launching ---- */
static const char *abi_of(const blob_case *c) {
  return !strcmp(c->source, "mlir") && strcmp(c->k->kind, "printf") ? "memref" : "plain";
}

/* Launches path (a cubin, a fatbin, or gpublob's MLIR): a pass only when it ran. */
static void launch(const char *path, const blob_case *c, int expect_refusal) {
  char name[256], label[400];
  case_name(c, name, sizeof name);
  snprintf(label, sizeof label, "launch %s: %s", name,
           expect_refusal ? "cuModuleLoadData refuses a cubin for an older SM" : "loads, runs, matches the CPU");
  if (!gpu.present || !path) {
    skip(label, !gpu.present ? gpu.why : "its blob did not compile");
    return;
  }
  const char *argv[] = {LAUNCH, "--kernel", c->k->kind, "--blob", path, "--abi", abi_of(c),
                        expect_refusal ? "--expect-refusal" : NULL, NULL};
  char *out = NULL, line[512];
  int rc = run_limited(argv, &out);
  first_line(out, line, sizeof line);
  if (rc == SKIP_CODE) skip(label, line);
  else check(rc == 0, label, "%s: %s", status_text(rc), last_line(out));
  if (rc == 0) printf("  %s\n", last_line(out));
  free(out);
}

/* ---- the cases ---- */
static void blob_and_launch(const blob_case *c, int expect_refusal) {
  char *made = compile(c), *blob = made;
  if (made && !strcmp(c->source, "mlir")) blob = extract(made, !strcmp(c->way.format, "fatbin") ? ".fatbin" : ".cubin");
  if (blob) check_blob(blob, c);
  launch(made, c, expect_refusal);
  if (blob != made) free(blob);
  free(made);
}

/* A cubin for the older SM, through ptxas and through nvJitLink: refused. */
static void test_refusal(const kernel *k, const char *source) {
  const build_way *ways[] = {&ptxas, &nvjitlink};
  for (int w = 0; w < 2; w++) {
    blob_case c = {k, source, *ways[w], *gpu.older ? gpu.older : "sm_older", NULL};
    char name[256];
    case_name(&c, name, sizeof name);
    if (!*gpu.older) skip(name, "no SM older than the device's, in another major, for ptxas to target");
    else if (ways[w] == &nvjitlink && gpu.nvjitlink_missing) skip(name, gpu.nvjitlink_missing);
    else blob_and_launch(&c, 1);
  }
}

static void test_kernel(const kernel *k) {
  static const char *const sources[] = {"ll", "mlir"};
  for (int s = 0; s < (gpublob_mlir_enabled() ? 2 : 1); s++) { /* MLIR: where built with it */
    blob_case c = {k, sources[s], ptxas, gpu.sm, NULL};
    blob_and_launch(&c, 0);
    c.way = nvjitlink;
    char name[256];
    case_name(&c, name, sizeof name);
    if (gpu.nvjitlink_missing) skip(name, gpu.nvjitlink_missing);
    else blob_and_launch(&c, 0);
    c.way = fatbin;
    blob_and_launch(&c, 0);
    test_refusal(k, sources[s]);
  }
}

/* Two compiles of one module that must hold the same cubin: extracted, byte for byte. */
static int same_file(const char *a, const char *b) {
  size_t na = 0, nb = 0;
  unsigned char *pa = slurp(a, &na), *pb = slurp(b, &nb);
  int same = pa && pb && na == nb && !memcmp(pa, pb, na);
  free(pa);
  free(pb);
  return same;
}

/* The MLIR's blob, taken out by launch_cuda, against a cubin compiled from the same
** module's LLVM IR (-f llvm's offload bitcode, taken out the same way), and against
** the legacy attribute's; then the legacy form is launched too. */
static void test_extraction(const kernel *k) {
  blob_case bin = {k, "mlir", ptxas, gpu.sm, NULL}, llvm = {k, "mlir", {"llvm", "program", "llvm"}, gpu.sm, NULL},
            legacy = {k, "mlir", ptxas, gpu.sm, "legacy"};
  char *bin_mlir = compile(&bin), *llvm_mlir = compile(&llvm), *legacy_mlir = compile(&legacy);
  char *cubin = bin_mlir ? extract(bin_mlir, ".cubin") : NULL, *bc = llvm_mlir ? extract(llvm_mlir, ".bc") : NULL;
  char *legacy_cubin = legacy_mlir ? extract(legacy_mlir, ".cubin") : NULL;
  char *from_ir = bc ? path_in_scratch("%s.from-offload.cubin", k->file) : NULL, label[320], target[64];
  snprintf(target, sizeof target, "nvptx:%s", gpu.sm);
  const char *argv[] = {GPUBLOB, "--no-cache", "--tool-mode", "program", "-t", target, bc, "-o", from_ir, NULL};
  int rc = bc ? run_limited(argv, NULL) : -1;
  snprintf(label, sizeof label, "extract %s.mlir: the bin is the cubin gpublob compiles from its LLVM IR: a bin extracted",
           k->file);
  check(cubin != NULL, label, "nothing extracted");
  snprintf(label, sizeof label, "extract %s.mlir: the bin is the cubin gpublob compiles from its LLVM IR: the offload "
           "bitcode extracted", k->file);
  check(bc != NULL, label, "nothing extracted");
  snprintf(label, sizeof label, "extract %s.mlir: the bin is the cubin gpublob compiles from its LLVM IR: it compiles",
           k->file);
  check_if(bc, rc == 0, label, "%s", status_text(rc));
  snprintf(label, sizeof label, "extract %s.mlir: the bin is the cubin gpublob compiles from its LLVM IR, byte for byte", k->file);
  check_if(cubin && rc == 0, same_file(cubin, from_ir), label, "%s", "differ");
  snprintf(label, sizeof label, "extract %s.mlir: nvvm.cubin (--attach legacy) extracted", k->file);
  check(legacy_cubin != NULL, label, "nothing extracted");
  snprintf(label, sizeof label, "extract %s.mlir: nvvm.cubin (--attach legacy) holds the same bytes as bin", k->file);
  check_if(cubin && legacy_cubin, same_file(cubin, legacy_cubin), label, "%s", "differ");
  launch(legacy_mlir, &legacy, 0);
  free(bin_mlir), free(llvm_mlir), free(legacy_mlir), free(cubin), free(bc), free(legacy_cubin), free(from_ir);
}

/* ---- launch_cuda's own answers, which need no GPU ---- */
static const char *find_stub(void) {
  static char path[512];
  const char *home = getenv("CUDA_HOME");
  const char *dirs[] = {home, "/usr/local/cuda/lib64/stubs", "/usr/local/cuda/targets/x86_64-linux/lib/stubs"};
  for (size_t i = 0; i < 3; i++) {
    if (!dirs[i]) continue;
    snprintf(path, sizeof path, "%s%s/libcuda.so", dirs[i], i == 0 ? "/lib64/stubs" : "");
    if (exists(path)) return path;
  }
  return NULL;
}

/* launch_cuda --device-sm with dir first on LD_LIBRARY_PATH; its output in *out. */
static int device_sm_with(const char *dir, char **out) {
  const char *old = getenv("LD_LIBRARY_PATH");
  char *saved = old ? strdup(old) : NULL;
  setenv("LD_LIBRARY_PATH", dir, 1);
  const char *argv[] = {LAUNCH, "--device-sm", NULL};
  int rc = run_limited(argv, out);
  if (saved) setenv("LD_LIBRARY_PATH", saved, 1);
  else unsetenv("LD_LIBRARY_PATH");
  free(saved);
  return rc;
}

/* The toolkit's stub, found as libcuda.so.1 first: a skip, never a device. */
static void test_stub(void) {
  const char *stub = find_stub(), *name = "launch_cuda: the toolkit's stub as libcuda.so.1 is 'skip: stub driver' (77)";
  if (!stub) {
    skip(name, "no stubs/libcuda.so in the CUDA toolkit");
    return;
  }
  char *dir = path_in_scratch("stub"), *link = path_in_scratch("stub/libcuda.so.1"), *out = NULL, line[512] = "";
  int rc = -1;
  if (!mkdir(dir, 0700) && !symlink(stub, link)) {
    rc = device_sm_with(dir, &out);
    first_line(out, line, sizeof line);
  }
  check(rc == SKIP_CODE, name, "%s: %s", status_text(rc), line);
  check(!strncmp(line, "skip: stub driver", 17), "launch_cuda: the toolkit's stub as libcuda.so.1: 'skip: stub driver'",
        "%s", line);
  free(out), free(dir), free(link);
}

static void expect_exit(const char *name, int want, const char *need, const char *const *argv) {
  char *out = NULL;
  int rc = run_limited(argv, &out);
  char label[300];
  check(rc == want, name, "%s, want exit %d: %s", status_text(rc), want, last_line(out));
  snprintf(label, sizeof label, "%s: says '%s'", name, need);
  check(contains(out, need), label, "%s", last_line(out));
  free(out);
}

static void test_usage(void) {
  const char *unknown[] = {LAUNCH, "--kernel", "matmul", "--blob", "examples/gpu/saxpy.ll", NULL};
  expect_exit("launch_cuda: an unknown kernel is a usage error (2)", 2, "unknown kernel", unknown);
  const char *not_blob[] = {LAUNCH, "--blob", "examples/gpu/saxpy.ll", "--extract", "/dev/null", NULL};
  expect_exit("launch_cuda: LLVM IR text is no blob (2)", 2, "not a cubin", not_blob);
  const char *missing[] = {LAUNCH, "--kernel", "saxpy", "--blob", "/nonexistent/k.cubin", NULL};
  expect_exit("launch_cuda: a missing file (2)", 2, "cannot read", missing);
}

static void test_offload_refused(void) {
  blob_case llvm = {&kernels[0], "mlir", {"llvm", "program", "llvm"}, gpu.sm, NULL};
  char *mlir = compile(&llvm);
  if (!mlir) return;
  const char *argv[] = {LAUNCH, "--kernel", "saxpy", "--blob", mlir, NULL};
  expect_exit("launch_cuda: MLIR holding LLVM bitcode (-f llvm) is refused before the driver (2)", 2, "no driver loads", argv);
  free(mlir);
}

int main(void) {
  if (!exists(LAUNCH) || !exists(GPUBLOB)) {
    check(0, "build/launch_cuda and build/gpublob are built", "run ninja first");
    return report();
  }
  test_usage();
  test_stub();
  if (!have_ptxas()) {
    skip("test_launch: compiling for nvptx", "no ptxas from the CUDA toolkit");
    return report();
  }
  probe_device();
  probe_nvjitlink();
  int mlir = gpublob_mlir_enabled();
  if (mlir) test_offload_refused();
  else skip("launch_cuda: MLIR holding LLVM bitcode is refused, and the MLIR kernels", "built without MLIR");
  for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
    test_kernel(&kernels[i]);
    if (mlir) test_extraction(&kernels[i]);
  }
  return report();
}
