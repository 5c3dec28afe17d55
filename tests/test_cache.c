/* test_cache: the content-addressed cache.  A miss then a hit; any option, a
** changed blob tool or device library misses; a corrupt or truncated file is
** recomputed, never served; processes writing at once; a read-only directory
** still compiles and warns once, and still serves hits; the size limit evicts the
** oldest; the CLI's directory (XDG, 0700) and its front answering hits. */
#define _GNU_SOURCE
#include <dirent.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* These checks call the 1.0 calls too (gpublob_module_compile and the like), which
** stay supported: without their deprecation warnings. */
#define GPUBLOB_DISABLE_DEPRECATE_WARNINGS
#include "gpublob.h"
#include "testlib.h"

static gpublob *g;

static gpublob_options opts_for(const char *dir, const char *target) {
  return (gpublob_options){.version = GPUBLOB_OPTIONS_VERSION, .target = target, .cache_dir = dir};
}

static gpublob_stats compile(const gpublob_options *o, const char *path, gpublob_result *r, int *rc) {
  gpublob_stats s;
  *rc = gpublob_file_compile_all(g, o, path, r);
  if (*rc) printf("  (%s)\n", gpublob_error_message(g));
  gpublob_stats_get(g, &s, sizeof s);
  return s;
}

/* NULL when a and b have the same count, chips, tools, suffixes and bytes; else the
** first difference (in a static buffer, for the message). */
static const char *differs(const gpublob_result *a, const gpublob_result *b) {
  static char why[200];
  if (a->count != b->count) {
    snprintf(why, sizeof why, "%zu outputs against %zu", a->count, b->count);
    return why;
  }
  for (size_t i = 0; i < a->count; i++) {
    const gpublob_output *x = &a->outputs[i], *y = &b->outputs[i];
    if (strcmp(x->chip, y->chip) || strcmp(x->tool, y->tool) || strcmp(x->blob.suffix, y->blob.suffix) ||
        x->blob.size != y->blob.size || memcmp(x->blob.data, y->blob.data, x->blob.size)) {
      snprintf(why, sizeof why, "output %zu: %s %s %s, %zu bytes against %s %s %s, %zu bytes", i, x->chip, x->tool,
               x->blob.suffix, x->blob.size, y->chip, y->tool, y->blob.suffix, y->blob.size);
      return why;
    }
  }
  return NULL;
}

/* The first file under dir (two levels: v3/xx/) whose name ends with suffix; its
** path in out.  Also counts files whose name contains part into *count, and their
** bytes into *bytes, when given. */
static int find_file(const char *dir, const char *suffix, char *out, size_t size, const char *part,
                     int *count, long *bytes) {
  char layout[4200];
  snprintf(layout, sizeof layout, "%s/v3", dir);
  DIR *top = opendir(layout);
  struct dirent *e, *f;
  int found = 0;
  while (top && (e = readdir(top))) {
    if (e->d_name[0] == '.' || strlen(e->d_name) != 2) continue;
    char sub[4300];
    snprintf(sub, sizeof sub, "%s/%s", layout, e->d_name);
    DIR *d = opendir(sub);
    while (d && (f = readdir(d))) {
      char path[4600];
      snprintf(path, sizeof path, "%s/%s", sub, f->d_name);
      size_t n = strlen(f->d_name), m = suffix ? strlen(suffix) : 0;
      struct stat st;
      if (part && count && strstr(f->d_name, part)) ++*count;
      if (bytes && f->d_name[0] != '.' && !stat(path, &st)) *bytes += st.st_size;
      if (!found && suffix && n >= m && !strcmp(f->d_name + n - m, suffix)) {
        snprintf(out, size, "%s", path);
        found = 1;
      }
    }
    if (d) closedir(d);
  }
  if (top) closedir(top);
  return found;
}

static int mode_of(const char *path) {
  struct stat st;
  return stat(path, &st) ? -1 : (int)(st.st_mode & 07777);
}

/* ---- a miss, then a hit; the key covers every option ---- */
static void test_miss_hit(void) {
  const char *dir = tmp_path("c1");
  gpublob_options o = opts_for(dir, "amdgcn:gfx90a,gfx908");
  gpublob_result first = {0}, second = {0}, other = {0};
  int rc, rc2, rc3;
  gpublob_stats s1 = compile(&o, "examples/saxpy_amdgcn.ll", &first, &rc);
  gpublob_stats s2 = compile(&o, "examples/saxpy_amdgcn.ll", &second, &rc2);
#define HIT "cache: a miss, then a hit with the same outputs, chips and tool, and no job run"
  const char *d;
  check(rc == 0, HIT ": the first call compiles", "rc %d", rc);
  check(rc2 == 0, HIT ": the second call succeeds", "rc %d", rc2);
  check(s1.cache_misses == 1, HIT ": the first call misses", "%zu misses", s1.cache_misses);
  check(s1.cache_writes == 1, HIT ": the first call writes", "%zu writes", s1.cache_writes);
  check(s2.cache_hits == 1, HIT ": the second call hits", "%zu hits", s2.cache_hits);
  check(s2.jobs == 0, HIT ": the second call runs no job", "%zu jobs", s2.jobs);
  check(first.count == 2, HIT ": two outputs", "%zu outputs", first.count);
  d = differs(&first, &second);
  check(!d, HIT ": the same outputs", "%s", d);
  check_if(second.count > 1, same_str(second.outputs[1].chip, "gfx908"), HIT ": the second output is gfx908's", "chip %s",
           second.outputs[1].chip);
  check_if(second.count > 0, same_str(second.outputs[0].tool, auto_tool("amdgcn")), HIT ": made by auto's tool",
           "tool %s", second.outputs[0].tool);
  check_if(second.count > 0, same_str(second.outputs[0].target, "amdgcn"), HIT ": target amdgcn", "target %s",
           second.outputs[0].target);
#undef HIT
  char layout[4200];
  snprintf(layout, sizeof layout, "%s/v3", dir);
  check(mode_of(dir) == 0700, "cache: the directory it makes has mode 0700", "%o", mode_of(dir));
  check(mode_of(layout) == 0700, "cache: the directory it makes has mode 0700: its layout directory (v3) too", "%o", mode_of(layout));
  gpublob_options o2 = o;
  o2.opt = GPUBLOB_OPT_O2;
  gpublob_stats s3 = compile(&o2, "examples/saxpy_amdgcn.ll", &other, &rc3);
  check(rc3 == 0, "cache: another level (-O2) misses: compiles", "rc %d", rc3);
  check(s3.cache_misses == 1, "cache: another level (-O2) misses", "%zu misses", s3.cache_misses);
  check(s3.cache_hits == 0, "cache: another level (-O2) misses: no hit", "%zu hits", s3.cache_hits);
  gpublob_result_free(&other);
  o2 = o;
  o2.as = GPUBLOB_AS_CLANG; /* whose defaults: in the keys, though saxpy's hsaco may be the same */
  s3 = compile(&o2, "examples/saxpy_amdgcn.ll", &other, &rc3);
  check(rc3 == 0, "cache: --as clang misses: compiles", "rc %d", rc3);
  check(s3.cache_misses == 1 && s3.cache_hits == 0, "cache: --as clang misses (the words are in the keys)",
        "%zu misses, %zu hits", s3.cache_misses, s3.cache_hits);
  gpublob_result_free(&other);
  o2.as = GPUBLOB_AS_MLIR;
  s3 = compile(&o2, "examples/saxpy_amdgcn.ll", &other, &rc3);
  check(rc3 == 0 && s3.cache_misses == 1 && !differs(&first, &other),
        "cache: --as mlir misses too (another word), and gives the default's outputs", "rc %d, %zu misses", rc3,
        s3.cache_misses);
  gpublob_result_free(&other);
  o2 = o;
  o2.features = "+xnack";
  s3 = compile(&o2, "examples/saxpy_amdgcn.ll", &other, &rc3);
  check(rc3 == 0, "cache: other features miss: compiles", "rc %d", rc3);
  check(s3.cache_misses == 1, "cache: other features miss", "%zu misses", s3.cache_misses);
  gpublob_result_free(&other);
  size_t n;
  unsigned char *ir = slurp("examples/saxpy_amdgcn.ll", &n); /* NULL: every lookup below fails, not checked */
  rc = ir ? gpublob_cache_lookup(g, &o, &(gpublob_input){GPUBLOB_INPUT_LLVM, ir, n, NULL, "examples/saxpy_amdgcn.ll"}, &other) : -1;
  check_if(ir, rc == 0, "cache: gpublob_cache_lookup finds it without compiling", "rc %d", rc);
  d = differs(&first, &other);
  check_if(ir, !d, "cache: gpublob_cache_lookup finds it without compiling: the same outputs", "%s", d);
  gpublob_result_free(&other);
  if (ir && n > 2) ir[n - 2] = ir[n - 2] == ' ' ? '\t' : ' '; /* one byte of the input */
  rc = ir ? gpublob_cache_lookup(g, &o, &(gpublob_input){GPUBLOB_INPUT_LLVM, ir, n, NULL, "examples/saxpy_amdgcn.ll"}, &other) : -1;
  check_if(ir, rc == GPUBLOB_NOTCACHED, "cache: one changed input byte is NOTCACHED", "rc %d", rc);
  check_if(ir, other.count == 0, "cache: one changed input byte is NOTCACHED: no output", "%zu outputs", other.count);
  gpublob_options none = {.version = GPUBLOB_OPTIONS_VERSION};
  rc = ir ? gpublob_cache_lookup(g, &none, &(gpublob_input){GPUBLOB_INPUT_LLVM, ir, n, NULL, "x.ll"}, &other) : -1;
  check_if(ir, rc == GPUBLOB_OPTION, "cache: a lookup without a cache directory is OPTION", "rc %d", rc);
  free(ir);
  gpublob_result_free(&first);
  gpublob_result_free(&second);
}

/* ---- a changed blob tool, or device library, misses ---- */
static int sh(const char *cmd) {
  const char *argv[] = {"sh", "-c", cmd, NULL};
  char *out = NULL;
  int rc = run(argv, &out);
  if (rc) printf("  (%s: %s)\n", cmd, out);
  free(out);
  return rc;
}

static void test_tool_digest(void) {
  const char *dir = tmp_path("c2"), *tool = tmp_path("ld.lld");
  char cmd[8400];
  if (!need_rocm("cache: a changed blob tool (one byte appended) misses, then hits again")) return;
  snprintf(cmd, sizeof cmd, "cp -L %s/ld.lld %s", LLVM_BINDIR, tool);
  if (sh(cmd)) {
    skip("cache: a changed blob tool (one byte appended) misses, then hits again", "could not copy ld.lld");
    return;
  }
  gpublob_options o = opts_for(dir, "amdgcn:gfx90a");
  o.tool = tool;
  gpublob_result r[4] = {{0}};
  int rc[4];
  gpublob_stats s0 = compile(&o, "examples/saxpy_amdgcn.ll", &r[0], &rc[0]);
  gpublob_stats s1 = compile(&o, "examples/saxpy_amdgcn.ll", &r[1], &rc[1]);
  snprintf(cmd, sizeof cmd, "printf '\\0' >> %s", tool); /* the same program, one byte longer */
  sh(cmd);
  gpublob_stats s2 = compile(&o, "examples/saxpy_amdgcn.ll", &r[2], &rc[2]);
  gpublob_stats s3 = compile(&o, "examples/saxpy_amdgcn.ll", &r[3], &rc[3]);
#define TOOL "cache: a changed blob tool (one byte appended) misses, then hits again"
  for (int i = 0; i < 4; i++) {
    char label[200];
    snprintf(label, sizeof label, TOOL ": call %d succeeds", i + 1);
    check(rc[i] == 0, label, "rc %d", rc[i]);
  }
  check(s0.cache_misses == 1, TOOL ": the first call misses", "hits/misses %zu/%zu", s0.cache_hits, s0.cache_misses);
  check(s1.cache_hits == 1, TOOL ": the second call hits", "hits/misses %zu/%zu", s1.cache_hits, s1.cache_misses);
  check(s2.cache_misses == 1, TOOL ": after the change, a miss", "hits/misses %zu/%zu", s2.cache_hits, s2.cache_misses);
  check(s2.jobs == 1, TOOL ": after the change, the job runs", "%zu jobs", s2.jobs);
  check(s3.cache_hits == 1, TOOL ": then a hit again", "hits/misses %zu/%zu", s3.cache_hits, s3.cache_misses);
  const char *d = differs(&r[0], &r[2]);
  check(!d, TOOL ": the same outputs", "%s", d);
#undef TOOL
  for (int i = 0; i < 4; i++) gpublob_result_free(&r[i]);
}

static void test_lib_digest(void) {
  const char *dir = tmp_path("c3"), *libs = tmp_path("bitcode");
  char cmd[8400];
  snprintf(cmd, sizeof cmd, "mkdir -p %s && cp /usr/lib/x86_64-linux-gnu/amdgcn/bitcode/*.bc %s", libs, libs);
  if (sh(cmd)) {
    skip("cache: a changed device library misses", "no ROCm bitcode to copy");
    return;
  }
  gpublob_options o = opts_for(dir, "amdgcn:gfx90a");
  o.lib_dirs = libs;
  o.tool_dirs = LLVM_BINDIR;
  o.flags = GPUBLOB_FLAG_NO_DEFAULT_SEARCH;
  gpublob_result r[3] = {{0}};
  int rc[3];
  gpublob_stats s0 = compile(&o, "examples/saxpy_amdgcn.ll", &r[0], &rc[0]);
  gpublob_stats s1 = compile(&o, "examples/saxpy_amdgcn.ll", &r[1], &rc[1]);
  /* the same functions, other bytes: ockl.bc through llvm-dis and llvm-as */
  snprintf(cmd, sizeof cmd, "%s/llvm-dis %s/ockl.bc -o - | %s/llvm-as -o %s/ockl.new && mv %s/ockl.new %s/ockl.bc",
           LLVM_BINDIR, libs, LLVM_BINDIR, libs, libs, libs);
  int rewritten = sh(cmd) == 0;
  gpublob_stats s2 = compile(&o, "examples/saxpy_amdgcn.ll", &r[2], &rc[2]);
#define LIB "cache: a changed device library (ockl.bc rewritten) misses"
  check(rewritten, LIB ": llvm-dis | llvm-as rewrites ockl.bc", NULL);
  for (int i = 0; i < 3; i++) {
    char label[200];
    snprintf(label, sizeof label, LIB ": call %d succeeds", i + 1);
    check(rc[i] == 0, label, "rc %d", rc[i]);
  }
  check(s0.cache_misses == 1, LIB ": the first call misses", "%zu misses", s0.cache_misses);
  check(s1.cache_hits == 1, LIB ": the second call hits", "%zu hits", s1.cache_hits);
  check(s2.cache_misses == 1, LIB, "hits %zu, misses %zu", s2.cache_hits, s2.cache_misses);
  check(s2.jobs == 1, LIB ": the job runs", "%zu jobs", s2.jobs);
#undef LIB
  for (int i = 0; i < 3; i++) gpublob_result_free(&r[i]);
}

/* A hit resolves each distinct job record of a manifest once (2 gpu.modules x 2
** chips: 2 records for 4 jobs): a changed device library, then a changed blob tool,
** still misses, and the call after each hits again. */
static void test_shared_records(void) {
#define SHARED "cache: 2 gpu.modules x 2 chips, a library then the tool changed: each misses, then hits"
  if (!gpublob_mlir_enabled()) {
    skip(SHARED, "built without MLIR");
    return;
  }
  const char *dir = tmp_path("c-shared"), *libs = tmp_path("bitcode7"), *tooldir = tmp_path("tool7"), *tool = tmp_path("tool7/ld.lld");
  char cmd[8400];
  snprintf(cmd, sizeof cmd, "mkdir -p %s %s && cp /usr/lib/x86_64-linux-gnu/amdgcn/bitcode/*.bc %s && cp -L %s/ld.lld %s",
           libs, tooldir, libs, LLVM_BINDIR, tool);
  if (sh(cmd)) {
    skip(SHARED, "no ROCm bitcode or ld.lld to copy");
    return;
  }
  gpublob_options o = opts_for(dir, "amdgcn:gfx90a,gfx942");
  o.lib_dirs = libs;
  o.tool = tool;
  o.flags = GPUBLOB_FLAG_NO_DEFAULT_SEARCH;
  gpublob_blob b[6] = {{0}};
  gpublob_stats s[6];
  int rc[6];
  for (int i = 0; i < 6; i++) {
    if (i == 2) /* the same functions, other bytes */
      snprintf(cmd, sizeof cmd, "%s/llvm-dis %s/ockl.bc -o - | %s/llvm-as -o %s/ockl.new && mv %s/ockl.new %s/ockl.bc",
               LLVM_BINDIR, libs, LLVM_BINDIR, libs, libs, libs);
    if (i == 4) snprintf(cmd, sizeof cmd, "printf '\\0' >> %s", tool); /* the same program, one byte longer */
    if (i == 2 || i == 4) check(sh(cmd) == 0, i == 2 ? SHARED ": ockl.bc rewritten" : SHARED ": the tool changed", NULL);
    rc[i] = gpublob_mlir_file_compile(g, &o, "tests/mlir/two_modules.mlir", &b[i]);
    if (rc[i]) printf("  (%s)\n", gpublob_error_message(g));
    gpublob_stats_get(g, &s[i], sizeof s[i]);
  }
  for (int i = 0; i < 6; i++) {
    char label[300];
    int miss = i % 2 == 0;
    snprintf(label, sizeof label, SHARED ": call %d %s", i + 1,
             miss ? (i ? "misses after the change and runs its 4 jobs" : "misses and runs 4 jobs") : "hits, no job");
    check(rc[i] == 0 && (miss ? s[i].cache_misses == 1 && s[i].jobs == 4 : s[i].cache_hits == 1 && s[i].jobs == 0),
          label, "rc %d, hits %zu, misses %zu, jobs %zu", rc[i], s[i].cache_hits, s[i].cache_misses, s[i].jobs);
    check_if(rc[i] == 0 && rc[0] == 0, b[i].size == b[0].size && !memcmp(b[i].data, b[0].data, b[0].size),
             i ? SHARED ": the same module as the first call's" : SHARED ": the first call's module", "%zu bytes against %zu",
             b[i].size, b[0].size);
  }
  for (int i = 0; i < 6; i++) gpublob_blob_free(&b[i]);
#undef SHARED
}

/* ---- a corrupt or truncated file is removed and recomputed, never served ---- */
static void test_corrupt(void) {
  const char *dir = tmp_path("c7"); /* one entry and one manifest */
  gpublob_options o = opts_for(dir, "amdgcn:gfx90a,gfx908");
  gpublob_result good = {0}, r = {0};
  int rc;
  compile(&o, "examples/saxpy_amdgcn.ll", &good, &rc);
  char entry[4600], manifest[4600];
  int have = find_file(dir, ".e", entry, sizeof entry, NULL, NULL, NULL) &&
             find_file(dir, ".m", manifest, sizeof manifest, NULL, NULL, NULL);
  size_t n = 0;
  unsigned char *data = have ? slurp(entry, &n) : NULL;
  if (data && n > 100) {
    data[n - 50] ^= 0x5a; /* a byte of the blob: the length still matches, the hash does not */
    spill(entry, data, n);
  }
  free(data);
  int rc_again;
  gpublob_stats s = compile(&o, "examples/saxpy_amdgcn.ll", &r, &rc);
  gpublob_result again = {0};
  gpublob_stats s2 = compile(&o, "examples/saxpy_amdgcn.ll", &again, &rc_again);
#define CORRUPT "cache: a corrupted entry is detected, recomputed (not served), and stored again"
  const char *d;
  check(have, CORRUPT ": the cache holds an entry and a manifest", "in %s", dir);
  check(rc == 0, CORRUPT ": the call succeeds", "rc %d", rc);
  check(s.cache_misses == 1, CORRUPT ": a miss", "hits %zu misses %zu", s.cache_hits, s.cache_misses);
  check(s.jobs == 2, CORRUPT ": both jobs run", "%zu jobs", s.jobs);
  d = differs(&good, &r);
  check(!d, CORRUPT ": the same outputs as before", "%s", d);
  check(rc_again == 0, CORRUPT ": the next call succeeds", "rc %d", rc_again);
  check(s2.cache_hits == 1, CORRUPT ": the next call hits", "hits %zu misses %zu", s2.cache_hits, s2.cache_misses);
#undef CORRUPT
  gpublob_result_free(&r);
  gpublob_result_free(&again);
  int cut = have && truncate(manifest, 20) == 0;
  if (cut) s = compile(&o, "examples/saxpy_amdgcn.ll", &r, &rc);
  d = cut ? differs(&good, &r) : NULL;
#define TRUNC "cache: a truncated manifest misses and is rewritten"
  check_if(cut, rc == 0, TRUNC ": the call succeeds", "rc %d", rc);
  check_if(cut, s.cache_misses == 1, TRUNC, "%zu misses", s.cache_misses);
  check_if(cut, !d, TRUNC ": the same outputs", "%s", d);
#undef TRUNC
  if (cut) gpublob_result_free(&r);
  gpublob_result_free(&good);
}

/* ---- several processes write the same entries at once ---- */
static void test_processes(void) {
  const char *dir = tmp_path("c4"), *out = tmp_path("proc");
  char cmd[8400];
  snprintf(cmd, sizeof cmd,
           "for i in 1 2 3 4; do build/gpublob-compiler --cache-dir %s -t amdgcn:gfx90a,gfx908 -o %s$i-{chip}.hsaco "
           "examples/saxpy_amdgcn.ll 2>/dev/null & done; wait; for i in 2 3 4; do cmp %s1-gfx908.hsaco %s$i-gfx908.hsaco "
           "|| exit 1; done",
           dir, out, out, out);
  int rc = sh(cmd);
  int tmps = 0;
  long bytes = 0;
  char any[4600];
  find_file(dir, NULL, any, sizeof any, ".tmp-", &tmps, &bytes);
  const char *again[] = {"build/gpublob", "--time", "--cache-dir", dir, "-t", "amdgcn:gfx90a,gfx908", "-o",
                         tmp_path("again-{chip}.hsaco"), "examples/saxpy_amdgcn.ll", NULL};
  char *log = NULL;
  int rc2 = run(again, &log);
#define PROC "cache: four processes writing at once all succeed, agree, leave no temporary, and the entry hits"
  check(rc == 0, PROC ": they agree", "rc %d", rc);
  check(tmps == 0, PROC ": no temporary", "%d temporaries", tmps);
  check(rc2 == 0, PROC ": the next run succeeds", "rc %d: %s", rc2, log);
  check(contains(log, "time (front)"), PROC ": the front answers", "%s", log);
  check(contains(log, "1 hits"), PROC ": a hit", "%s", log);
#undef PROC
  free(log);
}

/* ---- a read-only directory: compiles, warns once; serves what it holds ---- */
static int drop_privileges(void) {
  if (geteuid() != 0) return 0;
  return setgroups(0, NULL) || setgid(65534) || setuid(65534) ? -1 : 0;
}

/* What a readonly_child found wrong: bits of its exit status (0: all as expected).
** RO_SETUP: it could not drop privileges or open a handle, and checked nothing. */
enum {
  RO_RC = 1,        /* the call failed */
  RO_COUNT = 2,     /* not one output */
  RO_CACHE = 4,     /* want_hit: not one hit; else not one miss */
  RO_WARNED = 8,    /* want_hit: a warning; else no "cannot be written" */
  RO_TWICE = 16,    /* "cannot be written" more than once */
  RO_NO_DIR = 32,   /* the warning does not name the directory */
  RO_SETUP = 64,
};

/* In a child (as nobody when root): the RO_ bits of what went wrong; 0 when the call
** passed and warned as expected; -1 (or 128 + a signal) when it did not finish. */
static int readonly_child(const char *dir, const char *input, int want_hit) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    if (drop_privileges()) _exit(RO_SETUP);
    gpublob *h;
    if (gpublob_open(&h)) _exit(RO_SETUP);
    gpublob_options o = opts_for(dir, "amdgcn:gfx90a");
    gpublob_result r = {0};
    int rc = gpublob_file_compile_all(h, &o, input, &r);
    gpublob_stats s;
    gpublob_stats_get(h, &s, sizeof s);
    const char *w = gpublob_warnings(h), *first = strstr(w, "cannot be written");
    int bad = (rc ? RO_RC : 0) | (r.count != 1 ? RO_COUNT : 0);
    if (want_hit) bad |= (s.cache_hits != 1 ? RO_CACHE : 0) | (*w ? RO_WARNED : 0);
    else
      bad |= (s.cache_misses != 1 ? RO_CACHE : 0) | (!first ? RO_WARNED : 0) |
             (first && strstr(first + 1, "cannot be written") ? RO_TWICE : 0) | (!strstr(w, dir) ? RO_NO_DIR : 0);
    if (rc) printf("  (child: %s)\n", gpublob_error_message(h));
    if (bad & (RO_WARNED | RO_TWICE | RO_NO_DIR)) printf("  (child warnings: '%s')\n", w);
    fflush(stdout);
    _exit(bad);
  }
  int status;
  waitpid(pid, &status, 0);
  return exit_code(status);
}

/* The checks of a readonly_child's answer: a check for each property. */
static void check_readonly(const char *name, int bits, int want_hit) {
  char label[300];
  int ran = bits >= 0 && bits < RO_SETUP;
  snprintf(label, sizeof label, "%s: the child runs the call", name);
  check(ran, label, "child exit %d", bits);
  snprintf(label, sizeof label, "%s: compiles", name);
  check_if(ran, !(bits & RO_RC), label, "child exit %d", bits);
  snprintf(label, sizeof label, "%s: one output", name);
  check_if(ran, !(bits & RO_COUNT), label, "child exit %d", bits);
  snprintf(label, sizeof label, "%s: %s", name, want_hit ? "a hit" : "a miss");
  check_if(ran, !(bits & RO_CACHE), label, "child exit %d", bits);
  if (want_hit) {
    snprintf(label, sizeof label, "%s: no warning", name);
    check_if(ran, !(bits & RO_WARNED), label, "child exit %d", bits);
    return;
  }
  snprintf(label, sizeof label, "%s: warns that it cannot be written", name);
  check_if(ran, !(bits & RO_WARNED), label, "child exit %d", bits);
  snprintf(label, sizeof label, "%s: warns once", name);
  check_if(ran, !(bits & RO_TWICE), label, "child exit %d", bits);
  snprintf(label, sizeof label, "%s: the warning names the directory", name);
  check_if(ran, !(bits & RO_NO_DIR), label, "child exit %d", bits);
}

static void test_readonly(void) {
  char pub[] = "/tmp/gpublob-ro-XXXXXX"; /* readable by the unprivileged child */
  if (!mkdtemp(pub)) return;
  chmod(pub, 0755);
  char input[4200], empty[4200], full[4200], cmd[13000];
  snprintf(input, sizeof input, "%s/saxpy.ll", pub);
  snprintf(empty, sizeof empty, "%s/empty", pub);
  snprintf(full, sizeof full, "%s/full", pub);
  snprintf(cmd, sizeof cmd, "cp examples/saxpy_amdgcn.ll %s && chmod 0644 %s && mkdir -m 0555 %s", input, input, empty);
  sh(cmd);
  /* a cache is used only when it is the user's own: the child's, as nobody */
  if (geteuid() == 0) {
    snprintf(cmd, sizeof cmd, "chown 65534:65534 %s", empty);
    sh(cmd);
  }
  int rc = readonly_child(empty, input, 0);
  check_readonly("cache: a read-only cache directory still compiles, and warns once", rc, 0);
  gpublob_options o = opts_for(full, "amdgcn:gfx90a");
  gpublob_result r = {0};
  int crc;
  compile(&o, input, &r, &crc);
  gpublob_result_free(&r);
  snprintf(cmd, sizeof cmd, "chmod -R a+rX,a-w %s%s%s", full, geteuid() == 0 ? " && chown -R 65534:65534 " : "",
           geteuid() == 0 ? full : "");
  sh(cmd);
  rc = readonly_child(full, input, 1);
  check_readonly("cache: a read-only cache directory still serves its hits, silently", rc, 1);
  snprintf(cmd, sizeof cmd, "chmod -R u+w %s && rm -rf %s", pub, pub);
  sh(cmd);
}

/* ---- the size limit: the oldest entries go ---- */
static void test_eviction(void) {
  const char *dir = tmp_path("c5");
  gpublob_options o = opts_for(dir, "amdgcn:gfx90a");
  o.cache_max = 24 << 10;
  size_t n;
  unsigned char *ir = slurp("examples/saxpy_amdgcn.ll", &n);
  gpublob_result r = {0};
  char *variant[8] = {0}; /* eight inputs, a comment apart (a name is not in the key) */
  size_t size[8] = {0};
  for (int i = 0; ir && i < 8; i++)
    if ((variant[i] = malloc(n + 32))) size[i] = (size_t)snprintf(variant[i], n + 32, "%s\n; variant %d\n", (char *)ir, i);
  for (int i = 0; ir && i < 8 && variant[i]; i++) { /* eight entries of some 6 KiB each */
    if (gpublob_module_compile_all(g, &o, variant[i], size[i], "k.ll", &r)) break;
    gpublob_result_free(&r);
  }
  long bytes = 0;
  char any[4600];
  find_file(dir, NULL, any, sizeof any, NULL, NULL, &bytes);
  int first = variant[0] ? gpublob_cache_lookup(g, &o, &(gpublob_input){GPUBLOB_INPUT_LLVM, variant[0], size[0], NULL, "k.ll"}, &r) : -1;
  gpublob_result_free(&r);
  int last = variant[7] ? gpublob_cache_lookup(g, &o, &(gpublob_input){GPUBLOB_INPUT_LLVM, variant[7], size[7], NULL, "k.ll"}, &r) : -1;
  gpublob_result_free(&r);
#define EVICT "cache: over its limit the oldest entries go: 8 entries in 24 KiB keep the newest, drop the first"
  check(ir != NULL, EVICT ": the input is read", "cannot read examples/saxpy_amdgcn.ll");
  check(bytes <= (24 << 10), EVICT ": within 24 KiB", "%ld bytes", bytes);
  check(first == GPUBLOB_NOTCACHED, EVICT ": the first is gone", "lookup %d", first);
  check(last == GPUBLOB_OK, EVICT ": the newest is kept", "lookup %d", last);
#undef EVICT
  for (int i = 0; i < 8; i++) free(variant[i]);
  free(ir);
}

/* ---- the CLI: the cache's directory, and the front answering hits ---- */
static void test_cli(void) {
  char cmd[9000];
  const char *xdg = tmp_path("xdg"), *xdg2 = tmp_path("xdg2"), *out = tmp_path("cli.hsaco");
  snprintf(cmd, sizeof cmd,
           "env -u GPUBLOB_CACHE_DIR XDG_CACHE_HOME=%s build/gpublob -t amdgcn examples/saxpy_amdgcn.ll -o %s && "
           "env -u GPUBLOB_CACHE_DIR XDG_CACHE_HOME=%s build/gpublob --no-cache -t amdgcn examples/saxpy_amdgcn.ll -o %s",
           xdg, out, xdg2, out);
  int rc = sh(cmd);
  char made[4300];
  snprintf(made, sizeof made, "%s/gpublob", xdg);
  snprintf(cmd, sizeof cmd, "%s/gpublob", xdg2);
#define XDG "cli: the cache goes to $XDG_CACHE_HOME/gpublob, made 0700; --no-cache makes none"
  check(rc == 0, XDG ": both runs succeed", "rc %d", rc);
  check(mode_of(made) == 0700, XDG ": made 0700", "mode %o", mode_of(made));
  check(!exists(cmd), XDG ": --no-cache makes none", "%s is there", cmd);
#undef XDG
  const char *dir = tmp_path("c6"), *a = tmp_path("a.out"), *b = tmp_path("b.out");
  const char *in = gpublob_mlir_enabled() ? "examples/saxpy.mlir" : "examples/saxpy_amdgcn.ll";
  char *log1 = NULL, *log2 = NULL;
  const char *first[] = {"build/gpublob", "--time", "--cache-dir", dir, "-t", "amdgcn:gfx90a", in, "-o", a, NULL};
  const char *second[] = {"build/gpublob", "--time", "--cache-dir", dir, "-t", "amdgcn:gfx90a", in, "-o", b, NULL};
  int r1 = run(first, &log1), r2 = run(second, &log2);
  size_t n1 = 0, n2 = 0;
  unsigned char *d1 = slurp(a, &n1), *d2 = slurp(b, &n2);
#define ONCE "cli: compiled once (MLIR when built in); the front answers the second run from the cache, the same bytes"
  check(r1 == 0, ONCE ": the first run succeeds", "rc %d: %s", r1, log1);
  check(r2 == 0, ONCE ": the second run succeeds", "rc %d: %s", r2, log2);
  check(contains(log1, "time (compiler)"), ONCE ": the compiler runs first", "%s", log1);
  check(contains(log1, "1 misses"), ONCE ": a miss first", "%s", log1);
  check(contains(log2, "time (front)"), ONCE ": the front answers the second", "%s", log2);
  check(contains(log2, "1 hits"), ONCE ": a hit second", "%s", log2);
  check(d1 != NULL, ONCE ": the first output", "no %s", a);
  check(d2 != NULL, ONCE ": the second output", "no %s", b);
  check_if(d1 && d2, n1 == n2 && !memcmp(d1, d2, n1), ONCE, "%zu bytes against %zu", n1, n2);
#undef ONCE
  free(d1);
  free(d2);
  free(log1);
  free(log2);
}

/* A provider library that is found but does not load: the compile runs ptxas, and
** the manifest says so, so the next call finds the entry (it used to miss forever). */
static void test_fallback_hit(void) {
  if (!have_ptxas()) {
    skip("cache: a call that fell back from nvJitLink to ptxas hits the next time", "CUDA toolkit not found");
    return;
  }
  const char *dir = tmp_path("c7"), *bad = tmp_path("badlib");
  char cmd[8400], lib[4300];
  snprintf(cmd, sizeof cmd, "mkdir -p %s", bad);
  sh(cmd);
  snprintf(lib, sizeof lib, "%s/libnvJitLink.so.13", bad);
  spill(lib, "not a library\n", 14);
  const gpublob_target_choice three[] = {{"nvptx:sm_80,sm_89,sm_90", NULL, NULL}};
  gpublob_options o = opts_for(dir, NULL);
  o.targets = three;
  o.ntargets = 1;
  o.tool_dirs = bad;
  gpublob_result r[2] = {{0}};
  int rc[2];
  gpublob_stats s0 = compile(&o, "examples/saxpy_nvptx.ll", &r[0], &rc[0]);
  gpublob_stats s1 = compile(&o, "examples/saxpy_nvptx.ll", &r[1], &rc[1]);
#define FALLBACK "cache: a call that fell back from nvJitLink to ptxas hits the next time"
  check(rc[0] == 0, FALLBACK ": the first call compiles", "rc %d", rc[0]);
  check(rc[1] == 0, FALLBACK ": the second call succeeds", "rc %d", rc[1]);
  check(r[0].count == 3, FALLBACK ": three outputs", "%zu outputs", r[0].count);
  check_if(r[0].count > 0, same_str(r[0].outputs[0].tool, "ptxas"), FALLBACK ": made by ptxas", "tool %s",
           r[0].outputs[0].tool);
  check(s0.cache_misses == 1, FALLBACK ": the first call misses", "%zu misses", s0.cache_misses);
  check(s1.cache_hits == 1, FALLBACK, "%zu hits", s1.cache_hits);
  const char *d = differs(&r[0], &r[1]);
  check(!d, FALLBACK ": the same outputs", "%s", d);
#undef FALLBACK
  for (int i = 0; i < 2; i++) gpublob_result_free(&r[i]);
}

/* The front reads a regular file only: a pipe is left whole for the compiler. */
static void test_cli_pipe(void) {
  char cmd[9000];
  const char *dir = tmp_path("c8"), *out = tmp_path("pipe.hsaco");
  snprintf(cmd, sizeof cmd,
           "cat examples/saxpy_amdgcn.ll | build/gpublob --cache-dir %s -t amdgcn:gfx90a /dev/stdin -o %s", dir, out);
  int rc = sh(cmd);
  check(rc == 0, "cli: a pipe named as the input (/dev/stdin) reaches the compiler whole: it compiles", "exit %d", rc);
  snprintf(cmd, sizeof cmd, "%s/llvm-readelf --symbols %s | grep -q saxpy", LLVM_BINDIR, out);
  check(sh(cmd) == 0, "cli: a pipe named as the input (/dev/stdin) reaches the compiler whole",
        "no saxpy kernel in %s", out);
}

/* ---- gpublob_cache_lookup_stream: the last output handed on in pieces ---- */
typedef struct sink_buf {
  unsigned char *p;
  size_t n, calls, fail_at; /* fail_at: the call that fails (0: none) */
} sink_buf;

static int sink_write(void *ctx, const void *bytes, size_t size) {
  sink_buf *s = ctx;
  if (++s->calls == s->fail_at) return -1;
  unsigned char *p = realloc(s->p, s->n + size + 1);
  if (!p) return -1;
  memcpy(p + s->n, bytes, size);
  s->p = p;
  s->n += size;
  return 0;
}

/* A kernel with a 300,000-byte constant: its code object outgrows a 64 KB piece. */
static const char *write_big_kernel(void) {
  const char *path = tmp_path("big.ll");
  FILE *f = fopen(path, "w");
  if (!f) return path;
  fprintf(f, "target triple = \"amdgcn-amd-amdhsa\"\n@big = addrspace(1) constant [300000 x i8] c\"");
  for (int i = 0; i < 300000; i++) fputc('a' + i % 26, f);
  fprintf(f, "\"\ndefine amdgpu_kernel void @k(ptr addrspace(1) %%out, i32 %%i) {\n"
             "  %%p = getelementptr [300000 x i8], ptr addrspace(1) @big, i32 0, i32 %%i\n"
             "  %%v = load i8, ptr addrspace(1) %%p\n  store i8 %%v, ptr addrspace(1) %%out\n  ret void\n}\n");
  fclose(f);
  return path;
}

/* One lookup_stream of path's call with o, checked against good's outputs: every
** output but the last whole, the last one's bytes through the sink alone. */
static void check_stream(const char *name, const gpublob_options *o, const char *path,
                         const gpublob_result *good, size_t min_pieces) {
  size_t n = 0;
  unsigned char *ir = slurp(path, &n);
  gpublob_result r = {0};
  sink_buf s = {0};
  int rc = ir ? gpublob_cache_lookup_stream(g, o, &(gpublob_input){GPUBLOB_INPUT_LLVM, ir, n, NULL, path}, &r,
                                            sink_write, &s)
              : -1;
  const gpublob_blob *want = good->count ? &good->outputs[good->count - 1].blob : NULL;
  check(rc == 0, name, "rc %d: %s", rc, gpublob_error_message(g));
  check(r.count == good->count && want, name, "%zu outputs against %zu", r.count, good->count);
  for (size_t i = 0; i + 1 < r.count && r.count == good->count; i++)
    check(r.outputs[i].blob.size == good->outputs[i].blob.size &&
              !memcmp(r.outputs[i].blob.data, good->outputs[i].blob.data, r.outputs[i].blob.size),
          name, "output %zu: %zu bytes", i, r.outputs[i].blob.size);
  check_if(want && r.count, !r.outputs[r.count - 1].blob.data && r.outputs[r.count - 1].blob.size == want->size,
           name, "the last blob: %zu bytes (it has no data)", r.outputs[r.count - 1].blob.size);
  check_if(want, s.n == want->size && !memcmp(s.p, want->data, s.n), name, "the sink got %zu bytes against %zu",
           s.n, want ? want->size : 0);
  check(s.calls >= min_pieces, name, "%zu pieces", s.calls);
  gpublob_result_free(&r);
  free(s.p);
  free(ir);
}

static void test_stream(void) {
  const char *dir = tmp_path("c9"), *big = write_big_kernel();
  gpublob_options two = opts_for(tmp_path("c9two"), "amdgcn:gfx90a,gfx908"), o = opts_for(dir, "amdgcn:gfx90a");
  gpublob_result good = {0}, r = {0};
  int rc, rc2;
  compile(&two, "examples/saxpy_amdgcn.ll", &r, &rc2);
  check(rc2 == 0 && r.count == 2, "cache: saxpy for two chips compiles", "rc %d", rc2);
  check_stream("cache: gpublob_cache_lookup_stream of two outputs: the first whole, the last to the sink", &two,
               "examples/saxpy_amdgcn.ll", &r, 1);
  gpublob_result_free(&r);
  compile(&two, big, &r, &rc2);
  check_stream("cache: gpublob_cache_lookup_stream of two 300 KB outputs (beyond the first piece: read whole)", &two,
               big, &r, 1);
  size_t bn = 0;
  unsigned char *bir = slurp(big, &bn);
  sink_buf fails = {.fail_at = 1};
  gpublob_result none = {0};
  rc2 = bir ? gpublob_cache_lookup_stream(g, &two, &(gpublob_input){GPUBLOB_INPUT_LLVM, bir, bn, NULL, big}, &none,
                                          sink_write, &fails)
            : -1;
  check(rc2 == GPUBLOB_IO && none.count == 0,
        "cache: gpublob_cache_lookup_stream read whole, its write failing: IO, and no output", "rc %d, %zu outputs", rc2,
        none.count);
  free(bir);
  gpublob_result_free(&r);
  compile(&o, big, &good, &rc);
  check(rc == 0 && good.count == 1 && good.outputs[0].blob.size > 300000,
        "cache: a kernel with a 300,000-byte constant compiles to one output over 300,000 bytes", "rc %d", rc);
  check_stream("cache: gpublob_cache_lookup_stream hands a 300 KB output on in pieces", &o, big, &good, 4);
  size_t n = 0;
  unsigned char *ir = slurp(big, &n);
  const gpublob_input in = {GPUBLOB_INPUT_LLVM, ir, n, NULL, big};
  sink_buf s = {0};
  s = (sink_buf){.fail_at = 2};
  rc = ir ? gpublob_cache_lookup_stream(g, &o, &in, &r, sink_write, &s) : -1;
  check(rc == GPUBLOB_IO, "cache: gpublob_cache_lookup_stream whose write fails is IO", "rc %d", rc);
  check(r.count == 0, "cache: gpublob_cache_lookup_stream whose write fails is IO: no output", "%zu", r.count);
  free(s.p);
  rc = ir ? gpublob_cache_lookup_stream(g, &o, &in, &r, NULL, NULL) : -1;
  check(rc == GPUBLOB_MISUSE, "cache: gpublob_cache_lookup_stream with a NULL write is MISUSE", "rc %d", rc);
  char entry[4600];
  int have = find_file(dir, ".e", entry, sizeof entry, NULL, NULL, NULL);
  size_t en = 0;
  unsigned char *data = have ? slurp(entry, &en) : NULL;
  if (data && en > 100) {
    data[en - 30] ^= 0x5a; /* in the last piece: the bytes before it are handed on already */
    spill(entry, data, en);
  }
  free(data);
  s = (sink_buf){0};
  rc = ir ? gpublob_cache_lookup_stream(g, &o, &in, &r, sink_write, &s) : -1;
#define BAD "cache: gpublob_cache_lookup_stream of a corrupted entry misses, and the entry is removed"
  check(have, BAD ": the cache holds an entry", "in %s", dir);
  check(rc == GPUBLOB_NOTCACHED, BAD, "rc %d", rc);
  check(r.count == 0, BAD ": no output", "%zu outputs", r.count);
  check(!exists(entry), BAD ": removed", "%s is there", entry);
#undef BAD
  free(s.p);
  free(ir);
  /* the CLI's front streams a hit of one output into -o FILE */
  const char *out1 = tmp_path("big1.hsaco"), *out2 = tmp_path("big2.hsaco"), *dir2 = tmp_path("c10");
  char *log1 = NULL, *log2 = NULL, *log3 = NULL;
  const char *a1[] = {"build/gpublob", "--time", "--cache-dir", dir2, "-t", "amdgcn:gfx90a", big, "-o", out1, NULL};
  const char *a2[] = {"build/gpublob", "--time", "--cache-dir", dir2, "-t", "amdgcn:gfx90a", big, "-o", out2, NULL};
  int r1 = run(a1, &log1), r2 = run(a2, &log2);
  size_t n1 = 0, n2 = 0;
  unsigned char *d1 = slurp(out1, &n1), *d2 = slurp(out2, &n2);
  char tmps[9000];
  snprintf(tmps, sizeof tmps, "! ls %s.tmp-* >/dev/null 2>&1", out2);
#define FRONT "cli: the front streams a hit into -o FILE: the same bytes, no temporary left"
  check(r1 == 0 && contains(log1, "time (compiler)"), FRONT ": the compiler runs first", "rc %d: %s", r1, log1);
  check(r2 == 0 && contains(log2, "time (front)") && contains(log2, "1 hits"), FRONT ": the front hits", "rc %d: %s", r2,
        log2);
  check(d1 && d2 && n1 == n2 && !memcmp(d1, d2, n1), FRONT, "%zu bytes against %zu", n1, n2);
  check(sh(tmps) == 0, FRONT ": no temporary left", "%s", out2);
#undef FRONT
  have = find_file(dir2, ".e", entry, sizeof entry, NULL, NULL, NULL);
  data = have ? slurp(entry, &en) : NULL;
  if (data && en > 100) {
    data[en - 30] ^= 0x5a;
    spill(entry, data, en);
  }
  free(data);
  unlink(out2);
  int r3 = run(a2, &log3);
  free(d2);
  d2 = slurp(out2, &n2);
#define FRONTBAD "cli: the front's streamed hit of a corrupted entry is not served: the compiler makes it again"
  check(have, FRONTBAD ": the cache holds an entry", "in %s", dir2);
  check(r3 == 0 && contains(log3, "time (compiler)"), FRONTBAD ": the compiler runs", "rc %d: %s", r3, log3);
  check(d1 && d2 && n1 == n2 && !memcmp(d1, d2, n1), FRONTBAD ": the same bytes", "%zu bytes against %zu", n1, n2);
  check(sh(tmps) == 0, FRONTBAD ": no temporary left", "%s", out2);
#undef FRONTBAD
  free(d1);
  free(d2);
  free(log1);
  free(log2);
  free(log3);
  gpublob_result_free(&good);
}

int main(void) {
  if (gpublob_open(&g)) return 2;
  /* these compile saxpy_amdgcn.ll, whose expf is ocml's: ROCm's bitcode */
  int rocm = need_rocm("cache: saxpy_amdgcn.ll streamed, missed and hit, corrupted, by four processes, read-only, "
                       "evicted, through the CLI and a pipe");
  if (rocm) test_stream();
  if (rocm) test_miss_hit();
  test_tool_digest();
  test_lib_digest();
  test_shared_records();
  if (rocm) test_corrupt();
  if (rocm) test_processes();
  if (rocm) test_readonly();
  if (rocm) test_eviction();
  if (rocm) test_cli();
  test_fallback_hit();
  if (rocm) test_cli_pipe();
  gpublob_close(g);
  return report();
}
