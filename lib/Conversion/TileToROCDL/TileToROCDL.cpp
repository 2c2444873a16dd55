//===- TileToROCDL.cpp - Lowering tile ops for AMD GPUs -------------------===//
//
// The entry points of the AMD lowering: its GpuLowering (the 64-lane
// wavefront, v_exp_f32 as the fast exp2), the patterns of tile-lower-ops
// (the target-neutral ones of lib/Conversion/TileToGPU and MFMA gemms,
// Mfma.cpp), tile-plan-scratch and tile-lower-kernel's gpu.launch.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/TileToROCDL/TileToROCDL.h"

#include "tile/Conversion/TileToGPU/GpuLowering.h"
#include "tile/Conversion/TileToGPU/TileToGPU.h"

#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

class ROCDLGpuLowering final : public GpuLowering {
public:
  using GpuLowering::GpuLowering;

  bool hasFastExp2() const override { return true; }
  /// One v_exp_f32 (llvm.amdgcn.exp2: denormal results flush to zero),
  /// without the range scaling of the device library's exp2f.
  Value emitFastExp2(OpBuilder &b, Location loc, Value x) const override {
    return ROCDL::ROCDLExp2::create(b, loc, b.getF32Type(), x);
  }
};

} // namespace

std::unique_ptr<GpuLowering>
mlir::tile::createROCDLGpuLowering(int64_t warpSize) {
  return std::make_unique<ROCDLGpuLowering>(warpSize);
}

void mlir::tile::populateTileToROCDLOpPatterns(RewritePatternSet &patterns,
                                               const GpuLowering &lowering) {
  populateTileToGPUPatterns(patterns, lowering);
  populateGemmToROCDLPatterns(patterns);
}

LogicalResult mlir::tile::planScratchForROCDL(RewriterBase &rewriter,
                                              KernelOp kernel,
                                              int64_t sharedLimit,
                                              int64_t warpSize) {
  return planScratchForGPU(rewriter, kernel, sharedLimit, warpSize,
                           [](GemmOp) { return false; });
}

LogicalResult mlir::tile::lowerKernelToROCDL(RewriterBase &rewriter,
                                             KernelOp kernel) {
  if (kernel.getCluster())
    return kernel.emitOpError()
           << "uses thread-block clusters, which AMD GPUs do not have; "
              "remove cluster(...)";
  return lowerKernelToGPU(rewriter, kernel, /*extraThreads=*/0, std::nullopt);
}
