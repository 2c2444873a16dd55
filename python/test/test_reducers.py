"""T.alloc_reducer / T.finalize_reducer (TileLang's reduction buffers, in
its legacy in-place form and with reducer_init / reducer_update / a
destination fragment) on the CPU against numpy; their mistakes are located
errors; the tile IR they become."""

import inspect

import numpy as np
import pytest
from test_errors import assert_located

import tilemlir
import tilemlir.language as T
from tilemlir import TileCompileError

THIS_FILE = inspect.getsourcefile(lambda: None)


def gemv_reducer(M, N, block_M, block_N, threads=128):
    """o = a @ x, one reducer element a row of the block."""

    @T.prim_func
    def gemv(a: T.Tensor((M, N), "float32"), x: T.Tensor((N,), "float32"),
             o: T.Tensor((M,), "float32")):
        with T.Kernel(T.ceildiv(M, block_M), threads=threads) as bm:
            acc = T.alloc_reducer(block_M, "float32", replication="all")
            T.clear(acc)
            for bn in T.Pipelined(T.ceildiv(N, block_N), num_stages=2):
                a_s = T.alloc_shared((block_M, block_N), "float32")
                T.copy(a[bm * block_M, bn * block_N], a_s)
                a_f = T.alloc_fragment((block_M, block_N), "float32")
                T.copy(a_s, a_f)
                x_f = T.alloc_fragment(block_N, "float32")
                T.copy(x[bn * block_N], x_f)
                for i, j in T.Parallel(block_M, block_N):
                    acc[i] += a_f[i, j] * x_f[j]
            T.finalize_reducer(acc)
            T.copy(acc, o[bm * block_M])

    return gemv


def test_gemv_with_a_sum_reducer(rng):
    M, N = 200, 300  # not multiples of the 64 x 64 tiles
    a = rng.standard_normal((M, N)).astype(np.float32)
    x = rng.standard_normal(N).astype(np.float32)
    kernel = tilemlir.compile(gemv_reducer(M, N, 64, 64), out_idx=[-1], target="cpu")
    np.testing.assert_allclose(kernel(a, x), a @ x, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("op", ["max", "min"])
def test_legacy_max_min_reducer_seeded_by_fill(rng, op):
    """T.fill seeds a max / min reducer (combining it again changes nothing)."""
    M, N, bm = 64, 96, 32
    seed = 0.5

    @T.prim_func
    def k(A: T.Tensor((M, N), "float32"), B: T.Tensor((M,), "float32")):
        with T.Kernel(M // bm, threads=64) as bx:
            r = T.alloc_reducer((bm,), "float32", op=op, replication="all")
            T.fill(r, seed)
            a_f = T.alloc_fragment((bm, N), "float32")
            T.copy(A[bx * bm, 0], a_f)
            for i, j in T.Parallel(bm, N):
                if op == "max":
                    r[i] = T.max(r[i], a_f[i, j])
                else:
                    r[i] = T.min(r[i], a_f[i, j])
            T.finalize_reducer(r)
            T.copy(r, B[bx * bm])

    a = rng.standard_normal((M, N)).astype(np.float32)
    out = tilemlir.compile(k, out_idx=[-1], target="cpu")(a)
    ref = np.maximum(a.max(1), seed) if op == "max" else np.minimum(a.min(1), seed)
    np.testing.assert_array_equal(out, ref)


def test_reducer_init_seed_is_combined_once_into_a_destination(rng):
    """reducer_init(acc, init): the sum starts at init once per result, not
    once per thread; finalize_reducer(acc, dst) leaves the result in dst."""
    M, N = 32, 48

    @T.prim_func
    def k(A: T.Tensor((M, N), "int32"), S: T.Tensor((1,), "int32"),
          B: T.Tensor((M,), "int32")):
        with T.Kernel(1, threads=128):
            acc = T.alloc_reducer((M,), "int32", op="sum")
            T.reducer_init(acc, S[0] * 2)
            a_f = T.alloc_fragment((M, N), "int32")
            T.copy(A, a_f)
            for i, j in T.Parallel(M, N):
                T.reducer_update(acc[i], a_f[i, j])
            res = T.alloc_fragment((M,), "int32")
            T.finalize_reducer(acc, res)
            T.copy(res, B)

    a = rng.integers(-100, 100, (M, N)).astype(np.int32)
    s = np.array([7], dtype=np.int32)
    out = tilemlir.compile(k, out_idx=[-1], target="cpu")(a, s)
    np.testing.assert_array_equal(out, a.sum(1) + 14)


def test_finalize_reducer_in_ir():
    ir = gemv_reducer(128, 128, 64, 64).script()
    assert "tile.alloc_local : memref<64xf32, #tile.scope<local>>" in ir
    assert "tile.finalize_reducer sum" in ir


def test_nonzero_fill_of_a_sum_reducer_is_a_located_error():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=32):
            r = T.alloc_reducer((1,), "float32")
            T.fill(r, 1.0)  # <sum-fill>
            T.finalize_reducer(r)

    with pytest.raises(TileCompileError) as e:
        k.script()
    assert_located(e, "sum-fill", "sum reducer", "T.reducer_init", source=THIS_FILE)


def test_finalize_of_a_plain_buffer_is_a_located_error():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=32):
            f = T.alloc_fragment((64,), "float32")
            T.finalize_reducer(f)  # <not-reducer>

    with pytest.raises(TileCompileError) as e:
        k.script()
    assert_located(e, "not-reducer", "T.alloc_reducer", source=THIS_FILE)


@pytest.mark.parametrize("batch,message", [(0, "batch must be >= 1"), (-1, "batch must be >= 1"),
                                           (8, "exceeds total output elements"),
                                           (3, "must evenly divide")])
def test_finalize_batch_must_group_the_elements(batch, message):
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=32):
            r = T.alloc_reducer((4,), "float32")
            T.clear(r)
            T.finalize_reducer(r, batch=batch)  # <batch>

    with pytest.raises(TileCompileError) as e:
        k.script()
    assert_located(e, "batch", message, source=THIS_FILE)


def test_bitwise_reducer_is_a_located_error():
    @T.prim_func
    def k(A: T.Tensor((64,), "int32")):
        with T.Kernel(1, threads=32):
            r = T.alloc_reducer((4,), "int32", op="bitor")  # <bitwise>

    with pytest.raises(TileCompileError) as e:
        k.script()
    assert_located(e, "bitwise", "bitwise reducers", source=THIS_FILE)


def test_update_outside_parallel_is_a_located_error():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32"), B: T.Tensor((1,), "float32")):
        with T.Kernel(1, threads=32):
            r = T.alloc_reducer((1,), "float32")
            T.clear(r)
            for i in T.serial(64):
                r[0] += A[i]  # <serial-update>
            T.finalize_reducer(r)
            T.copy(r, B)

    with pytest.raises(TileCompileError) as e:
        k.script()
    assert_located(e, "serial-update", "outside a T.Parallel loop", source=THIS_FILE)


# The epoch of a reducer between T.reducer_init and T.finalize_reducer: each
# thread holds a partial, so only T.reducer_update touches it, and the
# finalize runs once per init. Each misuse below is `variant` of one kernel.
def epoch_kernel(variant):
    @T.prim_func
    def k(A: T.Tensor((8,), "float32"), B: T.Tensor((1,), "float32")):
        with T.Kernel(1, threads=128):
            src = T.alloc_fragment((8,), "float32")
            T.copy(A, src)
            acc = T.alloc_reducer((1,), "float32", op="sum")
            result = T.alloc_fragment((1,), "float32")
            if variant == "init-in-loop":
                for _ in T.serial(2):
                    T.reducer_init(acc)
                    for i in T.Parallel(8):
                        T.reducer_update(acc[0], src[i])
            elif variant == "finalize-in-loop":
                T.reducer_init(acc)
                for _ in T.serial(2):
                    for i in T.Parallel(8):
                        T.reducer_update(acc[0], src[i])
                    T.finalize_reducer(acc, result)  # <finalize-in-loop>
            elif variant != "no-init":
                if variant == "f16-init":
                    T.reducer_init(acc, T.float16(1.0))  # <f16-init>
                else:
                    T.reducer_init(acc)  # <init>
                if variant == "double-init":
                    T.reducer_init(acc)  # <double-init>
                for i in T.Parallel(8):
                    if variant == "store":
                        acc[0] += src[i]  # <store>
                    else:
                        T.reducer_update(acc[0], src[i])
                if variant == "read":
                    B[0] = acc[0]  # <read>
                if variant == "clear":
                    T.clear(acc)  # <clear>
            else:
                for i in T.Parallel(8):
                    T.reducer_update(acc[0], src[i])  # <no-init>
            if variant not in ("finalize-in-loop", "unfinalized"):
                T.finalize_reducer(acc, result)  # <finalize>
            if T.get_thread_binding() == 0:
                B[0] = result[0]

    return k


@pytest.mark.parametrize("variant,marker,message", [
    ("f16-init", "f16-init", "does not match reducer 'acc'"),
    ("no-init", "no-init", "before T.reducer_init"),
    ("unfinalized", "init", "is never finalized"),
    ("store", "store", "illegal read of reducer 'acc'"),
    ("read", "read", "illegal read of reducer 'acc'"),
    ("clear", "clear", "illegal store to reducer 'acc'"),
    ("double-init", "double-init", "double T.reducer_init"),
    ("init-in-loop", "finalize", "not in the scope of its T.reducer_init"),
    ("finalize-in-loop", "finalize-in-loop", "not in the scope of its T.reducer_init")])
def test_reducer_epoch_misuse_is_located(variant, marker, message):
    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(epoch_kernel(variant), target="cpu")
    assert_located(e, marker, message, source=THIS_FILE)


def test_reducer_epochs_reopen_per_iteration_and_finalize_in_a_branch(rng):
    """A whole epoch inside a serial loop reopens each iteration; a finalize
    in a branch nested in the init's scope is legal."""

    @T.prim_func
    def k(A: T.Tensor((4, 8), "float32"), B: T.Tensor((4,), "float32")):
        with T.Kernel(1, threads=128):
            src = T.alloc_fragment((8,), "float32")
            result = T.alloc_fragment((1,), "float32")
            for r in T.serial(4):
                T.copy(A[r, 0:8], src)
                acc = T.alloc_reducer((1,), "float32", op="max")
                T.reducer_init(acc, A[r, 0])
                for i in T.Parallel(8):
                    T.reducer_update(acc[0], src[i])
                if r < 4:
                    T.finalize_reducer(acc, result)
                T.copy(result, B[r:r + 1])

    a = rng.standard_normal((4, 8)).astype(np.float32)
    b = np.zeros(4, np.float32)
    tilemlir.compile(k, target="cpu")(a, b)
    np.testing.assert_array_equal(b, a.max(axis=1))


def test_epoch_finalized_in_a_branch_on_a_loaded_flag(rng):
    """A block-uniform branch on a value loaded from a tensor (computed by
    the thread-level code around it on the cpu target) holds the finalize:
    blocks whose flag is negative skip the reduction."""

    @T.prim_func
    def k(A: T.Tensor((8,), "float32"), S: T.Tensor((2,), "int32"),
          B: T.Tensor((2,), "float32")):
        with T.Kernel(2, threads=128) as bx:
            src = T.alloc_fragment((8,), "float32")
            T.copy(A, src)
            acc = T.alloc_reducer((1,), "float32", op="sum")
            T.reducer_init(acc)
            if S[bx] < 0:
                if T.get_thread_binding() == 0:
                    B[bx] = -1.0
            else:
                for i in T.Parallel(8):
                    T.reducer_update(acc[0], src[i])
                result = T.alloc_fragment((1,), "float32")
                T.finalize_reducer(acc, result)
                if T.get_thread_binding() == 0:
                    B[bx] = result[0]

    a = rng.standard_normal(8).astype(np.float32)
    b = np.zeros(2, np.float32)
    tilemlir.compile(k, target="cpu")(a, np.array([-1, 1], np.int32), b)
    np.testing.assert_allclose(b, [-1.0, a.sum()], rtol=1e-6)
