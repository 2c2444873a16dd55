"""Mistakes in kernels are reported as TileCompileError at the user's line;
mistakes when calling a kernel as TypeError / ValueError naming the
parameter."""

import inspect
import os
import re

import numpy as np
import pytest

import tilemlir
import tilemlir.language as T
from tilemlir import TileCompileError

THIS_FILE = inspect.getsourcefile(lambda: None)


def line_of(marker):
    """The line of this file that ends with the comment `# <marker>`."""
    with open(THIS_FILE) as f:
        for n, line in enumerate(f, 1):
            if line.rstrip().endswith(f"# <{marker}>"):
                return n
    raise AssertionError(f"no line marked <{marker}>")


def assert_located(excinfo, marker, *fragments):
    """The error's message starts with this file and the marked line, shows
    that line's source, and contains each fragment."""
    err = excinfo.value
    msg = str(err)
    line = line_of(marker)
    m = re.match(r"(.*?):(\d+):(?:(\d+):)? ", msg)
    assert m, f"message does not start with file:line: {msg!r}"
    assert os.path.samefile(m.group(1), THIS_FILE), msg
    assert msg.startswith(THIS_FILE + ":"), msg
    assert int(m.group(2)) == line, f"reported line {m.group(2)}, expected {line}:\n{msg}"
    assert err.lineno == line
    source_line = open(THIS_FILE).read().splitlines()[line - 1].strip()
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
    assert_located(e, "reassign", "'x'", "alloc_local")


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


def test_while_loop_unsupported():
    @T.prim_func
    def k(A: T.Tensor((8,), "float32")):
        with T.Kernel(1) as bx:
            while True:  # <while>
                A[0] = 1.0

    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(k)
    assert_located(e, "while", "While")


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


@pytest.mark.parametrize("target", ["hip", "hip -arch=gfx942"])
def test_gpu_target_not_available(tiny, target):
    with pytest.raises(TileCompileError, match="not available") as e:
        tilemlir.compile(tiny, target=target)  # <target-cuda>
    assert_located(e, "target-cuda", "target='cuda' or 'cpu'")


def test_gpu_target_through_jit():
    @tilemlir.jit(out_idx=[-1], target="hip")
    def factory(N):
        @T.prim_func
        def k(A: T.Tensor((N,), "float32")):
            with T.Kernel(1) as bx:
                A[0] = 1.0
        return k

    with pytest.raises(TileCompileError, match="not available") as e:
        factory(4)  # <target-jit>
    assert_located(e, "target-jit")


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
