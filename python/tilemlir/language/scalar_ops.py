"""The T. calls on scalars: ceildiv, min/max, the unary math functions, casts,
and the helpful errors for loop and kernel constructs used as calls.

Part of the Translator (parser.py), which mixes these classes in."""

import ast
import builtins
import numbers

from .. import language as T
from . import dtypes
from .ir import Access, TypedConstant, Value
from .scalars import is_float as _is_float


class ScalarOpsMixin:
    def call_ceildiv(self, node):
        a = self._args(node, ["lhs", "rhs"])
        return self._ceildiv(a["lhs"], a["rhs"], node)

    def _ceildiv(self, x, y, node):
        kernel = (Value, Access, TypedConstant)
        if not isinstance(x, kernel) and not isinstance(y, kernel):
            try:
                return -(-x // y)
            except Exception as e:  # noqa: BLE001 - e.g. T.ceildiv(M, 0)
                raise self.error(f"T.ceildiv({x!r}, {y!r}): {e}", node) from None
        num = self.binop(ast.Add(), x, self.binop(ast.Sub(), y, 1, node), node)
        return self.binop(ast.FloorDiv(), num, y, node)

    def call_align_up(self, node):
        """TVM's align_up(x, y): ceildiv(x, y) * y."""
        a = self._args(node, ["x", "y"])
        return self.binop(ast.Mult(), self._ceildiv(a["x"], a["y"], node), a["y"], node)

    # TVM's integer divisions: floordiv / floormod are `//` / `%` (the
    # quotient rounds down, the remainder takes the divisor's sign);
    # truncdiv / truncmod are C's `/` and `%` (toward zero).
    def _division(self, node, op, python):
        a = self._args(node, ["a", "b"])
        x, y = a["a"], a["b"]
        kernel = (Value, Access, TypedConstant)
        if not isinstance(x, kernel) and not isinstance(y, kernel):
            try:
                return python(x, y)
            except Exception as e:  # noqa: BLE001 - e.g. a division by zero
                raise self.error(f"{e}", node) from None
        if op in ("floordiv", "floormod"):
            return self.binop(ast.FloorDiv() if op == "floordiv" else ast.Mod(), x, y, node)
        t = self.unify(self.type_of(x), self.type_of(y))
        if _is_float(t):
            raise self.error(f"T.{op} needs integer operands, got {t}", node)
        va = self.convert(self.value(x, node, t), t, node)
        vb = self.convert(self.value(y, node, t), t, node)
        return self._arith("div" if op == "truncdiv" else "truncmod", va, vb, t, node)

    def call_floordiv(self, node):
        return self._division(node, "floordiv", T.floordiv.python_impl)

    def call_floormod(self, node):
        return self._division(node, "floormod", T.floormod.python_impl)

    def call_truncdiv(self, node):
        return self._division(node, "truncdiv", T.truncdiv.python_impl)

    def call_truncmod(self, node):
        return self._division(node, "truncmod", T.truncmod.python_impl)

    def minmax(self, kind, args, node):
        if len(args) < 2:
            raise self.error(f"T.{kind} takes at least two values", node)
        kernel = (Value, Access, TypedConstant)
        if not any(isinstance(x, kernel) for x in args):
            return (builtins.max if kind == "max" else builtins.min)(*args)
        result = args[0]
        for other in args[1:]:
            t = self.unify(self.type_of(result), self.type_of(other))
            if t is None:
                t = "index"
            if (isinstance(result, float) or isinstance(other, float)) and not _is_float(t):
                t = "f32"
            va = self.convert(self.value(result, node, t), t, node)
            vb = self.convert(self.value(other, node, t), t, node)
            op = {("max", True): "arith.maximumf", ("min", True): "arith.minimumf",
                  ("max", False): "arith.maxsi", ("min", False): "arith.minsi"}[(kind, _is_float(t))]
            ssa = self.b.fresh(kind)
            self.b.emit(f"{ssa} = {op} {va.ssa}, {vb.ssa} : {t}", self.loc(node))
            result = Value(ssa, t)
        return result

    def call_max(self, node):
        return self.minmax("max", [self.expr(a) for a in node.args], node)

    def call_min(self, node):
        return self.minmax("min", [self.expr(a) for a in node.args], node)

    _MATH = {"exp": "math.exp", "exp2": "math.exp2", "log": "math.log", "log2": "math.log2",
             "sqrt": "math.sqrt", "rsqrt": "math.rsqrt", "tanh": "math.tanh", "sin": "math.sin",
             "cos": "math.cos", "floor": "math.floor", "ceil": "math.ceil", "erf": "math.erf"}

    def unary_math(self, name, x, node):
        kernel = (Value, Access, TypedConstant)
        fn = getattr(T, name)
        if not isinstance(x, kernel):
            return fn.python_impl(x)
        v = self.value(x, node)
        if name == "abs":
            ssa = self.b.fresh("abs")
            op = "math.absf" if _is_float(v.type) else "math.absi"
            self.b.emit(f"{ssa} = {op} {v.ssa} : {v.type}", self.loc(node))
            return Value(ssa, v.type)
        if not _is_float(v.type):
            v = self.convert(v, "f32", node)
        if name == "sigmoid":
            neg = self.expr_neg(v, node)
            e = self.unary_math("exp", neg, node)
            one = self.const(1.0, v.type, node)
            return self._arith("div", one, self._arith("add", one, e, v.type, node), v.type, node)
        ssa = self.b.fresh(name)
        self.b.emit(f"{ssa} = {self._MATH[name]} {v.ssa} : {v.type}", self.loc(node))
        return Value(ssa, v.type)

    def expr_neg(self, v, node):
        ssa = self.b.fresh("neg")
        self.b.emit(f"{ssa} = arith.negf {v.ssa} : {v.type}", self.loc(node))
        return Value(ssa, v.type)

    def _unary_handler(name):  # noqa: N805
        def handler(self, node):
            if len(node.args) != 1 or node.keywords:
                raise self.error(f"T.{name} takes one value", node)
            return self.unary_math(name, self.expr(node.args[0]), node)
        return handler

    for _n in ("exp", "exp2", "log", "log2", "sqrt", "rsqrt", "tanh", "sin", "cos", "floor",
               "ceil", "erf", "abs", "sigmoid"):
        locals()["call_" + _n] = _unary_handler(_n)
    del _n

    def call_pow(self, node):
        a = self._args(node, ["x", "y"])
        return self.binop(ast.Pow(), a["x"], a["y"], node)

    def call_infinity(self, node):
        a = self._args(node, ["dtype"])
        dt = self.dtype(a["dtype"], node)
        return TypedConstant(float("inf"), dt)

    def call_if_then_else(self, node):
        a = self._args(node, ["cond", "then_expr", "else_expr"])
        if not isinstance(a["cond"], (Value, Access, TypedConstant)):
            return a["then_expr"] if a["cond"] else a["else_expr"]
        return self.select(a["cond"], a["then_expr"], a["else_expr"], node)

    def call_Select(self, node):
        """TIR's T.Select(condition, true_value, false_value): both values
        are evaluated (as they are here for T.if_then_else too)."""
        a = self._args(node, ["condition", "true_value", "false_value"], {"span": None})
        if not isinstance(a["condition"], (Value, Access, TypedConstant)):
            return a["true_value"] if a["condition"] else a["false_value"]
        return self.select(a["condition"], a["true_value"], a["false_value"], node)

    def call_clamp(self, node):
        """T.clamp(x, lo, hi): T.min(T.max(x, lo), hi), as TileLang's."""
        a = self._args(node, ["dst", "min_val", "max_val"])
        return self.minmax("min", [self.minmax("max", [a["dst"], a["min_val"]], node),
                                   a["max_val"]], node)

    def call_cast(self, node):
        a = self._args(node, ["value", "dtype"])
        return self._cast(a["value"], a["dtype"], "T.cast(value, dtype)", node)

    def call_Cast(self, node):
        a = self._args(node, ["dtype", "value"])
        return self._cast(a["value"], a["dtype"], "T.Cast(dtype, value)", node)

    def _cast(self, x, dtype, form, node):
        """T.cast(value, dtype) and TIR's T.Cast(dtype, value): `x` converted
        to `dtype` (a Python number becomes a constant of that type)."""
        swapped = isinstance(x, dtypes.DType) or isinstance(dtype, (Value, Access, TypedConstant))
        if swapped:
            raise self.error(f"{form}: the arguments are in the wrong order; T.cast takes "
                             "(value, dtype) and T.Cast takes (dtype, value)", node)
        dt = self.dtype(dtype, node)
        if not isinstance(x, (Value, Access, TypedConstant)):
            if not isinstance(x, numbers.Number):
                raise self.error(f"{form}: cannot convert {x!r} to {dt.name}", node)
            return TypedConstant(x, dt)
        return self.convert(self.value(x, node, dt.mlir), dt.mlir, node)

    def call_Kernel(self, node):
        raise self.error("T.Kernel is used as `with T.Kernel(...) as (bx, by):`", node)

    def call_Parallel(self, node):
        raise self.error("T.Parallel is used as `for i, j in T.Parallel(M, N):`", node)

    call_Pipelined = call_serial = call_unroll = call_vectorized = call_Parallel

    def call_Persistent(self, node):
        raise self.error("T.Persistent is used as `for bx, by in T.Persistent(domain, "
                         "wave_size, block_id):`", node)

    def call_assume(self, node):
        """T.assume(cond): a fact the compiler may rely on (LLVM's assume);
        the program is wrong if it does not hold, as in TileLang. A
        compile-time condition is checked while translating."""
        a = self._args(node, ["cond"])
        cond = a["cond"]
        if not isinstance(cond, (Value, Access, TypedConstant)):
            if not cond:
                raise self.error(f"T.assume({cond!r}) does not hold", node)
            return None
        c = self.convert(self.value(cond, node), "i1", node)
        self.b.emit(f"llvm.intr.assume {c.ssa} : i1", self.loc(node))
        return None
