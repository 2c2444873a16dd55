//===- NoPolly.cpp - The wheel's stand-in for Polly's pass plugin ---------===//
//
// Debian's LLVM is built with Polly as a static extension
// (llvm/Support/Extension.def): LLVM's LTO back end, which the linked-in lld
// reaches, registers it through getPollyPluginInfo(). The wheel has no
// Polly and never runs LTO (kernels are linked from object files); this
// extension registers nothing.
//
//===----------------------------------------------------------------------===//

#include "llvm/Plugins/PassPlugin.h"

llvm::PassPluginLibraryInfo getPollyPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "Polly", "none", [](llvm::PassBuilder &) {}};
}
