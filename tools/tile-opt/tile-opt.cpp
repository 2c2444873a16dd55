//===- tile-opt.cpp - The TileMLIR optimizer driver -----------------------===//

#include "tile/InitAllTile.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::tile::registerAllTilePasses();

  mlir::DialectRegistry registry;
  mlir::tile::registerAllTileDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "TileMLIR optimizer driver\n", registry));
}
