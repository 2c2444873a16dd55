//===- Passes.td - Passes of the tile dialect --------------*- tablegen -*-===//

#ifndef TILE_DIALECT_TILE_TRANSFORMS_PASSES_TD
#define TILE_DIALECT_TILE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

// The `target` option of every pass that asks the target: one default for
// all (getDefaultTargetName, include/tile/Target/TargetInfo.h).
class Tile_TargetOption<string what>
    : Option<"target", "target", "std::string",
             /*default=*/"::mlir::tile::getDefaultTargetName().str()",
             what # ": cpu, sm_80, sm_90a or gfx942 (default sm_90a)">;

def TileVerifyTarget : Pass<"tile-verify-target", "::mlir::ModuleOp"> {
  let summary = "Check that every tile op is legal on the chosen target";
  let description = [{
    Checks each `tile.kernel` and the tile ops in it against a target
    (`cpu`, `sm_80`, `sm_90a`, `gfx942`): threads per block (at most the
    target's limit, a multiple of its warp size on GPUs), grid extents,
    cluster support and size, shared memory per block, each fragment's
    share of a thread's 32-bit registers (before layouts replicate it) and
    the local buffers each thread holds on GPUs, element types of
    `tile.gemm` / `tile.gemm_sp` and the copy instruction hints. It also
    checks the memref types the lowerings meet anywhere in the module:
    strided layouts only (LLVM's memref descriptor), global memrefs (no
    memory space) in function signatures and host code, global or tile
    buffers in kernels. Each violation is reported at the op (or function
    argument) with what the target allows; the pass fails if any is found.
    Every pipeline runs it first, so that nothing reaches a lowering that
    would fail without a location or grow with an absurd size.
  }];
  let options = [
    Tile_TargetOption<"Target to check against">
  ];
  let dependentDialects = [];
}

def TileGuardMemoryAccess : Pass<"tile-guard-memory-access", "::mlir::ModuleOp"> {
  let summary = "Guard the memory accesses of kernels whose index may leave "
                "their buffer";
  let description = [{
    Every `memref.load`, `memref.store` and `memref.atomic_rmw` in a
    `tile.kernel` on a global tensor or an on-chip (shared, fragment,
    local) buffer, and every scalar tile atomic into shared memory, whose
    index is not proven to lie inside its buffer runs only where it does:
    a load elsewhere reads zero, or the value that
    `tile.annotate_safe_value` gives for its tensor; a store or atomic is
    dropped. TileLang's LegalizeSafeMemoryAccess. A `tile.copy` or tile
    atomic whose region of an on-chip buffer is not proven inside runs
    only when the whole region is.

    The proof is upstream's integer range analysis (`IntegerRangeAnalysis`)
    over the ranges that the ops give their indices: block indices in
    `[0, grid extent)`, `tile.parallel` indices in `[0, extent)`, loop
    induction variables within their bounds. An index proven in
    `[0, size)` for a static dimension needs no check, so kernels whose
    tiles divide their static shapes keep their code; dynamic dimensions
    are always checked. Only the dimensions that are not proven are
    compared (unsigned, so negative indices are out).

    An element access to a static on-chip buffer whose index certainly
    leaves it is an error at the access instead: an index that is a
    constant, an induction variable of a loop with constant bounds (a
    `tile.parallel`, `scf.for`...) that always reaches the access (only
    such loops between them, no condition), or sums, differences and
    products by constants of such indices over distinct loops. TileLang's
    attention-sink examples write a fragment of `heads` elements for each
    of a block's 64 rows; such a program is reported rather than run with
    some of its writes dropped.

    `tile.annotate_safe_value` also becomes the pad value of the copies
    from its tensor that give none, and is then erased. Tile ops check the
    edges of their regions in global tensors themselves when lowered. Runs
    in every pipeline before the lowering.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def TileInsertBarriers : Pass<"tile-insert-barriers", "::mlir::ModuleOp"> {
  let summary = "Put block barriers between thread-level accesses of shared "
                "memory that other threads' accesses conflict with";
  let description = [{
    Thread-level code in a `tile.kernel` (loads, stores and scalar atomics
    outside tile ops, which every thread of the block runs) may write a
    shared buffer that other threads read next, or read one that other
    threads overwrite next. This pass puts a `gpu.barrier` between every
    such pair, as TileLang's ThreadSync does; tile ops order the accesses
    among themselves when they are lowered.

    The kernel is walked in program order, keeping the shared accesses made
    since the last block barrier (`gpu.barrier`, `nvvm.barrier0`, or
    `nvvm.barrier` of the whole block). Two accesses conflict when they
    reach the same `tile.alloc_shared` (through views), differ in kind
    (read, write, atomic; writes after writes and atomics after atomics
    need no barrier, as in TileLang), at least one of them is thread-level,
    and they are not both thread-level accesses that index one dimension
    with the same value that differs in every thread (the thread index,
    moved or scaled by constants: each thread then touches only its own
    elements). An op whose accesses, with those of the ops it holds,
    conflict with those kept gets a barrier before it. An `scf.for` or a
    `tile.pipelined` without `order` / `stage` whose bounds every thread
    computes alike is then walked inside twice (the second time after its
    own first iteration), an `scf.if` on such a condition branch by
    branch, so that the barrier may go inside them; other regions (under
    conditions that differ between threads, where a barrier would hang)
    are taken as one op.

    ```mlir
    // Every thread writes S[i], then reads S[tid]: a barrier between.
    scf.for %i = %c0 to %c64 step %c1 {
      memref.store %x, %S[%i] : memref<64xf32, #tile.scope<shared>>
    }
    gpu.barrier
    %v = memref.load %S[%tid] : memref<64xf32, #tile.scope<shared>>
    ```

    Every pipeline runs it before the lowering; the GPU pipelines later
    drop the barriers that `gpu-eliminate-barriers` finds redundant, and
    the CPU target cuts its serialized threads at them.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def TileInferLayouts : Pass<"tile-infer-layouts", "::mlir::ModuleOp"> {
  let summary = "Choose the register layout of every fragment buffer";
  let description = [{
    Gives each `tile.alloc_fragment` a `#tile.fragment` layout (element ->
    thread, register), stored in its `tile.layout` attribute, so that every
    lowering of an op that touches the fragment agrees on who holds what.
    Layouts are anchored at gemm accumulators (the target's tensor-core
    accumulator layout for the gemm's shape, warp count and policy); a
    layout pinned with `tile.annotate_layout` is kept. From these anchors
    layouts spread, to a fixed point, to the fragments that have none:
    through whole-fragment `tile.copy` (casts included), from the source of
    a `tile.reduce` along the columns of an accumulator to its target (the
    row layout: each row replicated over the threads that hold it), and
    within a `tile.parallel` from its driver to the fragments accessed at
    the loop indices (the driver's row layout for those accessed at the
    first index of a 2-D loop). That keeps softmax-style code in registers:
    reductions become in-thread folds and warp shuffles. A fragment that
    is still without a layout and that a `tile.reduce` reduces along its
    rows gets a row-split layout (each row on the lanes of one warp, 16
    bytes of it per lane at a time), which spreads in turn. Other fragments
    get the cyclic layout (element e on thread e mod T). Conflicting
    anchors are reported at the fragment with the ops that disagree. On the
    CPU, fragments need no layout and the pass changes nothing.
  }];
  let options = [
    Tile_TargetOption<"Target whose layouts to use">
  ];
}

def TileLowerOps : Pass<"tile-lower-ops", "::mlir::ModuleOp"> {
  let summary = "Lower every tile op except tile.kernel for a target";
  let description = [{
    Each tile op inside a `tile.kernel` becomes thread-level upstream IR
    for the target: on the CPU, buffers become stack memory of the block's
    host thread and copies, gemms, reductions, fills, atomics and loops
    become loop nests with vector bodies (`vector.transfer_*` with masks
    for tiles that hang over a tensor edge, register-blocked
    `vector.fma` micro-kernels for gemm). On GPUs the buffers are placed
    already (`tile-place-buffers`, `tile-software-pipeline`,
    `tile-plan-scratch`): the patterns read each buffer's storage from its
    `tile.bind_storage`, and the pass replaces those by their storage at
    the end. The patterns come from the target
    (`TargetInfo::populateLowerOpsPatterns`); an op the target cannot lower
    is reported at its location.
  }];
  let options = [
    Tile_TargetOption<"Target to lower for">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::NVVM::NVVMDialect",
    "::mlir::nvgpu::NVGPUDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def TileLowerKernel : Pass<"tile-lower-kernel", "::mlir::ModuleOp"> {
  let summary = "Lower tile.kernel for a target";
  let description = [{
    Replaces each `tile.kernel` by the target's way of running a grid of
    blocks. On the CPU: `omp.parallel` with the block's buffers on each worker
    thread's stack, around an `omp.wsloop` over the grid (blocks handed out
    dynamically), with the buffers in the default memory space. Runs after `tile-lower-ops`.
  }];
  let options = [
    Tile_TargetOption<"Target to lower for">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect", "::mlir::omp::OpenMPDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def TileEmulateFp4 : Pass<"tile-emulate-fp4", "::mlir::ModuleOp"> {
  let summary = "Store f4E2M1FN elements two a byte and lower their "
                "conversions to integer code";
  let description = [{
    Runs after `tile-lower-kernel`, when every access to a buffer or tensor
    of `f4E2M1FN` is a `memref.load` / `memref.store` of one element. Each
    such memref becomes a memref of bytes with its innermost extent halved
    (TileLang's and torch's packing: the element of even innermost index in
    the low nibble; strides and offsets halved), so that a tensor argument
    is the `uint8` / `float4_e2m1fn_x2` tensor that holds it. A load reads
    the byte and shifts its nibble out. A store into a thread's own memory
    (registers, the stack, a CPU block's buffers) merges its nibble into the
    byte; a store into global or GPU shared memory is two atomics on the
    byte, an `andi` clearing its nibble and an `ori` setting it, so threads
    that write the two halves of one byte concurrently keep both.

    `arith.extf` from and `arith.truncf` to `f4E2M1FN` become integer code
    with CUDA's semantics (what TileLang's casts compile to): round to
    nearest, ties to even; magnitudes above 6 and infinities saturate to
    +-6; NaN becomes +6. f4 scalars become `i4`. Buffers, views and tensor
    arguments whose innermost extent or offset is odd (a byte split between
    two of them), innermost strides other than 1, and other ops on f4
    values are reported at their location.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect"
  ];
}

def TileLowerFp8Casts : Pass<"tile-lower-fp8-casts", "::mlir::ModuleOp"> {
  let summary = "Lower arithmetic on and conversions of f8E4M3FN / f8E5M2 "
                "values to what LLVM IR holds";
  let description = [{
    Runs after `tile-lower-kernel`. LLVM IR has no 8-bit float types (the
    LLVM type converter keeps f8 values as i8), so this pass leaves only
    byte moves of them. Arithmetic on f8 values (`arith.addf`,
    `arith.cmpf`, `arith.maximumf`...) is done in f32 (upstream's
    emulate-unsupported-floats patterns). `arith.extf` / `arith.truncf`
    between f8 and f16, bf16, f32 or f64, and `arith.sitofp` / `uitofp` /
    `fptosi` / `fptoui` between f8 and integers, scalars or vectors,
    convert through f32:
    - on `sm_90a`, two elements an instruction: `nvvm.convert.f32x2.to.f8x2`
      (`cvt.rn.satfinite.e4m3x2.f32` / `e5m2x2`) and
      `nvvm.convert.f8x2.to.f16x2`;
    - on `sm_80` and `cpu`, integer code that computes the same.

    Both give CUDA's `__nv_fp8_e4m3(float)` / `__nv_fp8_e5m2(float)`, which
    TileLang's casts compile to: round to nearest, ties to even;
    magnitudes beyond the largest finite value (448 for e4m3fn, 57344 for
    e5m2) and infinities saturate to it; NaN stays NaN. An f64 source is
    rounded to f32 first.

    ```mlir
    // --tile-lower-fp8-casts=target=sm_90a
    %h = arith.truncf %x : f32 to f8E4M3FN
    // becomes
    %p = nvvm.convert.f32x2.to.f8x2 %x, %x {rnd = #nvvm.fp_rnd_mode<rn>,
           sat = #nvvm.sat_mode<satfinite>} : i16 (f8E4M3FN)
    %b = arith.trunci %p : i16 to i8
    %h = arith.bitcast %b : i8 to f8E4M3FN
    ```
  }];
  let options = [Tile_TargetOption<"the target whose conversions to use">];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::vector::VectorDialect",
    "::mlir::NVVM::NVVMDialect"
  ];
}

def TileMarkTmaParams : Pass<"tile-mark-tma-params", "::mlir::ModuleOp"> {
  let summary = "Pass TMA descriptors to NVVM kernels by value, as grid "
                "constants";
  let description = [{
    Runs on kernels already lowered to the LLVM dialect (`llvm.func` with
    `nvvm.kernel`, after `convert-gpu-to-nvvm`). A kernel parameter of type
    `!llvm.ptr` that TMA ops use as their tensor map
    (`nvvm.cp.async.bulk.tensor.*`, `nvvm.prefetch` of a tensormap) is the
    address of a 128-byte `CUtensorMap` that the launcher passes by value:
    the pass marks it `llvm.byval = !llvm.array<128 x i8>`,
    `llvm.align = 64` and `nvvm.grid_constant`, so that the kernel reads it
    in the parameter space instead of copying it to local memory (where TMA
    cannot use it). A parameter used both as a tensor map and as ordinary
    memory is reported.
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect"
  ];
}

def TileApplyPassConfigs : Pass<"tile-apply-pass-configs", "::mlir::ModuleOp"> {
  let summary = "Apply TileLang's kernel-wide pass configs to every op";
  let description = [{
    TileLang's `pass_configs={PassConfigKey.TL_DISABLE_TMA_LOWER: True}` and
    `TL_DISABLE_WARP_SPECIALIZED` switch a feature off for a whole kernel;
    the tile dialect says the same per op, with discardable attributes that
    the sm_90a lowering reads. This pass writes them on every op they
    concern: `tile.disable_tma` on each `tile.copy` (no TMA load or store)
    with `disable-tma-lower`, and `tile.warp_specialize = false` on each
    `tile.pipelined` (no producer warpgroup) with
    `disable-warp-specialized`. Without options it changes nothing. Runs on
    tile IR, before `tile-verify-target`.

    ```mlir
    // --tile-apply-pass-configs="disable-tma-lower=true"
    tile.copy %A[%i, %k] [128, 64] to %As [128, 64] {tile.disable_tma} : ...
    ```
  }];
  let options = [
    Option<"disableTmaLower", "disable-tma-lower", "bool", /*default=*/"false",
           "Mark every tile.copy tile.disable_tma">,
    Option<"disableWarpSpecialized", "disable-warp-specialized", "bool",
           /*default=*/"false",
           "Mark every tile.pipelined tile.warp_specialize = false">
  ];
}

def TileApplyTensorLayouts : Pass<"tile-apply-tensor-layouts", "::mlir::ModuleOp"> {
  let summary = "Access global tensors through their pinned #tile.layout";
  let description = [{
    A `tile.annotate_layout` with a `#tile.layout` on a global tensor
    (TileLang's `T.Layout` on a kernel parameter) places the tensor's
    elements in its memory. In the kernel that pins it, this pass turns
    every `tile.copy` with the tensor on one side into an element-wise
    `tile.parallel` (elements outside a global tensor read the copy's pad
    value, zero by default, and are not written), and then indexes every
    `memref.load`, `memref.store` and one-element `tile.atomic_*` of the
    tensor into a 1-d view of it (`memref.collapse_shape`) at the element's
    row-major offset in the layout's physical shape. The pin is erased.
    Other uses of the tensor in the kernel (a region or tile atomic, a
    `tile.gemm`) are errors, as is a second pin of the same tensor.

    Runs after `tile-guard-memory-access`, which guards the element
    accesses on their logical indices, and before layout inference.

    ```mlir
    tile.annotate_layout %dq layout(#tile.layout<[64, 16] -> [16, 64],
                                                 (d0, d1) -> (d1, d0)>)
        : memref<64x16xf32>
    tile.atomic_add %dq[%i, %j], %x : memref<64x16xf32>, f32
    // becomes
    %flat = memref.collapse_shape %dq [[0, 1]]
        : memref<64x16xf32> into memref<1024xf32>
    %o = ... %j * 64 + %i ...
    tile.atomic_add %flat[%o], %x : memref<1024xf32>, f32
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def TileGpuModuleToBinary : Pass<"tile-gpu-module-to-binary", "::mlir::ModuleOp"> {
  let summary = "Serialize GPU modules to gpu.binary, optionally keeping "
                "the assembly beside the binary";
  let description = [{
    Upstream's `gpu-module-to-binary` (each `gpu.module` of the module
    becomes a `gpu.binary` holding one `gpu.object` per target, serialized
    by the target: LLVM's NVPTX backend makes the PTX, ptxas the cubin) with
    one addition: with `keep-isa`, each object of a `bin` or `fatbin`
    binary also carries the assembly (the PTX) that was assembled into it,
    as its `isa` string property. The JIT keeps both the cubin and the PTX
    of a kernel; this gives it both from one serialization instead of
    running the whole pipeline once per format. The objects themselves are
    the same bytes as without `keep-isa`, and the `isa` property is the
    same text as the object of `format=isa`. ROCDL's serializer does not
    report its assembly: for modules whose targets are all
    `#rocdl.target`, keep-isa serializes them to AMDGCN assembly and
    assembles and links (ld.lld, from the toolkit) each object itself, as
    the serializer would.

    ```mlir
    // --tile-gpu-module-to-binary="format=bin keep-isa=true"
    gpu.binary @k_kernel [#gpu.object<#nvvm.target<chip = "sm_80">,
        properties = {isa = "//\n// Generated by LLVM NVPTX Back-End..."},
        bin = "\7FELF...">]
    ```
  }];
  let options = [
    Option<"toolkitPath", "toolkit", "std::string", /*default=*/"\"\"",
           "CUDA toolkit (libdevice, ptxas) or ROCm toolkit (amdgcn/bitcode, "
           "llvm/bin/ld.lld); empty: upstream's search">,
    Option<"format", "format", "std::string", /*default=*/"\"bin\"",
           "What the objects hold: isa (PTX, AMDGCN), bin (cubin, hsaco) or "
           "fatbin">,
    Option<"keepIsa", "keep-isa", "bool", /*default=*/"false",
           "With format bin or fatbin, also keep each object's assembly as "
           "its isa property">
  ];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect", "::mlir::ROCDL::ROCDLDialect"
  ];
}

def TileSelectMma : Pass<"tile-select-mma", "::mlir::ModuleOp"> {
  let summary = "Choose the tensor-core instruction, its shape and the warp "
                "partition of every gemm";
  let description = [{
    Decides once, for each `tile.gemm` and `tile.gemm_sp` of a GPU target,
    how it runs, and records it as the gemm's `mma` attribute, a
    `#tile.mma<kind, mMnNkK, warps = [wm, wn][, repeats = r]>` that every
    later step reads instead of deciding again: `tile-infer-layouts` takes
    the accumulator layout from its warp partition, `tile-software-pipeline`
    pipelines a loop with TMA exactly where its gemms ask for `wgmma`,
    `tile-lower-ops` lowers each
    gemm to the instruction and shape recorded. Those steps report a gemm
    without the attribute.

    The target answers (`TargetInfo::selectMma` and `settleMma`). On NVIDIA
    GPUs: sm_90a gives a gemm with an f32 accumulator the wgmma partition
    (one warpgroup per 64 rows, or per 128 rows with the default policy and
    operands of whole 128-byte rows) and keeps `wgmma` where a
    `tile.pipelined` loop's global -> shared copies can all be TMA loads
    and every gemm reading them can run as wgmma (B, and A unless it comes
    from registers in the accumulator layout of an M x K wgmma, loaded by
    TMA); the fragment layouts that question needs are those
    `tile-infer-layouts` will choose. Every other gemm runs as `mma_sync`
    m16n8kK (K = 256 / bits of A) on the warp partition of its policy, or on
    the wgmma partition where it has it. A gemm no instruction fits, and an
    fp8 gemm that cannot run as wgmma, is reported. On the CPU the pass
    changes nothing; gfx942 has no choice to make yet (MFMA later).
  }];
  let options = [
    Tile_TargetOption<"Target whose instructions to choose">
  ];
}

def TileWarpSpecialize : Pass<"tile-warp-specialize", "::mlir::ModuleOp"> {
  let summary = "Decide which kernels get a producer warpgroup that only "
                "issues their pipelines' loads";
  let description = [{
    Runs once the gemms have their `#tile.mma` (after `tile-select-mma`),
    before `tile-infer-layouts`, and records for each GPU kernel whether its
    `tile.pipelined` loop gets a warpgroup of its own that only loads the
    stages (warp specialization): `tile.producer_threads = 128` on the
    `tile.kernel`. `tile-software-pipeline` builds that producer (TMA
    loads, full and empty mbarriers, named barriers, setmaxnreg) exactly
    where the attribute says, and `tile-lower-kernel` launches the extra
    threads. A kernel that already has the attribute keeps it;
    `tile-software-pipeline` reports one whose loop cannot have a producer.

    The target decides (`TargetInfo::specializeWarps`). On sm_90a a kernel
    gets a producer where its loop will be a TMA pipeline (the gemms that
    read its stages run as `wgmma`), the loop is the kernel's only pipelined
    loop, in the kernel's body or in a tile loop of a persistent block (then
    without buffers loaded once before it), with at least two stages, whole
    warpgroups and room for one more, load offsets and bounds the producer
    can compute, and no `tile.warp_specialize = false` on it; and where the
    producer pays: a block of one warpgroup whose wgmma accumulators take
    128 registers a thread, in a grid of more blocks than SMs, keeps its
    loads (the producer's registers would halve the blocks an SM holds).
    sm_80, gfx942 and the CPU change nothing.
  }];
  let options = [
    Tile_TargetOption<"Target whose kernels to specialize">
  ];
}

def TilePlanShared : Pass<"tile-plan-shared", "::mlir::ModuleOp"> {
  let summary = "Place each kernel's shared buffers, sharing the bytes of "
                "buffers whose lifetimes do not overlap";
  let description = [{
    Gives every `tile.alloc_shared` of a GPU kernel its `offset` in the
    kernel's planned shared region and the kernel its
    `planned_shared_bytes`; `tile-plan-scratch` places the region after the
    pipelines' stage rings and the lowerings' scratch buffers. On the CPU every buffer is an array of its own and the pass
    changes nothing.

    A buffer's lifetime runs from the first to the last op of the kernel's
    body that uses it (directly or through a view, at any depth): a use
    inside a loop keeps the buffer alive across the whole loop, so the
    buffers a `tile.pipelined` loop fills (and the pipeliners multi-buffer)
    and those of its asynchronous copies, TMA loads and wgmma reads live
    until the loop and the waits placed after it are done.

    The buffers a pipeliner may take over are placed after the others, so
    that those it replaces leave no hole: first those the sm_90a TMA
    pipeline may keep in its own region (a gemm operand loaded once before
    a pipelined loop, the shared tile of an epilogue after one), then the
    unused ones (the lowering gives them no storage), last the targets of
    a pipelined loop's copies from global memory, which the pipeliners
    replace by their stage buffers; these never share bytes.

    When the buffers and the pipelines' extra stages fit the target's
    shared memory without sharing, the buffers are placed one after the
    other in that order, 128-byte aligned: the placement the lowering
    always made, so the code of such kernels is unchanged. Otherwise each
    buffer goes to the lowest 128-byte aligned offset whose bytes no buffer
    of an overlapping lifetime holds, and a `gpu.barrier` before the first
    op of a buffer that reuses bytes orders its writes after every thread's
    last access of the earlier buffer (the pipeliners drain their
    cp.async groups, TMA loads and wgmma reads after their loop, before
    that barrier). If even that does not fit, the kernel is reported with a
    note at each buffer giving its type and size.

    ```mlir
    // --tile-plan-shared=target=sm_90a, A and O disjoint in time:
    tile.kernel (%bx) in (1) threads(128) attributes {planned_shared_bytes = 65536 : i64} {
      %a = tile.alloc_shared {offset = 0 : i64} : memref<128x256xf16, #tile.scope<shared>>
      %o = tile.alloc_shared {offset = 0 : i64} : memref<128x256xf16, #tile.scope<shared>>
      ...
    }
    ```
    Runs after `tile-infer-layouts`, before `tile-lower-ops`.
  }];
  let options = [
    Tile_TargetOption<"Target to plan for">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def TilePlaceBuffers : Pass<"tile-place-buffers", "::mlir::ModuleOp"> {
  let summary = "Give every tile buffer of a GPU kernel its storage";
  let description = [{
    Replaces each `tile.alloc_shared`, `tile.alloc_fragment` and
    `tile.alloc_local` of a GPU kernel by a `tile.bind_storage` of the
    storage the target gives it (`TargetInfo::placeBuffers`), so that the
    tile ops that use the buffer keep seeing its tile type. On NVIDIA GPUs:

    - a fragment becomes a `memref.alloca` of each thread's registers under
      the layout `tile-infer-layouts` gave it (which must have an inverse;
      a fragment whose share of registers exceeds the target's bound is
      reported), kept first in the kernel's entry block;
    - a local buffer becomes a `memref.alloca` of its shape;
    - a shared buffer becomes a `memref.view` of `gpu.dynamic_shared_memory`
      at byte 0, its `planned_offset` the `offset` of `tile-plan-shared`
      (a shared buffer without one is reported): `tile-plan-scratch` places
      the planned region once the pipelines have their stage buffers.

    ```mlir
    // --tile-place-buffers=target=sm_80
    %regs = memref.alloca() : memref<32xf32>
    %c0 = arith.constant 0 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %view = memref.view %smem[%c0][] : ... to memref<64x32xf16, #gpu.address_space<workgroup>>
    %As = tile.bind_storage %view {planned_offset = 0 : i64} : ... to memref<64x32xf16, #tile.scope<shared>>
    %C = tile.bind_storage %regs {layout = #tile.fragment<...>} : memref<32xf32> to memref<64x64xf32, #tile.scope<fragment>>
    ```
    Runs after `tile-plan-shared`, before `tile-software-pipeline`. Changes
    nothing on the CPU.
  }];
  let options = [
    Tile_TargetOption<"Target to place buffers for">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

def TileSoftwarePipeline : Pass<"tile-software-pipeline", "::mlir::ModuleOp"> {
  let summary = "Multi-buffer the global -> shared copies of tile.pipelined "
                "loops";
  let description = [{
    Gives each `tile.pipelined` loop of a GPU kernel whose buffers
    `tile-place-buffers` placed the stage buffers and asynchronous copies
    of the target (`TargetInfo::pipelineLoops`), from the kernel's
    `tile.shared_bytes` on (0 when absent), and sets that attribute to the
    end of the stage buffers. On NVIDIA GPUs:

    - sm_90a, where the loop's copies from global memory can all be TMA
      loads that wgmma gemms read: a ring of `num_stages` stage buffers of
      swizzled panels (`tile.bind_storage` with `panel_rows` and
      `panel_bytes`: 128, 64 or 32, the widest the rows fill) with full/empty
      mbarriers, the TMA descriptors as new function arguments
      (`tile.tma`), and where `tile-warp-specialize` gave the kernel
      `tile.producer_threads` a producer warpgroup that issues the loads
      (`tile.consumer_threads` on the consumers' `scf.if`; a kernel whose
      loop cannot have one is reported);
    - otherwise, copies from global to a whole shared buffer that only the
      loop reads: `num_stages` stage buffers filled with `cp.async`
      (`nvgpu.device_async_copy`), `num_stages - 1` iterations ahead; the
      loop reads a subview of its stage (swizzled where only gemms read
      it).

    A loop that pins its schedule (`order` / `stage`) has each load run as
    many iterations ahead of the ops that read its buffer as their stages
    differ (cp.async: that many slots plus one, and the commit groups waited
    for accordingly; a TMA ring: as many stages as its farthest load runs
    ahead, plus one), and the steady state issues the loads where `order`
    puts them, the other ops in `order` (an order that swaps two that
    depend on each other, through values or memory, is reported at the
    loop); the lists are dropped once carried out. The loop is left with
    `num_stages = 1` and its other ops lower as usual; loops that cannot be
    pipelined keep their synchronous copies.
    A wgmma that cannot have the registers ptxas needs at the block's
    thread count is reported. Runs after `tile-place-buffers`, before
    `tile-plan-scratch`. Changes nothing on the CPU.
  }];
  let options = [
    Tile_TargetOption<"Target to pipeline for">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::memref::MemRefDialect",
    "::mlir::NVVM::NVVMDialect", "::mlir::nvgpu::NVGPUDialect",
    "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect"
  ];
}

def TilePlanScratch : Pass<"tile-plan-scratch", "::mlir::ModuleOp"> {
  let summary = "Place the lowerings' shared scratch buffers and the planned "
                "shared region, and size a kernel's shared memory";
  let description = [{
    Completes the shared-memory layout of a GPU kernel whose pipelines have
    their stage buffers (`TargetInfo::planScratch`). After the bytes
    `tile.shared_bytes` holds (the stage buffers), 128-byte aligned: the
    scratch buffers the op lowerings need (the warps' partials of a
    `tile.reduce` and of a `tile.finalize_reducer`, the dense A of a
    `tile.gemm_sp`: `tile.scratch_offset` on the op; the shared copy of a
    fragment that a reduction, gemm or loop reads across threads:
    `scratch_offset` on its `tile.bind_storage`), then the region
    `tile-plan-shared` planned: each shared buffer's view gets its final
    byte offset and, where whole-tile copies from global memory fill it and
    only gemms read it, its `swizzle_chunks`; views nothing uses any more
    (buffers the pipelines replaced) are erased. The partials of several
    reduces share their bytes when the kernel fits only that way.

    The kernel's `tile.shared_bytes` becomes its dynamic shared memory and
    `planned_shared_bytes` is dropped; a kernel that needs more than the
    target's shared memory per block is reported.
    ```mlir
    // --tile-plan-scratch=target=sm_80, after a 2-stage cp.async ring:
    tile.kernel (%bx) in (1) threads(128) attributes {tile.shared_bytes = 24576 : i64} {
      %c16384 = arith.constant 16384 : index
      %view = memref.view %smem[%c16384][] : ...
      %Cs = tile.bind_storage %view : ... to memref<64x64xf16, #tile.scope<shared>>
    ```
    Runs after `tile-software-pipeline`, before `tile-lower-ops`. Changes
    nothing on the CPU.
  }];
  let options = [
    Tile_TargetOption<"Target to plan for">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect"
  ];
}

#endif // TILE_DIALECT_TILE_TRANSFORMS_PASSES_TD
