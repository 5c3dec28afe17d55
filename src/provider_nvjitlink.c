/* src/provider_nvjitlink.c: The nvjitlink provider: CUDA's nvJitLink library turns PTX
** into a cubin in-process.  Its ABI (the entry points by name, their types, the
** input kind) is named here and nowhere else; the core reaches it through
** provider_nvjitlink_ops, listed in src/provider.c. */

/* ---- nvJitLink: its entry points (nvJitLink.h, CUDA 12 and 13) ---- */
enum { NVJL_CREATE, NVJL_DESTROY, NVJL_ADD, NVJL_COMPLETE, NVJL_CUBIN_SIZE, NVJL_CUBIN,
       NVJL_ERRLOG_SIZE, NVJL_ERRLOG, NVJL_INFOLOG_SIZE, NVJL_INFOLOG, NVJL_NSYMS };
static const char *const nvjitlink_symbols[NVJL_NSYMS + 1] = {
    "nvJitLinkCreate",       "nvJitLinkDestroy",           "nvJitLinkAddData",
    "nvJitLinkComplete",     "nvJitLinkGetLinkedCubinSize", "nvJitLinkGetLinkedCubin",
    "nvJitLinkGetErrorLogSize", "nvJitLinkGetErrorLog",    "nvJitLinkGetInfoLogSize",
    "nvJitLinkGetInfoLog",   NULL};
typedef int (*nvjl_create_fn)(void **, uint32_t, const char **);
typedef int (*nvjl_destroy_fn)(void **);
typedef int (*nvjl_add_fn)(void *, int, const void *, size_t, const char *);
typedef int (*nvjl_handle_fn)(void *);
typedef int (*nvjl_size_fn)(void *, size_t *);
typedef int (*nvjl_get_fn)(void *, void *);
enum { NVJL_INPUT_PTX = 2 };

/* ---- nvJitLink: PTX in, a cubin out ---- */
static int nvjl_failed(job *j, const provider *p, void *h, const char *step, int r) {
  handle_set_error(j->g, GPUBLOB_TOOL, "%s (in-process, %s) for %s:%s failed in %s with error %d",
            p->ops->name, p->path, j->t->name, j->chip, step, r);
  size_t n = 0;
  char *log = NULL;
  if (h && !((nvjl_size_fn)p->fn[NVJL_ERRLOG_SIZE])(h, &n) && n && (log = malloc(n + 1)) &&
      !((nvjl_get_fn)p->fn[NVJL_ERRLOG])(h, log)) {
    log[n] = 0;
    handle_add_detail(j->g, log);
  }
  free(log);
  return GPUBLOB_TOOL;
}

static int nvjl_cubin(job *j, const provider *p, void *h) {
  size_t n = 0;
  int r = ((nvjl_size_fn)p->fn[NVJL_CUBIN_SIZE])(h, &n);
  if (r || !n) return nvjl_failed(j, p, h, "GetLinkedCubinSize", r);
  unsigned char *cubin = malloc(n + 1);
  if (!cubin) return handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory (%zu bytes)", n);
  if ((r = ((nvjl_get_fn)p->fn[NVJL_CUBIN])(h, cubin))) {
    free(cubin);
    return nvjl_failed(j, p, h, "GetLinkedCubin", r);
  }
  cubin[n] = 0;
  util_blob_release(&j->out);
  j->out = (gpublob_blob){cubin, n, j->t->suffix_bin};
  return GPUBLOB_OK;
}

/* nvJitLink's info log (what ptxas -v prints, with -verbose) is the tool's output,
** as a program's stdout is: the report's, the dump's and GPUBLOB_FLAG_TOOL_LOG's. */
static void nvjl_info_log(job *j, const provider *p, void *h) {
  size_t n = 0;
  if (((nvjl_size_fn)p->fn[NVJL_INFOLOG_SIZE])(h, &n) || n < 2) return;
  char *log = malloc(n + 1);
  if (log && !((nvjl_get_fn)p->fn[NVJL_INFOLOG])(h, log)) {
    log[n] = 0;
    sb_add(&j->run.output, log);
  }
  free(log);
}

/* The backend's PTX (NUL-terminated by take_buffer) in, the cubin out. */
static int nvjitlink_run(job *j, const provider *p, const char **opts, uint32_t n) {
  void *h = NULL;
  int r = ((nvjl_create_fn)p->fn[NVJL_CREATE])(&h, n, opts);
  int rc = r ? nvjl_failed(j, p, h, "Create", r) : GPUBLOB_OK;
  if (!rc && (r = ((nvjl_add_fn)p->fn[NVJL_ADD])(h, NVJL_INPUT_PTX, j->out.data, j->out.size + 1, j->name)))
    rc = nvjl_failed(j, p, h, "AddData", r);
  if (!rc && (r = ((nvjl_handle_fn)p->fn[NVJL_COMPLETE])(h))) rc = nvjl_failed(j, p, h, "Complete", r);
  if (!rc) rc = nvjl_cubin(j, p, h);
  if (!rc) nvjl_info_log(j, p, h);
  if (h) ((nvjl_destroy_fn)p->fn[NVJL_DESTROY])(&h);
  return rc;
}

GPUBLOB_PRIVATE const provider_ops provider_nvjitlink_ops = {.name = "nvjitlink", .symbols = nvjitlink_symbols, .run = nvjitlink_run};
