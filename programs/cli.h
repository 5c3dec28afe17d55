/* programs/cli.h: what the CLI's files share.  The CLI (docs/cli.md) is built
** twice from these files: build/gpublob-compiler (compiler.c's main, with LLVM)
** is the whole of it; build/gpublob (front.c's main, the core without LLVM)
** answers a cache hit itself and starts gpublob-compiler for anything else.
** Each file does one job: args.c the arguments (options.h's table), help.c
** --help and --help-all (the same table), output_names.c the outputs' names,
** output_write.c their atomic writing, text.c the growing text the others build
** their files in, kernels.c --metadata and --verbose, emit_c.c --emit-c,
** emit_object.c --emit-object, depfile.c --depfile, inspect.c the inspect job
** (disasm.c its --disasm, the compiler's alone),
** process.c the input, signals, --time and --toolchain-id, list_targets.c --list-targets.
** Private to programs/. */
#ifndef GPUBLOB_CLI_H
#define GPUBLOB_CLI_H

#include "gpublob.h"

#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>

#define MAX_TARGETS 64
#define MAX_LINKS 256
#define MAX_INPUTS 1024

/* The CLI would isolate by default if that cost under 3% of the single saxpy
** compile; bench/run.sh measures 11% (2.6 ms of 24), so --isolate asks for it.
** In-process, an LLVM fatal error or crash still ends in one message, exit 23, no
** output and no temporary (compiler.c's on_llvm_fatal, process.c's on_signal).
** -DCLI_DEFAULT_FLAGS=GPUBLOB_FLAG_ISOLATE builds a CLI that isolates unless
** --no-isolate. */
#ifndef CLI_DEFAULT_FLAGS
#define CLI_DEFAULT_FLAGS 0
#endif

/* The front's hand-off to gpublob-compiler, in the environment (front.c writes it,
** compiler.c reads it): set only when the front's lookup met a fault of the remote
** tier, which the compiler then does not try again.  Its value is lines: the first
** HANDOFF_HEADER, then "remote-off", then "warning TEXT" for each warning of the
** front's lookup; the compiler prints those its own call did not give. */
#define HANDOFF_ENV "GPUBLOB_REMOTE_FAULT"
/* The front starts the compiler with glibc's malloc in 2 MiB pages
** (GLIBC_TUNABLES=FRONT_TUNABLES: transparent huge pages for every arena, one fault
** a 2 MiB page), unless the user's environment has GLIBC_TUNABLES of its own; it
** sets TUNABLES_ENV then, and the compiler takes both off again at its start, so
** the tools it runs (ptxas, ld.lld) see the user's environment. */
#define FRONT_TUNABLES "glibc.malloc.hugetlb=1"
#define TUNABLES_ENV "GPUBLOB_FRONT_TUNABLES"
#define HANDOFF_HEADER "gpublob-front 1"

typedef struct cli {
  gpublob_options opts;
  gpublob_target_choice choices[MAX_TARGETS];
  char tool_dirs[8192], lib_dirs[8192], cache_dir[4096];
  const char *remote_cache; /* --remote-cache, else $GPUBLOB_REMOTE_CACHE */
  const char *links[MAX_LINKS];
  const char *input, *output; /* input: the first of inputs */
  const char *inputs[MAX_INPUTS]; /* every INPUT, in order (since 1.7: several in one call) */
  size_t ninputs;
  const char *emit_c; /* --emit-c FILE.h */
  const char *depfile; /* --depfile FILE */
  const char *emit_object; /* --emit-object FILE.o */
  const char *object_arch; /* --object-arch x86-64|aarch64; NULL: this host's */
  int list_targets, no_cache, time;
  int toolchain_id;     /* --toolchain-id: print it, no input */
  const char *metadata; /* --metadata FILE */
  int verbose;          /* --verbose */
} cli;

/* A growing text (malloc'd); oom once an allocation failed. */
typedef struct text {
  char *s;
  size_t len, cap;
  int oom;
} text;

/* args.c */
int fail(const char *fmt, const char *arg);
int parse_args(cli *c, int argc, char **argv);

/* help.c */
void print_help(int all);

/* text.c */
void text_addf(text *t, const char *fmt, ...);

/* output_names.c */
int open_temp(const char *path, char **tmp);
void sweep_temps(const char *path); /* a killed call's temporaries of path */
int write_all(int fd, const unsigned char *p, size_t n);
int is_dir(const char *p);
int check_many(const cli *c, size_t n);
int output_paths(const cli *c, const gpublob_result *r, int mlir, char **paths);
size_t outputs_asked(const cli *c, int mlir);
const char *output_input(const cli *c, const gpublob_result *r, size_t i);

/* output_write.c */
/* The files written beside the outputs, each where its flag asks for it. */
typedef struct written_files {
  gpublob_blob header, object; /* --emit-c, --emit-object */
  gpublob_blob metadata, depfile; /* --metadata, --depfile: their text */
} written_files;
int write_outputs(const cli *c, const gpublob_result *r, int mlir, const written_files *w);
void pending_set(char **tmps, size_t count);
void remove_pending(void);

/* kernels.c */
int write_results(gpublob *g, const cli *c, const gpublob_result *r, int mlir);
int read_kernels(gpublob *g, const cli *c, const gpublob_result *r, text *json);
void verbose_kernel(FILE *f, const char *lead, const gpublob_output *o, const gpublob_kernel_info *k);
int kernel_params(gpublob *g, const gpublob_result *r, size_t i, size_t k, const char *name, FILE *f, const char *lead,
                  text *t);

/* inspect.c: gpublob inspect [--json] [--disasm] FILE... (disasm: each entry's code,
** the compiler's disasm.c; NULL in the front, which hands --disasm to the compiler) */
typedef int (*inspect_disasm_fn)(gpublob *g, const gpublob_result *r, size_t i);
int inspect_is_job(int argc, char **argv);
int inspect_wants_disasm(int argc, char **argv);
int inspect_main(int argc, char **argv, inspect_disasm_fn disasm);

/* disasm.c (gpublob-compiler's alone) */
int disasm_entry(gpublob *g, const gpublob_result *r, size_t i);

/* emit_c.c */
int c_header(const cli *c, gpublob *g, const gpublob_result *r, gpublob_blob *b);

/* depfile.c */
int depfile_text(gpublob *g, const cli *c, const gpublob_result *r, int mlir, text *t);
/* emit_object.c */
int host_object(const cli *c, const gpublob_result *r, gpublob_blob *b);

/* process.c */
extern volatile sig_atomic_t isolating; /* for the crash message */
void say(const char *a, const char *b);
void stray_watch(int file, int saved);
void catch_signals(void);
int read_input(const cli *c, unsigned char **data, size_t *size);
int read_input_path(const cli *c, const char *path, unsigned char **data, size_t *size);
int is_mlir(const char *path, const unsigned char *p, size_t n);
void print_time(gpublob *g, const char *who, int remote);
void print_warnings(const gpublob *g);
int print_toolchain_id(const cli *c);

/* list_targets.c (gpublob-compiler's alone) */
int list_targets(gpublob *g, const cli *c);

#endif /* GPUBLOB_CLI_H */
