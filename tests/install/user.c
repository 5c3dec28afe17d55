/* tests/install/user.c: a program of a project that uses an installed gpublob,
** as tests/test_install.c builds it: with pkg-config, and with CMake
** (CMakeLists.txt here), and as the README's vendoring lines build it.  It
** compiles a small kernel to PTX (format asm: no CUDA toolkit needed) and prints
** the version, whether MLIR is built in, and the PTX's .entry line; with MLIR,
** also a gpu.module to a gpu.binary, and prints that line.  Exit 0 when all
** of that worked. */
#define _GNU_SOURCE /* memmem */
#include <stdio.h>
#include <string.h>

/* These checks call the 1.0 calls too (gpublob_module_compile and the like), which
** stay supported: without their deprecation warnings. */
#define GPUBLOB_DISABLE_DEPRECATE_WARNINGS
#include "gpublob.h"

static const char kernel[] =
    "target triple = \"nvptx64-nvidia-cuda\"\n"
    "define ptx_kernel void @scale(ptr addrspace(1) %p, float %a) {\n"
    "  %v = load float, ptr addrspace(1) %p, align 4\n"
    "  %r = fmul float %v, %a\n"
    "  store float %r, ptr addrspace(1) %p, align 4\n"
    "  ret void\n"
    "}\n";

static const char gpu_module[] =
    "module attributes {gpu.container_module} {\n"
    "  gpu.module @k {\n"
    "    gpu.func @scale(%x: memref<?xf32>, %s: f32) kernel {\n"
    "      %i = gpu.thread_id x\n"
    "      %v = memref.load %x[%i] : memref<?xf32>\n"
    "      %m = arith.mulf %v, %s : f32\n"
    "      memref.store %m, %x[%i] : memref<?xf32>\n"
    "      gpu.return\n"
    "    }\n"
    "  }\n"
    "}\n";

/* The line of text[0..size) that starts with what; NULL when none. */
static const char *line_of(const void *text, size_t size, const char *what, int *len) {
  const char *p = memmem(text, size, what, strlen(what)), *end = (const char *)text + size;
  if (!p) return NULL;
  const char *eol = memchr(p, '\n', (size_t)(end - p));
  *len = (int)((eol ? eol : end) - p);
  return p;
}

int main(void) {
  gpublob *g;
  if (gpublob_open(&g) != GPUBLOB_OK) {
    fprintf(stderr, "user: gpublob_open failed\n");
    return 1;
  }
  printf("gpublob %s (header %s), mlir %d\n", gpublob_version(), GPUBLOB_VERSION_STRING,
         gpublob_mlir_enabled());
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = "nvptx:sm_80",
                       .format = GPUBLOB_FORMAT_ASM};
  const gpublob_input in = {GPUBLOB_INPUT_AUTO, kernel, sizeof kernel - 1, NULL, "scale.ll"};
  gpublob_result result;
  if (gpublob_compile(g, &o, &in, &result) != GPUBLOB_OK) {
    fprintf(stderr, "user: %s\n", gpublob_error_message(g));
    gpublob_close(g);
    return 1;
  }
  gpublob_blob blob = result.outputs[0].blob;
  /* The blob is PTX text, not NUL-terminated. */
  int len, ok = 1;
  const char *entry = line_of(blob.data, blob.size, ".entry", &len);
  if (entry) printf("%.*s\n", len, entry);
  else {
    printf("no .entry in %zu bytes of %s\n", blob.size, blob.suffix);
    ok = 0;
  }
  gpublob_result_free(&result);
  if (gpublob_mlir_enabled()) {
    gpublob_target_choice t[] = {{.target = "nvptx:sm_80"}};
    gpublob_options m = {.version = GPUBLOB_OPTIONS_VERSION, .targets = t, .ntargets = 1,
                         .format = GPUBLOB_FORMAT_ASM};
    if (gpublob_mlir_compile(g, &m, gpu_module, sizeof gpu_module - 1, "k.mlir", &blob) != GPUBLOB_OK) {
      printf("mlir: %s\n", gpublob_error_message(g));
      ok = 0;
    } else {
      const char *bin = line_of(blob.data, blob.size, "gpu.binary", &len);
      int n = 11; /* "gpu.binary @k": up to the next space */
      while (bin && n < len && bin[n] != ' ') n++;
      if (bin) printf("%.*s\n", n, bin);
      else {
        printf("no gpu.binary in %zu bytes\n", blob.size);
        ok = 0;
      }
      gpublob_blob_free(&blob);
    }
  }
  gpublob_close(g);
  return ok ? 0 : 1;
}
