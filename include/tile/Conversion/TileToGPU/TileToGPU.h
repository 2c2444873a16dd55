//===- TileToGPU.h - Target-neutral GPU lowering patterns -------*- C++ -*-===//
//
// The op patterns every GPU target shares (lib/Conversion/TileToGPU): they
// build gpu, memref, scf, arith and vector ops only. A target adds them to
// its own pattern set next to its vendor-specific ones.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CONVERSION_TILETOGPU_TILETOGPU_H
#define TILE_CONVERSION_TILETOGPU_TILETOGPU_H

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace mlir::tile {

class GpuLowering;

/// Every pattern below: what a GPU target adds to its tile-lower-ops
/// patterns besides its own (gemms), the serial form of tile.pipelined
/// loops and the dropping of tile.annotate_layout included.
void populateTileToGPUPatterns(RewritePatternSet &patterns,
                               const GpuLowering &lowering);

/// tile.fill and tile.clear of fragments, local and shared buffers.
void populateFillToGPUPatterns(RewritePatternSet &patterns);

/// tile.atomic_add / atomic_max / atomic_min of scalars, fragments and
/// shared buffers into global or shared memory (fragment additions into
/// global memory as the target's vector atomics where it has them), and
/// tile.parallel loops that only combine a fragment's elements into a
/// tensor as one such op.
void populateAtomicToGPUPatterns(RewritePatternSet &patterns,
                                 const GpuLowering &lowering);

/// tile.copy between global memory, shared buffers and fragments (copies
/// out of reducers: populateReducerToGPUPatterns).
void populateCopyToGPUPatterns(RewritePatternSet &patterns,
                               const GpuLowering &lowering);

/// tile.parallel over fragments and shared buffers.
void populateParallelToGPUPatterns(RewritePatternSet &patterns);

/// tile.reduce: in registers and warp shuffles where the layouts allow,
/// else through shared memory.
void populateReduceToGPUPatterns(RewritePatternSet &patterns,
                                 const GpuLowering &lowering);

/// tile.finalize_reducer and copies out of a reducer.
void populateReducerToGPUPatterns(RewritePatternSet &patterns,
                                  const GpuLowering &lowering);

/// tile.scan of local, shared and fragment buffers.
void populateScanToGPUPatterns(RewritePatternSet &patterns,
                               const GpuLowering &lowering);

/// f32 exp / exp2 in kernels as the target's approximate exp2, where it has
/// one (GpuLowering::hasFastExp2); nothing otherwise.
void populateFastMathToGPUPatterns(RewritePatternSet &patterns,
                                   const GpuLowering &lowering);

/// tile-place-buffers: gives each of the kernel's buffers its storage, a
/// tile.bind_storage of it: shared buffers become views of dynamic shared
/// memory (at byte 0, with tile-plan-shared's offset as their
/// planned_offset), fragments per-thread register arrays under their
/// layout, local buffers per-thread arrays. `registerLimit`: the 32-bit
/// words of a fragment a thread may hold
/// (TargetInfo::getMaxFragmentWordsPerThread), which bounds each fragment's
/// share. `privateSpace`: the memory space of the per-thread arrays (null:
/// the default one; AMD GPUs: #gpu.address_space<private>, LLVM's address
/// space 5, where their allocas must live).
LogicalResult placeBuffersForGPU(RewriterBase &rewriter, KernelOp kernel,
                                 int64_t registerLimit,
                                 Attribute privateSpace = nullptr);

/// tile-plan-scratch: reserves the shared scratch of each
/// tile.finalize_reducer (the partial results of the warps of `warpSize`
/// lanes) and checks that the loops that update reducers run each
/// iteration on one thread.
LogicalResult prepareReducersForGPU(RewriterBase &rewriter, KernelOp kernel,
                                    int64_t warpSize);

/// tile-plan-scratch: reserves the shared scratch of each block-wide
/// tile.scan (a fragment's staging copy, the partial results of lines that
/// several warps share) and checks that the block has a whole warp of
/// `warpSize` lanes to scan with.
LogicalResult prepareScansForGPU(RewriterBase &rewriter, KernelOp kernel,
                                 int64_t warpSize);

/// tile-plan-scratch, what every GPU target shares: after the pipelines'
/// stage buffers, reserves the shared scratch buffers of the op lowerings
/// (reduce partials, gemm_sp's dense A, fragments that some use reads
/// across threads), then places tile-plan-shared's region after them
/// (erasing the views of the buffers nothing uses any more; 2-d buffers
/// that whole-tile copies fill and only gemms read get a swizzle) and sets
/// the kernel's `tile.shared_bytes`. Reduces share their partials' bytes
/// when the kernel fits `sharedLimit` only that way. `warpSize` decides
/// which reduces combine partials across warps; `gemmAInRegisters` tells
/// the gemms whose fragment A the target's gemm lowering reads from
/// registers (no scratch copy).
LogicalResult planScratchForGPU(
    RewriterBase &rewriter, KernelOp kernel, int64_t sharedLimit,
    int64_t warpSize, function_ref<bool(GemmOp)> gemmAInRegisters);

/// tile-lower-ops' last step on GPUs: checks that nothing but the lowered
/// ops and the loops over its elements (or the scalar accesses of a
/// replicated fragment, rewritten here) still uses a fragment's tile view,
/// and makes the storage of shared and local buffers serve their remaining
/// accesses.
LogicalResult finishKernelForGPU(RewriterBase &rewriter, KernelOp kernel);

/// tile-lower-kernel on GPUs: replaces `kernel` by a gpu.launch of its grid
/// with its threads plus `extraThreads` (a producer warpgroup) and the
/// dynamic shared memory of its `tile.shared_bytes`, with `cluster` as the
/// launch's cluster size where given (the host values the kernel uses are
/// recomputed inside it first, so that it captures the function's
/// arguments only).
LogicalResult lowerKernelToGPU(RewriterBase &rewriter, KernelOp kernel,
                               int64_t extraThreads,
                               std::optional<ArrayRef<int64_t>> cluster);

/// Rewrites every tile.view of a placed shared buffer into a view of the
/// same bytes (a memref.view of dynamic shared memory at its offset).
LogicalResult prepareViewsForGPU(RewriterBase &rewriter, KernelOp kernel);

} // namespace mlir::tile

#endif // TILE_CONVERSION_TILETOGPU_TILETOGPU_H
