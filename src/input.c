/* src/input.c: Input: a file read whole and NUL-terminated for the IR parser, within max_input. */

/* ---- input: the file read whole, NUL-terminated for the IR parser ---- */
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
