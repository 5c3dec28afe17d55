/* src/provider_run.c: A job's in-process blob tool: the loaded provider's run, with
** the spec's provider_argv expanded for the job. */

/* The provider's options: provider_argv expanded and split on blanks. */
static const char **provider_options(job *j, strbuf *store, uint32_t *n) {
  const char *list = j->t->provider_argv, *w;
  size_t wn;
  *n = 0;
  while ((w = next_word(&list, " ", &wn))) {
    expand(j, w, wn, NULL, store);
    sb_addn(store, "", 1);
    ++*n;
  }
  const char **argv = calloc(*n + 1, sizeof *argv);
  if (!argv || store->oom) {
    free(argv);
    return NULL;
  }
  const char *p = store->s;
  for (uint32_t i = 0; i < *n; i++, p += strlen(p) + 1) argv[i] = p;
  return argv;
}

/* The job's assembly (NUL-terminated by take_buffer) in, the blob out, by the
** loaded provider with the spec's options. */
static int provider_run(job *j) {
  strbuf store = {0};
  uint32_t n;
  const char **opts = provider_options(j, &store, &n);
  int rc = opts ? j->prov->ops->run(j, j->prov, opts, n) : set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  free(opts);
  sb_free(&store);
  return rc;
}
