/* src/target.c: Targets: the descriptor table generated from the spec (build/gpublob_targets.def,
** from targets/targets.spec); src/resolve.c resolves a job's options against it. */

/* ---- the target descriptors, generated from the spec ---- */
static const target_desc targets[] = {
#define GPUBLOB_TARGET_BEGIN(name) {
#define GPUBLOB_TARGET_END },
#include "gpublob_targets.def"
};
#define NTARGETS ((int)(sizeof targets / sizeof *targets))
