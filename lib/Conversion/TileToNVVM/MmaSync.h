//===- MmaSync.h - Warp-level mma.sync gemms --------------------*- C++ -*-===//
//
// Private to lib/Conversion/TileToNVVM: the mma.sync m16n8k* emission that
// tile.gemm (Gemm.cpp) and tile.gemm_sp (GemmSp.cpp, on its expanded A)
// share.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_CONVERSION_TILETONVVM_MMASYNC_H
#define TILE_LIB_CONVERSION_TILETONVVM_MMASYNC_H

#include "NVVMCommon.h"

namespace mlir::tile::nvvm {

/// The operands of a warp-level mma.sync m16n8k16 gemm (tile.gemm, or
/// tile.gemm_sp on its decompressed A).
struct MmaGemm {
  Storage a, b, c;
  int64_t m, n, k;
  bool transposeA, transposeB, clearAccum;
  WarpPartition part;
  Type aElt, cElt;
  int64_t aRowLength, bRowLength; // inner extents of the stored A and B
  /// A is a fragment in the accumulator layout of an M x K gemm with the
  /// same warp rows (mmaAFromRegisters): its registers are the operands.
  bool aInRegisters = false;
};

/// C += op(A) op(B): each warp computes its warp tile of C with ldmatrix
/// operand loads and mma.sync.
void emitMmaGemm(PatternRewriter &rewriter, Location loc, const MmaGemm &mma);

/// Whether the mma.sync operand A comes straight from registers: a 16-bit
/// fragment in the accumulator layout of an M x K gemm whose warps hold
/// whole rows, as `part` splits the rows (flash attention's P = softmax(S)
/// cast from S's accumulator). Its m16n8 C atoms pair up into m16k16 A
/// atoms in the same lanes.
bool mmaAFromRegisters(GemmOp op, const Storage &a, WarpPartition part);

/// The error of a gemm that reaches the lowering without the #tile.mma
/// tile-select-mma gives it.
LogicalResult reportNoMma(Operation *gemm);

} // namespace mlir::tile::nvvm

#endif // TILE_LIB_CONVERSION_TILETONVVM_MMASYNC_H
