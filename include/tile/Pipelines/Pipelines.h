//===- Pipelines.h - Named tile pipelines -----------------------*- C++ -*-===//

#ifndef TILE_PIPELINES_PIPELINES_H
#define TILE_PIPELINES_PIPELINES_H

#include "tile/Target/TargetInfo.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "llvm/Support/Error.h"

namespace mlir::tile {

/// The named points of the pipelines below where their IR can be looked at
/// (JITKernel.get_ir(stage) of the Python front end), in the order the
/// passes reach them: "tile" (no pass yet), "verified" (the target's checks
/// and a canonicalization), "lower-ops" (every tile op but the kernel
/// lowered), "lower-kernel" (the kernels lowered, canonicalized),
/// "llvm" (the whole pipeline).
ArrayRef<StringRef> getTilePipelineStages();

/// Filled by the pipeline builders: how many top-level passes the pipeline
/// has where each stage ends.
using TilePipelineStageEnds = SmallVector<std::pair<StringRef, size_t>>;

/// tile IR -> LLVM dialect for the host CPU.
/// The blocks of each kernel are spread over the cores with OpenMP
/// (OMP_NUM_THREADS=1 runs them one after another).
void buildTileToCPUPipeline(OpPassManager &pm,
                            TilePipelineStageEnds *stages = nullptr);

struct TileToNVVMPipelineOptions
    : public PassPipelineOptions<TileToNVVMPipelineOptions> {
  PassOptions::Option<std::string> chip{*this, "chip",
                                        llvm::cl::desc("GPU: sm_80 or sm_90a"),
                                        llvm::cl::init(
                                            getDefaultTargetName().str())};
  PassOptions::Option<std::string> features{*this, "features",
                                            llvm::cl::desc("PTX features"),
                                            llvm::cl::init("+ptx80")};
  PassOptions::Option<int> optLevel{*this, "opt-level",
                                    llvm::cl::desc("LLVM optimization level"),
                                    llvm::cl::init(3)};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("What gpu-module-to-binary makes: isa (PTX), bin "
                     "(cubin, with ptxas) or fatbin"),
      llvm::cl::init("bin")};
  PassOptions::Option<bool> keepIsa{
      *this, "keep-isa",
      llvm::cl::desc("With format bin or fatbin, each gpu.object also keeps "
                     "the PTX it was assembled from (its isa property)"),
      llvm::cl::init(false)};
};

/// tile IR -> gpu.launch_func of outlined gpu.func kernels whose only
/// captures are the function's arguments (first half of tile-to-nvvm).
void buildTileToGPUKernelsPipeline(OpPassManager &pm, StringRef chip,
                                   TilePipelineStageEnds *stages = nullptr);

/// Outlined kernels -> NVVM -> PTX / cubin in gpu.binary ops (second half).
void buildGPUKernelsToNVVMPipeline(OpPassManager &pm,
                                   const TileToNVVMPipelineOptions &options);

/// tile IR -> NVVM, serialized to PTX or cubin.
void buildTileToNVVMPipeline(OpPassManager &pm,
                             const TileToNVVMPipelineOptions &options,
                             TilePipelineStageEnds *stages = nullptr);

struct TileToROCDLPipelineOptions
    : public PassPipelineOptions<TileToROCDLPipelineOptions> {
  PassOptions::Option<std::string> chip{*this, "chip",
                                        llvm::cl::desc("AMD GPU: gfx942"),
                                        llvm::cl::init("gfx942")};
  PassOptions::Option<int> optLevel{*this, "opt-level",
                                    llvm::cl::desc("LLVM optimization level"),
                                    llvm::cl::init(3)};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("What gpu-module-to-binary makes: isa (AMDGCN "
                     "assembly) or bin (hsaco, linked with ld.lld)"),
      llvm::cl::init("bin")};
  PassOptions::Option<bool> keepIsa{
      *this, "keep-isa",
      llvm::cl::desc("With format bin, each gpu.object also keeps the "
                     "AMDGCN assembly it was assembled from"),
      llvm::cl::init(false)};
};

/// Outlined kernels -> ROCDL -> AMDGCN assembly / hsaco in gpu.binary ops
/// (the second half of tile-to-rocdl; the device libraries and ld.lld from
/// rocmToolkitPath()).
void buildGPUKernelsToROCDLPipeline(OpPassManager &pm,
                                    const TileToROCDLPipelineOptions &options);

/// tile IR -> ROCDL, serialized to AMDGCN assembly or hsaco.
void buildTileToROCDLPipeline(OpPassManager &pm,
                              const TileToROCDLPipelineOptions &options,
                              TilePipelineStageEnds *stages = nullptr);

/// The directory that serves as the ROCm toolkit of the ROCDL serializer:
/// `amdgcn/bitcode` with the device libraries and `llvm/bin/ld.lld`. A ROCm
/// installation ($ROCM_PATH, /opt/rocm) that has both; else one made of
/// links in the temporary directory to Debian's rocm-device-libs and LLVM's
/// ld.lld; empty when neither is found (assembly still works; hsaco and
/// kernels that call the device library do not).
std::string rocmToolkitPath();

/// The textual pass pipeline ("builtin.module(...)", as --pass-pipeline
/// takes it) of the passes that lower tile IR for `target` up to the end of
/// `stage` (one of getTilePipelineStages()): tile-to-cpu for "cpu",
/// tile-to-nvvm with format=isa (PTX text in the gpu.binary) for sm_80 and
/// sm_90a, tile-to-rocdl with format=isa (AMDGCN assembly) for gfx942. Printed from the pass managers the builders above fill.
llvm::Expected<std::string> getTilePipelineText(StringRef target,
                                                StringRef stage);

/// Registers the named pipelines (tile-to-cpu, tile-to-nvvm, tile-to-rocdl).
void registerTilePipelines();

/// Makes `path` the CUDA toolkit of the pipelines built from now on (a
/// directory with bin/ptxas and nvvm/libdevice/libdevice.10.bc, as far as
/// there are); an empty path restores the default lookup.
void setCudaToolkitPath(StringRef path);

} // namespace mlir::tile

#endif // TILE_PIPELINES_PIPELINES_H
