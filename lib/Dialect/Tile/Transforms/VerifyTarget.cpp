//===- VerifyTarget.cpp - tile-verify-target ------------------------------===//
//
// Checks every tile.kernel against the limits and instruction set of a
// target, so that an illegal program fails with a located diagnostic before
// lowering starts.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/Passes.h"
#include "tile/Target/TargetInfo.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <limits>

#define DEBUG_TYPE "tile-verify-target"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEVERIFYTARGET
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Bytes of a statically shaped buffer, saturated at INT64_MAX. `index`
/// elements count as 64 bits (getElementTypeBitWidth does not take them).
int64_t getBufferBytes(MemRefType type) {
  Type elt = type.getElementType();
  uint64_t bits = elt.isIntOrFloat() ? elt.getIntOrFloatBitWidth() : 64;
  uint64_t elements = 1;
  bool overflow = false, stepOverflow = false;
  for (int64_t dim : type.getShape()) {
    elements = llvm::SaturatingMultiply(
        elements, static_cast<uint64_t>(std::max<int64_t>(dim, 0)),
        &stepOverflow);
    overflow |= stepOverflow;
  }
  uint64_t totalBits = llvm::SaturatingMultiply(elements, bits, &stepOverflow);
  overflow |= stepOverflow;
  uint64_t bytes = totalBits / 8 + (totalBits % 8 != 0);
  if (overflow || bytes > uint64_t(std::numeric_limits<int64_t>::max()))
    return std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(bytes);
}

LogicalResult verifyKernel(KernelOp kernel, const TargetInfo &target) {
  bool ok = true;
  // The attribute is an I64Attr, whose getter is unsigned; the verifier
  // guarantees a positive value.
  int64_t threads = kernel.getThreadsAttr().getInt();
  if (threads > target.getMaxThreadsPerBlock()) {
    kernel.emitOpError() << "uses " << threads << " threads per block; "
                         << target.getName() << " allows at most "
                         << target.getMaxThreadsPerBlock();
    ok = false;
  }
  if (target.isGPU() && threads % target.getWarpSize() != 0) {
    kernel.emitOpError() << "uses " << threads << " threads per block; on "
                         << target.getName() << " use a multiple of the warp "
                         << "size " << target.getWarpSize();
    ok = false;
  }
  // (The CPU runs the blocks of a cluster like any others: a cluster
  // only groups blocks for the hardware, which programs cannot observe
  // without cluster operations, and the language has none.)
  if (kernel.getCluster() && target.isGPU() && !target.supportsClusters()) {
    kernel.emitOpError() << "uses thread-block clusters, which "
                         << target.getName() << " does not have";
    ok = false;
  }

  // Saturating sums: absurd shapes must not wrap around below the limit.
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  auto add = [&](int64_t &sum, int64_t bytes) {
    sum = bytes > kMax - sum ? kMax : sum + bytes;
  };
  // Shared buffers, and all block buffers (fragment and local too): on a
  // CPU they all live on the stack of the block's worker thread.
  int64_t sharedBytes = 0, blockBytes = 0;
  // The shared tile of TileLang's epilogue after a pipelined gemm loop,
  // which the target may store without (tile-lower-ops checks the exact
  // figure).
  auto fusedEpilogue = [&](AllocSharedOp alloc) {
    std::optional<SharedEpilogue> ep;
    if (!target.fusesSharedEpilogues() ||
        !(ep = getSharedEpilogue(alloc.getResult())))
      return false;
    Value fragment = ep->in.getSource();
    return llvm::any_of(fragment.getUsers(), [&](Operation *user) {
      auto gemm = dyn_cast<GemmOp>(user);
      auto loop = gemm ? dyn_cast<PipelinedOp>(gemm->getParentOp())
                       : PipelinedOp();
      return loop && gemm.getC() == fragment &&
             loop->getBlock() == ep->in->getBlock() &&
             loop->isBeforeInBlock(ep->in);
    });
  };
  kernel.walk([&](Operation *op) {
    if (auto alloc = dyn_cast<AllocSharedOp>(op)) {
      if (!fusedEpilogue(alloc))
        add(sharedBytes, getBufferBytes(alloc.getType()));
      add(blockBytes, getBufferBytes(alloc.getType()));
    } else if (isa<AllocFragmentOp, AllocLocalOp>(op)) {
      add(blockBytes,
          getBufferBytes(cast<MemRefType>(op->getResult(0).getType())));
    } else if (auto gemm = dyn_cast<GemmOp>(op)) {
      Type a = gemm.getA().getType().getElementType();
      Type b = gemm.getB().getType().getElementType();
      Type c = gemm.getC().getType().getElementType();
      if (!target.supportsGemm(a, b, c)) {
        gemm.emitOpError() << "element types " << a << " x " << b << " -> " << c
                           << " are not supported on " << target.getName()
                           << " (it supports " << target.describeGemmTypes()
                           << ")";
        ok = false;
      }
    } else if (auto gemm = dyn_cast<GemmSpOp>(op)) {
      Type a = gemm.getA().getType().getElementType();
      Type b = gemm.getB().getType().getElementType();
      Type c = gemm.getC().getType().getElementType();
      if (!target.supportsSparseGemm(a, b, c)) {
        gemm.emitOpError() << "sparse element types " << a << " x " << b
                           << " -> " << c << " are not supported on "
                           << target.getName();
        ok = false;
      }
    } else if (auto loop = dyn_cast<PipelinedOp>(op)) {
      // On GPUs each global -> shared copy of a pipelined loop gets
      // num_stages copies of its buffer (in place of the buffer).
      if (target.isGPU() && loop.getNumStages() > 1)
        for (Operation &inner : loop.getBodyBlock())
          if (auto copy = dyn_cast<CopyOp>(inner))
            if (isGlobal(copy.getSource().getType()) &&
                getScope(copy.getTarget().getType()) == Scope::Shared) {
              int64_t bytes = getBufferBytes(copy.getTarget().getType());
              int64_t stages = loop.getNumStages();
              add(sharedBytes,
                  bytes > kMax / stages ? kMax : bytes * (stages - 1));
            }
    } else if (auto copy = dyn_cast<CopyOp>(op)) {
      if (!target.supportsCopyInst(copy.getInst())) {
        copy.emitOpError() << "asks for instruction '"
                           << stringifyCopyInst(copy.getInst()) << "', which "
                           << target.getName()
                           << " does not have; use inst = "
                              "#tile.copy_inst<auto>";
        ok = false;
      }
    }
  });
  LLVM_DEBUG(llvm::dbgs() << "kernel uses " << sharedBytes
                          << " bytes of shared memory\n");
  auto bytesStr = [&](int64_t bytes) {
    return bytes == kMax ? std::string("more than 2^63")
                         : std::to_string(bytes);
  };
  if (sharedBytes > target.getMaxSharedMemoryBytes()) {
    kernel.emitOpError() << "allocates " << bytesStr(sharedBytes)
                         << " bytes of shared memory; " << target.getName()
                         << " allows " << target.getMaxSharedMemoryBytes()
                         << " per block (use smaller tiles or fewer stages)";
    ok = false;
  } else if (!target.isGPU() && blockBytes > target.getMaxSharedMemoryBytes()) {
    // Without this, absurd fragment / local buffers reach the CPU lowering,
    // which builds vectors as long as their rows (and hangs or aborts).
    kernel.emitOpError() << "allocates " << bytesStr(blockBytes)
                         << " bytes of shared, fragment and local buffers, "
                            "which all live on the stack of the block's "
                            "thread on "
                         << target.getName() << "; it allows "
                         << target.getMaxSharedMemoryBytes() << " per block";
    ok = false;
  }
  return success(ok);
}

struct TileVerifyTargetPass
    : public tile::impl::TileVerifyTargetBase<TileVerifyTargetPass> {
  using Base::Base;

  void runOnOperation() override {
    std::unique_ptr<TargetInfo> info =
        TargetInfo::getOrEmitError(target, getOperation());
    if (!info)
      return signalPassFailure();
    bool ok = true;
    getOperation().walk(
        [&](KernelOp kernel) { ok &= succeeded(verifyKernel(kernel, *info)); });
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
