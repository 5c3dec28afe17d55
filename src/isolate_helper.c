/* src/isolate_helper.c: Isolation: the helper, a single-threaded process that forks a child per job.
** A tool child (src/provider_child.c: an in-process blob tool's run) stays for the
** next tool job when its tool can run again: it says so with a byte on its channel,
** and takes its next job's socket there, warm. */

/* ---- isolation: the helper ---- */
/* A descriptor over a Unix socket (SCM_RIGHTS), with one byte to carry it. */
GPUBLOB_PRIVATE int isolate_helper_send_fd(int sock, int fd, char kind) {
  char byte = kind;
  union {
    struct cmsghdr h;
    char buf[CMSG_SPACE(sizeof(int))];
  } u;
  memset(&u, 0, sizeof u);
  struct iovec io = {&byte, 1};
  struct msghdr m = {.msg_iov = &io, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf};
  struct cmsghdr *c = CMSG_FIRSTHDR(&m);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(c), &fd, sizeof fd);
  ssize_t r;
  while ((r = sendmsg(sock, &m, MSG_NOSIGNAL)) < 0 && errno == EINTR) {}
  return r == 1 ? 0 : -1;
}

typedef struct helper_child {
  pid_t pid;
  int fd, pidfd; /* fd: the job's socket; -1 for a tool child between jobs */
  int err;  /* its stderr, a memfd: what LLVM printed before it died ("out of memory") */
  int chan; /* a tool child's channel, on which it takes its next job; -1 for a job child */
} helper_child;

GPUBLOB_PRIVATE int isolate_helper_receive(int ctl, isolate_helper_msg *msg, char *path, size_t room) {
  char buf[1 + 4096];
  union {
    struct cmsghdr h;
    char buf[CMSG_SPACE(sizeof(int))];
  } u;
  struct iovec io = {buf, sizeof buf};
  struct msghdr m = {.msg_iov = &io, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf};
  ssize_t r;
  while ((r = recvmsg(ctl, &m, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {}
  if (r <= 0) return -1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&m);
  *msg = (isolate_helper_msg){buf[0], -1, 0};
  if (c && c->cmsg_type == SCM_RIGHTS) memcpy(&msg->fd, CMSG_DATA(c), sizeof msg->fd);
  if (buf[0] == 'n' && r == 1 + (ssize_t)sizeof msg->count) memcpy(&msg->count, buf + 1, sizeof msg->count);
  if (path && (buf[0] == 'l' || buf[0] == 'w') && (size_t)r - 1 < room) { /* a library to load, a provider to warm */
    memcpy(path, buf + 1, (size_t)r - 1);
    path[r - 1] = 0;
  }
  return 0;
}

/* A child forked ahead of its job (a spare), so a job's fork is off its critical
** path: it waits on its channel for the job's socket, then runs the job. */
typedef struct spare {
  pid_t pid; /* 0: none */
  int chan, err;
} spare;

static void close_kids(helper_child *kids, size_t n) {
  for (size_t i = 0; i < n; i++) {
    close(kids[i].fd);
    close(kids[i].pidfd);
    close(kids[i].err);
    close(kids[i].chan);
  }
}

static void spare_warm(void);
static void spare_fork(int ctl, spare *s, helper_child *kids, size_t n) {
  int sv[2];
  *s = (spare){0, -1, -1};
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) return;
  int err = memfd_create("gpublob-job-stderr", MFD_CLOEXEC);
  pid_t pid = fork();
  if (pid == 0) {
    close(ctl);
    close(sv[0]);
    close_kids(kids, n);
    if (err >= 0) dup2(err, 2); /* the host's stderr gets one message, the host's */
    spare_warm();
    if (err >= 0 && (ftruncate(2, 0) || lseek(2, 0, SEEK_SET))) _exit(0); /* what warming printed */
    isolate_helper_msg msg;
    if (isolate_helper_receive(sv[1], &msg, NULL, 0) || msg.fd < 0) _exit(0); /* no job: the helper ended */
    if (msg.kind != 't') close(sv[1]);
    isolate_child_main(msg.fd, msg.kind == 't' ? sv[1] : -1); /* a tool child takes its next jobs on sv[1] */
  }
  close(sv[1]);
  if (pid < 0) {
    close(sv[0]);
    if (err >= 0) close(err);
    return;
  }
  *s = (spare){pid, sv[0], err};
}

static void spare_drop(spare *s) {
  if (s->pid) {
    kill(s->pid, SIGKILL);
    waitpid(s->pid, NULL, 0);
    close(s->chan);
    if (s->err >= 0) close(s->err);
  }
  *s = (spare){0, -1, -1};
}

/* The job's socket to the spare, which becomes a child like any other; a tool
** child keeps its channel for its next jobs. */
static int spare_take(spare *s, int fd, char kind, helper_child **kids, size_t *n) {
  helper_child *more = s->pid ? realloc(*kids, (*n + 1) * sizeof **kids) : NULL;
  if (!more || isolate_helper_send_fd(s->chan, fd, kind)) return -1;
  *kids = more;
  int chan = kind == 't' ? s->chan : -1;
  (*kids)[(*n)++] = (helper_child){s->pid, fd, proc_pidfd_of(s->pid), s->err, chan};
  if (chan < 0) close(s->chan);
  *s = (spare){0, -1, -1};
  return 0;
}

/* A tool child between jobs takes this one: 0, or -1 when none is idle. */
static int idle_take(int fd, helper_child *kids, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (kids[i].chan >= 0 && kids[i].fd < 0 && !isolate_helper_send_fd(kids[i].chan, fd, 't')) {
      kids[i].fd = fd;
      return 0;
    }
  return -1;
}

/* A tool child that says it is done with its job (a byte on its channel): the job's
** socket is closed here (the host has its result), and the child waits for the next. */
static void tool_kids_ready(helper_child *kids, size_t n) {
  for (size_t i = 0; i < n; i++) {
    char byte;
    if (kids[i].chan < 0 || kids[i].fd < 0 || recv(kids[i].chan, &byte, 1, MSG_DONTWAIT) != 1) continue;
    close(kids[i].fd);
    kids[i].fd = -1;
  }
}

/* The first 4 KiB the child wrote to its stderr (it has ended: the file's offset,
** which it shared, is this process's to move). */
static void child_stderr(int err, strbuf *b) {
  if (err >= 0 && !lseek(err, 0, SEEK_SET)) io_read_upto(err, b, 4096);
}

/* The exit status of each child that ended goes to the host after its result. */
static void helper_reap(helper_child *kids, size_t *n) {
  for (size_t i = 0; i < *n;) {
    int status;
    pid_t r = waitpid(kids[i].pid, &status, WNOHANG);
    if (r == 0 || (r < 0 && errno == EINTR)) {
      i++;
      continue;
    }
    strbuf b = {0};
    cache_store_put_u64(&b, r > 0 ? (uint64_t)(unsigned)status : UINT64_MAX);
    child_stderr(kids[i].err, &b);
    if (kids[i].fd >= 0) isolate_wire_put_record(kids[i].fd, REC_EXIT, &b); /* none for a tool child between jobs */
    sb_free(&b);
    if (kids[i].fd >= 0) close(kids[i].fd);
    if (kids[i].chan >= 0) close(kids[i].chan);
    if (kids[i].pidfd >= 0) close(kids[i].pidfd);
    if (kids[i].err >= 0) close(kids[i].err);
    kids[i] = kids[--*n];
  }
}

/* An in-process provider's library (src/provider_child.c), loaded here once so that
** every child forked after has it: 1 when it was not loaded before. */
static int helper_load(const char *path) {
  if (dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD)) return 0;
  return dlopen(path, RTLD_NOW | RTLD_LOCAL) != NULL;
}

/* The linked providers a call said it will run (a message 'w'): each spare forked
** after readies their first run (ops->warm) while it waits for its job, so that a
** tool child starts warm (lld's first link in a fresh process costs some ten times
** its next, mostly the faults of its pages); a job child wastes nothing of its own. */
static unsigned helper_warmed; /* a bit per provider_registry entry */

static int helper_warm(const char *name) {
  for (size_t i = 0; provider_registered(i) && i < 32; i++) {
    const provider_ops *ops = provider_registered(i);
    if (strcmp(ops->name, name) || !ops->warm || (helper_warmed >> i & 1)) continue;
    helper_warmed |= 1u << i;
    return 1;
  }
  return 0;
}

static void spare_warm(void) {
  for (size_t i = 0; provider_registered(i) && i < 32; i++)
    if (helper_warmed >> i & 1) provider_registered(i)->warm();
}

/* A spare is kept ready while the call that said how many jobs it has still has
** some to hand over: a lone job's fork then costs it nothing, and no process is
** made for a job that will not come. */
static void helper_main(int ctl) {
  helper_child *kids = NULL;
  size_t n = 0;
  uint32_t expected = 0;
  spare next = {0, -1, -1};
  for (;;) {
    struct pollfd *fds = calloc(2 * n + 1, sizeof *fds);
    int all_pidfds = 1;
    nfds_t nfds = 1;
    if (!fds) _exit(1);
    fds[0] = (struct pollfd){ctl, POLLIN, 0};
    for (size_t i = 0; i < n; i++) {
      fds[nfds++] = (struct pollfd){kids[i].pidfd, POLLIN, 0};
      all_pidfds &= kids[i].pidfd >= 0;
      if (kids[i].chan >= 0 && kids[i].fd >= 0) fds[nfds++] = (struct pollfd){kids[i].chan, POLLIN, 0};
    }
    poll(fds, nfds, all_pidfds ? -1 : 20);
    int ready = fds[0].revents != 0;
    free(fds);
    isolate_helper_msg msg = {0, -1, 0};
    char lib[4096] = "";
    if (ready && isolate_helper_receive(ctl, &msg, lib, sizeof lib)) { /* the host is gone or closed us: so are its jobs */
      kill(0, SIGKILL);
      _exit(0);
    }
    if (msg.kind == 'n') expected = msg.count;
    if (msg.kind == 'l' && *lib && helper_load(lib)) spare_drop(&next); /* the next spare has it */
    if (msg.kind == 'w' && *lib && helper_warm(lib)) spare_drop(&next);
    if (msg.fd >= 0) {
      expected -= expected > 0;
      int taken = msg.kind == 't' && !idle_take(msg.fd, kids, n); /* a warm tool child first */
      if (!taken && spare_take(&next, msg.fd, msg.kind, &kids, &n)) { /* none ready, or it died: one now */
        spare_drop(&next);
        spare_fork(ctl, &next, kids, n);
        if (spare_take(&next, msg.fd, msg.kind, &kids, &n)) close(msg.fd); /* the host sees EOF: its job failed */
      }
    }
    tool_kids_ready(kids, n);
    helper_reap(kids, &n);
    if (expected && !next.pid) spare_fork(ctl, &next, kids, n); /* the next job's */
  }
}

/* In the helper, just forked: its own process group, every signal at its default
** (a host's crash handler must not run here), no descriptor of the host's. */
static void helper_enter(int ctl) {
  int high = fcntl(ctl, F_DUPFD, 10); /* the socket may be fd 0 or 1 in a host that closed them */
  if (high < 0) _exit(1);
  ctl = high;
  setpgid(0, 0);
  for (int sig = 1; sig < NSIG; sig++) signal(sig, SIG_DFL);
  signal(SIGPIPE, SIG_IGN);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  int null = open("/dev/null", O_RDWR);
  if (null < 0) _exit(1);
  dup2(null, 0);
  dup2(null, 1);
  dup2(ctl, 3);
  if (syscall(SYS_close_range, 4, ~0U, 0)) /* a kernel before close_range (5.9) */
    for (int fd = 4; fd < 4096; fd++) close(fd);
  helper_main(3);
}

GPUBLOB_PRIVATE int isolate_helper_alive(gpublob *g) {
  return g->helper > 0 && g->helper_owner == getpid() && !proc_exited(g->helper);
}

/* Its socket closed; killed with its group and reaped, unless this process is a
** fork of the one that started it (that one's helper is not this one's to end). */
GPUBLOB_PRIVATE void isolate_helper_stop(gpublob *g) {
  if (g->helper <= 0) return;
  close(g->helper_ctl);
  if (g->helper_owner == getpid()) {
    kill(-g->helper, SIGKILL); /* the helper and any child of a job in flight */
    live_enter_pid_remove(g->helper_live);
    while (waitpid(g->helper, NULL, 0) < 0 && errno == EINTR) {}
  }
  g->helper = 0;
  g->helper_live = -1;
}

int gpublob_helper_start(gpublob *g) {
  if (!g) return GPUBLOB_MISUSE;
  if (isolate_helper_alive(g)) return GPUBLOB_OK;
  isolate_helper_stop(g); /* one that died */
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
    return handle_set_error(g, GPUBLOB_TOOL, "cannot make the isolation helper's socket: %s", strerror(errno));
  pid_t pid = fork();
  if (pid == 0) {
    close(sv[0]);
    helper_enter(sv[1]);
  }
  close(sv[1]);
  if (pid < 0) {
    close(sv[0]);
    return handle_set_error(g, GPUBLOB_TOOL, "cannot fork the isolation helper: %s", strerror(errno));
  }
  setpgid(pid, pid); /* as the helper does: no window where a kill of its group misses */
  g->helper = pid;
  g->helper_owner = getpid();
  g->helper_ctl = sv[0];
  g->helper_live = live_enter_pid_add(pid);
  return GPUBLOB_OK;
}
