"""Timing a function: `tilemlir.profiler.do_bench` (TileLang's
tilelang.profiler.do_bench), which kernel.get_profiler().do_bench uses too."""

import time

import numpy as np

_RETURN_MODES = ("min", "max", "mean", "median")


def _cuda_available():
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


def _wall_times(fn, warmup, rep, n_warmup, n_repeat, early_stop_baseline=None):
    start = time.perf_counter()
    fn()
    once = max(time.perf_counter() - start, 1e-6) * 1e3
    if early_stop_baseline is not None and once > early_stop_baseline:
        return [once]
    for _ in range(n_warmup or max(1, int(warmup / once))):
        fn()
    times = []
    for _ in range(n_repeat or max(3, min(1000, int(rep / once)))):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e3)
    return times


def _cuda_times(fn, warmup, rep, n_warmup, n_repeat, early_stop_baseline=None):
    import torch
    fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(5):
        fn()
    end.record()
    torch.cuda.synchronize()
    once = max(start.elapsed_time(end) / 5, 1e-3)
    if early_stop_baseline is not None and once > early_stop_baseline:
        return [once]
    for _ in range(n_warmup or max(1, int(warmup / once))):
        fn()
    times = []
    for _ in range(n_repeat or max(3, min(1000, int(rep / once)))):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        times.append(s.elapsed_time(e))
    return times


def bench_times(fn, cuda, warmup=25, rep=100, n_warmup=0, n_repeat=0, early_stop_baseline=None):
    """Times of single calls of `fn()` in milliseconds: CUDA events when
    `cuda`, else the wall clock. warmup / rep are milliseconds of calls;
    n_warmup / n_repeat, when given, are call counts instead. With
    `early_stop_baseline` (ms), a function whose first estimate is slower
    than it is not timed further: the estimate is the one time returned."""
    return (_cuda_times if cuda else _wall_times)(fn, warmup, rep, n_warmup, n_repeat,
                                                  early_stop_baseline)


def summarize(times, quantiles=None, return_mode="mean"):
    """The quantiles of `times` when asked (a list), else their min, max,
    mean or median."""
    if quantiles is not None:
        return [float(q) for q in np.quantile(times, quantiles)]
    if return_mode not in _RETURN_MODES:
        raise ValueError(f"return_mode must be one of {', '.join(_RETURN_MODES)}, "
                         f"got {return_mode!r}")
    return float(getattr(np, return_mode)(times))


def do_bench(fn, warmup=25, rep=100, _n_warmup=0, _n_repeat=0, quantiles=None, fast_flush=True,
             backend="event", return_mode="mean", device=None, cache_size=256,
             early_stop_baseline=None):
    """Milliseconds one call of `fn()` takes: on the GPU (CUDA events) when
    torch sees one, else on the wall clock. As TileLang's do_bench: warmup /
    rep in milliseconds, _n_warmup / _n_repeat as call counts, the mean by
    default (`return_mode`, or a list for `quantiles`). The L2 cache is not
    flushed between calls, and every backend ("event", "cupti",
    "cudagraph") times with CUDA events. `early_stop_baseline`: see
    bench_times."""
    times = bench_times(fn, _cuda_available(), warmup, rep, _n_warmup, _n_repeat,
                        early_stop_baseline)
    return summarize(times, quantiles, return_mode)
