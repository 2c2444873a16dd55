"""The T. calls of thread-level code: thread and block indices, barriers,
warp votes, shuffles and matches, warp reductions, bit scans.

They become upstream ops (`gpu.thread_id`, `gpu.barrier`, `nvvm.vote.sync`,
`nvvm.shfl.sync`, `nvvm.match.sync`, `nvvm.barrier` with a reduction,
`nvvm.bar.warp.sync`): the tile dialect composes with upstream MLIR at the
thread level. The NVIDIA targets lower them; the CPU target, which runs a
block on one host thread, reports them at the user's line. Bit scans
(`T.__ffs`, `T.__fns`) are plain arithmetic and run everywhere.

Part of the Translator (parser.py), which mixes these classes in."""

import ast

from . import dtypes
from .ir import Access, Buffer, CommReducer, TypedConstant, Value
from .scalars import INT_TYPES as _INT_TYPES, is_float as _is_float

_FULL_MASK = 0xFFFFFFFF
_WARP = 32


class ThreadOpsMixin:
    # ------------------------------------------------------------ indices

    def _in_kernel(self, what, node):
        if self.kernel is None:
            raise self.error(f"{what} must be inside `with T.Kernel(...)`", node)

    def _thread_index(self, dim, node):
        """threadIdx along `dim` of the kernel's `threads` (a block of
        threads=(x, y, z) runs x * y * z threads numbered x fastest)."""
        self._in_kernel("T.get_thread_binding", node)
        dims = self.thread_dims
        if isinstance(dim, bool) or not isinstance(dim, int) or not 0 <= dim <= 2:
            raise self.error(f"the thread dimension must be 0, 1 or 2, got {dim!r}", node)
        if dim >= len(dims):
            return self.const_index(0, node)
        total = 1
        for d in dims:
            total *= d
        tid = self.b.fresh("tx")
        self.b.emit(f"{tid} = gpu.thread_id x upper_bound {total}", self.loc(node))
        v = Value(tid, "index")
        below = 1
        for d in dims[:dim]:
            below *= d
        if below > 1:
            v = self._index_op("floordiv", v, below, node)
        if dim < len(dims) - 1:
            v = self._index_op("rem", v, dims[dim], node)
        self.thread_index_dims[v.ssa] = dim
        return v

    def _index_op(self, name, v, k, node):
        # Thread indices are non-negative: C's remainder is their floormod.
        name = "truncmod" if name == "rem" else name
        return self._arith(name, v, self.const_index(k, node), "index", node)

    def call_get_thread_binding(self, node):
        a = self._args(node, ["dim"], {"dim": 0})
        return self._thread_index(a["dim"], node)

    def call_get_thread_bindings(self, node):
        self._args(node, [])
        return [self._thread_index(d, node) for d in range(3)]

    def call_get_block_binding(self, node):
        a = self._args(node, ["dim"], {"dim": 0})
        self._in_kernel("T.get_block_binding", node)
        dim, blocks = a["dim"], self.kernel[0]
        if isinstance(dim, bool) or not isinstance(dim, int) or not 0 <= dim <= 2:
            raise self.error(f"the block dimension must be 0, 1 or 2, got {dim!r}", node)
        return blocks[dim] if dim < len(blocks) else self.const_index(0, node)

    def call_get_block_bindings(self, node):
        self._args(node, [])
        self._in_kernel("T.get_block_bindings", node)
        blocks = self.kernel[0]
        return [blocks[d] if d < len(blocks) else self.const_index(0, node) for d in range(3)]

    def _warp_size_arg(self, a, node):
        """The warp_size argument of the T.get_*_idx calls: the NVIDIA warp
        (32) unless given."""
        ws = a["warp_size"]
        return _WARP if ws is None else self._size(ws, "warp_size", node)

    def call_get_lane_idx(self, node):
        a = self._args(node, ["warp_size"], {"warp_size": None})
        ws = self._warp_size_arg(a, node)
        return self._index_op("rem", self._thread_index(0, node), ws, node)

    def call_get_warp_idx(self, node):
        a = self._args(node, ["warp_size"], {"warp_size": None})
        ws = self._warp_size_arg(a, node)
        return self._index_op("floordiv", self._thread_index(0, node), ws, node)

    # The same value: every lane of a warp computes it from its thread index.
    call_get_warp_idx_sync = call_get_warp_idx

    def call_get_warp_group_idx(self, node):
        """The thread's warp group: warps_per_group (4) warps of warp_size."""
        a = self._args(node, ["warp_size", "warps_per_group"],
                       {"warp_size": None, "warps_per_group": None})
        ws = self._warp_size_arg(a, node)
        per = 4 if a["warps_per_group"] is None else \
            self._size(a["warps_per_group"], "warps_per_group", node)
        return self._index_op("floordiv", self._thread_index(0, node), ws * per, node)

    def call_shuffle_elect(self, node):
        """T.shuffle_elect(extent): true on one thread, the first, of each
        group of `extent` consecutive threads (of the block for 0)."""
        a = self._args(node, ["thread_extent"])
        extent = self._size(a["thread_extent"], "thread_extent", node, lo=0)
        tx = self._thread_index(0, node)
        lane = tx if extent == 0 else self._index_op("rem", tx, extent, node)
        return self.compare(ast.Eq(), lane, 0, node)

    # ----------------------------------------------------------- barriers

    def call_sync_threads(self, node):
        a = self._args(node, ["barrier_id", "arrive_count"],
                       {"barrier_id": None, "arrive_count": None})
        self._in_kernel("T.sync_threads", node)
        if a["barrier_id"] is None and a["arrive_count"] is None:
            self.b.emit("gpu.barrier", self.loc(node))
            return None
        parts = []
        if a["barrier_id"] is not None:
            parts.append(f"id = {self._i32(a['barrier_id'], node, 'the barrier id').ssa}")
        if a["arrive_count"] is not None:
            count = a["arrive_count"]
            if isinstance(count, int) and (count <= 0 or count % _WARP):
                raise self.error(f"T.sync_threads' arrive_count must be a positive multiple of "
                                 f"the warp size {_WARP}, got {count}", node)
            parts.append(f"number_of_threads = "
                         f"{self._i32(count, node, 'the arrive count').ssa}")
        self.b.emit(f"nvvm.barrier {' '.join(parts)}", self.loc(node))
        return None

    def call_sync_warp(self, node):
        a = self._args(node, ["mask"], {"mask": None})
        self._in_kernel("T.sync_warp", node)
        mask = self._mask(a["mask"], node)
        self.b.emit(f"nvvm.bar.warp.sync {mask.ssa} : i32", self.loc(node))
        return None

    def _barrier_reduce(self, node, kind, what):
        a = self._args(node, ["predicate"])
        self._in_kernel(f"T.{what}", node)
        pred = self._predicate(a["predicate"], node, what)
        word = self.convert(pred, "i32", node)
        ssa = self.b.fresh(kind)
        self.b.emit(f"{ssa} = nvvm.barrier #nvvm.reduction<{kind}> {word.ssa} -> i32",
                    self.loc(node))
        return Value(ssa, "i32")

    def call_syncthreads_count(self, node):
        return self._barrier_reduce(node, "popc", "syncthreads_count")

    def call_syncthreads_and(self, node):
        return self._barrier_reduce(node, "and", "syncthreads_and")

    def call_syncthreads_or(self, node):
        return self._barrier_reduce(node, "or", "syncthreads_or")

    # -------------------------------------------------------------- votes

    def _i32(self, x, node, what):
        if isinstance(x, bool) or self._not_an_integer(x):
            raise self.error(f"{what} must be an integer, got {x!r}", node)
        return self.convert(self.value(x, node, "i32"), "i32", node)

    def _mask(self, mask, node):
        if mask is None:
            mask = _FULL_MASK
        if isinstance(mask, int) and not isinstance(mask, bool):
            if not 0 <= mask <= _FULL_MASK:
                raise self.error(f"a lane mask holds 32 bits, got {mask:#x}", node)
            mask = mask - (1 << 32) if mask >= 1 << 31 else mask
        return self._i32(mask, node, "the lane mask")

    def _predicate(self, x, node, what):
        """`x` as an i1: TileLang's votes take integer or boolean predicates."""
        t = self.type_of(x)
        if isinstance(x, float) or (t is not None and _is_float(t)):
            raise self.error(f"T.{what} requires an integer or boolean predicate, got "
                             f"{t or 'a float'}", node)
        if isinstance(x, bool) or isinstance(x, int):
            return self.const(bool(x), "i1", node)
        if t == "index":
            x = self.convert(self.value(x, node), "i64", node)
        if not isinstance(x, (Value, Access, TypedConstant)):
            raise self.error(f"T.{what} requires an integer or boolean predicate, got {x!r}",
                             node)
        return self.convert(self.value(x, node), "i1", node)

    def _vote(self, node, kind, what, result, takes_mask=True):
        """T.any_sync / all_sync / ballot_sync (predicate, mask) and T.ballot
        (predicate, the whole warp)."""
        a = (self._args(node, ["predicate", "mask"], {"mask": None}) if takes_mask
             else self._args(node, ["predicate"]))
        self._in_kernel(f"T.{what}", node)
        pred = self._predicate(a["predicate"], node, what)
        mask = self._mask(a.get("mask"), node)
        ssa = self.b.fresh(kind)
        vtype = "i32" if kind == "ballot" else "i1"
        self.b.emit(f"{ssa} = nvvm.vote.sync {kind} {mask.ssa}, {pred.ssa} -> {vtype}",
                    self.loc(node))
        v = Value(ssa, vtype)
        if kind == "ballot":
            # TileLang widens ballots to 64 bits (the upper half zero on CUDA).
            ext = self.b.fresh("ballot64")
            self.b.emit(f"{ext} = arith.extui {ssa} : i32 to i64", self.loc(node))
            return Value(ext, "i64")
        return self.convert(v, result, node)

    def call_any_sync(self, node):
        return self._vote(node, "any", "any_sync", "i32")

    def call_all_sync(self, node):
        return self._vote(node, "all", "all_sync", "i32")

    def call_ballot_sync(self, node):
        return self._vote(node, "ballot", "ballot_sync", "i64")

    def call_ballot(self, node):
        return self._vote(node, "ballot", "ballot", "i64", takes_mask=False)

    def call_activemask(self, node):
        self._args(node, [])
        self._in_kernel("T.activemask", node)
        # The lanes that reach this point (activemask.b32, what CUDA's
        # __activemask reads).
        ssa = self.b.fresh("active")
        self.b.emit(f'{ssa} = llvm.call_intrinsic "llvm.nvvm.activemask"() : () -> i32',
                    self.loc(node))
        ext = self.b.fresh("active64")
        self.b.emit(f"{ext} = arith.extui {ssa} : i32 to i64", self.loc(node))
        return Value(ext, "i64")

    def _match(self, node, kind, what):
        a = self._args(node, ["value", "mask"], {"mask": None})
        self._in_kernel(f"T.{what}", node)
        x = a["value"]
        t = self.type_of(x) or "i32"
        if _is_float(t) or isinstance(x, float):
            raise self.error(f"T.{what} compares integers, got a {t} value", node)
        t = "i64" if t in ("i64", "index") else "i32"
        v = self.convert(self.value(x, node, t), t, node)
        mask = self._mask(a["mask"], node)
        ssa = self.b.fresh("match")
        rtype = "i32" if kind == "any" else "!llvm.struct<(i32, i1)>"
        self.b.emit(f"{ssa} = nvvm.match.sync {kind} {mask.ssa}, {v.ssa} : {t} -> {rtype}",
                    self.loc(node))
        if kind == "any":
            return Value(ssa, "i32")
        # match.all's mask is already 0 when the lanes disagree.
        out = self.b.fresh("match_mask")
        self.b.emit(f"{out} = llvm.extractvalue {ssa}[0] : !llvm.struct<(i32, i1)>",
                    self.loc(node))
        return Value(out, "i32")

    def call_match_any_sync(self, node):
        return self._match(node, "any", "match_any_sync")

    def call_match_all_sync(self, node):
        return self._match(node, "all", "match_all_sync")

    # ----------------------------------------------------------- shuffles

    def _shuffle_word(self, kind, word, lane, clamp, mask, node):
        ssa = self.b.fresh("shfl")
        self.b.emit(f"{ssa} = nvvm.shfl.sync {kind} {mask.ssa}, {word.ssa}, {lane.ssa}, "
                    f"{clamp.ssa} : {word.type} -> {word.type}", self.loc(node))
        return Value(ssa, word.type)

    def shuffle(self, kind, x, lane, width, mask, node):
        """`x` from the lane that `kind` (idx / down / up / bfly) and `lane`
        name within segments of `width` lanes, any scalar type: 32-bit
        values in one shfl.sync, narrower ones widened, 64-bit ones as two
        halves."""
        t = self.type_of(x)
        if t is None:
            t = "f32" if isinstance(x, float) else "i32"
        v = self.convert(self.value(x, node, t), t, node)
        lane = self._i32(lane, node, "the shuffle lane or offset")
        mask = self._mask(mask, node)
        if isinstance(width, int) and not isinstance(width, bool):
            if width not in (1, 2, 4, 8, 16, 32):
                raise self.error(f"the shuffle width must be a power of two up to 32, got "
                                 f"{width}", node)
            c = ((_WARP - width) << 8) | (0 if kind == "up" else 0x1F)
            clamp = self.const(c, "i32", node)
        else:
            w = self._i32(width, node, "the shuffle width")
            seg = self._arith("shl", self._arith("sub", self.const(_WARP, "i32", node), w,
                                                 "i32", node),
                              self.const(8, "i32", node), "i32", node)
            clamp = seg if kind == "up" else self._arith("or", seg, self.const(0x1F, "i32", node),
                                                         "i32", node)
        if t in ("i32", "f32"):
            return self._shuffle_word(kind, v, lane, clamp, mask, node)
        if t in ("f16", "bf16") or t.startswith("f8"):
            wide = self.convert(v, "f32", node)
            return self.convert(self._shuffle_word(kind, wide, lane, clamp, mask, node), t, node)
        if t in ("i1", "i8", "i16"):
            wide = self.convert(v, "i32", node)
            return self.convert(self._shuffle_word(kind, wide, lane, clamp, mask, node), t, node)
        # 64-bit: both halves from the same lane.
        bits = v
        if t == "f64":
            bits = self._bitcast(v, "i64", node)
        elif t == "index":
            bits = self.convert(v, "i64", node)
        lo = self._trunc(bits, node)
        hi = self._trunc(self._arith("shr", bits, self.const(32, "i64", node), "i64", node),
                         node)
        slo = self._shuffle_word(kind, lo, lane, clamp, mask, node)
        shi = self._shuffle_word(kind, hi, lane, clamp, mask, node)
        joined = self._arith("or", self._zext64(slo, node),
                             self._arith("shl", self._zext64(shi, node),
                                         self.const(32, "i64", node), "i64", node),
                             "i64", node)
        if t == "f64":
            return self._bitcast(joined, "f64", node)
        return self.convert(joined, t, node)

    def _bitcast(self, v, to, node):
        ssa = self.b.fresh("bits")
        self.b.emit(f"{ssa} = arith.bitcast {v.ssa} : {v.type} to {to}", self.loc(node))
        return Value(ssa, to)

    def _trunc(self, v, node):
        ssa = self.b.fresh("half")
        self.b.emit(f"{ssa} = arith.trunci {v.ssa} : i64 to i32", self.loc(node))
        return Value(ssa, "i32")

    def _zext64(self, v, node):
        ssa = self.b.fresh("wide")
        self.b.emit(f"{ssa} = arith.extui {v.ssa} : i32 to i64", self.loc(node))
        return Value(ssa, "i64")

    def _shfl_call(self, node, kind, lane_name, what):
        a = self._args(node, ["value", lane_name, "width", "mask"],
                       {"width": _WARP, "mask": None})
        self._in_kernel(f"T.{what}", node)
        return self.shuffle(kind, a["value"], a[lane_name], a["width"], a["mask"], node)

    def call_shfl_sync(self, node):
        return self._shfl_call(node, "idx", "srcLane", "shfl_sync")

    def call_shfl_xor(self, node):
        return self._shfl_call(node, "bfly", "delta", "shfl_xor")

    def call_shfl_down(self, node):
        return self._shfl_call(node, "down", "delta", "shfl_down")

    def call_shfl_up(self, node):
        return self._shfl_call(node, "up", "delta", "shfl_up")

    # ------------------------------------------------------ warp reduction

    def _warp_reduce(self, node, kind):
        a = self._args(node, ["value"])
        self._in_kernel(f"T.warp_reduce_{kind}", node)
        x = a["value"]
        t = self.type_of(x) or ("f32" if isinstance(x, float) else "i32")
        if kind in ("bitand", "bitor") and (t not in _INT_TYPES):
            raise self.error(f"T.warp_reduce_{kind} needs an integer value, got {t}", node)
        acc = self.convert(self.value(x, node, t), t, node)
        # A butterfly over the 32 lanes: every lane ends with the result.
        for offset in (16, 8, 4, 2, 1):
            other = self.shuffle("bfly", acc, offset, _WARP, None, node)
            if kind == "sum":
                acc = self._arith("add", acc, other, t, node)
            elif kind in ("max", "min"):
                acc = self.minmax(kind, [acc, other], node)
            else:
                acc = self._arith("and" if kind == "bitand" else "or", acc, other, t, node)
        return acc

    def call_warp_reduce_sum(self, node):
        return self._warp_reduce(node, "sum")

    def call_warp_reduce_max(self, node):
        return self._warp_reduce(node, "max")

    def call_warp_reduce_min(self, node):
        return self._warp_reduce(node, "min")

    def call_warp_reduce_bitand(self, node):
        return self._warp_reduce(node, "bitand")

    def call_warp_reduce_bitor(self, node):
        return self._warp_reduce(node, "bitor")

    # ------------------------------------------------ TVM's thread all-reduce

    def call_comm_reducer(self, node):
        """T.comm_reducer(lambda x, y: ..., [identity]): the combiner of a
        T.tvm_thread_allreduce, its lambda translated on kernel values."""
        if len(node.args) != 2 or node.keywords:
            raise self.error("T.comm_reducer takes a combiner lambda and a list of identities",
                             node)
        fn = node.args[0]
        if not isinstance(fn, ast.Lambda) or len(fn.args.args) != 2 or fn.args.vararg or \
                fn.args.kwarg or fn.args.kwonlyargs or fn.args.defaults:
            raise self.error("T.comm_reducer's combiner must be a lambda of two values "
                             "(`lambda x, y: x + y`); reducers of several values are not "
                             "supported", node.args[0])
        identity = self.expr(node.args[1])
        if not isinstance(identity, (list, tuple)) or len(identity) != 1:
            raise self.error("T.comm_reducer's identities must be a list of one value", node)
        return CommReducer(fn, identity[0])

    def _combine(self, reducer, x, y, t, node):
        """reducer's lambda on the kernel values x and y, as type `t`."""
        self.push("comprehension")
        try:
            for name, v in zip((a.arg for a in reducer.fn.args.args), (x, y)):
                self.scopes[-1].vars[name] = v
            r = self.expr(reducer.fn.body)
        finally:
            self.pop()
        if not isinstance(r, (Value, Access, TypedConstant, int, float)):
            raise self.error("T.comm_reducer's combiner must compute a scalar", reducer.fn)
        return self.convert(self.value(r, node, t), t, node)

    def with_attr(self, node, call):
        """`with T.attr(T.comm_reducer(...), "reduce_scope", ...):` (TVM's
        form around T.tvm_thread_allreduce): the body, with the reducer for
        the all-reduces in it."""
        if len(call.args) != 3 or call.keywords:
            raise self.error("T.attr takes a node, a key and a value", call)
        key = self.expr(call.args[1])
        if key != "reduce_scope":
            raise self.error(f"T.attr with key {key!r} is not supported; only TVM's "
                             "'reduce_scope' around T.tvm_thread_allreduce is", call)
        reducer = self.expr(call.args[0])
        if not isinstance(reducer, CommReducer):
            raise self.error("T.attr(..., 'reduce_scope', ...) needs a T.comm_reducer", call)
        self.reducers.append(reducer)
        try:
            self.stmts(node.body)
        finally:
            self.reducers.pop()

    def call_evaluate(self, node):
        """T.evaluate(expr): the expression for its effects."""
        if len(node.args) != 1 or node.keywords:
            raise self.error("T.evaluate takes one expression", node)
        self.expr(node.args[0])

    def call_tvm_thread_allreduce(self, node):
        """T.tvm_thread_allreduce(1, value, True, out, *thread_indices): every
        thread combines `value` over the threads that differ from it only in
        the given thread indices (T.get_thread_binding values) with the
        reducer of the enclosing `T.attr(..., "reduce_scope", ...)`, and
        stores the result into the element `out`."""
        self._in_kernel("T.tvm_thread_allreduce", node)
        for k in node.keywords:
            if k.arg != "dtype":
                raise self.error(f"unexpected argument '{k.arg}'", node)
        if not self.reducers:
            raise self.error("T.tvm_thread_allreduce must be inside `with T.attr(T.comm_reducer("
                             "...), \"reduce_scope\", ...)`", node)
        reducer = self.reducers[-1]
        args = [self.expr(a) for a in node.args]
        size = args[0].value if args and isinstance(args[0], TypedConstant) else \
            (args[0] if args else None)
        if len(args) < 5 or size != 1:
            raise self.error("T.tvm_thread_allreduce takes (1, value, True, out, thread "
                             "index, ...): all-reduces of several values are not supported",
                             node)
        value, cond, out, indices = args[1], args[2], args[3], args[4:]
        if cond is not True:
            raise self.error("T.tvm_thread_allreduce's condition must be True", node)
        if not isinstance(out, Access) or not out.is_element:
            raise self.error("T.tvm_thread_allreduce's result must be a buffer element", node)
        dims = list(self.thread_dims) + [1] * (3 - len(self.thread_dims))
        reduced = []
        for i in indices:
            d = self.thread_index_dims.get(i.ssa) if isinstance(i, Value) else None
            if d is None:
                raise self.error("T.tvm_thread_allreduce reduces over thread indices of "
                                 "T.get_thread_binding", node)
            if d not in reduced:
                reduced.append(d)
        t = out.buffer.dtype.mlir
        acc = self.convert(self.value(value, node, t), t, node)
        strides = [1, dims[0], dims[0] * dims[1]]
        total = dims[0] * dims[1] * dims[2]
        if total % _WARP == 0 and all(dims[d] & (dims[d] - 1) == 0 and
                                      strides[d] & (strides[d] - 1) == 0 for d in reduced):
            # The group's threads differ in the bits of `masks`: a butterfly
            # over those within a warp, then the warps' partials meet in
            # shared memory.
            masks = [strides[d] << b for d in reduced for b in range(dims[d].bit_length() - 1)]
            for m in (m for m in masks if m < _WARP):
                acc = self._combine(reducer, acc, self.shuffle("bfly", acc, m, _WARP, None, node),
                                    t, node)
            parts = [(m, 2) for m in masks if m >= _WARP]
        else:
            parts = [(strides[d], dims[d]) for d in reduced]
        if parts:
            acc = self._combine_through_shared(reducer, acc, t, total, parts, node)
        self.store(out, acc, node)

    def _combine_through_shared(self, reducer, acc, t, total, parts, node):
        """Each thread's value into a shared array at its thread index, then
        each thread combines (in index order) those of the threads whose
        index differs from its own by c * stride, c < extent, for each
        (stride, extent) of `parts`, between block barriers."""
        dt = next(d for d in dtypes.ALL if d.mlir == t and d.kind != "bool")
        buf = Buffer(self.b.fresh("allreduce"), (total,), dt, "shared", "allreduce")
        self.b.emit(f"{buf.ssa} = tile.alloc_shared : {buf.memref_type()}", self.loc(node))
        tid = self.b.fresh("tx")
        self.b.emit(f"{tid} = gpu.thread_id x upper_bound {total}", self.loc(node))
        tid = Value(tid, "index")
        self.store(Access(buf, [tid], node), acc, node)
        self.b.emit("gpu.barrier", self.loc(node))
        base = tid
        offsets = [0]
        for stride, extent in parts:
            coord = self._index_op("rem", self._index_op("floordiv", tid, stride, node), extent,
                                   node)
            base = self._arith("sub", base, self._index_op("mul", coord, stride, node),
                               "index", node)
            offsets = [o + c * stride for c in range(extent) for o in offsets]
        result = None
        for o in sorted(offsets):
            at = base if o == 0 else self._arith("add", base, self.const_index(o, node),
                                                 "index", node)
            v = self.load(Access(buf, [at], node), node)
            result = v if result is None else self._combine(reducer, result, v, t, node)
        self.b.emit("gpu.barrier", self.loc(node))
        return result

    def call___ldg(self, node):
        """CUDA's __ldg (T.__ldg(x[i]) or T.__ldg(x, i)): the element's value,
        loaded as any other load (the read-only cache is the target's
        choice)."""
        a = self._args(node, ["load_or_buf", "index"], {"index": None})
        x, index = a["load_or_buf"], a["index"]
        if isinstance(x, Buffer):
            if index is None:
                raise self.error("T.__ldg(buffer, index) needs the index", node)
            index = list(index) if isinstance(index, (list, tuple)) else [index]
            x = Access(x, index, node)
        if not isinstance(x, Access) or not x.is_element or index is not None and \
                x.buffer is None:
            raise self.error("T.__ldg takes an element (T.__ldg(x[i])) or a buffer and an "
                             "index", node)
        return self.load(x, node)

    # ----------------------------------------------------------- bit scans

    def call___ffs(self, node):
        """CUDA's __ffs / __ffsll: the one-based position of the lowest set
        bit, 0 for 0 (an int32)."""
        a = self._args(node, ["value"])
        x = a["value"]
        t = self.type_of(x) or "i32"
        if t not in _INT_TYPES and t != "index":
            raise self.error(f"T.__ffs needs an integer value, got {t}", node)
        t = "i64" if t in ("i64", "index") else "i32"
        v = self.convert(self.value(x, node, t), t, node)
        tz = self.b.fresh("tz")
        self.b.emit(f"{tz} = math.cttz {v.ssa} : {t}", self.loc(node))
        one = self._arith("add", Value(tz, t), self.const(1, t, node), t, node)
        zero = self.const(0, t, node)
        is0 = self.compare_values("eq", v, zero, node)
        r = self.select(is0, zero, one, node)
        return self.convert(r, "i32", node)

    def call___fns(self, node):
        """CUDA's __fns(mask, base, offset): the position of the offset-th set
        bit of the 32-bit mask counting from bit `base` (inclusive) toward
        the top for offset > 0, toward bit 0 for offset < 0; for offset 0,
        base itself when its bit is set. 0xFFFFFFFF when there is none."""
        a = self._args(node, ["mask", "base", "offset"])
        mask = self._i32(a["mask"], node, "the mask of T.__fns")
        base = self._i32(a["base"], node, "the base of T.__fns")
        offset = self._i32(a["offset"], node, "the offset of T.__fns")
        loc = self.loc(node)
        c = {k: self.const(k, "i32", node).ssa for k in (0, 1, 31, 32, -1)}
        lb, ub, st = (self.const_index(k, node).ssa for k in (0, 32, 1))
        neg = self.b.fresh("neg")
        self.b.emit(f"{neg} = arith.cmpi slt, {offset.ssa}, {c[0]} : i32", loc)
        zoff = self.b.fresh("zoff")
        self.b.emit(f"{zoff} = arith.cmpi eq, {offset.ssa}, {c[0]} : i32", loc)
        negoff = self.b.fresh("negoff")
        self.b.emit(f"{negoff} = arith.subi {c[0]}, {offset.ssa} : i32", loc)
        absoff = self.b.fresh("absoff")
        self.b.emit(f"{absoff} = arith.select {neg}, {negoff}, {offset.ssa} : i32", loc)
        want = self.b.fresh("want")
        self.b.emit(f"{want} = arith.select {zoff}, {c[1]}, {absoff} : i32", loc)
        res, i, cnt, found = (self.b.fresh(n) for n in ("fns", "i", "cnt", "found"))
        self.b.open(f"{res}:2 = scf.for {i} = {lb} to {ub} step {st} iter_args({cnt} = {c[0]}, "
                    f"{found} = {c[-1]}) -> (i32, i32)")
        lines = [
            f"%s_ii = arith.index_cast {i} : index to i32",
            f"%s_dn = arith.subi {base.ssa}, %s_ii : i32",
            f"%s_up = arith.addi {base.ssa}, %s_ii : i32",
            f"%s_p = arith.select {neg}, %s_dn, %s_up : i32",
            f"%s_ge = arith.cmpi sge, %s_p, {c[0]} : i32",
            f"%s_le = arith.cmpi sle, %s_p, {c[31]} : i32",
            f"%s_in = arith.andi %s_ge, %s_le : i1",
            f"%s_first = arith.cmpi eq, %s_ii, {c[0]} : i32",
            f"%s_nz = arith.xori {zoff}, %s_true : i1",
            f"%s_scan = arith.ori %s_nz, %s_first : i1",
            f"%s_ok = arith.andi %s_in, %s_scan : i1",
            f"%s_pc = arith.select %s_in, %s_p, {c[0]} : i32",
            f"%s_sh = arith.shrui {mask.ssa}, %s_pc : i32",
            f"%s_b = arith.andi %s_sh, {c[1]} : i32",
            f"%s_b1 = arith.cmpi ne, %s_b, {c[0]} : i32",
            f"%s_set = arith.andi %s_ok, %s_b1 : i1",
            f"%s_inc = arith.extui %s_set : i1 to i32",
            f"%s_cnt = arith.addi {cnt}, %s_inc : i32",
            f"%s_reach = arith.cmpi eq, %s_cnt, {want} : i32",
            f"%s_none = arith.cmpi eq, {found}, {c[-1]} : i32",
            f"%s_hit0 = arith.andi %s_set, %s_reach : i1",
            f"%s_hit = arith.andi %s_hit0, %s_none : i1",
            f"%s_res = arith.select %s_hit, %s_p, {found} : i32",
        ]
        tag = self.b.fresh("fns")
        self.b.emit(f"{tag}_true = arith.constant true", loc)
        for line in lines:
            self.b.emit(line.replace("%s", tag), loc)
        self.b.emit(f"scf.yield {tag}_cnt, {tag}_res : i32, i32", loc)
        self.b.close(loc)
        return Value(f"{res}#1", "i32")

    def compare_values(self, pred, a, b, node):
        ssa = self.b.fresh("cmp")
        self.b.emit(f"{ssa} = arith.cmpi {pred}, {a.ssa}, {b.ssa} : {a.type}", self.loc(node))
        return Value(ssa, "i1")

    def call_thread_binding(self, node):
        """TIR's T.thread_binding(begin, end, thread="threadIdx.x") read as an
        expression in a kernel: the thread (or block) index it names."""
        args = [self.expr(x) for x in node.args]
        kw = self.call_kwargs(node)
        thread = kw.pop("thread", None)
        if thread is None and args and isinstance(args[-1], str):
            thread = args.pop()
        if kw:
            raise self.error(f"unexpected argument(s) of T.thread_binding: {', '.join(kw)}",
                             node)
        names = {"threadIdx.x": 0, "threadIdx.y": 1, "threadIdx.z": 2}
        blocks = {"blockIdx.x": 0, "blockIdx.y": 1, "blockIdx.z": 2}
        if thread in blocks:
            self._in_kernel("T.thread_binding", node)
            dim, idx = blocks[thread], self.kernel[0]
            return idx[dim] if dim < len(idx) else self.const_index(0, node)
        if thread not in names:
            raise self.error(f"T.thread_binding names threadIdx.x/y/z or blockIdx.x/y/z, got "
                             f"{thread!r}", node)
        return self._thread_index(names[thread], node)
