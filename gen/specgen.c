/* specgen: turn the target spec (targets/targets.spec) into the table gpublob.c includes.
**
**   specgen [--llvm-targets LIST] SPEC OUT.def   write the table (DO NOT EDIT output)
**   specgen [--llvm-targets LIST] --llvm-components SPEC
**                                     print the LLVM components its backends need
**   specgen [--llvm-targets LIST] --unused-backends SPEC OUT.c
**                                     write no-op LLVMInitialize* functions for
**                                     each backend of LIST the spec names not
**
** --llvm-targets "NVPTX AMDGPU ...": the backends this LLVM was built with
** (llvm-config --targets-built); an llvm_target outside it is refused.  Without
** it, or with an empty list, LLVM 22's own list of targets is the limit.
**
** The keys a target may hold are the list of src/spec_keys.h, which the core
** declares target_desc's fields from too: the table is a target_desc's designated
** initialisers per target (gen/spec_write.c's write_table says what else it
** holds), and its digest, the spec's part of the cache's keys, is the XXH3-128 of
** those entries.  A target whose first key is `inherit = NAME` starts as a copy of
** the earlier target NAME.  This file is the program; gen/spec.h says what the
** other three of specgen do.  The one-file form of the core (build/vendor/gpublob.c)
** is another program's: tools/amalgamate.c.
**
** Errors are printed as `file:line: message` and exit with status 1; no
** output file is left behind then.  Build: cc -std=c11 -o specgen gen/specgen.c
** gen/spec_read.c gen/spec_check.c gen/spec_write.c (xxhash.h, header only:
** libxxhash-dev)
**
** Built with -DSPECGEN_LIBRARY there is no main(): specgen_run() parses and
** checks a spec held in memory, an error returns (longjmp) instead of exiting,
** and specgen_reset() frees the state, so that a fuzzer can run it many times.
*/
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "spec.h"

#ifdef SPECGEN_LIBRARY
/* ---- the library: parse and check in memory, then free the state ---- */

/* Parses and checks DATA (SIZE bytes, named PATH in messages) with LLVM_TARGETS
   as --llvm-targets (NULL: none), then writes the table to TABLE and the
   components to COMPONENTS where they are not NULL.  Returns 0, or 1 with the
   message in specgen_error() (2: a bad LLVM_TARGETS).  specgen_reset() frees. */
int specgen_run(const char *path, const char *data, size_t size, const char *llvm_targets,
                FILE *table, FILE *components);
const char *specgen_error(void);
void specgen_reset(void);

int specgen_run(const char *path, const char *data, size_t size, const char *llvm_targets,
                FILE *table, FILE *components) {
  static jmp_buf jump;
  spec_reset();
  die_message[0] = 0;
  die_jump = NULL;
  spec_path = path;
  if (set_built_targets(llvm_targets ? llvm_targets : "")) {
    snprintf(die_message, sizeof die_message, "--llvm-targets: not a list of names");
    return 2;
  }
  if (setjmp(jump)) {
    die_jump = NULL;
    return 1;
  }
  die_jump = &jump;
  read_spec(data, size);
  check_all();
  if (table) write_table(table);
  if (components) print_components(components);
  die_jump = NULL;
  return 0;
}

const char *specgen_error(void) { return die_message; }
void specgen_reset(void) { spec_reset(); }
#else

/* ---- output files: written beside, then renamed into place ---- */
static FILE *open_out(const char *out, char *tmp, size_t n) {
  snprintf(tmp, n, "%s.tmp", out);
  FILE *o = fopen(tmp, "w");
  if (!o) {
    fprintf(stderr, "specgen: cannot write %s\n", tmp);
    exit(1);
  }
  return o;
}

static int close_out(FILE *o, const char *tmp, const char *out) {
  if (ferror(o) | fclose(o) || rename(tmp, out)) {
    remove(tmp);
    fprintf(stderr, "specgen: cannot write %s\n", out);
    return 1;
  }
  return 0;
}

/* Reads, parses and checks the spec at path (exits on an error). */
static void load_spec(const char *path) {
  spec_path = path;
  FILE *f = fopen(spec_path, "rb");
  if (!f) die(0, "cannot open");
  size_t size = 0, cap = 65536;
  char *data = malloc(cap);
  for (size_t r; data && (r = fread(data + size, 1, cap - size, f)) > 0;) {
    size += r;
    if (size == cap) {
      char *bigger = cap < ((size_t)1 << 30) ? realloc(data, cap *= 2) : NULL;
      if (!bigger) free(data);
      data = bigger;
    }
  }
  if (!data) die(0, "out of memory (or larger than 1 GiB)");
  if (ferror(f)) die(0, "cannot read");
  fclose(f);
  read_spec(data, size);
  free(data);
  check_all();
}

/* Writes OUT (through OUT.tmp) with the spec at SPEC loaded; returns the exit status. */
static int write_file(const char *spec, const char *out, void (*write)(FILE *)) {
  load_spec(spec);
  char tmp[4096];
  FILE *o = open_out(out, tmp, sizeof tmp);
  write(o);
  return close_out(o, tmp, out);
}

static const char usage[] =
    "usage: specgen [--llvm-targets \"NVPTX AMDGPU ...\"] SPEC OUT.def\n"
    "       specgen [--llvm-targets \"NVPTX AMDGPU ...\"] --llvm-components SPEC\n"
    "       specgen [--llvm-targets \"NVPTX AMDGPU ...\"] --unused-backends SPEC OUT.c\n";

int main(int argc, char **argv) {
  if (argc >= 3 && !strcmp(argv[1], "--llvm-targets")) {
    if (set_built_targets(argv[2])) {
      fprintf(stderr, "specgen: --llvm-targets '%s': not a blank-separated list of LLVM target names\n", argv[2]);
      return 2;
    }
    argv += 2;
    argc -= 2;
  }
  if (argc == 3 && !strcmp(argv[1], "--llvm-components")) {
    load_spec(argv[2]);
    print_components(stdout);
    return 0;
  }
  if (argc == 4 && !strcmp(argv[1], "--unused-backends")) return write_file(argv[2], argv[3], write_unused_backends);
  if (argc != 3 || argv[1][0] == '-') {
    fputs(usage, stderr);
    return 2;
  }
  return write_file(argv[1], argv[2], write_table);
}
#endif
