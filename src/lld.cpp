// src/lld.cpp: lld's ELF driver linked in, behind a C interface: the lld provider
// (src/provider_lld.c) links an hsaco with it instead of starting the ld.lld
// program.  lld's API is C++ (lld/Common/Driver.h), so this is the one C++ file of
// gpublob, outside the C core; a build without it (the vendored file, a configure
// without liblld-22-dev) runs the ld.lld program instead.
//
// It runs only in a child process of the isolation helper (src/provider_child.c),
// never on a host's thread: lld survives its own fatal errors only inside LLVM's
// crash recovery, and enabling that installs process-wide signal handlers; its
// output buffer registers a temporary file for removal on a signal, which installs
// the interrupt handlers for good.  Both are the child's, and die with it.  lld's
// fatal() returns here instead of calling _exit, so the child still sends its
// message.  lld keeps global state, so a link runs under one lock, and after a fatal
// error or a crash lld says it cannot run again: gpublob__lld_usable() is then 0
// for the rest of that (child) process.
#include "lld/Common/Driver.h"
#include "llvm-c/Target.h" /* LLVMInitialize*: the backends' C entry points */
#include "llvm/ADT/SmallVector.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Plugins/PassPlugin.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

LLD_HAS_DRIVER(elf)

// lld's LTO (which gpublob never runs: it links objects) registers the passes of
// LLVM's static extensions, and Debian's LLVM 22 names Polly among them
// (llvm/Support/Extension.def) without shipping it in the static archives that
// gpublob links: gpublob has no Polly, so its plugin entry registers no pass.
static void no_polly_passes(llvm::PassBuilder &) {}
llvm::PassPluginLibraryInfo getPollyPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "Polly", "absent from gpublob", no_polly_passes};
}

// lld's ELF driver initialises every backend LLVM was built with, for its LTO: the
// inline llvm::InitializeAll* of llvm/Support/TargetSelect.h, which its Driver.cpp
// instantiates, each in a COMDAT group.  Linked statically, those would need every
// backend's archive (or no-op stand-ins) in every program that links gpublob.
// gpublob links objects with lld, never bitcode (the spec's provider_options refuse
// LTO's words), so the five are defined here as the spec's backends alone
// (build/gpublob_targets.def, as src/llvm.c initialises them), emitted in the same
// COMDAT groups: this object comes before lld's archives in every link of gpublob,
// so the linker keeps these and drops lld's copies with their references.
namespace llvm {
inline void InitializeAllTargetInfos() {
#define GPUBLOB_LLVM_TARGET(x) LLVMInitialize##x##TargetInfo();
#include "gpublob_targets.def"
#undef GPUBLOB_LLVM_TARGET
}
inline void InitializeAllTargets() {
  InitializeAllTargetInfos();
#define GPUBLOB_LLVM_TARGET(x) LLVMInitialize##x##Target();
#include "gpublob_targets.def"
#undef GPUBLOB_LLVM_TARGET
}
inline void InitializeAllTargetMCs() {
#define GPUBLOB_LLVM_TARGET(x) LLVMInitialize##x##TargetMC();
#include "gpublob_targets.def"
#undef GPUBLOB_LLVM_TARGET
}
inline void InitializeAllAsmPrinters() {
#define GPUBLOB_LLVM_TARGET(x) LLVMInitialize##x##AsmPrinter();
#include "gpublob_targets.def"
#undef GPUBLOB_LLVM_TARGET
}
inline void InitializeAllAsmParsers() {
#define GPUBLOB_LLVM_ASM_PARSER(x) LLVMInitialize##x##AsmParser();
#include "gpublob_targets.def"
#undef GPUBLOB_LLVM_ASM_PARSER
}
} // namespace llvm

namespace {
// Taking their addresses emits them here (inline functions are emitted where used).
[[maybe_unused]] __attribute__((used)) void (*const backend_inits[])() = {
    llvm::InitializeAllTargetInfos, llvm::InitializeAllTargets, llvm::InitializeAllTargetMCs,
    llvm::InitializeAllAsmPrinters, llvm::InitializeAllAsmParsers};

std::mutex lld_mu;                   // one link at a time, process-wide
std::atomic<bool> lld_broken{false}; // a fatal error or a crash: never again

char *copy_out(const std::string &s) {
  char *p = static_cast<char *>(std::malloc(s.size() + 1));
  if (p) std::memcpy(p, s.c_str(), s.size() + 1);
  return p;
}
} // namespace

extern "C" {
// 1 while lld may run in this process; 0 after a fatal error or a crash.
int gpublob__lld_usable(void) { return !lld_broken.load(); }

// Runs ld.lld's driver on argv (argv[0] names the flavour: ld.lld).  Returns lld's
// exit code (0: linked), or -1 when lld cannot run (it failed fatally before in
// this process); *log (malloc'd, or NULL when out of memory) has what lld printed;
// *fatal is 1 when this run ended fatally and lld is now unusable.
int gpublob__lld_elf(int argc, const char *const *argv, char **log, int *fatal) {
  std::lock_guard<std::mutex> hold(lld_mu);
  *log = nullptr;
  *fatal = 0;
  if (lld_broken.load()) {
    *log = copy_out("lld cannot run again in this process after an earlier fatal error");
    return -1;
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::SmallVector<const char *, 16> args(argv, argv + argc);
  llvm::CrashRecoveryContext::Enable(); // lld's fatal() longjmps back instead of _exit (a child's handlers)
  lld::Result r = lld::lldMain(args, os, os, {{lld::Gnu, &lld::elf::link}});
  llvm::CrashRecoveryContext::Disable();
  os.flush();
  if (!r.canRunAgain) {
    lld_broken.store(true);
    *fatal = 1;
  }
  *log = copy_out(text);
  return r.canRunAgain || r.retCode ? r.retCode : 1;
}
}
