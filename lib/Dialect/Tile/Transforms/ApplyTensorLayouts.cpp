//===- ApplyTensorLayouts.cpp - tile-apply-tensor-layouts -----------------===//
//
// Realizes the #tile.layout pins of global tensors (TileLang's T.Layout on
// a global buffer): inside the kernel that pins it, every access of the
// tensor goes to the element's place in the physical array.
//
//  - A tile.copy with the tensor on one side becomes an element-wise
//    tile.parallel over the copied tile; its accesses of global tensors are
//    guarded (outside the tensor a load reads the pad value, a store is
//    dropped), as tile.copy's own lowering would.
//  - memref.load, memref.store and the one-element tile atomics then index
//    a 1-d view of the tensor (memref.collapse_shape) at the layout's
//    row-major offset. They were guarded on their logical indices by
//    tile-guard-memory-access, which runs before this pass.
//
// Any other use of the tensor in the kernel is an error that names the op.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/Utils.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-apply-tensor-layouts"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEAPPLYTENSORLAYOUTS
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// `expr` of `dims` in index arithmetic. The indices are inside the tensor
/// (guarded), so unsigned division and remainder are exact.
Value expandExpr(OpBuilder &b, Location loc, AffineExpr expr,
                 ArrayRef<Value> dims) {
  if (auto c = dyn_cast<AffineConstantExpr>(expr))
    return indexConst(b, loc, c.getValue());
  if (auto d = dyn_cast<AffineDimExpr>(expr))
    return dims[d.getPosition()];
  auto binary = cast<AffineBinaryOpExpr>(expr);
  Value lhs = expandExpr(b, loc, binary.getLHS(), dims);
  Value rhs = expandExpr(b, loc, binary.getRHS(), dims);
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return arith::AddIOp::create(b, loc, lhs, rhs);
  case AffineExprKind::Mul:
    return arith::MulIOp::create(b, loc, lhs, rhs);
  case AffineExprKind::FloorDiv:
    return arith::DivUIOp::create(b, loc, lhs, rhs);
  case AffineExprKind::CeilDiv:
    return arith::CeilDivUIOp::create(b, loc, lhs, rhs);
  default:
    return arith::RemUIOp::create(b, loc, lhs, rhs);
  }
}

/// The indices of the tile element at `ivs` in one side of a copy: the
/// offsets, plus the next iv in each dimension the region spans.
SmallVector<Value> sideIndices(OpBuilder &b, Location loc,
                               ArrayRef<OpFoldResult> offsets,
                               ArrayRef<int64_t> sizes, ValueRange ivs) {
  SmallVector<Value> idx;
  size_t next = 0;
  for (auto [offset, size] : llvm::zip(offsets, sizes)) {
    Value o = getValueOrCreateConstantIndexOp(b, loc, offset);
    idx.push_back(size == 1 ? o
                            : arith::AddIOp::create(b, loc, o, ivs[next++])
                                  .getResult());
  }
  return idx;
}

SmallVector<int64_t> allDims(Value buffer) {
  return llvm::to_vector(
      llvm::seq<int64_t>(0, cast<MemRefType>(buffer.getType()).getRank()));
}

/// tile.copy -> tile.parallel of guarded element loads and stores.
void expandCopy(CopyOp copy) {
  OpBuilder b(copy);
  Location loc = copy.getLoc();
  SmallVector<int64_t> tile = copy.getTileShape();
  if (tile.empty())
    tile.push_back(1);
  auto par = ParallelOp::create(b, loc, tile);
  b.setInsertionPointToStart(&par.getBodyBlock());
  ValueRange ivs = par.getBodyBlock().getArguments();
  Value source = copy.getSource(), target = copy.getTarget();
  SmallVector<Value> from =
      sideIndices(b, loc, copy.getMixedSourceOffsets(), copy.getSourceSizes(),
                  ivs);
  SmallVector<Value> to = sideIndices(b, loc, copy.getMixedTargetOffsets(),
                                      copy.getTargetSizes(), ivs);
  Type sourceElt = cast<MemRefType>(source.getType()).getElementType();
  Type targetElt = cast<MemRefType>(target.getType()).getElementType();
  auto isGlobalBuffer = [](Value v) {
    return isGlobal(cast<MemRefType>(v.getType()));
  };
  Value value;
  if (isGlobalBuffer(source)) {
    Value inside = inBoundsCond(b, loc, source, from, allDims(source));
    auto load = scf::IfOp::create(b, loc, TypeRange{sourceElt}, inside,
                                  /*withElseRegion=*/true);
    OpBuilder then = load.getThenBodyBuilder();
    scf::YieldOp::create(
        then, loc, memref::LoadOp::create(then, loc, source, from).getResult());
    OpBuilder other = load.getElseBodyBuilder();
    Value pad = copy.getPad()
                    ? arith::ConstantOp::create(other, loc, *copy.getPad())
                          .getResult()
                    : zeroOf(other, loc, sourceElt);
    scf::YieldOp::create(other, loc, pad);
    value = load.getResult(0);
  } else {
    value = memref::LoadOp::create(b, loc, source, from);
  }
  value = convertElements(b, loc, value, targetElt);
  Value inside = isGlobalBuffer(target)
                     ? inBoundsCond(b, loc, target, to, allDims(target))
                     : Value();
  buildIf(b, loc, inside, [&](OpBuilder &ib, Location l) {
    memref::StoreOp::create(ib, l, value, target, to);
  });
  copy.erase();
}

/// Rewrites `op`'s one-element access of the pinned tensor to `flat` at the
/// element's offset `offset`; fails for ops that cannot.
template <typename AtomicOp>
LogicalResult retargetAtomic(Operation *op, Value tensor, Value flat,
                             function_ref<Value(ValueRange)> offset) {
  auto atomic = dyn_cast<AtomicOp>(op);
  if (!atomic)
    return failure();
  if (atomic.getTarget() != tensor || atomic.getSizes() ||
      isa<MemRefType>(atomic.getValue().getType()))
    return atomic.emitOpError()
           << "adds a region or a tile into a tensor whose elements a "
              "#tile.layout places; write it element by element (T.Parallel)";
  OpBuilder b(op);
  SmallVector<Value> idx = getValueOrCreateConstantIndexOp(
      b, op->getLoc(), atomic.getMixedOffsets());
  Value at = offset(idx);
  AtomicOp::create(b, op->getLoc(), flat, ValueRange{at},
                   b.getDenseI64ArrayAttr({ShapedType::kDynamic}),
                   /*sizes=*/DenseI64ArrayAttr(), atomic.getValue());
  op->erase();
  return success();
}

/// Applies one pin: `annotate` places the elements of a global tensor in
/// the kernel around it.
LogicalResult applyPin(AnnotateLayoutOp annotate, TensorLayoutAttr layout) {
  Value tensor = annotate.getBuffer();
  auto kernel = annotate->getParentOfType<KernelOp>();
  auto inKernel = [&](Operation *op) { return kernel->isAncestor(op); };
  for (Operation *user : llvm::to_vector(tensor.getUsers()))
    if (auto copy = dyn_cast<CopyOp>(user); copy && inKernel(copy))
      expandCopy(copy);

  OpBuilder b(&kernel.getBodyBlock(), kernel.getBodyBlock().begin());
  Location loc = annotate.getLoc();
  auto type = cast<MemRefType>(tensor.getType());
  SmallVector<ReassociationIndices> all{
      llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()))};
  Value flat = memref::CollapseShapeOp::create(b, loc, tensor, all);
  AffineMap linear = layout.getLinearMap();
  auto offsetOf = [&](OpBuilder &ob, Location l, ValueRange idx) {
    return expandExpr(ob, l, linear.getResult(0), llvm::to_vector(idx));
  };

  for (Operation *user : llvm::to_vector(tensor.getUsers())) {
    if (user == annotate.getOperation() || user == flat.getDefiningOp() ||
        !inKernel(user) || isa<memref::DimOp>(user))
      continue;
    if (auto load = dyn_cast<memref::LoadOp>(user)) {
      OpBuilder lb(load);
      Value at = offsetOf(lb, load.getLoc(), load.getIndices());
      load.getMemrefMutable().assign(flat);
      load.getIndicesMutable().assign(at);
      continue;
    }
    if (auto store = dyn_cast<memref::StoreOp>(user);
        store && store.getMemref() == tensor) {
      OpBuilder sb(store);
      Value at = offsetOf(sb, store.getLoc(), store.getIndices());
      store.getMemrefMutable().assign(flat);
      store.getIndicesMutable().assign(at);
      continue;
    }
    auto offset = [&, user](ValueRange idx) {
      OpBuilder ab(user);
      return offsetOf(ab, user->getLoc(), idx);
    };
    if (succeeded(retargetAtomic<AtomicAddOp>(user, tensor, flat, offset)) ||
        succeeded(retargetAtomic<AtomicMaxOp>(user, tensor, flat, offset)) ||
        succeeded(retargetAtomic<AtomicMinOp>(user, tensor, flat, offset)))
      continue;
    if (isa<AtomicAddOp, AtomicMaxOp, AtomicMinOp>(user))
      return failure(); // retargetAtomic reported it
    InFlightDiagnostic diag =
        user->emitOpError()
        << "uses a tensor whose elements a #tile.layout places; only "
           "tile.copy, element loads, stores and element atomics can";
    diag.attachNote(annotate.getLoc()) << "the layout is pinned here";
    return failure();
  }
  annotate.erase();
  return success();
}

struct TileApplyTensorLayoutsPass
    : public tile::impl::TileApplyTensorLayoutsBase<
          TileApplyTensorLayoutsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<std::pair<AnnotateLayoutOp, TensorLayoutAttr>> pins;
    getOperation().walk([&](AnnotateLayoutOp op) {
      if (auto layout = dyn_cast<TensorLayoutAttr>(op.getLayout()))
        pins.push_back({op, layout});
    });
    llvm::DenseMap<std::pair<Operation *, Value>, AnnotateLayoutOp> seen;
    for (auto [op, layout] : pins) {
      auto kernel = op->getParentOfType<KernelOp>();
      auto [it, fresh] =
          seen.try_emplace({kernel.getOperation(), op.getBuffer()}, op);
      if (!fresh) {
        InFlightDiagnostic diag = op.emitOpError()
                                  << "pins a second #tile.layout on a tensor "
                                     "in the same kernel";
        diag.attachNote(it->second.getLoc()) << "the first is here";
        return signalPassFailure();
      }
    }
    for (auto [op, layout] : pins)
      if (failed(applyPin(op, layout)))
        return signalPassFailure();
  }
};

} // namespace
