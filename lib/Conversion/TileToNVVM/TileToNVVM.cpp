//===- TileToNVVM.cpp - Lowering tile ops for NVIDIA GPUs -----------------===//
//
// The entry points of the NVIDIA lowering: its GpuLowering (the warp of 32
// lanes, ex2.approx as the fast exp2, the async-proxy fence before wgmma
// reads what threads wrote), the patterns of tile-lower-ops (the
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
  using GpuLowering::GpuLowering;

  bool hasFastExp2() const override { return true; }
  /// One `ex2.approx.ftz.f32` (libdevice's exp2f adds a denormal range
  /// check around it).
  Value emitFastExp2(OpBuilder &b, Location loc, Value x) const override {
    return LLVM::CallIntrinsicOp::create(
               b, loc, b.getF32Type(),
               b.getStringAttr("llvm.nvvm.ex2.approx.ftz.f32"), ValueRange{x})
        .getResult(0);
  }
  /// wgmma reads shared memory through the async proxy.
  void fenceSharedForAsyncReads(OpBuilder &b, Location loc) const override {
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(b.getContext(),
                                   NVVM::SharedSpace::shared_cta));
  }
};

} // namespace

std::unique_ptr<GpuLowering>
mlir::tile::createNVVMGpuLowering(int64_t warpSize) {
  return std::make_unique<NVVMGpuLowering>(warpSize);
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
