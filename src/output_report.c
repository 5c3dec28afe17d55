/* src/output_report.c: What gpublob keeps with an output it made, beside its bytes: the
** blob tool's report of the compile (src/tool_report.c's lines, a kernel's spills and
** barriers, which the blob does not record) and the block size occupancy is figured
** for (the options' block_size), and, for gpublob_compile_inputs, the index of the input
** it was made of (gpublob_output_info's input).  gpublob_output never grows (callers hold it in
** arrays), and a caller may make a result of its own bytes to read their kernels, so
** neither can ride in the output: they are kept here, in a table of the process,
** under the address of the output's tool string, which only gpublob_result_free
** frees (it drops the note first).  An output that has neither has no note.
** The kernel readers' tables then take the report's figures (output_report_merge). */

/* ---- the notes: a table of the process, under one lock ---- */
typedef struct out_note {
  const char *key; /* the output's tool string */
  char *report;    /* "" for none */
  unsigned block_size;
  size_t input; /* the index of its input in a several-input call; 0 for the first, or the only */
  struct out_note *next;
} out_note;

enum { NOTE_SLOTS = 64 };
static pthread_mutex_t notes_mu = PTHREAD_MUTEX_INITIALIZER;
static out_note *notes[NOTE_SLOTS];

static size_t note_slot(const void *key) { return (size_t)(((uintptr_t)key >> 4) % NOTE_SLOTS); }

/* A note of the output whose tool string is key; -1 when memory is out. */
static int note_add(const char *key, const char *report, unsigned block_size, size_t input) {
  out_note *n = malloc(sizeof *n);
  char *copy = strdup(report ? report : "");
  if (!n || !copy) {
    free(n);
    free(copy);
    return -1;
  }
  *n = (out_note){key, copy, block_size, input, NULL};
  size_t s = note_slot(key);
  pthread_mutex_lock(&notes_mu);
  n->next = notes[s];
  notes[s] = n;
  pthread_mutex_unlock(&notes_mu);
  return 0;
}

/* The note of the output whose tool string is key, dropped (gpublob_result_free). */
GPUBLOB_PRIVATE void output_report_note_drop(const char *key) {
  size_t s = note_slot(key);
  out_note *gone = NULL;
  pthread_mutex_lock(&notes_mu);
  for (out_note **p = &notes[s]; *p; p = &(*p)->next)
    if ((*p)->key == key) {
      gone = *p;
      *p = gone->next;
      break;
    }
  pthread_mutex_unlock(&notes_mu);
  if (gone) free(gone->report);
  free(gone);
}

/* o's note: report (NULL or "" for none), block_size (0 for the default) and input
** (0: the first or only); none when all are empty.  A note o had is replaced.  -1
** when memory is out. */
GPUBLOB_PRIVATE int output_report_note_set(const gpublob_output *o, const char *report, unsigned block_size,
                                           size_t input) {
  output_report_note_drop(o->tool);
  if ((!report || !*report) && !block_size && !input) return 0;
  return note_add(o->tool, report, block_size, input);
}

/* o's note copied into report (left empty without one) and *block_size (0 without);
** -1 when memory is out. */
GPUBLOB_PRIVATE int output_report_note_get(const gpublob_output *o, strbuf *report, unsigned *block_size) {
  *block_size = 0;
  if (!o->tool) return 0;
  size_t s = note_slot(o->tool);
  pthread_mutex_lock(&notes_mu);
  for (out_note *n = notes[s]; n; n = n->next)
    if (n->key == o->tool) {
      sb_add(report, n->report);
      *block_size = n->block_size;
      break;
    }
  pthread_mutex_unlock(&notes_mu);
  return report->oom ? -1 : 0;
}

/* o's input index: 0 without a note. */
GPUBLOB_PRIVATE size_t output_report_note_input(const gpublob_output *o) {
  size_t input = 0;
  if (!o->tool) return 0;
  size_t s = note_slot(o->tool);
  pthread_mutex_lock(&notes_mu);
  for (out_note *n = notes[s]; n; n = n->next)
    if (n->key == o->tool) {
      input = n->input;
      break;
    }
  pthread_mutex_unlock(&notes_mu);
  return input;
}

/* ---- a report's figures into the kernels read from the blob ---- */
/* The next field of a report line (up to a tab or its end); its length in *n. */
GPUBLOB_PRIVATE const char *output_report_field(const char **p, const char *end, size_t *n) {
  const char *s = *p, *tab = memchr(s, '\t', (size_t)(end - s));
  *n = (size_t)((tab ? tab : end) - s);
  *p = tab ? tab + 1 : end;
  return s;
}

GPUBLOB_PRIVATE long long output_report_number(const char *s, size_t n) {
  char buf[24];
  if (!n || n >= sizeof buf) return -1;
  memcpy(buf, s, n);
  buf[n] = 0;
  char *e;
  long long v = strtoll(buf, &e, 10);
  return *e || v < -1 ? -1 : v;
}

/* Each kernel of kt that a line of report names (its chip and its name) takes the
** line's spills and barriers.  A report is gpublob's own (a cache entry's is
** checked as the bytes around it are): a line that does not parse is skipped. */
GPUBLOB_PRIVATE void output_report_merge(ktable *kt, const char *report) {
  while (*report) {
    const char *end = report + strcspn(report, "\n"), *p = report, *chip, *name, *f[3];
    size_t cn, nn, fn[3];
    chip = output_report_field(&p, end, &cn);
    name = output_report_field(&p, end, &nn);
    for (int i = 0; i < 3; i++) f[i] = output_report_field(&p, end, &fn[i]);
    for (size_t k = 0; k < kt->n; k++) {
      gpublob_kernel_info *ki = &kt->k[k];
      if (strlen(ki->name) != nn || memcmp(ki->name, name, nn) || strlen(ki->chip) != cn ||
          memcmp(ki->chip, chip, cn))
        continue;
      ki->spill_store_bytes = output_report_number(f[0], fn[0]);
      ki->spill_load_bytes = output_report_number(f[1], fn[1]);
      ki->barriers = output_report_number(f[2], fn[2]);
    }
    report = *end ? end + 1 : end;
  }
}
