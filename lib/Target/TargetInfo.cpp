//===- TargetInfo.cpp - The targets TileMLIR compiles for -----------------===//

#include "tile/Target/TargetInfo.h"

#include "tile/Conversion/TileToCPU/Scan.h"
#include "tile/Conversion/TileToCPU/TileToCPU.h"
#include "tile/Conversion/TileToCPU/View.h"
#include "tile/Conversion/TileToGPU/GpuLowering.h"
#include "tile/Conversion/TileToGPU/TileToGPU.h"
#include "tile/Conversion/TileToNVVM/Mbarrier.h"
#include "tile/Conversion/TileToNVVM/TileToNVVM.h"
#include "tile/Conversion/TileToROCDL/TileToROCDL.h"
#include "tile/Dialect/Tile/IR/Layouts.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::tile;

TargetInfo::~TargetInfo() = default;

namespace {

bool isNvFp8(Type t) { return isa<Float8E4M3FNType, Float8E5M2Type>(t); }

/// The vendor whose dialects `op` belongs to (NVIDIA: nvgpu, nvvm and its
/// intrinsics; AMD: amdgpu, rocdl), if any.
std::optional<StringRef> vendorOf(Operation *op) {
  StringRef ns = op->getDialect() ? op->getDialect()->getNamespace() : "";
  if (ns == "nvgpu" || ns == "nvvm" ||
      (isa<LLVM::CallIntrinsicOp>(op) &&
       cast<LLVM::CallIntrinsicOp>(op).getIntrin().starts_with("llvm.nvvm.")))
    return StringRef("NVIDIA");
  if (ns == "amdgpu" || ns == "rocdl" ||
      (isa<LLVM::CallIntrinsicOp>(op) &&
       cast<LLVM::CallIntrinsicOp>(op).getIntrin().starts_with(
           "llvm.amdgcn.")))
    return StringRef("AMD");
  return std::nullopt;
}
bool isAmdFp8(Type t) { return isa<Float8E4M3FNUZType, Float8E5M2FNUZType>(t); }

/// The dense tensor-core combinations every NVIDIA/AMD matrix unit has.
bool isBaseMma(Type a, Type b, Type c) {
  if (a.isF16() && b.isF16())
    return c.isF16() || c.isF32();
  if (a.isBF16() && b.isBF16())
    return c.isF32();
  if (a.isF32() && b.isF32())
    return c.isF32();
  return a.isInteger(8) && b.isInteger(8) && c.isInteger(32);
}

class CpuTarget final : public TargetInfo {
public:
  StringRef getName() const override { return "cpu"; }
  bool isGPU() const override { return false; }
  int64_t getWarpSize() const override { return 1; }
  int64_t getMaxThreadsPerBlock() const override { return 1024; }
  // Shared memory is ordinary memory of the block's worker thread.
  int64_t getMaxSharedMemoryBytes() const override { return 64 << 20; }
  bool supportsGemm(Type a, Type b, Type c) const override {
    return isBaseMma(a, b, c);
  }
  bool supportsSparseGemm(Type a, Type b, Type c) const override {
    return supportsGemm(a, b, c) && !a.isF32();
  }
  bool supportsCopyInst(CopyInst inst) const override {
    return inst == CopyInst::Auto || inst == CopyInst::Vector;
  }
  StringRef describeGemmTypes() const override {
    return "f16, bf16, f32 and i8 inputs";
  }
  LogicalResult prepareLowerOps(RewriterBase &rewriter,
                                KernelOp kernel) const override {
    return serializeThreadsForCPU(rewriter, kernel);
  }
  void populateLowerOpsPatterns(RewritePatternSet &patterns) const override {
    populateTileToCPUOpPatterns(patterns);
    populateScanToCPUPatterns(patterns);
    populateViewToCPUPatterns(patterns);
  }
  LogicalResult lowerKernel(RewriterBase &rewriter,
                            KernelOp kernel) const override {
    return lowerKernelToCPU(rewriter, kernel);
  }
};

/// tile-plan-scratch's last steps on every GPU target, once the buffers
/// are placed: the views of placed shared buffers, the scratch of reducers
/// and of scans (for warps of `warpSize` lanes).
LogicalResult prepareLoweringScratch(RewriterBase &rewriter, KernelOp kernel,
                                     int64_t warpSize) {
  if (failed(prepareViewsForGPU(rewriter, kernel)) ||
      failed(prepareReducersForGPU(rewriter, kernel, warpSize)))
    return failure();
  return prepareScansForGPU(rewriter, kernel, warpSize);
}

class NvidiaTarget final : public TargetInfo {
public:
  NvidiaTarget(StringRef name, int smVersion)
      : name(name), sm(smVersion),
        gpuLowering(
            createNVVMGpuLowering(NvidiaTarget::getWarpSize(), smVersion)) {}
  StringRef getName() const override { return name; }
  bool isGPU() const override { return true; }
  int64_t getWarpSize() const override { return 32; }
  int64_t getMaxThreadsPerBlock() const override { return 1024; }
  int64_t getMaxSharedMemoryBytes() const override {
    return sm >= 90 ? 227 * 1024 : 163 * 1024;
  }
  int64_t getMaxRegistersPerThread() const override { return 255; }
  int64_t getMaxLocalBytesPerThread() const override { return 512 * 1024; }
  int64_t getMaxGridExtent(unsigned dim) const override {
    return dim == 0 ? std::numeric_limits<int32_t>::max() : 65535;
  }
  bool supportsClusters() const override { return sm >= 90; }
  // The portable cluster size (16 needs an opt-in at launch).
  int64_t getMaxClusterBlocks() const override { return sm >= 90 ? 8 : 0; }
  bool fusesSharedEpilogues() const override { return sm >= 90; }
  std::optional<StringRef> getForeignVendor(Operation *op) const override {
    std::optional<StringRef> vendor = vendorOf(op);
    return vendor == "AMD" ? vendor : std::nullopt;
  }
  bool supportsGemm(Type a, Type b, Type c) const override {
    if (isBaseMma(a, b, c))
      return true;
    // fp8 tensor cores arrive with sm_89; this project targets sm_90a.
    return sm >= 90 && isNvFp8(a) && isNvFp8(b) && (c.isF32() || c.isF16());
  }
  bool supportsSparseGemm(Type a, Type b, Type c) const override {
    return supportsGemm(a, b, c) && !a.isF32();
  }
  bool supportsCopyInst(CopyInst inst) const override {
    switch (inst) {
    case CopyInst::Tma:
    case CopyInst::StMatrix:
      return sm >= 90;
    default:
      return true;
    }
  }
  StringRef describeGemmTypes() const override {
    return sm >= 90 ? "f16, bf16, f32 (tf32), fp8 e4m3fn/e5m2 and i8 inputs"
                    : "f16, bf16, f32 (tf32) and i8 inputs (no fp8 before "
                      "sm_89)";
  }
  FragmentLayoutAttr getAccumulatorLayout(Operation *op,
                                          std::string &why) const override {
    MmaAttr mma = isa<GemmOp>(op) ? cast<GemmOp>(op).getMmaAttr()
                                  : cast<GemmSpOp>(op).getMmaAttr();
    if (!mma) {
      why = "has no #tile.mma instruction choice; run tile-select-mma first";
      return nullptr;
    }
    auto c = cast<MemRefType>(op->getOperand(op->getNumOperands() - 1).getType());
    return getMmaSyncAccumulatorLayout(
        op->getContext(), c.getDimSize(0), c.getDimSize(1),
        op->getParentOfType<KernelOp>().getThreads(), getMmaPartition(mma));
  }
  FailureOr<MmaAttr> selectMma(Operation *op) const override {
    // tile.gemm_sp runs as a dense gemm on its expanded A.
    Type a, c;
    int64_t m, n, k;
    GemmWarpPolicy policy;
    if (auto gemm = dyn_cast<GemmOp>(op)) {
      a = gemm.getA().getType().getElementType();
      c = gemm.getC().getType().getElementType();
      m = gemm.getM(), n = gemm.getN(), k = gemm.getK();
      policy = gemm.getPolicy();
    } else {
      auto sparse = cast<GemmSpOp>(op);
      a = sparse.getA().getType().getElementType();
      c = sparse.getC().getType().getElementType();
      m = sparse.getC().getType().getDimSize(0);
      n = sparse.getC().getType().getDimSize(1);
      k = 2 * sparse.getA().getType().getDimSize(1);
      policy = sparse.getPolicy();
    }
    MLIRContext *ctx = op->getContext();
    int64_t threads = op->getParentOfType<KernelOp>().getThreads();
    // sm_90a: wgmma when the block is one warpgroup per 64 rows of the tile
    // (or several, splitting N: DeepSeek MLA's 64-row tiles on 256 threads),
    // or per 128 rows (two wgmmas a warpgroup) with the default policy or
    // FullRow (all warps along M, as the two 64-row blocks a warpgroup put
    // them) and operands whose rows are whole swizzled panels (128, 64 or
    // 32 bytes: getPanelBytes), which TMA can load for wgmma (FullCol asks
    // for a warp split and keeps it; operands that stay off TMA run as
    // mma.sync, on the same warps). settleMma keeps wgmma only where a TMA
    // pipeline feeds it.
    auto panelRows = [](Value operand) {
      return getPanelBytes(cast<MemRefType>(operand.getType())) != 0;
    };
    if (sm >= 90 && isa<GemmOp>(op) && c.isF32())
      if (std::optional<WarpPartition> part =
              getWgmmaPartition(m, n, k, threads / 32, a);
          part &&
          (part->repeats == 1 ||
           ((policy == GemmWarpPolicy::Square ||
             policy == GemmWarpPolicy::FullRow) &&
            panelRows(cast<GemmOp>(op).getA()) &&
            panelRows(cast<GemmOp>(op).getB()))))
        return MmaAttr::get(ctx, MmaKind::Wgmma, 64, n / part->warpsN,
                            getWgmmaK(a), part->warpsM, part->warpsN,
                            part->repeats);
    // Only gemms whose accumulator is a fragment need an instruction here
    // (others are refused by the lowering).
    bool report = op->getOperand(op->getNumOperands() - 1)
                      .getDefiningOp<AllocFragmentOp>() != nullptr;
    if (isNvFp8(a)) {
      if (!report)
        return MmaAttr();
      return op->emitOpError()
             << "has fp8 inputs, which run as wgmma on sm_90a only: the "
                "block needs one warpgroup (128 threads) per 64 rows of the "
             << m << "x" << n
             << " tile (or a multiple of that: the warpgroups split N), N a "
                "multiple of 8 up to 256 a warpgroup, K a multiple of 32 and "
                "an f32 accumulator";
    }
    // Dense gemms also take i8 x i8 -> i32 (mma.sync m16n8k32) and
    // f32 x f32 -> f32 (tf32, m16n8k8).
    bool dense = isa<GemmOp>(op);
    bool int8 = dense && a.isInteger(8) && c.isInteger(32);
    bool tf32 = dense && a.isF32() && c.isF32();
    if (!((a.isF16() || a.isBF16()) && c.isF32()) && !int8 && !tf32) {
      if (!report)
        return MmaAttr();
      return op->emitOpError()
             << "is lowered to mma.sync on " << name
             << ", which takes f16 or bf16 inputs with an f32 accumulator"
             << (dense ? ", i8 inputs with an i32 accumulator or f32 inputs "
                         "(as tf32),"
                       : " (sparse gemms)")
             << " in this version (fp8 needs sm_90a and a TMA pipeline)";
    }
    int64_t kAtom = int8 ? 32 : tf32 ? 8 : 16;
    std::optional<WarpPartition> part =
        getWarpPartition(m, n, threads / 32, policy, 16, 8);
    if (!part || k % kAtom != 0) {
      if (!report)
        return MmaAttr();
      return op->emitOpError()
             << "cannot split its " << m << "x" << n << "x" << k
             << " tile over " << threads / 32 << " warps in 16x8x" << kAtom
             << " mma.sync atoms (M must be a multiple of 16 and N of 8 per "
                "warp, K of "
             << kAtom << ")";
    }
    return MmaAttr::get(ctx, MmaKind::MmaSync, 16, 8, kAtom, part->warpsM,
                        part->warpsN, part->repeats);
  }
  LogicalResult
  settleMma(KernelOp kernel,
            function_ref<FragmentLayoutAttr(Value)> layoutOf) const override {
    return settleMmaForNVVM(kernel, sm, layoutOf);
  }
  LogicalResult specializeWarps(KernelOp kernel) const override {
    return specializeWarpsForNVVM(kernel, sm);
  }
  LogicalResult placeBuffers(RewriterBase &rewriter,
                             KernelOp kernel) const override {
    return placeBuffersForGPU(rewriter, kernel,
                              getMaxFragmentWordsPerThread());
  }
  LogicalResult pipelineLoops(RewriterBase &rewriter,
                              KernelOp kernel) const override {
    return pipelineLoopsForNVVM(rewriter, kernel, sm,
                                getMaxSharedMemoryBytes());
  }
  LogicalResult planScratch(RewriterBase &rewriter,
                            KernelOp kernel) const override {
    return success(
        succeeded(planScratchForNVVM(rewriter, kernel,
                                     getMaxSharedMemoryBytes(),
                                     getWarpSize())) &&
        succeeded(prepareLoweringScratch(rewriter, kernel, getWarpSize())));
  }
  void populateLowerOpsPatterns(RewritePatternSet &patterns) const override {
    populateTileToNVVMOpPatterns(patterns, *gpuLowering);
    if (sm < 90)
      populateMbarrierWaitsBeforeSm90Patterns(patterns);
  }
  LogicalResult finishLowerOps(RewriterBase &rewriter,
                               KernelOp kernel) const override {
    return finishKernelForNVVM(rewriter, kernel);
  }
  LogicalResult lowerKernel(RewriterBase &rewriter,
                            KernelOp kernel) const override {
    return lowerKernelToNVVM(rewriter, kernel, sm);
  }

private:
  StringRef name;
  int sm;
  /// What the target-neutral patterns of lib/Conversion/TileToGPU ask of
  /// NVIDIA GPUs (the warp size getWarpSize gives, a few instructions).
  std::unique_ptr<GpuLowering> gpuLowering;
};

/// gfx942's choice for a dense gemm with a fragment accumulator: mfma
/// 32x32 (v_mfma_f32_32x32x8_f16 / _bf16, _32x32x16_fp8 / _i8: half the
/// operand reads from LDS per multiply of 16x16) where every wave tile
/// holds whole 32x32 atoms, else 16x16 (v_mfma_f32_16x16x16_f16 / _bf16,
/// _16x16x32_fp8 / _i8; f32: _32x32x2f32, _16x16x4f32), on the policy's
/// wave partition (64-lane
/// wavefronts). Null for other gemms, an error where the accumulator is a
/// fragment that no shape tiles.
FailureOr<MmaAttr> selectMfma(Operation *op) {
  // gfx942 has 2:4 sparse matrix cores (v_smfmac_*), which this version
  // does not lower to.
  if (isa<GemmSpOp>(op))
    return op->emitOpError()
           << "is a 2:4 sparse gemm, which has no lowering for gfx942 in this "
              "version of TileMLIR (its v_smfmac instructions are not "
              "used yet); compile it for sm_80 / sm_90a, or as a dense "
              "tile.gemm";
  auto gemm = dyn_cast<GemmOp>(op);
  if (!gemm || !gemm.getC().getDefiningOp<AllocFragmentOp>())
    return MmaAttr();
  Type a = gemm.getA().getType().getElementType();
  Type c = gemm.getC().getType().getElementType();
  bool half = (a.isF16() || a.isBF16() || a.isF32()) && c.isF32();
  bool bytes = (a.isInteger(8) && c.isInteger(32)) || (isAmdFp8(a) && c.isF32());
  int64_t m = gemm.getM(), n = gemm.getN(), k = gemm.getK();
  int64_t threads = gemm->getParentOfType<KernelOp>().getThreads();
  if (half || bytes) {
    for (int64_t atom : {32, 16}) {
      int64_t atomK = getMfmaK(atom, a.getIntOrFloatBitWidth());
      std::optional<WarpPartition> part =
          threads % 64 == 0 ? getWarpPartition(m, n, threads / 64,
                                               gemm.getPolicy(), atom, atom)
                            : std::nullopt;
      if (part && k % atomK == 0)
        return MmaAttr::get(op->getContext(), MmaKind::Mfma, atom, atom, atomK,
                            part->warpsM, part->warpsN, /*repeats=*/1);
    }
  }
  return op->emitOpError()
         << "cannot run as mfma on gfx942: it takes f16, bf16 or f32 inputs "
            "with an f32 accumulator, i8 with i32 or fp8 (e4m3fnuz / "
            "e5m2fnuz) with f32 (got "
         << a << " -> " << c << "), and the " << m << "x" << n << "x" << k
         << " tile must split over the " << threads / 64
         << " 64-lane wavefronts of " << threads
         << " threads in 32x32 or 16x16 instructions (K 64 bits of inputs "
            "a lane, one f32)";
}

class AmdTarget final : public TargetInfo {
public:
  AmdTarget() : gpuLowering(createROCDLGpuLowering(AmdTarget::getWarpSize())) {}
  StringRef getName() const override { return "gfx942"; }
  bool isGPU() const override { return true; }
  int64_t getWarpSize() const override { return 64; }
  int64_t getMaxThreadsPerBlock() const override { return 1024; }
  int64_t getMaxSharedMemoryBytes() const override { return 64 * 1024; }
  // 512 VGPRs (arch and accumulation registers) a lane.
  int64_t getMaxRegistersPerThread() const override { return 512; }
  int64_t getMaxGridExtent(unsigned dim) const override {
    return dim == 0 ? std::numeric_limits<int32_t>::max() : 65535;
  }
  bool supportsGemm(Type a, Type b, Type c) const override {
    return isBaseMma(a, b, c) || (isAmdFp8(a) && isAmdFp8(b) && c.isF32());
  }
  bool supportsSparseGemm(Type a, Type b, Type c) const override {
    return supportsGemm(a, b, c) && !a.isF32();
  }
  bool supportsCopyInst(CopyInst inst) const override {
    return inst == CopyInst::Auto || inst == CopyInst::Vector;
  }
  // Pipelined loops run their iterations in order: one buffer a copy.
  bool multiBuffersPipelinedCopies() const override { return false; }
  std::optional<StringRef> getForeignVendor(Operation *op) const override {
    std::optional<StringRef> vendor = vendorOf(op);
    return vendor == "NVIDIA" ? vendor : std::nullopt;
  }
  StringRef describeGemmTypes() const override {
    return "f16, bf16, f32, i8 and fp8 e4m3fnuz/e5m2fnuz inputs";
  }
  FragmentLayoutAttr getAccumulatorLayout(Operation *op,
                                          std::string &why) const override {
    auto gemm = dyn_cast<GemmOp>(op);
    MmaAttr mma = gemm ? gemm.getMmaAttr() : MmaAttr();
    if (!mma || mma.getKind() != MmaKind::Mfma) {
      why = "has no #tile.mma mfma choice; run tile-select-mma first";
      return nullptr;
    }
    MemRefType c = gemm.getC().getType();
    return getMfmaAccumulatorLayout(
        op->getContext(), c.getDimSize(0), c.getDimSize(1),
        op->getParentOfType<KernelOp>().getThreads(), getMmaPartition(mma),
        mma.getM());
  }
  FailureOr<MmaAttr> selectMma(Operation *op) const override {
    return selectMfma(op);
  }
  LogicalResult placeBuffers(RewriterBase &rewriter,
                             KernelOp kernel) const override {
    // Per-thread arrays are private memory (LLVM's address space 5, where
    // the AMDGPU backend wants its allocas).
    return placeBuffersForGPU(
        rewriter, kernel, getMaxFragmentWordsPerThread(),
        gpu::AddressSpaceAttr::get(kernel.getContext(),
                                   gpu::AddressSpace::Private));
  }
  // tile.pipelined loops run their iterations in order (no stage buffers
  // yet): pipelineLoops keeps the default.
  LogicalResult planScratch(RewriterBase &rewriter,
                            KernelOp kernel) const override {
    return success(
        succeeded(planScratchForROCDL(rewriter, kernel,
                                      getMaxSharedMemoryBytes(),
                                      getWarpSize())) &&
        succeeded(prepareLoweringScratch(rewriter, kernel, getWarpSize())));
  }
  void populateLowerOpsPatterns(RewritePatternSet &patterns) const override {
    populateTileToROCDLOpPatterns(patterns, *gpuLowering);
  }
  LogicalResult finishLowerOps(RewriterBase &rewriter,
                               KernelOp kernel) const override {
    return finishKernelForGPU(rewriter, kernel);
  }
  LogicalResult lowerKernel(RewriterBase &rewriter,
                            KernelOp kernel) const override {
    return lowerKernelToROCDL(rewriter, kernel);
  }

private:
  /// What the target-neutral patterns of lib/Conversion/TileToGPU ask of
  /// AMD GPUs (the 64-lane wavefront, v_exp_f32).
  std::unique_ptr<GpuLowering> gpuLowering;
};

} // namespace

std::unique_ptr<TargetInfo> TargetInfo::get(StringRef name) {
  if (name == "cpu")
    return std::make_unique<CpuTarget>();
  if (name == "sm_80")
    return std::make_unique<NvidiaTarget>("sm_80", 80);
  if (name == "sm_90a")
    return std::make_unique<NvidiaTarget>("sm_90a", 90);
  if (name == "gfx942")
    return std::make_unique<AmdTarget>();
  return nullptr;
}

std::unique_ptr<TargetInfo> TargetInfo::getOrEmitError(StringRef name,
                                                       Operation *op) {
  std::unique_ptr<TargetInfo> info = get(name);
  if (!info)
    op->emitError() << "unknown target '" << name << "'; expected one of "
                    << knownTargets();
  return info;
}

LogicalResult
tile::withTarget(Operation *root, StringRef name,
                 function_ref<LogicalResult(const TargetInfo &)> fn) {
  std::unique_ptr<TargetInfo> info = TargetInfo::getOrEmitError(name, root);
  return success(info && succeeded(fn(*info)));
}

LogicalResult tile::forEachKernel(
    Operation *root, const TargetInfo &info,
    function_ref<LogicalResult(KernelOp, const TargetInfo &)> fn) {
  SmallVector<KernelOp> kernels;
  root->walk([&](KernelOp kernel) { kernels.push_back(kernel); });
  bool ok = true;
  for (KernelOp kernel : kernels)
    ok &= succeeded(fn(kernel, info));
  return success(ok);
}

LogicalResult tile::forEachKernel(
    Operation *root, StringRef name,
    function_ref<LogicalResult(KernelOp, const TargetInfo &)> fn) {
  return withTarget(root, name, [&](const TargetInfo &info) {
    return forEachKernel(root, info, fn);
  });
}

LogicalResult tile::forEachGpuKernel(
    Operation *root, StringRef name,
    function_ref<LogicalResult(KernelOp, const TargetInfo &)> fn) {
  return withTarget(root, name, [&](const TargetInfo &info) {
    return success(!info.isGPU() || succeeded(forEachKernel(root, info, fn)));
  });
}

StringRef TargetInfo::knownTargets() { return "cpu, sm_80, sm_90a, gfx942"; }
