//===- Uniformity.h - Values every thread of a block computes alike -*- C++ -*-===//
//
// Scalar code in a tile.kernel (outside every tile.parallel) runs in every
// thread of the block. Some of its values are the same in every thread (the
// block indices, loop counters under uniform bounds, loads of shared memory
// at such indices, arithmetic of these); others are not (the thread index,
// shuffles, atomics' results). tile-infer-layouts asks which, to keep the
// copies of replicated fragments equal; tile-insert-barriers asks which loops
// and branches every thread takes alike, so that a barrier may go inside.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_TRANSFORMS_UNIFORMITY_H
#define TILE_DIALECT_TILE_TRANSFORMS_UNIFORMITY_H

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::tile {

/// Which values every thread of `kernel`'s block computes alike. Local
/// buffers (each thread's own) hold such values when every write to them
/// does; that is assumed, then withdrawn for each local written otherwise,
/// to a fixed point. `replicated` names fragments whose every thread holds
/// every element (their loads are uniform where their indices are).
class Uniformity {
public:
  Uniformity(KernelOp kernel, const DenseSet<Value> &replicated);

  /// True if `v` has the same value in every thread of the block.
  bool isUniform(Value v);

  /// True if every loop and branch around `op` inside the kernel is taken
  /// alike by every thread (scf.for with uniform bounds, scf.if and
  /// tile.pipelined with uniform operands).
  bool underUniformControl(Operation *op);

  /// The first reason, if any, why `store` may differ between threads:
  /// "value", "index" or "control".
  StringRef whyNotUniform(memref::StoreOp store);

private:
  bool writtenUniformly(Value local);
  bool compute(Value v);

  KernelOp kernel;
  const DenseSet<Value> &replicated;
  DenseSet<Value> locals;
  DenseMap<Value, bool> memo;
};

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_TRANSFORMS_UNIFORMITY_H
