"""tvm.target.Target: a compile target, also as the `with` context that
gives compiles their default target."""

from .._scoped import Scoped
from ._missing import missing

# TVM's deeper modules below this one import (see tilemlir.tvm).
__path__ = []

__all__ = ["Target"]


class Target(Scoped, str):
    """`Target("cuda")`, `Target("cuda -arch=sm_90a")` or
    `Target({"kind": "cuda", "arch": "sm_90"})`: the target string
    tilemlir.compile takes (it is one), with `kind` and `arch`. Inside
    `with Target(...):`, compiles whose target is "auto" use it."""

    def __new__(cls, target, host=None):
        if isinstance(target, dict):
            kind = target.get("kind", "cuda")
            arch = target.get("arch") or target.get("mcpu")
            text = kind + (f" -arch={arch}" if arch else "")
        else:
            text = " ".join(str(target).split())
        self = super().__new__(cls, text)
        head, _, rest = text.partition(" ")
        self.kind = _Kind(head)
        self.arch = rest.split("-arch=", 1)[1].split()[0] if "-arch=" in rest else ""
        self.host = host
        return self

    @classmethod
    def current(cls, allow_none=True):
        entered = cls.entered()
        if entered:
            return entered[-1]
        if allow_none:
            return None
        raise ValueError("no tvm.target.Target is in effect")


class _Kind:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


def __getattr__(name):
    return missing(__name__, name)
