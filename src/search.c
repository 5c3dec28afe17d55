/* src/search.c: Search: where a tool, a provider library or a device library is found, options
** first, then the spec's roots, each try listed for the error message. */

/* ---- search: options first, then the spec's roots (with $VARs), listing each try ---- */
typedef struct search {
  strbuf tried;
  char found[4096];
} search;

static int try_path(search *s, const char *dir, size_t dn, const char *name, int exec) {
  char path[4096];
  snprintf(path, sizeof path, "%.*s/%s", (int)dn, dir, name);
  strbuf line = {0};
  sb_addf(&line, "\n  %s", path);
  const char *seen = sb_str(&s->tried), *at = strstr(seen, sb_str(&line));
  size_t ln = line.len;
  int dup = at && (at[ln] == 0 || at[ln] == '\n');
  if (!dup) sb_add(&s->tried, sb_str(&line));
  sb_free(&line);
  if (dup) return 0;
  struct stat st;
  if (stat(path, &st) || !S_ISREG(st.st_mode) || (exec && access(path, X_OK))) return 0;
  snprintf(s->found, sizeof s->found, "%s", path);
  return 1;
}

/* Tries one root; "$VAR/sub" expands to each entry of a colon list in VAR. */
static int try_root(search *s, const char *root, size_t n, const char *name, int exec) {
  if (root[0] != '$') return try_path(s, root, n, name, exec);
  size_t v = 1;
  while (v < n && (root[v] == '_' || (root[v] >= 'A' && root[v] <= 'Z') ||
                   (root[v] >= 'a' && root[v] <= 'z') || (root[v] >= '0' && root[v] <= '9')))
    v++;
  char var[128];
  snprintf(var, sizeof var, "%.*s", (int)(v - 1), root + 1);
  const char *val = getenv(var), *w;
  size_t wn;
  while (val && (w = next_word(&val, ":", &wn))) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s%.*s", (int)wn, w, (int)(n - v), root + v);
    if (try_path(s, dir, strlen(dir), name, exec)) return 1;
  }
  return 0;
}

/* extra: a colon list from the options; roots: the spec's blank-separated list. */
static int search_file(const job *j, search *s, const char *extra, const char *roots,
                       const char *name, int exec) {
  const char *w;
  size_t n;
  while (extra && (w = next_word(&extra, ":", &n)))
    if (try_path(s, w, n, name, exec)) return 1;
  if (j->o->flags & GPUBLOB_FLAG_NO_DEFAULT_SEARCH) return 0;
  while ((w = next_word(&roots, " ", &n)))
    if (try_root(s, w, n, name, exec)) return 1;
  return 0;
}

/* The first of names (blank-separated) found in the options' dirs, then roots. */
static int find_named(job *j, const char *names, const char *extra, const char *roots, int exec,
                      char *path, size_t size, search *s) {
  const char *w;
  size_t n;
  while ((w = next_word(&names, " ", &n))) {
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)n, w);
    if (search_file(j, s, extra, roots, name, exec)) {
      snprintf(path, size, "%s", s->found);
      return 1;
    }
  }
  return 0;
}

static const char *tried_list(const search *s) {
  return s->tried.len ? sb_str(&s->tried) : " nothing (no search directory)";
}

static int find_tool(job *j, char *path, size_t size) {
  const target_desc *t = j->t;
  if (j->o->tool) {
    if (access(j->o->tool, X_OK))
      return set_error(j->g, GPUBLOB_NOTOOL, "blob tool '%s' (from the options) is not executable: %s",
                       j->o->tool, strerror(errno));
    snprintf(path, size, "%s", j->o->tool);
    return GPUBLOB_OK;
  }
  search s = {0};
  int found = find_named(j, t->tool, j->o->tool_dirs, t->tool_search, 1, path, size, &s);
  if (!found)
    set_error(j->g, GPUBLOB_NOTOOL, "%s not found for target %s; tried:%s%s", t->tool, t->name,
              tried_list(&s), "\n  (-f asm stops before the blob tool)");
  sb_free(&s.tried);
  return found ? GPUBLOB_OK : GPUBLOB_NOTOOL;
}

/* The pack tool (fatbinary) is searched where the blob tool is. */
static int find_pack_tool(job *j, char *path, size_t size) {
  search s = {0};
  int found = find_named(j, j->t->pack_tool, j->o->tool_dirs, j->t->tool_search, 1, path, size, &s);
  if (!found)
    set_error(j->g, GPUBLOB_NOTOOL, "%s (the pack tool) not found for target %s; tried:%s",
              j->t->pack_tool, j->t->name, tried_list(&s));
  sb_free(&s.tried);
  return found ? GPUBLOB_OK : GPUBLOB_NOTOOL;
}

/* The provider's library, searched in the options' tool dirs, then the spec's. */
static int find_provider(job *j, char *path, size_t size, search *s) {
  return find_named(j, j->t->provider_lib, j->o->tool_dirs, j->t->provider_search, 0, path, size, s);
}
