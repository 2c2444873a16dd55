"""Statements of a kernel body: assignments, `if`, `with T.Kernel`, and the loops
(T.Parallel, T.serial, T.Pipelined, T.Persistent).

Part of the Translator (parser.py), which mixes these classes in."""

import ast
import builtins

from .. import language as T
from ..errors import TileCompileError
from . import dtypes
from .ir import Access, Buffer, TypedConstant, Value


class StatementsMixin:
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
            var = self.var_named(target.id)
            if var is not None and not isinstance(value, Buffer):
                self.store(Access(var, [0], node), value, node)  # x = ... of a T.alloc_var
                return
            # `x = A[i, j]` reads the element; `r = A[0:2]` names the region
            # (TileLang's let-bound buffer region), for a later T.* call.
            if isinstance(value, Access) and value.is_element:
                value = self.load(value, node)
            self.bind(target.id, value, node)
        elif isinstance(target, (ast.Tuple, ast.List)):
            if not isinstance(value, (tuple, list)) or len(value) != len(target.elts):
                raise self.error("cannot unpack this value into "
                                 f"{len(target.elts)} names", node)
            # Python evaluates the whole right side first: element reads
            # happen before any of the stores (a, b = b, a swaps).
            value = [self.load(v, node) if isinstance(v, Access) and v.is_element else v
                     for v in value]
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
            var = self.var_named(target.id)
            if var is not None:
                acc = Access(var, [0], node)
                self.store(acc, self.binop(node.op, self.load(acc, node),
                                           self.expr(node.value), node), node)
                return
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
        if fn is T.attr and self.kernel is not None:
            return self.with_attr(node, call)
        if fn is not T.Kernel and fn is not T.ClusterKernel:
            raise self.error("only `with T.Kernel(...) as ...:` is supported", node)
        if self.kernel is not None:
            raise self.error("T.Kernel cannot be nested", node)
        args = [self.expr(a) for a in call.args]
        kwargs = self.call_kwargs(call)
        threads = kwargs_threads = kwargs.pop("threads", 128)
        cluster = kwargs.pop("cluster_dims", kwargs.pop("cluster", None))
        if fn is T.ClusterKernel and cluster is None:
            raise self.error("T.ClusterKernel needs cluster_dims= (the blocks of a cluster, "
                             "e.g. (2, 1, 1))", call)
        kwargs.pop("prelude", None)
        if kwargs:
            raise self.error(f"unknown T.Kernel argument(s): {', '.join(kwargs)}", call)
        if len(args) > 3:
            raise self.error(f"T.Kernel takes 1 to 3 grid extents, got {len(args)}", call)
        if not args:
            args = [1]  # T.Kernel(threads=...): a grid of one block
        if isinstance(threads, (tuple, list)) and threads:
            if len(threads) > 3:
                raise self.error(f"threads takes 1 to 3 extents, got {len(threads)}", call)
            self.thread_dims = [self._size(t, "each entry of threads", call) for t in threads]
            n = 1
            for t in self.thread_dims:
                n *= t
            threads = n
        # The verifier checks the target's limit; this keeps the text valid.
        threads = self._size(threads, "threads", call)
        if not isinstance(kwargs_threads, (tuple, list)) or not kwargs_threads:
            self.thread_dims = [threads]
        extents = []
        self.launch = {"grid": [], "threads": threads, "cluster": None}
        self.launches.append(self.launch)
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
        for text, loc in self.pending_tensors:
            self.b.emit(text, loc)
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
        self.check_reducers_finalized(node)
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
        kwargs = self.call_kwargs(it)
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
        self.scopes[-1].parallel = True
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
        num_stages = kwargs.pop("num_stages", None)
        order = kwargs.pop("order", None)
        stage = kwargs.pop("stage", None)
        if num_stages is None:
            # A pinned schedule is as deep as its latest stage (TileLang's
            # rule); otherwise one stage.
            num_stages = 1
            if isinstance(stage, (list, tuple)) and stage and all(
                    isinstance(x, int) and not isinstance(x, bool) for x in stage):
                num_stages = builtins.max(builtins.max(stage) + 1, 1)
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

    def stmt_While(self, node):
        """`while cond:` on kernel values: an scf.while whose condition is
        evaluated again before every iteration (the loop's state lives in
        buffers or T.alloc_var variables that the body assigns)."""
        if node.orelse:
            raise self.error("while-else is not supported in kernels", node)
        loc = self.loc(node)
        self.b.open("scf.while : () -> ()")
        self.push("loop")
        cond = self.expr(node.test)
        if not isinstance(cond, (Value, Access, TypedConstant)):
            raise self.error("a while loop in a kernel needs a condition on kernel values "
                             "(a compile-time condition would loop while translating)", node.test)
        c = self.convert(self.value(cond, node.test), "i1", node.test)
        self.b.emit(f"scf.condition({c.ssa})", self.loc(node.test))
        self.pop()
        self.b.middle("} do {")
        self.push("loop")
        self.stmts(node.body)
        self.b.emit("scf.yield", loc)
        self.pop()
        self.b.close(loc)
