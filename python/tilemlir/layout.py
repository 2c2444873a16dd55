"""Layouts a kernel may pin with T.annotate_layout (tilelang.layout's names)."""


class SwizzleLayout:
    """An XOR swizzle of a shared buffer, #tile.swizzle<bits, base, shift>
    over byte offsets."""

    def __init__(self, bits, base, shift):
        self.bits, self.base, self.shift = bits, base, shift

    def attr(self):
        return f"#tile.swizzle<{self.bits}, {self.base}, {self.shift}>"


def make_swizzled_layout(buffer):
    """The widest of the 128/64/32-byte swizzles that the buffer's rows fill
    (the swizzles TMA, wgmma and ldmatrix use); rows narrower than 32 bytes
    are not swizzled (None)."""
    row_bytes = buffer.shape[-1] * buffer.dtype.bits // 8
    for width, bits in ((128, 3), (64, 2), (32, 1)):
        if row_bytes % width == 0:
            return SwizzleLayout(bits, 4, 3)
    return None


make_mma_swizzle_layout = make_swizzled_layout
