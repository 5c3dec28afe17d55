/* test_hostile: what a hostile or careless environment brings is refused or
** survived, never followed.  The cache: a directory of another user's or one
** anyone may write is not used; links inside it are never followed (the size
** file, a subdirectory); a FIFO in place of a cache file does not hang; an entry
** of no output, or one whose chip is not a chip, is a miss.  Options: version 0 is
** read as version 1's layout (a short struct at the end of a page).  Tools: no
** descriptor of the host's reaches them, and their TMPDIR is the job's own. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

/* These checks call the 1.0 calls too (gpublob_module_compile and the like), which
** stay supported: without their deprecation warnings. */
#define GPUBLOB_DISABLE_DEPRECATE_WARNINGS
#include "gpublob.h"
#include "testlib.h"

static gpublob *g;

static gpublob_options opts_for(const char *dir, const char *target) {
  gpublob_options o = GPUBLOB_OPTIONS_INIT;
  o.target = target;
  o.cache_dir = dir;
  return o;
}

static int sh(const char *cmd) {
  const char *argv[] = {"sh", "-c", cmd, NULL};
  return run(argv, NULL);
}

/* What a compile got wrong, as bits (0: it compiled one output of more than 4 bytes). */
enum { BAD_RC = 1, BAD_COUNT = 2, BAD_SIZE = 4 };

static int compile_bits(const gpublob_options *o, const char *input, gpublob_stats *s) {
  gpublob_result r = {0};
  int rc = gpublob_file_compile_all(g, o, input, &r);
  if (s) gpublob_stats_get(g, s, sizeof *s);
  if (rc) printf("  (%s)\n", gpublob_error_message(g));
  int bad = (rc ? BAD_RC : 0) | (r.count != 1 ? BAD_COUNT : 0) |
            (r.count < 1 || r.outputs[0].blob.size <= 4 ? BAD_SIZE : 0);
  gpublob_result_free(&r);
  return bad;
}

/* A compile as setup, unchecked: whether it went well. */
static int compile_ok(const gpublob_options *o, const char *input, gpublob_stats *s) {
  return compile_bits(o, input, s) == 0;
}

/* The checks of compile_bits's answer: "NAME: compiles", "NAME: one output" and
** "NAME: a blob of more than 4 bytes". */
static void check_compiled(const char *name, int bad) {
  char label[300];
  snprintf(label, sizeof label, "%s: compiles", name);
  check(!(bad & BAD_RC), label, "%s", gpublob_error_message(g));
  snprintf(label, sizeof label, "%s: one output", name);
  check(!(bad & BAD_COUNT), label, NULL);
  snprintf(label, sizeof label, "%s: a blob of more than 4 bytes", name);
  check(!(bad & BAD_SIZE), label, NULL);
}

/* Files anywhere under dir (links not followed), counted. */
static int count_files(const char *dir) {
  char cmd[4400];
  snprintf(cmd, sizeof cmd, "test $(find '%s' -type f | wc -l) -eq 0", dir);
  return sh(cmd) == 0 ? 0 : 1;
}

/* ---- options: version 0 reads only version 1's fields ---- */
static void test_options_v0(void) {
  long page = sysconf(_SC_PAGESIZE);
  unsigned char *p = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return;
  mprotect(p + page, (size_t)page, PROT_NONE); /* past a version-1 struct: unmapped */
  size_t v1 = offsetof(gpublob_options, targets);
  gpublob_options *o = (gpublob_options *)(p + page - v1);
  memset(o, 0, v1);
  o->target = "spirv";
  o->format = GPUBLOB_FORMAT_BIN;
  gpublob_blob b = {0};
  int rc = gpublob_file_compile(g, o, "examples/saxpy_spirv.ll", &b);
#define V0 "options: version 0 at the end of a page is read as version 1 (no read past it)"
  check(rc == 0, V0, "rc %d: %s", rc, gpublob_error_message(g));
  check(b.size > 4, V0 ": more than 4 bytes", "%zu bytes", b.size);
  check_if(b.data && b.size >= 4, !memcmp(b.data, "\x03\x02\x23\x07", 4), V0 ": the SPIR-V magic", NULL);
#undef V0
  gpublob_blob_free(&b);
  munmap(p, 2 * (size_t)page);
  gpublob_options init = GPUBLOB_OPTIONS_INIT;
  check(init.version == GPUBLOB_OPTIONS_VERSION, "options: GPUBLOB_OPTIONS_INIT is this version with every default",
        "version %u", init.version);
  check(!init.target, "options: GPUBLOB_OPTIONS_INIT is this version with every default: no target", NULL);
  check(!init.flags, "options: GPUBLOB_OPTIONS_INIT is this version with every default: no flags", NULL);
  check(!init.cache_dir, "options: GPUBLOB_OPTIONS_INIT is this version with every default: no cache_dir", NULL);
}

/* ---- the cache directory itself: the user's alone, or not used ---- */
static void test_untrusted_dirs(void) {
  const char *open_dir = tmp_path("c-open");
  mkdir(open_dir, 0777);
  chmod(open_dir, 0777); /* anyone may write: not used */
  gpublob_options o = opts_for(open_dir, "amdgcn:gfx90a");
  gpublob_stats s;
#define OPEN "cache: a directory others may write is not used, with a warning; the compile goes on"
  check_compiled(OPEN, compile_bits(&o, "examples/saxpy_amdgcn.ll", &s));
  check(contains(gpublob_warnings(g), "is not used"), OPEN ": the warning", "warnings '%s'", gpublob_warnings(g));
  check(s.cache_writes == 0, OPEN ": no cache write", "writes %zu", s.cache_writes);
  check(!count_files(open_dir), OPEN ": no file in it", NULL);
#undef OPEN
  if (geteuid() != 0) {
    skip("cache: another user's directory is not used", "needs root to make one");
    return;
  }
  const char *theirs = tmp_path("c-theirs");
  mkdir(theirs, 0755);
  if (chown(theirs, 65534, 65534)) return;
  o = opts_for(theirs, "amdgcn:gfx90a");
#define THEIRS "cache: another user's directory is not used, with a warning; the compile goes on"
  check_compiled(THEIRS, compile_bits(&o, "examples/saxpy_amdgcn.ll", &s));
  check(contains(gpublob_warnings(g), "another user's"), THEIRS ": the warning", "warnings '%s'", gpublob_warnings(g));
  check(s.cache_writes == 0, THEIRS ": no cache write", "writes %zu", s.cache_writes);
  check(!count_files(theirs), THEIRS ": no file in it", NULL);
#undef THEIRS
}

/* ---- links inside the cache are never followed ---- */
static void test_links(void) {
  const char *dir = tmp_path("c-links"), *outside = tmp_path("outside");
  char cmd[13000];
  snprintf(cmd, sizeof cmd, "mkdir -p %s/v3 %s && chmod 700 %s %s/v3 && echo precious > %s/size-target && "
           "ln -s %s/size-target %s/v3/size && for a in 0 1 2 3 4 5 6 7 8 9 a b c d e f; do "
           "for b in 0 1 2 3 4 5 6 7 8 9 a b c d e f; do ln -s %s %s/v3/$a$b; done; done && "
           "echo keep > %s/000000000000000000000000000000.e",
           dir, outside, dir, dir, outside, outside, dir, outside, dir, outside);
  sh(cmd);
  gpublob_options o = opts_for(dir, "amdgcn:gfx90a");
  o.cache_max = 1; /* every store is over the limit: eviction runs */
  gpublob_stats s;
#define LINKS "cache: links in it (the size file, every subdirectory) are not followed: nothing outside is written " \
              "or evicted"
  check_compiled(LINKS ": the first entry", compile_bits(&o, "examples/saxpy_amdgcn.ll", &s));
  o.opt = GPUBLOB_OPT_O1; /* another entry */
  check_compiled(LINKS ": the second entry", compile_bits(&o, "examples/saxpy_amdgcn.ll", &s));
  size_t n;
  char *size_target = (char *)slurp(tmp_path("outside/size-target"), &n);
  char *kept = (char *)slurp(tmp_path("outside/000000000000000000000000000000.e"), &n);
  DIR *d = opendir(outside);
  int entries = 0;
  for (struct dirent *e; d && (e = readdir(d));) entries += e->d_name[0] != '.';
  if (d) closedir(d);
  check(same_str(size_target, "precious\n"), LINKS ": the size file's target is unchanged", "size file '%s'",
        size_target ? size_target : "-");
  check(same_str(kept, "keep\n"), LINKS ": the entry outside is not evicted", "kept '%s'", kept ? kept : "-");
  check(entries == 2, LINKS, "%d entries outside", entries);
#undef LINKS
  free(size_target);
  free(kept);
}

/* The first cache file of kind ('m', 'e') under dir/v3. */
static int find_kind(const char *dir, char kind, char *out, size_t size) {
  char cmd[4400];
  snprintf(cmd, sizeof cmd, "find '%s/v3' -name '*.%c' -type f | head -n 1 > '%s'", dir, kind, tmp_path("found"));
  sh(cmd);
  size_t n;
  char *p = (char *)slurp(tmp_path("found"), &n);
  int ok = p && n > 1;
  if (ok) p[n - 1] = 0, snprintf(out, size, "%s", p);
  free(p);
  return ok;
}

/* ---- a FIFO in place of a cache file: no hang, a miss ---- */
static void test_fifo(void) {
  const char *dir = tmp_path("c-fifo");
  gpublob_options o = opts_for(dir, "spirv");
  compile_ok(&o, "examples/saxpy_spirv.ll", NULL);
  char manifest[4200];
  if (!find_kind(dir, 'm', manifest, sizeof manifest)) {
    check(0, "cache: a FIFO in place of a manifest", "no manifest written in %s", dir);
    return;
  }
  unlink(manifest);
  mkfifo(manifest, 0600);
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    alarm(20);
    gpublob_stats s;
    int bad = compile_bits(&o, "examples/saxpy_spirv.ll", &s);
    fflush(stdout);
    _exit(bad | (s.cache_hits != 0 ? 8 : 0));
  }
  int status;
  waitpid(pid, &status, 0);
  int bits = exit_code(status), done = bits >= 0 && bits < 16;
#define FIFO "cache: a FIFO in place of a cache file neither hangs nor is served: a miss, then a compile"
  check(done, FIFO ": no hang (the call ends)", "status %d", status);
  check_if(done, !(bits & 8), FIFO ": not served (no hit)", "child exit %d", bits);
  if (done) check_compiled(FIFO, bits & 7);
  else check(0, FIFO ": compiles", "not checked: the child did not finish");
#undef FIFO
}

/* ---- entries: rewritten with a valid header around a bad payload ---- */
typedef struct header {
  char magic[8];
  uint64_t size;
  unsigned char hash[16], key[16];
  char kind, pad[7];
} header;

static void rewrite_entry(const char *path, const unsigned char *payload, size_t n) {
  size_t old_n;
  unsigned char *old = slurp(path, &old_n);
  if (!old || old_n < sizeof(header)) {
    free(old);
    return;
  }
  header h;
  memcpy(&h, old, sizeof h);
  free(old);
  h.size = n;
  XXH128_canonical_t c;
  XXH128_canonicalFromHash(&c, XXH3_128bits(payload, n));
  memcpy(h.hash, c.digest, sizeof h.hash);
  unlink(path);
  FILE *f = fopen(path, "wb");
  if (!f) return;
  fwrite(&h, 1, sizeof h, f);
  fwrite(payload, 1, n, f);
  fclose(f);
}

static void test_entries(void) {
  const char *dir = tmp_path("c-entries");
  gpublob_options o = opts_for(dir, "amdgcn:gfx90a");
  compile_ok(&o, "examples/saxpy_amdgcn.ll", NULL);
  char entry[4200];
  if (!find_kind(dir, 'e', entry, sizeof entry)) {
    check(0, "cache: entries", "no entry written in %s", dir);
    return;
  }
  size_t n;
  unsigned char *file = slurp(entry, &n);
  unsigned char *payload = file ? file + sizeof(header) : NULL;
  size_t pn = file ? n - sizeof(header) : 0;
  unsigned char *chip = payload ? memmem(payload, pn, "gfx90a", 6) : NULL;
  if (chip) memcpy(chip, "../../", 6); /* a chip that is a path */
  if (payload) rewrite_entry(entry, payload, pn);
  gpublob_result r = {0};
  size_t in_n;
  unsigned char *in = slurp("examples/saxpy_amdgcn.ll", &in_n);
  int rc = gpublob_cache_lookup(g, &o, &(gpublob_input){GPUBLOB_INPUT_LLVM, in, in_n, NULL, "examples/saxpy_amdgcn.ll"}, &r);
#define CHIP "cache: an entry whose chip is not a chip of its target is a miss, never served"
  check(chip != NULL, CHIP ": the entry names gfx90a (to rewrite)", "in %s", entry);
  check(rc == GPUBLOB_NOTCACHED, CHIP, "rc %d", rc);
  check(r.count == 0, CHIP ": no output", "%zu outputs", r.count);
#undef CHIP
  gpublob_result_free(&r);
  uint64_t zero = 0; /* no output at all, under a valid header */
  rewrite_entry(entry, (unsigned char *)&zero, sizeof zero);
  rc = gpublob_cache_lookup(g, &o, &(gpublob_input){GPUBLOB_INPUT_LLVM, in, in_n, NULL, "examples/saxpy_amdgcn.ll"}, &r);
  gpublob_stats s;
#define EMPTY "cache: an entry of no output under a valid header is a miss, and the compile stores it again"
  check(rc == GPUBLOB_NOTCACHED, EMPTY ": the lookup misses", "rc %d", rc);
  check_compiled(EMPTY, compile_bits(&o, "examples/saxpy_amdgcn.ll", &s));
  check(s.cache_hits == 0, EMPTY ": the compile does not hit", "%zu hits", s.cache_hits);
#undef EMPTY
  gpublob_result_free(&r);
  free(in);
  free(file);
}

/* ---- the front answers an MLIR hit into a {target} pattern ---- */
static void test_front_mlir_pattern(void) {
  if (!gpublob_mlir_enabled()) {
    skip("cache: the front answers an MLIR hit into a {target} pattern", "built without MLIR");
    return;
  }
  const char *dir = tmp_path("c-front"), *out = tmp_path("front-out");
  char pattern[4300];
  snprintf(pattern, sizeof pattern, "%s/{stem}-{target}{suffix}", out);
  mkdir(out, 0700);
  const char *argv[] = {"build/gpublob", "--cache-dir", dir, "-t", "nvptx", "-f", "asm", "examples/saxpy.mlir",
                        "-o", pattern, NULL};
  char *log1 = NULL, *log2 = NULL;
  int rc1 = run(argv, &log1), rc2 = run(argv, &log2);
  char want[4400];
  snprintf(want, sizeof want, "%s/saxpy-.mlir", out);
#define FRONT "cache: the front answers an MLIR hit into a {target} pattern"
  check(rc1 == 0, FRONT ": the first run succeeds", "rc %d: %s", rc1, log1);
  check(rc2 == 0, FRONT ": the second run succeeds", "rc %d: %s", rc2, log2);
  check(exists(want), FRONT, "no %s", want);
#undef FRONT
  free(log1);
  free(log2);
}

/* ---- tools: only their own descriptors, and the job's private TMPDIR ---- */
static void test_tool_environment(void) {
  const char *script = tmp_path("probe-tool"), *listing = tmp_path("probe-fds"), *where = tmp_path("probe-tmp");
  char body[9000];
  /* it records what it got, then links as ld.lld (a blob is read back before it is taken) */
  int linker = have_program(LLVM_BINDIR "/ld.lld");
  snprintf(body, sizeof body, "#!/bin/sh\nls /proc/$$/fd > %s\necho \"$TMPDIR\" > %s\nexec %s \"$@\"\n", listing,
           where, linker ? LLVM_BINDIR "/ld.lld" : "false");
  spill(script, body, strlen(body));
  chmod(script, 0755);
  int leak = open("/dev/null", O_RDONLY); /* no O_CLOEXEC: a careless host's */
  dup2(leak, 57);
  gpublob_options o = opts_for(NULL, "amdgcn:gfx90a");
  o.tool = script;
  gpublob_result r = {0};
  int rc = gpublob_file_compile_all(g, &o, "examples/saxpy_amdgcn.ll", &r);
  gpublob_result_free(&r);
  close(57);
  close(leak);
  size_t n;
  char *fds = (char *)slurp(listing, &n), *tmp = (char *)slurp(where, &n);
  int has57 = fds && (strstr(fds, "\n57\n") || !strncmp(fds, "57\n", 3));
  if (tmp && n && tmp[n - 1] == '\n') tmp[n - 1] = 0;
#define FDS "tools: a descriptor the host left open (no CLOEXEC) does not reach the tool"
  if (linker) check(rc == 0, FDS ": compiles", "rc %d (%s)", rc, gpublob_error_message(g));
  else skip(FDS ": compiles", "the ld.lld program not found (lld-22)");
  check(fds != NULL, FDS ": the tool listed its descriptors", "no %s", listing);
  check_if(fds, !has57, FDS, "fds: %s", fds);
#undef FDS
#define TMP "tools: TMPDIR is the job's private directory, removed after"
  check(tmp != NULL, TMP ": the tool recorded its TMPDIR", "no %s", where);
  check(contains(tmp, "/gpublob-"), TMP ": a gpublob- directory", "TMPDIR was '%s'", tmp ? tmp : "-");
  check_if(tmp, !exists(tmp), TMP ": removed after", "TMPDIR was '%s'", tmp);
#undef TMP
  free(fds);
  free(tmp);
}

/* ---- what a review found: each once a real failure ---- */
static int compile_text(const char *target, const char *text, unsigned flags, gpublob_blob *b) {
  gpublob_options o = GPUBLOB_OPTIONS_INIT;
  o.target = target;
  o.flags = flags;
  o.format = GPUBLOB_FORMAT_ASM;
  return gpublob_module_compile(g, &o, text, strlen(text), "review.ll", b);
}

static void test_review_inputs(void) {
  static const char used[] = /* what clang writes for __attribute__((used)) */
      "target triple = \"nvptx64-nvidia-cuda\"\n"
      "@counter = addrspace(1) global i32 0\n"
      "@llvm.compiler.used = appending global [1 x ptr] [ptr addrspacecast (ptr addrspace(1) @counter to ptr)], "
      "section \"llvm.metadata\"\n"
      "define ptx_kernel void @k() {\n  store i32 1, ptr addrspace(1) @counter\n  ret void\n}\n";
  gpublob_blob b = {0};
  int rc = compile_text("nvptx:sm_80", used, 0, &b);
  check(rc == 0, "review: @llvm.compiler.used (clang's used) is no public symbol to refuse", "rc %d: %s", rc,
        gpublob_error_message(g));
  check(contains((char *)b.data, "counter"),
        "review: @llvm.compiler.used (clang's used) is no public symbol to refuse: the PTX has counter", NULL);
  gpublob_blob_free(&b);
  {
    size_t depth = 3000, n = 64 + depth * 8;
    char *deep = malloc(n);
    int k = snprintf(deep, n, "@s = global [1 x i8] c\"\\\"\n@g = global ");
    for (size_t i = 0; i < depth; i++) k += snprintf(deep + k, n - (size_t)k, "[1 x ");
    k += snprintf(deep + k, n - (size_t)k, "i8");
    for (size_t i = 0; i < depth; i++) deep[k++] = ']';
    deep[k] = 0;
    rc = compile_text("nvptx", deep, 0, &b);
    check(rc == GPUBLOB_PARSE, "review: a backslash before a quote (c\"\\\") does not hide deep nesting in LLVM IR",
          "rc %d: %.200s", rc, gpublob_error_message(g));
    check(contains(gpublob_error_message(g), "nest deeper"),
          "review: a backslash before a quote (c\"\\\") does not hide deep nesting in LLVM IR: the message says so",
          "%.200s", gpublob_error_message(g));
    gpublob_blob_free(&b);
    free(deep);
  }
  static const char v15[] = "target triple = \"spirv64v1.5-unknown-unknown\"\n"
                            "define spir_kernel void @k(ptr addrspace(1) %p) {\n"
                            "  store i32 1, ptr addrspace(1) %p\n  ret void\n}\n";
  gpublob_options o = GPUBLOB_OPTIONS_INIT;
  o.target = "spirv";
  rc = gpublob_module_compile(g, &o, v15, sizeof v15 - 1, "v15.ll", &b);
  spill(tmp_path("v15.spv"), b.data, b.size);
  const char *val[] = {SPIRV_VAL, tmp_path("v15.spv"), NULL};
  int vr = rc == 0 ? run(val, NULL) : -1;
#define V15 "review: a module for spirv64v1.5 (clang -target spirv64v1.5) compiles, and spirv-val takes it"
  check(rc == 0, V15 ": compiles", "rc %d: %s", rc, gpublob_error_message(g));
  if (have_program(SPIRV_VAL)) check_if(rc == 0, vr == 0, V15, "spirv-val exit %d", vr);
  else skip(V15, "spirv-val not found (spirv-tools)");
#undef V15
  gpublob_blob_free(&b);
}

/* Isolation in a host that closed its stdin and stdout (a daemon). */
static void test_isolation_daemon(void) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    close(0);
    close(1);
    gpublob *h;
    if (gpublob_open(&h)) _exit(1);
    gpublob_options o = GPUBLOB_OPTIONS_INIT;
    o.target = "spirv";
    o.flags = GPUBLOB_FLAG_ISOLATE;
    gpublob_blob b = {0};
    int rc = gpublob_file_compile(h, &o, "examples/saxpy_spirv.ll", &b);
    if (rc) fprintf(stderr, "  (daemon child: rc %d: %s)\n", rc, gpublob_error_message(h));
    gpublob_close(h);
    _exit((rc ? 2 : 0) | (b.size > 4 ? 0 : 4)); /* 1: no handle; 2: the call failed; 4: no blob */
  }
  int status;
  waitpid(pid, &status, 0);
  int bits = exit_code(status), ran = bits >= 0 && bits < 8 && !(bits & 1);
#define DAEMON "review: isolation works in a host whose stdin and stdout are closed"
  check(ran, DAEMON ": the child opens a handle and finishes", "status %d", status);
  check_if(ran, !(bits & 2), DAEMON, "child exit %d", bits);
  check_if(ran, !(bits & 4), DAEMON ": a blob of more than 4 bytes", "child exit %d", bits);
#undef DAEMON
}

/* A pipe tool that stops reading its input still meets its timeout. */
static void test_stalled_reader(void) {
  const char *script = tmp_path("stall-tool");
  const char body[] = "#!/bin/sh\nhead -c 8192 /dev/fd/3 > /dev/null\nsleep 30\n";
  spill(script, body, sizeof body - 1);
  chmod(script, 0755);
  char big[600000]; /* a module whose object is far more than a pipe's buffer */
  int k = snprintf(big, sizeof big, "define amdgpu_kernel void @k(ptr addrspace(1) %%p) {\n");
  for (int i = 0; i < 6000 && k < (int)sizeof big - 200; i++)
    k += snprintf(big + k, sizeof big - (size_t)k, "  store volatile i32 %d, ptr addrspace(1) %%p\n", i);
  snprintf(big + k, sizeof big - (size_t)k, "  ret void\n}\n");
  gpublob_options o = GPUBLOB_OPTIONS_INIT;
  o.target = "amdgcn";
  o.tool = script;
  o.tool_timeout = 2;
  gpublob_blob b = {0};
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int rc = gpublob_module_compile(g, &o, big, strlen(big), "big.ll", &b);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
#define STALL "review: a tool that stops reading its input is killed at its timeout"
  check(rc == GPUBLOB_TOOL, STALL ": TOOL", "rc %d: %.200s", rc, gpublob_error_message(g));
  check(contains(gpublob_error_message(g), "did not finish"), STALL ": the message says it did not finish", "%.200s",
        gpublob_error_message(g));
  check(s < 10, STALL, "after %.1f s", s);
#undef STALL
  gpublob_blob_free(&b);
}

/* Options of a newer version than this gpublob are OPTION, even where the cache holds
** what the fields it knows would find. */
static void test_newer_options_not_cached(void) {
  const char *dir = tmp_path("c-newer");
  gpublob_options o = opts_for(dir, "spirv");
  compile_ok(&o, "examples/saxpy_spirv.ll", NULL);
  o.version = GPUBLOB_OPTIONS_VERSION + 1;
  gpublob_result r = {0};
  int rc = gpublob_file_compile_all(g, &o, "examples/saxpy_spirv.ll", &r);
  check(rc == GPUBLOB_OPTION, "review: options newer than gpublob are OPTION, never a cache hit", "rc %d", rc);
  check(r.count == 0, "review: options newer than gpublob are OPTION, never a cache hit: no output", "%zu outputs",
        r.count);
  gpublob_result_free(&r);
}

/* The CLI writing -o - into a pipe whose reader is gone: an IO error, not SIGPIPE. */
static void test_cli_sigpipe(void) {
  int fds[2];
  if (pipe(fds)) return;
  close(fds[0]);
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 2);
    execl("build/gpublob", "build/gpublob", "--no-cache", "-t", "spirv", "-f", "asm", "examples/saxpy_spirv.ll", "-o",
          "-", (char *)NULL);
    _exit(127);
  }
  close(fds[1]);
  int status;
  waitpid(pid, &status, 0);
  check(exit_code(status) == 10 + GPUBLOB_IO,
        "review: the CLI writing into a closed pipe exits 13 (IO), not 141", "status %d (exited %d, code %d)",
        status, WIFEXITED(status), WEXITSTATUS(status));
}

/* ---- rogue blob tools: a valid blob of another module, junk appended ---- */
static const char rogue_nv[] =
    "target triple = \"nvptx64-nvidia-cuda\"\n"
    "define ptx_kernel void @store_kernel(ptr addrspace(1) %p) {\n"
    "  store i32 7, ptr addrspace(1) %p\n  ret void\n}\n";
static const char rogue_amd[] =
    "target triple = \"amdgcn-amd-amdhsa\"\n"
    "define amdgpu_kernel void @store_kernel(ptr addrspace(1) %p) {\n"
    "  store i32 7, ptr addrspace(1) %p\n  ret void\n}\n";

/* A stand-in for a blob tool at path: it reads its input (stdin, a /dev/fd pipe or
** a file), finds its -o, then runs body. */
static void rogue_script(const char *path, const char *body) {
  char text[9000];
  snprintf(text, sizeof text,
           "#!/bin/sh\nout=; prev=\nfor a in \"$@\"; do [ \"$prev\" = -o ] && out=$a; prev=$a; done\n%s\n", body);
  spill(path, text, strlen(text));
  chmod(path, 0755);
}

/* The CLI with tool script, for target, on input, into out with the cache dir: its
** exit status, and its stderr in *log. */
static int rogue_run(const char *tool, const char *target, const char *input, const char *out, const char *dir,
                     char **log) {
  const char *argv[] = {"build/gpublob-compiler", "--tool", tool, "--tool-mode", "program", "--cache-dir", dir,
                        "-t", target, input, "-o", out, NULL};
  return run(argv, log);
}

/* Whether dir holds a cache entry or manifest (a blob cached, or a call's record):
** files *.e and *.m (the digests of the files a key covers, *.d, are no result). */
static int has_entries(const char *dir) {
  char cmd[4400];
  snprintf(cmd, sizeof cmd, "test -n \"$(find '%s' -type f \\( -name '*.e' -o -name '*.m' \\) 2>/dev/null)\"", dir);
  return sh(cmd) == 0;
}

/* One rogue tool: TOOL (the CLI's 10 + 15), the message names the tool and says what
** is wrong, no output, nothing in the cache directory. */
static void rogue_case(const char *what, const char *tool, const char *target, const char *input,
                       const char *tag, const char *why) {
  char dir[4200], out[4200], name[600];
  snprintf(dir, sizeof dir, "%s-cache", tool);
  snprintf(out, sizeof out, "%s-out.bin", tool);
  char *log = NULL;
  int rc = rogue_run(tool, target, input, out, dir, &log);
  snprintf(name, sizeof name, "rogue tool: %s: TOOL", what);
  check(rc == 10 + GPUBLOB_TOOL, name, "exit %d: %s", rc, shown(log));
  snprintf(name, sizeof name, "rogue tool: %s: the message names the tool", what);
  check(contains(log, tag), name, "no '%s' in: %s", tag, shown(log));
  snprintf(name, sizeof name, "rogue tool: %s: the message says what is wrong", what);
  check(contains(log, why), name, "no '%s' in: %s", why, shown(log));
  snprintf(name, sizeof name, "rogue tool: %s: no output", what);
  check(!exists(out), name, "%s exists", out);
  snprintf(name, sizeof name, "rogue tool: %s: nothing cached", what);
  check(!has_entries(dir), name, "an entry or manifest under %s", dir);
  free(log);
}

/* For one target: its real tool (real) makes a blob of another module (@other_kernel),
** and two stand-ins named after it give that blob, and the real tool's blob with 5000
** junk bytes appended, for the job's module (@store_kernel); a third runs the real
** tool as it is (the control: it compiles, and is cached). */
static void rogue_target(const char *label, const char *target, const char *text, const char *real,
                         const char *drain) {
  char in[4200], other_in[4200], other[4200], body[9000], copy_tool[4200], junk_tool[4200], plain_tool[4200];
  snprintf(in, sizeof in, "%s", tmp_path(label));
  strcat(in, ".ll");
  spill(in, text, strlen(text));
  /* the other module: the same kernel, renamed */
  snprintf(other_in, sizeof other_in, "%s-other.ll", tmp_path(label));
  char *renamed = strdup(text), *at = strstr(renamed, "@store_kernel");
  char other_text[4096];
  *at = 0;
  snprintf(other_text, sizeof other_text, "%s@other_kernel%s", renamed, at + strlen("@store_kernel"));
  free(renamed);
  spill(other_in, other_text, strlen(other_text));
  snprintf(other, sizeof other, "%s-other.bin", tmp_path(label));
  const char *argv[] = {"build/gpublob-compiler", "--no-cache", "--tool", real, "--tool-mode", "program", "-t",
                        target, other_in, "-o", other, NULL};
  char *log = NULL, name[300];
  int rc = run(argv, &log);
  snprintf(name, sizeof name, "rogue tool: %s: the real tool compiles @other_kernel", label);
  check(rc == 0 && exists(other), name, "exit %d: %s", rc, shown(log));
  free(log);
  snprintf(copy_tool, sizeof copy_tool, "%s", tmp_path(label));
  strcat(copy_tool, "-rogue-other-module");
  snprintf(body, sizeof body, "%s\ncp '%s' \"$out\"", drain, other);
  rogue_script(copy_tool, body);
  snprintf(junk_tool, sizeof junk_tool, "%s", tmp_path(label));
  strcat(junk_tool, "-rogue-junk");
  snprintf(body, sizeof body, "'%s' \"$@\" || exit 1\nhead -c 5000 /dev/urandom >> \"$out\"", real);
  rogue_script(junk_tool, body);
  snprintf(plain_tool, sizeof plain_tool, "%s", tmp_path(label));
  strcat(plain_tool, "-wrapper");
  snprintf(body, sizeof body, "exec '%s' \"$@\"", real);
  rogue_script(plain_tool, body);

  char what[300];
  snprintf(what, sizeof what, "%s writes a valid blob of another module", label);
  rogue_case(what, copy_tool, target, in, "-rogue-other-module", "kernel 'store_kernel', which the module defines");
  snprintf(what, sizeof what, "%s appends 5000 junk bytes to the real blob", label);
  rogue_case(what, junk_tool, target, in, "-rogue-junk", "5000 bytes are appended");

  /* the control: the real tool through a wrapper compiles and is cached */
  char dir[4200], out[4200];
  snprintf(dir, sizeof dir, "%s-cache", plain_tool);
  snprintf(out, sizeof out, "%s-out.bin", plain_tool);
  log = NULL;
  rc = rogue_run(plain_tool, target, in, out, dir, &log);
  snprintf(name, sizeof name, "rogue tool: %s: the real tool (a wrapper) compiles, and is cached", label);
  check(rc == 0 && exists(out) && has_entries(dir), name, "exit %d: %s", rc, shown(log));
  free(log);
}

/* A pack program that appends 5000 junk bytes to what the real one (real) writes, found
** first on the tool path as name: TOOL naming it, nothing written or cached. */
static void rogue_pack(const char *label, const char *name, const char *real, const char *target,
                       const char *text, const char *out_flag_sh) {
  char dir[4200], tool[4300], body[9000], in[4200], out[4200], cache[4200], what[300];
  snprintf(dir, sizeof dir, "%s-rogue-packdir", tmp_path(label));
  mkdir(dir, 0755);
  snprintf(tool, sizeof tool, "%s/%s", dir, name);
  snprintf(body, sizeof body, "#!/bin/sh\n%s\n'%s' \"$@\" || exit 1\nhead -c 5000 /dev/urandom >> \"$out\"\n",
           out_flag_sh, real);
  spill(tool, body, strlen(body));
  chmod(tool, 0755);
  snprintf(in, sizeof in, "%s-pack.ll", tmp_path(label));
  spill(in, text, strlen(text));
  snprintf(out, sizeof out, "%s-pack.out", tmp_path(label));
  snprintf(cache, sizeof cache, "%s-pack-cache", tmp_path(label));
  const char *argv[] = {"build/gpublob-compiler", "--tool-dir", dir, "--tool-mode", "program", "--cache-dir", cache,
                        "-t", target, "-f", "pack", in, "-o", out, NULL};
  char *log = NULL, check_name[400];
  int rc = run(argv, &log);
  snprintf(what, sizeof what, "rogue tool: a %s that appends 5000 junk bytes to the pack", label);
  snprintf(check_name, sizeof check_name, "%s: TOOL", what);
  check(rc == 10 + GPUBLOB_TOOL, check_name, "exit %d: %s", rc, shown(log));
  snprintf(check_name, sizeof check_name, "%s: the message names it and the bytes appended", what);
  check(contains(log, name) && contains(log, "5000 bytes are appended"), check_name, "%s", shown(log));
  snprintf(check_name, sizeof check_name, "%s: no output, nothing cached", what);
  check(!exists(out) && !has_entries(cache), check_name, "%s", out);
  free(log);
}

static void test_rogue_tools(void) {
  char ptxas[4096] = "";
  gpublob_options o = GPUBLOB_OPTIONS_INIT;
  o.target = "nvptx:sm_80";
  if (have_ptxas() && !tool_path(g, &o, ptxas, sizeof ptxas) && *ptxas)
  {
    rogue_target("ptxas", "nvptx:sm_80", rogue_nv, ptxas, "cat > /dev/null");
    char fatbinary[4200];
    snprintf(fatbinary, sizeof fatbinary, "%s", ptxas);
    char *slash = strrchr(fatbinary, '/');
    if (slash) snprintf(slash + 1, sizeof fatbinary - (size_t)(slash + 1 - fatbinary), "fatbinary");
    if (have_program(fatbinary))
      rogue_pack("fatbinary", "fatbinary", fatbinary, "nvptx:sm_80,sm_90", rogue_nv,
                 "out=; for a in \"$@\"; do case $a in --create=*) out=${a#--create=} ;; esac; done");
    else
      skip("rogue tool: a fatbinary stand-in", "no fatbinary beside ptxas");
  } else
    skip("rogue tool: ptxas stand-ins", "CUDA toolkit (ptxas) not found");
  if (have_program(LLVM_BINDIR "/ld.lld"))
    rogue_target("ld.lld", "amdgcn:gfx90a", rogue_amd, LLVM_BINDIR "/ld.lld",
                 "for a in \"$@\"; do case $a in /dev/fd/*) cat \"$a\" > /dev/null ;; esac; done");
  else
    skip("rogue tool: ld.lld stand-ins", "the ld.lld program not found (lld-22)");
  if (have_program(LLVM_BINDIR "/clang-offload-bundler"))
    rogue_pack("clang-offload-bundler", "clang-offload-bundler", LLVM_BINDIR "/clang-offload-bundler",
               "amdgcn:gfx90a,gfx942", rogue_amd,
               "out=; for a in \"$@\"; do case $a in -output=*) out=${a#-output=} ;; esac; done");
  else
    skip("rogue tool: ld.lld stand-ins", "the ld.lld program not found (lld-22)");
}

int main(void) {
  if (gpublob_open(&g)) return 2;
  test_rogue_tools();
  test_review_inputs();
  test_isolation_daemon();
  test_stalled_reader();
  test_newer_options_not_cached();
  test_cli_sigpipe();
  test_options_v0();
  /* these compile saxpy_amdgcn.ll, whose expf is ocml's: ROCm's bitcode */
  int rocm = need_rocm("cache and tools: untrusted directories, links, entries, the tool's environment");
  if (rocm) test_untrusted_dirs();
  if (rocm) test_links();
  test_fifo();
  if (rocm) test_entries();
  test_front_mlir_pattern();
  if (rocm) test_tool_environment();
  gpublob_close(g);
  return report();
}
