/* src/provider_run.c: A job's in-process blob tool: the loaded provider's run, with
** the spec's provider_argv expanded for the job (template_argv, src/tool.c). */

/* The CPU time of the calling thread: an in-process tool's own work. */
static double thread_cpu_ms(void) { return clock_ms(CLOCK_THREAD_CPUTIME_ID); }

/* The job's assembly (NUL-terminated by take_buffer) in, the blob out, by the
** loaded provider with provider_argv's words as its options. */
static int provider_run(job *j) {
  argvec args = {0};
  strbuf words = {0};
  size_t count = 0;
  argv_add(&args, j, j->t->provider_argv, NULL, NULL, NULL);
  shell_words(j->o->tool_options, &words, &count); /* each one mapped (resolve_tool checked) */
  const char *w = sb_str(&words);
  for (size_t i = 0; i < count; i++, w += strlen(w) + 1) args.argc += (size_t)provider_option(j, w, &args.text);
  sb_free(&words);
  const char **opts = (const char **)argv_finish(&args);
  int rc = GPUBLOB_NOMEM;
  if (!opts) set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  else {
    double cpu = thread_cpu_ms(); /* the provider works on this thread */
    rc = j->prov->ops->run(j, j->prov, opts, (uint32_t)args.argc);
    j->tool_cpu_ms += thread_cpu_ms() - cpu;
  }
  argv_free(&args);
  return rc;
}
