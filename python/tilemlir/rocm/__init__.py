"""tilemlir.rocm: the names TileLang programs take from tilelang.rocm.

`from tilelang.rocm import language as T` is TileLang's language for AMD
GPUs; here one language serves every target (target="hip" picks gfx942)."""

from .. import language  # noqa: F401
