//===- Passes.td - Passes of the tile dialect --------------*- tablegen -*-===//

#ifndef TILE_DIALECT_TILE_TRANSFORMS_PASSES_TD
#define TILE_DIALECT_TILE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileVerifyTarget : Pass<"tile-verify-target", "::mlir::ModuleOp"> {
  let summary = "Check that every tile op is legal on the chosen target";
  let description = [{
    Checks each `tile.kernel` and the tile ops in it against a target
    (`cpu`, `sm_80`, `sm_90a`, `gfx942`): threads per block (at most the
    target's limit, a multiple of its warp size on GPUs), shared memory per
    block, cluster support, element types of `tile.gemm` / `tile.gemm_sp`
    and the copy instruction hints. Each violation is reported at the op
    with what the target allows; the pass fails if any is found.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"sm_90a\"",
           "Target to check against: cpu, sm_80, sm_90a or gfx942">
  ];
  let dependentDialects = [];
}

#endif // TILE_DIALECT_TILE_TRANSFORMS_PASSES_TD
