/* src/isolate_child.c: Isolation: the child, which does one job's LLVM work and sends its output back. */

/* ---- isolation: the child ---- */
GPUBLOB_PRIVATE int isolate_child_fd = -1; /* the child's job socket, for its fatal error handler */

static void child_on_fatal(const char *reason) {
  if (isolate_child_fd < 0) _exit(70); /* a process the child forked (src/dump.c) */
  strbuf b = {.s = (char *)reason, .len = strlen(reason)};
  isolate_wire_put_record(isolate_child_fd, REC_FATAL, &b);
  _exit(70);
}

typedef struct child_job {
  job j;
  strbuf env; /* the host's environment strings */
  char **envp;
  unsigned char *module;
  size_t size;
  int rc;
} child_job;

static void *child_work(void *arg) {
  child_job *c = arg;
  c->rc = job_llvm(&c->j);
  return NULL;
}

static int child_environment(child_job *c, cache_lookup_reader *r) {
  uint64_t n = cache_lookup_get_u64(r);
  if (r->bad || n > 1000000) return -1;
  c->envp = calloc(n + 1, sizeof *c->envp);
  for (uint64_t i = 0; c->envp && i < n && !r->bad; i++) c->envp[i] = (char *)cache_lookup_get_str(r);
  if (!c->envp || r->bad) return -1;
  environ = c->envp;
  return 0;
}

/* The job the host sent, rebuilt: options resolved as the host resolved them. */
static int child_read_job(child_job *c, gpublob *g, const strbuf *rec) {
  cache_lookup_reader r = {(const unsigned char *)rec->s, (const unsigned char *)rec->s + rec->len, 0, NULL};
  const char *target = cache_lookup_get_str(&r), *chip = cache_lookup_get_str(&r), *features = cache_lookup_get_str(&r);
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .features = features};
  o.lib_dirs = cache_lookup_get_str(&r);
  o.tool_dirs = cache_lookup_get_str(&r);
  const char *name = cache_lookup_get_str(&r), *dump = cache_lookup_get_str(&r);
  o.opt = (int)cache_lookup_get_u64(&r);
  o.format = (int)cache_lookup_get_u64(&r);
  o.flags = (unsigned)cache_lookup_get_u64(&r);
  o.abi = (unsigned)cache_lookup_get_u64(&r);
  unsigned abi_default = (unsigned)cache_lookup_get_u64(&r);
  int keep_asm = (int)cache_lookup_get_u64(&r);
  int mlir_input = (int)cache_lookup_get_u64(&r);
  const char *toolkit = cache_lookup_get_str(&r);
  o.toolkit = toolkit && *toolkit ? toolkit : NULL;
  uint64_t nlink = cache_lookup_get_u64(&r);
  if (r.bad || nlink > 65536) return -1;
  const char **link = nlink ? calloc((size_t)nlink, sizeof *link) : NULL; /* the child's, until it exits */
  if (nlink && !link) return -1;
  for (uint64_t i = 0; i < nlink; i++) link[i] = cache_lookup_get_str(&r);
  o.link = link;
  o.nlink = (size_t)nlink;
  o.job_timeout = (unsigned)cache_lookup_get_u64(&r);
  o.fp_contract = (int)cache_lookup_get_u64(&r);
  o.as = (int)cache_lookup_get_u64(&r);
  o.debug = (int)cache_lookup_get_u64(&r);
  const char *cwd = cache_lookup_get_str(&r);
  if (r.bad || !target || !chip || !cwd || child_environment(c, &r) || chdir(cwd)) return -1;
  c->size = (size_t)cache_lookup_get_u64(&r);
  if (r.bad || (size_t)(r.end - r.p) != c->size) return -1;
  o.target = target;
  o.chip = chip;
  job_state_begin(&c->j, g, &o, name);
  target_ref aim = resolve_target_parse(target, chip);
  resolve_job_aim(&c->j, &aim, aim.chips);
  c->j.abi_default = abi_default;
  c->j.src = r.p; /* the record ends in a NUL (strbuf) */
  c->j.src_size = c->size;
  int rc = resolve_options(&c->j);
  c->j.keep_asm = keep_asm;
  c->j.mlir_input = mlir_input;
  sb_add(&c->j.dump, dump ? dump : ""); /* the job's dumps are written here, by the child */
  return rc;
}

/* A child's whole life: one job, its result, exit (a tool child: its jobs, taken on
** chan, src/provider_child.c). */
GPUBLOB_PRIVATE void isolate_child_main(int fd, int chan) {
  isolate_child_fd = fd;
  LLVMResetFatalErrorHandler(); /* the host's, if any: LLVM allows only one */
  LLVMInstallFatalErrorHandler(child_on_fatal);
  gpublob g = {0};
  child_job c = {0};
  strbuf rec = {0}, out = {0};
  char kind;
  if (isolate_wire_get_record(fd, &kind, &rec) || (kind != REC_JOB && kind != REC_TOOL)) _exit(71);
  if (kind == REC_TOOL) provider_child_main(fd, &rec, chan); /* an in-process blob tool's runs (never returns) */
  c.rc = child_read_job(&c, &g, &rec);
  if (c.rc < 0) _exit(72);
  if (c.j.o->job_timeout) alarm(c.j.o->job_timeout); /* the job's limit: SIGALRM ends this process */
  pthread_t t;
  if (!c.rc) {
    if (job_thread_start(&t, GPUBLOB_PARSE_STACK, child_work, &c)) child_work(&c);
    else pthread_join(t, NULL);
  }
  isolate_wire_put_result(&out, c.rc, &c.j);
  cache_store_put_u64(&out, XXH3_64bits(out.s, out.len)); /* a record cut short is never taken for one */
  _exit(out.oom || isolate_wire_put_record(fd, REC_RESULT, &out) ? 73 : 0);
}
