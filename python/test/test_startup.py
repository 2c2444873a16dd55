"""`import tilemlir` stays light (benchmark/RESULTS.md has its time), and
ml_dtypes is optional: a GPU machine with only torch and numpy runs it."""

import subprocess
import sys
import textwrap


def run(code):
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_import_loads_neither_ml_dtypes_nor_the_compiler():
    out = run("""
        import sys, tilemlir
        print(sorted(m for m in ("ml_dtypes", "torch", "tilemlir._cuda_toolkit") if m in sys.modules))
        print(getattr(sys.modules.get("tilemlir._compiler"), "_lib", None))
    """)
    assert out.split("\n")[:2] == ["[]", "None"], out


def test_without_ml_dtypes_numpy_types_resolve_and_bf16_arrays_say_what_is_missing():
    out = run("""
        import sys
        sys.modules["ml_dtypes"] = None   # import ml_dtypes raises ImportError
        import numpy as np
        import tilemlir.language as T
        from tilemlir.language.dtypes import as_dtype
        print(as_dtype(np.float32), as_dtype(np.float16), as_dtype(np.int8), as_dtype(np.bool_))
        print(as_dtype("bfloat16"), T.float16.numpy)
        try:
            T.bfloat16.numpy
        except TypeError as e:
            print("error:", e)
    """)
    lines = out.splitlines()
    assert lines[0] == "float32 float16 int8 bool", out
    assert lines[1] == "bfloat16 float16", out
    assert lines[2].startswith("error: numpy arrays of bfloat16 need the ml_dtypes package"), out


def test_ml_dtypes_types_resolve_when_installed():
    out = run("""
        import ml_dtypes, numpy as np
        from tilemlir.language.dtypes import as_dtype
        print(as_dtype(ml_dtypes.bfloat16), as_dtype(ml_dtypes.float8_e4m3fn),
              as_dtype(ml_dtypes.float8_e5m2))
    """)
    assert out.strip() == "bfloat16 float8_e4m3 float8_e5m2", out


def compile_with_timing(tmp_path, timing):
    """stderr of a CUDA compile (to PTX, no ptxas) in a fresh interpreter,
    with TILEMLIR_TIMING set or not (the program in a file: the front end
    reads the kernel's source)."""
    import os
    env = {k: v for k, v in os.environ.items() if k != "TILEMLIR_TIMING"}
    if timing:
        env["TILEMLIR_TIMING"] = "1"
    code = textwrap.dedent("""
        import tilemlir.language as T
        from tilemlir import _compiler
        from tilemlir.language.parser import translate_with_launch

        @T.prim_func
        def scale(A: T.Tensor((256,), "float32"), B: T.Tensor((256,), "float32")):
            with T.Kernel(4, threads=64) as bx:
                a = T.alloc_fragment((64,), "float32")
                T.copy(A[bx * 64], a)
                for i in T.Parallel(64):
                    a[i] = a[i] * 2.0
                T.copy(a, B[bx * 64])

        ptx, _ = _compiler.compile_cuda(translate_with_launch(scale)[0], "sm_80", "isa")
        assert b".entry" in ptx
    """)
    program = tmp_path / "timed_compile.py"
    program.write_text(code)
    out = subprocess.run([sys.executable, str(program)], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    return out.stderr


def test_tilemlir_timing_prints_where_a_compile_goes(tmp_path):
    # benchmark/startup.py reads this report; the verifier runs once after
    # each of the two pipelines, not after every pass.
    report = compile_with_timing(tmp_path, True)
    names = [line.split("%)")[-1].strip() for line in report.splitlines() if "%)" in line]
    for step in ("Context", "Parser", "TileLowerOps", "TileGpuModuleToBinary", "Verifier",
                 "Total"):
        assert step in names, report
    assert compile_with_timing(tmp_path, False) == ""
