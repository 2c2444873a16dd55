"""tilelang.utils.tensor: comparing tensors with a tolerated share of
mismatches, and random inputs for a kernel's parameters."""

import numpy as np

from ..profiler import TensorSupplyType

__all__ = ["TensorSupplyType", "get_tensor_supply", "torch_assert_close"]


def get_tensor_supply(supply_type=TensorSupplyType.Integer, seed=0):
    """A function that makes a random input for one kernel parameter (an
    entry of kernel.params) as the profiler does: `supply(param, dims)`
    with `dims` the sizes of its dynamic dimensions by name."""
    from ..profiler import Profiler
    profiler = Profiler(None, supply_type, seed)

    def supply(param, dims=None):
        return profiler._supply(param, dims or {})
    return supply


def _as_float64(x):
    if hasattr(x, "detach"):  # torch
        x = x.detach().float().cpu().numpy()
    return np.asarray(x, dtype=np.float64)


def torch_assert_close(tensor_a, tensor_b, rtol=1e-2, atol=1e-3, max_mismatched_ratio=0.001,
                       verbose=False, equal_nan=True, check_device=True, check_dtype=True,
                       check_layout=True, check_stride=False, base_name="LHS", ref_name="RHS"):
    """Passes when at most `max_mismatched_ratio` of the elements differ by
    more than atol + rtol * |b| (torch tensors or arrays of one shape);
    raises AssertionError naming the count and the first mismatch. The
    check_* flags compare dtype and device first, as TileLang does."""
    if check_dtype and hasattr(tensor_a, "dtype") and hasattr(tensor_b, "dtype") and \
            tensor_a.dtype != tensor_b.dtype:
        raise AssertionError(f"{base_name} has dtype {tensor_a.dtype}, {ref_name} {tensor_b.dtype}")
    if check_device and hasattr(tensor_a, "device") and hasattr(tensor_b, "device") and \
            tensor_a.device != tensor_b.device:
        raise AssertionError(f"{base_name} is on {tensor_a.device}, {ref_name} on {tensor_b.device}")
    a, b = _as_float64(tensor_a), _as_float64(tensor_b)
    if a.shape != b.shape:
        raise AssertionError(f"{base_name} has shape {a.shape}, {ref_name} {b.shape}")
    bad = ~np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    count, allowed = int(bad.sum()), int(a.size * max_mismatched_ratio)
    if verbose:
        print(f"mismatched elements: {count} of {a.size} (allowed {allowed})")
    if count > allowed:
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        raise AssertionError(
            f"{count} of {a.size} elements differ (allowed {allowed}, rtol={rtol}, atol={atol}); "
            f"first at {idx}: {base_name} {a[idx]}, {ref_name} {b[idx]}")
