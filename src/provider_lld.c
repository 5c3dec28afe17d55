/* src/provider_lld.c: The lld provider: lld's ELF driver linked into gpublob
** (src/lld.cpp, C++, built where configure finds liblld-22-dev: GPUBLOB_LLD) links
** the backend's object into an hsaco in-process, with the spec's provider_argv
** (ld.lld's own words), in a private directory, since lld reads and writes files.
** It gives the ld.lld program's bytes (the spec's provider_bytes = program), so
** auto takes it wherever it is linked in.  Its identity in the cache's keys is
** configure's GPUBLOB_LLD_ID, lld's version and its archives' digest, which the
** LLVM-free front has too without linking lld.  Without GPUBLOB_LLD the registry
** (src/provider.c) has no lld, and the target's program runs.  The run is the
** compiler's (src/provider_lld_run.c); the front only names lld in keys. */
#if GPUBLOB_LLD
#ifndef GPUBLOB_LLD_ID
#error "GPUBLOB_LLD needs GPUBLOB_LLD_ID, lld's identity for the cache's keys (./configure writes both)"
#endif
GPUBLOB_PRIVATE const provider_ops provider_lld_ops = {.name = "lld", .run = provider_lld_run, .linked = GPUBLOB_LLD_ID, .usable = provider_lld_run_usable,
                                    .files = 1, .warm = provider_lld_run_warm};
#endif
