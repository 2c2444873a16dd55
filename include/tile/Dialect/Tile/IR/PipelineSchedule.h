//===- PipelineSchedule.h - The schedule of a tile.pipelined loop -*- C++ -*-===//
//
// What the software pipeliners read of a tile.pipelined loop: each scheduled
// op's stage and its place in an iteration of the steady state, from the
// loop's `stage` / `order` lists (TileLang's T.Pipelined(order=, stage=)) or
// the default schedule, and the reordering `order` asks for.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_IR_PIPELINESCHEDULE_H
#define TILE_DIALECT_TILE_IR_PIPELINESCHEDULE_H

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::tile {

/// The schedule of a tile.pipelined loop's body. Its scheduled ops are the
/// body's top-level ops with side effects, in program order (those `order`
/// and `stage` index). Without a `stage` list, copies from global memory into
/// shared buffers are at stage 0 and every other op at num_stages - 1: each
/// load runs num_stages - 1 iterations ahead of its readers. Without an
/// `order` list the steady state keeps program order.
class PipelineSchedule {
public:
  explicit PipelineSchedule(PipelinedOp loop);

  /// Whether the loop pins its schedule (an `order` or `stage` list).
  bool isPinned() const { return pinned; }
  /// The stage of `op`, a scheduled op or one nested in one; -1 for ops
  /// outside the body's scheduled ops.
  int64_t stageOf(Operation *op) const;
  /// How many iterations ahead `copy`, a scheduled op that writes `buffer`,
  /// loads it for the other ops that use it: the latest stage among them less
  /// the copy's (0 where none is later). Without a pinned schedule,
  /// num_stages - 1.
  int64_t loadDistance(Operation *copy, Value buffer) const;
  /// Of `loads` (scheduled ops), the one the steady state runs first.
  Operation *firstInOrder(ArrayRef<Operation *> loads) const;

  /// Puts the body's scheduled ops in `order` (the pure ops they use before
  /// them) and drops the loop's `order` / `stage` lists, which the
  /// pipeliners then carry out. `loads` are the copies a pipeliner issues
  /// ahead (they leave the iteration that reads them); among the other ops,
  /// an order that puts an op before one whose results or memory it depends
  /// on (or that depends on its memory) is reported at the loop, changing
  /// nothing.
  LogicalResult applyOrder(RewriterBase &rewriter,
                           ArrayRef<Operation *> loads) const;

private:
  mutable PipelinedOp loop;
  bool pinned = false;
  SmallVector<Operation *> ops;
  SmallVector<int64_t> stages, positions;
  int64_t indexOf(Operation *op) const;
};

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_IR_PIPELINESCHEDULE_H
