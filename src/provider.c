/* src/provider.c: In-process providers: the spec's provider = NAME names one of the
** ops tables below, each in a part of its own; its library is found by the spec's
** provider_lib and provider_search, loaded once per process and shared by
** threads, and run with the spec's provider_argv.  A new provider is a part with
** its ops, and a line in provider_registry. */

/* ---- the providers gpublob has ---- */
static const provider_ops *const provider_registry[] = {&nvjitlink_ops};

/* The target's provider, or NULL when the spec names none (or one this gpublob has not). */
static const provider_ops *provider_ops_of(const target_desc *t) {
  for (size_t i = 0; i < sizeof provider_registry / sizeof *provider_registry; i++)
    if (!strcmp(provider_registry[i]->name, t->provider_name)) return provider_registry[i];
  return NULL;
}

/* ---- the libraries: loaded once per process, never closed ---- */
enum { MAX_PROVIDERS = 8 };
static provider providers[MAX_PROVIDERS];
static provider no_memory = {.error = "out of memory"}; /* for a path that could not be copied */
static int nproviders;
static pthread_mutex_t providers_mu = PTHREAD_MUTEX_INITIALIZER;

static void provider_open(provider *p) {
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

/* The provider at path, opened on first use (the time that took added to *load_ms);
** a library is never closed. */
static const provider *provider_get(const provider_ops *ops, const char *path, double *load_ms) {
  pthread_mutex_lock(&providers_mu);
  provider *p = NULL;
  for (int i = 0; i < nproviders && !p; i++)
    if (providers[i].ops == ops && !strcmp(providers[i].path, path)) p = &providers[i];
  char *copy = !p && nproviders < MAX_PROVIDERS ? strdup(path) : NULL;
  if (!p && nproviders < MAX_PROVIDERS && !copy) p = &no_memory;
  if (copy) {
    p = &providers[nproviders++];
    p->ops = ops;
    p->path = copy;
    double t = now_ms();
    provider_open(p);
    *load_ms += now_ms() - t;
  }
  pthread_mutex_unlock(&providers_mu);
  return p;
}

/* Loads the found provider: OK, or NOTOOL saying why it did not load. */
static int provider_load(job *j) {
  const provider *p = provider_get(provider_ops_of(j->t), j->provider_path, &j->provider_load_ms);
  if (p && !p->error[0]) {
    j->prov = p;
    return GPUBLOB_OK;
  }
  return set_error(j->g, GPUBLOB_NOTOOL, "%s (in-process, %s) did not load: %s", j->provider_path,
                   j->t->provider_name, p ? p->error : "too many provider libraries");
}
