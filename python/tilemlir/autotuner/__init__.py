"""Autotuning: compile a kernel for several configurations in parallel
processes, time each, keep the fastest.

    @tilemlir.autotune(configs=[{"block_M": 64}, {"block_M": 128}])
    @tilemlir.jit(out_idx=[-1])
    def matmul(M, N, K, block_M=128, ...): ...

    kernel = matmul(1024, 1024, 1024)   # the fastest configuration
    kernel.config, kernel.latency

or, as TileLang has it:

    result = AutoTuner.from_kernel(kernel=factory, configs=configs) \\
        .set_compile_args(out_idx=[-1], target="cpu") \\
        .set_profile_args(ref_prog=ref) \\
        .run(warmup=3, rep=20)
    result.kernel, result.config, result.latency
"""

import concurrent.futures
import functools
import itertools
import multiprocessing
import os
import sys
import time

from ..errors import TileCompileError
from ..jit import compile as compile_kernel
from ..jit import resolve_target
from .capture import get_autotune_inputs, set_autotune_inputs  # noqa: F401
from ..language import PrimFunc


class AutotuneResult:
    def __init__(self, kernel, config, latency, results, ref_latency=None):
        self.kernel = kernel
        self.config = config
        self.latency = latency
        self.results = results  # (config, latency ms or None, error or None)
        self.ref_latency = ref_latency


# The compile jobs of the running AutoTuner.run, by id. The worker processes
# are forked after a job is registered and read it from here: only the job id
# and a config index are pickled, so the factory may be a local function, a
# closure, or a module-level name rebound by @tilemlir.autotune (none of which
# pickle).
_JOBS = {}
_next_job = itertools.count()


def _compile_job(job_id, index):
    """Runs in a worker process: builds configuration `index` of a job."""
    factory, args, kwargs, configs, out_idx, target = _JOBS[job_id]
    return _compile_one(factory, args, kwargs, configs[index], out_idx, target)


def _compile_one(factory, args, kwargs, config, out_idx, target):
    """Runs in a worker process: builds the kernel into the disk cache."""
    try:
        prim = factory(*args, **dict(kwargs, **config))
        compile_kernel(prim, out_idx=out_idx, target=target)
        return None
    except Exception as e:  # noqa: BLE001 - reported per configuration
        return f"{type(e).__name__}: {e}"


class AutoTuner:
    def __init__(self, fn, configs):
        self.fn = fn
        self.configs = configs
        self.compile_args = {"out_idx": None, "target": "auto"}
        self.profile_args = {"supply_type": None, "ref_prog": None, "atol": 1e-2,
                             "rtol": 1e-2, "skip_check": False}
        self.args = ()
        self.kwargs = {}

    @classmethod
    def from_kernel(cls, kernel, configs):
        factory = getattr(kernel, "factory", kernel)
        tuner = cls(factory, configs)
        if hasattr(kernel, "out_idx"):
            tuner.compile_args.update(out_idx=kernel.out_idx, target=kernel.target)
        return tuner

    def set_compile_args(self, out_idx=None, target="auto", **_):
        self.compile_args = {"out_idx": out_idx, "target": target}
        return self

    def set_profile_args(self, supply_type=None, ref_prog=None, atol=1e-2, rtol=1e-2,
                         skip_check=False, **_):
        self.profile_args = {"supply_type": supply_type, "ref_prog": ref_prog, "atol": atol,
                             "rtol": rtol, "skip_check": skip_check}
        return self

    def set_kernel_args(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs
        return self

    def _configs(self):
        configs = self.configs(*self.args, **self.kwargs) if callable(self.configs) else self.configs
        configs = list(configs)
        if not configs:
            raise ValueError("autotune needs at least one configuration")
        return [dict(c) for c in configs]

    def run(self, warmup=25, rep=100, timeout=None, max_workers=None, verbose=True,
            use_pipeline=False, enable_grouped_compile=False, group_compile_size=2,
            benchmark_devices=None, benchmark_multi_gpu=False, early_stop=False,
            early_stop_factor=2.0):
        """Compiles every configuration, checks and times each, returns the
        fastest as an AutotuneResult. With `early_stop`, a configuration
        whose first timed calls already take more than `early_stop_factor`
        times the best latency so far is not timed further. TileLang's
        scheduling options (use_pipeline, enable_grouped_compile,
        group_compile_size, benchmark_devices, benchmark_multi_gpu) change
        nothing here: configurations always compile in parallel processes
        and are timed one after the other on one device."""
        if early_stop and early_stop_factor < 1.0:
            raise ValueError(f"early_stop_factor must be >= 1.0, got {early_stop_factor}")
        configs = self._configs()
        out_idx, target = self.compile_args["out_idx"], self.compile_args["target"]
        workers = max_workers or min(len(configs), os.cpu_count() or 1)
        start = time.perf_counter()
        errors = {}
        # Compile in worker processes (fork: the factory may live in __main__);
        # results land in the disk cache, where the loop below finds them.
        ctx = multiprocessing.get_context("fork")
        # The target is settled here, so that no worker starts CUDA to find
        # the GPU (a forked process cannot).
        target = resolve_target(target)
        job = next(_next_job)
        _JOBS[job] = (self.fn, self.args, self.kwargs, configs, out_idx, target)
        try:
            with concurrent.futures.ProcessPoolExecutor(workers, mp_context=ctx) as pool:
                futures = {pool.submit(_compile_job, job, i): i for i in range(len(configs))}
                for n, fut in enumerate(concurrent.futures.as_completed(futures, timeout=timeout),
                                        1):
                    i = futures[fut]
                    err = fut.result()
                    if err:
                        errors[i] = err
                    if verbose:
                        print(f"[autotune] compiled {n}/{len(configs)}"
                              f"{' (failed: ' + err.splitlines()[0] + ')' if err else ''}",
                              file=sys.stderr)
        finally:
            del _JOBS[job]
        if verbose:
            print(f"[autotune] compiled {len(configs)} configurations in "
                  f"{time.perf_counter() - start:.1f} s", file=sys.stderr)

        results = []
        best = None
        ref_latency = None
        inputs = get_autotune_inputs()
        for i, config in enumerate(configs):
            if i in errors:
                results.append((config, None, errors[i]))
                continue
            try:
                prim = self.fn(*self.args, **dict(self.kwargs, **config))
                if not isinstance(prim, PrimFunc):
                    raise TypeError("the tuned function must return a @T.prim_func")
                kernel = compile_kernel(prim, out_idx=out_idx, target=target)
                profiler = kernel.get_profiler(self.profile_args["supply_type"])
                ref = self.profile_args["ref_prog"]
                if ref is not None and not self.profile_args["skip_check"]:
                    profiler.assert_allclose(ref, input_tensors=inputs,
                                             atol=self.profile_args["atol"],
                                             rtol=self.profile_args["rtol"])
                baseline = best[2] * early_stop_factor if early_stop and best else None
                latency = profiler.do_bench(warmup=warmup, rep=rep, input_tensors=inputs,
                                            early_stop_baseline=baseline)
            except (TileCompileError, AssertionError, TypeError, ValueError) as e:
                results.append((config, None, f"{type(e).__name__}: {e}"))
                if verbose:
                    print(f"[autotune] {config}: {type(e).__name__}: {str(e).splitlines()[0]}",
                          file=sys.stderr)
                continue
            results.append((config, latency, None))
            if verbose:
                print(f"[autotune] {config}: {latency:.4f} ms", file=sys.stderr)
            if best is None or latency < best[2]:
                best = (kernel, config, latency)
        if best is None:
            raise TileCompileError("error: autotune: no configuration compiled and ran:\n  " +
                                   "\n  ".join(f"{c}: {e}" for c, _, e in results))
        kernel, config, latency = best
        # The reference is timed last: its threads (e.g. OpenBLAS's) may keep
        # spinning for a while and would slow the candidates timed after it.
        ref = self.profile_args["ref_prog"]
        if ref is not None:
            ref_latency = kernel.get_profiler(self.profile_args["supply_type"]).do_bench(
                ref, warmup=warmup, rep=rep, input_tensors=inputs)
        kernel.config = config
        kernel.latency = latency
        if verbose:
            print(f"[autotune] best {config}: {latency:.4f} ms", file=sys.stderr)
        return AutotuneResult(kernel, config, latency, results, ref_latency)


def _given_tunables(factory, configs, args, kwargs):
    """The names of the configurations' parameters that the call already
    gives (by keyword or by position): TileLang compiles such a call as it
    is, without tuning."""
    import inspect
    keys = set()
    for c in _config_list(configs):
        keys.update(c)
    try:
        params = list(inspect.signature(factory).parameters)
    except (TypeError, ValueError):
        params = []
    positional = set(params[:len(args)])
    return sorted(k for k in keys if k in kwargs or k in positional)


def autotune(configs, warmup=25, rep=100, timeout=None, supply_type=None, ref_prog=None,
             atol=1e-2, rtol=1e-2, skip_check=False, max_workers=None, verbose=True,
             early_stop=False, early_stop_factor=2.0, supply_prog=None,
             max_mismatched_ratio=0.01, manual_check_prog=None, cache_input_tensors=False,
             do_not_specialize=None):
    """Stacked on @tilemlir.jit: calling the function (or its .compile)
    tunes over `configs` (a list of keyword-argument dicts, or a function
    of the call's arguments returning one) and returns the fastest kernel,
    with .config and .latency. A call that gives a tuned parameter itself
    compiles that configuration without tuning, as in TileLang.
    `early_stop` / `early_stop_factor`: see AutoTuner.run; TileLang's other
    options (supply_prog, max_mismatched_ratio, cache_input_tensors, ...)
    are taken and change nothing here."""
    if early_stop and early_stop_factor < 1.0:
        raise ValueError(f"early_stop_factor must be >= 1.0, got {early_stop_factor}")

    def decorate(jitted):
        from ..jit.current import KernelFunction
        if isinstance(jitted, KernelFunction):
            return _tuned_kernel_function(jitted, configs)
        factory = getattr(jitted, "factory", jitted)
        cache = {}

        @functools.wraps(factory)
        def wrapper(*args, **kwargs):
            key = repr((args, sorted(kwargs.items()), _enclosing_target()))
            if key not in cache:
                if _given_tunables(factory, configs, args, kwargs):
                    cache[key] = jitted(*args, **kwargs)
                    return cache[key]
                tuner = AutoTuner.from_kernel(jitted, configs).set_kernel_args(*args, **kwargs)
                tuner.set_profile_args(supply_type=supply_type, ref_prog=ref_prog, atol=atol,
                                       rtol=rtol, skip_check=skip_check)
                cache[key] = tuner.run(warmup=warmup, rep=rep, timeout=timeout,
                                       max_workers=max_workers, verbose=verbose,
                                       early_stop=early_stop,
                                       early_stop_factor=early_stop_factor).kernel
            return cache[key]

        wrapper.factory = factory
        # TileLang's `f.compile(...)`: the tuned kernel, as a call returns it.
        wrapper.compile = wrapper
        return wrapper

    return decorate


def _tuned_kernel_function(kf, configs):
    """@autotune on a kernel function (TileLang's current front end): calls
    and .compile(...) that give the tuned parameters compile and run that
    configuration; tuning a kernel function is a located error for now."""
    def check_given(args, kwargs):
        if not _given_tunables(kf.fn, configs, args, kwargs):
            from ..errors import at_caller
            raise at_caller(TileCompileError(
                f"error: autotuning {kf.__name__} (a kernel function, TileLang's current front "
                "end) is not supported yet; give its tuned parameters "
                f"({', '.join(sorted({k for c in _config_list(configs) for k in c}))})"))

    def call(*args, **kwargs):
        check_given(args, kwargs)
        return kf(*args, **kwargs)

    def compile(*args, **kwargs):  # noqa: A001 - TileLang's name
        check_given(args, kwargs)
        return kf.compile(*args, **kwargs)

    functools.update_wrapper(call, kf.fn)
    call.compile = compile
    call.kernel_function = kf
    return call


def _enclosing_target():
    """The target that "auto" means here: that of an enclosing
    `with Target(...)`, else "auto" itself."""
    from ..jit import _context_target
    return str(_context_target("auto"))


def _config_list(configs):
    return [] if callable(configs) else [dict(c) for c in configs]

