"""The T. calls of TileLang's mbarrier API: `T.alloc_barrier`, the arrive and
parity-wait calls on its barriers, and `T.tma_copy` with the barrier its
load signals.

The barriers are upstream `nvgpu.mbarrier.*` ops (the tile dialect composes
with upstream MLIR at the thread level): a group of mbarriers in shared
memory, initialized by the block's first thread where T.alloc_barrier
stands, then a block barrier. The NVIDIA targets lower them (sm_80 waits
with `mbarrier.test_wait`, sm_90a with `mbarrier.try_wait`); the CPU
target, which runs a block's threads one after another, reports them.

`T.tma_copy` copies as `T.copy` does (the compiler picks the instruction)
and is complete in each thread before that thread's next statement: a
thread's later `T.barrier_arrive` publishes it, so every thread that waits
on the barrier's phase sees the tile, as with TileLang's TMA load that
completes its bytes on the barrier. Its stores are complete too, so
`T.tma_store_arrive` / `T.tma_store_wait` have nothing left to wait for.

Part of the Translator (parser.py), which mixes these classes in."""

from .ir import Access, Buffer, Value

# PTX's bound on an mbarrier's expected arrival count (2^20 - 1).
_MAX_ARRIVALS = (1 << 20) - 1
# How long a parity wait suspends between tries (ns; a hint to sm_90a).
_WAIT_HINT_NS = 10000000


class Barriers:
    """What T.alloc_barrier returns: `len(counts)` mbarriers in shared
    memory; `bars[i]` names one of them (mbars[ko % 2] too)."""

    def __init__(self, ssa, counts, name):
        self.ssa = ssa
        self.counts = counts
        self.name = name

    @property
    def type(self):
        return (f"!nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, "
                f"num_barriers = {len(self.counts)}>")

    def __getitem__(self, index):
        if isinstance(index, tuple):
            raise IndexError(f"'{self.name}' holds a row of barriers: index it with one integer")
        if isinstance(index, int) and not isinstance(index, bool) and \
                not 0 <= index < len(self.counts):
            raise IndexError(f"barrier {index} of '{self.name}', which holds "
                             f"{len(self.counts)}")
        return BarrierRef(self, index)

    def __len__(self):
        return len(self.counts)

    def __repr__(self):
        return f"<barriers '{self.name}' x{len(self.counts)}>"


class BarrierRef:
    """One mbarrier of a T.alloc_barrier group."""

    def __init__(self, group, index):
        self.group = group
        self.index = index

    def __repr__(self):
        return f"<barrier {self.group.name}[{self.index!r}]>"


class BarrierOpsMixin:
    def call_alloc_barrier(self, node):
        a = self._args(node, ["arrive_count"])
        self._in_kernel("T.alloc_barrier", node)
        for scope in reversed(self.scopes):
            if scope.kind == "kernel":
                break
            if scope.kind != "macro":
                raise self.error("T.alloc_barrier must stand in the kernel body itself, not in "
                                 "a loop or a branch: its barriers are initialized where it "
                                 "stands, once", node)
        counts = a["arrive_count"]
        counts = list(counts) if isinstance(counts, (list, tuple)) else [counts]
        if not counts:
            raise self.error("T.alloc_barrier needs at least one arrive count", node)
        for c in counts:
            self._size(c, "an arrive count of T.alloc_barrier", node, hi=_MAX_ARRIVALS + 1)
        name = self._target_name(node) or "mbar"
        group = Barriers(self.b.fresh(name), counts, name)
        loc = self.loc(node)
        self.b.emit(f"{group.ssa} = nvgpu.mbarrier.create -> {group.type}", loc)
        tid = self.b.fresh("tx")
        self.b.emit(f"{tid} = gpu.thread_id x", loc)
        zero = self.const_index(0, node)
        first = self.b.fresh("first")
        self.b.emit(f"{first} = arith.cmpi eq, {tid}, {zero.ssa} : index", loc)
        self.b.open(f"scf.if {first}")
        for i, c in enumerate(counts):
            idx, count = self.const_index(i, node), self.const_index(c, node)
            self.b.emit(f"nvgpu.mbarrier.init {group.ssa}[{idx.ssa}], {count.ssa} : {group.type}",
                        loc)
        self.b.close(loc)
        self.b.emit("gpu.barrier", loc)
        return group

    def _barrier(self, x, node, what):
        """(group, index Value) of the barrier argument of T.`what`: an
        element of T.alloc_barrier's group, or a group of one."""
        if isinstance(x, Barriers):
            if len(x.counts) != 1:
                raise self.error(f"T.{what} takes one barrier; '{x.name}' holds "
                                 f"{len(x.counts)}: index it ({x.name}[i])", node)
            x = BarrierRef(x, 0)
        if not isinstance(x, BarrierRef):
            got = f"the buffer '{x.name}'" if isinstance(x, Buffer) else repr(x)
            raise self.error(f"T.{what} takes a barrier of T.alloc_barrier, got {got}", node)
        index = x.index
        if isinstance(index, bool) or self._not_an_integer(index):
            raise self.error(f"barriers are indexed with integers, got {index!r}", node)
        return x.group, self.convert(self.value(index, node, "index"), "index", node)

    def _arrive(self, node, what, bar, cta_id=None):
        self._in_kernel(f"T.{what}", node)
        if cta_id is not None:
            raise self.error(f"T.{what}'s cta_id (an arrival on another block's barrier of a "
                             "cluster) is not supported", node)
        group, idx = self._barrier(bar, node, what)
        tok = self.b.fresh("tok")
        self.b.emit(f"{tok} = nvgpu.mbarrier.arrive {group.ssa}[{idx.ssa}] : {group.type} -> "
                    "!nvgpu.mbarrier.token", self.loc(node))

    def call_mbarrier_arrive(self, node):
        a = self._args(node, ["mbarrier", "cta_id"], {"cta_id": None})
        self._arrive(node, "mbarrier_arrive", a["mbarrier"], a["cta_id"])

    def call_barrier_arrive(self, node):
        a = self._args(node, ["mbarrier"])
        self._arrive(node, "barrier_arrive", a["mbarrier"])

    def _wait(self, node, what):
        a = self._args(node, ["mbarrier", "parity"])
        self._in_kernel(f"T.{what}", node)
        group, idx = self._barrier(a["mbarrier"], node, what)
        parity = a["parity"]
        if isinstance(parity, bool) or self._not_an_integer(parity):
            raise self.error(f"T.{what}'s parity must be an integer (the phase's parity, 0 or "
                             f"1), got {parity!r}", node)
        loc = self.loc(node)
        if isinstance(parity, int):
            bit = self.const(parity & 1, "i1", node)
        else:
            word = self.convert(self.value(parity, node, "i32"), "i32", node)
            ssa = self.b.fresh("parity")
            self.b.emit(f"{ssa} = arith.trunci {word.ssa} : i32 to i1", loc)
            bit = Value(ssa, "i1")
        hint = self.const_index(_WAIT_HINT_NS, node)
        self.b.emit(f"nvgpu.mbarrier.try_wait.parity {group.ssa}[{idx.ssa}], {bit.ssa}, "
                    f"{hint.ssa} : {group.type}", loc)

    def call_mbarrier_wait_parity(self, node):
        self._wait(node, "mbarrier_wait_parity")

    def call_barrier_wait(self, node):
        self._wait(node, "barrier_wait")

    # ---------------------------------------------------------------- TMA

    def call_tma_copy(self, node):
        a = self._args(node, ["src", "dst"], {"barrier": None, "cluster_mask": None,
                                              "leader_scope_threads": None,
                                              "eviction_policy": None, "annotations": None})
        src, dst = a["src"], a["dst"]
        scope = [x.scope if isinstance(x, Buffer) else
                 x.buffer.scope if isinstance(x, Access) else None for x in (src, dst)]
        load = scope == ["global", "shared"]
        if not load and scope != ["shared", "global"]:
            raise self.error("T.tma_copy copies a global region to a shared buffer (a load) "
                             "or a shared buffer to a global region (a store)", node)
        if load and a["barrier"] is None:
            raise self.error("T.tma_copy's load needs barrier= (a barrier of "
                             "T.alloc_barrier that the threads then arrive at and wait on)",
                             node)
        if a["barrier"] is not None:
            self._barrier(a["barrier"], node, "tma_copy")
        if a["cluster_mask"] is not None:
            raise self.error("T.tma_copy's cluster_mask (a multicast load to the blocks of a "
                             "cluster) is not supported", node)
        lst = a["leader_scope_threads"]
        if lst is not None and lst != self._block_threads():
            raise self.error(f"T.tma_copy with leader_scope_threads={lst!r} copies by groups "
                             f"of threads; here the block's {self._block_threads()} threads "
                             "copy the tile together (leave leader_scope_threads out)", node)
        if not isinstance(a["annotations"], (dict, type(None))):
            raise self.error(f"annotations must be a dict, got {a['annotations']!r}", node)
        self._copy({"src": src, "dst": dst, "pad_value": None, "disable_tma": False}, node)

    def _block_threads(self):
        total = 1
        for d in self.thread_dims:
            total *= d
        return total

    def call_tma_store_arrive(self, node):
        self._args(node, [])
        self._in_kernel("T.tma_store_arrive", node)

    def call_tma_store_wait(self, node):
        a = self._args(node, ["count", "read"], {"count": 0, "read": True})
        self._in_kernel("T.tma_store_wait", node)
        self._size(a["count"], "T.tma_store_wait's count", node, lo=0)
        self._flag(a["read"], "read", node)
