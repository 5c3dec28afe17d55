/* programs/options.h: every flag of the CLI, one X(...) each, the one place a flag
** is written down.  args.c makes getopt_long's table and short-option string of it,
** and help.c both help texts (docs/cli.md's groups):
**
**   X(ID, LONG, SHORT, VALUE, GROUP, BRIEF_GROUP, BRIEF, FULL)
**
** ID names the flag in args.c's switch; LONG is its --name (NULL: a short flag
** only), SHORT its letter (0: none), VALUE 1 when it takes one (--opt VALUE,
** --opt=VALUE, -xVALUE, -x VALUE).  GROUP is its --help-all section and BRIEF_GROUP
** its --help section.  BRIEF (NULL: not in --help) and FULL (NULL: shown on another
** flag's line) are "LEFT\tTEXT": LEFT is the value's name, written after the flag,
** or, starting with '-', the whole left column; each '\n' of TEXT starts an
** indented line.  --help-all lists the flags in this order, --help in the order of
** its groups.  The math modes' flags (--ftz, ...) are src/math_modes.h's lines. */
#ifndef GPUBLOB_CLI_OPTIONS_H
#define GPUBLOB_CLI_OPTIONS_H

#include "src/math_modes.h" /* the math modes' flags, in CLI_OPTIONS by CLI_MATH_OPTION */

/* A math mode's flag, from its line of src/math_modes.h: a COMPILE flag without a value. */
#define CLI_MATH_OPTION(X, id, name, brief_group, brief, full) X(id, name, 0, 0, COMPILE, brief_group, brief, full)

#define CLI_OPTIONS(X) \
  X(TARGET, "target", 't', 1, TARGETS, B_TARGETS, "NAME[:CHIPS]\ta target and its chips (gfx90a:xnack+: a target id)", \
    "NAME[:CHIP[,CHIP]]\ta target from the spec and its chips (default per\ntarget); repeatable: a blob per (target, chip); MLIR:\nreplaces the module's own target attributes;\na CHIP may be a target id: gfx90a:xnack+") \
  X(FEATURES, "features", 0, 1, TARGETS, B_TARGETS, "STR\tLLVM target features, e.g. +ptx80", \
    "STR\tLLVM target features, e.g. +ptx80") \
  X(RETARGET, "retarget", 0, 0, TARGETS, B_NONE, NULL, \
    "\tcompile functions clang pinned to another chip\n(\"target-cpu\") for each job's chip and features") \
  X(FORMAT, "format", 'f', 1, OUTPUT, B_OUTPUTS, "FMT\tbin (default), asm, llvm, ll, pack, offload", \
    "FMT\tbin (default), asm, llvm (bitcode), ll (LLVM IR text),\npack (alias fatbin): a target's chips in one blob, or\noffload: every (target, chip) in one LLVM OffloadBinary") \
  X(OFFLOAD_ASM, "offload-asm", 0, 0, OUTPUT, B_NONE, NULL, \
    "\t-f offload: each chip's assembly too, as an entry of\nits own where the spec names its kind (nvptx: PTX)") \
  X(OUTPUT, NULL, 'o', 1, OUTPUT, B_OUTPUTS, "FILE|DIR/|PATTERN\toutput; PATTERN of {stem} {target} {chip} {suffix}", \
    "FILE|DIR/|PATTERN\toutput; - for stdout; several outputs go to DIR/\nor to a PATTERN of {stem} {target} {chip} {suffix};\nDIR/ and a PATTERN's directories are made if missing") \
  X(EMIT_C, "emit-c", 0, 1, OUTPUT, B_OUTPUTS, "FILE.h\tevery output as a C array, with its kernels", \
    "FILE.h\talso every output as a C array (NAME[], NAME_size)\nand a table of its kernels, NAME from the input's\nstem, target and chip (gfx90a:xnack+: gfx90a_xnack_plus)") \
  X(DEPFILE, "depfile", 0, 1, OUTPUT, B_NONE, NULL, \
    "FILE\talso write what the outputs depend on (the input,\n-l files, blob and pack tools, device libraries) in\nMake's syntax, for make, ninja and CMake's DEPFILE") \
  X(EMIT_OBJECT, "emit-object", 0, 1, OUTPUT, B_OUTPUTS, "FILE.o\t-f offload: the container in a host object", \
    "FILE.o\t-f offload: also a host ELF object holding the\ncontainer in .llvm.offloading, with symbols STEM_offload\nand STEM_offload_size (STEM: -o's stem, else the input's)") \
  X(OBJECT_ARCH, "object-arch", 0, 1, OUTPUT, B_NONE, NULL, \
    "x86-64|aarch64\t--emit-object's machine (default: this host's)") \
  X(DUMP_DIR, "dump-dir", 0, 1, OUTPUT, B_OUTPUTS, "DIR\teach job's IR, ISA, object and blob tool script", \
    "DIR\teach job's IR (read, linked, optimised), ISA, object,\nand the blob tool's script and log, into DIR (made if\nmissing); such a call compiles (no cache hit)") \
  X(OPT, NULL, 'O', 1, COMPILE, B_TARGETS, "-O0 .. -O3\toptimisation level (default -O3)", "-O0 .. -O3\tdefault -O3") \
  X(AS, "as", 0, 1, COMPILE, B_TARGETS, "mlir|clang\twhose blob, byte for byte: mlir-opt's, clang's", \
    "mlir|clang\twhose defaults: mlir (default), mlir-opt's serialisers';\nclang, clang's CUDA/HIP/OpenCL driver's: its fp\ncontraction and -mllvm options for the module's\nlanguage, ptxas's options as clang gives them (-m64)\nand no report (-v): spills unknown; explicit flags win") \
  X(FP_CONTRACT, "fp-contract", 0, 1, COMPILE, B_NONE, NULL, \
    "fast|on|off\tfuse multiplies into adds: on (default), as the IR\nsays; fast, as clang's CUDA and HIP; off, drop the\nIR's contract flags (an llvm.fmuladd stays)") \
  X(DEBUG, "debug", 0, 1, COMPILE, B_NONE, NULL, \
    "none|lines|full\tthe debug information the blob keeps: none;\nlines, line tables alone; full, all the module has\n(nvptx: ptxas -g, not optimised); default, the\nmodule's, as clang keeps it (nvptx above -O0: lines)") \
  X(BACKEND_ONLY, "backend-only", 0, 0, COMPILE, B_NONE, NULL, \
    "\tthe module is optimised already: the backend alone\nat -O (as llc after opt), no middle end") \
  GPUBLOB_MATH_MODES(CLI_MATH_OPTION, X) \
  X(ABI, "abi", 0, 1, COMPILE, B_TARGETS, "N\tthe target's ABI version (amdgcn: 400, 500, 600)", \
    "N\tthe target's ABI version (amdgcn: 400, 500, 600 for\ncode object v4, v5, v6; default the module's, else 500,\nor 600 for a generic target)") \
  X(JOBS, "jobs", 'j', 1, COMPILE, B_ROBUSTNESS, "N\tcompile threads (default: one per core)", \
    "N\tcompile threads (default: one per core)") \
  X(ISOLATE, "isolate", 0, 0, COMPILE, B_ROBUSTNESS, "\teach job's LLVM work in a child process", \
    "--isolate, --no-isolate\teach job's LLVM work in a child process, so an LLVM\ncrash is an error, not the end (default: in-process)") \
  X(NO_ISOLATE, "no-isolate", 0, 0, COMPILE, B_NONE, NULL, NULL) \
  X(MAX_INPUT, "max-input", 0, 1, COMPILE, B_INPUTS, "N[K|M|G]\trefuse a larger input (default 1G)", \
    "N[K|M|G]\trefuse a larger input (default 1G)") \
  X(TOOL, "tool", 0, 1, TOOLS, B_NONE, NULL, "PATH\tthe blob tool to run, instead of searching") \
  X(TOOL_DIR, "tool-dir", 0, 1, TOOLS, B_NONE, NULL, "DIR\tsearch DIR first for the blob tool (repeatable)") \
  X(TOOL_MODE, "tool-mode", 0, 1, TOOLS, B_TOOLS, "MODE\tauto (ptxas), program, or in-process (nvJitLink)", \
    "auto|program|in-process\tauto: a provider of the program's own bytes (lld,\nlinked in) where it is, else the program (ptxas)\nwhatever the call's size, the provider (nvJitLink)\nonly where it is missing; a pack: the in-process one") \
  X(TOOL_TIMEOUT, "tool-timeout", 0, 1, TOOLS, B_ROBUSTNESS, "SECONDS\tkill a blob tool running longer (default 300)", \
    "SECONDS\tkill a blob or pack tool running longer (default 300)") \
  X(TOOL_MEMORY, "tool-memory", 0, 1, TOOLS, B_NONE, NULL, \
    "MIB\ta blob or pack tool taking more data fails (default\n8192; lld and nvJitLink in-process too)") \
  X(JOB_TIMEOUT, "job-timeout", 0, 1, TOOLS, B_NONE, NULL, \
    "SECONDS\ta job's LLVM work longer is BACKEND: a job with a\ntimeout runs isolated, killed at the limit") \
  X(LIB_DIR, "lib-dir", 0, 1, TOOLS, B_TOOLS, "DIR\tsearch DIR first for device libraries", \
    "DIR\tsearch DIR first for device libraries (repeatable)") \
  X(NO_DEFAULT_SEARCH, "no-default-search", 0, 0, TOOLS, B_NONE, NULL, \
    "\tsearch only --tool-dir and --lib-dir (and --toolkit)") \
  X(TOOLKIT, "toolkit", 0, 1, TOOLS, B_TOOLS, "DIR\ta CUDA or ROCm root, searched first", \
    "DIR\ta toolkit's root (CUDA, ROCm), searched first: DIR/bin\nfor the tool, DIR/lib64 for nvJitLink, DIR/nvvm/libdevice") \
  X(LINK, NULL, 'l', 1, TOOLS, B_INPUTS, "FILE\tlink bitcode FILE before the device libraries", \
    "FILE\tlink bitcode FILE before the device libraries (repeatable)") \
  X(OPTS, "opts", 0, 1, TOOLS, B_TOOLS, "STR\toptions for the blob tool (ptxas)", \
    "STR\toptions for the blob tool (ptxas), split as a shell\nwould; in-process, those nvJitLink has too") \
  X(CACHE_DIR, "cache-dir", 0, 1, CACHE, B_CACHE, "DIR\tthe local cache (default ~/.cache/gpublob)", \
    "DIR\tthe cache (default $GPUBLOB_CACHE_DIR, else\n$XDG_CACHE_HOME/gpublob or ~/.cache/gpublob)") \
  X(CACHE_SIZE, "cache-size", 0, 1, CACHE, B_NONE, NULL, "N[K|M|G]\tthe cache's limit (default 1G)") \
  X(NO_CACHE, "no-cache", 0, 0, CACHE, B_CACHE, "\tneither look up nor store", "\tneither look up nor store") \
  X(REMOTE_CACHE, "remote-cache", 0, 1, CACHE, B_CACHE, "URL\ta server behind it: redis://..., http[s]://...", \
    "URL\ta server behind the cache, shared by machines:\nredis://[:PASSWORD@]HOST[:PORT][/DB] or unix:///PATH, or\nhttp[s]://HOST[:PORT]/PREFIX[?layout=flat] (bazel-remote,\nWebDAV; default $GPUBLOB_REMOTE_CACHE; password also\n$GPUBLOB_REMOTE_PASSWORD, a token $GPUBLOB_REMOTE_TOKEN)") \
  X(REMOTE_CA, "remote-ca", 0, 1, CACHE, B_NONE, NULL, "FILE\tCA bundle verifying an https server (default\n$GPUBLOB_REMOTE_CA, else the system's)") \
  X(REMOTE_READ_ONLY, "remote-read-only", 0, 0, CACHE, B_NONE, NULL, "\tlook up the remote cache, never store to it") \
  X(REMOTE_TIMEOUT, "remote-timeout", 0, 1, CACHE, B_NONE, NULL, "MS\tits connect and command timeout (default 50)") \
  X(REMOTE_MAX, "remote-max", 0, 1, CACHE, B_NONE, NULL, "N[K|M|G]\tstore no larger cache file remotely (default 64M)") \
  X(ATTACH, "attach", 0, 1, MLIR, B_NONE, NULL, \
    "legacy|binary\tdefault binary: gpu.binary with #gpu.object\nentries; legacy: an nvvm.cubin-style attribute") \
  X(PIPELINE, "pipeline", 0, 1, MLIR, B_NONE, NULL, \
    "STR\tlowering passes for each gpu.module, instead of\nthe spec's; none: never lower") \
  X(EMIT_BYTECODE, "emit-bytecode", 0, 0, MLIR, B_OUTPUTS, "\tMLIR input: write MLIR bytecode", \
    "\twrite MLIR bytecode (.mlirbc)") \
  X(SECTION, "section", 0, 1, MLIR, B_NONE, NULL, "NAME\teach #gpu.object's ELF section (properties' section)") \
  X(TOOL_LOG, "tool-log", 0, 0, MLIR, B_NONE, NULL, \
    "\tthe blob tool's log in each #gpu.object's properties\n(ISACompilerLog), as collect-compiler-diagnostics") \
  X(NO_TOOL_REPORT, "no-tool-report", 0, 0, KERNELS, B_NONE, NULL, \
    "\tdo not ask the blob tool for its report (ptxas -v): spills\nunknown, the cubin a command without -v makes") \
  X(BLOCK_SIZE, "block-size", 0, 1, KERNELS, B_NONE, NULL, \
    "N\tthe block (work-group) size occupancy is figured for\n(default: the kernel's own limit, else 1024)") \
  X(MAX_REGISTERS, "max-registers", 0, 1, KERNELS, B_INFO, \
    "--max-registers N ...\tand --max-spills, --max-shared, --max-stack,\n--min-occupancy: a kernel over one fails (LIMIT)", \
    "N\ta kernel using more registers a thread (AMD: VGPRs)\nfails the call (LIMIT, exit 32), nothing written") \
  X(MAX_SPILLS, "max-spills", 0, 1, KERNELS, B_NONE, NULL, \
    "N\tmore spilling fails: NVIDIA's spill-store bytes (ptxas\n-v's), AMD's spilled VGPRs + SGPRs; 0: none at all") \
  X(MAX_SHARED, "max-shared", 0, 1, KERNELS, B_NONE, NULL, \
    "BYTES[K]\tmore static shared memory (LDS) a block fails") \
  X(MAX_STACK, "max-stack", 0, 1, KERNELS, B_NONE, NULL, \
    "BYTES[K]\tmore stack (local, private memory) a thread fails") \
  X(MIN_OCCUPANCY, "min-occupancy", 0, 1, KERNELS, B_NONE, NULL, \
    "F\ta lower occupancy (0 to 1: resident warps or waves over\nthe chip's most, at --block-size) fails") \
  X(LIST_TARGETS, "list-targets", 0, 0, INFO, B_INFO, "\tthe targets, their chips, tools and libraries", \
    "\tname, triple, default chip, formats, attribute,\nvalid chips, and the blob tool a compile would use") \
  X(TOOLCHAIN_ID, "toolchain-id", 0, 0, INFO, B_INFO, "\tthe flags' toolchain identity, 32 hex digits", \
    "\tprint the flags' toolchain identity (no input): 32 hex\ndigits of all but the input that decides a blob (the\nversions, the spec, the flags, the tools' and device\nlibraries' bytes, never their paths); docs/cache.md") \
  X(TIME, "time", 0, 0, INFO, B_INFO, "\tthe call's jobs, cache and phase times", \
    "\tprint the call's jobs, threads, cache and phases,\nthe provider's load and the tools' own CPU time") \
  X(METADATA, "metadata", 0, 1, INFO, B_OUTPUTS, "FILE\teach output's kernels (registers, shared...) as JSON", \
    "FILE\twrite each output's kernels (registers, shared and\nstack bytes, ...) as JSON, read from its blob") \
  X(VERBOSE, "verbose", 0, 0, INFO, B_INFO, "\ta line per kernel, as ptxas -v prints", \
    "\ta line per kernel on stderr, as ptxas -v prints") \
  X(VERSION, "version", 0, 0, INFO, B_INFO, "", "") \
  X(HELP, "help", 'h', 0, INFO, B_INFO, "\tthis help; --help-all: every flag (docs/cli.md)", "\tthe short help") \
  X(HELP_ALL, "help-all", 0, 0, INFO, B_NONE, NULL, "\tthis help")

/* The flags' names in args.c's switch: OPTION_TARGET, ... */
#define CLI_OPTION_ID(id, ...) OPTION_##id,
enum cli_option { CLI_OPTIONS(CLI_OPTION_ID) OPTION_COUNT };
#undef CLI_OPTION_ID

/* --help-all's sections, in its order, and --help's. */
enum cli_group { TARGETS, OUTPUT, COMPILE, TOOLS, CACHE, MLIR, KERNELS, INFO };
enum cli_brief_group { B_INPUTS, B_TARGETS, B_OUTPUTS, B_CACHE, B_TOOLS, B_ROBUSTNESS, B_INFO, B_NONE };

/* One flag of the table, as a struct (args.c's and help.c's tables). */
typedef struct cli_option_row {
  const char *name;
  int letter, value, group, brief_group;
  const char *brief, *full;
} cli_option_row;

#define CLI_OPTION_ROW(id, name, letter, value, group, brief_group, brief, full) \
  {name, letter, value, group, brief_group, brief, full},

#endif /* GPUBLOB_CLI_OPTIONS_H */
