/* gpublob.h: turn GPU kernel modules (LLVM IR, MLIR) into the blobs a GPU driver loads.
**
** This header is the reference: each call says the codes it returns, what it owns
** and what the caller frees.  README.md is the tour, docs/ the manual.
**
** Conventions, for every call:
**   - A call returns GPUBLOB_OK (0) or one of the stable codes of GPUBLOB_ERRORS.
**     A call on a handle keeps its code and message (gpublob_error_code,
**     gpublob_error_message) until the handle's next call; the message names the
**     cause (file:line:col where there is one) and is owned by the handle.
**   - A NULL handle is MISUSE, with no message to read.  A NULL out-pointer, or
**     an out-struct size smaller than the struct's first version, is MISUSE.
**   - On failure every out-parameter is zeroed: nothing to free, nothing written
**     to disk, and a caller's MLIR module unchanged.
**   - Options: NULL or a zeroed struct means every default (GPUBLOB_OPTIONS_INIT).
**
** How a public struct grows (one rule a kind; a struct never changes otherwise):
**   - What the caller fills (gpublob_options): a version field.  New fields go at
**     the end under the next version; a field past the caller's version reads as
**     zero.  GPUBLOB_OPTIONS_INIT, or gpublob_options_init for a caller that cannot
**     use the macro (a foreign-function interface), sets the version.
**   - What the library fills (gpublob_stats, gpublob_target_info, gpublob_tool_info,
**     gpublob_kernel_info, gpublob_param_info, gpublob_output_info): a size argument, sizeof at the
**     caller's build.  New fields go at the end; the library fills as many bytes as
**     the caller's size, so an older caller never sees them.
**   - What callers hold in arrays (gpublob_output, gpublob_target_choice): never
**     grows.  What a later version adds to an output is read through an accessor
**     (gpublob_output_get).
**
** Versions: GPUBLOB_VERSION_* is this header's; a call, flag or field added after
** the released 1.0 says "(since 1.N)".  The calls from before 1.0 are deprecated
** (see "Deprecated"): still exported, and still working, for programs built
** against 1.0.
**
** Thread safety: a gpublob handle is used by one thread at a time; distinct
** handles may be used from distinct threads at once.  Every job runs in its own
** LLVMContext; a call may run its jobs on a pool of threads of its own.  LLVM's
** targets are initialised once, by the first gpublob_open (pthread_once), so open
** a handle before starting threads that only share gpublob's read-only target
** table.
**
** Build: ./configure && ninja (then ninja install: pkg-config gpublob, or CMake's
** find_package(gpublob)); vendored: docs/building.md, "Vendoring".
*/
#ifndef GPUBLOB_H
#define GPUBLOB_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* GPUBLOB_API marks every public function.  Building the library (GPUBLOB_BUILDING,
** which its sources define) it exports them; a consumer of the static library, or
** of a shared one on ELF, needs nothing, so it is empty there; a Windows consumer
** of a DLL defines GPUBLOB_DLL to import them.  Define GPUBLOB_API before this
** header for a platform that needs more. */
#ifndef GPUBLOB_API
#if defined(GPUBLOB_BUILDING) && defined(_WIN32)
#define GPUBLOB_API __declspec(dllexport)
#elif defined(GPUBLOB_BUILDING) && defined(__GNUC__)
#define GPUBLOB_API __attribute__((visibility("default")))
#elif defined(GPUBLOB_DLL) && defined(_WIN32)
#define GPUBLOB_API __declspec(dllimport)
#else
#define GPUBLOB_API
#endif
#endif

/* GPUBLOB_DEPRECATED(why) marks a call kept for programs built against 1.0: a
** compiler warns of a call to it (-Werror=deprecated-declarations fails), naming
** what to call instead.  GPUBLOB_DISABLE_DEPRECATE_WARNINGS, defined before this
** header, keeps the calls without the warning; GPUBLOB_DEPRECATE_HARD leaves them
** out of the header. */
#ifndef GPUBLOB_DEPRECATED
#if defined(GPUBLOB_DISABLE_DEPRECATE_WARNINGS) || defined(GPUBLOB_BUILDING)
#define GPUBLOB_DEPRECATED(why)
#elif defined(__GNUC__)
#define GPUBLOB_DEPRECATED(why) __attribute__((deprecated(why)))
#elif defined(_MSC_VER)
#define GPUBLOB_DEPRECATED(why) __declspec(deprecated(why))
#else
#define GPUBLOB_DEPRECATED(why)
#endif
#endif

/* This header's version: 1.7.0 has 1.0's calls and what 1.1 to 1.7 added
** (each marked "since"). */
#define GPUBLOB_VERSION_MAJOR 1
#define GPUBLOB_VERSION_MINOR 7
#define GPUBLOB_VERSION_PATCH 0
#define GPUBLOB_VERSION_STRING "1.7.0"
#define GPUBLOB_VERSION_NUMBER \
  (GPUBLOB_VERSION_MAJOR * 10000 + GPUBLOB_VERSION_MINOR * 100 + GPUBLOB_VERSION_PATCH)

/* Error codes: X(NAME, value, description).  OK is 0; the values are stable. */
#define GPUBLOB_ERRORS(X)                                                     \
  X(OK, 0, "not an error")                                                    \
  X(MISUSE, 1, "bad argument")                                                \
  X(NOMEM, 2, "out of memory")                                                \
  X(IO, 3, "cannot read or write a file")                                     \
  X(PARSE, 4, "malformed IR text (LLVM IR or MLIR)")                           \
  X(BITCODE, 5, "malformed bitcode (LLVM or MLIR)")                             \
  X(VERIFY, 6, "the module failed verification")                              \
  X(TARGET, 7, "unknown target")                                              \
  X(CHIP, 8, "invalid chip for the target")                                   \
  X(FEATURES, 9, "invalid target features")                                   \
  X(FORMAT, 10, "unknown output format")                                      \
  X(NOLIB, 11, "device library not found")                                    \
  X(LINK, 12, "device library link failed")                                   \
  X(BACKEND, 13, "LLVM backend failed")                                       \
  X(NOTOOL, 14, "blob tool not found")                                        \
  X(TOOL, 15, "blob tool failed")                                             \
  X(OPTION, 16, "invalid option")                                             \
  X(NOMLIR, 17, "this gpublob was built without MLIR")                        \
  X(NOGPU, 18, "no gpu.module in the MLIR module")                            \
  X(LOWER, 19, "MLIR lowering or translation to LLVM IR failed")              \
  X(NOTCACHED, 20, "not in the cache")                                        \
  X(INTERRUPTED, 21, "interrupted by a signal")                              \
  X(LIMIT, 22, "a kernel is over a resource limit of the options")

enum gpublob_code {
#define GPUBLOB_ERROR_ENUM(name, value, text) GPUBLOB_##name = value,
  GPUBLOB_ERRORS(GPUBLOB_ERROR_ENUM)
#undef GPUBLOB_ERROR_ENUM
};

/* What a compile returns.  Zero is the default: bin. */
enum gpublob_format {
  GPUBLOB_FORMAT_DEFAULT = 0,
  GPUBLOB_FORMAT_BIN = 1,    /* the driver's blob: cubin, hsaco, SPIR-V */
  GPUBLOB_FORMAT_ASM = 2,    /* the backend's assembly: PTX, AMDGCN, SPIR-V text */
  GPUBLOB_FORMAT_LLVM = 3,   /* bitcode after linking and optimisation (.bc) */
  GPUBLOB_FORMAT_PACK = 4,   /* every chip of a target in one blob, by the spec's pack
                                step (nvptx: CUDA's fatbin, a cubin per chip plus the
                                PTX of the newest; amdgcn: a clang offload bundle, an
                                hsaco per chip); FORMAT for a target without one */
  GPUBLOB_FORMAT_FATBIN = GPUBLOB_FORMAT_PACK, /* its name before 1.0 */
  GPUBLOB_FORMAT_LL = 5,     /* LLVM IR text after linking and optimisation (.ll); LLVM IR
                                input only (a #gpu.object holds bitcode, not text) */
  GPUBLOB_FORMAT_OFFLOAD = 6 /* (since 1.7) one output, LLVM's OffloadBinary (.offload;
                                docs/offload.md): an entry per (target, chip) holding its
                                bin blob, across targets, in the call's order; FORMAT for a
                                target whose spec names no offload_image, and for MLIR
                                input (a #gpu.object's blob goes to the GPU runtime,
                                which reads no OffloadBinary) */
};

/* Optimisation level.  Zero is the default: O3. */
enum gpublob_opt {
  GPUBLOB_OPT_DEFAULT = 0,
  GPUBLOB_OPT_O0 = 1,
  GPUBLOB_OPT_O1 = 2,
  GPUBLOB_OPT_O2 = 3,
  GPUBLOB_OPT_O3 = 4
};

/* Flags: choose device-library variants and module flags in the spec.  Each is
** one bit, except where it says it is a second name of another. */
#define GPUBLOB_FLAG_FTZ 0x1 /* one bit: flush denormals to zero ({if:ftz:..}); DAZ is its
                                other name */
/* One bit that the math modes read as all of them at once: each of FTZ (DAZ),
** FINITE_ONLY, UNSAFE_MATH and UNSAFE_SQRT holds when it is set
** ({if:fast-math:..}, and each mode's own {if:..}).  GPUBLOB_FLAG_MATH_MODES is
** the mask of the bits it stands for. */
#define GPUBLOB_FLAG_FAST_MATH 0x2
#define GPUBLOB_FLAG_NO_DEFAULT_SEARCH 0x4 /* search only tool_dirs and lib_dirs (hermetic) */
#define GPUBLOB_FLAG_MLIR_BYTECODE 0x8     /* MLIR output as bytecode (.mlirbc), not text */
/* A function clang pinned to another chip ("target-cpu", or a "target-features"
** entry the job's chip contradicts) is CHIP; with RETARGET every function's pins
** become the job's chip and features before optimisation (one warning per call). */
#define GPUBLOB_FLAG_RETARGET 0x10
/* Each job's LLVM work (parse to emission) runs in a child process: an LLVM fatal
** error, a crash or a signal there is BACKEND with LLVM's reason, and the host
** goes on.  The output is byte for byte the in-process one.  See "Isolation". */
#define GPUBLOB_FLAG_ISOLATE 0x20
/* Math modes, for the spec's templates and control constants ({if:daz:..} and so
** on); FAST_MATH implies each of them. */
#define GPUBLOB_FLAG_DAZ GPUBLOB_FLAG_FTZ   /* the FTZ bit's second name: denormals are zero */
#define GPUBLOB_FLAG_FINITE_ONLY 0x40       /* no NaN or infinity in or out ({if:finite-only:..}) */
#define GPUBLOB_FLAG_UNSAFE_MATH 0x80       /* results may lose accuracy ({if:unsafe-math:..}) */
#define GPUBLOB_FLAG_UNSAFE_SQRT 0x100      /* sqrt(float) need not round correctly ({if:unsafe-sqrt:..}) */
/* (since 1.3) The bits FAST_MATH stands for: a mask, not a flag to pass. */
#define GPUBLOB_FLAG_MATH_MODES \
  (GPUBLOB_FLAG_FTZ | GPUBLOB_FLAG_FINITE_ONLY | GPUBLOB_FLAG_UNSAFE_MATH | GPUBLOB_FLAG_UNSAFE_SQRT)
/* MLIR: each #gpu.object's properties get the blob tool's info log (ISACompilerLog:
** what ptxas, or nvJitLink's info log, printed), as upstream's
** collect-compiler-diagnostics flag of #nvvm.target asks. */
#define GPUBLOB_FLAG_TOOL_LOG 0x200 /* (since 1.1) */
/* (since 1.2) The remote tier (remote_cache) is only read: hits are served and copied into the
** local cache, but nothing is stored to the server (CI jobs that must not publish).
** It changes no output byte, so it is not in the cache's keys. */
#define GPUBLOB_FLAG_REMOTE_READ_ONLY 0x400
/* (since 1.3) The module is optimised already (clang's -O3 -emit-llvm, a JIT's own pipeline):
** the middle end does not run again, only the backend at the level asked, as llc runs
** after opt; nothing is internalised, and only what no function or global uses
** (device-library code the module did not call) is dropped (globaldce). */
#define GPUBLOB_FLAG_BACKEND_ONLY 0x800
/* (since 1.4) The blob tool is not asked for its report (the spec's tool_report_argv:
** ptxas's -v, nvJitLink's -verbose), so a kernel's spill bytes and barriers are -1
** unless the tool options ask for it.  ptxas and nvJitLink record their options in a
** cubin's .note.nv.tkinfo, so with the report a cubin differs from the one a command
** without -v makes (mlir-opt's, clang's) in that note alone; with this flag it is
** that cubin, byte for byte.  In the cache's keys. */
#define GPUBLOB_FLAG_NO_TOOL_REPORT 0x1000
/* (since 1.7) GPUBLOB_FORMAT_OFFLOAD: each chip's assembly also goes in, as an entry of its
** own after the chip's blob, where the spec names an image kind for it (offload_asm_image:
** nvptx's PTX); the call compiles each chip's assembly too.  Other formats ignore it. */
#define GPUBLOB_FLAG_OFFLOAD_ASM 0x2000

/* MLIR: how a gpu.module's blobs are attached.  Zero is the default: binary. */
enum gpublob_attach {
  GPUBLOB_ATTACH_DEFAULT = 0,
  GPUBLOB_ATTACH_BINARY = 1, /* replace it by gpu.binary @name [#gpu.object<...>, ...] */
  GPUBLOB_ATTACH_LEGACY = 2  /* keep it; the blob is a string attribute (nvvm.cubin, ...) */
};

/* Which program or library turns the backend's output into the blob.  Zero: auto. */
enum gpublob_tool_mode {
  GPUBLOB_TOOL_AUTO = 0,      /* a provider that gives the program's own bytes (the spec's
                                 provider_bytes = program: amdgcn's lld, linked in) wherever
                                 it is available; else the program (ptxas); a provider of
                                 bytes of its own (nvjitlink) only where the program is not
                                 found */
  GPUBLOB_TOOL_PROGRAM = 1,   /* always the program, as a subprocess */
  GPUBLOB_TOOL_INPROCESS = 2  /* always the provider; NOTOOL when its library is missing
                                 (or, for lld, when the build has none, or an earlier
                                 fatal error in this process left it unable to run) */
};

/* (since 1.3) Floating-point contraction: whether a multiply and an add may become one
** fused operation (and, for nvptx, whether ptxas may fuse them: mul.f32 rather than
** mul.rn.f32).  Zero is the default: the spec's (fp_contract), "on" for every target. */
enum gpublob_fp_contract {
  GPUBLOB_FP_CONTRACT_DEFAULT = 0,
  GPUBLOB_FP_CONTRACT_ON = 1,   /* as the IR says: its contract flags and llvm.fmuladd (llc's and
                                   mlir-opt's default) */
  GPUBLOB_FP_CONTRACT_FAST = 2, /* every fadd, fsub and fmul may fuse, as clang's CUDA and HIP
                                   (-ffp-contract=fast) tell the backend */
  GPUBLOB_FP_CONTRACT_OFF = 3   /* none does: the IR's contract flags are dropped (llvm.fmuladd,
                                   an explicit request, stays) */
};

/* (since 1.5) Whose defaults a call takes: the peer whose blob it gives byte for byte.
** Zero is the default: mlir.  Explicit options (fp_contract, tool_options) still win
** over the peer's defaults.  In the cache's keys.  docs/clang.md. */
enum gpublob_as {
  GPUBLOB_AS_DEFAULT = 0,
  GPUBLOB_AS_MLIR = 1,  /* as mlir-opt's gpu-module-to-binary serialisers: the spec's fp_contract
                           ("on"), the blob tool's options of the spec's tool_argv, and its
                           report asked for (ptxas -v) */
  GPUBLOB_AS_CLANG = 2  /* as clang's CUDA, HIP and OpenCL drivers: floating-point contraction
                           for the module's language (the spec's clang_fp_contract: CUDA fast,
                           the target machine's AllowFPOpFusion; HIP and OpenCL on), the -mllvm
                           options clang passes for it (clang_mllvm: CUDA's
                           -enable-memcpyopt-without-libcalls), the blob tool's options as
                           clang gives them ({if:clang:..} in tool_argv: ptxas -m64 -O3, or
                           its debug options) and no others: the tool's report is not asked
                           for, so NVIDIA's spill bytes and barriers are -1 (as with
                           GPUBLOB_FLAG_NO_TOOL_REPORT) and the cubin's .note.nv.tkinfo is
                           clang's */
};

/* (since 1.7) The debug information a blob keeps.  Zero is the default: auto.  In the
** cache's keys.  docs/clang.md, "Debug information". */
enum gpublob_debug {
  GPUBLOB_DEBUG_AUTO = 0,  /* as the module has it (its DICompileUnits' emission kind), and as
                              clang's driver keeps it: a target whose blob tool cannot optimise
                              with full debug information (the spec's debug_optimised: nvptx,
                              ptxas -g) keeps line tables alone when the level is not -O0 */
  GPUBLOB_DEBUG_NONE = 1,  /* none: the module's debug information is stripped */
  GPUBLOB_DEBUG_LINES = 2, /* line tables alone (files, lines, inlined-at), no variables nor
                              types; nvptx: PTX line directives and ptxas's line table */
  GPUBLOB_DEBUG_FULL = 3   /* all the module has, at every level (nvptx: ptxas -g, whose code
                              is not optimised, as clang's --cuda-noopt-device-debug) */
};

/* One (target, chips, features) to compile for.  target may name chips after a
** colon, several separated by commas: "nvptx:sm_80,sm_90"; so may chip. */
typedef struct gpublob_target_choice {
  const char *target, *chip, *features;
} gpublob_target_choice;

/* 1: the fields up to lib_dirs.  2: targets, ntargets, attach, pipeline.
** 3: jobs, cache_dir, cache_max, tool_mode.  4: tool_timeout, max_input.  5 (1.0): abi.
** 6 (since 1.1): link, nlink, tool_options, toolkit, dump_dir, section.
** 7 (since 1.2): remote_cache, remote_timeout_ms, remote_max.
** 8 (since 1.3): job_timeout, fp_contract.
** 9 (since 1.4): block_size, limits, max_registers, max_spills, max_shared, max_stack,
** min_occupancy.
** 10 (since 1.5): as, tool_memory.
** 11 (since 1.7): debug, remote_ca.
** Version 0 is read as version 1, so a zeroed struct of any size means defaults;
** a later field reads as zero when the version says it is not there. */
#define GPUBLOB_OPTIONS_VERSION 11

/* gpublob_options o = GPUBLOB_OPTIONS_INIT; every field its default, this version
** (gpublob_options_init does the same through a call). */
#define GPUBLOB_OPTIONS_INIT {.version = GPUBLOB_OPTIONS_VERSION}

/* Compile options.  A zeroed struct (or NULL) means every default. */
typedef struct gpublob_options {
  unsigned version;     /* GPUBLOB_OPTIONS_VERSION; 0 reads only version 1's fields */
  const char *target;   /* "nvptx" or "nvptx:sm_80"; NULL: the first spec target */
  const char *chip;     /* overrides a chip in target; NULL: the target default */
  const char *features; /* LLVM features, e.g. "+ptx80"; NULL: the spec default */
  int format;           /* enum gpublob_format */
  int opt;              /* enum gpublob_opt */
  unsigned flags;       /* GPUBLOB_FLAG_* */
  const char *tool;     /* exact path of the blob tool; NULL: search */
  const char *tool_dirs; /* colon list of extra directories for the blob tool */
  const char *lib_dirs;  /* colon list of extra directories for device libraries */
  /* version 2: */
  const gpublob_target_choice *targets; /* MLIR: replaces the modules' own target */
  size_t ntargets;                      /*   attributes; LLVM IR takes at most one */
  int attach;           /* MLIR: enum gpublob_attach */
  const char *pipeline; /* MLIR lowering passes for a gpu.module (a gpu.module-anchored
                           list or "builtin.module(...)"); NULL: the spec's mlir_lower
                           where a body is not lowered yet; "none": never lower */
  /* version 3: */
  unsigned jobs;         /* compile threads; 0: one per core this process may use */
  const char *cache_dir; /* the content-addressed cache; NULL: no cache */
  unsigned long long cache_max; /* bytes the cache may hold; 0: 1 GiB */
  int tool_mode;         /* enum gpublob_tool_mode */
  /* version 4: */
  unsigned tool_timeout; /* seconds a blob or pack tool may run before it is killed
                            (with its process group): TOOL; 0: 300 */
  unsigned long long max_input; /* bytes of input accepted; more is IO; 0: 1 GiB */
  /* version 5: */
  unsigned abi;          /* the target's ABI version, one of the spec's abi_versions (amdgcn:
                            400, 500, 600: code object v4, v5, v6); a module's own
                            amdhsa_code_object_version must agree; 0: the module's, else
                            the spec's default for the chip (OPTION for a target without) */
  /* version 6, since 1.1 (the options of MLIR's gpu-module-to-binary: l, opts, toolkit, section): */
  const char *const *link; /* bitcode files linked into every module before the device */
  size_t nlink;            /*   libraries (-l, and a target attribute's link = [...]); the
                              caller's strings, read during the call (the MLIR pass copies
                              them); a file unread is IO, not LLVM IR BITCODE, for another
                              architecture TARGET; nlink without link is MISUSE */
  const char *tool_options; /* words for the blob tool (ptxas), as a shell splits them;
                               with the in-process provider, those it has an option for
                               (the spec's provider_options): with tool_mode in-process
                               another is OPTION, with auto the program runs; an
                               unclosed quote is OPTION */
  const char *toolkit;   /* a toolkit's root (CUDA_HOME, ROCM_PATH): searched first for
                            the blob tool, the provider and the device libraries */
  const char *dump_dir;  /* each job's intermediates are written here: the IR as read,
                            linked and optimised, the ISA, the tool's command and log
                            (made if missing; a file that cannot be written is IO; files
                            STEM.TARGET.CHIP.N-WHAT, docs/cli.md, --dump-dir).  A call with it
                            compiles: the cache is not looked up, but is stored to (it
                            changes no output, and is not in the cache's keys) */
  const char *section;   /* MLIR: the ELF section each #gpu.object's blob goes in
                            (its properties' "section", for gpu-to-llvm's embedding) */
  /* version 7, since 1.2 (the remote tier behind the local cache; docs/cache.md, "Remote tier"): */
  const char *remote_cache; /* a server shared by many machines: Redis,
                               "redis://[:PASSWORD@]HOST[:PORT][/DB]" or "unix:///PATH";
                               (since 1.7) HTTP, "http[s]://HOST[:PORT]/PREFIX[?layout=flat]"
                               (bazel-remote, a WebDAV share: docs/cache.md; a token in
                               $GPUBLOB_REMOTE_TOKEN);
                               NULL or "": none.  Used only with cache_dir (looked up after
                               it; a hit is copied into it; a compile stores in both).  A
                               URL without a password takes $GPUBLOB_REMOTE_PASSWORD.  Its
                               faults (down, refusing, hung, a bad password, a build
                               without hiredis) are one warning a call, never an error */
  unsigned remote_timeout_ms; /* the connect and each command's timeout; 0: 50 ms */
  unsigned long long remote_max; /* a larger cache file is not stored remotely; 0: 64 MiB */
  /* version 8, since 1.3: */
  unsigned job_timeout;  /* seconds one job's LLVM work (parse to emission) may take; 0: no
                            limit.  Past it the job is BACKEND, naming the limit.  Since
                            1.5 a job with a timeout is isolated (GPUBLOB_FLAG_ISOLATE), and
                            its process is killed at the limit (1.3 and 1.4: in the calling
                            process the job stopped at the end of the phase that ran past it) */
  int fp_contract;       /* enum gpublob_fp_contract; in the cache's keys */
  /* version 9, since 1.4 (kernel reports: docs/kernels.md).  The limits are in no cache
  ** key (they change no output byte; a hit is checked against them as a compile is);
  ** the block size is in an MLIR input's (its kernel tables hold the occupancy). */
  unsigned block_size;   /* the block (work-group) size occupancy is figured for; 0: the
                            kernel's own limit (.maxntid, .reqntid, AMD's max flat
                            work-group size), else 1024; at most 16777216 (more: OPTION) */
  unsigned limits;       /* GPUBLOB_LIMIT_*: which of the limits below apply */
  unsigned long long max_registers; /* registers a thread (AMD: VGPRs; with gfx90a's unified
                                       file, its .vgpr_count: VGPRs and AGPRs) */
  unsigned long long max_spills;    /* NVIDIA: spill-store bytes; AMD: spilled VGPRs + SGPRs */
  unsigned long long max_shared;    /* static shared memory (LDS) bytes a block */
  unsigned long long max_stack;     /* stack (private segment) bytes a thread */
  double min_occupancy;             /* the least occupancy, 0 to 1 (gpublob_kernel_info) */
  /* version 10, since 1.5: */
  int as;                /* enum gpublob_as: whose defaults (mlir-opt's, clang's); another
                            value is OPTION; in the cache's keys */
  unsigned tool_memory;  /* MiB of data a blob or pack tool may take (RLIMIT_DATA), the
                            in-process ones (lld, nvJitLink: run in a child process of the
                            isolation helper) as the programs; past it the tool fails: TOOL;
                            0: 8192 */
  /* version 11, since 1.7: */
  int debug;             /* enum gpublob_debug: AUTO (0: as the module has it), NONE, LINES,
                            FULL; another value is OPTION; in the cache's keys */
  const char *remote_ca; /* a CA bundle file that verifies an https:// remote_cache's server;
                            NULL: $GPUBLOB_REMOTE_CA, else the system's */
} gpublob_options;

/* (since 1.4) gpublob_options' limits: a kernel of an output over one that is set
** fails the call with LIMIT, naming the kernel, its target and chip, the figure and
** the limit (the first kernel over, and how many others are), and nothing is
** written.  A figure the blob and its tool's report do not give (a spill count of
** -f asm, an occupancy without the chip's limits) is never over.  Outputs that
** record no kernels (assembly, bitcode, SPIR-V) are not checked. */
enum gpublob_limit {
  GPUBLOB_LIMIT_REGISTERS = 1u << 0,
  GPUBLOB_LIMIT_SPILLS = 1u << 1,
  GPUBLOB_LIMIT_SHARED = 1u << 2,
  GPUBLOB_LIMIT_STACK = 1u << 3,
  GPUBLOB_LIMIT_OCCUPANCY = 1u << 4
};

/* A blob's bytes, as an output holds them (gpublob_result_free frees them with the
** result); a blob of the deprecated 1.0 calls is freed with gpublob_blob_free. */
typedef struct gpublob_blob {
  unsigned char *data;
  size_t size;
  const char *suffix; /* ".cubin", ".ptx", ".bc", ... (static storage) */
} gpublob_blob;

/* One output of a call: a blob per (target, chip), or per target for FATBIN.
** Every string is owned by the result and never NULL.  Callers index these in
** an array, so this struct never grows: what later versions add to an output is
** read with gpublob_output_get. */
typedef struct gpublob_output {
  gpublob_blob blob;
  const char *target; /* the spec target's name; "" for MLIR's whole module */
  const char *chip;   /* its chip; FATBIN: the chips, comma-separated; "" for MLIR */
  const char *tool;   /* what made the blob: "ptxas", "nvjitlink", "fatbinary", "" */
} gpublob_output;

/* Every output of a call, in a fixed order: the target list's order, and each
** target's chips in the order given.  Free it with gpublob_result_free. */
typedef struct gpublob_result {
  gpublob_output *outputs;
  size_t count;
} gpublob_result;


/* What the last call did.  Times are milliseconds; the phase times add up over
** jobs (threads run them at once), wall is the call itself.  New fields go at the
** end: gpublob_stats_get fills as many bytes as the caller's size. */
typedef struct gpublob_stats {
  size_t jobs, threads;        /* jobs planned; threads that ran them */
  size_t cache_hits, cache_misses, cache_writes;
  double wall_ms;
  double load_ms;     /* LLVM IR parse and verify, or MLIR parse, lowering, translation */
  double link_ms;     /* device libraries */
  double optimise_ms; /* LLVM's middle end */
  double emit_ms;     /* LLVM's code generator */
  double tool_ms;     /* the blob tool (waiting for the program, or in-process) and packs */
  double cache_ms;    /* digests, lookups and stores */
  /* Grown at the end (since 1.1): CPU and load figures, apart from the wall-time phases. */
  double provider_load_ms; /* loading in-process providers (dlopen and dlsym of nvJitLink):
                              once per process, so 0 when an earlier call loaded them */
  double tool_cpu_ms;      /* the blob and pack tools' own CPU time: each program's user +
                              sys (its rusage, wait4) and in-process providers' thread CPU */
  /* Grown at the end (since 1.2): the remote tier (options' remote_cache), counted per cache
  ** file (a call's hit reads two: its manifest and its entry). */
  size_t remote_hits;      /* files the server held, valid, served and copied locally */
  size_t remote_misses;    /* files it did not hold, or held invalid (never served) */
  size_t remote_stores;    /* files written to it */
  size_t remote_errors;    /* 1 when a fault turned the tier off for the call (one warning) */
  unsigned long long remote_bytes_read, remote_bytes_written;
  double remote_ms;        /* connecting, reading and writing (within cache_ms) */
} gpublob_stats;

/* A target as the spec describes it (static storage, never NULL; grows at the end). */
typedef struct gpublob_target_info {
  const char *name, *triple, *chip, *features, *attribute;
  const char *suffix_asm, *suffix_bin;
  const char *tool_kind; /* "exec" or "none" */
  const char *chips;     /* blank-separated list of valid chips */
  const char *mlir_target; /* "nvvm.target", or "" when MLIR has no attribute for it */
  const char *libs;      /* the device libraries' file-name templates, blank-separated; "" */
} gpublob_target_info;

/* Which blob tool a compile would use, and where (grows at the end).  The strings
** are owned by the handle, never NULL, and valid until its next call. */
typedef struct gpublob_tool_info {
  const char *kind;     /* "in-process", "program" or "none" */
  const char *name;     /* "nvjitlink", "ptxas", ... ("" for none) */
  const char *path;     /* the library or program; "" for none */
  const char *fallback; /* "": no mode falls back from a provider that fails (1.0 named
                           auto's program here) */
} gpublob_tool_info;

typedef struct gpublob gpublob;

/* What a compile reads: data and size in memory (data non-NULL, even for 0 bytes),
** or path (a file; "-" is standard input): one of them, never both.  kind AUTO (zero) takes it as MLIR or LLVM IR by its
** content: bitcode or MLIR bytecode by their magic, text by its first token (so a
** misnamed file gets the right parser's message), and by name or path (.mlir,
** .mlirbc) only when the text could be either.  name labels diagnostics (NULL: the path,
** or "<memory>"). */
enum gpublob_input_kind {
  GPUBLOB_INPUT_AUTO = 0,
  GPUBLOB_INPUT_LLVM = 1, /* LLVM IR text or bitcode */
  GPUBLOB_INPUT_MLIR = 2  /* MLIR text or bytecode with gpu.module ops */
};
typedef struct gpublob_input {
  int kind; /* enum gpublob_input_kind */
  const void *data;
  size_t size;
  const char *path;
  const char *name;
} gpublob_input;

/* What AUTO takes these bytes for: GPUBLOB_INPUT_LLVM or GPUBLOB_INPUT_MLIR (name
** may be NULL).  A tool that reads the input itself asks this before the call. */
GPUBLOB_API int gpublob_input_detect(const void *data, size_t size, const char *name);

/* ---- handles ---- */
/* A new handle in *out: OK, NOMEM (then *out is NULL), MISUSE for a NULL out.
** The first one initialises LLVM's targets.  gpublob_close frees it and its
** strings, stops its isolation helper, and accepts NULL. */
GPUBLOB_API int gpublob_open(gpublob **out);
GPUBLOB_API void gpublob_close(gpublob *g);

/* ---- compiling ---- */
/* The one compile call.  Compiles in for every (target, chip) the options plan, on
** a pool of opts->jobs threads, through opts->cache_dir when given, into *out:
**   LLVM IR: an output per (target, chip), or per target for FORMAT_PACK, in the
**     order of the options' target list and each target's chips as given; the
**     outputs are byte-identical whatever the thread count.
**   MLIR: one output, the whole module with every gpu.module serialised (text, or
**     bytecode with GPUBLOB_FLAG_MLIR_BYTECODE); its target, chip and tool are "".
** Every string of *out is owned by it and never NULL; free it with
** gpublob_result_free.  A failing job fails the call with its own message (the
** first in plan order); the rest are cancelled or finish, and *out stays empty.
** Codes: OK; MISUSE (NULL g, input or out; data and path both or neither given;
** an unknown kind); IO (unreadable input, or larger than max_input); PARSE,
** BITCODE, VERIFY (the input); TARGET, CHIP, FEATURES, FORMAT, OPTION (the
** options, or a module pinned to another chip); NOLIB, LINK (device libraries);
** BACKEND (LLVM, including a fatal error or crash in an isolated job); NOTOOL,
** TOOL (the blob or pack tool: missing, failing, timed out, or a blob without
** its magic); NOMLIR, NOGPU, LOWER (MLIR); INTERRUPTED; NOMEM. */
GPUBLOB_API int gpublob_compile(gpublob *g, const gpublob_options *opts, const gpublob_input *in,
                                gpublob_result *out);
/* (since 1.7) Several inputs in one call: clang writes one device module per
** vendor.  Each LLVM IR input is compiled for the targets of the options that its
** triple allows (a target whose triple has the input's architecture; an input
** without a triple, for every one), as gpublob_compile would compile it with those
** targets alone (its cache entry is that call's); the outputs come input by input,
** in the inputs' order, each input's as gpublob_compile gives them
** (gpublob_output_info's input says which input an output is of).  FORMAT_OFFLOAD
** gives one output, the container, holding every input's blobs in that order.  One
** input is compiled as gpublob_compile compiles it, but for its targets alone; an
** MLIR input compiles alone (as one of several: FORMAT).  Codes: gpublob_compile's,
** and MISUSE (NULL inputs, or ninputs 0), TARGET (an input that no named target
** takes, naming it and its triple), OPTION (more than 1024 inputs). */
GPUBLOB_API int gpublob_compile_inputs(gpublob *g, const gpublob_options *opts, const gpublob_input *inputs,
                                       size_t ninputs, gpublob_result *out);
/* Frees every output's blob and strings, and zeroes *r; NULL is fine. */
GPUBLOB_API void gpublob_result_free(gpublob_result *r);

/* (since 1.3) Output i of r as a struct that may grow (at the end, filled as far
** as size, sizeof *out at the caller's build): its bytes, suffix, target, chip and
** tool, each owned by r and never NULL; what later versions add to an output is
** added here, never to gpublob_output.  OK, or MISUSE (a NULL r or out, i out of
** range, a size below the struct's first version), when *out is zeroed. */
typedef struct gpublob_output_info {
  const unsigned char *data;
  size_t size;
  const char *suffix, *target, *chip, *tool;
  size_t input; /* (since 1.7) the index of the input it is of, in gpublob_compile_inputs's list; 0 otherwise */
} gpublob_output_info;
GPUBLOB_API int gpublob_output_get(const gpublob_result *r, size_t i, gpublob_output_info *out, size_t size);

/* (since 1.3) *opts zeroed, its version set: every field its default.  For callers
** that cannot use GPUBLOB_OPTIONS_INIT (a foreign-function interface).  version
** is GPUBLOB_OPTIONS_VERSION at the caller's build; only that version's fields are
** zeroed.  0 reads as 8, the first version with this call (a later library never
** writes past an 8's struct).  A version this library does not know, or a NULL
** opts, is MISUSE. */
GPUBLOB_API int gpublob_options_init(gpublob_options *opts, unsigned version);

/* The cache alone: what gpublob_compile of this input with these options would
** find in opts->cache_dir, without compiling.  It needs no LLVM: the CLI's front
** answers cache hits with it before the compiler starts.  With opts->remote_cache a
** local miss asks the server, and a valid remote file is copied into cache_dir
** (stats count remote hits, misses and bytes).  Codes: OK (a hit; *out
** as gpublob_compile would give it), NOTCACHED (a miss, a cache that cannot be
** used, or options with a dump_dir, whose call compiles; the lookup may make the
** cache's directory), OPTION (no cache_dir), LIMIT (a hit whose kernel is over
** one of the options' limits, as the compile would be; since 1.4),
** MISUSE (as gpublob_compile's), IO, NOMEM. */
GPUBLOB_API int gpublob_cache_lookup(gpublob *g, const gpublob_options *opts, const gpublob_input *in,
                                     gpublob_result *out);

/* The cache alone, the last output streamed: as gpublob_cache_lookup, but on a hit
** the last output's bytes (the whole output of an MLIR module, a pack or one chip)
** go to write(ctx, bytes, size) in order, in pieces, as they are read, and are never
** held whole in memory; that output's blob in *out has data NULL and the bytes'
** count as size.  The entry's hash is checked at its end, so only OK says the bytes
** were the cache's: write them where they can be taken back (a temporary file),
** and keep them only on OK.  write returns 0 to go on, anything else to stop.
** Codes: as gpublob_cache_lookup's; IO also when write stopped; MISUSE also for a
** NULL write; OPTION with the options' limits (since 1.4: they are checked against
** the outputs' bytes, which a streamed hit does not keep).  (since 1.2) */
typedef int (*gpublob_write_fn)(void *ctx, const void *bytes, size_t size);
GPUBLOB_API int gpublob_cache_lookup_stream(gpublob *g, const gpublob_options *opts,
                                            const gpublob_input *in, gpublob_result *out,
                                            gpublob_write_fn write, void *ctx);

/* ---- kernel metadata: what each kernel of a blob needs, its occupancy, its report ---- */
/* (since 1.1) One kernel of an output, read from the blob itself (the AMDGPU metadata note of
** a code object; the .nv.info sections of a cubin), never from another compile: the
** spec's metadata key names the reader of a target's bin blobs, pack_metadata that
** of its packs.  A figure the blob does not record is -1.  New fields go at the end:
** gpublob_kernel_get fills as many bytes as the caller's size.
** (since 1.4) What a blob does not record but its tool printed of the same compile
** (the spec's tool_report: ptxas -v's spills and barriers) is kept with each output
** gpublob made, and in its cache entry, so a hit reads the same; and occupancy is
** figured from the chip's limits in the spec (docs/kernels.md).
** NVIDIA: registers, static shared bytes and the stack frame are ptxas -v's (the
** shared memory sm_90 and later reserve before a kernel's own is not counted);
** params_bytes the parameter bank's size; max_threads the .maxntid (else the
** .reqntid's product), -1 without either; a cubin records no spills: spills
** are -1, and spill_store_bytes and spill_load_bytes are ptxas's (nvJitLink's)
** report; sgprs, agprs, the VGPR/SGPR spills and wave_size are -1.
** AMD: the note's figures, as llvm-readelf --notes prints them. */
typedef struct gpublob_kernel_info {
  const char *name;         /* the kernel's symbol */
  const char *chip;         /* the chip of the code it is in (a pack holds several) */
  long long registers;      /* per thread: NVIDIA's registers, AMD's VGPRs (.vgpr_count) */
  long long sgprs, agprs;   /* AMD: .sgpr_count, .agpr_count; -1 elsewhere */
  long long spills;         /* spilled registers (AMD: VGPRs + SGPRs); -1 when not recorded */
  long long vgpr_spills, sgpr_spills; /* AMD: .vgpr_spill_count, .sgpr_spill_count */
  long long shared_bytes;   /* static shared memory (AMD: the group segment) */
  long long local_bytes;    /* local memory, the stack (AMD: the private segment) a thread */
  long long max_threads;    /* threads a block (work-group) may have */
  long long params_bytes;   /* the parameters (AMD: the kernarg segment, hidden ones too) */
  long long wave_size;      /* threads a warp (wavefront) */
  long long reqd_threads[3]; /* the required block size (REQNTID, .reqd_workgroup_size);
                                0 when none is required */
  /* (since 1.4) From the blob tool's report of the same compile (ptxas -v, nvJitLink's
  ** info log), kept with the output and in the cache: -1 for an output made without
  ** one (-f asm, a pack's PTX, a blob given by the caller) and on AMD. */
  long long spill_store_bytes, spill_load_bytes; /* NVIDIA: bytes spilled to local memory */
  long long barriers;        /* NVIDIA: the named barriers it uses */
  /* (since 1.4) Occupancy: what fits on one SM (NVIDIA) or SIMD (AMD), from the chip's
  ** limits in the spec and the figures above, for blocks of occupancy_block_size
  ** threads (gpublob_options' block_size, else max_threads, else reqd_threads'
  ** product, else 1024).  NVIDIA's is the CUDA occupancy calculator's
  ** (cuda_occupancy.h); AMD's LLVM's (llc's
  ** "; Occupancy:").  A chip without limits in the spec (a generic AMD chip): -1 and
  ** a limiter of "". */
  double occupancy;               /* resident warps (waves) over the chip's most, 0 to 1 */
  const char *occupancy_limiter;  /* what bounds it: "warps", "registers", "shared",
                                     "blocks"; never NULL */
  long long blocks_per_sm;        /* NVIDIA: blocks resident on an SM; -1 on AMD */
  long long waves_per_simd;       /* AMD: waves resident on a SIMD; -1 on NVIDIA */
  long long occupancy_block_size; /* the block size the figures are for (the options'
                                     block_size, else max_threads, else reqd_threads'
                                     product, else 1024) */
} gpublob_kernel_info;

/* How many kernels output i of r holds, into *count: OK; FORMAT for an output
** whose blob records none (PTX, bitcode, SPIR-V, MLIR's whole module: its kernels are in
** each #gpu.object's kernel table); TOOL for a blob its reader finds malformed (cut
** short, an offset or size outside it, a compressed fatbin entry or bundle), the
** message naming what; MISUSE for a NULL g, r or count, or i out of range.  A
** pack's count is its members' kernels together, in member order, each with its
** chip.  On failure *count is 0.
** The blob is read when asked, not by gpublob_compile (a compile that does not
** ask pays nothing), and works the same on a cache hit and in the LLVM-free
** front; the handle keeps what it read of the last output asked about (by its
** address, size and a hash of its bytes), so counting and then getting each
** kernel reads it once. */
GPUBLOB_API int gpublob_kernel_count(gpublob *g, const gpublob_result *r, size_t i, size_t *count);
/* Kernel k of output i into out, size bytes of it (sizeof *out): codes as
** gpublob_kernel_count's, and MISUSE for k out of range or a size below the
** struct's first version.  The strings are owned by the handle, never NULL,
** valid until its next call.  On failure *out is zeroed. */
GPUBLOB_API int gpublob_kernel_get(gpublob *g, const gpublob_result *r, size_t i, size_t k,
                                   gpublob_kernel_info *out, size_t size);

/* (since 1.7) One parameter of a kernel, as the blob lays it out for a launch: where
** its bytes go in the kernel's parameters (AMD: the kernarg segment; NVIDIA: the
** parameter bank), read from the blob like gpublob_kernel_info (docs/kernels.md,
** "Parameters").  AMD: every entry of the note's .args, in its order, the hidden
** arguments the backend adds (hidden_block_count_x, ...) included and marked.
** NVIDIA: the cubin's EIATTR_KPARAM_INFO records, by ordinal; a cubin records a
** parameter's place and size, and for a PTX .ptr parameter its state space, but no
** name.  New fields go at the end: gpublob_param_get fills as many bytes as the
** caller's size. */
typedef struct gpublob_param_info {
  long long index;           /* its place in the kernel's list, from 0 */
  long long offset;          /* bytes from the start of the kernel's parameters */
  long long size;            /* its bytes */
  const char *kind;          /* AMD: the .value_kind ("by_value", "global_buffer",
                                "hidden_block_count_x", ...); NVIDIA: "by_value", or
                                "pointer" for a .ptr parameter; never NULL */
  int hidden;                /* 1: an argument the compiler adds (AMD's hidden_*), not the source's */
  const char *address_space; /* a pointer's: AMD's .address_space ("global", "generic", ...),
                                NVIDIA's .ptr state space; "" where not recorded */
  const char *name;          /* AMD's .name; "" where not recorded (NVIDIA, hidden arguments) */
} gpublob_param_info;

/* (since 1.7) How many parameters kernel k of output i of r has, into *count (0 for
** none): codes as gpublob_kernel_count's, and MISUSE for k out of range.  On failure
** *count is 0.  The blob is read once for its kernels and their parameters. */
GPUBLOB_API int gpublob_param_count(gpublob *g, const gpublob_result *r, size_t i, size_t k, size_t *count);
/* (since 1.7) Parameter p of kernel k of output i into out, size bytes of it (sizeof
** *out): codes as gpublob_param_count's, and MISUSE for p out of range or a size below
** the struct's first version.  The strings are owned by the handle, never NULL, valid
** until its next call.  On failure *out is zeroed. */
GPUBLOB_API int gpublob_param_get(gpublob *g, const gpublob_result *r, size_t i, size_t k, size_t p,
                                  gpublob_param_info *out, size_t size);

/* (since 1.7) The entries of one blob file, as a result the kernel calls read: an
** output per entry (a cubin, an hsaco, SPIR-V, assembly text such as PTX; each member
** of a pack: a fatbin's cubins and PTX, an offload bundle's code objects; each
** entry of LLVM's OffloadBinary; each #gpu.object's blob of MLIR text, a pack's
** members), with its target, chip and tool as the file names them (a code object's
** target id, a cubin's ELF flags and .note.nv.tkinfo, a bundle's entry ids, an
** OffloadBinary entry's triple, image kind and arch, an object's target attribute;
** tool "" where none is named) and its bytes copied.  in gives the file's bytes or its path
** (gpublob_input; kind AUTO, read from the bytes).  It needs no LLVM (the
** LLVM-free front has it).  Every file is untrusted: OK; FORMAT for a kind gpublob
** reads not (no spec target's magic, MLIR bytecode, LLVM IR); TOOL for a blob or pack
** its reader finds malformed (cut short, an offset or size outside it, a compressed
** cubin), the message naming what; PARSE for MLIR text whose #gpu.object does not
** parse; IO for a path unread; MISUSE (NULL g or out, kind not AUTO, in as
** gpublob_compile's); NOMEM.  A compressed PTX entry of a fatbin is left out, with a
** warning.  On failure *out is empty.  Free it with gpublob_result_free. */
GPUBLOB_API int gpublob_inspect(gpublob *g, const gpublob_input *in, gpublob_result *out);

/* (since 1.7) Kernel k of output i's machine code as text, into *text (owned by the
** handle, valid until its next call): one instruction a line, "\tMNEMONIC OPERANDS",
** as llvm-objdump -d --no-show-raw-insn --no-leading-addr prints them without its
** comments, from the kernel's ELF symbol's range, by LLVM's disassembler in process
** (the target's triple, the kernel's chip with its target id's modifiers as
** features).  It needs LLVM: the library has it, the LLVM-free front does not.
** Codes: OK; as gpublob_kernel_get's (FORMAT for an output that records no kernels);
** FORMAT also for a pack (inspect it: gpublob_inspect gives each member an output)
** and for a target LLVM has no disassembler for (NVPTX, SPIR-V: their vendors' tools,
** nvdisasm, spirv-dis); TOOL for a kernel without a function symbol, or one outside
** its section; CHIP for a chip not of the spec; MISUSE (a NULL text).  On failure
** *text is "". */
GPUBLOB_API int gpublob_disasm(gpublob *g, const gpublob_result *r, size_t i, size_t k, const char **text);

/* ---- what the last call did ---- */
/* Warnings of the last call (a cache directory that cannot be written, a provider
** library that would not load, LLVM's warnings), one per line; "" when none.  A cache
** hit gives the warnings its compile gave, named by this call's input name (since 1.7).
** Owned by the handle, valid until its next call. */
GPUBLOB_API const char *gpublob_warnings(const gpublob *g);
/* The last call's figures into out, size bytes of it (sizeof *out): OK, MISUSE. */
GPUBLOB_API int gpublob_stats_get(const gpublob *g, gpublob_stats *out, size_t size);

/* The last call's code, and its message (owned by the handle, never NULL; for a
** NULL handle, MISUSE's text).  gpublob_error_string: a code's fixed text. */
GPUBLOB_API int gpublob_error_code(const gpublob *g);
GPUBLOB_API const char *gpublob_error_message(const gpublob *g);
GPUBLOB_API const char *gpublob_error_string(int code);

/* ---- targets and tools ---- */
/* The spec's targets, 0 to count-1: OK, or MISUSE for an index out of range. */
GPUBLOB_API int gpublob_target_count(void);
GPUBLOB_API int gpublob_target_get(int index, gpublob_target_info *out, size_t size);

/* Which blob tool a bin (or, with FORMAT_PACK, a pack) compile for opts->target
** would use (njobs is read by no mode: a job's tool does not depend on the call's size), and where, found as a compile finds it: OK (kind "none"
** for a target that needs none); NOTOOL when it is missing, with the places tried
** in the message; TARGET, FORMAT, OPTION for bad options; MISUSE.  On failure
** *out is zeroed. */
GPUBLOB_API int gpublob_tool_info_get(gpublob *g, const gpublob_options *opts, size_t njobs,
                                      gpublob_tool_info *out, size_t size);

/* Where the device libraries of opts->target and its one chip (NAME or NAME:CHIP;
** a chip list is CHIP) are, found as a compile finds them: OK with *paths a
** newline-separated list of the files (owned by the handle, valid until its next
** call; "" for a target without any); NOLIB, naming the first missing file and
** the places tried (*paths then lists those found); TARGET, CHIP, FEATURES,
** FORMAT, OPTION for bad options; MISUSE. */
GPUBLOB_API int gpublob_libs_find(gpublob *g, const gpublob_options *opts, const char **paths);

/* (since 1.6) The toolchain identity of opts: a digest of everything but the input
** that decides a blob, for a cache of the caller's own (a JIT's) to key on beside
** its input.  It covers gpublob's and LLVM's versions, the spec, the options that
** decide an output (targets and chips, features, format, level, the math and other
** flags but ISOLATE, REMOTE_READ_ONLY and NO_DEFAULT_SEARCH, ABI, fp_contract, as,
** tool mode, tool options, pipeline, attach, section, block_size), and, for each
** (target, chip) of the options (an MLIR module's own target attributes are its
** input's), the bytes of the blob tool (or the in-process provider's library, or
** a linked one's name), each device library, each link file and the pack tool,
** found as a compile finds them.  No path is in it: a byte-identical toolkit at
** another place has the same identity, and any changed byte of those files gives
** another.  The same in every process, in the LLVM-free front and the compiler.
** Writes 32 lowercase hex digits and a NUL into hex (size at least
** GPUBLOB_TOOLCHAIN_ID_SIZE): OK; TARGET, CHIP, FEATURES, FORMAT, OPTION for bad
** options, NOTOOL where a compile would find no blob or pack tool; MISUSE (a NULL
** handle or hex, a smaller size).  On failure hex is "" (where size allows).  With
** a cache directory in opts the files' digests are remembered there, as a
** compile's are; the remote tier is not asked. */
#define GPUBLOB_TOOLCHAIN_ID_SIZE 33
GPUBLOB_API int gpublob_toolchain_id(gpublob *g, const gpublob_options *opts, char *hex, size_t size);

/* "1.7.0": this library's version (GPUBLOB_VERSION_STRING at its build). */
GPUBLOB_API const char *gpublob_version(void);

/* Isolation (GPUBLOB_FLAG_ISOLATE).  A handle's first isolated call forks a helper
** process from the calling thread, before that call starts any thread of its own;
** the helper, single-threaded, forks one child per job (ahead of time, for the jobs
** a call announces), and each child does its job's LLVM work (parse, verify, link,
** optimise, emit) and sends the backend's output back through a socket.  An LLVM
** fatal error or a crash there is BACKEND, with LLVM's reason or the signal and
** what LLVM printed; the output is byte for byte the in-process one.  What stays
** in the host: MLIR's parsing, lowering and translation, the blob tool program,
** packs, the cache.  (Since 1.5, the in-process blob tools, lld and nvJitLink, run
** in a child of the helper for every call, isolated or not, and a job with a
** job_timeout is isolated: a host's thread never runs them.)  A target whose LLVM backend keeps one
** module's state in the process for the next (the spec's isolate = always: spirv
** and xevm, LLVM 22's SPIR-V backend) is isolated whether asked or not; where no
** process can be made (a seccomp filter, RLIMIT_NPROC) its compile is TOOL.
** Guarantees and their limits:
**   - fork copies only the calling thread: in a host whose other threads may be
**     inside LLVM (or hold one of its locks) at that moment, the helper could
**     deadlock.  Such a host calls gpublob_helper_start on the handle early, before
**     it starts those threads: the in-process blob tools (since 1.5) start the
**     helper too, for every call that uses one.  The MLIR pass (gpublob_mlir_pass_create) with ISOLATE
**     forks on the thread MLIR runs it on: use it so only with MLIR's
**     multithreading off.
**   - The helper ends by itself when the host dies (its socket closes), and with
**     gpublob_close.  In a process forked from the host, gpublob_close leaves the
**     parent's helper alone, and an isolated call there starts a helper of its own.
**   - A host that ignores SIGCHLD (SIG_IGN) loses its children's exit statuses:
**     blob tools fail (TOOL, "lost the exit status"), and a helper is forked again
**     on each call.
** Cost, measured on a 2-core VM (docs/benchmarks.md): 1.7 to 2.6 ms a job
** (2.6 ms, 11%, on a 24 ms saxpy cubin; 2.0 ms a job over 32 jobs).  OK, or TOOL when no
** process can be made. */
GPUBLOB_API int gpublob_helper_start(gpublob *g);

/* For a host's signal handler (SIGINT, SIGTERM): kills every blob tool, pack tool
** and isolation helper of this process, with their process groups, and removes
** their private temporary directories (32 levels deep; up to 1024 processes and
** 256 directories at once are tracked).  Async-signal-safe; it keeps errno.  Calls
** still running on other threads then fail, and may start new tools: call it on
** the way out.  The CLI calls it before it exits on a signal. */
GPUBLOB_API void gpublob_process_cleanup(void);

/* ---- MLIR ---- */
/* An MLIR module (text or bytecode) whose gpu.module ops hold llvm-dialect bodies
** (or gpu-dialect ones, which are lowered first) is compiled, each gpu.module for
** each of its targets (the options' list, else its own #nvvm.target<...> and the
** like, else the first spec target), and the whole module comes back, as text or
** (GPUBLOB_FLAG_MLIR_BYTECODE) bytecode.  All gpu.modules or none are changed.
** Parse and verification diagnostics are in the message, as file:line:col.  In a
** build without MLIR the compile calls give NOMLIR for MLIR input, and
** gpublob_mlir_enabled returns 0 (1 with MLIR).  Each #gpu.object of a bin blob
** carries kernels = #gpu.kernel_table<[...]>: a #gpu.kernel_metadata per kernel its
** blob records, with its llvm.func's type and the figures of gpublob_kernel_info under
** upstream ROCDL's keys (vgpr_count, sgpr_count, group_segment_fixed_size, ...;
** nvptx: num_regs, shared_size_bytes, local_size_bytes, max_threads_per_block,
** param_size_bytes, reqntid); a pack's object has none. */
GPUBLOB_API int gpublob_mlir_enabled(void);

/* The calls that take the caller's MLIR objects (gpublob_mlir_serialize,
** gpublob_mlir_pass_create) are in gpublob_mlir.h, which includes the MLIR C API's
** headers. */

/* ---- Deprecated: the calls before gpublob_compile ----
** Kept, exported and working for programs built against 1.0, as thin wrappers of
** gpublob_compile; a new program calls gpublob_compile (with kind LLVM or MLIR)
** and gpublob_result_free.  _compile and _file_compile give exactly one blob (a
** call that plans several is OPTION); the _all ones are gpublob_compile with kind
** LLVM.  The mlir ones give the whole module as one blob.  Free a blob with
** gpublob_blob_free (NULL is fine). */
#ifndef GPUBLOB_DEPRECATE_HARD
GPUBLOB_DEPRECATED("use gpublob_compile")
GPUBLOB_API int gpublob_module_compile(gpublob *g, const gpublob_options *opts, const void *ir,
                                       size_t size, const char *name, gpublob_blob *out);
GPUBLOB_DEPRECATED("use gpublob_compile with .path")
GPUBLOB_API int gpublob_file_compile(gpublob *g, const gpublob_options *opts, const char *path,
                                     gpublob_blob *out);
GPUBLOB_DEPRECATED("use gpublob_compile")
GPUBLOB_API int gpublob_module_compile_all(gpublob *g, const gpublob_options *opts, const void *ir,
                                           size_t size, const char *name, gpublob_result *out);
GPUBLOB_DEPRECATED("use gpublob_compile with .path")
GPUBLOB_API int gpublob_file_compile_all(gpublob *g, const gpublob_options *opts, const char *path,
                                         gpublob_result *out);
GPUBLOB_DEPRECATED("use gpublob_compile with kind GPUBLOB_INPUT_MLIR")
GPUBLOB_API int gpublob_mlir_compile(gpublob *g, const gpublob_options *opts, const void *data,
                                     size_t size, const char *name, gpublob_blob *out);
GPUBLOB_DEPRECATED("use gpublob_compile with kind GPUBLOB_INPUT_MLIR and .path")
GPUBLOB_API int gpublob_mlir_file_compile(gpublob *g, const gpublob_options *opts, const char *path,
                                          gpublob_blob *out);
GPUBLOB_DEPRECATED("the blobs of gpublob_compile's result go with gpublob_result_free")
GPUBLOB_API void gpublob_blob_free(gpublob_blob *b);
#endif

#ifdef __cplusplus
}
#endif
#endif /* GPUBLOB_H */
