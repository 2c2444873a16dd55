//===- WgmmaLayout.h - swizzled panels as TMA writes and wgmma reads them -===//
//
// Host-side arithmetic of the sm_90a TMA pipeline's swizzled panels, free of
// MLIR so that a unit check (test/Target/NVVM/wgmma-layout.test) can hold it
// against the PTX ISA's swizzle patterns and wgmma's canonical layouts.
//
// A panel of S bytes (S = 128, 64 or 32: TMA's CU_TENSOR_MAP_SWIZZLE_<S>B,
// wgmma's SWIZZLE_<S>B) holds rows of S bytes; its swizzle atom is 8 rows
// (8 S bytes, and the panel starts on an atom boundary): the 16-byte chunk
// c of row r is stored at chunk c ^ ((r / (128 / S)) mod (S / 16)).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CONVERSION_TILETONVVM_WGMMALAYOUT_H
#define TILE_CONVERSION_TILETONVVM_WGMMALAYOUT_H

#include <cstdint>

namespace mlir::tile::nvvm {

/// Where byte `offset` of a panel swizzled `panelBytes` wide (from an
/// atom-aligned start) is stored: the 16-byte chunk bits [4, 4 + b) XORed
/// with bits [7, 7 + b), b = log2(panelBytes / 16) (`#tile.swizzle<b, 4,
/// 3>`).
inline int64_t swizzledPanelOffset(int64_t offset, int64_t panelBytes) {
  int64_t chunkMask = panelBytes / 16 - 1;
  return offset ^ (((offset >> 7) & chunkMask) << 4);
}

/// The fields of a wgmma shared-memory descriptor, in bytes.
struct WgmmaDescriptorFields {
  int64_t start; // from the operand buffer's shared address
  int64_t leadingBytes, strideBytes;
  int64_t layoutType; // bits 62-63: 1 SWIZZLE_128B, 2 64B, 3 32B
};

/// The descriptor of k-step `kk` (the K index of its first element) of an
/// operand stored as panels of `panelRows` rows of `panelBytes` = S bytes
/// (`eltBytes` an element), `kMajor` or MN-major. One swizzle atom is 8
/// panel rows (8 S bytes). K-major operands (rows along M / N, K in the
/// panel rows, panels of K one after another): 8-row groups one atom apart
/// (SBO), the k-step's K inside the row (start + bytes); LBO unused (16).
/// MN-major operands (rows along K, M / N in the panel rows): panels of
/// S / eltBytes M / N elements LBO apart, 8-row groups of K one atom apart
/// (SBO), the k-step's first row at start. (PTX ISA, "Shared Memory Matrix
/// Layout" and "Matrix Descriptor Format".)
inline WgmmaDescriptorFields wgmmaDescriptorFields(int64_t panelRows,
                                                   int64_t panelBytes,
                                                   int64_t kk, bool kMajor,
                                                   int64_t eltBytes) {
  int64_t atom = 8 * panelBytes;
  int64_t layoutType = panelBytes == 128 ? 1 : panelBytes == 64 ? 2 : 3;
  if (kMajor) {
    int64_t panel = panelBytes / eltBytes; // elements of K a panel row
    return {(kk / panel) * panelRows * panelBytes + (kk % panel) * eltBytes,
            16, atom, layoutType};
  }
  return {kk * panelBytes, panelRows * panelBytes, atom, layoutType};
}

} // namespace mlir::tile::nvvm

#endif // TILE_CONVERSION_TILETONVVM_WGMMALAYOUT_H
