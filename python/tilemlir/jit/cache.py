"""The on-disk kernel cache.

An entry is a bundle directory named by a key: the SHA-256 of the kernel's
tile IR (which fixes everything the binary depends on: the source, the
arguments of the factory, dtypes and shapes), the target and the compiler
version. Entries are written to a temporary directory and renamed into
place, so a reader never sees half an entry. Nothing in an entry is
trusted before it is checked: `entry.json` records the entry's own key and
the SHA-256 of bundle.json, which lists every other file with its SHA-256;
bundle.json must have the form a bundle has, and describe the kernel being
compiled. An entry that fails any check (damaged, truncated, renamed from
another key, or no directory at all) is removed and rebuilt, never loaded.
A cache that cannot be written is not an error: the kernel is compiled into
a private directory instead (with a warning).
"""

import atexit
import hashlib
import json
import logging
import os
import pathlib
import shutil
import tempfile
import warnings

from ..language import dtypes

ENTRY = "entry.json"
BUNDLE = "bundle.json"


# TileLang's enable_cache / disable_cache: while disabled, kernels are
# compiled into private directories and no entry is read or written.
_enabled = True


def is_cache_enabled():
    return _enabled


def enable_cache():
    global _enabled
    _enabled = True


def disable_cache():
    global _enabled
    _enabled = False


def cache_dir():
    env = os.environ.get("TILEMLIR_CACHE_DIR")
    if env:
        return pathlib.Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return pathlib.Path(base) / "tilemlir"


def make_key(*parts):
    h = hashlib.sha256()
    for p in parts:
        h.update(repr(p).encode())
        h.update(b"\0")
    return h.hexdigest()


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def lookup(key, compiler_id=None, params=None):
    """The entry's directory if it is complete, intact, this key's and
    (with `params`) a bundle of a kernel with these parameters; else None,
    and a damaged entry is removed. With a `compiler_id` (the compiler
    library at hand), an entry that another build of the compiler wrote is
    stale: removed too. Without one (no compiler here), any intact entry
    serves. Never raises for what it finds on disk."""
    if not _enabled:
        return None
    entry = cache_dir() / key
    if not os.path.lexists(entry):
        return None
    try:
        problem = _check_entry(entry, key, compiler_id, params)
    except (OSError, ValueError) as e:  # unreadable: a miss
        problem = str(e) or type(e).__name__
    if problem is None:
        return entry
    logging.getLogger(__name__).info("rebuilding cache entry %s: %s", entry, problem)
    _remove(entry)
    return None


def discard(key):
    """Removes the entry of `key`, if any (one its runtime refused)."""
    entry = cache_dir() / key
    if os.path.lexists(entry):
        _remove(entry)


def _check_entry(entry, key, compiler_id, params):
    """None if `entry` is a sound entry for `key`, else what is wrong."""
    if entry.is_symlink() or not entry.is_dir():
        return "not a directory"
    try:
        record = json.loads((entry / ENTRY).read_text())
        meta_bytes = (entry / BUNDLE).read_bytes()
        meta = json.loads(meta_bytes)
    except (OSError, ValueError, UnicodeDecodeError) as e:
        return f"unreadable: {e}"
    if not isinstance(record, dict) or record.get("key") != key:
        return "written for another key"
    if record.get(BUNDLE) != hashlib.sha256(meta_bytes).hexdigest():
        return f"{BUNDLE} does not match its digest"
    problem = check_bundle(meta)
    if problem:
        return f"{BUNDLE}: {problem}"
    for name, digest in meta["files"].items():
        try:
            if _digest(entry / name) != digest:
                return f"{name} does not match its digest"
        except OSError as e:
            return f"{name}: {e}"
    if compiler_id is not None and meta.get("compiler_id") != compiler_id:
        return "written by another build of the compiler"
    if params is not None and meta["params"] != params:
        return "its parameters are not the kernel's"
    return None


def _is_count(x, lo=0):
    return isinstance(x, int) and not isinstance(x, bool) and x >= lo


def _check_param(p):
    if not isinstance(p, dict) or not isinstance(p.get("name"), str):
        return f"a parameter is not {{name, kind, dtype, ...}}: {p!r}"
    try:
        dtypes.as_dtype(p.get("dtype"))
    except TypeError:
        return f"parameter '{p['name']}' has dtype {p.get('dtype')!r}"
    if p.get("kind") == "scalar":
        return None
    if p.get("kind") != "tensor":
        return f"parameter '{p['name']}' has kind {p.get('kind')!r}"
    shape = p.get("shape")
    if not isinstance(shape, list) or not all(
            _is_count(d, 1) or (isinstance(d, str) and d) for d in shape):
        return f"parameter '{p['name']}' has shape {shape!r}"
    if not isinstance(p.get("written", False), bool):
        return f"parameter '{p['name']}' has written = {p.get('written')!r}"
    return None


def check_bundle(meta):
    """None if `meta` (a parsed bundle.json) has the form of a bundle this
    version writes, else what is wrong: the loader can then read every
    field it needs without a KeyError or a wrong type."""
    if not isinstance(meta, dict):
        return "not an object"
    files = meta.get("files")
    if not isinstance(files, dict) or not all(
            isinstance(n, str) and n and os.path.basename(n) == n and n not in (ENTRY, BUNDLE)
            and isinstance(d, str) for n, d in files.items()):
        return "no valid list of files with their digests"
    if not isinstance(meta.get("entry"), str) or not meta["entry"]:
        return "no entry point"
    params = meta.get("params")
    if not isinstance(params, list):
        return "no parameter list"
    for p in params:
        problem = _check_param(p)
        if problem:
            return problem
    target = meta.get("target")
    if target == "cpu":
        roles = ("library",)
    elif target in ("cuda", "hip"):
        roles = ("binary",)
        launches = meta.get("kernels", [meta])
        if not isinstance(launches, list) or not launches or not all(
                isinstance(k, dict) and isinstance(k.get("entry"), str) for k in launches):
            return "a malformed kernel list"
        for k in launches:
            problem = _check_launch(k)
            if problem:
                return problem
    else:
        return f"target {target!r}"
    for role in roles + ("ptx", "isa"):
        if role in meta and meta[role] not in files:
            return f"its {role} {meta[role]!r} has no digest"
        if role in roles and role not in meta:
            return f"no {role}"
    return None


def _check_launch(k):
    """What is wrong with one kernel's launch description in a CUDA
    bundle (None if nothing)."""
    if not isinstance(k.get("kernel_args"), list) or not all(
            isinstance(a, dict) for a in k["kernel_args"]):
        return "no kernel argument list"
    grid = k.get("grid")
    if not isinstance(grid, list) or not 1 <= len(grid) <= 3 or not all(
            isinstance(g, (str, int)) and not isinstance(g, bool) for g in grid):
        return f"grid {grid!r}"
    for field in ("block", "cluster"):
        v = k.get(field, [1] if field == "cluster" else None)
        if not isinstance(v, list) or not 1 <= len(v) <= 3 or \
                not all(_is_count(x, 1) for x in v):
            return f"{field} {v!r}"
    if not _is_count(k.get("shared_bytes")):
        return f"shared_bytes {k.get('shared_bytes')!r}"
    return None


def _remove(path):
    """Removes a file, link or directory tree, as far as it can."""
    try:
        if path.is_symlink() or not path.is_dir():
            path.unlink()
        else:
            shutil.rmtree(path, ignore_errors=True)
    except OSError:
        pass


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _write_entry(directory, key, meta, files):
    """Writes the files, bundle.json (`meta` plus the files' digests) and
    entry.json into `directory`."""
    digests = {}
    for name, data in files.items():
        (directory / name).write_bytes(data)
        digests[name] = hashlib.sha256(data).hexdigest()
    meta_bytes = json.dumps(dict(meta, files=digests), indent=1).encode()
    (directory / BUNDLE).write_bytes(meta_bytes)
    (directory / ENTRY).write_text(json.dumps(
        {"key": key, BUNDLE: hashlib.sha256(meta_bytes).hexdigest()}))


def store(key, meta, files):
    """Writes an entry atomically: `files` maps names to bytes; bundle.json
    gets `meta` plus the files' digests. Returns the entry's directory, or,
    where the cache cannot be written, a private directory that holds the
    bundle until the process exits (after a one-line warning)."""
    if not _enabled:
        return _private(key, meta, files)
    root = cache_dir()
    tmp = None
    try:
        root.mkdir(parents=True, exist_ok=True)
        tmp = pathlib.Path(tempfile.mkdtemp(prefix=f".{key[:16]}-", dir=root))
        # mkdtemp makes 0700 directories; an entry is as shared as any
        # directory the user makes (the umask decides).
        os.chmod(tmp, 0o777 & ~_umask())
        _write_entry(tmp, key, meta, files)
        final = root / key
        for _ in range(2):
            try:
                os.rename(tmp, final)
                return final
            except OSError:
                # Another process stored the entry first (keep it if it is
                # sound), or something else is in the way: removed.
                if lookup(key, meta.get("compiler_id"), meta.get("params")) is not None:
                    return final
        raise OSError(f"cannot put the entry in place at {final}")
    except OSError as e:
        return _uncached(key, meta, files, root, e)
    finally:
        if tmp is not None and tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def _uncached(key, meta, files, root, error):
    warnings.warn(f"tilemlir: the kernel cache {root} cannot be written ({error}); compiling "
                  "without the cache (set TILEMLIR_CACHE_DIR to a writable directory)",
                  RuntimeWarning, stacklevel=4)
    return _private(key, meta, files)


def _private(key, meta, files):
    """The bundle in a directory of this process's own, removed at exit."""
    path = pathlib.Path(tempfile.mkdtemp(prefix="tilemlir-uncached-"))
    atexit.register(shutil.rmtree, path, True)
    _write_entry(path, key, meta, files)
    return path
