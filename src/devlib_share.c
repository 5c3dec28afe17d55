/* src/devlib_share.c: Device libraries shared by the jobs of a call.  Each library
** file is mapped once per call, the names it defines are read once, and the part of
** it that a set of needed names pulls in (a subset: those definitions and whatever
** they use) is linked out of it once, into bitcode.  A job then loads that small
** subset instead of the whole library: libdevice and ocml are parsed once a call,
** not once a job.
**
** Every job links the subset, whichever job made it, and a subset depends only on
** the library, the needed names (sorted) and the module's triple and data layout,
** so a job's blob does not depend on the other jobs of its call.  The pool makes the
** table for a call; a job outside the pool (an isolated child) makes its own. */

GPUBLOB_PRIVATE void devlib_share_init(devlib_share *s) {
  memset(s, 0, sizeof *s);
  pthread_mutex_init(&s->mu, NULL);
}

static void shared_lib_free(devlib_share_lib *l) {
  for (size_t i = 0; i < l->nnames; i++) free(l->names[i]);
  free(l->names);
  for (size_t i = 0; i < l->nsubsets; i++) {
    sb_free(&l->subsets[i]->key);
    sb_free(&l->subsets[i]->bitcode);
    free(l->subsets[i]);
  }
  free(l->subsets);
  if (l->map) munmap(l->map, l->size);
  sb_free(&l->path);
  free(l);
}

GPUBLOB_PRIVATE void devlib_share_free(devlib_share *s) {
  for (size_t i = 0; i < s->nlibs; i++) shared_lib_free(s->libs[i]);
  free(s->libs);
  pthread_mutex_destroy(&s->mu);
}

/* The pool's table for one call, on the caller's handle while its jobs run. */
GPUBLOB_PRIVATE void devlib_share_open(gpublob *g) {
  devlib_share *s = malloc(sizeof *s);
  if (s) devlib_share_init(s);
  g->lib_share = s; /* NULL: each job shares with itself alone */
}

GPUBLOB_PRIVATE void devlib_share_close(gpublob *g) {
  if (!g->lib_share) return;
  devlib_share_free(g->lib_share);
  free(g->lib_share);
  g->lib_share = NULL;
}

static int map_file(const char *path, void **map, size_t *size) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st)) {
    int e = errno;
    if (fd >= 0) close(fd);
    return e ? e : EIO;
  }
  *size = (size_t)st.st_size;
  *map = *size ? mmap(NULL, *size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
  close(fd);
  if (*map != MAP_FAILED) return 0;
  *map = NULL;
  return *size ? ENOMEM : EINVAL;
}

/* The library at path, mapped: the table's entry, made (and mapped) by the first job
** that asks; NULL with the job's error set. */
GPUBLOB_PRIVATE devlib_share_lib *devlib_share_lib_get(job *j, devlib_share *s, const char *path) {
  pthread_mutex_lock(&s->mu);
  devlib_share_lib *l = NULL, **grown;
  for (size_t i = 0; i < s->nlibs && !l; i++)
    if (!strcmp(sb_str(&s->libs[i]->path), path)) l = s->libs[i];
  int err = 0;
  if (!l && (l = calloc(1, sizeof *l)) && (grown = realloc(s->libs, (s->nlibs + 1) * sizeof *grown))) {
    sb_add(&l->path, path);
    err = l->path.oom ? ENOMEM : map_file(path, &l->map, &l->size);
    s->libs = grown;
    s->libs[s->nlibs++] = l;
  } else if (!l || !s->libs) {
    free(l);
    l = NULL;
    err = ENOMEM;
  }
  if (!err && l && !l->map) err = EINVAL; /* an earlier job could not map it */
  pthread_mutex_unlock(&s->mu);
  if (err == ENOMEM) handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  else if (err) handle_set_error(j->g, GPUBLOB_NOLIB, "cannot map device library %s: %s", path,
                          err == EINVAL ? "it is empty, or no regular file" : strerror(err));
  return err ? NULL : l;
}

static int name_order(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int defines(LLVMValueRef v) { return !LLVMIsDeclaration(v); }

/* The names of m's functions and variables that want takes, strdup'd into *out:
** their count, or -1 when out of memory (*out NULL). */
GPUBLOB_PRIVATE ptrdiff_t devlib_share_collect_names(LLVMModuleRef m, int (*want)(LLVMValueRef), char ***out) {
  size_t n = 0, cap = 64;
  char **names = malloc(cap * sizeof *names);
  LLVMValueRef first[2] = {LLVMGetFirstFunction(m), LLVMGetFirstGlobal(m)};
  for (int kind = 0; kind < 2 && names; kind++)
    for (LLVMValueRef v = first[kind]; v && names; v = kind ? LLVMGetNextGlobal(v) : LLVMGetNextFunction(v)) {
      if (!want(v)) continue;
      char **grown = n == cap ? realloc(names, (cap *= 2) * sizeof *names) : names;
      char *name = grown ? strdup(LLVMGetValueName2(v, &(size_t){0})) : NULL;
      if (!name) {
        for (size_t i = 0; i < n; i++) free((grown ? grown : names)[i]);
        free(grown ? grown : names);
        names = NULL;
      } else {
        names = grown;
        names[n++] = name;
      }
    }
  *out = names;
  return names ? (ptrdiff_t)n : -1;
}

/* The names lib (loaded lazily) defines, read into l once per call; 0, or -1 out of memory. */
GPUBLOB_PRIVATE int devlib_share_lib_index(devlib_share_lib *l, devlib_share *s, LLVMModuleRef lib) {
  pthread_mutex_lock(&s->mu);
  int done = l->names != NULL;
  pthread_mutex_unlock(&s->mu);
  if (done) return 0;
  char **names;
  ptrdiff_t n = devlib_share_collect_names(lib, defines, &names);
  if (n < 0) return -1;
  qsort(names, (size_t)n, sizeof *names, name_order);
  pthread_mutex_lock(&s->mu);
  int kept = l->names == NULL;
  if (kept) {
    l->names = names;
    l->nnames = (size_t)n;
  }
  pthread_mutex_unlock(&s->mu);
  if (!kept) { /* another job read it meanwhile: the same names */
    for (ptrdiff_t i = 0; i < n; i++) free(names[i]);
    free(names);
  }
  return 0;
}

/* The names l defines, read under the table's lock (once set they never change):
** 1, or 0 while no job has read them. */
GPUBLOB_PRIVATE int devlib_share_lib_names(const devlib_share_lib *l, devlib_share *s, char *const **names, size_t *n) {
  pthread_mutex_lock(&s->mu);
  *names = l->names;
  *n = l->nnames;
  pthread_mutex_unlock(&s->mu);
  return *names != NULL;
}

static int names_have(char *const *names, size_t n, const char *name) {
  return bsearch(&name, names, n, sizeof *names, name_order) != NULL;
}

static int name_is_needed(LLVMValueRef v, int function) {
  return LLVMIsDeclaration(v) && (!function || !LLVMGetIntrinsicID(v));
}

/* The key of the subset of a library (the names it defines: defined, ndefined) that
** module m needs: its triple, its data layout and the names m declares and the library
** defines, sorted; *count of them (0: the library adds nothing). */
GPUBLOB_PRIVATE int devlib_share_subset_key(char *const *defined, size_t ndefined, LLVMModuleRef m, strbuf *key, size_t *count) {
  size_t n = 0, cap = 16;
  const char **need = malloc(cap * sizeof *need);
  LLVMValueRef first[2] = {LLVMGetFirstFunction(m), LLVMGetFirstGlobal(m)};
  for (int kind = 0; kind < 2 && need; kind++)
    for (LLVMValueRef v = first[kind]; v && need; v = kind ? LLVMGetNextGlobal(v) : LLVMGetNextFunction(v)) {
      const char *name = LLVMGetValueName2(v, &(size_t){0});
      if (!name_is_needed(v, !kind) || !names_have(defined, ndefined, name)) continue;
      const char **grown = n == cap ? realloc(need, (cap *= 2) * sizeof *need) : need;
      if (!grown) free(need);
      if ((need = grown)) need[n++] = name;
    }
  if (!need) return -1;
  qsort(need, n, sizeof *need, name_order);
  const char *triple = LLVMGetTarget(m), *layout = LLVMGetDataLayoutStr(m);
  sb_addn(key, triple, strlen(triple) + 1);
  sb_addn(key, layout, strlen(layout) + 1);
  for (size_t i = 0; i < n; i++) sb_addn(key, need[i], strlen(need[i]) + 1);
  free(need);
  *count = n;
  return key->oom ? -1 : 0;
}

static const devlib_share_subset *subset_find_locked(const devlib_share_lib *l, const strbuf *key) {
  for (size_t i = 0; i < l->nsubsets; i++)
    if (l->subsets[i]->key.len == key->len && !memcmp(l->subsets[i]->key.s, key->s, key->len))
      return l->subsets[i];
  return NULL;
}

/* The subset of l under key, or NULL when no job has made it yet this call. */
GPUBLOB_PRIVATE const devlib_share_subset *devlib_share_subset_find(const devlib_share_lib *l, devlib_share *s, const strbuf *key) {
  pthread_mutex_lock(&s->mu);
  const devlib_share_subset *found = subset_find_locked(l, key);
  pthread_mutex_unlock(&s->mu);
  return found;
}

/* Files a subset a job made (key and bitcode taken); the table's copy, which is the
** one to use (a job that made the same meanwhile filed the same bytes), or NULL when
** out of memory. */
GPUBLOB_PRIVATE const devlib_share_subset *devlib_share_subset_file(devlib_share_lib *l, devlib_share *s, strbuf *key, strbuf *bitcode) {
  devlib_share_subset *made = calloc(1, sizeof *made), **grown = NULL;
  pthread_mutex_lock(&s->mu);
  const devlib_share_subset *found = subset_find_locked(l, key);
  if (!found && made && (grown = realloc(l->subsets, (l->nsubsets + 1) * sizeof *grown))) {
    made->key = sb_move(key);
    made->bitcode = sb_move(bitcode);
    l->subsets = grown;
    l->subsets[l->nsubsets++] = made;
    found = made;
    made = NULL;
  }
  pthread_mutex_unlock(&s->mu);
  free(made);
  return found;
}

/* The subset module: a declaration of each needed name (key's names) with lib linked
** in (lib is consumed), in lib's context, as bitcode. */
GPUBLOB_PRIVATE int devlib_share_subset_make(job *j, LLVMModuleRef lib, const strbuf *key, strbuf *bitcode) {
  LLVMModuleRef sub = LLVMModuleCreateWithNameInContext("gpublob-subset", LLVMGetModuleContext(lib));
  const char *p = key->s, *end = key->s + key->len;
  LLVMSetTarget(sub, p);
  p += strlen(p) + 1;
  LLVMSetDataLayout(sub, p);
  for (p += strlen(p) + 1; p < end; p += strlen(p) + 1) {
    LLVMValueRef f = LLVMGetNamedFunction(lib, p), v = f ? NULL : LLVMGetNamedGlobal(lib, p);
    if (f) LLVMAddFunction(sub, p, LLVMGlobalGetValueType(f));
    else if (v) LLVMAddGlobalInAddressSpace(sub, LLVMGlobalGetValueType(v), p,
                                            LLVMGetPointerAddressSpace(LLVMTypeOf(v)));
  }
  sb_reset(&j->diag);
  if (LLVMLinkModules2(sub, lib)) {
    LLVMDisposeModule(sub);
    return GPUBLOB_LINK;
  }
  LLVMMemoryBufferRef mb = LLVMWriteBitcodeToMemoryBuffer(sub);
  LLVMDisposeModule(sub);
  if (!mb) return GPUBLOB_NOMEM;
  sb_addn(bitcode, LLVMGetBufferStart(mb), LLVMGetBufferSize(mb));
  LLVMDisposeMemoryBuffer(mb);
  return bitcode->oom ? GPUBLOB_NOMEM : GPUBLOB_OK;
}
