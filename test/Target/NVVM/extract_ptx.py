#!/usr/bin/env python3
"""Extracts the PTX of a gpu.binary from tile-opt's textual output.

Usage: extract_ptx.py INPUT OUTPUT [--kernel NAME]

INPUT is the MLIR that `tile-opt --tile-to-nvvm='... format=isa'` prints
("-" for stdin); OUTPUT receives the PTX of the first gpu.object of the
gpu.binary @NAME (of the first gpu.binary when no name is given), as
plain text for ptxas. The PTX is the object's `assembly = "..."` string
(serialized with format=isa) or, for a cubin serialized with
`format=bin keep-isa=true`, its `isa = "..."` property (with format=bin
alone the object holds a cubin and there is no PTX to extract). MLIR prints strings with llvm's escaping:
`\\` is a backslash and `\XX` (two hex digits) any other byte that is not
printable or is a double quote (`\0A` newline, `\09` tab, `\22` quote).

Standard library only.
"""

import argparse
import re
import sys

_BINARY = re.compile(r'gpu\.binary\s+@([\w$.-]+)')
_ASSEMBLY = re.compile(r'\b(?:assembly|isa)\s*=\s*"')


def read_string(text, start):
    """Decodes the MLIR string literal whose body starts at text[start]."""
    out = bytearray()
    i = start
    while i < len(text):
        c = text[i]
        if c == '"':
            return out.decode("utf-8")
        if c == "\\":
            nxt = text[i + 1:i + 3]
            if nxt[:1] == "\\":
                out.append(ord("\\"))
                i += 2
                continue
            if len(nxt) == 2 and all(ch in "0123456789abcdefABCDEF" for ch in nxt):
                out.append(int(nxt, 16))
                i += 3
                continue
            # Other one-character escapes (\" \n \t) are accepted by the
            # MLIR parser too.
            simple = {'"': '"', "n": "\n", "t": "\t"}
            if nxt[:1] in simple:
                out += simple[nxt[:1]].encode()
                i += 2
                continue
            raise ValueError("bad escape at offset %d: %r" % (i, text[i:i + 4]))
        out += c.encode("utf-8")
        i += 1
    raise ValueError("unterminated string literal")


def extract(text, kernel=None):
    for binary in _BINARY.finditer(text):
        if kernel is not None and binary.group(1) != kernel:
            continue
        asm = _ASSEMBLY.search(text, binary.end())
        nxt = _BINARY.search(text, binary.end())
        if asm is None or (nxt is not None and asm.start() > nxt.start()):
            raise ValueError("gpu.binary @%s holds no PTX (assembly = \"...\" or an isa "
                             "property); was it built with format=isa?" % binary.group(1))
        return read_string(text, asm.end())
    raise ValueError("no gpu.binary%s in the input"
                     % ("" if kernel is None else " @" + kernel))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input")
    parser.add_argument("output")
    parser.add_argument("--kernel", default=None,
                        help="name of the gpu.binary (default: the first)")
    args = parser.parse_args()
    if args.input == "-":
        text = sys.stdin.read()
    else:
        with open(args.input, encoding="utf-8") as f:
            text = f.read()
    try:
        ptx = extract(text, args.kernel)
    except ValueError as e:
        sys.stderr.write("extract_ptx.py: error: %s\n" % e)
        return 1
    with open(args.output, "w", encoding="utf-8") as f:
        f.write(ptx)
    return 0


if __name__ == "__main__":
    sys.exit(main())
