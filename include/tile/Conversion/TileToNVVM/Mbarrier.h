//===- Mbarrier.h - mbarrier waits before sm_90 -----------------*- C++ -*-===//

#ifndef TILE_CONVERSION_TILETONVVM_MBARRIER_H
#define TILE_CONVERSION_TILETONVVM_MBARRIER_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::tile {

/// For chips before sm_90, which have mbarriers but not their blocking
/// `mbarrier.try_wait`: the pattern that turns nvgpu.mbarrier.try_wait.parity
/// (TileLang's T.mbarrier_wait_parity) into a loop of
/// `mbarrier.test_wait.parity` (sm_80).
void populateMbarrierWaitsBeforeSm90Patterns(RewritePatternSet &patterns);

} // namespace mlir::tile

#endif // TILE_CONVERSION_TILETONVVM_MBARRIER_H
