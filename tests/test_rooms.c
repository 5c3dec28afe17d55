/* test_rooms.c: the core's parts declare what they share, and nothing else.
**
** src/parts.h lists the parts in three groups (shared, the compiler's, MLIR's); each
** group has its header (src/internal.h, src/internal_compile.h, src/internal_mlir.h),
** where every function, datum and type a part shares is declared once, under a line
** "/ * ---- src/PART.c (PREFIX_) ---- * /" that names the part and its prefix.  This
** test reads the headers and the parts as text and checks:
**   - every section names a part of src/parts.h, in a header of its group or of an
**     earlier one (a part a shared part calls is declared where that part sees it);
**   - every name a section declares starts with the section's prefix;
**   - no name is declared twice;
**   - every GPUBLOB_PRIVATE definition in a part is declared in that part's section,
**     and every function a section declares is defined in its part (or, for the
**     engine the cache front stands in for, in src/front.c);
**   - the checker itself finds a misnamed declaration (a section made up here).
** That each part compiles alone with its group's header is tools/rooms.sh's (ninja
** rooms, which ninja test runs first). */
#include "testlib.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_PARTS = 256, MAX_NAMES = 2048 };
enum { DECL_TYPE, DECL_FUNCTION, DECL_DATUM };

typedef struct part {
  char file[80]; /* src/NAME.c */
  int group;     /* 0 shared, 1 the compiler's, 2 MLIR's */
} part;

static part parts[MAX_PARTS];
static int nparts;

typedef struct decl {
  char name[96];
  char part[64];   /* the section's part */
  char prefix[64]; /* the section's prefix, without its '_' */
  char header[40];
  int kind;        /* DECL_FUNCTION, DECL_DATUM or DECL_TYPE */
} decl;

static decl decls[MAX_NAMES];
static int ndecls;

static const char *const headers[] = {"src/internal.h", "src/internal_compile.h", "src/internal_mlir.h"};

static int part_index(const char *file) {
  for (int i = 0; i < nparts; i++)
    if (!strcmp(parts[i].file, file)) return i;
  return -1;
}

/* src/parts.h's #include lines: the parts, and their groups (the group headers'
** lines switch it; api_mlir.c, the public MLIR calls, is MLIR's). */
static void read_parts(void) {
  char *text = (char *)slurp("src/parts.h", NULL);
  check(text != NULL, "src/parts.h is read", "from %s", "the repository root");
  int group = 0;
  for (char *p = text; p && (p = strstr(p, "#include \"")); p++) {
    char name[64];
    if (sscanf(p, "#include \"%63[^\"]\"", name) != 1) continue;
    if (!strcmp(name, "internal_compile.h")) group = 1;
    else if (!strcmp(name, "internal_mlir.h")) group = 2;
    else if (!strcmp(name, "call.c")) group = 1;
    if (!strstr(name, ".c") || nparts == MAX_PARTS) continue;
    snprintf(parts[nparts].file, sizeof parts[nparts].file, "src/%s", name);
    parts[nparts].group = !strcmp(name, "api_mlir.c") ? 2 : group;
    nparts++;
  }
  free(text);
  check(nparts >= 80, "src/parts.h lists the parts", "%d found", nparts);
}

/* The identifier that ends just before end (skipping blanks back from it). */
static int name_before(const char *start, const char *end, char *out, size_t size) {
  while (end > start && isspace((unsigned char)end[-1])) end--;
  const char *b = end;
  while (b > start && (isalnum((unsigned char)b[-1]) || b[-1] == '_')) b--;
  if (b == end || (size_t)(end - b) >= size) return 0;
  memcpy(out, b, (size_t)(end - b));
  out[end - b] = 0;
  return 1;
}

/* The name a declaration line declares: a function (GPUBLOB_PRIVATE ... name(), a
** datum (GPUBLOB_PRIVATE_DATA ... name; or name[), a type (typedef ... name; } name;
** struct/enum name {); 0 for any other line.  *kind: which of the three. */
static int declared_name(const char *line, char *out, size_t size, int *kind) {
  *kind = DECL_TYPE;
  if (!strncmp(line, "GPUBLOB_PRIVATE_DATA ", 21)) {
    *kind = DECL_DATUM;
    const char *e = line + strcspn(line, "[;=");
    const char *attr = strstr(line, " GPUBLOB_NONSTRING");
    if (attr && attr < e) e = attr;
    return name_before(line, e, out, size);
  }
  if (!strncmp(line, "GPUBLOB_PRIVATE ", 16)) {
    *kind = strchr(line, '(') ? DECL_FUNCTION : DECL_DATUM;
    return name_before(line, line + strcspn(line, *kind == DECL_FUNCTION ? "(" : "[=;"), out, size);
  }
  if (!strncmp(line, "} ", 2)) return name_before(line, line + strcspn(line, ";"), out, size);
  if (!strncmp(line, "typedef ", 8)) {
    const char *paren = strstr(line, "(*");
    if (paren) return name_before(line, paren + 2 + strcspn(paren + 2, ")"), out, size);
    const char *semi = strchr(line, ';');
    if (semi && !strchr(line, '{')) return name_before(line, semi, out, size);
  }
  for (const char *kw = "struct "; kw; kw = !strcmp(kw, "struct ") ? "enum " : NULL) {
    const char *s = !strncmp(line, "typedef ", 8) ? line + 8 : line;
    if (!strncmp(s, kw, strlen(kw)) && strchr(s, '{') && s[strlen(kw)] != '{')
      return name_before(s, s + strcspn(s, "{"), out, size);
  }
  return 0;
}

/* The section heading's part and prefix: "/ * ---- src/x.c (x_) ---- * /". */
static int section_heading(const char *line, char *file, char *prefix) {
  return sscanf(line, "/* ---- %63s (%63[a-z0-9_]) ---- */", file, prefix) == 2;
}

/* Reads one header's sections into decls; returns the number of misnamed
** declarations (each reported where report is set). */
static int read_header(const char *header, char *text, int report) {
  int bad = 0;
  char file[64] = "", prefix[64] = "";
  for (char *line = text; line && *line;) {
    char *nl = strchr(line, '\n');
    if (nl) *nl = 0;
    char f[64], p[64], name[96];
    int kind;
    if (section_heading(line, f, p)) {
      snprintf(file, sizeof file, "%s", f);
      size_t n = strlen(p);
      if (n && p[n - 1] == '_') p[n - 1] = 0;
      snprintf(prefix, sizeof prefix, "%s", p);
    } else if (*file && declared_name(line, name, sizeof name, &kind)) {
      size_t n = strlen(prefix);
      int named = !strcmp(name, prefix) || (!strncmp(name, prefix, n) && name[n] == '_');
      if (!named) {
        bad++;
        if (report) check(named, "a shared name starts with its part's prefix", "%s: %s (%s, prefix %s_)", header, name, file, prefix);
      }
      if (ndecls < MAX_NAMES) {
        decl *d = &decls[ndecls++];
        snprintf(d->name, sizeof d->name, "%s", name);
        snprintf(d->part, sizeof d->part, "%s", file);
        snprintf(d->prefix, sizeof d->prefix, "%s", prefix);
        snprintf(d->header, sizeof d->header, "%s", header);
        d->kind = kind;
      }
    }
    line = nl ? nl + 1 : NULL;
  }
  return bad;
}

/* Every section of every header names a part of a group its header may hold. */
static void check_sections(int h, const char *text) {
  int sections = 0;
  for (const char *p = text; (p = strstr(p, "/* ---- src/")); p++) {
    char file[64], prefix[64];
    if (!section_heading(p, file, prefix)) continue;
    sections++;
    int i = part_index(file);
    check(i >= 0, "a section names a part of src/parts.h", "%s: %s", headers[h], file);
    if (i >= 0)
      check(parts[i].group >= h, "a part is declared in its group's header or an earlier one", "%s in %s (group %d)",
            file, headers[h], parts[i].group);
  }
  check(sections > 0, "the header has sections", "%s", headers[h]);
}

/* name is defined as GPUBLOB_PRIVATE in text (a line that starts so and names it). */
static int defines(const char *text, const char *name, int function) { /* function: followed by '(' */
  size_t n = strlen(name);
  for (const char *p = text; p && (p = strstr(p, "GPUBLOB_PRIVATE ")); p++) {
    if (p != text && p[-1] != '\n') continue;
    const char *eol = p + strcspn(p, "\n");
    for (const char *q = p; (q = strstr(q, name)) && q < eol; q++) {
      char after = q[n];
      int whole = (q == p || !(isalnum((unsigned char)q[-1]) || q[-1] == '_')) && !(isalnum((unsigned char)after) || after == '_');
      if (whole && (function ? after == '(' : after != '(')) return 1;
    }
  }
  return 0;
}

/* Both ways: a part's GPUBLOB_PRIVATE definitions are declared in its section, and a
** section's functions and data are defined in its part. */
static void check_parts(void) {
  char *front = (char *)slurp("src/front.c", NULL);
  int defined = 0;
  for (int i = 0; i < nparts; i++) {
    char *text = (char *)slurp(parts[i].file, NULL);
    check(text != NULL, "a part of src/parts.h is there", "%s", parts[i].file);
    if (!text) continue;
    for (char *p = text; (p = strstr(p, "GPUBLOB_PRIVATE ")); p++) {
      if (p != text && p[-1] != '\n') continue;
      char name[96], line[512];
      int kind, found = 0;
      snprintf(line, sizeof line, "%.*s", (int)strcspn(p, "\n"), p);
      if (!declared_name(line, name, sizeof name, &kind)) continue;
      defined++;
      for (int d = 0; d < ndecls && !found; d++) found = !strcmp(decls[d].name, name) && !strcmp(decls[d].part, parts[i].file);
      check(found, "a part's shared definition is declared in its section", "%s: %s", parts[i].file, name);
    }
    for (int d = 0; d < ndecls; d++) {
      if (strcmp(decls[d].part, parts[i].file) || decls[d].kind == DECL_TYPE) continue;
      int here = defines(text, decls[d].name, decls[d].kind == DECL_FUNCTION);
      int stand_in = front && defines(front, decls[d].name, decls[d].kind == DECL_FUNCTION);
      check(here || stand_in, "what a section declares is defined in its part", "%s: %s", parts[i].file, decls[d].name);
    }
    free(text);
  }
  free(front);
  check(defined >= 300, "the parts share their functions as GPUBLOB_PRIVATE", "%d definitions", defined);
}

/* No name is declared twice, in one header or in two. */
static void check_once(void) {
  for (int a = 0; a < ndecls; a++)
    for (int b = a + 1; b < ndecls; b++)
      if (!strcmp(decls[a].name, decls[b].name) && decls[a].kind != DECL_TYPE && decls[b].kind != DECL_TYPE)
        check(0, "a shared function is declared once", "%s: %s and %s", decls[a].name, decls[a].header, decls[b].header);
}

/* The checker finds a name without its part's prefix, and passes one with it. */
static void check_checker(void) {
  int saved = ndecls;
  char good[] = "/* ---- src/io.c (io_) ---- */\nGPUBLOB_PRIVATE int io_read_all(int fd);\ntypedef struct io_buf {\n} io_buf;\n";
  char bad[] = "/* ---- src/io.c (io_) ---- */\nGPUBLOB_PRIVATE int read_all(int fd);\nGPUBLOB_PRIVATE_DATA int io_x;\n"
               "GPUBLOB_PRIVATE_DATA const char magic[8] GPUBLOB_NONSTRING;\ntypedef struct buf {\n} buf;\n";
  check(read_header("(made up)", good, 0) == 0, "the checker passes prefixed names", "%s", "io_read_all, io_buf");
  check(read_header("(made up)", bad, 0) == 4, "the checker finds names without the prefix", "%s",
        "read_all, magic, and buf twice (its tag and its name)");
  ndecls = saved;
}

int main(void) {
  read_parts();
  for (int h = 0; h < 3; h++) {
    char *text = (char *)slurp(headers[h], NULL);
    check(text != NULL, "a group header is read", "%s", headers[h]);
    if (!text) continue;
    check_sections(h, text);
    read_header(headers[h], text, 1);
    free(text);
  }
  check(ndecls >= 300, "the headers declare what the parts share", "%d names", ndecls);
  check_once();
  check_parts();
  check_checker();
  return report();
}
