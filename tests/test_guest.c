/* test_guest: gpublob as a guest in a host that owns its process: the host's
** signals, time and memory are the host's (issue: "a safe guest").
**
** 1. The host: a handler of its own on every catchable signal, and a SIGSEGV handler
**    that takes only the faults it made itself (a garbage collector's write barrier:
**    a protected page, written, unprotected by the handler).  4 threads compile 100
**    times between them, amdgcn (lld in-process, auto) and nvptx (nvJitLink
**    in-process, with the CUDA toolkit), while a fifth raises SIGUSR1, SIGUSR2,
**    SIGHUP and provoked SIGSEGVs.  At the end every disposition is the host's own,
**    its handlers saw every signal it raised and no other, and every blob is the
**    program mode's, byte for byte.
** 2. Every hostile tool input is TOOL within the tool timeout, in-process and as a
**    program: `--opts /dev/zero` (the tool memory bound), `--opts @FIFO` and a
**    FIFO as the tool's input file (the timeout); nothing of ours is left running
**    or in TMPDIR.
** 3. `--job-timeout 10` stops a job of 100,000 basic blocks within 15 s in the
**    default mode (a job with a timeout runs isolated).
** 4. kill -9 of the CLI while its blob tool runs (ptxas, and ld.lld as a program,
**    made slow by a FIFO it reads): no process of ours is left; the next call
**    sweeps the killed one's temporary beside -o, and never a user's file. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpublob.h"
#include "testlib.h"

#define AMD "examples/saxpy_amdgcn.ll"
#define NV "examples/saxpy_nvptx.ll"
#define CLI "build/gpublob"

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* ---- 1. the host ---- */
static atomic_long seen[NSIG];
static atomic_long barrier_faults, stray_faults;
static char *barrier_page;
static long page_size;

static void host_handler(int sig) { atomic_fetch_add(&seen[sig], 1); }

/* A write barrier's fault: its own page only; anything else is a real crash. */
static void host_segv(int sig, siginfo_t *si, void *uc) {
  (void)sig;
  (void)uc;
  char *at = si->si_addr;
  if (at >= barrier_page && at < barrier_page + page_size) {
    atomic_fetch_add(&barrier_faults, 1);
    mprotect(barrier_page, (size_t)page_size, PROT_READ | PROT_WRITE);
    return;
  }
  atomic_fetch_add(&stray_faults, 1);
  signal(SIGSEGV, SIG_DFL); /* a real fault: die of it */
}

static struct sigaction installed[NSIG];

static int catchable(int sig) {
  return sig != SIGKILL && sig != SIGSTOP && sig != SIGCHLD && sig < 32; /* 32, 33: glibc's own; then realtime */
}

static void host_install(void) {
  for (int sig = 1; sig < NSIG; sig++) {
    if (!catchable(sig)) continue;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    if (sig == SIGSEGV) {
      sa.sa_sigaction = host_segv;
      sa.sa_flags = SA_SIGINFO | SA_RESTART;
    } else {
      sa.sa_handler = host_handler;
      sa.sa_flags = SA_RESTART;
    }
    sigaction(sig, &sa, NULL);
    sigaction(sig, NULL, &installed[sig]);
  }
}

/* Dispositions that are not what the host installed. */
static int host_changed(char *which, size_t size) {
  int changed = 0;
  which[0] = 0;
  for (int sig = 1; sig < NSIG; sig++) {
    if (!catchable(sig)) continue;
    struct sigaction now;
    sigaction(sig, NULL, &now);
    if (now.sa_handler != installed[sig].sa_handler || now.sa_flags != installed[sig].sa_flags) {
      changed++;
      size_t n = strlen(which);
      snprintf(which + n, size - n, " %s", strsignal(sig));
    }
  }
  return changed;
}

typedef struct compile_job {
  const char *target, *input;
  int tool_mode;
  gpublob_blob reference;
} compile_job;

static compile_job kinds[2];
static int nkinds;
static atomic_int next_compile, wrong_blobs, failed_compiles;
static atomic_int compiling;
static char first_error[512];
enum { COMPILES = 100, THREADS = 4 };

static int compile_one(gpublob *g, const compile_job *k, gpublob_result *r, int mode) {
  gpublob_options o = GPUBLOB_OPTIONS_INIT;
  o.target = k->target;
  o.tool_mode = mode;
  o.jobs = 1;
  gpublob_input in = {.kind = GPUBLOB_INPUT_AUTO, .path = k->input};
  return gpublob_compile(g, &o, &in, r);
}

static void *compiler_thread(void *arg) {
  (void)arg;
  gpublob *g = NULL;
  gpublob_open(&g);
  int i;
  while (g && (i = atomic_fetch_add(&next_compile, 1)) < COMPILES) {
    const compile_job *k = &kinds[i % nkinds];
    gpublob_result r = {0};
    int rc = compile_one(g, k, &r, k->tool_mode);
    if (rc || r.count != 1) {
      if (atomic_fetch_add(&failed_compiles, 1) == 0)
        snprintf(first_error, sizeof first_error, "%s: rc %d: %s", k->target, rc, gpublob_error_message(g));
    } else if (r.outputs[0].blob.size != k->reference.size ||
               memcmp(r.outputs[0].blob.data, k->reference.data, k->reference.size)) {
      atomic_fetch_add(&wrong_blobs, 1);
    }
    if (!rc) gpublob_result_free(&r);
  }
  gpublob_close(g);
  atomic_fetch_sub(&compiling, 1);
  return NULL;
}

static long raised[NSIG];

static void *raiser_thread(void *arg) {
  (void)arg;
  static const int sigs[] = {SIGUSR1, SIGUSR2, SIGHUP};
  unsigned n = 0;
  while (atomic_load(&compiling) > 0) {
    int sig = sigs[n % 3];
    if (n % 4 == 3) { /* a provoked fault: the write barrier */
      mprotect(barrier_page, (size_t)page_size, PROT_READ);
      ((volatile char *)barrier_page)[n % (unsigned long)page_size] = 1;
      raised[SIGSEGV]++;
    } else {
      kill(getpid(), sig);
      raised[sig]++;
    }
    n++;
    struct timespec t = {0, 2000000};
    nanosleep(&t, NULL);
  }
  return NULL;
}

static void host_signals(void) {
  gpublob *g = NULL;
  gpublob_open(&g);
  nkinds = 0;
  kinds[nkinds++] = (compile_job){"amdgcn:gfx90a", AMD, GPUBLOB_TOOL_AUTO, {0}};
  if (have_ptxas()) kinds[nkinds++] = (compile_job){"nvptx:sm_90", NV, GPUBLOB_TOOL_INPROCESS, {0}};
  else skip("host: nvJitLink in-process among the compiles", "no CUDA toolkit");
  if (!have_rocm_bitcode()) kinds[0].input = "bench/kernels/saxpy_amdgcn.ll"; /* no ocml call */
  for (int i = 0; i < nkinds; i++) { /* the references: the programs' bytes (ld.lld; nvJitLink itself) */
    gpublob_result r = {0};
    int mode = kinds[i].tool_mode == GPUBLOB_TOOL_AUTO ? GPUBLOB_TOOL_PROGRAM : kinds[i].tool_mode;
    int rc = compile_one(g, &kinds[i], &r, mode);
    check(!rc && r.count == 1, "host: a reference blob", "%s: rc %d: %s", kinds[i].target, rc,
          gpublob_error_message(g));
    if (rc || r.count != 1) return;
    gpublob_blob *b = &kinds[i].reference;
    b->size = r.outputs[0].blob.size;
    b->data = malloc(b->size);
    memcpy(b->data, r.outputs[0].blob.data, b->size);
    gpublob_result_free(&r);
  }
  gpublob_close(g);
  page_size = sysconf(_SC_PAGESIZE);
  barrier_page = mmap(NULL, (size_t)page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  host_install();
  pthread_t threads[THREADS], raiser;
  atomic_store(&compiling, THREADS);
  for (int i = 0; i < THREADS; i++) pthread_create(&threads[i], NULL, compiler_thread, NULL);
  pthread_create(&raiser, NULL, raiser_thread, NULL);
  for (int i = 0; i < THREADS; i++) pthread_join(threads[i], NULL);
  pthread_join(raiser, NULL);
  struct timespec t = {0, 50000000}; /* the last signals delivered */
  nanosleep(&t, NULL);
  char which[1024];
  int changed = host_changed(which, sizeof which);
  check(changed == 0, "host: no signal disposition changed after 100 compiles on 4 threads", "%d changed:%s",
        changed, which);
  check(atomic_load(&failed_compiles) == 0, "host: every compile succeeded", "%d failed; first: %s",
        atomic_load(&failed_compiles), first_error);
  check(atomic_load(&wrong_blobs) == 0, "host: every blob is the program mode's, byte for byte", "%d wrong",
        atomic_load(&wrong_blobs));
  static const int sigs[] = {SIGUSR1, SIGUSR2, SIGHUP};
  for (int i = 0; i < 3; i++)
    check(atomic_load(&seen[sigs[i]]) == raised[sigs[i]], "host: its handler saw every signal it raised",
          "%s: raised %ld, seen %ld", strsignal(sigs[i]), raised[sigs[i]], atomic_load(&seen[sigs[i]]));
  check(atomic_load(&barrier_faults) == raised[SIGSEGV] && raised[SIGSEGV] > 0,
        "host: every write-barrier fault reached its handler", "provoked %ld, seen %ld", raised[SIGSEGV],
        atomic_load(&barrier_faults));
  long stray = atomic_load(&stray_faults);
  for (int sig = 1; sig < NSIG; sig++)
    if (catchable(sig) && sig != SIGUSR1 && sig != SIGUSR2 && sig != SIGHUP && sig != SIGSEGV) stray += seen[sig];
  check(stray == 0, "host: no stray signal reached its handlers", "%ld stray", stray);
  for (int sig = 1; sig < NSIG; sig++) /* the defaults back, for the CLI checks below */
    if (catchable(sig)) signal(sig, SIG_DFL);
  for (int i = 0; i < nkinds; i++) free(kinds[i].reference.data);
}

/* ---- 2. hostile tool inputs, in-process and as a program ---- */
/* Processes whose command line names our scratch or our tools, still running. */
static int ours_running(const char *mark) {
  DIR *d = opendir("/proc");
  struct dirent *e;
  int n = 0;
  while (d && (e = readdir(d))) {
    long pid = strtol(e->d_name, NULL, 10);
    if (pid <= 0 || pid == getpid()) continue;
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
    int fd = open(path, O_RDONLY);
    if (fd < 0) continue;
    ssize_t got = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (got <= 0) continue;
    for (ssize_t i = 0; i < got; i++)
      if (!buf[i]) buf[i] = ' ';
    buf[got] = 0;
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    char st[512] = "";
    fd = open(path, O_RDONLY);
    if (fd >= 0) {
      ssize_t m = read(fd, st, sizeof st - 1);
      st[m > 0 ? m : 0] = 0;
      close(fd);
    }
    char *state = strrchr(st, ')');
    if (state && state[2] == 'Z') continue; /* a zombie is gone, its parent not yet told */
    if (strstr(buf, mark)) n++;
  }
  if (d) closedir(d);
  return n;
}

static int gpublob_dirs_in(const char *dir) { return leftovers(dir, "gpublob-"); }

typedef struct cli_case {
  const char *what, *target, *input, *mode, *opts;
} cli_case;

static void hostile_inputs(void) {
  const char *tmp = tmp_path("tooltmp");
  mkdir(tmp, 0700);
  setenv("TMPDIR", tmp, 1);
  const char *fifo = tmp_path("fifo"), *fifo_in = tmp_path("input-fifo.o");
  mkfifo(fifo, 0600);
  mkfifo(fifo_in, 0600);
  char at_fifo[600], in_fifo[600];
  snprintf(at_fifo, sizeof at_fifo, "@%s", fifo);
  snprintf(in_fifo, sizeof in_fifo, "%s", fifo_in);
  const char *amd = have_rocm_bitcode() ? AMD : "bench/kernels/saxpy_amdgcn.ll";
  cli_case cases[] = {
      {"/dev/zero", "amdgcn:gfx90a", amd, "in-process", "/dev/zero"},
      {"/dev/zero", "amdgcn:gfx90a", amd, "program", "/dev/zero"},
      {"@FIFO", "amdgcn:gfx90a", amd, "in-process", at_fifo},
      {"@FIFO", "amdgcn:gfx90a", amd, "program", at_fifo},
      {"a caller's library as a FIFO", "amdgcn:gfx90a", amd, "in-process", in_fifo},
      {"a caller's library as a FIFO", "amdgcn:gfx90a", amd, "program", in_fifo},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const cli_case *c = &cases[i];
    const char *out = tmp_path("hostile.hsaco");
    const char *argv[] = {CLI, "--no-cache", "-t", c->target, "--tool-mode", c->mode, "--opts", c->opts,
                          "--tool-timeout", "3", "--tool-memory", "512", c->input, "-o", out, NULL};
    char *text = NULL;
    double t0 = now_s();
    int code = run(argv, &text);
    double took = now_s() - t0;
    check(code == 25 && took < 3 + 4, "hostile tool input: TOOL within the tool timeout",
          "%s (%s): exit %d after %.1f s: %s", c->what, c->mode, code, took, shown(text));
    check(!exists(out), "hostile tool input: no output", "%s (%s)", c->what, c->mode);
    check(contains(text, "tool timeout") || contains(text, "tool memory bound"),
          "hostile tool input: the message names the bound", "%s (%s): %s", c->what, c->mode, shown(text));
    free(text);
  }
  struct timespec t = {0, 200000000};
  nanosleep(&t, NULL);
  check(ours_running(tmp) == 0 && ours_running("ld.lld") == 0, "hostile tool input: nothing of ours runs after",
        "%d running", ours_running(tmp));
  check(gpublob_dirs_in(tmp) == 0, "hostile tool input: no private directory left", "%d left in %s",
        gpublob_dirs_in(tmp), tmp);
}

/* ---- 3. the job timeout in the default mode ---- */
static void job_timeout(void) {
  const char *big = tmp_path("blocks.ll");
  FILE *f = fopen(big, "w");
  if (!f) {
    check(0, "job timeout: the input written", "%s", strerror(errno));
    return;
  }
  enum { BLOCKS = 100000 };
  fprintf(f, "target triple = \"nvptx64-nvidia-cuda\"\n"
             "define ptx_kernel void @blocks(ptr addrspace(1) %%p) {\nentry:\n  br label %%b0\n");
  for (int i = 0; i < BLOCKS; i++) {
    fprintf(f, "b%d:\n  %%v%d = load volatile i32, ptr addrspace(1) %%p\n  %%c%d = icmp eq i32 %%v%d, %d\n", i, i, i,
            i, i);
    if (i + 1 < BLOCKS) fprintf(f, "  br i1 %%c%d, label %%s%d, label %%b%d\n", i, i, i + 1);
    else fprintf(f, "  br i1 %%c%d, label %%s%d, label %%done0\n", i, i);
    fprintf(f, "s%d:\n  store volatile i32 %d, ptr addrspace(1) %%p\n  br label %%%s%d\n", i, i,
            i + 1 < BLOCKS ? "b" : "done", i + 1 < BLOCKS ? i + 1 : 0);
  }
  fprintf(f, "done0:\n  ret void\n}\n");
  fclose(f);
  const char *out = tmp_path("blocks.ptx");
  const char *argv[] = {CLI, "--no-cache", "-t", "nvptx:sm_90", "-f", "asm", "--job-timeout", "10", big, "-o", out,
                        NULL};
  char *text = NULL;
  double t0 = now_s();
  int code = run(argv, &text);
  double took = now_s() - t0;
  check(code == 23 && took < 15, "job timeout: 100,000 blocks stop within 15 s in the default mode",
        "exit %d after %.1f s: %s", code, took, shown(text));
  check(contains(text, "job timeout"), "job timeout: BACKEND names the limit", "%s", shown(text));
  check(!exists(out), "job timeout: no output", "%s", out);
  free(text);
}

/* ---- 4. kill -9 of the CLI while its tool runs ---- */
static pid_t cli_start(const char *const *argv) {
  pid_t pid = fork();
  if (pid == 0) {
    int null = open("/dev/null", O_RDWR);
    dup2(null, 1);
    dup2(null, 2);
    execv(argv[0], (char *const *)argv);
    _exit(127);
  }
  return pid;
}

/* Waits up to s seconds for a process whose command line has mark. */
static int wait_for(const char *mark, double s) {
  for (double end = now_s() + s; now_s() < end;) {
    if (ours_running(mark)) return 1;
    struct timespec t = {0, 20000000};
    nanosleep(&t, NULL);
  }
  return 0;
}

static void kill_case(const char *what, const char *const *argv, const char *tool_mark, const char *out) {
  pid_t cli = cli_start(argv);
  int started = wait_for(tool_mark, 30);
  check(started, "kill -9: the blob tool started", "%s: no process with '%s'", what, tool_mark);
  /* its temporary beside -o, as a killed writer leaves one: the CLI is stopped
  ** while it would write, so one is made for it by a process that dies */
  kill(cli, SIGKILL);
  waitpid(cli, NULL, 0);
  struct timespec t = {0, 300000000};
  nanosleep(&t, NULL);
  check(!ours_running(tool_mark), "kill -9: the blob tool died with the CLI", "%s: '%s' still runs", what, tool_mark);
  (void)out;
}

/* /proc/PID/stat's start time (a zombie still shows it); 0 when there is none. */
static unsigned long long start_of(pid_t pid) {
  char stat_path[64], buf[1024];
  snprintf(stat_path, sizeof stat_path, "/proc/%d/stat", (int)pid);
  int fd = open(stat_path, O_RDONLY);
  ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
  if (fd >= 0) close(fd);
  if (n <= 0) return 0;
  buf[n] = 0;
  char *p = strrchr(buf, ')');
  for (int field = 2; p && field < 22; field++) p = strchr(p + 1, ' ');
  return p ? strtoull(p + 1, NULL, 10) : 0;
}

/* A stale temporary of out, named as a killed CLI leaves it: a writer that is gone. */
static void stale_temp(const char *out, char *name, size_t size) {
  pid_t pid = fork();
  if (pid == 0) _exit(0);
  unsigned long long start = start_of(pid);
  waitpid(pid, NULL, 0);
  snprintf(name, size, "%s.gpublob-tmp-%d-%llu-AbC123", out, (int)pid, start);
  spill(name, "partial", 7);
}

static void kill_nine(void) {
  const char *fifo = tmp_path("slow-fifo");
  mkfifo(fifo, 0600);
  const char *amd = have_rocm_bitcode() ? AMD : "bench/kernels/saxpy_amdgcn.ll";
  const char *out = tmp_path("killed.hsaco");
  char opts[600];
  snprintf(opts, sizeof opts, "@%s", fifo);
  const char *lld_argv[] = {CLI, "--no-cache", "-t", "amdgcn:gfx90a", "--tool-mode", "program", "--opts", opts,
                            amd, "-o", out, NULL};
  kill_case("ld.lld (program)", lld_argv, fifo, out);
  lld_argv[5] = "in-process"; /* lld in a child of the isolation helper */
  kill_case("lld (in-process, in the helper's child)", lld_argv, fifo, out);
  if (have_ptxas()) { /* ptxas reading its options from a FIFO: a ptxas that never ends */
    const char *cubin = tmp_path("killed.cubin");
    char optf[600];
    snprintf(optf, sizeof optf, "--options-file=%s", fifo);
    const char *nv_argv[] = {CLI, "--no-cache", "-t", "nvptx:sm_90", "--tool-mode", "program", "--opts", optf, NV,
                             "-o", cubin, NULL};
    kill_case("ptxas", nv_argv, fifo, cubin);
  } else {
    skip("kill -9 during ptxas", "no CUDA toolkit");
  }
  /* the next call sweeps the killed call's temporary of -o, and only that */
  char stale[1024], user[1024];
  stale_temp(out, stale, sizeof stale);
  snprintf(user, sizeof user, "%s.tmp-keep", out);
  spill(user, "mine", 4);
  char live[1024]; /* a live writer's: this process's own pid and start time */
  snprintf(live, sizeof live, "%s.gpublob-tmp-%d-%llu-AbC123", out, (int)getpid(), start_of(getpid()));
  spill(live, "x", 1);
  const char *argv[] = {CLI, "--no-cache", "-t", "amdgcn:gfx90a", amd, "-o", out, NULL};
  char *text = NULL;
  int code = run(argv, &text);
  check(code == 0 && exists(out), "kill -9: the next call writes -o", "exit %d: %s", code,
        shown(text));
  check(!exists(stale), "kill -9: the next call sweeps the killed call's temporary", "%s", stale);
  check(exists(user), "kill -9: a user's file of another name stays", "%s", user);
  check(exists(live), "kill -9: a live writer's temporary stays", "%s", live);
  free(text);
  unlink(user);
  unlink(live);
}

int main(void) {
  host_signals();
  hostile_inputs();
  job_timeout();
  kill_nine();
  return report();
}
