/* src/options.c: The caller's options struct, read as far as its version goes (an older
** caller's is never read past its end), normalised once, where a call enters the library
** (every public call that takes options; the MLIR pass at its creation and its run):
** everything after reads the settled copy, never the caller's struct. */

/* ---- the options: their versions, the defaults, the flags that change no output ---- */

GPUBLOB_PRIVATE const gpublob_options options_default = {.version = GPUBLOB_OPTIONS_VERSION};

/* A caller's struct of an older version is read only as far as that version went;
** later fields read as zero.  Version 0 is version 1: a zeroed struct of the oldest
** layout means the defaults and is never read past its end. */
GPUBLOB_PRIVATE size_t options_size(unsigned version) {
  static const size_t ends[] = {offsetof(gpublob_options, targets), offsetof(gpublob_options, targets),
                                offsetof(gpublob_options, jobs), offsetof(gpublob_options, tool_timeout),
                                offsetof(gpublob_options, abi), offsetof(gpublob_options, link),
                                offsetof(gpublob_options, remote_cache), offsetof(gpublob_options, job_timeout),
                                offsetof(gpublob_options, block_size), offsetof(gpublob_options, as),
                                offsetof(gpublob_options, debug), sizeof(gpublob_options)};
  return version < sizeof ends / sizeof *ends ? ends[version] : sizeof(gpublob_options);
}

/* The options' limits: known bits, a min_occupancy from 0 to 1 (NaN is none), and
** the block size occupancy is figured for (block_size, at most MAX_BLOCK_SIZE); else
** OPTION, naming the field. */
GPUBLOB_PRIVATE int options_limits_valid(gpublob *g, const gpublob_options *o) {
  if (o->block_size > MAX_BLOCK_SIZE)
    return handle_set_error(g, GPUBLOB_OPTION, "block_size %u (--block-size) is more threads than occupancy is figured "
                     "for (at most %d; no chip takes a block of over 1024)", o->block_size, MAX_BLOCK_SIZE);
  if (o->limits & ~(unsigned)(GPUBLOB_LIMIT_REGISTERS | GPUBLOB_LIMIT_SPILLS | GPUBLOB_LIMIT_SHARED |
                              GPUBLOB_LIMIT_STACK | GPUBLOB_LIMIT_OCCUPANCY))
    return handle_set_error(g, GPUBLOB_OPTION, "unknown limits 0x%x", o->limits);
  if ((o->limits & GPUBLOB_LIMIT_OCCUPANCY) && !(o->min_occupancy >= 0 && o->min_occupancy <= 1))
    return handle_set_error(g, GPUBLOB_OPTION, "min_occupancy %g is not a fraction from 0 to 1", o->min_occupancy);
  return GPUBLOB_OK;
}

/* The one check of the version: a newer struct's fields may change the output, so it
** is OPTION (said in g's message; with no handle yet, only returned). */
GPUBLOB_PRIVATE int options_check_version(gpublob *g, const gpublob_options *o) {
  if (o->version <= GPUBLOB_OPTIONS_VERSION) return GPUBLOB_OK;
  if (!g) return GPUBLOB_OPTION;
  return handle_set_error(g, GPUBLOB_OPTION, "options version %u is newer than this gpublob (%d)",
                   o->version, GPUBLOB_OPTIONS_VERSION);
}

/* The caller's o (NULL: the defaults) into out, a full struct of this version, and
** its version checked.  Called only at the library's entry points; what they pass
** on is out, read-only.  A newer version stays in out, so that the MLIR pass, which
** settles its copy when it is made (with no handle), says it when it runs
** (options_check_version, the one check). */
GPUBLOB_PRIVATE int options_normalise(gpublob *g, const gpublob_options *o, gpublob_options *out) {
  memset(out, 0, sizeof *out);
  if (!o) o = &options_default;
  memcpy(out, o, options_size(o->version));
  if (out->version < GPUBLOB_OPTIONS_VERSION) out->version = GPUBLOB_OPTIONS_VERSION;
  return options_check_version(g, out);
}
