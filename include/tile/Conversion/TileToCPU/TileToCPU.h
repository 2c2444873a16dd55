//===- TileToCPU.h - Lowering tile ops for the CPU --------------*- C++ -*-===//
//
// On the CPU a thread block is executed by one host thread: tile buffers are
// stack memory of that thread, tile ops are loop nests over whole tiles with
// vector bodies, and the grid is an OpenMP worksharing loop over the cores.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CONVERSION_TILETOCPU_TILETOCPU_H
#define TILE_CONVERSION_TILETOCPU_TILETOCPU_H

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::tile {

/// Stores `value` to every element of `buffer` (a loop nest).
void fillBuffer(OpBuilder &b, Location loc, Value buffer, Value value);

/// One element's update of `atomic` (a tile.atomic_add / max / min): its
/// combination of `value` into its target at `idx` as a memref.atomic_rmw,
/// dropped where `idx` leaves a global target.
void emitAtomicUpdate(OpBuilder &b, Location loc, Operation *atomic,
                      Value value, ArrayRef<Value> idx);

/// Patterns that lower every tile op except tile.kernel for the CPU.
void populateTileToCPUOpPatterns(RewritePatternSet &patterns);

/// Replaces `kernel` by an OpenMP worksharing loop over its grid; each
/// worker thread holds one set of block buffers, in the default memory
/// space.
LogicalResult lowerKernelToCPU(RewriterBase &rewriter, KernelOp kernel);

/// Gives a kernel's thread-level code (thread indices, barriers, warp
/// votes, shuffles, matches, block reductions) its threads on the CPU:
/// loops over the block's threads between the collectives (Threads.cpp).
/// Runs before the tile-lower-ops patterns.
LogicalResult serializeThreadsForCPU(RewriterBase &rewriter, KernelOp kernel);

} // namespace mlir::tile

#endif // TILE_CONVERSION_TILETOCPU_TILETOCPU_H
