"""T.Layout and T.Fragment given as Python functions of the indices (as in
TileLang), the layout names of tilelang.layout and tilelang.cuda.intrinsics,
and what T.annotate_layout makes of them: #tile.layout on global tensors,
#tile.swizzle on shared buffers, #tile.fragment on fragments."""

import numpy as np
import pytest

import tilemlir
import tilemlir.language as T
from tilemlir import TileCompileError
from tilemlir import layout as L
from tilemlir.language.parser import translate

from conftest import marked_line


def dq_order(l, d):
    """The 8x8 GEMM fragment order of a (64, 16) accumulator."""
    return [l // 8, d // 8, d % 2, 4 * (l % 8) + (d % 8) // 2]


def test_layout_of_index_arithmetic_is_an_affine_map():
    lay = T.Layout((64, 16), dq_order)
    assert lay.output_shape == (8, 2, 2, 32)
    assert lay.tensor_attr() == (
        "#tile.layout<[64, 16] -> [8, 2, 2, 32], (d0, d1) -> ((d0 floordiv 8), "
        "(d1 floordiv 8), (d1 mod 2), ((4 * (d0 mod 8)) + ((d1 mod 8) floordiv 2)))>")
    # Every element has a place of its own.
    offsets = lay.offsets()
    assert sorted(offsets.tolist()) == list(range(64 * 16))
    # The place of (l, d) as the function computes it on integers.
    phys = np.arange(64 * 16).reshape(8, 2, 2, 32)
    for l_, d in [(0, 0), (9, 3), (63, 15)]:
        assert offsets[l_ * 16 + d] == phys[tuple(dq_order(l_, d))]


def test_layout_identity_and_shifts():
    assert T.Layout((4, 8), lambda *ix: ix).is_identity()
    lay = T.Layout((4, 8), lambda i, j: [(j >> 1) & 3, (j & 1) + (i << 1)])
    assert lay.output_shape == (4, 8)
    assert "floordiv 2" in lay.tensor_attr() and "mod 4" in lay.tensor_attr()


def test_layout_needs_a_static_shape_and_integers():
    with pytest.raises(TypeError, match="needs a shape of positive integers"):
        T.Layout((4, T.dynamic("n")), lambda i, j: [i, j])
    with pytest.raises(TypeError, match="computes with integers"):
        T.Layout((4, 8), lambda i, j: [i * 0.5, j])
    with pytest.raises(TypeError, match="cannot branch on its indices"):
        T.Layout((4, 8), lambda i, j: [i if i else j, j])
    with pytest.raises(TypeError, match="can be negative"):
        T.Layout((4, 8), lambda i, j: [i - 4, j])


def test_xor_layout_of_a_shared_buffer_is_its_swizzle():
    from tilemlir.cuda.intrinsics import get_swizzle_layout
    for cols, bits in ((64, 3), (32, 2), (16, 1)):
        lay = T.Layout((32, cols), lambda i, j, c=cols: list(get_swizzle_layout(i, j, c, "float16")))
        assert lay.as_swizzle(16).attr() == f"#tile.swizzle<{bits}, 4, 3>"
    assert T.Layout((8, 64), lambda i, j: [i, j]).as_swizzle(16) is None
    with pytest.raises(L.NotAffine, match="neither the identity nor"):
        T.Layout((8, 64), lambda i, j: [i, j ^ 1]).as_swizzle(16)


def test_fragment_from_forward_fn():
    frag = T.Fragment((16, 64), forward_fn=lambda i, j: (j // 8, i * 8 + j % 8))
    assert frag.threads == 8 and frag.registers == 128
    assert frag.attr() == ("#tile.fragment<[16, 64], threads = 8, (d0, d1) -> ((d1 floordiv 8), "
                           "((0 * 128) + ((d0 * 8) + (d1 mod 8))))>")


def test_fragment_with_replicas():
    frag = T.Fragment((16,), forward_fn=lambda i, rep: (rep, i), replicate=8)
    assert frag.threads == 8
    assert frag.attr().endswith("replicate = 8>")
    frag = T.Fragment((4, 8), forward_thread_fn=lambda i, j, rep: i * 2 + j // 4 + rep * 8,
                      forward_index_fn=lambda i, j: j % 4, replicate=2)
    assert frag.threads == 16 and frag.registers == 4
    with pytest.raises(L.NotAffine, match="owner \\+ rep \\* owners"):
        T.Fragment((16,), forward_fn=lambda i, rep: (i * 64 + rep, 0), replicate=4)
    with pytest.raises(TypeError, match="needs forward_fn or forward_thread_fn"):
        T.Fragment((16,))


def test_layout_names_of_tilelang_layout():
    assert L.make_full_bank_swizzled_layout(None).attr() == "#tile.swizzle<3, 4, 3>"
    assert L.make_half_bank_swizzled_layout(None).attr() == "#tile.swizzle<2, 4, 3>"
    assert L.make_quarter_bank_swizzled_layout(None).attr() == "#tile.swizzle<1, 4, 3>"
    assert L.make_linear_layout(None) is None
    assert L.SwizzleMode.SWIZZLE_64B.layout().attr() == "#tile.swizzle<2, 4, 3>"
    assert L.SwizzleMode.NONE.swizzle_byte_size() == 1
    assert L.make_gemm_fragment_8x8().threads == 32
    assert L.make_gemm_fragment_8x8_transposed().registers == 2


def test_tensor_core_macro_emitter_is_out_of_reach():
    from tilemlir.cuda.intrinsics.macro.mma_macro_generator import TensorCoreIntrinEmitter
    with pytest.raises(TileCompileError, match="TensorCoreIntrinEmitter is not available.*T.gemm"):
        TensorCoreIntrinEmitter(a_dtype="float16")


def _dq_kernels():
    """TileLang's flash-attention backward in small: one kernel adds into a
    tensor kept in the fragment order, another copies it out in plain order."""
    def make_layout(t):
        return T.Layout(t.shape, lambda l, d: dq_order(l, d))

    @T.prim_func
    def accumulate(X: T.Tensor((64, 16), "float32"), dQ: T.Tensor((64, 16), "float32")):
        with T.Kernel(4, threads=64) as bx:
            T.annotate_layout({dQ: make_layout(dQ)})
            for i, j in T.Parallel(16, 16):
                T.atomic_add(dQ[bx * 16 + i, j], X[bx * 16 + i, j] * 2.0)

    @T.prim_func
    def post(dQ: T.Tensor((64, 16), "float32"), out: T.Tensor((64, 16), "float16")):
        with T.Kernel(2, threads=64) as bx:
            T.annotate_layout({dQ: make_layout(dQ)})
            T.copy(dQ[bx * 32:(bx + 1) * 32, :], out[bx * 32:(bx + 1) * 32, :])

    return accumulate, post


def test_annotate_layout_of_a_global_tensor_emits_its_layout():
    accumulate, _ = _dq_kernels()
    ir = translate(accumulate)
    assert "tile.annotate_layout %dQ layout(#tile.layout<[64, 16] -> [8, 2, 2, 32]," in ir


def test_layout_of_a_global_tensor_runs_on_the_cpu():
    accumulate, post = _dq_kernels()
    k1 = tilemlir.compile(accumulate, target="cpu")
    k2 = tilemlir.compile(post, out_idx=[-1], target="cpu")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 16)).astype(np.float32)
    dq = np.zeros((64, 16), np.float32)
    k1(x, dq)
    # The memory holds the elements in the layout's order ...
    offsets = T.Layout((64, 16), dq_order).offsets()
    np.testing.assert_allclose(dq.reshape(-1)[offsets], (2 * x).reshape(-1), rtol=1e-6)
    assert not np.allclose(dq, 2 * x)
    # ... and the kernel that reads it through the same layout sees them in place.
    np.testing.assert_allclose(k2(dq).astype(np.float32), 2 * x, rtol=1e-3, atol=1e-3)


def test_layout_lambda_written_in_the_kernel():
    @T.prim_func
    def k(A: T.Tensor((4, 8), "float32"), B: T.Tensor((4, 8), "float32")):
        with T.Kernel(1, threads=32) as bx:
            T.annotate_layout({B: T.Layout((4, 8), lambda i, j: [j, i])})
            T.copy(A, B)

    kernel = tilemlir.compile(k, out_idx=[-1], target="cpu")
    a = np.arange(32, dtype=np.float32).reshape(4, 8)
    np.testing.assert_array_equal(kernel(a).reshape(8, 4), a.T)


def _refused(kernel, match, marker):
    with pytest.raises(TileCompileError, match=match) as e:
        translate(kernel)
    assert e.value.lineno == marked_line(__file__, marker)


def test_layout_that_is_no_affine_map_on_a_global_tensor_is_a_located_error():
    @T.prim_func
    def k(A: T.Tensor((8, 8), "float32")):
        with T.Kernel(1, threads=32) as bx:
            T.annotate_layout({A: T.Layout((8, 8), lambda i, j: [i, j ^ i])})  # <xor-global>
            A[0, 0] = 1.0

    _refused(k, "T.Layout of 'A' is not an affine map", "xor-global")


def test_layout_of_the_wrong_shape_or_scope_is_a_located_error():
    @T.prim_func
    def k(A: T.Tensor((8, 8), "float32")):
        with T.Kernel(1, threads=32) as bx:
            F = T.alloc_fragment((8, 8), "float32")
            T.annotate_layout({F: T.Layout((8, 8), lambda i, j: [j, i])})  # <layout-on-fragment>
            T.fill(F, 0.0)
            T.copy(F, A)

    _refused(k, "'F' is a fragment buffer \\(use T.Fragment\\)", "layout-on-fragment")

    @T.prim_func
    def k2(A: T.Tensor((8, 8), "float32")):
        with T.Kernel(1, threads=32) as bx:
            T.annotate_layout({A: T.Layout((4, 16), lambda i, j: [j, i])})  # <layout-shape>
            A[0, 0] = 1.0

    _refused(k2, "is for shape \\(4, 16\\), but 'A' has shape", "layout-shape")


def test_fragment_pin_reaches_the_ir():
    @T.prim_func
    def k(A: T.Tensor((16, 64), "float32")):
        with T.Kernel(1, threads=8) as bx:
            F = T.alloc_fragment((16, 64), "float32")
            T.annotate_layout({F: T.Fragment(F.shape, forward_fn=lambda i, j: (j // 8, i * 8 + j % 8))})
            T.fill(F, 1.0)
            T.copy(F, A)

    assert "layout(#tile.fragment<[16, 64], threads = 8," in translate(k)


@pytest.mark.parametrize("chip", ["sm_90a", "sm_80"])
def test_layout_of_a_global_tensor_compiles_for_cuda(chip):
    accumulate, post = _dq_kernels()
    ptx = tilemlir.compile(accumulate, target=f"cuda -arch={chip}").get_kernel_source()
    assert "atom" in ptx or "red." in ptx
    assert "ld.global" in tilemlir.compile(post, target=f"cuda -arch={chip}").get_kernel_source()


def test_cuda_language_is_the_language():
    from tilemlir.cuda import language
    assert language is T
