"""The T. calls that move raw 32- to 256-bit words between a thread and
memory: TileLang's T.ldg32 / 64 / 128 / 256 and T.stg32 ... 256 (global
tensors, with an optional predicate) and T.lds32 ... T.sts128 (shared
buffers). Each is one vector load or store of the elements at an address
(`X[i]`, or a region `X[i:i + n]` of as many bits along the last dimension),
the bits read as 32-bit words (an i32, or a vector of them). Where the
address is a multiple of the width (up to 16 bytes) the access says so, one
ld / st .v2 or .v4 on GPUs as in TileLang; other addresses take accesses of
the elements' alignment (where TileLang's would fault). A load whose
predicate is false, or whose words lie outside the tensor, gives zeros; such
a store writes nothing.

Part of the Translator (parser.py), which mixes these classes in."""

import ast
import re

from . import dtypes
from .ir import Access, Buffer, Value
from .scalars import float_bits as _float_bits, int_width as _int_width, is_float as _is_float

_VECTOR = re.compile(r"vector<(\d+)x(\w+)>")


def _type_bits(t):
    """Bits of an MLIR scalar or vector<NxT> type string."""
    m = _VECTOR.fullmatch(t)
    if m:
        return int(m.group(1)) * _type_bits(m.group(2))
    return _float_bits(t) if _is_float(t) else _int_width(t)


class VectorOpsMixin:
    def call_Ramp(self, node):
        """TVM's T.Ramp(base, stride, lanes) as an index: with stride 1 the
        `lanes` consecutive elements from base, the slice base:base + lanes
        (A[T.Ramp(i, 1, 4)] is A[i:i + 4])."""
        a = self._args(node, ["base", "stride", "lanes"])
        lanes = self._size(a["lanes"], "T.Ramp's lanes", node)
        if a["stride"] != 1:
            raise self.error(f"T.Ramp with stride {a['stride']!r} as an index: only "
                             "consecutive elements (stride 1) are supported", node)
        return ("slice", a["base"], self.binop(ast.Add(), a["base"], lanes, node))

    def _words_at(self, x, bits, what, scope, node):
        """(buffer, index Values, element count) of the `bits` bits that
        T.<what> moves at `x`."""
        if isinstance(x, Buffer):
            x = Access(x, [0] * x.ndim, node)
        if not isinstance(x, Access):
            raise self.error(f"{what} needs an element or a region of a buffer, got {x!r}",
                             node)
        buf = x.buffer
        if buf.scope != scope:
            where = "global tensors" if scope == "global" else "shared buffers"
            raise self.error(f"{what} moves the words of {where}; '{buf.name}' is a "
                             f"{buf.scope} buffer", node)
        elt = buf.dtype.bits
        if elt < 8 or bits % elt:
            raise self.error(f"{what} moves {bits} bits: a whole number of {buf.dtype} "
                             f"elements of '{buf.name}' does not make them", node)
        count = bits // elt
        if x.is_element:
            if len(x.items) != buf.ndim:
                raise self.error(f"'{buf.name}' has {buf.ndim} dimensions, indexed with "
                                 f"{len(x.items)}", node)
            offsets = list(x.items)
        else:
            _, offsets, sizes = self._region(x, node)
            if any(s != 1 for s in sizes[:-1]) or sizes[-1] != count:
                raise self.error(f"{what} moves {bits} bits, {count} {buf.dtype} elements of "
                                 f"'{buf.name}' along its last dimension; the region is "
                                 f"{'x'.join(map(str, sizes))}", node)
        idx = [self.convert(self.value(i, node, "index"), "index", node) for i in offsets]
        return buf, idx, count

    def _ule(self, a, b, node):
        ssa = self.b.fresh("in")
        self.b.emit(f"{ssa} = arith.cmpi ule, {a.ssa}, {b.ssa} : index", self.loc(node))
        return Value(ssa, "i1")

    def _words_guard(self, buf, idx, count, pred, node):
        """The condition under which the access happens: the predicate, and
        every word inside the buffer (unsigned: negative indices are out)."""
        conds = []
        if pred is not None:
            conds.append(self.convert(self.value(pred, node, "i1"), "i1", node))
        for d, (i, dim) in enumerate(zip(idx, buf.shape)):
            size = self.value(dim, node, "index") if not isinstance(dim, int) else \
                self.const_index(dim, node)
            end = i
            if d == buf.ndim - 1:
                end = self._arith("add", i, self.const_index(count, node), "index", node)
            else:
                end = self._arith("add", i, self.const_index(1, node), "index", node)
            conds.append(self._ule(end, self.convert(size, "index", node), node))
            conds.append(self._ule(i, end, node))
        cond = conds[0]
        for c in conds[1:]:
            cond = self.logical("and", cond, c, node)
        return cond

    def _aligned(self, buf, idx, nbytes, node):
        """Whether the address of `buf[idx]` is a multiple of `nbytes`: the
        vector access then tells LLVM so (one ld/st.v2 or .v4 on GPUs);
        other addresses take an access of element alignment, which never
        faults. Shared buffers are at least 64-byte aligned: their index
        decides."""
        loc = self.loc(node)
        linear = None
        for i, dim in zip(idx, buf.shape):
            size = self.const_index(dim, node) if isinstance(dim, int) else \
                self.convert(self.value(dim, node, "index"), "index", node)
            linear = i if linear is None else self._arith(
                "add", self._arith("mul", linear, size, "index", node), i, "index", node)
        addr = self._arith("mul", linear, self.const_index(buf.dtype.bits // 8, node), "index",
                           node)
        if buf.scope == "global":
            base = self.b.fresh("base")
            self.b.emit(f"{base} = memref.extract_aligned_pointer_as_index {buf.ssa} : "
                        f"{buf.memref_type()} -> index", loc)
            addr = self._arith("add", Value(base, "index"), addr, "index", node)
        rem, ok = self.b.fresh("rem"), self.b.fresh("aligned")
        self.b.emit(f"{rem} = arith.remui {addr.ssa}, {self.const_index(nbytes, node).ssa} : "
                    "index", loc)
        self.b.emit(f"{ok} = arith.cmpi eq, {rem}, {self.const_index(0, node).ssa} : index",
                    loc)
        return Value(ok, "i1")

    def _vector_access(self, buf, idx, vt, nbytes, node, store=None):
        """vector.load (or, with `store`, vector.store of that value) of `vt`
        at `buf[idx]`, aligned to `nbytes` where the address is, element by
        element elsewhere (a different access, which LLVM does not merge
        into the aligned one); returns the loaded value's SSA name."""
        aligned = self._aligned(buf, idx, nbytes, node)
        loc = self.loc(node)
        lanes, elt = int(_VECTOR.fullmatch(vt).group(1)), buf.dtype.mlir
        at = f"{buf.ssa}[{', '.join(i.ssa for i in idx)}]"
        out = None if store else self.b.fresh("raw")
        self.b.open(f"scf.if {aligned.ssa}" if store else
                    f"{out} = scf.if {aligned.ssa} -> ({vt})")
        if store:
            self.b.emit(f"vector.store {store}, {at} {{alignment = {nbytes} : i64}} : "
                        f"{buf.memref_type()}, {vt}", loc)
        else:
            v = self.b.fresh("raw")
            self.b.emit(f"{v} = vector.load {at} {{alignment = {nbytes} : i64}} : "
                        f"{buf.memref_type()}, {vt}", loc)
            self.b.emit(f"scf.yield {v} : {vt}", loc)
        self.b.middle("} else {")
        elements = []
        for k in range(lanes):
            i = idx[:-1] + [self._arith("add", idx[-1], self.const_index(k, node), "index", node)]
            at_k = f"{buf.ssa}[{', '.join(x.ssa for x in i)}]"
            if store:
                e = self.b.fresh("lane")
                self.b.emit(f"{e} = vector.extract {store}[{k}] : {elt} from {vt}", loc)
                self.b.emit(f"memref.store {e}, {at_k} : {buf.memref_type()}", loc)
            else:
                e = self.b.fresh("lane")
                self.b.emit(f"{e} = memref.load {at_k} : {buf.memref_type()}", loc)
                elements.append(e)
        if not store:
            v = self.b.fresh("raw")
            self.b.emit(f"{v} = vector.from_elements {', '.join(elements)} : {vt}", loc)
            self.b.emit(f"scf.yield {v} : {vt}", loc)
        self.b.close(loc)
        return out

    @staticmethod
    def _word_type(bits):
        return "i32" if bits == 32 else f"vector<{bits // 32}xi32>"

    def _load_words(self, node, what, bits, scope, predicated):
        names = ["src", "pred"] if predicated else ["src"]
        a = self._args(node, names, {"pred": None} if predicated else None)
        buf, idx, count = self._words_at(a["src"], bits, f"T.{what}", scope, node)
        cond = self._words_guard(buf, idx, count, a.get("pred"), node)
        loc = self.loc(node)
        rt, vt = self._word_type(bits), f"vector<{count}x{buf.dtype.mlir}>"
        words = f"vector<{bits // 32}xi32>"
        out = self.b.fresh("words")
        self.b.open(f"{out} = scf.if {cond.ssa} -> ({rt})")
        v = self._vector_access(buf, idx, vt, min(16, bits // 8), node)
        w = self.b.fresh("w")
        self.b.emit(f"{w} = vector.bitcast {v} : {vt} to {words}", loc)
        if bits == 32:
            s = self.b.fresh("w")
            self.b.emit(f"{s} = vector.extract {w}[0] : i32 from {words}", loc)
            w = s
        self.b.emit(f"scf.yield {w} : {rt}", loc)
        self.b.middle("} else {")
        z = self.b.fresh("zero")
        zero = "0 : i32" if bits == 32 else f"dense<0> : {rt}"
        self.b.emit(f"{z} = arith.constant {zero}", loc)
        self.b.emit(f"scf.yield {z} : {rt}", loc)
        self.b.close(loc)
        return Value(out, rt)

    def _reinterpret_value(self, v, to, what, node):
        """`v`'s bits as the MLIR type `to` (scalars and vectors of the same
        total width)."""
        if v.type == "index" or to == "index":
            raise self.error(f"{what}: an index value has no bits to reinterpret", node)
        if _type_bits(v.type) != _type_bits(to):
            raise self.error(f"{what}: a {_type_bits(v.type)}-bit {v.type} value as {to} "
                             f"({_type_bits(to)} bits): the widths must match", node)
        if v.type == to:
            return v
        loc = self.loc(node)
        src_vec, dst_vec = _VECTOR.fullmatch(v.type), _VECTOR.fullmatch(to)
        if not src_vec and not dst_vec:
            out = self.b.fresh("bits")
            self.b.emit(f"{out} = arith.bitcast {v.ssa} : {v.type} to {to}", loc)
            return Value(out, to)
        ssa, frm = v.ssa, v.type
        if not src_vec:
            ssa, frm = self.b.fresh("vec"), f"vector<1x{v.type}>"
            self.b.emit(f"{ssa} = vector.from_elements {v.ssa} : {frm}", loc)
        via = to if dst_vec else f"vector<1x{to}>"
        out = self.b.fresh("bits")
        self.b.emit(f"{out} = vector.bitcast {ssa} : {frm} to {via}", loc)
        if not dst_vec:
            ssa, out = out, self.b.fresh("bits")
            self.b.emit(f"{out} = vector.extract {ssa}[0] : {to} from {via}", loc)
        return Value(out, to)

    def call_reinterpret(self, node):
        """T.reinterpret(value, dtype): the bits of a scalar or vector value
        as another type of the same width (T.uint32, T.float32x4, ...)."""
        a = self._args(node, ["value", "dtype"])
        try:
            dt = dtypes.as_dtype(a["dtype"])
        except (TypeError, ValueError) as e:
            raise self.error(str(e), node) from None
        x = a["value"]
        if not isinstance(x, (Value, Access)) and not hasattr(x, "dtype"):
            raise self.error(f"T.reinterpret({x!r}, {dt.name}): give the value a dtype first "
                             f"(T.int32({x!r}), ...) so that its bits are defined", node)
        return self._reinterpret_value(self.value(x, node), dt.mlir, "T.reinterpret", node)

    def _store_vector(self, acc, v, node):
        """`X[i:i + n] = vector`: the n lanes into the region along the last
        dimension, one vector store (aligned as above); a store that would
        reach outside the tensor writes nothing."""
        m = _VECTOR.fullmatch(v.type)
        buf = acc.buffer
        if buf.dtype.mlir != m.group(2):
            raise self.error(f"assigning a {v.type} value to a region of '{buf.name}' "
                             f"({buf.dtype}): reinterpret it as {buf.dtype} lanes first", node)
        bits = _type_bits(v.type)
        width = 1
        while width * 2 <= min(16, bits // 8):
            width *= 2
        _, idx, count = self._words_at(acc, bits, f"a store of a {v.type} value", buf.scope, node)
        cond = self._words_guard(buf, idx, count, None, node) if buf.scope == "global" else None
        self._writes(buf)
        loc = self.loc(node)
        if cond is not None:
            self.b.open(f"scf.if {cond.ssa}")
        self._vector_access(buf, idx, v.type, width, node, store=v.ssa)
        if cond is not None:
            self.b.close(loc)

    def _store_words(self, node, what, bits, scope, predicated):
        names = ["dst", "value", "pred"] if predicated else ["dst", "value"]
        a = self._args(node, names, {"pred": None} if predicated else None)
        buf, idx, count = self._words_at(a["dst"], bits, f"T.{what}", scope, node)
        v = self.value(a["value"], node)
        rt = self._word_type(bits)
        if v.type != rt:
            v = self._reinterpret_value(v, rt, f"T.{what}'s value", node)
        cond = self._words_guard(buf, idx, count, a.get("pred"), node)
        self._writes(buf)
        loc = self.loc(node)
        vt, words = f"vector<{count}x{buf.dtype.mlir}>", f"vector<{bits // 32}xi32>"
        self.b.open(f"scf.if {cond.ssa}")
        w = v.ssa
        if bits == 32:
            w = self.b.fresh("w")
            self.b.emit(f"{w} = vector.from_elements {v.ssa} : {words}", loc)
        e = self.b.fresh("raw")
        self.b.emit(f"{e} = vector.bitcast {w} : {words} to {vt}", loc)
        self._vector_access(buf, idx, vt, min(16, bits // 8), node, store=e)
        self.b.close(loc)


def _define(name, bits, scope, load, predicated):
    if load:
        def call(self, node):
            return self._load_words(node, name, bits, scope, predicated)
    else:
        def call(self, node):
            self._store_words(node, name, bits, scope, predicated)
    call.__name__ = f"call_{name}"
    setattr(VectorOpsMixin, call.__name__, call)


for _bits in (32, 64, 128, 256):
    _define(f"ldg{_bits}", _bits, "global", True, True)
    _define(f"stg{_bits}", _bits, "global", False, True)
for _bits in (32, 64, 128):
    _define(f"lds{_bits}", _bits, "shared", True, False)
    _define(f"sts{_bits}", _bits, "shared", False, False)
