//===- Wgmma.cpp - wgmma gemms for sm_90a ---------------------------------===//
//
// tile.gemm as wgmma from the swizzled panels of a TMA pipeline (A
// possibly from registers), the registers ptxas needs for it, and which
// gemms run as wgmma (settleMmaForNVVM, for tile-select-mma). See Hopper.h.
//
//===----------------------------------------------------------------------===//

#include "Hopper.h"

#include "tile/Conversion/TileToNVVM/TileToNVVM.h"
#include "tile/Conversion/TileToNVVM/WgmmaLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::nvvm;

Value nvvm::wgmmaWarpRow(OpBuilder &b, Location loc, Value warp,
                         int64_t repeats) {
  return arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(
          b, loc, arith::DivUIOp::create(b, loc, warp, indexConst(b, loc, 4)),
          indexConst(b, loc, 64 * repeats)),
      arith::MulIOp::create(
          b, loc, arith::RemUIOp::create(b, loc, warp, indexConst(b, loc, 4)),
          indexConst(b, loc, 16)));
}

namespace {

/// The register layout of a fragment buffer (null for other buffers).
using LayoutOf = function_ref<FragmentLayoutAttr(Value)>;

/// True when A of `gemm` can be wgmma's register operand: a 16-bit
/// fragment in the accumulator layout of an M x K wgmma on the gemm's
/// warps (flash attention's P: one or two 64-row blocks a warpgroup),
/// whose registers are the A fragments of m64k16 in every warp.
bool wgmmaAFromRegisters(GemmOp gemm, LayoutOf layoutOf) {
  FragmentLayoutAttr a = layoutOf(gemm.getA());
  Type aElt = gemm.getA().getType().getElementType();
  int64_t threads = getThreads(gemm), m = gemm.getM();
  if (!a || gemm.getTransposeA() || !(aElt.isF16() || aElt.isBF16()) ||
      m % 64 != 0)
    return false;
  std::optional<WarpPartition> part = getWgmmaPartition(
      m, gemm.getN(), gemm.getK(), threads / kWarpSize, aElt);
  if (!part || part->warpsN != 1)
    return false;
  return a == getMmaSyncAccumulatorLayout(gemm.getContext(), m, gemm.getK(),
                                          threads, *part);
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
  // An MN-major operand spans whole panels along M (64 rows per
  // warpgroup) or N (the columns of a warpgroup): the elements of a row of
  // its panels (getPanelBytes, as the TMA pipeline stores it).
  auto panelElements = [&](Value operand) {
    return getPanelBytes(cast<MemRefType>(operand.getType())) * 8 / bits;
  };
  if (gemm.getTransposeA() && 64 % panelElements(gemm.getA()) != 0)
    return false;
  if (!gemm.getTransposeB() &&
      (n / part->warpsN) % panelElements(gemm.getB()) != 0)
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

/// The wgmma shared-memory descriptor `fields` of an operand at shared
/// address `base`.
Value wgmmaDescriptor(OpBuilder &b, Location loc, Value base,
                      const WgmmaDescriptorFields &fields) {
  Type i64 = b.getI64Type();
  auto c64 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i64, v);
  };
  Value addr = arith::IndexCastUIOp::create(
      b, loc, i64, addIndex(b, loc, base, fields.start));
  Value start = arith::ShRUIOp::create(
      b, loc, arith::AndIOp::create(b, loc, addr, c64(0x3FFFF)), c64(4));
  uint64_t fixed = (uint64_t((fields.leadingBytes >> 4) & 0x3FFF) << 16) |
                   (uint64_t((fields.strideBytes >> 4) & 0x3FFF) << 32) |
                   (uint64_t(fields.layoutType) << 62);
  return arith::OrIOp::create(b, loc, start, c64(int64_t(fixed)));
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

/// The four 32-bit words of the m64k16 A fragment of k-step `kk` of the
/// 64-row block `block` of `a` (a 16-bit fragment in the accumulator layout
/// of an M x K wgmma: each warp's 16 rows of each block), in pairs of
/// 16-bit elements (see aOperandRegister).
SmallVector<Value> wgmmaAWords(OpBuilder &b, Location loc, const Storage &a,
                               int64_t block, int64_t kk, Type elt) {
  auto pair = VectorType::get({2}, elt);
  SmallVector<Value> words;
  for (int64_t q = 0; q < 4; ++q) {
    SmallVector<Value> halves;
    for (int64_t e = 2 * q; e < 2 * q + 2; ++e)
      halves.push_back(memref::LoadOp::create(
          b, loc, a.memref,
          ValueRange{indexConst(b, loc, aOperandRegister(a.layout, 64 * block, kk, e))}));
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

/// The shared-memory descriptor of k-step `kk` of the panel buffer
/// `operand` from shared address `base` (see wgmmaDescriptorFields).
Value operandDescriptor(OpBuilder &b, Location loc, Value base,
                        const Storage &operand, int64_t kk, bool kMajor,
                        int64_t eltBytes) {
  return wgmmaDescriptor(b, loc, base,
                         wgmmaDescriptorFields(operand.panelRows,
                                               operand.panelBytes, kk, kMajor,
                                               eltBytes));
}

/// The shared addresses of the current warpgroup's `repeats` 64-row blocks
/// of A (a panel buffer at `address`, `panel` elements a panel row):
/// warpgroup g computes rows 64 r g .. 64 r (g + 1) - 1 of C (r = repeats),
/// its block j rows 64 (r g + j) .. 64 (r g + j) + 63. With warpgroups
/// along N, `group` is the warpgroup's 64-row block.
SmallVector<Value> aBlockBases(OpBuilder &b, Location loc, const Storage &a,
                               Value address, bool transA, int64_t panel,
                               int64_t repeats, Value group = {}) {
  SmallVector<Value> aBases;
  if (!group)
    group = arith::DivUIOp::create(b, loc, threadId(b, loc),
                                   indexConst(b, loc, kWarpgroupSize));
  // Shared byte offsets of a block's rows of A: K-major A (M x K stored
  // row by row in panels of K) steps a panel row a row; MN-major A (K x M,
  // panels of M) steps 64 / panel panels per 64 rows.
  int64_t blockBytes = transA ? (64 / panel) * a.panelRows * a.panelBytes
                              : 64 * a.panelBytes;
  Value groupBase = arith::AddIOp::create(
      b, loc, address,
      arith::MulIOp::create(b, loc, group,
                            indexConst(b, loc, repeats * blockBytes)));
  for (int64_t j = 0; j < repeats; ++j)
    aBases.push_back(addIndex(b, loc, groupBase, j * blockBytes));
  return aBases;
}

/// The `repeats` accumulator structs of `c` (`blockRegs` registers each),
/// materialized in their registers before the fence (LLVM would otherwise
/// copy a cleared accumulator's zeros between the wgmmas, and ptxas then
/// serializes every wgmma of the kernel).
SmallVector<Value> materializeAccumulators(OpBuilder &b, Location loc,
                                           const Storage &c, int64_t repeats,
                                           int64_t blockRegs) {
  SmallVector<Value> accs;
  for (int64_t j = 0; j < repeats; ++j) {
    SmallVector<Value> values;
    for (int64_t r = j * blockRegs; r < (j + 1) * blockRegs; ++r)
      values.push_back(memref::LoadOp::create(
          b, loc, c.memref, ValueRange{indexConst(b, loc, r)}));
    accs.push_back(passThroughAsm(b, loc, values, ""));
  }
  return accs;
}

} // namespace

void nvvm::emitWgmmaGemm(PatternRewriter &rewriter, GemmOp op,
                         const Storage &a, const Storage &b,
                         const Storage &c) {
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  MmaAttr mma = op.getMmaAttr();
  // (n: the columns of one warpgroup's instruction.)
  int64_t n = mma.getN(), k = op.getK();
  Type elt = op.getA().getType().getElementType();
  int64_t eltBytes = elt.getIntOrFloatBitWidth() / 8;
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
  // Panel buffers the loop writes from registers are swizzled views (see
  // pipelineWithTma); the others are their shared addresses.
  auto addressOf = [&](const Storage &operand) -> Value {
    if (!isa<MemRefType>(operand.memref.getType()))
      return operand.memref;
    return memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc,
                                                          operand.memref);
  };
  Value bBase = addressOf(b);
  // Warpgroups along N (warps = [4 gM, gN]): warpgroup g computes the
  // 64-row block g mod gM of column block g / gM, n columns wide; B starts
  // at that block's columns (rows of N x K B; panels of K x N B).
  Value rowGroup;
  if (mma.getWarpsN() > 1) {
    int64_t groupsM = mma.getWarpsM() / 4;
    Value group = arith::DivUIOp::create(
        rewriter, loc, threadId(rewriter, loc),
        indexConst(rewriter, loc, kWarpgroupSize));
    rowGroup = arith::RemUIOp::create(rewriter, loc, group,
                                      indexConst(rewriter, loc, groupsM));
    int64_t columnBytes = transB ? n * b.panelBytes
                                 : (n / (b.panelBytes / eltBytes)) *
                                       b.panelRows * b.panelBytes;
    bBase = arith::AddIOp::create(
        rewriter, loc, bBase,
        arith::MulIOp::create(
            rewriter, loc,
            arith::DivUIOp::create(rewriter, loc, group,
                                   indexConst(rewriter, loc, groupsM)),
            indexConst(rewriter, loc, columnBytes)));
  }
  SmallVector<Value> aBases;
  if (!aInRegisters)
    aBases = aBlockBases(rewriter, loc, a, addressOf(a), transA,
                         a.panelBytes / eltBytes, repeats, rowGroup);

  auto type = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(blockRegs, rewriter.getF32Type()));
  SmallVector<Value> accs =
      materializeAccumulators(rewriter, loc, c, repeats, blockRegs);
  // A from registers: every word in place before the fence (ptxas injects
  // a fence before each wgmma whose registers are written after it).
  // (aWords[kk / kStep * repeats + j]: block j of k-step kk.)
  SmallVector<SmallVector<Value>> aWords;
  if (aInRegisters)
    for (int64_t kk = 0; kk < k; kk += kStep)
      for (int64_t j = 0; j < repeats; ++j)
        aWords.push_back(wgmmaAWords(rewriter, loc, a, j, kk, elt));

  NVVM::WgmmaFenceAlignedOp::create(rewriter, loc);
  auto wgType = NVVM::WGMMATypesAttr::get(ctx, wgmmaType(elt));
  for (int64_t kk = 0; kk < k; kk += kStep) {
    // One wgmma per 64-row block of the warpgroup, on its rows of A.
    SmallVector<Value> descAs;
    for (int64_t j = 0; j < (aInRegisters ? 0 : repeats); ++j)
      descAs.push_back(operandDescriptor(rewriter, loc, aBases[j], a, kk,
                                         !transA, eltBytes));
    Value descB =
        operandDescriptor(rewriter, loc, bBase, b, kk, transB, eltBytes);
    if (aInRegisters) {
      for (int64_t j = 0; j < repeats; ++j)
        accs[j] = wgmmaFromRegisters(rewriter, loc, accs[j],
                                     aWords[kk / kStep * repeats + j], descB,
                                     n, elt, transB);
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
    int64_t instructionN = gemm.getMmaAttr().getN();
    // (Two 64-row blocks a warpgroup: two accumulators, two A fragments.)
    int64_t repeats = gemm.getMmaAttr().getRepeats();
    int64_t accumulator = repeats * instructionN / 2;
    int64_t aRegisters = getScope(gemm.getA().getType()) == Scope::Fragment
                             ? repeats * kStep *
                                   elt.getIntOrFloatBitWidth() / 64
                             : 0;
    int64_t need = accumulator + aRegisters + kWgmmaExtraRegisters;
    if (need <= budget)
      continue;
    InFlightDiagnostic diag = gemm.emitOpError();
    diag << "runs as m64n" << instructionN << "k" << kStep
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
        (budget - aRegisters - kWgmmaExtraRegisters) * 2 / repeats / 8 * 8;
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
      gemm.setMmaAttr(MmaAttr::get(ctx, MmaKind::Wgmma, 64,
                                   gemm.getN() / part.warpsN, getWgmmaK(aElt),
                                   part.warpsM, part.warpsN, part.repeats));
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
    // layout); warpgroups along N, whose warps mma.sync numbers otherwise,
    // FullRow's two 64-row blocks a warpgroup, and two blocks a warpgroup
    // on operands narrower than 128-byte panels (which TMA feeds wgmma
    // since 64- and 32-byte panels, but mma.sync reads no better on four
    // warps along M) on the partition of the gemm's policy, as without
    // wgmma.
    // (The same warps numbered along N first always tile it too.)
    auto widePanels = [](Value operand) {
      return getPanelBytes(cast<MemRefType>(operand.getType())) == 128;
    };
    WarpPartition part = getMmaPartition(mma);
    if (part.warpgroupsAlongN ||
        (part.repeats > 1 && (gemm.getPolicy() == GemmWarpPolicy::FullRow ||
                              !widePanels(gemm.getA()) ||
                              !widePanels(gemm.getB()))))
      part = getWarpPartition(gemm.getM(), gemm.getN(),
                              getThreads(gemm) / kWarpSize, gemm.getPolicy(),
                              16, 8)
                 .value_or(WarpPartition{part.warpsM, part.warpsN});
    gemm.setMmaAttr(MmaAttr::get(ctx, MmaKind::MmaSync, 16, 8,
                                 256 / aElt.getIntOrFloatBitWidth(),
                                 part.warpsM, part.warpsN, part.repeats));
  });
  return success(ok);
}
