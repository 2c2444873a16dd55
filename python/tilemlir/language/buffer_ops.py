"""The T. calls that make buffers of special kinds, or other views of
buffers: reducers (T.alloc_reducer, T.reducer_init / update,
T.finalize_reducer), views of global tensors (T.reshape, T.view), variables
(T.alloc_var), global workspaces (T.alloc_global), tensors at an address
(T.make_tensor of a T.ptr) and the region tests T.any_of / T.all_of.

Part of the Translator (parser.py), which mixes these classes in."""

import ast
import math

from .ir import Access, Buffer, Value


class BufferOpsMixin:
    # ------------------------------------------------------------ reducers

    _REDUCER_OPS = ("sum", "max", "min")

    def call_alloc_reducer(self, node):
        """A reduction buffer: a local buffer (each thread combines its loop
        iterations' contributions into its own copy) that T.finalize_reducer
        combines across the block."""
        a = self._args(node, ["shape", "dtype", "op", "replication"],
                       {"dtype": "float32", "op": "sum", "replication": None})
        op = a["op"]
        if op in ("bitand", "bitor", "bitxor"):
            raise self.error(f"T.alloc_reducer with op={op!r}: bitwise reducers are not "
                             "supported yet (sum, max and min are)", node)
        if op not in self._REDUCER_OPS:
            raise self.error(f"T.alloc_reducer op must be 'sum', 'max' or 'min', got {op!r}", node)
        # Where the copies live is the compiler's choice here: every thread
        # holds one, whatever the replication asked for.
        if a["replication"] not in (None, "all", "none"):
            raise self.error("T.alloc_reducer replication must be 'all' or 'none', got "
                             f"{a['replication']!r}", node)
        buf = self._new_buffer(node, "local", a["shape"], a["dtype"])
        buf.reducer = op
        return buf

    def _reducer_arg(self, x, node, what):
        buf = self._buffer_arg(x, node, what)
        if buf.reducer is None:
            raise self.error(f"{what} must be a buffer made by T.alloc_reducer, got "
                             f"'{buf.name}' ({buf.scope})", node)
        return buf

    def _check_reducer_update(self, buf, node):
        """Contributions to a reducer come from T.Parallel iterations, each
        run by one thread; a store elsewhere runs in every thread and would
        be combined once per thread."""
        if not any(scope.parallel for scope in self.scopes):
            raise self.error(f"the reducer '{buf.name}' is updated outside a T.Parallel loop, where "
                             "every thread would contribute; update it inside T.Parallel (or "
                             "start it with T.clear / T.fill / T.reducer_init)", node)

    def _reducer_identity(self, buf, node):
        t = buf.dtype.mlir
        if buf.reducer == "sum":
            return self.const(0.0 if buf.dtype.is_float else 0, t, node)
        sign = -1 if buf.reducer == "max" else 1
        if buf.dtype.is_float:
            return self.const(sign * float("inf"), t, node)
        bits = buf.dtype.bits
        return self.const(-(1 << (bits - 1)) if sign < 0 else (1 << (bits - 1)) - 1, t, node)

    def _control_context(self):
        """The loops and branches around the current statement in the kernel
        (where a reducer epoch opens and must close)."""
        return tuple((scope.kind, id(scope)) for scope in self.scopes
                     if scope.kind in ("loop", "if"))

    def check_reducer_epoch(self, buf, what, node):
        """Between T.reducer_init and T.finalize_reducer a reducer holds each
        thread's partial: only T.reducer_update may touch it (`what`: the
        access, "read" or "store to")."""
        if buf.reducer_epoch is not None and not self.in_reducer_update:
            line = buf.reducer_epoch[1].lineno
            raise self.error(f"illegal {what} reducer '{buf.name}' between its T.reducer_init "
                             f"(line {line}) and T.finalize_reducer: update it with "
                             "T.reducer_update, read it after T.finalize_reducer", node)

    def check_reducers_finalized(self, node):
        """At the end of a kernel: every reducer epoch was closed."""
        for buf in self.open_reducers:
            if buf.reducer_epoch is not None:
                raise self.error(f"the reducer '{buf.name}' opened by T.reducer_init at line "
                                 f"{buf.reducer_epoch[1].lineno} is never finalized "
                                 "(T.finalize_reducer)", buf.reducer_epoch[1])
        self.open_reducers = []

    def call_reducer_init(self, node):
        """Opens a reduction: the copies start from the op's identity; `init`
        is combined into each result once, when it is finalized."""
        a = self._args(node, ["reducer", "init"], {"init": None})
        buf = self._reducer_arg(a["reducer"], node, "T.reducer_init's reducer")
        t = buf.dtype.mlir
        if buf.reducer_epoch is not None:
            raise self.error(f"double T.reducer_init of reducer '{buf.name}': the one at line "
                             f"{buf.reducer_epoch[1].lineno} is not finalized yet", node)
        init_type = self.type_of(a["init"]) if a["init"] is not None else None
        if init_type is not None and init_type != t:
            raise self.error(f"the T.reducer_init value's dtype ({init_type}) does not match "
                             f"reducer '{buf.name}' ({t})", node)
        buf.reducer_epoch = (self._control_context(), node)
        self.open_reducers.append(buf)
        identity = self._reducer_identity(buf, node)
        self.b.emit(f"tile.fill {buf.ssa}, {identity.ssa} : {buf.memref_type()}, {t}",
                    self.loc(node))
        buf.reducer_seed = None
        if a["init"] is not None:
            buf.reducer_seed = self.convert(self.value(a["init"], node, t), t, node)

    def call_reducer_update(self, node):
        """Combines `value` into the element `acc[indices]` of a reducer."""
        a = self._args(node, ["target", "value"])
        target = a["target"]
        if not isinstance(target, Access) or not target.is_element:
            raise self.error("T.reducer_update needs an element of a reducer, such as acc[i]", node)
        buf = self._reducer_arg(target.buffer, node, "T.reducer_update's target")
        if buf.reducer_epoch is None:
            raise self.error(f"T.reducer_update of reducer '{buf.name}' before T.reducer_init "
                             "(which opens its reduction)", node)
        self.in_reducer_update = True
        try:
            old = self.load(target, node)
            if buf.reducer == "sum":
                new = self.binop(ast.Add(), old, a["value"], node)
            else:
                new = self.minmax(buf.reducer, [old, a["value"]], node)
            self.store(target, new, node)
        finally:
            self.in_reducer_update = False

    def call_finalize_reducer(self, node):
        """Combines the copies of a reducer across the block (in place), or,
        given `dst`, into the fragment `dst`."""
        a = self._args(node, ["reducer", "dst", "batch", "annotations"],
                        {"dst": None, "batch": 1, "annotations": None})
        buf = self._reducer_arg(a["reducer"], node, "T.finalize_reducer's reducer")
        if buf.reducer_epoch is not None:
            # The finalize runs once per init: in the init's loops and
            # branches, or in a branch nested in them.
            opened = buf.reducer_epoch[0]
            here = self._control_context()
            if here[:len(opened)] != opened or any(k != "if" for k, _ in here[len(opened):]):
                raise self.error(f"T.finalize_reducer of '{buf.name}' is not in the scope of its "
                                 f"T.reducer_init (line {buf.reducer_epoch[1].lineno}): it must "
                                 "run once per init, in the same loops", node)
            buf.reducer_epoch = None
        batch = a["batch"]
        if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
            raise self.error(f"T.finalize_reducer: batch must be >= 1, got {batch!r}", node)
        # (A grouping of TileLang's collective; the result does not depend on it.)
        n = 1
        for d in buf.shape:
            n *= d
        if batch > n or n % batch:
            raise self.error(f"T.finalize_reducer: batch {batch} "
                             f"{'exceeds total output elements' if batch > n else 'must evenly divide'}"
                             f" the {n} elements of '{buf.name}'", node)
        seed = buf.reducer_seed
        text = f"tile.finalize_reducer {buf.reducer} {buf.ssa}"
        if seed is not None:
            text += f" seed {seed.ssa} : {buf.memref_type()}, {seed.type}"
        else:
            text += f" : {buf.memref_type()}"
        self._writes(buf)
        self.b.emit(text, self.loc(node))
        if a["dst"] is not None:
            dst = self._buffer_arg(a["dst"], node, "T.finalize_reducer's destination")
            if dst.shape != buf.shape:
                raise self.error(f"T.finalize_reducer into '{dst.name}' of shape {dst.shape}: "
                                 f"the reducer '{buf.name}' has shape {buf.shape}", node)
            self._writes(dst)
            dims = ", ".join(map(str, buf.shape))
            zeros = self._offsets_text([0] * buf.ndim, node)
            self.b.emit(f"tile.copy {buf.ssa}{zeros} [{dims}] to {dst.ssa}{zeros} [{dims}] : "
                        f"{buf.memref_type()} to {dst.memref_type()}", self.loc(node))

    # ------------------------------------------------------------ views

    def call_reshape(self, node):
        a = self._args(node, ["src", "shape"])
        return self._view(node, "T.reshape", a["src"], a["shape"], None)

    def call_view(self, node):
        a = self._args(node, ["src", "shape", "dtype"], {"shape": None, "dtype": None})
        return self._view(node, "T.view", a["src"], a["shape"], a["dtype"])

    def _view(self, node, what, src, shape, dtype):
        """A buffer's memory seen with another shape (and, for shared
        buffers, element type) of as many bytes, row-major. Global tensors:
        memref.collapse_shape to one dimension, then memref.expand_shape;
        shared buffers: tile.view."""
        buf = self._buffer_arg(src, node, f"{what}'s source")
        dt = buf.dtype if dtype is None else self.dtype(dtype, node)
        old = buf.static_shape()
        if None in old:
            raise self.error(f"{what} of '{buf.name}', which has dynamic dimensions, is not "
                             "supported yet", node)
        if shape is None:
            shape = self._view_shape(what, buf, old, dt, node)
        shape = list((shape,) if isinstance(shape, int) else shape)
        if not all(isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in shape):
            raise self.error(f"{what} shapes must be positive compile-time integers, got {shape!r}",
                             node)
        old_bits, new_bits = buf.dtype.bits, dt.bits
        for d in old:
            old_bits *= d
        for d in shape:
            new_bits *= d
        if old_bits != new_bits:
            raise self.error(f"{what} of '{buf.name}' ({'x'.join(map(str, old))} {buf.dtype}, "
                             f"{old_bits} bits) as {'x'.join(map(str, shape))} {dt} ({new_bits} "
                             "bits): the sizes must match", node)
        if shape == old and dt == buf.dtype:
            return buf
        if buf.scope == "shared":
            return self._shared_view(buf, shape, dt, node)
        if dt != buf.dtype:
            raise self.error(f"{what} of '{buf.name}' from {buf.dtype} to {dt}: views of global "
                             "tensors that change the element type are not supported yet (views "
                             "of shared buffers are)", node)
        if buf.scope != "global":
            raise self.error(f"{what} of the {buf.scope} buffer '{buf.name}' is not supported yet "
                             "(views of global tensors and shared buffers are)", node)
        loc = self.loc(node)
        ssa, mtype = buf.ssa, buf.memref_type()
        n = 1
        for d in old:
            n *= d
        flat = Buffer(None, [n], dt, "global", buf.name)
        if len(old) > 1:
            groups = ", ".join(str(i) for i in range(len(old)))
            ssa, prev = self.b.fresh(buf.name), ssa
            self.b.emit(f"{ssa} = memref.collapse_shape {prev} [[{groups}]] : {mtype} into "
                        f"{flat.memref_type()}", loc)
        out = Buffer(self.b.fresh(buf.name), shape, dt, "global", buf.name)
        if len(shape) > 1:
            groups = ", ".join(str(i) for i in range(len(shape)))
            self.b.emit(f"{out.ssa} = memref.expand_shape {ssa} [[{groups}]] output_shape "
                        f"[{', '.join(map(str, shape))}] : {flat.memref_type()} into "
                        f"{out.memref_type()}", loc)
        else:
            out.ssa = ssa
        return out

    def _view_shape(self, what, buf, old, dt, node):
        """The shape of a view that gives only a dtype: the last dimension
        holds as many bytes."""
        if dt.bits == buf.dtype.bits:
            return list(old)
        last = old[-1] * buf.dtype.bits
        if last % dt.bits:
            raise self.error(f"{what} of '{buf.name}' ({'x'.join(map(str, old))} {buf.dtype}) as "
                             f"{dt} without a shape: the last dimension's {last} bits are not a "
                             f"whole number of {dt.bits}-bit elements (give the shape)", node)
        return list(old[:-1]) + [last // dt.bits]

    def _shared_view(self, buf, shape, dt, node):
        """tile.view: the shared buffer's bytes as another shared buffer."""
        if dt.bits < 8:
            raise self.error(f"a view of the shared buffer '{buf.name}' as {dt}: elements of "
                             "whole bytes only", node)
        out = Buffer(self.b.fresh(buf.name), shape, dt, "shared", buf.name)
        self.b.emit(f"{out.ssa} = tile.view {buf.ssa} : {buf.memref_type()} to "
                    f"{out.memref_type()}", self.loc(node))
        return out

    def call_alloc_var(self, node):
        """TileLang's T.alloc_var(dtype, init) / (dtype, scope) / (dtype,
        init, scope) / (dtype, init=..., scope=...): a one-element local
        buffer whose name reads as its value and whose assignments
        (`x = ...`, `x += ...`, also in loops and branches) store to it."""
        kw = self.call_kwargs(node)
        for k in kw:
            if k not in ("init", "scope", "dtype"):
                raise self.error(f"unexpected argument '{k}' of T.alloc_var", node)
        if node.args and "dtype" in kw:
            raise self.error("T.alloc_var's dtype is given twice", node)
        if not node.args and "dtype" not in kw:
            raise self.error("T.alloc_var needs a dtype", node)
        dtype = self.expr(node.args[0]) if node.args else kw["dtype"]
        rest = [self.expr(a) for a in node.args[1:]]
        init, scope = kw.get("init"), kw.get("scope", "local.var")
        if len(rest) == 1 and isinstance(rest[0], str) and init is None:
            scope = rest[0]
        elif len(rest) == 1:
            if init is not None:
                raise self.error("T.alloc_var's initializer is given twice", node)
            init = rest[0]
        elif len(rest) == 2:
            if init is not None:
                raise self.error("T.alloc_var's initializer is given twice", node)
            init, scope = rest
        elif len(rest) > 2:
            raise self.error("T.alloc_var takes a dtype, an initializer and a scope", node)
        if scope not in ("local.var", "local"):
            raise self.error(f"T.alloc_var in scope {scope!r} is not supported (local.var "
                             "holds one value per thread)", node)
        if self.kernel is None:
            raise self.error("T.alloc_var must be inside `with T.Kernel(...)`", node)
        dt = self.dtype(dtype, node)
        name = self._target_name(node) or "var"
        buf = Buffer(self.b.fresh(name), [1], dt, "local", name)
        buf.is_var = True
        self.b.emit(f"{buf.ssa} = tile.alloc_local : {buf.memref_type()}", self.loc(node))
        if init is None:
            init = False if dt.mlir == "i1" else 0  # TileLang's variables start at zero
        if init is not None:
            if dt.is_float and isinstance(init, (int, float)) and not isinstance(init, bool):
                lim = _largest_finite(dt)
                if math.isfinite(init) and abs(init) > lim:
                    raise self.error(f"the initializer {init!r} of T.alloc_var exceeds the "
                                     f"maximum of {dt.name} ({lim!r})", node)
            self.store(Access(buf, [0], node), init, node)
        return buf

    def _reduce_region(self, node, kind):
        """T.any_of / T.all_of: whether any / every element of a buffer or a
        region of one is non-zero (an i1)."""
        a = self._args(node, ["buffer"])
        buf, offsets, sizes = self._region(a["buffer"], node)
        if offsets is None:
            offsets = [0] * buf.ndim
        if sizes is None:
            sizes = buf.shape if isinstance(a["buffer"], Buffer) else [1] * buf.ndim
        if not all(isinstance(s, int) for s in sizes):
            raise self.error(f"T.{kind}_of needs a region of compile-time extents", node)
        total = 1
        for s in sizes:
            total *= s
        loc = self.loc(node)
        init = self.const(kind == "all", "i1", node)
        lb, ub, st = (self.const_index(k, node) for k in (0, total, 1))
        res, k, acc = self.b.fresh(f"{kind}_of"), self.b.fresh("k"), self.b.fresh("acc")
        self.b.open(f"{res} = scf.for {k} = {lb.ssa} to {ub.ssa} step {st.ssa} "
                    f"iter_args({acc} = {init.ssa}) -> (i1)")
        flat, items, stride = Value(k, "index"), [], total
        for off, s in zip(offsets, sizes):
            stride //= s
            i = self._arith("floordiv", flat, self.const_index(stride, node), "index", node) \
                if stride > 1 else flat
            if s < total:
                i = self._arith("truncmod", i, self.const_index(s, node), "index", node) \
                    if s > 1 else self.const_index(0, node)
            items.append(self.binop(ast.Add(), off, i, node))
        elem = self.convert(self.value(self.load(Access(buf, items, node), node), node), "i1",
                            node)
        new = self.logical("or" if kind == "any" else "and", Value(acc, "i1"), elem, node)
        self.b.emit(f"scf.yield {new.ssa} : i1", loc)
        self.b.close(loc)
        return Value(res, "i1")

    def call_any_of(self, node):
        return self._reduce_region(node, "any")

    def call_all_of(self, node):
        return self._reduce_region(node, "all")

    def call_alloc_global(self, node):
        """TileLang's T.alloc_global(shape, dtype): a global scratch tensor
        that the runtime allocates for each call (its contents undefined
        until written). It becomes a parameter of the kernel function after
        the program's own (the bundle marks it "workspace"); static shapes
        only."""
        a = self._args(node, ["shape", "dtype", "scope"], {"dtype": "float32",
                                                             "scope": "global"})
        if a["scope"] != "global":
            raise self.error(f"T.alloc_global allocates in scope 'global', got {a['scope']!r}",
                             node)
        shape = a["shape"]
        if isinstance(shape, int):
            shape = (shape,)
        if not isinstance(shape, (tuple, list)) or not all(
                isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in shape):
            raise self.error(f"T.alloc_global needs a shape of positive compile-time integers, "
                             f"got {shape!r}", node)
        dt = self.dtype(a["dtype"], node)
        name = self._target_name(node) or "workspace"
        buf = Buffer(self.b.fresh(name), list(shape), dt, "global", name)
        self.workspaces.append((buf, self.loc(node)))
        return buf

    def call_make_tensor(self, node):
        """TileLang's T.make_tensor(ptr, shape, dtype): the row-major global
        tensor at the address `ptr` (a T.ptr parameter, or an element of a
        T.Tensor(..., T.ptr) table of addresses). Sizes may be kernel
        values. Made outside T.Kernel, the tensor is made at the start of
        the next kernel's body (a tensor lives in the kernel here)."""
        a = self._args(node, ["ptr", "shape", "dtype", "strides"],
                       {"dtype": "float32", "strides": None})
        ptr = a["ptr"]
        if isinstance(ptr, Access) and ptr.is_element:
            ptr = self.load(ptr, node)
        if not isinstance(ptr, Value) or ptr.type != "i64":
            raise self.error("T.make_tensor needs an address: a T.ptr parameter or an element "
                             f"of a T.Tensor(..., T.ptr) table, got {ptr!r}", node)
        shape = a["shape"]
        shape = list(shape) if isinstance(shape, (tuple, list)) else [shape]
        dt = self.dtype(a["dtype"], node)
        sizes = []
        for d in shape:
            if isinstance(d, bool) or (isinstance(d, int) and d <= 0):
                raise self.error(f"T.make_tensor shapes take positive sizes, got {d!r}", node)
            sizes.append(d if isinstance(d, int) else
                         self.convert(self.value(d, node, "index"), "index", node))
        strides = a["strides"]
        if strides is not None:
            static = [d if isinstance(d, int) else None for d in shape]
            expect, run = [], 1
            for d in reversed(static):
                expect.insert(0, run)
                run = run * d if run is not None and d is not None else None
            if list(strides) != expect:
                raise self.error(f"T.make_tensor with strides {tuple(strides)!r}: tensors at an "
                                 "address are row-major here (strides "
                                 f"{tuple(expect)!r}); other strides are not supported", node)
        name = self._target_name(node) or "tensor"
        buf = Buffer(self.b.fresh(name), sizes, dt, "global", name)
        dyn = [d.ssa for d in sizes if isinstance(d, Value)]
        text = (f"{buf.ssa} = tile.make_tensor {ptr.ssa}"
                f"{'(' + ', '.join(dyn) + ')' if dyn else ''} : {buf.memref_type()}")
        loc = self.loc(node)
        if self.kernel is None:
            self.pending_tensors.append((text, loc))
        else:
            self.b.emit(text, loc)
        return buf


def _largest_finite(dt):
    """The largest finite value of float dtype `dt` (ml_dtypes, imported
    only here, knows bfloat16 and the float8 types)."""
    if dt.name in ("float16", "float32", "float64"):
        import numpy as np
        return float(np.finfo(dt.name).max)
    import ml_dtypes
    return float(ml_dtypes.finfo(dt.numpy).max)
