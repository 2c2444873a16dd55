//===- Utils.h - Helpers shared by the target lowerings ---------*- C++ -*-===//

#ifndef TILE_CONVERSION_UTILS_H
#define TILE_CONVERSION_UTILS_H

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tile {

Value indexConst(OpBuilder &b, Location loc, int64_t v);

/// Converts a scalar or vector to element type `to` (float/int/index).
Value convertElements(OpBuilder &b, Location loc, Value v, Type to);

/// The zero of a scalar type.
Value zeroOf(OpBuilder &b, Location loc, Type type);

/// `idx[d] < dim(buffer, d)` (unsigned, so negative indices are out) for
/// the dims of `buffer` listed in `dims`; null when `dims` is empty.
Value inBoundsCond(OpBuilder &b, Location loc, Value buffer,
                   ArrayRef<Value> idx, ArrayRef<int64_t> dims);

/// offsets[d] + ivs[d] in every dim: the indices of a tile element.
SmallVector<Value> addOffsets(OpBuilder &b, Location loc, ValueRange offsets,
                              ValueRange ivs);

/// Runs `body` under `cond` (or unconditionally when `cond` is null).
void buildIf(OpBuilder &b, Location loc, Value cond,
             function_ref<void(OpBuilder &, Location)> body);

/// A loop nest with constant bounds [0, extents) and unit steps.
void buildTileLoops(OpBuilder &b, Location loc, ArrayRef<int64_t> extents,
                    function_ref<void(OpBuilder &, Location, ValueRange)> body);

/// The identity of a tile.reduce kind for element type `elt`.
Value reduceIdentity(OpBuilder &b, Location loc, ReduceKind kind, Type elt);

/// acc `kind` x (abssum / absmax expect |x|). Float max / min give NaN
/// when either side is NaN with `propagateNan`, else the other side.
Value reduceCombine(OpBuilder &b, Location loc, ReduceKind kind, Value acc,
                    Value x, bool propagateNan = true);

/// x, or |x| for the abs kinds.
Value reduceOperand(OpBuilder &b, Location loc, ReduceKind kind, Value x);

/// An llvm.loop_annotation on tile.pipelined, under the name of llvm.br's
/// attribute: the loop's lowering hands it to the latch branch.
constexpr llvm::StringLiteral kLoopAnnotationAttr = "loop_annotation";

/// Patterns every target shares: tile.pipelined becomes a plain scf.for
/// (each iteration's copies complete before its compute; LLVM attributes
/// of the op, such as kLoopAnnotationAttr, go with it), and
/// tile.annotate_layout is dropped (the layouts it names were taken by
/// tile-infer-layouts, or do not apply to the target).
void populateSerialPipelinedAndLayoutPatterns(RewritePatternSet &patterns);

/// tile.make_tensor becomes its memref's descriptor (the address as both
/// pointers, offset 0, the sizes and their row-major strides), built with
/// LLVM ops and cast to the memref type; the LLVM conversions that lower
/// the memref's users meet that cast with their own and fold both away.
void populateMakeTensorPatterns(RewritePatternSet &patterns);

/// The memref.atomic_rmw kind of a tile.atomic_add / _max / _min on
/// elements of type `elt`.
arith::AtomicRMWKind getAtomicRMWKind(Operation *atomicOp, Type elt);

/// One side of a tile.copy: the buffer, its offsets, and which buffer dim
/// each tile dim (the region's non-unit dims) maps to.
struct CopyEnd {
  Value buffer;
  MemRefType type;
  SmallVector<Value> offsets;
  SmallVector<int64_t> tileDims;
  bool global = false;

  CopyEnd() = default;
  CopyEnd(OpBuilder &b, Location loc, Value buffer,
          ArrayRef<OpFoldResult> mixedOffsets, ArrayRef<int64_t> sizes);
  /// Only the dim mapping of a region of `sizes` (no buffer, no offsets).
  static CopyEnd forShape(ArrayRef<int64_t> sizes);

  /// Buffer indices of the tile element at `ivs` (tile dims [0, ivs.size())).
  SmallVector<Value> indices(OpBuilder &b, Location loc, ValueRange ivs);

  /// Bounds check of a global side over every dim except `skip`; null for
  /// other sides.
  Value cond(OpBuilder &b, Location loc, ArrayRef<Value> idx,
             int64_t skip = -1);
};

/// The offsets of a region as index values.
SmallVector<Value> materializeOffsets(OpBuilder &b, Location loc,
                                      ArrayRef<OpFoldResult> offsets);

/// The inclusive scan along `dim` (from the end with `reverse`) by `kind`
/// (sum or max) of the `sizes` region of `src` at `srcOffsets` into the
/// region of `dst` at `dstOffsets`, one element after the other: tile.scan
/// on the CPU, and in each thread for local buffers.
void buildSerialScan(OpBuilder &b, Location loc, ReduceKind kind,
                     ArrayRef<int64_t> sizes, int64_t dim, bool reverse,
                     Value src, ValueRange srcOffsets, Value dst,
                     ValueRange dstOffsets);

} // namespace mlir::tile

#endif // TILE_CONVERSION_UTILS_H
