/* programs/args.c: the command line's arguments, by getopt_long over options.h's
** table: --opt VALUE and --opt=VALUE, -x VALUE and -xVALUE, bundled letters, and
** -- to end the options.  Arguments are taken in order (getopt's "-" mode: an input
** is met where it stands), so the first wrong one is the one reported; argv is
** never reordered (the front hands it to gpublob-compiler as it came).  A long
** flag is taken by its whole name, never an abbreviation. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "programs/cli.h"
#include "programs/options.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const cli_option_row rows[] = {CLI_OPTIONS(CLI_OPTION_ROW)};
enum { NROWS = sizeof rows / sizeof *rows, LONG_ONLY = 256 }; /* a long-only flag's getopt value: 256 + row */

int fail(const char *fmt, const char *arg) {
  fputs("gpublob: error: ", stderr);
  fprintf(stderr, fmt, arg);
  fputc('\n', stderr);
  return 2;
}

/* ---- values ---- */
static int parse_format(const char *s) {
  if (!strcmp(s, "bin")) return GPUBLOB_FORMAT_BIN;
  if (!strcmp(s, "asm")) return GPUBLOB_FORMAT_ASM;
  if (!strcmp(s, "llvm")) return GPUBLOB_FORMAT_LLVM;
  if (!strcmp(s, "ll")) return GPUBLOB_FORMAT_LL;
  if (!strcmp(s, "pack") || !strcmp(s, "fatbin")) return GPUBLOB_FORMAT_PACK;
  if (!strcmp(s, "offload")) return GPUBLOB_FORMAT_OFFLOAD;
  return -1;
}

static int parse_tool_mode(const char *s) {
  if (!strcmp(s, "auto")) return GPUBLOB_TOOL_AUTO;
  if (!strcmp(s, "program")) return GPUBLOB_TOOL_PROGRAM;
  if (!strcmp(s, "in-process")) return GPUBLOB_TOOL_INPROCESS;
  return -1;
}

/* Seconds from 1 to 86400 (a timeout); 0 for anything else. */
static unsigned parse_seconds(const char *s) {
  char *end;
  errno = 0;
  unsigned long n = strtoul(s, &end, 10);
  return *end || end == s || *s == '-' || errno || n < 1 || n > 86400 ? 0 : (unsigned)n;
}

/* 512M, 2G, 100000: bytes; 0 when malformed or too large. */
static unsigned long long parse_size(const char *s) {
  char *end;
  errno = 0;
  unsigned long long n = strtoull(s, &end, 10);
  int shift = !*end ? 0 : !strcmp(end, "K") ? 10 : !strcmp(end, "M") ? 20 : !strcmp(end, "G") ? 30 : -1;
  if (shift < 0 || *s == '-' || end == s || errno || n > ULLONG_MAX >> shift) return 0;
  return n << shift;
}

/* A whole number from lo to hi, as strtol reads it; -1 for anything else. */
static long parse_range(const char *s, long lo, long hi) {
  char *end;
  long n = strtol(s, &end, 10);
  return *end || end == s || n < lo || n > hi ? -1 : n;
}

/* A limit in bytes: digits, then K or nothing; 0 is a limit.  -1 for anything else. */
static int parse_limit_bytes(const char *s, unsigned long long *out) {
  char *end;
  errno = 0;
  unsigned long long n = strtoull(s, &end, 10);
  int shift = !*end ? 0 : !strcmp(end, "K") ? 10 : -1;
  if (shift < 0 || !isdigit((unsigned char)*s) || errno || n > (1ULL << 40)) return -1;
  *out = n << shift;
  return 0;
}

/* A fraction from 0 to 1; -1 for anything else. */
static double parse_fraction(const char *s) {
  char *end;
  double f = strtod(s, &end);
  return *end || end == s || !(f >= 0 && f <= 1) ? -1 : f;
}

/* A limit's value and its bit in the options; 0, or 2 on a usage error. */
static int take_limit(gpublob_options *o, int id, const char *v) {
  const struct { int id; unsigned bit; unsigned long long *field; const char *msg; } lim[] = {
      {OPTION_MAX_REGISTERS, GPUBLOB_LIMIT_REGISTERS, &o->max_registers,
       "--max-registers wants a number (or N with K), not '%s'"},
      {OPTION_MAX_SPILLS, GPUBLOB_LIMIT_SPILLS, &o->max_spills, "--max-spills wants a number (or N with K), not '%s'"},
      {OPTION_MAX_SHARED, GPUBLOB_LIMIT_SHARED, &o->max_shared, "--max-shared wants bytes, or N with K, not '%s'"},
      {OPTION_MAX_STACK, GPUBLOB_LIMIT_STACK, &o->max_stack, "--max-stack wants bytes, or N with K, not '%s'"}};
  for (size_t i = 0; i < sizeof lim / sizeof *lim; i++) {
    if (lim[i].id != id) continue;
    if (parse_limit_bytes(v, lim[i].field)) return fail(lim[i].msg, v);
    o->limits |= lim[i].bit;
    return 0;
  }
  if ((o->min_occupancy = parse_fraction(v)) < 0) return fail("--min-occupancy wants a fraction from 0 to 1, not '%s'", v);
  o->limits |= GPUBLOB_LIMIT_OCCUPANCY;
  return 0;
}

/* An ABI version: digits, not starting with 0, at most 1000000; 0 for anything else. */
static unsigned parse_abi(const char *s) {
  char *end;
  errno = 0;
  unsigned long n = strtoul(s, &end, 10);
  return *end || !isdigit((unsigned char)*s) || *s == '0' || errno || n > 1000000 ? 0 : (unsigned)n;
}

static int parse_fp_contract(const char *s) {
  static const char *const modes[] = {"", "on", "fast", "off"};
  for (int i = 1; i < 4; i++)
    if (!strcmp(s, modes[i])) return i;
  return 0;
}

static int parse_as(const char *s) {
  return !strcmp(s, "mlir") ? GPUBLOB_AS_MLIR : !strcmp(s, "clang") ? GPUBLOB_AS_CLANG : 0;
}

static int parse_debug(const char *s) {
  static const char *const levels[] = {"", "none", "lines", "full"};
  for (int i = 1; i < 4; i++)
    if (!strcmp(s, levels[i])) return i;
  return 0;
}

static void add_dir(char *list, size_t size, const char *dir) {
  size_t n = strlen(list);
  snprintf(list + n, size - n, "%s%s", n ? ":" : "", dir);
}

/* ---- flags ---- */
/* A flag without a value: the bit it sets in the options, or 0. */
static unsigned flag_bit(int id) {
  switch (id) {
  case OPTION_EMIT_BYTECODE: return GPUBLOB_FLAG_MLIR_BYTECODE;
  case OPTION_TOOL_LOG: return GPUBLOB_FLAG_TOOL_LOG;
  case OPTION_NO_DEFAULT_SEARCH: return GPUBLOB_FLAG_NO_DEFAULT_SEARCH;
  case OPTION_RETARGET: return GPUBLOB_FLAG_RETARGET;
  case OPTION_BACKEND_ONLY: return GPUBLOB_FLAG_BACKEND_ONLY;
  case OPTION_NO_TOOL_REPORT: return GPUBLOB_FLAG_NO_TOOL_REPORT;
  case OPTION_OFFLOAD_ASM: return GPUBLOB_FLAG_OFFLOAD_ASM;
  case OPTION_ISOLATE: return GPUBLOB_FLAG_ISOLATE;
#define MATH_MODE_BIT(a, id, name, brief_group, brief, full) case OPTION_##id: return GPUBLOB_FLAG_##id;
  GPUBLOB_MATH_MODES(MATH_MODE_BIT, ~)
#undef MATH_MODE_BIT
  case OPTION_REMOTE_READ_ONLY: return GPUBLOB_FLAG_REMOTE_READ_ONLY;
  default: return 0;
  }
}

/* A flag without a value; 0, or 1 when done (help, version). */
static int take_flag(cli *c, int id) {
  if (id == OPTION_HELP || id == OPTION_HELP_ALL) return print_help(id == OPTION_HELP_ALL), 1;
  if (id == OPTION_VERSION) {
    printf("gpublob %s (%s)\n", gpublob_version(), gpublob_mlir_enabled() ? "LLVM IR and MLIR" : "LLVM IR only");
    return 1;
  }
  if (id == OPTION_NO_ISOLATE) c->opts.flags &= ~(unsigned)GPUBLOB_FLAG_ISOLATE;
  else if (id == OPTION_LIST_TARGETS) c->list_targets = 1;
  else if (id == OPTION_TOOLCHAIN_ID) c->toolchain_id = 1;
  else if (id == OPTION_NO_CACHE) c->no_cache = 1;
  else if (id == OPTION_TIME) c->time = 1;
  else if (id == OPTION_VERBOSE) c->verbose = 1;
  else c->opts.flags |= flag_bit(id);
  return 0;
}

/* A value that names something, kept as given (or added to a list). */
static int take_name(cli *c, int id, const char *v) {
  switch (id) {
  case OPTION_TARGET:
    if (c->opts.ntargets == MAX_TARGETS) return fail("%s", "too many -t");
    c->choices[c->opts.ntargets++].target = v;
    break;
  case OPTION_LINK:
    if (c->opts.nlink == MAX_LINKS) return fail("%s", "too many -l");
    c->links[c->opts.nlink++] = v;
    c->opts.link = c->links;
    break;
  case OPTION_FEATURES: c->opts.features = v; break;
  case OPTION_OUTPUT: c->output = v; break;
  case OPTION_DUMP_DIR: c->opts.dump_dir = v; break;
  case OPTION_EMIT_C: c->emit_c = v; break;
  case OPTION_DEPFILE: c->depfile = v; break;
  case OPTION_EMIT_OBJECT: c->emit_object = v; break;
  case OPTION_OBJECT_ARCH: c->object_arch = v; break;
  case OPTION_TOOL: c->opts.tool = v; break;
  case OPTION_TOOL_DIR: add_dir(c->tool_dirs, sizeof c->tool_dirs, v); break;
  case OPTION_LIB_DIR: add_dir(c->lib_dirs, sizeof c->lib_dirs, v); break;
  case OPTION_PIPELINE: c->opts.pipeline = v; break;
  case OPTION_METADATA: c->metadata = v; break;
  case OPTION_OPTS: c->opts.tool_options = v; break;
  case OPTION_TOOLKIT: c->opts.toolkit = v; break;
  case OPTION_SECTION: c->opts.section = v; break;
  case OPTION_CACHE_DIR: snprintf(c->cache_dir, sizeof c->cache_dir, "%s", v); break;
  case OPTION_REMOTE_CACHE: c->remote_cache = v; break;
  case OPTION_REMOTE_CA: c->opts.remote_ca = v; break;
  }
  return 0;
}

/* A value read as a choice or a number; 0, or 2 on a usage error. */
static int take_value(cli *c, int id, const char *v) {
  gpublob_options *o = &c->opts;
  long n;
  switch (id) {
  case OPTION_OPT: /* -O0 .. -O3 */
    if (v[0] < '0' || v[0] > '3' || v[1]) return fail("unknown option '-O%s' (see --help)", v);
    o->opt = GPUBLOB_OPT_O0 + (v[0] - '0');
    return 0;
  case OPTION_FORMAT:
    return (o->format = parse_format(v)) < 0 ? fail("unknown format '%s' (use llvm, ll, asm, bin, pack, fatbin or offload)", v) : 0;
  case OPTION_TOOL_MODE:
    return (o->tool_mode = parse_tool_mode(v)) < 0 ? fail("unknown tool mode '%s' (use auto, program or in-process)", v) : 0;
  case OPTION_ATTACH:
    o->attach = !strcmp(v, "binary") ? GPUBLOB_ATTACH_BINARY : !strcmp(v, "legacy") ? GPUBLOB_ATTACH_LEGACY : -1;
    return o->attach < 0 ? fail("unknown attach mode '%s' (use legacy or binary)", v) : 0;
  case OPTION_JOBS:
    if ((n = parse_range(v, 1, 256)) < 0) return fail("-j wants a number of threads from 1 to 256, not '%s'", v);
    return o->jobs = (unsigned)n, 0;
  case OPTION_REMOTE_TIMEOUT:
    if ((n = parse_range(v, 1, 600000)) < 0) return fail("--remote-timeout wants milliseconds from 1 to 600000, not '%s'", v);
    return o->remote_timeout_ms = (unsigned)n, 0;
  case OPTION_REMOTE_MAX:
    return !(o->remote_max = parse_size(v)) ? fail("--remote-max wants bytes, or N with K, M or G, not '%s'", v) : 0;
  case OPTION_CACHE_SIZE:
    return !(o->cache_max = parse_size(v)) ? fail("--cache-size wants bytes, or N with K, M or G, not '%s'", v) : 0;
  case OPTION_MAX_INPUT:
    return !(o->max_input = parse_size(v)) ? fail("--max-input wants bytes, or N with K, M or G, not '%s'", v) : 0;
  case OPTION_ABI:
    return !(o->abi = parse_abi(v)) ? fail("--abi wants an ABI version such as 500, not '%s'", v) : 0;
  case OPTION_TOOL_TIMEOUT:
    return !(o->tool_timeout = parse_seconds(v)) ? fail("--tool-timeout wants seconds from 1 to 86400, not '%s'", v) : 0;
  case OPTION_TOOL_MEMORY:
    if ((n = parse_range(v, 16, 1 << 24)) < 0) return fail("--tool-memory wants MiB from 16 to 16777216, not '%s'", v);
    return o->tool_memory = (unsigned)n, 0;
  case OPTION_JOB_TIMEOUT:
    return !(o->job_timeout = parse_seconds(v)) ? fail("--job-timeout wants seconds from 1 to 86400, not '%s'", v) : 0;
  case OPTION_BLOCK_SIZE:
    if ((n = parse_range(v, 1, 1 << 20)) < 0) return fail("--block-size wants threads from 1 to 1048576, not '%s'", v);
    return o->block_size = (unsigned)n, 0;
  case OPTION_MAX_REGISTERS:
  case OPTION_MAX_SPILLS:
  case OPTION_MAX_SHARED:
  case OPTION_MAX_STACK:
  case OPTION_MIN_OCCUPANCY: return take_limit(o, id, v);
  case OPTION_AS:
    return !(o->as = parse_as(v)) ? fail("--as wants mlir or clang, not '%s'", v) : 0;
  case OPTION_DEBUG:
    return !(o->debug = parse_debug(v)) ? fail("--debug wants none, lines or full, not '%s'", v) : 0;
  case OPTION_FP_CONTRACT:
    return !(o->fp_contract = parse_fp_contract(v)) ? fail("--fp-contract wants fast, on or off, not '%s'", v) : 0;
  }
  return take_name(c, id, v);
}

/* INPUT, after those before it: several compile in one call (gpublob_compile_inputs). */
static int take_input(cli *c, const char *a) {
  if (c->ninputs == MAX_INPUTS) return fail("more than 1024 inputs ('%s')", a);
  c->inputs[c->ninputs++] = a;
  c->input = c->inputs[0];
  return 0;
}

/* Several inputs: none of them stdin, and their outputs named apart ({stem}). */
static int check_inputs(const cli *c) {
  for (size_t i = 0; c->ninputs > 1 && i < c->ninputs; i++)
    if (!strcmp(c->inputs[i], "-")) return fail("%s", "stdin (-) cannot be one of several inputs");
  int one_file = c->opts.format == GPUBLOB_FORMAT_OFFLOAD; /* -f offload: one container */
  if (c->ninputs > 1 && !one_file && c->output && strchr(c->output, '{') && !strstr(c->output, "{stem}"))
    return fail("several inputs name their outputs by {stem}: '%s' has none (give -o DIR/ or -o PATTERN with {stem})",
                c->output);
  return 0;
}

/* ---- getopt_long ---- */
/* getopt_long's table and short-option string, made once of options.h's. */
static struct option longs[NROWS + 1];
static char shorts[2 * NROWS + 4] = "-:"; /* in order; ':' for a missing value */

static void make_tables(void) {
  size_t nl = 0, ns = strlen(shorts);
  if (longs[0].name) return; /* made already */
  for (int i = 0; i < NROWS; i++) {
    int val = rows[i].letter ? rows[i].letter : LONG_ONLY + i;
    if (rows[i].name) longs[nl++] = (struct option){rows[i].name, rows[i].value ? required_argument : no_argument, NULL, val};
    if (rows[i].letter) {
      shorts[ns++] = (char)rows[i].letter;
      if (rows[i].value) shorts[ns++] = ':';
    }
  }
  shorts[ns] = 0;
}

/* The row of getopt's answer: a letter, or LONG_ONLY + row. */
static int row_of(int val) {
  if (val >= LONG_ONLY) return val - LONG_ONLY;
  for (int i = 0; i < NROWS; i++)
    if (rows[i].letter == val) return i;
  return -1;
}

/* A long flag written in part (--verb) is no flag: getopt would take it. */
static int abbreviated(const char *arg, int row) {
  if (arg[0] != '-' || arg[1] != '-' || !rows[row].name) return 0;
  size_t n = strcspn(arg + 2, "=");
  return n != strlen(rows[row].name);
}

/* getopt's complaint about arg, the argument it was reading: a value missing, a
** flag unknown or given a value it takes not.  -O alone is no flag (-O0 .. -O3). */
static int bad_arg(const char *arg, int got) {
  if (got == ':' && strcmp(arg, "-O")) return fail("option %s needs a value", arg);
  return fail("unknown option '%s' (see --help)", arg);
}

/* Every argument in order; 0 to go on, 1 when done (help, version), 2 on a usage error. */
static int take_args(cli *c, int argc, char **argv) {
  make_tables();
  opterr = 0;
  optind = 0; /* getopt starts afresh */
  for (int got, at = 1; (got = getopt_long(argc, argv, shorts, longs, NULL)) != -1; at = optind) {
    const char *arg = argv[at]; /* what getopt read ("-" mode reorders nothing): a flag, its letters, an input */
    int rc, row = got == 1 || got == '?' || got == ':' ? -1 : row_of(got);
    if (got == 1) rc = take_input(c, optarg);
    else if (row < 0) rc = bad_arg(arg, got);
    else if (abbreviated(arg, row) || (row == OPTION_OPT && !strcmp(arg, "-O"))) /* -O's digit is joined to it */
      rc = fail("unknown option '%s' (see --help)", abbreviated(arg, row) ? arg : "-O");
    else rc = rows[row].value ? take_value(c, row, optarg) : take_flag(c, row);
    if (rc) return rc;
  }
  for (int i = optind; i < argc; i++) /* after -- */
    if (take_input(c, argv[i])) return 2;
  return 0;
}

/* --cache-dir, else $GPUBLOB_CACHE_DIR (empty: off), else the XDG cache directory;
** the remote tier: --remote-cache, else $GPUBLOB_REMOTE_CACHE (a password may be in
** either's URL, or in $GPUBLOB_REMOTE_PASSWORD, which the library reads). */
static void choose_cache(cli *c) {
  const char *env = getenv("GPUBLOB_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  if (c->no_cache) return;
  if (!*c->cache_dir && env) snprintf(c->cache_dir, sizeof c->cache_dir, "%s", env);
  else if (!*c->cache_dir && xdg && *xdg) snprintf(c->cache_dir, sizeof c->cache_dir, "%s/gpublob", xdg);
  else if (!*c->cache_dir && home && *home) snprintf(c->cache_dir, sizeof c->cache_dir, "%s/.cache/gpublob", home);
  c->opts.cache_dir = *c->cache_dir ? c->cache_dir : NULL;
  const char *remote = getenv("GPUBLOB_REMOTE_CACHE");
  c->opts.remote_cache = c->remote_cache ? c->remote_cache : remote;
}

/* Returns 0 to go on, 1 when done (help, version), 2 on a usage error. */
int parse_args(cli *c, int argc, char **argv) {
  int rc = take_args(c, argc, argv);
  if (rc) return rc;
  if (c->toolchain_id && c->input) return fail("--toolchain-id takes no input ('%s'): it is of the flags alone", c->input);
  if (!c->input && !c->list_targets && !c->toolchain_id) return fail("%s", "no input (see --help)");
  if (check_inputs(c)) return 2;
  if (c->depfile && !c->emit_c && !c->emit_object && c->input && !strcmp(c->output ? c->output : c->input, "-"))
    return fail("%s", "--depfile names the files a call writes, and this one writes only to stdout: give -o FILE");
  if (c->emit_object && c->opts.format != GPUBLOB_FORMAT_OFFLOAD)
    return fail("--emit-object '%s' holds -f offload's container: give -f offload", c->emit_object);
  if (c->object_arch && !c->emit_object) return fail("--object-arch '%s' is --emit-object's: give it too", c->object_arch);
  for (size_t k = 0; k < c->opts.ntargets; k++) c->choices[k].features = c->opts.features;
  c->opts.targets = c->opts.ntargets ? c->choices : NULL;
  c->opts.tool_dirs = *c->tool_dirs ? c->tool_dirs : NULL;
  c->opts.lib_dirs = *c->lib_dirs ? c->lib_dirs : NULL;
  choose_cache(c);
  return 0;
}
