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
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
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

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

/// `bytes` for diagnostics (getBufferBytes saturates).
std::string bytesStr(int64_t bytes) {
  return bytes == kMax ? std::string("more than 2^63") : std::to_string(bytes);
}

/// Threads, grid and cluster of `kernel` against the target's limits.
LogicalResult verifyLaunchShape(KernelOp kernel, const TargetInfo &target) {
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
  // A block may end in a partial warp (TileLang accepts threads=1 or 48);
  // the ops whose lowerings split their work over whole warps need whole
  // ones.
  if (target.isGPU() && threads % target.getWarpSize() != 0)
    kernel.walk([&](Operation *op) {
      if (!isa<GemmOp, GemmSpOp, ReduceOp>(op))
        return;
      op->emitOpError() << "splits its work over whole warps, but the "
                        << "kernel's " << threads << " threads per block are "
                        << "not a multiple of " << target.getName()
                        << "'s warp size " << target.getWarpSize();
      ok = false;
    });
  // (The CPU runs the blocks of a cluster like any others: a cluster
  // only groups blocks for the hardware, which programs cannot observe
  // without cluster operations, and the language has none.)
  if (kernel.getCluster() && target.isGPU() && !target.supportsClusters()) {
    kernel.emitOpError() << "uses thread-block clusters, which "
                         << target.getName() << " does not have";
    ok = false;
  } else if (std::optional<ArrayRef<int64_t>> cluster = kernel.getCluster();
             cluster && target.supportsClusters()) {
    int64_t blocks = 1;
    for (int64_t c : *cluster)
      blocks = c > target.getMaxClusterBlocks() / blocks
                   ? target.getMaxClusterBlocks() + 1
                   : blocks * c;
    if (blocks > target.getMaxClusterBlocks()) {
      kernel.emitOpError() << "has clusters of more than "
                           << target.getMaxClusterBlocks() << " blocks; "
                           << target.getName() << " allows at most "
                           << target.getMaxClusterBlocks();
      ok = false;
    }
  }
  for (auto [dim, extent] : llvm::enumerate(kernel.getStaticGrid())) {
    if (ShapedType::isDynamic(extent) || extent <= target.getMaxGridExtent(dim))
      continue;
    kernel.emitOpError() << "has " << extent << " blocks in grid dimension "
                         << dim << "; " << target.getName()
                         << " allows at most " << target.getMaxGridExtent(dim);
    ok = false;
  }
  return success(ok);
}

/// What each thread holds: its share of every fragment (in 32-bit
/// registers, before layouts replicate anything) and its local buffers,
/// against the target's register file and local memory. The lowerings
/// unroll over a thread's registers, so this bounds their work too.
LogicalResult verifyThreadStorage(KernelOp kernel, const TargetInfo &target) {
  if (!target.isGPU())
    return success();
  int64_t threads = kernel.getThreadsAttr().getInt();
  int64_t localBytes = 0;
  bool ok = true;
  kernel.walk([&](Operation *op) {
    if (auto frag = dyn_cast<AllocFragmentOp>(op)) {
      int64_t bytes = getBufferBytes(frag.getType());
      int64_t registers = bytes / 4 + (bytes % 4 != 0);
      int64_t share = registers / threads + (registers % threads != 0);
      int64_t limit = target.getMaxFragmentWordsPerThread();
      if (limit && share > limit) {
        frag.emitOpError() << "needs " << (bytes == kMax ? "more than " : "")
                           << share << " 32-bit registers in each of the block's "
                           << threads << " threads; " << target.getName()
                           << " has " << target.getMaxRegistersPerThread()
                           << " a thread and spills at most " << limit
                           << " words of a fragment to local memory (use a "
                              "smaller tile or more threads)";
        ok = false;
      }
    } else if (auto local = dyn_cast<AllocLocalOp>(op)) {
      int64_t bytes = getBufferBytes(local.getType());
      localBytes = addBytes(localBytes, bytes);
    }
  });
  if (target.getMaxLocalBytesPerThread() &&
      localBytes > target.getMaxLocalBytesPerThread()) {
    kernel.emitOpError() << "allocates " << bytesStr(localBytes)
                         << " bytes of local buffers, which every thread "
                            "holds a copy of; "
                         << target.getName() << " allows "
                         << target.getMaxLocalBytesPerThread() << " a thread";
    ok = false;
  }
  return success(ok);
}

LogicalResult verifyKernel(KernelOp kernel, const TargetInfo &target) {
  bool ok = succeeded(verifyLaunchShape(kernel, target));
  ok &= succeeded(verifyThreadStorage(kernel, target));

  // Saturating sums: absurd shapes must not wrap around below the limit.
  auto add = [](int64_t &sum, int64_t bytes) { sum = addBytes(sum, bytes); };
  // Shared buffers, and all block buffers (fragment and local too): on a
  // CPU they all live on the stack of the block's worker thread.
  int64_t sharedBytes = 0, blockBytes = 0;
  // The shared tile of TileLang's epilogue after a pipelined gemm loop,
  // which the target may store without (tile-lower-ops checks the exact
  // figure).
  auto fusedEpilogue = [&](AllocSharedOp alloc) {
    return target.fusesSharedEpilogues() &&
           isPipelinedGemmEpilogue(alloc.getResult());
  };
  // What each shared buffer takes: its bytes (nothing for a fused
  // epilogue's tile), and the extra stages of a pipelined loop's copies.
  llvm::DenseMap<Operation *, int64_t> sharedCost;
  kernel.walk([&](Operation *op) {
    if (auto alloc = dyn_cast<AllocSharedOp>(op)) {
      if (!fusedEpilogue(alloc))
        add(sharedCost[alloc], getBufferBytes(alloc.getType()));
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
      if (target.multiBuffersPipelinedCopies() && loop.getNumStages() > 1)
        for (Operation &inner : loop.getBodyBlock())
          if (auto copy = dyn_cast<CopyOp>(inner))
            if (isGlobal(copy.getSource().getType()) &&
                getScope(copy.getTarget().getType()) == Scope::Shared) {
              int64_t bytes = getBufferBytes(copy.getTarget().getType());
              int64_t stages = loop.getNumStages();
              Operation *alloc = copy.getTarget().getDefiningOp();
              add(alloc ? sharedCost[alloc] : sharedBytes,
                  bytes > kMax / stages ? kMax : bytes * (stages - 1));
            }
    } else if (std::optional<StringRef> vendor =
                   target.getForeignVendor(op)) {
      op->emitOpError() << "is " << *vendor << "-only thread-level code, "
                        << "which " << target.getName()
                        << " cannot run (TileLang's T.alloc_barrier, "
                           "T.tma_copy and the like are NVIDIA's mbarriers "
                           "and TMA); write the kernel with tile ops or "
                           "compile for a target of that vendor";
      ok = false;
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
  // On GPUs buffers whose lifetimes do not overlap may share bytes
  // (tile-plan-shared): the most that are live at once must fit, at the
  // start of some buffer's lifetime. A buffer nothing uses counts
  // throughout. On the CPU each buffer is an array of its own.
  SmallVector<SharedLifetime> lifetimes = getSharedLifetimes(kernel);
  int64_t peak = sharedBytes;
  for (const SharedLifetime &at : lifetimes) {
    int64_t live = sharedBytes;
    for (const SharedLifetime &other : lifetimes)
      if (!target.isGPU() || !other.used ||
          (other.first <= at.first && at.first <= other.last))
        add(live, sharedCost.lookup(other.alloc));
    peak = std::max(peak, live);
  }
  sharedBytes = peak;
  LLVM_DEBUG(llvm::dbgs() << "kernel uses " << sharedBytes
                          << " bytes of shared memory\n");
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

/// Checks a type the lowerings will meet: no tf32 elements; for memrefs a
/// strided layout (what LLVM's memref descriptor holds), and global memory
/// (no memory space) outside kernels, a tile scope or global memory inside. `emit` starts the
/// diagnostic with what has the type.
LogicalResult verifyMemRefType(Type type, bool inKernel,
                               function_ref<InFlightDiagnostic()> emit) {
  // LLVM has no type for tf32 (a tensor-core input format, not storage).
  if (isa<FloatTF32Type>(getElementTypeOrSelf(type)))
    return emit() << "has type " << type
                  << "; tf32 has no LLVM type to lower it to: keep the data "
                     "in f32 (f32 gemms run as tf32 on tensor cores)";
  auto memref = dyn_cast<BaseMemRefType>(type);
  if (!memref)
    return success();
  if (auto ranked = dyn_cast<MemRefType>(memref); ranked && !ranked.isStrided())
    return emit() << "has type " << type << ", whose layout "
                  << ranked.getLayout()
                  << " is not strided; the lowerings take the identity "
                     "layout and strided<[...], offset: ...> layouts";
  Attribute space = memref.getMemorySpace();
  if (!space || (inKernel && isa<ScopeAttr>(space)))
    return success();
  if (inKernel)
    return emit() << "has type " << type << ", whose memory space " << space
                  << " is not a tile scope; buffers in a tile.kernel are "
                     "global (no memory space) or #tile.scope<shared>, "
                     "<fragment> or <local>";
  return emit() << "has type " << type << " in memory space " << space
                << " outside a tile.kernel; functions and host code take "
                   "global memrefs (no memory space): shared, fragment and "
                   "local buffers are allocated inside a kernel";
}

/// verifyMemRefType on every value and function signature of `module`.
LogicalResult verifyMemRefTypes(ModuleOp module) {
  bool ok = true;
  module.walk([&](Operation *op) {
    bool inKernel = op->getParentOfType<KernelOp>() != nullptr;
    Region *signatureRegion = nullptr;
    if (auto fn = dyn_cast<FunctionOpInterface>(op)) {
      signatureRegion = &fn.getFunctionBody();
      auto check = [&](ArrayRef<Type> types, StringRef what, bool args) {
        for (auto [i, type] : llvm::enumerate(types))
          ok &= succeeded(verifyMemRefType(type, inKernel, [&, i = i] {
            Location loc = args && !fn.isExternal() ? fn.getArgument(i).getLoc()
                                                    : fn.getLoc();
            return emitError(loc)
                   << what << " #" << i << " of @"
                   << SymbolTable::getSymbolName(fn).getValue() << " ";
          }));
      };
      check(fn.getArgumentTypes(), "argument", true);
      check(fn.getResultTypes(), "result", false);
    }
    for (OpResult result : op->getResults())
      ok &= succeeded(verifyMemRefType(result.getType(), inKernel, [&] {
        return op->emitOpError()
               << "result #" << result.getResultNumber() << " ";
      }));
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments()) {
          if (&region == signatureRegion && block.isEntryBlock())
            continue;
          ok &= succeeded(verifyMemRefType(
              arg.getType(), inKernel || isa<KernelOp>(op), [&] {
                return emitError(arg.getLoc())
                       << "block argument #" << arg.getArgNumber() << " ";
              }));
        }
  });
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
    bool ok = succeeded(verifyMemRefTypes(getOperation()));
    // The pipelines compile the functions of the top-level module; one
    // inside another (two top-level ops in a file are wrapped in a module)
    // would reach the conversions half-configured.
    getOperation().walk([&](ModuleOp nested) {
      if (nested == getOperation())
        return WalkResult::advance();
      nested.emitError() << "a nested builtin.module is not compiled: the "
                            "tile pipelines take the functions of the "
                            "top-level module (one top-level op a file)";
      ok = false;
      return WalkResult::skip();
    });
    getOperation().walk(
        [&](KernelOp kernel) { ok &= succeeded(verifyKernel(kernel, *info)); });
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
