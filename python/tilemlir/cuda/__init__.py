"""tilemlir.cuda: the names TileLang programs take from tilelang.cuda.

The swizzle helpers give the layouts TileMLIR's CUDA lowering uses; TileLang's
hand-scheduled tensor-core macro emitters (ldmatrix / mma / wgmma written out
by the program) are out of reach: T.gemm lowers to those instructions."""

# `from tilelang.cuda import language as T`: TileLang's CUDA dialect is its
# default language, as tilemlir.language is here.
from .. import language  # noqa: E402,F401
