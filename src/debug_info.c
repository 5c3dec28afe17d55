/* src/debug_info.c: The debug information a job's blob keeps (options' debug, --debug): the
** level decided from the module's compile units and the options, and the module cut to it
** before the middle end; and the assembly's source-file directives given a fixed time
** stamp before the blob tool reads them.  Why: clang's drivers decide what a device blob
** keeps (CUDA: ptxas's -g does not optimise, so above -O0 line directives alone), and a
** blob must not change when only a source file's time stamp does.  What the level means
** to a target's tool is the spec's (debug_optimised, debug_lines, isa_conditions,
** isa_file_stamp); this part knows no target. */

/* ---- the level: none, lines or full ---- */
/* The level the module's compile units hold (gpublob__debug_kind: 0 none, 1 line
** directives, 2 line tables, 3 full), as an enum gpublob_debug level. */
static int module_level(job *j) {
#if GPUBLOB_LLVM_CXX
  static const int level_of_kind[] = {GPUBLOB_DEBUG_NONE, GPUBLOB_DEBUG_LINES, GPUBLOB_DEBUG_LINES,
                                      GPUBLOB_DEBUG_FULL};
  return level_of_kind[gpublob__debug_kind(j->llvm->mod)];
#else
  return LLVMGetNamedMetadataNumOperands(j->llvm->mod, "llvm.dbg.cu") ? GPUBLOB_DEBUG_FULL : GPUBLOB_DEBUG_NONE;
#endif
}

/* The level the job keeps: the options', never more than the module has; auto, the
** module's, at most the spec's debug_optimised above -O0 (as clang's driver keeps it). */
static int job_level(job *j, int have) {
  static const int spec_level[] = {[DEBUG_LEVEL_none] = GPUBLOB_DEBUG_NONE, [DEBUG_LEVEL_lines] = GPUBLOB_DEBUG_LINES,
                                   [DEBUG_LEVEL_full] = GPUBLOB_DEBUG_FULL};
  int want = j->o->debug;
  if (want == GPUBLOB_DEBUG_AUTO) want = j->opt ? spec_level[j->t->debug_optimised] : GPUBLOB_DEBUG_FULL;
#if !GPUBLOB_LLVM_CXX
  /* No line-tables cut without src/passes.cpp: auto keeps what the module has, as 1.6
  ** did (nvptx: ptxas -g); an explicit lines is OPTION (debug_info_settle). */
  if (j->o->debug == GPUBLOB_DEBUG_AUTO && want == GPUBLOB_DEBUG_LINES) want = GPUBLOB_DEBUG_FULL;
#endif
  return want < have ? want : have;
}

/* The module cut to the job's level, after its checks and before linking and the
** middle end: none strips its debug information (LLVM's StripDebugInfo), lines keeps
** its line tables (as the spec's debug_lines keeps them), full keeps all. */
GPUBLOB_PRIVATE int debug_info_settle(job *j) {
  if (j->o->debug == GPUBLOB_DEBUG_FULL) return GPUBLOB_OK;
  int have = module_level(j), level = job_level(j, have);
  if (level == GPUBLOB_DEBUG_NONE && have != GPUBLOB_DEBUG_NONE) LLVMStripModuleDebugInfo(j->llvm->mod);
  if (level != GPUBLOB_DEBUG_LINES) return GPUBLOB_OK;
#if GPUBLOB_LLVM_CXX
  gpublob__debug_lines(j->llvm->mod, j->t->debug_lines == DEBUG_LINES_directives);
  return GPUBLOB_OK;
#else
  return handle_set_error(j->g, GPUBLOB_OPTION, "debug lines: this gpublob was built without src/passes.cpp (no C++ "
                   "compiler), and LLVM's C API cannot keep line tables alone (--debug none or full can)");
#endif
}

/* ---- the assembly's source files: a fixed time stamp ---- */
/* Is line (n bytes) DIRECTIVE, blanks, a number, blanks and a quoted name, and nothing
** else (the form a directive without a time stamp has)? */
static int bare_file_directive(const char *line, size_t n, const char *directive, size_t dn) {
  size_t i = 0;
  while (i < n && (line[i] == ' ' || line[i] == '\t')) i++;
  if (n - i < dn || memcmp(line + i, directive, dn)) return 0;
  i += dn;
  size_t blanks = i;
  while (i < n && (line[i] == ' ' || line[i] == '\t')) i++;
  size_t digits = i;
  while (i < n && line[i] >= '0' && line[i] <= '9') i++;
  if (i == blanks || digits == blanks || i == digits) return 0;
  while (i < n && (line[i] == ' ' || line[i] == '\t')) i++;
  if (i >= n || line[i] != '"') return 0;
  const char *close = memchr(line + i + 1, '"', n - i - 1);
  if (!close) return 0;
  for (const char *p = close + 1; p < line + n; p++)
    if (*p != ' ' && *p != '\t' && *p != '\r') return 0;
  return 1;
}

/* The spec's isa_file_stamp (DIRECTIVE:SUFFIX): each bare source-file directive of the
** job's assembly gets SUFFIX before the blob tool reads it (nvptx: a time stamp and size
** of its own, where ptxas would read the source file's), so that a blob does not change
** with a source file's time stamp.  --as clang gives clang's blob, whose ptxas reads them. */
GPUBLOB_PRIVATE int debug_info_stamp_files(job *j) {
  const char *spec = j->t->isa_file_stamp, *colon = strchr(spec, ':');
  if (!colon || j->as == GPUBLOB_AS_CLANG || j->t->emit != EMIT_asm || !j->out.data) return GPUBLOB_OK;
  size_t dn = (size_t)(colon - spec);
  const char *p = (const char *)j->out.data, *end = p + j->out.size;
  strbuf b = {0};
  int stamped = 0;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p)), *stop = nl ? nl : end;
    sb_addn(&b, p, (size_t)(stop - p));
    if (bare_file_directive(p, (size_t)(stop - p), spec, dn)) stamped = 1, sb_add(&b, colon + 1);
    if (nl) sb_addn(&b, "\n", 1);
    p = stop + 1;
  }
  if (b.oom) {
    sb_free(&b);
    return handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  }
  if (stamped) {
    free(j->out.data);
    j->out.data = (unsigned char *)b.s; /* NUL-terminated, as the backend's */
    j->out.size = b.len;
    return GPUBLOB_OK;
  }
  sb_free(&b);
  return GPUBLOB_OK;
}
