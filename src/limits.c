/* src/limits.c: The options' limits (max_registers, max_spills, max_shared, max_stack,
** min_occupancy; their bits in limits) checked against each kernel of a call's outputs:
** after a compile and on a cache hit alike (the limits are in no cache key: they change
** no output byte), before anything is written.  A kernel over one fails the call with
** LIMIT, naming the first such kernel, its target and chip, the figure and the limit,
** and how many others are over.  A figure that is not known (-1) is never over; an
** output that records no kernels (assembly, bitcode, SPIR-V) is not checked.  MLIR's
** whole module is checked as its gpu.modules are compiled, and on a hit by the
** summary of its kernels that its compile kept (below). */

/* ---- one kernel against the limits ---- */
/* The first limit k is over, written into why ("412 bytes of spill stores, over the
** limit of 0 (max_spills, --max-spills)"); 0 when it is over none.  The limits whose
** figure k does not know are added to *unknown (their bits). */
static int kernel_over(const gpublob_options *o, const gpublob_kernel_info *k, strbuf *why, unsigned *unknown) {
  /* NVIDIA's spills are the bytes ptxas stored; AMD's the VGPRs and SGPRs spilled */
  long long spills = k->spill_store_bytes >= 0 ? k->spill_store_bytes : k->spills;
  const char *spill_what = k->spill_store_bytes >= 0 ? "bytes of spill stores" : "spilled registers";
  const struct { unsigned bit; long long figure; unsigned long long limit; const char *what, *flag; } f[] = {
      {GPUBLOB_LIMIT_REGISTERS, k->registers, o->max_registers, "registers a thread", "max_registers"},
      {GPUBLOB_LIMIT_SPILLS, spills, o->max_spills, spill_what, "max_spills"},
      {GPUBLOB_LIMIT_SHARED, k->shared_bytes, o->max_shared, "bytes of static shared memory", "max_shared"},
      {GPUBLOB_LIMIT_STACK, k->local_bytes, o->max_stack, "bytes of stack a thread", "max_stack"}};
  for (size_t i = 0; i < sizeof f / sizeof *f; i++)
    if ((o->limits & f[i].bit) && f[i].figure < 0) *unknown |= f[i].bit;
  if ((o->limits & GPUBLOB_LIMIT_OCCUPANCY) && k->occupancy < 0) *unknown |= GPUBLOB_LIMIT_OCCUPANCY;
  for (size_t i = 0; i < sizeof f / sizeof *f; i++)
    if ((o->limits & f[i].bit) && f[i].figure >= 0 && (unsigned long long)f[i].figure > f[i].limit) {
      /* the options' field and the CLI's flag: max_spills, --max-spills */
      sb_addf(why, "%lld %s, over the limit of %llu (%s, --", f[i].figure, f[i].what, f[i].limit, f[i].flag);
      for (const char *c = f[i].flag; *c; c++) sb_addn(why, *c == '_' ? "-" : c, 1);
      sb_add(why, ")");
      return 1;
    }
  if ((o->limits & GPUBLOB_LIMIT_OCCUPANCY) && k->occupancy >= 0 && k->occupancy < o->min_occupancy) {
    sb_addf(why, "occupancy %.4g (limited by %s, blocks of %lld threads), under the least of %.4g (min_occupancy, "
            "--min-occupancy)", k->occupancy, k->occupancy_limiter, k->occupancy_block_size, o->min_occupancy);
    return 1;
  }
  return 0;
}

/* Each kernel of kt against o's limits; where names the code they are in ("nvptx
** sm_90", "gpu.module @m for nvptx sm_90"). */
GPUBLOB_PRIVATE void limits_kernels_check(const gpublob_options *o, const ktable *kt, const char *where, limits_found *f) {
  strbuf why = {0};
  for (size_t i = 0; i < kt->n; i++) {
    sb_reset(&why);
    if (!kernel_over(o, &kt->k[i], &why, &f->unknown)) continue;
    if (!f->count++) sb_addf(&f->first, "kernel %s (%s %s): %s", kt->k[i].name, where, kt->k[i].chip, sb_str(&why));
  }
  sb_free(&why);
}

/* The call's error for what was found: OK when nothing is over.  A limit a kernel's
** figure was not known for is a warning: it was not checked there. */
GPUBLOB_PRIVATE int limits_error(gpublob *g, limits_found *f) {
  static const struct { unsigned bit; const char *name, *why; } unknown[] = {
      {GPUBLOB_LIMIT_REGISTERS, "max_registers (--max-registers)", "its blob records none"},
      {GPUBLOB_LIMIT_SPILLS, "max_spills (--max-spills)",
       "NVIDIA's are the blob tool's report, not asked for with --no-tool-report"},
      {GPUBLOB_LIMIT_SHARED, "max_shared (--max-shared)", "its blob records none"},
      {GPUBLOB_LIMIT_STACK, "max_stack (--max-stack)", "its blob records none"},
      {GPUBLOB_LIMIT_OCCUPANCY, "min_occupancy (--min-occupancy)",
       "its chip has no limits in the spec, or it requires blocks of more than 16777216 threads"}};
  for (size_t i = 0; i < sizeof unknown / sizeof *unknown; i++)
    if (f->unknown & unknown[i].bit)
      handle_add_warning(g, "the limit %s was not checked for a kernel whose figure is not known (%s)", unknown[i].name,
                  unknown[i].why);
  int rc = GPUBLOB_OK;
  if (f->first.oom) rc = handle_set_error(g, GPUBLOB_NOMEM, "out of memory");
  else if (f->count == 1) rc = handle_set_error(g, GPUBLOB_LIMIT, "%s", sb_str(&f->first));
  else if (f->count > 1)
    rc = handle_set_error(g, GPUBLOB_LIMIT, "%s; and %zu other kernel%s over a limit", sb_str(&f->first), f->count - 1,
                   f->count == 2 ? " is" : "s are");
  sb_free(&f->first);
  return rc;
}

/* ---- MLIR's whole module: its kernels summed up in its note ----
** A module's kernels are in its #gpu.objects, which a cache hit (in the LLVM-free
** front too) does not read.  So the compile keeps a line a kernel in the module
** output's note, and its cache entry: "TARGET\tCHIP\tWHERE\tKERNEL" and the figures
** below, WHERE the gpu.module; a hit's kernels are made of them, their occupancy
** figured for its own block size, and checked as a compile's. */
static const size_t summary_fields[] = {
    offsetof(gpublob_kernel_info, registers),         offsetof(gpublob_kernel_info, sgprs),
    offsetof(gpublob_kernel_info, agprs),             offsetof(gpublob_kernel_info, spills),
    offsetof(gpublob_kernel_info, vgpr_spills),       offsetof(gpublob_kernel_info, sgpr_spills),
    offsetof(gpublob_kernel_info, shared_bytes),      offsetof(gpublob_kernel_info, local_bytes),
    offsetof(gpublob_kernel_info, max_threads),       offsetof(gpublob_kernel_info, params_bytes),
    offsetof(gpublob_kernel_info, wave_size),         offsetof(gpublob_kernel_info, reqd_threads[0]),
    offsetof(gpublob_kernel_info, reqd_threads[1]),   offsetof(gpublob_kernel_info, reqd_threads[2]),
    offsetof(gpublob_kernel_info, spill_store_bytes), offsetof(gpublob_kernel_info, spill_load_bytes),
    offsetof(gpublob_kernel_info, barriers)};
_Static_assert(sizeof summary_fields / sizeof *summary_fields == SUMMARY_NFIELDS, "a figure an offset");

GPUBLOB_PRIVATE long long *limits_summary_field(gpublob_kernel_info *k, size_t i) {
  return (long long *)(void *)((char *)k + summary_fields[i]);
}

/* One line of a module's summary checked against o's limits; a line that does not
** parse (the cache's bytes are anyone's) is none of the call's. */
static void summary_check(const gpublob_options *o, unsigned block_size, const char *line, const char *end,
                          limits_found *f) {
  const char *p = line, *s[4];
  size_t n[4];
  for (int i = 0; i < 4; i++) s[i] = output_report_field(&p, end, &n[i]);
  const target_desc *t = resolve_target_named(s[0], n[0]);
  strbuf chip = {0}, where = {0}, name = {0};
  sb_addn(&chip, s[1], n[1]);
  sb_addn(&where, s[2], n[2]);
  sb_addn(&name, s[3], n[3]);
  gpublob_kernel_info k = kt_blank(sb_str(&name), sb_str(&chip));
  for (size_t i = 0; i < SUMMARY_NFIELDS; i++) {
    size_t fn;
    const char *fs = output_report_field(&p, end, &fn);
    *limits_summary_field(&k, i) = output_report_number(fs, fn);
  }
  if (t && p == end && !chip.oom && !where.oom && !name.oom) {
    occupancy_fill(t, k.chip, block_size, &k);
    ktable one = {.k = &k, .n = 1};
    sb_addf(&where, ", %s", t->name);
    limits_kernels_check(o, &one, sb_str(&where), f);
  }
  sb_free(&chip);
  sb_free(&where);
  sb_free(&name);
}

static void summary_check_all(const gpublob_options *o, unsigned block_size, const char *summary, limits_found *f) {
  while (*summary) {
    const char *end = summary + strcspn(summary, "\n");
    summary_check(o, block_size, summary, end, f);
    summary = *end ? end + 1 : end;
  }
}

/* ---- a call's outputs ---- */
/* Every kernel of r's outputs against o's limits: OK, or LIMIT (r is freed then). */
GPUBLOB_PRIVATE int limits_check(gpublob *g, const gpublob_options *o, gpublob_result *r) {
  if (!o->limits) return GPUBLOB_OK;
  limits_found f = {{0}, 0, 0};
  strbuf report = {0};
  int rc = GPUBLOB_OK;
  for (size_t i = 0; !rc && i < r->count; i++) {
    const gpublob_output *o_i = &r->outputs[i];
    unsigned block_size;
    ktable kt = {0};
    sb_reset(&report);
    gpublob scratch = {0}; /* an output without kernels is none of the call's errors */
    if (output_report_note_get(o_i, &report, &block_size)) rc = handle_set_error(g, GPUBLOB_NOMEM, "out of memory");
    else if (!*o_i->target) summary_check_all(o, block_size, sb_str(&report), &f); /* MLIR's module */
    else if (!meta_output_kernels(&scratch, o_i, sb_str(&report), block_size, &kt)) limits_kernels_check(o, &kt, o_i->target, &f);
    else if (scratch.code != GPUBLOB_FORMAT) rc = handle_set_error(g, scratch.code, "%s", sb_str(&scratch.msg));
    kt_free(&kt);
    sb_free(&scratch.msg);
    sb_free(&scratch.warn);
  }
  sb_free(&report);
  if (!rc) rc = limits_error(g, &f);
  else sb_free(&f.first);
  if (rc) gpublob_result_free(r);
  return rc;
}
