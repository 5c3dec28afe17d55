/* src/peer.c: Whose defaults a job takes (the options' as, --as): mlir-opt's, the spec's
** own, or clang's driver's.  Under --as clang a module's source language (opencl, for a
** module with !opencl.ocl.version; else the spec's lang) chooses its floating-point
** contraction (the spec's clang_fp_contract, where the options ask for none) and the
** LLVM options clang passes by -mllvm for it (clang_mllvm), once the module is parsed.
**
** LLVM's options are process-wide (cl::opt), not a job's: a gate lets the jobs of one
** set of options (most often none) run their middle end and code generator at once,
** while a job of another set waits until they are done, then sets its own and resets
** the others (src/passes.cpp, by name, as -mllvm would give them).  A job holds the gate
** from its optimisation to the end of its emission (and the dump's ISA), and waits on
** nothing else meanwhile.  An isolated job's child is a process of its own. */

/* The module's source language: its producer's mark (devlib_module_lang), else the target's. */
static const char *module_language(job *j) {
  const char *lang = devlib_module_lang(j);
  return lang ? lang : j->t->lang;
}

/* The value of the first LANG:VALUE word of list whose LANG (a glob) matches lang; NULL. */
static const char *lang_value(const char *list, const char *lang, size_t *n) {
  const char *w;
  size_t m;
  while ((w = util_next_word(&list, " ", &m))) {
    const char *colon = memchr(w, ':', m);
    if (!colon || !util_glob_match(w, (size_t)(colon - w), lang)) continue;
    *n = m - (size_t)(colon + 1 - w);
    return colon + 1;
  }
  return NULL;
}

/* Under --as clang, once the module is read: its language's fp contraction (unless the
** options ask for one) and LLVM options.  An option this LLVM does not have, or a build
** that cannot set one per job (no src/passes.cpp), is OPTION naming it. */
GPUBLOB_PRIVATE int peer_job_language(job *j) {
  if (j->as != GPUBLOB_AS_CLANG) return GPUBLOB_OK;
  const char *lang = module_language(j);
  size_t n;
  const char *mode = j->o->fp_contract ? NULL : lang_value(j->t->clang_fp_contract, lang, &n);
  if (mode)
    j->fp_contract = util_word_is(mode, n, "fast") ? GPUBLOB_FP_CONTRACT_FAST
                     : util_word_is(mode, n, "off") ? GPUBLOB_FP_CONTRACT_OFF : GPUBLOB_FP_CONTRACT_ON;
  const char *list = j->t->clang_mllvm, *w;
  size_t m;
  sb_reset(&j->mllvm);
  while ((w = util_next_word(&list, " ", &m))) {
    const char *colon = memchr(w, ':', m), *word = colon + 1;
    size_t wn = m - (size_t)(word - w);
    if (!colon || !util_glob_match(w, (size_t)(colon - w), lang)) continue;
#if GPUBLOB_LLVM_CXX
    if (!gpublob__llvm_option_known(word, wn))
      return handle_set_error(j->g, GPUBLOB_OPTION, "--as clang: LLVM %s has no option %.*s, which target %s's spec "
                       "passes for %s (clang_mllvm)", LLVM_VERSION_STRING, (int)wn, word, j->t->name, lang);
#else
    return handle_set_error(j->g, GPUBLOB_OPTION, "--as clang: this gpublob was built without src/passes.cpp (no C++ "
                     "compiler), so it cannot set LLVM's option %.*s for one job, as clang's driver does for %s "
                     "(target %s's clang_mllvm)", (int)wn, word, lang, j->t->name);
#endif
    sb_addf(&j->mllvm, "%s%.*s", j->mllvm.len ? " " : "", (int)wn, word);
  }
  return j->mllvm.oom ? handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory") : GPUBLOB_OK;
}

/* ---- the gate of LLVM's process-wide options ---- */
static pthread_mutex_t llvm_options_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t llvm_options_cv = PTHREAD_COND_INITIALIZER;
static struct {
  strbuf words;     /* the options in effect, blank-separated ("": LLVM's defaults) */
  unsigned users;   /* jobs running under them */
  unsigned waiting; /* jobs waiting for others */
} llvm_options;

#if GPUBLOB_LLVM_CXX
/* Every word of list (blank-separated) set (set) or reset; the first refused word, or NULL. */
static const char *llvm_options_apply(const char *list, int set, size_t *n) {
  const char *w;
  while ((w = util_next_word(&list, " ", n))) {
    if (!set) gpublob__llvm_option_reset(w, *n);
    else if (gpublob__llvm_option_set(w, *n)) return w;
  }
  return NULL;
}
#endif

/* The job runs under its options (j->mllvm): at once where they are in effect and no
** job of others waits, else once the jobs under others are done.  OPTION when LLVM
** refuses one (its value). */
GPUBLOB_PRIVATE int peer_llvm_options_enter(job *j) {
  const char *want = sb_str(&j->mllvm);
  int queued = 0, rc = GPUBLOB_OK;
  pthread_mutex_lock(&llvm_options_mu);
  while (llvm_options.users && (strcmp(sb_str(&llvm_options.words), want) || (!queued && llvm_options.waiting))) {
    if (!queued) llvm_options.waiting++, queued = 1;
    pthread_cond_wait(&llvm_options_cv, &llvm_options_mu);
  }
  if (queued) llvm_options.waiting--;
  if (strcmp(sb_str(&llvm_options.words), want)) {
#if GPUBLOB_LLVM_CXX
    size_t n = 0;
    llvm_options_apply(sb_str(&llvm_options.words), 0, &n);
    const char *bad = llvm_options_apply(want, 1, &n);
    sb_reset(&llvm_options.words);
    if (bad) {
      llvm_options_apply(want, 0, &n);
      rc = handle_set_error(j->g, GPUBLOB_OPTION, "LLVM refuses its option %.*s (target %s's clang_mllvm)", (int)n, bad,
                     j->t->name);
    } else {
      sb_add(&llvm_options.words, want);
    }
#else
    rc = handle_set_error(j->g, GPUBLOB_OPTION, "this gpublob cannot set LLVM's options (%s)", want);
#endif
  }
  if (!rc) llvm_options.users++;
  else pthread_cond_broadcast(&llvm_options_cv);
  pthread_mutex_unlock(&llvm_options_mu);
  return rc;
}

GPUBLOB_PRIVATE void peer_llvm_options_leave(void) {
  pthread_mutex_lock(&llvm_options_mu);
  if (!--llvm_options.users) pthread_cond_broadcast(&llvm_options_cv);
  pthread_mutex_unlock(&llvm_options_mu);
}

/* ---- the backend's assembly, for the blob tool's templates ---- */
/* The spec's isa_conditions its assembly meets (j->isa_conds, bit i for the i-th
** NAME:GLOB): a line, its leading blanks left out, that GLOB matches (nvptx's debug:
** ".target sm_90, debug", the PTX of a full debug compile unit, which ptxas compiles
** only with -g).  Read once the backend has emitted, before the blob tool's argv is
** made; a condition no template of the target tests is not looked for. */
GPUBLOB_PRIVATE int peer_job_isa_conditions(job *j) {
  j->isa_conds = 0;
  if (!*j->t->isa_conditions || j->t->emit != EMIT_asm || !j->out.data) return GPUBLOB_OK;
  const char *list = j->t->isa_conditions, *w;
  size_t m;
  strbuf pat = {0}, name = {0}, line = {0};
  for (int i = 0; i < 32 && (w = util_next_word(&list, " ", &m)); i++) {
    const char *colon = memchr(w, ':', m);
    if (!colon) continue;
    sb_reset(&name);
    sb_addn(&name, w, (size_t)(colon - w));
    if (!template_spec_tests_condition(j->t, sb_str(&name))) continue;
    sb_reset(&pat);
    sb_addn(&pat, colon + 1, m - (size_t)(colon + 1 - w));
    const char *p = (const char *)j->out.data, *end = p + j->out.size;
    while (p < end && !pat.oom && !line.oom) {
      const char *nl = memchr(p, '\n', (size_t)(end - p)), *stop = nl ? nl : end;
      while (p < stop && (*p == ' ' || *p == '\t')) p++;
      sb_reset(&line);
      sb_addn(&line, p, (size_t)(stop - p));
      if (!line.oom && !fnmatch(sb_str(&pat), sb_str(&line), 0)) {
        j->isa_conds |= 1u << i;
        break;
      }
      p = stop + 1;
    }
  }
  int oom = pat.oom || name.oom || line.oom;
  sb_free(&pat);
  sb_free(&name);
  sb_free(&line);
  return oom ? handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory") : GPUBLOB_OK;
}
