//===- TileCAPI.cpp - C API of the TileMLIR compiler ----------------------===//

#include "tile-c/TileMLIR.h"

#include "tile/InitAllTile.h"
#include "tile/Runner/CpuRunner.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>
#include <mutex>

using namespace mlir;
using namespace mlir::tile;

#ifndef TILE_VERSION
#define TILE_VERSION "0.0.0"
#endif

struct TileCpuModule {
  std::unique_ptr<MLIRContext> context;
  std::unique_ptr<CpuModule> module;
};

namespace {

char *copyString(const std::string &s) {
  char *out = static_cast<char *>(std::malloc(s.size() + 1));
  std::memcpy(out, s.c_str(), s.size() + 1);
  return out;
}

void setError(char **error, const std::string &message) {
  if (error)
    *error = copyString(message.empty() ? "error: unknown failure\n" : message);
}

std::unique_ptr<MLIRContext> makeContext() {
  static std::once_flag registered;
  std::call_once(registered, [] {
    registerAllPasses();
    registerAllTilePasses();
  });
  DialectRegistry registry;
  registerAllTileDialects(registry);
  registerCpuTranslations(registry);
  auto context = std::make_unique<MLIRContext>(registry);
  context->loadAllAvailableDialects();
  // Diagnostics point at the user's source; the IR of the op adds noise.
  context->printOpOnDiagnostic(false);
  // Kernels are compiled from Python threads of their own; MLIR's thread
  // pool would only compete with them on small machines.
  context->disableMultithreading();
  return context;
}

OwningOpRef<ModuleOp> parse(MLIRContext *context, const char *ir) {
  return parseSourceString<ModuleOp>(ir, ParserConfig(context), "<tile-ir>");
}

} // namespace

extern "C" {

const char *tileVersion(void) { return TILE_VERSION; }

char *tileRunPipeline(const char *ir, const char *pipeline, char **error) {
  std::unique_ptr<MLIRContext> context = makeContext();
  DiagnosticCollector diagnostics(context.get());
  OwningOpRef<ModuleOp> module = parse(context.get(), ir);
  if (!module) {
    setError(error, diagnostics.take());
    return nullptr;
  }
  if (pipeline && *pipeline) {
    PassManager pm(context.get());
    std::string parseErrors;
    llvm::raw_string_ostream errs(parseErrors);
    if (failed(parsePassPipeline(pipeline, pm, errs))) {
      setError(error, "error: invalid pass pipeline '" +
                          std::string(pipeline) + "': " + parseErrors + "\n");
      return nullptr;
    }
    if (failed(pm.run(*module))) {
      setError(error, diagnostics.take());
      return nullptr;
    }
  }
  std::string out;
  llvm::raw_string_ostream os(out);
  OpPrintingFlags flags;
  flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
  module->print(os, flags);
  return copyString(out);
}

TileCpuModule *tileCpuCompile(const char *ir, char **error) {
  auto result = std::make_unique<TileCpuModule>();
  result->context = makeContext();
  DiagnosticCollector diagnostics(result->context.get());
  OwningOpRef<ModuleOp> module = parse(result->context.get(), ir);
  if (!module) {
    setError(error, diagnostics.take());
    return nullptr;
  }
  std::string message;
  result->module = CpuModule::compile(*module, message);
  if (!result->module) {
    setError(error, message);
    return nullptr;
  }
  return result.release();
}

int tileCpuInvoke(TileCpuModule *module, const char *name, int32_t num_args,
                  const TileArg *args, char **error) {
  SmallVector<RunArg> runArgs;
  for (int32_t i = 0; i < num_args; ++i) {
    const TileArg &a = args[i];
    RunArg &r = runArgs.emplace_back();
    switch (a.kind) {
    case TILE_ARG_MEMREF:
      r.kind = RunArg::Kind::MemRef;
      r.data = a.data;
      r.sizes.assign(a.sizes, a.sizes + a.rank);
      r.strides.assign(a.strides, a.strides + a.rank);
      break;
    case TILE_ARG_INT:
      r.kind = RunArg::Kind::Int;
      r.intValue = a.int_value;
      break;
    default:
      r.kind = RunArg::Kind::Float;
      r.floatValue = a.float_value;
      break;
    }
  }
  std::string message;
  if (failed(module->module->invoke(name, runArgs, message))) {
    setError(error, message);
    return 1;
  }
  return 0;
}

int tileCpuWriteSharedLibrary(TileCpuModule *module, const char *path,
                              char **error) {
  std::string message;
  if (failed(module->module->writeSharedLibrary(path, message))) {
    setError(error, message);
    return 1;
  }
  return 0;
}

const char *tileCpuGetLLVMIR(TileCpuModule *module) {
  return module->module->getLLVMIR().data();
}

void tileCpuDestroy(TileCpuModule *module) { delete module; }

void tileFreeString(char *str) { std::free(str); }

} // extern "C"
