"""The disk cache of compiled kernels (TILEMLIR_CACHE_DIR) and the
compiler-free runtime."""

import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time

import numpy as np
import pytest

import tilemlir
import tilemlir.language as T
from tilemlir import _compiler
from tilemlir.jit import cache as cache_mod

jit_mod = importlib.import_module("tilemlir.jit")


def scale_func(N, factor):
    @T.prim_func
    def scale(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, 16)) as bx:
            a = T.alloc_fragment((16,), "float32")
            T.copy(A[bx * 16], a)
            for i in T.Parallel(16):
                a[i] = a[i] * factor
            T.copy(a, B[bx * 16])

    return scale


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    monkeypatch.setenv("TILEMLIR_CACHE_DIR", str(d))
    return d


@pytest.fixture
def compile_calls(monkeypatch):
    """Counts calls of the C++ compiler."""
    calls = []
    real = _compiler.compile_cpu

    def counting(ir, path):
        calls.append(path)
        return real(ir, path)

    monkeypatch.setattr(_compiler, "compile_cpu", counting)
    return calls


@pytest.fixture
def checked_loads(monkeypatch):
    """Fails the test if a bundle whose files do not match bundle.json's
    digests is ever loaded."""
    real = jit_mod.load_bundle
    loaded = []

    def checking(path):
        meta = json.loads((path / "bundle.json").read_text())
        for name, digest in meta["files"].items():
            assert cache_mod._digest(path / name) == digest, f"damaged {name} was loaded"
        loaded.append(path)
        return real(path)

    monkeypatch.setattr(jit_mod, "load_bundle", checking)
    return loaded


def run_scale(kernel, N, factor):
    a = np.arange(N, dtype=np.float32) - 3
    np.testing.assert_allclose(kernel(a), a * factor)


def entries(cache_dir):
    return sorted(p.name for p in cache_dir.iterdir())


def test_second_compile_is_a_cache_hit(cache_dir, monkeypatch):
    func = scale_func(40, 3.0)
    first = tilemlir.compile(func, out_idx=[1])
    run_scale(first, 40, 3.0)
    assert entries(cache_dir) == [first.bundle_dir.name]  # no temporaries left behind
    assert {"bundle.json", "kernel.so", "kernel.ll", "kernel.mlir"} <= set(
        os.listdir(first.bundle_dir))

    def no_compiler(*args, **kwargs):
        raise AssertionError("the compiler ran on a cache hit")

    monkeypatch.setattr(_compiler, "compile_cpu", no_compiler)
    start = time.perf_counter()
    second = tilemlir.compile(func, out_idx=[1])
    elapsed = time.perf_counter() - start
    assert second.bundle_dir == first.bundle_dir
    run_scale(second, 40, 3.0)
    assert elapsed < 0.05, f"cache hit took {elapsed * 1e3:.1f} ms"
    # A fresh translation of the same factory arguments hits too.
    third = tilemlir.compile(scale_func(40, 3.0), out_idx=[1])
    assert third.bundle_dir == first.bundle_dir


def test_jit_decorator_uses_disk_cache(cache_dir, compile_calls):
    def make():
        @tilemlir.jit(out_idx=[-1])
        def factory(N, factor):
            return scale_func(N, factor)
        return factory

    k1 = make()(24, 0.5)
    k2 = make()(24, 0.5)  # a new jit wrapper: no in-memory kernel, the disk has it
    assert len(compile_calls) == 1
    assert k1.bundle_dir == k2.bundle_dir
    run_scale(k2, 24, 0.5)


def test_different_argument_different_entry(cache_dir, compile_calls):
    k1 = tilemlir.compile(scale_func(32, 2.0), out_idx=[1])
    k2 = tilemlir.compile(scale_func(32, 5.0), out_idx=[1])
    k3 = tilemlir.compile(scale_func(48, 2.0), out_idx=[1])
    dirs = {k1.bundle_dir, k2.bundle_dir, k3.bundle_dir}
    assert len(dirs) == 3 and len(compile_calls) == 3
    assert entries(cache_dir) == sorted(d.name for d in dirs)
    run_scale(k1, 32, 2.0)
    run_scale(k2, 32, 5.0)
    run_scale(k3, 48, 2.0)


def test_out_idx_does_not_need_a_new_entry(cache_dir, compile_calls):
    """out_idx only changes how the kernel is called, not its binary."""
    func = scale_func(16, 2.0)
    k1 = tilemlir.compile(func, out_idx=[1])
    k2 = tilemlir.compile(func)
    assert k1.bundle_dir == k2.bundle_dir and len(compile_calls) == 1
    a = np.ones(16, np.float32)
    b = np.zeros(16, np.float32)
    assert k2(a, b) is None
    np.testing.assert_array_equal(b, a * 2)


def _damage_so_truncate(entry):
    so = entry / "kernel.so"
    data = so.read_bytes()
    so.unlink()  # a new file: the loaded library's pages stay mapped
    so.write_bytes(data[: len(data) // 3])


def _damage_so_flip(entry):
    so = entry / "kernel.so"
    data = bytearray(so.read_bytes())
    data[len(data) // 2] ^= 0xFF
    so.unlink()
    so.write_bytes(bytes(data))


def _damage_so_missing(entry):
    (entry / "kernel.so").unlink()


def _damage_json_bad(entry):
    meta = entry / "bundle.json"
    meta.write_text(meta.read_text()[:-20] + "{{not json")


def _damage_json_empty(entry):
    (entry / "bundle.json").write_text("")


def _damage_json_no_files(entry):
    meta = json.loads((entry / "bundle.json").read_text())
    del meta["files"]
    (entry / "bundle.json").write_text(json.dumps(meta))


def _damage_json_unlisted_library(entry):
    """bundle.json stops listing the library: it can no longer be checked."""
    _damage_so_truncate(entry)
    meta = json.loads((entry / "bundle.json").read_text())
    del meta["files"]["kernel.so"]
    (entry / "bundle.json").write_text(json.dumps(meta))


@pytest.mark.parametrize("damage", [_damage_so_truncate, _damage_so_flip, _damage_so_missing,
                                    _damage_json_bad, _damage_json_empty, _damage_json_no_files,
                                    _damage_json_unlisted_library],
                         ids=lambda f: f.__name__.removeprefix("_damage_"))
def test_damaged_entry_is_rebuilt(cache_dir, compile_calls, checked_loads, damage):
    func = scale_func(24, 1.5)
    first = tilemlir.compile(func, out_idx=[1])
    entry = first.bundle_dir
    damage(entry)
    second = tilemlir.compile(func, out_idx=[1])
    assert len(compile_calls) == 2, "the damaged entry was not rebuilt"
    assert second.bundle_dir == entry
    assert cache_mod.lookup(entry.name) == entry  # intact again
    run_scale(second, 24, 1.5)


FRESH_PROCESS = textwrap.dedent("""
    import sys
    import numpy as np
    import tilemlir, tilemlir.language as T
    from tilemlir import _compiler
    sys.path.insert(0, {test_dir!r})
    from test_cache import scale_func
    calls = []
    real = _compiler.compile_cpu
    _compiler.compile_cpu = lambda ir, p: (calls.append(p), real(ir, p))[1]
    k = tilemlir.compile(scale_func(24, 1.5), out_idx=[1])
    a = np.arange(24, dtype=np.float32)
    np.testing.assert_allclose(k(a), a * 1.5)
    print("compiles:", len(calls))
""")


@pytest.mark.parametrize("damage", [_damage_so_truncate, _damage_json_bad],
                         ids=["so_truncate", "json_bad"])
def test_damaged_entry_is_rebuilt_in_fresh_process(cache_dir, damage):
    """In a process that never loaded the library, a damaged one would fail
    to load (or crash): it must be rebuilt instead."""
    code = FRESH_PROCESS.format(test_dir=os.path.dirname(__file__))
    env = dict(os.environ, TILEMLIR_CACHE_DIR=str(cache_dir))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "compiles: 1" in out.stdout
    (entry,) = [p for p in cache_dir.iterdir()]
    damage(entry)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "compiles: 1" in out.stdout  # rebuilt
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "compiles: 0" in out.stdout  # and the rebuilt entry is used


RUNTIME_ONLY = textwrap.dedent("""
    import sys
    import numpy as np
    from tilemlir.runtime import load_bundle
    kernel = load_bundle(sys.argv[1])
    a = np.arange(40, dtype=np.float32)
    b = np.zeros(40, dtype=np.float32)
    kernel(a, b)
    np.testing.assert_allclose(b, a * 3.0)
    try:
        kernel(a)
    except TypeError as e:
        assert "'scale' takes 2 arguments" in str(e), e
    else:
        raise AssertionError("wrong argument count accepted")
    import tilemlir._compiler
    assert tilemlir._compiler._lib is None
    maps = open("/proc/self/maps").read()
    assert "libTileMLIRCAPI" not in maps
    print("runtime ok")
""")


def test_runtime_runs_bundle_without_compiler(cache_dir, tmp_path):
    kernel = tilemlir.compile(scale_func(40, 3.0), out_idx=[1])
    env = dict(os.environ, TILEMLIR_LIBRARY=str(tmp_path / "missing" / "libTileMLIRCAPI.so"))
    out = subprocess.run([sys.executable, "-c", RUNTIME_ONLY, str(kernel.bundle_dir)], env=env,
                         capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "runtime ok" in out.stdout


def test_compile_without_compiler_library_is_a_clear_error(tmp_path):
    code = textwrap.dedent(f"""
        import sys
        import tilemlir
        sys.path.insert(0, {os.path.dirname(__file__)!r})
        from test_cache import scale_func
        try:
            tilemlir.compile(scale_func(8, 2.0))
        except tilemlir.TileCompileError as e:
            print("error:", e)
    """)
    env = dict(os.environ, TILEMLIR_LIBRARY=str(tmp_path / "missing.so"),
               TILEMLIR_CACHE_DIR=str(tmp_path / "cache"))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "error:" in out.stdout and "missing.so" in out.stdout, out.stdout


def test_cuda_bundle_is_cached_and_needs_no_compiler_on_reload(cache_dir, monkeypatch):
    # Compiling for CUDA needs no GPU; the second compile of the same kernel
    # (even from another checkout: source locations are not in the key)
    # finds the bundle and never calls the compiler.
    first = tilemlir.compile(scale_func(64, 2.0), out_idx=[1], target="cuda -arch=sm_90a")
    meta = json.loads((first.bundle_dir / "bundle.json").read_text())
    assert meta["target"] == "cuda" and meta["binary"] in meta["files"]
    assert "kernel.ptx" in meta["files"]

    def no_compiler(*args, **kwargs):
        raise AssertionError("the CUDA compiler was called on a cache hit")

    monkeypatch.setattr(_compiler, "compile_cuda_with_ptx", no_compiler)
    second = tilemlir.compile(scale_func(64, 2.0), out_idx=[1], target="cuda -arch=sm_90a")
    assert second.bundle_dir == first.bundle_dir
    assert ".target sm_90a" in second.get_kernel_source()


def test_kernels_with_pass_configs_are_served_without_the_compiler(cache_dir, monkeypatch):
    # The pass configs that change the IR (no TMA here) are part of the key
    # and applied only when compiling: a machine with the cache and without
    # the compiler library finds the bundle.
    configs = {tilemlir.PassConfigKey.TL_DISABLE_TMA_LOWER: True}
    first = tilemlir.compile(scale_func(64, 2.0), out_idx=[1], target="cuda -arch=sm_90a",
                             pass_configs=configs)
    plain = tilemlir.compile(scale_func(64, 2.0), out_idx=[1], target="cuda -arch=sm_90a")
    assert plain.bundle_dir != first.bundle_dir

    def no_compiler(*args, **kwargs):
        raise AssertionError("the compiler was called on a cache hit")

    monkeypatch.setattr(_compiler, "run_pipeline", no_compiler)
    monkeypatch.setattr(_compiler, "compile_cuda_with_ptx", no_compiler)
    second = tilemlir.compile(scale_func(64, 2.0), out_idx=[1], target="cuda -arch=sm_90a",
                              pass_configs=configs)
    assert second.bundle_dir == first.bundle_dir
    assert second.ir == first.ir  # the IR as compiled, pass configs applied


def test_cache_key_ignores_source_locations():
    ir = 'func.func @f() { return loc("/a/b.py":3:4) } loc("/a/b.py":1:1)'
    moved = ir.replace("/a/b.py", "/elsewhere/c.py")
    assert jit_mod._LOCATION.sub("", ir) == jit_mod._LOCATION.sub("", moved)


def test_entries_of_another_compiler_build_are_recompiled(cache_dir, monkeypatch):
    # An entry records the compiler build that wrote it; a different build
    # (a rebuilt library) recompiles instead of serving stale binaries.
    first = tilemlir.compile(scale_func(64, 2.0), out_idx=[1], target="cuda -arch=sm_90a")
    meta = json.loads((first.bundle_dir / "bundle.json").read_text())
    assert meta["compiler_id"] == jit_mod._compiler_id()
    calls = []
    real = _compiler.compile_cuda_with_ptx

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(_compiler, "compile_cuda_with_ptx", counting)
    tilemlir.compile(scale_func(64, 2.0), out_idx=[1], target="cuda -arch=sm_90a")
    assert calls == []
    monkeypatch.setattr(jit_mod, "_compiler_id", lambda: "another-build")
    again = tilemlir.compile(scale_func(64, 2.0), out_idx=[1], target="cuda -arch=sm_90a")
    assert calls and json.loads((again.bundle_dir / "bundle.json").read_text())[
        "compiler_id"] == "another-build"
    # Without a compiler at hand (None), any intact entry serves.
    assert cache_mod.lookup(jit_mod.cache.make_key("x"), None) is None
    assert cache_mod.lookup(again.bundle_dir.name, None) == again.bundle_dir


# --- Entries that are damaged, misplaced or forged, and caches that cannot be written ---

def _reseal(entry):
    """Makes the entry's digests agree with its files again (as a damage
    that rewrites them would): only the other checks can catch it then."""
    meta = json.loads((entry / "bundle.json").read_text())
    if isinstance(meta.get("files"), dict):
        meta["files"] = {n: cache_mod._digest(entry / n) if (entry / n).is_file() else d
                         for n, d in meta["files"].items()}
    data = json.dumps(meta).encode()
    (entry / "bundle.json").write_bytes(data)
    record = json.loads((entry / "entry.json").read_text())
    record["bundle.json"] = cache_mod.hashlib.sha256(data).hexdigest()
    (entry / "entry.json").write_text(json.dumps(record))


def _edit_meta(entry, edit):
    meta = json.loads((entry / "bundle.json").read_text())
    edit(meta)
    (entry / "bundle.json").write_text(json.dumps(meta))


def _shape_digit(meta):
    meta["params"][1]["shape"] = [2]  # still valid JSON: the output would be too small


def _key_renamed(meta):
    meta["targex"] = meta.pop("target")


def _dtype_unknown(meta):
    meta["params"][0]["dtype"] = "float33"


def _shape_not_a_list(meta):
    meta["params"][0]["shape"] = 24


def _params_missing(meta):
    del meta["params"]


def _library_not_a_file_name(meta):
    meta["files"]["../kernel.so"] = meta["files"].pop("kernel.so")
    meta["library"] = "../kernel.so"


def _written_not_a_bool(meta):
    meta["params"][1]["written"] = "yes"


BUNDLE_EDITS = [_shape_digit, _key_renamed, _dtype_unknown, _shape_not_a_list, _params_missing,
                _library_not_a_file_name, _written_not_a_bool]


@pytest.mark.parametrize("edit", BUNDLE_EDITS, ids=lambda f: f.__name__.strip("_"))
@pytest.mark.parametrize("resealed", [False, True], ids=["digest", "resealed"])
def test_edited_bundle_json_is_rebuilt(cache_dir, compile_calls, checked_loads, edit, resealed):
    """bundle.json is covered by entry.json's digest; one whose digests were
    made to agree is still checked for its form and for describing this
    kernel. Either way the entry is rebuilt and the kernel runs right."""
    func = scale_func(24, 1.5)
    entry = tilemlir.compile(func, out_idx=[1]).bundle_dir
    _edit_meta(entry, edit)
    if resealed:
        _reseal(entry)
    again = tilemlir.compile(func, out_idx=[1])
    assert len(compile_calls) == 2, "the edited entry was used"
    assert again.bundle_dir == entry and cache_mod.lookup(entry.name) == entry
    run_scale(again, 24, 1.5)


def test_entry_of_another_key_is_not_loaded(cache_dir, compile_calls, checked_loads):
    """Another kernel's (intact) entry renamed to this kernel's key."""
    mine = tilemlir.compile(scale_func(24, 1.5), out_idx=[1]).bundle_dir
    other = tilemlir.compile(scale_func(24, 4.0), out_idx=[1]).bundle_dir
    shutil.rmtree(mine)
    other.rename(mine)
    again = tilemlir.compile(scale_func(24, 1.5), out_idx=[1])
    assert len(compile_calls) == 3
    run_scale(again, 24, 1.5)
    record = json.loads((mine / "entry.json").read_text())
    assert record["key"] == mine.name


def test_entry_record_damaged_or_missing(cache_dir, compile_calls, checked_loads):
    func = scale_func(24, 1.5)
    entry = tilemlir.compile(func, out_idx=[1]).bundle_dir
    for damage in ('{"key": 1', "", None):
        if damage is None:
            (entry / "entry.json").unlink()
        else:
            (entry / "entry.json").write_text(damage)
        run_scale(tilemlir.compile(func, out_idx=[1]), 24, 1.5)
    assert len(compile_calls) == 4


@pytest.mark.parametrize("what", ["file", "empty-dir", "link-to-other", "dangling-link"])
def test_entry_replaced_by_something_else(cache_dir, compile_calls, what):
    func = scale_func(24, 1.5)
    entry = tilemlir.compile(func, out_idx=[1]).bundle_dir
    other = tilemlir.compile(scale_func(24, 4.0), out_idx=[1]).bundle_dir
    shutil.rmtree(entry)
    if what == "file":
        entry.write_text("not a directory")
    elif what == "empty-dir":
        entry.mkdir()
    elif what == "link-to-other":
        entry.symlink_to(other)
    else:
        entry.symlink_to(cache_dir / "nowhere")
    again = tilemlir.compile(func, out_idx=[1])
    assert len(compile_calls) == 3
    assert again.bundle_dir == entry and entry.is_dir() and not entry.is_symlink()
    run_scale(again, 24, 1.5)
    run_scale(tilemlir.compile(scale_func(24, 4.0), out_idx=[1]), 24, 4.0)  # other: intact


def _compile_without_cache(func, compile_calls):
    with pytest.warns(RuntimeWarning, match="cannot be written .* compiling without the cache"):
        kernel = tilemlir.compile(func, out_idx=[1])
    run_scale(kernel, 24, 1.5)
    return kernel


def test_cache_dir_that_is_a_file(tmp_path, monkeypatch, compile_calls):
    path = tmp_path / "cache"
    path.write_text("a file")
    monkeypatch.setenv("TILEMLIR_CACHE_DIR", str(path))
    kernel = _compile_without_cache(scale_func(24, 1.5), compile_calls)
    assert not kernel.bundle_dir.is_relative_to(path)
    monkeypatch.setenv("TILEMLIR_CACHE_DIR", str(path / "below"))
    _compile_without_cache(scale_func(24, 1.5), compile_calls)
    assert path.read_text() == "a file"


def test_cache_that_refuses_writes(cache_dir, monkeypatch, compile_calls):
    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied", str(cache_dir))

    real_mkdtemp = tempfile.mkdtemp
    monkeypatch.setattr(tempfile, "mkdtemp", lambda *a, **k: (
        refuse() if k.get("dir") == cache_dir else real_mkdtemp(*a, **k)))
    _compile_without_cache(scale_func(24, 1.5), compile_calls)
    _compile_without_cache(scale_func(24, 1.5), compile_calls)
    assert len(compile_calls) == 2


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only directories")
def test_read_only_cache_dir(cache_dir, compile_calls):
    cache_dir.mkdir()
    cache_dir.chmod(0o500)
    try:
        _compile_without_cache(scale_func(24, 1.5), compile_calls)
    finally:
        cache_dir.chmod(0o700)


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_entries_follow_the_umask(cache_dir, umask):
    old = os.umask(umask)
    try:
        entry = tilemlir.compile(scale_func(24, 1.5 + umask), out_idx=[1]).bundle_dir
    finally:
        os.umask(old)
    assert entry.stat().st_mode & 0o777 == 0o777 & ~umask
    for f in entry.iterdir():
        assert f.stat().st_mode & 0o777 == 0o666 & ~umask, f


def test_entry_its_runtime_refuses_is_rebuilt(cache_dir, monkeypatch):
    """A sound-looking entry (digests agree, the form is a bundle's) whose
    runtime refuses it is rebuilt rather than raised."""
    first = tilemlir.compile(scale_func(64, 2.0), out_idx=[1], target="cuda -arch=sm_90a")
    _edit_meta(first.bundle_dir, lambda m: m["kernel_args"].append({"kind": "ptr", "param": 9}))
    _reseal(first.bundle_dir)
    calls = []
    real = _compiler.compile_cuda_with_ptx
    monkeypatch.setattr(_compiler, "compile_cuda_with_ptx",
                        lambda *a, **k: (calls.append(1), real(*a, **k))[1])
    again = tilemlir.compile(scale_func(64, 2.0), out_idx=[1], target="cuda -arch=sm_90a")
    assert calls, "the refused entry was not rebuilt"
    meta = json.loads((again.bundle_dir / "bundle.json").read_text())
    assert {"kind": "ptr", "param": 9} not in meta["kernel_args"]


def test_disabled_cache_neither_reads_nor_writes(cache_dir, compile_calls):
    # TileLang's tilelang.disable_cache() / enable_cache() / is_cache_enabled().
    func = scale_func(16, 2.0)
    tilemlir.compile(func, out_idx=[1])
    assert len(compile_calls) == 1
    tilemlir.disable_cache()
    try:
        assert not tilemlir.is_cache_enabled()
        k = tilemlir.compile(func, out_idx=[1])
        assert len(compile_calls) == 2          # the entry was not read
        run_scale(k, 16, 2.0)
        assert k.bundle_dir.parent != cache_dir
        tilemlir.compile(scale_func(17, 2.0), out_idx=[1])
        assert len(entries(cache_dir)) == 1      # nor a new one written
    finally:
        tilemlir.enable_cache()
    assert tilemlir.is_cache_enabled()
    tilemlir.compile(func, out_idx=[1])
    assert len(compile_calls) == 3               # enabled again: a hit
