/* launch_cuda.c: the proof that what gpublob makes runs.  Loads a cubin, a fatbin
** (or PTX), or the blob inside MLIR that gpublob wrote, into the CUDA driver with
** cuModuleLoadData, launches one of the kernels under examples/gpu/ and compares
** its result with the same computation on the CPU.
**
**   launch_cuda --kernel saxpy|reduce|printf --blob FILE [--abi plain|memref]
**               [--function NAME] [--n N] [--time N] [--expect-refusal]
**   launch_cuda --device-sm | --device-info
**   launch_cuda --blob FILE --extract OUT
**
** The driver, libcuda.so.1, is opened with dlopen: nothing is linked and no CUDA
** header is needed to build it (cc -std=c11 launch_cuda.c -ldl).
**
** Exit status: 0 the launch matched the CPU (or, with --expect-refusal, the
** driver refused the blob with CUDA_ERROR_NO_BINARY_FOR_GPU); 1 a mismatch or a
** driver error (the failing call and the driver's error name on stderr); 2 a
** usage or file error; 77 nothing to launch on, with one line on stdout:
** "skip: no libcuda.so.1", "skip: stub driver" (the toolkit's stub, whose cuInit
** says CUDA_ERROR_STUB_LIBRARY) or "skip: no CUDA device".
*/
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { EXIT_MATCH = 0, EXIT_FAILED = 1, EXIT_USAGE = 2, EXIT_SKIP = 77 };

static const char usage[] =
    "usage: launch_cuda --kernel saxpy|reduce|printf --blob FILE [options]\n"
    "       launch_cuda --device-sm | --device-info\n"
    "       launch_cuda --blob FILE --extract OUT\n"
    "  --blob FILE          a cubin, a fatbin, PTX, or MLIR gpublob wrote (the first\n"
    "                       #gpu.object's bin = \"...\", or nvvm.cubin = \"...\")\n"
    "  --kernel KIND        saxpy: y = a*expf(x) + y; reduce: the sum of x (shared\n"
    "                       memory, atomics); printf: each thread prints a line\n"
    "  --function NAME      the kernel's symbol (default saxpy, reduce, hello)\n"
    "  --abi plain|memref   arguments as LLVM IR declares them (default), or as MLIR\n"
    "                       lowers memrefs: (allocated, aligned, offset, size, stride)\n"
    "  --n N                elements (default 1000003)\n"
    "  --time N             then time N launches with CUDA events (ms per launch)\n"
    "  --expect-refusal     success is cuModuleLoadData refusing the blob\n"
    "                       (CUDA_ERROR_NO_BINARY_FOR_GPU: a cubin for another SM)\n"
    "  --device-sm          print device 0's SM (sm_90) and exit\n"
    "  --device-info        print device 0's name, SM and the driver's version\n"
    "  --extract OUT        write the bytes cuModuleLoadData would get to OUT; no driver\n"
    "exit: 0 matched (or refused as expected), 1 mismatch or driver error, 2 usage,\n"
    "      77 skipped: no libcuda.so.1, the toolkit's stub driver, or no CUDA device\n";

/* ---- the driver's types and entry points, declared here (no cuda.h) ---- */
typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUevent_st *CUevent;
typedef struct CUstream_st *CUstream;

enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_STUB_LIBRARY = 34,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
};

typedef struct {
  CUresult (*Init)(unsigned);
  CUresult (*DriverGetVersion)(int *);
  CUresult (*DeviceGetCount)(int *);
  CUresult (*DeviceGet)(CUdevice *, int);
  CUresult (*DeviceGetName)(char *, int, CUdevice);
  CUresult (*DeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*CtxCreate)(CUcontext *, unsigned, CUdevice);
  CUresult (*CtxDestroy)(CUcontext);
  CUresult (*CtxSynchronize)(void);
  CUresult (*MemAlloc)(CUdeviceptr *, size_t);
  CUresult (*MemFree)(CUdeviceptr);
  CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*ModuleLoadData)(CUmodule *, const void *);
  CUresult (*ModuleUnload)(CUmodule);
  CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                           CUstream, void **, void **);
  CUresult (*EventCreate)(CUevent *, unsigned);
  CUresult (*EventDestroy)(CUevent);
  CUresult (*EventRecord)(CUevent, CUstream);
  CUresult (*EventSynchronize)(CUevent);
  CUresult (*EventElapsedTime)(float *, CUevent, CUevent);
  CUresult (*GetErrorName)(CUresult, const char **);
  CUresult (*GetErrorString)(CUresult, const char **);
} driver;
static driver cu;

/* The versioned names the driver exports (cuda.h maps the plain names to them). */
static const struct {
  const char *symbol;
  size_t offset;
} entry_points[] = {
    {"cuInit", offsetof(driver, Init)},
    {"cuDriverGetVersion", offsetof(driver, DriverGetVersion)},
    {"cuDeviceGetCount", offsetof(driver, DeviceGetCount)},
    {"cuDeviceGet", offsetof(driver, DeviceGet)},
    {"cuDeviceGetName", offsetof(driver, DeviceGetName)},
    {"cuDeviceGetAttribute", offsetof(driver, DeviceGetAttribute)},
    {"cuCtxCreate_v2", offsetof(driver, CtxCreate)},
    {"cuCtxDestroy_v2", offsetof(driver, CtxDestroy)},
    {"cuCtxSynchronize", offsetof(driver, CtxSynchronize)},
    {"cuMemAlloc_v2", offsetof(driver, MemAlloc)},
    {"cuMemFree_v2", offsetof(driver, MemFree)},
    {"cuMemcpyHtoD_v2", offsetof(driver, MemcpyHtoD)},
    {"cuMemcpyDtoH_v2", offsetof(driver, MemcpyDtoH)},
    {"cuModuleLoadData", offsetof(driver, ModuleLoadData)},
    {"cuModuleUnload", offsetof(driver, ModuleUnload)},
    {"cuModuleGetFunction", offsetof(driver, ModuleGetFunction)},
    {"cuLaunchKernel", offsetof(driver, LaunchKernel)},
    {"cuEventCreate", offsetof(driver, EventCreate)},
    {"cuEventDestroy_v2", offsetof(driver, EventDestroy)},
    {"cuEventRecord", offsetof(driver, EventRecord)},
    {"cuEventSynchronize", offsetof(driver, EventSynchronize)},
    {"cuEventElapsedTime", offsetof(driver, EventElapsedTime)},
    {"cuGetErrorName", offsetof(driver, GetErrorName)},
    {"cuGetErrorString", offsetof(driver, GetErrorString)},
};

/* "CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)", or the number. */
static const char *error_text(CUresult r) {
  static char text[512];
  const char *name = NULL, *what = NULL;
  if (cu.GetErrorName && cu.GetErrorName(r, &name) != CUDA_SUCCESS) name = NULL;
  if (cu.GetErrorString && cu.GetErrorString(r, &what) != CUDA_SUCCESS) what = NULL;
  if (!name && r == CUDA_ERROR_STUB_LIBRARY) name = "CUDA_ERROR_STUB_LIBRARY";
  if (name) snprintf(text, sizeof text, "%s (%s)", name, what ? what : "no description");
  else snprintf(text, sizeof text, "CUresult %d", r);
  return text;
}

/* The error's name alone, for the lines a script reads. */
static const char *error_name(CUresult r) {
  const char *name = NULL;
  if (cu.GetErrorName && cu.GetErrorName(r, &name) == CUDA_SUCCESS && name) return name;
  return r == CUDA_ERROR_STUB_LIBRARY ? "CUDA_ERROR_STUB_LIBRARY" : "CUDA_ERROR_UNKNOWN_CODE";
}

/* Every driver call goes through this: 1 on success, else the call named on stderr. */
static int ok(CUresult r, const char *call) {
  if (r == CUDA_SUCCESS) return 1;
  fprintf(stderr, "launch_cuda: %s: %s\n", call, error_text(r));
  return 0;
}

/* ---- opening the driver: 0, or EXIT_SKIP / EXIT_FAILED with the reason printed ---- */
static int load_entry_points(void *lib) {
  for (size_t i = 0; i < sizeof entry_points / sizeof entry_points[0]; i++) {
    void *p = dlsym(lib, entry_points[i].symbol);
    if (!p) {
      fprintf(stderr, "launch_cuda: libcuda.so.1 lacks %s\n", entry_points[i].symbol);
      return EXIT_FAILED;
    }
    memcpy((char *)&cu + entry_points[i].offset, &p, sizeof p);
  }
  return 0;
}

static int open_driver(void) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    printf("skip: no libcuda.so.1 (%s)\n", dlerror());
    return EXIT_SKIP;
  }
  int rc = load_entry_points(lib);
  if (rc) return rc;
  CUresult r = cu.Init(0);
  if (r == CUDA_ERROR_STUB_LIBRARY) {
    printf("skip: stub driver (libcuda.so.1 is the CUDA toolkit's stub: cuInit says %s)\n", error_name(r));
    return EXIT_SKIP;
  }
  if (r == CUDA_ERROR_NO_DEVICE) {
    printf("skip: no CUDA device (cuInit says %s)\n", error_name(r));
    return EXIT_SKIP;
  }
  if (!ok(r, "cuInit")) return EXIT_FAILED;
  int count = 0;
  if (!ok(cu.DeviceGetCount(&count), "cuDeviceGetCount")) return EXIT_FAILED;
  if (count < 1) {
    printf("skip: no CUDA device (cuDeviceGetCount says 0)\n");
    return EXIT_SKIP;
  }
  return 0;
}

typedef struct {
  CUdevice device;
  char name[256];
  int major, minor, driver_version;
} device_info;

static int query_device(device_info *d) {
  return ok(cu.DeviceGet(&d->device, 0), "cuDeviceGet") &&
         ok(cu.DeviceGetName(d->name, (int)sizeof d->name, d->device), "cuDeviceGetName") &&
         ok(cu.DeviceGetAttribute(&d->major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d->device),
            "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MAJOR)") &&
         ok(cu.DeviceGetAttribute(&d->minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d->device),
            "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MINOR)") &&
         ok(cu.DriverGetVersion(&d->driver_version), "cuDriverGetVersion");
}

static void print_device(const device_info *d) {
  printf("device: %s, sm_%d%d, driver %d.%d\n", d->name, d->major, d->minor, d->driver_version / 1000,
         d->driver_version % 1000 / 10);
}

/* ---- the blob: read whole, and taken out of MLIR when it is MLIR ---- */
typedef struct {
  unsigned char *data;
  size_t size;
  const char *kind; /* cubin, fatbin, ptx, or where in MLIR it came from */
} blob;

static unsigned char *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t len = 0, cap = 1 << 16;
  unsigned char *buf = malloc(cap + 1);
  for (size_t got; buf && (got = fread(buf + len, 1, cap - len, f)) > 0;) {
    len += got;
    if (len == cap) {
      unsigned char *bigger = realloc(buf, (cap *= 2) + 1);
      if (!bigger) free(buf);
      buf = bigger;
    }
  }
  int bad = ferror(f);
  fclose(f);
  if (!buf || bad) {
    free(buf);
    return NULL;
  }
  buf[len] = 0; /* PTX is text: the driver reads it up to a NUL */
  *size = len;
  return buf;
}

static int hex_digit(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* One escape of an MLIR string at s (just past the backslash): the byte, and how
** many characters it took; -1 for a malformed one. */
static int unescape_one(const char *s, unsigned char *byte) {
  int hi = hex_digit((unsigned char)s[0]), lo = hi < 0 ? -1 : hex_digit((unsigned char)s[1]);
  if (hi >= 0 && lo >= 0) return *byte = (unsigned char)(hi << 4 | lo), 2;
  switch (s[0]) {
  case '\\': return *byte = '\\', 1;
  case '"': return *byte = '"', 1;
  case 'n': return *byte = '\n', 1;
  case 't': return *byte = '\t', 1;
  default: return -1;
  }
}

/* The bytes of the MLIR string literal whose opening quote is at s. */
static int unescape_string(const char *s, blob *out) {
  size_t cap = strlen(s), n = 0;
  unsigned char *p = malloc(cap + 1);
  if (!p) return -1;
  for (s++; *s && *s != '"'; s++) {
    if (*s != '\\') {
      p[n++] = (unsigned char)*s;
      continue;
    }
    int used = unescape_one(s + 1, &p[n++]);
    if (used < 0) break;
    s += used;
  }
  if (*s != '"') {
    free(p);
    return -1;
  }
  p[n] = 0;
  out->data = p;
  out->size = n;
  return 0;
}

/* The first `KEY = "` in text that is a whole key (not the end of a longer name). */
static const char *find_key(const char *text, const char *key) {
  size_t len = strlen(key);
  for (const char *at = strstr(text, key); at; at = strstr(at + 1, key)) {
    char before = at == text ? ' ' : at[-1];
    if ((before == ' ' || before == ',' || before == '{') && !strncmp(at + len, " = \"", 4)) return at + len + 3;
  }
  return NULL;
}

/* Past the string literal whose opening quote is at s. */
static const char *skip_string(const char *s) {
  for (s++; *s && *s != '"'; s++)
    if (*s == '\\' && s[1]) s++;
  return *s ? s + 1 : s;
}

/* How the blob string at quote is keyed in its #gpu.object: "bin", "assembly",
** "offload", or "" for a fatbin (upstream MLIR prints its default format bare). */
static const char *object_key(const char *object, const char *quote, size_t *len) {
  const char *end = quote;
  while (end > object && (end[-1] == ' ' || end[-1] == '=')) end--;
  const char *start = end;
  while (start > object && (start[-1] == '_' || (start[-1] >= 'a' && start[-1] <= 'z'))) start--;
  *len = (size_t)(end - start);
  return start;
}

/* -f llvm's objects: --extract writes the bitcode, but no driver loads it. */
#define OFFLOAD_KIND "MLIR #gpu.object offload (LLVM bitcode)"

static const char *object_kind(const char *key, size_t len) {
  static const struct {
    const char *key, *kind;
  } kinds[] = {{"", "MLIR #gpu.object fatbin"}, {"bin", "MLIR #gpu.object bin"},
               {"assembly", "MLIR #gpu.object assembly (PTX)"}, {"offload", OFFLOAD_KIND}};
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if (strlen(kinds[i].key) == len && !strncmp(kinds[i].key, key, len)) return kinds[i].kind;
  return NULL;
}

/* The blob string of the first #gpu.object<TARGET, [KEY = ]"..."> in text: the first
** string outside the target's and any properties' brackets. */
static const char *first_object(const char *text, const char **kind) {
  const char *object = strstr(text, "#gpu.object<");
  if (!object) return NULL;
  int depth = 0;
  for (const char *p = object + strlen("#gpu.object<"); *p; p++) {
    if (*p == '"' && depth == 0) {
      size_t len;
      const char *key = object_key(object, p, &len);
      *kind = object_kind(key, len);
      return *kind ? p : NULL;
    }
    if (*p == '"') p = skip_string(p) - 1;
    else if (*p == '<' || *p == '{' || *p == '[') depth++;
    else if ((*p == '>' || *p == '}' || *p == ']') && --depth < 0) return NULL;
  }
  return NULL;
}

static int blob_from_mlir(const char *text, blob *b) {
  const char *kind = NULL, *quote = first_object(text, &kind);
  if (!quote && (quote = find_key(text, "nvvm.cubin"))) kind = "MLIR nvvm.cubin";
  if (!quote) return -1;
  b->kind = kind;
  return unescape_string(quote, b);
}

static int looks_like_mlir(const unsigned char *p, size_t n) {
  return n > 0 && memchr(p, 0, n) == NULL && (strstr((const char *)p, "gpu.binary") || strstr((const char *)p, "gpu.module"));
}

static int is_ptx(const char *text) { return strstr(text, ".version") && strstr(text, ".target"); }

static int read_blob(const char *path, blob *b) {
  static const unsigned char fatbin_magic[4] = {0x50, 0xED, 0x55, 0xBA}; /* 0xBA55ED50, little-endian */
  size_t n = 0;
  unsigned char *p = read_file(path, &n);
  if (!p) return fprintf(stderr, "launch_cuda: cannot read %s\n", path), -1;
  *b = (blob){p, n, NULL};
  if (n >= 4 && !memcmp(p, "\177ELF", 4)) b->kind = "cubin";
  else if (n >= 4 && !memcmp(p, fatbin_magic, 4)) b->kind = "fatbin";
  else if (looks_like_mlir(p, n)) {
    b->data = NULL;
    if (blob_from_mlir((const char *)p, b))
      fprintf(stderr, "launch_cuda: %s: MLIR without a #gpu.object bin, fatbin or assembly, or nvvm.cubin\n", path);
    free(p);
    return b->data ? 0 : -1;
  } else if (!memchr(p, 0, n) && is_ptx((const char *)p)) b->kind = "ptx";
  else {
    fprintf(stderr, "launch_cuda: %s: not a cubin, a fatbin, PTX, or MLIR that gpublob wrote\n", path);
    free(p);
    b->data = NULL;
    return -1;
  }
  return 0;
}

static int write_blob(const blob *b, const char *path) {
  FILE *f = fopen(path, "wb");
  size_t w = f ? fwrite(b->data, 1, b->size, f) : 0;
  if (!f || fclose(f) || w != b->size) {
    fprintf(stderr, "launch_cuda: cannot write %s\n", path);
    return EXIT_USAGE;
  }
  printf("extracted: %s, %zu bytes to %s\n", b->kind, b->size, path);
  return EXIT_MATCH;
}

/* ---- kernel arguments: a slot per parameter, as cuLaunchKernel takes them ---- */
enum abi { ABI_PLAIN, ABI_MEMREF };
#define MAX_ARGS 16

typedef struct {
  void *slot[MAX_ARGS];
  uint64_t value[MAX_ARGS];
  int count;
} kernel_args;

static void add_arg(kernel_args *a, const void *v, size_t size) {
  if (a->count == MAX_ARGS) abort(); /* the kernels here take at most 11 */
  memcpy(&a->value[a->count], v, size);
  a->slot[a->count] = &a->value[a->count];
  a->count++;
}

static void add_i64(kernel_args *a, int64_t v) { add_arg(a, &v, sizeof v); }

/* A buffer: one pointer (plain), or MLIR's 1-D memref descriptor (memref). */
static void add_buffer(kernel_args *a, enum abi abi, CUdeviceptr p, size_t count) {
  add_arg(a, &p, sizeof p);
  if (abi == ABI_PLAIN) return;
  add_arg(a, &p, sizeof p);
  add_i64(a, 0);
  add_i64(a, (int64_t)count);
  add_i64(a, 1);
}

/* ---- one run: options, device state, what to free ---- */
typedef struct {
  const char *kernel, *blob_path, *function, *extract;
  enum abi abi;
  size_t n;
  long time_launches;
  int expect_refusal, device_sm, device_info;
} options;

typedef struct {
  CUfunction function;
  CUdeviceptr buffers[2];
  unsigned grid, block;
  kernel_args args;
} launch;

static int alloc_copy(CUdeviceptr *d, const void *host, size_t bytes) {
  return ok(cu.MemAlloc(d, bytes), "cuMemAlloc_v2") && ok(cu.MemcpyHtoD(*d, host, bytes), "cuMemcpyHtoD_v2");
}

static int start(const launch *l) {
  return ok(cu.LaunchKernel(l->function, l->grid, 1, 1, l->block, 1, 1, 0, NULL, (void **)l->args.slot, NULL),
            "cuLaunchKernel");
}

static int launch_and_wait(const launch *l) { return start(l) && ok(cu.CtxSynchronize(), "cuCtxSynchronize"); }

static void free_buffers(launch *l) {
  for (int i = 0; i < 2; i++)
    if (l->buffers[i]) ok(cu.MemFree(l->buffers[i]), "cuMemFree_v2");
}

/* ---- saxpy: y = a * expf(x) + y ---- */
static void saxpy_inputs(float *x, float *y, size_t n) {
  for (size_t i = 0; i < n; i++) {
    x[i] = (float)((int)(i % 1000) - 500) / 125.0f; /* [-4, 4) */
    y[i] = (float)(i % 7) * 0.5f;
  }
}

static int saxpy_compare(const float *x, const float *y0, const float *got, float a, size_t n) {
  double worst = 0;
  size_t bad = 0, first_bad = 0;
  for (size_t i = 0; i < n; i++) {
    double want = (double)a * exp((double)x[i]) + y0[i];
    double err = fabs(got[i] - want) / fmax(fabs(want), 1e-30);
    if (err > worst) worst = err;
    if (!(err <= 1e-5) && !bad++) first_bad = i;
  }
  if (bad) {
    printf("result: MISMATCH: %zu of %zu elements; y[%zu] = %.9g, want %.9g\n", bad, n, first_bad,
           got[first_bad], (double)a * exp((double)x[first_bad]) + y0[first_bad]);
    return EXIT_FAILED;
  }
  printf("result: ok (%zu elements, max relative error %.2e against the CPU)\n", n, worst);
  return EXIT_MATCH;
}

static int saxpy_setup(launch *l, const options *o, float a, const float *x, const float *y) {
  size_t bytes = o->n * sizeof(float);
  if (!alloc_copy(&l->buffers[0], x, bytes) || !alloc_copy(&l->buffers[1], y, bytes)) return 0;
  add_arg(&l->args, &a, sizeof a);
  add_buffer(&l->args, o->abi, l->buffers[0], o->n);
  add_buffer(&l->args, o->abi, l->buffers[1], o->n);
  int32_t n32 = (int32_t)o->n;
  if (o->abi == ABI_PLAIN) add_arg(&l->args, &n32, sizeof n32);
  l->block = 256;
  l->grid = (unsigned)((o->n + 255) / 256);
  return 1;
}

static int run_saxpy(launch *l, const options *o) {
  const float a = 1.5f;
  float *x = malloc(o->n * sizeof *x), *y = malloc(o->n * sizeof *y), *got = malloc(o->n * sizeof *got);
  int rc = EXIT_FAILED;
  if (x && y && got) {
    saxpy_inputs(x, y, o->n);
    if (saxpy_setup(l, o, a, x, y) && launch_and_wait(l) &&
        ok(cu.MemcpyDtoH(got, l->buffers[1], o->n * sizeof *got), "cuMemcpyDtoH_v2"))
      rc = saxpy_compare(x, y, got, a, o->n);
  } else fprintf(stderr, "launch_cuda: out of memory for %zu elements\n", o->n);
  free(x);
  free(y);
  free(got);
  return rc;
}

/* ---- reduce: out = the sum of x; small integers, so every order sums exactly ---- */
static int run_reduce(launch *l, const options *o) {
  float *x = malloc(o->n * sizeof *x), zero = 0, got = 0;
  if (!x) return fprintf(stderr, "launch_cuda: out of memory for %zu elements\n", o->n), EXIT_FAILED;
  double want = 0;
  for (size_t i = 0; i < o->n; i++) want += x[i] = (float)((int)(i % 17) - 8);
  int done = alloc_copy(&l->buffers[0], x, o->n * sizeof *x) && alloc_copy(&l->buffers[1], &zero, sizeof zero);
  free(x);
  if (!done) return EXIT_FAILED;
  add_buffer(&l->args, o->abi, l->buffers[0], o->n);
  add_buffer(&l->args, o->abi, l->buffers[1], 1);
  int32_t n32 = (int32_t)o->n;
  if (o->abi == ABI_PLAIN) add_arg(&l->args, &n32, sizeof n32);
  l->block = 256;
  l->grid = (unsigned)((o->n + 255) / 256);
  if (!launch_and_wait(l) || !ok(cu.MemcpyDtoH(&got, l->buffers[1], sizeof got), "cuMemcpyDtoH_v2"))
    return EXIT_FAILED;
  if (got != want) {
    printf("result: MISMATCH: sum %.9g, want %.9g (%zu elements, %u blocks)\n", got, want, o->n, l->grid);
    return EXIT_FAILED;
  }
  printf("result: ok (sum %.0f of %zu elements over %u blocks, exact)\n", want, o->n, l->grid);
  return EXIT_MATCH;
}

/* ---- printf: the lines the kernel printed, taken from our own stdout ---- */
enum { PRINTF_BLOCKS = 2, PRINTF_THREADS = 4 };

/* Runs l with stdout (fd 1) sent to a temporary file; returns the file, rewound. */
static FILE *launch_capturing(const launch *l) {
  FILE *capture = tmpfile();
  int saved = dup(1);
  if (!capture || saved < 0) {
    fprintf(stderr, "launch_cuda: cannot capture stdout\n");
    if (capture) fclose(capture);
    if (saved >= 0) close(saved);
    return NULL;
  }
  fflush(stdout);
  int done = dup2(fileno(capture), 1) >= 0 && launch_and_wait(l);
  fflush(stdout);
  dup2(saved, 1);
  close(saved);
  if (!done) {
    fclose(capture);
    return NULL;
  }
  rewind(capture);
  return capture;
}

/* Echoes the captured lines; counts each (block, thread) greeting; 1 when each came once. */
static int check_greetings(FILE *capture) {
  int seen[PRINTF_BLOCKS][PRINTF_THREADS] = {{0}}, lines = 0, other = 0;
  char *line = NULL;
  size_t cap = 0;
  while (getline(&line, &cap, capture) > 0) {
    int b, t;
    printf("  kernel: %s", line);
    lines++;
    if (sscanf(line, "hello from block %d thread %d", &b, &t) == 2 && b >= 0 && b < PRINTF_BLOCKS && t >= 0 &&
        t < PRINTF_THREADS)
      seen[b][t]++;
    else other++;
  }
  free(line);
  int each_once = !other && lines == PRINTF_BLOCKS * PRINTF_THREADS;
  for (int b = 0; b < PRINTF_BLOCKS; b++)
    for (int t = 0; t < PRINTF_THREADS; t++) each_once &= seen[b][t] == 1;
  if (!each_once) printf("result: MISMATCH: %d lines printed, %d not a greeting; want each of %d (block, thread) once\n", lines, other, PRINTF_BLOCKS * PRINTF_THREADS);
  else printf("result: ok (%d lines, one from each of %d blocks x %d threads)\n", lines, PRINTF_BLOCKS, PRINTF_THREADS);
  return each_once;
}

static int run_printf(launch *l) {
  l->grid = PRINTF_BLOCKS;
  l->block = PRINTF_THREADS;
  FILE *capture = launch_capturing(l);
  if (!capture) return EXIT_FAILED;
  int each_once = check_greetings(capture);
  fclose(capture);
  return each_once ? EXIT_MATCH : EXIT_FAILED;
}

/* ---- timing: N launches between two events ---- */
static int time_launches(const launch *l, long count) {
  CUevent begin = NULL, end = NULL;
  float ms = 0;
  int done = ok(cu.EventCreate(&begin, 0), "cuEventCreate") && ok(cu.EventCreate(&end, 0), "cuEventCreate") &&
             start(l) && ok(cu.CtxSynchronize(), "cuCtxSynchronize") /* warm */ &&
             ok(cu.EventRecord(begin, NULL), "cuEventRecord");
  for (long i = 0; done && i < count; i++) done = start(l);
  done = done && ok(cu.EventRecord(end, NULL), "cuEventRecord") && ok(cu.EventSynchronize(end), "cuEventSynchronize") &&
         ok(cu.EventElapsedTime(&ms, begin, end), "cuEventElapsedTime");
  if (begin) ok(cu.EventDestroy(begin), "cuEventDestroy_v2");
  if (end) ok(cu.EventDestroy(end), "cuEventDestroy_v2");
  if (done) printf("time: %.4f ms per launch (%ld launches, %u blocks x %u threads, CUDA events)\n", ms / count, count, l->grid, l->block);
  return done;
}

/* ---- the whole run, once the driver is open ---- */
static const char *default_function(const char *kernel) {
  return !strcmp(kernel, "saxpy") ? "saxpy" : !strcmp(kernel, "reduce") ? "reduce" : "hello";
}

static int run_kernel(CUmodule module, const options *o) {
  launch l = {0};
  const char *name = o->function ? o->function : default_function(o->kernel);
  if (!ok(cu.ModuleGetFunction(&l.function, module, name), "cuModuleGetFunction")) {
    fprintf(stderr, "launch_cuda: (no kernel named %s in the blob)\n", name);
    return EXIT_FAILED;
  }
  int rc = !strcmp(o->kernel, "saxpy") ? run_saxpy(&l, o) : !strcmp(o->kernel, "reduce") ? run_reduce(&l, o) : run_printf(&l);
  if (rc == EXIT_MATCH && o->time_launches > 0) {
    if (!strcmp(o->kernel, "printf")) printf("time: not timed (printf)\n");
    else if (!time_launches(&l, o->time_launches)) rc = EXIT_FAILED;
  }
  free_buffers(&l);
  return rc;
}

/* Loads b; with --expect-refusal success is the driver refusing it as for another GPU. */
static int load_and_run(const blob *b, const options *o) {
  CUmodule module = NULL;
  CUresult r = cu.ModuleLoadData(&module, b->data);
  if (o->expect_refusal) {
    if (r == CUDA_ERROR_NO_BINARY_FOR_GPU) return printf("load: refused %s, as expected\n", error_name(r)), EXIT_MATCH;
    if (r == CUDA_SUCCESS) {
      printf("load: ok, but a refusal (CUDA_ERROR_NO_BINARY_FOR_GPU) was expected\n");
      ok(cu.ModuleUnload(module), "cuModuleUnload");
    } else printf("load: refused %s, not CUDA_ERROR_NO_BINARY_FOR_GPU\n", error_text(r));
    return EXIT_FAILED;
  }
  if (!ok(r, "cuModuleLoadData")) return printf("load: refused %s\n", error_name(r)), EXIT_FAILED;
  printf("load: ok\n");
  int rc = run_kernel(module, o);
  if (!ok(cu.ModuleUnload(module), "cuModuleUnload")) rc = EXIT_FAILED;
  return rc;
}

static int with_device(const blob *b, const options *o) {
  if (b->kind && !strcmp(b->kind, OFFLOAD_KIND)) {
    fprintf(stderr, "launch_cuda: %s holds LLVM bitcode (-f llvm), which no driver loads\n", o->blob_path);
    return EXIT_USAGE;
  }
  int rc = open_driver();
  device_info d;
  if (rc) return rc;
  if (!query_device(&d)) return EXIT_FAILED;
  if (o->device_sm) return printf("sm_%d%d\n", d.major, d.minor), EXIT_MATCH;
  print_device(&d);
  if (o->device_info) return EXIT_MATCH;
  CUcontext ctx = NULL;
  if (!ok(cu.CtxCreate(&ctx, 0, d.device), "cuCtxCreate_v2")) return EXIT_FAILED;
  printf("blob: %s, %zu bytes\n", b->kind, b->size);
  rc = load_and_run(b, o);
  if (!ok(cu.CtxDestroy(ctx), "cuCtxDestroy_v2")) rc = EXIT_FAILED;
  return rc;
}

/* ---- options ---- */
static int bad_usage(const char *what, const char *arg) {
  fprintf(stderr, "launch_cuda: %s%s%s\n%s", what, arg ? ": " : "", arg ? arg : "", usage);
  return EXIT_USAGE;
}

static int parse_count(const char *s, long min, long max, long *out) {
  char *end;
  long v = strtol(s, &end, 10);
  if (!*s || *end || v < min || v > max) return -1;
  *out = v;
  return 0;
}

static int parse_value(options *o, const char *opt, const char *v) {
  long n;
  if (!strcmp(opt, "--kernel")) o->kernel = v;
  else if (!strcmp(opt, "--blob")) o->blob_path = v;
  else if (!strcmp(opt, "--function")) o->function = v;
  else if (!strcmp(opt, "--extract")) o->extract = v;
  else if (!strcmp(opt, "--abi") && (!strcmp(v, "plain") || !strcmp(v, "memref")))
    o->abi = !strcmp(v, "memref") ? ABI_MEMREF : ABI_PLAIN;
  else if (!strcmp(opt, "--n") && !parse_count(v, 1, INT32_MAX, &n)) o->n = (size_t)n;
  else if (!strcmp(opt, "--time") && !parse_count(v, 1, 1000000, &n)) o->time_launches = n;
  else return bad_usage("bad value for option", opt);
  return 0;
}

static int is_valued(const char *a) {
  static const char *const valued[] = {"--kernel", "--blob", "--function", "--extract", "--abi", "--n", "--time"};
  for (size_t i = 0; i < sizeof valued / sizeof valued[0]; i++)
    if (!strcmp(a, valued[i])) return 1;
  return 0;
}

static int check_options(const options *o) {
  if (o->device_sm || o->device_info) return 0;
  if (!o->blob_path) return bad_usage("--blob FILE is needed", NULL);
  if (o->extract) return 0;
  if (!o->kernel) return bad_usage("--kernel saxpy|reduce|printf is needed", NULL);
  if (strcmp(o->kernel, "saxpy") && strcmp(o->kernel, "reduce") && strcmp(o->kernel, "printf"))
    return bad_usage("unknown kernel", o->kernel);
  return 0;
}

static int parse_args(options *o, int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (is_valued(a)) {
      if (i + 1 == argc) return bad_usage("option needs a value", a);
      if (parse_value(o, a, argv[++i])) return EXIT_USAGE;
    } else if (!strcmp(a, "--expect-refusal")) o->expect_refusal = 1;
    else if (!strcmp(a, "--device-sm")) o->device_sm = 1;
    else if (!strcmp(a, "--device-info")) o->device_info = 1;
    else if (!strcmp(a, "-h") || !strcmp(a, "--help")) return fputs(usage, stdout), -1;
    else return bad_usage("unknown option", a);
  }
  return check_options(o);
}

int main(int argc, char **argv) {
  options o = {.abi = ABI_PLAIN, .n = 1000003};
  int rc = parse_args(&o, argc, argv);
  if (rc) return rc < 0 ? EXIT_MATCH : rc;
  blob b = {0};
  if (o.blob_path && !o.device_sm && !o.device_info && read_blob(o.blob_path, &b)) return EXIT_USAGE;
  if (o.extract) rc = write_blob(&b, o.extract);
  else rc = with_device(&b, &o);
  free(b.data);
  fflush(stdout);
  return rc;
}
