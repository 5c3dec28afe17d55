/* src/report.c: A job's errors and warnings carried to the caller's handle, and detail (a
** diagnostic, a tool's stderr) appended to a message. */

/* ---- a job's errors and warnings, carried to the caller's handle ---- */
/* Another handle's error (a job's own) becomes g's. */
GPUBLOB_PRIVATE int report_take_error(gpublob *g, const gpublob *from) {
  g->code = from->code;
  sb_reset(&g->msg);
  if (from->msg.oom) g->msg.oom = 1;
  else sb_add(&g->msg, sb_str(&from->msg));
  return g->code;
}

/* Another handle's warnings (a job's), each line once. */
GPUBLOB_PRIVATE void report_add_warnings(gpublob *g, const char *lines) {
  while (*lines) {
    const char *nl = strchr(lines, '\n');
    size_t n = nl ? (size_t)(nl - lines) : strlen(lines);
    strbuf line = {0};
    sb_addn(&line, lines, n);
    if (line.oom) g->warn.oom = 1;
    else handle_warn_once(g, sb_str(&line));
    sb_free(&line);
    lines += n + (nl != NULL);
  }
}

