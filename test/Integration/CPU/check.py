"""Checks the buffers tile-run saved against a numpy reference.

    check.py DIR --out N --ref "in0 @ in1" [--rtol R] [--atol A]
    check.py DIR --out 2 --ref "..." --out 3 --ref "..."

inK.npy / outK.npy are argument K before / after the call, loaded as
float64 arrays named inK / outK; the reference expression may use numpy as
`np` and the helpers below. A check passes when no element is NaN and
|out - ref| <= atol + rtol * |ref| everywhere. Prints one line per check.
"""

import argparse
import pathlib
import sys

import numpy as np


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def attention(q, k, v, causal=False, scale=None):
    """q [.., Sq, D], k/v [.., Sk, D] -> [.., Sq, D]."""
    scale = 1.0 / np.sqrt(q.shape[-1]) if scale is None else scale
    s = q @ np.swapaxes(k, -1, -2) * scale
    if causal:
        sq, sk = s.shape[-2], s.shape[-1]
        mask = np.tril(np.ones((sq, sk), dtype=bool), k=sk - sq)
        s = np.where(mask, s, -np.inf)
    return softmax(s) @ v


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("dir")
    parser.add_argument("--out", type=int, action="append", required=True)
    parser.add_argument("--ref", action="append", required=True)
    parser.add_argument("--rtol", type=float, default=1e-5)
    parser.add_argument("--atol", type=float, default=1e-5)
    args = parser.parse_args()
    if len(args.out) != len(args.ref):
        parser.error("give one --ref per --out")

    d = pathlib.Path(args.dir)
    env = {"np": np, "softmax": softmax, "attention": attention}
    for f in sorted(d.glob("*.npy")):
        env[f.stem] = np.load(f).astype(np.float64)

    ok = True
    for out, ref_expr in zip(args.out, args.ref):
        got = env[f"out{out}"]
        ref = np.asarray(eval(ref_expr, env), dtype=np.float64)
        if got.shape != ref.shape:
            print(f"out{out}: shape {got.shape} != reference shape {ref.shape}")
            ok = False
            continue
        nans = int(np.isnan(got).sum() - np.isnan(ref).sum())
        err = np.abs(got - ref)
        bad = ~(err <= args.atol + args.rtol * np.abs(ref)) & ~(np.isnan(ref) & np.isnan(got))
        status = "ok" if not bad.any() and nans == 0 else "MISMATCH"
        finite = err[np.isfinite(err)]
        print(f"out{out}: {status} shape={got.shape} max_abs_err={finite.max() if finite.size else 0:.3g} "
              f"bad={int(bad.sum())} nan={max(nans, 0)}")
        if status != "ok":
            idx = np.argwhere(bad)[:5]
            for i in idx:
                t = tuple(i)
                print(f"  at {t}: got {got[t]!r} expected {ref[t]!r}")
            ok = False
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
