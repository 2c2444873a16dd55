"""Which files of a TileLang checkout make the corpus, and which kernel
factories each defines (found statically, so that a kernel its drivers
never reach still has a row)."""

import ast
import pathlib
import re

# Issue 14's corpus: these example folders and the language tests.
EXAMPLE_DIRS = ("gemm", "gemm_fp8", "gemm_splitk", "gemm_streamk", "gemv", "elementwise", "norm",
                "online_softmax", "flash_attention", "flash_decoding", "deepseek_mla",
                "dequantize_gemm", "gemm_sp", "convolution", "cast", "dynamic_shape",
                "warp_specialize", "blocksparse_gemm", "grouped_gemm", "topk",
                "linear_attention", "attention_sink")
LANGUAGE_TESTS = "testing/python/language"
# Files only about targets or formats this project does not take on.
EXCLUDED = re.compile(r"amd|sm100|tcgen05|fp4|nvf4|cdna|metal|hip", re.IGNORECASE)
# The examples' own drivers: they run the programs, they define no kernel.
DRIVER = re.compile(r"^(test_|regression_)")
_IMPORTS_TILELANG = re.compile(r"^\s*(import|from)\s+(tilelang|tvm)\b", re.MULTILINE)
# Decorators that make a kernel, or a factory of one.
KERNEL_DECORATORS = {"jit", "prim_func", "lazy_jit"}


def select_corpus(root):
    """Paths (relative to the checkout `root`) of the corpus's programs:
    the example folders' files that import TileLang, less their drivers,
    and the language tests; less the excluded topics."""
    root = pathlib.Path(root)
    chosen = []
    for d in EXAMPLE_DIRS:
        for path in sorted((root / "examples" / d).rglob("*.py")):
            if DRIVER.match(path.name):
                continue
            chosen.append(path)
    chosen += sorted((root / LANGUAGE_TESTS).glob("test_tilelang_language_*.py"))
    out = []
    for path in chosen:
        rel = path.relative_to(root).as_posix()
        if EXCLUDED.search(rel):
            continue
        if _IMPORTS_TILELANG.search(path.read_text(errors="replace")):
            out.append(rel)
    return out


def _decorator_name(dec):
    target = dec.func if isinstance(dec, ast.Call) else dec
    return ast.unparse(target).rsplit(".", 1)[-1]


def _defines_kernel(node):
    for n in ast.walk(node):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
                _decorator_name(d) in KERNEL_DECORATORS for d in n.decorator_list):
            return True
    return False


def find_factories(source):
    """The kernel factories of a module: each top-level function (or class)
    that is, or holds, a function decorated with jit / prim_func. A list of
    (name, first line, last line)."""
    tree = ast.parse(source)
    out = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and \
                _defines_kernel(node):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            out.append((node.name, first, node.end_lineno))
    return out


def tests_calling(test_source, module_name):
    """Names of the test functions in `test_source` that use `module_name.`."""
    tree = ast.parse(test_source)
    names = []
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef) or not node.name.startswith("test"):
            continue
        for n in ast.walk(node):
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and \
                    n.value.id == module_name:
                names.append(node.name)
                break
    return names


def example_drivers(root, rel):
    """The drivers of an example program: [(test file, [test names])] of the
    tests beside it that call into it."""
    path = pathlib.Path(root) / rel
    module = path.stem
    found = []
    for test in sorted(path.parent.glob("test_*.py")):
        names = tests_calling(test.read_text(errors="replace"), module)
        if names:
            found.append((test.relative_to(root).as_posix(), names))
    return found
