"""Swizzled placement of shared-memory tiles, as index functions and as
layouts (tilelang.cuda.intrinsics.layout.mma_layout's names)."""

from ....language.dtypes import as_dtype
from ....layout import SwizzleLayout, make_swizzled_layout


def _swizzle_for(row_bytes, swizzle_bytes=None):
    width = min(128, row_bytes) if swizzle_bytes is None else swizzle_bytes
    bits = {128: 3, 64: 2, 32: 1}.get(width)
    if bits is None or row_bytes % 32:
        raise ValueError(f"a swizzle needs rows of a multiple of 32 bytes and a width of 32, "
                         f"64 or 128 bytes; got rows of {row_bytes} bytes and width {width}")
    return SwizzleLayout(bits, 4, 3)


def get_swizzle_layout(row_idx, col_idx, row_size, dtype, swizzle_bytes=None):
    """Where element (row_idx, col_idx) of a shared tile with rows of
    `row_size` elements of `dtype` lives under the swizzle the CUDA lowering
    applies (#tile.swizzle on byte offsets): (row, col) of its place. The
    indices may be integers or a T.Layout function's indices."""
    item = as_dtype(dtype).bits // 8
    s = _swizzle_for(row_size * item, swizzle_bytes)
    mask = ((1 << s.bits) - 1) << s.base
    byte = (row_idx * row_size + col_idx) * item
    placed = (byte ^ ((byte >> s.shift) & mask)) // item
    return placed // row_size, placed % row_size


def make_mma_swizzle_layout(shared_buf, is_smooth=False):
    """The swizzle of a shared tile that tensor-core loads read: none for
    `is_smooth` or rows that are not a multiple of 64 bytes."""
    row_bytes = shared_buf.shape[-1] * shared_buf.dtype.bits // 8
    if is_smooth or row_bytes % 64:
        return None
    return make_swizzled_layout(shared_buf)
