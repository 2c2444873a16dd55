"""tilelang.cuda.intrinsics.layout.utils."""


def get_mma_micro_size(dtype):
    """(x, y, k) of one tensor-core MMA tile: 16 x 16, k 16 for 16-bit
    inputs and 32 for 8-bit ones (int8, float8)."""
    k = 32 if str(dtype) in ("int8", "uint8", "float8_e4m3", "float8_e5m2",
                             "float8_e4m3fn") else 16
    return 16, 16, k
