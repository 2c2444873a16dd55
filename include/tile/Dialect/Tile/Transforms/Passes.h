//===- Passes.h - Passes of the tile dialect --------------------*- C++ -*-===//

#ifndef TILE_DIALECT_TILE_TRANSFORMS_PASSES_H
#define TILE_DIALECT_TILE_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Target/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::tile {

/// The register layout tile-infer-layouts gives each fragment of `kernel`
/// (gemm accumulators as their #tile.mma partitions them), without writing
/// it; failure (reported) where anchors conflict or a gemm has no layout.
FailureOr<DenseMap<Value, FragmentLayoutAttr>>
inferFragmentLayouts(KernelOp kernel, const TargetInfo &target);

/// Gives the replicated layout (getReplicatedLayout) to each fragment of
/// `kernel` without one in `layouts` that scalar code (a memref.load or
/// store outside every tile.parallel) accesses; true if it gave any.
bool assignScalarFragmentLayouts(KernelOp kernel,
                                 DenseMap<Value, FragmentLayoutAttr> &layouts);

/// Fails, reported at each store, where scalar code writes a replicated
/// fragment with a value, at an index or under control that may differ
/// between the block's threads (the copies would disagree).
LogicalResult
checkScalarFragmentWrites(KernelOp kernel,
                          const DenseMap<Value, FragmentLayoutAttr> &layouts);

/// Fails, reported at the first tile.alloc_* of `kernel`, unless
/// tile-place-buffers gave every buffer its storage: what the passes after
/// it (named `pass` in the error) need on GPUs.
LogicalResult checkBuffersPlaced(KernelOp kernel, StringRef pass);

#define GEN_PASS_DECL
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_TRANSFORMS_PASSES_H
