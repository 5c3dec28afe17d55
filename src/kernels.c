/* src/kernels.c: Kernel metadata, the shared pieces: the table the readers fill
** (src/meta_amdgpu.c, src/meta_nvinfo.c, src/meta_pack.c), the kernels' parameters in
** it, and the figures they combine, bounded.  The readers see an ELF64 file through
** src/elf.c, which checks every offset and size against the blob before it is read.
** The table is bounded too: KT_MAX_KERNELS records, KT_MAX_PARAMS parameters a kernel,
** names of KT_MAX_NAME bytes; a parameter outside its kernel's parameter bytes, or
** two at one index, is TOOL. */

/* ---- the kernel table ---- */

GPUBLOB_PRIVATE void kt_free(ktable *t) {
  for (size_t i = 0; i < t->nstr; i++) free(t->str[i]);
  free(t->str);
  free(t->k);
  free(t->p);
  memset(t, 0, sizeof *t);
}

/* A copy of s (n bytes) the table owns; NULL when memory is out. */
static const char *kt_str(ktable *t, const char *s, size_t n) {
  char *c = util_grow(&t->str, t->nstr, sizeof *t->str) ? NULL : malloc(n + 1);
  if (!c) return NULL;
  memcpy(c, s, n);
  c[n] = 0;
  t->str[t->nstr++] = c;
  return c;
}

/* Figures as a reader combines them (a block's threads, spills of two kinds): each
** a count (>= 0), and -1 (not known) where the result is more than a long long holds,
** never a signed overflow (the figures are a blob's, anyone's). */
GPUBLOB_PRIVATE long long kt_count_mul(long long a, long long b) {
  if (a < 0 || b < 0) return -1;
  return a && b > LLONG_MAX / a ? -1 : a * b;
}

GPUBLOB_PRIVATE long long kt_count_add(long long a, long long b) {
  if (a < 0 || b < 0) return -1;
  return b > LLONG_MAX - a ? -1 : a + b;
}

/* A kernel of which nothing is known yet: every figure -1 (not recorded), no
** required size, no occupancy limiter. */
GPUBLOB_PRIVATE gpublob_kernel_info kt_blank(const char *name, const char *chip) {
  return (gpublob_kernel_info){name, chip, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, {0, 0, 0},
                               -1, -1, -1, -1.0, "", -1, -1, -1};
}

/* A new record: every figure -1 (not recorded), no required size, name and chip
** copied; NULL with the handle's error (TOOL past KT_MAX_KERNELS, NOMEM). */
GPUBLOB_PRIVATE gpublob_kernel_info *kt_add(gpublob *g, ktable *t, const char *name, size_t n, const char *chip) {
  if (t->n >= KT_MAX_KERNELS) {
    handle_set_error(g, GPUBLOB_TOOL, "more than %d kernels in one blob", KT_MAX_KERNELS);
    return NULL;
  }
  if (n > KT_MAX_NAME) {
    handle_set_error(g, GPUBLOB_TOOL, "a kernel's name is longer than %d bytes", KT_MAX_NAME);
    return NULL;
  }
  const char *nm = kt_str(t, name, n), *ch = nm ? kt_str(t, chip, strlen(chip)) : NULL;
  if (!ch || util_grow(&t->k, t->n, sizeof *t->k)) {
    handle_set_error(g, GPUBLOB_NOMEM, "out of memory reading kernel metadata");
    return NULL;
  }
  gpublob_kernel_info *k = &t->k[t->n++];
  *k = kt_blank(nm, ch);
  return k;
}

/* A copy of s (n bytes) the table owns; NULL with the handle's error (TOOL past
** KT_MAX_NAME bytes, NOMEM). */
GPUBLOB_PRIVATE const char *kt_copy(gpublob *g, ktable *t, const char *s, size_t n) {
  if (n > KT_MAX_NAME) {
    handle_set_error(g, GPUBLOB_TOOL, "a name in the kernel metadata is longer than %d bytes", KT_MAX_NAME);
    return NULL;
  }
  const char *c = kt_str(t, s, n);
  if (!c) handle_set_error(g, GPUBLOB_NOMEM, "out of memory reading kernel metadata");
  return c;
}

/* ---- the parameters ---- */
/* A new parameter of the table's kernel number kernel (the last one, or the next to be
** added), of kind (n bytes): its index its place among the kernel's, its offset and
** size -1 (not read yet), no address space or name; NULL with the handle's error
** (TOOL past KT_MAX_PARAMS, NOMEM). */
GPUBLOB_PRIVATE gpublob_param_info *kt_param_add(gpublob *g, ktable *t, size_t kernel, const char *kind, size_t n) {
  size_t before = kt_params_of(t, kernel, &(size_t){0});
  if (before >= KT_MAX_PARAMS) {
    handle_set_error(g, GPUBLOB_TOOL, "a kernel with more than %d parameters", KT_MAX_PARAMS);
    return NULL;
  }
  const char *k = kt_copy(g, t, kind, n);
  if (!k) return NULL;
  if (util_grow(&t->p, t->np, sizeof *t->p)) {
    handle_set_error(g, GPUBLOB_NOMEM, "out of memory reading kernel metadata");
    return NULL;
  }
  kt_param *p = &t->p[t->np++];
  *p = (kt_param){kernel, {(long long)before, -1, -1, k, 0, "", ""}};
  return &p->info;
}

static int kt_param_cmp(const void *a, const void *b) {
  long long x = ((const kt_param *)a)->info.index, y = ((const kt_param *)b)->info.index;
  return (x > y) - (x < y);
}

/* The parameters of kernel number kernel, put in index order and checked: each with
** an offset and a size, inside the kernel's bytes of parameters where known (bytes >=
** 0), no two at one index; TOOL naming what (the reader's words) otherwise. */
GPUBLOB_PRIVATE int kt_params_check(gpublob *g, ktable *t, size_t kernel, long long bytes, const char *what) {
  size_t first, n = kt_params_of(t, kernel, &first);
  if (!n) return GPUBLOB_OK; /* t->p may be NULL: qsort takes no NULL, even for none */
  kt_param *p = t->p + first;
  qsort(p, n, sizeof *p, kt_param_cmp);
  for (size_t i = 0; i < n; i++) {
    const gpublob_param_info *a = &p[i].info;
    if (a->offset < 0 || a->size < 0)
      return handle_set_error(g, GPUBLOB_TOOL, "%s: parameter %lld without an offset or a size", what, a->index);
    if (a->size > LLONG_MAX - a->offset || (bytes >= 0 && a->offset + a->size > bytes))
      return handle_set_error(g, GPUBLOB_TOOL, "%s: parameter %lld (%lld bytes at %lld) lies outside the kernel's %lld "
                              "bytes of parameters", what, a->index, a->size, a->offset, bytes);
    if (i && a->index == p[i - 1].info.index)
      return handle_set_error(g, GPUBLOB_TOOL, "%s: two parameters at index %lld", what, a->index);
  }
  return GPUBLOB_OK;
}

/* The first parameter of the table whose kernel's number is kernel or more. */
static size_t kt_params_from(const ktable *t, size_t kernel) {
  size_t lo = 0, hi = t->np;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (t->p[mid].kernel < kernel) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* How many parameters kernel number kernel has, the first at *first (the table keeps
** each kernel's together, in kernel order). */
GPUBLOB_PRIVATE size_t kt_params_of(const ktable *t, size_t kernel, size_t *first) {
  *first = kt_params_from(t, kernel);
  return kt_params_from(t, kernel + 1) - *first;
}
