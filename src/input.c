/* src/input.c: Input: what a call reads (gpublob_input), held whole and NUL-terminated
** for the IR parser within max_input, and taken as LLVM IR or MLIR by its content.
** Shared with the cache front, whose lookups key on the same bytes and kind. */

/* ---- input: the bytes, whole, NUL-terminated for the IR parser ---- */
static unsigned long long max_input(const gpublob_options *o) {
  return o->max_input ? o->max_input : GPUBLOB_MAX_INPUT_DEFAULT;
}

static int too_big(gpublob *g, const char *name, const gpublob_options *o) {
  return set_error(g, GPUBLOB_IO, "'%s' is larger than the input limit of %llu bytes (--max-input, "
                   "max_input)", name, max_input(o));
}

static int read_input(gpublob *g, const gpublob_options *o, const char *path, unsigned char **data,
                      size_t *size) {
  int stdin_ = !strcmp(path, "-");
  int fd = stdin_ ? 0 : open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return set_error(g, GPUBLOB_IO, "cannot open '%s': %s", path, strerror(errno));
  unsigned long long max = max_input(o);
  int rc = read_fd(fd, data, size, max < SIZE_MAX ? (size_t)max : SIZE_MAX - 1);
  int err = errno;
  if (!stdin_) close(fd);
  if (rc && err == EFBIG) return too_big(g, path, o);
  if (rc) return set_error(g, GPUBLOB_IO, "cannot read '%s': %s", path, strerror(err));
  return GPUBLOB_OK;
}

/* ---- input: LLVM IR or MLIR, by content ---- */
static int looks_like_bitcode(const unsigned char *p, size_t n) {
  static const unsigned char raw[4] = {'B', 'C', 0xC0, 0xDE}, wrap[4] = {0xDE, 0xC0, 0x17, 0x0B};
  return n >= 4 && (!memcmp(p, raw, 4) || !memcmp(p, wrap, 4));
}

static int looks_like_mlir_bytecode(const unsigned char *p, size_t n) {
  return n >= 4 && !memcmp(p, "ML\xefR", 4);
}

static int has_suffix(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && !strcmp(s + n - m, suffix);
}

static int starts_with_word(const unsigned char *p, size_t n, const char *const *words) {
  for (; *words; words++)
    if (n >= strlen(*words) && !memcmp(p, *words, strlen(*words))) return 1;
  return 0;
}

/* The first token of text, past blanks: LLVM IR's comments start with ';',
** MLIR's with "//"; each has top-level forms the other has not.  "!" starts both
** (LLVM metadata, an MLIR type alias): the kind is then unknown. */
static int text_kind(const unsigned char *p, size_t n) {
  static const char *const llvm[] = {";", "source_filename", "target ", "define", "declare", "@", "%",
                                     "$", "attributes", "module asm", "uselistorder", NULL};
  static const char *const mlir[] = {"//", "module", "gpu.module", "#", "\"", "{-#", "func.", "llvm.",
                                     "builtin.", "^", NULL};
  size_t i = 0;
  while (i < n && strchr(" \t\r\n", p[i]) && p[i]) i++;
  if (starts_with_word(p + i, n - i, llvm)) return GPUBLOB_INPUT_LLVM; /* before MLIR's "module" */
  if (starts_with_word(p + i, n - i, mlir)) return GPUBLOB_INPUT_MLIR;
  return GPUBLOB_INPUT_AUTO;
}

/* AUTO resolved: magic, then the text's first token, then the name's suffix, then
** LLVM IR (whose parser then names what it found). */
static int input_kind_of(int kind, const unsigned char *p, size_t n, const char *name) {
  if (kind != GPUBLOB_INPUT_AUTO) return kind;
  if (looks_like_bitcode(p, n)) return GPUBLOB_INPUT_LLVM;
  if (looks_like_mlir_bytecode(p, n)) return GPUBLOB_INPUT_MLIR;
  int by_text = text_kind(p, n);
  if (by_text) return by_text;
  return has_suffix(name, ".mlir") || has_suffix(name, ".mlirbc") ? GPUBLOB_INPUT_MLIR : GPUBLOB_INPUT_LLVM;
}

/* ---- input: a call's, checked and held ---- */
typedef struct input_held {
  unsigned char *data; /* NUL at data[size]; owned */
  size_t size;
  const char *name;    /* the caller's, the path, "<stdin>" or "<memory>" */
  int kind;            /* LLVM or MLIR, resolved */
} input_held;

static int input_check(gpublob *g, const gpublob_input *in) {
  if (!in) return set_error(g, GPUBLOB_MISUSE, "NULL input");
  if (in->kind < GPUBLOB_INPUT_AUTO || in->kind > GPUBLOB_INPUT_MLIR)
    return set_error(g, GPUBLOB_MISUSE, "unknown input kind %d", in->kind);
  if (in->path && (in->data || in->size))
    return set_error(g, GPUBLOB_MISUSE, "input gives both a path and data; give one");
  if (!in->path && !in->data && in->size) return set_error(g, GPUBLOB_MISUSE, "NULL input data of %zu bytes", in->size);
  if (in->size == (size_t)-1) return set_error(g, GPUBLOB_MISUSE, "an impossible input size");
  return GPUBLOB_OK;
}

static int input_copy(gpublob *g, const gpublob_options *o, const gpublob_input *in, input_held *h) {
  h->name = in->name ? in->name : "<memory>";
  if (in->size > max_input(o)) return too_big(g, h->name, o);
  if (!(h->data = malloc(in->size + 1))) return set_error(g, GPUBLOB_NOMEM, "out of memory (%zu bytes)", in->size);
  if (in->size) memcpy(h->data, in->data, in->size);
  h->data[in->size] = 0;
  h->size = in->size;
  return GPUBLOB_OK;
}

/* The input whole in h (free h->data), its kind resolved: OK, MISUSE, IO, NOMEM. */
static int input_hold(gpublob *g, const gpublob_options *o, const gpublob_input *in, input_held *h) {
  memset(h, 0, sizeof *h);
  int rc = input_check(g, in);
  if (!rc && !in->path) rc = input_copy(g, o, in, h);
  else if (!rc) {
    h->name = in->name ? in->name : strcmp(in->path, "-") ? in->path : "<stdin>";
    rc = read_input(g, o, in->path, &h->data, &h->size);
  }
  if (!rc) h->kind = input_kind_of(in->kind, h->data, h->size, h->name);
  return rc;
}
