/* src/meta_output.c: An output's kernels: which reader reads it, by its target and its
** suffix (a bin blob's, src/meta_blob.c; a pack's, src/meta_pack.c), or by its magic
** for LLVM's OffloadBinary (src/offload.c: each entry by its own target); FORMAT for
** what records none. */

/* ---- an output: its target's reader for a bin blob or a pack ---- */
/* The kernels of output o: its target's reader for a bin blob or a pack; FORMAT for
** any other output (assembly, bitcode, MLIR's module, a target without a reader). */
static int read_output_kernels(gpublob *g, const gpublob_output *o, ktable *kt) {
  const target_desc *t = o->target ? resolve_target_named(o->target, strlen(o->target)) : NULL;
  const char *suffix = o->blob.suffix ? o->blob.suffix : "";
  if (!t && o->target && *o->target)
    return handle_set_error(g, GPUBLOB_FORMAT, "the output's target '%.64s' is none of the spec's", o->target);
  if (!t) return handle_set_error(g, GPUBLOB_FORMAT, "the output holds no kernel metadata (MLIR's whole module: its "
                           "kernels are in each #gpu.object's kernel table)");
  const unsigned char *p = o->blob.data ? o->blob.data : (const unsigned char *)"";
  if (*t->suffix_pack && !strcmp(suffix, t->suffix_pack)) {
    if (t->pack_metadata == PACK_METADATA_offload_bundle) return meta_pack_read_bundle(g, t, p, o->blob.size, kt);
    if (t->pack_metadata == PACK_METADATA_fatbin)
      return meta_pack_read_fatbin(g, t, p, o->blob.size, o->chip ? o->chip : "", kt);
    return handle_set_error(g, GPUBLOB_FORMAT, "a %s pack (%s) records no kernel metadata gpublob reads", t->name, suffix);
  }
  if (strcmp(suffix, t->suffix_bin))
    return handle_set_error(g, GPUBLOB_FORMAT, "a %s output of format %s records no kernel metadata (only the bin "
                     "blob and the pack do)", t->name, *suffix ? suffix : "(none)");
  return meta_blob_read_kernels(g, t, p, o->blob.size, o->chip ? o->chip : "", kt);
}

/* ---- an output's kernels, with what gpublob kept of it ---- */
/* Output o's kernels, its tool's report (src/output_report.c) merged into them, their
** occupancy figured from their chips' limits in the spec (src/occupancy.c) for blocks
** of block_size threads (0: each kernel's own limit, else 1024). */
GPUBLOB_PRIVATE int meta_output_kernels(gpublob *g, const gpublob_output *o, const char *report, unsigned block_size,
                          ktable *kt) {
  if (offload_is(o->blob.data, o->blob.size)) { /* each entry by its own target (src/offload.c) */
    int rc = offload_read_kernels(g, o->blob.data, o->blob.size, block_size, kt);
    if (!rc) output_report_merge(kt, report);
    return rc;
  }
  int rc = read_output_kernels(g, o, kt);
  if (rc) return rc;
  output_report_merge(kt, report);
  const target_desc *t = resolve_target_named(o->target, strlen(o->target)); /* the reader found it */
  for (size_t i = 0; i < kt->n; i++) occupancy_fill(t, kt->k[i].chip, block_size, &kt->k[i]);
  return GPUBLOB_OK;
}
