//===- Plans.h - How tile.parallel and tile.reduce will run -----*- C++ -*-===//
//
// The plans of the target-neutral parallel and reduce lowerings, which
// tile-plan-scratch asks too (before the op patterns run) to reserve the
// shared scratch they will need.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CONVERSION_TILETOGPU_PLANS_H
#define TILE_CONVERSION_TILETOGPU_PLANS_H

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

#include <optional>

namespace mlir::tile::tilegpu {

/// How a tile.parallel runs: `driver` is the fragment whose elements the
/// iterations follow (accessed at the loop indices, of the loop's shape);
/// `staged` are the other fragments the body only reads, which it reads
/// from their shared scratch copies. `supported` is false when the body
/// writes a fragment other than at its own elements or at projected ones.
struct ParallelPlan {
  FragmentLayoutAttr layout;
  Value driver;
  llvm::SetVector<Value> staged;
  /// Loads of fragments at some of the loop indices (a row vector read in
  /// a 2-D loop) that the thread holds itself, and stores at indices that
  /// name each element once (a column vector of a 1 x N loop): for each
  /// driver register, the register of the accessed fragment.
  DenseMap<Operation *, SmallVector<int64_t>> projected;
  bool supported = true;
};

ParallelPlan planParallel(ParallelOp op);

/// A tile.reduce from a fragment into a fragment that stays in registers:
/// each thread folds its own source registers into the target register of
/// their row, then the threads that share a row combine their partial
/// results by a butterfly of warp shuffles.
struct RegisterReduce {
  /// The source registers each target register folds (the same in every
  /// thread).
  SmallVector<SmallVector<int64_t>> sources;
  /// The lane masks of the butterfly (xor shuffles).
  SmallVector<int64_t> laneMasks;
  /// The thread-index bits above the lane across which other warps hold
  /// the same rows (a gemm accumulator split over several warps along N):
  /// their partial results meet in a shared scratch buffer of
  /// 2^|warpMasks| x (target elements) values, reserved on the reduce op.
  SmallVector<int64_t> warpMasks;
  /// Bytes of that buffer; 0 without warpMasks.
  int64_t scratchBytes() const;
  int64_t targetElements = 0;
  int64_t eltBits = 0;
};

/// The register plan of `op` on warps of `warpSize` lanes, when its layouts
/// allow one: the source layout holds every element once and every thread
/// holds the target rows of its source elements; the threads that hold a
/// target row, at the same register, differ only in lane bits (the
/// butterfly masks) or in warp bits (partials through shared memory), and
/// together hold every source element of the row. Checked by enumerating
/// the slots.
std::optional<RegisterReduce> planRegisterReduce(ReduceOp op, int64_t warpSize);

/// The thread-index bits across which the threads hold the same elements
/// of `layout` at the same registers (its replicas): below `warpSize` (lane
/// bits: a butterfly of xor shuffles combines them) and above (warp bits:
/// through shared memory). Checked by enumerating the slots.
std::pair<SmallVector<int64_t>, SmallVector<int64_t>>
replicaMasks(FragmentLayoutAttr layout, int64_t registers, int64_t warpSize);

/// How the partials of a fragment's replicas in other warps combine.
struct ReplicaCombine {
  ReduceKind kind;
  Type elt;
  bool nanPropagate;
  ArrayRef<int64_t> laneMasks, warpMasks;
  FragmentLayoutAttr layout; // the fragment whose registers the partials are
  Value buffer; // shared scratch of 2^|warpMasks| x (layout's elements)
};

/// The partials of the warps that share elements (how.warpMasks), combined
/// through how.buffer: one lane of each group (lanes differing in the lane
/// masks hold the same partial after the butterfly) writes its warp's
/// partial at (its slot among the element's warps, the element), then
/// every thread folds the partials of its elements into `partials` (one a
/// register of how.layout).
void combineAcrossWarps(PatternRewriter &rewriter, Location loc,
                        const ReplicaCombine &how,
                        SmallVector<Value> &partials);

} // namespace mlir::tile::tilegpu

#endif // TILE_CONVERSION_TILETOGPU_PLANS_H
