"""What TileLang programs ask tilelang.contrib.nvcc: the GPU's compute
version and the CUDA toolkit's version."""

import os
import re
import shutil
import subprocess


def _device_arch():
    """"sm_90" for the first CUDA device: from the driver (libcuda), else
    from torch; ValueError where neither finds a GPU."""
    from ..runtime import cuda
    try:
        drv = cuda.get_driver()
        drv.init()
        return drv.device_arch(drv.device_get(0))
    except (RuntimeError, OSError):
        pass
    try:
        import torch
        if torch.cuda.is_available():
            major, minor = torch.cuda.get_device_capability()
            return f"sm_{major}{minor}"
    except ImportError:
        pass
    raise ValueError("no CUDA GPU found (neither libcuda.so.1 nor torch.cuda sees one)")


def get_target_compute_version(target=None):
    """The compute version of the GPU as TileLang writes it: "9.0"."""
    digits = _device_arch()[len("sm_"):]
    return f"{digits[:-1]}.{digits[-1]}"


def parse_compute_version(compute_version):
    """(major, minor) from "9.0"."""
    major, _, minor = str(compute_version).partition(".")
    try:
        return int(major), int(minor or 0)
    except ValueError:
        raise ValueError(f"compute version {compute_version!r} is not of the form "
                         "'major.minor'") from None


def get_cuda_version(cuda_path=None):
    """The CUDA toolkit's (major, minor), read from `nvcc --version` of
    cuda_path, $CUDA_HOME or the PATH; ValueError without a toolkit."""
    home = cuda_path or os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH")
    nvcc = os.path.join(home, "bin", "nvcc") if home else shutil.which("nvcc")
    if not nvcc or not os.path.exists(nvcc):
        nvcc = "/usr/local/cuda/bin/nvcc" if os.path.exists("/usr/local/cuda/bin/nvcc") else None
    if nvcc is None:
        raise ValueError("no CUDA toolkit found: set CUDA_HOME or put nvcc on the PATH")
    out = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"release (\d+)\.(\d+)", out)
    if not m:
        raise ValueError(f"cannot read the CUDA version from `{nvcc} --version`")
    return int(m.group(1)), int(m.group(2))
