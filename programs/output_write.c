/* programs/output_write.c: the outputs written atomically.  Every output (and the
** --emit-c header, the --emit-object object, the --metadata and --depfile files)
** goes into a temporary beside its path first, then all are renamed into place: a failure leaves no output behind, and a signal's handler
** (process.c) removes the temporaries in flight and the directories this call
** made.  An existing output that is not a regular file (a device, a FIFO) is
** written into, as a shell's > would. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "programs/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The blob into a new temporary beside path; its name in tmp (malloc'd). */
static int write_temp(const char *path, const gpublob_blob *b, char **tmp) {
  int fd = open_temp(path, tmp);
  if (fd < 0) return -1;
  int rc = write_all(fd, b->data, b->size);
  rc |= close(fd);
  return rc;
}

/* An existing output that is not a regular file (a device, a FIFO) is written
** into, as a shell's > would: replacing /dev/null by rename would be wrong. */
static int is_special(const char *path) {
  struct stat st;
  return strcmp(path, "-") && !stat(path, &st) && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

static int write_special(const char *path, const gpublob_blob *b) {
  int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return -1;
  int rc = write_all(fd, b->data, b->size), err = errno;
  if (close(fd) && !rc) rc = -1, err = errno;
  errno = err;
  return rc;
}

/* The temporaries in flight, for the signal handler to remove: set before each
** is made, cleared once renamed; and the directories this call made, in the
** order made (each after its parent), removed deepest first while still empty.
** Plain pointers read by a handler of this thread. */
static char *volatile *volatile pending_tmps;
static volatile size_t pending_count;
static char *volatile *volatile made_dirs;
static volatile size_t made_count;

/* The temporaries in flight from now on (NULL, 0: none), for the handler. */
void pending_set(char **tmps, size_t count) {
  pending_tmps = tmps;
  pending_count = count;
}

/* The signal handler's: every temporary in flight, and the directories made. */
void remove_pending(void) {
  char *volatile *tmps = pending_tmps, *volatile *dirs = made_dirs;
  for (size_t i = 0; tmps && i < pending_count; i++)
    if (tmps[i]) unlink(tmps[i]);
  for (size_t i = made_count; dirs && i-- > 0;) rmdir(dirs[i]);
}

/* -o DIR/ and -o PATTERN make the directories their outputs need; -o FILE does not. */
static int makes_dirs(const cli *c) {
  return c->output && strcmp(c->output, "-") && (strchr(c->output, '{') || is_dir(c->output));
}

/* Every missing directory above path, as mkdir -p makes them (mode 0777 under
** the umask), each one recorded in made_dirs (room for it is there).  0, or -1
** with errno and the directory that could not be made in *bad (malloc'd). */
static int make_parents(const char *path, char **bad) {
  char *dir = strdup(path), *last = dir ? strrchr(dir, '/') : NULL;
  if (!dir) return -1;
  for (char *p = dir + 1; last && p <= last; p++) {
    if (*p != '/' || p[-1] == '/') continue;
    struct stat st;
    *p = 0;
    int ok = !stat(dir, &st) && S_ISDIR(st.st_mode), err = 0;
    if (!ok && !mkdir(dir, 0777)) {
      char *name = strdup(dir);
      if (!name) rmdir(dir), err = ENOMEM;
      else made_dirs[made_count] = name, made_count = made_count + 1; /* stored, then counted */
    } else if (!ok && (err = errno) == EEXIST) { /* a file where the directory goes, unless made meanwhile */
      err = !stat(dir, &st) && S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
    }
    if (err) {
      *bad = dir;
      errno = err;
      return -1;
    }
    *p = '/';
  }
  free(dir);
  return 0;
}

/* The directories of every output, before any is written; none left on failure. */
static int make_dirs(const cli *c, const gpublob_result *r, char **paths) {
  size_t room = 0;
  for (size_t i = 0; makes_dirs(c) && i < r->count; i++)
    for (const char *p = paths[i]; *p; p++) room += *p == '/';
  if (!room) return 0;
  char **dirs = calloc(room, sizeof *dirs);
  if (!dirs) return fail("%s", "out of memory"), 10 + GPUBLOB_IO;
  made_count = 0;
  made_dirs = dirs;
  for (size_t i = 0; i < r->count; i++) {
    char *bad = NULL;
    if (make_parents(paths[i], &bad)) {
      fprintf(stderr, "gpublob: error: cannot make the directory '%s': %s\n", bad ? bad : paths[i],
              strerror(errno));
      free(bad);
      return 10 + GPUBLOB_IO;
    }
  }
  return 0;
}

/* Removes the directories made for a call that failed (while empty), or just
** forgets them after one that succeeded. */
static void drop_made(int failed) {
  char **dirs = (char **)made_dirs;
  size_t n = made_count;
  if (failed)
    for (size_t i = n; dirs && i-- > 0;) rmdir(dirs[i]);
  made_dirs = NULL;
  made_count = 0;
  for (size_t i = 0; dirs && i < n; i++) free(dirs[i]);
  free(dirs);
}

static int write_one(const char *path, const gpublob_blob *b, char **tmp) {
  if (!strcmp(path, "-")) return write_all(1, b->data, b->size);
  if (is_special(path)) return 0; /* written after every temporary is */
  return write_temp(path, b, tmp);
}

/* The files beside the outputs: the --emit-c header, the --emit-object object, the
** --metadata and --depfile text (a call's text file: it may share stdout, "-", with
** an output, and gets no "wrote" line). */
#define EXTRA_FILES 4
typedef struct extra_files {
  const char *flag[EXTRA_FILES], *path[EXTRA_FILES];
  const gpublob_blob *blob[EXTRA_FILES];
  int call_text[EXTRA_FILES];
  size_t n;
} extra_files;

static void extra_add(extra_files *x, const char *flag, const char *path, const gpublob_blob *blob, int text) {
  if (!path) return;
  x->flag[x->n] = flag, x->path[x->n] = path, x->blob[x->n] = blob, x->call_text[x->n++] = text;
}

static extra_files extras_of(const cli *c, const written_files *w) {
  extra_files x = {{NULL}, {NULL}, {NULL}, {0}, 0};
  extra_add(&x, "--emit-c", c->emit_c, &w->header, 0);
  extra_add(&x, "--emit-object", c->emit_object, &w->object, 0);
  extra_add(&x, "--metadata", c->metadata, &w->metadata, 1);
  extra_add(&x, "--depfile", c->depfile, &w->depfile, 1);
  return x;
}

/* The blob of file k of a call's writes: its outputs, then the extra files. */
static const gpublob_blob *written_blob(const gpublob_result *r, const extra_files *x, size_t k) {
  return k < r->count ? &r->outputs[k].blob : x->blob[k - r->count];
}

/* Each extra file's path after the outputs'; none of them an output's or another's. */
static int extra_paths(const gpublob_result *r, const extra_files *x, char **paths) {
  for (size_t e = 0; e < x->n; e++) {
    if (!(paths[r->count + e] = strdup(x->path[e]))) return fail("%s", "out of memory");
    int to_stdout = x->call_text[e] && !strcmp(x->path[e], "-");
    for (size_t k = 0; !to_stdout && k < r->count + e; k++)
      if (!strcmp(paths[k], x->path[e])) {
        fprintf(stderr, "gpublob: error: %s '%s' is also an output's path\n", x->flag[e], x->path[e]);
        return 2;
      }
  }
  return 0;
}

/* All temporaries first, then the renames: a failure leaves no output behind.  The
** --emit-c header, the --emit-object object, the --metadata and --depfile files are
** more files of the same writes. */
int write_outputs(const cli *c, const gpublob_result *r, int mlir, const written_files *w) {
  extra_files extras = extras_of(c, w), *x = &extras;
  size_t count = r->count + x->n;
  char **paths = calloc(count + 1, sizeof *paths), **tmps = calloc(count + 1, sizeof *tmps);
  int rc = !paths || !tmps ? fail("%s", "out of memory") : output_paths(c, r, mlir, paths);
  if (!rc) rc = extra_paths(r, x, paths);
  if (rc) rc = rc == 2 ? 10 + GPUBLOB_IO : rc;
  if (!rc) rc = make_dirs(c, r, paths);
  pending_count = count;
  pending_tmps = tmps;
  for (size_t i = 0; !rc && i < count; i++)
    if (write_one(paths[i], written_blob(r, x, i), &tmps[i])) {
      fprintf(stderr, "gpublob: error: cannot write '%s': %s\n", paths[i], strerror(errno));
      rc = 10 + GPUBLOB_IO;
    }
  for (size_t k = 0; !rc && k < count; k++)
    if (tmps[k] ? rename(tmps[k], paths[k]) : is_special(paths[k]) && write_special(paths[k], written_blob(r, x, k))) {
      fprintf(stderr, "gpublob: error: cannot write '%s': %s\n", paths[k], strerror(errno));
      rc = 10 + GPUBLOB_IO;
    } else if (tmps[k]) {
      char *done = tmps[k];
      tmps[k] = NULL; /* renamed: no longer the handler's to remove */
      free(done);
    }
  for (size_t k = 0; k < count; k++) {
    if (tmps && tmps[k] && rc) unlink(tmps[k]);
    if (!rc && strcmp(paths[k], "-") && !(k >= r->count && x->call_text[k - r->count]))
      fprintf(stderr, "gpublob: wrote %s (%zu bytes)\n", paths[k], written_blob(r, x, k)->size);
    if (paths) free(paths[k]);
    if (tmps) free(tmps[k]);
  }
  pending_tmps = NULL;
  pending_count = 0;
  drop_made(rc != 0);
  free(paths);
  free(tmps);
  return rc;
}
