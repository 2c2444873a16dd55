//===- TileToCPU.cpp - Lowering tile ops for the CPU ----------------------===//
//
// A block runs on one host thread, so every tile op becomes a loop nest over
// its whole tile. Innermost dimensions are vectors (copies, gemm) or simple
// loops that LLVM vectorizes (fill, reduce, parallel).
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/TileToCPU/TileToCPU.h"
#include "tile/Conversion/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// The kernel body block that encloses `op`; scratch buffers go there so
/// that loops never grow the stack.
Block *getKernelBlock(Operation *op) {
  auto kernel = op->getParentOfType<KernelOp>();
  return kernel ? &kernel.getBodyBlock() : nullptr;
}

/// Whether `t` has elements narrower than a byte.
bool isSubByte(Type t) {
  return t.isIntOrFloat() && t.getIntOrFloatBitWidth() < 8 && !t.isInteger(1);
}

/// A buffer of `type` (default memory space) allocated once per block.
Value allocScratch(OpBuilder &b, Operation *user, MemRefType type) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(getKernelBlock(user));
  return memref::AllocaOp::create(b, user->getLoc(), type,
                                  b.getI64IntegerAttr(64));
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

template <typename AllocOpT>
struct AllocLowering : public OpRewritePattern<AllocOpT> {
  using OpRewritePattern<AllocOpT>::OpRewritePattern;
  LogicalResult matchAndRewrite(AllocOpT op,
                                PatternRewriter &rewriter) const override {
    Block *block = getKernelBlock(op);
    if (!block)
      return failure();
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(block);
    rewriter.replaceOpWithNewOp<memref::AllocaOp>(
        op, op.getType(), rewriter.getI64IntegerAttr(64));
    return success();
  }
};

struct FillLowering : public OpRewritePattern<FillOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FillOp op,
                                PatternRewriter &rewriter) const override {
    fillBuffer(rewriter, op.getLoc(), op.getBuffer(), op.getValue());
    rewriter.eraseOp(op);
    return success();
  }
};

struct ClearLowering : public OpRewritePattern<ClearOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ClearOp op,
                                PatternRewriter &rewriter) const override {
    Type elt = op.getBuffer().getType().getElementType();
    fillBuffer(rewriter, op.getLoc(), op.getBuffer(),
               zeroOf(rewriter, op.getLoc(), elt));
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Copy
//===----------------------------------------------------------------------===//

struct CopyLowering : public OpRewritePattern<CopyOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(CopyOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    CopyEnd src(rewriter, loc, op.getSource(), op.getMixedSourceOffsets(),
                op.getSourceSizes());
    CopyEnd dst(rewriter, loc, op.getTarget(), op.getMixedTargetOffsets(),
                op.getTargetSizes());
    SmallVector<int64_t> tile = op.getTileShape();
    Type srcElt = src.type.getElementType();
    Type dstElt = dst.type.getElementType();
    Value pad =
        op.getPad()
            ? arith::ConstantOp::create(rewriter, loc, *op.getPad()).getResult()
            : zeroOf(rewriter, loc, srcElt);

    // Vector rows when the tile's last dim is the last (contiguous: unit
    // stride) dim of both buffers and the elements are whole bytes (4-bit
    // ones are packed by tile-emulate-fp4, an element at a time); element
    // by element otherwise.
    // Rows longer than kMaxVectorRow elements are copied element by
    // element: one vector per row would be too large for LLVM.
    constexpr int64_t kMaxVectorRow = 4096;
    bool vectorize = !tile.empty() && tile.back() <= kMaxVectorRow &&
                     src.tileDims.back() == src.type.getRank() - 1 &&
                     dst.tileDims.back() == dst.type.getRank() - 1 &&
                     src.type.isLastDimUnitStride() &&
                     dst.type.isLastDimUnitStride() &&
                     !isSubByte(srcElt) && !isSubByte(dstElt);
    ArrayRef<int64_t> loops = tile;
    if (vectorize)
      loops = loops.drop_back();

    // One element at tile index `ivs` (all tile dims), bounds-checked on
    // both sides.
    auto copyElement = [&](OpBuilder &b, Location l, ValueRange ivs) {
      SmallVector<Value> si = src.indices(b, l, ivs);
      SmallVector<Value> di = dst.indices(b, l, ivs);
      Value srcOk = src.cond(b, l, si);
      Value value;
      if (srcOk) {
        auto ifOp = scf::IfOp::create(
            b, l, srcOk,
            [&](OpBuilder &tb, Location tl) {
              scf::YieldOp::create(
                  tb, tl,
                  memref::LoadOp::create(tb, tl, src.buffer, si).getResult());
            },
            [&](OpBuilder &eb, Location el) {
              scf::YieldOp::create(eb, el, pad);
            });
        value = ifOp.getResult(0);
      } else {
        value = memref::LoadOp::create(b, l, src.buffer, si);
      }
      value = convertElements(b, l, value, dstElt);
      buildIf(b, l, dst.cond(b, l, di), [&](OpBuilder &tb, Location tl) {
        memref::StoreOp::create(tb, tl, value, dst.buffer, di);
      });
    };

    auto body = [&](OpBuilder &b, Location l, ValueRange ivs) {
      if (!vectorize) {
        copyElement(b, l, ivs);
        return;
      }
      SmallVector<Value> si = src.indices(b, l, ivs);
      SmallVector<Value> di = dst.indices(b, l, ivs);
      // Vector transfers mask only the elements past the end of a row: a
      // row that starts before a global buffer's row (negative column) is
      // copied element by element.
      Value rowStartOk;
      for (CopyEnd *end : {&src, &dst}) {
        if (!end->global)
          continue;
        Value col = (end == &src ? si : di).back();
        Value ok = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, col,
                                         indexConst(b, l, 0));
        rowStartOk =
            rowStartOk ? arith::AndIOp::create(b, l, rowStartOk, ok).getResult()
                       : ok;
      }
      OpBuilder::InsertionGuard guard(b);
      if (rowStartOk) {
        auto ifOp =
            scf::IfOp::create(b, l, rowStartOk, /*withElseRegion=*/true);
        OpBuilder eb = ifOp.getElseBodyBuilder();
        buildTileLoops(eb, l, {tile.back()},
                       [&](OpBuilder &lb, Location ll, ValueRange last) {
                         SmallVector<Value> all(ivs);
                         all.push_back(last[0]);
                         copyElement(lb, ll, all);
                       });
        b.setInsertionPointToStart(ifOp.thenBlock());
      }
      auto srcVec = VectorType::get({tile.back()}, srcElt);
      bool srcInBounds = !src.global, dstInBounds = !dst.global;
      auto read = [&](OpBuilder &rb, Location rl) -> Value {
        return vector::TransferReadOp::create(rb, rl, srcVec, src.buffer, si,
                                              pad, ArrayRef<bool>{srcInBounds});
      };
      Value row;
      if (Value ok = src.cond(b, l, si, src.tileDims.back())) {
        auto ifOp = scf::IfOp::create(
            b, l, ok,
            [&](OpBuilder &tb, Location tl) {
              scf::YieldOp::create(tb, tl, read(tb, tl));
            },
            [&](OpBuilder &eb, Location el) {
              scf::YieldOp::create(
                  eb, el,
                  vector::BroadcastOp::create(eb, el, srcVec, pad).getResult());
            });
        row = ifOp.getResult(0);
      } else {
        row = read(b, l);
      }
      row = convertElements(b, l, row, dstElt);
      buildIf(b, l, dst.cond(b, l, di, dst.tileDims.back()),
              [&](OpBuilder &tb, Location tl) {
                vector::TransferWriteOp::create(tb, tl, row, dst.buffer, di,
                                                ArrayRef<bool>{dstInBounds});
              });
    };
    if (loops.empty())
      body(rewriter, loc, {});
    else
      buildTileLoops(rewriter, loc, loops, body);
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Gemm
//===----------------------------------------------------------------------===//

/// The largest of `candidates` that divides `n`.
int64_t pickDivisor(int64_t n, ArrayRef<int64_t> candidates) {
  for (int64_t c : candidates)
    if (n % c == 0)
      return c;
  return 1;
}

/// Copies `src` ([rows x cols], or [cols x rows] when `transpose`) into a
/// new row-major [rows x cols] scratch buffer of element type `elt`.
Value packOperand(OpBuilder &b, Operation *user, Value src, bool transpose,
                  int64_t rows, int64_t cols, Type elt) {
  Location loc = user->getLoc();
  Value packed = allocScratch(b, user, MemRefType::get({rows, cols}, elt));
  buildTileLoops(b, loc, {rows, cols},
                 [&](OpBuilder &lb, Location ll, ValueRange ivs) {
                   SmallVector<Value> idx = {ivs[0], ivs[1]};
                   if (transpose)
                     std::swap(idx[0], idx[1]);
                   Value v = memref::LoadOp::create(lb, ll, src, idx);
                   memref::StoreOp::create(
                       lb, ll, convertElements(lb, ll, v, elt), packed, ivs);
                 });
  return packed;
}

/// C[M, N] += A[M, K] * B[K, N] with register-blocked accumulators:
/// `mr` rows of `nr`-wide vectors stay in registers over the K loop, each
/// step one vector load of B and `mr` broadcasts of A feeding FMAs.
void emitMicroKernels(OpBuilder &b, Location loc, Value a, Value bm, Value c,
                      int64_t m, int64_t n, int64_t k, Type computeType) {
  int64_t mr = pickDivisor(m, {8, 6, 4, 3, 2});
  int64_t nr = pickDivisor(n, {32, 16, 8, 4, 2});
  Type cElt = cast<MemRefType>(c.getType()).getElementType();
  auto accType = VectorType::get({nr}, computeType);
  auto cVecType = VectorType::get({nr}, cElt);
  bool isFloat = isa<FloatType>(computeType);

  Value c0 = indexConst(b, loc, 0);
  Value cK = indexConst(b, loc, k);
  Value c1 = indexConst(b, loc, 1);
  SmallVector<Value> lbs = {c0, c0};
  SmallVector<Value> ubs = {indexConst(b, loc, m), indexConst(b, loc, n)};
  SmallVector<Value> steps = {indexConst(b, loc, mr), indexConst(b, loc, nr)};
  scf::buildLoopNest(
      b, loc, lbs, ubs, steps, [&](OpBuilder &lb, Location ll, ValueRange ivs) {
        Value m0 = ivs[0], n0 = ivs[1];
        SmallVector<Value> rows, accs;
        for (int64_t i = 0; i < mr; ++i) {
          Value row = arith::AddIOp::create(lb, ll, m0, indexConst(lb, ll, i));
          rows.push_back(row);
          Value cv =
              vector::LoadOp::create(lb, ll, cVecType, c, ValueRange{row, n0});
          accs.push_back(convertElements(lb, ll, cv, computeType));
        }
        auto kLoop = scf::ForOp::create(
            lb, ll, c0, cK, c1, accs,
            [&](OpBuilder &kb, Location kl, Value kv, ValueRange iter) {
              Value bv = vector::LoadOp::create(kb, kl, accType, bm,
                                                ValueRange{kv, n0});
              SmallVector<Value> next;
              for (int64_t i = 0; i < mr; ++i) {
                Value av =
                    memref::LoadOp::create(kb, kl, a, ValueRange{rows[i], kv});
                Value splat = vector::BroadcastOp::create(kb, kl, accType, av);
                if (isFloat) {
                  next.push_back(
                      vector::FMAOp::create(kb, kl, splat, bv, iter[i]));
                } else {
                  Value prod = arith::MulIOp::create(kb, kl, splat, bv);
                  next.push_back(arith::AddIOp::create(kb, kl, prod, iter[i]));
                }
              }
              scf::YieldOp::create(kb, kl, next);
            });
        for (int64_t i = 0; i < mr; ++i) {
          Value out = convertElements(lb, ll, kLoop.getResult(i), cElt);
          vector::StoreOp::create(lb, ll, out, c, ValueRange{rows[i], n0});
        }
      });
}

struct GemmLowering : public OpRewritePattern<GemmOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GemmOp op,
                                PatternRewriter &rewriter) const override {
    if (!getKernelBlock(op))
      return failure();
    Location loc = op.getLoc();
    Type cElt = op.getC().getType().getElementType();
    Type computeType = isa<FloatType>(cElt) ? Type(rewriter.getF32Type())
                                            : Type(rewriter.getI32Type());
    int64_t m = op.getM(), n = op.getN(), k = op.getK();
    Value a = op.getA(), b = op.getB();
    if (op.getTransposeA() ||
        op.getA().getType().getElementType() != computeType)
      a = packOperand(rewriter, op, a, op.getTransposeA(), m, k, computeType);
    if (op.getTransposeB() ||
        op.getB().getType().getElementType() != computeType)
      b = packOperand(rewriter, op, b, op.getTransposeB(), k, n, computeType);
    if (op.getClearAccum())
      fillBuffer(rewriter, loc, op.getC(), zeroOf(rewriter, loc, cElt));
    emitMicroKernels(rewriter, loc, a, b, op.getC(), m, n, k, computeType);
    rewriter.eraseOp(op);
    return success();
  }
};

/// Expands compressed 2:4 A ([M, K/2] values, [M, K/w] metadata of w-bit
/// integers, 2 bits per kept value) into a dense [M, K] buffer.
Value decompressSparse(OpBuilder &b, GemmSpOp op, Type elt) {
  Location loc = op.getLoc();
  MemRefType aType = op.getA().getType();
  MemRefType eType = op.getE().getType();
  int64_t m = aType.getDimSize(0), half = aType.getDimSize(1), k = 2 * half;
  int64_t width = eType.getElementTypeBitWidth();
  Value dense = allocScratch(b, op, MemRefType::get({m, k}, elt));
  fillBuffer(b, loc, dense, zeroOf(b, loc, elt));
  Type metaType = eType.getElementType();
  buildTileLoops(
      b, loc, {m, half}, [&](OpBuilder &lb, Location ll, ValueRange ivs) {
        Value row = ivs[0], j = ivs[1];
        // Kept value j sits in group j / 2; its 2-bit position is bits
        // [2 * (j mod (w / 2)), +2) of metadata word j / (w / 2).
        int64_t perWord = width / 2;
        Value word =
            arith::DivUIOp::create(lb, ll, j, indexConst(lb, ll, perWord));
        Value slot =
            arith::RemUIOp::create(lb, ll, j, indexConst(lb, ll, perWord));
        Value meta =
            memref::LoadOp::create(lb, ll, op.getE(), ValueRange{row, word});
        Value shift = arith::IndexCastOp::create(
            lb, ll, metaType,
            arith::MulIOp::create(lb, ll, slot, indexConst(lb, ll, 2)));
        Value bits = arith::ShRUIOp::create(lb, ll, meta, shift);
        Value three = arith::ConstantOp::create(lb, ll, metaType,
                                                lb.getIntegerAttr(metaType, 3));
        Value pos = arith::IndexCastUIOp::create(
            lb, ll, lb.getIndexType(),
            arith::AndIOp::create(lb, ll, bits, three));
        Value group = arith::DivUIOp::create(lb, ll, j, indexConst(lb, ll, 2));
        Value col = arith::AddIOp::create(
            lb, ll, arith::MulIOp::create(lb, ll, group, indexConst(lb, ll, 4)),
            pos);
        Value v = memref::LoadOp::create(lb, ll, op.getA(), ValueRange{row, j});
        memref::StoreOp::create(lb, ll, convertElements(lb, ll, v, elt), dense,
                                ValueRange{row, col});
      });
  return dense;
}

struct GemmSpLowering : public OpRewritePattern<GemmSpOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GemmSpOp op,
                                PatternRewriter &rewriter) const override {
    if (!getKernelBlock(op))
      return failure();
    Location loc = op.getLoc();
    MemRefType cType = op.getC().getType();
    Type cElt = cType.getElementType();
    Type computeType = isa<FloatType>(cElt) ? Type(rewriter.getF32Type())
                                            : Type(rewriter.getI32Type());
    int64_t m = cType.getDimSize(0), n = cType.getDimSize(1);
    int64_t k = 2 * op.getA().getType().getDimSize(1);
    Value a = decompressSparse(rewriter, op, computeType);
    Value b = op.getB();
    if (op.getTransposeB() ||
        op.getB().getType().getElementType() != computeType)
      b = packOperand(rewriter, op, b, op.getTransposeB(), k, n, computeType);
    if (op.getClearAccum())
      fillBuffer(rewriter, loc, op.getC(), zeroOf(rewriter, loc, cElt));
    emitMicroKernels(rewriter, loc, a, b, op.getC(), m, n, k, computeType);
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Reduce
//===----------------------------------------------------------------------===//

struct ReduceLowering : public OpRewritePattern<ReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReduceOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MemRefType srcType = op.getSource().getType();
    Type elt = srcType.getElementType();
    int64_t dim = op.getDim();
    ReduceKind kind = op.getKind();
    SmallVector<int64_t> kept = llvm::to_vector(srcType.getShape());
    kept.erase(kept.begin() + dim);

    auto body = [&](OpBuilder &b, Location l, ValueRange ivs) {
      SmallVector<Value> dstIdx(ivs);
      if (dstIdx.empty())
        dstIdx.push_back(indexConst(b, l, 0));
      Value init = op.getClear()
                       ? reduceIdentity(b, l, kind, elt)
                       : memref::LoadOp::create(b, l, op.getTarget(), dstIdx)
                             .getResult();
      auto loop = scf::ForOp::create(
          b, l, indexConst(b, l, 0), indexConst(b, l, srcType.getDimSize(dim)),
          indexConst(b, l, 1), ValueRange{init},
          [&](OpBuilder &rb, Location rl, Value r, ValueRange iter) {
            SmallVector<Value> srcIdx(ivs);
            srcIdx.insert(srcIdx.begin() + dim, r);
            Value x = reduceOperand(
                rb, rl, kind,
                memref::LoadOp::create(rb, rl, op.getSource(), srcIdx));
            scf::YieldOp::create(rb, rl,
                                 reduceCombine(rb, rl, kind, iter[0], x,
                                               op.getNanPropagate()));
          });
      memref::StoreOp::create(b, l, loop.getResult(0), op.getTarget(), dstIdx);
    };
    if (kept.empty())
      body(rewriter, loc, {});
    else
      buildTileLoops(rewriter, loc, kept, body);
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Atomics
//===----------------------------------------------------------------------===//

} // namespace

void mlir::tile::emitAtomicUpdate(OpBuilder &b, Location loc, Operation *atomic,
                           Value value, ArrayRef<Value> idx) {
  Value target = atomic->getOperand(0);
  auto targetType = cast<MemRefType>(target.getType());
  arith::AtomicRMWKind kind =
      getAtomicRMWKind(atomic, targetType.getElementType());
  SmallVector<int64_t> allDims =
      llvm::to_vector(llvm::seq<int64_t>(0, targetType.getRank()));
  Value cond = isGlobal(targetType)
                   ? inBoundsCond(b, loc, target, idx, allDims)
                   : Value();
  buildIf(b, loc, cond, [&](OpBuilder &tb, Location tl) {
    memref::AtomicRMWOp::create(tb, tl, kind, value, target, idx);
  });
}

namespace {

template <typename AtomicOpT>
struct AtomicLowering : public OpRewritePattern<AtomicOpT> {
  using OpRewritePattern<AtomicOpT>::OpRewritePattern;

  LogicalResult matchAndRewrite(AtomicOpT op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> offsets =
        getValueOrCreateConstantIndexOp(rewriter, loc, op.getMixedOffsets());
    auto update = [&](OpBuilder &b, Location l, Value value,
                      ArrayRef<Value> idx) {
      emitAtomicUpdate(b, l, op, value, idx);
    };

    auto tileType = dyn_cast<MemRefType>(op.getValue().getType());
    if (std::optional<ArrayRef<int64_t>> sizes = op.getSizes()) {
      // A scalar into every element of the region.
      buildTileLoops(
          rewriter, loc, *sizes, [&](OpBuilder &b, Location l, ValueRange ivs) {
            update(b, l, op.getValue(), addOffsets(b, l, offsets, ivs));
          });
    } else if (!tileType) {
      update(rewriter, loc, op.getValue(), offsets);
    } else {
      buildTileLoops(rewriter, loc, tileType.getShape(),
                     [&](OpBuilder &b, Location l, ValueRange ivs) {
                       Value v =
                           memref::LoadOp::create(b, l, op.getValue(), ivs);
                       update(b, l, v, addOffsets(b, l, offsets, ivs));
                     });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Loops
//===----------------------------------------------------------------------===//

struct ParallelLowering : public OpRewritePattern<ParallelOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ParallelOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> lbs, ubs, steps;
    for (int64_t e : op.getExtents()) {
      lbs.push_back(indexConst(rewriter, loc, 0));
      ubs.push_back(indexConst(rewriter, loc, e));
      steps.push_back(indexConst(rewriter, loc, 1));
    }
    scf::LoopNest nest = scf::buildLoopNest(rewriter, loc, lbs, ubs, steps);
    SmallVector<Value> ivs;
    for (scf::ForOp loop : nest.loops)
      ivs.push_back(loop.getInductionVar());
    Block &body = op.getBodyBlock();
    rewriter.eraseOp(body.getTerminator());
    rewriter.inlineBlockBefore(
        &body, nest.loops.back().getBody()->getTerminator(), ivs);
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Reducers
//===----------------------------------------------------------------------===//

/// A block runs on one thread: its copy of the reducer is the result
/// already; only the seed remains to be combined in.
struct FinalizeReducerLowering : public OpRewritePattern<FinalizeReducerOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FinalizeReducerOp op,
                                PatternRewriter &rewriter) const override {
    if (Value seed = op.getSeed()) {
      Value buffer = op.getReducer();
      buildTileLoops(rewriter, op.getLoc(), op.getReducer().getType().getShape(),
                     [&](OpBuilder &b, Location l, ValueRange ivs) {
                       Value v = memref::LoadOp::create(b, l, buffer, ivs);
                       memref::StoreOp::create(
                           b, l, reduceCombine(b, l, op.getKind(), v, seed),
                           buffer, ivs);
                     });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tile::populateTileToCPUOpPatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<AllocLowering<AllocSharedOp>, AllocLowering<AllocFragmentOp>,
               AllocLowering<AllocLocalOp>, FillLowering, ClearLowering,
               CopyLowering, GemmLowering, GemmSpLowering, ReduceLowering,
               ParallelLowering, FinalizeReducerLowering>(ctx);
  populateSerialPipelinedAndLayoutPatterns(patterns);
  patterns.add<AtomicLowering<AtomicAddOp>, AtomicLowering<AtomicMaxOp>,
               AtomicLowering<AtomicMinOp>>(ctx);
}

//===----------------------------------------------------------------------===//
// Kernel
//===----------------------------------------------------------------------===//

LogicalResult mlir::tile::lowerKernelToCPU(RewriterBase &rewriter,
                                           KernelOp kernel) {
  // Thread-level IR names GPU threads, which a CPU block does not have.
  WalkResult walk = kernel.walk([&](Operation *op) {
    StringRef ns = op->getDialect() ? op->getDialect()->getNamespace() : "";
    if (ns == "gpu" || ns == "nvvm" || ns == "nvgpu" || ns == "rocdl" ||
        ns == "amdgpu" || isa<LLVM::InlineAsmOp>(op) ||
        (isa<LLVM::CallIntrinsicOp>(op) &&
         cast<LLVM::CallIntrinsicOp>(op).getIntrin().starts_with(
             "llvm.nvvm."))) {
      op->emitOpError() << "is thread-level GPU code, which the cpu target "
                           "cannot run; write the kernel with tile ops or "
                           "compile for a GPU target";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();

  Location loc = kernel.getLoc();
  rewriter.setInsertionPoint(kernel);
  SmallVector<Value> ubs =
      getValueOrCreateConstantIndexOp(rewriter, loc, kernel.getMixedGrid());
  SmallVector<Value> lbs(ubs.size(), indexConst(rewriter, loc, 0));
  SmallVector<Value> steps(ubs.size(), indexConst(rewriter, loc, 1));

  // omp.parallel { buffers; omp.wsloop { omp.loop_nest (blocks) { body } } }:
  // each worker thread allocates the block buffers once, on its stack, and
  // runs a share of the blocks, handed out dynamically.
  auto parallel =
      omp::ParallelOp::create(rewriter, loc, ArrayRef<NamedAttribute>{});
  Block *threadBlock = rewriter.createBlock(&parallel.getRegion());
  omp::TerminatorOp::create(rewriter, loc);
  rewriter.setInsertionPointToStart(threadBlock);
  auto wsloop =
      omp::WsloopOp::create(rewriter, loc, ArrayRef<NamedAttribute>{});
  wsloop.setScheduleKind(omp::ClauseScheduleKind::Dynamic);
  rewriter.createBlock(&wsloop.getRegion());
  auto nest = omp::LoopNestOp::create(
      rewriter, loc, static_cast<uint64_t>(ubs.size()), lbs, ubs, steps,
      /*loop_inclusive=*/false, /*tile_sizes=*/nullptr);
  SmallVector<Type> indexTypes(ubs.size(), rewriter.getIndexType());
  SmallVector<Location> locs(ubs.size(), loc);
  Block *blockBody =
      rewriter.createBlock(&nest.getRegion(), {}, indexTypes, locs);
  omp::YieldOp::create(rewriter, loc, ValueRange{});

  Block &body = kernel.getBodyBlock();
  rewriter.eraseOp(body.getTerminator());
  rewriter.inlineBlockBefore(&body, blockBody->getTerminator(),
                             blockBody->getArguments());
  rewriter.eraseOp(kernel);

  // Statically sized buffers (tile-lower-ops put them at the start of the
  // block body) move to the thread: allocated once per worker.
  SmallVector<memref::AllocaOp> allocas;
  for (Operation &op : *blockBody)
    if (auto alloca = dyn_cast<memref::AllocaOp>(op))
      if (alloca->getNumOperands() == 0)
        allocas.push_back(alloca);
  for (memref::AllocaOp alloca : allocas)
    rewriter.moveOpBefore(alloca, wsloop);

  // Beyond a budget they would overflow the worker's stack (the target
  // allows far more shared memory than a thread's stack holds): the rest go
  // to the heap, still once per worker, freed when it is done.
  constexpr int64_t kStackBudgetBytes = 1 << 20;
  int64_t stackBytes = 0;
  for (memref::AllocaOp alloca : allocas) {
    MemRefType type = alloca.getType();
    Type elt = type.getElementType();
    int64_t bits = elt.isIntOrFloat() ? elt.getIntOrFloatBitWidth() : 64;
    int64_t bytes = (type.getNumElements() * bits + 7) / 8;
    if (stackBytes + bytes <= kStackBudgetBytes) {
      stackBytes += bytes;
      continue;
    }
    rewriter.setInsertionPoint(alloca);
    auto alloc = memref::AllocOp::create(rewriter, alloca.getLoc(), type,
                                         alloca.getAlignmentAttr());
    rewriter.replaceOp(alloca, alloc);
    rewriter.setInsertionPoint(threadBlock->getTerminator());
    memref::DeallocOp::create(rewriter, alloc.getLoc(), alloc);
  }

  // A block's buffers are ordinary memory of its host thread.
  AttrTypeReplacer replacer;
  replacer.addReplacement([](MemRefType type) -> std::optional<Type> {
    if (!isa_and_nonnull<ScopeAttr>(type.getMemorySpace()))
      return std::nullopt;
    return MemRefType::get(type.getShape(), type.getElementType(),
                           type.getLayout());
  });
  replacer.recursivelyReplaceElementsIn(parallel, /*replaceAttrs=*/true,
                                        /*replaceLocs=*/false,
                                        /*replaceTypes=*/true);
  return success();
}

void mlir::tile::fillBuffer(OpBuilder &b, Location loc, Value buffer,
                            Value value) {
  auto type = cast<MemRefType>(buffer.getType());
  buildTileLoops(b, loc, type.getShape(),
                 [&](OpBuilder &lb, Location ll, ValueRange ivs) {
                   memref::StoreOp::create(lb, ll, value, buffer, ivs);
                 });
}
