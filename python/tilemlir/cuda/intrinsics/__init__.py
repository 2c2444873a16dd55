"""tilelang.cuda.intrinsics: swizzle layouts of shared buffers."""

from .layout.mma_layout import get_swizzle_layout, make_mma_swizzle_layout  # noqa: F401
from .layout.utils import get_mma_micro_size  # noqa: F401
