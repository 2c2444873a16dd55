"""Expressions on kernel values: names, subscripts, arithmetic, comparisons,
selects, and the dispatch of calls (T. functions and T.macro).

Part of the Translator (parser.py), which mixes these classes in."""

import ast
import builtins
import inspect
import operator
import sys

from .. import language as T
from ..errors import TileCompileError
from . import dtypes
from .frame import Frame, HelperLine, Scope
from .ir import Access, Buffer, LinExpr, TypedConstant, Value
from .scalars import INT_TYPES as _INT_TYPES, is_float as _is_float


class ExpressionsMixin:
    def call_kwargs(self, node):
        """The keyword arguments of the call `node`, a `**mapping` expanded
        where it is a dict with string keys known at compile time."""
        kwargs = {}
        for k in node.keywords:
            value = self.expr(k.value)
            if k.arg is not None:
                kwargs[k.arg] = value
            elif isinstance(value, dict) and all(isinstance(key, str) for key in value):
                kwargs.update(value)
            else:
                raise self.error("** in a call needs a dict with string keys known at "
                                 f"compile time, got {type(value).__name__}", k.value)
        return kwargs

    # ---------------------------------------------------------- expressions

    def expr(self, node):
        prev = self.node
        self.node = node
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            raise self.error(f"unsupported expression '{type(node).__name__}' in a kernel", node)
        try:
            result = method(node)
        except TileCompileError:
            raise
        except Exception as e:  # noqa: BLE001 - e.g. T.log(0) on Python numbers
            raise self.error(f"{type(e).__name__}: {e}", node) from e
        self.node = prev
        return result

    def expr_Constant(self, node):
        return node.value

    def expr_Name(self, node):
        value = self.lookup(node.id, node)
        if isinstance(value, Buffer) and value.is_var:
            return Access(value, [0], node)  # a T.alloc_var reads as its value
        return value

    def expr_Tuple(self, node):
        return tuple(self.expr(e) for e in node.elts)

    def expr_List(self, node):
        return [self.expr(e) for e in node.elts]

    def expr_Lambda(self, node):
        """A lambda in a kernel (a T.Layout or T.Fragment function): a Python
        function over the names the kernel sees that are Python values."""
        names = {}
        for scope in self.scopes:
            names.update({k: v for k, v in scope.vars.items()
                          if not isinstance(v, (Value, Access))})
        env = dict(self.frame.globals)
        env.update(self.frame.closure)
        env.update(names)
        code = compile(ast.Expression(body=node), self.frame.filename, "eval")
        return eval(code, env)  # noqa: S307 - the user's own lambda, as Python runs it

    def expr_ListComp(self, node):
        return self._comprehension(node)

    def expr_GeneratorExp(self, node):
        # Evaluated at once, into a list: what sum(), max(), tuple(), ...
        # take from a generator they consume once.
        return self._comprehension(node)

    def _comprehension(self, node):
        """`[elt for x in it if cond ...]` over Python iterables (the kernel's
        constants, ranges, lists): elt may be a kernel value; the iterables
        and conditions must be known while translating."""
        out = []
        self.push("comprehension")
        try:
            self._comprehension_level(node, node.generators, out)
        finally:
            self.pop()
        return out

    def _comprehension_level(self, node, generators, out):
        if not generators:
            out.append(self.expr(node.elt))
            return
        gen, rest = generators[0], generators[1:]
        if gen.is_async:
            raise self.error("async comprehensions are not supported in a kernel", gen)
        items = self.expr(gen.iter)
        if isinstance(items, (Value, Buffer, Access)):
            raise self.error("a comprehension in a kernel iterates over Python values (a "
                             "constant list or range); for kernel values use T.serial or "
                             "T.Parallel", gen.iter)
        try:
            items = list(items)
        except TypeError:
            raise self.error(f"cannot iterate over {items!r} in a comprehension", gen.iter) \
                from None
        for item in items:
            self.assign(gen.target, item, gen)
            keep = True
            for cond in gen.ifs:
                c = self.expr(cond)
                if isinstance(c, (Value, Access)):
                    raise self.error("a comprehension's condition must be known while "
                                     "translating; this one is a kernel value (use "
                                     "T.if_then_else)", cond)
                if not c:
                    keep = False
                    break
            if keep:
                self._comprehension_level(node, rest, out)

    def expr_Dict(self, node):
        return {self.expr(k): self.expr(v) for k, v in zip(node.keys, node.values)}

    def expr_Attribute(self, node):
        base = self.expr(node.value)
        if isinstance(base, Buffer):
            if node.attr == "dtype":
                return base.dtype
            if node.attr == "shape":
                return tuple(base.shape)
            raise self.error(f"buffer has no attribute '{node.attr}'", node)
        if isinstance(base, (Value, Access, TypedConstant)) and node.attr == "astype":
            # TVM's PrimExpr.astype(dtype): T.cast under another name.
            if isinstance(base, Access) and not base.is_element:
                raise self.error("astype converts one element; index every dimension of "
                                 f"'{base.buffer.name}' (for a region, copy it to a buffer "
                                 "of the new dtype with T.copy)", node)
            return lambda dtype, span=None: self._cast(base, dtype, "astype(dtype)", node)
        if isinstance(base, (Value, Access)):
            raise self.error(f"kernel values have no attribute '{node.attr}'", node)
        try:
            return getattr(base, node.attr)
        except AttributeError:
            raise self.error(f"{base!r} has no attribute '{node.attr}'", node) from None

    def expr_Subscript(self, node):
        base = self.expr(node.value)
        if isinstance(base, Access) and base.buffer.is_var:
            base = base.buffer  # x[0] of a T.alloc_var x
        sl = node.slice
        items_nodes = sl.elts if isinstance(sl, ast.Tuple) else [sl]
        if isinstance(base, Buffer):
            items = []
            for it in items_nodes:
                if isinstance(it, ast.Slice):
                    if it.step is not None:
                        raise self.error("strided slices are not supported", it)
                    lo = self.expr(it.lower) if it.lower is not None else 0
                    hi = self.expr(it.upper) if it.upper is not None else None
                    items.append(("slice", lo, hi))
                else:
                    x = self.expr(it)
                    if isinstance(x, tuple) and x[:1] == ("slice",):
                        items.append(x)  # a T.Ramp of consecutive elements
                        continue
                    # As in Python, A[idx] with idx = (i, j) is A[i, j].
                    items.extend(x if isinstance(x, tuple) and len(items_nodes) == 1 else [x])
            for i in items:
                if isinstance(i, tuple) and i[:1] == ("slice",):
                    for x in i[1:]:
                        if x is not None:  # A[i:] runs to the end
                            self._check_index(x, base, node)
                else:
                    self._check_index(i, base, node)
            return Access(base, items, node)
        if isinstance(base, (Value, Access)):
            raise self.error("only buffers can be indexed", node)
        key = self.expr(sl)
        if base is T.StridedTensor:
            try:
                return base.spec_of_key(key)
            except TypeError as e:
                raise self.error(str(e), node) from None
        try:
            return base[key]
        except Exception as e:  # noqa: BLE001
            raise self.error(f"indexing {base!r} failed: {e}", node) from None

    def _not_an_integer(self, x):
        """None if `x` is an integer (a Python int, or a kernel value of an
        integer type), else how an error names it."""
        if isinstance(x, (Value, Access, TypedConstant)):
            t = self.type_of(x)
            return None if t in ("index",) + _INT_TYPES else f"a {t} value"
        if isinstance(x, int) and not isinstance(x, bool):
            return None
        return f"the buffer '{x.name}'" if isinstance(x, Buffer) else repr(x)

    def _check_index(self, x, buf, node):
        """An index (or slice bound) of `buf` is an integer."""
        if isinstance(x, (list, tuple)):
            raise self.error(f"'{buf.name}' is indexed with a {type(x).__name__}; write "
                             f"{buf.name}[i, j], not {buf.name}[[i, j]]", node)
        got = self._not_an_integer(x)
        if got:
            raise self.error(f"buffer indices must be integers; '{buf.name}' is indexed with "
                             f"{got}", node)

    def expr_UnaryOp(self, node):
        v = self.expr(node.operand)
        if not isinstance(v, (Value, Access, TypedConstant)):
            ops = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_,
                   ast.Invert: operator.invert}
            return ops[type(node.op)](v)
        v = self.value(v, node)
        if isinstance(node.op, ast.UAdd):
            return v
        if isinstance(node.op, ast.Not):
            c = self.convert(v, "i1", node)
            t = self.const(True, "i1", node)
            ssa = self.b.fresh("not")
            self.b.emit(f"{ssa} = arith.xori {c.ssa}, {t.ssa} : i1", self.loc(node))
            return Value(ssa, "i1")
        if isinstance(node.op, ast.USub):
            if _is_float(v.type):
                ssa = self.b.fresh("neg")
                self.b.emit(f"{ssa} = arith.negf {v.ssa} : {v.type}", self.loc(node))
                return Value(ssa, v.type)
            return self.binop(ast.Sub(), 0, v, node)
        raise self.error("unsupported unary operator on kernel values", node)

    def expr_BinOp(self, node):
        return self.binop(node.op, self.expr(node.left), self.expr(node.right), node)

    _PY_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
                  ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv,
                  ast.Mod: operator.mod, ast.Pow: operator.pow, ast.LShift: operator.lshift,
                  ast.RShift: operator.rshift, ast.BitAnd: operator.and_,
                  ast.BitOr: operator.or_, ast.BitXor: operator.xor}

    def binop(self, op, a, b, node):
        kernel = (Value, Access, TypedConstant)
        if not isinstance(a, kernel) and not isinstance(b, kernel):
            if isinstance(a, Buffer) or isinstance(b, Buffer):
                raise self.error("buffers cannot be used in arithmetic; index their elements",
                                 node)
            try:
                return self._PY_BINOPS[type(op)](a, b)
            except KeyError:
                raise self.error("unsupported operator", node) from None
            except Exception as e:  # noqa: BLE001
                raise self.error(f"{e}", node) from None
        ta, tb = self.type_of(a), self.type_of(b)
        if ta is None and isinstance(a, float) and tb is not None and not _is_float(tb):
            ta = "f32"
        if tb is None and isinstance(b, float) and ta is not None and not _is_float(ta):
            tb = "f32"
        t = self.unify(ta, tb)
        if isinstance(op, ast.Div) and not _is_float(t):
            pass  # integer division, as TileLang does for integer operands
        if isinstance(op, ast.Pow):
            if isinstance(b, int) and b in (1, 2, 3, 4):
                va = self.convert(self.value(a, node, t), t, node)
                r = va
                for _ in range(b - 1):
                    r = self._arith("mul", r, va, t, node)
                return r
            t = t if _is_float(t) else "f32"
            va = self.convert(self.value(a, node, t), t, node)
            vb = self.convert(self.value(b, node, t), t, node)
            ssa = self.b.fresh("pow")
            self.b.emit(f"{ssa} = math.powf {va.ssa}, {vb.ssa} : {t}", self.loc(node))
            return Value(ssa, t)
        name = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div",
                ast.FloorDiv: "floordiv", ast.Mod: "rem", ast.BitAnd: "and",
                ast.BitOr: "or", ast.BitXor: "xor", ast.LShift: "shl",
                ast.RShift: "shr"}.get(type(op))
        if name is None:
            raise self.error("unsupported operator on kernel values", node)
        va = self.convert(self.value(a, node, t), t, node)
        vb = self.convert(self.value(b, node, t), t, node)
        return self._arith(name, va, vb, t, node)

    def _arith(self, name, va, vb, t, node):
        fl = _is_float(t)
        if fl:
            opname = {"add": "arith.addf", "sub": "arith.subf", "mul": "arith.mulf",
                      "div": "arith.divf", "floordiv": None, "rem": "arith.remf"}.get(name)
            if name == "floordiv":
                d = self._arith("div", va, vb, t, node)
                ssa = self.b.fresh("floor")
                self.b.emit(f"{ssa} = math.floor {d.ssa} : {t}", self.loc(node))
                return Value(ssa, t)
            if name == "rem":
                return self._float_floormod(va, vb, t, node)
            if opname is None:
                raise self.error(f"operator '{name}' needs integer operands", node)
        else:
            if name == "rem":
                return self._int_floormod(va, vb, t, node)
            opname = {"add": "arith.addi", "sub": "arith.subi", "mul": "arith.muli",
                      "div": "arith.divsi", "floordiv": "arith.floordivsi",
                      "truncmod": "arith.remsi", "and": "arith.andi", "or": "arith.ori",
                      "xor": "arith.xori", "shl": "arith.shli", "shr": "arith.shrsi"}[name]
        ssa = self.b.fresh(name)
        self.b.emit(f"{ssa} = {opname} {va.ssa}, {vb.ssa} : {t}", self.loc(node))
        lin = None
        if t == "index" or t in _INT_TYPES[1:]:
            la, lb = LinExpr.of(va), LinExpr.of(vb)
            if la is not None and lb is not None:
                if name == "add":
                    lin = la.add(lb)
                elif name == "sub":
                    lin = la.add(lb, -1)
                elif name == "mul" and (la.constant() is not None or lb.constant() is not None):
                    lin = lb.scale(la.constant()) if la.constant() is not None else la.scale(lb.constant())
        sym = None
        pyop = {"add": "+", "sub": "-", "mul": "*", "div": "//", "floordiv": "//"}.get(name)
        if (t == "index" or t in _INT_TYPES[1:]) and pyop and va.sym is not None and \
                vb.sym is not None:
            sym = f"({va.sym} {pyop} {vb.sym})"
        return Value(ssa, t, lin, sym)

    # `%` is TVM's floormod, as `//` is its floordiv: the result takes the
    # divisor's sign (Python's `%`); T.truncmod is C's remainder.
    def _int_floormod(self, va, vb, t, node):
        loc = self.loc(node)
        lin = LinExpr.of(vb)
        c = lin.constant() if lin is not None else None
        if c is not None and c > 0 and c & (c - 1) == 0:
            # A power of two: the low bits, whatever the sign of `va`.
            mask = self.const(c - 1, t, node)
            ssa = self.b.fresh("rem")
            self.b.emit(f"{ssa} = arith.andi {va.ssa}, {mask.ssa} : {t}", loc)
            return Value(ssa, t)
        r = self._arith("truncmod", va, vb, t, node)
        zero = self.const(0, t, node)
        fix = self.b.fresh("fix")
        if c is not None and c > 0:
            self.b.emit(f"{fix} = arith.cmpi slt, {r.ssa}, {zero.ssa} : {t}", loc)
        else:
            # A nonzero remainder whose sign differs from the divisor's.
            x, neg, nz = self.b.fresh("x"), self.b.fresh("neg"), self.b.fresh("nz")
            self.b.emit(f"{x} = arith.xori {r.ssa}, {vb.ssa} : {t}", loc)
            self.b.emit(f"{neg} = arith.cmpi slt, {x}, {zero.ssa} : {t}", loc)
            self.b.emit(f"{nz} = arith.cmpi ne, {r.ssa}, {zero.ssa} : {t}", loc)
            self.b.emit(f"{fix} = arith.andi {neg}, {nz} : i1", loc)
        adj, ssa = self.b.fresh("adj"), self.b.fresh("rem")
        self.b.emit(f"{adj} = arith.addi {r.ssa}, {vb.ssa} : {t}", loc)
        self.b.emit(f"{ssa} = arith.select {fix}, {adj}, {r.ssa} : {t}", loc)
        return Value(ssa, t)

    def _mod_nonnegative(self, a, b, node):
        """`a % b` for the compiler's own index arithmetic on values known
        non-negative (block and thread indices, flat offsets), where C's
        remainder equals floormod and is cheaper."""
        kernel = (Value, Access, TypedConstant)
        if not isinstance(a, kernel) and not isinstance(b, kernel):
            return a % b
        t = self.unify(self.type_of(a), self.type_of(b)) or "index"
        va = self.convert(self.value(a, node, t), t, node)
        vb = self.convert(self.value(b, node, t), t, node)
        return self._arith("truncmod", va, vb, t, node)

    def _float_floormod(self, va, vb, t, node):
        """a - floor(a / b) * b, TVM's floormod on floats."""
        q = self._arith("floordiv", va, vb, t, node)
        return self._arith("sub", va, self._arith("mul", q, vb, t, node), t, node)

    _CMP = {ast.Lt: ("slt", "olt", operator.lt), ast.LtE: ("sle", "ole", operator.le),
            ast.Gt: ("sgt", "ogt", operator.gt), ast.GtE: ("sge", "oge", operator.ge),
            ast.Eq: ("eq", "oeq", operator.eq), ast.NotEq: ("ne", "une", operator.ne)}

    def expr_Compare(self, node):
        left = self.expr(node.left)
        result = None
        for op, right_node in zip(node.ops, node.comparators):
            right = self.expr(right_node)
            if type(op) not in self._CMP:
                if isinstance(left, (Value, Access)) or isinstance(right, (Value, Access)):
                    raise self.error("unsupported comparison on kernel values", node)
                py = {ast.Is: operator.is_, ast.IsNot: operator.is_not,
                      ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}[type(op)]
                r = py(left, right)
            else:
                r = self.compare(op, left, right, node)
            result = r if result is None else self.logical("and", result, r, node)
            left = right
        return result

    def compare(self, op, a, b, node):
        ipred, fpred, py = self._CMP[type(op)]
        kernel = (Value, Access, TypedConstant)
        if not isinstance(a, kernel) and not isinstance(b, kernel):
            return py(a, b)
        t = self.unify(self.type_of(a), self.type_of(b))
        if (isinstance(a, float) or isinstance(b, float)) and not _is_float(t):
            t = "f32"
        va = self.convert(self.value(a, node, t), t, node)
        vb = self.convert(self.value(b, node, t), t, node)
        ssa = self.b.fresh("cmp")
        if _is_float(t):
            self.b.emit(f"{ssa} = arith.cmpf {fpred}, {va.ssa}, {vb.ssa} : {t}", self.loc(node))
        else:
            self.b.emit(f"{ssa} = arith.cmpi {ipred}, {va.ssa}, {vb.ssa} : {t}", self.loc(node))
        return Value(ssa, "i1")

    def logical(self, kind, a, b, node):
        kernel = (Value, Access, TypedConstant)
        if not isinstance(a, kernel) and not isinstance(b, kernel):
            return (a and b) if kind == "and" else (a or b)
        va = self.convert(self.value(a, node, "i1"), "i1", node)
        vb = self.convert(self.value(b, node, "i1"), "i1", node)
        ssa = self.b.fresh(kind)
        self.b.emit(f"{ssa} = arith.{'andi' if kind == 'and' else 'ori'} {va.ssa}, {vb.ssa} : i1",
                    self.loc(node))
        return Value(ssa, "i1")

    def expr_BoolOp(self, node):
        kind = "and" if isinstance(node.op, ast.And) else "or"
        result = self.expr(node.values[0])
        for v in node.values[1:]:
            if not isinstance(result, (Value, Access, TypedConstant)):
                # Python short-circuit on compile-time values.
                if (kind == "and" and not result) or (kind == "or" and result):
                    return result
                result = self.expr(v)
                continue
            result = self.logical(kind, result, self.expr(v), node)
        return result

    def expr_IfExp(self, node):
        cond = self.expr(node.test)
        if not isinstance(cond, (Value, Access, TypedConstant)):
            return self.expr(node.body) if cond else self.expr(node.orelse)
        return self.select(cond, self.expr(node.body), self.expr(node.orelse), node)

    def select(self, cond, a, b, node):
        c = self.convert(self.value(cond, node), "i1", node)
        t = self.unify(self.type_of(a), self.type_of(b))
        if t is None:
            t = "f32" if isinstance(a, float) or isinstance(b, float) else "index"
        va = self.convert(self.value(a, node, t), t, node)
        vb = self.convert(self.value(b, node, t), t, node)
        ssa = self.b.fresh("sel")
        self.b.emit(f"{ssa} = arith.select {c.ssa}, {va.ssa}, {vb.ssa} : {t}", self.loc(node))
        return Value(ssa, t)

    def expr_Call(self, node):
        fn = self.expr(node.func)
        if isinstance(fn, T.Macro):
            return self.call_macro(fn, node)
        if isinstance(fn, T.Intrinsic):
            handler = getattr(self, "call_" + fn.name, None)
            if handler is None:
                raise self.error(f"T.{fn.name} cannot be used here", node)
            return handler(node)
        args = [self.expr(a) for a in node.args]
        kwargs = self.call_kwargs(node)
        kernel = (Value, Access, TypedConstant, Buffer)
        if fn in (builtins.max, builtins.min) and any(isinstance(a, kernel) for a in args):
            return self.minmax("max" if fn is builtins.max else "min", args, node)
        if fn is builtins.sum and args and isinstance(args[0], (list, tuple)) and \
                any(isinstance(a, kernel) for a in list(args[0]) + args[1:]):
            # sum() of kernel values: the additions in the kernel, in order.
            total = args[1] if len(args) > 1 else kwargs.get("start", 0)
            for item in args[0]:
                total = self.binop(ast.Add(), total, item, node)
            return total
        if fn is builtins.abs and any(isinstance(a, kernel) for a in args):
            return self.unary_math("abs", args[0], node)
        if fn is T.StridedTensor:
            try:
                return fn.spec(*args, **kwargs)
            except TypeError as e:
                raise self.error(str(e), node) from None
        if isinstance(fn, dtypes.DType):
            if len(args) != 1:
                raise self.error(f"{fn!r}(x) takes one value", node)
            if isinstance(args[0], kernel):
                return self.convert(self.value(args[0], node, fn.mlir), fn.mlir, node)
            return TypedConstant(args[0], fn)
        scalars = (Value, Access, TypedConstant)
        if any(isinstance(a, scalars) for a in list(args) + list(kwargs.values())):
            raise self.error(f"cannot call Python function {getattr(fn, '__name__', fn)!r} with "
                             "kernel values; only T.* operations run in the kernel", node)
        # A helper given buffers may call T.* on them (TileLang's programs
        # wrap T.reduce_* so): those calls are translated here.
        helper = any(isinstance(a, Buffer) for a in list(args) + list(kwargs.values()))
        if helper:
            T._HELPER_CALLERS.append(self)
        try:
            return fn(*args, **kwargs)
        except TileCompileError:
            raise
        except Exception as e:  # noqa: BLE001
            raise self.error(f"calling {getattr(fn, '__name__', fn)!r} failed: {e}", node) from None
        finally:
            if helper:
                T._HELPER_CALLERS.pop()

    def call_from_helper(self, fn, args, kwargs):
        """T.<fn>(*args, **kwargs) called by a Python helper that the kernel
        called with buffers: translated as if the kernel made the call, at
        the helper's line."""
        handler = getattr(self, "call_" + fn.name, None)
        if handler is None:
            if fn.python_impl is not None:
                return fn.python_impl(*args, **kwargs)
            raise RuntimeError(f"T.{fn.name} cannot be used in a helper function of a kernel")
        caller = sys._getframe(2)
        scope = Scope("macro")
        call = ast.Call(func=ast.Name("T", ast.Load()), args=[], keywords=[])
        for i, a in enumerate(args):
            scope.vars[f"arg{i}"] = a
            call.args.append(ast.Name(f"arg{i}", ast.Load()))
        for k, v in kwargs.items():
            scope.vars[f"kw_{k}"] = v
            call.keywords.append(ast.keyword(k, ast.Name(f"kw_{k}", ast.Load())))
        for n in ast.walk(call):
            n.lineno, n.col_offset = 1, 0
        outer_frame, outer_node = self.frame, self.node
        self.frame = HelperLine(caller.f_code.co_filename, caller.f_lineno)
        self.scopes.append(scope)
        T._HELPER_CALLERS.pop()  # T.* calls of the handler's own Python are Python's
        try:
            return handler(call)
        finally:
            T._HELPER_CALLERS.append(self)
            self.scopes.pop()
            self.frame, self.node = outer_frame, outer_node

    def call_macro(self, macro, node):
        """Inlines a @T.macro: its body is translated with its parameters
        bound to the call's arguments (buffers, kernel values or Python
        values)."""
        args = [self.expr(a) for a in node.args]
        kwargs = self.call_kwargs(node)
        try:
            bound = inspect.signature(macro.fn).bind(*args, **kwargs)
        except TypeError as e:
            raise self.error(f"calling macro '{macro.fn.__name__}': {e}", node) from None
        bound.apply_defaults()
        if self.macro_depth > 32:
            raise self.error("macros nest deeper than 32 calls (recursion?)", node)
        outer_frame = self.frame
        self.frame = Frame(macro.fn)
        self.macro_depth += 1
        scope = Scope("macro")
        scope.result = None
        scope.vars.update(bound.arguments)
        self.scopes.append(scope)
        try:
            for s in self.frame.func_def.body:
                if scope.result is not None:
                    break
                self.stmt(s)
        finally:
            self.scopes.pop()
            self.macro_depth -= 1
            self.frame = outer_frame
        return scope.result

