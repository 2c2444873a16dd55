//===- TileToNVVM.cpp - Lowering tile ops for NVIDIA GPUs -----------------===//
//
// The entry points of the NVIDIA lowering: its GpuLowering (the warp of 32
// lanes, ex2.approx as the fast exp2, the async-proxy fence before wgmma
// reads what threads wrote, red.global.add of 16-byte vectors on sm_90),
// the patterns of tile-lower-ops (the
// target-neutral ones of lib/Conversion/TileToGPU and the gemms), what is
// left to do after them, and tile-lower-kernel's gpu.launch.
//
// Buffers: shared buffers are views of the kernel's dynamic shared memory;
// a fragment is an array of registers in each thread, element e living in
// register layout.map(e)[1] of thread layout.map(e)[0]; local buffers are
// per-thread arrays. Until the op patterns are done, each buffer keeps its
// tile type through a tile.bind_storage of its storage, so that the
// remaining tile ops still verify.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/TileToNVVM/TileToNVVM.h"

#include "MmaSync.h"
#include "NVVMCommon.h"

#include "tile/Conversion/TileToGPU/GpuLowering.h"
#include "tile/Conversion/TileToGPU/TileToGPU.h"
#include "tile/Conversion/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::nvvm;

namespace {

class NVVMGpuLowering final : public GpuLowering {
public:
  NVVMGpuLowering(int64_t warpSize, int64_t sm)
      : GpuLowering(warpSize), sm(sm) {}

  bool hasFastExp2() const override { return true; }
  /// One `ex2.approx.ftz.f32` (libdevice's exp2f adds a denormal range
  /// check around it).
  Value emitFastExp2(OpBuilder &b, Location loc, Value x) const override {
    return LLVM::CallIntrinsicOp::create(
               b, loc, b.getF32Type(),
               b.getStringAttr("llvm.nvvm.ex2.approx.ftz.f32"), ValueRange{x})
        .getResult(0);
  }
  /// sm_90's red.global.add of a vector of 16 bytes (f32, f16, bf16);
  /// before it, f16 pairs (red.global.add.noftz.f16x2).
  int64_t getAtomicAddLanes(Type elt) const override {
    if (sm >= 90 && (elt.isF32() || elt.isF16() || elt.isBF16()))
      return 128 / elt.getIntOrFloatBitWidth();
    return elt.isF16() ? 2 : 1;
  }
  void emitAtomicAddVector(OpBuilder &b, Location loc, Value address,
                           ValueRange values) const override {
    Type elt = values.front().getType();
    bool f32 = elt.isF32();
    SmallVector<Value> operands{
        arith::IndexCastUIOp::create(b, loc, b.getI64Type(), address)};
    std::string constraints = "l";
    std::string list;
    for (auto [k, v] : llvm::enumerate(values)) {
      // 16-bit floats travel as b16 ("h") registers.
      operands.push_back(
          f32 ? v : arith::BitcastOp::create(b, loc, b.getI16Type(), v));
      constraints += f32 ? ",f" : ",h";
      list += (k ? ", $" : "$") + std::to_string(k + 1);
    }
    constraints += ",~{memory}";
    std::string type = f32 ? "f32" : elt.isF16() ? "f16" : "bf16";
    std::string instruction =
        sm >= 90 ? "red.global.add" + std::string(f32 ? "" : ".noftz") +
                       ".v" + std::to_string(values.size()) + "." + type + " [g], {" +
                       list + "};"
                 : "mov.b32 p, {" + list +
                       "};\n\tred.global.add.noftz.f16x2 [g], p;";
    std::string text = "{\n\t.reg .b64 g;\n\t" +
                       std::string(sm >= 90 ? "" : ".reg .b32 p;\n\t") +
                       "cvta.to.global.u64 g, $0;\n\t" + instruction + "\n\t}";
    auto red = LLVM::InlineAsmOp::create(
        b, loc, TypeRange{}, operands, text, constraints,
        /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::tailcallkind::TailCallKind::None, /*asm_dialect=*/nullptr,
        /*operand_attrs=*/nullptr);
    // Vector red needs PTX ISA 8.1 (tile-gpu-module-to-binary raises the
    // kernel's version to it).
    if (sm >= 90)
      red->setAttr(TileDialect::MinPtxAttrHelper::getNameStr(),
                   b.getI64IntegerAttr(81));
  }
  /// wgmma reads shared memory through the async proxy.
  void fenceSharedForAsyncReads(OpBuilder &b, Location loc) const override {
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(b.getContext(),
                                   NVVM::SharedSpace::shared_cta));
  }

private:
  int64_t sm;
};

} // namespace

std::unique_ptr<GpuLowering>
mlir::tile::createNVVMGpuLowering(int64_t warpSize, int64_t sm) {
  return std::make_unique<NVVMGpuLowering>(warpSize, sm);
}

void mlir::tile::populateTileToNVVMOpPatterns(RewritePatternSet &patterns,
                                              const GpuLowering &lowering) {
  populateTileToGPUPatterns(patterns, lowering);
  populateGemmToNVVMPatterns(patterns);
  populateGemmSpToNVVMPatterns(patterns);
}

LogicalResult mlir::tile::planScratchForNVVM(RewriterBase &rewriter,
                                             KernelOp kernel,
                                             int64_t sharedLimit,
                                             int64_t warpSize) {
  return planScratchForGPU(
      rewriter, kernel, sharedLimit, warpSize, [](GemmOp gemm) {
        std::optional<Storage> a = getStorage(gemm.getA());
        MmaAttr mma = gemm.getMmaAttr();
        return a && mma &&
               mmaAFromRegisters(gemm, *a, getMmaPartition(mma));
      });
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
      Value id =
          arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(), 1);
      Value count = arith::ConstantIntOp::create(
          rewriter, loc, rewriter.getI32Type(), consumers.getInt());
      NVVM::BarrierOp::create(rewriter, loc, Type(), id, count, nullptr,
                              Value());
      rewriter.eraseOp(b);
    }
  });
  return finishKernelForGPU(rewriter, kernel);
}

//===----------------------------------------------------------------------===//
// Kernel
//===----------------------------------------------------------------------===//

LogicalResult mlir::tile::lowerKernelToNVVM(RewriterBase &rewriter,
                                            KernelOp kernel, int sm) {
  // Thread-block clusters (sm_90 and later): the launch's cluster size.
  std::optional<ArrayRef<int64_t>> cluster = kernel.getCluster();
  if (cluster && sm < 90)
    return kernel.emitOpError()
           << "uses thread-block clusters, which sm_" << sm
           << " does not have (they need sm_90a); remove cluster(...)";
  // A producer warpgroup (TMA pipelines on sm_90a) runs after the
  // kernel's own threads.
  int64_t producers = 0;
  if (auto attr = kernel->getAttrOfType<IntegerAttr>(kProducerThreadsAttr))
    producers = attr.getInt();
  return lowerKernelToGPU(rewriter, kernel, producers, cluster);
}
