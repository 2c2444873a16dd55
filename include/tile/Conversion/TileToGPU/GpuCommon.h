//===- GpuCommon.h - Helpers of the target-neutral GPU lowering -*- C++ -*-===//
//
// How tile-place-buffers places tile buffers (the Storage behind each one)
// and the helpers that every GPU target's lowering patterns share: thread
// walks over fragments and shared buffers, views of the kernel's dynamic
// shared memory. Everything here builds gpu, memref, scf and arith ops
// only; nothing is specific to one vendor.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CONVERSION_TILETOGPU_GPUCOMMON_H
#define TILE_CONVERSION_TILETOGPU_GPUCOMMON_H

#include "tile/Conversion/Utils.h"
#include "tile/Dialect/Tile/IR/DiscardableAttrs.h"
#include "tile/Dialect/Tile/IR/Layouts.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace mlir::tile::tilegpu {

/// The alignment of every buffer in the kernel's dynamic shared memory.
constexpr int64_t kSharedAlignment = 128;

/// The byte offset in dynamic shared memory of the scratch buffer that
/// tile-plan-scratch reserves for an op's lowering (reduce partials,
/// reducers, scans, gemm_sp's dense A), declared in TileDialect.td.
constexpr StringLiteral kScratchAttr =
    TileDialect::ScratchOffsetAttrHelper::getNameStr();

/// The storage behind a tile buffer once tile-place-buffers placed it (its
/// tile.bind_storage).
struct Storage {
  Value memref; // shared view, register array or local array; for panel
                // buffers the shared address (index) of the buffer
  Scope scope;
  FragmentLayoutAttr layout = nullptr; // fragments only
  int64_t numRegisters = 0;            // fragments only
  int64_t swizzleChunks = 0; // swizzled 2-d shared buffers: 16-byte chunks
                             // per row
  /// Shared buffers that TMA fills for wgmma: a R x C buffer is stored as
  /// C * bytes / S panels of R rows of S bytes (S = 128, 64 or 32), each
  /// panel swizzled with the S-byte pattern (for 128: 16-byte chunk c of
  /// row r at c ^ (r mod 8)). R and S here; 0 for other buffers.
  int64_t panelRows = 0;
  int64_t panelBytes = 0;
};

std::optional<Storage> getStorage(Value buffer);

/// The bytes of dynamic shared memory placed from byte 0 on so far (the
/// pipelines' stage buffers), which the next buffers follow.
inline int64_t placedSharedBytes(KernelOp kernel) {
  auto bytes = kernel->getAttrOfType<IntegerAttr>(getSharedBytesAttrName());
  return bytes ? bytes.getInt() : 0;
}

/// Rewrites `user`, a memref.load or store outside tile.parallel of the
/// fragment `bound` of the replicated layout, into an access of the
/// thread's own copy in its register array; false (nothing changed) for
/// any other user or layout.
bool lowerScalarFragmentAccess(RewriterBase &rewriter, BindStorageOp bound,
                               Operation *user);

inline int64_t getThreads(Operation *op) {
  return op->getParentOfType<KernelOp>().getThreads();
}

/// A view of the kernel's dynamic shared memory as a `shape` buffer of
/// `elt` that starts `offset` (an index) bytes in.
Value sharedView(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                 Type elt, Value offset);

inline Value threadId(OpBuilder &b, Location loc) {
  return gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
}

inline void barrier(OpBuilder &b, Location loc) {
  gpu::BarrierOp::create(b, loc);
}

int64_t numElements(ArrayRef<int64_t> shape);

/// Decomposes a row-major linear index into indices of `shape`.
SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                               ArrayRef<int64_t> shape);

/// A loop in which thread t visits t, t + T, t + 2T, ... < n.
void buildThreadStridedLoop(
    OpBuilder &b, Location loc, int64_t n, int64_t threads,
    function_ref<void(OpBuilder &, Location, Value)> body);

/// `expr` (dims: thread, register) at register `reg` as arith on `tid`.
Value expandAtRegister(OpBuilder &b, Location loc, AffineExpr expr, Value tid,
                       int64_t reg);

/// The tile indices of register `reg` of the current thread.
SmallVector<Value> indicesOfRegister(OpBuilder &b, Location loc,
                                     FragmentLayoutAttr layout, Value tid,
                                     int64_t reg);

/// True when register `reg` of thread `tid` holds an element: with the
/// cyclic layout of a tile whose size the thread count does not divide,
/// register r of thread t holds element r * T + t only while that is in the
/// tile. Null when every register holds one.
Value registerHoldsElement(OpBuilder &b, Location loc,
                           FragmentLayoutAttr layout, Value tid, int64_t reg);

/// True when register `reg` of thread `tid` holds an element and the
/// thread is its owner (the one copy of a replicated layout that writes
/// it out). Null when every held register is owned.
Value registerOwnsElement(OpBuilder &b, Location loc,
                          FragmentLayoutAttr layout, Value tid, int64_t reg);

/// Runs `body` for every element the current thread holds in a fragment of
/// `layout` with `registers` registers: body(builder, loc, register,
/// element indices). Registers are constants (the loop is unrolled). With
/// `ownedOnly`, only for the elements the thread owns: each element once,
/// for writes out of a (possibly replicated) fragment.
void forEachHeldElement(
    OpBuilder &b, Location loc, FragmentLayoutAttr layout, int64_t registers,
    function_ref<void(OpBuilder &, Location, int64_t, ArrayRef<Value>)> body,
    bool ownedOnly = false);

/// True when, in every thread, registers r + 1 .. r + n - 1 of `layout`
/// hold the elements after register r's along the last dimension.
bool holdsRun(FragmentLayoutAttr layout, int64_t r, int64_t n);

/// The most registers, a power of two up to `maxRun` that divides
/// `registers`, such that every run of that many registers of `layout`
/// (from register 0 on) holds consecutive elements along the last
/// dimension (holdsRun); 1 when none.
int64_t registerRun(FragmentLayoutAttr layout, int64_t registers,
                    int64_t maxRun);

/// A fragment's elements in shared memory, for uses that need elements
/// other threads hold (reductions, gemm operands, loops reading another
/// shape): every thread stores its registers into the fragment's scratch
/// buffer (reserved by tile-plan-scratch), then the block synchronizes.
/// Null when the fragment has no scratch buffer.
Value stageToShared(OpBuilder &b, Location loc, Value fragment);

/// Between two barriers, every thread stores the elements it owns of
/// `fragment` into `view`, a shared buffer of the fragment's shape.
void storeFragmentToShared(OpBuilder &b, Location loc, const Storage &fragment,
                           Value view);

/// Whether 16-byte accesses of `vec` elements may reach the rows of the
/// global `buffer` (of rank `rank`): its base is 16-byte aligned and (rank
/// > 1) its innermost extent a multiple of `vec`; with the values the
/// callers' edge guards also use (0, `vec` and that extent as indices).
struct VectorAlignment {
  Value zero, vec, lastDim, aligned;
};
VectorAlignment checkVectorAlignment(OpBuilder &b, Location loc, Value buffer,
                                     int64_t rank, int64_t vec);

/// The physical column of element (row, col) of a swizzled 2-d shared
/// buffer (Storage::swizzleChunks): the 16-byte chunk of the column is XORed
/// with a function of the row so that 8 consecutive rows read at the same
/// column (an 8x8 ldmatrix block, or the cp.async writes) fall in 8
/// different bank groups. `col` itself for unswizzled buffers.
Value swizzledColumn(OpBuilder &b, Location loc, const Storage &storage,
                     Value row, Value col);

/// The indices at which element `idx` of a shared buffer is stored: the
/// column swizzled where the buffer is (see swizzledColumn; a null
/// `storage` is not swizzled).
SmallVector<Value> physicalIndices(OpBuilder &b, Location loc,
                                   const Storage *storage,
                                   SmallVector<Value> idx);

/// The tile indices (a copy's region without unit dims) of a fragment
/// element's `indices`.
SmallVector<Value> tileIndicesOf(ArrayRef<Value> indices,
                                 ArrayRef<int64_t> shape);

/// Loads the element at `idx` of a copy's source (the pad value outside a
/// global tensor), converted to `to`.
Value loadSourceElement(OpBuilder &b, Location loc, CopyEnd &src,
                        ArrayRef<Value> idx, Value pad, Type to);

/// A chunk of `vec` elements along the last dimension moved element by
/// element: for each element e, the source element at `si` + e
/// (loadSourceElement: the pad outside a global tensor) converted to `to`,
/// handed to `store` with the target indices `di` + e.
void copyChunkByElements(
    OpBuilder &b, Location loc, CopyEnd &src, ArrayRef<Value> si,
    ArrayRef<Value> di, int64_t vec, Value pad, Type to,
    function_ref<void(OpBuilder &, Location, ArrayRef<Value>, Value)> store);

/// Stores `value` at `idx` of a copy's target (nothing outside a global
/// tensor).
void storeTargetElement(OpBuilder &b, Location loc, CopyEnd &dst,
                        ArrayRef<Value> idx, Value value);

/// Reserves `bytes` of the kernel's dynamic shared memory after what its
/// tile.shared_bytes counts, aligned to kSharedAlignment, and counts them
/// there: returns their offset.
int64_t reserveSharedScratch(RewriterBase &rewriter, KernelOp kernel,
                             int64_t bytes);

} // namespace mlir::tile::tilegpu

#endif // TILE_CONVERSION_TILETOGPU_GPUCOMMON_H
