// Host-side check of WgmmaLayout.h (see wgmma-layout.test): the swizzle of
// TMA's panels and the wgmma descriptors of their k-steps, against the PTX
// ISA's swizzle patterns and wgmma's canonical shared-memory layouts,
// written out here from the ISA's descriptions.

#include "tile/Conversion/TileToNVVM/WgmmaLayout.h"

#include <cstdio>
#include <cstdlib>
#include <initializer_list>

using namespace mlir::tile::nvvm;

namespace {

// The swizzle patterns (PTX ISA, "Tensor copy swizzling modes"; the same
// for wgmma's "Shared Memory Matrix Layout"): within one repeat of the
// pattern (8 rows of S bytes: 1024, 512 or 256 bytes), the 16-byte chunk
// that row r has at position c.
const int kPattern128[8][8] = {
    {0, 1, 2, 3, 4, 5, 6, 7}, {1, 0, 3, 2, 5, 4, 7, 6},
    {2, 3, 0, 1, 6, 7, 4, 5}, {3, 2, 1, 0, 7, 6, 5, 4},
    {4, 5, 6, 7, 0, 1, 2, 3}, {5, 4, 7, 6, 1, 0, 3, 2},
    {6, 7, 4, 5, 2, 3, 0, 1}, {7, 6, 5, 4, 3, 2, 1, 0}};
const int kPattern64[8][4] = {{0, 1, 2, 3}, {0, 1, 2, 3}, {1, 0, 3, 2},
                              {1, 0, 3, 2}, {2, 3, 0, 1}, {2, 3, 0, 1},
                              {3, 2, 1, 0}, {3, 2, 1, 0}};
const int kPattern32[8][2] = {{0, 1}, {0, 1}, {0, 1}, {0, 1},
                              {1, 0}, {1, 0}, {1, 0}, {1, 0}};

int patternChunk(int64_t swizzle, int64_t row, int64_t chunk) {
  switch (swizzle) {
  case 128:
    return kPattern128[row % 8][chunk];
  case 64:
    return kPattern64[row % 8][chunk];
  default:
    return kPattern32[row % 8][chunk];
  }
}

/// Where the ISA's pattern stores byte `offset` (from a 1024-byte aligned
/// base) of rows of `swizzle` bytes: its row's chunk moved by the table.
int64_t documented(int64_t offset, int64_t swizzle) {
  int64_t row = offset / swizzle, chunk = offset % swizzle / 16;
  return row * swizzle + patternChunk(swizzle, row, chunk) * 16 + offset % 16;
}

int failures = 0;

void expect(bool ok, const char *what, int64_t a, int64_t b, int64_t c,
            int64_t d) {
  if (ok)
    return;
  if (++failures <= 20)
    std::printf("FAIL %s (%lld %lld %lld %lld)\n", what, (long long)a,
                (long long)b, (long long)c, (long long)d);
}

/// swizzledPanelOffset is the documented pattern, over several repeats.
int64_t checkSwizzle(int64_t swizzle) {
  int64_t checked = 0;
  for (int64_t offset = 0; offset < 4 * 8 * swizzle; ++offset, ++checked)
    expect(swizzledPanelOffset(offset, swizzle) == documented(offset, swizzle),
           "swizzle", swizzle, offset, swizzledPanelOffset(offset, swizzle),
           documented(offset, swizzle));
  return checked;
}

/// The k-steps of an operand of `mn` x `k` elements of `elt` bytes that TMA
/// stored in panels of `swizzle` bytes (K-major: `mn` rows of K, panels of
/// K; MN-major: `k` rows of M / N, panels of M / N): for every element of
/// every k-step of `kStep` elements, the address wgmma reads it from with
/// the descriptor of wgmmaDescriptorFields (the ISA's canonical layout:
/// K-major, row r of the MN dimension at (r / 8) SBO + (r mod 8) S, K
/// bytes inside the row; MN-major, element i of M / N in the i / (S /
/// elt)-th group of LBO, K row j at (j / 8) SBO + (j mod 8) S; then the
/// pattern) is where TMA put it.
int64_t checkOperand(int64_t swizzle, int64_t elt, bool kMajor, int64_t mn,
                     int64_t k, int64_t kStep) {
  int64_t perRow = swizzle / elt; // elements a panel row
  int64_t rows = kMajor ? mn : k; // rows a panel
  int64_t checked = 0;
  for (int64_t kk = 0; kk < k; kk += kStep) {
    WgmmaDescriptorFields d =
        wgmmaDescriptorFields(rows, swizzle, kk, kMajor, elt);
    expect(d.layoutType == (swizzle == 128 ? 1 : swizzle == 64 ? 2 : 3),
           "layout type", swizzle, d.layoutType, 0, 0);
    expect(d.start % 16 == 0 && d.leadingBytes % 16 == 0 &&
               d.strideBytes % 16 == 0,
           "16-byte fields", d.start, d.leadingBytes, d.strideBytes, 0);
    for (int64_t i = 0; i < mn; ++i)
      for (int64_t j = 0; j < kStep; ++j) {
        int64_t kIndex = kk + j;
        // Where TMA stored element (i, kIndex) of the operand.
        int64_t stored =
            kMajor ? (kIndex / perRow) * rows * swizzle + i * swizzle +
                         (kIndex % perRow) * elt
                   : (i / perRow) * rows * swizzle + kIndex * swizzle +
                         (i % perRow) * elt;
        // Where wgmma reads it.
        int64_t read =
            kMajor ? d.start + (i / 8) * d.strideBytes + (i % 8) * swizzle +
                         j * elt
                   : d.start + (i / perRow) * d.leadingBytes +
                         (j / 8) * d.strideBytes + (j % 8) * swizzle +
                         (i % perRow) * elt;
        expect(documented(read, swizzle) == documented(stored, swizzle),
               kMajor ? "K-major element" : "MN-major element", swizzle, kk,
               i, j);
        ++checked;
      }
  }
  return checked;
}

} // namespace

int main() {
  for (int64_t swizzle : {128, 64, 32})
    std::printf("swizzle %lld: %lld offsets\n", (long long)swizzle,
                (long long)checkSwizzle(swizzle));
  for (int64_t swizzle : {128, 64, 32}) {
    int64_t checked = 0;
    // 16-bit elements (k16 steps of 32 bytes), K-major and MN-major, one
    // to four panels; 8-bit (k32 steps of 32 bytes), K-major.
    for (int64_t panels : {1, 2, 4}) {
      for (int64_t mn : {64, 128, 256}) {
        checked += checkOperand(swizzle, 2, true, mn,
                                panels * swizzle / 2, 16);
        checked += checkOperand(swizzle, 1, true, mn, panels * swizzle, 32);
      }
      for (int64_t k : {16, 32, 64})
        checked += checkOperand(swizzle, 2, false, panels * swizzle / 2, k,
                                16);
    }
    std::printf("descriptors %lld: %lld elements\n", (long long)swizzle,
                (long long)checked);
  }
  std::printf(failures ? "FAILED %d\n" : "all match\n", failures);
  return failures ? EXIT_FAILURE : EXIT_SUCCESS;
}
