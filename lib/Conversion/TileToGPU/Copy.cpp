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
#include "tile/Conversion/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/AffineExpr.h"

#define DEBUG_TYPE "tile-lower-ops"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::tilegpu;

namespace {

/// True when, in every thread, registers r + 1 .. r + n - 1 of `layout`
/// hold the elements after register r's along the last dimension.
bool holdsRun(FragmentLayoutAttr layout, int64_t r, int64_t n) {
  MLIRContext *ctx = layout.getContext();
  ArrayRef<AffineExpr> results = layout.getInverse().getResults();
  for (size_t d = 0; d < results.size(); ++d) {
    AffineExpr e = results[d];
    auto at = [&](int64_t reg) {
      return e.replaceDims(
          {getAffineDimExpr(0, ctx), getAffineConstantExpr(reg, ctx)});
    };
    for (int64_t k = 1; k < n; ++k) {
      AffineExpr diff = simplifyAffineExpr(at(r + k) - at(r), 1, 0);
      auto c = dyn_cast<AffineConstantExpr>(diff);
      if (!c || c.getValue() != (d + 1 == results.size() ? k : 0))
        return false;
    }
  }
  return true;
}

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
  auto allRuns = [&](int64_t run) {
    for (int64_t r = 0; r < registers; r += run)
      if (!holdsRun(layout, r, run))
        return false;
    return true;
  };
  int64_t run = 16 / (elt.getIntOrFloatBitWidth() / 8);
  while (run > 1 && (registers % run != 0 || !allRuns(run)))
    run /= 2;
  return std::max<int64_t>(run, 1);
}

/// Whether the whole `sizes` region of the global side is inside the
/// tensor and its rows are runs of `run`-element aligned vectors: the base,
/// the row length and the first column are multiples of the run.
Value tileAccessible(OpBuilder &b, Location loc, CopyEnd &global,
                     ArrayRef<int64_t> sizes, int64_t run) {
  SmallVector<Value> first, last;
  for (int64_t d : global.tileDims) {
    first.push_back(indexConst(b, loc, 0));
    last.push_back(indexConst(b, loc, sizes[d] - 1));
  }
  SmallVector<Value> idx = global.indices(b, loc, first);
  int64_t bytes = run * global.type.getElementTypeBitWidth() / 8;
  Value zero = indexConst(b, loc, 0);
  auto multiple = [&](Value v, int64_t of) -> Value {
    return arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq,
        arith::RemUIOp::create(b, loc, v, indexConst(b, loc, of)), zero);
  };
  Value ok = multiple(idx.back(), run);
  ok = arith::AndIOp::create(
      b, loc, ok,
      multiple(
          memref::ExtractAlignedPointerAsIndexOp::create(b, loc, global.buffer),
          bytes));
  int64_t rank = global.type.getRank();
  if (rank > 1)
    ok = arith::AndIOp::create(
        b, loc, ok,
        multiple(memref::DimOp::create(b, loc, global.buffer, rank - 1), run));
  if (Value inside = global.cond(b, loc, global.indices(b, loc, last)))
    ok = arith::AndIOp::create(b, loc, ok, inside);
  return ok;
}

/// The most 16-byte chunks a thread moves in straight lines when a copy
/// from global into shared memory is wholly inside the tensor; copies of
/// more chunks a thread take the checked loop.
constexpr int64_t kMaxWholeTileChunks = 32;
/// The chunks a thread keeps in flight at once on that path.
constexpr int64_t kChunksInFlight = 8;

/// The `n` chunks of a tile that is wholly inside the tensor and aligned,
/// thread t moving chunks t, t + threads, ...: in groups of up to
/// kChunksInFlight, all the group's loads before its stores. A chunk past
/// the end (where `threads` does not divide `n`) is skipped. `movedType` is
/// what loadChunk returns.
void emitWholeTileChunks(
    OpBuilder &b, Location loc, int64_t n, int64_t threads,
    VectorType movedType,
    function_ref<std::pair<SmallVector<Value>, SmallVector<Value>>(
        OpBuilder &, Location, Value)>
        chunkIndices,
    function_ref<Value(OpBuilder &, Location, ValueRange)> loadChunk,
    function_ref<void(OpBuilder &, Location, Value, ValueRange)> storeChunk) {
  Value tid = threadId(b, loc);
  int64_t perThread = llvm::divideCeil(n, threads);
  for (int64_t first = 0; first < perThread; first += kChunksInFlight) {
    int64_t last = std::min(perThread, first + kChunksInFlight);
    SmallVector<Value> inside, values;
    SmallVector<SmallVector<Value>> targets;
    for (int64_t k = first; k < last; ++k) {
      Value linear = arith::AddIOp::create(b, loc, tid,
                                           indexConst(b, loc, k * threads));
      auto [si, di] = chunkIndices(b, loc, linear);
      targets.push_back(di);
      if ((k + 1) * threads <= n) {
        inside.push_back(Value());
        values.push_back(loadChunk(b, loc, si));
        continue;
      }
      // The last chunk of some threads only.
      Value in = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                       linear, indexConst(b, loc, n));
      auto ifOp = scf::IfOp::create(
          b, loc, in,
          [&](OpBuilder &tb, Location tl) {
            scf::YieldOp::create(tb, tl, loadChunk(tb, tl, si));
          },
          [&](OpBuilder &eb, Location el) {
            Value none = arith::ConstantOp::create(
                eb, el, movedType, eb.getZeroAttr(movedType));
            scf::YieldOp::create(eb, el, none);
          });
      inside.push_back(in);
      values.push_back(ifOp.getResult(0));
    }
    for (auto [in, v, di] : llvm::zip(inside, values, targets)) {
      if (!in) {
        storeChunk(b, loc, v, di);
        continue;
      }
      scf::IfOp::create(b, loc, in, [&](OpBuilder &tb, Location tl) {
        storeChunk(tb, tl, v, di);
        scf::YieldOp::create(tb, tl);
      });
    }
  }
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

void storeTargetElement(OpBuilder &b, Location loc, CopyEnd &dst,
                        ArrayRef<Value> idx, Value value) {
  buildIf(b, loc, dst.cond(b, loc, idx), [&](OpBuilder &tb, Location tl) {
    memref::StoreOp::create(tb, tl, value, dst.buffer, idx);
  });
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
    CopyEnd src(rewriter, loc, s.srcBuffer, op.getMixedSourceOffsets(),
                op.getSourceSizes());
    Value pad =
        op.getPad()
            ? arith::ConstantOp::create(rewriter, loc, *op.getPad()).getResult()
            : zeroOf(rewriter, loc, s.srcElt);
    if (s.dstScope == Scope::Fragment)
      lowerIntoFragment(rewriter, op, s, src, pad);
    else
      lowerThroughBlock(rewriter, op, s, src, pad);
    rewriter.eraseOp(op);
    return success();
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
    Location loc = op.getLoc();
    SmallVector<int64_t> tile = op.getTileShape();
    if (tile.empty())
      tile.push_back(1);
    CopyEnd dst(rewriter, loc, s.dstBuffer, op.getMixedTargetOffsets(),
                op.getTargetSizes());
    barrier(rewriter, loc);
    // A swizzled shared target (one only gemms read): see swizzleChunksOf.
    const Storage *swizzled =
        s.dstStorage && s.dstStorage->swizzleChunks ? &*s.dstStorage : nullptr;
    Type dstElt = s.dstElt;
    if (failed(emitVectorCopy(rewriter, op, src, dst, tile, pad, dstElt,
                              swizzled)))
      buildThreadStridedLoop(
          rewriter, loc, numElements(tile), getThreads(op),
          [&](OpBuilder &b, Location l, Value linear) {
            SmallVector<Value> tileIdx = delinearize(b, l, linear, tile);
            if (op.getTileShape().empty())
              tileIdx.clear();
            SmallVector<Value> si = src.indices(b, l, tileIdx);
            SmallVector<Value> di =
                physicalIndices(b, l, swizzled, dst.indices(b, l, tileIdx));
            Value v = loadSourceElement(b, l, src, si, pad, dstElt);
            storeTargetElement(b, l, dst, di, v);
          });
    barrier(rewriter, loc);
  }

  /// The copy in 16-byte vectors: thread t moves chunks t, t + T, ... of
  /// `vec` elements along the tile's last dimension. A chunk that is inside
  /// the global tensor and 16-byte aligned moves with one vector load and
  /// store; others (tensor edges, odd row lengths) element by element.
  /// Where each thread loads a few chunks from global memory, a tile wholly
  /// inside the tensor and aligned moves them unchecked in straight lines
  /// (emitWholeTileChunks).
  /// Fails (emitting nothing) when the copy's shape does not allow it.
  static LogicalResult emitVectorCopy(PatternRewriter &rewriter, CopyOp op,
                                      CopyEnd &src, CopyEnd &dst,
                                      ArrayRef<int64_t> tile, Value pad,
                                      Type dstElt, const Storage *swizzled) {
    Location loc = op.getLoc();
    if (op.getTileShape().empty() || src.global == dst.global)
      return failure();
    CopyEnd &global = src.global ? src : dst;
    Type srcElt = src.type.getElementType();
    if (!srcElt.isIntOrFloat() || !global.type.getElementType().isIntOrFloat())
      return failure();
    int64_t bits = global.type.getElementTypeBitWidth();
    if (bits % 8 != 0 || bits > 128 || srcElt.getIntOrFloatBitWidth() != bits)
      return failure();
    // 4-bit elements (two a byte) move one at a time (tile-emulate-fp4).
    if (!dstElt.isIntOrFloat() || dstElt.getIntOrFloatBitWidth() % 8 != 0)
      return failure();
    int64_t vec = 128 / bits;
    int64_t inner = tile.back();
    if (inner % vec != 0 || !global.type.getLayout().isIdentity() ||
        !dst.type.getLayout().isIdentity() ||
        !src.type.getLayout().isIdentity() ||
        src.tileDims.back() != src.type.getRank() - 1 ||
        dst.tileDims.back() != dst.type.getRank() - 1)
      return failure();
    // The shared side's chunks are 16-byte aligned only when its rows are a
    // whole number of chunks and the region starts on a chunk (shared views
    // start at multiples of 128 bytes of a 16-byte aligned base).
    CopyEnd &shared = src.global ? dst : src;
    std::optional<int64_t> sharedCol =
        getConstantIntValue(shared.offsets.back());
    if ((shared.type.getRank() > 1 && shared.type.getShape().back() % vec) ||
        !sharedCol || *sharedCol % vec)
      return failure();
    int64_t rank = global.type.getRank();

    // Whether the global tensor's rows and base are 16-byte aligned.
    auto [zero, vecC, lastDim, aligned] =
        checkVectorAlignment(rewriter, loc, global.buffer, rank, vec);

    SmallVector<int64_t> chunks(tile);
    chunks.back() = inner / vec;
    auto vecType = VectorType::get({vec}, srcElt);
    // The source and target indices of chunk `linear`.
    auto chunkIndices = [&](OpBuilder &b, Location l, Value linear) {
      SmallVector<Value> tileIdx = delinearize(b, l, linear, chunks);
      tileIdx.back() =
          arith::MulIOp::create(b, l, tileIdx.back(), indexConst(b, l, vec));
      return std::make_pair(src.indices(b, l, tileIdx),
                            dst.indices(b, l, tileIdx));
    };
    auto loadChunk = [&](OpBuilder &b, Location l, ValueRange si) {
      Value v = vector::LoadOp::create(b, l, vecType, src.buffer, si, false,
                                       llvm::Align(16));
      return convertElements(b, l, v, dstElt);
    };
    auto storeChunk = [&](OpBuilder &b, Location l, Value v, ValueRange di) {
      vector::StoreOp::create(b, l, v, dst.buffer,
                              physicalIndices(b, l, swizzled, di), false,
                              llvm::Align(16));
    };
    auto checkedLoop = [&](OpBuilder &b, Location l) {
      buildThreadStridedLoop(
          b, l, numElements(chunks), getThreads(op),
          [&](OpBuilder &lb, Location ll, Value linear) {
            auto [si, di] = chunkIndices(lb, ll, linear);
            SmallVector<Value> &gi = src.global ? si : di;
            // Whole chunk inside the tensor, and aligned.
            Value fast = aligned;
            for (int64_t d = 0; d < rank - 1; ++d)
              fast = arith::AndIOp::create(
                  lb, ll, fast,
                  arith::CmpIOp::create(
                      lb, ll, arith::CmpIPredicate::ult, gi[d],
                      memref::DimOp::create(lb, ll, global.buffer, d)));
            Value end = arith::AddIOp::create(lb, ll, gi.back(), vecC);
            fast = arith::AndIOp::create(
                lb, ll, fast,
                arith::CmpIOp::create(lb, ll, arith::CmpIPredicate::ule, end,
                                      lastDim));
            fast = arith::AndIOp::create(
                lb, ll, fast,
                arith::CmpIOp::create(
                    lb, ll, arith::CmpIPredicate::eq,
                    arith::RemUIOp::create(lb, ll, gi.back(), vecC), zero));
            scf::IfOp::create(
                lb, ll, fast,
                [&](OpBuilder &tb, Location tl) {
                  storeChunk(tb, tl, loadChunk(tb, tl, si), di);
                  scf::YieldOp::create(tb, tl);
                },
                [&](OpBuilder &eb, Location el) {
                  for (int64_t e = 0; e < vec; ++e) {
                    SmallVector<Value> se = si, de = di;
                    se.back() = arith::AddIOp::create(eb, el, se.back(),
                                                      indexConst(eb, el, e));
                    de.back() = arith::AddIOp::create(eb, el, de.back(),
                                                      indexConst(eb, el, e));
                    Value v = loadSourceElement(eb, el, src, se, pad, dstElt);
                    storeTargetElement(
                        eb, el, dst, physicalIndices(eb, el, swizzled, de), v);
                  }
                  scf::YieldOp::create(eb, el);
                });
          });
    };
    int64_t n = numElements(chunks), threads = getThreads(op);
    int64_t perThread = llvm::divideCeil(n, threads);
    // (Stores to global memory do not wait for each other: copies out of
    // shared memory keep the loop.)
    if (!src.global || perThread < 2 || perThread > kMaxWholeTileChunks) {
      checkedLoop(rewriter, loc);
      return success();
    }
    // A tile wholly inside the tensor and aligned (the common case, one
    // test for the block): each thread's chunks in straight lines of loads
    // then stores, so that their loads are in flight together.
    Value whole =
        tileAccessible(rewriter, loc, global, op.getSourceSizes(), vec);
    scf::IfOp::create(
        rewriter, loc, whole,
        [&](OpBuilder &tb, Location tl) {
          emitWholeTileChunks(tb, tl, n, threads,
                              VectorType::get({vec}, dstElt), chunkIndices,
                              loadChunk, storeChunk);
          scf::YieldOp::create(tb, tl);
        },
        [&](OpBuilder &eb, Location el) {
          checkedLoop(eb, el);
          scf::YieldOp::create(eb, el);
        });
    return success();
  }

  const GpuLowering &lowering;
};

} // namespace

void mlir::tile::populateCopyToGPUPatterns(RewritePatternSet &patterns,
                                           const GpuLowering &lowering) {
  patterns.add<CopyLowering>(patterns.getContext(), lowering);
}
