//===- NVVMCommon.h - Shared pieces of the NVIDIA lowering ------*- C++ -*-===//
//
// Private to lib/Conversion/TileToNVVM: the helpers that the sm_80
// lowering (MmaSync.cpp, CpAsyncPipeline.cpp, ...) and the sm_90a TMA /
// wgmma lowering (Hopper.h and its files) share, on top of the
// target-neutral ones of tile/Conversion/TileToGPU/GpuCommon.h.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_CONVERSION_TILETONVVM_NVVMCOMMON_H
#define TILE_LIB_CONVERSION_TILETONVVM_NVVMCOMMON_H

#include "tile/Conversion/TileToGPU/GpuCommon.h"
#include "tile/Dialect/Tile/IR/DiscardableAttrs.h"
#include "tile/Dialect/Tile/IR/Layouts.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace mlir::tile::nvvm {

// The target-neutral helpers (Storage, getStorage, sharedView, thread walks)
// of lib/Conversion/TileToGPU.
using tilegpu::kSharedAlignment;
using tilegpu::Storage;
using tilegpu::getStorage;
using tilegpu::getThreads;
using tilegpu::sharedView;
using tilegpu::threadId;
using tilegpu::barrier;
using tilegpu::numElements;
using tilegpu::delinearize;
using tilegpu::buildThreadStridedLoop;
using tilegpu::expandAtRegister;
using tilegpu::indicesOfRegister;
using tilegpu::registerHoldsElement;
using tilegpu::registerOwnsElement;
using tilegpu::forEachHeldElement;
using tilegpu::stageToShared;
using tilegpu::storeFragmentToShared;
using tilegpu::reserveSharedScratch;
using tilegpu::swizzledColumn;
using tilegpu::physicalIndices;
using tilegpu::tileIndicesOf;
using tilegpu::loadSourceElement;
using tilegpu::kScratchAttr;
using tilegpu::placedSharedBytes;

// The tile.* attributes the lowering's steps exchange, declared (and
// verified) in TileDialect.td.
/// On a tile.gemm inside a TMA pipeline: leave its wgmma group in flight
/// (wgmma.wait_group 1); the pipeline waits for it after the loop.
constexpr StringLiteral kWgmmaPendingAttr =
    TileDialect::WgmmaPendingAttrHelper::getNameStr();
/// On a tile.kernel whose block got a producer warpgroup: its thread count
/// (launched after the kernel's `threads`).
constexpr StringLiteral kProducerThreadsAttr =
    TileDialect::ProducerThreadsAttrHelper::getNameStr();
/// On the scf.if that runs the kernel's own code in the consumer threads
/// of such a block: how many there are (their barriers are named barriers
/// of that many threads).
constexpr StringLiteral kConsumerThreadsAttr =
    TileDialect::ConsumerThreadsAttrHelper::getNameStr();
/// On the function argument that carries a TMA descriptor (a CUtensorMap
/// the launcher builds): {param, box, swizzle}.
constexpr StringLiteral kTmaArgAttr = TileDialect::TmaAttrHelper::getNameStr();

/// An NVIDIA warp (what NvidiaTarget::getWarpSize answers): the sm_80 and
/// sm_90a instructions (mma.sync, wgmma, the warpgroup's barriers) are
/// written for it.
constexpr int64_t kWarpSize = 32;
constexpr int64_t kWarpgroupSize = 128;
/// TMA with the 128-byte swizzle and wgmma descriptors need buffers aligned
/// to the swizzle pattern's 1024 bytes.
constexpr int64_t kSwizzleAtomBytes = 1024;

/// `v` recomputed at the insertion point: the ops it depends on inside
/// `scope` are cloned there, their operands looked up in `mapping` (which
/// gets their results); values from outside `scope` and block arguments not
/// in `mapping` are used as they are. With a pipelined loop's induction
/// variable mapped to `iv`: `v` as computed in that iteration.
Value cloneDependencies(RewriterBase &rewriter, Value v, Operation *scope,
                        IRMapping &mapping);

/// True when `v` depends, inside `scope`, only on pure ops, on `ivs` and on
/// the block arguments of `scope`'s body: what cloneDependencies can
/// recompute elsewhere.
bool computableFrom(Value v, Operation *scope, ValueRange ivs);

/// Iteration `iv` of a loop from `lower` by `step` in a ring of `numStages`
/// stages: its number (plus `base`, the iterations of earlier runs of the
/// loop that went through the same ring, if given) and its stage (the
/// number mod S).
struct RingSlot {
  Value iteration, stage;
};
RingSlot ringSlot(OpBuilder &b, Location loc, Value iv, Value lower,
                  Value step, int64_t numStages, Value base = Value());

/// The first row of warp `warp`'s strips in the wgmma partition with
/// `repeats` 64-row blocks a warpgroup (WarpPartition::repeats): warp q of
/// warpgroup g holds rows 16q .. 16q + 15 of each block from row 64
/// repeats g on, the strips 64 rows apart.
Value wgmmaWarpRow(OpBuilder &b, Location loc, Value warp, int64_t repeats);

/// The register of a 16-bit fragment in an accumulator layout (row r of
/// the M x K tile held as mma.sync C atoms) that holds element e (0..7) of
/// the m16k16 A operand fragment starting at row `row` and column `col`, as
/// lane 0 of the first warp holds it (every lane holds its elements in the
/// same registers): rows row + {0, 8}, columns col + {0, 1, 8, 9}. Two
/// m16n8 C atoms side by side are one m16k16 A atom.
inline int64_t aOperandRegister(FragmentLayoutAttr layout, int64_t row,
                                int64_t col, int64_t e) {
  return layout.apply({row + (e / 2 % 2) * 8, col + (e / 4) * 8 + e % 2})
      .second;
}

/// Pipelines `loop` when its global -> shared copies can run ahead:
/// each such buffer gets num_stages copies; num_stages - 1 iterations of
/// copies are issued before the loop; each iteration waits for its own
/// group (cp.async.wait_group num_stages - 2), synchronizes, issues the
/// copies of the iteration num_stages - 1 ahead into the stage the previous
/// iteration read, and computes on its stage. The loop is left with
/// num_stages = 1: its remaining ops lower as usual. The stage buffers
/// start at `sharedBytes`, which is moved past them.
void pipelineWithCpAsync(RewriterBase &rewriter, PipelinedOp loop,
                         int64_t &sharedBytes);

/// Pipelines `loop` with TMA loads into swizzled stage buffers and
/// an mbarrier ring (sm_90a) when its global -> shared copies feed wgmma
/// gemms; returns false (and changes nothing) otherwise. A loop that runs
/// once per tile of a persistent block (in an scf.for directly in the
/// kernel) shares one ring among its runs; `sharedLimit` bounds the shared
/// memory it may take for an epilogue buffer of its own. Fails (at the gemm,
/// before changing anything) when a wgmma cannot have the registers ptxas
/// needs for it at the block's thread count.
FailureOr<bool> pipelineWithTma(RewriterBase &rewriter, PipelinedOp loop,
                                int64_t &sharedBytes, int64_t sharedLimit);

/// C += op(A) op(B) as wgmma from shared-memory descriptors: B, and A
/// unless it is a fragment (then A comes from its registers), are panel
/// buffers of a TMA pipeline, C a fragment with the wgmma accumulator
/// layout.
void emitWgmmaGemm(PatternRewriter &rewriter, GemmOp op, const Storage &a,
                   const Storage &b, const Storage &c);

/// tile.gemm as its #tile.mma asks (Gemm.cpp).
void populateGemmToNVVMPatterns(RewritePatternSet &patterns);
/// tile.gemm_sp on its expanded A (GemmSp.cpp).
void populateGemmSpToNVVMPatterns(RewritePatternSet &patterns);

} // namespace mlir::tile::nvvm

#endif // TILE_LIB_CONVERSION_TILETONVVM_NVVMCOMMON_H
