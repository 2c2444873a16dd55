#!/usr/bin/env python3
"""Robustness fuzzer of tile-opt: no input may crash or hang it.

Two modes:

  fuzz.py --tile-opt PATH [--budget N] [--seed S] [--jobs J] ...
      Seeds are every .mlir under test/ and examples/ (each split-input-file
      case on its own, lit / FileCheck lines dropped), plus the generic form
      of each seed that parses. N mutants are derived from them by a seeded
      random mutator (delete / duplicate / swap lines and tokens, replace
      integers by 0, -1, INT64_MIN, huge values..., shape dims, element
      types, memory spaces and tile op names, insert snippets, truncate).
      Every seed and mutant is parsed, verified and printed generically;
      those that verify then run through every pipeline: canonicalize + cse,
      tile-verify-target for each target, --verify-roundtrip, the lowerings
      and every tile-* pass or pipeline that `tile-opt --help` lists.
      Inputs run in batches of --batch per tile-opt process
      (--split-input-file); a batch that fails is re-run input by input.

  fuzz.py --tile-opt PATH --check-corpus DIR
      Runs every case of every .mlir in DIR (not its subdirectories:
      Inputs/valid/ holds valid seeds) and requires each one to fail
      cleanly, on its own: exit code 1 and an `error:` diagnostic on its
      lines. A case may pin the diagnostic with a line
      `// EXPECTED-ERROR: text`. Cases run in batches too; a batch that
      does not pass is re-run case by case for the report.

A run fails when tile-opt dies by a signal, exits with a code other than 0
or 1 (other than 1 with --check-corpus), prints "LLVM ERROR", a stack dump
or "PLEASE submit a bug report", or runs longer than --timeout seconds. It
also fails when it prints an error and exits 0, or prints an error without
a location in the input (`<unknown>:0`, `loc(unknown)`, or an `error:` line
without file:line:col), unless the input gave its ops other locations.

The mutations know the structure of tile IR: besides tokens and lines they
change memref types (shapes, element types, memory spaces, layouts: strided,
permuted and non-strided maps) where they are written or everywhere a type
is used (so that the mutant still verifies and reaches the lowerings),
tile op names, threads, num_stages and region terminators.
Unless --no-strict, printing, --verify-roundtrip and --canonicalize --cse
must also succeed on every input that verifies. Failing inputs are saved
in --save-dir and printed with the command that failed. The script ends
with one summary line ("fuzz: ... N crashes") and exits 1 on any failure.

Standard library only; deterministic for a given --seed, --budget, tile-opt
and set of input files.
"""

import argparse
import concurrent.futures
import os
import random
import re
import shlex
import subprocess
import sys
import tempfile
import threading
import time

SCRIPT_DIR = os.path.dirname(os.path.abspath(__file__))
SRC_ROOT = os.path.dirname(os.path.dirname(SCRIPT_DIR))

SPLIT_MARKER = re.compile(r"^// -----\s*$", re.MULTILINE)
SPLIT_LINE = "// -----\n"
# What a crash prints on stderr, at the start of a line (diagnostics echo
# source lines, so markers elsewhere could come from the input).
CRASH_MARKERS = re.compile(
    r"^(LLVM ERROR|Stack dump|PLEASE submit a bug report|.*Assertion `.*' "
    r"failed|UNREACHABLE executed|==\d+==ERROR: AddressSanitizer|"
    r".*runtime error: )", re.MULTILINE)

# Pipelines that must succeed on every input that parses and verifies
# (checked unless --no-strict).
MUST_SUCCEED = ["", "--mlir-print-op-generic", "--verify-roundtrip",
                "--canonicalize --cse"]

# Crashes in upstream MLIR (libMLIR of LLVM 22) that no code of ours can
# avoid: inputs that match are neither used as seeds nor generated.
KNOWN_UPSTREAM_CRASHES = [
    ([re.compile(r"array\s*<\s*index\b")],
     "DenseArrayAttr parser segfaults on `array<index: ...>` (getIntOrFloat"
     "BitWidth of index): llvm/llvm-project#179045, fixed after LLVM 22 by "
     "llvm/llvm-project#179075"),
    ([re.compile(r"memref\.dim"),
      re.compile(r"(?:arith\.constant|value =)\s*-\d+\s*:\s*index")],
     "canonicalize segfaults on memref.dim with a negative constant index "
     "once the gpu dialect is loaded (which the tile lowerings do): "
     "SimplifyDimOfAllocOp, llvm/llvm-project#205073, fixed after LLVM 22 "
     "by llvm/llvm-project#205338"),
    ([re.compile(r'^(?!.*offloadingHandler).*"gpu\.binary"', re.MULTILINE)],
     "gpu.binary's custom printer segfaults on an op without offloadingHandler, "
     "which only the generic form can build (the custom parser sets the "
     "default): mlir-opt of LLVM 22 crashes the same way"),
]


# An error diagnostic as the SourceMgr handler prints it: `LOC: error: `
# at the start of a line (LOC empty for a diagnostic without a location).
# (The echo of a source line under a diagnostic may hold `error:` too, after
# text with spaces: a location has none.)
ERROR_LINE = re.compile(r"^(?:(?P<loc>\S+): )?error: ", re.MULTILINE)
FILE_LINE_COL = re.compile(r"^(?!<unknown>:0$).+:\d+:\d+$")
# A location of the input other than `loc("file":line:col)`: errors at
# such ops cannot point into a file.
FOREIGN_LOC = re.compile(r'loc\((?!\s*"[^"\n]*"\s*:\s*\d+\s*:\s*\d+\s*\))|#loc')


def diagnostic_problem(text, returncode, err):
    """Why the diagnostics of a run that ended with `returncode` are wrong,
    or None: an error must make the run fail, and it must point into the
    input (file:line:col), unless the input itself gave its ops other
    locations."""
    errors = list(ERROR_LINE.finditer(err))
    if not errors:
        return None
    if returncode == 0:
        return "exit code 0 after an error: %s" % errors[0].group(0).strip()
    if FOREIGN_LOC.search(text):
        return None
    for m in errors:
        loc = m.group("loc")
        if loc is None or not FILE_LINE_COL.match(loc):
            line = err[m.start():].split("\n", 1)[0]
            return "error without a location: %s" % line[:160]
    if re.search(r"loc\(unknown\)", err):
        return "a diagnostic prints loc(unknown)"
    return None


def known_upstream_crash(text):
    return any(all(regex.search(text) for regex in regexes)
               for regexes, _ in KNOWN_UPSTREAM_CRASHES)


# Pipelines every input runs with ('' is parse + verify + print).
BASE_PIPELINES = [
    "",
    "--canonicalize --cse",
    "--tile-verify-target=target=sm_80",
    "--tile-verify-target=target=cpu",
    "--tile-verify-target=target=sm_90a",
    "--tile-verify-target=target=gfx942",
    "--mlir-print-op-generic",
    "--verify-roundtrip",
    "--canonicalize --tile-verify-target=target=sm_90a --mlir-print-op-generic",
    # Lowerings, where tile-opt has them (pipelines naming a flag that
    # --help does not list are dropped).
    "--tile-lower-ops --tile-lower-kernel",
    "--tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a",
    "--tile-lower-ops=target=gfx942",
    "--tile-plan-shared=target=sm_80 --tile-place-buffers=target=sm_80 --tile-software-pipeline=target=sm_80 --tile-plan-scratch=target=sm_80 --tile-lower-ops=target=sm_80",
    "--tile-lower-kernel",
    "--tile-lower-kernel=target=sm_80",
    "--tile-infer-layouts=target=sm_90a",
    "--tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a",
    "--tile-to-nvvm='chip=sm_80 format=isa'",
]

# ---------------------------------------------------------------------------
# Mutation vocabulary
# ---------------------------------------------------------------------------

TILE_OPS = [
    "kernel", "yield", "alloc_shared", "alloc_fragment", "alloc_local",
    "copy", "gemm", "gemm_sp", "fill", "clear", "reduce", "atomic_add",
    "atomic_max", "atomic_min", "parallel", "pipelined", "annotate_layout",
]

INTERESTING_INTS = [
    "0", "-1", "1", "2", "3", "4", "7", "8", "16", "31", "32", "33", "63",
    "64", "127", "128", "255", "256", "1023", "1024", "1025", "4096",
    "65536", "2147483647", "2147483648", "-2147483648", "4294967295",
    "4294967296", "9223372036854775807", "-9223372036854775807",
    "-9223372036854775808", "9223372036854775808", "18446744073709551615",
    "18446744073709551616", "99999999999999999999999999999", "-2", "-128",
    "-1024", "1048576", "1048577", "1073741824",
]

TYPES = [
    "f16", "f32", "f64", "bf16", "i1", "i2", "i4", "i8", "i16", "i32", "i64",
    "i128", "si8", "ui8", "index", "f8E4M3FN", "f8E5M2", "f8E4M3FNUZ",
    "f8E5M2FNUZ", "tf32", "f4E2M1FN", "f6E2M3FN", "complex<f32>",
    "vector<4xf16>", "tensor<4xf16>", "none", "memref<4xf16>",
    "memref<?xf16>", "memref<*xf16>", "tuple<>", "!llvm.ptr",
    "memref<4xf16, #tile.scope<shared>>", "i0",
]
TYPE_RE = re.compile(
    r"(?<![\w%#@^.!])(?:f16|f32|f64|bf16|tf32|i1|i8|i16|i32|i64|index|"
    r"f8E4M3FN|f8E5M2|f8E4M3FNUZ|f8E5M2FNUZ)(?![\w])")

SPACES = [
    "#tile.scope<shared>", "#tile.scope<fragment>", "#tile.scope<local>",
    "#tile.scope<global>", "#tile.scope<>", "#tile.scope<shared, shared>",
    "#tile.policy<square>", "#tile.copy_inst<tma>", "#tile.swizzle<3, 4, 3>",
    "3", "0", "-1", "\"shared\"", "#gpu.address_space<workgroup>",
    "#gpu.address_space<private>", "[]", "unit", "#tile.scope<local>",
]
SPACE_RE = re.compile(r"#tile\.scope<\w*>")

SNIPPETS = [
    "[", "]", "(", ")", "{", "}", "<", ">", ",", ":", "=", "?", "->", "x",
    "to", "in", "threads", "threads(0)", "cluster", "cluster(2)",
    "num_stages", "step", "layout", "dim", "into", "attributes", "%c0",
    "%0", "%bx", "0", "-1", "[0, 0]", "[1, 1]", "[]", "{}", "<{}>",
    "{transpose_a}", "{transpose_b}", "{clear_accum}", "{clear = false}",
    "{inst = #tile.copy_inst<cp_async>}", "{inst = #tile.copy_inst<tma>}",
    "{inst = #tile.copy_inst<ldmatrix>}", "{inst = #tile.copy_inst<stmatrix>}",
    "{pad = 0.0 : f16}", "{pad = 1 : i32}", "{pad = \"x\"}",
    "{order = array<i64: 1, 0>}", "{stage = array<i64: 0, 5>}",
    "{order = array<i64: -9223372036854775808>}",
    "{cluster = array<i64: 0>}", "{cluster = array<i64>}",
    "{policy = #tile.policy<full_row>}",
    "#tile.swizzle<3, 4, 3>", "#tile.swizzle<-1, 0, 0>",
    "#tile.swizzle<40, 40, 40>",
    "#tile.fragment<[16, 8], threads = 32, (d0, d1) -> (d0, d1)>",
    "#tile.fragment<[4], threads = 4, (d0) -> (d0 floordiv 0, 0)>",
    "#tile.fragment<[4], threads = 4, (d0) -> (d0 mod -3, 0)>",
    "#tile.fragment<[4], threads = 4, (d0) -> (d0 * 9223372036854775807, 0)>",
    "^bb1:", "^bb0(%z: i32):", "tile.yield", "\"tile.yield\"() : () -> ()",
    "func.return", "memref<?x?xf16>", "memref<0xf16, #tile.scope<shared>>",
    "array<i64: -9223372036854775808>", "array<i32: 1, 0, 1, 0>",
    "array<i32: -1, 2, 1, 0>", "array<i32: 1, 9, 1, 9>", "array<i64>",
    "operandSegmentSizes = array<i32: 1, 1, 1, 1>",
    "static_grid = array<i64: -9223372036854775808>",
    "dense<1> : tensor<2xi64>", "unit", "loc(unknown)",
    "0x7FFFFFFFFFFFFFFF", "1.0e309",
]

TOKEN_RE = re.compile(
    r'"(?:[^"\\\n]|\\.)*"'           # string
    r"|[%@#^!][\w.$-]*"              # ssa / symbol / attr alias / block
    r"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?"
    r"|[A-Za-z_][\w.$]*"
    r"|->|\S")
INT_RE = re.compile(r"(?<![\w%#@^.$])-?\d+(?![\w.])")
DIM_RE = re.compile(r"(?<=[<x])(?:\d+|\?)(?=x)")
OPNAME_RE = re.compile(r"tile\.(" + "|".join(sorted(TILE_OPS, key=len,
                                                      reverse=True)) + r")\b")


def _pick_match(rng, regex, text):
    matches = list(regex.finditer(text))
    if not matches:
        return None
    return rng.choice(matches)


def _splice(text, start, end, repl):
    return text[:start] + repl + text[end:]


def _lines(text):
    return text.split("\n")


def mut_delete_line(rng, text):
    lines = _lines(text)
    if len(lines) < 2:
        return None
    del lines[rng.randrange(len(lines))]
    return "\n".join(lines)


def mut_duplicate_line(rng, text):
    lines = _lines(text)
    i = rng.randrange(len(lines))
    lines.insert(rng.randrange(len(lines) + 1), lines[i])
    return "\n".join(lines)


def mut_swap_lines(rng, text):
    lines = _lines(text)
    if len(lines) < 2:
        return None
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def mut_delete_token(rng, text):
    m = _pick_match(rng, TOKEN_RE, text)
    return None if m is None else _splice(text, m.start(), m.end(), "")


def mut_duplicate_token(rng, text):
    m = _pick_match(rng, TOKEN_RE, text)
    return None if m is None else _splice(text, m.start(), m.end(),
                                          m.group() + " " + m.group())


def mut_swap_tokens(rng, text):
    toks = list(TOKEN_RE.finditer(text))
    if len(toks) < 2:
        return None
    i = rng.randrange(len(toks))
    # Mostly nearby tokens: they keep the rest of the line intact.
    j = i + rng.choice([1, 2, 3]) if rng.random() < 0.7 else \
        rng.randrange(len(toks))
    j = min(j, len(toks) - 1)
    if i == j:
        return None
    a, b = sorted((toks[i], toks[j]), key=lambda m: m.start())
    return (text[:a.start()] + b.group() + text[a.end():b.start()] +
            a.group() + text[b.end():])


def mut_replace_int(rng, text):
    m = _pick_match(rng, INT_RE, text)
    return None if m is None else _splice(text, m.start(), m.end(),
                                          rng.choice(INTERESTING_INTS))


def mut_replace_dim(rng, text):
    m = _pick_match(rng, DIM_RE, text)
    if m is None:
        return None
    repl = rng.choice(["0", "1", "?", "2", "3", "7", "65536",
                       "9223372036854775807", m.group() + "x1",
                       "1x" + m.group(), "4294967296"])
    return _splice(text, m.start(), m.end(), repl)


def mut_replace_type(rng, text):
    m = _pick_match(rng, TYPE_RE, text)
    return None if m is None else _splice(text, m.start(), m.end(),
                                          rng.choice(TYPES))


def mut_replace_space(rng, text):
    m = _pick_match(rng, SPACE_RE, text)
    if m is None:
        return None
    repl = rng.choice(SPACES)
    start = m.start()
    if rng.random() < 0.25:
        # Drop the memory space altogether: `, #tile.scope<...>` -> ``.
        comma = text.rfind(",", 0, start)
        if comma != -1 and text[comma + 1:start].strip() == "":
            start, repl = comma, ""
    return _splice(text, start, m.end(), repl)


def mut_replace_opname(rng, text):
    m = _pick_match(rng, OPNAME_RE, text)
    return None if m is None else _splice(text, m.start(1), m.end(1),
                                          rng.choice(TILE_OPS))


def mut_insert_snippet(rng, text):
    toks = list(TOKEN_RE.finditer(text))
    pos = rng.choice(toks).end() if toks else 0
    return _splice(text, pos, pos, " " + rng.choice(SNIPPETS) + " ")


def mut_replace_token(rng, text):
    m = _pick_match(rng, TOKEN_RE, text)
    return None if m is None else _splice(text, m.start(), m.end(),
                                          rng.choice(SNIPPETS))


def mut_truncate(rng, text):
    if len(text) < 2:
        return None
    return text[:rng.randrange(1, len(text))]


def mut_copy_token(rng, text):
    """Replaces a token with another token of the same file."""
    toks = list(TOKEN_RE.finditer(text))
    if len(toks) < 2:
        return None
    a, b = rng.choice(toks), rng.choice(toks)
    return _splice(text, a.start(), a.end(), b.group())


ARRAY_RE = re.compile(r"array<(i\d+)(?::\s*([^>]*))?>")
ATTR_ENTRY_RE = re.compile(r"(?<=[{,])\s*[A-Za-z_][\w.]*\s*=\s*"
                           r"(?:array<[^>]*>|#[\w.]+<[^>]*>|[^,}<>]+)(?=[,}])")


def mut_array(rng, text):
    """Grows, shrinks or poisons a dense array (static offsets, grids,
    operandSegmentSizes, order / stage lists...)."""
    m = _pick_match(rng, ARRAY_RE, text)
    if m is None:
        return None
    elems = [e.strip() for e in (m.group(2) or "").split(",") if e.strip()]
    choice = rng.randrange(4)
    if choice == 0 and elems:
        del elems[rng.randrange(len(elems))]
    elif choice == 1:
        elems.insert(rng.randrange(len(elems) + 1),
                     rng.choice(INTERESTING_INTS[:12] +
                                ["-9223372036854775808"]))
    elif choice == 2 and elems:
        elems[rng.randrange(len(elems))] = rng.choice(INTERESTING_INTS)
    else:
        elems = list(reversed(elems))
    body = "array<%s%s>" % (m.group(1),
                            (": " + ", ".join(elems)) if elems else "")
    return _splice(text, m.start(), m.end(), body)


def mut_attr_entry(rng, text):
    """Deletes an entry of an attribute dictionary or moves it to another
    dictionary (an op's attribute on another op)."""
    entries = list(ATTR_ENTRY_RE.finditer(text))
    if not entries:
        return None
    m = rng.choice(entries)
    if rng.random() < 0.5:
        start, end = m.start(), m.end()
        if text[start - 1] == ",":
            start -= 1  # `, name = value`
        elif text[end:end + 1] == ",":
            end += 1  # `{name = value, ...`
        return _splice(text, start, end, "")
    other = rng.choice(entries)
    pos = other.end()
    return _splice(text, pos, pos, "," + m.group())


MEMREF_RE = re.compile(r"memref<(?P<shape>(?:(?:\d+|\?)x)*)"
                       r"(?P<elt>[A-Za-z]\w*)(?P<rest>(?:[^<>]|<[^<>]*"
                       r"(?:<[^<>]*>[^<>]*)*>)*)>")


def _layouts(rank):
    """Layouts for a memref of `rank`: strided ones the lowerings take, and
    permutations, non-strided maps and maps of the wrong rank."""
    dims = ["d%d" % i for i in range(rank)]
    args = "(%s)" % ", ".join(dims)
    out = ["strided<[%s]>" % ", ".join(["?"] * rank),
           "strided<[%s], offset: ?>" % ", ".join(["?"] * (rank - 1) + ["1"]),
           "strided<[%s]>" % ", ".join(["0"] * rank),
           "affine_map<%s -> (%s)>" % (args, ", ".join(dims)),
           "affine_map<(d0) -> (d0 floordiv 2)>",
           "strided<[1]>", "strided<[-1, 1]>"]
    if rank >= 2:
        out.append("affine_map<%s -> (%s)>" % (args,
                                               ", ".join(reversed(dims))))
        out.append("affine_map<%s -> (%s)>" % (
            args, ", ".join(dims[:-1] + [dims[-1] + " floordiv 2"])))
        out.append("strided<[1, %s]>" % ", ".join(["?"] * (rank - 1)))
    return out


def _mutate_memref(rng, m):
    """One structural change of the memref type `m` (a MEMREF_RE match):
    a dim, the element type, the memory space or the layout."""
    shape = [d for d in m.group("shape").split("x") if d]
    elt, rest = m.group("elt"), m.group("rest")
    choice = rng.randrange(5)
    if choice == 0 and shape:
        shape[rng.randrange(len(shape))] = rng.choice(
            ["0", "1", "?", "3", "17", "4096", "65536", "1048576",
             "2147483648", "4294967296", "9223372036854775807"])
    elif choice == 1:
        elt = rng.choice(["f16", "f32", "f64", "bf16", "i1", "i4", "i8",
                          "i16", "i32", "i64", "ui8", "si8", "ui32", "si32",
                          "index", "f8E4M3FN", "f8E5M2", "tf32",
                          "complex<f32>", "vector<4xf32>"])
    elif choice == 2:
        rest = re.sub(r",\s*(#tile\.scope<\w*>|\d+|#gpu\.[^,>]*>)\s*$", "",
                      rest)
        if rng.random() < 0.8:
            rest += ", " + rng.choice(SPACES[:4] + ["3", "5",
                                      "#gpu.address_space<workgroup>"])
    elif choice == 3:
        rest = re.sub(r"^,\s*(strided<[^>]*>|affine_map<[^>]*>)", "", rest)
        rest = ", " + rng.choice(_layouts(max(1, len(shape)))) + rest
    else:
        shape = shape + ["1"] if rng.random() < 0.5 else shape[1:]
    return "memref<%s%s%s>" % ("".join(d + "x" for d in shape), elt, rest)


def mut_memref_one(rng, text):
    """Changes one memref type where it is written."""
    m = _pick_match(rng, MEMREF_RE, text)
    return None if m is None else _splice(text, m.start(), m.end(),
                                          _mutate_memref(rng, m))


def mut_memref_all(rng, text):
    """Changes a memref type everywhere it is written, so that the ops
    that share a buffer still agree: the mutant keeps verifying and goes
    on to the lowerings with odd shapes, element types, memory spaces
    (function arguments in shared memory) and layouts."""
    m = _pick_match(rng, MEMREF_RE, text)
    if m is None:
        return None
    return text.replace(m.group(0), _mutate_memref(rng, m))


def mut_threads(rng, text):
    m = _pick_match(rng, re.compile(r"(?<=threads\()\s*\d+\s*(?=\))|"
                                    r"(?<=threads = )\d+"), text)
    return None if m is None else _splice(text, m.start(), m.end(), rng.choice(
        ["0", "1", "2", "31", "32", "33", "64", "96", "127", "128", "192",
         "256", "384", "512", "640", "1024", "1025", "2048", "65536",
         "2147483648", "9223372036854775807"]))


def mut_stages(rng, text):
    m = _pick_match(rng, re.compile(r"(?<=num_stages = )-?\d+"), text)
    return None if m is None else _splice(text, m.start(), m.end(), rng.choice(
        ["-1", "0", "1", "2", "3", "4", "5", "8", "64", "1024",
         "2147483648", "9223372036854775807"]))


TERMINATORS = ["tile.yield", "\"tile.yield\"() : () -> ()", "func.return",
               "return", "scf.yield", "tile.yield %c0 : index",
               "llvm.unreachable", "cf.br ^bb1", "gpu.return",
               "\"tile.yield\"(%c0) : (index) -> ()"]


def mut_terminator(rng, text):
    """Deletes, duplicates or replaces the terminator of a region, or puts
    one where a region's body goes on."""
    lines = _lines(text)
    ends = [i for i, l in enumerate(lines) if l.strip() == "}"]
    terms = [i for i, l in enumerate(lines)
             if re.match(r"\s*(tile\.yield|\"tile\.yield\"|return|"
                         r"func\.return)\b", l)]
    choice = rng.randrange(4)
    if choice == 0 and terms:
        del lines[rng.choice(terms)]
    elif choice == 1 and terms:
        i = rng.choice(terms)
        lines[i] = re.sub(r"\S.*", rng.choice(TERMINATORS), lines[i], 1)
    elif choice == 2 and ends:
        lines.insert(rng.choice(ends), "  " + rng.choice(TERMINATORS))
    elif len(lines) > 1:
        lines.insert(rng.randrange(1, len(lines)),
                     "  " + rng.choice(TERMINATORS))
    else:
        return None
    return "\n".join(lines)


MUTATORS = [
    (mut_delete_line, 3), (mut_duplicate_line, 3), (mut_swap_lines, 2),
    (mut_delete_token, 4), (mut_duplicate_token, 1), (mut_swap_tokens, 3),
    (mut_replace_int, 6), (mut_replace_dim, 4), (mut_replace_type, 4),
    (mut_replace_space, 3), (mut_replace_opname, 3),
    (mut_insert_snippet, 4), (mut_replace_token, 3), (mut_truncate, 1),
    (mut_copy_token, 3), (mut_array, 4), (mut_attr_entry, 3),
    (mut_memref_one, 3), (mut_memref_all, 6), (mut_threads, 2),
    (mut_stages, 2), (mut_terminator, 3),
]
_MUT_FUNCS = [f for f, _ in MUTATORS]
_MUT_WEIGHTS = [w for _, w in MUTATORS]


def mutate(rng, text):
    """One to three mutations of `text`; never returns `text` unchanged nor
    an input that hits a known upstream crash."""
    for _ in range(50):
        out = text
        for _ in range(rng.choice([1, 1, 1, 2, 2, 3])):
            func = rng.choices(_MUT_FUNCS, weights=_MUT_WEIGHTS)[0]
            res = func(rng, out)
            if res is not None:
                out = res
        if out != text and not known_upstream_crash(out):
            return out
    return text + "\n}"


# ---------------------------------------------------------------------------
# Running tile-opt
# ---------------------------------------------------------------------------


class Runner:
    def __init__(self, tile_opt, timeout, save_dir, verbose):
        self.tile_opt = tile_opt
        self.timeout = timeout
        self.save_dir = save_dir
        self.verbose = verbose
        self.lock = threading.Lock()
        self.runs = 0
        self.failures = []

    def command(self, pipeline, split=False, path="-"):
        return ([self.tile_opt] + shlex.split(pipeline) +
                (["--split-input-file"] if split else []) + [path])

    def run(self, text, pipeline, split=False, timeout=None):
        """Runs tile-opt on `text`; returns (rc, stdout, stderr, problem).

        `problem` is None when the run ended cleanly."""
        with self.lock:
            self.runs += 1
        timeout = timeout or self.timeout
        try:
            proc = subprocess.run(self.command(pipeline, split),
                                  input=text.encode("utf-8", "replace"),
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, timeout=timeout)
        except subprocess.TimeoutExpired as e:
            return None, "", (e.stderr or b"").decode("utf-8", "replace"), \
                "timed out after %gs" % timeout
        err = proc.stderr.decode("utf-8", "replace")
        out = proc.stdout.decode("utf-8", "replace")
        problem = None
        if proc.returncode < 0:
            problem = "killed by signal %d" % -proc.returncode
        elif proc.returncode not in (0, 1):
            problem = "exit code %d" % proc.returncode
        else:
            match = CRASH_MARKERS.search(err)
            if match:
                problem = "printed %r" % match.group(0)[:80]
        if problem is None:
            problem = diagnostic_problem(text, proc.returncode, err)
        return proc.returncode, out, err, problem

    def report(self, problem, text, pipeline, err, origin, split=False):
        """Saves a failing input and prints it with the command."""
        with self.lock:
            index = len(self.failures)
            self.failures.append(problem)
            os.makedirs(self.save_dir, exist_ok=True)
            path = os.path.join(self.save_dir, "failure-%04d.mlir" % index)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            cmd = " ".join(shlex.quote(a) for a in
                           self.command(pipeline, split, path))
            print("FAILURE %d: %s (from %s)\n  command: %s" %
                  (index, problem, origin, cmd))
            if self.verbose or len(self.failures) <= 5:
                print("  --- input ---")
                for line in text.splitlines()[:80]:
                    print("  | " + line)
                print("  --- stderr (tail) ---")
                for line in err.strip().splitlines()[-25:]:
                    print("  ! " + line)
            sys.stdout.flush()

    def run_batch(self, cases, pipeline):
        """Runs `cases` [(origin, text)] in one process (--split-input-file).

        Returns the stdout of each case (None where it failed or could not
        be told apart) and reports every problem. A batch that fails is
        re-run case by case to find the culprits."""
        if len(cases) == 1:
            origin, text = cases[0]
            rc, out, err, problem = self.run(text, pipeline)
            if problem:
                self.report(problem, text, pipeline, err, origin)
            return [out if rc == 0 and not problem else None]
        text = "".join(t.rstrip("\n") + "\n" + SPLIT_LINE
                       for _, t in cases[:-1]) + cases[-1][1]
        # A batch that times out is re-run input by input: only an input
        # that hangs on its own is a failure.
        rc, out, err, problem = self.run(text, pipeline, split=True,
                                         timeout=2 * self.timeout)
        if problem:
            before = len(self.failures)
            for case in cases:
                self.run_batch([case], pipeline)
            if len(self.failures) == before and rc is not None:
                # Only together: report the whole batch.
                self.report(problem + " (only as a batch)", text, pipeline,
                            err, "batch of %s" % cases[0][0], split=True)
            return [None] * len(cases)
        outs = SPLIT_MARKER.split(out)
        if len(outs) != len(cases):
            return [None] * len(cases)
        return [o if o.strip() else None for o in outs]


def discover_pipelines(tile_opt):
    """BASE_PIPELINES plus a run of every tile-* pass or pipeline that
    `tile-opt --help-hidden` lists."""
    try:
        help_text = subprocess.run([tile_opt, "--help-hidden"],
                                   stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, timeout=60,
                                   ).stdout.decode("utf-8", "replace")
    except (OSError, subprocess.TimeoutExpired) as e:
        sys.exit("fuzz: cannot run %s --help-hidden: %s" % (tile_opt, e))
    known = set(re.findall(r"^\s*(--[\w-]+)", help_text, re.MULTILINE))
    pipelines = [p for p in BASE_PIPELINES
                 if all(arg.split("=")[0] in known
                        for arg in shlex.split(p))]
    # Passes are listed as `      --name   -   summary` (6 spaces); their
    # options are indented deeper.
    names = re.findall(r"^ {6}--(tile-[\w-]+)\s", help_text, re.MULTILINE)
    for name in sorted(set(names)):
        flag = "--" + name
        if not any(p == flag or p.startswith(flag + "=") or
                   (" " + flag) in (" " + p) for p in pipelines):
            pipelines.append(flag)
    return pipelines


def collect_files(roots):
    files = []
    for root in roots:
        if os.path.isfile(root):
            files.append(root)
            continue
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith(".mlir"):
                    files.append(os.path.join(dirpath, name))
    return sorted(set(files))


def split_cases(text):
    return [c for c in SPLIT_MARKER.split(text) if c.strip()]


def read_text(path):
    with open(path, "rb") as f:
        return f.read().decode("utf-8", "replace")


# ---------------------------------------------------------------------------
# Modes
# ---------------------------------------------------------------------------


def check_corpus(args, runner, pipelines):
    # Only the top level: subdirectories (valid/) hold seeds, not errors.
    files = sorted(os.path.join(args.check_corpus, name)
                   for name in os.listdir(args.check_corpus)
                   if name.endswith(".mlir"))
    if not files:
        sys.exit("fuzz: no .mlir files under %s" % args.check_corpus)
    cases = []  # (origin, text, expected diagnostics)
    for path in files:
        rel = os.path.relpath(path, args.check_corpus)
        for i, case in enumerate(split_cases(read_text(path))):
            expected = re.findall(r"//\s*EXPECTED-ERROR:\s*(.*\S)", case)
            cases.append(("%s#%d" % (rel, i), case, expected))

    def check_one(case, pipeline):
        origin, text, expected = case
        rc, _, err, problem = runner.run(text, pipeline)
        if problem is None and rc != 1:
            problem = "expected exit code 1 (a clean failure), got %d" % rc
        if problem is None and "error:" not in err:
            problem = "exit code 1 but no 'error:' diagnostic"
        if problem is None:
            for want in expected:
                if want not in err:
                    problem = "diagnostic %r not found" % want
        if problem:
            runner.report(problem, text, pipeline, err, origin)

    def check_batch(job):
        """All of `batch` in one process (--split-input-file): each case
        must print nothing (it failed) and have an error on its own lines;
        a batch that does not pass is checked again case by case."""
        batch, pipeline = job
        texts = [t.rstrip("\n") + "\n" for _, t, _ in batch]
        rc, out, err, problem = runner.run(SPLIT_LINE.join(texts), pipeline,
                                           split=True,
                                           timeout=runner.timeout * len(batch))
        outs = SPLIT_MARKER.split(out)
        errors = [(int(line), msg) for line, msg in re.findall(
            r"^<stdin>:(\d+):\d+: error: (.*)$", err, re.MULTILINE)]
        ok = problem is None and rc == 1 and len(outs) == len(batch)
        first = 1
        for i, (_, text, expected) in enumerate(batch):
            last = first + texts[i].count("\n")  # its marker line
            mine = " ".join(msg for line, msg in errors if first <= line < last)
            if not ok or outs[i].strip() or not mine or \
                    any(want not in mine for want in expected):
                ok = False
                break
            first = last + 1
        if not ok:
            for case in batch:
                check_one(case, pipeline)

    jobs = [(b, p) for b in batches(cases, args.batch) for p in pipelines]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        list(pool.map(check_batch, jobs))
    print("fuzz: corpus %s: %d files, %d cases, %d pipelines, %d runs, %d "
          "failures" % (args.check_corpus, len(files), len(cases),
                        len(pipelines), runner.runs, len(runner.failures)))
    return 1 if runner.failures else 0


def batches(items, size):
    return [items[i:i + size] for i in range(0, len(items), size)]


def fuzz(args, runner, pipelines):
    roots = args.inputs or [os.path.join(SRC_ROOT, "test"),
                            os.path.join(SRC_ROOT, "examples")]
    files = collect_files(roots)
    seeds = []  # (origin, text)
    for path in files:
        rel = os.path.relpath(path, SRC_ROOT)
        text = read_text(path)
        if re.search(r"^\s*//\s*XFAIL:", text, re.MULTILINE):
            continue  # A known bug, tracked by its own lit test.
        for i, case in enumerate(split_cases(text)):
            # Drop lit/FileCheck lines: they only dilute the mutations.
            case = "\n".join(l for l in case.split("\n")
                             if not re.match(r"\s*//\s*(RUN:|expected-|"
                                             r"[A-Z][A-Z0-9_-]*:)", l))
            if not known_upstream_crash(case):
                seeds.append(("%s#%d" % (rel, i), case))
    if not seeds:
        sys.exit("fuzz: no seed inputs found under %s" % " ".join(roots))

    # Pipeline 0 ('', parse + verify) is replaced by the generic printer in
    # the first phase: it parses and verifies every input and tells which
    # ones are valid (non-empty output). The passes then only run on those:
    # on the others they would fail in the same parser and verifier.
    first = "--mlir-print-op-generic"
    later = [p for p in pipelines if p != first]

    def check(inputs, pool, passes=True):
        """Runs `inputs` through every pipeline (through the first one only
        unless `passes`); returns the valid ones with their generic forms."""
        outs = []
        for chunk_outs in pool.map(lambda b: runner.run_batch(b, first),
                                   batches(inputs, args.batch)):
            outs += chunk_outs
        valid = [(inp, out) for inp, out in zip(inputs, outs)
                 if out and not known_upstream_crash(out)]
        jobs = [(b, p) for b in batches([v for v, _ in valid], args.batch)
                for p in (later if passes else [])]
        results = pool.map(lambda j: runner.run_batch(*j), jobs)
        if args.strict:
            # Printing, round-tripping and canonicalizing valid IR must
            # succeed: a failure there is a printer / parser mismatch or a
            # pattern that breaks the IR.
            for (cases, pipeline), outs in zip(jobs, results):
                if pipeline not in MUST_SUCCEED:
                    continue
                for case, out in zip(cases, outs):
                    if out is not None:
                        continue
                    rc, _, err, problem = runner.run(case[1], pipeline)
                    if rc == 1 and not problem:
                        first_error = next((l for l in err.splitlines()
                                            if "error:" in l), "")
                        runner.report("valid input, but the pipeline fails: "
                                      + first_error.strip(), case[1],
                                      pipeline, err, case[0])
        else:
            list(results)
        return valid

    start = time.time()
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        valid_seeds = check(seeds, pool, passes=args.seed_passes)
        # Generic forms of the valid seeds: the verifiers see them without
        # the custom parsers in front. They parse into the same IR as their
        # seeds, so the passes need not see them again (their mutants do).
        generic = [("%s:generic" % origin, out)
                   for (origin, _), out in valid_seeds]
        if args.no_generic:
            generic = []
        else:
            valid_seeds += check(generic, pool, passes=False)
        pool_all = seeds + generic
        pool_valid = [seed for seed, _ in valid_seeds] or pool_all
        rng = random.Random(args.seed)
        mutants = []
        for n in range(args.budget):
            # Mostly valid parents: their mutants get further.
            parents = pool_valid if rng.random() < 0.8 else pool_all
            origin, text = parents[rng.randrange(len(parents))]
            mutants.append(("%s~%d" % (origin, n), mutate(rng, text)))
        # Mutants in rounds, so that --time-limit can stop between two.
        valid_mutants, tested = [], 0
        step = max(1, args.jobs * args.batch * 2)
        for first_mutant in range(0, len(mutants), step):
            if args.time_limit and time.time() - start > args.time_limit:
                break
            valid_mutants += check(mutants[first_mutant:first_mutant + step],
                                   pool)
            tested = min(len(mutants), first_mutant + step)
    elapsed = time.time() - start
    crashes = len(runner.failures)
    if tested < len(mutants):
        print("fuzz: --time-limit %gs reached after %d of %d mutants" %
              (args.time_limit, tested, len(mutants)))
    print("fuzz: %d inputs (%d seeds from %d files, %d generic forms, %d "
          "mutants of which %d valid), %d pipelines, %d runs, %d crashes, "
          "%.1fs" %
          (len(seeds) + len(generic) + tested, len(seeds), len(files),
           len(generic), tested, len(valid_mutants), len(pipelines),
           runner.runs, crashes, elapsed))
    if crashes:
        print("fuzz: failing inputs saved in %s" % runner.save_dir)
    return 1 if crashes else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tile-opt", default="tile-opt",
                        help="tile-opt binary (default: from PATH)")
    parser.add_argument("--budget", type=int, default=1000,
                        help="number of mutants (default 1000)")
    parser.add_argument("--seed", type=int, default=1,
                        help="random seed (default 1)")
    parser.add_argument("--jobs", type=int, default=0,
                        help="parallel runs (default: CPU count, at most 4)")
    parser.add_argument("--batch", type=int, default=16,
                        help="inputs per tile-opt process "
                             "(--split-input-file; default 16)")
    parser.add_argument("--time-limit", type=float, default=0,
                        metavar="SECONDS",
                        help="stop starting new mutants after SECONDS "
                             "(the seeds always run; 0: no limit)")
    parser.add_argument("--timeout", type=float, default=10.0,
                        help="per-run timeout in seconds (default 10)")
    parser.add_argument("--save-dir", default=None,
                        help="where failing inputs go (default: a new "
                             "temporary directory)")
    parser.add_argument("--check-corpus", metavar="DIR", default=None,
                        help="check that every case under DIR fails cleanly "
                             "instead of fuzzing")
    parser.add_argument("--pipeline", action="append", default=None,
                        help="run only these pipelines (repeatable; "
                             "--pipeline= is parse + verify). Default: the "
                             "built-in list and every tile-* pass; with "
                             "--check-corpus, parse + verify, canonicalize "
                             "and the tile-to-* pipelines")
    parser.add_argument("--exclude-pipeline", action="append", default=[],
                        metavar="REGEX",
                        help="drop the pipelines that match REGEX "
                             "(repeatable; a stopgap for a pass under "
                             "construction)")
    parser.add_argument("--no-seed-passes", dest="seed_passes",
                        action="store_false",
                        help="only parse and verify the seeds (their lit "
                             "tests run the passes on them); the mutants "
                             "still run every pipeline")
    parser.add_argument("--no-generic", action="store_true",
                        help="do not add the generic forms of the seeds")
    parser.add_argument("--no-strict", dest="strict", action="store_false",
                        help="do not require printing, --verify-roundtrip "
                             "and --canonicalize --cse to succeed on valid "
                             "inputs")
    parser.add_argument("--verbose", action="store_true",
                        help="print input and stderr of every failure")
    parser.add_argument("inputs", nargs="*",
                        help="seed files or directories (default: test/ "
                             "and examples/ of the source tree)")
    args = parser.parse_args()

    if args.jobs <= 0:
        args.jobs = max(1, min(4, os.cpu_count() or 1))
    tile_opt = args.tile_opt
    if os.sep not in tile_opt:
        import shutil
        found = shutil.which(tile_opt)
        if not found:
            sys.exit("fuzz: %s not found in PATH" % tile_opt)
        tile_opt = found
    # Created on the first failure only.
    save_dir = args.save_dir or os.path.join(
        tempfile.gettempdir(), "tile-fuzz-%d-%d" % (os.getpid(), int(time.time())))
    runner = Runner(tile_opt, args.timeout, save_dir, args.verbose)
    if args.pipeline is not None:
        pipelines = list(args.pipeline)
    else:
        pipelines = discover_pipelines(tile_opt)
        if args.check_corpus:
            # Its inputs never get past the verifier: parse + verify, alone
            # and with all the dialects the full lowerings load, is enough.
            pipelines = [p for p in pipelines
                         if p in ("", "--canonicalize --cse") or
                         re.match(r"--tile-to-\w+(=|$)", p)]
    for pattern in args.exclude_pipeline:
        pipelines = [p for p in pipelines if p == "" or
                     not re.search(pattern, p)]
    if "" not in pipelines:
        pipelines.insert(0, "")
    else:
        pipelines.remove("")
        pipelines.insert(0, "")
    if args.check_corpus:
        return check_corpus(args, runner, pipelines)
    return fuzz(args, runner, pipelines)


if __name__ == "__main__":
    sys.exit(main())
