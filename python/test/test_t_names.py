"""benchmark/corpus/t_names.py: TileLang's T. names read from a checkout's
__all__ chain without importing it (a small tree of our own here), and the
status table it writes for docs/python.md."""

import sys
import textwrap

import pytest

from conftest import REPO

sys.path.insert(0, str(REPO / "benchmark"))

from corpus import t_names  # noqa: E402
from corpus.t_status import status  # noqa: E402


def _tree(root, files):
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def test_names_follow_the_all_chain(tmp_path):
    _tree(tmp_path, {
        "tilelang/__init__.py": "",
        "tilelang/language/__init__.py": """
            from tilelang.cuda.language import *
            from tilelang.cuda.language import __all__ as __all__
            """,
        "tilelang/cuda/__init__.py": "",
        "tilelang/cuda/language/__init__.py": """
            from tilelang.language.common import __all__ as _COMMON_ALL
            from .extra import __all__ as _EXTRA_ALL
            _OWN = ("copy_cluster",)
            __all__ = tuple(dict.fromkeys((*_COMMON_ALL, *_OWN, *_EXTRA_ALL)))
            """,
        "tilelang/cuda/language/extra.py": """
            from tilelang.language.common import HIDDEN
            __all__ = [n for n in ["rng_rand", "secret"] if n not in HIDDEN]
            """,
        "tilelang/language/common.py": """
            from .cycle import something
            HIDDEN = frozenset({"secret"}) | frozenset({"other"})
            _LOCAL_EXPORTS = ("copy", "gemm")
            __all__ = list(_LOCAL_EXPORTS) + ["Kernel"]
            __all__ += ["copy"]
            """,
        "tilelang/language/cycle.py": "from .common import HIDDEN\n__all__ = []\n",
    })
    t_names.ORIGIN.clear()
    names = t_names.tilelang_language_names(tmp_path)
    assert names == ["copy", "gemm", "Kernel", "copy_cluster", "rng_rand"]
    assert t_names.ORIGIN["copy_cluster"] == "tilelang.cuda.language"
    assert t_names.ORIGIN["Kernel"] == "tilelang.language.common"


def test_a_module_outside_the_checkout_is_named(tmp_path):
    _tree(tmp_path, {
        "tilelang/__init__.py": "",
        "tilelang/language/__init__.py": """
            import tvm.tirx.script.parser as _parser
            __all__ = tuple(n for n in _parser.__all__)
            """,
    })
    with pytest.raises(SystemExit, match="tvm.tirx.script.parser is not in the checkout.*--tvm"):
        t_names.tilelang_language_names(tmp_path)


def test_status_of_names():
    assert status("copy", "tilelang.language.common", True) == ("supported", "")
    assert status("Layout", "tilelang.language.common", True)[0] == "partial"
    assert status("alloc_barrier", "tilelang.language.common", True)[0] == "partial"
    assert status("get_thread_extent", "tilelang.language.common", False)[0] == \
        "not supported yet"
    assert status("tma_load", "tilelang.cuda.language", False)[0] == "not supported"
    assert status("handle", "tvm.tirx.script.builder.ir", False)[0] == "not supported"
    assert status("float4_e2m1fn", "tilelang.language.dtypes", False)[0] == "not supported yet"
