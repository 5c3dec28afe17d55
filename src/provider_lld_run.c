/* src/provider_lld_run.c: The lld provider's run: src/lld.cpp's C interface, called
** with provider_argv's words ({in} and {out}: files in the job's private directory,
** src/provider_run.c), in a child process of the isolation helper
** (src/provider_child.c).  lld's own message is the job's TOOL error. */
#if GPUBLOB_LLD

GPUBLOB_PRIVATE int provider_lld_run_usable(void) { return gpublob__lld_usable(); }

GPUBLOB_PRIVATE int provider_lld_run(job *j, const provider *p, const char **opts, uint32_t nopts) {
  char *log = NULL;
  int fatal = 0;
  int r = gpublob__lld_elf((int)nopts, opts, &log, &fatal);
  const char *text = log ? log : "";
  int rc = GPUBLOB_OK;
  if (r) {
    handle_set_error(j->g, GPUBLOB_TOOL, "lld (in-process) for %s:%s %s", j->t->name, j->chip,
              fatal ? "failed fatally" : "failed");
    handle_add_detail(j->g, text);
    rc = GPUBLOB_TOOL;
  } else {
    sb_add(&j->run.output, text); /* the tool's output, as a program's (GPUBLOB_FLAG_TOOL_LOG's) */
  }
  free(log);
  (void)p;
  return rc;
}

/* lld's first run in a process costs some ten times its next; two runs that make no
** file (its version; a link of no input, an error) do most of that once, in the
** isolation helper, so that every tool child forked after starts warm. */
GPUBLOB_PRIVATE void provider_lld_run_warm(void) {
  static const char *const version[] = {"ld.lld", "--version"};
  static const char *const nothing[] = {"ld.lld", "-shared", "-o", "/dev/null"};
  char *log = NULL;
  int fatal = 0;
  gpublob__lld_elf(2, version, &log, &fatal);
  free(log);
  log = NULL;
  if (!fatal) gpublob__lld_elf(4, nothing, &log, &fatal);
  free(log);
}
#endif
