/* watchdog.h: for replaying a timeout (tests/fuzz/run.sh, triage.sh).  libFuzzer
** reports a timeout with the stack of its own thread, which in fuzz_ir and
** fuzz_mlir only waits for gpublob's job thread (pthread_join): that says nothing
** about whose code hangs.  With FUZZ_WATCHDOG=N in the environment, N seconds
** into an input the thread that has used the most CPU (the main thread's wait
** uses none) gets SIGABRT, and libFuzzer's crash handler prints that thread's
** stack ("deadly signal").  Without FUZZ_WATCHDOG nothing starts. */
#ifndef FUZZ_WATCHDOG_H
#define FUZZ_WATCHDOG_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* syscall, tgkill; the harness includes this first */
#endif
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t watchdog_mu = PTHREAD_MUTEX_INITIALIZER;
static struct timespec watchdog_deadline;
static int watchdog_secs = -1;

/* utime + stime of thread tid, in clock ticks (-1 if unreadable). */
static long long watchdog_cpu(const char *tid) {
  char path[64], buf[1024];
  snprintf(path, sizeof path, "/proc/self/task/%s/stat", tid);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  char *p = strrchr(buf, ')'); /* the name may hold spaces; fields 3.. follow it */
  unsigned long long ut, st;
  if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*lu %*lu %*lu %*lu %llu %llu", &ut, &st) != 2) return -1;
  return (long long)(ut + st);
}

static void *watchdog_main(void *arg) {
  (void)arg;
  long self = syscall(SYS_gettid);
  for (;;) {
    struct timespec now, d;
    pthread_mutex_lock(&watchdog_mu);
    d = watchdog_deadline;
    pthread_mutex_unlock(&watchdog_mu);
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec < d.tv_sec) {
      sleep(1);
      continue;
    }
    long best = -1;
    long long most = -1;
    DIR *dir = opendir("/proc/self/task");
    struct dirent *e;
    while (dir && (e = readdir(dir))) {
      long tid = atol(e->d_name);
      long long cpu = tid > 0 && tid != self ? watchdog_cpu(e->d_name) : -1;
      if (cpu > most) most = cpu, best = tid;
    }
    if (dir) closedir(dir);
    fprintf(stderr, "fuzz watchdog: %d s into the input; SIGABRT to thread %ld, the busiest\n",
            watchdog_secs, best);
    if (best > 0) syscall(SYS_tgkill, (long)getpid(), best, SIGABRT);
    sleep(5);
    abort(); /* the signal did not end the process */
  }
  return NULL;
}

/* Called at the start of each input. */
static void watchdog_arm(void) {
  if (watchdog_secs < 0) {
    const char *s = getenv("FUZZ_WATCHDOG");
    watchdog_secs = s && atoi(s) > 0 ? atoi(s) : 0;
    if (watchdog_secs) {
      pthread_t t;
      sigset_t all, old;
      sigfillset(&all);
      pthread_sigmask(SIG_BLOCK, &all, &old); /* the watchdog takes no signal */
      watchdog_deadline.tv_sec = 0x7fffffff;
      if (!pthread_create(&t, NULL, watchdog_main, NULL)) pthread_detach(t);
      pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
  }
  if (!watchdog_secs) return;
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  pthread_mutex_lock(&watchdog_mu);
  watchdog_deadline.tv_sec = now.tv_sec + watchdog_secs;
  pthread_mutex_unlock(&watchdog_mu);
}
#endif
