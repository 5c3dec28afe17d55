/* test_mlir: MLIR input through gpublob: gpu-dialect and llvm-dialect gpu.modules,
** binary and legacy attach, bytecode, the external pass in a C pass manager,
** errors with MLIR's own locations, the caller's module left as it was, the
** result going on through mlir-opt-22 --gpu-to-llvm and mlir-translate-22, and
** the same objects and kernel symbols as mlir-opt-22 --gpu-module-to-binary. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if GPUBLOB_MLIR
#include <llvm-c/Core.h>
#include <llvm-c/IRReader.h>
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/Diagnostics.h>
#include <mlir-c/Dialect/GPU.h>
#include <mlir-c/IR.h>
#include <mlir-c/Pass.h>
#include <mlir-c/RegisterEverything.h>
#endif
#include "gpublob.h"
#include "testlib.h"

#define READELF LLVM_BINDIR "/llvm-readelf"
#define MLIR_OPT LLVM_BINDIR "/mlir-opt"
#define MLIR_TRANSLATE LLVM_BINDIR "/mlir-translate"

static gpublob *g;

#if GPUBLOB_MLIR
/* ---- reading objects back out of an MLIR module ---- */
typedef struct object {
  char target[256]; /* the target attribute as MLIR prints it */
  uint32_t format;
  unsigned char *data;
  size_t size;
} object;

typedef struct objects {
  object o[16];
  int n;
  int binaries; /* gpu.binary ops */
  int modules;  /* gpu.module ops left */
} objects;

static MlirContext test_context(void) {
  MlirDialectRegistry r = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(r);
  MlirContext ctx = mlirContextCreateWithRegistry(r, false);
  mlirDialectRegistryDestroy(r);
  return ctx;
}

static void to_buf(MlirStringRef s, void *arg) {
  char *b = arg;
  size_t n = strlen(b);
  snprintf(b + n, 256 - n, "%.*s", (int)s.length, s.data);
}

static int name_is(MlirOperation op, const char *name) {
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  return n.length == strlen(name) && !memcmp(n.data, name, n.length);
}

static MlirWalkResult collect(MlirOperation op, void *arg) {
  objects *os = arg;
  if (name_is(op, "gpu.module")) os->modules++;
  if (!name_is(op, "gpu.binary")) return MlirWalkResultAdvance;
  os->binaries++;
  MlirAttribute list = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("objects"));
  for (intptr_t i = 0; i < mlirArrayAttrGetNumElements(list) && os->n < 16; i++) {
    MlirAttribute a = mlirArrayAttrGetElement(list, i);
    object *o = &os->o[os->n++];
    o->target[0] = 0;
    mlirAttributePrint(mlirGPUObjectAttrGetTarget(a), to_buf, o->target);
    o->format = mlirGPUObjectAttrGetFormat(a);
    MlirStringRef bytes = mlirGPUObjectAttrGetObject(a);
    o->data = malloc(bytes.length + 1);
    memcpy(o->data, bytes.data, bytes.length);
    o->data[bytes.length] = 0;
    o->size = bytes.length;
  }
  return MlirWalkResultSkip;
}

/* The first gpu.module's string attribute NAME (legacy attach), as an object. */
static MlirWalkResult find_attr(MlirOperation op, void *arg) {
  object *o = arg;
  if (!name_is(op, "gpu.module")) return MlirWalkResultAdvance;
  MlirAttribute a = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(o->target));
  if (!mlirAttributeIsNull(a) && mlirAttributeIsAString(a)) {
    MlirStringRef v = mlirStringAttrGetValue(a);
    o->data = malloc(v.length + 1);
    memcpy(o->data, v.data, v.length);
    o->size = v.length;
  }
  return MlirWalkResultInterrupt;
}

static int legacy_blob(const void *text, size_t size, const char *attr, object *o) {
  memset(o, 0, sizeof *o);
  snprintf(o->target, sizeof o->target, "%s", attr);
  MlirContext ctx = test_context();
  MlirOperation top = mlirOperationCreateParse(ctx, mlirStringRefCreate(text, size),
                                               mlirStringRefCreateFromCString("out"));
  if (!mlirOperationIsNull(top)) {
    mlirOperationWalk(top, find_attr, o, MlirWalkPreOrder);
    mlirOperationDestroy(top);
  }
  mlirContextDestroy(ctx);
  return o->data != NULL;
}

static void objects_free(objects *os) {
  for (int i = 0; i < os->n; i++) free(os->o[i].data);
  memset(os, 0, sizeof *os);
}

static int read_objects(const void *text, size_t size, objects *os) {
  memset(os, 0, sizeof *os);
  MlirContext ctx = test_context();
  MlirOperation top = mlirOperationCreateParse(ctx, mlirStringRefCreate(text, size),
                                               mlirStringRefCreateFromCString("out"));
  int ok = !mlirOperationIsNull(top);
  if (ok) mlirOperationWalk(top, collect, os, MlirWalkPreOrder);
  if (ok) mlirOperationDestroy(top);
  mlirContextDestroy(ctx);
  return ok;
}

static unsigned elf_machine(const object *o) {
  if (o->size < 20 || memcmp(o->data, "\177ELF", 4)) return 0;
  return (unsigned)o->data[18] | (unsigned)o->data[19] << 8;
}

/* The global function symbols of an ELF blob, sorted, blank-separated. */
static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void kernel_symbols(const void *data, size_t size, const char *name, char *out, size_t n) {
  const char *path = tmp_path(name);
  spill(path, data, size);
  const char *argv[] = {READELF, "--syms", "-W", path, NULL};
  char *text = NULL;
  out[0] = 0;
  if (run(argv, &text) || !text) {
    free(text);
    return;
  }
  char *names[64];
  int k = 0;
  for (char *line = strtok(text, "\n"); line && k < 64; line = strtok(NULL, "\n")) {
    if (!strstr(line, " FUNC ") || !strstr(line, " GLOBAL ")) continue;
    char *last = strrchr(line, ' ');
    if (last && last[1]) names[k++] = last + 1;
  }
  qsort(names, (size_t)k, sizeof *names, cmp_str);
  for (int i = 0; i < k; i++) snprintf(out + strlen(out), n - strlen(out), "%s%s", i ? " " : "", names[i]);
  free(text);
}

static int compile_mlir(const char *path, const gpublob_options *o, gpublob_blob *b) {
  int rc = gpublob_mlir_file_compile(g, o, path, b);
  if (rc) printf("  (%s: %s)\n", path, gpublob_error_message(g));
  return rc;
}

/* ---- gpu-dialect input, lowered in-process, attached as gpu.binary ---- */
static void test_gpu_dialect_binary(void) {
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION};
  gpublob_blob b;
  objects os;
  if (!have_ptxas()) {
    skip("mlir: gpu dialect to a cubin in gpu.binary", "ptxas (CUDA toolkit) not found");
    return;
  }
  int rc = compile_mlir("examples/saxpy.mlir", &o, &b);
  int ok = !rc && read_objects(b.data, b.size, &os);
  char syms[512] = "";
  if (ok && os.n == 1) kernel_symbols(os.o[0].data, os.o[0].size, "saxpy.cubin", syms, sizeof syms);
  check(ok && os.binaries == 1 && os.modules == 0 && os.n == 1 && elf_machine(&os.o[0]) == 190 &&
            os.o[0].format == 3 && contains(os.o[0].target, "#nvvm.target") &&
            !strcmp(syms, "saxpy") && contains((char *)b.data, "gpu.binary @kernels <#gpu.select_object") &&
            contains((char *)b.data, "gpu.launch_func"),
        "mlir: gpu dialect to a cubin in gpu.binary", "rc %d, %d objects, symbols '%s'", rc,
        ok ? os.n : -1, syms);
  if (ok) objects_free(&os);
  gpublob_blob_free(&b);
}

/* ---- several targets on one gpu.module, from its own attributes ---- */
static void test_module_targets(void) {
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION};
  gpublob_blob b;
  objects os;
  if (!have_ptxas()) {
    skip("mlir: three target attributes give three objects", "ptxas (CUDA toolkit) not found");
    return;
  }
  int rc = compile_mlir("tests/mlir/multi_target.mlir", &o, &b);
  int ok = !rc && read_objects(b.data, b.size, &os) && os.n == 3;
  check(ok && elf_machine(&os.o[0]) == 190 && elf_machine(&os.o[1]) == 190 &&
            elf_machine(&os.o[2]) == 224 && os.o[0].data[49] == 80 && os.o[1].data[49] == 90 &&
            contains(os.o[2].target, "gfx90a"),
        "mlir: three target attributes give three objects", "rc %d, %d objects", rc, ok ? os.n : -1);
  char a[256] = "", c[256] = "";
  if (ok) {
    kernel_symbols(os.o[0].data, os.o[0].size, "axpy.cubin", a, sizeof a);
    kernel_symbols(os.o[2].data, os.o[2].size, "axpy.hsaco", c, sizeof c);
  }
  check(ok && !strcmp(a, "axpy") && contains(c, "axpy"), "mlir: each object holds the kernel",
        "'%s' / '%s'", a, c);
  if (ok) objects_free(&os);
  gpublob_blob_free(&b);
}

/* ---- -t replaces the module's attributes; formats asm and llvm ---- */
static void test_choices_and_formats(void) {
  gpublob_target_choice list[] = {{"amdgcn:gfx90a", NULL, NULL}, {"amdgcn", "gfx1030", NULL}};
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .targets = list, .ntargets = 2};
  gpublob_blob b;
  objects os;
  int rc = compile_mlir("tests/mlir/multi_target.mlir", &o, &b);
  int ok = !rc && read_objects(b.data, b.size, &os) && os.n == 2;
  check(ok && elf_machine(&os.o[0]) == 224 && contains(os.o[0].target, "gfx90a") &&
            contains(os.o[1].target, "gfx1030") && !contains((char *)b.data, "nvvm.target"),
        "mlir: a target list replaces the module's attributes", "rc %d", rc);
  if (ok) objects_free(&os);
  gpublob_blob_free(&b);

  o = (gpublob_options){.version = GPUBLOB_OPTIONS_VERSION, .target = "amdgcn",
                        .format = GPUBLOB_FORMAT_ASM};
  rc = compile_mlir("tests/mlir/two_modules.mlir", &o, &b);
  ok = !rc && read_objects(b.data, b.size, &os) && os.n == 2 && os.binaries == 2;
  check(ok && os.o[0].format == 2 && contains((char *)os.o[0].data, ".amdhsa_kernel fill") &&
            contains((char *)os.o[1].data, "s_barrier") && contains((char *)b.data, "assembly = \""),
        "mlir: format asm gives assembly objects, one gpu.binary per gpu.module", "rc %d", rc);
  if (ok) objects_free(&os);
  gpublob_blob_free(&b);

  o.format = GPUBLOB_FORMAT_LLVM;
  rc = compile_mlir("tests/mlir/two_kernels.mlir", &o, &b);
  ok = !rc && read_objects(b.data, b.size, &os) && os.n == 1;
  char *dis = NULL;
  if (ok) { /* llvm-dis reads the object back: both kernels, for amdgcn */
    const char *bc = tmp_path("offload.bc");
    spill(bc, os.o[0].data, os.o[0].size);
    const char *argv[] = {LLVM_BINDIR "/llvm-dis", bc, "-o", "-", NULL};
    if (run(argv, &dis)) ok = 0;
  }
  check(ok && os.o[0].format == 1 && dis && contains(dis, "amdgcn-amd-amdhsa") &&
            contains(dis, "@scale(") && contains(dis, "@rowsum(") && contains((char *)b.data, "offload = \""),
        "mlir: format llvm gives bitcode offload objects that llvm-dis reads", "rc %d", rc);
  free(dis);
  if (ok) objects_free(&os);
  gpublob_blob_free(&b);
}

/* ---- several gpu.modules and chips on the pool: the same module whatever the threads ---- */
static void test_pool(void) {
  int cuda = have_ptxas();
  gpublob_target_choice list[] = {{"amdgcn:gfx90a,gfx908", NULL, NULL}, {"nvptx:sm_80,sm_90", NULL, NULL}};
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .targets = list, .ntargets = cuda ? 2 : 1, .jobs = 1};
  gpublob_blob serial, par;
  int rc = compile_mlir("tests/mlir/two_modules.mlir", &o, &serial);
  o.jobs = 4;
  int rc2 = compile_mlir("tests/mlir/two_modules.mlir", &o, &par);
  gpublob_stats st;
  gpublob_stats_get(g, &st, sizeof st);
  objects os;
  int ok = !rc && !rc2 && serial.size == par.size && !memcmp(serial.data, par.data, par.size) &&
           read_objects(par.data, par.size, &os);
  int per = cuda ? 4 : 2;
  check(ok && os.binaries == 2 && os.n == 2 * per && st.jobs == (size_t)(2 * per) &&
            contains(os.o[0].target, "gfx90a") && contains(os.o[1].target, "gfx908") &&
            (!cuda || (contains(os.o[2].target, "sm_80") && elf_machine(&os.o[3]) == 190 && os.o[3].data[49] == 90)),
        cuda ? "mlir: 2 gpu.modules x (2 amdgcn + 2 nvptx chips) on 1 and 4 threads: the same module, objects in order"
             : "mlir: 2 gpu.modules x 2 amdgcn chips on 1 and 4 threads: the same module, objects in order",
        "rc %d %d, %d objects, %zu jobs", rc, rc2, ok ? os.n : -1, st.jobs);
  if (ok) objects_free(&os);
  gpublob_blob_free(&serial);
  gpublob_blob_free(&par);
  /* the first failing job in order is the error, named with its gpu.module; nothing changes */
  gpublob_target_choice bad[] = {{"amdgcn:gfx908,gfx1100", NULL, NULL}};
  o = (gpublob_options){.version = GPUBLOB_OPTIONS_VERSION, .targets = bad, .ntargets = 1, .jobs = 4};
  rc = gpublob_mlir_file_compile(g, &o, "examples/saxpy.mlir", &par);
  check(rc == GPUBLOB_NOLIB && contains(gpublob_error_message(g), "gpu.module @kernels (amdgcn gfx1100)") &&
            contains(gpublob_error_message(g), "oclc_isa_version_1100.bc") && !par.data,
        "mlir: a failing job fails the call, its message naming the gpu.module and chip", "rc %d: %s", rc,
        gpublob_error_message(g));
}

/* ---- fatbin objects: a cubin per chip and the newest's PTX in one #gpu.object ---- */
static void test_fatbin(void) {
  if (!have_ptxas()) {
    skip("mlir: format fatbin", "ptxas (CUDA toolkit) not found");
    return;
  }
  gpublob_target_choice list[] = {{"nvptx:sm_80,sm_90", NULL, NULL}};
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .targets = list, .ntargets = 1,
                       .format = GPUBLOB_FORMAT_FATBIN};
  gpublob_blob b;
  objects os;
  int rc = compile_mlir("examples/saxpy.mlir", &o, &b);
  int ok = !rc && read_objects(b.data, b.size, &os) && os.n == 1;
  uint32_t magic = 0;
  if (ok && os.o[0].size >= 4) memcpy(&magic, os.o[0].data, 4);
  check(ok && os.o[0].format == 4 && magic == 0xBA55ED50u && contains(os.o[0].target, "sm_90"),
        "mlir: -f fatbin with two chips gives one fatbin object (format fatbin), named for the newest chip",
        "rc %d, %d objects, magic %08x", rc, ok ? os.n : -1, magic);
  if (ok) objects_free(&os);
  gpublob_blob_free(&b);

  /* a fatbinary that fails: the error names the first gpu.module's pack, not the last job's */
  const char *dir = tmp_path("badfat");
  char tool[4300];
  snprintf(tool, sizeof tool, "%s/fatbinary", dir);
  const char *mk[] = {"mkdir", "-p", dir, NULL};
  run(mk, NULL);
  const char *script = "#!/bin/sh\necho packing refused >&2\nexit 3\n";
  spill(tool, script, strlen(script));
  const char *ch[] = {"chmod", "+x", tool, NULL};
  run(ch, NULL);
  o.tool_dirs = dir;
  rc = compile_mlir("tests/mlir/two_modules.mlir", &o, &b);
  check(rc == GPUBLOB_TOOL && contains(gpublob_error_message(g), "gpu.module @first") &&
            contains(gpublob_error_message(g), "packing refused") && !b.data,
        "mlir: a failing fatbinary names the gpu.module whose pack failed", "rc %d: %s", rc,
        gpublob_error_message(g));
  gpublob_blob_free(&b);
}

/* ---- legacy attach, bytecode out and in ---- */
static void test_legacy_and_bytecode(void) {
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = "amdgcn",
                       .attach = GPUBLOB_ATTACH_LEGACY};
  gpublob_blob b;
  int rc = compile_mlir("examples/saxpy.mlir", &o, &b);
  object h;
  int got = !rc && legacy_blob(b.data, b.size, "rocdl.hsaco", &h); /* the output parses again */
  check(got && elf_machine(&h) == 224 && contains((char *)b.data, "gpu.module @kernels") &&
            !contains((char *)b.data, "gpu.binary"),
        "mlir: legacy attach keeps the gpu.module and adds rocdl.hsaco", "rc %d", rc);
  if (got) free(h.data);
  gpublob_blob_free(&b);

  o.attach = GPUBLOB_ATTACH_BINARY;
  o.flags = GPUBLOB_FLAG_MLIR_BYTECODE;
  rc = compile_mlir("examples/saxpy.mlir", &o, &b);
  check(!rc && b.size > 4 && !memcmp(b.data, "ML\xefR", 4) && !strcmp(b.suffix, ".mlirbc"),
        "mlir: bytecode output", "rc %d", rc);
  /* bytecode input: the unlowered module, written as bytecode by mlir-opt */
  const char *bc = tmp_path("saxpy.mlirbc");
  const char *argv[] = {MLIR_OPT, "--emit-bytecode", "examples/saxpy.mlir", "-o", bc, NULL};
  char *out = NULL;
  int made = run(argv, &out) == 0;
  free(out);
  gpublob_blob b2;
  o.flags = 0;
  rc = made ? compile_mlir(bc, &o, &b2) : -1;
  objects os;
  int ok = !rc && read_objects(b2.data, b2.size, &os) && os.n == 1;
  check(ok && elf_machine(&os.o[0]) == 224, "mlir: bytecode input", "rc %d", rc);
  if (ok) objects_free(&os);
  if (!rc) gpublob_blob_free(&b2);
  gpublob_blob_free(&b);
}

/* ---- errors: codes, MLIR's locations, nothing changed ---- */
static int fails_with(const char *text, const gpublob_options *o, int code, const char *needle) {
  gpublob_blob b;
  int rc = gpublob_mlir_compile(g, o, text, strlen(text), "in.mlir", &b);
  int ok = rc == code && b.data == NULL && contains(gpublob_error_message(g), needle);
  if (!ok) printf("  (rc %d: %s)\n", rc, gpublob_error_message(g));
  if (!rc) gpublob_blob_free(&b);
  return ok;
}

static const char *const kernel_module =
    "module attributes {gpu.container_module} {\n"
    "  gpu.module @k %s {\n"
    "    gpu.func @f(%%x: memref<4xf32>) kernel {\n"
    "      %%i = gpu.thread_id x\n"
    "      %%v = memref.load %%x[%%i] : memref<4xf32>\n"
    "      memref.store %%v, %%x[%%i] : memref<4xf32>\n"
    "      gpu.return\n"
    "    }\n"
    "  }\n"
    "}\n";

static const char *with_targets(const char *targets) {
  static char buf[2048];
  snprintf(buf, sizeof buf, kernel_module, targets);
  return buf;
}

static void test_errors(void) {
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = "amdgcn"};
  check(fails_with("module {\n  func.func @f() {\n    %0 = arith.addi 1, 2\n  }\n}\n", &o, GPUBLOB_PARSE,
                   "in.mlir:3:"),
        "mlir: a parse error carries MLIR's file:line:col", NULL);
  check(fails_with("module {\n  func.func @f() -> i32 {\n    %0 = \"arith.addi\"() : () -> i32\n"
                   "    return %0 : i32\n  }\n}\n",
                   &o, GPUBLOB_PARSE, "in.mlir:3:10: error: 'arith.addi' op expected 2 operands"),
        "mlir: a verifier error carries its location", NULL);
  check(fails_with("module {\n  func.func @f() { return }\n}\n", &o, GPUBLOB_NOGPU, "no gpu.module"),
        "mlir: a module with no gpu.module is NOGPU", NULL);
  gpublob_options own = {.version = GPUBLOB_OPTIONS_VERSION};
  check(fails_with(with_targets("[#xevm.target<chip = \"pvc\">]"), &own, GPUBLOB_TARGET,
                   "unknown target attribute #xevm.target"),
        "mlir: an unknown target attribute is TARGET", NULL);
  check(fails_with(with_targets("[#nvvm.target<chip = \"sm_99\">]"), &own, GPUBLOB_CHIP,
                   "gpu.module @k (nvptx sm_99): invalid chip 'sm_99'"),
        "mlir: a chip missing from the spec is CHIP", NULL);
  gpublob_options bad = o;
  bad.pipeline = "convert-scf-to-cf,no-such-pass";
  check(fails_with(with_targets(""), &bad, GPUBLOB_OPTION, "'no-such-pass' does not refer to a registered pass"),
        "mlir: an unknown pass in the pipeline is OPTION", NULL);
  bad.pipeline = "convert-scf-to-cf";
  check(fails_with(with_targets(""), &bad, GPUBLOB_LOWER, "in.mlir:3:5: error: unsupported GPU operation: gpu.func"),
        "mlir: a pipeline that leaves the gpu dialect is LOWER, with the location", NULL);
  bad.pipeline = "convert-gpu-to-rocdl{chipset=gfx1}";
  check(fails_with(with_targets(""), &bad, GPUBLOB_LOWER, "Invalid chipset name: gfx1"),
        "mlir: a failing lowering pass is LOWER", NULL);
  gpublob_target_choice two[] = {{"nvptx:sm_80", NULL, NULL}, {"nvptx:sm_90", NULL, NULL}};
  gpublob_options legacy = {.version = GPUBLOB_OPTIONS_VERSION, .targets = two, .ntargets = 2,
                            .attach = GPUBLOB_ATTACH_LEGACY, .format = GPUBLOB_FORMAT_ASM};
  check(fails_with(with_targets(""), &legacy, GPUBLOB_OPTION, "share the attribute nvvm.cubin"),
        "mlir: legacy attach refuses two blobs under one attribute", NULL);
  gpublob_options spirv = {.version = GPUBLOB_OPTIONS_VERSION, .target = "spirv"};
  check(fails_with(with_targets(""), &spirv, GPUBLOB_OPTION, "no MLIR target attribute"),
        "mlir: binary attach needs the target's MLIR attribute", NULL);
  spirv.attach = GPUBLOB_ATTACH_LEGACY;
  gpublob_blob b;
  const char *text = with_targets("");
  int rc = gpublob_mlir_compile(g, &spirv, text, strlen(text), "in.mlir", &b);
  object spv;
  char *val = NULL;
  int got = rc == 0 && legacy_blob(b.data, b.size, "gpublob.spirv", &spv);
  if (got) {
    const char *path = tmp_path("legacy.spv");
    spill(path, spv.data, spv.size);
    const char *argv[] = {SPIRV_VAL, path, NULL};
    got = run(argv, &val) == 0 && contains((char *)b.data, "gpu.func @f");
    free(spv.data);
  }
  check(got, "mlir: spirv through convert-gpu-to-llvm-spv, legacy attach; spirv-val passes", "rc %d: %s %s",
        rc, rc ? gpublob_error_message(g) : "", val ? val : "");
  free(val);
  if (!rc) gpublob_blob_free(&b);
  static const char bare[] = "gpu.module @bare [#rocdl.target<chip = \"gfx90a\">] {\n"
                             "  llvm.func @a() attributes {gpu.kernel, rocdl.kernel} { llvm.return }\n}\n";
  rc = gpublob_mlir_compile(g, NULL, bare, sizeof bare - 1, "bare.mlir", &b);
  check(rc == 0 && contains((char *)b.data, "gpu.binary @bare"), "mlir: a bare gpu.module is wrapped in a module",
        "rc %d: %s", rc, rc ? gpublob_error_message(g) : "");
  if (!rc) gpublob_blob_free(&b);
  gpublob_options none = {.version = GPUBLOB_OPTIONS_VERSION, .ntargets = 2};
  check(fails_with(bare, &none, GPUBLOB_MISUSE, "targets is NULL"), "mlir: ntargets without targets is MISUSE", NULL);
}

/* A failure in the second gpu.module leaves the first untouched too. */
static void print_to(MlirStringRef s, void *arg) {
  char **p = arg;
  size_t n = *p ? strlen(*p) : 0;
  *p = realloc(*p, n + s.length + 1);
  memcpy(*p + n, s.data, s.length);
  (*p)[n + s.length] = 0;
}

static void test_untouched(void) {
  MlirContext ctx = test_context();
  static const char text[] =
      "module attributes {gpu.container_module} {\n"
      "  gpu.module @ok [#rocdl.target<chip = \"gfx90a\">] {\n"
      "    llvm.func @a() attributes {gpu.kernel, rocdl.kernel} { llvm.return }\n"
      "  }\n"
      "  gpu.module @bad [#rocdl.target<chip = \"gfx90a\">] {\n"
      "    llvm.func @missing()\n"
      "    llvm.func @b() attributes {gpu.kernel, rocdl.kernel} {\n"
      "      llvm.call @missing() : () -> ()\n"
      "      llvm.return\n"
      "    }\n"
      "  }\n"
      "}\n";
  MlirOperation top = mlirOperationCreateParse(ctx, mlirStringRefCreate(text, sizeof text - 1),
                                               mlirStringRefCreateFromCString("two.mlir"));
  char *before = NULL, *after = NULL;
  mlirOperationPrint(top, print_to, &before);
  int rc = gpublob_mlir_serialize(g, NULL, top);
  mlirOperationPrint(top, print_to, &after);
  check(rc == GPUBLOB_TOOL && contains(gpublob_error_message(g), "gpu.module @bad") &&
            contains(gpublob_error_message(g), "missing") && before && after && !strcmp(before, after),
        "mlir: a failing gpu.module leaves the caller's module exactly as it was", "rc %d: %s", rc,
        gpublob_error_message(g));
  free(after);
  after = NULL;
  gpublob_options fine = {.version = GPUBLOB_OPTIONS_VERSION, .target = "amdgcn:gfx90a",
                          .format = GPUBLOB_FORMAT_ASM};
  rc = gpublob_mlir_serialize(g, &fine, top);
  mlirOperationPrint(top, print_to, &after);
  check(rc == 0 && after && contains(after, "gpu.binary @ok") && contains(after, "gpu.binary @bad"),
        "mlir: gpublob_mlir_serialize changes the caller's module in place", "rc %d: %s", rc,
        gpublob_error_message(g));
  free(before);
  free(after);
  mlirOperationDestroy(top);
  mlirContextDestroy(ctx);
}

/* ---- the external pass in a C program's own pass manager ---- */
static MlirLogicalResult keep_diag(MlirDiagnostic d, void *arg) {
  char *b = arg;
  mlirDiagnosticPrint(d, to_buf, b);
  return mlirLogicalResultSuccess();
}

static int run_pass(const gpublob_options *o, char **printed, char *diag) {
  MlirContext ctx = test_context();
  mlirContextAttachDiagnosticHandler(ctx, keep_diag, diag, NULL);
  size_t n;
  unsigned char *text = slurp("examples/saxpy.mlir", &n);
  MlirOperation top = mlirOperationCreateParse(ctx, mlirStringRefCreate((char *)text, n),
                                               mlirStringRefCreateFromCString("saxpy.mlir"));
  free(text);
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirOpPassManager opm = mlirPassManagerGetAsOpPassManager(pm);
  MlirLogicalResult r = mlirOpPassManagerAddPipeline(
      opm,
      mlirStringRefCreateFromCString(
          "gpu.module(convert-scf-to-cf,convert-gpu-to-rocdl{chipset=gfx90a},reconcile-unrealized-casts)"),
      NULL, NULL);
  MlirPass pass = gpublob_mlir_pass_create(o);
  mlirPassManagerAddOwnedPass(pm, pass);
  int ok = !mlirLogicalResultIsFailure(r) && !mlirLogicalResultIsFailure(mlirPassManagerRunOnOp(pm, top));
  *printed = NULL;
  mlirOperationPrint(top, print_to, printed);
  mlirPassManagerDestroy(pm);
  mlirOperationDestroy(top);
  mlirContextDestroy(ctx);
  return ok;
}

static void test_pass(void) {
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = "amdgcn:gfx90a"};
  char diag[256] = "", *printed;
  int ok = run_pass(&o, &printed, diag);
  objects os;
  int got = ok && printed && read_objects(printed, strlen(printed), &os);
  char syms[256] = "";
  if (got && os.n == 1) kernel_symbols(os.o[0].data, os.o[0].size, "pass.hsaco", syms, sizeof syms);
  check(got && os.n == 1 && elf_machine(&os.o[0]) == 224 && contains(syms, "saxpy") && !diag[0],
        "mlir: the pass after a C program's own lowering gives a hsaco", "ok %d, diag '%s'", ok, diag);
  if (got) objects_free(&os);
  free(printed);
  o.target = "amdgcn:gfx9999";
  diag[0] = 0;
  ok = run_pass(&o, &printed, diag);
  check(!ok && contains(diag, "invalid chip 'gfx9999'") && printed && contains(printed, "gpu.module @kernels"),
        "mlir: a failing pass reports through MLIR's diagnostics and changes nothing", "diag '%s'", diag);
  free(printed);
}

/* ---- downstream: mlir-opt --gpu-to-llvm, mlir-translate; the blob in the LLVM IR ---- */
static void test_downstream(const char *target, unsigned machine) {
  char name[128];
  snprintf(name, sizeof name, "mlir: %s gpu.binary goes through --gpu-to-llvm and mlir-translate", target);
  if (machine == 190 && !have_ptxas()) {
    skip(name, "ptxas (CUDA toolkit) not found");
    return;
  }
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = target};
  gpublob_blob b;
  int rc = compile_mlir("examples/saxpy.mlir", &o, &b);
  const char *in = tmp_path("device.mlir"), *host = tmp_path("host.mlir"), *ll = tmp_path("host.ll");
  if (!rc) spill(in, b.data, b.size);
  gpublob_blob_free(&b);
  const char *lower[] = {MLIR_OPT, in,
                         "--pass-pipeline=builtin.module(finalize-memref-to-llvm,gpu-to-llvm,"
                         "convert-func-to-llvm,convert-arith-to-llvm,reconcile-unrealized-casts)",
                         "-o", host, NULL};
  const char *translate[] = {MLIR_TRANSLATE, "--mlir-to-llvmir", host, "-o", ll, NULL};
  char *out1 = NULL, *out2 = NULL;
  int ok = !rc && run(lower, &out1) == 0 && run(translate, &out2) == 0;
  unsigned got = 0;
  if (ok) { /* the kernels_binary constant holds the blob */
    LLVMContextRef c = LLVMContextCreate();
    LLVMMemoryBufferRef buf = NULL;
    LLVMModuleRef m = NULL;
    char *err = NULL;
    if (!LLVMCreateMemoryBufferWithContentsOfFile(ll, &buf, &err) && !LLVMParseIRInContext(c, buf, &m, &err)) {
      LLVMValueRef gv = LLVMGetNamedGlobal(m, "kernels_binary");
      size_t n = 0;
      const char *bytes = gv ? LLVMGetAsString(LLVMGetInitializer(gv), &n) : NULL;
      object ob = {.data = (unsigned char *)bytes, .size = n};
      got = bytes ? elf_machine(&ob) : 0;
      LLVMDisposeModule(m);
    }
    LLVMDisposeMessage(err);
    LLVMContextDispose(c);
  }
  check(ok && got == machine, name, "rc %d, machine %u: %s%s", rc, got, out1 ? out1 : "", out2 ? out2 : "");
  free(out1);
  free(out2);
}

/* ---- compatibility with mlir-opt-22 --gpu-module-to-binary ---- */
static int mlir_opt(const char *const *argv, char **out) {
  int rc = run(argv, out);
  if (rc) printf("  (mlir-opt: %s)\n", *out ? *out : "");
  return rc;
}

/* in: a gpu-dialect file; lowered with mlir-opt, targets attached, then both serialise. */
static void compat_one(const char *in, const char *kind, const char *lower, const char *attach,
                       const char *to_binary) {
  char name[256], pipeline[512], path[64];
  snprintf(name, sizeof name, "compat: %s %s: same objects and kernel symbols as mlir-opt", kind, in);
  snprintf(pipeline, sizeof pipeline, "--pass-pipeline=builtin.module(%s,gpu.module(%s))", attach, lower);
  snprintf(path, sizeof path, "%s-lowered.mlir", kind);
  const char *lowered = tmp_path(path);
  snprintf(path, sizeof path, "%s-upstream.mlir", kind);
  const char *upstream = tmp_path(path);
  const char *a1[] = {MLIR_OPT, in, pipeline, "-o", lowered, NULL};
  const char *a2[] = {MLIR_OPT, lowered, to_binary, "-o", upstream, NULL};
  char *o1 = NULL, *o2 = NULL;
  int ok = mlir_opt(a1, &o1) == 0 && mlir_opt(a2, &o2) == 0;
  free(o1);
  free(o2);
  gpublob_blob b = {0};
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION};
  ok = ok && compile_mlir(lowered, &o, &b) == 0;
  size_t n = 0;
  unsigned char *up = ok ? slurp(upstream, &n) : NULL;
  objects ours, theirs;
  ok = ok && up && read_objects(b.data, b.size, &ours) && read_objects(up, n, &theirs);
  int same = ok && ours.n == theirs.n && ours.binaries == theirs.binaries && ours.n > 0;
  for (int i = 0; same && i < ours.n; i++) {
    char s1[512], s2[512];
    kernel_symbols(ours.o[i].data, ours.o[i].size, "ours.elf", s1, sizeof s1);
    kernel_symbols(theirs.o[i].data, theirs.o[i].size, "theirs.elf", s2, sizeof s2);
    same = !strcmp(ours.o[i].target, theirs.o[i].target) && ours.o[i].format == theirs.o[i].format &&
           elf_machine(&ours.o[i]) == elf_machine(&theirs.o[i]) && s1[0] && !strcmp(s1, s2);
    if (!same)
      printf("  (object %d: %s [%s] vs %s [%s])\n", i, ours.o[i].target, s1, theirs.o[i].target, s2);
  }
  check(same, name, "%d vs %d objects", ok ? ours.n : -1, ok ? theirs.n : -1);
  if (ok) {
    objects_free(&ours);
    objects_free(&theirs);
  }
  free(up);
  gpublob_blob_free(&b);
}

/* Upstream ROCDL wants a ROCm-shaped folder: llvm/bin/ld.lld and amdgcn/bitcode. */
static const char *rocm_folder(void) {
  static char opt[512];
  const char *root = tmp_path("rocm");
  char bin[256], bc[256];
  snprintf(bin, sizeof bin, "%s/llvm/bin", root);
  snprintf(bc, sizeof bc, "%s/amdgcn", root);
  const char *mk[] = {"mkdir", "-p", bin, bc, NULL};
  char *out = NULL;
  run(mk, &out);
  free(out);
  strcat(bin, "/ld.lld");
  strcat(bc, "/bitcode");
  if (symlink(LLVM_BINDIR "/ld.lld", bin) || symlink("/usr/lib/x86_64-linux-gnu/amdgcn/bitcode", bc))
    return NULL;
  snprintf(opt, sizeof opt, "--gpu-module-to-binary=format=bin toolkit=%s", root);
  return opt;
}

static void test_compat(void) {
  static const char *const inputs[] = {"examples/saxpy.mlir", "tests/mlir/two_kernels.mlir",
                                       "tests/mlir/two_modules.mlir"};
  for (int i = 0; i < 3; i++) {
    if (!have_ptxas()) skip("compat: nvvm", "ptxas (CUDA toolkit) not found");
    else
      compat_one(inputs[i], "nvvm", "convert-scf-to-cf,convert-gpu-to-nvvm,reconcile-unrealized-casts",
                 "nvvm-attach-target{chip=sm_90 features=+ptx80 O=3}", "--gpu-module-to-binary=format=bin");
  }
  const char *rocm = rocm_folder();
  for (int i = 0; i < 3; i++)
    compat_one(inputs[i], "rocdl",
               "convert-scf-to-cf,convert-gpu-to-rocdl{chipset=gfx90a},reconcile-unrealized-casts",
               "rocdl-attach-target{chip=gfx90a O=3}", rocm ? rocm : "--gpu-module-to-binary=format=bin");
}
/* ---- the CLI ---- */
static void test_cli(void) {
  const char *in = tmp_path("k.mlir"), *bad = tmp_path("bad.mlir"), *out = tmp_path("k.out.mlir");
  size_t n;
  unsigned char *text = slurp("examples/saxpy.mlir", &n);
  spill(in, text, n);
  free(text);
  const char *a1[] = {"build/gpublob", "-t", "amdgcn:gfx90a", "-t", "amdgcn:gfx1030", in, NULL};
  char *o = NULL;
  int rc = run(a1, &o);
  size_t m = 0;
  unsigned char *res = exists(out) ? slurp(out, &m) : NULL;
  objects os;
  int ok = rc == 0 && res && read_objects(res, m, &os) && os.n == 2;
  check(ok, "cli: two -t on MLIR give k.out.mlir with two objects", "rc %d: %s", rc, o ? o : "");
  if (ok) objects_free(&os);
  free(res);
  free(o);
  const char *a2[] = {"build/gpublob", "-t", "amdgcn", "--emit-bytecode", in, NULL};
  rc = run(a2, &o);
  res = slurp(tmp_path("k.out.mlirbc"), &m);
  check(rc == 0 && res && m > 4 && !memcmp(res, "ML\xefR", 4), "cli: --emit-bytecode writes k.out.mlirbc",
        "rc %d: %s", rc, o ? o : "");
  free(res);
  free(o);
  spill(bad, "module {\n  gpu.module @k {\n    llvm.func @f( {\n  }\n}\n", 46);
  const char *a3[] = {"build/gpublob", "-t", "amdgcn", bad, "-o", tmp_path("bad.out.mlir"), NULL};
  rc = run(a3, &o);
  check(rc == 10 + GPUBLOB_PARSE && o && contains(o, "gpublob: error: ") && contains(o, "bad.mlir:3:") &&
            !exists(tmp_path("bad.out.mlir")) && !leftovers(scratch(), ".tmp-"),
        "cli: bad MLIR exits 14 with MLIR's location and writes nothing", "rc %d: %s", rc, o ? o : "");
  free(o);
  char line[1024];
  snprintf(line, sizeof line, "build/gpublob -t amdgcn - < examples/saxpy.mlir > %s", tmp_path("stdin.out"));
  const char *sh[] = {"sh", "-c", line, NULL};
  rc = run(sh, &o);
  res = slurp(tmp_path("stdin.out"), &m);
  ok = rc == 0 && res && read_objects(res, m, &os) && os.n == 1;
  check(ok, "cli: MLIR text on stdin is recognised, the module goes to stdout", "rc %d: %s", rc, o ? o : "");
  if (ok) objects_free(&os);
  free(res);
  free(o);
  const char *a4[] = {"build/gpublob", "--attach", "sideways", in, NULL};
  rc = run(a4, &o);
  check(rc == 2 && o && contains(o, "unknown attach mode"), "cli: an unknown --attach is a usage error", "rc %d", rc);
  free(o);
  const char *a5[] = {"build/gpublob", "-t", "amdgcn:gfx90a", "-t", "amdgcn:gfx908", "examples/saxpy_amdgcn.ll",
                      "-o", tmp_path("{stem}-{chip}{suffix}"), NULL};
  rc = run(a5, &o);
  check(rc == 0 && exists(tmp_path("saxpy_amdgcn-gfx90a.hsaco")) && exists(tmp_path("saxpy_amdgcn-gfx908.hsaco")),
        "cli: LLVM IR with two -t gives a blob each, named by the -o pattern", "rc %d: %s", rc, o ? o : "");
  free(o);
}
#endif /* GPUBLOB_MLIR */

int main(void) {
  if (gpublob_open(&g)) return 1;
#if GPUBLOB_MLIR
  check(gpublob_mlir_enabled() == 1, "mlir: built with MLIR", NULL);
  test_gpu_dialect_binary();
  test_module_targets();
  test_choices_and_formats();
  test_pool();
  test_fatbin();
  test_legacy_and_bytecode();
  test_errors();
  test_untouched();
  test_pass();
  test_downstream("nvptx", 190);
  test_downstream("amdgcn", 224);
  test_compat();
  test_cli();
#else
  gpublob_blob b;
  check(gpublob_mlir_enabled() == 0 && gpublob_mlir_compile(g, NULL, "module {}", 9, "m.mlir", &b) ==
                                           GPUBLOB_NOMLIR &&
            contains(gpublob_error_message(g), "built with MLIR"),
        "mlir: a build without MLIR says NOMLIR", NULL);
  skip("mlir: everything else", "gpublob was configured without MLIR");
#endif
  gpublob_close(g);
  return report();
}
