/* A stand-in for libcuda.so.1 with the calls of the runtime's launch path:
   every call succeeds at once and launches record what the driver would
   read (grid, block, stream and the first parameters). Built by the tests
   (test_cuda_runtime.py) and by benchmark/host_call_overhead.py, where the
   runtime's ctypes calls are then real foreign calls. */
#include <stdint.h>
#include <string.h>

typedef int CUresult;

static void *current = (void *)0x1000;
long fake_launches;
unsigned fake_grid[3], fake_block[3], fake_shared;
void *fake_stream;
uint64_t fake_params[8];    /* the first 8 bytes of the first 8 parameters */
int fake_num_params;        /* how many of them to read (set by the caller) */

CUresult cuInit(unsigned flags) { return 0; }
CUresult cuDriverGetVersion(int *v) { *v = 13000; return 0; }
CUresult cuGetErrorName(int rc, const char **s) { *s = "CUDA_ERROR_FAKE"; return 0; }
CUresult cuGetErrorString(int rc, const char **s) { *s = "a fake error"; return 0; }
CUresult cuDeviceGet(int *dev, int ordinal) { *dev = ordinal; return 0; }
CUresult cuDeviceGetAttribute(int *v, int attr, int dev) { *v = 9; return 0; }
CUresult cuDevicePrimaryCtxRetain(void **ctx, int dev) { *ctx = (void *)0x1000; return 0; }
CUresult cuCtxGetCurrent(void **ctx) { *ctx = current; return 0; }
CUresult cuCtxSetCurrent(void *ctx) { current = ctx; return 0; }
CUresult cuCtxGetDevice(int *dev) { *dev = 0; return 0; }
CUresult cuPointerGetAttribute(void *data, int attr, uint64_t ptr) { *(int *)data = 0; return 0; }
CUresult cuModuleLoadData(void **mod, const void *image) { *mod = (void *)0x2000; return 0; }
CUresult cuModuleUnload(void *mod) { return 0; }
CUresult cuModuleGetFunction(void **fn, void *mod, const char *name) {
  *fn = (void *)0x3000;
  return 0;
}
CUresult cuFuncGetAttribute(int *v, int attr, void *fn) { *v = 0; return 0; }
CUresult cuFuncSetAttribute(void *fn, int attr, int v) { return 0; }

CUresult cuLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned shared, void *stream, void **params,
                        void **extra) {
  fake_launches++;
  fake_grid[0] = gx, fake_grid[1] = gy, fake_grid[2] = gz;
  fake_block[0] = bx, fake_block[1] = by, fake_block[2] = bz;
  fake_shared = shared;
  fake_stream = stream;
  for (int i = 0; i < fake_num_params && i < 8; ++i)
    memcpy(&fake_params[i], params[i], 8);
  return 0;
}
