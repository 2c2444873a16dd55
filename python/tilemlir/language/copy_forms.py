"""The T. copies other than T.copy: T.async_copy (with TileLang's
T.ptx_commit_group / T.ptx_wait_group around it) and T.transpose of a shared
tile. Each is written as what T.copy or a T.Parallel loop would say.

Part of the Translator (parser.py), which mixes these classes in."""

import ast

from .ir import Access, Buffer, Value


class CopyFormsMixin:
    def call_async_copy(self, node):
        """TileLang's T.async_copy(src, dst): a global -> shared copy that
        TileLang issues as cp.async without waiting for it. Here it is a
        T.copy, complete before the block's next use of dst (the compiler
        places the waits), so the program's own T.ptx_wait_group has nothing
        left to wait for."""
        a = self._args(node, ["src", "dst"], {"coalesced_width": None, "annotations": None,
                                              "loop_layout": None})
        self._copy_annotations(a, node)
        scopes = [x.scope if isinstance(x, Buffer) else
                  x.buffer.scope if isinstance(x, Access) else None
                  for x in (a["src"], a["dst"])]
        if scopes != ["global", "shared"]:
            raise self.error("T.async_copy only copies global memory into a shared buffer, got "
                             f"a {scopes[0]} source and a {scopes[1]} destination", node)
        self._copy({"src": a["src"], "dst": a["dst"], "pad_value": None,
                    "disable_tma": True}, node)

    def call_ptx_commit_group(self, node):
        self._args(node, [])

    def call_ptx_wait_group(self, node):
        """T.ptx_wait_group(n): T.async_copy completes as T.copy does here,
        so no copy is ever outstanding."""
        a = self._args(node, ["num"])
        self._size(a["num"], "T.ptx_wait_group's count", node, lo=0)


    def call_transpose(self, node):
        """T.transpose(src, dst): dst[..., j, i] = src[..., i, j] for the
        last two dimensions of two shared (or fragment) tiles or regions,
        as `for ..., i, j in T.Parallel(...)` would write it."""
        a = self._args(node, ["src", "dst"], {"annotations": None})
        sides = []
        for role in ("src", "dst"):
            buf, offsets, sizes = self._onchip_region(a[role], "T.transpose", role, node)
            if len(sizes) < 2 or any(not isinstance(d, int) for d in sizes):
                raise self.error(f"T.transpose needs a tile of at least two dimensions of "
                                 f"constant sizes; the {role} '{buf.name}' has "
                                 f"{'x'.join(map(str, sizes))}", node)
            sides.append((buf, offsets, sizes))
        (sbuf, soff, ssz), (dbuf, doff, dsz) = sides
        if dsz != ssz[:-2] + [ssz[-1], ssz[-2]]:
            raise self.error(f"T.transpose of a {'x'.join(map(str, ssz))} tile of '{sbuf.name}' "
                             f"into a {'x'.join(map(str, dsz))} tile of '{dbuf.name}': the "
                             "destination must have the source's last two sizes swapped", node)
        self._writes(dbuf)
        ivs = [self.b.fresh("i") for _ in ssz]
        loc = self.loc(node)
        self.b.open(f"tile.parallel ({', '.join(ivs)}) in ({', '.join(map(str, ssz))})")
        idx = [Value(iv, "index") for iv in ivs]
        swapped = idx[:-2] + [idx[-1], idx[-2]]

        def at(offsets, local):
            return [i if isinstance(o, int) and o == 0 else self.binop(ast.Add(), o, i, node)
                    for o, i in zip(offsets, local)]
        v = self.load(Access(sbuf, at(soff, idx), node), node)
        self.store(Access(dbuf, at(doff, swapped), node), v, node)
        self.b.close(loc)
