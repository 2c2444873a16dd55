//===- VectorCopy.cpp - Block copies in 16-byte chunks --------------------===//
//
// See VectorCopy.h.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/TileToGPU/VectorCopy.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::tilegpu;

Value mlir::tile::tilegpu::tileAccessible(OpBuilder &b, Location loc,
                                          CopyEnd &global,
                                          ArrayRef<int64_t> sizes,
                                          int64_t run) {
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

VectorCopy::VectorCopy(CopyOp op, const CopyEnd &src, const CopyEnd &dst,
                       SmallVector<int64_t> chunks, int64_t vec, Value pad,
                       Type dstElt, const Storage *swizzled)
    : op(op), src(src), dst(dst), chunks(std::move(chunks)), vec(vec),
      threads(getThreads(op)), pad(pad), dstElt(dstElt), swizzled(swizzled) {}

std::optional<VectorCopy> VectorCopy::plan(CopyOp op, const CopyEnd &src,
                                           const CopyEnd &dst,
                                           ArrayRef<int64_t> tile, Value pad,
                                           Type dstElt,
                                           const Storage *swizzled) {
  if (op.getTileShape().empty() || src.global == dst.global)
    return std::nullopt;
  const CopyEnd &global = src.global ? src : dst;
  Type srcElt = src.type.getElementType();
  if (!srcElt.isIntOrFloat() || !global.type.getElementType().isIntOrFloat())
    return std::nullopt;
  int64_t bits = global.type.getElementTypeBitWidth();
  if (bits % 8 != 0 || bits > 128 || srcElt.getIntOrFloatBitWidth() != bits)
    return std::nullopt;
  // 4-bit elements (two a byte) move one at a time (tile-emulate-fp4).
  if (!dstElt.isIntOrFloat() || dstElt.getIntOrFloatBitWidth() % 8 != 0)
    return std::nullopt;
  int64_t vec = 128 / bits;
  if (tile.back() % vec != 0 || !global.type.getLayout().isIdentity() ||
      !dst.type.getLayout().isIdentity() ||
      !src.type.getLayout().isIdentity() ||
      src.tileDims.back() != src.type.getRank() - 1 ||
      dst.tileDims.back() != dst.type.getRank() - 1)
    return std::nullopt;
  // The shared side's chunks are 16-byte aligned only when its rows are a
  // whole number of chunks and the region starts on a chunk (shared views
  // start at multiples of 128 bytes of a 16-byte aligned base).
  const CopyEnd &shared = src.global ? dst : src;
  std::optional<int64_t> sharedCol = getConstantIntValue(shared.offsets.back());
  if ((shared.type.getRank() > 1 && shared.type.getShape().back() % vec) ||
      !sharedCol || *sharedCol % vec)
    return std::nullopt;
  SmallVector<int64_t> chunks(tile);
  chunks.back() /= vec;
  return VectorCopy(op, src, dst, std::move(chunks), vec, pad, dstElt,
                    swizzled);
}

int64_t VectorCopy::chunksPerThread() const {
  return llvm::divideCeil(numChunks(), threads);
}

bool VectorCopy::straightLinesHelp() const {
  // (Stores to global memory do not wait for each other: copies out of
  // shared memory keep the loop.)
  return src.global && chunksPerThread() >= 2;
}

bool VectorCopy::straightLinesFit(int64_t inFlight) const {
  return straightLinesHelp() && chunksPerThread() <= inFlight;
}

Value VectorCopy::wholeTile(OpBuilder &b, Location loc) {
  ArrayRef<int64_t> sizes =
      src.global ? op.getSourceSizes() : op.getTargetSizes();
  return tileAccessible(b, loc, global(), sizes, vec);
}

std::pair<SmallVector<Value>, SmallVector<Value>>
VectorCopy::chunkIndices(OpBuilder &b, Location loc, Value linear) {
  SmallVector<Value> tileIdx = delinearize(b, loc, linear, chunks);
  tileIdx.back() =
      arith::MulIOp::create(b, loc, tileIdx.back(), indexConst(b, loc, vec));
  return {src.indices(b, loc, tileIdx), dst.indices(b, loc, tileIdx)};
}

Value VectorCopy::loadChunk(OpBuilder &b, Location loc, ValueRange si) {
  auto type = VectorType::get({vec}, src.type.getElementType());
  Value v = vector::LoadOp::create(b, loc, type, src.buffer, si, false,
                                   llvm::Align(16));
  return convertElements(b, loc, v, dstElt);
}

void VectorCopy::storeChunk(OpBuilder &b, Location loc, Value v,
                            ValueRange di) {
  vector::StoreOp::create(b, loc, v, dst.buffer,
                          physicalIndices(b, loc, swizzled, di), false,
                          llvm::Align(16));
}

void VectorCopy::moveCheckedChunk(OpBuilder &b, Location loc, Value linear,
                                  const VectorAlignment &alignment) {
  std::pair<SmallVector<Value>, SmallVector<Value>> idx =
      chunkIndices(b, loc, linear);
  SmallVector<Value> &si = idx.first, &di = idx.second;
  SmallVector<Value> &gi = src.global ? si : di;
  Value buffer = global().buffer;
  int64_t rank = global().type.getRank();
  // Whole chunk inside the tensor, and aligned.
  Value fast = alignment.aligned;
  auto both = [&](Value c) { fast = arith::AndIOp::create(b, loc, fast, c); };
  for (int64_t d = 0; d < rank - 1; ++d)
    both(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, gi[d],
                               memref::DimOp::create(b, loc, buffer, d)));
  Value end = arith::AddIOp::create(b, loc, gi.back(), alignment.vec);
  both(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, end,
                             alignment.lastDim));
  both(arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq,
      arith::RemUIOp::create(b, loc, gi.back(), alignment.vec),
      alignment.zero));
  scf::IfOp::create(
      b, loc, fast,
      [&](OpBuilder &tb, Location tl) {
        storeChunk(tb, tl, loadChunk(tb, tl, si), di);
        scf::YieldOp::create(tb, tl);
      },
      [&](OpBuilder &eb, Location el) {
        copyChunkByElements(
            eb, el, src, si, di, vec, pad, dstElt,
            [&](OpBuilder &sb, Location sl, ArrayRef<Value> de, Value v) {
              storeTargetElement(
                  sb, sl, dst,
                  physicalIndices(sb, sl, swizzled, llvm::to_vector(de)), v);
            });
        scf::YieldOp::create(eb, el);
      });
}

void VectorCopy::emitCheckedLoop(OpBuilder &b, Location loc) {
  // Whether the global tensor's rows and base are 16-byte aligned.
  VectorAlignment alignment = checkVectorAlignment(
      b, loc, global().buffer, global().type.getRank(), vec);
  buildThreadStridedLoop(b, loc, numChunks(), threads,
                         [&](OpBuilder &lb, Location ll, Value linear) {
                           moveCheckedChunk(lb, ll, linear, alignment);
                         });
}

int64_t VectorCopy::chunksInFlight(KernelOp kernel) {
  // 32-bit registers: the most a thread gets (255, or fewer where the
  // block's threads share 64K), the per-thread arrays, a margin.
  constexpr int64_t kMargin = 32;
  int64_t budget = std::min<int64_t>(255, 65536 / kernel.getThreads());
  int64_t held = 0;
  kernel.walk([&](memref::AllocaOp alloca) {
    MemRefType type = alloca.getType();
    if (type.hasStaticShape() && type.getElementType().isIntOrFloat())
      held += llvm::divideCeil(type.getNumElements() *
                                   type.getElementType().getIntOrFloatBitWidth(),
                               32);
  });
  return std::min(kMaxStraightChunks, (budget - held - kMargin) / 4);
}

void VectorCopy::emit(OpBuilder &b, Location loc) {
  // (The budget walks the kernel: asked only where straight lines help.)
  if (!straightLinesHelp() ||
      !straightLinesFit(chunksInFlight(op->getParentOfType<KernelOp>()))) {
    emitCheckedLoop(b, loc);
    return;
  }
  scf::IfOp::create(
      b, loc, wholeTile(b, loc),
      [&](OpBuilder &tb, Location tl) {
        emitStraightLines(tb, tl, MutableArrayRef<VectorCopy>(*this));
        scf::YieldOp::create(tb, tl);
      },
      [&](OpBuilder &eb, Location el) {
        emitCheckedLoop(eb, el);
        scf::YieldOp::create(eb, el);
      });
}

void VectorCopy::emitStraightLines(OpBuilder &b, Location loc,
                                   MutableArrayRef<VectorCopy> copies) {
  struct Chunk {
    VectorCopy *copy;
    int64_t k; // the thread's k-th chunk of the copy
  };
  SmallVector<Chunk> all;
  for (VectorCopy &copy : copies)
    for (int64_t k = 0; k < copy.chunksPerThread(); ++k)
      all.push_back({&copy, k});
  Value tid = threadId(b, loc);
  SmallVector<Value> inside, values;
  SmallVector<SmallVector<Value>> targets;
  for (const Chunk &c : all) {
    VectorCopy &copy = *c.copy;
    int64_t n = copy.numChunks();
    Value linear = arith::AddIOp::create(
        b, loc, tid, indexConst(b, loc, c.k * copy.threads));
    std::pair<SmallVector<Value>, SmallVector<Value>> idx =
        copy.chunkIndices(b, loc, linear);
    SmallVector<Value> &si = idx.first;
    targets.push_back(idx.second);
    if ((c.k + 1) * copy.threads <= n) {
      inside.push_back(Value());
      values.push_back(copy.loadChunk(b, loc, si));
      continue;
    }
    // The last chunk of some threads only.
    Value in = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                     linear, indexConst(b, loc, n));
    auto moved = VectorType::get({copy.vec}, copy.dstElt);
    auto ifOp = scf::IfOp::create(
        b, loc, in,
        [&](OpBuilder &tb, Location tl) {
          scf::YieldOp::create(tb, tl, copy.loadChunk(tb, tl, si));
        },
        [&](OpBuilder &eb, Location el) {
          Value none = arith::ConstantOp::create(eb, el, moved,
                                                 eb.getZeroAttr(moved));
          scf::YieldOp::create(eb, el, none);
        });
    inside.push_back(in);
    values.push_back(ifOp.getResult(0));
  }
  for (size_t i = 0; i < all.size(); ++i) {
    VectorCopy &copy = *all[i].copy;
    Value v = values[i];
    ArrayRef<Value> di = targets[i];
    if (!inside[i]) {
      copy.storeChunk(b, loc, v, di);
      continue;
    }
    scf::IfOp::create(b, loc, inside[i], [&](OpBuilder &tb, Location tl) {
      copy.storeChunk(tb, tl, v, di);
      scf::YieldOp::create(tb, tl);
    });
  }
}
