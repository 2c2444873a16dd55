//===- CpAsyncPipeline.cpp - cp.async software pipelines (sm_80) ----------===//
//
// A pipelined loop whose global -> shared copies can run ahead: each such
// buffer gets num_stages copies in shared memory, filled by cp.async
// num_stages - 1 iterations ahead, one commit group an iteration.
//
//===----------------------------------------------------------------------===//

#include "NVVMCommon.h"

#include "tile/Conversion/Utils.h"
#include "tile/Dialect/Tile/IR/PipelineSchedule.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define DEBUG_TYPE "tile-software-pipeline"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::nvvm;

namespace {

/// A copy of a pipelined loop that loads the next iterations' tiles ahead:
/// global to a whole shared buffer, in 16-byte chunks.
struct Producer {
  CopyOp copy;
  Value view;                // the shared buffer's storage
  Value stages;              // its slots: memref<(ahead + 1) x shape>
  int64_t vec;               // elements per 16-byte chunk
  int64_t swizzleChunks = 0; // see swizzledColumn; 0: not swizzled
  int64_t ahead = 0;         // iterations it loads ahead of its readers
};

/// The producer of `copy`, if it can be issued ahead with cp.async.
std::optional<Producer> asProducer(CopyOp copy, PipelinedOp loop) {
  std::optional<Storage> dst = getStorage(copy.getTarget());
  if (!isGlobal(copy.getSource().getType()) || !dst ||
      dst->scope != Scope::Shared || copy.getPad())
    return std::nullopt;
  MemRefType srcType = copy.getSource().getType();
  MemRefType dstType = copy.getTarget().getType();
  Type elt = srcType.getElementType();
  if (elt != dstType.getElementType() || !elt.isIntOrFloat() ||
      !srcType.getLayout().isIdentity() ||
      ArrayRef<int64_t>(copy.getTargetSizes()) != dstType.getShape() ||
      llvm::any_of(copy.getStaticTargetOffsets(),
                   [](int64_t o) { return o != 0; }))
    return std::nullopt;
  int64_t bits = elt.getIntOrFloatBitWidth();
  if (bits % 8 != 0 || 128 % bits != 0)
    return std::nullopt;
  int64_t vec = 128 / bits;
  SmallVector<int64_t> tile = copy.getTileShape();
  CopyEnd probe = CopyEnd::forShape(copy.getSourceSizes());
  if (tile.empty() || tile.back() % vec != 0 ||
      dstType.getShape().back() % vec != 0 ||
      dstType.getShape().back() != tile.back() ||
      probe.tileDims.back() != srcType.getRank() - 1)
    return std::nullopt;
  for (Value offset : copy.getSourceOffsets())
    if (!computableFrom(offset, loop, loop.getInductionVar()))
      return std::nullopt;
  // The buffer must be written by this copy alone and read in the loop only.
  Value buffer = copy.getTarget();
  for (Operation *user : buffer.getUsers()) {
    if (!loop->isAncestor(user))
      return std::nullopt;
    if (user == copy.getOperation())
      continue;
    auto effects = dyn_cast<MemoryEffectOpInterface>(user);
    if (!effects)
      return std::nullopt;
    SmallVector<MemoryEffects::EffectInstance> list;
    effects.getEffectsOnValue(buffer, list);
    if (llvm::any_of(list, [](auto &e) {
          return isa<MemoryEffects::Write>(e.getEffect());
        }))
      return std::nullopt;
  }
  // Swizzle the stages when only gemms read them (the gemm lowering
  // addresses them through swizzledColumn).
  int64_t swizzle = 0;
  int64_t rowChunks = dstType.getShape().back() / vec;
  if (dstType.getRank() == 2 && rowChunks >= 2 &&
      llvm::all_of(buffer.getUsers(), [&](Operation *user) {
        return user == copy.getOperation() || isa<GemmOp>(user);
      }))
    swizzle = rowChunks;
  return Producer{copy, dst->memref, nullptr, vec, swizzle};
}

/// Issues the cp.async copies of `producer` for the iteration `iv` into
/// stage `stage` (an index value): thread t takes chunks t, t + T, ...
/// Chunks partly outside the tensor copy what is inside and zero the rest
/// (cp.async's source size); chunks that are not 16-byte aligned in global
/// memory are copied element by element.
void issueProducer(RewriterBase &rewriter, Location loc, PipelinedOp loop,
                   const Producer &producer, Value iv, Value stage,
                   int64_t threads) {
  CopyOp copy = producer.copy;
  IRMapping mapping;
  mapping.map(loop.getInductionVar(), iv);
  SmallVector<OpFoldResult> offsets;
  for (OpFoldResult ofr : copy.getMixedSourceOffsets()) {
    if (auto v = dyn_cast<Value>(ofr))
      offsets.push_back(cloneDependencies(rewriter, v, loop, mapping));
    else
      offsets.push_back(ofr);
  }
  CopyEnd src(rewriter, loc, copy.getSource(), offsets, copy.getSourceSizes());
  MemRefType srcType = copy.getSource().getType();
  int64_t rank = srcType.getRank(), vec = producer.vec;
  ArrayRef<int64_t> shape = copy.getTarget().getType().getShape();
  SmallVector<int64_t> chunks(shape);
  chunks.back() /= vec;

  auto [zero, vecC, lastDim, aligned] =
      tilegpu::checkVectorAlignment(rewriter, loc, src.buffer, rank, vec);
  Type elt = srcType.getElementType();
  Storage stagesStorage{producer.stages, Scope::Shared, nullptr, 0,
                        producer.swizzleChunks};
  // Indices in the stage buffer, with the column swizzled.
  auto stageIndices = [&](OpBuilder &b, Location l, ArrayRef<Value> idx) {
    SmallVector<Value> out(idx);
    if (producer.swizzleChunks)
      out.back() =
          swizzledColumn(b, l, stagesStorage, out[out.size() - 2], out.back());
    return out;
  };
  buildThreadStridedLoop(
      rewriter, loc, numElements(chunks), threads,
      [&](OpBuilder &b, Location l, Value linear) {
        SmallVector<Value> tileIdx = delinearize(b, l, linear, chunks);
        tileIdx.back() =
            arith::MulIOp::create(b, l, tileIdx.back(), indexConst(b, l, vec));
        SmallVector<Value> dstIdx = {stage};
        dstIdx.append(tileIdx.begin(), tileIdx.end());
        // The tile's indices address the buffer's non-unit dims; the
        // buffer's own unit dims are indexed 0.
        SmallVector<Value> si =
            src.indices(b, l, tileIndicesOf(tileIdx, shape));
        Value rowsOk = Value();
        for (int64_t d = 0; d < rank - 1; ++d) {
          Value ok =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, si[d],
                                    memref::DimOp::create(b, l, src.buffer, d));
          rowsOk =
              rowsOk ? arith::AndIOp::create(b, l, rowsOk, ok).getResult() : ok;
        }
        Value col = si.back();
        Value fast = arith::AndIOp::create(
            b, l, aligned,
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                  arith::RemUIOp::create(b, l, col, vecC),
                                  zero));
        scf::IfOp::create(
            b, l, fast,
            [&](OpBuilder &tb, Location tl) {
              // Elements in the tensor: min(max(dim - col, 0), vec), none
              // when the row is outside (then read from row 0, col 0).
              Value left = arith::SubIOp::create(tb, tl, lastDim, col);
              Value inside = arith::CmpIOp::create(
                  tb, tl, arith::CmpIPredicate::ult, col, lastDim);
              Value count = arith::SelectOp::create(
                  tb, tl, inside,
                  arith::MinUIOp::create(tb, tl, left, vecC).getResult(), zero);
              SmallVector<Value> safe = si;
              if (rowsOk) {
                count = arith::SelectOp::create(tb, tl, rowsOk, count, zero);
                for (int64_t d = 0; d < rank - 1; ++d)
                  safe[d] =
                      arith::SelectOp::create(tb, tl, rowsOk, si[d], zero);
              }
              safe.back() = arith::SelectOp::create(tb, tl, inside, col, zero);
              nvgpu::DeviceAsyncCopyOp::create(
                  tb, tl, producer.stages, stageIndices(tb, tl, dstIdx),
                  src.buffer, safe, tb.getIndexAttr(vec), count,
                  tb.getUnitAttr());
              scf::YieldOp::create(tb, tl);
            },
            [&](OpBuilder &eb, Location el) {
              Value pad = zeroOf(eb, el, elt);
              tilegpu::copyChunkByElements(
                  eb, el, src, si, dstIdx, vec, pad, elt,
                  [&](OpBuilder &sb, Location sl, ArrayRef<Value> de,
                      Value v) {
                    memref::StoreOp::create(sb, sl, v, producer.stages,
                                            stageIndices(sb, sl, de));
                  });
              scf::YieldOp::create(eb, el);
            });
      });
}

/// The iteration `lower + step * index` (an index value).
Value iterationAt(OpBuilder &b, Location loc, PipelinedOp loop, Value index) {
  return arith::AddIOp::create(
      b, loc, loop.getLower(),
      arith::MulIOp::create(b, loc, loop.getStep(), index));
}

/// Issues, under one guard a distinct iteration, the copies of `producers`
/// for the iterations `iterationOf(p)` gives (index values; null: none), into
/// the slots `slotOf(p)` gives.
void issueGroups(RewriterBase &rewriter, Location loc, PipelinedOp loop,
                 ArrayRef<Producer> producers, int64_t threads,
                 function_ref<Value(const Producer &)> iterationOf,
                 function_ref<Value(OpBuilder &, Location, const Producer &)>
                     slotOf) {
  SmallVector<std::pair<Value, SmallVector<const Producer *>>> groups;
  for (const Producer &p : producers) {
    Value iv = iterationOf(p);
    if (!iv)
      continue;
    auto it = llvm::find_if(groups, [&](auto &g) { return g.first == iv; });
    if (it == groups.end())
      groups.push_back({iv, {&p}});
    else
      it->second.push_back(&p);
  }
  for (auto &[iv, members] : groups) {
    Value inRange = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::slt, iv, loop.getUpper());
    scf::IfOp::create(rewriter, loc, inRange, [&](OpBuilder &b, Location l) {
      for (const Producer *p : members)
        issueProducer(rewriter, l, loop, *p, iv, slotOf(rewriter, l, *p),
                      threads);
      scf::YieldOp::create(b, l);
    });
  }
}

/// The prologue before `loop`: iterations -maxAhead .. -1 of the steady
/// state, a commit group each; in iteration v a producer loads iteration
/// v + ahead (from 0 on) into its slot v + ahead. Returns the last group.
Value issuePrologue(RewriterBase &rewriter, Location loc, PipelinedOp loop,
                    ArrayRef<Producer> producers, int64_t maxAhead,
                    int64_t threads) {
  MLIRContext *ctx = loop.getContext();
  Value lastGroup;
  for (int64_t s = 0; s < maxAhead; ++s) {
    DenseMap<int64_t, Value> ivs;
    auto logical = [&](const Producer &p) { return s - maxAhead + p.ahead; };
    issueGroups(
        rewriter, loc, loop, producers, threads,
        [&](const Producer &p) -> Value {
          int64_t j = logical(p);
          if (j < 0)
            return nullptr;
          Value &iv = ivs[j];
          if (!iv)
            iv = iterationAt(rewriter, loc, loop, indexConst(rewriter, loc, j));
          return iv;
        },
        [&](OpBuilder &b, Location l, const Producer &p) {
          return indexConst(b, l, logical(p));
        });
    lastGroup = nvgpu::DeviceAsyncCreateGroupOp::create(
        rewriter, loc, nvgpu::DeviceAsyncTokenType::get(ctx), ValueRange{});
  }
  return lastGroup;
}

} // namespace

void nvvm::pipelineWithCpAsync(RewriterBase &rewriter, PipelinedOp loop,
                               int64_t &sharedBytes) {
  int64_t numStages = loop.getNumStages();
  PipelineSchedule schedule(loop);
  // tile-verify-target rejects pipelines whose stages exceed shared memory;
  // without it, absurd depths are left unpipelined rather than unrolled.
  SmallVector<Producer> producers;
  if (numStages >= 2 && numStages <= 32)
    for (Operation &op : loop.getBodyBlock().without_terminator())
      if (auto copy = dyn_cast<CopyOp>(op))
        if (std::optional<Producer> p = asProducer(copy, loop)) {
          // A copy whose readers run in its own stage stays synchronous.
          p->ahead = schedule.loadDistance(copy, copy.getTarget());
          if (p->ahead >= 1 && p->ahead < numStages)
            producers.push_back(*p);
        }
  SmallVector<Operation *> loads = llvm::map_to_vector(
      producers, [](const Producer &p) -> Operation * { return p.copy; });
  if (failed(schedule.applyOrder(rewriter, loads)))
    return;
  if (producers.empty())
    return;
  MLIRContext *ctx = loop.getContext();
  Location loc = loop.getLoc();
  int64_t threads = getThreads(loop);
  auto kernel = loop->getParentOfType<KernelOp>();
  int64_t maxAhead = 0, minAhead = numStages;
  for (const Producer &p : producers) {
    maxAhead = std::max(maxAhead, p.ahead);
    minAhead = std::min(minAhead, p.ahead);
  }

  // Stage buffers, after the kernel's other shared buffers: a slot for each
  // iteration a producer loads ahead, and the one read.
  rewriter.setInsertionPointToStart(&kernel.getBodyBlock());
  for (Producer &p : producers) {
    MemRefType type = p.copy.getTarget().getType();
    SmallVector<int64_t> shape = {p.ahead + 1};
    shape.append(type.getShape().begin(), type.getShape().end());
    sharedBytes = llvm::alignTo(sharedBytes, kSharedAlignment);
    p.stages = sharedView(rewriter, loc, shape, type.getElementType(),
                          indexConst(rewriter, loc, sharedBytes));
    sharedBytes +=
        (p.ahead + 1) * type.getNumElements() * type.getElementTypeBitWidth() / 8;
  }

  // Prologue: iterations -maxAhead .. -1 of the steady state.
  rewriter.setInsertionPoint(loop);
  Value lastGroup = issuePrologue(rewriter, loc, loop, producers, maxAhead,
                                  threads);

  // Steady state: wait for this iteration's loads (the groups of the
  // minAhead - 1 iterations after theirs may still run), then, where the
  // order puts the loads, issue those of the iterations `ahead` later.
  Block &body = loop.getBodyBlock();
  rewriter.setInsertionPointToStart(&body);
  Value k = loop.getInductionVar();
  auto [iteration, stage] = ringSlot(rewriter, loc, k, loop.getLower(),
                                     loop.getStep(), numStages);
  Value sC = indexConst(rewriter, loc, numStages);
  nvgpu::DeviceAsyncWaitOp::create(rewriter, loc, lastGroup,
                                   rewriter.getI32IntegerAttr(minAhead - 1));
  barrier(rewriter, loc);
  Operation *waited = &*std::prev(rewriter.getInsertionPoint());
  if (Operation *first = schedule.firstInOrder(loads);
      first && first != &body.front() && schedule.isPinned())
    rewriter.setInsertionPoint(first);
  DenseMap<int64_t, std::pair<Value, Value>> ahead; // iteration, slot
  auto aheadOf = [&](int64_t d) {
    auto [it, inserted] = ahead.try_emplace(d);
    if (inserted) {
      it->second.first = arith::AddIOp::create(
          rewriter, loc, k,
          arith::MulIOp::create(rewriter, loc, loop.getStep(),
                                indexConst(rewriter, loc, d)));
      it->second.second = arith::RemUIOp::create(
          rewriter, loc,
          arith::AddIOp::create(rewriter, loc, iteration,
                                indexConst(rewriter, loc, d)),
          d + 1 == numStages ? sC : indexConst(rewriter, loc, d + 1));
    }
    return it->second;
  };
  for (const Producer &p : producers)
    aheadOf(p.ahead);
  issueGroups(
      rewriter, loc, loop, producers, threads,
      [&](const Producer &p) { return aheadOf(p.ahead).first; },
      [&](OpBuilder &, Location, const Producer &p) {
        return aheadOf(p.ahead).second;
      });
  nvgpu::DeviceAsyncCreateGroupOp::create(
      rewriter, loc, nvgpu::DeviceAsyncTokenType::get(ctx), ValueRange{});
  // The loop reads this iteration's slot where it read the buffer (a
  // reordered body may read it before the loads are issued).
  if (schedule.isPinned())
    rewriter.setInsertionPointAfter(waited);
  for (Producer &p : producers) {
    Value slot = p.ahead + 1 == numStages
                     ? stage
                     : arith::RemUIOp::create(
                           rewriter, loc, iteration,
                           indexConst(rewriter, loc, p.ahead + 1))
                           .getResult();
    MemRefType type = p.copy.getTarget().getType();
    int64_t rank = type.getRank();
    SmallVector<OpFoldResult> offsets = {slot};
    SmallVector<OpFoldResult> sizes = {rewriter.getIndexAttr(1)};
    SmallVector<OpFoldResult> strides(rank + 1, rewriter.getIndexAttr(1));
    for (int64_t d = 0; d < rank; ++d) {
      offsets.push_back(rewriter.getIndexAttr(0));
      sizes.push_back(rewriter.getIndexAttr(type.getDimSize(d)));
    }
    auto subType =
        cast<MemRefType>(memref::SubViewOp::inferRankReducedResultType(
            type.getShape(), cast<MemRefType>(p.stages.getType()), offsets,
            sizes, strides));
    Value sub = memref::SubViewOp::create(rewriter, loc, subType, p.stages,
                                          offsets, sizes, strides);
    auto view = BindStorageOp::create(rewriter, loc, type, sub);
    if (p.swizzleChunks)
      view.setSwizzleChunksAttr(rewriter.getI64IntegerAttr(p.swizzleChunks));
    Value buffer = p.copy.getTarget();
    rewriter.replaceUsesWithIf(buffer, view, [&](OpOperand &use) {
      return loop->isAncestor(use.getOwner()) &&
             use.getOwner() != p.copy.getOperation();
    });
    rewriter.eraseOp(p.copy);
  }
  loop.setNumStages(1);

  // Drain the empty groups the last iterations committed.
  rewriter.setInsertionPointAfter(loop);
  nvgpu::DeviceAsyncWaitOp::create(rewriter, loc, lastGroup,
                                   rewriter.getI32IntegerAttr(0));
}
