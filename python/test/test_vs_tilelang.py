"""The pieces of benchmark/vs_tilelang.py that need no GPU and no TileLang:
loading one program for both compilers (its own folder's modules kept apart
per side), the definitions-only load, the case set's keys, selection and the
report's ratio and geometric mean."""

import sys
import textwrap
import types

import pytest

from conftest import REPO

sys.path.insert(0, str(REPO / "benchmark"))

import vs_programs  # noqa: E402
import vs_tilelang  # noqa: E402


@pytest.fixture
def checkout(tmp_path):
    """A stand-in checkout: one example program importing tilelang and a
    helper module of its folder that does too."""
    folder = tmp_path / "examples" / "demo"
    folder.mkdir(parents=True)
    (folder / "vs_demo_helper.py").write_text(textwrap.dedent("""\
        import tilelang.language as T
        WHICH = T.__name__
    """))
    (folder / "vs_demo_prog.py").write_text(textwrap.dedent("""\
        import tilelang
        from vs_demo_helper import WHICH
        SIZE = 128
        print_me = []
        print_me.append("ran")

        def late():
            import vs_demo_helper
            return vs_demo_helper.WHICH
    """))
    return tmp_path


@pytest.fixture
def fake_tilelang(monkeypatch):
    """A `tilelang` package standing for TileLang's (not installed here)."""
    pkg = types.ModuleType("tilelang")
    pkg.__path__ = []
    lang = types.ModuleType("tilelang.language")
    pkg.language = lang
    monkeypatch.setitem(sys.modules, "tilelang", pkg)
    monkeypatch.setitem(sys.modules, "tilelang.language", lang)


def demo_case(**extra):
    return vs_programs.Case("demo", "examples/demo/vs_demo_prog.py", "k", "c",
                            build=None, inputs=None, reference=None, work=1, **extra)


def test_each_side_loads_the_program_and_its_folders_modules_for_its_compiler(
        checkout, fake_tilelang):
    ours = vs_tilelang.Side("TileMLIR", checkout.resolve(), rewrite=True)
    theirs = vs_tilelang.Side("TileLang", checkout.resolve(), rewrite=False)
    with ours.active():
        mine = ours.load(demo_case())
    with theirs.active():
        other = theirs.load(demo_case())
    assert mine.tilelang.__name__ == "tilemlir" and other.tilelang.__name__ == "tilelang"
    assert mine.WHICH == "tilemlir.language" and other.WHICH == "tilelang.language"
    # A module imported as the program runs comes from the active side.
    with theirs.active():
        assert other.late() == "tilelang.language"
    with ours.active():
        assert mine.late() == "tilemlir.language"
    assert "vs_demo_helper" not in sys.modules
    # Loaded once per side.
    with ours.active():
        assert ours.load(demo_case()) is mine


def test_a_program_that_fails_to_load_fails_again_with_the_same_error(checkout):
    (checkout / "examples" / "demo" / "vs_demo_prog.py").write_text("import no_such_module_x\n")
    side = vs_tilelang.Side("TileMLIR", checkout.resolve(), rewrite=True)
    with side.active():
        for _ in range(2):
            with pytest.raises(ModuleNotFoundError, match="no_such_module_x"):
                side.load(demo_case())


def test_definitions_only_runs_imports_definitions_and_constants(checkout):
    side = vs_tilelang.Side("TileMLIR", checkout.resolve(), rewrite=True)
    with side.active():
        module = side.load(demo_case(defs_only=True,
                                     setup=lambda m: m.__dict__.update(EXTRA=1)))
    assert module.SIZE == 128 and callable(module.late) and module.EXTRA == 1
    assert module.print_me == []  # the statement that appends to it did not run


def test_edits_that_match_nothing_are_an_error(checkout):
    side = vs_tilelang.Side("TileMLIR", checkout.resolve(), rewrite=True)
    with side.active(), pytest.raises(ValueError, match="no line 'SIZE = 64'"):
        side.load(demo_case(edits=(("SIZE = 64", "SIZE = 32"),)))


def test_every_case_has_its_own_key_and_each_family_a_quick_case():
    cases = vs_programs.all_cases()
    keys = [f"{c.program} [{c.config}]" for c in cases]
    assert len(keys) == len(set(keys))  # --fill's record is keyed by them
    assert {c.family for c in cases} == {c.family for c in cases if c.quick}
    assert all(c.unit in ("TFLOP/s", "GB/s") and c.work > 0 for c in cases)


def test_only_and_quick_select_cases():
    cases = vs_programs.all_cases()
    picked = vs_tilelang.select(cases, ["layernorm", "elementwise"], quick=False)
    assert picked and all("layernorm" in c.file or "elementwise" in c.file for c in picked)
    assert vs_tilelang.select(cases, [], quick=True) == [c for c in cases if c.quick]


def test_ratio_counts_rows_where_both_ran_and_matched():
    ok = {"status": "ok", "ms": 2.0}
    rows = [{"TileMLIR": ok, "TileLang": {"status": "ok", "ms": 4.0}},
            {"TileMLIR": ok, "TileLang": {"status": "ok", "ms": 1.0}},
            {"TileMLIR": {"status": "MISMATCH: x", "ms": 1.0}, "TileLang": ok},
            {"TileMLIR": {"status": "not compiled: y"}, "TileLang": ok}]
    ratios = [vs_tilelang.ratio(r) for r in rows]
    assert ratios == [2.0, 0.5, None, None]
    assert vs_tilelang.geomean(ratios) == pytest.approx(1.0)
    assert vs_tilelang.geomean([None]) is None


def test_failures_name_the_programs_line_relative_to_the_checkout(checkout):
    path = checkout.resolve() / "examples" / "demo" / "bad.py"
    path.write_text("def f():\n    raise ValueError(f'{__file__} broke')\n")
    namespace = {"__file__": str(path)}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    with pytest.raises(ValueError) as info:
        namespace["f"]()
    text = vs_tilelang.where_failed(info.value, checkout.resolve())
    assert text == "ValueError: examples/demo/bad.py broke (examples/demo/bad.py:2)"


def test_isolated_children_get_the_options_but_not_the_outputs():
    argv = ["ck", "--isolate", "--json", "a.json", "--quick", "--markdown=t.md", "--only", "x"]
    assert vs_tilelang._child_argv(argv) == ["ck", "--quick", "--only", "x"]


def test_alternating_rounds_time_each_callable_in_its_context_and_keep_failures(monkeypatch):
    entered = []

    class Context:
        def __init__(self, name):
            self.name = name

        def __enter__(self):
            entered.append(self.name)

        def __exit__(self, *exc):
            return False

    def broken():
        raise RuntimeError("launch failed")

    monkeypatch.setattr(vs_tilelang, "bench_ms", lambda fn, torch: fn())
    times = vs_tilelang.alternating_ms(
        {"a": (lambda: 1.0, lambda: Context("a")), "b": (broken, lambda: Context("b")),
         "c": (lambda: 3.0, lambda: Context("c"))}, torch=None, rounds=3)
    assert times["a"] == 1.0 and times["c"] == 3.0
    assert isinstance(times["b"], RuntimeError)
    # Round 1 in order, round 2 reversed (b dropped after it failed), round 3.
    assert entered == ["a", "b", "c", "c", "a", "a", "c"]
