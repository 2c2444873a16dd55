//===- Copy.cpp - tile.copy between global memory and on-chip buffers -----===//
//
// Copies into shared memory are cooperative (thread t handles elements t,
// t + T, ...), bracketed by barriers, in 16-byte vectors where the tile and
// the tensor allow; copies out of fragments let each thread store its own
// registers (pairs and runs of neighbours as vectors); copies into
// fragments let each thread load the elements it will hold. Between
// fragments of different layouts the copy goes through the source's shared
// scratch copy.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/TileToGPU/TileToGPU.h"

#include "tile/Conversion/TileToGPU/GpuCommon.h"
#include "tile/Conversion/TileToGPU/GpuLowering.h"
#include "tile/Conversion/TileToGPU/VectorCopy.h"
#include "tile/Conversion/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Dominance.h"

#define DEBUG_TYPE "tile-lower-ops"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::tilegpu;

namespace {

/// True when register r + 1 holds the element after register r's.
bool holdsNeighbours(FragmentLayoutAttr layout, int64_t r) {
  return holdsRun(layout, r, 2);
}

/// The registers a thread moves to or from global memory as one vector:
/// the most that fit 16 bytes, divide the register count and, in every run
/// of the fragment, hold consecutive elements of the global side's
/// innermost dimension. 1 when none.
int64_t vectorRun(const CopyEnd &global, FragmentLayoutAttr layout,
                  int64_t registers) {
  Type elt = global.type.getElementType();
  int64_t n = numElements(layout.getShape()) * layout.getReplicate();
  if (!global.global || !global.type.getLayout().isIdentity() ||
      !elt.isIntOrFloat() || elt.getIntOrFloatBitWidth() % 8 != 0 ||
      global.tileDims.empty() ||
      global.tileDims.back() != global.type.getRank() - 1 ||
      n % layout.getThreads() != 0)
    return 1;
  return registerRun(layout, registers, 16 / (elt.getIntOrFloatBitWidth() / 8));
}

/// The `run` elements of a vector load of global memory at `idx`, aligned
/// to its size. A load of narrow elements (f16, bf16, i8) each extracted
/// would be split into one load an element by LLVM (vector-combine's
/// load-extract scalarization); read as 32-bit words, each bitcast back
/// into its elements, it stays one ld.v4.b32 (or v2 / b32).
SmallVector<Value> loadGlobalRun(OpBuilder &b, Location loc, Value buffer,
                                 ValueRange idx, Type elt, int64_t run) {
  int64_t eltBits = elt.getIntOrFloatBitWidth(), bits = run * eltBits;
  Value vec =
      vector::LoadOp::create(b, loc, VectorType::get({run}, elt), buffer, idx,
                             /*nontemporal=*/false, llvm::Align(bits / 8));
  SmallVector<Value> elements;
  if (eltBits >= 32 || bits % 32 != 0) {
    for (int64_t k = 0; k < run; ++k)
      elements.push_back(
          vector::ExtractOp::create(b, loc, vec, ArrayRef<int64_t>{k}));
    return elements;
  }
  int64_t perWord = 32 / eltBits;
  Value words = vector::BitCastOp::create(
      b, loc, VectorType::get({bits / 32}, b.getI32Type()), vec);
  for (int64_t w = 0; w < bits / 32; ++w) {
    Value word = vector::ExtractOp::create(b, loc, words, ArrayRef<int64_t>{w});
    Value parts = vector::BitCastOp::create(
        b, loc, VectorType::get({perWord}, elt),
        vector::BroadcastOp::create(
            b, loc, VectorType::get({1}, b.getI32Type()), word));
    for (int64_t k = 0; k < perWord; ++k)
      elements.push_back(
          vector::ExtractOp::create(b, loc, parts, ArrayRef<int64_t>{k}));
  }
  return elements;
}

/// The two ends of a tile.copy: global tensors as they are, tile buffers
/// through their storage (tile-place-buffers).
struct CopySides {
  std::optional<Storage> srcStorage, dstStorage;
  bool srcGlobal = false, dstGlobal = false;
  std::optional<Scope> srcScope, dstScope;
  Value srcBuffer, dstBuffer;
  Type srcElt, dstElt;
};

std::optional<CopySides> resolveSides(CopyOp op) {
  CopySides s;
  s.srcStorage = getStorage(op.getSource());
  s.dstStorage = getStorage(op.getTarget());
  s.srcGlobal = isGlobal(op.getSource().getType());
  s.dstGlobal = isGlobal(op.getTarget().getType());
  if ((!s.srcGlobal && !s.srcStorage) || (!s.dstGlobal && !s.dstStorage))
    return std::nullopt;
  if (s.srcStorage)
    s.srcScope = s.srcStorage->scope;
  if (s.dstStorage)
    s.dstScope = s.dstStorage->scope;
  s.srcBuffer = s.srcStorage ? s.srcStorage->memref : op.getSource();
  s.dstBuffer = s.dstStorage ? s.dstStorage->memref : op.getTarget();
  s.srcElt = op.getSource().getType().getElementType();
  s.dstElt = op.getTarget().getType().getElementType();
  return s;
}

/// The bytes [first, end) of dynamic shared memory that a copy from global
/// memory into a shared buffer writes (the whole buffer's), for the copies
/// that the block makes element-wise or in vectors (not TMA panels); none
/// for other copies.
std::optional<std::pair<int64_t, int64_t>> blockCopyTarget(Operation *op) {
  auto copy = dyn_cast_or_null<CopyOp>(op);
  std::optional<CopySides> s = copy ? resolveSides(copy) : std::nullopt;
  if (!s || !s->srcGlobal || s->dstScope != Scope::Shared ||
      s->dstStorage->panelRows)
    return std::nullopt;
  auto view = s->dstBuffer.getDefiningOp<memref::ViewOp>();
  std::optional<int64_t> shift =
      view ? getConstantIntValue(view.getByteShift()) : std::nullopt;
  auto type = cast<MemRefType>(s->dstBuffer.getType());
  if (!shift || !type.hasStaticShape() ||
      !type.getElementType().isIntOrFloat())
    return std::nullopt;
  int64_t bytes = type.getNumElements() *
                  type.getElementType().getIntOrFloatBitWidth() / 8;
  return std::make_pair(*shift, *shift + bytes);
}

/// The copies lowered with `leader` between one pair of barriers: it and
/// the copies right after it that fill other bytes of shared memory from
/// global memory (no thread's access can conflict with another's, so no
/// barrier goes between them and their loads are in flight together).
SmallVector<CopyOp> blockCopyGroup(CopyOp leader) {
  SmallVector<CopyOp> group{leader};
  SmallVector<std::pair<int64_t, int64_t>> written{*blockCopyTarget(leader)};
  for (Operation *next = leader->getNextNode(); next;
       next = next->getNextNode()) {
    std::optional<std::pair<int64_t, int64_t>> bytes = blockCopyTarget(next);
    if (!bytes || llvm::any_of(written, [&](auto w) {
          return bytes->first < w.second && w.first < bytes->second;
        }))
      break;
    group.push_back(cast<CopyOp>(next));
    written.push_back(*bytes);
  }
  return group;
}

/// True when `op` is lowered with the group of a copy before it: the run of
/// such copies it is in splits into groups from its first copy on.
bool inEarlierBlockCopyGroup(CopyOp op) {
  Operation *first = op;
  while (blockCopyTarget(first->getPrevNode()))
    first = first->getPrevNode();
  for (auto leader = cast<CopyOp>(first);;) {
    SmallVector<CopyOp> group = blockCopyGroup(leader);
    if (llvm::is_contained(group, op))
      return group.front() != op;
    leader = cast<CopyOp>(group.back()->getNextNode());
  }
}

/// Whether the pair stores of a copy out of a fragment are aligned: the
/// target's base to a pair of elements and its rows to an even length.
Value pairAlignment(OpBuilder &b, Location loc, Value dstBuffer,
                    MemRefType type, Type dstElt) {
  Value ld = memref::DimOp::create(b, loc, dstBuffer, type.getRank() - 1);
  Value base =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, dstBuffer);
  int64_t pairBytes = 2 * dstElt.getIntOrFloatBitWidth() / 8;
  Value zero = indexConst(b, loc, 0);
  auto isZero = [&](Value v) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, v, zero);
  };
  return arith::AndIOp::create(
      b, loc,
      isZero(
          arith::RemUIOp::create(b, loc, base, indexConst(b, loc, pairBytes))),
      isZero(arith::RemUIOp::create(b, loc, ld, indexConst(b, loc, 2))));
}

/// A copy out of a fragment, register by register: what each store reads.
struct FragmentStores {
  CopyEnd &dst;
  FragmentLayoutAttr layout;
  Value srcRegs, dstBuffer, tid;
  /// Pair stores (pairs: the target allows them), and whether they are
  /// aligned (pairAlignment).
  bool pairs;
  Value pairAligned;
  const Storage *swizzled; // a swizzled shared target
  Type dstElt;
  int64_t numRegisters;
  bool toFragment;
  /// A region of the source fragment (T.copy(acc[:4, :], s)): its offsets
  /// and sizes; empty for the whole fragment.
  SmallVector<OpFoldResult> regionOffsets = {};
  ArrayRef<int64_t> regionSizes = {};
};

/// The tile indices of a register's fragment indices `fragIdx`: those of
/// the whole fragment, or, for a region of it, the indices relative to the
/// region (its extents of 1 dropped); `inside` gets the condition that the
/// element lies in the region (null for the whole fragment).
SmallVector<Value> storeTileIndices(OpBuilder &b, Location loc,
                                    const FragmentStores &s,
                                    ArrayRef<Value> fragIdx, Value &inside) {
  inside = Value();
  if (s.regionOffsets.empty())
    return tileIndicesOf(fragIdx, s.layout.getShape());
  SmallVector<Value> rel;
  for (auto [idx, off, size] :
       llvm::zip(fragIdx, s.regionOffsets, s.regionSizes)) {
    Value r = arith::SubIOp::create(
        b, loc, idx, getValueOrCreateConstantIndexOp(b, loc, off));
    // Unsigned: an index before the region is outside too.
    Value in = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, r,
                                     indexConst(b, loc, size));
    inside = inside ? arith::AndIOp::create(b, loc, inside, in).getResult()
                    : in;
    rel.push_back(r);
  }
  return tileIndicesOf(rel, s.regionSizes);
}

/// Registers r and r + 1 (neighbours along the last dimension) as one
/// 2-element store where both are inside the tensor and the pair is
/// aligned, else one by one.
void storeNeighbourPair(OpBuilder &rewriter, Location loc,
                        const FragmentStores &s, int64_t r, Value value) {
  Value next = convertElements(
      rewriter, loc,
      memref::LoadOp::create(rewriter, loc, s.srcRegs,
                             ValueRange{indexConst(rewriter, loc, r + 1)}),
      s.dstElt);
  SmallVector<Value> fragIdx =
      indicesOfRegister(rewriter, loc, s.layout, s.tid, r);
  // (An even column and its neighbour share their 16-byte chunk.)
  SmallVector<Value> idx = physicalIndices(
      rewriter, loc, s.swizzled,
      s.dst.indices(rewriter, loc,
                    tileIndicesOf(fragIdx, s.layout.getShape())));
  SmallVector<Value> idx1 = idx;
  idx1.back() = arith::AddIOp::create(rewriter, loc, idx.back(),
                                      indexConst(rewriter, loc, 1));
  // Both inside (a global target), and the first at an even position of
  // its row.
  Value even = arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::eq,
      arith::RemUIOp::create(rewriter, loc, idx.back(),
                             indexConst(rewriter, loc, 2)),
      indexConst(rewriter, loc, 0));
  Value fast = arith::AndIOp::create(rewriter, loc, even, s.pairAligned);
  if (Value inside = s.dst.cond(rewriter, loc, idx1))
    fast = arith::AndIOp::create(rewriter, loc, inside, fast);
  Type dstElt = s.dstElt;
  CopyEnd &dst = s.dst;
  Value dstBuffer = s.dstBuffer;
  scf::IfOp::create(
      rewriter, loc, fast,
      [&](OpBuilder &b, Location l) {
        Value vec = vector::FromElementsOp::create(
            b, l, VectorType::get({2}, dstElt), ValueRange{value, next});
        // Aligned to the pair (checked above).
        vector::StoreOp::create(
            b, l, vec, dstBuffer, idx, /*nontemporal=*/false,
            llvm::MaybeAlign(2 * dstElt.getIntOrFloatBitWidth() / 8));
        scf::YieldOp::create(b, l);
      },
      [&](OpBuilder &b, Location l) {
        storeTargetElement(b, l, dst, idx, value);
        storeTargetElement(b, l, dst, idx1, next);
        scf::YieldOp::create(b, l);
      });
}

/// Every register of the thread to its element of the target: pairs of
/// neighbours together where they can, the owned elements of other
/// targets one by one, a fragment target register by register.
void storeRegisters(OpBuilder &rewriter, Location loc,
                    const FragmentStores &s) {
  FragmentLayoutAttr layout = s.layout;
  for (int64_t r = 0; r < s.numRegisters; ++r) {
    Value reg = indexConst(rewriter, loc, r);
    Value value =
        memref::LoadOp::create(rewriter, loc, s.srcRegs, ValueRange{reg});
    value = convertElements(rewriter, loc, value, s.dstElt);
    if (s.pairs && r % 2 == 0 && r + 1 < s.numRegisters &&
        holdsNeighbours(layout, r) &&
        numElements(layout.getShape()) % layout.getThreads() == 0) {
      storeNeighbourPair(rewriter, loc, s, r, value);
      ++r;
      continue;
    }
    if (s.toFragment) {
      memref::StoreOp::create(rewriter, loc, value, s.dstBuffer,
                              ValueRange{reg});
      continue;
    }
    SmallVector<Value> fragIdx =
        indicesOfRegister(rewriter, loc, layout, s.tid, r);
    Value inside;
    SmallVector<Value> tileIdx =
        storeTileIndices(rewriter, loc, s, fragIdx, inside);
    Value owns = registerOwnsElement(rewriter, loc, layout, s.tid, r);
    if (inside)
      owns = owns ? arith::AndIOp::create(rewriter, loc, owns, inside)
                        .getResult()
                  : inside;
    buildIf(rewriter, loc, owns, [&](OpBuilder &b, Location l) {
      SmallVector<Value> idx =
          physicalIndices(b, l, s.swizzled, s.dst.indices(b, l, tileIdx));
      storeTargetElement(b, l, s.dst, idx, value);
    });
  }
}

/// To global memory, when the whole tile is inside the tensor and aligned:
/// runs of `run` registers that hold consecutive elements of a row store
/// as one vector each. Returns the scf.if whose else branch is left for
/// the other tiles.
scf::IfOp storeVectorRuns(OpBuilder &rewriter, Location loc, CopyOp op,
                          const FragmentStores &s, int64_t run) {
  auto vectorIf = scf::IfOp::create(
      rewriter, loc,
      tileAccessible(rewriter, loc, s.dst, op.getTargetSizes(), run),
      /*withElseRegion=*/true);
  OpBuilder tb = vectorIf.getThenBodyBuilder();
  for (int64_t r = 0; r < s.numRegisters; r += run) {
    SmallVector<Value> values;
    for (int64_t k = 0; k < run; ++k)
      values.push_back(convertElements(
          tb, loc,
          memref::LoadOp::create(tb, loc, s.srcRegs,
                                 ValueRange{indexConst(tb, loc, r + k)}),
          s.dstElt));
    SmallVector<Value> fragIdx = indicesOfRegister(tb, loc, s.layout, s.tid, r);
    SmallVector<Value> idx =
        s.dst.indices(tb, loc, tileIndicesOf(fragIdx, s.layout.getShape()));
    vector::StoreOp::create(
        tb, loc,
        vector::FromElementsOp::create(
            tb, loc, VectorType::get({run}, s.dstElt), values),
        s.dst.buffer, idx, /*nontemporal=*/false,
        llvm::Align(run * s.dstElt.getIntOrFloatBitWidth() / 8));
  }
  return vectorIf;
}

struct CopyLowering : public OpRewritePattern<CopyOp> {
  CopyLowering(MLIRContext *ctx, const GpuLowering &lowering)
      : OpRewritePattern(ctx), lowering(lowering) {}

  LogicalResult matchAndRewrite(CopyOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    std::optional<CopySides> sides = resolveSides(op);
    if (!sides)
      return failure();
    CopySides &s = *sides;
    if (s.srcScope == Scope::Local || s.dstScope == Scope::Local)
      return rewriter.notifyMatchFailure(op, "copies of local buffers");

    // Between fragments of different layouts: through the source's shared
    // scratch copy.
    if (s.srcScope == Scope::Fragment && s.dstScope == Scope::Fragment &&
        s.dstStorage->layout != s.srcStorage->layout) {
      if (op.getTarget().getType().getShape() !=
          ArrayRef<int64_t>(op.getTargetSizes()))
        return rewriter.notifyMatchFailure(op, "part of a fragment");
      Value view = stageToShared(rewriter, loc, op.getSource());
      if (!view)
        return rewriter.notifyMatchFailure(op, "fragment without scratch");
      s.srcScope = Scope::Shared;
      s.srcBuffer = view;
    }

    if (s.srcScope == Scope::Fragment)
      return lowerFromFragment(rewriter, op, s);

    // Checked before anything is created: a pattern that fails must leave
    // the IR as it found it.
    if (s.dstScope == Scope::Fragment &&
        op.getTarget().getType().getShape() !=
            ArrayRef<int64_t>(op.getTargetSizes()))
      return rewriter.notifyMatchFailure(op, "part of a fragment");
    if (blockCopyTarget(op))
      return lowerBlockCopyGroup(rewriter, op);
    CopyEnd src(rewriter, loc, s.srcBuffer, op.getMixedSourceOffsets(),
                op.getSourceSizes());
    Value pad = padOf(rewriter, op, s);
    if (s.dstScope == Scope::Fragment)
      lowerIntoFragment(rewriter, op, s, src, pad);
    else
      lowerThroughBlock(rewriter, op, s, src, pad);
    rewriter.eraseOp(op);
    return success();
  }

  /// Copies from global into shared memory, in groups (blockCopyGroup):
  /// one barrier before the group (for earlier readers of the bytes it
  /// writes) and one after it (for its readers).
  LogicalResult lowerBlockCopyGroup(PatternRewriter &rewriter,
                                    CopyOp leader) const {
    if (inEarlierBlockCopyGroup(leader))
      return rewriter.notifyMatchFailure(leader,
                                         "lowered with a copy before it");
    SmallVector<CopyOp> group = blockCopyGroup(leader);
    Location loc = leader.getLoc();
    barrier(rewriter, loc);
    issueGlobalLoadsEarly(rewriter, group);
    // The copies whose straight lines fit go together: one test that all
    // their tiles are whole, then all their loads before their stores.
    SmallVector<VectorCopy, 4> straight;
    int64_t chunks = 0;
    int64_t inFlight =
        VectorCopy::chunksInFlight(leader->getParentOfType<KernelOp>());
    for (CopyOp op : group) {
      CopySides s = *resolveSides(op);
      CopyEnd src(rewriter, op.getLoc(), s.srcBuffer,
                  op.getMixedSourceOffsets(), op.getSourceSizes());
      Value pad = padOf(rewriter, op, s);
      CopyEnd dst(rewriter, op.getLoc(), s.dstBuffer,
                  op.getMixedTargetOffsets(), op.getTargetSizes());
      std::optional<VectorCopy> plan = planChunks(op, s, src, dst, pad);
      if (plan && plan->straightLinesFit(inFlight - chunks)) {
        chunks += plan->chunksPerThread();
        straight.push_back(*plan);
      } else if (plan) {
        plan->emit(rewriter, op.getLoc());
      } else {
        emitElementLoop(rewriter, op, s, src, dst, pad);
      }
    }
    if (!straight.empty()) {
      Value whole = straight.front().wholeTile(rewriter, loc);
      for (VectorCopy &copy : llvm::drop_begin(straight))
        whole = arith::AndIOp::create(rewriter, loc, whole,
                                      copy.wholeTile(rewriter, loc));
      scf::IfOp::create(
          rewriter, loc, whole,
          [&](OpBuilder &tb, Location tl) {
            VectorCopy::emitStraightLines(tb, tl, straight);
            scf::YieldOp::create(tb, tl);
          },
          [&](OpBuilder &eb, Location el) {
            for (VectorCopy &copy : straight)
              copy.emitCheckedLoop(eb, el);
            scf::YieldOp::create(eb, el);
          });
    }
    barrier(rewriter, loc);
    for (CopyOp op : group)
      rewriter.eraseOp(op);
    return success();
  }

  /// Moves the loads of global memory right after the group (a row's
  /// scalars, read beside its tiles) before it, where their operands allow:
  /// their latency then overlaps the group's, and nothing that runs
  /// between the group's barriers writes global memory.
  static void issueGlobalLoadsEarly(PatternRewriter &rewriter,
                                    ArrayRef<CopyOp> group) {
    DominanceInfo dominance;
    Operation *leader = group.front();
    Operation *next = group.back()->getNextNode();
    while (auto load = dyn_cast_or_null<memref::LoadOp>(next)) {
      next = next->getNextNode();
      if (!isGlobal(load.getMemRefType()) ||
          llvm::any_of(load->getOperands(), [&](Value v) {
            return !dominance.properlyDominates(v, leader);
          }))
        return;
      rewriter.moveOpBefore(load, leader);
    }
  }

  static Value padOf(PatternRewriter &rewriter, CopyOp op,
                     const CopySides &s) {
    if (op.getPad())
      return arith::ConstantOp::create(rewriter, op.getLoc(), *op.getPad());
    return zeroOf(rewriter, op.getLoc(), s.srcElt);
  }

private:
  /// Out of a fragment: each thread moves the registers it holds.
  LogicalResult lowerFromFragment(PatternRewriter &rewriter, CopyOp op,
                                  const CopySides &s) const {
    Location loc = op.getLoc();
    FragmentLayoutAttr layout = s.srcStorage->layout;
    // A region of the fragment: each thread stores the elements it holds
    // inside the region, one by one.
    bool whole = op.getSource().getType().getShape() ==
                 ArrayRef<int64_t>(op.getSourceSizes());
    if (!whole && s.dstScope == Scope::Fragment)
      return rewriter.notifyMatchFailure(op, "part of a fragment");
    CopyEnd dst(rewriter, loc, s.dstBuffer, op.getMixedTargetOffsets(),
                op.getTargetSizes());
    if (s.dstScope == Scope::Shared)
      barrier(rewriter, loc);
    // A swizzled shared target: a panel that wgmma reads (see
    // pipelineWithTma).
    const Storage *swizzled =
        s.dstScope == Scope::Shared && s.dstStorage->swizzleChunks
            ? &*s.dstStorage
            : nullptr;
    Value tid = threadId(rewriter, loc);
    // Registers r, r + 1 that hold neighbours along the last dimension
    // (the tensor-core accumulator layouts): one 2-element store where
    // both are inside the tensor and the pair is aligned.
    bool pairs = whole && (s.dstGlobal || s.dstScope == Scope::Shared) &&
                 layout.getReplicate() == 1 && op.getTileShape().size() == 2 &&
                 layout.getShape().size() == 2 &&
                 op.getTarget().getType().getLayout().isIdentity() &&
                 s.dstElt.isIntOrFloat() &&
                 s.dstElt.getIntOrFloatBitWidth() % 8 == 0;
    Value pairAligned = pairs
                            ? pairAlignment(rewriter, loc, s.dstBuffer,
                                            op.getTarget().getType(), s.dstElt)
                            : Value();
    int64_t regs = s.srcStorage->numRegisters;
    FragmentStores stores{dst,
                          layout,
                          s.srcBuffer,
                          s.dstBuffer,
                          tid,
                          pairs,
                          pairAligned,
                          swizzled,
                          s.dstElt,
                          regs,
                          s.dstScope == Scope::Fragment};
    if (!whole) {
      stores.regionOffsets = op.getMixedSourceOffsets();
      stores.regionSizes = op.getSourceSizes();
    }
    // To global memory, when the whole tile is inside the tensor and
    // aligned, runs of registers (of more than a pair) that hold
    // consecutive elements of a row store as one vector of up to 16 bytes
    // each; other tiles take the path below.
    int64_t run = whole && s.dstGlobal && layout.getReplicate() == 1
                      ? vectorRun(dst, layout, regs)
                      : 1;
    scf::IfOp vectorIf;
    if (run > 2) {
      vectorIf = storeVectorRuns(rewriter, loc, op, stores, run);
      rewriter.setInsertionPoint(vectorIf.elseBlock()->getTerminator());
    }
    storeRegisters(rewriter, loc, stores);
    if (vectorIf)
      rewriter.setInsertionPointAfter(vectorIf);
    // The target's asynchronous units (wgmma) read such a panel next.
    if (swizzled)
      lowering.fenceSharedForAsyncReads(rewriter, loc);
    if (s.dstScope == Scope::Shared)
      barrier(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }

  /// Into a fragment: each thread loads the elements it will hold. From
  /// global memory, when the whole tile is inside the tensor and aligned,
  /// runs of registers that hold consecutive elements of a row load as one
  /// vector of up to 16 bytes each, all in one straight line (many loads in
  /// flight); other tiles load element by element.
  static void lowerIntoFragment(PatternRewriter &rewriter, CopyOp op,
                                const CopySides &s, CopyEnd &src, Value pad) {
    Location loc = op.getLoc();
    FragmentLayoutAttr layout = s.dstStorage->layout;
    Value dstBuffer = s.dstBuffer;
    Type srcElt = s.srcElt, dstElt = s.dstElt;
    if (s.srcScope == Scope::Shared)
      barrier(rewriter, loc);
    Value tid = threadId(rewriter, loc);
    int64_t regs = s.dstStorage->numRegisters;
    auto elementwise = [&](OpBuilder &b) {
      forEachHeldElement(
          b, loc, layout, regs,
          [&](OpBuilder &ib, Location l, int64_t r, ArrayRef<Value> fragIdx) {
            SmallVector<Value> idx =
                src.indices(ib, l, tileIndicesOf(fragIdx, layout.getShape()));
            Value v = loadSourceElement(ib, l, src, idx, pad, dstElt);
            memref::StoreOp::create(ib, l, v, dstBuffer,
                                    ValueRange{indexConst(ib, l, r)});
          });
    };
    int64_t run = vectorRun(src, layout, regs);
    if (run == 1) {
      elementwise(rewriter);
      return;
    }
    auto ifOp = scf::IfOp::create(
        rewriter, loc,
        tileAccessible(rewriter, loc, src, op.getSourceSizes(), run),
        /*withElseRegion=*/true);
    OpBuilder tb = ifOp.getThenBodyBuilder();
    for (int64_t r = 0; r < regs; r += run) {
      SmallVector<Value> fragIdx = indicesOfRegister(tb, loc, layout, tid, r);
      SmallVector<Value> idx =
          src.indices(tb, loc, tileIndicesOf(fragIdx, layout.getShape()));
      if (srcElt == dstElt) {
        for (auto [k, e] : llvm::enumerate(
                 loadGlobalRun(tb, loc, src.buffer, idx, srcElt, run)))
          memref::StoreOp::create(tb, loc, e, dstBuffer,
                                  ValueRange{indexConst(tb, loc, r + k)});
        continue;
      }
      Value v = vector::LoadOp::create(
          tb, loc, VectorType::get({run}, srcElt), src.buffer, idx,
          /*nontemporal=*/false,
          llvm::Align(run * srcElt.getIntOrFloatBitWidth() / 8));
      v = convertElements(tb, loc, v, dstElt);
      for (int64_t k = 0; k < run; ++k)
        memref::StoreOp::create(
            tb, loc,
            vector::ExtractOp::create(tb, loc, v, ArrayRef<int64_t>{k}),
            dstBuffer, ValueRange{indexConst(tb, loc, r + k)});
    }
    OpBuilder eb = ifOp.getElseBodyBuilder();
    elementwise(eb);
  }

  /// Between shared and global memory: the block's threads share the
  /// elements, then wait for each other.
  static void lowerThroughBlock(PatternRewriter &rewriter, CopyOp op,
                                const CopySides &s, CopyEnd &src, Value pad) {
    barrier(rewriter, op.getLoc());
    emitThroughBlock(rewriter, op, s, src, pad);
    barrier(rewriter, op.getLoc());
  }

  /// The block's threads move the copy's elements (no barriers).
  static void emitThroughBlock(PatternRewriter &rewriter, CopyOp op,
                               const CopySides &s, CopyEnd &src, Value pad) {
    Location loc = op.getLoc();
    CopyEnd dst(rewriter, loc, s.dstBuffer, op.getMixedTargetOffsets(),
                op.getTargetSizes());
    if (std::optional<VectorCopy> chunks = planChunks(op, s, src, dst, pad))
      chunks->emit(rewriter, loc);
    else
      emitElementLoop(rewriter, op, s, src, dst, pad);
  }

  /// Thread t moves elements t, t + T, ... of the copy, each checked.
  static void emitElementLoop(PatternRewriter &rewriter, CopyOp op,
                              const CopySides &s, CopyEnd &src, CopyEnd &dst,
                              Value pad) {
    Location loc = op.getLoc();
    SmallVector<int64_t> tile = copyTile(op);
    const Storage *swizzled = swizzledTarget(s);
    buildThreadStridedLoop(
        rewriter, loc, numElements(tile), getThreads(op),
        [&](OpBuilder &b, Location l, Value linear) {
          SmallVector<Value> tileIdx = delinearize(b, l, linear, tile);
          if (op.getTileShape().empty())
            tileIdx.clear();
          SmallVector<Value> si = src.indices(b, l, tileIdx);
          SmallVector<Value> di =
              physicalIndices(b, l, swizzled, dst.indices(b, l, tileIdx));
          Value v = loadSourceElement(b, l, src, si, pad, s.dstElt);
          storeTargetElement(b, l, dst, di, v);
        });
  }

  /// The copy's region as a tile (one element for a scalar copy).
  static SmallVector<int64_t> copyTile(CopyOp op) {
    SmallVector<int64_t> tile = op.getTileShape();
    if (tile.empty())
      tile.push_back(1);
    return tile;
  }

  /// A swizzled shared target (one only gemms read): see swizzleChunksOf.
  static const Storage *swizzledTarget(const CopySides &s) {
    return s.dstStorage && s.dstStorage->swizzleChunks ? &*s.dstStorage
                                                       : nullptr;
  }

  /// The copy in 16-byte chunks, where it can be.
  static std::optional<VectorCopy> planChunks(CopyOp op, const CopySides &s,
                                              const CopyEnd &src,
                                              const CopyEnd &dst, Value pad) {
    return VectorCopy::plan(op, src, dst, copyTile(op), pad, s.dstElt,
                            swizzledTarget(s));
  }

  const GpuLowering &lowering;
};

} // namespace

void mlir::tile::populateCopyToGPUPatterns(RewritePatternSet &patterns,
                                           const GpuLowering &lowering) {
  patterns.add<CopyLowering>(patterns.getContext(), lowering);
}
