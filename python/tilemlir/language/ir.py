"""Values and the text builder the front end emits `tile` IR with."""

from . import dtypes


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


class Value:
    """An SSA scalar of the kernel (type: an MLIR scalar type string). Index
    values computed from tensor sizes and constants also carry `sym`, the
    same value as a Python expression over the dynamic dimensions' names, so
    that a launcher can compute grid sizes without the compiler."""

    __slots__ = ("ssa", "type", "lin", "sym")

    def __init__(self, ssa, type, lin=None, sym=None):
        self.ssa = ssa
        self.type = type
        self.lin = lin if lin is not None else (LinExpr({ssa: 1}) if type == "index" else None)
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

    def __init__(self, ssa, shape, dtype, scope, name):
        self.ssa = ssa
        self.shape = list(shape)  # ints, or Values for dynamic dims
        self.dtype = dtypes.as_dtype(dtype)
        self.scope = scope
        self.name = name

    @property
    def ndim(self):
        return len(self.shape)

    def static_shape(self):
        return [d if isinstance(d, int) else None for d in self.shape]

    def memref_type(self):
        dims = "x".join(str(d) if isinstance(d, int) else "?" for d in self.shape)
        space = "" if self.scope == "global" else f", #tile.scope<{self.scope}>"
        body = f"{dims}x{self.dtype.mlir}" if dims else self.dtype.mlir
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
