#!/usr/bin/env python3
"""TileLang's own programs, run after an import-only change (issue 14).

    python benchmark/tilelang_corpus.py /path/to/tilelang-checkout [--jobs 2]

Selects the corpus from a checkout of TileLang's repository (the example
folders of corpus/select.py and testing/python/language's
test_tilelang_language_*.py, less files only about sm100 / tcgen05, fp4, AMD
or Metal), copies its programs into a temporary folder with their import
lines changed (`tilelang` -> `tilemlir`, `tvm` -> `tilemlir.tvm`; nothing
else), and drives each program in a subprocess of its own: an example
through the tests beside it that call it (else its __main__), a language
test through its test functions. Every kernel the program compiles is
translated to tile IR, compiled to sm_90a and sm_80 (cubin, through ptxas),
to gfx942 (hsaco; no AMD GPU runs it here) and to the CPU, and the CPU
kernel is what the program gets back: it runs on torch tensors of an
emulated "cuda" device that is the CPU, so the
program's own reference checks it. Prints one row a kernel factory, the
summary counts and the first-failure causes ranked; downloads nothing.

The interpreter that runs the programs needs torch (a CPU build is enough)
and einops besides tilemlir's own requirements: --python picks it."""

import argparse
import concurrent.futures
import datetime
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from corpus.report import (aggregate, gfx942_gaps, ranking, summary,  # noqa: E402
                           table_markdown)
from corpus.rewrite import rewrite_imports  # noqa: E402
from corpus.selection import EXAMPLE_DIRS, LANGUAGE_TESTS, find_factories, select_corpus  # noqa: E402


def prepare_tree(checkout, tmp):
    """The corpus folders with every Python file's imports rewritten."""
    for d in [f"examples/{d}" for d in EXAMPLE_DIRS] + [LANGUAGE_TESTS]:
        for src in (checkout / d).rglob("*.py"):
            dst = tmp / src.relative_to(checkout)
            dst.parent.mkdir(parents=True, exist_ok=True)
            text = src.read_text(errors="replace")
            try:
                text, _ = rewrite_imports(text)
            except SyntaxError:
                pass
            dst.write_text(text)


def _read_events(path):
    if not path.exists():
        return []
    out = []
    for line in path.read_text().splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            pass  # a line cut by a kill
    return out


def run_file(rel, opts):
    """Drives one program; returns its events. A driver that runs past
    --driver-timeout is killed and recorded, and the child restarts after
    it, until --file-timeout."""
    events_path = opts.tmp / "events" / (rel.replace("/", "__") + ".jsonl")
    events_path.parent.mkdir(parents=True, exist_ok=True)
    skip, start = [], time.monotonic()
    while True:
        before = len(_read_events(events_path))
        cmd = [opts.python, str(HERE / "corpus" / "child.py"), "--checkout", str(opts.checkout),
               "--tmp", str(opts.tmp / "tree"), "--file", rel, "--events", str(events_path),
               "--skip", "\n".join(skip)]
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                env=opts.env, start_new_session=True)
        timed_out = _watch(proc, events_path, before, opts, start)
        events = _read_events(events_path)
        mine = events[before:]
        if timed_out is None:
            if not any(e["ev"] == "done" for e in mine) and proc.returncode:
                err = proc.stderr.read().decode(errors="replace").strip().splitlines()
                _append(events_path, ev="crash", rc=proc.returncode,
                        cause=(err[-1] if err else f"exit status {proc.returncode}")[:300])
            return _read_events(events_path)
        _append(events_path, ev="timeout", driver=timed_out[0], limit=timed_out[1])
        if timed_out[0] is None or time.monotonic() - start > opts.file_timeout:
            return _read_events(events_path)
        skip += [e["driver"] for e in mine if e["ev"] == "driver_start"]


def _watch(proc, events_path, before, opts, start):
    """Waits for the child; (driver, limit) if one of its drivers (or the
    whole file) ran too long and the child was killed, else None."""
    current, since = None, time.monotonic()
    while proc.poll() is None:
        time.sleep(0.5)
        starts = [e for e in _read_events(events_path)[before:] if e["ev"] == "driver_start"]
        if starts and starts[-1]["driver"] != current:
            current, since = starts[-1]["driver"], time.monotonic()
        now = time.monotonic()
        over_driver = current is not None and now - since > opts.driver_timeout
        over_file = now - start > opts.file_timeout
        if over_driver or over_file:
            os.killpg(proc.pid, 9)
            proc.wait()
            return current, opts.driver_timeout if over_driver else opts.file_timeout
    return None


def _append(path, **ev):
    with open(path, "a") as f:
        f.write(json.dumps(ev) + "\n")


def child_env(opts):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(opts.tilemlir), env.get("PYTHONPATH", "")])
    if "TILEMLIR_LIBRARY" not in env and (REPO / "build/lib/libTileMLIRCAPI.so").exists():
        env["TILEMLIR_LIBRARY"] = str(REPO / "build/lib/libTileMLIRCAPI.so")
    env["TILEMLIR_CACHE_DIR"] = str(opts.tmp / "cache")
    env["OMP_NUM_THREADS"] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("checkout", type=pathlib.Path, help="a checkout of TileLang's repository")
    ap.add_argument("--jobs", type=int, default=2, help="programs driven at once")
    ap.add_argument("--python", default=sys.executable,
                    help="the interpreter that runs the programs (with torch)")
    ap.add_argument("--tilemlir", type=pathlib.Path, default=REPO / "python",
                    help="the folder holding the tilemlir package to measure")
    ap.add_argument("--driver-timeout", type=float, default=120.0)
    ap.add_argument("--file-timeout", type=float, default=420.0)
    ap.add_argument("--only", default="",
                    help="only files whose path contains this (or one of these, comma-separated)")
    ap.add_argument("--table", type=pathlib.Path, help="write the markdown table here")
    ap.add_argument("--json", type=pathlib.Path, help="write every event here")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    ap.add_argument("--from-json", type=pathlib.Path,
                    help="tabulate the events a run saved with --json instead of running")
    return ap.parse_args(argv)


def main(argv=None):
    opts = parse_args(argv)
    opts.checkout = opts.checkout.resolve()
    only = opts.only.split(",")
    files = [r for r in select_corpus(opts.checkout) if any(o in r for o in only)]
    factories = {r: find_factories((opts.checkout / r).read_text(errors="replace"))
                 for r in files}
    if opts.from_json:
        saved = json.loads(opts.from_json.read_text())
        report(opts, files, factories, {r: saved.get(r, []) for r in files})
        return
    opts.tmp = pathlib.Path(tempfile.mkdtemp(prefix="tilelang-corpus-"))
    try:
        prepare_tree(opts.checkout, opts.tmp / "tree")
        opts.env = child_env(opts)
        results = {}
        with concurrent.futures.ThreadPoolExecutor(opts.jobs) as pool:
            futures = {pool.submit(run_file, r, opts): r for r in files}
            for n, fut in enumerate(concurrent.futures.as_completed(futures), 1):
                results[futures[fut]] = fut.result()
                print(f"[{n}/{len(files)}] {futures[fut]}", file=sys.stderr, flush=True)
    finally:
        if not opts.keep:
            shutil.rmtree(opts.tmp, ignore_errors=True)
    report(opts, files, factories, results)


def report(opts, files, factories, results):
    file_rows, kernels = aggregate({r: factories[r] for r in files}, results)
    table = table_markdown(file_rows, kernels)
    commit = _commit(opts.checkout)
    head = (f"TileLang corpus at {commit}, {datetime.date.today().isoformat()}: "
            f"`{' '.join(['python', 'benchmark/tilelang_corpus.py'] + sys.argv[1:])}`")
    print(head + "\n\n" + table + "\n")
    lines = ["| count | |", "| --- | --- |"]
    lines += [f"| {k} | {v} |" for k, v in summary(file_rows, kernels).items()]
    print("\n".join(lines) + "\n")
    print("| first failure | files | kernels |\n| --- | --- | --- |")
    for key, nf, nk in ranking(file_rows, kernels):
        print(f"| {key.replace('|', '/')} | {nf} | {nk} |")
    print("\n| gfx942 failure of a kernel that compiles for sm_80 | kernels |\n| --- | --- |")
    for key, nk in gfx942_gaps(kernels):
        print(f"| {key.replace('|', '/')} | {nk} |")
    if opts.table:
        opts.table.write_text(head + "\n\n" + table + "\n")
    if opts.json:
        opts.json.write_text(json.dumps(results, indent=0))


def _commit(checkout):
    try:
        return subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short=8", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return checkout.name


if __name__ == "__main__":
    main()
