//===- tile-opt.cpp - The TileMLIR optimizer driver -----------------------===//
//
// mlir-opt with the tile dialect, its passes and pipelines. One difference:
// a run that prints an error fails (exit code 1) even where the pass that
// reported it did not (some upstream conversions only emit their type
// converter's errors), unless --verify-diagnostics checks the errors.
//
//===----------------------------------------------------------------------===//

#include "tile/InitAllTile.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerAllPasses();
  tile::registerAllTilePasses();

  DialectRegistry registry;
  tile::registerAllTileDialects(registry);
  auto [inputFilename, outputFilename] = registerAndParseCLIOptions(
      argc, argv, "TileMLIR optimizer driver\n", registry);
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects() || config.shouldListPasses())
    return asMainReturnCode(
        MlirOptMain(argc, argv, inputFilename, outputFilename, registry));

  // Each input (each split of --split-input-file) gets a context of its own,
  // whose pass manager is set up here: count the errors printed there.
  bool sawError = false;
  MlirOptMainConfig counting = config;
  counting.setPassPipelineSetupFn([&](PassManager &pm) {
    pm.getContext()->getDiagEngine().registerHandler([&](Diagnostic &diag) {
      sawError |= diag.getSeverity() == DiagnosticSeverity::Error;
      return failure(); // On to the handler that prints it.
    });
    return config.setupPassPipeline(pm);
  });

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file =
      openInputFile(inputFilename, &errorMessage);
  if (!file) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  if (failed(MlirOptMain(output->os(), std::move(file), registry, counting)))
    return 1;
  if (sawError && !config.shouldVerifyDiagnostics())
    return 1; // The errors are printed already.
  output->keep();
  return 0;
}
