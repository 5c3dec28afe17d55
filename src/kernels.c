/* src/kernels.c: Kernel metadata, the shared pieces: the table the readers fill
** (src/meta_amdgpu.c, src/meta_nvinfo.c, src/meta_pack.c), and the figures they combine,
** bounded.  The readers see an ELF64 file through src/elf.c, which checks every offset
** and size against the blob before it is read.  The table is bounded too:
** KT_MAX_KERNELS records, names of KT_MAX_NAME bytes. */

/* ---- the kernel table ---- */

GPUBLOB_PRIVATE void kt_free(ktable *t) {
  for (size_t i = 0; i < t->nstr; i++) free(t->str[i]);
  free(t->str);
  free(t->k);
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
