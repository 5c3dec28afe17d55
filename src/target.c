/* src/target.c: Targets: the descriptor table generated from the spec (build/gpublob_targets.def,
** from targets/targets.spec); src/resolve.c resolves a job's options against it. */

/* ---- the target descriptors, generated from the spec ---- */
static const target_desc target_table[] = {
#define GPUBLOB_TARGET_BEGIN(name) {
#define GPUBLOB_TARGET_END },
#include "gpublob_targets.def"
};

/* How many targets the spec has. */
GPUBLOB_PRIVATE int target_count(void) { return (int)(sizeof target_table / sizeof *target_table); }

/* The i-th target, in the spec's order (0 <= i < target_count()). */
GPUBLOB_PRIVATE const target_desc *target_at(int i) { return &target_table[i]; }
