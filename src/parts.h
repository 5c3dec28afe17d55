/* src/parts.h: the parts of gpublob's core, in one list, in pipeline order: the
** shared ones (strings, the handle, options and targets, templates, search, the
** blob tool's choice, digests and the cache, input and the kernels' metadata), then
** the compiler's (the plan, LLVM's parse, checks, target machine, device libraries,
** optimisation, emission, processes and the blob tool, packs, the job, isolation, the pool),
** MLIR's, and last the call and the public API.  A new part is one line here, in
** its group, and, where it shares anything, a section in its group's header
** (src/internal.h, src/internal_compile.h, src/internal_mlir.h: each part's shared
** functions, data and types, named with its prefix).  No part depends on this
** order: each compiles alone with its group's header (tools/rooms.sh); the order is
** the one translation unit's and the amalgamation's.
**
** gpublob.c includes every group, after src/internal.h (build/amalgamate, of
** tools/amalgamate.c, pastes each part in at its line here for
** build/vendor/gpublob.c).  src/front.c, the cache front, sets GPUBLOB_PARTS_FRONT
** to 1 first and gets the shared group alone: it adds stubs of the compiler's
** engine, then api.c, itself. */
#ifndef GPUBLOB_PARTS_FRONT
#define GPUBLOB_PARTS_FRONT 0 /* 1: the shared group alone (src/front.c) */
#endif

/* Shared with the cache front. */
#include "strbuf.c"
#include "util.c"
#include "io.c"
#include "handle.c"
#include "output_report.c"
#include "live.c"
#include "options.c"
#include "job_state.c"
#include "target.c"
#include "resolve.c"
#include "template.c"
#include "search.c"
#include "provider_nvjitlink.c"
#include "provider_lld.c"
#include "provider.c"
#include "tool_choice.c"
#include "digest.c"
#include "cache_dir.c"
#include "cache_remote.c"
#include "remote_http.c"
#include "remote_redis.c"
#include "cache_size.c"
#include "cache_deps.c"
#include "toolchain_id.c"
#include "cache_lookup.c"
#include "cache_stream.c"
#include "input.c"
#include "msgpack.c"
#include "elf.c"
#include "kernels.c"
#include "occupancy.c"
#include "meta_amdgpu.c"
#include "meta_nvinfo.c"
#include "meta_blob.c"
#include "meta_pack.c"
#include "offload.c"
#include "meta_output.c"
#include "inspect.c"
#include "limits.c"

#if !GPUBLOB_PARTS_FRONT
/* The compiler: LLVM from here on. */
#include "internal_compile.h" /* the compiler's seams */
#include "report.c"
#include "live_enter.c"
#include "cache_store.c"
#include "plan.c"
#include "llvm.c"
#include "parse.c"
#include "triple.c"
#include "module_check.c"
#include "pins.c"
#include "target_machine.c"
#include "constants.c"
#include "devlib_share.c"
#include "devlib.c"
#include "peer.c"
#include "debug_info.c"
#include "link_files.c"
#include "libm_names.c"
#include "unresolved.c"
#include "type_check.c"
#include "optimise.c"
#include "emit.c"
#include "tmp_sweep.c"
#include "tool_report.c"
#include "proc.c"
#include "tool.c"
#include "dump.c"
#include "tool_version.c"
#include "magic.c"
#include "pack_bundle.c"
#include "pack.c"
#include "provider_run.c"
#include "provider_lld_run.c"
#include "job.c"
#include "isolate_wire.c"
#include "isolate_child.c"
#include "isolate_helper.c"
#include "isolate_host.c"
#include "provider_child.c"
#include "pool.c"
#include "ir_call.c"
#include "disasm.c"

/* MLIR (configure: libmlir-22-dev). */
#if GPUBLOB_MLIR
#include "internal_mlir.h" /* MLIR's seams */
#include "mlir_init.c"
#include "mlir_plan.c"
#include "mlir_select.c"
#include "mlir_lower.c"
#include "mlir_own.c"
#include "mlir_translate.c"
#include "mlir_kernels.c"
#include "mlir_attach.c"
#include "mlir_serialize.c"
#include "mlir_io.c"
#include "mlir_pass.c"
#endif

/* The call and the public API. */
#include "call.c"
#include "api.c"
#include "api_compile.c"
#if GPUBLOB_MLIR
#include "api_mlir.c"
#endif
#endif /* !GPUBLOB_PARTS_FRONT */
