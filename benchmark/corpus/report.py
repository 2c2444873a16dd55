"""From the children's events to the table: one row per kernel factory,
summary counts and a ranking of first-failure causes."""

import collections
import re

# The stages whose failure is a kernel's "first failure" (gfx942 is a
# column of its own: AMD limits such as 64 KiB of LDS are not a cause that
# keeps the program from running where it was written to run).
STAGES = ("tile", "sm_90a", "sm_80")
# Worst first: the CPU column shows the worst outcome of a kernel's runs.
CPU_ORDER = ("compile failed", "run failed", "mismatch", "error", "not run", "timeout", "ran",
             "ok")


class Kernel:
    def __init__(self, file, name):
        self.file, self.name = file, name
        self.stage = {}       # stage -> "ok" | "FAIL"
        self.causes = {}      # stage -> (cause, where) of its first failure
        self.cpu = None
        self.cpu_cause = None
        self.drivers = set()

    def record(self, ev):
        stage = ev["stage"]
        self.drivers.add(ev.get("driver"))
        if stage in ("cpu_compile", "cpu_run"):
            if not ev["ok"]:
                self._cpu("compile failed" if stage == "cpu_compile" else "run failed",
                          ev.get("cause"), ev.get("where"))
            return
        if ev["ok"]:
            self.stage.setdefault(stage, "ok")
        else:
            self.stage[stage] = "FAIL"
            self.causes.setdefault(stage, (ev.get("cause"), ev.get("where")))

    def _cpu(self, result, cause=None, where=None):
        if self.cpu is None or CPU_ORDER.index(result) < CPU_ORDER.index(self.cpu):
            self.cpu = result
            self.cpu_cause = (cause, where) if cause else None

    def record_cpu(self, ev):
        self._cpu(ev["result"], ev.get("cause"), ev.get("where"))

    def first_failure(self):
        for stage in STAGES:
            if stage in self.causes:
                return stage, self.causes[stage]
        if self.cpu not in (None, "ok", "ran") and self.cpu_cause:
            return ("driver after compile" if self.cpu == "not run" else "cpu"), self.cpu_cause
        return None


def cause_key(cause):
    """What to rank a cause by: a missing name as that name, a compile error
    without its numbers and quoted values."""
    if not cause:
        return "?"
    m = re.search(r"(?:module '([\w.]+)'|<module '([\w.]+)' from '[^']*'>) has no attribute "
                  r"'(\w+)'", cause)
    if m:
        mod = m.group(1) or m.group(2)
        mod = {"tilemlir.language": "T"}.get(mod, mod)
        return f"missing {mod}.{m.group(3)}"
    m = re.match(r"ImportError: cannot import name '(\w+)' from '([\w.]+)'", cause)
    if m:
        return f"missing {m.group(2)}.{m.group(1)}"
    m = re.match(r"ModuleNotFoundError: No module named '([\w.]+)'", cause)
    if m:
        name = m.group(1)
        return f"missing module {name}" if name.startswith("tilemlir") else \
            f"third-party module {name.split('.')[0]} not installed"
    text = re.sub(r" at 0x[0-9a-f]+", "", cause)
    # Quoted names stay (they say what is missing); quoted values go.
    text = re.sub(r"'([^']*)'", lambda q: q.group(0) if re.fullmatch(r"[\w.]{1,40}", q.group(1))
                  else "'…'", text)
    text = re.sub(r"\d+", "N", text)
    return text[:140]


def aggregate(files, results):
    """files: {rel: factories}; results: {rel: [events]} -> (file rows, kernels)."""
    file_rows, kernels = {}, []
    for rel, factories in files.items():
        events = results.get(rel, [])
        imp = next((e for e in events if e["ev"] == "import"), None)
        drivers = [e for e in events if e["ev"] == "driver_end"]
        file_rows[rel] = {"imports": bool(imp and imp["ok"]),
                          "cause": None if imp is None or imp["ok"] else (imp.get("cause"),
                                                                          imp.get("where")),
                          "drivers": drivers}
        if imp is None:
            file_rows[rel]["cause"] = (next((e["cause"] for e in events if e["ev"] == "crash"),
                                            "the child process died"), None)
        by_name = {n: Kernel(rel, n) for n, _, _ in factories}
        for e in events:
            k = by_name.get(e.get("factory")) if e.get("file") == rel else None
            if k is None:
                continue
            if e["ev"] == "stage":
                k.record(e)
            elif e["ev"] == "cpu":
                k.record_cpu(e)
        for e in events:
            if e["ev"] == "timeout":
                for k in by_name.values():
                    if e["driver"] in k.drivers and k.cpu is None:
                        k._cpu("timeout", f"{e['driver']} ran past {e['limit']} s")
        kernels += by_name.values()
    return file_rows, kernels


def row_cause(kernel, file_row):
    """(stage, cause, where) of the kernel's first failure, or None."""
    if not file_row["imports"]:
        cause, where = file_row["cause"]
        return "import", cause, where
    first = kernel.first_failure()
    if first:
        return first[0], first[1][0], first[1][1]
    if "tile" not in kernel.stage:
        bad = [d for d in file_row["drivers"] if d["status"] != "ok"]
        if bad:
            return f"driver {bad[0]['driver']}", bad[0].get("cause") or bad[0]["status"], \
                bad[0].get("where")
        return "driver", "not compiled by any driver", None
    return None


def summary(file_rows, kernels):
    n_import = sum(r["imports"] for r in file_rows.values())
    counts = collections.OrderedDict()
    counts["files"] = len(file_rows)
    counts["files importing"] = n_import
    counts["kernels"] = len(kernels)
    for stage, label in (("tile", "tile IR"), ("sm_90a", "sm_90a PTX"), ("sm_80", "sm_80 PTX"),
                         ("gfx942", "gfx942 hsaco")):
        counts[f"kernels: {label}"] = sum(k.stage.get(stage) == "ok" for k in kernels)
    counts["kernels: gfx942 hsaco of those with sm_80 PTX"] = sum(
        k.stage.get("gfx942") == "ok" and k.stage.get("sm_80") == "ok" for k in kernels)
    counts["kernels: CPU ran"] = sum(k.cpu in ("ok", "ran", "mismatch", "error") for k in kernels)
    counts["kernels: CPU matches the program's reference"] = sum(k.cpu == "ok" for k in kernels)
    counts["kernels: CPU mismatch"] = sum(k.cpu == "mismatch" for k in kernels)
    return counts


def ranking(file_rows, kernels):
    """[(cause key, files, kernels)] of first failures, most kernels first;
    files without kernels count by their import failure."""
    files, kerns = collections.defaultdict(set), collections.Counter()
    for k in kernels:
        rc = row_cause(k, file_rows[k.file])
        if rc:
            key = cause_key(rc[1])
            files[key].add(k.file)
            kerns[key] += 1
    for rel, row in file_rows.items():
        if not row["imports"]:
            files[cause_key(row["cause"][0])].add(rel)
    return sorted(((key, len(f), kerns[key]) for key, f in files.items()),
                  key=lambda t: (-t[2], -t[1], t[0]))


def gfx942_gaps(kernels):
    """[(cause key, kernels)] of the kernels that compile for sm_80 and not
    for gfx942, most kernels first."""
    gaps = collections.Counter(
        cause_key(k.causes["gfx942"][0]) for k in kernels
        if k.stage.get("sm_80") == "ok" and k.stage.get("gfx942") == "FAIL")
    return sorted(gaps.items(), key=lambda t: (-t[1], t[0]))


def _cell(s):
    return (s or "").replace("|", "\\|").replace("\n", " ")


def table_markdown(file_rows, kernels):
    lines = ["| file | kernel | imports | tile IR | sm_90a | sm_80 | gfx942 | CPU | first failure |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    with_kernels = {k.file for k in kernels}
    for k in kernels:
        row = file_rows[k.file]
        rc = row_cause(k, row)
        cause = "" if rc is None else f"{rc[0]}: {rc[1]}" + (f" ({rc[2]})" if rc[2] else "")
        lines.append("| " + " | ".join(_cell(c) for c in (
            k.file, k.name, "yes" if row["imports"] else "no", k.stage.get("tile", "-"),
            k.stage.get("sm_90a", "-"), k.stage.get("sm_80", "-"), k.stage.get("gfx942", "-"),
            k.cpu or "-", cause)) + " |")
    for rel, row in file_rows.items():
        if rel not in with_kernels:
            cause = "" if row["imports"] else "import: " + (row["cause"][0] or "")
            lines.append(f"| {_cell(rel)} | (no kernel factory) | "
                         f"{'yes' if row['imports'] else 'no'} | | | | | | {_cell(cause)} |")
    return "\n".join(lines)
