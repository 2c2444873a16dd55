"""Thread-level names of TileLang programs: T.alloc_var variables, while
loops, T.any_of / T.all_of, T.assume, grid-less kernels, thread indices,
warp votes, shuffles, matches and reductions, block barriers with a
predicate, bit scans. Scalar programs run on the "cpu" target against
Python / numpy; the GPU instructions are checked in the PTX of sm_90a and
sm_80 (compiled without a GPU)."""

import importlib.util
import inspect
import pathlib
import re

import numpy as np
import pytest

import tilemlir
import tilemlir.language as T
from tilemlir import TileCompileError

from conftest import marked_line

THIS_FILE = inspect.getsourcefile(lambda: None)


def assert_error_at(prim, marker, fragment, target="cpu"):
    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(prim, target=target)
    assert e.value.lineno == marked_line(THIS_FILE, marker), str(e.value)
    assert fragment in str(e.value), str(e.value)


# ------------------------------------------------------------ variables

def test_alloc_var_reassigned_in_loops_and_branches():
    n = 9

    @T.prim_func
    def main(A: T.Tensor((n,), "int32"), B: T.Tensor((n,), "int32")):
        with T.Kernel(1, threads=1):
            count = T.alloc_var(T.int32, init=10)
            seen = T.alloc_var("int32", 0, "local.var")
            for i in T.serial(n):
                hit = T.alloc_var(T.bool)
                hit = A[i] % 3 == 0
                if hit:
                    count += 2
                    seen = seen + 1
                elif A[i] == 4:
                    count = count - 1
                B[i] = count * 100 + seen

    a = np.array([3, 4, 1, 6, 4, 9, 0, 5, 4], np.int32)
    b = np.zeros(n, np.int32)
    tilemlir.compile(main, target="cpu")(a, b)
    ref, count, seen = [], 10, 0
    for x in a:
        if x % 3 == 0:
            count, seen = count + 2, seen + 1
        elif x == 4:
            count -= 1
        ref.append(count * 100 + seen)
    np.testing.assert_array_equal(b, ref)


def test_alloc_var_initializer_is_read_when_declared():
    # b takes a's value at its declaration; a changes afterwards.
    @T.prim_func
    def main(A: T.Tensor((3,), "int32")):
        with T.Kernel(1):
            a = T.alloc_var(T.int32, init=1)
            b = T.alloc_var(T.int32, init=a)
            a = 2
            d = T.alloc_var(T.int32, init=a)
            A[0] = b
            A[1] = d
            A[2] = a[0]

    out = np.zeros(3, np.int32)
    tilemlir.compile(main, target="cpu")(out)
    np.testing.assert_array_equal(out, [1, 2, 2])


def test_alloc_var_float64_initializer_keeps_its_dtype():
    @T.prim_func
    def main(A: T.Tensor((2,), T.float64)):
        with T.Kernel(1):
            big = T.alloc_var(T.float64, init=1e300)
            tiny = T.alloc_var(T.float64, init=1.0000000000000002)
            A[0] = big
            A[1] = tiny

    out = np.zeros(2, np.float64)
    tilemlir.compile(main, target="cpu")(out)
    assert out[0] == 1e300 and out[1] == 1.0000000000000002


def test_alloc_var_unrepresentable_initializer_is_an_error():
    @T.prim_func
    def main(A: T.Tensor((1,), T.float32)):
        with T.Kernel(1):
            v = T.alloc_var(T.float32, init=1e300)  # <f32-init>
            A[0] = v

    assert_error_at(main, "f32-init", "exceeds the maximum of float32")


def test_alloc_var_integer_initializer_out_of_range_is_an_error():
    @T.prim_func
    def main(A: T.Tensor((1,), T.int8)):
        with T.Kernel(1):
            v = T.alloc_var(T.int8, init=1000)  # <i8-init>
            A[0] = v

    assert_error_at(main, "i8-init", "does not fit")


# ------------------------------------------------------ control flow

def test_while_loop_runs_until_its_condition_fails():
    # Stream-K's shape: a while over a variable that the body advances by
    # a data-dependent step.
    n = 40

    @T.prim_func
    def main(S: T.Tensor((n,), "int32"), B: T.Tensor((n,), "int32")):
        with T.Kernel(1, threads=1):
            pos = T.alloc_var(T.int32, init=0)
            step = T.alloc_var(T.int32, init=0)
            while pos < n:
                B[pos] = step
                pos = pos + S[pos]
                step += 1

    s = np.random.default_rng(0).integers(1, 5, n).astype(np.int32)
    b = np.full(n, -1, np.int32)
    tilemlir.compile(main, target="cpu")(s, b)
    ref, pos, step = np.full(n, -1, np.int32), 0, 0
    while pos < n:
        ref[pos] = step
        pos += s[pos]
        step += 1
    np.testing.assert_array_equal(b, ref)


@pytest.mark.parametrize("kind", ["any", "all"])
def test_any_of_all_of_over_regions(kind):
    m, c = 6, 5
    op = T.any_of if kind == "any" else T.all_of

    @T.prim_func
    def main(M: T.Tensor((m, c), "bool"), B: T.Tensor((m, 3), "int32")):
        with T.Kernel(m, threads=1) as i:
            local = T.alloc_local((c,), "bool")
            for j in T.serial(c):
                local[j] = M[i, j]
            B[i, 0] = T.if_then_else(op(M[i, :]), 1, 0)
            B[i, 1] = T.if_then_else(op(M[i, 1:3]), 1, 0)
            B[i, 2] = T.if_then_else(op(local), 1, 0)

    mask = np.random.default_rng(1).random((m, c)) > 0.4
    mask[0] = True
    mask[1] = False
    b = np.zeros((m, 3), np.int32)
    tilemlir.compile(main, target="cpu")(mask, b)
    red = np.any if kind == "any" else np.all
    ref = np.stack([red(mask, 1), red(mask[:, 1:3], 1), red(mask, 1)], 1).astype(np.int32)
    np.testing.assert_array_equal(b, ref)


def test_assume_keeps_results_and_checks_compile_time_facts():
    n = 16

    @T.prim_func
    def main(A: T.Tensor((n,), "float32"), lo: T.int32):
        with T.Kernel(1):
            for i in T.serial(4):
                T.assume(lo + i >= 0 and lo + i < n)
                A[lo + i] = 1.0

    a = np.zeros(n, np.float32)
    kernel = tilemlir.compile(main, target="cpu")
    assert "llvm.intr.assume" in kernel.get_ir("tile")
    kernel(a, 5)
    np.testing.assert_array_equal(a, (np.arange(n) >= 5) & (np.arange(n) < 9))

    @T.prim_func
    def wrong(A: T.Tensor((n,), "float32")):
        with T.Kernel(1):
            T.assume(n % 5 == 0)  # <assume-false>
            A[0] = 1.0

    assert_error_at(wrong, "assume-false", "does not hold")


def test_kernel_without_grid_and_without_as():
    @T.prim_func
    def main(A: T.Tensor((4,), "int32")):
        with T.Kernel(threads=1):
            for i in T.serial(4):
                A[i] = i * 3

    a = np.zeros(4, np.int32)
    tilemlir.compile(main, target="cpu")(a)
    np.testing.assert_array_equal(a, [0, 3, 6, 9])


# ------------------------------------------------------------ bit scans

def ffs_ref(x):
    x &= (1 << 64) - 1
    return 0 if x == 0 else (x & -x).bit_length()


def fns_ref(mask, base, offset):
    bits = [p for p in range(32) if mask >> p & 1]
    if offset == 0:
        return base if base in bits else -1
    if offset > 0:
        above = [p for p in bits if p >= base]
        return above[offset - 1] if len(above) >= offset else -1
    below = [p for p in reversed(bits) if p <= base]
    return below[-offset - 1] if len(below) >= -offset else -1


def test_ffs_and_fns_match_cuda_semantics():
    cases = [(0x0, 0, 1), (0x1, 0, 1), (0xF0F0, 0, 3), (0xF0F0, 5, 2), (0xF0F0, 13, -2),
             (-0x80000000, 31, 0), (0x00FF0000, 3, 0), (0x00FF0000, 20, -4), (0x12345678, 0, 9),
             (-1, 7, 30)]
    n = len(cases)

    @T.prim_func
    def main(M: T.Tensor((n, 3), "int32"), W: T.Tensor((n,), "int64"),
             F: T.Tensor((n, 3), "int32")):
        with T.Kernel(n, threads=1) as i:
            F[i, 0] = T.__ffs(M[i, 0])
            F[i, 1] = T.__ffs(W[i])
            F[i, 2] = T.__fns(M[i, 0], M[i, 1], M[i, 2])

    m = np.array(cases, np.int32)
    w = np.array([(c[0] & 0xFFFFFFFF) << (7 * k % 33) for k, c in enumerate(cases)], np.uint64)
    w = w.view(np.int64)
    f = np.zeros((n, 3), np.int32)
    tilemlir.compile(main, target="cpu")(m, w, f)
    ref = [[ffs_ref(int(c[0]) & 0xFFFFFFFF), ffs_ref(int(x)), fns_ref(c[0] & 0xFFFFFFFF, c[1],
                                                                        c[2])]
           for c, x in zip(cases, w)]
    np.testing.assert_array_equal(f, ref)


# ------------------------------------------------------------- threads

def warp_program():
    @T.prim_func
    def main(B: T.Tensor((64,), "int32"), F: T.Tensor((64,), "float32"),
             L: T.Tensor((64,), "int64")):
        with T.Kernel(2, threads=64) as bx:
            tx = T.get_thread_binding()
            anyv = T.any_sync(tx == 3)
            allv = T.all_sync(1)
            ballot = T.ballot_sync(tx >= 7)
            src = T.shfl_sync(tx * 10, 31)
            down = T.shfl_down(T.cast(tx, "float16"), 1)
            wide = T.shfl_xor(T.cast(tx, "int64") << 33, 2, 16)
            count = T.syncthreads_count(tx < 16)
            both = T.syncthreads_and(tx != 0) + T.syncthreads_or(tx == 0)
            same = T.match_any_sync(tx % 4) + T.match_all_sync(bx)
            T.sync_threads()
            T.sync_warp()
            B[tx] = anyv + allv + src + count + both + same + T.__ffs(ballot)
            F[tx] = T.warp_reduce_sum(T.cast(down, "float32")) + T.warp_reduce_max(1.0)
            L[tx] = wide + T.activemask() + T.warp_reduce_bitor(T.cast(tx, "int64"))

    return main


@pytest.mark.parametrize("arch", ["sm_90a", "sm_80"])
def test_warp_intrinsics_become_ptx_warp_instructions(arch):
    ptx = tilemlir.compile(warp_program(), target=f"cuda -arch={arch}").get_kernel_source()
    for pattern in [r"vote\.sync\.any\.pred", r"vote\.sync\.all\.pred",
                    r"vote\.sync\.ballot\.b32", r"shfl\.sync\.idx\.b32.*31, 31, -1",
                    r"shfl\.sync\.down\.b32", r"shfl\.sync\.bfly\.b32.*2, 4127, -1",
                    r"bar\.red\.popc\.u32", r"bar\.red\.and\.pred", r"bar\.red\.or\.pred",
                    r"match\.any\.sync\.b64", r"match\.all\.sync\.b64", r"bar\.sync",
                    r"bar\.warp\.sync", r"activemask\.b32", r"mov\.u32\s+%r\d+, %tid\.x"]:
        assert re.search(pattern, ptx), f"{pattern} not in the {arch} PTX"


def test_thread_bindings_of_multidimensional_blocks():
    @T.prim_func
    def main(A: T.Tensor((4, 8, 2), "int32")):
        with T.Kernel(1, threads=(8, 4, 2)):
            tx, ty, tz = T.get_thread_bindings()
            kr = T.thread_binding(0, 8, thread="threadIdx.x")
            A[ty, tx, tz] = kr + T.get_thread_binding(2) * 100

    ir = tilemlir.compile(main, target="cuda -arch=sm_90a").get_ir("tile")
    assert re.search(r"gpu.thread_id\s+x upper_bound 64", ir), ir
    assert "threads(64)" in ir


def test_thread_index_into_a_smaller_tensor_is_guarded():
    # 32 threads store into 16 elements: the guard pass must keep the
    # check (the thread index is only known to be below 32).
    @T.prim_func
    def main(A: T.Tensor((16,), "int32"), B: T.Tensor((32,), "int32")):
        with T.Kernel(1, threads=32):
            tx = T.get_thread_binding()
            A[tx] = 1
            B[tx] = 2

    ptx = tilemlir.compile(main, target="cuda -arch=sm_80").get_kernel_source()
    stores = re.findall(r"st\.global\S*", ptx)
    assert len(stores) == 2
    # One comparison of the thread index against 16 guards A's store; B's
    # is proven inside (32 threads, 32 elements).
    assert re.search(r"setp\.\w+\.\w+\s+%p\d+, %r\d+, 1[56];", ptx), ptx


def test_vote_on_a_float_is_an_error():
    @T.prim_func
    def main(A: T.Tensor((32,), "float32")):
        with T.Kernel(1, threads=32):
            tx = T.get_thread_binding()
            A[tx] = T.any_sync(A[tx])  # <vote-float>

    assert_error_at(main, "vote-float", "requires an integer or boolean predicate",
                    target="cuda -arch=sm_90a")


def test_shuffle_width_must_be_a_power_of_two():
    @T.prim_func
    def main(A: T.Tensor((32,), "int32")):
        with T.Kernel(1, threads=32):
            tx = T.get_thread_binding()
            A[tx] = T.shfl_sync(tx, 0, 12)  # <shfl-width>

    assert_error_at(main, "shfl-width", "power of two", target="cuda -arch=sm_90a")


# ------------------------------------------------ threads on the CPU target
#
# The CPU runs a block's threads one after another between collectives; the
# results must be the hardware's (32-lane warps, a partial last warp).

def lanes_of(t, threads):
    w = t // 32 * 32
    return list(range(w, min(w + 32, threads)))


def shfl_ref(vals, t, threads, kind, b, width):
    lane = t % 32
    c = ((32 - width) << 8) | (0 if kind == "up" else 0x1F)
    seg, cval = (c >> 8) & 0x1F, c & 0x1F
    lo = lane & seg
    hi = lo | (cval & ~seg & 0x1F)
    j = {"up": lane - b, "down": lane + b, "bfly": lane ^ b,
         "idx": lo | (b & 0x1F & ~seg)}[kind]
    ok = j >= hi if kind == "up" else j <= hi
    src = t - lane + (j if ok else lane)
    return vals[src] if src < threads else vals[t]


def gpu_kernels():
    """The kernels of benchmark/gpu/thread_level_on_gpu.py, which runs them
    on the GPU against the CPU results these tests check."""
    path = pathlib.Path(__file__).resolve().parents[2] / "benchmark" / "gpu" / \
        "thread_level_on_gpu.py"
    spec = importlib.util.spec_from_file_location("tilemlir_thread_level_on_gpu", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("threads", [64, 48])
def test_votes_shuffles_and_block_reductions_on_the_cpu(threads):
    x = np.random.default_rng(threads).integers(0, 100, threads).astype(np.int32)
    b = np.zeros((threads, 13), np.int32)
    tilemlir.compile(gpu_kernels().collectives(threads), target="cpu")(x, b)
    ref = np.zeros_like(b)
    for t in range(threads):
        ls = lanes_of(t, threads)
        bits = lambda pred: sum(1 << (l % 32) for l in ls if pred(l))  # noqa: E731
        ref[t, 0] = any(x[l] > 90 for l in ls)
        ref[t, 1] = all(x[l] >= 0 for l in ls)
        ref[t, 2] = np.uint32(bits(lambda l: x[l] % 3 == 0)).view(np.int32)
        ref[t, 3] = shfl_ref(x, t, threads, "idx", 5, 32)
        ref[t, 4] = shfl_ref(x, t, threads, "bfly", 3, 16)
        ref[t, 5] = shfl_ref(x, t, threads, "down", 4, 32)
        ref[t, 6] = shfl_ref(x, t, threads, "up", 2, 8)
        ref[t, 7] = int((x % 2 == 1).sum())
        ref[t, 8] = int((x < 99).all()) * 10 + int((x == 7).any())
        ref[t, 9] = np.uint32(bits(lambda l: x[l] % 4 == x[t] % 4)).view(np.int32)
        ref[t, 10] = np.uint32(bits(lambda l: True)).view(np.int32)
        ref[t, 12] = ref[t, 10]  # activemask: the warp's lanes that exist
    # Warp reductions: butterflies of shuffles (in a partial warp, a lane that
    # does not exist gives the reader's own value, as every CPU shuffle does).
    total, top = x.astype(np.int64), x.astype(np.int64)
    for off in (16, 8, 4, 2, 1):
        total = total + np.array([shfl_ref(total, t, threads, "bfly", off, 32)
                                  for t in range(threads)])
        top = np.maximum(top, [shfl_ref(top, t, threads, "bfly", off, 32)
                               for t in range(threads)])
    ref[:, 11] = total + top * 1000
    np.testing.assert_array_equal(b, ref)


@pytest.mark.parametrize("kind", ["sum", "max", "min", "bitand", "bitor"])
def test_warp_reduce_on_the_cpu(kind):
    dtype = "float32" if kind in ("sum", "max", "min") else "int32"
    op = getattr(T, f"warp_reduce_{kind}")

    @T.prim_func
    def main(X: T.Tensor((64,), dtype)):
        with T.Kernel(1, threads=64):
            tx = T.get_thread_binding(0)
            v = T.alloc_local([1], dtype)
            v[0] = X[tx]
            r = T.alloc_local([1], dtype)
            r[0] = op(v[0])
            X[tx] = r[0]

    rng = np.random.default_rng(7)
    x = (rng.standard_normal(64).astype(np.float32) if dtype == "float32"
         else rng.integers(0, 1 << 20, 64).astype(np.int32))
    ref = x.copy()
    fn = {"sum": np.sum, "max": np.max, "min": np.min,
          "bitand": np.bitwise_and.reduce, "bitor": np.bitwise_or.reduce}[kind]
    for w in (0, 32):
        ref[w:w + 32] = fn(x[w:w + 32])
    tilemlir.compile(main, target="cpu")(x)
    np.testing.assert_allclose(x, ref, rtol=1e-5)


def test_thread_indexed_code_with_barriers_and_variables_on_the_cpu():
    # Each thread keeps a running value in a variable across a loop whose
    # iterations exchange data through shared memory between barriers.
    n = 48
    a = np.arange(n, dtype=np.float32)
    b = np.zeros(n, np.float32)
    tilemlir.compile(gpu_kernels().barrier_var(n), target="cpu")(a, b)
    s, acc = a + 1, np.zeros(n, np.float32)
    for k in range(3):
        acc = acc + s[(np.arange(n) + k) % n]
        s = acc.copy()
    np.testing.assert_allclose(b, acc)


def test_thread_index_past_a_tensor_is_guarded_on_the_cpu():
    @T.prim_func
    def main(A: T.Tensor((20,), "int32")):
        with T.Kernel(1, threads=32):
            tx = T.get_thread_binding()
            A[tx] = tx + 1

    base = np.zeros(32, np.int32)
    tilemlir.compile(main, target="cpu")(base[:20])
    np.testing.assert_array_equal(base, np.r_[np.arange(1, 21), np.zeros(12)])


def test_activemask_on_the_cpu():
    # Every existing lane of the warp reaches a block-level collective: all
    # 32 in the first warp, 8 in the partial second one.
    @T.prim_func
    def main(A: T.Tensor((40,), "int64")):
        with T.Kernel(1, threads=40):
            tx = T.get_thread_binding()
            A[tx] = T.activemask()

    a = np.zeros(40, np.int64)
    tilemlir.compile(main, target="cpu")(a)
    np.testing.assert_array_equal(a, [0xFFFFFFFF] * 32 + [0xFF] * 8)


def test_collective_under_a_thread_condition_is_a_located_error_on_the_cpu():
    @T.prim_func
    def main(A: T.Tensor((32,), "int64")):
        with T.Kernel(1, threads=32):
            tx = T.get_thread_binding()
            if tx < 16:  # <divergent>
                A[tx] = T.activemask()

    assert_error_at(main, "divergent", "differs between the block's threads")


@pytest.mark.parametrize("arch", ["sm_90a", "sm_80"])
def test_partial_warps_compile_for_nvidia(arch):
    # TileLang's threads=1 and threads=48 kernels: no op needs whole warps.
    @T.prim_func
    def main(A: T.Tensor((100,), "float32"), B: T.Tensor((100,), "float32")):
        with T.Kernel(T.ceildiv(100, 48), threads=48) as bx:
            s = T.alloc_shared((48,), "float32")
            T.copy(A[bx * 48], s)
            for i in T.Parallel(48):
                s[i] = s[i] * 2.0
            T.copy(s, B[bx * 48])

    @T.prim_func
    def single(A: T.Tensor((4,), "int32")):
        with T.Kernel(1, threads=1):
            for i in T.serial(4):
                A[i] = i

    for prim in (main, single):
        ptx = tilemlir.compile(prim, target=f"cuda -arch={arch}").get_kernel_source()
        assert ".entry" in ptx

    @T.prim_func
    def gemm(A: T.Tensor((16, 16), "float16"), C: T.Tensor((16, 16), "float32")):
        with T.Kernel(1, threads=48):
            a = T.alloc_shared((16, 16), "float16")
            c = T.alloc_fragment((16, 16), "float32")
            T.copy(A, a)
            T.gemm(a, a, c, clear_accum=True)  # <gemm-partial-warp>
            T.copy(c, C)

    assert_error_at(gemm, "gemm-partial-warp", "splits its work over whole warps",
                    target=f"cuda -arch={arch}")


# ------------------------------------------------------------ workspaces

def test_alloc_global_is_a_workspace_the_call_allocates():
    n, bn = 200, 64

    @T.prim_func
    def main(A: T.Tensor((n,), "float32"), B: T.Tensor((n,), "float32")):
        C = T.alloc_global((n,), "float32")
        with T.Kernel(T.ceildiv(n, bn), threads=32) as bx:
            T.copy(A[bx * bn:(bx + 1) * bn], C[bx * bn:(bx + 1) * bn])
            for i in T.Parallel(bn):
                C[bx * bn + i] = C[bx * bn + i] * 2.0
            T.copy(C[bx * bn:(bx + 1) * bn], B[bx * bn:(bx + 1) * bn])

    # out_idx counts the program's parameters, not the workspace.
    kernel = tilemlir.compile(main, out_idx=[-1], target="cpu")
    assert [p["name"] for p in kernel.input_params] == ["A"]
    a = np.random.default_rng(3).standard_normal(n).astype(np.float32)
    np.testing.assert_array_equal(kernel(a), a * 2)
    np.testing.assert_array_equal(kernel(a + 1), (a + 1) * 2)
    ptx = tilemlir.compile(main, out_idx=[1], target="cuda -arch=sm_80").get_kernel_source()
    assert ".entry" in ptx


def test_alloc_global_needs_a_static_shape():
    m = T.dynamic("m")

    @T.prim_func
    def main(A: T.Tensor((m,), "float32")):
        C = T.alloc_global((m,), "float32")  # <global-dyn>
        with T.Kernel(1):
            A[0] = C[0]

    assert_error_at(main, "global-dyn", "positive compile-time integers")


# ------------------------------------------------------------ warp indices

@pytest.mark.parametrize("warp_size,per_group", [(None, None), (16, 2)])
def test_lane_warp_and_group_indices(warp_size, per_group):
    """T.get_lane_idx / get_warp_idx(_sync) / get_warp_group_idx with the
    default warp (32 lanes, 4 warps a group) or given sizes, and
    T.shuffle_elect: the first thread of each group of `extent`."""
    n = 256

    @T.prim_func
    def k(L: T.Tensor((n,), "int32"), W: T.Tensor((n,), "int32"), S: T.Tensor((n,), "int32"),
          G: T.Tensor((n,), "int32"), E: T.Tensor((n,), "int32"), Z: T.Tensor((n,), "int32")):
        with T.Kernel(1, threads=n):
            tx = T.get_thread_binding()
            L[tx] = T.get_lane_idx(warp_size)
            W[tx] = T.get_warp_idx(warp_size)
            S[tx] = T.get_warp_idx_sync(warp_size)
            G[tx] = T.get_warp_group_idx(warp_size, per_group)
            E[tx] = T.shuffle_elect(64)
            Z[tx] = T.shuffle_elect(0)

    outs = [np.full(n, -1, dtype=np.int32) for _ in range(6)]
    tilemlir.compile(k, target="cpu")(*outs)
    tx = np.arange(n)
    ws, per = warp_size or 32, per_group or 4
    for got, want in zip(outs, [tx % ws, tx // ws, tx // ws, tx // (ws * per),
                                tx % 64 == 0, tx == 0]):
        np.testing.assert_array_equal(got, want)
    tilemlir.compile(k, target="cuda -arch=sm_90a")


# ------------------------------------------------------------ grid extents

def scalar_grid(block):
    @T.prim_func
    def k(A: T.Tensor((1024,), "float32"), max_len: T.int32, B: T.Tensor((1024,), "float32")):
        with T.Kernel(T.ceildiv(max_len, block), threads=block) as bx:
            for i in T.Parallel(block):
                if bx * block + i < max_len:
                    B[bx * block + i] = A[bx * block + i] + 1

    return k


def test_grid_extent_from_an_integer_scalar(rng):
    """A grid computed from an integer parameter (TileLang's varlen
    attention: T.ceildiv(max_seqlen_q, block_M)): the CPU runs it, and the
    CUDA launcher computes the grid from the argument."""
    a = rng.standard_normal(1024).astype(np.float32)
    b = np.zeros(1024, dtype=np.float32)
    tilemlir.compile(scalar_grid(64), target="cpu")(a, 200, b)
    np.testing.assert_array_equal(b[:200], a[:200] + 1)
    assert not b[200:].any()
    kernel = tilemlir.compile(scalar_grid(64), target="cuda -arch=sm_90a")
    assert kernel.runtime.grid_dims({"max_len": 200}) == (4, 1, 1)
    assert kernel.runtime.grid_dims({"max_len": 256}) == (4, 1, 1)


# ------------------------------------------------------------ clusters

def cluster_ranks():
    @T.prim_func
    def main(A: T.Tensor((128,), T.int32)):
        with T.ClusterKernel(128, threads=64, cluster_dims=(4, 1, 1)) as bx:
            T.cluster_arrive()
            T.cluster_wait()
            rank = T.block_rank_in_cluster()  # <cluster-rank>
            if T.get_thread_binding() == 0:
                A[bx] = rank
            T.cluster_sync()

    return main


def test_cluster_kernel_sm90a():
    """T.ClusterKernel launches clusters; the cluster barrier and the rank
    become the sm_90a instructions."""
    kernel = tilemlir.compile(cluster_ranks(), target="cuda -arch=sm_90a")
    ptx = kernel.get_kernel_source()
    assert ptx.count("barrier.cluster.arrive") == 2
    assert ptx.count("barrier.cluster.wait") == 2
    assert "%cluster_ctarank" in ptx


def test_cluster_ops_elsewhere_are_located_errors():
    assert_error_at(cluster_ranks(), "cluster-rank", "cpu target cannot run")
    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(cluster_ranks(), target="cuda -arch=sm_80")
    assert "clusters, which sm_80 does not have" in str(e.value)


def test_cluster_kernel_runs_tile_code_on_the_cpu(rng):
    """A GEMM-like tile program in clusters: the CPU runs its blocks."""
    @T.prim_func
    def k(A: T.Tensor((64, 64), "float32"), B: T.Tensor((64, 64), "float32")):
        with T.ClusterKernel(2, 2, threads=128, cluster_dims=(2, 1, 1)) as (bx, by):
            s = T.alloc_shared((32, 32), "float32")
            T.copy(A[by * 32, bx * 32], s)
            T.copy(s, B[by * 32, bx * 32])

    a = rng.standard_normal((64, 64)).astype(np.float32)
    b = np.zeros_like(a)
    tilemlir.compile(k, target="cpu")(a, b)
    np.testing.assert_array_equal(a, b)


def test_cluster_kernel_needs_cluster_dims():
    @T.prim_func
    def k(A: T.Tensor((4,), "int32")):
        with T.ClusterKernel(4, threads=32):  # <no-dims>
            T.cluster_sync()

    assert_error_at(k, "no-dims", "T.ClusterKernel needs cluster_dims=")
