//===- TileToNVVM.cpp - Lowering tile ops for NVIDIA GPUs -----------------===//
//
// Buffers: shared buffers are views of the kernel's dynamic shared memory;
// a fragment is an array of registers in each thread, element e living in
// register layout.map(e)[1] of thread layout.map(e)[0]; local buffers are
// per-thread arrays. Until the op patterns are done, each buffer keeps its
// tile type through a tile.bind_storage of its storage, so that the
// remaining tile ops still verify.
//
// Ops: copies into shared memory are cooperative (thread t handles elements
// t, t + T, ...), bracketed by barriers; copies out of fragments let each
// thread store its own registers; gemm runs mma.sync m16n8k16 per warp on
// its warp tile of the accumulator; tile.parallel over a fragment lets each
// thread run the body for the elements it holds.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/TileToNVVM/TileToNVVM.h"

#include "tile/Conversion/TileToGPU/TileToGPU.h"

#include "tile/Conversion/Utils.h"
#include "NVVMCommon.h"
#include "tile/Dialect/Tile/IR/Layouts.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::nvvm;

namespace {

/// The physical column of element (row, col) of a swizzled 2-d shared
/// buffer: the 16-byte chunk of the column is XORed with a function of the
/// row so that 8 consecutive rows read at the same column (an 8x8 ldmatrix
/// block, or the cp.async writes) fall in 8 different bank groups.
Value swizzledColumn(OpBuilder &b, Location loc, const Storage &storage,
                     Value row, Value col) {
  int64_t chunks = storage.swizzleChunks;
  if (chunks == 0)
    return col;
  auto type = cast<MemRefType>(storage.memref.getType());
  int64_t perChunk = 128 / type.getElementTypeBitWidth();
  int64_t rowsPerGroup = std::max<int64_t>(1, 8 / chunks);
  Value perChunkC = indexConst(b, loc, perChunk);
  Value chunk = arith::DivUIOp::create(b, loc, col, perChunkC);
  Value within = arith::RemUIOp::create(b, loc, col, perChunkC);
  Value key = arith::RemUIOp::create(
      b, loc,
      arith::DivUIOp::create(b, loc, row, indexConst(b, loc, rowsPerGroup)),
      indexConst(b, loc, std::min<int64_t>(chunks, 8)));
  Value physical = arith::XOrIOp::create(b, loc, chunk, key);
  return arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, physical, perChunkC), within);
}

/// The indices at which element `idx` of a shared buffer is stored: the
/// column swizzled where the buffer is (see swizzledColumn).
SmallVector<Value> physicalIndices(OpBuilder &b, Location loc,
                                   const Storage *storage,
                                   SmallVector<Value> idx) {
  if (storage && storage->swizzleChunks && idx.size() == 2)
    idx[1] = swizzledColumn(b, loc, *storage, idx[0], idx[1]);
  return idx;
}


/// The tile indices (a copy's region without unit dims) of a fragment
/// element's `indices`.
SmallVector<Value> tileIndicesOf(ArrayRef<Value> indices,
                                 ArrayRef<int64_t> shape) {
  SmallVector<Value> tile;
  for (auto [index, size] : llvm::zip(indices, shape))
    if (size != 1)
      tile.push_back(index);
  return tile;
}

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


} // namespace

namespace {

/// Whether the fragment walks of this lowering (registers 0 .. registers - 1
/// of every thread, guarded by registerHoldsElement) visit exactly the slots
/// `layout` gives the tile's elements: its N elements, one each, in the
/// slots (thread t, register r) with r * T + t < N. Layouts too large to
/// enumerate are trusted.
bool isWalkable(FragmentLayoutAttr layout, int64_t registers) {
  ArrayRef<int64_t> shape = layout.getShape();
  int64_t n = numElements(shape), threads = layout.getThreads();
  // Replicas: the inverse places a copy in every slot (the attribute's
  // verifier checked it).
  if (layout.getReplicate() > 1)
    return (n * layout.getReplicate()) % threads == 0 &&
           n * layout.getReplicate() == registers * threads;
  if (n > (int64_t(1) << 20))
    return true;
  int64_t visited = 0;
  for (int64_t r = 0; r < registers; ++r)
    visited += n % threads == 0
                   ? threads
                   : std::max<int64_t>(0, std::min(n - r * threads, threads));
  if (visited != n)
    return false;
  SmallVector<int64_t> index(shape.size());
  for (int64_t linear = 0; linear < n; ++linear) {
    int64_t rest = linear;
    for (int64_t d = shape.size() - 1; d >= 0; --d) {
      index[d] = rest % shape[d];
      rest /= shape[d];
    }
    auto [t, r] = layout.apply(index);
    if (r >= registers || (n % threads != 0 && t >= n - r * threads))
      return false;
  }
  return true;
}

} // namespace

namespace {


//===----------------------------------------------------------------------===//
// Copy
//===----------------------------------------------------------------------===//

/// Loads the element at `idx` of a copy's source (the pad value outside a
/// global tensor), converted to `to`.
Value loadSourceElement(OpBuilder &b, Location loc, CopyEnd &src,
                        ArrayRef<Value> idx, Value pad, Type to) {
  Value value;
  if (Value ok = src.cond(b, loc, idx)) {
    auto ifOp = scf::IfOp::create(
        b, loc, ok,
        [&](OpBuilder &tb, Location tl) {
          scf::YieldOp::create(
              tb, tl,
              memref::LoadOp::create(tb, tl, src.buffer, idx).getResult());
        },
        [&](OpBuilder &eb, Location el) { scf::YieldOp::create(eb, el, pad); });
    value = ifOp.getResult(0);
  } else {
    value = memref::LoadOp::create(b, loc, src.buffer, idx);
  }
  return convertElements(b, loc, value, to);
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
      multiple(memref::ExtractAlignedPointerAsIndexOp::create(b, loc,
                                                              global.buffer),
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

/// The `run` elements of a vector load of global memory at `idx`, aligned
/// to its size. A load of narrow elements (f16, bf16, i8) each extracted
/// would be split into one load an element by LLVM (vector-combine's
/// load-extract scalarization); read as 32-bit words, each bitcast back
/// into its elements, it stays one ld.v4.b32 (or v2 / b32).
SmallVector<Value> loadGlobalRun(OpBuilder &b, Location loc, Value buffer,
                                 ValueRange idx, Type elt, int64_t run) {
  int64_t eltBits = elt.getIntOrFloatBitWidth(), bits = run * eltBits;
  Value vec = vector::LoadOp::create(b, loc, VectorType::get({run}, elt),
                                     buffer, idx, /*nontemporal=*/false,
                                     llvm::Align(bits / 8));
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
        vector::BroadcastOp::create(b, loc, VectorType::get({1}, b.getI32Type()),
                                    word));
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

struct CopyLowering : public OpRewritePattern<CopyOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(CopyOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    std::optional<Storage> srcStorage = getStorage(op.getSource());
    std::optional<Storage> dstStorage = getStorage(op.getTarget());
    bool srcGlobal = isGlobal(op.getSource().getType());
    bool dstGlobal = isGlobal(op.getTarget().getType());
    if ((!srcGlobal && !srcStorage) || (!dstGlobal && !dstStorage))
      return failure();
    std::optional<Scope> srcScope =
        srcStorage ? std::optional(srcStorage->scope) : std::nullopt;
    std::optional<Scope> dstScope =
        dstStorage ? std::optional(dstStorage->scope) : std::nullopt;
    Value srcBuffer = srcStorage ? srcStorage->memref : op.getSource();
    Value dstBuffer = dstStorage ? dstStorage->memref : op.getTarget();
    Type srcElt = op.getSource().getType().getElementType();
    Type dstElt = op.getTarget().getType().getElementType();
    SmallVector<int64_t> tile = op.getTileShape();
    if (tile.empty())
      tile.push_back(1);

    if (srcScope == Scope::Local || dstScope == Scope::Local)
      return rewriter.notifyMatchFailure(op, "copies of local buffers");

    // Between fragments of different layouts: through the source's shared
    // scratch copy.
    if (srcScope == Scope::Fragment && dstScope == Scope::Fragment &&
        dstStorage->layout != srcStorage->layout) {
      if (op.getTarget().getType().getShape() !=
          ArrayRef<int64_t>(op.getTargetSizes()))
        return rewriter.notifyMatchFailure(op, "part of a fragment");
      Value view = stageToShared(rewriter, loc, op.getSource());
      if (!view)
        return rewriter.notifyMatchFailure(op, "fragment without scratch");
      srcScope = Scope::Shared;
      srcBuffer = view;
    }

    // Out of a fragment: each thread moves the registers it holds.
    if (srcScope == Scope::Fragment) {
      FragmentLayoutAttr layout = srcStorage->layout;
      if (op.getSource().getType().getShape() !=
          ArrayRef<int64_t>(op.getSourceSizes()))
        return rewriter.notifyMatchFailure(op, "part of a fragment");
      CopyEnd dst(rewriter, loc, dstBuffer, op.getMixedTargetOffsets(),
                  op.getTargetSizes());
      if (dstScope == Scope::Shared)
        barrier(rewriter, loc);
      // A swizzled shared target: a panel that wgmma reads (see
      // pipelineWithTma).
      const Storage *swizzled = dstScope == Scope::Shared &&
                                        dstStorage->swizzleChunks
                                    ? &*dstStorage
                                    : nullptr;
      Value tid = threadId(rewriter, loc);
      // Registers r, r + 1 that hold neighbours along the last dimension
      // (the tensor-core accumulator layouts): one 2-element store where
      // both are inside the tensor and the pair is aligned.
      Value pairAligned;
      bool pairs = (dstGlobal || dstScope == Scope::Shared) &&
                   layout.getReplicate() == 1 &&
                   op.getTileShape().size() == 2 &&
                   layout.getShape().size() == 2 &&
                   op.getTarget().getType().getLayout().isIdentity() &&
                   dstElt.isIntOrFloat() &&
                   dstElt.getIntOrFloatBitWidth() % 8 == 0;
      if (pairs) {
        MemRefType type = op.getTarget().getType();
        Value ld = memref::DimOp::create(rewriter, loc, dstBuffer,
                                         type.getRank() - 1);
        Value base = memref::ExtractAlignedPointerAsIndexOp::create(
            rewriter, loc, dstBuffer);
        int64_t pairBytes = 2 * dstElt.getIntOrFloatBitWidth() / 8;
        Value zero = indexConst(rewriter, loc, 0);
        auto isZero = [&](Value v) {
          return arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                       v, zero);
        };
        pairAligned = arith::AndIOp::create(
            rewriter, loc,
            isZero(arith::RemUIOp::create(rewriter, loc, base,
                                          indexConst(rewriter, loc,
                                                     pairBytes))),
            isZero(arith::RemUIOp::create(rewriter, loc, ld,
                                          indexConst(rewriter, loc, 2))));
      }
      // To global memory, when the whole tile is inside the tensor and
      // aligned, runs of registers (of more than a pair) that hold
      // consecutive elements of a row store as one vector of up to 16 bytes
      // each; other tiles take the path below.
      int64_t regs = srcStorage->numRegisters;
      int64_t run = dstGlobal && layout.getReplicate() == 1
                        ? vectorRun(dst, layout, regs)
                        : 1;
      scf::IfOp vectorIf;
      if (run > 2) {
        vectorIf = scf::IfOp::create(
            rewriter, loc,
            tileAccessible(rewriter, loc, dst, op.getTargetSizes(), run),
            /*withElseRegion=*/true);
        OpBuilder tb = vectorIf.getThenBodyBuilder();
        for (int64_t r = 0; r < regs; r += run) {
          SmallVector<Value> values;
          for (int64_t k = 0; k < run; ++k)
            values.push_back(convertElements(
                tb, loc,
                memref::LoadOp::create(tb, loc, srcBuffer,
                                       ValueRange{indexConst(tb, loc, r + k)}),
                dstElt));
          SmallVector<Value> fragIdx =
              indicesOfRegister(tb, loc, layout, tid, r);
          SmallVector<Value> idx =
              dst.indices(tb, loc, tileIndicesOf(fragIdx, layout.getShape()));
          vector::StoreOp::create(
              tb, loc,
              vector::FromElementsOp::create(
                  tb, loc, VectorType::get({run}, dstElt), values),
              dst.buffer, idx, /*nontemporal=*/false,
              llvm::Align(run * dstElt.getIntOrFloatBitWidth() / 8));
        }
        rewriter.setInsertionPoint(vectorIf.elseBlock()->getTerminator());
      }
      for (int64_t r = 0; r < regs; ++r) {
        Value reg = indexConst(rewriter, loc, r);
        Value value =
            memref::LoadOp::create(rewriter, loc, srcBuffer, ValueRange{reg});
        value = convertElements(rewriter, loc, value, dstElt);
        if (pairs && r % 2 == 0 && r + 1 < srcStorage->numRegisters &&
            holdsNeighbours(layout, r) &&
            numElements(layout.getShape()) % layout.getThreads() == 0) {
          Value next = convertElements(
              rewriter, loc,
              memref::LoadOp::create(rewriter, loc, srcBuffer,
                                     ValueRange{indexConst(rewriter, loc,
                                                           r + 1)}),
              dstElt);
          SmallVector<Value> fragIdx =
              indicesOfRegister(rewriter, loc, layout, tid, r);
          // (An even column and its neighbour share their 16-byte chunk.)
          SmallVector<Value> idx = physicalIndices(
              rewriter, loc, swizzled,
              dst.indices(rewriter, loc,
                          tileIndicesOf(fragIdx, layout.getShape())));
          SmallVector<Value> idx1 = idx;
          idx1.back() = arith::AddIOp::create(rewriter, loc, idx.back(),
                                              indexConst(rewriter, loc, 1));
          // Both inside (a global target), and the first at an even
          // position of its row.
          Value even = arith::CmpIOp::create(
              rewriter, loc, arith::CmpIPredicate::eq,
              arith::RemUIOp::create(rewriter, loc, idx.back(),
                                     indexConst(rewriter, loc, 2)),
              indexConst(rewriter, loc, 0));
          Value fast = arith::AndIOp::create(rewriter, loc, even, pairAligned);
          if (Value inside = dst.cond(rewriter, loc, idx1))
            fast = arith::AndIOp::create(rewriter, loc, inside, fast);
          scf::IfOp::create(
              rewriter, loc, fast,
              [&](OpBuilder &b, Location l) {
                Value vec = vector::FromElementsOp::create(
                    b, l, VectorType::get({2}, dstElt),
                    ValueRange{value, next});
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
          ++r;
          continue;
        }
        if (dstScope == Scope::Fragment) {
          memref::StoreOp::create(rewriter, loc, value, dstBuffer,
                                  ValueRange{reg});
          continue;
        }
        SmallVector<Value> fragIdx =
            indicesOfRegister(rewriter, loc, layout, tid, r);
        buildIf(
            rewriter, loc, registerOwnsElement(rewriter, loc, layout, tid, r),
            [&](OpBuilder &b, Location l) {
              SmallVector<Value> idx = physicalIndices(
                  b, l, swizzled,
                  dst.indices(b, l, tileIndicesOf(fragIdx, layout.getShape())));
              storeTargetElement(b, l, dst, idx, value);
            });
      }
      if (vectorIf)
        rewriter.setInsertionPointAfter(vectorIf);
      // wgmma reads such a panel through the async proxy: the writes are
      // made visible to it before the barrier.
      if (swizzled)
        NVVM::FenceProxyOp::create(
            rewriter, loc, NVVM::ProxyKind::async_shared,
            NVVM::SharedSpaceAttr::get(getContext(),
                                       NVVM::SharedSpace::shared_cta));
      if (dstScope == Scope::Shared)
        barrier(rewriter, loc);
      rewriter.eraseOp(op);
      return success();
    }

    // Checked before anything is created: a pattern that fails must leave
    // the IR as it found it.
    if (dstScope == Scope::Fragment &&
        op.getTarget().getType().getShape() !=
            ArrayRef<int64_t>(op.getTargetSizes()))
      return rewriter.notifyMatchFailure(op, "part of a fragment");
    CopyEnd src(rewriter, loc, srcBuffer, op.getMixedSourceOffsets(),
                op.getSourceSizes());
    Value pad =
        op.getPad()
            ? arith::ConstantOp::create(rewriter, loc, *op.getPad()).getResult()
            : zeroOf(rewriter, loc, srcElt);

    // Into a fragment: each thread loads the elements it will hold. From
    // global memory, when the whole tile is inside the tensor and aligned,
    // runs of registers that hold consecutive elements of a row load as
    // one vector of up to 16 bytes each, all in one straight line (many
    // loads in flight); other tiles load element by element.
    if (dstScope == Scope::Fragment) {
      FragmentLayoutAttr layout = dstStorage->layout;
      if (srcScope == Scope::Shared)
        barrier(rewriter, loc);
      Value tid = threadId(rewriter, loc);
      int64_t regs = dstStorage->numRegisters;
      auto elementwise = [&](OpBuilder &b) {
        forEachHeldElement(
            b, loc, layout, regs,
            [&](OpBuilder &ib, Location l, int64_t r,
                ArrayRef<Value> fragIdx) {
              SmallVector<Value> idx = src.indices(
                  ib, l, tileIndicesOf(fragIdx, layout.getShape()));
              Value v = loadSourceElement(ib, l, src, idx, pad, dstElt);
              memref::StoreOp::create(ib, l, v, dstBuffer,
                                      ValueRange{indexConst(ib, l, r)});
            });
      };
      int64_t run = vectorRun(src, layout, regs);
      if (run == 1) {
        elementwise(rewriter);
        rewriter.eraseOp(op);
        return success();
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
      rewriter.eraseOp(op);
      return success();
    }

    // Between shared and global memory: the block's threads share the
    // elements, then wait for each other.
    CopyEnd dst(rewriter, loc, dstBuffer, op.getMixedTargetOffsets(),
                op.getTargetSizes());
    barrier(rewriter, loc);
    // A swizzled shared target (one only gemms read): see swizzleSharedTiles.
    const Storage *swizzled =
        dstStorage && dstStorage->swizzleChunks ? &*dstStorage : nullptr;
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
    rewriter.eraseOp(op);
    return success();
  }

  /// The copy in 16-byte vectors: thread t moves chunks t, t + T, ... of
  /// `vec` elements along the tile's last dimension. A chunk that is inside
  /// the global tensor and 16-byte aligned moves with one vector load and
  /// store; others (tensor edges, odd row lengths) element by element.
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
    Value zero = indexConst(rewriter, loc, 0);
    Value vecC = indexConst(rewriter, loc, vec);
    Value base = memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc,
                                                                global.buffer);
    Value aligned = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::eq,
        arith::RemUIOp::create(rewriter, loc, base,
                               indexConst(rewriter, loc, 16)),
        zero);
    Value lastDim =
        memref::DimOp::create(rewriter, loc, global.buffer, rank - 1);
    if (rank > 1)
      aligned = arith::AndIOp::create(
          rewriter, loc, aligned,
          arith::CmpIOp::create(
              rewriter, loc, arith::CmpIPredicate::eq,
              arith::RemUIOp::create(rewriter, loc, lastDim, vecC), zero));

    SmallVector<int64_t> chunks(tile);
    chunks.back() = inner / vec;
    auto vecType = VectorType::get({vec}, srcElt);
    buildThreadStridedLoop(
        rewriter, loc, numElements(chunks), getThreads(op),
        [&](OpBuilder &b, Location l, Value linear) {
          SmallVector<Value> tileIdx = delinearize(b, l, linear, chunks);
          tileIdx.back() = arith::MulIOp::create(b, l, tileIdx.back(),
                                                 indexConst(b, l, vec));
          SmallVector<Value> si = src.indices(b, l, tileIdx);
          SmallVector<Value> di = dst.indices(b, l, tileIdx);
          SmallVector<Value> &gi = src.global ? si : di;
          // Whole chunk inside the tensor, and aligned.
          Value fast = aligned;
          for (int64_t d = 0; d < rank - 1; ++d)
            fast = arith::AndIOp::create(
                b, l, fast,
                arith::CmpIOp::create(
                    b, l, arith::CmpIPredicate::ult, gi[d],
                    memref::DimOp::create(b, l, global.buffer, d)));
          Value end = arith::AddIOp::create(b, l, gi.back(), vecC);
          fast = arith::AndIOp::create(
              b, l, fast,
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::ule, end,
                                    lastDim));
          fast = arith::AndIOp::create(
              b, l, fast,
              arith::CmpIOp::create(
                  b, l, arith::CmpIPredicate::eq,
                  arith::RemUIOp::create(b, l, gi.back(), vecC), zero));
          scf::IfOp::create(
              b, l, fast,
              [&](OpBuilder &tb, Location tl) {
                Value v = vector::LoadOp::create(tb, tl, vecType, src.buffer,
                                                 si, false, llvm::Align(16));
                v = convertElements(tb, tl, v, dstElt);
                vector::StoreOp::create(tb, tl, v, dst.buffer,
                                        physicalIndices(tb, tl, swizzled, di),
                                        false, llvm::Align(16));
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
                  storeTargetElement(eb, el, dst,
                                     physicalIndices(eb, el, swizzled, de), v);
                }
                scf::YieldOp::create(eb, el);
              });
        });
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Gemm: mma.sync m16n8k16
//===----------------------------------------------------------------------===//

/// mma.sync m16n8k16 with bf16 operands (upstream nvgpu.mma.sync does not
/// type them): the operand pairs go to nvvm.mma.sync as 32-bit registers.
SmallVector<Value> bf16MmaSync(OpBuilder &b, Location loc, Value aFrag,
                               Value bFrag, ArrayRef<Value> acc) {
  auto packRows = [&](Value frag) {
    SmallVector<Value> regs;
    auto type = cast<VectorType>(frag.getType());
    for (int64_t i = 0; i < type.getDimSize(0); ++i) {
      Value pair =
          vector::ExtractOp::create(b, loc, frag, ArrayRef<int64_t>{i});
      Value word = vector::BitCastOp::create(
          b, loc, VectorType::get({1}, b.getI32Type()), pair);
      regs.push_back(
          vector::ExtractOp::create(b, loc, word, ArrayRef<int64_t>{0}));
    }
    return regs;
  };
  Type f32 = b.getF32Type();
  auto resultType =
      LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
  Value d = NVVM::MmaOp::create(
      b, loc, resultType, packRows(aFrag), packRows(bFrag), acc,
      ArrayRef<int64_t>{16, 8, 16}, std::nullopt, std::nullopt,
      std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16, NVVM::MMATypes::bf16},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  SmallVector<Value> out;
  for (int64_t q = 0; q < 4; ++q)
    out.push_back(LLVM::ExtractValueOp::create(b, loc, d, q));
  return out;
}

/// The operands of a warp-level mma.sync m16n8k16 gemm (tile.gemm, or
/// tile.gemm_sp on its decompressed A).
struct MmaGemm {
  Storage a, b, c;
  int64_t m, n, k;
  bool transposeA, transposeB, clearAccum;
  WarpPartition part;
  Type aElt, cElt;
  int64_t aRowLength, bRowLength; // inner extents of the stored A and B
  /// A is a fragment in the accumulator layout of an M x K gemm with the
  /// same warp rows (mmaAFromRegisters): its registers are the operands.
  bool aInRegisters = false;
};

/// C += op(A) op(B): each warp computes its warp tile of C with ldmatrix
/// operand loads and mma.sync.
void emitMmaGemm(PatternRewriter &rewriter, Location loc, const MmaGemm &mma) {
  int64_t m = mma.m, n = mma.n, k = mma.k;
  const WarpPartition *part = &mma.part;
  Type aElt = mma.aElt, cElt = mma.cElt;
  // The atom is m16n8k(256 / bits): 16-bit inputs pack 2 to a 32-bit
  // register (k16), 8-bit inputs 4 (k32), f32 inputs (read as tf32) 1 (k8).
  int64_t bits = aElt.getIntOrFloatBitWidth();
  int64_t pack = 32 / bits, kAtom = 256 / bits;
  int64_t chunk = 128 / bits; // elements of a 16-byte ldmatrix row
  int64_t tileM = m / part->warpsM, tileN = n / part->warpsN;
  int64_t atomsM = tileM / 16, atomsN = tileN / 8;
  if (mma.clearAccum)
    for (int64_t r = 0; r < mma.c.numRegisters; ++r)
      memref::StoreOp::create(rewriter, loc, zeroOf(rewriter, loc, cElt),
                              mma.c.memref,
                              ValueRange{indexConst(rewriter, loc, r)});

  Value tid = threadId(rewriter, loc);
  Value lane = arith::RemUIOp::create(rewriter, loc, tid,
                                      indexConst(rewriter, loc, nvvm::kWarpSize));
  Value warp = arith::DivUIOp::create(rewriter, loc, tid,
                                      indexConst(rewriter, loc, nvvm::kWarpSize));
  Value wn = indexConst(rewriter, loc, part->warpsN);
  // The warp's 16-row strips: consecutive from its first row, or (repeats)
  // 64 rows apart in its warpgroup's 64 r rows.
  int64_t stripStride = part->repeats > 1 ? 64 : 16;
  Value warpRow =
      part->repeats > 1
          ? wgmmaWarpRow(rewriter, loc, warp, part->repeats)
          : arith::MulIOp::create(
                rewriter, loc, arith::DivUIOp::create(rewriter, loc, warp, wn),
                indexConst(rewriter, loc, tileM))
                .getResult();
  Value warpCol = arith::MulIOp::create(
      rewriter, loc, arith::RemUIOp::create(rewriter, loc, warp, wn),
      indexConst(rewriter, loc, tileN));
  Value laneDiv4 =
      arith::DivUIOp::create(rewriter, loc, lane, indexConst(rewriter, loc, 4));
  Value laneMod4xPack = arith::MulIOp::create(
      rewriter, loc,
      arith::RemUIOp::create(rewriter, loc, lane, indexConst(rewriter, loc, 4)),
      indexConst(rewriter, loc, pack));
  auto add = [&](Value x, int64_t y) -> Value {
    return y == 0 ? x
                  : arith::AddIOp::create(rewriter, loc, x,
                                          indexConst(rewriter, loc, y))
                        .getResult();
  };
  // Element (row, col) of op(A) / (kk, col) of op(B).
  // Indices of element (r, c) of a stored operand, swizzled if it is.
  auto physical = [&](const Storage &s, Value r, Value c) {
    return SmallVector<Value>{r, swizzledColumn(rewriter, loc, s, r, c)};
  };
  auto loadA = [&](Value row, Value col) -> Value {
    SmallVector<Value> idx = {row, col};
    if (mma.transposeA)
      std::swap(idx[0], idx[1]);
    return memref::LoadOp::create(rewriter, loc, mma.a.memref,
                                  physical(mma.a, idx[0], idx[1]));
  };
  auto loadB = [&](Value kk, Value col) -> Value {
    SmallVector<Value> idx = {kk, col};
    if (mma.transposeB)
      std::swap(idx[0], idx[1]);
    return memref::LoadOp::create(rewriter, loc, mma.b.memref,
                                  physical(mma.b, idx[0], idx[1]));
  };
  auto aType = VectorType::get({4, pack}, aElt);
  auto bType = VectorType::get({2, pack}, aElt);
  auto cType = VectorType::get({2, 2}, cElt);

  // ldmatrix reads 8x8 blocks of 16-bit elements whose rows are 16-byte
  // aligned: shared tiles with rows of whole 16-byte chunks, and for 8-bit
  // inputs only the operands stored K-contiguous (its transposition moves
  // 16-bit elements). Other operands load element by element.
  bool ldA = mma.aRowLength % chunk == 0 && (bits == 16 || !mma.transposeA);
  bool ldB = mma.bRowLength % chunk == 0 && (bits == 16 || mma.transposeB);
  Value laneMod8 =
      arith::RemUIOp::create(rewriter, loc, lane, indexConst(rewriter, loc, 8));
  Value laneMod16 = arith::RemUIOp::create(rewriter, loc, lane,
                                           indexConst(rewriter, loc, 16));
  // (lane / 16) * 8 and ((lane / 8) mod 2) * 8: which 8x8 block a lane
  // addresses in an x4 ldmatrix, in rows (8) or in elements along a row
  // (one 16-byte chunk).
  Value laneHi = arith::DivUIOp::create(rewriter, loc, lane,
                                        indexConst(rewriter, loc, 16));
  Value laneMid = arith::RemUIOp::create(
      rewriter, loc,
      arith::DivUIOp::create(rewriter, loc, lane, indexConst(rewriter, loc, 8)),
      indexConst(rewriter, loc, 2));
  auto times = [&](Value v, int64_t c) -> Value {
    return arith::MulIOp::create(rewriter, loc, v, indexConst(rewriter, loc, c));
  };
  Value laneHi8 = times(laneHi, 8), laneMid8 = times(laneMid, 8);
  Value laneHiChunk = times(laneHi, chunk), laneMidChunk = times(laneMid, chunk);
  auto ldmatrix = [&](const Storage &s, Value row, Value col, bool transpose,
                      int64_t tiles, VectorType type) -> Value {
    return nvgpu::LdMatrixOp::create(
        rewriter, loc, type, s.memref, physical(s, row, col),
        rewriter.getBoolAttr(transpose), rewriter.getI32IntegerAttr(tiles));
  };

  for (int64_t ks = 0; ks < k / kAtom; ++ks) {
    // The k of element e of a thread's first register: its 4 lanes in a
    // row take `pack` consecutive elements each; the second half of the
    // atom's K is kAtom / 2 further.
    Value kBase = add(laneMod4xPack, ks * kAtom);
    auto kOf = [&](int64_t half, int64_t e) {
      return add(kBase, half * (kAtom / 2) + e);
    };
    SmallVector<Value> aFrags, bFrags;
    for (int64_t am = 0; am < atomsM; ++am) {
      if (mma.aInRegisters) {
        SmallVector<Value> e;
        for (int64_t q = 0; q < 8; ++q)
          e.push_back(memref::LoadOp::create(
              rewriter, loc, mma.a.memref,
              ValueRange{indexConst(
                  rewriter, loc,
                  aOperandRegister(mma.a.layout, am * stripStride, ks * kAtom,
                                   q))}));
        aFrags.push_back(
            vector::FromElementsOp::create(rewriter, loc, aType, e));
        continue;
      }
      Value m0 = add(warpRow, am * stripStride);
      if (ldA) {
        // Matrices (m 0-7, first 16 bytes of K), (m 8-15, first), (m 0-7,
        // second 16 bytes), (m 8-15, second): the register order of
        // mma.sync's A.
        if (!mma.transposeA)
          aFrags.push_back(ldmatrix(
              mma.a, arith::AddIOp::create(rewriter, loc, m0, laneMod16),
              add(laneHiChunk, ks * kAtom), false, 4, aType));
        else
          aFrags.push_back(ldmatrix(
              mma.a,
              add(arith::AddIOp::create(rewriter, loc, laneMod8, laneHi8),
                  ks * kAtom),
              arith::AddIOp::create(rewriter, loc, m0, laneMid8), true, 4,
              aType));
        continue;
      }
      // Registers: (row g, first half of K), (g + 8, first), (g, second),
      // (g + 8, second); `pack` consecutive k in each.
      Value r0 = arith::AddIOp::create(rewriter, loc, m0, laneDiv4);
      Value r8 = add(r0, 8);
      SmallVector<Value> e;
      for (int64_t q = 0; q < 4; ++q)
        for (int64_t i = 0; i < pack; ++i)
          e.push_back(loadA(q % 2 ? r8 : r0, kOf(q / 2, i)));
      aFrags.push_back(vector::FromElementsOp::create(rewriter, loc, aType, e));
    }
    for (int64_t an = 0; an < atomsN; ++an) {
      Value n0 = add(warpCol, an * 8);
      if (ldB) {
        // Matrices (k 0-7, n 0-7) and (k 8-15, n 0-7): b0b1, b2b3; with
        // two atoms left, one x4 load adds the same two at n 8-15 for the
        // next atom (lanes 16-31 address them).
        int64_t tiles = an + 1 < atomsN ? 4 : 2;
        Value nLane = tiles == 4 ? arith::AddIOp::create(rewriter, loc, n0,
                                                         laneHi8)
                                       .getResult()
                                 : n0;
        auto type = VectorType::get({tiles, pack}, aElt);
        Value frag;
        if (!mma.transposeB)
          frag = ldmatrix(
              mma.b,
              add(arith::AddIOp::create(rewriter, loc, laneMod8, laneMid8),
                  ks * 16),
              nLane, true, tiles, type);
        else
          frag = ldmatrix(mma.b,
                          arith::AddIOp::create(rewriter, loc, nLane, laneMod8),
                          add(laneMidChunk, ks * kAtom), false, tiles, type);
        if (tiles == 2) {
          bFrags.push_back(frag);
          continue;
        }
        for (int64_t half : {0, 2}) {
          SmallVector<Value> e;
          for (int64_t q = 0; q < 2 * pack; ++q)
            e.push_back(vector::ExtractOp::create(
                rewriter, loc, frag,
                ArrayRef<int64_t>{half + q / pack, q % pack}));
          bFrags.push_back(
              vector::FromElementsOp::create(rewriter, loc, bType, e));
        }
        ++an;
        continue;
      }
      Value col = arith::AddIOp::create(rewriter, loc, n0, laneDiv4);
      SmallVector<Value> e;
      for (int64_t q = 0; q < 2; ++q)
        for (int64_t i = 0; i < pack; ++i)
          e.push_back(loadB(kOf(q, i), col));
      bFrags.push_back(vector::FromElementsOp::create(rewriter, loc, bType, e));
    }
    for (int64_t am = 0; am < atomsM; ++am) {
      for (int64_t an = 0; an < atomsN; ++an) {
        int64_t base = (am * atomsN + an) * 4;
        SmallVector<Value> acc;
        for (int64_t q = 0; q < 4; ++q)
          acc.push_back(memref::LoadOp::create(
              rewriter, loc, mma.c.memref,
              ValueRange{indexConst(rewriter, loc, base + q)}));
        SmallVector<Value> out;
        if (aElt.isBF16()) {
          out = bf16MmaSync(rewriter, loc, aFrags[am], bFrags[an], acc);
        } else {
          Value cVec =
              vector::FromElementsOp::create(rewriter, loc, cType, acc);
          Value d = nvgpu::MmaSyncOp::create(
              rewriter, loc, aFrags[am], bFrags[an], cVec,
              ArrayRef<int64_t>{16, 8, kAtom}, /*tf32Enabled=*/aElt.isF32());
          for (int64_t q = 0; q < 4; ++q)
            out.push_back(vector::ExtractOp::create(
                rewriter, loc, d, ArrayRef<int64_t>{q / 2, q % 2}));
        }
        for (int64_t q = 0; q < 4; ++q)
          memref::StoreOp::create(
              rewriter, loc, out[q], mma.c.memref,
              ValueRange{indexConst(rewriter, loc, base + q)});
      }
    }
  }
}

/// Whether the mma.sync operand A comes straight from registers: a 16-bit
/// fragment in the accumulator layout of an M x K gemm whose warps hold
/// whole rows, as `part` splits the rows (flash attention's P = softmax(S)
/// cast from S's accumulator). Its m16n8 C atoms pair up into m16k16 A
/// atoms in the same lanes.
bool mmaAFromRegisters(GemmOp op, const Storage &a, WarpPartition part) {
  Type aElt = op.getA().getType().getElementType();
  return a.scope == Scope::Fragment && !op.getTransposeA() &&
         (aElt.isF16() || aElt.isBF16()) && op.getK() % 16 == 0 &&
         a.layout == getMmaSyncAccumulatorLayout(op.getContext(), op.getM(),
                                                 op.getK(), getThreads(op),
                                                 {part.warpsM, 1,
                                                  part.repeats});
}

/// The error of a gemm that reaches the lowering without the #tile.mma
/// tile-select-mma gives it.
LogicalResult reportNoMma(Operation *gemm) {
  return gemm->emitOpError() << "has no #tile.mma instruction choice; run "
                                "tile-select-mma before tile-lower-ops";
}

/// tile.gemm as its #tile.mma (tile-select-mma) asks: wgmma on the panel
/// buffers of a TMA pipeline, or mma.sync on its warp partition.
struct GemmLowering : public OpRewritePattern<GemmOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GemmOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    std::optional<Storage> a = getStorage(op.getA());
    std::optional<Storage> b = getStorage(op.getB());
    std::optional<Storage> c = getStorage(op.getC());
    if (!a || !b || !c)
      return failure();
    Type aElt = op.getA().getType().getElementType();
    Type bElt = op.getB().getType().getElementType();
    Type cElt = op.getC().getType().getElementType();
    // Everything is checked before any IR is created: a failed match
    // leaves the op untouched.
    auto hasScratch = [](Value fragment) {
      auto bound = fragment.getDefiningOp<BindStorageOp>();
      return bound && bound.getScratchOffset();
    };
    MmaAttr mma = op.getMmaAttr();
    if (!mma)
      return reportNoMma(op);
    WarpPartition part = getMmaPartition(mma);
    bool aInRegisters = mmaAFromRegisters(op, *a, part);
    if (a->scope == Scope::Local || b->scope == Scope::Local ||
        (a->scope == Scope::Fragment && !aInRegisters &&
         !hasScratch(op.getA())) ||
        (b->scope == Scope::Fragment && !hasScratch(op.getB())))
      return rewriter.notifyMatchFailure(op, "operand storage");
    bool int8 = aElt.isInteger(8) && cElt.isInteger(32);
    if (!(aElt.isF16() || aElt.isBF16() || aElt.isF32() ||
          isa<Float8E4M3FNType, Float8E5M2Type>(aElt) || int8) ||
        aElt != bElt || !(cElt.isF32() || int8))
      return rewriter.notifyMatchFailure(op, "element types");
    int64_t m = op.getM(), n = op.getN(), k = op.getK();
    int64_t threads = getThreads(op);
    // wgmma reads the operands that the TMA pipeline stored as swizzled
    // panels (A possibly from registers).
    if (mma.getKind() == MmaKind::Wgmma) {
      // A 2-d shared tile of one 128-byte row a panel, 128-byte swizzled
      // (written from registers in a TMA pipeline) is one panel of its rows.
      for (auto [storage, operand] : {std::pair(&*a, op.getA()),
                                      std::pair(&*b, op.getB())}) {
        MemRefType type = operand.getType();
        if (storage->scope == Scope::Shared && !storage->panelRows &&
            storage->swizzleChunks * 16 == 128 &&
            type.getDimSize(1) * type.getElementTypeBitWidth() == 128 * 8) {
          storage->panelRows = type.getDimSize(0);
          storage->panelBytes = 128;
        }
      }
      if (!b->panelRows ||
          !(a->panelRows || aInRegisters))
        return op.emitOpError()
               << "has " << mma
               << ", but its operands are not the panel buffers of a TMA "
                  "pipeline (B, and A unless it comes from registers in the "
                  "accumulator layout of an M x K wgmma)";
      emitWgmmaGemm(rewriter, op, *a, *b, *c);
      rewriter.eraseOp(op);
      return success();
    }
    if (k % mma.getK() != 0)
      return rewriter.notifyMatchFailure(op, "shape");
    if (c->layout !=
        getMmaSyncAccumulatorLayout(getContext(), m, n, threads, part))
      return rewriter.notifyMatchFailure(op, "accumulator layout");

    // Operands in fragments are read through their shared scratch copy,
    // but for an A in registers.
    if (a->scope == Scope::Fragment && !aInRegisters)
      a = Storage{stageToShared(rewriter, loc, op.getA()), Scope::Shared,
                  nullptr, 0, 0};
    if (b->scope == Scope::Fragment)
      b = Storage{stageToShared(rewriter, loc, op.getB()), Scope::Shared,
                  nullptr, 0, 0};

    emitMmaGemm(rewriter, loc,
                MmaGemm{*a, *b, *c, m, n, k, op.getTransposeA(),
                        op.getTransposeB(), op.getClearAccum(), part, aElt,
                        cElt, op.getA().getType().getShape()[1],
                        op.getB().getType().getShape()[1], aInRegisters});
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.gemm_sp: the block expands the 2:4 compressed A (values M x K/2,
/// metadata M x K/w: 2 bits per kept value, its position in its group of 4)
/// into a dense M x K shared scratch buffer, then runs the dense gemm on
/// it. (The sparse tensor-core instruction mma.sp is not used yet.)
struct GemmSpLowering : public OpRewritePattern<GemmSpOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GemmSpOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    std::optional<Storage> a = getStorage(op.getA());
    std::optional<Storage> e = getStorage(op.getE());
    std::optional<Storage> b = getStorage(op.getB());
    std::optional<Storage> c = getStorage(op.getC());
    auto scratch = op->getAttrOfType<IntegerAttr>(kScratchAttr);
    if (!a || !e || !b || !c || !scratch || a->scope != Scope::Shared ||
        e->scope != Scope::Shared || b->scope != Scope::Shared)
      return rewriter.notifyMatchFailure(op, "operand storage");
    MemRefType aType = op.getA().getType();
    Type aElt = aType.getElementType();
    Type cElt = op.getC().getType().getElementType();
    if (!(aElt.isF16() || aElt.isBF16()) ||
        aElt != op.getB().getType().getElementType() || !cElt.isF32())
      return rewriter.notifyMatchFailure(op, "element types");
    int64_t m = aType.getDimSize(0), half = aType.getDimSize(1), k = 2 * half;
    int64_t n = op.getC().getType().getDimSize(1);
    int64_t threads = getThreads(op);
    MmaAttr mma = op.getMmaAttr();
    if (!mma)
      return reportNoMma(op);
    WarpPartition part = getMmaPartition(mma);
    if (k % 16 != 0 ||
        c->layout !=
            getMmaSyncAccumulatorLayout(getContext(), m, n, threads, part))
      return rewriter.notifyMatchFailure(op, "shape or accumulator layout");

    Value dense = sharedView(rewriter, loc, {m, k}, aElt,
                             indexConst(rewriter, loc, scratch.getInt()));
    // The dense tile is XOR-swizzled for ldmatrix (see swizzledColumn).
    int64_t rowChunks = k * aElt.getIntOrFloatBitWidth() / 128;
    Storage denseStorage{dense, Scope::Shared, nullptr, 0,
                         rowChunks >= 2 ? rowChunks : 0};
    // Each thread expands whole groups of 4 (2 kept values and their
    // positions): one 8-byte store of the group, zeros where nothing was
    // kept.
    barrier(rewriter, loc);
    Type metaType = op.getE().getType().getElementType();
    int64_t perWord = metaType.getIntOrFloatBitWidth() / 2;
    Value zero = zeroOf(rewriter, loc, aElt);
    buildThreadStridedLoop(
        rewriter, loc, m * (k / 4), threads,
        [&](OpBuilder &bb, Location l, Value linear) {
          SmallVector<Value> rg = delinearize(bb, l, linear, {m, k / 4});
          Value row = rg[0], group = rg[1];
          auto positionOf = [&](Value j) -> Value {
            Value word =
                arith::DivUIOp::create(bb, l, j, indexConst(bb, l, perWord));
            Value slot =
                arith::RemUIOp::create(bb, l, j, indexConst(bb, l, perWord));
            Value meta =
                memref::LoadOp::create(bb, l, e->memref, ValueRange{row, word});
            Value shift = arith::IndexCastOp::create(
                bb, l, metaType,
                arith::MulIOp::create(bb, l, slot, indexConst(bb, l, 2)));
            Value three = arith::ConstantOp::create(
                bb, l, metaType, bb.getIntegerAttr(metaType, 3));
            return arith::IndexCastUIOp::create(
                bb, l, bb.getIndexType(),
                arith::AndIOp::create(
                    bb, l, arith::ShRUIOp::create(bb, l, meta, shift), three));
          };
          Value j0 = arith::MulIOp::create(bb, l, group, indexConst(bb, l, 2));
          Value j1 = arith::AddIOp::create(bb, l, j0, indexConst(bb, l, 1));
          Value p0 = positionOf(j0), p1 = positionOf(j1);
          Value v0 = memref::LoadOp::create(bb, l, a->memref, ValueRange{row, j0});
          Value v1 = memref::LoadOp::create(bb, l, a->memref, ValueRange{row, j1});
          SmallVector<Value> elements;
          for (int64_t i = 0; i < 4; ++i) {
            Value at = indexConst(bb, l, i);
            auto is = [&](Value p) {
              return arith::CmpIOp::create(bb, l, arith::CmpIPredicate::eq, p,
                                           at);
            };
            elements.push_back(arith::SelectOp::create(
                bb, l, is(p0), v0,
                arith::SelectOp::create(bb, l, is(p1), v1, zero)));
          }
          Value col = arith::MulIOp::create(bb, l, group, indexConst(bb, l, 4));
          vector::StoreOp::create(
              bb, l,
              vector::FromElementsOp::create(
                  bb, l, VectorType::get({4}, aElt), elements),
              dense, physicalIndices(bb, l, &denseStorage, {row, col}),
              /*nontemporal=*/false,
              llvm::Align(4 * aElt.getIntOrFloatBitWidth() / 8));
        });
    barrier(rewriter, loc);
    emitMmaGemm(rewriter, loc,
                MmaGemm{denseStorage, *b, *c, m,
                        n, k, /*transposeA=*/false, op.getTransposeB(),
                        op.getClearAccum(), part, aElt, cElt, k,
                        op.getB().getType().getShape()[1]});
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Parallel
//===----------------------------------------------------------------------===//

/// The fragment `access` (a memref.load/store) touches at exactly `ivs`.
Value fragmentAtIvs(Operation *access, ValueRange ivs) {
  Value memref;
  ValueRange indices;
  if (auto load = dyn_cast<memref::LoadOp>(access)) {
    memref = load.getMemRef();
    indices = load.getIndices();
  } else if (auto store = dyn_cast<memref::StoreOp>(access)) {
    memref = store.getMemRef();
    indices = store.getIndices();
  } else {
    return nullptr;
  }
  std::optional<Storage> s = getStorage(memref);
  if (!s || s->scope != Scope::Fragment)
    return nullptr;
  if (indices.size() != ivs.size() ||
      !llvm::all_of(llvm::zip(indices, ivs),
                    [](auto p) { return std::get<0>(p) == std::get<1>(p); }))
    return nullptr;
  return memref;
}

/// How a tile.parallel runs: `driver` is the fragment whose elements the
/// iterations follow (accessed at the loop indices, of the loop's shape);
/// `staged` are the other fragments the body only reads, which it reads
/// from their shared scratch copies. `supported` is false when the body
/// writes a fragment other than at its own elements.
struct ParallelPlan {
  FragmentLayoutAttr layout;
  Value driver;
  llvm::SetVector<Value> staged;
  /// Loads of fragments at some of the loop indices (a row vector read in
  /// a 2-D loop) that the thread holds itself: for each driver register,
  /// the register of the loaded fragment.
  DenseMap<Operation *, SmallVector<int64_t>> projected;
  bool supported = true;
};

/// For a load of `fragment` at loop indices `positions` (the load's i-th
/// index is the loop's index positions[i]) in a loop driven by a fragment of
/// `driver` layout with `driverRegs` registers: the fragment's register
/// that each driver register's element reads, when every thread holds it
/// there itself. Checked by enumerating the slots.
std::optional<SmallVector<int64_t>>
projectedRegisters(FragmentLayoutAttr driver, int64_t driverRegs,
                   FragmentLayoutAttr fragment, ArrayRef<int64_t> positions) {
  int64_t threads = driver.getThreads();
  int64_t n = numElements(driver.getShape());
  if (fragment.getThreads() != threads || !fragment.getInverse() ||
      threads * driverRegs > (int64_t(1) << 18))
    return std::nullopt;
  bool full = (n * driver.getReplicate()) % threads == 0;
  // A slot of `fragment` that holds nothing (a fragment smaller than the
  // block: registerHoldsElement) is never written, though the inverse map
  // names an element there too.
  int64_t fragmentElements = numElements(fragment.getShape());
  bool fragmentFull =
      (fragmentElements * fragment.getReplicate()) % threads == 0;
  SmallVector<int64_t> regs(driverRegs, -1);
  for (int64_t t = 0; t < threads; ++t) {
    for (int64_t r = 0; r < driverRegs; ++r) {
      if (!full && r * threads + t >= n)
        continue; // the slot holds nothing (registerHoldsElement)
      SmallVector<int64_t> e = driver.applyInverse(t, r);
      SmallVector<int64_t> at;
      for (int64_t p : positions)
        at.push_back(e[p]);
      int64_t reg = fragment.apply(at).second;
      if (reg < 0 || (regs[r] != -1 && regs[r] != reg) ||
          (!fragmentFull && reg * threads + t >= fragmentElements) ||
          fragment.applyInverse(t, reg) != at)
        return std::nullopt;
      regs[r] = reg;
    }
  }
  return regs;
}

ParallelPlan planParallel(ParallelOp op) {
  ParallelPlan plan;
  ValueRange ivs = op.getBodyBlock().getArguments();
  ArrayRef<int64_t> extents = op.getExtents();
  // The driver: the first fragment written (else read) at the loop indices.
  for (bool wantStore : {true, false}) {
    op.walk([&](Operation *inner) {
      if (plan.driver || (wantStore != isa<memref::StoreOp>(inner)))
        return;
      if (Value f = fragmentAtIvs(inner, ivs)) {
        std::optional<Storage> s = getStorage(f);
        if (s->layout.getShape() == extents) {
          plan.driver = f;
          plan.layout = s->layout;
        }
      }
    });
  }
  op.walk([&](Operation *inner) {
    for (Value operand : inner->getOperands()) {
      std::optional<Storage> s = getStorage(operand);
      if (!s || s->scope != Scope::Fragment)
        continue;
      bool own = fragmentAtIvs(inner, ivs) && s->layout == plan.layout &&
                 s->layout.getShape() == extents;
      if (own)
        continue;
      auto load = dyn_cast<memref::LoadOp>(inner);
      if (!load) {
        plan.supported = false;
        continue;
      }
      // At loop indices only: maybe held by the thread itself.
      SmallVector<int64_t> positions;
      for (Value index : load.getIndices()) {
        auto arg = dyn_cast<BlockArgument>(index);
        if (!arg || arg.getOwner() != &op.getBodyBlock())
          break;
        positions.push_back(arg.getArgNumber());
      }
      if (plan.layout && positions.size() == load.getIndices().size())
        if (std::optional<SmallVector<int64_t>> regs = projectedRegisters(
                plan.layout, getStorage(plan.driver)->numRegisters, s->layout,
                positions)) {
          plan.projected[inner] = std::move(*regs);
          continue;
        }
      plan.staged.insert(operand);
    }
  });
  // A fragment read both ways is read from its scratch copy throughout.
  for (auto it = plan.projected.begin(); it != plan.projected.end();) {
    auto current = it++;
    if (plan.staged.contains(
            cast<memref::LoadOp>(current->first).getMemRef()))
      plan.projected.erase(current);
  }
  return plan;
}

struct ParallelLowering : public OpRewritePattern<ParallelOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ParallelOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Block &body = op.getBodyBlock();
    ValueRange ivs = body.getArguments();
    ArrayRef<int64_t> extents = op.getExtents();
    ParallelPlan plan = planParallel(op);
    if (!plan.supported)
      return rewriter.notifyMatchFailure(op, "fragment access pattern");

    // Fragments read at other elements than the iteration's own: from their
    // shared copies.
    DenseMap<Value, Value> stagedViews;
    for (Value f : plan.staged) {
      Value view = stageToShared(rewriter, loc, f);
      if (!view)
        return rewriter.notifyMatchFailure(op, "fragment without scratch");
      stagedViews[f] = view;
    }

    bool writesShared = false;
    op.walk([&](memref::StoreOp store) {
      std::optional<Storage> s = getStorage(store.getMemRef());
      writesShared |= s && s->scope == Scope::Shared;
    });
    if (writesShared)
      barrier(rewriter, loc);

    // The body for one element (`indices`; `reg`: the driver's register
    // that holds it), fragment accesses rewritten, nested regions (an `if`
    // in the loop) included.
    auto cloneBody = [&](OpBuilder &b, ValueRange indices,
                         std::optional<int64_t> reg) {
      IRMapping mapping;
      mapping.map(ivs, indices);
      std::function<void(OpBuilder &, Block &, bool)> cloneOps;
      cloneOps = [&](OpBuilder &b, Block &block, bool top) {
        for (Operation &inner : block) {
          if (top && &inner == block.getTerminator())
            break;
          if (auto load = dyn_cast<memref::LoadOp>(inner);
              load && reg && plan.projected.count(load)) {
            Value regs = getStorage(load.getMemRef())->memref;
            Value v = memref::LoadOp::create(
                b, load.getLoc(), regs,
                ValueRange{indexConst(b, load.getLoc(),
                                      plan.projected.lookup(load)[*reg])});
            mapping.map(load.getResult(), v);
            continue;
          }
          if (auto load = dyn_cast<memref::LoadOp>(inner)) {
            auto staged = stagedViews.find(load.getMemRef());
            if (staged != stagedViews.end()) {
              SmallVector<Value> idx;
              for (Value i : load.getIndices())
                idx.push_back(mapping.lookupOrDefault(i));
              Value v =
                  memref::LoadOp::create(b, load.getLoc(), staged->second, idx);
              mapping.map(load.getResult(), v);
              continue;
            }
          }
          if (reg) {
            if (auto load = dyn_cast<memref::LoadOp>(inner);
                load && fragmentAtIvs(load, ivs)) {
              Value regs = getStorage(load.getMemRef())->memref;
              Value v = memref::LoadOp::create(
                  b, load.getLoc(), regs,
                  ValueRange{indexConst(b, load.getLoc(), *reg)});
              mapping.map(load.getResult(), v);
              continue;
            }
            if (auto store = dyn_cast<memref::StoreOp>(inner);
                store && fragmentAtIvs(store, ivs)) {
              Value regs = getStorage(store.getMemRef())->memref;
              memref::StoreOp::create(
                  b, store.getLoc(), mapping.lookupOrDefault(store.getValue()),
                  regs, ValueRange{indexConst(b, store.getLoc(), *reg)});
              continue;
            }
          }
          if (inner.getNumRegions() == 0) {
            b.clone(inner, mapping);
            continue;
          }
          // (cloneWithoutRegions maps the results.)
          Operation *copy = b.cloneWithoutRegions(inner, mapping);
          for (auto [from, to] :
               llvm::zip(inner.getRegions(), copy->getRegions())) {
            for (Block &fromBlock : from) {
              Block *toBlock = new Block();
              to.push_back(toBlock);
              for (BlockArgument arg : fromBlock.getArguments())
                mapping.map(arg, toBlock->addArgument(arg.getType(),
                                                      arg.getLoc()));
              OpBuilder nb = OpBuilder::atBlockEnd(toBlock);
              cloneOps(nb, fromBlock, /*top=*/false);
            }
          }
        }
      };
      cloneOps(b, body, /*top=*/true);
    };

    if (plan.layout) {
      Value tid = threadId(rewriter, loc);
      int64_t regs = getStorage(plan.driver)->numRegisters;
      for (int64_t r = 0; r < regs; ++r) {
        SmallVector<Value> indices =
            indicesOfRegister(rewriter, loc, plan.layout, tid, r);
        Value holds = registerHoldsElement(rewriter, loc, plan.layout, tid, r);
        if (!holds) {
          cloneBody(rewriter, indices, r);
          continue;
        }
        scf::IfOp::create(rewriter, loc, holds, [&](OpBuilder &b, Location l) {
          cloneBody(b, indices, r);
          scf::YieldOp::create(b, l);
        });
      }
    } else {
      buildThreadStridedLoop(
          rewriter, loc, numElements(extents), getThreads(op),
          [&](OpBuilder &b, Location l, Value linear) {
            cloneBody(b, delinearize(b, l, linear, extents), std::nullopt);
          });
    }
    if (writesShared)
      barrier(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Reduce
//===----------------------------------------------------------------------===//

/// A tile.reduce from a fragment into a fragment that stays in registers:
/// each thread folds its own source registers into the target register of
/// their row, then the threads that share a row combine their partial
/// results by a butterfly of warp shuffles.
struct RegisterReduce {
  /// The source registers each target register folds (the same in every
  /// thread).
  SmallVector<SmallVector<int64_t>> sources;
  /// The lane masks of the butterfly (xor shuffles).
  SmallVector<int64_t> laneMasks;
  /// The thread-index bits above the lane across which other warps hold
  /// the same rows (a gemm accumulator split over several warps along N):
  /// their partial results meet in a shared scratch buffer of
  /// 2^|warpMasks| x (target elements) values, reserved on the reduce op.
  SmallVector<int64_t> warpMasks;
  /// Bytes of that buffer; 0 without warpMasks.
  int64_t scratchBytes() const;
  int64_t targetElements = 0;
  int64_t eltBits = 0;
};

int64_t RegisterReduce::scratchBytes() const {
  if (warpMasks.empty())
    return 0;
  return (int64_t(1) << warpMasks.size()) * targetElements * eltBits / 8;
}

/// The register plan of `op`, when its layouts allow one: the source
/// layout holds every element once and every thread holds the target rows
/// of its source elements; the threads that hold a target row, at the same
/// register, differ only in lane bits (the butterfly masks), and together
/// hold every source element of the row. Checked by enumerating the slots.
std::optional<RegisterReduce> planRegisterReduce(ReduceOp op) {
  std::optional<Storage> src = getStorage(op.getSource());
  std::optional<Storage> dst = getStorage(op.getTarget());
  Type elt = op.getSource().getType().getElementType();
  if (!src || !dst || src->scope != Scope::Fragment ||
      dst->scope != Scope::Fragment || !elt.isIntOrFloat() ||
      elt.getIntOrFloatBitWidth() > 32)
    return std::nullopt;
  FragmentLayoutAttr from = src->layout, to = dst->layout;
  int64_t threads = from.getThreads(), dim = op.getDim();
  if (to.getThreads() != threads || from.getReplicate() != 1 ||
      numElements(from.getShape()) != src->numRegisters * threads ||
      numElements(to.getShape()) * to.getReplicate() !=
          dst->numRegisters * threads ||
      from.getShape().size() < 2 ||
      threads * src->numRegisters > (int64_t(1) << 18))
    return std::nullopt;
  auto project = [&](SmallVector<int64_t> e) {
    e.erase(e.begin() + dim);
    return e;
  };
  RegisterReduce plan;
  plan.sources.resize(dst->numRegisters);
  for (int64_t t = 0; t < threads; ++t) {
    SmallVector<SmallVector<int64_t>> sources(dst->numRegisters);
    for (int64_t q = 0; q < src->numRegisters; ++q) {
      SmallVector<int64_t> row = project(from.applyInverse(t, q));
      int64_t reg = to.apply(row).second;
      if (reg < 0 || reg >= dst->numRegisters || to.applyInverse(t, reg) != row)
        return std::nullopt;
      sources[reg].push_back(q);
    }
    if (t == 0)
      plan.sources = sources;
    else if (sources != plan.sources)
      return std::nullopt;
  }
  // Thread-index bits across which every thread's target rows repeat: in
  // the lane (the butterfly), above it (other warps, through shared
  // memory).
  for (int64_t mask = 1; mask < threads; mask *= 2) {
    bool same = true;
    for (int64_t t = 0; t < threads && same; ++t)
      for (int64_t r = 0; r < dst->numRegisters && same; ++r)
        same = (t ^ mask) < threads &&
               to.applyInverse(t, r) == to.applyInverse(t ^ mask, r);
    if (same)
      (mask < nvvm::kWarpSize ? plan.laneMasks : plan.warpMasks)
          .push_back(mask);
  }
  plan.targetElements = numElements(to.getShape());
  plan.eltBits = elt.getIntOrFloatBitWidth();
  // Every source element of a row is held by the threads that share it:
  // together they hold the row's length.
  int64_t group = int64_t(1)
                  << (plan.laneMasks.size() + plan.warpMasks.size());
  int64_t perThread = 0;
  for (const SmallVector<int64_t> &s : plan.sources)
    perThread = std::max<int64_t>(perThread, s.size());
  for (const SmallVector<int64_t> &s : plan.sources)
    if (int64_t(s.size()) != perThread)
      return std::nullopt;
  if (perThread * group != from.getShape()[dim])
    return std::nullopt;
  return plan;
}

} // namespace

Value nvvm::shuffleXor(OpBuilder &b, Location loc, Value v, int64_t mask) {
  Type type = v.getType();
  Value wide = v;
  if (isa<FloatType>(type) && type.getIntOrFloatBitWidth() < 32)
    wide = arith::ExtFOp::create(b, loc, b.getF32Type(), v);
  else if (type.isInteger() && type.getIntOrFloatBitWidth() < 32)
    wide = arith::ExtSIOp::create(b, loc, b.getI32Type(), v);
  Value shuffled =
      gpu::ShuffleOp::create(b, loc, wide, mask, nvvm::kWarpSize,
                             gpu::ShuffleMode::XOR)
          .getShuffleResult();
  if (wide == v)
    return shuffled;
  if (isa<FloatType>(type))
    return arith::TruncFOp::create(b, loc, type, shuffled);
  return arith::TruncIOp::create(b, loc, type, shuffled);
}

namespace {

struct ReduceLowering : public OpRewritePattern<ReduceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReduceOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    std::optional<Storage> src = getStorage(op.getSource());
    std::optional<Storage> dst = getStorage(op.getTarget());
    if (!src || !dst || src->scope == Scope::Local)
      return failure();
    ReduceKind kind = op.getKind();
    bool nan = op.getNanPropagate();
    Type elt = op.getSource().getType().getElementType();
    if (std::optional<RegisterReduce> plan = planRegisterReduce(op)) {
      auto reg = [&](int64_t r) { return indexConst(rewriter, loc, r); };
      SmallVector<Value> partials;
      for (const SmallVector<int64_t> &sources : plan->sources) {
        Value acc = reduceIdentity(rewriter, loc, kind, elt);
        for (int64_t q : sources)
          acc = reduceCombine(
              rewriter, loc, kind, acc,
              reduceOperand(rewriter, loc, kind,
                            memref::LoadOp::create(rewriter, loc, src->memref,
                                                   ValueRange{reg(q)})), nan);
        for (int64_t mask : plan->laneMasks)
          acc = reduceCombine(rewriter, loc, kind, acc,
                              shuffleXor(rewriter, loc, acc, mask), nan);
        partials.push_back(acc);
      }
      if (!plan->warpMasks.empty()) {
        // Across warps: one lane of each group writes its warp's partial
        // at (its slot among the row's warps, the row), then every thread
        // folds the partials of its rows.
        auto scratch = op->getAttrOfType<IntegerAttr>(kScratchAttr);
        if (!scratch)
          return rewriter.notifyMatchFailure(op, "reduce without scratch");
        int64_t slots = int64_t(1) << plan->warpMasks.size();
        int64_t rows = plan->targetElements;
        Value buffer =
            sharedView(rewriter, loc, {slots * rows}, elt,
                       indexConst(rewriter, loc, scratch.getInt()));
        Value tid = threadId(rewriter, loc);
        Value slot = indexConst(rewriter, loc, 0);
        for (auto [i, mask] : llvm::enumerate(plan->warpMasks)) {
          Value bit = arith::CmpIOp::create(
              rewriter, loc, arith::CmpIPredicate::ne,
              arith::AndIOp::create(rewriter, loc, tid,
                                    indexConst(rewriter, loc, mask)),
              indexConst(rewriter, loc, 0));
          slot = arith::SelectOp::create(
              rewriter, loc, bit,
              arith::AddIOp::create(rewriter, loc, slot,
                                    indexConst(rewriter, loc, int64_t(1) << i)),
              slot);
        }
        int64_t laneBits = 0;
        for (int64_t mask : plan->laneMasks)
          laneBits |= mask;
        Value leader = arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::eq,
            arith::AndIOp::create(rewriter, loc, tid,
                                  indexConst(rewriter, loc, laneBits)),
            indexConst(rewriter, loc, 0));
        ArrayRef<int64_t> shape = dst->layout.getShape();
        SmallVector<Value> rowOf;
        for (int64_t r = 0; r < int64_t(partials.size()); ++r) {
          SmallVector<Value> idx =
              indicesOfRegister(rewriter, loc, dst->layout, tid, r);
          Value linear = indexConst(rewriter, loc, 0);
          for (auto [i, size] : llvm::zip(idx, shape))
            linear = arith::AddIOp::create(
                rewriter, loc,
                arith::MulIOp::create(rewriter, loc, linear,
                                      indexConst(rewriter, loc, size)),
                i);
          rowOf.push_back(linear);
        }
        auto at = [&](OpBuilder &b, Value s, Value row) {
          return arith::AddIOp::create(
              b, loc,
              arith::MulIOp::create(b, loc, s, indexConst(b, loc, rows)), row);
        };
        barrier(rewriter, loc);
        buildIf(rewriter, loc, leader, [&](OpBuilder &b, Location l) {
          for (auto [acc, row] : llvm::zip(partials, rowOf))
            memref::StoreOp::create(b, l, acc, buffer,
                                    ValueRange{at(b, slot, row)});
        });
        barrier(rewriter, loc);
        for (auto [acc, row] : llvm::zip(partials, rowOf)) {
          acc = reduceIdentity(rewriter, loc, kind, elt);
          for (int64_t s = 0; s < slots; ++s)
            acc = reduceCombine(
                rewriter, loc, kind, acc,
                memref::LoadOp::create(
                    rewriter, loc, buffer,
                    ValueRange{at(rewriter, indexConst(rewriter, loc, s),
                                  row)}), nan);
        }
      }
      for (auto [r, acc] : llvm::enumerate(partials)) {
        if (!op.getClear())
          acc = reduceCombine(rewriter, loc, kind,
                              memref::LoadOp::create(rewriter, loc, dst->memref,
                                                     ValueRange{reg(r)}),
                              acc, nan);
        memref::StoreOp::create(rewriter, loc, acc, dst->memref,
                                ValueRange{reg(r)});
      }
      rewriter.eraseOp(op);
      return success();
    }
    Value source = src->memref;
    if (src->scope == Scope::Fragment) {
      source = stageToShared(rewriter, loc, op.getSource());
      if (!source)
        return rewriter.notifyMatchFailure(op, "source without scratch");
    }
    MemRefType srcType = op.getSource().getType();
    int64_t dim = op.getDim();
    int64_t length = srcType.getDimSize(dim);

    // The reduction of the source's row at `outIdx` (target indices),
    // starting from `init`.
    auto reduceRow = [&](OpBuilder &b, Location l, ArrayRef<Value> outIdx,
                         Value init) -> Value {
      auto loop = scf::ForOp::create(
          b, l, indexConst(b, l, 0), indexConst(b, l, length),
          indexConst(b, l, 1), ValueRange{init},
          [&](OpBuilder &rb, Location rl, Value r, ValueRange iter) {
            SmallVector<Value> idx;
            if (srcType.getRank() > 1)
              idx.append(outIdx.begin(), outIdx.end());
            idx.insert(idx.begin() + dim, r);
            Value x = reduceOperand(
                rb, rl, kind, memref::LoadOp::create(rb, rl, source, idx));
            scf::YieldOp::create(rb, rl,
                                 reduceCombine(rb, rl, kind, iter[0], x, nan));
          });
      return loop.getResult(0);
    };
    ArrayRef<int64_t> outShape = op.getTarget().getType().getShape();
    if (dst->scope == Scope::Fragment) {
      forEachHeldElement(
          rewriter, loc, dst->layout, dst->numRegisters,
          [&](OpBuilder &b, Location l, int64_t r, ArrayRef<Value> idx) {
            Value reg = indexConst(b, l, r);
            Value init =
                op.getClear()
                    ? reduceIdentity(b, l, kind, elt)
                    : memref::LoadOp::create(b, l, dst->memref, ValueRange{reg})
                          .getResult();
            memref::StoreOp::create(b, l, reduceRow(b, l, idx, init),
                                    dst->memref, ValueRange{reg});
          });
    } else {
      auto body = [&](OpBuilder &b, Location l, ArrayRef<Value> idx) {
        Value init =
            op.getClear()
                ? reduceIdentity(b, l, kind, elt)
                : memref::LoadOp::create(b, l, dst->memref, idx).getResult();
        memref::StoreOp::create(b, l, reduceRow(b, l, idx, init), dst->memref,
                                idx);
      };
      if (dst->scope == Scope::Shared) {
        barrier(rewriter, loc);
        buildThreadStridedLoop(
            rewriter, loc, numElements(outShape), getThreads(op),
            [&](OpBuilder &b, Location l, Value linear) {
              body(b, l, delinearize(b, l, linear, outShape));
            });
      } else {
        buildTileLoops(rewriter, loc, outShape,
                       [&](OpBuilder &b, Location l, ValueRange ivs) {
                         body(b, l, SmallVector<Value>(ivs));
                       });
      }
    }
    barrier(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// Software pipeline: cp.async into multi-buffered shared memory
//===----------------------------------------------------------------------===//

Value nvvm::cloneDependencies(RewriterBase &rewriter, Value v, Operation *scope,
                              IRMapping &mapping) {
  if (mapping.contains(v))
    return mapping.lookup(v);
  Operation *def = v.getDefiningOp();
  if (!def || !scope->isAncestor(def))
    return v;
  for (Value operand : def->getOperands())
    cloneDependencies(rewriter, operand, scope, mapping);
  return rewriter.clone(*def, mapping)
      ->getResult(cast<OpResult>(v).getResultNumber());
}

bool nvvm::computableFrom(Value v, Operation *scope, ValueRange ivs) {
  if (llvm::is_contained(ivs, v))
    return true;
  Operation *def = v.getDefiningOp();
  if (!def)
    return !scope->isAncestor(v.getParentBlock()->getParentOp()) ||
           v.getParentBlock() == &scope->getRegion(0).front();
  if (!scope->isAncestor(def))
    return true;
  return isMemoryEffectFree(def) && def->getNumRegions() == 0 &&
         llvm::all_of(def->getOperands(),
                      [&](Value o) { return computableFrom(o, scope, ivs); });
}

Value nvvm::wgmmaWarpRow(OpBuilder &b, Location loc, Value warp,
                         int64_t repeats) {
  return arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(
          b, loc, arith::DivUIOp::create(b, loc, warp, indexConst(b, loc, 4)),
          indexConst(b, loc, 64 * repeats)),
      arith::MulIOp::create(
          b, loc, arith::RemUIOp::create(b, loc, warp, indexConst(b, loc, 4)),
          indexConst(b, loc, 16)));
}

nvvm::RingSlot nvvm::ringSlot(OpBuilder &b, Location loc, Value iv,
                              Value lower, Value step, int64_t numStages,
                              Value base) {
  Value iteration = arith::DivUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, iv, lower), step);
  if (base)
    iteration = arith::AddIOp::create(b, loc, base, iteration);
  Value stage = arith::RemUIOp::create(b, loc, iteration,
                                       indexConst(b, loc, numStages));
  return {iteration, stage};
}

namespace {

/// A copy of a pipelined loop that loads the next iterations' tiles ahead:
/// global to a whole shared buffer, in 16-byte chunks.
struct Producer {
  CopyOp copy;
  Value view;                // the shared buffer's storage
  Value stages;              // num_stages copies of it: memref<S x shape>
  int64_t vec;               // elements per 16-byte chunk
  int64_t swizzleChunks = 0; // see swizzledColumn; 0: not swizzled
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

  Value zero = indexConst(rewriter, loc, 0);
  Value vecC = indexConst(rewriter, loc, vec);
  Value base =
      memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc, src.buffer);
  Value lastDim = memref::DimOp::create(rewriter, loc, src.buffer, rank - 1);
  Value aligned = arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::eq,
      arith::RemUIOp::create(rewriter, loc, base,
                             indexConst(rewriter, loc, 16)),
      zero);
  if (rank > 1)
    aligned = arith::AndIOp::create(
        rewriter, loc, aligned,
        arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::eq,
            arith::RemUIOp::create(rewriter, loc, lastDim, vecC), zero));
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
              for (int64_t e = 0; e < vec; ++e) {
                SmallVector<Value> se = si, de = dstIdx;
                Value off = indexConst(eb, el, e);
                se.back() = arith::AddIOp::create(eb, el, se.back(), off);
                de.back() = arith::AddIOp::create(eb, el, de.back(), off);
                Value v = loadSourceElement(eb, el, src, se, pad, elt);
                memref::StoreOp::create(eb, el, v, producer.stages,
                                        stageIndices(eb, el, de));
              }
              scf::YieldOp::create(eb, el);
            });
      });
}

} // namespace

/// Pipelines `loop` when its global -> shared copies can run ahead:
/// each such buffer gets num_stages copies; num_stages - 1 iterations of
/// copies are issued before the loop; each iteration waits for its own
/// group (cp.async.wait_group num_stages - 2), synchronizes, issues the
/// copies of the iteration num_stages - 1 ahead into the stage the previous
/// iteration read, and computes on its stage. The loop is left with
/// num_stages = 1: its remaining ops lower as usual.
static void pipelineWithCpAsync(RewriterBase &rewriter, PipelinedOp loop,
                                int64_t &sharedBytes) {
  int64_t numStages = loop.getNumStages();
  // tile-verify-target rejects pipelines whose stages exceed shared memory;
  // without it, absurd depths are left unpipelined rather than unrolled.
  if (numStages < 2 || numStages > 32)
    return;
  SmallVector<Producer> producers;
  for (Operation &op : loop.getBodyBlock().without_terminator())
    if (auto copy = dyn_cast<CopyOp>(op))
      if (std::optional<Producer> p = asProducer(copy, loop))
        producers.push_back(*p);
  if (producers.empty())
    return;
  MLIRContext *ctx = loop.getContext();
  Location loc = loop.getLoc();
  int64_t threads = getThreads(loop);
  auto kernel = loop->getParentOfType<KernelOp>();

  // Stage buffers, after the kernel's other shared buffers.
  rewriter.setInsertionPointToStart(&kernel.getBodyBlock());
  for (Producer &p : producers) {
    MemRefType type = p.copy.getTarget().getType();
    SmallVector<int64_t> shape = {numStages};
    shape.append(type.getShape().begin(), type.getShape().end());
    sharedBytes = llvm::alignTo(sharedBytes, kSharedAlignment);
    p.stages = sharedView(rewriter, loc, shape, type.getElementType(),
                          indexConst(rewriter, loc, sharedBytes));
    sharedBytes +=
        numStages * type.getNumElements() * type.getElementTypeBitWidth() / 8;
  }

  Value lower = loop.getLower(), upper = loop.getUpper(), step = loop.getStep();
  // Prologue: the copies of iterations 0 .. num_stages - 2, a group each.
  rewriter.setInsertionPoint(loop);
  Value lastGroup;
  for (int64_t s = 0; s + 1 < numStages; ++s) {
    Value iv = arith::AddIOp::create(
        rewriter, loc, lower,
        arith::MulIOp::create(rewriter, loc, step,
                              indexConst(rewriter, loc, s)));
    Value inRange = arith::CmpIOp::create(rewriter, loc,
                                          arith::CmpIPredicate::slt, iv, upper);
    scf::IfOp::create(rewriter, loc, inRange, [&](OpBuilder &b, Location l) {
      for (const Producer &p : producers)
        issueProducer(rewriter, l, loop, p, iv, indexConst(rewriter, l, s),
                      threads);
      scf::YieldOp::create(b, l);
    });
    lastGroup = nvgpu::DeviceAsyncCreateGroupOp::create(
        rewriter, loc, nvgpu::DeviceAsyncTokenType::get(ctx), ValueRange{});
  }

  // Steady state.
  Block &body = loop.getBodyBlock();
  rewriter.setInsertionPointToStart(&body);
  Value k = loop.getInductionVar();
  auto [iteration, stage] =
      ringSlot(rewriter, loc, k, lower, step, numStages);
  Value sC = indexConst(rewriter, loc, numStages);
  nvgpu::DeviceAsyncWaitOp::create(rewriter, loc, lastGroup,
                                   rewriter.getI32IntegerAttr(numStages - 2));
  barrier(rewriter, loc);
  Value ahead = arith::AddIOp::create(
      rewriter, loc, k,
      arith::MulIOp::create(rewriter, loc, step,
                            indexConst(rewriter, loc, numStages - 1)));
  Value aheadStage = arith::RemUIOp::create(
      rewriter, loc,
      arith::AddIOp::create(rewriter, loc, iteration,
                            indexConst(rewriter, loc, numStages - 1)),
      sC);
  Value aheadInRange = arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::slt, ahead, upper);
  scf::IfOp::create(rewriter, loc, aheadInRange, [&](OpBuilder &b, Location l) {
    for (const Producer &p : producers)
      issueProducer(rewriter, l, loop, p, ahead, aheadStage, threads);
    scf::YieldOp::create(b, l);
  });
  nvgpu::DeviceAsyncCreateGroupOp::create(
      rewriter, loc, nvgpu::DeviceAsyncTokenType::get(ctx), ValueRange{});
  // The loop reads this iteration's stage where it read the buffer.
  for (Producer &p : producers) {
    MemRefType type = p.copy.getTarget().getType();
    int64_t rank = type.getRank();
    SmallVector<OpFoldResult> offsets = {stage};
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

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

/// The swizzle (16-byte chunks per row) of a plain 2-d shared buffer that
/// whole-tile copies from global memory fill and only gemms read, so that
/// ldmatrix reads it without bank conflicts; 0 to keep it unswizzled. The
/// copies store through physicalIndices, the gemms read through
/// swizzledColumn.
static int64_t swizzleChunksOf(Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  if (type.getRank() != 2 || !type.getElementType().isIntOrFloat())
    return 0;
  int64_t rowBits = type.getShape()[1] * type.getElementTypeBitWidth();
  if (rowBits % 128 != 0 || rowBits / 128 < 2)
    return 0;
  bool read = false, written = false;
  for (Operation *user : buffer.getUsers()) {
    if (auto gemm = dyn_cast<GemmOp>(user)) {
      if (gemm.getC() == buffer)
        return 0;
      read = true;
      continue;
    }
    auto copy = dyn_cast<CopyOp>(user);
    if (!copy || copy.getTarget() != buffer || !isGlobal(copy.getSource().getType()) ||
        ArrayRef<int64_t>(copy.getTargetSizes()) != type.getShape() ||
        !llvm::all_of(copy.getMixedTargetOffsets(),
                      [](OpFoldResult o) { return isConstantIntValue(o, 0); }))
      return 0;
    written = true;
  }
  return read && written ? rowBits / 128 : 0;
}

LogicalResult mlir::tile::placeBuffersForNVVM(RewriterBase &rewriter,
                                              KernelOp kernel,
                                              int64_t registerLimit) {
  Location loc = kernel.getLoc();
  Block &block = kernel.getBodyBlock();
  auto bind = [&](Operation *alloc, Value storage, FragmentLayoutAttr layout) {
    auto bound = BindStorageOp::create(rewriter, alloc->getLoc(),
                                       alloc->getResultTypes()[0], storage);
    if (layout)
      bound.setLayoutAttr(layout);
    rewriter.replaceOp(alloc, bound.getOperation());
    return bound;
  };

  SmallVector<Operation *> allocs;
  kernel.walk([&](Operation *op) {
    if (isa<AllocSharedOp, AllocFragmentOp, AllocLocalOp>(op))
      allocs.push_back(op);
  });
  for (Operation *op : allocs) {
    auto type = cast<MemRefType>(op->getResult(0).getType());
    rewriter.setInsertionPointToStart(&block);
    if (auto shared = dyn_cast<AllocSharedOp>(op)) {
      std::optional<uint64_t> planned = shared.getOffset();
      if (!planned)
        return shared.emitOpError()
               << "has no shared-memory offset; run tile-plan-shared first";
      // After the register arrays made so far: they stay first in the
      // kernel's entry block, where LLVM promotes them to registers (a
      // shared tile allocated after a fragment, as TileLang's C_shared is,
      // would otherwise keep the accumulator in local memory).
      Operation *first = &block.front();
      while (isa<memref::AllocaOp>(first))
        first = first->getNextNode();
      rewriter.setInsertionPoint(first);
      // At byte 0 until tile-plan-scratch, which places the planned region
      // once the pipelines have taken over the buffers they replace by
      // stage buffers.
      auto offset = arith::ConstantIndexOp::create(rewriter, loc, 0);
      Value view = sharedView(rewriter, loc, type.getShape(),
                              type.getElementType(), offset);
      rewriter.setInsertionPoint(op);
      bind(op, view, nullptr)
          .setPlannedOffsetAttr(rewriter.getI64IntegerAttr(*planned));
    } else if (auto frag = dyn_cast<AllocFragmentOp>(op)) {
      auto layout =
          frag->getAttrOfType<FragmentLayoutAttr>(getLayoutAttrName());
      if (!layout || !layout.getInverse())
        return frag.emitOpError()
               << "has no register layout with an inverse; run "
                  "tile-infer-layouts first";
      // The walks below unroll over a thread's registers: bound them first
      // (tile-verify-target checks the share before layouts replicate it).
      uint64_t words = llvm::divideCeil(uint64_t(getBufferBytes(type)), 4);
      uint64_t share = llvm::SaturatingMultiply(
          llvm::divideCeil(words, uint64_t(layout.getThreads())),
          uint64_t(layout.getReplicate()));
      if (share > uint64_t(registerLimit))
        return frag.emitOpError()
               << "needs " << share << " 32-bit registers a thread in its "
               << "layout; the target takes at most " << registerLimit
               << ", spills included (use a smaller tile or more threads)";
      int64_t elements = type.getNumElements() * layout.getReplicate();
      int64_t registers =
          (elements + layout.getThreads() - 1) / layout.getThreads();
      if (!isWalkable(layout, registers))
        return frag.emitOpError()
               << "has a register layout this lowering cannot walk: it needs "
                  "the "
               << type.getNumElements() << " elements, one each, in the slots "
               << "(thread t, register r) with r * " << layout.getThreads()
               << " + t < " << type.getNumElements();
      Value regs = memref::AllocaOp::create(
          rewriter, loc, MemRefType::get({registers}, type.getElementType()));
      rewriter.setInsertionPoint(op);
      bind(op, regs, layout);
    } else {
      Value array = memref::AllocaOp::create(
          rewriter, loc,
          MemRefType::get(type.getShape(), type.getElementType()));
      rewriter.setInsertionPoint(op);
      bind(op, array, nullptr);
    }
  }
  return success();
}

/// The bytes of dynamic shared memory placed from byte 0 on so far (the
/// pipelines' stage buffers), which the next buffers follow.
static int64_t placedSharedBytes(KernelOp kernel) {
  auto bytes = kernel->getAttrOfType<IntegerAttr>(getSharedBytesAttrName());
  return bytes ? bytes.getInt() : 0;
}

LogicalResult mlir::tile::pipelineLoopsForNVVM(RewriterBase &rewriter,
                                               KernelOp kernel, int sm,
                                               int64_t sharedLimit) {
  int64_t sharedBytes = placedSharedBytes(kernel);
  SmallVector<PipelinedOp> loops;
  kernel.walk([&](PipelinedOp loop) { loops.push_back(loop); });
  for (PipelinedOp loop : loops) {
    FailureOr<bool> tma =
        sm < 90 ? false
                : pipelineWithTma(rewriter, loop, sharedBytes, sharedLimit);
    if (failed(tma))
      return failure();
    if (!*tma)
      pipelineWithCpAsync(rewriter, loop, sharedBytes);
  }
  if (sharedBytes != 0)
    kernel->setAttr(getSharedBytesAttrName(),
                    rewriter.getI64IntegerAttr(sharedBytes));
  return success();
}

namespace {

/// A shared buffer that tile-place-buffers placed in tile-plan-shared's
/// region: its view of dynamic shared memory at a placeholder offset.
struct PlannedView {
  BindStorageOp bound;
  memref::ViewOp view;
  arith::ConstantIndexOp offset;
  int64_t bytes;
  int64_t planned; // tile-plan-shared's offset in the planned region
};

} // namespace

/// The shared buffers of `kernel` still at their planned offset.
static FailureOr<SmallVector<PlannedView>> collectPlannedViews(KernelOp kernel) {
  SmallVector<PlannedView> views;
  WalkResult walk = kernel.walk([&](BindStorageOp bound) {
    std::optional<uint64_t> planned = bound.getPlannedOffset();
    if (!planned)
      return WalkResult::advance();
    auto view = bound.getStorage().getDefiningOp<memref::ViewOp>();
    auto offset =
        view ? view.getByteShift().getDefiningOp<arith::ConstantIndexOp>()
             : arith::ConstantIndexOp();
    if (!offset || !view.getSource().getDefiningOp<gpu::DynamicSharedMemoryOp>()) {
      bound.emitOpError() << "has a planned offset but its storage is not a "
                             "view of dynamic shared memory at a constant "
                             "offset (what tile-place-buffers makes)";
      return WalkResult::interrupt();
    }
    MemRefType type = bound.getType();
    // index elements are stored as 64-bit integers.
    int64_t bits = type.getElementType().isIndex()
                       ? 64
                       : type.getElementType().getIntOrFloatBitWidth();
    views.push_back({bound, view, offset,
                     (type.getNumElements() * bits + 7) / 8, int64_t(*planned)});
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  return views;
}

LogicalResult mlir::tile::planScratchForNVVM(RewriterBase &rewriter,
                                             KernelOp kernel,
                                             int64_t sharedLimit) {
  FailureOr<SmallVector<PlannedView>> planned = collectPlannedViews(kernel);
  if (failed(planned))
    return failure();
  SmallVector<PlannedView> &sharedViews = *planned;
  int64_t sharedBytes = placedSharedBytes(kernel);
  // Shared scratch copies of the fragments some use reads across threads:
  // reductions, gemm operands, loops that read another shape.
  llvm::SetVector<Value> needScratch;
  // The partials of the warps that share rows, a buffer a reduce.
  SmallVector<std::pair<ReduceOp, int64_t>> reduceScratch;
  kernel.walk([&](Operation *op) {
    if (auto reduce = dyn_cast<ReduceOp>(op)) {
      std::optional<RegisterReduce> plan = planRegisterReduce(reduce);
      if (!plan)
        needScratch.insert(reduce.getSource());
      else if (int64_t bytes = plan->scratchBytes())
        reduceScratch.push_back({reduce, bytes});
    }
    else if (auto copy = dyn_cast<CopyOp>(op)) {
      std::optional<Storage> from = getStorage(copy.getSource());
      std::optional<Storage> to = getStorage(copy.getTarget());
      if (from && to && from->scope == Scope::Fragment &&
          to->scope == Scope::Fragment && from->layout != to->layout)
        needScratch.insert(copy.getSource());
    } else if (auto gemm = dyn_cast<GemmOp>(op)) {
      std::optional<Storage> a = getStorage(gemm.getA());
      MmaAttr mma = gemm.getMmaAttr();
      if (!a || !mma || !mmaAFromRegisters(gemm, *a, getMmaPartition(mma)))
        needScratch.insert(gemm.getA());
      needScratch.insert(gemm.getB());
    } else if (auto loop = dyn_cast<ParallelOp>(op)) {
      ParallelPlan plan = planParallel(loop);
      needScratch.insert(plan.staged.begin(), plan.staged.end());
    }
  });
  // The shared buffers still in use (a pipelined buffer lives on in its
  // stage buffers only).
  int64_t plannedEnd = -1;
  for (PlannedView &v : sharedViews) {
    if (v.bound->use_empty()) {
      // Hand-written IR may bind one view (or offset) more than once: each
      // goes with its last user.
      Value base = v.view.getSource();
      rewriter.eraseOp(v.bound);
      if (v.view->use_empty())
        rewriter.eraseOp(v.view);
      if (v.offset->use_empty())
        rewriter.eraseOp(v.offset);
      if (base.use_empty())
        rewriter.eraseOp(base.getDefiningOp());
      v.bound = BindStorageOp();
      continue;
    }
    plannedEnd = std::max(plannedEnd, v.planned + v.bytes);
  }
  // After the pipelines' stages: the scratch buffers, then the region
  // tile-plan-shared planned. Each reduce's partials get bytes of their
  // own, unless the kernel fits only when they share them: a reduce
  // synchronizes the block before it writes its partials, after every
  // thread read those of the reduces before it.
  auto place = [&](bool shareReduceScratch, bool apply) {
    int64_t bytes = sharedBytes;
    auto reserve = [&](Operation *op, int64_t size) {
      bytes = llvm::alignTo(bytes, kSharedAlignment);
      // A fragment's scratch copy, or a reduce's or gemm_sp's own.
      if (auto bound = dyn_cast<BindStorageOp>(op); apply && bound)
        bound.setScratchOffsetAttr(rewriter.getI64IntegerAttr(bytes));
      else if (apply)
        op->setAttr(kScratchAttr, rewriter.getI64IntegerAttr(bytes));
      bytes += size;
    };
    if (shareReduceScratch && !reduceScratch.empty()) {
      int64_t widest = 0;
      for (auto [reduce, size] : reduceScratch)
        widest = std::max(widest, size);
      bytes = llvm::alignTo(bytes, kSharedAlignment);
      for (auto [reduce, size] : reduceScratch)
        if (apply)
          reduce->setAttr(kScratchAttr, rewriter.getI64IntegerAttr(bytes));
      bytes += widest;
    } else {
      for (auto [reduce, size] : reduceScratch)
        reserve(reduce, size);
    }
    // tile.gemm_sp expands its compressed A into a dense shared buffer.
    kernel.walk([&](GemmSpOp gemm) {
      MemRefType a = gemm.getA().getType();
      reserve(gemm, 2 * a.getNumElements() * a.getElementTypeBitWidth() / 8);
    });
    for (Value v : needScratch) {
      std::optional<Storage> s = getStorage(v);
      if (!s || s->scope != Scope::Fragment)
        continue;
      auto type = cast<MemRefType>(v.getType());
      reserve(v.getDefiningOp(),
              type.getNumElements() * type.getElementTypeBitWidth() / 8);
    }
    if (plannedEnd < 0)
      return bytes;
    int64_t base = llvm::alignTo(bytes, kSharedAlignment);
    if (apply)
      for (PlannedView &v : sharedViews) {
        if (!v.bound)
          continue;
        rewriter.modifyOpInPlace(v.offset, [&] {
          v.offset.setValueAttr(rewriter.getIndexAttr(base + v.planned));
        });
        v.bound.removePlannedOffsetAttr();
        if (int64_t chunks = swizzleChunksOf(v.bound))
          v.bound.setSwizzleChunksAttr(rewriter.getI64IntegerAttr(chunks));
      }
    return base + plannedEnd;
  };
  bool share = reduceScratch.size() > 1 &&
               place(/*shareReduceScratch=*/false, /*apply=*/false) >
                   sharedLimit;
  sharedBytes = place(share, /*apply=*/true);
  // The plan is consumed: its buffers are views now.
  kernel.removePlannedSharedBytesAttr();
  kernel->setAttr(getSharedBytesAttrName(),
                  rewriter.getI64IntegerAttr(sharedBytes));
  return success();
}

namespace {

/// Fast math in kernels: f32 exp2 as one `ex2.approx.ftz.f32` (libdevice's
/// exp2f adds a denormal range check around it), and exp as exp2 of
/// x * log2(e). Subnormal results flush to zero.
template <typename MathOpT>
struct FastExpLowering : public OpRewritePattern<MathOpT> {
  using OpRewritePattern<MathOpT>::OpRewritePattern;

  LogicalResult matchAndRewrite(MathOpT op,
                                PatternRewriter &rewriter) const override {
    Type f32 = rewriter.getF32Type();
    if (op.getType() != f32 || !op->template getParentOfType<KernelOp>())
      return failure();
    Location loc = op.getLoc();
    Value x = op.getOperand();
    if (std::is_same_v<MathOpT, math::ExpOp>)
      x = arith::MulFOp::create(
          rewriter, loc, x,
          arith::ConstantOp::create(rewriter, loc,
                                    rewriter.getF32FloatAttr(1.4426950408889634f)));
    rewriter.replaceOpWithNewOp<LLVM::CallIntrinsicOp>(
        op, f32, rewriter.getStringAttr("llvm.nvvm.ex2.approx.ftz.f32"),
        ValueRange{x});
    return success();
  }
};

} // namespace

void mlir::tile::populateTileToNVVMOpPatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  populateFillToGPUPatterns(patterns);
  populateAtomicToGPUPatterns(patterns);
  patterns.add<CopyLowering, GemmSpLowering,
               ParallelLowering, ReduceLowering, FastExpLowering<math::Exp2Op>,
               FastExpLowering<math::ExpOp>>(ctx);
  patterns.add<GemmLowering>(ctx);
  // Loops that tile-software-pipeline did not pipeline run their
  // copies to completion (with barriers) before the compute; shared buffers
  // stay unswizzled, and fragment layouts were taken by tile-infer-layouts.
  populateSerialPipelinedAndLayoutPatterns(patterns);
}

LogicalResult mlir::tile::finishKernelForNVVM(RewriterBase &rewriter,
                                              KernelOp kernel) {
  // In a block with a producer warpgroup, the consumers synchronize among
  // themselves: named barrier 1 over their threads.
  kernel.walk([&](scf::IfOp split) {
    auto consumers = split->getAttrOfType<IntegerAttr>(kConsumerThreadsAttr);
    if (!consumers)
      return;
    SmallVector<gpu::BarrierOp> barriers;
    split.getThenRegion().walk(
        [&](gpu::BarrierOp b) { barriers.push_back(b); });
    for (gpu::BarrierOp b : barriers) {
      rewriter.setInsertionPoint(b);
      Location loc = b.getLoc();
      Value id = arith::ConstantIntOp::create(rewriter, loc,
                                              rewriter.getI32Type(), 1);
      Value count = arith::ConstantIntOp::create(
          rewriter, loc, rewriter.getI32Type(), consumers.getInt());
      NVVM::BarrierOp::create(rewriter, loc, Type(), id, count, nullptr,
                              Value());
      rewriter.eraseOp(b);
    }
  });
  SmallVector<BindStorageOp> bounds;
  kernel.walk([&](BindStorageOp bound) { bounds.push_back(bound); });
  bool ok = true;
  for (BindStorageOp bound : bounds) {
    Value storage = bound.getStorage();
    if (bound.getLayout()) {
      // Elements of a fragment are spread over threads: only the lowered
      // tile ops and the loops over its elements may touch it.
      for (Operation *user : llvm::to_vector(bound->getUsers())) {
        // Accesses in a tile.parallel that is left: the loop is reported.
        if (isa<TileDialect>(user->getDialect()) ||
            user->getParentOfType<ParallelOp>() ||
            lowerScalarFragmentAccess(rewriter, bound, user))
          continue;
        user->emitOpError()
            << "reads or writes a fragment outside a tile.parallel loop over "
               "its elements; a fragment's elements are spread over the "
               "block's threads (copy it to a shared buffer first)";
        ok = false;
      }
      if (bound->use_empty())
        rewriter.eraseOp(bound);
      continue;
    }
    // Shared and local buffers: their storage serves the remaining memref
    // accesses directly.
    rewriter.replaceAllUsesWith(bound.getResult(), storage);
    rewriter.eraseOp(bound);
  }
  return success(ok);
}

//===----------------------------------------------------------------------===//
// Kernel
//===----------------------------------------------------------------------===//

/// Recomputes in the kernel the pure host values it uses (index arithmetic
/// on tensor sizes, constants), so that the kernel only captures the
/// function's arguments: a launcher then needs nothing but those.
static void sinkHostComputations(RewriterBase &rewriter, KernelOp kernel) {
  Block &body = kernel.getBodyBlock();
  llvm::SetVector<Value> captured;
  kernel.walk([&](Operation *op) {
    if (op == kernel.getOperation())
      return;
    for (Value operand : op->getOperands())
      if (!kernel->isAncestor(operand.getParentBlock()->getParentOp()))
        captured.insert(operand);
  });
  IRMapping mapping;
  std::function<bool(Value)> sinkable = [&](Value v) -> bool {
    if (isa<BlockArgument>(v))
      return true;
    Operation *def = v.getDefiningOp();
    if (!def || def->getNumRegions() != 0 || def->getNumResults() != 1 ||
        !isMemoryEffectFree(def))
      return false;
    return llvm::all_of(def->getOperands(), sinkable);
  };
  // Clones go to the start of the body, operands before their users.
  rewriter.setInsertionPointToStart(&body);
  std::function<Value(Value)> clone = [&](Value v) -> Value {
    if (isa<BlockArgument>(v) || mapping.contains(v))
      return mapping.lookupOrDefault(v);
    Operation *def = v.getDefiningOp();
    for (Value operand : def->getOperands())
      clone(operand);
    Operation *copy = rewriter.clone(*def, mapping);
    return copy->getResult(0);
  };
  for (Value v : captured) {
    if (isa<BlockArgument>(v) || !sinkable(v))
      continue;
    Value inside = clone(v);
    rewriter.replaceUsesWithIf(v, inside, [&](OpOperand &use) {
      return use.getOwner() != kernel.getOperation() &&
             kernel->isAncestor(use.getOwner());
    });
  }
}

LogicalResult mlir::tile::lowerKernelToNVVM(RewriterBase &rewriter,
                                            KernelOp kernel, int sm) {
  Location loc = kernel.getLoc();
  sinkHostComputations(rewriter, kernel);
  rewriter.setInsertionPoint(kernel);
  SmallVector<Value> grid =
      getValueOrCreateConstantIndexOp(rewriter, loc, kernel.getMixedGrid());
  Value one = indexConst(rewriter, loc, 1);
  while (grid.size() < 3)
    grid.push_back(one);
  // A producer warpgroup (TMA pipelines on sm_90a) runs after the
  // kernel's own threads.
  int64_t producers = 0;
  if (auto attr = kernel->getAttrOfType<IntegerAttr>(kProducerThreadsAttr))
    producers = attr.getInt();
  Value threads =
      indexConst(rewriter, loc, kernel.getThreads() + producers);
  auto sharedAttr =
      kernel->getAttrOfType<IntegerAttr>(getSharedBytesAttrName());
  Value shared =
      arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(),
                                   sharedAttr ? sharedAttr.getInt() : 0);
  // Thread-block clusters (sm_90 and later): the launch's cluster size.
  SmallVector<Value> cluster(3, Value());
  if (std::optional<ArrayRef<int64_t>> dims = kernel.getCluster()) {
    if (sm < 90)
      return kernel.emitOpError()
             << "uses thread-block clusters, which sm_" << sm
             << " does not have (they need sm_90a); remove cluster(...)";
    for (int64_t d = 0; d < 3; ++d)
      cluster[d] = indexConst(rewriter, loc,
                              d < static_cast<int64_t>(dims->size())
                                  ? (*dims)[d]
                                  : 1);
  }
  auto launch = gpu::LaunchOp::create(
      rewriter, loc, grid[0], grid[1], grid[2], threads, one, one, shared,
      /*asyncTokenType=*/nullptr, /*asyncDependencies=*/ValueRange{},
      /*workgroupAttributions=*/TypeRange{}, /*privateAttributions=*/TypeRange{},
      cluster[0], cluster[1], cluster[2]);
  Block &launchBody = launch.getBody().front();
  // The builder leaves out the cluster ids and sizes the body takes after
  // the block / thread ids and sizes when the launch has a cluster size.
  if (cluster[0] && launchBody.getNumArguments() == 12)
    for (int i = 0; i < 6; ++i)
      launchBody.addArgument(rewriter.getIndexType(), loc);
  rewriter.setInsertionPointToEnd(&launchBody);
  auto terminator = gpu::TerminatorOp::create(rewriter, loc);
  gpu::KernelDim3 ids = launch.getBlockIds();
  SmallVector<Value> blockIds = {ids.x, ids.y, ids.z};
  Block &body = kernel.getBodyBlock();
  rewriter.eraseOp(body.getTerminator());
  rewriter.inlineBlockBefore(
      &body, terminator,
      ArrayRef<Value>(blockIds).take_front(body.getNumArguments()));
  rewriter.eraseOp(kernel);

  WalkResult leftover = launch.walk([&](Operation *op) {
    for (Type t : op->getResultTypes())
      if (auto memref = dyn_cast<MemRefType>(t);
          memref && isa_and_nonnull<ScopeAttr>(memref.getMemorySpace())) {
        op->emitOpError() << "still produces a tile buffer after lowering";
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return failure(leftover.wasInterrupted());
}
