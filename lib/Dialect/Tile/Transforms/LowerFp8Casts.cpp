//===- LowerFp8Casts.cpp - tile-lower-fp8-casts ---------------------------===//
//
// LLVM IR has no 8-bit float types: the LLVM type converter stores
// f8E4M3FN and f8E5M2 values as i8, and `arith-to-llvm` has no lowering
// for the arith ops that compute on them or convert to and from them. This
// pass leaves only byte moves: arithmetic on f8 values is done in f32
// (upstream's emulate-unsupported-floats patterns), and the conversions
// between f8 and the other types become
//  - on sm_90a, the cvt instructions (`nvvm.convert.f32x2.to.f8x2`,
//    `cvt.rn.satfinite.{e4m3,e5m2}x2.f32`, and
//    `nvvm.convert.f8x2.to.f16x2`);
//  - on the other targets (sm_80 has no fp8 conversion; the CPU), integer
//    code that computes the same.
// Both follow CUDA's `__nv_fp8_e4m3(float)` / `__nv_fp8_e5m2(float)`,
// which TileLang's casts compile to: round to nearest, ties to even;
// magnitudes beyond the largest finite value (448, 57344) and infinities
// saturate to it; NaN stays NaN (0x7f with its sign).
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "tile/Target/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/bit.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILELOWERFP8CASTS
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

bool isFp8(Type t) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(getElementTypeOrSelf(t));
}

/// The encoding of an 8-bit float type: exponent bias, mantissa bits and
/// the code of its largest finite magnitude.
struct Fp8Format {
  int64_t bias;
  int64_t mantissaBits;
  int64_t maxFiniteCode;
  bool hasInfinity;
};

Fp8Format formatOf(Type t) {
  if (isa<Float8E4M3FNType>(t))
    return {7, 3, 0x7e, false};
  return {15, 2, 0x7b, true};
}

Value i32Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, v, 32);
}

Value f32Const(OpBuilder &b, Location loc, float v) {
  return arith::ConstantFloatOp::create(b, loc, b.getF32Type(), APFloat(v));
}

/// `x` (a scalar of f16, bf16, f32 or f64) as f32. f16 and bf16 are exact;
/// f64 is rounded once to f32 first.
Value toF32(OpBuilder &b, Location loc, Value x) {
  Type t = x.getType();
  if (t.isF32())
    return x;
  if (t.getIntOrFloatBitWidth() > 32)
    return arith::TruncFOp::create(b, loc, b.getF32Type(), x);
  return arith::ExtFOp::create(b, loc, b.getF32Type(), x);
}

/// `x` (an f32 scalar holding a value exact in `to`) as a scalar of `to`.
Value fromF32(OpBuilder &b, Location loc, Value x, Type to) {
  if (to.isF32())
    return x;
  if (to.getIntOrFloatBitWidth() > 32)
    return arith::ExtFOp::create(b, loc, to, x);
  return arith::TruncFOp::create(b, loc, to, x);
}

//===----------------------------------------------------------------------===//
// Integer code (every target)
//===----------------------------------------------------------------------===//

/// The f8 code (an i8) of the f32 `x`, rounded to nearest even with
/// saturation to the largest finite value.
Value f32ToFp8Code(OpBuilder &b, Location loc, Value x, Fp8Format f) {
  using P = arith::CmpIPredicate;
  auto c = [&](int64_t v) { return i32Const(b, loc, v); };
  Value bits = arith::BitcastOp::create(b, loc, b.getI32Type(), x);
  Value sign = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, bits, c(24)), c(0x80));
  Value mag = arith::AndIOp::create(b, loc, bits, c(0x7fffffff));
  // Normal results: round the f32 mantissa to `mantissaBits` (ties to even)
  // by adding half an ulp less one plus the kept lowest bit, then rebias.
  int64_t drop = 23 - f.mantissaBits;
  Value odd = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, mag, c(drop)), c(1));
  Value rounded = arith::AddIOp::create(
      b, loc, mag,
      arith::AddIOp::create(b, loc, c((int64_t(1) << (drop - 1)) - 1), odd));
  Value normal = arith::SubIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, rounded, c(drop)),
      c((127 - f.bias) << f.mantissaBits));
  // Subnormal results: |x| in units of the smallest subnormal, rounded to
  // an integer by the f32 adder (2^23 + v rounds v to nearest even).
  Value absX = arith::BitcastOp::create(b, loc, b.getF32Type(), mag);
  float unit = std::ldexp(1.0f, int(f.bias - 1 + f.mantissaBits));
  Value scaled = arith::MulFOp::create(b, loc, absX, f32Const(b, loc, unit));
  Value magic = f32Const(b, loc, 8388608.0f);
  Value sub = arith::SubIOp::create(
      b, loc,
      arith::BitcastOp::create(
          b, loc, b.getI32Type(),
          arith::AddFOp::create(b, loc, scaled, magic)),
      arith::BitcastOp::create(b, loc, b.getI32Type(), magic));
  int64_t minNormal = (127 + 1 - f.bias) << 23;
  Value isSub = arith::CmpIOp::create(b, loc, P::ult, mag, c(minNormal));
  Value code = arith::SelectOp::create(b, loc, isSub, sub, normal);
  Value over = arith::CmpIOp::create(b, loc, P::ugt, code, c(f.maxFiniteCode));
  code = arith::SelectOp::create(b, loc, over, c(f.maxFiniteCode), code);
  Value nan = arith::CmpIOp::create(b, loc, P::ugt, mag, c(0x7f800000));
  code = arith::SelectOp::create(b, loc, nan, c(0x7f), code);
  code = arith::OrIOp::create(b, loc, code, sign);
  return arith::TruncIOp::create(b, loc, b.getI8Type(), code);
}

/// The f32 value of the f8 code `code` (an i8).
Value fp8CodeToF32(OpBuilder &b, Location loc, Value code, Fp8Format f) {
  using P = arith::CmpIPredicate;
  auto c = [&](int64_t v) { return i32Const(b, loc, v); };
  Value w = arith::ExtUIOp::create(b, loc, b.getI32Type(), code);
  Value sign = arith::ShLIOp::create(
      b, loc, arith::AndIOp::create(b, loc, w, c(0x80)), c(24));
  Value mag = arith::AndIOp::create(b, loc, w, c(0x7f));
  int64_t m = f.mantissaBits;
  // Normal: the exponent rebiased, the mantissa moved to the top.
  Value normal = arith::ShLIOp::create(
      b, loc, arith::AddIOp::create(b, loc, mag, c((127 - f.bias) << m)),
      c(23 - m));
  // Subnormal: the mantissa times the smallest subnormal (exact).
  float unit = std::ldexp(1.0f, int(1 - f.bias - m));
  Value sub = arith::BitcastOp::create(
      b, loc, b.getI32Type(),
      arith::MulFOp::create(
          b, loc, arith::UIToFPOp::create(b, loc, b.getF32Type(), mag),
          f32Const(b, loc, unit)));
  Value isSub = arith::CmpIOp::create(b, loc, P::ult, mag, c(int64_t(1) << m));
  Value bits = arith::SelectOp::create(b, loc, isSub, sub, normal);
  // Top exponent: e5m2's infinities and NaNs; e4m3fn's only NaN is 0x7f.
  int64_t special = f.hasInfinity ? (0x7f & ~((int64_t(1) << m) - 1)) : 0x7f;
  Value isSpecial = arith::CmpIOp::create(b, loc, P::uge, mag, c(special));
  Value inf = arith::CmpIOp::create(b, loc, P::eq, mag, c(special));
  Value top = f.hasInfinity
                  ? arith::SelectOp::create(b, loc, inf, c(0x7f800000),
                                            c(0x7fc00000))
                  : c(0x7fc00000);
  bits = arith::SelectOp::create(b, loc, isSpecial, top, bits);
  bits = arith::OrIOp::create(b, loc, bits, sign);
  return arith::BitcastOp::create(b, loc, b.getF32Type(), bits);
}

//===----------------------------------------------------------------------===//
// The cvt instructions (sm_90a)
//===----------------------------------------------------------------------===//

/// The f8 codes (i8) of the f32 values `lo` and `hi`, one instruction.
std::pair<Value, Value> cvtF32x2ToFp8(OpBuilder &b, Location loc, Value lo,
                                      Value hi, Type fp8) {
  // The i16 result holds the conversion of its first operand in its upper
  // byte.
  Value packed = NVVM::ConvertF32x2ToF8x2Op::create(
      b, loc, b.getI16Type(), hi, lo, NVVM::FPRoundingMode::RN,
      NVVM::SaturationMode::SATFINITE, /*relu=*/false, fp8);
  Type i8 = b.getI8Type();
  Value low = arith::TruncIOp::create(b, loc, i8, packed);
  Value high = arith::TruncIOp::create(
      b, loc, i8,
      arith::ShRUIOp::create(b, loc, packed,
                             arith::ConstantIntOp::create(b, loc, 8, 16)));
  return {low, high};
}

/// The f32 values of the f8 codes `lo` and `hi` (i8), one instruction;
/// the second is null unless `both`.
std::pair<Value, Value> cvtFp8x2ToF32(OpBuilder &b, Location loc, Value lo,
                                      Value hi, Type fp8, bool both) {
  auto pairType = VectorType::get({2}, b.getI8Type());
  Value pair = vector::FromElementsOp::create(b, loc, pairType,
                                              ValueRange{lo, hi});
  Value halves = NVVM::ConvertF8x2ToF16x2Op::create(
      b, loc, VectorType::get({2}, b.getF16Type()), pair, /*relu=*/false, fp8);
  auto at = [&](int64_t i) {
    Value half =
        vector::ExtractOp::create(b, loc, halves, ArrayRef<int64_t>{i});
    return arith::ExtFOp::create(b, loc, b.getF32Type(), half).getResult();
  };
  Value first = at(0);
  return {first, both ? at(1) : Value()};
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

/// The scalars of `v` (itself when it is one).
SmallVector<Value> scalarsOf(OpBuilder &b, Location loc, Value v) {
  auto type = dyn_cast<VectorType>(v.getType());
  if (!type)
    return {v};
  SmallVector<Value> out;
  for (int64_t i = 0, e = type.getNumElements(); i < e; ++i) {
    SmallVector<int64_t> pos;
    int64_t rest = i;
    for (int64_t d = type.getRank() - 1; d >= 0; --d) {
      pos.insert(pos.begin(), rest % type.getDimSize(d));
      rest /= type.getDimSize(d);
    }
    out.push_back(vector::ExtractOp::create(b, loc, v, pos));
  }
  return out;
}

/// `scalars` as a value of `type` (a scalar or a vector of them).
Value fromScalars(OpBuilder &b, Location loc, Type type,
                  ArrayRef<Value> scalars) {
  if (!isa<VectorType>(type))
    return scalars.front();
  return vector::FromElementsOp::create(b, loc, type, scalars);
}

/// Converts the f8 scalars or vectors of a cast op pairwise.
struct Fp8CastLowering {
  bool useCvt;

  /// f32 scalars to f8 codes.
  SmallVector<Value> toCodes(OpBuilder &b, Location loc, ArrayRef<Value> xs,
                             Type fp8) const {
    SmallVector<Value> out;
    if (!useCvt) {
      for (Value x : xs)
        out.push_back(f32ToFp8Code(b, loc, x, formatOf(fp8)));
      return out;
    }
    for (size_t i = 0; i < xs.size(); i += 2) {
      Value hi = i + 1 < xs.size() ? xs[i + 1] : xs[i];
      auto [lo, high] = cvtF32x2ToFp8(b, loc, xs[i], hi, fp8);
      out.push_back(lo);
      if (i + 1 < xs.size())
        out.push_back(high);
    }
    return out;
  }

  /// f8 codes to f32 scalars.
  SmallVector<Value> fromCodes(OpBuilder &b, Location loc,
                               ArrayRef<Value> codes, Type fp8) const {
    SmallVector<Value> out;
    if (!useCvt) {
      for (Value code : codes)
        out.push_back(fp8CodeToF32(b, loc, code, formatOf(fp8)));
      return out;
    }
    for (size_t i = 0; i < codes.size(); i += 2) {
      Value hi = i + 1 < codes.size() ? codes[i + 1] : codes[i];
      auto [lo, high] =
          cvtFp8x2ToF32(b, loc, codes[i], hi, fp8, i + 1 < codes.size());
      out.push_back(lo);
      if (i + 1 < codes.size())
        out.push_back(high);
    }
    return out;
  }

  /// Rewrites `op` (one operand, one result, either side f8) as the
  /// conversion through f32 that `viaF32` finishes. Returns false when the
  /// op does not touch f8.
  bool rewrite(Operation *op) const {
    Value in = op->getOperand(0);
    Type outType = op->getResult(0).getType();
    bool fromFp8 = isFp8(in.getType()), toFp8 = isFp8(outType);
    if (!fromFp8 && !toFp8)
      return false;
    OpBuilder b(op);
    Location loc = op->getLoc();
    Type inElt = getElementTypeOrSelf(in.getType());
    Type outElt = getElementTypeOrSelf(outType);
    SmallVector<Value> xs = scalarsOf(b, loc, in);
    if (fromFp8) {
      for (Value &x : xs)
        x = arith::BitcastOp::create(b, loc, b.getI8Type(), x);
      xs = fromCodes(b, loc, xs, inElt);
    } else {
      for (Value &x : xs)
        if (isa<FloatType>(inElt))
          x = toF32(b, loc, x);
        else if (isa<arith::UIToFPOp>(op))
          x = arith::UIToFPOp::create(b, loc, b.getF32Type(), x);
        else
          x = arith::SIToFPOp::create(b, loc, b.getF32Type(), x);
    }
    if (toFp8) {
      xs = toCodes(b, loc, xs, outElt);
      for (Value &x : xs)
        x = arith::BitcastOp::create(b, loc, outElt, x);
    } else {
      for (Value &x : xs) {
        if (isa<arith::FPToSIOp>(op))
          x = arith::FPToSIOp::create(b, loc, outElt, x);
        else if (isa<arith::FPToUIOp>(op))
          x = arith::FPToUIOp::create(b, loc, outElt, x);
        else
          x = fromF32(b, loc, x, outElt);
      }
    }
    op->getResult(0).replaceAllUsesWith(fromScalars(b, loc, outType, xs));
    op->erase();
    return true;
  }
};

/// True when every use of `first`'s result comes after `second` in their
/// block (or inside ops after it), so that a value made at `second` may
/// replace it.
bool usesFollow(Operation *first, Operation *second) {
  Block *block = second->getBlock();
  return llvm::all_of(first->getUsers(), [&](Operation *user) {
    Operation *at = block->findAncestorOpInBlock(*user);
    return at && at != second && second->isBeforeInBlock(at);
  });
}

/// Scalar truncations from f32 to the same f8 type in one block, paired in
/// order where the first one's uses follow the second: each pair becomes
/// one cvt (an epilogue converts its registers two at a time).
void lowerTruncPairs(Operation *root) {
  DenseMap<std::pair<Block *, Type>, arith::TruncFOp> pending;
  SmallVector<std::pair<arith::TruncFOp, arith::TruncFOp>> pairs;
  root->walk([&](arith::TruncFOp op) {
    Type out = op.getType();
    if (!isFp8(out) || isa<VectorType>(out) || !op.getIn().getType().isF32())
      return;
    auto key = std::make_pair(op->getBlock(), out);
    auto it = pending.find(key);
    if (it != pending.end() && usesFollow(it->second, op)) {
      pairs.emplace_back(it->second, op);
      pending.erase(it);
      return;
    }
    pending[key] = op;
  });
  for (auto [first, second] : pairs) {
    OpBuilder b(second);
    Location loc = second.getLoc();
    Type fp8 = second.getType();
    auto [lo, hi] =
        cvtF32x2ToFp8(b, loc, first.getIn(), second.getIn(), fp8);
    Value low = arith::BitcastOp::create(b, loc, fp8, lo);
    Value high = arith::BitcastOp::create(b, loc, fp8, hi);
    first.getResult().replaceAllUsesWith(low);
    second.getResult().replaceAllUsesWith(high);
    first.erase();
    second.erase();
  }
}

/// Arithmetic on f8 values (adds, compares, min / max...) in f32, through
/// extf / truncf that the casts then lower.
LogicalResult emulateFp8Arithmetic(Operation *root) {
  MLIRContext *ctx = root->getContext();
  SmallVector<Type> fp8Types = {Float8E4M3FNType::get(ctx),
                                Float8E5M2Type::get(ctx)};
  TypeConverter converter;
  arith::populateEmulateUnsupportedFloatsConversions(converter, fp8Types,
                                                     Float32Type::get(ctx));
  RewritePatternSet patterns(ctx);
  arith::populateEmulateUnsupportedFloatsPatterns(patterns, converter);
  ConversionTarget target(*ctx);
  arith::populateEmulateUnsupportedFloatsLegality(target, converter);
  return applyPartialConversion(root, target, std::move(patterns));
}

struct TileLowerFp8CastsPass
    : public tile::impl::TileLowerFp8CastsBase<TileLowerFp8CastsPass> {
  using Base::Base;

  void runOnOperation() override {
    std::unique_ptr<TargetInfo> info = TargetInfo::get(target);
    if (!info) {
      getOperation()->emitError()
          << "unknown target '" << target << "'; expected one of "
          << TargetInfo::knownTargets();
      return signalPassFailure();
    }
    if (failed(emulateFp8Arithmetic(getOperation())))
      return signalPassFailure();
    Fp8CastLowering lowering{target == "sm_90a"};
    if (lowering.useCvt)
      lowerTruncPairs(getOperation());
    SmallVector<Operation *> casts;
    getOperation()->walk([&](Operation *op) {
      if (isa<arith::ExtFOp, arith::TruncFOp, arith::SIToFPOp,
              arith::UIToFPOp, arith::FPToSIOp, arith::FPToUIOp>(op))
        casts.push_back(op);
    });
    for (Operation *op : casts)
      lowering.rewrite(op);
  }
};

} // namespace
