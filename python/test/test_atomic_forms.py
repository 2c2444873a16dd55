"""TileLang's atomic forms beyond one element: T.atomic_addx2 / x4 and
use_tma=, on the CPU against numpy; their mistakes are located errors."""

import inspect

import numpy as np
import pytest
from test_errors import assert_located

import tilemlir
import tilemlir.language as T
from tilemlir import TileCompileError

THIS_FILE = inspect.getsourcefile(lambda: None)


@pytest.mark.parametrize("lanes", [2, 4])
def test_atomic_add_lanes(rng, lanes):
    """T.atomic_addx2 / x4: `lanes` consecutive elements from the element
    given, each added atomically (every pair added by two blocks here)."""
    M, N = 8, 16
    op = T.atomic_addx2 if lanes == 2 else T.atomic_addx4

    @T.prim_func
    def k(A: T.Tensor((M, N), "float32"), B: T.Tensor((M, N), "float32")):
        with T.Kernel(2, threads=32) as bx:
            for i, j in T.Parallel(M, N // lanes):
                op(B[i, j * lanes], A[i, j * lanes])

    a = rng.standard_normal((M, N)).astype(np.float32)
    b = np.ones((M, N), dtype=np.float32)
    tilemlir.compile(k, target="cpu")(a, b)
    np.testing.assert_allclose(b, 1 + 2 * a, rtol=1e-5, atol=1e-6)


def test_atomic_add_lanes_region_must_match():
    @T.prim_func
    def k(A: T.Tensor((4, 8), "float32"), B: T.Tensor((4, 8), "float32")):
        with T.Kernel(1, threads=32):
            T.atomic_addx4(B[0, 0:2], A[0, 0:4])  # <lanes-region>

    with pytest.raises(TileCompileError) as e:
        k.script()
    assert_located(e, "lanes-region", "4 elements along its last dimension", source=THIS_FILE)


def test_atomic_add_use_tma_is_a_hint(rng):
    """T.atomic_add(dst, tile, use_tma=True) adds the tile as without it."""
    @T.prim_func
    def k(A: T.Tensor((16, 16), "float32"), B: T.Tensor((16, 16), "float32")):
        with T.Kernel(2, threads=128):
            s = T.alloc_shared((16, 16), "float32")
            T.copy(A, s)
            T.atomic_add(B, s, use_tma=True)

    a = rng.standard_normal((16, 16)).astype(np.float32)
    b = np.zeros((16, 16), dtype=np.float32)
    tilemlir.compile(k, target="cpu")(a, b)
    np.testing.assert_allclose(b, 2 * a, rtol=1e-6)
