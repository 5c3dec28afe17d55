/* src/devlib.c: Device libraries: found by name, mapped once a call (src/devlib_share.c),
** linked only while they define what the module still needs, each link the library's
** subset for the names needed. */

/* ---- device libraries: found by name, shared by the call's jobs, linked when needed ---- */

static int is_undefined_ref(LLVMValueRef v) {
  return LLVMIsDeclaration(v) && !LLVMGetIntrinsicID(v);
}

/* A global declaration the target's ABI leaves external (the spec's extern_spaces:
** dynamic shared memory, extern __shared__), which no library defines. */
static int abi_extern(const job *j, LLVMValueRef g) {
  char space[24];
  snprintf(space, sizeof space, "%u", LLVMGetPointerAddressSpace(LLVMTypeOf(g)));
  return util_list_index(j->t->extern_spaces, space, strlen(space)) >= 0;
}

static int module_has_undefined(const job *j, LLVMModuleRef m) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (is_undefined_ref(f)) return 1;
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g))
    if (LLVMIsDeclaration(g) && !abi_extern(j, g)) return 1;
  return 0;
}

/* Public definitions become linkonce_odr, so the linker moves only what is used. */
static void make_lazy(LLVMModuleRef lib) {
  for (LLVMValueRef f = LLVMGetFirstFunction(lib); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f) && LLVMGetLinkage(f) == LLVMExternalLinkage)
      LLVMSetLinkage(f, LLVMLinkOnceODRLinkage);
  for (LLVMValueRef g = LLVMGetFirstGlobal(lib); g; g = LLVMGetNextGlobal(g))
    if (!LLVMIsDeclaration(g) && LLVMGetLinkage(g) == LLVMExternalLinkage)
      LLVMSetLinkage(g, LLVMLinkOnceODRLinkage);
}

/* Bitcode loaded lazily into ctx (the bytes stay the caller's). */
static int load_bitcode_in(job *j, LLVMContextRef ctx, const void *bytes, size_t size, const char *name,
                           LLVMModuleRef *out) {
  LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRange(bytes, size, name, 0);
  if (!LLVMGetBitcodeModuleInContext2(ctx, buf, out)) return GPUBLOB_OK;
  LLVMDisposeMemoryBuffer(buf); /* owned by the module only on success */
  handle_set_error(j->g, GPUBLOB_LINK, "cannot read device library %s", name);
  handle_add_detail(j->g, sb_str(&j->diag));
  return GPUBLOB_LINK;
}

static int load_bitcode(job *j, const void *bytes, size_t size, const char *name, LLVMModuleRef *out) {
  return load_bitcode_in(j, j->llvm->ctx, bytes, size, name, out);
}

/* The whole library, loaded lazily as the module's triple and layout, public
** definitions linkonce_odr; the call's index of its names read from it once. */
static int load_lazy(job *j, devlib *l, LLVMModuleRef *out) {
  double t = util_now_ms();
  int rc = load_bitcode(j, l->shared->map, l->shared->size, sb_str(&l->path), out);
  if (!rc) {
    LLVMSetTarget(*out, j->triple);
    LLVMSetDataLayout(*out, LLVMGetDataLayoutStr(j->llvm->mod));
    make_lazy(*out);
    if (devlib_share_lib_index(l->shared, l->share, *out))
      rc = handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  }
  j->ms[PH_LINK] += util_now_ms() - t;
  return rc;
}

/* Every library loaded lazily (the C math names' renaming reads their functions). */
GPUBLOB_PRIVATE int devlib_load_all_lazy(job *j, devlib *libs, int n) {
  int rc = GPUBLOB_OK;
  for (int i = 0; !rc && i < n; i++)
    if (!libs[i].lazy) rc = load_lazy(j, &libs[i], &libs[i].lazy);
  return rc;
}

static int link_failed(job *j, const devlib *l) {
  handle_set_error(j->g, GPUBLOB_LINK, "linking device library %s failed", sb_str(&l->path));
  handle_add_detail(j->g, sb_str(&j->diag));
  return GPUBLOB_LINK;
}

/* An MLIR input's job takes the spec's mlir_lib_drop out of a library, as its peer
** does (a call's jobs are all MLIR's or none, so the call's subsets are alike). */
static void mlir_lib_drop(job *j, LLVMModuleRef lib) {
#if GPUBLOB_MLIR_PASSES
  const char *list = j->t->mlir_lib_drop, *w;
  size_t n;
  while (j->mlir_input && (w = util_next_word(&list, " ", &n))) gpublob__erase_named_metadata(lib, w, n);
#else
  (void)j, (void)lib;
#endif
}

/* The whole library loaded lazily in a context of its own, as the module's triple and
** layout, public definitions linkonce_odr, an MLIR input's mlir_lib_drop taken out, and
** the call's index of its names read from it once.  Subsets are made from it: bitcode
** lists every metadata kind its context knows, so a subset made in a job's context
** would carry whatever that job had loaded before (ockl's srcloc), and the bitcode of
** every job that links it (-f llvm) would depend on which job of the call made it.  A
** job that only needs the names (another job made the subset) loads nothing. */
static int load_own(job *j, devlib *l) {
  if (l->own) return GPUBLOB_OK;
  double t = util_now_ms();
  if (!l->own_ctx && (l->own_ctx = LLVMContextCreate())) LLVMContextSetDiagnosticHandler(l->own_ctx, llvm_on_diagnostic, j);
  int rc = l->own_ctx ? load_bitcode_in(j, l->own_ctx, l->shared->map, l->shared->size, sb_str(&l->path), &l->own)
                      : handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  if (!rc) {
    LLVMSetTarget(l->own, j->triple);
    LLVMSetDataLayout(l->own, LLVMGetDataLayoutStr(j->llvm->mod));
    make_lazy(l->own);
    mlir_lib_drop(j, l->own);
    if (devlib_share_lib_index(l->shared, l->share, l->own)) rc = handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  }
  j->ms[PH_LINK] += util_now_ms() - t;
  return rc;
}

/* The own context and what is left in it. */
static void release_own(devlib *l) {
  if (l->own) LLVMDisposeModule(l->own);
  if (l->own_ctx) LLVMContextDispose(l->own_ctx);
  l->own = NULL;
  l->own_ctx = NULL;
}

/* The subset of l for key: the call's, else made here, from the library in its own
** context (load_own, which devlib_share_subset_make consumes), and filed for the other jobs. */
static const devlib_share_subset *subset_get(job *j, devlib *l, strbuf *key) {
  const devlib_share_subset *sub = devlib_share_subset_find(l->shared, l->share, key);
  if (sub) return sub;
  strbuf bitcode = {0};
  int rc = load_own(j, l);
  double t = util_now_ms();
  if (!rc) {
    rc = devlib_share_subset_make(j, l->own, key, &bitcode);
    l->own = NULL; /* consumed */
  }
  release_own(l);
  j->ms[PH_LINK] += util_now_ms() - t;
  if (!rc && !(sub = devlib_share_subset_file(l->shared, l->share, key, &bitcode))) rc = GPUBLOB_NOMEM;
  sb_free(&bitcode);
  if (rc == GPUBLOB_NOMEM) handle_set_error(j->g, rc, "out of memory");
  else if (rc) link_failed(j, l);
  return sub;
}

/* Links the subset of l that defines what the module still lacks, if anything;
** *links counts the links done.  always: a library the job has not linked yet is
** linked even where the module needs nothing of it (the spec's mlir_lib_link): its
** empty subset, which holds the library's named metadata and module flags alone, as
** LLVM's LinkOnlyNeeded brings them in. */
static int link_if_needed(job *j, devlib *l, unsigned *links, int always) {
  char *const *defined;
  size_t ndefined, count = 0;
  /* the names: the call's index, read from the library in its own context the first time */
  int rc = devlib_share_lib_names(l->shared, l->share, &defined, &ndefined) || l->lazy ? GPUBLOB_OK : load_own(j, l);
  if (!rc && !defined && !devlib_share_lib_names(l->shared, l->share, &defined, &ndefined))
    rc = handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory"); /* load_own or load_lazy read them */
  strbuf key = {0};
  if (!rc && devlib_share_subset_key(defined, ndefined, j->llvm->mod, &key, &count)) rc = handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  int wanted = count || (always && !l->linked);
  const devlib_share_subset *sub = rc || !wanted ? NULL : subset_get(j, l, &key);
  LLVMModuleRef part = NULL;
  double t = util_now_ms();
  if (!rc && wanted) rc = sub ? load_bitcode(j, sub->bitcode.s, sub->bitcode.len, sb_str(&l->path), &part) : j->g->code;
  sb_free(&key);
  if (part) {
    sb_reset(&j->diag);
    if (LLVMLinkModules2(j->llvm->mod, part)) rc = link_failed(j, l);
    else {
      l->linked = 1;
      if (count) ++*links; /* an empty subset adds nothing to link on from */
    }
  }
  j->ms[PH_LINK] += util_now_ms() - t;
  return rc;
}

static int find_lib_list(job *j, const char *list, devlib *libs, int max, int *count, int missing_ok);

/* The module's source language, as its producer records it: "opencl" for a module
** with !opencl.ocl.version (clang's OpenCL C); NULL for any other. */
GPUBLOB_PRIVATE const char *devlib_module_lang(const job *j) {
  return LLVMGetNamedMetadata(j->llvm->mod, "opencl.ocl.version", 18) ? "opencl" : NULL;
}

/* The spec's lang_libs for the module's language (LANG:LIBRARY words), then its libs, as
** one list of library templates into out. */
static void libs_of_module(const job *j, strbuf *out) {
  const char *lang = devlib_module_lang(j), *list = j->t->lang_libs, *w;
  size_t n, ln = lang ? strlen(lang) : 0;
  while (lang && (w = util_next_word(&list, " ", &n)))
    if (n > ln + 1 && w[ln] == ':' && !strncmp(w, lang, ln)) sb_addf(out, "%.*s ", (int)(n - ln - 1), w + ln + 1);
  sb_add(out, j->t->libs);
}

static int find_libs(job *j, devlib *libs, int max, int *count, int missing_ok) {
  strbuf all = {0};
  libs_of_module(j, &all);
  if (all.oom) return handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  int rc = find_lib_list(j, sb_str(&all), libs, max, count, missing_ok);
  sb_free(&all);
  return rc;
}

/* missing_ok: a library not found is left out (one the module needs nothing of). */
static int find_lib_list(job *j, const char *list, devlib *libs, int max, int *count, int missing_ok) {
  const char *w;
  size_t n;
  *count = 0;
  while ((w = util_next_word(&list, " ", &n))) {
    if (*count == max)
      return handle_set_error(j->g, GPUBLOB_NOLIB, "target %s lists more than %d device libraries", j->t->name, max);
    strbuf name = {0};
    search s = {0};
    int found = search_find_lib(j, w, n, &name, &s);
    int rc = s.oom ? GPUBLOB_NOMEM : found || missing_ok ? GPUBLOB_OK : GPUBLOB_NOLIB;
    if (rc == GPUBLOB_NOMEM) handle_set_error(j->g, rc, "out of memory");
    else if (rc) handle_set_error(j->g, rc, "device library %s for %s:%s not found; tried:%s", sb_str(&name),
                           j->t->name, j->chip, search_tried_list(&s));
    else if (found) libs[(*count)++].path = sb_move(&s.found);
    sb_free(&name);
    search_end(&s);
    if (rc) return rc;
  }
  return GPUBLOB_OK;
}

/* Internal linkage needs default visibility, and leaves any comdat. */
GPUBLOB_PRIVATE void devlib_make_internal(LLVMValueRef v) {
  LLVMSetLinkage(v, LLVMInternalLinkage);
  LLVMSetVisibility(v, LLVMDefaultVisibility);
  LLVMSetComdat(v, NULL);
}

/* A definition internalize makes internal unless it is the module's own. */
static int public_definition(LLVMValueRef v) {
  return !LLVMIsDeclaration(v) && LLVMGetLinkage(v) != LLVMInternalLinkage &&
         LLVMGetLinkage(v) != LLVMPrivateLinkage;
}

/* Everything but the module's own public definitions becomes internal. */
static void internalize(LLVMModuleRef m, char **keep, int nkeep) {
  LLVMValueRef v[2] = {LLVMGetFirstFunction(m), LLVMGetFirstGlobal(m)};
  for (int kind = 0; kind < 2; kind++)
    for (LLVMValueRef x = v[kind]; x; x = kind ? LLVMGetNextGlobal(x) : LLVMGetNextFunction(x)) {
      if (!public_definition(x)) continue;
      const char *name = LLVMGetValueName2(x, &(size_t){0});
      int kept = 0;
      for (int i = 0; i < nkeep && !kept; i++) kept = keep[i] && !strcmp(keep[i], name);
      if (!kept) devlib_make_internal(x);
    }
}

/* The module's own public definitions, which internalize keeps; -1 when out of memory. */
static int public_definitions(LLVMModuleRef m, char ***out) {
  ptrdiff_t n = devlib_share_collect_names(m, public_definition, out);
  return n > 1 << 30 ? -1 : (int)n; /* no module defines a billion names */
}

static void release_libs(devlib *libs, int n) {
  for (int i = 0; i < n; i++) {
    if (libs[i].lazy) LLVMDisposeModule(libs[i].lazy);
    release_own(&libs[i]);
    sb_free(&libs[i].path);
  }
}

/* Each library found, from the call's table (mapped once a call). */
static int share_libs(job *j, devlib_share *share, devlib *libs, int n) {
  for (int i = 0; i < n; i++) {
    libs[i].share = share;
    if (!(libs[i].shared = devlib_share_lib_get(j, share, sb_str(&libs[i].path)))) return j->g->code;
  }
  return GPUBLOB_OK;
}

/* src/libm_names.c: C math names (sinf) renamed to the libraries' functions first. */

/* The functions the libraries added get the module's pins, as clang's
** -mlink-builtin-bitcode gives them its own: the "target-cpu", "target-features" and
** convergent of the module's first pinned definition, where they have none (clang pins
** every function it writes, so a definition without "target-cpu" came from a library).
** A module without pins (not clang's) is left as it is. */
static void pin_linked_functions(job *j) {
  LLVMModuleRef m = j->llvm->mod;
  LLVMValueRef pinned = NULL;
  unsigned len;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f && !pinned; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f) && pins_fn_attr(f, "target-cpu", &len)) pinned = f;
  if (!pinned) return;
  unsigned conv = LLVMGetEnumAttributeKindForName("convergent", 10);
  int convergent = LLVMGetEnumAttributeAtIndex(pinned, LLVMAttributeFunctionIndex, conv) != NULL;
  strbuf cpu = {0}, feats = {0};
  const char *v = pins_fn_attr(pinned, "target-cpu", &len);
  sb_addn(&cpu, v, len);
  if ((v = pins_fn_attr(pinned, "target-features", &len))) sb_addn(&feats, v, len);
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f && !cpu.oom && !feats.oom; f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f) || pins_fn_attr(f, "target-cpu", &len)) continue;
    LLVMAddTargetDependentFunctionAttr(f, "target-cpu", sb_str(&cpu));
    if (feats.len && !pins_fn_attr(f, "target-features", &len))
      LLVMAddTargetDependentFunctionAttr(f, "target-features", sb_str(&feats));
    if (convergent && !LLVMGetEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, conv))
      LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(j->llvm->ctx, conv, 0));
  }
  sb_free(&cpu);
  sb_free(&feats);
}

/* Passes over the libraries until none adds anything: ocml may need ockl, and so on. */
GPUBLOB_PRIVATE int devlib_link(job *j) {
  /* an intrinsic the backend cannot select needs a library only where a backend runs */
  int ir_only = j->format == GPUBLOB_FORMAT_LLVM || j->format == GPUBLOB_FORMAT_LL;
  int needed = module_has_undefined(j, j->llvm->mod) || (!ir_only && libm_names_wanted(j));
  /* an MLIR input's job links them all where its peer does (the spec's mlir_lib_link) */
  int always = j->mlir_input && j->t->mlir_lib_link == MLIR_LIB_LINK_always;
  /* a module that carries its libraries (clang's HIP -emit-llvm) compiles as it is; its
     own control constants must agree with the job */
  if (!*j->t->libs || (!needed && !always)) return constants_check_own(j);
  enum { MAX_LIBS = 32 };
  devlib *libs = calloc(MAX_LIBS, sizeof *libs);
  if (!libs) return handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  /* one the module needs nothing of may be missing, as upstream's serialiser links
     libdevice only where it finds a toolkit */
  int n = 0, rc = find_libs(j, libs, MAX_LIBS, &n, !needed);
  if (!rc && !n) {
    free(libs);
    return constants_check_own(j);
  }
  char **keep = NULL;
  int nkeep = rc ? 0 : public_definitions(j->llvm->mod, &keep);
  if (nkeep < 0) {
    rc = handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory");
    nkeep = 0;
  }
  if (!rc) rc = constants_write(j); /* after public_definitions: internal once linked */
  devlib_share *share = j->host->lib_share, *own = NULL;
  if (!share && (own = malloc(sizeof *own))) devlib_share_init(own); /* outside the pool: the job's own */
  if (!(share = share ? share : own) && !rc) rc = handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  if (!rc) rc = share_libs(j, share, libs, n);
  if (!rc) rc = libm_names_rename(j, libs, n);
  unsigned links = 0, before = 1;
  for (int pass = 0; !rc && links != before && pass < n + 1; pass++) {
    before = links;
    for (int i = 0; !rc && i < n; i++) rc = link_if_needed(j, &libs[i], &links, always);
  }
  if (!rc && links) pin_linked_functions(j);
  if (!rc) internalize(j->llvm->mod, keep, nkeep);
  for (int i = 0; i < nkeep; i++) free(keep[i]);
  free(keep);
  release_libs(libs, n);
  free(libs);
  if (own) { /* after the modules that read its bytes */
    devlib_share_free(own);
    free(own);
  }
  return rc;
}
