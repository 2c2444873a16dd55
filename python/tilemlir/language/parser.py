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

from .. import language as T
from ..errors import TileCompileError
from . import dtypes
from .atomic_ops import AtomicOpsMixin
from .barrier_ops import BarrierOpsMixin
from .buffer_ops import BufferOpsMixin
from .cluster_ops import ClusterOpsMixin
from .copy_forms import CopyFormsMixin
from .expressions import ExpressionsMixin
from .frame import Frame, Scope
from .ir import Access, Buffer, IRBuilder, LinExpr, TypedConstant, Value, float_literal, int_literal
from .scalar_ops import ScalarOpsMixin
from .scalars import float_bits as _float_bits, int_width as _int_width, is_float as _is_float
from .statements import StatementsMixin
from .thread_ops import ThreadOpsMixin
from .tile_ops import TileOpsMixin
from .vector_ops import VectorOpsMixin


def _static_strides(spec):
    """A tensor parameter's strides for its memref type (None entries
    dynamic), or None for a row-major tensor."""
    if spec.strides is None:
        return None
    return [s if isinstance(s, int) else None for s in spec.strides]


# The integer types whose values keep `sym` (index values always do).
_INT_SYMS = ("i8", "i16", "i32", "i64")


class Translator(StatementsMixin, ExpressionsMixin, TileOpsMixin, CopyFormsMixin, AtomicOpsMixin,
                 BufferOpsMixin, ScalarOpsMixin, ThreadOpsMixin, ClusterOpsMixin, VectorOpsMixin,
                 BarrierOpsMixin):
    """Reads one prim_func. This file holds its state, errors, scoping,
    constants, conversions and element access; statements.py, expressions.py,
    tile_ops.py and scalar_ops.py hold the rest."""

    def __init__(self, prim_func):
        self.prim = prim_func
        self.fn = prim_func.fn
        self.frame = Frame(self.fn)
        self.func_def = self.frame.func_def
        self.b = IRBuilder()
        self.scopes = [Scope("func")]
        self.dyn_values = {}
        self.kernel = None  # (block index Values, grid extents) of the open kernel
        self.reducers = []  # the T.comm_reducers of the open T.attr reduce_scopes
        self.open_reducers = []  # reducers that T.reducer_init opened in this kernel
        self.in_reducer_update = False
        self.thread_index_dims = {}  # thread index SSA name -> its dimension
        self.launches = []  # the launch of each T.Kernel, in order
        self.node = self.func_def
        self.current_stmt = None
        self.macro_depth = 0
        self.written = set()  # names of the tensor parameters the kernel writes
        self.workspaces = []  # (Buffer, loc) of each T.alloc_global
        # (op text, loc) of T.make_tensor calls made before T.Kernel: emitted
        # at the start of the next kernel's body.
        self.pending_tensors = []

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

    def check_packed_extent(self, dt, shape, what, node):
        """Reports at `node` a buffer of a packed (4-bit) dtype whose rows
        would split a byte."""
        try:
            dtypes.check_packed_extent(dt, list(shape), what)
        except TypeError as e:
            raise self.error(str(e), node) from None

    def dtype(self, value, node):
        """The DType of a dtype string or object; an unknown one, or one
        kernels cannot hold, is reported at `node`."""
        try:
            return dtypes.storable(value)
        except TypeError as e:
            raise self.error(str(e), node) from None

    # ------------------------------------------------------------ entry point

    def translate(self):
        params = []
        sig = inspect.signature(self.fn)
        nodes = {a.arg: a for a in self.func_def.args.args + self.func_def.args.kwonlyargs}

        def arg_node(name):
            return nodes.get(name, self.func_def)

        for name, p in sig.parameters.items():
            ann = p.annotation
            if ann is inspect.Parameter.empty:
                raise self.error(f"kernel parameter '{name}' needs an annotation such as "
                                 f"T.Tensor((M, N), 'float16') or T.int32")
            if isinstance(ann, str) and not isinstance(ann, dtypes.DType):
                try:
                    ann = eval(ann, self.frame.globals, dict(self.frame.closure))
                except TileCompileError:
                    raise
                except Exception as e:  # noqa: BLE001
                    raise self.error(f"cannot evaluate the annotation of kernel parameter "
                                     f"'{name}': {e}") from None
            if isinstance(ann, T.TensorSpec):
                self.check_packed_extent(ann.dtype, ann.shape, f"tensor parameter '{name}'",
                                         arg_node(name))
                buf = Buffer(f"%{name}", [d if isinstance(d, int) else None for d in ann.shape],
                             ann.dtype, "global", name, _static_strides(ann))
                params.append(("tensor", name, ann, buf))
            elif isinstance(ann, (dtypes.DType, str)):
                dt = self.dtype(ann, self.func_def)
                # An integer scalar is known to the launcher by its name: grid
                # extents may be computed from it (T.ceildiv(max_len, 64)).
                sym = name if dt.kind in ("int", "uint") and dt.name != "ptr" else None
                params.append(("scalar", name, dt, Value(f"%{name}", dt.mlir, sym=sym)))
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
        # Dynamic dimensions: memref.dim of the first tensor that has them;
        # then the sizes written with arithmetic on them (n * 4 + 1), which
        # give the dimension where no tensor has it plainly.
        for kind, name, spec, buf in params:
            if kind != "tensor":
                continue
            for d, dim in enumerate(spec.shape):
                if isinstance(dim, T.DimExpr):
                    continue
                if isinstance(dim, T.DynamicDim):
                    if id(dim) not in self.dyn_values:
                        c = self.const_index(d, self.func_def)
                        v = self.b.fresh(dim.name)
                        self.b.emit(f"{v} = memref.dim {buf.ssa}, {c.ssa} : {self._param_type(spec)}",
                                    self.loc(self.func_def))
                        self.dyn_values[id(dim)] = Value(v, "index", sym=dim.name)
                    buf.shape[d] = self.dyn_value(dim)
        for kind, name, spec, buf in params:
            if kind == "tensor":
                for d, dim in enumerate(spec.shape):
                    if isinstance(dim, T.DimExpr):
                        buf.shape[d] = self.dim_expr_size(dim, buf, d, self._param_type(spec),
                                                          self.func_def)
        for stmt in self.func_def.body:
            self.stmt(stmt)
        # T.alloc_global tensors: parameters after the program's own.
        for buf, wloc in self.workspaces:
            args.append(f"{buf.ssa}: {buf.memref_type()} {wloc}")
        body = "\n".join(self.b.lines)
        loc = self.loc(self.func_def)
        return (f"module {{\n  func.func @{self.fn.__name__}({', '.join(args)}) {{\n{body}\n"
                f"    return {loc}\n  }} {loc}\n}} {loc}\n")

    def dim_expr_size(self, dim, buf, d, memref_type, node):
        """The size of dimension `d` of `buf`, written `dim` (a DimExpr).
        Where no tensor has `dim.var` plainly, the variable is
        (size - add) / mul (the runtime checks that the size has that form),
        computed where it is used: a kernel takes sizes of its tensors from
        the host, not values computed there."""
        if id(dim.var) not in self.dyn_values:
            self.dyn_values[id(dim.var)] = (dim, buf, d, memref_type)
        return Value(self._emit_dim(buf, d, memref_type, node), "index", sym=f"({dim.name})")

    def _emit_dim(self, buf, d, memref_type, node):
        c = self.const_index(d, node)
        size = self.b.fresh("dim")
        self.b.emit(f"{size} = memref.dim {buf.ssa}, {c.ssa} : {memref_type}", self.loc(node))
        return size

    def _derived_dim(self, derived, node):
        """The value of the T.dynamic that a DimExpr size gives (see
        dim_expr_size), emitted here."""
        dim, buf, d, memref_type = derived
        v = self._emit_dim(buf, d, memref_type, node)
        loc = self.loc(node)
        if dim.add:
            add = self.const_index(dim.add, node)
            rest = self.b.fresh("sub")
            self.b.emit(f"{rest} = arith.subi {v}, {add.ssa} : index", loc)
            v = rest
        if dim.mul != 1:
            mul = self.const_index(dim.mul, node)
            q = self.b.fresh(dim.var.name)
            self.b.emit(f"{q} = arith.divui {v}, {mul.ssa} : index", loc)
            v = q
        return Value(v, "index", sym=dim.var.name)

    def dyn_value(self, dim, node=None):
        """The kernel value of T.dynamic `dim` (known to dyn_values)."""
        v = self.dyn_values[id(dim)]
        return self._derived_dim(v, node) if isinstance(v, tuple) else v

    def _param_type(self, spec):
        return Buffer(None, [d if isinstance(d, int) else None for d in spec.shape], spec.dtype,
                      "global", None, _static_strides(spec)).memref_type()

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
            return self.dyn_value(value, self.node)
        if isinstance(value, T.DimExpr) and id(value.var) in self.dyn_values:
            # A size written with arithmetic (n * 4 + 1) used as a value.
            v = self.binop(ast.Mult(), self.dyn_value(value.var, self.node), value.mul, self.node)
            return self.binop(ast.Add(), v, value.add, self.node) if value.add else v
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
                        f"immutable; keep the value in a variable instead "
                        f"(x = T.alloc_var(dtype, init=...); x = ...)", node)
        self.scopes[-1].vars[name] = value

    def var_named(self, name):
        """The T.alloc_var buffer `name` names in the kernel's scopes, or None."""
        for scope in reversed(self.scopes):
            if name in scope.vars:
                v = scope.vars[name]
                return v if isinstance(v, Buffer) and v.is_var else None
            if scope.kind == "macro":
                break
        return None

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
        sym = str(int(v)) if type in _INT_SYMS else None
        return Value(ssa, type, sym=sym)

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
            return Value(ssa, to, v.lin, v.sym)
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
        if buf.reducer is not None:
            self.check_reducer_epoch(buf, "read of", node)
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
            if isinstance(value, Value) and value.type.startswith("vector<"):
                return self._store_vector(acc, value, node)
            raise self.error(f"assigning to a slice of '{buf.name}' is not supported; use "
                             f"T.fill / T.copy, or a T.Parallel loop over the elements", node)
        if len(acc.items) != buf.ndim:
            raise self.error(f"'{buf.name}' has {buf.ndim} dimensions, indexed with "
                             f"{len(acc.items)}", node)
        if buf.reducer is not None:
            self.check_reducer_epoch(buf, "store to", node)
            self._check_reducer_update(buf, node)
        v = self.convert(self.value(value, node, buf.dtype.mlir), buf.dtype.mlir, node)
        idx = [self.convert(self.value(i, node, "index"), "index", node) for i in acc.items]
        self._writes(buf)
        self.b.emit(f"memref.store {v.ssa}, {buf.ssa}[{', '.join(i.ssa for i in idx)}] : "
                    f"{buf.memref_type()}", self.loc(node))


def translate(prim_func):
    """The tile IR text of a T.prim_func."""
    return Translator(prim_func).translate()


def translate_with_launch(prim_func):
    """(tile IR text, launch, written) where launch has the first kernel's
    "grid" as Python expressions over the dynamic dimensions (None where
    not computable), "threads" and "cluster", and "kernels": those of every
    T.Kernel of the function in order (launch is None without a T.Kernel);
    written is the set of tensor parameters it writes."""
    t = Translator(prim_func)
    ir = t.translate()
    return ir, launch_of(t), t.written


def launch_of(t):
    """The launch of translated kernel function `t` (see
    translate_with_launch), None without a T.Kernel."""
    if not t.launches:
        return None
    launch = dict(t.launches[0], kernels=t.launches)
    # The bundle's parameters for the T.alloc_global tensors.
    launch["workspaces"] = [
        {"name": buf.name, "kind": "tensor", "dtype": buf.dtype.name,
         "shape": list(buf.shape), "written": True, "workspace": True}
        for buf, _ in t.workspaces]
    return launch
