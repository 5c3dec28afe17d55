/* src/options.c: The caller's options struct, read as far as its version goes, and a job begun
** and ended: the one place a job's buffers are made and freed. */

/* ---- one job: a module for one (target, chip), and the options it resolved ---- */

static const gpublob_options default_options = {.version = GPUBLOB_OPTIONS_VERSION};
#define OUTPUT_NEUTRAL_FLAGS ((unsigned)(GPUBLOB_FLAG_ISOLATE | GPUBLOB_FLAG_REMOTE_READ_ONLY))
enum { MAX_JOBS = 4096 }; /* in one call */

/* A caller's struct of an older version is read only as far as that version went;
** later fields read as zero.  Version 0 is version 1: a zeroed struct of the oldest
** layout means the defaults and is never read past its end. */
static size_t options_size(unsigned version) {
  static const size_t ends[] = {offsetof(gpublob_options, targets), offsetof(gpublob_options, targets),
                                offsetof(gpublob_options, jobs), offsetof(gpublob_options, tool_timeout),
                                offsetof(gpublob_options, abi), offsetof(gpublob_options, link),
                                offsetof(gpublob_options, remote_cache), offsetof(gpublob_options, job_timeout),
                                sizeof(gpublob_options)};
  return version < sizeof ends / sizeof *ends ? ends[version] : sizeof(gpublob_options);
}

static void options_normalise(const gpublob_options *o, gpublob_options *out) {
  memset(out, 0, sizeof *out);
  if (!o) o = &default_options;
  memcpy(out, o, options_size(o->version));
  /* normalised once, read as this version's layout; a newer one stays for check_version */
  if (out->version < GPUBLOB_OPTIONS_VERSION) out->version = GPUBLOB_OPTIONS_VERSION;
}

/* A path a job found (its tool, its provider's library): "" or its own malloc'd copy. */
static void job_path_free(const char **path) {
  if (**path) free((char *)*path);
  *path = "";
}

/* b's text becomes the job's path (b is left empty); "" when b holds none. */
static void job_path_take(const char **path, strbuf *b) {
  job_path_free(path);
  strbuf taken = sb_move(b);
  if (taken.len) *path = taken.s;
  else free(taken.s);
}

static void job_begin(job *j, gpublob *g, const gpublob_options *o, const char *name) {
  memset(j, 0, sizeof *j);
  j->tool = j->provider_path = "";
  j->g = j->host = g;
  options_normalise(o, &j->opts);
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

static void job_release_llvm(job *j);

static void job_end(job *j) {
  job_release_llvm(j);
  job_path_free(&j->tool);
  job_path_free(&j->provider_path);
  sb_free(&j->features);
  sb_free(&j->condfeat);
  sb_free(&j->diag);
  sb_free(&j->tool_log);
  sb_free(&j->dump);
  sb_free(&j->sink.msg);
  sb_free(&j->sink.warn);
  gpublob_blob_free(&j->out);
  gpublob_blob_free(&j->asm_out);
}
