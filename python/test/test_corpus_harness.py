"""The corpus harness's pieces that need no TileLang checkout: the
import-only rewrite, factory discovery, driver expansion and the ranking
key of failure causes (benchmark/tilelang_corpus.py)."""

import sys

import pytest

from conftest import REPO

sys.path.insert(0, str(REPO / "benchmark"))

from corpus.report import cause_key  # noqa: E402
from corpus.rewrite import rewrite_imports  # noqa: E402
from corpus import selection  # noqa: E402


def test_rewrite_changes_import_lines_only_and_keeps_the_names_bound():
    src = ("import tilelang\n"
           "import tilelang.language as T\n"
           "import tilelang.testing\n"
           "from tilelang import tvm\n"
           "from tilelang.layout import (make_swizzled_layout,\n"
           "                             Fragment)\n"
           "import torch, tvm.tirx\n"
           "x = 'import tilelang'\n"
           "def f():\n"
           "    from tvm import tirx; y = 1\n"
           "    from .local import tilelang\n")
    out, n = rewrite_imports(src)
    lines = out.splitlines()
    assert n == 7 and len(lines) == len(src.splitlines())
    assert lines[0] == "import tilemlir as tilelang"
    assert lines[1] == "import tilemlir.language as T"
    assert lines[2] == "import tilemlir.testing, tilemlir as tilelang"
    assert lines[3] == "from tilemlir import tvm"
    assert lines[4] == "from tilemlir.layout import make_swizzled_layout, Fragment"
    assert lines[5] == ""
    assert lines[6] == "import torch, tilemlir.tvm.tirx, tilemlir.tvm as tvm"
    assert lines[7] == "x = 'import tilelang'"
    assert lines[9] == "    from tilemlir.tvm import tirx; y = 1"
    assert lines[10] == "    from .local import tilelang"


def test_rewritten_program_runs_against_tilemlir():
    out, _ = rewrite_imports("import tilelang\nimport tilelang.language as T\n"
                             "n = tilelang.cdiv(10, 4)\n")
    scope = {}
    exec(compile(out, "<rewritten>", "exec"), scope)
    assert scope["n"] == 3 and scope["T"].__name__ == "tilemlir.language"


def test_factories_are_the_top_level_functions_that_hold_kernels():
    src = ("import tilelang\n"
           "@tilelang.jit(out_idx=[-1])\n"
           "def gemm(M):\n"
           "    @T.prim_func\n"
           "    def main(A): pass\n"
           "    return main\n"
           "def helper(): pass\n"
           "@T.prim_func\n"
           "def direct(A): pass\n"
           "def test_inline():\n"
           "    @T.prim_func\n"
           "    def k(A): pass\n")
    assert selection.find_factories(src) == [("gemm", 2, 6), ("direct", 8, 9), ("test_inline", 10, 12)]


def test_tests_calling_a_module():
    src = ("import example_gemm\n"
           "def test_a():\n    example_gemm.main()\n"
           "def test_b():\n    other.main()\n"
           "def helper():\n    example_gemm.main()\n")
    assert selection.tests_calling(src, "example_gemm") == ["test_a"]


@pytest.mark.parametrize("cause, key", [
    ("AttributeError: module 'tilemlir' has no attribute 'PassConfigKey'",
     "missing tilemlir.PassConfigKey"),
    ("AttributeError: module 'tilemlir.language' has no attribute 'alloc_var'",
     "missing T.alloc_var"),
    ("TileCompileError: error: <module 'tilemlir.language' from '/x/__init__.py'> has no "
     "attribute 'alloc_var'", "missing T.alloc_var"),
    ("ImportError: cannot import name 'do_bench' from 'tilemlir.profiler' (/x/y.py)",
     "missing tilemlir.profiler.do_bench"),
    ("ModuleNotFoundError: No module named 'tilemlir.carver'", "missing module tilemlir.carver"),
    ("ModuleNotFoundError: No module named 'triton.language'",
     "third-party module triton not installed"),
    ("TileCompileError: error: 'x' has 3 dims at 0x7f00", "TileCompileError: error: 'x' has N dims"),
    ("TypeError: cannot add 'a b' and '/tmp/x.py'", "TypeError: cannot add '…' and '…'"),
])
def test_cause_keys(cause, key):
    assert cause_key(cause) == key
