"""The on-disk kernel cache.

An entry is a bundle directory named by a key: the SHA-256 of the kernel's
tile IR (which fixes everything the binary depends on: the source, the
arguments of the factory, dtypes and shapes), the target, the output indices
and the compiler version. Entries are written to a temporary directory and
renamed into place, so a reader never sees half an entry; every file is
listed with its SHA-256 in bundle.json and checked on load, so a truncated
or corrupted entry is rebuilt, never loaded.
"""

import hashlib
import json
import os
import pathlib
import shutil
import tempfile


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


def lookup(key, compiler_id=None):
    """The entry's directory if it is complete and intact, else None (a
    damaged entry is removed). With a `compiler_id` (the compiler library
    at hand), an entry that another build of the compiler wrote is stale:
    removed too. Without one (no compiler here), any intact entry serves."""
    entry = cache_dir() / key
    meta_path = entry / "bundle.json"
    if not meta_path.exists():
        return None
    try:
        meta = json.loads(meta_path.read_text())
        # The binaries that will be loaded must be among the checked files.
        for role in ("library", "binary", "ptx"):
            if role in meta and meta[role] not in meta["files"]:
                raise ValueError(f"{meta[role]} has no digest")
        if "library" not in meta and "binary" not in meta:
            raise ValueError("the entry names no binary")
        for name, digest in meta["files"].items():
            if _digest(entry / name) != digest:
                raise ValueError(f"{name} does not match its digest")
        if compiler_id is not None and meta.get("compiler_id") != compiler_id:
            raise ValueError("written by another build of the compiler")
        return entry
    except (OSError, ValueError, KeyError, TypeError):
        shutil.rmtree(entry, ignore_errors=True)
        return None


def store(key, meta, files):
    """Writes an entry atomically: `files` maps names to bytes; bundle.json
    gets `meta` plus the files' digests. Returns the entry's directory."""
    root = cache_dir()
    root.mkdir(parents=True, exist_ok=True)
    tmp = pathlib.Path(tempfile.mkdtemp(prefix=f".{key[:16]}-", dir=root))
    try:
        digests = {}
        for name, data in files.items():
            (tmp / name).write_bytes(data)
            digests[name] = hashlib.sha256(data).hexdigest()
        meta = dict(meta, files=digests)
        (tmp / "bundle.json").write_text(json.dumps(meta, indent=1))
        final = root / key
        try:
            os.rename(tmp, final)
        except OSError:
            # Another process stored the same entry first; keep theirs if intact.
            shutil.rmtree(tmp, ignore_errors=True)
            if lookup(key, meta.get("compiler_id")) is None:
                shutil.rmtree(final, ignore_errors=True)
                return store(key, meta, files)
        return final
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
