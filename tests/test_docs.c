/* test_docs: the docs say what the product does.
**  - every flag `build/gpublob --help` lists (and `--help-all`, where the CLI has
**    one) is in docs/cli.md, and every flag the flag reference of docs/cli.md names
**    (at the start of a table cell or a list item) is in the help;
**  - every public function of gpublob.h (GPUBLOB_API ... gpublob_xxx() is named in
**    docs/library.md;
**  - every ```sh block of README.md runs, as one `sh -e` script from the repository
**    root, exits 0 and leaves the tree as it was; a block is left out only by the
**    HTML comment on the line before it: <!-- docs-test: skip (why) --> (never run),
**    <!-- docs-test: gpu --> (needs a GPU: never run here), <!-- docs-test: cuda -->
**    (run where the CUDA toolkit's ptxas is found, else skipped), <!-- docs-test: needs
**    WHAT... --> (run where each is found, else skipped naming it: rocm, ROCm's bitcode;
**    spirv-val; mlir, a build with MLIR);
**  - docs/targets.md's key table has a row for every key of src/spec_keys.h's list, no
**    row names a key the list has not, and its "required" column says yes for the
**    REQUIRED keys alone;
**  - README.md has at most 300 lines, the product's docs name no issue numbers, and
**    every relative link of README.md and docs/ reaches a file. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpublob.h" /* gpublob_mlir_enabled, for the needs marker */
#include "src/spec_keys.h"
#include "testlib.h"

#define CLI "build/gpublob"

/* ---- a set of strings ---- */
typedef struct {
  char **v;
  size_t n, cap;
} strset;

static int set_has(const strset *s, const char *x) {
  for (size_t i = 0; i < s->n; i++)
    if (!strcmp(s->v[i], x)) return 1;
  return 0;
}

static void set_add(strset *s, const char *x, size_t n) {
  char *c = strndup(x, n);
  if (!c || set_has(s, c)) { free(c); return; }
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 32;
    s->v = realloc(s->v, s->cap * sizeof *s->v);
  }
  s->v[s->n++] = c;
}

static int flag_char(int c) { return isalnum((unsigned char)c) || c == '-'; }
static int ident_char(int c) { return isalnum((unsigned char)c) || c == '_'; }

/* The length of a flag at p (-x, -O0, --xxx-yyy), 0 when p holds none. */
static size_t flag_len(const char *p) {
  size_t n = p[0] == '-' && p[1] == '-' ? 2 : p[0] == '-' ? 1 : 0;
  if (!n || !isalnum((unsigned char)p[n])) return 0;
  while (flag_char(p[n])) n++;
  while (p[n - 1] == '-') n--;
  return n;
}

/* The flags at the start of p: "-t, --target", "`--ftz`, `--daz`", "-O0 .. -O3"
** (a range of one letter and a digit: -O0 -O1 -O2 -O3), up to the first word that
** is no flag. */
static void flags_at(strset *s, const char *p) {
  for (;;) {
    while (*p == ' ' || *p == '`') p++;
    size_t n = flag_len(p);
    if (!n) return;
    set_add(s, p, n);
    const char *q = p + n;
    while (*q == '`') q++;
    if (!strncmp(q, " .. ", 4)) {
      const char *r = q + 4;
      while (*r == '`') r++;
      size_t m = flag_len(r);
      if (m == n && m >= 2 && !strncmp(p, r, n - 1) && isdigit((unsigned char)p[n - 1]) &&
          isdigit((unsigned char)r[n - 1]))
        for (char d = p[n - 1] + 1; d < r[n - 1]; d++) {
          char buf[64];
          snprintf(buf, sizeof buf, "%.*s%c", (int)(n - 1), p, d);
          set_add(s, buf, n);
        }
      p = r;
    } else if (!strncmp(q, ", ", 2)) p = q + 2;
    else return;
  }
}

/* The flags of a --help text: lines whose first word, indented a little, is a flag. */
static void help_flags(strset *s, const char *text) {
  for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
    const char *p = line;
    while (*p == ' ') p++;
    if (p - line <= 8 && *p == '-') flags_at(s, p);
  }
}

/* word occurs in text as a whole token: not inside a longer flag or identifier. */
static int has_token(const char *text, const char *word, int (*part)(int)) {
  size_t n = strlen(word);
  for (const char *p = text; (p = strstr(p, word)); p++)
    if ((p == text || !part(p[-1])) && !part(p[n])) return 1;
  return 0;
}

/* The flags docs/cli.md's flag reference names: at the start of a table cell or a
** list item, from "## Flag reference" to the next "## " heading. */
static void doc_flags(strset *s, const char *md) {
  const char *start = strstr(md, "\n## Flag reference");
  if (!start) return;
  const char *end = strstr(start + 1, "\n## ");
  size_t len = end ? (size_t)(end - start) : strlen(start);
  char *sec = strndup(start, len);
  for (char *line = strtok(sec, "\n"); line; line = strtok(NULL, "\n")) {
    if (line[0] == '|') {
      /* each cell: after an unescaped |, up to the next one */
      for (char *c = line; *c; c++)
        if (*c == '|' && (c == line || c[-1] != '\\')) flags_at(s, c + 1);
    } else if (line[0] == '-' && line[1] == ' ') flags_at(s, line + 2);
  }
  free(sec);
}

/* ---- (a) the CLI's flags and docs/cli.md ---- */
static void cli_flags(void) {
  char *cli = (char *)slurp("docs/cli.md", &(size_t){0});
  check(cli != NULL, "docs/cli.md", "cannot read docs/cli.md");
  if (!cli) return;
  strset help = {0}, doc = {0};
  char *out = NULL;
  int st = run((const char *[]){CLI, "--help", NULL}, &out);
  check(exit_code(st) == 0, "--help", "exit %d", exit_code(st));
  if (out) help_flags(&help, out);
  free(out);
  out = NULL;
  st = run((const char *[]){CLI, "--help-all", NULL}, &out);
  if (exit_code(st) == 0) {
    size_t before = help.n;
    help_flags(&help, out);
    check(help.n >= before, "--help-all", "read");
  } else skip("--help-all", "the CLI has no --help-all");
  free(out);
  check(help.n >= 20 && set_has(&help, "--target") && set_has(&help, "-o"), "help: its flags read",
        "%zu flags read from --help", help.n);
  for (size_t i = 0; i < help.n; i++) {
    char name[128];
    snprintf(name, sizeof name, "cli.md has %s", help.v[i]);
    check(has_token(cli, help.v[i], flag_char), name, "%s is in --help but not in docs/cli.md", help.v[i]);
  }
  doc_flags(&doc, cli);
  check(doc.n >= 20, "cli.md: its flag reference read", "%zu flags read", doc.n);
  for (size_t i = 0; i < doc.n; i++) {
    char name[128];
    snprintf(name, sizeof name, "--help has %s", doc.v[i]);
    check(set_has(&help, doc.v[i]), name, "docs/cli.md's flag reference names %s, which --help does not list",
          doc.v[i]);
  }
  free(cli);
}

/* ---- (b) gpublob.h's public functions and docs/library.md ---- */
static void api_functions(void) {
  char *h = (char *)slurp("gpublob.h", &(size_t){0});
  char *lib = (char *)slurp("docs/library.md", &(size_t){0});
  check(h && lib, "gpublob.h, docs/library.md", "cannot read them");
  if (!h || !lib) { free(h); free(lib); return; }
  strset fn = {0};
  for (const char *p = h; (p = strstr(p, "GPUBLOB_API")); p += 11) {
    const char *bol = p;
    while (bol > h && bol[-1] != '\n') bol--;
    while (*bol == ' ') bol++;
    if (*bol == '#' || (p > h && ident_char(p[-1])) || ident_char(p[11])) continue; /* its own #define */
    size_t stop = strcspn(p, ";{");
    for (const char *q = p + 11; q < p + stop; q++) {
      if (strncmp(q, "gpublob_", 8) || ident_char(q[-1])) continue;
      size_t n = 0;
      while (ident_char(q[n])) n++;
      const char *r = q + n;
      while (*r == ' ' || *r == '\n') r++;
      if (*r == '(') { set_add(&fn, q, n); break; }
    }
  }
  check(fn.n >= 25 && set_has(&fn, "gpublob_compile"), "gpublob.h: its functions read", "%zu read", fn.n);
  for (size_t i = 0; i < fn.n; i++) {
    char name[128];
    snprintf(name, sizeof name, "library.md has %s", fn.v[i]);
    check(has_token(lib, fn.v[i], ident_char), name, "%s is public in gpublob.h but docs/library.md never names it",
          fn.v[i]);
  }
  free(h);
  free(lib);
}

/* ---- (c) README.md's shell blocks ---- */
static char *tree_state(void) {
  char *out = NULL;
  int st = run((const char *[]){"git", "status", "--porcelain", "--ignored", "--untracked-files=all", NULL}, &out);
  if (exit_code(st) != 0) { free(out); return NULL; }
  return out ? out : strdup("");
}

/* The words after "needs" in a <!-- docs-test: needs WHAT... --> marker: 1 when each
** is here, else 0 and why (what is missing); -1 for a word not understood. */
static int needs_met(const char *mark, char *why, size_t size) {
  const char *p = strstr(mark, "needs") + 5;
  int met = 1;
  for (;;) {
    while (*p == ' ') p++;
    size_t n = strcspn(p, " ");
    if (!n || !strncmp(p, "-->", 3)) break;
    int here = n == 4 && !strncmp(p, "rocm", 4)        ? have_rocm_bitcode()
               : n == 4 && !strncmp(p, "mlir", 4)      ? gpublob_mlir_enabled()
               : n == 9 && !strncmp(p, "spirv-val", 9) ? have_program(SPIRV_VAL)
                                                       : -1;
    if (here != 1) {
      size_t at = strlen(why);
      snprintf(why + at, size - at, "%s%s %.*s", at ? "; " : "", here < 0 ? "unknown word" : "needs", (int)n, p);
      if (met >= 0) met = here < 0 ? -1 : 0;
    }
    p += n;
  }
  return met;
}

static void readme_blocks(const char *readme) {
  char last[512] = ""; /* the last non-blank line before a block: its marker */
  int nblock = 0, ran = 0;
  const char *p = readme;
  while (*p) {
    const char *eol = strchr(p, '\n');
    size_t len = eol ? (size_t)(eol - p) : strlen(p);
    if (len == 5 && !strncmp(p, "```sh", 5)) {
      const char *body = eol ? eol + 1 : p + len;
      const char *end = strncmp(body, "```", 3) ? strstr(body, "\n```") : body - 1;
      check(end != NULL, "README: a sh block ends", "an unterminated ```sh block");
      if (!end) return;
      nblock++;
      char name[96];
      snprintf(name, sizeof name, "README sh block %d", nblock);
      const char *mark = strstr(last, "<!-- docs-test:");
      char what[64] = "";
      if (mark) sscanf(mark + 15, " %63[a-z]", what);
      int go = !mark;
      if (mark && !strcmp(what, "cuda")) {
        go = have_ptxas();
        if (!go) skip(name, "needs the CUDA toolkit (ptxas)");
      } else if (mark && !strcmp(what, "needs")) {
        char why[160] = "";
        int met = needs_met(mark, why, sizeof why);
        go = met == 1;
        if (!met) skip(name, why);
        else if (met < 0) check(0, name, "%s in %.60s", why, mark);
      } else if (mark && (!strcmp(what, "skip") || !strcmp(what, "gpu"))) skip(name, mark);
      else if (mark) check(0, name, "unknown marker %.40s", mark);
      if (go) {
        ran++;
        char *script = strndup(body, (size_t)(end - body) + 1);
        const char *file = tmp_path("block.sh");
        spill(file, script, strlen(script));
        char *before = tree_state(), *out = NULL;
        setenv("GPUBLOB_CACHE_DIR", tmp_path("cache"), 1);
        int st = run((const char *[]){"sh", "-e", file, NULL}, &out);
        check(exit_code(st) == 0, name, "exit %d running\n%s\noutput:\n%s", exit_code(st), script, shown(out));
        char *after = tree_state();
        char n2[128];
        snprintf(n2, sizeof n2, "%s leaves the tree as it was", name);
        if (before && after) check(same_str(before, after), n2, "git status before:\n%s\nafter:\n%s", before, after);
        else skip(n2, "no git here: the tree's state is not compared");
        free(script), free(before), free(after), free(out);
      }
      p = end + 4;
      if (*p == '\n') p++;
      last[0] = 0;
      continue;
    }
    if (len) snprintf(last, sizeof last, "%.*s", (int)(len < 511 ? len : 511), p);
    if (!eol) break;
    p = eol + 1;
  }
  check(nblock >= 3, "README: its sh blocks found", "%d found", nblock);
  check(ran >= 1, "README: a sh block ran", "no block ran");
}

/* ---- links, length, issue numbers ---- */
static void links_of(const char *text, const char *dir, const char *what) {
  for (const char *p = text; (p = strstr(p, "](")); p += 2) {
    const char *t = p + 2;
    size_t n = strcspn(t, ")# ");
    if (!n || !strncmp(t, "http", 4) || !strncmp(t, "mailto:", 7)) continue;
    char path[512], name[600];
    snprintf(path, sizeof path, "%s%.*s", dir, (int)n, t);
    snprintf(name, sizeof name, "%s: link %s", what, path);
    check(exists(path), name, "%s links to %s, which is not there", what, path);
  }
}

static int mentions_issue(const char *text) {
  for (const char *p = text; *p; p++)
    if (!strncasecmp(p, "issue", 5) && (p == text || !isalpha((unsigned char)p[-1]))) return 1;
  return 0;
}

/* A tracker's number: the word issue, then a digit (after spaces, '-' or '#' if any). */
static int names_issue_number(const char *text) {
  for (const char *p = text; (p = strcasestr(p, "issue")); p += 5) {
    const char *q = p + 5;
    while (*q == ' ' || *q == '-' || *q == '#') q++;
    if (isdigit((unsigned char)*q) && (p == text || !isalpha((unsigned char)p[-1]))) return 1;
  }
  return 0;
}

/* Every file of a directory whose name ends in one of suffixes (space-separated). */
static void no_issue_numbers_in(const char *dir, const char *suffixes) {
  DIR *d = opendir(dir);
  for (struct dirent *e; d && (e = readdir(d));) {
    const char *dot = strrchr(e->d_name, '.');
    char suffix[16];
    snprintf(suffix, sizeof suffix, " %s ", dot ? dot : "-");
    char list[64];
    snprintf(list, sizeof list, " %s ", suffixes);
    if (!dot || !strstr(list, suffix)) continue;
    char path[600], name[700];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    char *text = (char *)slurp(path, &(size_t){0});
    if (!text) continue;
    snprintf(name, sizeof name, "%s: no issue numbers in code or comments", path);
    check(!names_issue_number(text), name, "%s names an issue by its number", path);
    free(text);
  }
  if (d) closedir(d);
}

/* docs/tests.md names every test program. */
static void tests_page(void) {
  char *page = (char *)slurp("docs/tests.md", &(size_t){0});
  DIR *d = opendir("tests");
  check(page && d, "docs/tests.md and tests/", "cannot read them");
  for (struct dirent *e; page && d && (e = readdir(d));) {
    size_t n = strlen(e->d_name);
    if (strncmp(e->d_name, "test_", 5) || n < 3 || strcmp(e->d_name + n - 2, ".c")) continue;
    char name[600];
    snprintf(name, sizeof name, "docs/tests.md names tests/%s", e->d_name);
    check(strstr(page, e->d_name) != NULL, name, "tests/%s is not on the page", e->d_name);
  }
  if (d) closedir(d);
  free(page);
}

/* ---- docs/targets.md's key table: a row per key of src/spec_keys.h ---- */
#define SPEC_KEY_NAME(key, presence, type, form, doc) #key,
#define SPEC_KEY_REQUIRED(key, presence, type, form, doc) SPEC_REQUIRED_##presence,
#define SPEC_REQUIRED_REQUIRED 1
#define SPEC_REQUIRED_OPTIONAL 0
#define SPEC_REQUIRED_DEFAULT(value) 0
static const char *const spec_keys[] = {GPUBLOB_SPEC_KEYS(SPEC_KEY_NAME)};
static const int spec_key_required[] = {GPUBLOB_SPEC_KEYS(SPEC_KEY_REQUIRED)};
enum { SPEC_NKEYS = sizeof spec_keys / sizeof *spec_keys };

static int spec_key_index(const char *name, size_t n) {
  for (int k = 0; k < SPEC_NKEYS; k++)
    if (strlen(spec_keys[k]) == n && !strncmp(spec_keys[k], name, n)) return k;
  return -1;
}

/* One row, "| key, key | required | meaning |": each key it names is marked in rows[]
** (1: the row says required, 2: it does not); unknown gets the names the list lacks. */
static void key_row(const char *row, int *rows, strset *unknown) {
  const char *cell = row + 1, *end = strchr(cell, '|');
  const char *req = end ? end + 1 : "";
  int required = !strncmp(req, " yes |", 6);
  while (end && cell < end) {
    while (*cell == ' ' || *cell == '`' || *cell == ',') cell++;
    size_t n = 0;
    while (cell + n < end && ident_char(cell[n])) n++;
    if (!n) break;
    int k = spec_key_index(cell, n);
    if (k < 0) set_add(unknown, cell, n);
    else rows[k] = required ? 1 : 2;
    cell += n;
  }
}

static const char *next_line(const char *line) {
  const char *nl = strchr(line, '\n');
  return nl ? nl + 1 : "";
}

static void key_table(void) {
  char *md = (char *)slurp("docs/targets.md", &(size_t){0});
  const char *head = md ? strstr(md, "\n| key | required | meaning |\n|---|---|---|\n") : NULL;
  check(head != NULL, "docs/targets.md: the key table", "no '| key | required | meaning |' table");
  int rows[SPEC_NKEYS] = {0};
  strset unknown = {0};
  for (const char *row = head ? next_line(next_line(head + 1)) : ""; *row == '|'; row = next_line(row))
    key_row(row, rows, &unknown);
  char missing[4096] = "", wrong[4096] = "";
  for (int k = 0; k < SPEC_NKEYS; k++) {
    char *list = !rows[k] ? missing : (rows[k] == 1) != spec_key_required[k] ? wrong : NULL;
    if (list) snprintf(list + strlen(list), sizeof missing - strlen(list), " %s", spec_keys[k]); /* one size */
  }
  check_if(head != NULL, !*missing, "docs/targets.md's key table has a row for every key of src/spec_keys.h",
           "no row for:%s", missing);
  check_if(head != NULL, unknown.n == 0, "docs/targets.md's key table names only keys of src/spec_keys.h",
           "%zu unknown, the first '%s'", unknown.n, unknown.n ? unknown.v[0] : "");
  check_if(head != NULL, !*wrong, "docs/targets.md's key table: 'required' is yes for the REQUIRED keys alone",
           "wrong for:%s", wrong);
  free(md);
}

int main(void) {
  char *readme = (char *)slurp("README.md", &(size_t){0});
  check(readme != NULL, "README.md", "cannot read it");
  cli_flags();
  api_functions();
  if (readme) {
    size_t lines = 0;
    for (const char *p = readme; *p; p++) lines += *p == '\n';
    check(lines <= 300, "README: at most 300 lines", "%zu lines", lines);
    check(!mentions_issue(readme), "README: no issue numbers", "README.md speaks of an issue");
    links_of(readme, "", "README.md");
    readme_blocks(readme);
  }
  DIR *d = opendir("docs");
  check(d != NULL, "docs/", "no docs/ directory");
  int pages = 0;
  for (struct dirent *e; d && (e = readdir(d));) {
    size_t n = strlen(e->d_name);
    if (n < 4 || strcmp(e->d_name + n - 3, ".md")) continue;
    char path[512], name[600];
    snprintf(path, sizeof path, "docs/%s", e->d_name);
    char *md = (char *)slurp(path, &(size_t){0});
    if (!md) continue;
    pages++;
    snprintf(name, sizeof name, "%s: no issue numbers", path);
    check(!mentions_issue(md), name, "%s speaks of an issue", path);
    links_of(md, "docs/", path);
    free(md);
  }
  if (d) closedir(d);
  check(pages >= 9, "docs/: its pages", "%d pages", pages);
  tests_page();
  key_table();
  const char *const code[][2] = {{"src", ".c .h"}, {".", ".c .h"}, {"tests", ".c .h .sh"}, {"examples", ".c .sh .ll .mlir"},
                                 {"bench", ".sh .py .c"}, {"gen", ".c .h"}, {"targets", ".spec"}, {"tools", ".sh .c"}};
  for (size_t i = 0; i < sizeof code / sizeof *code; i++) no_issue_numbers_in(code[i][0], code[i][1]);
  free(readme);
  return report();
}
