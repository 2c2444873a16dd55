"""Checks a built wheel as a user meets it: installed into a fresh virtual
environment, imported from a directory outside the checkout with no path
into the build tree, it runs the README's example on the CPU and compiles a
CUDA kernel to PTX and to a cubin; its compiler library needs no LLVM/MLIR
(or other) shared library.

    python check_wheel.py dist/tilemlir-*.whl [--python /usr/bin/python3]

Exits non-zero with what failed. Numpy comes from PyPI (pip's cache)."""

import argparse
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import textwrap

REPO = pathlib.Path(__file__).resolve().parents[2]
# What the library may need: the C runtime and libgcc_s (libstdc++ is
# linked in).
ALLOWED = ("linux-vdso.so", "libc.so", "libm.so", "libgcc_s.so", "ld-linux-x86-64.so",
           "libdl.so", "libpthread.so", "librt.so")
SIZE_LIMIT = 40 * 1024 * 1024


def readme_example():
    """The README's example (its first python block), at a size that runs
    in a few seconds on two cores."""
    text = (REPO / "README.md").read_text()
    block = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    if "matmul(1000, 1000, 1000)" not in block:
        raise SystemExit("check_wheel: the README's example changed; update check_wheel.py")
    return block.replace("1000", "256")


CUDA_CHECK = textwrap.dedent("""
    import json, pathlib, tilemlir
    import tilemlir.language as T

    def scale(N):
        @T.prim_func
        def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
            with T.Kernel(T.ceildiv(N, 128), threads=128) as bx:
                for i in T.Parallel(128):
                    B[bx * 128 + i] = A[bx * 128 + i] * 2.0
        return main

    kernel = tilemlir.compile(scale(1024), out_idx=[1], target="cuda -arch=sm_90a")
    bundle = pathlib.Path(kernel.bundle_dir)
    meta = json.loads((bundle / "bundle.json").read_text())
    cubin = (bundle / meta["binary"]).read_bytes()
    ptx = (bundle / meta["ptx"]).read_text()
    assert meta["binary"] == "kernel.cubin" and cubin[:4] == b"\\x7fELF", meta
    assert ".target sm_90a" in ptx, ptx[:200]
    print("cuda: cubin", len(cubin), "bytes, PTX", len(ptx), "bytes")
""")

WHERE = textwrap.dedent("""
    import sys, tilemlir, tilemlir._compiler as c
    print(c.library_path())
    assert sys.prefix in str(c.library_path()), (sys.prefix, c.library_path())
    assert str(c.library_path()).startswith(sys.argv[1]), c.library_path()
""")


def run(cmd, **kwargs):
    print("+", " ".join(str(c) for c in cmd), flush=True)
    subprocess.run(cmd, check=True, **kwargs)


def check_ldd(library):
    out = subprocess.run(["ldd", str(library)], capture_output=True, text=True,
                         check=True).stdout
    print(out, end="")
    bad = [line.strip() for line in out.splitlines()
           if line.strip() and not os.path.basename(line.split()[0]).startswith(ALLOWED)]
    if bad:
        raise SystemExit(f"check_wheel: {library.name} needs more than the C/C++ runtimes: {bad}")


def check_tag(wheel):
    """auditwheel (from PyPI) agrees with the wheel's manylinux tag."""
    tag = wheel.name.rsplit("-", 1)[1].removesuffix(".whl")
    out = subprocess.run([sys.executable, "-m", "auditwheel", "show", str(wheel)],
                         capture_output=True, text=True)
    print(out.stdout.split("\n\n")[0] if out.returncode == 0 else out.stderr[-500:])
    if out.returncode or f'"{tag}"' not in " ".join(out.stdout.split()):
        raise SystemExit(f"check_wheel: auditwheel does not confirm the tag {tag}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("wheel", type=pathlib.Path)
    parser.add_argument("--python", default="/usr/bin/python3",
                        help="the Python the virtual environment is made from")
    args = parser.parse_args()
    wheel = args.wheel.resolve()
    size = wheel.stat().st_size
    print(f"{wheel.name}: {size / 2**20:.1f} MiB")
    if size > SIZE_LIMIT:
        raise SystemExit(f"check_wheel: the wheel is over {SIZE_LIMIT >> 20} MiB")
    check_tag(wheel)
    with tempfile.TemporaryDirectory(prefix="tilemlir-wheel-") as tmp:
        tmp = pathlib.Path(tmp)
        venv = tmp / "venv"
        run([args.python, "-m", "venv", venv])
        py = venv / "bin" / "python"
        run([py, "-m", "pip", "install", "-q", wheel])
        site = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                              capture_output=True, text=True, check=True).stdout.strip()
        library = pathlib.Path(site) / "tilemlir" / "_lib" / "libTileMLIRCAPI.so"
        check_ldd(library)
        check_ldd(library.with_name("libomp.so.5"))
        # Outside the checkout, with nothing that points into it.
        work = tmp / "work"
        work.mkdir()
        env = {k: v for k, v in os.environ.items()
               if k not in ("PYTHONPATH", "TILEMLIR_LIBRARY", "VIRTUAL_ENV")}
        env["TILEMLIR_CACHE_DIR"] = str(tmp / "cache")
        for name, code, extra in (("where", WHERE, [site]),
                                  ("readme", readme_example(), []),
                                  ("cuda", CUDA_CHECK, [])):
            (work / f"{name}.py").write_text(code)
            run([py, f"{name}.py"] + extra, cwd=work, env=env)
    print("check_wheel: ok")


if __name__ == "__main__":
    main()
