//===- Layouts.cpp - Fragment layouts of the tensor-core lowerings --------===//

#include "tile/Dialect/Tile/IR/Layouts.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinTypes.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::tile;

std::optional<WarpPartition> mlir::tile::getWarpPartition(int64_t m, int64_t n,
                                                          int64_t warps,
                                                          GemmWarpPolicy policy,
                                                          int64_t atomM,
                                                          int64_t atomN) {
  // No warp at all (a block of fewer than 32 threads) or a degenerate atom:
  // nothing to partition, and the divisibility checks below would divide
  // by zero. No block has anywhere near kMaxWarps warps either; the search
  // below is linear in the warp count and would not finish for a thread
  // count like INT64_MAX.
  constexpr int64_t kMaxWarps = 1 << 16;
  if (warps <= 0 || warps > kMaxWarps || atomM <= 0 || atomN <= 0 ||
      atomM > kMaxWarps || atomN > kMaxWarps)
    return std::nullopt;
  auto fits = [&](int64_t wm, int64_t wn) {
    return wm * wn == warps && m % (atomM * wm) == 0 && n % (atomN * wn) == 0;
  };
  if (policy == GemmWarpPolicy::FullRow && fits(warps, 1))
    return WarpPartition{warps, 1};
  if (policy == GemmWarpPolicy::FullCol && fits(1, warps))
    return WarpPartition{1, warps};
  // Square (and the fallback of the others): the most balanced warp tile.
  std::optional<WarpPartition> best;
  int64_t bestScore = 0;
  for (int64_t wm = 1; wm <= warps; ++wm) {
    if (warps % wm != 0 || !fits(wm, warps / wm))
      continue;
    int64_t wn = warps / wm;
    int64_t score = std::abs(m / wm - n / wn);
    if (!best || score < bestScore) {
      best = WarpPartition{wm, wn};
      bestScore = score;
    }
  }
  return best;
}

int64_t mlir::tile::getWgmmaK(Type elt) {
  return 256 / elt.getIntOrFloatBitWidth();
}

std::optional<WarpPartition>
mlir::tile::getWgmmaPartition(int64_t m, int64_t n, int64_t k, int64_t warps,
                              Type aElt) {
  if (!(aElt.isF16() || aElt.isBF16() ||
        isa<Float8E4M3FNType, Float8E5M2Type>(aElt)))
    return std::nullopt;
  if (m <= 0 || m % 64 != 0 || n <= 0 || n % 8 != 0 || k <= 0 ||
      k % getWgmmaK(aElt) != 0 || warps <= 0)
    return std::nullopt;
  // One instruction per warpgroup and 64 rows: N up to 256 (a split N up
  // to 256 a warpgroup).
  if (n > 256 && (warps <= m / 16 || n / (warps / (m / 16)) > 256))
    return std::nullopt;
  if (warps == m / 16)
    return WarpPartition{m / 16, 1};
  // Two 64-row blocks a warpgroup: 128 rows x N accumulators (N / 2 a
  // block) per thread at most.
  if (warps % 4 == 0 && warps * 32 == m && n <= 128)
    return WarpPartition{warps, 1, 2};
  // Warpgroups along N: gN column blocks of every 64 rows.
  int64_t warpsM = m / 16;
  if (warps > warpsM && warps % warpsM == 0) {
    int64_t groupsN = warps / warpsM;
    if (n % (8 * groupsN) == 0)
      return WarpPartition{warpsM, groupsN, 1, /*warpgroupsAlongN=*/true};
  }
  return std::nullopt;
}

FragmentLayoutAttr
mlir::tile::getMmaSyncAccumulatorLayout(MLIRContext *ctx, int64_t m, int64_t n,
                                        int64_t threads,
                                        WarpPartition partition) {
  int64_t wn = partition.warpsN;
  int64_t tileM = m / partition.warpsM, tileN = n / wn;
  AffineExpr i = getAffineDimExpr(0, ctx), j = getAffineDimExpr(1, ctx);
  if (int64_t r = partition.repeats; r > 1) {
    // Warpgroup i / 64r, warp (i mod 64) / 16 of it; strip (i mod 64r) / 64
    // of the warp's registers, each strip n / 2 of them in the order of one
    // m64nN accumulator.
    AffineExpr thread = i.floorDiv(64 * r) * 128 + (i % 64).floorDiv(16) * 32 +
                        (i % 8) * 4 + (j % 8).floorDiv(2);
    AffineExpr reg = (i % (64 * r)).floorDiv(64) * (n / 2) +
                     j.floorDiv(8) * 4 + (i % 16).floorDiv(8) * 2 + j % 2;
    AffineExpr t = getAffineDimExpr(0, ctx), q = getAffineDimExpr(1, ctx);
    AffineExpr strip = q % (n / 2);
    AffineExpr row = t.floorDiv(128) * (64 * r) + q.floorDiv(n / 2) * 64 +
                     (t % 128).floorDiv(32) * 16 + (t % 32).floorDiv(4) +
                     (strip % 4).floorDiv(2) * 8;
    AffineExpr col = strip.floorDiv(4) * 8 + (t % 4) * 2 + strip % 2;
    return FragmentLayoutAttr::get(
        ctx, {m, n}, threads, AffineMap::get(2, 0, {thread, reg}, ctx),
        /*replicate=*/1, AffineMap::get(2, 0, {row, col}, ctx));
  }
  // Within an m16n8 atom: lane = (row mod 8) * 4 + col / 2, register
  // (row / 8) * 2 + col mod 2; atoms are numbered row-major in the warp tile.
  int64_t wm = partition.warpsM;
  bool alongM = partition.warpgroupsAlongN;
  AffineExpr warp = alongM ? j.floorDiv(tileN) * wm + i.floorDiv(tileM)
                           : i.floorDiv(tileM) * wn + j.floorDiv(tileN);
  AffineExpr thread = warp * 32 + (i % 8) * 4 + (j % 8).floorDiv(2);
  AffineExpr reg =
      ((i % tileM).floorDiv(16) * (tileN / 8) + (j % tileN).floorDiv(8)) * 4 +
      (i % 16).floorDiv(8) * 2 + j % 2;
  AffineExpr t = getAffineDimExpr(0, ctx), q = getAffineDimExpr(1, ctx);
  AffineExpr warpRow = alongM ? t.floorDiv(32) % wm : t.floorDiv(32 * wn);
  AffineExpr warpCol = alongM ? t.floorDiv(32 * wm) : t.floorDiv(32) % wn;
  AffineExpr row = warpRow * tileM + q.floorDiv(tileN / 2) * 16 +
                   (t % 32).floorDiv(4) + (q % 4).floorDiv(2) * 8;
  AffineExpr col = warpCol * tileN + (q.floorDiv(4) % (tileN / 8)) * 8 +
                   (t % 4) * 2 + q % 2;
  return FragmentLayoutAttr::get(
      ctx, {m, n}, threads, AffineMap::get(2, 0, {thread, reg}, ctx),
      /*replicate=*/1, AffineMap::get(2, 0, {row, col}, ctx));
}

FragmentLayoutAttr
mlir::tile::getMfmaAccumulatorLayout(MLIRContext *ctx, int64_t m, int64_t n,
                                     int64_t threads, WarpPartition partition,
                                     int64_t atom) {
  int64_t wm = partition.warpsM, wn = partition.warpsN;
  if ((atom != 32 && atom != 16) || wm < 1 || wn < 1 ||
      partition.repeats != 1 || partition.warpgroupsAlongN ||
      threads != 64 * wm * wn || m % (wm * atom) != 0 || n % (wn * atom) != 0)
    return nullptr;
  int64_t tileM = m / wm, tileN = n / wn;
  int64_t regs = atom * atom / 64;     // a lane's registers of one atom
  int64_t atomsN = tileN / atom;
  AffineExpr i = getAffineDimExpr(0, ctx), j = getAffineDimExpr(1, ctx);
  AffineExpr wave = i.floorDiv(tileM) * wn + j.floorDiv(tileN);
  AffineExpr atomIndex =
      (i % tileM).floorDiv(atom) * atomsN + (j % tileN).floorDiv(atom);
  // Lane and register within an atom of element (i, j).
  AffineExpr lane, reg;
  if (atom == 32) {
    lane = (i % 8).floorDiv(4) * 32 + j % 32;
    reg = (i % 32).floorDiv(8) * 4 + i % 4;
  } else {
    lane = (i % 16).floorDiv(4) * 16 + j % 16;
    reg = i % 4;
  }
  AffineExpr thread = wave * 64 + lane;
  AffineExpr regAll = atomIndex * regs + reg;
  AffineExpr t = getAffineDimExpr(0, ctx), q = getAffineDimExpr(1, ctx);
  AffineExpr l = t % 64, r = q % regs, a = q.floorDiv(regs);
  AffineExpr rowInAtom = atom == 32
                             ? r.floorDiv(4) * 8 + l.floorDiv(32) * 4 + r % 4
                             : l.floorDiv(16) * 4 + r;
  AffineExpr row = t.floorDiv(64 * wn) * tileM + a.floorDiv(atomsN) * atom +
                   rowInAtom;
  AffineExpr col = (t.floorDiv(64) % wn) * tileN + (a % atomsN) * atom +
                   l % atom;
  return FragmentLayoutAttr::get(
      ctx, {m, n}, threads, AffineMap::get(2, 0, {thread, regAll}, ctx),
      /*replicate=*/1, AffineMap::get(2, 0, {row, col}, ctx));
}

FragmentLayoutAttr mlir::tile::getMfmaRowLayout(MLIRContext *ctx, int64_t m,
                                               int64_t threads,
                                               WarpPartition partition,
                                               int64_t atom) {
  int64_t wm = partition.warpsM, wn = partition.warpsN;
  int64_t tileM = m / wm;
  // Lanes that hold one row of an atom, and the rows a lane holds in it.
  int64_t lanes = atom == 32 ? 32 : 16, regs = atom == 32 ? 16 : 4;
  AffineExpr i = getAffineDimExpr(0, ctx);
  AffineExpr rowInAtom = (i % tileM) % atom;
  // 32x32: row 8 (r / 4) + 4 (l / 32) + r mod 4; 16x16: row 4 (l / 16) + r.
  AffineExpr group = atom == 32 ? (rowInAtom % 8).floorDiv(4)
                                : rowInAtom.floorDiv(4);
  AffineExpr regInAtom = atom == 32
                             ? rowInAtom.floorDiv(8) * 4 + rowInAtom % 4
                             : rowInAtom % 4;
  AffineExpr thread = i.floorDiv(tileM) * (64 * wn) + group * lanes;
  AffineExpr reg = (i % tileM).floorDiv(atom) * regs + regInAtom;
  AffineExpr t = getAffineDimExpr(0, ctx), q = getAffineDimExpr(1, ctx);
  AffineExpr g = (t % 64).floorDiv(lanes), r = q % regs;
  AffineExpr inAtom =
      atom == 32 ? r.floorDiv(4) * 8 + g * 4 + r % 4 : g * 4 + r;
  AffineExpr row = t.floorDiv(64 * wn) * tileM + q.floorDiv(regs) * atom +
                   inAtom;
  return FragmentLayoutAttr::get(
      ctx, {m}, threads, AffineMap::get(1, 0, {thread, reg}, ctx),
      /*replicate=*/lanes * wn, AffineMap::get(2, 0, {row}, ctx));
}

FragmentLayoutAttr mlir::tile::getMmaSyncRowLayout(MLIRContext *ctx,
                                                  int64_t m, int64_t threads,
                                                  WarpPartition partition) {
  int64_t wn = partition.warpsN, wm = partition.warpsM;
  int64_t tileM = m / wm;
  bool alongM = partition.warpgroupsAlongN;
  AffineExpr i = getAffineDimExpr(0, ctx);
  if (int64_t r = partition.repeats; r > 1) {
    // Row i of the accumulator with `r` 64-row strips a warpgroup (see
    // getMmaSyncAccumulatorLayout): the 4 lanes (i mod 8) * 4 + c of warp
    // (i mod 64) / 16 of warpgroup i / 64r, in register 2 (strip) + (i mod
    // 16) / 8.
    AffineExpr thread =
        i.floorDiv(64 * r) * 128 + (i % 64).floorDiv(16) * 32 + (i % 8) * 4;
    AffineExpr reg = (i % (64 * r)).floorDiv(64) * 2 + (i % 16).floorDiv(8);
    AffineExpr t = getAffineDimExpr(0, ctx), q = getAffineDimExpr(1, ctx);
    AffineExpr row = t.floorDiv(128) * (64 * r) + q.floorDiv(2) * 64 +
                     (t % 128).floorDiv(32) * 16 + (t % 32).floorDiv(4) +
                     (q % 2) * 8;
    return FragmentLayoutAttr::get(
        ctx, {m}, threads, AffineMap::get(1, 0, {thread, reg}, ctx),
        /*replicate=*/4, AffineMap::get(2, 0, {row}, ctx));
  }
  // Row i of the accumulator is held by the 4 lanes (i mod 8) * 4 + c of
  // each of the warpsN warps of its warp row, in register (i mod tileM) / 8
  // (atom row-block and upper/lower half). The owner is the first warp.
  AffineExpr thread =
      i.floorDiv(tileM) * (alongM ? 32 : 32 * wn) + (i % 8) * 4;
  AffineExpr reg = (i % tileM).floorDiv(8);
  AffineExpr t = getAffineDimExpr(0, ctx), q = getAffineDimExpr(1, ctx);
  AffineExpr warpRow = alongM ? t.floorDiv(32) % wm : t.floorDiv(32 * wn);
  AffineExpr row = warpRow * tileM + q * 8 + (t % 32).floorDiv(4);
  return FragmentLayoutAttr::get(
      ctx, {m}, threads, AffineMap::get(1, 0, {thread, reg}, ctx),
      /*replicate=*/4 * wn, AffineMap::get(2, 0, {row}, ctx));
}

/// The row-split layout whose rows each span `lanes` > 32 threads (whole
/// warps): threads / lanes rows side by side, row i on the threads of slot
/// i mod (threads / lanes), in register block i floordiv (threads / lanes).
static FragmentLayoutAttr getWideRowSplitLayout(MLIRContext *ctx, int64_t m,
                                                int64_t n, int64_t threads,
                                                int64_t lanes, int64_t vec) {
  if (lanes % 32 != 0 || threads % lanes != 0 || vec < 1)
    return nullptr;
  int64_t slots = threads / lanes; // rows held side by side
  if (m % slots != 0 || n % (lanes * vec) != 0)
    return nullptr;
  int64_t rowRegs = n / lanes; // registers of one row in a thread
  AffineExpr i = getAffineDimExpr(0, ctx), j = getAffineDimExpr(1, ctx);
  AffineExpr thread = (i % slots) * lanes + j.floorDiv(vec) % lanes;
  AffineExpr reg = i.floorDiv(slots) * rowRegs +
                   j.floorDiv(lanes * vec) * vec + j % vec;
  AffineExpr t = getAffineDimExpr(0, ctx), q = getAffineDimExpr(1, ctx);
  AffineExpr row = q.floorDiv(rowRegs) * slots + t.floorDiv(lanes);
  AffineExpr col = (q % rowRegs).floorDiv(vec) * (lanes * vec) +
                   (t % lanes) * vec + q % vec;
  return FragmentLayoutAttr::get(ctx, {m, n}, threads,
                                 AffineMap::get(2, 0, {thread, reg}, ctx),
                                 /*replicate=*/1,
                                 AffineMap::get(2, 0, {row, col}, ctx));
}

FragmentLayoutAttr mlir::tile::getRowSplitLayout(MLIRContext *ctx,
                                                int64_t m, int64_t n,
                                                int64_t threads,
                                                int64_t lanes, int64_t vec) {
  if (lanes > 32)
    return getWideRowSplitLayout(ctx, m, n, threads, lanes, vec);

  int64_t warps = threads / 32;
  if (threads % 32 != 0 || lanes < 1 || 32 % lanes != 0 || vec < 1)
    return nullptr;
  int64_t rows = 32 / lanes; // rows a warp holds side by side
  if (m % (rows * warps) != 0 || n % (lanes * vec) != 0)
    return nullptr;
  int64_t chunks = n / (lanes * vec); // of vec columns, per lane and row
  AffineExpr i = getAffineDimExpr(0, ctx), j = getAffineDimExpr(1, ctx);
  AffineExpr group = i.floorDiv(rows);
  AffineExpr thread = (group % warps) * 32 + (i % rows) * lanes +
                      j.floorDiv(vec) % lanes;
  AffineExpr reg = (group.floorDiv(warps) * chunks + j.floorDiv(lanes * vec)) *
                       vec +
                   j % vec;
  AffineExpr t = getAffineDimExpr(0, ctx), q = getAffineDimExpr(1, ctx);
  AffineExpr row = (q.floorDiv(n / lanes) * warps + t.floorDiv(32)) * rows +
                   (t % 32).floorDiv(lanes);
  AffineExpr col = (q.floorDiv(vec) % chunks) * (lanes * vec) +
                   (t % lanes) * vec + q % vec;
  return FragmentLayoutAttr::get(ctx, {m, n}, threads,
                                 AffineMap::get(2, 0, {thread, reg}, ctx),
                                 /*replicate=*/1,
                                 AffineMap::get(2, 0, {row, col}, ctx));
}

/// The row layout of getRowSplitLayout(m, n, threads, lanes, vec): row i on
/// the `lanes` lanes that hold it, in register i / (rows per warp * warps).
static FragmentLayoutAttr getRowSplitRowLayout(MLIRContext *ctx, int64_t m,
                                               int64_t threads, int64_t lanes) {
  if (lanes > 32) {
    // Row i on the `lanes` threads of slot i mod (threads / lanes).
    int64_t slots = threads / lanes;
    AffineExpr i = getAffineDimExpr(0, ctx);
    AffineExpr t = getAffineDimExpr(0, ctx), q = getAffineDimExpr(1, ctx);
    return FragmentLayoutAttr::get(
        ctx, {m}, threads,
        AffineMap::get(1, 0, {(i % slots) * lanes, i.floorDiv(slots)}, ctx),
        /*replicate=*/lanes,
        AffineMap::get(2, 0, {q * slots + t.floorDiv(lanes)}, ctx));
  }
  int64_t warps = threads / 32, rows = 32 / lanes;
  AffineExpr i = getAffineDimExpr(0, ctx);
  AffineExpr thread = (i.floorDiv(rows) % warps) * 32 + (i % rows) * lanes;
  AffineExpr reg = i.floorDiv(rows * warps);
  AffineExpr t = getAffineDimExpr(0, ctx), q = getAffineDimExpr(1, ctx);
  AffineExpr row =
      (q * warps + t.floorDiv(32)) * rows + (t % 32).floorDiv(lanes);
  return FragmentLayoutAttr::get(ctx, {m}, threads,
                                 AffineMap::get(1, 0, {thread, reg}, ctx),
                                 /*replicate=*/lanes,
                                 AffineMap::get(2, 0, {row}, ctx));
}

FragmentLayoutAttr mlir::tile::getRowLayout(FragmentLayoutAttr layout) {
  ArrayRef<int64_t> shape = layout.getShape();
  int64_t threads = layout.getThreads();
  if (shape.size() != 2 || threads % 32 != 0)
    return nullptr;
  for (int64_t lanes = 1; lanes <= threads; lanes *= 2)
    for (int64_t vec = 1; vec <= 16; vec *= 2)
      if (getRowSplitLayout(layout.getContext(), shape[0], shape[1], threads,
                            lanes, vec) == layout)
        return getRowSplitRowLayout(layout.getContext(), shape[0], threads,
                                    lanes);
  int64_t warps = threads / 32, m = shape[0], n = shape[1];
  // The wgmma accumulator of two 64-row blocks a warpgroup.
  WarpPartition twoBlocks{warps, 1, /*repeats=*/2};
  if (warps % 4 == 0 && m == warps * 32 && n % 8 == 0 &&
      getMmaSyncAccumulatorLayout(layout.getContext(), m, n, threads,
                                  twoBlocks) == layout)
    return getMmaSyncRowLayout(layout.getContext(), m, threads, twoBlocks);
  for (int64_t wm = 1; wm <= warps; ++wm) {
    if (warps % wm != 0)
      continue;
    WarpPartition part{wm, warps / wm};
    if (m % (16 * part.warpsM) != 0 || n % (8 * part.warpsN) != 0)
      continue;
    if (getMmaSyncAccumulatorLayout(layout.getContext(), m, n, threads,
                                    part) == layout)
      return getMmaSyncRowLayout(layout.getContext(), m, threads, part);
    // The wgmma accumulator of warpgroups along N.
    part.warpgroupsAlongN = true;
    if (wm % 4 == 0 && part.warpsN > 1 &&
        getMmaSyncAccumulatorLayout(layout.getContext(), m, n, threads,
                                    part) == layout)
      return getMmaSyncRowLayout(layout.getContext(), m, threads, part);
  }
  // The mfma accumulators of 64-lane wavefronts.
  int64_t waves = threads / 64;
  for (int64_t atom : {32, 16})
    for (int64_t wm = 1; threads % 64 == 0 && wm <= waves; ++wm) {
      WarpPartition part{wm, waves / wm};
      if (waves % wm == 0 &&
          getMfmaAccumulatorLayout(layout.getContext(), m, n, threads, part,
                                   atom) == layout)
        return getMfmaRowLayout(layout.getContext(), m, threads, part, atom);
    }
  return nullptr;
}

FragmentLayoutAttr
mlir::tile::getUnitRowVectorLayout(FragmentLayoutAttr layout) {
  ArrayRef<int64_t> shape = layout.getShape();
  if (shape.size() != 2 || shape[0] != 1 || !layout.getInverse())
    return nullptr;
  MLIRContext *ctx = layout.getContext();
  AffineMap toRow = AffineMap::get(
      1, 0, {getAffineConstantExpr(0, ctx), getAffineDimExpr(0, ctx)}, ctx);
  AffineMap inverse =
      AffineMap::get(2, 0, {layout.getInverse().getResult(1)}, ctx);
  return FragmentLayoutAttr::get(ctx, {shape[1]}, layout.getThreads(),
                                 layout.getMap().compose(toRow),
                                 layout.getReplicate(), inverse);
}

FragmentLayoutAttr mlir::tile::getCyclicLayout(MLIRContext *ctx,
                                               ArrayRef<int64_t> shape,
                                               int64_t threads) {
  int64_t rank = shape.size();
  AffineExpr linear = getAffineConstantExpr(0, ctx);
  SmallVector<int64_t> strides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  for (int64_t d = 0; d < rank; ++d)
    linear = linear + getAffineDimExpr(d, ctx) * strides[d];
  AffineExpr t = getAffineDimExpr(0, ctx), q = getAffineDimExpr(1, ctx);
  AffineExpr back = q * threads + t;
  SmallVector<AffineExpr> indices;
  for (int64_t d = 0; d < rank; ++d)
    indices.push_back(back.floorDiv(strides[d]) % shape[d]);
  return FragmentLayoutAttr::get(
      ctx, shape, threads,
      AffineMap::get(rank, 0, {linear % threads, linear.floorDiv(threads)},
                     ctx),
      /*replicate=*/1, AffineMap::get(2, 0, indices, ctx));
}

FragmentLayoutAttr mlir::tile::getReplicatedLayout(MLIRContext *ctx,
                                                   ArrayRef<int64_t> shape,
                                                   int64_t threads) {
  int64_t rank = shape.size();
  SmallVector<int64_t> strides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  AffineExpr linear = getAffineConstantExpr(0, ctx);
  for (int64_t d = 0; d < rank; ++d)
    linear = linear + getAffineDimExpr(d, ctx) * strides[d];
  AffineExpr q = getAffineDimExpr(1, ctx);
  SmallVector<AffineExpr> indices;
  for (int64_t d = 0; d < rank; ++d)
    indices.push_back(q.floorDiv(strides[d]) % shape[d]);
  return FragmentLayoutAttr::get(
      ctx, shape, threads,
      AffineMap::get(rank, 0, {getAffineConstantExpr(0, ctx), linear}, ctx),
      /*replicate=*/threads, AffineMap::get(2, 0, indices, ctx));
}

bool mlir::tile::isReplicatedLayout(FragmentLayoutAttr layout) {
  return layout && layout == getReplicatedLayout(layout.getContext(),
                                                 layout.getShape(),
                                                 layout.getThreads());
}
