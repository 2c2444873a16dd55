"""Values and the text builder the front end emits `tile` IR with."""

import math

import numpy as np

from . import dtypes

_FLOATS = {d.mlir: d for d in dtypes.ALL if d.is_float}


class LinExpr:
    """An index expression as `const + sum(coeff * ssa)`, so that slice extents
    like `(bx + 1) * bm - bx * bm` fold to constants."""

    __slots__ = ("terms", "const")

    def __init__(self, terms=None, const=0):
        self.terms = {k: v for k, v in (terms or {}).items() if v != 0}
        self.const = const

    @staticmethod
    def of(value):
        if isinstance(value, int):
            return LinExpr({}, value)
        if isinstance(value, Value) and value.lin is not None:
            return value.lin
        return None

    def add(self, other, sign=1):
        terms = dict(self.terms)
        for k, v in other.terms.items():
            terms[k] = terms.get(k, 0) + sign * v
        return LinExpr(terms, self.const + sign * other.const)

    def scale(self, factor):
        return LinExpr({k: v * factor for k, v in self.terms.items()}, self.const * factor)

    def constant(self):
        return None if self.terms else self.const


def float_literal(value, type):
    """The MLIR literal of the Python number `value` as a constant of float
    type `type` (f16, bf16, f32, f64, f8...): the value rounded to the type
    (to nearest, ties to even, as a cast does; a finite value too large for
    a type with infinities becomes one). Finite f32 / f64 values print as
    exact decimals with a '.' (MLIR does not read `1e-05`); the others, and
    infinities, NaNs and the narrower types, as the hexadecimal bits MLIR
    reads back exactly. A ValueError says what the type cannot hold."""
    d = _FLOATS[type]
    v = float(value)
    if d.packed:
        return f"0x{float4_e2m1fn_bits(v):X}"
    with np.errstate(over="ignore", invalid="ignore"):
        rounded = np.array(v, dtype=np.float64).astype(d.numpy)
    back = float(rounded.astype(np.float64))
    if math.isnan(back) and not math.isnan(v):
        what = "infinity" if math.isinf(v) else f"{v!r}"
        raise ValueError(f"{what} is not representable in {d.name} (its largest finite "
                         f"value is {float(np.finfo(d.numpy).max)!r})")
    if type in ("f32", "f64") and math.isfinite(back):
        text = repr(back)
        if "." not in text:
            mantissa, _, exponent = text.partition("e")
            text = f"{mantissa}.0e{exponent}" if exponent else mantissa + ".0"
        return text
    bits = int(rounded.view(f"uint{d.bits}"))
    return f"0x{bits:0{d.bits // 4}X}"


def float4_e2m1fn_bits(v):
    """The float4_e2m1fn code of `v` as CUDA's conversion (and TileLang's
    cast) gives it: to nearest, ties to even, magnitudes above 6 saturate,
    NaN is +6."""
    if math.isnan(v):
        return 0x7
    a = abs(v)
    code = sum((a > 0.25, a >= 0.75, a > 1.25, a >= 1.75, a > 2.5, a >= 3.5, a > 5.0))
    return code | (0x8 if math.copysign(1.0, v) < 0 else 0)


def int_literal(value, type):
    """The MLIR literal of the integer `value` as a constant of type `type`
    (i1..i64 or index); a ValueError when it does not fit: MLIR's signless
    integers hold [-2^(n-1), 2^n - 1] (the bits of a signed or an unsigned
    value), index signed 64 bits."""
    v = int(value)
    if type == "i1":
        return "true" if v else "false"
    width = 64 if type == "index" else int(type[1:])
    top = 1 << (width - 1 if type == "index" else width)
    if not -(1 << (width - 1)) <= v < top:
        raise ValueError(f"integer constant {v} does not fit in {width} bits ({type})")
    return str(v)


class CommReducer:
    """T.comm_reducer(fn, [identity]): a combiner lambda (its AST, translated
    on kernel values where it is applied) and its identity."""

    def __init__(self, fn, identity):
        self.fn = fn
        self.identity = identity


class Access:
    """`buf[...]`: an element (all indices scalar) or a region (slices)."""

    def __init__(self, buffer, items, node):
        self.buffer = buffer
        self.items = items  # int | Value | ("slice", start, stop)
        self.node = node

    @property
    def is_element(self):
        return all(not isinstance(i, tuple) for i in self.items)


class Value:
    """An SSA scalar of the kernel (type: an MLIR scalar type string). Index
    values computed from tensor sizes and constants also carry `sym`, the
    same value as a Python expression over the dynamic dimensions' names, so
    that a launcher can compute grid sizes without the compiler."""

    __slots__ = ("ssa", "type", "lin", "sym")

    def __init__(self, ssa, type, lin=None, sym=None):
        self.ssa = ssa
        self.type = type
        # Integers of every width are tracked, so that the extent of a slice
        # whose start is loaded from a tensor (an i32) still folds.
        self.lin = lin if lin is not None else (
            LinExpr({ssa: 1}) if type in ("index", "i8", "i16", "i32", "i64") else None)
        self.sym = sym

    def __repr__(self):
        return f"Value({self.ssa}: {self.type})"


class TypedConstant:
    """A Python number with a dtype, e.g. T.float32(0)."""

    def __init__(self, value, dtype):
        self.value = value
        self.dtype = dtype


SCOPES = ("global", "shared", "fragment", "local")


class Buffer:
    """A buffer: a global tensor parameter or a tile buffer of a block."""

    # T.alloc_reducer: the op ("sum", "max", "min") and the starting value
    # its T.reducer_init gave (a Value), combined in when it is finalized.
    reducer = None
    reducer_seed = None
    # The open epoch of a reducer between T.reducer_init and
    # T.finalize_reducer: (its control context, the init's node), or None.
    reducer_epoch = None
    is_var = False  # T.alloc_var: its name reads and assigns element 0

    def __init__(self, ssa, shape, dtype, scope, name, strides=None):
        self.ssa = ssa
        self.shape = list(shape)  # ints, or Values for dynamic dims
        self.dtype = dtypes.as_dtype(dtype)
        self.scope = scope
        self.name = name
        # A T.StridedTensor's strides (ints, None where dynamic); None for
        # row-major buffers.
        self.strides = strides

    @property
    def ndim(self):
        return len(self.shape)

    def static_shape(self):
        return [d if isinstance(d, int) else None for d in self.shape]

    def memref_type(self):
        dims = "x".join(str(d) if isinstance(d, int) else "?" for d in self.shape)
        space = "" if self.scope == "global" else f", #tile.scope<{self.scope}>"
        body = f"{dims}x{self.dtype.mlir}" if dims else self.dtype.mlir
        if self.strides is not None:
            body += f", strided<[{', '.join('?' if s is None else str(s) for s in self.strides)}]>"
        return f"memref<{body}{space}>"

    def __repr__(self):
        return f"Buffer({self.name}, {self.shape}, {self.dtype}, {self.scope})"


class IRBuilder:
    """Accumulates the lines of one function."""

    def __init__(self):
        self.lines = []
        self.depth = 2
        self.counter = 0

    def fresh(self, hint="v"):
        self.counter += 1
        clean = "".join(c if c.isalnum() or c == "_" else "_" for c in hint) or "v"
        if clean[0].isdigit():
            clean = "v" + clean
        return f"%{clean}_{self.counter}"

    def emit(self, text, loc):
        self.lines.append("  " * self.depth + f"{text} {loc}")

    def open(self, text):
        self.lines.append("  " * self.depth + text + " {")
        self.depth += 1

    def middle(self, text):
        self.lines.append("  " * (self.depth - 1) + text)

    def close(self, loc, suffix=""):
        self.depth -= 1
        self.lines.append("  " * self.depth + "}" + suffix + " " + loc)

    def mark(self):
        return len(self.lines)

    def scheduled_ops_since(self, mark, depth):
        """Ops with side effects emitted at nesting `depth` since `mark`: the
        ops tile.pipelined's order / stage lists index (pure arithmetic is
        not listed)."""
        prefix = "  " * depth
        count = 0
        for line in self.lines[mark:]:
            if line.startswith(prefix) and not line.startswith(prefix + " "):
                stripped = line.strip()
                if stripped.startswith("}"):
                    continue
                op = stripped.split(" = ", 1)[1] if stripped.startswith("%") else stripped
                name = op.split(" ", 1)[0]
                if not name.startswith(("arith.", "math.")) and name != "memref.dim":
                    count += 1
        return count
