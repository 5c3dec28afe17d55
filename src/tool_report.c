/* src/tool_report.c: The blob tool's report of a compile: what each kernel needs that
** the blob does not record, as the tool printed it while it made the blob.  A cubin
** records registers, shared memory and the stack frame, but not the bytes ptxas spilled
** to local memory; ptxas -v prints them, and nvJitLink's info log (-verbose) prints the
** same lines.  The spec's tool_report names the reader; tool_report_argv and
** provider_report_argv the words that make the tool print it, added where the caller's
** options lack them.  The job's report is one line a kernel, "CHIP\tKERNEL\tSTORES\t
** LOADS\tBARRIERS\n" (-1 for a figure not printed), which the output keeps
** (src/output_report.c) and the cache stores with it.
**
** ptxas -v (CUDA 13.0), per entry function:
**   ptxas info    : Compiling entry function 'k' for 'sm_80'
**   ptxas info    : Function properties for k
**       1392 bytes stack frame, 1044 bytes spill stores, 1904 bytes spill loads
**   ptxas info    : Used 32 registers, used 0 barriers, 1392 bytes cumulative stack size, ...
** nvJitLink's info log prints the same, its stack line after "ptxas         ." instead of
** blanks, then a summary ("info    : Function properties for 'k':" and "info    :
** used 32 registers, used 0 barriers, ...").  A device function that is not an entry
** has its own "Function properties" and stack line; it is kept, and no kernel is
** looked up by its name. */

/* ---- the words that ask the tool for its report ---- */
/* 1 when a's words include one of list's. */
static int argv_has_one_of(const argvec *a, const char *list) {
  const char *w;
  size_t n;
  while ((w = util_next_word(&list, " ", &n))) {
    const char *p = a->text.s ? a->text.s : "";
    for (size_t i = 0; i < a->argc; i++, p += strlen(p) + 1)
      if (util_word_is(w, n, p)) return 1;
  }
  return 0;
}

/* list's first word added to a where a has none of list's words: 1 when added. */
GPUBLOB_PRIVATE int tool_report_argv_add(argvec *a, const char *list) {
  const char *first = list, *w;
  size_t n;
  if (!(w = util_next_word(&first, " ", &n)) || argv_has_one_of(a, list)) return 0;
  sb_addn(&a->text, w, n);
  sb_addn(&a->text, "", 1);
  a->argc++;
  return 1;
}

/* ---- the ptxas reader ---- */
typedef struct report_fn { /* one function of the report, as it is read */
  strbuf name;
  long long stores, loads, barriers;
} report_fn;

/* The number after the last blank before at (at points into line); -1 when none. */
static long long number_before(const char *line, const char *at) {
  const char *p = at;
  while (p > line && p[-1] == ' ') p--;
  const char *end = p;
  while (p > line && isdigit((unsigned char)p[-1])) p--;
  if (p == end || end - p > 15) return -1;
  return strtoll(p, NULL, 10);
}

/* The name after what (up to a quote, a colon at its end, or the line's end); a
** control character in it (a tab would end the report's field) becomes '?'. */
static int name_after(const char *line, const char *what, strbuf *name) {
  const char *p = strstr(line, what);
  if (!p) return 0;
  p += strlen(what);
  if (*p == '\'') p++;
  size_t n = strcspn(p, "'");
  while (n && (p[n - 1] == ':' || p[n - 1] == ' ')) n--;
  sb_reset(name);
  for (size_t i = 0; i < n; i++) sb_addn(name, (unsigned char)p[i] < ' ' ? "?" : p + i, 1);
  return n > 0;
}

/* The record named name, added when new; NULL when memory is out. */
static report_fn *report_fn_of(report_fn **fns, size_t *n, const char *name) {
  for (size_t i = 0; i < *n; i++)
    if (!strcmp(sb_str(&(*fns)[i].name), name)) return &(*fns)[i];
  if (util_grow(fns, *n, sizeof **fns)) return NULL;
  report_fn *f = &(*fns)[(*n)++];
  memset(f, 0, sizeof *f);
  sb_add(&f->name, name);
  f->stores = f->loads = f->barriers = -1;
  return f;
}

/* One line: an entry's start, a function's properties, its stack line (the only
** line spills are read from: a --warn-on-spills warning names them too), its use
** line ("Used N registers, used N barriers"), which belongs to the function whose
** properties came last (nvJitLink's summary names each function so), else to the
** entry being compiled. */
static void ptxas_line(const char *line, strbuf *entry, strbuf *props, report_fn **fns, size_t *n) {
  const char *at;
  report_fn *f;
  if (name_after(line, "Compiling entry function ", entry)) {
    sb_reset(props);
    return;
  }
  if (name_after(line, "Function properties for ", props)) return;
  if (strstr(line, " bytes stack frame") && (at = strstr(line, " bytes spill stores")) && props->len &&
      (f = report_fn_of(fns, n, sb_str(props)))) {
    f->stores = number_before(line, at);
    const char *ld = strstr(line, " bytes spill loads");
    if (ld) f->loads = number_before(line, ld);
  } else if ((at = strstr(line, " barriers")) && (strstr(line, "Used ") || strstr(line, "used ")) &&
             (entry->len || props->len) && (f = report_fn_of(fns, n, sb_str(props->len ? props : entry)))) {
    f->barriers = number_before(line, at);
  }
}

/* 1 for a line of the report (ptxas's "info" lines and the stack lines under them). */
static int ptxas_report_line(const char *line) {
  return !strncmp(line, "ptxas info", 10) || !strncmp(line, "info    :", 9) || !strncmp(line, "ptxas         .", 16) ||
         (*line == ' ' && strstr(line, " bytes stack frame"));
}

/* Each line of log to fn, NUL-ended in a buffer of its own. */
static void each_line(const char *log, void (*fn)(const char *line, void *arg), void *arg) {
  strbuf line = {0};
  while (*log) {
    size_t n = strcspn(log, "\n"), end = n;
    while (end && log[end - 1] == '\r') end--; /* a CRLF line's */
    sb_reset(&line);
    sb_addn(&line, log, end);
    if (!line.oom) fn(sb_str(&line), arg);
    log += n + (log[n] == '\n');
  }
  sb_free(&line);
}

typedef struct ptxas_read { strbuf entry, props; report_fn *fns; size_t n; } ptxas_read;

static void ptxas_read_line(const char *line, void *arg) {
  ptxas_read *r = arg;
  ptxas_line(line, &r->entry, &r->props, &r->fns, &r->n);
}

/* ptxas's report in log, as the job's report lines. */
static void ptxas_report(job *j, const char *log) {
  ptxas_read r = {0};
  each_line(log, ptxas_read_line, &r);
  for (size_t i = 0; i < r.n; i++) {
    sb_addf(&j->report, "%s\t%s\t%lld\t%lld\t%lld\n", j->chip, sb_str(&r.fns[i].name), r.fns[i].stores,
            r.fns[i].loads, r.fns[i].barriers);
    sb_free(&r.fns[i].name);
  }
  free(r.fns);
  sb_free(&r.entry);
  sb_free(&r.props);
}

typedef struct log_keep { strbuf *out; int (*is_report)(const char *line); } log_keep;

static void keep_line(const char *line, void *arg) {
  log_keep *k = arg;
  if (k->is_report(line)) return;
  sb_add(k->out, line);
  sb_add(k->out, "\n");
}

/* ---- after the tool: its report read, its log kept ---- */
/* The tool's output (j->run.output: a program's stdout and stderr, a provider's log)
** read by the spec's reader into j->report; with GPUBLOB_FLAG_TOOL_LOG it is the job's
** log, less the report's lines where gpublob asked for them (j->report_added): the log
** holds what the caller's options asked the tool to print.  NOMEM when memory is out. */
GPUBLOB_PRIVATE int tool_report_take(job *j) {
  const char *log = sb_str(&j->run.output);
  int (*is_report)(const char *) = NULL;
  switch (j->t->tool_report) {
  case REPORT_ptxas:
    ptxas_report(j, log);
    is_report = ptxas_report_line;
    break;
  case REPORT_none: break;
  }
  if (j->flags & GPUBLOB_FLAG_TOOL_LOG) {
    if (is_report && j->report_added) {
      log_keep k = {&j->tool_log, is_report};
      each_line(log, keep_line, &k);
    } else {
      sb_addn(&j->tool_log, log, j->run.output.len);
    }
  }
  return j->report.oom || j->tool_log.oom ? handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory") : GPUBLOB_OK;
}
