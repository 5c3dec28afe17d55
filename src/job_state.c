/* src/job_state.c: A job begun and ended: the one place a job's buffers are made and
** freed (its options a copy of the call's, settled by src/options.c where the call
** entered). */

/* ---- one job: begun with its options, ended with everything it holds ---- */
/* A path a job found (its tool, its provider's library): "" or its own malloc'd copy. */
GPUBLOB_PRIVATE void job_state_path_free(const char **path) {
  if (**path) free((char *)*path);
  *path = "";
}

/* b's text becomes the job's path (b is left empty); "" when b holds none. */
GPUBLOB_PRIVATE void job_state_path_take(const char **path, strbuf *b) {
  job_state_path_free(path);
  strbuf taken = sb_move(b);
  if (taken.len) *path = taken.s;
  else free(taken.s);
}

/* o: settled options (options_normalise), copied for the job to narrow; NULL: the defaults. */
GPUBLOB_PRIVATE void job_state_begin(job *j, gpublob *g, const gpublob_options *o, const char *name) {
  memset(j, 0, sizeof *j);
  j->tool = j->provider_path = "";
  j->g = j->host = g;
  j->opts = o ? *o : options_default;
  j->o = &j->opts;
  j->name = name ? name : "<memory>";
  j->abi_from = "from the options";
  j->run.p = (proc){0, -1, -1, -1, 0};
  j->run.w.live = -1;
  j->run.w.lock = -1;
  j->object_flags = -1;
  g->code = GPUBLOB_OK;
  sb_reset(&g->msg);
}

GPUBLOB_PRIVATE void job_state_end(job *j) {
  llvm_job_release(j);
  job_state_path_free(&j->tool);
  job_state_path_free(&j->provider_path);
  sb_free(&j->features);
  sb_free(&j->condfeat);
  sb_free(&j->mllvm);
  sb_free(&j->diag);
  sb_free(&j->tool_log);
  sb_free(&j->report);
  sb_free(&j->dump);
  sb_free(&j->kernels);
  sb_free(&j->sink.msg);
  sb_free(&j->sink.warn);
  util_blob_release(&j->out);
  util_blob_release(&j->asm_out);
}
