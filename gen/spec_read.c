/* gen/spec_read.c: specgen's reader.  It holds the keys as specgen knows them (each
** key's line of src/spec_keys.h as a key_info), reads a spec held in memory into
** targets (sections, keys, continuation lines, inherit), and has the errors and the
** string helpers the checks and the writer use.  gen/spec.h says what each part of
** specgen does. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"

/* ---- the keys: each line of src/spec_keys.h as a key_info ---- */
/* A key's PRESENCE and TYPE, each named by its word (applied to its arguments). */
#define SPEC_REQUIRED_REQUIRED 1
#define SPEC_REQUIRED_OPTIONAL 0
#define SPEC_REQUIRED_DEFAULT(value) 0
#define SPEC_DEFAULT_VALUE_REQUIRED NULL
#define SPEC_DEFAULT_VALUE_OPTIONAL NULL
#define SPEC_DEFAULT_VALUE_DEFAULT(value) value
#define SPEC_KIND_STRING V_STRING
#define SPEC_KIND_LIST V_LIST
#define SPEC_TYPE_STRING {.kind = V_STRING}
#define SPEC_TYPE_LIST {.kind = V_LIST}
#define SPEC_TYPE_TEMPLATE(type, words) {.kind = SPEC_KIND_##type, .placeholders = words}
#define SPEC_TYPE_ENUM(words) {.kind = V_ENUM, .values = GPUBLOB_SPEC_WORDS(words)}
#define SPEC_TYPE_CENUM(tag, constant_prefix, words) \
  {.kind = V_CENUM, .values = GPUBLOB_SPEC_WORDS(words), .prefix = #constant_prefix}
#define SPEC_TYPE_INTEGER(lo, hi, what) {.kind = V_INTEGER, .min = lo, .max = hi, .unit = what}

#define KEY_INFO(key, presence, type, form, doc) \
  {#key, SPEC_REQUIRED_##presence, SPEC_DEFAULT_VALUE_##presence, SPEC_TYPE_##type, GPUBLOB_SPEC_FORM_##form},
const key_info keys[NKEYS] = {GPUBLOB_SPEC_KEYS(KEY_INFO)};

#define MAX_LINE 4094 /* bytes of one line, not counting its newline */

const char *spec_path;
target targets[MAX_TARGETS];
int ntargets;
const char *built_targets;

/* ---- errors: file:line: message, then exit 1 (or, in the library, return) ---- */
jmp_buf *die_jump;
char die_message[1024];

_Noreturn void die(int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (die_jump) {
    int n = line > 0 ? snprintf(die_message, sizeof die_message, "%s:%d: ", spec_path, line)
                     : snprintf(die_message, sizeof die_message, "%s: ", spec_path);
    if (n < 0 || (size_t)n >= sizeof die_message) n = 0;
    vsnprintf(die_message + n, sizeof die_message - (size_t)n, fmt, ap);
    va_end(ap);
    longjmp(*die_jump, 1);
  }
  if (line > 0) fprintf(stderr, "%s:%d: ", spec_path, line);
  else fprintf(stderr, "%s: ", spec_path);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(1);
}

char *xstrdup(const char *s) {
  char *d = strdup(s);
  if (!d) die(0, "out of memory");
  return d;
}

static char *trim(char *s) {
  while (isspace((unsigned char)*s)) s++;
  size_t n = strlen(s);
  while (n && isspace((unsigned char)s[n - 1])) s[--n] = 0;
  return s;
}

int in_list(const char *const *list, const char *s, size_t n) {
  for (; *list; list++)
    if (strlen(*list) == n && !strncmp(*list, s, n)) return 1;
  return 0;
}

/* Each blank-separated word of a list, in turn; returns its length. */
const char *next_word(const char **p, size_t *n) {
  const char *s = *p;
  while (*s == ' ') s++;
  if (!*s) return NULL;
  const char *e = s;
  while (*e && *e != ' ') e++;
  *n = (size_t)(e - s);
  *p = e;
  return s;
}

int word_in(const char *list, const char *w, size_t n) {
  size_t m;
  const char *s;
  while ((s = next_word(&list, &m)))
    if (m == n && !strncmp(s, w, n)) return 1;
  return 0;
}

/* The list as one blank-separated line, for messages. */
const char *list_text(const char *const *list) {
  static char buf[1024];
  buf[0] = 0;
  for (; *list; list++)
    snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", *buf ? " " : "", *list);
  return buf;
}

/* A number C, strtol(s, 0, 0) and gpublob read alike: digits only, no sign and
   no leading zero (C and strtol's base 0 would read 010 as octal 8). */
int plain_number(const char *s, size_t n, long max, long *out) {
  if (!n || n > 9 || (s[0] == '0' && n > 1)) return 0;
  long v = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return 0;
    v = v * 10 + (s[i] - '0');
  }
  if (v > max) return 0;
  if (out) *out = v;
  return 1;
}

int ident_char(int c, int upper) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         (upper && c >= 'A' && c <= 'Z');
}

/* ---- reading the spec: sections, keys, continuation lines ---- */
static int key_index(const char *k) {
  for (int i = 0; i < NKEYS; i++)
    if (!strcmp(keys[i].name, k)) return i;
  return -1;
}

static void open_section(char *hdr, int line) {
  char *end = strchr(hdr, ']');
  if (!end || trim(end + 1)[0]) die(line, "malformed section header; expected [target NAME]");
  *end = 0;
  hdr = trim(hdr + 1);
  if (strncmp(hdr, "target", 6) || !isspace((unsigned char)hdr[6]))
    die(line, "unknown section '[%s]'; expected [target NAME]", hdr);
  char *name = trim(hdr + 6);
  if (!*name) die(line, "target section without a name");
  for (char *c = name; *c; c++)
    if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-')
      die(line, "target name '%s' has a character other than letters, digits, '_' or '-'", name);
  if (strlen(name) > NAME_MAX_LEN)
    die(line, "target name '%s' is longer than %d bytes", name, NAME_MAX_LEN);
  for (int i = 0; i < ntargets; i++)
    if (!strcmp(targets[i].name, name))
      die(line, "duplicate target '%s' (first defined at line %d)", name, targets[i].line);
  if (ntargets == MAX_TARGETS) die(line, "more than %d targets", MAX_TARGETS);
  targets[ntargets].name = xstrdup(name);
  targets[ntargets].line = line;
  ntargets++;
}

/* inherit = NAME: the section's first key; the copy is made once the spec is read. */
static void set_inherit(target *t, const char *name, int line) {
  if (t->inherit) die(line, "duplicate key 'inherit' (first at line %d)", t->inherit_line);
  for (int k = 0; k < NKEYS; k++)
    if (t->val[k])
      die(line, "'inherit' must be the first key of target '%s' ('%s' comes before it, at line %d)",
          t->name, keys[k].name, t->key_line[k]);
  t->inherit = xstrdup(name);
  t->inherit_line = line;
}

/* The value with each run of blanks one space. */
static void squeeze_blanks(char *val) {
  char *w = val;
  for (char *c = val; *c; c++) {
    if (isspace((unsigned char)*c) && (w == val || w[-1] == ' ')) continue;
    *w++ = isspace((unsigned char)*c) ? ' ' : *c;
  }
  *w = 0;
}

static void set_key(char *text, int line) {
  char *eq = strchr(text, '=');
  if (!eq) die(line, "expected 'key = value'");
  *eq = 0;
  char *key = trim(text), *val = trim(eq + 1);
  int k = key_index(key), inherit = !strcmp(key, "inherit");
  if (k < 0 && !inherit) die(line, "unknown key '%s'", key);
  if (!ntargets) die(line, "key '%s' outside a [target NAME] section", key);
  target *t = &targets[ntargets - 1];
  squeeze_blanks(val);
  if (inherit) {
    set_inherit(t, val, line);
    return;
  }
  if (t->val[k]) die(line, "duplicate key '%s' (first at line %d)", key, t->key_line[k]);
  t->val[k] = xstrdup(val);
  t->key_line[k] = line;
}

static int target_index(const char *name) {
  for (int i = 0; i < ntargets; i++)
    if (!strcmp(targets[i].name, name)) return i;
  return -1;
}

/* Target i starts as a copy of the earlier target it inherits from (already
   complete, copies included): each key it does not set has that target's value. */
static void apply_inherit(int i) {
  target *t = &targets[i];
  if (!t->inherit) return;
  int from = target_index(t->inherit);
  if (from < 0) die(t->inherit_line, "'inherit': no target '%s' in the spec", t->inherit);
  if (from == i) die(t->inherit_line, "'inherit': target '%s' cannot inherit from itself", t->name);
  if (from > i)
    die(t->inherit_line, "'inherit': target '%s' comes later (line %d); a target inherits from an earlier one",
        t->inherit, targets[from].line);
  for (int k = 0; k < NKEYS; k++)
    if (!t->val[k] && targets[from].val[k]) {
      t->val[k] = xstrdup(targets[from].val[k]);
      t->key_line[k] = t->inherit_line;
    }
}

/* The spec, whole in memory: lines end at '\n' (the last may lack one). */
void read_spec(const char *data, size_t size) {
  char buf[MAX_LINE + 1], logical[65536];
  int line = 0, start = 0;
  size_t len = 0, pos = 0;
  while (pos < size) {
    line++;
    const char *s0 = data + pos, *nl = memchr(s0, '\n', size - pos);
    size_t n0 = nl ? (size_t)(nl - s0) : size - pos;
    pos += n0 + (nl != NULL);
    const char *nul = memchr(s0, 0, n0);
    if (nul) die(line, "NUL byte (column %zu)", (size_t)(nul - s0) + 1);
    if (n0 > MAX_LINE) die(line, "line longer than %d bytes", MAX_LINE);
    memcpy(buf, s0, n0);
    buf[n0] = 0;
    char *hash = strchr(buf, '#');
    if (hash) *hash = 0;
    /* A control character would go into a C string of the table as it is. */
    for (const char *c = buf; *c; c++)
      if (((unsigned char)*c < 0x20 && !isspace((unsigned char)*c)) || *c == 0x7f)
        die(line, "control character 0x%02x (column %zu)", (unsigned char)*c, (size_t)(c - buf) + 1);
    char *s = trim(buf);
    size_t n = strlen(s);
    int more = n && s[n - 1] == '\\';
    if (more) s[--n] = 0;
    if (!len) start = line;
    if (len + n + 2 > sizeof logical) die(line, "logical line too long");
    if (len && n) logical[len++] = ' ';
    memcpy(logical + len, s, n);
    len += n;
    logical[len] = 0;
    if (more) continue;
    char *l = trim(logical);
    if (*l == '[') open_section(l, start);
    else if (*l) set_key(l, start);
    len = 0;
  }
  if (len) die(line, "continuation '\\' on the last line");
  if (!ntargets) die(0, "no [target NAME] section");
  for (int i = 0; i < ntargets; i++) apply_inherit(i);
}

/* Sets the --llvm-targets list; returns 0, or -1 for a word that is no name. */
int set_built_targets(const char *list) {
  built_targets = NULL;
  const char *p = list, *w;
  size_t n;
  int words = 0;
  for (; (w = next_word(&p, &n)); words++)
    for (size_t i = 0; i < n; i++)
      if (!ident_char((unsigned char)w[i], 1)) return -1;
  if (words) built_targets = list;
  return 0;
}

/* Frees what read_spec read: the spec is read again from the start. */
void spec_reset(void) {
  for (int i = 0; i < ntargets; i++) {
    free(targets[i].name);
    free(targets[i].inherit);
    for (int k = 0; k < NKEYS; k++) free(targets[i].val[k]);
  }
  memset(targets, 0, sizeof targets);
  ntargets = 0;
}
