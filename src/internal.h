/* internal.h: what every part of the core shares: the system headers, the target
** descriptor the generator fills, the string buffer, the handle and the job.  Only
** gpublob.c (the compiler) and src/front.c (the cache front) include it, once, first.
** Every function of the core is static; a part that calls a later part's function
** finds it declared among the seams below (the compiler's in src/internal_compile.h,
** MLIR's in src/internal_mlir.h), never on the spot. */
#ifndef GPUBLOB_INTERNAL_H
#define GPUBLOB_INTERNAL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "config.h"
#define GPUBLOB_BUILDING /* GPUBLOB_API exports; no deprecation warnings */
#include "../gpublob.h"

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

/* Kernels read from a blob (src/kernels.c): the records, and the strings they
** point at, each its own allocation so the records stay put as the table grows. */
typedef struct ktable {
  gpublob_kernel_info *k;
  size_t n;
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

/* ---- seams: a shared part's calls into a later part, declared once, here ----
** The parts are one translation unit (gpublob.c, or the cache front src/front.c),
** so a part may call one that comes later in the list; each such call is
** declared here, never on the spot.  The compiler's parts have theirs in
** src/internal_compile.h, MLIR's in src/internal_mlir.h.  The types a later part
** defines, which these name: */
typedef struct digest_key128 digest_key128;             /* src/digest.c */
typedef struct digest_cache digest_cache;               /* src/digest.c */
typedef struct digest_entry_header digest_entry_header; /* src/digest.c */
typedef struct cache_dir_file cache_dir_file;     /* src/cache_dir.c */

/* src/cache_remote.c: the remote tier behind the local cache (src/cache_dir.c's) */
static void cache_remote_open(digest_cache *c, const gpublob_options *o);
static void cache_remote_put(digest_cache *c, const digest_key128 *k, char kind, const void *head, size_t hn, const void *data,
                       size_t n);
static int cache_remote_get(digest_cache *c, const digest_key128 *k, char kind, cache_dir_file *m);
/* src/cache_size.c: the cache's size, kept as files are written (src/cache_dir.c's) */
static void cache_size_account(digest_cache *c, long long delta);
/* src/template.c: the math modes a job's templates read (src/target.c's) */
static int template_check_math_modes(job *j);
/* The engine's, which the LLVM-free cache front stands in for (src/front.c): a
** job's LLVM objects (src/llvm.c; src/options.c's), and lld's run
** (src/provider_lld_run.c; src/provider_lld.c's). */
static void llvm_job_release(job *j);
#if GPUBLOB_LLD
static int provider_lld_run_usable(void);
static int provider_lld_run(job *j, const provider *p, const char **opts, uint32_t nopts);
static void provider_lld_run_warm(void);
#endif

#endif /* GPUBLOB_INTERNAL_H */
