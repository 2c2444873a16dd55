"""The T. atomics: T.atomic_add / max / min (an element, a region or a
tile), T.atomic_addx2 / x4 (consecutive elements), and their
`return_prev=True` form, which gives the element's value from before the
update (TileLang's AtomicAddRet): a `memref.atomic_rmw` on that element,
executed once where the call stands.

Part of the Translator (parser.py), which mixes these classes in."""

import ast

from .ir import Access, Buffer, Value

# (float, signed, unsigned) memref.atomic_rmw kinds of each T.atomic_<kind>.
_RMW_KINDS = {"add": ("addf", "addi", "addi"),
              "max": ("maximumf", "maxs", "maxu"),
              "min": ("minimumf", "mins", "minu")}


class AtomicOpsMixin:
    def _atomic(self, node, kind):
        # use_tma (TileLang's bulk reduction of a shared tile on sm_90):
        # a hint; the elements are added atomically either way.
        extra = {"use_tma": False} if kind == "add" else {}
        a = self._args(node, ["dst", "value"],
                       {"memory_order": None, "return_prev": False, **extra})
        if "use_tma" in extra:
            self._flag(a["use_tma"], "use_tma", node)
        dst, value = a["dst"], a["value"]
        if self._flag(a["return_prev"], "return_prev", node):
            return self._atomic_element_prev(kind, dst, value, f"T.atomic_{kind}", node)
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
            if sizes is not None and value.ndim != buf.ndim:
                self._atomic_elementwise(kind, buf, offsets, sizes, value, node)
                return None
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
        return None

    def _atomic_element_prev(self, kind, dst, value, what, node):
        """One element's atomic update that gives back the element's old
        value (an SSA value of the element type)."""
        if not isinstance(dst, Access) or not dst.is_element:
            raise self.error(f"{what}(..., return_prev=True) gives the old value of one "
                             "element: its destination must be an element such as X[i, j], "
                             "not a region or a buffer", node)
        buf = dst.buffer
        if len(dst.items) != buf.ndim:
            raise self.error(f"'{buf.name}' has {buf.ndim} dimensions, indexed with "
                             f"{len(dst.items)}", node)
        if buf.scope not in ("global", "shared"):
            raise self.error(f"{what}(..., return_prev=True) updates global or shared memory; "
                             f"'{buf.name}' is a {buf.scope} buffer", node)
        dt = buf.dtype
        if dt.kind not in ("float", "int", "uint") or dt.bits < 16:
            raise self.error(f"{what}(..., return_prev=True) on {dt} elements of '{buf.name}' "
                             "is not supported: atomics take 16-, 32- and 64-bit numbers",
                             node)
        if isinstance(value, Access) and value.is_element:
            value = self.load(value, node)
        v = self.convert(self.value(value, node, dt.mlir), dt.mlir, node)
        idx = [self.convert(self.value(i, node, "index"), "index", node) for i in dst.items]
        rmw = _RMW_KINDS[kind][("float", "int", "uint").index(dt.kind)]
        self._writes(buf)
        old = self.b.fresh(f"{buf.name}_prev")
        self.b.emit(f"{old} = memref.atomic_rmw {rmw} {v.ssa}, {buf.ssa}"
                    f"[{', '.join(i.ssa for i in idx)}] : ({dt.mlir}, {buf.memref_type()}) "
                    f"-> {dt.mlir}", self.loc(node))
        return Value(old, dt.mlir)

    def _atomic_elementwise(self, kind, buf, offsets, sizes, tile, node):
        """A tile of lower rank than the target into a region with unit dims
        (T.atomic_add(dV[b, i:i+64, h, :], dv_shared)): one element atomic
        per element, as `for i, j in T.Parallel(...)` would write it (the
        tile op takes a tile of the target's rank)."""
        ivs = [self.b.fresh("i") for _ in tile.shape]
        self.b.open(f"tile.parallel ({', '.join(ivs)}) in "
                    f"({', '.join(map(str, tile.shape))})")
        spans = iter(Value(iv, "index") for iv, d in zip(ivs, tile.shape) if d != 1)
        idx = [o if size == 1 else self.binop(ast.Add(), o, next(spans), node)
               for o, size in zip(offsets, sizes)]
        v = self.b.fresh(tile.name)
        self.b.emit(f"{v} = memref.load {tile.ssa}[{', '.join(ivs)}] : {tile.memref_type()}",
                    self.loc(node))
        v = self.convert(Value(v, tile.dtype.mlir), buf.dtype.mlir, node)
        self.b.emit(f"tile.atomic_{kind} {buf.ssa}{self._offsets_text(idx, node)}, {v.ssa} : "
                    f"{buf.memref_type()}, {v.type}", self.loc(node))
        self.b.close(self.loc(node))

    def call_atomic_add(self, node):
        return self._atomic(node, "add")

    def call_atomic_max(self, node):
        return self._atomic(node, "max")

    def call_atomic_min(self, node):
        return self._atomic(node, "min")

    def _atomic_add_lanes(self, node, lanes):
        """T.atomic_addx2 / x4 (dst, value): `lanes` consecutive elements
        along the last dimension, from dst's and value's element on (or
        their regions of that extent), each added atomically; with
        return_prev=True, the old values as a vector of `lanes` elements."""
        a = self._args(node, ["dst", "value", "return_prev"],
                       {"return_prev": False, "memory_order": None})
        what = f"T.atomic_addx{lanes}"
        prev = self._flag(a["return_prev"], "return_prev", node)
        starts = []
        for role in ("dst", "value"):
            x = a[role]
            if not isinstance(x, Access):
                raise self.error(f"{what} needs buffer elements or regions, got "
                                 f"{x!r} as {role}", node)
            buf, offsets, sizes = self._region(x, node)
            if sizes is not None and (sizes[-1] != lanes or any(d != 1 for d in sizes[:-1])):
                raise self.error(f"{what}: the {role} region of '{buf.name}' must "
                                 f"be {lanes} elements along its last dimension, got "
                                 f"{'x'.join(map(str, sizes))}", node)
            starts.append((buf, offsets))
        (dbuf, doff), (vbuf, voff) = starts
        self._writes(dbuf)
        olds = []
        for k in range(lanes):
            def at(offsets):
                return offsets[:-1] + [self.binop(ast.Add(), offsets[-1], k, node)]
            v = self.load(Access(vbuf, at(voff), node), node)
            if prev:
                olds.append(self._atomic_element_prev("add", Access(dbuf, at(doff), node), v,
                                                      what, node))
                continue
            v = self.convert(v, dbuf.dtype.mlir, node)
            self.b.emit(f"tile.atomic_add {dbuf.ssa}{self._offsets_text(at(doff), node)}, "
                        f"{v.ssa} : {dbuf.memref_type()}, {v.type}", self.loc(node))
        if not prev:
            return None
        vt = f"vector<{lanes}x{dbuf.dtype.mlir}>"
        out = self.b.fresh(f"{dbuf.name}_prev")
        self.b.emit(f"{out} = vector.from_elements {', '.join(o.ssa for o in olds)} : {vt}",
                    self.loc(node))
        return Value(out, vt)

    def call_atomic_addx2(self, node):
        return self._atomic_add_lanes(node, 2)

    def call_atomic_addx4(self, node):
        return self._atomic_add_lanes(node, 4)
