/* src/internal.h: what the parts of the core share, each thing declared once.  First
** the system headers, the target descriptor the generator fills, and the types every
** part speaks in (the handle, the job, a blob tool's run, a provider); then, part by
** part in src/parts.h's order, what each part of the shared group (the parts the
** cache front src/front.c has too) shares with any other part: its types, data and
** functions, each named with the part's prefix, under a line that names the part
** and the prefix.  What a part does not declare here is static and its own.  The
** compiler's parts declare theirs in src/internal_compile.h, MLIR's in
** src/internal_mlir.h; a part of a later group that a shared part calls (the
** engine, which the front stands in for) is declared here.
**
** GPUBLOB_PRIVATE marks a shared function or datum where it is defined and here: it
** is static in the one translation unit (gpublob.c, src/front.c and the vendored
** build/vendor/gpublob.c), so the library exports gpublob.h's calls alone; with
** GPUBLOB_PART_ALONE=1 it is extern, and each part compiles on its own with its
** group's header (tools/rooms.sh, run by ninja rooms and CI). */
#ifndef GPUBLOB_INTERNAL_H
#define GPUBLOB_INTERNAL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "config.h"
#define GPUBLOB_BUILDING /* GPUBLOB_API exports; no deprecation warnings */
#include "../gpublob.h"

#ifndef GPUBLOB_PARTS_FRONT
#define GPUBLOB_PARTS_FRONT 0 /* 1: the cache front (src/front.c), the shared group alone */
#endif
#ifndef GPUBLOB_PART_ALONE
#define GPUBLOB_PART_ALONE 0 /* 1: a part compiled on its own (tools/rooms.sh) */
#endif
#if GPUBLOB_PART_ALONE
#define GPUBLOB_PRIVATE               /* shared between separately compiled parts */
#define GPUBLOB_PRIVATE_DATA extern   /* a datum's declaration */
#else
#define GPUBLOB_PRIVATE static        /* one translation unit: nothing exported */
#define GPUBLOB_PRIVATE_DATA static   /* a tentative definition; the part gives the value */
#endif

#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
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
#include <sys/prctl.h>
#include <sys/resource.h>
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

extern char **environ;

/* An array of chars that is not a string (no NUL): GCC may check its uses. */
#if defined(__has_attribute)
#if __has_attribute(nonstring)
#define GPUBLOB_NONSTRING __attribute__((nonstring))
#endif
#endif
#ifndef GPUBLOB_NONSTRING
#define GPUBLOB_NONSTRING
#endif

/* ---- the target descriptors, generated from the spec ---- */
/* A target's name, and a field per key of the spec (src/spec_keys.h); the table
** (src/target.c) initialises each from build/gpublob_targets.def. */
#include "spec_keys.h"
#include "math_modes.h" /* the math modes: the spec's conditions, the flags, the CLI's */
#include "kernel_keys.h" /* the AMD kernel keys: the note reader's, MLIR's, the tests' */

typedef struct target_desc {
  const char *name;
  GPUBLOB_SPEC_KEYS(GPUBLOB_SPEC_FIELD)
} target_desc;

/* A target choice, "NAME[:CHIP[,CHIP...]]", parsed once (resolve_target_parse): all that the
** plan and resolve_target need of it, so that no one reads the string again. */
typedef struct target_ref {
  const char *name;     /* the target's name, n bytes (a colon may follow) */
  size_t n;
  const target_desc *t; /* the spec of that name; NULL: unknown (TARGET when a job of it is resolved) */
  const char *chips;    /* the choice's chip field when it has one, else what follows the colon, else NULL */
} target_ref;

typedef struct strbuf {
  char *s;
  size_t len, cap;
  int oom;
} strbuf;

/* A kernel's parameter as a reader found it: the kernel's index in its table, and
** the record gpublob_param_get gives. */
typedef struct kt_param {
  size_t kernel;
  gpublob_param_info info;
} kt_param;

/* Kernels read from a blob (src/kernels.c): the records, their parameters (in kernel
** order, each kernel's together, by index), and the strings they point at, each its
** own allocation so the records stay put as the table grows. */
typedef struct ktable {
  gpublob_kernel_info *k;
  size_t n;
  kt_param *p;
  size_t np;
  char **str;
  size_t nstr;
} ktable;

/* The kernels of the output a handle read last (gpublob_kernel_get), kept while
** the same blob is asked about; its bytes' hash tells a new result at an old address. */
typedef struct kernel_cache {
  ktable t;
  const void *data;
  size_t size;
  uint64_t hash;
  int valid;
} kernel_cache;

struct gpublob {
  int code;
  strbuf msg;
  strbuf warn;          /* the last call's warnings, one per line */
  gpublob_stats stats;  /* the last call's figures */
  strbuf held[3];       /* strings an answer hands out (tool paths, library lists), until the next call */
  kernel_cache kernels; /* the kernels of the output read last, and their strings */
  pid_t helper;         /* the isolation helper, once started; 0 before */
  pid_t helper_owner;   /* the process that started it: a forked copy of the host leaves it be */
  int helper_ctl;       /* the socket jobs are handed to it by */
  int helper_live;      /* its slot in the table of live processes */
  pthread_mutex_t helper_mu; /* one job handed over at a time */
  struct devlib_share *lib_share; /* the device libraries the jobs of a call share while the pool
                                  runs them (src/devlib_share.c); NULL otherwise */
  unsigned providers_started;  /* the provider loads this call started, a bit each (src/provider.c) */
};

/* The LLVM state of a job (src/llvm.c): none of it in the cache front. */
typedef struct llvm_state llvm_state;
typedef struct devlib_share devlib_share;

typedef struct workdir {
  strbuf dir, in, out; /* the directory; the tool's input and output */
  int live;            /* its slot in the table of live directories */
  int lock;            /* the directory, open and flock'ed while it lives (src/tmp_sweep.c); -1: none */
} workdir;

typedef struct proc {
  pid_t pid;  /* also its process group; 0 when not running */
  int in_fd;  /* this end of its input channel; -1 when none or closed */
  int out_fd; /* its stdout and stderr; -1 when closed */
  int live;   /* its slot in the table of live processes */
  double cpu_ms; /* its own CPU time, user + sys (wait4's rusage), once reaped; else 0 */
} proc;

/* An argv: its words in one buffer, each ended by its NUL, and pointers to them. */
typedef struct argvec {
  strbuf text;
  size_t argc;
  char **argv; /* NULL-ended, into text; NULL until made */
} argvec;

typedef struct toolrun { /* a blob tool in flight */
  workdir w;
  int made;      /* w.dir exists */
  int file;      /* it reads w.in, a file in w.dir (tool_reads_file) */
  argvec args;
  strbuf output; /* the tool's stdout and stderr */
  proc p;
} toolrun;

/* An in-process blob tool (src/provider.c): a provider's ops, and its library loaded. */
typedef struct job job;
typedef struct provider provider;
typedef struct provider_ops {
  const char *name;            /* the spec's provider = NAME */
  const char *const *symbols;  /* the entry points its library must export; NULL-terminated */
  int (*run)(job *j, const provider *p, const char **opts, uint32_t nopts); /* j->out in, blob out */
  const char *linked;          /* linked into gpublob (the spec's provider_from = linked): its
                                  identity for the cache's keys; NULL for a library to load */
  int (*usable)(void);         /* 0 once it cannot run in this process; NULL: always usable */
  int files;                   /* it reads {in} and writes {out}, files in a private directory */
  void (*warm)(void);          /* readies a linked provider's first run in the isolation helper,
                                  whose tool children then start warm; NULL: nothing to ready */
} provider_ops;
enum { MAX_PROVIDER_SYMBOLS = 32 };
struct provider {
  const provider_ops *ops;
  char *path; /* its own copy, kept while the process lives */
  void *dl;
  void *fn[MAX_PROVIDER_SYMBOLS]; /* ops->symbols, in order */
  char error[512];                /* why it did not load; "" when loaded */
  int loading;                    /* its loader thread is still at work (providers_mu) */
  double load_ms;                 /* how long the load took */
};

/* An in-process pack step (src/pack.c's registry): the members' blobs in, one pack
** out; ids[i] is member i's entry id (the spec's pack_target), opts the spec's
** pack_provider_argv; errors go to members[0]'s handle. */
typedef struct pack_provider_ops {
  const char *name; /* the spec's pack_provider = NAME */
  int (*run)(job *const *members, size_t n, char *const *ids, char *const *opts, size_t nopts,
             gpublob_blob *out);
} pack_provider_ops;

enum job_state { JOB_PENDING, JOB_DONE, JOB_FAILED, JOB_CANCELLED };
enum { PH_LOAD, PH_LINK, PH_OPT, PH_EMIT, PH_TOOL, NPHASES };

typedef struct job {
  gpublob *g;       /* where its errors go: the caller's handle, or sink in a pool */
  gpublob *host;    /* the caller's handle: its isolation helper */
  gpublob sink;
  const target_desc *t;
  target_ref aim;            /* its target, as parsed (resolve_job_aim); resolve_target takes t from it */
  char target[64], want[64]; /* as planned: the target's name, one chip or "" */
  char chip[64];             /* as resolved: the chip and its modifiers, a target id (gfx90a:xnack+) */
  char cpu[64];              /* the chip alone: what LLVM gets, {chip} in templates */
  char planned[64];          /* chip as the options resolved it, before the module's pins named
                                an open modifier (adopt_pinned_modifiers): the cache's manifest */
  unsigned abi;              /* the ABI version in effect ({abi}); 0 for a target without */
  const char *abi_from;      /* where opts.abi came from, for messages: "from the options" */
  unsigned abi_default;      /* the default in place of the spec's (an MLIR attribute's, mlir_abi); 0: none */
  char triple[128];          /* what LLVM gets: the spec's, or the module's sub-architecture of it */
  strbuf features;  /* what LLVM gets: spec default, then the caller's */
  strbuf condfeat;  /* what {if:+x} reads: the chip's implied, then features */
  int format, opt;  /* a pack's member compiles as bin */
  int fp_contract;  /* enum gpublob_fp_contract, resolved: ON, FAST or OFF (with --as clang and
                       none asked, the module's language's once it is parsed: peer_job_language) */
  int as;           /* enum gpublob_as, resolved: MLIR or CLANG */
  strbuf mllvm;     /* --as clang: LLVM's options for the module's language (clang_mllvm), blank-separated */
  unsigned isa_conds; /* the spec's isa_conditions the backend's assembly met: bit i for the i-th */
  unsigned flags;
  const gpublob_options *o; /* &opts */
  gpublob_options opts;     /* the caller's, normalised, with this job's target */
  const char *name;
  const unsigned char *src; /* LLVM IR to parse (NUL at src[src_size]); NULL: mod is set */
  size_t src_size;
  llvm_state *llvm;   /* its LLVM context, module and target machine; NULL outside LLVM work */
  strbuf diag; /* LLVM diagnostics of this job */
  int diag_errors; /* of error severity: the job fails, whatever LLVM returned */
  gpublob_blob out;
  gpublob_blob asm_out; /* a pack's newest chip keeps its assembly */
  int keep_asm;
  int mlir_input;   /* the module came from MLIR: the middle end as mlir-opt runs it (src/passes.cpp) */
  const char *tool;      /* the blob program, found before any compile work: malloc'd, or "" */
  const char *tool_name; /* what makes the blob: program or provider name, "" */
  const char *provider_path; /* the provider's library when it is the one to use: malloc'd, or "" */
  const provider *prov;     /* loaded: the in-process provider in use */
  toolrun run;
  strbuf tool_log;  /* with GPUBLOB_FLAG_TOOL_LOG: the blob tool's output (its info log) */
  strbuf report;    /* the tool's report, a line a function (src/tool_report.c) */
  int report_added; /* gpublob added the words that ask the tool for it */
  strbuf dump;      /* the dump directory's names start so: /DIR/STEM.TARGET.CHIP. ("": no dump) */
  int state;
  double ms[NPHASES];
  double provider_load_ms; /* loading its in-process provider, where this job loaded it */
  int provider_loader;     /* this job started its provider's load (its time is this job's) */
  double tool_cpu_ms;      /* its tools' own CPU: programs' user + sys, a provider's thread CPU */
  long long object_flags;  /* the backend object's ELF e_flags before the blob tool; -1: none */
  strbuf kernels;          /* the module's kernels as the backend emitted them, for the blob's check:
                              each a u32 length (little-endian) and its name's bytes */
  int kernels_known;       /* kernels holds them all (a bin job of a target with entry_cc) */
} job;

/* ======== what each shared part shares, in src/parts.h's order ======== */
/* ---- src/strbuf.c (sb_) ---- */
GPUBLOB_PRIVATE int sb_room(strbuf *b, size_t n);
GPUBLOB_PRIVATE void sb_addn(strbuf *b, const char *s, size_t n);
GPUBLOB_PRIVATE void sb_add(strbuf *b, const char *s);
GPUBLOB_PRIVATE void sb_vaddf(strbuf *b, const char *fmt, va_list ap);
GPUBLOB_PRIVATE void sb_addf(strbuf *b, const char *fmt, ...);
GPUBLOB_PRIVATE const char *sb_str(const strbuf *b);
GPUBLOB_PRIVATE void sb_reset(strbuf *b);
GPUBLOB_PRIVATE void sb_free(strbuf *b);
GPUBLOB_PRIVATE strbuf sb_move(strbuf *b);

/* ---- src/util.c (util_) ---- */
/* Each comma parts two chips, so ",," or a comma at either end leaves an empty one;
** "" (or NULL) holds none. */
typedef struct util_chip_list {
  const char *rest; /* what is left of the list; NULL after its last chip */
} util_chip_list;
GPUBLOB_PRIVATE void util_blob_release(gpublob_blob *b);
GPUBLOB_PRIVATE int util_grow(void *pp, size_t n, size_t size);
GPUBLOB_PRIVATE const char *util_next_word(const char **p, const char *seps, size_t *n);
GPUBLOB_PRIVATE int util_shell_words(const char *s, strbuf *out, size_t *count);
GPUBLOB_PRIVATE int util_word_is(const char *w, size_t n, const char *s);
GPUBLOB_PRIVATE int util_list_index(const char *list, const char *s, size_t n);
GPUBLOB_PRIVATE const char *util_pair_value(const char *list, const char *key, size_t *n);
GPUBLOB_PRIVATE int util_glob_match(const char *pattern, size_t n, const char *s);
GPUBLOB_PRIVATE util_chip_list util_chip_list_of(const char *list);
GPUBLOB_PRIVATE int util_next_chip(util_chip_list *l, const char **chip, size_t *n);
GPUBLOB_PRIVATE double util_clock_ms(clockid_t clock);
GPUBLOB_PRIVATE double util_now_ms(void);

/* ---- src/io.c (io_) ---- */
enum { READ_CHUNK = 65536 }; /* bytes asked of one read */
GPUBLOB_PRIVATE ssize_t io_read_some(int fd, strbuf *b, size_t n);
GPUBLOB_PRIVATE ssize_t io_read_upto(int fd, strbuf *b, size_t n);
GPUBLOB_PRIVATE int io_read_fd(int fd, unsigned char **data, size_t *size, size_t max);
GPUBLOB_PRIVATE int io_make_dirs(const char *path, mode_t mode);
GPUBLOB_PRIVATE ssize_t io_write_some(int fd, const void *p, size_t n);
GPUBLOB_PRIVATE int io_write_all(int fd, const void *data, size_t n);
GPUBLOB_PRIVATE int io_write_new_file(int dirfd, const char *name, mode_t mode, const void *head, size_t hn,
                          const void *data, size_t n);
#if !GPUBLOB_PARTS_FRONT
GPUBLOB_PRIVATE int io_write_file(const char *path, const void *data, size_t n);
#endif

/* ---- src/handle.c (handle_) ---- */
GPUBLOB_PRIVATE const char *handle_error_text(int code);
GPUBLOB_PRIVATE int handle_set_error(gpublob *g, int code, const char *fmt, ...);
GPUBLOB_PRIVATE void handle_warn_once(gpublob *g, const char *line);
GPUBLOB_PRIVATE void handle_add_warning(gpublob *g, const char *fmt, ...);
GPUBLOB_PRIVATE void handle_add_detail(gpublob *g, const char *detail);
GPUBLOB_PRIVATE void handle_call_reset(gpublob *g);

/* ---- src/output_report.c (output_report_) ---- */
GPUBLOB_PRIVATE int output_report_note_set(const gpublob_output *o, const char *report, unsigned block_size,
                                           size_t input);
GPUBLOB_PRIVATE void output_report_note_drop(const char *key);
GPUBLOB_PRIVATE int output_report_note_get(const gpublob_output *o, strbuf *report, unsigned *block_size);
GPUBLOB_PRIVATE size_t output_report_note_input(const gpublob_output *o);
GPUBLOB_PRIVATE const char *output_report_field(const char **p, const char *end, size_t *n);
GPUBLOB_PRIVATE long long output_report_number(const char *s, size_t n);
GPUBLOB_PRIVATE void output_report_merge(ktable *kt, const char *report);

/* ---- src/live.c (live_) ---- */
/* Fixed tables, because gpublob_process_cleanup runs in a signal handler: it may
** touch only atomics and memory nobody frees, and remove a directory with system
** calls alone.  A process is a group leader, killed with its group; a directory is
** one a job made, its path copied into its slot's buffer (so no owner's memory is
** read).  A slot's buffer is allocated when the slot is first taken and kept for
** its later paths, never freed (a handler may be reading it): the tables cost an
** embedder a few kilobytes of .bss, and a buffer only for slots a call used. */
enum { MAX_LIVE_PIDS = 1024, MAX_LIVE_DIRS = 256, LIVE_PATH = 4096, MAX_TREE_DEPTH = 32 };
enum { SLOT_FREE, SLOT_WRITING, SLOT_READY };
struct live_dir {
  atomic_int state;
  char *path; /* LIVE_PATH bytes once the slot was first taken; set before READY */
};
GPUBLOB_PRIVATE_DATA struct live_dir live_dirs[MAX_LIVE_DIRS];
GPUBLOB_PRIVATE_DATA atomic_int live_pids[MAX_LIVE_PIDS];
GPUBLOB_PRIVATE void live_remove_tree(const char *dir);

/* ---- src/options.c (options_) ---- */
#define OUTPUT_NEUTRAL_FLAGS ((unsigned)(GPUBLOB_FLAG_ISOLATE | GPUBLOB_FLAG_REMOTE_READ_ONLY))
/* Flags that say where tools and libraries are searched, not what is found: the cache's
** keys and the toolchain identity digest what is found instead. */
#define PLACE_FLAGS ((unsigned)GPUBLOB_FLAG_NO_DEFAULT_SEARCH)
enum { MAX_JOBS = 4096 }; /* in one call */
/* The largest block_size: occupancy is figured for blocks of up to this many threads
** (occupancy_fill's OCC_MAX_COUNT, src/occupancy.c), 16 times any chip's largest
** block, so that every block size the options take gets an occupancy (0 where no
** chip or kernel takes so large a block) and min_occupancy is always checked. */
enum { MAX_BLOCK_SIZE = 1 << 24 };
GPUBLOB_PRIVATE_DATA const gpublob_options options_default;
GPUBLOB_PRIVATE size_t options_size(unsigned version);
GPUBLOB_PRIVATE int options_limits_valid(gpublob *g, const gpublob_options *o);
GPUBLOB_PRIVATE int options_check_version(gpublob *g, const gpublob_options *o);
GPUBLOB_PRIVATE int options_normalise(gpublob *g, const gpublob_options *o, gpublob_options *out);

/* ---- src/job_state.c (job_state_) ---- */
GPUBLOB_PRIVATE void job_state_path_free(const char **path);
GPUBLOB_PRIVATE void job_state_path_take(const char **path, strbuf *b);
GPUBLOB_PRIVATE void job_state_begin(job *j, gpublob *g, const gpublob_options *o, const char *name);
GPUBLOB_PRIVATE void job_state_end(job *j);

/* ---- src/target.c (target_) ---- */
GPUBLOB_PRIVATE int target_count(void);
GPUBLOB_PRIVATE const target_desc *target_at(int i);

/* ---- src/resolve.c (resolve_) ---- */
GPUBLOB_PRIVATE const target_desc *resolve_target_named(const char *name, size_t n);
GPUBLOB_PRIVATE target_ref resolve_target_parse(const char *spec, const char *chip);
GPUBLOB_PRIVATE void resolve_job_aim(job *j, const target_ref *r, const char *chip);
GPUBLOB_PRIVATE const char *resolve_glob_value(const char *list, const char *chip, size_t *vn);
GPUBLOB_PRIVATE int resolve_target_id_valid(const target_desc *t, const char *id, size_t n);
GPUBLOB_PRIVATE int resolve_target(job *j);
GPUBLOB_PRIVATE const char *resolve_feature_below_min(const job *j, const char *w, size_t n, size_t *mn);
GPUBLOB_PRIVATE void resolve_add_id_features(const char *id, strbuf *b);
GPUBLOB_PRIVATE const char *resolve_opposite_in(const char *list, const char *w, size_t n, size_t *m);
GPUBLOB_PRIVATE char resolve_last_sign(const char *features, const char *name, size_t n);
GPUBLOB_PRIVATE int resolve_target_id(job *j);
GPUBLOB_PRIVATE int resolve_levels(job *j);
GPUBLOB_PRIVATE int resolve_check_abi(job *j, unsigned abi, const char *from);
GPUBLOB_PRIVATE int resolve_options(job *j);

/* ---- src/template.c (template_) ---- */
GPUBLOB_PRIVATE unsigned template_math_mode_flag(const char *name, size_t n);
GPUBLOB_PRIVATE int template_spec_tests_condition(const target_desc *t, const char *name);
GPUBLOB_PRIVATE int template_check_math_modes(job *j);
GPUBLOB_PRIVATE const char *template_chip_id(const job *j);
GPUBLOB_PRIVATE const char *template_closing_brace(const char *o, const char *e);
GPUBLOB_PRIVATE void template_expand(const job *j, const char *s, size_t n, const char **vars, strbuf *b);

/* ---- src/search.c (search_) ---- */
typedef struct search {
  strbuf tried; /* a line per path tried, for the error message */
  strbuf found; /* the path found */
  int oom;      /* memory ran out: what was found may not be the first */
} search;
GPUBLOB_PRIVATE void search_end(search *s);
GPUBLOB_PRIVATE const char *search_tried_list(const search *s);
GPUBLOB_PRIVATE int search_find_tool_path(job *j, strbuf *path);
GPUBLOB_PRIVATE int search_find_pack_tool(job *j, strbuf *path);
GPUBLOB_PRIVATE int search_find_provider(job *j, search *s);
GPUBLOB_PRIVATE int search_find_lib(job *j, const char *w, size_t n, strbuf *name, search *s);

/* ---- src/provider_nvjitlink.c (provider_nvjitlink_) ---- */
GPUBLOB_PRIVATE_DATA const provider_ops provider_nvjitlink_ops;

/* ---- src/provider_lld.c (provider_lld_) ---- */
#if GPUBLOB_LLD
GPUBLOB_PRIVATE_DATA const provider_ops provider_lld_ops;
#endif

/* ---- src/provider.c (provider_) ---- */
#if !GPUBLOB_PARTS_FRONT
GPUBLOB_PRIVATE const provider_ops *provider_registered(size_t i);
#endif
GPUBLOB_PRIVATE const provider_ops *provider_ops_of(const target_desc *t);
GPUBLOB_PRIVATE void provider_open(provider *p);
GPUBLOB_PRIVATE int provider_load(job *j);
GPUBLOB_PRIVATE int provider_ready(job *j);
#if !GPUBLOB_PARTS_FRONT
GPUBLOB_PRIVATE void provider_loads_settle(void);
#endif
GPUBLOB_PRIVATE void provider_settle(gpublob *g);

/* ---- src/tool_choice.c (tool_choice_) ---- */
GPUBLOB_PRIVATE int tool_choice_needs_blob_tool(const job *j);
GPUBLOB_PRIVATE int tool_choice_provider_option(const job *j, const char *w, strbuf *out);
GPUBLOB_PRIVATE const char *tool_choice_base_name(const char *path);
GPUBLOB_PRIVATE int tool_choice_resolve_tool(job *j, int load);
GPUBLOB_PRIVATE int tool_choice_pack_way(job *j, strbuf *tool, int *way);

/* ---- src/digest.c (digest_) ---- */
/* The layout's version: the directory under DIR and the remote keys' prefix.  v2 (1.4)
** keeps each output's tool report in an entry; v3 (1.7) has no places in its keys and
** keeps the compile's warnings in an entry; older layouts' files stay where an older
** gpublob still uses them. */
#define CACHE_LAYOUT "v3"
/* A call's manifest is filed under the hash of its input and options, and lists its
** jobs; the result is filed under that hash, the jobs' settings and the digests of
** every file they depend on (the blob tool or provider library, each device
** library, the pack tool).  A changed toolkit gives new digests, so it misses. */
typedef struct digest_key128 {
  unsigned char b[16];
} digest_key128;
typedef struct digest_seen { /* a file already digested in this call */
  char *path;
  digest_key128 d;
  int ok;
} digest_seen;
typedef struct digest_cache {
  strbuf root;              /* DIR/v2, for messages */
  const char *dir;          /* DIR, the options' own string */
  int rootfd;               /* DIR/v2, opened: every file is reached from it */
  unsigned long long max;   /* bytes */
  int writable;             /* 0 once a write failed (warned once) */
  gpublob *g;               /* warnings and figures */
  digest_seen *seen;        /* each file once per call: jobs share tools and libraries */
  size_t nseen;
  struct cache_remote_tier *remote; /* the server behind it (src/cache_remote.c); NULL: none */
  int content_only;         /* a program by its bytes alone, not its name:
                               the toolchain identity's job digests (src/toolchain_id.c); no key
                               holds a file's path */
  size_t warn_from;         /* where the compile's warnings begin in the handle's: an entry
                               keeps them (src/cache_store.c) for its hits to give */
  const gpublob_options *foreseen; /* a lookup's options while it reads its manifest: their
                               jobs' digests are made while the remote tier gets ready */
  const char *foreseen_mlir; /* and its input's text, an MLIR one's (NULL: another kind),
                               whose target attributes name the jobs when no option does */
  size_t foreseen_mlir_size;
} digest_cache;
typedef struct digest_entry_header { /* every cache file starts so; 56 bytes */
  char magic[8];
  uint64_t size;            /* of the payload after it */
  unsigned char hash[16];   /* XXH3-128 of the payload */
  unsigned char key[16];    /* the file's own key */
  char kind, pad[7];        /* 'm' manifest, 'e' entry, 'd' file digest */
} digest_entry_header;
GPUBLOB_PRIVATE_DATA const char digest_cache_magic[8] GPUBLOB_NONSTRING;
GPUBLOB_PRIVATE_DATA digest_key128 digest_spec_key;
GPUBLOB_PRIVATE_DATA pthread_once_t digest_spec_once;
GPUBLOB_PRIVATE void digest_hash_u64(XXH3_state_t *st, uint64_t v);
GPUBLOB_PRIVATE void digest_hash_bytes(XXH3_state_t *st, const void *p, size_t n);
GPUBLOB_PRIVATE void digest_hash_str(XXH3_state_t *st, const char *s);
GPUBLOB_PRIVATE digest_key128 digest_hash_key(XXH3_state_t *st);
GPUBLOB_PRIVATE digest_key128 digest_of(const void *p, size_t n);
GPUBLOB_PRIVATE void digest_spec_hash(void);

/* ---- src/cache_dir.c (cache_dir_) ---- */
/* A cache file read whole (read, not mapped: a file cut short meanwhile cannot
** fault the process): its payload after the header. */
typedef struct cache_dir_file {
  unsigned char *bytes;
  size_t len;
  const unsigned char *data;
  size_t size;
} cache_dir_file;
GPUBLOB_PRIVATE int cache_dir_trusted(int fd);
GPUBLOB_PRIVATE int cache_dir_open(digest_cache *c, gpublob *g, const gpublob_options *o);
GPUBLOB_PRIVATE void cache_dir_key_hex(const digest_key128 *k, char hex[33]);
GPUBLOB_PRIVATE int cache_dir_place(digest_cache *c, const digest_key128 *k, char kind, char name[40], int create);
GPUBLOB_PRIVATE int cache_dir_write(digest_cache *c, const digest_key128 *k, char kind, const strbuf *payload);
GPUBLOB_PRIVATE void cache_dir_file_free(cache_dir_file *m);
GPUBLOB_PRIVATE int cache_dir_read(digest_cache *c, const digest_key128 *k, char kind, cache_dir_file *m);

/* ---- src/cache_remote.c (cache_remote_) ---- */
struct cache_remote_tier;
/* A backend's operations (remote_http_ops in src/remote_http.c, remote_redis_ops in
** src/remote_redis.c: one part a protocol), called by the tier: wants says whether a
** URL is its; open reads its URL and settings into tier->backend (0), or warns once
** and gives -1; get and put are cache_remote_get's and cache_remote_put's for one
** file; off (or NULL) drops a connection after a fault; close frees the state; warm
** (or NULL) starts a slow preparation on a thread (cache_remote_warm). */
typedef struct cache_remote_ops {
  int (*wants)(const char *url);
  int (*open)(digest_cache *c, struct cache_remote_tier *r, const gpublob_options *o);
  int (*get)(digest_cache *c, const digest_key128 *k, char kind, cache_dir_file *m);
  void (*put)(digest_cache *c, const digest_key128 *k, char kind, const void *head, size_t hn, const void *data,
              size_t n);
  void (*off)(struct cache_remote_tier *r);
  void (*close)(struct cache_remote_tier *r);
  int (*warm)(struct cache_remote_tier *r);
} cache_remote_ops;
/* The tier: the settings every backend shares, and its backend's operations and state. */
typedef struct cache_remote_tier {
  strbuf shown;            /* the URL without its credentials, for messages */
  unsigned timeout_ms;
  unsigned long long max;  /* payload bytes; larger files are not stored */
  int read_only, dead;
  int not_here;            /* a server this program leaves to another (the static front) */
  const cache_remote_ops *ops;
  void *backend;           /* the backend's state (its open makes it, its close frees it) */
  pthread_mutex_t mu;      /* a call's threads take turns on the one connection */
} cache_remote_tier;
GPUBLOB_PRIVATE const char *cache_remote_credentials_end(const char *url);
GPUBLOB_PRIVATE void cache_remote_open(digest_cache *c, const gpublob_options *o);
GPUBLOB_PRIVATE void cache_remote_fault(digest_cache *c, const char *what, const char *detail);
GPUBLOB_PRIVATE int cache_remote_get(digest_cache *c, const digest_key128 *k, char kind, cache_dir_file *m);
GPUBLOB_PRIVATE void cache_remote_put(digest_cache *c, const digest_key128 *k, char kind, const void *head, size_t hn, const void *data,
                       size_t n);
GPUBLOB_PRIVATE void cache_remote_close(digest_cache *c);
GPUBLOB_PRIVATE int cache_remote_warm(digest_cache *c);

/* ---- src/remote_http.c (remote_http_) ---- */
GPUBLOB_PRIVATE_DATA const cache_remote_ops remote_http_ops;

/* ---- src/remote_redis.c (remote_redis_) ---- */
GPUBLOB_PRIVATE_DATA const cache_remote_ops remote_redis_ops;

/* ---- src/cache_size.c (cache_size_) ---- */
GPUBLOB_PRIVATE void cache_size_account(digest_cache *c, long long delta);

/* ---- src/cache_deps.c (cache_deps_) ---- */
/* How a job's pack is made, as a manifest records it: no pack, the pack program, or
** the spec's in-process pack provider. */
enum cache_deps_pack_way { PACK_NONE, PACK_PROGRAM, PACK_INPROCESS };
GPUBLOB_PRIVATE void cache_deps_close(digest_cache *c);
GPUBLOB_PRIVATE digest_key128 cache_deps_job_key(digest_cache *c, job *j, int pack, const char *pack_tool);
GPUBLOB_PRIVATE digest_key128 cache_deps_call_key(const gpublob_options *o, int input, const void *data, size_t size,
                       const char *name);

/* ---- src/toolchain_id.c (toolchain_id_) ---- */
GPUBLOB_PRIVATE int toolchain_id_digest(gpublob *g, const gpublob_options *o, digest_key128 *out);

/* ---- src/cache_lookup.c (cache_lookup_) ---- */
enum { CACHE_LOOKUP_MAX_WARNINGS = 4096 }; /* lines of warning an entry may keep */
typedef struct cache_lookup_reader {
  const unsigned char *p, *end;
  int bad;
  const unsigned char *blob_at; /* where the last blob cache_lookup_get_blob read begins */
} cache_lookup_reader;
/* How cache_lookup_get_blob hands out a blob's bytes: copied; borrowed where they lie
** (entry_take_last); or not at all, for the blob a hit streams (entry_stream): its
** bytes may run on past what was read, and out->data stays NULL. */
enum { BLOB_COPY, BLOB_BORROW, BLOB_STREAM };
GPUBLOB_PRIVATE uint64_t cache_lookup_get_u64(cache_lookup_reader *r);
GPUBLOB_PRIVATE const char *cache_lookup_get_str(cache_lookup_reader *r);
GPUBLOB_PRIVATE int cache_lookup_get_blob(cache_lookup_reader *r, gpublob_blob *out, int mode);
GPUBLOB_PRIVATE int cache_lookup_result_add(gpublob_result *r, const char *target, const char *chip, const char *tool,
                      const char *report, unsigned block_size, gpublob_blob *blob);
GPUBLOB_PRIVATE int cache_lookup_entry_output(cache_lookup_reader *r, gpublob_result *out, int mode, unsigned block_size);
GPUBLOB_PRIVATE int cache_lookup_warning_valid(const char *s, size_t n);
GPUBLOB_PRIVATE int cache_lookup_entry_warnings(cache_lookup_reader *r, const char *name, strbuf *out);
GPUBLOB_PRIVATE int cache_lookup_entry_get(cache_dir_file *e, gpublob_result *out, unsigned block_size, const char *name,
                                           strbuf *warnings);
GPUBLOB_PRIVATE int cache_lookup_manifest_key(digest_cache *c, const digest_key128 *k0, const gpublob_options *o, cache_lookup_reader *r,
                        digest_key128 *k1);
GPUBLOB_PRIVATE void cache_lookup_foresee(digest_cache *c, const gpublob_options *o);

/* ---- src/cache_stream.c (cache_stream_) ---- */
typedef struct cache_stream_sink {
  gpublob_write_fn write;
  void *ctx;
} cache_stream_sink;
GPUBLOB_PRIVATE int cache_stream_lookup(digest_cache *c, const digest_key128 *k0, const gpublob_options *o, const char *name,
                                        const unsigned char *mlir, size_t mlir_size, gpublob_result *out,
                                        cache_stream_sink *s);

/* ---- src/input.c (input_) ---- */
typedef struct input_held {
  unsigned char *data; /* NUL at data[size]; owned */
  size_t size;
  const char *name;    /* the caller's, the path, "<stdin>" or "<memory>" */
  int kind;            /* LLVM or MLIR, resolved */
} input_held;
GPUBLOB_PRIVATE int input_looks_like_bitcode(const unsigned char *p, size_t n);
GPUBLOB_PRIVATE int input_looks_like_mlir_bytecode(const unsigned char *p, size_t n);
GPUBLOB_PRIVATE int input_has_suffix(const char *s, const char *suffix);
GPUBLOB_PRIVATE int input_kind_of(int kind, const unsigned char *p, size_t n, const char *name, const char *path);
GPUBLOB_PRIVATE int input_check(gpublob *g, const gpublob_input *in);
GPUBLOB_PRIVATE int input_hold(gpublob *g, const gpublob_options *o, const gpublob_input *in, input_held *h);

/* ---- src/msgpack.c (mp_) ---- */
enum { MSGPACK_MAX_DEPTH = 32 };
typedef struct mp_cur {
  const unsigned char *p, *end;
  int bad;
} mp_cur;
GPUBLOB_PRIVATE int mp_map(mp_cur *c, size_t *pairs);
GPUBLOB_PRIVATE int mp_array(mp_cur *c, size_t *count);
GPUBLOB_PRIVATE int mp_str(mp_cur *c, const char **s, size_t *n);
GPUBLOB_PRIVATE int mp_int(mp_cur *c, long long *v);
GPUBLOB_PRIVATE void mp_skip(mp_cur *c, int depth);
GPUBLOB_PRIVATE int mp_is(const char *s, size_t n, const char *key);

/* ---- src/elf.c (elf_) ---- */
enum { SHT_NOTE_ = 7, SHT_SYMTAB_ = 2, SHT_NOBITS_ = 8, ELF_SHDR = 64, ELF_SYM = 24 };
typedef struct elf_view {
  const unsigned char *p;
  size_t n;
  uint64_t shoff;
  size_t shnum;
  size_t shstr; /* the section of section names */
} elf_view;
typedef struct elf_section {
  uint32_t name, type, link, info;
  uint64_t offset, size;
  uint64_t addr; /* sh_addr: where a symbol's value points into it */
} elf_section;
GPUBLOB_PRIVATE uint64_t elf_le_n(const unsigned char *p, size_t n);
GPUBLOB_PRIVATE int elf_in_blob(size_t size, uint64_t off, uint64_t n);
GPUBLOB_PRIVATE int elf_overlap(uint64_t a, uint64_t an, uint64_t b, uint64_t bn);
GPUBLOB_PRIVATE int elf_open(gpublob *g, elf_view *e, const unsigned char *p, size_t n, const char *what);
GPUBLOB_PRIVATE elf_section elf_sec(const elf_view *e, size_t i);
GPUBLOB_PRIVATE const unsigned char *elf_bytes(const elf_view *e, const elf_section *s);
GPUBLOB_PRIVATE const char *elf_sec_name(const elf_view *e, const elf_section *s, size_t *len);
GPUBLOB_PRIVATE long elf_find(const elf_view *e, const char *name, size_t n);
GPUBLOB_PRIVATE uint64_t elf_symtab(const elf_view *e, elf_section *tab);
GPUBLOB_PRIVATE const char *elf_sym(const elf_view *e, const elf_section *tab, uint64_t idx, size_t *len, unsigned *other);
GPUBLOB_PRIVATE const char *elf_sym_name(const elf_view *e, uint64_t idx, size_t *len);

/* ---- src/kernels.c (kt_) ---- */
enum { KT_MAX_KERNELS = 1 << 16, KT_MAX_NAME = 4096, KT_MAX_PARAMS = 1 << 16 };
GPUBLOB_PRIVATE void kt_free(ktable *t);
GPUBLOB_PRIVATE long long kt_count_mul(long long a, long long b);
GPUBLOB_PRIVATE long long kt_count_add(long long a, long long b);
GPUBLOB_PRIVATE gpublob_kernel_info kt_blank(const char *name, const char *chip);
GPUBLOB_PRIVATE gpublob_kernel_info *kt_add(gpublob *g, ktable *t, const char *name, size_t n, const char *chip);
GPUBLOB_PRIVATE const char *kt_copy(gpublob *g, ktable *t, const char *s, size_t n);
GPUBLOB_PRIVATE gpublob_param_info *kt_param_add(gpublob *g, ktable *t, size_t kernel, const char *kind, size_t n);
GPUBLOB_PRIVATE int kt_params_check(gpublob *g, ktable *t, size_t kernel, long long bytes, const char *what);
GPUBLOB_PRIVATE size_t kt_params_of(const ktable *t, size_t kernel, size_t *first);

/* ---- src/occupancy.c (occupancy_) ---- */
GPUBLOB_PRIVATE void occupancy_fill(const target_desc *t, const char *chip, long long block_size, gpublob_kernel_info *k);

/* ---- src/meta_amdgpu.c (meta_amdgpu_) ---- */
GPUBLOB_PRIVATE int meta_amdgpu_read_note(gpublob *g, const unsigned char *p, size_t n, const char *chip, ktable *t);
GPUBLOB_PRIVATE int meta_amdgpu_read_target(gpublob *g, const unsigned char *p, size_t n, char *target, size_t size);
GPUBLOB_PRIVATE void meta_amdgpu_read_tool(const elf_view *e, char *tool, size_t size);

/* ---- src/meta_nvinfo.c (meta_nvinfo_) ---- */
GPUBLOB_PRIVATE int meta_nvinfo_read(gpublob *g, const unsigned char *p, size_t n, const char *chip, ktable *t);
GPUBLOB_PRIVATE void meta_nvinfo_read_tool(const elf_view *e, char *tool, size_t size);

/* ---- src/meta_blob.c (meta_blob_) ---- */
GPUBLOB_PRIVATE int meta_blob_read_kernels(gpublob *g, const target_desc *t, const unsigned char *p, size_t n, const char *chip,
                            ktable *kt);
GPUBLOB_PRIVATE int meta_blob_identify(gpublob *g, const target_desc *t, const unsigned char *p, size_t n, char *chip,
                                       size_t chip_size, char *tool, size_t tool_size);

/* ---- src/meta_pack.c (meta_pack_) ---- */
#define META_PACK_BUNDLE_MAGIC "__CLANG_OFFLOAD_BUNDLE__" /* an offload bundle starts so */
enum { BUNDLE_MAGIC_LEN = sizeof META_PACK_BUNDLE_MAGIC - 1, PACK_MAX_MEMBERS = 4096 };
/* A member of a pack, as its walker hands it to a visitor: its bytes, its chip, and
** whether it is a bin blob (a cubin, a code object) or assembly (a fatbin's PTX). */
typedef struct meta_pack_entry {
  const unsigned char *p;
  size_t n;
  const char *chip;
  int bin;                  /* 1: a bin blob; 0: the target's assembly */
  int compressed;           /* a fatbin entry whose flags say compressed: its bytes are not the blob */
  unsigned long long flags; /* a fatbin entry's flags; 0 for a bundle's */
} meta_pack_entry;
typedef int (*meta_pack_visit)(gpublob *g, void *ctx, const meta_pack_entry *e);
GPUBLOB_PRIVATE int meta_pack_bundle_each(gpublob *g, const unsigned char *p, size_t n, meta_pack_visit visit, void *ctx);
GPUBLOB_PRIVATE int meta_pack_fatbin_each(gpublob *g, const target_desc *t, const unsigned char *p, size_t n,
                                          const char *chips, meta_pack_visit visit, void *ctx);
GPUBLOB_PRIVATE int meta_pack_read_bundle(gpublob *g, const target_desc *t, const unsigned char *p, size_t n, ktable *kt);
GPUBLOB_PRIVATE int meta_pack_read_fatbin(gpublob *g, const target_desc *t, const unsigned char *p, size_t n,
                               const char *chips, ktable *kt);

/* ---- src/offload.c (offload_) ---- */
GPUBLOB_PRIVATE_DATA const char offload_suffix[]; /* ".offload" */
GPUBLOB_PRIVATE int offload_wrap(gpublob *g, gpublob_result *r, const gpublob_result *asm_r);
GPUBLOB_PRIVATE int offload_options(gpublob *g, const gpublob_options *o, int kind, const char *name,
                                    gpublob_options *bin);
GPUBLOB_PRIVATE int offload_is(const unsigned char *p, size_t n);
GPUBLOB_PRIVATE int offload_read_kernels(gpublob *g, const unsigned char *p, size_t n, unsigned block_size, ktable *kt);
/* One entry (binary) of a container, checked, pointing into its bytes. */
typedef struct offload_item {
  const target_desc *t;    /* the spec target of its triple and image kind; NULL: none */
  int assembly;            /* t's assembly (offload_asm_image), not its bin blob */
  const char *triple, *arch; /* its strings ("" where it has none) */
  unsigned image_kind;     /* LLVM's ImageKind */
  const char *kind_suffix; /* LLVM's name of that kind as a suffix (".o", ".bc"; "" for none) */
  const unsigned char *image;
  size_t image_size;
  uint64_t at;             /* its binary's offset in the file */
} offload_item;
typedef int (*offload_visit)(gpublob *g, void *ctx, const offload_item *e);
GPUBLOB_PRIVATE int offload_each(gpublob *g, const unsigned char *p, size_t n, offload_visit visit, void *ctx);
GPUBLOB_PRIVATE int offload_check_arch(gpublob *g, const offload_item *e);

/* ---- src/meta_output.c (meta_output_) ---- */
GPUBLOB_PRIVATE int meta_output_kernels(gpublob *g, const gpublob_output *o, const char *report, unsigned block_size,
                          ktable *kt);

/* ---- src/inspect.c (inspect_) ---- */
GPUBLOB_PRIVATE int inspect_read(gpublob *g, const unsigned char *p, size_t n, gpublob_result *r);
typedef struct inspect_target { /* a target attribute an MLIR text names */
  const target_desc *t;
  char chip[64];
} inspect_target;
GPUBLOB_PRIVATE const target_desc *inspect_target_of_attr(const char *name, size_t n);
GPUBLOB_PRIVATE size_t inspect_mlir_targets(const char *text, size_t size, inspect_target *out, size_t max);

/* ---- src/limits.c (limits_) ---- */
/* What a check has found: the first kernel over, how many are, and the limits some
** kernel's figure was not known for. */
typedef struct limits_found {
  strbuf first;
  size_t count;
  unsigned unknown;
} limits_found;
enum { SUMMARY_NFIELDS = 17 }; /* the figures of a kernel's summary line (src/limits.c's table) */
GPUBLOB_PRIVATE void limits_kernels_check(const gpublob_options *o, const ktable *kt, const char *where, limits_found *f);
GPUBLOB_PRIVATE int limits_error(gpublob *g, limits_found *f);
GPUBLOB_PRIVATE long long *limits_summary_field(gpublob_kernel_info *k, size_t i);
GPUBLOB_PRIVATE int limits_check(gpublob *g, const gpublob_options *o, gpublob_result *r);

/* ---- src/llvm.c (llvm_) ---- */
GPUBLOB_PRIVATE void llvm_job_release(job *j);

/* ---- src/provider_lld_run.c (provider_lld_run_) ---- */
#if GPUBLOB_LLD
GPUBLOB_PRIVATE int provider_lld_run_usable(void);
GPUBLOB_PRIVATE int provider_lld_run(job *j, const provider *p, const char **opts, uint32_t nopts);
GPUBLOB_PRIVATE void provider_lld_run_warm(void);
#endif

#endif /* GPUBLOB_INTERNAL_H */
