/* src/pack.c: Packs: every chip's blob, and the newest chip's assembly, in one (fatbinary). */

/* ---- packs: every chip's blob, and the newest chip's assembly, in one (fatbinary) ---- */
typedef struct packing {
  job *const *members;
  size_t n;
  workdir w;
  int rc; /* a member's file could not be written (the error is in members[0]) */
} packing;

/* One image of member i: blob b written as DIR/i.suffix, then the words of tmpl for it. */
static int pack_image(packing *k, argvec *a, size_t i, const char *suffix, const gpublob_blob *b,
                      const char *tmpl) {
  gpublob *g = k->members[0]->g;
  strbuf in = {0};
  sb_addf(&in, "%s/%zu%s", sb_str(&k->w.dir), i, suffix);
  int rc = GPUBLOB_OK;
  if (in.oom) rc = set_error(g, GPUBLOB_NOMEM, "out of memory");
  else if (write_file(sb_str(&in), b->data, b->size))
    rc = set_error(g, GPUBLOB_IO, "cannot write a pack's image in %s: %s", sb_str(&k->w.dir), strerror(errno));
  else argv_add(a, k->members[i], tmpl, (const char *[]){"in", sb_str(&in), NULL}, NULL, NULL);
  sb_free(&in);
  return rc;
}

/* {images}: each member's blob, and the newest's assembly, as a file of the pack's
** directory, with the spec's words for it. */
static void pack_images(void *arg, argvec *a) {
  packing *k = arg;
  for (size_t i = 0; i < k->n && !k->rc; i++) {
    job *j = k->members[i];
    k->rc = pack_image(k, a, i, j->t->suffix_bin, &j->out, j->t->pack_image);
    if (!k->rc && j->keep_asm) k->rc = pack_image(k, a, i, j->t->suffix_asm, &j->asm_out, j->t->pack_asm_image);
  }
}

/* Runs the pack tool over the written images; its output becomes *out. */
static int pack_tool_run(job *first, char **argv, const workdir *w, gpublob_blob *out) {
  proc p;
  strbuf output = {0};
  int rc = tool_spawn(first, &p, argv, PROC_NONE, sb_str(&w->dir));
  if (!rc) rc = tool_wait(first, &p, argv[0], NULL, 0, &output);
  proc_end(&p);
  sb_free(&output);
  gpublob_blob saved = first->out;
  first->out = (gpublob_blob){0};
  if (!rc) rc = read_tool_output(first, sb_str(&w->out));
  if (!rc) rc = check_magic(first, &first->out, first->t->pack_magic, base_name(argv[0]), GPUBLOB_TOOL);
  if (!rc) {
    *out = first->out;
    out->suffix = first->t->suffix_pack;
  } else {
    gpublob_blob_free(&first->out);
  }
  first->out = saved;
  return rc;
}

/* One blob for the members of a pack, made by the spec's pack tool. */
static int pack_run(job *const *members, size_t n, const char *tool, gpublob_blob *out) {
  job *first = members[0];
  packing k = {.members = members, .n = n};
  int rc = make_dir(first, &k.w);
  if (rc) return rc;
  sb_addf(&k.w.out, "%s/out%s", sb_str(&k.w.dir), first->t->suffix_pack);
  const char *vars[] = {"tool", tool, "out", sb_str(&k.w.out), NULL};
  argvec args = {0};
  char **argv = template_argv(&args, first, first->t->pack_argv, vars, pack_images, &k);
  rc = k.rc;
  if (!rc && (!argv || k.w.out.oom)) rc = set_error(first->g, GPUBLOB_NOMEM, "out of memory");
  if (!rc) rc = pack_tool_run(first, argv, &k.w, out);
  workdir_remove(&k.w);
  argv_free(&args);
  return rc;
}
