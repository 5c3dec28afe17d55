/* tools/amalgamate: write the one-file form of gpublob's core (build/vendor/gpublob.c),
** as SQLite's mksqlite3c writes sqlite3.c, for a project that vendors gpublob.
**
**   amalgamate CORE.c DEF OUT.c   write CORE with every part it includes pasted
**                                 in once and DEF (the target table) pasted in at
**                                 each of its includes; OUT.d lists the files read
**
** The parts are src/parts.h's list, which gpublob.c includes; an #include "NAME"
** is read beside the file that includes it.  gpublob.h stays an #include: it sits
** beside the one file.  Each pasted file starts with a #line naming it ("src/util.c",
** as this program was given the path: the core's own relative to the tree), and the
** file that included it goes on after a #line back to its own next line, so that a
** compiler's diagnostic or a debugger points into the part, not into OUT.c.
** Build: cc -std=c11 -o amalgamate tools/amalgamate.c.
** Errors are printed as `amalgamate: message` and exit with status 1; no output
** file is left behind then.
*/
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the output file: written beside, then renamed into place ---- */
static FILE *open_out(const char *out, char *tmp, size_t n) {
  snprintf(tmp, n, "%s.tmp", out);
  return fopen(tmp, "w");
}

static int close_out(FILE *o, const char *tmp, const char *out) {
  if (ferror(o) | fclose(o) || rename(tmp, out)) {
    remove(tmp);
    fprintf(stderr, "amalgamate: cannot write %s\n", out);
    return 1;
  }
  return 0;
}

/* ---- pasting: the core with every part it includes, once, in place ---- */
typedef struct vendor_state {
  FILE *out, *def;
  const char *def_path;
  char done[128][768]; /* the parts pasted so far */
  int ndone, pasted;
  int synced; /* OUT's next line is the next line of the file being read, by #line */
} vendor_state;

static int vendor_file(vendor_state *v, const char *path, int depth);

/* An #include "NAME" line's NAME, or NULL. */
static const char *included_name(const char *line, char *name, size_t size) {
  if (strncmp(line, "#include \"", 10)) return NULL;
  const char *end = strchr(line + 10, '"');
  if (!end || (size_t)(end - line - 10) >= size) return NULL;
  snprintf(name, size, "%.*s", (int)(end - line - 10), line + 10);
  return name;
}

static int vendor_line(vendor_state *v, const char *dir, const char *line, int depth) {
  char name[256], path[768];
  if (!included_name(line, name, sizeof name) || !strcmp(name, "../gpublob.h") || !strcmp(name, "gpublob.h")) {
    fputs(strstr(line, "\"../gpublob.h\"") ? "#include \"gpublob.h\"\n" : line, v->out);
    return 0;
  }
  v->synced = 0; /* the #include line is replaced (or dropped): its file's next line needs a #line */
  if (!strcmp(name, "gpublob_targets.def")) {
    rewind(v->def);
    fprintf(v->out, "#line 1 \"%s\"\n", v->def_path);
    int last = '\n';
    for (int ch; (ch = fgetc(v->def)) != EOF; last = ch) fputc(ch, v->out);
    if (last != '\n') fputc('\n', v->out); /* the #line after it starts a line */
    v->pasted++;
    return 0;
  }
  snprintf(path, sizeof path, "%s%s", dir, name);
  for (int i = 0; i < v->ndone; i++)
    if (!strcmp(v->done[i], path)) return 0; /* once, as a header guard would */
  if (v->ndone == 128) return fprintf(stderr, "amalgamate: more than 128 parts\n"), 1;
  snprintf(v->done[v->ndone++], sizeof v->done[0], "%s", path);
  return vendor_file(v, path, depth + 1);
}

static int vendor_file(vendor_state *v, const char *path, int depth) {
  FILE *c = depth < 8 ? fopen(path, "r") : NULL;
  if (!c) return fprintf(stderr, "amalgamate: cannot read %s\n", path), 1;
  char dir[512], line[4096], name[256];
  const char *slash = strrchr(path, '/');
  snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path + 1) : 0, path);
  int rc = 0;
  long lineno = 1;  /* of the line read next */
  int at_start = 1; /* fgets gave a whole line last (or nothing yet) */
  if (depth) fprintf(v->out, "/************** %s **************/\n", path);
  v->synced = 0; /* a #line before its first line (the core's too: OUT starts with a line of its own) */
  while (!rc && fgets(line, sizeof line, c)) {
    if (at_start && !v->synced && !included_name(line, name, sizeof name)) {
      fprintf(v->out, "#line %ld \"%s\"\n", lineno, path);
      v->synced = 1;
    }
    rc = at_start ? vendor_line(v, dir, line, depth) : fputs(line, v->out) < 0;
    at_start = strchr(line, '\n') != NULL;
    lineno += at_start;
  }
  if (!rc && !at_start) fputc('\n', v->out); /* a last line without its newline: the #line after it starts a line */
  fclose(c);
  v->synced = 0; /* the including file goes on past its #include: a #line back to it */
  return rc;
}

/* OUT.d: the parts OUT was made of, for ninja's depfile. */
static int write_depfile(const vendor_state *v, const char *out, const char *core, const char *def) {
  char path[4096];
  snprintf(path, sizeof path, "%s.d", out);
  FILE *d = fopen(path, "w");
  if (!d) return fprintf(stderr, "amalgamate: cannot write %s\n", path), 1;
  fprintf(d, "%s: %s %s", out, core, def);
  for (int i = 0; i < v->ndone; i++) fprintf(d, " \\\n  %s", v->done[i]);
  fputc('\n', d);
  return fclose(d) ? (fprintf(stderr, "amalgamate: cannot write %s\n", path), 1) : 0;
}

static int vendor(const char *core, const char *def, const char *out) {
  vendor_state *v = calloc(1, sizeof *v);
  if (!v || !(v->def = fopen(def, "r"))) {
    fprintf(stderr, "amalgamate: cannot read %s\n", def);
    free(v);
    return 1;
  }
  char tmp[4096];
  if (!(v->out = open_out(out, tmp, sizeof tmp))) {
    fprintf(stderr, "amalgamate: cannot write %s\n", tmp);
    fclose(v->def);
    free(v);
    return 1;
  }
  /* what the core's messages name as the fix differs for a project that compiles this */
  fputs("#define GPUBLOB_VENDORED 1 /* the one-file form, written by tools/amalgamate */\n", v->out);
  v->def_path = def;
  int rc = vendor_file(v, core, 0);
  if (!rc && v->pasted < 2)
    rc = fprintf(stderr, "amalgamate: %s must include gpublob_targets.def (it does %d times)\n", core,
                 v->pasted) > 0;
  fclose(v->def);
  FILE *o = v->out;
  if (!rc) rc = write_depfile(v, out, core, def);
  free(v);
  if (rc) {
    fclose(o);
    remove(tmp);
    return 1;
  }
  return close_out(o, tmp, out);
}

int main(int argc, char **argv) {
  if (argc != 4 || argv[1][0] == '-') {
    fputs("usage: amalgamate CORE.c DEF OUT.c\n", stderr);
    return 2;
  }
  return vendor(argv[1], argv[2], argv[3]);
}
