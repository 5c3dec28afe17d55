/* src/search.c: Search: where a tool, a provider library or a device library is found, options
** first, then the spec's roots, each try listed for the error message. */

/* ---- search: options first, then the spec's roots (with $VARs), listing each try ---- */

GPUBLOB_PRIVATE void search_end(search *s) {
  sb_free(&s->tried);
  sb_free(&s->found);
}

static int try_path(search *s, const char *dir, size_t dn, const char *name, int exec) {
  strbuf line = {0};
  sb_addf(&line, "\n  %.*s/%s", (int)dn, dir, name);
  const char *path = line.oom ? "" : line.s + 3; /* after the "\n  " */
  const char *seen = sb_str(&s->tried), *at = strstr(seen, sb_str(&line));
  size_t ln = line.len;
  int dup = at && (at[ln] == 0 || at[ln] == '\n');
  if (!dup) sb_add(&s->tried, sb_str(&line));
  struct stat st;
  int found = !line.oom && !dup && !stat(path, &st) && S_ISREG(st.st_mode) && !(exec && access(path, X_OK));
  if (found) {
    sb_reset(&s->found);
    sb_add(&s->found, path);
  }
  if (line.oom || s->tried.oom || s->found.oom) s->oom = 1;
  sb_free(&line);
  return found;
}

static int is_var_char(char c) {
  return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* Tries one root; "$VAR/sub" expands to each entry of a colon list in VAR. */
static int try_root(search *s, const char *root, size_t n, const char *name, int exec) {
  if (root[0] != '$') return try_path(s, root, n, name, exec);
  size_t v = 1;
  while (v < n && is_var_char(root[v])) v++;
  strbuf var = {0}, dir = {0};
  sb_addn(&var, root + 1, v - 1);
  const char *val = var.oom ? NULL : getenv(sb_str(&var)), *w;
  size_t wn;
  int found = 0;
  while (!found && !dir.oom && val && (w = util_next_word(&val, ":", &wn))) {
    sb_reset(&dir);
    sb_addf(&dir, "%.*s%.*s", (int)wn, w, (int)(n - v), root + v);
    found = !dir.oom && try_path(s, sb_str(&dir), dir.len, name, exec);
  }
  if (var.oom || dir.oom) s->oom = 1;
  sb_free(&var);
  sb_free(&dir);
  return found;
}

/* A spec root "{toolkit}/sub" is the options' toolkit and sub; 0 for another root. */
static const char toolkit_mark[] = "{toolkit}";

static int is_toolkit_root(const char *w, size_t n) {
  return n >= sizeof toolkit_mark - 1 && !memcmp(w, toolkit_mark, sizeof toolkit_mark - 1);
}

/* The spec's {toolkit} roots, in the options' toolkit. */
static int try_toolkit(const job *j, search *s, const char *roots, const char *name, int exec) {
  const char *w;
  size_t n;
  int found = 0;
  while (!found && j->o->toolkit && *j->o->toolkit && (w = util_next_word(&roots, " ", &n))) {
    if (!is_toolkit_root(w, n)) continue;
    strbuf dir = {0};
    sb_addf(&dir, "%s%.*s", j->o->toolkit, (int)(n - (sizeof toolkit_mark - 1)), w + sizeof toolkit_mark - 1);
    if (dir.oom) s->oom = 1;
    else found = try_path(s, sb_str(&dir), dir.len, name, exec);
    sb_free(&dir);
  }
  return found;
}

/* extra: a colon list from the options; roots: the spec's blank-separated list, whose
** {toolkit} roots come first (they are the options' too), after extra. */
static int search_file(const job *j, search *s, const char *extra, const char *roots,
                       const char *name, int exec) {
  const char *w;
  size_t n;
  while (extra && (w = util_next_word(&extra, ":", &n)))
    if (try_path(s, w, n, name, exec)) return 1;
  if (try_toolkit(j, s, roots, name, exec)) return 1;
  if (j->o->flags & GPUBLOB_FLAG_NO_DEFAULT_SEARCH) return 0;
  while ((w = util_next_word(&roots, " ", &n)))
    if (!is_toolkit_root(w, n) && try_root(s, w, n, name, exec)) return 1;
  return 0;
}

/* The first of names (blank-separated) found in the options' dirs, then roots:
** its path in s->found. */
static int find_named(job *j, const char *names, const char *extra, const char *roots, int exec,
                      search *s) {
  const char *w;
  size_t n;
  strbuf name = {0};
  int found = 0;
  while (!found && !name.oom && (w = util_next_word(&names, " ", &n))) {
    sb_reset(&name);
    sb_addn(&name, w, n);
    found = !name.oom && search_file(j, s, extra, roots, sb_str(&name), exec);
  }
  if (name.oom) s->oom = 1;
  sb_free(&name);
  return found;
}

GPUBLOB_PRIVATE const char *search_tried_list(const search *s) {
  return s->tried.len ? sb_str(&s->tried) : " nothing (no search directory)";
}

/* A tool's search ended: its path moved into *path, or the error (what and label
** name the tool, hint follows the paths tried). */
static int tool_found(job *j, search *s, int found, strbuf *path, const char *what, const char *label,
                      const char *hint) {
  int rc = s->oom ? GPUBLOB_NOMEM : found ? GPUBLOB_OK : GPUBLOB_NOTOOL;
  if (rc == GPUBLOB_NOMEM) handle_set_error(j->g, rc, "out of memory");
  else if (rc) handle_set_error(j->g, rc, "%s%s not found for target %s; tried:%s%s", what, label, j->t->name,
                         search_tried_list(s), hint);
  else {
    sb_free(path); /* a held buffer the caller reset (tool_info_fill's) is not lost */
    *path = sb_move(&s->found);
  }
  search_end(s);
  return rc;
}

/* The blob tool program, the options' own or the spec's found: its path in *path. */
GPUBLOB_PRIVATE int search_find_tool_path(job *j, strbuf *path) {
  if (j->o->tool) {
    if (access(j->o->tool, X_OK))
      return handle_set_error(j->g, GPUBLOB_NOTOOL, "blob tool '%s' (from the options) is not executable: %s",
                       j->o->tool, strerror(errno));
    sb_add(path, j->o->tool);
    return path->oom ? handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory") : GPUBLOB_OK;
  }
  search s = {0};
  int found = find_named(j, j->t->tool, j->o->tool_dirs, j->t->tool_search, 1, &s);
  return tool_found(j, &s, found, path, j->t->tool, "", "\n  (-f asm stops before the blob tool)");
}

/* The pack tool (fatbinary) is searched where the blob tool is: its path in *path. */
GPUBLOB_PRIVATE int search_find_pack_tool(job *j, strbuf *path) {
  search s = {0};
  int found = find_named(j, j->t->pack_tool, j->o->tool_dirs, j->t->tool_search, 1, &s);
  return tool_found(j, &s, found, path, j->t->pack_tool, " (the pack tool)", "");
}

/* The provider's library, searched in the options' tool dirs, then the spec's. */
GPUBLOB_PRIVATE int search_find_provider(job *j, search *s) {
  return find_named(j, j->t->provider_lib, j->o->tool_dirs, j->t->provider_search, 0, s);
}

/* A device library's name, expanded (name), searched in the options' library dirs,
** then the spec's. */
GPUBLOB_PRIVATE int search_find_lib(job *j, const char *w, size_t n, strbuf *name, search *s) {
  template_expand(j, w, n, NULL, name);
  if (name->oom) s->oom = 1;
  return !name->oom && search_file(j, s, j->o->lib_dirs, j->t->lib_search, sb_str(name), 0);
}
