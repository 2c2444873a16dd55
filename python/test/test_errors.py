"""Mistakes in kernels are reported as TileCompileError at the user's line;
mistakes when calling a kernel as TypeError / ValueError naming the
parameter."""

import importlib
import inspect
import os
import re
import sys

import numpy as np
import pytest

import tilemlir
import tilemlir.language as T
from tilemlir import TileCompileError

THIS_FILE = inspect.getsourcefile(lambda: None)


def line_of(marker, source=THIS_FILE):
    """The line of `source` (this file) that ends with the comment `# <marker>`."""
    with open(source) as f:
        for n, line in enumerate(f, 1):
            if line.rstrip().endswith(f"# <{marker}>"):
                return n
    raise AssertionError(f"no line marked <{marker}>")


def assert_located(excinfo, marker, *fragments, source=THIS_FILE):
    """The error's message starts with `source` (this file) and the marked
    line, shows that line's source, and contains each fragment."""
    err = excinfo.value
    msg = str(err)
    line = line_of(marker, source)
    m = re.match(r"(.*?):(\d+):(?:(\d+):)? ", msg)
    assert m, f"message does not start with file:line: {msg!r}"
    assert os.path.samefile(m.group(1), source), msg
    assert msg.startswith(source + ":"), msg
    assert int(m.group(2)) == line, f"reported line {m.group(2)}, expected {line}:\n{msg}"
    assert err.lineno == line
    source_line = open(source).read().splitlines()[line - 1].strip()
    assert source_line in msg, msg
    for frag in fragments:
        assert frag in msg, f"{frag!r} not in {msg!r}"
    return msg


def test_undefined_name():
    @T.prim_func
    def k(A: T.Tensor((8,), "float32")):
        with T.Kernel(1) as bx:
            for i in T.Parallel(8):
                A[i] = undefined_thing[i]  # noqa: F821 # <undefined>

    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(k)
    assert_located(e, "undefined", "undefined_thing", "not defined")


def test_undefined_name_in_macro():
    @T.macro
    def helper(buf):
        buf[0] = missing_value  # noqa: F821 # <undefined-macro>

    @T.prim_func
    def k(A: T.Tensor((8,), "float32")):
        with T.Kernel(1) as bx:
            helper(A)

    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(k)
    assert_located(e, "undefined-macro", "missing_value")


def test_gemm_k_mismatch_reported_by_verifier():
    @T.prim_func
    def k(A: T.Tensor((32, 32), "float16"), B: T.Tensor((32, 32), "float16"),
          C: T.Tensor((32, 32), "float32")):
        with T.Kernel(1) as bx:
            A_s = T.alloc_shared((32, 16), "float16")
            B_s = T.alloc_shared((32, 32), "float16")
            C_l = T.alloc_fragment((32, 32), "float32")
            T.copy(A[0, 0], A_s)
            T.copy(B, B_s)
            T.gemm(A_s, B_s, C_l)  # <gemm-k>
            T.copy(C_l, C)

    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(k)
    msg = assert_located(e, "gemm-k")
    assert "16" in msg and "32" in msg, msg


def test_reassign_kernel_scalar_in_loop():
    @T.prim_func
    def k(A: T.Tensor((8,), "float32")):
        with T.Kernel(1) as bx:
            x = bx * 2
            for i in T.serial(4):
                x = x + i  # <reassign>
            A[0] = x

    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(k)
    assert_located(e, "reassign", "'x'", "alloc_var")


def test_reassign_kernel_scalar_in_branch():
    @T.prim_func
    def k(A: T.Tensor((8,), "float32")):
        with T.Kernel(2) as bx:
            x = A[0]
            if bx > 0:
                x = A[1]  # <reassign-if>
            A[2] = x

    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(k)
    assert_located(e, "reassign-if", "'x'")


def test_non_constant_parallel_extent():
    n = T.dynamic("n")

    @T.prim_func
    def k(A: T.Tensor((n,), "float32")):
        with T.Kernel(1) as bx:
            for i in T.Parallel(n):  # <parallel-extent>
                A[i] = 0.0

    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(k)
    assert_located(e, "parallel-extent", "T.Parallel", "compile-time")


def test_non_constant_slice_extent():
    @T.prim_func
    def k(A: T.Tensor((64, 8), "float32"), B: T.Tensor((64, 8), "float32")):
        with T.Kernel(4) as bx:
            s = T.alloc_shared((16, 8), "float32")
            T.copy(A[0:bx * 16, :], s)  # <slice-extent>
            T.copy(s, B[0, 0])

    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(k)
    assert_located(e, "slice-extent", "extent", "'A'")


def test_while_on_a_compile_time_condition():
    @T.prim_func
    def k(A: T.Tensor((8,), "float32")):
        with T.Kernel(1) as bx:
            while True:  # <while>
                A[0] = 1.0

    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(k)
    assert_located(e, "while", "needs a condition on kernel values")


def test_unknown_dtype_in_alloc():
    @T.prim_func
    def k(A: T.Tensor((8,), "float32")):
        with T.Kernel(1) as bx:
            s = T.alloc_shared((8,), "float17")  # <dtype-alloc>
            T.copy(A, s)

    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(k)
    assert_located(e, "dtype-alloc", "float17")


def test_unknown_dtype_in_expression():
    @T.prim_func
    def k(A: T.Tensor((8,), "float32")):
        with T.Kernel(1) as bx:
            for i in T.Parallel(8):
                A[i] = T.max(A[i], -T.infinity("flaot32"))  # <dtype-infinity>

    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(k)
    assert_located(e, "dtype-infinity", "flaot32")


def test_unknown_dtype_in_cast():
    @T.prim_func
    def k(A: T.Tensor((8,), "float32")):
        with T.Kernel(1) as bx:
            for i in T.Parallel(8):
                A[i] = T.cast(A[i], "int33")  # <dtype-cast>

    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(k)
    assert_located(e, "dtype-cast", "int33")


def test_unknown_dtype_in_tensor_annotation():
    def factory():
        @T.prim_func
        def k(A: T.Tensor((8,), "floot16")):  # <dtype-tensor>
            with T.Kernel(1) as bx:
                A[0] = 0.0
        return k

    with pytest.raises(TileCompileError) as e:
        factory()
    assert_located(e, "dtype-tensor", "floot16")


# ------------------------------------------------------- calling a kernel

@pytest.fixture(scope="module")
def add_kernel():
    @T.prim_func
    def add(A: T.Tensor((4, 8), "float32"), B: T.Tensor((8,), "float32"),
            C: T.Tensor((4, 8), "float32")):
        with T.Kernel(1) as bx:
            for i, j in T.Parallel(4, 8):
                C[i, j] = A[i, j] + B[j]

    return tilemlir.compile(add, out_idx=[-1])


def test_call_ok(add_kernel):
    a, b = np.ones((4, 8), np.float32), np.arange(8, dtype=np.float32)
    np.testing.assert_array_equal(add_kernel(a, b), a + b)


def test_call_wrong_dtype(add_kernel):
    with pytest.raises(TypeError, match=r"'B'.*float32.*float64"):
        add_kernel(np.ones((4, 8), np.float32), np.ones(8))


def test_call_wrong_shape(add_kernel):
    with pytest.raises(ValueError, match=r"'A'.*\(4, 8\)"):
        add_kernel(np.ones((8, 4), np.float32), np.ones(8, np.float32))


def test_call_wrong_rank(add_kernel):
    with pytest.raises(ValueError, match=r"'B'.*1 dimensions"):
        add_kernel(np.ones((4, 8), np.float32), np.ones((1, 8), np.float32))


def test_call_wrong_number_of_arguments(add_kernel):
    with pytest.raises(TypeError, match=r"2 inputs \(A, B\), got 1"):
        add_kernel(np.ones((4, 8), np.float32))
    with pytest.raises(TypeError, match=r"got 3"):
        add_kernel(*(np.ones((4, 8), np.float32),) * 3)


def test_call_not_an_array(add_kernel):
    with pytest.raises(TypeError, match=r"'A'.*numpy array"):
        add_kernel([[1.0] * 8] * 4, np.ones(8, np.float32))


def test_call_non_contiguous(add_kernel):
    a = np.ones((8, 4), np.float32).T
    with pytest.raises(ValueError, match=r"'A'.*contiguous"):
        add_kernel(a, np.ones(8, np.float32))


def test_call_dynamic_dims_disagree():
    n = T.dynamic("n")

    @T.prim_func
    def k(A: T.Tensor((n,), "float32"), B: T.Tensor((n,), "float32")):
        with T.Kernel(1) as bx:
            B[0] = A[0]

    kernel = tilemlir.compile(k)
    with pytest.raises(ValueError, match=r"'n'.*'B'"):
        kernel(np.ones(4, np.float32), np.ones(5, np.float32))


# ----------------------------------------------------------------- targets

@pytest.fixture(scope="module")
def tiny():
    @T.prim_func
    def tiny_k(A: T.Tensor((4,), "float32")):
        with T.Kernel(1) as bx:
            A[0] = 1.0

    return tiny_k


def test_unknown_target(tiny):
    with pytest.raises(TileCompileError, match="unknown target 'tpu'") as e:
        tilemlir.compile(tiny, target="tpu")  # <target-unknown>
    assert_located(e, "target-unknown")


def test_unknown_amd_arch(tiny):
    with pytest.raises(TileCompileError, match="unknown AMD architecture 'gfx90a'; TileMLIR's "
                                               "HIP target is gfx942") as e:
        tilemlir.compile(tiny, target="hip -arch=gfx90a")  # <target-amd-arch>
    assert_located(e, "target-amd-arch")


@pytest.mark.parametrize("capability, cuda, auto", [
    (None, "cuda:sm_90a", "cpu"),          # no GPU: cross-compile for the H100 / H200
    ((9, 0), "cuda:sm_90a", "cuda:sm_90a"),  # H100, H200
    ((8, 0), "cuda:sm_80", "cuda:sm_80"),    # A100
    ((8, 6), "cuda:sm_80", "cuda:sm_80"),    # consumer Ampere runs sm_80 code
    ((8, 9), "cuda:sm_80", "cuda:sm_80"),    # Ada
    ((10, 0), "cuda:sm_80", "cuda:sm_80"),   # newer chips run sm_80's PTX, not sm_90a's
    ((12, 0), "cuda:sm_80", "cuda:sm_80"),
])
def test_cuda_target_is_the_gpu_present(monkeypatch, capability, cuda, auto):
    jit_mod = sys.modules["tilemlir.jit"]
    monkeypatch.setattr(jit_mod, "present_compute_capability", lambda: capability)
    assert jit_mod.resolve_target("cuda") == cuda
    assert jit_mod.resolve_target("auto") == auto
    assert jit_mod.resolve_target(None) == auto
    # An explicit architecture is what it says, whatever GPU is present.
    assert jit_mod.resolve_target("cuda -arch=sm_80") == "cuda:sm_80"
    assert jit_mod.resolve_target("cuda -arch=sm_90a") == "cuda:sm_90a"
    assert jit_mod.resolve_target(cuda) == cuda  # a JITKernel's own target reads back


def test_cuda_target_on_a_gpu_too_old(monkeypatch, tiny):
    jit_mod = sys.modules["tilemlir.jit"]
    monkeypatch.setattr(jit_mod, "present_compute_capability", lambda: (7, 5))
    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(tiny, target="cuda")  # <target-old-gpu>
    assert_located(e, "target-old-gpu", "compute capability 7.5 (sm_75)", "8.0 or newer")
    assert tilemlir.compile(tiny, target="cpu") is not None


def test_cuda_target_compiles_for_the_gpu_present(monkeypatch, tiny):
    jit_mod = sys.modules["tilemlir.jit"]
    monkeypatch.setattr(jit_mod, "present_compute_capability", lambda: (8, 0))
    kernel = tilemlir.compile(tiny, target="cuda")
    assert kernel.target == "cuda:sm_80"
    assert ".target sm_80" in kernel.get_kernel_source()


@pytest.mark.parametrize("target", [123, ["cpu"]])
def test_target_must_be_a_string(tiny, target):
    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(tiny, target=target)  # <target-type>
    assert_located(e, "target-type", "target must be a string")


def test_unknown_dtype_of_scalar_parameter():
    @T.prim_func
    def k(A: T.Tensor((8,), "float32"), n: "int33"):  # noqa: F821 # <dtype-scalar>
        with T.Kernel(1) as bx:
            A[0] = 0.0

    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(k)
    assert_located(e, "dtype-scalar", "int33")


def test_unknown_dtype_in_annotated_assignment():
    @T.prim_func
    def k(A: T.Tensor((8,), "float32")):
        with T.Kernel(1) as bx:
            x: "float3" = A[0]  # <dtype-annassign>
            A[1] = x

    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(k)
    assert_located(e, "dtype-annassign", "float3")


def test_error_names_the_macro_call_site_file():
    """An error inside a T.macro points into the macro's body, not at the
    kernel that calls it."""

    @T.macro
    def bad(buf):
        for i in T.Parallel(4):
            buf[i] = buf[i, 0]  # <macro-rank>

    @T.prim_func
    def k(A: T.Tensor((8,), "float32")):
        with T.Kernel(1) as bx:
            bad(A)

    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(k)
    assert_located(e, "macro-rank", "'A' has 1 dimensions")


def test_python_error_while_translating():
    """A Python exception raised by compile-time arithmetic is reported at
    the kernel's line."""
    block = 0

    @T.prim_func
    def k(A: T.Tensor((8,), "float32")):
        with T.Kernel(T.ceildiv(8, block)) as bx:  # <ceildiv-zero>
            A[0] = 0.0

    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(k)
    assert_located(e, "ceildiv-zero", "division")


@pytest.fixture(scope="module")
def scalar_kernel():
    @T.prim_func
    def fill_n(A: T.Tensor((4,), "float32"), n: T.int32, x: T.float32):
        with T.Kernel(1) as bx:
            for i in T.Parallel(4):
                A[i] = T.cast(n, "float32") + x

    return tilemlir.compile(fill_n, out_idx=[0])


def test_call_scalar_ok(scalar_kernel):
    np.testing.assert_array_equal(scalar_kernel(3, 0.5), np.full(4, 3.5, np.float32))
    np.testing.assert_array_equal(scalar_kernel(np.int64(2), np.float32(1)), np.full(4, 3.0))


def test_call_scalar_wrong_type(scalar_kernel):
    with pytest.raises(TypeError, match=r"'n'.*int"):
        scalar_kernel(2.5, 1.0)
    with pytest.raises(TypeError, match=r"'x'.*float32 scalar"):
        scalar_kernel(2, np.ones(1))
    with pytest.raises(ValueError, match=r"'n'.*does not fit in int32"):
        scalar_kernel(2 ** 40, 1.0)


def test_python_exception_in_compile_time_math():
    @T.prim_func
    def k(A: T.Tensor((8,), "float32")):
        with T.Kernel(1) as bx:
            for i in T.Parallel(8):
                A[i] = T.log(0.0) + A[i]  # <math-domain>

    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(k)
    assert_located(e, "math-domain", "ValueError")


def test_column_counts_characters():
    """Columns count characters, not UTF-8 bytes."""
    @T.prim_func
    def k(A: T.Tensor((8,), "float32")):
        with T.Kernel(1) as bx:
            A[0] = T.max(len("ééé"), nope)  # noqa: F821 # <unicode>

    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(k)
    assert_located(e, "unicode")
    source = open(THIS_FILE).read().splitlines()[line_of("unicode") - 1]
    assert e.value.col == source.index("nope") + 1


def test_integer_constant_too_large_for_its_type():
    @T.prim_func
    def k(A: T.Tensor((8,), "int32")):
        with T.Kernel(1) as bx:
            A[0] = T.int32(2 ** 40)  # <int-overflow>

    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(k, target="cpu")
    assert_located(e, "int-overflow", "1099511627776", "does not fit in 32 bits")


def test_index_constant_too_large():
    @T.prim_func
    def k(A: T.Tensor((8,), "float32")):
        with T.Kernel(1) as bx:
            for i in T.serial(2 ** 70):  # <index-overflow>
                A[0] = 1.0

    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(k, target="cpu")
    assert_located(e, "index-overflow", "does not fit in 64 bits")


def test_float8_e4m3_constant_out_of_range():
    @T.prim_func
    def k(A: T.Tensor((8,), "float8_e4m3")):
        with T.Kernel(1) as bx:
            A[0] = T.cast(1000.0, "float8_e4m3")  # <fp8-range>

    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(k, target="cpu")
    assert_located(e, "fp8-range", "1000.0 is not representable in float8_e4m3", "448")


def test_infinity_in_float8_e4m3():
    @T.prim_func
    def k(A: T.Tensor((8,), "float8_e4m3")):
        with T.Kernel(1) as bx:
            A[0] = T.infinity("float8_e4m3")  # <fp8-inf>

    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(k, target="cpu")
    assert_located(e, "fp8-inf", "infinity is not representable in float8_e4m3")


@pytest.mark.parametrize("call", ["cast", "Cast"])
def test_cast_arguments_in_the_other_order(call):
    @T.prim_func
    def k(A: T.Tensor((8,), "float32")):
        with T.Kernel(1) as bx:
            if call == "cast":
                A[0] = T.cast(T.float32, A[1])  # <cast-order>
            else:
                A[0] = T.Cast(A[1], "float32")  # <Cast-order>

    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(k, target="cpu")
    if call == "cast":
        assert_located(e, "cast-order", "T.cast(value, dtype)", "T.Cast takes (dtype, value)")
    else:
        assert_located(e, "Cast-order", "T.Cast(dtype, value)")


def test_copy_between_regions_of_different_extents():
    @T.prim_func
    def k(A: T.Tensor((128,), "float32"), B: T.Tensor((64,), "float32")):
        with T.Kernel(1) as bx:
            B_shared = T.alloc_shared((64,), "float32")
            T.copy(A[0:128], B_shared[0:64])  # <copy-extents>
            T.copy(B_shared, B)

    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(k, target="cpu")
    assert_located(e, "copy-extents", "128 region of 'A'", "64 region of 'B_shared'",
                   "same extents")


@pytest.mark.parametrize("case, fragment", [
    (0, "32x16 region of 'A' to a 32x8 region of 's'"),   # one dimension differs
    (1, "16x32 region of 'A' to a 32x16 region of 's'"),  # into a whole buffer of another shape
    (2, "32x16 region of 's' to a 16x16 region of 'B'"),  # a whole buffer into a smaller region
    (3, "32x16 region of 'A' to a 16x32 region of 's'"),  # as many elements, another shape
])
def test_copy_region_extents_must_match(case, fragment):
    @T.prim_func
    def k(A: T.Tensor((32, 32), "float32"), B: T.Tensor((32, 32), "float32")):
        with T.Kernel(1) as bx:
            s = T.alloc_shared((32, 16), "float32")
            if case == 0:
                T.copy(A[0:32, 0:16], s[0:32, 0:8])  # <copy-extents-0>
            elif case == 1:
                T.copy(A[0:16, 0:32], s)  # <copy-extents-1>
            elif case == 2:
                T.copy(s, B[0:16, 0:16])  # <copy-extents-2>
            else:
                T.copy(A[0:32, 0:16], s[0:16, 0:32])  # <copy-extents-3>

    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(k, target="cpu")
    assert_located(e, f"copy-extents-{case}", fragment, "same extents")


def test_copy_extents_of_one_and_elements_broadcast(rng):
    """Extents of 1 drop out (a row of A is a 16-tile) and an element takes
    the other side's tile, as in TileLang."""
    @T.prim_func
    def k(A: T.Tensor((4, 16), "float32"), B: T.Tensor((4, 16), "float32")):
        with T.Kernel(1) as bx:
            s = T.alloc_shared((16,), "float32")
            f = T.alloc_fragment((1, 16), "float32")
            T.copy(A[2, 0:16], s[0:16])
            T.copy(s, f[0, 0])
            T.copy(f, B[1:2, 0:16])
            T.copy(A[3, 0], s)
            T.copy(s[0:16], B[0, 0:16])

    a = rng.standard_normal((4, 16)).astype(np.float32)
    b = np.zeros((4, 16), np.float32)
    tilemlir.compile(k, target="cpu")(a, b)
    np.testing.assert_array_equal(b[1], a[2])
    np.testing.assert_array_equal(b[0], a[3])


# Sizes, counts and flags that no kernel can have: each a located error.
BAD_KERNEL_VALUES = [
    ("num-stages", "num_stages must be non-negative, got -1"),
    ("num-stages-bool", "num_stages must be a compile-time integer, got True"),
    ("alloc-huge", "takes 4722366482869645213696 bytes; on-chip buffers must be smaller"),
    ("alloc-bool", "buffer shapes must be positive compile-time integers, got (True,)"),
    ("list-index", "'A' is indexed with a list; write A[i, j], not A[[i, j]]"),
    ("float-index", "buffer indices must be integers; 'A' is indexed with 1.5"),
    ("float-value-index", "'A' is indexed with a f32 value"),
    ("buffer-index", "'A' is indexed with the buffer 's'"),
    ("float-bound", "range bounds must be integers, got 4.5"),
    ("parallel-bool", "a T.Parallel extent must be a compile-time integer, got True"),
    ("order-dup", "order [0, 0] gives two statements the same place"),
    ("order-type", "an entry of T.Pipelined's order must be a compile-time integer, got 'a'"),
    ("clear-flag", "clear must be True or False, got 'no'"),
    ("transpose-flag", "transpose_B must be True or False, got 1"),
    ("reduce-dim-bool", "dim must be an integer in [-2, 2), got True"),
    ("copy-offset-huge", "integer constant 1180591620717411303424 does not fit in 64 bits"),
    ("slice-huge", "the extent of slice 0 of 'A' is too large"),
]


@pytest.mark.parametrize("case, message", BAD_KERNEL_VALUES)
def test_bad_value_in_kernel(case, message):
    @T.prim_func
    def k(A: T.Tensor((16, 16), "float16")):
        with T.Kernel(1) as bx:
            s = T.alloc_shared((16, 16), "float16")
            f = T.alloc_fragment((16, 16), "float32")
            r = T.alloc_fragment((16,), "float32")
            if case == "num-stages":
                for k in T.Pipelined(4, num_stages=-1):  # <num-stages>
                    T.copy(A, s)
            elif case == "num-stages-bool":
                for k in T.Pipelined(4, num_stages=True):  # <num-stages-bool>
                    T.copy(A, s)
            elif case == "alloc-huge":
                x = T.alloc_local((2 ** 70,), "float32")  # <alloc-huge>
            elif case == "alloc-bool":
                x = T.alloc_local((True,), "float32")  # <alloc-bool>
            elif case == "list-index":
                A[[0, 1]] = 1.0  # <list-index>
            elif case == "float-index":
                A[0, 1.5] = 1.0  # <float-index>
            elif case == "float-value-index":
                A[0, f[0, 0]] = 1.0  # <float-value-index>
            elif case == "buffer-index":
                A[0, s] = 1.0  # <buffer-index>
            elif case == "float-bound":
                for i in T.serial(4.5):  # <float-bound>
                    A[0, i] = 1.0
            elif case == "parallel-bool":
                for i in T.Parallel(True):  # <parallel-bool>
                    A[0, i] = 1.0
            elif case == "order-dup":
                for k in T.Pipelined(4, num_stages=2, order=[0, 0], stage=[0, 1]):  # <order-dup>
                    T.copy(A, s)
                    T.copy(s, A)
            elif case == "order-type":
                for k in T.Pipelined(4, num_stages=2, order=[0, "a"]):  # <order-type>
                    T.copy(A, s)
                    T.copy(s, A)
            elif case == "clear-flag":
                T.reduce_sum(f, r, dim=1, clear="no")  # <clear-flag>
            elif case == "transpose-flag":
                T.gemm(s, s, f, transpose_B=1)  # <transpose-flag>
            elif case == "reduce-dim-bool":
                T.reduce_max(f, r, dim=True)  # <reduce-dim-bool>
            elif case == "copy-offset-huge":
                T.copy(A[2 ** 70, 0], s)  # <copy-offset-huge>
            elif case == "slice-huge":
                T.copy(A[0:2 ** 70, 0:16], s)  # <slice-huge>

    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(k, target="cpu")
    assert_located(e, case, message)


BAD_LAUNCH_VALUES = [
    ("grid-huge", "a grid extent is too large: 1180591620717411303424 (at most 2147483647)"),
    ("grid-float", "a grid extent must be a compile-time integer, got 2.5"),
    ("grid-bool", "a grid extent must be a compile-time integer, got True"),
    ("threads-zero", "threads must be positive, got 0"),
    ("threads-bool", "threads must be a compile-time integer, got True"),
    ("threads-entry", "each entry of threads must be positive, got -4"),
    ("cluster-zero", "a cluster extent must be positive, got 0"),
    ("cluster-many", "cluster_dims takes 1 to 3 extents"),
    ("panel-bool", "panel_size must be a compile-time integer, got True"),
]


@pytest.mark.parametrize("case, message", BAD_LAUNCH_VALUES)
def test_bad_kernel_launch_value(case, message):
    @T.prim_func
    def k(A: T.Tensor((16,), "float32")):
        if case == "grid-huge":
            with T.Kernel(2 ** 70) as bx:  # <grid-huge>
                A[0] = 1.0
        elif case == "grid-float":
            with T.Kernel(2.5) as bx:  # <grid-float>
                A[0] = 1.0
        elif case == "grid-bool":
            with T.Kernel(True) as bx:  # <grid-bool>
                A[0] = 1.0
        elif case == "threads-zero":
            with T.Kernel(1, threads=0) as bx:  # <threads-zero>
                A[0] = 1.0
        elif case == "threads-bool":
            with T.Kernel(1, threads=True) as bx:  # <threads-bool>
                A[0] = 1.0
        elif case == "threads-entry":
            with T.Kernel(1, threads=(32, -4)) as bx:  # <threads-entry>
                A[0] = 1.0
        elif case == "cluster-zero":
            with T.Kernel(2, cluster_dims=(0,)) as bx:  # <cluster-zero>
                A[0] = 1.0
        elif case == "cluster-many":
            with T.Kernel(2, cluster_dims=(2, 1, 1, 1)) as bx:  # <cluster-many>
                A[0] = 1.0
        elif case == "panel-bool":
            with T.Kernel(2, 2) as (bx, by):
                T.use_swizzle(True)  # <panel-bool>

    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(k, target="cpu")
    assert_located(e, case, message)


@pytest.mark.parametrize("shape, message", [
    ((-1,), "T.Tensor shape entries must be positive, got -1"),
    ((0, 4), "T.Tensor shape entries must be positive, got 0"),
    ((True,), "T.Tensor shape entries must be ints or T.dynamic(...), got True"),
    ((2 ** 40, 2 ** 30), "more than 64-bit sizes reach"),
])
def test_bad_tensor_shape(shape, message):
    with pytest.raises(TileCompileError) as e:
        T.Tensor(shape, "float32")  # <tensor-shape>
    assert_located(e, "tensor-shape", message)


def test_tuple_value_as_index(rng):
    """A[idx] with idx = (i, j) is A[i, j], as in Python."""
    @T.prim_func
    def k(A: T.Tensor((4, 4), "float32")):
        with T.Kernel(1) as bx:
            idx = (2, 3)
            A[idx] = 7.0

    a = np.zeros((4, 4), np.float32)
    tilemlir.compile(k, target="cpu")(a)
    assert a[2, 3] == 7.0 and a.sum() == 7.0


def copy_kernel():
    @T.prim_func
    def copy(A: T.Tensor((16,), "float32"), B: T.Tensor((16,), "float32")):
        with T.Kernel(1) as bx:
            for i in T.Parallel(16):
                B[i] = A[i] + 1.0

    return copy


def test_read_only_output_is_refused():
    kernel = tilemlir.compile(copy_kernel(), target="cpu")
    a = np.arange(16, dtype=np.float32)
    a.flags.writeable = False
    b = np.zeros(16, np.float32)
    kernel(a, b)  # a read-only input is fine
    np.testing.assert_array_equal(b, a + 1)
    before = b.copy()
    b.flags.writeable = False
    with pytest.raises(ValueError, match="argument 'B' is read-only .*not writeable.*writes it"):
        kernel(a.copy(), b)
    np.testing.assert_array_equal(b, before)


def test_output_overlapping_an_input_is_refused():
    kernel = tilemlir.compile(copy_kernel(), target="cpu")
    base = np.arange(24, dtype=np.float32)
    with pytest.raises(ValueError, match="'A' and 'B' overlap in memory, and the kernel writes "
                                         "'B'"):
        kernel(base[:16], base[8:])
    with pytest.raises(ValueError, match="overlap"):
        kernel(base[:16], base[:16])
    out = np.zeros(32, np.float32)
    kernel(base[:16], out[16:])  # views of one array that do not overlap are fine
    np.testing.assert_array_equal(out[16:], base[:16] + 1)


def test_same_array_for_two_inputs_is_fine():
    @T.prim_func
    def add(A: T.Tensor((8,), "float32"), B: T.Tensor((8,), "float32"),
            C: T.Tensor((8,), "float32")):
        with T.Kernel(1) as bx:
            for i in T.Parallel(8):
                C[i] = A[i] + B[i]

    a = np.arange(8, dtype=np.float32)
    np.testing.assert_array_equal(tilemlir.compile(add, out_idx=[-1], target="cpu")(a, a), 2 * a)


@pytest.mark.parametrize("out_idx, message", [
    ([5], "out_idx 5 is out of range for a kernel with 2 parameters (0: A, 1: B)"),
    (-3, "out_idx -3 is out of range"),
    ("B", "out_idx must be an int or a list of ints, got 'B'"),
    ([1.0], "out_idx must be an int or a list of ints, got [1.0]"),
    (True, "out_idx must be an int or a list of ints, got True"),
    ([1, -1], "out_idx names parameter 'B' twice (1 and -1)"),
])
def test_bad_out_idx(out_idx, message):
    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(copy_kernel(), out_idx=out_idx, target="cpu")  # <out-idx>
    assert_located(e, "out-idx", message)


def test_bad_out_idx_through_jit():
    @tilemlir.jit(out_idx=[7], target="cpu")
    def make():
        return copy_kernel()

    with pytest.raises(TileCompileError) as e:
        make()  # <out-idx-jit>
    assert_located(e, "out-idx-jit", "out_idx 7 is out of range")


@pytest.mark.parametrize("option, value, message", [
    ("execution_backend", "fast", "execution_backend must be one of auto, dlpack"),
    ("target_host", 3, "target_host must be a string, got 3"),
    ("verbose", "yes", "verbose must be True or False, got 'yes'"),
    ("pass_configs", ["a"], "pass_configs must be a dict, got ['a']"),
    ("compile_flags", [1], "compile_flags must be a string or a list of strings, got [1]"),
])
def test_compile_option_of_the_wrong_type(tiny, option, value, message):
    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(tiny, target="cpu", **{option: value})  # <compile-option>
    assert_located(e, "compile-option", message)


def test_compile_options_tilelang_passes_are_accepted(tiny):
    kernel = tilemlir.compile(tiny, target="cpu", execution_backend="cython", verbose=False,
                              pass_configs={"tl.disable_warp_specialized": True},
                              compile_flags=["-O3"], target_host="llvm")
    a = np.zeros(4, np.float32)
    kernel(a)
    assert a[0] == 1.0


# The C API (what compile() calls) reports every error of the C++ compiler
# with the location of the op, through fused and named locations too, and
# fails on an error even where the pass that printed it did not fail.
_SHARED_ARG_IR = '''
func.func @f(%a: memref<4xf32, #tile.scope<shared>> loc("user.py":12:5)) {
  return loc("user.py":13:5)
} loc(fused["user.py":11:1, "f"])
'''

_UI8_COPY_IR = '''
func.func @f(%a: memref<64xi8>, %b: memref<64xi8>) {
  tile.kernel (%bx) in (1) threads(128) {
    %s = tile.alloc_shared : memref<64xui8, #tile.scope<shared>> loc("user.py":7:9)
  } loc("user.py":6:5)
  return
}
'''


@pytest.mark.parametrize("target", ["cpu", "sm_80", "sm_90a"])
@pytest.mark.parametrize("ir, line, fragment", [
    (_SHARED_ARG_IR, 12, "argument #0 of @f"),
    (_UI8_COPY_IR, 7, "signless"),
])
def test_capi_errors_are_located(tmp_path, target, ir, line, fragment):
    from tilemlir import _compiler
    with pytest.raises(TileCompileError) as e:
        if target == "cpu":
            _compiler.compile_cpu(ir, tmp_path / "k.so")
        else:
            _compiler.compile_cuda(ir, target, fmt="isa")
    assert (e.value.filename, e.value.lineno) == ("user.py", line), str(e.value)
    assert fragment in str(e.value)
    assert "<unknown>" not in str(e.value)


def test_capi_pipeline_error_without_failure():
    """convert-func-to-llvm prints its type converter's error (without a
    location) and succeeds: run_pipeline must fail all the same."""
    from tilemlir import _compiler
    with pytest.raises(TileCompileError, match="memory space"):
        _compiler.run_pipeline(_SHARED_ARG_IR, "convert-func-to-llvm")
