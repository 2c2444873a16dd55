"""tilelang.language.fp8: the FP8 dtype of the platform."""

from . import dtypes


def determine_fp8_type(fp8_format="e4m3"):
    """T.float8_e4m3 for "e4m3", T.float8_e5m2 for "e5m2" (NVIDIA's FP8
    formats; the FNUZ variants of AMD GPUs are not targeted here)."""
    formats = {"e4m3": dtypes.float8_e4m3, "e5m2": dtypes.float8_e5m2}
    if fp8_format not in formats:
        raise ValueError(f"fp8_format must be 'e4m3' or 'e5m2', got {fp8_format!r}")
    return formats[fp8_format]
