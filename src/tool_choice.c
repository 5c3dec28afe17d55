/* src/tool_choice.c: The blob tool of a job: the spec's in-process provider when it is wanted and
** loads, else its program; decided before any compile work. */

/* ---- the blob tool of a job: the spec's in-process provider, or its program ---- */
static int needs_blob_tool(const job *j) {
  return j->format == GPUBLOB_FORMAT_BIN && j->t->tool_kind == TOOL_exec;
}

/* Auto takes the provider for calls with at least provider_min jobs of the target:
** below that, the program's start overlaps the compile and costs less than
** loading the library. */
static int wants_provider(const job *j) {
  if (!provider_ops_of(j->t) || j->o->tool || j->o->tool_mode == GPUBLOB_TOOL_PROGRAM)
    return 0;
  return j->o->tool_mode == GPUBLOB_TOOL_INPROCESS || j->peers >= (size_t)j->t->provider_min;
}


static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* A program found by find into path, or "" (a missing one is no error here: the
** tool information's fallback, the dump directory's scripts). */
static void find_quietly(job *j, int (*find)(job *, strbuf *), strbuf *path) {
  int code = j->g->code;
  if (find(j, path)) sb_reset(path);
  j->g->code = code;
  sb_reset(&j->g->msg);
}

/* The program a provider falls back to into path, or "". */
static void provider_fallback(job *j, strbuf *path) { find_quietly(j, find_tool_path, path); }

/* The provider, found (and, with load, loaded): OK; NOTOOL when it is not (an
** error, with its message, only where in-process mode asks for it). */
static int choose_provider(job *j, int load) {
  search s = {0};
  int found = find_provider(j, &s);
  int rc = s.oom ? GPUBLOB_NOMEM : found ? GPUBLOB_OK : GPUBLOB_NOTOOL;
  if (rc == GPUBLOB_NOMEM) set_error(j->g, rc, "out of memory");
  else if (rc && j->o->tool_mode == GPUBLOB_TOOL_INPROCESS)
    set_error(j->g, rc, "%s (in-process, %s) not found for target %s; tried:%s", j->t->provider_lib,
              j->t->provider_name, j->t->name, tried_list(&s));
  else if (!rc) job_path_take(&j->provider_path, &s.found);
  search_end(&s);
  if (!rc && load) rc = provider_load(j);
  if (!rc) j->tool_name = j->t->provider_name;
  else job_path_free(&j->provider_path);
  return rc;
}

/* The provider when wanted and found (and, with load, loaded), else the program.
** A missing blob tool fails the call before any compile work is spent. */
static int resolve_tool(job *j, int load) {
  j->tool_name = "";
  job_path_free(&j->provider_path);
  if (!needs_blob_tool(j)) return GPUBLOB_OK;
  if (wants_provider(j)) {
    int rc = choose_provider(j, load);
    if (rc != GPUBLOB_NOTOOL || j->o->tool_mode == GPUBLOB_TOOL_INPROCESS) return rc;
  }
  strbuf path = {0};
  int rc = find_tool_path(j, &path);
  if (!rc) {
    job_path_take(&j->tool, &path);
    j->tool_name = base_name(j->tool);
  }
  sb_free(&path);
  return rc;
}
