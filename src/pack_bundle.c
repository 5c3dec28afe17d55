/* src/pack_bundle.c: The offload_bundle pack provider: a clang offload bundle, written
** in-process.  It is the layout clang-offload-bundler writes for -type=o without
** -compress, which HIP's hipModuleLoadData and clang-offload-bundler -unbundle read:
**   "__CLANG_OFFLOAD_BUNDLE__" (24 bytes), the number of entries, then per entry its
**   offset, its size, the length of its id and the id's bytes; then each entry's
**   bytes at its offset, what lies between them zero.  Integers are uint64 LE.
** The entries: one without bytes per -empty=ID option (HIP's bundles open with an
** empty host entry), then each member's blob under its id (the spec's pack_target).
** Each offset is where the entry before it ends (the first: where the header ends),
** rounded up to -bundle-align=N (default 1, as clang-offload-bundler's; HIP uses
** 4096), and the file ends where the last entry ends.  For the same inputs these are
** clang-offload-bundler's bytes (tests/test_pack.c compares them), made without a
** process or a file.  Why it exists beside the program: docs/benchmarks.md, "amdgcn packs". */

/* ---- offload bundles: the entries, their layout, the bytes ---- */
/* META_PACK_BUNDLE_MAGIC and BUNDLE_MAGIC_LEN: src/meta_pack.c, which reads bundles. */
enum { BUNDLE_MAX_ALIGN = 1 << 30 };

typedef struct bundle_entry {
  const char *id;
  const unsigned char *data;
  size_t size;
  uint64_t offset;
} bundle_entry;

typedef struct bundle {
  job *first; /* where errors go */
  bundle_entry *e;
  size_t n;
  uint64_t align;
} bundle;

static int bundle_error(bundle *b, int code, const char *what, const char *detail) {
  return handle_set_error(b->first->g, code, "offload_bundle (in-process) for %s: %s%s", b->first->t->name, what,
                   detail);
}

/* -bundle-align=N: plain digits, a power of two, at most 2^30. */
static int bundle_align(bundle *b, const char *v) {
  char *end;
  errno = 0;
  unsigned long long a = *v >= '1' && *v <= '9' ? strtoull(v, &end, 10) : 0;
  if (!a || errno || *end || a > BUNDLE_MAX_ALIGN || (a & (a - 1)))
    return bundle_error(b, GPUBLOB_TOOL, "-bundle-align wants a power of two up to 2^30, not ", v);
  b->align = a;
  return GPUBLOB_OK;
}

/* The spec's options: -bundle-align=N, and -empty=ID for an entry without bytes,
** each taken in order (the members' entries come after them). */
static int bundle_options(bundle *b, char *const *opts, size_t nopts) {
  int rc = GPUBLOB_OK;
  for (size_t i = 0; !rc && i < nopts; i++) {
    if (!strncmp(opts[i], "-bundle-align=", 14)) rc = bundle_align(b, opts[i] + 14);
    else if (!strncmp(opts[i], "-empty=", 7) && opts[i][7]) b->e[b->n++] = (bundle_entry){opts[i] + 7, NULL, 0, 0};
    else rc = bundle_error(b, GPUBLOB_TOOL, "unknown option in the spec's pack_provider_argv (known: "
                           "-bundle-align=N, -empty=ID): ", opts[i]);
  }
  return rc;
}

/* An id names one entry: a second entry of that id would be unreachable. */
static int bundle_check_ids(bundle *b) {
  for (size_t i = 0; i < b->n; i++)
    for (size_t k = 0; k < i; k++)
      if (!strcmp(b->e[i].id, b->e[k].id))
        return bundle_error(b, GPUBLOB_TOOL, "two entries have the id ", b->e[i].id);
  return GPUBLOB_OK;
}

/* Each entry's offset, and the file's size in *total; NOMEM past what memory holds. */
static int bundle_layout(bundle *b, size_t *total) {
  uint64_t at = BUNDLE_MAGIC_LEN + 8;
  for (size_t i = 0; i < b->n; i++) at += 3 * 8 + strlen(b->e[i].id);
  for (size_t i = 0; i < b->n; i++) {
    if (at > SIZE_MAX - b->align || b->e[i].size > SIZE_MAX - b->align - at)
      return bundle_error(b, GPUBLOB_NOMEM, "out of memory: the bundle would not fit", "");
    at = (at + b->align - 1) & ~(b->align - 1);
    b->e[i].offset = at;
    at += b->e[i].size;
  }
  *total = (size_t)at;
  return GPUBLOB_OK;
}

static unsigned char *put_le64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> 8 * i);
  return p + 8;
}

/* The header, then each entry's bytes at its offset; NUL-ended, as every blob is. */
static int bundle_write(bundle *b, size_t total, gpublob_blob *out) {
  unsigned char *data = calloc(total + 1, 1), *p = data;
  if (!data) return bundle_error(b, GPUBLOB_NOMEM, "out of memory", "");
  memcpy(p, META_PACK_BUNDLE_MAGIC, BUNDLE_MAGIC_LEN);
  p = put_le64(p + BUNDLE_MAGIC_LEN, b->n);
  for (size_t i = 0; i < b->n; i++) {
    size_t len = strlen(b->e[i].id);
    p = put_le64(put_le64(put_le64(p, b->e[i].offset), b->e[i].size), len);
    memcpy(p, b->e[i].id, len);
    p += len;
  }
  for (size_t i = 0; i < b->n; i++)
    if (b->e[i].size) memcpy(data + b->e[i].offset, b->e[i].data, b->e[i].size);
  *out = (gpublob_blob){data, total, NULL};
  return GPUBLOB_OK;
}

/* The members' blobs (bin, each under ids[i]) after the options' empty entries. */
static int offload_bundle_run(job *const *members, size_t n, char *const *ids, char *const *opts,
                              size_t nopts, gpublob_blob *out) {
  bundle b = {.first = members[0], .align = 1};
  b.e = calloc(n + nopts + 1, sizeof *b.e);
  if (!b.e) return bundle_error(&b, GPUBLOB_NOMEM, "out of memory", "");
  int rc = bundle_options(&b, opts, nopts);
  for (size_t i = 0; !rc && i < n; i++) b.e[b.n++] = (bundle_entry){ids[i], members[i]->out.data, members[i]->out.size, 0};
  size_t total = 0;
  if (!rc) rc = bundle_check_ids(&b);
  if (!rc) rc = bundle_layout(&b, &total);
  if (!rc) rc = bundle_write(&b, total, out);
  free(b.e);
  return rc;
}

GPUBLOB_PRIVATE const pack_provider_ops pack_bundle_ops = {"offload_bundle", offload_bundle_run};
