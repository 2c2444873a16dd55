"""The programs vs_tilelang.py runs: TileLang's own examples, each with the
configurations its file uses (its main(), its __main__, its tests or its
run_regression_perf), plus shapes that are not multiples of the tiles.

A Case says how to compile the program's kernel from the loaded example
module (the same call for TileLang and for TileMLIR), how to make its
inputs, how to call it, and what to check it against: the program's own
reference where it has one, a torch reference of ours otherwise. Nothing of
the programs is kept here: vs_tilelang.py loads each from TileLang's
checkout by path."""

import dataclasses
import functools
import math
from typing import Callable, Optional


@dataclasses.dataclass
class Case:
    family: str
    file: str                 # path in TileLang's checkout
    kernel: str               # the kernel factory (for the table)
    config: str               # the configuration, in words
    build: Callable           # build(module) -> what call() takes
    inputs: Callable          # inputs(tensors, helper module) -> tuple of arguments
    reference: Callable       # reference(module, args) -> the expected output(s)
    work: float               # FLOPs, or bytes moved when unit is "GB/s"
    unit: str = "TFLOP/s"
    call: Callable = None     # call(built, args) -> output(s); default built(*args)
    prepare: Callable = None  # prepare(args): before the checked call (zeroing outputs)
    check: Callable = None    # check(out, ref) -> max error; raises AssertionError
    rtol: float = 1e-2
    atol: float = 1e-2
    edits: tuple = ()         # (old, new) text changes to the program, for both compilers
    defs_only: bool = False   # run only the file's imports, definitions and constants
    setup: Callable = None    # setup(module): globals a defs_only program reads
    baseline: Optional[tuple] = None  # (name, make(args) -> callable) timed beside both
    quick: bool = False       # in the --quick subset

    @property
    def program(self):
        return f"{self.file.split('/', 1)[1]}:{self.kernel}"

    def run(self, built, args):
        return self.call(built, args) if self.call else built(*args)


# ------------------------------------------------------------------ checks

def close(out, ref, rtol, atol):
    """Max |out - ref| of the outputs (a tensor or a sequence of them),
    compared with torch.testing.assert_close(rtol, atol) in float32."""
    import torch
    outs = out if isinstance(out, (list, tuple)) else [out]
    refs = ref if isinstance(ref, (list, tuple)) else [ref]
    if len(outs) != len(refs):
        raise AssertionError(f"{len(outs)} outputs, the reference has {len(refs)}")
    worst = 0.0
    for o, r in zip(outs, refs):
        o, r = o.float(), r.float().to(o.device)
        if o.shape != r.shape:
            raise AssertionError(f"output shape {tuple(o.shape)}, reference {tuple(r.shape)}")
        if not torch.isfinite(o).all():
            raise AssertionError("output has NaN or Inf")
        diff = (o - r).abs()
        worst = max(worst, diff.max().item())
        bad = diff > atol + rtol * r.abs()
        if bad.any():
            at = tuple(int(i) for i in torch.nonzero(bad)[0])
            raise AssertionError(
                f"{int(bad.sum())} of {bad.numel()} elements differ (rtol={rtol}, atol={atol}); "
                f"max |diff| {diff.max().item():.3g}; first at {at}: got {o[at].item():.6g}, "
                f"expected {r[at].item():.6g}")
    return worst


def cosine_check(limit):
    """The fp8 example's own test: 1 - cosine similarity below `limit`."""
    def check(out, ref):
        x, y = out.double(), ref.double()
        diff = 1 - 2 * (x * y).sum().item() / (x * x + y * y).sum().item()
        if not diff < limit:
            raise AssertionError(f"1 - similarity {diff:.3g} >= {limit}")
        return diff
    return check


# --------------------------------------------------------------- helpers

def _torch():
    import torch
    return torch


def _cublas_nt(args):
    a, b = args[0], args[1]
    return lambda: a @ b.T


def _cublas_nn(args):
    a, b = args[0], args[1]
    return lambda: a @ b


def _gemm_config(m, n, k, **extra):
    text = f"{m}x{n}x{k}"
    if extra:
        text += " " + " ".join(f"{k}={v}" for k, v in extra.items())
    return text


# ------------------------------------------------------------------- GEMM

def gemm_cases():
    cases = []
    # examples/gemm/example_gemm.py: its main() 1024^3 with 128x128x32, and
    # larger / ragged shapes with the same tiles.
    for i, (m, n, k) in enumerate(((1024, 1024, 1024), (4096, 4096, 4096), (4095, 4097, 1000))):
        cases.append(Case(
            "gemm", "examples/gemm/example_gemm.py", "matmul",
            _gemm_config(m, n, k) + " fp16, 128x128x32, 128 threads, 3 stages",
            build=lambda mod, m=m, n=n, k=k: mod.matmul.compile(
                M=m, N=n, K=k, block_M=128, block_N=128, block_K=32),
            inputs=lambda t, h, m=m, n=n, k=k: (t.randn(m, k), t.randn(k, n)),
            reference=lambda mod, a: a[0] @ a[1],
            work=2 * m * n * k, baseline=("cuBLAS", _cublas_nn), quick=i == 1))
    # examples/gemm/example_gemm_autotune.py: its heuristic configurations
    # (sm_90, sm_80) and others of its search space, fp16 and bf16.
    sm90 = dict(block_M=128, block_N=256, block_K=64, num_stages=3, thread_num=256,
                enable_rasteration=True)
    sm80 = dict(block_M=128, block_N=256, block_K=32, num_stages=2, thread_num=128,
                enable_rasteration=True)
    square = dict(block_M=128, block_N=128, block_K=64, num_stages=3, thread_num=256,
                  enable_rasteration=True)
    small = dict(block_M=64, block_N=128, block_K=64, num_stages=2, thread_num=128,
                 enable_rasteration=False)
    for name, cfg, (m, n, k), dtype in (
            ("sm_90 heuristic", sm90, (4096, 4096, 4096), "float16"),
            ("sm_90 heuristic", sm90, (4096, 4096, 4096), "bfloat16"),
            ("sm_90 heuristic", sm90, (8192, 8192, 8192), "float16"),
            ("sm_90 heuristic", sm90, (4095, 4097, 1000), "float16"),
            ("sm_80 heuristic", sm80, (4096, 4096, 4096), "float16"),
            ("128x128x64 s3 t256", square, (4096, 4096, 4096), "float16"),
            ("64x128x64 s2 t128", small, (4096, 4096, 4096), "float16"),
            ("64x128x64 s2 t128", small, (200, 328, 136), "bfloat16")):
        cases.append(Case(
            "gemm", "examples/gemm/example_gemm_autotune.py", "matmul",
            f"{_gemm_config(m, n, k)} {dtype}, {name}"
            f" ({cfg['block_M']}x{cfg['block_N']}x{cfg['block_K']}, {cfg['thread_num']} threads,"
            f" {cfg['num_stages']} stages)",
            build=lambda mod, m=m, n=n, k=k, cfg=cfg, dtype=dtype: mod.matmul(
                m, n, k, **cfg, dtype=getattr(mod.T, dtype)),
            inputs=lambda t, h, m=m, n=n, k=k, dtype=dtype: (
                t.randn(m, k, dtype=dtype), t.randn(n, k, dtype=dtype)),
            reference=lambda mod, a: mod.ref_program(*a),
            work=2 * m * n * k, baseline=("cuBLAS", _cublas_nt),
            quick=name == "sm_90 heuristic" and m == 4096 and dtype == "float16"))
    return cases


def fp8_gemm_cases():
    cases = []
    # examples/gemm_fp8/example_tilelang_gemm_fp8.py: main() (1024^3, e4m3
    # and e5m2) and run_regression_perf (4096^3), 128x128x64.
    for fmt, (m, n, k) in (("e4m3", (1024, 1024, 1024)), ("e5m2", (1024, 1024, 1024)),
                           ("e4m3", (4096, 4096, 4096)), ("e4m3", (1000, 1000, 1024))):
        def build(mod, m=m, n=n, k=k, fmt=fmt):
            dtype = mod.determine_fp8_type() if fmt == "e4m3" else mod.determine_fp8_type(fmt)
            return mod.matmul.compile(M=m, N=n, K=k, block_M=128, block_N=128, block_K=64,
                                      dtype=dtype)

        def inputs(t, h, m=m, n=n, k=k, fmt=fmt):
            torch = t.torch
            dt = torch.float8_e4m3fn if fmt == "e4m3" else torch.float8_e5m2
            return t.randn(m, k).to(dt), t.randn(n, k).to(dt)

        cases.append(Case(
            "fp8 gemm", "examples/gemm_fp8/example_tilelang_gemm_fp8.py", "matmul",
            f"{_gemm_config(m, n, k)} {fmt}, 128x128x64, 128 threads",
            build=build, inputs=inputs,
            reference=lambda mod, a: (a[0].half() @ a[1].half().T).to(a[0].dtype),
            check=cosine_check(1e-3), work=2 * m * n * k, quick=m == 4096))
    return cases


def splitk_cases():
    cases = []
    for file, label in (("examples/gemm_splitk/example_tilelang_gemm_splitk.py", "split-K"),
                        ("examples/gemm_splitk/example_tilelang_gemm_splitk_vectorize_atomicadd.py",
                         "split-K vectorized atomics")):
        # main() at 1024^3 and run_regression_perf at 4096^3, 128x128x32,
        # split 4; and ragged M, N.
        for m, n, k in ((1024, 1024, 1024), (4096, 4096, 4096), (1000, 1000, 1024)):
            cases.append(Case(
                "split-K gemm", file, "matmul",
                f"{_gemm_config(m, n, k)} fp16 -> fp32, 128x128x32, split 4 ({label})",
                build=lambda mod, m=m, n=n, k=k: mod.matmul.compile(
                    M=m, N=n, K=k, block_M=128, block_N=128, block_K=32, split_k=4),
                inputs=lambda t, h, m=m, n=n, k=k: (
                    t.randn(m, k), t.randn(k, n), t.zeros(m, n, dtype="float32")),
                prepare=lambda a: a[2].zero_(),
                call=lambda kernel, a: (kernel(*a), a[2])[1],
                reference=lambda mod, a: (a[0] @ a[1]).float(),
                work=2 * m * n * k, baseline=("cuBLAS", _cublas_nn), quick=m == 4096))
    # examples/gemm_streamk: its module-level problem (256x1024x512, 108
    # stream-K programs, 16x128x32 tiles, 2 stages, 64 threads).
    cases.append(Case(
        "stream-K gemm", "examples/gemm_streamk/example_tilelang_gemm_streamk.py",
        "tl_matmul_streamk", "256x1024x512 fp16 -> fp32, 16x128x32, 108 programs",
        build=lambda mod: mod.tl_matmul_streamk.compile(
            M=256, N=1024, K=512, streamk_tiles=mod.streamk_tiles, block_M=mod.BLOCK_SIZE_M,
            block_N=mod.BLOCK_SIZE_N, block_K=mod.BLOCK_SIZE_K, trans_A=False, trans_B=True,
            dtypeAB=mod.T.float16, dtypeC=mod.T.float32, accum_dtype=mod.T.float32,
            num_stages=2, threads=64),
        inputs=lambda t, h: (h.A, h.B, t.zeros(256, 1024, dtype="float32")),
        prepare=lambda a: a[2].zero_(),
        call=lambda kernel, a: (kernel(*a), a[2])[1],
        reference=lambda mod, a: (a[0] @ a[1].T).float(),
        work=2 * 256 * 1024 * 512, baseline=("cuBLAS", _cublas_nt), quick=True))
    return cases


# ------------------------------------------------------------------- GEMV

def gemv_cases():
    file = "examples/gemv/example_gemv.py"
    cases = []
    # main()'s six kernels with its configurations, at run_regression_perf's
    # 4096 x 4096.
    for kernel, cfg in (("naive_gemv", dict(BLOCK_N=128, BLOCK_K=128)),
                        ("naive_splitk_gemv", dict(BLOCK_N=32, BLOCK_K=32)),
                        ("splitk_gemv", dict(BLOCK_N=32, BLOCK_K=32, reduce_threads=32)),
                        ("splitk_gemv_vectorized", dict(BLOCK_N=2, reduce_threads=32)),
                        ("splitk_gemv_vectorized_tvm", dict(BLOCK_N=2, reduce_threads=32))):
        n = k = 4096
        cases.append(Case(
            "gemv", file, kernel,
            f"N=K={n} fp16, " + ", ".join(f"{a}={b}" for a, b in cfg.items()),
            build=lambda mod, kernel=kernel, cfg=cfg, n=n, k=k: getattr(mod, kernel).compile(
                N=n, K=k, **cfg),
            inputs=lambda t, h, n=n, k=k: (t.randn(k), t.randn(n, k)),
            reference=lambda mod, a: mod.ref_program(*a),
            work=2 * n * k * 2, unit="GB/s", quick=kernel == "splitk_gemv_vectorized"))
    for m, n in ((4096, 4096), (1000, 3000)):
        cases.append(Case(
            "gemv", file, "gemv_alloc_reducer",
            f"M={m} N={n} fp16, 128x128, 256 threads, 2 stages",
            build=lambda mod, m=m, n=n: mod.gemv_alloc_reducer.compile(
                M=m, N=n, block_M=128, block_N=128),
            inputs=lambda t, h, m=m, n=n: (t.randn(m, n), t.randn(n)),
            # The program multiplies in f16 (a_frag[i, j] * x_frag[j], both
            # f16) and sums in f32: so does the reference (a plain f16 GEMV
            # rounds differently: both compilers failed it by up to 0.08 on
            # randn inputs, 2026-12-07).
            reference=lambda mod, a: (a[0] * a[1]).float().sum(-1),
            work=2 * m * n * 2, unit="GB/s"))
    return cases


def _unpack_int4(q):
    """int8 bytes holding two unsigned 4-bit values (low nibble first), as
    fp16 of twice the width."""
    torch = _torch()
    u = q.to(torch.uint8)
    return torch.stack((u & 0x0F, u >> 4), dim=-1).reshape(q.shape[0], q.shape[1] * 2).half()


def dequant_cases():
    cases = []
    # examples/dequantize_gemm/example_dequant_gemv_fp16xint4.py: main()
    # (1 x 1024 x 1024) and run_regression_perf (1 x 8192 x 8192), fast
    # decoding (LOP3), fp16 accumulation.
    for n, k in ((1024, 1024), (8192, 8192)):
        def inputs(t, h, n=n, k=k):
            import quantize.utils
            qb = t.randint(0, 127, (n, k // 2), dtype="int8")
            return (t.rand(1, k), quantize.utils.interleave_weight(qb, 4, "float16"),
                    t.zeros(1, n), qb)

        cases.append(Case(
            "dequantize gemv", "examples/dequantize_gemm/example_dequant_gemv_fp16xint4.py",
            "dequantize_gemv", f"1x{n}x{k} fp16 x uint4, fast decoding, 4 partitions",
            build=lambda mod, n=n, k=k: mod.dequantize_gemv(
                1, n, k, "float16", "float16", "float16", 4, "int8", "uint", 4, 32, True,
                False, True, -1, False),
            inputs=inputs, prepare=lambda a: a[2].zero_(),
            call=lambda kernel, a: (kernel(a[0], a[1], a[2]), a[2])[1],
            # Its main()'s check: the unscaled 4-bit values, loose bounds.
            reference=lambda mod, a: a[0] @ _unpack_int4(a[3]).T,
            rtol=1e-1, atol=1e3, work=n * k // 2 + 2 * (k + n), unit="GB/s", quick=n == 8192))
    # examples/dequantize_gemm/example_dequant_gemm_fine_grained.py: its
    # test's W4A16 matmul (fp16 x uint4, 128x128x32, 3 stages, 128 threads)
    # at the test's 256^3 with its fp16 accumulator, and at 4096^3 with an
    # fp32 one (an fp16 sum of 4096 products is too coarse to check).
    for m, accum in ((256, "float16"), (4096, "float32")):
        cases.append(Case(
            "dequantize gemm", "examples/dequantize_gemm/example_dequant_gemm_fine_grained.py",
            "matmul", f"{m}^3 fp16 x uint4 -> fp16, {accum} accumulator, 128x128x32, "
            "3 stages, 128 threads",
            build=lambda mod, m=m, accum=accum: mod.matmul(m, m, m, 128, 128, 32, "float16",
                                                           "float16", accum, 3, 128),
            inputs=lambda t, h, m=m: (t.rand(m, m), t.randint(0, 127, (m, m // 2),
                                                              dtype="int8")),
            reference=lambda mod, a: (a[0].float() @ mod._unpack_unsigned_int4_to_half(
                a[1]).T.float()).half(),
            work=2 * m ** 3, quick=m == 4096))
    return cases


def gemm_sp_cases():
    cases = []
    # examples/gemm_sp/example_gemm_sp.py: main()'s 1024^3 configuration
    # and its __main__'s tiles (128x256x128, 2 stages, 256 threads) at 8192^3.
    for m, cfg in ((1024, (128, 128, 64, 2, 128)), (8192, (128, 256, 128, 2, 256))):
        def inputs(t, h, m=m):
            a = h.randn_semi_sparse(m, m, device="cuda", dtype=t.torch.half)
            sparse, e = h.compress(a, meta_dtype=t.torch.int16)
            return sparse, e, t.randn(m, m), a

        cases.append(Case(
            "gemm_sp", "examples/gemm_sp/example_gemm_sp.py", "matmul_sp_fp16",
            f"{m}^3 fp16 2:4, {cfg[0]}x{cfg[1]}x{cfg[2]}, {cfg[3]} stages, {cfg[4]} threads",
            build=lambda mod, m=m, cfg=cfg: mod.matmul_sp_fp16(
                m, m, m, mod.T.float, mod.T.int16, *cfg, mod.T.GemmWarpPolicy.Square, True),
            inputs=inputs, call=lambda kernel, a: kernel(a[0], a[1], a[2]),
            reference=lambda mod, a: (a[3] @ a[2]).half(),
            work=2 * m ** 3, baseline=("cuBLAS dense", lambda a: lambda: a[3] @ a[2]),
            quick=m == 8192))
    return cases


# ------------------------------------------------------------ attention

def _sdpa(layout, causal, groups=1):
    """cuDNN / flash SDPA on the same tensors (BSHD ones transposed)."""
    def make(args):
        torch = _torch()
        q, k, v = args[:3]
        if layout == "bshd":
            q, k, v = (x.transpose(1, 2) for x in (q, k, v))
        return lambda: torch.nn.functional.scaled_dot_product_attention(
            q, k, v, is_causal=causal, enable_gqa=groups > 1)
    return make


BF16 = (("dtype = T.float16", "dtype = T.bfloat16"),)


def attention_fwd_cases():
    cases = []
    # (file, layout, extra arguments) for MHA BSHD, MHA BHSD, GQA BSHD.
    mha_bshd = "examples/flash_attention/example_mha_fwd_bshd.py"
    mha_bhsd = "examples/flash_attention/example_mha_fwd_bhsd.py"
    gqa_bshd = "examples/flash_attention/example_gqa_fwd_bshd.py"
    # main()'s configurations: BSHD 128x128, 1 stage, 128 threads;
    # BHSD run_regression_perf's 128x128, 2 stages, 256 threads. bf16: the
    # program with its `dtype = T.float16` line changed to T.bfloat16.
    for file, layout, tiles, runs in (
            (mha_bshd, "bshd", "128x128, 1 stage, 128 threads",
             [((8, 32, 4096, 128), "float16", False), ((8, 32, 4096, 128), "float16", True),
              ((8, 32, 4096, 128), "bfloat16", False), ((8, 32, 4096, 128), "bfloat16", True),
              ((4, 16, 1000, 64), "float16", True), ((2, 4, 333, 64), "bfloat16", False)]),
            (mha_bhsd, "bhsd", "128x128, 2 stages, 256 threads",
             [((8, 32, 4096, 128), "float16", False), ((8, 32, 4096, 128), "float16", True),
              ((8, 32, 4096, 128), "bfloat16", False), ((4, 16, 1000, 64), "float16", True)])):
        for (b, h, s, d), dtype, causal in runs:
            if layout == "bshd":
                build = (lambda mod, b=b, h=h, s=s, d=d, c=causal: mod.flashattn(
                    b, h, s, d, c, block_M=128, block_N=128, num_stages=1, threads=128))
            else:
                build = (lambda mod, b=b, h=h, s=s, d=d, c=causal: mod.flashattn(
                    b, h, s, s, d, c, block_M=128, block_N=128, num_stages=2, threads=256))
            cases.append(_fwd_case(
                file, layout, f"b{b} h{h} s{s} d{d} {dtype}{' causal' if causal else ''}, {tiles}",
                b, h, s, d, build, lambda mod, a, c=causal: mod.ref_program(*a, c),
                dtype=dtype, causal=causal, edits=BF16 if dtype == "bfloat16" else (),
                quick=s == 4096 and dtype == "float16"))
    # GQA: main()'s b1 h64 s4096 d128 groups 16 (64x64, 2 stages, 128
    # threads), and a ragged length.
    for (b, h, s, d, groups), causal in (((1, 64, 4096, 128, 16), False),
                                         ((1, 64, 4096, 128, 16), True),
                                         ((2, 32, 1000, 64, 8), True)):
        cases.append(_fwd_case(
            gqa_bshd, "bshd", f"b{b} h{h} kv-heads {h // groups} s{s} d{d} float16"
            f"{' causal' if causal else ''}, 64x64, 2 stages, 128 threads", b, h, s, d,
            lambda mod, b=b, h=h, s=s, d=d, c=causal, g=groups: mod.flashattn(
                b, h, s, d, c, groups=g, block_M=64, block_N=64, num_stages=2, threads=128),
            lambda mod, a, c=causal, g=groups: mod.ref_program(*a, c, groups=g),
            dtype="float16", causal=causal, groups=groups, quick=s == 4096 and not causal))
    return cases


def _fwd_case(file, layout, config, b, h, s, d, build, reference, dtype, causal, groups=1,
              edits=(), quick=False):
    kv_heads = h // groups

    def inputs(t, helper):
        q_shape = (b, s, h, d) if layout == "bshd" else (b, h, s, d)
        kv_shape = (b, s, kv_heads, d) if layout == "bshd" else (b, kv_heads, s, d)
        return t.randn(*q_shape, dtype=dtype), t.randn(*kv_shape, dtype=dtype), \
            t.randn(*kv_shape, dtype=dtype)

    def reference_f32(mod, args):
        """The program's reference on float32 copies (in bf16 it is itself
        as coarse as the kernels)."""
        return reference(mod, [x.float() for x in args])

    flops = 4 * b * h * s * s * d * (0.5 if causal else 1)
    tol = 2e-2 if dtype == "bfloat16" else 1e-2
    return Case("attention fwd", file, "flashattn", config, build=build, inputs=inputs,
                reference=reference_f32, work=flops, edits=edits, rtol=tol, atol=tol,
                baseline=("SDPA", _sdpa(layout, causal, groups)), quick=quick)


def _grads(out, do, leaves):
    """[out, d leaves] after out.backward(do); the leaves' .grad cleared."""
    out.backward(do)
    grads = [x.grad.clone() for x in leaves]
    for x in leaves:
        x.grad = None
    return [out.detach()] + grads


def _autograd_case(file, config, b, h, s, d, causal, layout, attention, groups=1, dv=None,
                   quick=False):
    """The example's torch.autograd.Function (its own forward and backward
    kernels), run and timed forward and backward: [O, dQ, dK, dV]."""
    dv = dv or d
    kv_heads = h // groups

    def inputs(t, helper):
        def shape(heads, dim):
            return (b, s, heads, dim) if layout == "bshd" else (b, heads, s, dim)
        q = t.randn(*shape(h, d)).requires_grad_()
        k = t.randn(*shape(kv_heads, d)).requires_grad_()
        v = t.randn(*shape(kv_heads, dv)).requires_grad_()
        return q, k, v, t.randn(*shape(h, dv))

    def reference(mod, a):
        extra = {"groups": groups} if groups > 1 else {}
        return _grads(mod.ref_program(*a[:3], causal, **extra), a[3], a[:3])

    # Forward: Q K^T, P V; backward: Q K^T again, dV, dP, dQ, dK.
    flops = 2 * b * h * s * s * (4 * d + 3 * dv) * (0.5 if causal else 1)
    return Case("attention fwd+bwd", file, "attention (fwd + bwd kernels)", config,
                build=lambda mod: mod, inputs=inputs,
                call=lambda mod, a: _grads(attention(mod, *a[:3]), a[3], a[:3]),
                reference=reference, work=flops, rtol=5e-2, atol=5e-2, quick=quick)


def attention_bwd_cases():
    cases = []
    # MHA BSHD: main()'s b8 h32 s1024 d64, full and causal, and d128; BHSD
    # main()'s, full. The example's tiles (64 x 64, or 64 x 32 for d128).
    for file, layout, (b, h, s, d), causal in (
            ("examples/flash_attention/example_mha_bwd_bshd.py", "bshd", (8, 32, 1024, 64), False),
            ("examples/flash_attention/example_mha_bwd_bshd.py", "bshd", (8, 32, 1024, 64), True),
            ("examples/flash_attention/example_mha_bwd_bshd.py", "bshd", (4, 32, 2048, 128),
             False),
            ("examples/flash_attention/example_mha_bwd_bhsd.py", "bhsd", (8, 32, 1024, 64),
             False)):
        cases.append(_autograd_case(
            file, f"b{b} h{h} s{s} d{d} fp16{' causal' if causal else ''}, forward + backward",
            b, h, s, d, causal, layout,
            lambda mod, q, k, v, c=causal: mod.attention(q, k, v, c),
            quick=d == 64 and not causal and layout == "bshd"))
    # GQA: main()'s heads and dims (h32, 2 KV heads, dqk 192, dv 128, atomic
    # dK / dV) at a longer sequence than its 256.
    cases.append(_autograd_case(
        "examples/flash_attention/example_gqa_bwd.py",
        "b1 h32 kv-heads 2 s2048 dqk192 dv128 fp16, atomic dK/dV, forward + backward",
        1, 32, 2048, 192, False, "bshd",
        lambda mod, q, k, v: mod.attention(q, k, v, False, 16, True), groups=16, dv=128,
        quick=True))
    return cases


# ------------------------------------------------------------ decoding

def _gqa_decode_reference(q, k, v, mask):
    """softmax(q k^T / sqrt(d), masked where mask == 0) v, heads in groups
    sharing a KV head: q [b, h, d], k / v [b, s, g, d], mask [b, s, g]."""
    torch = _torch()
    b, h, d = q.shape
    g = k.shape[2]
    qg = q.float().view(b, g, h // g, d)
    scores = torch.einsum("bgrd,bsgd->bgrs", qg, k.float()) / math.sqrt(d)
    scores = scores.masked_fill((mask.permute(0, 2, 1) == 0)[:, :, None, :], float("-inf"))
    out = torch.einsum("bgrs,bsgd->bgrd", scores.softmax(-1), v.float())
    return out.reshape(b, h, d).half()


def decode_cases():
    cases = []
    # examples/flash_decoding/example_gqa_decode.py: main()'s b1 h32 groups 8
    # kv 8192 d128 with its sm_90 heuristic (128 keys, 64 heads a block, 8
    # splits, 2 stages, 128 threads); a batch and a ragged kv length.
    for b, s in ((1, 8192), (16, 8192), (4, 1000)):
        cases.append(Case(
            "flash decoding", "examples/flash_decoding/example_gqa_decode.py", "flashattn",
            f"b{b} h32 kv-heads 8 kv {s} d128 fp16, masked, 8 splits",
            build=lambda mod, b=b, s=s: mod.flashattn(b, 32, 8, s, 128, block_N=128, block_H=64,
                                                      num_split=8, num_stages=2, threads=128),
            inputs=lambda t, h, b=b, s=s: (t.randn(b, 32, 128), t.randn(b, s, 8, 128),
                                          t.randn(b, s, 8, 128),
                                          t.randint(0, 2, (b, s, 8), dtype="uint8")),
            reference=lambda mod, a: _gqa_decode_reference(*a),
            work=2 * (b * s * 8 * 128 * 2) + 2 * b * 32 * 128 * 2, unit="GB/s",
            quick=b == 16))
    # examples/flash_decoding/example_mha_inference.py: main()'s b1 h32 q128
    # kv8192 d128, 128x64 tiles. Not causal: the program's causal split path
    # is a TODO of its own (its ref_program asserts causal is False).
    for qs, s, causal in ((128, 8192, False),):
        cases.append(Case(
            "flash decoding", "examples/flash_decoding/example_mha_inference.py", "flashattn",
            f"b1 h32 q{qs} kv{s} d128 fp16{' causal' if causal else ''}, 128x64",
            build=lambda mod, qs=qs, s=s, c=causal: mod.flashattn(1, 32, qs, s, 128, c, 128, 64),
            inputs=lambda t, h, qs=qs, s=s: (t.randn(1, qs, 32, 128), t.randn(1, s, 32, 128),
                                            t.randn(1, s, 32, 128)),
            reference=lambda mod, a, c=causal: mod.ref_program(*a, c),
            work=4 * 32 * qs * s * 128 * (0.5 if causal else 1), quick=not causal))
    return cases


def mla_cases():
    cases = []
    # examples/deepseek_mla/example_mla_decode.py: main()'s batch 1 and
    # __main__'s batch 132; 128 heads, one KV head, kv 8192, 512 + 64 dims,
    # 64x64 tiles, no split.
    for batch in (1, 132):
        def inputs(t, h, batch=batch):
            return (t.randn(batch, 128, 512), t.randn(batch, 128, 64),
                    t.randn(batch, 8192, 1, 512), t.randn(batch, 8192, 1, 64))

        cases.append(Case(
            "MLA decode", "examples/deepseek_mla/example_mla_decode.py", "flashattn",
            f"batch {batch}, 128 heads, kv 8192, d 512+64, 64x64, no split",
            build=lambda mod, batch=batch: mod.flashattn(batch, 128, 1, 8192, 512, 64, 64, 64, 1,
                                                         576 ** -0.5),
            inputs=inputs, reference=lambda mod, a: _mla_reference(*a),
            work=2 * batch * 128 * 8192 * (576 + 512), quick=batch == 132))
    return cases


def _mla_reference(q, q_pe, kv, k_pe):
    """softmax([q, q_pe] [kv, k_pe]^T / sqrt(576)) kv for one KV head."""
    torch = _torch()
    query = torch.cat([q, q_pe], dim=-1).float()
    key = torch.cat([kv, k_pe], dim=-1)[:, :, 0].float()
    scores = torch.einsum("bhd,bsd->bhs", query, key) / query.shape[-1] ** 0.5
    return torch.einsum("bhs,bsd->bhd", scores.softmax(-1), kv[:, :, 0].float()).half()


# ----------------------------------------------- softmax, norm, elementwise

def _set_globals(**values):
    def setup(module):
        module.__dict__.update(values)
    return setup


def rowwise_cases():
    cases = []
    # examples/online_softmax/online_softmax.py: its module-level 8192^2
    # fp16 (M and N are globals the kernel reads); a ragged shape.
    for m, n in ((8192, 8192), (1000, 3000)):
        cases.append(Case(
            "softmax", "examples/online_softmax/online_softmax.py", "softmax_kernel",
            f"{m}x{n} fp16, 1x8192 blocks", defs_only=True, setup=_set_globals(M=m, N=n),
            build=lambda mod: mod.softmax_kernel.compile(),
            inputs=lambda t, h, m=m, n=n: (t.randn(m, n),),
            reference=lambda mod, a: a[0].softmax(dim=1),
            work=2 * m * n * 2, unit="GB/s",
            baseline=("torch", lambda a: lambda: a[0].softmax(dim=1)), quick=m == 8192))
    # examples/norm/rms_norm.py: __main__'s 8192^2 (one row a block; the
    # split-K form with 512 columns a step); a ragged shape.
    for kernel, (m, n), extra in (("rms_norm", (8192, 8192), dict(blk_m=1)),
                                  ("rms_norm", (1000, 1000), dict(blk_m=1)),
                                  ("rms_norm_splitk", (8192, 8192), dict(blk_m=1, blk_k=512))):
        cases.append(Case(
            "norm", "examples/norm/rms_norm.py", kernel,
            f"{m}x{n} fp32, " + ", ".join(f"{a}={b}" for a, b in extra.items()),
            build=lambda mod, kernel=kernel, m=m, n=n, extra=extra: getattr(mod, kernel).compile(
                M=m, N=n, **extra),
            inputs=lambda t, h, m=m, n=n: (t.randn(m, n, dtype="float32"),),
            reference=lambda mod, a: mod.ref_program(*a),
            work=2 * m * n * 4, unit="GB/s", quick=kernel == "rms_norm" and m == 8192))
    cases += layernorm_cases()
    # examples/elementwise/example_elementwise_add.py: 32x32 blocks, 128
    # threads, fp32, at main()'s 1024^2, run_regression_perf's 4096^2 and a
    # ragged shape.
    for m, n in ((1024, 1024), (4096, 4096), (1023, 1025)):
        cases.append(Case(
            "elementwise", "examples/elementwise/example_elementwise_add.py", "elementwise_add",
            f"{m}x{n} fp32, 32x32 blocks, 128 threads",
            build=lambda mod, m=m, n=n: mod.elementwise_add.compile(
                M=m, N=n, block_M=32, block_N=32, threads=128, in_dtype=mod.T.float32,
                out_dtype=mod.T.float32),
            inputs=lambda t, h, m=m, n=n: (t.randn(m, n, dtype="float32"),
                                          t.randn(m, n, dtype="float32")),
            reference=lambda mod, a: mod.ref_program(*a),
            work=3 * m * n * 4, unit="GB/s",
            baseline=("torch", lambda a: lambda: a[0] + a[1]), quick=m == 4096))
    return cases


def layernorm_cases():
    # examples/norm/layernorm.py: __main__'s 4096 x 8192 bf16, its forward
    # and backward kernels.
    n, d = 4096, 8192
    fwd = Case(
        "norm", "examples/norm/layernorm.py", "_layernorm_fwd",
        f"{n}x{d} bf16, one row a block, 256 threads",
        build=lambda mod: mod._layernorm_fwd(n, d, eps=1e-5),
        inputs=lambda t, h: (t.randn(n, d, dtype="bfloat16"), t.randn(d, dtype="bfloat16"),
                             t.randn(d, dtype="bfloat16")),
        call=lambda kernel, a: kernel(*a)[0],
        reference=lambda mod, a: mod.ref_program(*a, 1e-5),
        work=2 * n * d * 2, unit="GB/s", quick=True)
    bwd = Case(
        "norm", "examples/norm/layernorm.py", "_layernorm_bwd",
        f"{n}x{d} bf16, 32 rows a block, 256 threads",
        build=lambda mod: mod._layernorm_bwd(n, d),
        inputs=_layernorm_bwd_inputs(n, d),
        prepare=lambda a: (a[5].zero_(), a[6].zero_()),
        call=lambda kernel, a: [kernel(*a[:7]), a[5], a[6]],
        reference=lambda mod, a: _layernorm_grads(mod, a),
        rtol=5e-2, atol=5e-1, work=3 * n * d * 2, unit="GB/s")
    return [fwd, bwd]


def _layernorm_bwd_inputs(n, d):
    def inputs(t, helper):
        torch = t.torch
        x = t.randn(n, d, dtype="bfloat16")
        mean = x.float().mean(-1) if t.real else t.zeros(n, dtype="float32")
        rstd = torch.rsqrt(x.float().var(-1, unbiased=False) + 1e-5) if t.real else \
            t.zeros(n, dtype="float32")
        return (t.randn(n, d, dtype="bfloat16"), x, t.randn(d, dtype="bfloat16"), mean, rstd,
                t.zeros(d, dtype="float32"), t.zeros(d, dtype="float32"))
    return inputs


def _layernorm_grads(mod, a):
    """dX, dGamma, dBeta of torch's layer norm (the example's reference)."""
    dy, x, gamma = a[0], a[1], a[2]
    x = x.detach().float().requires_grad_()
    g = gamma.detach().float().requires_grad_()
    beta = _torch().zeros_like(g).requires_grad_()
    mod.ref_program(x, g, beta, 1e-5).backward(dy.float())
    return [x.grad.to(a[1].dtype), g.grad, beta.grad]


@functools.lru_cache(maxsize=1)
def all_cases():
    """Every case, in the table's order."""
    return tuple(gemm_cases() + fp8_gemm_cases() + splitk_cases() + gemv_cases()
                 + dequant_cases() + gemm_sp_cases() + attention_fwd_cases()
                 + attention_bwd_cases() + decode_cases() + mla_cases() + rowwise_cases())
