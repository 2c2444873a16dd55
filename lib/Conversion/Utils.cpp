//===- Utils.cpp - Helpers shared by the target lowerings -----------------===//

#include "tile/Conversion/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace mlir::tile {

Value indexConst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// Converts a scalar or vector to element type `to` (float/int/index).
Value convertElements(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = getElementTypeOrSelf(v.getType());
  if (from == to)
    return v;
  auto retype = [&](Type elt) -> Type {
    if (auto vt = dyn_cast<VectorType>(v.getType()))
      return vt.clone(elt);
    return elt;
  };
  if (isa<IndexType>(from) || isa<IndexType>(to)) {
    Type mid = isa<IndexType>(from) ? Type(b.getI64Type()) : from;
    if (isa<IndexType>(from))
      v = arith::IndexCastOp::create(b, loc, retype(mid), v);
    if (isa<IndexType>(to))
      return arith::IndexCastOp::create(
          b, loc, retype(to), convertElements(b, loc, v, b.getI64Type()));
    return convertElements(b, loc, v, to);
  }
  auto fromF = dyn_cast<FloatType>(from);
  auto toF = dyn_cast<FloatType>(to);
  if (fromF && toF) {
    unsigned fw = fromF.getWidth(), tw = toF.getWidth();
    if (fw < tw)
      return arith::ExtFOp::create(b, loc, retype(to), v);
    if (fw > tw)
      return arith::TruncFOp::create(b, loc, retype(to), v);
    // f16 <-> bf16: through f32.
    Value wide = arith::ExtFOp::create(b, loc, retype(b.getF32Type()), v);
    return arith::TruncFOp::create(b, loc, retype(to), wide);
  }
  if (fromF)
    return arith::FPToSIOp::create(b, loc, retype(to), v);
  if (toF)
    return arith::SIToFPOp::create(b, loc, retype(to), v);
  unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
  if (fw < tw)
    return arith::ExtSIOp::create(b, loc, retype(to), v);
  return arith::TruncIOp::create(b, loc, retype(to), v);
}

Value zeroOf(OpBuilder &b, Location loc, Type type) {
  return arith::ConstantOp::create(b, loc, type, b.getZeroAttr(type));
}

Value inBoundsCond(OpBuilder &b, Location loc, Value buffer,
                   ArrayRef<Value> idx, ArrayRef<int64_t> dims) {
  Value cond;
  for (int64_t d : dims) {
    Value size = memref::DimOp::create(b, loc, buffer, d);
    Value ok =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, idx[d], size);
    cond = cond ? arith::AndIOp::create(b, loc, cond, ok).getResult() : ok;
  }
  return cond;
}

SmallVector<Value> addOffsets(OpBuilder &b, Location loc, ValueRange offsets,
                              ValueRange ivs) {
  SmallVector<Value> idx;
  for (auto [o, iv] : llvm::zip(offsets, ivs))
    idx.push_back(arith::AddIOp::create(b, loc, o, iv));
  return idx;
}

/// Runs `body` under `cond` (or unconditionally when `cond` is null).
void buildIf(OpBuilder &b, Location loc, Value cond,
             function_ref<void(OpBuilder &, Location)> body) {
  if (!cond) {
    body(b, loc);
    return;
  }
  scf::IfOp::create(b, loc, cond, [&](OpBuilder &tb, Location tl) {
    body(tb, tl);
    scf::YieldOp::create(tb, tl);
  });
}

/// A loop nest with constant bounds [0, extents) and unit steps.
void buildTileLoops(
    OpBuilder &b, Location loc, ArrayRef<int64_t> extents,
    function_ref<void(OpBuilder &, Location, ValueRange)> body) {
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t e : extents) {
    lbs.push_back(indexConst(b, loc, 0));
    ubs.push_back(indexConst(b, loc, e));
    steps.push_back(indexConst(b, loc, 1));
  }
  scf::buildLoopNest(b, loc, lbs, ubs, steps, body);
}

CopyEnd::CopyEnd(OpBuilder &b, Location loc, Value buffer,
                 ArrayRef<OpFoldResult> mixedOffsets, ArrayRef<int64_t> sizes)
    : buffer(buffer), type(cast<MemRefType>(buffer.getType())),
      offsets(getValueOrCreateConstantIndexOp(b, loc, mixedOffsets)),
      global(isGlobal(type)) {
  for (auto [d, size] : llvm::enumerate(sizes))
    if (size != 1)
      tileDims.push_back(d);
}

CopyEnd CopyEnd::forShape(ArrayRef<int64_t> sizes) {
  CopyEnd end;
  for (auto [d, size] : llvm::enumerate(sizes))
    if (size != 1)
      end.tileDims.push_back(d);
  return end;
}

SmallVector<Value> CopyEnd::indices(OpBuilder &b, Location loc,
                                    ValueRange ivs) {
  SmallVector<Value> idx = offsets;
  for (auto [i, iv] : llvm::enumerate(ivs))
    idx[tileDims[i]] = arith::AddIOp::create(b, loc, idx[tileDims[i]], iv);
  return idx;
}

Value CopyEnd::cond(OpBuilder &b, Location loc, ArrayRef<Value> idx,
                    int64_t skip) {
  if (!global)
    return nullptr;
  SmallVector<int64_t> dims;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (d != skip)
      dims.push_back(d);
  return inBoundsCond(b, loc, buffer, idx, dims);
}

Value reduceIdentity(OpBuilder &b, Location loc, ReduceKind kind, Type elt) {
  auto floatType = dyn_cast<FloatType>(elt);
  switch (kind) {
  case ReduceKind::Sum:
  case ReduceKind::AbsSum:
  case ReduceKind::AbsMax:
    return zeroOf(b, loc, elt);
  case ReduceKind::Max:
  case ReduceKind::Min: {
    bool isMax = kind == ReduceKind::Max;
    if (floatType)
      return arith::ConstantOp::create(
          b, loc, elt,
          b.getFloatAttr(elt, APFloat::getInf(floatType.getFloatSemantics(),
                                              /*Negative=*/isMax)));
    unsigned w = elt.getIntOrFloatBitWidth();
    APInt v = isMax ? APInt::getSignedMinValue(w) : APInt::getSignedMaxValue(w);
    return arith::ConstantOp::create(b, loc, elt, b.getIntegerAttr(elt, v));
  }
  }
  llvm_unreachable("unknown reduce kind");
}

Value reduceCombine(OpBuilder &b, Location loc, ReduceKind kind, Value acc,
                    Value x, bool propagateNan) {
  bool isFloat = isa<FloatType>(x.getType());
  auto reassoc = arith::FastMathFlagsAttr::get(b.getContext(),
                                               arith::FastMathFlags::reassoc);
  switch (kind) {
  case ReduceKind::Sum:
  case ReduceKind::AbsSum:
    if (isFloat)
      return arith::AddFOp::create(b, loc, acc, x, reassoc);
    return arith::AddIOp::create(b, loc, acc, x);
  case ReduceKind::Max:
  case ReduceKind::AbsMax:
    if (isFloat && propagateNan)
      return arith::MaximumFOp::create(b, loc, acc, x);
    if (isFloat)
      return arith::MaxNumFOp::create(b, loc, acc, x);
    return arith::MaxSIOp::create(b, loc, acc, x);
  case ReduceKind::Min:
    if (isFloat && propagateNan)
      return arith::MinimumFOp::create(b, loc, acc, x);
    if (isFloat)
      return arith::MinNumFOp::create(b, loc, acc, x);
    return arith::MinSIOp::create(b, loc, acc, x);
  }
  llvm_unreachable("unknown reduce kind");
}

arith::AtomicRMWKind getAtomicRMWKind(Operation *atomicOp, Type elt) {
  bool isFloat = isa<FloatType>(elt);
  if (isa<AtomicMaxOp>(atomicOp))
    return isFloat ? arith::AtomicRMWKind::maximumf
                   : arith::AtomicRMWKind::maxs;
  if (isa<AtomicMinOp>(atomicOp))
    return isFloat ? arith::AtomicRMWKind::minimumf
                   : arith::AtomicRMWKind::mins;
  return isFloat ? arith::AtomicRMWKind::addf : arith::AtomicRMWKind::addi;
}

Value reduceOperand(OpBuilder &b, Location loc, ReduceKind kind, Value x) {
  if (kind != ReduceKind::AbsSum && kind != ReduceKind::AbsMax)
    return x;
  if (isa<FloatType>(x.getType()))
    return math::AbsFOp::create(b, loc, x);
  return math::AbsIOp::create(b, loc, x);
}

namespace {

struct SerialPipelinedLowering : public OpRewritePattern<PipelinedOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PipelinedOp op,
                                PatternRewriter &rewriter) const override {
    auto loop = scf::ForOp::create(rewriter, op.getLoc(), op.getLower(),
                                   op.getUpper(), op.getStep());
    // LLVM attributes a lowering put on the loop (kLoopAnnotationAttr) go
    // on to its latch branch (scf-to-cf, cf-to-llvm).
    for (NamedAttribute attr : op->getDiscardableAttrs())
      if (isa<LLVM::LLVMDialect>(attr.getValue().getDialect()))
        loop->setAttr(attr.getName(), attr.getValue());
    Block &body = op.getBodyBlock();
    rewriter.eraseOp(body.getTerminator());
    rewriter.inlineBlockBefore(&body, loop.getBody()->getTerminator(),
                               {loop.getInductionVar()});
    rewriter.eraseOp(op);
    return success();
  }
};

struct AnnotateLayoutErasure : public OpRewritePattern<AnnotateLayoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AnnotateLayoutOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void populateSerialPipelinedAndLayoutPatterns(RewritePatternSet &patterns) {
  patterns.add<SerialPipelinedLowering, AnnotateLayoutErasure>(
      patterns.getContext());
}

SmallVector<Value> materializeOffsets(OpBuilder &b, Location loc,
                                      ArrayRef<OpFoldResult> offsets) {
  return llvm::map_to_vector(offsets, [&](OpFoldResult ofr) {
    return getValueOrCreateConstantIndexOp(b, loc, ofr);
  });
}

void buildSerialScan(OpBuilder &b, Location loc, ReduceKind kind,
                     ArrayRef<int64_t> sizes, int64_t dim, bool reverse,
                     Value src, ValueRange srcOffsets, Value dst,
                     ValueRange dstOffsets) {
  Type elt = cast<MemRefType>(src.getType()).getElementType();
  int64_t n = sizes[dim];
  SmallVector<int64_t> lines(sizes);
  lines[dim] = 1;
  buildTileLoops(b, loc, lines, [&](OpBuilder &lb, Location ll, ValueRange ivs) {
    scf::ForOp::create(
        lb, ll, indexConst(lb, ll, 0), indexConst(lb, ll, n),
        indexConst(lb, ll, 1), ValueRange{reduceIdentity(lb, ll, kind, elt)},
        [&](OpBuilder &eb, Location el, Value k, ValueRange carry) {
          SmallVector<Value> idx(ivs);
          idx[dim] = reverse ? arith::SubIOp::create(
                                   eb, el, indexConst(eb, el, n - 1), k)
                             : k;
          Value x = memref::LoadOp::create(eb, el, src,
                                           addOffsets(eb, el, srcOffsets, idx));
          Value acc = reduceCombine(eb, el, kind, carry[0], x);
          memref::StoreOp::create(eb, el, acc, dst,
                                  addOffsets(eb, el, dstOffsets, idx));
          scf::YieldOp::create(eb, el, acc);
        });
  });
}

} // namespace mlir::tile
