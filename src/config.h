/* config.h: gpublob's build-time limits, as luaconf.h holds Lua's.  Each can be
** set with -D when the core is compiled; nothing else in the core hard-codes them. */
#ifndef GPUBLOB_CONFIG_H
#define GPUBLOB_CONFIG_H

#ifndef GPUBLOB_MLIR
#define GPUBLOB_MLIR 0 /* 1: MLIR input, with the MLIR C API */
#endif
#ifndef GPUBLOB_MLIR_PASSES
#define GPUBLOB_MLIR_PASSES 0 /* 1: src/passes.cpp, MLIR jobs' middle end as mlir-opt's (configure) */
#endif

#ifndef GPUBLOB_LLVM_CXX
#define GPUBLOB_LLVM_CXX 0 /* 1: src/passes.cpp, what LLVM's C API does not reach: the target
                              machine's fp fusion, LLVM's options per job (configure) */
#endif

#ifndef GPUBLOB_VENDORED
#define GPUBLOB_VENDORED 0 /* 1: build/vendor/gpublob.c (tools/amalgamate.c defines it) */
#endif

#ifndef GPUBLOB_LLD
#define GPUBLOB_LLD 0 /* 1: lld's ELF driver linked in (src/lld.cpp), with GPUBLOB_LLD_ID */
#endif

#ifndef GPUBLOB_TOOL_TIMEOUT_DEFAULT
#define GPUBLOB_TOOL_TIMEOUT_DEFAULT 300 /* seconds a blob or pack tool may run */
#endif
#ifndef GPUBLOB_TOOL_MEMORY_DEFAULT
#define GPUBLOB_TOOL_MEMORY_DEFAULT 8192 /* MiB of data a blob or pack tool may take (RLIMIT_DATA) */
#endif
#ifndef GPUBLOB_MAX_INPUT_DEFAULT
#define GPUBLOB_MAX_INPUT_DEFAULT (1ULL << 30) /* bytes of input */
#endif
#ifndef GPUBLOB_MAX_NESTING
#define GPUBLOB_MAX_NESTING 1000 /* brackets deep in text input: LLVM's and MLIR's parsers
                                    recurse once a level, some 800 bytes of stack each */
#endif
#ifndef GPUBLOB_WORKER_TARGET_MACHINES
#define GPUBLOB_WORKER_TARGET_MACHINES 16 /* target machines a pool worker keeps for its
                                             next jobs: (triple, chip, features, level)s */
#endif
#ifndef GPUBLOB_PARSE_STACK
#define GPUBLOB_PARSE_STACK (256u << 20) /* the stack of the threads that parse */
#endif

#endif /* GPUBLOB_CONFIG_H */
