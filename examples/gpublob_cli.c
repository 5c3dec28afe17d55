/* gpublob_cli.c: the gpublob command line.  Kernel in, blob out.
**
**   gpublob [options] INPUT      INPUT: .ll, .bc, .mlir or .mlirbc, or - for stdin
**
** MLIR input gives the whole module back, each gpu.module serialised for its
** targets (-t, repeatable, or the module's own #nvvm.target<...> attributes).
** Exit 0 on success; on failure one line on stderr (plus the tool's or LLVM's
** detail below it) and no output file.  Output is written atomically.
*/
#define _POSIX_C_SOURCE 200809L
#include "gpublob.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <llvm-c/ErrorHandling.h>

static const char usage[] =
    "usage: gpublob [options] INPUT     INPUT: .ll, .bc, .mlir or .mlirbc, or - for stdin\n"
    "  -t, --target NAME[:CHIP]         a target from the spec; CHIP defaults per target;\n"
    "                                   MLIR: repeatable, and replaces the module's own\n"
    "                                   target attributes\n"
    "      --features STR               LLVM target features, e.g. +ptx80\n"
    "  -f, --format llvm|asm|bin        default bin\n"
    "  -O0 .. -O3                       default -O3\n"
    "  -o FILE                          output file; - for stdout\n"
    "      --ftz                        flush denormals (device-library variant)\n"
    "      --fast-math                  unsafe, finite-only math (device-library variant)\n"
    "      --tool PATH                  the blob tool to run, instead of searching\n"
    "      --tool-dir DIR               search DIR first for the blob tool (repeatable)\n"
    "      --lib-dir DIR                search DIR first for device libraries (repeatable)\n"
    "      --no-default-search          search only --tool-dir and --lib-dir\n"
    "MLIR input:\n"
    "      --attach legacy|binary       default binary: gpu.binary with #gpu.object\n"
    "                                   entries; legacy: an nvvm.cubin-style attribute\n"
    "      --pipeline STR               lowering passes for each gpu.module, instead of\n"
    "                                   the spec's; none: never lower\n"
    "      --emit-bytecode              write MLIR bytecode (.mlirbc)\n"
    "      --list-targets               name, triple, default chip, formats, attribute,\n"
    "                                   and whether its blob tool was found\n"
    "      --version\n"
    "  -h, --help\n";

#define MAX_TARGETS 64

typedef struct cli {
  gpublob_options opts;
  gpublob_target_choice choices[MAX_TARGETS];
  char tool_dirs[8192], lib_dirs[8192];
  const char *input, *output;
  int list_targets;
} cli;

static int fail(const char *fmt, const char *arg) {
  fputs("gpublob: error: ", stderr);
  fprintf(stderr, fmt, arg);
  fputc('\n', stderr);
  return 2;
}

/* ---- arguments ---- */
static int parse_format(const char *s) {
  if (!strcmp(s, "bin")) return GPUBLOB_FORMAT_BIN;
  if (!strcmp(s, "asm")) return GPUBLOB_FORMAT_ASM;
  if (!strcmp(s, "llvm")) return GPUBLOB_FORMAT_LLVM;
  return -1;
}

/* Returns 0 to go on, 1 when done (help, version), 2 on a usage error. */
static int parse_args(cli *c, int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *next = i + 1 < argc ? argv[i + 1] : NULL;
    int takes = !strcmp(a, "-t") || !strcmp(a, "--target") || !strcmp(a, "--features") ||
                !strcmp(a, "-f") || !strcmp(a, "--format") || !strcmp(a, "-o") ||
                !strcmp(a, "--tool") || !strcmp(a, "--tool-dir") || !strcmp(a, "--lib-dir") ||
                !strcmp(a, "--attach") || !strcmp(a, "--pipeline");
    if (takes && !next) return fail("option %s needs a value", a);
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(usage, stdout);
      return 1;
    } else if (!strcmp(a, "--version")) {
      printf("gpublob %s (%s)\n", gpublob_version(),
             gpublob_mlir_enabled() ? "LLVM IR and MLIR" : "LLVM IR only");
      return 1;
    } else if (!strcmp(a, "-t") || !strcmp(a, "--target")) {
      if (c->opts.ntargets == MAX_TARGETS) return fail("%s", "too many -t");
      c->choices[c->opts.ntargets++].target = argv[++i];
    } else if (!strcmp(a, "--features")) {
      c->opts.features = argv[++i];
    } else if (!strcmp(a, "-f") || !strcmp(a, "--format")) {
      c->opts.format = parse_format(argv[++i]);
      if (c->opts.format < 0) return fail("unknown format '%s' (use llvm, asm or bin)", argv[i]);
    } else if (a[0] == '-' && a[1] == 'O' && a[2] >= '0' && a[2] <= '3' && !a[3]) {
      c->opts.opt = GPUBLOB_OPT_O0 + (a[2] - '0');
    } else if (!strcmp(a, "-o")) {
      c->output = argv[++i];
    } else if (!strcmp(a, "--tool")) {
      c->opts.tool = argv[++i];
    } else if (!strcmp(a, "--tool-dir") || !strcmp(a, "--lib-dir")) {
      char *list = a[2] == 't' ? c->tool_dirs : c->lib_dirs;
      size_t n = strlen(list);
      snprintf(list + n, sizeof c->tool_dirs - n, "%s%s", n ? ":" : "", argv[++i]);
    } else if (!strcmp(a, "--attach")) {
      const char *m = argv[++i];
      c->opts.attach = !strcmp(m, "binary") ? GPUBLOB_ATTACH_BINARY
                       : !strcmp(m, "legacy") ? GPUBLOB_ATTACH_LEGACY : -1;
      if (c->opts.attach < 0) return fail("unknown attach mode '%s' (use legacy or binary)", m);
    } else if (!strcmp(a, "--pipeline")) {
      c->opts.pipeline = argv[++i];
    } else if (!strcmp(a, "--emit-bytecode")) {
      c->opts.flags |= GPUBLOB_FLAG_MLIR_BYTECODE;
    } else if (!strcmp(a, "--no-default-search")) {
      c->opts.flags |= GPUBLOB_FLAG_NO_DEFAULT_SEARCH;
    } else if (!strcmp(a, "--ftz")) {
      c->opts.flags |= GPUBLOB_FLAG_FTZ;
    } else if (!strcmp(a, "--fast-math")) {
      c->opts.flags |= GPUBLOB_FLAG_FAST_MATH;
    } else if (!strcmp(a, "--list-targets")) {
      c->list_targets = 1;
    } else if (a[0] == '-' && a[1]) {
      return fail("unknown option '%s' (see --help)", a);
    } else if (c->input) {
      return fail("more than one input ('%s')", a);
    } else {
      c->input = a;
    }
  }
  if (!c->input && !c->list_targets) return fail("%s", "no input (see --help)");
  for (size_t k = 0; k < c->opts.ntargets; k++) c->choices[k].features = c->opts.features;
  c->opts.targets = c->opts.ntargets ? c->choices : NULL;
  c->opts.tool_dirs = *c->tool_dirs ? c->tool_dirs : NULL;
  c->opts.lib_dirs = *c->lib_dirs ? c->lib_dirs : NULL;
  return 0;
}

/* ---- --list-targets ---- */
static int list_targets(gpublob *g, const cli *c) {
  printf("%-8s %-26s %-8s %-14s %-14s %-14s %s\n", "target", "triple", "chip", "formats",
         "attribute", "mlir target", "blob tool");
  for (int i = 0; i < gpublob_target_count(); i++) {
    gpublob_target_info t;
    gpublob_target_get(i, &t);
    gpublob_options o = c->opts;
    o.target = t.name;
    o.targets = NULL;
    o.ntargets = 0;
    char tool[4096];
    int rc = gpublob_tool_find(g, &o, tool, sizeof tool);
    const char *state = rc ? "not found" : *tool ? tool : "none needed";
    char mlir[64];
    snprintf(mlir, sizeof mlir, "%s%s", *t.mlir_target ? "#" : "", *t.mlir_target ? t.mlir_target : "-");
    printf("%-8s %-26s %-8s %-14s %-14s %-14s %s (%s)\n", t.name, t.triple, t.chip, "llvm,asm,bin",
           t.attribute, mlir, state, t.tool_kind);
  }
  return 0;
}

/* ---- output: stdout, or a temporary file renamed into place ---- */
static int write_all(int fd, const unsigned char *p, size_t n) {
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

static int write_atomic(const char *path, const gpublob_blob *b) {
  if (!strcmp(path, "-")) return write_all(1, b->data, b->size);
  size_t n = strlen(path);
  char *tmp = malloc(n + 16);
  if (!tmp) return -1;
  snprintf(tmp, n + 16, "%s.tmp-XXXXXX", path);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    free(tmp);
    return -1;
  }
  mode_t mask = umask(0);
  umask(mask);
  int rc = fchmod(fd, 0666 & ~mask) | write_all(fd, b->data, b->size);
  rc |= close(fd);
  if (!rc) rc = rename(tmp, path);
  int err = errno;
  if (rc) unlink(tmp);
  free(tmp);
  errno = err;
  return rc;
}

/* INPUT.ll -> INPUT.cubin beside it; stdin -> stdout. */
static char *default_output(const char *input, const char *suffix) {
  if (!strcmp(input, "-")) return strdup("-");
  const char *slash = strrchr(input, '/'), *dot = strrchr(input, '.');
  size_t stem = dot && (!slash || dot > slash) ? (size_t)(dot - input) : strlen(input);
  char *out = malloc(stem + strlen(suffix) + 1);
  if (out) sprintf(out, "%.*s%s", (int)stem, input, suffix);
  return out;
}

/* ---- input: read whole, then MLIR or LLVM IR by suffix, magic or first word ---- */
static int read_all_fd(int fd, unsigned char **data, size_t *size) {
  size_t cap = 1 << 16, n = 0;
  unsigned char *p = malloc(cap);
  for (ssize_t r = 1; p && r;) {
    if (n == cap) {
      unsigned char *grown = realloc(p, cap *= 2);
      if (!grown) free(p);
      if (!(p = grown)) break;
    }
    r = read(fd, p + n, cap - n);
    if (r < 0 && errno != EINTR) {
      free(p);
      return -1;
    }
    if (r > 0) n += (size_t)r;
  }
  if (!p) return -1;
  *data = p;
  *size = n;
  return 0;
}

static int read_input(const char *path, unsigned char **data, size_t *size) {
  int fd = strcmp(path, "-") ? open(path, O_RDONLY) : 0;
  if (fd < 0) return -1;
  int rc = read_all_fd(fd, data, size);
  int err = errno;
  if (fd) close(fd);
  errno = err;
  return rc;
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && !strcmp(s + n - m, suffix);
}

static int is_mlir(const char *path, const unsigned char *p, size_t n) {
  if (ends_with(path, ".mlir") || ends_with(path, ".mlirbc")) return 1;
  if (ends_with(path, ".ll") || ends_with(path, ".bc")) return 0;
  if (n >= 4 && !memcmp(p, "ML\xefR", 4)) return 1;
  size_t i = 0;
  while (i < n) { /* skip blanks and // comments; ; starts an LLVM IR comment */
    if (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r') i++;
    else if (i + 1 < n && p[i] == '/' && p[i + 1] == '/') return 1;
    else break;
  }
  static const char *const starts[] = {"module", "gpu.module", "#", "!", "\"builtin.module\"", "{-#"};
  for (size_t k = 0; k < sizeof starts / sizeof *starts; k++)
    if (n - i >= strlen(starts[k]) && !memcmp(p + i, starts[k], strlen(starts[k]))) return 1;
  return 0;
}

static int compile_input(gpublob *g, const cli *c, gpublob_blob *blob, int *mlir) {
  unsigned char *data;
  size_t size;
  if (read_input(c->input, &data, &size)) {
    fprintf(stderr, "gpublob: error: cannot read '%s': %s\n", c->input, strerror(errno));
    return 10 + GPUBLOB_IO;
  }
  const char *name = strcmp(c->input, "-") ? c->input : "<stdin>";
  *mlir = is_mlir(c->input, data, size);
  int rc = *mlir ? gpublob_mlir_compile(g, &c->opts, data, size, name, blob)
                 : gpublob_module_compile(g, &c->opts, data, size, name, blob);
  free(data);
  if (rc) {
    fprintf(stderr, "gpublob: error: %s\n", gpublob_error_message(g));
    return 10 + gpublob_error_code(g);
  }
  return 0;
}

static void on_llvm_fatal(const char *reason) {
  fprintf(stderr, "gpublob: error: LLVM fatal error: %s\n", reason);
}

int main(int argc, char **argv) {
  cli c = {.opts = {.version = GPUBLOB_OPTIONS_VERSION}};
  int rc = parse_args(&c, argc, argv);
  if (rc) return rc == 1 ? 0 : 2;
  gpublob *g;
  if (gpublob_open(&g)) return fail("%s", "out of memory");
  LLVMInstallFatalErrorHandler(on_llvm_fatal);
  if (c.list_targets) {
    rc = list_targets(g, &c);
    gpublob_close(g);
    return rc;
  }
  gpublob_blob blob;
  int mlir = 0;
  if ((rc = compile_input(g, &c, &blob, &mlir))) {
    gpublob_close(g);
    return rc;
  }
  /* MLIR: INPUT.mlir -> INPUT.out.mlir, since the suffix is the input's own. */
  char *out = c.output ? strdup(c.output)
                       : default_output(c.input, !mlir                             ? blob.suffix
                                                 : !strcmp(blob.suffix, ".mlirbc") ? ".out.mlirbc"
                                                                                   : ".out.mlir");
  struct stat in_st, out_st;
  if (out && strcmp(out, "-") && !stat(c.input, &in_st) && !stat(out, &out_st) &&
      in_st.st_dev == out_st.st_dev && in_st.st_ino == out_st.st_ino) {
    fprintf(stderr, "gpublob: error: the output '%s' is the input; give -o\n", out);
    rc = 10 + GPUBLOB_IO;
  } else if (!out || write_atomic(out, &blob)) {
    fprintf(stderr, "gpublob: error: cannot write '%s': %s\n", out ? out : "?", strerror(errno));
    rc = 10 + GPUBLOB_IO;
  } else if (strcmp(out, "-")) {
    fprintf(stderr, "gpublob: wrote %s (%zu bytes)\n", out, blob.size);
  }
  free(out);
  gpublob_blob_free(&blob);
  gpublob_close(g);
  /* Everything is written and closed: skip LLVM's static destructors at exit. */
  fflush(NULL);
  _exit(rc);
}
