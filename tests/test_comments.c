/* test_comments: every file a comment of the code names exists.  The comments of
** src/, programs/ and gen/ (each .c, .h and .cpp; C's block comments and C++'s line
** comments, not string literals) are read for file names:
**   - a path under one of the tree's folders (src/plan.c, programs/cli.h, gen/spec.h,
**     tests/..., docs/....md, tools/..., targets/..., examples/..., bench/...,
**     python/...), or relative to the comment's folder (../gpublob.h), must exist in
**     the tree;
**   - a path under build/ is a build output: build.ninja, tests/sanitize.ninja or
**     configure (build/config.ninja) must name it;
**   - a bare file name of C (plan.c, internal.h, lld.cpp) must exist in the comment's
**     own folder, or at the tree's root (gpublob.c, gpublob.h).
** Not names: one inside <...> (a system header), a pattern or placeholder (a word
** with * { } $ @, or an upper-case stem: OUT.c, FILE.h, src/PART.c), and the few
** files of other projects a comment cites by name (foreign[] below, each with whose
** it is; none of them may be a file of the tree's folders).  The checker is run first
** on a planted comment naming two files that do not exist, and must find both. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

static const char *const folders[] = {"src", "programs", "gen"};
static const char *const tree_dirs[] = {"src/",      "programs/", "gen/",     "tests/", "docs/", "tools/",
                                        "targets/",  "examples/", "bench/",   "python/"};
/* Other projects' files, named in comments as what the code follows or reads. */
static const char *const foreign[] = {
    "luaconf.h",        /* Lua's (src/config.h is after it) */
    "Driver.cpp",       /* lld's ELF driver (src/lld.cpp) */
    "cuda_occupancy.h", /* the CUDA toolkit's occupancy calculator (src/occupancy.c) */
    "nvJitLink.h",      /* the CUDA toolkit's (src/provider_nvjitlink.c) */
    "xxhash.h",         /* libxxhash-dev's */
};

static char *build_text; /* build.ninja, tests/sanitize.ninja and configure, for build/ paths */

static int path_char(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("_./-*{}$@+", c);
}

static int ends_with(const char *s, const char *tail) {
  size_t n = strlen(s), m = strlen(tail);
  return n >= m && !strcmp(s + n - m, tail);
}

/* A bare name of C: NAME.c, NAME.h or NAME.cpp, NAME of letters, digits, _ and -. */
static int c_name(const char *w) {
  const char *dot = strrchr(w, '.');
  if (!dot || dot == w || (strcmp(dot, ".c") && strcmp(dot, ".h") && strcmp(dot, ".cpp"))) return 0;
  for (const char *p = w; p < dot; p++)
    if (!path_char(*p) || strchr("./*{}$@+", *p)) return 0;
  return 1;
}

/* A placeholder: the stem of the last part (before its first '.') has no lower-case letter. */
static int placeholder(const char *w) {
  const char *base = strrchr(w, '/');
  base = base ? base + 1 : w;
  int upper = 0;
  for (const char *p = base; *p && *p != '.'; p++) {
    if (*p >= 'a' && *p <= 'z') return 0;
    upper |= *p >= 'A' && *p <= 'Z';
  }
  return upper;
}

static int is_foreign(const char *w) {
  for (size_t i = 0; i < sizeof foreign / sizeof *foreign; i++)
    if (!strcmp(w, foreign[i])) return 1;
  return 0;
}

/* The word w of a comment in dir: 0 when it names no file or one that exists, else 1
** (and why, into *missing). */
static int word_missing(const char *dir, const char *w, char *missing, size_t size) {
  char path[4096];
  if (strpbrk(w, "*{}$@") || placeholder(w)) return 0;
  if (strchr(w, '/')) {
    if (!strncmp(w, "build/", 6)) {
      char *p = strstr(build_text, w);
      int named = 0; /* as a whole path: not the start of a longer one */
      for (; p && !named; p = strstr(p + 1, w)) named = !path_char(p[strlen(w)]) || p[strlen(w)] == '/';
      if (!named && !(ends_with(w, "/") && strstr(build_text, w))) {
        snprintf(missing, size, "%s (a build output no build file names)", w);
        return 1;
      }
      return 0;
    }
    int tree = 0;
    for (size_t i = 0; i < sizeof tree_dirs / sizeof *tree_dirs; i++) tree |= !strncmp(w, tree_dirs[i], strlen(tree_dirs[i]));
    if (tree) snprintf(path, sizeof path, "%s", w);
    else if (!strncmp(w, "../", 3)) snprintf(path, sizeof path, "%s/%s", dir, w);
    else return 0; /* another project's path (llvm/Support/TargetSelect.h), or a system one */
    if (!exists(path)) {
      snprintf(missing, size, "%s", w);
      return 1;
    }
    return 0;
  }
  if (!c_name(w) || is_foreign(w)) return 0;
  snprintf(path, sizeof path, "%s/%s", dir, w);
  if (exists(path) || exists(w)) return 0;
  snprintf(missing, size, "%s (not in %s/ nor at the root)", w, dir);
  return 1;
}

/* The words of one comment's text [p, end) of a file in dir; the missing ones appended
** to list (each "file: name"). */
static int comment_words(const char *text, const char *dir, const char *p, const char *end, char *list,
                         size_t size) {
  int n = 0;
  while (p < end) {
    if (!path_char((unsigned char)*p)) {
      p++;
      continue;
    }
    const char *s = p;
    while (p < end && path_char((unsigned char)*p)) p++;
    size_t len = (size_t)(p - s);
    while (len && strchr(".,:;-", s[len - 1])) len--; /* a sentence's punctuation */
    if (!len || len >= 1024 || (s > text && s[-1] == '<')) continue;
    char w[1024], missing[1200];
    memcpy(w, s, len);
    w[len] = 0;
    if (word_missing(dir, w, missing, sizeof missing)) {
      n++;
      size_t at = strlen(list);
      if (at < size) snprintf(list + at, size - at, "  %s\n", missing);
    }
  }
  return n;
}

/* Every comment of text (a file of dir): block comments and line comments, outside
** string and character literals. */
static int file_missing(const char *text, const char *dir, char *list, size_t size) {
  int n = 0;
  for (const char *p = text; *p;) {
    if (p[0] == '/' && p[1] == '*') {
      const char *end = strstr(p + 2, "*/");
      if (!end) end = p + strlen(p);
      n += comment_words(text, dir, p + 2, end, list, size);
      p = *end ? end + 2 : end;
    } else if (p[0] == '/' && p[1] == '/') {
      const char *end = strchr(p, '\n');
      if (!end) end = p + strlen(p);
      n += comment_words(text, dir, p + 2, end, list, size);
      p = end;
    } else if (*p == '"' || *p == '\'') {
      char q = *p++;
      while (*p && *p != q) p += p[0] == '\\' && p[1] ? 2 : 1;
      if (*p) p++;
    } else p++;
  }
  return n;
}

static char *read_or_empty(const char *path) {
  char *t = (char *)slurp(path, NULL);
  return t ? t : strdup("");
}

int main(void) {
  char *a = read_or_empty("build.ninja"), *b = read_or_empty("tests/sanitize.ninja"), *c = read_or_empty("configure");
  size_t n = strlen(a) + strlen(b) + strlen(c) + 3;
  build_text = malloc(n);
  snprintf(build_text, n, "%s\n%s\n%s", a, b, c);
  free(a), free(b), free(c);
  check(exists("src/parts.h") && strstr(build_text, "build/gpublob_targets.def"),
        "comments: run from the tree's root (src/parts.h, build.ninja)", NULL);

  /* the checker finds what is not there: a planted comment in src/ */
  {
    char list[4096] = "";
    const char *planted = "/* see src/no_such_part.c, plan_no_such.c and build/no_such_output. */\n"
                          "static const char *s = \"/* plan_in_a_string.c */\";\n"
                          "// and src/neither_this.h\n";
    int found = file_missing(planted, "src", list, sizeof list);
    check(found == 4 && strstr(list, "src/no_such_part.c") && strstr(list, "plan_no_such.c") &&
              strstr(list, "build/no_such_output") && strstr(list, "src/neither_this.h"),
          "comments: the checker finds the four names a planted comment has that do not exist", "found %d:\n%s",
          found, list);
  }

  /* the foreign names are no file of the tree's folders */
  for (size_t i = 0; i < sizeof foreign / sizeof *foreign; i++) {
    int here = exists(foreign[i]);
    for (size_t f = 0; f < sizeof folders / sizeof *folders; f++) {
      char p[512];
      snprintf(p, sizeof p, "%s/%s", folders[f], foreign[i]);
      here |= exists(p);
    }
    char name[300];
    snprintf(name, sizeof name, "comments: %s, another project's, is no file of the tree", foreign[i]);
    check(!here, name, NULL);
  }

  for (size_t f = 0; f < sizeof folders / sizeof *folders; f++) {
    DIR *d = opendir(folders[f]);
    struct dirent *e;
    int files = 0;
    while (d && (e = readdir(d))) {
      if (!ends_with(e->d_name, ".c") && !ends_with(e->d_name, ".h") && !ends_with(e->d_name, ".cpp")) continue;
      char path[1024], name[1200];
      snprintf(path, sizeof path, "%s/%s", folders[f], e->d_name);
      char *text = (char *)slurp(path, NULL);
      files++;
      char list[16384] = "";
      int missing = text ? file_missing(text, folders[f], list, sizeof list) : -1;
      snprintf(name, sizeof name, "comments: every file %s's comments name exists", path);
      check(missing == 0, name, "%s", text ? list : "cannot read it");
      free(text);
    }
    if (d) closedir(d);
    char name[200];
    snprintf(name, sizeof name, "comments: %s/ has C files to read", folders[f]);
    check(files > 0, name, NULL);
  }
  free(build_text);
  return report();
}
