"""The HIP runtime (tilemlir.runtime.hip) without an AMD GPU: a fake
libamdhip64, written in C below and built here with the system C compiler,
records what the runtime asks of it (module images, function names, the
grid, block, LDS bytes, stream and the bytes of every kernel argument) to a
log, and fails a call when told to. The tests check the packing, the
launch and the errors against that log."""

import ctypes
import json
import shutil
import subprocess

import pytest

from tilemlir.runtime import hip, load_bundle
from test_cuda_runtime import (FakeCudaArray, FakeTorchTensor, fake_torch,  # noqa: F401
                               _no_torch_unless_asked)

FAKE_HIP = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the runtime calls of libamdhip64, with the C types of
   hip_runtime_api.h (hipError_t is an int, handles are pointers). */
static int device = 0;
static int last_error = 0;
static int module_tag = 0x1000;

static FILE *log_file(void) {
  const char *path = getenv("FAKE_HIP_LOG");
  return path ? fopen(path, "a") : NULL;
}

/* FAKE_HIP_FAIL names the call that fails (once per process is enough). */
static int fails(const char *call) {
  const char *f = getenv("FAKE_HIP_FAIL");
  return f && strcmp(f, call) == 0;
}

static int fail(int rc) { last_error = rc; return rc; }

int hipInit(unsigned flags) {
  FILE *f = log_file();
  if (f) { fprintf(f, "init %u\n", flags); fclose(f); }
  return fails("init") ? fail(100) : 0;
}
int hipGetDeviceCount(int *n) { *n = 2; return 0; }
int hipGetDevice(int *d) { *d = device; return 0; }
int hipSetDevice(int d) {
  FILE *f = log_file();
  if (f) { fprintf(f, "set_device %d\n", d); fclose(f); }
  if (d < 0 || d > 1) return fail(101);
  device = d;
  return 0;
}
int hipGetLastError(void) { int rc = last_error; last_error = 0; return rc; }
int hipDeviceSynchronize(void) { return 0; }
const char *hipGetErrorName(int rc) {
  switch (rc) {
  case 1: return "hipErrorInvalidValue";
  case 200: return "hipErrorInvalidImage";
  case 500: return "hipErrorNotFound";
  case 701: return "hipErrorLaunchOutOfResources";
  default: return "hipErrorUnknown";
  }
}
const char *hipGetErrorString(int rc) {
  switch (rc) {
  case 200: return "device kernel image is invalid";
  case 500: return "named symbol not found";
  case 701: return "too many resources requested for launch";
  default: return "unknown error";
  }
}
int hipModuleLoadData(void **module, const void *image) {
  FILE *f = log_file();
  if (f) { fprintf(f, "load %.4s\n", (const char *)image + 1); fclose(f); }
  if (fails("load") || memcmp(image, "\177ELF", 4) != 0) return fail(200);
  *module = (void *)(long)module_tag++;
  return 0;
}
int hipModuleUnload(void *module) {
  FILE *f = log_file();
  if (f) { fprintf(f, "unload %lx\n", (long)module); fclose(f); }
  return 0;
}
int hipModuleGetFunction(void **fn, void *module, const char *name) {
  FILE *f = log_file();
  if (f) { fprintf(f, "function %lx %s\n", (long)module, name); fclose(f); }
  if (strcmp(name, "missing") == 0) return fail(500);
  *fn = (void *)((long)module + 0x10);
  return 0;
}
/* FAKE_HIP_ARG_SIZES: the kernel's parameter sizes ("8,8,4"), as the
   kernel's own signature would tell the real runtime. */
int hipModuleLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                          unsigned by, unsigned bz, unsigned shared, void *stream,
                          void **params, void **extra) {
  FILE *f = log_file();
  if (!f) return fail(1);
  fprintf(f, "launch %lx grid %u %u %u block %u %u %u shared %u stream %lx extra %d device %d",
          (long)fn, gx, gy, gz, bx, by, bz, shared, (long)stream, extra != NULL, device);
  const char *sizes = getenv("FAKE_HIP_ARG_SIZES");
  for (int i = 0; sizes && *sizes; ++i) {
    int n = atoi(sizes);
    fprintf(f, " arg%d=", i);
    for (int b = 0; b < n; ++b) fprintf(f, "%02x", ((unsigned char *)params[i])[b]);
    sizes = strchr(sizes, ',');
    sizes = sizes ? sizes + 1 : NULL;
  }
  fprintf(f, "\n");
  fclose(f);
  return fails("launch") ? fail(701) : 0;
}
"""


@pytest.fixture(scope="module")
def fake_hip_library(tmp_path_factory):
    cc = shutil.which("clang-22") or shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler (clang-22 or cc) to build the fake libamdhip64")
    d = tmp_path_factory.mktemp("fakehip")
    (d / "fake_hip.c").write_text(FAKE_HIP)
    lib = d / "libamdhip64.so"
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-o", str(lib), str(d / "fake_hip.c")],
                   check=True, capture_output=True)
    return str(lib)


@pytest.fixture
def log(tmp_path, monkeypatch):
    path = tmp_path / "hip.log"
    monkeypatch.setenv("FAKE_HIP_LOG", str(path))
    monkeypatch.delenv("FAKE_HIP_FAIL", raising=False)
    monkeypatch.setenv("FAKE_HIP_ARG_SIZES", "8,8,8,8,4,4,8")
    return lambda: path.read_text().splitlines() if path.exists() else []


@pytest.fixture
def driver(fake_hip_library, log):
    drv = hip.HipDriver(fake_hip_library)
    old = hip.set_driver(drv)
    yield drv
    hip.set_driver(old)


def make_bundle(tmp_path, image=b"\x7fELF-hsaco", **overrides):
    meta = {
        "target": "hip", "arch": "gfx942", "binary": "kernel.hsaco", "entry": "k",
        "params": [
            {"name": "A", "kind": "tensor", "dtype": "float16", "shape": ["M", 64]},
            {"name": "B", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"],
             "written": True},
            {"name": "alpha", "kind": "scalar", "dtype": "float32"},
            {"name": "n", "kind": "scalar", "dtype": "int32"},
        ],
        "kernel_args": [
            {"kind": "ptr", "param": 0},
            {"kind": "ptr", "param": 1},
            {"kind": "dim", "param": 1, "dim": 0},
            {"kind": "stride", "param": 1, "dim": 0},
            {"kind": "scalar", "param": 2},
            {"kind": "scalar", "param": 3},
            {"kind": "const", "value": -3},
        ],
        "grid": ["(N + 255) // 256", "M"], "block": [256, 1, 1], "shared_bytes": 4096,
    }
    meta.update(overrides)
    (tmp_path / "bundle.json").write_text(json.dumps(meta))
    (tmp_path / meta["binary"]).write_bytes(image)
    return tmp_path


def le(value, ctype):
    return bytes(ctype(value)).hex()


def test_load_bundle_gives_a_hip_kernel(tmp_path):
    k = load_bundle(make_bundle(tmp_path))
    assert isinstance(k, hip.HipKernel)
    assert (k.arch, k.block, k.shared_bytes) == ("gfx942", (256, 1, 1), 4096)


def test_launch_packs_arguments_like_cuda(tmp_path, driver, log):
    k = load_bundle(make_bundle(tmp_path))
    a = FakeCudaArray((3, 64), "<f2", ptr=0x7f0000001000)
    b = FakeCudaArray((3, 1000), "<f4", ptr=0x7f0000100000)
    k(a, b, 0.5, 7)
    lines = log()
    assert lines[0] == "init 0"
    assert lines[1] == "load ELF-"
    assert lines[2] == "function 1000 k"
    # grid x: (1000 + 255) // 256 = 4, grid y: M = 3; the null stream without torch.
    want = ("launch 1010 grid 4 3 1 block 256 1 1 shared 4096 stream 0 extra 0 device 0"
            f" arg0={le(0x7f0000001000, ctypes.c_uint64)} arg1={le(0x7f0000100000, ctypes.c_uint64)}"
            f" arg2={le(3, ctypes.c_int64)} arg3={le(1000, ctypes.c_int64)}"
            f" arg4={le(0.5, ctypes.c_float)} arg5={le(7, ctypes.c_int32)}"
            f" arg6={le(-3, ctypes.c_int64)}")
    assert lines[3] == want
    # The same packing as the CUDA runtime's (one shared implementation).
    from tilemlir.runtime import cuda
    assert hip.HipKernel.pack_args is cuda.CudaKernel.pack_args
    # A second launch reuses the loaded module.
    k(a, b, 0.5, 7)
    assert [line.split()[0] for line in log()[4:]] == ["launch"]


def test_torch_tensors_device_and_stream(tmp_path, driver, log, fake_torch):
    k = load_bundle(make_bundle(tmp_path))
    fake_torch._C = type("C", (), {"_cuda_getCurrentRawStream": staticmethod(lambda d: 0xBEEF)})
    a = FakeTorchTensor((2, 64), "float16", ptr=0x7f0000002000, device=("cuda", 1))
    b = FakeTorchTensor((2, 300), "float32", ptr=0x7f0000200000, device=("cuda", 1))
    k(a, b, 1.0, -1)
    lines = log()
    assert "set_device 1" in lines and lines[-1] == "set_device 0"   # torch's device restored
    launch = next(line for line in lines if line.startswith("launch"))
    assert "grid 2 2 1" in launch and "stream beef" in launch and "device 1" in launch
    assert f"arg1={le(0x7f0000200000, ctypes.c_uint64)}" in launch
    assert f"arg5={le(-1, ctypes.c_int32)}" in launch
    # An explicit stream wins over torch's.
    k(a, b, 1.0, -1, stream=0x1234)
    assert "stream 1234" in [line for line in log() if line.startswith("launch")][-1]


def test_argument_errors_are_the_cuda_runtime_s(tmp_path, driver, log):
    k = load_bundle(make_bundle(tmp_path))
    a = FakeCudaArray((3, 64), "<f2")
    with pytest.raises(TypeError, match="must be a HIP tensor"):
        k(object(), FakeCudaArray((3, 10)), 1.0, 1)
    with pytest.raises(ValueError, match="must have shape"):
        k(FakeCudaArray((3, 63), "<f2"), FakeCudaArray((3, 10)), 1.0, 1)
    with pytest.raises(ValueError, match="dynamic dimension 'M'"):
        k(a, FakeCudaArray((4, 10), ptr=0x7f0000900000), 1.0, 1)
    with pytest.raises(ValueError, match="does not fit in int32"):
        k(a, FakeCudaArray((3, 10), ptr=0x7f0000900000), 1.0, 1 << 40)
    with pytest.raises(TypeError, match="takes 4 arguments"):
        k(a)
    assert not any(line.startswith("launch") for line in log())


def test_missing_library_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("TILEMLIR_HIP_LIBRARY", "/nonexistent/libamdhip64.so")
    with pytest.raises(RuntimeError, match=r"no HIP runtime \(libamdhip64.so\) found.*ROCm"):
        hip.HipDriver()


def test_load_failure_names_the_bundle_and_the_hip_error(tmp_path, driver, log):
    k = load_bundle(make_bundle(tmp_path, image=b"not an ELF"))
    with pytest.raises(RuntimeError, match=r"hipModuleLoadData failed: hipErrorInvalidImage "
                                           r"\(200\): device kernel image is invalid.*gfx942"):
        k(FakeCudaArray((1, 64), "<f2"), FakeCudaArray((1, 8), ptr=0x7f0000900000), 1.0, 1)
    assert driver.last_error() == 0     # the sticky error was cleared


def test_missing_function_unloads_the_module(tmp_path, driver, log):
    k = load_bundle(make_bundle(tmp_path, entry="missing"))
    with pytest.raises(RuntimeError, match=r"hipModuleGetFunction\('missing'\) failed: "
                                           r"hipErrorNotFound \(500\): named symbol not found"):
        k(FakeCudaArray((1, 64), "<f2"), FakeCudaArray((1, 8), ptr=0x7f0000900000), 1.0, 1)
    assert log()[-1].startswith("unload ")


def test_launch_failure_has_the_hip_error_string(tmp_path, driver, log, monkeypatch):
    k = load_bundle(make_bundle(tmp_path))
    monkeypatch.setenv("FAKE_HIP_FAIL", "launch")
    with pytest.raises(RuntimeError, match=r"hipModuleLaunchKernel failed: "
                                           r"hipErrorLaunchOutOfResources \(701\): too many "
                                           r"resources requested for launch \(kernel 'k', grid "
                                           r"\(1, 1, 1\), block \(256, 1, 1\)"):
        k(FakeCudaArray((1, 64), "<f2"), FakeCudaArray((1, 8), ptr=0x7f0000900000), 1.0, 1)


def test_bundle_errors(tmp_path):
    with pytest.raises(ValueError, match="clusters are NVIDIA-only"):
        load_bundle(make_bundle(tmp_path, cluster=[2, 1, 1]))
    with pytest.raises(ValueError, match="more than the 65536 bytes"):
        load_bundle(make_bundle(tmp_path, shared_bytes=65537))
    tma = {"kind": "tma", "param": 0, "box": [1, 64], "swizzle": 0}
    with pytest.raises(ValueError, match="unknown kind 'tma' .TMA descriptors exist only on NVIDIA"):
        load_bundle(make_bundle(tmp_path, kernel_args=[tma]))
    with pytest.raises(ValueError, match="is for target 'cuda', not 'hip'"):
        hip.HipKernel(make_bundle(tmp_path, target="cuda"), {"target": "cuda", "entry": "k",
                                                              "params": []})
