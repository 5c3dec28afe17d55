/* src/internal_compile.h: what the compiler's parts share (src/parts.h's second
** group, LLVM's: the plan, the job's steps, the blob tool, packs, isolation, the pool,
** the call), each thing declared once, part by part in src/parts.h's order, each
** named with its part's prefix (src/internal.h says how).  gpublob.c includes it
** after src/internal.h, before the compiler's parts; the cache front (src/front.c)
** has none of them.  Last, the C++ parts' calls (src/passes.cpp). */
#ifndef GPUBLOB_INTERNAL_COMPILE_H
#define GPUBLOB_INTERNAL_COMPILE_H

#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Comdat.h>
#include "names.h" /* names the CLI makes too: the dump's file names (src/dump.c, src/pack.c) */
#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/ErrorHandling.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Support.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>

/* ---- src/report.c (report_) ---- */
GPUBLOB_PRIVATE int report_take_error(gpublob *g, const gpublob *from);
GPUBLOB_PRIVATE void report_add_warnings(gpublob *g, const char *lines);

/* ---- src/live_enter.c (live_enter_) ---- */
GPUBLOB_PRIVATE int live_enter_pid_add(pid_t pgid);
GPUBLOB_PRIVATE void live_enter_pid_remove(int slot);
GPUBLOB_PRIVATE int live_enter_dir_add(const char *path);
GPUBLOB_PRIVATE void live_enter_dir_remove(int slot);

/* ---- src/cache_store.c (cache_store_) ---- */
GPUBLOB_PRIVATE void cache_store_put_u64(strbuf *b, uint64_t v);
GPUBLOB_PRIVATE void cache_store_put_blob(strbuf *b, const gpublob_blob *blob);
GPUBLOB_PRIVATE void cache_store_put_str(strbuf *b, const char *s);
struct plan;
GPUBLOB_PRIVATE void cache_store(digest_cache *c, const digest_key128 *k0, const struct plan *p, const int *packed,
                        const gpublob_result *res);

/* ---- src/plan.c (plan_) ---- */
typedef struct plan_output { /* one output of the call */
  size_t first, count; /* its jobs: one, or a pack's members */
  int pack;
  strbuf pack_tool; /* the pack program, found before any compile work ("" in-process) */
  const pack_provider_ops *pack_prov; /* the in-process pack step, or NULL */
  const job *newest;  /* a pack's newest chip (the latest in the spec's chips), once resolved */
} plan_output;
typedef struct plan {
  gpublob *g;
  gpublob_options o; /* the call's settled options (options_normalise, at the entry) */
  const char *name;
  job **jobs;
  size_t njobs;
  plan_output *outputs;
  size_t noutputs;
  size_t failed; /* the job whose error is the call's */
  digest_key128 entry_key; /* the cache's k1, once the jobs are resolved */
} plan;
GPUBLOB_PRIVATE void plan_begin(plan *p, gpublob *g, const gpublob_options *o, const char *name);
GPUBLOB_PRIVATE void plan_end(plan *p);
GPUBLOB_PRIVATE int plan_add_job(plan *p, const target_ref *r, const char *chip, size_t cn, const char *features,
                        int opt);
GPUBLOB_PRIVATE int plan_add_output(plan *p, size_t first, size_t count, int pack);
GPUBLOB_PRIVATE int plan_choice(plan *p, const gpublob_target_choice *c, int opt);
GPUBLOB_PRIVATE int plan_resolve(plan *p, int load);
GPUBLOB_PRIVATE int plan_options(plan *p, int load);
GPUBLOB_PRIVATE int plan_format_for_input(gpublob *g, const gpublob_options *o, int kind, const char *name);

/* ---- src/llvm.c (llvm_) ---- */
/* A job's LLVM state: its own context (one per concurrent job), the module parsed
** or translated into it, and the target machine. */
struct llvm_state {
  LLVMContextRef ctx;
  LLVMModuleRef mod;
  LLVMTargetMachineRef tm;
  int tm_kept; /* tm is a pool worker's, kept for its next jobs: not the job's to dispose */
};
GPUBLOB_PRIVATE_DATA pthread_once_t llvm_once;
GPUBLOB_PRIVATE void llvm_init(void);
GPUBLOB_PRIVATE void llvm_on_diagnostic(LLVMDiagnosticInfoRef di, void *ctx);
GPUBLOB_PRIVATE int llvm_diag_failed(job *j, const char *step);
GPUBLOB_PRIVATE int llvm_start(job *j);

/* ---- src/parse.c (parse_) ---- */
enum {
  SCAN_ESCAPES = 1,        /* a string's \" is no closing quote (MLIR) */
  SCAN_SEMI_COMMENTS = 2,  /* ; starts a comment (LLVM IR) */
  SCAN_SLASH_COMMENTS = 4, /* // starts a comment (MLIR) */
  SCAN_ARROWS = 8,         /* MLIR's arrow -> closes no bracket */
  SCAN_FLOOR = 16          /* a closing bracket never takes the depth below 0 */
};
GPUBLOB_PRIVATE size_t parse_bracket_scan(const char *p, size_t n, size_t i, unsigned how, long *depth);
GPUBLOB_PRIVATE int parse_module(job *j, const unsigned char *data, size_t size);
GPUBLOB_PRIVATE int parse_verify_module(job *j);
GPUBLOB_PRIVATE int parse_check_intrinsics(job *j);

/* ---- src/triple.c (triple_) ---- */
GPUBLOB_PRIVATE size_t triple_arch(const char *triple);
GPUBLOB_PRIVATE int triple_is_subarch(const char *arch, size_t n, const char *spec, size_t sn);
GPUBLOB_PRIVATE int triple_takes(const target_desc *t, const char *triple);
GPUBLOB_PRIVATE void triple_of_module(const unsigned char *p, size_t n, char *out, size_t size);

/* ---- src/module_check.c (module_check_) ---- */
GPUBLOB_PRIVATE int module_check_triple(job *j);
GPUBLOB_PRIVATE int module_check_is_entry(const job *j, LLVMValueRef f);
GPUBLOB_PRIVATE int module_check_entries(job *j);
GPUBLOB_PRIVATE int module_check_note_kernels(job *j);
GPUBLOB_PRIVATE int module_check_symbols(job *j);

/* ---- src/pins.c (pins_) ---- */
GPUBLOB_PRIVATE const char *pins_fn_attr(LLVMValueRef f, const char *key, unsigned *len);
GPUBLOB_PRIVATE int pins_adopt_pinned_version(job *j);
GPUBLOB_PRIVATE int pins_check(job *j);

/* ---- src/target_machine.c (target_machine_) ---- */
/* A pool worker's target machines, kept across the jobs it runs (one per triple,
** CPU, features and level), so that a worker makes each once per call, not once a
** job: a target machine holds no module's state, and the code it makes is the same
** (test_jobs compares one thread's outputs with many threads' and isolated ones).
** NULL outside a pool worker: an isolated child, or jobs run on the caller's thread. */
typedef struct target_machine_worker {
  strbuf key; /* triple, CPU, features and level, NUL-separated */
  LLVMTargetMachineRef tm;
} target_machine_worker;
typedef struct target_machine_workers {
  target_machine_worker v[GPUBLOB_WORKER_TARGET_MACHINES];
  size_t n;
} target_machine_workers;
GPUBLOB_PRIVATE_DATA _Thread_local target_machine_workers *target_machine_this_worker;
GPUBLOB_PRIVATE void target_machine_workers_free(target_machine_workers *w);
GPUBLOB_PRIVATE int target_machine_make(job *j);
GPUBLOB_PRIVATE const char *target_machine_job_module_flags(const job *j);
GPUBLOB_PRIVATE void target_machine_add_module_flags(job *j);

/* ---- src/constants.c (constants_) ---- */
GPUBLOB_PRIVATE int constants_module_abi(job *j);
GPUBLOB_PRIVATE int constants_write(job *j);
GPUBLOB_PRIVATE int constants_check_own(job *j);

/* ---- src/devlib_share.c (devlib_share_) ---- */
typedef struct devlib_share_subset {
  strbuf key;     /* triple, data layout, then the needed names, each ended by its NUL */
  strbuf bitcode; /* the subset module */
} devlib_share_subset;
typedef struct devlib_share_lib {
  strbuf path;
  void *map;
  size_t size;
  char **names; /* the names it defines (functions and variables), sorted; NULL until read */
  size_t nnames;
  devlib_share_subset **subsets;
  size_t nsubsets;
} devlib_share_lib;
struct devlib_share {
  pthread_mutex_t mu; /* over the table; an entry, once in it, never changes */
  devlib_share_lib **libs;
  size_t nlibs;
};
GPUBLOB_PRIVATE void devlib_share_init(devlib_share *s);
GPUBLOB_PRIVATE void devlib_share_free(devlib_share *s);
GPUBLOB_PRIVATE void devlib_share_open(gpublob *g);
GPUBLOB_PRIVATE void devlib_share_close(gpublob *g);
GPUBLOB_PRIVATE devlib_share_lib *devlib_share_lib_get(job *j, devlib_share *s, const char *path);
GPUBLOB_PRIVATE ptrdiff_t devlib_share_collect_names(LLVMModuleRef m, int (*want)(LLVMValueRef), char ***out);
GPUBLOB_PRIVATE int devlib_share_lib_index(devlib_share_lib *l, devlib_share *s, LLVMModuleRef lib);
GPUBLOB_PRIVATE int devlib_share_lib_names(const devlib_share_lib *l, devlib_share *s, char *const **names, size_t *n);
GPUBLOB_PRIVATE int devlib_share_subset_key(char *const *defined, size_t ndefined, LLVMModuleRef m, strbuf *key, size_t *count);
GPUBLOB_PRIVATE const devlib_share_subset *devlib_share_subset_find(const devlib_share_lib *l, devlib_share *s, const strbuf *key);
GPUBLOB_PRIVATE const devlib_share_subset *devlib_share_subset_file(devlib_share_lib *l, devlib_share *s, strbuf *key, strbuf *bitcode);
GPUBLOB_PRIVATE int devlib_share_subset_make(job *j, LLVMModuleRef lib, const strbuf *key, strbuf *bitcode);

/* ---- src/devlib.c (devlib_) ---- */
typedef struct devlib {
  strbuf path;
  devlib_share_lib *shared; /* the call's: its mapping, the names it defines, its subsets */
  devlib_share *share;   /* the table it is in */
  LLVMModuleRef lazy; /* the whole library, loaded lazily in the job's context; NULL */
  LLVMContextRef own_ctx; /* a context of its own, where subsets are made (subset_get); NULL */
  LLVMModuleRef own;      /* the whole library, loaded lazily in own_ctx; NULL */
  int linked;             /* the job linked a subset of it */
} devlib;
GPUBLOB_PRIVATE int devlib_load_all_lazy(job *j, devlib *libs, int n);
GPUBLOB_PRIVATE const char *devlib_module_lang(const job *j);
GPUBLOB_PRIVATE void devlib_make_internal(LLVMValueRef v);
GPUBLOB_PRIVATE int devlib_link(job *j);

/* ---- src/debug_info.c (debug_info_) ---- */
GPUBLOB_PRIVATE int debug_info_settle(job *j);
GPUBLOB_PRIVATE int debug_info_stamp_files(job *j);

/* ---- src/peer.c (peer_) ---- */
GPUBLOB_PRIVATE int peer_job_language(job *j);
GPUBLOB_PRIVATE int peer_llvm_options_enter(job *j);
GPUBLOB_PRIVATE void peer_llvm_options_leave(void);
GPUBLOB_PRIVATE int peer_job_isa_conditions(job *j);

/* ---- src/link_files.c (link_files_) ---- */
GPUBLOB_PRIVATE int link_files(job *j);

/* ---- src/libm_names.c (libm_names_) ---- */
GPUBLOB_PRIVATE int libm_names_c_function(const char *name, size_t n, size_t *base, int *is_float);
GPUBLOB_PRIVATE int libm_names_device_name(const job *j, const char *name, size_t base, int is_float, strbuf *out);
GPUBLOB_PRIVATE LLVMValueRef libm_names_unselectable_call(const job *j, LLVMValueRef f);
GPUBLOB_PRIVATE int libm_names_wanted(job *j);
GPUBLOB_PRIVATE int libm_names_undefined_allowed(const job *j, const char *name);
GPUBLOB_PRIVATE int libm_names_runs_backend(const job *j);
GPUBLOB_PRIVATE int libm_names_rename(job *j, devlib *libs, int n);

/* ---- src/unresolved.c (unresolved_) ---- */
GPUBLOB_PRIVATE int unresolved_check_unselectable(job *j, int optimised);
GPUBLOB_PRIVATE int unresolved_check(job *j);

/* ---- src/type_check.c (type_check_) ---- */
GPUBLOB_PRIVATE int type_check_unsupported_types(job *j);

/* ---- src/optimise.c (optimise_) ---- */
GPUBLOB_PRIVATE void optimise_keep_entries(job *j);
GPUBLOB_PRIVATE void optimise_set_fp_contract(job *j);
GPUBLOB_PRIVATE int optimise(job *j);

/* ---- src/emit.c (emit_) ---- */
GPUBLOB_PRIVATE int emit(job *j, int assembly);
GPUBLOB_PRIVATE int emit_bitcode(job *j);
GPUBLOB_PRIVATE int emit_text(job *j);

/* ---- src/tmp_sweep.c (tmp_sweep_) ---- */
GPUBLOB_PRIVATE void tmp_sweep_workdir_prefix(strbuf *b);
GPUBLOB_PRIVATE void tmp_sweep_stale_dirs(const char *tmp);
GPUBLOB_PRIVATE void tmp_sweep_workdir_lock(workdir *w);

/* ---- src/tool_report.c (tool_report_) ---- */
GPUBLOB_PRIVATE int tool_report_argv_add(argvec *a, const char *list);
GPUBLOB_PRIVATE int tool_report_take(job *j);

/* ---- src/proc.c (proc_) ---- */
/* A tool runs in a process group of its own, in its job's private directory's
** TMPDIR (ptxas leaves tmpxft_* files there when it is killed), with no descriptor
** of this process but its channels, no blocked signal, every signal at its default,
** a bound on its data (RLIMIT_DATA: the tool memory bound), and the kernel's
** promise that it dies with the thread that started it (PR_SET_PDEATHSIG), so that
** a kill -9 of the CLI leaves no tool running.  gpublob waits for its exit, not for
** EOF (a child it left may hold its output open), for at most the timeout, and then
** kills what is left of its group.
**
** The spawn is vfork and execve, as posix_spawn's, with the steps posix_spawn has no
** word for between them.  Every signal is blocked on the calling thread around the
** vfork (only its own mask: the host's other threads go on), so that no handler of
** the host runs in the child, which shares the host's memory until it execs; the
** child sets its own dispositions to the default (they are its own copy) before it
** unblocks them. */
enum proc_input { PROC_NONE, PROC_STDIN, PROC_PIPE3 };
enum { WAIT_EXITED, WAIT_TIMEOUT, WAIT_LOST };
GPUBLOB_PRIVATE int proc_env_withheld(const char *entry);
GPUBLOB_PRIVATE int proc_spawn(proc *p, char **argv, enum proc_input mode, const char *tmpdir, unsigned long long mem);
GPUBLOB_PRIVATE void proc_end(proc *p);
GPUBLOB_PRIVATE int proc_pidfd_of(pid_t pid);
GPUBLOB_PRIVATE int proc_exited(pid_t pid);
GPUBLOB_PRIVATE int proc_wait(proc *p, const void *input, size_t n, double timeout_ms, strbuf *output, int *status);

/* ---- src/tool.c (tool_) ---- */
/* {images} stands for the words images() adds (a pack's members). */
typedef void (*tool_word_adder)(void *arg, argvec *a);
GPUBLOB_PRIVATE const char *tool_blob_suffix(const job *j);
GPUBLOB_PRIVATE void tool_workdir_free(workdir *w);
GPUBLOB_PRIVATE void tool_workdir_remove(workdir *w);
GPUBLOB_PRIVATE int tool_make_dir(job *j, workdir *w);
GPUBLOB_PRIVATE void tool_argv_add(argvec *a, const job *j, const char *tmpl, const char **vars, tool_word_adder images,
                     void *arg);
GPUBLOB_PRIVATE char **tool_argv_finish(argvec *a);
GPUBLOB_PRIVATE char **tool_template_argv(argvec *a, const job *j, const char *tmpl, const char **vars,
                            tool_word_adder images, void *arg);
GPUBLOB_PRIVATE void tool_argv_free(argvec *a);
GPUBLOB_PRIVATE char **tool_build_argv(job *j, const char *tool, const workdir *w, argvec *a);
GPUBLOB_PRIVATE unsigned long long tool_memory_bytes(unsigned mib);
GPUBLOB_PRIVATE double tool_timeout_ms(const job *j);
GPUBLOB_PRIVATE int tool_spawn(job *j, proc *p, char **argv, enum proc_input mode, const char *dir);
GPUBLOB_PRIVATE int tool_wait(job *j, proc *p, const char *tool, const void *input, size_t n, strbuf *output);
GPUBLOB_PRIVATE int tool_read_output(job *j, const char *path);
GPUBLOB_PRIVATE int tool_start(job *j);
GPUBLOB_PRIVATE int tool_finish(job *j);
GPUBLOB_PRIVATE void tool_end(job *j);
GPUBLOB_PRIVATE int tool_early(const job *j);

/* ---- src/dump.c (dump_) ---- */
/* A copy of a job's module for the dump's ISA : the module, or the
** process forked to emit it (pid; 0 when none, -1 when none could be made). */
typedef struct dump_isa_saved {
  LLVMModuleRef mod;
  pid_t pid;
} dump_isa_saved;
GPUBLOB_PRIVATE void dump_find_quietly(job *j, int (*find)(job *, strbuf *), strbuf *path);
GPUBLOB_PRIVATE int dump_prepare(plan *p, size_t i, const char *name, const char *module, size_t modn);
GPUBLOB_PRIVATE int dump_write_at(gpublob *g, const strbuf *prefix, const char *what, const void *data, size_t n,
                         mode_t mode);
GPUBLOB_PRIVATE int dump_module(job *j, const char *what);
GPUBLOB_PRIVATE dump_isa_saved dump_isa_copy(job *j);
GPUBLOB_PRIVATE int dump_emitted(job *j, dump_isa_saved copy, int rc);
GPUBLOB_PRIVATE void dump_sh_exec(strbuf *b, char *const *argv);
GPUBLOB_PRIVATE void dump_sh_options(strbuf *b, const char *what, char *const *opts);
GPUBLOB_PRIVATE int dump_tool_script(job *j);
GPUBLOB_PRIVATE int dump_tool_log(job *j, int rc);

/* ---- src/tool_version.c (tool_version_) ---- */
GPUBLOB_PRIVATE void tool_version_hint(job *j);

/* ---- src/magic.c (magic_) ---- */
GPUBLOB_PRIVATE int magic_check_pack(job *const *members, size_t n, const gpublob_blob *b, const char *maker);
GPUBLOB_PRIVATE void magic_note_object_flags(job *j);
GPUBLOB_PRIVATE int magic_check_blob(job *j);

/* ---- src/pack_bundle.c (pack_bundle_) ---- */
GPUBLOB_PRIVATE_DATA const pack_provider_ops pack_bundle_ops;

/* ---- src/pack.c (pack_) ---- */
GPUBLOB_PRIVATE const pack_provider_ops *pack_provider_of(const target_desc *t);
GPUBLOB_PRIVATE int pack_run(job *const *members, size_t n, const char *tool, const pack_provider_ops *prov,
                    gpublob_blob *out);

/* ---- src/provider_run.c (provider_run_) ---- */
GPUBLOB_PRIVATE double provider_run_thread_cpu_ms(void);
GPUBLOB_PRIVATE int provider_run(job *j);

/* ---- src/job.c (job_) ---- */
GPUBLOB_PRIVATE int job_llvm(job *j);
GPUBLOB_PRIVATE int job_run(job *j);
GPUBLOB_PRIVATE int job_thread_start(pthread_t *t, size_t size, void *(*fn)(void *), void *arg);

/* ---- src/isolate_wire.c (isolate_wire_) ---- */
/* A helper process per handle, forked from the calling thread before a call starts
** threads; single-threaded, it forks a child per job, so each fork is safe.  The
** host hands it a socket per job (SCM_RIGHTS); the child reads the job from it,
** runs job_llvm on a thread with a large stack, and writes back the backend's
** output; the helper then writes the child's exit status.  An LLVM fatal error
** in the child writes its reason first.  Records: a kind byte, a u64 length, the
** payload. */
enum { REC_JOB = 'J', REC_TOOL = 'T', REC_RESULT = 'R', REC_FATAL = 'F', REC_EXIT = 'X' }; /* REC_TOOL: src/provider_child.c */
GPUBLOB_PRIVATE int isolate_wire_put_record(int fd, char kind, const strbuf *payload);
GPUBLOB_PRIVATE int isolate_wire_get_record(int fd, char *kind, strbuf *out);
GPUBLOB_PRIVATE void isolate_wire_put_job(strbuf *b, const job *j, const void *module, size_t size);
GPUBLOB_PRIVATE void isolate_wire_put_result(strbuf *b, int rc, const job *j);

/* ---- src/isolate_child.c (isolate_child_) ---- */
GPUBLOB_PRIVATE_DATA int isolate_child_fd;
GPUBLOB_PRIVATE void isolate_child_main(int fd, int chan);

/* ---- src/isolate_helper.c (isolate_helper_) ---- */
/* A message on the control socket: a job's socket (kind 'j', with the descriptor),
** or how many jobs a call will hand over (kind 'n').  -1 when the host closed it. */
typedef struct isolate_helper_msg {
  char kind;
  int fd;
  uint32_t count;
} isolate_helper_msg;
GPUBLOB_PRIVATE int isolate_helper_send_fd(int sock, int fd, char kind);
GPUBLOB_PRIVATE int isolate_helper_receive(int ctl, isolate_helper_msg *msg, char *path, size_t room);
GPUBLOB_PRIVATE int isolate_helper_alive(gpublob *g);
GPUBLOB_PRIVATE void isolate_helper_stop(gpublob *g);

/* ---- src/isolate_host.c (isolate_host_) ---- */
GPUBLOB_PRIVATE void isolate_host_expect(gpublob *host, size_t jobs);
GPUBLOB_PRIVATE int isolate_host_hand(gpublob *host, int fd, char kind);
GPUBLOB_PRIVATE int isolate_host_job(job *j);

/* ---- src/provider_child.c (provider_child_) ---- */
GPUBLOB_PRIVATE int provider_child_run(job *j, const char **opts, uint32_t n);
GPUBLOB_PRIVATE void provider_child_preload(gpublob *host, job *const *jobs, size_t njobs);
GPUBLOB_PRIVATE void provider_child_main(int fd, const strbuf *rec, int chan);

/* ---- src/pool.c (pool_) ---- */
/* prepare(arg, i) readies job i on this thread (MLIR translates there) before a
** worker may take it; a failed preparation stops the submissions. */
typedef int (*pool_job_preparer)(void *arg, size_t i);
#if GPUBLOB_MLIR
GPUBLOB_PRIVATE void pool_on_parse_stack(void *(*fn)(void *), void *arg);
#endif
GPUBLOB_PRIVATE int pool_run(plan *p, pool_job_preparer prepare, void *arg);

/* ---- src/ir_call.c (ir_call_) ---- */
GPUBLOB_PRIVATE int ir_call_plan_outputs(plan *p, gpublob_result *out);
GPUBLOB_PRIVATE void ir_call_plan_entry_key(digest_cache *c, const digest_key128 *k0, plan *p);
GPUBLOB_PRIVATE void ir_call_cache_store_plan(digest_cache *c, const digest_key128 *k0, plan *p, const gpublob_result *res);
GPUBLOB_PRIVATE int ir_call_compile(gpublob *g, const gpublob_options *opts, const unsigned char *data, size_t size,
                      const char *name, digest_cache *c, const digest_key128 *k0, gpublob_result *out);

/* ---- src/disasm.c (disasm_) ---- */
GPUBLOB_PRIVATE int disasm_kernel(gpublob *g, const target_desc *t, const char *chip, const unsigned char *p, size_t n,
                                  const char *name, strbuf *out);

#if GPUBLOB_MLIR /* the MLIR parts the call reaches (src/call.c) */
/* ---- src/mlir_serialize.c (mlir_serialize_) ---- */
/* gpublob_mlir_compile's: the module printed into res, and stored in the cache. */
typedef struct mlir_serialize_out {
  gpublob_result *res;
  digest_cache *c;
  const digest_key128 *k0;
} mlir_serialize_out;

/* ---- src/mlir_io.c (mlir_io_) ---- */
GPUBLOB_PRIVATE int mlir_io_compile(gpublob *g, const gpublob_options *o, const void *data, size_t size,
                        const char *name, mlir_serialize_out *out);
#endif

/* ---- src/call.c (call_) ---- */
GPUBLOB_PRIVATE int call_run(gpublob *g, const gpublob_options *o, const gpublob_input *in, gpublob_result *out);
GPUBLOB_PRIVATE int call_inputs(gpublob *g, const gpublob_options *o, const gpublob_input *in, size_t n,
                                gpublob_result *out);
GPUBLOB_PRIVATE int call_one_blob(gpublob *g, const gpublob_options *o, const gpublob_input *in, gpublob_blob *out);
GPUBLOB_PRIVATE void call_engine_open(void);
GPUBLOB_PRIVATE void call_engine_close(gpublob *g);

/* ======== the C++ parts ======== */
#include <llvm-c/Transforms/PassBuilder.h>


/* src/passes.cpp (C++, where configure found a compiler for it): the middle end of
** an MLIR input's job as MLIR's serialisers run it (src/optimise.c's) */
#if GPUBLOB_LLVM_CXX
/* and, with MLIR or without, the target machine's fp fusion and verbose assembly, and LLVM's options by name
** (src/target_machine.c's and src/peer.c's) */
void gpublob__tm_options(LLVMTargetMachineRef tm, int fast, int verbose);
int gpublob__llvm_option_known(const char *word, size_t n);
int gpublob__llvm_option_set(const char *word, size_t n);
void gpublob__llvm_option_reset(const char *word, size_t n);
void gpublob__drop_contract(LLVMModuleRef m);
LLVMModuleRef gpublob__copy_module(LLVMModuleRef m);
int gpublob__debug_kind(LLVMModuleRef m);
void gpublob__debug_lines(LLVMModuleRef m, int directives);
#endif
#if GPUBLOB_LLD
/* src/lld.cpp: lld's ELF driver in this process (src/provider_lld_run.c's) */
int gpublob__lld_usable(void);
int gpublob__lld_elf(int argc, const char *const *argv, char **log, int *fatal);
#endif
#if GPUBLOB_MLIR_PASSES
void gpublob__mlir_passes(LLVMModuleRef m, LLVMTargetMachineRef tm, int level);
void gpublob__erase_named_metadata(LLVMModuleRef m, const char *name, size_t n);
#endif

#endif /* GPUBLOB_INTERNAL_COMPILE_H */
