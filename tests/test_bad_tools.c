/* test_bad_tools: blob tools through the CLI: not found (NOTOOL) and failing every way (TOOL:
** exits, signals, garbage, hangs, children left, files left in TMPDIR); then SIGINT
** and SIGTERM while a tool runs, a killed call's directories, the job timeout, a
** good tool leaving a child, and the tool's private TMPDIR.  The harness and the
** invariants every case keeps: tests/bad.h */
#include "bad.h"

static const char undefined_call_amdgcn[] =
    AMT
    "define amdgpu_kernel void @k(ptr addrspace(1) %p) {\n"
    "  %v = call float @no_such_device_function(float 1.0)\n"
    "  store float %v, ptr addrspace(1) %p\n  ret void\n}\n"
    "declare float @no_such_device_function(float)\n";

static const bad_case cases[] = {
    /* ---- blob tools not found: NOTOOL ---- */
    {"notool: ptxas on no search path", "--no-default-search -t nvptx " NV, .exit = E(NOTOOL)},
    /* --tool-mode program: where lld is linked in, auto needs no ld.lld program */
    {"notool: ld.lld on no search path", "--tool-mode program --no-default-search -t amdgcn " AM, .exit = E(NOTOOL)},
    {"notool: --tool-dir that does not exist",
     "--tool-mode program --no-default-search --tool-dir /nonexistent -t amdgcn " AM,
     .exit = E(NOTOOL), .msg = "/nonexistent"},
    {"notool: --tool that does not exist", "--tool /nonexistent/ld.lld -t amdgcn " AM, .exit = E(NOTOOL)},
    {"notool: --tool without the execute bit", "--tool @S/tools/noexec -t amdgcn " AM, .exit = E(NOTOOL)},
    {"notool: --tool that is a directory", "--tool @S/tools -t amdgcn " AM, .exit = E(NOTOOL), .alt = E(TOOL)},
    {"notool: in-process nvJitLink on no search path", "--tool-mode in-process --no-default-search -t nvptx " NV,
     .exit = E(NOTOOL)},
    {"notool: fatbinary missing (only ptxas on the path)",
     "--no-default-search --tool-dir @S/ptxas-only -t nvptx:sm_80,sm_90 -f fatbin " NV, .exit = E(NOTOOL)},
    {"notool: clang-offload-bundler missing (--tool-mode program, only ld.lld on the path)",
     "--tool-mode program --no-default-search --tool-dir @S/lld-only -t amdgcn:gfx90a,gfx1030 -f fatbin " AM,
     .exit = E(NOTOOL), .msg = "clang-offload-bundler", .needs_ld_lld = 1},

    /* ---- blob tools failing: TOOL ---- */
#define PACKT(dir) "--tool-mode program --tool-dir @S/" dir " -t amdgcn:gfx90a,gfx1030 -f fatbin " AM
    {"tool: clang-offload-bundler exits 1 (--tool-mode program)", PACKT("bundler-exit1"), .exit = E(TOOL),
     .msg = "fake bundler: refused", .needs_ld_lld = 1},
    {"tool: clang-offload-bundler writes no bundle (--tool-mode program)", PACKT("bundler-garbage"), .exit = E(TOOL),
     .msg = "5f5f434c414e475f", .needs_ld_lld = 1},
#define AT(tool) "--tool @S/tools/" tool " -t amdgcn " AM
#define NT(tool) "--tool @S/tools/" tool " --tool-mode program -t nvptx " NV
    {"tool: exits 1", AT("exit1"), .exit = E(TOOL), .msg = "fake tool: refused"},
    {"tool: killed by SIGSEGV", AT("segv"), .exit = E(TOOL)},
    {"tool: killed by SIGKILL", AT("sigkill"), .exit = E(TOOL)},
    {"tool: writes garbage, not an ELF file", AT("garbage"), .exit = E(TOOL)},
    {"tool: writes a wrong magic", AT("badmagic"), .exit = E(TOOL)},
    {"tool: writes the ELF magic, then garbage (amdgcn)", AT("elf-garbage"), .exit = E(TOOL),
     .msg = "gpublob can read"},
    {"tool: writes the ELF magic, then garbage (nvptx)", NT("elf-garbage"), .exit = E(TOOL),
     .msg = "gpublob can read"},
    {"tool: an hsaco for another chip", AT("ld.lld-other-chip"), .exit = E(TOOL),
     .msg = "not the backend object's", .needs_ld_lld = 1},
    {"tool: a cubin for another chip", "--tool @S/tools/ptxas-other-chip --tool-mode program -t nvptx:sm_90 " NV,
     .exit = E(TOOL), .msg = "for another chip", .needs_ptxas = 1},
    {"tool: writes an empty output", AT("empty"), .exit = E(TOOL)},
    {"tool: writes no output and exits 0", AT("nooutput"), .exit = E(TOOL)},
    {"tool: writes an output, then exits 1", AT("elf-then-fail"), .exit = E(TOOL)},
    {"tool: sleeps forever (--tool-timeout 2)", "--tool-timeout 2 " AT("forever"), .exit = E(TOOL), .limit = 12,
     .tools_dead = 1},
    {"tool: sleeps forever without reading its input (--tool-timeout 2)", "--tool-timeout 2 " AT("forever-noread"),
     .exit = E(TOOL), .limit = 12, .tools_dead = 1},
    {"tool: ignores SIGTERM and sleeps (--tool-timeout 2)", "--tool-timeout 2 " AT("ignore-term"), .exit = E(TOOL),
     .limit = 12, .tools_dead = 1},
    {"tool: leaves a child holding stdout, exits 0 with no output", AT("child-holds-stdout"), .exit = E(TOOL),
     .limit = 12},
    {"tool: leaves a child holding stderr, exits 1", AT("child-holds-stderr-fail"), .exit = E(TOOL), .limit = 12},
    {"tool: leaves a setsid child holding stdout", AT("setsid-child"), .exit = E(TOOL), .limit = 12},
    {"tool: makes a subdirectory in its TMPDIR, exits 1", AT("tmpdir-subdir"), .exit = E(TOOL)},
    {"tool: writes tmpxft files into its TMPDIR, exits 1", AT("tmpxft"), .exit = E(TOOL)},
    {"tool: writes its output elsewhere in TMPDIR", AT("tmpdir-other-output"), .exit = E(TOOL)},
    {"tool: 1 MiB of stderr, exits 1", AT("huge-stderr"), .exit = E(TOOL)},
    {"tool: exits 0 without reading its input", AT("noread"), .exit = E(TOOL)},
    {"tool: exits 1 without reading its input", AT("noread-fail"), .exit = E(TOOL)},
    {"tool: closes stdout and stderr, exits 3", AT("closed-fds"), .exit = E(TOOL)},
    {"tool: a script whose interpreter is missing", AT("bad-shebang"), .exit = E(TOOL), .alt = E(NOTOOL)},
    {"tool: ptxas stand-in exits 1", NT("exit1"), .exit = E(TOOL)},
    {"tool: ptxas stand-in writes garbage", NT("garbage"), .exit = E(TOOL)},
    {"tool: ptxas stand-in writes an empty cubin", NT("empty"), .exit = E(TOOL)},
    {"tool: ptxas stand-in killed by SIGSEGV", NT("segv"), .exit = E(TOOL)},
    {"tool: ptxas stand-in sleeps forever (--tool-timeout 2)", "--tool-timeout 2 " NT("forever"), .exit = E(TOOL),
     .limit = 12, .tools_dead = 1},
    {"tool: ptxas stand-in never reads stdin", NT("noread"), .exit = E(TOOL)},
    {"link: unresolved device call (before ld.lld --no-undefined)", "-t amdgcn @IN", .text = undefined_call_amdgcn,
     .exit = E(LINK), .msg = "'no_such_device_function'", .needs_rocm = 1},
};

/* The CLI compiling saxpy with the fake tool that sleeps (tools/slow), TMPDIR=tmp, its
** output out, in a process group of its own, returned once the tool runs (it has
** written its pids to slow_pids: this scratch's slow-pids); *t0 when it started. */
static pid_t start_slow_call(const char *tmp, const char *out, char *slow_pids, size_t n, double *t0) {
  char slow[4400];
  snprintf(slow, sizeof slow, "%s/slow", tools_dir);
  snprintf(slow_pids, n, "%s/slow-pids", scratch());
  unlink(slow_pids);
  *t0 = now();
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    int null = open("/dev/null", O_RDWR);
    dup2(null, 0), dup2(null, 1), dup2(null, 2);
    setenv("TMPDIR", tmp, 1);
    execl(CLI, CLI, "--no-cache", "--tool", slow, "-t", "amdgcn", AM, "-o", out, (char *)NULL);
    _exit(127);
  }
  while (now() - *t0 < 15 && !exists(slow_pids)) usleep(10000);
  usleep(300000);
  return pid;
}

/* --job-timeout: a kernel whose code generation takes seconds (a chain of 1,800 loads,
** adds and stores the scheduler weighs against each other).  Isolated, its process is
** killed at the limit; in the calling process it stops at the end of the phase. */
static void test_job_timeout(void) {
  const char *ll = tmp_path("slow.ll"), *out = tmp_path("slow.hsaco");
  FILE *f = fopen(ll, "w");
  if (!f) {
    check(0, "job timeout: the slow kernel written", "%s", ll);
    return;
  }
  fprintf(f, "target triple = \"amdgcn-amd-amdhsa\"\ndefine amdgpu_kernel void @slow(ptr addrspace(1) %%p) {\n"
             "  %%x0 = load float, ptr addrspace(1) %%p\n");
  for (int i = 1; i < 1800; i++)
    fprintf(f, "  %%q%d = getelementptr float, ptr addrspace(1) %%p, i64 %d\n  %%y%d = load float, ptr addrspace(1) "
               "%%q%d\n  %%x%d = fadd float %%x%d, %%y%d\n  store float %%x%d, ptr addrspace(1) %%q%d\n",
            i, i, i, i, i, i - 1, i, i, i);
  fprintf(f, "  ret void\n}\n");
  fclose(f);
  static const char *const modes[] = {"--isolate", "--no-isolate"};
  for (int m = 0; m < 2; m++) {
    char *err = NULL, name[200];
    unlink(out);
    const char *argv[] = {CLI, "--no-cache", modes[m], "--job-timeout", "1", "-t", "amdgcn:gfx90a", ll, "-o", out, NULL};
    double t0 = now();
    int rc = run(argv, &err);
    double secs = now() - t0;
    snprintf(name, sizeof name, "job timeout, %s: BACKEND naming the limit, no output", modes[m]);
    check(rc == E(BACKEND) && contains(err, "job timeout (1 s") && !exists(out) &&
              !strncmp(err ? err : "", "gpublob: error: ", 16),
          name, "exit %d after %.1f s: %s", rc, secs, shown(err));
    /* a job with a timeout runs isolated, asked or not: killed at the limit both ways */
    snprintf(name, sizeof name, "job timeout, %s: killed at the limit, isolated", modes[m]);
    check(secs < 6 && contains(err, "isolated process was killed"), name, "%.1f s: %s", secs, shown(err));
    free(err);
  }
}

/* This process's start time, /proc/self/stat's field 22, as the library names its
** private directories (gpublob-PID-START-XXXXXX). */
static unsigned long long own_start_time(void) {
  char buf[1024] = "";
  FILE *f = fopen("/proc/self/stat", "r");
  size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
  if (f) fclose(f);
  buf[n] = 0;
  char *p = strrchr(buf, ')');
  for (int field = 2; p && field < 22; field++) p = strchr(p + 1, ' ');
  return p ? strtoull(p + 1, NULL, 10) : 0;
}

/* A pid that ran and is gone. */
static long gone_pid(void) {
  pid_t pid = fork();
  if (pid == 0) _exit(0);
  waitpid(pid, NULL, 0);
  return (long)pid;
}

/* A call killed with SIGKILL leaves its private directory; the next call's first
** directory sweeps it, and every stale one whose maker is gone (or whose pid now runs
** a process that started at another time), never a live maker's, another user's, a
** link, or a name of another shape. */
static void test_stale_dirs(void) {
  /* a killed call of saxpy (ocml), then one that runs the ld.lld program */
  if (!need_rocm("stale: private directories of killed calls are swept")) return;
  if (!have_program(LD_LLD)) {
    skip("stale: private directories of killed calls are swept", "the ld.lld program not found (lld-22)");
    return;
  }
  const char *tmp = fresh_dir("stale-tmp"), *out = tmp_path("stale.hsaco");
  char slow_pids[4400], path[4600];
  double t0;
  pid_t pid = start_slow_call(tmp, out, slow_pids, sizeof slow_pids, &t0);
  kill(pid, SIGKILL); /* the CLI alone: nothing of it runs to clean up */
  waitpid(pid, NULL, 0);
  FILE *f = fopen(slow_pids, "r");
  long p;
  while (f && fscanf(f, "%ld", &p) == 1) kill((pid_t)p, SIGKILL);
  if (f) fclose(f);
  check(leftovers(tmp, "gpublob-") == 1, "stale: a call killed with SIGKILL leaves its directory", "%d in %s",
        leftovers(tmp, "gpublob-"), tmp);
  long dead = gone_pid();
  unsigned long long start = own_start_time();
  struct { const char *fmt; int stays; } dirs[] = {
      {"gpublob-%ld-12345-abcdef", 0},  /* its maker is gone */
      {"gpublob-%ld-1-abcdeg", 0},      /* this pid, another start: a reused pid */
      {"gpublob-%ld-%llu-livexx", 1},   /* this process: live */
      {"gpublob-%ld-7-otheru", 1},      /* another user's */
      {"gpublob-abcdef", 1},            /* another shape (1.0's names) */
      {"gpublob-%ld-9-abcdef-x", 1},    /* another shape */
  };
  char made[6][4400];
  for (size_t i = 0; i < 6; i++) {
    long who = i == 1 || i == 2 ? (long)getpid() : dead;
    char name[128];
    snprintf(name, sizeof name, dirs[i].fmt, who, start);
    snprintf(made[i], sizeof made[i], "%s/%s", tmp, name);
    mkdir(made[i], 0700);
    snprintf(path, sizeof path, "%.4400s/in.o", made[i]);
    spill(path, "x", 1);
    if (i == 3 && chown(made[i], 65534, 65534)) check(0, "stale: chown for another user's directory", "%s", made[i]);
  }
  /* a directory a live maker holds (its flock: a process in another PID namespace, or one
     /proc cannot show), named for a pid that is gone here */
  char held[4400];
  snprintf(held, sizeof held, "%s/gpublob-%ld-77-heldxx", tmp, dead);
  mkdir(held, 0700);
  int held_fd = open(held, O_RDONLY | O_DIRECTORY);
  if (held_fd < 0 || flock(held_fd, LOCK_EX)) check(0, "stale: a held directory", "%s", held);
  char link[4400], target[4400];
  snprintf(target, sizeof target, "%s/keep", tmp);
  mkdir(target, 0700);
  snprintf(link, sizeof link, "%s/gpublob-%ld-3-linkxx", tmp, dead);
  if (symlink(target, link)) check(0, "stale: a link named so", "%s", link);
  char *err = NULL;
  const char *argv[] = {CLI, "--no-cache", "--tool-mode", "program", "-t", "amdgcn", AM, "-o", out, NULL};
  setenv("TMPDIR", tmp, 1);
  int rc = run(argv, &err);
  unsetenv("TMPDIR");
  check(rc == 0, "stale: the next call compiles", "exit %d: %s", rc, shown(err));
  free(err);
  int killed_left = 0;
  DIR *d = opendir(tmp);
  struct dirent *e;
  while (d && (e = readdir(d))) {
    long who;
    unsigned long long st;
    char tail[16];
    if (sscanf(e->d_name, "gpublob-%ld-%llu-%15s", &who, &st, tail) == 3 && who == (long)pid) killed_left++;
  }
  if (d) closedir(d);
  check(killed_left == 0, "stale: the next call sweeps the killed call's directory", "%d left in %s", killed_left,
        tmp);
  for (size_t i = 0; i < 6; i++) {
    struct stat st;
    int there = !lstat(made[i], &st);
    check(there == dirs[i].stays, dirs[i].stays ? "stale: a directory that is not stale stays"
                                                : "stale: a dead maker's directory goes",
          "%s %s", made[i], there ? "is there" : "is gone");
  }
  struct stat st;
  check(!lstat(link, &st) && S_ISLNK(st.st_mode) && exists(target), "stale: a link named so stays, and its target",
        "%s", link);
  check(!lstat(held, &st) && S_ISDIR(st.st_mode), "stale: a directory its maker still holds (flock) stays", "%s",
        held);
  if (held_fd >= 0) close(held_fd);
}

/* SIGINT / SIGTERM to the CLI while its tool runs: the tool is killed, nothing is left. */
static void test_signal(int sig, const char *signame) {
  char name[200], tmpname[64], outname[64], pidsname[64];
  snprintf(name, sizeof name, "extra: %s to the CLI while its tool runs kills the tool, leaves nothing", signame);
  if (!need_rocm(name)) return; /* the tool runs after saxpy's ocml is linked */
  snprintf(tmpname, sizeof tmpname, "sig-tmp-%d", sig);
  snprintf(outname, sizeof outname, "sig-out-%d.hsaco", sig);
  const char *tmp = fresh_dir(tmpname), *out = tmp_path(outname);
  char slow_pids[4400];
  snprintf(pidsname, sizeof pidsname, "%s", "slow-pids");
  double t0;
  pid_t pid = start_slow_call(tmp, out, slow_pids, sizeof slow_pids, &t0); /* once the tool runs */
  kill(pid, sig); /* the CLI alone */
  int status = 0, done = 0;
  while (now() - t0 < 25 && !(done = waitpid(pid, &status, WNOHANG) == pid)) usleep(10000);
  if (!done) {
    kill(-pid, SIGKILL);
    waitpid(pid, &status, 0);
  }
  usleep(200000);
  int alive = 0;
  FILE *f = fopen(slow_pids, "r");
  long p;
  while (f && fscanf(f, "%ld", &p) == 1) {
    char procp[64], st[512] = "";
    snprintf(procp, sizeof procp, "/proc/%ld/stat", p);
    FILE *s = fopen(procp, "r");
    if (s) {
      size_t n = fread(st, 1, sizeof st - 1, s);
      st[n] = 0;
      fclose(s);
      char *close_paren = strrchr(st, ')');
      if (close_paren && close_paren[2] != 'Z') alive++;
    }
  }
  if (f) fclose(f);
  int rc = exit_code(status);
  int by_signal = WIFSIGNALED(status) && WTERMSIG(status) == sig;
  char label[300];
#define PART(what) (snprintf(label, sizeof label, "%s: %s", name, what), label)
  check(done, PART("the CLI ends"), "still running after 25 s");
  check(alive == 0, PART("the tool is killed"), "tool processes alive %d", alive);
  check(!exists(out), PART("no output"), "%s is there", out);
  check(leftovers(scratch(), "sig-out-") == 0, PART("no temporary beside the output"), "%d left",
        leftovers(scratch(), "sig-out-"));
  check(dir_empty(tmp), PART("TMPDIR empty"), NULL);
  check(rc == 10 + GPUBLOB_INTERRUPTED, PART("exit 31 (INTERRUPTED)"), "status %d", rc);
  check(!by_signal, name, "the CLI died of the signal (status %d)", rc);
#undef PART
  kill_strays(slow_pids);
}

/* A tool that leaves a child holding its stdout does not hang a good compile. */
static void test_tool_child_good(void) {
  const char *tmp = fresh_dir("child-tmp"), *out = tmp_path("child.hsaco");
  char tool[4400];
  snprintf(tool, sizeof tool, "%s/lld-child-holds-stdout", tools_dir);
  if (!need_rocm("extra: a good tool leaving a child that holds stdout does not hang the CLI")) return;
  if (!have_program(LD_LLD)) {
    skip("extra: a good tool leaving a child that holds stdout does not hang the CLI",
         "the tool runs the ld.lld program, not found (lld-22)");
    return;
  }
  const char *args[] = {"--tool", tool, "-t", "amdgcn", AM, "-o", out, NULL};
  outcome o = cli(args, tmp, 15);
  size_t n = 0;
  unsigned char *b = slurp(out, &n);
#define CHILD "extra: a good tool leaving a child that holds stdout does not hang the CLI"
  check(o.rc == 0, CHILD ": exit 0", "exit %d: %s", o.rc, o.err);
  check(!o.hung, CHILD ": not killed at the limit", "%.1f s", o.secs);
  check(o.secs < 10, CHILD, "%.1f s", o.secs);
  check(n > 4, CHILD ": an output of more than 4 bytes", "output %zu bytes", n);
  check(is_elf(b, n), CHILD ": the output is an ELF", "output %zu bytes", n);
  check(dir_empty(tmp), CHILD ": TMPDIR empty", NULL);
#undef CHILD
  free(b);
  free(o.err);
}

/* The tool gets a private TMPDIR under the caller's, removed afterwards with what is in it. */
static void test_tool_tmpdir(void) {
  const char *tmp = fresh_dir("tooltmp-tmp"), *out = tmp_path("tooltmp.hsaco"), *seen = tmp_path("tool-tmpdir");
  char tool[4400];
  snprintf(tool, sizeof tool, "%s/lld-record-tmpdir", tools_dir);
  if (!need_rocm("extra: the tool's TMPDIR is a private directory under TMPDIR, removed afterwards")) return;
  if (!have_program(LD_LLD)) {
    skip("extra: the tool's TMPDIR is a private directory under TMPDIR, removed afterwards",
         "the tool runs the ld.lld program, not found (lld-22)");
    return;
  }
  unlink(seen);
  const char *args[] = {"--tool", tool, "-t", "amdgcn", AM, "-o", out, NULL};
  outcome o = cli(args, tmp, 15);
  char *dir = (char *)slurp(seen, NULL);
  if (dir && strchr(dir, '\n')) *strchr(dir, '\n') = 0;
  size_t tl = strlen(tmp);
  int private = dir && !strncmp(dir, tmp, tl) && dir[tl] == '/' && dir[tl + 1];
#define PRIV "extra: the tool's TMPDIR is a private directory under TMPDIR, removed afterwards"
  check(o.rc == 0, PRIV ": exit 0", "exit %d: %s", o.rc, o.err);
  check(private, PRIV, "tool saw TMPDIR='%s' (ours %s)", dir ? dir : "", tmp);
  check_if(dir, !exists(dir), PRIV ": removed", "%s is still there", dir);
  check(dir_empty(tmp), PRIV ": TMPDIR empty", NULL);
#undef PRIV
  free(dir);
  free(o.err);
}

int main(void) {
  if (bad_start()) return 2;
  run_table(cases, sizeof cases / sizeof *cases);
  test_signal(SIGINT, "SIGINT");
  test_signal(SIGTERM, "SIGTERM");
  test_stale_dirs();
  test_job_timeout();
  test_tool_child_good();
  test_tool_tmpdir();
  return bad_end();
}
