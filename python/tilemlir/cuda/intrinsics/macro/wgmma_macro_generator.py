"""TileLang's hand-scheduled wgmma macros and descriptors: out of reach here."""

from ....errors import OutOfReach

_WHY = ("TileMLIR builds wgmma descriptors in its sm_90a lowering, not from Python; write "
        "T.gemm(A_shared, B_shared, C_local), which runs as wgmma there")


def __getattr__(name):
    if name.startswith("_"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return OutOfReach(f"tilelang.cuda.intrinsics.macro.wgmma_macro_generator.{name}", _WHY)
