/* gpublob.c: the one translation unit of gpublob's target-neutral core.
**
** In-tree:  ./configure && ninja   (build/gpublob_targets.def comes from the spec)
** Vendored: cc -std=c11 -O2 -c gpublob.c $(llvm-config-22 --cflags)
**           using build/vendor/gpublob.c, which has the target table pasted in.
**
** The file runs in pipeline order: options and targets, input, parse and verify,
** target machine, module flags, device libraries, optimisation, emission, blob
** tool, and last the public API.  Nothing here names a target: whatever differs
** between targets is a field of the descriptor generated from targets/.
*/
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#ifndef GPUBLOB_MLIR
#define GPUBLOB_MLIR 0 /* 1: MLIR input, with the MLIR C API */
#endif
#if GPUBLOB_MLIR
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/Diagnostics.h>
#include <mlir-c/Dialect/GPU.h>
#include <mlir-c/IR.h>
#include <mlir-c/Pass.h>
#include <mlir-c/RegisterEverything.h>
#include <mlir-c/Support.h>
#include <mlir-c/Target/LLVMIR.h>
#endif
#include "gpublob.h"

#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>

extern char **environ;

/* ---- the target descriptors, generated from the spec ---- */
enum emit_kind { EMIT_asm, EMIT_obj };
enum tool_kind { TOOL_exec, TOOL_none };
enum tool_input { INPUT_file, INPUT_stdin, INPUT_pipe };

typedef struct target_desc {
  const char *name, *triple, *chip, *chip_prefix, *chips, *chip_features;
  const char *features, *feature_names, *version_feature, *feature_min;
  enum emit_kind emit;
  enum tool_kind tool_kind;
  const char *tool_kind_name;
  enum tool_input tool_input;
  const char *tool, *tool_argv, *tool_search;
  const char *attribute, *suffix_asm, *suffix_bin;
  const char *libs, *lib_search, *module_flags, *intrinsics;
  const char *mlir_target, *mlir_chip, *mlir_lower, *mlir_dialects;
} target_desc;

#define GPUBLOB_TARGET(name, triple, chip, chip_prefix, chips, chip_features, features,  \
                       feature_names, version_feature, feature_min, emit, tool_kind,     \
                       tool_input, tool, tool_argv, tool_search, attribute, suffix_asm,  \
                       suffix_bin,                                                       \
                       libs, lib_search, module_flags, intrinsics, mlir_target,          \
                       mlir_chip, mlir_lower, mlir_dialects, llvm_target)                \
  {name, triple, chip, chip_prefix, chips, chip_features, features, feature_names,      \
   version_feature, feature_min, EMIT_##emit, TOOL_##tool_kind, #tool_kind,             \
   INPUT_##tool_input, tool,                                                             \
   tool_argv, tool_search, attribute, suffix_asm, suffix_bin, libs, lib_search,         \
   module_flags, intrinsics, mlir_target, mlir_chip, mlir_lower, mlir_dialects},
static const target_desc targets[] = {
#include "gpublob_targets.def"
};
#define NTARGETS ((int)(sizeof targets / sizeof *targets))

/* ---- strings: a growable buffer, blank-separated lists, globs ---- */
typedef struct strbuf {
  char *s;
  size_t len, cap;
  int oom;
} strbuf;

static void sb_addn(strbuf *b, const char *s, size_t n) {
  if (b->oom) return;
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 128;
    while (cap < b->len + n + 1) cap *= 2;
    char *p = realloc(b->s, cap);
    if (!p) {
      b->oom = 1;
      return;
    }
    b->s = p;
    b->cap = cap;
  }
  memcpy(b->s + b->len, s, n);
  b->len += n;
  b->s[b->len] = 0;
}

static void sb_add(strbuf *b, const char *s) { sb_addn(b, s, strlen(s)); }

static void sb_addf(strbuf *b, const char *fmt, ...) {
  char small[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n < sizeof small) {
    sb_addn(b, small, (size_t)n);
    return;
  }
  char *big = malloc((size_t)n + 1);
  if (!big) {
    b->oom = 1;
    return;
  }
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  sb_addn(b, big, (size_t)n);
  free(big);
}

static const char *sb_str(const strbuf *b) { return b->s ? b->s : ""; }
static void sb_reset(strbuf *b) {
  b->len = 0;
  b->oom = 0;
  if (b->s) b->s[0] = 0;
}
static void sb_free(strbuf *b) {
  free(b->s);
  memset(b, 0, sizeof *b);
}

/* The next word of a list separated by any of seps; NULL at the end. */
static const char *next_word(const char **p, const char *seps, size_t *n) {
  const char *s = *p;
  while (*s && strchr(seps, *s)) s++;
  if (!*s) return NULL;
  const char *e = s;
  while (*e && !strchr(seps, *e)) e++;
  *n = (size_t)(e - s);
  *p = e;
  return s;
}

static int word_is(const char *w, size_t n, const char *s) {
  return strlen(s) == n && !strncmp(w, s, n);
}

static int list_has(const char *list, const char *s) {
  size_t n;
  const char *w;
  while ((w = next_word(&list, " ", &n)))
    if (word_is(w, n, s)) return 1;
  return 0;
}

/* Value of KEY in a "KEY:VALUE KEY:VALUE" list, copied into out; 0 if absent. */
static int pair_value(const char *list, const char *key, char *out, size_t size) {
  size_t n, k = strlen(key);
  const char *w;
  while ((w = next_word(&list, " ", &n)))
    if (n > k && w[k] == ':' && !strncmp(w, key, k)) {
      snprintf(out, size, "%.*s", (int)(n - k - 1), w + k + 1);
      return 1;
    }
  return 0;
}

static int glob_match(const char *pattern, size_t n, const char *s) {
  char pat[128];
  snprintf(pat, sizeof pat, "%.*s", (int)n, pattern);
  return fnmatch(pat, s, 0) == 0;
}

/* ---- the handle and its error message ---- */
struct gpublob {
  int code;
  strbuf msg;
};

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

/* Appends detail (a diagnostic, a tool's stderr) to the current message. */
static void add_detail(gpublob *g, const char *detail) {
  size_t n = strlen(detail);
  while (n && (detail[n - 1] == '\n' || detail[n - 1] == ' ')) n--;
  if (!n) return;
  sb_add(&g->msg, ":\n");
  sb_addn(&g->msg, detail, n);
}

/* ---- one compile: the job and the options it resolved ---- */
typedef struct workdir {
  char dir[4096], in[4200], out[4200];
} workdir;

typedef struct toolrun { /* a blob tool in flight */
  workdir w;
  int made;            /* w.dir exists */
  strbuf store, output; /* argv strings; the tool's stdout and stderr */
  char **argv;
  pid_t pid;           /* 0 when not running */
  int in_fd, out_fd;   /* its stdin (stdin tools), its stdout+stderr; -1 when closed */
} toolrun;

typedef struct job {
  gpublob *g;
  const target_desc *t;
  char chip[64];
  strbuf features;  /* what LLVM gets: spec default, then the caller's */
  strbuf condfeat;  /* what {if:+x} reads: the chip's implied, then features */
  int format, opt;
  unsigned flags;
  const gpublob_options *o; /* &opts */
  gpublob_options opts;     /* the caller's, normalised to this version */
  const char *name;
  LLVMContextRef ctx;
  LLVMModuleRef mod;
  LLVMTargetMachineRef tm;
  strbuf diag; /* LLVM diagnostics of this job */
  gpublob_blob out;
  char tool[4096]; /* the blob tool, found before any compile work */
  toolrun run;
} job;

static const gpublob_options default_options = {.version = GPUBLOB_OPTIONS_VERSION};

/* ---- options: target, chip, features, format and level, checked before LLVM ---- */
static const target_desc *target_named(const char *name, size_t n) {
  for (int i = 0; i < NTARGETS; i++)
    if (word_is(name, n, targets[i].name)) return &targets[i];
  return NULL;
}

static int resolve_target(job *j) {
  const char *spec = j->o->target ? j->o->target : targets[0].name;
  const char *colon = strchr(spec, ':');
  size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
  j->t = target_named(spec, n);
  if (!j->t) {
    strbuf known = {0};
    for (int i = 0; i < NTARGETS; i++) sb_addf(&known, "%s%s", i ? " " : "", targets[i].name);
    set_error(j->g, GPUBLOB_TARGET, "unknown target '%.*s' (known: %s)", (int)n, spec,
              sb_str(&known));
    sb_free(&known);
    return GPUBLOB_TARGET;
  }
  const char *chip = j->o->chip ? j->o->chip : colon ? colon + 1 : j->t->chip;
  if (!*chip || strlen(chip) >= sizeof j->chip || !list_has(j->t->chips, chip))
    return set_error(j->g, GPUBLOB_CHIP, "invalid chip '%s' for target %s (valid: %s)", chip,
                     j->t->name, j->t->chips);
  strcpy(j->chip, chip);
  return GPUBLOB_OK;
}

/* A feature +NAME of the versioned family (+ptx80) must reach the chip's minimum. */
static int check_feature_version(job *j, const char *w, size_t n) {
  const target_desc *t = j->t;
  size_t p = strlen(t->version_feature);
  if (!p || n <= p + 1 || w[0] != '+' || strncmp(w + 1, t->version_feature, p)) return GPUBLOB_OK;
  char min[32];
  if (!pair_value(t->feature_min, j->chip, min, sizeof min)) return GPUBLOB_OK;
  long have = strtol(w + 1 + p, NULL, 10), need = strtol(min + p, NULL, 10);
  if (have >= need) return GPUBLOB_OK;
  return set_error(j->g, GPUBLOB_FEATURES,
                   "feature '%.*s' is too low for chip %s: it needs at least +%s", (int)n, w,
                   j->chip, min);
}

static int check_feature(job *j, const char *w, size_t n) {
  if (n < 2 || (w[0] != '+' && w[0] != '-'))
    return set_error(j->g, GPUBLOB_FEATURES, "feature '%.*s' must start with '+' or '-'", (int)n, w);
  char name[128];
  snprintf(name, sizeof name, "%.*s", (int)(n - 1), w + 1);
  const char *pats = *j->t->feature_names ? j->t->feature_names : "*", *pw;
  size_t pn;
  int ok = 0;
  while (!ok && (pw = next_word(&pats, " ", &pn))) ok = glob_match(pw, pn, name);
  if (!ok)
    return set_error(j->g, GPUBLOB_FEATURES, "unknown feature '%.*s' for target %s (accepted: %s)",
                     (int)n, w, j->t->name, j->t->feature_names);
  return check_feature_version(j, w, n);
}

static void add_features(strbuf *b, const char *list) {
  const char *w;
  size_t n;
  while ((w = next_word(&list, ", ", &n))) {
    if (b->len) sb_add(b, ",");
    sb_addn(b, w, n);
  }
}

static void add_chip_features(job *j) {
  const char *list = j->t->chip_features, *w;
  size_t n;
  while ((w = next_word(&list, " ", &n))) {
    const char *colon = memchr(w, ':', n);
    if (!colon || !glob_match(w, (size_t)(colon - w), j->chip)) continue;
    if (j->condfeat.len) sb_add(&j->condfeat, ",");
    sb_addn(&j->condfeat, colon + 1, n - (size_t)(colon + 1 - w));
  }
}

/* A feature that flips what the chip implies (+wavefrontsize32 on gfx9) is refused:
** LLVM would compile it into a broken blob. */
static int check_implied(job *j) {
  const char *implied = sb_str(&j->condfeat), *w;
  size_t n;
  while ((w = next_word(&implied, ",", &n))) {
    const char *list = sb_str(&j->features), *u;
    size_t m;
    while ((u = next_word(&list, ",", &m)))
      if (m == n && u[0] != w[0] && !strncmp(u + 1, w + 1, n - 1))
        return set_error(j->g, GPUBLOB_FEATURES, "feature '%.*s' contradicts chip %s, which implies %.*s",
                         (int)m, u, j->chip, (int)n, w);
  }
  return GPUBLOB_OK;
}

static int resolve_features(job *j) {
  add_features(&j->features, j->t->features);
  if (j->o->features) add_features(&j->features, j->o->features);
  const char *list = sb_str(&j->features), *w;
  size_t n;
  while ((w = next_word(&list, ",", &n)))
    if (check_feature(j, w, n)) return j->g->code;
  add_chip_features(j);
  if (check_implied(j)) return j->g->code;
  add_features(&j->condfeat, sb_str(&j->features));
  if (j->features.oom || j->condfeat.oom) return set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  return GPUBLOB_OK;
}

static int resolve_levels(job *j) {
  j->format = j->o->format ? j->o->format : GPUBLOB_FORMAT_BIN;
  if (j->format < GPUBLOB_FORMAT_BIN || j->format > GPUBLOB_FORMAT_LLVM)
    return set_error(j->g, GPUBLOB_FORMAT, "unknown output format %d", j->o->format);
  int opt = j->o->opt ? j->o->opt : GPUBLOB_OPT_O3;
  if (opt < GPUBLOB_OPT_O0 || opt > GPUBLOB_OPT_O3)
    return set_error(j->g, GPUBLOB_OPTION, "unknown optimisation level %d", j->o->opt);
  j->opt = opt - GPUBLOB_OPT_O0;
  if (j->o->flags & ~(unsigned)(GPUBLOB_FLAG_FTZ | GPUBLOB_FLAG_FAST_MATH |
                                GPUBLOB_FLAG_NO_DEFAULT_SEARCH | GPUBLOB_FLAG_MLIR_BYTECODE))
    return set_error(j->g, GPUBLOB_OPTION, "unknown flags 0x%x", j->o->flags);
  j->flags = j->o->flags;
  return GPUBLOB_OK;
}

/* A list of one target stands for target, chip and features. */
static int resolve_choice(job *j) {
  if (j->o->ntargets > 1)
    return set_error(j->g, GPUBLOB_OPTION, "LLVM IR input takes one target, not %zu",
                     j->o->ntargets);
  if (j->o->ntargets && !j->o->targets)
    return set_error(j->g, GPUBLOB_MISUSE, "ntargets is %zu but targets is NULL", j->o->ntargets);
  if (j->o->ntargets) {
    j->opts.target = j->o->targets[0].target;
    j->opts.chip = j->o->targets[0].chip;
    j->opts.features = j->o->targets[0].features;
    j->opts.ntargets = 0;
  }
  return GPUBLOB_OK;
}

static int resolve_options(job *j) {
  if (j->o->version > GPUBLOB_OPTIONS_VERSION)
    return set_error(j->g, GPUBLOB_OPTION, "options version %u is newer than this gpublob (%d)",
                     j->o->version, GPUBLOB_OPTIONS_VERSION);
  if (resolve_choice(j)) return j->g->code;
  int rc = resolve_target(j);
  if (!rc) rc = resolve_features(j);
  if (!rc) rc = resolve_levels(j);
  return rc;
}

/* ---- templates: {chip}, {chipid}, {opt}, {if:COND:THEN:ELSE} and friends ---- */
static int feature_on(const char *features, const char *name, size_t n) {
  int on = 0;
  const char *w;
  size_t m;
  while ((w = next_word(&features, ",", &m)))
    if (m == n + 1 && !strncmp(w + 1, name, n)) on = w[0] == '+';
  return on;
}

static int condition_holds(const job *j, const char *c, size_t n) {
  if (word_is(c, n, "ftz")) return (j->flags & GPUBLOB_FLAG_FTZ) != 0;
  if (word_is(c, n, "fast-math")) return (j->flags & GPUBLOB_FLAG_FAST_MATH) != 0;
  int on = feature_on(sb_str(&j->condfeat), c + 1, n - 1);
  return c[0] == '+' ? on : !on;
}

static const char *chip_id(const job *j) {
  size_t p = strlen(j->t->chip_prefix);
  return strncmp(j->chip, j->t->chip_prefix, p) ? j->chip : j->chip + p;
}

/* Expands one placeholder body (between the braces) into b. */
static void expand_one(const job *j, const char *p, size_t n, const char **vars, strbuf *b) {
  if (n > 3 && !strncmp(p, "if:", 3)) {
    const char *c = p + 3, *e = p + n;
    const char *c1 = memchr(c, ':', (size_t)(e - c));
    const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(e - c1 - 1)) : NULL;
    if (!c2) return;
    if (condition_holds(j, c, (size_t)(c1 - c))) sb_addn(b, c1 + 1, (size_t)(c2 - c1 - 1));
    else sb_addn(b, c2 + 1, (size_t)(e - c2 - 1));
    return;
  }
  char opt[2] = {(char)('0' + j->opt), 0};
  if (word_is(p, n, "chip")) sb_add(b, j->chip);
  else if (word_is(p, n, "chipid")) sb_add(b, chip_id(j));
  else if (word_is(p, n, "opt")) sb_add(b, opt);
  else {
    for (int i = 0; vars && vars[i]; i += 2)
      if (word_is(p, n, vars[i])) {
        sb_add(b, vars[i + 1]);
        return;
      }
    sb_addf(b, "{%.*s}", (int)n, p); /* not a placeholder: a caller's pass options */
  }
}

/* Text outside placeholders, where }} is a literal brace. */
static void add_unbraced(strbuf *b, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    sb_addn(b, s + i, 1);
    if (s[i] == '}' && i + 1 < n && s[i + 1] == '}') i++;
  }
}

/* vars: NULL-ended name/value pairs for {tool}, {in}, {out}; {{ and }} are braces. */
static void expand(const job *j, const char *s, size_t n, const char **vars, strbuf *b) {
  const char *e = s + n;
  while (s < e) {
    const char *o = memchr(s, '{', (size_t)(e - s));
    if (o && o + 1 < e && o[1] == '{') { /* {{ is a literal brace */
      add_unbraced(b, s, (size_t)(o + 1 - s));
      s = o + 2;
      continue;
    }
    const char *c = o ? memchr(o, '}', (size_t)(e - o)) : NULL;
    if (!o || !c) {
      add_unbraced(b, s, (size_t)(e - s));
      return;
    }
    add_unbraced(b, s, (size_t)(o - s));
    expand_one(j, o + 1, (size_t)(c - o - 1), vars, b);
    s = c + 1;
  }
}

/* ---- search: options first, then the spec's roots (with $VARs), listing each try ---- */
typedef struct search {
  strbuf tried;
  char found[4096];
} search;

static int try_path(search *s, const char *dir, size_t dn, const char *name, int exec) {
  char path[4096];
  snprintf(path, sizeof path, "%.*s/%s", (int)dn, dir, name);
  strbuf line = {0};
  sb_addf(&line, "\n  %s", path);
  const char *seen = sb_str(&s->tried), *at = strstr(seen, sb_str(&line));
  size_t ln = line.len;
  int dup = at && (at[ln] == 0 || at[ln] == '\n');
  if (!dup) sb_add(&s->tried, sb_str(&line));
  sb_free(&line);
  if (dup) return 0;
  struct stat st;
  if (stat(path, &st) || !S_ISREG(st.st_mode) || (exec && access(path, X_OK))) return 0;
  snprintf(s->found, sizeof s->found, "%s", path);
  return 1;
}

/* Tries one root; "$VAR/sub" expands to each entry of a colon list in VAR. */
static int try_root(search *s, const char *root, size_t n, const char *name, int exec) {
  if (root[0] != '$') return try_path(s, root, n, name, exec);
  size_t v = 1;
  while (v < n && (root[v] == '_' || (root[v] >= 'A' && root[v] <= 'Z') ||
                   (root[v] >= 'a' && root[v] <= 'z') || (root[v] >= '0' && root[v] <= '9')))
    v++;
  char var[128];
  snprintf(var, sizeof var, "%.*s", (int)(v - 1), root + 1);
  const char *val = getenv(var), *w;
  size_t wn;
  while (val && (w = next_word(&val, ":", &wn))) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s%.*s", (int)wn, w, (int)(n - v), root + v);
    if (try_path(s, dir, strlen(dir), name, exec)) return 1;
  }
  return 0;
}

/* extra: a colon list from the options; roots: the spec's blank-separated list. */
static int search_file(const job *j, search *s, const char *extra, const char *roots,
                       const char *name, int exec) {
  const char *w;
  size_t n;
  while (extra && (w = next_word(&extra, ":", &n)))
    if (try_path(s, w, n, name, exec)) return 1;
  if (j->o->flags & GPUBLOB_FLAG_NO_DEFAULT_SEARCH) return 0;
  while ((w = next_word(&roots, " ", &n)))
    if (try_root(s, w, n, name, exec)) return 1;
  return 0;
}

static int find_tool(job *j, char *path, size_t size) {
  const target_desc *t = j->t;
  if (j->o->tool) {
    if (access(j->o->tool, X_OK))
      return set_error(j->g, GPUBLOB_NOTOOL, "blob tool '%s' (from the options) is not executable: %s",
                       j->o->tool, strerror(errno));
    snprintf(path, size, "%s", j->o->tool);
    return GPUBLOB_OK;
  }
  search s = {0};
  const char *names = t->tool, *w;
  size_t n;
  int found = 0;
  while (!found && (w = next_word(&names, " ", &n))) {
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)n, w);
    found = search_file(j, &s, j->o->tool_dirs, t->tool_search, name, 1);
  }
  if (found) snprintf(path, size, "%s", s.found);
  else
    set_error(j->g, GPUBLOB_NOTOOL, "%s not found for target %s; tried:%s%s", t->tool, t->name,
              s.tried.len ? sb_str(&s.tried) : " nothing (no search directory)",
              j->format == GPUBLOB_FORMAT_BIN ? "\n  (-f asm stops before the blob tool)" : "");
  sb_free(&s.tried);
  return found ? GPUBLOB_OK : GPUBLOB_NOTOOL;
}

/* ---- input: whole files or standard input, NUL-terminated for the IR parser ---- */
static int read_fd(int fd, unsigned char **data, size_t *size) {
  size_t cap = 65536, len = 0;
  unsigned char *buf = malloc(cap);
  while (buf) {
    if (len + 1 == cap) {
      unsigned char *p = realloc(buf, cap * 2);
      if (!p) break;
      buf = p;
      cap *= 2;
    }
    ssize_t r = read(fd, buf + len, cap - len - 1);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      free(buf);
      return -1;
    }
    if (r == 0) {
      buf[len] = 0;
      *data = buf;
      *size = len;
      return 0;
    }
    len += (size_t)r;
  }
  free(buf);
  errno = ENOMEM;
  return -1;
}

static int read_input(gpublob *g, const char *path, unsigned char **data, size_t *size) {
  int stdin_ = !strcmp(path, "-");
  int fd = stdin_ ? 0 : open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return set_error(g, GPUBLOB_IO, "cannot open '%s': %s", path, strerror(errno));
  int rc = read_fd(fd, data, size);
  int err = errno;
  if (!stdin_) close(fd);
  if (rc) return set_error(g, GPUBLOB_IO, "cannot read '%s': %s", path, strerror(err));
  return GPUBLOB_OK;
}

/* ---- LLVM: one-time initialisation, and a diagnostic handler per job ---- */
static pthread_once_t llvm_once = PTHREAD_ONCE_INIT;

/* Only the backends the spec names: a static build links no other. */
static void llvm_init(void) {
#define GPUBLOB_LLVM_TARGET(x)                                                    \
  LLVMInitialize##x##TargetInfo();                                                \
  LLVMInitialize##x##Target();                                                    \
  LLVMInitialize##x##TargetMC();                                                  \
  LLVMInitialize##x##AsmPrinter();
#include "gpublob_targets.def"
}

static void on_diagnostic(LLVMDiagnosticInfoRef di, void *ctx) {
  job *j = ctx;
  LLVMDiagnosticSeverity sev = LLVMGetDiagInfoSeverity(di);
  if (sev == LLVMDSRemark || sev == LLVMDSNote) return;
  char *text = LLVMGetDiagInfoDescription(di);
  sb_addf(&j->diag, "%s%s: %s", j->diag.len ? "\n" : "", sev == LLVMDSError ? "error" : "warning",
          text);
  LLVMDisposeMessage(text);
}

/* A version-1 caller's struct ends at lib_dirs; later fields read as zero. */
static void options_normalise(const gpublob_options *o, gpublob_options *out) {
  memset(out, 0, sizeof *out);
  if (!o) o = &default_options;
  memcpy(out, o, o->version == 1 ? offsetof(gpublob_options, targets) : sizeof *out);
}

static void job_begin(job *j, gpublob *g, const gpublob_options *o, const char *name) {
  memset(j, 0, sizeof *j);
  j->g = g;
  options_normalise(o, &j->opts);
  j->o = &j->opts;
  j->name = name ? name : "<memory>";
  j->run.in_fd = j->run.out_fd = -1;
  g->code = GPUBLOB_OK;
  sb_reset(&g->msg);
}

static void tool_end(job *j);

static void job_end(job *j) {
  tool_end(j);
  if (j->tm) LLVMDisposeTargetMachine(j->tm);
  if (j->mod) LLVMDisposeModule(j->mod);
  if (j->ctx) LLVMContextDispose(j->ctx);
  sb_free(&j->features);
  sb_free(&j->condfeat);
  sb_free(&j->diag);
  gpublob_blob_free(&j->out);
}

/* ---- parse and verify ---- */
static int looks_like_bitcode(const unsigned char *p, size_t n) {
  static const unsigned char raw[4] = {'B', 'C', 0xC0, 0xDE}, wrap[4] = {0xDE, 0xC0, 0x17, 0x0B};
  return n >= 4 && (!memcmp(p, raw, 4) || !memcmp(p, wrap, 4));
}

static int has_suffix(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && !strcmp(s + n - m, suffix);
}

/* data must hold a NUL at data[size]. */
static int parse_module(job *j, const unsigned char *data, size_t size) {
  int bitcode = looks_like_bitcode(data, size);
  if (!bitcode && has_suffix(j->name, ".bc"))
    return set_error(j->g, GPUBLOB_BITCODE, "%s: not LLVM bitcode (no bitcode magic)", j->name);
  j->ctx = LLVMContextCreate();
  LLVMContextSetDiagnosticHandler(j->ctx, on_diagnostic, j);
  LLVMMemoryBufferRef buf =
      LLVMCreateMemoryBufferWithMemoryRange((const char *)data, size, j->name, 1);
  char *err = NULL;
  LLVMBool failed = LLVMParseIRInContext2(j->ctx, buf, &j->mod, &err);
  LLVMDisposeMemoryBuffer(buf);
  if (failed) {
    j->mod = NULL;
    set_error(j->g, bitcode ? GPUBLOB_BITCODE : GPUBLOB_PARSE, "%s: cannot parse %s", j->name,
              bitcode ? "bitcode" : "LLVM IR");
    add_detail(j->g, err ? err : sb_str(&j->diag));
  }
  LLVMDisposeMessage(err);
  return failed ? j->g->code : GPUBLOB_OK;
}

static int verify_module(job *j) {
  char *err = NULL;
  LLVMBool bad = LLVMVerifyModule(j->mod, LLVMReturnStatusAction, &err);
  if (bad) {
    set_error(j->g, GPUBLOB_VERIFY, "%s: the module fails verification", j->name);
    add_detail(j->g, err ? err : "");
  }
  LLVMDisposeMessage(err);
  return bad ? GPUBLOB_VERIFY : GPUBLOB_OK;
}

/* A call of another target's intrinsics would abort the backend: refuse it here. */
static const target_desc *intrinsic_owner(const char *name, size_t n) {
  for (int i = 0; i < NTARGETS; i++) {
    const char *list = targets[i].intrinsics, *w;
    size_t m;
    while ((w = next_word(&list, " ", &m)))
      if (n > m + 6 && !strncmp(name + 5, w, m) && name[5 + m] == '.') return &targets[i];
  }
  return NULL;
}

static int owns_intrinsic(const target_desc *t, const char *name, size_t n) {
  const char *dot = memchr(name + 5, '.', n - 5);
  char ns[64];
  if (!dot || (size_t)(dot - name - 5) >= sizeof ns) return 0;
  snprintf(ns, sizeof ns, "%.*s", (int)(dot - name - 5), name + 5);
  return list_has(t->intrinsics, ns);
}

static int check_intrinsics(job *j) {
  for (LLVMValueRef f = LLVMGetFirstFunction(j->mod); f; f = LLVMGetNextFunction(f)) {
    size_t n;
    const char *name = LLVMGetValueName2(f, &n);
    if (!LLVMGetIntrinsicID(f) || n < 6 || strncmp(name, "llvm.", 5)) continue;
    const target_desc *owner = intrinsic_owner(name, n);
    if (owner && !owns_intrinsic(j->t, name, n))
      return set_error(j->g, GPUBLOB_TARGET,
                       "%s: calls %s, an intrinsic of target %s, which target %s cannot compile",
                       j->name, name, owner->name, j->t->name);
  }
  return GPUBLOB_OK;
}

/* ---- target machine: triple, chip, features, data layout ---- */
static LLVMCodeGenOptLevel codegen_level(int opt) {
  static const LLVMCodeGenOptLevel levels[] = {LLVMCodeGenLevelNone, LLVMCodeGenLevelLess,
                                               LLVMCodeGenLevelDefault, LLVMCodeGenLevelAggressive};
  return levels[opt];
}

static int make_target_machine(job *j) {
  LLVMTargetRef target;
  char *err = NULL;
  if (LLVMGetTargetFromTriple(j->t->triple, &target, &err)) {
    set_error(j->g, GPUBLOB_TARGET, "this LLVM has no backend for %s (%s)", j->t->triple,
              err ? err : "");
    LLVMDisposeMessage(err);
    return GPUBLOB_TARGET;
  }
  j->tm = LLVMCreateTargetMachine(target, j->t->triple, j->chip, sb_str(&j->features),
                                  codegen_level(j->opt), LLVMRelocDefault, LLVMCodeModelDefault);
  if (!j->tm)
    return set_error(j->g, GPUBLOB_TARGET, "cannot create a target machine for %s", j->t->triple);
  LLVMSetTarget(j->mod, j->t->triple);
  LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(j->tm);
  char *layout = LLVMCopyStringRepOfTargetData(dl);
  LLVMSetDataLayout(j->mod, layout);
  LLVMDisposeMessage(layout);
  LLVMDisposeTargetData(dl);
  return GPUBLOB_OK;
}

/* ---- module flags from the spec (NAME=BEHAVIOUR:VALUE) ---- */
static LLVMModuleFlagBehavior flag_behaviour(const char *s, size_t n) {
  static const char *const names[] = {"error", "warning", "require", "override", "append",
                                      "appendunique"};
  static const LLVMModuleFlagBehavior values[] = {
      LLVMModuleFlagBehaviorError,    LLVMModuleFlagBehaviorWarning,
      LLVMModuleFlagBehaviorRequire,  LLVMModuleFlagBehaviorOverride,
      LLVMModuleFlagBehaviorAppend,   LLVMModuleFlagBehaviorAppendUnique};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (word_is(s, n, names[i])) return values[i];
  return LLVMModuleFlagBehaviorError;
}

static void add_module_flag(job *j, const char *w, size_t n) {
  const char *eq = memchr(w, '=', n), *colon = eq ? memchr(eq, ':', n - (size_t)(eq - w)) : NULL;
  if (!colon) return;
  size_t kn = (size_t)(eq - w);
  if (LLVMGetModuleFlag(j->mod, w, kn)) return; /* the module's own value stands */
  strbuf v = {0};
  expand(j, colon + 1, n - (size_t)(colon + 1 - w), NULL, &v);
  long value = strtol(sb_str(&v), NULL, 0);
  sb_free(&v);
  LLVMValueRef c = LLVMConstInt(LLVMInt32TypeInContext(j->ctx), (unsigned long long)value, 1);
  LLVMAddModuleFlag(j->mod, flag_behaviour(eq + 1, (size_t)(colon - eq - 1)), w, kn,
                    LLVMValueAsMetadata(c));
}

static void add_module_flags(job *j) {
  const char *list = j->t->module_flags, *w;
  size_t n;
  while ((w = next_word(&list, " ", &n))) add_module_flag(j, w, n);
}

/* ---- device libraries: found by name, loaded lazily, linked only when needed ---- */
typedef struct devlib {
  char path[4096];
  void *map;
  size_t size;
  LLVMModuleRef lazy; /* loaded and not needed yet: kept for the next pass */
  unsigned seen;      /* links done when it was last checked, plus one */
} devlib;

static int is_undefined_ref(LLVMValueRef v) {
  return LLVMIsDeclaration(v) && !LLVMGetIntrinsicID(v);
}

/* Does lib define a symbol the module declares but lacks? */
static int lib_defines_needed(job *j, LLVMModuleRef lib) {
  for (LLVMValueRef f = LLVMGetFirstFunction(j->mod); f; f = LLVMGetNextFunction(f)) {
    if (!is_undefined_ref(f)) continue;
    LLVMValueRef d = LLVMGetNamedFunction(lib, LLVMGetValueName2(f, &(size_t){0}));
    if (d && !LLVMIsDeclaration(d)) return 1;
  }
  for (LLVMValueRef g = LLVMGetFirstGlobal(j->mod); g; g = LLVMGetNextGlobal(g)) {
    if (!LLVMIsDeclaration(g)) continue;
    LLVMValueRef d = LLVMGetNamedGlobal(lib, LLVMGetValueName2(g, &(size_t){0}));
    if (d && !LLVMIsDeclaration(d)) return 1;
  }
  return 0;
}

static int module_has_undefined(LLVMModuleRef m) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (is_undefined_ref(f)) return 1;
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g))
    if (LLVMIsDeclaration(g)) return 1;
  return 0;
}

/* Public definitions become linkonce_odr, so the linker moves only what is used. */
static void make_lazy(LLVMModuleRef lib) {
  for (LLVMValueRef f = LLVMGetFirstFunction(lib); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f) && LLVMGetLinkage(f) == LLVMExternalLinkage)
      LLVMSetLinkage(f, LLVMLinkOnceODRLinkage);
  for (LLVMValueRef g = LLVMGetFirstGlobal(lib); g; g = LLVMGetNextGlobal(g))
    if (!LLVMIsDeclaration(g) && LLVMGetLinkage(g) == LLVMExternalLinkage)
      LLVMSetLinkage(g, LLVMLinkOnceODRLinkage);
}

static int map_lib(job *j, devlib *l) {
  int fd = open(l->path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st)) {
    if (fd >= 0) close(fd);
    return set_error(j->g, GPUBLOB_NOLIB, "cannot open device library %s: %s", l->path,
                     strerror(errno));
  }
  l->size = (size_t)st.st_size;
  l->map = l->size ? mmap(NULL, l->size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
  close(fd);
  if (l->map == MAP_FAILED) {
    l->map = NULL;
    return set_error(j->g, GPUBLOB_NOLIB, "cannot map device library %s", l->path);
  }
  return GPUBLOB_OK;
}

static int load_lazy(job *j, devlib *l, LLVMModuleRef *out) {
  LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRange(l->map, l->size, l->path, 0);
  if (LLVMGetBitcodeModuleInContext2(j->ctx, buf, out)) {
    LLVMDisposeMemoryBuffer(buf); /* owned by the module only on success */
    set_error(j->g, GPUBLOB_LINK, "cannot read device library %s", l->path);
    add_detail(j->g, sb_str(&j->diag));
    return GPUBLOB_LINK;
  }
  LLVMSetTarget(*out, j->t->triple);
  LLVMSetDataLayout(*out, LLVMGetDataLayoutStr(j->mod));
  make_lazy(*out);
  return GPUBLOB_OK;
}

/* Links lib if it defines something still missing; *links counts the links done.
** A library is parsed once per link it takes part in, and checked again only
** after some other link may have added a reference to it. */
static int link_if_needed(job *j, devlib *l, unsigned *links) {
  if (l->seen == *links + 1) return GPUBLOB_OK;
  l->seen = *links + 1;
  if (!l->lazy && load_lazy(j, l, &l->lazy)) return j->g->code;
  if (!lib_defines_needed(j, l->lazy)) return GPUBLOB_OK;
  LLVMModuleRef lib = l->lazy;
  l->lazy = NULL; /* the linker consumes it */
  sb_reset(&j->diag);
  if (LLVMLinkModules2(j->mod, lib)) {
    set_error(j->g, GPUBLOB_LINK, "linking device library %s failed", l->path);
    add_detail(j->g, sb_str(&j->diag));
    return GPUBLOB_LINK;
  }
  ++*links;
  l->seen = *links + 1; /* what it defines and the module needed is in now */
  return GPUBLOB_OK;
}

static int find_libs(job *j, devlib *libs, int max, int *count) {
  const char *list = j->t->libs, *w;
  size_t n;
  *count = 0;
  while ((w = next_word(&list, " ", &n))) {
    if (*count == max)
      return set_error(j->g, GPUBLOB_NOLIB, "target %s lists more than %d device libraries", j->t->name, max);
    strbuf name = {0};
    expand(j, w, n, NULL, &name);
    search s = {0};
    int found = search_file(j, &s, j->o->lib_dirs, j->t->lib_search, sb_str(&name), 0);
    if (!found)
      set_error(j->g, GPUBLOB_NOLIB, "device library %s for %s:%s not found; tried:%s",
                sb_str(&name), j->t->name, j->chip,
                s.tried.len ? sb_str(&s.tried) : " nothing (no search directory)");
    else
      snprintf(libs[(*count)++].path, sizeof libs->path, "%s", s.found);
    sb_free(&name);
    sb_free(&s.tried);
    if (!found) return GPUBLOB_NOLIB;
  }
  return GPUBLOB_OK;
}

/* Everything but the module's own public definitions becomes internal. */
static void internalize(LLVMModuleRef m, char **keep, int nkeep) {
  LLVMValueRef v[2] = {LLVMGetFirstFunction(m), LLVMGetFirstGlobal(m)};
  for (int kind = 0; kind < 2; kind++)
    for (LLVMValueRef x = v[kind]; x; x = kind ? LLVMGetNextGlobal(x) : LLVMGetNextFunction(x)) {
      if (LLVMIsDeclaration(x) || LLVMGetLinkage(x) == LLVMInternalLinkage ||
          LLVMGetLinkage(x) == LLVMPrivateLinkage)
        continue;
      const char *name = LLVMGetValueName2(x, &(size_t){0});
      int kept = 0;
      for (int i = 0; i < nkeep && !kept; i++) kept = keep[i] && !strcmp(keep[i], name);
      if (!kept) LLVMSetLinkage(x, LLVMInternalLinkage);
    }
}

/* The module's own public definitions, which internalize keeps; -1 when out of memory. */
static int public_definitions(LLVMModuleRef m, char ***out) {
  int n = 0, cap = 16;
  char **keep = malloc(sizeof *keep * (size_t)cap);
  LLVMValueRef v[2] = {LLVMGetFirstFunction(m), LLVMGetFirstGlobal(m)};
  for (int kind = 0; kind < 2 && keep; kind++)
    for (LLVMValueRef x = v[kind]; x && keep; x = kind ? LLVMGetNextGlobal(x) : LLVMGetNextFunction(x)) {
      if (LLVMIsDeclaration(x) || LLVMGetLinkage(x) == LLVMInternalLinkage ||
          LLVMGetLinkage(x) == LLVMPrivateLinkage)
        continue;
      char **p = n == cap ? realloc(keep, sizeof *keep * (size_t)(cap *= 2)) : keep;
      char *name = p ? strdup(LLVMGetValueName2(x, &(size_t){0})) : NULL;
      if (!name) {
        for (int i = 0; i < n; i++) free((p ? p : keep)[i]);
        free(p ? p : keep);
        *out = NULL;
        return -1;
      }
      keep = p;
      keep[n++] = name;
    }
  *out = keep;
  return keep ? n : -1;
}

static void unmap_libs(devlib *libs, int n) {
  for (int i = 0; i < n; i++) {
    if (libs[i].lazy) LLVMDisposeModule(libs[i].lazy);
    if (libs[i].map) munmap(libs[i].map, libs[i].size);
  }
}

/* Passes over the libraries until none adds anything: ocml may need ockl, and so on. */
static int link_device_libs(job *j) {
  if (!*j->t->libs || !module_has_undefined(j->mod)) return GPUBLOB_OK;
  enum { MAX_LIBS = 32 };
  devlib *libs = calloc(MAX_LIBS, sizeof *libs);
  if (!libs) return set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  int n, rc = find_libs(j, libs, MAX_LIBS, &n);
  char **keep = NULL;
  int nkeep = rc ? 0 : public_definitions(j->mod, &keep);
  if (nkeep < 0) rc = set_error(j->g, GPUBLOB_NOMEM, "out of memory"), nkeep = 0;
  for (int i = 0; !rc && i < n; i++) rc = map_lib(j, &libs[i]);
  unsigned links = 0, before = 1;
  for (int pass = 0; !rc && links != before && pass < n + 1; pass++) {
    before = links;
    for (int i = 0; !rc && i < n; i++) rc = link_if_needed(j, &libs[i], &links);
  }
  if (!rc) internalize(j->mod, keep, nkeep);
  for (int i = 0; i < nkeep; i++) free(keep[i]);
  free(keep);
  unmap_libs(libs, n);
  free(libs);
  return rc;
}

/* ---- optimisation with the new pass manager ---- */
static int optimise(job *j) {
  char passes[32];
  snprintf(passes, sizeof passes, "default<O%d>", j->opt);
  LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
  LLVMErrorRef err = LLVMRunPasses(j->mod, passes, j->tm, po);
  LLVMDisposePassBuilderOptions(po);
  if (!err) return GPUBLOB_OK;
  char *msg = LLVMGetErrorMessage(err);
  set_error(j->g, GPUBLOB_BACKEND, "optimisation (%s) failed: %s", passes, msg);
  LLVMDisposeErrorMessage(msg);
  return GPUBLOB_BACKEND;
}

/* ---- emission: bitcode, assembly or object, into the job's blob ---- */
static int take_buffer(job *j, LLVMMemoryBufferRef buf, const char *suffix) {
  size_t n = LLVMGetBufferSize(buf);
  j->out.data = malloc(n ? n : 1);
  if (!j->out.data) {
    LLVMDisposeMemoryBuffer(buf);
    return set_error(j->g, GPUBLOB_NOMEM, "out of memory (%zu bytes)", n);
  }
  memcpy(j->out.data, LLVMGetBufferStart(buf), n);
  j->out.size = n;
  j->out.suffix = suffix;
  LLVMDisposeMemoryBuffer(buf);
  return GPUBLOB_OK;
}

static int emit(job *j, int assembly) {
  LLVMMemoryBufferRef buf = NULL;
  char *err = NULL;
  sb_reset(&j->diag);
  if (LLVMTargetMachineEmitToMemoryBuffer(j->tm, j->mod, assembly ? LLVMAssemblyFile : LLVMObjectFile,
                                          &err, &buf)) {
    set_error(j->g, GPUBLOB_BACKEND, "%s backend (%s) failed: %s", j->t->name, j->chip,
              err ? err : "");
    add_detail(j->g, sb_str(&j->diag));
    LLVMDisposeMessage(err);
    return GPUBLOB_BACKEND;
  }
  return take_buffer(j, buf, assembly ? j->t->suffix_asm : ".o");
}

static int emit_bitcode(job *j) {
  return take_buffer(j, LLVMWriteBitcodeToMemoryBuffer(j->mod), ".bc");
}

/* ---- the blob tool: spawned with an argv in a private directory, stderr kept ---- */
static int write_file(const char *path, const void *data, size_t n) {
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  const unsigned char *p = data;
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) break;
    p += w;
    n -= (size_t)w;
  }
  return close(fd) || n ? -1 : 0;
}

static void remove_tree(const char *dir) {
  DIR *d = opendir(dir);
  struct dirent *e;
  char path[4400];
  while (d && (e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      unlink(path);
    }
  if (d) closedir(d);
  rmdir(dir);
}

static int make_workdir(job *j, workdir *w) {
  const char *tmp = getenv("TMPDIR");
  snprintf(w->dir, sizeof w->dir, "%s/gpublob-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(w->dir))
    return set_error(j->g, GPUBLOB_IO, "cannot make a temporary directory %s: %s", w->dir,
                     strerror(errno));
  snprintf(w->out, sizeof w->out, "%s/out%s", w->dir, j->t->suffix_bin);
  const char *suffix = j->t->emit == EMIT_asm ? j->t->suffix_asm : ".o";
  if (j->t->tool_input == INPUT_stdin) snprintf(w->in, sizeof w->in, "-");
  else if (j->t->tool_input == INPUT_pipe) snprintf(w->in, sizeof w->in, "/dev/fd/3");
  else snprintf(w->in, sizeof w->in, "%s/in%s", w->dir, suffix);
  return GPUBLOB_OK;
}

/* Splits the expanded argv template on blanks; no shell is involved. */
static char **build_argv(job *j, const char *tool, const workdir *w, strbuf *store) {
  const char *vars[] = {"tool", tool, "in", w->in, "out", w->out, NULL};
  const char *list = j->t->tool_argv, *word;
  size_t n, count = 0;
  while ((word = next_word(&list, " ", &n))) {
    expand(j, word, n, vars, store);
    sb_addn(store, "", 1); /* the NUL itself separates the words */
    count++;
  }
  char **argv = calloc(count + 1, sizeof *argv);
  if (!argv || store->oom) {
    free(argv);
    return NULL;
  }
  char *p = store->s;
  for (size_t i = 0; i < count; i++, p += strlen(p) + 1) argv[i] = p;
  return argv;
}

static void read_all(int fd, strbuf *b) {
  char buf[4096];
  for (;;) {
    ssize_t r = read(fd, buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return;
    if (b->len < 65536) sb_addn(b, buf, (size_t)r);
  }
}

static int tool_failed(job *j, const char *tool, int status, const strbuf *output) {
  if (WIFSIGNALED(status))
    set_error(j->g, GPUBLOB_TOOL, "%s for %s:%s was killed by signal %d", tool, j->t->name,
              j->chip, WTERMSIG(status));
  else
    set_error(j->g, GPUBLOB_TOOL, "%s for %s:%s exited with status %d", tool, j->t->name, j->chip,
              WEXITSTATUS(status));
  add_detail(j->g, sb_str(output));
  return GPUBLOB_TOOL;
}

static int read_tool_output(job *j, const char *path) {
  unsigned char *data;
  size_t size;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0 || read_fd(fd, &data, &size)) {
    if (fd >= 0) close(fd);
    return set_error(j->g, GPUBLOB_TOOL, "the blob tool exited 0 but wrote no %s", path);
  }
  close(fd);
  if (!size) {
    free(data);
    return set_error(j->g, GPUBLOB_TOOL, "the blob tool exited 0 but wrote an empty %s", path);
  }
  gpublob_blob_free(&j->out);
  j->out.data = data;
  j->out.size = size;
  j->out.suffix = j->t->suffix_bin;
  return GPUBLOB_OK;
}

/* The tool's input channel: a socket as its stdin, or a pipe it reads as /dev/fd/3.
** Either way its end closes when this process goes, so the tool sees EOF. */
static int open_channel(job *j, int fds[2]) {
  int rc = j->t->tool_input == INPUT_stdin ? socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds)
                                           : pipe2(fds, O_CLOEXEC);
  if (rc) return set_error(j->g, GPUBLOB_TOOL, "cannot make the tool's input channel: %s", strerror(errno));
  if (j->t->tool_input == INPUT_pipe) { /* pipe2 gives [read, write]; keep the write end at [0] */
    int r = fds[0];
    fds[0] = fds[1];
    fds[1] = r;
  }
  return GPUBLOB_OK;
}

/* Starts the tool.  A file tool starts once its input file is written; a stdin or
** pipe tool starts before the backend runs and waits for its input. */
static int tool_start(job *j) {
  toolrun *r = &j->run;
  int in[2] = {-1, -1}, out[2];
  int file = j->t->tool_input == INPUT_file;
  if (make_workdir(j, &r->w)) return j->g->code;
  r->made = 1;
  if (file && write_file(r->w.in, j->out.data, j->out.size))
    return set_error(j->g, GPUBLOB_IO, "cannot write %s: %s", r->w.in, strerror(errno));
  r->argv = build_argv(j, j->tool, &r->w, &r->store);
  if (!r->argv) return set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  if (!file && open_channel(j, in)) return j->g->code;
  if (pipe2(out, O_CLOEXEC)) {
    if (!file) close(in[0]), close(in[1]);
    return set_error(j->g, GPUBLOB_TOOL, "pipe: %s", strerror(errno));
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (j->t->tool_input == INPUT_stdin) posix_spawn_file_actions_adddup2(&fa, in[1], 0);
  else posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  if (j->t->tool_input == INPUT_pipe) posix_spawn_file_actions_adddup2(&fa, in[1], 3);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_adddup2(&fa, out[1], 2);
  int rc = posix_spawn(&r->pid, r->argv[0], &fa, NULL, r->argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(out[1]);
  if (!file) close(in[1]);
  r->in_fd = file ? -1 : in[0];
  r->out_fd = out[0];
  if (rc) {
    r->pid = 0;
    return set_error(j->g, GPUBLOB_TOOL, "cannot run %s: %s", r->argv[0], strerror(rc));
  }
  return GPUBLOB_OK;
}

/* Writes all of data; a reader that quit early shows in the tool's status, so
** SIGPIPE is blocked in this thread and consumed rather than raised. */
static void write_quietly(int fd, const unsigned char *p, size_t n) {
  sigset_t pipe_set, old;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
  int broke = 0;
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) {
      broke = errno == EPIPE;
      break;
    }
    p += w;
    n -= (size_t)w;
  }
  if (broke) sigtimedwait(&pipe_set, NULL, &(struct timespec){0, 0});
  pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Hands the backend's output to a tool that is waiting for it. */
static void tool_feed(job *j) {
  toolrun *r = &j->run;
  if (r->in_fd < 0) return; /* a file tool got its input before it started */
  write_quietly(r->in_fd, j->out.data, j->out.size);
  close(r->in_fd);
  r->in_fd = -1;
}

static int tool_finish(job *j) {
  toolrun *r = &j->run;
  int status = 0;
  pid_t w;
  read_all(r->out_fd, &r->output);
  while ((w = waitpid(r->pid, &status, 0)) < 0 && errno == EINTR) {}
  r->pid = 0;
  if (w < 0)
    return set_error(j->g, GPUBLOB_TOOL,
                     "lost the exit status of %s (%s): does the program reap child processes?",
                     r->argv[0], strerror(errno));
  if (status) return tool_failed(j, r->argv[0], status, &r->output);
  return read_tool_output(j, r->w.out);
}

/* Stops a tool still running (after an error) and removes its directory. */
static void tool_end(job *j) {
  toolrun *r = &j->run;
  if (r->in_fd >= 0) close(r->in_fd);
  if (r->pid > 0 && waitpid(r->pid, NULL, WNOHANG) == 0) {
    kill(r->pid, SIGKILL);
    while (waitpid(r->pid, NULL, 0) < 0 && errno == EINTR) {}
  }
  if (r->out_fd >= 0) close(r->out_fd);
  if (r->made) remove_tree(r->w.dir);
  free(r->argv);
  sb_free(&r->store);
  sb_free(&r->output);
  memset(r, 0, sizeof *r);
  r->in_fd = r->out_fd = -1;
}

static int tool_early(const job *j) {
  return j->format == GPUBLOB_FORMAT_BIN && j->t->tool_kind == TOOL_exec &&
         j->t->tool_input != INPUT_file;
}

static int run_blob_tool(job *j) {
  switch (j->t->tool_kind) {
  case TOOL_exec: {
    int rc = j->run.pid ? GPUBLOB_OK : tool_start(j);
    if (rc) return rc;
    tool_feed(j);
    return tool_finish(j);
  }
  case TOOL_none: j->out.suffix = j->t->suffix_bin; return GPUBLOB_OK;
  }
  return GPUBLOB_OK;
}

/* ---- the pipeline, start to end ---- */
/* What gives the job its LLVM module: the IR parser, or MLIR's translation. */
typedef int (*module_loader)(job *j, const void *arg);

typedef struct ir_source {
  const unsigned char *data;
  size_t size;
} ir_source;

static int load_ir(job *j, const void *arg) {
  const ir_source *src = arg;
  return parse_module(j, src->data, src->size);
}

static int run_pipeline(job *j, module_loader load, const void *arg) {
  int rc = load(j, arg);
  if (!rc) rc = verify_module(j);
  if (!rc) rc = check_intrinsics(j);
  if (!rc && tool_early(j)) rc = tool_start(j);
  if (!rc) rc = make_target_machine(j);
  if (!rc) add_module_flags(j);
  if (!rc) rc = link_device_libs(j);
  if (!rc) rc = optimise(j);
  if (rc) return rc;
  if (j->format == GPUBLOB_FORMAT_LLVM) return emit_bitcode(j);
  if (j->format == GPUBLOB_FORMAT_ASM) return emit(j, 1);
  rc = emit(j, j->t->emit == EMIT_asm);
  return rc ? rc : run_blob_tool(j);
}

/* A missing blob tool fails the call before any compile work is spent. */
static int resolve_tool(job *j) {
  if (j->format != GPUBLOB_FORMAT_BIN || j->t->tool_kind != TOOL_exec) return GPUBLOB_OK;
  return find_tool(j, j->tool, sizeof j->tool);
}

static int compile_with(gpublob *g, const gpublob_options *opts, const char *name,
                        module_loader load, const void *arg, gpublob_blob *out) {
  job j;
  job_begin(&j, g, opts, name);
  int rc = resolve_options(&j);
  if (!rc) rc = resolve_tool(&j);
  if (!rc) rc = run_pipeline(&j, load, arg);
  if (!rc) {
    *out = j.out;
    memset(&j.out, 0, sizeof j.out);
  }
  job_end(&j);
  return rc;
}

static int compile(gpublob *g, const gpublob_options *opts, const unsigned char *data,
                   size_t size, const char *name, gpublob_blob *out) {
  ir_source src = {data, size};
  return compile_with(g, opts, name, load_ir, &src, out);
}

/* ---- MLIR: one-time registration, a context per call, diagnostics captured ---- */
#if GPUBLOB_MLIR
static pthread_once_t mlir_once = PTHREAD_ONCE_INIT, passes_once = PTHREAD_ONCE_INIT;
static MlirDialectRegistry mlir_registry;

/* Every dialect and its extensions (convert-gpu-to-nvvm lowers arith, memref and
** the like through interfaces the extensions add). */
static void mlir_init(void) {
  mlir_registry = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(mlir_registry);
}

/* Every pass, for pipeline strings: 1.5 ms, spent only when something is lowered. */
static void passes_init(void) { mlirRegisterAllPasses(); }

typedef struct span {
  const char *s;
  size_t n;
} span;

static span sref(MlirStringRef r) { return (span){r.data, r.length}; }

static MlirStringRef cref(const char *s) { return mlirStringRefCreateFromCString(s); }

static void append_ref(MlirStringRef r, void *b) { sb_addn(b, r.data, r.length); }

/* file:line:col when the location has one, else MLIR's own form of it. */
static void add_location(strbuf *b, MlirLocation loc) {
  if (mlirLocationIsAFileLineColRange(loc)) {
    span f = sref(mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(loc)));
    sb_addf(b, "%.*s:%d:%d", (int)f.n, f.s, mlirLocationFileLineColRangeGetStartLine(loc),
            mlirLocationFileLineColRangeGetStartColumn(loc));
  } else {
    mlirLocationPrint(loc, append_ref, b);
  }
}

/* MLIR's "see current operation" notes print a whole function: they are left out. */
static MlirLogicalResult on_mlir_diagnostic(MlirDiagnostic d, void *arg) {
  static const char *const sev[] = {"error", "warning", "note", "remark"};
  strbuf *b = arg, text = {0};
  MlirDiagnosticSeverity s = mlirDiagnosticGetSeverity(d);
  mlirDiagnosticPrint(d, append_ref, &text);
  int skip = s == MlirDiagnosticRemark || !strncmp(sb_str(&text), "see current operation", 21);
  if (!skip) {
    if (b->len) sb_add(b, "\n");
    add_location(b, mlirDiagnosticGetLocation(d));
    sb_addf(b, ": %s: %s", sev[s], sb_str(&text));
  }
  sb_free(&text);
  if (skip) return mlirLogicalResultSuccess();
  for (intptr_t i = 0; i < mlirDiagnosticGetNumNotes(d); i++)
    on_mlir_diagnostic(mlirDiagnosticGetNote(d, i), arg);
  return mlirLogicalResultSuccess();
}

/* ---- MLIR: the gpu.modules of a module, and the targets each is compiled for ---- */
typedef struct mitem { /* one gpu.module for one target */
  MlirOperation gm;    /* the gpu.module */
  MlirAttribute attr;  /* its #gpu.object target; null for legacy */
  const target_desc *t;
  char target[64], chip[64];
  char tool[4096];     /* the blob tool check_item found, so the compile does not search again */
  strbuf features, pipeline, name;
  int opt;             /* enum gpublob_opt */
  MlirOperation lowered; /* a lowered copy (in a builtin.module), or null */
  int owns_lowered;
  gpublob_blob blob;
} mitem;

typedef struct mjob {
  gpublob *g;
  gpublob_options o; /* normalised */
  MlirContext ctx;
  const char *name;
  strbuf diag;
  MlirOperation *gms;
  size_t ngms;
  mitem *items;
  size_t nitems;
  int oom;
} mjob;

static int op_is(MlirOperation op, const char *name) {
  span n = sref(mlirIdentifierStr(mlirOperationGetName(op)));
  return n.n == strlen(name) && !memcmp(n.s, name, n.n);
}

static MlirWalkResult collect_gpu_module(MlirOperation op, void *arg) {
  mjob *m = arg;
  if (!op_is(op, "gpu.module")) return MlirWalkResultAdvance;
  MlirOperation *grown = realloc(m->gms, (m->ngms + 1) * sizeof *grown);
  if (!grown) {
    m->oom = 1;
    return MlirWalkResultInterrupt;
  }
  m->gms = grown;
  m->gms[m->ngms++] = op;
  return MlirWalkResultSkip;
}

static int find_gpu_modules(mjob *m, MlirOperation top) {
  mlirOperationWalk(top, collect_gpu_module, m, MlirWalkPreOrder);
  if (m->oom) return set_error(m->g, GPUBLOB_NOMEM, "out of memory");
  if (!m->ngms) return set_error(m->g, GPUBLOB_NOGPU, "%s: no gpu.module in the module", m->name);
  return GPUBLOB_OK;
}

static void gm_name(MlirOperation gm, strbuf *b) {
  MlirAttribute a = mlirOperationGetAttributeByName(gm, cref("sym_name"));
  span n = mlirAttributeIsAString(a) ? sref(mlirStringAttrGetValue(a)) : (span){"?", 1};
  sb_addf(b, "gpu.module @%.*s", (int)n.n, n.s);
}

static const target_desc *target_of_attr(const char *text, size_t n) {
  for (int i = 0; i < NTARGETS; i++) {
    size_t k = strlen(targets[i].mlir_target);
    if (k && n >= k + 1 && text[0] == '#' && !strncmp(text + 1, targets[i].mlir_target, k) &&
        (n == k + 1 || text[k + 1] == '<'))
      return &targets[i];
  }
  return NULL;
}

/* The value of KEY in "#ns.name<KEY = VALUE, ...>": a string (unquoted, escapes
** kept) or a bare word; brackets and strings nest.  0 when absent. */
static int attr_param(const char *text, const char *key, strbuf *out) {
  const char *p = strchr(text, '<');
  size_t k = strlen(key);
  int depth = 0;
  for (p = p ? p + 1 : text + strlen(text); *p; p++) {
    if (*p == '"') {
      for (p++; *p && *p != '"'; p++) p += *p == '\\' && p[1];
      if (!*p) break;
    } else if (strchr("<[{(", *p)) {
      depth++;
    } else if (strchr(">]})", *p)) {
      depth--;
    } else if (!depth && !strncmp(p, key, k) && (p[-1] == '<' || p[-1] == ' ') &&
               (p[k] == ' ' || p[k] == '=')) {
      const char *v = p + k;
      while (*v == ' ' || *v == '=') v++;
      const char *e = v;
      if (*v == '"') {
        for (e = ++v; *e && *e != '"'; e++) e += *e == '\\' && e[1];
      } else {
        while (*e && !strchr(",> ", *e)) e++;
      }
      sb_addn(out, v, (size_t)(e - v));
      return 1;
    }
  }
  return 0;
}

static int item_error(mjob *m, mitem *it, int code, const char *fmt, const char *detail) {
  set_error(m->g, code, fmt, sb_str(&it->name), detail);
  return code;
}

/* Target, chip, features and level from an attribute such as #nvvm.target<...>. */
static int item_from_attr(mjob *m, mitem *it, MlirAttribute a) {
  strbuf text = {0}, v = {0};
  mlirAttributePrint(a, append_ref, &text);
  int rc = GPUBLOB_OK;
  it->t = target_of_attr(sb_str(&text), text.len);
  if (!it->t) {
    strbuf known = {0};
    for (int i = 0; i < NTARGETS; i++)
      if (*targets[i].mlir_target) sb_addf(&known, " #%s", targets[i].mlir_target);
    set_error(m->g, GPUBLOB_TARGET, "%s: unknown target attribute %s (the spec knows:%s)",
              sb_str(&it->name), sb_str(&text), sb_str(&known));
    sb_free(&known);
    rc = GPUBLOB_TARGET;
  }
  if (!rc && attr_param(sb_str(&text), "link", &v))
    rc = item_error(m, it, GPUBLOB_OPTION, "%s: libraries to link (link = %s) are not supported",
                    sb_str(&v));
  sb_reset(&v);
  if (!rc && attr_param(sb_str(&text), "triple", &v) && strcmp(sb_str(&v), it->t->triple))
    rc = item_error(m, it, GPUBLOB_TARGET, "%s: triple %s differs from the spec's", sb_str(&v));
  if (!rc) {
    snprintf(it->target, sizeof it->target, "%s", it->t->name);
    sb_reset(&v);
    const char *chip = attr_param(sb_str(&text), "chip", &v) ? sb_str(&v)
                       : *it->t->mlir_chip                    ? it->t->mlir_chip
                                                              : it->t->chip;
    snprintf(it->chip, sizeof it->chip, "%s", chip);
    sb_reset(&v);
    if (attr_param(sb_str(&text), "features", &v)) sb_add(&it->features, sb_str(&v));
    sb_reset(&v);
    /* MLIR's default level is 2; -O (the options) wins over the attribute. */
    int level = attr_param(sb_str(&text), "O", &v) ? atoi(sb_str(&v)) : 2;
    it->opt = m->o.opt ? m->o.opt : level >= 0 && level <= 3 ? GPUBLOB_OPT_O0 + level : -1;
  }
  it->attr = a;
  sb_free(&text);
  sb_free(&v);
  return rc;
}

/* Target, chip and features from the options' list (or the single target). */
static int item_from_choice(mjob *m, mitem *it, const gpublob_target_choice *c) {
  const char *spec = c->target ? c->target : targets[0].name, *colon = strchr(spec, ':');
  size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
  it->t = target_named(spec, n);
  snprintf(it->target, sizeof it->target, "%.*s", (int)n, spec);
  const char *chip = c->chip ? c->chip : colon ? colon + 1 : it->t ? it->t->chip : "";
  snprintf(it->chip, sizeof it->chip, "%s", chip);
  if (c->features) sb_add(&it->features, c->features);
  it->opt = m->o.opt;
  return GPUBLOB_OK;
}

/* The options a core job gets for this item. */
static gpublob_options item_options(const mjob *m, const mitem *it) {
  gpublob_options o = m->o;
  o.version = GPUBLOB_OPTIONS_VERSION;
  o.target = it->target;
  o.chip = it->chip;
  o.features = it->features.len ? sb_str(&it->features) : NULL;
  o.opt = it->opt;
  o.targets = NULL;
  o.ntargets = 0;
  if (*it->tool) o.tool = it->tool;
  return o;
}

/* A core error names the gpu.module and target it came from. */
static void name_error(mjob *m, const mitem *it) {
  const char *msg = gpublob_error_message(m->g);
  if (!strncmp(msg, sb_str(&it->name), it->name.len)) return;
  strbuf text = {0};
  sb_addf(&text, "%s (%s %s): %s", sb_str(&it->name), it->t->name, it->chip, msg);
  set_error(m->g, m->g->code, "%s", sb_str(&text));
  sb_free(&text);
}

/* The options are checked, the tool found and the pipeline expanded before any
** lowering or compile work is spent on any item. */
static int check_item(mjob *m, mitem *it) {
  gpublob_options o = item_options(m, it);
  job j;
  job_begin(&j, m->g, &o, sb_str(&it->name));
  int rc = it->opt < 0 ? set_error(m->g, GPUBLOB_OPTION, "unknown optimisation level in the attribute")
                       : resolve_options(&j);
  if (!rc) rc = resolve_tool(&j);
  if (!rc) memcpy(it->tool, j.tool, sizeof it->tool);
  const char *pipe = m->o.pipeline ? m->o.pipeline : j.t ? j.t->mlir_lower : "";
  if (!rc && strcmp(pipe, "none")) expand(&j, pipe, strlen(pipe), NULL, &it->pipeline);
  job_end(&j);
  if (rc && it->t) name_error(m, it);
  return rc;
}

static int add_item(mjob *m, MlirOperation gm, mitem **out) {
  mitem *grown = realloc(m->items, (m->nitems + 1) * sizeof *grown);
  if (!grown) return set_error(m->g, GPUBLOB_NOMEM, "out of memory");
  m->items = grown;
  mitem *it = &m->items[m->nitems++];
  memset(it, 0, sizeof *it);
  it->gm = gm;
  sb_addf(&it->name, "%s: ", m->name);
  gm_name(gm, &it->name);
  *out = it;
  return GPUBLOB_OK;
}

static int plan_module(mjob *m, MlirOperation gm) {
  const gpublob_target_choice single = {m->o.target, m->o.chip, m->o.features};
  const gpublob_target_choice *list = m->o.ntargets ? m->o.targets : &single;
  size_t n = m->o.ntargets ? m->o.ntargets : 1;
  MlirAttribute attrs = mlirOperationGetAttributeByName(gm, cref("targets"));
  int own = !m->o.ntargets && !m->o.target && !mlirAttributeIsNull(attrs) &&
            mlirAttributeIsAArray(attrs) && mlirArrayAttrGetNumElements(attrs) > 0;
  if (own) n = (size_t)mlirArrayAttrGetNumElements(attrs);
  for (size_t i = 0; i < n; i++) {
    mitem *it = NULL;
    if (add_item(m, gm, &it)) return m->g->code;
    int rc = own ? item_from_attr(m, it, mlirArrayAttrGetElement(attrs, (intptr_t)i))
                 : item_from_choice(m, it, &list[i]);
    if (!rc) rc = check_item(m, it);
    if (rc) return rc;
  }
  return GPUBLOB_OK;
}

/* ---- MLIR: how the blobs will be attached, checked before any work ---- */
static int attach_mode(const mjob *m) {
  return m->o.attach ? m->o.attach : GPUBLOB_ATTACH_BINARY;
}

/* A target chosen by the options gets an attribute written from the spec. */
static int make_target_attr(mjob *m, mitem *it) {
  if (!mlirAttributeIsNull(it->attr)) return GPUBLOB_OK;
  if (!*it->t->mlir_target)
    return item_error(m, it, GPUBLOB_OPTION,
                      "%s: target %s has no MLIR target attribute in the spec (mlir_target), "
                      "so it has no #gpu.object; use legacy attach",
                      it->t->name);
  strbuf text = {0};
  sb_addf(&text, "#%s<O = %d, chip = \"%s\"", it->t->mlir_target,
          (it->opt ? it->opt : GPUBLOB_OPT_O3) - GPUBLOB_OPT_O0, it->chip);
  if (it->features.len) sb_addf(&text, ", features = \"%s\"", sb_str(&it->features));
  sb_add(&text, ">");
  it->attr = mlirAttributeParseGet(m->ctx, mlirStringRefCreate(text.s, text.len));
  int rc = mlirAttributeIsNull(it->attr)
               ? item_error(m, it, GPUBLOB_LOWER, "%s: MLIR does not accept %s", sb_str(&text))
               : GPUBLOB_OK;
  sb_free(&text);
  return rc;
}

/* Legacy attach keeps one blob per attribute name on each gpu.module. */
static int check_legacy_names(mjob *m) {
  for (size_t i = 0; i < m->nitems; i++)
    for (size_t k = 0; k < i; k++)
      if (mlirOperationEqual(m->items[i].gm, m->items[k].gm) &&
          !strcmp(m->items[i].t->attribute, m->items[k].t->attribute))
        return item_error(m, &m->items[i], GPUBLOB_OPTION,
                          "%s: two targets would share the attribute %s; use binary attach",
                          m->items[i].t->attribute);
  return GPUBLOB_OK;
}

static int check_attach(mjob *m) {
  int mode = attach_mode(m);
  if (mode != GPUBLOB_ATTACH_BINARY && mode != GPUBLOB_ATTACH_LEGACY)
    return set_error(m->g, GPUBLOB_OPTION, "unknown attach mode %d", mode);
  if (mode == GPUBLOB_ATTACH_LEGACY) return check_legacy_names(m);
  for (size_t i = 0; i < m->nitems; i++) {
    if (mlirBlockIsNull(mlirOperationGetBlock(m->items[i].gm)))
      return item_error(m, &m->items[i], GPUBLOB_OPTION,
                        "%s: has no parent block to hold its gpu.binary; use legacy attach%s", "");
    if (make_target_attr(m, &m->items[i])) return m->g->code;
  }
  return GPUBLOB_OK;
}

/* ---- MLIR: lowering a copy of a gpu.module that is not in the llvm dialect yet ---- */
static MlirWalkResult find_unlowered(MlirOperation op, void *arg) {
  const char **dialects = arg;
  span n = sref(mlirIdentifierStr(mlirOperationGetName(op)));
  const char *dot = memchr(n.s, '.', n.n);
  size_t dn = dot ? (size_t)(dot - n.s) : n.n;
  char name[64];
  snprintf(name, sizeof name, "%.*s", (int)dn, n.s);
  if (op_is(op, "gpu.module") || list_has(dialects[0], name)) return MlirWalkResultAdvance;
  dialects[1] = "";
  return MlirWalkResultInterrupt;
}

static int is_lowered(const mitem *it) {
  const char *state[2] = {it->t->mlir_dialects, NULL};
  mlirOperationWalk(it->gm, find_unlowered, state, MlirWalkPreOrder);
  return state[1] == NULL;
}

/* Another item of the same gpu.module and pipeline may have lowered it already. */
static int reuse_lowered(mjob *m, mitem *it) {
  for (mitem *p = m->items; p < it; p++)
    if (p->lowered.ptr && mlirOperationEqual(p->gm, it->gm) &&
        !strcmp(sb_str(&p->pipeline), sb_str(&it->pipeline))) {
      it->lowered = p->lowered;
      return 1;
    }
  return 0;
}

static void pipeline_error(MlirStringRef r, void *arg) { sb_addn(arg, r.data, r.length); }

static int add_lowering(mjob *m, mitem *it, MlirPassManager pm) {
  pthread_once(&passes_once, passes_init);
  const char *p = sb_str(&it->pipeline);
  strbuf err = {0};
  MlirLogicalResult r;
  if (!strncmp(p, "builtin.module(", 15))
    r = mlirParsePassPipeline(mlirPassManagerGetAsOpPassManager(pm), cref(p), pipeline_error, &err);
  else
    r = mlirOpPassManagerAddPipeline(mlirPassManagerGetNestedUnder(pm, cref("gpu.module")), cref(p),
                                     pipeline_error, &err);
  int rc = mlirLogicalResultIsFailure(r)
               ? item_error(m, it, GPUBLOB_OPTION, "%s: invalid lowering pipeline: %s",
                            err.len ? sb_str(&err) : p)
               : GPUBLOB_OK;
  sb_free(&err);
  return rc;
}

static int run_lowering(mjob *m, mitem *it, MlirModule wrap) {
  MlirPassManager pm = mlirPassManagerCreateOnOperation(m->ctx, cref("builtin.module"));
  int rc = add_lowering(m, it, pm);
  sb_reset(&m->diag);
  if (!rc && mlirLogicalResultIsFailure(mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(wrap)))) {
    item_error(m, it, GPUBLOB_LOWER, "%s: the lowering pipeline failed (%s)", sb_str(&it->pipeline));
    add_detail(m->g, sb_str(&m->diag));
    rc = GPUBLOB_LOWER;
  }
  mlirPassManagerDestroy(pm);
  return rc;
}

/* Every item works on a copy, alone in a builtin.module (the lowering passes look
** at the parent, and translation may edit what it translates), lowered if need be. */
static int lower_item(mjob *m, mitem *it) {
  if (reuse_lowered(m, it)) return GPUBLOB_OK;
  MlirModule wrap = mlirModuleCreateEmpty(mlirOperationGetLocation(it->gm));
  mlirBlockAppendOwnedOperation(mlirModuleGetBody(wrap), mlirOperationClone(it->gm));
  int rc = it->pipeline.len && !is_lowered(it) ? run_lowering(m, it, wrap) : GPUBLOB_OK;
  if (rc) {
    mlirModuleDestroy(wrap);
    return rc;
  }
  it->lowered = mlirModuleGetOperation(wrap);
  it->owns_lowered = 1;
  return GPUBLOB_OK;
}

/* The gpu.module to translate: the one in the item's copy (a whole-module
** pipeline may have moved or removed it). */
static MlirWalkResult first_gpu_module(MlirOperation op, void *arg) {
  if (!op_is(op, "gpu.module")) return MlirWalkResultAdvance;
  *(MlirOperation *)arg = op;
  return MlirWalkResultInterrupt;
}

static int item_source(mjob *m, const mitem *it, MlirOperation *out) {
  *out = (MlirOperation){NULL};
  mlirOperationWalk(it->lowered, first_gpu_module, out, MlirWalkPreOrder);
  if (out->ptr) return GPUBLOB_OK;
  return item_error(m, (mitem *)it, GPUBLOB_LOWER, "%s: no gpu.module left after the pipeline %s",
                    sb_str(&it->pipeline));
}

/* ---- MLIR: translation to LLVM IR, then the core pipeline ---- */
typedef struct mlir_source {
  mjob *m;
  MlirOperation op;
} mlir_source;

static int load_translated(job *j, const void *arg) {
  const mlir_source *src = arg;
  j->ctx = LLVMContextCreate();
  LLVMContextSetDiagnosticHandler(j->ctx, on_diagnostic, j);
  sb_reset(&src->m->diag);
  j->mod = mlirTranslateModuleToLLVMIR(src->op, j->ctx);
  if (j->mod) return GPUBLOB_OK;
  set_error(j->g, GPUBLOB_LOWER, "%s: cannot translate to LLVM IR", j->name);
  add_detail(j->g, sb_str(&src->m->diag));
  return GPUBLOB_LOWER;
}

static int compile_item(mjob *m, mitem *it) {
  int rc = lower_item(m, it);
  if (rc) return rc;
  gpublob_options o = item_options(m, it);
  o.flags &= ~(unsigned)GPUBLOB_FLAG_MLIR_BYTECODE;
  mlir_source src = {m, {NULL}};
  if (item_source(m, it, &src.op)) return m->g->code;
  rc = compile_with(m->g, &o, sb_str(&it->name), load_translated, &src, &it->blob);
  if (rc) name_error(m, it);
  return rc;
}

/* ---- MLIR: attaching the blobs, once every one of them is made ---- */
static uint32_t object_format(int format) {
  return format == GPUBLOB_FORMAT_LLVM ? 1 : format == GPUBLOB_FORMAT_ASM ? 2 : 3;
}

static MlirStringRef blob_ref(const mitem *it) {
  return mlirStringRefCreate((const char *)it->blob.data, it->blob.size);
}

static void attach_legacy(mjob *m) {
  for (size_t i = 0; i < m->nitems; i++) {
    mitem *it = &m->items[i];
    mlirOperationSetAttributeByName(it->gm, cref(it->t->attribute),
                                    mlirStringAttrGet(m->ctx, blob_ref(it)));
  }
}

/* gpu.binary @name <handler> [objects], where it replaces the gpu.module. */
static void replace_by_binary(mjob *m, MlirOperation gm, MlirAttribute *objects, intptr_t n) {
  MlirAttribute handler = mlirOperationGetAttributeByName(gm, cref("offloadingHandler"));
  if (mlirAttributeIsNull(handler)) handler = mlirAttributeParseGet(m->ctx, cref("#gpu.select_object<0>"));
  MlirNamedAttribute attrs[3] = {
      mlirNamedAttributeGet(mlirIdentifierGet(m->ctx, cref("sym_name")),
                            mlirOperationGetAttributeByName(gm, cref("sym_name"))),
      mlirNamedAttributeGet(mlirIdentifierGet(m->ctx, cref("offloadingHandler")), handler),
      mlirNamedAttributeGet(mlirIdentifierGet(m->ctx, cref("objects")),
                            mlirArrayAttrGet(m->ctx, n, objects))};
  MlirOperationState st = mlirOperationStateGet(cref("gpu.binary"), mlirOperationGetLocation(gm));
  mlirOperationStateAddAttributes(&st, 3, attrs);
  MlirOperation bin = mlirOperationCreate(&st);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(gm), gm, bin);
  mlirOperationDestroy(gm);
}

static int attach_binary(mjob *m) {
  MlirAttribute *objects = malloc((m->nitems ? m->nitems : 1) * sizeof *objects);
  if (!objects) return set_error(m->g, GPUBLOB_NOMEM, "out of memory");
  int format = m->o.format ? m->o.format : GPUBLOB_FORMAT_BIN;
  for (size_t g = 0; g < m->ngms; g++) {
    intptr_t n = 0;
    for (size_t i = 0; i < m->nitems; i++)
      if (mlirOperationEqual(m->items[i].gm, m->gms[g]))
        objects[n++] = mlirGPUObjectAttrGet(m->ctx, m->items[i].attr, object_format(format),
                                            blob_ref(&m->items[i]), (MlirAttribute){NULL});
    replace_by_binary(m, m->gms[g], objects, n);
  }
  free(objects);
  return GPUBLOB_OK;
}

/* ---- MLIR: the whole of one module, all gpu.modules or none ---- */
static void mjob_end(mjob *m) {
  for (size_t i = 0; i < m->nitems; i++) {
    mitem *it = &m->items[i];
    if (it->owns_lowered) mlirOperationDestroy(it->lowered);
    sb_free(&it->features);
    sb_free(&it->pipeline);
    sb_free(&it->name);
    gpublob_blob_free(&it->blob);
  }
  free(m->items);
  free(m->gms);
  sb_free(&m->diag);
}

static int serialize(mjob *m, MlirOperation top) {
  int rc = find_gpu_modules(m, top);
  for (size_t i = 0; !rc && i < m->ngms; i++) rc = plan_module(m, m->gms[i]);
  if (!rc) rc = check_attach(m);
  for (size_t i = 0; !rc && i < m->nitems; i++) rc = compile_item(m, &m->items[i]);
  if (rc) return rc;
  if (attach_mode(m) == GPUBLOB_ATTACH_LEGACY) attach_legacy(m);
  else rc = attach_binary(m);
  return rc;
}

/* On any context: translations registered (the pass does that in its initialize,
** before MLIR may run passes on threads), diagnostics captured. */
static int serialize_in(gpublob *g, const gpublob_options *opts, MlirOperation top,
                        const char *name, int register_translations) {
  mjob m = {.g = g, .ctx = mlirOperationGetContext(top), .name = name};
  options_normalise(opts, &m.o);
  if (m.o.ntargets && !m.o.targets)
    return set_error(g, GPUBLOB_MISUSE, "ntargets is %zu but targets is NULL", m.o.ntargets);
  if (register_translations) mlirRegisterAllLLVMTranslations(m.ctx);
  MlirDiagnosticHandlerID h = mlirContextAttachDiagnosticHandler(m.ctx, on_mlir_diagnostic, &m.diag, NULL);
  int rc = m.o.version > GPUBLOB_OPTIONS_VERSION
               ? set_error(g, GPUBLOB_OPTION, "options version %u is newer than this gpublob (%d)",
                           m.o.version, GPUBLOB_OPTIONS_VERSION)
               : serialize(&m, top);
  mlirContextDetachDiagnosticHandler(m.ctx, h);
  mjob_end(&m);
  return rc;
}

/* ---- MLIR: text or bytecode in, the whole module out ---- */
static int looks_like_mlir_bytecode(const void *p, size_t n) {
  return n >= 4 && !memcmp(p, "ML\xefR", 4);
}

static MlirOperation parse_mlir(gpublob *g, MlirContext ctx, strbuf *diag, const void *data,
                                size_t size, const char *name) {
  MlirOperation top = mlirOperationCreateParse(ctx, mlirStringRefCreate(data, size), cref(name));
  if (mlirOperationIsNull(top)) {
    int bc = looks_like_mlir_bytecode(data, size);
    set_error(g, bc ? GPUBLOB_BITCODE : GPUBLOB_PARSE, "%s: cannot parse or verify the MLIR %s", name,
              bc ? "bytecode" : "text");
    add_detail(g, sb_str(diag));
  }
  return top;
}

static void append_bytes(MlirStringRef r, void *b) { sb_addn(b, r.data, r.length); }

static int print_mlir(gpublob *g, MlirOperation top, unsigned flags, gpublob_blob *out) {
  strbuf text = {0};
  int bc = (flags & GPUBLOB_FLAG_MLIR_BYTECODE) != 0;
  if (bc) {
    mlirOperationWriteBytecode(top, append_bytes, &text);
  } else {
    mlirOperationPrint(top, append_bytes, &text);
    sb_add(&text, "\n");
  }
  if (text.oom) {
    sb_free(&text);
    return set_error(g, GPUBLOB_NOMEM, "out of memory");
  }
  out->data = (unsigned char *)text.s;
  out->size = text.len;
  out->suffix = bc ? ".mlirbc" : ".mlir";
  return GPUBLOB_OK;
}

static int mlir_compile(gpublob *g, const gpublob_options *opts, const void *data, size_t size,
                        const char *name, gpublob_blob *out) {
  pthread_once(&mlir_once, mlir_init);
  MlirContext ctx = mlirContextCreateWithRegistry(mlir_registry, false);
  strbuf diag = {0};
  MlirDiagnosticHandlerID h = mlirContextAttachDiagnosticHandler(ctx, on_mlir_diagnostic, &diag, NULL);
  MlirOperation top = parse_mlir(g, ctx, &diag, data, size, name);
  mlirContextDetachDiagnosticHandler(ctx, h);
  if (!mlirOperationIsNull(top) && !op_is(top, "builtin.module")) { /* a bare gpu.module */
    MlirModule wrap = mlirModuleCreateEmpty(mlirOperationGetLocation(top));
    mlirBlockAppendOwnedOperation(mlirModuleGetBody(wrap), top);
    top = mlirModuleGetOperation(wrap);
  }
  sb_free(&diag);
  int rc = mlirOperationIsNull(top) ? g->code : serialize_in(g, opts, top, name, 1);
  gpublob_options o;
  options_normalise(opts, &o);
  if (!rc) rc = print_mlir(g, top, o.flags, out);
  if (!mlirOperationIsNull(top)) mlirOperationDestroy(top);
  mlirContextDestroy(ctx);
  return rc;
}

/* ---- MLIR: the external pass ---- */
typedef struct pass_state {
  gpublob_options o; /* strings and the target list live in store */
  char *store;
} pass_state;

static size_t strsize(const char *s) { return s ? strlen(s) + 1 : 0; }

static const char *copy_into(char **p, const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  memcpy(*p, s, n);
  *p += n;
  return *p - n;
}

/* One allocation holds the options' strings and target list. */
static pass_state *pass_state_new(const gpublob_options *opts) {
  pass_state *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  options_normalise(opts, &s->o);
  gpublob_options *o = &s->o;
  if ((o->ntargets && !o->targets) || o->ntargets > 4096) {
    free(s);
    return NULL;
  }
  size_t n = o->ntargets * sizeof(gpublob_target_choice) + strsize(o->target) + strsize(o->chip) +
             strsize(o->features) + strsize(o->tool) + strsize(o->tool_dirs) +
             strsize(o->lib_dirs) + strsize(o->pipeline);
  for (size_t i = 0; o->targets && i < o->ntargets; i++)
    n += strsize(o->targets[i].target) + strsize(o->targets[i].chip) + strsize(o->targets[i].features);
  char *p = s->store = malloc(n ? n : 1);
  if (!p) {
    free(s);
    return NULL;
  }
  gpublob_target_choice *list = (gpublob_target_choice *)p;
  p += o->ntargets * sizeof *list;
  for (size_t i = 0; o->targets && i < o->ntargets; i++)
    list[i] = (gpublob_target_choice){copy_into(&p, o->targets[i].target),
                                      copy_into(&p, o->targets[i].chip),
                                      copy_into(&p, o->targets[i].features)};
  o->targets = o->ntargets ? list : NULL;
  o->target = copy_into(&p, o->target);
  o->chip = copy_into(&p, o->chip);
  o->features = copy_into(&p, o->features);
  o->tool = copy_into(&p, o->tool);
  o->tool_dirs = copy_into(&p, o->tool_dirs);
  o->lib_dirs = copy_into(&p, o->lib_dirs);
  o->pipeline = copy_into(&p, o->pipeline);
  return s;
}

static const char *location_file(MlirOperation op, char *buf, size_t size) {
  MlirLocation loc = mlirOperationGetLocation(op);
  if (!mlirLocationIsAFileLineColRange(loc)) return "<module>";
  span f = sref(mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(loc)));
  snprintf(buf, size, "%.*s", (int)f.n, f.s);
  return buf;
}

static void pass_construct(void *arg) { (void)arg; }

static void pass_destruct(void *arg) {
  pass_state *s = arg;
  free(s->store);
  free(s);
}

static void *pass_clone(void *arg) { return pass_state_new(&((pass_state *)arg)->o); }

/* The dialects are the pass's dependent dialects (loaded by MLIR before it runs);
** the LLVM IR translations are registered here, once per pass manager run. */
static MlirLogicalResult pass_initialize(MlirContext ctx, void *arg) {
  (void)arg;
  mlirRegisterAllLLVMTranslations(ctx);
  return mlirLogicalResultSuccess();
}

static void pass_run(MlirOperation op, MlirExternalPass pass, void *arg) {
  pass_state *s = arg;
  gpublob *g = NULL;
  int rc = s ? gpublob_open(&g) : GPUBLOB_NOMEM; /* a clone that ran out of memory */
  char name[4096];
  if (!rc) rc = serialize_in(g, &s->o, op, location_file(op, name, sizeof name), 0);
  if (rc) {
    strbuf msg = {0};
    sb_add(&msg, g ? gpublob_error_message(g) : "gpublob: out of memory");
    mlirEmitError(mlirOperationGetLocation(op), msg.oom ? "gpublob: out of memory" : sb_str(&msg));
    sb_free(&msg);
    mlirExternalPassSignalFailure(pass);
  }
  gpublob_close(g);
}

/* The dialects the spec's mlir_dialects name, and those every lowering touches. */
#define GPUBLOB_MLIR_DIALECT(x) MLIR_CAPI_EXPORTED MlirDialectHandle mlirGetDialectHandle__##x##__(void);
#include "gpublob_targets.def"

static MlirTypeID pass_type_id(void) {
  static _Alignas(8) char storage;
  return mlirTypeIDCreate(&storage);
}
#endif /* GPUBLOB_MLIR */

/* ---- the public API ---- */
int gpublob_open(gpublob **out) {
  if (!out) return GPUBLOB_MISUSE;
  *out = calloc(1, sizeof **out);
  if (!*out) return GPUBLOB_NOMEM;
  pthread_once(&llvm_once, llvm_init);
  return GPUBLOB_OK;
}

void gpublob_close(gpublob *g) {
  if (!g) return;
  sb_free(&g->msg);
  free(g);
}

int gpublob_module_compile(gpublob *g, const gpublob_options *opts, const void *ir, size_t size,
                           const char *name, gpublob_blob *out) {
  if (!g) return GPUBLOB_MISUSE;
  if (out) memset(out, 0, sizeof *out);
  if (!out || (!ir && size) || size == (size_t)-1)
    return set_error(g, GPUBLOB_MISUSE, "NULL output or input, or an impossible size");
  unsigned char *copy = malloc(size + 1); /* the IR parser needs a NUL after the text */
  if (!copy) return set_error(g, GPUBLOB_NOMEM, "out of memory (%zu bytes)", size);
  if (size) memcpy(copy, ir, size);
  copy[size] = 0;
  int rc = compile(g, opts, copy, size, name, out);
  free(copy);
  return rc;
}

/* A file (or "-") read whole, NUL-terminated, then compiled from memory by fn. */
typedef int (*buffer_compiler)(gpublob *g, const gpublob_options *opts, const void *data,
                               size_t size, const char *name, gpublob_blob *out);

static int compile_file_with(gpublob *g, const gpublob_options *opts, const char *path,
                             gpublob_blob *out, buffer_compiler fn) {
  if (!g) return GPUBLOB_MISUSE;
  if (out) memset(out, 0, sizeof *out);
  if (!out || !path) return set_error(g, GPUBLOB_MISUSE, "NULL output or path");
  unsigned char *data;
  size_t size;
  if (read_input(g, path, &data, &size)) return g->code;
  int rc = fn(g, opts, data, size, strcmp(path, "-") ? path : "<stdin>", out);
  free(data);
  return rc;
}

static int compile_read(gpublob *g, const gpublob_options *opts, const void *data, size_t size,
                        const char *name, gpublob_blob *out) {
  return compile(g, opts, data, size, name, out);
}

int gpublob_file_compile(gpublob *g, const gpublob_options *opts, const char *path,
                         gpublob_blob *out) {
  return compile_file_with(g, opts, path, out, compile_read);
}

void gpublob_blob_free(gpublob_blob *b) {
  if (!b) return;
  free(b->data);
  memset(b, 0, sizeof *b);
}

int gpublob_error_code(const gpublob *g) { return g ? g->code : GPUBLOB_MISUSE; }

const char *gpublob_error_message(const gpublob *g) {
  if (!g) return error_strings[GPUBLOB_MISUSE];
  if (g->msg.oom) return error_strings[GPUBLOB_NOMEM];
  return g->msg.len ? g->msg.s : error_strings[g->code];
}

const char *gpublob_error_string(int code) {
  int n = (int)(sizeof error_strings / sizeof *error_strings);
  return code >= 0 && code < n && error_strings[code] ? error_strings[code] : "unknown error code";
}

int gpublob_target_count(void) { return NTARGETS; }

int gpublob_target_get(int index, gpublob_target_info *out) {
  if (index < 0 || index >= NTARGETS || !out) return GPUBLOB_MISUSE;
  const target_desc *t = &targets[index];
  *out = (gpublob_target_info){t->name,       t->triple,     t->chip,           t->features,
                               t->attribute,  t->suffix_asm, t->suffix_bin,     t->tool_kind_name,
                               t->chips,      t->mlir_target};
  return GPUBLOB_OK;
}

int gpublob_tool_find(gpublob *g, const gpublob_options *opts, char *buf, size_t size) {
  if (!g || !buf || !size) return GPUBLOB_MISUSE;
  job j;
  job_begin(&j, g, opts, NULL);
  int rc = resolve_target(&j);
  buf[0] = 0;
  if (!rc && j.t->tool_kind == TOOL_exec) rc = find_tool(&j, buf, size);
  job_end(&j);
  return rc;
}

const char *gpublob_version(void) { return GPUBLOB_VERSION_STRING; }

/* ---- the public API: MLIR ---- */
int gpublob_mlir_enabled(void) { return GPUBLOB_MLIR; }

int gpublob_mlir_compile(gpublob *g, const gpublob_options *opts, const void *data, size_t size,
                         const char *name, gpublob_blob *out) {
  if (!g) return GPUBLOB_MISUSE;
  if (out) memset(out, 0, sizeof *out);
  if (!out || (!data && size)) return set_error(g, GPUBLOB_MISUSE, "NULL output or input");
  name = name ? name : "<memory>";
#if GPUBLOB_MLIR
  g->code = GPUBLOB_OK;
  sb_reset(&g->msg);
  return mlir_compile(g, opts, data ? data : "", size, name, out);
#else
  (void)opts;
  return set_error(g, GPUBLOB_NOMLIR,
                   "%s: MLIR input needs a gpublob built with MLIR (configure with libmlir-22-dev)",
                   name);
#endif
}

int gpublob_mlir_file_compile(gpublob *g, const gpublob_options *opts, const char *path,
                              gpublob_blob *out) {
  return compile_file_with(g, opts, path, out, gpublob_mlir_compile);
}

#if GPUBLOB_MLIR
int gpublob_mlir_serialize(gpublob *g, const gpublob_options *opts, MlirOperation module) {
  if (!g) return GPUBLOB_MISUSE;
  if (mlirOperationIsNull(module)) return set_error(g, GPUBLOB_MISUSE, "null module");
  g->code = GPUBLOB_OK;
  sb_reset(&g->msg);
  pthread_once(&mlir_once, mlir_init);
  char name[4096];
  return serialize_in(g, opts, module, location_file(module, name, sizeof name), 1);
}

MlirPass gpublob_pass_create(const gpublob_options *opts) {
  pthread_once(&llvm_once, llvm_init);
  pthread_once(&mlir_once, mlir_init);
  pass_state *s = pass_state_new(opts);
  if (!s) return (MlirPass){NULL};
  MlirExternalPassCallbacks cb = {pass_construct, pass_destruct, pass_initialize, pass_clone,
                                  pass_run};
  MlirDialectHandle deps[] = {
#define GPUBLOB_MLIR_DIALECT(x) mlirGetDialectHandle__##x##__(),
#include "gpublob_targets.def"
  };
  return mlirCreateExternalPass(pass_type_id(), cref("GpublobSerialize"), cref("gpublob-serialize"),
                                cref("Serialise every gpu.module into blobs for its targets"),
                                cref("builtin.module"), (intptr_t)(sizeof deps / sizeof *deps), deps,
                                cb, s);
}
#endif
