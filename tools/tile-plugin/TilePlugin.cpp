//===- TilePlugin.cpp - tile as an mlir-opt plugin ------------------------===//

#include "tile/InitAllTile.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "TileMLIR", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            mlir::tile::registerAllTileDialects(*registry);
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "TileMLIR", LLVM_VERSION_STRING,
          []() { mlir::tile::registerAllTilePasses(); }};
}
