//===- Mbarrier.cpp - mbarrier waits before sm_90 -------------------------===//
//
// Upstream lowers nvgpu.mbarrier.try_wait.parity to `mbarrier.try_wait`,
// which ptxas accepts from sm_90 on. sm_80 has mbarriers and their
// non-blocking `mbarrier.test_wait.parity`: there the wait is a loop of
// tests on the barrier's shared address (nvgpu.mbarrier.get), in one asm
// block so that its label stays local to it.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/TileToNVVM/Mbarrier.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"

#define DEBUG_TYPE "tile-lower-ops"

using namespace mlir;

namespace {

struct TestWaitParityLoop
    : public OpRewritePattern<nvgpu::MBarrierTryWaitParityOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(nvgpu::MBarrierTryWaitParityOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    Value addr = nvgpu::MBarrierGetOp::create(rewriter, loc, i32,
                                              op.getBarriers(), op.getMbarId());
    Value parity =
        arith::ExtUIOp::create(rewriter, loc, i32, op.getPhaseParity());
    LLVM::InlineAsmOp::create(
        rewriter, loc, TypeRange{}, ValueRange{addr, parity},
        "{\n\t.reg .pred done;\n\tWAIT:\n\t"
        "mbarrier.test_wait.parity.shared.b64 done, [$0], $1;\n\t"
        "@!done bra WAIT;\n\t}",
        "r,r,~{memory}", /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::tailcallkind::TailCallKind::None, /*asm_dialect=*/nullptr,
        /*operand_attrs=*/nullptr);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tile::populateMbarrierWaitsBeforeSm90Patterns(
    RewritePatternSet &patterns) {
  patterns.add<TestWaitParityLoop>(patterns.getContext());
}
