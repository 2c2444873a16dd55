"""TileLang's DeepSeek MLA decode example (examples/deepseek_mla/
example_mla_decode.py of a TileLang checkout) on the GPU, after the
import-only change: its kernel needs shared buffers that share bytes
(tile-plan-shared) to fit sm_90a. Checked against a torch reference of
ours; prints the kernel's dynamic shared memory and its time.

    # build machine (no GPU: "cuda" is sm_90a, the H200's chip)
    TILEMLIR_CACHE_DIR=.jitcache .venv/bin/python benchmark/gpu/mla_decode.py /path/to/tilelang --fill
    # GPU machine (carry .jitcache; needs torch, not the compiler)
    TILEMLIR_CACHE_DIR=.jitcache PYTHONPATH=python python3 benchmark/gpu/mla_decode.py /path/to/tilelang

The example's program is read from the checkout (nothing of it is kept
here); only its import lines change.
"""

import json
import pathlib
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


def load_example(checkout):
    """The example as a module, its imports rewritten; its __main__ does
    not run. (It imports torch and einops at the top.)"""
    path = pathlib.Path(checkout) / EXAMPLE
    text, _ = rewrite_imports(path.read_text())
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


def kernel_for(example, batch):
    """The example's no-split kernel, compiled for sm_90a (from the cache on
    the GPU machine)."""
    s = SHAPE
    scale = (s["dim"] + s["pe_dim"]) ** -0.5
    prim = example.flashattn.factory(batch, s["heads"], s["kv_heads"], s["kv_ctx"], s["dim"],
                                     s["pe_dim"], BLOCK_N, BLOCK_H, 1, scale)
    return tilemlir.compile(prim, out_idx=[4], target="cuda",
                            pass_configs={tilemlir.PassConfigKey.TL_ENABLE_FAST_MATH: True})


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


def run(checkout):
    import torch
    example = load_example(checkout)
    s = SHAPE
    for batch in BATCHES:
        kernel = kernel_for(example, batch)
        torch.manual_seed(batch)
        q = torch.randn(batch, s["heads"], s["dim"], device="cuda", dtype=torch.float16)
        q_pe = torch.randn(batch, s["heads"], s["pe_dim"], device="cuda", dtype=torch.float16)
        kv = torch.randn(batch, s["kv_ctx"], 1, s["dim"], device="cuda", dtype=torch.float16)
        k_pe = torch.randn(batch, s["kv_ctx"], 1, s["pe_dim"], device="cuda", dtype=torch.float16)
        out = kernel(q, q_pe, kv, k_pe)
        want = reference(q, q_pe, kv, k_pe)
        err = (out.float() - want).abs().max().item()
        torch.testing.assert_close(out.float(), want, rtol=1e-2, atol=1e-2)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        for _ in range(10):
            kernel(q, q_pe, kv, k_pe)
        start.record()
        for _ in range(50):
            kernel(q, q_pe, kv, k_pe)
        end.record()
        torch.cuda.synchronize()
        ms = start.elapsed_time(end) / 50
        print(f"batch {batch}: ok (max |error| {err:.2e}), {shared_bytes(kernel)} bytes of "
              f"shared memory, {ms:.3f} ms")
    print("mla decode: ok")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 1:
        sys.exit(__doc__)
    fill(args[0]) if "--fill" in sys.argv[1:] else run(args[0])
