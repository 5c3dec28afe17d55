/* src/passes_none.c: the object that stands for src/passes.cpp's in a build without
** it (no MLIR, or no C++ compiler): it defines nothing, and an MLIR input's jobs run
** LLVM's C API pipeline.  It keeps the library's inputs the same list in every
** configuration (build.ninja). */
typedef int gpublob_built_without_mlir_passes;
