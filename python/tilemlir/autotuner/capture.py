"""`with set_autotune_inputs(q, k, v):` the tensors autotuning times (and
checks) each configuration on, instead of random ones (TileLang's
tilelang.autotuner.set_autotune_inputs)."""

from .._scoped import Scoped


class AutotuneInputs(Scoped):
    def __init__(self, tensors):
        self.tensors = list(tensors)


def set_autotune_inputs(*args):
    """set_autotune_inputs(a, b, c) or set_autotune_inputs([a, b, c])."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        return AutotuneInputs(args[0])
    return AutotuneInputs(args)


def get_autotune_inputs():
    """The tensors of the innermost set_autotune_inputs, or None."""
    entered = AutotuneInputs.entered()
    return entered[-1].tensors if entered else None
