//===- GuardMemoryAccess.cpp - tile-guard-memory-access -------------------===//
//
// Guards every memory access of a kernel whose index may leave its buffer,
// unless upstream's integer range analysis proves it inside: loads read
// zero (or the tensor's tile.annotate_safe_value), stores, atomics and tile
// ops on regions of on-chip buffers are dropped.
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

/// An access of `op` to `buffer`: the region [indices, indices + sizes)
/// (sizes of 1 for one element), and the dims of the buffer it may leave.
struct Access {
  Operation *op;
  Value buffer;
  SmallVector<OpFoldResult> indices;
  SmallVector<int64_t> sizes;
  SmallVector<int64_t> unproven;
  /// A tile op's region in an on-chip buffer (else one element).
  bool region = false;
};

/// The accesses of `op` this pass guards: loads, stores and
/// read-modify-writes of global and on-chip memrefs, scalar tile atomics
/// into shared memory, and the on-chip regions of copies and tile atomics.
/// Tile ops check their edges in global memory themselves when lowered.
SmallVector<Access> accessesOf(Operation *op) {
  SmallVector<Access> accesses;
  auto element = [&](Value buffer, SmallVector<OpFoldResult> indices) {
    auto type = dyn_cast<MemRefType>(buffer.getType());
    if (!type || (!isGlobal(type) && !getScope(type)))
      return;
    SmallVector<int64_t> ones(indices.size(), 1);
    accesses.push_back(Access{op, buffer, std::move(indices), ones, {}});
  };
  auto region = [&](Value buffer, SmallVector<OpFoldResult> offsets,
                    ArrayRef<int64_t> sizes) {
    auto type = dyn_cast<MemRefType>(buffer.getType());
    if (!type || isGlobal(type) || !getScope(type) || !type.hasStaticShape())
      return;
    accesses.push_back(Access{op,
                              buffer,
                              std::move(offsets),
                              llvm::to_vector(sizes),
                              {},
                              /*region=*/true});
  };
  auto atomic = [&](auto atomic) {
    Value target = atomic.getTarget();
    if (auto tile = dyn_cast<MemRefType>(atomic.getValue().getType()))
      return region(target, atomic.getMixedOffsets(), tile.getShape());
    if (std::optional<ArrayRef<int64_t>> sizes = atomic.getSizes())
      return region(target, atomic.getMixedOffsets(), *sizes);
    if (!isGlobal(atomic.getTarget().getType()))
      element(target, atomic.getMixedOffsets());
  };
  TypeSwitch<Operation *>(op)
      .Case([&](memref::LoadOp load) {
        element(load.getMemRef(), getAsOpFoldResult(load.getIndices()));
      })
      .Case([&](memref::StoreOp store) {
        element(store.getMemRef(), getAsOpFoldResult(store.getIndices()));
      })
      .Case([&](memref::AtomicRMWOp rmw) {
        element(rmw.getMemref(), getAsOpFoldResult(rmw.getIndices()));
      })
      .Case([&](CopyOp copy) {
        region(copy.getSource(), copy.getMixedSourceOffsets(),
               copy.getSourceSizes());
        region(copy.getTarget(), copy.getMixedTargetOffsets(),
               copy.getTargetSizes());
      })
      .Case<AtomicAddOp, AtomicMaxOp, AtomicMinOp>(atomic);
  return accesses;
}

/// True when [index, index + extent) lies in [0, size) by the index's value
/// or the range analysis.
bool provenInside(DataFlowSolver &solver, OpFoldResult index, int64_t extent,
                  int64_t size) {
  if (ShapedType::isDynamic(size))
    return false;
  if (std::optional<int64_t> value = getConstantIntValue(index))
    return *value >= 0 && *value + extent <= size;
  auto *lattice = solver.lookupState<dataflow::IntegerValueRangeLattice>(
      cast<Value>(index));
  if (!lattice || lattice->getValue().isUninitialized())
    return false;
  const ConstantIntRanges &range = lattice->getValue().getValue();
  return range.smin().isNonNegative() && range.smax().slt(size - extent + 1);
}

/// The condition under which `access` stays inside its buffer, over its
/// unproven dims (unsigned, so that negative indices are out).
Value insideCond(OpBuilder &b, Location loc, const Access &access) {
  SmallVector<Value> indices =
      getValueOrCreateConstantIndexOp(b, loc, access.indices);
  if (!access.region)
    return inBoundsCond(b, loc, access.buffer, indices, access.unproven);
  // A region of a static on-chip buffer: its first index is at most
  // size - extent.
  auto type = cast<MemRefType>(access.buffer.getType());
  Value cond;
  for (int64_t d : access.unproven) {
    int64_t limit =
        std::max<int64_t>(type.getDimSize(d) - access.sizes[d] + 1, 0);
    Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                     indices[d], indexConst(b, loc, limit));
    cond = cond ? arith::AndIOp::create(b, loc, cond, ok).getResult() : ok;
  }
  return cond;
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
  Value cond = insideCond(b, loc, access);
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
        for (Access &a : accessesOf(op)) {
          auto type = cast<MemRefType>(a.buffer.getType());
          for (auto [d, index] : llvm::enumerate(a.indices))
            if (!provenInside(solver, index, a.sizes[d], type.getDimSize(d)))
              a.unproven.push_back(d);
          LLVM_DEBUG(llvm::dbgs()
                     << (a.unproven.empty() ? "proven: " : "guarded: ") << *op
                     << "\n");
          if (!a.unproven.empty())
            guarded.push_back(std::move(a));
        }
      });
    });
    for (const Access &access : guarded)
      guard(access, safeValues);
  }
};

} // namespace
