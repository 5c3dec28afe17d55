/* src/provider_nvjitlink.c: The nvjitlink provider: CUDA's nvJitLink library turns PTX into a cubin
** in-process.  Its ABI is named here and nowhere else. */

/* ---- the in-process blob tool: nvJitLink turns PTX into a cubin ---- */
typedef int (*nvjl_create_fn)(void **, uint32_t, const char **);
typedef int (*nvjl_destroy_fn)(void **);
typedef int (*nvjl_add_fn)(void *, int, const void *, size_t, const char *);
typedef int (*nvjl_handle_fn)(void *);
typedef int (*nvjl_size_fn)(void *, size_t *);
typedef int (*nvjl_get_fn)(void *, void *);
enum { NVJL_INPUT_PTX = 2 };

static int nvjl_failed(job *j, void *h, const char *step, int r) {
  set_error(j->g, GPUBLOB_TOOL, "%s (in-process, %s) for %s:%s failed in %s with error %d",
            j->t->provider_name, j->prov->path, j->t->name, j->chip, step, r);
  size_t n = 0;
  char *log = NULL;
  if (h && !((nvjl_size_fn)j->prov->fn[NVJL_ERRLOG_SIZE])(h, &n) && n && (log = malloc(n + 1)) &&
      !((nvjl_get_fn)j->prov->fn[NVJL_ERRLOG])(h, log)) {
    log[n] = 0;
    add_detail(j->g, log);
  }
  free(log);
  return GPUBLOB_TOOL;
}

static int nvjl_cubin(job *j, void *h) {
  size_t n = 0;
  int r = ((nvjl_size_fn)j->prov->fn[NVJL_CUBIN_SIZE])(h, &n);
  if (r || !n) return nvjl_failed(j, h, "GetLinkedCubinSize", r);
  unsigned char *cubin = malloc(n + 1);
  if (!cubin) return set_error(j->g, GPUBLOB_NOMEM, "out of memory (%zu bytes)", n);
  if ((r = ((nvjl_get_fn)j->prov->fn[NVJL_CUBIN])(h, cubin))) {
    free(cubin);
    return nvjl_failed(j, h, "GetLinkedCubin", r);
  }
  cubin[n] = 0;
  gpublob_blob_free(&j->out);
  j->out = (gpublob_blob){cubin, n, j->t->suffix_bin};
  return GPUBLOB_OK;
}

/* The backend's PTX (NUL-terminated by take_buffer) in, the cubin out; the options
** are provider_argv's words. */
static int provider_run(job *j) {
  argvec args = {0};
  const char **opts = (const char **)template_argv(&args, j, j->t->provider_argv, NULL, NULL, NULL);
  void *h = NULL;
  int r = opts ? ((nvjl_create_fn)j->prov->fn[NVJL_CREATE])(&h, (uint32_t)args.argc, opts) : -1;
  int rc = !opts ? set_error(j->g, GPUBLOB_NOMEM, "out of memory")
           : r   ? nvjl_failed(j, h, "Create", r)
                 : GPUBLOB_OK;
  if (!rc && (r = ((nvjl_add_fn)j->prov->fn[NVJL_ADD])(h, NVJL_INPUT_PTX, j->out.data, j->out.size + 1,
                                                        j->name)))
    rc = nvjl_failed(j, h, "AddData", r);
  if (!rc && (r = ((nvjl_handle_fn)j->prov->fn[NVJL_COMPLETE])(h))) rc = nvjl_failed(j, h, "Complete", r);
  if (!rc) rc = nvjl_cubin(j, h);
  if (h) ((nvjl_destroy_fn)j->prov->fn[NVJL_DESTROY])(&h);
  argv_free(&args);
  return rc;
}

static int run_blob_tool(job *j) {
  if (!needs_blob_tool(j)) {
    if (j->format == GPUBLOB_FORMAT_BIN) j->out.suffix = j->t->suffix_bin; /* the object is the blob */
    return GPUBLOB_OK;
  }
  if (j->prov) return provider_run(j);
  int rc = j->run.p.pid ? GPUBLOB_OK : tool_start(j);
  return rc ? rc : tool_finish(j);
}
