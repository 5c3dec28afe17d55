/* test_cli: the command line's own behaviour.  -o DIR/ and -o PATTERN make the
** directories their outputs need (mode 0777 under the umask), in the compiler
** and in the cache front; a directory that cannot be made is an IO error naming
** it, with nothing written and no directory left.  --help files each option under
** an honest heading; --list-targets shows each target's valid chips.  The arguments
** are getopt_long's: --opt=VALUE, -- to end the options, values attached to short
** flags and bundled letters; an unknown --opt=VALUE is a usage error.  --toolchain-id
** (gpublob_toolchain_id) is the same in two processes, in the front and the compiler and
** the library, follows a blob tool's bytes, not its place, and the flags that change an
** output. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpublob.h"
#include "testlib.h"

#define CLI "build/gpublob"
#define IN "examples/saxpy_nvptx.ll" /* stem saxpy_nvptx */

static const char *ptx = ".ptx"; /* nvptx's asm suffix, from the spec */

/* scratch()/rel into buf. */
static const char *at(char *buf, size_t size, const char *rel) {
  snprintf(buf, size, "%s/%s", scratch(), rel);
  return buf;
}

/* The scratch path of saxpy_nvptx's PTX for chip under the directory rel, as the
** CLI names an output in DIR/. */
static const char *ptx_at(char *buf, size_t size, const char *rel, const char *chip) {
  char name[256];
  snprintf(name, sizeof name, "%ssaxpy_nvptx.nvptx.%s%s", rel, chip, ptx);
  return at(buf, size, name);
}

/* The entries of dir, but . and ..; -1 when it cannot be read. */
static int entries(const char *dir) {
  DIR *d = opendir(dir);
  struct dirent *e;
  int n = 0;
  if (!d) return -1;
  while ((e = readdir(d)))
    n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
  closedir(d);
  return n;
}

static int is_directory(const char *p) {
  struct stat st;
  return !stat(p, &st) && S_ISDIR(st.st_mode);
}

static unsigned mode_of(const char *p) {
  struct stat st;
  return stat(p, &st) ? 0 : (unsigned)(st.st_mode & 07777);
}

/* The two-chip ASM compile of IN into -o out (no CUDA needed); its exit status. */
static int compile_two(const char *out, const char *cache_dir, int time, char **log) {
  const char *argv[16] = {CLI, "-t", "nvptx:sm_80,sm_90", "-f", "asm", IN, "-o", out};
  int n = 8;
  if (cache_dir) argv[n++] = "--cache-dir", argv[n++] = cache_dir;
  else argv[n++] = "--no-cache";
  if (time) argv[n++] = "--time";
  argv[n] = NULL;
  return run(argv, log);
}

/* ---- -o DIR/ and -o PATTERN make their directories ---- */
static void test_dir(void) {
  char dir[4300], a[4300], ab[4300], f80[4300], f90[4300];
  at(dir, sizeof dir, "nested/a/b/c/");
  at(a, sizeof a, "nested/a");
  at(ab, sizeof ab, "nested/a/b");
  ptx_at(f80, sizeof f80, "nested/a/b/c/", "sm_80");
  ptx_at(f90, sizeof f90, "nested/a/b/c/", "sm_90");
  char *log = NULL;
  mode_t old = umask(027);
  int rc = compile_two(dir, NULL, 0, &log);
  umask(old);
  check(rc == 0, "-o DIR/: two chips into a missing nested DIR/ succeed", "exit %d: %s", rc, log);
  check(is_directory(dir), "-o DIR/: the missing DIR/ and its parents are made", "%s: %s", dir, log);
  check(exists(f80), "-o DIR/: sm_80's output is written in the made DIR/", "%s: %s", f80, log);
  check(exists(f90), "-o DIR/: sm_90's output is written in the made DIR/", "%s: %s", f90, log);
  char *text = (char *)slurp(f80, NULL);
  check(contains(text, ".target sm_80"), "-o DIR/: the file named for sm_80 holds sm_80's PTX", "%.200s",
        text ? text : "(unreadable)");
  free(text);
  check(mode_of(a) == 0750, "-o DIR/: each made directory has mode 0777 under the umask (027: 0750): nested/a",
        "%s: %o", a, mode_of(a));
  check(mode_of(ab) == 0750, "-o DIR/: each made directory has mode 0777 under the umask (027: 0750): nested/a/b",
        "%s: %o", ab, mode_of(ab));
  check(mode_of(dir) == 0750,
        "-o DIR/: each made directory has mode 0777 under the umask (027: 0750): nested/a/b/c", "%s: %o", dir,
        mode_of(dir));
  free(log);
}

static void test_one_output_dir(void) {
  char dir[4300], file[4300];
  at(dir, sizeof dir, "single/x/");
  ptx_at(file, sizeof file, "single/x/", "sm_80");
  const char *argv[] = {CLI, "--no-cache", "-t", "nvptx:sm_80", "-f", "asm", IN, "-o", dir, NULL};
  char *log = NULL;
  int rc = run(argv, &log);
  check(rc == 0, "-o DIR/: one output into a missing DIR/ makes it too: exit 0", "exit %d: %s", rc, log);
  check(exists(file), "-o DIR/: one output into a missing DIR/ makes it too: the output is written", "%s: %s", file,
        log);
  free(log);
}

static void test_pattern(void) {
  char pat[4300], f80[4300], f90[4300], name[256];
  at(pat, sizeof pat, "pat/{target}/{chip}/k{suffix}");
  snprintf(name, sizeof name, "pat/nvptx/sm_80/k%s", ptx);
  at(f80, sizeof f80, name);
  snprintf(name, sizeof name, "pat/nvptx/sm_90/k%s", ptx);
  at(f90, sizeof f90, name);
  char *log = NULL;
  int rc = compile_two(pat, NULL, 0, &log);
  check(rc == 0, "-o PATTERN: a pattern with a missing directory part succeeds", "exit %d: %s", rc, log);
  check(exists(f80), "-o PATTERN: sm_80's directory ({target}/{chip}/) is made and written",
        "%s: %s", f80, log);
  check(exists(f90), "-o PATTERN: sm_90's directory ({target}/{chip}/) is made and written",
        "%s: %s", f90, log);
  free(log);
}

/* MLIR's one output in DIR/ is named as beside the input: saxpy.mlir -> saxpy.out.mlir. */
static void test_mlir_dir(void) {
  if (!built_with_mlir(CLI)) {
    skip("-o DIR/: MLIR's output in a made DIR/", "gpublob is built without MLIR");
    return;
  }
  char dir[4300], file[4300];
  at(dir, sizeof dir, "mlirdir/m/");
  at(file, sizeof file, "mlirdir/m/saxpy.out.mlir");
  const char *argv[] = {CLI, "--no-cache", "-t", "nvptx:sm_80", "-f", "asm", "examples/saxpy.mlir",
                        "-o", dir, NULL};
  char *log = NULL;
  int rc = run(argv, &log);
  check(rc == 0, "-o DIR/: MLIR's module goes to a made DIR/ as {stem}.out.mlir: exit 0", "exit %d: %s", rc, log);
  check(exists(file), "-o DIR/: MLIR's module goes to a made DIR/ as {stem}.out.mlir: the file is written",
        "%s: %s", file, log);
  free(log);
}

/* -o FILE is taken as given: its directory is not made. */
static void test_file_no_dir(void) {
  char file[4300], dir[4300];
  at(file, sizeof file, "nodir/k.ptx");
  at(dir, sizeof dir, "nodir");
  const char *argv[] = {CLI, "--no-cache", "-t", "nvptx:sm_80", "-f", "asm", IN, "-o", file, NULL};
  char *log = NULL;
  int rc = run(argv, &log);
  check(rc == 10 + GPUBLOB_IO, "-o FILE: a FILE in a missing directory is an IO error, and no directory is made: "
        "the IO error's exit status", "exit %d (want %d): %s", rc, 10 + GPUBLOB_IO, log);
  check(contains(log, "cannot write"), "-o FILE: a FILE in a missing directory is an IO error, and no directory is "
        "made: 'cannot write'", "%s", shown(log));
  check(!exists(dir), "-o FILE: a FILE in a missing directory is an IO error, and no directory is made: no "
        "directory", "%s exists: %s", dir, log);
  free(log);
}

/* An output named beside an input that is not a regular file (/dev/null) would be a
** new file in /dev: IO, asking for -o, and nothing written there. */
static void test_not_regular(void) {
  const char *argv[] = {CLI, "--no-cache", "-t", "nvptx:sm_80", "-f", "asm", "/dev/null", NULL};
  char *log = NULL;
  int was = exists("/dev/null.ptx");
  int rc = run(argv, &log);
  check(rc == 10 + GPUBLOB_IO && contains(log, "not a regular file") && contains(log, "give -o"),
        "an input that is not a regular file needs -o: IO, saying so", "exit %d: %s", rc, shown(log));
  check(was || !exists("/dev/null.ptx"), "an input that is not a regular file needs -o: no /dev/null.ptx", "%s",
        shown(log));
  free(log);
  /* /dev/stdin, a link, to a regular file: no /dev/stdin.ptx either */
  char cmd[4400];
  snprintf(cmd, sizeof cmd, "%s --no-cache -t nvptx:sm_80 -f asm /dev/stdin < %s", CLI, IN);
  const char *sh[] = {"/bin/sh", "-c", cmd, NULL};
  was = exists("/dev/stdin.ptx");
  rc = run(sh, &log);
  check(rc == 10 + GPUBLOB_IO && contains(log, "not a regular file") && (was || !exists("/dev/stdin.ptx")),
        "/dev/stdin from a regular file needs -o too: IO, and no /dev/stdin.ptx", "exit %d: %s", rc, shown(log));
  free(log);
  const char *with_o[] = {CLI, "--no-cache", "-t", "nvptx:sm_80", "-f", "asm", "/dev/null", "-o", "-", NULL};
  rc = run(with_o, &log);
  check(rc == 0 && contains(log, ".version"), "/dev/null with -o -: the PTX on standard output", "exit %d: %s", rc,
        shown(log));
  free(log);
}

/* ---- a directory that cannot be made ---- */
static void test_impossible(void) {
  char base[4300], plain[4300], out[4300], want[4400];
  at(base, sizeof base, "imp");
  at(plain, sizeof plain, "imp/plain");
  at(out, sizeof out, "imp/plain/sub/");
  mkdir(base, 0777);
  spill(plain, "keep", 4);
  char *log = NULL;
  int rc = compile_two(out, NULL, 0, &log);
  snprintf(want, sizeof want, "'%s'", plain);
  check(rc == 10 + GPUBLOB_IO, "-o DIR/ under a regular file: the IO error's exit status", "exit %d (want %d): %s",
        rc, 10 + GPUBLOB_IO, log);
  check(!strncmp(log ? log : "", "gpublob: error: cannot make the directory ", 42),
        "-o DIR/ under a regular file: one error line first, 'cannot make the directory'", "%s", log);
  check(contains(log, want), "-o DIR/ under a regular file: the message names the directory", "want %s: %s",
        want, log);
  check(contains(log, strerror(ENOTDIR)), "-o DIR/ under a regular file: the message gives strerror",
        "want '%s': %s", strerror(ENOTDIR), log);
  char *kept = (char *)slurp(plain, NULL);
  check(entries(base) == 1, "-o DIR/ under a regular file: nothing written, the file untouched: nothing written",
        "%d entries in %s", entries(base), base);
  check(same_str(kept, "keep"), "-o DIR/ under a regular file: nothing written, the file untouched: the file "
        "untouched", "%s holds '%s'", plain, shown(kept));
  free(kept);
  free(log);
}

/* The first output's directories are made, the second's cannot be: none stays. */
static void test_rollback(void) {
  char base[4300], pat[4300], blocker[4300], made[4300], want[4400];
  at(base, sizeof base, "part");
  at(pat, sizeof pat, "part/{chip}/deep/k{suffix}");
  at(blocker, sizeof blocker, "part/sm_90");
  at(made, sizeof made, "part/sm_80");
  mkdir(base, 0777);
  spill(blocker, "", 0);
  char *log = NULL;
  int rc = compile_two(pat, NULL, 0, &log);
  snprintf(want, sizeof want, "cannot make the directory '%s'", blocker);
  check(rc == 10 + GPUBLOB_IO, "-o PATTERN: the second output's impossible directory is the IO error naming it: "
        "the IO error's exit status", "exit %d (want %d): %s", rc, 10 + GPUBLOB_IO, log);
  check(contains(log, want), "-o PATTERN: the second output's impossible directory is the IO error naming it: "
        "the message names it", "want %s: %s", want, shown(log));
  check(!exists(made), "-o PATTERN: the directories made for the first output are removed again",
        "%s is left: %s", made, log);
  check(entries(base) == 1, "-o PATTERN: nothing written when one directory cannot be made",
        "%d entries in %s", entries(base), base);
  free(log);
}

/* ---- the front (build/gpublob) answers a cache hit itself, and makes directories too ---- */
static void test_front(void) {
  char cache[4300], first[4300], second[4300], f80[4300], f90[4300], base[4300], plain[4300], imp[4300];
  at(cache, sizeof cache, "front-cache");
  at(first, sizeof first, "front1/");
  at(second, sizeof second, "front2/x/y/");
  ptx_at(f80, sizeof f80, "front2/x/y/", "sm_80");
  ptx_at(f90, sizeof f90, "front2/x/y/", "sm_90");
  char *log = NULL;
  int rc = compile_two(first, cache, 0, &log);
  check(rc == 0, "front: the first run compiles and stores", "exit %d: %s", rc, log);
  free(log);
  rc = compile_two(second, cache, 1, &log);
  check(rc == 0, "front: the second run is a hit the front answers: exit 0", "exit %d: %s", rc, log);
  check(contains(log, "time (front)"), "front: the second run is a hit the front answers: the front's timing",
        "%s", shown(log));
  check(exists(f80), "front: a hit into a missing nested DIR/ makes it and writes both chips: sm_80", "%s: %s", f80,
        log);
  check(exists(f90), "front: a hit into a missing nested DIR/ makes it and writes both chips: sm_90", "%s: %s", f90,
        log);
  free(log);

  at(base, sizeof base, "front-imp");
  at(plain, sizeof plain, "front-imp/plain");
  at(imp, sizeof imp, "front-imp/plain/sub/");
  mkdir(base, 0777);
  spill(plain, "keep", 4);
  rc = compile_two(imp, cache, 1, &log);
  check(rc == 10 + GPUBLOB_IO, "front: a hit into an impossible directory is the same IO error: the IO error's exit "
        "status", "exit %d (want %d): %s", rc, 10 + GPUBLOB_IO, log);
  check(contains(log, "time (front)"), "front: a hit into an impossible directory is the same IO error: the front "
        "answers it", "%s", shown(log));
  check(contains(log, "cannot make the directory"), "front: a hit into an impossible directory is the same IO "
        "error: 'cannot make the directory'", "%s", shown(log));
  check(entries(base) == 1, "front: nothing written when the directory cannot be made", "%d entries in %s",
        entries(base), base);
  free(log);
}

/* ---- arguments: --opt=VALUE, --, attached values and bundles ---- */
/* IN's PTX for sm_90 with +ptx80, by cli and the argument words args; its exit status. */
static int ptx80(const char *cli, const char *const *args, char **log) {
  const char *argv[24] = {cli, "--no-cache"};
  int n = 2;
  while (*args && n < 23) argv[n++] = *args++;
  argv[n] = NULL;
  return run(argv, log);
}

static void test_opt_equals(void) {
  static const char *const clis[] = {CLI, "build/gpublob-compiler"};
  const char *spaced[] = {"--features", "+ptx80", "-t", "nvptx:sm_90", "-f", "asm", IN, "-o", "-", NULL};
  const char *joined[] = {"--features=+ptx80", "--target=nvptx:sm_90", "--format=asm", IN, "-o", "-", NULL};
  for (size_t i = 0; i < 2; i++) {
    char *want = NULL, *got = NULL, name[160];
    int rc = ptx80(clis[i], spaced, &want), rc2 = ptx80(clis[i], joined, &got);
    snprintf(name, sizeof name, "--opt=VALUE: %s --features=+ptx80 --target=... --format=asm: exit 0", clis[i]);
    check(rc == 0 && rc2 == 0, name, "exit %d and %d: %s", rc, rc2, shown(got));
    snprintf(name, sizeof name, "--opt=VALUE: %s: the features reach the backend (.version 8.0)", clis[i]);
    check(contains(got, ".version 8.0"), name, "%s", shown(got));
    snprintf(name, sizeof name, "--opt=VALUE: %s: the same PTX as --opt VALUE", clis[i]);
    check(same_str(got, want), name, "%s", shown(got));
    free(want);
    free(got);
  }
}

/* "-t nvptx:sm_90 -f asm" written -tnvptx:sm_90 -fasm, -O2 -j1 -o-: the same PTX;
** a bundle of letters (-hj1) is each of them. */
static void test_short_attached(void) {
  const char *spaced[] = {"-t", "nvptx:sm_90", "-f", "asm", "-O2", "-j", "1", IN, "-o", "-", NULL};
  const char *attached[] = {"-tnvptx:sm_90", "-fasm", "-O2", "-j1", IN, "-o-", NULL};
  char *want = NULL, *got = NULL;
  int rc = ptx80(CLI, spaced, &want), rc2 = ptx80(CLI, attached, &got);
  check(rc == 0 && rc2 == 0, "short flags: values attached (-tnvptx:sm_90 -fasm -O2 -j1 -o-): exit 0",
        "exit %d and %d: %s", rc, rc2, shown(got));
  check(contains(got, ".target sm_90") && same_str(got, want),
        "short flags: values attached give the same PTX as values apart", "%s", shown(got));
  free(want);
  free(got);
  const char *bundle[] = {CLI, "-hj1", NULL};
  rc = run(bundle, &got);
  check(rc == 0 && got && !strncmp(got, "usage: gpublob", 14), "short flags: a bundle (-hj1) is its letters: -h's help",
        "exit %d: %s", rc, shown(got));
  free(got);
}

/* -- ends the options: an input named -weird.ll (in the scratch directory) is the input. */
static void test_double_dash(void) {
  char cli[PATH_MAX], cwd[PATH_MAX], *log = NULL;
  size_t size = 0;
  unsigned char *ir = slurp(IN, &size);
  if (!realpath(CLI, cli) || !getcwd(cwd, sizeof cwd) || !ir || chdir(scratch())) {
    check(0, "--: set up", "%s", strerror(errno));
    free(ir);
    return;
  }
  spill("-weird.ll", ir, size);
  free(ir);
  const char *with[] = {cli, "--no-cache", "-t", "nvptx:sm_90", "-f", "asm", "-o", "-", "--", "-weird.ll", NULL};
  const char *without[] = {cli, "--no-cache", "-t", "nvptx:sm_90", "-f", "asm", "-o", "-", "-weird.ll", NULL};
  int rc = run(with, &log);
  check(rc == 0 && contains(log, ".target sm_90"), "--: gpublob -t ... -- -weird.ll compiles -weird.ll",
        "exit %d: %s", rc, shown(log));
  free(log);
  rc = run(without, &log);
  check(rc == 2 && contains(log, "unknown option '-weird.ll'"),
        "--: without it, -weird.ll is flags, unknown: exit 2",
        "exit %d: %s", rc, shown(log));
  free(log);
  if (chdir(cwd)) check(0, "--: back to the tree", "%s", strerror(errno));
}

/* Usage errors, said by the front itself as gpublob-compiler says them: exit 2. */
static void test_unknown(void) {
  static const struct {
    const char *arg, *says;
  } bad[] = {{"--bogus=1", "unknown option '--bogus=1' (see --help)"},
             {"--verb", "unknown option '--verb' (see --help)"}, /* no abbreviations */
             {"--verbose=1", "unknown option '--verbose=1' (see --help)"},
             {"--jobs=0", "-j wants a number of threads from 1 to 256, not '0'"},
             {"--as=gcc", "--as wants mlir or clang, not 'gcc'"},
             {"-O7", "unknown option '-O7' (see --help)"},
             {"-O", "unknown option '-O' (see --help)"}, /* -O's digit is joined to it */
             {"-xyz", "unknown option '-xyz' (see --help)"}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    char *log = NULL, *log2 = NULL, name[160];
    const char *argv[] = {CLI, bad[i].arg, IN, NULL}, *argv2[] = {"build/gpublob-compiler", bad[i].arg, IN, NULL};
    int rc = run(argv, &log), rc2 = run(argv2, &log2);
    snprintf(name, sizeof name, "usage error %s: exit 2, one line saying so, from both programs", bad[i].arg);
    check(rc == 2 && rc2 == 2 && contains(log, bad[i].says) && same_str(log, log2), name, "exit %d, %d: %s / %s",
          rc, rc2, shown(log), shown(log2));
    free(log);
    free(log2);
  }
  char *log = NULL;
  const char *argv[] = {CLI, "-t", NULL};
  int rc = run(argv, &log);
  check(rc == 2 && contains(log, "option -t needs a value"), "usage error: -t without its value", "exit %d: %s", rc,
        shown(log));
  free(log);
}

/* ---- --help ---- */
/* Every option the CLI takes, and whether it is MLIR's alone. */
static const struct {
  const char *name;
  int mlir;
} options[] = {
    {"-t", 0},           {"--target", 0},      {"--features", 0},       {"--retarget", 0},
    {"--backend-only", 0},
    {"-f", 0},           {"--format", 0},      {"-o", 0},               {"-O0", 0},
    {"--ftz", 0},        {"--fast-math", 0},   {"-j", 0},               {"--jobs", 0},
    {"--isolate", 0},    {"--no-isolate", 0},  {"--max-input", 0},      {"--tool", 0},
    {"--tool-dir", 0},   {"--tool-mode", 0},   {"--tool-timeout", 0},   {"--lib-dir", 0},
    {"--job-timeout", 0},   {"--fp-contract", 0},  {"--as", 0},  {"--tool-memory", 0}, {"--debug", 0},
    {"--no-default-search", 0},                {"--cache-dir", 0},      {"--cache-size", 0},
    {"--no-cache", 0},   {"--attach", 1},      {"--pipeline", 1},       {"--emit-bytecode", 1},
    {"--list-targets", 0}, {"--toolchain-id", 0}, {"--time", 0},      {"--version", 0},        {"-h", 0},
    {"--metadata", 0},     {"--verbose", 0},       {"--json", 0},          {"--disasm", 0}, /* inspect's */
    {"--no-tool-report", 0}, {"--block-size", 0},   {"--max-registers", 0}, {"--max-spills", 0}, {"--max-shared", 0},
    {"--max-stack", 0},    {"--min-occupancy", 0},
    {"--help", 0},       {"--daz", 0},         {"--finite-only", 0},    {"--unsafe-math", 0},
    {"--unsafe-sqrt", 0}, {"--abi", 0},
    {"--toolkit", 0},    {"-l", 0},            {"--opts", 0},           {"--section", 1},
    {"--tool-log", 1},
    {"--dump-dir", 0},   {"--emit-c", 0},      {"--depfile", 0},        {"--help-all", 0},
    {"--offload-asm", 0}, {"--emit-object", 0}, {"--object-arch", 0},
    {"--remote-cache", 0}, {"--remote-read-only", 0}, {"--remote-timeout", 0}, {"--remote-max", 0}, {"--remote-ca", 0},
};
#define NOPTIONS (sizeof options / sizeof *options)

/* Each option of the help's option lines (indented 2 or 6, then '-') with its section. */
typedef struct {
  char name[64], section[64];
} listed;

static size_t parse_help(const char *text, listed *out, size_t max, int *before_heading) {
  char section[64] = "";
  size_t n = 0;
  *before_heading = 0;
  for (const char *line = text; line && *line;) {
    const char *nl = strchr(line, '\n');
    size_t len = nl ? (size_t)(nl - line) : strlen(line);
    size_t ind = strspn(line, " ");
    if (ind == 0 && len && line[len - 1] == ':' && len < sizeof section) {
      snprintf(section, sizeof section, "%.*s", (int)len, line);
    } else if ((ind == 2 || ind == 6) && line[ind] == '-') {
      /* "-t, --target NAME": the words that start with '-', commas dropped */
      for (const char *w = line + ind; w < line + len && *w == '-' && n < max;) {
        size_t wl = strcspn(w, " ,\n");
        snprintf(out[n].name, sizeof out[n].name, "%.*s", (int)wl, w);
        snprintf(out[n].section, sizeof out[n].section, "%s", section);
        if (!*section) ++*before_heading;
        n++;
        w += wl;
        w += strspn(w, ", ");
      }
    }
    line = nl ? nl + 1 : NULL;
  }
  return n;
}

static const char *section_of(const listed *l, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(l[i].name, name)) return l[i].section;
  return NULL;
}

/* --help fits two screens (48 lines of 80 columns), in the groups a newcomer looks for,
** and lists only flags the CLI takes; --help-all lists every flag. */
static void test_short_help(void) {
  char *out = NULL;
  const char *argv[] = {CLI, "--help", NULL};
  int rc = run(argv, &out);
  check(rc == 0 && out, "--help: exit 0", "exit %d", rc);
  size_t lines = 0, widest = 0, width = 0;
  for (const char *p = out ? out : ""; *p; p++) {
    if (*p != '\n') {
      width++;
      continue;
    }
    lines++;
    widest = width > widest ? width : widest;
    width = 0;
  }
  check(lines <= 48, "--help: two screens, at most 48 lines", "%zu lines", lines);
  check(widest <= 80, "--help: at most 80 columns", "a line of %zu", widest);
  static const char *const groups[] = {"Inputs:", "Targets:", "Outputs:", "Cache:", "Tools:", "Robustness:",
                                       "Information:"};
  for (size_t i = 0; i < sizeof groups / sizeof *groups; i++) {
    char name[80];
    snprintf(name, sizeof name, "--help: the group %s", groups[i]);
    check(out && strstr(out, groups[i]), name, "%s", shown(out));
  }
  check(out && strstr(out, "--help-all"), "--help: names --help-all", "%s", shown(out));
  free(out);
}

static void test_help(void) {
  char *out = NULL, *out2 = NULL;
  const char *argv[] = {CLI, "--help-all", NULL}, *argv2[] = {"build/gpublob-compiler", "--help-all", NULL};
  int rc = run(argv, &out);
  run(argv2, &out2);
  check(rc == 0, "--help: exit 0, the usage line first: exit 0", "exit %d: %s", rc, shown(out));
  check_if(out != NULL, !strncmp(out, "usage: gpublob", 14), "--help: exit 0, the usage line first: the usage line",
           "%s", out);
  check(same_str(out, out2), "--help: the front and gpublob-compiler print the same help", "%s", shown(out2));
  listed l[128];
  int before = 0;
  size_t n = parse_help(out, l, 128, &before);
  check(before == 0, "--help: every option line is under a heading", "%d before the first", before);
  check(same_str(section_of(l, n, "--attach"), "MLIR input:"),
        "--help: there is an \"MLIR input:\" section, with --attach", "under %s: %s",
        shown(section_of(l, n, "--attach")), shown(out));
  char bad[1024] = "", missing[1024] = "", notmlir[1024] = "";
  for (size_t i = 0; i < NOPTIONS; i++) {
    const char *s = section_of(l, n, options[i].name);
    char *list = !s ? missing : !options[i].mlir && !strcmp(s, "MLIR input:") ? bad
                 : options[i].mlir && strcmp(s, "MLIR input:") ? notmlir : NULL;
    if (list) snprintf(list + strlen(list), sizeof bad - strlen(list), " %s", options[i].name);
  }
  check(!*missing, "--help: every option the CLI takes is documented", "missing:%s", missing);
  check(!*bad, "--help: no global option is filed under \"MLIR input:\"", "under MLIR input:%s", bad);
  check(!*notmlir, "--help: each MLIR-only option is under \"MLIR input:\"", "elsewhere:%s", notmlir);
  char unknown[1024] = "";
  for (size_t i = 0; i < n; i++) {
    int known = 0;
    for (size_t k = 0; k < NOPTIONS; k++) known |= !strcmp(l[i].name, options[k].name);
    if (!known && strcmp(l[i].name, "-O3")) /* "-O0 .. -O3" */
      snprintf(unknown + strlen(unknown), sizeof unknown - strlen(unknown), " %.63s", l[i].name);
  }
  check(!*unknown, "--help: every option it lists is in this test's table", "unknown:%s", unknown);
  static const char *const remote[] = {"--remote-cache", "--remote-read-only", "--remote-timeout", "--remote-max", "--remote-ca"};
  for (size_t i = 0; i < sizeof remote / sizeof *remote; i++)
    check(same_str(section_of(l, n, remote[i]), "Cache:"), "--help: the remote cache's flags are in the cache group",
          "%s: %s", remote[i], shown(section_of(l, n, remote[i])));
  free(out);
  free(out2);
}

/* ---- --list-targets ---- */
/* The words of a target's "  chips:" line and its continuation lines (9 blanks). */
static void chips_listed(const char *out, const char *target, char *words, size_t size, int *widest) {
  words[0] = 0;
  size_t tl = strlen(target);
  const char *line = out;
  while (line && !(!strncmp(line, target, tl) && line[tl] == ' ')) {
    line = strchr(line, '\n');
    if (line) line++;
  }
  int in_chips = 0;
  for (line = line ? strchr(line, '\n') : NULL; line && *++line && *line == ' ';) {
    const char *nl = strchr(line, '\n');
    int len = nl ? (int)(nl - line) : (int)strlen(line);
    if (!strncmp(line, "  chips:", 8)) in_chips = 1;
    else if (strncmp(line, "         ", 9)) in_chips = 0;
    if (in_chips) {
      if (len > *widest) *widest = len;
      const char *w = line + (line[2] == 'c' ? 8 : 0);
      for (const char *e = line + len; (w += strspn(w, " ")) < e;) {
        size_t wl = strcspn(w, " \n");
        snprintf(words + strlen(words), size - strlen(words), "%s%.*s", *words ? " " : "", (int)wl, w);
        w += wl;
      }
    }
    line = nl;
  }
}

static void test_list_targets(void) {
  char *out = NULL;
  const char *argv[] = {CLI, "--list-targets", NULL};
  int rc = run(argv, &out), widest = 0;
  check(rc == 0, "--list-targets: exit 0", "exit %d: %s", rc, out);
  for (int i = 0; i < gpublob_target_count(); i++) {
    gpublob_target_info t;
    gpublob_target_get(i, &t, sizeof t);
    char want[4096] = "", got[4096], name[128];
    for (const char *w = t.chips; *(w += strspn(w, " \t"));) { /* the spec's list, single-spaced */
      size_t wl = strcspn(w, " \t");
      snprintf(want + strlen(want), sizeof want - strlen(want), "%s%.*s", *want ? " " : "", (int)wl, w);
      w += wl;
    }
    chips_listed(out, t.name, got, sizeof got, &widest);
    snprintf(name, sizeof name, "--list-targets: %s's chips are gpublob_target_get's, in order", t.name);
    char listed_name[160];
    snprintf(listed_name, sizeof listed_name, "--list-targets: %s's chips are listed", t.name);
    check(*got, listed_name, "no chips for %s in: %s", t.name, shown(out));
    check_if(*got, !strcmp(got, want), name, "got '%s', want '%s'", got, want);
  }
  check(widest > 0, "--list-targets: the chip lists wrap at 80 columns: a chips line is seen", "widest %d", widest);
  check(widest <= 80, "--list-targets: the chip lists wrap at 80 columns", "widest %d", widest);
  free(out);
}

/* The front starts the compiler with glibc's malloc in 2 MiB pages (programs/cli.h,
** FRONT_TUNABLES) unless GLIBC_TUNABLES is the user's; the tool the compiler runs
** (here a script before ld.lld, which reads its parent's start environment from
** /proc) sees the user's environment either way. */
static void test_tunables(void) {
  char script[PATH_MAX], env_file[PATH_MAX], parent_file[PATH_MAX], out[PATH_MAX], body[2 * PATH_MAX + 256];
  at(script, sizeof script, "ld.lld-env.sh");
  at(env_file, sizeof env_file, "tool.env");
  at(parent_file, sizeof parent_file, "compiler.env");
  at(out, sizeof out, "tunables.hsaco");
  int n = snprintf(body, sizeof body, "#!/bin/sh\nenv > '%s'\ntr '\\0' '\\n' < /proc/$PPID/environ > '%s'\n"
                   "exec " LLVM_BINDIR "/ld.lld \"$@\"\n", env_file, parent_file);
  spill(script, body, (size_t)n);
  chmod(script, 0755);
  static const char *const users[] = {NULL, "glibc.malloc.check=0"};
  for (int i = 0; i < 2; i++) {
    if (users[i]) setenv("GLIBC_TUNABLES", users[i], 1);
    else unsetenv("GLIBC_TUNABLES");
    if (users[i]) setenv("GPUBLOB_FRONT_TUNABLES", "1", 1); /* a stray mark: the user's value stays */
    const char *argv[] = {CLI, "--no-cache", "--tool-mode", "program", "--tool", script, "-t", "amdgcn:gfx90a",
                          "bench/kernels/saxpy_amdgcn.ll", "-o", out, NULL};
    char *log = NULL, *tool = NULL, *parent = NULL, name[200];
    int rc = run(argv, &log);
    size_t size;
    tool = (char *)slurp(env_file, &size);
    parent = (char *)slurp(parent_file, &size);
    snprintf(name, sizeof name, "tunables, %s: the compile runs its tool", users[i] ? "the user's" : "none set");
    check(rc == 0 && tool && parent, name, "exit %d: %s", rc, shown(log));
    snprintf(name, sizeof name, "tunables, %s: the compiler started with %s", users[i] ? "the user's" : "none set",
             users[i] ? users[i] : "glibc.malloc.hugetlb=1");
    check_if(tool && parent, contains(parent, users[i] ? users[i] : "GLIBC_TUNABLES=glibc.malloc.hugetlb=1"), name,
             "%s", shown(parent));
    snprintf(name, sizeof name, "tunables, %s: the tool sees the user's environment", users[i] ? "the user's" : "none set");
    check_if(tool && parent, users[i] ? contains(tool, users[i]) : lacks(tool, "GLIBC_TUNABLES"), name, "%s",
             shown(tool));
    check_if(tool && parent, lacks(tool, "GPUBLOB_FRONT_TUNABLES"), "tunables: the front's mark does not reach the tool",
             "%s", shown(tool));
    free(log), free(tool), free(parent);
    remove(env_file), remove(parent_file);
  }
  unsetenv("GLIBC_TUNABLES");
  unsetenv("GPUBLOB_FRONT_TUNABLES");
}

/* The remote tier's environment ($GPUBLOB_REMOTE_TOKEN, _PASSWORD, and _CACHE, whose
** URL may hold a password) reaches no tool, in the compiler's process or through the
** isolation helper: a script before ld.lld writes the environment it was given. */
static void test_tool_env_withheld(void) {
  char script[PATH_MAX], env_file[PATH_MAX], out[PATH_MAX], body[PATH_MAX + 256];
  at(script, sizeof script, "ld.lld-env-remote.sh");
  at(env_file, sizeof env_file, "tool-remote.env");
  at(out, sizeof out, "remote-env.hsaco");
  int n = snprintf(body, sizeof body, "#!/bin/sh\nenv > '%s'\nexec " LLVM_BINDIR "/ld.lld \"$@\"\n", env_file);
  spill(script, body, (size_t)n);
  chmod(script, 0755);
  setenv("GPUBLOB_REMOTE_TOKEN", "tok-5ecret-in-env", 1);
  setenv("GPUBLOB_REMOTE_PASSWORD", "pa55-in-env", 1);
  setenv("GPUBLOB_REMOTE_CACHE", "http://alice:pa55-in-url@127.0.0.1:9/x", 1);
  static const char *const modes[] = {"--no-isolate", "--isolate"};
  for (int i = 0; i < 2; i++) {
    remove(env_file);
    const char *argv[] = {CLI, "--no-cache", modes[i], "--tool-mode", "program", "--tool", script, "-t", "amdgcn:gfx90a",
                          "bench/kernels/saxpy_amdgcn.ll", "-o", out, NULL};
    char *log = NULL, name[200];
    int rc = run(argv, &log);
    size_t size;
    char *tool = (char *)slurp(env_file, &size);
    snprintf(name, sizeof name, "remote credentials (%s): the tool's environment holds none of the tier's", modes[i]);
    check(rc == 0 && tool && contains(tool, "PATH=") && lacks(tool, "tok-5ecret-in-env") && lacks(tool, "pa55-in-env") &&
              lacks(tool, "pa55-in-url") && lacks(tool, "GPUBLOB_REMOTE_"),
          name, "exit %d: %s\n%s", rc, shown(log), shown(tool));
    free(log), free(tool);
  }
  unsetenv("GPUBLOB_REMOTE_TOKEN");
  unsetenv("GPUBLOB_REMOTE_PASSWORD");
  unsetenv("GPUBLOB_REMOTE_CACHE");
  remove(env_file);
}

/* ---- --toolchain-id ---- */
/* The identity the CLI cli prints for the flags args (NULL-ended) into hex (32 digits),
** with a cache directory of the test's own; its exit status.  *log: stdout and stderr. */
static int tcid(const char *cli, const char *const *args, char hex[33], char **log) {
  char cache[4300];
  const char *argv[32] = {cli, "--toolchain-id", "--cache-dir", at(cache, sizeof cache, "tcid-cache")};
  int n = 4;
  while (*args && n < 31) argv[n++] = *args++;
  argv[n] = NULL;
  int rc = run(argv, log);
  hex[0] = 0;
  size_t len = *log ? strspn(*log, "0123456789abcdef") : 0;
  if (len == 32 && (*log)[32] == '\n') memcpy(hex, *log, 32), hex[32] = 0;
  return rc;
}

/* tcid's identity, or "" where the CLI failed (checked, named what). */
static const char *tcid_of(const char *cli, const char *const *args, const char *what, char hex[33]) {
  char *log = NULL;
  int rc = tcid(cli, args, hex, &log);
  check(rc == 0 && hex[0], what, "%s: exit %d: %s", cli, rc, shown(log));
  free(log);
  return hex;
}

/* A copy of the file from into to, executable; 0 when made. */
static int copy_tool(const char *from, const char *to) {
  size_t n;
  unsigned char *b = slurp(from, &n);
  int rc = !b || spill(to, b, n) || chmod(to, 0755) ? -1 : 0;
  free(b);
  return rc;
}

static void test_toolchain_id(void) {
  char a[4300], other[4300], renamed[4300], changed[4300], dir[4300];
  char h1[33], h2[33], h3[33], h4[33];
  static const char script[] = "#!/bin/sh\n# a fake ptxas: only its bytes are read\nexit 1\n";
  mkdir(at(dir, sizeof dir, "tcid-a"), 0777);
  mkdir(at(dir, sizeof dir, "tcid-b"), 0777);
  mkdir(at(dir, sizeof dir, "tcid-c"), 0777);
  at(a, sizeof a, "tcid-a/ptxas");
  at(other, sizeof other, "tcid-b/ptxas");
  at(renamed, sizeof renamed, "tcid-b/my-ptxas");
  at(changed, sizeof changed, "tcid-c/ptxas");
  spill(a, script, sizeof script - 1);
  chmod(a, 0755);
  copy_tool(a, other);
  copy_tool(a, renamed);
  copy_tool(a, changed);
  size_t n;
  unsigned char *bytes = slurp(changed, &n);
  if (bytes && n > 20) bytes[20] ^= 1; /* one byte of its comment */
  if (bytes) spill(changed, bytes, n);
  free(bytes);

  /* (a) two processes, (d) the front and the compiler */
  const char *fake[] = {"-t", "nvptx:sm_90", "--tool", a, NULL};
  tcid_of(CLI, fake, "toolchain id: the front prints 32 hex digits", h1);
  tcid_of(CLI, fake, "toolchain id: a second process prints them", h2);
  check(h1[0] && same_str(h1, h2), "toolchain id: the same in two processes", "%s, %s", h1, h2);
  tcid_of("build/gpublob-compiler", fake, "toolchain id: the compiler prints them", h3);
  check(h1[0] && same_str(h1, h3), "toolchain id: the front and the compiler agree", "%s, %s", h1, h3);
  const char *amd[] = {"-t", "amdgcn:gfx90a,gfx942", "-t", "spirv", "-f", "asm", NULL};
  tcid_of(CLI, amd, "toolchain id: two targets, three chips (front)", h2);
  tcid_of("build/gpublob-compiler", amd, "toolchain id: two targets, three chips (compiler)", h3);
  check(h2[0] && same_str(h2, h3), "toolchain id: the front and the compiler agree on several targets", "%s, %s", h2,
        h3);
  check(h2[0] && strcmp(h1, h2), "toolchain id: other targets, another identity", "%s", h2);

  /* the library in this process: target and chip alone are the CLI's -t */
  gpublob *g = NULL;
  gpublob_options o;
  gpublob_options_init(&o, GPUBLOB_OPTIONS_VERSION);
  o.target = "nvptx:sm_90";
  o.tool = a;
  char hex[GPUBLOB_TOOLCHAIN_ID_SIZE];
  int rc = gpublob_open(&g) ? GPUBLOB_NOMEM : gpublob_toolchain_id(g, &o, hex, sizeof hex);
  check(rc == GPUBLOB_OK && same_str(hex, h1), "toolchain id: the library's is the CLI's", "code %d, %s, %s", rc,
        rc ? gpublob_error_message(g) : hex, h1);

  /* (b) a changed byte, (c) the same bytes elsewhere */
  const char *at_other[] = {"-t", "nvptx:sm_90", "--tool", other, NULL};
  const char *at_renamed[] = {"-t", "nvptx:sm_90", "--tool", renamed, NULL};
  const char *at_changed[] = {"-t", "nvptx:sm_90", "--tool", changed, NULL};
  tcid_of(CLI, at_other, "toolchain id: a copy elsewhere", h2);
  check(h1[0] && same_str(h1, h2), "toolchain id: a byte-identical copy of the tool elsewhere is the same", "%s, %s",
        h1, h2);
  tcid_of(CLI, at_renamed, "toolchain id: a copy of another name", h2);
  check(h1[0] && same_str(h1, h2), "toolchain id: a byte-identical copy of another name is the same", "%s, %s", h1,
        h2);
  tcid_of(CLI, at_changed, "toolchain id: a tool one byte changed", h2);
  check(h1[0] && h2[0] && strcmp(h1, h2), "toolchain id: a tool one byte changed gives another identity", "%s, %s",
        h1, h2);
  tcid_of("build/gpublob-compiler", at_changed, "toolchain id: the compiler, a tool one byte changed", h3);
  check(h2[0] && same_str(h2, h3), "toolchain id: the front and the compiler agree on the changed tool", "%s, %s", h2,
        h3);
  /* found by --tool-dir: the directory is a place, the tool's bytes are not */
  char da[4300], db[4300], dc[4300];
  const char *dir_a[] = {"-t", "nvptx:sm_90", "--tool-mode", "program", "--tool-dir", at(da, sizeof da, "tcid-a"), NULL};
  const char *dir_b[] = {"-t", "nvptx:sm_90", "--tool-mode", "program", "--tool-dir", at(db, sizeof db, "tcid-b"), NULL};
  const char *dir_c[] = {"-t", "nvptx:sm_90", "--tool-mode", "program", "--tool-dir", at(dc, sizeof dc, "tcid-c"), NULL};
  tcid_of(CLI, dir_a, "toolchain id: the tool found by --tool-dir", h2);
  tcid_of(CLI, dir_b, "toolchain id: its copy found by another --tool-dir", h3);
  tcid_of(CLI, dir_c, "toolchain id: the changed tool found by --tool-dir", h4);
  check(h2[0] && same_str(h2, h3), "toolchain id: --tool-dir's copy elsewhere is the same", "%s, %s", h2, h3);
  check(h2[0] && h4[0] && strcmp(h2, h4), "toolchain id: --tool-dir's changed tool gives another identity", "%s, %s",
        h2, h4);
  spill(changed, script, sizeof script - 1); /* the same bytes again, the same inode */
  tcid_of(CLI, at_changed, "toolchain id: the tool changed back", h3);
  check(h1[0] && same_str(h1, h3), "toolchain id: the tool's bytes changed back, its identity back", "%s, %s", h1, h3);

  /* (e) a flag that changes an output changes it; one that changes none does not */
  const char *o2[] = {"-t", "nvptx:sm_90", "--tool", a, "-O2", NULL};
  const char *ftz[] = {"-t", "nvptx:sm_90", "--tool", a, "--ftz", NULL};
  const char *opts[] = {"-t", "nvptx:sm_90", "--tool", a, "--opts", "-lineinfo", NULL};
  const char *neutral[] = {"-t", "nvptx:sm_90", "--tool", a, "--isolate", "--tool-timeout", "9", "-j", "1",
                           "--time", "--remote-read-only", "-O3", "-f", "bin", "--as", "mlir", NULL};
  tcid_of(CLI, o2, "toolchain id: -O2", h2);
  check(h1[0] && h2[0] && strcmp(h1, h2), "toolchain id: -O2 gives another identity", "%s", h2);
  tcid_of(CLI, ftz, "toolchain id: --ftz", h3);
  check(h1[0] && h3[0] && strcmp(h1, h3) && strcmp(h2, h3), "toolchain id: --ftz gives another identity", "%s", h3);
  tcid_of(CLI, opts, "toolchain id: --opts", h3);
  check(h1[0] && h3[0] && strcmp(h1, h3), "toolchain id: the tool's options give another identity", "%s", h3);
  tcid_of(CLI, neutral, "toolchain id: flags that change no output", h4);
  check(h1[0] && same_str(h1, h4), "toolchain id: --isolate, a timeout, -j, --time, --remote-read-only and the "
        "defaults given (-O3, -f bin, --as mlir) change nothing", "%s, %s", h1, h4);

  /* the real ptxas, where CUDA is: a copy of it in another directory is the same */
  char ptxas[4300] = "", copy[4300];
  if (g) tool_path(g, &(gpublob_options){.version = GPUBLOB_OPTIONS_VERSION, .target = "nvptx", .tool_mode =
                                                  GPUBLOB_TOOL_PROGRAM}, ptxas, sizeof ptxas);
  if (!have_ptxas() || !*ptxas) {
    skip("toolchain id: a copy of the real ptxas", "no ptxas (CUDA)");
  } else {
    mkdir(at(dir, sizeof dir, "tcid-d"), 0777);
    at(copy, sizeof copy, "tcid-d/ptxas");
    const char *real[] = {"-t", "nvptx:sm_90", "--tool-mode", "program", NULL};
    const char *copied[] = {"-t", "nvptx:sm_90", "--tool-mode", "program", "--tool-dir", dir, NULL};
    tcid_of(CLI, real, "toolchain id: the real ptxas", h2);
    check(!copy_tool(ptxas, copy), "toolchain id: ptxas copied", "%s to %s", ptxas, copy);
    tcid_of(CLI, copied, "toolchain id: a copy of the real ptxas", h3);
    check(h2[0] && same_str(h2, h3), "toolchain id: a copy of the real ptxas elsewhere is the same", "%s, %s", h2, h3);
    unlink(copy);
  }

  /* (f) bad options and bad calls are clean errors */
  char *log = NULL;
  const char *bogus[] = {"-t", "bogus", NULL};
  rc = tcid(CLI, bogus, hex, &log);
  check(rc == 10 + GPUBLOB_TARGET && contains(log, "unknown target 'bogus'") && !hex[0],
        "toolchain id: an unknown target is TARGET, no identity", "exit %d: %s", rc, shown(log));
  free(log);
  const char *input[] = {IN, NULL};
  rc = tcid(CLI, input, hex, &log);
  check(rc == 2 && contains(log, "takes no input"), "toolchain id: an input is a usage error", "exit %d: %s", rc,
        shown(log));
  free(log);
  o.target = "bogus";
  memcpy(hex, "x", 2);
  rc = g ? gpublob_toolchain_id(g, &o, hex, sizeof hex) : -1;
  check(rc == GPUBLOB_TARGET && !hex[0], "toolchain id: the library's unknown target is TARGET, hex \"\"",
        "code %d, '%s'", rc, hex);
  o.target = "nvptx";
  rc = g ? gpublob_toolchain_id(g, &o, hex, GPUBLOB_TOOLCHAIN_ID_SIZE - 1) : -1;
  check(rc == GPUBLOB_MISUSE, "toolchain id: a buffer too small is MISUSE", "code %d", rc);
  rc = g ? gpublob_toolchain_id(g, &o, NULL, 0) : -1;
  check(rc == GPUBLOB_MISUSE, "toolchain id: a NULL buffer is MISUSE", "code %d", rc);
  rc = gpublob_toolchain_id(NULL, &o, hex, sizeof hex);
  check(rc == GPUBLOB_MISUSE, "toolchain id: a NULL handle is MISUSE", "code %d", rc);
  gpublob_close(g);
}

int main(void) {
  gpublob_target_info t;
  for (int i = 0; i < gpublob_target_count(); i++)
    if (!gpublob_target_get(i, &t, sizeof t) && !strcmp(t.name, "nvptx")) ptx = t.suffix_asm;
  test_dir();
  test_one_output_dir();
  test_pattern();
  test_mlir_dir();
  test_file_no_dir();
  test_not_regular();
  test_impossible();
  test_rollback();
  test_front();
  test_opt_equals();
  test_short_attached();
  test_double_dash();
  test_unknown();
  test_help();
  test_short_help();
  test_list_targets();
  test_tunables();
  test_tool_env_withheld();
  test_toolchain_id();
  return report();
}
