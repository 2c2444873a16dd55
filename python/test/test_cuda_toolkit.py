"""Where ptxas and libdevice are looked for (tilemlir._cuda_toolkit), that
the compiler uses what was found, and PTX for the driver without ptxas."""

import importlib
import json
import os
import pathlib
import sys

import pytest

import tilemlir
import tilemlir.language as T
from tilemlir import _compiler, _cuda_toolkit

REAL_LIBDEVICE = pathlib.Path("/usr/local/cuda/nvvm/libdevice/libdevice.10.bc")


def fake_ptxas(path, script="exit 0"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\n{script}\n")
    path.chmod(0o755)
    return path


def fake_libdevice(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"BC")
    return path


@pytest.fixture
def machine(tmp_path, monkeypatch):
    """A machine with nothing on it: no CUDA variables, an empty PATH, no
    /usr/local/cuda, no nvidia or triton package; the tests add them."""
    for var in ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty-path"))
    monkeypatch.setattr(_cuda_toolkit, "SYSTEM_CUDA", str(tmp_path / "no-usr-local-cuda"))
    monkeypatch.setenv("TILEMLIR_CACHE_DIR", str(tmp_path / "cache"))
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.setattr(sys, "path", [str(site)] + [p for p in sys.path if "site-packages" not in p])
    for name in [m for m in sys.modules if m in ("nvidia", "triton") or m.startswith("triton.")]:
        monkeypatch.delitem(sys.modules, name)
    importlib.invalidate_caches()
    yield tmp_path
    importlib.invalidate_caches()


@pytest.fixture
def fresh_compiler(monkeypatch):
    """The compiler looks the toolkit up again, and forgets it afterwards."""
    monkeypatch.setattr(_compiler, "_toolkit", None)
    yield
    _compiler._toolkit = None
    _compiler.lib().tileSetCudaToolkit(None)


def test_lookup_order(machine, monkeypatch):
    t = machine
    home = fake_ptxas(t / "home" / "bin" / "ptxas")
    on_path = fake_ptxas(t / "pathdir" / "bin" / "ptxas")
    system = fake_ptxas(t / "no-usr-local-cuda" / "bin" / "ptxas")
    nvcc = fake_ptxas(t / "site" / "nvidia" / "cu13" / "bin" / "ptxas")
    tri = t / "site" / "triton"
    fake_ptxas(tri / "backends" / "nvidia" / "bin" / "ptxas")
    (tri / "__init__.py").write_text("raise ImportError('triton is never imported')\n")
    fake_libdevice(tri / "backends" / "nvidia" / "lib" / "libdevice.10.bc")
    monkeypatch.setenv("CUDA_HOME", str(t / "home"))
    monkeypatch.setenv("PATH", str(t / "pathdir" / "bin"))

    expected = [("$CUDA_HOME", home), ("PATH", on_path), (_cuda_toolkit.SYSTEM_CUDA, system),
                ("nvidia-cuda-nvcc", nvcc), ("triton", tri / "backends" / "nvidia" / "bin" / "ptxas")]
    for where, ptxas in expected:
        found = _cuda_toolkit.find()
        assert (found.ptxas_from, found.ptxas) == (where, ptxas), found
        # Each place's libdevice is missing but Triton's: that one is taken.
        assert found.libdevice_from == "triton", found
        ptxas.unlink()
    found = _cuda_toolkit.find()
    assert found.ptxas is None and found.libdevice_from == "triton", found
    assert "triton" not in sys.modules


def test_cuda_path_and_root_follow_cuda_home(machine, monkeypatch):
    t = machine
    for var in ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"):
        fake_ptxas(t / var / "bin" / "ptxas")
        monkeypatch.setenv(var, str(t / var))
    assert _cuda_toolkit.find().ptxas_from == "$CUDA_HOME"
    monkeypatch.delenv("CUDA_HOME")
    assert _cuda_toolkit.find().ptxas_from == "$CUDA_PATH"
    monkeypatch.delenv("CUDA_PATH")
    assert _cuda_toolkit.find().ptxas_from == "$CUDA_ROOT"


def test_a_toolkit_with_both_is_handed_over_as_it_is(machine, monkeypatch):
    t = machine
    fake_ptxas(t / "home" / "bin" / "ptxas")
    fake_libdevice(t / "home" / "nvvm" / "libdevice" / "libdevice.10.bc")
    monkeypatch.setenv("CUDA_HOME", str(t / "home"))
    found = _cuda_toolkit.find()
    assert found.root == t / "home" and found.libdevice_from == "$CUDA_HOME"


def test_ptxas_and_libdevice_of_different_places_are_linked_into_one_root(machine, monkeypatch):
    t = machine
    ptxas = fake_ptxas(t / "pathdir" / "ptxas")
    libdevice = fake_libdevice(t / "no-usr-local-cuda" / "nvvm" / "libdevice" / "libdevice.10.bc")
    monkeypatch.setenv("PATH", str(t / "pathdir"))
    found = _cuda_toolkit.find()
    assert (found.ptxas_from, found.libdevice_from) == ("PATH", _cuda_toolkit.SYSTEM_CUDA)
    assert found.root.is_relative_to(t / "cache")
    assert (found.root / "bin" / "ptxas").resolve() == ptxas
    assert (found.root / "nvvm" / "libdevice" / "libdevice.10.bc").resolve() == libdevice
    # Found again: the same links.
    assert _cuda_toolkit.find().root == found.root


def scale(N):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, 128), threads=128) as bx:
            for i in T.Parallel(128):
                B[bx * 128 + i] = A[bx * 128 + i] * 2.0
    return main


@pytest.mark.skipif(not REAL_LIBDEVICE.exists(), reason="needs CUDA's libdevice")
def test_compiles_run_the_ptxas_found(machine, monkeypatch, fresh_compiler):
    t = machine
    fake_ptxas(t / "home" / "bin" / "ptxas", "echo fake ptxas ran >&2; exit 3")
    (t / "home" / "nvvm" / "libdevice").mkdir(parents=True)
    (t / "home" / "nvvm" / "libdevice" / "libdevice.10.bc").symlink_to(REAL_LIBDEVICE)
    monkeypatch.setenv("CUDA_HOME", str(t / "home"))
    with pytest.raises(tilemlir.TileCompileError, match="fake ptxas ran"):
        tilemlir.compile(scale(256), out_idx=[1], target="cuda -arch=sm_90a")


def test_without_ptxas_the_bundle_holds_ptx_for_the_driver(machine, fresh_compiler, capfd,
                                                           monkeypatch):
    monkeypatch.setattr(_cuda_toolkit, "_told", False)
    first = tilemlir.compile(scale(256), out_idx=[1], target="cuda -arch=sm_90a")
    second = tilemlir.compile(scale(512), out_idx=[1], target="cuda -arch=sm_90a")
    err = capfd.readouterr().err
    assert err.count("no ptxas found") == 1, err
    for kernel in (first, second):
        meta = json.loads((pathlib.Path(kernel.bundle_dir) / "bundle.json").read_text())
        assert meta["binary"] == "kernel.ptx" and "kernel.cubin" not in meta["files"], meta
        ptx = (pathlib.Path(kernel.bundle_dir) / "kernel.ptx").read_text()
        assert ".target sm_90a" in ptx and ".entry" in ptx
