//===- ScalarFragments.cpp - Scalar accesses of replicated fragments ------===//
//
// A fragment that scalar code reads and writes has the replicated layout
// (tile-infer-layouts, ScalarFragments.cpp there): each thread holds all its
// elements, element e in register e. Its loads and stores outside
// tile.parallel become accesses of the thread's register array at the
// element's row-major index; tile-infer-layouts checked that every write is
// one that all threads make alike.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/TileToGPU/GpuCommon.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::tile;

bool tilegpu::lowerScalarFragmentAccess(RewriterBase &rewriter,
                                        BindStorageOp bound,
                                        Operation *user) {
  auto layout = dyn_cast_or_null<FragmentLayoutAttr>(bound.getLayoutAttr());
  if (!isReplicatedLayout(layout) || user->getParentOfType<ParallelOp>())
    return false;
  auto load = dyn_cast<memref::LoadOp>(user);
  auto store = dyn_cast<memref::StoreOp>(user);
  if (!(load && load.getMemRef() == bound.getResult()) &&
      !(store && store.getMemRef() == bound.getResult()))
    return false;
  rewriter.setInsertionPoint(user);
  Location loc = user->getLoc();
  ValueRange indices = load ? load.getIndices() : store.getIndices();
  ArrayRef<int64_t> shape = layout.getShape();
  Value linear = arith::ConstantIndexOp::create(rewriter, loc, 0);
  for (auto [index, size] : llvm::zip(indices, shape)) {
    Value scaled = arith::MulIOp::create(
        rewriter, loc, linear,
        arith::ConstantIndexOp::create(rewriter, loc, size));
    linear = arith::AddIOp::create(rewriter, loc, scaled, index);
  }
  Value storage = bound.getStorage();
  if (load)
    rewriter.replaceOpWithNewOp<memref::LoadOp>(load, storage,
                                                ValueRange{linear});
  else
    rewriter.replaceOpWithNewOp<memref::StoreOp>(
        store, store.getValueToStore(), storage, ValueRange{linear});
  return true;
}
