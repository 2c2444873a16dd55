//===- TileToROCDL.h - Lowering tile ops for AMD GPUs -----------*- C++ -*-===//
//
// A block is a HIP work-group of `threads` threads in 64-lane wavefronts.
// Shared buffers live in the work-group's LDS (the kernel's dynamic shared
// memory), fragments in the registers of the lanes their layout gives them
// to, gemm runs on MFMA (v_mfma_*) as tile-select-mma chose. Everything
// but the gemms comes from the target-neutral patterns of
// lib/Conversion/TileToGPU; upstream's convert-gpu-to-rocdl and
// convert-amdgpu-to-rocdl take the result to the ROCDL dialect.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CONVERSION_TILETOROCDL_TILETOROCDL_H
#define TILE_CONVERSION_TILETOROCDL_TILETOROCDL_H

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/PatternMatch.h"

#include <memory>

namespace mlir::tile {

class GpuLowering;

/// The GpuLowering of AMD GPUs (wavefronts of `warpSize` lanes:
/// TargetInfo::getWarpSize), which AmdTarget owns.
std::unique_ptr<GpuLowering> createROCDLGpuLowering(int64_t warpSize);

/// Patterns that lower every tile op except tile.kernel for AMD GPUs: the
/// target-neutral ones (populateTileToGPUPatterns) with `lowering`, and
/// tile.gemm on MFMA as its #tile.mma asks. The patterns keep a reference
/// to `lowering`.
void populateTileToROCDLOpPatterns(RewritePatternSet &patterns,
                                   const GpuLowering &lowering);

/// tile.gemm with a #tile.mma of kind mfma: each wavefront computes its
/// wave tile of C with v_mfma_* atoms, operands read from LDS (fragments
/// through their scratch copies).
void populateGemmToROCDLPatterns(RewritePatternSet &patterns);

/// tile-plan-scratch on AMD GPUs: planScratchForGPU; MFMA reads both
/// operands from LDS (a fragment A gets a scratch copy).
LogicalResult planScratchForROCDL(RewriterBase &rewriter, KernelOp kernel,
                                  int64_t sharedLimit, int64_t warpSize);

/// tile-lower-kernel on AMD GPUs: a gpu.launch of the kernel's grid and
/// threads (no clusters, no producer warpgroup).
LogicalResult lowerKernelToROCDL(RewriterBase &rewriter, KernelOp kernel);

} // namespace mlir::tile

#endif // TILE_CONVERSION_TILETOROCDL_TILETOROCDL_H
