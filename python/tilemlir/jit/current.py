"""@tilemlir.jit on a function that is itself the kernel (TileLang's
current front end; language/entry.py translates it).

`f.compile(M=1024, block_M=128, ...)` returns the JITKernel for those
values; `f(a, b, 128, ...)` binds the T.const names from the tensors'
shapes, compiles once for each distinct set of values (kept in memory, and
on disk through the cache), runs, and returns the outputs.
"""

import inspect

from .. import language as T
from ..language.dtypes import DType
from . import _context_target
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


# Values that a call's key holds as they are: immutable, and equal only
# where the translator sees the same value (with their type: 1, 1.0 and
# True are equal).
_PLAIN_VALUES = frozenset((int, float, bool, str, type(None), DType))


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
        self.calls = {}  # call key (see _call_key) -> (JITKernel, where its tensors are)
        params = self.signature.parameters.values()
        # Calls are cached where every argument binds to a parameter of its
        # own (no *args, **kwargs) and keywords naming no parameter are
        # constants.
        self._cacheable = all(p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY,
                                         p.POSITIONAL_ONLY) for p in params)
        self._positions = {n: i for i, (n, p) in enumerate(self.signature.parameters.items())
                           if p.kind != p.KEYWORD_ONLY}
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

    # Calls remembered (FIFO beyond this many): the JITKernel of a call with
    # the same key, without binding and checking again.
    _CALL_ENTRIES = 256

    def _call_key(self, args, kwargs):
        """The call cache's key, or None where the call cannot be cached:
        the enclosing target (which picks the target of "auto"), then for
        each argument its type and value where it is a plain value (one of
        _PLAIN_VALUES), its type, shape and dtype where it is a tensor (its
        shape binds constants; the JITKernel checks the rest, device
        included, when it launches), and each keyword's name. Any other
        argument (a list, an object) is not cached."""
        if not self._cacheable:
            return None
        target = _context_target(self.target)
        key = [target if target is None or type(target) is str else str(target), len(args)]
        plain = _PLAIN_VALUES
        for a in (*args, *kwargs.values()):
            t = type(a)
            if t in plain:
                key += (t, a)
                continue
            shape = getattr(a, "shape", None)
            if shape is None or len(shape) == 0 or not hasattr(a, "dtype"):
                return None
            key += (t, shape, a.dtype)
        if kwargs:
            key += kwargs
        return tuple(key)

    def _tensor_places(self, args, kwargs):
        """Where each tensor parameter's argument is in a call: its index in
        `args`, or its keyword; None where one has none (not cacheable)."""
        places = []
        for name in self.tensor_names:
            if name in kwargs:
                places.append(name)
            elif self._positions.get(name, len(args)) < len(args):
                places.append(self._positions[name])
            else:
                return None
        return tuple(places)

    def __call__(self, *args, **kwargs):
        """Compiles for these tensors' shapes (once for each set) and runs:
        returns the outputs. A call with the key of an earlier one (same
        tensor shapes and dtypes, same other values, same enclosing target)
        takes that call's kernel without binding again; any other call is
        bound and checked in full."""
        key = self._call_key(args, kwargs)
        if key is not None:
            try:
                hit = self.calls.get(key)
            except TypeError:       # a shape or dtype that does not hash
                hit = key = None
            if hit is not None:
                kernel, places = hit
                if places is None:
                    return kernel(*args)
                return kernel(*[args[p] if type(p) is int else kwargs[p] for p in places])
        try:
            values, consts, tensors = self.bind(args, kwargs)
            kernel = self.kernel(values, consts)
        except TileCompileError as e:
            raise at_caller(e) from None
        if key is not None:
            places = self._tensor_places(args, kwargs)
            if places is not None:
                if len(self.calls) >= self._CALL_ENTRIES:
                    self.calls.pop(next(iter(self.calls)), None)
                # None: the tensors are the positional arguments, in order.
                self.calls[key] = (kernel, None if places == tuple(range(len(args))) else places)
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
