//===- Atomic.cpp - tile.atomic_* on GPUs ---------------------------------===//
//
// A scalar atomic into a region is spread over the threads; a fragment's
// elements are updated by the threads that own them; a shared tile's
// cooperatively. Updates of global memory are guarded by its bounds. A
// fragment added into global memory goes as the target's vector atomics
// (GpuLowering::getAtomicAddLanes: sm_90's red.global.add.v4.f32) where
// runs of a thread's registers hold consecutive elements of a row, each run
// that lies inside the tensor at an address aligned to its size; the others
// element by element. A tile.parallel whose body only adds a fragment's
// element at the loop's indices into a tensor at offsets plus those indices
// (TileLang's split-K epilogue) is that tile op.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/TileToGPU/TileToGPU.h"

#include "tile/Conversion/TileToGPU/GpuCommon.h"
#include "tile/Conversion/TileToGPU/GpuLowering.h"
#include "tile/Conversion/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::tilegpu;

namespace {

Value dimSize(OpBuilder &b, Location loc, Value buffer, int64_t d) {
  return getValueOrCreateConstantIndexOp(
      b, loc, memref::getMixedSize(b, loc, buffer, d));
}

/// The byte address (an index) of element `idx` of the row-major `buffer`.
Value elementAddress(OpBuilder &b, Location loc, Value buffer,
                     ArrayRef<Value> idx) {
  auto type = cast<MemRefType>(buffer.getType());
  Value linear = idx.front();
  for (int64_t d = 1; d < type.getRank(); ++d)
    linear = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, linear, dimSize(b, loc, buffer, d)),
        idx[d]);
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
  Value bytes = indexConst(b, loc, type.getElementTypeBitWidth() / 8);
  return arith::AddIOp::create(b, loc, base,
                               arith::MulIOp::create(b, loc, linear, bytes));
}

/// How many of a fragment's registers a thread adds into the global
/// `target` as one vector atomic: runs of registers that hold consecutive
/// elements of a row (registerRun), up to the target's vector; 1 when
/// none (another op, a replicated fragment, a strided tensor).
template <typename AtomicOpT>
int64_t vectorAtomicRun(const Storage &value, MemRefType target,
                        const GpuLowering &lowering) {
  if (!std::is_same_v<AtomicOpT, AtomicAddOp> || !isGlobal(target) ||
      !target.getLayout().isIdentity() || target.getRank() == 0)
    return 1;
  FragmentLayoutAttr layout = value.layout;
  int64_t lanes = lowering.getAtomicAddLanes(target.getElementType());
  if (lanes < 2 || layout.getReplicate() != 1 ||
      numElements(layout.getShape()) % layout.getThreads() != 0)
    return 1;
  return registerRun(layout, value.numRegisters, lanes);
}

template <typename AtomicOpT>
struct AtomicLowering : public OpRewritePattern<AtomicOpT> {
  AtomicLowering(MLIRContext *ctx, const GpuLowering &lowering)
      : OpRewritePattern<AtomicOpT>(ctx), lowering(lowering) {}

  LogicalResult matchAndRewrite(AtomicOpT op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TypedValue<MemRefType> target = op.getTarget();
    std::optional<Storage> targetStorage = getStorage(target);
    if (!isGlobal(target.getType()) && !targetStorage)
      return failure();
    Value buffer = targetStorage ? targetStorage->memref : target;
    Type elt = target.getType().getElementType();
    arith::AtomicRMWKind kind = getAtomicRMWKind(op, elt);
    // Checked before anything is created: a pattern that fails must leave
    // the IR as it found it.
    auto tileType = dyn_cast<MemRefType>(op.getValue().getType());
    std::optional<Storage> value =
        tileType ? getStorage(op.getValue()) : std::nullopt;
    if (tileType && (!value || value->scope == Scope::Local))
      return rewriter.notifyMatchFailure(op, "value tile");
    // An element in a tile.parallel body: lowered once the loop is, each
    // element's (ParallelAtomicAsTile sees the loop as it was written).
    if (!tileType && !op.getSizes() && isa<ParallelOp>(op->getParentOp()))
      return rewriter.notifyMatchFailure(op, "in a tile.parallel body");
    SmallVector<Value> offsets =
        getValueOrCreateConstantIndexOp(rewriter, loc, op.getMixedOffsets());
    SmallVector<int64_t> allDims =
        llvm::to_vector(llvm::seq<int64_t>(0, target.getType().getRank()));
    auto update = [&](OpBuilder &b, Location l, Value value,
                      ArrayRef<Value> idx) {
      Value cond = isGlobal(target.getType())
                       ? inBoundsCond(b, l, buffer, idx, allDims)
                       : Value();
      buildIf(b, l, cond, [&](OpBuilder &tb, Location tl) {
        memref::AtomicRMWOp::create(tb, tl, kind, value, buffer, idx);
      });
    };
    if (std::optional<ArrayRef<int64_t>> sizes = op.getSizes()) {
      // A scalar into every element of the region, spread over the threads.
      buildThreadStridedLoop(
          rewriter, loc, numElements(*sizes), getThreads(op),
          [&](OpBuilder &b, Location l, Value linear) {
            SmallVector<Value> tileIdx = delinearize(b, l, linear, *sizes);
            update(b, l, op.getValue(), addOffsets(b, l, offsets, tileIdx));
          });
      rewriter.eraseOp(op);
      return success();
    }
    if (!tileType) {
      update(rewriter, loc, op.getValue(), offsets);
      rewriter.eraseOp(op);
      return success();
    }
    if (value->scope == Scope::Fragment) {
      int64_t run =
          vectorAtomicRun<AtomicOpT>(*value, target.getType(), lowering);
      if (run > 1) {
        addVectorRuns(rewriter, loc, *value, buffer, offsets, run, update);
      } else {
        forEachHeldElement(
            rewriter, loc, value->layout, value->numRegisters,
            [&](OpBuilder &b, Location l, int64_t r, ArrayRef<Value> tileIdx) {
              Value v = memref::LoadOp::create(b, l, value->memref,
                                               ValueRange{indexConst(b, l, r)});
              update(b, l, v, addOffsets(b, l, offsets, tileIdx));
            },
            /*ownedOnly=*/true);
      }
    } else {
      barrier(rewriter, loc);
      buildThreadStridedLoop(
          rewriter, loc, tileType.getNumElements(), getThreads(op),
          [&](OpBuilder &b, Location l, Value linear) {
            SmallVector<Value> tileIdx =
                delinearize(b, l, linear, tileType.getShape());
            Value v = memref::LoadOp::create(b, l, value->memref, tileIdx);
            update(b, l, v, addOffsets(b, l, offsets, tileIdx));
          });
    }
    rewriter.eraseOp(op);
    return success();
  }

private:
  /// Each run of `run` registers (consecutive elements of a row of the
  /// global `buffer` from the element at offsets + the run's first index)
  /// as one vector atomic where the run lies inside the tensor and its
  /// address is aligned to the vector; else element by element (`update`,
  /// guarded by the bounds).
  void addVectorRuns(
      OpBuilder &b, Location loc, const Storage &value, Value buffer,
      ArrayRef<Value> offsets, int64_t run,
      function_ref<void(OpBuilder &, Location, Value, ArrayRef<Value>)> update)
      const {
    auto type = cast<MemRefType>(buffer.getType());
    int64_t last = type.getRank() - 1;
    int64_t vectorBytes = run * type.getElementTypeBitWidth() / 8;
    SmallVector<int64_t> allDims = llvm::to_vector(llvm::seq<int64_t>(0, last + 1));
    Value tid = threadId(b, loc);
    for (int64_t r = 0; r < value.numRegisters; r += run) {
      SmallVector<Value> values;
      for (int64_t k = 0; k < run; ++k)
        values.push_back(memref::LoadOp::create(
            b, loc, value.memref, ValueRange{indexConst(b, loc, r + k)}));
      SmallVector<Value> idx = addOffsets(
          b, loc, offsets, indicesOfRegister(b, loc, value.layout, tid, r));
      Value address = elementAddress(b, loc, buffer, idx);
      // Inside the tensor: the first element (unsigned compares: a
      // negative index is outside) and the run's end.
      Value end = arith::AddIOp::create(b, loc, idx[last],
                                        indexConst(b, loc, run));
      Value fits = arith::AndIOp::create(
          b, loc, inBoundsCond(b, loc, buffer, idx, allDims),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, end,
                                dimSize(b, loc, buffer, last)));
      Value aligned = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::eq,
          arith::RemUIOp::create(b, loc, address,
                                 indexConst(b, loc, vectorBytes)),
          indexConst(b, loc, 0));
      scf::IfOp::create(
          b, loc, arith::AndIOp::create(b, loc, fits, aligned),
          [&](OpBuilder &tb, Location tl) {
            lowering.emitAtomicAddVector(tb, tl, address, values);
            scf::YieldOp::create(tb, tl);
          },
          [&](OpBuilder &eb, Location el) {
            for (int64_t k = 0; k < run; ++k) {
              SmallVector<Value> at(idx);
              at[last] = arith::AddIOp::create(eb, el, idx[last],
                                               indexConst(eb, el, k));
              update(eb, el, values[k], at);
            }
            scf::YieldOp::create(eb, el);
          });
    }
  }

  const GpuLowering &lowering;
};

/// True when `v` does not depend on the indices of `loop`: defined outside
/// it, or by pure ops of its body on such values.
bool loopInvariant(Value v, ParallelOp loop) {
  if (!loop.getRegion().isAncestor(v.getParentRegion()))
    return true;
  Operation *def = v.getDefiningOp();
  return def && def->getNumRegions() == 0 && isPure(def) &&
         llvm::all_of(def->getOperands(),
                      [&](Value o) { return loopInvariant(o, loop); });
}

/// `v` (loopInvariant) where the builder stands, before the loop: the ops
/// of the loop's body that compute it cloned there.
Value hoistInvariant(OpBuilder &b, Value v, ParallelOp loop,
                     IRMapping &mapping) {
  if (!loop.getRegion().isAncestor(v.getParentRegion()))
    return v;
  if (Value done = mapping.lookupOrNull(v))
    return done;
  Operation *def = v.getDefiningOp();
  for (Value o : def->getOperands())
    hoistInvariant(b, o, loop, mapping);
  b.clone(*def, mapping);
  return mapping.lookup(v);
}

/// The offset `index` adds to the loop index `iv`: null where `index` is
/// not iv, offset + iv or iv + offset with the offset loopInvariant.
Value offsetFromIv(Value index, Value iv, ParallelOp loop) {
  auto add = index.getDefiningOp<arith::AddIOp>();
  if (!add)
    return Value();
  if (add.getRhs() == iv && loopInvariant(add.getLhs(), loop))
    return add.getLhs();
  if (add.getLhs() == iv && loopInvariant(add.getRhs(), loop))
    return add.getRhs();
  return Value();
}

/// A tile.parallel whose body reads a fragment at the loop's indices and
/// only combines that element atomically into a tensor at offsets plus the
/// loop's indices (offsets independent of the loop's indices; the rest of the
/// body pure index arithmetic): the tile op of the whole fragment at those
/// offsets, which the lowering above can vectorize.
template <typename AtomicOpT>
struct ParallelAtomicAsTile : public OpRewritePattern<ParallelOp> {
  ParallelAtomicAsTile(MLIRContext *ctx)
      : OpRewritePattern<ParallelOp>(ctx, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(ParallelOp op,
                                PatternRewriter &rewriter) const override {
    Block &body = op.getBodyBlock();
    ValueRange ivs = body.getArguments();
    memref::LoadOp load;
    AtomicOpT atomic;
    for (Operation &inner : body.without_terminator()) {
      if (auto l = dyn_cast<memref::LoadOp>(inner); l && !load) {
        load = l;
        continue;
      }
      if (auto a = dyn_cast<AtomicOpT>(inner); a && !atomic) {
        atomic = a;
        continue;
      }
      if (inner.getNumRegions() != 0 || !isPure(&inner))
        return failure();
    }
    if (!load || !atomic || atomic.getSizes() ||
        atomic.getValue() != load.getResult() || !load->hasOneUse())
      return failure();
    std::optional<Storage> fragment = getStorage(load.getMemRef());
    if (!fragment || fragment->scope != Scope::Fragment ||
        fragment->layout.getReplicate() != 1 ||
        load.getMemRefType().getShape() != op.getExtents() ||
        !llvm::equal(load.getIndices(), ivs))
      return failure();
    SmallVector<OpFoldResult> mixed = atomic.getMixedOffsets();
    if (mixed.size() != ivs.size())
      return failure();
    SmallVector<Value> offsets;
    SmallVector<int64_t> staticOffsets;
    for (auto [index, iv] : llvm::zip(mixed, ivs)) {
      auto value = dyn_cast<Value>(index);
      if (!value)
        return failure();
      if (value == iv) {
        staticOffsets.push_back(0);
        continue;
      }
      Value offset = offsetFromIv(value, iv, op);
      if (!offset)
        return failure();
      offsets.push_back(offset);
      staticOffsets.push_back(ShapedType::kDynamic);
    }
    rewriter.setInsertionPoint(op);
    IRMapping mapping;
    for (Value &offset : offsets)
      offset = hoistInvariant(rewriter, offset, op, mapping);
    AtomicOpT::create(rewriter, atomic.getLoc(), atomic.getTarget(), offsets,
                      rewriter.getDenseI64ArrayAttr(staticOffsets),
                      /*sizes=*/DenseI64ArrayAttr(), load.getMemRef());
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tile::populateAtomicToGPUPatterns(RewritePatternSet &patterns,
                                             const GpuLowering &lowering) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<AtomicLowering<AtomicAddOp>, AtomicLowering<AtomicMaxOp>,
               AtomicLowering<AtomicMinOp>>(ctx, lowering);
  patterns.add<ParallelAtomicAsTile<AtomicAddOp>,
               ParallelAtomicAsTile<AtomicMaxOp>,
               ParallelAtomicAsTile<AtomicMinOp>>(ctx);
}
