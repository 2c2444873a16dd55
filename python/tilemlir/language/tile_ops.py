"""The T. calls that work on buffers and regions: allocations, copies, gemm,
fills, reductions, layout annotations and block swizzles.

Part of the Translator (parser.py), which mixes these classes in."""

import ast

from .. import language as T
from .. import layout as layout_mod
from .ir import Access, Buffer, LinExpr, TypedConstant, Value


class TileOpsMixin:
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

    # TileLang's storage scopes and the allocation each takes here
    # ("global" is a T.alloc_global workspace).
    _SCOPES = {"shared": "shared", "shared.dyn": "shared", "local.fragment": "fragment",
               "local": "local", "local.var": "local", "global": "global"}

    def _alloc(self, node, scope):
        a = self._args(node, ["shape", "dtype", "scope"], {"dtype": "float32", "scope": None})
        given = a["scope"]
        if given is not None:
            if not isinstance(given, str) or given not in self._SCOPES:
                known = ", ".join(repr(k) for k in self._SCOPES)
                raise self.error(f"unsupported buffer scope {given!r} (scopes: {known})", node)
            scope = self._SCOPES[given]
        if scope == "global":
            return self.call_alloc_global(node)
        return self._new_buffer(node, scope, a["shape"], a["dtype"])

    def call_alloc_buffer(self, node):
        """TIR's T.alloc_buffer(shape, dtype, scope="global")."""
        return self._alloc(node, "global")

    def _new_buffer(self, node, scope, shape, dtype):
        if isinstance(shape, int):
            shape = (shape,)
        if not isinstance(shape, (tuple, list)) or not all(
                isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in shape):
            raise self.error(f"buffer shapes must be positive compile-time integers, got {shape!r}",
                             node)
        if self.kernel is None:
            raise self.error(f"T.alloc_{scope} must be inside `with T.Kernel(...)`", node)
        dt = self.dtype(dtype, node)
        if scope == "shared":
            self.check_packed_extent(dt, shape, "shared buffer", node)
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

    # T.copy's prefer_instruction (also given as annotations=): "tma" and
    # "auto" leave the choice to the compiler (TMA where it can), the others
    # ask for copies by the threads.
    _COPY_INSTRUCTIONS = ("auto", "tma", "sync", "simt", "cp_async", "async")

    def call_copy(self, node):
        a = self._args(node, ["src", "dst"], {"coalesced_width": None, "disable_tma": False,
                                              "eviction_policy": None, "pad_value": None,
                                              "annotations": None, "loop_layout": None,
                                              "prefer_instruction": None})
        prefer = self._copy_annotations(a, node)
        if prefer not in (None, "auto", "tma"):
            a["disable_tma"] = True
        self._copy(a, node)

    def _copy_annotations(self, a, node):
        """The prefer_instruction of a T.copy / T.async_copy, given as an
        argument or in annotations= (whose other keys, hints to TileLang's
        own passes, change nothing here)."""
        ann = a["annotations"]
        if ann is not None and not isinstance(ann, dict):
            raise self.error(f"annotations must be a dict, got {ann!r}", node)
        prefer = a.get("prefer_instruction")
        if prefer is None and ann:
            prefer = ann.get("prefer_instruction")
        if prefer is not None and prefer not in self._COPY_INSTRUCTIONS:
            raise self.error(f"unknown prefer_instruction {prefer!r} (expected one of "
                             f"{', '.join(map(repr, self._COPY_INSTRUCTIONS))})", node)
        return prefer

    def _copy(self, a, node):
        """A T.copy of the bound arguments `a` (src, dst, pad_value,
        disable_tma)."""
        sbuf, soff, ssz = self._region(a["src"], node)
        dbuf, doff, dsz = self._region(a["dst"], node)
        for buf, what in ((sbuf, "read of"), (dbuf, "store to")):
            if buf.reducer is not None:
                self.check_reducer_epoch(buf, what, node)
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
                # One element to one element: an assignment (converted to
                # the destination's dtype).
                self.store(a["dst"], self.load(a["src"], node), node)
                return None
            ssz = ssz or infer(sbuf, soff, dsz)
            dsz = dsz or infer(dbuf, doff, ssz)
        # As in TileLang, both sides cover one tile: extents of 1 drop out
        # (A[i, 0:64] is a 64-tile), an element takes the other side's tile,
        # and regions whose other extents differ are rejected (never clipped),
        # except a global source region smaller than its on-chip target.
        ssz = self._widen_global_source(sbuf, ssz, dbuf, dsz)
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

    @staticmethod
    def _widen_global_source(sbuf, ssz, dbuf, dsz):
        """The source extents of a copy from a global region into an on-chip
        tile larger than the region along some dimensions: TileLang copies
        the tile's extents from the region's start (the split-KV decode
        copies the 125 keys of its split into a 128-row tile and masks the
        rest), so the region widens to the tile; rows past the tensor's end
        read the pad value as in any copy. Other extents are kept (the
        caller rejects a mismatch)."""
        if sbuf.scope != "global" or dbuf.scope == "global":
            return ssz
        src = [i for i, s in enumerate(ssz) if s != 1]
        dst = [s for s in dsz if s != 1]
        if len(src) != len(dst) or any(ssz[i] > d for i, d in zip(src, dst)):
            return ssz
        out = list(ssz)
        for i, d in zip(src, dst):
            out[i] = d
        return out

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
        if buf.reducer is not None:
            self.check_reducer_epoch(buf, "store to", node)
        self._writes(buf)
        buf.reducer_seed = None
        self.b.emit(f"tile.clear {buf.ssa} : {buf.memref_type()}", self.loc(node))

    def call_fill(self, node):
        a = self._args(node, ["buffer", "value"])
        buf = self._buffer_arg(a["buffer"], node, "T.fill's buffer")
        if buf.reducer is not None:
            self.check_reducer_epoch(buf, "store to", node)
        self._writes(buf)
        if buf.reducer in ("sum",) and a["value"] not in (0, 0.0):
            # Every thread's copy starts from the value: the result would
            # count it once per thread.
            raise self.error(f"T.fill of the sum reducer '{buf.name}' with {a['value']!r}: a sum "
                             "reducer starts at 0 (T.clear); give a starting value with "
                             f"T.reducer_init({buf.name}, value)", node)
        buf.reducer_seed = None
        v = self.convert(self.value(a["value"], node, buf.dtype.mlir), buf.dtype.mlir, node)
        self.b.emit(f"tile.fill {buf.ssa}, {v.ssa} : {buf.memref_type()}, {v.type}", self.loc(node))

    def _reduce(self, node, kind):
        a = self._args(node, ["buffer", "out", "dim", "clear"],
                       {"dim": -1, "clear": True, "nan_propagate": False, "batch": 1,
                        "annotations": None})
        # TileLang's batch= (outputs a batched all-reduce call handles) is a
        # hint for its barriers; the result is the same, and the lowering
        # here chooses its own exchange.
        self._size(a["batch"], "batch", node)
        if not isinstance(a["annotations"], (dict, type(None))):
            raise self.error(f"annotations must be a dict, got {a['annotations']!r}", node)
        src = self._buffer_arg(a["buffer"], node, "the reduced buffer")
        dst = self._buffer_arg(a["out"], node, "the output buffer")
        self._writes(dst)
        dim = a["dim"]
        if isinstance(dim, bool) or not isinstance(dim, int) or not -src.ndim <= dim < src.ndim:
            raise self.error(f"dim must be an integer in [{-src.ndim}, {src.ndim}), got {dim!r}",
                             node)
        dim %= src.ndim
        self._flag(a["clear"], "clear", node)
        # nan_propagate (max / min / absmax): any NaN makes the result NaN;
        # without it NaNs are skipped, as in TileLang.
        attrs = [] if a["clear"] else ["clear = false"]
        if self._flag(a["nan_propagate"], "nan_propagate", node):
            if kind not in ("max", "min", "absmax"):
                raise self.error(f"nan_propagate applies to T.reduce_max / min / absmax, not "
                                 f"T.reduce_{kind}", node)
            attrs.append("nan_propagate")
        clear = f" {{{', '.join(attrs)}}}" if attrs else ""
        if src.dtype != dst.dtype:
            src = self._widened_source(src, dst, node)
        self.b.emit(f"tile.reduce {kind} {src.ssa} into {dst.ssa} dim = {dim}{clear} : "
                    f"{src.memref_type()} into {dst.memref_type()}", self.loc(node))

    def _widened_source(self, src, dst, node):
        """A reduction into a wider dtype (f16 -> f32, i8 -> i32) accumulates
        in the wider one, as TileLang does: the source converted into a
        fragment of the destination's dtype (a whole-fragment copy, which
        keeps the source's layout) is what gets reduced."""
        s, d = src.dtype, dst.dtype
        if s.is_float != d.is_float or d.bits < s.bits:
            raise self.error(f"T.reduce of '{src.name}' ({s.name}) into '{dst.name}' ({d.name}): "
                             "the destination may only widen the source's dtype (f16 or bf16 "
                             "into f32, a narrower integer into a wider one)", node)
        if any(not isinstance(x, int) for x in src.shape):
            raise self.error(f"T.reduce into a wider dtype needs '{src.name}' of static shape",
                             node)
        wide = self._new_buffer(node, "fragment", list(src.shape), d)
        zeros = self._offsets_text([0] * src.ndim, node)
        sizes = ", ".join(map(str, src.shape))
        self.b.emit(f"tile.copy {src.ssa}{zeros} [{sizes}] to {wide.ssa}{zeros} [{sizes}] : "
                    f"{src.memref_type()} to {wide.memref_type()}", self.loc(node))
        return wide

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

    def _onchip_region(self, x, what, role, node):
        """(buffer, offsets, sizes) of the `role` argument of T.<what>, which
        takes an on-chip buffer or a region of one (slices)."""
        if not isinstance(x, (Buffer, Access)) or (isinstance(x, Access) and x.is_element):
            raise self.error(f"{what}'s {role} must be a buffer or a region of one "
                             f"(slices), got {x!r}", node)
        buf, offsets, sizes = self._region(x, node)
        if offsets is None:
            offsets, sizes = [0] * buf.ndim, list(buf.shape)
        if buf.scope == "global":
            raise self.error(f"{what} of the global tensor '{buf.name}': it works on shared, "
                             "fragment or local buffers (copy the tile in first)", node)
        return buf, offsets, sizes

    def _scan(self, node, kind, what):
        """T.cumsum / T.cummax: an inclusive scan of a buffer or region
        along `dim`, into `dst` (in place without one)."""
        a = self._args(node, ["src", "dst", "dim", "reverse"],
                       {"dst": None, "dim": 0, "reverse": False, "annotations": None})
        self._flag(a["reverse"], "reverse", node)

        sbuf, soff, ssz = self._onchip_region(a["src"], what, "src", node)
        dbuf, doff, dsz = self._onchip_region(a["src"] if a["dst"] is None else a["dst"], what,
                                              "dst", node)
        if ssz != dsz:
            raise self.error(f"{what} from a {'x'.join(map(str, ssz))} region of '{sbuf.name}' "
                             f"into a {'x'.join(map(str, dsz))} region of '{dbuf.name}': dst "
                             "must have the shape of src", node)
        dim = a["dim"]
        rank = len(ssz)
        if isinstance(dim, bool) or not isinstance(dim, int) or not -rank <= dim < rank:
            raise self.error(f"dim must be an integer in [{-rank}, {rank}), got {dim!r}", node)
        self._writes(dbuf)
        reverse = " {reverse}" if a["reverse"] else ""
        sizes = ", ".join(map(str, ssz))
        self.b.emit(f"tile.scan {kind} {sbuf.ssa}{self._offsets_text(soff, node)} [{sizes}] to "
                    f"{dbuf.ssa}{self._offsets_text(doff, node)} [{sizes}] dim = {dim % rank}"
                    f"{reverse} : {sbuf.memref_type()} to {dbuf.memref_type()}", self.loc(node))

    def call_cumsum(self, node):
        self._scan(node, "sum", "T.cumsum")

    def call_cummax(self, node):
        self._scan(node, "max", "T.cummax")

    def call_annotate_layout(self, node):
        a = self._args(node, ["layout_map"])
        mapping = a["layout_map"]
        if not isinstance(mapping, dict):
            raise self.error("T.annotate_layout takes {buffer: layout}", node)
        for buf, lay in mapping.items():
            buf = self._buffer_arg(buf, node, "a layout's key")
            attr = self._layout_attr(buf, lay, node)
            if attr is None:
                continue
            self.b.emit(f"tile.annotate_layout {buf.ssa} layout({attr}) : "
                        f"{buf.memref_type()}", self.loc(node))

    def _layout_attr(self, buf, lay, node):
        """The layout attribute that pins `lay` on `buf`, or None where the
        layout is the one the buffer has anyway; a located error for a
        layout the dialect cannot express."""
        if lay is None or isinstance(lay, layout_mod.SwizzleLayout):
            return None if lay is None else lay.attr()
        if isinstance(lay, (layout_mod.Layout, layout_mod.Fragment)) and \
                tuple(lay.shape) != tuple(buf.shape):
            raise self.error(f"{lay!r} is for shape {tuple(lay.shape)}, but '{buf.name}' has "
                             f"shape {tuple(buf.shape)}", node)
        if isinstance(lay, layout_mod.Fragment):
            if buf.scope != "fragment":
                raise self.error(f"T.Fragment lays out fragment buffers; '{buf.name}' is a "
                                 f"{buf.scope} buffer", node)
            try:
                return lay.attr()
            except layout_mod.NotAffine as e:
                raise self.error(f"the T.Fragment of '{buf.name}' cannot be expressed as a "
                                 f"#tile.fragment: {e}", node) from None
        if not isinstance(lay, layout_mod.Layout):
            raise self.error(f"unsupported layout {lay!r}; use T.Layout, T.Fragment or "
                             "tilemlir.layout.make_swizzled_layout(buffer)", node)
        try:
            if buf.scope == "global":
                return lay.tensor_attr()
            if buf.scope == "shared":
                swizzle = lay.as_swizzle(buf.dtype.bits)
                return None if swizzle is None else swizzle.attr()
        except layout_mod.NotAffine as e:
            what = "an affine map" if buf.scope == "global" else "a shared-memory layout"
            raise self.error(f"the T.Layout of '{buf.name}' is not {what} the dialect can "
                             f"express: {e}", node) from None
        raise self.error(f"T.Layout places the elements of global tensors and shared "
                         f"buffers; '{buf.name}' is a {buf.scope} buffer (use T.Fragment)", node)

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
        in_group = self._mod_nonnegative(linear, per_group, node)
        return (self.binop(ast.Add(), first, self._mod_nonnegative(in_group, size, node), node),
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
                    self._mod_nonnegative(b, c, node))

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
