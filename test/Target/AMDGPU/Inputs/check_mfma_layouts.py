"""Checks the mfma accumulator layouts that tile-infer-layouts printed (on
stdin) against AMD's MFMA register layout for a 64-lane wavefront, as the
CDNA3 ISA and AMD's matrix instruction calculator describe it, here from
the lane's side:

- v_mfma_*_32x32x* (f32 / i32 outputs): 16 accumulator VGPRs a lane. Lane l
  holds column l mod 32; VGPR v holds row 8 * (v // 4) + 4 * (l // 32) +
  v mod 4 (four groups of 8 rows; lanes 0-31 rows 0-3 of a group, lanes
  32-63 rows 4-7).
- v_mfma_*_16x16x* : 4 accumulator VGPRs a lane. Lane l holds column
  l mod 16; VGPR v holds row 4 * (l // 16) + v.

A tile of several instructions ("atoms") is split over the gemm's waves
(#tile.mma warps = [wm, wn], wave w at wave row w // wn and column w mod
wn); a wave's atoms are numbered row-major in its tile and each takes the
next run of VGPRs. Argument: how many layouts the input must hold."""

import re
import sys

FRAGMENT = re.compile(r"tile\.layout = #tile\.fragment<\[(\d+), (\d+)\], threads = (\d+), "
                      r"\(d0, d1\) -> \((.*)\), inverse = ")
MMA = re.compile(r"mma = #tile\.mma<mfma, m(\d+)n(\d+)k(\d+), warps = \[(\d+), (\d+)\]>")


def split_results(text):
    """The two results of an affine map's body "a, b" (commas at depth 0)."""
    depth = 0
    for i, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            return text[:i], text[i + 1:]
    raise ValueError(f"not two results: {text}")


def compile_expr(text):
    py = text.replace("floordiv", "//").replace("mod", "%")
    return eval("lambda d0, d1: " + py)      # the printer's affine syntax is Python's


def expected_slot(row, col, m, n, wm, wn, atom):
    """(thread, register) that AMD's layout puts element (row, col) in,
    found by walking every lane and VGPR of the wave that holds it."""
    tile_m, tile_n = m // wm, n // wn
    wave = (row // tile_m) * wn + col // tile_n
    ar, ac = (row % tile_m) // atom, (col % tile_n) // atom
    atom_index = ar * (tile_n // atom) + ac
    vgprs = atom * atom // 64
    for lane in range(64):
        for v in range(vgprs):
            if atom == 32:
                r, c = 8 * (v // 4) + 4 * (lane // 32) + v % 4, lane % 32
            else:
                r, c = 4 * (lane // 16) + v, lane % 16
            if (ar * atom + r, ac * atom + c) == (row % tile_m, col % tile_n):
                return wave * 64 + lane, atom_index * vgprs + v
    raise AssertionError("no lane holds it")


def main():
    want = int(sys.argv[1])
    layouts, mmas = [], []
    for line in sys.stdin:
        f = FRAGMENT.search(line)
        if f:
            layouts.append(f)
        g = MMA.search(line)
        if g:
            mmas.append(g)
    if len(layouts) != want or len(mmas) != want:
        sys.exit(f"expected {want} layouts and mfma choices, got {len(layouts)} and {len(mmas)}")
    for f, g in zip(layouts, mmas):
        m, n, threads = int(f[1]), int(f[2]), int(f[3])
        atom, wm, wn = int(g[1]), int(g[4]), int(g[5])
        assert threads == 64 * wm * wn, (threads, wm, wn)
        thread_of, reg_of = map(compile_expr, split_results(f[4]))
        seen = set()
        for i in range(m):
            for j in range(n):
                got = (thread_of(i, j), reg_of(i, j))
                exp = expected_slot(i, j, m, n, wm, wn, atom)
                if got != exp:
                    sys.exit(f"{m}x{n} m{atom} warps [{wm}, {wn}]: element ({i}, {j}) is at "
                             f"(thread, register) {got}, AMD's layout puts it at {exp}")
                seen.add(got)
        assert len(seen) == m * n
    print(f"checked {want} accumulator layouts")


main()
