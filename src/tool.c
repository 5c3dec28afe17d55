/* src/tool.c: The blob tool's life, in one part: its private directory, its argv from the
** spec's template, its start (a process of src/proc.c, the part below this one), its wait
** within the tool timeout, its outcome as the job's error, and its output read back; and
** the templates' argvs, which the pack program and the provider's options use too. */

/* ---- the blob tool: its private directory ---- */
/* The suffix of the job's bin blob: the tool's own (tool_suffix) when it makes it. */
GPUBLOB_PRIVATE const char *tool_blob_suffix(const job *j) {
  return tool_choice_needs_blob_tool(j) && *j->t->tool_suffix ? j->t->tool_suffix : j->t->suffix_bin;
}

GPUBLOB_PRIVATE void tool_workdir_free(workdir *w) {
  if (w->lock > 0) close(w->lock);
  w->lock = -1;
  sb_free(&w->dir);
  sb_free(&w->in);
  sb_free(&w->out);
}

GPUBLOB_PRIVATE void tool_workdir_remove(workdir *w) {
  live_enter_dir_remove(w->live);
  w->live = -1;
  live_remove_tree(sb_str(&w->dir));
  tool_workdir_free(w);
}

/* TMPDIR/gpublob-PID-START-XXXXXX (src/tmp_sweep.c), made and entered in the table
** of live directories (whose slots hold LIVE_PATH bytes: a longer path is refused,
** not cut); on an error nothing of it is left.  The first one a process makes sweeps
** the stale ones of makers that are gone. */
GPUBLOB_PRIVATE int tool_make_dir(job *j, workdir *w) {
  const char *tmp = getenv("TMPDIR");
  tmp = tmp && *tmp ? tmp : "/tmp";
  tmp_sweep_stale_dirs(tmp);
  sb_addf(&w->dir, "%s/", tmp);
  tmp_sweep_workdir_prefix(&w->dir);
  sb_add(&w->dir, "XXXXXX");
  int rc = GPUBLOB_OK;
  if (w->dir.oom) rc = handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  else if (w->dir.len >= LIVE_PATH)
    rc = handle_set_error(j->g, GPUBLOB_IO, "cannot make a temporary directory %s: its path is longer than %d bytes",
                   sb_str(&w->dir), LIVE_PATH - 1);
  else if (!mkdtemp(w->dir.s))
    rc = handle_set_error(j->g, GPUBLOB_IO, "cannot make a temporary directory %s: %s", sb_str(&w->dir),
                   strerror(errno));
  if (rc) tool_workdir_free(w);
  else {
    w->live = live_enter_dir_add(sb_str(&w->dir));
    tmp_sweep_workdir_lock(w);
  }
  return rc;
}

/* Whether the tool reads its input from a file in its private directory: the spec's
** tool_input = file, and any tool started once the backend's output is there (one
** started early again, for an isa_conditions that holds: ptxas -g).  A file's name is
** the same each run; a tool that copies its stdin to a temporary file of its own may
** record that copy's name in the blob (ptxas -g: tmpxft_<pid>_..._stdin in the
** cubin's .note.nv.tkinfo), and a pipe cannot be read twice (ptxas -g reads its input
** again for the PTX text it keeps, .nv_debug_ptx_txt). */
static int tool_reads_file(const job *j) {
  return j->t->tool_input == INPUT_file || j->out.data;
}

/* The job's private directory, and the paths of the tool's input (a file where file)
** and output. */
static int make_workdir(job *j, workdir *w, int file) {
  int rc = tool_make_dir(j, w);
  if (rc) return rc;
  const char *dir = sb_str(&w->dir), *suffix = j->t->emit == EMIT_asm ? j->t->suffix_asm : ".o";
  sb_addf(&w->out, "%s/out%s", dir, tool_blob_suffix(j));
  if (file) sb_addf(&w->in, "%s/in%s", dir, suffix);
  else if (j->t->tool_input == INPUT_stdin) sb_add(&w->in, "-");
  else sb_add(&w->in, "/dev/fd/3");
  if (!w->in.oom && !w->out.oom) return GPUBLOB_OK;
  tool_workdir_remove(w);
  return handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory");
}

/* ---- templates as argvs: the blob tool's, the pack tool's, the provider's options ---- */

/* The words of a template, split on blanks (no shell) and each expanded, added to a. */
GPUBLOB_PRIVATE void tool_argv_add(argvec *a, const job *j, const char *tmpl, const char **vars, tool_word_adder images,
                     void *arg) {
  const char *w;
  size_t n;
  while ((w = util_next_word(&tmpl, " ", &n))) {
    if (images && util_word_is(w, n, "{images}")) {
      images(arg, a);
      continue;
    }
    size_t at = a->text.len;
    template_expand(j, w, n, vars, &a->text);
    if (a->text.len == at && n > 4 && !strncmp(w, "{if:", 4) && template_closing_brace(w, w + n) == w + n - 1)
      continue; /* a word that is one {if:..} and gives nothing is no word ({if:debug:-g:}) */
    sb_addn(&a->text, "", 1); /* the NUL itself separates the words */
    a->argc++;
  }
}

/* The words added so far as an argv, NULL-ended; NULL when out of memory. */
GPUBLOB_PRIVATE char **tool_argv_finish(argvec *a) {
  a->argv = a->text.oom ? NULL : calloc(a->argc + 1, sizeof *a->argv);
  char *p = a->text.s;
  for (size_t i = 0; a->argv && i < a->argc; i++) {
    a->argv[i] = p;
    p += strlen(p) + 1;
  }
  return a->argv;
}

/* A template as an argv, NULL-ended, its strings in a->text; NULL when out of memory. */
GPUBLOB_PRIVATE char **tool_template_argv(argvec *a, const job *j, const char *tmpl, const char **vars,
                            tool_word_adder images, void *arg) {
  tool_argv_add(a, j, tmpl, vars, images, arg);
  return tool_argv_finish(a);
}

GPUBLOB_PRIVATE void tool_argv_free(argvec *a) {
  free(a->argv);
  sb_free(&a->text);
  memset(a, 0, sizeof *a);
}

/* The caller's words for the blob tool (the options' tool_options, split as a shell
** splits them, an MLIR attribute's after them) added to a; -1 for an unterminated quote. */
static int argv_add_tool_options(argvec *a, const job *j) {
  size_t n = 0;
  int rc = util_shell_words(j->o->tool_options, &a->text, &n);
  a->argc += n;
  return rc;
}

/* The spec's tool_argv, then the caller's tool options: as words of their own, or,
** where the template has {tooloptions}, joined by blanks into that one word (ocloc's
** -options takes them so). */
GPUBLOB_PRIVATE char **tool_build_argv(job *j, const char *tool, const workdir *w, argvec *a) {
  strbuf stem = {0}, joined = {0}; /* {outstem}: {out} without the blob's suffix, for a tool that adds it */
  sb_addn(&stem, sb_str(&w->out), w->out.len - strlen(tool_blob_suffix(j)));
  int one_word = strstr(j->t->tool_argv, "{tooloptions}") != NULL;
  size_t n = 0;
  if (one_word && !util_shell_words(j->o->tool_options, &joined, &n)) /* checked when the tool was chosen */
    for (size_t i = 0; i + 1 < joined.len; i++)
      if (!joined.s[i]) joined.s[i] = ' ';
  const char *vars[] = {"tool", tool, "in", sb_str(&w->in), "out", sb_str(&w->out), "outstem", sb_str(&stem),
                        "tooloptions", sb_str(&joined), NULL};
  tool_argv_add(a, j, j->t->tool_argv, vars, NULL, NULL);
  if (!one_word) argv_add_tool_options(a, j);
  if (!(j->flags & GPUBLOB_FLAG_NO_TOOL_REPORT)) j->report_added = tool_report_argv_add(a, j->t->tool_report_argv);
  sb_free(&stem);
  sb_free(&joined);
  return tool_argv_finish(a);
}

/* ---- the blob tool run: started, waited for, its output read back, ended ---- */
/* The tool memory bound in bytes (0: none). */
GPUBLOB_PRIVATE unsigned long long tool_memory_bytes(unsigned mib) {
  return (unsigned long long)(mib ? mib : GPUBLOB_TOOL_MEMORY_DEFAULT) << 20;
}

GPUBLOB_PRIVATE double tool_timeout_ms(const job *j) {
  return 1000.0 * (j->o->tool_timeout ? j->o->tool_timeout : GPUBLOB_TOOL_TIMEOUT_DEFAULT);
}

/* The outcome of a wait as the job's error, or OK for a clean exit. */
static int tool_outcome(job *j, const char *tool, int waited, int status, const strbuf *output) {
  if (waited == WAIT_TIMEOUT) {
    handle_set_error(j->g, GPUBLOB_TOOL, "%s for %s:%s did not finish within %.0f s (the tool timeout, "
              "--tool-timeout): killed with its process group", tool, j->t->name, j->chip,
              tool_timeout_ms(j) / 1000);
    handle_add_detail(j->g, sb_str(output));
    return GPUBLOB_TOOL;
  }
  if (waited == WAIT_LOST)
    return handle_set_error(j->g, GPUBLOB_TOOL, "lost the exit status of %s (%s): does the program reap child "
                     "processes?", tool, strerror(ECHILD));
  if (!status) return GPUBLOB_OK;
  const char *oom = strstr(sb_str(output), "out of memory") || strstr(sb_str(output), "bad_alloc")
                        ? ", out of memory: the tool memory bound is" : NULL;
  char bound[96] = "";
  if (oom) snprintf(bound, sizeof bound, "%s %llu MiB (tool_memory, --tool-memory)", oom,
                    tool_memory_bytes(j->o->tool_memory) >> 20);
  if (WIFSIGNALED(status))
    handle_set_error(j->g, GPUBLOB_TOOL, "%s for %s:%s was killed by signal %d (%s)%s", tool, j->t->name, j->chip,
              WTERMSIG(status), strsignal(WTERMSIG(status)), bound);
  else
    handle_set_error(j->g, GPUBLOB_TOOL, "%s for %s:%s exited with status %d%s", tool, j->t->name, j->chip,
              WEXITSTATUS(status), bound);
  handle_add_detail(j->g, sb_str(output));
  return GPUBLOB_TOOL;
}

/* A tool started, in its own process group (proc_spawn); else the job's error. */
GPUBLOB_PRIVATE int tool_spawn(job *j, proc *p, char **argv, enum proc_input mode, const char *dir) {
  int err = proc_spawn(p, argv, mode, dir, tool_memory_bytes(j->o->tool_memory));
  if (err) return handle_set_error(j->g, GPUBLOB_TOOL, "cannot run %s: %s", argv[0], strerror(err));
  return GPUBLOB_OK;
}

/* Its input fed, its exit waited for (within the tool timeout), the outcome the
** job's error; its output in output. */
GPUBLOB_PRIVATE int tool_wait(job *j, proc *p, const char *tool, const void *input, size_t n, strbuf *output) {
  int status = 0;
  int waited = proc_wait(p, input, n, tool_timeout_ms(j), output, &status);
  j->tool_cpu_ms += p->cpu_ms; /* the tool's own work, not only the wait for it */
  return tool_outcome(j, tool, waited, status, output);
}

GPUBLOB_PRIVATE int tool_read_output(job *j, const char *path) {
  unsigned char *data;
  size_t size;
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) || io_read_fd(fd, &data, &size, (size_t)-1)) {
    if (fd >= 0) close(fd);
    return handle_set_error(j->g, GPUBLOB_TOOL, "the blob tool exited 0 but wrote no %s", path);
  }
  close(fd);
  if (!size) {
    free(data);
    return handle_set_error(j->g, GPUBLOB_TOOL, "the blob tool exited 0 but wrote an empty %s", path);
  }
  util_blob_release(&j->out);
  j->out.data = data;
  j->out.size = size;
  j->out.suffix = tool_blob_suffix(j);
  return GPUBLOB_OK;
}

static enum proc_input proc_input_of(const job *j, int file) {
  return file ? PROC_NONE : j->t->tool_input == INPUT_stdin ? PROC_STDIN : PROC_PIPE3;
}

/* Starts the tool.  A file tool starts once its input file is written; a stdin or
** pipe tool starts before the backend runs and waits for its input (started again
** after it, it reads a file: tool_reads_file). */
GPUBLOB_PRIVATE int tool_start(job *j) {
  toolrun *r = &j->run;
  int file = r->file = tool_reads_file(j);
  int rc = make_workdir(j, &r->w, file);
  if (rc) return rc;
  r->made = 1;
  if (file && io_write_file(sb_str(&r->w.in), j->out.data, j->out.size))
    return handle_set_error(j->g, GPUBLOB_IO, "cannot write %s: %s", sb_str(&r->w.in), strerror(errno));
  char **argv = tool_build_argv(j, j->tool, &r->w, &r->args);
  if (!argv) return handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  return tool_spawn(j, &r->p, argv, proc_input_of(j, file), sb_str(&r->w.dir));
}

/* Hands the backend's output to the tool (unless a file did), waits for its exit. */
GPUBLOB_PRIVATE int tool_finish(job *j) {
  toolrun *r = &j->run;
  int rc = tool_wait(j, &r->p, r->args.argv[0], j->out.data, r->file ? 0 : j->out.size, &r->output);
  return rc ? rc : tool_read_output(j, sb_str(&r->w.out));
}

/* Stops a tool still running (after an error) and removes its directory. */
GPUBLOB_PRIVATE void tool_end(job *j) {
  toolrun *r = &j->run;
  proc_end(&r->p);
  if (r->made) tool_workdir_remove(&r->w);
  tool_argv_free(&r->args);
  sb_free(&r->output);
  memset(r, 0, sizeof *r);
  r->p = (proc){0, -1, -1, -1, 0};
  r->w.live = -1;
  r->w.lock = -1;
}

GPUBLOB_PRIVATE int tool_early(const job *j) {
  return tool_choice_needs_blob_tool(j) && !*j->provider_path && j->t->tool_input != INPUT_file;
}
