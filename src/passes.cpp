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
// It is built wherever configure finds a C++ compiler (GPUBLOB_LLVM_CXX), with MLIR
// or without, for what else LLVM's C API does not reach: the target machine's
// floating-point fusion (clang's -ffp-contract=fast: AllowFPOpFusion = Fast) and
// LLVM's command-line options (clang's -mllvm words), set and reset by name.
#include "llvm-c/Core.h"
#include "llvm-c/TargetMachine.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/OptimizationLevel.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Target/TargetMachine.h"

extern "C" {
// The target machine's floating-point fusion: Fast (fast != 0), as clang sets it for
// -ffp-contract=fast and llc for -fp-contract=fast, else Standard (LLVM's default); and
// its assembly's comments (verbose != 0), as clang -S and llc write them, else the C
// API's plain assembly.
void gpublob__tm_options(LLVMTargetMachineRef tm, int fast, int verbose) {
  llvm::TargetMachine *t = reinterpret_cast<llvm::TargetMachine *>(tm);
  t->Options.AllowFPOpFusion = fast ? llvm::FPOpFusion::Fast : llvm::FPOpFusion::Standard;
  t->Options.MCOptions.AsmVerbose = verbose != 0;
}

// The contract flag taken from every fadd, fsub and fmul of m: LLVM's C API only adds
// flags (LLVMSetFastMathFlags ORs them in), so --fp-contract off clears them here.
void gpublob__drop_contract(LLVMModuleRef m) {
  for (llvm::Function &f : *llvm::unwrap(m))
    for (llvm::BasicBlock &b : f)
      for (llvm::Instruction &i : b) {
        unsigned op = i.getOpcode();
        if (op != llvm::Instruction::FAdd && op != llvm::Instruction::FSub && op != llvm::Instruction::FMul) continue;
        llvm::FastMathFlags fmf = i.getFastMathFlags();
        fmf.setAllowContract(false);
        i.copyFastMathFlags(fmf);
      }
}

// The most debug information m's compile units ask for (their emission kinds): 0 none,
// 1 line directives alone, 2 line tables, 3 full.
int gpublob__debug_kind(LLVMModuleRef m) {
  int most = 0;
  for (llvm::DICompileUnit *cu : llvm::unwrap(m)->debug_compile_units()) {
    switch (cu->getEmissionKind()) {
    case llvm::DICompileUnit::DebugDirectivesOnly: most = std::max(most, 1); break;
    case llvm::DICompileUnit::LineTablesOnly: most = std::max(most, 2); break;
    case llvm::DICompileUnit::FullDebug: most = 3; break;
    default: break;
    }
  }
  return most;
}

// A distinct copy of cu with emission kind kind; its arrays as they are.
static llvm::DICompileUnit *compile_unit_of_kind(llvm::DICompileUnit *cu, llvm::DICompileUnit::DebugEmissionKind kind) {
  return llvm::DICompileUnit::getDistinct(
      cu->getContext(), cu->getSourceLanguage(), cu->getRawFile(), cu->getRawProducer(), cu->isOptimized(),
      cu->getRawFlags(), cu->getRuntimeVersion(), cu->getRawSplitDebugFilename(), kind, cu->getRawEnumTypes(),
      cu->getRawRetainedTypes(), cu->getRawGlobalVariables(), cu->getRawImportedEntities(), cu->getRawMacros(),
      cu->getDWOId(), cu->getSplitDebugInlining(), cu->getDebugInfoForProfiling(), (unsigned)cu->getNameTableKind(),
      cu->getRangesBaseAddress(), cu->getRawSysRoot(), cu->getRawSDK());
}

// m's debug information cut to its line tables (LLVM's stripNonLineTableDebugInfo, as
// clang's -gline-tables-only keeps them: files, lines, inlined-at; no variables nor
// types), each compile unit then of emission kind line-tables-only, or, with
// directives, debug-directives-only (NVPTX: .loc lines, no DWARF sections of its own).
void gpublob__debug_lines(LLVMModuleRef m, int directives) {
  llvm::Module *mod = llvm::unwrap(m);
  llvm::stripNonLineTableDebugInfo(*mod);
  auto kind = directives ? llvm::DICompileUnit::DebugDirectivesOnly : llvm::DICompileUnit::LineTablesOnly;
  llvm::NamedMDNode *cus = mod->getNamedMetadata("llvm.dbg.cu");
  if (!cus) return;
  llvm::DebugInfoFinder finder;
  finder.processModule(*mod);
  for (unsigned i = 0; i < cus->getNumOperands(); i++) {
    auto *cu = llvm::dyn_cast<llvm::DICompileUnit>(cus->getOperand(i));
    if (!cu || cu->getEmissionKind() == kind) continue;
    llvm::DICompileUnit *now = compile_unit_of_kind(cu, kind);
    for (llvm::DISubprogram *sp : finder.subprograms())
      if (sp->getUnit() == cu) sp->replaceUnit(now);
    cus->setOperand(i, now);
  }
}

// A copy of m in its context, its values' use lists in m's order (bitcode written with
// them and read back): LLVMCloneModule's copy orders them otherwise, and the backend,
// which walks them, then orders some instructions otherwise (the dump's ISA of an
// object emission, src/dump.c).  NULL when the copy cannot be made.
LLVMModuleRef gpublob__copy_module(LLVMModuleRef m) {
  llvm::Module *mod = llvm::unwrap(m);
  llvm::SmallVector<char, 0> buf;
  llvm::raw_svector_ostream os(buf);
  llvm::WriteBitcodeToFile(*mod, os, /*ShouldPreserveUseListOrder=*/true);
  auto copy = llvm::parseBitcodeFile(llvm::MemoryBufferRef(llvm::StringRef(buf.data(), buf.size()), mod->getName()),
                                     mod->getContext());
  if (!copy) {
    llvm::consumeError(copy.takeError());
    return nullptr;
  }
  return llvm::wrap(copy->release());
}

// LLVM's option named by word ("-NAME" or "-NAME=VALUE", n bytes); NULL for none.
static llvm::cl::Option *llvm_option(llvm::StringRef word, llvm::StringRef *value, bool *has_value) {
  llvm::StringRef w = word.ltrim('-');
  auto parts = w.split('=');
  *value = parts.second;
  *has_value = w.contains('=');
  auto &options = llvm::cl::getRegisteredOptions();
  auto it = options.find(parts.first);
  return it == options.end() ? nullptr : it->second;
}

// 1 when word (n bytes) names one of LLVM's options, else 0.
int gpublob__llvm_option_known(const char *word, size_t n) {
  llvm::StringRef value;
  bool has_value;
  return llvm_option(llvm::StringRef(word, n), &value, &has_value) != nullptr;
}

// word (n bytes) given to LLVM's options as -mllvm gives it (an option without a
// value is a bool's true): 0, or -1 when LLVM has no such option or refuses the value.
int gpublob__llvm_option_set(const char *word, size_t n) {
  llvm::StringRef value;
  bool has_value;
  llvm::cl::Option *o = llvm_option(llvm::StringRef(word, n), &value, &has_value);
  if (!o) return -1;
  return o->addOccurrence(0, o->ArgStr, has_value ? value : llvm::StringRef()) ? -1 : 0;
}

// The option word names back at its default, as if never given.
void gpublob__llvm_option_reset(const char *word, size_t n) {
  llvm::StringRef value;
  bool has_value;
  if (llvm::cl::Option *o = llvm_option(llvm::StringRef(word, n), &value, &has_value)) o->reset();
}

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
