/* src/handle.c: The handle: its error message (owned by it, valid until its next call), its
** warnings and the last call's figures.  Every call starts with handle_call_reset. */

/* ---- the handle: its error message, warnings and the last call's figures ---- */

static const char *const handle_error_strings[] = {
#define GPUBLOB_ERROR_TEXT(name, value, text) [value] = text,
    GPUBLOB_ERRORS(GPUBLOB_ERROR_TEXT)
#undef GPUBLOB_ERROR_TEXT
};

/* The text of error code code; NULL for none. */
GPUBLOB_PRIVATE const char *handle_error_text(int code) {
  int n = (int)(sizeof handle_error_strings / sizeof *handle_error_strings);
  return code >= 0 && code < n ? handle_error_strings[code] : NULL;
}

GPUBLOB_PRIVATE int handle_set_error(gpublob *g, int code, const char *fmt, ...) {
  g->code = code;
  sb_reset(&g->msg);
  va_list ap;
  va_start(ap, fmt);
  sb_vaddf(&g->msg, fmt, ap);
  va_end(ap);
  return code;
}

/* A line of warning for the current call, unless it has it already. */
GPUBLOB_PRIVATE void handle_warn_once(gpublob *g, const char *line) {
  if (!*line || strstr(sb_str(&g->warn), line)) return;
  sb_add(&g->warn, line);
  sb_add(&g->warn, "\n");
}

/* A warning of the current call; the same text is kept once. */
GPUBLOB_PRIVATE void handle_add_warning(gpublob *g, const char *fmt, ...) {
  strbuf text = {0};
  va_list ap;
  va_start(ap, fmt);
  sb_vaddf(&text, fmt, ap);
  va_end(ap);
  if (text.oom) g->warn.oom = 1;
  else handle_warn_once(g, sb_str(&text));
  sb_free(&text);
}

/* Appends detail (a diagnostic, a tool's stderr) to the current message. */
GPUBLOB_PRIVATE void handle_add_detail(gpublob *g, const char *detail) {
  size_t n = strlen(detail);
  while (n && (detail[n - 1] == '\n' || detail[n - 1] == ' ')) n--;
  if (!n) return;
  sb_add(&g->msg, ":\n");
  sb_addn(&g->msg, detail, n);
}

/* A new call: no error, no warnings, zeroed figures. */
GPUBLOB_PRIVATE void handle_call_reset(gpublob *g) {
  g->code = GPUBLOB_OK;
  sb_reset(&g->msg);
  sb_reset(&g->warn);
  memset(&g->stats, 0, sizeof g->stats);
}

