/* src/pool.c: The pool: jobs in plan order on a bounded set of threads; the first failure in
** plan order is the call's. */

/* ---- the pool: jobs in plan order on a bounded set of threads ---- */
/* Workers take jobs in order as they become ready.  Once one fails, jobs after it
** in plan order are cancelled if not yet started; those started, and any before
** it, finish.  So every job before the first failed one has run, and the first
** failure in plan order is the one a serial run reports, however threads interleave. */
typedef struct pool {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  job *const *jobs;
  size_t ready, next, nthreads;
  int closed;
  atomic_size_t failed; /* the lowest index of a failed job; SIZE_MAX while none */
  pthread_t *threads;
} pool;

static int pool_failed(pool *q) {
  return atomic_load(&q->failed) != SIZE_MAX;
}

static void pool_note_failure(pool *q, size_t i) {
  size_t seen = atomic_load(&q->failed);
  while (i < seen && !atomic_compare_exchange_weak(&q->failed, &seen, i)) {
  }
}

static void pool_take(pool *q, size_t i) {
  job *j = q->jobs[i];
  if (atomic_load(&q->failed) < i) {
    j->state = JOB_CANCELLED;
    llvm_job_release(j);
  } else if (job_run(j)) {
    pool_note_failure(q, i);
  }
}

/* A worker has a stack of its own for a host's crash handler (SIGSEGV of a stack
** overflow has no stack left to run on). */
static void *pool_worker(void *arg) {
  pool *q = arg;
  target_machine_workers tms = {0};
  target_machine_this_worker = &tms;
  stack_t alt = {.ss_sp = malloc(1 << 16), .ss_size = 1 << 16}, off = {.ss_flags = SS_DISABLE};
  if (alt.ss_sp) sigaltstack(&alt, NULL);
  for (;;) {
    pthread_mutex_lock(&q->mu);
    while (q->next == q->ready && !q->closed) pthread_cond_wait(&q->cv, &q->mu);
    size_t i = q->next < q->ready ? q->next++ : SIZE_MAX;
    pthread_mutex_unlock(&q->mu);
    if (i == SIZE_MAX) break;
    pool_take(q, i);
  }
  target_machine_this_worker = NULL;
  target_machine_workers_free(&tms);
  if (alt.ss_sp) {
    sigaltstack(&off, NULL);
    free(alt.ss_sp);
  }
  return NULL;
}

#if GPUBLOB_MLIR
/* fn(arg) on a thread with the parsers' large stack, waited for; here if none starts. */
GPUBLOB_PRIVATE void pool_on_parse_stack(void *(*fn)(void *), void *arg) {
  pthread_t t;
  if (job_thread_start(&t, GPUBLOB_PARSE_STACK, fn, arg)) fn(arg);
  else pthread_join(t, NULL);
}
#endif

/* Threads: the options' count, else one per core this process may run on. */
static size_t thread_count(const gpublob_options *o, size_t njobs) {
  size_t n = o->jobs;
  cpu_set_t set;
  if (!n) n = sched_getaffinity(0, sizeof set, &set) ? (size_t)sysconf(_SC_NPROCESSORS_ONLN)
                                                      : (size_t)CPU_COUNT(&set);
  if (n > njobs) n = njobs;
  return n < 1 ? 1 : n > 256 ? 256 : n;
}

/* One thread runs the jobs itself, as they are submitted; more start workers. */
static void pool_start(pool *q, job *const *jobs, size_t nthreads) {
  memset(q, 0, sizeof *q);
  pthread_mutex_init(&q->mu, NULL);
  pthread_cond_init(&q->cv, NULL);
  q->jobs = jobs;
  atomic_init(&q->failed, SIZE_MAX);
  q->threads = calloc(nthreads, sizeof *q->threads);
  /* even one thread: jobs parse there, on a stack LLVM's recursion cannot outgrow */
  for (size_t i = 0; q->threads && i < nthreads; i++)
    if (!job_thread_start(&q->threads[i], GPUBLOB_PARSE_STACK, pool_worker, q)) q->nthreads++;
}

static void pool_submit(pool *q) {
  if (!q->nthreads) { /* no worker could start: run it here, now */
    pool_take(q, q->ready++);
    q->next = q->ready;
    return;
  }
  pthread_mutex_lock(&q->mu);
  q->ready++;
  pthread_cond_signal(&q->cv);
  pthread_mutex_unlock(&q->mu);
}

static void pool_finish(pool *q) {
  pthread_mutex_lock(&q->mu);
  q->closed = 1;
  pthread_cond_broadcast(&q->cv);
  pthread_mutex_unlock(&q->mu);
  for (size_t i = 0; i < q->nthreads; i++) pthread_join(q->threads[i], NULL);
  free(q->threads);
  pthread_cond_destroy(&q->cv);
  pthread_mutex_destroy(&q->mu);
}

/* The first failure in plan order becomes the call's error: a job's own, or
** the preparation's (prepare_rc at prepared, its message already in g). */
static int pool_error(plan *p, size_t prepared, int prepare_rc) {
  gpublob *g = p->g;
  job *const *jobs = p->jobs;
  for (size_t i = 0; i < p->njobs; i++) /* the jobs' warnings, in plan order, once each */
    report_add_warnings(g, sb_str(&jobs[i]->sink.warn));
  for (size_t i = 0; i < p->njobs; i++) {
    p->failed = i;
    if (i == prepared) return prepare_rc;
    if (jobs[i]->state == JOB_FAILED) return report_take_error(g, &jobs[i]->sink);
  }
  return GPUBLOB_OK;
}

/* The isolation helper, started here, on the calling thread, where a job asks for
** it (the options, or a target the spec isolates always) or runs an in-process blob
** tool (src/provider_child.c); the number of children it forks one ahead of. */
static int pool_helper(plan *p) {
  size_t isolated = 0;
  for (size_t i = 0; i < p->njobs; i++) {
    isolated += (p->jobs[i]->flags & GPUBLOB_FLAG_ISOLATE) != 0;
    isolated += p->jobs[i]->prov != NULL; /* its in-process tool runs in a child too */
  }
  if (!isolated) return GPUBLOB_OK;
  if (!isolate_helper_alive(p->g)) provider_loads_settle(); /* the helper's fork copies no half-loaded library */
  int rc = gpublob_helper_start(p->g);
  if (!rc) provider_child_preload(p->g, p->jobs, p->njobs);
  if (!rc) isolate_host_expect(p->g, isolated);
  return rc;
}

GPUBLOB_PRIVATE int pool_run(plan *p, pool_job_preparer prepare, void *arg) {
  pool q;
  int rc = pool_helper(p);
  if (rc) return rc;
  size_t nthreads = thread_count(&p->o, p->njobs), prepared = (size_t)-1;
  int prepare_rc = GPUBLOB_OK;
  for (size_t i = 0; i < p->njobs; i++) p->jobs[i]->g = &p->jobs[i]->sink;
  devlib_share_open(p->g);
  pool_start(&q, p->jobs, nthreads);
  for (size_t i = 0; i < p->njobs && !pool_failed(&q); i++) {
    prepare_rc = prepare ? prepare(arg, i) : GPUBLOB_OK;
    if (prepare_rc) {
      prepared = i;
      break;
    }
    pool_submit(&q);
  }
  p->g->stats.threads = q.nthreads ? q.nthreads : 1;
  pool_finish(&q);
  for (size_t i = q.ready; i < p->njobs; i++) llvm_job_release(p->jobs[i]);
  devlib_share_close(p->g); /* after every job's modules, which may read its bytes */
  gpublob_stats *st = &p->g->stats;
  for (size_t i = 0; i < p->njobs; i++) {
    const double *ms = p->jobs[i]->ms;
    st->load_ms += ms[PH_LOAD];
    st->link_ms += ms[PH_LINK];
    st->optimise_ms += ms[PH_OPT];
    st->emit_ms += ms[PH_EMIT];
    st->tool_ms += ms[PH_TOOL];
    st->provider_load_ms += p->jobs[i]->provider_load_ms;
    st->tool_cpu_ms += p->jobs[i]->tool_cpu_ms;
  }
  st->jobs = p->njobs;
  return pool_error(p, prepared, prepare_rc);
}
