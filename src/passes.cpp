// src/passes.cpp: LLVM's middle end as MLIR's gpu-module-to-binary runs it, for the
// jobs of an MLIR input, whose peer is mlir-opt.  Upstream's serialisers optimise with
// mlir::makeOptimizingTransformer: a PassBuilder with loop unrolling, interleaving,
// and loop and SLP vectorisation on, and no standard instrumentations.  Without
// those, nothing skips a function's passes for optnone (ockl's
// __ockl_hostcall_internal, which the HIP printf calls, comes out optimised), while
// the inliner and the interprocedural passes still read the attribute.  LLVM's C API
// (LLVMRunPasses) always registers them, so this is C++, beside src/lld.cpp and
// built where it is; a build without it (the vendored file) runs LLVMRunPasses.
// It also erases named metadata from a device library, as upstream's ROCDL
// serialiser does (the spec's mlir_lib_drop), which the C API cannot.
#include "llvm-c/Core.h"
#include "llvm-c/TargetMachine.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/OptimizationLevel.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Target/TargetMachine.h"

extern "C" {
// Named metadata name (n bytes) erased from m, if m has it: LLVM's C API erases none.
void gpublob__erase_named_metadata(LLVMModuleRef m, const char *name, size_t n) {
  llvm::Module *mod = llvm::unwrap(m);
  if (llvm::NamedMDNode *md = mod->getNamedMetadata(llvm::StringRef(name, n))) mod->eraseNamedMetadata(md);
}

// The default pipeline of level (0 to 3) on m, for tm, as MLIR's serialisers run it.
void gpublob__mlir_passes(LLVMModuleRef m, LLVMTargetMachineRef tm, int level) {
  static const llvm::OptimizationLevel levels[] = {llvm::OptimizationLevel::O0, llvm::OptimizationLevel::O1,
                                                   llvm::OptimizationLevel::O2, llvm::OptimizationLevel::O3};
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = true;
  tuning.LoopInterleaving = true;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  llvm::PassBuilder pb(reinterpret_cast<llvm::TargetMachine *>(tm), tuning);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm;
  mpm.addPass(pb.buildPerModuleDefaultPipeline(levels[level < 0 ? 0 : level > 3 ? 3 : level]));
  mpm.run(*llvm::unwrap(m), mam);
}
}
