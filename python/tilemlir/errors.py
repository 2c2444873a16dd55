"""Errors that point at the user's Python line."""

import linecache
import os
import re
import sys


class TVMError(Exception):
    """TVM's base error (`tvm.TVMError`): TileLang programs catch it around
    compiles, so tilemlir's compile errors derive from it."""


class InternalError(TVMError):
    """TVM's `tvm.error.InternalError`, what TileLang raises when a kernel
    does not compile."""


class TileCompileError(InternalError):
    """A kernel failed to compile. The message starts with `file:line:` of the
    user's source, shows that line, and says what to change."""

    def __init__(self, message, filename=None, lineno=None, col=None):
        self.filename = filename
        self.lineno = lineno
        self.col = col
        self.raw_message = message
        super().__init__(format_located(message, filename, lineno, col))


def format_located(message, filename, lineno, col=None):
    if not filename or not lineno:
        return message
    text = f"{filename}:{lineno}:{'' if col is None else str(col) + ':'} {message}"
    line = linecache.getline(filename, lineno)
    if line:
        stripped = line.rstrip("\n")
        text += f"\n    {stripped}"
        if col:
            indent = len(stripped) - len(stripped.lstrip())
            caret = max(col - 1, indent)
            text += "\n    " + " " * caret + "^"
    return text


_DIAG = re.compile(r"^(?P<file>.*?):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning|note|remark): (?P<msg>.*)$")


def from_diagnostics(text, default="compilation failed"):
    """A TileCompileError from the compiler's "file:line:col: error: ..." lines:
    located at the first error, with every line kept."""
    first = None
    lines = []
    for raw in text.strip().splitlines():
        m = _DIAG.match(raw)
        if m and first is None and m.group("sev") == "error":
            first = m
        lines.append(raw)
    if first is None:
        return TileCompileError(text.strip() or default)
    rest = [l for l in lines if l is not first.string]
    msg = "error: " + first.group("msg")
    for extra in rest:
        m = _DIAG.match(extra)
        if m:
            msg += f"\n  {m.group('file')}:{m.group('line')}: {m.group('sev')}: {m.group('msg')}"
        else:
            msg += "\n  " + extra
    return TileCompileError(msg, first.group("file"), int(first.group("line")),
                            int(first.group("col")))


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def caller_location(depth=0):
    """(file, line, column) of the code that called into tilemlir: the first
    frame, `depth` frames or more above the caller of this function, whose
    file is not part of the tilemlir package."""
    frame = sys._getframe(depth + 1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(
            _PACKAGE_DIR + os.sep):
        frame = frame.f_back
    if frame is None:
        return None, None, None
    col = None
    try:
        positions = list(frame.f_code.co_positions())
        line, _, start, _ = positions[frame.f_lasti // 2]
        if line == frame.f_lineno and start is not None:
            col = start + 1
    except (AttributeError, IndexError, ValueError):
        pass
    return frame.f_code.co_filename, frame.f_lineno, col


def at_caller(error):
    """`error` (a TileCompileError without a location) located at the user's
    code that called into tilemlir."""
    if error.filename is not None:
        return error
    filename, line, col = caller_location(1)
    if filename is None:
        return error
    located = TileCompileError(error.raw_message, filename, line, col)
    located.__cause__ = error.__cause__
    return located


class OutOfReach:
    """A TileLang name that tilemlir does not provide (a TVM pass, a
    hardware-aware config search, another backend): importing it works, so
    the rest of a program still runs; calling it or reading its attributes
    raises a TileCompileError that names it, says why, and points at the
    user's line."""

    def __init__(self, name, why):
        self._name = name
        self._why = why

    def _error(self):
        return TileCompileError(f"error: {self._name} is not available in tilemlir: {self._why}",
                                *caller_location(1))

    def __call__(self, *args, **kwargs):
        raise self._error()

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise self._error()

    def __enter__(self):
        raise self._error()

    def __exit__(self, *exc):
        return False

    def __repr__(self):
        return f"<{self._name}: not available in tilemlir>"
