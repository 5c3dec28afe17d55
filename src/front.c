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
#include "provider.c"
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

#include "api.c"
