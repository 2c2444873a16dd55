"""One corpus program, driven in its own process: imports the rewritten
program, runs its drivers (the tests that call it, or its __main__), and
appends one JSON event a line to the events file for every stage a kernel
reaches or fails. benchmark/tilelang_corpus.py starts it."""

import argparse
import importlib.util
import itertools
import json
import os
import pathlib
import runpy
import sys
import traceback

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from corpus import cpu_torch  # noqa: E402
from corpus.selection import example_drivers, find_factories  # noqa: E402

# A test parametrized over more combinations runs the first few.
MAX_PARAMS = 4
# A factory compiled more often than this compiles the later ones for the
# CPU only.
MAX_INSTANCES = 3
# An autotuned kernel tries this many of its configurations.
MAX_TUNE_CONFIGS = 2


class Events:
    def __init__(self, path):
        self.f = open(path, "a", buffering=1)

    def emit(self, **ev):
        self.f.write(json.dumps(ev, default=str) + "\n")


def cause_of(exc):
    """One line: the exception's type and message, without the location our
    errors put first (the program's line is reported separately)."""
    msg = getattr(exc, "raw_message", None) or str(exc)
    first = msg.strip().splitlines()[0] if msg.strip() else ""
    return f"{type(exc).__name__}: {first}"[:300]


class Program:
    """The rewritten program's files: maps their temporary paths back to the
    checkout's and their lines to the factories that hold them."""

    def __init__(self, tmp_root):
        self.tmp_root = pathlib.Path(tmp_root).resolve()
        self._factories = {}

    def rel(self, filename):
        try:
            return pathlib.Path(filename).resolve().relative_to(self.tmp_root).as_posix()
        except ValueError:
            return None

    def factory_at(self, filename, line):
        rel = self.rel(filename)
        if rel is None:
            return None
        if rel not in self._factories:
            try:
                self._factories[rel] = find_factories(pathlib.Path(filename).read_text())
            except (OSError, SyntaxError):
                self._factories[rel] = []
        for name, first, last in self._factories[rel]:
            if first <= line <= last:
                return rel, name
        return None

    def factories_named_on(self, filename, line):
        """Factories of the file whose names the line mentions."""
        rel = self.rel(filename)
        import linecache
        text = linecache.getline(filename, line)
        self.factory_at(filename, line)
        return [(rel, n) for n, _, _ in self._factories.get(rel, []) if n in text]


class State:
    def __init__(self, events, program):
        self.events = events
        self.program = program
        self.instances = {}
        self.driver = None
        self.ran = []
        self.checked = False
        self.created = []
        self.compiled = []

    def factory_of(self, func):
        code = func.fn.__code__
        return self.program.factory_at(code.co_filename, code.co_firstlineno)

    def stage(self, key, stage, exc=None, **extra):
        if key is None:
            return
        ev = {"ev": "stage", "file": key[0], "factory": key[1], "stage": stage,
              "ok": exc is None, "driver": self.driver}
        if exc is not None:
            ev["cause"] = cause_of(exc)
            ev["where"] = self.user_line(exc)
            exc._corpus_recorded = True
        ev.update(extra)
        self.events.emit(**ev)

    def user_line(self, exc):
        """file:line of the program's deepest frame in the traceback (or of
        the location a compile error names)."""
        if getattr(exc, "filename", None) and getattr(exc, "lineno", None):
            rel = self.program.rel(exc.filename)
            if rel:
                return f"{rel}:{exc.lineno}"
        where = None
        for frame, line in traceback.walk_tb(exc.__traceback__):
            rel = self.program.rel(frame.f_code.co_filename)
            if rel:
                where = f"{rel}:{line}"
        return where

    def attribute(self, exc):
        """The factory an exception escaping a driver belongs to: the
        deepest program frame inside a factory, else a factory named on the
        failing line, else the last kernel the driver made."""
        frames = [(f.f_code.co_filename, line) for f, line in traceback.walk_tb(exc.__traceback__)
                  if self.program.rel(f.f_code.co_filename)]
        for filename, line in reversed(frames):
            key = self.program.factory_at(filename, line)
            if key:
                return key
        if frames:
            named = self.program.factories_named_on(*frames[-1])
            if named:
                return named[0]
        return self.created[-1] if self.created else None


STATE = None


# The GPU targets each kernel is compiled for (a stage of the table each):
# NVIDIA's to cubin through ptxas, AMD's to hsaco (nothing runs them here).
GPU_TARGETS = (("sm_90a", "cuda -arch=sm_90a"), ("sm_80", "cuda -arch=sm_80"),
               ("gfx942", "hip -arch=gfx942"))


def _hooked_compile(orig, translate, run_pipeline):
    def compile_hook(func, out_idx=None, target="auto", **kw):
        key = STATE.factory_of(func) if hasattr(func, "fn") else None
        n = STATE.instances[key] = STATE.instances.get(key, 0) + 1
        try:
            # Tile IR that the compiler parses and verifies.
            run_pipeline(translate(func), "")
        except Exception as e:
            STATE.stage(key, "tile", e)
            raise
        STATE.stage(key, "tile")
        STATE.compiled.append(key)
        if n <= MAX_INSTANCES:
            for chip, target in GPU_TARGETS:
                try:
                    orig(func, out_idx=out_idx, target=target, **kw)
                    STATE.stage(key, chip)
                except Exception as e:
                    STATE.stage(key, chip, e)
        try:
            kernel = orig(func, out_idx=out_idx, target="cpu", **kw)
        except Exception as e:
            STATE.stage(key, "cpu_compile", e)
            raise
        return CorpusKernel(kernel, key)
    return compile_hook


def _hooked_kernel_function_compile(orig, run_pipeline):
    """KernelFunction._compile (TileLang's current front end compiles through
    it, not through tilemlir.compile) measured as compile_hook measures a
    prim_func: tile IR, each of GPU_TARGETS, and the CPU kernel the program
    gets."""
    def compile_hook(self, values, consts):
        key = STATE.factory_of(self)
        n = STATE.instances[key] = STATE.instances.get(key, 0) + 1
        try:
            run_pipeline(self.translate(values, consts)[1], "")
        except Exception as e:
            STATE.stage(key, "tile", e)
            raise
        STATE.stage(key, "tile")
        STATE.compiled.append(key)
        target = self.target
        try:
            if n <= MAX_INSTANCES:
                for chip, self.target in GPU_TARGETS:
                    try:
                        orig(self, values, consts)
                        STATE.stage(key, chip)
                    except Exception as e:
                        STATE.stage(key, chip, e)
            self.target = "cpu"
            try:
                kernel = orig(self, values, consts)
            except Exception as e:
                STATE.stage(key, "cpu_compile", e)
                raise
        finally:
            self.target = target
        return CorpusKernel(kernel, key)
    return compile_hook


class CorpusKernel:
    """A CPU-compiled kernel that a program written for the GPU calls with
    torch tensors."""

    def __init__(self, kernel, key):
        self._kernel = kernel
        self._key = key

    def __call__(self, *args):
        if self._key not in STATE.ran:
            STATE.ran.append(self._key)
        try:
            return cpu_torch.call_with_torch(self._kernel, args)
        except Exception as e:
            STATE.stage(self._key, "cpu_run", e)
            raise

    def __getattr__(self, name):
        return getattr(self._kernel, name)

    def get_profiler(self, tensor_supply_type=None):
        from tilemlir.profiler import Profiler
        return _torch_profiler(Profiler)(self, tensor_supply_type)


def _torch_profiler(base):
    class TorchProfiler(base):
        """Supplies torch tensors (what the program's references take)."""

        def supply_inputs(self, dims=None):
            return [cpu_torch.to_torch(a) if hasattr(a, "dtype") and hasattr(a, "ctypes") else a
                    for a in super().supply_inputs(dims)]

        @property
        def _on_gpu(self):
            return False
    return TorchProfiler


def _run_once(fn=None, *args, **kwargs):
    """do_bench in the harness: one call, its time."""
    import time
    start = time.perf_counter()
    if callable(fn):
        fn()
    return (time.perf_counter() - start) * 1e3


def _checking(fn):
    """A comparison function that records whether it passed."""
    def check(*args, **kwargs):
        try:
            result = fn(*args, **kwargs)
        except AssertionError as e:
            e._corpus_check = True
            raise
        if result is False:
            STATE.failed_check = True
        else:
            STATE.checked = True
        return result
    return check


def install_hooks():
    import numpy as np
    import tilemlir
    jit_module = sys.modules["tilemlir.jit"]
    from tilemlir.language.parser import translate
    from tilemlir._compiler import run_pipeline
    hook = _hooked_compile(jit_module.compile, translate, run_pipeline)
    jit_module.compile = hook
    tilemlir.compile = hook
    from tilemlir.jit.current import KernelFunction
    KernelFunction._compile = _hooked_kernel_function_compile(KernelFunction._compile,
                                                              run_pipeline)
    import tilemlir.autotuner as tuner
    tuner.compile_kernel = hook
    configs = tuner.AutoTuner._configs
    tuner.AutoTuner._configs = lambda self: configs(self)[:MAX_TUNE_CONFIGS]
    import tilemlir.language as T
    prim_func = T.prim_func

    def recording_prim_func(fn):
        made = prim_func(fn)
        key = STATE.factory_of(made)
        if key:
            STATE.created.append(key)
        return made
    T.prim_func = recording_prim_func
    from tilemlir.profiler import Profiler
    Profiler.do_bench = lambda self, func=None, *a, **k: _run_once(
        lambda: (func or self.kernel)(*self.supply_inputs()))
    Profiler.assert_allclose = _checking(Profiler.assert_allclose)
    if hasattr(sys.modules.get("tilemlir.profiler"), "do_bench"):
        sys.modules["tilemlir.profiler"].do_bench = _run_once
    np.testing.assert_allclose = _checking(np.testing.assert_allclose)
    np.allclose = _checking(np.allclose)
    try:
        import torch
    except ImportError:
        return
    cpu_torch.install()
    torch.testing.assert_close = _checking(torch.testing.assert_close)
    torch.allclose = _checking(torch.allclose)
    for name in ("tilemlir.utils.tensor", "tilemlir.testing"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue  # a tilemlir without it: the program's import fails
        module.torch_assert_close = _checking(module.torch_assert_close)


def load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def expand(fn):
    """[(label, kwargs)] for a test function: its parametrize marks expanded
    (the first MAX_PARAMS), or None when a plain pytest.mark.skip marks it."""
    axes = []
    for mark in getattr(fn, "pytestmark", []):
        if mark.name == "skip":
            return None
        if mark.name != "parametrize":
            continue
        names, values = mark.args[0], mark.args[1]
        names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
        rows = []
        for v in values:
            v = v.values if hasattr(v, "values") and hasattr(v, "marks") else v
            rows.append(dict(zip(names, (v,) if len(names) == 1 else tuple(v))))
        axes.append(rows)
    combos = []
    for combo in itertools.islice(itertools.product(*axes), MAX_PARAMS):
        kwargs = {}
        for part in combo:
            kwargs.update(part)
        combos.append(kwargs)
    return combos


def test_drivers(module):
    """(name, callable, kwargs) for every test of a test module."""
    out = []
    for name, obj in vars(module).items():
        if isinstance(obj, type) and name.startswith("Test"):
            for m, fn in vars(obj).items():
                if m.startswith("test") and callable(fn):
                    out += _driver(f"{name}.{m}", fn, lambda fn=fn, cls=obj, **kw: fn(cls(), **kw))
        elif name.startswith("test") and callable(obj) and \
                getattr(obj, "__module__", None) == module.__name__:
            out += _driver(name, obj, obj)
    return out


def _driver(name, fn, call):
    combos = expand(fn)
    if combos is None:
        return [(name, None, {})]
    return [(name + (f"[{i}]" if len(combos) > 1 else ""), call, kw)
            for i, kw in enumerate(combos)]


def run_driver(name, call, kwargs, events):
    STATE.driver = name
    STATE.ran, STATE.checked, STATE.created, STATE.compiled = [], False, [], []
    STATE.failed_check = False
    events.emit(ev="driver_start", driver=name)
    if call is None:
        events.emit(ev="driver_end", driver=name, status="skipped by its pytest.mark.skip")
        return
    status, cause, key = "ok", None, None
    try:
        call(**kwargs)
    except BaseException as e:  # noqa: B036 - SystemExit from argparse, pytest.skip
        if isinstance(e, KeyboardInterrupt):
            raise
        status, cause = "error", cause_of(e)
        if getattr(e, "_corpus_check", False) or (isinstance(e, AssertionError)
                                                  and STATE.failed_check):
            status = "mismatch"
        elif not getattr(e, "_corpus_recorded", False):
            key = STATE.attribute(e)
            if key is not None and key not in STATE.compiled:
                STATE.stage(key, "tile", e)
        where = STATE.user_line(e)
    else:
        where = None
    for k in STATE.ran:
        result = {"ok": "ok" if STATE.checked else "ran", "mismatch": "mismatch"}.get(status,
                                                                                         "error")
        events.emit(ev="cpu", file=k[0], factory=k[1], driver=name, result=result, cause=cause,
                    where=where)
    # Compiled, not run: the driver failed between compiling and running.
    for k in dict.fromkeys(STATE.compiled):
        if k is not None and k not in STATE.ran and status != "ok":
            events.emit(ev="cpu", file=k[0], factory=k[1], driver=name, result="not run",
                        cause=cause, where=where)
    events.emit(ev="driver_end", driver=name, status=status, cause=cause, where=where)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--checkout", required=True)
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--file", required=True)
    ap.add_argument("--events", required=True)
    ap.add_argument("--skip", default="")
    args = ap.parse_args()
    global STATE
    events = Events(args.events)
    STATE = State(events, Program(args.tmp))
    skip = set(filter(None, args.skip.split("\n")))
    path = pathlib.Path(args.tmp) / args.file
    os.chdir(path.parent)
    sys.path.insert(0, str(path.parent))
    sys.argv = [str(path)]
    try:
        install_hooks()
    except Exception as e:
        events.emit(ev="import", ok=False, cause="harness: " + cause_of(e))
        return
    try:
        module = load_module(path, path.stem)
    except BaseException as e:  # noqa: B036
        events.emit(ev="import", ok=False, cause=cause_of(e), where=STATE.user_line(e))
        return
    events.emit(ev="import", ok=True)
    for name, call, kwargs in drivers_of(args, module, events):
        if name not in skip:
            run_driver(name, call, kwargs, events)
    events.emit(ev="done")


def drivers_of(args, module, events):
    if not args.file.startswith("examples/"):
        return test_drivers(module)
    out = []
    for test_rel, names in example_drivers(args.checkout, args.file):
        test_path = pathlib.Path(args.tmp) / test_rel
        try:
            test_module = load_module(test_path, test_path.stem)
        except BaseException as e:  # noqa: B036
            out.append((f"{test_path.name} (import)", _raiser(e), {}))
            continue
        out += [(f"{test_path.name}::{n}", c, kw) for n, c, kw in test_drivers(test_module)
                if n.split("[")[0] in names]
    if not out:
        out.append(("__main__", lambda: runpy.run_path(str(pathlib.Path(args.tmp) / args.file),
                                                       run_name="__main__"), {}))
    return out


def _raiser(exc):
    def again():
        raise exc
    return again


if __name__ == "__main__":
    main()
