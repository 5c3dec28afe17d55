/* src/tool.c: The blob tool: a private directory and an argv from the spec's template. */

/* ---- the blob tool: spawned with an argv in a private directory, output kept ---- */
static int write_file(const char *path, const void *data, size_t n) {
  return write_new_file(AT_FDCWD, path, NULL, 0, data, n);
}

static int make_workdir(job *j, workdir *w) {
  const char *tmp = getenv("TMPDIR");
  snprintf(w->dir, sizeof w->dir, "%s/gpublob-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(w->dir))
    return set_error(j->g, GPUBLOB_IO, "cannot make a temporary directory %s: %s", w->dir,
                     strerror(errno));
  w->live = live_dir_add(w->dir);
  snprintf(w->out, sizeof w->out, "%s/out%s", w->dir, j->t->suffix_bin);
  const char *suffix = j->t->emit == EMIT_asm ? j->t->suffix_asm : ".o";
  if (j->t->tool_input == INPUT_stdin) snprintf(w->in, sizeof w->in, "-");
  else if (j->t->tool_input == INPUT_pipe) snprintf(w->in, sizeof w->in, "/dev/fd/3");
  else snprintf(w->in, sizeof w->in, "%s/in%s", w->dir, suffix);
  return GPUBLOB_OK;
}

static void workdir_remove(workdir *w) {
  live_dir_remove(w->live);
  w->live = -1;
  remove_tree(w->dir);
}

/* ---- templates as argvs: the blob tool's, the pack tool's, the provider's options ---- */
/* {images} stands for the words images() adds (a pack's members). */
typedef void (*word_adder)(void *arg, argvec *a);

/* The words of a template, split on blanks (no shell) and each expanded, added to a. */
static void argv_add(argvec *a, const job *j, const char *tmpl, const char **vars, word_adder images,
                     void *arg) {
  const char *w;
  size_t n;
  while ((w = next_word(&tmpl, " ", &n))) {
    if (images && word_is(w, n, "{images}")) {
      images(arg, a);
      continue;
    }
    expand(j, w, n, vars, &a->text);
    sb_addn(&a->text, "", 1); /* the NUL itself separates the words */
    a->argc++;
  }
}

/* A template as an argv, NULL-ended, its strings in a->text; NULL when out of memory. */
static char **template_argv(argvec *a, const job *j, const char *tmpl, const char **vars,
                            word_adder images, void *arg) {
  argv_add(a, j, tmpl, vars, images, arg);
  a->argv = a->text.oom ? NULL : calloc(a->argc + 1, sizeof *a->argv);
  char *p = a->text.s;
  for (size_t i = 0; a->argv && i < a->argc; i++) {
    a->argv[i] = p;
    p += strlen(p) + 1;
  }
  return a->argv;
}

static void argv_free(argvec *a) {
  free(a->argv);
  sb_free(&a->text);
  memset(a, 0, sizeof *a);
}

static char **build_argv(job *j, const char *tool, const workdir *w, argvec *a) {
  const char *vars[] = {"tool", tool, "in", w->in, "out", w->out, NULL};
  return template_argv(a, j, j->t->tool_argv, vars, NULL, NULL);
}
