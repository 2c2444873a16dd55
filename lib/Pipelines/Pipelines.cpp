//===- Pipelines.cpp - Named tile pipelines -------------------------------===//

#include "tile/Pipelines/Pipelines.h"

#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/Pipelines/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Utils.h"
#include "mlir/Target/LLVM/ROCDL/Utils.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Program.h"

#include <mutex>
#include <optional>

using namespace mlir;
using namespace mlir::tile;

ArrayRef<StringRef> mlir::tile::getTilePipelineStages() {
  static const StringRef stages[] = {"tile", "verified", "lower-ops",
                                     "lower-kernel", "llvm"};
  return stages;
}

/// Notes in `stages` (where asked for) that `stage` ends after the passes
/// `pm` holds now.
static void endStage(TilePipelineStageEnds *stages, StringRef stage,
                     const OpPassManager &pm) {
  assert(llvm::is_contained(getTilePipelineStages(), stage) &&
         "a stage of getTilePipelineStages");
  if (stages)
    stages->emplace_back(stage, pm.size());
}

void mlir::tile::buildTileToCPUPipeline(OpPassManager &pm,
                                        TilePipelineStageEnds *stages) {
  endStage(stages, "tile", pm);
  pm.addPass(createTileVerifyTarget(TileVerifyTargetOptions{"cpu"}));
  pm.addPass(createCanonicalizerPass());
  endStage(stages, "verified", pm);
  pm.addPass(createTileInsertBarriers());
  pm.addPass(createTileGuardMemoryAccess());
  pm.addPass(createTileApplyTensorLayouts());
  pm.addPass(createTileLowerOps(TileLowerOpsOptions{"cpu"}));
  endStage(stages, "lower-ops", pm);
  pm.addPass(createTileLowerKernel(TileLowerKernelOptions{"cpu"}));
  pm.addPass(createTileEmulateFp4());
  pm.addPass(createTileLowerFp8Casts(TileLowerFp8CastsOptions{"cpu"}));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  endStage(stages, "lower-kernel", pm);
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
  endStage(stages, "llvm", pm);
}

void mlir::tile::buildTileToGPUKernelsPipeline(OpPassManager &pm,
                                               StringRef chip,
                                               TilePipelineStageEnds *stages) {
  std::string target = chip.str();
  endStage(stages, "tile", pm);
  pm.addPass(createTileVerifyTarget(TileVerifyTargetOptions{target}));
  pm.addPass(createCanonicalizerPass());
  endStage(stages, "verified", pm);
  pm.addPass(createTileInsertBarriers());
  pm.addPass(createTileGuardMemoryAccess());
  pm.addPass(createTileApplyTensorLayouts());
  pm.addPass(createTileSelectMma(TileSelectMmaOptions{target}));
  pm.addPass(createTileWarpSpecialize(TileWarpSpecializeOptions{target}));
  pm.addPass(createTileInferLayouts(TileInferLayoutsOptions{target}));
  pm.addPass(createTilePlanShared(TilePlanSharedOptions{target}));
  pm.addPass(createTilePlaceBuffers(TilePlaceBuffersOptions{target}));
  pm.addPass(createTileSoftwarePipeline(TileSoftwarePipelineOptions{target}));
  pm.addPass(createTilePlanScratch(TilePlanScratchOptions{target}));
  pm.addPass(createTileLowerOps(TileLowerOpsOptions{target}));
  endStage(stages, "lower-ops", pm);
  pm.addPass(createTileLowerKernel(TileLowerKernelOptions{target}));
  pm.addPass(createTileEmulateFp4());
  pm.addPass(createTileLowerFp8Casts(TileLowerFp8CastsOptions{target}));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  endStage(stages, "lower-kernel", pm);
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

/// affine, arith and index (64-bit) to LLVM: the scalar code of the host
/// functions and the kernels, before the kernels' own conversion.
static void addHostScalarsToLLVM(OpPassManager &pm) {
  pm.addPass(createLowerAffinePass());
  pm.addPass(createArithToLLVMConversionPass());
  ConvertIndexToLLVMPassOptions index;
  index.indexBitwidth = 64;
  pm.addPass(createConvertIndexToLLVMPass(index));
}

/// The end of both GPU halves: the kernels serialized (`format`, with the
/// toolkit at `toolkit`), then the host code's math, a cleanup and the
/// casts left between the conversions.
static void addSerializationAndHostCleanup(OpPassManager &pm,
                                           StringRef format,
                                           StringRef toolkit, bool keepIsa) {
  TileGpuModuleToBinaryOptions binary;
  binary.format = format.str();
  binary.toolkitPath = toolkit.str();
  binary.keepIsa = keepIsa;
  pm.addPass(createTileGpuModuleToBinary(binary));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
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
  addHostScalarsToLLVM(pm);
  ConvertGpuOpsToNVVMOpsOptions gpuToNVVM;
  gpuToNVVM.indexBitwidth = 64;
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps(gpuToNVVM));
  pm.addNestedPass<gpu::GPUModuleOp>(createReconcileUnrealizedCastsPass());
  pm.addPass(createTileMarkTmaParams());
  pm.addPass(createGpuToLLVMConversionPass());
  addSerializationAndHostCleanup(pm, options.format, cudaToolkitPath(),
                                 options.keepIsa);
}

void mlir::tile::buildTileToNVVMPipeline(
    OpPassManager &pm, const TileToNVVMPipelineOptions &options,
    TilePipelineStageEnds *stages) {
  buildTileToGPUKernelsPipeline(pm, options.chip, stages);
  buildGPUKernelsToNVVMPipeline(pm, options);
  endStage(stages, "llvm", pm);
}

/// True when `root` holds what the ROCDL serializer takes from a toolkit.
static bool isRocmToolkit(StringRef root) {
  return !root.empty() &&
         llvm::sys::fs::is_directory(root + "/amdgcn/bitcode") &&
         llvm::sys::fs::can_execute(root + "/llvm/bin/ld.lld");
}

/// Makes (once a process) the toolkit of links to Debian's device
/// libraries and ld.lld; empty when either is missing.
static std::string makeDebianRocmToolkit() {
  static const char *bitcodeDirs[] = {"/usr/lib/x86_64-linux-gnu/amdgcn",
                                      "/usr/lib/aarch64-linux-gnu/amdgcn",
                                      "/usr/lib/amdgcn"};
  std::string amdgcn;
  for (const char *dir : bitcodeDirs)
    if (llvm::sys::fs::is_directory(std::string(dir) + "/bitcode")) {
      amdgcn = dir;
      break;
    }
  // The ld.lld of the LLVM this library was built with, else the one of
  // its release on the PATH: an older ld.lld refuses newer code objects.
  llvm::ErrorOr<std::string> lld =
      llvm::sys::findProgramByName("ld.lld", {TILE_LLVM_TOOLS_DIR});
  if (!lld)
    lld = llvm::sys::findProgramByName(
        "ld.lld-" + std::to_string(LLVM_VERSION_MAJOR));
  if (amdgcn.empty() || !lld)
    return "";
  // One directory for each pair of targets, shared by the processes that
  // need it (whichever makes a link first, the others find it made).
  SmallString<128> root;
  llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/true, root);
  llvm::sys::path::append(
      root, "tilemlir-rocm-toolkit-" +
                llvm::utohexstr(llvm::hash_combine(amdgcn, *lld)));
  if (!isRocmToolkit(root)) {
    (void)llvm::sys::fs::create_directories(root + "/llvm/bin");
    (void)llvm::sys::fs::create_link(amdgcn, root + "/amdgcn");
    (void)llvm::sys::fs::create_link(*lld, root + "/llvm/bin/ld.lld");
  }
  return isRocmToolkit(root) ? std::string(root) : std::string();
}

std::string mlir::tile::rocmToolkitPath() {
  StringRef installed = ROCDL::getROCMPath();
  if (isRocmToolkit(installed))
    return installed.str();
  static std::mutex made;
  static std::optional<std::string> debian;
  std::lock_guard<std::mutex> lock(made);
  if (!debian)
    debian = makeDebianRocmToolkit();
  return *debian;
}

void mlir::tile::buildGPUKernelsToROCDLPipeline(
    OpPassManager &pm, const TileToROCDLPipelineOptions &options) {
  // Upstream's ROCDL lowering, in the order of the NVVM half above:
  // convert-gpu-to-rocdl also lowers the amdgpu ops (MFMA) and the math
  // functions (to the device library's ocml calls).
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  GpuROCDLAttachTargetOptions target;
  target.chip = options.chip;
  target.optLevel = options.optLevel;
  // Code object version 5: what ROCm 5.x and 6.x load.
  target.abiVersion = "500";
  pm.addPass(createGpuROCDLAttachTarget(target));
  addHostScalarsToLLVM(pm);
  // convert-gpu-to-rocdl makes math.tanh the llvm.tanh intrinsic, which
  // the AMDGPU backend cannot select: tanh is expanded into exp first.
  math::MathExpandOpsPassOptions expand;
  expand.opMnemonics = {"tanh"};
  pm.addNestedPass<gpu::GPUModuleOp>(math::createMathExpandOpsPass(expand));
  ConvertGpuOpsToROCDLOpsOptions gpuToROCDL;
  gpuToROCDL.chipset = options.chip;
  gpuToROCDL.indexBitwidth = 64;
  gpuToROCDL.runtime = gpu::amd::Runtime::HIP;
  pm.addNestedPass<gpu::GPUModuleOp>(
      createConvertGpuOpsToROCDLOps(gpuToROCDL));
  pm.addNestedPass<gpu::GPUModuleOp>(createReconcileUnrealizedCastsPass());
  pm.addPass(createGpuToLLVMConversionPass());
  addSerializationAndHostCleanup(pm, options.format, rocmToolkitPath(),
                                 options.keepIsa);
}

void mlir::tile::buildTileToROCDLPipeline(
    OpPassManager &pm, const TileToROCDLPipelineOptions &options,
    TilePipelineStageEnds *stages) {
  buildTileToGPUKernelsPipeline(pm, options.chip, stages);
  buildGPUKernelsToROCDLPipeline(pm, options);
  endStage(stages, "llvm", pm);
}

llvm::Expected<std::string>
mlir::tile::getTilePipelineText(StringRef target, StringRef stage) {
  if (!llvm::is_contained(getTilePipelineStages(), stage))
    return llvm::createStringError(
        "unknown stage '" + stage + "'; expected one of " +
        llvm::join(getTilePipelineStages(), ", "));
  std::unique_ptr<TargetInfo> info = TargetInfo::get(target);
  if (!info)
    return llvm::createStringError("unknown target '" + target +
                                   "'; expected one of " +
                                   TargetInfo::knownTargets());
  OpPassManager pm(ModuleOp::getOperationName());
  TilePipelineStageEnds ends;
  if (!info->isGPU()) {
    buildTileToCPUPipeline(pm, &ends);
  } else if (target.starts_with("sm_")) {
    TileToNVVMPipelineOptions options;
    options.chip = target.str();
    options.format = "isa";
    buildTileToNVVMPipeline(pm, options, &ends);
  } else {
    TileToROCDLPipelineOptions options;
    options.chip = target.str();
    options.format = "isa";
    buildTileToROCDLPipeline(pm, options, &ends);
  }
  const auto *end = llvm::find_if(
      ends, [&](const auto &entry) { return entry.first == stage; });
  assert(end != ends.end() && "every builder ends every stage");
  std::string text;
  llvm::raw_string_ostream os(text);
  os << ModuleOp::getOperationName() << "(";
  llvm::interleave(
      llvm::make_range(pm.begin(), std::next(pm.begin(), end->second)), os,
      [&](Pass &pass) { pass.printAsTextualPipeline(os); }, ",");
  os << ")";
  return text;
}

void mlir::tile::registerTilePipelines() {
  PassPipelineRegistration<TileToNVVMPipelineOptions>(
      "tile-to-nvvm",
      "Lower tile IR for NVIDIA GPUs: kernels outlined to gpu.func, lowered "
      "to NVVM and serialized to PTX or cubin (gpu.binary)",
      [](OpPassManager &pm, const TileToNVVMPipelineOptions &options) {
        buildTileToNVVMPipeline(pm, options);
      });
  PassPipelineRegistration<TileToROCDLPipelineOptions>(
      "tile-to-rocdl",
      "Lower tile IR for AMD GPUs: kernels outlined to gpu.func, lowered to "
      "ROCDL and serialized to AMDGCN assembly or hsaco (gpu.binary)",
      [](OpPassManager &pm, const TileToROCDLPipelineOptions &options) {
        buildTileToROCDLPipeline(pm, options);
      });
  PassPipelineRegistration<>(
      "tile-to-cpu",
      "Lower tile IR to the LLVM dialect for the host CPU (OpenMP over "
      "blocks, vectorized tiles)",
      [](OpPassManager &pm) { buildTileToCPUPipeline(pm); });
}
