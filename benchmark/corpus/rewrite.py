"""The import-only change: `tilelang` -> `tilemlir`, `tvm` -> `tilemlir.tvm`.

Only import statements change, each on the lines it had, so every other
line (and so every line number in a traceback or compile error) is the
program's own. Names the program binds stay the same: `import tilelang`
becomes `import tilemlir as tilelang`."""

import ast

# Top-level package -> its replacement.
RENAMES = {"tilelang": "tilemlir", "tvm": "tilemlir.tvm"}


def _renamed(module):
    """`module` with its top-level package renamed, or None if unchanged."""
    if not module:
        return None
    head, _, rest = module.partition(".")
    if head not in RENAMES:
        return None
    return RENAMES[head] + ("." + rest if rest else "")


def _import_text(node):
    """The rewritten `import a.b [as c], ...` statement, or None if no name
    changes. A dotted import without `as` binds its top-level name, so the
    replacement binds that name to the renamed package."""
    parts, binds, changed = [], [], False
    for alias in node.names:
        new = _renamed(alias.name)
        if new is None:
            parts.append(alias.name + (f" as {alias.asname}" if alias.asname else ""))
            continue
        changed = True
        if alias.asname:
            parts.append(f"{new} as {alias.asname}")
            continue
        head = alias.name.partition(".")[0]
        if "." in alias.name:
            parts.append(new)
        if f"{RENAMES[head]} as {head}" not in binds:
            binds.append(f"{RENAMES[head]} as {head}")
    if not changed:
        return None
    return "import " + ", ".join(parts + binds)


def _from_text(node):
    if node.level:
        return None
    new = _renamed(node.module)
    if new is None:
        return None
    names = ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in node.names)
    return f"from {new} import {names}"


def rewrite_imports(source):
    """`source` with its tilelang / tvm imports renamed; (text, count of
    statements changed). Statements that share a line with other code are
    rewritten in place on that line."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    edits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            text = _import_text(node)
        elif isinstance(node, ast.ImportFrom):
            text = _from_text(node)
        else:
            continue
        if text is not None:
            edits.append((node, text))
    # From the end, so earlier positions stay valid.
    edits.sort(key=lambda e: (e[0].lineno, e[0].col_offset), reverse=True)
    for node, text in edits:
        first, last = node.lineno - 1, node.end_lineno - 1
        head = lines[first][:node.col_offset]
        tail = lines[last][node.end_col_offset:]
        # Keep the statement's line count: blank continuation lines.
        lines[first:last + 1] = [head + text + ("\n" if last > first else tail)] + \
            ["\n"] * (last - first - 1) + ([tail] if last > first else [])
    return "".join(lines), len(edits)
