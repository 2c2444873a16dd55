//===- Pipelines.cpp - Named tile pipelines -------------------------------===//

#include "tile/Pipelines/Pipelines.h"

#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/Pipelines/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Utils.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"

#include <mutex>

using namespace mlir;
using namespace mlir::tile;

void mlir::tile::buildTileToCPUPipeline(OpPassManager &pm) {
  pm.addPass(createTileVerifyTarget(TileVerifyTargetOptions{"cpu"}));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createTileInsertBarriers());
  pm.addPass(createTileGuardMemoryAccess());
  pm.addPass(createTileApplyTensorLayouts());
  pm.addPass(createTileLowerOps(TileLowerOpsOptions{"cpu"}));
  pm.addPass(createTileLowerKernel(TileLowerKernelOptions{"cpu"}));
  pm.addPass(createTileEmulateFp4());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createLoopInvariantCodeMotionPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // bf16 conversions as integer code: x86 has no bf16 instruction before
  // AVX512-BF16, where LLVM calls __truncsfbf2, which GCC 12's libgcc lacks
  // (the kernel would not load on such a CPU).
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
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

void mlir::tile::buildTileToGPUKernelsPipeline(OpPassManager &pm,
                                               StringRef chip) {
  std::string target = chip.str();
  pm.addPass(createTileVerifyTarget(TileVerifyTargetOptions{target}));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createTileInsertBarriers());
  pm.addPass(createTileGuardMemoryAccess());
  pm.addPass(createTileApplyTensorLayouts());
  pm.addPass(createTileSelectMma(TileSelectMmaOptions{target}));
  pm.addPass(createTileInferLayouts(TileInferLayoutsOptions{target}));
  pm.addPass(createTilePlanShared(TilePlanSharedOptions{target}));
  pm.addPass(createTilePlaceBuffers(TilePlaceBuffersOptions{target}));
  pm.addPass(createTileSoftwarePipeline(TileSoftwarePipelineOptions{target}));
  pm.addPass(createTilePlanScratch(TilePlanScratchOptions{target}));
  pm.addPass(createTileLowerOps(TileLowerOpsOptions{target}));
  pm.addPass(createTileLowerKernel(TileLowerKernelOptions{target}));
  pm.addPass(createTileEmulateFp4());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // The lowering brackets every shared-memory writer with barriers; drop
  // those no conflicting access needs.
  pm.addNestedPass<func::FuncOp>(createGpuEliminateBarriers());
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
}

/// The toolkit given to setCudaToolkitPath (the Python front end finds one
/// where a wheel install has no /usr/local/cuda), or empty.
static std::mutex toolkitMutex;
static std::string toolkitOverride;

void mlir::tile::setCudaToolkitPath(StringRef path) {
  std::lock_guard<std::mutex> lock(toolkitMutex);
  toolkitOverride = path.str();
}

/// The CUDA toolkit whose libdevice (math functions) and ptxas serialize
/// the kernels: the one set with setCudaToolkitPath, else upstream's choice
/// ($CUDA_ROOT, $CUDA_HOME, $CUDA_PATH, the path MLIR was built with) when
/// it has libdevice, else /usr/local/cuda, so that a shell without those
/// variables (lit, CI) compiles the same.
static std::string cudaToolkitPath() {
  {
    std::lock_guard<std::mutex> lock(toolkitMutex);
    if (!toolkitOverride.empty())
      return toolkitOverride;
  }
  auto hasLibdevice = [](StringRef root) {
    return !root.empty() &&
           llvm::sys::fs::exists(root + "/nvvm/libdevice/libdevice.10.bc");
  };
  StringRef upstream = NVVM::getCUDAToolkitPath();
  if (hasLibdevice(upstream) || !hasLibdevice("/usr/local/cuda"))
    return upstream.str();
  return "/usr/local/cuda";
}

void mlir::tile::buildGPUKernelsToNVVMPipeline(
    OpPassManager &pm, const TileToNVVMPipelineOptions &options) {
  // Upstream's gpu-lower-to-nvvm-pipeline, with tile-mark-tma-params once
  // the kernels are LLVM functions (before they are serialized). Not its
  // gpu-kernel-outlining (the first half outlined every kernel), nor its
  // canonicalize and cse of the lowered kernels (before and after
  // convert-gpu-to-nvvm): LLVM's O3 does that cleanup again, and the PTX is
  // the same without them (75 ms of a GEMM's 1 s compile). The host code
  // gets its canonicalize and cse at the end.
  pm.addPass(createConvertNVGPUToNVVMPass());
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = options.features;
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));
  pm.addPass(createLowerAffinePass());
  pm.addPass(createArithToLLVMConversionPass());
  ConvertIndexToLLVMPassOptions index;
  index.indexBitwidth = 64;
  pm.addPass(createConvertIndexToLLVMPass(index));
  ConvertGpuOpsToNVVMOpsOptions gpuToNVVM;
  gpuToNVVM.indexBitwidth = 64;
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps(gpuToNVVM));
  pm.addNestedPass<gpu::GPUModuleOp>(createReconcileUnrealizedCastsPass());
  pm.addPass(createTileMarkTmaParams());
  pm.addPass(createGpuToLLVMConversionPass());
  TileGpuModuleToBinaryOptions binary;
  binary.format = options.format;
  binary.toolkitPath = cudaToolkitPath();
  binary.keepIsa = options.keepIsa;
  pm.addPass(createTileGpuModuleToBinary(binary));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::tile::buildTileToNVVMPipeline(
    OpPassManager &pm, const TileToNVVMPipelineOptions &options) {
  buildTileToGPUKernelsPipeline(pm, options.chip);
  buildGPUKernelsToNVVMPipeline(pm, options);
}

void mlir::tile::registerTilePipelines() {
  PassPipelineRegistration<TileToNVVMPipelineOptions>(
      "tile-to-nvvm",
      "Lower tile IR for NVIDIA GPUs: kernels outlined to gpu.func, lowered "
      "to NVVM and serialized to PTX or cubin (gpu.binary)",
      buildTileToNVVMPipeline);
  PassPipelineRegistration<>(
      "tile-to-cpu",
      "Lower tile IR to the LLVM dialect for the host CPU (OpenMP over "
      "blocks, vectorized tiles)",
      buildTileToCPUPipeline);
}
