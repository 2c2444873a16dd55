"""Errors that point at the user's Python line."""

import linecache
import re


class TileCompileError(Exception):
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
