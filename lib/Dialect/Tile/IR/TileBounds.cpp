//===- TileBounds.cpp - Index ranges and on-chip bounds -------------------===//
//
// What the ops of the tile dialect say about the values of indices: the
// ranges of block and loop indices (InferIntRangeInterface, read by
// tile-guard-memory-access through upstream's integer range analysis), and
// the check that constant indices stay inside on-chip buffers.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tile;

/// [0, extent - 1] as an index range.
static ConstantIntRanges indexRangeBelow(int64_t extent) {
  unsigned width = IndexType::kInternalStorageBitWidth;
  return ConstantIntRanges::fromSigned(APInt(width, 0),
                                       APInt(width, extent - 1, true));
}

void KernelOp::inferResultRanges(ArrayRef<ConstantIntRanges> argRanges,
                                 SetIntRangeFn setResultRange) {
  unsigned dynamic = 0;
  for (auto [extent, index] : llvm::zip(getStaticGrid(), getBlockIndices())) {
    if (!ShapedType::isDynamic(extent)) {
      setResultRange(index, indexRangeBelow(extent));
      continue;
    }
    // A dynamic extent: below its largest value (a grid extent is at least
    // one when the kernel runs at all).
    const APInt &largest = argRanges[dynamic++].smax();
    setResultRange(index, largest.isStrictlyPositive()
                              ? indexRangeBelow(largest.getSExtValue())
                              : indexRangeBelow(1));
  }
}

void ParallelOp::inferResultRanges(ArrayRef<ConstantIntRanges>,
                                   SetIntRangeFn setResultRange) {
  for (auto [extent, iv] :
       llvm::zip(getExtents(), getBodyBlock().getArguments()))
    setResultRange(iv, indexRangeBelow(extent));
}

//===----------------------------------------------------------------------===//
// Constant indices of on-chip buffers
//===----------------------------------------------------------------------===//

/// An on-chip (shared, fragment, local) buffer of static shape, or null.
static MemRefType onChipType(Value buffer) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  if (!type || isGlobal(type) || !getScope(type) || !type.hasStaticShape())
    return nullptr;
  return type;
}

/// Checks the region [offsets, offsets + sizes) of an on-chip `buffer` in
/// every dimension whose offset is a constant; sizes of 1 give single
/// indices. `what` names the accessed side in the error.
static LogicalResult checkRegion(Operation *op, StringRef what, Value buffer,
                                 ArrayRef<OpFoldResult> offsets,
                                 ArrayRef<int64_t> sizes) {
  MemRefType type = onChipType(buffer);
  if (!type || offsets.size() != static_cast<size_t>(type.getRank()) ||
      sizes.size() != offsets.size())
    return success();
  for (auto [d, offset] : llvm::enumerate(offsets)) {
    std::optional<int64_t> start = getConstantIntValue(offset);
    if (!start)
      continue;
    int64_t dim = type.getDimSize(d);
    if (*start >= 0 && *start + sizes[d] <= dim)
      continue;
    InFlightDiagnostic diag = op->emitOpError();
    if (sizes[d] == 1)
      diag << what << " index " << *start << " is outside dimension " << d;
    else
      diag << what << " region [" << *start << ", " << *start + sizes[d]
           << ") is outside dimension " << d;
    diag << " of the " << stringifyScopeOf(type) << " buffer " << type
         << " (size " << dim << ")";
    diag.attachNote() << "indices of " << stringifyScopeOf(type)
                      << " buffers must lie in [0, " << dim << ")";
    return diag;
  }
  return success();
}

static LogicalResult checkIndices(Operation *op, StringRef what, Value buffer,
                                  ValueRange indices) {
  SmallVector<OpFoldResult> offsets;
  for (Value index : indices) {
    APInt value;
    if (matchPattern(index, m_ConstantInt(&value)))
      offsets.push_back(
          Builder(op->getContext()).getIndexAttr(value.getSExtValue()));
    else
      offsets.push_back(index);
  }
  return checkRegion(op, what, buffer, offsets,
                     SmallVector<int64_t>(offsets.size(), 1));
}

template <typename AtomicOpT> static LogicalResult checkAtomic(AtomicOpT op) {
  SmallVector<int64_t> sizes;
  if (auto tile = dyn_cast<MemRefType>(op.getValue().getType()))
    sizes = llvm::to_vector(tile.getShape());
  else if (std::optional<ArrayRef<int64_t>> region = op.getSizes())
    sizes = llvm::to_vector(*region);
  else
    sizes.assign(op.getMixedOffsets().size(), 1);
  return checkRegion(op, "target", op.getTarget(), op.getMixedOffsets(), sizes);
}

/// A constant index or region of a load, store or atomic in the body that
/// lies outside its on-chip buffer is reported at the op (tile.copy checks
/// its regions itself).
LogicalResult mlir::tile::verifyOnChipIndices(KernelOp kernel) {
  WalkResult result = kernel.walk([](Operation *op) {
    LogicalResult ok =
        TypeSwitch<Operation *, LogicalResult>(op)
            .Case([](memref::LoadOp load) {
              return checkIndices(load, "load", load.getMemRef(),
                                  load.getIndices());
            })
            .Case([](memref::StoreOp store) {
              return checkIndices(store, "store", store.getMemRef(),
                                  store.getIndices());
            })
            .Case([](memref::AtomicRMWOp rmw) {
              return checkIndices(rmw, "atomic", rmw.getMemref(),
                                  rmw.getIndices());
            })
            .Case<AtomicAddOp, AtomicMaxOp, AtomicMinOp>(
                [](auto atomic) { return checkAtomic(atomic); })
            .Default([](Operation *) { return success(); });
    return failed(ok) ? WalkResult::interrupt() : WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

//===----------------------------------------------------------------------===//
// AnnotateSafeValueOp
//===----------------------------------------------------------------------===//

TypedAttr AnnotateSafeValueOp::getValueAttr() {
  TypedAttr value;
  if (!matchPattern(getValue(), m_Constant(&value)))
    return nullptr;
  return value;
}

LogicalResult AnnotateSafeValueOp::verify() {
  MemRefType type = getBuffer().getType();
  if (!isGlobal(type))
    return emitOpError() << "annotates a global tensor, got "
                         << stringifyScopeOf(type) << " " << type;
  if (getValue().getType() != type.getElementType())
    return emitOpError() << "value of type " << getValue().getType()
                         << " must be of the tensor's element type "
                         << type.getElementType();
  if (!getValueAttr())
    return emitOpError() << "value must be a constant";
  return success();
}
