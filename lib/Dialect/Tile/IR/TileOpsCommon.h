//===- TileOpsCommon.h - Helpers of the tile ops' definitions ---*- C++ -*-===//
//
// What TileOps.cpp (helpers, kernel, buffers, copies), TileComputeOps.cpp
// (gemms, fills, reductions, views, scans) and TileLoopOps.cpp (loops,
// storage) share. Private to lib/Dialect/Tile/IR.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_DIALECT_TILE_IR_TILEOPSCOMMON_H
#define TILE_LIB_DIALECT_TILE_IR_TILEOPSCOMMON_H

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/OpImplementation.h"

namespace mlir::tile {

/// A shape as `[a, b, ?]` for diagnostics.
std::string shapeStr(ArrayRef<int64_t> shape);

/// Whether `type` is a tile buffer of one of the `allowed` scopes.
bool isTileScope(MemRefType type, ArrayRef<Scope> allowed);

/// Checks that `type` (the op's `what`) is a tile buffer of an allowed scope.
LogicalResult verifyScope(Operation *op, StringRef what, MemRefType type,
                          ArrayRef<Scope> allowed);

/// Whether a x b -> c is a gemm the dialect knows.
bool isLegalGemmTypes(Type a, Type b, Type c, bool sparse);

inline constexpr StringLiteral kLegalGemmTypes =
    "f16 x f16 -> f16 | f32, bf16 x bf16 -> f32, f32 x f32 -> f32, "
    "fp8 x fp8 -> f32 | f16, i8 x i8 -> i32";

/// Whether the custom form must print the tile.yield that ends `body`.
bool needsExplicitTerminator(Region &body);

/// Checks the offsets and sizes of one side of a copy.
LogicalResult verifyCopyRegion(Operation *op, StringRef side, MemRefType type,
                               ArrayRef<int64_t> staticOffsets,
                               ValueRange dynamicOffsets,
                               ArrayRef<int64_t> sizes);

/// The source or target offsets of a copy-like op (tile.copy, tile.scan:
/// buffers with static and dynamic offsets on both sides).
template <typename CopyLikeOp>
SmallVector<OpFoldResult> mixedOffsetsOf(CopyLikeOp op, bool target) {
  if (target)
    return getMixedValues(op.getStaticTargetOffsets(), op.getTargetOffsets(),
                          op.getContext());
  return getMixedValues(op.getStaticSourceOffsets(), op.getSourceOffsets(),
                        op.getContext());
}

/// A copy-like op's operandSegmentSizes give one source and one target
/// buffer (segments 0 and 2). ODS checks that the segments add up, not
/// that the single operands get exactly one value each; getSource() /
/// getTarget() read out of their segment otherwise.
template <typename CopyLikeOp>
LogicalResult verifyOneSourceOneTarget(CopyLikeOp op) {
  unsigned numSources = op.getODSOperandIndexAndLength(0).second;
  unsigned numTargets = op.getODSOperandIndexAndLength(2).second;
  if (numSources == 1 && numTargets == 1)
    return success();
  return op.emitOpError() << "operandSegmentSizes must give one source and "
                             "one target buffer, got "
                          << numSources << " and " << numTargets;
}

/// Parses an optional attribute dictionary (with the `attributes` keyword
/// when `withKeyword`) and checks the inherent attributes it sets: without
/// this check a custom parser silently drops an inherent attribute of the
/// wrong kind (for example `order = [1, 0]` instead of `array<i64: 1, 0>`).
template <typename OpT>
ParseResult parseCheckedAttrDict(OpAsmParser &parser,
                                        OperationState &result,
                                        bool withKeyword) {
  llvm::SMLoc loc = parser.getCurrentLocation();
  if (withKeyword ? parser.parseOptionalAttrDictWithKeyword(result.attributes)
                  : parser.parseOptionalAttrDict(result.attributes))
    return failure();
  return OpT::verifyInherentAttrs(result.name, result.attributes, [&]() {
    return parser.emitError(loc)
           << "'" << result.name.getStringRef() << "' op ";
  });
}

} // namespace mlir::tile

#endif // TILE_LIB_DIALECT_TILE_IR_TILEOPSCOMMON_H
