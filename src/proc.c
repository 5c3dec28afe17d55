/* src/proc.c: Processes: one spawn and one wait for every tool, each in its own process group,
** with a timeout, its input written without blocking, its output read in one loop.  Only
** the process: what it runs, where, and what its exit means are the blob tool's part
** (src/tool.c, after this one). */

/* ---- processes: one spawn and one wait for every tool ---- */

/* Whether an environment string is the remote tier's ($GPUBLOB_REMOTE_TOKEN,
** _PASSWORD, and _CACHE, whose URL may hold a password): never a tool's, nor the
** isolation helper's, which runs none of the tier. */
GPUBLOB_PRIVATE int proc_env_withheld(const char *entry) { return !strncmp(entry, "GPUBLOB_REMOTE_", 15); }

/* environ with TMPDIR set to tmpdir, the remote tier's strings withheld; the array is
** malloc'd, the strings are not. */
static char **tool_environ(const char *tmpdir, strbuf *store) {
  size_t n = 0;
  while (environ[n]) n++;
  char **env = calloc(n + 2, sizeof *env);
  if (tmpdir) sb_addf(store, "TMPDIR=%s", tmpdir);
  if (!env || store->oom) {
    free(env);
    return NULL;
  }
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if ((!tmpdir || strncmp(environ[i], "TMPDIR=", 7)) && !proc_env_withheld(environ[i])) env[k++] = environ[i];
  if (tmpdir) env[k] = store->s;
  return env;
}

/* The input channel: a socket as stdin, or a pipe read as /dev/fd/3 (a socket
** cannot be opened there).  fds[0] is this end, fds[1] the tool's. */
static int open_channel(enum proc_input mode, int fds[2]) {
  if (mode == PROC_STDIN) return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds);
  int p[2];
  if (pipe2(p, O_CLOEXEC)) return -1;
  fds[0] = p[1];
  fds[1] = p[0];
  return 0;
}

static void close_fd(int *fd) {
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

/* What the child of a spawn needs, made before the vfork: the child calls nothing
** that allocates or locks.  err is the child's to write (it shares this memory). */
typedef struct spawn_plan {
  char **argv, **env;
  enum proc_input mode;
  int in, out, null; /* the tool's ends of its channels; /dev/null for its stdin */
  pid_t parent;
  unsigned long long mem; /* RLIMIT_DATA in bytes; 0: as this process has it */
  volatile int err;       /* errno of the step that failed in the child */
} spawn_plan;

/* fd moved to 10 or above, so that the dup2s below never meet a descriptor they made. */
static int spawn_high(int fd) { return fd < 0 ? -1 : fcntl(fd, F_DUPFD, 10); }

__attribute__((noreturn)) static void spawn_fail(spawn_plan *s) {
  s->err = errno ? errno : EINVAL;
  _exit(127);
}

/* The child, between vfork and execve: syscalls only. */
__attribute__((noreturn, noinline)) static void spawn_child(spawn_plan *s) {
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; sig++)
    if (sig != SIGKILL && sig != SIGSTOP) sigaction(sig, &dfl, NULL); /* glibc's own refuse: fine */
  if (setpgid(0, 0)) spawn_fail(s);
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != s->parent) spawn_fail(s); /* dies with us */
  struct rlimit rl;
  if (s->mem && !getrlimit(RLIMIT_DATA, &rl) && (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > s->mem)) {
    rl.rlim_cur = rl.rlim_max = s->mem;
    if (setrlimit(RLIMIT_DATA, &rl)) spawn_fail(s);
  }
  int null = spawn_high(s->null), in = s->mode == PROC_NONE ? null : spawn_high(s->in), out = spawn_high(s->out);
  if (null < 0 || in < 0 || out < 0) spawn_fail(s);
  if (dup2(s->mode == PROC_STDIN ? in : null, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0) spawn_fail(s);
  if (s->mode == PROC_PIPE3 && dup2(in, 3) < 0) spawn_fail(s);
  if (syscall(SYS_close_range, s->mode == PROC_PIPE3 ? 4 : 3, ~0U, 0)) /* a host's leaked fds */
    for (int fd = s->mode == PROC_PIPE3 ? 4 : 3; fd < 1024; fd++) close(fd);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  execve(s->argv[0], s->argv, s->env);
  spawn_fail(s);
}

/* The child started; 0, or an errno value (the child's, when it failed before its exec). */
static int spawn_run(spawn_plan *s, pid_t *pid) {
  sigset_t all, was;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &was);
  s->err = 0;
  s->parent = getpid();
  pid_t child = vfork();
  if (child == 0) spawn_child(s);
  int err = child < 0 ? errno : s->err;
  pthread_sigmask(SIG_SETMASK, &was, NULL);
  if (child > 0 && err) /* it exited before its exec: reap it */
    while (waitpid(child, NULL, 0) < 0 && errno == EINTR) {}
  *pid = err ? 0 : child;
  return err;
}

/* 0, or an errno value.  mem: the tool's data bound in bytes (0: none). */
GPUBLOB_PRIVATE int proc_spawn(proc *p, char **argv, enum proc_input mode, const char *tmpdir, unsigned long long mem) {
  int in[2] = {-1, -1}, out[2];
  *p = (proc){0, -1, -1, -1, 0};
  if (mode != PROC_NONE && open_channel(mode, in)) return errno;
  if (pipe2(out, O_CLOEXEC)) {
    int err = errno;
    close_fd(&in[0]);
    close_fd(&in[1]);
    return err;
  }
  strbuf envs = {0};
  char **env = tool_environ(tmpdir, &envs);
  int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
  spawn_plan s = {.argv = argv, .env = env, .mode = mode, .in = in[1], .out = out[1], .null = null, .mem = mem};
  int rc = !env ? ENOMEM : null < 0 ? errno : spawn_run(&s, &p->pid);
  if (null >= 0) close(null);
  free(env);
  sb_free(&envs);
  close(out[1]);
  if (in[1] >= 0) close(in[1]);
  p->in_fd = in[0];
  p->out_fd = out[0];
  if (rc) p->pid = 0;
  else p->live = live_enter_pid_add(p->pid);
  return rc;
}

/* Kills what is left of its group, closes the channels. */
GPUBLOB_PRIVATE void proc_end(proc *p) {
  if (p->pid > 0) kill(-p->pid, SIGKILL);
  live_enter_pid_remove(p->live); /* before the pid is reaped and free for reuse */
  if (p->pid > 0)
    while (waitpid(p->pid, NULL, 0) < 0 && errno == EINTR) {}
  if (p->in_fd >= 0) close(p->in_fd);
  if (p->out_fd >= 0) close(p->out_fd);
  *p = (proc){0, -1, -1, -1, 0};
}

GPUBLOB_PRIVATE int proc_pidfd_of(pid_t pid) {
#ifdef SYS_pidfd_open
  return (int)syscall(SYS_pidfd_open, pid, 0);
#else
  (void)pid;
  return -1;
#endif
}

typedef struct proc_wait_state {
  const unsigned char *in; /* what is left of its input */
  size_t in_left;
  strbuf *output;          /* its stdout and stderr, the first OUTPUT_KEPT bytes */
} proc_wait_state;

enum { OUTPUT_KEPT = 65536, OUTPUT_READ = 16384 };

/* One round of poll: input written, output read, as each is ready. */
static void proc_io(proc *p, proc_wait_state *w, int pidfd, int ms) {
  struct pollfd fds[3];
  nfds_t n = 0;
  int out_i = -1, in_i = -1;
  if (p->out_fd >= 0) {
    out_i = (int)n;
    fds[n++] = (struct pollfd){p->out_fd, POLLIN, 0};
  }
  if (p->in_fd >= 0) {
    in_i = (int)n;
    fds[n++] = (struct pollfd){p->in_fd, POLLOUT, 0};
  }
  if (pidfd >= 0) fds[n++] = (struct pollfd){pidfd, POLLIN, 0};
  if (poll(fds, n, ms) <= 0) return;
  if (out_i >= 0 && fds[out_i].revents) { /* one read a round: poll says when there is more */
    ssize_t r = io_read_some(p->out_fd, w->output, OUTPUT_READ);
    if (w->output->len > OUTPUT_KEPT) { /* the rest is read, so the tool never blocks, and dropped */
      w->output->len = OUTPUT_KEPT;
      w->output->s[OUTPUT_KEPT] = 0;
    }
    if (r == 0 || (r < 0 && errno != EAGAIN)) close_fd(&p->out_fd);
  }
  if (in_i >= 0 && fds[in_i].revents) {
    ssize_t put = fds[in_i].revents & (POLLERR | POLLHUP) ? -1 : io_write_some(p->in_fd, w->in, w->in_left);
    size_t done = put < 0 ? w->in_left : (size_t)put;
    w->in += done;
    w->in_left -= done;
    if (!w->in_left) close_fd(&p->in_fd); /* EOF for the tool */
  }
}

/* Reads what is already there without waiting (a child of the tool may hold it
** open): io_read_upto on a non-blocking descriptor ends with EAGAIN when it is empty. */
static void drain(int fd, strbuf *output) {
  if (fd < 0 || output->len >= OUTPUT_KEPT) return;
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  io_read_upto(fd, output, OUTPUT_KEPT - output->len);
}

/* Whether the process has exited, without reaping it: while it is a zombie its pid
** (its group's id) cannot be reused, so its group can still be killed safely. */
GPUBLOB_PRIVATE int proc_exited(pid_t pid) {
  siginfo_t info;
  memset(&info, 0, sizeof info);
  if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT)) return errno == EINTR ? 0 : -1;
  return info.si_pid == pid;
}

/* Feeds input, keeps output, until the process exits or timeout_ms pass.  Once it
** has exited, what is left of its group is killed, then it is reaped. */
GPUBLOB_PRIVATE int proc_wait(proc *p, const void *input, size_t n, double timeout_ms, strbuf *output, int *status) {
  proc_wait_state w = {input, n, output};
  p->cpu_ms = 0;
  if (!n) close_fd(&p->in_fd);
  if (p->in_fd >= 0) fcntl(p->in_fd, F_SETFL, fcntl(p->in_fd, F_GETFL) | O_NONBLOCK);
  int pidfd = proc_pidfd_of(p->pid), result = WAIT_TIMEOUT, exited = 0;
  double end = util_now_ms() + timeout_ms;
  for (double left; !exited && (left = end - util_now_ms()) > 0;) {
    int ms = left > 1e8 ? 100000000 : left < 1 ? 1 : (int)left;
    proc_io(p, &w, pidfd, pidfd >= 0 ? ms : 10);
    exited = proc_exited(p->pid);
  }
  if (pidfd >= 0) close(pidfd);
  if (exited) { /* before the pid is free for reuse */
    live_enter_pid_remove(p->live);
    p->live = -1;
  }
  if (exited > 0) {
    kill(-p->pid, SIGKILL); /* a child it left: it may hold the output open */
    drain(p->out_fd, output);
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    while (wait4(p->pid, status, 0, &ru) < 0 && errno == EINTR) {}
    p->cpu_ms = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
                (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
    result = WAIT_EXITED;
  } else if (exited < 0) {
    result = WAIT_LOST; /* someone else reaped it (a host with SIGCHLD ignored) */
  }
  if (result != WAIT_TIMEOUT) p->pid = 0;
  return result;
}
