/* src/input.c: Input: what a call reads (gpublob_input), held whole and NUL-terminated
** for the IR parser within max_input, and taken as LLVM IR or MLIR by its content.
** Shared with the cache front, whose lookups key on the same bytes and kind. */

/* ---- input: the bytes, whole, NUL-terminated for the IR parser ---- */
static unsigned long long max_input(const gpublob_options *o) {
  return o->max_input ? o->max_input : GPUBLOB_MAX_INPUT_DEFAULT;
}

static int too_big(gpublob *g, const char *name, const gpublob_options *o) {
  return handle_set_error(g, GPUBLOB_IO, "'%s' is larger than the input limit of %llu bytes (--max-input, "
                   "max_input)", name, max_input(o));
}

static int read_input(gpublob *g, const gpublob_options *o, const char *path, unsigned char **data,
                      size_t *size) {
  int stdin_ = !strcmp(path, "-");
  int fd = stdin_ ? 0 : open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return handle_set_error(g, GPUBLOB_IO, "cannot open '%s': %s", path, strerror(errno));
  unsigned long long max = max_input(o);
  int rc = io_read_fd(fd, data, size, max < SIZE_MAX ? (size_t)max : SIZE_MAX - 1);
  int err = errno;
  if (!stdin_) close(fd);
  if (rc && err == EFBIG) return too_big(g, path, o);
  if (rc) return handle_set_error(g, GPUBLOB_IO, "cannot read '%s': %s", path, strerror(err));
  return GPUBLOB_OK;
}

/* ---- input: LLVM IR or MLIR, by content ---- */
GPUBLOB_PRIVATE int input_looks_like_bitcode(const unsigned char *p, size_t n) {
  static const unsigned char raw[4] = {'B', 'C', 0xC0, 0xDE}, wrap[4] = {0xDE, 0xC0, 0x17, 0x0B};
  return n >= 4 && (!memcmp(p, raw, 4) || !memcmp(p, wrap, 4));
}

GPUBLOB_PRIVATE int input_looks_like_mlir_bytecode(const unsigned char *p, size_t n) {
  return n >= 4 && !memcmp(p, "ML\xefR", 4);
}

GPUBLOB_PRIVATE int input_has_suffix(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && !strcmp(s + n - m, suffix);
}

static int starts_with_word(const unsigned char *p, size_t n, const char *const *words) {
  for (; *words; words++)
    if (n >= strlen(*words) && !memcmp(p, *words, strlen(*words))) return 1;
  return 0;
}

/* "!name = ..." starts LLVM metadata (its value "!{...}", "!DI...", "distinct ...")
** or an MLIR type alias (its value a type): told apart by the value. */
static int bang_kind(const unsigned char *p, size_t n) {
  const unsigned char *eq = memchr(p, '=', n), *end = p + n;
  if (!eq || memchr(p, '\n', (size_t)(eq - p))) return GPUBLOB_INPUT_AUTO;
  const unsigned char *v = eq + 1;
  while (v < end && (*v == ' ' || *v == '\t')) v++;
  static const char *const metadata[] = {"!", "distinct", NULL};
  return starts_with_word(v, (size_t)(end - v), metadata) ? GPUBLOB_INPUT_LLVM : GPUBLOB_INPUT_MLIR;
}

/* An MLIR operation's name: dialect.op (gpu.binary, func.func), which no LLVM IR
** top-level form starts with. */
static int is_dialect_op(const unsigned char *p, size_t n) {
  size_t i = 0;
  while (i < n && (islower(p[i]) || isdigit(p[i]) || p[i] == '_')) i++;
  return i && i + 1 < n && p[i] == '.' && isalpha(p[i + 1]);
}

/* The first token of text, past a UTF-8 byte-order mark and blanks: LLVM IR's
** comments start with ';', MLIR's with "//"; each has top-level forms the other
** has not. */
static int text_kind(const unsigned char *p, size_t n) {
  static const char *const llvm[] = {";", "source_filename", "target ", "define", "declare", "@", "%",
                                     "$", "^", "attributes", "module asm", "uselistorder", NULL};
  static const char *const mlir[] = {"//", "module", "#", "\"", "{-#", NULL};
  size_t i = n >= 3 && !memcmp(p, "\xef\xbb\xbf", 3) ? 3 : 0;
  while (i < n && strchr(" \t\r\n", p[i]) && p[i]) i++;
  if (starts_with_word(p + i, n - i, llvm)) return GPUBLOB_INPUT_LLVM; /* before MLIR's "module" */
  if (starts_with_word(p + i, n - i, mlir) || is_dialect_op(p + i, n - i)) return GPUBLOB_INPUT_MLIR;
  if (i < n && p[i] == '!') return bang_kind(p + i, n - i);
  return GPUBLOB_INPUT_AUTO;
}

/* AUTO resolved: magic, then the text's first token, then a name's suffix (the
** label's or the path's), then LLVM IR (whose parser then names what it found). */
GPUBLOB_PRIVATE int input_kind_of(int kind, const unsigned char *p, size_t n, const char *name, const char *path) {
  if (kind != GPUBLOB_INPUT_AUTO) return kind;
  if (input_looks_like_bitcode(p, n)) return GPUBLOB_INPUT_LLVM;
  if (input_looks_like_mlir_bytecode(p, n)) return GPUBLOB_INPUT_MLIR;
  int by_text = text_kind(p, n);
  if (by_text) return by_text;
  for (int k = 0; k < 2; k++) {
    const char *s = k ? path : name;
    if (s && (input_has_suffix(s, ".mlir") || input_has_suffix(s, ".mlirbc"))) return GPUBLOB_INPUT_MLIR;
  }
  return GPUBLOB_INPUT_LLVM;
}

/* ---- input: a call's, checked and held ---- */

GPUBLOB_PRIVATE int input_check(gpublob *g, const gpublob_input *in) {
  if (!in) return handle_set_error(g, GPUBLOB_MISUSE, "NULL input");
  if (in->kind < GPUBLOB_INPUT_AUTO || in->kind > GPUBLOB_INPUT_MLIR)
    return handle_set_error(g, GPUBLOB_MISUSE, "unknown input kind %d", in->kind);
  if (in->path && (in->data || in->size))
    return handle_set_error(g, GPUBLOB_MISUSE, "input gives both a path and data; give one");
  if (!in->path && !in->data)
    return handle_set_error(g, GPUBLOB_MISUSE, "input gives neither a path nor data (for empty input, data "
                     "points at 0 bytes)");
  if (in->size == (size_t)-1) return handle_set_error(g, GPUBLOB_MISUSE, "an impossible input size");
  return GPUBLOB_OK;
}

static int input_copy(gpublob *g, const gpublob_options *o, const gpublob_input *in, input_held *h) {
  h->name = in->name ? in->name : "<memory>";
  if (in->size > max_input(o)) return too_big(g, h->name, o);
  if (!(h->data = malloc(in->size + 1))) return handle_set_error(g, GPUBLOB_NOMEM, "out of memory (%zu bytes)", in->size);
  if (in->size) memcpy(h->data, in->data, in->size);
  h->data[in->size] = 0;
  h->size = in->size;
  return GPUBLOB_OK;
}

/* The input whole in h (free h->data), its kind resolved: OK, MISUSE, IO, NOMEM. */
GPUBLOB_PRIVATE int input_hold(gpublob *g, const gpublob_options *o, const gpublob_input *in, input_held *h) {
  memset(h, 0, sizeof *h);
  int rc = input_check(g, in);
  if (!rc && !in->path) rc = input_copy(g, o, in, h);
  else if (!rc) {
    h->name = in->name ? in->name : strcmp(in->path, "-") ? in->path : "<stdin>";
    rc = read_input(g, o, in->path, &h->data, &h->size);
  }
  if (!rc) h->kind = input_kind_of(in->kind, h->data, h->size, h->name, in->path);
  return rc;
}
