//===- GuardMemoryAccess.cpp - tile-guard-memory-access -------------------===//
//
// Guards every memory access of a kernel whose index may leave its buffer,
// unless upstream's integer range analysis proves it inside: loads read
// zero (or the tensor's tile.annotate_safe_value), stores, atomics and tile
// ops on regions of on-chip buffers are dropped. An element access to an
// on-chip buffer that certainly leaves it (its index an affine function of
// loops with constant bounds that always reach it) is a program error,
// reported at the access.
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
#include "mlir/Interfaces/LoopLikeInterface.h"
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

/// The exact values an index takes: [lo, hi] over the loop iterations that
/// reach the access, and the induction variables it depends on.
struct ExactRange {
  int64_t lo, hi;
  SmallVector<Value> ivs;
};

/// The iteration values of `loop`'s induction variable `iv` ([lo, hi]),
/// when its bounds are constants and it runs at least once.
std::optional<std::pair<int64_t, int64_t>> ivValues(Operation *loop,
                                                    Value iv) {
  auto arg = dyn_cast<BlockArgument>(iv);
  if (!arg)
    return std::nullopt;
  if (auto parallel = dyn_cast<ParallelOp>(loop)) {
    int64_t extent = parallel.getExtents()[arg.getArgNumber()];
    if (extent < 1)
      return std::nullopt;
    return std::make_pair(int64_t(0), extent - 1);
  }
  auto like = dyn_cast<LoopLikeOpInterface>(loop);
  if (!like)
    return std::nullopt;
  std::optional<SmallVector<Value>> ivs = like.getLoopInductionVars();
  std::optional<SmallVector<OpFoldResult>> lbs = like.getLoopLowerBounds(),
                                           ubs = like.getLoopUpperBounds(),
                                           steps = like.getLoopSteps();
  if (!ivs || !lbs || !ubs || !steps)
    return std::nullopt;
  auto it = llvm::find(*ivs, iv);
  if (it == ivs->end())
    return std::nullopt;
  size_t d = it - ivs->begin();
  std::optional<int64_t> lb = getConstantIntValue((*lbs)[d]),
                         ub = getConstantIntValue((*ubs)[d]),
                         step = getConstantIntValue((*steps)[d]);
  if (!lb || !ub || !step || *step < 1 || *ub <= *lb)
    return std::nullopt;
  return std::make_pair(*lb, *lb + (*ub - 1 - *lb) / *step * *step);
}

/// True when every iteration of `loop` runs `op`: only loops that run at
/// least once lie between them.
bool alwaysReached(Operation *op, Operation *loop) {
  for (Operation *p = op->getParentOp(); p != loop; p = p->getParentOp()) {
    if (!p || isa<KernelOp>(p))
      return false;
    if (auto parallel = dyn_cast<ParallelOp>(p)) {
      if (llvm::any_of(parallel.getExtents(), [](int64_t e) { return e < 1; }))
        return false;
      continue;
    }
    auto like = dyn_cast<LoopLikeOpInterface>(p);
    std::optional<SmallVector<Value>> ivs =
        like ? like.getLoopInductionVars() : std::nullopt;
    if (!ivs || ivs->empty() ||
        llvm::any_of(*ivs, [&](Value iv) { return !ivValues(p, iv); }))
      return false;
  }
  return true;
}

/// The values `v` takes where `access` runs, when they are certain: a
/// constant, an induction variable of a loop with constant bounds that
/// always reaches the access, and sums, differences and products by
/// constants of such values over distinct induction variables.
std::optional<ExactRange> exactRange(Value v, Operation *access) {
  if (std::optional<int64_t> c = getConstantIntValue(v))
    return ExactRange{*c, *c, {}};
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Operation *loop = arg.getOwner()->getParentOp();
    std::optional<std::pair<int64_t, int64_t>> values = ivValues(loop, v);
    if (!values || !alwaysReached(access, loop))
      return std::nullopt;
    return ExactRange{values->first, values->second, {v}};
  }
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp>(def))
    return exactRange(def->getOperand(0), access);
  if (!isa<arith::AddIOp, arith::SubIOp, arith::MulIOp>(def))
    return std::nullopt;
  std::optional<ExactRange> a = exactRange(def->getOperand(0), access);
  std::optional<ExactRange> b = exactRange(def->getOperand(1), access);
  if (!a || !b || llvm::any_of(a->ivs, [&](Value iv) {
        return llvm::is_contained(b->ivs, iv);
      }))
    return std::nullopt;
  ExactRange r{0, 0, a->ivs};
  r.ivs.append(b->ivs.begin(), b->ivs.end());
  if (isa<arith::AddIOp>(def)) {
    r.lo = a->lo + b->lo;
    r.hi = a->hi + b->hi;
  } else if (isa<arith::SubIOp>(def)) {
    r.lo = a->lo - b->hi;
    r.hi = a->hi - b->lo;
  } else {
    int64_t p[] = {a->lo * b->lo, a->lo * b->hi, a->hi * b->lo, a->hi * b->hi};
    r.lo = *llvm::min_element(p);
    r.hi = *llvm::max_element(p);
  }
  return r;
}

/// Reports an element access of a static on-chip buffer whose index
/// certainly leaves it (TileLang runs such programs with whatever the
/// registers past the end hold).
LogicalResult checkOnChipOverrun(const Access &access) {
  auto type = cast<MemRefType>(access.buffer.getType());
  if (access.region || isGlobal(type))
    return success();
  for (int64_t d : access.unproven) {
    int64_t size = type.getDimSize(d);
    auto index = dyn_cast<Value>(access.indices[d]);
    if (ShapedType::isDynamic(size) || !index)
      continue;
    std::optional<ExactRange> r = exactRange(index, access.op);
    if (!r || (r->lo >= 0 && r->hi < size))
      continue;
    StringRef what = isa<memref::LoadOp>(access.op)    ? "load"
                     : isa<memref::StoreOp>(access.op) ? "store"
                                                       : "access";
    InFlightDiagnostic diag = access.op->emitError()
                              << what << " index runs from " << r->lo
                              << " to " << r->hi
                              << " in the loops around it, outside dimension "
                              << d << " of the " << stringifyScopeOf(type)
                              << " buffer " << type << " (size " << size
                              << ")";
    diag.attachNote() << "indices of " << stringifyScopeOf(type)
                      << " buffers must lie in [0, " << size
                      << "); guard the access (`if i < " << size
                      << ":`) or size the buffer for the loop";
    return diag;
  }
  return success();
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
    bool overrun = false;
    for (const Access &access : guarded)
      overrun |= failed(checkOnChipOverrun(access));
    if (overrun)
      return signalPassFailure();
    for (const Access &access : guarded)
      guard(access, safeValues);
  }
};

} // namespace
