// Parses a tile module, runs tile-verify-target and canonicalize through the
// installed TileMLIR libraries, and prints the result.
#include "tile/Dialect/Tile/Transforms/Passes.h"
#include "tile/InitAllTile.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/raw_ostream.h"

static const char *kInput = R"mlir(
func.func @f(%out: memref<?x?xf32>) {
  tile.kernel (%bx, %by) in (2, 3) threads(128) {
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    %zero = arith.constant 0.0 : f32
    tile.fill %c, %zero : memref<64x64xf32, #tile.scope<fragment>>, f32
    tile.copy %c to %out[%bx, %by] : memref<64x64xf32, #tile.scope<fragment>> to memref<?x?xf32>
  }
  return
}
)mlir";

int main() {
  mlir::DialectRegistry registry;
  mlir::tile::registerAllTileDialects(registry);
  mlir::MLIRContext context(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(kInput, &context);
  if (!module)
    return 1;
  mlir::PassManager pm(&context);
  mlir::tile::TileVerifyTargetOptions options;
  options.target = "sm_90a";
  pm.addPass(mlir::tile::createTileVerifyTarget(options));
  pm.addPass(mlir::createCanonicalizerPass());
  if (mlir::failed(pm.run(*module)))
    return 1;
  module->print(llvm::outs());
  return 0;
}
