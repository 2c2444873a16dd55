"""The host-side names TileLang programs use besides the language:
tilemlir.cdiv, profiler.do_bench, language.fp8, testing, utils.tensor,
contrib.nvcc, carver, and the tilemlir.tvm compatibility namespace."""

import subprocess
import sys

import numpy as np
import pytest

import tilemlir
import tilemlir.language as T
from tilemlir import tvm


def test_import_tilemlir_loads_none_of_the_compatibility_modules():
    code = ("import sys, tilemlir; print(sorted(m for m in sys.modules if m.startswith("
            "('tilemlir.tvm', 'tilemlir.testing', 'tilemlir.carver', 'tilemlir.transform'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# ---------------------------------------------------------------- cdiv


def test_cdiv_on_numbers_and_inside_a_kernel():
    assert tilemlir.cdiv(1000, 128) == 8 and tilemlir.cdiv(1024, 128) == 8

    @tilemlir.jit(out_idx=[1], target="cpu")
    def scale(N, block=128):
        @T.prim_func
        def k(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
            with T.Kernel(tilemlir.cdiv(N, block), threads=128) as bx:
                for i in T.Parallel(block):
                    if bx * block + i < N:
                        B[bx * block + i] = A[bx * block + i] * 2.0
        return k
    a = np.arange(300, dtype=np.float32)
    np.testing.assert_array_equal(scale(300)(a), a * 2)


# ---------------------------------------------------------------- do_bench


@tilemlir.jit(out_idx=[1], target="cpu")
def doubled(N):
    """B = 2 A on the CPU."""
    @T.prim_func
    def k(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=128) as bx:
            for i in T.Parallel(N):
                B[i] = A[i] * 2.0
    return k


def test_do_bench_times_a_callable_in_milliseconds():
    from tilemlir.profiler import do_bench
    calls = []
    ms = do_bench(lambda: calls.append(1), warmup=1, rep=2)
    assert isinstance(ms, float) and ms >= 0 and len(calls) >= 4
    calls.clear()
    do_bench(lambda: calls.append(1), _n_warmup=2, _n_repeat=5)
    assert len(calls) == 1 + 2 + 5
    lo, mid = do_bench(lambda: None, _n_repeat=10, quantiles=[0.2, 0.5])
    assert lo <= mid
    with pytest.raises(ValueError, match="return_mode must be one of"):
        do_bench(lambda: None, _n_repeat=3, return_mode="average")


def test_profiler_do_bench_accepts_tilelangs_arguments():
    prof = doubled(128).get_profiler()
    assert prof.do_bench(backend="cupti", n_warmup=1, n_repeat=3, return_mode="min") >= 0
    assert len(prof.do_bench(n_repeat=4, quantiles=[0.5, 0.8])) == 2


def test_profiler_assert_allclose_tolerates_tilelangs_share_of_mismatches():

    def off_by_one_element(a):
        ref = a * 2.0
        ref[0] += 1.0
        return ref
    prof = doubled(1000).get_profiler()
    prof.assert_allclose(off_by_one_element)  # 1 of 1000: within TileLang's 1%
    with pytest.raises(AssertionError, match="1 of 1000 elements differ"):
        prof.assert_allclose(off_by_one_element, max_mismatched_ratio=0.0)


# ---------------------------------------------------------------- fp8


def test_determine_fp8_type():
    from tilemlir.language.fp8 import determine_fp8_type
    assert determine_fp8_type() == "float8_e4m3" and determine_fp8_type() is T.float8_e4m3
    assert determine_fp8_type("e5m2") is T.float8_e5m2
    with pytest.raises(ValueError, match="e4m3.*e5m2"):
        determine_fp8_type("e3m4")


# ---------------------------------------------------------------- testing


def _test():
    pass


def _skip_mark(decorated):
    return [m for m in decorated.pytestmark if m.name == "skipif"][-1]


def test_requires_marks_skip_by_the_gpu_present(monkeypatch):
    import tilemlir.testing as tt
    monkeypatch.setattr(tt, "_compute_version", lambda: (8, 0))
    assert not _skip_mark(tt.requires_cuda(_test)).args[0]
    assert _skip_mark(tt.requires_cuda_compute_version_ge(9, 0)(_test)).args[0]
    assert not _skip_mark(tt.requires_cuda_compute_version_lt(9, 0)(_test)).args[0]
    assert not _skip_mark(tt.requires_cuda_compute_version_eq(8)(_test)).args[0]
    assert _skip_mark(tt.requires_cuda_compute_version(8, 0, "gt")(_test)).args[0]
    monkeypatch.setattr(tt, "_compute_version", lambda: (0, 0))
    mark = _skip_mark(tt.requires_cuda_compute_version_le(9, 0)(_test))
    assert mark.args[0] and "have 0.0" in mark.kwargs["reason"]
    assert _skip_mark(tt.requires_cuda(_test)).args[0]
    with pytest.raises(ValueError, match="mode must be one of"):
        tt.requires_cuda_compute_version(9, 0, "ne")


def test_requires_package_and_other_backends():
    import tilemlir.testing as tt
    assert not _skip_mark(tt.requires_package("numpy")(_test)).args[0]
    mark = _skip_mark(tt.requires_package("numpy", "no_such_pkg_xyz")(_test))
    assert mark.args[0] and "no_such_pkg_xyz" in mark.kwargs["reason"]
    assert _skip_mark(tt.requires_metal(_test)).args[0]
    assert not _skip_mark(tt.requires_llvm(_test)).args[0]


def test_set_random_seed_repeats_numpy_and_python():
    import random
    import tilemlir.testing as tt
    tt.set_random_seed(7)
    first = (random.random(), np.random.rand())
    tt.set_random_seed(7)
    assert (random.random(), np.random.rand()) == first


def test_torch_assert_close_allows_a_share_of_mismatches():
    from tilemlir.testing import torch_assert_close
    a = np.zeros(1000, dtype=np.float32)
    b = a.copy()
    b[:1] = 1.0
    torch_assert_close(a, b, max_mismatched_ratio=0.001)
    b[:2] = 1.0
    with pytest.raises(AssertionError, match=r"2 of 1000 elements differ \(allowed 1.*first at \(0,\)"):
        torch_assert_close(a, b, max_mismatched_ratio=0.001)
    with pytest.raises(AssertionError, match="shape"):
        torch_assert_close(a, a[:10])
    with pytest.raises(AssertionError, match="dtype"):
        torch_assert_close(a, a.astype(np.float16))


def test_get_tensor_supply_makes_inputs_for_a_parameter():
    from tilemlir.utils.tensor import TensorSupplyType, get_tensor_supply
    supply = get_tensor_supply(TensorSupplyType.One)
    x = supply({"name": "A", "kind": "tensor", "dtype": "float16", "shape": [4, "n"]}, {"n": 3})
    assert x.shape == (4, 3) and x.dtype == np.float16 and (x == 1).all()


# ---------------------------------------------------------------- contrib, carver


def test_nvcc_versions():
    from tilemlir.contrib import nvcc
    assert nvcc.parse_compute_version("9.0") == (9, 0)
    assert nvcc.parse_compute_version("8.6") == (8, 6)
    with pytest.raises(ValueError, match="major.minor"):
        nvcc.parse_compute_version("sm90")


def test_out_of_reach_names_import_and_fail_at_the_users_line():
    from tilemlir.carver.template import MatmulTemplate
    with pytest.raises(tilemlir.TileCompileError) as e:
        MatmulTemplate(M=1, N=1, K=1)
    line = sys._getframe().f_lineno - 1
    assert f"{__file__}:{line}:" in str(e.value)
    assert "MatmulTemplate is not available in tilemlir" in str(e.value)
    with pytest.raises(tilemlir.TileCompileError, match="carver.arch.CUDA"):
        from tilemlir.carver.arch import CUDA
        CUDA("cuda").with_arch


# ---------------------------------------------------------------- tvm


def test_import_tvm_after_the_rewrite_is_tilemlir_tvm():
    import tilemlir.tvm as rewritten
    assert rewritten is tvm and tvm.tirx.const is rewritten.tirx.const


def test_target_from_strings_and_dicts():
    t = tvm.target.Target({"kind": "cuda", "arch": "sm_90a"})
    assert t == "cuda -arch=sm_90a" and t.kind.name == "cuda" and t.arch == "sm_90a"
    assert tvm.target.Target("llvm").kind.name == "llvm"
    assert tvm.target.Target.current() is None


def test_target_context_gives_auto_compiles_their_target():
    @T.prim_func
    def k(A: T.Tensor((128,), "float32")):
        with T.Kernel(1, threads=128) as bx:
            for i in T.Parallel(128):
                A[i] = 1.0
    with tvm.target.Target({"kind": "cuda", "arch": "sm_80"}):
        assert tilemlir.compile(k).target == "cuda:sm_80"
    assert tilemlir.compile(k, target=tvm.target.Target("llvm")).target == "cpu"


def test_target_context_gives_kernel_functions_their_target():
    # TileLang's current front end (@jit on the kernel itself) takes the
    # enclosing target like a T.prim_func does.
    @tilemlir.jit
    def fill(A, value):
        N = T.const("N")
        A: T.Tensor((N,), "float32")
        with T.Kernel(T.ceildiv(N, 128), threads=128) as bx:
            for i in T.Parallel(128):
                A[bx * 128 + i] = value

    with tvm.target.Target("cuda -arch=sm_80"):
        assert fill.compile(N=1000, value=1.0).target == "cuda:sm_80"
    # Compiled again outside it, not served from the kernel made inside.
    assert fill.compile(N=1000, value=1.0).target != "cuda:sm_80"


def test_jit_and_autotune_caches_keep_apart_the_targets_of_contexts():
    def ones(N, block=128):
        @T.prim_func
        def k(A: T.Tensor((N,), "float32")):
            with T.Kernel(T.ceildiv(N, block), threads=128) as bx:
                for i in T.Parallel(block):
                    A[bx * block + i] = 1.0
        return k

    jitted = tilemlir.jit(out_idx=[0])(ones)
    tuned = tilemlir.autotune(configs=[{"block": 128}, {"block": 256}])(
        tilemlir.jit(out_idx=[0])(ones))
    for make in (jitted, tuned):
        with tvm.target.Target("cuda -arch=sm_80"):
            assert make(1000, block=128).target == "cuda:sm_80"
        assert make(1000, block=128).target != "cuda:sm_80"


def test_tvm_testing_marks_are_tilemlirs():
    import tilemlir.testing
    assert tvm.testing.requires_cuda is tilemlir.testing.requires_cuda
    assert tvm.testing.requires_package is tilemlir.testing.requires_package


def test_datatype_and_constants():
    assert tilemlir.DataType is tvm.DataType
    assert tvm.DataType("float16").bits == 16 and tvm.DataType("int8").bits == 8
    assert tvm.DataType("float16x4").lanes == 4 and tvm.DataType("bfloat16") == "bfloat16"
    c = tvm.tirx.const(3, "uint8")
    assert isinstance(c, tvm.tirx.IntImm) and isinstance(c, tvm.tirx.PrimExpr)
    assert c.dtype == "uint8" and c.value == 3
    f = tvm.tirx.const(0.5, T.float32)
    assert isinstance(f, tvm.tirx.FloatImm) and f == 0.5 and f.dtype == "float32"
    assert tvm.tir.const is tvm.tirx.const


def test_compile_errors_are_tvm_errors():
    @T.prim_func
    def bad(A: T.Tensor((128,), "float32")):
        with T.Kernel(1, threads=128) as bx:
            T.no_such_op(A)
    with pytest.raises(tvm.error.InternalError):
        tilemlir.compile(bad, target="cpu")
    assert issubclass(tilemlir.TileCompileError, tvm.TVMError)


def test_missing_tvm_names_say_so_at_the_users_line():
    from tilemlir.tvm.tirx import Var
    with pytest.raises(tilemlir.TileCompileError, match=r"tvm\.tirx\.Var is not available"):
        Var("x", "int32")
    with pytest.raises(AttributeError):
        tvm.tirx._private_name


def test_deeper_tvm_modules_import_with_the_names_above_them():
    from tilemlir.tvm.script.ir_builder.base import IRBuilderFrame
    from tilemlir.tvm.tirx.expr import IntImm, Not
    from tilemlir.tvm.tirx.stmt_functor import post_order_visit

    # A name of the module above is the same object; the others are out of reach.
    assert IntImm is tvm.tirx.IntImm and IntImm("int32", 4) == 4
    for name, obj in [("tvm.script.ir_builder.base.IRBuilderFrame", IRBuilderFrame),
                      ("tvm.tirx.expr.Not", Not),
                      ("tvm.tirx.stmt_functor.post_order_visit", post_order_visit)]:
        with pytest.raises(tilemlir.TileCompileError) as e:
            obj(None)
        assert f"{name} is not available in tilemlir" in str(e.value)
        assert e.value.lineno is not None and e.value.filename == __file__
    with pytest.raises(ImportError):
        from tilemlir.tvm.tirx.expr import _private  # noqa: F401


def test_tilelang_ir_names_import_and_say_why_they_are_out_of_reach():
    from tilemlir.ir import GemmWarpPolicy, get_stmt_span, make_span

    assert GemmWarpPolicy is T.GemmWarpPolicy
    for fn in (get_stmt_span, make_span):
        with pytest.raises(tilemlir.TileCompileError, match="has no TIR statements or buffers"):
            fn(None)


def test_layout_swizzle_module_has_the_packages_swizzles():
    from tilemlir import layout
    from tilemlir.layout import swizzle

    assert swizzle.make_full_bank_swizzled_layout is layout.make_full_bank_swizzled_layout
    widths = [swizzle.make_full_bank_swizzled_layout(None).attr(),
              swizzle.make_half_bank_swizzled_layout(None).attr(),
              swizzle.make_quarter_bank_swizzled_layout(None).attr()]
    assert widths == ["#tile.swizzle<3, 4, 3>", "#tile.swizzle<2, 4, 3>", "#tile.swizzle<1, 4, 3>"]
    with pytest.raises(tilemlir.TileCompileError, match="make_volta_swizzled_layout"):
        swizzle.make_volta_swizzled_layout(None)


def test_wgmma_macro_names_import_and_say_why_they_are_out_of_reach():
    from tilemlir.cuda.intrinsics.macro.wgmma_macro_generator import compute_gmma_descriptor

    with pytest.raises(tilemlir.TileCompileError, match="wgmma descriptors in its sm_90a lowering"):
        compute_gmma_descriptor(None, None)
