"""Loading and running compiled kernel bundles. Pure Python: imports nothing
from the compiler, so bundles run where the compiler is absent.

A bundle is a directory with `bundle.json` (target, entry, parameters with
dtypes and shapes, output indices) and the binary it names."""

import json
import pathlib

from .cpu import CpuKernel


def load_bundle(path):
    path = pathlib.Path(path)
    meta = json.loads((path / "bundle.json").read_text())
    target = meta["target"]
    if target == "cpu":
        return CpuKernel(path, meta)
    raise ValueError(f"bundle {path} is for target {target!r}, which this runtime cannot run")
