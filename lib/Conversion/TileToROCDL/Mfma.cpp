//===- Mfma.cpp - tile.gemm on AMD MFMA -----------------------------------===//
//
// C += op(A) op(B) on gfx942's matrix cores, one wavefront a wave tile of C
// (the #tile.mma's wave partition), as atoms of atom x atom x atomK
// (v_mfma_f32_32x32x8_f16 and its kin, or 16x16x16; f32 32x32x2 and
// 16x16x4). In an atom, lane l holds
//   A: row l mod atom, the P = atomK * atom / 64 consecutive k from
//      (l / atom) * P on (a vector of P elements; one f32 a scalar),
//   B: column l mod atom, the same P k,
//   C: as getMfmaAccumulatorLayout says (32x32: 16 values, column l mod 32,
//      rows 8 (r / 4) + 4 (l / 32) + r mod 4; 16x16: 4 values, column
//      l mod 16, rows 4 (l / 16) + r).
// Operands are read from LDS: P elements with one load of 8 bytes where
// they are consecutive in memory (A stored M x K, B stored N x K, rows of
// whole 8 bytes), element by element otherwise; fragments through their
// scratch copies.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/TileToGPU/GpuCommon.h"
#include "tile/Conversion/TileToROCDL/TileToROCDL.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#define DEBUG_TYPE "tile-lower-ops"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::tilegpu;

namespace {

/// The lanes of a wavefront.
constexpr int64_t kWaveSize = 64;

/// One MFMA gemm being emitted: the lane and wave coordinates computed
/// once, then per k-step the operand vectors of the wave's atoms and their
/// v_mfma_* instructions.
class MfmaEmitter {
public:
  MfmaEmitter(PatternRewriter &rewriter, GemmOp op, MmaAttr mma,
              const Storage &a, const Storage &b, const Storage &c);

  void emit() {
    for (int64_t ks = 0; ks < op.getK() / atomK; ++ks) {
      Value k0 = add(laneK, ks * atomK);
      SmallVector<Value> aVecs, bVecs;
      for (int64_t am = 0; am < atomsM; ++am)
        aVecs.push_back(loadOperand(a, op.getTransposeA(),
                                    add(waveRow, am * atom), k0));
      for (int64_t an = 0; an < atomsN; ++an)
        bVecs.push_back(loadOperand(b, !op.getTransposeB(),
                                    add(waveCol, an * atom), k0));
      for (int64_t am = 0; am < atomsM; ++am)
        for (int64_t an = 0; an < atomsN; ++an)
          multiply(am * atomsN + an, aVecs[am], bVecs[an]);
    }
  }

private:
  Value index(int64_t v) { return indexConst(rewriter, loc, v); }
  Value add(Value x, int64_t y) {
    return y == 0 ? x : arith::AddIOp::create(rewriter, loc, x, index(y));
  }

  /// The P operand elements of this lane at line `line0` + (lane mod atom)
  /// (a row of A, a column of B) and k from `k0` on; `kMajor`: the operand
  /// is stored with k as its outer dimension (A transposed, B as K x N).
  Value loadOperand(const Storage &s, bool kMajor, Value line0, Value k0);
  /// C atom `atomIndex` += a * b.
  void multiply(int64_t atomIndex, Value aVec, Value bVec);

  PatternRewriter &rewriter;
  GemmOp op;
  Location loc;
  const Storage &a, &b, &c;
  int64_t atom, atomK, perLane, regs, atomsM, atomsN;
  Type inElt, accElt;
  VectorType inType; // null: one element a lane, passed as a scalar
  VectorType accType;
  Value waveRow, waveCol, laneLine, laneK;
};

MfmaEmitter::MfmaEmitter(PatternRewriter &rewriter, GemmOp op, MmaAttr mma,
                         const Storage &a, const Storage &b, const Storage &c)
    : rewriter(rewriter), op(op), loc(op.getLoc()), a(a), b(b), c(c) {
  WarpPartition part = getMmaPartition(mma);
  atom = mma.getM();
  atomK = mma.getK();
  perLane = atomK * atom / kWaveSize;
  regs = atom * atom / kWaveSize;
  int64_t tileM = op.getM() / part.warpsM, tileN = op.getN() / part.warpsN;
  atomsM = tileM / atom;
  atomsN = tileN / atom;
  inElt = op.getA().getType().getElementType();
  accElt = op.getC().getType().getElementType();
  inType = perLane > 1 ? VectorType::get({perLane}, inElt) : VectorType();
  accType = VectorType::get({regs}, accElt);
  if (op.getClearAccum())
    for (int64_t r = 0; r < c.numRegisters; ++r)
      memref::StoreOp::create(rewriter, loc, zeroOf(rewriter, loc, accElt),
                              c.memref, ValueRange{index(r)});
  Value tid = threadId(rewriter, loc);
  Value lane = arith::RemUIOp::create(rewriter, loc, tid, index(kWaveSize));
  Value wave = arith::DivUIOp::create(rewriter, loc, tid, index(kWaveSize));
  Value wn = index(part.warpsN);
  waveRow = arith::MulIOp::create(
      rewriter, loc, arith::DivUIOp::create(rewriter, loc, wave, wn),
      index(tileM));
  waveCol = arith::MulIOp::create(
      rewriter, loc, arith::RemUIOp::create(rewriter, loc, wave, wn),
      index(tileN));
  laneLine = arith::RemUIOp::create(rewriter, loc, lane, index(atom));
  laneK = arith::MulIOp::create(
      rewriter, loc, arith::DivUIOp::create(rewriter, loc, lane, index(atom)),
      index(perLane));
}

Value MfmaEmitter::loadOperand(const Storage &s, bool kMajor, Value line0,
                               Value k0) {
  Value line = arith::AddIOp::create(rewriter, loc, line0, laneLine);
  int64_t bytes = perLane * inElt.getIntOrFloatBitWidth() / 8;
  auto stored = cast<MemRefType>(s.memref.getType());
  bool rowsAligned = stored.getLayout().isIdentity() &&
                     stored.getDimSize(1) * inElt.getIntOrFloatBitWidth() %
                             (8 * bytes) ==
                         0;
  if (!kMajor && rowsAligned && perLane > 1) {
    // P consecutive elements of one row (8 bytes, inside one 16-byte chunk
    // of a swizzled buffer: P divides the chunk and k0 is a multiple of P).
    SmallVector<Value> idx = {line, swizzledColumn(rewriter, loc, s, line, k0)};
    return vector::LoadOp::create(rewriter, loc, inType, s.memref, idx,
                                  /*nontemporal=*/false,
                                  llvm::MaybeAlign(bytes));
  }
  SmallVector<Value> elements;
  for (int64_t e = 0; e < perLane; ++e) {
    Value k = add(k0, e);
    SmallVector<Value> idx = kMajor ? SmallVector<Value>{k, line}
                                    : SmallVector<Value>{line, k};
    idx[1] = swizzledColumn(rewriter, loc, s, idx[0], idx[1]);
    elements.push_back(
        memref::LoadOp::create(rewriter, loc, s.memref, idx));
  }
  if (!inType)
    return elements.front();
  return vector::FromElementsOp::create(rewriter, loc, inType, elements);
}

void MfmaEmitter::multiply(int64_t atomIndex, Value aVec, Value bVec) {
  int64_t base = atomIndex * regs;
  SmallVector<Value> acc;
  for (int64_t r = 0; r < regs; ++r)
    acc.push_back(memref::LoadOp::create(rewriter, loc, c.memref,
                                         ValueRange{index(base + r)}));
  Value cVec = vector::FromElementsOp::create(rewriter, loc, accType, acc);
  Value d = amdgpu::MFMAOp::create(rewriter, loc, accType, atom, atom, atomK,
                                   /*blocks=*/1, aVec, bVec, cVec);
  for (int64_t r = 0; r < regs; ++r)
    memref::StoreOp::create(
        rewriter, loc,
        vector::ExtractOp::create(rewriter, loc, d, ArrayRef<int64_t>{r}),
        c.memref, ValueRange{index(base + r)});
}

/// tile.gemm with a #tile.mma of kind mfma.
struct MfmaGemmLowering : public OpRewritePattern<GemmOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GemmOp op,
                                PatternRewriter &rewriter) const override {
    MmaAttr mma = op.getMmaAttr();
    if (!mma || mma.getKind() != MmaKind::Mfma)
      return op.emitOpError() << "has no #tile.mma mfma choice; run "
                                 "tile-select-mma for gfx942 first";
    std::optional<Storage> a = getStorage(op.getA());
    std::optional<Storage> b = getStorage(op.getB());
    std::optional<Storage> c = getStorage(op.getC());
    if (!a || !b || !c)
      return failure();
    // Everything is checked before any IR is created.
    auto readable = [](const Storage &s, Value operand) {
      if (s.scope == Scope::Shared)
        return true;
      auto bound = operand.getDefiningOp<BindStorageOp>();
      return s.scope == Scope::Fragment && bound && bound.getScratchOffset();
    };
    if (!readable(*a, op.getA()) || !readable(*b, op.getB()))
      return op.emitOpError()
             << "reads an operand that is neither a shared buffer nor a "
                "fragment with a scratch copy (tile-plan-scratch)";
    if (c->scope != Scope::Fragment ||
        c->layout != getMfmaAccumulatorLayout(
                         getContext(), op.getM(), op.getN(), getThreads(op),
                         getMmaPartition(mma), mma.getM()))
      return op.emitOpError()
             << "has an accumulator that is not a fragment in the layout of "
             << mma << " (tile-infer-layouts gives it that layout)";
    Storage aRead = *a, bRead = *b;
    Location loc = op.getLoc();
    if (a->scope == Scope::Fragment)
      aRead = Storage{stageToShared(rewriter, loc, op.getA()), Scope::Shared};
    if (b->scope == Scope::Fragment)
      bRead = Storage{stageToShared(rewriter, loc, op.getB()), Scope::Shared};
    MfmaEmitter(rewriter, op, mma, aRead, bRead, *c).emit();
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tile::populateGemmToROCDLPatterns(RewritePatternSet &patterns) {
  patterns.add<MfmaGemmLowering>(patterns.getContext());
}
