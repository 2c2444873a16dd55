//===- Hopper.cpp - TMA pipelines and wgmma for sm_90a --------------------===//
//
// See Hopper.h.
//
//===----------------------------------------------------------------------===//

#include "Hopper.h"

#include "tile/Conversion/TileToNVVM/TileToNVVM.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::nvvm;

namespace {

/// The register layout of a fragment buffer (null for other buffers).
using LayoutOf = function_ref<FragmentLayoutAttr(Value)>;

/// True when A of `gemm` can be wgmma's register operand: a 16-bit
/// fragment in the accumulator layout of an M x K wgmma (flash attention's
/// P), whose registers are the A fragments of m64k16 in every warp.
bool wgmmaAFromRegisters(GemmOp gemm, LayoutOf layoutOf) {
  FragmentLayoutAttr a = layoutOf(gemm.getA());
  Type aElt = gemm.getA().getType().getElementType();
  int64_t threads = getThreads(gemm);
  if (!a || gemm.getTransposeA() || !(aElt.isF16() || aElt.isBF16()) ||
      gemm.getM() % 64 != 0 || threads / kWarpSize != gemm.getM() / 16)
    return false;
  return a == getMmaSyncAccumulatorLayout(gemm.getContext(), gemm.getM(),
                                          gemm.getK(), threads,
                                          WarpPartition{gemm.getM() / 16, 1});
}

/// True when `gemm` can run as wgmma on TMA-loaded panel buffers (B, and A
/// unless it comes from registers), its fragments laid out as `layoutOf`
/// says (tile-select-mma decides with it).
bool canRunAsWgmma(GemmOp gemm, const llvm::DenseSet<Value> &tmaBuffers,
                   LayoutOf layoutOf) {
  if ((!tmaBuffers.contains(gemm.getA()) &&
       !wgmmaAFromRegisters(gemm, layoutOf)) ||
      !tmaBuffers.contains(gemm.getB()))
    return false;
  Type aElt = gemm.getA().getType().getElementType();
  Type bElt = gemm.getB().getType().getElementType();
  Type cElt = gemm.getC().getType().getElementType();
  if (aElt != bElt || !cElt.isF32())
    return false;
  int64_t m = gemm.getM(), n = gemm.getN(), k = gemm.getK();
  int64_t threads = getThreads(gemm);
  std::optional<WarpPartition> part =
      getWgmmaPartition(m, n, k, threads / kWarpSize, aElt);
  if (!part || layoutOf(gemm.getC()) !=
                   getMmaSyncAccumulatorLayout(gemm.getContext(), m, n,
                                               threads, *part))
    return false;
  int64_t bits = aElt.getIntOrFloatBitWidth();
  // fp8 wgmma reads both operands K-major only.
  if (bits == 8 && (gemm.getTransposeA() || !gemm.getTransposeB()))
    return false;
  int64_t panel = kPanelBytes * 8 / bits;
  // An MN-major operand spans whole panels along M (64 rows per
  // warpgroup) or N.
  if (gemm.getTransposeA() && 64 % panel != 0)
    return false;
  if (!gemm.getTransposeB() && n % panel != 0)
    return false;
  return true;
}

/// `asmString` (with side effects, ordered like a memory access) with the
/// f32 `values` passing through it in place: the result is a struct of
/// them, tied to the same registers. Values read after it cannot be read
/// before it, and values given to it are in their registers by then.
Value passThroughAsm(OpBuilder &b, Location loc, ValueRange values,
                     StringRef asmString) {
  std::string constraints;
  for (size_t r = 0; r < values.size(); ++r)
    constraints += "=f,";
  for (size_t r = 0; r < values.size(); ++r)
    constraints += std::to_string(r) + ",";
  constraints += "~{memory}";
  auto type = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(values.size(), b.getF32Type()));
  return LLVM::InlineAsmOp::create(
             b, loc, type, values, asmString, constraints,
             /*has_side_effects=*/true, /*is_align_stack=*/false,
             LLVM::tailcallkind::TailCallKind::None, /*asm_dialect=*/nullptr,
             /*operand_attrs=*/nullptr)
      .getResult(0);
}

} // namespace

void nvvm::waitForWgmma(OpBuilder &b, Location loc, const Storage &c,
                        int64_t pending) {
  SmallVector<Value> values;
  for (int64_t r = 0; r < c.numRegisters; ++r)
    values.push_back(memref::LoadOp::create(b, loc, c.memref,
                                            ValueRange{indexConst(b, loc, r)}));
  // ptxas (CUDA 13.0) has been seen to hoist reads of the first
  // accumulator registers above a final wgmma.wait_group 0 (the H200 then
  // read partial sums); a membar.cta after the wait keeps them below it.
  std::string wait =
      "wgmma.wait_group.sync.aligned " + std::to_string(pending) + ";";
  if (pending == 0)
    wait += "\n\tmembar.cta;";
  Value waited = passThroughAsm(b, loc, values, wait);
  for (int64_t r = 0; r < c.numRegisters; ++r)
    memref::StoreOp::create(b, loc,
                            LLVM::ExtractValueOp::create(b, loc, waited, r),
                            c.memref, ValueRange{indexConst(b, loc, r)});
}

namespace {

/// The wgmma shared-memory descriptor of a 128-byte-swizzled operand that
/// starts at shared address `address`: leading / stride byte offsets `lbo`
/// and `sbo`.
Value wgmmaDescriptor(OpBuilder &b, Location loc, Value address, int64_t lbo,
                      int64_t sbo) {
  Type i64 = b.getI64Type();
  auto c64 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i64, v);
  };
  Value addr = arith::IndexCastUIOp::create(b, loc, i64, address);
  Value start = arith::ShRUIOp::create(
      b, loc, arith::AndIOp::create(b, loc, addr, c64(0x3FFFF)), c64(4));
  int64_t fixed = (((lbo >> 4) & 0x3FFF) << 16) |
                  (((sbo >> 4) & 0x3FFF) << 32) | (int64_t(1) << 62);
  return arith::OrIOp::create(b, loc, start, c64(fixed));
}

NVVM::WGMMATypes wgmmaType(Type t) {
  if (t.isBF16())
    return NVVM::WGMMATypes::bf16;
  if (isa<Float8E4M3FNType>(t))
    return NVVM::WGMMATypes::e4m3;
  if (isa<Float8E5M2Type>(t))
    return NVVM::WGMMATypes::e5m2;
  return NVVM::WGMMATypes::f16;
}

/// The four 32-bit words of the m64k16 A fragment of k-step `kk` of `a`
/// (a 16-bit fragment in the accumulator layout of an M x K wgmma: each
/// warp's 16 rows), in pairs of 16-bit elements (see aOperandRegister).
SmallVector<Value> wgmmaAWords(OpBuilder &b, Location loc, const Storage &a,
                               int64_t kk, Type elt) {
  auto pair = VectorType::get({2}, elt);
  SmallVector<Value> words;
  for (int64_t q = 0; q < 4; ++q) {
    SmallVector<Value> halves;
    for (int64_t e = 2 * q; e < 2 * q + 2; ++e)
      halves.push_back(memref::LoadOp::create(
          b, loc, a.memref,
          ValueRange{indexConst(b, loc, aOperandRegister(a.layout, 0, kk, e))}));
    Value word = vector::BitCastOp::create(
        b, loc, VectorType::get({1}, b.getI32Type()),
        vector::FromElementsOp::create(b, loc, pair, halves));
    words.push_back(
        vector::ExtractOp::create(b, loc, word, ArrayRef<int64_t>{0}));
  }
  return words;
}

/// One wgmma m64nNk16 with A from registers (`aWords`, see wgmmaAWords) and
/// B from the shared-memory descriptor `descB`: inline PTX (the NVVM op
/// takes A descriptors only). The accumulator struct `acc` passes through
/// in place.
Value wgmmaFromRegisters(OpBuilder &b, Location loc, Value acc,
                         ArrayRef<Value> aWords, Value descB, int64_t n,
                         Type elt, bool transB) {
  auto accType = cast<LLVM::LLVMStructType>(acc.getType());
  int64_t regs = accType.getBody().size();
  SmallVector<Value> operands;
  for (int64_t r = 0; r < regs; ++r)
    operands.push_back(LLVM::ExtractValueOp::create(b, loc, acc, r));
  operands.append(aWords.begin(), aWords.end());
  operands.push_back(descB);
  operands.push_back(i32Const(b, loc, 1)); // scale-d: accumulate
  // Operands: $0 .. $(R - 1) the accumulators out, $R .. $(2R - 1) them in
  // (tied), then A's four words, B's descriptor and scale-d.
  std::string type = elt.isBF16() ? "bf16" : "f16";
  int64_t in = 2 * regs;
  std::string ptx = "{\n.reg .pred p;\nsetp.ne.b32 p, $" +
                    std::to_string(in + 5) +
                    ", 0;\nwgmma.mma_async.sync.aligned.m64n" +
                    std::to_string(n) + "k16.f32." + type + "." + type + " {";
  std::string constraints;
  for (int64_t r = 0; r < regs; ++r) {
    ptx += (r ? ", $" : "$") + std::to_string(r);
    constraints += "=f,";
  }
  ptx += "}, {$" + std::to_string(in) + ", $" + std::to_string(in + 1) +
         ", $" + std::to_string(in + 2) + ", $" + std::to_string(in + 3) +
         "}, $" + std::to_string(in + 4) + ", p, 1, 1, " +
         (transB ? "0" : "1") + ";\n}";
  for (int64_t r = 0; r < regs; ++r)
    constraints += std::to_string(r) + ",";
  constraints += "r,r,r,r,l,r";
  return LLVM::InlineAsmOp::create(
             b, loc, accType, operands, ptx, constraints,
             /*has_side_effects=*/true, /*is_align_stack=*/false,
             LLVM::tailcallkind::TailCallKind::None, /*asm_dialect=*/nullptr,
             /*operand_attrs=*/nullptr)
      .getResult(0);
}

} // namespace

void nvvm::emitWgmmaGemm(PatternRewriter &rewriter, GemmOp op,
                         const Storage &a, const Storage &b,
                         const Storage &c) {
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  int64_t n = op.getN(), k = op.getK();
  Type elt = op.getA().getType().getElementType();
  int64_t eltBytes = elt.getIntOrFloatBitWidth() / 8;
  int64_t panel = kPanelBytes / eltBytes; // elements per panel row
  MmaAttr mma = op.getMmaAttr();
  int64_t kStep = mma.getK();
  bool transA = op.getTransposeA(), transB = op.getTransposeB();
  int64_t regs = c.numRegisters;
  // Each warpgroup computes `repeats` blocks of 64 rows, one accumulator
  // struct (n / 2 registers) each.
  int64_t repeats = mma.getRepeats();
  int64_t blockRegs = regs / repeats;

  if (op.getClearAccum())
    for (int64_t r = 0; r < regs; ++r)
      memref::StoreOp::create(rewriter, loc,
                              zeroOf(rewriter, loc, rewriter.getF32Type()),
                              c.memref,
                              ValueRange{indexConst(rewriter, loc, r)});

  // A in registers (a fragment in the accumulator layout of M x K): each
  // warp's A fragments of m64k16 are its own registers.
  bool aInRegisters = a.scope == Scope::Fragment;
  // Warpgroup g computes rows 64 r g .. 64 r (g + 1) - 1 of C (r =
  // repeats), its block j rows 64 (r g + j) .. 64 (r g + j) + 63.
  SmallVector<Value> aBases;
  if (!aInRegisters) {
    Value tid = threadId(rewriter, loc);
    Value group = arith::DivUIOp::create(
        rewriter, loc, tid, indexConst(rewriter, loc, kWarpgroupSize));
    // Shared byte offsets of a block's rows of A: K-major A (M x K stored
    // row by row in panels of K) steps 128 bytes a row; MN-major A (K x M,
    // panels of M) steps one panel per 64 rows.
    int64_t blockBytes = transA ? (64 / panel) * a.panelRows * kPanelBytes
                                : 64 * kPanelBytes;
    Value groupBase = arith::AddIOp::create(
        rewriter, loc, a.memref,
        arith::MulIOp::create(rewriter, loc, group,
                              indexConst(rewriter, loc, repeats * blockBytes)));
    for (int64_t j = 0; j < repeats; ++j)
      aBases.push_back(addIndex(rewriter, loc, groupBase, j * blockBytes));
  }

  auto type = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(blockRegs, rewriter.getF32Type()));
  // The accumulators are materialized in their registers before the fence
  // (LLVM would otherwise copy a cleared accumulator's zeros between the
  // wgmmas, and ptxas then serializes every wgmma of the kernel).
  SmallVector<Value> accs;
  for (int64_t j = 0; j < repeats; ++j) {
    SmallVector<Value> values;
    for (int64_t r = j * blockRegs; r < (j + 1) * blockRegs; ++r)
      values.push_back(memref::LoadOp::create(
          rewriter, loc, c.memref, ValueRange{indexConst(rewriter, loc, r)}));
    accs.push_back(passThroughAsm(rewriter, loc, values, ""));
  }
  // A from registers: every word in place before the fence (ptxas injects
  // a fence before each wgmma whose registers are written after it).
  SmallVector<SmallVector<Value>> aWords;
  if (aInRegisters)
    for (int64_t kk = 0; kk < k; kk += kStep)
      aWords.push_back(wgmmaAWords(rewriter, loc, a, kk, elt));

  NVVM::WgmmaFenceAlignedOp::create(rewriter, loc);
  auto wgType = NVVM::WGMMATypesAttr::get(ctx, wgmmaType(elt));
  for (int64_t kk = 0; kk < k; kk += kStep) {
    // K-major operands: 8-row groups 1024 bytes apart (SBO), K inside the
    // 128-byte row (start + bytes), whole panels of K one after another.
    // MN-major operands: panels of 64 (or 128) M / N elements LBO apart,
    // 8-row groups of K 1024 bytes apart. One wgmma per 64-row block of the
    // warpgroup, on its rows of A.
    SmallVector<Value> descAs;
    for (int64_t j = 0; j < (aInRegisters ? 0 : repeats); ++j)
      descAs.push_back(
          transA ? wgmmaDescriptor(rewriter, loc,
                                   addIndex(rewriter, loc, aBases[j],
                                            kk * kPanelBytes),
                                   a.panelRows * kPanelBytes, kSwizzleAtomBytes)
                 : wgmmaDescriptor(
                       rewriter, loc,
                       addIndex(rewriter, loc, aBases[j],
                                (kk / panel) * a.panelRows * kPanelBytes +
                                    (kk % panel) * eltBytes),
                       16, kSwizzleAtomBytes));
    Value descB;
    if (transB)
      descB = wgmmaDescriptor(
          rewriter, loc,
          addIndex(rewriter, loc, b.memref,
                   (kk / panel) * b.panelRows * kPanelBytes +
                       (kk % panel) * eltBytes),
          16, kSwizzleAtomBytes);
    else
      descB = wgmmaDescriptor(
          rewriter, loc, addIndex(rewriter, loc, b.memref, kk * kPanelBytes),
          b.panelRows * kPanelBytes, kSwizzleAtomBytes);
    if (aInRegisters) {
      accs[0] = wgmmaFromRegisters(rewriter, loc, accs[0], aWords[kk / kStep],
                                   descB, n, elt, transB);
      continue;
    }
    for (int64_t j = 0; j < repeats; ++j)
      accs[j] = NVVM::WgmmaMmaAsyncOp::create(
          rewriter, loc, type, accs[j], descAs[j], descB,
          NVVM::MMAShapeAttr::get(ctx, 64, n, kStep), wgType, wgType,
          NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32),
          NVVM::WGMMAScaleOutAttr::get(ctx, NVVM::WGMMAScaleOut::one),
          NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
          NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
          NVVM::MMALayoutAttr::get(ctx, transA ? NVVM::MMALayout::col
                                               : NVVM::MMALayout::row),
          NVVM::MMALayoutAttr::get(ctx, transB ? NVVM::MMALayout::col
                                               : NVVM::MMALayout::row),
          /*satfinite=*/nullptr);
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(rewriter, loc);
  for (int64_t r = 0; r < regs; ++r)
    memref::StoreOp::create(
        rewriter, loc,
        LLVM::ExtractValueOp::create(rewriter, loc, accs[r / blockRegs],
                                     r % blockRegs),
        c.memref, ValueRange{indexConst(rewriter, loc, r)});
  waitForWgmma(rewriter, loc, c, op->hasAttr(kWgmmaPendingAttr) ? 1 : 0);
}

namespace {

/// Registers ptxas needs for one wgmma beyond its accumulator and its A
/// fragment (descriptors, addresses, the loop's state): measured with ptxas
/// 13.0 on m64nNk16 (f16, bf16) and m64nNk32 (fp8) wgmmas, N 64 to 256, A
/// from shared memory or registers, in GEMM and flash-attention loops.
constexpr int64_t kWgmmaExtraRegisters = 26;

/// Registers each thread of a block of `threads` threads has from its start
/// (ptxas allocates the whole kernel within it; setmaxnreg only moves them
/// at run time).
int64_t entryRegisters(int64_t threads) {
  return std::min(kMaxThreadRegisters, kRegisterFile / threads / 8 * 8);
}

} // namespace

LogicalResult nvvm::verifyWgmmaRegisters(ArrayRef<GemmOp> wgmmas,
                                         int64_t threads, bool producer) {
  int64_t launched = threads + (producer ? kWarpgroupSize : 0);
  int64_t budget = entryRegisters(launched);
  for (GemmOp gemm : wgmmas) {
    Type elt = gemm.getA().getType().getElementType();
    int64_t kStep = getWgmmaK(elt);
    int64_t accumulator = gemm.getN() / 2;
    int64_t aRegisters = getScope(gemm.getA().getType()) == Scope::Fragment
                             ? kStep * elt.getIntOrFloatBitWidth() / 64
                             : 0;
    int64_t need = accumulator + aRegisters + kWgmmaExtraRegisters;
    if (need <= budget)
      continue;
    InFlightDiagnostic diag = gemm.emitOpError();
    diag << "runs as m64n" << gemm.getN() << "k" << kStep
         << " wgmma, which needs " << need << " registers a thread (its "
         << accumulator << "-register accumulator"
         << (aRegisters ? ", the A fragment" : "") << " and "
         << kWgmmaExtraRegisters << " more for ptxas), but each of the "
         << launched << " threads of the block";
    if (producer)
      diag << " (" << threads << " and the producer warpgroup of the TMA "
           << "pipeline)";
    diag << " has " << budget << " (65536 / threads in multiples of 8, at "
         << "most 255): ptxas cannot spill an accumulator and would fail";
    int64_t maxN =
        (budget - aRegisters - kWgmmaExtraRegisters) * 2 / 8 * 8;
    Diagnostic &note = diag.attachNote();
    note << "a block_N of at most " << maxN << " fits";
    if (producer && need <= entryRegisters(threads))
      note << "; so does this block without warp specialization "
           << "(pass_configs={PassConfigKey.TL_DISABLE_WARP_SPECIALIZED: "
           << "True}; tile.warp_specialize = false on the tile.pipelined), "
           << "whose threads have "
           << entryRegisters(threads) << " registers each";
    return failure();
  }
  return success();
}

LogicalResult mlir::tile::settleMmaForNVVM(
    KernelOp kernel, int sm, function_ref<FragmentLayoutAttr(Value)> layoutOf) {
  // The gemms a TMA pipeline will feed, loop by loop as
  // prepareKernelForNVVM pipelines them.
  llvm::DenseSet<Operation *> fed;
  if (sm >= 90)
    kernel.walk([&](PipelinedOp loop) {
      std::optional<TmaLoopPlan> plan = planTmaLoop(
          loop, [&](GemmOp gemm, const llvm::DenseSet<Value> &buffers) {
            return canRunAsWgmma(gemm, buffers, layoutOf);
          });
      if (plan)
        for (GemmOp gemm : plan->wgmmas)
          fed.insert(gemm);
    });
  bool ok = true;
  kernel.walk([&](GemmOp gemm) {
    MmaAttr mma = gemm.getMmaAttr();
    Type aElt = gemm.getA().getType().getElementType();
    MLIRContext *ctx = gemm.getContext();
    if (fed.contains(gemm)) {
      // (canRunAsWgmma found the accumulator in the wgmma partition's
      // layout.)
      WarpPartition part = *getWgmmaPartition(
          gemm.getM(), gemm.getN(), gemm.getK(), getThreads(gemm) / kWarpSize,
          aElt);
      gemm.setMmaAttr(MmaAttr::get(ctx, MmaKind::Wgmma, 64, gemm.getN(),
                                   getWgmmaK(aElt), part.warpsM, part.warpsN,
                                   part.repeats));
      return;
    }
    if (!mma || mma.getKind() != MmaKind::Wgmma)
      return;
    if (isa<Float8E4M3FNType, Float8E5M2Type>(aElt)) {
      gemm.emitOpError()
          << "has fp8 inputs, which run only as wgmma on operands that a "
             "pipelined loop loads with TMA (T.Pipelined copies of whole "
             "shared tiles, A not transposed and B transposed)";
      ok = false;
      return;
    }
    // mma.sync on the same warp partition (the accumulator keeps its
    // layout).
    gemm.setMmaAttr(MmaAttr::get(ctx, MmaKind::MmaSync, 16, 8,
                                 256 / aElt.getIntOrFloatBitWidth(),
                                 mma.getWarpsM(), mma.getWarpsN(),
                                 mma.getRepeats()));
  });
  return success(ok);
}

std::optional<TmaLoopPlan>
nvvm::planTmaLoop(PipelinedOp loop,
                  function_ref<bool(GemmOp, const llvm::DenseSet<Value> &)>
                      runsAsWgmma) {
  int64_t numStages = loop.getNumStages();
  if (numStages < 2 || numStages > 32)
    return std::nullopt;
  auto func = loop->getParentOfType<func::FuncOp>();
  if (!func)
    return std::nullopt;
  TmaLoopPlan plan;
  SmallVector<TmaLoad> &loads = plan.loads;
  llvm::DenseSet<Value> &buffers = plan.buffers;
  SmallVector<GemmOp> gemms;
  for (Operation &op : loop.getBodyBlock().without_terminator()) {
    if (auto gemm = dyn_cast<GemmOp>(op))
      gemms.push_back(gemm);
    auto copy = dyn_cast<CopyOp>(op);
    if (!copy || !isGlobal(copy.getSource().getType()))
      continue;
    if (!isSharedTile(copy.getTarget()))
      continue;
    std::optional<TmaLoad> load = asTmaLoad(copy, loop, func);
    if (!load || buffers.contains(copy.getTarget()))
      return std::nullopt;
    loads.push_back(*load);
    buffers.insert(copy.getTarget());
  }
  if (loads.empty() || gemms.empty())
    return std::nullopt;
  // Gemm operands loaded once before the loop (flash attention's Q): a
  // shared buffer that one TMA-able copy fills before the loop, in the
  // loop's block, and only gemms of the loop read.
  for (GemmOp gemm : gemms)
    for (Value operand : {gemm.getA(), gemm.getB()}) {
      std::optional<Storage> st = getStorage(operand);
      if (buffers.contains(operand) || !isSharedTile(operand) ||
          (st && st->panelRows))
        continue;
      CopyOp writer;
      bool onlyGemms = true;
      for (Operation *user : operand.getUsers()) {
        auto copy = dyn_cast<CopyOp>(user);
        if (copy && copy.getTarget() == operand && !writer) {
          writer = copy;
          continue;
        }
        auto reader = dyn_cast<GemmOp>(user);
        onlyGemms &= reader && reader->getParentOp() == loop.getOperation() &&
                     reader.getC() != operand;
      }
      if (!onlyGemms || !writer || writer->getBlock() != loop->getBlock() ||
          !writer->isBeforeInBlock(loop) ||
          !isGlobal(writer.getSource().getType()))
        continue;
      if (std::optional<TmaLoad> load =
              asTmaLoad(writer, PipelinedOp(), func)) {
        plan.resident.push_back(*load);
        buffers.insert(operand);
      }
    }
  for (GemmOp gemm : gemms) {
    if (!buffers.contains(gemm.getA()) && !buffers.contains(gemm.getB()))
      continue;
    if (!runsAsWgmma(gemm, buffers))
      return std::nullopt;
    plan.wgmmas.push_back(gemm);
  }
  for (TmaLoad &load : loads)
    for (Operation *user : load.copy.getTarget().getUsers()) {
      if (user == load.copy.getOperation())
        continue;
      auto gemm = dyn_cast<GemmOp>(user);
      if (!gemm || gemm->getParentOp() != loop.getOperation() ||
          gemm.getC() == load.copy.getTarget())
        return std::nullopt;
    }
  return plan;
}

FailureOr<bool> nvvm::pipelineWithTma(RewriterBase &rewriter, PipelinedOp loop,
                                      int64_t &sharedBytes,
                                      int64_t sharedLimit) {
  // The loop tile-select-mma found: its gemms that read what TMA loads ask
  // for wgmma (#tile.mma).
  std::optional<TmaLoopPlan> plan = planTmaLoop(
      loop, [](GemmOp gemm, const llvm::DenseSet<Value> &buffers) {
        MmaAttr mma = gemm.getMmaAttr();
        return mma && mma.getKind() == MmaKind::Wgmma &&
               buffers.contains(gemm.getB()) &&
               (buffers.contains(gemm.getA()) ||
                getScope(gemm.getA().getType()) == Scope::Fragment);
      });
  if (!plan)
    return false;
  int64_t numStages = loop.getNumStages();
  auto func = loop->getParentOfType<func::FuncOp>();
  SmallVector<TmaLoad> &loads = plan->loads;
  SmallVector<TmaLoad> &resident = plan->resident;
  SmallVector<GemmOp> &wgmmas = plan->wgmmas;

  // A GEMM loop (one wgmma, whose accumulator nothing else in the loop
  // reads) leaves each iteration's wgmmas in flight until the next one's
  // (wgmma.wait_group 1). Other loops (flash attention reads S right after
  // its gemm) wait for each gemm.
  bool inFlight =
      wgmmas.size() == 1 &&
      llvm::all_of(wgmmas.front().getC().getUsers(), [&](Operation *user) {
        return user == wgmmas.front().getOperation() ||
               !loop->isAncestor(user);
      });

  MLIRContext *ctx = loop.getContext();
  Location loc = loop.getLoc();
  auto kernel = loop->getParentOfType<KernelOp>();
  int64_t threads = kernel.getThreads();
  // A loop that runs once per tile of a persistent block shares one ring
  // (and producer) among its runs: the producer loads the next tile while
  // the consumers store this one. (Resident buffers would change per tile.)
  scf::ForOp tiles = tileLoopOf(loop, kernel);
  bool specialize =
      canSpecialize(loop, kernel, loads) && (!tiles || resident.empty());
  if (failed(verifyWgmmaRegisters(wgmmas, threads, specialize)))
    return failure();
  if (!specialize)
    tiles = {};
  // In a cluster, loads the same in every block are multicast (a loop run
  // once per block, with a producer warpgroup).
  ClusterMulticast multicast =
      specialize && !tiles ? planMulticast(loop, kernel, loads)
                           : ClusterMulticast();
  int64_t stageBytes = 0;
  for (TmaLoad &load : loads) {
    load.offset = stageBytes;
    stageBytes += llvm::alignTo(load.bytes(), kSwizzleAtomBytes);
    // A multicast load's boxes are its slices.
    TmaBox box = load;
    if (load.multicast)
      box.rows /= multicast.size;
    load.descriptor = getDescriptorArgument(func, box);
  }
  // The region is aligned at run time (dynamic shared memory is only known
  // to be 16-byte aligned): reserve one swizzle atom of slack. Then the
  // stages, the resident buffers, the full barriers, (specialized) the
  // empty barriers and the resident buffers' barrier.
  int64_t regionOffset = llvm::alignTo(sharedBytes, kSharedAlignment);
  int64_t residentEnd = numStages * stageBytes;
  for (TmaLoad &load : resident) {
    load.offset = residentEnd;
    residentEnd += llvm::alignTo(load.bytes(), kSwizzleAtomBytes);
    load.descriptor = getDescriptorArgument(func, load);
  }
  int64_t fullOffset = residentEnd;
  int64_t emptyOffset = fullOffset + numStages * 8;
  int64_t residentBarrierOffset = emptyOffset + (specialize ? numStages * 8 : 0);
  int64_t regionEnd = residentBarrierOffset + (resident.empty() ? 0 : 8);
  // The accumulators' stores to global memory after the loop (also those
  // written through a shared tile of their own): by TMA where TMA can
  // store every one of them.
  if (specialize)
    for (GemmOp gemm : wgmmas)
      fuseSharedEpilogue(rewriter, loop, gemm.getC());
  SmallVector<std::pair<CopyOp, TmaBox>> tmaStores;
  bool allTma = specialize;
  for (GemmOp gemm : wgmmas)
    for (Operation *user : gemm.getC().getUsers()) {
      if (!allTma || !stagedEpilogueBytes(loop, gemm.getC(), user))
        continue;
      std::optional<TmaBox> box = asTmaStore(cast<CopyOp>(user), func);
      allTma = box.has_value();
      if (box)
        tmaStores.push_back({cast<CopyOp>(user), *box});
    }
  if (!allTma)
    tmaStores.clear();
  // Per tile, the accumulators' epilogue needs a buffer of its own (the
  // stages hold the next tile's loads), where it fits: for TMA stores, as
  // many panels as fit (rounds of them take turns).
  int64_t epilogueOffset = 0, epilogueBytes = 0;
  if (tiles) {
    // (TMA reads 128-byte-swizzled panels from 1024-byte aligned buffers.)
    epilogueOffset = llvm::alignTo(
        regionEnd, tmaStores.empty() ? kSharedAlignment : kSwizzleAtomBytes);
    int64_t room =
        sharedLimit - (regionOffset + kSwizzleAtomBytes + epilogueOffset);
    for (auto &[copy, box] : tmaStores)
      epilogueBytes = std::max(
          epilogueBytes,
          std::min(box.panels(), std::max<int64_t>(room, 0) /
                                     box.panelBytes()) *
              box.panelBytes());
    if (tmaStores.empty())
      for (GemmOp gemm : wgmmas)
        for (Operation *user : gemm.getC().getUsers())
          epilogueBytes = std::max(
              epilogueBytes, stagedEpilogueBytes(loop, gemm.getC(), user));
    if (epilogueBytes > room)
      epilogueBytes = 0;
    if (epilogueBytes > 0)
      regionEnd = epilogueOffset + epilogueBytes;
  }
  sharedBytes = regionOffset + kSwizzleAtomBytes + regionEnd;

  // Addresses and barriers: before the loop, or at the start of the
  // kernel when the block splits into producer and consumers.
  // (After the register arrays, which must stay in the entry block for
  // LLVM to promote them to registers.)
  Block &kernelBody = kernel.getBodyBlock();
  Operation *firstOriginal = &kernelBody.front();
  while (isa<memref::AllocaOp>(firstOriginal))
    firstOriginal = firstOriginal->getNextNode();
  if (specialize)
    rewriter.setInsertionPoint(firstOriginal);
  else
    rewriter.setInsertionPoint(loop);
  auto workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto bytesType = MemRefType::get({ShapedType::kDynamic}, rewriter.getI8Type(),
                                   MemRefLayoutAttrInterface(), workgroup);
  Value smem = gpu::DynamicSharedMemoryOp::create(rewriter, loc, bytesType);
  Value smemBase =
      memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc, smem);
  Value region = arith::AndIOp::create(
      rewriter, loc,
      addIndex(rewriter, loc, smemBase,
               regionOffset + kSwizzleAtomBytes - 1),
      indexConst(rewriter, loc, ~(kSwizzleAtomBytes - 1)));
  TmaRing ring{loop,       loads,       region,   numStages,
               stageBytes, fullOffset, emptyOffset, resident,
               residentBarrierOffset};
  ring.tiles = tiles;
  ring.multicast = multicast;
  int64_t warpgroups = threads / kWarpgroupSize;
  if (!inFlight &&
      numStages * warpgroups <= kNamedBarriers - kFirstStageBarrier)
    ring.handoffGroups = warpgroups;
  Value tid = threadId(rewriter, loc);
  Value isLeader =
      arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, tid,
                            indexConst(rewriter, loc, 0));

  auto inLoop = [&](Value v, IRMapping &mapping) {
    return cloneDependencies(rewriter, v, loop, mapping);
  };

  // Barriers (after everyone is done with an earlier run of the loop).
  Value lower = loop.getLower(), upper = loop.getUpper(), step = loop.getStep();
  barrier(rewriter, loc);
  scf::IfOp::create(rewriter, loc, isLeader, [&](OpBuilder &b, Location l) {
    for (int64_t s = 0; s < numStages; ++s) {
      NVVM::MBarrierInitOp::create(
          b, l, ring.barrierAt(b, l, fullOffset, indexConst(b, l, s)),
          i32Const(b, l, 1), Value());
      if (specialize)
        NVVM::MBarrierInitOp::create(
            b, l, ring.barrierAt(b, l, emptyOffset, indexConst(b, l, s)),
            i32Const(b, l, ring.emptyArrivals(threads)), Value());
    }
    if (!resident.empty())
      NVVM::MBarrierInitOp::create(
          b, l,
          sharedPtr(b, l, addIndex(b, l, region, residentBarrierOffset)),
          i32Const(b, l, 1), Value());
    NVVM::FenceMbarrierInitOp::create(b, l);
    scf::YieldOp::create(b, l);
  });
  if (multicast) {
    // Every block's barriers are initialized before any block multicasts
    // into it or arrives on them.
    NVVM::ClusterArriveOp::create(rewriter, loc, rewriter.getUnitAttr());
    NVVM::ClusterWaitOp::create(rewriter, loc, rewriter.getUnitAttr());
  } else {
    barrier(rewriter, loc);
  }
  // Without a producer: thread 0 loads the resident buffers and
  // iterations 0 .. S - 2 up front.
  if (!specialize)
    scf::IfOp::create(rewriter, loc, isLeader, [&](OpBuilder &b, Location l) {
      ring.issueResident(b, l, [](Value v) { return v; });
      for (int64_t s = 0; s + 1 < numStages; ++s) {
        Value iv = arith::AddIOp::create(
            b, l, lower,
            arith::MulIOp::create(b, l, step, indexConst(b, l, s)));
        Value inRange =
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, iv, upper);
        scf::IfOp::create(b, l, inRange, [&](OpBuilder &tb, Location tl) {
          ring.issue(tb, tl, iv, indexConst(tb, tl, s), inLoop);
          scf::YieldOp::create(tb, tl);
        });
      }
      scf::YieldOp::create(b, l);
    });

  // The resident buffers: read through panel views once they arrived.
  if (!resident.empty()) {
    rewriter.setInsertionPoint(loop);
    waitParity(rewriter, loc,
               sharedPtr(rewriter, loc,
                         addIndex(rewriter, loc, region,
                                  residentBarrierOffset)),
               indexConst(rewriter, loc, 0));
    for (TmaLoad &load : resident)
      readThroughPanels(rewriter, loc, load, region, loop);
  }

  // Each iteration: wait for its stage, read it through panel views.
  // Per tile, the iterations continue the ring where the last tile left it.
  Value base;
  if (tiles) {
    rewriter.setInsertionPoint(loop);
    base = iterationsBefore(rewriter, loc, tiles.getInductionVar(),
                            tiles.getLowerBound(), tiles.getStep(), lower,
                            upper, step);
  }
  Block &body = loop.getBodyBlock();
  rewriter.setInsertionPointToStart(&body);
  Value k = loop.getInductionVar();
  auto [iteration, stage] =
      ringSlot(rewriter, loc, k, lower, step, numStages, base);
  Value sC = indexConst(rewriter, loc, numStages);
  Value parity = arith::RemUIOp::create(
      rewriter, loc, arith::DivUIOp::create(rewriter, loc, iteration, sC),
      indexConst(rewriter, loc, 2));
  if (specialize) {
    // The producer's signalling warp saw the stage's full barrier complete
    // and arrives on the stage's named barrier: a single bar.sync here. (A
    // spin loop on the mbarrier while wgmmas are in flight makes ptxas
    // serialize every wgmma of the kernel.)
    int64_t groups = ring.handoffGroups;
    Value group = arith::DivUIOp::create(
        rewriter, loc, threadId(rewriter, loc),
        indexConst(rewriter, loc, threads / groups));
    Value id = arith::AddIOp::create(
        rewriter, loc,
        arith::MulIOp::create(rewriter, loc, stage,
                              indexConst(rewriter, loc, groups)),
        addIndex(rewriter, loc, group, kFirstStageBarrier));
    NVVM::BarrierOp::create(rewriter, loc, Type(), toI32(rewriter, loc, id),
                            i32Const(rewriter, loc, threads / groups + kWarpSize),
                            nullptr, Value());
    // The phase has completed (the signaller saw it): one non-blocking
    // test acquires it in this thread too, which makes the TMA writes of
    // the stage visible to this thread's wgmmas.
    Value bar = ring.barrierAt(rewriter, loc, fullOffset, stage);
    Value addr = LLVM::PtrToIntOp::create(rewriter, loc, rewriter.getI32Type(),
                                          bar);
    LLVM::InlineAsmOp::create(
        rewriter, loc, TypeRange{}, ValueRange{addr, toI32(rewriter, loc, parity)},
        "{ .reg .pred p; mbarrier.test_wait.parity.shared::cta.b64 p, [$0], "
        "$1; }",
        "r,r,~{memory}", /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::tailcallkind::TailCallKind::None, /*asm_dialect=*/nullptr,
        /*operand_attrs=*/nullptr);
  } else {
    waitParity(rewriter, loc, ring.barrierAt(rewriter, loc, fullOffset, stage),
               parity);
  }
  Value stageBase = ring.stageAt(rewriter, loc, stage);
  for (TmaLoad &load : loads)
    readThroughPanels(rewriter, loc, load, stageBase, loop);
  if (inFlight)
    wgmmas.front()->setAttr(kWgmmaPendingAttr, rewriter.getUnitAttr());

  // End of each iteration: the wgmmas of the previous iteration (or, when
  // nothing stays in flight, of this one) have completed, so their stage is
  // free.
  rewriter.setInsertionPoint(body.getTerminator());
  Value previous = arith::RemUIOp::create(
      rewriter, loc, addIndex(rewriter, loc, iteration, numStages - 1), sC);
  if (specialize) {
    // The consumers release it to the producer.
    if (inFlight) {
      Value notFirst = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::ugt, iteration,
          base ? base : indexConst(rewriter, loc, 0));
      scf::IfOp::create(rewriter, loc, notFirst, [&](OpBuilder &b, Location l) {
        ring.release(b, l, previous);
        scf::YieldOp::create(b, l);
      });
    } else {
      ring.release(rewriter, loc, stage);
    }
  } else {
    // Once the whole block is past it, thread 0 loads iteration i + S - 1.
    barrier(rewriter, loc);
    Value ahead = arith::AddIOp::create(
        rewriter, loc, k,
        arith::MulIOp::create(rewriter, loc, step,
                              indexConst(rewriter, loc, numStages - 1)));
    Value issueAhead = arith::AndIOp::create(
        rewriter, loc,
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt, ahead,
                              upper),
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                              threadId(rewriter, loc),
                              indexConst(rewriter, loc, 0)));
    scf::IfOp::create(rewriter, loc, issueAhead, [&](OpBuilder &b, Location l) {
      ring.issue(b, l, ahead, previous, inLoop);
      scf::YieldOp::create(b, l);
    });
  }
  loop.setNumStages(1);
  // The loop stays rolled (`.pragma "nounroll"`). ptxas fully unrolls a
  // wgmma loop whose trip count it knows: to fold the ring slot's
  // divisions by a stage count that is not a power of two (64 iterations of
  // 128x256 wgmmas: 46-135 s in ptxas), and at 4 stages up to some 32
  // iterations (128 HGMMA, 24 s); the wgmmas are asynchronous, so the
  // unrolled copies gain nothing. (This also keeps LLVM from peeling the
  // first iteration. The loop's lowering carries the attribute on to the
  // latch branch: scf-to-cf and cf-to-llvm to llvm.br's loop_annotation.)
  loop->setAttr(kLoopAnnotationAttr,
                LLVM::LoopAnnotationAttr::get(
                    ctx, /*disableNonforced=*/nullptr, /*vectorize=*/nullptr,
                    /*interleave=*/nullptr,
                    LLVM::LoopUnrollAttr::get(
                        ctx, /*disable=*/rewriter.getBoolAttr(true),
                        /*count=*/nullptr, /*runtimeDisable=*/nullptr,
                        /*full=*/nullptr, /*followupUnrolled=*/nullptr,
                        /*followupRemainder=*/nullptr,
                        /*followupAll=*/nullptr),
                    /*unrollAndJam=*/nullptr, /*licm=*/nullptr,
                    /*distribute=*/nullptr, /*pipeline=*/nullptr,
                    /*peeled=*/nullptr, /*unswitch=*/nullptr,
                    /*mustProgress=*/nullptr, /*isVectorized=*/nullptr,
                    /*startLoc=*/nullptr, /*endLoc=*/nullptr,
                    /*parallelAccesses=*/{}));

  // After the loop: the last wgmmas complete before anything reads their
  // accumulators.
  rewriter.setInsertionPointAfter(loop);
  for (GemmOp gemm : wgmmas)
    waitForWgmma(rewriter, loc, *getStorage(gemm.getC()), 0);
  if (!specialize)
    return true;
  if ((tiles || multicast) && inFlight) {
    // The stage of the last iteration is free now: for the next tile's
    // loads (whose first iteration releases nothing), or, in a cluster,
    // for the producer's final wait (see addProducerWarpgroup).
    Value trips = tripCount(rewriter, loc, lower, upper, step);
    Value ran = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sgt,
                                      trips, indexConst(rewriter, loc, 0));
    scf::IfOp::create(rewriter, loc, ran, [&](OpBuilder &b, Location l) {
      Value end = base ? arith::AddIOp::create(b, l, base, trips) : trips;
      Value last = arith::RemUIOp::create(b, l, addIndex(b, l, end, -1),
                                          indexConst(b, l, numStages));
      ring.release(b, l, last);
      scf::YieldOp::create(b, l);
    });
  }
  // The stores' shared buffer: per tile one of their own (the next tile's
  // loads may be in the stages already); otherwise the stage buffers, free
  // once the loop is done (every load was consumed).
  Value epilogue = tiles ? addIndex(rewriter, loc, region, epilogueOffset)
                         : region;
  int64_t epilogueRoom = tiles ? epilogueBytes : numStages * stageBytes;
  if (!tmaStores.empty() &&
      llvm::all_of(tmaStores, [&](auto &store) {
        return store.second.panelBytes() <= epilogueRoom;
      })) {
    for (auto &[copy, box] : tmaStores)
      storeThroughTma(rewriter, copy, box, *getStorage(copy.getSource()),
                      epilogue,
                      std::min(box.panels(), epilogueRoom / box.panelBytes()));
    // Thread 0 waits until its stores have read shared memory before the
    // block may exit.
    rewriter.setInsertionPoint(kernelBody.getTerminator());
    scf::IfOp::create(rewriter, loc, isLeader, [&](OpBuilder &b, Location l) {
      NVVM::CpAsyncBulkWaitGroupOp::create(b, l, 0, b.getUnitAttr());
      scf::YieldOp::create(b, l);
    });
  } else if (epilogueRoom > 0) {
    for (GemmOp gemm : wgmmas)
      stageEpilogue(rewriter, loop, gemm.getC(), smemBase, epilogue,
                    epilogueRoom);
  }

  addProducerWarpgroup(rewriter, loop, ring, firstOriginal, wgmmas);
  return true;
}
