/* src/handle.c: The handle: its error message (owned by it, valid until its next call), its
** warnings and the last call's figures.  Every call starts with call_reset. */

/* ---- the handle: its error message, warnings and the last call's figures ---- */

static const char *const error_strings[] = {
#define GPUBLOB_ERROR_TEXT(name, value, text) [value] = text,
    GPUBLOB_ERRORS(GPUBLOB_ERROR_TEXT)
#undef GPUBLOB_ERROR_TEXT
};

static int set_error(gpublob *g, int code, const char *fmt, ...) {
  g->code = code;
  sb_reset(&g->msg);
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (!text) {
    g->msg.oom = 1;
    return code;
  }
  va_start(ap, fmt);
  vsnprintf(text, (size_t)n + 1, fmt, ap);
  va_end(ap);
  sb_addn(&g->msg, text, (size_t)n);
  free(text);
  return code;
}

/* A warning of the current call; the same text is kept once. */
static void add_warning(gpublob *g, const char *fmt, ...) {
  char text[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  if (strstr(sb_str(&g->warn), text)) return;
  sb_add(&g->warn, text);
  sb_add(&g->warn, "\n");
}

/* Appends detail (a diagnostic, a tool's stderr) to the current message. */
static void add_detail(gpublob *g, const char *detail) {
  size_t n = strlen(detail);
  while (n && (detail[n - 1] == '\n' || detail[n - 1] == ' ')) n--;
  if (!n) return;
  sb_add(&g->msg, ":\n");
  sb_addn(&g->msg, detail, n);
}

/* A new call: no error, no warnings, zeroed figures. */
static void call_reset(gpublob *g) {
  g->code = GPUBLOB_OK;
  sb_reset(&g->msg);
  sb_reset(&g->warn);
  memset(&g->stats, 0, sizeof g->stats);
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}
