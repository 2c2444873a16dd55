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

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::tile {

/// Places the kernel's buffers: shared buffers become views of dynamic
/// shared memory (the kernel gets a `tile.shared_bytes` attribute),
/// fragments become per-thread register arrays under their layout, local
/// buffers per-thread arrays; pipelined loops get their stage buffers (TMA
/// and mbarriers on sm >= 90 where wgmma reads them, cp.async otherwise).
/// Run before the op patterns. `sharedLimit`: the shared memory a block may
/// have, which optional buffers (a persistent GEMM's epilogue) stay within;
/// `registerLimit`: the 32-bit words of a fragment a thread may hold
/// (TargetInfo::getMaxFragmentWordsPerThread), which bounds each
/// fragment's share.
LogicalResult prepareKernelForNVVM(RewriterBase &rewriter, KernelOp kernel,
                                   int sm, int64_t sharedLimit,
                                   int64_t registerLimit);

/// Patterns that lower every tile op except tile.kernel for NVIDIA GPUs
/// (gemms as their #tile.mma asks).
void populateTileToNVVMOpPatterns(RewritePatternSet &patterns);

/// tile-select-mma for NVIDIA GPUs (TargetInfo::settleMma): a gemm whose
/// #tile.mma asks for wgmma keeps it where a TMA pipeline on sm >= 90 will
/// load its operands (the loop's every global -> shared copy a TMA load,
/// every gemm reading them able to run as wgmma, judged with the fragment
/// layouts `layoutOf` gives), and runs as mma.sync on the same warp
/// partition elsewhere; fp8 gemms that stay off wgmma are reported.
LogicalResult settleMmaForNVVM(KernelOp kernel, int sm,
                               function_ref<FragmentLayoutAttr(Value)> layoutOf);

/// Checks that nothing still needs the tile view of a buffer and drops it.
LogicalResult finishKernelForNVVM(RewriterBase &rewriter, KernelOp kernel);

/// Replaces `kernel` by a gpu.launch of its grid with `threads` threads (and
/// its producer warpgroup, if any) and its cluster size (sm >= 90).
LogicalResult lowerKernelToNVVM(RewriterBase &rewriter, KernelOp kernel,
                                int sm);

/// After prepareKernelForNVVM: reserves the shared scratch of each
/// tile.finalize_reducer (the warps' partial results) and checks that the
/// loops that update reducers run each iteration on one thread.
LogicalResult prepareReducersForNVVM(RewriterBase &rewriter, KernelOp kernel);

/// Patterns for tile.finalize_reducer and copies out of a reducer.
void populateReducerToNVVMPatterns(RewritePatternSet &patterns);

/// The shared-memory bytes a prepared kernel needs.
inline StringRef getSharedBytesAttrName() {
  return TileDialect::SharedBytesAttrHelper::getNameStr();
}

} // namespace mlir::tile

#endif // TILE_CONVERSION_TILETONVVM_TILETONVVM_H
