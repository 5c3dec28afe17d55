/* tests/bad.h: what the test_bad_* tests share (the harness itself: tests/bad.c).
** Each is a table of bad inputs and bad calls through the CLI (build/gpublob), by area:
**   test_bad_usage.c  usage errors, and input and output files (IO);
**   test_bad_input.c  malformed LLVM IR and bitcode, verifier failures, and another
**                     target's modules, calling conventions and intrinsics;
**   test_bad_chips.c  chips, features, formats, device libraries, AMD target ids and
**                     ABI versions, and LLVM's errors (BACKEND);
**   test_bad_tools.c  blob tools missing (NOTOOL) and failing (TOOL), signals, the job
**                     timeout and a killed call's directories;
**   test_bad_mlir.c   MLIR.
**
** Each row is one case: a name, the arguments, an input (text, or a generator for
** the big and binary ones) and the exit status it should get (2 for a usage error,
** else 10 + code).  Every case runs with --no-cache, TMPDIR set to a fresh empty
** directory, in a directory of its own holding only its input, and must keep the
** invariant of docs/cli.md:
**   - it exits with a status from 1 to 127 (never a signal, never >= 128);
**   - it finishes (hang: it ran past the row's time limit and was killed);
**   - stderr's first line starts with "gpublob: error: ", and exactly one line does;
**   - no output file is made (nothing new in its directory, nothing changed there);
**   - no temporary is left (its TMPDIR is empty; no gpublob-*, *.tmp-*, tmpxft*).
** Each is a check of its own, "bad[invariant: WHAT] NAME" (WHAT: exit 1-127, finishes,
** error first, one error line, no output, input unchanged, no temporary, and tools
** gone for the rows that ask it); the exit status the row expects is the separate check
** "bad[code] NAME" (and "bad[msg] NAME" where a row wants a part of the message), so
** that a failure names the one property that broke.  A summary at the end lists the
**
** After its table, each test makes a few calls of its area that should succeed or be
** refused in one of two acceptable ways.  A test's cases run on two worker processes
** at once (each has its own directories). */
#ifndef TESTS_BAD_H
#define TESTS_BAD_H

#define _GNU_SOURCE
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpublob.h"
#include "testlib.h"

#define E(code) (10 + GPUBLOB_##code)
#define USAGE 2
#define CLI "build/gpublob"
#define NV "examples/saxpy_nvptx.ll"
#define AM "examples/saxpy_amdgcn.ll"
#define SP "examples/saxpy_spirv.ll"
#define LLVM_AS LLVM_BINDIR "/llvm-as"
#define LLVM_DIS LLVM_BINDIR "/llvm-dis"
#define MLIR_OPT LLVM_BINDIR "/mlir-opt"
#define ROCM_BC ROCM_BITCODE
#define LD_LLD LLVM_BINDIR "/ld.lld"

/* ---- inputs given as text ---- */

#define NVT "target triple = \"nvptx64-nvidia-cuda\"\n"
#define AMT "target triple = \"amdgcn-amd-amdhsa\"\n"

/* A kernel that is fine, to carry a bad module-level line. */
#define OK_KERNEL "define ptx_kernel void @k(ptr addrspace(1) %p) {\n  store i32 1, ptr addrspace(1) %p\n  ret void\n}\n"

/* ---- MLIR inputs ---- */
#define MLIR_GPU_KERNEL(targets)                                     \
  "module attributes {gpu.container_module} {\n"                      \
  "  gpu.module @kernels " targets " {\n"                             \
  "    gpu.func @f(%x: memref<4xf32>) kernel {\n"                     \
  "      %i = gpu.thread_id x\n"                                      \
  "      %v = memref.load %x[%i] : memref<4xf32>\n"                   \
  "      memref.store %v, %x[%i] : memref<4xf32>\n"                   \
  "      gpu.return\n"                                                \
  "    }\n"                                                           \
  "  }\n"                                                             \
  "}\n"
#define MLIR_LLVM_KERNEL(targets, body)                                       \
  "module attributes {gpu.container_module} {\n"                               \
  "  gpu.module @kernels " targets " {\n" body "  }\n"                          \
  "}\n"
#define ROCDL_A "    llvm.func @a() attributes {gpu.kernel, rocdl.kernel} { llvm.return }\n"

/* ---- generators: the big and the binary inputs ---- */
extern char gen_why[256]; /* why a generator or setup failed: the case is skipped, saying so */
int write_repeat(FILE *f, const char *s, long n);
int put(const char *path, const unsigned char *p, size_t n);
#define DEEP 100000L

/* ---- the table ---- */
typedef struct bad_case {
  const char *name;
  const char *args;       /* split on blanks; see expand() for the @ words */
  const char *text;       /* the input @IN, or NULL */
  int (*gen)(const char *path); /* or a generator writing @IN */
  const char *sfx;        /* @IN's suffix (default .ll) */
  int exit, alt;          /* the exit status it should get; alt: another one also right */
  const char *msg;        /* a part the message should have, or NULL */
  const char *wrap;       /* shell commands to run before exec'ing the CLI (ulimit) */
  double limit;           /* seconds before it is a hang (default 20) */
  int (*setup)(const char *dir); /* prepares the case's directory (before the snapshot) */
  int bitcode_check;      /* skip the case if llvm-dis accepts the input */
  int needs_ptxas;        /* nvptx bin: skipped without the CUDA toolkit */
  int needs_ld_lld;       /* runs the ld.lld program: skipped without it (lld-22) */
  int needs_rocm;         /* links ROCm's device libraries: skipped without them; so is
                             every case of saxpy_amdgcn.ll (AM) whose error comes after */
  int tools_dead;         /* the tool's process group must be gone when the CLI ends */
} bad_case;

/* The CLI built, the fake tools (under the scratch directory's tools/) and the device
** library directories made; -1 (said) when build/gpublob is missing. */
int bad_start(void);
/* The cases, each in its own directory, on two workers; then a check per invariant and
** code of each, in order, and a summary by cause. */
void run_table(const bad_case *cases, size_t n);
/* What the fake tools left running killed; the test's closing line. */
int bad_end(void);

/* ---- calls outside the table ---- */
typedef struct outcome {
  int rc, hung;
  double secs;
  char *err;
} outcome;

outcome cli(const char *const *args, const char *tmpdir, double limit);
const char *fresh_dir(const char *name);
int dir_empty(const char *dir);
double now(void);
int alive(long pid);
void kill_strays(const char *file);
extern char tools_dir[4200];

#endif /* TESTS_BAD_H */
