"""pass_configs= on jit / compile, tilemlir.PassConfigKey and PassContext:
the keys that mean something here change the sm_90a kernel, the others
warn once by name."""

import warnings

import pytest

import tilemlir
import tilemlir.language as T
from tilemlir import transform
from tilemlir.tvm.transform import PassContext

from test_language import hopper_gemm


@pytest.fixture(autouse=True)
def _fresh_warnings(monkeypatch):
    # Each test sees the once-per-key warnings again.
    monkeypatch.setattr(transform, "_warned", set())


def sm90(configs=None):
    return tilemlir.compile(hopper_gemm(256, 256, 256), out_idx=[2], target="cuda -arch=sm_90a",
                            pass_configs=configs)


def test_pass_config_key_is_its_config_string():
    key = tilemlir.PassConfigKey.TL_DISABLE_TMA_LOWER
    assert key == "tl.disable_tma_lower" and str(key) == "tl.disable_tma_lower"
    assert tilemlir.PassConfigKey("tl.enable_fast_math") is tilemlir.PassConfigKey.TL_ENABLE_FAST_MATH


def test_disable_tma_lower_takes_tma_out_of_the_kernel():
    plain = sm90().get_kernel_source()
    assert "cp.async.bulk.tensor" in plain
    off = sm90({tilemlir.PassConfigKey.TL_DISABLE_TMA_LOWER: True})
    assert "cp.async.bulk.tensor" not in off.get_kernel_source()
    assert "tile.disable_tma" in off.ir


def test_disable_warp_specialized_drops_the_producer_warpgroup():
    import json
    plain = json.loads((sm90().bundle_dir / "bundle.json").read_text())
    off = sm90({"tl.disable_warp_specialized": True})
    meta = json.loads((off.bundle_dir / "bundle.json").read_text())
    assert plain["block"][0] == 384 and meta["block"][0] == 256
    assert "tile.warp_specialize = false" in off.ir


def test_false_values_change_nothing():
    k = sm90({tilemlir.PassConfigKey.TL_DISABLE_TMA_LOWER: False,
              tilemlir.PassConfigKey.TL_DISABLE_WARP_SPECIALIZED: False})
    assert "cp.async.bulk.tensor" in k.get_kernel_source()


def test_unknown_key_warns_once_naming_it():
    with pytest.warns(UserWarning, match=r"'tl.disable_data_race_check' has no effect") as rec:
        sm90({tilemlir.PassConfigKey.TL_DISABLE_DATA_RACE_CHECK: True})
        sm90({tilemlir.PassConfigKey.TL_DISABLE_DATA_RACE_CHECK: True})
    assert len([w for w in rec if "disable_data_race_check" in str(w.message)]) == 1
    # The warning points at this file, the user's code.
    assert rec[0].filename == __file__


def test_fast_math_on_is_silent_and_off_warns():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sm90({tilemlir.PassConfigKey.TL_ENABLE_FAST_MATH: True})
    with pytest.warns(UserWarning, match="cannot be honoured.*ex2.approx"):
        sm90({tilemlir.PassConfigKey.TL_ENABLE_FAST_MATH: False})


def test_cpu_kernels_take_the_configs_and_warn_for_unknown_ones():
    with pytest.warns(UserWarning, match="tl.disable_vectorize_256"):
        k = tilemlir.compile(hopper_gemm(256, 256, 256), out_idx=[2], target="cpu",
                             pass_configs={"tl.disable_vectorize_256": True,
                                           "tl.disable_tma_lower": True})
    assert "tile.disable_tma" not in k.ir


def test_jit_passes_its_pass_configs_on():
    @tilemlir.jit(out_idx=[2], target="cuda -arch=sm_90a",
                  pass_configs={tilemlir.PassConfigKey.TL_DISABLE_TMA_LOWER: True})
    def make(M, N, K):
        return hopper_gemm(M, N, K)
    assert "cp.async.bulk.tensor" not in make(256, 256, 256).get_kernel_source()


def test_pass_context_carries_configs_into_compiles():
    with PassContext(opt_level=3, config={"tl.disable_tma_lower": True}):
        inside = sm90()
    assert "cp.async.bulk.tensor" not in inside.get_kernel_source()
    assert "cp.async.bulk.tensor" in sm90().get_kernel_source()


def test_pass_contexts_nest_and_explicit_configs_win():
    with PassContext(config={"tl.disable_tma_lower": True}):
        with PassContext(config={"tl.disable_warp_specialized": True}):
            assert transform.resolve_pass_configs(None) == (
                "disable-tma-lower", "disable-warp-specialized")
            assert transform.resolve_pass_configs({"tl.disable_tma_lower": False}) == (
                "disable-warp-specialized",)
    assert transform.resolve_pass_configs(None) == ()


def test_current_style_kernels_take_their_pass_configs():
    """A jit function that is itself the kernel honours pass_configs too."""
    def hopper(configs):
        @tilemlir.jit(target="cuda -arch=sm_90a", pass_configs=configs)
        def kernel(A, B, block_M=128, block_N=128, block_K=64):
            M, N, K = T.const("M, N, K")
            A: T.Tensor((M, K), T.float16)
            B: T.Tensor((K, N), T.float16)
            C = T.empty((M, N), T.float16)
            with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=256) as (bx, by):
                A_s = T.alloc_shared((block_M, block_K), T.float16)
                B_s = T.alloc_shared((block_K, block_N), T.float16)
                acc = T.alloc_fragment((block_M, block_N), T.float32)
                T.clear(acc)
                for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=3):
                    T.copy(A[by * block_M, k * block_K], A_s)
                    T.copy(B[k * block_K, bx * block_N], B_s)
                    T.gemm(A_s, B_s, acc)
                T.copy(acc, C[by * block_M, bx * block_N])
            return C
        return kernel.compile(M=256, N=256, K=256)

    assert "cp.async.bulk.tensor" in hopper(None).get_kernel_source()
    off = hopper({tilemlir.PassConfigKey.TL_DISABLE_TMA_LOWER: True})
    assert "cp.async.bulk.tensor" not in off.get_kernel_source()
    assert "tile.disable_tma" in off.ir
