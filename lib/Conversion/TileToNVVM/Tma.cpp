//===- Tma.cpp - TMA boxes, descriptors, loads and stores -----------------===//
//
// What TMA can move between a global tensor and swizzled shared panels
// (the boxes of copies and stores, the width of their panels), the kernel
// parameters that carry
// its descriptors, and the instructions that issue its loads and read their
// buffers. See Hopper.h.
//
//===----------------------------------------------------------------------===//

#include "Hopper.h"

#include "tile/Conversion/TileToNVVM/TileToNVVM.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::nvvm;

namespace {

/// The TMA box of the region `sizes` at `offsets` of `global` that a tile
/// of `tileType` (rank 2) fills or comes from, if TMA can move it.
std::optional<TmaBox> tmaBoxOf(Value global, ArrayRef<OpFoldResult> offsets,
                               ArrayRef<int64_t> sizes, MemRefType tileType,
                               func::FuncOp func) {
  auto tensor = dyn_cast<BlockArgument>(global);
  if (!tensor || tensor.getOwner() != &func.getBody().front())
    return std::nullopt;
  auto type = cast<MemRefType>(global.getType());
  Type elt = type.getElementType();
  int64_t rank = type.getRank();
  if (rank < 2 || rank > 5 || tileType.getRank() != 2 ||
      !type.getLayout().isIdentity() || !elt.isIntOrFloat() ||
      elt.getIntOrFloatBitWidth() % 8 != 0)
    return std::nullopt;
  TmaBox box;
  box.tensor = tensor;
  box.rows = tileType.getDimSize(0);
  box.cols = tileType.getDimSize(1);
  box.eltBytes = elt.getIntOrFloatBitWidth() / 8;
  box.tensorOffsets = llvm::to_vector(offsets);
  // The region: 1 everywhere but the rows' dimension and the innermost.
  box.rowDim = rank - 2;
  for (int64_t d = 0; d + 1 < rank; ++d)
    if (sizes[d] != 1)
      box.rowDim = d;
  for (int64_t d = 0; d + 1 < rank; ++d)
    if (sizes[d] != (d == box.rowDim ? box.rows : 1))
      return std::nullopt;
  box.swizzle = getPanelBytes(tileType);
  if (sizes.back() != box.cols || box.rows < 1 || box.rows > 256 ||
      !box.swizzle)
    return std::nullopt;
  return box;
}

} // namespace

int64_t mlir::tile::getPanelBytes(MemRefType tile) {
  if (tile.getRank() != 2 || !tile.getElementType().isIntOrFloat() ||
      ShapedType::isDynamic(tile.getDimSize(1)))
    return 0;
  int64_t rowBits = tile.getDimSize(1) * tile.getElementTypeBitWidth();
  for (int64_t bytes : {128, 64, 32})
    if (rowBits % (bytes * 8) == 0)
      return bytes;
  return 0;
}

bool nvvm::isSharedTile(Value buffer) {
  if (getScope(cast<MemRefType>(buffer.getType())) != Scope::Shared)
    return false;
  return buffer.getDefiningOp<AllocSharedOp>() || getStorage(buffer);
}

std::optional<TmaLoad> nvvm::asTmaLoad(CopyOp copy, PipelinedOp loop,
                                       func::FuncOp func) {
  MemRefType dstType = copy.getTarget().getType();
  Type elt = dstType.getElementType();
  if (!isSharedTile(copy.getTarget()) || copy.getPad() ||
      copy->hasAttr(kDisableTmaAttr) ||
      elt != copy.getSource().getType().getElementType() ||
      !elt.isIntOrFloat() ||
      (elt.getIntOrFloatBitWidth() != 8 && elt.getIntOrFloatBitWidth() != 16) ||
      ArrayRef<int64_t>(copy.getTargetSizes()) != dstType.getShape() ||
      llvm::any_of(copy.getStaticTargetOffsets(),
                   [](int64_t o) { return o != 0; }))
    return std::nullopt;
  std::optional<TmaBox> box =
      tmaBoxOf(copy.getSource(), copy.getMixedSourceOffsets(),
               copy.getSourceSizes(), dstType, func);
  if (!box)
    return std::nullopt;
  auto kernel = copy->getParentOfType<KernelOp>();
  for (Value offset : copy.getSourceOffsets())
    if (loop ? !computableFrom(offset, loop, loop.getInductionVar())
             : !computableFrom(offset, kernel, {}))
      return std::nullopt;
  TmaLoad load;
  static_cast<TmaBox &>(load) = *box;
  load.copy = copy;
  return load;
}

std::optional<TmaBox> nvvm::asTmaStore(CopyOp copy, func::FuncOp func) {
  MemRefType fragType = copy.getSource().getType();
  MemRefType target = copy.getTarget().getType();
  Type elt = target.getElementType();
  if (copy->hasAttr(kDisableTmaAttr) || !isGlobal(target) ||
      fragType.getRank() != 2 || !elt.isIntOrFloat() ||
      (elt.getIntOrFloatBitWidth() != 16 &&
       elt.getIntOrFloatBitWidth() != 32) ||
      ArrayRef<int64_t>(copy.getSourceSizes()) != fragType.getShape() ||
      ShapedType::isDynamic(target.getShape().back()) ||
      (target.getShape().back() * elt.getIntOrFloatBitWidth() / 8) % 16 != 0)
    return std::nullopt;
  // (The accumulators are written into 128-byte-swizzled panels.)
  std::optional<TmaBox> box =
      tmaBoxOf(copy.getTarget(), copy.getMixedTargetOffsets(),
               copy.getTargetSizes(), fragType, func);
  if (!box || box->swizzle != kPanelBytes)
    return std::nullopt;
  return box;
}

Value nvvm::getDescriptorArgument(func::FuncOp func, const TmaBox &box,
                                  bool store) {
  MLIRContext *ctx = func.getContext();
  Builder b(ctx);
  SmallVector<NamedAttribute> fields = {
      b.getNamedAttr("param", b.getI64IntegerAttr(box.tensor.getArgNumber())),
      b.getNamedAttr("box", b.getDenseI64ArrayAttr(box.box())),
      b.getNamedAttr("swizzle", b.getI64IntegerAttr(box.swizzle))};
  if (store)
    fields.push_back(b.getNamedAttr("store", b.getBoolAttr(true)));
  auto info = b.getDictionaryAttr(fields);
  for (BlockArgument arg : func.getArguments())
    if (func.getArgAttr(arg.getArgNumber(), kTmaArgAttr) == info)
      return arg;
  unsigned index = func.getNumArguments();
  auto attrs = b.getDictionaryAttr({b.getNamedAttr(kTmaArgAttr, info)});
  (void)func.insertArgument(index, LLVM::LLVMPointerType::get(ctx), attrs,
                            func.getLoc());
  return func.getArgument(index);
}

SmallVector<Value> nvvm::offsetValues(OpBuilder &b, Location l,
                                      ArrayRef<OpFoldResult> offsets,
                                      function_ref<Value(Value)> valueAt) {
  SmallVector<Value> values;
  for (OpFoldResult ofr : offsets) {
    if (auto v = dyn_cast<Value>(ofr))
      values.push_back(valueAt(v));
    else
      values.push_back(indexConst(b, l, *getConstantIntValue(ofr)));
  }
  return values;
}

SmallVector<Value> nvvm::panelCoords(OpBuilder &b, Location l,
                                     const TmaBox &box,
                                     ArrayRef<Value> offsets, int64_t p) {
  SmallVector<Value> coords;
  for (int64_t d = box.rank() - 1; d >= 0; --d)
    coords.push_back(toI32(
        b, l,
        d + 1 == box.rank() ? addIndex(b, l, offsets[d], p * box.panelElements())
                            : offsets[d]));
  return coords;
}

void nvvm::issueTmaLoad(OpBuilder &b, Location l, const TmaLoad &load,
                        ArrayRef<Value> offsets, Value dst, Value bar,
                        int64_t size, Value rank) {
  MLIRContext *ctx = b.getContext();
  bool multicast = load.multicast && size > 1;
  int64_t rows = multicast ? load.rows / size : load.rows;
  SmallVector<Value> origin(offsets);
  Value mask;
  if (multicast) {
    Value sliceRows = arith::MulIOp::create(b, l, rank, indexConst(b, l, rows));
    origin[load.rowDim] =
        arith::AddIOp::create(b, l, origin[load.rowDim], sliceRows);
    dst = arith::AddIOp::create(
        b, l, dst,
        arith::MulIOp::create(b, l, sliceRows, indexConst(b, l, load.swizzle)));
    mask = arith::ConstantIntOp::create(b, l, b.getI16Type(),
                                        (int64_t(1) << size) - 1);
  }
  for (int64_t p = 0; p < load.panels(); ++p) {
    SmallVector<Value> coords = panelCoords(b, l, load, origin, p);
    Value panel = sharedPtr(b, l, addIndex(b, l, dst, p * load.panelBytes()));
    Value cluster = LLVM::AddrSpaceCastOp::create(
        b, l, LLVM::LLVMPointerType::get(ctx, 7), panel);
    NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
        b, l, cluster, load.descriptor, coords, bar, ValueRange{}, mask,
        Value(), NVVM::TMALoadModeAttr::get(ctx, NVVM::TMALoadMode::TILE),
        b.getBoolAttr(false), nullptr, Value());
  }
}

void nvvm::issueTmaStores(OpBuilder &b, Location l, const TmaBox &box,
                          Value slotBase, int64_t first, int64_t last) {
  SmallVector<Value> offsets =
      offsetValues(b, l, box.tensorOffsets, [](Value v) { return v; });
  for (int64_t p = first; p < last; ++p)
    NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
        b, l, box.descriptor,
        sharedPtr(b, l,
                  addIndex(b, l, slotBase, (p - first) * box.panelBytes())),
        panelCoords(b, l, box, offsets, p), Value(), NVVM::TMAStoreMode::TILE,
        Value());
  NVVM::CpAsyncBulkCommitGroupOp::create(b, l);
}

void nvvm::readThroughPanels(RewriterBase &rewriter, Location loc,
                             TmaLoad &load, Value base, PipelinedOp loop) {
  Value buffer = load.copy.getTarget();
  auto view = BindStorageOp::create(
      rewriter, loc, buffer.getType(), addIndex(rewriter, loc, base, load.offset));
  view.setPanelRowsAttr(rewriter.getI64IntegerAttr(load.rows));
  view.setPanelBytesAttr(rewriter.getI64IntegerAttr(load.swizzle));
  rewriter.replaceUsesWithIf(buffer, view.getResult(), [&](OpOperand &use) {
    return loop->isAncestor(use.getOwner()) &&
           use.getOwner() != load.copy.getOperation();
  });
  rewriter.eraseOp(load.copy);
}
