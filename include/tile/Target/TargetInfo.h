//===- TargetInfo.h - What differs between targets --------------*- C++ -*-===//
//
// The one interface behind which NVIDIA sm_80, NVIDIA sm_90a, AMD gfx942 and
// the CPU differ. Passes are written once and ask the target.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_TARGETINFO_H
#define TILE_TARGET_TARGETINFO_H

#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Types.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "llvm/ADT/StringRef.h"

#include <limits>
#include <optional>
#include <memory>

namespace mlir::tile {

/// The target of the passes' `target` option when none is given (the same
/// for every pass, and the tile-to-nvvm pipeline's default chip).
inline StringRef getDefaultTargetName() { return "sm_90a"; }

class TargetInfo {
public:
  virtual ~TargetInfo();

  /// The target's name as given to passes: cpu, sm_80, sm_90a, gfx942.
  virtual StringRef getName() const = 0;
  /// True for GPU targets.
  virtual bool isGPU() const = 0;
  /// Threads that execute in lock step (1 on the CPU).
  virtual int64_t getWarpSize() const = 0;
  virtual int64_t getMaxThreadsPerBlock() const = 0;
  /// Shared memory a block may use, in bytes.
  virtual int64_t getMaxSharedMemoryBytes() const = 0;
  /// 32-bit registers a thread may use, which bounds its share of each
  /// fragment; 0 where fragments are ordinary memory (CPU).
  virtual int64_t getMaxRegistersPerThread() const { return 0; }
  /// 32-bit words of one fragment a thread may hold: past the register file
  /// the rest spills to local memory (correct, slower); past four register
  /// files a fragment is refused, which also bounds the lowerings' walks
  /// over a thread's registers. 0 on the CPU.
  int64_t getMaxFragmentWordsPerThread() const {
    return 4 * getMaxRegistersPerThread();
  }
  /// Bytes of local buffers (each thread's own copy) a thread may hold;
  /// 0 where they are memory of the block (CPU: counted with shared
  /// memory).
  virtual int64_t getMaxLocalBytesPerThread() const { return 0; }
  /// Largest grid extent in dimension `dim` (0, 1, 2).
  virtual int64_t getMaxGridExtent(unsigned dim) const {
    return std::numeric_limits<int64_t>::max();
  }
  /// Blocks a thread-block cluster may have (where clusters exist).
  virtual int64_t getMaxClusterBlocks() const { return 0; }
  /// True when thread-block clusters exist.
  virtual bool supportsClusters() const { return false; }
  /// True when the shared tile of TileLang's epilogue (getSharedEpilogue)
  /// after a pipelined gemm loop takes no shared memory: its copies become
  /// one store of the accumulator (sm_90a).
  virtual bool fusesSharedEpilogues() const { return false; }
  /// True when a gemm with these element types runs on the target.
  virtual bool supportsGemm(Type a, Type b, Type c) const = 0;
  /// True when a 2:4 sparse gemm with these element types runs.
  virtual bool supportsSparseGemm(Type a, Type b, Type c) const = 0;
  /// True when tile-software-pipeline gives each global -> shared copy of
  /// a tile.pipelined loop num_stages buffers (tile-verify-target counts
  /// them); false where pipelined loops run their iterations in order.
  virtual bool multiBuffersPipelinedCopies() const { return isGPU(); }
  /// The vendor ("NVIDIA", "AMD") of `op` where it is thread-level code of
  /// another GPU vendor's dialects (nvgpu / nvvm, amdgpu / rocdl), which
  /// this target cannot lower; nullopt otherwise (the CPU target checks
  /// thread-level code itself, in tile-lower-kernel).
  virtual std::optional<StringRef> getForeignVendor(Operation *op) const {
    return std::nullopt;
  }
  /// True when the copy instruction family exists on the target.
  virtual bool supportsCopyInst(CopyInst inst) const = 0;
  /// A short description of the gemm types the target supports, for
  /// diagnostics.
  virtual StringRef describeGemmTypes() const = 0;

  /// The register layout of the accumulator of `gemm` (a tile.gemm or
  /// tile.gemm_sp) on this target, as its #tile.mma (tile-select-mma)
  /// partitions it, or null with the reason in `why` (an empty reason: the
  /// target keeps fragments without a layout, as the CPU).
  virtual FragmentLayoutAttr getAccumulatorLayout(Operation *gemm,
                                                  std::string &why) const {
    return nullptr;
  }

  /// tile-select-mma, first step: the #tile.mma of `gemm` (a tile.gemm or
  /// tile.gemm_sp) from its shape, types, policy and the block's warps: the
  /// warp partition, and the instruction that shape asks for, which
  /// settleMma may still change. Null where the target has no tensor-core
  /// choice (CPU); failure (reported) where no instruction fits.
  virtual FailureOr<MmaAttr> selectMma(Operation *gemm) const {
    return MmaAttr();
  }
  /// tile-select-mma, second step, once every gemm of `kernel` has its
  /// #tile.mma: settles the instructions that depend on the gemm's
  /// surroundings (sm_90a: wgmma only where a TMA pipeline loads its
  /// operands), given the fragment layouts the choices lead to
  /// (`layoutOf`, null for buffers that are not fragments). The warp
  /// partitions stay.
  virtual LogicalResult
  settleMma(KernelOp kernel,
            function_ref<FragmentLayoutAttr(Value)> layoutOf) const {
    return success();
  }

  /// tile-warp-specialize (GPUs), once the gemms have their #tile.mma:
  /// decides which kernels get warpgroups of their own that only load
  /// (`tile.producer_threads` on the kernel), which tile-software-pipeline
  /// then builds.
  virtual LogicalResult specializeWarps(KernelOp kernel) const {
    return success();
  }

  /// tile-place-buffers (GPUs): gives each buffer of `kernel` its storage,
  /// a tile.bind_storage of it (shared buffers at tile-plan-shared's
  /// planned offset, fragments under their layout).
  virtual LogicalResult placeBuffers(RewriterBase &rewriter,
                                     KernelOp kernel) const {
    return success();
  }
  /// tile-software-pipeline (GPUs): gives the tile.pipelined loops of a
  /// placed kernel their stage buffers and asynchronous copies, and the
  /// kernel the shared bytes they take (`tile.shared_bytes`).
  virtual LogicalResult pipelineLoops(RewriterBase &rewriter,
                                      KernelOp kernel) const {
    return success();
  }
  /// tile-plan-scratch (GPUs): places the lowerings' shared scratch buffers
  /// and tile-plan-shared's region after the stage buffers, and sets the
  /// kernel's final `tile.shared_bytes`.
  virtual LogicalResult planScratch(RewriterBase &rewriter,
                                    KernelOp kernel) const {
    return success();
  }

  /// Runs on each kernel before / after the tile-lower-ops patterns (CPU:
  /// the block's threads become loops; GPUs: the placed buffers' tile views
  /// are dropped).
  virtual LogicalResult prepareLowerOps(RewriterBase &rewriter,
                                        KernelOp kernel) const {
    return success();
  }
  virtual LogicalResult finishLowerOps(RewriterBase &rewriter,
                                       KernelOp kernel) const {
    return success();
  }

  /// Patterns of tile-lower-ops: every tile op except tile.kernel becomes
  /// thread-level upstream IR for this target.
  virtual void populateLowerOpsPatterns(RewritePatternSet &patterns) const = 0;
  /// Lowers one tile.kernel (tile-lower-kernel): the grid, the block's
  /// threads and the memory spaces of its buffers.
  virtual LogicalResult lowerKernel(RewriterBase &rewriter,
                                    KernelOp kernel) const = 0;

  /// The target named `name`, or null when unknown.
  static std::unique_ptr<TargetInfo> get(StringRef name);
  /// The target named `name`; when unknown, reports it at `op` (listing the
  /// known ones) and returns null. What the passes' `target` options use.
  static std::unique_ptr<TargetInfo> getOrEmitError(StringRef name,
                                                    Operation *op);
  /// Names accepted by get(), for diagnostics.
  static StringRef knownTargets();
};

/// The target lookup of the passes' `target` option: runs `fn` with the
/// target `name`, or fails when it is unknown (reported at `root`).
LogicalResult withTarget(Operation *root, StringRef name,
                         function_ref<LogicalResult(const TargetInfo &)> fn);

/// Gives every tile.kernel under `root` (collected before the first call,
/// so that `fn` may replace it) to `fn`; fails when `fn` failed on one
/// (having reported it), after the others had their turn.
LogicalResult
forEachKernel(Operation *root, const TargetInfo &info,
              function_ref<LogicalResult(KernelOp, const TargetInfo &)> fn);
/// withTarget and forEachKernel in one: the walk of passes that run on
/// every target.
LogicalResult
forEachKernel(Operation *root, StringRef name,
              function_ref<LogicalResult(KernelOp, const TargetInfo &)> fn);

/// The walk of the GPU passes over their module: forEachKernel, which
/// succeeds without calling `fn` on targets that are not GPUs.
LogicalResult
forEachGpuKernel(Operation *root, StringRef name,
                 function_ref<LogicalResult(KernelOp, const TargetInfo &)> fn);

} // namespace mlir::tile

#endif // TILE_TARGET_TARGETINFO_H
