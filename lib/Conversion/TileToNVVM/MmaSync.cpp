//===- MmaSync.cpp - Warp-level mma.sync gemms (sm_80) --------------------===//
//
// C += op(A) op(B) on tensor cores, one warp a warp tile of C: operands
// from shared memory by ldmatrix (x4 / x2, transposed where the operand is
// stored the other way; element by element where its rows are not whole
// 16-byte chunks), or A straight from registers where it is a fragment in
// an accumulator layout; then mma.sync m16n8k(256 / bits) per atom.
//
//===----------------------------------------------------------------------===//

#include "MmaSync.h"

#include "tile/Conversion/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#define DEBUG_TYPE "tile-lower-ops"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::nvvm;

namespace {

/// mma.sync m16n8k16 with bf16 operands (upstream nvgpu.mma.sync does not
/// type them): the operand pairs go to nvvm.mma.sync as 32-bit registers.
SmallVector<Value> bf16MmaSync(OpBuilder &b, Location loc, Value aFrag,
                               Value bFrag, ArrayRef<Value> acc) {
  auto packRows = [&](Value frag) {
    SmallVector<Value> regs;
    auto type = cast<VectorType>(frag.getType());
    for (int64_t i = 0; i < type.getDimSize(0); ++i) {
      Value pair =
          vector::ExtractOp::create(b, loc, frag, ArrayRef<int64_t>{i});
      Value word = vector::BitCastOp::create(
          b, loc, VectorType::get({1}, b.getI32Type()), pair);
      regs.push_back(
          vector::ExtractOp::create(b, loc, word, ArrayRef<int64_t>{0}));
    }
    return regs;
  };
  Type f32 = b.getF32Type();
  auto resultType =
      LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
  Value d = NVVM::MmaOp::create(
      b, loc, resultType, packRows(aFrag), packRows(bFrag), acc,
      ArrayRef<int64_t>{16, 8, 16}, std::nullopt, std::nullopt,
      std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16, NVVM::MMATypes::bf16},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  SmallVector<Value> out;
  for (int64_t q = 0; q < 4; ++q)
    out.push_back(LLVM::ExtractValueOp::create(b, loc, d, q));
  return out;
}

/// One mma.sync gemm being emitted: the lane and warp coordinates computed
/// once, then per k-step the A and B fragments of the warp's atoms and
/// their mma.syncs.
class MmaSyncEmitter {
public:
  MmaSyncEmitter(PatternRewriter &rewriter, Location loc, const MmaGemm &mma);

  void emit() {
    for (int64_t ks = 0; ks < mma.k / kAtom; ++ks) {
      // The k of element e of a thread's first register: its 4 lanes in a
      // row take `pack` consecutive elements each; the second half of the
      // atom's K is kAtom / 2 further.
      Value kBase = add(laneMod4xPack, ks * kAtom);
      SmallVector<Value> aFrags = loadAFragments(ks, kBase);
      SmallVector<Value> bFrags = loadBFragments(ks, kBase);
      multiply(aFrags, bFrags);
    }
  }

private:
  Value add(Value x, int64_t y) {
    return y == 0 ? x
                  : arith::AddIOp::create(rewriter, loc, x,
                                          indexConst(rewriter, loc, y))
                        .getResult();
  }
  Value times(Value v, int64_t c) {
    return arith::MulIOp::create(rewriter, loc, v,
                                 indexConst(rewriter, loc, c));
  }
  Value kOf(Value kBase, int64_t half, int64_t e) {
    return add(kBase, half * (kAtom / 2) + e);
  }
  // Indices of element (r, c) of a stored operand, swizzled if it is.
  SmallVector<Value> physical(const Storage &s, Value r, Value c) {
    return SmallVector<Value>{r, swizzledColumn(rewriter, loc, s, r, c)};
  }
  // Element (row, col) of op(A) / (kk, col) of op(B).
  Value loadElement(const Storage &s, bool transpose, Value row, Value col) {
    SmallVector<Value> idx = {row, col};
    if (transpose)
      std::swap(idx[0], idx[1]);
    return memref::LoadOp::create(rewriter, loc, s.memref,
                                  physical(s, idx[0], idx[1]));
  }
  Value ldmatrix(const Storage &s, Value row, Value col, bool transpose,
                 int64_t tiles, VectorType type) {
    return nvgpu::LdMatrixOp::create(
        rewriter, loc, type, s.memref, physical(s, row, col),
        rewriter.getBoolAttr(transpose), rewriter.getI32IntegerAttr(tiles));
  }

  SmallVector<Value> loadAFragments(int64_t ks, Value kBase);
  SmallVector<Value> loadBFragments(int64_t ks, Value kBase);
  void multiply(ArrayRef<Value> aFrags, ArrayRef<Value> bFrags);

  PatternRewriter &rewriter;
  Location loc;
  const MmaGemm &mma;
  // The atom is m16n8k(256 / bits): 16-bit inputs pack 2 to a 32-bit
  // register (k16), 8-bit inputs 4 (k32), f32 inputs (read as tf32) 1 (k8).
  int64_t bits, pack, kAtom;
  int64_t chunk; // elements of a 16-byte ldmatrix row
  int64_t atomsM, atomsN, stripStride;
  bool ldA, ldB;
  VectorType aType, bType, cType;
  Value warpRow, warpCol, laneDiv4, laneMod4xPack, laneMod8, laneMod16;
  Value laneHi8, laneMid8, laneHiChunk, laneMidChunk;
};

MmaSyncEmitter::MmaSyncEmitter(PatternRewriter &rewriter, Location loc,
                               const MmaGemm &mma)
    : rewriter(rewriter), loc(loc), mma(mma) {
  const WarpPartition *part = &mma.part;
  Type aElt = mma.aElt, cElt = mma.cElt;
  bits = aElt.getIntOrFloatBitWidth();
  pack = 32 / bits;
  kAtom = 256 / bits;
  chunk = 128 / bits;
  int64_t tileM = mma.m / part->warpsM, tileN = mma.n / part->warpsN;
  atomsM = tileM / 16;
  atomsN = tileN / 8;
  if (mma.clearAccum)
    for (int64_t r = 0; r < mma.c.numRegisters; ++r)
      memref::StoreOp::create(rewriter, loc, zeroOf(rewriter, loc, cElt),
                              mma.c.memref,
                              ValueRange{indexConst(rewriter, loc, r)});

  Value tid = threadId(rewriter, loc);
  Value lane = arith::RemUIOp::create(
      rewriter, loc, tid, indexConst(rewriter, loc, nvvm::kWarpSize));
  Value warp = arith::DivUIOp::create(
      rewriter, loc, tid, indexConst(rewriter, loc, nvvm::kWarpSize));
  Value wn = indexConst(rewriter, loc, part->warpsN);
  // The warp's 16-row strips: consecutive from its first row, or (repeats)
  // 64 rows apart in its warpgroup's 64 r rows.
  stripStride = part->repeats > 1 ? 64 : 16;
  warpRow =
      part->repeats > 1
          ? wgmmaWarpRow(rewriter, loc, warp, part->repeats)
          : arith::MulIOp::create(
                rewriter, loc, arith::DivUIOp::create(rewriter, loc, warp, wn),
                indexConst(rewriter, loc, tileM))
                .getResult();
  warpCol = arith::MulIOp::create(
      rewriter, loc, arith::RemUIOp::create(rewriter, loc, warp, wn),
      indexConst(rewriter, loc, tileN));
  laneDiv4 =
      arith::DivUIOp::create(rewriter, loc, lane, indexConst(rewriter, loc, 4));
  laneMod4xPack = arith::MulIOp::create(
      rewriter, loc,
      arith::RemUIOp::create(rewriter, loc, lane, indexConst(rewriter, loc, 4)),
      indexConst(rewriter, loc, pack));
  aType = VectorType::get({4, pack}, aElt);
  bType = VectorType::get({2, pack}, aElt);
  cType = VectorType::get({2, 2}, cElt);

  // ldmatrix reads 8x8 blocks of 16-bit elements whose rows are 16-byte
  // aligned: shared tiles with rows of whole 16-byte chunks, and for 8-bit
  // inputs only the operands stored K-contiguous (its transposition moves
  // 16-bit elements). Other operands load element by element.
  ldA = mma.aRowLength % chunk == 0 && (bits == 16 || !mma.transposeA);
  ldB = mma.bRowLength % chunk == 0 && (bits == 16 || mma.transposeB);
  laneMod8 =
      arith::RemUIOp::create(rewriter, loc, lane, indexConst(rewriter, loc, 8));
  laneMod16 = arith::RemUIOp::create(rewriter, loc, lane,
                                     indexConst(rewriter, loc, 16));
  // (lane / 16) * 8 and ((lane / 8) mod 2) * 8: which 8x8 block a lane
  // addresses in an x4 ldmatrix, in rows (8) or in elements along a row
  // (one 16-byte chunk).
  Value laneHi = arith::DivUIOp::create(rewriter, loc, lane,
                                        indexConst(rewriter, loc, 16));
  Value laneMid = arith::RemUIOp::create(
      rewriter, loc,
      arith::DivUIOp::create(rewriter, loc, lane, indexConst(rewriter, loc, 8)),
      indexConst(rewriter, loc, 2));
  laneHi8 = times(laneHi, 8);
  laneMid8 = times(laneMid, 8);
  laneHiChunk = times(laneHi, chunk);
  laneMidChunk = times(laneMid, chunk);
}

SmallVector<Value> MmaSyncEmitter::loadAFragments(int64_t ks, Value kBase) {
  SmallVector<Value> aFrags;
  for (int64_t am = 0; am < atomsM; ++am) {
    if (mma.aInRegisters) {
      SmallVector<Value> e;
      for (int64_t q = 0; q < 8; ++q)
        e.push_back(memref::LoadOp::create(
            rewriter, loc, mma.a.memref,
            ValueRange{
                indexConst(rewriter, loc,
                           aOperandRegister(mma.a.layout, am * stripStride,
                                            ks * kAtom, q))}));
      aFrags.push_back(vector::FromElementsOp::create(rewriter, loc, aType, e));
      continue;
    }
    Value m0 = add(warpRow, am * stripStride);
    if (ldA) {
      // Matrices (m 0-7, first 16 bytes of K), (m 8-15, first), (m 0-7,
      // second 16 bytes), (m 8-15, second): the register order of
      // mma.sync's A.
      if (!mma.transposeA)
        aFrags.push_back(
            ldmatrix(mma.a, arith::AddIOp::create(rewriter, loc, m0, laneMod16),
                     add(laneHiChunk, ks * kAtom), false, 4, aType));
      else
        aFrags.push_back(ldmatrix(
            mma.a,
            add(arith::AddIOp::create(rewriter, loc, laneMod8, laneHi8),
                ks * kAtom),
            arith::AddIOp::create(rewriter, loc, m0, laneMid8), true, 4,
            aType));
      continue;
    }
    // Registers: (row g, first half of K), (g + 8, first), (g, second),
    // (g + 8, second); `pack` consecutive k in each.
    Value r0 = arith::AddIOp::create(rewriter, loc, m0, laneDiv4);
    Value r8 = add(r0, 8);
    SmallVector<Value> e;
    for (int64_t q = 0; q < 4; ++q)
      for (int64_t i = 0; i < pack; ++i)
        e.push_back(loadElement(mma.a, mma.transposeA, q % 2 ? r8 : r0,
                                kOf(kBase, q / 2, i)));
    aFrags.push_back(vector::FromElementsOp::create(rewriter, loc, aType, e));
  }
  return aFrags;
}

SmallVector<Value> MmaSyncEmitter::loadBFragments(int64_t ks, Value kBase) {
  SmallVector<Value> bFrags;
  for (int64_t an = 0; an < atomsN; ++an) {
    Value n0 = add(warpCol, an * 8);
    if (ldB) {
      // Matrices (k 0-7, n 0-7) and (k 8-15, n 0-7): b0b1, b2b3; with two
      // atoms left, one x4 load adds the same two at n 8-15 for the next
      // atom (lanes 16-31 address them).
      int64_t tiles = an + 1 < atomsN ? 4 : 2;
      Value nLane =
          tiles == 4
              ? arith::AddIOp::create(rewriter, loc, n0, laneHi8).getResult()
              : n0;
      auto type = VectorType::get({tiles, pack}, mma.aElt);
      Value frag;
      if (!mma.transposeB)
        frag = ldmatrix(
            mma.b,
            add(arith::AddIOp::create(rewriter, loc, laneMod8, laneMid8),
                ks * 16),
            nLane, true, tiles, type);
      else
        frag = ldmatrix(mma.b,
                        arith::AddIOp::create(rewriter, loc, nLane, laneMod8),
                        add(laneMidChunk, ks * kAtom), false, tiles, type);
      if (tiles == 2) {
        bFrags.push_back(frag);
        continue;
      }
      for (int64_t half : {0, 2}) {
        SmallVector<Value> e;
        for (int64_t q = 0; q < 2 * pack; ++q)
          e.push_back(vector::ExtractOp::create(
              rewriter, loc, frag,
              ArrayRef<int64_t>{half + q / pack, q % pack}));
        bFrags.push_back(
            vector::FromElementsOp::create(rewriter, loc, bType, e));
      }
      ++an;
      continue;
    }
    Value col = arith::AddIOp::create(rewriter, loc, n0, laneDiv4);
    SmallVector<Value> e;
    for (int64_t q = 0; q < 2; ++q)
      for (int64_t i = 0; i < pack; ++i)
        e.push_back(loadElement(mma.b, mma.transposeB, kOf(kBase, q, i), col));
    bFrags.push_back(vector::FromElementsOp::create(rewriter, loc, bType, e));
  }
  return bFrags;
}

void MmaSyncEmitter::multiply(ArrayRef<Value> aFrags, ArrayRef<Value> bFrags) {
  for (int64_t am = 0; am < atomsM; ++am) {
    for (int64_t an = 0; an < atomsN; ++an) {
      int64_t base = (am * atomsN + an) * 4;
      SmallVector<Value> acc;
      for (int64_t q = 0; q < 4; ++q)
        acc.push_back(memref::LoadOp::create(
            rewriter, loc, mma.c.memref,
            ValueRange{indexConst(rewriter, loc, base + q)}));
      SmallVector<Value> out;
      if (mma.aElt.isBF16()) {
        out = bf16MmaSync(rewriter, loc, aFrags[am], bFrags[an], acc);
      } else {
        Value cVec = vector::FromElementsOp::create(rewriter, loc, cType, acc);
        Value d =
            nvgpu::MmaSyncOp::create(rewriter, loc, aFrags[am], bFrags[an],
                                     cVec, ArrayRef<int64_t>{16, 8, kAtom},
                                     /*tf32Enabled=*/mma.aElt.isF32());
        for (int64_t q = 0; q < 4; ++q)
          out.push_back(vector::ExtractOp::create(
              rewriter, loc, d, ArrayRef<int64_t>{q / 2, q % 2}));
      }
      for (int64_t q = 0; q < 4; ++q)
        memref::StoreOp::create(
            rewriter, loc, out[q], mma.c.memref,
            ValueRange{indexConst(rewriter, loc, base + q)});
    }
  }
}

} // namespace

void nvvm::emitMmaGemm(PatternRewriter &rewriter, Location loc,
                       const MmaGemm &mma) {
  MmaSyncEmitter(rewriter, loc, mma).emit();
}

bool nvvm::mmaAFromRegisters(GemmOp op, const Storage &a, WarpPartition part) {
  Type aElt = op.getA().getType().getElementType();
  return a.scope == Scope::Fragment && !op.getTransposeA() &&
         (aElt.isF16() || aElt.isBF16()) && op.getK() % 16 == 0 &&
         a.layout == getMmaSyncAccumulatorLayout(
                         op.getContext(), op.getM(), op.getK(), getThreads(op),
                         {part.warpsM, 1, part.repeats});
}

LogicalResult nvvm::reportNoMma(Operation *gemm) {
  return gemm->emitOpError() << "has no #tile.mma instruction choice; run "
                                "tile-select-mma before tile-lower-ops";
}
