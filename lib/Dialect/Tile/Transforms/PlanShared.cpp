//===- PlanShared.cpp - tile-plan-shared ----------------------------------===//
//
// Places the shared buffers of every GPU tile.kernel: an offset on each
// tile.alloc_shared, the planned region's size on the kernel. Buffers whose
// lifetimes do not overlap share bytes when the kernel would not fit its
// target's shared memory otherwise.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/Passes.h"
#include "tile/Target/TargetInfo.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

#define DEBUG_TYPE "tile-plan-shared"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEPLANSHARED
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kAlign = AllocSharedOp::kAlignment;

int64_t alignSat(int64_t bytes) {
  return bytes > kMax - kAlign ? kMax : int64_t(llvm::alignTo(bytes, kAlign));
}

/// What becomes of a shared buffer, in the order the plan places them:
/// the buffers a pipeliner takes over leave no hole below the others.
enum class Kind {
  /// A buffer of its own.
  Plain,
  /// A pipeliner of the target may keep it in its own region: a gemm
  /// operand loaded once before a pipelined loop, the shared tile of an
  /// epilogue after one.
  MaybeTaken,
  /// Nothing uses it: the lowering gives it no storage.
  Unused,
  /// A pipelined loop fills it from global memory: the pipeliners replace
  /// it by stage buffers (a buffer of its own only where they cannot).
  /// Placed after all others and never sharing bytes.
  Pipelined,
};

/// A shared buffer with its lifetime (getSharedLifetimes) and placement.
struct Buffer : SharedLifetime {
  int64_t bytes;
  Kind kind = Kind::Plain;
  /// Bytes the pipeliners add for its extra stages (Pipelined only).
  int64_t extraStages = 0;
  /// The shared tile of an epilogue that the target may store without.
  bool fusable = false;
  int64_t offset = 0;
};

/// A copy from global memory to `buffer` directly in `loop`'s body, of
/// the kind the pipeliners (cp.async, TMA) can issue ahead: unpadded, into
/// rows of whole 16-byte chunks (the others stay buffers).
bool filledIn(PipelinedOp loop, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  Type elt = type.getElementType();
  if (!elt.isIntOrFloat() || elt.getIntOrFloatBitWidth() % 8 != 0 ||
      128 % elt.getIntOrFloatBitWidth() != 0 ||
      type.getShape().back() * elt.getIntOrFloatBitWidth() % 128 != 0)
    return false;
  return llvm::any_of(loop.getBodyBlock(), [&](Operation &op) {
    auto copy = dyn_cast<CopyOp>(op);
    return copy && copy.getTarget() == buffer && !copy.getPad() &&
           isGlobal(copy.getSource().getType());
  });
}

/// A gemm operand loaded once before a pipelined loop of its block and only
/// read by the loop's gemms (flash attention's Q): the sm_90a TMA pipeline
/// keeps it in its own region.
bool isResidentOperand(Value buffer, PipelinedOp loop) {
  CopyOp writer;
  for (Operation *user : buffer.getUsers()) {
    auto copy = dyn_cast<CopyOp>(user);
    if (copy && copy.getTarget() == buffer && !writer) {
      writer = copy;
      continue;
    }
    auto gemm = dyn_cast<GemmOp>(user);
    if (!gemm || gemm->getParentOp() != loop.getOperation() ||
        gemm.getC() == buffer)
      return false;
  }
  return writer && writer->getBlock() == loop->getBlock() &&
         writer->isBeforeInBlock(loop) &&
         isGlobal(writer.getSource().getType());
}

/// The kinds of the used buffers, and the bytes of the pipelined ones'
/// extra stages.
void classify(KernelOp kernel, SmallVectorImpl<Buffer> &buffers,
              const TargetInfo &target) {
  // Pipelined loops whose copies get stage buffers (not on targets that
  // run their iterations in order).
  SmallVector<PipelinedOp> loops;
  kernel.walk([&](PipelinedOp loop) {
    if (loop.getNumStages() > 1 && target.multiBuffersPipelinedCopies())
      loops.push_back(loop);
  });
  bool tma = target.fusesSharedEpilogues();
  for (Buffer &b : buffers) {
    if (b.kind == Kind::Unused)
      continue;
    Value v = b.alloc.getResult();
    if (tma && isPipelinedGemmEpilogue(v)) {
      b.kind = Kind::MaybeTaken;
      b.fusable = true;
    }
    for (PipelinedOp loop : loops) {
      if (filledIn(loop, v)) {
        b.kind = Kind::Pipelined;
        int64_t stages = loop.getNumStages();
        b.extraStages = b.bytes > kMax / stages ? kMax : b.bytes * (stages - 1);
        break;
      }
      if (tma && isResidentOperand(v, loop))
        b.kind = Kind::MaybeTaken;
    }
  }
}

/// One after the other in `order`: the placement without sharing.
int64_t placeInSequence(ArrayRef<Buffer *> order) {
  int64_t end = 0;
  for (Buffer *b : order) {
    b->offset = alignSat(end);
    end = addBytes(b->offset, b->bytes);
  }
  return end;
}

/// Each buffer of `order` at the lowest aligned offset that no placed
/// buffer of an overlapping lifetime holds; the pipelined ones after all
/// others.
int64_t placeWithReuse(ArrayRef<Buffer *> order) {
  SmallVector<Buffer *> placed;
  int64_t end = 0;
  for (Buffer *b : order) {
    if (b->kind == Kind::Pipelined) {
      b->offset = alignSat(end);
      end = addBytes(b->offset, b->bytes);
      continue;
    }
    SmallVector<std::pair<int64_t, int64_t>> taken;
    for (Buffer *p : placed)
      if (p->overlaps(*b))
        taken.push_back({p->offset, addBytes(p->offset, p->bytes)});
    llvm::sort(taken);
    int64_t offset = 0;
    for (auto [from, to] : taken) {
      if (addBytes(offset, b->bytes) <= from)
        break;
      offset = std::max(offset, alignSat(to));
    }
    b->offset = offset;
    end = std::max(end, addBytes(offset, b->bytes));
    placed.push_back(b);
  }
  return end;
}

/// What the kernel needs once placed, short of the lowerings' scratch:
/// the buffers that may stay buffers, then the stage buffers of those a
/// pipelined loop fills (which replace them). With `fused`, an epilogue's
/// tile that the target may store without counts nothing (a lower bound,
/// as in tile-verify-target).
int64_t estimateBytes(ArrayRef<Buffer> buffers, bool fused) {
  int64_t end = 0, stages = 0;
  for (const Buffer &b : buffers) {
    if (b.kind == Kind::Pipelined)
      stages = addBytes(stages, alignSat(addBytes(b.bytes, b.extraStages)));
    else if (b.kind != Kind::Unused && !(fused && b.fusable))
      end = std::max(end, addBytes(b.offset, b.bytes));
  }
  return addBytes(alignSat(end), stages);
}

/// A gpu.barrier before the first op of each buffer that reuses bytes of a
/// buffer whose lifetime ended earlier.
void insertReuseBarriers(ArrayRef<Buffer> buffers,
                         ArrayRef<Operation *> bodyOps) {
  llvm::SmallDenseSet<int64_t> at;
  auto shares = [](const Buffer &b) {
    return b.kind == Kind::Plain || b.kind == Kind::MaybeTaken;
  };
  for (const Buffer &b : buffers)
    for (const Buffer &earlier : buffers)
      if (shares(b) && shares(earlier) && earlier.last < b.first && earlier.offset < addBytes(b.offset, b.bytes) &&
          b.offset < addBytes(earlier.offset, earlier.bytes))
        at.insert(b.first);
  for (int64_t pos : at) {
    Operation *op = bodyOps[pos];
    OpBuilder builder(op);
    gpu::BarrierOp::create(builder, op->getLoc());
  }
}

std::string describe(const Buffer &b) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << AllocSharedOp(b.alloc).getType() << ": " << b.bytes << " bytes";
  if (b.extraStages)
    os << " (and " << b.extraStages << " for its pipeline's other stages)";
  return s;
}

LogicalResult planKernel(KernelOp kernel, const TargetInfo &target) {
  SmallVector<Operation *> bodyOps;
  for (Operation &op : kernel.getBodyBlock())
    bodyOps.push_back(&op);
  SmallVector<Buffer> buffers;
  for (SharedLifetime life : getSharedLifetimes(kernel)) {
    Buffer b{life, getBufferBytes(life.alloc.getType())};
    // The lowering gives an unused buffer no storage.
    if (!life.used)
      b.kind = Kind::Unused;
    buffers.push_back(b);
  }
  if (buffers.empty())
    return success();
  classify(kernel, buffers, target);
  SmallVector<Buffer *> order;
  for (Kind kind :
       {Kind::Plain, Kind::MaybeTaken, Kind::Unused, Kind::Pipelined})
    for (Buffer &b : buffers)
      if (b.kind == kind)
        order.push_back(&b);

  int64_t limit = target.getMaxSharedMemoryBytes();
  int64_t total = placeInSequence(order);
  bool reuse = estimateBytes(buffers, /*fused=*/false) > limit;
  if (reuse) {
    total = placeWithReuse(order);
    if (int64_t needed = estimateBytes(buffers, /*fused=*/true);
        needed > limit) {
      InFlightDiagnostic diag = kernel.emitOpError()
                                << "needs at least " << needed
                                << " bytes of shared memory for its "
                                << buffers.size()
                                << " shared buffers, with those whose "
                                   "lifetimes do not overlap sharing bytes; "
                                << target.getName() << " allows " << limit
                                << " per block (use smaller tiles or fewer "
                                   "stages)";
      for (const Buffer &b : buffers)
        diag.attachNote(b.alloc->getLoc()) << describe(b);
      return failure();
    }
    insertReuseBarriers(buffers, bodyOps);
  }
  LLVM_DEBUG(llvm::dbgs() << "kernel at " << kernel.getLoc() << ": "
                          << total << " planned bytes"
                          << (reuse ? " with reuse" : "") << "\n");
  Builder builder(kernel.getContext());
  for (Buffer &b : buffers) {
    LLVM_DEBUG(llvm::dbgs() << "  " << describe(b) << " ops [" << b.first
                            << ", " << b.last << "] at " << b.offset << "\n");
    b.alloc.setOffsetAttr(builder.getI64IntegerAttr(b.offset));
  }
  kernel.setPlannedSharedBytesAttr(builder.getI64IntegerAttr(total));
  return success();
}

struct TilePlanSharedPass
    : public tile::impl::TilePlanSharedBase<TilePlanSharedPass> {
  using Base::Base;

  void runOnOperation() override {
    auto plan = [](KernelOp kernel, const TargetInfo &info) {
      // Planned already (its barriers are in place).
      if (kernel.getPlannedSharedBytes())
        return success();
      return planKernel(kernel, info);
    };
    if (failed(forEachGpuKernel(getOperation(), target, plan)))
      signalPassFailure();
  }
};

} // namespace
