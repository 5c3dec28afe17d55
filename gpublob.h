/* gpublob.h: turn GPU kernel modules (LLVM IR) into the blobs a GPU driver loads.
**
** Thread safety: a gpublob handle is used by one thread at a time; distinct
** handles may be used from distinct threads at once.  Every compile runs in its
** own LLVMContext.  LLVM's targets are initialised once, by the first
** gpublob_open (guarded by pthread_once), so open a handle before starting
** threads that only share gpublob's read-only target table.  Error messages are
** owned by the handle and stay valid until its next call.
**
** Build, in-tree: ./configure && ninja; vendored: see README.md ("Vendoring").
*/
#ifndef GPUBLOB_H
#define GPUBLOB_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GPUBLOB_VERSION_MAJOR 0
#define GPUBLOB_VERSION_MINOR 1
#define GPUBLOB_VERSION_PATCH 0
#define GPUBLOB_VERSION_STRING "0.1.0"
#define GPUBLOB_VERSION_NUMBER \
  (GPUBLOB_VERSION_MAJOR * 10000 + GPUBLOB_VERSION_MINOR * 100 + GPUBLOB_VERSION_PATCH)

/* Error codes: X(NAME, value, description).  OK is 0; the values are stable. */
#define GPUBLOB_ERRORS(X)                                                     \
  X(OK, 0, "not an error")                                                    \
  X(MISUSE, 1, "bad argument")                                                \
  X(NOMEM, 2, "out of memory")                                                \
  X(IO, 3, "cannot read or write a file")                                     \
  X(PARSE, 4, "malformed LLVM IR text")                                       \
  X(BITCODE, 5, "malformed LLVM bitcode")                                     \
  X(VERIFY, 6, "LLVM IR failed verification")                                 \
  X(TARGET, 7, "unknown target")                                              \
  X(CHIP, 8, "invalid chip for the target")                                   \
  X(FEATURES, 9, "invalid target features")                                   \
  X(FORMAT, 10, "unknown output format")                                      \
  X(NOLIB, 11, "device library not found")                                    \
  X(LINK, 12, "device library link failed")                                   \
  X(BACKEND, 13, "LLVM backend failed")                                       \
  X(NOTOOL, 14, "blob tool not found")                                        \
  X(TOOL, 15, "blob tool failed")                                             \
  X(OPTION, 16, "invalid option")

enum gpublob_code {
#define GPUBLOB_ERROR_ENUM(name, value, text) GPUBLOB_##name = value,
  GPUBLOB_ERRORS(GPUBLOB_ERROR_ENUM)
#undef GPUBLOB_ERROR_ENUM
};

/* What a compile returns.  Zero is the default: bin. */
enum gpublob_format {
  GPUBLOB_FORMAT_DEFAULT = 0,
  GPUBLOB_FORMAT_BIN = 1,  /* the driver's blob: cubin, hsaco, SPIR-V */
  GPUBLOB_FORMAT_ASM = 2,  /* the backend's assembly: PTX, AMDGCN, SPIR-V text */
  GPUBLOB_FORMAT_LLVM = 3  /* bitcode after linking and optimisation */
};

/* Optimisation level.  Zero is the default: O3. */
enum gpublob_opt {
  GPUBLOB_OPT_DEFAULT = 0,
  GPUBLOB_OPT_O0 = 1,
  GPUBLOB_OPT_O1 = 2,
  GPUBLOB_OPT_O2 = 3,
  GPUBLOB_OPT_O3 = 4
};

/* Flags: choose device-library variants and module flags in the spec. */
#define GPUBLOB_FLAG_FTZ 0x1       /* flush denormals to zero ({if:ftz:..}) */
#define GPUBLOB_FLAG_FAST_MATH 0x2 /* unsafe, finite-only math ({if:fast-math:..}) */
#define GPUBLOB_FLAG_NO_DEFAULT_SEARCH 0x4 /* search only tool_dirs and lib_dirs (hermetic) */

#define GPUBLOB_OPTIONS_VERSION 1

/* Compile options.  A zeroed struct (or NULL) means every default. */
typedef struct gpublob_options {
  unsigned version;     /* GPUBLOB_OPTIONS_VERSION, or 0 */
  const char *target;   /* "nvptx" or "nvptx:sm_80"; NULL: the first spec target */
  const char *chip;     /* overrides a chip in target; NULL: the target default */
  const char *features; /* LLVM features, e.g. "+ptx80"; NULL: the spec default */
  int format;           /* enum gpublob_format */
  int opt;              /* enum gpublob_opt */
  unsigned flags;       /* GPUBLOB_FLAG_* */
  const char *tool;     /* exact path of the blob tool; NULL: search */
  const char *tool_dirs; /* colon list of extra directories for the blob tool */
  const char *lib_dirs;  /* colon list of extra directories for device libraries */
} gpublob_options;

/* A blob handed back to the caller; free it with gpublob_blob_free. */
typedef struct gpublob_blob {
  unsigned char *data;
  size_t size;
  const char *suffix; /* ".cubin", ".ptx", ".bc", ... (static storage) */
} gpublob_blob;

/* A target as the spec describes it (static storage). */
typedef struct gpublob_target_info {
  const char *name, *triple, *chip, *features, *attribute;
  const char *suffix_asm, *suffix_bin;
  const char *tool_kind; /* "exec" or "none" */
  const char *chips;     /* blank-separated list of valid chips */
} gpublob_target_info;

typedef struct gpublob gpublob;

/* Handles. */
int gpublob_open(gpublob **out);
void gpublob_close(gpublob *g);

/* Compile an LLVM IR module (text or bitcode) held in memory.  name labels
** diagnostics and may be NULL.  On failure *out is zeroed and nothing leaks. */
int gpublob_module_compile(gpublob *g, const gpublob_options *opts, const void *ir,
                           size_t size, const char *name, gpublob_blob *out);
/* The same for a file; path "-" reads standard input. */
int gpublob_file_compile(gpublob *g, const gpublob_options *opts, const char *path,
                         gpublob_blob *out);
void gpublob_blob_free(gpublob_blob *b);

/* Errors: the last call's code and message (owned by the handle). */
int gpublob_error_code(const gpublob *g);
const char *gpublob_error_message(const gpublob *g);
const char *gpublob_error_string(int code);

/* Targets. */
int gpublob_target_count(void);
int gpublob_target_get(int index, gpublob_target_info *out);
/* Find the blob tool of a target as a compile would; writes its path into buf
** (or "" for a target that needs none).  NOTOOL when missing, with the message. */
int gpublob_tool_find(gpublob *g, const gpublob_options *opts, char *buf, size_t size);

const char *gpublob_version(void);

#ifdef __cplusplus
}
#endif
#endif /* GPUBLOB_H */
