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

/* The provider when wanted and found (and, with load, loaded), else the program.
** A missing blob tool fails the call before any compile work is spent. */
static int resolve_tool(job *j, int load) {
  j->tool_name = "";
  j->provider_path[0] = 0;
  if (!needs_blob_tool(j)) return GPUBLOB_OK;
  if (wants_provider(j)) {
    search s = {0};
    int found = find_provider(j, j->provider_path, sizeof j->provider_path, &s);
    if (!found && j->o->tool_mode == GPUBLOB_TOOL_INPROCESS)
      set_error(j->g, GPUBLOB_NOTOOL, "%s (in-process, %s) not found for target %s; tried:%s",
                j->t->provider_lib, j->t->provider_name, j->t->name, tried_list(&s));
    sb_free(&s.tried);
    if (!found && j->o->tool_mode == GPUBLOB_TOOL_INPROCESS) return GPUBLOB_NOTOOL;
    if (found && (!load || !provider_load(j))) {
      j->tool_name = j->t->provider_name;
      return GPUBLOB_OK;
    }
    if (found && j->o->tool_mode == GPUBLOB_TOOL_INPROCESS) return j->g->code;
    j->provider_path[0] = 0;
  }
  int rc = find_tool(j, j->tool, sizeof j->tool);
  if (!rc) j->tool_name = base_name(j->tool);
  return rc;
}
