/* test_debug: debug information through to the blob (--debug, options' debug).
**
** clang-22 compiles tests/clang/debug.cu (CUDA) and debug.hip (HIP) with -O0 -g and with
** -O3 -gline-tables-only, to the LLVM IR gpublob reads and to clang's own device blob.
** Each blob's line table (llvm-dwarfdump-22 --debug-line: its file names and the rows'
** lines) is gpublob's as it is clang's; --as clang gives clang's blob byte for byte where
** its ptxas run is reproducible (line directives alone, and every HIP compile); --debug
** none leaves no .debug_line, lines no variable's DIE; a source touched and compiled
** again gives the same bytes, and a cache hit the miss's; -O0 -g CUDA compiled twice
** gives the same cubin.  CUDA parts skip without the
** toolkit (ptxas). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/time.h>

#define GPUBLOB_DISABLE_DEPRECATE_WARNINGS
#include "gpublob.h"
#include "testlib.h"

#define DWARFDUMP LLVM_BINDIR "/llvm-dwarfdump"
#define READELF LLVM_BINDIR "/llvm-readelf"
#define CLI "build/gpublob"
#define SRC "tests/clang/"

/* A source's copy in the scratch directory (so that touching it touches no file of
** the tree), with its header beside it. */
static const char *copy_source(const char *name, const char *header, char *path, size_t size) {
  char from[4200], to[4200];
  const char *files[] = {header, name};
  for (int i = 0; i < 2; i++) {
    size_t n = 0;
    snprintf(from, sizeof from, SRC "%s", files[i]);
    snprintf(to, sizeof to, "%s/%s", scratch(), files[i]);
    unsigned char *b = slurp(from, &n);
    if (!b || spill(to, b, n)) {
      free(b);
      return NULL;
    }
    free(b);
  }
  snprintf(path, size, "%s/%s", scratch(), name);
  return path;
}

/* The source's time stamp set to secs past the epoch. */
static int set_mtime(const char *path, long secs) {
  struct timeval tv[2] = {{secs, 0}, {secs, 0}};
  return utimes(path, tv);
}

static char *output_of(const char *const *argv) {
  char *out = NULL;
  int rc = run(argv, &out);
  if (rc) {
    free(out);
    return NULL;
  }
  return out ? out : strdup("");
}

/* A blob's line table as files and lines: each "name:" of its file names, then each
** row's line and file, in the table's order. */
static char *line_table(const char *blob) {
  const char *argv[] = {DWARFDUMP, "--debug-line", blob, NULL};
  char *dump = output_of(argv);
  if (!dump) return NULL;
  size_t cap = strlen(dump) + 1, len = 0;
  char *t = calloc(1, cap);
  for (char *p = dump; t && p && *p;) {
    char *nl = strchr(p, '\n'), *end = nl ? nl : p + strlen(p);
    char *name = strstr(p, "name: \"");
    unsigned long long addr;
    unsigned line, col, file;
    if (name && name < end) {
      char *q = strchr(name + 7, '"');
      if (q && q < end) len += (size_t)snprintf(t + len, cap - len, "file %.*s\n", (int)(q - name - 7), name + 7);
    } else if (sscanf(p, "0x%llx %u %u %u", &addr, &line, &col, &file) == 4) {
      len += (size_t)snprintf(t + len, cap - len, "%u %u\n", line, file);
    }
    p = nl ? nl + 1 : NULL;
  }
  free(dump);
  return t;
}

static int has_section(const char *blob, const char *section) {
  const char *argv[] = {READELF, "-S", "-W", blob, NULL};
  char *h = output_of(argv);
  int has = h && contains(h, section);
  free(h);
  return has;
}

/* DIEs of variables and parameters in a blob's .debug_info. */
static int variable_dies(const char *blob) {
  const char *argv[] = {DWARFDUMP, "--debug-info", blob, NULL};
  char *d = output_of(argv);
  int n = 0;
  for (const char *p = d; p && (p = strstr(p, "DW_TAG_")); p++)
    n += !strncmp(p, "DW_TAG_variable", 15) || !strncmp(p, "DW_TAG_formal_parameter", 23);
  free(d);
  return n;
}

static int same_file(const char *a, const char *b) {
  size_t na = 0, nb = 0;
  unsigned char *x = slurp(a, &na), *y = slurp(b, &nb);
  int same = x && y && na == nb && !memcmp(x, y, na);
  free(x);
  free(y);
  return same;
}

static int gpublob_cli(const char *const *args) {
  const char *argv[24];
  int n = 0;
  argv[n++] = CLI;
  argv[n++] = "--no-cache";
  for (; *args && n < 22; args++) argv[n++] = *args;
  argv[n] = NULL;
  char *log = NULL;
  int rc = run(argv, &log);
  if (rc) printf("  (gpublob: %s)\n", shown(log));
  free(log);
  return rc;
}

/* One language's sources and commands. */
typedef struct lang {
  const char *name, *src, *header, *target, *suffix;
  const char *clang[10]; /* clang's words for the device compile, before the level */
  const char *blob_words[3]; /* to clang's own blob */
} lang;

static char cuda_path[4300];
static const lang cuda = {"cuda", "debug.cu", "cuda_defs.h", "nvptx:sm_90", "cubin",
                          {"-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_90", "-nocudainc", "-nocudalib",
                           cuda_path, NULL},
                          {"-c", NULL}};
static const lang hip = {"hip", "debug.hip", "hip_defs.h", "amdgcn:gfx90a", "hsaco",
                         {"-x", "hip", "--cuda-device-only", "--offload-arch=gfx90a", "-nogpuinc", "-nogpulib",
                          "-mcode-object-version=5", "-cuid=gpublob-test", NULL},
                         {"--no-gpu-bundle-output", "-c", NULL}};

/* clang's IR (ir != 0: -Xclang -disable-llvm-passes -S -emit-llvm) or blob of src at level
** (two words: "-O0", "-g"). */
static int clang_make(const lang *l, const char *src, const char *const level[2], int ir, const char *out) {
  const char *flags[24];
  int n = 0;
  for (int i = 0; l->clang[i]; i++) flags[n++] = l->clang[i];
  flags[n++] = level[0];
  flags[n++] = level[1];
  const char *irw[] = {"-Xclang", "-disable-llvm-passes", "-S", "-emit-llvm", NULL};
  for (const char *const *w = ir ? irw : l->blob_words; *w; w++) flags[n++] = *w;
  flags[n] = NULL;
  char what[300];
  snprintf(what, sizeof what, "%s %s %s %s to %s", l->name, l->src, level[0], level[1], ir ? "LLVM IR" : "a blob");
  return clang_ir(flags, src, out, what);
}

/* A file in scratch: STEM.SUFFIX. */
static const char *at(char *buf, size_t size, const char *stem, const char *suffix) {
  snprintf(buf, size, "%s/%s.%s", scratch(), stem, suffix);
  return buf;
}

/* gpublob's line table is clang's, for one language and level; --as clang's blob is
** clang's byte for byte where asked (exact). */
static void lines_as_clang(const lang *l, const char *src, const char *const level[2], int exact) {
  char ll[4400], ours[4400], asclang[4400], theirs[4400], stem[100], name[300];
  snprintf(stem, sizeof stem, "%s%s%s", l->name, level[0], level[1]);
  snprintf(name, sizeof name, "%s %s %s", l->name, level[0], level[1]);
  if (clang_make(l, src, level, 1, at(ll, sizeof ll, stem, "ll")) ||
      clang_make(l, src, level, 0, at(theirs, sizeof theirs, stem, "clang.blob")))
    return;
  const char *as_args[] = {"--as", "clang", "-t", l->target, level[0], ll, "-o",
                           at(asclang, sizeof asclang, stem, "asclang.blob"), NULL};
  const char *t_args[] = {"-t", l->target, level[0], ll, "-o", at(ours, sizeof ours, stem, l->suffix), NULL};
  int rc = gpublob_cli(t_args), rc2 = gpublob_cli(as_args);
  char label[400];
  snprintf(label, sizeof label, "%s: gpublob compiles clang's IR (default and --as clang)", name);
  check(rc == 0 && rc2 == 0, label, "exit %d, %d", rc, rc2);
  if (rc || rc2) return;
  char *mine = line_table(ours), *clangs = line_table(theirs), *as = line_table(asclang);
  snprintf(label, sizeof label, "%s: the blob's line table names clang's files and lines", name);
  check(mine && clangs && *clangs && same_str(mine, clangs), label, "gpublob:\n%s\nclang:\n%s", shown(mine),
        shown(clangs));
  snprintf(label, sizeof label, "%s: --as clang's line table is clang's", name);
  check(as && clangs && same_str(as, clangs), label, "%s", shown(as));
  if (exact) {
    snprintf(label, sizeof label, "%s: --as clang gives clang's blob byte for byte", name);
    check(same_file(asclang, theirs), label, "%s and %s differ", asclang, theirs);
  }
  free(mine);
  free(clangs);
  free(as);
}

/* A build without src/passes.cpp (no C++ compiler: the sanitized suite's) cannot cut a
** module to its line tables: --debug lines is OPTION naming it, none and full compile. */
static void levels_without_cxx(const lang *l, const char *src) {
  static const char *const level[2] = {"-O0", "-g"};
  char ll[4400], out[4400], label[400];
  if (clang_make(l, src, level, 1, at(ll, sizeof ll, "levels", "ll"))) return;
  static const char *const words[] = {"none", "lines", "full"};
  for (int i = 0; i < 3; i++) {
    char stem[60];
    snprintf(stem, sizeof stem, "%s_nocxx_%s", l->name, words[i]);
    const char *args[] = {"-t", l->target, "-O0", "--debug", words[i], ll, "-o", at(out, sizeof out, stem, l->suffix),
                          NULL};
    int rc = gpublob_cli(args);
    snprintf(label, sizeof label, "%s -O0 -g IR, --debug %s, built without src/passes.cpp: %s", l->name, words[i],
             i == 1 ? "OPTION, nothing written" : "compiles");
    check(i == 1 ? rc == 10 + GPUBLOB_OPTION && access(out, F_OK) : rc == 0, label, "exit %d", rc);
  }
}

/* --debug none, lines, full of -O0 -g IR: what each keeps. */
static void levels(const lang *l, const char *src) {
  static const char *const level[2] = {"-O0", "-g"};
  char ll[4400], out[4400], label[400];
  if (clang_make(l, src, level, 1, at(ll, sizeof ll, "levels", "ll"))) return;
  static const char *const words[] = {"none", "lines", "full"};
  int vars[3] = {0};
  for (int i = 0; i < 3; i++) {
    char stem[60];
    snprintf(stem, sizeof stem, "%s_debug_%s", l->name, words[i]);
    const char *args[] = {"-t", l->target, "-O0", "--debug", words[i], ll, "-o", at(out, sizeof out, stem, l->suffix),
                          NULL};
    int rc = gpublob_cli(args);
    snprintf(label, sizeof label, "%s -O0 -g IR, --debug %s: compiles", l->name, words[i]);
    check(rc == 0, label, "exit %d", rc);
    if (rc) return;
    int line = has_section(out, ".debug_line");
    vars[i] = variable_dies(out);
    snprintf(label, sizeof label, "%s -O0 -g IR, --debug %s: %s .debug_line", l->name, words[i], i ? "a" : "no");
    check(i ? line : !line, label, "%s", out);
  }
  snprintf(label, sizeof label, "%s -O0 -g IR: --debug lines keeps no variable's DIE, full keeps them", l->name);
  check(vars[0] == 0 && vars[1] == 0 && vars[2] > 0, label, "none %d, lines %d, full %d", vars[0], vars[1], vars[2]);
}

/* IR made again from a touched source gives the same blob; a cache's second call hits
** with the same bytes. */
static void touch_and_cache(const lang *l, const char *src) {
  static const char *const level[2] = {"-O3", "-gline-tables-only"};
  char ll[4400], a[4400], b[4400], label[400];
  const char *args[] = {"-t", l->target, at(ll, sizeof ll, "touched", "ll"), "-o", NULL, NULL};
  for (int i = 0; i < 2; i++) {
    set_mtime(src, i ? 2000000000L : 1000000000L);
    if (clang_make(l, src, level, 1, ll)) return;
    args[4] = i ? at(b, sizeof b, "touched2", l->suffix) : at(a, sizeof a, "touched1", l->suffix);
    if (gpublob_cli(args)) return;
  }
  snprintf(label, sizeof label, "%s -O3 -gline-tables-only: the source touched, the IR made again: the same blob",
           l->name);
  check(same_file(a, b) && has_section(a, ".debug_line"), label, "%s and %s differ (or no .debug_line)", a, b);
  gpublob *g = NULL;
  if (gpublob_open(&g)) return;
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = l->target, .cache_dir = tmp_path("debugcache")};
  gpublob_result r[2] = {{0}, {0}};
  gpublob_stats s[2];
  int rc[2];
  for (int i = 0; i < 2; i++) {
    rc[i] = gpublob_file_compile_all(g, &o, ll, &r[i]);
    gpublob_stats_get(g, &s[i], sizeof s[i]);
  }
  snprintf(label, sizeof label, "%s -O3 -gline-tables-only: a cache's second call hits, with the miss's bytes", l->name);
  int same = !rc[0] && !rc[1] && r[0].count == 1 && r[1].count == 1 &&
             r[0].outputs[0].blob.size == r[1].outputs[0].blob.size &&
             !memcmp(r[0].outputs[0].blob.data, r[1].outputs[0].blob.data, r[0].outputs[0].blob.size);
  check(same && s[0].cache_misses == 1 && s[1].cache_hits == 1, label, "rc %d %d, hits %zu, misses %zu", rc[0], rc[1],
        s[1].cache_hits, s[0].cache_misses);
  size_t n = 0;
  unsigned char *cli = slurp(a, &n);
  snprintf(label, sizeof label, "%s -O3 -gline-tables-only: the library's blob is the CLI's", l->name);
  check(same && cli && n == r[0].outputs[0].blob.size && !memcmp(cli, r[0].outputs[0].blob.data, n), label,
        "%zu bytes against %zu", n, same ? r[0].outputs[0].blob.size : 0);
  free(cli);
  gpublob_result_free(&r[0]);
  gpublob_result_free(&r[1]);
  gpublob_close(g);
}

/* -O0 -g CUDA IR at gpublob's default level: it compiles (ptxas no longer fails with
** "Optimized debugging not supported"), ptxas gets -lineinfo's table, not -g. */
static void cuda_O0_ir_optimised(const char *src) {
  static const char *const level[2] = {"-O0", "-g"};
  char ll[4400], out[4400];
  if (clang_make(&cuda, src, level, 1, at(ll, sizeof ll, "O0g_default", "ll"))) return;
  const char *args[] = {"-t", cuda.target, ll, "-o", at(out, sizeof out, "O0g_default", "cubin"), NULL};
  int rc = gpublob_cli(args);
  check(rc == 0 && has_section(out, ".debug_line") && !has_section(out, ".debug_info"),
        "cuda -O0 -g IR at -O3: compiles, with a line table and no full DWARF (as clang -O3 -g)", "exit %d", rc);
}

/* -O0 -g CUDA IR at -O0 (ptxas -g) twice, each a new process: the same cubin.  ptxas -g
** records its input's name in .note.nv.tkinfo: a file's of a fixed name, not the
** temporary copy of its stdin (tmpxft_<pid>_..._stdin); and it keeps the PTX's text
** (.nv_debug_ptx_txt), which it reads again from its input. */
static void cuda_O0g_reproducible(const char *src) {
  static const char *const level[2] = {"-O0", "-g"};
  char ll[4400], a[4400], b[4400];
  if (clang_make(&cuda, src, level, 1, at(ll, sizeof ll, "O0g_twice", "ll"))) return;
  const char *args[] = {"-t", cuda.target, "-O0", ll, "-o", at(a, sizeof a, "O0g_twice1", "cubin"), NULL};
  int rc = gpublob_cli(args);
  args[5] = at(b, sizeof b, "O0g_twice2", "cubin");
  int rc2 = rc ? rc : gpublob_cli(args);
  check(rc == 0 && rc2 == 0 && has_section(a, ".debug_info") && has_section(a, ".nv_debug_ptx_txt") && same_file(a, b),
        "cuda -O0 -g IR at -O0, two runs (--no-cache): the same cubin, with its DWARF and PTX text",
        "exit %d, %d; %s and %s", rc, rc2, a, b);
}

static void bad_level(void) {
  const char *argv[] = {CLI, "--debug", "some", "examples/saxpy_amdgcn.ll", "-o", tmp_path("bad.hsaco"), NULL};
  char *log = NULL;
  int rc = run(argv, &log);
  check(rc == 2 && contains(log, "--debug wants none, lines or full"), "--debug some: a usage error naming the words",
        "exit %d: %s", rc, shown(log));
  free(log);
  gpublob *g = NULL;
  if (gpublob_open(&g)) return;
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = "amdgcn:gfx90a", .debug = 9};
  gpublob_result r = {0};
  rc = gpublob_file_compile_all(g, &o, "examples/saxpy_amdgcn.ll", &r);
  check(rc == GPUBLOB_OPTION && contains(gpublob_error_message(g), "unknown debug 9"), "options' debug 9: OPTION",
        "rc %d: %s", rc, gpublob_error_message(g));
  gpublob_close(g);
}

int main(void) {
  bad_level();
  static char cu_path[4200], hip_path[4200];
  const char *cu = copy_source(cuda.src, cuda.header, cu_path, sizeof cu_path);
  const char *hp = copy_source(hip.src, hip.header, hip_path, sizeof hip_path);
  check(cu && hp, "the sources copied to the scratch directory", "%s", scratch());
  if (!cu || !hp) return report();
  static const char *const O0g[2] = {"-O0", "-g"}, *const O3l[2] = {"-O3", "-gline-tables-only"};
  int cxx = have_llvm_cxx();
  lines_as_clang(&hip, hp, O0g, 1);
  lines_as_clang(&hip, hp, O3l, 1);
  if (cxx) levels(&hip, hp);
  else levels_without_cxx(&hip, hp);
  touch_and_cache(&hip, hp);
  if (!have_ptxas()) {
    skip("cuda debug information", "CUDA toolkit (ptxas) not found");
    return report();
  }
  if (!cxx) { /* CUDA's line tables above -O0, and its --as clang, need the cut */
    skip("cuda debug information", "built without src/passes.cpp (no C++ compiler: the sanitized suite's)");
    return report();
  }
  snprintf(cuda_path, sizeof cuda_path, "--cuda-path=%s", "/usr/local/cuda");
  lines_as_clang(&cuda, cu, O0g, 0); /* ptxas -g records its input's name: clang's a temporary file's */
  lines_as_clang(&cuda, cu, O3l, 1);
  levels(&cuda, cu);
  touch_and_cache(&cuda, cu);
  cuda_O0_ir_optimised(cu);
  cuda_O0g_reproducible(cu);
  return report();
}
