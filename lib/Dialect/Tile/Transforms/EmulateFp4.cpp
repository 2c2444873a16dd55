//===- EmulateFp4.cpp - tile-emulate-fp4 ----------------------------------===//
//
// Buffers and tensors of f4E2M1FN hold two elements a byte, the element of
// even innermost index in the low nibble: TileLang's packing, and torch's
// float4_e2m1fn_x2. Once the tile ops are lowered every access to such a
// buffer is a memref.load / memref.store of one element; this pass gives
// each f4 memref its packed byte type (innermost extent halved, i8
// elements) and turns the accesses into byte accesses plus nibble
// arithmetic. A store into memory that other threads (or other CPU blocks)
// may write is two atomics on its byte, an `andi` that clears its nibble and
// an `ori` that sets it: each touches only its own nibble, so threads that
// write the two halves of one byte do not lose each other's value. Stores
// into a thread's own buffers (registers, stack) read, merge and write.
//
// Conversions between f4E2M1FN and f16 / bf16 / f32 / f64 become integer
// code with CUDA's semantics (cvt.rn.satfinite.e2m1x2 and its software
// twin in cuda_fp4.hpp, which TileLang's casts use): round to nearest,
// ties to even, magnitudes above 6 (infinities too) saturate to +-6, NaN
// becomes +6. No target before sm_100 has an fp4 conversion instruction.
// Scalar f4 values become i4 along the way.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/bit.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEEMULATEFP4
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

#define DEBUG_TYPE "tile-emulate-fp4"

using namespace mlir;
using namespace mlir::tile;

namespace {

bool isFp4(Type t) { return isa<Float4E2M1FNType>(getElementTypeOrSelf(t)); }

/// Whether `t` is or holds f4E2M1FN (scalars, vectors, memrefs).
bool mentionsFp4(Type t) {
  if (auto m = dyn_cast<MemRefType>(t))
    return isFp4(m.getElementType());
  return isFp4(t);
}

/// The innermost extent of a packed buffer of `n` f4 elements: whole bytes
/// (an odd extent only reaches here for a thread's own buffers, see
/// checkPackable).
int64_t packedExtent(int64_t n) {
  return ShapedType::isDynamic(n) ? n : (n + 1) / 2;
}

/// The byte memref of an f4 memref; null when its layout cannot be packed
/// (innermost stride other than 1, odd strides or offset).
MemRefType packedMemRefType(MemRefType type) {
  MLIRContext *ctx = type.getContext();
  Type i8 = IntegerType::get(ctx, 8);
  SmallVector<int64_t> shape(type.getShape());
  if (!shape.empty())
    shape.back() = packedExtent(shape.back());
  MemRefLayoutAttrInterface layout = type.getLayout();
  if (!layout.isIdentity()) {
    auto strided = dyn_cast<StridedLayoutAttr>(layout);
    if (!strided)
      return nullptr;
    SmallVector<int64_t> strides(strided.getStrides());
    if (!strides.empty() && strides.back() != 1)
      return nullptr;
    for (int64_t &s : MutableArrayRef<int64_t>(strides).drop_back()) {
      if (ShapedType::isDynamic(s))
        continue;
      if (s % 2 != 0)
        return nullptr;
      s /= 2;
    }
    int64_t offset = strided.getOffset();
    if (!ShapedType::isDynamic(offset)) {
      if (offset % 2 != 0)
        return nullptr;
      offset /= 2;
    }
    layout = StridedLayoutAttr::get(ctx, offset, strides);
  }
  return MemRefType::get(shape, i8, layout, type.getMemorySpace());
}

class Fp4TypeConverter : public TypeConverter {
public:
  Fp4TypeConverter() {
    addConversion([](Type t) { return t; });
    addConversion([](Float4E2M1FNType t) -> Type {
      return IntegerType::get(t.getContext(), 4);
    });
    addConversion([](VectorType t) -> Type {
      if (!isFp4(t))
        return t;
      return t.clone(IntegerType::get(t.getContext(), 4));
    });
    addConversion([](MemRefType t) -> std::optional<Type> {
      if (!isFp4(t.getElementType()))
        return t;
      if (MemRefType packed = packedMemRefType(t))
        return Type(packed);
      return Type();
    });
  }
};

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// An integer constant of `type` (a scalar or a vector splat).
Value intConst(OpBuilder &b, Location loc, Type type, int64_t v) {
  Type elt = getElementTypeOrSelf(type);
  auto attr = IntegerAttr::get(elt, v);
  if (auto vt = dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vt, attr));
  return arith::ConstantOp::create(b, loc, attr);
}

Type withElement(Type like, Type elt) {
  if (auto vt = dyn_cast<VectorType>(like))
    return vt.clone(elt);
  return elt;
}

/// `v` / 2 as an OpFoldResult (exact for the even values checkPackable lets
/// through; rounded up for the sizes of a thread's own buffers).
OpFoldResult halve(OpBuilder &b, Location loc, OpFoldResult v, bool ceil) {
  if (std::optional<int64_t> c = getConstantIntValue(v))
    return b.getIndexAttr(ceil ? (*c + 1) / 2 : *c / 2);
  Value x = cast<Value>(v);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  if (ceil)
    x = arith::AddIOp::create(b, loc, x, one);
  return arith::ShRUIOp::create(b, loc, x, one).getResult();
}

Value halveValue(OpBuilder &b, Location loc, Value v, bool ceil) {
  return getValueOrCreateConstantIndexOp(b, loc, halve(b, loc, v, ceil));
}

/// Where the element at innermost index `j` sits in its byte: the shift (0
/// or 4) as an i8.
Value nibbleShift(OpBuilder &b, Location loc, Value j) {
  Value odd = arith::AndIOp::create(b, loc, j,
                                    arith::ConstantIndexOp::create(b, loc, 1));
  Value odd8 = arith::IndexCastUIOp::create(b, loc, b.getI8Type(), odd);
  return arith::ShLIOp::create(b, loc, odd8, intConst(b, loc, b.getI8Type(), 2));
}

/// Whether `buffer` is memory of one thread (registers, a stack array, a
/// CPU block's buffers, which one worker thread runs): not global tensors,
/// not GPU shared memory.
bool isThreadPrivate(Value buffer) {
  while (Operation *def = buffer.getDefiningOp()) {
    if (isa<memref::AllocaOp>(def))
      return true;
    if (auto alloc = dyn_cast<memref::AllocOp>(def)) {
      auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(
          alloc.getType().getMemorySpace());
      return !space || space.getValue() == gpu::AddressSpace::Private;
    }
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      return false;
    buffer = view.getViewSource();
  }
  return false;
}

//===----------------------------------------------------------------------===//
// Accesses
//===----------------------------------------------------------------------===//

struct LoadLowering : public OpConversionPattern<memref::LoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(memref::LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isFp4(op.getMemRefType().getElementType()))
      return failure();
    Location loc = op.getLoc();
    SmallVector<Value> idx(adaptor.getIndices());
    Value shift = intConst(rewriter, loc, rewriter.getI8Type(), 0);
    if (!idx.empty()) {
      shift = nibbleShift(rewriter, loc, idx.back());
      idx.back() = halveValue(rewriter, loc, idx.back(), /*ceil=*/false);
    }
    Value byte =
        memref::LoadOp::create(rewriter, loc, adaptor.getMemref(), idx);
    Value nibble = arith::ShRUIOp::create(rewriter, loc, byte, shift);
    rewriter.replaceOpWithNewOp<arith::TruncIOp>(op, rewriter.getI4Type(),
                                                 nibble);
    return success();
  }
};

struct StoreLowering : public OpConversionPattern<memref::StoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(memref::StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isFp4(op.getMemRefType().getElementType()))
      return failure();
    Location loc = op.getLoc();
    Type i8 = rewriter.getI8Type();
    SmallVector<Value> idx(adaptor.getIndices());
    Value shift = intConst(rewriter, loc, i8, 0);
    if (!idx.empty()) {
      shift = nibbleShift(rewriter, loc, idx.back());
      idx.back() = halveValue(rewriter, loc, idx.back(), /*ceil=*/false);
    }
    Value bits = arith::ShLIOp::create(
        rewriter, loc, arith::ExtUIOp::create(rewriter, loc, i8, adaptor.getValue()),
        shift);
    Value mask =
        arith::ShLIOp::create(rewriter, loc, intConst(rewriter, loc, i8, 0x0F), shift);
    Value keep =
        arith::XOrIOp::create(rewriter, loc, mask, intConst(rewriter, loc, i8, -1));
    Value mem = adaptor.getMemref();
    if (isThreadPrivate(op.getMemref())) {
      Value old = memref::LoadOp::create(rewriter, loc, mem, idx);
      Value merged = arith::OrIOp::create(
          rewriter, loc, arith::AndIOp::create(rewriter, loc, old, keep), bits);
      rewriter.replaceOpWithNewOp<memref::StoreOp>(op, merged, mem, idx);
      return success();
    }
    memref::AtomicRMWOp::create(rewriter, loc, arith::AtomicRMWKind::andi, keep,
                                mem, idx);
    memref::AtomicRMWOp::create(rewriter, loc, arith::AtomicRMWKind::ori, bits,
                                mem, idx);
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Buffers and views
//===----------------------------------------------------------------------===//

/// The dynamic sizes of a packed buffer: the innermost one halved.
SmallVector<Value> packedDynamicSizes(OpBuilder &b, Location loc,
                                      MemRefType type, ValueRange sizes,
                                      bool ceil) {
  SmallVector<Value> out(sizes);
  if (!out.empty() && type.getRank() > 0 && type.isDynamicDim(type.getRank() - 1))
    out.back() = halveValue(b, loc, out.back(), ceil);
  return out;
}

template <typename AllocT>
struct AllocLowering : public OpConversionPattern<AllocT> {
  using OpConversionPattern<AllocT>::OpConversionPattern;
  using OpAdaptor = typename AllocT::Adaptor;
  LogicalResult
  matchAndRewrite(AllocT op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MemRefType type = op.getType();
    if (!isFp4(type.getElementType()))
      return failure();
    auto packed = this->getTypeConverter()->template convertType<MemRefType>(type);
    if (!packed)
      return failure();
    SmallVector<Value> sizes = packedDynamicSizes(
        rewriter, op.getLoc(), type, adaptor.getDynamicSizes(), /*ceil=*/true);
    rewriter.replaceOpWithNewOp<AllocT>(op, packed, sizes,
                                        adaptor.getSymbolOperands(),
                                        op.getAlignmentAttr());
    return success();
  }
};

struct ViewLowering : public OpConversionPattern<memref::ViewOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(memref::ViewOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MemRefType type = op.getType();
    if (!isFp4(type.getElementType()))
      return failure();
    auto packed = getTypeConverter()->convertType<MemRefType>(type);
    if (!packed)
      return failure();
    SmallVector<Value> sizes = packedDynamicSizes(
        rewriter, op.getLoc(), type, adaptor.getSizes(), /*ceil=*/false);
    rewriter.replaceOpWithNewOp<memref::ViewOp>(
        op, packed, adaptor.getSource(), adaptor.getByteShift(), sizes);
    return success();
  }
};

struct SubViewLowering : public OpConversionPattern<memref::SubViewOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(memref::SubViewOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MemRefType srcType = op.getSourceType();
    if (!isFp4(srcType.getElementType()))
      return failure();
    auto packed = getTypeConverter()->convertType<MemRefType>(op.getType());
    if (!packed)
      return failure();
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> offsets = op.getMixedOffsets();
    SmallVector<OpFoldResult> sizes = op.getMixedSizes();
    SmallVector<OpFoldResult> strides = op.getMixedStrides();
    offsets.back() = halve(rewriter, loc, offsets.back(), /*ceil=*/false);
    sizes.back() = halve(rewriter, loc, sizes.back(), /*ceil=*/false);
    rewriter.replaceOpWithNewOp<memref::SubViewOp>(
        op, packed, adaptor.getSource(), offsets, sizes, strides);
    return success();
  }
};

struct ReinterpretCastLowering
    : public OpConversionPattern<memref::ReinterpretCastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(memref::ReinterpretCastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MemRefType type = op.getType();
    if (!isFp4(type.getElementType()))
      return failure();
    auto packed = getTypeConverter()->convertType<MemRefType>(type);
    if (!packed || type.getRank() == 0)
      return failure();
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> sizes = op.getMixedSizes();
    SmallVector<OpFoldResult> strides = op.getMixedStrides();
    OpFoldResult offset =
        halve(rewriter, loc, op.getMixedOffsets().front(), /*ceil=*/false);
    sizes.back() = halve(rewriter, loc, sizes.back(), /*ceil=*/false);
    for (OpFoldResult &s : MutableArrayRef<OpFoldResult>(strides).drop_back())
      s = halve(rewriter, loc, s, /*ceil=*/false);
    rewriter.replaceOpWithNewOp<memref::ReinterpretCastOp>(
        op, packed, adaptor.getSource(), offset, sizes, strides);
    return success();
  }
};

struct DimLowering : public OpConversionPattern<memref::DimOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(memref::DimOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<MemRefType>(op.getSource().getType());
    if (!type || !isFp4(type.getElementType()))
      return failure();
    std::optional<int64_t> dim = op.getConstantIndex();
    if (!dim)
      return rewriter.notifyMatchFailure(op, "dimension not constant");
    Value size = memref::DimOp::create(rewriter, op.getLoc(),
                                       adaptor.getSource(), *dim);
    if (*dim == type.getRank() - 1)
      size = arith::MulIOp::create(
          rewriter, op.getLoc(), size,
          arith::ConstantIndexOp::create(rewriter, op.getLoc(), 2));
    rewriter.replaceOp(op, size);
    return success();
  }
};

/// Ops whose meaning does not depend on the element type: the same op on
/// the converted types.
struct RetypeLowering : public ConversionPattern {
  RetypeLowering(const TypeConverter &tc, MLIRContext *ctx)
      : ConversionPattern(tc, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<memref::CastOp, memref::AssumeAlignmentOp, memref::CopyOp,
             memref::ExtractAlignedPointerAsIndexOp, arith::SelectOp,
             vector::ExtractOp, vector::InsertOp, vector::FromElementsOp,
             vector::BroadcastOp>(op))
      return failure();
    SmallVector<Type> types;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(), types)))
      return failure();
    OperationState state(op->getLoc(), op->getName(), operands, types,
                         op->getAttrs(), op->getSuccessors());
    rewriter.replaceOp(op, rewriter.create(state)->getResults());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Values and conversions
//===----------------------------------------------------------------------===//

struct ConstantLowering : public OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isFp4(op.getType()))
      return failure();
    Type i4 = rewriter.getI4Type();
    Type type = getTypeConverter()->convertType(op.getType());
    if (auto f = dyn_cast<FloatAttr>(op.getValue())) {
      rewriter.replaceOpWithNewOp<arith::ConstantOp>(
          op, IntegerAttr::get(i4, f.getValue().bitcastToAPInt()));
      return success();
    }
    auto dense = dyn_cast<DenseFPElementsAttr>(op.getValue());
    if (!dense)
      return failure();
    SmallVector<APInt> bits;
    for (APFloat v : dense.getValues<APFloat>())
      bits.push_back(v.bitcastToAPInt());
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, DenseElementsAttr::get(cast<ShapedType>(type), bits));
    return success();
  }
};

/// Bitcasts between f4E2M1FN and i4 are the identity on the converted types.
struct BitcastLowering : public OpConversionPattern<arith::BitcastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::BitcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isFp4(op.getType()) && !isFp4(op.getIn().getType()))
      return failure();
    rewriter.replaceOp(op, adaptor.getIn());
    return success();
  }
};

/// f4E2M1FN (as i4 codes) to f32: sign, exponent (bias 1) and mantissa bit
/// placed in an f32; exponent 0 is 0 or 0.5.
Value fp4ToF32(OpBuilder &b, Location loc, Value code) {
  Type i32 = withElement(code.getType(), b.getI32Type());
  auto c = [&](int64_t v) { return intConst(b, loc, i32, v); };
  Value x = arith::ExtUIOp::create(b, loc, i32, code);
  Value sign = arith::ShLIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, x, c(3)), c(31));
  Value exp = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, x, c(1)), c(3));
  Value man = arith::AndIOp::create(b, loc, x, c(1));
  Value normal = arith::OrIOp::create(
      b, loc,
      arith::ShLIOp::create(b, loc, arith::AddIOp::create(b, loc, exp, c(126)),
                            c(23)),
      arith::ShLIOp::create(b, loc, man, c(22)));
  Value half = arith::MulIOp::create(
      b, loc, man, c(llvm::bit_cast<uint32_t>(0.5f)));
  Value isSub = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, exp, c(0));
  Value mag = arith::SelectOp::create(b, loc, isSub, half, normal);
  Value bits = arith::OrIOp::create(b, loc, mag, sign);
  return arith::BitcastOp::create(
      b, loc, withElement(code.getType(), b.getF32Type()), bits);
}

struct ExtFLowering : public OpConversionPattern<arith::ExtFOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::ExtFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isFp4(op.getIn().getType()))
      return failure();
    Location loc = op.getLoc();
    Value f = fp4ToF32(rewriter, loc, adaptor.getIn());
    Type out = getElementTypeOrSelf(op.getType());
    // Every f4 value is exact in f16, bf16, f32 and f64.
    if (out.getIntOrFloatBitWidth() > 32)
      f = arith::ExtFOp::create(rewriter, loc, op.getType(), f);
    else if (!out.isF32())
      f = arith::TruncFOp::create(rewriter, loc, op.getType(), f);
    rewriter.replaceOp(op, f);
    return success();
  }
};

/// The bits of `v` as a float of the width of `type`'s element type.
template <typename FloatT, typename IntT>
IntT bitsOf(FloatT v) {
  return llvm::bit_cast<IntT>(v);
}

/// A float (f32 or f64) to f4E2M1FN codes: the magnitude's code is the
/// number of rounding boundaries it passes (ties go to the even code:
/// 0.25 -> 0, 0.75 -> 1.0, 1.25 -> 1.0, 1.75 -> 2, 2.5 -> 2, 3.5 -> 4,
/// 5 -> 4); comparing the bits of |x| as unsigned integers orders NaN above
/// everything, so it saturates like infinity, and loses its sign.
Value floatToFp4(OpBuilder &b, Location loc, Value x) {
  bool wide = getElementTypeOrSelf(x.getType()).isF64();
  unsigned width = wide ? 64 : 32;
  Type it = withElement(x.getType(), b.getIntegerType(width));
  auto c = [&](int64_t v) { return intConst(b, loc, it, v); };
  auto boundary = [&](double v) -> int64_t {
    return wide ? int64_t(bitsOf<double, uint64_t>(v))
                : int64_t(bitsOf<float, uint32_t>(float(v)));
  };
  Value bits = arith::BitcastOp::create(b, loc, it, x);
  Value sign = arith::ShRUIOp::create(b, loc, bits, c(width - 1));
  Value mag = arith::AndIOp::create(
      b, loc, bits, c(int64_t((uint64_t(1) << (width - 1)) - 1)));
  using P = arith::CmpIPredicate;
  const std::pair<double, P> steps[] = {
      {0.25, P::ugt}, {0.75, P::uge}, {1.25, P::ugt}, {1.75, P::uge},
      {2.5, P::ugt},  {3.5, P::uge},  {5.0, P::ugt}};
  Value code = c(0);
  for (auto [v, pred] : steps) {
    Value passed = arith::CmpIOp::create(b, loc, pred, mag, c(boundary(v)));
    code = arith::AddIOp::create(b, loc, code,
                                 arith::ExtUIOp::create(b, loc, it, passed));
  }
  Value inf = c(wide ? int64_t(0x7FF0000000000000ULL) : int64_t(0x7F800000));
  Value nan = arith::CmpIOp::create(b, loc, P::ugt, mag, inf);
  sign = arith::SelectOp::create(b, loc, nan, c(0), sign);
  code = arith::OrIOp::create(b, loc, code,
                              arith::ShLIOp::create(b, loc, sign, c(3)));
  return arith::TruncIOp::create(
      b, loc, withElement(x.getType(), b.getI4Type()), code);
}

struct TruncFLowering : public OpConversionPattern<arith::TruncFOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::TruncFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isFp4(op.getType()))
      return failure();
    Location loc = op.getLoc();
    Value x = adaptor.getIn();
    Type elt = getElementTypeOrSelf(x.getType());
    // f16, bf16 and the f8 types are exact in f32.
    if (!elt.isF32() && !elt.isF64())
      x = arith::ExtFOp::create(rewriter, loc,
                                withElement(x.getType(), rewriter.getF32Type()),
                                x);
    rewriter.replaceOp(op, floatToFp4(rewriter, loc, x));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

bool opMentionsFp4(Operation *op) {
  auto any = [](TypeRange types) { return llvm::any_of(types, mentionsFp4); };
  if (any(op->getOperandTypes()) || any(op->getResultTypes()))
    return true;
  for (Region &r : op->getRegions())
    for (Block &block : r)
      if (any(block.getArgumentTypes()))
        return true;
  if (auto fn = dyn_cast<FunctionOpInterface>(op))
    return any(fn.getArgumentTypes()) || any(fn.getResultTypes());
  return false;
}

/// Reports what cannot hold f4 elements two a byte: tensors, views and
/// shared buffers whose innermost extent or offset is odd (a byte would be
/// split between them), innermost strides other than 1, and ops on f4
/// values that only conversions may touch.
LogicalResult checkPackable(ModuleOp module) {
  bool failed = false;
  auto odd = [](int64_t v) { return !ShapedType::isDynamic(v) && v % 2 != 0; };
  auto innermostOdd = [&](Type t) {
    auto m = dyn_cast<MemRefType>(t);
    return m && isFp4(m.getElementType()) && m.getRank() > 0 &&
           odd(m.getShape().back());
  };
  auto unpackable = [&](Type t) {
    auto m = dyn_cast<MemRefType>(t);
    return m && isFp4(m.getElementType()) && !packedMemRefType(m);
  };
  const char *why = "float4_e2m1fn elements are stored two a byte";
  module.walk([&](Operation *op) {
    if (auto fn = dyn_cast<FunctionOpInterface>(op)) {
      for (auto [i, t] : llvm::enumerate(fn.getArgumentTypes()))
        if (innermostOdd(t) || unpackable(t)) {
          op->emitError() << "argument " << i << " of type " << t << ": " << why
                          << ", so a tensor needs an even innermost extent "
                             "and unit innermost stride";
          failed = true;
        }
      return;
    }
    if (!opMentionsFp4(op))
      return;
    for (Type t : op->getResultTypes())
      if (unpackable(t) || (innermostOdd(t) && !isa<memref::AllocaOp>(op))) {
        op->emitOpError() << "makes a buffer of type " << t << ": " << why
                          << ", so a buffer or view needs an even innermost "
                             "extent and offset, and unit innermost stride";
        failed = true;
        return;
      }
    if (auto sub = dyn_cast<memref::SubViewOp>(op)) {
      int64_t last = sub.getSourceType().getRank() - 1;
      std::optional<int64_t> off = getConstantIntValue(sub.getMixedOffsets()[last]);
      std::optional<int64_t> size = getConstantIntValue(sub.getMixedSizes()[last]);
      if ((off && *off % 2) || (size && *size % 2) ||
          !isConstantIntValue(sub.getMixedStrides()[last], 1) ||
          sub.getType().getRank() != sub.getSourceType().getRank()) {
        op->emitOpError() << "takes a region of a float4_e2m1fn buffer that "
                             "splits a byte: "
                          << why << ", so a region needs an even innermost "
                                    "offset and extent, and unit stride";
        failed = true;
      }
      return;
    }
    if (isa<memref::LoadOp, memref::StoreOp, memref::AllocOp,
            memref::AllocaOp, memref::ViewOp, memref::ReinterpretCastOp,
            memref::DimOp, memref::CastOp, memref::AssumeAlignmentOp,
            memref::CopyOp, memref::ExtractAlignedPointerAsIndexOp,
            arith::ConstantOp, arith::BitcastOp, arith::ExtFOp,
            arith::TruncFOp, arith::SelectOp, vector::ExtractOp,
            vector::InsertOp, vector::FromElementsOp, vector::BroadcastOp,
            func::ReturnOp, func::CallOp,
            scf::ForOp, scf::IfOp, scf::WhileOp, scf::YieldOp,
            scf::ConditionOp>(op))
      return;
    op->emitOpError() << "on float4_e2m1fn values is not supported: "
                      << "convert them to a wider float type first";
    failed = true;
  });
  return failure(failed);
}

struct TileEmulateFp4Pass
    : public tile::impl::TileEmulateFp4Base<TileEmulateFp4Pass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    bool any = false;
    module.walk([&](Operation *op) {
      any = opMentionsFp4(op);
      return any ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (!any)
      return;
    if (failed(checkPackable(module)))
      return signalPassFailure();

    Fp4TypeConverter converter;
    ConversionTarget target(*ctx);
    target.markUnknownOpDynamicallyLegal(
        [](Operation *op) { return !opMentionsFp4(op); });
    RewritePatternSet patterns(ctx);
    patterns.add<LoadLowering, StoreLowering, AllocLowering<memref::AllocOp>,
                 AllocLowering<memref::AllocaOp>, ViewLowering,
                 SubViewLowering, ReinterpretCastLowering, DimLowering,
                 ConstantLowering, BitcastLowering, ExtFLowering,
                 TruncFLowering>(converter, ctx);
    patterns.add<RetypeLowering>(converter, ctx);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                  converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    populateCallOpTypeConversionPattern(patterns, converter);
    scf::populateSCFStructuralTypeConversions(converter, patterns);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
