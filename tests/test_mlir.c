/* test_mlir: MLIR input through gpublob: gpu-dialect and llvm-dialect gpu.modules,
** binary and legacy attach, bytecode, the external pass in a C pass manager,
** errors with MLIR's own locations, the caller's module left as it was, the
** result going on through mlir-opt-22 --gpu-to-llvm and mlir-translate-22, and
** the same objects and kernel symbols as mlir-opt-22 --gpu-module-to-binary. */
#include <elf.h>
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
/* These checks call the 1.0 calls too (gpublob_module_compile and the like), which
** stay supported: without their deprecation warnings. */
#define GPUBLOB_DISABLE_DEPRECATE_WARNINGS
#include "gpublob_mlir.h" /* gpublob.h, and the calls that take MLIR objects */
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

static unsigned elf_machine(const object *o) { return elf_machine_of(o->data, o->size); }

/* The SM of a cubin: bits 8-15 of its ELF64 e_flags (80 for sm_80), as ptxas writes them. */
static unsigned cuda_sm(const object *o) { return elf_flags_of(o->data, o->size) >> 8 & 0xff; }

/* A #gpu.object's format (MLIR's gpu::CompilationTarget, GPUOpsEnums.h.inc). */
enum { FORMAT_OFFLOAD = 1, FORMAT_ASSEMBLY = 2, FORMAT_BINARY = 3, FORMAT_FATBIN = 4 };

/* The blob's text for a message. */
static const char *text_of(const gpublob_blob *b) { return b->data ? (const char *)b->data : "(no blob)"; }

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

/* An ELF's machine code as llvm-objdump -d prints it, without its first lines (the
** file's name); malloc'd, or NULL. */
static char *machine_code(const void *data, size_t size, const char *name) {
  const char *path = tmp_path(name);
  spill(path, data, size);
  const char *argv[] = {LLVM_BINDIR "/llvm-objdump", "-d", path, NULL};
  char *text = NULL;
  if (run(argv, &text) || !text) {
    free(text);
    return NULL;
  }
  char *body = strstr(text, "Disassembly of section");
  memmove(text, body ? body : "", strlen(body ? body : "") + 1);
  return text;
}

static int compile_mlir(const char *path, const gpublob_options *o, gpublob_blob *b) {
  int rc = gpublob_mlir_file_compile(g, o, path, b);
  if (rc) printf("  (%s: %s)\n", path, gpublob_error_message(g));
  return rc;
}

/* ---- gpu-dialect input, lowered in-process, attached as gpu.binary ---- */
static void test_gpu_dialect_binary(void) {
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION};
  gpublob_blob b = {0};
  objects os = {0};
  if (!have_ptxas()) {
    skip("mlir: gpu dialect to a cubin in gpu.binary", "ptxas (CUDA toolkit) not found");
    return;
  }
  int rc = compile_mlir("examples/saxpy.mlir", &o, &b);
  int ok = !rc && read_objects(b.data, b.size, &os);
  char syms[512] = "";
  if (ok && os.n == 1) kernel_symbols(os.o[0].data, os.o[0].size, "saxpy.cubin", syms, sizeof syms);
#define GPU "mlir: gpu dialect to a cubin in gpu.binary"
  check(rc == 0, GPU ": compiles", "rc %d", rc);
  check(ok, GPU ": the output parses", "rc %d", rc);
  check_if(ok, os.binaries == 1, GPU ": one gpu.binary", "%d", os.binaries);
  check_if(ok, os.modules == 0, GPU ": no gpu.module left", "%d", os.modules);
  check_if(ok, os.n == 1, GPU ": one object", "%d objects", os.n);
  check_if(ok && os.n > 0, elf_machine(&os.o[0]) == EM_CUDA, GPU ": e_machine EM_CUDA", "e_machine %u",
           elf_machine(&os.o[0]));
  check_if(ok && os.n > 0, os.o[0].format == FORMAT_BINARY, GPU ": format bin", "format %u", os.o[0].format);
  check_if(ok && os.n > 0, contains(os.o[0].target, "#nvvm.target"), GPU ": #nvvm.target", "%s", os.o[0].target);
  check(same_str(syms, "saxpy"), GPU, "symbols '%s'", syms);
  check(contains((char *)b.data, "gpu.binary @kernels <#gpu.select_object"), GPU ": gpu.binary @kernels with "
        "#gpu.select_object", "%.300s", text_of(&b));
  check(contains((char *)b.data, "gpu.launch_func"), GPU ": gpu.launch_func kept", "%.300s", text_of(&b));
#undef GPU
  objects_free(&os);
  gpublob_blob_free(&b);
}

/* ---- several targets on one gpu.module, from its own attributes ---- */
static void test_module_targets(void) {
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION};
  gpublob_blob b = {0};
  objects os = {0};
  if (!have_ptxas()) {
    skip("mlir: three target attributes give three objects", "ptxas (CUDA toolkit) not found");
    return;
  }
  int rc = compile_mlir("tests/mlir/multi_target.mlir", &o, &b);
  int parsed = !rc && read_objects(b.data, b.size, &os), ok = parsed && os.n == 3;
#define THREE "mlir: three target attributes give three objects"
  check(rc == 0, THREE ": compiles", "rc %d", rc);
  check(parsed, THREE ": the output parses", "rc %d", rc);
  check_if(parsed, os.n == 3, THREE, "%d objects", os.n);
  check_if(ok, elf_machine(&os.o[0]) == EM_CUDA, THREE ": the first is EM_CUDA", "e_machine %u", elf_machine(&os.o[0]));
  check_if(ok, elf_machine(&os.o[1]) == EM_CUDA, THREE ": the second is EM_CUDA", "e_machine %u",
           elf_machine(&os.o[1]));
  check_if(ok, elf_machine(&os.o[2]) == EM_AMDGPU, THREE ": the third is EM_AMDGPU", "e_machine %u",
           elf_machine(&os.o[2]));
  check_if(ok, cuda_sm(&os.o[0]) == 80, THREE ": the first is for sm_80", "sm %u", cuda_sm(&os.o[0]));
  check_if(ok, cuda_sm(&os.o[1]) == 90, THREE ": the second is for sm_90", "sm %u", cuda_sm(&os.o[1]));
  check_if(ok, contains(os.o[2].target, "gfx90a"), THREE ": the third is for gfx90a", "%s", os.o[2].target);
#undef THREE
  char a[256] = "", c[256] = "";
  if (ok) {
    kernel_symbols(os.o[0].data, os.o[0].size, "axpy.cubin", a, sizeof a);
    kernel_symbols(os.o[2].data, os.o[2].size, "axpy.hsaco", c, sizeof c);
  }
  check_if(ok, same_str(a, "axpy"), "mlir: each object holds the kernel: the cubin", "'%s'", a);
  check_if(ok, contains(c, "axpy"), "mlir: each object holds the kernel: the hsaco", "'%s'", c);
  objects_free(&os);
  gpublob_blob_free(&b);
}

/* ---- -t replaces the module's attributes; formats asm and llvm ---- */
static void test_choices_and_formats(void) {
  gpublob_target_choice list[] = {{"amdgcn:gfx90a", NULL, NULL}, {"amdgcn", "gfx1030", NULL}};
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .targets = list, .ntargets = 2};
  gpublob_blob b = {0};
  objects os = {0};
  int rc = compile_mlir("tests/mlir/multi_target.mlir", &o, &b);
  int parsed = !rc && read_objects(b.data, b.size, &os), ok = parsed && os.n == 2;
#define LIST "mlir: a target list replaces the module's attributes"
  check(rc == 0, LIST ": compiles", "rc %d", rc);
  check(parsed, LIST ": the output parses", "rc %d", rc);
  check_if(parsed, os.n == 2, LIST ": two objects", "%d objects", os.n);
  check_if(ok, elf_machine(&os.o[0]) == EM_AMDGPU, LIST ": EM_AMDGPU", "e_machine %u", elf_machine(&os.o[0]));
  check_if(ok, contains(os.o[0].target, "gfx90a"), LIST ": the first for gfx90a", "%s", os.o[0].target);
  check_if(ok, contains(os.o[1].target, "gfx1030"), LIST ": the second for gfx1030", "%s", os.o[1].target);
  check(lacks((char *)b.data, "nvvm.target"), LIST, "%.300s", text_of(&b));
#undef LIST
  objects_free(&os);
  gpublob_blob_free(&b);

  o = (gpublob_options){.version = GPUBLOB_OPTIONS_VERSION, .target = "amdgcn",
                        .format = GPUBLOB_FORMAT_ASM};
  rc = compile_mlir("tests/mlir/two_modules.mlir", &o, &b);
  parsed = !rc && read_objects(b.data, b.size, &os);
  ok = parsed && os.n == 2;
#define ASM "mlir: format asm gives assembly objects, one gpu.binary per gpu.module"
  check(rc == 0, ASM ": compiles", "rc %d", rc);
  check(parsed, ASM ": the output parses", "rc %d", rc);
  check_if(parsed, os.n == 2, ASM ": two objects", "%d objects", os.n);
  check_if(parsed, os.binaries == 2, ASM, "%d gpu.binary", os.binaries);
  check_if(ok, os.o[0].format == FORMAT_ASSEMBLY, ASM ": format assembly", "format %u", os.o[0].format);
  check_if(ok, contains((char *)os.o[0].data, ".amdhsa_kernel fill"), ASM ": the first has .amdhsa_kernel fill", NULL);
  check_if(ok, contains((char *)os.o[1].data, "s_barrier"), ASM ": the second has s_barrier", NULL);
  check(contains((char *)b.data, "assembly = \""), ASM ": assembly = \"...\"", "%.300s", text_of(&b));
#undef ASM
  objects_free(&os);
  gpublob_blob_free(&b);

  o.format = GPUBLOB_FORMAT_LLVM;
  rc = compile_mlir("tests/mlir/two_kernels.mlir", &o, &b);
  parsed = !rc && read_objects(b.data, b.size, &os);
  ok = parsed && os.n == 1;
  char *dis = NULL;
  int dis_rc = -1;
  if (ok) { /* llvm-dis reads the object back: both kernels, for amdgcn */
    const char *bc = tmp_path("offload.bc");
    spill(bc, os.o[0].data, os.o[0].size);
    const char *argv[] = {LLVM_BINDIR "/llvm-dis", bc, "-o", "-", NULL};
    dis_rc = run(argv, &dis);
  }
#define OFF "mlir: format llvm gives bitcode offload objects that llvm-dis reads"
  check(rc == 0, OFF ": compiles", "rc %d", rc);
  check(parsed, OFF ": the output parses", "rc %d", rc);
  check_if(parsed, os.n == 1, OFF ": one object", "%d objects", os.n);
  check_if(ok, os.o[0].format == FORMAT_OFFLOAD, OFF ": format offload", "format %u", os.o[0].format);
  check_if(ok, dis_rc == 0 && dis, OFF, "llvm-dis exit %d: %s", dis_rc, dis ? dis : "");
  check(contains(dis, "amdgcn-amd-amdhsa"), OFF ": for amdgcn-amd-amdhsa", NULL);
  check(contains(dis, "@scale("), OFF ": @scale", NULL);
  check(contains(dis, "@rowsum("), OFF ": @rowsum", NULL);
  check(contains((char *)b.data, "offload = \""), OFF ": offload = \"...\"", "%.300s", text_of(&b));
#undef OFF
  free(dis);
  objects_free(&os);
  gpublob_blob_free(&b);
}

/* ---- several gpu.modules and chips on the pool: the same module whatever the threads ---- */
static void test_pool(void) {
  int cuda = have_ptxas();
  gpublob_target_choice list[] = {{"amdgcn:gfx90a,gfx908", NULL, NULL}, {"nvptx:sm_80,sm_90", NULL, NULL}};
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .targets = list, .ntargets = cuda ? 2 : 1, .jobs = 1};
  gpublob_blob serial = {0}, par = {0};
  int rc = compile_mlir("tests/mlir/two_modules.mlir", &o, &serial);
  o.jobs = 4;
  int rc2 = compile_mlir("tests/mlir/two_modules.mlir", &o, &par);
  gpublob_stats st;
  gpublob_stats_get(g, &st, sizeof st);
  objects os = {0};
  int ok = !rc2 && read_objects(par.data, par.size, &os);
  int per = cuda ? 4 : 2;
  const char *pool = cuda ? "mlir: 2 gpu.modules x (2 amdgcn + 2 nvptx chips) on 1 and 4 threads: the same module, "
                            "objects in order"
                          : "mlir: 2 gpu.modules x 2 amdgcn chips on 1 and 4 threads: the same module, objects in order";
  char label[300];
#define POOL(what) (snprintf(label, sizeof label, "%s: %s", pool, what), label)
  check(rc == 0, POOL("1 thread compiles"), "rc %d", rc);
  check(rc2 == 0, POOL("4 threads compile"), "rc %d", rc2);
  check_if(!rc && !rc2, serial.size == par.size && !memcmp(serial.data, par.data, par.size), POOL("the same module"),
           "%zu bytes against %zu", serial.size, par.size);
  check(ok, POOL("the output parses"), "rc %d", rc2);
  check_if(ok, os.binaries == 2, POOL("two gpu.binary"), "%d", os.binaries);
  check_if(ok, os.n == 2 * per, POOL("an object per module and chip"), "%d objects", os.n);
  check(st.jobs == (size_t)(2 * per), POOL("a job per module and chip"), "%zu jobs", st.jobs);
  check_if(ok && os.n > 0, contains(os.o[0].target, "gfx90a"), POOL("object 0 for gfx90a"), "%s", os.o[0].target);
  check_if(ok && os.n > 1, contains(os.o[1].target, "gfx908"), POOL("object 1 for gfx908"), "%s", os.o[1].target);
  if (cuda) {
    check_if(ok && os.n > 2, contains(os.o[2].target, "sm_80"), POOL("object 2 for sm_80"), "%s", os.o[2].target);
    check_if(ok && os.n > 3, elf_machine(&os.o[3]) == EM_CUDA, POOL("object 3 is EM_CUDA"), "e_machine %u",
             elf_machine(&os.o[3]));
    check_if(ok && os.n > 3, cuda_sm(&os.o[3]) == 90, POOL("object 3 is for sm_90"), "sm %u", cuda_sm(&os.o[3]));
  }
#undef POOL
  objects_free(&os);
  gpublob_blob_free(&serial);
  gpublob_blob_free(&par);
  /* the first failing job in order is the error, named with its gpu.module; nothing changes */
  /* inline asm of gfx9's matrix cores: gfx908 has them, gfx1100 does not */
  static const char mai[] =
      "module attributes {gpu.container_module} {\n"
      "  gpu.module @kernels {\n"
      "    llvm.func @k() attributes {gpu.kernel, rocdl.kernel} {\n"
      "      llvm.inline_asm has_side_effects \"v_accvgpr_write_b32 a0, 0\", \"\" : () -> ()\n"
      "      llvm.return\n"
      "    }\n"
      "  }\n"
      "}\n";
  const char *mai_path = tmp_path("mai.mlir");
  spill(mai_path, mai, sizeof mai - 1);
  gpublob_target_choice bad[] = {{"amdgcn:gfx908,gfx1100", NULL, NULL}};
  o = (gpublob_options){.version = GPUBLOB_OPTIONS_VERSION, .targets = bad, .ntargets = 1, .jobs = 4};
  rc = gpublob_mlir_file_compile(g, &o, mai_path, &par);
#define FAIL "mlir: a failing job fails the call, its message naming the gpu.module and chip"
  check(rc == GPUBLOB_BACKEND, FAIL ": BACKEND", "rc %d: %s", rc, gpublob_error_message(g));
  check(contains(gpublob_error_message(g), "gpu.module @kernels") && contains(gpublob_error_message(g), "amdgcn:gfx1100"),
        FAIL, "%s", gpublob_error_message(g));
  check(contains(gpublob_error_message(g), "not supported on this GPU"), FAIL ": the backend's reason", "%s",
        gpublob_error_message(g));
  check(!par.data, FAIL ": no blob", "a blob of %zu bytes", par.size);
#undef FAIL
  gpublob_blob_free(&par);
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
  gpublob_blob b = {0};
  objects os = {0};
  int rc = compile_mlir("examples/saxpy.mlir", &o, &b);
  int parsed = !rc && read_objects(b.data, b.size, &os), ok = parsed && os.n == 1;
  uint32_t magic = 0;
  if (ok && os.o[0].size >= 4) memcpy(&magic, os.o[0].data, 4);
#define FAT "mlir: -f fatbin with two chips gives one fatbin object (format fatbin), named for the newest chip"
  check(rc == 0, FAT ": compiles", "rc %d", rc);
  check(parsed, FAT ": the output parses", "rc %d", rc);
  check_if(parsed, os.n == 1, FAT ": one object", "%d objects", os.n);
  check_if(ok, os.o[0].format == FORMAT_FATBIN, FAT ": format fatbin", "format %u", os.o[0].format);
  check(magic == 0xBA55ED50u, FAT ": the fatbin magic", "magic %08x", magic);
  check_if(ok, contains(os.o[0].target, "sm_90"), FAT, "%s", os.o[0].target);
#undef FAT
  objects_free(&os);
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
#define PACK "mlir: a failing fatbinary names the gpu.module whose pack failed"
  check(rc == GPUBLOB_TOOL, PACK ": TOOL", "rc %d: %s", rc, gpublob_error_message(g));
  check(contains(gpublob_error_message(g), "gpu.module @first"), PACK, "%s", gpublob_error_message(g));
  check(contains(gpublob_error_message(g), "packing refused"), PACK ": with the tool's stderr", "%s",
        gpublob_error_message(g));
  check(!b.data, PACK ": no blob", "a blob of %zu bytes", b.size);
#undef PACK
  gpublob_blob_free(&b);
}

/* ---- rocdl fatbin objects: a clang offload bundle of an hsaco per chip ---- */
/* The bundle's entry for chip, unbundled by clang-offload-bundler: for that chip, with
** the kernel sym. */
static void check_bundle_entry(const char *bundle, const char *chip, const char *sym, const char *label) {
  char id[128], name[64], syms[256] = "";
  snprintf(id, sizeof id, "hipv4-amdgcn-amd-amdhsa--%s", chip);
  snprintf(name, sizeof name, "mlir-unbundled-%s.hsaco", chip);
  const char *path = tmp_path(name);
  int rc = unbundle(bundle, id, path);
  size_t n = 0;
  unsigned char *d = rc ? NULL : slurp(path, &n);
  if (d) kernel_symbols(d, n, name, syms, sizeof syms);
  char for_chip[256], has_sym[256];
  snprintf(for_chip, sizeof for_chip, "%s: unbundles to an hsaco for %s", label, chip);
  snprintf(has_sym, sizeof has_sym, "%s: its %s hsaco has kernel %s", label, chip, sym);
  if (!have_program(LLVM_BINDIR "/clang-offload-bundler")) {
    skip(for_chip, "clang-offload-bundler not found (clang-tools-22)");
    return;
  }
  check(d && amdgpu_chip_is(path, chip), for_chip, "exit %d", rc);
  check(d && contains(syms, sym), has_sym, "[%s]", syms);
  free(d);
}

static void test_rocdl_bundle(void) {
  gpublob_target_choice list[] = {{"amdgcn:gfx90a,gfx942", NULL, NULL}};
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .targets = list, .ntargets = 1,
                       .format = GPUBLOB_FORMAT_PACK};
  gpublob_blob b = {0};
  objects os = {0};
  int rc = compile_mlir("tests/mlir/multi_target.mlir", &o, &b);
  int parsed = !rc && read_objects(b.data, b.size, &os), ok = parsed && os.n == 1;
#define ROC "mlir: -f fatbin for #rocdl.target gives one offload bundle object (format fatbin)"
  check(rc == 0, ROC ": compiles", "rc %d", rc);
  check_if(parsed, os.n == 1, ROC ": one object for two chips", "%d objects", os.n);
  check_if(ok, os.o[0].format == FORMAT_FATBIN, ROC ": format fatbin, not bin", "format %u", os.o[0].format);
  check_if(ok, contains(os.o[0].target, "#rocdl.target") && contains(os.o[0].target, "\"gfx942\""),
           ROC ": its #rocdl.target names the newest chip", "%s", os.o[0].target);
  check_if(ok, os.o[0].size > 24 && !memcmp(os.o[0].data, "__CLANG_OFFLOAD_BUNDLE__", 24),
           ROC ": the bundle's magic", "%zu bytes", os.o[0].size);
  if (ok) {
    const char *path = tmp_path("mlir.hipfb");
    spill(path, os.o[0].data, os.o[0].size);
    check_bundle_entry(path, "gfx90a", "axpy", ROC);
    check_bundle_entry(path, "gfx942", "axpy", ROC);
  }
#undef ROC
  objects_free(&os);
  gpublob_blob_free(&b);
}

/* ---- legacy attach, bytecode out and in ---- */
static void test_legacy_and_bytecode(void) {
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = "amdgcn",
                       .attach = GPUBLOB_ATTACH_LEGACY};
  gpublob_blob b = {0};
  int rc = compile_mlir("examples/saxpy.mlir", &o, &b);
  object h;
  int got = !rc && legacy_blob(b.data, b.size, "rocdl.hsaco", &h); /* the output parses again */
#define LEGACY "mlir: legacy attach keeps the gpu.module and adds rocdl.hsaco"
  check(rc == 0, LEGACY ": compiles", "rc %d", rc);
  check(got, LEGACY ": the output parses, with rocdl.hsaco", "rc %d", rc);
  check_if(got, elf_machine(&h) == EM_AMDGPU, LEGACY ": EM_AMDGPU", "e_machine %u", elf_machine(&h));
  check(contains((char *)b.data, "gpu.module @kernels"), LEGACY, "%.300s", text_of(&b));
  check(lacks((char *)b.data, "gpu.binary"), LEGACY ": no gpu.binary", "%.300s", text_of(&b));
#undef LEGACY
  if (got) free(h.data);
  gpublob_blob_free(&b);

  o.attach = GPUBLOB_ATTACH_BINARY;
  o.flags = GPUBLOB_FLAG_MLIR_BYTECODE;
  rc = compile_mlir("examples/saxpy.mlir", &o, &b);
  check(rc == 0, "mlir: bytecode output", "rc %d", rc);
  check(b.size > 4, "mlir: bytecode output: more than 4 bytes", "%zu bytes", b.size);
  check_if(b.data && b.size >= 4, !memcmp(b.data, "ML\xefR", 4), "mlir: bytecode output: the MLIR bytecode magic",
           NULL);
  check(same_str(b.suffix, ".mlirbc"), "mlir: bytecode output: suffix .mlirbc", "suffix %s",
        b.suffix ? b.suffix : "(none)");
  /* bytecode input: the unlowered module, written as bytecode by mlir-opt */
  const char *bc = tmp_path("saxpy.mlirbc");
  const char *argv[] = {MLIR_OPT, "--emit-bytecode", "examples/saxpy.mlir", "-o", bc, NULL};
  if (!have_program(MLIR_OPT)) {
    skip("mlir: bytecode input", MLIR_OPT " not found (mlir-22-tools)");
    gpublob_blob_free(&b);
    return;
  }
  char *out = NULL;
  int made = run(argv, &out) == 0;
  free(out);
  gpublob_blob b2 = {0};
  o.flags = 0;
  rc = made ? compile_mlir(bc, &o, &b2) : -1;
  objects os = {0};
  int parsed = !rc && read_objects(b2.data, b2.size, &os), ok = parsed && os.n == 1;
  check(made, "mlir: bytecode input: mlir-opt writes it", NULL);
  check(rc == 0, "mlir: bytecode input", "rc %d", rc);
  check(parsed, "mlir: bytecode input: the output parses", "rc %d", rc);
  check_if(parsed, os.n == 1, "mlir: bytecode input: one object", "%d objects", os.n);
  check_if(ok, elf_machine(&os.o[0]) == EM_AMDGPU, "mlir: bytecode input: EM_AMDGPU", "e_machine %u",
           elf_machine(&os.o[0]));
  objects_free(&os);
  if (!rc) gpublob_blob_free(&b2);
  gpublob_blob_free(&b);
}

/* ---- errors: codes, MLIR's locations, nothing changed ---- */
/* text fails with code, no blob, and needle in the message: NAME, NAME: no blob,
** NAME: the message. */
static void fails_with(const char *name, const char *text, const gpublob_options *o, int code, const char *needle) {
  gpublob_blob b = {0};
  int rc = gpublob_mlir_compile(g, o, text, strlen(text), "in.mlir", &b);
  char label[300];
  check(rc == code, name, "rc %d, want %d: %s", rc, code, gpublob_error_message(g));
  snprintf(label, sizeof label, "%s: no blob", name);
  check(b.data == NULL, label, "a blob of %zu bytes", b.size);
  snprintf(label, sizeof label, "%s: the message", name);
  check(contains(gpublob_error_message(g), needle), label, "'%s' lacks '%s'", gpublob_error_message(g), needle);
  if (!rc) gpublob_blob_free(&b);
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
  fails_with("mlir: a parse error carries MLIR's file:line:col",
             "module {\n  func.func @f() {\n    %0 = arith.addi 1, 2\n  }\n}\n", &o, GPUBLOB_PARSE,
             "in.mlir:3:");
  fails_with("mlir: a verifier error carries its location",
             "module {\n  func.func @f() -> i32 {\n    %0 = \"arith.addi\"() : () -> i32\n"
             "    return %0 : i32\n  }\n}\n",
             &o, GPUBLOB_PARSE, "in.mlir:3:10: error: 'arith.addi' op expected 2 operands");
  fails_with("mlir: a module with no gpu.module is NOGPU",
             "module {\n  func.func @f() { return }\n}\n", &o, GPUBLOB_NOGPU, "no gpu.module");
  gpublob_options own = {.version = GPUBLOB_OPTIONS_VERSION};
  fails_with("mlir: #spirv.target_env on a gpu-dialect body is LOWER: MLIR's serialiser takes a spirv.module",
             with_targets("[#spirv.target_env<#spirv.vce<v1.0, [Kernel], []>, #spirv.resource_limits<>>]"),
             &own, GPUBLOB_LOWER, "gpu.module @k: its body holds operations outside the dialects MLIR's serialiser "
             "of #spirv.target_env takes (spirv)");
  fails_with("mlir: a chip missing from the spec is CHIP",
             with_targets("[#nvvm.target<chip = \"sm_99\">]"), &own, GPUBLOB_CHIP,
             "gpu.module @k (nvptx sm_99): invalid chip 'sm_99'");
  gpublob_options bad = o;
  bad.pipeline = "convert-scf-to-cf,no-such-pass";
  fails_with("mlir: an unknown pass in the pipeline is OPTION",
             with_targets(""), &bad, GPUBLOB_OPTION, "'no-such-pass' does not refer to a registered pass");
  bad.pipeline = "convert-scf-to-cf";
  fails_with("mlir: a pipeline that leaves the gpu dialect is LOWER, with the location",
             with_targets(""), &bad, GPUBLOB_LOWER, "in.mlir:3:5: error: unsupported GPU operation: gpu.func");
  bad.pipeline = "convert-gpu-to-rocdl{chipset=gfx1}";
  fails_with("mlir: a failing lowering pass is LOWER",
             with_targets(""), &bad, GPUBLOB_LOWER, "Invalid chipset name: gfx1");
  gpublob_target_choice two[] = {{"nvptx:sm_80", NULL, NULL}, {"nvptx:sm_90", NULL, NULL}};
  gpublob_options legacy = {.version = GPUBLOB_OPTIONS_VERSION, .targets = two, .ntargets = 2,
                            .attach = GPUBLOB_ATTACH_LEGACY, .format = GPUBLOB_FORMAT_ASM};
  fails_with("mlir: legacy attach refuses two blobs under one attribute",
             with_targets(""), &legacy, GPUBLOB_OPTION, "share the attribute nvvm.cubin");
  gpublob_options spirv = {.version = GPUBLOB_OPTIONS_VERSION, .target = "spirv"};
  fails_with("mlir: binary attach needs the target's MLIR attribute",
             with_targets(""), &spirv, GPUBLOB_OPTION, "no MLIR target attribute");
  spirv.attach = GPUBLOB_ATTACH_LEGACY;
  gpublob_blob b = {0};
  const char *text = with_targets("");
  int rc = gpublob_mlir_compile(g, &spirv, text, strlen(text), "in.mlir", &b);
  object spv;
  char *val = NULL;
  int got = rc == 0 && legacy_blob(b.data, b.size, "gpublob.spirv", &spv), vr = -1;
  if (got) {
    const char *path = tmp_path("legacy.spv");
    spill(path, spv.data, spv.size);
    const char *argv[] = {SPIRV_VAL, path, NULL};
    vr = run(argv, &val);
    free(spv.data);
  }
#define SPV "mlir: spirv through convert-gpu-to-llvm-spv, legacy attach; spirv-val passes"
  check(rc == 0, SPV ": compiles", "rc %d: %s", rc, rc ? gpublob_error_message(g) : "");
  check(got, SPV ": the output parses, with gpublob.spirv", NULL);
  if (have_program(SPIRV_VAL)) check_if(got, vr == 0, SPV, "spirv-val exit %d: %s", vr, val ? val : "");
  else skip(SPV, "spirv-val not found (spirv-tools)");
  check(contains((char *)b.data, "gpu.func @f"), SPV ": the gpu.func is kept", "%.300s", text_of(&b));
#undef SPV
  free(val);
  if (!rc) gpublob_blob_free(&b);
  static const char bare[] = "gpu.module @bare [#rocdl.target<chip = \"gfx90a\">] {\n"
                             "  llvm.func @a() attributes {gpu.kernel, rocdl.kernel} { llvm.return }\n}\n";
  rc = gpublob_mlir_compile(g, NULL, bare, sizeof bare - 1, "bare.mlir", &b);
  check(rc == 0, "mlir: a bare gpu.module is wrapped in a module: compiles", "rc %d: %s", rc,
        rc ? gpublob_error_message(g) : "");
  check(contains((char *)b.data, "gpu.binary @bare"), "mlir: a bare gpu.module is wrapped in a module", "%.300s",
        text_of(&b));
  if (!rc) gpublob_blob_free(&b);
  gpublob_options none = {.version = GPUBLOB_OPTIONS_VERSION, .ntargets = 2};
  fails_with("mlir: ntargets without targets is MISUSE",
             bare, &none, GPUBLOB_MISUSE, "targets is NULL");
}

/* A failure in the second gpu.module leaves the first untouched too. */
static void print_to(MlirStringRef s, void *arg) {
  char **p = arg;
  size_t n = *p ? strlen(*p) : 0;
  *p = realloc(*p, n + s.length + 1);
  memcpy(*p + n, s.data, s.length);
  (*p)[n + s.length] = 0;
}

/* gpu.launch without a gpu.module (upstream's integration tests, before their pipeline
** outlines): a compile outlines it (gpu-kernel-outlining) and serialises the result; a
** caller's module given to gpublob_mlir_serialize is left as it was (NOGPU). */
static const char launch_only[] =
    "module {\n  func.func @main(%arg0: memref<16xf32>) {\n    %c1 = arith.constant 1 : index\n"
    "    %c16 = arith.constant 16 : index\n"
    "    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in "
    "(%sx = %c16, %sy = %c1, %sz = %c1) {\n"
    "      %v = memref.load %arg0[%tx] : memref<16xf32>\n      %w = arith.addf %v, %v : f32\n"
    "      memref.store %w, %arg0[%tx] : memref<16xf32>\n      gpu.terminator\n    }\n    return\n  }\n}\n";

static void test_launch_only(void) {
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = "amdgcn:gfx90a"};
  gpublob_blob b = {0};
  int rc = gpublob_mlir_compile(g, &o, launch_only, sizeof launch_only - 1, "launch.mlir", &b);
  const char *t = rc ? "" : text_of(&b);
  check(rc == 0 && contains(t, "gpu.binary @main_kernel") && contains(t, "gpu.launch_func") && lacks(t, "gpu.launch "),
        "mlir: a gpu.launch without a gpu.module is outlined, then serialised", "rc %d: %s", rc,
        rc ? gpublob_error_message(g) : t);
  objects os = {0};
  int read = !rc && read_objects(b.data, b.size, &os);
  check(read && os.n == 1 && elf_machine(&os.o[0]) == EM_AMDGPU, "mlir: the outlined kernel's object is an hsaco",
        "%d objects", os.n);
  objects_free(&os);
  gpublob_blob_free(&b);
  MlirContext ctx = test_context();
  MlirOperation top = mlirOperationCreateParse(ctx, mlirStringRefCreate(launch_only, sizeof launch_only - 1),
                                               mlirStringRefCreateFromCString("launch.mlir"));
  char *before = NULL, *after = NULL;
  mlirOperationPrint(top, print_to, &before);
  rc = gpublob_mlir_serialize(g, &o, top);
  mlirOperationPrint(top, print_to, &after);
  check(rc == GPUBLOB_NOGPU && same_str(before, after),
        "mlir: a caller's module with gpu.launch alone is NOGPU to gpublob_mlir_serialize, and left as it was",
        "rc %d: %s", rc, gpublob_error_message(g));
  free(before);
  free(after);
  mlirOperationDestroy(top);
  mlirContextDestroy(ctx);
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
#define UNTOUCHED "mlir: a failing gpu.module leaves the caller's module exactly as it was"
  check(rc == GPUBLOB_LINK, UNTOUCHED ": LINK (an undefined function)", "rc %d: %s", rc, gpublob_error_message(g));
  check(contains(gpublob_error_message(g), "gpu.module @bad"), UNTOUCHED ": the message names gpu.module @bad", "%s",
        gpublob_error_message(g));
  check(contains(gpublob_error_message(g), "missing"), UNTOUCHED ": the message names the missing function", "%s",
        gpublob_error_message(g));
  check(same_str(before, after), UNTOUCHED, "before:\n%s\nafter:\n%s", before ? before : "", after ? after : "");
#undef UNTOUCHED
  free(after);
  after = NULL;
  gpublob_options fine = {.version = GPUBLOB_OPTIONS_VERSION, .target = "amdgcn:gfx90a",
                          .format = GPUBLOB_FORMAT_ASM};
  rc = gpublob_mlir_serialize(g, &fine, top);
  mlirOperationPrint(top, print_to, &after);
#define IN_PLACE "mlir: gpublob_mlir_serialize changes the caller's module in place"
  check(rc == 0, IN_PLACE ": succeeds", "rc %d: %s", rc, gpublob_error_message(g));
  check(contains(after, "gpu.binary @ok"), IN_PLACE ": gpu.binary @ok", "%s", after ? after : "");
  check(contains(after, "gpu.binary @bad"), IN_PLACE ": gpu.binary @bad", "%s", after ? after : "");
#undef IN_PLACE
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
  *printed = NULL;
  if (!text) {
    snprintf(diag, 256, "cannot read examples/saxpy.mlir");
    mlirContextDestroy(ctx);
    return 0;
  }
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
  objects os = {0};
  int got = ok && printed && read_objects(printed, strlen(printed), &os);
  char syms[256] = "";
  if (got && os.n == 1) kernel_symbols(os.o[0].data, os.o[0].size, "pass.hsaco", syms, sizeof syms);
#define PASS "mlir: the pass after a C program's own lowering gives a hsaco"
  check(ok, PASS ": the pass manager succeeds", "diag '%s'", diag);
  check(got, PASS ": the module parses", "printed %s", printed ? "" : "nothing");
  check_if(got, os.n == 1, PASS ": one object", "%d objects", os.n);
  check_if(got && os.n > 0, elf_machine(&os.o[0]) == EM_AMDGPU, PASS ": EM_AMDGPU", "e_machine %u",
           elf_machine(&os.o[0]));
  check(contains(syms, "saxpy"), PASS, "symbols '%s'", syms);
  check(!diag[0], PASS ": no diagnostic", "diag '%s'", diag);
#undef PASS
  objects_free(&os);
  free(printed);
  o.target = "amdgcn:gfx9999";
  diag[0] = 0;
  ok = run_pass(&o, &printed, diag);
#define PASS_FAILS "mlir: a failing pass reports through MLIR's diagnostics and changes nothing"
  check(!ok, PASS_FAILS ": the pass manager fails", NULL);
  check(contains(diag, "invalid chip 'gfx9999'"), PASS_FAILS, "diag '%s'", diag);
  check(contains(printed, "gpu.module @kernels"), PASS_FAILS ": the gpu.module is still there", "%s",
        printed ? printed : "(nothing printed)");
#undef PASS_FAILS
  free(printed);
}

/* ---- downstream: mlir-opt --gpu-to-llvm, mlir-translate; the blob in the LLVM IR ---- */
static void test_downstream(const char *target, unsigned machine) {
  char name[128];
  snprintf(name, sizeof name, "mlir: %s gpu.binary goes through --gpu-to-llvm and mlir-translate", target);
  if (machine == EM_CUDA && !have_ptxas()) {
    skip(name, "ptxas (CUDA toolkit) not found");
    return;
  }
  if (!have_program(MLIR_OPT) || !have_program(MLIR_TRANSLATE)) {
    skip(name, MLIR_OPT " or " MLIR_TRANSLATE " not found (mlir-22-tools)");
    return;
  }
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = target};
  gpublob_blob b = {0};
  int rc = compile_mlir("examples/saxpy.mlir", &o, &b);
  const char *in = tmp_path("device.mlir"), *host = tmp_path("host.mlir"), *ll = tmp_path("host.ll");
  if (!rc) spill(in, b.data, b.size);
  gpublob_blob_free(&b);
  const char *lower[] = {MLIR_OPT, in,
                         "--pass-pipeline=builtin.module(finalize-memref-to-llvm,gpu-to-llvm,"
                         "convert-func-to-llvm,convert-arith-to-llvm,reconcile-unrealized-casts)",
                         "-o", host, NULL};
  const char *translate[] = {MLIR_TRANSLATE, "--mlir-to-llvmir", host, "-o", ll, NULL};
  char *out1 = NULL, *out2 = NULL, label[200];
  int lowered = rc ? -1 : run(lower, &out1), translated = lowered ? -1 : run(translate, &out2);
  int ok = translated == 0;
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
  snprintf(label, sizeof label, "%s: compiles", name);
  check(rc == 0, label, "rc %d", rc);
  snprintf(label, sizeof label, "%s: mlir-opt --gpu-to-llvm", name);
  check_if(rc == 0, lowered == 0, label, "exit %d: %s", lowered, out1 ? out1 : "");
  snprintf(label, sizeof label, "%s: mlir-translate --mlir-to-llvmir", name);
  check_if(lowered == 0, translated == 0, label, "exit %d: %s", translated, out2 ? out2 : "");
  check_if(ok, got == machine, name, "e_machine %u in kernels_binary, want %u", got, machine);
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
/* same_bytes: each object is mlir-opt's byte for byte (nvvm: the same PTX, the same
** ptxas, which gpublob does not ask for its report, as mlir-opt does not: ptxas
** records -v in the cubin's tool note); else the same machine code (rocdl:
** upstream's object keeps the backend's resource-usage symbols,
** fill.num_named_barrier and amdgpu.max_num_*, gpublob's the per-kernel ones alone). */
static void compat_one(const char *in, const char *kind, const char *lower, const char *attach,
                       const char *to_binary, int same_bytes) {
  char name[256], pipeline[512], path[64];
  snprintf(name, sizeof name, "compat: %s %s: same objects and kernel symbols as mlir-opt", kind, in);
  if (!have_program(MLIR_OPT)) {
    skip(name, MLIR_OPT " not found (mlir-22-tools)");
    return;
  }
  snprintf(pipeline, sizeof pipeline, "--pass-pipeline=builtin.module(%s,gpu.module(%s))", attach, lower);
  snprintf(path, sizeof path, "%s-lowered.mlir", kind);
  const char *lowered = tmp_path(path);
  snprintf(path, sizeof path, "%s-upstream.mlir", kind);
  const char *upstream = tmp_path(path);
  const char *a1[] = {MLIR_OPT, in, pipeline, "-o", lowered, NULL};
  const char *a2[] = {MLIR_OPT, lowered, to_binary, "-o", upstream, NULL};
  char *o1 = NULL, *o2 = NULL, label[400];
  int r1 = mlir_opt(a1, &o1), r2 = r1 ? -1 : mlir_opt(a2, &o2);
  free(o1);
  free(o2);
  gpublob_blob b = {0};
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .flags = same_bytes ? GPUBLOB_FLAG_NO_TOOL_REPORT : 0};
  int rc = r1 || r2 ? -1 : compile_mlir(lowered, &o, &b);
  size_t n = 0;
  unsigned char *up = rc ? NULL : slurp(upstream, &n);
  objects ours = {0}, theirs = {0};
  int read_ours = up && read_objects(b.data, b.size, &ours), read_theirs = up && read_objects(up, n, &theirs);
  int ok = read_ours && read_theirs;
#define COMPAT(what) (snprintf(label, sizeof label, "%s: %s", name, what), label)
  check(r1 == 0, COMPAT("mlir-opt lowers and attaches"), "exit %d", r1);
  check_if(r1 == 0, r2 == 0, COMPAT("mlir-opt --gpu-module-to-binary"), "exit %d", r2);
  check_if(r1 == 0 && r2 == 0, rc == 0, COMPAT("gpublob compiles the lowered module"), "rc %d", rc);
  check_if(rc == 0, up != NULL, COMPAT("mlir-opt's output is there"), "no %s", upstream);
  check_if(up, read_ours, COMPAT("gpublob's output parses"), NULL);
  check_if(up, read_theirs, COMPAT("mlir-opt's output parses"), NULL);
  check_if(ok, ours.n == theirs.n, COMPAT("as many objects"), "%d vs %d objects", ours.n, theirs.n);
  check_if(ok, ours.binaries == theirs.binaries, COMPAT("as many gpu.binary"), "%d vs %d", ours.binaries,
           theirs.binaries);
  check_if(ok, ours.n > 0, COMPAT("objects"), "%d objects", ours.n);
  for (int i = 0; ok && i < ours.n && i < theirs.n; i++) {
    char s1[512], s2[512], what[64];
    kernel_symbols(ours.o[i].data, ours.o[i].size, "ours.elf", s1, sizeof s1);
    kernel_symbols(theirs.o[i].data, theirs.o[i].size, "theirs.elf", s2, sizeof s2);
    snprintf(what, sizeof what, "object %d: the same target", i);
    check(same_str(ours.o[i].target, theirs.o[i].target), COMPAT(what), "%s vs %s", ours.o[i].target,
          theirs.o[i].target);
    snprintf(what, sizeof what, "object %d: the same format", i);
    check(ours.o[i].format == theirs.o[i].format, COMPAT(what), "%u vs %u", ours.o[i].format, theirs.o[i].format);
    snprintf(what, sizeof what, "object %d: the same e_machine", i);
    check(elf_machine(&ours.o[i]) == elf_machine(&theirs.o[i]), COMPAT(what), "%u vs %u", elf_machine(&ours.o[i]),
          elf_machine(&theirs.o[i]));
    snprintf(what, sizeof what, "object %d: kernel symbols", i);
    check(s1[0], COMPAT(what), "none in gpublob's %s", ours.o[i].target);
    snprintf(what, sizeof what, "object %d: the same kernel symbols", i);
    check(same_str(s1, s2), COMPAT(what), "[%s] vs [%s]", s1, s2);
    if (same_bytes) {
      snprintf(what, sizeof what, "object %d: mlir-opt's bytes", i);
      check(ours.o[i].size == theirs.o[i].size && !memcmp(ours.o[i].data, theirs.o[i].data, ours.o[i].size),
            COMPAT(what), "%zu bytes vs %zu", ours.o[i].size, theirs.o[i].size);
    } else {
      char *c1 = machine_code(ours.o[i].data, ours.o[i].size, "ours.code.elf");
      char *c2 = machine_code(theirs.o[i].data, theirs.o[i].size, "theirs.code.elf");
      snprintf(what, sizeof what, "object %d: mlir-opt's machine code (llvm-objdump -d)", i);
      check(c1 && c2 && *c1 && !strcmp(c1, c2), COMPAT(what), "%zu vs %zu characters", c1 ? strlen(c1) : 0,
            c2 ? strlen(c2) : 0);
      free(c1);
      free(c2);
    }
  }
  /* --as mlir names the default: the same module, byte for byte (lowered's path again:
  ** tmp_path's buffer has held others since) */
  gpublob_blob named = {0};
  o.as = GPUBLOB_AS_MLIR;
  snprintf(path, sizeof path, "%s-lowered.mlir", kind);
  int rc2 = rc ? -1 : compile_mlir(tmp_path(path), &o, &named);
  check_if(rc == 0, rc2 == 0 && named.size == b.size && !memcmp(named.data, b.data, b.size),
           COMPAT("--as mlir gives the default's module, byte for byte"), "rc %d, %zu vs %zu bytes", rc2, named.size,
           b.size);
  gpublob_blob_free(&named);
#undef COMPAT
  objects_free(&ours);
  objects_free(&theirs);
  free(up);
  gpublob_blob_free(&b);
}

static void test_compat(void) {
  static const char *const inputs[] = {"examples/saxpy.mlir", "tests/mlir/two_kernels.mlir",
                                       "tests/mlir/two_modules.mlir"};
  for (int i = 0; i < 3; i++) {
    if (!have_ptxas()) skip("compat: nvvm", "ptxas (CUDA toolkit) not found");
    else
      compat_one(inputs[i], "nvvm", "convert-scf-to-cf,convert-gpu-to-nvvm,reconcile-unrealized-casts",
                 "nvvm-attach-target{chip=sm_90 features=+ptx80 O=3}", "--gpu-module-to-binary=format=bin", 1);
  }
  const char *root = rocm_folder();
  char rocm[4400];
  if (root) snprintf(rocm, sizeof rocm, "--gpu-module-to-binary=format=bin toolkit=%s", root);
  for (int i = 0; i < 3; i++)
    if (!root) /* upstream's ROCDL serialiser runs the ld.lld program, with ROCm's bitcode */
      skip("compat: rocdl", "no ld.lld program (lld-22) or no ROCm bitcode (rocm-device-libs) for mlir-opt");
    else
      compat_one(inputs[i], "rocdl",
               "convert-scf-to-cf,convert-gpu-to-rocdl{chipset=gfx90a},reconcile-unrealized-casts",
               "rocdl-attach-target{chip=gfx90a O=3}", root ? rocm : "--gpu-module-to-binary=format=bin", 0);
}
/* The AMDGCN assembly of a gpu-dialect file, lowered by mlir-opt-22 with pipeline
** (gpu.module's passes, then rocdl-attach-target), is mlir-opt's byte for byte.
** mlir-opt's serialiser optimises without LLVM's standard instrumentations (so an
** optnone function's passes run: ockl's __ockl_hostcall_internal, which HIP's printf
** calls) and erases opencl.ocl.version and llvm.ident from each library; gpublob's
** MLIR jobs do the same where the build has src/passes.cpp (GPUBLOB_MLIR_PASSES). */
static void isa_compat(const char *in, const char *lower, const char *what) {
  char name[300];
  snprintf(name, sizeof name, "compat: rocdl %s: the assembly is mlir-opt's, byte for byte", what);
  const char *root = rocm_folder();
#if !GPUBLOB_MLIR_PASSES
  skip(name, "this build has no src/passes.cpp (no C++ compiler, or a sanitized build)");
  return;
#endif
  if (!have_program(MLIR_OPT) || !root) {
    skip(name, "needs mlir-opt-22, the ld.lld program and ROCm's bitcode");
    return;
  }
  char isa[4400], pipeline[600];
  snprintf(isa, sizeof isa, "--gpu-module-to-binary=format=isa toolkit=%s", root);
  snprintf(pipeline, sizeof pipeline, "--pass-pipeline=builtin.module(gpu.module(%s),rocdl-attach-target{chip=gfx90a})",
           lower);
  const char *lowered = tmp_path("isa-lowered.mlir"), *upstream = tmp_path("isa-upstream.mlir");
  const char *a1[] = {MLIR_OPT, in, pipeline, "-o", lowered, NULL};
  const char *a2[] = {MLIR_OPT, lowered, isa, "-o", upstream, NULL};
  char *o1 = NULL, *o2 = NULL;
  int r1 = mlir_opt(a1, &o1), r2 = r1 ? -1 : mlir_opt(a2, &o2);
  free(o1), free(o2);
  gpublob_blob b = {0};
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .format = GPUBLOB_FORMAT_ASM};
  int rc = r1 || r2 ? -1 : compile_mlir(lowered, &o, &b);
  size_t n = 0;
  unsigned char *up = rc ? NULL : slurp(upstream, &n);
  objects ours = {0}, theirs = {0};
  int ok = up && read_objects(b.data, b.size, &ours) && read_objects(up, n, &theirs) && ours.n > 0 &&
           ours.n == theirs.n;
  check(ok, name, "mlir-opt exits %d, %d; gpublob rc %d; objects %d and %d", r1, r2, rc, ours.n, theirs.n);
  for (int i = 0; ok && i < ours.n; i++)
    check(ours.o[i].size == theirs.o[i].size && !memcmp(ours.o[i].data, theirs.o[i].data, ours.o[i].size), name,
          "object %d: %zu bytes against mlir-opt's %zu", i, ours.o[i].size, theirs.o[i].size);
  objects_free(&ours);
  objects_free(&theirs);
  free(up);
  gpublob_blob_free(&b);
}

static void test_isa_compat(void) {
  static const char *const inputs[] = {"examples/saxpy.mlir", "tests/mlir/two_kernels.mlir",
                                       "tests/mlir/two_modules.mlir"};
  for (int i = 0; i < 3; i++)
    isa_compat(inputs[i], "convert-scf-to-cf,convert-gpu-to-rocdl{chipset=gfx90a},reconcile-unrealized-casts", inputs[i]);
  isa_compat("tests/mlir/printf_hip.mlir",
             "strip-debuginfo,convert-gpu-to-rocdl{chipset=gfx90a index-bitwidth=32 runtime=HIP}",
             "HIP printf (tests/mlir/printf_hip.mlir: ockl's optnone hostcall)");
}

/* ---- -f llvm: the offload bitcode, as mlir-opt-22's format=llvm ---- */
/* The CUDA toolkit's root of the ptxas gpublob finds (ROOT/bin/ptxas), where it has
** libdevice (ROOT/nvvm/libdevice/libdevice.10.bc): mlir-opt's toolkit=, gpublob's too. */
static const char *cuda_root(void) {
  static char root[4096];
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = "nvptx", .tool_mode = GPUBLOB_TOOL_PROGRAM};
  gpublob_tool_info t;
  if (gpublob_tool_info_get(g, &o, 1, &t, sizeof t) != GPUBLOB_OK) return NULL;
  snprintf(root, sizeof root, "%s", t.path);
  char *bin = strstr(root, "/bin/ptxas");
  if (!bin || bin[10]) return NULL;
  *bin = 0;
  char lib[4200];
  snprintf(lib, sizeof lib, "%s/nvvm/libdevice/libdevice.10.bc", root);
  return exists(lib) ? root : NULL;
}

/* llvm-dis's text of bitcode (NULL when it fails). */
static char *disassemble_bc(const object *o, const char *file) {
  const char *bc = tmp_path(file);
  spill(bc, o->data, o->size);
  const char *argv[] = {LLVM_BINDIR "/llvm-dis", bc, "-o", "-", NULL};
  char *text = NULL;
  if (run(argv, &text)) {
    free(text);
    return NULL;
  }
  return text;
}

/* in, lowered by mlir-opt with attach and lower (or taken as it is where lower is NULL),
** serialised by mlir-opt --gpu-module-to-binary="format=llvm toolkit=ROOT" and by
** gpublob -f llvm with the same toolkit: each object's bitcode is mlir-opt's byte for
** byte (the module's flags, !llvm.ident and !nvvmir.version included: nothing in it
** depends on the run).  nvvm: mlir-opt links libdevice into every module, and writes
** no nvvm-reflect-ftz. */
static void offload_one(const char *in, const char *kind, const char *attach, const char *lower, const char *root,
                        int libdevice) {
  char name[300], pipeline[600], opt[4400], path[64];
  snprintf(name, sizeof name, "compat: %s %s: -f llvm is mlir-opt's format=llvm, byte for byte", kind, in);
  snprintf(opt, sizeof opt, "--gpu-module-to-binary=format=llvm toolkit=%s", root);
  const char *lowered = in;
  int r1 = 0;
  char *o1 = NULL, *o2 = NULL;
  if (lower) {
    snprintf(path, sizeof path, "offload-%s-lowered.mlir", kind);
    static char kept[4096]; /* tmp_path's ring is reused */
    snprintf(kept, sizeof kept, "%s", tmp_path(path));
    lowered = kept;
    snprintf(pipeline, sizeof pipeline, "--pass-pipeline=builtin.module(%s,gpu.module(%s))", attach, lower);
    const char *a1[] = {MLIR_OPT, in, pipeline, "-o", lowered, NULL};
    r1 = mlir_opt(a1, &o1);
  }
  snprintf(path, sizeof path, "offload-%s-upstream.mlir", kind);
  const char *upstream = tmp_path(path);
  const char *a2[] = {MLIR_OPT, lowered, opt, "-o", upstream, NULL};
  int r2 = r1 ? -1 : mlir_opt(a2, &o2);
  free(o1), free(o2);
  gpublob_blob b = {0};
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .format = GPUBLOB_FORMAT_LLVM, .toolkit = root};
  int rc = r1 || r2 ? -1 : compile_mlir(lowered, &o, &b);
  size_t n = 0;
  unsigned char *up = rc ? NULL : slurp(upstream, &n);
  objects ours = {0}, theirs = {0};
  int ok = up && read_objects(b.data, b.size, &ours) && read_objects(up, n, &theirs) && ours.n > 0 &&
           ours.n == theirs.n;
  check(ok, name, "mlir-opt exits %d, %d; gpublob rc %d; objects %d and %d", r1, r2, rc, ours.n, theirs.n);
  for (int i = 0; ok && i < ours.n; i++) {
    char what[400];
    snprintf(what, sizeof what, "%s: object %d: its target and format", name, i);
    check(ours.o[i].format == theirs.o[i].format && same_str(ours.o[i].target, theirs.o[i].target), what,
          "%s (format %u) against mlir-opt's %s (format %u)", ours.o[i].target, ours.o[i].format, theirs.o[i].target,
          theirs.o[i].format);
    snprintf(what, sizeof what, "%s: object %d: mlir-opt's bitcode", name, i);
    check(ours.o[i].size == theirs.o[i].size && !memcmp(ours.o[i].data, theirs.o[i].data, ours.o[i].size), what,
          "%zu bytes against mlir-opt's %zu", ours.o[i].size, theirs.o[i].size);
  }
  if (ok && libdevice) { /* what the bytes above hold: libdevice's identification, no ftz flag */
    char *text = disassemble_bc(&theirs.o[0], "offload-upstream0.bc");
    char what[400];
    snprintf(what, sizeof what, "%s: mlir-opt's object 0 holds libdevice's !llvm.ident and !nvvmir.version, and no "
             "nvvm-reflect-ftz", name);
    check(text && contains(text, "!nvvmir.version = ") && contains(text, "!llvm.ident = ") &&
              !contains(text, "nvvm-reflect-ftz"), what, "%.400s", text ? text : "(llvm-dis failed)");
    free(text);
  }
  objects_free(&ours);
  objects_free(&theirs);
  free(up);
  gpublob_blob_free(&b);
}

static void test_offload_compat(void) {
  static const char *const inputs[] = {"examples/saxpy.mlir", "tests/mlir/two_kernels.mlir",
                                       "tests/mlir/two_modules.mlir"};
  const char *what = "compat: -f llvm is mlir-opt's format=llvm";
#if !GPUBLOB_MLIR_PASSES
  skip(what, "this build has no src/passes.cpp (no C++ compiler, or a sanitized build): MLIR jobs run LLVM's C API "
       "pipeline, not upstream's");
  return;
#endif
  if (!have_program(MLIR_OPT)) {
    skip(what, MLIR_OPT " not found (mlir-22-tools)");
    return;
  }
  const char *cuda = cuda_root();
  if (!cuda) skip("compat: nvvm -f llvm", "no CUDA toolkit with ptxas and libdevice for mlir-opt's toolkit=");
  else {
    offload_one("tests/mlir/offload_nvvm.mlir", "nvvm", NULL, NULL, cuda, 1);
    for (int i = 0; i < 3; i++)
      offload_one(inputs[i], "nvvm", "nvvm-attach-target{chip=sm_90 features=+ptx80 O=3}",
                  "convert-scf-to-cf,convert-gpu-to-nvvm,reconcile-unrealized-casts", cuda, 1);
  }
  const char *rocm = rocm_folder();
  if (!rocm) skip("compat: rocdl -f llvm", "no ld.lld program (lld-22) or no ROCm bitcode (rocm-device-libs) for "
                  "mlir-opt");
  else {
    offload_one("tests/mlir/offload_rocdl.mlir", "rocdl", NULL, NULL, rocm, 0);
    for (int i = 0; i < 3; i++)
      offload_one(inputs[i], "rocdl", "rocdl-attach-target{chip=gfx90a O=3}",
                  "convert-scf-to-cf,convert-gpu-to-rocdl{chipset=gfx90a},reconcile-unrealized-casts", rocm, 0);
  }
}

/* ---- #spirv.target_env: MLIR's own SPIR-V serialiser, as mlir-opt-22's ---- */
#define SPIRV_ENV_IN "tests/mlir/spirv_env.mlir"

/* gpublob writes the gpu.binary's default handler, #gpu.select_object<0 : i64>, where
** mlir-opt leaves it out (the same handler): the text without it, in place. */
static void drop_default_handler(char *text) {
  static const char h[] = " <#gpu.select_object<0 : i64>> ";
  for (char *p; (p = strstr(text, h));) {
    p[1] = ' ';
    memmove(p + 2, p + sizeof h - 1, strlen(p + sizeof h - 1) + 1);
  }
}

/* One format: gpublob's module is mlir-opt-22 --gpu-module-to-binary=format=NAME's, byte for
** byte but for the handler, and so is every object. */
static void spirv_env_format(int format, const char *name) {
  char label[300], arg[64], path[64];
  snprintf(label, sizeof label, "spirv_env: -f %s is mlir-opt's format=%s, byte for byte", name, name);
  if (!have_program(MLIR_OPT)) {
    skip(label, MLIR_OPT " not found (mlir-22-tools)");
    return;
  }
  snprintf(arg, sizeof arg, "--gpu-module-to-binary=format=%s", name);
  snprintf(path, sizeof path, "spirv-env-%s.mlir", name);
  const char *argv[] = {MLIR_OPT, SPIRV_ENV_IN, arg, "-o", tmp_path(path), NULL};
  char *o = NULL;
  int r = mlir_opt(argv, &o);
  free(o);
  size_t n = 0;
  unsigned char *up = r ? NULL : slurp(tmp_path(path), &n);
  gpublob_options opts = {.version = GPUBLOB_OPTIONS_VERSION, .format = format};
  gpublob_blob b = {0};
  int rc = compile_mlir(SPIRV_ENV_IN, &opts, &b);
  objects ours = {0}, theirs = {0};
  int ok = !rc && up && read_objects(b.data, b.size, &ours) && read_objects(up, n, &theirs);
  check(r == 0, label, "mlir-opt exit %d", r);
  check(rc == 0, label, "rc %d", rc);
  if (!rc && up) {
    char *text = calloc(1, b.size + 1);
    if (text) memcpy(text, b.data, b.size);
    if (text) drop_default_handler(text);
    check(text && strlen(text) == n && !memcmp(text, up, n), label, "the module's text differs from mlir-opt's");
    free(text);
  }
  check_if(!rc && up, ok && ours.n == 1 && theirs.n == 1, label, "%d and %d objects", ours.n, theirs.n);
  if (ok && ours.n == 1 && theirs.n == 1) {
    const object *a = &ours.o[0], *t = &theirs.o[0];
    check(!strcmp(a->target, t->target) && a->format == t->format, label, "%s %u vs %s %u", a->target, a->format,
          t->target, t->format);
    check(a->size == t->size && !memcmp(a->data, t->data, a->size), label, "%zu bytes vs %zu", a->size, t->size);
    check(a->size >= 4 && !memcmp(a->data, "\x03\x02\x23\x07", 4), label, "no SPIR-V magic");
  }
  objects_free(&ours);
  objects_free(&theirs);
  free(up);
  gpublob_blob_free(&b);
}

/* The bin object passes spirv-val. */
static void spirv_env_valid(void) {
  gpublob_blob b = {0};
  gpublob_options opts = {.version = GPUBLOB_OPTIONS_VERSION};
  int rc = compile_mlir(SPIRV_ENV_IN, &opts, &b);
  objects os = {0};
  int ok = !rc && read_objects(b.data, b.size, &os) && os.n == 1;
#define VAL "spirv_env: the SPIR-V object passes spirv-val"
  check(ok, VAL ": one object", "rc %d, %d objects", rc, os.n);
  if (!have_program(SPIRV_VAL)) skip(VAL, "spirv-val not found (spirv-tools)");
  else if (ok) {
    const char *path = tmp_path("spirv-env.spv");
    spill(path, os.o[0].data, os.o[0].size);
    const char *argv[] = {SPIRV_VAL, path, NULL};
    char *out = NULL;
    int vr = run(argv, &out);
    check(vr == 0, VAL, "spirv-val exit %d: %s", vr, out ? out : "");
    free(out);
  }
#undef VAL
  gpublob_blob legacy = {0};
  opts.attach = GPUBLOB_ATTACH_LEGACY;
  object lo = {0};
  rc = compile_mlir(SPIRV_ENV_IN, &opts, &legacy);
  int got = !rc && legacy_blob(legacy.data, legacy.size, "gpublob.spirv_env", &lo);
#define LEG "spirv_env: legacy attach puts the same bytes in gpublob.spirv_env"
  check(got, LEG, "rc %d", rc);
  check_if(got && ok, lo.size == os.o[0].size && !memcmp(lo.data, os.o[0].data, lo.size), LEG, "%zu vs %zu bytes",
           lo.size, ok ? os.o[0].size : 0);
#undef LEG
  gpublob_blob iso = {0};
  opts.attach = 0;
  opts.flags = GPUBLOB_FLAG_ISOLATE;
  rc = compile_mlir(SPIRV_ENV_IN, &opts, &iso);
  check(!rc && iso.size == b.size && !memcmp(iso.data, b.data, b.size), "spirv_env: isolated, the same module",
        "rc %d", rc);
  free(lo.data);
  objects_free(&os);
  gpublob_blob_free(&iso);
  gpublob_blob_free(&legacy);
  gpublob_blob_free(&b);
}

static const char *const spirv_env_module =
    "module attributes {gpu.container_module} {\n"
    "  gpu.module @k [#spirv.target_env<#spirv.vce<v1.0, [Addresses, Int64, Kernel], []>, api=OpenCL,\n"
    "                 #spirv.resource_limits<>>] {\n"
    "    spirv.module @__spv__k Physical64 OpenCL%s {\n"
    "      spirv.func @f() \"None\" {\n"
    "        spirv.Return\n"
    "      }\n"
    "      spirv.EntryPoint \"Kernel\" @f\n"
    "    }\n"
    "  }\n"
    "}\n";

/* A call whose every object is MLIR's runs no job: its cache entry is found again. */
static void spirv_env_cached(void) {
  const char *dir = tmp_path("spirv-env-cache"), *out = tmp_path("spirv-env-cached.mlir");
  const char *argv[] = {"build/gpublob", "--cache-dir", dir, "--time", SPIRV_ENV_IN, "-o", out, NULL};
  char *o1 = NULL, *o2 = NULL;
  int r1 = run(argv, &o1), r2 = run(argv, &o2);
#define CACHED "spirv_env: the CLI's second call is a cache hit"
  check(r1 == 0 && r2 == 0, CACHED ": exit 0", "exits %d, %d: %s", r1, r2, o1 ? o1 : "");
  check(contains(o1, "1 misses, 1 stored"), CACHED ": the first stores", "%s", o1 ? o1 : "");
  check(contains(o2, "cache 1 hits"), CACHED, "%s", o2 ? o2 : "");
#undef CACHED
  free(o1);
  free(o2);
}

static void test_spirv_env(void) {
  spirv_env_cached();
  spirv_env_format(GPUBLOB_FORMAT_BIN, "bin");
  spirv_env_format(GPUBLOB_FORMAT_ASM, "isa");
  spirv_env_format(GPUBLOB_FORMAT_LLVM, "llvm");
  spirv_env_format(GPUBLOB_FORMAT_FATBIN, "fatbin");
  spirv_env_valid();
  char text[1024];
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION};
  snprintf(text, sizeof text, spirv_env_module, ""); /* no vce triple: MLIR cannot serialise it */
  fails_with("spirv_env: a spirv.module MLIR cannot serialise is LOWER, with MLIR's reason", text, &o,
             GPUBLOB_LOWER, "in.mlir:4:5: error: module must have 'vce_triple' attribute to be serializeable");
  fails_with("spirv_env: the failure names the gpu.module and the serialiser", text, &o, GPUBLOB_LOWER,
             "in.mlir: gpu.module @k: MLIR's serialiser (gpu-module-to-binary, #spirv.target_env) failed");
  snprintf(text, sizeof text, spirv_env_module, " requires #spirv.vce<v1.0, [Addresses, Int64, Kernel], []>");
  gpublob_options t = {.version = GPUBLOB_OPTIONS_VERSION, .target = "spirv_env"};
  fails_with("spirv_env: -t cannot choose it", text, &t, GPUBLOB_OPTION, "-t cannot choose it");
  gpublob_blob b = {0};
  int rc = gpublob_mlir_compile(g, &o, text, strlen(text), "in.mlir", &b);
  check(rc == 0, "spirv_env: a module with a vce triple compiles", "rc %d: %s", rc, gpublob_error_message(g));
  gpublob_blob_free(&b);
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
  objects os = {0};
  int parsed = rc == 0 && res && read_objects(res, m, &os);
#define TWO_T "cli: two -t on MLIR give k.out.mlir with two objects"
  check(rc == 0, TWO_T ": exit 0", "rc %d: %s", rc, o ? o : "");
  check(res != NULL, TWO_T ": k.out.mlir is written", "no %s", out);
  check(parsed, TWO_T ": it parses", NULL);
  check_if(parsed, os.n == 2, TWO_T, "%d objects", os.n);
#undef TWO_T
  objects_free(&os);
  free(res);
  free(o);
  const char *a2[] = {"build/gpublob", "-t", "amdgcn", "--emit-bytecode", in, NULL};
  rc = run(a2, &o);
  res = slurp(tmp_path("k.out.mlirbc"), &m);
  check(rc == 0, "cli: --emit-bytecode writes k.out.mlirbc: exit 0", "rc %d: %s", rc, o ? o : "");
  check(res && m > 4, "cli: --emit-bytecode writes k.out.mlirbc", "%zu bytes", res ? m : 0);
  check_if(res && m >= 4, !memcmp(res, "ML\xefR", 4), "cli: --emit-bytecode writes k.out.mlirbc: the bytecode magic",
           NULL);
  free(res);
  free(o);
  spill(bad, "module {\n  gpu.module @k {\n    llvm.func @f( {\n  }\n}\n", 46);
  const char *a3[] = {"build/gpublob", "-t", "amdgcn", bad, "-o", tmp_path("bad.out.mlir"), NULL};
  rc = run(a3, &o);
#define BAD "cli: bad MLIR exits 14 with MLIR's location and writes nothing"
  check(rc == 10 + GPUBLOB_PARSE, BAD ": exit 14", "rc %d: %s", rc, o ? o : "");
  check(contains(o, "gpublob: error: "), BAD ": an error", "%s", o ? o : "");
  check(contains(o, "bad.mlir:3:"), BAD ": MLIR's location", "%s", o ? o : "");
  check(!exists(tmp_path("bad.out.mlir")), BAD ": no output", NULL);
  check(!leftovers(scratch(), ".tmp-"), BAD ": no temporary", NULL);
#undef BAD
  free(o);
  char line[1024];
  snprintf(line, sizeof line, "build/gpublob -t amdgcn - < examples/saxpy.mlir > %s", tmp_path("stdin.out"));
  const char *sh[] = {"sh", "-c", line, NULL};
  rc = run(sh, &o);
  res = slurp(tmp_path("stdin.out"), &m);
  parsed = rc == 0 && res && read_objects(res, m, &os);
#define STDIN "cli: MLIR text on stdin is recognised, the module goes to stdout"
  check(rc == 0, STDIN ": exit 0", "rc %d: %s", rc, o ? o : "");
  check(res != NULL, STDIN ": stdout is captured", NULL);
  check(parsed, STDIN ": it parses", NULL);
  check_if(parsed, os.n == 1, STDIN, "%d objects", os.n);
#undef STDIN
  objects_free(&os);
  free(res);
  free(o);
  const char *a4[] = {"build/gpublob", "--attach", "sideways", in, NULL};
  rc = run(a4, &o);
  check(rc == 2, "cli: an unknown --attach is a usage error", "rc %d", rc);
  check(contains(o, "unknown attach mode"), "cli: an unknown --attach is a usage error: the message", "%s", o ? o : "");
  free(o);
  const char *a5[] = {"build/gpublob", "-t", "amdgcn:gfx90a", "-t", "amdgcn:gfx908", "examples/saxpy_amdgcn.ll",
                      "-o", tmp_path("{stem}-{chip}{suffix}"), NULL};
  rc = run(a5, &o);
#define PATTERN "cli: LLVM IR with two -t gives a blob each, named by the -o pattern"
  check(rc == 0, PATTERN ": exit 0", "rc %d: %s", rc, o ? o : "");
  check(exists(tmp_path("saxpy_amdgcn-gfx90a.hsaco")), PATTERN ": saxpy_amdgcn-gfx90a.hsaco", NULL);
  check(exists(tmp_path("saxpy_amdgcn-gfx908.hsaco")), PATTERN ": saxpy_amdgcn-gfx908.hsaco", NULL);
#undef PATTERN
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
  test_rocdl_bundle();
  /* saxpy.mlir's math.exp and the amdgcn modules below are ocml's: ROCm's bitcode */
  int rocm = need_rocm("mlir: saxpy and the modules that call ocml for amdgcn: legacy attach, bytecode output, a "
                       "caller's module, the pass, downstream, the CLI");
  if (rocm) test_legacy_and_bytecode();
  test_errors();
  if (rocm) test_untouched();
  test_launch_only();
  if (rocm) test_pass();
  test_downstream("nvptx", EM_CUDA);
  if (rocm) test_downstream("amdgcn", EM_AMDGPU);
  test_compat();
  test_isa_compat();
  test_offload_compat();
  test_spirv_env();
  if (rocm) test_cli();
#else
  gpublob_blob b = {0};
  check(gpublob_mlir_enabled() == 0, "mlir: a build without MLIR says so (gpublob_mlir_enabled)", NULL);
  int rc = gpublob_mlir_compile(g, NULL, "module {}", 9, "m.mlir", &b);
  check(rc == GPUBLOB_NOMLIR, "mlir: a build without MLIR says NOMLIR", "rc %d", rc);
  check(contains(gpublob_error_message(g), "built with MLIR"), "mlir: a build without MLIR says NOMLIR: the message",
        "%s", gpublob_error_message(g));
  skip("mlir: everything else", "gpublob was configured without MLIR");
#endif
  gpublob_close(g);
  return report();
}
