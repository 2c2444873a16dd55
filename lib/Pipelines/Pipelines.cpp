//===- Pipelines.cpp - Named tile pipelines -------------------------------===//

#include "tile/Pipelines/Pipelines.h"

#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::tile;

void mlir::tile::buildTileToCPUPipeline(OpPassManager &pm) {
  pm.addPass(createTileVerifyTarget(TileVerifyTargetOptions{"cpu"}));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createTileLowerOps(TileLowerOpsOptions{"cpu"}));
  pm.addPass(createTileLowerKernel(TileLowerKernelOptions{"cpu"}));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createLoopInvariantCodeMotionPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

void mlir::tile::registerTilePipelines() {
  PassPipelineRegistration<>(
      "tile-to-cpu",
      "Lower tile IR to the LLVM dialect for the host CPU (OpenMP over "
      "blocks, vectorized tiles)",
      buildTileToCPUPipeline);
}
