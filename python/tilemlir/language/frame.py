"""The Python function being translated (its source, AST and closure) and the
scopes of names while it is read."""

import ast
import inspect
import linecache

from ..errors import TileCompileError


class Scope:
    def __init__(self, kind):
        self.kind = kind  # "func", "kernel", "loop", "if"
        self.vars = {}
        self.parallel = False  # the body of a T.Parallel


class Frame:
    """The Python function being read: its AST, where its source is, and the
    names it closes over (a prim_func, or a T.macro it calls)."""

    def __init__(self, fn):
        self.fn = fn
        self.filename = inspect.getsourcefile(fn) or "<unknown>"
        try:
            lines, first = inspect.getsourcelines(fn)
        except OSError as e:
            raise TileCompileError(f"error: cannot read the source of '{fn.__name__}': {e}")
        self.lines = lines
        self.first = first
        # Parsed as written (not dedented: a comment at column 0 or a string
        # spanning lines would defeat textwrap.dedent): an indented function
        # is parsed as the body of an `if 1:`, so columns are the file's.
        self.col_shift = 0
        indented = bool(lines) and lines[0][:1] in (" ", "\t")
        self.line_shift = first - 2 if indented else first - 1
        try:
            tree = ast.parse(("if 1:\n" if indented else "") + "".join(lines))
        except SyntaxError as e:
            raise TileCompileError(f"error: cannot parse the source of '{fn.__name__}': {e.msg}",
                                   self.filename, (e.lineno or 1) + self.line_shift,
                                   e.offset) from None
        self.func_def = tree.body[0].body[0] if indented else tree.body[0]
        self.globals = fn.__globals__
        self.closure = {}
        if fn.__closure__:
            for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
                try:
                    self.closure[name] = cell.cell_contents
                except ValueError:
                    pass


class HelperLine:
    """Where a T.* call of a helper function stands: errors and the ops'
    locations point at that line."""

    def __init__(self, filename, line):
        self.filename, self.first, self.line_shift, self.col_shift = filename, line, line - 1, 0
        self.lines = [linecache.getline(filename, line)]
        self.func_def = ast.Pass(lineno=1, col_offset=0)
        self.globals, self.closure = {}, {}
