"""Translation of a @T.prim_func's Python AST into `tile` IR text.

Python-level values (shapes, tile sizes, flags such as `is_causal`, dtypes)
are evaluated while translating, so `if is_causal:` picks a branch and
`block_M * 2` is a number; expressions on kernel values (block and loop
indices, buffer elements, dynamic dimensions) become arith / math / memref
ops. Every op carries the user's file, line and column.
"""

import ast
import builtins
import inspect
import numbers
import operator

from .. import language as T
from .. import layout as layout_mod
from ..errors import TileCompileError
from . import dtypes
from .ir import Buffer, IRBuilder, LinExpr, TypedConstant, Value, float_literal, int_literal

_FLOAT_RANK = {"f16": 1, "bf16": 1, "f32": 2, "f64": 3}
_INT_TYPES = ("i1", "i8", "i16", "i32", "i64")


def _is_float(t):
    return t in _FLOAT_RANK or t.startswith("f8")


def _int_width(t):
    return 64 if t == "index" else int(t[1:])


class Access:
    """`buf[...]`: an element (all indices scalar) or a region (slices)."""

    def __init__(self, buffer, items, node):
        self.buffer = buffer
        self.items = items  # int | Value | ("slice", start, stop)
        self.node = node

    @property
    def is_element(self):
        return all(not isinstance(i, tuple) for i in self.items)


class Scope:
    def __init__(self, kind):
        self.kind = kind  # "func", "kernel", "loop", "if"
        self.vars = {}


class Frame:
    """The Python function being read: its AST, where its source is, and the
    names it closes over (a prim_func, or a T.macro it calls)."""

    def __init__(self, fn):
        self.fn = fn
        self.filename = inspect.getsourcefile(fn) or "<unknown>"
        try:
            lines, first = inspect.getsourcelines(fn)
        except OSError as e:
            raise TileCompileError(f"error: cannot read the source of '{fn.__name__}': {e}")
        self.lines = lines
        self.first = first
        # Parsed as written (not dedented: a comment at column 0 or a string
        # spanning lines would defeat textwrap.dedent): an indented function
        # is parsed as the body of an `if 1:`, so columns are the file's.
        self.col_shift = 0
        indented = bool(lines) and lines[0][:1] in (" ", "\t")
        self.line_shift = first - 2 if indented else first - 1
        try:
            tree = ast.parse(("if 1:\n" if indented else "") + "".join(lines))
        except SyntaxError as e:
            raise TileCompileError(f"error: cannot parse the source of '{fn.__name__}': {e.msg}",
                                   self.filename, (e.lineno or 1) + self.line_shift,
                                   e.offset) from None
        self.func_def = tree.body[0].body[0] if indented else tree.body[0]
        self.globals = fn.__globals__
        self.closure = {}
        if fn.__closure__:
            for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
                try:
                    self.closure[name] = cell.cell_contents
                except ValueError:
                    pass


class Translator:
    def __init__(self, prim_func):
        self.prim = prim_func
        self.fn = prim_func.fn
        self.frame = Frame(self.fn)
        self.func_def = self.frame.func_def
        self.b = IRBuilder()
        self.scopes = [Scope("func")]
        self.dyn_values = {}
        self.kernel = None  # (block index Values, grid extents) of the open kernel
        self.node = self.func_def
        self.current_stmt = None
        self.macro_depth = 0
        self.written = set()  # names of the tensor parameters the kernel writes

    # ------------------------------------------------------------------ errors

    def _position(self, node):
        f = self.frame
        line = getattr(node, "lineno", f.func_def.lineno) + f.line_shift
        col = getattr(node, "col_offset", 0) + f.col_shift + 1
        # ast columns count UTF-8 bytes; report characters.
        if 0 <= line - f.first < len(f.lines) and not f.lines[line - f.first].isascii():
            raw = f.lines[line - f.first].encode()[:col - 1]
            col = len(raw.decode(errors="replace")) + 1
        return f.filename, line, col

    def loc(self, node=None):
        filename, line, col = self._position(node or self.node)
        fname = filename.replace("\\", "\\\\").replace('"', '\\"')
        return f'loc("{fname}":{line}:{col})'

    def error(self, message, node=None):
        filename, line, col = self._position(node or self.node)
        return TileCompileError("error: " + message, filename, line, col)

    def dtype(self, value, node):
        """The DType of a dtype string or object; an unknown one is reported
        at `node`."""
        try:
            return dtypes.as_dtype(value)
        except TypeError as e:
            raise self.error(str(e), node) from None

    # ------------------------------------------------------------ entry point

    def translate(self):
        params = []
        sig = inspect.signature(self.fn)
        prologue = []
        for name, p in sig.parameters.items():
            ann = p.annotation
            if ann is inspect.Parameter.empty:
                raise self.error(f"kernel parameter '{name}' needs an annotation such as "
                                 f"T.Tensor((M, N), 'float16') or T.int32")
            if isinstance(ann, str):
                try:
                    ann = eval(ann, self.frame.globals, dict(self.frame.closure))
                except TileCompileError:
                    raise
                except Exception as e:  # noqa: BLE001
                    raise self.error(f"cannot evaluate the annotation of kernel parameter "
                                     f"'{name}': {e}") from None
            if isinstance(ann, T.TensorSpec):
                buf = Buffer(f"%{name}", [d if isinstance(d, int) else None for d in ann.shape],
                             ann.dtype, "global", name)
                params.append(("tensor", name, ann, buf))
            elif isinstance(ann, (dtypes.DType, str)):
                dt = self.dtype(ann, self.func_def)
                params.append(("scalar", name, dt, Value(f"%{name}", dt.mlir if dt.mlir != "i64" else "i64")))
            else:
                raise self.error(f"unsupported annotation {ann!r} of kernel parameter '{name}'")
        self.params = params
        args = []
        arg_nodes = {a.arg: a for a in self.func_def.args.args + self.func_def.args.kwonlyargs}
        for kind, name, spec, obj in params:
            aloc = self.loc(arg_nodes.get(name, self.func_def))
            if kind == "tensor":
                args.append(f"%{name}: {self._param_type(spec)} {aloc}")
                self.scopes[0].vars[name] = obj
            else:
                args.append(f"%{name}: {obj.type} {aloc}")
                self.scopes[0].vars[name] = obj
        # Dynamic dimensions: memref.dim of the first tensor that has them.
        for kind, name, spec, buf in params:
            if kind != "tensor":
                continue
            for d, dim in enumerate(spec.shape):
                if isinstance(dim, T.DynamicDim):
                    if id(dim) not in self.dyn_values:
                        c = self.const_index(d, self.func_def)
                        v = self.b.fresh(dim.name)
                        self.b.emit(f"{v} = memref.dim {buf.ssa}, {c.ssa} : {self._param_type(spec)}",
                                    self.loc(self.func_def))
                        self.dyn_values[id(dim)] = Value(v, "index", sym=dim.name)
                    buf.shape[d] = self.dyn_values[id(dim)]
        for stmt in self.func_def.body:
            self.stmt(stmt)
        body = "\n".join(self.b.lines)
        loc = self.loc(self.func_def)
        return (f"module {{\n  func.func @{self.fn.__name__}({', '.join(args)}) {{\n{body}\n"
                f"    return {loc}\n  }} {loc}\n}} {loc}\n")

    def _param_type(self, spec):
        dims = "x".join("?" if isinstance(d, T.DynamicDim) else str(d) for d in spec.shape)
        return f"memref<{dims}x{spec.dtype.mlir}>" if dims else f"memref<{spec.dtype.mlir}>"

    # --------------------------------------------------------------- scoping

    def lookup(self, name, node):
        for scope in reversed(self.scopes):
            if name in scope.vars:
                return scope.vars[name]
            if scope.kind == "macro":
                break  # a macro sees its parameters and what it closes over
        if name in self.frame.closure:
            return self.resolve_python(self.frame.closure[name])
        if name in self.frame.globals:
            return self.resolve_python(self.frame.globals[name])
        if hasattr(builtins, name):
            return getattr(builtins, name)
        raise self.error(f"name '{name}' is not defined", node)

    def resolve_python(self, value):
        if isinstance(value, T.DynamicDim) and id(value) in self.dyn_values:
            return self.dyn_values[id(value)]
        return value

    def bind(self, name, value, node):
        if isinstance(value, (Value, Buffer)):
            for scope in reversed(self.scopes[:-1]):
                if scope.kind == "macro":
                    break
                if name in scope.vars and isinstance(scope.vars[name], Value) and \
                        self.scopes[-1].kind in ("loop", "if"):
                    raise self.error(
                        f"cannot reassign '{name}' inside a loop or branch: kernel scalars are "
                        f"immutable; keep the value in a buffer instead "
                        f"(x = T.alloc_local((1,), dtype); x[0] = ...)", node)
        self.scopes[-1].vars[name] = value

    def push(self, kind):
        self.scopes.append(Scope(kind))

    def pop(self):
        self.scopes.pop()

    # -------------------------------------------------------------- constants

    def const_index(self, v, node=None):
        ssa = self.b.fresh("c")
        self.b.emit(f"{ssa} = arith.constant {self._literal(v, 'index', node)} : index",
                    self.loc(node))
        return Value(ssa, "index", LinExpr({}, int(v)), sym=str(int(v)))

    def const(self, v, type, node=None):
        if type == "index":
            return self.const_index(v, node)
        ssa = self.b.fresh("cst")
        text = f"arith.constant {self._literal(v, type, node)}"
        if type != "i1":
            text += f" : {type}"
        self.b.emit(f"{ssa} = {text}", self.loc(node))
        return Value(ssa, type)

    def _size(self, x, what, node, lo=1, hi=1 << 63):
        """`x` as a compile-time integer in [lo, hi) (a size, count or
        extent); anything else (a bool, a float, a kernel value, a number
        out of range) is reported at `node`, naming `what`."""
        if isinstance(x, bool) or not isinstance(x, int):
            got = "a value known only when the kernel runs" \
                if isinstance(x, (Value, Access, TypedConstant)) else repr(x)
            raise self.error(f"{what} must be a compile-time integer, got {got}", node)
        if x < lo:
            bound = {1: "positive", 0: "non-negative"}.get(lo, f"at least {lo}")
            raise self.error(f"{what} must be {bound}, got {x}", node)
        if x >= hi:
            raise self.error(f"{what} is too large: {x} (at most {hi - 1})", node)
        return x

    def _literal(self, v, type, node):
        """The MLIR text of constant `v` of `type`; what the type cannot hold
        is reported at `node`."""
        try:
            return float_literal(v, type) if _is_float(type) else int_literal(v, type)
        except (ValueError, OverflowError) as e:
            raise self.error(str(e), node) from None

    # ------------------------------------------------------------ conversion

    def value(self, x, node, type_hint=None):
        """Turns x into an SSA Value (loading elements, materializing numbers)."""
        if isinstance(x, Value):
            return x
        if isinstance(x, Access):
            return self.load(x, node)
        if isinstance(x, TypedConstant):
            return self.const(x.value, x.dtype.mlir, node)
        if isinstance(x, bool):
            return self.const(x, "i1", node)
        if isinstance(x, int):
            return self.const(x, type_hint or "index", node)
        if isinstance(x, float):
            hint = type_hint if type_hint and _is_float(type_hint) else "f32"
            return self.const(x, hint, node)
        if isinstance(x, Buffer):
            raise self.error(f"buffer '{x.name}' used as a scalar; index it (e.g. {x.name}[i])", node)
        raise self.error(f"cannot use {x!r} as a kernel value", node)

    def convert(self, v, to, node):
        frm = v.type
        if frm == to:
            return v
        loc = self.loc(node)
        ssa = self.b.fresh("cv")
        if frm == "index" or to == "index":
            if _is_float(to):
                v = self.convert(v, "i64", node)
                return self.convert(v, to, node)
            if _is_float(frm):
                v = self.convert(v, "i64", node)
                return self.convert(v, to, node)
            if frm == "i1":
                v = self.convert(v, "i64", node)
                return self.convert(v, to, node)
            self.b.emit(f"{ssa} = arith.index_cast {v.ssa} : {frm} to {to}", loc)
            return Value(ssa, to)
        if _is_float(frm) and _is_float(to):
            fw, tw = _float_bits(frm), _float_bits(to)
            if fw == tw:
                return self.convert(self.convert(v, "f32", node), to, node)
            op = "arith.extf" if fw < tw else "arith.truncf"
            self.b.emit(f"{ssa} = {op} {v.ssa} : {frm} to {to}", loc)
            return Value(ssa, to)
        if _is_float(frm):
            if to == "i1":
                zero = self.const(0.0, frm, node)
                self.b.emit(f"{ssa} = arith.cmpf une, {v.ssa}, {zero.ssa} : {frm}", loc)
                return Value(ssa, to)
            self.b.emit(f"{ssa} = arith.fptosi {v.ssa} : {frm} to {to}", loc)
            return Value(ssa, to)
        if _is_float(to):
            op = "arith.uitofp" if frm == "i1" else "arith.sitofp"
            self.b.emit(f"{ssa} = {op} {v.ssa} : {frm} to {to}", loc)
            return Value(ssa, to)
        if to == "i1":
            zero = self.const(0, frm, node)
            self.b.emit(f"{ssa} = arith.cmpi ne, {v.ssa}, {zero.ssa} : {frm}", loc)
            return Value(ssa, to)
        fw, tw = _int_width(frm), _int_width(to)
        op = "arith.extui" if frm == "i1" else ("arith.extsi" if fw < tw else "arith.trunci")
        self.b.emit(f"{ssa} = {op} {v.ssa} : {frm} to {to}", loc)
        return Value(ssa, to)

    def type_of(self, x):
        if isinstance(x, Value):
            return x.type
        if isinstance(x, Access):
            return x.buffer.dtype.mlir
        if isinstance(x, TypedConstant):
            return x.dtype.mlir
        return None

    def unify(self, ta, tb):
        if ta == tb:
            return ta
        if ta is None:
            return tb
        if tb is None:
            return ta
        fa, fb = _is_float(ta), _is_float(tb)
        if fa and fb:
            ra, rb = _float_bits(ta), _float_bits(tb)
            if ra == rb:
                return "f32"
            return ta if ra > rb else tb
        if fa:
            return ta
        if fb:
            return tb
        if ta == "index" or tb == "index":
            return "index"
        return ta if _int_width(ta) >= _int_width(tb) else tb

    # ------------------------------------------------------------- buffers

    def load(self, acc, node):
        buf = acc.buffer
        if not acc.is_element:
            raise self.error(f"a slice of '{buf.name}' cannot be used as a value; "
                             f"index single elements or pass the region to T.copy", node)
        if len(acc.items) != buf.ndim:
            raise self.error(f"'{buf.name}' has {buf.ndim} dimensions, indexed with "
                             f"{len(acc.items)}", node)
        idx = [self.value(i, node, "index") for i in acc.items]
        idx = [self.convert(i, "index", node) for i in idx]
        ssa = self.b.fresh(buf.name)
        self.b.emit(f"{ssa} = memref.load {buf.ssa}[{', '.join(i.ssa for i in idx)}] : "
                    f"{buf.memref_type()}", self.loc(node))
        return Value(ssa, buf.dtype.mlir)

    def store(self, acc, value, node):
        buf = acc.buffer
        if not acc.is_element:
            raise self.error(f"assigning to a slice of '{buf.name}' is not supported; use "
                             f"T.fill / T.copy, or a T.Parallel loop over the elements", node)
        if len(acc.items) != buf.ndim:
            raise self.error(f"'{buf.name}' has {buf.ndim} dimensions, indexed with "
                             f"{len(acc.items)}", node)
        v = self.convert(self.value(value, node, buf.dtype.mlir), buf.dtype.mlir, node)
        idx = [self.convert(self.value(i, node, "index"), "index", node) for i in acc.items]
        self._writes(buf)
        self.b.emit(f"memref.store {v.ssa}, {buf.ssa}[{', '.join(i.ssa for i in idx)}] : "
                    f"{buf.memref_type()}", self.loc(node))

    # ---------------------------------------------------------- statements

    def stmt(self, node):
        self.node = node
        method = getattr(self, "stmt_" + type(node).__name__, None)
        if method is None:
            raise self.error(f"unsupported statement '{type(node).__name__}' in a kernel", node)
        # Allocations are named after the variable they are assigned to.
        outer, self.current_stmt = self.current_stmt, node
        try:
            method(node)
        except TileCompileError:
            raise
        except Exception as e:  # noqa: BLE001 - Python code run while translating
            raise self.error(f"{type(e).__name__}: {e}", node) from e
        finally:
            self.current_stmt = outer

    def stmts(self, body):
        for s in body:
            self.stmt(s)

    def stmt_Pass(self, node):
        pass

    def stmt_Expr(self, node):
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # docstring
        self.expr(node.value)

    def stmt_Return(self, node):
        if self.macro_depth and self.scopes[-1].kind == "macro":
            self.scopes[-1].result = self.expr(node.value) if node.value is not None else None
            return
        if node.value is not None:
            raise self.error("a kernel returns nothing; write results to output tensors", node)

    def stmt_Assert(self, node):
        cond = self.expr(node.test)
        if isinstance(cond, (Value, Access)):
            raise self.error("assert on kernel values is not supported; assert on "
                             "compile-time values only", node)
        if not cond:
            msg = self.expr(node.msg) if node.msg else "assertion failed"
            raise self.error(str(msg), node)

    def stmt_Assign(self, node):
        value = self.expr(node.value)
        for target in node.targets:
            self.assign(target, value, node)

    def stmt_AnnAssign(self, node):
        if node.value is None:
            raise self.error("a declaration needs a value", node)
        value = self.expr(node.value)
        ann = self.expr(node.annotation)
        if isinstance(ann, (dtypes.DType, str)):
            dt = self.dtype(ann, node)
            value = self.convert(self.value(value, node, dt.mlir), dt.mlir, node)
        self.assign(node.target, value, node)

    def assign(self, target, value, node):
        if isinstance(target, ast.Name):
            if isinstance(value, Access):
                value = self.load(value, node)
            self.bind(target.id, value, node)
        elif isinstance(target, (ast.Tuple, ast.List)):
            if not isinstance(value, (tuple, list)) or len(value) != len(target.elts):
                raise self.error("cannot unpack this value into "
                                 f"{len(target.elts)} names", node)
            for t, v in zip(target.elts, value):
                self.assign(t, v, node)
        elif isinstance(target, ast.Subscript):
            acc = self.expr(target)
            if not isinstance(acc, Access):
                raise self.error("only buffer elements can be assigned to", node)
            self.store(acc, value, node)
        else:
            raise self.error("unsupported assignment target", node)

    def stmt_AugAssign(self, node):
        target = node.target
        if isinstance(target, ast.Name):
            cur = self.lookup(target.id, target)
            self.bind(target.id, self.binop(node.op, cur, self.expr(node.value), node), node)
        elif isinstance(target, ast.Subscript):
            acc = self.expr(target)
            if not isinstance(acc, Access):
                raise self.error("only buffer elements can be updated in place", node)
            new = self.binop(node.op, self.load(acc, node), self.expr(node.value), node)
            self.store(acc, new, node)
        else:
            raise self.error("unsupported augmented assignment", node)

    def stmt_If(self, node):
        cond = self.expr(node.test)
        if not isinstance(cond, (Value, Access, TypedConstant)):
            self.stmts(node.body if cond else node.orelse)
            return
        c = self.convert(self.value(cond, node.test), "i1", node.test)
        self.b.open(f"scf.if {c.ssa}")
        self.push("if")
        self.stmts(node.body)
        self.pop()
        if node.orelse:
            self.b.middle("} else {")
            self.push("if")
            self.stmts(node.orelse)
            self.pop()
        self.b.close(self.loc(node))

    def stmt_With(self, node):
        if len(node.items) != 1:
            raise self.error("use one T.Kernel(...) per with statement", node)
        item = node.items[0]
        call = item.context_expr
        fn = self.expr(call.func) if isinstance(call, ast.Call) else None
        if fn is not T.Kernel:
            raise self.error("only `with T.Kernel(...) as ...:` is supported", node)
        if self.kernel is not None:
            raise self.error("T.Kernel cannot be nested", node)
        args = [self.expr(a) for a in call.args]
        kwargs = {k.arg: self.expr(k.value) for k in call.keywords}
        threads = kwargs.pop("threads", 128)
        cluster = kwargs.pop("cluster_dims", kwargs.pop("cluster", None))
        kwargs.pop("prelude", None)
        if kwargs:
            raise self.error(f"unknown T.Kernel argument(s): {', '.join(kwargs)}", call)
        if not 1 <= len(args) <= 3:
            raise self.error(f"T.Kernel takes 1 to 3 grid extents, got {len(args)}", call)
        if isinstance(threads, (tuple, list)) and threads:
            n = 1
            for t in threads:
                n *= self._size(t, "each entry of threads", call)
            threads = n
        # The verifier checks the target's limit; this keeps the text valid.
        threads = self._size(threads, "threads", call)
        extents = []
        self.launch = {"grid": [], "threads": threads, "cluster": None}
        for a in args:
            if not isinstance(a, (Value, Access, TypedConstant)):
                # CUDA's limit (2^31 - 1 blocks along x) bounds every target.
                extents.append(str(self._size(a, "a grid extent", call, hi=1 << 31)))
                self.launch["grid"].append(str(a))
            else:
                v = self.convert(self.value(a, call, "index"), "index", call)
                extents.append(v.ssa)
                # None: not computable from tensor sizes; a GPU launcher
                # reports it (the CPU does not need it).
                self.launch["grid"].append(v.sym)
        names = ["bx", "by", "bz"][:len(args)]
        ssas = [self.b.fresh(n) for n in names]
        head = f"tile.kernel ({', '.join(ssas)}) in ({', '.join(extents)}) threads({threads})"
        if cluster is not None:
            cl = list(cluster) if isinstance(cluster, (tuple, list)) else [cluster]
            if not 1 <= len(cl) <= 3:
                raise self.error(f"cluster_dims takes 1 to 3 extents, got {cluster!r}", call)
            cl = [self._size(c, "a cluster extent", call) for c in cl][:len(args)]
            self.launch["cluster"] = cl + [1] * (3 - len(cl))
            head += f" cluster({', '.join(str(c) for c in cl)})"
        self.b.open(head)
        self.push("kernel")
        values = [Value(s, "index") for s in ssas]
        self.kernel = (values, [int(e) if e.isdigit() else Value(e, "index") for e in extents])
        var = item.optional_vars
        if isinstance(var, ast.Name):
            self.bind(var.id, values[0] if len(values) == 1 else tuple(values), node)
        elif isinstance(var, (ast.Tuple, ast.List)):
            if len(var.elts) != len(values):
                raise self.error(f"T.Kernel has {len(values)} block indices, unpacked into "
                                 f"{len(var.elts)} names", node)
            for t, v in zip(var.elts, values):
                self.bind(t.id, v, node)
        self.stmts(node.body)
        self.pop()
        self.kernel = None
        self.b.close(self.loc(node))

    def stmt_For(self, node):
        if node.orelse:
            raise self.error("for-else is not supported in kernels", node)
        it = node.iter
        if not isinstance(it, ast.Call):
            raise self.error("kernel loops iterate over T.Parallel, T.Pipelined, T.serial, "
                             "T.unroll, T.vectorized or range", node)
        fn = self.expr(it.func)
        args = [self.expr(a) for a in it.args]
        kwargs = {k.arg: self.expr(k.value) for k in it.keywords}
        targets = node.target.elts if isinstance(node.target, (ast.Tuple, ast.List)) else [node.target]
        if not all(isinstance(t, ast.Name) for t in targets):
            raise self.error("loop variables must be names", node)
        if fn is T.Parallel:
            self.loop_parallel(node, targets, args, kwargs)
        elif fn is T.Pipelined:
            self.loop_pipelined(node, targets, args, kwargs)
        elif fn is T.Persistent:
            self.loop_persistent(node, targets, args, kwargs)
        elif fn in (T.serial, T.unroll, T.vectorized, builtins.range):
            self.loop_serial(node, targets, args, kwargs, fn)
        else:
            raise self.error(f"cannot loop over {fn!r} in a kernel; use T.Parallel, "
                             "T.Pipelined, T.Persistent, T.serial or range", node)

    def loop_parallel(self, node, targets, args, kwargs):
        if len(targets) != len(args):
            raise self.error(f"T.Parallel has {len(args)} dimensions but {len(targets)} loop "
                             "variables", node)
        for a in args:
            self._size(a, "a T.Parallel extent", node)
        ssas = [self.b.fresh(t.id) for t in targets]
        self.b.open(f"tile.parallel ({', '.join(ssas)}) in ({', '.join(str(a) for a in args)})")
        self.push("loop")
        for t, s in zip(targets, ssas):
            self.scopes[-1].vars[t.id] = Value(s, "index")
        self.stmts(node.body)
        self.pop()
        self.b.close(self.loc(node))

    def _bounds(self, node, args, what):
        if len(args) == 1:
            lo, hi, step = 0, args[0], 1
        elif len(args) == 2:
            lo, hi, step = args[0], args[1], 1
        elif len(args) == 3:
            lo, hi, step = args
        else:
            raise self.error(f"{what} takes 1 to 3 bounds", node)
        for x in (lo, hi, step):
            got = self._not_an_integer(x)
            if got:
                raise self.error(f"{what} bounds must be integers, got {got}", node)
        if isinstance(step, int) and step <= 0:
            raise self.error(f"{what} step must be positive, got {step}", node)
        return [self.convert(self.value(x, node, "index"), "index", node) for x in (lo, hi, step)]

    def loop_serial(self, node, targets, args, kwargs, fn):
        if len(targets) != 1:
            raise self.error("a serial loop has one loop variable", node)
        lo, hi, step = self._bounds(node, args, "range")
        iv = self.b.fresh(targets[0].id)
        self.b.open(f"scf.for {iv} = {lo.ssa} to {hi.ssa} step {step.ssa}")
        self.push("loop")
        self.scopes[-1].vars[targets[0].id] = Value(iv, "index")
        self.stmts(node.body)
        self.pop()
        self.b.close(self.loc(node))

    def loop_persistent(self, node, targets, args, kwargs):
        """`for i, j in T.Persistent(domain, wave_size, index, group_size=8)`:
        a persistent block. Block `index` of `wave_size` visits the tiles
        index, index + wave_size, ... of `domain` (one loop whose trip
        count is this block's share: no guard inside). A 2-d domain is
        walked in groups of `group_size` along its first dimension, so
        that the tiles in flight at once share a few rows of A and columns
        of B in L2 (the order of T.use_swizzle)."""
        names = ["domain", "wave_size", "index", "group_size"]
        if len(args) > len(names):
            raise self.error("T.Persistent takes domain, wave_size, index and group_size", node)
        a = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names or k in a:
                raise self.error(f"unexpected T.Persistent argument '{k}'", node)
            a[k] = v
        for n in names[:3]:
            if n not in a:
                raise self.error(f"T.Persistent is missing its {n}", node)
        domain, wave, index = a["domain"], a["wave_size"], a["index"]
        group = a.get("group_size", 8)
        if not isinstance(domain, (list, tuple)) or len(domain) not in (1, 2):
            raise self.error("T.Persistent's domain is a list of one or two extents", node)
        if len(targets) != len(domain):
            raise self.error(f"T.Persistent has a {len(domain)}-d domain but "
                             f"{len(targets)} loop variables", node)
        if isinstance(wave, int):
            self._size(wave, "T.Persistent's wave_size", node)
        self._size(group, "T.Persistent's group_size", node)
        total = domain[0] if len(domain) == 1 else self.binop(ast.Mult(), domain[0],
                                                              domain[1], node)
        left = self.minmax("max", [self.binop(ast.Sub(), total, index, node), 0], node)
        trips = self.binop(ast.FloorDiv(),
                           self.binop(ast.Add(), left,
                                      self.binop(ast.Sub(), wave, 1, node), node),
                           wave, node)
        lo, hi, step = [self.convert(self.value(x, node, "index"), "index", node)
                        for x in (0, trips, 1)]
        w = self.b.fresh("wave")
        self.b.open(f"scf.for {w} = {lo.ssa} to {hi.ssa} step {step.ssa}")
        self.push("loop")
        tile = self.binop(ast.Add(), index,
                          self.binop(ast.Mult(), Value(w, "index"), wave, node), node)
        if len(domain) == 1:
            coords = [tile]
        else:
            coords = list(self._grouped_order(tile, *domain, group, node))
        for t, v in zip(targets, coords):
            self.scopes[-1].vars[t.id] = self.convert(self.value(v, node, "index"), "index",
                                                      node)
        self.stmts(node.body)
        self.pop()
        self.b.close(self.loc(node))

    def loop_pipelined(self, node, targets, args, kwargs):
        if len(targets) != 1:
            raise self.error("T.Pipelined has one loop variable", node)
        num_stages = kwargs.pop("num_stages", 1)
        order = kwargs.pop("order", None)
        stage = kwargs.pop("stage", None)
        # sm_90a gives TMA pipelines a producer warpgroup unless told not to.
        warp_specialize = kwargs.pop("warp_specialize", True)
        self._flag(warp_specialize, "warp_specialize", node)
        for k in ("group", "sync", "num_warps"):
            kwargs.pop(k, None)
        if kwargs:
            raise self.error(f"unknown T.Pipelined argument(s): {', '.join(kwargs)}", node)
        self._size(num_stages, "num_stages", node, lo=0)
        # TileLang's num_stages=0 means "no pipelining": one stage here.
        num_stages = builtins.max(num_stages, 1)
        lo, hi, step = self._bounds(node, args, "T.Pipelined")
        iv = self.b.fresh(targets[0].id)
        self.b.open(f"tile.pipelined {iv} = {lo.ssa} to {hi.ssa} step {step.ssa} "
                    f"num_stages = {num_stages}")
        head_index = len(self.b.lines) - 1
        depth = self.b.depth
        self.push("loop")
        self.scopes[-1].vars[targets[0].id] = Value(iv, "index")
        counts = []
        for s in node.body:
            mark = self.b.mark()
            self.stmt(s)
            counts.append(self.b.scheduled_ops_since(mark, depth))
        self.pop()
        self.b.close(self.loc(node))
        attrs = [] if warp_specialize else ["tile.warp_specialize = false"]
        if order is not None or stage is not None:
            n = len(node.body)
            for name, lst in (("order", order), ("stage", stage)):
                if lst is None:
                    continue
                if not isinstance(lst, (list, tuple)):
                    raise self.error(f"T.Pipelined {name} must be a list of integers, one a "
                                     f"statement, got {lst!r}", node)
                if len(lst) != n:
                    raise self.error(f"T.Pipelined {name} has {len(lst)} entries for {n} "
                                     "statements", node)
                for x in lst:
                    self._size(x, f"an entry of T.Pipelined's {name}", node, lo=-(1 << 63))
            if order is not None and len(set(order)) != n:
                raise self.error(f"T.Pipelined order {list(order)} gives two statements the "
                                 "same place", node)
            if stage is not None:
                per_op = [st for st, c in zip(stage, counts) for _ in range(c)]
                attrs.append(f"stage = array<i64: {', '.join(map(str, per_op))}>")
            if order is not None:
                ranked = sorted(range(n), key=lambda i: order[i])
                positions = {}
                pos = 0
                for i in ranked:
                    positions[i] = list(range(pos, pos + counts[i]))
                    pos += counts[i]
                per_op = [p for i in range(n) for p in positions[i]]
                attrs.append(f"order = array<i64: {', '.join(map(str, per_op))}>")
        if attrs:
            line = self.b.lines[head_index]
            self.b.lines[head_index] = line[:-2] + f" attributes {{{', '.join(attrs)}}} {{"

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
        return self.lookup(node.id, node)

    def expr_Tuple(self, node):
        return tuple(self.expr(e) for e in node.elts)

    def expr_List(self, node):
        return [self.expr(e) for e in node.elts]

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
        if isinstance(base, (Value, Access)):
            raise self.error(f"kernel values have no attribute '{node.attr}'", node)
        try:
            return getattr(base, node.attr)
        except AttributeError:
            raise self.error(f"{base!r} has no attribute '{node.attr}'", node) from None

    def expr_Subscript(self, node):
        base = self.expr(node.value)
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
            if opname is None:
                raise self.error(f"operator '{name}' needs integer operands", node)
        else:
            opname = {"add": "arith.addi", "sub": "arith.subi", "mul": "arith.muli",
                      "div": "arith.divsi", "floordiv": "arith.floordivsi",
                      "rem": "arith.remsi", "and": "arith.andi", "or": "arith.ori",
                      "xor": "arith.xori", "shl": "arith.shli", "shr": "arith.shrsi"}[name]
        ssa = self.b.fresh(name)
        self.b.emit(f"{ssa} = {opname} {va.ssa}, {vb.ssa} : {t}", self.loc(node))
        lin = None
        if t == "index":
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
        if t == "index" and pyop and va.sym is not None and vb.sym is not None:
            sym = f"({va.sym} {pyop} {vb.sym})"
        return Value(ssa, t, lin, sym)

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
        kwargs = {k.arg: self.expr(k.value) for k in node.keywords}
        kernel = (Value, Access, TypedConstant, Buffer)
        if fn in (builtins.max, builtins.min) and any(isinstance(a, kernel) for a in args):
            return self.minmax("max" if fn is builtins.max else "min", args, node)
        if fn is builtins.abs and any(isinstance(a, kernel) for a in args):
            return self.unary_math("abs", args[0], node)
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
        try:
            return fn(*args, **kwargs)
        except TileCompileError:
            raise
        except Exception as e:  # noqa: BLE001
            raise self.error(f"calling {getattr(fn, '__name__', fn)!r} failed: {e}", node) from None

    def call_macro(self, macro, node):
        """Inlines a @T.macro: its body is translated with its parameters
        bound to the call's arguments (buffers, kernel values or Python
        values)."""
        args = [self.expr(a) for a in node.args]
        kwargs = {k.arg: self.expr(k.value) for k in node.keywords}
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

    # ------------------------------------------------------------ intrinsics

    def _args(self, node, names, defaults=None):
        """Binds a call's arguments to `names` (with `defaults`)."""
        defaults = defaults or {}
        values = {}
        for n, a in zip(names, node.args):
            values[n] = self.expr(a)
        if len(node.args) > len(names):
            raise self.error(f"too many arguments (expected at most {len(names)})", node)
        for k in node.keywords:
            if k.arg not in names and k.arg not in defaults:
                raise self.error(f"unexpected argument '{k.arg}'", node)
            values[k.arg] = self.expr(k.value)
        for n in names:
            if n not in values and n not in defaults:
                raise self.error(f"missing argument '{n}'", node)
        for n, default in defaults.items():
            values.setdefault(n, default)
        return values

    def _alloc(self, node, scope):
        a = self._args(node, ["shape", "dtype", "scope"], {"dtype": "float32", "scope": None})
        shape = a["shape"]
        if isinstance(shape, int):
            shape = (shape,)
        if not isinstance(shape, (tuple, list)) or not all(
                isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in shape):
            raise self.error(f"buffer shapes must be positive compile-time integers, got {shape!r}",
                             node)
        if self.kernel is None:
            raise self.error(f"T.alloc_{scope} must be inside `with T.Kernel(...)`", node)
        dt = self.dtype(a["dtype"], node)
        size = (dt.bits + 7) // 8
        for d in shape:
            size *= d
        # No on-chip memory comes near 2 GiB; past it sizes would not even
        # fit the 32-bit offsets GPU code computes (the target's verifier
        # checks its real budget).
        if size >= 1 << 31:
            raise self.error(f"T.alloc_{scope} of {'x'.join(map(str, shape))} {dt.name} takes "
                             f"{size} bytes; on-chip buffers must be smaller than 2 GiB", node)
        name = self._target_name(node) or scope
        buf = Buffer(self.b.fresh(name), shape, dt, scope, name)
        self.b.emit(f"{buf.ssa} = tile.alloc_{scope} : {buf.memref_type()}", self.loc(node))
        return buf

    def _target_name(self, node):
        stmt = self.current_stmt
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            return stmt.targets[0].id
        return None

    def call_alloc_shared(self, node):
        return self._alloc(node, "shared")

    def call_alloc_fragment(self, node):
        return self._alloc(node, "fragment")

    def call_alloc_local(self, node):
        return self._alloc(node, "local")

    def _writes(self, buf):
        """Notes that the kernel writes `buf` (the launcher refuses read-only
        or overlapping arrays for the tensors a kernel writes)."""
        if buf.scope == "global":
            self.written.add(buf.name)

    def _buffer_arg(self, x, node, what):
        if isinstance(x, Buffer):
            return x
        if isinstance(x, Access):
            raise self.error(f"{what} must be a whole buffer, not an indexed region", node)
        raise self.error(f"{what} must be a buffer, got {x!r}", node)

    def _region(self, x, node):
        """(buffer, offsets, sizes or None) of a T.copy side."""
        if isinstance(x, Buffer):
            return x, None, None
        if not isinstance(x, Access):
            raise self.error(f"T.copy needs buffers or buffer regions, got {x!r}", node)
        buf = x.buffer
        if len(x.items) > buf.ndim:
            raise self.error(f"'{buf.name}' has {buf.ndim} dimensions, indexed with "
                             f"{len(x.items)}", node)
        items = list(x.items) + [("slice", 0, None)] * (buf.ndim - len(x.items)) \
            if not x.is_element else list(x.items)
        if x.is_element and len(items) != buf.ndim:
            raise self.error(f"'{buf.name}' has {buf.ndim} dimensions, indexed with "
                             f"{len(items)}", node)
        offsets, sizes = [], []
        for d, it in enumerate(items):
            if isinstance(it, tuple):
                _, lo, hi = it
                if hi is None:
                    hi = buf.shape[d]
                extent = None
                if isinstance(lo, int) and isinstance(hi, int):
                    extent = hi - lo
                else:
                    llo, lhi = LinExpr.of(lo), LinExpr.of(hi)
                    if llo is not None and lhi is not None:
                        extent = lhi.add(llo, -1).constant()
                if extent is None or extent <= 0:
                    raise self.error(f"the extent of slice {d} of '{buf.name}' must be a positive "
                                     "compile-time constant (write start:start + size)", node)
                self._size(extent, f"the extent of slice {d} of '{buf.name}'", node)
                offsets.append(lo)
                sizes.append(extent)
            else:
                offsets.append(it)
                sizes.append(1)
        return buf, offsets, (None if x.is_element else sizes)

    def _offsets_text(self, offsets, node):
        parts = []
        for o in offsets:
            if isinstance(o, int) and not isinstance(o, bool):
                parts.append(self._literal(o, "index", node))
            else:
                parts.append(self.convert(self.value(o, node, "index"), "index", node).ssa)
        return "[" + ", ".join(parts) + "]"

    def call_copy(self, node):
        a = self._args(node, ["src", "dst"], {"coalesced_width": None, "disable_tma": False,
                                              "eviction_policy": None, "pad_value": None})
        sbuf, soff, ssz = self._region(a["src"], node)
        dbuf, doff, dsz = self._region(a["dst"], node)
        self._writes(dbuf)

        def whole(buf):
            if any(not isinstance(d, int) for d in buf.shape):
                raise self.error(f"'{buf.name}' has dynamic dimensions: give a region "
                                 f"({buf.name}[i, j] or slices)", node)
            return list(buf.shape)

        def infer(buf, offsets, other_sizes):
            # Element form: the trailing dims take the other side's extents.
            rank = buf.ndim
            tile = [s for s in other_sizes if s != 1] or [1]
            if len(tile) > rank:
                raise self.error(f"cannot place a {'x'.join(map(str, tile))} tile in "
                                 f"'{buf.name}' of rank {rank}", node)
            if len(other_sizes) <= rank:
                return [1] * (rank - len(other_sizes)) + list(other_sizes)
            return [1] * (rank - len(tile)) + tile

        if soff is None and doff is None:
            ssz, dsz = whole(sbuf), whole(dbuf)
            soff, doff = [0] * sbuf.ndim, [0] * dbuf.ndim
        elif soff is None:
            ssz = whole(sbuf)
            soff = [0] * sbuf.ndim
            dsz = dsz or infer(dbuf, doff, ssz)
        elif doff is None:
            dsz = whole(dbuf)
            doff = [0] * dbuf.ndim
            ssz = ssz or infer(sbuf, soff, dsz)
        else:
            if ssz is None and dsz is None:
                raise self.error("T.copy between two indexed elements: give one side as a "
                                 "buffer or slices", node)
            ssz = ssz or infer(sbuf, soff, dsz)
            dsz = dsz or infer(dbuf, doff, ssz)
        # As in TileLang, both sides cover one tile: extents of 1 drop out
        # (A[i, 0:64] is a 64-tile), an element takes the other side's tile,
        # and regions whose other extents differ are rejected (never clipped).
        if [s for s in ssz if s != 1] != [s for s in dsz if s != 1]:
            raise self.error(f"T.copy from a {'x'.join(map(str, ssz))} region of '{sbuf.name}' "
                             f"to a {'x'.join(map(str, dsz))} region of '{dbuf.name}': both "
                             "sides must have the same extents (apart from extents of 1)", node)
        loc = self.loc(node)
        attrs = []
        if a["pad_value"] is not None:
            pv = a["pad_value"]
            attrs.append(f"pad = {self._literal(pv, sbuf.dtype.mlir, node)} : {sbuf.dtype.mlir}")
        if self._flag(a["disable_tma"], "disable_tma", node):
            attrs.append("tile.disable_tma")
        text = (f"tile.copy {sbuf.ssa}{self._offsets_text(soff, node)} [{', '.join(map(str, ssz))}]"
                f" to {dbuf.ssa}{self._offsets_text(doff, node)} [{', '.join(map(str, dsz))}]")
        if attrs:
            text += " {" + ", ".join(attrs) + "}"
        self.b.emit(f"{text} : {sbuf.memref_type()} to {dbuf.memref_type()}", loc)

    def call_gemm(self, node):
        a = self._args(node, ["A", "B", "C", "transpose_A", "transpose_B", "policy"],
                       {"transpose_A": False, "transpose_B": False,
                        "policy": T.GemmWarpPolicy.Square, "clear_accum": False,
                        "k_pack": 1, "wg_wait": 0})
        A = self._buffer_arg(a["A"], node, "A")
        B = self._buffer_arg(a["B"], node, "B")
        C = self._buffer_arg(a["C"], node, "C")
        self._writes(C)
        self.b.emit(f"tile.gemm {A.ssa}, {B.ssa}, {C.ssa}{self._gemm_attrs(a, node)} : "
                    f"{A.memref_type()}, {B.memref_type()}, {C.memref_type()}", self.loc(node))

    def _flag(self, value, name, node):
        """Argument `name` of a T.* call is True or False."""
        if not isinstance(value, bool):
            raise self.error(f"{name} must be True or False, got {value!r}", node)
        return value

    def _gemm_attrs(self, a, node, sparse=False):
        for name in ("transpose_A", "transpose_B", "clear_accum"):
            if name in a:
                self._flag(a[name], name, node)
        attrs = []
        if a.get("transpose_A"):
            if sparse:
                raise self.error("T.gemm_sp does not support transpose_A", node)
            attrs.append("transpose_a")
        if a.get("transpose_B"):
            attrs.append("transpose_b")
        if a.get("clear_accum"):
            attrs.append("clear_accum")
        policy = a.get("policy", T.GemmWarpPolicy.Square)
        if not isinstance(policy, T.GemmWarpPolicy):
            raise self.error("policy must be a T.GemmWarpPolicy", node)
        if policy is not T.GemmWarpPolicy.Square:
            attrs.append(f"policy = #tile.policy<{policy.value}>")
        return (" {" + ", ".join(attrs) + "}") if attrs else ""

    def call_gemm_sp(self, node):
        a = self._args(node, ["A_sparse", "E", "B", "C", "transpose_A", "transpose_B", "policy"],
                       {"transpose_A": False, "transpose_B": False,
                        "policy": T.GemmWarpPolicy.Square, "clear_accum": False})
        bufs = [self._buffer_arg(a[n], node, n) for n in ("A_sparse", "E", "B", "C")]
        self._writes(bufs[-1])
        self.b.emit(f"tile.gemm_sp {', '.join(b.ssa for b in bufs)}"
                    f"{self._gemm_attrs(a, node, sparse=True)} : "
                    f"{', '.join(b.memref_type() for b in bufs)}", self.loc(node))

    def call_clear(self, node):
        a = self._args(node, ["buffer"])
        buf = self._buffer_arg(a["buffer"], node, "T.clear's argument")
        self._writes(buf)
        self.b.emit(f"tile.clear {buf.ssa} : {buf.memref_type()}", self.loc(node))

    def call_fill(self, node):
        a = self._args(node, ["buffer", "value"])
        buf = self._buffer_arg(a["buffer"], node, "T.fill's buffer")
        self._writes(buf)
        v = self.convert(self.value(a["value"], node, buf.dtype.mlir), buf.dtype.mlir, node)
        self.b.emit(f"tile.fill {buf.ssa}, {v.ssa} : {buf.memref_type()}, {v.type}", self.loc(node))

    def _reduce(self, node, kind):
        a = self._args(node, ["buffer", "out", "dim", "clear"], {"dim": -1, "clear": True})
        src = self._buffer_arg(a["buffer"], node, "the reduced buffer")
        dst = self._buffer_arg(a["out"], node, "the output buffer")
        self._writes(dst)
        dim = a["dim"]
        if isinstance(dim, bool) or not isinstance(dim, int) or not -src.ndim <= dim < src.ndim:
            raise self.error(f"dim must be an integer in [{-src.ndim}, {src.ndim}), got {dim!r}",
                             node)
        dim %= src.ndim
        self._flag(a["clear"], "clear", node)
        clear = "" if a["clear"] else " {clear = false}"
        self.b.emit(f"tile.reduce {kind} {src.ssa} into {dst.ssa} dim = {dim}{clear} : "
                    f"{src.memref_type()} into {dst.memref_type()}", self.loc(node))

    def call_reduce_max(self, node):
        self._reduce(node, "max")

    def call_reduce_min(self, node):
        self._reduce(node, "min")

    def call_reduce_sum(self, node):
        self._reduce(node, "sum")

    def call_reduce_abssum(self, node):
        self._reduce(node, "abssum")

    def call_reduce_absmax(self, node):
        self._reduce(node, "absmax")

    def _atomic(self, node, kind):
        a = self._args(node, ["dst", "value"], {"memory_order": None})
        dst, value = a["dst"], a["value"]
        if isinstance(dst, Buffer):
            buf, offsets, sizes = dst, [0] * dst.ndim, list(dst.shape)
        elif isinstance(dst, Access):
            buf, offsets, sizes = self._region(dst, node)
        else:
            raise self.error("T.atomic_* needs a buffer element or region as destination", node)
        self._writes(buf)
        region = ""
        if isinstance(value, Buffer):
            # A tile: its shape is the region's (unit dims aside).
            if sizes is not None and [d for d in sizes if d != 1] != \
                    [d for d in value.shape if d != 1]:
                raise self.error(f"T.atomic_{kind} of the {'x'.join(map(str, value.shape))} "
                                 f"tile '{value.name}' into a region of '{buf.name}' of shape "
                                 f"{'x'.join(map(str, sizes))}: the shapes must match", node)
            vtext, vtype = value.ssa, value.memref_type()
        else:
            # A scalar into an element, or into every element of a region or
            # a whole buffer.
            if sizes is not None:
                if any(not isinstance(d, int) for d in sizes):
                    raise self.error(f"'{buf.name}' has dynamic dimensions: give the region "
                                     f"that T.atomic_{kind} updates as slices", node)
                region = f" sizes [{', '.join(map(str, sizes))}]"
            v = self.convert(self.value(value, node, buf.dtype.mlir), buf.dtype.mlir, node)
            vtext, vtype = v.ssa, v.type
        self.b.emit(f"tile.atomic_{kind} {buf.ssa}{self._offsets_text(offsets, node)}{region}, "
                    f"{vtext} : {buf.memref_type()}, {vtype}", self.loc(node))

    def call_atomic_add(self, node):
        self._atomic(node, "add")

    def call_atomic_max(self, node):
        self._atomic(node, "max")

    def call_atomic_min(self, node):
        self._atomic(node, "min")

    def call_annotate_layout(self, node):
        a = self._args(node, ["layout_map"])
        mapping = a["layout_map"]
        if not isinstance(mapping, dict):
            raise self.error("T.annotate_layout takes {buffer: layout}", node)
        for buf, lay in mapping.items():
            buf = self._buffer_arg(buf, node, "a layout's key")
            if lay is None:
                continue
            if not isinstance(lay, layout_mod.SwizzleLayout):
                raise self.error(f"unsupported layout {lay!r}; use "
                                 "tilemlir.layout.make_swizzled_layout(buffer)", node)
            self.b.emit(f"tile.annotate_layout {buf.ssa} layout({lay.attr()}) : "
                        f"{buf.memref_type()}", self.loc(node))

    def call_annotate_safe_value(self, node):
        a = self._args(node, ["safe_value_map"])
        mapping = a["safe_value_map"]
        if not isinstance(mapping, dict):
            raise self.error("T.annotate_safe_value takes {tensor: value}", node)
        if self.kernel is None:
            raise self.error("T.annotate_safe_value must be inside `with T.Kernel(...)`", node)
        for buf, value in mapping.items():
            buf = self._buffer_arg(buf, node, "a safe value's key")
            if buf.scope != "global":
                raise self.error(f"T.annotate_safe_value applies to global tensors; "
                                 f"'{buf.name}' is a {buf.scope} buffer", node)
            if isinstance(value, TypedConstant):
                value = value.value
            if isinstance(value, Value) or not isinstance(value, (int, float)):
                raise self.error(f"the safe value of '{buf.name}' must be a compile-time "
                                 f"number, got {value!r}", node)
            v = self.const(value, buf.dtype.mlir, node)
            self.b.emit(f"tile.annotate_safe_value {buf.ssa}, {v.ssa} : {buf.memref_type()}, "
                        f"{v.type}", self.loc(node))

    def _grouped_order(self, linear, rows, cols, group, node):
        """(row, col) of the `linear`-th tile of a rows x cols grid walked in
        groups of `group` rows (the last group may be narrower), each group
        column by column: consecutive tiles share the same few rows of A and
        sweep the columns of B, which stay in L2 (T.use_swizzle,
        T.Persistent)."""
        per_group = self.binop(ast.Mult(), group, cols, node)
        first = self.binop(ast.Mult(), self.binop(ast.FloorDiv(), linear, per_group, node),
                           group, node)
        size = self.minmax("min", [self.binop(ast.Sub(), rows, first, node), group], node)
        in_group = self.binop(ast.Mod(), linear, per_group, node)
        return (self.binop(ast.Add(), first, self.binop(ast.Mod(), in_group, size, node), node),
                self.binop(ast.FloorDiv(), in_group, size, node))

    def call_use_swizzle(self, node):
        a = self._args(node, ["panel_size", "order", "enable"], {"order": "row", "enable": True})
        if not a["enable"]:
            return
        if self.kernel is None or len(self.kernel[0]) < 2:
            raise self.error("T.use_swizzle needs a kernel with a 2-d grid", node)
        group = self._size(a["panel_size"], "panel_size", node)
        (bx, by), (gx, gy) = self.kernel[0][:2], self.kernel[1][:2]
        # In thread-block clusters the walk is over whole clusters (each
        # block keeps its place in its cluster), so that the blocks of a
        # cluster still share their rows or columns (TMA multicast).
        cx, cy = (self.launch["cluster"] or [1, 1])[:2]
        if a["order"] == "col":
            bx, by, gx, gy, cx, cy = by, bx, gy, gx, cy, cx

        def split(b, g, c):
            if c == 1:
                return b, g, None
            return (self.binop(ast.FloorDiv(), b, c, node),
                    self.binop(ast.FloorDiv(), g, c, node),
                    self.binop(ast.Mod(), b, c, node))

        def join(b, c, r):
            if c == 1:
                return b
            return self.binop(ast.Add(), self.binop(ast.Mult(), b, c, node), r, node)
        bx, gx, rx = split(bx, gx, cx)
        by, gy, ry = split(by, gy, cy)
        pid = self.binop(ast.Add(), self.binop(ast.Mult(), by, gx, node), bx, node)
        new_by, new_bx = self._grouped_order(pid, gy, gx, group, node)
        new_bx, new_by = join(new_bx, cx, rx), join(new_by, cy, ry)
        if a["order"] == "col":
            new_bx, new_by = new_by, new_bx
        old = self.kernel[0]
        for scope in self.scopes:
            for name, v in list(scope.vars.items()):
                if v is old[0]:
                    scope.vars[name] = new_bx
                elif v is old[1]:
                    scope.vars[name] = new_by

    def call_ceildiv(self, node):
        a = self._args(node, ["lhs", "rhs"])
        x, y = a["lhs"], a["rhs"]
        if not isinstance(x, (Value, Access)) and not isinstance(y, (Value, Access)):
            try:
                return -(-x // y)
            except Exception as e:  # noqa: BLE001 - e.g. T.ceildiv(M, 0)
                raise self.error(f"T.ceildiv({x!r}, {y!r}): {e}", node) from None
        num = self.binop(ast.Add(), x, self.binop(ast.Sub(), y, 1, node), node)
        return self.binop(ast.FloorDiv(), num, y, node)

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


def _float_bits(t):
    return {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}.get(t, 8)


def translate(prim_func):
    """The tile IR text of a T.prim_func."""
    return Translator(prim_func).translate()


def translate_with_launch(prim_func):
    """(tile IR text, launch, written) where launch has the kernel's "grid"
    as Python expressions over the dynamic dimensions (None where not
    computable), "threads" and "cluster" (launch is None without a
    T.Kernel), and written is the set of tensor parameters it writes."""
    t = Translator(prim_func)
    ir = t.translate()
    return ir, getattr(t, "launch", None), t.written
