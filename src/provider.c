/* src/provider.c: In-process providers: a library loaded once per process, shared by threads. */

/* ---- the in-process providers: a library loaded once per process ---- */
/* nvJitLink's entry points, by their exported names (nvJitLink.h, CUDA 12 and 13). */
enum { NVJL_CREATE, NVJL_DESTROY, NVJL_ADD, NVJL_COMPLETE, NVJL_CUBIN_SIZE, NVJL_CUBIN,
       NVJL_ERRLOG_SIZE, NVJL_ERRLOG, NVJL_NSYMS };
static const char *const nvjitlink_symbols[] = {
    "nvJitLinkCreate",       "nvJitLinkDestroy",           "nvJitLinkAddData",
    "nvJitLinkComplete",     "nvJitLinkGetLinkedCubinSize", "nvJitLinkGetLinkedCubin",
    "nvJitLinkGetErrorLogSize", "nvJitLinkGetErrorLog"};

struct provider {
  char *path; /* its own copy, kept while the process lives */
  void *dl;
  void *fn[NVJL_NSYMS];
  char error[512]; /* why it did not load; "" when loaded */
};

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
  for (int i = 0; i < NVJL_NSYMS; i++)
    if (!(p->fn[i] = dlsym(p->dl, nvjitlink_symbols[i]))) {
      snprintf(p->error, sizeof p->error, "the library has no %s", nvjitlink_symbols[i]);
      return;
    }
}

/* The provider at path, opened on first use; a library is never closed. */
static const provider *provider_get(const char *path) {
  pthread_mutex_lock(&providers_mu);
  provider *p = NULL;
  for (int i = 0; i < nproviders && !p; i++)
    if (!strcmp(providers[i].path, path)) p = &providers[i];
  char *copy = !p && nproviders < MAX_PROVIDERS ? strdup(path) : NULL;
  if (!p && nproviders < MAX_PROVIDERS && !copy) p = &no_memory;
  if (copy) {
    p = &providers[nproviders++];
    p->path = copy;
    provider_open(p);
  }
  pthread_mutex_unlock(&providers_mu);
  return p;
}

/* Loads the found provider; auto falls back to the program with a warning. */
static int provider_load(job *j) {
  const provider *p = provider_get(j->provider_path);
  if (p && !p->error[0]) {
    j->prov = p;
    return GPUBLOB_OK;
  }
  const char *why = p ? p->error : "too many provider libraries";
  if (j->o->tool_mode == GPUBLOB_TOOL_INPROCESS)
    return set_error(j->g, GPUBLOB_NOTOOL, "%s (in-process, %s) did not load: %s", j->provider_path,
                     j->t->provider_name, why);
  add_warning(j->g, "%s did not load (%s): running %s instead", j->provider_path, why,
              j->t->tool);
  return GPUBLOB_NOTOOL;
}
