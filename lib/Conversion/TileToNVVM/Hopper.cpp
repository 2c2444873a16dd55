//===- Hopper.cpp - TMA pipelines and wgmma for sm_90a --------------------===//
//
// A pipelined loop whose global -> shared copies feed gemms becomes, on
// sm_90a:
//
//   stage buffers   num_stages copies of each copied buffer, stored as
//                   128-byte-swizzled panels (the layout TMA's 128-byte
//                   swizzle writes and wgmma's shared-memory descriptors
//                   read), 1024-byte aligned;
//   full barriers   one mbarrier per stage, armed with the stage's byte
//                   count by the thread that issues its TMA loads, which
//                   complete it;
//   resident        buffers that one copy fills before the loop and only
//   buffers         the loop's gemms read (flash attention's Q): loaded
//                   once by TMA, after the stages, with their own mbarrier;
//   the gemms       wgmma from shared-memory descriptors (A possibly from
//                   registers: flash attention's P), each group left in
//                   flight one iteration (wgmma.wait_group 1) in a GEMM
//                   loop; a loop that reads an accumulator itself waits
//                   after each gemm and frees each stage in its iteration.
//
// Sources are function arguments of rank 2 to 5; a copy's region is 1 in
// every dimension but its rows' and the innermost (K[b, s0:s1, h, :]).
//
// With warp specialization (the default) the block gets a producer
// warpgroup after its own threads: its first thread waits on a stage's
// *empty* mbarrier (every consumer thread arrives once its wgmmas of that
// stage completed) and loads the next iteration into it; its second warp
// waits on each full barrier and hands the stage to the consumers with a
// named barrier (bar.arrive / bar.sync: a spin loop between in-flight
// wgmmas would make ptxas serialize them all; one per consumer warpgroup
// where the loop does more than its wgmmas, so that the warpgroups drift
// apart). setmaxnreg moves registers
// from the producer to the consumers. Without it, thread 0 loads
// iteration i + S - 1 after a block barrier at the end of iteration i and
// every thread waits on the full barriers.
//
// After the loop the accumulators leave through shared memory: the free
// stage buffers, or (once per tile of a persistent block, while the
// producer already loads the next tile) a buffer of their own. Where C's
// rows are 16-byte aligned (static row length) the consumers write
// 128-byte-swizzled panels (stmatrix for 16-bit elements) and thread 0
// stores them by TMA (cp.async.bulk.tensor shared::cta -> global), which
// clips at the tensor's edges; otherwise they write a row-padded tile and
// store it in 16-byte vectors. T.copy(..., disable_tma=True) keeps a copy
// from TMA.
//
// In thread-block clusters along one grid dimension, loads whose box is the
// same in every block of the cluster are multicast (ClusterMulticast): each
// block loads a slice of the rows into the stages of all, and a stage is
// free once the consumers of every block released it.
//
// TMA descriptors are kernel parameters (a CUtensorMap passed by value, a
// grid constant): the function gets one `!llvm.ptr` argument per distinct
// (tensor, box), tagged `tile.tma = {param, box, swizzle}`, and the launcher
// builds the descriptor from the tensor it is called with. TMA fills the
// parts of a box outside the tensor with zeros, so edge tiles need nothing.
//
//===----------------------------------------------------------------------===//

#include "NVVMCommon.h"

#include "tile/Conversion/TileToNVVM/TileToNVVM.h"

#include "tile/Conversion/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::nvvm;

namespace {

constexpr int64_t kPanelBytes = 128;

/// A box that TMA moves between a global tensor of rank 2 to 5 (a function
/// argument) and a whole R x C tile: the R rows along one dimension of the
/// tensor and the C columns along the innermost (the other dimensions of
/// the region are 1: a [1, R, 1, C] slice of [b, s, h, d]). In shared
/// memory the tile is C * bytes / 128 panels of R rows of 128 bytes, each
/// swizzled with the 128-byte pattern.
struct TmaBox {
  BlockArgument tensor;
  int64_t rows = 0, cols = 0, eltBytes = 0;
  int64_t rowDim = 0; // the tensor dimension of the rows
  Value descriptor;   // the function argument carrying its CUtensorMap
  /// The offsets of the region in the tensor.
  SmallVector<OpFoldResult> tensorOffsets;

  int64_t panels() const { return cols * eltBytes / kPanelBytes; }
  int64_t panelElements() const { return kPanelBytes / eltBytes; }
  int64_t panelBytes() const { return rows * kPanelBytes; }
  int64_t bytes() const { return rows * cols * eltBytes; }
  int64_t rank() const { return tensorOffsets.size(); }
  /// The box of one panel, outermost dimension first.
  SmallVector<int64_t> box() const {
    SmallVector<int64_t> b(rank(), 1);
    b[rowDim] = rows;
    b.back() = panelElements();
    return b;
  }
};

/// A global -> shared copy that TMA performs.
struct TmaLoad : TmaBox {
  CopyOp copy;
  int64_t offset = 0; // of the buffer within a stage
  /// Loaded once for the whole thread-block cluster (see ClusterMulticast):
  /// each block loads a slice of the rows into every block's buffer.
  bool multicast = false;
};

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
  if (sizes.back() != box.cols || box.rows < 1 || box.rows > 256 ||
      (box.cols * box.eltBytes) % kPanelBytes != 0)
    return std::nullopt;
  return box;
}

Value i32Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
}

Value toI32(OpBuilder &b, Location loc, Value index) {
  return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), index);
}

/// The shared-memory pointer at shared address `address` (an index).
Value sharedPtr(OpBuilder &b, Location loc, Value address) {
  Value i64 = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), address);
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), i64);
}

Value addIndex(OpBuilder &b, Location loc, Value x, int64_t y) {
  if (y == 0)
    return x;
  return arith::AddIOp::create(b, loc, x, indexConst(b, loc, y));
}

/// True when `buffer` is a shared tile buffer: a tile.alloc_shared, or
/// (once prepareKernelForNVVM placed it) its shared storage. What the TMA
/// planning asks both before placement (tile-select-mma) and after.
bool isSharedTile(Value buffer) {
  if (getScope(cast<MemRefType>(buffer.getType())) != Scope::Shared)
    return false;
  return buffer.getDefiningOp<AllocSharedOp>() || getStorage(buffer);
}

/// The TMA load of `copy`, if TMA can perform it: ahead of `loop` (its
/// offsets computable from the iteration), or, with no loop, once before
/// the loop that reads it (offsets computable from the block ids).
std::optional<TmaLoad> asTmaLoad(CopyOp copy, PipelinedOp loop,
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

/// The TMA box through which `copy`, a store of a 16- or 32-bit wgmma
/// accumulator tile (cast on the way) to global memory, can go: a tensor
/// whose rows are 16-byte aligned (TMA's global strides), known when it is
/// compiled. (Where the box sticks out of the tensor, TMA writes nothing.)
std::optional<TmaBox> asTmaStore(CopyOp copy, func::FuncOp func) {
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
  return tmaBoxOf(copy.getTarget(), copy.getMixedTargetOffsets(),
                  copy.getTargetSizes(), fragType, func);
}

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

/// The descriptor argument of `func` for TMA copies of `box` from its
/// tensor (or, with `store`, to it), added on first use. A store's
/// descriptor is marked: the launcher cannot hand TMA a padded copy of a
/// tensor it writes.
Value getDescriptorArgument(func::FuncOp func, const TmaBox &box,
                            bool store = false) {
  MLIRContext *ctx = func.getContext();
  Builder b(ctx);
  SmallVector<NamedAttribute> fields = {
      b.getNamedAttr("param", b.getI64IntegerAttr(box.tensor.getArgNumber())),
      b.getNamedAttr("box", b.getDenseI64ArrayAttr(box.box())),
      b.getNamedAttr("swizzle", b.getI64IntegerAttr(kPanelBytes))};
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

/// Waits until at most `pending` wgmma groups of this thread are in flight.
/// The accumulator registers pass through the wait, so that nothing reads
/// them before the wgmmas that write them have completed.
void waitForWgmma(OpBuilder &b, Location loc, const Storage &c,
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

/// Suspend-time hint of the mbarrier waits (nanoseconds).
constexpr int64_t kWaitSuspendHintNs = 10000000;

/// Waits until the phase of parity `parity` (an index, 0 or 1) of the
/// mbarrier at `bar` has completed.
void waitParity(OpBuilder &b, Location l, Value bar, Value parity) {
  NVVM::MBarrierTryWaitParityOp::create(b, l, bar, toI32(b, l, parity),
                                        i32Const(b, l, kWaitSuspendHintNs));
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


/// Registers of the producer warpgroup after setmaxnreg, the register file
/// of an SM and the most a thread may hold.
constexpr int64_t kProducerRegisters = 40;
constexpr int64_t kRegisterFile = 65536;
constexpr int64_t kMaxRegisters = 240;
constexpr int64_t kMaxThreadRegisters = 255;
/// Accumulator registers per consumer thread from which the producer hands
/// registers over (m64n192 and up).
constexpr int64_t kRebalanceAccumulators = 96;
/// Named barriers: 0 is the whole block's, 1 the consumers' (see
/// finishKernelForNVVM), 2 .. 2 + S * G - 1 hand the stages to G groups of
/// consumers (TmaRing::handoffGroups).
constexpr int64_t kFirstStageBarrier = 2;
constexpr int64_t kNamedBarriers = 16;

/// The loop that runs `loop` once per tile of a persistent block
/// (T.Persistent): an scf.for directly in the kernel with `loop` in its
/// body. Null when `loop` is directly in the kernel (or elsewhere).
scf::ForOp tileLoopOf(PipelinedOp loop, KernelOp kernel) {
  auto tiles = dyn_cast<scf::ForOp>(loop->getParentOp());
  if (!tiles || tiles->getParentOp() != kernel.getOperation() ||
      tiles.getNumRegionIterArgs() != 0)
    return {};
  return tiles;
}

/// The iterations of a loop from `lower` to `upper` by `step`.
Value tripCount(OpBuilder &b, Location l, Value lower, Value upper,
                Value step) {
  return arith::MaxSIOp::create(
      b, l,
      arith::CeilDivSIOp::create(b, l, arith::SubIOp::create(b, l, upper, lower),
                                 step),
      indexConst(b, l, 0));
}

/// The iterations of a loop (bounds `lower`, `upper`, `step`, the same in
/// every run) in the runs of its tile loop before the one at `tile` (from
/// `tileLower` by `tileStep`): where this run's iterations start in the
/// ring that all runs share.
Value iterationsBefore(OpBuilder &b, Location l, Value tile, Value tileLower,
                       Value tileStep, Value lower, Value upper, Value step) {
  Value runs = arith::DivUIOp::create(
      b, l, arith::SubIOp::create(b, l, tile, tileLower), tileStep);
  return arith::MulIOp::create(b, l, runs, tripCount(b, l, lower, upper, step));
}

/// True when `loop` can get a producer warpgroup: it is the kernel's only
/// pipelined loop, directly in its body (or in its tile loop), the block
/// has whole warpgroups and room for one more, and the producer can
/// compute the loop bounds and the copies' offsets.
/// `tile.warp_specialize = false` on the loop opts out.
bool canSpecialize(PipelinedOp loop, KernelOp kernel,
                   ArrayRef<TmaLoad> loads) {
  if (auto flag = loop->getAttrOfType<BoolAttr>(kWarpSpecializeAttr);
      flag && !flag.getValue())
    return false;
  int64_t threads = kernel.getThreads();
  scf::ForOp tiles = tileLoopOf(loop, kernel);
  if (loop.getNumStages() > kNamedBarriers - kFirstStageBarrier ||
      (loop->getParentOp() != kernel.getOperation() && !tiles) ||
      threads % kWarpgroupSize != 0 ||
      threads + kWarpgroupSize > 1024 || kernel->hasAttr(kProducerThreadsAttr))
    return false;
  int64_t loops = 0;
  kernel.walk([&](PipelinedOp) { ++loops; });
  if (loops != 1)
    return false;
  // The producer recomputes them: from the block ids, values from outside
  // the kernel, pure ops and (the loads' offsets) the induction variables.
  // The loop's bounds are the same in every tile.
  SmallVector<Value> bounds = {loop.getLower(), loop.getUpper(),
                               loop.getStep()};
  SmallVector<Value> ivs = {loop.getInductionVar()};
  if (tiles) {
    bounds.append({tiles.getLowerBound(), tiles.getUpperBound(),
                   tiles.getStep()});
    ivs.push_back(tiles.getInductionVar());
  }
  for (Value v : bounds)
    if (!computableFrom(v, kernel, {}))
      return false;
  for (const TmaLoad &load : loads)
    for (OpFoldResult ofr : load.tensorOffsets)
      if (auto v = dyn_cast<Value>(ofr); v && !computableFrom(v, kernel, ivs))
        return false;
  return true;
}


/// TMA multicast in a thread-block cluster of `size` blocks along grid
/// dimension `dim` (the other extents 1): the loads whose box is the same
/// in every block of the cluster are issued once for all of them, each
/// block loading 1 / size of the rows into the buffers of all. A block's
/// full barrier still expects the whole stage; a stage is free once the
/// consumers of every block of the cluster released it (their empty
/// barriers count every block's consumer warps).
struct ClusterMulticast {
  int64_t size = 1;
  int64_t dim = 0;
  explicit operator bool() const { return size > 1; }
};

/// True when `v` is the same in every block of a cluster of `size` blocks
/// along grid dimension `dim`: computed by pure ops from values defined
/// outside `kernel`, block indices of other dimensions, the block index of
/// `dim` divided by a multiple of `size` (T.use_swizzle walks clusters so)
/// and `ivs`.
bool clusterUniform(Value v, KernelOp kernel, int64_t dim, int64_t size,
                    ValueRange ivs) {
  if (llvm::is_contained(ivs, v))
    return true;
  Operation *def = v.getDefiningOp();
  if (!def) {
    if (!kernel->isAncestor(v.getParentBlock()->getParentOp()))
      return true;
    auto arg = cast<BlockArgument>(v);
    return arg.getOwner() == &kernel.getBodyBlock() &&
           arg.getArgNumber() != dim;
  }
  if (!kernel->isAncestor(def))
    return true;
  if (isa<arith::DivUIOp, arith::DivSIOp, arith::FloorDivSIOp>(def)) {
    auto arg = dyn_cast<BlockArgument>(def->getOperand(0));
    std::optional<int64_t> divisor = getConstantIntValue(def->getOperand(1));
    if (arg && arg.getOwner() == &kernel.getBodyBlock() &&
        arg.getArgNumber() == dim && divisor && *divisor > 0 &&
        *divisor % size == 0)
      return true;
  }
  return isMemoryEffectFree(def) && def->getNumRegions() == 0 &&
         llvm::all_of(def->getOperands(), [&](Value o) {
           return clusterUniform(o, kernel, dim, size, ivs);
         });
}

/// The multicast of a specialized, once-per-block `loop` in a kernel
/// launched in clusters along one grid dimension, marking the `loads` it
/// multicasts (rows that split into 8-row multiples, boxes the same in
/// every block of the cluster); none when no load qualifies, or when the
/// blocks of a cluster might run different iterations.
ClusterMulticast planMulticast(PipelinedOp loop, KernelOp kernel,
                               MutableArrayRef<TmaLoad> loads) {
  std::optional<ArrayRef<int64_t>> cluster = kernel.getCluster();
  if (!cluster)
    return {};
  ClusterMulticast plan;
  for (auto [d, extent] : llvm::enumerate(*cluster)) {
    if (extent == 1)
      continue;
    if (plan)
      return {}; // clusters along two dimensions: not yet
    plan.size = extent;
    plan.dim = d;
  }
  if (!plan)
    return {};
  for (Value bound : {loop.getLower(), loop.getUpper(), loop.getStep()})
    if (!clusterUniform(bound, kernel, plan.dim, plan.size, {}))
      return {};
  bool any = false;
  for (TmaLoad &load : loads) {
    load.multicast =
        load.rows % (8 * plan.size) == 0 &&
        llvm::all_of(load.tensorOffsets, [&](OpFoldResult ofr) {
          auto v = dyn_cast<Value>(ofr);
          return !v || clusterUniform(v, kernel, plan.dim, plan.size,
                                      loop.getInductionVar());
        });
    any |= load.multicast;
  }
  return any ? plan : ClusterMulticast();
}

/// The bytes of the row-padded shared tile through which `user`, a store
/// of `accumulator` to global memory after `loop`, can go (see
/// stageEpilogue); 0 when it cannot.
int64_t stagedEpilogueBytes(PipelinedOp loop, Value accumulator,
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

/// Stores of `accumulator` to global memory after `loop` go through
/// `regionBytes` of free shared memory at shared address `region` (the
/// loop's stage buffers, or a buffer of their own when the loop runs once
/// per tile and the next tile's loads may already be in the stages): every
/// thread writes its registers (in pairs) into a row-padded shared tile,
/// then the block stores the tile in 16-byte vectors, whole rows at a
/// time, instead of each thread storing its scattered pairs.
void stageEpilogue(RewriterBase &rewriter, PipelinedOp loop, Value accumulator,
                   Value smemBase, Value region, int64_t regionBytes) {
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


/// TileLang's epilogue through a shared tile of an accumulator after
/// `loop` (see getSharedEpilogue) becomes one store of the accumulator to
/// C, placed at the second copy, which goes out through the loop's
/// epilogue (by TMA where it can). The tile is left unused and takes no
/// shared memory.
void fuseSharedEpilogue(RewriterBase &rewriter, PipelinedOp loop,
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

/// A box's tensor `offsets` as values where `b` builds: constants made
/// there, values through `valueAt`.
SmallVector<Value> offsetValues(OpBuilder &b, Location l,
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

/// The TMA coordinates (i32, innermost first) of panel `p` of `box` at
/// tensor `offsets`: the panel's columns in the innermost dimension.
SmallVector<Value> panelCoords(OpBuilder &b, Location l, const TmaBox &box,
                               ArrayRef<Value> offsets, int64_t p) {
  SmallVector<Value> coords;
  for (int64_t d = box.rank() - 1; d >= 0; --d)
    coords.push_back(toI32(
        b, l,
        d + 1 == box.rank() ? addIndex(b, l, offsets[d], p * box.panelElements())
                            : offsets[d]));
  return coords;
}

/// `copy`, a store of the wgmma accumulator `acc` to global memory, by TMA
/// through `slots` panel buffers at shared address `slotBase` (1024-byte
/// aligned): in rounds of `slots` panels, every consumer thread writes its
/// registers of a round's panels into them (stmatrix for 16-bit elements,
/// pair stores for 32-bit), in the 128-byte-swizzled layout, then thread 0
/// issues one TMA store per panel. Before a round writes the slots, the
/// stores that read them (an earlier round's, or an earlier tile's) have
/// read them; pipelineWithTma makes thread 0 wait for its stores before the
/// block exits.
void storeThroughTma(RewriterBase &rewriter, CopyOp copy, TmaBox box,
                     const Storage &acc, Value slotBase, int64_t slots) {
  MLIRContext *ctx = copy.getContext();
  Location loc = copy.getLoc();
  auto func = copy->getParentOfType<func::FuncOp>();
  box.descriptor = getDescriptorArgument(func, box, /*store=*/true);
  rewriter.setInsertionPoint(copy);
  Type elt = copy.getTarget().getType().getElementType();
  int64_t bits = elt.getIntOrFloatBitWidth();
  FragmentLayoutAttr layout = acc.layout;
  Value tid = threadId(rewriter, loc);
  Value lane = arith::RemUIOp::create(rewriter, loc, tid,
                                      indexConst(rewriter, loc, kWarpSize));
  // The wgmma partition (see wgmmaWarpRow): every lane holds its elements
  // in the registers that lane 0 of warp 0 holds its in.
  int64_t rows = acc.layout.getShape()[0];
  int64_t repeats = rows / (64 * (getThreads(copy) / kWarpgroupSize));
  Value warpRow = wgmmaWarpRow(
      rewriter, loc,
      arith::DivUIOp::create(rewriter, loc, tid,
                             indexConst(rewriter, loc, kWarpSize)),
      repeats);
  auto reg = [&](int64_t row, int64_t col) {
    return layout.apply({row, col}).second;
  };
  auto element = [&](OpBuilder &b, Location l, int64_t r) {
    Value v = memref::LoadOp::create(b, l, acc.memref,
                                     ValueRange{indexConst(b, l, r)});
    return convertElements(b, l, v, elt);
  };
  auto pair = [&](OpBuilder &b, Location l, int64_t row, int64_t col) {
    return vector::FromElementsOp::create(
        b, l, VectorType::get({2}, elt),
        ValueRange{element(b, l, reg(row, col)),
                   element(b, l, reg(row, col + 1))});
  };
  // The shared address of 16-byte chunk `chunk` of row `row` of the panel
  // at `panel` (128-byte swizzle: the chunk XOR the row mod 8).
  auto chunkAddress = [&](OpBuilder &b, Location l, Value panel, Value row,
                          Value chunk) {
    Value swizzled = arith::XOrIOp::create(
        b, l, chunk, arith::RemUIOp::create(b, l, row, indexConst(b, l, 8)));
    return arith::AddIOp::create(
        b, l, panel,
        arith::AddIOp::create(
            b, l, arith::MulIOp::create(b, l, row, indexConst(b, l, 128)),
            arith::MulIOp::create(b, l, swizzled, indexConst(b, l, 16))));
  };
  auto leaderDoes = [&](function_ref<void(OpBuilder &, Location)> body) {
    Value isLeader = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::eq, tid,
        indexConst(rewriter, loc, 0));
    scf::IfOp::create(rewriter, loc, isLeader, [&](OpBuilder &b, Location l) {
      body(b, l);
      scf::YieldOp::create(b, l);
    });
  };

  for (int64_t first = 0; first < box.panels(); first += slots) {
    int64_t last = std::min(first + slots, box.panels());
    leaderDoes([&](OpBuilder &b, Location l) {
      NVVM::CpAsyncBulkWaitGroupOp::create(b, l, 0, rewriter.getUnitAttr());
    });
    barrier(rewriter, loc);
    for (int64_t p = first; p < last; ++p) {
      Value panel = addIndex(rewriter, loc, slotBase,
                             (p - first) * box.panelBytes());
      int64_t col0 = p * box.panelElements();
      if (bits == 16) {
        // stmatrix.x4 per 16 x 16 block of the warp's rows: lanes 8i ..
        // 8i + 7 give the rows of matrix i (rows +0 / +8, columns +0 / +8),
        // each lane's registers its pairs of the four.
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
        Value half =
            arith::DivUIOp::create(rewriter, loc, lane,
                                   indexConst(rewriter, loc, 16));
        for (int64_t strip = 0; strip < repeats; ++strip)
          for (int64_t j = 0; j < box.panelElements() / 16; ++j) {
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
                          chunkAddress(rewriter, loc, panel,
                                       addIndex(rewriter, loc, row, 64 * strip),
                                       chunk)),
                words, NVVM::MMALayout::row,
                NVVM::LdStMatrixShapeAttr::get(ctx, 8, 8),
                NVVM::LdStMatrixEltType::B16);
          }
      } else {
        // 32-bit elements: each pair (8 bytes) on its own.
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
        Value chunkOfQuad = arith::DivUIOp::create(
            rewriter, loc, quad, indexConst(rewriter, loc, 2));
        for (int64_t n = 0; n < box.panelElements() / 8; ++n)
          for (int64_t dr = 0; dr < 64 * repeats; dr += 8) {
            if (dr % 64 >= 16)
              continue; // rows of other warps
            Value row = addIndex(rewriter, loc, laneRow, dr);
            Value address = arith::AddIOp::create(
                rewriter, loc,
                chunkAddress(rewriter, loc, panel, row,
                             addIndex(rewriter, loc, chunkOfQuad, 2 * n)),
                inChunk);
            LLVM::StoreOp::create(rewriter, loc,
                                  pair(rewriter, loc, dr, col0 + 8 * n),
                                  sharedPtr(rewriter, loc, address),
                                  /*alignment=*/8);
          }
      }
    }
    // The writes, visible to TMA (the async proxy) once all are done.
    NVVM::FenceProxyOp::create(
        rewriter, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
    barrier(rewriter, loc);
    leaderDoes([&](OpBuilder &b, Location l) {
      SmallVector<Value> offsets = offsetValues(
          b, l, box.tensorOffsets, [](Value v) { return v; });
      for (int64_t p = first; p < last; ++p)
        NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
            b, l, box.descriptor,
            sharedPtr(b, l, addIndex(b, l, slotBase,
                                     (p - first) * box.panelBytes())),
            panelCoords(b, l, box, offsets, p), Value(),
            NVVM::TMAStoreMode::TILE, Value());
      NVVM::CpAsyncBulkCommitGroupOp::create(b, l);
    });
  }
  rewriter.eraseOp(copy);
}

/// Issues the TMA loads of `load`'s panels at source `offsets` into the
/// buffer at shared address `dst`, completing on mbarrier `bar`. A
/// multicast load (`rank` the block's rank in its cluster of `size`) loads
/// the rank-th 1 / size of the rows into the buffer of every block of the
/// cluster, completing on each block's barrier at `bar`'s offset.
void issueTmaLoad(OpBuilder &b, Location l, const TmaLoad &load,
                  ArrayRef<Value> offsets, Value dst, Value bar,
                  int64_t size = 1, Value rank = Value()) {
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
        arith::MulIOp::create(b, l, sliceRows, indexConst(b, l, kPanelBytes)));
    mask = arith::ConstantIntOp::create(b, l, b.getI16Type(),
                                        (int64_t(1) << size) - 1);
  }
  for (int64_t p = 0; p < load.panels(); ++p) {
    SmallVector<Value> coords = panelCoords(b, l, load, origin, p);
    Value panel = sharedPtr(b, l, addIndex(b, l, dst, p * load.rows *
                                                          kPanelBytes));
    Value cluster = LLVM::AddrSpaceCastOp::create(
        b, l, LLVM::LLVMPointerType::get(ctx, 7), panel);
    NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
        b, l, cluster, load.descriptor, coords, bar, ValueRange{}, mask,
        Value(), NVVM::TMALoadModeAttr::get(ctx, NVVM::TMALoadMode::TILE),
        b.getBoolAttr(false), nullptr, Value());
  }
}

/// The buffer `load` fills is read, inside `loop`, through a view of its
/// panels at shared address `base` + its offset; its copy is erased (TMA
/// performs it).
void readThroughPanels(RewriterBase &rewriter, Location loc, TmaLoad &load,
                       Value base, PipelinedOp loop) {
  Value buffer = load.copy.getTarget();
  auto view = BindStorageOp::create(
      rewriter, loc, buffer.getType(), addIndex(rewriter, loc, base, load.offset));
  view.setPanelRowsAttr(rewriter.getI64IntegerAttr(load.rows));
  rewriter.replaceUsesWithIf(buffer, view.getResult(), [&](OpOperand &use) {
    return loop->isAncestor(use.getOwner()) &&
           use.getOwner() != load.copy.getOperation();
  });
  rewriter.eraseOp(load.copy);
}

/// The stage buffers and mbarriers of a TMA pipeline in shared memory
/// (`region`: the 1024-byte aligned shared address of stage 0).
struct TmaRing {
  mutable PipelinedOp loop; // op handles are not const-correct
  ArrayRef<TmaLoad> loads;
  Value region;
  int64_t numStages; // (the loop is left with num_stages = 1)
  int64_t stageBytes;
  int64_t fullOffset, emptyOffset; // of the barrier arrays, from `region`
  /// Buffers loaded once before the loop (at their offsets from `region`,
  /// after the stages), completing on one mbarrier.
  ArrayRef<TmaLoad> resident;
  int64_t residentBarrierOffset = 0;
  /// With a producer warpgroup: the groups of consumer threads that take
  /// each stage through a named barrier of their own. A loop whose body
  /// does more than its wgmmas (flash attention's softmax) gives each
  /// consumer warpgroup its own, so that the warpgroups drift apart and one
  /// computes while the other's wgmmas run; GEMM loops keep one per stage.
  int64_t handoffGroups = 1;
  /// The loop that runs `loop` once per tile of a persistent block (see
  /// tileLoopOf), if any: the ring's iterations continue across its runs.
  scf::ForOp tiles = {};
  /// The cluster the multicast loads are shared in, if any.
  ClusterMulticast multicast = {};

  /// Arms the resident barrier and loads the resident buffers (one
  /// thread). `valueAt` gives a value of the kernel where this runs.
  void issueResident(OpBuilder &b, Location l,
                     function_ref<Value(Value)> valueAt) const {
    if (resident.empty())
      return;
    MLIRContext *ctx = b.getContext();
    Value bar = sharedPtr(b, l, addIndex(b, l, region, residentBarrierOffset));
    int64_t bytes = 0;
    for (const TmaLoad &load : resident)
      bytes += load.bytes();
    NVVM::MBarrierArriveExpectTxOp::create(
        b, l, Type(), bar, i32Const(b, l, bytes),
        NVVM::MemScopeKindAttr::get(ctx, NVVM::MemScopeKind::CTA),
        b.getBoolAttr(false), Value());
    for (const TmaLoad &load : resident) {
      SmallVector<Value> offsets =
          offsetValues(b, l, load.tensorOffsets, valueAt);
      issueTmaLoad(b, l, load, offsets, addIndex(b, l, region, load.offset),
                   bar);
    }
  }

  /// The mbarrier of `stage` in the array at `offset`.
  Value barrierAt(OpBuilder &b, Location l, int64_t offset,
                  Value stage) const {
    return sharedPtr(
        b, l,
        arith::AddIOp::create(
            b, l, addIndex(b, l, region, offset),
            arith::MulIOp::create(b, l, stage, indexConst(b, l, 8))));
  }

  /// The shared address of `stage`.
  Value stageAt(OpBuilder &b, Location l, Value stage) const {
    return arith::AddIOp::create(
        b, l, region,
        arith::MulIOp::create(b, l, stage, indexConst(b, l, stageBytes)));
  }

  /// Arms the stage's full barrier and loads iteration `iv` into it (one
  /// thread). `valueAt` gives a value of the loop body at `iv`.
  void issue(OpBuilder &b, Location l, Value iv, Value stage,
             function_ref<Value(Value, IRMapping &)> valueAt) const {
    MLIRContext *ctx = b.getContext();
    Value bar = barrierAt(b, l, fullOffset, stage);
    NVVM::MBarrierArriveExpectTxOp::create(
        b, l, Type(), bar, i32Const(b, l, stageBytes),
        NVVM::MemScopeKindAttr::get(ctx, NVVM::MemScopeKind::CTA),
        b.getBoolAttr(false), Value());
    Value base = stageAt(b, l, stage);
    Value rank;
    if (multicast)
      rank = arith::IndexCastUIOp::create(
          b, l, b.getIndexType(), NVVM::ClusterId::create(b, l, b.getI32Type()));
    for (const TmaLoad &load : loads) {
      IRMapping mapping;
      mapping.map(loop.getInductionVar(), iv);
      SmallVector<Value> offsets =
          offsetValues(b, l, load.tensorOffsets,
                       [&](Value v) { return valueAt(v, mapping); });
      issueTmaLoad(b, l, load, offsets, addIndex(b, l, base, load.offset),
                   bar, multicast.size, rank);
    }
  }

  /// The consumer threads' release of `stage` to the producer: every
  /// thread arrives on its empty barrier; with multicast, one lane a warp
  /// arrives on the stage's empty barrier in every block of the cluster
  /// (whose producers load into this block's stage too).
  void release(OpBuilder &b, Location l, Value stage) const {
    MLIRContext *ctx = b.getContext();
    Value bar = barrierAt(b, l, emptyOffset, stage);
    if (!multicast) {
      NVVM::MBarrierArriveOp::create(
          b, l, Type(), bar, Value(),
          NVVM::MemScopeKindAttr::get(ctx, NVVM::MemScopeKind::CTA));
      return;
    }
    Value lane0 = arith::CmpIOp::create(
        b, l, arith::CmpIPredicate::eq,
        arith::RemUIOp::create(b, l, threadId(b, l), indexConst(b, l, kWarpSize)),
        indexConst(b, l, 0));
    scf::IfOp::create(b, l, lane0, [&](OpBuilder &tb, Location tl) {
      for (int64_t r = 0; r < multicast.size; ++r) {
        Value remote = NVVM::MapaOp::create(
            tb, tl, LLVM::LLVMPointerType::get(ctx, 7), bar,
            i32Const(tb, tl, r));
        // (CTA scope, as for a local arrive: what it orders are this
        // warp's wgmma reads of its own block's stage.)
        NVVM::MBarrierArriveOp::create(
            tb, tl, Type(), remote, Value(),
            NVVM::MemScopeKindAttr::get(ctx, NVVM::MemScopeKind::CTA));
      }
      scf::YieldOp::create(tb, tl);
    });
  }

  /// The arrivals that complete a phase of an empty barrier.
  int64_t emptyArrivals(int64_t consumerThreads) const {
    return multicast ? consumerThreads / kWarpSize * multicast.size
                     : consumerThreads;
  }
};

/// A loop over the iterations of `loop` in the producer warpgroup's code
/// (nested in a copy of its tile loop `tiles`, if any), its
/// bounds recomputed there: body(builder, loc, iv, slot, outer), with the
/// iteration's ring slot and the mapping of the recomputed values.
void buildProducerLoop(
    RewriterBase &rewriter, OpBuilder &b, Location l, PipelinedOp loop,
    scf::ForOp tiles, int64_t numStages,
    function_ref<void(OpBuilder &, Location, Value, RingSlot, IRMapping &)>
        body) {
  auto kernel = loop->getParentOfType<KernelOp>();
  IRMapping outer;
  auto iterations = [&](OpBuilder &ib, Location il, Value base) {
    Value lower = cloneDependencies(rewriter, loop.getLower(), kernel, outer);
    Value upper = cloneDependencies(rewriter, loop.getUpper(), kernel, outer);
    Value step = cloneDependencies(rewriter, loop.getStep(), kernel, outer);
    scf::ForOp::create(
        ib, il, lower, upper, step, ValueRange{},
        [&](OpBuilder &lb, Location ll, Value iv, ValueRange) {
          body(lb, ll, iv, ringSlot(lb, ll, iv, lower, step, numStages, base),
               outer);
          scf::YieldOp::create(lb, ll);
        });
  };
  if (!tiles) {
    iterations(b, l, Value());
    return;
  }
  Value tileLower =
      cloneDependencies(rewriter, tiles.getLowerBound(), kernel, outer);
  Value tileUpper =
      cloneDependencies(rewriter, tiles.getUpperBound(), kernel, outer);
  Value tileStep = cloneDependencies(rewriter, tiles.getStep(), kernel, outer);
  scf::ForOp::create(
      b, l, tileLower, tileUpper, tileStep, ValueRange{},
      [&](OpBuilder &tb, Location tl, Value tile, ValueRange) {
        outer.map(tiles.getInductionVar(), tile);
        Value base = iterationsBefore(
            tb, tl, tile, tileLower, tileStep,
            cloneDependencies(rewriter, loop.getLower(), kernel, outer),
            cloneDependencies(rewriter, loop.getUpper(), kernel, outer),
            cloneDependencies(rewriter, loop.getStep(), kernel, outer));
        iterations(tb, tl, base);
        scf::YieldOp::create(tb, tl);
      });
}

/// Splits the kernel of `loop` (a TMA pipeline `ring`) into consumers and a
/// producer warpgroup: threads 0 .. T - 1 run the kernel as written (from
/// `firstOriginal` on), an extra warpgroup loads the stages. Its first
/// thread waits until the consumers release a stage (its empty barrier),
/// then arms its full barrier and issues the TMA loads; its second warp
/// waits for each full barrier and hands the stage to the consumers through
/// the stage's named barrier. setmaxnreg moves registers from the producer
/// to the consumers.
void addProducerWarpgroup(RewriterBase &rewriter, PipelinedOp loop,
                          TmaRing &ring, Operation *firstOriginal,
                          ArrayRef<GemmOp> wgmmas) {
  MLIRContext *ctx = loop.getContext();
  Location loc = loop.getLoc();
  auto kernel = loop->getParentOfType<KernelOp>();
  Block &kernelBody = kernel.getBodyBlock();
  int64_t threads = kernel.getThreads();
  int64_t numStages = ring.numStages;
  int64_t fullOffset = ring.fullOffset, emptyOffset = ring.emptyOffset;
  Operation *terminator = kernelBody.getTerminator();
  SmallVector<Operation *> moved;
  // Register arrays stay in the kernel's entry block, where LLVM promotes
  // them to registers.
  for (Operation *op = firstOriginal; op != terminator; op = op->getNextNode())
    if (!isa<memref::AllocaOp>(op))
      moved.push_back(op);
  rewriter.setInsertionPoint(terminator);
  Value consumer = arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::ult, threadId(rewriter, loc),
      indexConst(rewriter, loc, threads));
  auto split = scf::IfOp::create(rewriter, loc, TypeRange{}, consumer,
                                 /*withElseRegion=*/true);
  split->setAttr(kConsumerThreadsAttr, rewriter.getI64IntegerAttr(threads));
  Block *thenBlock = &split.getThenRegion().front();
  for (Operation *op : moved)
    rewriter.moveOpBefore(op, thenBlock->getTerminator());
  // Only when the register file, not the per-thread limit, bounds the
  // consumers and their accumulators are large (otherwise ptxas cannot
  // tell the register count at entry and ignores setmaxnreg).
  int64_t accumulators = 0;
  llvm::SmallDenseSet<Value> counted;
  for (GemmOp gemm : wgmmas)
    if (counted.insert(gemm.getC()).second)
      accumulators += getStorage(gemm.getC())->numRegisters;
  bool rebalance =
      accumulators >= kRebalanceAccumulators &&
      (threads + kWarpgroupSize) * kMaxThreadRegisters > kRegisterFile;
  int64_t consumerRegs = std::min<int64_t>(
      kMaxRegisters,
      (kRegisterFile - kWarpgroupSize * kProducerRegisters) / threads / 8 * 8);
  if (rebalance) {
    rewriter.setInsertionPointToStart(thenBlock);
    NVVM::SetMaxRegisterOp::create(
        rewriter, loc, rewriter.getI32IntegerAttr(consumerRegs),
        NVVM::SetMaxRegisterActionAttr::get(
            ctx, NVVM::SetMaxRegisterAction::increase));
  }
  rewriter.setInsertionPointToStart(&split.getElseRegion().front());
  if (rebalance)
    NVVM::SetMaxRegisterOp::create(
        rewriter, loc, rewriter.getI32IntegerAttr(kProducerRegisters),
        NVVM::SetMaxRegisterActionAttr::get(
            ctx, NVVM::SetMaxRegisterAction::decrease));
  Value isProducer = arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::eq, threadId(rewriter, loc),
      indexConst(rewriter, loc, threads));
  // Waits until iteration `iteration` (in `stage`) may load: once the
  // consumers released iteration i - S, phase (i / S) - 1 of the stage's
  // empty barrier.
  auto waitUntilFree = [&](OpBuilder &b, Location l, Value iteration,
                           Value stage) {
    Value reused = arith::CmpIOp::create(b, l, arith::CmpIPredicate::uge,
                                         iteration, indexConst(b, l, numStages));
    scf::IfOp::create(b, l, reused, [&](OpBuilder &wb, Location wl) {
      Value phase = arith::RemUIOp::create(
          wb, wl,
          addIndex(wb, wl,
                   arith::DivUIOp::create(wb, wl, iteration,
                                          indexConst(wb, wl, numStages)),
                   1),
          indexConst(wb, wl, 2));
      waitParity(wb, wl, ring.barrierAt(wb, wl, emptyOffset, stage), phase);
      scf::YieldOp::create(wb, wl);
    });
  };
  scf::IfOp::create(rewriter, loc, isProducer, [&](OpBuilder &b, Location l) {
    IRMapping residentMapping;
    ring.issueResident(b, l, [&](Value v) {
      return cloneDependencies(rewriter, v, kernel, residentMapping);
    });
    buildProducerLoop(
        rewriter, b, l, loop, ring.tiles, numStages,
        [&](OpBuilder &lb, Location ll, Value iv, RingSlot slot,
            IRMapping &outer) {
          waitUntilFree(lb, ll, slot.iteration, slot.stage);
          IRMapping mapping = outer;
          ring.issue(lb, ll, iv, slot.stage, [&](Value v, IRMapping &m) {
            for (auto [from, to] : m.getValueMap())
              mapping.map(from, to);
            return cloneDependencies(rewriter, v, kernel, mapping);
          });
        });
    if (ring.multicast) {
      // The block may exit only once no other block of the cluster will
      // arrive on its barriers: wait until every stage is free again, as
      // if iterations N .. N + S - 1 followed (every block's consumers
      // release their last stages after the loop).
      IRMapping bounds;
      Value trips = tripCount(
          b, l, cloneDependencies(rewriter, loop.getLower(), kernel, bounds),
          cloneDependencies(rewriter, loop.getUpper(), kernel, bounds),
          cloneDependencies(rewriter, loop.getStep(), kernel, bounds));
      scf::ForOp::create(
          b, l, trips, addIndex(b, l, trips, numStages), indexConst(b, l, 1),
          ValueRange{}, [&](OpBuilder &tb, Location tl, Value i, ValueRange) {
            waitUntilFree(tb, tl, i,
                          arith::RemUIOp::create(tb, tl, i,
                                                 indexConst(tb, tl, numStages)));
            scf::YieldOp::create(tb, tl);
          });
    }
    scf::YieldOp::create(b, l);
  });
  // The producer's second warp passes each stage on to the consumers: it
  // waits for the stage's full barrier, then arrives on its named barrier.
  Value tidNow = threadId(rewriter, loc);
  Value isSignaller = arith::AndIOp::create(
      rewriter, loc,
      arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::uge, tidNow,
                            indexConst(rewriter, loc, threads + kWarpSize)),
      arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, tidNow,
                            indexConst(rewriter, loc, threads + 2 * kWarpSize)));
  scf::IfOp::create(rewriter, loc, isSignaller, [&](OpBuilder &b, Location l) {
    buildProducerLoop(
        rewriter, b, l, loop, ring.tiles, numStages,
        [&](OpBuilder &lb, Location ll, Value, RingSlot slot, IRMapping &) {
          Value phase = arith::RemUIOp::create(
              lb, ll,
              arith::DivUIOp::create(lb, ll, slot.iteration,
                                     indexConst(lb, ll, numStages)),
              indexConst(lb, ll, 2));
          waitParity(lb, ll, ring.barrierAt(lb, ll, fullOffset, slot.stage),
                     phase);
          int64_t groups = ring.handoffGroups;
          Value first = arith::AddIOp::create(
              lb, ll,
              arith::MulIOp::create(lb, ll, toI32(lb, ll, slot.stage),
                                    i32Const(lb, ll, groups)),
              i32Const(lb, ll, kFirstStageBarrier));
          for (int64_t g = 0; g < groups; ++g)
            NVVM::BarrierArriveOp::create(
                lb, ll, arith::AddIOp::create(lb, ll, first, i32Const(lb, ll, g)),
                i32Const(lb, ll, threads / groups + kWarpSize));
        });
    scf::YieldOp::create(b, l);
  });
  kernel->setAttr(kProducerThreadsAttr,
                  rewriter.getI64IntegerAttr(kWarpgroupSize));
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

/// Fails at the first gemm of `wgmmas` one of whose wgmma instructions ptxas
/// could not assemble in a block of `threads` threads plus, with
/// `producer`, a producer warpgroup: its accumulator (m64nN: N / 2 f32
/// registers a thread), its A fragment when A comes from registers and
/// kWgmmaExtraRegisters must fit the registers a thread has, since ptxas
/// cannot spill an accumulator ("Insufficient registers").
LogicalResult verifyWgmmaRegisters(ArrayRef<GemmOp> wgmmas, int64_t threads,
                                   bool producer) {
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

/// What a TMA pipeline of a loop loads, and the gemms it feeds.
struct TmaLoopPlan {
  SmallVector<TmaLoad> loads, resident;
  llvm::DenseSet<Value> buffers; // the shared buffers TMA fills
  SmallVector<GemmOp> wgmmas;
};

/// The TMA pipeline `loop` can have, or std::nullopt: every global ->
/// shared copy of the body must be a TMA load, and every reader of their
/// buffers a gemm that runs as wgmma (`runsAsWgmma`, given the buffers TMA
/// fills). Changes nothing; works on tile IR before and after
/// prepareKernelForNVVM placed the buffers.
std::optional<TmaLoopPlan>
planTmaLoop(PipelinedOp loop,
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

} // namespace


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
