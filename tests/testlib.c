/* testlib.c: see testlib.h. */
#define _GNU_SOURCE
#include "testlib.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpublob.h"

extern char **environ;
static int passed, failed, skipped;
static char scratch_dir[4096];
static pid_t scratch_owner; /* the process that made it: a child it forked cleans nothing */

void check_at(const char *file, int line, const char *expr, int ok, const char *name,
              const char *fmt, ...) {
  if (ok) {
    passed++;
    printf("ok   %s\n", name);
    return;
  }
  failed++;
  printf("FAIL %s:%d: %s\n     check: %s\n     ", file, line, name, expr);
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt ? fmt : "", ap);
  va_end(ap);
  printf("\n");
}

void check_unmet(const char *file, int line, const char *pre, const char *expr, const char *name) {
  failed++;
  printf("FAIL %s:%d: %s\n     check: %s\n     not checked: %s was false\n", file, line, name, expr, pre);
}

void skip(const char *name, const char *why) {
  skipped++;
  printf("skip %s: %s\n", name, why);
}

static void remove_tree(const char *dir) {
  DIR *d = opendir(dir);
  struct dirent *e;
  char path[8192];
  while (d && (e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    struct stat st;
    if (!lstat(path, &st) && S_ISDIR(st.st_mode)) remove_tree(path);
    else unlink(path);
  }
  if (d) closedir(d);
  rmdir(dir);
}

int report(void) {
  if (*scratch_dir) remove_tree(scratch_dir);
  printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
  return failed ? 1 : 0;
}

int run(const char *const *argv, char **out) {
  int fds[2];
  if (pipe(fds)) return -1;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
  posix_spawn_file_actions_addclose(&fa, fds[0]);
  pid_t pid;
  int rc = posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  size_t len = 0, cap = 4096;
  char *buf = malloc(cap);
  for (ssize_t r; buf && (r = read(fds[0], buf + len, cap - len - 1)) > 0;) {
    len += (size_t)r;
    if (len + 1 == cap) buf = realloc(buf, cap *= 2);
  }
  close(fds[0]);
  if (buf) buf[len] = 0;
  if (out) *out = buf;
  else free(buf);
  if (rc) return -1;
  int status;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int contains(const char *haystack, const char *needle) {
  return haystack && needle && strstr(haystack, needle) != NULL;
}

const char *shown(const char *s) { return s ? s : "(none)"; }

int lacks(const char *haystack, const char *needle) {
  return haystack && needle && strstr(haystack, needle) == NULL;
}

int same_str(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }

int exit_code(int status) {
  return WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
}

int is_elf(const void *data, size_t size) { return data && size >= SELFMAG && !memcmp(data, ELFMAG, SELFMAG); }

/* Little-endian fields (GPU ELFs are ELFDATA2LSB), at <elf.h>'s offsets. */
static unsigned le(const unsigned char *p, size_t n) {
  unsigned v = 0;
  while (n--) v = v << 8 | p[n];
  return v;
}

unsigned elf_machine_of(const void *data, size_t size) {
  size_t at = offsetof(Elf64_Ehdr, e_machine), n = sizeof(Elf64_Half); /* the same in ELF32 */
  return is_elf(data, size) && size >= at + n ? le((const unsigned char *)data + at, n) : 0;
}

unsigned elf_flags_of(const void *data, size_t size) {
  size_t at = offsetof(Elf64_Ehdr, e_flags), n = sizeof(Elf64_Word);
  return is_elf(data, size) && size >= at + n ? le((const unsigned char *)data + at, n) : 0;
}

int exists(const char *path) { return access(path, F_OK) == 0; }

int have_program(const char *path) {
  struct stat st;
  return path && *path && !stat(path, &st) && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

int built_with_mlir(const char *cli) {
  const char *argv[] = {cli, "--version", NULL};
  char *ver = NULL;
  run(argv, &ver);
  int mlir = contains(ver, "and MLIR");
  free(ver);
  return mlir;
}

int have_rocm_bitcode(void) { return *ROCM_BITCODE && exists(ROCM_BITCODE "/ocml.bc"); }

int need_rocm(const char *what) {
  if (have_rocm_bitcode()) return 1;
  skip(what, "ROCm's device libraries not found (ocml.bc in '" ROCM_BITCODE "'; apt-get install rocm-device-libs)");
  return 0;
}

unsigned char *slurp(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (size) *size = 0;
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  rewind(f);
  unsigned char *p = malloc((size_t)n + 1);
  if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
    free(p);
    p = NULL;
  }
  fclose(f);
  if (p) p[n] = 0;
  if (size) *size = (size_t)n;
  return p;
}

int spill(const char *path, const void *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  size_t w = fwrite(data, 1, size, f);
  return fclose(f) || w != size ? -1 : 0;
}

/* A sanitizer that stops the test on its first report (tests/sanitize.sh) ends the
** process with _exit: its tools, their private directories and this scratch
** directory would stay behind.  The callback cleans up as a host's signal handler
** does (weak: present only in a sanitized build). */
void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

static void on_sanitizer_death(void) {
  if (getpid() != scratch_owner) return; /* a forked child's death is not the test's */
  gpublob_process_cleanup();
  if (*scratch_dir) remove_tree(scratch_dir);
}

/* A test that crashes (or is told to stop) would leave its scratch directory and its
** tools' private directories in TMPDIR: they go, then the signal's own action ends
** the process, so the runner still sees the signal in the exit status. */
static void on_fatal_signal(int sig) {
  on_sanitizer_death();
  signal(sig, SIG_DFL);
  raise(sig);
}

static void cleanup_on_fatal_signals(void) {
  static const int sigs[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGTERM};
  for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) signal(sigs[i], on_fatal_signal);
}

__attribute__((constructor)) static void cleanup_on_sanitizer_death(void) {
  if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(on_sanitizer_death);
}

const char *scratch(void) {
  if (!*scratch_dir) {
    const char *t = getenv("TMPDIR");
    snprintf(scratch_dir, sizeof scratch_dir, "%s/gpublob-test-XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(scratch_dir)) {
      perror("mkdtemp");
      exit(2);
    }
    scratch_owner = getpid();
    cleanup_on_fatal_signals();
  }
  return scratch_dir;
}

const char *tmp_path(const char *name) {
  static char ring[8][4200];
  static int i;
  char *p = ring[i++ % 8];
  snprintf(p, sizeof ring[0], "%s/%s", scratch(), name);
  return p;
}

int leftovers(const char *dir, const char *part) {
  DIR *d = opendir(dir);
  struct dirent *e;
  int n = 0;
  while (d && (e = readdir(d)))
    if (strstr(e->d_name, part)) n++;
  if (d) closedir(d);
  return n;
}

int tool_path(gpublob *g, const gpublob_options *opts, char *buf, size_t size) {
  gpublob_options o = opts ? *opts : (gpublob_options)GPUBLOB_OPTIONS_INIT;
  o.version = GPUBLOB_OPTIONS_VERSION;
  o.tool_mode = GPUBLOB_TOOL_PROGRAM;
  gpublob_tool_info t;
  int rc = gpublob_tool_info_get(g, &o, 1, &t, sizeof t);
  snprintf(buf, size, "%s", rc ? "" : t.path);
  return rc;
}

int have_ptxas(void) {
  gpublob *g;
  if (gpublob_open(&g)) return 0;
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = "nvptx", .tool_mode = GPUBLOB_TOOL_PROGRAM};
  gpublob_tool_info t;
  int ok = gpublob_tool_info_get(g, &o, 1, &t, sizeof t) == GPUBLOB_OK;
  gpublob_close(g);
  return ok;
}

int have_llvm_cxx(void) {
  /* through the CLI, so that a test linked with the LLVM-free front has it too */
  static const char ll[] = "target triple = \"nvptx64-nvidia-cuda\"\n"
                           "define void @f(ptr %p, float %a) {\n  %m = fmul contract float %a, %a\n"
                           "  store float %m, ptr %p\n  ret void\n}\n";
  static int known = -1;
  if (known >= 0) return known;
  const char *in = tmp_path("have_llvm_cxx.ll");
  spill(in, ll, sizeof ll - 1);
  const char *argv[] = {"build/gpublob-compiler", "--no-cache", "--fp-contract", "off", "-f", "ll", "-t", "nvptx", in,
                        "-o", "/dev/null", NULL};
  char *log = NULL;
  int rc = run(argv, &log);
  known = !(rc == 10 + GPUBLOB_OPTION && log && strstr(log, "src/passes.cpp"));
  free(log);
  return known;
}

int unbundle(const char *bundle, const char *id, const char *out) {
  char targets[512], input[4400], output[4400];
  snprintf(targets, sizeof targets, "-targets=%s", id);
  snprintf(input, sizeof input, "-input=%s", bundle);
  snprintf(output, sizeof output, "-output=%s", out);
  const char *argv[] = {LLVM_BINDIR "/clang-offload-bundler", "-unbundle", "-type=o", targets, input, output, NULL};
  return run(argv, NULL);
}

int amdgpu_chip_is(const char *path, const char *chip) {
  const char *argv[] = {LLVM_BINDIR "/llvm-readelf", "--file-header", path, NULL};
  char *out = NULL, want[128];
  int rc = run(argv, &out);
  const char *flags = !rc && out ? strstr(out, "Flags:") : NULL;
  const char *nl = flags ? strchr(flags, '\n') : NULL;
  snprintf(want, sizeof want, ", %s", chip);
  const char *at = flags ? strstr(flags, want) : NULL;
  size_t n = strlen(want);
  int ok = at && (!nl || at < nl) && (at[n] == ',' || at[n] == '\n' || !at[n]);
  free(out);
  return ok;
}

int clang_ir(const char *const *flags, const char *src, const char *out, const char *what) {
  const char *argv[32];
  int n = 0;
  argv[n++] = LLVM_BINDIR "/clang";
  for (; *flags && n < 26; flags++) argv[n++] = *flags;
  argv[n++] = "-Itests/clang";
  argv[n++] = "-Wno-unknown-cuda-version";
  argv[n++] = src;
  argv[n++] = "-o";
  argv[n++] = out;
  argv[n] = NULL;
  char *log = NULL, name[300];
  snprintf(name, sizeof name, "clang: %s", what);
  if (!have_program(argv[0])) {
    skip(name, "clang-22 not found (" LLVM_BINDIR "/clang)");
    return -1;
  }
  int rc = run(argv, &log);
  check(rc == 0 && exists(out), name, "clang exited %d: %s", rc, shown(log));
  free(log);
  return rc == 0 && exists(out) ? 0 : -1;
}

const char *rocm_folder(void) {
  static char root[4200];
  char bin[4300], bc[4300];
  snprintf(root, sizeof root, "%s", tmp_path("rocm"));
  snprintf(bin, sizeof bin, "%s/llvm/bin", root);
  snprintf(bc, sizeof bc, "%s/amdgcn", root);
  if (!have_program(LLVM_BINDIR "/ld.lld") || !have_rocm_bitcode()) return NULL;
  const char *mk[] = {"mkdir", "-p", bin, bc, NULL};
  if (run(mk, NULL)) return NULL;
  strcat(bin, "/ld.lld");
  strcat(bc, "/bitcode");
  if ((symlink(LLVM_BINDIR "/ld.lld", bin) && errno != EEXIST) ||
      (symlink(ROCM_BITCODE, bc) && errno != EEXIST))
    return NULL;
  return root;
}

const char *auto_tool(const char *target) {
  static char name[64];
  gpublob *g;
  name[0] = 0;
  if (gpublob_open(&g)) return name;
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = target};
  gpublob_tool_info t;
  if (gpublob_tool_info_get(g, &o, 1, &t, sizeof t) == GPUBLOB_OK) snprintf(name, sizeof name, "%s", t.name);
  gpublob_close(g);
  return name;
}
