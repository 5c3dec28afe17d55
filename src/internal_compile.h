/* src/internal_compile.h: the compiler's seams: a compiler part's calls into a later
** part, declared once, here (src/internal.h has the shared parts').  gpublob.c
** includes it before the compiler's parts; the cache front (src/front.c) has none
** of them. */
#ifndef GPUBLOB_INTERNAL_COMPILE_H
#define GPUBLOB_INTERNAL_COMPILE_H

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

typedef struct devlib devlib; /* src/devlib.c */

/* src/proc.c: a blob tool still running ends (src/llvm.c's llvm_job_release) */
static void tool_end(job *j);
/* src/libm_names.c: C math names to the device library's (src/devlib.c's link) */
static int libm_names_wanted(job *j);
static int libm_names_rename(job *j, devlib *libs, int n);
/* src/pack.c: the spec's in-process pack step (src/plan.c's) */
static const pack_provider_ops *pack_provider_of(const target_desc *t);
/* src/isolate_host.c: a job's LLVM work in a child of the helper (src/job.c's) */
static int isolate_host_job(job *j);
/* src/provider_child.c: an in-process provider's run in a child of the helper
** (src/provider_run.c's), and that child's life (src/isolate_child.c's) */
static int provider_child_in_child(job *j, const char **opts, uint32_t n);
static void provider_child_main(int fd, const strbuf *rec, int chan);
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
#endif
#if GPUBLOB_MLIR_PASSES
void gpublob__mlir_passes(LLVMModuleRef m, LLVMTargetMachineRef tm, int level);
void gpublob__erase_named_metadata(LLVMModuleRef m, const char *name, size_t n);
#endif
/* src/isolate_child.c: an isolated child's job socket, -1 in any other process
** (src/dump.c forks from such a child) */
static int isolate_child_fd;

#endif /* GPUBLOB_INTERNAL_COMPILE_H */
