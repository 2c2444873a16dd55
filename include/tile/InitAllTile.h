//===- InitAllTile.h - Register the tile dialect and passes -----*- C++ -*-===//
//
// One registration header shared by tile-opt, the mlir-opt plugin and the
// Python bridge.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_INITALLTILE_H
#define TILE_INITALLTILE_H

namespace mlir {
class DialectRegistry;
namespace tile {

/// The tile dialect and the upstream dialects its pipelines produce.
void registerAllTileDialects(DialectRegistry &registry);
/// Every tile pass and named pipeline.
void registerAllTilePasses();

} // namespace tile
} // namespace mlir

#endif // TILE_INITALLTILE_H
