"""Shared fixtures of the TileMLIR Python tests.

Every test session compiles into its own kernel cache (a temporary
TILEMLIR_CACHE_DIR), so results never depend on what an earlier run, or
another checkout, left in ~/.cache/tilemlir."""

import importlib.util
import pathlib
import sys

import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"


@pytest.fixture(scope="session", autouse=True)
def _session_cache_dir(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TILEMLIR_CACHE_DIR", str(tmp_path_factory.mktemp("tilemlir-cache")))
        yield


def load_example(relpath):
    """Imports examples/<relpath> by path, under a unique module name."""
    path = EXAMPLES / relpath
    name = "tilemlir_example_" + relpath.replace("/", "_").removesuffix(".py")
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def marked_line(path, marker):
    """The line of the file `path` that ends with the comment `# <marker>`."""
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if line.rstrip().endswith(f"# <{marker}>"):
                return n
    raise AssertionError(f"no line of {path} is marked <{marker}>")


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
