//===- TileComputeOps.cpp - Gemms, fills, reductions, views, scans --------===//
//
// The tile ops that compute (gemms, fills, reductions, scans), views and
// tensors; TileOps.cpp has the kernel, the buffers and the copies,
// TileLoopOps.cpp the loops and the storage binding, TileOpsCommon.h what
// they share.
//
//===----------------------------------------------------------------------===//

#include "TileOpsCommon.h"

#include "tile/Dialect/Tile/IR/Layouts.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;

//===----------------------------------------------------------------------===//
// GemmOp / GemmSpOp
//===----------------------------------------------------------------------===//

int64_t GemmOp::getM() {
  MemRefType a = getA().getType();
  return a.getDimSize(getTransposeA() ? 1 : 0);
}
int64_t GemmOp::getK() {
  MemRefType a = getA().getType();
  return a.getDimSize(getTransposeA() ? 0 : 1);
}
int64_t GemmOp::getN() {
  MemRefType b = getB().getType();
  return b.getDimSize(getTransposeB() ? 0 : 1);
}

static LogicalResult verifyRank2(Operation *op, StringRef name,
                                 MemRefType type) {
  if (type.getRank() == 2)
    return success();
  return op->emitOpError() << "operand " << name << " must be a 2-d tile, got "
                           << type;
}

static LogicalResult verifyGemmOperands(Operation *op, MemRefType a,
                                        MemRefType b, MemRefType c) {
  if (failed(verifyRank2(op, "A", a)) || failed(verifyRank2(op, "B", b)) ||
      failed(verifyRank2(op, "C", c)))
    return failure();
  if (failed(
          verifyScope(op, "operand A", a, {Scope::Shared, Scope::Fragment})) ||
      failed(
          verifyScope(op, "operand B", b, {Scope::Shared, Scope::Fragment})) ||
      failed(verifyScope(op, "accumulator C", c, {Scope::Fragment})))
    return failure();
  return success();
}

/// The #tile.mma of a gemm (M x N x K, A of `aElt`), if it has one: the
/// instruction's shape and the warp partition must tile the gemm over the
/// kernel's warps.
/// An mfma choice: K of one instruction is getMfmaK's (m32n32k8 f16,
/// m16n16k32 i8, m32n32k2 f32), the waves' tiles are whole instructions,
/// one wave per 64 threads.
static LogicalResult verifyMfmaChoice(Operation *op, MmaAttr mma, int64_t m,
                                      int64_t n, int64_t k, int64_t bits) {
  int64_t wantK = getMfmaK(mma.getM(), bits);
  if (mma.getK() != wantK || k % wantK != 0)
    return op->emitOpError()
           << "has " << mma << ", whose K must be " << wantK << " for "
           << bits << "-bit inputs and divide the gemm's K (" << k << ")";
  int64_t rowsM, colsN, waves;
  if (llvm::MulOverflow(mma.getWarpsM(), mma.getM(), rowsM) ||
      llvm::MulOverflow(mma.getWarpsN(), mma.getN(), colsN) ||
      llvm::MulOverflow(mma.getWarpsM(), mma.getWarpsN(), waves) ||
      m % rowsM != 0 || n % colsN != 0)
    return op->emitOpError() << "has " << mma << ", which does not tile its "
                             << m << "x" << n << " output";
  auto kernel = op->getParentOfType<KernelOp>();
  if (kernel && (kernel.getThreads() % 64 != 0 ||
                 uint64_t(waves) != kernel.getThreads() / 64))
    return op->emitOpError()
           << "has " << mma << ", a partition over " << waves
           << " 64-lane wavefronts, but the kernel has "
           << kernel.getThreads() << " threads";
  return success();
}

static LogicalResult verifyMmaChoice(Operation *op, MmaAttr mma, int64_t m,
                                     int64_t n, int64_t k, Type aElt) {
  if (!mma)
    return success();
  int64_t bits = aElt.getIntOrFloatBitWidth();
  bool fp8 = isa<Float8E4M3FNType, Float8E5M2Type>(aElt);
  bool wgmma = mma.getKind() == MmaKind::Wgmma;
  if (mma.getKind() == MmaKind::Mfma)
    return verifyMfmaChoice(op, mma, m, n, k, bits);
  if (mma.getK() != 256 / bits || k % mma.getK() != 0)
    return op->emitOpError()
           << "has " << mma << ", whose K must be " << 256 / bits
           << " for inputs of " << aElt << " and divide the gemm's K (" << k
           << ")";
  // (Products of the attribute's fields may overflow: then nothing fits.)
  int64_t strips, rowsM, colsN, warps;
  bool overflow =
      llvm::MulOverflow(mma.getWarpsM(), int64_t{16}, strips) ||
      llvm::MulOverflow(strips, mma.getRepeats(), rowsM) ||
      llvm::MulOverflow(mma.getWarpsN(), int64_t{8}, colsN) ||
      llvm::MulOverflow(mma.getWarpsM(), mma.getWarpsN(), warps);
  if (overflow ||
      (wgmma ? (m != rowsM || n != mma.getN() * mma.getWarpsN())
             : (m % rowsM != 0 || n % colsN != 0)))
    return op->emitOpError() << "has " << mma << ", which does not tile its "
                             << m << "x" << n << " output";
  if (!wgmma && fp8)
    return op->emitOpError() << "has fp8 inputs, which run as wgmma only, but "
                             << mma << " asks for mma_sync";
  auto kernel = op->getParentOfType<KernelOp>();
  if (kernel && (kernel.getThreads() % 32 != 0 ||
                 uint64_t(warps) != kernel.getThreads() / 32))
    return op->emitOpError()
           << "has " << mma << ", a partition over " << warps
           << " warps, but the kernel has " << kernel.getThreads()
           << " threads";
  return success();
}

LogicalResult GemmOp::verify() {
  MemRefType a = getA().getType(), b = getB().getType(), c = getC().getType();
  if (failed(verifyGemmOperands(*this, a, b, c)))
    return failure();
  int64_t kb = b.getDimSize(getTransposeB() ? 1 : 0);
  if (getK() != kb)
    return emitOpError() << "K of A (" << getK() << ", A is " << a
                         << (getTransposeA() ? " transposed" : "")
                         << ") does not match K of B (" << kb << ", B is " << b
                         << (getTransposeB() ? " transposed" : "") << ")";
  if (c.getDimSize(0) != getM() || c.getDimSize(1) != getN())
    return emitOpError() << "accumulator C must be " << getM() << "x" << getN()
                         << " (M x N), got " << c;
  if (!isLegalGemmTypes(a.getElementType(), b.getElementType(),
                        c.getElementType(), /*sparse=*/false))
    return emitOpError() << "unsupported element types " << a.getElementType()
                         << " x " << b.getElementType() << " -> "
                         << c.getElementType()
                         << "; legal are: " << kLegalGemmTypes;
  return verifyMmaChoice(*this, getMmaAttr(), getM(), getN(), getK(),
                         a.getElementType());
}

LogicalResult GemmSpOp::verify() {
  MemRefType a = getA().getType(), e = getE().getType(), b = getB().getType(),
             c = getC().getType();
  if (failed(verifyGemmOperands(*this, a, b, c)) ||
      failed(verifyRank2(*this, "E", e)) ||
      failed(verifyScope(*this, "metadata E", e,
                         {Scope::Shared, Scope::Fragment})))
    return failure();
  int64_t k = b.getDimSize(getTransposeB() ? 1 : 0);
  int64_t n = b.getDimSize(getTransposeB() ? 0 : 1);
  int64_t m = a.getDimSize(0);
  if (k % 4 != 0)
    return emitOpError() << "K (" << k
                         << ") must be a multiple of 4 for 2:4 sparsity";
  if (a.getDimSize(1) * 2 != k)
    return emitOpError() << "compressed A must be M x K/2 = " << m << "x"
                         << k / 2 << " for K = " << k << " (from B), got " << a;
  auto metaType = dyn_cast<IntegerType>(e.getElementType());
  if (!metaType || !llvm::is_contained({8u, 16u, 32u}, metaType.getWidth()))
    return emitOpError() << "metadata E must have element type i8, i16 or "
                            "i32, got "
                         << e.getElementType();
  int64_t width = metaType.getWidth();
  if (k % width != 0 || e.getDimSize(0) != m || e.getDimSize(1) != k / width)
    return emitOpError() << "metadata E must be M x K/" << width << " = " << m
                         << "x" << (k / width) << " for K = " << k
                         << " and element type " << metaType << ", got " << e;
  if (c.getDimSize(0) != m || c.getDimSize(1) != n)
    return emitOpError() << "accumulator C must be " << m << "x" << n
                         << " (M x N), got " << c;
  if (!isLegalGemmTypes(a.getElementType(), b.getElementType(),
                        c.getElementType(), /*sparse=*/true))
    return emitOpError() << "unsupported element types " << a.getElementType()
                         << " x " << b.getElementType() << " -> "
                         << c.getElementType()
                         << " for a sparse gemm; legal are f16 x f16 -> f16 | "
                            "f32, bf16 x bf16 -> f32, fp8 x fp8 -> f32 | f16, "
                            "i8 x i8 -> i32";
  if (getMmaAttr() && getMmaAttr().getKind() != MmaKind::MmaSync)
    return emitOpError() << "runs as mma_sync on its expanded A, but has "
                         << getMmaAttr();
  return verifyMmaChoice(*this, getMmaAttr(), m, n, k, a.getElementType());
}

//===----------------------------------------------------------------------===//
// FillOp / ClearOp
//===----------------------------------------------------------------------===//

static constexpr std::initializer_list<Scope> kTileScopes = {
    Scope::Shared, Scope::Fragment, Scope::Local};

LogicalResult FillOp::verify() {
  MemRefType type = getBuffer().getType();
  if (failed(verifyScope(*this, "buffer", type, kTileScopes)))
    return failure();
  if (getValue().getType() != type.getElementType())
    return emitOpError() << "value type " << getValue().getType()
                         << " must be the buffer's element type "
                         << type.getElementType();
  return success();
}

namespace {
/// fill with +0 (or integer 0) is clear.
struct FillZeroToClear : public OpRewritePattern<FillOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FillOp op,
                                PatternRewriter &rewriter) const override {
    if (!matchPattern(op.getValue(), m_Zero()) &&
        !matchPattern(op.getValue(), m_PosZeroFloat()))
      return failure();
    rewriter.replaceOpWithNewOp<ClearOp>(op, op.getBuffer());
    return success();
  }
};
} // namespace

void FillOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  results.add<FillZeroToClear>(context);
}

LogicalResult ClearOp::verify() {
  return verifyScope(*this, "buffer", getBuffer().getType(), kTileScopes);
}

//===----------------------------------------------------------------------===//
// ReduceOp
//===----------------------------------------------------------------------===//

static ParseResult parseReduceKind(OpAsmParser &parser, ReduceKindAttr &kind) {
  llvm::SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<ReduceKind> value = symbolizeReduceKind(keyword);
  if (!value)
    return parser.emitError(loc)
           << "unknown reduction '" << keyword
           << "'; expected sum, max, min, abssum or absmax";
  kind = ReduceKindAttr::get(parser.getContext(), *value);
  return success();
}

static void printReduceKind(OpAsmPrinter &p, Operation *, ReduceKindAttr kind) {
  p << stringifyReduceKind(kind.getValue());
}

LogicalResult ReduceOp::verify() {
  MemRefType src = getSource().getType(), dst = getTarget().getType();
  if (failed(verifyScope(*this, "source", src, kTileScopes)) ||
      failed(verifyScope(*this, "target", dst, kTileScopes)))
    return failure();
  int64_t rank = src.getRank();
  if (rank == 0)
    return emitOpError() << "source must have rank >= 1";
  // The I64Attr getter is unsigned; a negative dim must not wrap around.
  int64_t dim = getDimAttr().getInt();
  if (dim < 0 || dim >= rank)
    return emitOpError() << "dim " << dim << " is out of range for a "
                         << "source of rank " << rank;
  SmallVector<int64_t> expected = llvm::to_vector(src.getShape());
  expected.erase(expected.begin() + dim);
  if (expected.empty())
    expected.push_back(1);
  if (dst.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "target shape must be " << shapeStr(expected)
                         << " (source shape without dim " << dim << "), got "
                         << shapeStr(dst.getShape());
  if (src.getElementType() != dst.getElementType())
    return emitOpError() << "source and target element types differ: "
                         << src.getElementType() << " vs "
                         << dst.getElementType();
  if (!isa<FloatType, IntegerType>(src.getElementType()))
    return emitOpError() << "reduces integer or float tiles, got "
                         << src.getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// FinalizeReducerOp
//===----------------------------------------------------------------------===//

LogicalResult FinalizeReducerOp::verify() {
  MemRefType type = getReducer().getType();
  if (failed(verifyScope(*this, "reducer", type,
                         {Scope::Local, Scope::Fragment})))
    return failure();
  ReduceKind kind = getKind();
  if (kind != ReduceKind::Sum && kind != ReduceKind::Max &&
      kind != ReduceKind::Min)
    return emitOpError() << "combines by sum, max or min, got "
                         << stringifyReduceKind(kind);
  Type elt = type.getElementType();
  if (!isa<FloatType, IntegerType>(elt))
    return emitOpError() << "reduces integer or float buffers, got " << elt;
  if (getSeed() && getSeed().getType() != elt)
    return emitOpError() << "seed must have the reducer's element type "
                         << elt << ", got " << getSeed().getType();
  return success();
}

//===----------------------------------------------------------------------===//
// Atomic ops
//===----------------------------------------------------------------------===//

template <typename AtomicOpT> static LogicalResult verifyAtomic(AtomicOpT op) {
  MemRefType target = op.getTarget().getType();
  if (!isGlobal(target) && !isTileScope(target, {Scope::Shared}))
    return op.emitOpError() << "target must be global or shared memory, got "
                            << stringifyScopeOf(target) << " " << target;
  if (failed(verifyListOfOperandsOrIntegers(op, "offsets", target.getRank(),
                                            op.getStaticOffsets(),
                                            op.getOffsets())))
    return failure();
  Type elt = target.getElementType();
  if (!isa<FloatType>(elt) && !elt.isInteger(32) && !elt.isInteger(64))
    return op.emitOpError()
           << "supports float, i32 and i64 targets, got " << elt;
  Type valueType = op.getValue().getType();
  if (std::optional<ArrayRef<int64_t>> sizes = op.getSizes()) {
    if (isa<MemRefType>(valueType))
      return op.emitOpError()
             << "takes sizes only with a scalar value (a tile value gives "
                "the region's shape)";
    if (static_cast<int64_t>(sizes->size()) != target.getRank())
      return op.emitOpError()
             << "expected " << target.getRank()
             << " sizes (one per target dimension), got " << sizes->size();
    if (llvm::any_of(*sizes, [](int64_t s) { return s <= 0; }))
      return op.emitOpError() << "sizes must be positive";
  }
  if (auto tileType = dyn_cast<MemRefType>(valueType)) {
    if (!tileType.hasStaticShape())
      return op.emitOpError()
             << "value tile must be a statically shaped tile buffer, got "
             << tileType;
    if (failed(verifyScope(op, "value tile", tileType, kTileScopes)))
      return failure();
    if (tileType.getRank() != target.getRank())
      return op.emitOpError()
             << "value tile rank (" << tileType.getRank()
             << ") must equal the target rank (" << target.getRank() << ")";
    if (tileType.getElementType() != elt)
      return op.emitOpError()
             << "value tile element type " << tileType.getElementType()
             << " must be the target's " << elt;
    return success();
  }
  if (valueType != elt)
    return op.emitOpError() << "value must be a " << elt
                            << " scalar or a tile buffer, got " << valueType;
  return success();
}

#define TILE_ATOMIC_OP_METHODS(OpT)                                            \
  LogicalResult OpT::verify() { return verifyAtomic(*this); }                  \
  SmallVector<OpFoldResult> OpT::getMixedOffsets() {                           \
    return getMixedValues(getStaticOffsets(), getOffsets(), getContext());     \
  }
TILE_ATOMIC_OP_METHODS(AtomicAddOp)
TILE_ATOMIC_OP_METHODS(AtomicMaxOp)
TILE_ATOMIC_OP_METHODS(AtomicMinOp)
#undef TILE_ATOMIC_OP_METHODS

//===----------------------------------------------------------------------===//
// ViewOp
//===----------------------------------------------------------------------===//

Value ViewOp::getViewSource() { return getSource(); }

LogicalResult MakeTensorOp::verify() {
  MemRefType type = getType();
  if (type.getMemorySpace())
    return emitOpError() << "makes a global tensor (no memory space), got "
                         << type;
  if (!type.getLayout().isIdentity())
    return emitOpError() << "makes a row-major tensor, got " << type;
  Type elt = type.getElementType();
  if (!elt.isIntOrFloat())
    return emitOpError() << "elements must be integers or floats, got "
                         << elt;
  if (getSizes().size() != type.getNumDynamicDims())
    return emitOpError() << "has " << getSizes().size()
                         << " sizes for the " << type.getNumDynamicDims()
                         << " dynamic dimensions of " << type;
  return success();
}

LogicalResult ViewOp::verify() {
  MemRefType src = getSource().getType(), dst = getResult().getType();
  if (failed(verifyScope(*this, "source", src, {Scope::Shared})) ||
      failed(verifyScope(*this, "result", dst, {Scope::Shared})))
    return failure();
  for (auto [what, type] : {std::make_pair("source", src),
                            std::make_pair("result", dst)}) {
    Type elt = type.getElementType();
    // float4_e2m1fn is stored two a byte (tile-emulate-fp4): its rows must
    // be whole bytes.
    bool packedFp4 = isa<Float4E2M1FNType>(elt) && type.getRank() > 0 &&
                     type.getShape().back() % 2 == 0;
    if (!packedFp4 &&
        (!elt.isIntOrFloat() || elt.getIntOrFloatBitWidth() % 8 != 0))
      return emitOpError() << what << " elements must be integers or floats "
                                      "of whole bytes (or float4_e2m1fn "
                                      "rows of an even length), got "
                           << elt;
    if (!type.getLayout().isIdentity())
      return emitOpError() << what << " must be a row-major buffer, got "
                           << type;
  }
  if (getBufferBytes(src) != getBufferBytes(dst))
    return emitOpError() << "views the " << getBufferBytes(src)
                         << " bytes of " << src << " as the "
                         << getBufferBytes(dst) << " bytes of " << dst
                         << ": both must hold the same bytes";
  // After tile-place-buffers a shared buffer is the tile.bind_storage of
  // its placed bytes.
  if (!getSource().getDefiningOp<AllocSharedOp>() &&
      !getSource().getDefiningOp<ViewOp>() &&
      !getSource().getDefiningOp<BindStorageOp>())
    return emitOpError() << "views a tile.alloc_shared buffer or a view of "
                            "one";
  return success();
}

//===----------------------------------------------------------------------===//
// ScanOp
//===----------------------------------------------------------------------===//

SmallVector<OpFoldResult> ScanOp::getMixedSourceOffsets() {
  return mixedOffsetsOf(*this, /*target=*/false);
}

SmallVector<OpFoldResult> ScanOp::getMixedTargetOffsets() {
  return mixedOffsetsOf(*this, /*target=*/true);
}

LogicalResult ScanOp::verify() {
  if (failed(verifyOneSourceOneTarget(*this)))
    return failure();
  if (getKind() != ReduceKind::Sum && getKind() != ReduceKind::Max)
    return emitOpError() << "scans by sum or max, got "
                         << stringifyReduceKind(getKind());
  MemRefType src = getSource().getType(), dst = getTarget().getType();
  if (failed(verifyScope(*this, "source", src, kTileScopes)) ||
      failed(verifyScope(*this, "target", dst, kTileScopes)))
    return failure();
  if ((getScope(src) == Scope::Local) != (getScope(dst) == Scope::Local))
    return emitOpError() << "scans a block's tile (shared or fragment "
                            "buffers) or each thread's own copy (local "
                            "buffers on both sides), not "
                         << stringifyScopeOf(src) << " to "
                         << stringifyScopeOf(dst);
  if (src.getElementType() != dst.getElementType())
    return emitOpError() << "source and target element types differ: "
                         << src.getElementType() << " vs "
                         << dst.getElementType();
  Type elt = src.getElementType();
  if (!(elt.isInteger() && elt.getIntOrFloatBitWidth() >= 8) &&
      !isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(elt))
    return emitOpError() << "scans tiles of 8- to 64-bit integers or of f16, "
                            "bf16, f32 or f64, got "
                         << elt;
  if (src.getRank() == 0 || src.getRank() != dst.getRank())
    return emitOpError() << "source and target must have the same rank >= 1, "
                            "got "
                         << src.getRank() << " and " << dst.getRank();
  if (failed(verifyCopyRegion(*this, "source", src, getStaticSourceOffsets(),
                              getSourceOffsets(), getSourceSizes())) ||
      failed(verifyCopyRegion(*this, "target", dst, getStaticTargetOffsets(),
                              getTargetOffsets(), getTargetSizes())))
    return failure();
  if (getSourceSizes() != getTargetSizes())
    return emitOpError() << "source region " << shapeStr(getSourceSizes())
                         << " and target region " << shapeStr(getTargetSizes())
                         << " must have the same sizes";
  // The I64Attr getter is unsigned; a negative dim must not wrap around.
  int64_t dim = getDimAttr().getInt();
  if (dim < 0 || dim >= src.getRank())
    return emitOpError() << "dim " << dim << " is out of range for regions "
                         << "of rank " << src.getRank();
  for (auto [what, type, sizes] :
       {std::make_tuple("source", src, getSourceSizes()),
        std::make_tuple("target", dst, getTargetSizes())})
    if (getScope(type) == Scope::Fragment && type.getShape() != sizes)
      return emitOpError() << "scans a fragment whole: the " << what
                           << " region " << shapeStr(sizes)
                           << " must be the fragment's shape "
                           << shapeStr(type.getShape());
  if (getSource() == getTarget() &&
      (getMixedSourceOffsets() != getMixedTargetOffsets()))
    return emitOpError() << "scans a buffer in place only over one region: "
                            "the source and target offsets differ";
  return success();
}

#define GET_OP_CLASSES
#include "tile/Dialect/Tile/IR/TileOps.cpp.inc"
