//===- GpuLowering.h - What the GPU lowering asks of a target ---*- C++ -*-===//
//
// The one interface between the target-neutral GPU patterns
// (lib/Conversion/TileToGPU) and a GPU target: the warp size (the target's
// TargetInfo::getWarpSize) and the few instructions the patterns build that
// the gpu dialect does not express alike on every target (fast exp2,
// vector atomics). The thread index
// and the block barrier are gpu.thread_id and gpu.barrier, which every
// target's upstream conversion lowers (GpuCommon.h's threadId / barrier).
// A target's TargetInfo owns one (NvidiaTarget: createNVVMGpuLowering with
// its getWarpSize) and hands it to the patterns it populates
// (populateLowerOpsPatterns); the patterns keep a reference to it.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CONVERSION_TILETOGPU_GPULOWERING_H
#define TILE_CONVERSION_TILETOGPU_GPULOWERING_H

#include "mlir/IR/Builders.h"

namespace mlir::tile {

class GpuLowering {
public:
  explicit GpuLowering(int64_t warpSize) : warpSize(warpSize) {}
  virtual ~GpuLowering();

  /// Threads that run in lock step and exchange values by shuffles (32 on
  /// NVIDIA, a 64-lane wavefront on gfx942).
  int64_t getWarpSize() const { return warpSize; }

  /// `v` from the lane whose index is the own one xor `mask`: gpu.shuffle
  /// xor over the warp, values narrower than 32 bits widened for it.
  virtual Value shuffleXor(OpBuilder &b, Location loc, Value v,
                           int64_t mask) const;

  /// True when the target has an approximate f32 exp2 (emitFastExp2).
  virtual bool hasFastExp2() const { return false; }
  /// exp2 of the f32 `x` with the target's approximate instruction
  /// (subnormal results may flush to zero); only where hasFastExp2.
  virtual Value emitFastExp2(OpBuilder &b, Location loc, Value x) const;

  /// After threads wrote a shared buffer that the target's asynchronous
  /// units read next (sm_90a: wgmma reads swizzled panels through the async
  /// proxy): makes the writes visible to them. Nothing by default.
  virtual void fenceSharedForAsyncReads(OpBuilder &b, Location loc) const {}

  /// Elements of `elt` that one atomic addition into global memory adds
  /// (consecutive elements, their vector aligned to its size) on this
  /// target; 1 where it adds none wider than an element.
  virtual int64_t getAtomicAddLanes(Type elt) const { return 1; }
  /// Adds `values` (getAtomicAddLanes(elt) scalars of `elt`) atomically to
  /// the consecutive elements of global memory from byte `address` (an
  /// index, aligned to the vector's size) on; only where that is above 1.
  virtual void emitAtomicAddVector(OpBuilder &b, Location loc, Value address,
                                   ValueRange values) const;

private:
  int64_t warpSize;
};

} // namespace mlir::tile

#endif // TILE_CONVERSION_TILETOGPU_GPULOWERING_H
