"""The TileLang language surface: `import tilemlir.language as T`.

Functions here are read by the front end from the kernel's Python AST;
calling them outside a `@T.prim_func` raises an error that says so (except
those that also make sense on Python values, such as T.ceildiv(1024, 128)).
"""

import builtins as _builtins
import enum
import math

from . import dtypes
from .dtypes import (DType, as_dtype, bfloat16, boolean, float8_e4m3, float8_e5m2, float16,
                     float32, float64, int8, int16, int32, int64, uint8)

bool_ = boolean
float = float32  # noqa: A001 - TileLang's T.float
half = float16
# TileLang's dtype class: T.dtype("float16"), `dtype: T.dtype = T.float16`.
dtype = dtypes.DType


# The translators reading a kernel while it calls a plain Python function
# (a helper given buffers): T.* calls made in it are translated there.
_HELPER_CALLERS = []


class Intrinsic:
    """A T.* operation that only exists inside a kernel."""

    def __init__(self, name, python_impl=None):
        self.name = name
        self.python_impl = python_impl

    def __call__(self, *args, **kwargs):
        if _HELPER_CALLERS:
            return _HELPER_CALLERS[-1].call_from_helper(self, args, kwargs)
        if self.python_impl is not None:
            return self.python_impl(*args, **kwargs)
        raise RuntimeError(f"T.{self.name} can only be used inside a @T.prim_func kernel")

    def __repr__(self):
        return f"T.{self.name}"


class TensorSpec:
    """The annotation of a kernel parameter: T.Tensor((M, K), "float16")."""

    def __init__(self, shape, dtype="float32", strides=None):
        if isinstance(shape, (int, DynamicDim)):
            shape = (shape,)
        self.shape = tuple(shape)
        self.dtype = dtypes.storable(dtype)
        if self.dtype == dtypes.ptr:
            self.dtype = dtypes.int64  # a table of addresses: int64 on the host
        # T.StridedTensor: the stride of each dimension in elements (ints or
        # T.dynamic); None for a row-major tensor.
        self.strides = None if strides is None else tuple(
            (strides,) if isinstance(strides, (int, DynamicDim)) else strides)
        if self.strides is not None:
            if len(self.strides) != len(self.shape):
                raise TypeError(f"T.StridedTensor has {len(self.shape)} dimensions but "
                                f"{len(self.strides)} strides")
            for s in self.strides:
                if isinstance(s, bool) or not isinstance(s, (int, DynamicDim)) or \
                        (isinstance(s, int) and s <= 0):
                    raise TypeError("T.StridedTensor strides must be positive ints or "
                                    f"T.dynamic(...), got {s!r}")
            if self.dtype.packed:
                raise TypeError("T.StridedTensor of 4-bit elements (packed two a byte) is not "
                                "supported")
        size = (self.dtype.bits + 7) // 8
        for d in self.shape:
            if isinstance(d, bool) or not isinstance(d, (int, DynamicDim)):
                raise TypeError(f"T.Tensor shape entries must be ints or T.dynamic(...), got {d!r}")
            if isinstance(d, int):
                if d <= 0:
                    raise TypeError(f"T.Tensor shape entries must be positive, got {d}")
                size *= d
        # Sizes and offsets are 64-bit: a larger tensor cannot exist.
        if size >= 1 << 63:
            raise TypeError(f"T.Tensor{self.shape} of {self.dtype.name} takes {size} bytes, more "
                            "than 64-bit sizes reach")

    def __repr__(self):
        if self.strides is not None:
            return f"T.StridedTensor({self.shape}, {self.strides}, {self.dtype})"
        return f"T.Tensor({self.shape}, {self.dtype})"


class _TensorAnnotation:
    """T.Tensor: `T.Tensor((M, K), dtype)` or `T.Tensor[(M, K), dtype]`
    makes a TensorSpec (the dtype defaults to float32)."""

    def __call__(self, shape, dtype="float32"):
        try:
            return TensorSpec(shape, dtype)
        except TypeError as e:
            # Evaluated in the annotation of the user's kernel: report it there.
            from ..errors import TileCompileError, caller_location
            raise TileCompileError("error: " + str(e), *caller_location(1)) from None

    def __getitem__(self, key):
        # T.Tensor[(M, K), dtype], the dtype a name, a DType or a torch dtype;
        # T.Tensor[M, dtype] for one dimension.
        if isinstance(key, tuple) and len(key) == 2 and (
                isinstance(key[1], (DType, str)) or isinstance(key[0], (tuple, list))):
            return self(*key)
        return self(key)

    def __repr__(self):
        return "T.Tensor"


Tensor = _TensorAnnotation()
Buffer = Tensor


class DynamicDim:
    """A symbolic dimension (T.dynamic("m")), known when the kernel is called.
    Arithmetic with integers (m * 2, n + 1) gives a DimExpr, a size that a
    tensor's shape may have."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"T.dynamic({self.name!r})"

    def _linear(self):
        return self, 1, 0

    def _combine(self, op, other, reverse=False):
        var, mul, add = self._linear()
        if isinstance(other, bool) or not isinstance(other, int):
            raise TypeError(f"arithmetic on T.dynamic dimensions in shapes takes integers "
                            f"(a * {var.name} + b); {self!r} {op} {other!r} is not of that form")
        if op == "+":
            return DimExpr(var, mul, add + other)
        if op == "-":
            return DimExpr(var, -mul, other - add) if reverse else DimExpr(var, mul, add - other)
        return DimExpr(var, mul * other, add * other)

    def __add__(self, o): return self._combine("+", o)  # noqa: E704
    def __radd__(self, o): return self._combine("+", o, True)  # noqa: E704
    def __sub__(self, o): return self._combine("-", o)  # noqa: E704
    def __rsub__(self, o): return self._combine("-", o, True)  # noqa: E704
    def __mul__(self, o): return self._combine("*", o)  # noqa: E704
    def __rmul__(self, o): return self._combine("*", o, True)  # noqa: E704


class DimExpr(DynamicDim):
    """`mul * var + add` of a T.dynamic dimension `var`: the size of a tensor
    dimension written with arithmetic (T.Tensor((n * 4 + 1,), ...)). The
    kernel reads `var` back from the size ((size - add) / mul); the runtime
    checks that the size has that form, and that every tensor agrees on
    `var`."""

    def __init__(self, var, mul, add):
        if mul <= 0:
            raise TypeError(f"a tensor size {mul} * {var.name} + {add} must grow with "
                            f"{var.name} (a positive multiple of it)")
        self.var, self.mul, self.add = var, mul, add
        text = var.name if mul == 1 else f"{var.name} * {mul}"
        if add:
            text += f" {'+' if add > 0 else '-'} {abs(add)}"
        super().__init__(text)

    def __repr__(self):
        return self.name

    def _linear(self):
        return self.var, self.mul, self.add


def stride_entries(spec):
    """The "strides" of a T.StridedTensor parameter as a bundle holds them
    (ints and T.dynamic names), or None for a row-major tensor."""
    if spec.strides is None:
        return None
    return [s if isinstance(s, int) else s.name for s in spec.strides]


def shape_entry(d):
    """A tensor shape entry as a bundle's "params" hold it: an int, the name
    of a T.dynamic dimension, or {"var", "mul", "add"} for a DimExpr."""
    if isinstance(d, DimExpr):
        return {"var": d.var.name, "mul": d.mul, "add": d.add}
    return d if isinstance(d, int) else d.name


def dynamic(name, dtype="int32"):
    return DynamicDim(name)


symbolic = dynamic
# TileLang's T.Var: what T.dynamic gives (isinstance(n, T.Var) tells a
# dynamic dimension from a number).
Var = DynamicDim


class GemmWarpPolicy(enum.Enum):
    Square = "square"
    FullRow = "full_row"
    FullCol = "full_col"


class PrimFunc:
    """A kernel defined with @T.prim_func; translated when compiled."""

    def __init__(self, fn):
        self.fn = fn
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__

    def __call__(self, *args, **kwargs):
        raise RuntimeError("a T.prim_func is compiled, not called: use "
                           "tilemlir.compile(func, out_idx=...) or @tilemlir.jit")

    def script(self):
        """The kernel as tile IR."""
        from .parser import translate
        return translate(self)


def prim_func(fn):
    return PrimFunc(fn)


class Macro:
    """A function whose body is inlined where a kernel calls it (@T.macro)."""

    def __init__(self, fn):
        self.fn = fn
        self.__name__ = fn.__name__

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"T.macro '{self.fn.__name__}' can only be called inside a kernel")


def macro(fn):
    return Macro(fn)


def _ceildiv(a, b):
    return -(-a // b)


def _truncdiv(a, b):
    """C's integer division (rounds toward zero), on Python numbers."""
    if isinstance(a, int) and isinstance(b, int):
        q = _builtins.abs(a) // _builtins.abs(b)
        return q if (a < 0) == (b < 0) else -q
    return math.trunc(a / b)


# The current front end (a @tilemlir.jit function that is the kernel):
# T.const names the shape constants, T.empty makes an output tensor.
const = Intrinsic("const")
empty = Intrinsic("empty")


class _StridedTensorAnnotation:
    """T.StridedTensor: `T.StridedTensor(shape, strides, dtype)` or
    `T.StridedTensor[shape, strides, dtype]`, a tensor parameter whose
    dimensions are `strides` elements apart (a view such as a[:, :n])."""

    @staticmethod
    def spec(shape, strides, dtype="float32"):
        """The TensorSpec; a TypeError says what is wrong."""
        return TensorSpec(shape, dtype, strides)

    @staticmethod
    def spec_of_key(key):
        if not isinstance(key, tuple) or len(key) not in (2, 3):
            raise TypeError("write T.StridedTensor[shape, strides, dtype]")
        return TensorSpec(key[0], key[2] if len(key) == 3 else "float32", key[1])

    def __call__(self, shape, strides, dtype="float32"):
        try:
            return self.spec(shape, strides, dtype)
        except TypeError as e:
            from ..errors import TileCompileError, caller_location
            raise TileCompileError("error: " + str(e), *caller_location(1)) from None

    def __getitem__(self, key):
        try:
            return self.spec_of_key(key)
        except TypeError as e:
            from ..errors import TileCompileError, caller_location
            raise TileCompileError("error: " + str(e), *caller_location(1)) from None

    def __repr__(self):
        return "T.StridedTensor"


StridedTensor = _StridedTensorAnnotation()
# Kernel structure and loops.
Kernel = Intrinsic("Kernel")
# T.Kernel with cluster_dims= required (thread block clusters, sm_90a).
ClusterKernel = Intrinsic("ClusterKernel")
cluster_arrive = Intrinsic("cluster_arrive")
cluster_arrive_relaxed = Intrinsic("cluster_arrive_relaxed")
cluster_wait = Intrinsic("cluster_wait")
cluster_sync = Intrinsic("cluster_sync")
block_rank_in_cluster = Intrinsic("block_rank_in_cluster")
Parallel = Intrinsic("Parallel")
Pipelined = Intrinsic("Pipelined")
Persistent = Intrinsic("Persistent")
serial = Intrinsic("serial")
unroll = Intrinsic("unroll")
vectorized = Intrinsic("vectorized")
# TileLang's upper-case aliases (tile-level loops): the same loops.
Serial = serial
Unroll = unroll
Vectorized = vectorized
# Buffers and data movement.
alloc_shared = Intrinsic("alloc_shared")
alloc_fragment = Intrinsic("alloc_fragment")
alloc_local = Intrinsic("alloc_local")
alloc_buffer = Intrinsic("alloc_buffer")
copy = Intrinsic("copy")
async_copy = Intrinsic("async_copy")
ptx_commit_group = Intrinsic("ptx_commit_group")
ptx_wait_group = Intrinsic("ptx_wait_group")
transpose = Intrinsic("transpose")
# TVM's vector index: T.Ramp(base, 1, lanes) is the slice base:base + lanes.
Ramp = Intrinsic("Ramp")
clear = Intrinsic("clear")
fill = Intrinsic("fill")
annotate_layout = Intrinsic("annotate_layout")
reshape = Intrinsic("reshape")
view = Intrinsic("view")
annotate_safe_value = Intrinsic("annotate_safe_value")
use_swizzle = Intrinsic("use_swizzle")
# Compute.
gemm = Intrinsic("gemm")
gemm_sp = Intrinsic("gemm_sp")
reduce_max = Intrinsic("reduce_max")
reduce_min = Intrinsic("reduce_min")
reduce_sum = Intrinsic("reduce_sum")
reduce_abssum = Intrinsic("reduce_abssum")
reduce_absmax = Intrinsic("reduce_absmax")
alloc_reducer = Intrinsic("alloc_reducer")
reducer_init = Intrinsic("reducer_init")
reducer_update = Intrinsic("reducer_update")
finalize_reducer = Intrinsic("finalize_reducer")
atomic_add = Intrinsic("atomic_add")
atomic_addx2 = Intrinsic("atomic_addx2")
atomic_addx4 = Intrinsic("atomic_addx4")
atomic_max = Intrinsic("atomic_max")
atomic_min = Intrinsic("atomic_min")
cumsum = Intrinsic("cumsum")
cummax = Intrinsic("cummax")
# Raw 32- to 256-bit loads and stores (vector_ops.py).
ldg32 = Intrinsic("ldg32")
ldg64 = Intrinsic("ldg64")
ldg128 = Intrinsic("ldg128")
ldg256 = Intrinsic("ldg256")
stg32 = Intrinsic("stg32")
stg64 = Intrinsic("stg64")
stg128 = Intrinsic("stg128")
stg256 = Intrinsic("stg256")
lds32 = Intrinsic("lds32")
lds64 = Intrinsic("lds64")
lds128 = Intrinsic("lds128")
sts32 = Intrinsic("sts32")
sts64 = Intrinsic("sts64")
sts128 = Intrinsic("sts128")
# Scalar math: usable on Python numbers too.
ceildiv = Intrinsic("ceildiv", _ceildiv)
# TVM's align_up: x rounded up to a multiple of y (ceildiv(x, y) * y).
align_up = Intrinsic("align_up", lambda x, y: _ceildiv(x, y) * y)
floordiv = Intrinsic("floordiv", lambda a, b: a // b)
floormod = Intrinsic("floormod", lambda a, b: a % b)
truncdiv = Intrinsic("truncdiv", _truncdiv)
truncmod = Intrinsic("truncmod", lambda a, b: a - _truncdiv(a, b) * b)
max = Intrinsic("max", _builtins.max)  # noqa: A001
min = Intrinsic("min", _builtins.min)  # noqa: A001
exp = Intrinsic("exp", math.exp)
exp2 = Intrinsic("exp2", lambda x: 2.0 ** x)
log = Intrinsic("log", math.log)
log2 = Intrinsic("log2", math.log2)
sqrt = Intrinsic("sqrt", math.sqrt)
rsqrt = Intrinsic("rsqrt", lambda x: 1.0 / math.sqrt(x))
abs = Intrinsic("abs", _builtins.abs)  # noqa: A001
tanh = Intrinsic("tanh", math.tanh)
sin = Intrinsic("sin", math.sin)
cos = Intrinsic("cos", math.cos)
floor = Intrinsic("floor", math.floor)
ceil = Intrinsic("ceil", math.ceil)
erf = Intrinsic("erf", math.erf)
sigmoid = Intrinsic("sigmoid", lambda x: 1.0 / (1.0 + math.exp(-x)))
pow = Intrinsic("pow", lambda a, b: a ** b)  # noqa: A001
infinity = Intrinsic("infinity")
if_then_else = Intrinsic("if_then_else", lambda c, a, b: a if c else b)
Select = Intrinsic("Select", lambda c, a, b, span=None: a if c else b)
clamp = Intrinsic("clamp", lambda x, lo, hi: _builtins.min(_builtins.max(x, lo), hi))
cast = Intrinsic("cast")  # T.cast(value, dtype)
Cast = Intrinsic("Cast")  # T.Cast(dtype, value), TIR's order
reinterpret = Intrinsic("reinterpret")  # T.reinterpret(value, dtype): the same bits

# Thread-level code (thread_ops.py), variables and control flow.
get_thread_binding = Intrinsic("get_thread_binding")
get_thread_bindings = Intrinsic("get_thread_bindings")
get_block_binding = Intrinsic("get_block_binding")
get_block_bindings = Intrinsic("get_block_bindings")
get_lane_idx = Intrinsic("get_lane_idx")
get_warp_idx = Intrinsic("get_warp_idx")
get_warp_idx_sync = Intrinsic("get_warp_idx_sync")
get_warp_group_idx = Intrinsic("get_warp_group_idx")
shuffle_elect = Intrinsic("shuffle_elect")
thread_binding = Intrinsic("thread_binding")
sync_threads = Intrinsic("sync_threads")
sync_warp = Intrinsic("sync_warp")


def _vote_outside(name):
    """A vote or block reduction called outside a kernel: a float predicate
    is a TypeError, as TileLang's (which checks it when the call is built),
    and anything else needs the kernel."""
    def check(predicate, *args, **kwargs):
        dt = getattr(predicate, "dtype", None)
        if isinstance(predicate, _builtins.float) or (dt is not None and as_dtype(dt).is_float):
            raise TypeError(f"T.{name} requires an integer or boolean predicate, got "
                            f"{as_dtype(dt).name if dt is not None else 'a float'}")
        raise RuntimeError(f"T.{name} can only be used inside a @T.prim_func kernel")
    return Intrinsic(name, check)


syncthreads_count = _vote_outside("syncthreads_count")
syncthreads_and = _vote_outside("syncthreads_and")
syncthreads_or = _vote_outside("syncthreads_or")
any_sync = _vote_outside("any_sync")
all_sync = _vote_outside("all_sync")
ballot_sync = _vote_outside("ballot_sync")
ballot = _vote_outside("ballot")
activemask = Intrinsic("activemask")
match_any_sync = Intrinsic("match_any_sync")
match_all_sync = Intrinsic("match_all_sync")
shfl_sync = Intrinsic("shfl_sync")
shfl_xor = Intrinsic("shfl_xor")
shfl_down = Intrinsic("shfl_down")
shfl_up = Intrinsic("shfl_up")
# TVM's thread all-reduce, as TileLang's examples write it: T.evaluate(
# T.tvm_thread_allreduce(1, value, True, out, thread_index)) inside
# `with T.attr(T.comm_reducer(lambda x, y: x + y, [0]), "reduce_scope", ...)`.
attr = Intrinsic("attr")
comm_reducer = Intrinsic("comm_reducer")
evaluate = Intrinsic("evaluate")
tvm_thread_allreduce = Intrinsic("tvm_thread_allreduce")
warp_reduce_sum = Intrinsic("warp_reduce_sum")
warp_reduce_max = Intrinsic("warp_reduce_max")
warp_reduce_min = Intrinsic("warp_reduce_min")
warp_reduce_bitand = Intrinsic("warp_reduce_bitand")
warp_reduce_bitor = Intrinsic("warp_reduce_bitor")
__ffs = Intrinsic("__ffs")
# CUDA's __ldg: a load through the read-only data cache; here a plain load
# (T.__ldg(x[i]) or T.__ldg(x, i)).
__ldg = Intrinsic("__ldg")
__fns = Intrinsic("__fns")
alloc_var = Intrinsic("alloc_var")
# mbarriers and T.tma_copy (barrier_ops.py).
alloc_barrier = Intrinsic("alloc_barrier")
mbarrier_arrive = Intrinsic("mbarrier_arrive")
barrier_arrive = Intrinsic("barrier_arrive")
mbarrier_wait_parity = Intrinsic("mbarrier_wait_parity")
barrier_wait = Intrinsic("barrier_wait")
tma_copy = Intrinsic("tma_copy")
tma_store_arrive = Intrinsic("tma_store_arrive")
tma_store_wait = Intrinsic("tma_store_wait")
alloc_global = Intrinsic("alloc_global")
make_tensor = Intrinsic("make_tensor")
any_of = Intrinsic("any_of")
all_of = Intrinsic("all_of")
assume = Intrinsic("assume")

# T.Layout / T.Fragment: layouts given as Python functions of the indices,
# for T.annotate_layout (tilemlir/layout.py traces them).
from ..layout import Fragment, Layout  # noqa: E402


def __getattr__(name):
    """TileLang's other dtype names: C aliases (T.int, T.uint, T.bool, ...:
    not module globals, which would hide Python's builtins here), 4-bit and
    float8 variants, vector dtypes (T.float32x2). A name kernels cannot hold
    in buffers says so where a buffer or tensor takes it."""
    if name in dtypes._BY_NAME:
        return dtypes._BY_NAME[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [name for name in dir() if not name.startswith("_")]
