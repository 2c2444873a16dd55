"""TileLang's DeepSeek MLA decode example (examples/deepseek_mla/
example_mla_decode.py of a TileLang checkout) on the GPU, after the
import-only change: its kernel needs shared buffers that share bytes
(tile-plan-shared) to fit sm_90a. Checked against a torch reference of
ours; prints the kernel's dynamic shared memory and its time.

    # build machine (no GPU: "cuda" is sm_90a, the H200's chip)
    TILEMLIR_CACHE_DIR=.jitcache .venv/bin/python benchmark/gpu/mla_decode.py /path/to/tilelang --fill
    # GPU machine (carry .jitcache; needs torch, not the compiler)
    TILEMLIR_CACHE_DIR=.jitcache PYTHONPATH=python python3 benchmark/gpu/mla_decode.py /path/to/tilelang
    # ... and TileLang's own kernel of the example beside ours, on the same
    # inputs, timed the same way (DIR: where TileLang's wheel is unpacked)
    TILEMLIR_CACHE_DIR=.jitcache PYTHONPATH=python python3 benchmark/gpu/mla_decode.py /path/to/tilelang --tilelang=DIR

The example's program is read from the checkout (nothing of it is kept
here); only its import lines change. TileLang's kernel runs in a child
process that imports TileLang from DIR and the example as it is.
"""

import json
import os
import pathlib
import subprocess
import sys
import types

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "benchmark"))

import tilemlir  # noqa: E402
from corpus.rewrite import rewrite_imports  # noqa: E402

EXAMPLE = "examples/deepseek_mla/example_mla_decode.py"
# The example's main(): one KV head, 128 query heads, 8192 keys, 512 + 64
# dims, 64 x 64 tiles, no split. Batches: main()'s 1 and __main__'s 132.
SHAPE = dict(heads=128, kv_heads=1, kv_ctx=8192, dim=512, pe_dim=64)
BATCHES = (1, 132)
BLOCK_N = BLOCK_H = 64


def load_example(checkout, rewrite=True):
    """The example as a module, its imports rewritten (or, for TileLang's
    own run, not); its __main__ does not run. (It imports torch and einops
    at the top.)"""
    path = pathlib.Path(checkout) / EXAMPLE
    text = path.read_text()
    if rewrite:
        text, _ = rewrite_imports(text)
    try:
        import einops  # noqa: F401
    except ImportError:
        # Only the example's own reference uses it (reference() below
        # replaces that): the GPU machine has no einops.
        stub = types.ModuleType("einops")
        stub.rearrange = stub.einsum = None
        sys.modules["einops"] = stub
    module = types.ModuleType("mla_decode_example")
    module.__file__ = str(path)
    exec(compile(text, str(path), "exec"), module.__dict__)
    return module


def kernel_args(batch):
    s = SHAPE
    scale = (s["dim"] + s["pe_dim"]) ** -0.5
    return (batch, s["heads"], s["kv_heads"], s["kv_ctx"], s["dim"], s["pe_dim"], BLOCK_N,
            BLOCK_H, 1, scale)


def kernel_for(example, batch):
    """The example's no-split kernel, compiled for sm_90a (from the cache on
    the GPU machine)."""
    prim = example.flashattn.factory(*kernel_args(batch))
    return tilemlir.compile(prim, out_idx=[4], target="cuda",
                            pass_configs={tilemlir.PassConfigKey.TL_ENABLE_FAST_MATH: True})


def inputs(batch):
    """The seeded inputs of a batch (the same in both processes)."""
    import torch
    s = SHAPE
    torch.manual_seed(batch)
    q = torch.randn(batch, s["heads"], s["dim"], device="cuda", dtype=torch.float16)
    q_pe = torch.randn(batch, s["heads"], s["pe_dim"], device="cuda", dtype=torch.float16)
    kv = torch.randn(batch, s["kv_ctx"], 1, s["dim"], device="cuda", dtype=torch.float16)
    k_pe = torch.randn(batch, s["kv_ctx"], 1, s["pe_dim"], device="cuda", dtype=torch.float16)
    return q, q_pe, kv, k_pe


def check_and_time(kernel, args):
    """Max |error| against the reference (asserted within 1e-2) and the mean
    time of 50 calls after 10, in ms."""
    import torch
    out = kernel(*args)
    want = reference(*args)
    err = (out.float() - want).abs().max().item()
    torch.testing.assert_close(out.float(), want, rtol=1e-2, atol=1e-2)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(10):
        kernel(*args)
    start.record()
    for _ in range(50):
        kernel(*args)
    end.record()
    torch.cuda.synchronize()
    return err, start.elapsed_time(end) / 50


def tilelang_worker(checkout):
    """(Child process, TileLang on its path.) TileLang's own compile of the
    example's kernel on the same inputs: one JSON line per batch."""
    example = load_example(checkout, rewrite=False)
    for batch in BATCHES:
        kernel = example.flashattn(*kernel_args(batch))
        err, ms = check_and_time(kernel, inputs(batch))
        print(json.dumps({"batch": batch, "err": err, "ms": ms}), flush=True)


def tilelang_times(checkout, wheel):
    """{batch: (max |error|, ms)} of TileLang's kernel, run from `wheel`."""
    env = dict(os.environ, PYTHONPATH=str(wheel))
    proc = subprocess.run([sys.executable, __file__, checkout, "--tilelang-worker"], env=env,
                          capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        sys.exit(f"TileLang's run failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}")
    rows = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    return {r["batch"]: (r["err"], r["ms"]) for r in rows}


def shared_bytes(kernel):
    meta = json.loads((kernel.bundle_dir / "bundle.json").read_text())
    return meta.get("shared_bytes")


def reference(q, q_pe, kv, k_pe):
    """softmax([q, q_pe] . [kv, k_pe]^T / sqrt(576)) . kv, in float32, for
    one KV head shared by all query heads."""
    import torch
    query = torch.cat([q, q_pe], dim=-1).float()            # b h d
    key = torch.cat([kv, k_pe], dim=-1)[:, :, 0].float()     # b s d
    scores = torch.einsum("bhd,bsd->bhs", query, key) / query.shape[-1] ** 0.5
    return torch.einsum("bhs,bsd->bhd", scores.softmax(-1), kv[:, :, 0].float())


def fill(checkout):
    example = load_example(checkout)
    for batch in BATCHES:
        kernel = kernel_for(example, batch)
        print(f"batch {batch}: compiled, {shared_bytes(kernel)} bytes of shared memory")


def run(checkout, wheel=None):
    theirs = tilelang_times(checkout, wheel) if wheel else {}
    example = load_example(checkout)
    for batch in BATCHES:
        kernel = kernel_for(example, batch)
        err, ms = check_and_time(kernel, inputs(batch))
        line = (f"batch {batch}: ok (max |error| {err:.2e}), {shared_bytes(kernel)} bytes of "
                f"shared memory, {ms:.3f} ms")
        if batch in theirs:
            their_err, their_ms = theirs[batch]
            line += (f"; TileLang: ok (max |error| {their_err:.2e}), {their_ms:.3f} ms; "
                     f"ours / TileLang's speed {their_ms / ms:.2f}x")
        print(line)
    print("mla decode: ok")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    options = dict(a[2:].split("=", 1) if "=" in a else (a[2:], "") for a in sys.argv[1:]
                   if a.startswith("--"))
    if len(args) != 1:
        sys.exit(__doc__)
    if "tilelang-worker" in options:
        tilelang_worker(args[0])
    elif "fill" in options:
        fill(args[0])
    else:
        run(args[0], options.get("tilelang"))
