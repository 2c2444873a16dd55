//===- TileToNVVM.h - Lowering tile ops for NVIDIA GPUs ---------*- C++ -*-===//
//
// A block is a CUDA thread block of `threads` threads. Shared buffers live
// in dynamic shared memory, fragments in the registers of the threads that
// their layout (tile-infer-layouts) gives them to, gemm runs on mma.sync
// (sm_80) or on wgmma fed by TMA (sm_90a, `sm` >= 90), as tile-select-mma
// chose.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CONVERSION_TILETONVVM_TILETONVVM_H
#define TILE_CONVERSION_TILETONVVM_TILETONVVM_H

#include "tile/Dialect/Tile/IR/DiscardableAttrs.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/PatternMatch.h"

#include <memory>

namespace mlir::tile {

class GpuLowering;

/// tile-software-pipeline: gives the pipelined loops of a placed kernel
/// their stage buffers from the kernel's `tile.shared_bytes` on (which it
/// sets to their end): a TMA and mbarrier ring (sm >= 90, where wgmma reads
/// them; the ring may get a producer warpgroup) or cp.async stages.
/// `sharedLimit`: the shared memory a block may have, which optional
/// buffers (a persistent GEMM's epilogue) stay within.
LogicalResult pipelineLoopsForNVVM(RewriterBase &rewriter, KernelOp kernel,
                                   int sm, int64_t sharedLimit);

/// tile-warp-specialize on NVIDIA GPUs: on sm >= 90, gives `kernel`
/// `tile.producer_threads = 128` where its pipelined loop will be a TMA
/// pipeline (its gemms' #tile.mma ask for wgmma) that can have a producer
/// warpgroup (see canSpecialize) and is better off with one: not a block of
/// one warpgroup whose wgmma accumulators take 128 registers a thread in a
/// grid of more blocks than SMs, where the producer's registers would halve
/// the blocks an SM holds. A kernel that has the attribute keeps it.
LogicalResult specializeWarpsForNVVM(KernelOp kernel, int sm);

/// tile-plan-scratch on NVIDIA GPUs: planScratchForGPU, the gemms that
/// take A from registers being mma.sync's (mmaAFromRegisters).
LogicalResult planScratchForNVVM(RewriterBase &rewriter, KernelOp kernel,
                                 int64_t sharedLimit, int64_t warpSize);

/// The GpuLowering of NVIDIA GPUs (warps of `warpSize` lanes:
/// TargetInfo::getWarpSize) of compute capability `sm` (80 for sm_80, 90
/// for sm_90a: vector atomics), which NvidiaTarget owns.
std::unique_ptr<GpuLowering> createNVVMGpuLowering(int64_t warpSize,
                                                   int64_t sm);

/// Patterns that lower every tile op except tile.kernel for NVIDIA GPUs:
/// the target-neutral ones (populateTileToGPUPatterns) with `lowering`, and
/// the gemms as their #tile.mma asks. The patterns keep a reference to
/// `lowering`.
void populateTileToNVVMOpPatterns(RewritePatternSet &patterns,
                                  const GpuLowering &lowering);

/// tile-select-mma for NVIDIA GPUs (TargetInfo::settleMma): a gemm whose
/// #tile.mma asks for wgmma keeps it where a TMA pipeline on sm >= 90 will
/// load its operands (the loop's every global -> shared copy a TMA load,
/// every gemm reading them able to run as wgmma, judged with the fragment
/// layouts `layoutOf` gives), and runs as mma.sync on the same warp
/// partition elsewhere; fp8 gemms that stay off wgmma are reported.
LogicalResult settleMmaForNVVM(KernelOp kernel, int sm,
                               function_ref<FragmentLayoutAttr(Value)> layoutOf);

/// The width in bytes (128, 64 or 32) of the swizzled panels in which an
/// sm_90a TMA pipeline stores `tile`, a 2-d shared tile that wgmma reads:
/// the widest of TMA's and wgmma's swizzles (128B, 64B, 32B) whose rows a
/// row of the tile fills whole; 0 when its rows are not a whole number of
/// 32 bytes. The one place this is decided: the TMA box records it (the
/// descriptor's `swizzle`, the stage views' `panel_bytes`), tile-select-mma
/// asks it whether TMA can feed a gemm, and every later step reads the
/// recorded width.
int64_t getPanelBytes(MemRefType tile);

/// tile-lower-ops' last step: the consumers of a block with a producer
/// warpgroup synchronize on a named barrier, then finishKernelForGPU.
LogicalResult finishKernelForNVVM(RewriterBase &rewriter, KernelOp kernel);

/// Replaces `kernel` by a gpu.launch of its grid with `threads` threads (and
/// its producer warpgroup, if any) and its cluster size (sm >= 90).
LogicalResult lowerKernelToNVVM(RewriterBase &rewriter, KernelOp kernel,
                                int sm);

} // namespace mlir::tile

#endif // TILE_CONVERSION_TILETONVVM_TILETONVVM_H
