/* src/pack.c: Packs: every chip's blob, and the newest chip's assembly, in one blob, by
** the spec's pack program (fatbinary, clang-offload-bundler) or its in-process pack
** provider (offload_bundle, src/pack_bundle.c).  A new pack provider is a part with its
** ops, and a line in pack_provider_registry. */

/* ---- the pack providers gpublob has ---- */
static const pack_provider_ops *const pack_provider_registry[] = {&pack_bundle_ops};

/* The target's pack provider, or NULL when the spec names none. */
GPUBLOB_PRIVATE const pack_provider_ops *pack_provider_of(const target_desc *t) {
  for (size_t i = 0; i < sizeof pack_provider_registry / sizeof *pack_provider_registry; i++)
    if (!strcmp(pack_provider_registry[i]->name, t->pack_provider_name)) return pack_provider_registry[i];
  return NULL;
}

/* ---- packs: every chip's blob, and the newest chip's assembly, in one ---- */
typedef struct packing {
  job *const *members;
  size_t n;
  workdir w;
  int dumped; /* the images are the members' dump files (the dump directory's pack script) */
  int rc;     /* a member's file could not be written (the error is in members[0]) */
} packing;

/* One image of member i: blob b written as DIR/i.suffix (dumped: the member's dump
** file what and suffix), then the words of tmpl for it. */
static int pack_image(packing *k, argvec *a, size_t i, const char *what, const char *suffix,
                      const gpublob_blob *b, const char *tmpl) {
  gpublob *g = k->members[0]->g;
  strbuf in = {0};
  if (k->dumped) sb_addf(&in, "%s%s%s", sb_str(&k->members[i]->dump), what, suffix);
  else sb_addf(&in, "%s/%zu%s", sb_str(&k->w.dir), i, suffix);
  int rc = GPUBLOB_OK;
  if (in.oom) rc = handle_set_error(g, GPUBLOB_NOMEM, "out of memory");
  else if (k->dumped) rc = dump_write_at(g, &in, "", b->data, b->size, 0666);
  else if (io_write_file(sb_str(&in), b->data, b->size))
    rc = handle_set_error(g, GPUBLOB_IO, "cannot write a pack's image in %s: %s", sb_str(&k->w.dir), strerror(errno));
  if (!rc) tool_argv_add(a, k->members[i], tmpl, (const char *[]){"in", sb_str(&in), NULL}, NULL, NULL);
  sb_free(&in);
  return rc;
}

/* {images}: each member's blob, and the newest's assembly, as a file of the pack's
** directory (or the members' 6-blob and 3-isa dump files), with the spec's words for it. */
static void pack_images(void *arg, argvec *a) {
  packing *k = arg;
  for (size_t i = 0; i < k->n && !k->rc; i++) {
    job *j = k->members[i];
    k->rc = pack_image(k, a, i, "6-blob", j->t->suffix_bin, &j->out, j->t->pack_image);
    if (!k->rc && j->keep_asm)
      k->rc = pack_image(k, a, i, "3-isa", j->t->suffix_asm, &j->asm_out, j->t->pack_asm_image);
  }
}

/* Runs the pack tool over the written images; its output becomes *out. */
static int pack_tool_run(job *const *members, size_t n, char **argv, const workdir *w, gpublob_blob *out) {
  job *first = members[0];
  proc p;
  strbuf output = {0};
  int rc = tool_spawn(first, &p, argv, PROC_NONE, sb_str(&w->dir));
  if (!rc) rc = tool_wait(first, &p, argv[0], NULL, 0, &output);
  proc_end(&p);
  sb_free(&output);
  gpublob_blob saved = first->out;
  first->out = (gpublob_blob){0};
  if (!rc) rc = tool_read_output(first, sb_str(&w->out));
  if (!rc) rc = magic_check_pack(members, n, &first->out, tool_choice_base_name(argv[0]));
  if (!rc) {
    *out = first->out;
    out->suffix = first->t->suffix_pack;
  } else {
    util_blob_release(&first->out);
  }
  first->out = saved;
  return rc;
}

/* The pack program over the members' images, written to files; {targets} is targets. */
static int pack_program(job *const *members, size_t n, const char *tool, const char *targets,
                        gpublob_blob *out) {
  job *first = members[0];
  packing k = {.members = members, .n = n};
  int rc = tool_make_dir(first, &k.w);
  if (rc) return rc;
  sb_addf(&k.w.out, "%s/out%s", sb_str(&k.w.dir), first->t->suffix_pack);
  const char *vars[] = {"tool", tool, "out", sb_str(&k.w.out), "targets", targets, NULL};
  argvec args = {0};
  char **argv = tool_template_argv(&args, first, first->t->pack_argv, vars, pack_images, &k);
  rc = k.rc;
  if (!rc && (!argv || k.w.out.oom)) rc = handle_set_error(first->g, GPUBLOB_NOMEM, "out of memory");
  if (!rc) rc = pack_tool_run(members, n, argv, &k.w, out);
  tool_workdir_remove(&k.w);
  tool_argv_free(&args);
  return rc;
}

/* The pack provider over the members' blobs, with the spec's pack_provider_argv. */
static int pack_in_process(job *const *members, size_t n, const pack_provider_ops *prov, char *const *ids,
                           gpublob_blob *out) {
  job *first = members[0];
  argvec opts = {0};
  char **o = tool_template_argv(&opts, first, first->t->pack_provider_argv, NULL, NULL, NULL);
  int rc = o ? prov->run(members, n, ids, o, opts.argc, out) : handle_set_error(first->g, GPUBLOB_NOMEM, "out of memory");
  if (!rc) rc = magic_check_pack(members, n, out, prov->name);
  if (rc) util_blob_release(out);
  else out->suffix = first->t->suffix_pack;
  tool_argv_free(&opts);
  return rc;
}

/* Each member's entry id (the spec's pack_target, one word each) into ids, and
** joined by commas into targets ({targets}); none when the spec has no pack_target. */
static int pack_ids(job *const *members, size_t n, argvec *ids, strbuf *targets) {
  for (size_t i = 0; i < n && *members[0]->t->pack_target; i++)
    tool_argv_add(ids, members[i], members[i]->t->pack_target, NULL, NULL, NULL);
  if (!tool_argv_finish(ids)) return handle_set_error(members[0]->g, GPUBLOB_NOMEM, "out of memory");
  if (ids->argc && ids->argc != n)
    return handle_set_error(members[0]->g, GPUBLOB_OPTION, "pack_target '%s' gives no single id per chip",
                     members[0]->t->pack_target);
  for (size_t i = 0; i < ids->argc; i++) sb_addf(targets, "%s%s", i ? "," : "", ids->argv[i]);
  return targets->oom ? handle_set_error(members[0]->g, GPUBLOB_NOMEM, "out of memory") : GPUBLOB_OK;
}

/* ---- the dump directory's pack script ---- */
/* STEM.TARGET.CHIP+CHIP.: the first member's names with every member's chip. */
static void pack_dump_prefix(job *const *members, size_t n, strbuf *prefix) {
  const char *d = sb_str(&members[0]->dump), *end = d + members[0]->dump.len - 1; /* its last '.' */
  while (end > d && end[-1] != '.') end--; /* the chip's start: safe chip names have no '.' */
  sb_addn(prefix, d, (size_t)(end - d));
  for (size_t i = 0; i < n; i++) {
    char part[256] = "";
    safe_chip_name(part, sizeof part, members[i]->chip, strlen(members[i]->chip));
    sb_addf(prefix, "%s%s", i ? "+" : "", part);
  }
  sb_add(prefix, ".");
}

/* 7-pack.sh: the pack program over the members' blobs (written as their 6-blob
** dump files) and the newest's ISA, writing 7-pack.SUFFIX beside them; for the
** in-process pack step, its options in a comment and the program's equivalent,
** where it is found.  Written before the pack is made. */
static int pack_dump_script(job *const *members, size_t n, const char *tool, const pack_provider_ops *prov,
                            const char *targets) {
  job *first = members[0];
  if (!first->dump.len) return GPUBLOB_OK;
  strbuf prefix = {0}, sh = {0}, prog = {0}, out = {0};
  argvec args = {0}, opts = {0};
  pack_dump_prefix(members, n, &prefix);
  sb_addf(&sh, "#!/bin/sh\n# gpublob %s: the pack of %s for %s, from the members' dumped blobs (6-blob files), "
          "writing it beside them.\n", GPUBLOB_VERSION_STRING, first->name, first->t->name);
  if (prov) {
    sb_addf(&prog, "The pack was made in-process by %s", prov->name);
    dump_sh_options(&sh, sb_str(&prog), tool_template_argv(&opts, first, first->t->pack_provider_argv, NULL, NULL, NULL));
    sb_reset(&prog);
    if (*first->t->pack_tool) dump_find_quietly(first, search_find_pack_tool, &prog);
    tool = sb_str(&prog);
    sb_addf(&sh, "# %s\n", *tool ? "The program's equivalent command line:" : "No pack program was found.");
  }
  sb_addf(&out, "%s7-pack%s", sb_str(&prefix), first->t->suffix_pack);
  packing k = {.members = members, .n = n, .dumped = 1};
  const char *vars[] = {"tool", tool, "out", sb_str(&out), "targets", targets, NULL};
  char **argv = *tool ? tool_template_argv(&args, first, first->t->pack_argv, vars, pack_images, &k) : NULL;
  int rc = k.rc;
  if (!rc) dump_sh_exec(&sh, argv);
  if (!rc && (sh.oom || prefix.oom || out.oom || (*tool && !argv))) rc = handle_set_error(first->g, GPUBLOB_NOMEM, "out of memory");
  if (!rc) rc = dump_write_at(first->g, &prefix, "7-pack.sh", sh.s, sh.len, 0777);
  tool_argv_free(&args);
  tool_argv_free(&opts);
  sb_free(&prefix);
  sb_free(&sh);
  sb_free(&prog);
  sb_free(&out);
  return rc;
}

/* One blob for the members of a pack: by the pack provider when the plan chose it,
** else by the pack program found at tool. */
GPUBLOB_PRIVATE int pack_run(job *const *members, size_t n, const char *tool, const pack_provider_ops *prov,
                    gpublob_blob *out) {
  argvec ids = {0};
  strbuf targets = {0};
  int rc = pack_ids(members, n, &ids, &targets);
  if (!rc) rc = pack_dump_script(members, n, tool, prov, sb_str(&targets));
  if (!rc) rc = prov ? pack_in_process(members, n, prov, ids.argv, out)
                     : pack_program(members, n, tool, sb_str(&targets), out);
  tool_argv_free(&ids);
  sb_free(&targets);
  return rc;
}
