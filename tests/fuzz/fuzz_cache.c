/* fuzz_cache: libFuzzer harness of the cache's file reader (manifests, entries),
** in the LLVM-free cache front: src/front.c is #included so that its static
** functions can plant the files.  Input:
**   MODE MANIFEST [--entry-- ENTRY]
** MODE bit 0: MANIFEST is the whole file (header too), else the payload that
** cache_dir_write wraps in a valid header; bit 1: the same for ENTRY.  The manifest
** goes where a fixed call looks for it; the entry where that manifest leads.
** Then gpublob_cache_lookup (MODE bit 2: gpublob_cache_lookup_stream, whose sink
** must get exactly the bytes gpublob_cache_lookup then gives for the last output;
** bit 3: the sink fails at its second call, and the lookup must be IO or a miss
** with no output), and the temporary cache directory goes.
** It uses cache_dir_open, cache_deps_call_key, cache_dir_place, cache_dir_write and cache_lookup_manifest_key. */
#include "src/front.c"

#include <ftw.h>

static const char sep[] = "--entry--";

typedef struct sink {
  unsigned char *p;
  size_t n, calls;
  int fail_second;
} sink;

static int collect(void *ctx, const void *bytes, size_t size) {
  sink *s = ctx;
  if (size && !bytes) abort();
  if (++s->calls == 2 && s->fail_second) return 1;
  unsigned char *p = realloc(s->p, s->n + size + 1);
  if (!p) abort();
  memcpy(p + s->n, bytes, size);
  s->p = p;
  s->n += size;
  return 0;
}

/* A streamed hit's bytes against the same lookup's, not streamed: the same. */
static void check_streamed(gpublob *g, const gpublob_options *o, const gpublob_input *in, const sink *s) {
  gpublob_result whole;
  if (gpublob_cache_lookup(g, o, in, &whole) != GPUBLOB_OK || !whole.count) abort();
  const gpublob_blob *b = &whole.outputs[whole.count - 1].blob;
  if (b->size != s->n || (s->n && memcmp(b->data, s->p, s->n))) abort();
  gpublob_result_free(&whole);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *f) {
  (void)st, (void)flag, (void)f;
  return remove(path);
}

/* Puts bytes at k's file of kind: as they are (raw), or as the payload of a valid file. */
static void plant(digest_cache *c, const digest_key128 *k, char kind, const uint8_t *p, size_t n, int raw) {
  if (!raw) {
    strbuf b = {0};
    sb_addn(&b, (const char *)p, n);
    cache_dir_write(c, k, kind, &b);
    sb_free(&b);
    return;
  }
  char name[40];
  int dirfd = c->rootfd < 0 ? -1 : cache_dir_place(c, k, kind, name, 1);
  int fd = dirfd < 0 ? -1 : openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600);
  if (fd >= 0) {
    if (write(fd, p, n) < 0) {}
    close(fd);
  }
  if (dirfd >= 0) close(dirfd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!size) return 0;
  int mode = data[0];
  const uint8_t *man = data + 1, *ent = NULL, *end = data + size;
  for (const uint8_t *p = man; p + sizeof sep - 1 <= end; p++)
    if (!memcmp(p, sep, sizeof sep - 1)) {
      ent = p + sizeof sep - 1;
      break;
    }
  size_t man_n = (size_t)((ent ? ent - (sizeof sep - 1) : end) - man);

  const char *tmp = getenv("TMPDIR");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/fuzz-cache-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) abort();

  gpublob *g;
  if (gpublob_open(&g)) abort();
  static const char input[] = "target triple = \"nvptx64-nvidia-cuda\"\n";
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION};
  o.target = "nvptx";
  o.format = GPUBLOB_FORMAT_ASM;
  o.flags = GPUBLOB_FLAG_NO_DEFAULT_SEARCH;
  o.cache_dir = dir;
  digest_cache c;
  cache_dir_open(&c, g, &o);
  digest_key128 k0 = cache_deps_call_key(&o, GPUBLOB_INPUT_LLVM, input, sizeof input - 1, "fuzz.ll");
  plant(&c, &k0, 'm', man, man_n, mode & 1);
  if (ent) { /* the key the manifest leads to, as the lookup will take it */
    size_t skip = mode & 1 ? sizeof(digest_entry_header) : 0;
    cache_lookup_reader r = {man + (man_n < skip ? man_n : skip), man + man_n, 0, NULL};
    digest_key128 k1;
    if (!cache_lookup_manifest_key(&c, &k0, &o, &r, &k1)) plant(&c, &k1, 'e', ent, (size_t)(end - ent), mode & 2);
  }
  cache_deps_close(&c);

  gpublob_result res;
  const gpublob_input in = {GPUBLOB_INPUT_LLVM, input, sizeof input - 1, NULL, "fuzz.ll"};
  sink streamed = {.fail_second = (mode & 8) != 0};
  int stream = (mode & 4) != 0;
  int rc = stream ? gpublob_cache_lookup_stream(g, &o, &in, &res, collect, &streamed)
                  : gpublob_cache_lookup(g, &o, &in, &res);
  if (getenv("FUZZ_VERBOSE")) /* what each input gives, when replaying one */
    fprintf(stderr, "%s (%zu outputs)\n", rc ? gpublob_error_message(g) : "hit", res.count);
  if (rc == GPUBLOB_OK) {
    for (size_t i = 0; i < res.count; i++) /* every string owned and non-NULL */
      if (!res.outputs[i].chip || !res.outputs[i].tool || !res.outputs[i].blob.suffix) abort();
    if (stream && (!res.count || res.outputs[res.count - 1].blob.data ||
                   res.outputs[res.count - 1].blob.size != streamed.n))
      abort(); /* the last output: no data, and as many bytes as the sink got */
    if (stream && streamed.fail_second && streamed.calls > 1) abort(); /* a failed write is no hit */
    if (stream) check_streamed(g, &o, &in, &streamed);
  } else if (res.count || res.outputs) {
    abort();
  }
  free(streamed.p);
  gpublob_result_free(&res);
  gpublob_close(g);
  nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
  return 0;
}
