"""The entry of TileLang's current front end: a @tilemlir.jit function
whose body is itself the kernel.

    @tilemlir.jit
    def matmul(A, B, block_M, block_N, block_K, dtype=T.float16):
        M, N, K = T.const("M, N, K")
        A: T.Tensor((M, K), dtype)
        B: T.Tensor((K, N), dtype)
        C = T.empty((M, N), dtype)
        with T.Kernel(...) as (bx, by):
            ...
        return C

The parameters annotated as tensors (in the body or the signature) are the
kernel's inputs, the T.empty tensors it returns are its outputs, the other
parameters are compile-time Python values, and the T.const names are shape
constants: each compile has them all bound to integers, so the kernel is
specialized to its shapes. A probe translates the statements that declare
the tensor parameters with the unbound constants as placeholders, to learn
which tensor dimension each constant is, so that calling with tensors can
bind them from their shapes.
"""

import ast
import inspect
import re

from .. import language as T
from .ir import Buffer, Value
from ..errors import TileCompileError
from . import dtypes
from .frame import Frame
from .parser import Translator


class ConstPlaceholder(T.DynamicDim):
    """An unbound T.const while probing; arithmetic on it gives a derived
    placeholder, which takes no value from a tensor's shape."""

    def __init__(self, name, bindable=True):
        super().__init__(name)
        self.bindable = bindable

    def _derived(self, op, other, reverse=False):
        a, b = (other, self) if reverse else (self, other)
        return ConstPlaceholder(f"({a} {op} {b})", bindable=False)

    def __repr__(self):
        return self.name

    def __add__(self, o): return self._derived("+", o)  # noqa: E704
    def __radd__(self, o): return self._derived("+", o, True)  # noqa: E704
    def __sub__(self, o): return self._derived("-", o)  # noqa: E704
    def __rsub__(self, o): return self._derived("-", o, True)  # noqa: E704
    def __mul__(self, o): return self._derived("*", o)  # noqa: E704
    def __rmul__(self, o): return self._derived("*", o, True)  # noqa: E704
    def __floordiv__(self, o): return self._derived("//", o)  # noqa: E704
    def __rfloordiv__(self, o): return self._derived("//", o, True)  # noqa: E704
    def __mod__(self, o): return self._derived("%", o)  # noqa: E704
    def __neg__(self): return ConstPlaceholder(f"-{self}", bindable=False)  # noqa: E704


class _Fn:
    """What the Translator needs of a prim_func: the Python function."""

    def __init__(self, fn):
        self.fn = fn
        self.__name__ = fn.__name__


def _split_names(text):
    return [n for n in re.split(r"[\s,]+", text.strip()) if n]


class CurrentTranslator(Translator):
    """Translates a current-style kernel. `values` are the Python values of
    the parameters that are not tensors, `consts` the integer values of the
    T.const names (missing ones are an error, or placeholders when
    probing). A probe (`probe`: the names of the tensor parameters) stops
    where they are all declared, or at the first `with` or loop."""

    def __init__(self, fn, values, consts, probe=None):
        super().__init__(_Fn(fn))
        self.values = values
        self.consts = consts
        self.probe = probe  # None: not probing
        self.probing = probe is not None
        self.const_nodes = {}  # T.const name -> the call that declares it
        self.inputs = {}  # tensor parameter -> (TensorSpec, Buffer, node)
        self.outputs = {}  # T.empty name -> (TensorSpec, Buffer, node)
        self.dyn_objects = {}  # SSA name of a T.dynamic dim's size -> the T.dynamic
        self.returned = None  # the names of the returned outputs, in order
        self.param_names = list(inspect.signature(fn).parameters)

    # ------------------------------------------------------------ entry point

    def translate(self):
        self.scopes[0].vars.update(self.values)
        for name, p in inspect.signature(self.fn).parameters.items():
            if isinstance(p.annotation, T.TensorSpec):
                self.declare_input(name, p.annotation, self.func_def)
        for stmt in self.func_def.body:
            if self.probing and (set(self.probe) <= set(self.inputs) or
                                 isinstance(stmt, (ast.With, ast.For, ast.While))):
                break
            self.stmt(stmt)
        return None if self.probing else self.module()

    def module(self):
        for name, (_, _, node) in self.outputs.items():
            if name not in (self.returned or ()):
                raise self.error(f"output '{name}' made with T.empty is not returned; "
                                 f"end the function with `return {name}`", node)
        self.order = [n for n in self.param_names if n in self.inputs] + \
            list(self.returned or ())
        args = []
        for name in self.order:
            _, buf, node = self.inputs.get(name) or self.outputs[name]
            args.append(f"{buf.ssa}: {buf.memref_type()} {self.loc(node)}")
        body = "\n".join(self.b.lines)
        loc = self.loc(self.func_def)
        return (f"module {{\n  func.func @{self.fn.__name__}({', '.join(args)}) {{\n{body}\n"
                f"    return {loc}\n  }} {loc}\n}} {loc}\n")

    def params_meta(self):
        """The bundle's "params" (inputs, then the returned outputs); a
        T.dynamic dimension is its name."""
        meta = []
        for name in self.order:
            spec, buf, _ = self.inputs.get(name) or self.outputs[name]
            meta.append({"name": name, "kind": "tensor", "dtype": buf.dtype.name,
                         "shape": [T.shape_entry(d) for d in spec.shape],
                         "written": name in self.written or name in self.outputs})
            if spec.strides is not None:
                meta[-1]["strides"] = T.stride_entries(spec)
        return meta

    def lookup(self, name, node):
        # A T.dynamic made in the body is the size of the tensor it shapes.
        return self.resolve_python(super().lookup(name, node))

    # ---------------------------------------------------------- declarations

    def declare_input(self, name, spec, node):
        if name not in self.param_names:
            raise self.error(f"'{name}' is annotated as a tensor but is not a parameter of "
                             f"'{self.fn.__name__}'; make outputs with T.empty(shape, dtype)",
                             node)
        if name in self.inputs:
            raise self.error(f"tensor parameter '{name}' is annotated twice", node)
        if self.kernel is not None:
            raise self.error(f"annotate tensor parameter '{name}' before `with T.Kernel`", node)
        self.check_packed_extent(spec.dtype, spec.shape, f"tensor parameter '{name}'", node)
        strides = None
        if spec.strides is not None:
            strides = [s if isinstance(s, int) else None for s in spec.strides]
            if not self.probing and any(not isinstance(s, (int, T.DynamicDim))
                                        for s in spec.strides):
                raise self.error(f"the strides of tensor parameter '{name}' are "
                                 f"{spec.strides!r}; strides are integers or T.dynamic dims",
                                 node)
        buf = Buffer(f"%{name}", spec.shape, spec.dtype, "global", name, strides)
        if not self.probing:
            for d, dim in enumerate(spec.shape):
                if isinstance(dim, ConstPlaceholder) or not isinstance(dim, (int, T.DynamicDim)):
                    raise self.error(f"the shape of tensor parameter '{name}' has {dim!r}; "
                                     "shapes are integers, T.const names and T.dynamic dims",
                                     node)
                if isinstance(dim, T.DynamicDim):
                    buf.shape[d] = self.dynamic_size(dim, buf, d, node)
        self.inputs[name] = (spec, buf, node)
        self.scopes[0].vars[name] = buf

    def dynamic_size(self, dim, buf, d, node):
        """The size of T.dynamic `dim`: dimension `d` of `buf` where it is
        first met."""
        if isinstance(dim, T.DimExpr):
            return self.dim_expr_size(dim, buf, d, buf.memref_type(), node)
        if id(dim) not in self.dyn_values:
            c = self.const_index(d, node)
            v = self.b.fresh(dim.name)
            self.b.emit(f"{v} = memref.dim {buf.ssa}, {c.ssa} : {buf.memref_type()}",
                        self.loc(node))
            self.dyn_values[id(dim)] = Value(v, "index", sym=dim.name)
            self.dyn_objects[v] = dim
        return self.dyn_value(dim, node)

    def stmt_AnnAssign(self, node):
        if node.value is not None:
            return super().stmt_AnnAssign(node)
        ann = self.expr(node.annotation)
        if not isinstance(ann, T.TensorSpec):
            raise self.error(f"a declaration without a value annotates a tensor parameter "
                             f"(A: T.Tensor(shape, dtype)), not {ann!r}", node)
        if not isinstance(node.target, ast.Name):
            raise self.error("only a parameter's name can be annotated as a tensor", node)
        self.declare_input(node.target.id, ann, node)

    def stmt_Return(self, node):
        if self.macro_depth and self.scopes[-1].kind == "macro":
            return super().stmt_Return(node)
        if self.kernel is not None or len(self.scopes) > 1:
            raise self.error("return the outputs at the end of the function, after "
                             "`with T.Kernel`", node)
        value = node.value
        items = value.elts if isinstance(value, (ast.Tuple, ast.List)) else [value]
        names = []
        for it in items:
            if it is None:
                continue
            buf = self.expr(it)
            name = getattr(buf, "name", None)
            if not isinstance(buf, Buffer) or name not in self.outputs:
                raise self.error("the function returns its outputs: tensors made with "
                                 "T.empty(shape, dtype)", it)
            if name in names:
                raise self.error(f"output '{name}' is returned twice", it)
            names.append(name)
        self.returned = names

    # -------------------------------------------------------------- T. calls

    def expr_Call(self, node):
        if self.expr(node.func) is T.Tensor:  # an annotation: errors at its line
            args = [self.expr(a) for a in node.args]
            kwargs = self.call_kwargs(node)
            return self.tensor_spec(node, *args, **kwargs)
        return super().expr_Call(node)

    def expr_Subscript(self, node):
        if self.expr(node.value) is T.Tensor:
            key = self.expr(node.slice)
            if isinstance(key, tuple) and len(key) == 2 and isinstance(key[1],
                                                                       (dtypes.DType, str)):
                return self.tensor_spec(node, *key)
            return self.tensor_spec(node, key)
        return super().expr_Subscript(node)

    def tensor_spec(self, node, shape=None, dtype="float32", *rest, **kwargs):
        if shape is None or rest or kwargs:
            raise self.error("T.Tensor takes a shape and a dtype: T.Tensor((M, K), dtype)",
                             node)
        try:
            return T.TensorSpec(shape, dtype)
        except TypeError as e:
            raise self.error(str(e), node) from None

    def call_const(self, node):
        a = self._args(node, ["name", "dtype"], {"dtype": "int32"})
        if not isinstance(a["name"], str) or not _split_names(a["name"]):
            raise self.error("T.const takes the constants' names in a string: "
                             "T.const(\"M, N, K\")", node)
        if self.kernel is not None:
            raise self.error("declare the constants with T.const before `with T.Kernel`", node)
        dt = self.dtype(a["dtype"], node)
        if not dt.mlir.startswith("i"):
            raise self.error(f"shape constants are integers, not {dt.name}", node)
        values = []
        for name in _split_names(a["name"]):
            if not name.isidentifier():
                raise self.error(f"'{name}' is not a valid constant name", node)
            if name in self.const_nodes:
                raise self.error(f"constant '{name}' is declared twice", node)
            self.const_nodes[name] = node
            if self.probing:
                # Even a given constant: the call's shapes are checked by name.
                values.append(ConstPlaceholder(name))
            elif name in self.consts:
                v = self.consts[name]
                if isinstance(v, bool) or not isinstance(v, int):
                    raise self.error(f"constant '{name}' is given {v!r}; shape constants are "
                                     "integers", node)
                values.append(v)
            else:
                raise self.error(f"constant '{name}' has no value: pass it to .compile("
                                 f"{name}=...) or call '{self.fn.__name__}' with tensors whose "
                                 "shapes fix it", node)
        return values[0] if len(values) == 1 else tuple(values)

    def call_empty(self, node):
        args = [self.expr(a) for a in node.args]
        kwargs = self.call_kwargs(node)
        dtype = kwargs.pop("dtype", None)
        if kwargs:
            raise self.error(f"unexpected argument(s) of T.empty: {', '.join(kwargs)}", node)
        if len(args) == 1 and isinstance(args[0], (tuple, list)):
            shape = args[0]
        elif len(args) == 2 and isinstance(args[0], (tuple, list)) and dtype is None:
            shape, dtype = args
        else:
            shape = args
        if self.kernel is not None:
            raise self.error("T.empty makes an output of the function: call it before "
                             "`with T.Kernel`; inside a kernel use T.alloc_shared / "
                             "T.alloc_fragment", node)
        name = self._target_name(node)
        if name is None:
            raise self.error("assign T.empty(...) to a name: C = T.empty(shape, dtype)", node)
        if name in self.param_names or name in self.outputs:
            raise self.error(f"output '{name}' has the name of a parameter or another output",
                             node)
        shape = [self.dyn_objects.get(d.ssa, d) if isinstance(d, Value) else d
                 for d in ((shape,) if not isinstance(shape, (tuple, list)) else shape)]
        try:
            spec = T.TensorSpec(shape, dtype if dtype is not None else "float32")
        except TypeError as e:
            raise self.error(f"T.empty: {e}", node) from None
        self.check_packed_extent(spec.dtype, spec.shape, f"T.empty output '{name}'", node)
        buf = Buffer(f"%{name}", spec.shape, spec.dtype, "global", name)
        for d, dim in enumerate(spec.shape):
            if isinstance(dim, T.DynamicDim) and not self.probing:
                if id(dim) not in self.dyn_values:
                    raise self.error(f"T.empty: dimension {dim.name} is no dimension of the "
                                     "tensor parameters; an output's sizes are integers, "
                                     "T.const names and the inputs' T.dynamic dims", node)
                buf.shape[d] = self.dyn_value(dim, node)
        self.outputs[name] = (spec, buf, node)
        return buf


def _function_def(fn):
    """The AST of `fn`'s definition, or None where its source is not at hand."""
    try:
        return Frame(fn).func_def
    except (TileCompileError, OSError, TypeError):
        return None


def _name_of(node):
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", None)


def _names_language(node, fn):
    """Whether `node` is a name that `fn` sees as tilemlir.language (`T`),
    so that T.empty is told from np.empty."""
    if not isinstance(node, ast.Name):
        return False
    closure = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    if node.id in closure:
        try:
            return closure[node.id].cell_contents is T
        except ValueError:
            return False
    return fn.__globals__.get(node.id) is T


def is_current_style(fn):
    """Whether `fn` is itself a kernel rather than a factory of one: it
    defines no @T.prim_func, and has tensor annotations (in its signature or
    as top-level declarations), calls T.const or T.empty, or opens a
    `with T.Kernel(...)` at its top level."""
    func_def = _function_def(fn)
    if not isinstance(func_def, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    for node in ast.walk(func_def):
        if node is not func_def and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                and any(_name_of(d) == "prim_func" for d in node.decorator_list):
            return False
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in ("const", "empty") and _names_language(node.func.value, fn):
            return True
    for stmt in func_def.body:
        if isinstance(stmt, ast.AnnAssign) and stmt.value is None:
            return True
        if isinstance(stmt, ast.With):
            call = stmt.items[0].context_expr
            if isinstance(call, ast.Call) and _name_of(call.func) == "Kernel":
                return True
    return any(isinstance(p.annotation, T.TensorSpec)
               for p in inspect.signature(fn).parameters.values())


def tensor_parameters(fn):
    """The parameters of a current-style kernel that are tensors, in order:
    annotated as T.Tensor in the signature, or by a top-level declaration
    without a value (`A: T.Tensor(...)`) in the body."""
    func_def = _function_def(fn)
    declared = set()
    for stmt in func_def.body if func_def is not None else ():
        if isinstance(stmt, ast.AnnAssign) and stmt.value is None and \
                isinstance(stmt.target, ast.Name):
            declared.add(stmt.target.id)
    return [name for name, p in inspect.signature(fn).parameters.items()
            if name in declared or isinstance(p.annotation, T.TensorSpec)]


__all__ = ["CurrentTranslator", "ConstPlaceholder", "is_current_style", "tensor_parameters"]
