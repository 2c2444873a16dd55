#!/usr/bin/env python3
"""TileLang's own example programs, compiled by TileLang and by TileMLIR in
one process, run on the same inputs, checked against torch and timed side by
side (issue 17). The set and its configurations are benchmark/vs_programs.py.

Each program is loaded from TileLang's checkout by path, twice: as it is,
for TileLang (`import tilelang`), and with its imports changed to tilemlir
(benchmark/corpus/rewrite.py; every other line is the program's own), for
TileMLIR. Modules the program imports from its own folder are loaded the same
way for each side. Both kernels get the same tensors; each output is checked
against the program's own torch reference where it has one, else ours. Both
are timed in alternating rounds (CUDA events around each call, median of
each round, median of the rounds), with cuBLAS / SDPA / torch beside them
where natural. A program that fails on one side (import, compile, run,
check) is a row that says so; the others go on. Where the machine lacks
einops or pytest (imported at the top of some programs, for their references
or test marks), stand-ins take their place.

    # build machine, no GPU (needs torch: .venv-corpus, see RESULTS.md):
    # every TileMLIR kernel of the set compiled for sm_90a into a cache (each
    # program runs on an emulated device with its launches left out, so the
    # kernels a program builds as it runs compile too); what does not
    # compile is recorded beside the cache (vs_tilelang_fill.json)
    TILEMLIR_CACHE_DIR=.jitcache .venv-corpus/bin/python benchmark/vs_tilelang.py \
        /path/to/tilelang --fill
    # the set's example folders (their .py files) copied into a folder git
    # ignores, to send with the run, with TileLang's wheels (shared/PLATFORM.md)
    .venv/bin/python benchmark/vs_tilelang.py /path/to/tilelang --stage .tlex
    cp tl.tar.xz .tlex/
    # GPU machine, carrying .jitcache and .tlex: (a) TileMLIR from the cache,
    # without its compiler
    mkdir -p /tmp/site && tar -xJf .tlex/tl.tar.xz -C /tmp/site
    TILEMLIR_CACHE_DIR=.jitcache PYTHONPATH=python:/tmp/site python3 \
        benchmark/vs_tilelang.py .tlex --quick --json vs.json --markdown vs.md
    # (b) or with the TileMLIR wheel installed there (it compiles itself):
    PYTHONPATH=<the wheel's site>:/tmp/site python3 benchmark/vs_tilelang.py .tlex

    # here, without a GPU: the run's path on the emulated device (TileMLIR's
    # launches left out, TileLang's kernels compiled where it imports)
    TILEMLIR_CACHE_DIR=.jitcache .venv-corpus/bin/python benchmark/vs_tilelang.py \
        /path/to/tilelang --dry --rounds 1

The table: program, configuration, TileMLIR ms, TileLang ms, ratio (TileLang
ms / TileMLIR ms: above 1, TileMLIR is faster), TFLOP/s or GB/s of each, the
baseline, and each side's check (max |error| or what failed: "not
compiled: <first error>", "run failed", "MISMATCH"); then the geometric mean
of the ratio over the rows where both ran and matched. TileLang's kernels are
compiled in threads (--jobs; TileLang does so itself) after TileMLIR's.

Options: --only SUBSTRING (repeatable: programs, configurations or families
containing it), --quick (one to three configurations a family), --json PATH,
--markdown PATH (the table, also printed), --rounds N, --jobs N,
--no-tilelang (TileMLIR alone), --isolate (each family in a process of its
own), --list (the cases)."""

import argparse
import concurrent.futures
import contextlib
import datetime
import importlib.abc
import importlib.machinery
import importlib.util
import json
import math
import os
import pathlib
import shutil
import statistics
import sys
import time
import traceback
import types

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
# The checkout stays as it is: no __pycache__ written into it.
sys.dont_write_bytecode = True

import vs_programs  # noqa: E402
from corpus.rewrite import rewrite_imports  # noqa: E402

SM90 = "cuda -arch=sm_90a"


# ---------------------------------------------------------------- imports

def import_tilemlir(prefer_checkout):
    """tilemlir: this checkout's python/ for --fill (its compiler builds the
    cache), else the one the environment gives (PYTHONPATH=python, or an
    installed wheel), else this checkout's."""
    if prefer_checkout:
        sys.path.insert(0, str(ROOT / "python"))
    try:
        import tilemlir
    except ImportError:
        sys.path.insert(0, str(ROOT / "python"))
        import tilemlir
    import tilemlir.tvm.target  # noqa: F401 - the `with Target(...)` of our builds
    return tilemlir


def import_tilelang():
    """(tilelang, None), or (None, why not)."""
    try:
        import tilelang
        return tilelang, None
    except Exception as e:  # noqa: BLE001 - any failure means no TileLang side
        return None, first_line(e)


def stub_missing_modules():
    """Stand-ins for modules that programs import at the top but the GPU
    machine lacks: einops (for references only: a stand-in that fails when
    used, and those rows use our references) and pytest (for test marks, as
    tilelang.testing imports it: marks that change nothing)."""
    try:
        import einops  # noqa: F401
    except ImportError:
        stub = types.ModuleType("einops")

        def missing(*_, **__):
            raise RuntimeError("einops is not installed")
        stub.rearrange = stub.einsum = stub.repeat = stub.reduce = missing
        sys.modules["einops"] = stub
    try:
        import pytest  # noqa: F401
    except ImportError:
        sys.modules["pytest"] = _pytest_stand_in()


def _pytest_stand_in():
    class Marks:
        def __getattr__(self, name):
            def mark(*args, **kwargs):
                if len(args) == 1 and callable(args[0]) and not kwargs:
                    return args[0]  # @pytest.mark.x on a function
                return lambda fn: fn
            return mark

    stub = types.ModuleType("pytest")
    stub.mark = Marks()
    stub.fixture = stub.mark.fixture

    def unavailable(*_, **__):
        raise RuntimeError("pytest is not installed")
    stub.main = stub.skip = stub.fail = stub.raises = stub.importorskip = unavailable
    return stub


class FillRecord(Exception):
    """What --fill said about a kernel the cache lacks."""


def first_line(exc):
    if isinstance(exc, FillRecord):
        return str(exc)
    text = f"{type(exc).__name__}: {exc}".strip()
    return " ".join(text.splitlines()[0].split())[:300] if text else type(exc).__name__


# ---------------------------------------------------------------- loading

class _RewritingLoader(importlib.machinery.SourceFileLoader):
    """Loads a file of the checkout with its imports changed to tilemlir,
    always from source (never a cached .pyc of the original)."""

    def get_code(self, fullname):
        path = self.get_filename(fullname)
        text, _ = rewrite_imports(self.get_data(path).decode())
        return compile(text, path, "exec", dont_inherit=True)


class _RewritingFinder(importlib.abc.MetaPathFinder):
    def __init__(self, checkout):
        self.checkout = checkout

    def find_spec(self, name, path, target=None):
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or not spec.origin or not spec.origin.endswith(".py"):
            return spec
        if not _inside(spec.origin, self.checkout):
            return spec
        return importlib.util.spec_from_file_location(
            name, spec.origin, loader=_RewritingLoader(name, spec.origin),
            submodule_search_locations=spec.submodule_search_locations)


_INSIDE = {}  # (module file, checkout) -> whether the file is in the checkout


def _inside(path, folder):
    try:
        pathlib.Path(path).resolve().relative_to(folder)
        return True
    except ValueError:
        return False


class Side:
    """One compiler's view of the programs: its loaded example modules, and
    the modules they imported from the checkout (`quantize`, `sparse_utils`,
    ...), which are swapped into sys.modules while the side is active."""

    def __init__(self, name, checkout, rewrite, context=None):
        self.name = name
        self.checkout = checkout
        self.context = context or contextlib.nullcontext  # entered while active
        self.finder = _RewritingFinder(checkout) if rewrite else None
        self.modules = {}    # the checkout's modules this side imported
        self.programs = {}   # (file, edits, defs_only) -> module or exception

    def _checkout_modules(self):
        """The names in sys.modules of modules whose file is in the checkout
        (whether a file is, remembered: this runs around every call)."""
        names = []
        for name, module in list(sys.modules.items()):
            try:
                path = module.__file__
            except Exception:  # noqa: BLE001 - no file, or a lazy module that refuses
                continue
            if not isinstance(path, str):
                continue
            key = (path, self.checkout)
            if key not in _INSIDE:
                _INSIDE[key] = _inside(path, self.checkout)
            if _INSIDE[key]:
                names.append(name)
        return names

    @contextlib.contextmanager
    def active(self):
        for name in self._checkout_modules():
            del sys.modules[name]
        sys.modules.update(self.modules)
        if self.finder:
            sys.meta_path.insert(0, self.finder)
        try:
            with self.context():
                yield
        finally:
            if self.finder:
                sys.meta_path.remove(self.finder)
            for name in self._checkout_modules():
                self.modules[name] = sys.modules.pop(name)

    def load(self, case):
        """The case's program as a module (once per file and edits); raises
        what loading raised."""
        key = (case.file, case.edits, case.defs_only)
        if key not in self.programs:
            try:
                self.programs[key] = self._load(case)
            except BaseException as e:  # noqa: B036 - SystemExit from argparse
                if isinstance(e, KeyboardInterrupt):
                    raise
                self.programs[key] = e
        found = self.programs[key]
        if isinstance(found, BaseException):
            raise found
        return found

    def _load(self, case):
        path = self.checkout / case.file
        text = path.read_text()
        for old, new in case.edits:
            if old not in text:
                raise ValueError(f"{case.file} has no line {old!r} to change")
            text = text.replace(old, new)
        if self.finder:
            text, _ = rewrite_imports(text)
        code = compile(_definitions(text) if case.defs_only else text, str(path), "exec",
                       dont_inherit=True)
        if str(path.parent) not in sys.path:
            sys.path.insert(0, str(path.parent))
        stem = f"vs_{self.name.lower()}_{path.stem}_{abs(hash(key_text(case))) % 10**8}"
        module = types.ModuleType(stem)
        module.__file__ = str(path)
        sys.modules[stem] = module  # dataclasses and pickling look modules up
        exec(code, module.__dict__)
        if case.setup:
            case.setup(module)
        return module


def our_side(checkout, tilemlir):
    """TileMLIR's side: programs with their imports rewritten, compiled for
    sm_90a (what "auto" is on the H200, and what --fill compiles without a
    GPU), kernels built as a program runs included."""
    return Side("TileMLIR", checkout, rewrite=True,
                context=lambda: tilemlir.tvm.target.Target(SM90))


def key_text(case):
    return repr((case.file, case.edits, case.defs_only))


def _definitions(text):
    """The program's imports, functions, classes and constant assignments
    (a program whose top level runs it: online_softmax.py); same lines."""
    import ast
    tree = ast.parse(text)
    keep = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef)):
            keep.append(node)
        elif isinstance(node, ast.Assign):
            try:
                ast.literal_eval(node.value)
                keep.append(node)
            except ValueError:
                pass
    tree.body = keep
    return tree


# ---------------------------------------------------------------- tensors

class Tensors:
    """What the cases make their inputs with: seeded random tensors on the
    GPU, or (real=False, --fill) uninitialised ones on the emulated device."""

    def __init__(self, torch, real):
        self.torch = torch
        self.real = real

    def _dtype(self, dtype):
        return getattr(self.torch, dtype) if isinstance(dtype, str) else dtype

    def randn(self, *shape, dtype="float16"):
        dt = self._dtype(dtype)
        if not self.real:
            return self.torch.empty(shape, dtype=dt, device="cuda")
        return self.torch.randn(shape, dtype=self.torch.float32, device="cuda").to(dt)

    def rand(self, *shape, dtype="float16"):
        dt = self._dtype(dtype)
        if not self.real:
            return self.torch.empty(shape, dtype=dt, device="cuda")
        return self.torch.rand(shape, dtype=self.torch.float32, device="cuda").to(dt)

    def zeros(self, *shape, dtype="float16"):
        return self.torch.zeros(shape, dtype=self._dtype(dtype), device="cuda")

    def randint(self, low, high, shape, dtype="int32"):
        return self.torch.randint(low, high, shape, dtype=self._dtype(dtype), device="cuda")


# ------------------------------------------------------------------ --fill

@contextlib.contextmanager
def launches_left_out(tilemlir):
    """Kernels compile and return outputs (uninitialised) without running:
    a program's later kernels (a backward pass) compile as on the GPU."""
    cls = sys.modules["tilemlir.jit"].JITKernel  # (tilemlir.jit is the decorator)
    original = cls.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        self.runtime = lambda *a: None
        self._launch_made = None    # (the launch cache's path)
    cls.__init__ = init
    try:
        yield
    finally:
        cls.__init__ = original


def fill(cases, checkout, tilemlir):
    """Compiles every TileMLIR kernel of the cases for sm_90a (into
    TILEMLIR_CACHE_DIR); prints one line a case; returns the rows."""
    import torch
    from corpus import cpu_torch
    cpu_torch.install()
    ours = our_side(checkout, tilemlir)
    rows = []
    for case in cases:
        start = time.perf_counter()
        status = "compiled"
        try:
            with ours.active(), launches_left_out(tilemlir):
                module = ours.load(case)
                torch.manual_seed(0)
                args = case.inputs(Tensors(torch, real=False), module)
                case.run(case.build(module), args)
        except Exception as e:  # noqa: BLE001 - a row says what failed
            status = "not compiled: " + where_failed(e, checkout)
        seconds = time.perf_counter() - start
        print(f"{case.program} [{case.config}]: {status} ({seconds:.1f} s)", flush=True)
        rows.append({"program": case.program, "config": case.config, "ours": status})
    done = sum(r["ours"] == "compiled" for r in rows)
    print(f"{done} of {len(rows)} cases compiled")
    record_fill(rows)
    return rows


FILL_RECORD = "vs_tilelang_fill.json"


def record_fill(rows):
    """Writes what --fill could not compile beside the cache, so that a run
    on a machine without the compiler reports the compiler's own error."""
    folder = os.environ.get("TILEMLIR_CACHE_DIR")
    if not folder:
        return
    path = pathlib.Path(folder) / FILL_RECORD
    known = json.loads(path.read_text()) if path.exists() else {}
    for r in rows:
        known[f"{r['program']} [{r['config']}]"] = r["ours"]
    path.write_text(json.dumps(known, indent=1, sort_keys=True))


def fill_errors():
    """{program [config]: what --fill said} from the cache's record."""
    folder = os.environ.get("TILEMLIR_CACHE_DIR")
    path = pathlib.Path(folder) / FILL_RECORD if folder else None
    if path is None or not path.exists():
        return {}
    return json.loads(path.read_text())


def where_failed(exc, checkout):
    """The error's first line (paths in the checkout made relative to it)
    and the program's line it came from."""
    text = first_line(exc).replace(str(checkout) + os.sep, "")
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if _inside(frame.filename, checkout):
            rel = pathlib.Path(frame.filename).resolve().relative_to(checkout)
            if f"{rel}:" not in text:
                text += f" ({rel}:{frame.lineno})"
            break
    return text


# ------------------------------------------------------------------ timing

def bench_ms(fn, torch, budget_ms=150, max_reps=200):
    """Median ms of one call: CUDA events around each call, after a warm-up,
    as many calls as fit in about `budget_ms`."""
    fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(3):
        fn()
    end.record()
    torch.cuda.synchronize()
    estimate = max(start.elapsed_time(end) / 3, 1e-3)
    reps = int(max(5, min(max_reps, budget_ms / estimate)))
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
              for _ in range(reps)]
    for s, e in events:
        s.record()
        fn()
        e.record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in events)


def alternating_ms(fns, torch, rounds):
    """{name: median over rounds of each round's median}, the callables
    ({name: (fn, context)}: each timed inside its context) run in turn in
    each round (their order reversed every other round)."""
    times = {name: [] for name in fns}
    names = list(fns)
    for r in range(rounds):
        for name in list(names if r % 2 == 0 else names[::-1]):
            fn, context = fns[name]
            try:
                with context():
                    times[name].append(bench_ms(fn, torch))
            except Exception as e:  # noqa: BLE001
                times[name] = e
                names.remove(name)
    return {n: (t if isinstance(t, Exception) else statistics.median(t)) for n, t in
            times.items()}


def gpu_ms(fn, torch, calls=10):
    """(GPU ms of one call: the kernels' durations summed, kernels a call)
    from torch's profiler: the time a call keeps the GPU busy, without the
    host's share that the events of bench_ms see for small kernels."""
    from torch.profiler import ProfilerActivity, profile
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
    kernels = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA
               and "memset" not in e.name.lower() and "memcpy" not in e.name.lower()]
    total_us = sum(e.device_time for e in kernels)
    return total_us / calls / 1000, len(kernels) / calls


# -------------------------------------------------------------------- run

def build_side(side, cases, jobs=1):
    """{case index: built kernel or exception}: every case's program loaded
    and its kernel compiled, in `jobs` threads once the programs are
    loaded."""
    built, modules = {}, {}
    with side.active():
        for i, case in enumerate(cases):
            try:
                modules[i] = side.load(case)
            except Exception as e:  # noqa: BLE001
                built[i] = e

        def one(i):
            try:
                return cases[i].build(modules[i])
            except Exception as e:  # noqa: BLE001
                return e

        todo = [i for i in modules]
        if jobs > 1:
            with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
                for i, result in zip(todo, pool.map(one, todo)):
                    built[i] = result
            # A failure in a thread is tried again alone (the error kept is
            # what a sequential compile gives).
            for i in todo:
                if isinstance(built[i], Exception):
                    built[i] = one(i)
        else:
            for i in todo:
                built[i] = one(i)
    return built, modules


def explain_missing_compiler(cases, kernels):
    """Where no compiler is installed (a cache filled elsewhere), a kernel
    the cache lacks fails for that reason: the row gets --fill's error."""
    record = fill_errors()
    for i, kernel in kernels.items():
        if isinstance(kernel, Exception) and "compiler library" in str(kernel):
            said = record.get(f"{cases[i].program} [{cases[i].config}]")
            if said and said != "compiled":
                kernels[i] = FillRecord(said.removeprefix("not compiled: ") +
                                        " (--fill's error on the build machine)")


def run_case(case, sides, built, modules, torch, rounds, checkout, dry=False):
    """One row: each side's output checked, then both (and the baseline)
    timed in alternating rounds on the same inputs. `dry`: uninitialised
    inputs and no reference (--dry)."""
    row = {"family": case.family, "program": case.program, "config": case.config,
           "unit": case.unit, "work": case.work}
    # Inputs that need the program's helpers (sparse_utils.compress, ...)
    # take TileLang's where it loaded, else ours.
    helper_side = next((s for s in reversed(sides) if s.name in modules), sides[0])
    torch.manual_seed(0)
    try:
        with helper_side.active():
            args = case.inputs(Tensors(torch, real=not dry), modules.get(helper_side.name))
    except Exception as e:  # noqa: BLE001
        row["error"] = "inputs: " + where_failed(e, checkout)
        return row
    expected = None
    timed = {}
    for side in sides:
        key = side.name
        kernel = built.get(key)
        if isinstance(kernel, Exception) or kernel is None:
            row[key] = {"status": "not compiled: " + where_failed(kernel, checkout)
                        if kernel is not None else "not run"}
            continue
        if dry and side.name == "TileLang":
            row[key] = {"status": "compiled (dry)"}  # its launches cannot be left out
            continue
        try:
            if case.prepare:
                case.prepare(args)
            with side.active():
                out = case.run(kernel, args)
            torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001
            # A kernel the program compiles as it runs (a backward pass).
            what = "not compiled" if type(e).__name__ == "TileCompileError" else "run failed"
            row[key] = {"status": f"{what}: " + where_failed(e, checkout)}
            continue
        if dry:
            row[key] = {"status": "ran (dry)"}
            timed[key] = (lambda k=kernel: case.run(k, args)), side.active
            continue
        if expected is None:
            expected = reference_of(case, modules, sides, args)
        if isinstance(expected, Exception):
            row[key] = {"status": "no reference: " + first_line(expected)}
            continue
        try:
            check = case.check or (lambda o, r: vs_programs.close(o, r, case.rtol, case.atol))
            err = check(out, expected)
            row[key] = {"status": "ok", "max_error": err}
        except AssertionError as e:
            row[key] = {"status": "MISMATCH: " + first_line(e)}
        del out
        timed[key] = (lambda k=kernel: case.run(k, args)), side.active
    if case.baseline and timed and not dry:
        name, make = case.baseline
        timed[name] = make(args), contextlib.nullcontext
        row["baseline"] = name
    for name, ms in alternating_ms(timed, torch, rounds).items():
        entry = row.setdefault(name, {})
        if isinstance(ms, Exception):
            entry["time_error"] = first_line(ms)
        else:
            entry["ms"] = ms
            entry["rate"] = case.work / ms / (1e9 if case.unit == "TFLOP/s" else 1e6)
    if not dry:
        for side in sides:
            if side.name in timed:
                fn, context = timed[side.name]
                try:
                    with context():
                        row[side.name]["gpu_ms"], row[side.name]["kernels"] = gpu_ms(fn, torch)
                except Exception as e:  # noqa: BLE001 - the profiler is optional
                    row[side.name]["gpu_error"] = first_line(e)
    return row


def reference_of(case, modules, sides, args):
    """The reference output, from the first side's module that computes it."""
    for side in sides:
        module = modules.get(side.name)
        if module is None:
            continue
        try:
            with side.active():
                return case.reference(module, args)
        except Exception as e:  # noqa: BLE001
            error = e
    return error if modules else RuntimeError("no program loaded")


def run(cases, checkout, tilemlir, tilelang_error, rounds, jobs, dry=False, on_row=None):
    """The rows of the cases; on_row(rows so far) after each (so that a run
    cut short by a time limit leaves what it measured)."""
    import torch
    ours = our_side(checkout, tilemlir)
    sides = [ours]
    start = time.perf_counter()
    built = {ours.name: build_side(ours, cases)}
    explain_missing_compiler(cases, built[ours.name][0])
    print(f"TileMLIR: {len(cases)} cases built in {time.perf_counter() - start:.1f} s",
          flush=True)
    if tilelang_error is None:
        theirs = Side("TileLang", checkout, rewrite=False)
        sides.append(theirs)
        start = time.perf_counter()
        built[theirs.name] = build_side(theirs, cases, jobs=jobs)
        print(f"TileLang: {len(cases)} cases built in {time.perf_counter() - start:.1f} s",
              flush=True)
    rows = []
    for i, case in enumerate(cases):
        kernels = {s.name: built[s.name][0].get(i) for s in sides}
        modules = {s.name: built[s.name][1][i] for s in sides if i in built[s.name][1]}
        try:
            row = run_case(case, sides, kernels, modules, torch, rounds, checkout, dry)
        except Exception as e:  # noqa: BLE001 - the next program still runs
            row = {"family": case.family, "program": case.program, "config": case.config,
                   "error": where_failed(e, checkout)}
        if tilelang_error is not None:
            row["TileLang"] = {"status": "TileLang unavailable: " + tilelang_error}
        rows.append(row)
        print(row_line(row), flush=True)
        if on_row:
            on_row(rows)
        torch.cuda.empty_cache()
    return rows


# ---------------------------------------------------------------- report

def ratio(row):
    """TileLang ms / TileMLIR ms (above 1: TileMLIR is faster), where both
    ran and matched the reference."""
    ours, theirs = row.get("TileMLIR", {}), row.get("TileLang", {})
    if ours.get("status") == "ok" and theirs.get("status") == "ok" and \
            "ms" in ours and "ms" in theirs:
        return theirs["ms"] / ours["ms"]
    return None


def geomean(values):
    values = [v for v in values if v]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def _cell(entry, field, fmt):
    return fmt.format(entry[field]) if field in entry else "-"


def row_line(row):
    if "error" in row:
        return f"{row['program']} [{row['config']}]: {row['error']}"
    parts = []
    for name in ("TileMLIR", "TileLang", row.get("baseline")):
        if name and name in row:
            e = row[name]
            status = f" {e['status']}" if "status" in e else ""
            ms = f" {e['ms']:.4f} ms" if "ms" in e else ""
            parts.append(f"{name}{status}{ms}")
    r = ratio(row)
    return f"{row['program']} [{row['config']}]: " + "; ".join(parts) + \
        (f"; ratio {r:.2f}" if r else "")


def markdown(rows, meta):
    lines = [f"TileLang {meta.get('tilelang_version', '-')} vs TileMLIR "
             f"{meta.get('tilemlir_version', '-')} on {meta.get('device', '-')}, "
             f"{meta['date']}. ratio = TileLang ms / TileMLIR ms (above 1: TileMLIR faster). "
             "GPU ms: the kernels' durations a call (torch's profiler; the rest of a call's "
             "time is the host's), with the kernels a call.",
             "",
             "| program | config | ours ms | TileLang ms | ratio | ours | TileLang | baseline "
             "| ours check | TileLang check | ours GPU ms | TileLang GPU ms |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for row in rows:
        if "error" in row:
            lines.append(f"| {row['program']} | {row['config']} | - | - | - | - | - | - | "
                         f"{row['error']} | | | |")
            continue
        ours, theirs = row.get("TileMLIR", {}), row.get("TileLang", {})
        unit = row["unit"]
        base = row.get("baseline")
        base_cell = "-"
        if base and "ms" in row.get(base, {}):
            base_cell = f"{base} {row[base]['ms']:.4f} ms, {row[base]['rate']:.1f} {unit}"
        r = ratio(row)
        lines.append(
            f"| {row['program']} | {row['config']} | {_cell(ours, 'ms', '{:.4f}')} | "
            f"{_cell(theirs, 'ms', '{:.4f}')} | {f'{r:.2f}' if r else '-'} | "
            f"{_cell(ours, 'rate', '{:.1f} ' + unit)} | {_cell(theirs, 'rate', '{:.1f} ' + unit)}"
            f" | {base_cell} | {_status(ours)} | {_status(theirs)} | {_gpu_cell(ours)} | "
            f"{_gpu_cell(theirs)} |")
    g = geomean(ratio(r) for r in rows)
    both = sum(ratio(r) is not None for r in rows)
    lines += ["", f"Geometric mean of the ratio over the {both} rows where both ran and "
              f"matched: {g:.3f}" if g else "", ""]
    return "\n".join(lines)


def _gpu_cell(entry):
    if "gpu_ms" not in entry:
        return "-"
    return f"{entry['gpu_ms']:.4f} ({entry['kernels']:.0f})"


def _status(entry):
    status = entry.get("status", "-")
    if status == "ok" and "max_error" in entry:
        return f"ok ({entry['max_error']:.2g})"
    return status.replace("|", "/")


# ------------------------------------------------------------------ stage

def stage(cases, checkout, out):
    """Copies the .py files of the cases' example folders (a copy to send
    to the GPU machine; in a folder that git ignores) and TileLang's
    wheels tarball when /work/tlwheel has it."""
    out = pathlib.Path(out)
    folders = sorted({pathlib.Path(c.file).parent for c in cases})
    count = 0
    for folder in folders:
        for src in (checkout / folder).rglob("*.py"):
            dst = out / src.relative_to(checkout)
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)
            count += 1
    print(f"{count} files of {len(folders)} example folders copied into {out}")


# ------------------------------------------------------------------- main

def select(cases, only, quick, family=None):
    chosen = [c for c in cases if (not quick or c.quick) and family in (None, c.family)]
    if only:
        chosen = [c for c in chosen
                  if any(s in f"{c.family} {c.file} {c.kernel} {c.config}" for s in only)]
    return chosen


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("checkout", type=pathlib.Path, help="TileLang's checkout (its examples/)")
    ap.add_argument("--fill", action="store_true",
                    help="compile TileMLIR's kernels for sm_90a into the cache; run nothing")
    ap.add_argument("--stage", metavar="DIR", help="copy the set's example folders into DIR")
    ap.add_argument("--only", action="append", default=[], metavar="SUBSTRING")
    ap.add_argument("--quick", action="store_true", help="the quick subset")
    ap.add_argument("--json", metavar="PATH")
    ap.add_argument("--markdown", metavar="PATH")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=min(16, os.cpu_count() or 1))
    ap.add_argument("--no-tilelang", action="store_true")
    ap.add_argument("--dry", action="store_true",
                    help="no GPU: the run's path on the emulated device, TileMLIR's launches "
                    "left out, TileLang's kernels compiled only, no references (checks this "
                    "harness, not the kernels)")
    ap.add_argument("--list", action="store_true", help="print the cases and exit")
    ap.add_argument("--isolate", action="store_true",
                    help="each family in a process of its own (a kernel that breaks the CUDA "
                    "context takes only its family's rows with it)")
    ap.add_argument("--family", help=argparse.SUPPRESS)  # one family: --isolate's children
    return ap.parse_args(argv)


def compare(args, cases, checkout, tilemlir, meta):
    """The GPU run (or --dry's imitation): rows, the table printed and
    written where --markdown says."""
    with contextlib.ExitStack() as stack:
        if args.dry:
            from corpus import cpu_torch
            cpu_torch.install()
            stack.enter_context(launches_left_out(tilemlir))
        tilelang, error = (None, "--no-tilelang") if args.no_tilelang else import_tilelang()
        if tilelang is not None:
            meta["tilelang_version"] = getattr(tilelang, "__version__", "?")
            meta["tilelang_from"] = str(pathlib.Path(tilelang.__file__).parent)
            print(f"tilelang {meta['tilelang_version']} from {meta['tilelang_from']}", flush=True)
        else:
            print(f"TileLang side: {error}", flush=True)
        import torch
        meta["device"] = torch.cuda.get_device_name()
        meta["torch"] = torch.__version__
        rows = run(cases, checkout, tilemlir, error, args.rounds, args.jobs, args.dry,
                   on_row=lambda rows: write_outputs(args, meta, rows))
    print(write_outputs(args, meta, rows))
    return rows


def _child_argv(argv):
    """The arguments without --isolate, --json PATH and --markdown PATH."""
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
        elif a in ("--json", "--markdown"):
            skip = True
        elif a != "--isolate" and not a.startswith(("--json=", "--markdown=")):
            out.append(a)
    return out


def run_isolated(args, cases):
    """--isolate: this script once a family, in a child process each; the
    children's rows in one table and one JSON."""
    import subprocess
    import tempfile
    rows, meta = [], None
    passed = _child_argv(sys.argv[1:])
    families = list(dict.fromkeys(c.family for c in cases))
    with tempfile.TemporaryDirectory() as tmp:
        for n, family in enumerate(families):
            out = pathlib.Path(tmp) / f"{n}.json"
            cmd = [sys.executable, __file__] + passed + ["--family", family, "--json", str(out)]
            print(f"=== {family}", flush=True)
            result = subprocess.run(cmd)
            if out.exists():
                data = json.loads(out.read_text())
                rows += data["rows"]
                meta = meta or data["meta"]
                continue
            for c in cases:
                if c.family == family:
                    rows.append({"family": family, "program": c.program, "config": c.config,
                                 "error": f"its process ended with status {result.returncode}"})
    meta = meta or {"date": "-"}
    meta["command"] = " ".join(sys.argv)
    print(write_outputs(args, meta, rows))
    return 0


def write_outputs(args, meta, rows):
    """The table (returned) and the JSON, written where --markdown and
    --json say."""
    meta["geomean_ratio"] = geomean(ratio(r) for r in rows)
    table = markdown(rows, meta)
    if args.markdown:
        pathlib.Path(args.markdown).write_text(table)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({"meta": meta, "rows": rows}, indent=1,
                                                      default=str))
    return table


def main(argv=None):
    args = parse_args(argv)
    checkout = args.checkout.resolve()
    cases = select(vs_programs.all_cases(), args.only, args.quick, args.family)
    if args.list:
        for c in cases:
            print(f"{c.family}: {c.program} [{c.config}]{' (quick)' if c.quick else ''}")
        return 0
    if args.stage:
        stage(cases, checkout, args.stage)
        return 0
    if not (checkout / "examples").is_dir():
        sys.exit(f"{checkout} has no examples/ folder: give TileLang's checkout")
    if args.isolate and not args.fill:
        return run_isolated(args, cases)
    stub_missing_modules()
    tilemlir = import_tilemlir(prefer_checkout=args.fill)
    meta = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "tilemlir_version": tilemlir.__version__,
            "tilemlir_from": str(pathlib.Path(tilemlir.__file__).parent),
            "command": " ".join(sys.argv)}
    print(f"tilemlir {tilemlir.__version__} from {meta['tilemlir_from']}; {len(cases)} cases",
          flush=True)
    if args.fill:
        fill(cases, checkout, tilemlir)
    else:
        compare(args, cases, checkout, tilemlir, meta)
    return 0


if __name__ == "__main__":
    sys.exit(main())
