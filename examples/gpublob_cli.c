/* gpublob_cli.c: the gpublob command line.  Kernel in, blob out.
**
**   gpublob [options] INPUT      INPUT: LLVM IR or MLIR, text or binary (by content), or -
**
** Every -t (repeatable, with chip lists: -t nvptx:sm_80,sm_90) gives a blob per
** chip, compiled at once on -j threads.  MLIR input gives the whole module back,
** each gpu.module serialised for its targets (-t, or the module's own
** #nvvm.target<...> attributes).  Results are cached (--cache-dir).
** Exit 0 on success; on failure one line on stderr (plus the tool's or LLVM's
** detail below it) and no output file.  Output is written atomically; -o DIR/
** and -o PATTERN make the directories their outputs need.
**
** Built twice: build/gpublob-compiler is the whole CLI; build/gpublob, with
** GPUBLOB_FRONT, is the same CLI without LLVM: it answers a cache hit itself, in
** a few milliseconds, and starts gpublob-compiler (beside it) for anything else.
*/
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "gpublob.h"
#include "src/names.h" /* the core's names: a chip as a file name or a C identifier */

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h> /* memfd_create */
#include <sys/stat.h>
#include <unistd.h>

#ifndef GPUBLOB_FRONT
#define GPUBLOB_FRONT 0
#endif
#if !GPUBLOB_FRONT
#include <llvm-c/ErrorHandling.h>
#include <malloc.h>
#endif

/* --help: two screens, a flag a line; --help-all has every flag, with the details. */
static const char usage[] =
    "usage: gpublob [options] INPUT   INPUT: LLVM IR or MLIR, text or binary; - stdin\n"
    "Inputs:\n"
    "  -l FILE                   link bitcode FILE before the device libraries\n"
    "      --max-input N[K|M|G]  refuse a larger input (default 1G)\n"
    "Targets:\n"
    "  -t, --target NAME[:CHIPS] a target and its chips (gfx90a:xnack+: a target id)\n"
    "      --features STR        LLVM target features, e.g. +ptx80\n"
    "  -O0 .. -O3                optimisation level (default -O3)\n"
    "      --fast-math           and --ftz, --daz, --finite-only, --unsafe-math ...\n"
    "      --abi N               the target's ABI version (amdgcn: 400, 500, 600)\n"
    "Outputs:\n"
    "  -f, --format FMT          bin (default), asm, llvm, ll, pack (alias fatbin)\n"
    "  -o FILE|DIR/|PATTERN      output; PATTERN of {stem} {target} {chip} {suffix}\n"
    "      --metadata FILE       each output's kernels (registers, shared...) as JSON\n"
    "      --emit-c FILE.h       every output as a C array, with its kernels\n"
    "      --dump-dir DIR        each job's IR, ISA, object and blob tool script\n"
    "      --emit-bytecode       MLIR input: write MLIR bytecode\n"
    "Cache:\n"
    "      --cache-dir DIR       the local cache (default ~/.cache/gpublob)\n"
    "      --no-cache            neither look up nor store\n"
    "      --remote-cache URL    a Redis server behind it: redis://HOST[:PORT][/DB]\n"
    "Tools:\n"
    "      --toolkit DIR         a CUDA or ROCm root, searched first\n"
    "      --tool-mode MODE      auto (ptxas), program, or in-process (nvJitLink)\n"
    "      --opts STR            options for the blob tool (ptxas)\n"
    "      --lib-dir DIR         search DIR first for device libraries\n"
    "Robustness:\n"
    "  -j, --jobs N              compile threads (default: one per core)\n"
    "      --isolate             each job's LLVM work in a child process\n"
    "      --tool-timeout SECONDS  kill a blob tool running longer (default 300)\n"
    "Information:\n"
    "      --list-targets        the targets, their chips, tools and libraries\n"
    "      --time                the call's jobs, cache and phase times\n"
    "      --verbose             a line per kernel, as ptxas -v prints\n"
    "      --version\n"
    "  -h, --help                this help; --help-all: every flag (docs/cli.md)\n";

static const char usage_all[] =
    "usage: gpublob [options] INPUT     INPUT: LLVM IR or MLIR, text or binary, by its content;\n"
    "                                   - for stdin\n"
    "Targets:\n"
    "  -t, --target NAME[:CHIP[,CHIP]]  a target from the spec and its chips (default per\n"
    "                                   target); repeatable: a blob per (target, chip); MLIR:\n"
    "                                   replaces the module's own target attributes;\n"
    "                                   a CHIP may be a target id: gfx90a:xnack+\n"
    "      --features STR               LLVM target features, e.g. +ptx80\n"
    "      --retarget                   compile functions clang pinned to another chip\n"
    "                                   (\"target-cpu\") for each job's chip and features\n"
    "Output:\n"
    "  -f, --format FMT                 bin (default), asm, llvm (bitcode), ll (LLVM IR text),\n"
    "                                   or pack (alias fatbin): a target's chips in one blob\n"
    "  -o FILE|DIR/|PATTERN             output; - for stdout; several outputs go to DIR/\n"
    "                                   or to a PATTERN of {stem} {target} {chip} {suffix};\n"
    "                                   DIR/ and a PATTERN's directories are made if missing\n"
    "      --emit-c FILE.h              also every output as a C array (NAME[], NAME_size)\n"
    "                                   and a table of its kernels, NAME from the input's\n"
    "                                   stem, target and chip (gfx90a:xnack+: gfx90a_xnack_plus)\n"
    "      --dump-dir DIR               each job's IR (read, linked, optimised), ISA, object,\n"
    "                                   and the blob tool's script and log, into DIR (made if\n"
    "                                   missing); such a call compiles (no cache hit)\n"
    "Compile:\n"
    "  -O0 .. -O3                       default -O3\n"
    "      --fp-contract fast|on|off    fuse multiplies into adds: on (default), as the IR\n"
    "                                   says; fast, as clang's CUDA and HIP; off, drop the\n"
    "                                   IR's contract flags (an llvm.fmuladd stays)\n"
    "      --backend-only               the module is optimised already: the backend alone\n"
    "                                   at -O (as llc after opt), no middle end\n"
    "      --ftz, --daz                 flush denormals to zero\n"
    "      --finite-only                no NaN or infinity in or out\n"
    "      --unsafe-math                results may lose accuracy\n"
    "      --unsafe-sqrt                sqrt(float) need not round correctly\n"
    "      --fast-math                  all four of those (device-library settings)\n"
    "      --abi N                      the target's ABI version (amdgcn: 400, 500, 600 for\n"
    "                                   code object v4, v5, v6; default the module's, else 500,\n"
    "                                   or 600 for a generic target)\n"
    "  -j, --jobs N                     compile threads (default: one per core)\n"
    "      --isolate, --no-isolate      each job's LLVM work in a child process, so an LLVM\n"
    "                                   crash is an error, not the end (default: in-process)\n"
    "      --max-input N[K|M|G]         refuse a larger input (default 1G)\n"
    "Tools and libraries:\n"
    "      --tool PATH                  the blob tool to run, instead of searching\n"
    "      --tool-dir DIR               search DIR first for the blob tool (repeatable)\n"
    "      --tool-mode auto|program|in-process\n"
    "                                   auto: a provider of the program's own bytes (lld,\n"
    "                                   linked in) where it is, else the program (ptxas)\n"
    "                                   whatever the call's size, the provider (nvJitLink)\n"
    "                                   only where it is missing; a pack: the in-process one\n"
    "      --tool-timeout SECONDS       kill a blob or pack tool running longer (default 300)\n"
    "      --job-timeout SECONDS        a job's LLVM work longer is BACKEND: --isolate kills it\n"
    "                                   then; in-process it stops at the end of that phase\n"
    "      --lib-dir DIR                search DIR first for device libraries (repeatable)\n"
    "      --no-default-search          search only --tool-dir and --lib-dir (and --toolkit)\n"
    "      --toolkit DIR                a toolkit's root (CUDA, ROCm), searched first: DIR/bin\n"
    "                                   for the tool, DIR/lib64 for nvJitLink, DIR/nvvm/libdevice\n"
    "  -l FILE                          link bitcode FILE before the device libraries (repeatable)\n"
    "      --opts STR                   options for the blob tool (ptxas), split as a shell\n"
    "                                   would; in-process, those nvJitLink has too\n"
    "Cache:\n"
    "      --cache-dir DIR              the cache (default $GPUBLOB_CACHE_DIR, else\n"
    "                                   $XDG_CACHE_HOME/gpublob or ~/.cache/gpublob)\n"
    "      --cache-size N[K|M|G]        the cache's limit (default 1G)\n"
    "      --no-cache                   neither look up nor store\n"
    "      --remote-cache URL           a Redis server behind the cache, shared by machines:\n"
    "                                   redis://[:PASSWORD@]HOST[:PORT][/DB] or unix:///PATH\n"
    "                                   (default $GPUBLOB_REMOTE_CACHE; password also\n"
    "                                   $GPUBLOB_REMOTE_PASSWORD)\n"
    "      --remote-read-only           look up the remote cache, never store to it\n"
    "      --remote-timeout MS          its connect and command timeout (default 50)\n"
    "      --remote-max N[K|M|G]        store no larger cache file remotely (default 64M)\n"
    "MLIR input:\n"
    "      --attach legacy|binary       default binary: gpu.binary with #gpu.object\n"
    "                                   entries; legacy: an nvvm.cubin-style attribute\n"
    "      --pipeline STR               lowering passes for each gpu.module, instead of\n"
    "                                   the spec's; none: never lower\n"
    "      --emit-bytecode              write MLIR bytecode (.mlirbc)\n"
    "      --section NAME               each #gpu.object's ELF section (properties' section)\n"
    "      --tool-log                   the blob tool's log in each #gpu.object's properties\n"
    "                                   (ISACompilerLog), as collect-compiler-diagnostics\n"
    "Information:\n"
    "      --list-targets               name, triple, default chip, formats, attribute,\n"
    "                                   valid chips, and the blob tool a compile would use\n"
    "      --time                       print the call's jobs, threads, cache and phases,\n"
    "                                   the provider's load and the tools' own CPU time\n"
    "      --metadata FILE              write each output's kernels (registers, shared and\n"
    "                                   stack bytes, ...) as JSON, read from its blob\n"
    "      --verbose                    a line per kernel on stderr, as ptxas -v prints\n"
    "      --version\n"
    "  -h, --help                       the short help\n"
    "      --help-all                   this help\n";

#define MAX_TARGETS 64
#define MAX_LINKS 256

/* The CLI would isolate by default if that cost under 3% of the single saxpy
** compile; bench/run.sh measures 11% (2.6 ms of 24), so --isolate asks for it.
** In-process, an LLVM fatal error or crash still ends in one message, exit 23, no
** output and no temporary (on_llvm_fatal, on_signal).  -DCLI_DEFAULT_FLAGS=
** GPUBLOB_FLAG_ISOLATE builds a CLI that isolates unless --no-isolate. */
#ifndef CLI_DEFAULT_FLAGS
#define CLI_DEFAULT_FLAGS 0
#endif

typedef struct cli {
  gpublob_options opts;
  gpublob_target_choice choices[MAX_TARGETS];
  char tool_dirs[8192], lib_dirs[8192], cache_dir[4096];
  const char *remote_cache; /* --remote-cache, else $GPUBLOB_REMOTE_CACHE */
  const char *remote_fault; /* the front's warning when the remote tier failed there */
  const char *links[MAX_LINKS];
  const char *input, *output;
  const char *emit_c; /* --emit-c FILE.h */
  int list_targets, no_cache, time;
  const char *metadata; /* --metadata FILE */
  int verbose;          /* --verbose */
} cli;

static int fail(const char *fmt, const char *arg) {
  fputs("gpublob: error: ", stderr);
  fprintf(stderr, fmt, arg);
  fputc('\n', stderr);
  return 2;
}

/* ---- arguments ---- */
static int parse_format(const char *s) {
  if (!strcmp(s, "bin")) return GPUBLOB_FORMAT_BIN;
  if (!strcmp(s, "asm")) return GPUBLOB_FORMAT_ASM;
  if (!strcmp(s, "llvm")) return GPUBLOB_FORMAT_LLVM;
  if (!strcmp(s, "ll")) return GPUBLOB_FORMAT_LL;
  if (!strcmp(s, "pack") || !strcmp(s, "fatbin")) return GPUBLOB_FORMAT_PACK;
  return -1;
}

static int parse_tool_mode(const char *s) {
  if (!strcmp(s, "auto")) return GPUBLOB_TOOL_AUTO;
  if (!strcmp(s, "program")) return GPUBLOB_TOOL_PROGRAM;
  if (!strcmp(s, "in-process")) return GPUBLOB_TOOL_INPROCESS;
  return -1;
}

/* 512M, 2G, 100000: bytes; 0 when malformed or too large. */
/* Seconds from 1 to 86400 (a timeout); 0 for anything else. */
static unsigned parse_seconds(const char *s) {
  char *end;
  errno = 0;
  unsigned long n = strtoul(s, &end, 10);
  return *end || end == s || *s == '-' || errno || n < 1 || n > 86400 ? 0 : (unsigned)n;
}

static unsigned long long parse_size(const char *s) {
  char *end;
  errno = 0;
  unsigned long long n = strtoull(s, &end, 10);
  int shift = !*end ? 0 : !strcmp(end, "K") ? 10 : !strcmp(end, "M") ? 20 : !strcmp(end, "G") ? 30 : -1;
  if (shift < 0 || *s == '-' || end == s || errno || n > ULLONG_MAX >> shift) return 0;
  return n << shift;
}

static void add_dir(char *list, size_t size, const char *dir) {
  size_t n = strlen(list);
  snprintf(list + n, size - n, "%s%s", n ? ":" : "", dir);
}

static int takes_value(const char *a) {
  static const char *const with[] = {"-t", "--target", "--features", "-f", "--format", "-o", "--tool",
                                     "--tool-dir", "--lib-dir", "--attach", "--pipeline", "-j",
                                     "--jobs", "--cache-dir", "--cache-size", "--tool-mode",
                                     "--tool-timeout", "--job-timeout", "--max-input", "--abi", "--metadata", "-l",
                                     "--fp-contract",
                                     "--opts", "--toolkit", "--section", "--dump-dir", "--emit-c",
                                     "--remote-cache", "--remote-timeout", "--remote-max", NULL};
  for (int i = 0; with[i]; i++)
    if (!strcmp(a, with[i])) return 1;
  return 0;
}

/* One option with its value v; 0, or 2 on a usage error. */
static int parse_valued(cli *c, const char *a, const char *v) {
  if (!strcmp(a, "-t") || !strcmp(a, "--target")) {
    if (c->opts.ntargets == MAX_TARGETS) return fail("%s", "too many -t");
    c->choices[c->opts.ntargets++].target = v;
  } else if (!strcmp(a, "--features")) {
    c->opts.features = v;
  } else if (!strcmp(a, "-f") || !strcmp(a, "--format")) {
    if ((c->opts.format = parse_format(v)) < 0) return fail("unknown format '%s' (use llvm, ll, asm, bin, pack or fatbin)", v);
  } else if (!strcmp(a, "-o")) {
    c->output = v;
  } else if (!strcmp(a, "--dump-dir")) {
    c->opts.dump_dir = v;
  } else if (!strcmp(a, "--emit-c")) {
    c->emit_c = v;
  } else if (!strcmp(a, "--tool")) {
    c->opts.tool = v;
  } else if (!strcmp(a, "--tool-dir")) {
    add_dir(c->tool_dirs, sizeof c->tool_dirs, v);
  } else if (!strcmp(a, "--lib-dir")) {
    add_dir(c->lib_dirs, sizeof c->lib_dirs, v);
  } else if (!strcmp(a, "--tool-mode")) {
    if ((c->opts.tool_mode = parse_tool_mode(v)) < 0) return fail("unknown tool mode '%s' (use auto, program or in-process)", v);
  } else if (!strcmp(a, "--attach")) {
    c->opts.attach = !strcmp(v, "binary") ? GPUBLOB_ATTACH_BINARY : !strcmp(v, "legacy") ? GPUBLOB_ATTACH_LEGACY : -1;
    if (c->opts.attach < 0) return fail("unknown attach mode '%s' (use legacy or binary)", v);
  } else if (!strcmp(a, "--pipeline")) {
    c->opts.pipeline = v;
  } else if (!strcmp(a, "--metadata")) {
    c->metadata = v;
  } else if (!strcmp(a, "-l")) {
    if (c->opts.nlink == MAX_LINKS) return fail("%s", "too many -l");
    c->links[c->opts.nlink++] = v;
    c->opts.link = c->links;
  } else if (!strcmp(a, "--opts")) {
    c->opts.tool_options = v;
  } else if (!strcmp(a, "--toolkit")) {
    c->opts.toolkit = v;
  } else if (!strcmp(a, "--section")) {
    c->opts.section = v;
  } else if (!strcmp(a, "-j") || !strcmp(a, "--jobs")) {
    char *end;
    long n = strtol(v, &end, 10);
    if (*end || n < 1 || n > 256) return fail("-j wants a number of threads from 1 to 256, not '%s'", v);
    c->opts.jobs = (unsigned)n;
  } else if (!strcmp(a, "--cache-dir")) {
    snprintf(c->cache_dir, sizeof c->cache_dir, "%s", v);
  } else if (!strcmp(a, "--remote-cache")) {
    c->remote_cache = v;
  } else if (!strcmp(a, "--remote-timeout")) {
    char *end;
    long n = strtol(v, &end, 10);
    if (*end || end == v || n < 1 || n > 600000) return fail("--remote-timeout wants milliseconds from 1 to 600000, not '%s'", v);
    c->opts.remote_timeout_ms = (unsigned)n;
  } else if (!strcmp(a, "--remote-max")) {
    if (!(c->opts.remote_max = parse_size(v))) return fail("--remote-max wants bytes, or N with K, M or G, not '%s'", v);
  } else if (!strcmp(a, "--cache-size")) {
    if (!(c->opts.cache_max = parse_size(v))) return fail("--cache-size wants bytes, or N with K, M or G, not '%s'", v);
  } else if (!strcmp(a, "--max-input")) {
    if (!(c->opts.max_input = parse_size(v))) return fail("--max-input wants bytes, or N with K, M or G, not '%s'", v);
  } else if (!strcmp(a, "--abi")) {
    char *end;
    errno = 0;
    unsigned long n = strtoul(v, &end, 10);
    if (*end || !isdigit((unsigned char)*v) || *v == '0' || errno || n > 1000000)
      return fail("--abi wants an ABI version such as 500, not '%s'", v);
    c->opts.abi = (unsigned)n;
  } else if (!strcmp(a, "--tool-timeout")) {
    if (!(c->opts.tool_timeout = parse_seconds(v)))
      return fail("--tool-timeout wants seconds from 1 to 86400, not '%s'", v);
  } else if (!strcmp(a, "--fp-contract")) {
    static const char *const modes[] = {"", "on", "fast", "off"};
    c->opts.fp_contract = 0;
    for (int i = 1; i < 4; i++)
      if (!strcmp(v, modes[i])) c->opts.fp_contract = i;
    if (!c->opts.fp_contract) return fail("--fp-contract wants fast, on or off, not '%s'", v);
  } else if (!strcmp(a, "--job-timeout")) {
    if (!(c->opts.job_timeout = parse_seconds(v)))
      return fail("--job-timeout wants seconds from 1 to 86400, not '%s'", v);
  }
  return 0;
}

/* One option without a value; 0, 1 when done (help, version), 2 on a usage error. */
static int parse_flag(cli *c, const char *a) {
  if (!strcmp(a, "-h") || !strcmp(a, "--help") || !strcmp(a, "--help-all")) {
    fputs(strcmp(a, "--help-all") ? usage : usage_all, stdout);
    return 1;
  } else if (!strcmp(a, "--version")) {
    printf("gpublob %s (%s)\n", gpublob_version(),
           gpublob_mlir_enabled() ? "LLVM IR and MLIR" : "LLVM IR only");
    return 1;
  } else if (a[0] == '-' && a[1] == 'O' && a[2] >= '0' && a[2] <= '3' && !a[3]) {
    c->opts.opt = GPUBLOB_OPT_O0 + (a[2] - '0');
  } else if (a[0] == '-' && a[1] == 'j' && a[2] >= '0' && a[2] <= '9') { /* -j4, as make takes it */
    return parse_valued(c, "-j", a + 2);
  } else if (!strcmp(a, "--emit-bytecode")) {
    c->opts.flags |= GPUBLOB_FLAG_MLIR_BYTECODE;
  } else if (!strcmp(a, "--tool-log")) {
    c->opts.flags |= GPUBLOB_FLAG_TOOL_LOG;
  } else if (!strcmp(a, "--no-default-search")) {
    c->opts.flags |= GPUBLOB_FLAG_NO_DEFAULT_SEARCH;
  } else if (!strcmp(a, "--retarget")) {
    c->opts.flags |= GPUBLOB_FLAG_RETARGET;
  } else if (!strcmp(a, "--backend-only")) {
    c->opts.flags |= GPUBLOB_FLAG_BACKEND_ONLY;
  } else if (!strcmp(a, "--isolate")) {
    c->opts.flags |= GPUBLOB_FLAG_ISOLATE;
  } else if (!strcmp(a, "--no-isolate")) {
    c->opts.flags &= ~(unsigned)GPUBLOB_FLAG_ISOLATE;
  } else if (!strcmp(a, "--ftz") || !strcmp(a, "--daz")) {
    c->opts.flags |= GPUBLOB_FLAG_FTZ;
  } else if (!strcmp(a, "--finite-only")) {
    c->opts.flags |= GPUBLOB_FLAG_FINITE_ONLY;
  } else if (!strcmp(a, "--unsafe-math")) {
    c->opts.flags |= GPUBLOB_FLAG_UNSAFE_MATH;
  } else if (!strcmp(a, "--unsafe-sqrt")) {
    c->opts.flags |= GPUBLOB_FLAG_UNSAFE_SQRT;
  } else if (!strcmp(a, "--fast-math")) {
    c->opts.flags |= GPUBLOB_FLAG_FAST_MATH;
  } else if (!strcmp(a, "--list-targets")) {
    c->list_targets = 1;
  } else if (!strcmp(a, "--no-cache")) {
    c->no_cache = 1;
  } else if (!strcmp(a, "--remote-read-only")) {
    c->opts.flags |= GPUBLOB_FLAG_REMOTE_READ_ONLY;
  } else if (!strcmp(a, "--time")) {
    c->time = 1;
  } else if (!strcmp(a, "--verbose")) {
    c->verbose = 1;
  } else if (a[0] == '-' && a[1]) {
    return fail("unknown option '%s' (see --help)", a);
  } else if (c->input) {
    return fail("more than one input ('%s')", a);
  } else {
    c->input = a;
  }
  return 0;
}

/* --cache-dir, else $GPUBLOB_CACHE_DIR (empty: off), else the XDG cache directory. */
static void choose_cache(cli *c) {
  const char *env = getenv("GPUBLOB_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  if (c->no_cache) return;
  if (!*c->cache_dir && env) snprintf(c->cache_dir, sizeof c->cache_dir, "%s", env);
  else if (!*c->cache_dir && xdg && *xdg) snprintf(c->cache_dir, sizeof c->cache_dir, "%s/gpublob", xdg);
  else if (!*c->cache_dir && home && *home) snprintf(c->cache_dir, sizeof c->cache_dir, "%s/.cache/gpublob", home);
  c->opts.cache_dir = *c->cache_dir ? c->cache_dir : NULL;
  /* the remote tier: --remote-cache, else $GPUBLOB_REMOTE_CACHE (a password may be in
  ** either's URL, or in $GPUBLOB_REMOTE_PASSWORD, which the library reads) */
  const char *remote = getenv("GPUBLOB_REMOTE_CACHE");
  c->opts.remote_cache = c->remote_cache ? c->remote_cache : remote;
}

/* Returns 0 to go on, 1 when done (help, version), 2 on a usage error. */
static int parse_args(cli *c, int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int rc = 0;
    if (takes_value(a) && i + 1 == argc) return fail("option %s needs a value", a);
    if (takes_value(a)) rc = parse_valued(c, a, argv[++i]);
    else rc = parse_flag(c, a);
    if (rc) return rc;
  }
  if (!c->input && !c->list_targets) return fail("%s", "no input (see --help)");
  for (size_t k = 0; k < c->opts.ntargets; k++) c->choices[k].features = c->opts.features;
  c->opts.targets = c->opts.ntargets ? c->choices : NULL;
  c->opts.tool_dirs = *c->tool_dirs ? c->tool_dirs : NULL;
  c->opts.lib_dirs = *c->lib_dirs ? c->lib_dirs : NULL;
  choose_cache(c);
  return 0;
}

/* ---- output: stdout, or temporary files renamed into place ---- */
static int write_all(int fd, const unsigned char *p, size_t n) {
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* A new temporary beside path, with the mode a new file gets (0666 under the
** umask): its descriptor, its name in *tmp (malloc'd; the signal handler's to
** remove from then on); -1 when none could be made. */
static int open_temp(const char *path, char **tmp) {
  size_t n = strlen(path);
  char *name = malloc(n + 16);
  if (!name) return -1;
  snprintf(name, n + 16, "%s.tmp-XXXXXX", path);
  sigset_t all, was; /* no signal between its making and its name's storing */
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, &was);
  int fd = mkstemp(name);
  if (fd >= 0) *tmp = name;
  sigprocmask(SIG_SETMASK, &was, NULL);
  if (fd < 0) {
    free(name);
    return -1;
  }
  mode_t mask = umask(0);
  umask(mask);
  if (fchmod(fd, 0666 & ~mask)) {
    close(fd);
    return -1; /* the caller removes *tmp */
  }
  return fd;
}

/* The blob into a new temporary beside path; its name in tmp (malloc'd). */
static int write_temp(const char *path, const gpublob_blob *b, char **tmp) {
  int fd = open_temp(path, tmp);
  if (fd < 0) return -1;
  int rc = write_all(fd, b->data, b->size);
  rc |= close(fd);
  return rc;
}

/* INPUT.ll -> INPUT with suffix beside it; stdin -> stdout. */
static char *default_output(const char *input, const char *suffix) {
  if (!strcmp(input, "-")) return strdup("-");
  const char *slash = strrchr(input, '/'), *dot = strrchr(input, '.');
  size_t stem = dot && (!slash || dot > slash) ? (size_t)(dot - input) : strlen(input);
  char *out = malloc(stem + strlen(suffix) + 1);
  if (out) sprintf(out, "%.*s%s", (int)stem, input, suffix);
  return out;
}

static void add_text(char *out, size_t size, const char *s, size_t n) {
  size_t len = strlen(out);
  snprintf(out + len, size - len, "%.*s", (int)n, s);
}

/* A pattern's {stem} {target} {chip} {suffix}; a pack's chips are joined by '+', and a
** target id's colons become '-' (gfx90a:xnack+ names saxpy.amdgcn.gfx90a-xnack+.hsaco):
** make, Windows and many shells read a colon in a file name specially. */
static void fill_pattern(const char *pat, const char *stem, size_t stemn, const gpublob_output *o,
                         char *out, size_t size) {
  out[0] = 0;
  while (*pat) {
    const char *close = *pat == '{' ? strchr(pat, '}') : NULL;
    size_t n = close ? (size_t)(close - pat + 1) : 1;
    if (n == 6 && !strncmp(pat, "{stem}", 6)) add_text(out, size, stem, stemn);
    else if (n == 8 && !strncmp(pat, "{target}", 8)) add_text(out, size, o->target, strlen(o->target));
    else if (n == 8 && !strncmp(pat, "{suffix}", 8)) add_text(out, size, o->blob.suffix, strlen(o->blob.suffix));
    else if (n == 6 && !strncmp(pat, "{chip}", 6)) {
      for (const char *c = o->chip; *c;) { /* each chip by the core's safe_chip_name, joined by '+' */
        size_t cn = strcspn(c, ",");
        safe_chip_name(out, size, c, cn);
        c += cn;
        if (*c && *++c) add_text(out, size, "+", 1);
      }
    } else add_text(out, size, pat, n);
    pat += n;
  }
}

static int is_dir(const char *p) {
  struct stat st;
  size_t n = strlen(p);
  return (n && p[n - 1] == '/') || (!stat(p, &st) && S_ISDIR(st.st_mode));
}

/* Where output i goes: -o as given (one output), -o DIR/ or -o PATTERN, or beside
** the input.  MLIR: INPUT.mlir -> INPUT.out.mlir (also in DIR/), since the suffix
** is the input's own. */
static char *output_path(const cli *c, const gpublob_result *r, size_t i, int mlir) {
  const gpublob_output *o = &r->outputs[i];
  int pattern = c->output && strchr(c->output, '{');
  const char *mlir_suffix = !strcmp(o->blob.suffix, ".mlirbc") ? ".out.mlirbc" : ".out.mlir";
  if (r->count == 1 && c->output && !pattern && !is_dir(c->output)) return strdup(c->output);
  if (r->count == 1 && !c->output) return default_output(c->input, !mlir ? o->blob.suffix : mlir_suffix);
  const char *slash = strrchr(c->input, '/'), *base = slash ? slash + 1 : c->input;
  const char *dot = strrchr(base, '.');
  size_t stemn = dot ? (size_t)(dot - base) : strlen(base);
  char pat[8192], *out = malloc(PATH_MAX);
  if (!out) return NULL;
  if (pattern) snprintf(pat, sizeof pat, "%s", c->output);
  else if (c->output) snprintf(pat, sizeof pat, "%s%s{stem}%s", c->output,
                               c->output[strlen(c->output) - 1] == '/' ? "" : "/",
                               mlir ? mlir_suffix : ".{target}.{chip}{suffix}");
  else snprintf(pat, sizeof pat, "%.*s{stem}.{target}.{chip}{suffix}", (int)(base - c->input), c->input);
  fill_pattern(pat, base, stemn, o, out, PATH_MAX);
  return out;
}

/* Several outputs need somewhere to go: a directory or a pattern, not one file. */
static int check_many(const cli *c, size_t n) {
  if (n < 2) return 0;
  if (!c->output ? !strcmp(c->input, "-") : !strcmp(c->output, "-"))
    return fail("%s", "several outputs cannot go to stdout: give -o DIR/ or -o PATTERN");
  if (c->output && !strchr(c->output, '{') && !is_dir(c->output))
    return fail("several outputs cannot go to the one file '%s': give -o DIR/ or -o PATTERN", c->output);
  return 0;
}

/* Outputs the options ask for: a chip each, or a pack per -t (MLIR: the module). */
static size_t outputs_asked(const cli *c, int mlir) {
  size_t n = 0;
  for (size_t i = 0; !mlir && i < c->opts.ntargets; i++) {
    const char *colon = strchr(c->choices[i].target, ':');
    n++;
    for (const char *p = colon; p && *p && c->opts.format != GPUBLOB_FORMAT_FATBIN; p++) n += *p == ',';
  }
  return n;
}

/* Every output's path, checked: not stdout for several, none twice, none the input. */
static int output_paths(const cli *c, const gpublob_result *r, int mlir, char **paths) {
  struct stat in_st, out_st;
  int have_in = strcmp(c->input, "-") && !stat(c->input, &in_st);
  if (check_many(c, r->count)) return 2;
  /* a name beside /dev/null, /dev/fd/63 or a FIFO would be a new file there; lstat: a
     link such as /dev/stdin to a regular file is no place for one either */
  struct stat link_st;
  if (!c->output && strcmp(c->input, "-") &&
      (!have_in || !S_ISREG(in_st.st_mode) || lstat(c->input, &link_st) || !S_ISREG(link_st.st_mode)))
    return fail("the input '%s' is not a regular file, so no output name can be made from it: give -o FILE "
                "(or -o - for standard output)", c->input);
  for (size_t i = 0; i < r->count; i++) {
    if (!(paths[i] = output_path(c, r, i, mlir))) return fail("%s", "out of memory");
    for (size_t k = 0; k < i; k++)
      if (!strcmp(paths[i], paths[k]))
        return fail("two outputs would be written to '%s': give -o PATTERN with {target} and {chip}", paths[i]);
    if (!strcmp(paths[i], "-") || stat(paths[i], &out_st)) continue;
    if (have_in && in_st.st_dev == out_st.st_dev && in_st.st_ino == out_st.st_ino)
      return fail("the output '%s' is the input; give -o", paths[i]);
    if (S_ISDIR(out_st.st_mode)) /* found now, not when renames have begun */
      return fail("the output '%s' is a directory", paths[i]);
  }
  return 0;
}

/* An existing output that is not a regular file (a device, a FIFO) is written
** into, as a shell's > would: replacing /dev/null by rename would be wrong. */
static int is_special(const char *path) {
  struct stat st;
  return strcmp(path, "-") && !stat(path, &st) && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

static int write_special(const char *path, const gpublob_blob *b) {
  int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return -1;
  int rc = write_all(fd, b->data, b->size), err = errno;
  if (close(fd) && !rc) rc = -1, err = errno;
  errno = err;
  return rc;
}

/* The temporaries in flight, for the signal handler to remove: set before each
** is made, cleared once renamed; and the directories this call made, in the
** order made (each after its parent), removed deepest first while still empty.
** Plain pointers read by a handler of this thread. */
static char *volatile *volatile pending_tmps;
static volatile size_t pending_count;
static char *volatile *volatile made_dirs;
static volatile size_t made_count;

static void remove_pending(void) {
  char *volatile *tmps = pending_tmps, *volatile *dirs = made_dirs;
  for (size_t i = 0; tmps && i < pending_count; i++)
    if (tmps[i]) unlink(tmps[i]);
  for (size_t i = made_count; dirs && i-- > 0;) rmdir(dirs[i]);
}

/* -o DIR/ and -o PATTERN make the directories their outputs need; -o FILE does not. */
static int makes_dirs(const cli *c) {
  return c->output && strcmp(c->output, "-") && (strchr(c->output, '{') || is_dir(c->output));
}

/* Every missing directory above path, as mkdir -p makes them (mode 0777 under
** the umask), each one recorded in made_dirs (room for it is there).  0, or -1
** with errno and the directory that could not be made in *bad (malloc'd). */
static int make_parents(const char *path, char **bad) {
  char *dir = strdup(path), *last = dir ? strrchr(dir, '/') : NULL;
  if (!dir) return -1;
  for (char *p = dir + 1; last && p <= last; p++) {
    if (*p != '/' || p[-1] == '/') continue;
    struct stat st;
    *p = 0;
    int ok = !stat(dir, &st) && S_ISDIR(st.st_mode), err = 0;
    if (!ok && !mkdir(dir, 0777)) {
      char *name = strdup(dir);
      if (!name) rmdir(dir), err = ENOMEM;
      else made_dirs[made_count] = name, made_count = made_count + 1; /* stored, then counted */
    } else if (!ok && (err = errno) == EEXIST) { /* a file where the directory goes, unless made meanwhile */
      err = !stat(dir, &st) && S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
    }
    if (err) {
      *bad = dir;
      errno = err;
      return -1;
    }
    *p = '/';
  }
  free(dir);
  return 0;
}

/* The directories of every output, before any is written; none left on failure. */
static int make_dirs(const cli *c, const gpublob_result *r, char **paths) {
  size_t room = 0;
  for (size_t i = 0; makes_dirs(c) && i < r->count; i++)
    for (const char *p = paths[i]; *p; p++) room += *p == '/';
  if (!room) return 0;
  char **dirs = calloc(room, sizeof *dirs);
  if (!dirs) return fail("%s", "out of memory"), 10 + GPUBLOB_IO;
  made_count = 0;
  made_dirs = dirs;
  for (size_t i = 0; i < r->count; i++) {
    char *bad = NULL;
    if (make_parents(paths[i], &bad)) {
      fprintf(stderr, "gpublob: error: cannot make the directory '%s': %s\n", bad ? bad : paths[i],
              strerror(errno));
      free(bad);
      return 10 + GPUBLOB_IO;
    }
  }
  return 0;
}

/* Removes the directories made for a call that failed (while empty), or just
** forgets them after one that succeeded. */
static void drop_made(int failed) {
  char **dirs = (char **)made_dirs;
  size_t n = made_count;
  if (failed)
    for (size_t i = n; dirs && i-- > 0;) rmdir(dirs[i]);
  made_dirs = NULL;
  made_count = 0;
  for (size_t i = 0; dirs && i < n; i++) free(dirs[i]);
  free(dirs);
}

static int write_one(const char *path, const gpublob_blob *b, char **tmp) {
  if (!strcmp(path, "-")) return write_all(1, b->data, b->size);
  if (is_special(path)) return 0; /* written after every temporary is */
  return write_temp(path, b, tmp);
}

/* The blob of file k of a call's writes: its outputs, then the --emit-c header. */
static const gpublob_blob *written_blob(const gpublob_result *r, const gpublob_blob *header, size_t k) {
  return k < r->count ? &r->outputs[k].blob : header;
}

/* All temporaries first, then the renames: a failure leaves no output behind.  The
** --emit-c header is one more file of the same writes. */
static int write_outputs(const cli *c, const gpublob_result *r, int mlir, const gpublob_blob *header) {
  size_t count = r->count + (c->emit_c != NULL);
  char **paths = calloc(count + 1, sizeof *paths), **tmps = calloc(count + 1, sizeof *tmps);
  int rc = !paths || !tmps ? fail("%s", "out of memory") : output_paths(c, r, mlir, paths);
  if (!rc && c->emit_c && !(paths[r->count] = strdup(c->emit_c))) rc = fail("%s", "out of memory");
  for (size_t k = 0; !rc && c->emit_c && k < r->count; k++)
    if (!strcmp(paths[k], c->emit_c)) rc = fail("--emit-c '%s' is also an output's path", c->emit_c);
  if (rc) rc = rc == 2 ? 10 + GPUBLOB_IO : rc;
  if (!rc) rc = make_dirs(c, r, paths);
  pending_count = count;
  pending_tmps = tmps;
  for (size_t i = 0; !rc && i < count; i++)
    if (write_one(paths[i], written_blob(r, header, i), &tmps[i])) {
      fprintf(stderr, "gpublob: error: cannot write '%s': %s\n", paths[i], strerror(errno));
      rc = 10 + GPUBLOB_IO;
    }
  for (size_t k = 0; !rc && k < count; k++)
    if (tmps[k] ? rename(tmps[k], paths[k]) : is_special(paths[k]) && write_special(paths[k], written_blob(r, header, k))) {
      fprintf(stderr, "gpublob: error: cannot write '%s': %s\n", paths[k], strerror(errno));
      rc = 10 + GPUBLOB_IO;
    } else if (tmps[k]) {
      char *done = tmps[k];
      tmps[k] = NULL; /* renamed: no longer the handler's to remove */
      free(done);
    }
  for (size_t k = 0; k < count; k++) {
    if (tmps && tmps[k] && rc) unlink(tmps[k]);
    if (!rc && strcmp(paths[k], "-"))
      fprintf(stderr, "gpublob: wrote %s (%zu bytes)\n", paths[k], written_blob(r, header, k)->size);
    if (paths) free(paths[k]);
    if (tmps) free(tmps[k]);
  }
  pending_tmps = NULL;
  pending_count = 0;
  drop_made(rc != 0);
  free(paths);
  free(tmps);
  return rc;
}

/* ---- kernels: --metadata FILE (JSON) and --verbose, read from the blobs ---- */
typedef struct text {
  char *s;
  size_t len, cap;
  int oom;
} text;

static void text_addf(text *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (t->oom || n < 0) return;
  if (t->len + (size_t)n + 1 > t->cap) {
    size_t cap = (t->len + (size_t)n + 1) * 2;
    char *s = realloc(t->s, cap);
    if (!s) {
      t->oom = 1;
      return;
    }
    t->s = s;
    t->cap = cap;
  }
  va_start(ap, fmt);
  vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
  va_end(ap);
  t->len += (size_t)n;
}

/* A JSON string: quotes, backslashes and control characters escaped. */
static void json_str(text *t, const char *s) {
  text_addf(t, "\"");
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\') text_addf(t, "\\%c", ch);
    else if (ch < 0x20) text_addf(t, "\\u%04x", ch);
    else text_addf(t, "%c", ch);
  }
  text_addf(t, "\"");
}

/* A figure, null when the blob does not record it. */
static void json_num(text *t, const char *key, long long v) {
  if (v < 0) text_addf(t, ", \"%s\": null", key);
  else text_addf(t, ", \"%s\": %lld", key, v);
}

static void json_kernel(text *t, const gpublob_kernel_info *k) {
  text_addf(t, "{\"name\": ");
  json_str(t, k->name);
  text_addf(t, ", \"chip\": ");
  json_str(t, k->chip);
  json_num(t, "registers", k->registers);
  json_num(t, "spills", k->spills);
  json_num(t, "shared_bytes", k->shared_bytes);
  json_num(t, "local_bytes", k->local_bytes);
  json_num(t, "max_threads", k->max_threads);
  json_num(t, "params_bytes", k->params_bytes);
  const struct { const char *key; long long v; } extra[] = {
      {"sgprs", k->sgprs}, {"agprs", k->agprs}, {"vgpr_spills", k->vgpr_spills},
      {"sgpr_spills", k->sgpr_spills}, {"wave_size", k->wave_size}};
  for (size_t i = 0; i < sizeof extra / sizeof *extra; i++)
    if (extra[i].v >= 0) json_num(t, extra[i].key, extra[i].v);
  if (k->reqd_threads[0])
    text_addf(t, ", \"reqd_threads\": [%lld, %lld, %lld]", k->reqd_threads[0], k->reqd_threads[1], k->reqd_threads[2]);
  text_addf(t, "}");
}

/* One ptxas -v-like line: the figures the blob records. */
static void verbose_kernel(const gpublob_output *o, const gpublob_kernel_info *k) {
  char line[1024];
  int n = snprintf(line, sizeof line, "gpublob: %s (%s %s):", k->name, o->target, k->chip);
  const struct { long long v; const char *fmt; } part[] = {
      {k->registers, " %lld registers,"}, {k->sgprs, " %lld sgprs,"}, {k->agprs, " %lld agprs,"},
      {k->spills, " %lld spills,"}, {k->shared_bytes, " %lld bytes shared,"}, {k->local_bytes, " %lld bytes stack,"},
      {k->params_bytes, " %lld bytes params,"}, {k->max_threads, " max %lld threads,"},
      {k->wave_size, " wave %lld,"}};
  for (size_t i = 0; i < sizeof part / sizeof *part; i++)
    if (part[i].v >= 0 && n > 0 && (size_t)n < sizeof line) n += snprintf(line + n, sizeof line - (size_t)n, part[i].fmt, part[i].v);
  if (k->reqd_threads[0] && n > 0 && (size_t)n < sizeof line)
    n += snprintf(line + n, sizeof line - (size_t)n, " required %lldx%lldx%lld threads,", k->reqd_threads[0],
                  k->reqd_threads[1], k->reqd_threads[2]);
  if (n > 0 && (size_t)n < sizeof line && line[n - 1] == ',') line[n - 1] = 0;
  fprintf(stderr, "%s\n", line);
}

/* The kernels of every output: --verbose lines, and --metadata's JSON into *json.
** An output that records none (assembly, bitcode, MLIR's module) has "kernels": null;
** a blob its reader refuses fails (its code), before any output is written. */
static int read_kernels(gpublob *g, const cli *c, const gpublob_result *r, text *json) {
  text_addf(json, "{\"outputs\": [");
  for (size_t i = 0; i < r->count; i++) {
    const gpublob_output *o = &r->outputs[i];
    size_t n = 0;
    int rc = gpublob_kernel_count(g, r, i, &n);
    if (rc && rc != GPUBLOB_FORMAT) {
      fprintf(stderr, "gpublob: error: kernel metadata of %s %s: %s\n", o->target, o->chip, gpublob_error_message(g));
      return 10 + rc;
    }
    text_addf(json, "%s\n  {\"target\": ", i ? "," : "");
    json_str(json, o->target);
    text_addf(json, ", \"chip\": ");
    json_str(json, o->chip);
    text_addf(json, rc ? ", \"kernels\": null}" : ", \"kernels\": [");
    for (size_t k = 0; !rc && k < n; k++) {
      gpublob_kernel_info info;
      if ((rc = gpublob_kernel_get(g, r, i, k, &info, sizeof info))) {
        fprintf(stderr, "gpublob: error: kernel metadata: %s\n", gpublob_error_message(g));
        return 10 + rc;
      }
      text_addf(json, "%s\n    ", k ? "," : "");
      json_kernel(json, &info);
      if (c->verbose) verbose_kernel(o, &info);
    }
    if (!rc) text_addf(json, "%s]}", n ? "\n  " : "");
  }
  text_addf(json, "\n]}\n");
  return json->oom ? fail("%s", "out of memory") : 0;
}

/* --metadata's file, written as the outputs are: a temporary renamed into place. */
static int write_metadata(const cli *c, const text *json) {
  const gpublob_blob b = {(unsigned char *)json->s, json->len, ".json"};
  char *tmp[1] = {NULL};
  pending_tmps = tmp; /* the signal handler's to remove until renamed */
  pending_count = 1;
  int rc = write_one(c->metadata, &b, &tmp[0]);
  if (!rc && tmp[0]) rc = rename(tmp[0], c->metadata);
  else if (!rc && is_special(c->metadata)) rc = write_special(c->metadata, &b);
  if (rc) fprintf(stderr, "gpublob: error: cannot write '%s': %s\n", c->metadata, strerror(errno));
  char *done = tmp[0];
  tmp[0] = NULL;
  pending_tmps = NULL;
  pending_count = 0;
  if (rc && done) unlink(done);
  free(done);
  return rc ? 10 + GPUBLOB_IO : 0;
}

/* ---- --emit-c: every output as a C array, and a table of its kernels ---- */
/* NAME: the input's stem, the target and the chip, each made a part of a C
** identifier (c_name_part: gfx90a:xnack+ -> gfx90a_xnack_plus), joined by '_';
** MLIR's one output is the stem alone.  A name an earlier output has gets _2, _3. */
enum { C_NAME = 512 };

static void c_name_of(const cli *c, const gpublob_output *o, char *name) {
  const char *stem;
  size_t n = name_stem(strcmp(c->input, "-") ? c->input : "stdin", &stem);
  name[0] = 0;
  c_name_part(name, C_NAME - 16, stem, n);
  if (!*name) name_put(name, C_NAME - 16, "blob");
  for (const char *part[] = {o->target, o->chip, NULL}, **p = part; *p; p++)
    if (**p) {
      name_put(name, C_NAME - 16, "_");
      c_name_part(name, C_NAME - 16, *p, strlen(*p));
    }
}

/* A C string literal: quotes, backslashes and any byte outside printable ASCII as \ooo. */
static void c_string(text *t, const char *s) {
  text_addf(t, "\"");
  for (; *s; s++)
    if (*s == '"' || *s == '\\' || *s < 0x20 || *s > 0x7e) text_addf(t, "\\%03o", (unsigned char)*s);
    else text_addf(t, "%c", *s);
  text_addf(t, "\"");
}

/* Output i's kernels, by the public API (gpublob_kernel_get): an empty table where the
** blob records none (FORMAT: PTX, SPIR-V, MLIR's module) or the call fails. */
static void c_kernels(text *f, gpublob *g, const gpublob_result *r, size_t i, const char *name) {
  size_t n = 0;
  if (gpublob_kernel_count(g, r, i, &n)) n = 0;
  text_addf(f, "static const gpublob_emitted_kernel %s_kernels[%s] = {\n", name, n ? "" : "1");
  size_t shown = 0;
  for (size_t k = 0; k < n; k++) {
    gpublob_kernel_info ki;
    if (gpublob_kernel_get(g, r, i, k, &ki, sizeof ki)) continue;
    text_addf(f, "    {");
    c_string(f, ki.name);
    text_addf(f, ", ");
    c_string(f, ki.chip);
    text_addf(f, ", %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, {%lld, %lld, %lld}},\n",
            ki.registers, ki.sgprs, ki.agprs, ki.spills, ki.vgpr_spills, ki.sgpr_spills, ki.shared_bytes,
            ki.local_bytes, ki.max_threads, ki.params_bytes, ki.wave_size, ki.reqd_threads[0],
            ki.reqd_threads[1], ki.reqd_threads[2]);
    shown++;
  }
  if (!shown) text_addf(f, "    {0}\n");
  text_addf(f, "};\nstatic const size_t %s_kernel_count = %zu;\n", name, shown);
}

static const char c_kernel_type[] =
    "#ifndef GPUBLOB_EMITTED_KERNEL\n"
    "#define GPUBLOB_EMITTED_KERNEL\n"
    "/* A kernel of a blob, as the blob records it (gpublob_kernel_info); -1: not recorded. */\n"
    "typedef struct gpublob_emitted_kernel {\n"
    "  const char *name, *chip;\n"
    "  long long registers, sgprs, agprs, spills, vgpr_spills, sgpr_spills;\n"
    "  long long shared_bytes, local_bytes, max_threads, params_bytes, wave_size;\n"
    "  long long reqd_threads[3];\n"
    "} gpublob_emitted_kernel;\n"
    "#endif\n";

/* The header's text (malloc'd) into *b: each output's bytes as NAME[] and NAME_size,
** then its kernels as NAME_kernels[] and NAME_kernel_count.  0, or 2 (a message said). */
static int c_header(const cli *c, gpublob *g, const gpublob_result *r, gpublob_blob *b) {
  char (*names)[C_NAME] = calloc(r->count + 1, sizeof *names), guard[C_NAME] = "";
  text f = {0};
  if (!names) return fail("%s", "out of memory");
  const char *stem;
  size_t n = name_stem(c->emit_c, &stem);
  c_name_part(guard, sizeof guard, stem, n);
  for (char *p = guard; *p; p++) *p = (char)toupper((unsigned char)*p);
  text_addf(&f, "/* %.*s.h: made by gpublob %s --emit-c from %s.  Each output is NAME[] and NAME_size,\n"
            "** and its kernels NAME_kernels[] (NAME_kernel_count of them). */\n#ifndef GPUBLOB_EMIT_%s_H\n"
            "#define GPUBLOB_EMIT_%s_H\n#include <stddef.h>\n%s", (int)n, stem, gpublob_version(), c->input,
            guard, guard, c_kernel_type);
  text_addf(&f, "#if defined(__GNUC__)\n#pragma GCC diagnostic push\n#pragma GCC diagnostic ignored \"-Wunused-variable\"\n"
            "#pragma GCC diagnostic ignored \"-Wunused-const-variable\"\n#endif\n");
  for (size_t i = 0; i < r->count; i++) {
    const gpublob_output *o = &r->outputs[i];
    c_name_of(c, o, names[i]);
    size_t base = strlen(names[i]);
    for (unsigned k = 2;; k++) {
      size_t same = 0;
      while (same < i && strcmp(names[same], names[i])) same++;
      if (same == i) break;
      snprintf(names[i] + base, C_NAME - base, "_%u", k);
    }
    text_addf(&f, "\n/* %s%s%s (%s): %zu bytes, %s */\nstatic const unsigned char %s[] = {",
              *o->target ? o->target : "MLIR", *o->chip ? " " : "", o->chip, *o->tool ? o->tool : "gpublob",
              o->blob.size, o->blob.suffix ? o->blob.suffix : "", names[i]);
    for (size_t k = 0; k < o->blob.size; k++) text_addf(&f, "%s0x%02x,", k % 12 ? " " : "\n    ", o->blob.data[k]);
    text_addf(&f, "%s};\nstatic const size_t %s_size = %zu;\n", o->blob.size ? "\n" : "0\n", names[i], o->blob.size);
    c_kernels(&f, g, r, i, names[i]);
  }
  text_addf(&f, "\n#if defined(__GNUC__)\n#pragma GCC diagnostic pop\n#endif\n#endif\n");
  free(names);
  if (f.oom) {
    free(f.s);
    return fail("%s", "out of memory");
  }
  *b = (gpublob_blob){(unsigned char *)f.s, f.len, ".h"};
  return 0;
}

/* The outputs, with their kernels when asked: read first, so a refused blob leaves nothing written. */
static int write_results(gpublob *g, const cli *c, const gpublob_result *r, int mlir) {
  text json = {0};
  gpublob_blob header = {0};
  int rc = c->metadata || c->verbose ? read_kernels(g, c, r, &json) : 0;
  if (!rc && c->emit_c && (rc = c_header(c, g, r, &header))) rc = 10 + GPUBLOB_IO;
  if (!rc) rc = write_outputs(c, r, mlir, &header);
  if (!rc && c->metadata) rc = write_metadata(c, &json);
  free(json.s);
  free(header.data);
  return rc;
}

/* ---- signals: no output and no temporary file is left, and the exit is below 128 ---- */
static volatile sig_atomic_t stderr_fd = 2; /* where say() writes: stderr, also while a call's is caught */
static volatile sig_atomic_t stray_fd = -1; /* the memory file catching the call's stderr, or -1 */

/* What the call wrote to its caught stderr, copied to the real one: a crash's or a
** fatal error's last words.  System calls only (a signal handler calls it). */
static void stray_flush(void) {
  int from = stray_fd;
  char buf[4096];
  ssize_t n;
  if (from < 0 || lseek(from, 0, SEEK_SET) < 0) return;
  while ((n = read(from, buf, sizeof buf)) > 0)
    if (write(stderr_fd, buf, (size_t)n) < 0) break;
}

static void say(const char *a, const char *b) {
  int fd = stderr_fd;
  if (write(fd, a, strlen(a)) < 0 || write(fd, b, strlen(b)) < 0 || write(fd, "\n", 1) < 0) {}
  stray_flush();
}

static const char *signal_name(int sig) {
  switch (sig) {
  case SIGINT: return "SIGINT";
  case SIGTERM: return "SIGTERM";
  case SIGHUP: return "SIGHUP";
  case SIGSEGV: return "SIGSEGV";
  case SIGBUS: return "SIGBUS";
  case SIGILL: return "SIGILL";
  case SIGFPE: return "SIGFPE";
  case SIGABRT: return "SIGABRT";
  default: return "a signal";
  }
}

static volatile sig_atomic_t isolating; /* for the crash message */

/* Every tool and helper gone, every temporary removed, then out. */
static void on_signal(int sig) {
  gpublob_process_cleanup();
  remove_pending();
  int crash = sig != SIGINT && sig != SIGTERM && sig != SIGHUP;
  say(!crash ? "gpublob: error: interrupted by "
      : isolating ? "gpublob: error: crashed in this process (MLIR's parsing, lowering and translation "
                    "are not isolated): "
                  : "gpublob: error: LLVM crashed in this process (--isolate would have kept it out): ",
      signal_name(sig));
  _exit(10 + (crash ? GPUBLOB_BACKEND : GPUBLOB_INTERRUPTED));
}

static void catch_signals(void) {
  static char alt[65536]; /* a stack overflow's SIGSEGV needs a stack of its own */
  stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt};
  sigaltstack(&ss, NULL);
  struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_ONSTACK};
  sigfillset(&sa.sa_mask);
  const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
  for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) sigaction(sigs[i], &sa, NULL);
  signal(SIGXFSZ, SIG_IGN); /* a file size limit: a write fails with EFBIG, an IO error */
  signal(SIGPIPE, SIG_IGN); /* a reader of -o - that quit: EPIPE, an IO error, not exit 141 */
}

/* ---- input: read whole, then MLIR or LLVM IR by suffix, magic or first word ---- */
/* Reads to EOF or one byte past max: the library refuses an input over the limit
** (--max-input) with its own message, and an endless one (/dev/zero) ends. */
static int read_all_fd(int fd, unsigned char **data, size_t *size, unsigned long long max) {
  size_t cap = 1 << 16, n = 0;
  unsigned char *p = malloc(cap);
  for (ssize_t r = 1; p && r && n <= max;) {
    if (n == cap) {
      unsigned char *grown = realloc(p, cap *= 2);
      if (!grown) free(p);
      if (!(p = grown)) break;
    }
    size_t room = cap - n, left = (size_t)(max + 1 - n); /* never more than one byte past max */
    r = read(fd, p + n, room < left ? room : left);
    if (r < 0 && errno != EINTR) {
      free(p);
      return -1;
    }
    if (r > 0) n += (size_t)r;
  }
  if (!p) return -1;
  *data = p;
  *size = n;
  return 0;
}

static int read_input(const cli *c, unsigned char **data, size_t *size) {
  const char *path = c->input;
  int is_stdin = !strcmp(path, "-"), fd = is_stdin ? 0 : open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  int rc = read_all_fd(fd, data, size, c->opts.max_input ? c->opts.max_input : 1ULL << 30);
  int err = errno;
  if (!is_stdin) close(fd);
  errno = err;
  return rc;
}

/* As the library's AUTO takes it: by content, then by name. */
static int is_mlir(const char *path, const unsigned char *p, size_t n) {
  return gpublob_input_detect(p, n, path) == GPUBLOB_INPUT_MLIR;
}

#if !GPUBLOB_FRONT
/* What LLVM and MLIR write to stderr themselves during a call (cl::opt's "for the
** --index-bitwidth option: ..." when a pass option does not parse, a dump before an
** error), outside gpublob's message: caught in a memory file while the call runs, and
** printed after the call's own first line, so that an error is still stderr's first. */
typedef struct stray {
  int saved, file;
} stray;

static stray stray_begin(void) {
  stray s = {-1, -1};
  fflush(stderr);
  s.file = memfd_create("gpublob-stderr", MFD_CLOEXEC);
  s.saved = s.file < 0 ? -1 : fcntl(2, F_DUPFD_CLOEXEC, 3);
  if (s.saved < 0 || dup2(s.file, 2) < 0) {
    if (s.saved >= 0) close(s.saved);
    if (s.file >= 0) close(s.file);
    return (stray){-1, -1};
  }
  stderr_fd = s.saved;
  stray_fd = s.file;
  return s;
}

/* stderr back, before anything is printed. */
static void stray_end(stray *s) {
  if (s->file < 0) return;
  fflush(stderr);
  dup2(s->saved, 2);
  stderr_fd = 2;
  stray_fd = -1;
  close(s->saved);
  s->saved = -1;
}

/* What was caught, as it was written, after the call's own lines. */
static void stray_print(stray *s) {
  if (s->file < 0) return;
  char buf[4096];
  ssize_t n;
  fflush(stderr);
  lseek(s->file, 0, SEEK_SET);
  while ((n = read(s->file, buf, sizeof buf)) > 0)
    if (write(2, buf, (size_t)n) < 0) break;
  close(s->file);
  s->file = -1;
}

static void print_warnings(gpublob *g) {
  const char *w = gpublob_warnings(g);
  while (*w) {
    const char *nl = strchr(w, '\n');
    size_t n = nl ? (size_t)(nl - w) : strlen(w);
    fprintf(stderr, "gpublob: warning: %.*s\n", (int)n, w);
    w += n + (nl != NULL);
  }
}

#endif

static void print_time(gpublob *g, const char *who, int remote) {
  gpublob_stats s;
  gpublob_stats_get(g, &s, sizeof s);
  double phases = s.load_ms + s.link_ms + s.optimise_ms + s.emit_ms + s.tool_ms;
  fprintf(stderr,
          "gpublob: time (%s): %zu jobs on %zu threads; cache %zu hits, %zu misses, %zu stored; "
          "wall %.2f ms; load %.2f, link %.2f, optimise %.2f, emit %.2f, tool %.2f, cache %.2f ms "
          "(phases sum %.2f ms); provider load %.2f ms, tool CPU %.2f ms\n",
          who, s.jobs, s.threads, s.cache_hits, s.cache_misses, s.cache_writes, s.wall_ms, s.load_ms,
          s.link_ms, s.optimise_ms, s.emit_ms, s.tool_ms, s.cache_ms, phases, s.provider_load_ms, s.tool_cpu_ms);
  if (remote)
    fprintf(stderr,
            "gpublob: time (%s): remote cache %zu hits, %zu misses, %zu stored, %llu bytes read, "
            "%llu written, %.2f ms%s\n",
            who, s.remote_hits, s.remote_misses, s.remote_stores, s.remote_bytes_read, s.remote_bytes_written,
            s.remote_ms, s.remote_errors ? " (off after a fault)" : "");
}

#if !GPUBLOB_FRONT
/* ---- --list-targets ---- */
static void print_tool(gpublob *g, const cli *c, const char *target, int mode, const char *label) {
  gpublob_options o = c->opts;
  o.target = target;
  o.targets = NULL;
  o.ntargets = 0;
  o.tool_mode = mode;
  gpublob_tool_info t;
  int rc = gpublob_tool_info_get(g, &o, 1, &t, sizeof t);
  if (mode == GPUBLOB_TOOL_INPROCESS && c->opts.tool_mode != mode && (rc || strcmp(t.kind, "in-process")))
    return; /* a target without a provider, or none found: the line above says it all */
  if (rc) printf("    %s: not found\n", label);
  else if (!strcmp(t.kind, "none")) printf("    %s: none needed\n", label);
  else printf("    %s: %s (%s)\n", label, t.path, t.kind);
}

/* The valid chips (the spec's chips), wrapped to 80 columns under "  chips:". */
static void print_chips(const char *chips) {
  int col = printf("  chips:");
  for (const char *p = chips; *(p += strspn(p, " "));) {
    int n = (int)strcspn(p, " ");
    if (col > 8 && col + 1 + n > 80) col = printf("\n%8s", "") - 1;
    col += printf(" %.*s", n, p);
    p += n;
  }
  putchar('\n');
}

/* The device libraries of the target's default chip: each found, or why not. */
static void print_libs(gpublob *g, const cli *c, const char *target, const char *chip) {
  gpublob_options o = c->opts;
  o.target = target;
  o.chip = NULL;
  o.targets = NULL;
  o.ntargets = 0;
  const char *paths;
  int rc = gpublob_libs_find(g, &o, &paths);
  printf("  device libraries (%s):%s\n", chip, *paths || rc ? "" : " none");
  for (const char *p = paths; *p;) {
    size_t n = strcspn(p, "\n");
    printf("    found: %.*s\n", (int)n, p);
    p += n + (p[n] == '\n');
  }
  if (rc) printf("    missing: %s\n", gpublob_error_message(g));
}

/* A target: its line, then one section each, indented: its chips, its blob tool
** (in the call's tool mode, and in-process where the spec names a provider).  A section about the device libraries (whether each
** is found, and where) goes after the blob tool's, in the same form. */
static int list_targets(gpublob *g, const cli *c) {
  printf("%-8s %-26s %-8s %-21s %-14s %s\n", "target", "triple", "chip", "formats", "attribute",
         "mlir target");
  for (int i = 0; i < gpublob_target_count(); i++) {
    gpublob_target_info t;
    gpublob_target_get(i, &t, sizeof t);
    gpublob_options o = c->opts;
    o.target = t.name;
    o.format = GPUBLOB_FORMAT_FATBIN;
    o.targets = NULL;
    o.ntargets = 0;
    gpublob_tool_info probe;
    int fatbin = gpublob_tool_info_get(g, &o, 1, &probe, sizeof probe) != GPUBLOB_FORMAT;
    char mlir[64];
    snprintf(mlir, sizeof mlir, "%s%s", *t.mlir_target ? "#" : "", *t.mlir_target ? t.mlir_target : "-");
    printf("%-8s %-26s %-8s %-21s %-14s %s\n", t.name, t.triple, t.chip,
           fatbin ? "llvm,ll,asm,bin,pack" : "llvm,ll,asm,bin", t.attribute, mlir);
    print_chips(t.chips);
    printf("  blob tool (%s):\n", t.tool_kind);
    print_tool(g, c, t.name, c->opts.tool_mode, "this call's mode");
    if (c->opts.tool_mode != GPUBLOB_TOOL_INPROCESS) print_tool(g, c, t.name, GPUBLOB_TOOL_INPROCESS, "in-process");
    if (c->opts.tool_mode != GPUBLOB_TOOL_PROGRAM) print_tool(g, c, t.name, GPUBLOB_TOOL_PROGRAM, "program");
    print_libs(g, c, t.name, t.chip);
  }
  return 0;
}

/* ---- compile ---- */
static int compile_input(gpublob *g, const cli *c, gpublob_result *r, int *mlir) {
  unsigned char *data;
  size_t size;
  if (read_input(c, &data, &size)) {
    fprintf(stderr, "gpublob: error: cannot read '%s': %s\n", c->input, strerror(errno));
    return 10 + GPUBLOB_IO;
  }
  const char *name = strcmp(c->input, "-") ? c->input : "<stdin>";
  *mlir = is_mlir(c->input, data, size);
  int rc;
  if (check_many(c, outputs_asked(c, *mlir))) {
    free(data);
    return 2;
  }
  const gpublob_input in = {*mlir ? GPUBLOB_INPUT_MLIR : GPUBLOB_INPUT_LLVM, data, size, NULL, name};
  stray caught = stray_begin();
  rc = gpublob_compile(g, &c->opts, &in, r);
  free(data);
  stray_end(&caught); /* stderr is stderr again before anything is printed */
  /* the error is stderr's first line; the call's warnings, and what LLVM wrote, follow it */
  if (rc) fprintf(stderr, "gpublob: error: %s\n", gpublob_error_message(g));
  print_warnings(g);
  stray_print(&caught);
  if (c->remote_fault) fprintf(stderr, "gpublob: warning: %s\n", c->remote_fault);
  if (c->time) print_time(g, "compiler", c->opts.remote_cache && *c->opts.remote_cache);
  return rc ? 10 + gpublob_error_code(g) : 0;
}

/* An LLVM fatal error in this process (--no-isolate, or MLIR's translation) ends it: cleanly. */
static void on_llvm_fatal(const char *reason) {
  gpublob_process_cleanup();
  remove_pending();
  say(isolating ? "gpublob: error: LLVM fatal error in this process: "
                : "gpublob: error: LLVM fatal error (--isolate would have kept it out): ", reason);
  _exit(10 + GPUBLOB_BACKEND);
}

/* A compile allocates and frees tens of megabytes a job (LLVM's modules, nvJitLink's
** buffers).  glibc's defaults hand freed memory back to the kernel at once, and the
** next job faults every page in again: on a virtual machine a fault costs
** microseconds, and the 16 x 2 batch took 49,000 to 79,000 of them.  This short-lived
** process keeps what it frees instead (heap growth padded by 64 MiB, no trimming
** below 1 GiB): 10,800 faults, and 0.70 s instead of 1.03 to 1.30 s in-process
** (docs/benchmarks.md).  A host that links the library chooses its own malloc
** settings (docs/library.md). */
static void malloc_keep_freed(void) {
  mallopt(M_TOP_PAD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
}

int main(int argc, char **argv) {
  cli c = {.opts = {.version = GPUBLOB_OPTIONS_VERSION, .flags = CLI_DEFAULT_FLAGS}};
  int rc = parse_args(&c, argc, argv);
  if (rc) return rc == 1 ? 0 : 2;
  malloc_keep_freed();
  /* The front found the remote tier down (its one timeout is spent): warn, and go on
  ** without it. */
  if ((c.remote_fault = getenv("GPUBLOB_REMOTE_FAULT"))) c.opts.remote_cache = NULL;
  isolating = (c.opts.flags & GPUBLOB_FLAG_ISOLATE) != 0;
  catch_signals();
  gpublob *g;
  if (gpublob_open(&g)) return fail("%s", "out of memory");
  LLVMInstallFatalErrorHandler(on_llvm_fatal);
  if (c.list_targets) {
    rc = list_targets(g, &c);
    gpublob_close(g);
    return rc;
  }
  gpublob_result r = {0};
  int mlir = 0;
  if (!(rc = compile_input(g, &c, &r, &mlir))) rc = write_results(g, &c, &r, mlir);
  /* Everything is written: skip LLVM's static destructors, and the wait for the
  ** isolation helper, which ends when this process closes its socket. */
  fflush(NULL);
  _exit(rc);
}

#else /* GPUBLOB_FRONT */
/* ---- the front: a cache hit here, anything else in gpublob-compiler ---- */
static int run_compiler(char **argv) {
  char self[PATH_MAX], path[PATH_MAX + 32];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n < 0) return fail("cannot find this program (/proc/self/exe): %s", strerror(errno));
  self[n] = 0;
  char *slash = strrchr(self, '/');
  snprintf(path, sizeof path, "%.*s/gpublob-compiler", (int)(slash ? slash - self : 0), self);
  argv[0] = path;
  execv(path, argv);
  return fail("cannot run the compiler: %s", path);
}

/* The remote tier failed in the front's lookup (down, hung, refused): the compiler
** is told, so that it warns once for the call and does not wait on it again. */
static void remote_fault_pass_on(const char *warnings) {
  const char *w = strstr(warnings, "remote cache ");
  if (!w) return;
  char line[1024];
  snprintf(line, sizeof line, "%.*s", (int)strcspn(w, "\n"), w);
  setenv("GPUBLOB_REMOTE_FAULT", line, 1);
}

/* One output asked for, to -o FILE, a regular file or none yet and not the input,
** and nothing read from the blob (no --metadata, --verbose or --emit-c): a hit is
** streamed into it. */
static int streams_to_file(const cli *c, int mlir, const struct stat *in_st) {
  struct stat st;
  if (!c->output || !strcmp(c->output, "-") || strchr(c->output, '{') || is_dir(c->output) ||
      c->metadata || c->verbose || c->emit_c || outputs_asked(c, mlir) > 1)
    return 0;
  if (stat(c->output, &st)) return errno == ENOENT;
  return S_ISREG(st.st_mode) && !(st.st_dev == in_st->st_dev && st.st_ino == in_st->st_ino);
}

/* The streamed hit's temporary, made at its first bytes: a miss touches no directory. */
typedef struct temp_sink {
  const char *path;
  char **tmp;
  int fd;
} temp_sink;

static int write_to_temp(void *ctx, const void *bytes, size_t size) {
  temp_sink *t = ctx;
  if (t->fd < 0 && (t->fd = open_temp(t->path, t->tmp)) < 0) return -1;
  return write_all(t->fd, bytes, size);
}

/* A hit of one output streamed into a temporary beside -o FILE as the cache's bytes
** are read, and renamed into place once the lookup has checked them: a 665 KB
** module is never held whole (its fresh pages cost more than the copy).  1 when
** written; 2 a hit that could not be put in place (said); 0 when the temporary
** could not be made (the caller looks up as usual, and says why it cannot write);
** -1 for a miss or anything else, the temporary (if made) removed. */
static int lookup_streamed(const cli *c, gpublob *g, const gpublob_input *in, gpublob_result *r) {
  char *tmps[1] = {NULL};
  catch_signals(); /* the temporary is the handler's to remove until renamed */
  pending_tmps = tmps;
  pending_count = 1;
  temp_sink t = {c->output, &tmps[0], -1};
  int rc = gpublob_cache_lookup_stream(g, &c->opts, in, r, write_to_temp, &t);
  int bad = rc || r->count != 1 || t.fd < 0;
  if (t.fd >= 0) bad |= close(t.fd);
  int placed = !bad && !rename(tmps[0], c->output);
  if (!bad && !placed) /* as write_outputs reports it */
    fprintf(stderr, "gpublob: error: cannot write '%s': %s\n", c->output, strerror(errno));
  if (!placed && tmps[0]) unlink(tmps[0]);
  if (bad) gpublob_result_free(r);
  pending_tmps = NULL;
  pending_count = 0;
  int unmade = rc == GPUBLOB_IO && t.fd < 0; /* its temporary could not be made */
  free(tmps[0]);
  return placed ? 1 : !bad ? 2 : unmade ? 0 : -1;
}

/* 0 and the outputs on a hit; 1 on a hit already written (streamed), 2 on one that
** could not be (said); -1 for anything else. */
static int lookup(const cli *c, gpublob_result *r, int *mlir) {
  unsigned char *data;
  size_t size;
  gpublob *g;
  struct stat st; /* a pipe or device read here would be gone for the compiler */
  if (!c->opts.cache_dir || !c->input || !strcmp(c->input, "-") || stat(c->input, &st) ||
      !S_ISREG(st.st_mode) || read_input(c, &data, &size))
    return -1;
  *mlir = is_mlir(c->input, data, size);
  const gpublob_input in = {*mlir ? GPUBLOB_INPUT_MLIR : GPUBLOB_INPUT_LLVM, data, size, NULL, c->input};
  int rc = gpublob_open(&g) ? -1 : 0, streamed = 0;
  if (!rc && streams_to_file(c, *mlir, &st)) streamed = lookup_streamed(c, g, &in, r);
  if (!rc && !streamed) rc = gpublob_cache_lookup(g, &c->opts, &in, r);
  if (streamed) rc = streamed < 0 ? -1 : 0;
  if (!rc && c->time) print_time(g, "front", c->opts.remote_cache && *c->opts.remote_cache);
  if (streamed == 1) fprintf(stderr, "gpublob: wrote %s (%zu bytes)\n", c->output, r->outputs[0].blob.size);
  gpublob_stats s;
  if (rc && !gpublob_stats_get(g, &s, sizeof s) && s.remote_errors) /* one fault a call, not two */
    remote_fault_pass_on(gpublob_warnings(g));
  free(data);
  gpublob_close(g);
  return rc ? -1 : streamed;
}

int main(int argc, char **argv) {
  cli c = {.opts = {.version = GPUBLOB_OPTIONS_VERSION, .flags = CLI_DEFAULT_FLAGS}};
  gpublob_result r = {0};
  int mlir = 0, silent = dup(2);
  int null = open("/dev/null", O_WRONLY); /* usage errors are the compiler's to print */
  dup2(null, 2);
  int rc = parse_args(&c, argc, argv);
  dup2(silent, 2);
  close(silent);
  close(null);
  if (rc == 1) return 0; /* --help, --version: printed */
  int hit = rc || c.list_targets ? -1 : lookup(&c, &r, &mlir);
  if (hit < 0) return run_compiler(argv);
  if (hit >= 1) { /* streamed: written, or not put in place (said) */
    gpublob_result_free(&r);
    return hit == 1 ? 0 : 10 + GPUBLOB_IO;
  }
  catch_signals();
  gpublob *g = NULL;
  rc = gpublob_open(&g) ? fail("%s", "out of memory") : write_results(g, &c, &r, mlir);
  gpublob_close(g);
  gpublob_result_free(&r);
  return rc;
}
#endif
