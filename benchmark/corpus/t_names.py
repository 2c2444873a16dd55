#!/usr/bin/env python3
"""Every `T.` name that TileLang's `tilelang.language` exports, read from a
checkout of TileLang's repository without importing it (its `__all__`
chain: tilelang/language/__init__.py re-exports tilelang.cuda.language,
whose `__all__` joins those of the modules it star-imports).

    python benchmark/corpus/t_names.py /path/to/tilelang-checkout            # the names
    python benchmark/corpus/t_names.py /path/to/tilelang-checkout --present  # + in tilemlir.language?

docs/python.md's language reference is the table of these names with their
status here; rerun this on a newer checkout to see which names are new."""

import argparse
import ast
import pathlib
import sys


class Unsupported(Exception):
    pass


def _module_path(roots, module, current=None, level=0):
    """The file of `module` (relative to `current`'s package at `level`),
    or None where no root holds it."""
    if level:
        base = current.parent
        for _ in range(level - 1):
            base = base.parent
        targets = [base.joinpath(*(module.split(".") if module else []))]
    else:
        targets = [root.joinpath(*module.split(".")) for root in roots]
    for target in targets:
        for candidate in (target.with_suffix(".py"), target / "__init__.py"):
            if candidate.exists():
                return candidate
    return None


class Module:
    def __init__(self, path, name):
        self.path, self.name = path, name


def _eval(node, env, roots, seen):
    """A list of names from an `__all__`-building expression."""
    def ev(n):
        return _eval(n, env, roots, seen)

    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        ORIGIN.setdefault(node.value, CURRENT[-1])
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        out = []
        for e in node.elts:
            out += ev(e.value) if isinstance(e, ast.Starred) else ev(e)
        return out
    if isinstance(node, ast.Name):
        if node.id not in env or isinstance(env[node.id], Module):
            raise Unsupported(f"unknown name {node.id}")
        return list(env[node.id])
    if isinstance(node, ast.Attribute) and node.attr == "__all__" and \
            isinstance(node.value, ast.Name) and isinstance(env.get(node.value.id), Module):
        module = env[node.value.id]
        if module.path is None:
            raise Missing(module.name)
        return exported_names(roots, module.path, seen)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.BitOr)):
        return list(dict.fromkeys(ev(node.left) + ev(node.right)))
    if isinstance(node, ast.Call) and len(node.args) == 1:
        fn = ast.unparse(node.func)
        if fn in ("tuple", "list", "sorted", "dict.fromkeys", "set", "frozenset"):
            return ev(node.args[0])
    if isinstance(node, (ast.GeneratorExp, ast.ListComp)) and len(node.generators) == 1:
        gen = node.generators[0]
        if isinstance(gen.target, ast.Name) and isinstance(node.elt, ast.Name) and \
                node.elt.id == gen.target.id:
            items = ev(gen.iter)
            for cond in gen.ifs:
                if not (isinstance(cond, ast.Compare) and len(cond.ops) == 1 and
                        isinstance(cond.ops[0], (ast.In, ast.NotIn))):
                    raise Unsupported(f"cannot evaluate {ast.unparse(cond)}")
                pool = set(ev(cond.comparators[0]))
                keep = isinstance(cond.ops[0], ast.In)
                items = [i for i in items if (i in pool) == keep]
            return items
    raise Unsupported(f"cannot evaluate {ast.unparse(node)}")


# name -> the module (dotted, relative to the roots) whose source lists it
ORIGIN = {}
CURRENT = ["?"]


class Missing(Exception):
    """A module outside the checkout (TVM's) whose names are needed."""


def exported_names(roots, path, seen):
    """The `__all__` of the module at `path` (roots: the folders holding the
    `tilelang` and `tvm` packages)."""
    env = module_env(roots, path, seen)
    if "__all__" not in env:
        raise Unsupported(f"{path} defines no __all__ this script can read")
    return env["__all__"]


def module_env(roots, path, seen):
    """The name lists a module's top level binds (its `__all__` among them)."""
    if path in seen:
        return seen[path]
    env = seen[path] = {}  # a module met again while it is read (a cycle) binds nothing yet
    tree = ast.parse(path.read_text())
    CURRENT.append(_dotted(roots, path))
    try:
        _read_module(roots, path, seen, env, tree)
    finally:
        CURRENT.pop()
    return env


def _dotted(roots, path):
    for root in roots:
        try:
            rel = path.relative_to(root)
        except ValueError:
            continue
        parts = list(rel.with_suffix("").parts)
        return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    return str(path)


def _read_module(roots, path, seen, env, tree):
    result = None
    for stmt in tree.body:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname:
                    env[alias.asname] = Module(_module_path(roots, alias.name), alias.name)
        elif isinstance(stmt, ast.ImportFrom):
            for alias in stmt.names:
                full = ".".join(filter(None, [stmt.module, alias.name]))
                if alias.name == "__all__":
                    sub = _module_path(roots, stmt.module or "", path, stmt.level)
                    if sub is None:
                        raise Missing(stmt.module)
                    env[alias.asname or "__all__"] = exported_names(roots, sub, seen)
                    if not alias.asname:
                        result = env["__all__"]
                    continue
                sub = _module_path(roots, full if not stmt.level else
                                   ".".join(filter(None, [stmt.module, alias.name])),
                                   path, stmt.level)
                if sub is not None or (stmt.module or "").startswith("tvm"):
                    env[alias.asname or alias.name] = Module(sub, full)
                    continue
                parent = _module_path(roots, stmt.module or "", path, stmt.level)
                if parent is not None and parent != path:
                    names = module_env(roots, parent, seen).get(alias.name)
                    if isinstance(names, list):
                        env[alias.asname or alias.name] = names
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], ast.Name):
            name = stmt.targets[0].id
            try:
                env[name] = _eval(stmt.value, env, roots, seen)
            except Unsupported:
                if name == "__all__":
                    raise
                continue
            if name == "__all__":
                result = env[name]
        elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) and \
                stmt.target.id == "__all__":
            env["__all__"] = result = list(result or []) + _eval(stmt.value, env, roots, seen)
    if result is not None:
        env["__all__"] = list(dict.fromkeys(result))


def tilelang_language_names(checkout, tvm=None):
    """T.'s names; `tvm`: the folder holding TVM's `tvm` package, for the
    names TileLang re-exports from TVM's TIR script parser (a checkout's
    3rdparty/tvm submodule, or an installed TileLang wheel's copy)."""
    checkout = pathlib.Path(checkout)
    root = checkout if (checkout / "tilelang").is_dir() else checkout / "python"
    roots = [root]
    for candidate in ([pathlib.Path(tvm)] if tvm else []) + [checkout / "3rdparty/tvm/python"]:
        if (candidate / "tvm").is_dir():
            roots.append(candidate)
    try:
        return exported_names(roots, root / "tilelang" / "language" / "__init__.py", {})
    except Missing as e:
        raise SystemExit(f"{e} is not in the checkout (an empty 3rdparty/tvm submodule?): pass "
                         "--tvm with the folder holding TVM's tvm package") from None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("checkout", type=pathlib.Path)
    ap.add_argument("--tvm", type=pathlib.Path,
                    help="the folder holding TVM's tvm package (TileLang re-exports its TIR "
                         "script names)")
    ap.add_argument("--present", action="store_true",
                    help="also say whether tilemlir.language has each name")
    ap.add_argument("--markdown", action="store_true",
                    help="the language reference table of docs/python.md (t_status.py's notes)")
    opts = ap.parse_args(argv)
    names = sorted(tilelang_language_names(opts.checkout, opts.tvm), key=str.lower)
    if opts.markdown:
        sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "python"))
        sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
        import tilemlir.language as T
        from t_status import status
        rows = [(n, *status(n, ORIGIN.get(n, "?"), hasattr(T, n))) for n in names]
        counts = {}
        for _, st, _ in rows:
            counts[st] = counts.get(st, 0) + 1
        print(f"{len(rows)} names: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
        print("\n| `T.` name | status | notes |\n| --- | --- | --- |")
        for n, st, note in rows:
            print(f"| `{n}` | {st} | {note} |")
        return
    if opts.present:
        sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "python"))
        import tilemlir.language as T
        for n in names:
            print(f"{n}\t{ORIGIN.get(n, '?')}\t{'yes' if hasattr(T, n) else 'no'}")
    else:
        print("\n".join(f"{n}\t{ORIGIN.get(n, '?')}" for n in names))
    print(f"{len(names)} names", file=sys.stderr)


if __name__ == "__main__":
    main()
