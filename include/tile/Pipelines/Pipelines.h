//===- Pipelines.h - Named tile pipelines -----------------------*- C++ -*-===//

#ifndef TILE_PIPELINES_PIPELINES_H
#define TILE_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"

namespace mlir::tile {

/// tile IR -> LLVM dialect for the host CPU.
/// The blocks of each kernel are spread over the cores with OpenMP
/// (OMP_NUM_THREADS=1 runs them one after another).
void buildTileToCPUPipeline(OpPassManager &pm);

/// Registers the named pipelines (tile-to-cpu).
void registerTilePipelines();

} // namespace mlir::tile

#endif // TILE_PIPELINES_PIPELINES_H
