//===- InsertBarriers.cpp - tile-insert-barriers --------------------------===//
//
// Thread-level code (loads and stores outside tile ops, run by every thread
// of the block) may write a shared buffer that another thread then reads,
// or read one that another thread then overwrites. Such a pair needs a
// block barrier between them, as TileLang's ThreadSync gives; tile ops
// order their own accesses when lowered. The kernel is walked in program
// order with the shared accesses made since the last barrier; before an op
// whose accesses conflict with them goes a gpu.barrier. Loops and branches
// every thread takes alike are walked inside (a loop twice, for what one
// iteration leaves to the next), so a barrier may go in them; other
// regions count as one op, and the barrier goes before them.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/Passes.h"
#include "tile/Dialect/Tile/Transforms/Uniformity.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEINSERTBARRIERS
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

enum class Kind { Read, Write, Atomic };

/// One access to a shared buffer. A thread-level access touches one element
/// per thread, at `indices`; a tile op's touches a region any thread may.
struct Access {
  Value buffer;
  Kind kind;
  bool threadLevel;
  SmallVector<Value> indices;

  bool operator==(const Access &o) const {
    return buffer == o.buffer && kind == o.kind &&
           threadLevel == o.threadLevel && indices == o.indices;
  }
};

using Accesses = SmallVector<Access>;

/// The shared buffer (its tile.alloc_shared, through views) that `memref`
/// is, or null for other memory.
Value sharedBuffer(Value memref) {
  auto type = dyn_cast<MemRefType>(memref.getType());
  if (!type || getScope(type) != Scope::Shared)
    return nullptr;
  while (auto view = memref.getDefiningOp<ViewLikeOpInterface>())
    memref = view.getViewSource();
  return memref;
}

/// True if different threads of the block see different values of `v`:
/// the thread index (blocks are one-dimensional) moved or scaled by
/// constants.
bool differsPerThread(Value v) {
  Operation *def = v ? v.getDefiningOp() : nullptr;
  if (!def)
    return false;
  if (auto tid = dyn_cast<gpu::ThreadIdOp>(def))
    return tid.getDimension() == gpu::Dimension::x;
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
          arith::ExtUIOp>(def))
    return differsPerThread(def->getOperand(0));
  if (!isa<arith::AddIOp, arith::SubIOp, arith::MulIOp>(def))
    return false;
  for (int i = 0; i < 2; ++i) {
    APInt c;
    if (!matchPattern(def->getOperand(1 - i), m_ConstantInt(&c)))
      continue;
    if (isa<arith::MulIOp>(def) && c.isZero())
      return false;
    return differsPerThread(def->getOperand(i));
  }
  return false;
}

/// Two thread-level accesses that index one dimension with the same value,
/// different in every thread: each thread touches only its own elements.
bool ownElements(const Access &a, const Access &b) {
  if (a.indices.size() != b.indices.size())
    return false;
  for (auto [x, y] : llvm::zip(a.indices, b.indices))
    if (x == y && differsPerThread(x))
      return true;
  return false;
}

bool conflict(const Access &a, const Access &b) {
  if (a.buffer != b.buffer || a.kind == b.kind)
    return false; // reads of reads, and (as TileLang) writes after writes
  if (!a.threadLevel && !b.threadLevel)
    return false; // tile ops order their own accesses
  return !(a.threadLevel && b.threadLevel && ownElements(a, b));
}

bool isBlockBarrier(Operation *op) {
  if (isa<gpu::BarrierOp, NVVM::Barrier0Op>(op))
    return true;
  auto bar = dyn_cast<NVVM::BarrierOp>(op);
  return bar && !bar.getBarrierId() && !bar.getNumberOfThreads();
}

class BarrierPlacer {
public:
  explicit BarrierPlacer(KernelOp kernel)
      : kernel(kernel), uniformity(kernel, noReplicated) {}

  void run() {
    Accesses pending;
    visitBlock(kernel.getBodyBlock(), pending);
  }

private:
  /// Ops inside a tile op (other than the kernel and tile.pipelined, which
  /// are loops of thread-level code) run as the tile op distributes them.
  bool insideTileOp(Operation *op) {
    for (Operation *p = op; p && p != kernel; p = p->getParentOp())
      if (isa<TileDialect>(p->getDialect()) && !isa<PipelinedOp>(p))
        return true;
    return false;
  }

  /// A scalar tile atomic (one element, no region) runs in every thread.
  template <typename AtomicOp>
  static bool isScalar(AtomicOp op) {
    return !op.getSizes() && !isa<MemRefType>(op.getValue().getType());
  }

  static bool isScalarAtomic(Operation *op) {
    if (auto atomic = dyn_cast<AtomicAddOp>(op))
      return isScalar(atomic);
    if (auto atomic = dyn_cast<AtomicMaxOp>(op))
      return isScalar(atomic);
    if (auto atomic = dyn_cast<AtomicMinOp>(op))
      return isScalar(atomic);
    return false;
  }

  template <typename AtomicOp>
  void tileAtomic(AtomicOp op, Accesses &out, bool thread) {
    SmallVector<Value> indices;
    for (OpFoldResult offset : op.getMixedOffsets())
      indices.push_back(dyn_cast<Value>(offset));
    add(out, op.getTarget(), Kind::Atomic, thread, indices);
    if (isa<MemRefType>(op.getValue().getType()))
      add(out, op.getValue(), Kind::Read, thread);
  }

  void add(Accesses &out, Value memref, Kind kind, bool threadLevel,
           ValueRange indices = {}) {
    Value buffer = sharedBuffer(memref);
    if (!buffer)
      return;
    Access access{buffer, kind, threadLevel, llvm::to_vector(indices)};
    if (!llvm::is_contained(out, access))
      out.push_back(std::move(access));
  }

  /// The shared accesses of `op` itself (not of the ops it holds).
  void accessesOf(Operation *op, Accesses &out) {
    bool thread = isScalarAtomic(op) || !insideTileOp(op);
    if (auto load = dyn_cast<memref::LoadOp>(op))
      return add(out, load.getMemRef(), Kind::Read, thread, load.getIndices());
    if (auto store = dyn_cast<memref::StoreOp>(op))
      return add(out, store.getMemRef(), Kind::Write, thread,
                 store.getIndices());
    if (auto rmw = dyn_cast<memref::AtomicRMWOp>(op))
      return add(out, rmw.getMemref(), Kind::Atomic, thread, rmw.getIndices());
    if (auto rmw = dyn_cast<memref::GenericAtomicRMWOp>(op))
      return add(out, rmw.getMemref(), Kind::Atomic, thread, rmw.getIndices());
    if (auto atomic = dyn_cast<AtomicAddOp>(op))
      return tileAtomic(atomic, out, thread);
    if (auto atomic = dyn_cast<AtomicMaxOp>(op))
      return tileAtomic(atomic, out, thread);
    if (auto atomic = dyn_cast<AtomicMinOp>(op))
      return tileAtomic(atomic, out, thread);
    auto iface = dyn_cast<MemoryEffectOpInterface>(op);
    if (!iface)
      return;
    SmallVector<MemoryEffects::EffectInstance> effects;
    iface.getEffects(effects);
    for (const MemoryEffects::EffectInstance &effect : effects) {
      Value value = effect.getValue();
      if (!value)
        continue;
      if (isa<MemoryEffects::Read>(effect.getEffect()))
        add(out, value, Kind::Read, thread);
      else if (isa<MemoryEffects::Write>(effect.getEffect()))
        add(out, value, Kind::Write, thread);
    }
  }

  /// The shared accesses of `op` and of every op it holds.
  Accesses summarize(Operation *op) {
    Accesses out;
    op->walk([&](Operation *inner) { accessesOf(inner, out); });
    return out;
  }

  static void merge(Accesses &into, const Accesses &from) {
    for (const Access &a : from)
      if (!llvm::is_contained(into, a))
        into.push_back(a);
  }

  static bool conflicts(const Accesses &pending, const Accesses &next) {
    return llvm::any_of(next, [&](const Access &a) {
      return llvm::any_of(pending,
                          [&](const Access &p) { return conflict(p, a); });
    });
  }

  bool uniformLoop(Operation *op) {
    if (auto loop = dyn_cast<scf::ForOp>(op))
      return uniformity.isUniform(loop.getLowerBound()) &&
             uniformity.isUniform(loop.getUpperBound()) &&
             uniformity.isUniform(loop.getStep());
    // A pinned schedule counts the body's ops: nothing may be added there.
    auto pipelined = dyn_cast<PipelinedOp>(op);
    return pipelined && !pipelined.getOrder() && !pipelined.getStage() &&
           llvm::all_of(op->getOperands(),
                        [&](Value v) { return uniformity.isUniform(v); });
  }

  void visitBlock(Block &block, Accesses &pending) {
    // A barrier goes before the op visited; the walk goes on after it.
    for (Operation *op = &block.front(); op; op = op->getNextNode())
      visitOp(op, pending);
  }

  void visitOp(Operation *op, Accesses &pending) {
    if (isBlockBarrier(op)) {
      pending.clear();
      return;
    }
    Accesses accesses = summarize(op);
    if (accesses.empty())
      return;
    if (conflicts(pending, accesses)) {
      OpBuilder builder(op);
      gpu::BarrierOp::create(builder, op->getLoc());
      pending.clear();
    }
    if (uniformLoop(op)) {
      Block &body = op->getRegion(0).front();
      Accesses entry = pending;
      visitBlock(body, pending); // the first iteration
      visitBlock(body, pending); // the others, after the one before
      merge(pending, entry);     // no iteration at all
      return;
    }
    auto branch = dyn_cast<scf::IfOp>(op);
    if (branch && uniformity.isUniform(branch.getCondition())) {
      Accesses taken = pending;
      visitBlock(branch.getThenRegion().front(), taken);
      if (!branch.getElseRegion().empty())
        visitBlock(branch.getElseRegion().front(), pending);
      merge(pending, taken);
      return;
    }
    merge(pending, accesses);
  }

  KernelOp kernel;
  DenseSet<Value> noReplicated;
  Uniformity uniformity;
};

struct TileInsertBarriersPass
    : public tile::impl::TileInsertBarriersBase<TileInsertBarriersPass> {
  void runOnOperation() override {
    getOperation().walk([](KernelOp kernel) { BarrierPlacer(kernel).run(); });
  }
};

} // namespace
