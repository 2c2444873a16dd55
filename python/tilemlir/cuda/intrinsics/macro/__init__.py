"""tilelang.cuda.intrinsics.macro: TileLang's tensor-core macro emitters."""
