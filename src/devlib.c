/* src/devlib.c: Device libraries: found by name, loaded lazily, linked only while they define
** what the module still needs. */

/* ---- device libraries: found by name, loaded lazily, linked only when needed ---- */
typedef struct devlib {
  strbuf path;
  void *map;
  size_t size;
  LLVMModuleRef lazy; /* loaded and not needed yet: kept for the next pass */
  unsigned seen;      /* links done when it was last checked, plus one */
} devlib;

static int is_undefined_ref(LLVMValueRef v) {
  return LLVMIsDeclaration(v) && !LLVMGetIntrinsicID(v);
}

/* Does lib define a symbol the module declares but lacks? */
static int lib_defines_needed(job *j, LLVMModuleRef lib) {
  for (LLVMValueRef f = LLVMGetFirstFunction(j->llvm->mod); f; f = LLVMGetNextFunction(f)) {
    if (!is_undefined_ref(f)) continue;
    LLVMValueRef d = LLVMGetNamedFunction(lib, LLVMGetValueName2(f, &(size_t){0}));
    if (d && !LLVMIsDeclaration(d)) return 1;
  }
  for (LLVMValueRef g = LLVMGetFirstGlobal(j->llvm->mod); g; g = LLVMGetNextGlobal(g)) {
    if (!LLVMIsDeclaration(g)) continue;
    LLVMValueRef d = LLVMGetNamedGlobal(lib, LLVMGetValueName2(g, &(size_t){0}));
    if (d && !LLVMIsDeclaration(d)) return 1;
  }
  return 0;
}

static int module_has_undefined(LLVMModuleRef m) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (is_undefined_ref(f)) return 1;
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g))
    if (LLVMIsDeclaration(g)) return 1;
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

static int map_lib(job *j, devlib *l) {
  int fd = open(sb_str(&l->path), O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st)) {
    if (fd >= 0) close(fd);
    return set_error(j->g, GPUBLOB_NOLIB, "cannot open device library %s: %s", sb_str(&l->path),
                     strerror(errno));
  }
  l->size = (size_t)st.st_size;
  l->map = l->size ? mmap(NULL, l->size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
  close(fd);
  if (l->map == MAP_FAILED) {
    l->map = NULL;
    return set_error(j->g, GPUBLOB_NOLIB, "cannot map device library %s", sb_str(&l->path));
  }
  return GPUBLOB_OK;
}

static int load_lazy(job *j, devlib *l, LLVMModuleRef *out) {
  LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRange(l->map, l->size, sb_str(&l->path), 0);
  double t = now_ms();
  LLVMBool failed = LLVMGetBitcodeModuleInContext2(j->llvm->ctx, buf, out);
  j->ms[PH_LINK] += now_ms() - t;
  if (failed) {
    LLVMDisposeMemoryBuffer(buf); /* owned by the module only on success */
    set_error(j->g, GPUBLOB_LINK, "cannot read device library %s", sb_str(&l->path));
    add_detail(j->g, sb_str(&j->diag));
    return GPUBLOB_LINK;
  }
  LLVMSetTarget(*out, j->triple);
  LLVMSetDataLayout(*out, LLVMGetDataLayoutStr(j->llvm->mod));
  make_lazy(*out);
  return GPUBLOB_OK;
}

/* Links lib if it defines something still missing; *links counts the links done.
** A library is parsed once per link it takes part in, and checked again only
** after some other link may have added a reference to it. */
static int link_if_needed(job *j, devlib *l, unsigned *links) {
  if (l->seen == *links + 1) return GPUBLOB_OK;
  l->seen = *links + 1;
  int rc = l->lazy ? GPUBLOB_OK : load_lazy(j, l, &l->lazy);
  if (rc || !lib_defines_needed(j, l->lazy)) return rc;
  LLVMModuleRef lib = l->lazy;
  l->lazy = NULL; /* the linker consumes it */
  sb_reset(&j->diag);
  double t = now_ms();
  LLVMBool failed = LLVMLinkModules2(j->llvm->mod, lib);
  j->ms[PH_LINK] += now_ms() - t;
  if (failed) {
    set_error(j->g, GPUBLOB_LINK, "linking device library %s failed", sb_str(&l->path));
    add_detail(j->g, sb_str(&j->diag));
    return GPUBLOB_LINK;
  }
  ++*links;
  l->seen = *links + 1; /* what it defines and the module needed is in now */
  return GPUBLOB_OK;
}

static int find_libs(job *j, devlib *libs, int max, int *count) {
  const char *list = j->t->libs, *w;
  size_t n;
  *count = 0;
  while ((w = next_word(&list, " ", &n))) {
    if (*count == max)
      return set_error(j->g, GPUBLOB_NOLIB, "target %s lists more than %d device libraries", j->t->name, max);
    strbuf name = {0};
    search s = {0};
    int found = find_lib(j, w, n, &name, &s);
    int rc = s.oom ? GPUBLOB_NOMEM : found ? GPUBLOB_OK : GPUBLOB_NOLIB;
    if (rc == GPUBLOB_NOMEM) set_error(j->g, rc, "out of memory");
    else if (rc) set_error(j->g, rc, "device library %s for %s:%s not found; tried:%s", sb_str(&name),
                           j->t->name, j->chip, tried_list(&s));
    else libs[(*count)++].path = sb_move(&s.found);
    sb_free(&name);
    search_end(&s);
    if (rc) return rc;
  }
  return GPUBLOB_OK;
}

/* Internal linkage needs default visibility, and leaves any comdat. */
static void make_internal(LLVMValueRef v) {
  LLVMSetLinkage(v, LLVMInternalLinkage);
  LLVMSetVisibility(v, LLVMDefaultVisibility);
  LLVMSetComdat(v, NULL);
}

/* Everything but the module's own public definitions becomes internal. */
static void internalize(LLVMModuleRef m, char **keep, int nkeep) {
  LLVMValueRef v[2] = {LLVMGetFirstFunction(m), LLVMGetFirstGlobal(m)};
  for (int kind = 0; kind < 2; kind++)
    for (LLVMValueRef x = v[kind]; x; x = kind ? LLVMGetNextGlobal(x) : LLVMGetNextFunction(x)) {
      if (LLVMIsDeclaration(x) || LLVMGetLinkage(x) == LLVMInternalLinkage ||
          LLVMGetLinkage(x) == LLVMPrivateLinkage)
        continue;
      const char *name = LLVMGetValueName2(x, &(size_t){0});
      int kept = 0;
      for (int i = 0; i < nkeep && !kept; i++) kept = keep[i] && !strcmp(keep[i], name);
      if (!kept) make_internal(x);
    }
}

/* The module's own public definitions, which internalize keeps; -1 when out of memory. */
static int public_definitions(LLVMModuleRef m, char ***out) {
  int n = 0, cap = 16;
  char **keep = malloc(sizeof *keep * (size_t)cap);
  LLVMValueRef v[2] = {LLVMGetFirstFunction(m), LLVMGetFirstGlobal(m)};
  for (int kind = 0; kind < 2 && keep; kind++)
    for (LLVMValueRef x = v[kind]; x && keep; x = kind ? LLVMGetNextGlobal(x) : LLVMGetNextFunction(x)) {
      if (LLVMIsDeclaration(x) || LLVMGetLinkage(x) == LLVMInternalLinkage ||
          LLVMGetLinkage(x) == LLVMPrivateLinkage)
        continue;
      char **p = n == cap ? realloc(keep, sizeof *keep * (size_t)(cap *= 2)) : keep;
      char *name = p ? strdup(LLVMGetValueName2(x, &(size_t){0})) : NULL;
      if (!name) {
        for (int i = 0; i < n; i++) free((p ? p : keep)[i]);
        free(p ? p : keep);
        *out = NULL;
        return -1;
      }
      keep = p;
      keep[n++] = name;
    }
  *out = keep;
  return keep ? n : -1;
}

static void unmap_libs(devlib *libs, int n) {
  for (int i = 0; i < n; i++) {
    if (libs[i].lazy) LLVMDisposeModule(libs[i].lazy);
    if (libs[i].map) munmap(libs[i].map, libs[i].size);
    sb_free(&libs[i].path);
  }
}

/* src/libm_names.c: C math names (sinf) renamed to the libraries' functions first. */
static int libm_wanted(job *j);
static int libm_rename(job *j, devlib *libs, int n);

/* Passes over the libraries until none adds anything: ocml may need ockl, and so on. */
static int link_device_libs(job *j) {
  /* an intrinsic the backend cannot select needs a library only where a backend runs */
  int ir_only = j->format == GPUBLOB_FORMAT_LLVM || j->format == GPUBLOB_FORMAT_LL;
  if (!*j->t->libs || (!module_has_undefined(j->llvm->mod) && (ir_only || !libm_wanted(j)))) return GPUBLOB_OK;
  enum { MAX_LIBS = 32 };
  devlib *libs = calloc(MAX_LIBS, sizeof *libs);
  if (!libs) return set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  int n, rc = find_libs(j, libs, MAX_LIBS, &n);
  char **keep = NULL;
  int nkeep = rc ? 0 : public_definitions(j->llvm->mod, &keep);
  if (nkeep < 0) {
    rc = set_error(j->g, GPUBLOB_NOMEM, "out of memory");
    nkeep = 0;
  }
  if (!rc) rc = write_constants(j); /* after public_definitions: internal once linked */
  for (int i = 0; !rc && i < n; i++) rc = map_lib(j, &libs[i]);
  if (!rc) rc = libm_rename(j, libs, n);
  unsigned links = 0, before = 1;
  for (int pass = 0; !rc && links != before && pass < n + 1; pass++) {
    before = links;
    for (int i = 0; !rc && i < n; i++) rc = link_if_needed(j, &libs[i], &links);
  }
  if (!rc) internalize(j->llvm->mod, keep, nkeep);
  for (int i = 0; i < nkeep; i++) free(keep[i]);
  free(keep);
  unmap_libs(libs, n);
  free(libs);
  return rc;
}
