/* tests/shared/host.c: a host program with an LLVM of its own (Debian's LLVM 14)
** that uses libgpublob.so, which holds LLVM 22 inside: it starts, compiles saxpy
** for gfx90a (LLVM IR) and examples/saxpy.mlir with gpublob, makes an LLVM 14 context
** and module with its own LLVM, compiles again, and exits 0.  Built by test_shared
** twice: linked with -lLLVM-14, and (-DDLOPEN_LLVM14) loading libLLVM-14.so.1 with
** dlopen.  argv[1]: where to write the hsaco; argv[2]: examples/. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "gpublob.h"

typedef void *(*context_create_fn)(void);
typedef void *(*module_create_fn)(const char *, void *);
typedef char *(*module_print_fn)(void *);
typedef void (*dispose_fn)(void *);

#ifndef DLOPEN_LLVM14
void *LLVMContextCreate(void);
void *LLVMModuleCreateWithNameInContext(const char *, void *);
char *LLVMPrintModuleToString(void *);
void LLVMDisposeMessage(char *);
void LLVMDisposeModule(void *);
void LLVMContextDispose(void *);
#endif

/* An LLVM 14 module printed by LLVM 14: 0 when it names the module. */
static int use_llvm14(void) {
#ifdef DLOPEN_LLVM14
  void *h = dlopen("libLLVM-14.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (!h) h = dlopen("/usr/lib/llvm-14/lib/libLLVM-14.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (!h) {
    printf("host: dlopen libLLVM-14: %s\n", dlerror());
    return 1;
  }
  context_create_fn context_create = (context_create_fn)dlsym(h, "LLVMContextCreate");
  module_create_fn module_create = (module_create_fn)dlsym(h, "LLVMModuleCreateWithNameInContext");
  module_print_fn module_print = (module_print_fn)dlsym(h, "LLVMPrintModuleToString");
  dispose_fn dispose_message = (dispose_fn)dlsym(h, "LLVMDisposeMessage");
  dispose_fn dispose_module = (dispose_fn)dlsym(h, "LLVMDisposeModule");
  dispose_fn context_dispose = (dispose_fn)dlsym(h, "LLVMContextDispose");
  if (!context_create || !module_create || !module_print || !dispose_message || !dispose_module ||
      !context_dispose) {
    printf("host: libLLVM-14 lacks its C API\n");
    return 1;
  }
#else
  context_create_fn context_create = LLVMContextCreate;
  module_create_fn module_create = LLVMModuleCreateWithNameInContext;
  module_print_fn module_print = LLVMPrintModuleToString;
  dispose_fn dispose_message = (dispose_fn)LLVMDisposeMessage;
  dispose_fn dispose_module = LLVMDisposeModule;
  dispose_fn context_dispose = LLVMContextDispose;
#endif
  void *ctx = context_create();
  void *mod = module_create("host14", ctx);
  char *text = module_print(mod);
  int ok = text && strstr(text, "host14") != NULL;
  printf("host: LLVM 14 module: %s\n", ok ? "printed" : "not printed");
  dispose_message(text);
  dispose_module(mod);
  context_dispose(ctx);
  return !ok;
}

/* gpublob compiles path for target; with out, writes the blob there. */
static int compile(gpublob *g, const char *target, const char *path, const char *out, const char *expect) {
  gpublob_options o = GPUBLOB_OPTIONS_INIT;
  o.target = target;
  gpublob_input in = {GPUBLOB_INPUT_AUTO, NULL, 0, path, NULL};
  gpublob_result r;
  int rc = gpublob_compile(g, &o, &in, &r);
  if (rc) {
    printf("host: gpublob_compile %s: %s\n", path, gpublob_error_message(g));
    return 1;
  }
  const gpublob_blob *b = &r.outputs[0].blob;
  int ok = b->size > 4 && memmem(b->data, b->size, expect, strlen(expect)) != NULL;
  printf("host: %s for %s: %zu bytes by %s%s\n", path, target, b->size, *r.outputs[0].tool ? r.outputs[0].tool : "gpublob",
         ok ? "" : ", not what was expected");
  FILE *f = out ? fopen(out, "wb") : NULL;
  if (f) {
    ok &= fwrite(b->data, 1, b->size, f) == b->size;
    ok &= fclose(f) == 0;
  }
  gpublob_result_free(&r);
  return !ok;
}

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  char ll[512], mlir[512];
  snprintf(ll, sizeof ll, "%s/saxpy_amdgcn.ll", argv[2]);
  snprintf(mlir, sizeof mlir, "%s/saxpy.mlir", argv[2]);
  gpublob *g;
  if (gpublob_open(&g)) return 1;
  int bad = compile(g, "amdgcn:gfx90a", ll, NULL, "\177ELF");
  bad |= use_llvm14();
  bad |= compile(g, "amdgcn:gfx90a", ll, argv[1], "\177ELF");
  if (gpublob_mlir_enabled()) bad |= compile(g, "amdgcn:gfx90a", mlir, NULL, "gpu.binary");
  gpublob_close(g);
  printf("host: %s\n", bad ? "failed" : "done");
  return bad;
}
