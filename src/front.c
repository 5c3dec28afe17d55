/* src/front.c: the cache front, the shared parts of the core without LLVM.  The
** CLI's gpublob is built from it: it answers cache hits (gpublob_cache_lookup) in a
** few milliseconds, and starts gpublob-compiler for anything else.  It has every
** public call of api.c, and none of api_compile.c's.  It is built with the
** compiler's GPUBLOB_MLIR, which the cache's keys hold.
*/
#include "internal.h"

#include "util.c"
#include "handle.c"
#include "live.c"
#include "options.c"
#include "target.c"
#include "template.c"
#include "search.c"
#include "provider_nvjitlink.c"
#include "provider_lld.c"
#if GPUBLOB_STATIC_FRONT
/* The static front loads no library: one loaded into a static program brings a
** second libc.  None of its calls loads one (a lookup names a provider in the keys
** without loading it; --list-targets and every compile are gpublob-compiler's), so
** provider.c's dlopen is compiled out here: a provider asked of this object does
** not load, saying why, and the static link needs no dlopen (nor warns of it). */
static void *front_dlopen(const char *path, int mode) { return (void)path, (void)mode, NULL; }
static const char *front_dlerror(void) { return "the static cache front loads no library"; }
#define dlopen front_dlopen
#define dlerror front_dlerror
#endif
#include "provider.c"
#if GPUBLOB_STATIC_FRONT
#undef dlopen
#undef dlerror
#endif
#include "tool_choice.c"
#include "digest.c"
#include "cache_dir.c"
#include "cache_remote.c"
#include "cache_size.c"
#include "cache_deps.c"
#include "cache_lookup.c"
#include "input.c"
#include "msgpack.c"
#include "kernels.c"
#include "meta_amdgpu.c"
#include "meta_nvinfo.c"
#include "meta_pack.c"

/* The front's engine: no LLVM to initialise, no isolation helper to stop. */
static void engine_open(void) {}
static void engine_close(gpublob *g) { (void)g; }
static void job_release_llvm(job *j) { (void)j; }
#if GPUBLOB_LLD
/* lld runs in the compiler; the front, a fresh process, only names it in keys. */
static int lld_usable(void) { return 1; }
static int lld_run(job *j, const provider *p, const char **opts, uint32_t nopts) {
  (void)p, (void)opts, (void)nopts;
  return set_error(j->g, GPUBLOB_NOTOOL, "the cache front links no lld");
}
#endif

#include "api.c"
