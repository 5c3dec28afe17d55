/* gpublob.c: the one translation unit of gpublob's target-neutral core.
**
** In-tree:  ./configure && ninja   (build/gpublob_targets.def comes from the spec)
** Vendored: cc -std=c11 -O2 -c gpublob.c $(llvm-config-22 --cflags)
**           using build/vendor/gpublob.c, which has the target table pasted in;
**           link with -lxxhash -ldl -lpthread and LLVM (README.md, "Vendoring").
**
** The file runs in pipeline order: options and targets, the call's plan of jobs,
** the blob tool each job will use, the cache, input, parse and verify, target
** machine, module flags, device libraries, optimisation, emission, blob tool,
** packs, the pool that runs the jobs, MLIR, and last the public API.  Nothing
** here names a target: whatever differs between targets is a field of the
** descriptor generated from targets/.
**
** GPUBLOB_COMPILER=0 builds the cache front alone (options, targets, search and
** the cache, without LLVM): the CLI answers cache hits with it before starting
** the compiler.
*/
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#ifndef GPUBLOB_COMPILER
#define GPUBLOB_COMPILER 1 /* 0: the cache front alone, no LLVM */
#endif
#ifndef GPUBLOB_MLIR
#define GPUBLOB_MLIR 0 /* 1: MLIR input, with the MLIR C API */
#endif
#if GPUBLOB_MLIR && GPUBLOB_COMPILER
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

#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <llvm/Config/llvm-config.h> /* LLVM_VERSION_STRING, a C header */
#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t on the stack */
#include <xxhash.h>
#if GPUBLOB_COMPILER
#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Comdat.h>
#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/ErrorHandling.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Support.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#else
typedef struct LLVMOpaqueContext *LLVMContextRef;
typedef struct LLVMOpaqueModule *LLVMModuleRef;
typedef struct LLVMOpaqueTargetMachine *LLVMTargetMachineRef;
#endif

extern char **environ;

/* ---- limits (as luaconf.h holds Lua's): each can be set with -D at build time ---- */
#ifndef GPUBLOB_TOOL_TIMEOUT_DEFAULT
#define GPUBLOB_TOOL_TIMEOUT_DEFAULT 300 /* seconds a blob or pack tool may run */
#endif
#ifndef GPUBLOB_MAX_INPUT_DEFAULT
#define GPUBLOB_MAX_INPUT_DEFAULT (1ULL << 30) /* bytes of input */
#endif
#ifndef GPUBLOB_MAX_NESTING
#define GPUBLOB_MAX_NESTING 1000 /* brackets deep in text input: LLVM's and MLIR's parsers
                                    recurse once a level, some 800 bytes of stack each */
#endif
#ifndef GPUBLOB_PARSE_STACK
#define GPUBLOB_PARSE_STACK (256u << 20) /* the stack of the threads that parse */
#endif

/* ---- the target descriptors, generated from the spec ---- */
enum emit_kind { EMIT_asm, EMIT_obj };
enum tool_kind { TOOL_exec, TOOL_none };
enum tool_input { INPUT_file, INPUT_stdin, INPUT_pipe };
enum provider_kind { PROVIDER_none, PROVIDER_nvjitlink };

typedef struct target_desc {
  const char *name, *triple, *chip, *chip_prefix, *chips, *chip_features;
  const char *features, *feature_names, *version_feature, *feature_min;
  enum emit_kind emit;
  enum tool_kind tool_kind;
  const char *tool_kind_name;
  enum tool_input tool_input;
  const char *tool, *tool_argv, *tool_search;
  enum provider_kind provider;
  const char *provider_name, *provider_lib, *provider_search, *provider_argv;
  int provider_min;
  const char *pack_tool, *pack_argv, *pack_image, *pack_asm_image, *suffix_pack;
  const char *attribute, *suffix_asm, *suffix_bin, *bin_magic, *pack_magic, *symbol_chars;
  const char *libs, *lib_search, *module_flags, *intrinsics, *entry_cc;
  const char *mlir_target, *mlir_chip, *mlir_lower, *mlir_dialects;
  const char *asm_parser;
} target_desc;

#define GPUBLOB_TARGET(name, triple, chip, chip_prefix, chips, chip_features, features,  \
                       feature_names, version_feature, feature_min,                      \
                       emit, tool_kind, tool_input, tool, tool_argv, tool_search,        \
                       provider, provider_lib, provider_search, provider_argv,           \
                       provider_min, pack_tool, pack_argv, pack_image, pack_asm_image,   \
                       suffix_pack, attribute, suffix_asm, suffix_bin, bin_magic,        \
                       pack_magic, symbol_chars, libs, lib_search, module_flags,         \
                       intrinsics, entry_cc, mlir_target, mlir_chip, mlir_lower,         \
                       mlir_dialects, llvm_target, asm_parser)                           \
  {name, triple, chip, chip_prefix, chips, chip_features, features, feature_names,      \
   version_feature, feature_min, EMIT_##emit, TOOL_##tool_kind,                         \
   #tool_kind, INPUT_##tool_input, tool, tool_argv, tool_search, PROVIDER_##provider,   \
   #provider, provider_lib, provider_search, provider_argv, provider_min, pack_tool,    \
   pack_argv, pack_image, pack_asm_image, suffix_pack, attribute, suffix_asm,           \
   suffix_bin, bin_magic, pack_magic, symbol_chars, libs, lib_search, module_flags,     \
   intrinsics, entry_cc, mlir_target, mlir_chip, mlir_lower, mlir_dialects, asm_parser},
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
  if (b->oom || (!n && b->s)) return;
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
  if (n) memcpy(b->s + b->len, s, n);
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

/* Room for one more element in *pp, an array of n of size bytes each. */
static int grow(void *pp, size_t n, size_t size) {
  void *q = realloc(*(void **)pp, (n + 1) * size);
  if (!q) return -1;
  *(void **)pp = q;
  return 0;
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

/* ---- the handle: its error message, warnings and the last call's figures ---- */
struct gpublob {
  int code;
  strbuf msg;
  strbuf warn;          /* the last call's warnings, one per line */
  gpublob_stats stats;  /* the last call's figures */
  pid_t helper;         /* the isolation helper, once started; 0 before */
  pid_t helper_owner;   /* the process that started it: a forked copy of the host leaves it be */
  int helper_ctl;       /* the socket jobs are handed to it by */
  int helper_live;      /* its slot in the table of live processes */
  pthread_mutex_t helper_mu; /* one job handed over at a time */
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

/* A warning of the current call; the same text is kept once. */
static void add_warning(gpublob *g, const char *fmt, ...) {
  char text[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  if (strstr(sb_str(&g->warn), text)) return;
  sb_add(&g->warn, text);
  sb_add(&g->warn, "\n");
}

/* A new call: no error, no warnings, zeroed figures. */
static void call_reset(gpublob *g) {
  g->code = GPUBLOB_OK;
  sb_reset(&g->msg);
  sb_reset(&g->warn);
  memset(&g->stats, 0, sizeof g->stats);
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

#if GPUBLOB_COMPILER
/* Another handle's error (a job's own) becomes g's. */
static int take_error(gpublob *g, const gpublob *from) {
  g->code = from->code;
  sb_reset(&g->msg);
  if (from->msg.oom) g->msg.oom = 1;
  else sb_add(&g->msg, sb_str(&from->msg));
  return g->code;
}

/* Another handle's warnings (a job's), each line once. */
static void add_warnings(gpublob *g, const char *lines) {
  while (*lines) {
    const char *nl = strchr(lines, '\n');
    size_t n = nl ? (size_t)(nl - lines) : strlen(lines);
    strbuf line = {0};
    sb_addn(&line, lines, n);
    if (n && !strstr(sb_str(&g->warn), sb_str(&line))) {
      sb_add(&g->warn, sb_str(&line));
      sb_add(&g->warn, "\n");
    }
    sb_free(&line);
    lines += n + (nl != NULL);
  }
}

/* Appends detail (a diagnostic, a tool's stderr) to the current message. */
static void add_detail(gpublob *g, const char *detail) {
  size_t n = strlen(detail);
  while (n && (detail[n - 1] == '\n' || detail[n - 1] == ' ')) n--;
  if (!n) return;
  sb_add(&g->msg, ":\n");
  sb_addn(&g->msg, detail, n);
}
#endif

/* ---- live processes and directories, for a signal handler to clean up ---- */
/* Fixed tables, because gpublob_process_cleanup runs in a signal handler: it may
** touch only atomics and static memory, and remove a directory with system calls
** alone.  A process is a group leader, killed with its group; a directory is one a
** job made, its path copied into its slot (so no owner's memory is read). */
enum { MAX_LIVE_PIDS = 1024, MAX_LIVE_DIRS = 256, LIVE_PATH = 4096, MAX_TREE_DEPTH = 32 };
enum { SLOT_FREE, SLOT_WRITING, SLOT_READY };
static atomic_int live_pids[MAX_LIVE_PIDS];
static struct live_dir {
  atomic_int state;
  char path[LIVE_PATH];
} live_dirs[MAX_LIVE_DIRS];

#if GPUBLOB_COMPILER
/* The slot now holding pgid, or -1 when the table is full (that one is then not
** cleaned up on a signal). */
static int live_pid_add(pid_t pgid) {
  for (int i = 0; i < MAX_LIVE_PIDS; i++) {
    int none = 0;
    if (atomic_compare_exchange_strong(&live_pids[i], &none, (int)pgid)) return i;
  }
  return -1;
}

static void live_pid_remove(int slot) {
  if (slot >= 0 && slot < MAX_LIVE_PIDS) atomic_store(&live_pids[slot], 0);
}

static int live_dir_add(const char *path) {
  if (strlen(path) >= LIVE_PATH) return -1;
  for (int i = 0; i < MAX_LIVE_DIRS; i++) {
    int none = SLOT_FREE;
    if (!atomic_compare_exchange_strong(&live_dirs[i].state, &none, SLOT_WRITING)) continue;
    memcpy(live_dirs[i].path, path, strlen(path) + 1);
    atomic_store(&live_dirs[i].state, SLOT_READY);
    return i;
  }
  return -1;
}

static void live_dir_remove(int slot) {
  if (slot >= 0 && slot < MAX_LIVE_DIRS) atomic_store(&live_dirs[slot].state, SLOT_FREE);
}
#endif

/* Removes everything under the directory dirfd, without following links; system
** calls only (getdents64, unlinkat), so a signal handler may call it. */
static void remove_entries(int dirfd, int depth) {
  char buf[512]; /* small: this runs on a signal handler's stack, once a level */
  long n;
  while ((n = syscall(SYS_getdents64, dirfd, buf, sizeof buf)) > 0) {
    for (long off = 0; off < n;) {
      struct linux_dirent64 {
        uint64_t ino;
        int64_t off;
        unsigned short reclen;
        unsigned char type;
        char name[];
      } *e = (void *)(buf + off);
      off += e->reclen;
      if (!strcmp(e->name, ".") || !strcmp(e->name, "..")) continue;
      if (!unlinkat(dirfd, e->name, 0) || errno != EISDIR || depth >= MAX_TREE_DEPTH) continue;
      int sub = openat(dirfd, e->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub >= 0) {
        for (int pass = 0; pass < 3 && unlinkat(dirfd, e->name, AT_REMOVEDIR); pass++) {
          lseek(sub, 0, SEEK_SET);
          remove_entries(sub, depth + 1);
        }
        close(sub);
      }
    }
  }
}

/* A few passes: a process still writing into it may add an entry meanwhile. */
static void remove_tree(const char *dir) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  for (int pass = 0; fd >= 0 && pass < 3 && rmdir(dir); pass++) {
    lseek(fd, 0, SEEK_SET);
    remove_entries(fd, 0);
  }
  if (fd >= 0) close(fd);
}

static int is_workdir_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash && !strncmp(slash + 1, "gpublob-", 8);
}

void gpublob_process_cleanup(void) {
  int saved = errno;
  for (int i = 0; i < MAX_LIVE_PIDS; i++) {
    int pgid = atomic_load(&live_pids[i]);
    if (pgid > 0) kill(-pgid, SIGKILL);
  }
  for (int i = 0; i < MAX_LIVE_DIRS; i++)
    if (atomic_load(&live_dirs[i].state) == SLOT_READY && is_workdir_name(live_dirs[i].path))
      remove_tree(live_dirs[i].path);
  errno = saved;
}

/* ---- one job: a module for one (target, chip), and the options it resolved ---- */
typedef struct workdir {
  char dir[4096], in[4200], out[4200];
  int live; /* its slot in the table of live directories */
} workdir;

typedef struct proc {
  pid_t pid;  /* also its process group; 0 when not running */
  int in_fd;  /* this end of its input channel; -1 when none or closed */
  int out_fd; /* its stdout and stderr; -1 when closed */
  int live;   /* its slot in the table of live processes */
} proc;

typedef struct toolrun { /* a blob tool in flight */
  workdir w;
  int made;            /* w.dir exists */
  strbuf store, output; /* argv strings; the tool's stdout and stderr */
  char **argv;
  proc p;
} toolrun;

typedef struct provider provider; /* an in-process blob tool, loaded once per process */

enum job_state { JOB_PENDING, JOB_DONE, JOB_FAILED, JOB_CANCELLED };
enum { PH_LOAD, PH_LINK, PH_OPT, PH_EMIT, PH_TOOL, NPHASES };

typedef struct job {
  gpublob *g;       /* where its errors go: the caller's handle, or sink in a pool */
  gpublob *host;    /* the caller's handle: its isolation helper */
  gpublob sink;
  const target_desc *t;
  char target[64], want[64]; /* as planned: the target's name, one chip or "" */
  char chip[64];             /* as resolved */
  char triple[128];          /* what LLVM gets: the spec's, or the module's sub-architecture of it */
  strbuf features;  /* what LLVM gets: spec default, then the caller's */
  strbuf condfeat;  /* what {if:+x} reads: the chip's implied, then features */
  int format, opt;  /* a pack's member compiles as bin */
  unsigned flags;
  size_t peers;     /* jobs of the call for the same target (the provider's threshold) */
  const gpublob_options *o; /* &opts */
  gpublob_options opts;     /* the caller's, normalised, with this job's target */
  const char *name;
  const unsigned char *src; /* LLVM IR to parse (NUL at src[src_size]); NULL: mod is set */
  size_t src_size;
  LLVMContextRef ctx;
  LLVMModuleRef mod;
  LLVMTargetMachineRef tm;
  strbuf diag; /* LLVM diagnostics of this job */
  int diag_errors; /* of error severity: the job fails, whatever LLVM returned */
  gpublob_blob out;
  gpublob_blob asm_out; /* a pack's newest chip keeps its assembly */
  int keep_asm;
  char tool[4096];      /* the blob program, found before any compile work */
  const char *tool_name; /* what makes the blob: program or provider name, "" */
  char provider_path[4096]; /* the provider's library when it is the one to use */
  const provider *prov;     /* loaded: the in-process provider in use */
  toolrun run;
  int state;
  double ms[NPHASES];
} job;

static const gpublob_options default_options = {.version = GPUBLOB_OPTIONS_VERSION};
#define OUTPUT_NEUTRAL_FLAGS ((unsigned)GPUBLOB_FLAG_ISOLATE)
enum { MAX_JOBS = 4096 }; /* in one call */

/* A caller's struct of an older version is read only as far as that version went;
** later fields read as zero.  Version 0 is version 1: a zeroed struct of the oldest
** layout means the defaults and is never read past its end. */
static size_t options_size(unsigned version) {
  static const size_t ends[] = {offsetof(gpublob_options, targets), offsetof(gpublob_options, targets),
                                offsetof(gpublob_options, jobs), offsetof(gpublob_options, tool_timeout),
                                sizeof(gpublob_options)};
  return version < sizeof ends / sizeof *ends ? ends[version] : sizeof(gpublob_options);
}

static void options_normalise(const gpublob_options *o, gpublob_options *out) {
  memset(out, 0, sizeof *out);
  if (!o) o = &default_options;
  memcpy(out, o, options_size(o->version));
  /* normalised once, read as this version's layout; a newer one stays for check_version */
  if (out->version < GPUBLOB_OPTIONS_VERSION) out->version = GPUBLOB_OPTIONS_VERSION;
}

static void job_begin(job *j, gpublob *g, const gpublob_options *o, const char *name) {
  memset(j, 0, sizeof *j);
  j->g = j->host = g;
  options_normalise(o, &j->opts);
  j->o = &j->opts;
  j->name = name ? name : "<memory>";
  j->run.p = (proc){0, -1, -1, -1};
  j->run.w.live = -1;
  g->code = GPUBLOB_OK;
  sb_reset(&g->msg);
}

static void job_release_llvm(job *j);

static void job_end(job *j) {
  job_release_llvm(j);
  sb_free(&j->features);
  sb_free(&j->condfeat);
  sb_free(&j->diag);
  sb_free(&j->sink.msg);
  sb_free(&j->sink.warn);
  gpublob_blob_free(&j->out);
  gpublob_blob_free(&j->asm_out);
}

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
  if (j->format < GPUBLOB_FORMAT_BIN || j->format > GPUBLOB_FORMAT_FATBIN)
    return set_error(j->g, GPUBLOB_FORMAT, "unknown output format %d", j->o->format);
  if (j->format == GPUBLOB_FORMAT_FATBIN && !*j->t->pack_tool)
    return set_error(j->g, GPUBLOB_FORMAT,
                     "target %s has no fatbin: the spec gives it no pack step (pack_tool)",
                     j->t->name);
  if (j->format == GPUBLOB_FORMAT_FATBIN) j->format = GPUBLOB_FORMAT_BIN; /* a pack's member */
  int opt = j->o->opt ? j->o->opt : GPUBLOB_OPT_O3;
  if (opt < GPUBLOB_OPT_O0 || opt > GPUBLOB_OPT_O3)
    return set_error(j->g, GPUBLOB_OPTION, "unknown optimisation level %d", j->o->opt);
  j->opt = opt - GPUBLOB_OPT_O0;
  if (j->o->flags & ~(unsigned)(GPUBLOB_FLAG_FTZ | GPUBLOB_FLAG_FAST_MATH | GPUBLOB_FLAG_NO_DEFAULT_SEARCH |
                                GPUBLOB_FLAG_MLIR_BYTECODE | GPUBLOB_FLAG_RETARGET | GPUBLOB_FLAG_ISOLATE))
    return set_error(j->g, GPUBLOB_OPTION, "unknown flags 0x%x", j->o->flags);
  if (j->o->tool_mode < GPUBLOB_TOOL_AUTO || j->o->tool_mode > GPUBLOB_TOOL_INPROCESS)
    return set_error(j->g, GPUBLOB_OPTION, "unknown tool mode %d", j->o->tool_mode);
  j->flags = j->o->flags;
  return GPUBLOB_OK;
}

static int check_version(gpublob *g, const gpublob_options *o) {
  if (o->version <= GPUBLOB_OPTIONS_VERSION) return GPUBLOB_OK;
  return set_error(g, GPUBLOB_OPTION, "options version %u is newer than this gpublob (%d)",
                   o->version, GPUBLOB_OPTIONS_VERSION);
}

/* The options of one job: a single target and chip, as the plan gave them. */
static int resolve_options(job *j) {
  if (check_version(j->g, j->o)) return j->g->code;
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
  if (word_is(c, n, "O0")) return j->opt == 0;
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

/* The first of names (blank-separated) found in the options' dirs, then roots. */
static int find_named(job *j, const char *names, const char *extra, const char *roots, int exec,
                      char *path, size_t size, search *s) {
  const char *w;
  size_t n;
  while ((w = next_word(&names, " ", &n))) {
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)n, w);
    if (search_file(j, s, extra, roots, name, exec)) {
      snprintf(path, size, "%s", s->found);
      return 1;
    }
  }
  return 0;
}

static const char *tried_list(const search *s) {
  return s->tried.len ? sb_str(&s->tried) : " nothing (no search directory)";
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
  int found = find_named(j, t->tool, j->o->tool_dirs, t->tool_search, 1, path, size, &s);
  if (!found)
    set_error(j->g, GPUBLOB_NOTOOL, "%s not found for target %s; tried:%s%s", t->tool, t->name,
              tried_list(&s), "\n  (-f asm stops before the blob tool)");
  sb_free(&s.tried);
  return found ? GPUBLOB_OK : GPUBLOB_NOTOOL;
}

/* The pack tool (fatbinary) is searched where the blob tool is. */
static int find_pack_tool(job *j, char *path, size_t size) {
  search s = {0};
  int found = find_named(j, j->t->pack_tool, j->o->tool_dirs, j->t->tool_search, 1, path, size, &s);
  if (!found)
    set_error(j->g, GPUBLOB_NOTOOL, "%s (the pack tool) not found for target %s; tried:%s",
              j->t->pack_tool, j->t->name, tried_list(&s));
  sb_free(&s.tried);
  return found ? GPUBLOB_OK : GPUBLOB_NOTOOL;
}

/* The provider's library, searched in the options' tool dirs, then the spec's. */
static int find_provider(job *j, char *path, size_t size, search *s) {
  return find_named(j, j->t->provider_lib, j->o->tool_dirs, j->t->provider_search, 0, path, size, s);
}

/* ---- the blob tool of a job: the spec's in-process provider, or its program ---- */
static int needs_blob_tool(const job *j) {
  return j->format == GPUBLOB_FORMAT_BIN && j->t->tool_kind == TOOL_exec;
}

/* Auto takes the provider for calls with at least provider_min jobs of the target:
** below that, the program's start overlaps the compile and costs less than
** loading the library. */
static int wants_provider(const job *j) {
  if (j->t->provider == PROVIDER_none || j->o->tool || j->o->tool_mode == GPUBLOB_TOOL_PROGRAM)
    return 0;
  return j->o->tool_mode == GPUBLOB_TOOL_INPROCESS || j->peers >= (size_t)j->t->provider_min;
}

static int provider_load(job *j);

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* The provider when wanted and found (and, with load, loaded), else the program.
** A missing blob tool fails the call before any compile work is spent. */
static int resolve_tool(job *j, int load) {
  j->tool_name = "";
  j->provider_path[0] = 0;
  if (!needs_blob_tool(j)) return GPUBLOB_OK;
  if (wants_provider(j)) {
    search s = {0};
    int found = find_provider(j, j->provider_path, sizeof j->provider_path, &s);
    if (!found && j->o->tool_mode == GPUBLOB_TOOL_INPROCESS)
      set_error(j->g, GPUBLOB_NOTOOL, "%s (in-process, %s) not found for target %s; tried:%s",
                j->t->provider_lib, j->t->provider_name, j->t->name, tried_list(&s));
    sb_free(&s.tried);
    if (!found && j->o->tool_mode == GPUBLOB_TOOL_INPROCESS) return GPUBLOB_NOTOOL;
    if (found && (!load || !provider_load(j))) {
      j->tool_name = j->t->provider_name;
      return GPUBLOB_OK;
    }
    if (found && j->o->tool_mode == GPUBLOB_TOOL_INPROCESS) return j->g->code;
    j->provider_path[0] = 0;
  }
  int rc = find_tool(j, j->tool, sizeof j->tool);
  if (!rc) j->tool_name = base_name(j->tool);
  return rc;
}

/* ---- the in-process providers: a library loaded once per process ---- */
/* nvJitLink's entry points, by their exported names (nvJitLink.h, CUDA 12 and 13). */
enum { NVJL_CREATE, NVJL_DESTROY, NVJL_ADD, NVJL_COMPLETE, NVJL_CUBIN_SIZE, NVJL_CUBIN,
       NVJL_ERRLOG_SIZE, NVJL_ERRLOG, NVJL_NSYMS };
static const char *const nvjitlink_symbols[] = {
    "nvJitLinkCreate",       "nvJitLinkDestroy",           "nvJitLinkAddData",
    "nvJitLinkComplete",     "nvJitLinkGetLinkedCubinSize", "nvJitLinkGetLinkedCubin",
    "nvJitLinkGetErrorLogSize", "nvJitLinkGetErrorLog"};

struct provider {
  char path[4096];
  void *dl;
  void *fn[NVJL_NSYMS];
  char error[512]; /* why it did not load; "" when loaded */
};

enum { MAX_PROVIDERS = 8 };
static provider providers[MAX_PROVIDERS];
static int nproviders;
static pthread_mutex_t providers_mu = PTHREAD_MUTEX_INITIALIZER;

static void provider_open(provider *p) {
  p->dl = dlopen(p->path, RTLD_NOW | RTLD_LOCAL);
  if (!p->dl) {
    snprintf(p->error, sizeof p->error, "%s", dlerror());
    return;
  }
  for (int i = 0; i < NVJL_NSYMS; i++)
    if (!(p->fn[i] = dlsym(p->dl, nvjitlink_symbols[i]))) {
      snprintf(p->error, sizeof p->error, "the library has no %s", nvjitlink_symbols[i]);
      return;
    }
}

/* The provider at path, opened on first use; a library is never closed. */
static const provider *provider_get(const char *path) {
  pthread_mutex_lock(&providers_mu);
  provider *p = NULL;
  for (int i = 0; i < nproviders && !p; i++)
    if (!strcmp(providers[i].path, path)) p = &providers[i];
  if (!p && nproviders < MAX_PROVIDERS) {
    p = &providers[nproviders++];
    snprintf(p->path, sizeof p->path, "%s", path);
    provider_open(p);
  }
  pthread_mutex_unlock(&providers_mu);
  return p;
}

/* Loads the found provider; auto falls back to the program with a warning. */
static int provider_load(job *j) {
  const provider *p = provider_get(j->provider_path);
  if (p && !p->error[0]) {
    j->prov = p;
    return GPUBLOB_OK;
  }
  const char *why = p ? p->error : "too many provider libraries";
  if (j->o->tool_mode == GPUBLOB_TOOL_INPROCESS)
    return set_error(j->g, GPUBLOB_NOTOOL, "%s (in-process, %s) did not load: %s", j->provider_path,
                     j->t->provider_name, why);
  add_warning(j->g, "%s did not load (%s): running %s instead", j->provider_path, why,
              j->t->tool);
  return GPUBLOB_NOTOOL;
}

/* ---- digests and the cache: entries named by what made them, written atomically ---- */
/* A call's manifest is filed under the hash of its input and options, and lists its
** jobs; the result is filed under that hash, the jobs' settings and the digests of
** every file they depend on (the blob tool or provider library, each device
** library, the pack tool).  A changed toolkit gives new digests, so it misses. */
typedef struct key128 {
  unsigned char b[16];
} key128;

typedef struct digest_seen { /* a file already digested in this call */
  char *path;
  key128 d;
  int ok;
} digest_seen;

typedef struct cache {
  char root[4200];          /* DIR/v1 */
  char dir[4096];           /* DIR, as given */
  int rootfd;               /* DIR/v1, opened: every file is reached from it */
  unsigned long long max;   /* bytes */
  int writable;             /* 0 once a write failed (warned once) */
  gpublob *g;               /* warnings and figures */
  digest_seen *seen;        /* each file once per call: jobs share tools and libraries */
  size_t nseen;
} cache;

typedef struct entry_header { /* every cache file starts so; 56 bytes */
  char magic[8];
  uint64_t size;            /* of the payload after it */
  unsigned char hash[16];   /* XXH3-128 of the payload */
  unsigned char key[16];    /* the file's own key */
  char kind, pad[7];        /* 'm' manifest, 'e' entry, 'd' file digest */
} entry_header;

#if defined(__has_attribute)
#if __has_attribute(nonstring)
#define GPUBLOB_NONSTRING __attribute__((nonstring))
#endif
#endif
#ifndef GPUBLOB_NONSTRING
#define GPUBLOB_NONSTRING
#endif
static const char cache_magic[8] GPUBLOB_NONSTRING = "GPBLOB\x01\n"; /* 8 bytes, no NUL */

static void hash_u64(XXH3_state_t *st, uint64_t v) { XXH3_128bits_update(st, &v, sizeof v); }

static void hash_bytes(XXH3_state_t *st, const void *p, size_t n) {
  hash_u64(st, n);
  XXH3_128bits_update(st, p, n);
}

static void hash_str(XXH3_state_t *st, const char *s) {
  hash_u64(st, s ? 1 : 0);
  if (s) hash_bytes(st, s, strlen(s));
}

static key128 hash_key(XXH3_state_t *st) {
  XXH128_canonical_t c;
  XXH128_canonicalFromHash(&c, XXH3_128bits_digest(st));
  key128 k;
  memcpy(k.b, c.digest, sizeof k.b);
  return k;
}

static key128 digest_of(const void *p, size_t n) {
  XXH128_canonical_t c;
  XXH128_canonicalFromHash(&c, XXH3_128bits(p, n));
  key128 k;
  memcpy(k.b, c.digest, sizeof k.b);
  return k;
}

/* The generated table itself is part of every key: a changed spec misses. */
static key128 spec_key;
static pthread_once_t spec_once = PTHREAD_ONCE_INIT;

static void spec_hash(void) {
  XXH3_state_t st;
  XXH3_128bits_reset(&st);
  for (int i = 0; i < NTARGETS; i++) {
    const target_desc *t = &targets[i];
    const char *const strs[] = {t->name, t->triple, t->chip, t->chip_prefix, t->chips, t->chip_features,
        t->features, t->feature_names, t->version_feature, t->feature_min,
        t->tool, t->tool_argv,
        t->tool_search, t->provider_name, t->provider_lib, t->provider_search, t->provider_argv,
        t->pack_tool, t->pack_argv, t->pack_image, t->pack_asm_image, t->suffix_pack, t->attribute,
        t->suffix_asm, t->suffix_bin, t->bin_magic, t->pack_magic, t->symbol_chars, t->libs,
        t->lib_search, t->module_flags, t->intrinsics, t->entry_cc, t->mlir_target, t->mlir_chip,
        t->mlir_lower, t->mlir_dialects, t->asm_parser};
    for (size_t k = 0; k < sizeof strs / sizeof *strs; k++) hash_str(&st, strs[k]);
    hash_u64(&st, (uint64_t)t->emit << 24 | (uint64_t)t->tool_kind << 16 | (uint64_t)t->tool_input << 8 |
                      (uint64_t)t->provider);
    hash_u64(&st, (uint64_t)t->provider_min);
  }
  spec_key = hash_key(&st);
}

/* ---- reading a descriptor whole, NUL-terminated (the IR parser needs the NUL) ---- */
/* At most max bytes: EFBIG past that. */
static int read_fd(int fd, unsigned char **data, size_t *size, size_t max) {
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
    if (r < 0 || (r > 0 && len + (size_t)r > max)) {
      int err = r < 0 ? errno : EFBIG;
      free(buf);
      errno = err;
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

/* ---- the cache: a directory of this user's alone, reached without links ---- */
/* The directory given is followed as the user named it; below it nothing is: every
** subdirectory and file is opened from its parent's descriptor with O_NOFOLLOW, and
** only regular files are read.  A directory that another user owns, or that others
** may write, is not used at all: its files could be anything. */
static int dir_trusted(int fd) {
  struct stat st;
  return !fstat(fd, &st) && S_ISDIR(st.st_mode) && st.st_uid == geteuid() && !(st.st_mode & 022);
}

static void cache_unwritable(cache *c, const char *what, int err) {
  if (!c->writable) return;
  c->writable = 0;
  add_warning(c->g, "cache directory %s cannot be written (%s: %s): nothing is stored", c->dir, what,
              strerror(err));
}

/* mkdir -p of the directory given, each one made 0700. */
static int make_dirs(const char *path) {
  char p[4400];
  snprintf(p, sizeof p, "%s", path);
  for (char *s = p + 1;; s++) {
    if (*s && *s != '/') continue;
    char end = *s;
    *s = 0;
    if (mkdir(p, 0700) && errno != EEXIST) return -1;
    if (!(*s = end)) break;
  }
  return 0;
}

/* DIR/NAME, made if it can be, opened without following a link; -1 if it is not
** a directory of this user's alone. */
static int open_subdir(cache *c, int dirfd, const char *name, const char *shown) {
  if (mkdirat(dirfd, name, 0700) && errno != EEXIST) cache_unwritable(c, shown, errno);
  int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0 && !dir_trusted(fd)) {
    add_warning(c->g, "cache directory %s is not used: %s is a link, another user's, or writable by "
                "others", c->dir, shown);
    close(fd);
    return -1;
  }
  return fd;
}

static void refuse_cache(cache *c, const char *why) {
  add_warning(c->g, "cache directory %s is not used: %s", c->dir, why);
  if (c->rootfd >= 0) close(c->rootfd);
  c->rootfd = -1;
}

static int cache_open(cache *c, gpublob *g, const gpublob_options *o) {
  memset(c, 0, sizeof *c);
  c->rootfd = -1;
  if (!o->cache_dir || !*o->cache_dir) return 0;
  snprintf(c->dir, sizeof c->dir, "%s", o->cache_dir);
  snprintf(c->root, sizeof c->root, "%s/v1", o->cache_dir);
  c->max = o->cache_max ? o->cache_max : 1ULL << 30;
  c->writable = 1;
  c->g = g;
  pthread_once(&spec_once, spec_hash);
  if (make_dirs(c->dir)) cache_unwritable(c, c->dir, errno);
  int top = open(c->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (top < 0) {
    refuse_cache(c, strerror(errno));
    return 0;
  }
  if (!dir_trusted(top)) {
    close(top);
    refuse_cache(c, "it is another user's, or others may write it");
    return 0;
  }
  c->rootfd = open_subdir(c, top, "v1", c->root);
  close(top);
  return 1; /* without DIR/v1 (a read-only directory) every lookup misses */
}

static void key_hex(const key128 *k, char hex[33]) {
  for (int i = 0; i < 16; i++) snprintf(hex + 2 * i, 3, "%02x", k->b[i]);
}

/* The file's subdirectory, opened (made when create), and its name in it. */
static int cache_place(cache *c, const key128 *k, char kind, char name[40], int create) {
  char hex[33], sub[3];
  key_hex(k, hex);
  snprintf(sub, sizeof sub, "%.2s", hex);
  snprintf(name, 40, "%s.%c", hex + 2, kind);
  if (!create) {
    int fd = openat(c->rootfd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0 && !dir_trusted(fd)) close(fd), fd = -1;
    return fd;
  }
  return open_subdir(c, c->rootfd, sub, c->root);
}

/* One write.  A reader that quit early shows in its own exit status, so SIGPIPE is
** blocked in this thread for the write and consumed, never raised.  The bytes
** written; 0 for "try again" (a non-blocking descriptor that is full); -1. */
static ssize_t write_some(int fd, const void *p, size_t n) {
  sigset_t pipe_set, old;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
  ssize_t w;
  while ((w = write(fd, p, n)) < 0 && errno == EINTR) {}
  int err = errno;
  if (w < 0 && err == EPIPE) sigtimedwait(&pipe_set, NULL, &(struct timespec){0, 0});
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return w >= 0 ? w : err == EAGAIN || err == EWOULDBLOCK ? 0 : -1;
}

/* All of data, on a blocking descriptor. */
static int write_all_fd(int fd, const void *data, size_t n) {
  const unsigned char *p = data;
  for (ssize_t w = 0; n; p += w, n -= (size_t)w)
    if ((w = write_some(fd, p, n)) <= 0) return -1;
  return 0;
}

static void cache_account(cache *c, long long delta);

/* A temporary file beside the final name, then rename: readers never see a part. */
static int cache_write(cache *c, const key128 *k, char kind, const strbuf *payload) {
  if (!c->writable || c->rootfd < 0) return -1;
  char name[40], tmp[64];
  int dirfd = cache_place(c, k, kind, name, 1);
  if (dirfd < 0) return -1;
  static atomic_uint counter;
  snprintf(tmp, sizeof tmp, ".tmp-%d-%u", (int)getpid(), atomic_fetch_add(&counter, 1));
  entry_header h = {.size = payload->len, .key = {0}, .kind = kind};
  memcpy(h.magic, cache_magic, sizeof h.magic);
  key128 d = digest_of(sb_str(payload), payload->len);
  memcpy(h.hash, d.b, sizeof h.hash);
  memcpy(h.key, k->b, sizeof h.key);
  int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  int err = errno;
  int rc = fd < 0 ? -1 : write_all_fd(fd, &h, sizeof h) | write_all_fd(fd, sb_str(payload), payload->len);
  if (fd >= 0) err = errno, rc |= close(fd);
  struct stat old; /* a file replaced counts only by what it grew */
  long long was = fstatat(dirfd, name, &old, AT_SYMLINK_NOFOLLOW) || !S_ISREG(old.st_mode) ? 0 : (long long)old.st_size;
  if (!rc && renameat(dirfd, tmp, dirfd, name)) rc = -1, err = errno;
  if (rc) unlinkat(dirfd, tmp, 0);
  close(dirfd);
  if (rc) {
    cache_unwritable(c, c->root, err);
    return -1;
  }
  cache_account(c, (long long)(sizeof h + payload->len) - was);
  return 0;
}

/* A cache file read whole (read, not mapped: a file cut short meanwhile cannot
** fault the process): its payload after the header. */
typedef struct mapped {
  unsigned char *map;
  size_t len;
  const unsigned char *data;
  size_t size;
} mapped;

static void unmap(mapped *m) {
  free(m->map);
  memset(m, 0, sizeof *m);
}

/* The file read, if it is a regular file (a link, a FIFO, a device: -2; none: -1). */
static int map_file(int dirfd, const char *name, mapped *m) {
  int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  if (fd < 0) return errno == ENOENT ? -1 : -2;
  int regular = !fstat(fd, &st) && S_ISREG(st.st_mode);
  if (regular && st.st_size > 0 && !read_fd(fd, &m->map, &m->len, (size_t)st.st_size))
    futimens(fd, NULL); /* used now: the last to be evicted */
  close(fd);
  return regular ? 0 : -2;
}

/* The payload of a valid file; a corrupt or truncated one, or anything that is not
** a regular file, is removed (from this directory only), never served. */
static int cache_read(cache *c, const key128 *k, char kind, mapped *m) {
  char name[40];
  memset(m, 0, sizeof *m);
  if (c->rootfd < 0) return -1;
  int dirfd = cache_place(c, k, kind, name, 0);
  if (dirfd < 0) return -1;
  int found = map_file(dirfd, name, m);
  entry_header h;
  int ok = !found && m->len >= sizeof h;
  if (ok) memcpy(&h, m->map, sizeof h);
  ok = ok && !memcmp(h.magic, cache_magic, sizeof h.magic) && h.kind == kind &&
       !memcmp(h.key, k->b, sizeof h.key) && h.size == m->len - sizeof h;
  m->data = ok ? (const unsigned char *)m->map + sizeof h : NULL;
  m->size = ok ? m->len - sizeof h : 0;
  key128 d = ok ? digest_of(m->data, m->size) : (key128){{0}};
  if (ok && !memcmp(d.b, h.hash, sizeof d.b)) return close(dirfd), 0;
  size_t len = m->len;
  unmap(m);
  if (found != -1 && !unlinkat(dirfd, name, 0) && len) cache_account(c, -(long long)len);
  close(dirfd);
  return -1;
}

/* ---- the cache: its size, kept under the limit by evicting the oldest files ---- */
typedef struct cfile { /* DIR/v1/sub/name */
  struct timespec mtime;
  unsigned long long size;
  char sub[3], name[40];
} cfile;

static int older(const void *a, const void *b) {
  const struct timespec *x = &((const cfile *)a)->mtime, *y = &((const cfile *)b)->mtime;
  return x->tv_sec != y->tv_sec ? (x->tv_sec < y->tv_sec ? -1 : 1)
                                : (x->tv_nsec < y->tv_nsec ? -1 : x->tv_nsec > y->tv_nsec);
}

static int all_hex(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i])) return 0;
  return 1;
}

/* The names the cache makes: 30 hex digits and .m .e .d, or a .tmp- of a writer. */
static int cache_name(const char *n) {
  size_t len = strlen(n);
  if (!strncmp(n, ".tmp-", 5)) return len < 40;
  return len == 32 && all_hex(n, 30) && n[30] == '.' && strchr("med", n[31]) && n[31];
}

static int add_cfile(cfile **out, size_t *n, size_t *cap, const char *sub, const char *name,
                     const struct stat *st) {
  if (*n == *cap) {
    cfile *more = realloc(*out, (*cap = *cap ? *cap * 2 : 256) * sizeof *more);
    if (!more) return -1;
    *out = more;
  }
  cfile *cf = &(*out)[(*n)++];
  cf->mtime = st->st_mtim;
  cf->size = (unsigned long long)st->st_size;
  snprintf(cf->sub, sizeof cf->sub, "%s", sub);
  snprintf(cf->name, sizeof cf->name, "%s", name);
  return 0;
}

/* The files of one subdirectory; temporaries older than an hour are a crash's and go. */
static void scan_sub(int subfd, const char *sub, cfile **out, size_t *n, size_t *cap) {
  DIR *d = fdopendir(subfd);
  if (!d) {
    close(subfd);
    return;
  }
  time_t now = time(NULL);
  struct dirent *f;
  while ((f = readdir(d))) {
    struct stat st;
    if (!cache_name(f->d_name) || fstatat(subfd, f->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
      continue;
    if (f->d_name[0] == '.') {
      if (now - st.st_mtime >= 3600) unlinkat(subfd, f->d_name, 0);
      continue;
    }
    if (add_cfile(out, n, cap, sub, f->d_name, &st)) break;
  }
  closedir(d);
}

/* Every file of the cache, in subdirectories of this user's alone. */
static size_t cache_scan(cache *c, cfile **out) {
  size_t n = 0, cap = 0;
  *out = NULL;
  int top = openat(c->rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC); /* its own offset */
  DIR *d = top >= 0 ? fdopendir(top) : NULL;
  struct dirent *e;
  while (d && (e = readdir(d))) {
    if (strlen(e->d_name) != 2 || !all_hex(e->d_name, 2)) continue;
    int sub = openat(c->rootfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub >= 0 && dir_trusted(sub)) scan_sub(sub, e->d_name, out, &n, &cap);
    else if (sub >= 0) close(sub);
  }
  if (d) closedir(d);
  else if (top >= 0) close(top);
  return n;
}

/* Removes the oldest files until the cache holds 80% of its limit; its new size. */
static unsigned long long cache_evict(cache *c) {
  cfile *files;
  size_t n = cache_scan(c, &files);
  unsigned long long total = 0;
  for (size_t i = 0; i < n; i++) total += files[i].size;
  qsort(files, n, sizeof *files, older);
  for (size_t i = 0; i < n && total > c->max / 10 * 8; i++) {
    int sub = openat(c->rootfd, files[i].sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub >= 0 && !unlinkat(sub, files[i].name, 0)) total -= files[i].size;
    if (sub >= 0) close(sub);
  }
  free(files);
  return total;
}

/* DIR/v1/size holds the bytes the cache holds, under an flock: any process adds to
** it, and the one that takes it over the limit evicts. */
/* The size file, opened; anything but a regular file there (a link, a FIFO) is
** removed and a new one made, so the cache's size stays accounted. */
static int open_size_file(cache *c) {
  for (int tries = 0; tries < 2; tries++) {
    int fd = openat(c->rootfd, "size", O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
    struct stat st;
    if (fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode)) return fd;
    if (fd >= 0) close(fd);
    if (unlinkat(c->rootfd, "size", 0) && unlinkat(c->rootfd, "size", AT_REMOVEDIR)) return -1;
  }
  return -1;
}

static void cache_account(cache *c, long long delta) {
  char text[32] = "";
  int fd = open_size_file(c);
  if (fd < 0 || flock(fd, LOCK_EX)) {
    if (fd >= 0) close(fd);
    return;
  }
  ssize_t r = pread(fd, text, sizeof text - 1, 0);
  unsigned long long total = r > 0 ? strtoull(text, NULL, 10) : 0;
  total = delta < 0 && (unsigned long long)-delta > total ? 0 : total + (unsigned long long)delta;
  if (total > c->max) total = cache_evict(c);
  int len = snprintf(text, sizeof text, "%llu\n", total);
  if (pwrite(fd, text, (size_t)len, 0) == len) (void)!ftruncate(fd, len);
  close(fd); /* and the lock with it */
}

/* ---- the cache: digests of the files a result depends on ---- */
/* A file's digest is remembered with its device, inode, size and times: a file that
** is written or replaced gets new ones (ctime cannot be set back), and is hashed again. */
static int digest_fd(int fd, key128 *out) {
  unsigned char buf[1 << 16];
  XXH3_state_t hs;
  XXH3_128bits_reset(&hs);
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (!n) break;
    XXH3_128bits_update(&hs, buf, (size_t)n);
  }
  *out = hash_key(&hs);
  return 0;
}

/* The file is opened once and its identity taken from that descriptor, so the
** digest and the identity it is remembered by describe the same file; it is read,
** not mapped, so a file cut short meanwhile cannot fault the process. */
static int file_digest(cache *c, const char *path, key128 *out) {
  struct stat st;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  if (fstat(fd, &st)) return close(fd), -1;
  uint64_t id[7] = {(uint64_t)st.st_dev, (uint64_t)st.st_ino, (uint64_t)st.st_size,
                    (uint64_t)st.st_mtim.tv_sec, (uint64_t)st.st_mtim.tv_nsec,
                    (uint64_t)st.st_ctim.tv_sec, (uint64_t)st.st_ctim.tv_nsec};
  XXH3_state_t hs;
  XXH3_128bits_reset(&hs);
  hash_str(&hs, "file digest");
  hash_str(&hs, path);
  key128 memo = hash_key(&hs);
  mapped m;
  if (!cache_read(c, &memo, 'd', &m)) {
    int same = m.size == sizeof id + sizeof out->b && !memcmp(m.data, id, sizeof id);
    if (same) memcpy(out->b, m.data + sizeof id, sizeof out->b);
    unmap(&m);
    if (same) return close(fd), 0;
  }
  int rc = digest_fd(fd, out);
  close(fd);
  if (rc) return -1;
  strbuf b = {0};
  sb_addn(&b, (const char *)id, sizeof id);
  sb_addn(&b, (const char *)out->b, sizeof out->b);
  if (!b.oom) cache_write(c, &memo, 'd', &b);
  sb_free(&b);
  return 0;
}

/* A file's digest, once per call however many jobs use the file. */
static int call_digest(cache *c, const char *path, key128 *d) {
  for (size_t i = 0; i < c->nseen; i++)
    if (!strcmp(c->seen[i].path, path)) return *d = c->seen[i].d, c->seen[i].ok ? 0 : -1;
  int rc = file_digest(c, path, d);
  char *copy = strdup(path);
  if (copy && !grow(&c->seen, c->nseen, sizeof *c->seen))
    c->seen[c->nseen++] = (digest_seen){copy, *d, !rc};
  else
    free(copy);
  return rc;
}

static void cache_close(cache *c) {
  if (c->rootfd >= 0) close(c->rootfd);
  c->rootfd = -1;
  for (size_t i = 0; i < c->nseen; i++) free(c->seen[i].path);
  free(c->seen);
  c->seen = NULL;
  c->nseen = 0;
}

static void hash_file(cache *c, XXH3_state_t *st, const char *path) {
  key128 d;
  hash_str(st, path);
  if (call_digest(c, path, &d)) hash_str(st, "unreadable");
  else hash_bytes(st, d.b, sizeof d.b);
}

/* Each device library the spec lists for the job: its digest, or that it is missing. */
static void hash_libs(cache *c, XXH3_state_t *st, job *j) {
  const char *list = j->t->libs, *w;
  size_t n;
  while ((w = next_word(&list, " ", &n))) {
    strbuf name = {0};
    expand(j, w, n, NULL, &name);
    search s = {0};
    if (search_file(j, &s, j->o->lib_dirs, j->t->lib_search, sb_str(&name), 0)) hash_file(c, st, s.found);
    else hash_str(st, sb_str(&name));
    sb_free(&name);
    sb_free(&s.tried);
  }
}

/* What a job's output depends on beyond the call's input and options. */
static void hash_job(cache *c, XXH3_state_t *st, job *j, const char *pack_tool) {
  hash_str(st, j->t->name);
  hash_str(st, j->chip);
  hash_str(st, sb_str(&j->features));
  hash_u64(st, (uint64_t)j->format << 32 | (uint64_t)j->opt << 16 | (j->flags & ~OUTPUT_NEUTRAL_FLAGS));
  hash_u64(st, (uint64_t)j->keep_asm);
  hash_str(st, j->tool_name);
  if (*j->provider_path) hash_file(c, st, j->provider_path);
  else if (needs_blob_tool(j)) hash_file(c, st, j->tool);
  hash_libs(c, st, j);
  if (pack_tool) hash_file(c, st, pack_tool);
}

/* The hash of a call's input and options: the manifest's key.  Isolation, the tool
** timeout and the input limit change no output byte: a call with or without them
** finds the same entry. */
static key128 call_key(const gpublob_options *o, int input, const void *data, size_t size,
                       const char *name) {
  XXH3_state_t st;
  XXH3_128bits_reset(&st);
  hash_str(&st, "gpublob cache 2");
  hash_str(&st, GPUBLOB_VERSION_STRING);
  hash_str(&st, LLVM_VERSION_STRING);
  hash_u64(&st, GPUBLOB_MLIR);
  hash_bytes(&st, spec_key.b, sizeof spec_key.b);
  hash_u64(&st, (uint64_t)input);
  hash_str(&st, name);
  hash_bytes(&st, data, size);
  const char *const strs[] = {o->target, o->chip, o->features, o->tool, o->tool_dirs, o->lib_dirs,
                              o->pipeline};
  for (size_t i = 0; i < sizeof strs / sizeof *strs; i++) hash_str(&st, strs[i]);
  hash_u64(&st, (uint64_t)o->format << 48 | (uint64_t)o->opt << 32 | (o->flags & ~OUTPUT_NEUTRAL_FLAGS));
  hash_u64(&st, (uint64_t)o->attach << 32 | (uint64_t)o->tool_mode);
  hash_u64(&st, o->ntargets);
  for (size_t i = 0; o->targets && i < o->ntargets; i++) {
    hash_str(&st, o->targets[i].target);
    hash_str(&st, o->targets[i].chip);
    hash_str(&st, o->targets[i].features);
  }
  return hash_key(&st);
}

/* ---- the cache: manifests (a call's jobs) and entries (its outputs) ---- */
typedef struct reader {
  const unsigned char *p, *end;
  int bad;
} reader;

static uint64_t get_u64(reader *r) {
  uint64_t v = 0;
  if (r->end - r->p < 8) r->bad = 1;
  else memcpy(&v, r->p, 8), r->p += 8;
  return v;
}

/* A string of the payload (NULL for a null one); its NUL is checked. */
static const char *get_str(reader *r) {
  uint64_t n = get_u64(r);
  if (r->bad || !n) return NULL;
  if ((uint64_t)(r->end - r->p) < n || r->p[n - 1]) {
    r->bad = 1;
    return NULL;
  }
  const char *s = (const char *)r->p;
  r->p += n;
  return s;
}

void gpublob_result_free(gpublob_result *r) {
  if (!r) return;
  for (size_t i = 0; i < r->count; i++) {
    gpublob_blob_free(&r->outputs[i].blob);
    free((char *)r->outputs[i].target);
    free((char *)r->outputs[i].chip);
    free((char *)r->outputs[i].tool);
  }
  free(r->outputs);
  memset(r, 0, sizeof *r);
}

/* Suffixes and target names in a result point at static storage. */
static const char *static_suffix(const char *s) {
  static const char *const fixed[] = {".bc", ".o", ".mlir", ".mlirbc"};
  for (size_t i = 0; s && i < sizeof fixed / sizeof *fixed; i++)
    if (!strcmp(s, fixed[i])) return fixed[i];
  for (int i = 0; s && i < NTARGETS; i++) {
    const char *const mine[] = {targets[i].suffix_asm, targets[i].suffix_bin, targets[i].suffix_pack};
    for (int k = 0; k < 3; k++)
      if (*mine[k] && !strcmp(s, mine[k])) return mine[k];
  }
  return NULL;
}

/* A blob put_blob wrote, its suffix mapped to static storage (NULL when unknown);
** 0 with none (a NULL suffix), -1 when the payload is cut short or memory is out. */
static int get_blob(reader *r, gpublob_blob *out) {
  const char *suffix = get_str(r);
  uint64_t n = get_u64(r);
  if (!r->bad && (uint64_t)(r->end - r->p) < n) r->bad = 1;
  if (r->bad) return -1;
  if (!suffix) return 0; /* none */
  if (!(out->data = malloc(n + 1))) {
    r->bad = 1;
    return -1;
  }
  memcpy(out->data, r->p, n);
  out->data[n] = 0;
  out->size = n;
  out->suffix = static_suffix(suffix);
  r->p += n;
  return 0;
}

/* Appends an output; its strings are copied into the result, "" for a NULL one. */
static int result_add(gpublob_result *r, const char *target, const char *chip, const char *tool,
                      gpublob_blob *blob) {
  if (grow(&r->outputs, r->count, sizeof *r->outputs)) return -1;
  gpublob_output *o = &r->outputs[r->count];
  memset(o, 0, sizeof *o);
  o->target = strdup(target ? target : "");
  o->chip = strdup(chip ? chip : "");
  o->tool = strdup(tool ? tool : "");
  if (!o->target || !o->chip || !o->tool) {
    free((char *)o->target);
    free((char *)o->chip);
    free((char *)o->tool);
    return -1;
  }
  o->blob = *blob;
  memset(blob, 0, sizeof *blob);
  r->count++;
  return 0;
}

/* Strings read back from a cache file are checked as a compile would make them:
** the file may be anyone's bytes. */
static int chips_valid(const target_desc *t, const char *chips) {
  if (!t) return !*chips; /* MLIR's whole module has none */
  const char *w;
  size_t n, count = 0;
  for (const char *p = chips; (w = next_word(&p, ",", &n)); count++) {
    char chip[64];
    if (n >= sizeof chip) return 0;
    snprintf(chip, sizeof chip, "%.*s", (int)n, w);
    if (!list_has(t->chips, chip)) return 0;
  }
  return count > 0 && !strstr(chips, ",,") && chips[0] != ',' && chips[strlen(chips) - 1] != ',';
}

static int tool_name_valid(const char *s) {
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && !strchr("._+-", *s)) return 0;
  return 1;
}

/* One output of an entry, or -1. */
static int entry_output(reader *r, gpublob_result *out) {
  const char *target = get_str(r), *chip = get_str(r), *tool = get_str(r);
  const target_desc *t = target && *target ? target_named(target, strlen(target)) : NULL;
  gpublob_blob b = {0};
  if (r->bad || !chip || !tool || (target && *target && !t) || !chips_valid(t, chip) || !tool_name_valid(tool) ||
      get_blob(r, &b) || !b.suffix || result_add(out, t ? t->name : "", chip, tool, &b)) {
    gpublob_blob_free(&b);
    return -1;
  }
  return 0;
}

/* An entry's outputs; one that holds none, or anything malformed, is a miss. */
static int entry_get(const unsigned char *p, size_t n, gpublob_result *out) {
  reader r = {p, p + n, 0};
  uint64_t count = get_u64(&r);
  for (uint64_t i = 0; !r.bad && i < count && i < MAX_JOBS; i++)
    if (entry_output(&r, out)) break;
  if (count && out->count == count && r.p == r.end) return 0;
  gpublob_result_free(out);
  return -1;
}

/* Resolves a manifest's jobs again, as a compile would, and digests what they use. */
static int manifest_key(cache *c, const key128 *k0, const gpublob_options *o, reader *r,
                        key128 *k1) {
  XXH3_state_t st;
  XXH3_128bits_reset(&st);
  hash_bytes(&st, k0->b, sizeof k0->b);
  uint64_t n = get_u64(r);
  int rc = r->bad || !n || n > MAX_JOBS; /* a manifest of no job is no call of gpublob's */
  gpublob sink = {0};
  for (uint64_t i = 0; !rc && i < n; i++) {
    const char *target = get_str(r), *chip = get_str(r), *features = get_str(r);
    gpublob_options jo = *o;
    jo.target = target;
    jo.chip = chip;
    jo.features = features;
    jo.opt = (int)get_u64(r);
    jo.format = (int)get_u64(r);
    jo.flags = (unsigned)get_u64(r);
    jo.targets = NULL;
    jo.ntargets = 0;
    uint64_t peers = get_u64(r), packed = get_u64(r), keep_asm = get_u64(r);
    uint64_t in_process = get_u64(r);
    if (r->bad || !target) {
      rc = -1;
      break;
    }
    if (!in_process && jo.tool_mode != GPUBLOB_TOOL_INPROCESS) /* as the compile ran it */
      jo.tool_mode = GPUBLOB_TOOL_PROGRAM;
    job j;
    job_begin(&j, &sink, &jo, "");
    j.peers = peers;
    char pack[4096];
    rc = resolve_options(&j) || (packed && find_pack_tool(&j, pack, sizeof pack));
    j.keep_asm = (int)keep_asm;
    if (!rc) rc = resolve_tool(&j, 0);
    if (!rc) hash_job(c, &st, &j, packed ? pack : NULL);
    job_end(&j);
  }
  sb_free(&sink.msg);
  sb_free(&sink.warn);
  if (rc || r->bad || r->p != r->end) return -1;
  *k1 = hash_key(&st);
  return 0;
}

/* A call's result from the cache, or -1: nothing is compiled here. */
static int cache_lookup(cache *c, const key128 *k0, const gpublob_options *o, gpublob_result *out) {
  mapped m, e;
  if (cache_read(c, k0, 'm', &m)) return -1;
  reader r = {m.data, m.data + m.size, 0};
  key128 k1;
  int rc = manifest_key(c, k0, o, &r, &k1);
  unmap(&m);
  if (rc || cache_read(c, &k1, 'e', &e)) return -1;
  rc = entry_get(e.data, e.size, out);
  unmap(&e);
  return rc;
}

#if GPUBLOB_COMPILER
/* ---- the cache: what a compile stores ---- */
static void put_u64(strbuf *b, uint64_t v) { sb_addn(b, (const char *)&v, sizeof v); }

static void put_str(strbuf *b, const char *s);
/* A blob: its suffix, its size, its bytes (cache entries, isolated results). */
static void put_blob(strbuf *b, const gpublob_blob *blob) {
  put_str(b, blob->suffix);
  put_u64(b, blob->size);
  sb_addn(b, (const char *)blob->data, blob->size);
}

static void put_str(strbuf *b, const char *s) {
  put_u64(b, s ? strlen(s) + 1 : 0);
  if (s) sb_addn(b, s, strlen(s) + 1);
}

/* One record per job: enough to resolve it again, and so to digest what it uses. */
static void manifest_put(strbuf *b, job *const *jobs, size_t n, const int *packed) {
  put_u64(b, n);
  for (size_t i = 0; i < n; i++) {
    const job *j = jobs[i];
    put_str(b, j->t->name);
    put_str(b, j->chip);
    put_str(b, j->opts.features);
    put_u64(b, (uint64_t)j->opts.opt);
    put_u64(b, (uint64_t)j->opts.format);
    put_u64(b, j->opts.flags);
    put_u64(b, j->peers);
    put_u64(b, (uint64_t)packed[i]);
    put_u64(b, (uint64_t)j->keep_asm);
    put_u64(b, (uint64_t)(*j->provider_path != 0)); /* in-process, or the program */
  }
}

/* The results: per output its target, chip, tool, suffix and bytes. */
static void entry_put(strbuf *b, const gpublob_result *r) {
  put_u64(b, r->count);
  for (size_t i = 0; i < r->count; i++) {
    const gpublob_output *o = &r->outputs[i];
    put_str(b, o->target);
    put_str(b, o->chip);
    put_str(b, o->tool);
    put_blob(b, &o->blob);
  }
}

/* After a compile: the manifest under k0, the outputs under k1, the key of what
** made them (taken before the compile, so a tool replaced meanwhile misses). */
static void cache_store(cache *c, const key128 *k0, const key128 *k1, job *const *jobs, size_t n,
                        const int *packed, const gpublob_result *res) {
  strbuf m = {0}, e = {0};
  manifest_put(&m, jobs, n, packed);
  entry_put(&e, res);
  if (!m.oom && !e.oom && !cache_write(c, k1, 'e', &e) && !cache_write(c, k0, 'm', &m))
    c->g->stats.cache_writes++;
  sb_free(&m);
  sb_free(&e);
}

/* ---- the call's plan: a job per (target, chip), an output per job or per pack ---- */
typedef struct slot { /* one output of the call */
  size_t first, count; /* its jobs: one, or a pack's members */
  int pack;
  char pack_tool[4096]; /* the pack tool, found before any compile work */
} slot;

typedef struct plan {
  gpublob *g;
  gpublob_options o; /* the caller's, normalised */
  const char *name;
  job **jobs;
  size_t njobs;
  slot *slots;
  size_t nslots;
  size_t failed; /* the job whose error is the call's */
  key128 entry_key; /* the cache's k1, once the jobs are resolved */
} plan;

static void plan_begin(plan *p, gpublob *g, const gpublob_options *o, const char *name) {
  memset(p, 0, sizeof *p);
  p->g = g;
  options_normalise(o, &p->o);
  p->name = name ? name : "<memory>";
}

static void plan_end(plan *p) {
  for (size_t i = 0; i < p->njobs; i++) {
    job_end(p->jobs[i]);
    free(p->jobs[i]);
  }
  free(p->jobs);
  free(p->slots);
  memset(p, 0, sizeof *p);
}

/* A job for target name (n bytes) and one chip (NULL: the target's default). */
static int plan_add_job(plan *p, const char *name, size_t n, const char *chip, size_t cn,
                        const char *features, int opt) {
  p->failed = p->njobs;
  if (p->njobs == MAX_JOBS) return set_error(p->g, GPUBLOB_OPTION, "more than %d jobs in one call", MAX_JOBS);
  job *j = malloc(sizeof *j);
  if (!j || grow(&p->jobs, p->njobs, sizeof *p->jobs)) {
    free(j);
    return set_error(p->g, GPUBLOB_NOMEM, "out of memory");
  }
  job_begin(j, p->g, &p->o, p->name);
  p->jobs[p->njobs++] = j;
  if (n >= sizeof j->target || (chip && cn >= sizeof j->chip))
    return set_error(p->g, n >= sizeof j->target ? GPUBLOB_TARGET : GPUBLOB_CHIP,
                     "target or chip name too long: '%.*s'", (int)(chip ? cn : n), chip ? chip : name);
  snprintf(j->target, sizeof j->target, "%.*s", (int)n, name);
  if (chip) snprintf(j->want, sizeof j->want, "%.*s", (int)cn, chip);
  j->opts.target = j->target;
  j->opts.chip = chip ? j->want : NULL;
  j->opts.features = features;
  j->opts.opt = opt;
  j->opts.targets = NULL;
  j->opts.ntargets = 0;
  return GPUBLOB_OK;
}

static int plan_add_slot(plan *p, size_t first, size_t count, int pack) {
  if (grow(&p->slots, p->nslots, sizeof *p->slots)) return set_error(p->g, GPUBLOB_NOMEM, "out of memory");
  slot *s = &p->slots[p->nslots++];
  memset(s, 0, sizeof *s);
  s->first = first;
  s->count = count;
  s->pack = pack;
  return GPUBLOB_OK;
}

/* "NAME[:CHIP[,CHIP...]]", or chips from the choice's chip field: a job per chip;
** one output per job, or one per choice when packing.  opt: the level for them. */
static int plan_choice(plan *p, const gpublob_target_choice *c, int opt) {
  const char *spec = c->target ? c->target : targets[0].name, *colon = strchr(spec, ':');
  size_t n = colon ? (size_t)(colon - spec) : strlen(spec), first = p->njobs;
  const char *chips = c->chip ? c->chip : colon ? colon + 1 : NULL, *w = chips;
  int rc = GPUBLOB_OK;
  if (!chips) rc = plan_add_job(p, spec, n, NULL, 0, c->features, opt);
  while (chips && !rc && *w) {
    const char *e = strchr(w, ',');
    size_t cn = e ? (size_t)(e - w) : strlen(w);
    if (!cn || (e && !e[1]))
      return set_error(p->g, GPUBLOB_CHIP, "empty chip in the list '%s'", chips);
    rc = plan_add_job(p, spec, n, w, cn, c->features, opt);
    w += cn + (e != NULL);
  }
  if (chips && !*chips) return set_error(p->g, GPUBLOB_CHIP, "empty chip list for target %.*s", (int)n, spec);
  int pack = p->o.format == GPUBLOB_FORMAT_FATBIN;
  for (size_t i = first; !rc && i < p->njobs; i += pack ? p->njobs - first : 1)
    rc = plan_add_slot(p, i, pack ? p->njobs - first : 1, pack);
  return rc;
}

/* The position of the job's chip in the spec's list: later is newer. */
static size_t chip_rank(const job *j) {
  const char *list = j->t->chips, *w;
  size_t n, i = 0;
  while ((w = next_word(&list, " ", &n))) {
    if (word_is(w, n, j->chip)) return i;
    i++;
  }
  return 0;
}

/* A pack's tool is found, and its newest chip keeps its assembly. */
static int plan_pack(plan *p, slot *s) {
  job *newest = p->jobs[s->first];
  for (size_t i = s->first; i < s->first + s->count; i++) {
    job *j = p->jobs[i];
    if (j->t != newest->t)
      return set_error(p->g, GPUBLOB_OPTION, "a pack holds one target, not %s and %s", newest->t->name,
                       j->t->name);
    if (chip_rank(j) > chip_rank(newest)) newest = j;
  }
  newest->keep_asm = *newest->t->pack_asm_image != 0;
  return find_pack_tool(newest, s->pack_tool, sizeof s->pack_tool);
}

/* Every job's options are checked and every tool found before any work: the
** first problem, in the plan's order, is the call's error. */
static int plan_resolve(plan *p, int load) {
  int rc = GPUBLOB_OK;
  for (p->failed = 0; !rc && p->failed < p->njobs; p->failed += !rc) rc = resolve_options(p->jobs[p->failed]);
  for (size_t i = 0; !rc && i < p->njobs; i++)
    for (size_t k = 0; k < p->njobs; k++) p->jobs[i]->peers += p->jobs[k]->t == p->jobs[i]->t;
  for (p->failed = 0; !rc && p->failed < p->njobs; p->failed += !rc) rc = resolve_tool(p->jobs[p->failed], load);
  for (size_t i = 0; !rc && i < p->nslots; i++)
    if (p->slots[i].pack && (rc = plan_pack(p, &p->slots[i]))) p->failed = p->slots[i].first;
  return rc;
}

/* The options' target list (or the single target) as jobs and outputs. */
static int plan_options(plan *p, int load) {
  if (check_version(p->g, &p->o)) return p->g->code;
  if (p->o.ntargets && !p->o.targets)
    return set_error(p->g, GPUBLOB_MISUSE, "ntargets is %zu but targets is NULL", p->o.ntargets);
  const gpublob_target_choice single = {p->o.target, p->o.chip, p->o.features};
  const gpublob_target_choice *list = p->o.ntargets ? p->o.targets : &single;
  size_t n = p->o.ntargets ? p->o.ntargets : 1;
  int rc = GPUBLOB_OK;
  for (size_t i = 0; !rc && i < n; i++) rc = plan_choice(p, &list[i], p->o.opt);
  return rc ? rc : plan_resolve(p, load);
}

/* ---- input: the file read whole, NUL-terminated for the IR parser ---- */
static unsigned long long max_input(const gpublob_options *o) {
  return o->max_input ? o->max_input : GPUBLOB_MAX_INPUT_DEFAULT;
}

static int too_big(gpublob *g, const char *name, const gpublob_options *o) {
  return set_error(g, GPUBLOB_IO, "'%s' is larger than the input limit of %llu bytes (--max-input, "
                   "max_input)", name, max_input(o));
}

static int read_input(gpublob *g, const gpublob_options *o, const char *path, unsigned char **data,
                      size_t *size) {
  int stdin_ = !strcmp(path, "-");
  int fd = stdin_ ? 0 : open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return set_error(g, GPUBLOB_IO, "cannot open '%s': %s", path, strerror(errno));
  unsigned long long max = max_input(o);
  int rc = read_fd(fd, data, size, max < SIZE_MAX ? (size_t)max : SIZE_MAX - 1);
  int err = errno;
  if (!stdin_) close(fd);
  if (rc && err == EFBIG) return too_big(g, path, o);
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
#define GPUBLOB_LLVM_ASM_PARSER(x) LLVMInitialize##x##AsmParser(); /* inline asm */
#include "gpublob_targets.def"
  /* The IR and bitcode readers upgrade debug info by verifying the module, and abort
  ** the process when it is broken; verify_module does that work instead. */
  const char *const argv[] = {"gpublob", "-disable-auto-upgrade-debug-info"};
  LLVMParseCommandLineOptions(2, argv, NULL);
}

/* An error is remembered: LLVM may go on after one and return success with a
** wrong module (a dynamic alloca compiled as address 0).  A warning is the call's. */
static void on_diagnostic(LLVMDiagnosticInfoRef di, void *ctx) {
  job *j = ctx;
  LLVMDiagnosticSeverity sev = LLVMGetDiagInfoSeverity(di);
  if (sev == LLVMDSRemark || sev == LLVMDSNote) return;
  char *text = LLVMGetDiagInfoDescription(di);
  sb_addf(&j->diag, "%s%s: %s", j->diag.len ? "\n" : "", sev == LLVMDSError ? "error" : "warning",
          text);
  if (sev == LLVMDSError) j->diag_errors++;
  else add_warning(j->g, "%s (%s:%s): LLVM: %.300s", j->name, j->t->name, j->chip, text);
  LLVMDisposeMessage(text);
}

/* A step LLVM called a success, failed if it reported an error on the way. */
static int diag_failed(job *j, const char *step) {
  if (!j->diag_errors) return GPUBLOB_OK;
  set_error(j->g, GPUBLOB_BACKEND, "%s: LLVM reported an error in %s for %s:%s", j->name, step,
            j->t->name, j->chip);
  add_detail(j->g, sb_str(&j->diag));
  return GPUBLOB_BACKEND;
}

static void tool_end(job *j);

/* The job's LLVM objects and a tool still running go; the job itself stays. */
static void job_release_llvm(job *j) {
  tool_end(j);
  double t = now_ms(); /* LLVM's own teardown: counted with loading, not as gpublob's */
  if (j->tm) LLVMDisposeTargetMachine(j->tm);
  if (j->mod) LLVMDisposeModule(j->mod);
  if (j->ctx) LLVMContextDispose(j->ctx);
  if (j->tm || j->mod || j->ctx) j->ms[PH_LOAD] += now_ms() - t;
  j->tm = NULL;
  j->mod = NULL;
  j->ctx = NULL;
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
  double t0 = now_ms();
  j->ctx = LLVMContextCreate();
  j->ms[PH_LOAD] += now_ms() - t0;
  LLVMContextSetDiagnosticHandler(j->ctx, on_diagnostic, j);
  LLVMMemoryBufferRef buf =
      LLVMCreateMemoryBufferWithMemoryRange((const char *)data, size, j->name, 1);
  char *err = NULL;
  double t = now_ms();
  LLVMBool failed = LLVMParseIRInContext2(j->ctx, buf, &j->mod, &err);
  j->ms[PH_LOAD] += now_ms() - t;
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

static int verify_text(job *j, char **err) {
  double t = now_ms();
  LLVMBool bad = LLVMVerifyModule(j->mod, LLVMReturnStatusAction, err);
  j->ms[PH_LOAD] += now_ms() - t;
  return bad;
}

/* LLVM's own upgrade of debug info (which aborts the process on a broken module)
** is turned off at initialisation; this does its work after verification: debug
** info of another version is dropped, and so is debug info that alone fails. */
static int verify_module(job *j) {
  char *err = NULL;
  int bad = verify_text(j, &err);
  if (bad && LLVMStripModuleDebugInfo(j->mod)) {
    char *again = NULL;
    if (!verify_text(j, &again)) {
      add_warning(j->g, "%s: its debug info is broken and was dropped: %.200s", j->name, err ? err : "");
      bad = 0;
    }
    LLVMDisposeMessage(again);
  }
  if (bad) {
    set_error(j->g, GPUBLOB_VERIFY, "%s: the module fails verification", j->name);
    add_detail(j->g, err ? err : "");
  }
  LLVMDisposeMessage(err);
  unsigned version = LLVMGetModuleDebugMetadataVersion(j->mod);
  if (!bad && version != LLVMDebugMetadataVersion() && LLVMStripModuleDebugInfo(j->mod))
    add_warning(j->g, "%s: debug info of version %u (this LLVM reads %u) was dropped", j->name, version,
                LLVMDebugMetadataVersion());
  return bad ? GPUBLOB_VERIFY : GPUBLOB_OK;
}

/* A call of another target's intrinsics would abort the backend: refuse it here.
** Besides the spec's targets, the namespaces of LLVM 22's CPU and other backends'
** intrinsics (IntrinsicsXXX.td's TargetPrefix): none of those can be selected. */
static const char llvm_intrinsic_namespaces[] =
    "aarch64 amdgcn arm bpf dx hexagon loongarch mips nvvm ppc r600 riscv s390 spv ve wasm x86 xcore";

static int intrinsic_namespace(const char *name, size_t n, char *ns, size_t size) {
  const char *dot = n > 5 ? memchr(name + 5, '.', n - 5) : NULL;
  if (!dot || (size_t)(dot - name - 5) >= size) return 0;
  snprintf(ns, size, "%.*s", (int)(dot - name - 5), name + 5);
  return 1;
}

static const target_desc *intrinsic_owner(const char *ns) {
  for (int i = 0; i < NTARGETS; i++)
    if (list_has(targets[i].intrinsics, ns)) return &targets[i];
  return NULL;
}

static int check_intrinsics(job *j) {
  for (LLVMValueRef f = LLVMGetFirstFunction(j->mod); f; f = LLVMGetNextFunction(f)) {
    size_t n;
    const char *name = LLVMGetValueName2(f, &n);
    char ns[64];
    if (!LLVMGetIntrinsicID(f) || !intrinsic_namespace(name, n, ns, sizeof ns) || list_has(j->t->intrinsics, ns))
      continue;
    const target_desc *owner = intrinsic_owner(ns);
    if (owner)
      return set_error(j->g, GPUBLOB_TARGET,
                       "%s: calls %s, an intrinsic of target %s, which target %s cannot compile",
                       j->name, name, owner->name, j->t->name);
    if (list_has(llvm_intrinsic_namespaces, ns))
      return set_error(j->g, GPUBLOB_TARGET,
                       "%s: calls %s, an intrinsic of LLVM's %s backend, which target %s cannot compile",
                       j->name, name, ns, j->t->name);
  }
  return GPUBLOB_OK;
}

/* ---- what the module asks of its target: triple, entry points, symbols ---- */
static size_t triple_arch(const char *triple) {
  const char *dash = strchr(triple, '-');
  return dash ? (size_t)(dash - triple) : strlen(triple);
}

static const target_desc *target_of_arch(const char *triple, size_t n) {
  for (int i = 0; i < NTARGETS; i++)
    if (triple_arch(targets[i].triple) == n && !strncmp(targets[i].triple, triple, n)) return &targets[i];
  return NULL;
}

/* A version of the spec's architecture: spirv64v1.5 for spirv64. */
static int is_subarch(const char *arch, size_t n, const char *spec, size_t sn) {
  if (n <= sn + 1 || strncmp(arch, spec, sn) || arch[sn] != 'v' || !isdigit((unsigned char)arch[sn + 1]))
    return 0;
  for (size_t i = sn + 1; i < n; i++)
    if (!isdigit((unsigned char)arch[i]) && arch[i] != '.') return 0;
  return 1;
}

/* A module made for another architecture (its triple's first part) is refused:
** its data layout, conventions and intrinsics are another backend's.  One for a
** version of the target's (clang -target spirv64v1.5) keeps its triple. */
static int check_triple(job *j) {
  const char *triple = LLVMGetTarget(j->mod);
  size_t n = triple_arch(triple), sn = triple_arch(j->t->triple);
  snprintf(j->triple, sizeof j->triple, "%s", j->t->triple);
  if (!*triple || (n == sn && !strncmp(triple, j->t->triple, n))) return GPUBLOB_OK;
  if (is_subarch(triple, n, j->t->triple, sn) && strlen(triple) < sizeof j->triple) {
    snprintf(j->triple, sizeof j->triple, "%s", triple);
    return GPUBLOB_OK;
  }
  const target_desc *owner = target_of_arch(triple, n);
  if (owner)
    return set_error(j->g, GPUBLOB_TARGET, "%s: the module is for target %s (triple %s), not %s; compile it "
                     "with -t %s", j->name, owner->name, triple, j->t->name, owner->name);
  return set_error(j->g, GPUBLOB_TARGET, "%s: triple %s is not a GPU target of the spec (target %s is %s)",
                   j->name, triple, j->t->name, j->t->triple);
}

static int cc_listed(const char *list, unsigned cc) {
  const char *w;
  size_t n;
  while ((w = next_word(&list, " ", &n)))
    if (strtoul(w, NULL, 10) == cc) return 1;
  return 0;
}

static int is_entry(const job *j, LLVMValueRef f) {
  return cc_listed(j->t->entry_cc, LLVMGetFunctionCallConv(f));
}

static int same_arch(const target_desc *a, const target_desc *b) {
  size_t n = triple_arch(a->triple);
  return n == triple_arch(b->triple) && !strncmp(a->triple, b->triple, n);
}

/* The target whose entry points use calling convention cc, when it is another
** backend's (two spec targets of one architecture share their conventions). */
static const target_desc *foreign_entry(const job *j, unsigned cc) {
  if (cc_listed(j->t->entry_cc, cc)) return NULL;
  for (int i = 0; i < NTARGETS; i++)
    if (!same_arch(&targets[i], j->t) && cc_listed(targets[i].entry_cc, cc)) return &targets[i];
  return NULL;
}

/* A kernel of another target would compile to a blob without it: refused.  A bin
** blob without any entry point is worth a warning: nothing in it can be launched. */
static int check_entries(job *j) {
  int entries = 0;
  LLVMValueRef odd = NULL; /* a definition of another convention than C's */
  for (LLVMValueRef f = LLVMGetFirstFunction(j->mod); f; f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f)) continue;
    unsigned cc = LLVMGetFunctionCallConv(f);
    const target_desc *owner = foreign_entry(j, cc);
    if (owner)
      return set_error(j->g, GPUBLOB_TARGET, "%s: @%s is a kernel of target %s (its calling convention), "
                       "which target %s has no entry point for", j->name, LLVMGetValueName2(f, &(size_t){0}),
                       owner->name, j->t->name);
    entries += is_entry(j, f);
    if (!odd && cc != LLVMCCallConv && cc != LLVMFastCallConv && cc != LLVMColdCallConv && !is_entry(j, f))
      odd = f;
  }
  if (!entries && j->format == GPUBLOB_FORMAT_BIN && *j->t->entry_cc) {
    strbuf why = {0};
    if (odd)
      sb_addf(&why, "; @%s has calling convention %u, not an entry point's, so it is dropped as an internal "
              "function", LLVMGetValueName2(odd, &(size_t){0}), LLVMGetFunctionCallConv(odd));
    add_warning(j->g, "%s: no kernel for %s (no function has its entry calling convention), so the %s "
                "blob holds no code%s", j->name, j->t->name, j->t->suffix_bin, sb_str(&why));
    sb_free(&why);
  }
  return GPUBLOB_OK;
}

/* Does c fall in a set like "A-Za-z0-9_$"? */
static int in_char_set(const char *set, char c) {
  for (const char *p = set; *p; p++) {
    if (p[1] == '-' && p[2]) {
      if (c >= p[0] && c <= p[2]) return 1;
      p += 2;
    } else if (*p == c) {
      return 1;
    }
  }
  return 0;
}

/* A public symbol the target's assembler cannot name aborts its backend. */
static int check_symbol(job *j, LLVMValueRef v) {
  LLVMLinkage l = LLVMGetLinkage(v);
  size_t n;
  const char *name = LLVMGetValueName2(v, &n);
  if (l == LLVMInternalLinkage || l == LLVMPrivateLinkage || l == LLVMAppendingLinkage || !n) return GPUBLOB_OK;
  if (n > 5 && !strncmp(name, "llvm.", 5)) return GPUBLOB_OK; /* llvm.used, intrinsics: never emitted */
  for (size_t i = 0; i < n; i++)
    if (!in_char_set(j->t->symbol_chars, name[i]))
      return set_error(j->g, GPUBLOB_VERIFY, "%s: public symbol '%s' holds '%c', which target %s cannot "
                       "name (allowed: %s); rename it or make it internal", j->name, name, name[i],
                       j->t->name, j->t->symbol_chars);
  return GPUBLOB_OK;
}

static int check_symbols(job *j) {
  if (!*j->t->symbol_chars) return GPUBLOB_OK;
  int rc = GPUBLOB_OK;
  for (LLVMValueRef f = LLVMGetFirstFunction(j->mod); f && !rc; f = LLVMGetNextFunction(f)) rc = check_symbol(j, f);
  for (LLVMValueRef g = LLVMGetFirstGlobal(j->mod); g && !rc; g = LLVMGetNextGlobal(g)) rc = check_symbol(j, g);
  for (LLVMValueRef a = LLVMGetFirstGlobalAlias(j->mod); a && !rc; a = LLVMGetNextGlobalAlias(a)) rc = check_symbol(j, a);
  return rc;
}

/* ---- pins: the chip and features clang writes on every function ---- */
/* A function's string attribute, or NULL. */
static const char *fn_attr(LLVMValueRef f, const char *key, unsigned *len) {
  LLVMAttributeRef a = LLVMGetStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, key, (unsigned)strlen(key));
  return a ? LLVMGetStringAttributeValue(a, len) : NULL;
}

/* Whether a pinned feature contradicts the job's chip, and why (into why): another
** chip of the target (+sm_90 for sm_80), the opposite of what the chip implies
** (+wavefrontsize32 on gfx9), or a version the chip does not support (+ptx78 on
** sm_100a). */
static int feature_contradicts(const job *j, const char *w, size_t n, strbuf *why) {
  if (n < 2) return 0;
  char name[128], min[32];
  snprintf(name, sizeof name, "%.*s", (int)(n - 1), w + 1);
  if (w[0] == '+' && list_has(j->t->chips, name) && strcmp(name, j->chip)) {
    sb_addf(why, "feature %.*s is chip %s", (int)n, w, name);
    return 1;
  }
  const char *implied = sb_str(&j->condfeat), *u;
  size_t m;
  while ((u = next_word(&implied, ",", &m)))
    if (m == n && u[0] != w[0] && !strncmp(u + 1, w + 1, n - 1)) {
      sb_addf(why, "feature %.*s, where %s implies %.*s", (int)n, w, j->chip, (int)m, u);
      return 1;
    }
  size_t p = strlen(j->t->version_feature);
  if (p && w[0] == '+' && n > p + 1 && !strncmp(w + 1, j->t->version_feature, p) &&
      pair_value(j->t->feature_min, j->chip, min, sizeof min) &&
      strtol(w + 1 + p, NULL, 10) < strtol(min + p, NULL, 10)) {
    sb_addf(why, "feature %.*s, below the +%s that %s needs", (int)n, w, min, j->chip);
    return 1;
  }
  return 0;
}

static int pin_error(job *j, LLVMValueRef f, const char *what) {
  return set_error(j->g, GPUBLOB_CHIP, "%s: function @%s is pinned to another chip (%s), but this job "
                   "compiles for %s:%s; compile the source for %s, or pass --retarget "
                   "(GPUBLOB_FLAG_RETARGET) to rewrite the pins", j->name, LLVMGetValueName2(f, &(size_t){0}),
                   what, j->t->name, j->chip, j->chip);
}

static int check_pin(job *j, LLVMValueRef f) {
  unsigned len;
  const char *cpu = fn_attr(f, "target-cpu", &len);
  strbuf why = {0};
  int rc = GPUBLOB_OK;
  if (cpu && (len != strlen(j->chip) || strncmp(cpu, j->chip, len))) {
    sb_addf(&why, "\"target-cpu\"=\"%.*s\"", (int)len, cpu);
    rc = pin_error(j, f, sb_str(&why));
  }
  const char *feats = rc ? NULL : fn_attr(f, "target-features", &len), *w;
  strbuf list = {0};
  if (feats) sb_addn(&list, feats, len);
  const char *p = sb_str(&list);
  size_t n;
  while (!rc && feats && (w = next_word(&p, ",", &n)))
    if (feature_contradicts(j, w, n, &why)) rc = pin_error(j, f, sb_str(&why));
  sb_free(&why);
  sb_free(&list);
  return rc;
}

/* --retarget: every definition's pins become the job's chip and features. */
static int retarget(job *j) {
  size_t count = 0;
  const char *feats = sb_str(&j->features);
  for (LLVMValueRef f = LLVMGetFirstFunction(j->mod); f; f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f)) continue;
    unsigned len;
    if (!fn_attr(f, "target-cpu", &len) && !fn_attr(f, "target-features", &len)) continue;
    LLVMAddTargetDependentFunctionAttr(f, "target-cpu", j->chip);
    LLVMRemoveStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, "target-features", 15);
    if (*feats) LLVMAddTargetDependentFunctionAttr(f, "target-features", feats);
    count++;
  }
  if (count)
    add_warning(j->g, "--retarget: the functions clang pinned to a chip were compiled for each job's own "
                "chip and features");
  return GPUBLOB_OK;
}

static int check_pins(job *j) {
  if (j->flags & GPUBLOB_FLAG_RETARGET) return retarget(j);
  int rc = GPUBLOB_OK;
  for (LLVMValueRef f = LLVMGetFirstFunction(j->mod); f && !rc; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f)) rc = check_pin(j, f);
  return rc;
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
  if (LLVMGetTargetFromTriple(j->triple, &target, &err)) {
    set_error(j->g, GPUBLOB_TARGET, "this LLVM has no backend for %s (%s)", j->triple, err ? err : "");
    LLVMDisposeMessage(err);
    return GPUBLOB_TARGET;
  }
  double t = now_ms(); /* the code generator's set-up: counted with emission */
  j->tm = LLVMCreateTargetMachine(target, j->triple, j->chip, sb_str(&j->features),
                                  codegen_level(j->opt), LLVMRelocDefault, LLVMCodeModelDefault);
  j->ms[PH_EMIT] += now_ms() - t;
  if (!j->tm)
    return set_error(j->g, GPUBLOB_TARGET, "cannot create a target machine for %s", j->triple);
  LLVMSetTarget(j->mod, j->triple);
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
  double t = now_ms();
  LLVMBool failed = LLVMGetBitcodeModuleInContext2(j->ctx, buf, out);
  j->ms[PH_LINK] += now_ms() - t;
  if (failed) {
    LLVMDisposeMemoryBuffer(buf); /* owned by the module only on success */
    set_error(j->g, GPUBLOB_LINK, "cannot read device library %s", l->path);
    add_detail(j->g, sb_str(&j->diag));
    return GPUBLOB_LINK;
  }
  LLVMSetTarget(*out, j->triple);
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
  double t = now_ms();
  LLVMBool failed = LLVMLinkModules2(j->mod, lib);
  j->ms[PH_LINK] += now_ms() - t;
  if (failed) {
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

/* Internal linkage needs default visibility, and leaves any comdat. */
static void make_internal(LLVMValueRef v) {
  LLVMSetLinkage(v, LLVMInternalLinkage);
  LLVMSetVisibility(v, LLVMDefaultVisibility);
  LLVMSetComdat(v, NULL);
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
      if (!kept) make_internal(x);
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

/* ---- whole program: a blob keeps its entry points, the optimiser drops the rest ---- */
/* A cubin or hsaco is whole-program: nothing but its kernels can be called from
** outside (ptxas drops every function no kernel reaches).  So for bin, functions
** that are not entries (the spec's entry_cc) become internal before optimisation,
** and those no entry reaches are not optimised and compiled for nothing.
** Global variables stay visible: the driver can look them up. */
static void keep_entries(job *j) {
  if (j->format != GPUBLOB_FORMAT_BIN || !*j->t->entry_cc) return;
  for (LLVMValueRef f = LLVMGetFirstFunction(j->mod); f; f = LLVMGetNextFunction(f)) {
    LLVMLinkage l = LLVMGetLinkage(f);
    if (!LLVMIsDeclaration(f) && l != LLVMInternalLinkage && l != LLVMPrivateLinkage && !is_entry(j, f))
      make_internal(f);
  }
}

/* ---- optimisation with the new pass manager ---- */
static int optimise(job *j) {
  char passes[32];
  snprintf(passes, sizeof passes, "default<O%d>", j->opt);
  LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
  double t = now_ms();
  LLVMErrorRef err = LLVMRunPasses(j->mod, passes, j->tm, po);
  j->ms[PH_OPT] += now_ms() - t;
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
  j->out.data = malloc(n + 1); /* NUL-terminated: PTX goes on to nvJitLink as text */
  if (!j->out.data) {
    LLVMDisposeMemoryBuffer(buf);
    return set_error(j->g, GPUBLOB_NOMEM, "out of memory (%zu bytes)", n);
  }
  memcpy(j->out.data, LLVMGetBufferStart(buf), n);
  j->out.data[n] = 0;
  j->out.size = n;
  j->out.suffix = suffix;
  LLVMDisposeMemoryBuffer(buf);
  return GPUBLOB_OK;
}

static int emit(job *j, int assembly) {
  LLVMMemoryBufferRef buf = NULL;
  char *err = NULL;
  sb_reset(&j->diag);
  double t = now_ms();
  LLVMBool failed = LLVMTargetMachineEmitToMemoryBuffer(
      j->tm, j->mod, assembly ? LLVMAssemblyFile : LLVMObjectFile, &err, &buf);
  j->ms[PH_EMIT] += now_ms() - t;
  if (failed) {
    set_error(j->g, GPUBLOB_BACKEND, "%s backend (%s) failed: %s", j->t->name, j->chip,
              err ? err : "");
    add_detail(j->g, sb_str(&j->diag));
    LLVMDisposeMessage(err);
    return GPUBLOB_BACKEND;
  }
  return take_buffer(j, buf, assembly ? j->t->suffix_asm : ".o");
}

static int emit_bitcode(job *j) {
  double t = now_ms();
  LLVMMemoryBufferRef buf = LLVMWriteBitcodeToMemoryBuffer(j->mod);
  j->ms[PH_EMIT] += now_ms() - t;
  return take_buffer(j, buf, ".bc");
}

/* ---- the blob tool: spawned with an argv in a private directory, output kept ---- */
static int write_file(const char *path, const void *data, size_t n) {
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  int rc = write_all_fd(fd, data, n), err = errno;
  if (close(fd) && !rc) rc = -1, err = errno;
  errno = err;
  return rc;
}

static int make_workdir(job *j, workdir *w) {
  const char *tmp = getenv("TMPDIR");
  snprintf(w->dir, sizeof w->dir, "%s/gpublob-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(w->dir))
    return set_error(j->g, GPUBLOB_IO, "cannot make a temporary directory %s: %s", w->dir,
                     strerror(errno));
  w->live = live_dir_add(w->dir);
  snprintf(w->out, sizeof w->out, "%s/out%s", w->dir, j->t->suffix_bin);
  const char *suffix = j->t->emit == EMIT_asm ? j->t->suffix_asm : ".o";
  if (j->t->tool_input == INPUT_stdin) snprintf(w->in, sizeof w->in, "-");
  else if (j->t->tool_input == INPUT_pipe) snprintf(w->in, sizeof w->in, "/dev/fd/3");
  else snprintf(w->in, sizeof w->in, "%s/in%s", w->dir, suffix);
  return GPUBLOB_OK;
}

static void workdir_remove(workdir *w) {
  live_dir_remove(w->live);
  w->live = -1;
  remove_tree(w->dir);
}

/* An argv template expanded and split on blanks (no shell); {images} stands for
** words that images() adds.  The strings live in store. */
typedef void (*word_adder)(void *arg, strbuf *store, size_t *count);

static char **expand_argv(const job *j, const char *tmpl, const char **vars, word_adder images, void *arg,
                          strbuf *store) {
  const char *w;
  size_t n, count = 0;
  while ((w = next_word(&tmpl, " ", &n))) {
    if (images && word_is(w, n, "{images}")) {
      images(arg, store, &count);
      continue;
    }
    expand(j, w, n, vars, store);
    sb_addn(store, "", 1); /* the NUL itself separates the words */
    count++;
  }
  char **argv = store->oom ? NULL : calloc(count + 1, sizeof *argv);
  char *p = store->s;
  for (size_t i = 0; argv && i < count; i++, p += strlen(p) + 1) argv[i] = p;
  return argv;
}

static char **build_argv(job *j, const char *tool, const workdir *w, strbuf *store) {
  const char *vars[] = {"tool", tool, "in", w->in, "out", w->out, NULL};
  return expand_argv(j, j->t->tool_argv, vars, NULL, NULL, store);
}

/* ---- processes: one spawn and one wait for every tool ---- */
/* A tool runs in a process group of its own, in its job's private directory's
** TMPDIR (ptxas leaves tmpxft_* files there when it is killed), with no descriptor
** of this process but its channels, and no blocked signal.  gpublob waits for its
** exit, not for EOF (a child it left may hold its output open), for at most the
** timeout, and then kills what is left of its group. */
enum proc_input { PROC_NONE, PROC_STDIN, PROC_PIPE3 };

static void spawn_attr(posix_spawnattr_t *a) {
  sigset_t none, dflt;
  sigemptyset(&none);
  sigemptyset(&dflt);
  for (int sig = 1; sig < NSIG; sig++)
    if (sig != SIGKILL && sig != SIGSTOP) sigaddset(&dflt, sig);
  posix_spawnattr_init(a);
  posix_spawnattr_setsigmask(a, &none);
  posix_spawnattr_setsigdefault(a, &dflt);
  posix_spawnattr_setpgroup(a, 0);
  posix_spawnattr_setflags(a, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
}

/* environ with TMPDIR set to tmpdir; the array is malloc'd, the strings are not. */
static char **tool_environ(const char *tmpdir, strbuf *store) {
  size_t n = 0;
  while (environ[n]) n++;
  char **env = calloc(n + 2, sizeof *env);
  sb_addf(store, "TMPDIR=%s", tmpdir);
  if (!env || store->oom) {
    free(env);
    return NULL;
  }
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (strncmp(environ[i], "TMPDIR=", 7)) env[k++] = environ[i];
  env[k] = store->s;
  return env;
}

static void spawn_files(posix_spawn_file_actions_t *fa, enum proc_input mode, int in, int out) {
  posix_spawn_file_actions_init(fa);
  if (mode == PROC_STDIN) posix_spawn_file_actions_adddup2(fa, in, 0);
  else posix_spawn_file_actions_addopen(fa, 0, "/dev/null", O_RDONLY, 0);
  if (mode == PROC_PIPE3) posix_spawn_file_actions_adddup2(fa, in, 3);
  posix_spawn_file_actions_adddup2(fa, out, 1);
  posix_spawn_file_actions_adddup2(fa, out, 2);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
  posix_spawn_file_actions_addclosefrom_np(fa, mode == PROC_PIPE3 ? 4 : 3); /* a host's leaked fds */
#endif
}

/* The input channel: a socket as stdin, or a pipe read as /dev/fd/3 (a socket
** cannot be opened there).  fds[0] is this end, fds[1] the tool's. */
static int open_channel(enum proc_input mode, int fds[2]) {
  if (mode == PROC_STDIN) return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds);
  int p[2];
  if (pipe2(p, O_CLOEXEC)) return -1;
  fds[0] = p[1];
  fds[1] = p[0];
  return 0;
}

/* 0, or an errno value. */
static int proc_spawn(proc *p, char **argv, enum proc_input mode, const char *tmpdir) {
  int in[2] = {-1, -1}, out[2];
  *p = (proc){0, -1, -1, -1};
  if (mode != PROC_NONE && open_channel(mode, in)) return errno;
  if (pipe2(out, O_CLOEXEC)) {
    int err = errno;
    if (in[0] >= 0) close(in[0]), close(in[1]);
    return err;
  }
  strbuf envs = {0};
  char **env = tool_environ(tmpdir, &envs);
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t attr;
  spawn_files(&fa, mode, in[1], out[1]);
  spawn_attr(&attr);
  int rc = env ? posix_spawn(&p->pid, argv[0], &fa, &attr, argv, env) : ENOMEM;
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&fa);
  free(env);
  sb_free(&envs);
  close(out[1]);
  if (in[1] >= 0) close(in[1]);
  p->in_fd = in[0];
  p->out_fd = out[0];
  if (rc) p->pid = 0;
  else p->live = live_pid_add(p->pid);
  return rc;
}

/* Kills what is left of its group, closes the channels. */
static void proc_end(proc *p) {
  if (p->pid > 0) kill(-p->pid, SIGKILL);
  live_pid_remove(p->live); /* before the pid is reaped and free for reuse */
  if (p->pid > 0)
    while (waitpid(p->pid, NULL, 0) < 0 && errno == EINTR) {}
  if (p->in_fd >= 0) close(p->in_fd);
  if (p->out_fd >= 0) close(p->out_fd);
  *p = (proc){0, -1, -1, -1};
}

static int pidfd_of(pid_t pid) {
#ifdef SYS_pidfd_open
  return (int)syscall(SYS_pidfd_open, pid, 0);
#else
  (void)pid;
  return -1;
#endif
}

typedef struct proc_wait_state {
  const unsigned char *in; /* what is left of its input */
  size_t in_left;
  strbuf *output;          /* its stdout and stderr, the first 64 KiB */
} proc_wait_state;

/* One round of poll: input written, output read, as each is ready. */
static void proc_io(proc *p, proc_wait_state *w, int pidfd, int ms) {
  struct pollfd fds[3];
  nfds_t n = 0;
  int out_i = -1, in_i = -1;
  if (p->out_fd >= 0) out_i = (int)n, fds[n++] = (struct pollfd){p->out_fd, POLLIN, 0};
  if (p->in_fd >= 0) in_i = (int)n, fds[n++] = (struct pollfd){p->in_fd, POLLOUT, 0};
  if (pidfd >= 0) fds[n++] = (struct pollfd){pidfd, POLLIN, 0};
  if (poll(fds, n, ms) <= 0) return;
  if (out_i >= 0 && fds[out_i].revents) {
    char buf[16384];
    ssize_t r = read(p->out_fd, buf, sizeof buf);
    if (r > 0 && w->output->len < 65536) sb_addn(w->output, buf, (size_t)r);
    if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN)) close(p->out_fd), p->out_fd = -1;
  }
  if (in_i >= 0 && fds[in_i].revents) {
    ssize_t put = fds[in_i].revents & (POLLERR | POLLHUP) ? -1 : write_some(p->in_fd, w->in, w->in_left);
    size_t done = put < 0 ? w->in_left : (size_t)put;
    w->in += done;
    w->in_left -= done;
    if (!w->in_left) close(p->in_fd), p->in_fd = -1; /* EOF for the tool */
  }
}

/* Reads what is already there without waiting: a child of the tool may hold it open. */
static void drain(int fd, strbuf *output) {
  if (fd < 0) return;
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  char buf[16384];
  ssize_t r;
  while (output->len < 65536 && ((r = read(fd, buf, sizeof buf)) > 0 || (r < 0 && errno == EINTR)))
    if (r > 0) sb_addn(output, buf, (size_t)r);
}

enum { WAIT_EXITED, WAIT_TIMEOUT, WAIT_LOST };

/* Whether the process has exited, without reaping it: while it is a zombie its pid
** (its group's id) cannot be reused, so its group can still be killed safely. */
static int proc_exited(pid_t pid) {
  siginfo_t info;
  memset(&info, 0, sizeof info);
  if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT)) return errno == EINTR ? 0 : -1;
  return info.si_pid == pid;
}

/* Feeds input, keeps output, until the process exits or timeout_ms pass.  Once it
** has exited, what is left of its group is killed, then it is reaped. */
static int proc_wait(proc *p, const void *input, size_t n, double timeout_ms, strbuf *output, int *status) {
  proc_wait_state w = {input, n, output};
  if (p->in_fd >= 0 && !n) close(p->in_fd), p->in_fd = -1;
  if (p->in_fd >= 0) fcntl(p->in_fd, F_SETFL, fcntl(p->in_fd, F_GETFL) | O_NONBLOCK);
  int pidfd = pidfd_of(p->pid), result = WAIT_TIMEOUT, exited = 0;
  double end = now_ms() + timeout_ms;
  for (double left; !exited && (left = end - now_ms()) > 0;) {
    int ms = left > 1e8 ? 100000000 : left < 1 ? 1 : (int)left;
    proc_io(p, &w, pidfd, pidfd >= 0 ? ms : 10);
    exited = proc_exited(p->pid);
  }
  if (pidfd >= 0) close(pidfd);
  if (exited) live_pid_remove(p->live), p->live = -1; /* before the pid is free for reuse */
  if (exited > 0) {
    kill(-p->pid, SIGKILL); /* a child it left: it may hold the output open */
    drain(p->out_fd, output);
    while (waitpid(p->pid, status, 0) < 0 && errno == EINTR) {}
    result = WAIT_EXITED;
  } else if (exited < 0) {
    result = WAIT_LOST; /* someone else reaped it (a host with SIGCHLD ignored) */
  }
  if (result != WAIT_TIMEOUT) p->pid = 0;
  return result;
}

static double tool_timeout_ms(const job *j) {
  return 1000.0 * (j->o->tool_timeout ? j->o->tool_timeout : GPUBLOB_TOOL_TIMEOUT_DEFAULT);
}

/* The outcome of a wait as the job's error, or OK for a clean exit. */
static int tool_outcome(job *j, const char *tool, int waited, int status, const strbuf *output) {
  if (waited == WAIT_TIMEOUT) {
    set_error(j->g, GPUBLOB_TOOL, "%s for %s:%s did not finish within %.0f s (the tool timeout, "
              "--tool-timeout): killed with its process group", tool, j->t->name, j->chip,
              tool_timeout_ms(j) / 1000);
    add_detail(j->g, sb_str(output));
    return GPUBLOB_TOOL;
  }
  if (waited == WAIT_LOST)
    return set_error(j->g, GPUBLOB_TOOL, "lost the exit status of %s (%s): does the program reap child "
                     "processes?", tool, strerror(ECHILD));
  if (!status) return GPUBLOB_OK;
  if (WIFSIGNALED(status))
    set_error(j->g, GPUBLOB_TOOL, "%s for %s:%s was killed by signal %d (%s)", tool, j->t->name, j->chip,
              WTERMSIG(status), strsignal(WTERMSIG(status)));
  else
    set_error(j->g, GPUBLOB_TOOL, "%s for %s:%s exited with status %d", tool, j->t->name, j->chip,
              WEXITSTATUS(status));
  add_detail(j->g, sb_str(output));
  return GPUBLOB_TOOL;
}

static int read_tool_output(job *j, const char *path) {
  unsigned char *data;
  size_t size;
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) || read_fd(fd, &data, &size, (size_t)-1)) {
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

static enum proc_input proc_input_of(const job *j) {
  return j->t->tool_input == INPUT_stdin ? PROC_STDIN : j->t->tool_input == INPUT_pipe ? PROC_PIPE3 : PROC_NONE;
}

/* Starts the tool.  A file tool starts once its input file is written; a stdin or
** pipe tool starts before the backend runs and waits for its input. */
static int tool_start(job *j) {
  toolrun *r = &j->run;
  int file = j->t->tool_input == INPUT_file;
  if (make_workdir(j, &r->w)) return j->g->code;
  r->made = 1;
  if (file && write_file(r->w.in, j->out.data, j->out.size))
    return set_error(j->g, GPUBLOB_IO, "cannot write %s: %s", r->w.in, strerror(errno));
  r->argv = build_argv(j, j->tool, &r->w, &r->store);
  if (!r->argv) return set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  int err = proc_spawn(&r->p, r->argv, proc_input_of(j), r->w.dir);
  if (err) return set_error(j->g, GPUBLOB_TOOL, "cannot run %s: %s", r->argv[0], strerror(err));
  return GPUBLOB_OK;
}

/* Hands the backend's output to the tool (unless a file did), waits for its exit. */
static int tool_finish(job *j) {
  toolrun *r = &j->run;
  int status = 0, file = j->t->tool_input == INPUT_file;
  int waited = proc_wait(&r->p, j->out.data, file ? 0 : j->out.size, tool_timeout_ms(j), &r->output, &status);
  int rc = tool_outcome(j, r->argv[0], waited, status, &r->output);
  return rc ? rc : read_tool_output(j, r->w.out);
}

/* Stops a tool still running (after an error) and removes its directory. */
static void tool_end(job *j) {
  toolrun *r = &j->run;
  proc_end(&r->p);
  if (r->made) workdir_remove(&r->w);
  free(r->argv);
  sb_free(&r->store);
  sb_free(&r->output);
  memset(r, 0, sizeof *r);
  r->p = (proc){0, -1, -1, -1};
  r->w.live = -1;
}

static int tool_early(const job *j) {
  return needs_blob_tool(j) && !*j->provider_path && j->t->tool_input != INPUT_file;
}

/* ---- the in-process blob tool: nvJitLink turns PTX into a cubin ---- */
typedef int (*nvjl_create_fn)(void **, uint32_t, const char **);
typedef int (*nvjl_destroy_fn)(void **);
typedef int (*nvjl_add_fn)(void *, int, const void *, size_t, const char *);
typedef int (*nvjl_handle_fn)(void *);
typedef int (*nvjl_size_fn)(void *, size_t *);
typedef int (*nvjl_get_fn)(void *, void *);
enum { NVJL_INPUT_PTX = 2 };

/* The provider's options: provider_argv expanded and split on blanks. */
static const char **provider_options(job *j, strbuf *store, uint32_t *n) {
  const char *list = j->t->provider_argv, *w;
  size_t wn;
  *n = 0;
  while ((w = next_word(&list, " ", &wn))) {
    expand(j, w, wn, NULL, store);
    sb_addn(store, "", 1);
    ++*n;
  }
  const char **argv = calloc(*n + 1, sizeof *argv);
  if (!argv || store->oom) {
    free(argv);
    return NULL;
  }
  const char *p = store->s;
  for (uint32_t i = 0; i < *n; i++, p += strlen(p) + 1) argv[i] = p;
  return argv;
}

static int nvjl_failed(job *j, void *h, const char *step, int r) {
  set_error(j->g, GPUBLOB_TOOL, "%s (in-process, %s) for %s:%s failed in %s with error %d",
            j->t->provider_name, j->prov->path, j->t->name, j->chip, step, r);
  size_t n = 0;
  char *log = NULL;
  if (h && !((nvjl_size_fn)j->prov->fn[NVJL_ERRLOG_SIZE])(h, &n) && n && (log = malloc(n + 1)) &&
      !((nvjl_get_fn)j->prov->fn[NVJL_ERRLOG])(h, log)) {
    log[n] = 0;
    add_detail(j->g, log);
  }
  free(log);
  return GPUBLOB_TOOL;
}

static int nvjl_cubin(job *j, void *h) {
  size_t n = 0;
  int r = ((nvjl_size_fn)j->prov->fn[NVJL_CUBIN_SIZE])(h, &n);
  if (r || !n) return nvjl_failed(j, h, "GetLinkedCubinSize", r);
  unsigned char *cubin = malloc(n + 1);
  if (!cubin) return set_error(j->g, GPUBLOB_NOMEM, "out of memory (%zu bytes)", n);
  if ((r = ((nvjl_get_fn)j->prov->fn[NVJL_CUBIN])(h, cubin))) {
    free(cubin);
    return nvjl_failed(j, h, "GetLinkedCubin", r);
  }
  cubin[n] = 0;
  gpublob_blob_free(&j->out);
  j->out = (gpublob_blob){cubin, n, j->t->suffix_bin};
  return GPUBLOB_OK;
}

/* The backend's PTX (NUL-terminated by take_buffer) in, the cubin out. */
static int provider_run(job *j) {
  strbuf store = {0};
  uint32_t n;
  const char **opts = provider_options(j, &store, &n);
  void *h = NULL;
  int r = opts ? ((nvjl_create_fn)j->prov->fn[NVJL_CREATE])(&h, n, opts) : -1;
  int rc = !opts ? set_error(j->g, GPUBLOB_NOMEM, "out of memory")
           : r   ? nvjl_failed(j, h, "Create", r)
                 : GPUBLOB_OK;
  if (!rc && (r = ((nvjl_add_fn)j->prov->fn[NVJL_ADD])(h, NVJL_INPUT_PTX, j->out.data, j->out.size + 1,
                                                        j->name)))
    rc = nvjl_failed(j, h, "AddData", r);
  if (!rc && (r = ((nvjl_handle_fn)j->prov->fn[NVJL_COMPLETE])(h))) rc = nvjl_failed(j, h, "Complete", r);
  if (!rc) rc = nvjl_cubin(j, h);
  if (h) ((nvjl_destroy_fn)j->prov->fn[NVJL_DESTROY])(&h);
  free(opts);
  sb_free(&store);
  return rc;
}

static int run_blob_tool(job *j) {
  if (!needs_blob_tool(j)) {
    if (j->format == GPUBLOB_FORMAT_BIN) j->out.suffix = j->t->suffix_bin; /* the object is the blob */
    return GPUBLOB_OK;
  }
  if (j->prov) return provider_run(j);
  int rc = j->run.p.pid ? GPUBLOB_OK : tool_start(j);
  return rc ? rc : tool_finish(j);
}

/* ---- what a blob of its kind starts with (the spec's bin_magic, pack_magic) ---- */
static size_t hex_bytes(const char *hex, unsigned char *out, size_t size) {
  size_t n = 0;
  for (; hex[0] && hex[1] && n < size; hex += 2) {
    char byte[3] = {hex[0], hex[1], 0};
    out[n++] = (unsigned char)strtoul(byte, NULL, 16);
  }
  return n;
}

/* 0 when b starts with the magic; else an error naming who made it. */
static int check_magic(job *j, const gpublob_blob *b, const char *magic, const char *maker, int code) {
  unsigned char want[16];
  size_t n = hex_bytes(magic, want, sizeof want);
  if (!n || (b->size >= n && !memcmp(b->data, want, n))) return GPUBLOB_OK;
  strbuf got = {0};
  for (size_t i = 0; i < n && i < b->size; i++) sb_addf(&got, "%02x", b->data[i]);
  set_error(j->g, code, "%s for %s:%s gave %zu bytes that do not start as a %s blob does (%s; they start "
            "with %s)", maker, j->t->name, j->chip, b->size, j->t->suffix_bin, magic,
            got.len ? sb_str(&got) : "nothing");
  sb_free(&got);
  return code;
}

/* A bin blob from the tool, the provider or (tool_kind none) LLVM itself. */
static int check_blob(job *j) {
  if (j->format != GPUBLOB_FORMAT_BIN) return GPUBLOB_OK;
  if (!needs_blob_tool(j)) return check_magic(j, &j->out, j->t->bin_magic, "LLVM's backend", GPUBLOB_BACKEND);
  return check_magic(j, &j->out, j->t->bin_magic, *j->tool_name ? j->tool_name : "the blob tool", GPUBLOB_TOOL);
}

/* ---- packs: every chip's blob, and the newest chip's assembly, in one (fatbinary) ---- */
typedef struct packing {
  job *const *members;
  size_t n;
  workdir w;
  int failed; /* a member's file could not be written (the error is in members[0]) */
} packing;

/* Every word of a template, expanded for member j with {in} = in. */
static void pack_template(strbuf *store, size_t *count, job *j, const char *tmpl, const char *in) {
  const char *vars[] = {"in", in, NULL}, *w;
  size_t n;
  while ((w = next_word(&tmpl, " ", &n))) {
    expand(j, w, n, vars, store);
    sb_addn(store, "", 1);
    ++*count;
  }
}

/* {images}: each member's blob, and the newest's assembly, as a file of the pack's
** directory, with the spec's words for it. */
static void pack_images(void *arg, strbuf *store, size_t *count) {
  packing *k = arg;
  job *first = k->members[0];
  for (size_t i = 0; i < k->n && !k->failed; i++) {
    job *j = k->members[i];
    char in[4300];
    snprintf(in, sizeof in, "%s/%zu%s", k->w.dir, i, j->t->suffix_bin);
    if ((k->failed = write_file(in, j->out.data, j->out.size) != 0)) break;
    pack_template(store, count, j, j->t->pack_image, in);
    if (!j->keep_asm) continue;
    snprintf(in, sizeof in, "%s/%zu%s", k->w.dir, i, j->t->suffix_asm);
    if ((k->failed = write_file(in, j->asm_out.data, j->asm_out.size) != 0)) break;
    pack_template(store, count, j, j->t->pack_asm_image, in);
  }
  if (k->failed) set_error(first->g, GPUBLOB_IO, "cannot write a pack's image in %s: %s", k->w.dir, strerror(errno));
}

/* Runs the pack tool over the written images; its output becomes *out. */
static int pack_tool_run(job *first, char **argv, const workdir *w, gpublob_blob *out) {
  proc p;
  strbuf output = {0};
  int status = 0, err = proc_spawn(&p, argv, PROC_NONE, w->dir);
  int rc = err ? set_error(first->g, GPUBLOB_TOOL, "cannot run %s: %s", argv[0], strerror(err)) : GPUBLOB_OK;
  int waited = rc ? WAIT_LOST : proc_wait(&p, NULL, 0, tool_timeout_ms(first), &output, &status);
  if (!rc) rc = tool_outcome(first, argv[0], waited, status, &output);
  proc_end(&p);
  sb_free(&output);
  gpublob_blob saved = first->out;
  first->out = (gpublob_blob){0};
  if (!rc) rc = read_tool_output(first, w->out);
  if (!rc) rc = check_magic(first, &first->out, first->t->pack_magic, base_name(argv[0]), GPUBLOB_TOOL);
  if (!rc) *out = first->out, out->suffix = first->t->suffix_pack;
  else gpublob_blob_free(&first->out);
  first->out = saved;
  return rc;
}

/* One blob for the members of a pack, made by the spec's pack tool. */
static int pack_run(job *const *members, size_t n, const char *tool, gpublob_blob *out) {
  job *first = members[0];
  packing k = {.members = members, .n = n};
  if (make_workdir(first, &k.w)) return first->g->code;
  snprintf(k.w.out, sizeof k.w.out, "%s/out%s", k.w.dir, first->t->suffix_pack);
  const char *vars[] = {"tool", tool, "out", k.w.out, NULL};
  strbuf store = {0};
  char **argv = expand_argv(first, first->t->pack_argv, vars, pack_images, &k, &store);
  int rc = k.failed ? first->g->code : !argv ? set_error(first->g, GPUBLOB_NOMEM, "out of memory") : GPUBLOB_OK;
  if (!rc) rc = pack_tool_run(first, argv, &k.w, out);
  workdir_remove(&k.w);
  free(argv);
  sb_free(&store);
  return rc;
}

/* ---- a job, start to end, on whichever thread the pool gives it ---- */
static int emit_output(job *j) {
  if (j->format == GPUBLOB_FORMAT_LLVM) return emit_bitcode(j);
  if (j->format == GPUBLOB_FORMAT_ASM) return emit(j, 1);
  int rc = emit(j, j->t->emit == EMIT_asm);
  if (rc || !j->keep_asm) return rc;
  j->asm_out.data = malloc(j->out.size + 1);
  if (!j->asm_out.data) return set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  memcpy(j->asm_out.data, j->out.data, j->out.size + 1);
  j->asm_out.size = j->out.size;
  j->asm_out.suffix = j->t->suffix_asm;
  return GPUBLOB_OK;
}

/* What the module asks of the job's target, checked before LLVM's backend sees it:
** each of these would otherwise abort the process or give a wrong blob. */
/* Inline asm is parsed by a backend that emits objects (the spec's emit = obj),
** even for its assembly output: one without an assembly parser (the spec's
** asm_parser; SPIR-V's) aborts on it.  A backend that emits assembly (PTX) passes
** it through as text. */
static int check_inline_asm(job *j) {
  if (!strcmp(j->t->asm_parser, "yes") || j->format == GPUBLOB_FORMAT_LLVM || j->t->emit != EMIT_obj)
    return GPUBLOB_OK;
  size_t n = 0;
  LLVMGetModuleInlineAsm(j->mod, &n);
  int calls = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(j->mod); f && !calls && !n; f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b && !calls; b = LLVMGetNextBasicBlock(b))
      for (LLVMValueRef i = LLVMGetFirstInstruction(b); i && !calls; i = LLVMGetNextInstruction(i))
        calls = LLVMIsACallInst(i) && LLVMIsAInlineAsm(LLVMGetCalledValue(i));
  if (!n && !calls) return GPUBLOB_OK;
  return set_error(j->g, GPUBLOB_TARGET, "%s: holds %s, which target %s cannot assemble (its backend has "
                   "no assembly parser)", j->name,
                   n ? "module-level inline asm" : "inline asm", j->t->name);
}

static int check_module(job *j) {
  int rc = check_inline_asm(j);
  if (!rc) rc = check_intrinsics(j);
  if (!rc) rc = check_entries(j);
  if (!rc) rc = check_symbols(j);
  if (!rc) rc = check_pins(j);
  return rc;
}

/* Parse (LLVM IR; MLIR's translation gave the module already) through emission:
** the job's LLVM work, the part an isolated job does in a child process.  The
** triple and data layout are set before verification (LLVM's verifier needs them). */
static int job_llvm(job *j) {
  int rc = j->src ? parse_module(j, j->src, j->src_size) : GPUBLOB_OK;
  if (!rc) rc = check_triple(j);
  if (!rc) rc = make_target_machine(j);
  if (!rc) rc = verify_module(j);
  if (!rc) rc = check_module(j);
  if (!rc) add_module_flags(j);
  if (!rc) rc = link_device_libs(j);
  if (!rc) keep_entries(j);
  if (!rc) rc = optimise(j);
  if (!rc) rc = diag_failed(j, "optimisation");
  if (!rc) rc = emit_output(j);
  if (!rc) rc = diag_failed(j, "code generation");
  return rc;
}

static int isolate_job(job *j);

/* A job start to end.  The blob tool starts first when it can overlap the compile.
** The job's LLVM objects go as soon as it ends; its blob stays.  Its phase times
** hold only LLVM's own work and the blob tool's: what is left of a call's wall
** time is gpublob's overhead. */
static int job_run(job *j) {
  double t = now_ms();
  int rc = tool_early(j) ? tool_start(j) : GPUBLOB_OK;
  j->ms[PH_TOOL] += now_ms() - t;
  if (!rc) rc = j->flags & GPUBLOB_FLAG_ISOLATE ? isolate_job(j) : job_llvm(j);
  t = now_ms();
  if (!rc) rc = run_blob_tool(j);
  if (!rc) rc = check_blob(j);
  j->ms[PH_TOOL] += now_ms() - t;
  j->state = rc ? JOB_FAILED : JOB_DONE;
  job_release_llvm(j);
  return rc;
}

/* A thread with a stack of size bytes (a smaller one if that cannot be had). */
static int thread_start(pthread_t *t, size_t size, void *(*fn)(void *), void *arg) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  int rc = pthread_attr_setstacksize(&attr, size);
  if (!rc) rc = pthread_create(t, &attr, fn, arg);
  if (rc) pthread_attr_setstacksize(&attr, 16u << 20), rc = pthread_create(t, &attr, fn, arg);
  pthread_attr_destroy(&attr);
  return rc;
}

/* ---- isolation: a job's LLVM work in a child process ---- */
/* A helper process per handle, forked from the calling thread before a call starts
** threads; single-threaded, it forks a child per job, so each fork is safe.  The
** host hands it a socket per job (SCM_RIGHTS); the child reads the job from it,
** runs job_llvm on a thread with a large stack, and writes back the backend's
** output; the helper then writes the child's exit status.  An LLVM fatal error
** in the child writes its reason first.  Records: a kind byte, a u64 length, the
** payload. */
enum { REC_JOB = 'J', REC_RESULT = 'R', REC_FATAL = 'F', REC_EXIT = 'X' };

static int put_record(int fd, char kind, const strbuf *payload) {
  unsigned char head[9] = {(unsigned char)kind};
  uint64_t n = payload ? payload->len : 0;
  memcpy(head + 1, &n, sizeof n);
  return write_all_fd(fd, head, sizeof head) || (n && write_all_fd(fd, payload->s, payload->len)) ? -1 : 0;
}

static int read_exact(int fd, void *p, size_t n) {
  unsigned char *q = p;
  while (n) {
    ssize_t r = read(fd, q, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return -1;
    q += r;
    n -= (size_t)r;
  }
  return 0;
}

/* The next record; its payload into out (reset first).  -1 at EOF or on error. */
static int get_record(int fd, char *kind, strbuf *out) {
  unsigned char head[9];
  uint64_t n;
  sb_reset(out);
  if (read_exact(fd, head, sizeof head)) return -1;
  memcpy(&n, head + 1, sizeof n);
  if (n > (1ULL << 40)) return -1;
  *kind = (char)head[0];
  char buf[65536];
  while (n) {
    size_t k = n < sizeof buf ? (size_t)n : sizeof buf;
    if (read_exact(fd, buf, k)) return -1;
    sb_addn(out, buf, k);
    n -= k;
  }
  return out->oom ? -1 : 0;
}

/* The job as the child rebuilds it: its options, resolved again there as here,
** the environment and directory it searches from, and the module's bytes. */
static void put_job(strbuf *b, const job *j, const void *module, size_t size) {
  const gpublob_options *o = &j->opts;
  const char *const strs[] = {j->t->name, j->chip, o->features, o->lib_dirs, o->tool_dirs, j->name};
  for (size_t i = 0; i < sizeof strs / sizeof *strs; i++) put_str(b, strs[i]);
  put_u64(b, (uint64_t)o->opt);
  put_u64(b, (uint64_t)o->format);
  put_u64(b, o->flags);
  put_u64(b, (uint64_t)j->keep_asm);
  char *cwd = getcwd(NULL, 0);
  put_str(b, cwd ? cwd : "/");
  free(cwd);
  size_t n = 0;
  while (environ[n]) n++;
  put_u64(b, n);
  for (size_t i = 0; i < n; i++) put_str(b, environ[i]);
  put_u64(b, size);
  sb_addn(b, module, size);
}

static void put_result(strbuf *b, int rc, const job *j) {
  put_u64(b, (uint64_t)rc);
  put_str(b, gpublob_error_message(j->g));
  put_str(b, sb_str(&j->g->warn));
  put_blob(b, &j->out);
  put_blob(b, &j->asm_out);
  for (int i = 0; i < NPHASES; i++) sb_addn(b, (const char *)&j->ms[i], sizeof j->ms[i]);
}

/* ---- isolation: the child ---- */
static int child_fd = -1; /* the child's job socket, for its fatal error handler */

static void child_on_fatal(const char *reason) {
  strbuf b = {.s = (char *)reason, .len = strlen(reason)};
  put_record(child_fd, REC_FATAL, &b);
  _exit(70);
}

typedef struct child_job {
  job j;
  strbuf env; /* the host's environment strings */
  char **envp;
  unsigned char *module;
  size_t size;
  int rc;
} child_job;

static void *child_work(void *arg) {
  child_job *c = arg;
  c->rc = job_llvm(&c->j);
  return NULL;
}

static int child_environment(child_job *c, reader *r) {
  uint64_t n = get_u64(r);
  if (r->bad || n > 1000000) return -1;
  c->envp = calloc(n + 1, sizeof *c->envp);
  for (uint64_t i = 0; c->envp && i < n && !r->bad; i++) c->envp[i] = (char *)get_str(r);
  if (!c->envp || r->bad) return -1;
  environ = c->envp;
  return 0;
}

/* The job the host sent, rebuilt: options resolved as the host resolved them. */
static int child_read_job(child_job *c, gpublob *g, const strbuf *rec) {
  reader r = {(const unsigned char *)rec->s, (const unsigned char *)rec->s + rec->len, 0};
  const char *target = get_str(&r), *chip = get_str(&r), *features = get_str(&r);
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .features = features};
  o.lib_dirs = get_str(&r);
  o.tool_dirs = get_str(&r);
  const char *name = get_str(&r);
  o.opt = (int)get_u64(&r);
  o.format = (int)get_u64(&r);
  o.flags = (unsigned)get_u64(&r);
  int keep_asm = (int)get_u64(&r);
  const char *cwd = get_str(&r);
  if (r.bad || !target || !chip || !cwd || child_environment(c, &r) || chdir(cwd)) return -1;
  c->size = (size_t)get_u64(&r);
  if (r.bad || (size_t)(r.end - r.p) != c->size) return -1;
  o.target = target;
  o.chip = chip;
  job_begin(&c->j, g, &o, name);
  c->j.src = r.p; /* the record ends in a NUL (strbuf) */
  c->j.src_size = c->size;
  int rc = resolve_options(&c->j);
  c->j.keep_asm = keep_asm;
  return rc;
}

/* A child's whole life: one job, its result, exit. */
static void child_main(int fd) {
  child_fd = fd;
  LLVMResetFatalErrorHandler(); /* the host's, if any: LLVM allows only one */
  LLVMInstallFatalErrorHandler(child_on_fatal);
  gpublob g = {0};
  child_job c = {0};
  strbuf rec = {0}, out = {0};
  char kind;
  if (get_record(fd, &kind, &rec) || kind != REC_JOB) _exit(71);
  c.rc = child_read_job(&c, &g, &rec);
  if (c.rc < 0) _exit(72);
  pthread_t t;
  if (!c.rc) {
    if (thread_start(&t, GPUBLOB_PARSE_STACK, child_work, &c)) child_work(&c);
    else pthread_join(t, NULL);
  }
  put_result(&out, c.rc, &c.j);
  put_u64(&out, XXH3_64bits(out.s, out.len)); /* a record cut short is never taken for one */
  _exit(out.oom || put_record(fd, REC_RESULT, &out) ? 73 : 0);
}

/* ---- isolation: the helper ---- */
/* A descriptor over a Unix socket (SCM_RIGHTS), with one byte to carry it. */
static int send_fd(int sock, int fd) {
  char byte = 'j';
  union {
    struct cmsghdr h;
    char buf[CMSG_SPACE(sizeof(int))];
  } u;
  memset(&u, 0, sizeof u);
  struct iovec io = {&byte, 1};
  struct msghdr m = {.msg_iov = &io, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf};
  struct cmsghdr *c = CMSG_FIRSTHDR(&m);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(c), &fd, sizeof fd);
  ssize_t r;
  while ((r = sendmsg(sock, &m, MSG_NOSIGNAL)) < 0 && errno == EINTR) {}
  return r == 1 ? 0 : -1;
}

typedef struct helper_child {
  pid_t pid;
  int fd, pidfd;
  int err; /* its stderr, a memfd: what LLVM printed before it died ("out of memory") */
} helper_child;

/* A message on the control socket: a job's socket (kind 'j', with the descriptor),
** or how many jobs a call will hand over (kind 'n').  -1 when the host closed it. */
typedef struct helper_msg {
  char kind;
  int fd;
  uint32_t count;
} helper_msg;

static int helper_receive(int ctl, helper_msg *msg) {
  char buf[1 + sizeof(uint32_t)];
  union {
    struct cmsghdr h;
    char buf[CMSG_SPACE(sizeof(int))];
  } u;
  struct iovec io = {buf, sizeof buf};
  struct msghdr m = {.msg_iov = &io, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf};
  ssize_t r;
  while ((r = recvmsg(ctl, &m, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {}
  if (r <= 0) return -1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&m);
  *msg = (helper_msg){buf[0], -1, 0};
  if (c && c->cmsg_type == SCM_RIGHTS) memcpy(&msg->fd, CMSG_DATA(c), sizeof msg->fd);
  if (r == (ssize_t)sizeof buf) memcpy(&msg->count, buf + 1, sizeof msg->count);
  return 0;
}

/* A child forked ahead of its job (a spare), so a job's fork is off its critical
** path: it waits on its channel for the job's socket, then runs the job. */
typedef struct spare {
  pid_t pid; /* 0: none */
  int chan, err;
} spare;

static void close_kids(helper_child *kids, size_t n) {
  for (size_t i = 0; i < n; i++) close(kids[i].fd), close(kids[i].pidfd), close(kids[i].err);
}

static void spare_fork(int ctl, spare *s, helper_child *kids, size_t n) {
  int sv[2];
  *s = (spare){0, -1, -1};
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) return;
  int err = memfd_create("gpublob-job-stderr", MFD_CLOEXEC);
  pid_t pid = fork();
  if (pid == 0) {
    close(ctl);
    close(sv[0]);
    close_kids(kids, n);
    if (err >= 0) dup2(err, 2); /* the host's stderr gets one message, the host's */
    helper_msg msg;
    if (helper_receive(sv[1], &msg) || msg.fd < 0) _exit(0); /* no job: the helper ended */
    close(sv[1]);
    child_main(msg.fd);
  }
  close(sv[1]);
  if (pid < 0) {
    close(sv[0]);
    if (err >= 0) close(err);
    return;
  }
  *s = (spare){pid, sv[0], err};
}

static void spare_drop(spare *s) {
  if (s->pid) {
    kill(s->pid, SIGKILL);
    waitpid(s->pid, NULL, 0);
    close(s->chan);
    if (s->err >= 0) close(s->err);
  }
  *s = (spare){0, -1, -1};
}

/* The job's socket to the spare, which becomes a child like any other. */
static int spare_take(spare *s, int fd, helper_child **kids, size_t *n) {
  helper_child *more = s->pid ? realloc(*kids, (*n + 1) * sizeof **kids) : NULL;
  if (!more || send_fd(s->chan, fd)) return -1;
  *kids = more;
  (*kids)[(*n)++] = (helper_child){s->pid, fd, pidfd_of(s->pid), s->err};
  close(s->chan);
  *s = (spare){0, -1, -1};
  return 0;
}

/* The first 4 KiB the child wrote to its stderr. */
static void child_stderr(int err, strbuf *b) {
  char buf[4096];
  ssize_t r = err >= 0 ? pread(err, buf, sizeof buf, 0) : -1;
  if (r > 0) sb_addn(b, buf, (size_t)r);
}

/* The exit status of each child that ended goes to the host after its result. */
static void helper_reap(helper_child *kids, size_t *n) {
  for (size_t i = 0; i < *n;) {
    int status;
    pid_t r = waitpid(kids[i].pid, &status, WNOHANG);
    if (r == 0 || (r < 0 && errno == EINTR)) {
      i++;
      continue;
    }
    strbuf b = {0};
    put_u64(&b, r > 0 ? (uint64_t)(unsigned)status : UINT64_MAX);
    child_stderr(kids[i].err, &b);
    put_record(kids[i].fd, REC_EXIT, &b);
    sb_free(&b);
    close(kids[i].fd);
    if (kids[i].pidfd >= 0) close(kids[i].pidfd);
    if (kids[i].err >= 0) close(kids[i].err);
    kids[i] = kids[--*n];
  }
}

/* A spare is kept ready while the call that said how many jobs it has still has
** some to hand over: a lone job's fork then costs it nothing, and no process is
** made for a job that will not come. */
static void helper_main(int ctl) {
  helper_child *kids = NULL;
  size_t n = 0;
  uint32_t expected = 0;
  spare next = {0, -1, -1};
  for (;;) {
    struct pollfd *fds = calloc(n + 1, sizeof *fds);
    int all_pidfds = 1;
    if (!fds) _exit(1);
    fds[0] = (struct pollfd){ctl, POLLIN, 0};
    for (size_t i = 0; i < n; i++) {
      fds[i + 1] = (struct pollfd){kids[i].pidfd, POLLIN, 0};
      all_pidfds &= kids[i].pidfd >= 0;
    }
    poll(fds, n + 1, all_pidfds ? -1 : 20);
    int ready = fds[0].revents != 0;
    free(fds);
    helper_msg msg = {0, -1, 0};
    if (ready && helper_receive(ctl, &msg)) { /* the host is gone or closed us: so are its jobs */
      kill(0, SIGKILL);
      _exit(0);
    }
    if (msg.kind == 'n') expected = msg.count;
    if (msg.fd >= 0) {
      expected -= expected > 0;
      if (spare_take(&next, msg.fd, &kids, &n)) { /* none ready, or it died: one now */
        spare_drop(&next);
        spare_fork(ctl, &next, kids, n);
        if (spare_take(&next, msg.fd, &kids, &n)) close(msg.fd); /* the host sees EOF: its job failed */
      }
    }
    helper_reap(kids, &n);
    if (expected && !next.pid) spare_fork(ctl, &next, kids, n); /* the next job's */
  }
}

/* In the helper, just forked: its own process group, every signal at its default
** (a host's crash handler must not run here), no descriptor of the host's. */
static void helper_enter(int ctl) {
  int high = fcntl(ctl, F_DUPFD, 10); /* the socket may be fd 0 or 1 in a host that closed them */
  if (high < 0) _exit(1);
  ctl = high;
  setpgid(0, 0);
  for (int sig = 1; sig < NSIG; sig++) signal(sig, SIG_DFL);
  signal(SIGPIPE, SIG_IGN);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  int null = open("/dev/null", O_RDWR);
  if (null < 0) _exit(1);
  dup2(null, 0);
  dup2(null, 1);
  dup2(ctl, 3);
  if (syscall(SYS_close_range, 4, ~0U, 0)) /* a kernel before close_range (5.9) */
    for (int fd = 4; fd < 4096; fd++) close(fd);
  helper_main(3);
}

static int helper_alive(gpublob *g) {
  return g->helper > 0 && g->helper_owner == getpid() && !proc_exited(g->helper);
}

/* Its socket closed; killed with its group and reaped, unless this process is a
** fork of the one that started it (that one's helper is not this one's to end). */
static void helper_stop(gpublob *g) {
  if (g->helper <= 0) return;
  close(g->helper_ctl);
  if (g->helper_owner == getpid()) {
    kill(-g->helper, SIGKILL); /* the helper and any child of a job in flight */
    live_pid_remove(g->helper_live);
    while (waitpid(g->helper, NULL, 0) < 0 && errno == EINTR) {}
  }
  g->helper = 0;
  g->helper_live = -1;
}

int gpublob_helper_start(gpublob *g) {
  if (!g) return GPUBLOB_MISUSE;
  if (helper_alive(g)) return GPUBLOB_OK;
  helper_stop(g); /* one that died */
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
    return set_error(g, GPUBLOB_TOOL, "cannot make the isolation helper's socket: %s", strerror(errno));
  pid_t pid = fork();
  if (pid == 0) {
    close(sv[0]);
    helper_enter(sv[1]);
  }
  close(sv[1]);
  if (pid < 0) {
    close(sv[0]);
    return set_error(g, GPUBLOB_TOOL, "cannot fork the isolation helper: %s", strerror(errno));
  }
  setpgid(pid, pid); /* as the helper does: no window where a kill of its group misses */
  g->helper = pid;
  g->helper_owner = getpid();
  g->helper_ctl = sv[0];
  g->helper_live = live_pid_add(pid);
  return GPUBLOB_OK;
}

/* ---- isolation: the host's side of a job ---- */
/* How many jobs this call will hand over: the helper forks one ahead of each. */
static void helper_expect(gpublob *host, size_t jobs) {
  char buf[1 + sizeof(uint32_t)] = {'n'};
  uint32_t n = jobs > UINT32_MAX ? UINT32_MAX : (uint32_t)jobs;
  memcpy(buf + 1, &n, sizeof n);
  pthread_mutex_lock(&host->helper_mu);
  if (host->helper > 0 && send(host->helper_ctl, buf, sizeof buf, MSG_NOSIGNAL) < 0) {}
  pthread_mutex_unlock(&host->helper_mu);
}

static int helper_hand(gpublob *host, int fd) {
  pthread_mutex_lock(&host->helper_mu);
  int rc = send_fd(host->helper_ctl, fd);
  pthread_mutex_unlock(&host->helper_mu);
  return rc;
}

/* The module the child parses: the input's bytes, or (MLIR) the translated module
** as bitcode. */
static int isolated_module(job *j, strbuf *req) {
  if (j->src) {
    put_job(req, j, j->src, j->src_size);
    return req->oom ? set_error(j->g, GPUBLOB_NOMEM, "out of memory") : GPUBLOB_OK;
  }
  LLVMMemoryBufferRef buf = LLVMWriteBitcodeToMemoryBuffer(j->mod);
  if (!buf) return set_error(j->g, GPUBLOB_NOMEM, "out of memory (bitcode for the isolated job)");
  put_job(req, j, LLVMGetBufferStart(buf), LLVMGetBufferSize(buf));
  LLVMDisposeMemoryBuffer(buf);
  return req->oom ? set_error(j->g, GPUBLOB_NOMEM, "out of memory") : GPUBLOB_OK;
}

static int take_result(job *j, const strbuf *rec) {
  uint64_t sum = 0;
  if (rec->len >= sizeof sum) memcpy(&sum, rec->s + rec->len - sizeof sum, sizeof sum);
  if (rec->len < sizeof sum || sum != XXH3_64bits(rec->s, rec->len - sizeof sum))
    return set_error(j->g, GPUBLOB_BACKEND, "%s: the isolated job's result was cut short", j->name);
  reader r = {(const unsigned char *)rec->s, (const unsigned char *)rec->s + rec->len - sizeof sum, 0};
  int rc = (int)get_u64(&r);
  const char *msg = get_str(&r), *warnings = get_str(&r);
  get_blob(&r, &j->out);
  get_blob(&r, &j->asm_out);
  for (int i = 0; i < NPHASES && (size_t)(r.end - r.p) >= sizeof(double); i++, r.p += sizeof(double))
    memcpy(&j->ms[i], r.p, sizeof(double));
  if (r.bad) return set_error(j->g, GPUBLOB_BACKEND, "%s: the isolated job's result was cut short", j->name);
  if (warnings) add_warnings(j->g, warnings);
  return rc ? set_error(j->g, rc, "%s", msg ? msg : "") : GPUBLOB_OK;
}

/* No result: an LLVM fatal error (its reason), a signal (with what it printed), or
** a lost process. */
static int isolated_failure(job *j, const char *fatal, int have_status, uint64_t status, const char *printed) {
  const char *where = "in its isolated process";
  if (fatal)
    set_error(j->g, GPUBLOB_BACKEND, "%s: LLVM aborted compiling for %s:%s %s: %s", j->name, j->t->name,
              j->chip, where, fatal);
  else if (have_status && status != UINT64_MAX && WIFSIGNALED((int)status)) {
    set_error(j->g, GPUBLOB_BACKEND, "%s: LLVM crashed compiling for %s:%s %s: signal %d (%s)", j->name,
              j->t->name, j->chip, where, WTERMSIG((int)status), strsignal(WTERMSIG((int)status)));
    add_detail(j->g, printed);
  }
  else
    set_error(j->g, GPUBLOB_BACKEND, "%s: the isolated process compiling for %s:%s ended without a result "
              "(exit status %d)", j->name, j->t->name, j->chip,
              have_status && status != UINT64_MAX ? WEXITSTATUS((int)status) : -1);
  return GPUBLOB_BACKEND;
}

/* Records until the helper's exit record: the result, or why there is none. */
static int isolated_reply(job *j, int fd) {
  strbuf rec = {0}, fatal = {0};
  char kind;
  int rc = -1, have_fatal = 0, have_status = 0;
  uint64_t status = 0;
  while (rc < 0 && !get_record(fd, &kind, &rec)) { /* a result ends it: the child's exit is not waited for */
    if (kind == REC_RESULT) rc = take_result(j, &rec);
    if (kind == REC_FATAL) have_fatal = 1, sb_add(&fatal, sb_str(&rec));
    if (kind == REC_EXIT && rec.len >= sizeof status) {
      memcpy(&status, rec.s, sizeof status);
      have_status = 1;
      if (!have_fatal && rec.len > sizeof status) sb_addn(&fatal, rec.s + sizeof status, rec.len - sizeof status);
      break;
    }
  }
  if (rc < 0) rc = isolated_failure(j, have_fatal ? sb_str(&fatal) : NULL, have_status, status, sb_str(&fatal));
  sb_free(&rec);
  sb_free(&fatal);
  return rc;
}

/* job_llvm in a child of the helper; the blob tool stays here. */
static int isolate_job(job *j) {
  int sv[2];
  strbuf req = {0};
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
    return set_error(j->g, GPUBLOB_TOOL, "cannot make an isolated job's socket: %s", strerror(errno));
  int rc = isolated_module(j, &req);
  if (!rc && helper_hand(j->host, sv[1]))
    rc = set_error(j->g, GPUBLOB_BACKEND, "%s: the isolation helper is gone (%s)", j->name, strerror(errno));
  close(sv[1]);
  if (!rc) put_record(sv[0], REC_JOB, &req); /* a child that died early shows in its reply */
  sb_free(&req);
  if (!rc) rc = isolated_reply(j, sv[0]);
  close(sv[0]);
  return rc;
}

/* ---- the pool: jobs in plan order on a bounded set of threads ---- */
/* Workers take jobs in order as they become ready.  Once one fails, jobs after it
** in plan order are cancelled if not yet started; those started, and any before
** it, finish.  So every job before the first failed one has run, and the first
** failure in plan order is the one a serial run reports, however threads interleave. */
typedef struct pool {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  job *const *jobs;
  size_t ready, next, nthreads;
  int closed;
  atomic_size_t failed; /* the lowest index of a failed job; SIZE_MAX while none */
  pthread_t *threads;
} pool;

static int pool_failed(pool *q) {
  return atomic_load(&q->failed) != SIZE_MAX;
}

static void pool_note_failure(pool *q, size_t i) {
  size_t seen = atomic_load(&q->failed);
  while (i < seen && !atomic_compare_exchange_weak(&q->failed, &seen, i)) {
  }
}

static void pool_take(pool *q, size_t i) {
  job *j = q->jobs[i];
  if (atomic_load(&q->failed) < i) {
    j->state = JOB_CANCELLED;
    job_release_llvm(j);
  } else if (job_run(j)) {
    pool_note_failure(q, i);
  }
}

/* A worker has a stack of its own for a host's crash handler (SIGSEGV of a stack
** overflow has no stack left to run on). */
static void *pool_worker(void *arg) {
  pool *q = arg;
  stack_t alt = {.ss_sp = malloc(1 << 16), .ss_size = 1 << 16}, off = {.ss_flags = SS_DISABLE};
  if (alt.ss_sp) sigaltstack(&alt, NULL);
  for (;;) {
    pthread_mutex_lock(&q->mu);
    while (q->next == q->ready && !q->closed) pthread_cond_wait(&q->cv, &q->mu);
    size_t i = q->next < q->ready ? q->next++ : SIZE_MAX;
    pthread_mutex_unlock(&q->mu);
    if (i == SIZE_MAX) break;
    pool_take(q, i);
  }
  if (alt.ss_sp) sigaltstack(&off, NULL), free(alt.ss_sp);
  return NULL;
}

#if GPUBLOB_MLIR
/* fn(arg) on a thread with the parsers' large stack, waited for; here if none starts. */
static void on_parse_stack(void *(*fn)(void *), void *arg) {
  pthread_t t;
  if (thread_start(&t, GPUBLOB_PARSE_STACK, fn, arg)) fn(arg);
  else pthread_join(t, NULL);
}
#endif

/* Threads: the options' count, else one per core this process may run on. */
static size_t thread_count(const gpublob_options *o, size_t njobs) {
  size_t n = o->jobs;
  cpu_set_t set;
  if (!n) n = sched_getaffinity(0, sizeof set, &set) ? (size_t)sysconf(_SC_NPROCESSORS_ONLN)
                                                      : (size_t)CPU_COUNT(&set);
  if (n > njobs) n = njobs;
  return n < 1 ? 1 : n > 256 ? 256 : n;
}

/* One thread runs the jobs itself, as they are submitted; more start workers. */
static void pool_start(pool *q, job *const *jobs, size_t nthreads) {
  memset(q, 0, sizeof *q);
  pthread_mutex_init(&q->mu, NULL);
  pthread_cond_init(&q->cv, NULL);
  q->jobs = jobs;
  atomic_init(&q->failed, SIZE_MAX);
  q->threads = calloc(nthreads, sizeof *q->threads);
  /* even one thread: jobs parse there, on a stack LLVM's recursion cannot outgrow */
  for (size_t i = 0; q->threads && i < nthreads; i++)
    if (!thread_start(&q->threads[i], GPUBLOB_PARSE_STACK, pool_worker, q)) q->nthreads++;
}

static void pool_submit(pool *q) {
  if (!q->nthreads) { /* no worker could start: run it here, now */
    pool_take(q, q->ready++);
    q->next = q->ready;
    return;
  }
  pthread_mutex_lock(&q->mu);
  q->ready++;
  pthread_cond_signal(&q->cv);
  pthread_mutex_unlock(&q->mu);
}

static void pool_finish(pool *q) {
  pthread_mutex_lock(&q->mu);
  q->closed = 1;
  pthread_cond_broadcast(&q->cv);
  pthread_mutex_unlock(&q->mu);
  for (size_t i = 0; i < q->nthreads; i++) pthread_join(q->threads[i], NULL);
  free(q->threads);
  pthread_cond_destroy(&q->cv);
  pthread_mutex_destroy(&q->mu);
}

/* The first failure in plan order becomes the call's error: a job's own, or
** the preparation's (at prepared, already in g). */
static int pool_error(plan *p, size_t prepared) {
  gpublob *g = p->g;
  job *const *jobs = p->jobs;
  for (size_t i = 0; i < p->njobs; i++) /* the jobs' warnings, in plan order, once each */
    add_warnings(g, sb_str(&jobs[i]->sink.warn));
  for (size_t i = 0; i < p->njobs; i++) {
    p->failed = i;
    if (i == prepared) return g->code;
    if (jobs[i]->state == JOB_FAILED) return take_error(g, &jobs[i]->sink);
  }
  return GPUBLOB_OK;
}

/* prepare(arg, i) readies job i on this thread (MLIR translates there) before a
** worker may take it; a failed preparation stops the submissions. */
typedef int (*job_preparer)(void *arg, size_t i);

static int pool_run(plan *p, job_preparer prepare, void *arg) {
  pool q;
  if (p->njobs && (p->jobs[0]->flags & GPUBLOB_FLAG_ISOLATE)) helper_expect(p->g, p->njobs);
  size_t nthreads = thread_count(&p->o, p->njobs), prepared = (size_t)-1;
  for (size_t i = 0; i < p->njobs; i++) p->jobs[i]->g = &p->jobs[i]->sink;
  pool_start(&q, p->jobs, nthreads);
  for (size_t i = 0; i < p->njobs && !pool_failed(&q); i++) {
    if (prepare && prepare(arg, i)) {
      prepared = i;
      break;
    }
    pool_submit(&q);
  }
  p->g->stats.threads = q.nthreads ? q.nthreads : 1;
  pool_finish(&q);
  for (size_t i = q.ready; i < p->njobs; i++) job_release_llvm(p->jobs[i]);
  gpublob_stats *st = &p->g->stats;
  for (size_t i = 0; i < p->njobs; i++) {
    const double *ms = p->jobs[i]->ms;
    st->load_ms += ms[PH_LOAD];
    st->link_ms += ms[PH_LINK];
    st->optimise_ms += ms[PH_OPT];
    st->emit_ms += ms[PH_EMIT];
    st->tool_ms += ms[PH_TOOL];
  }
  st->jobs = p->njobs;
  return pool_error(p, prepared);
}

/* ---- the outputs: a job's blob, or a pack of several ---- */
static int slot_output(plan *p, slot *s, gpublob_result *out) {
  job *j = p->jobs[s->first];
  gpublob_blob b = {0};
  strbuf chips = {0};
  for (size_t i = s->first; i < s->first + s->count; i++)
    sb_addf(&chips, "%s%s", i > s->first ? "," : "", p->jobs[i]->chip);
  double t = now_ms();
  int rc = s->pack ? pack_run(p->jobs + s->first, s->count, s->pack_tool, &b) : GPUBLOB_OK;
  p->g->stats.tool_ms += now_ms() - t;
  if (rc) {
    take_error(p->g, &j->sink);
    p->failed = s->first; /* the pack's error names its first job's module */
  } else {
    if (!s->pack) b = j->out, memset(&j->out, 0, sizeof j->out);
    if (chips.oom || result_add(out, j->t->name, sb_str(&chips),
                                s->pack ? base_name(s->pack_tool) : j->tool_name, &b))
      rc = set_error(p->g, GPUBLOB_NOMEM, "out of memory");
  }
  gpublob_blob_free(&b);
  sb_free(&chips);
  return rc;
}

static int plan_outputs(plan *p, gpublob_result *out) {
  int rc = GPUBLOB_OK;
  for (size_t i = 0; !rc && i < p->nslots; i++) rc = slot_output(p, &p->slots[i], out);
  if (rc) gpublob_result_free(out);
  return rc;
}

/* ---- LLVM IR: a call, from the plan through the pool to its outputs ---- */
/* Job i's pack tool when a pack takes its blob, else NULL. */
static const char *job_pack_tool(const plan *p, size_t i) {
  for (size_t s = 0; s < p->nslots; s++)
    if (i >= p->slots[s].first && i < p->slots[s].first + p->slots[s].count)
      return p->slots[s].pack ? p->slots[s].pack_tool : NULL;
  return NULL;
}

/* k1: k0 and what each resolved job depends on, digested before any compile work. */
static void plan_entry_key(cache *c, const key128 *k0, plan *p) {
  XXH3_state_t st;
  XXH3_128bits_reset(&st);
  hash_bytes(&st, k0->b, sizeof k0->b);
  for (size_t i = 0; i < p->njobs; i++) hash_job(c, &st, p->jobs[i], job_pack_tool(p, i));
  p->entry_key = hash_key(&st);
}

static void cache_store_plan(cache *c, const key128 *k0, plan *p, const gpublob_result *res) {
  int *packed = calloc(p->njobs ? p->njobs : 1, sizeof *packed);
  for (size_t i = 0; packed && i < p->njobs; i++) packed[i] = job_pack_tool(p, i) != NULL;
  if (packed) cache_store(c, k0, &p->entry_key, p->jobs, p->njobs, packed, res);
  free(packed);
}

/* data holds a NUL at data[size]; every job parses it in its own context. */
static int ir_compile(gpublob *g, const gpublob_options *opts, const unsigned char *data, size_t size,
                      const char *name, cache *c, const key128 *k0, gpublob_result *out) {
  plan p;
  plan_begin(&p, g, opts, name);
  int rc = plan_options(&p, 1);
  for (size_t i = 0; !rc && i < p.njobs; i++) {
    p.jobs[i]->src = data;
    p.jobs[i]->src_size = size;
  }
  if (!rc && c) plan_entry_key(c, k0, &p);
  if (!rc) rc = pool_run(&p, NULL, NULL);
  if (!rc) rc = plan_outputs(&p, out);
  if (!rc && c) cache_store_plan(c, k0, &p, out);
  plan_end(&p);
  return rc;
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
typedef struct mitem { /* one gpu.module for one target: one output, a chip or a pack */
  MlirOperation gm;    /* the gpu.module */
  MlirAttribute attr;  /* its #gpu.object target; null for legacy */
  const target_desc *t;
  size_t slot;         /* its output in the plan, and so its jobs */
  strbuf features, pipeline, name;
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
  plan p;            /* every item's jobs and outputs */
  int oom;
  cache *c;          /* where the result goes, or NULL */
  const key128 *k0;
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

static int unknown_attr(mjob *m, mitem *it, const strbuf *text) {
  strbuf known = {0};
  for (int i = 0; i < NTARGETS; i++)
    if (*targets[i].mlir_target) sb_addf(&known, " #%s", targets[i].mlir_target);
  set_error(m->g, GPUBLOB_TARGET, "%s: unknown target attribute %s (the spec knows:%s)",
            sb_str(&it->name), sb_str(text), sb_str(&known));
  sb_free(&known);
  return GPUBLOB_TARGET;
}

/* A job from an attribute such as #nvvm.target<chip = "sm_90", O = 3>: its target,
** chip, features and level, where absent fields mean what MLIR says they mean. */
static int item_from_attr(mjob *m, mitem *it, MlirAttribute a) {
  strbuf text = {0}, v = {0};
  mlirAttributePrint(a, append_ref, &text);
  const target_desc *t = target_of_attr(sb_str(&text), text.len);
  int rc = t ? GPUBLOB_OK : unknown_attr(m, it, &text);
  if (!rc && attr_param(sb_str(&text), "link", &v))
    rc = item_error(m, it, GPUBLOB_OPTION, "%s: libraries to link (link = %s) are not supported",
                    sb_str(&v));
  sb_reset(&v);
  if (!rc && attr_param(sb_str(&text), "triple", &v) && strcmp(sb_str(&v), t->triple))
    rc = item_error(m, it, GPUBLOB_TARGET, "%s: triple %s differs from the spec's", sb_str(&v));
  sb_reset(&v);
  /* MLIR's default level is 2; -O (the options) wins over the attribute. */
  int level = attr_param(sb_str(&text), "O", &v) ? atoi(sb_str(&v)) : 2;
  if (!rc && !m->o.opt && (level < 0 || level > 3))
    rc = item_error(m, it, GPUBLOB_OPTION, "%s: unknown optimisation level O = %s in the attribute",
                    sb_str(&v));
  sb_reset(&v);
  if (!rc && attr_param(sb_str(&text), "features", &v)) sb_add(&it->features, sb_str(&v));
  sb_reset(&v);
  const char *chip = !t ? "" : attr_param(sb_str(&text), "chip", &v) ? sb_str(&v)
                         : *t->mlir_chip ? t->mlir_chip : t->chip;
  size_t first = m->p.njobs;
  if (!rc)
    rc = plan_add_job(&m->p, t->name, strlen(t->name), chip, strlen(chip),
                      it->features.len ? sb_str(&it->features) : NULL,
                      m->o.opt ? m->o.opt : GPUBLOB_OPT_O0 + level);
  if (!rc) rc = plan_add_slot(&m->p, first, 1, m->o.format == GPUBLOB_FORMAT_FATBIN);
  it->slot = m->p.nslots - 1;
  it->attr = a;
  sb_free(&text);
  sb_free(&v);
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
  return it->name.oom ? set_error(m->g, GPUBLOB_NOMEM, "out of memory") : GPUBLOB_OK;
}

/* A choice of the options: a job per chip, an item per output (a chip, or a pack). */
static int items_from_choice(mjob *m, MlirOperation gm, const gpublob_target_choice *c) {
  size_t first = m->p.nslots;
  int rc = plan_choice(&m->p, c, m->o.opt);
  for (size_t s = first; !rc && s < m->p.nslots; s++) {
    mitem *it = NULL;
    rc = add_item(m, gm, &it);
    if (!rc) it->slot = s;
  }
  return rc;
}

static int plan_module(mjob *m, MlirOperation gm) {
  const gpublob_target_choice single = {m->o.target, m->o.chip, m->o.features};
  const gpublob_target_choice *list = m->o.ntargets ? m->o.targets : &single;
  size_t n = m->o.ntargets ? m->o.ntargets : 1;
  MlirAttribute attrs = mlirOperationGetAttributeByName(gm, cref("targets"));
  int own = !m->o.ntargets && !m->o.target && !mlirAttributeIsNull(attrs) &&
            mlirAttributeIsAArray(attrs) && mlirArrayAttrGetNumElements(attrs) > 0;
  if (own) n = (size_t)mlirArrayAttrGetNumElements(attrs);
  int rc = GPUBLOB_OK;
  for (size_t i = 0; !rc && i < n; i++) {
    mitem *it = NULL;
    if (!own) rc = items_from_choice(m, gm, &list[i]);
    else if (!(rc = add_item(m, gm, &it)))
      rc = item_from_attr(m, it, mlirArrayAttrGetElement(attrs, (intptr_t)i));
  }
  return rc;
}

/* The item whose output job i makes. */
static mitem *item_of_job(mjob *m, size_t i) {
  for (size_t k = 0; k < m->nitems; k++) {
    const slot *s = &m->p.slots[m->items[k].slot];
    if (i >= s->first && i < s->first + s->count) return &m->items[k];
  }
  return NULL;
}

static job *item_job(mjob *m, const mitem *it) { return m->p.jobs[m->p.slots[it->slot].first]; }

/* The chip an item's #gpu.object names: its job's, or a pack's newest (as
** planned, when it was not resolved). */
static const char *item_chip(mjob *m, const mitem *it) {
  const slot *s = &m->p.slots[it->slot];
  for (size_t i = s->first; i < s->first + s->count; i++)
    if (m->p.jobs[i]->keep_asm) return m->p.jobs[i]->chip;
  const job *j = item_job(m, it);
  return *j->chip ? j->chip : j->want;
}

/* A core error names the gpu.module and target it came from. */
static void name_error(mjob *m, const mitem *it) {
  const char *msg = gpublob_error_message(m->g);
  if (!it || !it->t || !strncmp(msg, sb_str(&it->name), it->name.len)) return;
  strbuf text = {0};
  sb_addf(&text, "%s (%s %s): %s", sb_str(&it->name), it->t->name, item_chip(m, it), msg);
  set_error(m->g, m->g->code, "%s", sb_str(&text));
  sb_free(&text);
}

/* Every job's options and tools, and every item's pipeline, are checked before any
** lowering or compile work is spent on any item. */
static int check_items(mjob *m) {
  for (size_t i = 0; i < m->p.njobs; i++) m->p.jobs[i]->name = sb_str(&item_of_job(m, i)->name);
  int rc = plan_resolve(&m->p, 1);
  for (size_t i = 0; i < m->nitems; i++) m->items[i].t = item_job(m, &m->items[i])->t;
  if (rc) {
    name_error(m, item_of_job(m, m->p.failed));
    return rc;
  }
  for (size_t i = 0; i < m->nitems; i++) {
    mitem *it = &m->items[i];
    job *j = item_job(m, it);
    const char *pipe = m->o.pipeline ? m->o.pipeline : it->t->mlir_lower;
    if (strcmp(pipe, "none")) expand(j, pipe, strlen(pipe), NULL, &it->pipeline);
  }
  return GPUBLOB_OK;
}

/* ---- MLIR: how the blobs will be attached, checked before any work ---- */
static int attach_mode(const mjob *m) {
  return m->o.attach ? m->o.attach : GPUBLOB_ATTACH_BINARY;
}

/* A target chosen by the options gets an attribute written from the spec. */
/* #nvvm.target<O = 3, chip = "sm_90", features = "..."> for job j's chip; its text in text. */
static MlirAttribute target_attr_for(mjob *m, const mitem *it, const job *j, const char *chip, strbuf *text) {
  sb_addf(text, "#%s<O = %d, chip = \"%s\"", it->t->mlir_target, j->opt, chip);
  if (j->opts.features) sb_addf(text, ", features = \"%s\"", j->opts.features);
  sb_add(text, ">");
  return mlirAttributeParseGet(m->ctx, mlirStringRefCreate(text->s, text->len));
}

static int make_target_attr(mjob *m, mitem *it) {
  if (!mlirAttributeIsNull(it->attr)) return GPUBLOB_OK;
  if (!*it->t->mlir_target)
    return item_error(m, it, GPUBLOB_OPTION,
                      "%s: target %s has no MLIR target attribute in the spec (mlir_target), "
                      "so it has no #gpu.object; use legacy attach",
                      it->t->name);
  strbuf text = {0};
  it->attr = target_attr_for(m, it, item_job(m, it), item_chip(m, it), &text);
  int rc = mlirAttributeIsNull(it->attr)
               ? item_error(m, it, GPUBLOB_LOWER, "%s: MLIR does not accept %s", sb_str(&text))
               : GPUBLOB_OK;
  sb_free(&text);
  return rc;
}

/* A gpu.module's #gpu.select_object<N> (or <#target>) must pick one of the objects
** its gpu.binary will hold: -t may give it fewer, or other targets, than it had. */
static int selection_error(mjob *m, mitem *it, const char *text, size_t count) {
  strbuf why = {0};
  sb_addf(&why, "%s selects none of the %zu object%s it gets", text, count, count == 1 ? "" : "s");
  item_error(m, it, GPUBLOB_OPTION, "%s: its offloadingHandler %s (from -t or its own targets); select "
             "one that is there, or drop the handler", sb_str(&why));
  sb_free(&why);
  return GPUBLOB_OPTION;
}

/* Does an object of gm have the target attribute text inner (n bytes)? */
static int has_object_for(mjob *m, MlirOperation gm, const char *inner, size_t n) {
  strbuf text = {0};
  int found = 0;
  for (size_t i = 0; i < m->nitems && !found; i++) {
    if (!mlirOperationEqual(m->items[i].gm, gm) || mlirAttributeIsNull(m->items[i].attr)) continue;
    sb_reset(&text);
    mlirAttributePrint(m->items[i].attr, append_ref, &text);
    found = text.len == n && !memcmp(sb_str(&text), inner, n);
  }
  sb_free(&text);
  return found;
}

static int check_selection(mjob *m, MlirOperation gm) {
  MlirAttribute h = mlirOperationGetAttributeByName(gm, cref("offloadingHandler"));
  mitem *first = NULL;
  size_t count = 0;
  for (size_t i = 0; i < m->nitems; i++)
    if (mlirOperationEqual(m->items[i].gm, gm)) {
      if (!first) first = &m->items[i];
      count++;
    }
  if (mlirAttributeIsNull(h) || !first) return GPUBLOB_OK;
  strbuf text = {0};
  mlirAttributePrint(h, append_ref, &text);
  const char *p = sb_str(&text), *prefix = "#gpu.select_object<";
  size_t n = strlen(prefix);
  int rc = GPUBLOB_OK;
  if (!strncmp(p, prefix, n) && text.len > n + 1) {
    const char *inner = p + n;
    int found = isdigit((unsigned char)*inner) ? strtoull(inner, NULL, 10) < count
                                               : has_object_for(m, gm, inner, text.len - n - 1);
    if (!found) rc = selection_error(m, first, p, count);
  }
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
  for (size_t i = 0; mode == GPUBLOB_ATTACH_LEGACY && i < m->nitems; i++) /* for verify_for_target */
    if (*m->items[i].t->mlir_target && make_target_attr(m, &m->items[i])) return m->g->code;
  if (mode == GPUBLOB_ATTACH_LEGACY) return check_legacy_names(m);
  for (size_t i = 0; i < m->nitems; i++) {
    if (mlirBlockIsNull(mlirOperationGetBlock(m->items[i].gm)))
      return item_error(m, &m->items[i], GPUBLOB_OPTION,
                        "%s: has no parent block to hold its gpu.binary; use legacy attach%s", "");
    if (make_target_attr(m, &m->items[i])) return m->g->code;
  }
  for (size_t g = 0; g < m->ngms; g++)
    if (check_selection(m, m->gms[g])) return m->g->code;
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
  if (it->lowered.ptr || reuse_lowered(m, it)) return GPUBLOB_OK;
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

/* ---- MLIR: translation to LLVM IR on this thread, then the job goes to the pool ---- */
static int translate_into(mjob *m, mitem *it, job *j, MlirOperation src) {
  j->ctx = LLVMContextCreate();
  LLVMContextSetDiagnosticHandler(j->ctx, on_diagnostic, j);
  sb_reset(&m->diag);
  j->mod = mlirTranslateModuleToLLVMIR(src, j->ctx);
  if (j->mod) return GPUBLOB_OK;
  item_error(m, it, GPUBLOB_LOWER, "%s: cannot translate to LLVM IR%s", "");
  add_detail(m->g, sb_str(&m->diag));
  return GPUBLOB_LOWER;
}

/* Job i's module: its item lowered (once), then translated into the job's context.
** MLIR stays on the calling thread; only LLVM work goes to the pool. */
/* With -t, the copy a job translates carries the chosen target, and is verified so:
** an op that needs another chip (nvvm.wgmma on sm_90, not sm_90a) fails here, as
** mlir-opt would fail it, not in LLVM's backend. */
static int verify_for_target(mjob *m, mitem *it, const job *j, MlirOperation src) {
  if ((!m->o.ntargets && !m->o.target) || mlirAttributeIsNull(it->attr)) return GPUBLOB_OK;
  strbuf text = {0}; /* a pack's member: the attribute of its own chip, not the newest's */
  MlirAttribute attr = m->p.slots[it->slot].count > 1 ? target_attr_for(m, it, j, j->chip, &text) : it->attr;
  sb_free(&text);
  if (mlirAttributeIsNull(attr)) attr = it->attr;
  mlirOperationSetAttributeByName(src, cref("targets"), mlirArrayAttrGet(m->ctx, 1, &attr));
  sb_reset(&m->diag);
  if (mlirOperationVerify(src)) return GPUBLOB_OK;
  item_error(m, it, GPUBLOB_VERIFY, "%s: fails verification for the chosen target%s", "");
  add_detail(m->g, sb_str(&m->diag));
  return GPUBLOB_VERIFY;
}

static int mlir_prepare(void *arg, size_t i) {
  mjob *m = arg;
  mitem *it = item_of_job(m, i);
  job *j = m->p.jobs[i];
  double t = now_ms();
  MlirOperation src;
  int rc = lower_item(m, it);
  j->ms[PH_LOAD] += now_ms() - t;
  if (!rc) rc = item_source(m, it, &src);
  if (!rc) rc = verify_for_target(m, it, j, src);
  t = now_ms();
  if (!rc) rc = translate_into(m, it, j, src);
  j->ms[PH_LOAD] += now_ms() - t;
  return rc;
}

/* Every job through the pool; each item's blob, or the first error, named. */
static int compile_items(mjob *m) {
  if (m->c) plan_entry_key(m->c, m->k0, &m->p);
  int rc = pool_run(&m->p, mlir_prepare, m);
  if (rc && m->p.failed < m->p.njobs && m->p.jobs[m->p.failed]->state == JOB_FAILED)
    name_error(m, item_of_job(m, m->p.failed));
  gpublob_result res = {0};
  if (!rc) rc = plan_outputs(&m->p, &res);
  if (rc && m->p.failed < m->p.njobs) name_error(m, item_of_job(m, m->p.failed));
  for (size_t i = 0; !rc && i < m->nitems; i++) {
    m->items[i].blob = res.outputs[m->items[i].slot].blob;
    memset(&res.outputs[m->items[i].slot].blob, 0, sizeof(gpublob_blob));
  }
  gpublob_result_free(&res);
  return rc;
}

/* ---- MLIR: attaching the blobs, once every one of them is made ---- */
static uint32_t object_format(int format) { /* gpu::CompilationTarget */
  return format == GPUBLOB_FORMAT_LLVM ? 1 : format == GPUBLOB_FORMAT_ASM ? 2
         : format == GPUBLOB_FORMAT_FATBIN ? 4 : 3;
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
  plan_end(&m->p);
}

static int serialize(mjob *m, MlirOperation top) {
  int rc = find_gpu_modules(m, top);
  for (size_t i = 0; !rc && i < m->ngms; i++) rc = plan_module(m, m->gms[i]);
  if (!rc) rc = check_items(m);
  if (!rc) rc = check_attach(m);
  if (!rc) rc = compile_items(m);
  if (rc) return rc;
  if (attach_mode(m) == GPUBLOB_ATTACH_LEGACY) attach_legacy(m);
  else rc = attach_binary(m);
  return rc;
}

/* gpublob_mlir_compile's: the module printed into res, and stored in the cache. */
typedef struct mlir_out {
  gpublob_result *res;
  cache *c;
  const key128 *k0;
} mlir_out;

static int print_mlir(gpublob *g, MlirOperation top, unsigned flags, gpublob_blob *out);

static int deliver(mjob *m, MlirOperation top, mlir_out *out) {
  gpublob_blob b = {0};
  double t = now_ms(); /* MLIR's printer (or bytecode writer): counted with emission */
  int rc = print_mlir(m->g, top, m->o.flags, &b);
  m->g->stats.emit_ms += now_ms() - t;
  if (!rc && result_add(out->res, NULL, "", "", &b)) rc = set_error(m->g, GPUBLOB_NOMEM, "out of memory");
  gpublob_blob_free(&b);
  if (!rc && out->c) cache_store_plan(out->c, out->k0, &m->p, out->res);
  return rc;
}

/* On any context: translations registered (the pass does that in its initialize,
** before MLIR may run passes on threads), diagnostics captured. */
static int serialize_in(gpublob *g, const gpublob_options *opts, MlirOperation top,
                        const char *name, int register_translations, mlir_out *out) {
  mjob m = {.g = g, .ctx = mlirOperationGetContext(top), .name = name};
  options_normalise(opts, &m.o);
  plan_begin(&m.p, g, &m.o, name);
  if (out) m.c = out->c, m.k0 = out->k0;
  if (m.o.ntargets && !m.o.targets)
    return set_error(g, GPUBLOB_MISUSE, "ntargets is %zu but targets is NULL", m.o.ntargets);
  if (register_translations) mlirRegisterAllLLVMTranslations(m.ctx);
  MlirDiagnosticHandlerID h = mlirContextAttachDiagnosticHandler(m.ctx, on_mlir_diagnostic, &m.diag, NULL);
  int rc = check_version(g, &m.o);
  if (!rc && (m.o.flags & GPUBLOB_FLAG_ISOLATE)) rc = gpublob_helper_start(g);
  if (!rc) rc = serialize(&m, top);
  if (!rc && out) rc = deliver(&m, top, out);
  mlirContextDetachDiagnosticHandler(m.ctx, h);
  mjob_end(&m);
  return rc;
}

/* serialize_in on a thread with the parsers' large stack: lowering and translation
** recurse through a caller's deeply nested module too. */
typedef struct serialize_call {
  gpublob *g;
  const gpublob_options *opts;
  MlirOperation top;
  const char *name;
  int register_translations, rc;
} serialize_call;

static void *serialize_call_run(void *arg) {
  serialize_call *c = arg;
  c->rc = serialize_in(c->g, c->opts, c->top, c->name, c->register_translations, NULL);
  return NULL;
}

static int serialize_on_parse_stack(gpublob *g, const gpublob_options *opts, MlirOperation top,
                                    const char *name, int register_translations) {
  serialize_call c = {g, opts, top, name, register_translations, 0};
  on_parse_stack(serialize_call_run, &c);
  return c.rc;
}

/* ---- MLIR: text or bytecode in, the whole module out ---- */
static int looks_like_mlir_bytecode(const void *p, size_t n) {
  return n >= 4 && !memcmp(p, "ML\xefR", 4);
}

/* A location without a file name (what mlirModuleCreateParse gives) gets name. */
static MlirLocation named_location(MlirContext ctx, MlirLocation loc, const char *name) {
  if (!mlirLocationIsAFileLineColRange(loc) ||
      mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(loc)).length)
    return loc;
  return mlirLocationFileLineColRangeGet(ctx, cref(name), (unsigned)mlirLocationFileLineColRangeGetStartLine(loc),
                                         (unsigned)mlirLocationFileLineColRangeGetStartColumn(loc),
                                         (unsigned)mlirLocationFileLineColRangeGetEndLine(loc),
                                         (unsigned)mlirLocationFileLineColRangeGetEndColumn(loc));
}

static MlirWalkResult name_locations(MlirOperation op, void *arg) {
  const char *name = arg;
  MlirContext ctx = mlirOperationGetContext(op);
  mlirOperationSetLocation(op, named_location(ctx, mlirOperationGetLocation(op), name));
  for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); r++)
    for (MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r)); !mlirBlockIsNull(b);
         b = mlirBlockGetNextInRegion(b))
      for (intptr_t a = 0; a < mlirBlockGetNumArguments(b); a++) {
        MlirValue v = mlirBlockGetArgument(b, a);
        mlirBlockArgumentSetLocation(v, named_location(ctx, mlirValueGetLocation(v), name));
      }
  return MlirWalkResultAdvance;
}

/* Text of several top-level operations (or none) goes into a module, as mlir-opt
** puts it; the parser that does so names no file, so its locations get name. */
static MlirOperation parse_wrapped(MlirContext ctx, strbuf *diag, const void *data, size_t size,
                                   const char *name) {
  sb_reset(diag);
  MlirModule mod = mlirModuleCreateParse(ctx, mlirStringRefCreate(data, size));
  if (mlirModuleIsNull(mod)) return (MlirOperation){NULL};
  MlirOperation top = mlirModuleGetOperation(mod);
  mlirOperationWalk(top, name_locations, (void *)name, MlirWalkPreOrder);
  return top;
}

static MlirOperation parse_mlir(gpublob *g, MlirContext ctx, strbuf *diag, const void *data,
                                size_t size, const char *name) {
  MlirOperation top = mlirOperationCreateParse(ctx, mlirStringRefCreate(data, size), cref(name));
  int bc = looks_like_mlir_bytecode(data, size);
  if (mlirOperationIsNull(top) && !bc && strstr(sb_str(diag), "source must contain a single top-level operation"))
    top = parse_wrapped(ctx, diag, data, size, name);
  if (mlirOperationIsNull(top)) {
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
                        const char *name, mlir_out *out) {
  double t = now_ms();
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
  double parse_ms = now_ms() - t;
  int rc = mlirOperationIsNull(top) ? g->code : serialize_in(g, opts, top, name, 1, out);
  t = now_ms(); /* MLIR's own teardown: counted with loading, as LLVM's is */
  if (!mlirOperationIsNull(top)) mlirOperationDestroy(top);
  mlirContextDestroy(ctx);
  g->stats.load_ms += parse_ms + now_ms() - t;
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
  if (!rc) rc = serialize_on_parse_stack(g, &s->o, op, location_file(op, name, sizeof name), 0);
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
#else  /* the cache front: no LLVM objects to release */
static void job_release_llvm(job *j) { (void)j; }
#endif /* GPUBLOB_COMPILER */

/* ---- a call: its cache lookup, its compile, and its figures ---- */
#if GPUBLOB_COMPILER
/* Outputs a single-blob call would give: chips per choice, or a pack per choice. */
static size_t outputs_planned(const gpublob_options *o) {
  const gpublob_target_choice single = {o->target, o->chip, o->features};
  const gpublob_target_choice *list = o->ntargets && o->targets ? o->targets : &single;
  size_t n = o->ntargets && o->targets ? o->ntargets : 1, count = 0;
  for (size_t i = 0; i < n; i++) {
    const char *t = list[i].target ? list[i].target : "", *colon = strchr(t, ':');
    const char *chips = list[i].chip ? list[i].chip : colon ? colon + 1 : "";
    size_t chipn = 1;
    for (const char *c = chips; *c; c++) chipn += *c == ',';
    count += o->format == GPUBLOB_FORMAT_FATBIN ? 1 : chipn;
  }
  return count;
}

/* ---- text input: how deep its brackets go, checked before a parser recurses ---- */
/* Brackets ( [ { < outside strings and comments (; in LLVM IR, // in MLIR); MLIR's
** arrow -> is no bracket.  Bitcode and MLIR bytecode have no text to look at. */
static int check_nesting(gpublob *g, int input, const unsigned char *p, size_t n, const char *name) {
  int mlir = input == GPUBLOB_INPUT_MLIR;
  if (looks_like_bitcode(p, n) || (n >= 4 && !memcmp(p, "ML\xefR", 4))) return GPUBLOB_OK;
  size_t depth = 0, line = 1, col = 0;
  for (size_t i = 0; i < n; i++, col++) {
    unsigned char c = p[i];
    if (c == '\n') line++, col = 0;
    else if (c == '"') /* LLVM IR has no escaped quote (\22); MLIR has \" */
      for (i++; i < n && p[i] != '"'; i++) i += mlir && p[i] == '\\' && i + 1 < n;
    else if ((!mlir && c == ';') || (mlir && c == '/' && i + 1 < n && p[i + 1] == '/'))
      while (i + 1 < n && p[i + 1] != '\n') i++;
    else if (strchr("([{<", c) && c)
      depth++;
    else if (strchr(")]}>", c) && c && depth && !(c == '>' && i && p[i - 1] == '-'))
      depth--;
    if (depth > GPUBLOB_MAX_NESTING)
      return set_error(g, GPUBLOB_PARSE, "%s:%zu:%zu: brackets nest deeper than %d levels; gpublob refuses "
                       "that before the parser, which would recurse once a level", name, line, col + 1,
                       GPUBLOB_MAX_NESTING);
  }
  return GPUBLOB_OK;
}

#if GPUBLOB_MLIR
typedef struct mlir_call { /* mlir_compile's arguments, for the parse thread */
  gpublob *g;
  const gpublob_options *opts;
  const void *data;
  size_t size;
  const char *name;
  mlir_out *out;
  int rc;
} mlir_call;

static void *mlir_call_run(void *arg) {
  mlir_call *m = arg;
  m->rc = mlir_compile(m->g, m->opts, m->data, m->size, m->name, m->out);
  return NULL;
}
#endif

/* data holds a NUL at data[size].  MLIR gives one output, the whole module. */
static int call_compile(gpublob *g, const gpublob_options *opts, int input, const unsigned char *data,
                        size_t size, const char *name, gpublob_result *out) {
  double t0 = now_ms();
  gpublob_options o;
  options_normalise(opts, &o);
  cache c;
  key128 k0;
  if (check_version(g, &o)) return g->code; /* a newer struct's fields may change the output */
  int cached = cache_open(&c, g, &o), rc = -1;
  if (cached) {
    k0 = call_key(&o, input, data, size, name);
    rc = cache_lookup(&c, &k0, &o, out);
    g->stats.cache_ms += now_ms() - t0;
    rc ? g->stats.cache_misses++ : g->stats.cache_hits++;
  }
  int hit = !rc;
  rc = hit ? GPUBLOB_OK : check_nesting(g, input, data, size, name);
  if (!hit && !rc && (o.flags & GPUBLOB_FLAG_ISOLATE)) rc = gpublob_helper_start(g);
  if (!hit && !rc && input == GPUBLOB_INPUT_MLIR) {
#if GPUBLOB_MLIR
    mlir_out mo = {out, cached ? &c : NULL, &k0};
    mlir_call mc = {g, opts, data, size, name, &mo, 0};
    on_parse_stack(mlir_call_run, &mc); /* MLIR parses, lowers and translates here */
    rc = mc.rc;
#else
    rc = set_error(g, GPUBLOB_NOMLIR,
                   "%s: MLIR input needs a gpublob built with MLIR (configure with libmlir-22-dev)", name);
#endif
  } else if (!hit && !rc) {
    rc = ir_compile(g, opts, data, size, name, cached ? &c : NULL, &k0, out);
  }
  if (cached) cache_close(&c);
  g->stats.wall_ms = now_ms() - t0;
  return rc;
}

/* In memory: checked, copied with a NUL after it (the IR parser needs one), compiled. */
static int compile_memory(gpublob *g, const gpublob_options *opts, int input, const void *data,
                          size_t size, const char *name, gpublob_result *out) {
  if (!g) return GPUBLOB_MISUSE;
  call_reset(g);
  if (out) memset(out, 0, sizeof *out);
  if (!out || (!data && size) || size == (size_t)-1)
    return set_error(g, GPUBLOB_MISUSE, "NULL output or input, or an impossible size");
  gpublob_options o;
  options_normalise(opts, &o);
  if (size > max_input(&o)) return too_big(g, name ? name : "<memory>", &o);
  unsigned char *copy = malloc(size + 1);
  if (!copy) return set_error(g, GPUBLOB_NOMEM, "out of memory (%zu bytes)", size);
  if (size) memcpy(copy, data, size);
  copy[size] = 0;
  int rc = call_compile(g, opts, input, copy, size, name ? name : "<memory>", out);
  free(copy);
  return rc;
}

static int compile_file(gpublob *g, const gpublob_options *opts, int input, const char *path,
                        gpublob_result *out) {
  if (!g) return GPUBLOB_MISUSE;
  call_reset(g);
  if (out) memset(out, 0, sizeof *out);
  if (!out || !path) return set_error(g, GPUBLOB_MISUSE, "NULL output or path");
  unsigned char *data;
  size_t size;
  gpublob_options o;
  options_normalise(opts, &o);
  if (read_input(g, &o, path, &data, &size)) return g->code;
  int rc = call_compile(g, opts, input, data, size, strcmp(path, "-") ? path : "<stdin>", out);
  free(data);
  return rc;
}

/* A result of exactly one output, as one blob. */
static int single_blob(gpublob *g, int rc, gpublob_result *r, gpublob_blob *out) {
  if (!rc && r->count != 1)
    rc = set_error(g, GPUBLOB_OPTION, "the call gave %zu outputs; use gpublob_module_compile_all", r->count);
  if (!rc) *out = r->outputs[0].blob, memset(&r->outputs[0].blob, 0, sizeof *out);
  gpublob_result_free(r);
  return rc;
}

static int one_output(gpublob *g, const gpublob_options *opts, gpublob_blob *out) {
  if (!g) return GPUBLOB_MISUSE;
  if (out) memset(out, 0, sizeof *out);
  gpublob_options o;
  options_normalise(opts, &o);
  size_t n = outputs_planned(&o);
  if (n == 1) return GPUBLOB_OK;
  call_reset(g);
  return set_error(g, GPUBLOB_OPTION, "LLVM IR input for %zu outputs needs gpublob_module_compile_all "
                   "(gpublob_module_compile gives one blob)", n);
}
#endif

/* ---- the public API ---- */
int gpublob_open(gpublob **out) {
  if (!out) return GPUBLOB_MISUSE;
  *out = calloc(1, sizeof **out);
  if (!*out) return GPUBLOB_NOMEM;
  pthread_mutex_init(&(*out)->helper_mu, NULL);
  (*out)->helper_live = -1;
#if GPUBLOB_COMPILER
  pthread_once(&llvm_once, llvm_init);
#endif
  return GPUBLOB_OK;
}

void gpublob_close(gpublob *g) {
  if (!g) return;
#if GPUBLOB_COMPILER
  helper_stop(g);
#endif
  pthread_mutex_destroy(&g->helper_mu);
  sb_free(&g->msg);
  sb_free(&g->warn);
  free(g);
}

#if GPUBLOB_COMPILER
int gpublob_module_compile(gpublob *g, const gpublob_options *opts, const void *ir, size_t size,
                           const char *name, gpublob_blob *out) {
  gpublob_result r = {0};
  int rc = one_output(g, opts, out);
  if (!rc && !out) rc = set_error(g, GPUBLOB_MISUSE, "NULL output");
  if (!rc) rc = compile_memory(g, opts, GPUBLOB_INPUT_LLVM, ir, size, name, &r);
  return rc ? (gpublob_result_free(&r), rc) : single_blob(g, rc, &r, out);
}

int gpublob_file_compile(gpublob *g, const gpublob_options *opts, const char *path,
                         gpublob_blob *out) {
  gpublob_result r = {0};
  int rc = one_output(g, opts, out);
  if (!rc && !out) rc = set_error(g, GPUBLOB_MISUSE, "NULL output");
  if (!rc) rc = compile_file(g, opts, GPUBLOB_INPUT_LLVM, path, &r);
  return rc ? (gpublob_result_free(&r), rc) : single_blob(g, rc, &r, out);
}

int gpublob_module_compile_all(gpublob *g, const gpublob_options *opts, const void *ir, size_t size,
                               const char *name, gpublob_result *out) {
  return compile_memory(g, opts, GPUBLOB_INPUT_LLVM, ir, size, name, out);
}

int gpublob_file_compile_all(gpublob *g, const gpublob_options *opts, const char *path,
                             gpublob_result *out) {
  return compile_file(g, opts, GPUBLOB_INPUT_LLVM, path, out);
}
#endif

void gpublob_blob_free(gpublob_blob *b) {
  if (!b) return;
  free(b->data);
  memset(b, 0, sizeof *b);
}

int gpublob_cache_lookup(gpublob *g, const gpublob_options *opts, int input, const void *data,
                         size_t size, const char *name, gpublob_result *out) {
  if (!g) return GPUBLOB_MISUSE;
  call_reset(g);
  if (out) memset(out, 0, sizeof *out);
  if (!out || (!data && size) || (input != GPUBLOB_INPUT_LLVM && input != GPUBLOB_INPUT_MLIR))
    return set_error(g, GPUBLOB_MISUSE, "NULL output or input, or an unknown input kind");
  double t = now_ms();
  gpublob_options o;
  options_normalise(opts, &o);
  cache c;
  if (check_version(g, &o)) return g->code;
  if (!o.cache_dir || !*o.cache_dir) return set_error(g, GPUBLOB_OPTION, "no cache directory in the options");
  if (!cache_open(&c, g, &o))
    return set_error(g, GPUBLOB_NOTCACHED, "not in the cache %s: %s", o.cache_dir, gpublob_warnings(g));
  key128 k0 = call_key(&o, input, data ? data : "", size, name ? name : "<memory>");
  int hit = !cache_lookup(&c, &k0, &o, out);
  cache_close(&c);
  hit ? g->stats.cache_hits++ : g->stats.cache_misses++;
  g->stats.cache_ms = g->stats.wall_ms = now_ms() - t;
  return hit ? GPUBLOB_OK : set_error(g, GPUBLOB_NOTCACHED, "not in the cache %s", c.dir);
}

const char *gpublob_warnings(const gpublob *g) { return g && !g->warn.oom ? sb_str(&g->warn) : ""; }

int gpublob_stats_get(const gpublob *g, gpublob_stats *out) {
  if (!g || !out) return GPUBLOB_MISUSE;
  *out = g->stats;
  return GPUBLOB_OK;
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

/* A job for questions about opts->target (its name only; the chip does not matter). */
static int query_job(job *j, gpublob *g, const gpublob_options *opts) {
  job_begin(j, g, opts, NULL);
  const char *spec = j->o->target ? j->o->target : targets[0].name, *colon = strchr(spec, ':');
  snprintf(j->target, sizeof j->target, "%.*s", (int)(colon ? colon - spec : (ptrdiff_t)strlen(spec)), spec);
  j->opts.target = j->target;
  j->opts.chip = NULL;
  if (j->opts.format != GPUBLOB_FORMAT_FATBIN) j->opts.format = GPUBLOB_FORMAT_BIN;
  return resolve_target(j);
}

int gpublob_tool_find(gpublob *g, const gpublob_options *opts, char *buf, size_t size) {
  if (!g || !buf || !size) return GPUBLOB_MISUSE;
  job j;
  int rc = query_job(&j, g, opts);
  buf[0] = 0;
  if (!rc && j.t->tool_kind == TOOL_exec) rc = find_tool(&j, buf, size);
  job_end(&j);
  return rc;
}

int gpublob_tool_info_get(gpublob *g, const gpublob_options *opts, size_t njobs,
                          gpublob_tool_info *out) {
  if (!g || !out) return GPUBLOB_MISUSE;
  memset(out, 0, sizeof *out);
  out->kind = "none";
  out->name = "";
  job j;
  int rc = query_job(&j, g, opts);
  j.peers = njobs;
  if (!rc) rc = resolve_levels(&j);
  if (!rc) rc = resolve_tool(&j, 1);
  if (!rc && *j.provider_path) {
    out->kind = "in-process";
    snprintf(out->path, sizeof out->path, "%s", j.provider_path);
    if (find_tool(&j, out->fallback, sizeof out->fallback)) out->fallback[0] = 0;
    j.g->code = GPUBLOB_OK;
  } else if (!rc && needs_blob_tool(&j)) {
    out->kind = "program";
    snprintf(out->path, sizeof out->path, "%s", j.tool);
  }
  out->name = rc || !j.t || !needs_blob_tool(&j) ? "" : *j.provider_path ? j.t->provider_name : base_name(out->path);
  job_end(&j);
  return rc;
}

const char *gpublob_version(void) { return GPUBLOB_VERSION_STRING; }

/* ---- the public API: MLIR ---- */
int gpublob_mlir_enabled(void) { return GPUBLOB_MLIR; }

#if GPUBLOB_COMPILER
static int mlir_blob(gpublob *g, int rc, gpublob_result *r, gpublob_blob *out) {
  if (!rc) *out = r->outputs[0].blob, memset(&r->outputs[0].blob, 0, sizeof *out);
  gpublob_result_free(r);
  return rc;
}

int gpublob_mlir_compile(gpublob *g, const gpublob_options *opts, const void *data, size_t size,
                         const char *name, gpublob_blob *out) {
  gpublob_result r = {0};
  if (out) memset(out, 0, sizeof *out);
  if (g && !out) return call_reset(g), set_error(g, GPUBLOB_MISUSE, "NULL output");
  int rc = compile_memory(g, opts, GPUBLOB_INPUT_MLIR, data, size, name, &r);
  return g ? mlir_blob(g, rc, &r, out) : rc;
}

int gpublob_mlir_file_compile(gpublob *g, const gpublob_options *opts, const char *path,
                              gpublob_blob *out) {
  gpublob_result r = {0};
  if (out) memset(out, 0, sizeof *out);
  if (g && !out) return call_reset(g), set_error(g, GPUBLOB_MISUSE, "NULL output");
  int rc = compile_file(g, opts, GPUBLOB_INPUT_MLIR, path, &r);
  return g ? mlir_blob(g, rc, &r, out) : rc;
}
#endif

#if GPUBLOB_MLIR && GPUBLOB_COMPILER
int gpublob_mlir_serialize(gpublob *g, const gpublob_options *opts, MlirOperation module) {
  if (!g) return GPUBLOB_MISUSE;
  call_reset(g);
  if (mlirOperationIsNull(module)) return set_error(g, GPUBLOB_MISUSE, "null module");
  pthread_once(&mlir_once, mlir_init);
  char name[4096];
  return serialize_on_parse_stack(g, opts, module, location_file(module, name, sizeof name), 1);
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
