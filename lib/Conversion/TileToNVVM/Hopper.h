//===- Hopper.h - TMA pipelines and wgmma for sm_90a ------------*- C++ -*-===//
//
// A pipelined loop whose global -> shared copies feed gemms becomes, on
// sm_90a:
//
//   stage buffers   num_stages copies of each copied buffer, stored as
//                   swizzled panels 128, 64 or 32 bytes wide, the widest
//                   its rows fill (getPanelBytes; the layout TMA's swizzle
//                   of that width writes and wgmma's shared-memory
//                   descriptors read, WgmmaLayout.h), 1024-byte aligned;
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
// The files of the sm_90a lowering, each with one concern:
//   Tma.cpp             TMA boxes and descriptors, the copies TMA can
//                       perform, issuing TMA loads and stores;
//   TmaRing.cpp         the ring of stage buffers and mbarriers;
//   TmaPipeline.cpp     which loops get a TMA pipeline (planTmaLoop) and
//                       pipelineWithTma, which builds it;
//   WarpSpecialize.cpp  the producer warpgroup;
//   ClusterMulticast.cpp  the loads multicast in a thread-block cluster;
//   Epilogue.cpp        the accumulators' stores after the loop, through
//                       shared memory (staged, by TMA, TileLang's shared
//                       epilogue fused);
//   Wgmma.cpp           the wgmma gemm, the registers it needs, and which
//                       gemms run as wgmma (settleMmaForNVVM).
// This header is private to them.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_CONVERSION_TILETONVVM_HOPPER_H
#define TILE_LIB_CONVERSION_TILETONVVM_HOPPER_H

#include "NVVMCommon.h"

#include "tile/Conversion/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::tile::nvvm {

/// The width of the panels that the accumulators' TMA stores and the gemm
/// operands written from registers use (the 128-byte swizzle); TMA loads
/// take the width getPanelBytes gives (TmaBox::swizzle).
constexpr int64_t kPanelBytes = 128;


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

/// A box that TMA moves between a global tensor of rank 2 to 5 (a function
/// argument) and a whole R x C tile: the R rows along one dimension of the
/// tensor and the C columns along the innermost (the other dimensions of
/// the region are 1: a [1, R, 1, C] slice of [b, s, h, d]). In shared
/// memory the tile is C * bytes / S panels of R rows of S bytes, each
/// swizzled with the S-byte pattern (S = `swizzle`: 128, 64 or 32, see
/// getPanelBytes).
struct TmaBox {
  BlockArgument tensor;
  int64_t rows = 0, cols = 0, eltBytes = 0;
  int64_t swizzle = 0; // the bytes of a panel row and of its swizzle
  int64_t rowDim = 0;  // the tensor dimension of the rows
  Value descriptor;    // the function argument carrying its CUtensorMap
  /// The offsets of the region in the tensor.
  SmallVector<OpFoldResult> tensorOffsets;

  int64_t panels() const { return cols * eltBytes / swizzle; }
  int64_t panelElements() const { return swizzle / eltBytes; }
  int64_t panelBytes() const { return rows * swizzle; }
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

inline Value i32Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
}

inline Value toI32(OpBuilder &b, Location loc, Value index) {
  return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), index);
}

/// The shared-memory pointer at shared address `address` (an index).
inline Value sharedPtr(OpBuilder &b, Location loc, Value address) {
  Value i64 = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), address);
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), i64);
}

inline Value addIndex(OpBuilder &b, Location loc, Value x, int64_t y) {
  if (y == 0)
    return x;
  return arith::AddIOp::create(b, loc, x, indexConst(b, loc, y));
}

//===----------------------------------------------------------------------===//
// TMA boxes, descriptors, loads and stores (Tma.cpp)
//===----------------------------------------------------------------------===//

/// True when `buffer` is a shared tile buffer: a tile.alloc_shared, or
/// (once prepareKernelForNVVM placed it) its shared storage. What the TMA
/// planning asks both before placement (tile-select-mma) and after.
bool isSharedTile(Value buffer);

/// The TMA load of `copy`, if TMA can perform it: ahead of `loop` (its
/// offsets computable from the iteration), or, with no loop, once before
/// the loop that reads it (offsets computable from the block ids).
std::optional<TmaLoad> asTmaLoad(CopyOp copy, PipelinedOp loop,
                                 func::FuncOp func);

/// The TMA box through which `copy`, a store of a 16- or 32-bit wgmma
/// accumulator tile (cast on the way) to global memory, can go: a tensor
/// whose rows are 16-byte aligned (TMA's global strides), known when it is
/// compiled. (Where the box sticks out of the tensor, TMA writes nothing.)
std::optional<TmaBox> asTmaStore(CopyOp copy, func::FuncOp func);

/// The descriptor argument of `func` for TMA copies of `box` from its
/// tensor (or, with `store`, to it), added on first use. A store's
/// descriptor is marked: the launcher cannot hand TMA a padded copy of a
/// tensor it writes.
Value getDescriptorArgument(func::FuncOp func, const TmaBox &box,
                            bool store = false);

/// A box's tensor `offsets` as values where `b` builds: constants made
/// there, values through `valueAt`.
SmallVector<Value> offsetValues(OpBuilder &b, Location l,
                                ArrayRef<OpFoldResult> offsets,
                                function_ref<Value(Value)> valueAt);

/// The TMA coordinates (i32, innermost first) of panel `p` of `box` at
/// tensor `offsets`: the panel's columns in the innermost dimension.
SmallVector<Value> panelCoords(OpBuilder &b, Location l, const TmaBox &box,
                               ArrayRef<Value> offsets, int64_t p);

/// Issues the TMA loads of `load`'s panels at source `offsets` into the
/// buffer at shared address `dst`, completing on mbarrier `bar`. A
/// multicast load (`rank` the block's rank in its cluster of `size`) loads
/// the rank-th 1 / size of the rows into the buffer of every block of the
/// cluster, completing on each block's barrier at `bar`'s offset.
void issueTmaLoad(OpBuilder &b, Location l, const TmaLoad &load,
                  ArrayRef<Value> offsets, Value dst, Value bar,
                  int64_t size = 1, Value rank = Value());

/// Issues the TMA stores of panels `first` .. `last` - 1 of `box` (its
/// descriptor set) from consecutive panel buffers at shared address
/// `slotBase`, as one bulk group (one thread).
void issueTmaStores(OpBuilder &b, Location l, const TmaBox &box,
                    Value slotBase, int64_t first, int64_t last);

/// The buffer `load` fills is read, inside `loop`, through a view of its
/// panels at shared address `base` + its offset; its copy is erased (TMA
/// performs it).
void readThroughPanels(RewriterBase &rewriter, Location loc, TmaLoad &load,
                       Value base, PipelinedOp loop);

//===----------------------------------------------------------------------===//
// Thread-block cluster multicast (ClusterMulticast.cpp)
//===----------------------------------------------------------------------===//

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

/// The multicast of a specialized, once-per-block `loop` in a kernel
/// launched in clusters along one grid dimension, marking the `loads` it
/// multicasts (rows that split into 8-row multiples, boxes the same in
/// every block of the cluster); none when no load qualifies, or when the
/// blocks of a cluster might run different iterations.
ClusterMulticast planMulticast(PipelinedOp loop, KernelOp kernel,
                               MutableArrayRef<TmaLoad> loads);

//===----------------------------------------------------------------------===//
// The ring of stage buffers and mbarriers (TmaRing.cpp)
//===----------------------------------------------------------------------===//

/// Waits until the phase of parity `parity` (an index, 0 or 1) of the
/// mbarrier at `bar` has completed.
void waitParity(OpBuilder &b, Location l, Value bar, Value parity);

/// The loop that runs `loop` once per tile of a persistent block
/// (T.Persistent): an scf.for directly in the kernel with `loop` in its
/// body. Null when `loop` is directly in the kernel (or elsewhere).
scf::ForOp tileLoopOf(PipelinedOp loop, KernelOp kernel);

/// The iterations of a loop from `lower` to `upper` by `step`.
Value tripCount(OpBuilder &b, Location l, Value lower, Value upper,
                Value step);

/// The iterations of a loop (bounds `lower`, `upper`, `step`, the same in
/// every run) in the runs of its tile loop before the one at `tile` (from
/// `tileLower` by `tileStep`): where this run's iterations start in the
/// ring that all runs share.
Value iterationsBefore(OpBuilder &b, Location l, Value tile, Value tileLower,
                       Value tileStep, Value lower, Value upper, Value step);

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
                     function_ref<Value(Value)> valueAt) const;

  /// The mbarrier of `stage` in the array at `offset`.
  Value barrierAt(OpBuilder &b, Location l, int64_t offset,
                  Value stage) const;

  /// The shared address of `stage`.
  Value stageAt(OpBuilder &b, Location l, Value stage) const;

  /// Arms the stage's full barrier and loads iteration `iv` into it (one
  /// thread). `valueAt` gives a value of the loop body at `iv`.
  void issue(OpBuilder &b, Location l, Value iv, Value stage,
             function_ref<Value(Value, IRMapping &)> valueAt) const;

  /// The consumer threads' release of `stage` to the producer: every
  /// thread arrives on its empty barrier; with multicast, one lane a warp
  /// arrives on the stage's empty barrier in every block of the cluster
  /// (whose producers load into this block's stage too).
  void release(OpBuilder &b, Location l, Value stage) const;

  /// The arrivals that complete a phase of an empty barrier.
  int64_t emptyArrivals(int64_t consumerThreads) const {
    return multicast ? consumerThreads / kWarpSize * multicast.size
                     : consumerThreads;
  }
};

//===----------------------------------------------------------------------===//
// The producer warpgroup (WarpSpecialize.cpp)
//===----------------------------------------------------------------------===//

/// True when `loop`, a TMA pipeline loading `plan`, can get a producer
/// warpgroup: it is the kernel's only pipelined loop, directly in its body
/// (or in its tile loop, loading no resident buffer), the block has whole
/// warpgroups and room for one more, and the producer can compute the loop
/// bounds and the copies' offsets. `tile.warp_specialize = false` on the
/// loop opts out.
struct TmaLoopPlan;
bool canSpecialize(PipelinedOp loop, KernelOp kernel, const TmaLoopPlan &plan);

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
                          ArrayRef<GemmOp> wgmmas);

//===----------------------------------------------------------------------===//
// The accumulators' stores after the loop (Epilogue.cpp)
//===----------------------------------------------------------------------===//

/// The bytes of the row-padded shared tile through which `user`, a store
/// of `accumulator` to global memory after `loop`, can go (see
/// stageEpilogue); 0 when it cannot.
int64_t stagedEpilogueBytes(PipelinedOp loop, Value accumulator,
                            Operation *user);

/// Stores of `accumulator` to global memory after `loop` go through
/// `regionBytes` of free shared memory at shared address `region` (the
/// loop's stage buffers, or a buffer of their own when the loop runs once
/// per tile and the next tile's loads may already be in the stages): every
/// thread writes its registers (in pairs) into a row-padded shared tile,
/// then the block stores the tile in 16-byte vectors, whole rows at a
/// time, instead of each thread storing its scattered pairs.
void stageEpilogue(RewriterBase &rewriter, PipelinedOp loop, Value accumulator,
                   Value smemBase, Value region, int64_t regionBytes);

/// TileLang's epilogue through a shared tile of an accumulator after
/// `loop` (see getSharedEpilogue) becomes one store of the accumulator to
/// C, placed at the second copy, which goes out through the loop's
/// epilogue (by TMA where it can). The tile is left unused and takes no
/// shared memory.
void fuseSharedEpilogue(RewriterBase &rewriter, PipelinedOp loop,
                        Value accumulator);

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
                     const Storage &acc, Value slotBase, int64_t slots);

//===----------------------------------------------------------------------===//
// wgmma (Wgmma.cpp)
//===----------------------------------------------------------------------===//

/// Waits until at most `pending` wgmma groups of this thread are in flight.
/// The accumulator registers pass through the wait, so that nothing reads
/// them before the wgmmas that write them have completed.
void waitForWgmma(OpBuilder &b, Location loc, const Storage &c,
                  int64_t pending);

/// Fails at the first gemm of `wgmmas` one of whose wgmma instructions ptxas
/// could not assemble in a block of `threads` threads plus, with
/// `producer`, a producer warpgroup: its accumulator (m64nN: N / 2 f32
/// registers a thread), its A fragment when A comes from registers and
/// kWgmmaExtraRegisters must fit the registers a thread has, since ptxas
/// cannot spill an accumulator ("Insufficient registers").
LogicalResult verifyWgmmaRegisters(ArrayRef<GemmOp> wgmmas, int64_t threads,
                                   bool producer);

//===----------------------------------------------------------------------===//
// Which loops get a TMA pipeline (TmaPipeline.cpp)
//===----------------------------------------------------------------------===//

/// What a TMA pipeline of a loop loads, and the gemms it feeds.
struct TmaLoopPlan {
  SmallVector<TmaLoad> loads, resident;
  /// Gemm operands the loop writes from registers (one 128-byte panel a
  /// row, beside a TMA-loaded operand of a gemm whose warpgroups split N:
  /// DeepSeek MLA's S_shared), which wgmma reads from the ring's region.
  SmallVector<Value> written;
  llvm::DenseSet<Value> buffers; // the shared buffers TMA fills, and those
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
                runsAsWgmma);

/// The TMA pipeline tile-select-mma found for `loop`: planTmaLoop with the
/// gemms whose #tile.mma asks for wgmma (B loaded by TMA, A too or from
/// registers).
std::optional<TmaLoopPlan> planSelectedTmaLoop(PipelinedOp loop);

} // namespace mlir::tile::nvvm

#endif // TILE_LIB_CONVERSION_TILETONVVM_HOPPER_H
