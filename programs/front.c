/* programs/front.c: build/gpublob's main, the CLI without LLVM.  It reads the
** arguments once (a usage error is said here, as gpublob-compiler says it),
** answers a cache hit itself in a few milliseconds, and starts gpublob-compiler
** (beside it) for anything else, with the same arguments and, when its lookup met a
** fault of the remote tier, a hand-off (cli.h, HANDOFF_ENV) so that the compiler
** warns once and does not wait on the tier again. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "programs/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the front: a cache hit here, anything else in gpublob-compiler ---- */
static int run_compiler(char **argv) {
  char self[PATH_MAX], path[PATH_MAX + 32];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n < 0) return fail("cannot find this program (/proc/self/exe): %s", strerror(errno));
  self[n] = 0;
  char *slash = strrchr(self, '/');
  snprintf(path, sizeof path, "%.*s/gpublob-compiler", (int)(slash ? slash - self : 0), self);
  argv[0] = path;
  if (!getenv("GLIBC_TUNABLES") && !setenv("GLIBC_TUNABLES", FRONT_TUNABLES, 1)) setenv(TUNABLES_ENV, "1", 1);
  else unsetenv(TUNABLES_ENV); /* the user's GLIBC_TUNABLES: not the front's to take off */
  execv(path, argv);
  return fail("cannot run the compiler: %s", path);
}

/* An http:// or https:// remote tier (the option, or $GPUBLOB_REMOTE_CACHE): its
** backend loads libcurl, and a static program loads no library (one would bring a
** second libc).  So the static front hands such a call, before anything else, to its
** twin beside it, gpublob-front: the same front linked dynamically, which serves a
** remote hit without LLVM as this one serves a local hit, and starts the compiler for
** anything else.  Where the twin is missing, the compiler does the call.  Returns
** only when the twin could not be started. */
static int run_twin(const cli *c, char **argv) {
#if GPUBLOB_STATIC_FRONT
  const char *url = c->opts.remote_cache;
  if (!url || (strncmp(url, "http://", 7) && strncmp(url, "https://", 8)) || !c->opts.cache_dir) return 0;
  char self[PATH_MAX], path[PATH_MAX + 32];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n < 0) return 0;
  self[n] = 0;
  char *slash = strrchr(self, '/');
  snprintf(path, sizeof path, "%.*s/gpublob-front", (int)(slash ? slash - self : 0), self);
  argv[0] = path;
  execv(path, argv);
  return 0; /* no twin here: the lookup leaves the tier to the compiler */
#else
  return (void)c, (void)argv, 0;
#endif
}

/* The remote tier failed in the front's lookup (down, hung, refused): the compiler
** is told so by the hand-off (cli.h), with the lookup's warnings, so that it warns
** once for the call and does not wait on the tier again. */
static void handoff_give(gpublob *g) {
  text h = {0};
  text_addf(&h, "%s\nremote-off\n", HANDOFF_HEADER);
  for (const char *w = gpublob_warnings(g); *w;) {
    size_t n = strcspn(w, "\n");
    text_addf(&h, "warning %.*s\n", (int)n, w);
    w += n + (w[n] == '\n');
  }
  if (!h.oom) setenv(HANDOFF_ENV, h.s, 1);
  free(h.s);
}

/* One output asked for, to -o FILE, a regular file or none yet and not the input,
** and nothing read from the blob (no --metadata, --verbose or --emit-c) nor written
** beside it (--depfile): a hit is streamed into it. */
static int streams_to_file(const cli *c, int mlir, const struct stat *in_st) {
  struct stat st;
  if (!c->output || !strcmp(c->output, "-") || strchr(c->output, '{') || is_dir(c->output) ||
      c->metadata || c->verbose || c->emit_c || c->emit_object || c->depfile || c->opts.limits ||
      outputs_asked(c, mlir) > 1 || c->opts.format == GPUBLOB_FORMAT_OFFLOAD)
    return 0;
  if (stat(c->output, &st)) return errno == ENOENT;
  return S_ISREG(st.st_mode) && !(st.st_dev == in_st->st_dev && st.st_ino == in_st->st_ino);
}

/* The streamed hit's temporary, made at its first bytes: a miss touches no directory. */
typedef struct temp_sink {
  const char *path;
  char **tmp;
  int fd;
} temp_sink;

static int write_to_temp(void *ctx, const void *bytes, size_t size) {
  temp_sink *t = ctx;
  if (t->fd < 0 && (t->fd = open_temp(t->path, t->tmp)) < 0) return -1;
  return write_all(t->fd, bytes, size);
}

/* A hit of one output streamed into a temporary beside -o FILE as the cache's bytes
** are read, and renamed into place once the lookup has checked them: a 665 KB
** module is never held whole (its fresh pages cost more than the copy).  1 when
** written; 2 a hit that could not be put in place (said); 0 when the temporary
** could not be made (the caller looks up as usual, and says why it cannot write);
** -1 for a miss or anything else, the temporary (if made) removed. */
static int lookup_streamed(const cli *c, gpublob *g, const gpublob_input *in, gpublob_result *r) {
  char *tmps[1] = {NULL};
  catch_signals(); /* the temporary is the handler's to remove until renamed */
  pending_set(tmps, 1);
  temp_sink t = {c->output, &tmps[0], -1};
  int rc = gpublob_cache_lookup_stream(g, &c->opts, in, r, write_to_temp, &t);
  int bad = rc || r->count != 1 || t.fd < 0;
  if (t.fd >= 0) bad |= close(t.fd);
  int placed = !bad && !rename(tmps[0], c->output);
  if (!bad && !placed) /* as write_outputs reports it */
    fprintf(stderr, "gpublob: error: cannot write '%s': %s\n", c->output, strerror(errno));
  if (!placed && tmps[0]) unlink(tmps[0]);
  if (bad) gpublob_result_free(r);
  pending_set(NULL, 0);
  int unmade = rc == GPUBLOB_IO && t.fd < 0; /* its temporary could not be made */
  free(tmps[0]);
  return placed ? 1 : !bad ? 2 : unmade ? 0 : -1;
}

/* 0 and the outputs on a hit; 1 on a hit already written (streamed), 2 on one that
** could not be (said); 3 on a hit with a kernel over a limit (said, as the compiler
** would say it); -1 for anything else.  Several inputs are the compiler's: each
** input's lookup there is a single call's, and a hit of every input costs it no
** compile. */
static int lookup(const cli *c, gpublob_result *r, int *mlir) {
  unsigned char *data;
  size_t size;
  gpublob *g;
  struct stat st; /* a pipe or device read here would be gone for the compiler */
  if (!c->opts.cache_dir || !c->input || c->ninputs > 1 || !strcmp(c->input, "-") || stat(c->input, &st) ||
      !S_ISREG(st.st_mode) || read_input(c, &data, &size))
    return -1;
  *mlir = is_mlir(c->input, data, size);
  const gpublob_input in = {*mlir ? GPUBLOB_INPUT_MLIR : GPUBLOB_INPUT_LLVM, data, size, NULL, c->input};
  int rc = gpublob_open(&g) ? -1 : 0, streamed = 0;
  if (!rc && streams_to_file(c, *mlir, &st)) streamed = lookup_streamed(c, g, &in, r);
  if (!rc && !streamed) rc = gpublob_cache_lookup(g, &c->opts, &in, r);
  if (rc == GPUBLOB_LIMIT) fprintf(stderr, "gpublob: error: %s\n", gpublob_error_message(g));
  int over = rc == GPUBLOB_LIMIT;
  if (streamed) rc = streamed < 0 ? -1 : 0;
  if (!rc || over) print_warnings(g); /* the hit's: its compile's, labelled with this call's input name */
  if ((!rc || over) && c->time) print_time(g, "front", c->opts.remote_cache && *c->opts.remote_cache);
  if (streamed == 1) fprintf(stderr, "gpublob: wrote %s (%zu bytes)\n", c->output, r->outputs[0].blob.size);
  gpublob_stats s;
  if (rc && !over && !gpublob_stats_get(g, &s, sizeof s) && s.remote_errors) /* one fault a call, not two */
    handoff_give(g);
  free(data);
  gpublob_close(g);
  return over ? 3 : rc ? -1 : streamed;
}

int main(int argc, char **argv) {
  cli c = {.opts = {.version = GPUBLOB_OPTIONS_VERSION, .flags = CLI_DEFAULT_FLAGS}};
  gpublob_result r = {0};
  if (inspect_is_job(argc, argv)) /* LLVM-free, but for --disasm's disassembler */
    return inspect_wants_disasm(argc, argv) ? run_compiler(argv) : inspect_main(argc, argv, NULL);
  int mlir = 0, rc = parse_args(&c, argc, argv);
  if (rc) return rc == 1 ? 0 : 2; /* --help, --version: printed; a usage error: said */
  if (c.toolchain_id) return print_toolchain_id(&c); /* LLVM-free: answered here */
  if (!c.list_targets) run_twin(&c, argv);
  int hit = c.list_targets ? -1 : lookup(&c, &r, &mlir);
  if (hit < 0) return run_compiler(argv);
  if (hit == 3) return 10 + GPUBLOB_LIMIT;
  if (hit >= 1) { /* streamed: written, or not put in place (said) */
    gpublob_result_free(&r);
    return hit == 1 ? 0 : 10 + GPUBLOB_IO;
  }
  catch_signals();
  gpublob *g = NULL;
  rc = gpublob_open(&g) ? fail("%s", "out of memory") : write_results(g, &c, &r, mlir);
  gpublob_close(g);
  gpublob_result_free(&r);
  return rc;
}
