/* src/provider.c: In-process providers: the spec's provider = NAME names one of the
** ops tables below, each in a part of its own; its library is found by the spec's
** provider_lib and provider_search, loaded once per process and shared by
** threads, and run with the spec's provider_argv.  A new provider is a part with
** its ops, and a line in provider_registry. */

/* ---- the providers gpublob has ---- */
static const provider_ops *const provider_registry[] = {
    &provider_nvjitlink_ops,
#if GPUBLOB_LLD
    &provider_lld_ops,
#endif
};

#if !GPUBLOB_PARTS_FRONT /* the compiler's parts call it */
/* The i-th provider of the registry; NULL past its end. */
GPUBLOB_PRIVATE const provider_ops *provider_registered(size_t i) {
  return i < sizeof provider_registry / sizeof *provider_registry ? provider_registry[i] : NULL;
}
#endif

/* The target's provider, or NULL when the spec names none (or one this gpublob has not:
** lld where the build did not link it). */
GPUBLOB_PRIVATE const provider_ops *provider_ops_of(const target_desc *t) {
  for (size_t i = 0; i < sizeof provider_registry / sizeof *provider_registry; i++)
    if (!strcmp(provider_registry[i]->name, t->provider_name)) return provider_registry[i];
  return NULL;
}

/* ---- the libraries: loaded once per process, never closed ---- */
/* A linked provider (ops->linked) is entered in the same table, with its identity as
** its path, and is ready at once. */
/* A library is loaded on a thread of its own, started when the call's plan finds it:
** nvJitLink's 98 MB take 25 to 50 ms to load, and the jobs parse, link, optimise and
** emit meanwhile; a job waits for it only at its blob tool.  Every call waits for the
** loads it started before it returns (provider_settle), so that no loader outlives it.
** A process forked while a load runs has no loader thread: there the load counts as
** failed (providers_after_fork), and no call waits for it. */
enum { MAX_PROVIDERS = 8 };
static provider providers[MAX_PROVIDERS];
static provider no_memory = {.error = "out of memory"}; /* for a path that could not be copied */
static int nproviders;
static pthread_mutex_t providers_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t providers_loaded = PTHREAD_COND_INITIALIZER;
static pthread_once_t providers_fork_once = PTHREAD_ONCE_INIT;

static void providers_before_fork(void) { pthread_mutex_lock(&providers_mu); }
static void providers_parent_after_fork(void) { pthread_mutex_unlock(&providers_mu); }
static void providers_after_fork(void) {
  pthread_mutex_init(&providers_mu, NULL);
  pthread_cond_init(&providers_loaded, NULL);
  for (int i = 0; i < nproviders; i++)
    if (providers[i].loading) {
      snprintf(providers[i].error, sizeof providers[i].error, "its load was cut short by a fork");
      providers[i].loading = 0;
    }
}
static void providers_fork_handlers(void) {
  pthread_atfork(providers_before_fork, providers_parent_after_fork, providers_after_fork);
}

GPUBLOB_PRIVATE void provider_open(provider *p) {
  p->dl = dlopen(p->path, RTLD_NOW | RTLD_LOCAL);
  if (!p->dl) {
    snprintf(p->error, sizeof p->error, "%s", dlerror());
    return;
  }
  for (int i = 0; p->ops->symbols[i]; i++)
    if (!(p->fn[i] = dlsym(p->dl, p->ops->symbols[i]))) {
      snprintf(p->error, sizeof p->error, "the library has no %s", p->ops->symbols[i]);
      return;
    }
}

/* The loader: opens the library, then tells whoever waits (holding providers_mu). */
static void *provider_loader(void *arg) {
  provider *p = arg;
  double t = util_now_ms();
  provider_open(p);
  pthread_mutex_lock(&providers_mu);
  p->load_ms = util_now_ms() - t;
  p->loading = 0;
  pthread_cond_broadcast(&providers_loaded);
  pthread_mutex_unlock(&providers_mu);
  return NULL;
}

/* Starts p's loader (p->loading, under providers_mu); loads it here if no thread starts. */
static void provider_start_loader(provider *p) {
  pthread_attr_t attr;
  pthread_t t;
  p->loading = 1;
  int rc = pthread_attr_init(&attr);
  if (!rc) {
    rc = pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (!rc) rc = pthread_create(&t, &attr, provider_loader, p);
    pthread_attr_destroy(&attr);
  }
  if (!rc) return;
  double t0 = util_now_ms();
  provider_open(p);
  p->load_ms = util_now_ms() - t0;
  p->loading = 0;
}

/* The provider at path, its load started on first use (*started: by this call, which
** g remembers); a library is never closed. */
static provider *provider_get(gpublob *g, const provider_ops *ops, const char *path, int *started) {
  pthread_once(&providers_fork_once, providers_fork_handlers);
  pthread_mutex_lock(&providers_mu);
  provider *p = NULL;
  for (int i = 0; i < nproviders && !p; i++)
    if (providers[i].ops == ops && !strcmp(providers[i].path, path)) p = &providers[i];
  char *copy = !p && nproviders < MAX_PROVIDERS ? strdup(path) : NULL;
  if (!p && nproviders < MAX_PROVIDERS && !copy) p = &no_memory;
  *started = copy != NULL && !ops->linked;
  if (copy) { /* a linked provider has nothing to load */
    if (!ops->linked) g->providers_started |= 1u << nproviders;
    p = &providers[nproviders++];
    p->ops = ops;
    p->path = copy;
    if (!ops->linked) provider_start_loader(p);
  }
  pthread_mutex_unlock(&providers_mu);
  return p;
}

static int provider_failed(job *j, const char *why) {
  return handle_set_error(j->g, GPUBLOB_NOTOOL, "%s (in-process, %s) did not load: %s", j->provider_path,
                   j->t->provider_name, why);
}

/* The found provider, its load started: OK, or NOTOOL when it is known not to load. */
GPUBLOB_PRIVATE int provider_load(job *j) {
  provider *p = provider_get(j->host, provider_ops_of(j->t), j->provider_path, &j->provider_loader);
  if (!p) return provider_failed(j, "too many provider libraries");
  pthread_mutex_lock(&providers_mu);
  int failed = !p->loading && p->error[0];
  pthread_mutex_unlock(&providers_mu);
  if (failed) return provider_failed(j, p->error);
  j->prov = p;
  return GPUBLOB_OK;
}

/* Waits for the job's provider: OK once it is loaded, NOTOOL saying why it did not
** load.  The job that started the load counts its time. */
GPUBLOB_PRIVATE int provider_ready(job *j) {
  provider *p = (provider *)j->prov;
  pthread_mutex_lock(&providers_mu);
  while (p->loading) pthread_cond_wait(&providers_loaded, &providers_mu);
  pthread_mutex_unlock(&providers_mu);
  if (j->provider_loader) j->provider_load_ms += p->load_ms;
  j->provider_loader = 0;
  return p->error[0] ? provider_failed(j, p->error) : GPUBLOB_OK;
}

#if !GPUBLOB_PARTS_FRONT
/* Every load in flight is over: a fork (the isolation helper's) must not copy a
** library half loaded by a loader thread, which its children would then find
** "loaded" and crash in. */
GPUBLOB_PRIVATE void provider_loads_settle(void) {
  pthread_mutex_lock(&providers_mu);
  for (int i = 0; i < nproviders; i++)
    while (providers[i].loading) pthread_cond_wait(&providers_loaded, &providers_mu);
  pthread_mutex_unlock(&providers_mu);
}
#endif

/* The loads g's call started are over (the end of a call). */
GPUBLOB_PRIVATE void provider_settle(gpublob *g) {
  if (!g->providers_started) return;
  pthread_mutex_lock(&providers_mu);
  for (int i = 0; i < nproviders; i++)
    while ((g->providers_started >> i & 1) && providers[i].loading)
      pthread_cond_wait(&providers_loaded, &providers_mu);
  pthread_mutex_unlock(&providers_mu);
  g->providers_started = 0;
}
