"""Checks the row layouts that tile-infer-layouts gives to the reductions of
mfma accumulators along their rows (stdin: its output, one gemm and one
1-d fragment a function, in order): every thread that holds an element of
row i of the accumulator, in AMD's MFMA register layout (lane l of a
32x32 atom holds column l mod 32 and rows 8 (v // 4) + 4 (l // 32) + v mod
4, of a 16x16 atom column l mod 16 and rows 4 (l // 16) + v), must hold
row i in the row layout, and no other thread; each row is held once a
thread. Argument: how many layouts the input must hold."""

import re
import sys

ROW = re.compile(r"tile\.layout = #tile\.fragment<\[(\d+)\], threads = (\d+), \(d0\) -> "
                 r"\((.*)\), replicate = (\d+), inverse = \(d0, d1\) -> \((.*)\)>")


def compile_expr(args, text):
    return eval(f"lambda {args}: (" + text.replace("floordiv", "//").replace("mod", "%") + ")")


def holders(m, n, wm, wn, atom):
    """row -> the threads that hold an element of it (AMD's layout)."""
    tile_m, tile_n = m // wm, n // wn
    rows = {}
    for w in range(wm * wn):
        for ar in range(tile_m // atom):
            for lane in range(64):
                for v in range(atom * atom // 64):
                    r = 8 * (v // 4) + 4 * (lane // 32) + v % 4 if atom == 32 \
                        else 4 * (lane // 16) + v
                    row = (w // wn) * tile_m + ar * atom + r
                    rows.setdefault(row, set()).add(w * 64 + lane)
    return rows


def main():
    want = int(sys.argv[1])
    text = sys.stdin.read()
    rows = ROW.findall(text)
    mmas = re.findall(r"mma = #tile\.mma<mfma, m(\d+)n\d+k\d+, warps = \[(\d+), (\d+)\]>.*"
                      r"memref<(\d+)x(\d+)xf32, #tile\.scope<fragment>>", text)
    if len(rows) != want or len(mmas) != want:
        sys.exit(f"expected {want} row layouts and gemms, got {len(rows)} and {len(mmas)}")
    for (m, threads, body, rep, inverse), (atom, wm, wn, cm, cn) in zip(rows, mmas):
        m, threads, rep = int(m), int(threads), int(rep)
        atom, wm, wn, n = int(atom), int(wm), int(wn), int(cn)
        assert int(cm) == m
        row_of = compile_expr("d0, d1", inverse)
        regs = m * rep // threads
        got = {}
        for t in range(threads):
            mine = [row_of(t, q) for q in range(regs)]
            if len(set(mine)) != regs:
                sys.exit(f"thread {t} holds a row twice: {mine}")
            for row in mine:
                got.setdefault(row, set()).add(t)
        exp = holders(m, n, wm, wn, atom)
        for row in range(m):
            if got.get(row) != exp[row]:
                sys.exit(f"{m}x{n} m{atom} warps [{wm}, {wn}]: row {row} is held by "
                         f"{sorted(got.get(row, ()))[:8]}..., the accumulator's row by "
                         f"{sorted(exp[row])[:8]}...")
        owner = compile_expr("d0", body)
        for row in range(m):
            if owner(row)[0] not in exp[row]:
                sys.exit(f"row {row}'s owner {owner(row)[0]} does not hold it")
    print(f"checked {want} row layouts")


main()
