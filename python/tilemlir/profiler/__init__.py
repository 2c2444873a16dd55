"""kernel.get_profiler(): timing (do_bench) and checking against a reference
(assert_allclose), as TileLang's profiler."""

import enum

import numpy as np

from ..language.dtypes import as_dtype
from .bench import bench_times, do_bench, summarize
from ..runtime import dim_text, dim_value


class TensorSupplyType(enum.Enum):
    Integer = 1
    Uniform = 2
    Normal = 3
    Randn = 4
    Zero = 5
    One = 6
    Auto = 7


class Profiler:
    def __init__(self, kernel, supply_type=None, seed=0):
        self.kernel = kernel
        self.supply_type = supply_type or TensorSupplyType.Auto
        self.rng = np.random.default_rng(seed)
        self._inputs = None

    def _supply(self, param, dims):
        dt = as_dtype(param["dtype"])
        if param["kind"] == "scalar":
            return 1.0 if dt.is_float else 1
        shape = []
        for d in param["shape"]:
            size = dim_value(d, dims)
            if size is None:
                raise ValueError(f"dynamic dimension '{dim_text(d)}' of '{param['name']}' has no "
                                 "value: pass input_tensors to the profiler")
            shape.append(size)
        st = self.supply_type
        if st is TensorSupplyType.Zero:
            data = np.zeros(shape)
        elif st is TensorSupplyType.One:
            data = np.ones(shape)
        elif st is TensorSupplyType.Integer or (st is TensorSupplyType.Auto and not dt.is_float):
            data = self.rng.integers(-2, 3, size=shape)
        elif st is TensorSupplyType.Uniform:
            data = self.rng.uniform(-1.0, 1.0, size=shape)
        else:
            data = self.rng.standard_normal(shape)
        return np.ascontiguousarray(data.astype(dt.numpy))

    @property
    def _on_gpu(self):
        return getattr(self.kernel, "target", "cpu") != "cpu"

    def supply_inputs(self, dims=None):
        """Random inputs: numpy arrays for CPU kernels, CUDA torch tensors
        for GPU kernels."""
        dims = dims or {}
        inputs = [self._supply(p, dims) for p in self.kernel.input_params]
        if self._on_gpu:
            import torch
            inputs = [torch.from_numpy(a).cuda() if isinstance(a, np.ndarray) else a
                      for a in inputs]
        return inputs

    def assert_allclose(self, reference_program, input_tensors=None, atol=1e-2, rtol=1e-2,
                        max_mismatched_ratio=0.01):
        """Runs the kernel and `reference_program` on the same random inputs
        (numpy arrays) and compares every output; as in TileLang, up to
        `max_mismatched_ratio` of an output's elements (1%) may differ."""
        inputs = list(input_tensors) if input_tensors is not None else self.supply_inputs()
        got = self.kernel(*inputs)
        ref = reference_program(*inputs)
        got = list(got) if isinstance(got, (list, tuple)) else [got]
        ref = list(ref) if isinstance(ref, (list, tuple)) else [ref]
        if len(got) != len(ref):
            raise AssertionError(f"kernel returned {len(got)} outputs, reference {len(ref)}")
        def host(x):
            if hasattr(x, "detach"):  # torch
                x = x.detach().float().cpu().numpy()
            return np.asarray(x, dtype=np.float64)

        for i, (g, r) in enumerate(zip(got, ref)):
            g, r = host(g), host(r)
            if g.shape != r.shape:
                raise AssertionError(f"output {i}: shape {g.shape} != reference shape {r.shape}")
            bad = ~np.isclose(g, r, atol=atol, rtol=rtol)
            if bad.mean() > max_mismatched_ratio or np.isnan(g).any() and not np.isnan(r).any():
                idx = tuple(np.argwhere(bad)[0]) if bad.any() else None
                raise AssertionError(
                    f"output {i}: {int(bad.sum())} of {bad.size} elements differ "
                    f"(atol={atol}, rtol={rtol}); max abs diff {np.nanmax(np.abs(g - r)):.4g}"
                    + (f"; first at {idx}: got {g[idx]}, expected {r[idx]}" if idx else ""))

    def do_bench(self, func=None, warmup=25, rep=100, n_warmup=0, n_repeat=0,
                 input_tensors=None, backend="event", quantiles=None, return_mode="median",
                 early_stop_baseline=None, **_):
        """Median time of one call in milliseconds (or `return_mode`, or a list
        for `quantiles`): wall clock on the CPU, CUDA events on GPUs.
        `warmup` / `rep` are milliseconds as in TileLang; n_warmup / n_repeat
        override them with call counts. Every backend times with CUDA events."""
        inputs = list(input_tensors) if input_tensors is not None else self.supply_inputs()
        fn = func or self.kernel
        times = bench_times(lambda: fn(*inputs), self._on_gpu, warmup, rep, n_warmup, n_repeat,
                            early_stop_baseline)
        return summarize(times, quantiles, return_mode)
