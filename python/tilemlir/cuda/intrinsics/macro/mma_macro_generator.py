"""TileLang's hand-scheduled mma.sync macros: out of reach here."""

from ....errors import OutOfReach

_WHY = ("TileMLIR does not emit hand-scheduled ldmatrix / mma macros from Python; write "
        "T.gemm(A_shared, B_shared, C_local), which lowers to the same instructions")

TensorCoreIntrinEmitter = OutOfReach("tilemlir.cuda.intrinsics.macro.mma_macro_generator."
                                     "TensorCoreIntrinEmitter", _WHY)
TensorCoreIntrinEmitterWithLadderTransform = OutOfReach(
    "tilemlir.cuda.intrinsics.macro.mma_macro_generator."
    "TensorCoreIntrinEmitterWithLadderTransform", _WHY)
