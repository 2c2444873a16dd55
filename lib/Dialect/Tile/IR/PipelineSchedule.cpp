//===- PipelineSchedule.cpp - The schedule of a tile.pipelined loop -------===//
//
// See PipelineSchedule.h.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/PipelineSchedule.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::tile;

PipelineSchedule::PipelineSchedule(PipelinedOp loop) : loop(loop) {
  std::optional<ArrayRef<int64_t>> stageList = loop.getStage();
  std::optional<ArrayRef<int64_t>> orderList = loop.getOrder();
  pinned = stageList || orderList;
  int64_t last = loop.getNumStages() - 1;
  for (Operation &op : loop.getBodyBlock().without_terminator()) {
    if (isMemoryEffectFree(&op))
      continue;
    int64_t i = ops.size();
    ops.push_back(&op);
    if (stageList) {
      stages.push_back((*stageList)[i]);
    } else {
      auto copy = dyn_cast<CopyOp>(op);
      bool load = copy && isGlobal(copy.getSource().getType()) &&
                  getScope(copy.getTarget().getType()) == Scope::Shared;
      stages.push_back(load ? 0 : last);
    }
    positions.push_back(orderList ? (*orderList)[i] : i);
  }
}

int64_t PipelineSchedule::indexOf(Operation *op) const {
  Block *body = &loop.getBodyBlock();
  while (op && op->getBlock() != body)
    op = op->getParentOp();
  if (!op)
    return -1;
  auto it = llvm::find(ops, op);
  return it == ops.end() ? -1 : it - ops.begin();
}

int64_t PipelineSchedule::stageOf(Operation *op) const {
  int64_t i = indexOf(op);
  return i < 0 ? -1 : stages[i];
}

int64_t PipelineSchedule::loadDistance(Operation *copy, Value buffer) const {
  if (!pinned)
    return loop.getNumStages() - 1;
  int64_t own = stageOf(copy), latest = own;
  for (Operation *user : buffer.getUsers()) {
    int64_t i = indexOf(user);
    if (i >= 0 && ops[i] != copy)
      latest = std::max(latest, stages[i]);
  }
  return latest - own;
}

Operation *PipelineSchedule::firstInOrder(ArrayRef<Operation *> loads) const {
  Operation *first = nullptr;
  int64_t best = 0;
  for (Operation *load : loads) {
    int64_t i = indexOf(load);
    if (i >= 0 && (!first || positions[i] < best)) {
      first = load;
      best = positions[i];
    }
  }
  return first;
}

namespace {

/// The memory an op and the ops nested in it touch: each access's buffer
/// (through views to the buffer viewed) and whether it writes; `unknown`
/// where an effect names no buffer or an op declares none.
struct Footprint {
  SmallVector<std::pair<Value, bool>> accesses;
  bool unknown = false;

  explicit Footprint(Operation *root) {
    root->walk([&](Operation *op) {
      if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() &&
          op->getNumRegions() != 0)
        return;
      auto iface = dyn_cast<MemoryEffectOpInterface>(op);
      if (!iface) {
        unknown = true;
        return;
      }
      SmallVector<MemoryEffects::EffectInstance> effects;
      iface.getEffects(effects);
      for (const MemoryEffects::EffectInstance &e : effects) {
        if (isa<MemoryEffects::Allocate, MemoryEffects::Free>(e.getEffect()))
          continue;
        Value v = e.getValue();
        if (!v) {
          unknown = true;
          continue;
        }
        while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
          v = view.getViewSource();
        accesses.push_back({v, isa<MemoryEffects::Write>(e.getEffect())});
      }
    });
  }

  bool empty() const { return accesses.empty() && !unknown; }

  bool conflicts(const Footprint &other) const {
    if ((unknown && !other.empty()) || (other.unknown && !empty()))
      return true;
    for (auto [a, aw] : accesses)
      for (auto [b, bw] : other.accesses)
        if (a == b && (aw || bw))
          return true;
    return false;
  }
};

/// Whether `op` uses a result of `def`, directly or through pure ops of
/// `body`.
bool usesResultOf(Operation *op, Operation *def, Block *body) {
  SmallVector<Operation *> work = {op};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!work.empty()) {
    Operation *cur = work.pop_back_val();
    if (!seen.insert(cur).second)
      continue;
    bool found = false;
    cur->walk([&](Operation *inner) {
      for (Value operand : inner->getOperands()) {
        Operation *d = operand.getDefiningOp();
        if (!d)
          continue;
        if (d == def)
          found = true;
        else if (d->getBlock() == body && isMemoryEffectFree(d))
          work.push_back(d);
      }
    });
    if (found)
      return true;
  }
  return false;
}

} // namespace

LogicalResult PipelineSchedule::applyOrder(RewriterBase &rewriter,
                                           ArrayRef<Operation *> loads) const {
  if (!pinned)
    return success();
  Block *body = &loop.getBodyBlock();
  // Pairs the order swaps: the later one in program order now runs first.
  for (size_t a = 0; a < ops.size(); ++a)
    for (size_t b = a + 1; b < ops.size(); ++b) {
      if (positions[b] > positions[a])
        continue;
      bool aLoad = llvm::is_contained(loads, ops[a]);
      bool bLoad = llvm::is_contained(loads, ops[b]);
      bool dependent = usesResultOf(ops[b], ops[a], body);
      if (!dependent && !aLoad && !bLoad)
        dependent = Footprint(ops[a]).conflicts(Footprint(ops[b]));
      if (!dependent)
        continue;
      InFlightDiagnostic diag = loop.emitOpError()
                                << "order puts op " << b << " ('"
                                << ops[b]->getName() << "') before op " << a
                                << " ('" << ops[a]->getName()
                                << "'), but they depend on each other";
      diag.attachNote(ops[a]->getLoc()) << "op " << a;
      diag.attachNote(ops[b]->getLoc()) << "op " << b;
      return diag;
    }
  // The new sequence: each scheduled op after the pure ops it uses.
  SmallVector<int64_t> sorted(ops.size());
  for (size_t i = 0; i < ops.size(); ++i)
    sorted[i] = i;
  llvm::sort(sorted, [&](int64_t x, int64_t y) {
    return positions[x] < positions[y];
  });
  llvm::SetVector<Operation *> sequence;
  std::function<void(Operation *)> place = [&](Operation *op) {
    if (sequence.contains(op))
      return;
    op->walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        if (Operation *d = operand.getDefiningOp();
            d && d->getBlock() == body && isMemoryEffectFree(d))
          place(d);
    });
    sequence.insert(op);
  };
  for (int64_t i : sorted)
    place(ops[i]);
  for (Operation &op : body->without_terminator())
    place(&op);
  Operation *terminator = body->getTerminator();
  for (Operation *op : sequence)
    rewriter.moveOpBefore(op, terminator);
  rewriter.modifyOpInPlace(loop, [&] {
    loop.removeOrderAttr();
    loop.removeStageAttr();
  });
  return success();
}
