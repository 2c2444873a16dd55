//===- VectorCopy.h - Block copies in 16-byte chunks ------------*- C++ -*-===//
//
// A tile.copy between global and shared memory that the block's threads
// make in 16-byte chunks along the tile's last dimension (thread t moves
// chunks t, t + T, ...), and the straight-line form of such copies from
// global memory when the whole tile is inside the tensor and aligned: each
// thread's loads are issued before its stores, so that they are in flight
// together (one memory latency for the copy, or for a group of copies).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CONVERSION_TILETOGPU_VECTORCOPY_H
#define TILE_CONVERSION_TILETOGPU_VECTORCOPY_H

#include "tile/Conversion/TileToGPU/GpuCommon.h"

#include "mlir/IR/BuiltinTypes.h"

namespace mlir::tile::tilegpu {

/// The most 16-byte chunks a thread moves in straight lines (over the copies
/// of a group); a copy of more chunks a thread takes the checked loop.
constexpr int64_t kMaxStraightChunks = 32;

class VectorCopy {
public:
  /// The copy of `op` from `src` to `dst` (one of them global, the other
  /// shared; elements converted to `dstElt`; into `swizzled` where it is a
  /// swizzled buffer) in chunks, or none where the shapes, layouts or
  /// element types do not allow 16-byte chunks. Creates no IR.
  static std::optional<VectorCopy> plan(CopyOp op, const CopyEnd &src,
                                        const CopyEnd &dst,
                                        ArrayRef<int64_t> tile, Value pad,
                                        Type dstElt, const Storage *swizzled);

  int64_t chunksPerThread() const;
  /// A copy from global memory of at least 2 chunks a thread: straight
  /// lines would help it.
  bool straightLinesHelp() const;
  /// One of those of at most `inFlight` chunks a thread: it may take them.
  bool straightLinesFit(int64_t inFlight) const;
  /// Whether the whole tile is inside the tensor and aligned to the chunk.
  Value wholeTile(OpBuilder &b, Location loc);
  /// Every chunk tested on its own: one vector load and store where it is
  /// inside the tensor and aligned, element by element otherwise (tensor
  /// edges, odd row lengths, the pad value outside the tensor).
  void emitCheckedLoop(OpBuilder &b, Location loc);
  /// The copy: where straight lines fit, them for a whole tile (tested
  /// once for the block) and the checked loop for others; else the checked
  /// loop.
  void emit(OpBuilder &b, Location loc);

  /// The straight lines of several copies of whole tiles (the total chunks
  /// a thread at most chunksInFlight): all the thread's loads, then its
  /// stores. A chunk past the end of its copy (where the threads do not
  /// divide the chunks) is skipped.
  static void emitStraightLines(OpBuilder &b, Location loc,
                                MutableArrayRef<VectorCopy> copies);

  /// The chunks a thread of `kernel` may keep in flight: what the registers
  /// left beside its per-thread arrays (fragments and local buffers, all
  /// counted as live) hold, less a margin for the rest, at most
  /// kMaxStraightChunks. Copies of more chunks a thread take the checked
  /// loop (in straight lines the compiler issues all the loads first,
  /// however they are grouped, and they would spill).
  static int64_t chunksInFlight(KernelOp kernel);

private:
  VectorCopy(CopyOp op, const CopyEnd &src, const CopyEnd &dst,
             SmallVector<int64_t> chunks, int64_t vec, Value pad, Type dstElt,
             const Storage *swizzled);

  CopyEnd &global() { return src.global ? src : dst; }
  int64_t numChunks() const { return numElements(chunks); }
  /// The source and target indices of chunk `linear`.
  std::pair<SmallVector<Value>, SmallVector<Value>>
  chunkIndices(OpBuilder &b, Location loc, Value linear);
  /// The chunk at `si` of the source, converted to the target's elements.
  Value loadChunk(OpBuilder &b, Location loc, ValueRange si);
  void storeChunk(OpBuilder &b, Location loc, Value v, ValueRange di);
  /// One chunk, tested: a vector where inside and aligned, else elements.
  void moveCheckedChunk(OpBuilder &b, Location loc, Value linear,
                        const VectorAlignment &alignment);

  CopyOp op;
  CopyEnd src, dst;
  SmallVector<int64_t> chunks; // the tile's shape in chunks
  int64_t vec;                 // elements a chunk
  int64_t threads;
  Value pad;
  Type dstElt;
  const Storage *swizzled;
};

/// Whether the whole `sizes` region of the global side is inside the
/// tensor and its rows are runs of `run`-element aligned vectors: the base,
/// the row length and the first column are multiples of the run.
Value tileAccessible(OpBuilder &b, Location loc, CopyEnd &global,
                     ArrayRef<int64_t> sizes, int64_t run);

} // namespace mlir::tile::tilegpu

#endif // TILE_CONVERSION_TILETOGPU_VECTORCOPY_H
