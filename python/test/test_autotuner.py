"""tilemlir.autotune and AutoTuner: compile configurations, time them, keep
the fastest; configurations that fail are reported and skipped."""

import numpy as np
import pytest

import tilemlir
import tilemlir.language as T
from tilemlir import AutoTuner, TileCompileError

M, N, K = 64, 48, 32


def ref_program(A, B):
    return A.astype(np.float32) @ B.astype(np.float32)


def matmul(M, N, K, block_M=32, block_N=16, block_K=16, num_stages=1, broken=False):
    # `broken` makes the gemm's K dims disagree: the C++ verifier rejects it.
    b_rows = block_K * 2 if broken else block_K

    @T.prim_func
    def mm(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"),
           C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M)) as (bx, by):
            A_s = T.alloc_shared((block_M, block_K), "float16")
            B_s = T.alloc_shared((b_rows, block_N), "float16")
            C_l = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(C_l)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, k * block_K], A_s)
                T.copy(B[k * block_K, bx * block_N], B_s)
                T.gemm(A_s, B_s, C_l)
            T.copy(C_l, C[by * block_M, bx * block_N])

    return mm


GOOD = [dict(block_M=32, block_N=16, block_K=16), dict(block_M=64, block_N=48, block_K=32,
                                                        num_stages=2)]


def check(kernel):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    np.testing.assert_allclose(kernel(a, b), ref_program(a, b), rtol=1e-3, atol=1e-3)


def test_autotune_decorator(capsys):
    @tilemlir.autotune(configs=GOOD, warmup=1, rep=5, ref_prog=ref_program)
    @tilemlir.jit(out_idx=[-1])
    def tuned(M, N, K, block_M=128, block_N=128, block_K=32, num_stages=1, broken=False):
        return matmul(M, N, K, block_M, block_N, block_K, num_stages, broken)

    kernel = tuned(M, N, K)
    assert kernel.config in GOOD
    assert kernel.latency > 0
    check(kernel)
    assert tuned(M, N, K) is kernel  # tuned once per distinct arguments
    err = capsys.readouterr().err
    assert "[autotune] best" in err


def test_autotune_skips_config_that_fails_to_compile(capsys):
    configs = [dict(block_M=32, block_N=16, block_K=16, broken=True),  # C++ verifier error
               dict(block_M=0),                                        # translator error
               dict(block_M=32, block_N=32, block_K=16)]

    @tilemlir.autotune(configs=configs, warmup=1, rep=5)
    @tilemlir.jit(out_idx=[-1])
    def tuned(M, N, K, block_M=128, block_N=128, block_K=32, num_stages=1, broken=False):
        return matmul(M, N, K, block_M, block_N, block_K, num_stages, broken)

    kernel = tuned(M, N, K)
    assert kernel.config == configs[2]
    check(kernel)
    err = capsys.readouterr().err
    assert err.count("failed:") == 2, err
    assert "does not match K of B" in err
    assert "T.ceildiv(64, 0)" in err


def test_autotuner_from_kernel_api():
    configs = GOOD + [dict(block_M=16, block_N=16, block_K=8, broken=True)]
    result = (AutoTuner.from_kernel(kernel=matmul, configs=configs)
              .set_compile_args(out_idx=[-1], target="cpu")
              .set_profile_args(ref_prog=ref_program, atol=1e-3, rtol=1e-3)
              .set_kernel_args(M, N, K)
              .run(warmup=1, rep=5, verbose=False))
    assert result.config in GOOD
    assert result.latency > 0 and result.ref_latency > 0
    assert result.kernel.config == result.config
    assert result.kernel.latency == result.latency
    check(result.kernel)
    by_config = {repr(c): (lat, err) for c, lat, err in result.results}
    assert len(by_config) == 3
    lat, err = by_config[repr(configs[2])]
    assert lat is None and "TileCompileError" in err
    assert all(by_config[repr(c)][0] > 0 for c in GOOD)
    assert result.latency == min(by_config[repr(c)][0] for c in GOOD)


def scale(N, factor=1.0):
    """B = A * factor."""
    @T.prim_func
    def sc(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(1) as bx:
            for i in T.Parallel(N):
                B[i] = A[i] * factor
    return sc


def test_autotuner_skips_wrong_results():
    """A configuration whose output does not match ref_prog is not chosen."""

    result = (AutoTuner.from_kernel(kernel=scale, configs=[{"factor": 3.0}, {"factor": 2.0}])
              .set_compile_args(out_idx=[-1])
              .set_profile_args(ref_prog=lambda a: a * 2.0)
              .set_kernel_args(64)
              .run(warmup=1, rep=3, verbose=False))
    assert result.config == {"factor": 2.0}
    assert "AssertionError" in result.results[0][2]


def test_autotuner_configs_from_function_and_jitted_kernel():
    @tilemlir.jit(out_idx=[-1])
    def jitted(M, N, K, block_M=32, block_N=16, block_K=16):
        return matmul(M, N, K, block_M, block_N, block_K)

    def configs(M, N, K):
        return [dict(block_M=M, block_N=N, block_K=K)]

    result = (AutoTuner.from_kernel(kernel=jitted, configs=configs)
              .set_kernel_args(M, N, K)
              .run(warmup=1, rep=3, verbose=False))
    assert result.config == dict(block_M=M, block_N=N, block_K=K)
    assert result.kernel.out_idx == [2]  # out_idx taken from the @jit
    check(result.kernel)


def test_autotune_all_configs_fail():
    result = AutoTuner.from_kernel(kernel=matmul, configs=[dict(broken=True)]) \
        .set_compile_args(out_idx=[-1]).set_kernel_args(M, N, K)
    with pytest.raises(TileCompileError, match="no configuration compiled"):
        result.run(warmup=1, rep=3, verbose=False)


def test_set_autotune_inputs_gives_the_tensors_to_check_and_time():
    """Inside set_autotune_inputs the reference sees the given inputs, not
    random ones; outside, random ones again."""
    from tilemlir.autotuner import get_autotune_inputs, set_autotune_inputs

    seen = []

    def ref(a):
        seen.append(a.copy())
        return a * 2.0

    given = np.arange(64, dtype=np.float32)
    tuner = (AutoTuner.from_kernel(kernel=scale, configs=[{"factor": 2.0}])
             .set_compile_args(out_idx=[-1]).set_profile_args(ref_prog=ref).set_kernel_args(64))
    with set_autotune_inputs([given]):
        assert get_autotune_inputs()[0] is given
        tuner.run(warmup=1, rep=3, verbose=False)
    assert seen and all((s == given).all() for s in seen)
    assert get_autotune_inputs() is None
    seen.clear()
    tuner.run(warmup=1, rep=3, verbose=False)
    assert not (seen[0] == given).all()


def test_autotuned_function_has_compile():
    """`f.compile(...)` on @autotune @jit gives the tuned kernel, as a call does."""
    @tilemlir.autotune(configs=GOOD, warmup=1, rep=3, verbose=False)
    @tilemlir.jit(out_idx=[-1])
    def tuned(M, N, K, block_M=128, block_N=128, block_K=32, num_stages=1, broken=False):
        return matmul(M, N, K, block_M, block_N, block_K, num_stages, broken)

    kernel = tuned.compile(M=M, N=N, K=K)
    assert kernel.config in GOOD
    check(kernel)
    assert tuned.compile(M=M, N=N, K=K) is kernel


def test_autotune_call_that_gives_a_tuned_parameter_is_not_tuned(capsys):
    """A tuned parameter given by the call (keyword or position) means that
    configuration, compiled without tuning."""
    @tilemlir.autotune(configs=[dict(block_M=64, broken=True)], warmup=1, rep=3)
    @tilemlir.jit(out_idx=[-1])
    def tuned(M, N, K, block_M=128, block_N=16, block_K=16, num_stages=1, broken=False):
        return matmul(M, N, K, block_M, block_N, block_K, num_stages, broken)

    check(tuned.compile(M=M, N=N, K=K, block_M=32, broken=False))
    check(tuned(M, N, K, 32))
    assert "[autotune]" not in capsys.readouterr().err


def test_autotune_early_stop_skips_slow_configurations(monkeypatch):
    """With early_stop, a configuration whose first call is slower than
    early_stop_factor x the best so far is timed by that call alone."""
    def slowed(factor):
        return scale(64, factor)

    result_configs = [{"factor": 2.0}, {"factor": 3.0}]
    real = tilemlir.profiler.Profiler.do_bench
    seen = []

    def recording(self, func=None, **kw):
        seen.append(kw.get("early_stop_baseline"))
        return real(self, func, **kw)

    monkeypatch.setattr(tilemlir.profiler.Profiler, "do_bench", recording)
    result = (AutoTuner.from_kernel(kernel=slowed, configs=result_configs)
              .set_compile_args(out_idx=[-1], target="cpu")
              .run(warmup=1, rep=3, verbose=False, early_stop=True, early_stop_factor=1.5,
                   enable_grouped_compile=True, group_compile_size=4))
    assert seen[0] is None and seen[1] == pytest.approx(result.results[0][1] * 1.5)
    with pytest.raises(ValueError, match="early_stop_factor must be >= 1.0"):
        AutoTuner.from_kernel(kernel=slowed, configs=result_configs).run(early_stop=True,
                                                                        early_stop_factor=0.5)
    with pytest.raises(ValueError, match="early_stop_factor must be >= 1.0"):
        tilemlir.autotune(configs=result_configs, early_stop=True, early_stop_factor=0.9)


def test_bench_times_stops_early_above_the_baseline():
    from tilemlir.profiler.bench import bench_times
    import time
    calls = []

    def slow():
        calls.append(1)
        time.sleep(0.002)

    times = bench_times(slow, False, warmup=1, rep=50, early_stop_baseline=0.5)
    assert len(times) == 1 and times[0] > 0.5 and len(calls) == 1
    assert len(bench_times(slow, False, warmup=1, rep=10)) >= 3


def test_autotune_on_a_kernel_function_compiles_the_given_configuration():
    """@autotune over a current-style kernel function: .compile and calls with
    the tuned parameters given compile that configuration; tuning one is a
    located error."""
    @tilemlir.autotune(configs=[{"block": 8}, {"block": 16}])
    @tilemlir.jit(target="cpu")
    def scaled(A, block, factor=2.0):
        N = T.const("N")
        A: T.Tensor((N,), "float32")
        B = T.empty((N,), "float32")
        with T.Kernel(T.ceildiv(N, block), threads=32) as bx:
            for i in T.Parallel(block):
                B[bx * block + i] = A[bx * block + i] * factor
        return B

    a = np.arange(32, dtype=np.float32)
    kernel = scaled.compile(N=32, block=8)
    np.testing.assert_array_equal(kernel(a), 2 * a)
    np.testing.assert_array_equal(scaled(a, 16, factor=3.0), 3 * a)
    with pytest.raises(TileCompileError, match="autotuning scaled .* not supported yet; give "
                                               "its tuned parameters \\(block\\)"):
        scaled.compile(N=32)
