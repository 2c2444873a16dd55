//===- Epilogue.cpp - The accumulators' stores after a TMA pipeline -------===//
//
// After a TMA pipeline the wgmma accumulators leave through shared memory:
// by TMA from 128-byte-swizzled panels, or from a row-padded tile in
// 16-byte vectors; TileLang's epilogue through a shared tile becomes one
// such store. See Hopper.h.
//
//===----------------------------------------------------------------------===//

#include "Hopper.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::nvvm;

int64_t nvvm::stagedEpilogueBytes(PipelinedOp loop, Value accumulator,
                                  Operation *user) {
  auto fragType = cast<MemRefType>(accumulator.getType());
  auto copy = dyn_cast<CopyOp>(user);
  if (!copy || copy.getSource() != accumulator ||
      copy->getBlock() != loop->getBlock() || !loop->isBeforeInBlock(copy) ||
      !isGlobal(copy.getTarget().getType()))
    return 0;
  MemRefType target = copy.getTarget().getType();
  Type elt = target.getElementType();
  if (fragType.getRank() != 2 ||
      ArrayRef<int64_t>(copy.getSourceSizes()) != fragType.getShape() ||
      !target.getLayout().isIdentity() || !elt.isIntOrFloat() ||
      elt.getIntOrFloatBitWidth() % 8 != 0)
    return 0;
  int64_t rows = fragType.getDimSize(0), cols = fragType.getDimSize(1);
  int64_t eltBytes = elt.getIntOrFloatBitWidth() / 8;
  if ((cols * eltBytes) % 16 != 0)
    return 0;
  // 16 bytes of padding a row: consecutive rows start 4 banks apart, so
  // the pair stores of a warp (8 rows x 4 threads) hit 32 banks.
  return rows * (cols * eltBytes + 16);
}

void nvvm::stageEpilogue(RewriterBase &rewriter, PipelinedOp loop,
                         Value accumulator, Value smemBase, Value region,
                         int64_t regionBytes) {
  MLIRContext *ctx = loop.getContext();
  auto fragType = cast<MemRefType>(accumulator.getType());
  for (Operation *user : llvm::make_early_inc_range(accumulator.getUsers())) {
    int64_t bytes = stagedEpilogueBytes(loop, accumulator, user);
    if (bytes == 0 || bytes > regionBytes)
      continue;
    auto copy = cast<CopyOp>(user);
    Type elt = copy.getTarget().getType().getElementType();
    int64_t rows = fragType.getDimSize(0), cols = fragType.getDimSize(1);
    int64_t padded = cols + 16 / (elt.getIntOrFloatBitWidth() / 8);
    Location loc = copy.getLoc();
    rewriter.setInsertionPoint(copy);
    Value view = sharedView(
        rewriter, loc, {rows, padded}, elt,
        arith::SubIOp::create(rewriter, loc, region, smemBase));
    auto staged = BindStorageOp::create(
        rewriter, loc,
        MemRefType::get({rows, padded}, elt, MemRefLayoutAttrInterface(),
                        ScopeAttr::get(ctx, Scope::Shared)),
        view);
    SmallVector<int64_t> zeros = {0, 0}, sizes = {rows, cols};
    CopyOp::create(rewriter, loc, accumulator, ValueRange{}, zeros, sizes,
                   staged.getResult(), ValueRange{}, zeros, sizes,
                   /*pad=*/nullptr);
    CopyOp::create(rewriter, loc, staged.getResult(), ValueRange{}, zeros,
                   sizes, copy.getTarget(), copy.getTargetOffsets(),
                   copy.getStaticTargetOffsets(), copy.getTargetSizes(),
                   /*pad=*/nullptr);
    rewriter.eraseOp(copy);
  }
}

void nvvm::fuseSharedEpilogue(RewriterBase &rewriter, PipelinedOp loop,
                              Value accumulator) {
  for (Operation *user : llvm::make_early_inc_range(accumulator.getUsers())) {
    auto toShared = dyn_cast<CopyOp>(user);
    if (!toShared || toShared.getSource() != accumulator ||
        toShared->getBlock() != loop->getBlock() ||
        !loop->isBeforeInBlock(toShared))
      continue;
    std::optional<SharedEpilogue> ep =
        getSharedEpilogue(toShared.getTarget());
    if (!ep || ep->in != toShared)
      continue;
    CopyOp toGlobal = ep->out;
    auto fragType = cast<MemRefType>(accumulator.getType());
    rewriter.setInsertionPoint(toGlobal);
    auto fused = CopyOp::create(
        rewriter, toGlobal.getLoc(), accumulator, ValueRange{},
        SmallVector<int64_t>(fragType.getRank(), 0),
        llvm::to_vector(fragType.getShape()), toGlobal.getTarget(),
        toGlobal.getTargetOffsets(), toGlobal.getStaticTargetOffsets(),
        toGlobal.getTargetSizes(), /*pad=*/nullptr);
    fused->setDiscardableAttrs(toGlobal->getDiscardableAttrDictionary());
    rewriter.eraseOp(toGlobal);
    rewriter.eraseOp(toShared);
  }
}

namespace {

/// The shared address of 16-byte chunk `chunk` of row `row` of the
/// 128-byte-swizzled panel at `panel` (the chunk XOR the row mod 8).
Value swizzledChunkAddress(OpBuilder &b, Location l, Value panel, Value row,
                           Value chunk) {
  Value swizzled = arith::XOrIOp::create(
      b, l, chunk, arith::RemUIOp::create(b, l, row, indexConst(b, l, 8)));
  return arith::AddIOp::create(
      b, l, panel,
      arith::AddIOp::create(
          b, l, arith::MulIOp::create(b, l, row, indexConst(b, l, 128)),
          arith::MulIOp::create(b, l, swizzled, indexConst(b, l, 16))));
}

/// Writes the registers of a wgmma accumulator that the current consumer
/// thread holds, converted to `elt`, into 128-byte-swizzled panels for a
/// TMA store: stmatrix for 16-bit elements, pair stores for 32-bit.
class AccumulatorPanelWriter {
public:
  /// `tid`: the thread id; `threads`: the consumer threads.
  AccumulatorPanelWriter(RewriterBase &rewriter, Location loc,
                         const Storage &acc, Type elt, Value tid,
                         int64_t threads)
      : acc(acc), elt(elt) {
    lane = arith::RemUIOp::create(rewriter, loc, tid,
                                  indexConst(rewriter, loc, kWarpSize));
    // The wgmma partition (see wgmmaWarpRow): every lane holds its elements
    // in the registers that lane 0 of warp 0 holds its in.
    int64_t rows = acc.layout.getShape()[0];
    repeats = rows / (64 * (threads / kWarpgroupSize));
    warpRow = wgmmaWarpRow(
        rewriter, loc,
        arith::DivUIOp::create(rewriter, loc, tid,
                               indexConst(rewriter, loc, kWarpSize)),
        repeats);
  }

  /// Writes the thread's elements of the panel whose first column is
  /// `col0` (`panelElements` columns) into the panel at shared address
  /// `panel`.
  void write(RewriterBase &rewriter, Location loc, Value panel, int64_t col0,
             int64_t panelElements) const {
    if (elt.getIntOrFloatBitWidth() == 16)
      writeB16(rewriter, loc, panel, col0, panelElements);
    else
      writeB32(rewriter, loc, panel, col0, panelElements);
  }

private:
  /// The register that holds element (`row`, `col`) in lane 0 of warp 0.
  int64_t reg(int64_t row, int64_t col) const {
    return acc.layout.apply({row, col}).second;
  }

  Value element(OpBuilder &b, Location l, int64_t r) const {
    Value v = memref::LoadOp::create(b, l, acc.memref,
                                     ValueRange{indexConst(b, l, r)});
    return convertElements(b, l, v, elt);
  }

  /// Elements (`row`, `col`) and (`row`, `col` + 1), as lane 0 of warp 0
  /// holds them.
  Value pair(OpBuilder &b, Location l, int64_t row, int64_t col) const {
    return vector::FromElementsOp::create(
        b, l, VectorType::get({2}, elt),
        ValueRange{element(b, l, reg(row, col)),
                   element(b, l, reg(row, col + 1))});
  }

  /// stmatrix.x4 per 16 x 16 block of the warp's rows: lanes 8i .. 8i + 7
  /// give the rows of matrix i (rows +0 / +8, columns +0 / +8), each lane's
  /// registers its pairs of the four.
  void writeB16(RewriterBase &rewriter, Location loc, Value panel,
                int64_t col0, int64_t panelElements) const {
    MLIRContext *ctx = rewriter.getContext();
    Value row = arith::AddIOp::create(
        rewriter, loc, warpRow,
        arith::AddIOp::create(
            rewriter, loc,
            arith::RemUIOp::create(rewriter, loc, lane,
                                   indexConst(rewriter, loc, 8)),
            arith::MulIOp::create(
                rewriter, loc,
                arith::RemUIOp::create(
                    rewriter, loc,
                    arith::DivUIOp::create(rewriter, loc, lane,
                                           indexConst(rewriter, loc, 8)),
                    indexConst(rewriter, loc, 2)),
                indexConst(rewriter, loc, 8))));
    Value half = arith::DivUIOp::create(rewriter, loc, lane,
                                        indexConst(rewriter, loc, 16));
    for (int64_t strip = 0; strip < repeats; ++strip)
      for (int64_t j = 0; j < panelElements / 16; ++j) {
        int64_t col = col0 + 16 * j;
        SmallVector<Value> words;
        for (auto [dr, dc] : {std::pair<int64_t, int64_t>{0, 0}, {8, 0},
                              {0, 8}, {8, 8}})
          words.push_back(LLVM::BitcastOp::create(
              rewriter, loc, rewriter.getI32Type(),
              pair(rewriter, loc, 64 * strip + dr, col + dc)));
        Value chunk = addIndex(rewriter, loc, half, 2 * j);
        NVVM::StMatrixOp::create(
            rewriter, loc,
            sharedPtr(rewriter, loc,
                      swizzledChunkAddress(
                          rewriter, loc, panel,
                          addIndex(rewriter, loc, row, 64 * strip), chunk)),
            words, NVVM::MMALayout::row,
            NVVM::LdStMatrixShapeAttr::get(ctx, 8, 8),
            NVVM::LdStMatrixEltType::B16);
      }
  }

  /// 32-bit elements: each pair (8 bytes) on its own.
  void writeB32(RewriterBase &rewriter, Location loc, Value panel,
                int64_t col0, int64_t panelElements) const {
    Value quad = arith::RemUIOp::create(rewriter, loc, lane,
                                        indexConst(rewriter, loc, 4));
    Value laneRow = arith::AddIOp::create(
        rewriter, loc, warpRow,
        arith::DivUIOp::create(rewriter, loc, lane,
                               indexConst(rewriter, loc, 4)));
    Value inChunk = arith::MulIOp::create(
        rewriter, loc,
        arith::RemUIOp::create(rewriter, loc, quad,
                               indexConst(rewriter, loc, 2)),
        indexConst(rewriter, loc, 8));
    Value chunkOfQuad = arith::DivUIOp::create(rewriter, loc, quad,
                                               indexConst(rewriter, loc, 2));
    for (int64_t n = 0; n < panelElements / 8; ++n)
      for (int64_t dr = 0; dr < 64 * repeats; dr += 8) {
        if (dr % 64 >= 16)
          continue; // rows of other warps
        Value row = addIndex(rewriter, loc, laneRow, dr);
        Value address = arith::AddIOp::create(
            rewriter, loc,
            swizzledChunkAddress(rewriter, loc, panel, row,
                                 addIndex(rewriter, loc, chunkOfQuad, 2 * n)),
            inChunk);
        LLVM::StoreOp::create(rewriter, loc,
                              pair(rewriter, loc, dr, col0 + 8 * n),
                              sharedPtr(rewriter, loc, address),
                              /*alignment=*/8);
      }
  }

  const Storage &acc;
  Type elt;
  Value lane, warpRow;
  int64_t repeats = 0;
};

/// Runs `body` in thread `tid` 0 only.
void inLeader(RewriterBase &rewriter, Location loc, Value tid,
              function_ref<void(OpBuilder &, Location)> body) {
  Value isLeader =
      arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, tid,
                            indexConst(rewriter, loc, 0));
  buildIf(rewriter, loc, isLeader, body);
}

} // namespace

void nvvm::storeThroughTma(RewriterBase &rewriter, CopyOp copy, TmaBox box,
                           const Storage &acc, Value slotBase, int64_t slots) {
  MLIRContext *ctx = copy.getContext();
  Location loc = copy.getLoc();
  auto func = copy->getParentOfType<func::FuncOp>();
  box.descriptor = getDescriptorArgument(func, box, /*store=*/true);
  rewriter.setInsertionPoint(copy);
  Type elt = copy.getTarget().getType().getElementType();
  Value tid = threadId(rewriter, loc);
  AccumulatorPanelWriter writer(rewriter, loc, acc, elt, tid,
                                getThreads(copy));
  for (int64_t first = 0; first < box.panels(); first += slots) {
    int64_t last = std::min(first + slots, box.panels());
    inLeader(rewriter, loc, tid, [&](OpBuilder &b, Location l) {
      NVVM::CpAsyncBulkWaitGroupOp::create(b, l, 0, rewriter.getUnitAttr());
    });
    barrier(rewriter, loc);
    for (int64_t p = first; p < last; ++p)
      writer.write(rewriter, loc,
                   addIndex(rewriter, loc, slotBase,
                            (p - first) * box.panelBytes()),
                   p * box.panelElements(), box.panelElements());
    // The writes, visible to TMA (the async proxy) once all are done.
    NVVM::FenceProxyOp::create(
        rewriter, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
    barrier(rewriter, loc);
    inLeader(rewriter, loc, tid, [&](OpBuilder &b, Location l) {
      issueTmaStores(b, l, box, slotBase, first, last);
    });
  }
  rewriter.eraseOp(copy);
}
