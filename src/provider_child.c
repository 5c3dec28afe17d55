/* src/provider_child.c: An in-process blob tool (lld, nvJitLink) runs in a child of
** the isolation helper, never on the host's own threads.  Why: a guest must leave the
** host's process state alone, and a tool there cannot be stopped.  lld's driver needs
** LLVM's crash recovery to survive its fatal errors, and enabling it installs
** process-wide signal handlers; its output buffers register their temporary files
** for removal on a signal, which installs the interrupt handlers for good; and a
** thread reading `--opts /dev/zero` or a FIFO can neither be timed out nor bounded in
** memory.  In a child all of that is the child's: it runs with the tool timeout as its
** alarm and the tool memory bound over what it inherited (RLIMIT_DATA), and what it
** does to signals dies with it.  The child is a fork of the warm helper (a spare
** forked ahead of the job), which costs about a millisecond, not the program's start:
** the speed of in-process stays (bench/lld.sh).
**
** The host's side: the job's words and input go over a socket the helper hands to a
** child (a record REC_TOOL), the result comes back (REC_RESULT: the code, the message,
** the tool's log, the blob), or the child's exit status (REC_EXIT) says why not.  A
** provider that works on files (lld) reads and writes them in the job's private
** directory, made by the host (src/provider_run.c).  A library provider (nvJitLink)
** is loaded by the helper once (a message 'l'), so that every child has it mapped. */

/* ---- the host's side ---- */
/* The request: the target, chip and name of the job, the provider's path, the cwd
** the caller's relative words mean, the bounds, the words, the input. */
static void provider_request(strbuf *b, const job *j, const char **opts, uint32_t n) {
  cache_store_put_str(b, j->t->name);
  cache_store_put_str(b, j->chip);
  cache_store_put_str(b, j->name);
  cache_store_put_str(b, j->prov->path);
  char *cwd = getcwd(NULL, 0);
  cache_store_put_str(b, cwd ? cwd : "/");
  free(cwd);
  cache_store_put_u64(b, (uint64_t)(tool_timeout_ms(j) / 1000));
  cache_store_put_u64(b, tool_memory_bytes(j->o->tool_memory));
  cache_store_put_u64(b, n);
  for (uint32_t i = 0; i < n; i++) cache_store_put_str(b, opts[i]);
  cache_store_put_u64(b, j->prov->ops->files ? 0 : j->out.size);
  if (!j->prov->ops->files) sb_addn(b, (const char *)j->out.data, j->out.size);
}

static int provider_result(job *j, const strbuf *rec) {
  uint64_t sum = 0;
  if (rec->len >= sizeof sum) memcpy(&sum, rec->s + rec->len - sizeof sum, sizeof sum);
  if (rec->len < sizeof sum || sum != XXH3_64bits(rec->s, rec->len - sizeof sum))
    return handle_set_error(j->g, GPUBLOB_TOOL, "%s (in-process) for %s:%s: its result was cut short", j->tool_name,
                     j->t->name, j->chip);
  cache_lookup_reader r = {(const unsigned char *)rec->s, (const unsigned char *)rec->s + rec->len - sizeof sum, 0, NULL};
  int rc = (int)cache_lookup_get_u64(&r);
  const char *msg = cache_lookup_get_str(&r), *log = cache_lookup_get_str(&r);
  gpublob_blob blob = {0};
  cache_lookup_get_blob(&r, &blob, BLOB_COPY);
  double cpu = 0;
  if ((size_t)(r.end - r.p) == sizeof cpu) memcpy(&cpu, r.p, sizeof cpu);
  else r.bad = 1;
  j->tool_cpu_ms += cpu;
  if (r.bad) {
    util_blob_release(&blob);
    return handle_set_error(j->g, GPUBLOB_TOOL, "%s (in-process) for %s:%s: its result was cut short", j->tool_name,
                     j->t->name, j->chip);
  }
  if (log) sb_add(&j->run.output, log);
  if (rc) {
    util_blob_release(&blob);
    return handle_set_error(j->g, rc, "%s", msg ? msg : "");
  }
  if (!j->prov->ops->files) {
    util_blob_release(&j->out);
    j->out = blob;
    j->out.suffix = j->t->suffix_bin;
  } else {
    util_blob_release(&blob);
  }
  return GPUBLOB_OK;
}

/* No result: the tool timeout (the child's alarm, or the host's wait ran out), the
** memory bound, a signal, or a lost child; its stderr's first lines as the detail. */
static int provider_failure(job *j, int have_status, uint64_t status, const char *printed) {
  int st = (int)status, known = have_status && status != UINT64_MAX;
  const char *who = j->tool_name;
  if (!have_status || (known && WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM))
    handle_set_error(j->g, GPUBLOB_TOOL, "%s (in-process, in a child process) for %s:%s did not finish within %.0f s (the "
              "tool timeout, --tool-timeout): killed", who, j->t->name, j->chip, tool_timeout_ms(j) / 1000);
  else if (strstr(printed, "out of memory") || strstr(printed, "bad_alloc") || strstr(printed, "Cannot allocate"))
    handle_set_error(j->g, GPUBLOB_TOOL, "%s (in-process, in a child process) for %s:%s ran out of memory: the tool memory "
              "bound is %llu MiB (tool_memory, --tool-memory)", who, j->t->name, j->chip,
              tool_memory_bytes(j->o->tool_memory) >> 20);
  else if (known && WIFSIGNALED(st))
    handle_set_error(j->g, GPUBLOB_TOOL, "%s (in-process, in a child process) for %s:%s was killed by signal %d (%s)", who,
              j->t->name, j->chip, WTERMSIG(st), strsignal(WTERMSIG(st)));
  else
    handle_set_error(j->g, GPUBLOB_TOOL, "%s (in-process, in a child process) for %s:%s ended without a result (exit "
              "status %d)", who, j->t->name, j->chip, known ? WEXITSTATUS(st) : -1);
  handle_add_detail(j->g, printed);
  return GPUBLOB_TOOL;
}

/* Records until a result or the helper's exit record; the wait is bounded by the tool
** timeout and a grace for the child's start and its reply. */
static int provider_reply(job *j, int fd) {
  double limit_ms = tool_timeout_ms(j) + 5000;
  struct timeval tv = {(time_t)(limit_ms / 1000), 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  strbuf rec = {0}, printed = {0};
  char kind;
  int rc = -1, have_status = 0;
  uint64_t status = UINT64_MAX;
  while (rc < 0 && !isolate_wire_get_record(fd, &kind, &rec)) {
    if (kind == REC_RESULT) rc = provider_result(j, &rec);
    if (kind == REC_EXIT && rec.len >= sizeof status) {
      memcpy(&status, rec.s, sizeof status);
      have_status = 1;
      sb_addn(&printed, rec.s + sizeof status, rec.len - sizeof status);
      break;
    }
  }
  if (rc < 0) rc = provider_failure(j, have_status, status, sb_str(&printed));
  sb_free(&rec);
  sb_free(&printed);
  return rc;
}

/* The provider run in a child of the helper (started by pool_helper); the job's
** blob (or its {out} file) as the in-process run would leave it. */
GPUBLOB_PRIVATE int provider_child_run(job *j, const char **opts, uint32_t n) {
  int sv[2];
  if (j->host->helper <= 0 || j->host->helper_owner != getpid())
    return handle_set_error(j->g, GPUBLOB_TOOL, "%s (in-process) for %s:%s has no isolation helper to run in", j->tool_name,
                     j->t->name, j->chip);
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
    return handle_set_error(j->g, GPUBLOB_TOOL, "cannot make an in-process tool's socket: %s", strerror(errno));
  strbuf req = {0};
  provider_request(&req, j, opts, n);
  int rc = req.oom ? handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory") : GPUBLOB_OK;
  if (!rc && isolate_host_hand(j->host, sv[1], 't'))
    rc = handle_set_error(j->g, GPUBLOB_TOOL, "%s (in-process) for %s:%s: the isolation helper is gone (%s)", j->tool_name,
                   j->t->name, j->chip, strerror(errno));
  close(sv[1]);
  if (!rc) isolate_wire_put_record(sv[0], REC_TOOL, &req); /* a child that died early shows in its reply */
  sb_free(&req);
  if (!rc) rc = provider_reply(j, sv[0]);
  close(sv[0]);
  return rc;
}

/* The libraries of the call's in-process providers, loaded in the helper before it
** forks the children that run them (a library it has already is not loaded again),
** and its linked providers readied there (ops->warm, once a helper). */
GPUBLOB_PRIVATE void provider_child_preload(gpublob *host, job *const *jobs, size_t njobs) {
  for (size_t i = 0; i < njobs; i++) {
    const job *j = jobs[i];
    if (!j->prov || (j->prov->ops->linked && !j->prov->ops->warm)) continue;
    if (i && jobs[i - 1]->prov == j->prov) continue; /* a chip list: said once */
    const char *what = j->prov->ops->linked ? j->prov->ops->name : j->prov->path; /* warm it, or load it */
    size_t n = strlen(what);
    char *buf = malloc(n + 1);
    if (!buf) continue;
    buf[0] = j->prov->ops->linked ? 'w' : 'l';
    memcpy(buf + 1, what, n);
    pthread_mutex_lock(&host->helper_mu);
    if (host->helper > 0 && send(host->helper_ctl, buf, n + 1, MSG_NOSIGNAL) < 0) {}
    pthread_mutex_unlock(&host->helper_mu);
    free(buf);
  }
}

/* ---- the child's side ---- */
/* A tool child takes job after job while its tool can run again, warm (lld's first
** link in a process costs ten times its next): its data bound is set at its first
** job, what it had then (the helper's copy of the host) plus the tool's bound, and
** it ends once it holds half the bound more than then, or after many jobs. */
typedef struct tool_child {
  unsigned long long base_kb; /* VmData at its first job; 0: not known */
  int bounded;
  unsigned jobs;
} tool_child;

enum { TOOL_CHILD_JOBS = 1000 };

static unsigned long long vm_data_kb(void) {
  char line[256];
  unsigned long long kb = 0;
  FILE *f = fopen("/proc/self/status", "re");
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "VmData: %llu kB", &kb) == 1) break;
  if (f) fclose(f);
  return kb;
}

/* The child's data bound: what it has plus the tool's bound; none when /proc cannot
** say what it has. */
static void provider_child_bound(tool_child *c, uint64_t mem) {
  c->bounded = 1;
  c->base_kb = vm_data_kb();
  struct rlimit rl;
  if (!c->base_kb || !mem || getrlimit(RLIMIT_DATA, &rl)) return;
  rlim_t want = (rlim_t)(c->base_kb << 10) + (rlim_t)mem;
  if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want) return;
  rl.rlim_cur = rl.rlim_max = want;
  setrlimit(RLIMIT_DATA, &rl);
}

static double child_cpu_ms(void) {
  struct rusage ru;
  memset(&ru, 0, sizeof ru);
  getrusage(RUSAGE_SELF, &ru);
  return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
         (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

typedef struct provider_child_req {
  const char *target, *chip, *name, *path, *cwd;
  uint64_t timeout, mem, nopts;
  const char **opts;
  const unsigned char *input;
  uint64_t size;
} provider_child_req;

static int provider_child_read(const strbuf *rec, provider_child_req *q) {
  cache_lookup_reader r = {(const unsigned char *)rec->s, (const unsigned char *)rec->s + rec->len, 0, NULL};
  q->target = cache_lookup_get_str(&r);
  q->chip = cache_lookup_get_str(&r);
  q->name = cache_lookup_get_str(&r);
  q->path = cache_lookup_get_str(&r);
  q->cwd = cache_lookup_get_str(&r);
  q->timeout = cache_lookup_get_u64(&r);
  q->mem = cache_lookup_get_u64(&r);
  q->nopts = cache_lookup_get_u64(&r);
  if (r.bad || q->nopts > 65536 || !q->target || !q->chip || !q->path || !q->cwd) return -1;
  q->opts = calloc((size_t)q->nopts + 1, sizeof *q->opts); /* the child's, until it exits */
  for (uint64_t i = 0; q->opts && i < q->nopts; i++) q->opts[i] = cache_lookup_get_str(&r);
  q->size = cache_lookup_get_u64(&r);
  if (!q->opts || r.bad || (uint64_t)(r.end - r.p) != q->size) return -1;
  q->input = r.p;
  return 0;
}

/* The provider as the host found it: linked in, or its library (the helper loaded it
** already, so this dlopen finds it mapped). */
static int provider_child_load(job *j, provider *p, const char *path) {
  p->ops = provider_ops_of(j->t);
  p->path = (char *)path;
  if (!p->ops) return handle_set_error(j->g, GPUBLOB_NOTOOL, "no in-process provider for target %s", j->t->name);
  if (!p->ops->linked) provider_open(p);
  if (p->error[0])
    return handle_set_error(j->g, GPUBLOB_NOTOOL, "%s (in-process, %s) did not load: %s", path, p->ops->name, p->error);
  return GPUBLOB_OK;
}

/* What the tool printed to this child's stderr (the helper's memfd: LLVM's "out of
** memory" goes there, not to the tool's log) joins a failure's message; running out
** of memory names the bound. */
static void provider_child_printed(job *j, uint64_t mem) {
  char buf[4097];
  ssize_t n = pread(2, buf, sizeof buf - 1, 0);
  if (n <= 0) return;
  buf[n] = 0;
  if (strstr(buf, "out of memory") || strstr(buf, "bad_alloc")) {
    strbuf was = {0};
    sb_add(&was, gpublob_error_message(j->g));
    handle_set_error(j->g, GPUBLOB_TOOL, "%s, out of memory: the tool memory bound is %llu MiB (tool_memory, --tool-memory)",
              sb_str(&was), (unsigned long long)(mem >> 20));
    sb_free(&was);
  }
  handle_add_detail(j->g, buf);
}

/* One job of a tool child: the provider's run, its result sent.  1 when the child
** may take another. */
static int provider_child_job(int fd, const strbuf *rec, tool_child *c) {
  provider_child_req q = {0};
  if (provider_child_read(rec, &q) || chdir(q.cwd)) _exit(72);
  if (!c->bounded) provider_child_bound(c, q.mem);
  if (q.timeout) alarm(q.timeout > 1000000 ? 1000000u : (unsigned)q.timeout); /* SIGALRM ends this process */
  double cpu = child_cpu_ms();
  gpublob g = {0};
  job j;
  job_state_begin(&j, &g, NULL, q.name);
  j.t = resolve_target_named(q.target, strlen(q.target));
  snprintf(j.chip, sizeof j.chip, "%s", q.chip);
  provider p;
  memset(&p, 0, sizeof p);
  int rc = j.t ? provider_child_load(&j, &p, q.path) : handle_set_error(&g, GPUBLOB_TARGET, "no target %s", q.target);
  if (!rc && !p.ops->files) { /* the provider may free it (a blob's own bytes), NUL-terminated as take_buffer's */
    unsigned char *in = malloc((size_t)q.size + 1);
    if (!in) rc = handle_set_error(&g, GPUBLOB_NOMEM, "out of memory");
    else {
      memcpy(in, q.input, (size_t)q.size);
      in[q.size] = 0;
      j.out = (gpublob_blob){in, (size_t)q.size, ""};
    }
  }
  if (!rc) rc = p.ops->run(&j, &p, q.opts, (uint32_t)q.nopts);
  if (rc) provider_child_printed(&j, q.mem);
  strbuf out = {0};
  cache_store_put_u64(&out, (uint64_t)rc);
  cache_store_put_str(&out, gpublob_error_message(&g));
  cache_store_put_str(&out, sb_str(&j.run.output));
  gpublob_blob none = {0};
  cache_store_put_blob(&out, !rc && !p.ops->files ? &j.out : &none);
  cpu = child_cpu_ms() - cpu; /* this job's CPU: the tool's */
  sb_addn(&out, (const char *)&cpu, sizeof cpu);
  cache_store_put_u64(&out, XXH3_64bits(out.s, out.len)); /* a record cut short is never taken for one */
  if (out.oom || isolate_wire_put_record(fd, REC_RESULT, &out)) _exit(73);
  alarm(0);
  int again = p.ops && (!p.ops->usable || p.ops->usable()) && ++c->jobs < TOOL_CHILD_JOBS &&
              (!c->base_kb || vm_data_kb() < c->base_kb + (q.mem >> 11));
  sb_free(&out);
  sb_free(&j.run.output);
  free(j.out.data);
  free(q.opts);
  sb_free(&g.msg);
  sb_free(&g.warn);
  return again;
}

/* A tool child's whole life: its jobs (the next on chan, once it says it is ready;
** chan -1: one job), then exit. */
GPUBLOB_PRIVATE void provider_child_main(int fd, const strbuf *rec, int chan) {
  tool_child c = {0};
  strbuf next = {0};
  for (;;) {
    int again = provider_child_job(fd, rec, &c) && chan >= 0;
    close(fd);
    if (!again || ftruncate(2, 0) || lseek(2, 0, SEEK_SET)) _exit(0); /* its stderr: the next job's alone */
    if (send(chan, "r", 1, MSG_NOSIGNAL) != 1) _exit(0);
    isolate_helper_msg m;
    char kind;
    if (isolate_helper_receive(chan, &m, NULL, 0) || m.fd < 0) _exit(0); /* the helper ended */
    fd = m.fd;
    if (isolate_wire_get_record(fd, &kind, &next) || kind != REC_TOOL) _exit(71);
    rec = &next;
  }
}
