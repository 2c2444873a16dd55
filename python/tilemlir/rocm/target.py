"""The HIP checks of TileLang's tilelang.rocm.target that programs call."""


def check_hip_availability():
    """Whether the HIP runtime (libamdhip64.so) loads and sees an AMD GPU,
    i.e. whether kernels built for target="hip" can run here."""
    from ..runtime import hip
    try:
        return hip.get_driver().device_count() > 0
    except (RuntimeError, OSError):
        return False
