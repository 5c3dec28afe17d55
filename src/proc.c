/* src/proc.c: Processes: one spawn and one wait for every tool, each in its own process group,
** with a timeout, its input written without blocking, its output read in one loop. */

/* ---- processes: one spawn and one wait for every tool ---- */
/* A tool runs in a process group of its own, in its job's private directory's
** TMPDIR (ptxas leaves tmpxft_* files there when it is killed), with no descriptor
** of this process but its channels, no blocked signal, every signal at its default,
** a bound on its data (RLIMIT_DATA: the tool memory bound), and the kernel's
** promise that it dies with the thread that started it (PR_SET_PDEATHSIG), so that
** a kill -9 of the CLI leaves no tool running.  gpublob waits for its exit, not for
** EOF (a child it left may hold its output open), for at most the timeout, and then
** kills what is left of its group.
**
** The spawn is vfork and execve, as posix_spawn's, with the steps posix_spawn has no
** word for between them.  Every signal is blocked on the calling thread around the
** vfork (only its own mask: the host's other threads go on), so that no handler of
** the host runs in the child, which shares the host's memory until it execs; the
** child sets its own dispositions to the default (they are its own copy) before it
** unblocks them. */
enum proc_input { PROC_NONE, PROC_STDIN, PROC_PIPE3 };

/* environ with TMPDIR set to tmpdir; the array is malloc'd, the strings are not. */
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
    if (!tmpdir || strncmp(environ[i], "TMPDIR=", 7)) env[k++] = environ[i];
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

/* The tool memory bound in bytes (0: none). */
static unsigned long long tool_memory_bytes(unsigned mib) {
  return (unsigned long long)(mib ? mib : GPUBLOB_TOOL_MEMORY_DEFAULT) << 20;
}

/* 0, or an errno value.  mem: the tool's data bound in bytes (0: none). */
static int proc_spawn(proc *p, char **argv, enum proc_input mode, const char *tmpdir, unsigned long long mem) {
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
  else p->live = live_pid_add(p->pid);
  return rc;
}

/* Kills what is left of its group, closes the channels. */
static void proc_end(proc *p) {
  if (p->pid > 0) kill(-p->pid, SIGKILL);
  live_pid_remove(p->live); /* before the pid is reaped and free for reuse */
  if (p->pid > 0)
    while (waitpid(p->pid, NULL, 0) < 0 && errno == EINTR) {}
  if (p->in_fd >= 0) close(p->in_fd);
  if (p->out_fd >= 0) close(p->out_fd);
  *p = (proc){0, -1, -1, -1, 0};
}

static int pidfd_of(pid_t pid) {
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
    ssize_t r = read_some(p->out_fd, w->output, OUTPUT_READ);
    if (w->output->len > OUTPUT_KEPT) { /* the rest is read, so the tool never blocks, and dropped */
      w->output->len = OUTPUT_KEPT;
      w->output->s[OUTPUT_KEPT] = 0;
    }
    if (r == 0 || (r < 0 && errno != EAGAIN)) close_fd(&p->out_fd);
  }
  if (in_i >= 0 && fds[in_i].revents) {
    ssize_t put = fds[in_i].revents & (POLLERR | POLLHUP) ? -1 : write_some(p->in_fd, w->in, w->in_left);
    size_t done = put < 0 ? w->in_left : (size_t)put;
    w->in += done;
    w->in_left -= done;
    if (!w->in_left) close_fd(&p->in_fd); /* EOF for the tool */
  }
}

/* Reads what is already there without waiting (a child of the tool may hold it
** open): read_upto on a non-blocking descriptor ends with EAGAIN when it is empty. */
static void drain(int fd, strbuf *output) {
  if (fd < 0 || output->len >= OUTPUT_KEPT) return;
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  read_upto(fd, output, OUTPUT_KEPT - output->len);
}

enum { WAIT_EXITED, WAIT_TIMEOUT, WAIT_LOST };

/* Whether the process has exited, without reaping it: while it is a zombie its pid
** (its group's id) cannot be reused, so its group can still be killed safely. */
static int proc_exited(pid_t pid) {
  siginfo_t info;
  memset(&info, 0, sizeof info);
  if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT)) return errno == EINTR ? 0 : -1;
  return info.si_pid == pid;
}

/* Feeds input, keeps output, until the process exits or timeout_ms pass.  Once it
** has exited, what is left of its group is killed, then it is reaped. */
static int proc_wait(proc *p, const void *input, size_t n, double timeout_ms, strbuf *output, int *status) {
  proc_wait_state w = {input, n, output};
  p->cpu_ms = 0;
  if (!n) close_fd(&p->in_fd);
  if (p->in_fd >= 0) fcntl(p->in_fd, F_SETFL, fcntl(p->in_fd, F_GETFL) | O_NONBLOCK);
  int pidfd = pidfd_of(p->pid), result = WAIT_TIMEOUT, exited = 0;
  double end = now_ms() + timeout_ms;
  for (double left; !exited && (left = end - now_ms()) > 0;) {
    int ms = left > 1e8 ? 100000000 : left < 1 ? 1 : (int)left;
    proc_io(p, &w, pidfd, pidfd >= 0 ? ms : 10);
    exited = proc_exited(p->pid);
  }
  if (pidfd >= 0) close(pidfd);
  if (exited) { /* before the pid is free for reuse */
    live_pid_remove(p->live);
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

static double tool_timeout_ms(const job *j) {
  return 1000.0 * (j->o->tool_timeout ? j->o->tool_timeout : GPUBLOB_TOOL_TIMEOUT_DEFAULT);
}

/* The outcome of a wait as the job's error, or OK for a clean exit. */
static int tool_outcome(job *j, const char *tool, int waited, int status, const strbuf *output) {
  if (waited == WAIT_TIMEOUT) {
    set_error(j->g, GPUBLOB_TOOL, "%s for %s:%s did not finish within %.0f s (the tool timeout, "
              "--tool-timeout): killed with its process group", tool, j->t->name, j->chip,
              tool_timeout_ms(j) / 1000);
    add_detail(j->g, sb_str(output));
    return GPUBLOB_TOOL;
  }
  if (waited == WAIT_LOST)
    return set_error(j->g, GPUBLOB_TOOL, "lost the exit status of %s (%s): does the program reap child "
                     "processes?", tool, strerror(ECHILD));
  if (!status) return GPUBLOB_OK;
  const char *oom = strstr(sb_str(output), "out of memory") || strstr(sb_str(output), "bad_alloc")
                        ? ", out of memory: the tool memory bound is" : NULL;
  char bound[96] = "";
  if (oom) snprintf(bound, sizeof bound, "%s %llu MiB (tool_memory, --tool-memory)", oom,
                    tool_memory_bytes(j->o->tool_memory) >> 20);
  if (WIFSIGNALED(status))
    set_error(j->g, GPUBLOB_TOOL, "%s for %s:%s was killed by signal %d (%s)%s", tool, j->t->name, j->chip,
              WTERMSIG(status), strsignal(WTERMSIG(status)), bound);
  else
    set_error(j->g, GPUBLOB_TOOL, "%s for %s:%s exited with status %d%s", tool, j->t->name, j->chip,
              WEXITSTATUS(status), bound);
  add_detail(j->g, sb_str(output));
  return GPUBLOB_TOOL;
}

/* A tool started, in its own process group (proc_spawn); else the job's error. */
static int tool_spawn(job *j, proc *p, char **argv, enum proc_input mode, const char *dir) {
  int err = proc_spawn(p, argv, mode, dir, tool_memory_bytes(j->o->tool_memory));
  if (err) return set_error(j->g, GPUBLOB_TOOL, "cannot run %s: %s", argv[0], strerror(err));
  return GPUBLOB_OK;
}

/* Its input fed, its exit waited for (within the tool timeout), the outcome the
** job's error; its output in output. */
static int tool_wait(job *j, proc *p, const char *tool, const void *input, size_t n, strbuf *output) {
  int status = 0;
  int waited = proc_wait(p, input, n, tool_timeout_ms(j), output, &status);
  j->tool_cpu_ms += p->cpu_ms; /* the tool's own work, not only the wait for it */
  return tool_outcome(j, tool, waited, status, output);
}

static int read_tool_output(job *j, const char *path) {
  unsigned char *data;
  size_t size;
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) || read_fd(fd, &data, &size, (size_t)-1)) {
    if (fd >= 0) close(fd);
    return set_error(j->g, GPUBLOB_TOOL, "the blob tool exited 0 but wrote no %s", path);
  }
  close(fd);
  if (!size) {
    free(data);
    return set_error(j->g, GPUBLOB_TOOL, "the blob tool exited 0 but wrote an empty %s", path);
  }
  blob_release(&j->out);
  j->out.data = data;
  j->out.size = size;
  j->out.suffix = blob_suffix(j);
  return GPUBLOB_OK;
}

static enum proc_input proc_input_of(const job *j) {
  return j->t->tool_input == INPUT_stdin ? PROC_STDIN : j->t->tool_input == INPUT_pipe ? PROC_PIPE3 : PROC_NONE;
}

/* Starts the tool.  A file tool starts once its input file is written; a stdin or
** pipe tool starts before the backend runs and waits for its input. */
static int tool_start(job *j) {
  toolrun *r = &j->run;
  int file = j->t->tool_input == INPUT_file;
  int rc = make_workdir(j, &r->w);
  if (rc) return rc;
  r->made = 1;
  if (file && write_file(sb_str(&r->w.in), j->out.data, j->out.size))
    return set_error(j->g, GPUBLOB_IO, "cannot write %s: %s", sb_str(&r->w.in), strerror(errno));
  char **argv = build_argv(j, j->tool, &r->w, &r->args);
  if (!argv) return set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  return tool_spawn(j, &r->p, argv, proc_input_of(j), sb_str(&r->w.dir));
}

/* Hands the backend's output to the tool (unless a file did), waits for its exit. */
static int tool_finish(job *j) {
  toolrun *r = &j->run;
  int file = j->t->tool_input == INPUT_file;
  int rc = tool_wait(j, &r->p, r->args.argv[0], j->out.data, file ? 0 : j->out.size, &r->output);
  return rc ? rc : read_tool_output(j, sb_str(&r->w.out));
}

/* Stops a tool still running (after an error) and removes its directory. */
static void tool_end(job *j) {
  toolrun *r = &j->run;
  proc_end(&r->p);
  if (r->made) workdir_remove(&r->w);
  argv_free(&r->args);
  sb_free(&r->output);
  memset(r, 0, sizeof *r);
  r->p = (proc){0, -1, -1, -1, 0};
  r->w.live = -1;
  r->w.lock = -1;
}

static int tool_early(const job *j) {
  return needs_blob_tool(j) && !*j->provider_path && j->t->tool_input != INPUT_file;
}
