/* src/tool_choice.c: The blob tool of a job: the spec's in-process provider when it is wanted and
** loads, else its program; decided before any compile work. */

/* ---- the blob tool of a job: the spec's in-process provider, or its program ---- */
/* The spec's tool_kind exec always; asked (xevm: ocloc's native binary beside the
** backend's SPIR-V) only where the call asks for the program. */
GPUBLOB_PRIVATE int tool_choice_needs_blob_tool(const job *j) {
  return j->format == GPUBLOB_FORMAT_BIN &&
         (j->t->tool_kind == TOOL_exec || (j->t->tool_kind == TOOL_asked && j->o->tool_mode == GPUBLOB_TOOL_PROGRAM));
}

/* The provider's option for the caller's blob tool option w (the spec's
** provider_options), added to out (with its NUL) when there is one: 1, else 0. */
GPUBLOB_PRIVATE int tool_choice_provider_option(const job *j, const char *w, strbuf *out) {
  const char *list = j->t->provider_options, *p;
  size_t n;
  while ((p = util_next_word(&list, " ", &n))) {
    if (*p == '!') { /* !PATTERN: no counterpart in-process (a glob of the option's words) */
      char pat[128];
      if (n - 1 < sizeof pat) {
        memcpy(pat, p + 1, n - 1);
        pat[n - 1] = 0;
        if (!fnmatch(pat, w, 0)) return 0;
      }
      continue;
    }
    const char *colon = memchr(p, ':', n), *star;
    if (!colon) continue;
    size_t pn = (size_t)(colon - p), rn = n - pn - 1, wn = strlen(w);
    int glob = pn && p[pn - 1] == '*';
    size_t fixed = glob ? pn - 1 : pn;
    if (glob ? wn < fixed || strncmp(w, p, fixed) : wn != pn || strncmp(w, p, pn)) continue;
    const char *r = colon + 1;
    if (glob && (star = memchr(r, '*', rn))) {
      sb_addn(out, r, (size_t)(star - r));
      sb_add(out, w + fixed);
      sb_addn(out, star + 1, rn - (size_t)(star + 1 - r));
    } else {
      sb_addn(out, r, rn);
    }
    sb_addn(out, "", 1);
    return 1;
  }
  return 0;
}

/* The caller's blob tool options: OPTION for an unterminated quote; else the first the
** provider has no option for, into *bad (a word of words), or NULL. */
static int tool_options_split(job *j, strbuf *words, size_t *count, const char **bad) {
  *bad = NULL;
  if (util_shell_words(j->o->tool_options, words, count))
    return handle_set_error(j->g, GPUBLOB_OPTION, "tool options '%s': a quote is not closed", j->o->tool_options);
  if (words->oom) return handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  strbuf mapped = {0};
  const char *w = sb_str(words);
  for (size_t i = 0; i < *count && !*bad; i++, w += strlen(w) + 1)
    if (!tool_choice_provider_option(j, w, &mapped)) *bad = w;
  sb_free(&mapped);
  return GPUBLOB_OK;
}

/* In-process mode takes the provider; program runs the spec's program.  Auto takes a
** provider that gives the program's bytes (the spec's provider_bytes = program: lld)
** wherever it is available, and otherwise runs the program, for every call size, so
** that a job's blob depends only on its own input and options (nvJitLink makes other
** code from the same assembly than ptxas); it takes any other provider only where the
** program is not found. */
static int wants_provider(const job *j) {
  return provider_ops_of(j->t) && !j->o->tool && j->o->tool_mode == GPUBLOB_TOOL_INPROCESS;
}

static int auto_takes_provider(const job *j) {
  const provider_ops *ops = provider_ops_of(j->t);
  return ops && !j->o->tool && j->o->tool_mode == GPUBLOB_TOOL_AUTO &&
         j->t->provider_bytes == PROVIDER_BYTES_program && (!ops->usable || ops->usable());
}

static int provider_stands_in(const job *j) {
  return provider_ops_of(j->t) && !j->o->tool && j->o->tool_mode == GPUBLOB_TOOL_AUTO;
}

GPUBLOB_PRIVATE const char *tool_choice_base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* A linked provider: its identity is its path; NOTOOL once it cannot run here. */
static int choose_linked(job *j, const provider_ops *ops, int load) {
  if (ops->usable && !ops->usable())
    return handle_set_error(j->g, GPUBLOB_NOTOOL, "%s (in-process, linked in) cannot run again in this process "
                     "after a fatal error; --tool-mode auto or program runs the program", ops->name);
  strbuf id = {0};
  sb_add(&id, ops->linked);
  if (id.oom) return handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  job_state_path_take(&j->provider_path, &id);
  int rc = load ? provider_load(j) : GPUBLOB_OK;
  if (!rc) j->tool_name = j->t->provider_name;
  else job_state_path_free(&j->provider_path);
  return rc;
}

/* The provider, found (and, with load, loaded): OK; NOTOOL, with its message, when it is not. */
static int choose_provider(job *j, int load) {
  const provider_ops *ops = provider_ops_of(j->t);
  if (ops->linked) return choose_linked(j, ops, load);
  search s = {0};
  int found = search_find_provider(j, &s);
  int rc = s.oom ? GPUBLOB_NOMEM : found ? GPUBLOB_OK : GPUBLOB_NOTOOL;
  if (rc == GPUBLOB_NOMEM) handle_set_error(j->g, rc, "out of memory");
  else if (rc)
    handle_set_error(j->g, rc, "%s (in-process, %s) not found for target %s; tried:%s", j->t->provider_lib,
              j->t->provider_name, j->t->name, search_tried_list(&s));
  else if (!rc) job_state_path_take(&j->provider_path, &s.found);
  search_end(&s);
  if (!rc && load) rc = provider_load(j);
  if (!rc) j->tool_name = j->t->provider_name;
  else job_state_path_free(&j->provider_path);
  return rc;
}

/* Auto's program is missing: the provider stands in when it is found and loads;
** else NOTOOL, naming the places tried for both. */
static int program_missing(job *j, int load) {
  strbuf program = {0}, provider = {0};
  sb_add(&program, sb_str(&j->g->msg));
  int rc = choose_provider(j, load);
  /* a stand-in is waited for here, so that its failure names the program's places too */
  if (!rc && j->prov && (rc = provider_ready(j))) j->prov = NULL;
  if (rc == GPUBLOB_NOTOOL) {
    sb_add(&provider, sb_str(&j->g->msg));
    handle_set_error(j->g, rc, "%s; nor %s", sb_str(&program), sb_str(&provider));
  }
  sb_free(&program);
  sb_free(&provider);
  return rc;
}

/* The provider in in-process mode, else the program (auto: the provider where it is missing).
** A missing blob tool fails the call before any compile work is spent; a provider
** that is found but does not load fails each job at its blob tool (its load runs
** beside the compile), except auto's stand-in, which is waited for here. */
GPUBLOB_PRIVATE int tool_choice_resolve_tool(job *j, int load) {
  j->tool_name = "";
  job_state_path_free(&j->provider_path);
  if (!tool_choice_needs_blob_tool(j)) return GPUBLOB_OK;
  strbuf words = {0};
  size_t count = 0;
  const char *bad = NULL;
  int split = tool_options_split(j, &words, &count, &bad);
  if (!split && bad && provider_ops_of(j->t) && j->o->tool_mode == GPUBLOB_TOOL_INPROCESS)
    split = handle_set_error(j->g, GPUBLOB_OPTION, "tool option '%s' has no counterpart in the in-process %s of target "
                      "%s (it maps: %s); use --tool-mode program", bad, j->t->provider_name, j->t->name,
                      *j->t->provider_options ? j->t->provider_options : "none");
  sb_free(&words);
  if (split) return split;
  if (wants_provider(j)) return choose_provider(j, load);
  if (auto_takes_provider(j) && !bad) {
    int rc = choose_provider(j, load);
    if (rc != GPUBLOB_NOTOOL) return rc;
    j->g->code = GPUBLOB_OK; /* not available: the program */
    sb_reset(&j->g->msg);
  }
  strbuf path = {0};
  int rc = search_find_tool_path(j, &path);
  if (!rc) {
    job_state_path_take(&j->tool, &path);
    j->tool_name = tool_choice_base_name(j->tool);
  }
  sb_free(&path);
  if (rc == GPUBLOB_NOTOOL && provider_stands_in(j) && !bad) rc = program_missing(j, load);
  return rc;
}

/* How j's pack is made: the spec's in-process pack provider (PACK_INPROCESS), unless
** --tool-mode program asks for the program (PACK_PROGRAM), which is then found into
** tool before any compile work.  The plan's (src/plan.c) and the toolchain identity's
** (src/toolchain_id.c). */
GPUBLOB_PRIVATE int tool_choice_pack_way(job *j, strbuf *tool, int *way) {
  *way = PACK_INPROCESS;
  if (j->o->tool_mode != GPUBLOB_TOOL_PROGRAM && j->t->pack_provider != PACK_PROVIDER_none) return GPUBLOB_OK;
  *way = PACK_PROGRAM;
  if (!*j->t->pack_tool)
    return handle_set_error(j->g, GPUBLOB_NOTOOL, "target %s has no pack program (pack_tool) for --tool-mode "
                     "program: its packs are made in-process (%s)", j->t->name, j->t->pack_provider_name);
  return search_find_pack_tool(j, tool);
}
