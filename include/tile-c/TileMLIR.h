/*===- TileMLIR.h - C API of the TileMLIR compiler ----------------*- C -*-===*\
|*                                                                            *|
|* A small C interface over the TileMLIR libraries for the Python front end  *|
|* (ctypes). Strings returned by the library are freed with                  *|
|* tileFreeString; error strings hold diagnostics as                         *|
|* "file:line:col: error: message" lines.                                    *|
\*===----------------------------------------------------------------------===*/

#ifndef TILE_C_TILEMLIR_H
#define TILE_C_TILEMLIR_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TileCpuModule TileCpuModule;

enum TileArgKind { TILE_ARG_MEMREF = 0, TILE_ARG_INT = 1, TILE_ARG_FLOAT = 2 };

/* One call argument: a strided buffer (sizes and strides in elements) or a
 * scalar. */
typedef struct {
  int32_t kind;
  int32_t rank;
  void *data;
  const int64_t *sizes;
  const int64_t *strides;
  int64_t int_value;
  double float_value;
} TileArg;

/* Version string of the compiler (part of cache keys). */
const char *tileVersion(void);

/* Parses `ir` and runs the textual pass pipeline `pipeline` on it (an empty
 * pipeline only parses and verifies). Returns the resulting IR, or null with
 * the diagnostics in *error. */
char *tileRunPipeline(const char *ir, const char *pipeline, char **error);

/* Compiles `ir` (tile IR) for the host CPU. Returns null with the
 * diagnostics in *error on failure. */
TileCpuModule *tileCpuCompile(const char *ir, char **error);

/* Calls function `name` of a compiled module. Returns 0 on success. */
int tileCpuInvoke(TileCpuModule *module, const char *name, int32_t num_args,
                  const TileArg *args, char **error);

/* Writes the compiled module as a shared library at `path`; each function
 * `f` is exported as `_mlir_f(void **args)` (pointers to the arguments,
 * memrefs expanded to allocated ptr, aligned ptr, offset, sizes, strides).
 * Returns 0 on success. */
int tileCpuWriteSharedLibrary(TileCpuModule *module, const char *path,
                              char **error);

/* The optimized LLVM IR of a compiled module (owned by the module). */
const char *tileCpuGetLLVMIR(TileCpuModule *module);

void tileCpuDestroy(TileCpuModule *module);

/* Compiles `ir` (tile IR) for a GPU: NVIDIA (`chip` sm_80 or sm_90a, PTX
 * `features` such as "+ptx80") or AMD (`chip` gfx942; `features` unused),
 * with LLVM `opt_level` and `format` "bin" (cubin, hsaco) or "isa" (PTX,
 * AMDGCN assembly). On success returns 0, sets *binary / *binary_size to the
 * device code (free with tileFreeString) and *metadata to a JSON object:
 * {"kernels": [{"func": host function, "kernel": symbol in the binary,
 * "args": [index of the host function argument passed as each kernel
 * argument], "block": [x, y, z], "shared_bytes": n, "cluster": [x, y, z] or
 * null}], "binaries": [{"module": gpu.module name, "offset": n, "size": n,
 * "ptx_offset": n, "ptx_size": n}]} (each binary's bytes in *binary and,
 * with `ptx`, its assembly in *ptx).
 * When `ptx` is not null, *ptx / *ptx_size are also set to the assembly
 * (free with tileFreeString): with format "bin" or "fatbin", the text that
 * was assembled, from the same run of the pipeline (what the format "isa"
 * gives; the binary is the same bytes as without `ptx`). */
int tileGpuCompile(const char *ir, const char *chip, const char *features,
                   int32_t opt_level, const char *format, char **binary,
                   int64_t *binary_size, char **ptx, int64_t *ptx_size,
                   char **metadata, char **error);

/* The stages of the pipelines, in the order the passes reach them, comma
 * separated: "tile,verified,lower-ops,lower-kernel,llvm" (owned by the
 * library). */
const char *tilePipelineStages(void);

/* The textual pass pipeline ("builtin.module(...)", what tileRunPipeline
 * takes) that lowers tile IR for `target` ("cpu", "sm_80", "sm_90a" or
 * "gfx942") up to
 * the end of `stage` (one of tilePipelineStages; "llvm" is the whole
 * pipeline, for GPU chips with the PTX or AMDGCN text in the gpu.binary): the passes
 * the compiler itself runs, printed from the same pass manager. Returns null
 * with the message in *error for an unknown target or stage. */
char *tilePipeline(const char *target, const char *stage, char **error);

void tileFreeString(char *str);

/* Makes `path` the CUDA toolkit of later compiles: a directory with
 * bin/ptxas (for cubins) and nvvm/libdevice/libdevice.10.bc (math
 * functions). Null or "" restores the default ($CUDA_HOME and the like, else
 * /usr/local/cuda). */
void tileSetCudaToolkit(const char *path);

#ifdef __cplusplus
}
#endif

#endif /* TILE_C_TILEMLIR_H */
