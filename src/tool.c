/* src/tool.c: The blob tool: a private directory and an argv from the spec's template. */

/* ---- the blob tool: spawned with an argv in a private directory, output kept ---- */
static int write_file(const char *path, const void *data, size_t n) {
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  int rc = write_all_fd(fd, data, n), err = errno;
  if (close(fd) && !rc) rc = -1, err = errno;
  errno = err;
  return rc;
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

/* An argv template expanded and split on blanks (no shell); {images} stands for
** words that images() adds.  The strings live in store. */
typedef void (*word_adder)(void *arg, strbuf *store, size_t *count);

static char **expand_argv(const job *j, const char *tmpl, const char **vars, word_adder images, void *arg,
                          strbuf *store) {
  const char *w;
  size_t n, count = 0;
  while ((w = next_word(&tmpl, " ", &n))) {
    if (images && word_is(w, n, "{images}")) {
      images(arg, store, &count);
      continue;
    }
    expand(j, w, n, vars, store);
    sb_addn(store, "", 1); /* the NUL itself separates the words */
    count++;
  }
  char **argv = store->oom ? NULL : calloc(count + 1, sizeof *argv);
  char *p = store->s;
  for (size_t i = 0; argv && i < count; i++, p += strlen(p) + 1) argv[i] = p;
  return argv;
}

static char **build_argv(job *j, const char *tool, const workdir *w, strbuf *store) {
  const char *vars[] = {"tool", tool, "in", w->in, "out", w->out, NULL};
  return expand_argv(j, j->t->tool_argv, vars, NULL, NULL, store);
}
