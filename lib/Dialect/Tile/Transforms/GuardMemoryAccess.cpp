//===- GuardMemoryAccess.cpp - tile-guard-memory-access -------------------===//
//
// Guards every memory access of a kernel whose index may leave its buffer,
// unless upstream's integer range analysis proves it inside: loads read
// zero (or the tensor's tile.annotate_safe_value), stores and atomics are
// dropped.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/Utils.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Analysis/DataFlow/ConstantPropagationAnalysis.h"
#include "mlir/Analysis/DataFlow/DeadCodeAnalysis.h"
#include "mlir/Analysis/DataFlow/IntegerRangeAnalysis.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-guard-memory-access"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEGUARDMEMORYACCESS
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// A load, store or atomic of one element and the dims of its buffer that
/// its index may leave.
struct Access {
  Operation *op;
  Value buffer;
  SmallVector<OpFoldResult> indices;
  SmallVector<int64_t> unproven;
};

/// The access this pass guards, if `op` is one: loads, stores and
/// read-modify-writes of global and on-chip memrefs, and scalar tile
/// atomics into shared memory (those into global memory guard themselves
/// when lowered).
std::optional<Access> elementAccess(Operation *op) {
  auto of = [&](Value buffer,
                SmallVector<OpFoldResult> indices) -> std::optional<Access> {
    auto type = dyn_cast<MemRefType>(buffer.getType());
    if (!type || (!isGlobal(type) && !getScope(type)))
      return std::nullopt;
    return Access{op, buffer, std::move(indices), {}};
  };
  auto scalarAtomic = [&](auto atomic) -> std::optional<Access> {
    if (isa<MemRefType>(atomic.getValue().getType()) || atomic.getSizes() ||
        isGlobal(atomic.getTarget().getType()))
      return std::nullopt;
    return of(atomic.getTarget(), atomic.getMixedOffsets());
  };
  return TypeSwitch<Operation *, std::optional<Access>>(op)
      .Case([&](memref::LoadOp load) {
        return of(load.getMemRef(), getAsOpFoldResult(load.getIndices()));
      })
      .Case([&](memref::StoreOp store) {
        return of(store.getMemRef(), getAsOpFoldResult(store.getIndices()));
      })
      .Case([&](memref::AtomicRMWOp rmw) {
        return of(rmw.getMemref(), getAsOpFoldResult(rmw.getIndices()));
      })
      .Case<AtomicAddOp, AtomicMaxOp, AtomicMinOp>(
          [&](auto atomic) { return scalarAtomic(atomic); })
      .Default([](Operation *) { return std::nullopt; });
}

/// True when `index` lies in [0, size) by its value or the range analysis.
bool provenInside(DataFlowSolver &solver, OpFoldResult index, int64_t size) {
  if (ShapedType::isDynamic(size))
    return false;
  if (std::optional<int64_t> value = getConstantIntValue(index))
    return *value >= 0 && *value < size;
  auto *lattice = solver.lookupState<dataflow::IntegerValueRangeLattice>(
      cast<Value>(index));
  if (!lattice || lattice->getValue().isUninitialized())
    return false;
  const ConstantIntRanges &range = lattice->getValue().getValue();
  return range.smin().isNonNegative() && range.smax().slt(size);
}

/// The value a guarded load of `buffer` reads.
Value safeValue(OpBuilder &b, Location loc, Value buffer,
                const DenseMap<Value, TypedAttr> &safeValues) {
  if (TypedAttr value = safeValues.lookup(buffer))
    return arith::ConstantOp::create(b, loc, value);
  return zeroOf(b, loc, cast<MemRefType>(buffer.getType()).getElementType());
}

/// Runs `access.op` only where its index is inside; a result it had comes
/// from the safe value elsewhere.
void guard(const Access &access, const DenseMap<Value, TypedAttr> &safeValues) {
  Operation *op = access.op;
  Location loc = op->getLoc();
  OpBuilder b(op);
  Value cond = inBoundsCond(
      b, loc, access.buffer,
      getValueOrCreateConstantIndexOp(b, loc, access.indices), access.unproven);
  bool hasResult = op->getNumResults() == 1;
  auto ifOp = scf::IfOp::create(b, loc, op->getResultTypes(), cond,
                                /*withElseRegion=*/hasResult);
  Block *then = ifOp.thenBlock();
  if (!hasResult) {
    op->moveBefore(then->getTerminator());
    return;
  }
  op->getResult(0).replaceAllUsesWith(ifOp.getResult(0));
  b.setInsertionPointToEnd(then);
  op->moveBefore(then, then->end());
  scf::YieldOp::create(b, loc, op->getResult(0));
  b.setInsertionPointToEnd(ifOp.elseBlock());
  scf::YieldOp::create(b, loc, safeValue(b, loc, access.buffer, safeValues));
}

struct TileGuardMemoryAccessPass
    : public tile::impl::TileGuardMemoryAccessBase<TileGuardMemoryAccessPass> {
  using Base::Base;

  void runOnOperation() override {
    // Safe values of the kernels' tensors: copies without a pad read them
    // too; the annotations are spent.
    DenseMap<Value, TypedAttr> safeValues;
    SmallVector<AnnotateSafeValueOp> annotations;
    getOperation().walk([&](AnnotateSafeValueOp annotation) {
      safeValues[annotation.getBuffer()] = annotation.getValueAttr();
      annotations.push_back(annotation);
    });
    getOperation().walk([&](CopyOp copy) {
      if (TypedAttr value = safeValues.lookup(copy.getSource());
          value && !copy.getPadAttr())
        copy.setPadAttr(value);
    });
    for (AnnotateSafeValueOp annotation : annotations)
      annotation.erase();

    DataFlowSolver solver;
    solver.load<dataflow::DeadCodeAnalysis>();
    solver.load<dataflow::SparseConstantPropagation>();
    solver.load<dataflow::IntegerRangeAnalysis>();
    if (failed(solver.initializeAndRun(getOperation())))
      return signalPassFailure();

    // Decide every access before the IR changes under the analysis.
    SmallVector<Access> guarded;
    getOperation().walk([&](KernelOp kernel) {
      kernel.walk([&](Operation *op) {
        std::optional<Access> a = elementAccess(op);
        if (!a)
          return;
        auto type = cast<MemRefType>(a->buffer.getType());
        for (auto [d, index] : llvm::enumerate(a->indices))
          if (!provenInside(solver, index, type.getDimSize(d)))
            a->unproven.push_back(d);
        LLVM_DEBUG(llvm::dbgs()
                   << (a->unproven.empty() ? "proven: " : "guarded: ") << *op
                   << "\n");
        if (!a->unproven.empty())
          guarded.push_back(std::move(*a));
      });
    });
    for (const Access &access : guarded)
      guard(access, safeValues);
  }
};

} // namespace
