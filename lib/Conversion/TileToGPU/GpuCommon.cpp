//===- GpuCommon.cpp - Helpers of the target-neutral GPU lowering ---------===//
//
// Buffers: shared buffers are views of the kernel's dynamic shared memory;
// a fragment is an array of registers in each thread, element e living in
// register layout.map(e)[1] of thread layout.map(e)[0]; local buffers are
// per-thread arrays. Until the op patterns are done, each buffer keeps its
// tile type through a tile.bind_storage of its storage, so that the
// remaining tile ops still verify.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/TileToGPU/GpuCommon.h"

#include "tile/Conversion/Utils.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/AffineExpr.h"

#include "llvm/ADT/bit.h"

using namespace mlir;
using namespace mlir::tile;

namespace mlir::tile::tilegpu {

std::optional<Storage> getStorage(Value buffer) {
  auto bound = buffer.getDefiningOp<BindStorageOp>();
  if (!bound)
    return std::nullopt;
  Storage s{bound.getStorage(), *getScope(bound.getType())};
  if (FragmentLayoutAttr layout = bound.getLayoutAttr()) {
    s.layout = layout;
    s.numRegisters = cast<MemRefType>(s.memref.getType()).getNumElements();
  }
  s.swizzleChunks = bound.getSwizzleChunks().value_or(0);
  s.panelRows = bound.getPanelRows().value_or(0);
  s.panelBytes = bound.getPanelBytes().value_or(0);
  return s;
}

Value sharedView(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                 Type elt, Value offset) {
  auto workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  auto bytes = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                               MemRefLayoutAttrInterface(), workgroup);
  Value base = gpu::DynamicSharedMemoryOp::create(b, loc, bytes);
  return memref::ViewOp::create(
      b, loc, MemRefType::get(shape, elt, MemRefLayoutAttrInterface(), workgroup),
      base, offset, ValueRange{});
}

Value expandAtRegister(OpBuilder &b, Location loc, AffineExpr expr, Value tid,
                       int64_t reg) {
  MLIRContext *ctx = b.getContext();
  AffineExpr specialized = expr.replaceDims(
      {getAffineDimExpr(0, ctx), getAffineConstantExpr(reg, ctx)});
  specialized = simplifyAffineExpr(specialized, 1, 0);
  return affine::expandAffineExpr(b, loc, specialized, ValueRange{tid},
                                  ValueRange{});
}

SmallVector<Value> indicesOfRegister(OpBuilder &b, Location loc,
                                     FragmentLayoutAttr layout, Value tid,
                                     int64_t reg) {
  SmallVector<Value> indices;
  for (AffineExpr e : layout.getInverse().getResults())
    indices.push_back(expandAtRegister(b, loc, e, tid, reg));
  return indices;
}

Value registerHoldsElement(OpBuilder &b, Location loc,
                           FragmentLayoutAttr layout, Value tid, int64_t reg) {
  int64_t elements = 1;
  for (int64_t d : layout.getShape())
    elements *= d;
  // Replicated layouts fill every slot (isWalkable).
  if ((elements * layout.getReplicate()) % layout.getThreads() == 0)
    return nullptr;
  return arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ult, tid,
      indexConst(b, loc, elements - reg * layout.getThreads()));
}

Value registerOwnsElement(OpBuilder &b, Location loc,
                          FragmentLayoutAttr layout, Value tid, int64_t reg) {
  Value holds = registerHoldsElement(b, loc, layout, tid, reg);
  if (layout.getReplicate() == 1)
    return holds;
  // The owner of the element in slot (thread, register): map . inverse.
  AffineExpr owner = layout.getMap().getResult(0).replaceDims(
      llvm::to_vector(layout.getInverse().getResults()));
  Value owns =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                            expandAtRegister(b, loc, owner, tid, reg));
  return holds ? arith::AndIOp::create(b, loc, holds, owns).getResult() : owns;
}

void forEachHeldElement(
    OpBuilder &b, Location loc, FragmentLayoutAttr layout, int64_t registers,
    function_ref<void(OpBuilder &, Location, int64_t, ArrayRef<Value>)> body,
    bool ownedOnly) {
  Value tid = threadId(b, loc);
  for (int64_t r = 0; r < registers; ++r) {
    SmallVector<Value> idx = indicesOfRegister(b, loc, layout, tid, r);
    buildIf(b, loc,
            ownedOnly ? registerOwnsElement(b, loc, layout, tid, r)
                      : registerHoldsElement(b, loc, layout, tid, r),
            [&](OpBuilder &tb, Location tl) { body(tb, tl, r, idx); });
  }
}

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

int64_t registerRun(FragmentLayoutAttr layout, int64_t registers,
                    int64_t maxRun) {
  auto allRuns = [&](int64_t run) {
    for (int64_t r = 0; r < registers; r += run)
      if (!holdsRun(layout, r, run))
        return false;
    return true;
  };
  int64_t run = static_cast<int64_t>(
      llvm::bit_floor(static_cast<uint64_t>(std::max<int64_t>(maxRun, 1))));
  while (run > 1 && (registers % run != 0 || !allRuns(run)))
    run /= 2;
  return run;
}

int64_t numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                               ArrayRef<int64_t> shape) {
  SmallVector<Value> indices(shape.size());
  Value rest = linear;
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    Value size = indexConst(b, loc, shape[d]);
    indices[d] = arith::RemUIOp::create(b, loc, rest, size);
    rest = arith::DivUIOp::create(b, loc, rest, size);
  }
  return indices;
}

void buildThreadStridedLoop(
    OpBuilder &b, Location loc, int64_t n, int64_t threads,
    function_ref<void(OpBuilder &, Location, Value)> body) {
  Value tid = threadId(b, loc);
  scf::ForOp::create(b, loc, tid, indexConst(b, loc, n),
                     indexConst(b, loc, threads), ValueRange{},
                     [&](OpBuilder &lb, Location ll, Value iv, ValueRange) {
                       body(lb, ll, iv);
                       scf::YieldOp::create(lb, ll);
                     });
}

Value stageToShared(OpBuilder &b, Location loc, Value fragment) {
  std::optional<Storage> s = getStorage(fragment);
  auto bound = fragment.getDefiningOp<BindStorageOp>();
  IntegerAttr offset = bound ? bound.getScratchOffsetAttr() : IntegerAttr();
  if (!s || s->scope != Scope::Fragment || !offset)
    return nullptr;
  auto type = cast<MemRefType>(fragment.getType());
  Value view = sharedView(b, loc, type.getShape(), type.getElementType(),
                          indexConst(b, loc, offset.getInt()));
  storeFragmentToShared(b, loc, *s, view);
  return view;
}

void storeFragmentToShared(OpBuilder &b, Location loc, const Storage &fragment,
                           Value view) {
  barrier(b, loc);
  forEachHeldElement(
      b, loc, fragment.layout, fragment.numRegisters,
      [&](OpBuilder &tb, Location tl, int64_t r, ArrayRef<Value> idx) {
        Value v = memref::LoadOp::create(tb, tl, fragment.memref,
                                         ValueRange{indexConst(tb, tl, r)});
        memref::StoreOp::create(tb, tl, v, view, idx);
      },
      /*ownedOnly=*/true);
  barrier(b, loc);
}

VectorAlignment checkVectorAlignment(OpBuilder &b, Location loc, Value buffer,
                                     int64_t rank, int64_t vec) {
  Value zero = indexConst(b, loc, 0);
  Value vecC = indexConst(b, loc, vec);
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
  Value aligned = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq,
      arith::RemUIOp::create(b, loc, base, indexConst(b, loc, 16)), zero);
  Value lastDim = memref::DimOp::create(b, loc, buffer, rank - 1);
  if (rank > 1)
    aligned = arith::AndIOp::create(
        b, loc, aligned,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                              arith::RemUIOp::create(b, loc, lastDim, vecC),
                              zero));
  return {zero, vecC, lastDim, aligned};
}

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

SmallVector<Value> physicalIndices(OpBuilder &b, Location loc,
                                   const Storage *storage,
                                   SmallVector<Value> idx) {
  if (storage && storage->swizzleChunks && idx.size() == 2)
    idx[1] = swizzledColumn(b, loc, *storage, idx[0], idx[1]);
  return idx;
}

SmallVector<Value> tileIndicesOf(ArrayRef<Value> indices,
                                 ArrayRef<int64_t> shape) {
  SmallVector<Value> tile;
  for (auto [index, size] : llvm::zip(indices, shape))
    if (size != 1)
      tile.push_back(index);
  return tile;
}

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

void copyChunkByElements(
    OpBuilder &b, Location loc, CopyEnd &src, ArrayRef<Value> si,
    ArrayRef<Value> di, int64_t vec, Value pad, Type to,
    function_ref<void(OpBuilder &, Location, ArrayRef<Value>, Value)> store) {
  for (int64_t e = 0; e < vec; ++e) {
    SmallVector<Value> se(si), de(di);
    Value off = indexConst(b, loc, e);
    se.back() = arith::AddIOp::create(b, loc, se.back(), off);
    de.back() = arith::AddIOp::create(b, loc, de.back(), off);
    store(b, loc, de, loadSourceElement(b, loc, src, se, pad, to));
  }
}

void storeTargetElement(OpBuilder &b, Location loc, CopyEnd &dst,
                        ArrayRef<Value> idx, Value value) {
  buildIf(b, loc, dst.cond(b, loc, idx), [&](OpBuilder &tb, Location tl) {
    memref::StoreOp::create(tb, tl, value, dst.buffer, idx);
  });
}

int64_t reserveSharedScratch(RewriterBase &rewriter, KernelOp kernel,
                             int64_t bytes) {
  auto bytesAttr = kernel->getAttrOfType<IntegerAttr>(getSharedBytesAttrName());
  int64_t offset =
      llvm::alignTo(bytesAttr ? bytesAttr.getInt() : 0, kSharedAlignment);
  kernel->setAttr(getSharedBytesAttrName(),
                  rewriter.getI64IntegerAttr(offset + bytes));
  return offset;
}
} // namespace mlir::tile::tilegpu
