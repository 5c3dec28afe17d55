/* src/pack.c: Packs: every chip's blob, and the newest chip's assembly, in one (fatbinary). */

/* ---- packs: every chip's blob, and the newest chip's assembly, in one (fatbinary) ---- */
typedef struct packing {
  job *const *members;
  size_t n;
  workdir w;
  int failed; /* a member's file could not be written (the error is in members[0]) */
} packing;

/* {images}: each member's blob, and the newest's assembly, as a file of the pack's
** directory, with the spec's words for it. */
static void pack_images(void *arg, argvec *a) {
  packing *k = arg;
  job *first = k->members[0];
  for (size_t i = 0; i < k->n && !k->failed; i++) {
    job *j = k->members[i];
    char in[4300];
    snprintf(in, sizeof in, "%s/%zu%s", k->w.dir, i, j->t->suffix_bin);
    if ((k->failed = write_file(in, j->out.data, j->out.size) != 0)) break;
    argv_add(a, j, j->t->pack_image, (const char *[]){"in", in, NULL}, NULL, NULL);
    if (!j->keep_asm) continue;
    snprintf(in, sizeof in, "%s/%zu%s", k->w.dir, i, j->t->suffix_asm);
    if ((k->failed = write_file(in, j->asm_out.data, j->asm_out.size) != 0)) break;
    argv_add(a, j, j->t->pack_asm_image, (const char *[]){"in", in, NULL}, NULL, NULL);
  }
  if (k->failed) set_error(first->g, GPUBLOB_IO, "cannot write a pack's image in %s: %s", k->w.dir, strerror(errno));
}

/* Runs the pack tool over the written images; its output becomes *out. */
static int pack_tool_run(job *first, char **argv, const workdir *w, gpublob_blob *out) {
  proc p;
  strbuf output = {0};
  int rc = tool_spawn(first, &p, argv, PROC_NONE, w->dir);
  if (!rc) rc = tool_wait(first, &p, argv[0], NULL, 0, &output);
  proc_end(&p);
  sb_free(&output);
  gpublob_blob saved = first->out;
  first->out = (gpublob_blob){0};
  if (!rc) rc = read_tool_output(first, w->out);
  if (!rc) rc = check_magic(first, &first->out, first->t->pack_magic, base_name(argv[0]), GPUBLOB_TOOL);
  if (!rc) *out = first->out, out->suffix = first->t->suffix_pack;
  else gpublob_blob_free(&first->out);
  first->out = saved;
  return rc;
}

/* One blob for the members of a pack, made by the spec's pack tool. */
static int pack_run(job *const *members, size_t n, const char *tool, gpublob_blob *out) {
  job *first = members[0];
  packing k = {.members = members, .n = n};
  if (make_workdir(first, &k.w)) return first->g->code;
  snprintf(k.w.out, sizeof k.w.out, "%s/out%s", k.w.dir, first->t->suffix_pack);
  const char *vars[] = {"tool", tool, "out", k.w.out, NULL};
  argvec args = {0};
  char **argv = template_argv(&args, first, first->t->pack_argv, vars, pack_images, &k);
  int rc = k.failed ? first->g->code : !argv ? set_error(first->g, GPUBLOB_NOMEM, "out of memory") : GPUBLOB_OK;
  if (!rc) rc = pack_tool_run(first, argv, &k.w, out);
  workdir_remove(&k.w);
  argv_free(&args);
  return rc;
}
