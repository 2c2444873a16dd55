"""@tilemlir.jit on a function that is itself the kernel (TileLang's
current front end; language/entry.py translates it).

`f.compile(M=1024, block_M=128, ...)` returns the JITKernel for those
values; `f(a, b, 128, ...)` binds the T.const names from the tensors'
shapes, compiles once for each distinct set of values (kept in memory, and
on disk through the cache), runs, and returns the outputs.
"""

import inspect

from .. import language as T
from ..errors import TileCompileError, at_caller
from ..language.entry import ConstPlaceholder, CurrentTranslator, tensor_parameters


class _Unset:
    """A parameter that was given no value (shown in the errors it causes)."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"<parameter '{self.name}' without a value>"


def _is_tensor(x):
    return hasattr(x, "shape") and hasattr(x, "dtype") and len(getattr(x, "shape", ())) > 0


def _hashable(items):
    key = tuple(sorted(items))
    try:
        hash(key)
    except TypeError:
        key = repr(key)
    return key


class KernelFunction:
    """What @tilemlir.jit makes of a current-style kernel function."""

    def __init__(self, fn, target, options):
        self.fn = fn
        self.target = target
        self.options = options
        self.signature = inspect.signature(fn)
        self.tensor_names = tensor_parameters(fn)
        self.kernels = {}  # (parameter values, constants) -> JITKernel
        self.probes = {}  # (parameter values, constants given) -> probe
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn

    def __repr__(self):
        return f"<tilemlir kernel function {self.fn.__name__}>"

    # ------------------------------------------------------------- binding

    def _split(self, args, kwargs):
        """(parameter values, constants) of a call or a compile: keywords
        that name no parameter are constants."""
        params = self.signature.parameters
        consts = {k: v for k, v in kwargs.items() if k not in params}
        try:
            bound = self.signature.bind_partial(
                *args, **{k: v for k, v in kwargs.items() if k in params})
        except TypeError as e:
            raise TileCompileError(f"error: {self.fn.__name__}(...): {e}") from None
        bound.apply_defaults()
        values = {n: bound.arguments.get(n, _Unset(n)) for n in params}
        return values, consts

    def _probe(self, values, consts):
        """The probe of the declarations for these values and constants
        (the tensors aside, which it does not read): translated once for
        each set, so that a call with tensors translates nothing again."""
        key = (_hashable((n, v) for n, v in values.items() if n not in self.tensor_names),
               _hashable(consts.items()))
        if key not in self.probes:
            t = CurrentTranslator(self.fn, values, consts, probe=self.tensor_names)
            t.translate()
            self.probes[key] = t
        return self.probes[key]

    def _check_given(self, values):
        """Every parameter that is not a tensor has a value."""
        for name, value in values.items():
            if isinstance(value, _Unset) and name not in self.tensor_names:
                raise TileCompileError(f"error: parameter '{name}' of {self.fn.__name__} has no "
                                       f"value: pass {name}=...")

    def bind(self, args, kwargs):
        """(parameter values without the tensors, constants, tensors in
        order) of a call with tensors; the constants that the call does not
        give are bound from the tensors' shapes."""
        values, consts = self._split(args, kwargs)
        names = self.tensor_names
        passed = [n for n, v in values.items() if _is_tensor(v)]
        if len(passed) != len(names):
            raise TileCompileError(
                f"error: {self.fn.__name__} takes {len(names)} tensor"
                f"{'s' if len(names) != 1 else ''} ({', '.join(names)}); the call passes "
                f"{len(passed)}{' (' + ', '.join(passed) + ')' if passed else ''}")
        self._check_given(values)
        probe = self._probe(values, consts)
        late = [n for n in names if n not in probe.inputs]
        if late:
            raise TileCompileError(
                f"error: annotate the tensor parameters of {self.fn.__name__} "
                f"({', '.join(late)}) before its first `with` or loop, where their shapes "
                "fix its constants")
        for name, value in values.items():
            if _is_tensor(value) and name not in probe.inputs:
                raise TileCompileError(
                    f"error: argument '{name}' of {self.fn.__name__} is an array, but '{name}' is "
                    f"not annotated as a tensor ({name}: T.Tensor(shape, dtype))")
        for name in names:
            if not _is_tensor(values[name]):
                raise probe.error(f"'{name}' is a tensor parameter; the call passes "
                                  f"{type(values[name]).__name__} {values[name]!r} for it",
                                  probe.inputs[name][2])
        origin = {}
        for name in names:
            self._bind_shape(probe, name, values[name], consts, origin)
        for cname, node in probe.const_nodes.items():
            if cname not in consts:
                raise probe.error(f"constant '{cname}' cannot be bound: it is no dimension of "
                                  f"the tensors {', '.join(names) or '(none)'}; pass it, as in "
                                  f"{self.fn.__name__}.compile({cname}=...)", node)
        tensors = [values.pop(n) for n in names]
        return values, consts, tensors

    @staticmethod
    def _bind_shape(probe, name, tensor, consts, origin):
        spec, _, node = probe.inputs[name]
        shape = tuple(int(s) for s in tensor.shape)
        if len(shape) != len(spec.shape):
            raise probe.error(f"tensor '{name}' is annotated with {len(spec.shape)} dimensions "
                              f"{spec.shape}; the argument has shape {shape}", node)
        for d, (want, got) in enumerate(zip(spec.shape, shape)):
            if isinstance(want, T.DynamicDim) and not isinstance(want, ConstPlaceholder):
                continue  # T.dynamic: any size
            if isinstance(want, ConstPlaceholder):
                if not want.bindable:
                    continue  # an expression: the launcher checks it
                want = want.name
                if want not in consts:
                    consts[want] = got
                    origin[want] = f"{name}'s dimension {d}"
                    continue
                where = origin.get(want, "the value passed")
                if consts[want] != got:
                    raise probe.error(f"constant '{want}' is {consts[want]} from {where}, but "
                                      f"dimension {d} of '{name}' is {got}", node)
            elif want != got:
                raise probe.error(f"dimension {d} of '{name}' is {want}, the argument's is {got}",
                                  node)

    # ------------------------------------------------------------ compiling

    def kernel(self, values, consts):
        """The JITKernel for these values (compiled once for each set and
        each enclosing `with Target(...)`)."""
        from . import _context_target
        key = (_hashable(values.items()), _hashable(consts.items()),
               str(_context_target(self.target)))
        if key not in self.kernels:
            self.kernels[key] = self._compile(values, consts)
        return self.kernels[key]

    def translate(self, values, consts):
        """The CurrentTranslator that has translated the kernel, and its IR."""
        t = CurrentTranslator(self.fn, values, consts)
        ir = t.translate()
        unknown = [c for c in consts if c not in t.const_nodes]
        if unknown:
            raise TileCompileError(
                f"error: {', '.join(repr(c) for c in unknown)} is neither a parameter of "
                f"{self.fn.__name__} nor a name that it declares with T.const")
        return t, ir

    def _compile(self, values, consts):
        from . import (build, resolve_target, _check_options,
                       _pass_config_options, _context_target)
        target = resolve_target(_context_target(self.target))
        _check_options(**self.options)
        t, ir = self.translate(values, consts)
        params = t.params_meta()
        n_in = len(t.order) - len(t.returned or ())
        out_idx = list(range(n_in, len(t.order)))
        from ..language.parser import launch_of
        return build(t.prim, ir, launch_of(t), params, out_idx, target,
                     _pass_config_options(self.options["pass_configs"], target))

    def _values(self, args, kwargs):
        """(values, constants) of a compile or a get_tir: where tensors (or
        T.Tensor specs) are passed, their shapes bind the constants."""
        if any(_is_tensor(a) for a in list(args) + list(kwargs.values())):
            values, consts, _ = self.bind(args, kwargs)
            return values, consts
        values, consts = self._split(args, kwargs)
        self._check_given(values)
        for name in self.tensor_names:
            values.pop(name, None)
        return values, consts

    def compile(self, *args, **kwargs):
        """The JITKernel for these parameter values and constants (keywords
        that name no parameter); it takes the tensor parameters and returns
        the outputs."""
        try:
            return self.kernel(*self._values(args, kwargs))
        except TileCompileError as e:
            raise at_caller(e) from None

    def __call__(self, *args, **kwargs):
        """Compiles for these tensors' shapes (once for each set) and runs:
        returns the outputs."""
        try:
            values, consts, tensors = self.bind(args, kwargs)
            kernel = self.kernel(values, consts)
        except TileCompileError as e:
            raise at_caller(e) from None
        return kernel(*tensors)

    def get_tir(self, *args, **kwargs):
        """The tile IR for these values and constants (as compile takes them),
        translated without compiling."""
        try:
            return self.translate(*self._values(args, kwargs))[1]
        except TileCompileError as e:
            raise at_caller(e) from None

    def get_kernel_source(self, *args, **kwargs):
        return self.compile(*args, **kwargs).get_kernel_source()


__all__ = ["KernelFunction"]
