"""Layouts a kernel may pin with T.annotate_layout (tilelang.layout's names)."""

import enum


class SwizzleLayout:
    """An XOR swizzle of a shared buffer, #tile.swizzle<bits, base, shift>
    over byte offsets."""

    def __init__(self, bits, base, shift):
        self.bits, self.base, self.shift = bits, base, shift

    def attr(self):
        return f"#tile.swizzle<{self.bits}, {self.base}, {self.shift}>"


def make_swizzled_layout(buffer):
    """The widest of the 128/64/32-byte swizzles that the buffer's rows fill
    (the swizzles TMA, wgmma and ldmatrix use); rows narrower than 32 bytes
    are not swizzled (None)."""
    row_bytes = buffer.shape[-1] * buffer.dtype.bits // 8
    for width, bits in ((128, 3), (64, 2), (32, 1)):
        if row_bytes % width == 0:
            return SwizzleLayout(bits, 4, 3)
    return None


make_mma_swizzle_layout = make_swizzled_layout


# --------------------------------------------------------------- T.Layout / T.Fragment
# A layout function (`lambda i, j: [...]`) is called once with IndexVar
# objects; what it returns is an IndexExpr tree, which becomes an affine map
# where it is one (+, -, * by a constant, // and % by a positive constant,
# shifts by a constant, & with 2^k - 1) and is evaluated on integers
# otherwise (an XOR swizzle, matched against #tile.swizzle).

class NotAffine(Exception):
    pass


def _expr(x):
    if isinstance(x, IndexExpr):
        return x
    if isinstance(x, bool) or not isinstance(x, int):
        raise TypeError(f"a layout function computes with integers and its indices, got {x!r}")
    return IndexConst(x)


class IndexExpr:
    """An integer expression over the indices of a layout function."""

    def _bin(self, op, other, reverse=False):
        a, b = (_expr(other), self) if reverse else (self, _expr(other))
        return IndexBinary(op, a, b)

    def __add__(self, o): return self._bin("+", o)  # noqa: E704
    def __radd__(self, o): return self._bin("+", o, True)  # noqa: E704
    def __sub__(self, o): return self._bin("-", o)  # noqa: E704
    def __rsub__(self, o): return self._bin("-", o, True)  # noqa: E704
    def __mul__(self, o): return self._bin("*", o)  # noqa: E704
    def __rmul__(self, o): return self._bin("*", o, True)  # noqa: E704
    def __floordiv__(self, o): return self._bin("//", o)  # noqa: E704
    def __rfloordiv__(self, o): return self._bin("//", o, True)  # noqa: E704
    def __mod__(self, o): return self._bin("%", o)  # noqa: E704
    def __rmod__(self, o): return self._bin("%", o, True)  # noqa: E704
    def __xor__(self, o): return self._bin("^", o)  # noqa: E704
    def __rxor__(self, o): return self._bin("^", o, True)  # noqa: E704
    def __and__(self, o): return self._bin("&", o)  # noqa: E704
    def __rand__(self, o): return self._bin("&", o, True)  # noqa: E704
    def __or__(self, o): return self._bin("|", o)  # noqa: E704
    def __ror__(self, o): return self._bin("|", o, True)  # noqa: E704
    def __lshift__(self, o): return self._bin("<<", o)  # noqa: E704
    def __rshift__(self, o): return self._bin(">>", o)  # noqa: E704
    def __neg__(self): return IndexBinary("*", self, IndexConst(-1))  # noqa: E704

    def __bool__(self):
        raise TypeError("a layout function cannot branch on its indices (use arithmetic)")

    def __index__(self):
        raise TypeError("a layout function's indices are symbolic: they cannot be used "
                        "as Python integers")


class IndexConst(IndexExpr):
    def __init__(self, value):
        self.value = value

    def evaluate(self, env):
        return self.value

    def affine(self):
        return str(self.value)

    def bounds(self, ranges):
        return self.value, self.value


class IndexVar(IndexExpr):
    def __init__(self, position):
        self.position = position

    def evaluate(self, env):
        return env[self.position]

    def affine(self):
        return f"d{self.position}"

    def bounds(self, ranges):
        return 0, ranges[self.position] - 1


def _power_of_two(v):
    return isinstance(v, int) and v > 0 and v & (v - 1) == 0


class IndexBinary(IndexExpr):
    def __init__(self, op, lhs, rhs):
        self.op, self.lhs, self.rhs = op, lhs, rhs

    def evaluate(self, env):
        a, b = self.lhs.evaluate(env), self.rhs.evaluate(env)
        return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
                "//": lambda: a // b, "%": lambda: a % b, "^": lambda: a ^ b,
                "&": lambda: a & b, "|": lambda: a | b, "<<": lambda: a << b,
                ">>": lambda: a >> b}[self.op]()

    def _const_rhs(self):
        return self.rhs.value if isinstance(self.rhs, IndexConst) else None

    def affine(self):
        a, c = self.lhs.affine(), self._const_rhs()
        if self.op in ("+", "-"):
            return f"({a} {self.op} {self.rhs.affine()})"
        if self.op == "*":
            if c is None and not isinstance(self.lhs, IndexConst):
                raise NotAffine("a product of two indices")
            return f"({a} * {self.rhs.affine()})"
        if self.op in ("//", "%", ">>", "&") and (c is None or c <= 0):
            raise NotAffine(f"'{self.op}' by a value that is not a positive constant")
        if self.op == "//":
            return f"({a} floordiv {c})"
        if self.op == "%":
            return f"({a} mod {c})"
        if self.op == "<<" and c is not None and c >= 0:
            return f"({a} * {1 << c})"
        if self.op == ">>":
            return f"({a} floordiv {1 << c})"
        if self.op == "&" and _power_of_two(c + 1):
            return f"({a} mod {c + 1})"
        raise NotAffine(f"'{self.op}'")

    def bounds(self, ranges):
        """(lowest, highest) value over the indices' ranges (an interval:
        exact for the layouts in use, conservative otherwise)."""
        la, ha = self.lhs.bounds(ranges)
        lb, hb = self.rhs.bounds(ranges)
        if self.op == "+":
            return la + lb, ha + hb
        if self.op == "-":
            return la - hb, ha - lb
        if self.op == "*":
            corners = [la * lb, la * hb, ha * lb, ha * hb]
            return min(corners), max(corners)
        c = self._const_rhs()
        if self.op in ("//", ">>") and c is not None and c >= (1 if self.op == "//" else 0):
            d = c if self.op == "//" else 1 << c
            return la // d, ha // d
        if self.op == "%" and c is not None and c > 0:
            return (la, ha) if 0 <= la and ha < c else (0, c - 1)
        if self.op == "&" and c is not None and c >= 0:
            return 0, c
        if self.op == "<<" and c is not None and c >= 0:
            return la << c, ha << c
        hi = max(abs(la), abs(ha), abs(lb), abs(hb))
        width = max(hi, 1).bit_length()
        return (0 if min(la, lb) >= 0 else -(1 << width)), (1 << width) - 1


def _static_shape(shape, what):
    shape = tuple(shape) if isinstance(shape, (list, tuple)) else (shape,)
    if not shape or any(isinstance(d, bool) or not isinstance(d, int) or d <= 0 for d in shape):
        raise TypeError(f"{what} needs a shape of positive integers known while translating, "
                        f"got {shape!r}")
    return shape


def _results(value, what):
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    return [_expr(v) for v in items]


def _affine_map(exprs, rank):
    dims = ", ".join(f"d{i}" for i in range(rank))
    return f"({dims}) -> ({', '.join(e.affine() for e in exprs)})"


def _evaluate_all(exprs, shape):
    """The results of `exprs` at every index of `shape` (row-major), as
    numpy arrays."""
    import numpy as np
    grids = np.indices(shape, dtype=np.int64).reshape(len(shape), -1)
    env = {d: grids[d] for d in range(len(shape))}
    return [np.broadcast_to(np.asarray(e.evaluate(env), dtype=np.int64), grids[0].shape)
            for e in exprs]


class Layout:
    """TileLang's T.Layout(shape, forward_fn): the element at index (i, j,
    ...) of a buffer of `shape` is placed at forward_fn(i, j, ...) of a
    row-major array of the output shape (each result's range). On a global
    tensor: #tile.layout; on a shared buffer: the identity (nothing to pin)
    or a #tile.swizzle it equals."""

    def __init__(self, shape, forward_fn):
        self.shape = _static_shape(shape, "T.Layout")
        self.forward_fn = forward_fn
        self.vars = [IndexVar(i) for i in range(len(self.shape))]
        self.forward = _results(forward_fn(*self.vars), "T.Layout")
        out = []
        for k, e in enumerate(self.forward):
            lo, hi = e.bounds(self.shape)
            if lo < 0:
                raise TypeError(f"T.Layout result {k} can be negative; layouts place elements "
                                "at non-negative indices")
            out.append(hi + 1)
        self.output_shape = tuple(out)

    def __repr__(self):
        return f"T.Layout({list(self.shape)} -> {list(self.output_shape)})"

    def is_identity(self):
        return len(self.forward) == len(self.vars) and all(
            isinstance(e, IndexVar) and e.position == i for i, e in enumerate(self.forward))

    def tensor_attr(self):
        """The #tile.layout of a global tensor (NotAffine where it is none)."""
        return (f"#tile.layout<[{', '.join(map(str, self.shape))}] -> "
                f"[{', '.join(map(str, self.output_shape))}], "
                f"{_affine_map(self.forward, len(self.shape))}>")

    def offsets(self):
        """The row-major offset of every element in the output array."""
        import numpy as np
        offset = np.zeros(int(np.prod(self.shape)), dtype=np.int64)
        for size, values in zip(self.output_shape, _evaluate_all(self.forward, self.shape)):
            offset = offset * size + values
        return offset

    def as_swizzle(self, element_bits):
        """The SwizzleLayout (or None for the identity) that places the
        elements of a shared buffer as this layout does, else NotAffine."""
        if self.is_identity():
            return None
        import numpy as np
        if int(np.prod(self.output_shape)) == int(np.prod(self.shape)) and \
                int(np.prod(self.shape)) <= 1 << 20:
            offsets = self.offsets()
            linear = np.arange(offsets.size, dtype=np.int64)
            if np.array_equal(offsets, linear):
                return None
            item = element_bits // 8
            for bits in (3, 2, 1):
                s = SwizzleLayout(bits, 4, 3)
                byte = linear * item
                swizzled = byte ^ ((byte >> s.shift) & (((1 << s.bits) - 1) << s.base))
                if item and np.array_equal(offsets * item, swizzled):
                    return s
        raise NotAffine("it is neither the identity nor a 128/64/32-byte swizzle")


class Fragment:
    """TileLang's T.Fragment: which thread holds each element of a fragment
    buffer, and at which register. forward_fn(i, ...[, rep]) gives (thread,
    index); or forward_thread_fn and forward_index_fn give them apart. With
    replicate = r > 1 every element is held r times: the thread expression
    takes the copy number `rep` last, and must be `owner(i, ...) + rep *
    owners` (copies a whole set of owner threads apart), the form
    #tile.fragment places replicas in."""

    def __init__(self, shape, forward_fn=None, forward_thread_fn=None, replicate=1,
                 forward_index_fn=None):
        self.shape = _static_shape(shape, "T.Fragment")
        if isinstance(replicate, bool) or not isinstance(replicate, int) or replicate < 1:
            raise TypeError(f"T.Fragment replicate must be a positive integer, got {replicate!r}")
        self.replicate = replicate
        n = len(self.shape)
        vars_ = [IndexVar(i) for i in range(n)]
        rep = [IndexVar(n)] if replicate > 1 else []
        if forward_fn is not None:
            thread, index = forward_fn(*vars_, *rep)
        elif forward_thread_fn is not None:
            thread = forward_thread_fn(*vars_, *rep)
            index = forward_index_fn(*vars_) if forward_index_fn is not None else 0
        else:
            raise TypeError("T.Fragment needs forward_fn or forward_thread_fn")
        self.thread = _expr(thread)
        self.index = _results(index, "T.Fragment")
        ranges = list(self.shape) + [replicate]
        # The register: the index results numbered row-major over their ranges.
        reg, self.registers = IndexConst(0), 1
        for e in self.index:
            lo, hi = e.bounds(ranges)
            if lo < 0:
                raise TypeError("a T.Fragment index can be negative")
            reg = reg * (hi + 1) + e
            self.registers *= hi + 1
        self.register = reg
        owner = self.thread
        if replicate > 1:
            owner = _substitute(self.thread, n, IndexConst(0))
        lo, hi = owner.bounds(ranges)
        if lo < 0:
            raise TypeError("a T.Fragment thread can be negative")
        self.owners = hi + 1
        self.threads = self.owners * replicate
        if replicate > 1:
            self._check_replicas(n)

    def _check_replicas(self, n):
        import numpy as np
        ranges = list(self.shape) + [self.replicate]
        grids = np.indices(ranges, dtype=np.int64).reshape(len(ranges), -1)
        env = {d: grids[d] for d in range(len(ranges))}
        got = np.asarray(self.thread.evaluate(env))
        env0 = dict(env)
        env0[n] = np.zeros_like(grids[n])
        want = np.asarray(_substitute(self.thread, n, IndexConst(0)).evaluate(env0)) + \
            grids[n] * self.owners
        if not np.array_equal(np.broadcast_to(got, want.shape), want):
            raise NotAffine("its copies are not a whole set of owner threads apart (thread = "
                            "owner + rep * owners)")

    def __repr__(self):
        return f"T.Fragment({list(self.shape)}, threads={self.threads}, " \
               f"replicate={self.replicate})"

    def attr(self):
        n = len(self.shape)
        owner = _substitute(self.thread, n, IndexConst(0)) if self.replicate > 1 else self.thread
        text = (f"#tile.fragment<[{', '.join(map(str, self.shape))}], threads = {self.threads}, "
                f"{_affine_map([owner, self.register], n)}")
        if self.replicate > 1:
            text += f", replicate = {self.replicate}"
        return text + ">"


def _substitute(expr, position, value):
    if isinstance(expr, IndexVar):
        return value if expr.position == position else expr
    if isinstance(expr, IndexBinary):
        return IndexBinary(expr.op, _substitute(expr.lhs, position, value),
                           _substitute(expr.rhs, position, value))
    return expr


# The swizzles of TileLang's names: a 128-, 64- or 32-byte swizzle.
def make_full_bank_swizzled_layout(buffer):
    return SwizzleLayout(3, 4, 3)


def make_half_bank_swizzled_layout(buffer):
    return SwizzleLayout(2, 4, 3)


def make_quarter_bank_swizzled_layout(buffer):
    return SwizzleLayout(1, 4, 3)


def make_wgmma_swizzled_layout(buffer, continuity=None, k_major=True):
    """The swizzle wgmma reads the buffer with: the widest its rows fill."""
    return make_swizzled_layout(buffer)


def make_linear_layout(buffer):
    """Row-major: the layout a buffer has without a pin."""
    return None


def make_gemm_fragment_8x8():
    """The 8x8 tile of one warp's ldmatrix / mma accumulator: row i, column
    j at lane 4 * i + j // 2, register j % 2."""
    return Fragment((8, 8), forward_fn=lambda i, j: (i * 4 + j // 2, j % 2))


def make_gemm_fragment_8x8_transposed():
    """make_gemm_fragment_8x8 of the transposed tile."""
    return Fragment((8, 8), forward_fn=lambda i, j: (j * 4 + i // 2, i % 2))


class SwizzleMode(enum.Enum):
    """The shared-memory swizzles by width (TileLang's SwizzleMode)."""
    NONE = 0
    SWIZZLE_32B = 32
    SWIZZLE_64B = 64
    SWIZZLE_128B = 128

    def is_none(self):
        return self is SwizzleMode.NONE

    def is_swizzle_32b(self):
        return self is SwizzleMode.SWIZZLE_32B

    def is_swizzle_64b(self):
        return self is SwizzleMode.SWIZZLE_64B

    def is_swizzle_128b(self):
        return self is SwizzleMode.SWIZZLE_128B

    def swizzle_byte_size(self):
        return self.value or 1

    def layout(self):
        """The SwizzleLayout of this width (None for NONE)."""
        bits = {32: 1, 64: 2, 128: 3}.get(self.value)
        return None if bits is None else SwizzleLayout(bits, 4, 3)
