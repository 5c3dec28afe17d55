/* programs/output_names.c: where each output goes.  -o FILE for one output, -o -
** for stdout, -o DIR/ or -o PATTERN ({stem} {target} {chip} {suffix}) for several,
** or beside the input (INPUT.ll -> INPUT.SUFFIX; MLIR: INPUT.out.mlir); every path
** checked before anything is written: not stdout for several, none twice, none the
** input, none a directory.  Also the plain writes the outputs' files are made
** with (write_all, open_temp), which output_write.c and the front share. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "programs/cli.h"
#include "src/names.h" /* the core's names: a chip as a file name */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

int write_all(int fd, const unsigned char *p, size_t n) {
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* The CLI's temporaries beside an output are PATH.gpublob-tmp-PID-START-XXXXXX: the
** writer's pid and its start time (/proc/PID/stat's field 22), so that a call killed
** with SIGKILL, which removes nothing, leaves names the next call can tell as stale:
** before it writes PATH, it removes those of PATH whose writer runs no more (its pid
** is gone or runs a process that started at another time), only regular files of
** this user, named exactly so, that no process holds an flock on (the writer holds
** one while it writes).  Never another name: a user's file is never touched. */
static unsigned long long start_time_of(long pid) {
  char path[64], buf[1024];
  snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return 0;
  buf[n] = 0;
  char *p = strrchr(buf, ')'); /* after the command's name, which may hold anything */
  for (int field = 2; p && field < 22; field++) p = strchr(p + 1, ' ');
  return p ? strtoull(p + 1, NULL, 10) : 0;
}

/* name is BASE.gpublob-tmp-PID-START-XXXXXX of a writer that is gone. */
static int stale_temp(const char *name, const char *base, size_t basen) {
  long pid;
  unsigned long long start;
  char tail[8];
  int used = 0;
  if (strncmp(name, base, basen) || strncmp(name + basen, ".gpublob-tmp-", 13)) return 0;
  if (sscanf(name + basen + 13, "%ld-%llu-%7[A-Za-z0-9]%n", &pid, &start, tail, &used) != 3 ||
      name[basen + 13 + (size_t)used] || strlen(tail) != 6 || pid <= 0 || !start)
    return 0;
  unsigned long long now = start_time_of(pid);
  return !now || now != start;
}

void sweep_temps(const char *path) {
  const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
  char dir[PATH_MAX];
  snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + 1 : 1, slash ? path : ".");
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && (e = readdir(d))) {
    struct stat st;
    if (!stale_temp(e->d_name, base, strlen(base)) || fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
        !S_ISREG(st.st_mode) || st.st_uid != geteuid())
      continue;
    int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) continue;
    struct stat held;
    if (!flock(fd, LOCK_EX | LOCK_NB) && !fstat(fd, &held) && held.st_ino == st.st_ino) /* no writer holds it */
      unlinkat(dirfd(d), e->d_name, 0);
    close(fd);
  }
  if (d) closedir(d);
}

/* A new temporary beside path, with the mode a new file gets (0666 under the
** umask), locked while this process lives (flock): its descriptor, its name in *tmp
** (malloc'd; the signal handler's to remove from then on); -1 when none could be
** made.  Stale ones of path go first (sweep_temps). */
int open_temp(const char *path, char **tmp) {
  size_t n = strlen(path) + 64;
  char *name = malloc(n);
  if (!name) return -1;
  static unsigned long long self_start;
  if (!self_start) self_start = start_time_of((long)getpid());
  sweep_temps(path);
  snprintf(name, n, "%s.gpublob-tmp-%ld-%llu-XXXXXX", path, (long)getpid(), self_start);
  sigset_t all, was; /* no signal between its making and its name's storing */
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, &was);
  int fd = mkstemp(name);
  if (fd >= 0) *tmp = name;
  sigprocmask(SIG_SETMASK, &was, NULL);
  if (fd < 0) {
    free(name);
    return -1;
  }
  flock(fd, LOCK_EX | LOCK_NB);
  mode_t mask = umask(0);
  umask(mask);
  if (fchmod(fd, 0666 & ~mask)) {
    close(fd);
    return -1; /* the caller removes *tmp */
  }
  return fd;
}

/* INPUT.ll -> INPUT with suffix beside it; stdin -> stdout. */
static char *default_output(const char *input, const char *suffix) {
  if (!strcmp(input, "-")) return strdup("-");
  const char *slash = strrchr(input, '/'), *dot = strrchr(input, '.');
  size_t stem = dot && (!slash || dot > slash) ? (size_t)(dot - input) : strlen(input);
  char *out = malloc(stem + strlen(suffix) + 1);
  if (out) sprintf(out, "%.*s%s", (int)stem, input, suffix);
  return out;
}

static void add_text(char *out, size_t size, const char *s, size_t n) {
  size_t len = strlen(out);
  snprintf(out + len, size - len, "%.*s", (int)n, s);
}

/* A pattern's {stem} {target} {chip} {suffix}; a pack's chips are joined by '+', and a
** target id's colons become '-' (gfx90a:xnack+ names saxpy.amdgcn.gfx90a-xnack+.hsaco):
** make, Windows and many shells read a colon in a file name specially. */
static void fill_pattern(const char *pat, const char *stem, size_t stemn, const gpublob_output *o,
                         char *out, size_t size) {
  out[0] = 0;
  while (*pat) {
    const char *close = *pat == '{' ? strchr(pat, '}') : NULL;
    size_t n = close ? (size_t)(close - pat + 1) : 1;
    if (n == 6 && !strncmp(pat, "{stem}", 6)) add_text(out, size, stem, stemn);
    else if (n == 8 && !strncmp(pat, "{target}", 8)) add_text(out, size, o->target, strlen(o->target));
    else if (n == 8 && !strncmp(pat, "{suffix}", 8)) add_text(out, size, o->blob.suffix, strlen(o->blob.suffix));
    else if (n == 6 && !strncmp(pat, "{chip}", 6)) {
      for (const char *c = o->chip; *c;) { /* each chip by the core's safe_chip_name, joined by '+' */
        size_t cn = strcspn(c, ",");
        safe_chip_name(out, size, c, cn);
        c += cn;
        if (*c && *++c) add_text(out, size, "+", 1);
      }
    } else add_text(out, size, pat, n);
    pat += n;
  }
}

int is_dir(const char *p) {
  struct stat st;
  size_t n = strlen(p);
  return (n && p[n - 1] == '/') || (!stat(p, &st) && S_ISDIR(st.st_mode));
}

/* The input output i is of: its index in the call's list (gpublob_output_info's
** input), or the one input. */
const char *output_input(const cli *c, const gpublob_result *r, size_t i) {
  gpublob_output_info info;
  if (c->ninputs < 2 || gpublob_output_get(r, i, &info, sizeof info) || info.input >= c->ninputs) return c->input;
  return c->inputs[info.input];
}

/* Where output i goes: -o as given (one output), -o DIR/ or -o PATTERN, or beside
** its input.  MLIR: INPUT.mlir -> INPUT.out.mlir (also in DIR/), since the suffix
** is the input's own. */
static char *output_path(const cli *c, const gpublob_result *r, size_t i, int mlir) {
  const gpublob_output *o = &r->outputs[i];
  const char *input = output_input(c, r, i);
  int pattern = c->output && strchr(c->output, '{');
  const char *mlir_suffix = !strcmp(o->blob.suffix, ".mlirbc") ? ".out.mlirbc" : ".out.mlir";
  if (r->count == 1 && c->output && !pattern && !is_dir(c->output)) return strdup(c->output);
  if (r->count == 1 && !c->output) return default_output(c->input, !mlir ? o->blob.suffix : mlir_suffix);
  const char *slash = strrchr(input, '/'), *base = slash ? slash + 1 : input;
  const char *dot = strrchr(base, '.');
  size_t stemn = dot ? (size_t)(dot - base) : strlen(base);
  char pat[8192], *out = malloc(PATH_MAX);
  if (!out) return NULL;
  if (pattern) snprintf(pat, sizeof pat, "%s", c->output);
  else if (c->output) snprintf(pat, sizeof pat, "%s%s{stem}%s", c->output,
                               c->output[strlen(c->output) - 1] == '/' ? "" : "/",
                               mlir ? mlir_suffix : ".{target}.{chip}{suffix}");
  else snprintf(pat, sizeof pat, "%.*s{stem}.{target}.{chip}{suffix}", (int)(base - input), input);
  fill_pattern(pat, base, stemn, o, out, PATH_MAX);
  return out;
}

/* Several outputs need somewhere to go: a directory or a pattern, not one file. */
int check_many(const cli *c, size_t n) {
  if (n < 2) return 0;
  if (!c->output ? !strcmp(c->input, "-") : !strcmp(c->output, "-"))
    return fail("%s", "several outputs cannot go to stdout: give -o DIR/ or -o PATTERN");
  if (c->output && !strchr(c->output, '{') && !is_dir(c->output))
    return fail("several outputs cannot go to the one file '%s': give -o DIR/ or -o PATTERN", c->output);
  return 0;
}

/* Outputs the options ask for: a chip each, or a pack per -t, or one container (-f
** offload; MLIR: the module); several inputs give one at least each. */
size_t outputs_asked(const cli *c, int mlir) {
  size_t n = 0;
  if (!mlir && c->opts.format == GPUBLOB_FORMAT_OFFLOAD) return 1; /* one container */
  for (size_t i = 0; !mlir && i < c->opts.ntargets; i++) {
    const char *colon = strchr(c->choices[i].target, ':');
    n++;
    for (const char *p = colon; p && *p && c->opts.format != GPUBLOB_FORMAT_FATBIN; p++) n += *p == ',';
  }
  return n < c->ninputs ? c->ninputs : n;
}

/* An input's checks for the outputs: none named beside it unless it is a regular file. */
static int input_names_outputs(const cli *c, const char *input) {
  struct stat in_st, link_st;
  /* a name beside /dev/null, /dev/fd/63 or a FIFO would be a new file there; lstat: a
     link such as /dev/stdin to a regular file is no place for one either */
  if (!c->output && strcmp(input, "-") &&
      (stat(input, &in_st) || !S_ISREG(in_st.st_mode) || lstat(input, &link_st) || !S_ISREG(link_st.st_mode)))
    return fail("the input '%s' is not a regular file, so no output name can be made from it: give -o FILE "
                "(or -o - for standard output)", input);
  return 0;
}

/* The output at out_st is one of the inputs. */
static int is_an_input(const cli *c, const struct stat *out_st) {
  struct stat in_st;
  for (size_t k = 0; k < (c->ninputs ? c->ninputs : 1); k++) {
    const char *input = c->ninputs ? c->inputs[k] : c->input;
    if (strcmp(input, "-") && !stat(input, &in_st) && in_st.st_dev == out_st->st_dev && in_st.st_ino == out_st->st_ino)
      return 1;
  }
  return 0;
}

/* Every output's path, checked: not stdout for several, none twice, none an input. */
int output_paths(const cli *c, const gpublob_result *r, int mlir, char **paths) {
  struct stat out_st;
  if (check_many(c, r->count)) return 2;
  for (size_t k = 0; k < (c->ninputs ? c->ninputs : 1); k++)
    if (input_names_outputs(c, c->ninputs ? c->inputs[k] : c->input)) return 2;
  for (size_t i = 0; i < r->count; i++) {
    if (!(paths[i] = output_path(c, r, i, mlir))) return fail("%s", "out of memory");
    for (size_t k = 0; k < i; k++)
      if (!strcmp(paths[i], paths[k]))
        return fail("two outputs would be written to '%s': give -o PATTERN with {target} and {chip}", paths[i]);
    if (!strcmp(paths[i], "-") || stat(paths[i], &out_st)) continue;
    if (is_an_input(c, &out_st))
      return fail("the output '%s' is the input; give -o", paths[i]);
    if (S_ISDIR(out_st.st_mode)) /* found now, not when renames have begun */
      return fail("the output '%s' is a directory", paths[i]);
  }
  return 0;
}
