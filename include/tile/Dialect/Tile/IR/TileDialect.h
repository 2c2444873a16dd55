//===- TileDialect.h - The tile dialect -------------------------*- C++ -*-===//

#ifndef TILE_DIALECT_TILE_IR_TILEDIALECT_H
#define TILE_DIALECT_TILE_IR_TILEDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferIntRangeInterface.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "tile/Dialect/Tile/IR/TileDialect.h.inc"
#include "tile/Dialect/Tile/IR/TileEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tile/Dialect/Tile/IR/TileAttrs.h.inc"

namespace mlir::tile {

/// Resource of the layout annotations (see tile.annotate_layout).
struct LayoutResource : public SideEffects::Resource::Base<LayoutResource> {
  StringRef getName() final { return "tile.layout"; }
};

/// The scope of a memref: its #tile.scope, or std::nullopt for global
/// memory (no memory space).
std::optional<Scope> getScope(MemRefType type);
/// True for a memref in global memory.
bool isGlobal(MemRefType type);
/// A buffer that a tile.finalize_reducer combines (TileLang's reducers).
bool isReducer(Value buffer);
/// "global", "shared", "fragment" or "local".
StringRef stringifyScopeOf(MemRefType type);

/// Bytes of a statically shaped buffer, saturated at INT64_MAX (absurd
/// shapes must not wrap around below a limit). `index` elements count as
/// 64 bits (getElementTypeBitWidth does not take them).
int64_t getBufferBytes(MemRefType type);

/// `a + b` for byte counts (non-negative), saturated at INT64_MAX as
/// getBufferBytes is, so sums of absurd sizes stay above every limit.
int64_t addBytes(int64_t a, int64_t b);

/// Checks that `op` is nested in a tile.kernel (the InKernel trait).
LogicalResult verifyInKernel(Operation *op);

/// Checks that the integer types of `op`'s operands and results (memref
/// element types included) are signless (the SignlessIntegers trait).
LogicalResult verifySignlessIntegers(Operation *op);

template <typename ConcreteType>
class SignlessIntegers
    : public OpTrait::TraitBase<ConcreteType, SignlessIntegers> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return verifySignlessIntegers(op);
  }
};

template <typename ConcreteType>
class InKernel : public OpTrait::TraitBase<ConcreteType, InKernel> {
public:
  static LogicalResult verifyTrait(Operation *op) { return verifyInKernel(op); }
};

} // namespace mlir::tile

#define GET_OP_CLASSES
#include "tile/Dialect/Tile/IR/TileOps.h.inc"

namespace mlir::tile {

/// TileLang's epilogue through a shared tile, `T.copy(C_local, C_shared);
/// T.copy(C_shared, C[...])`: `in` writes the whole shared `tile` from a
/// fragment of its shape, `out` reads the whole tile into global memory of
/// its element type later in the same block (only pure ops between), and
/// nothing else uses the tile. The two copies are one store of the
/// fragment.
struct SharedEpilogue {
  CopyOp in, out;
};
std::optional<SharedEpilogue> getSharedEpilogue(Value tile);
/// True when `tile` is such an epilogue of the accumulator of a gemm in a
/// tile.pipelined loop earlier in the same block: the one the sm_90a TMA
/// pipeline may store without the tile (TargetInfo::fusesSharedEpilogues).
bool isPipelinedGemmEpilogue(Value tile);

/// The lifetime of a shared buffer of a kernel: the first and last op of
/// the kernel's body (positions in it) that use the buffer or a view of it,
/// at any depth, so a use inside a loop spans the whole loop. A buffer
/// nothing uses has none (`used` false, both at its alloc's position).
struct SharedLifetime {
  AllocSharedOp alloc;
  int64_t first, last;
  bool used;
  bool overlaps(const SharedLifetime &other) const {
    return first <= other.last && other.first <= last;
  }
};
/// The lifetimes of `kernel`'s shared buffers, in allocation order.
SmallVector<SharedLifetime> getSharedLifetimes(KernelOp kernel);

/// Reports, at the op, a constant index or region of a load, store or atomic
/// in the kernel's body that lies outside its on-chip buffer (part of the
/// kernel's region verifier; TileBounds.cpp).
LogicalResult verifyOnChipIndices(KernelOp kernel);

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_IR_TILEDIALECT_H
