/* src/isolate_host.c: Isolation: the host's side of a job: handed over, its result read and checked. */

/* ---- isolation: the host's side of a job ---- */
/* How many jobs this call will hand over: the helper forks one ahead of each. */
GPUBLOB_PRIVATE void isolate_host_expect(gpublob *host, size_t jobs) {
  char buf[1 + sizeof(uint32_t)] = {'n'};
  uint32_t n = jobs > UINT32_MAX ? UINT32_MAX : (uint32_t)jobs;
  memcpy(buf + 1, &n, sizeof n);
  pthread_mutex_lock(&host->helper_mu);
  if (host->helper > 0 && send(host->helper_ctl, buf, sizeof buf, MSG_NOSIGNAL) < 0) {}
  pthread_mutex_unlock(&host->helper_mu);
}

/* kind: 'j' a job child's job, 't' a tool child's (src/provider_child.c). */
GPUBLOB_PRIVATE int isolate_host_hand(gpublob *host, int fd, char kind) {
  pthread_mutex_lock(&host->helper_mu);
  int rc = isolate_helper_send_fd(host->helper_ctl, fd, kind);
  pthread_mutex_unlock(&host->helper_mu);
  return rc;
}

/* The module the child parses: the input's bytes, or (MLIR) the translated module
** as bitcode. */
static int isolated_module(job *j, strbuf *req) {
  if (j->src) {
    isolate_wire_put_job(req, j, j->src, j->src_size);
    return req->oom ? handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory") : GPUBLOB_OK;
  }
  LLVMMemoryBufferRef buf = LLVMWriteBitcodeToMemoryBuffer(j->llvm->mod);
  if (!buf) return handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory (bitcode for the isolated job)");
  isolate_wire_put_job(req, j, LLVMGetBufferStart(buf), LLVMGetBufferSize(buf));
  LLVMDisposeMemoryBuffer(buf);
  return req->oom ? handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory") : GPUBLOB_OK;
}

static int take_result(job *j, const strbuf *rec) {
  uint64_t sum = 0;
  if (rec->len >= sizeof sum) memcpy(&sum, rec->s + rec->len - sizeof sum, sizeof sum);
  if (rec->len < sizeof sum || sum != XXH3_64bits(rec->s, rec->len - sizeof sum))
    return handle_set_error(j->g, GPUBLOB_BACKEND, "%s: the isolated job's result was cut short", j->name);
  cache_lookup_reader r = {(const unsigned char *)rec->s, (const unsigned char *)rec->s + rec->len - sizeof sum, 0, NULL};
  int rc = (int)cache_lookup_get_u64(&r);
  const char *msg = cache_lookup_get_str(&r), *warnings = cache_lookup_get_str(&r);
  cache_lookup_get_blob(&r, &j->out, BLOB_COPY);
  cache_lookup_get_blob(&r, &j->asm_out, BLOB_COPY);
  const char *chip = cache_lookup_get_str(&r);
  if (chip && strlen(chip) < sizeof j->chip && !strncmp(chip, j->cpu, strlen(j->cpu)))
    memcpy(j->chip, chip, strlen(chip) + 1);
  j->kernels_known = cache_lookup_get_u64(&r) != 0;
  uint64_t kn = cache_lookup_get_u64(&r);
  sb_reset(&j->kernels);
  if (!r.bad && (uint64_t)(r.end - r.p) >= kn) {
    sb_addn(&j->kernels, (const char *)r.p, (size_t)kn);
    r.p += kn;
    if (j->kernels.oom) return handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  } else r.bad = 1;
  for (int i = 0; i < NPHASES && (size_t)(r.end - r.p) >= sizeof(double); i++, r.p += sizeof(double))
    memcpy(&j->ms[i], r.p, sizeof(double));
  if (r.bad) return handle_set_error(j->g, GPUBLOB_BACKEND, "%s: the isolated job's result was cut short", j->name);
  if (warnings) report_add_warnings(j->g, warnings);
  return rc ? handle_set_error(j->g, rc, "%s", msg ? msg : "") : GPUBLOB_OK;
}

/* No result: an LLVM fatal error (its reason), a signal (with what it printed), or
** a lost process. */
static int isolated_failure(job *j, const char *fatal, int have_status, uint64_t status, const char *printed) {
  const char *where = "in its isolated process";
  if (fatal)
    handle_set_error(j->g, GPUBLOB_BACKEND, "%s: LLVM aborted compiling for %s:%s %s: %s", j->name, j->t->name,
              j->chip, where, fatal);
  else if (have_status && status != UINT64_MAX && WIFSIGNALED((int)status) && WTERMSIG((int)status) == SIGALRM &&
           j->o->job_timeout)
    handle_set_error(j->g, GPUBLOB_BACKEND, "%s: compiling for %s:%s ran past the job timeout (%u s, --job-timeout): "
              "its isolated process was killed", j->name, j->t->name, j->chip, j->o->job_timeout);
  else if (have_status && status != UINT64_MAX && WIFSIGNALED((int)status)) {
    handle_set_error(j->g, GPUBLOB_BACKEND, "%s: LLVM crashed compiling for %s:%s %s: signal %d (%s)", j->name,
              j->t->name, j->chip, where, WTERMSIG((int)status), strsignal(WTERMSIG((int)status)));
    handle_add_detail(j->g, printed);
  }
  else
    handle_set_error(j->g, GPUBLOB_BACKEND, "%s: the isolated process compiling for %s:%s ended without a result "
              "(exit status %d)", j->name, j->t->name, j->chip,
              have_status && status != UINT64_MAX ? WEXITSTATUS((int)status) : -1);
  return GPUBLOB_BACKEND;
}

/* Records until the helper's exit record: the result, or why there is none. */
static int isolated_reply(job *j, int fd) {
  strbuf rec = {0}, fatal = {0};
  char kind;
  int rc = -1, have_fatal = 0, have_status = 0;
  uint64_t status = 0;
  while (rc < 0 && !isolate_wire_get_record(fd, &kind, &rec)) { /* a result ends it: the child's exit is not waited for */
    if (kind == REC_RESULT) rc = take_result(j, &rec);
    if (kind == REC_FATAL) {
      have_fatal = 1;
      sb_add(&fatal, sb_str(&rec));
    }
    if (kind == REC_EXIT && rec.len >= sizeof status) {
      memcpy(&status, rec.s, sizeof status);
      have_status = 1;
      if (!have_fatal && rec.len > sizeof status) sb_addn(&fatal, rec.s + sizeof status, rec.len - sizeof status);
      break;
    }
  }
  if (rc < 0) rc = isolated_failure(j, have_fatal ? sb_str(&fatal) : NULL, have_status, status, sb_str(&fatal));
  sb_free(&rec);
  sb_free(&fatal);
  return rc;
}

/* job_llvm in a child of the helper; the blob tool stays here. */
GPUBLOB_PRIVATE int isolate_host_job(job *j) {
  int sv[2];
  strbuf req = {0};
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
    return handle_set_error(j->g, GPUBLOB_TOOL, "cannot make an isolated job's socket: %s", strerror(errno));
  int rc = isolated_module(j, &req);
  if (!rc && isolate_host_hand(j->host, sv[1], 'j'))
    rc = handle_set_error(j->g, GPUBLOB_BACKEND, "%s: the isolation helper is gone (%s)", j->name, strerror(errno));
  close(sv[1]);
  if (!rc) isolate_wire_put_record(sv[0], REC_JOB, &req); /* a child that died early shows in its reply */
  sb_free(&req);
  if (!rc) rc = isolated_reply(j, sv[0]);
  close(sv[0]);
  return rc;
}
