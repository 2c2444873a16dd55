//===- TileCAPI.cpp - C API of the TileMLIR compiler ----------------------===//

#include "tile-c/TileMLIR.h"

#include "tile/InitAllTile.h"
#include "tile/Pipelines/Pipelines.h"
#include "tile/Runner/CpuRunner.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/Timing.h"
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

/// MLIR's timing of a compile (context, parser, each pass, the verifier),
/// printed to stderr when it ends where $TILEMLIR_TIMING is set: the report
/// of tile-opt --mlir-timing --mlir-timing-display=list.
struct CompileTiming {
  DefaultTimingManager manager;
  TimingScope root;

  CompileTiming() {
    manager.setEnabled(std::getenv("TILEMLIR_TIMING") != nullptr);
    manager.setDisplayMode(DefaultTimingManager::DisplayMode::List);
    root = manager.getRootScope();
  }
};

/// Runs `pm` on `module`, then verifies the result once. Verifying after
/// every pass (what tile-opt does, and the lit tests with it) would re-check
/// the large lowered IR some forty times: 0.12 s of the first compile of a
/// GEMM. A pass that leaves invalid IR is found by the lit tests, and from
/// the bundle's kernel.mlir with tile-opt.
LogicalResult runThenVerify(PassManager &pm, ModuleOp module,
                            CompileTiming &timing) {
  pm.enableVerifier(false);
  pm.enableTiming(timing.root);
  if (failed(pm.run(module)))
    return failure();
  TimingScope verifier = timing.root.nest("Verifier");
  return verify(module);
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
    // Pipelines may be given anchored ("builtin.module(...)", as tile-opt's
    // --pass-pipeline takes them) or bare.
    StringRef text(pipeline);
    if (text.consume_front("builtin.module(") && text.consume_back(")"))
      pipeline = nullptr;
    PassManager pm(context.get());
    std::string parseErrors;
    llvm::raw_string_ostream errs(parseErrors);
    if (failed(parsePassPipeline(pipeline ? StringRef(pipeline) : text, pm,
                                 errs))) {
      setError(error, "error: invalid pass pipeline '" + std::string(pipeline) +
                          "': " + parseErrors + "\n");
      return nullptr;
    }
    if (failed(pm.run(*module)) || diagnostics.sawError()) {
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

/// The constant integer behind `v` (through index casts), or -1.
static int64_t constantOf(Value v) {
  if (!v)
    return -1;
  if (std::optional<int64_t> c = getConstantIntValue(v))
    return *c;
  return -1;
}

int tileGpuCompile(const char *ir, const char *chip, const char *features,
                   int32_t opt_level, const char *format, char **binary,
                   int64_t *binary_size, char **ptx, int64_t *ptx_size,
                   char **metadata, char **error) {
  CompileTiming timing;
  TimingScope contextTimer = timing.root.nest("Context");
  std::unique_ptr<MLIRContext> context = makeContext();
  contextTimer.stop();
  DiagnosticCollector diagnostics(context.get());
  TimingScope parser = timing.root.nest("Parser");
  OwningOpRef<ModuleOp> module = parse(context.get(), ir);
  parser.stop();
  if (!module) {
    setError(error, diagnostics.take());
    return 1;
  }
  PassManager kernels(context.get());
  buildTileToGPUKernelsPipeline(kernels, chip);
  if (failed(runThenVerify(kernels, *module, timing)) ||
      diagnostics.sawError()) {
    setError(error, diagnostics.take());
    return 1;
  }

  // What a launcher needs: which host arguments each kernel takes, and the
  // launch shape.
  llvm::json::Array infos;
  bool ok = true;
  module->walk([&](gpu::LaunchFuncOp launch) {
    auto func = launch->getParentOfType<func::FuncOp>();
    llvm::json::Array args;
    for (Value operand : launch.getKernelOperands()) {
      auto arg = dyn_cast<BlockArgument>(operand);
      if (!arg || arg.getOwner()->getParentOp() != func) {
        launch.emitError() << "the kernel needs a value computed on the host; "
                              "only the function's arguments can be passed";
        ok = false;
        return;
      }
      // A TMA descriptor (tile.tma = {param, box, swizzle[, store]}): the
      // launcher builds it from the tensor argument `param` (which the
      // kernel writes through it, with store).
      if (auto tma = func.getArgAttrOfType<DictionaryAttr>(
              arg.getArgNumber(), TileDialect::TmaAttrHelper::getNameStr())) {
        auto param = tma.getAs<IntegerAttr>("param");
        auto box = tma.getAs<DenseI64ArrayAttr>("box");
        auto swizzle = tma.getAs<IntegerAttr>("swizzle");
        if (!param || !box || !swizzle) {
          launch.emitError() << "malformed tile.tma argument attribute " << tma;
          ok = false;
          return;
        }
        llvm::json::Array boxJson;
        for (int64_t b : box.asArrayRef())
          boxJson.push_back(b);
        llvm::json::Object tmaJson{{"param", param.getInt()},
                                   {"box", std::move(boxJson)},
                                   {"swizzle", swizzle.getInt()}};
        if (auto store = tma.getAs<BoolAttr>("store"))
          tmaJson["store"] = store.getValue();
        args.push_back(llvm::json::Object{{"tma", std::move(tmaJson)}});
        continue;
      }
      args.push_back(static_cast<int64_t>(arg.getArgNumber()));
    }
    gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
    llvm::json::Object info{
        {"func", func.getName().str()},
        {"kernel", launch.getKernelName().getValue().str()},
        {"module", launch.getKernelModuleName().getValue().str()},
        {"args", std::move(args)},
        {"block", llvm::json::Array{constantOf(block.x), constantOf(block.y),
                                    constantOf(block.z)}},
        {"shared_bytes",
         constantOf(launch.getDynamicSharedMemorySize()) < 0
             ? 0
             : constantOf(launch.getDynamicSharedMemorySize())}};
    if (launch.hasClusterSize()) {
      gpu::KernelDim3 cluster = launch.getClusterSizeOperandValues();
      info["cluster"] = llvm::json::Array{
          constantOf(cluster.x), constantOf(cluster.y), constantOf(cluster.z)};
    } else {
      info["cluster"] = nullptr;
    }
    infos.push_back(std::move(info));
  });
  if (!ok) {
    setError(error, diagnostics.take());
    return 1;
  }

  // The assembly (PTX, AMDGCN) of a binary comes from the run that
  // assembles it.
  bool isaFormat = StringRef(format) == "isa";
  PassManager lower(context.get());
  if (StringRef(chip).starts_with("gfx")) {
    TileToROCDLPipelineOptions options;
    options.chip = chip;
    options.optLevel = opt_level;
    options.format = format;
    options.keepIsa = ptx && !isaFormat;
    buildGPUKernelsToROCDLPipeline(lower, options);
  } else {
    TileToNVVMPipelineOptions options;
    options.chip = chip;
    options.features = features;
    options.optLevel = opt_level;
    options.format = format;
    options.keepIsa = ptx && !isaFormat;
    buildGPUKernelsToNVVMPipeline(lower, options);
  }
  if (failed(runThenVerify(lower, *module, timing)) ||
      diagnostics.sawError()) {
    setError(error, diagnostics.take());
    return 1;
  }
  // One gpu.binary per kernel module; the launcher loads them one by one.
  std::string blob, ptxBlob;
  llvm::json::Array binaries;
  module->walk([&](gpu::BinaryOp bin) {
    for (Attribute attr : bin.getObjects()) {
      auto object = cast<gpu::ObjectAttr>(attr);
      StringRef bytes = object.getObject().getValue();
      llvm::json::Object entry{{"module", bin.getName().str()},
                               {"offset", static_cast<int64_t>(blob.size())},
                               {"size", static_cast<int64_t>(bytes.size())}};
      blob += bytes.str();
      if (ptx) {
        StringRef text = bytes;
        if (!isaFormat) {
          DictionaryAttr properties = object.getProperties();
          auto kept = properties ? properties.getAs<StringAttr>("isa")
                                 : StringAttr();
          text = kept ? kept.getValue() : StringRef();
        }
        entry["ptx_offset"] = static_cast<int64_t>(ptxBlob.size());
        entry["ptx_size"] = static_cast<int64_t>(text.size());
        ptxBlob += text.str();
      }
      binaries.push_back(std::move(entry));
    }
  });
  llvm::json::Object result{{"kernels", std::move(infos)},
                            {"binaries", std::move(binaries)}};
  std::string json;
  llvm::raw_string_ostream os(json);
  os << llvm::json::Value(std::move(result));
  *metadata = copyString(json);
  *binary = static_cast<char *>(std::malloc(blob.size() + 1));
  std::memcpy(*binary, blob.data(), blob.size());
  *binary_size = static_cast<int64_t>(blob.size());
  if (ptx) {
    *ptx = static_cast<char *>(std::malloc(ptxBlob.size() + 1));
    std::memcpy(*ptx, ptxBlob.data(), ptxBlob.size());
    *ptx_size = static_cast<int64_t>(ptxBlob.size());
  }
  return 0;
}

const char *tilePipelineStages(void) {
  static const std::string stages = llvm::join(getTilePipelineStages(), ",");
  return stages.c_str();
}

char *tilePipeline(const char *target, const char *stage, char **error) {
  llvm::Expected<std::string> text =
      getTilePipelineText(target ? target : "", stage ? stage : "");
  if (!text) {
    setError(error, "error: " + llvm::toString(text.takeError()) + "\n");
    return nullptr;
  }
  return copyString(*text);
}

void tileFreeString(char *str) { std::free(str); }

void tileSetCudaToolkit(const char *path) {
  setCudaToolkitPath(path ? path : "");
}

} // extern "C"
