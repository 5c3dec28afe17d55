/* src/front.c: the cache front, the shared parts of the core without LLVM.  The
** CLI's gpublob is built from it: it answers cache hits (gpublob_cache_lookup) in a
** few milliseconds, and starts gpublob-compiler for anything else.  It has every
** public call of api.c, and none of api_compile.c's.  It is built with the
** compiler's GPUBLOB_MLIR, which the cache's keys hold.
*/
#define GPUBLOB_PARTS_FRONT 1 /* src/parts.h's shared group alone */
#include "internal.h"

#if GPUBLOB_STATIC_FRONT
/* The static front loads no library: one loaded into a static program brings a
** second libc.  None of its calls loads one (a lookup names a provider in the keys
** without loading it; --list-targets and every compile are gpublob-compiler's), so
** provider.c's dlopen is compiled out here: a provider asked of this object does
** not load, saying why; so is remote_http.c's (an http:// remote tier is its dynamic
** twin's, gpublob-front: programs/front.c). */
static void *front_dlopen(const char *path, int mode) { return (void)path, (void)mode, NULL; }
static const char *front_dlerror(void) { return "the static cache front loads no library"; }
#define dlopen(path, mode) front_dlopen(path, mode)
#define dlerror() front_dlerror()
#endif
#include "parts.h"
#if GPUBLOB_STATIC_FRONT
#undef dlopen
#undef dlerror
#endif

/* The front's engine: no LLVM to initialise, no isolation helper to stop. */
static void call_engine_open(void) {}
static void call_engine_close(gpublob *g) { (void)g; }
static void llvm_job_release(job *j) { (void)j; }
#if GPUBLOB_LLD
/* lld runs in the compiler; the front, a fresh process, only names it in keys. */
static int provider_lld_run_usable(void) { return 1; }
static int provider_lld_run(job *j, const provider *p, const char **opts, uint32_t nopts) {
  (void)p, (void)opts, (void)nopts;
  return handle_set_error(j->g, GPUBLOB_NOTOOL, "the cache front links no lld");
}
static void provider_lld_run_warm(void) {}
#endif

#include "api.c"
