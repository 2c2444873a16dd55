//===- MarkTmaParams.cpp - tile-mark-tma-params ---------------------------===//
//
// Kernel parameters that carry a TMA descriptor become by-value grid
// constants.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEMARKTMAPARAMS
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The size of a CUtensorMap and its alignment (cuda.h).
constexpr int64_t kTensorMapBytes = 128;
constexpr int64_t kTensorMapAlign = 64;

/// True when `use` is the tensor-map operand of a TMA op.
bool isTensorMapUse(OpOperand &use) {
  Operation *op = use.getOwner();
  if (auto load = dyn_cast<NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp>(op))
    return &use == &load.getTmaDescriptorMutable();
  if (auto store = dyn_cast<NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp>(op))
    return &use == &store.getTmaDescriptorMutable();
  if (auto prefetch = dyn_cast<NVVM::CpAsyncBulkTensorPrefetchOp>(op))
    return &use == &prefetch.getTmaDescriptorMutable();
  return false;
}

struct TileMarkTmaParamsPass
    : public tile::impl::TileMarkTmaParamsBase<TileMarkTmaParamsPass> {
  using Base::Base;

  void runOnOperation() override {
    bool ok = true;
    getOperation().walk([&](LLVM::LLVMFuncOp func) {
      if (!func->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()) ||
          func.isExternal())
        return;
      MLIRContext *ctx = func.getContext();
      Builder b(ctx);
      for (BlockArgument arg : func.getArguments()) {
        if (!isa<LLVM::LLVMPointerType>(arg.getType()) || arg.use_empty())
          continue;
        bool tensorMap = false, other = false;
        for (OpOperand &use : arg.getUses())
          (isTensorMapUse(use) ? tensorMap : other) = true;
        if (!tensorMap)
          continue;
        if (other) {
          func.emitError() << "kernel parameter " << arg.getArgNumber()
                           << " is used as a TMA descriptor and as memory";
          ok = false;
          continue;
        }
        unsigned i = arg.getArgNumber();
        func.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                        TypeAttr::get(LLVM::LLVMArrayType::get(
                            IntegerType::get(ctx, 8), kTensorMapBytes)));
        func.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                        b.getI64IntegerAttr(kTensorMapAlign));
        func.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                        b.getUnitAttr());
      }
    });
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
