/* src/provider_run.c: A job's in-process blob tool: the provider's run, in a child of
** the isolation helper (src/provider_child.c), with the spec's provider_argv expanded
** for the job (tool_template_argv, src/tool.c).  A
** provider that reads and writes files (ops->files: lld) gets the job's private
** directory, as the program would: {in} holds the backend's output, {out} the blob. */

/* The CPU time of the calling thread: an in-process pack's own work (src/ir_call.c). */
GPUBLOB_PRIVATE double provider_run_thread_cpu_ms(void) { return util_clock_ms(CLOCK_THREAD_CPUTIME_ID); }

/* The job's private directory (removed by tool_end) with the backend's output written
** to its input file; vars' values become the two paths. */
static int provider_files(job *j, const char **vars) {
  toolrun *r = &j->run;
  int rc = tool_make_dir(j, &r->w);
  if (rc) return rc;
  r->made = 1;
  const char *dir = sb_str(&r->w.dir);
  sb_addf(&r->w.in, "%s/in%s", dir, j->t->emit == EMIT_asm ? j->t->suffix_asm : ".o");
  sb_addf(&r->w.out, "%s/out%s", dir, j->t->suffix_bin);
  if (r->w.in.oom || r->w.out.oom) return handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  if (io_write_file(sb_str(&r->w.in), j->out.data, j->out.size))
    return handle_set_error(j->g, GPUBLOB_IO, "cannot write %s: %s", sb_str(&r->w.in), strerror(errno));
  vars[1] = sb_str(&r->w.in);
  vars[3] = sb_str(&r->w.out);
  return GPUBLOB_OK;
}

/* The job's assembly or object (NUL-terminated by take_buffer) in, the blob out, by
** the loaded provider with provider_argv's words as its options. */
GPUBLOB_PRIVATE int provider_run(job *j) {
  const char *vars[] = {"in", "", "out", "", NULL};
  int files = j->prov->ops->files, rc = files ? provider_files(j, vars) : GPUBLOB_OK;
  if (rc) return rc;
  argvec args = {0};
  strbuf words = {0};
  size_t count = 0;
  tool_argv_add(&args, j, j->t->provider_argv, vars, NULL, NULL);
  util_shell_words(j->o->tool_options, &words, &count); /* each one mapped (tool_choice_resolve_tool checked) */
  const char *w = sb_str(&words);
  for (size_t i = 0; i < count; i++, w += strlen(w) + 1) args.argc += (size_t)tool_choice_provider_option(j, w, &args.text);
  sb_free(&words);
  if (!(j->flags & GPUBLOB_FLAG_NO_TOOL_REPORT))
    j->report_added = tool_report_argv_add(&args, j->t->provider_report_argv);
  const char **opts = (const char **)tool_argv_finish(&args);
  rc = GPUBLOB_NOMEM;
  if (!opts) handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  else rc = provider_child_run(j, opts, (uint32_t)args.argc); /* never on the host's threads */
  tool_argv_free(&args);
  if (!rc && files) rc = tool_read_output(j, sb_str(&j->run.w.out));
  return rc;
}
