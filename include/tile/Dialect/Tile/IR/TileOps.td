//===- TileOps.td - Operations of the tile dialect ---------*- tablegen -*-===//

#ifndef TILE_DIALECT_TILE_IR_TILEOPS_TD
#define TILE_DIALECT_TILE_IR_TILEOPS_TD

include "tile/Dialect/Tile/IR/TileDialect.td"
include "tile/Dialect/Tile/IR/TileAttrs.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferIntRangeInterface.td"
include "mlir/Interfaces/LoopLikeInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ViewLikeInterface.td"

// A resource that orders layout annotations with respect to each other so
// that they are neither erased nor reordered by generic transformations.
def Tile_LayoutResource : Resource<"::mlir::tile::LayoutResource">;

// Tile ops run in the blocks of a kernel: they must be nested (at any depth)
// inside a tile.kernel.
def Tile_InKernel : NativeOpTrait<"InKernel"> {
  let cppNamespace = "::mlir::tile";
}

//===----------------------------------------------------------------------===//
// Structure: kernel, yield
//===----------------------------------------------------------------------===//

def Tile_KernelOp : Tile_Op<"kernel", [
    RecursiveMemoryEffects,
    DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRanges"]>,
    SingleBlockImplicitTerminator<"::mlir::tile::YieldOp">,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>
  ]> {
  let summary = "A grid of thread blocks";
  let description = [{
    Runs its body once for every block of a grid of one to three dimensions.
    The region's arguments are the block's indices (`bx`, `by`, `bz`), each
    in `[0, extent)`. Extents are static integers or `index` values
    (dynamic). `threads` is the number of threads of each block; tile
    operations in the body are executed cooperatively by all of them. The
    optional `cluster` groups blocks into thread-block clusters (NVIDIA
    sm_90a). The body may read and write the global memrefs of the
    enclosing function; its shared, fragment and local buffers are its own
    (`tile.alloc_*` inside it: a tile buffer from outside is an error).

    `planned_shared_bytes`, written by `tile-plan-shared`, is the size of
    the region that holds the kernel's planned shared buffers (each
    `tile.alloc_shared` then carries its `offset` in it): every planned
    buffer must end inside it, and a kernel with the attribute must have an
    offset on each of its shared buffers.

    ```mlir
    tile.kernel (%bx, %by) in (%gx, 8) threads(128) {
      %a = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
      ...
    }
    ```
  }];
  let arguments = (ins
    Variadic<Index>:$dynamic_grid,
    DenseI64ArrayAttr:$static_grid,
    I64Attr:$threads,
    OptionalAttr<DenseI64ArrayAttr>:$cluster,
    OptionalAttr<I64Attr>:$planned_shared_bytes
  );
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  // Tile buffers captured from outside the body, then the body's constant
  // indices of on-chip buffers, once its ops verified.
  let hasRegionVerifier = 1;
  let hasCanonicalizer = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    OpBuilder<(ins "::llvm::ArrayRef<::mlir::OpFoldResult>":$grid,
                   "int64_t":$threads)>
  ];
  let extraClassDeclaration = [{
    /// Grid extents, static ones as attributes.
    ::llvm::SmallVector<::mlir::OpFoldResult> getMixedGrid();
    unsigned getGridRank() { return getStaticGrid().size(); }
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
    ::mlir::Block::BlockArgListType getBlockIndices() {
      return getBodyBlock().getArguments();
    }
    /// Part of the region verifier: the offsets of tile-plan-shared.
    ::llvm::LogicalResult verifySharedPlan();
  }];
}

def Tile_YieldOp : Tile_Op<"yield", [
    Pure, Terminator, ReturnLike,
    ParentOneOf<["KernelOp", "ParallelOp", "PipelinedOp"]>
  ]> {
  let summary = "Terminator of tile regions";
  let description = [{
    Ends the body of `tile.kernel`, `tile.parallel` and `tile.pipelined`.
    It is implicit in their custom form.
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

class Tile_AllocOp<string mnemonic, string scope, string scopeDoc>
    : Tile_Op<mnemonic, [Tile_InKernel]> {
  let summary = "Allocate a " # scope # " tile buffer";
  let description = [{
    Allocates a statically shaped buffer of the enclosing block,
  }] # scopeDoc # [{
    The result's memory space must be `#tile.scope<}] # scope # [{>`. The
    buffer lives until the end of the block's execution of the kernel.
    Its contents are undefined until written.
  }];
  let results = (outs Res<AnyStaticShapeMemRef, "the buffer",
                          [MemAlloc<DefaultResource>]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
  code expectedScope = "::mlir::tile::Scope::" # !cond(
      !eq(scope, "shared") : "Shared",
      !eq(scope, "fragment") : "Fragment",
      true : "Local");
  let extraClassDeclaration = [{
    static ::mlir::tile::Scope getExpectedScope() { return }] # expectedScope # [{; }
  }];
}

def Tile_AllocSharedOp : Tile_AllocOp<"alloc_shared", "shared", [{
    in shared memory: all threads of the block see the same data.
    `offset`, written by `tile-plan-shared`, places the buffer that many
    bytes into the kernel's planned shared region (a multiple of 128, the
    alignment of shared buffers; buffers whose lifetimes do not overlap
    may share bytes). Without it the lowering has no place for the buffer.
    ```mlir
    %a = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    %b = tile.alloc_shared {offset = 8192 : i64} : memref<64x64xf16, #tile.scope<shared>>
    ```
  }]> {
  let arguments = (ins OptionalAttr<I64Attr>:$offset);
  let extraClassDeclaration = [{
    static ::mlir::tile::Scope getExpectedScope() {
      return ::mlir::tile::Scope::Shared;
    }
    /// The alignment of planned shared buffers (bytes).
    static constexpr int64_t kAlignment = 128;
  }];
}

def Tile_AllocFragmentOp : Tile_AllocOp<"alloc_fragment", "fragment", [{
    in registers, distributed over the block's threads by a layout that the
    compiler infers (for example the accumulator layout of the tensor-core
    instruction that writes it).
    ```mlir
    %c = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    ```
  }]>;

def Tile_AllocLocalOp : Tile_AllocOp<"alloc_local", "local", [{
    in registers private to each thread: every thread holds its own copy of
    the whole buffer (a scalar accumulator, a small per-thread array).
    ```mlir
    %s = tile.alloc_local : memref<1xf32, #tile.scope<local>>
    ```
  }]>;

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def Tile_CopyOp : Tile_Op<"copy", [Tile_InKernel, AttrSizedOperandSegments]> {
  let summary = "Copy a tile between two buffers of any scopes";
  let description = [{
    Copies a rectangular region of `source` to a region of `target`. Each
    region is given by offsets (static or `index` values) and static sizes;
    unit dimensions are dropped when the regions are matched, so a region of
    a 4-d tensor of sizes `[1, 64, 1, 128]` matches a `64x128` buffer. The
    regions' shapes without unit dimensions must be equal.

    Either side may hang over the edge of a global tensor: elements read
    from outside the source give the pad value (`pad`, zero when absent),
    elements written outside the target are dropped. Regions of shared,
    fragment and local buffers must lie inside the buffer. Element types
    may differ: values are converted (for example an f32 accumulator stored
    as f16). `inst` asks for an instruction family (see
    `#tile.copy_inst`).

    Offsets and sizes may be left out: a side written without offsets is
    the whole buffer (offsets zero, sizes its static shape); a side written
    with offsets but without sizes takes its sizes from the other side.

    ```mlir
    tile.copy %A[%m, %k] to %As
        : memref<?x?xf16> to memref<128x32xf16, #tile.scope<shared>>
    tile.copy %Q[%b, %m, %h, 0] [1, 64, 1, 128] to %Qs
        : memref<?x?x?x128xf16> to memref<64x128xf16, #tile.scope<shared>>
    tile.copy %Cf to %C[%m, %n]
        : memref<128x128xf32, #tile.scope<fragment>> to memref<?x?xf16>
    ```
  }];
  let arguments = (ins
    Arg<AnyMemRef, "source buffer", [MemRead]>:$source,
    Variadic<Index>:$source_offsets,
    DenseI64ArrayAttr:$static_source_offsets,
    DenseI64ArrayAttr:$source_sizes,
    Arg<AnyMemRef, "target buffer", [MemWrite]>:$target,
    Variadic<Index>:$target_offsets,
    DenseI64ArrayAttr:$static_target_offsets,
    DenseI64ArrayAttr:$target_sizes,
    OptionalAttr<TypedAttrInterface>:$pad,
    DefaultValuedAttr<Tile_CopyInstAttr, "::mlir::tile::CopyInst::Auto">:$inst
  );
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::llvm::SmallVector<::mlir::OpFoldResult> getMixedSourceOffsets();
    ::llvm::SmallVector<::mlir::OpFoldResult> getMixedTargetOffsets();
    /// The copied tile's shape: the region shape without unit dimensions.
    ::llvm::SmallVector<int64_t> getTileShape();
  }];
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

def Tile_GemmOp : Tile_Op<"gemm", [Tile_InKernel]> {
  let summary = "Tile matrix multiply-accumulate: C += op(A) * op(B)";
  let description = [{
    Multiplies an `M x K` tile `A` (`K x M` with `transpose_a`) by a `K x N`
    tile `B` (`N x K` with `transpose_b`) and adds the product to the
    `M x N` accumulator `C`; with `clear_accum`, `C` is zeroed first. `A`
    and `B` live in shared memory or in fragments, `C` in a fragment. The
    block's warps split the output by `policy`. `mma` (a `#tile.mma`,
    written by `tile-select-mma` on GPU targets) records the instruction,
    its shape and the warp partition the lowering uses; the verifier checks
    that they tile this gemm over the kernel's warps.

    Legal element types (A, B -> C): f16 -> f16 or f32; bf16 -> f32;
    f32 -> f32 (tf32 tensor cores on GPUs); fp8 (e4m3 / e5m2, in any mix)
    -> f32 or f16; i8 -> i32. Whether a target supports a combination is
    checked by `tile-verify-target`.

    ```mlir
    tile.gemm %As, %Bs, %Cf {transpose_b}
        : memref<128x32xf16, #tile.scope<shared>>,
          memref<128x32xf16, #tile.scope<shared>>,
          memref<128x128xf32, #tile.scope<fragment>>
    ```
  }];
  let arguments = (ins
    Arg<AnyStaticShapeMemRef, "A", [MemRead]>:$a,
    Arg<AnyStaticShapeMemRef, "B", [MemRead]>:$b,
    Arg<AnyStaticShapeMemRef, "C", [MemRead, MemWrite]>:$c,
    UnitAttr:$transpose_a,
    UnitAttr:$transpose_b,
    UnitAttr:$clear_accum,
    DefaultValuedAttr<Tile_GemmWarpPolicyAttr,
                      "::mlir::tile::GemmWarpPolicy::Square">:$policy,
    OptionalAttr<Tile_MmaAttr>:$mma
  );
  let assemblyFormat = [{
    $a `,` $b `,` $c attr-dict `:` type($a) `,` type($b) `,` type($c)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getM();
    int64_t getN();
    int64_t getK();
  }];
}

def Tile_GemmSpOp : Tile_Op<"gemm_sp", [Tile_InKernel]> {
  let summary = "2:4 structured-sparse tile multiply-accumulate";
  let description = [{
    Like `tile.gemm`, with a 2:4 sparse `A`: of every 4 consecutive elements
    along K at most 2 are non-zero. `A` holds the kept values, `M x K/2`;
    `E` holds the metadata: 2 bits per kept value giving its position in
    its group of 4, packed into integers of w bits (i8, i16 or i32), so `E`
    is `M x K/w`. `B` is `K x N` (`N x K` with `transpose_b`), `C` the
    `M x N` accumulator. Element types as for `tile.gemm`, except f32.
    `mma` as for `tile.gemm` (always `mma_sync` on the expanded A).

    ```mlir
    tile.gemm_sp %As, %Es, %Bs, %Cf
        : memref<128x32xf16, #tile.scope<shared>>,
          memref<128x4xi16, #tile.scope<shared>>,
          memref<64x128xf16, #tile.scope<shared>>,
          memref<128x128xf32, #tile.scope<fragment>>
    ```
  }];
  let arguments = (ins
    Arg<AnyStaticShapeMemRef, "A (compressed)", [MemRead]>:$a,
    Arg<AnyStaticShapeMemRef, "E (metadata)", [MemRead]>:$e,
    Arg<AnyStaticShapeMemRef, "B", [MemRead]>:$b,
    Arg<AnyStaticShapeMemRef, "C", [MemRead, MemWrite]>:$c,
    UnitAttr:$transpose_b,
    UnitAttr:$clear_accum,
    DefaultValuedAttr<Tile_GemmWarpPolicyAttr,
                      "::mlir::tile::GemmWarpPolicy::Square">:$policy,
    OptionalAttr<Tile_MmaAttr>:$mma
  );
  let assemblyFormat = [{
    $a `,` $e `,` $b `,` $c attr-dict `:` type($a) `,` type($e) `,` type($b)
    `,` type($c)
  }];
  let hasVerifier = 1;
}

def Tile_FillOp : Tile_Op<"fill", [Tile_InKernel]> {
  let summary = "Set every element of a tile buffer to a value";
  let description = [{
    Writes `value` (of the buffer's element type) to every element of
    `buffer`. A fill with a constant zero canonicalizes to `tile.clear`.

    ```mlir
    tile.fill %m, %neg_inf : memref<128xf32, #tile.scope<fragment>>, f32
    ```
  }];
  let arguments = (ins
    Arg<AnyStaticShapeMemRef, "buffer", [MemWrite]>:$buffer,
    AnyTypeOf<[AnyInteger, Index, AnyFloat]>:$value
  );
  let assemblyFormat = "$buffer `,` $value attr-dict `:` type($buffer) `,` type($value)";
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Tile_ClearOp : Tile_Op<"clear", [Tile_InKernel]> {
  let summary = "Set every element of a tile buffer to zero";
  let description = [{
    ```mlir
    tile.clear %c : memref<128x128xf32, #tile.scope<fragment>>
    ```
  }];
  let arguments = (ins Arg<AnyStaticShapeMemRef, "buffer", [MemWrite]>:$buffer);
  let assemblyFormat = "$buffer attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

def Tile_ReduceOp : Tile_Op<"reduce", [Tile_InKernel]> {
  let summary = "Reduce a tile along one dimension";
  let description = [{
    Reduces `source` along `dim` with `kind` (`sum`, `max`, `min`,
    `abssum` = sum of absolute values, `absmax` = largest absolute value)
    into `target`, whose shape is the source's without `dim` (a 1-d source
    reduces into a buffer of shape `[1]`). With `clear` (the default) the
    target is overwritten; without it the result is combined with the
    target's current contents by the same kind (for `abssum` / `absmax`:
    sum / max). Source and target are fragment, shared or local buffers.

    `max`, `min` and `absmax` of floats skip NaNs (a NaN loses to any
    number, as CUDA's `fmaxf` / `__hmax` and TileLang's default have it);
    with `nan_propagate` any NaN makes the result NaN (TileLang's
    `nan_propagate=True`).

    ```mlir
    tile.reduce max %s into %m dim = 1 {nan_propagate}
        : memref<64x64xf32, #tile.scope<fragment>> into
          memref<64xf32, #tile.scope<fragment>>
    ```
  }];
  let arguments = (ins
    Tile_ReduceKindAttr:$kind,
    Arg<AnyStaticShapeMemRef, "source", [MemRead]>:$source,
    Arg<AnyStaticShapeMemRef, "target", [MemRead, MemWrite]>:$target,
    I64Attr:$dim,
    DefaultValuedAttr<BoolAttr, "true">:$clear,
    UnitAttr:$nan_propagate
  );
  let assemblyFormat = [{
    custom<ReduceKind>($kind) $source `into` $target `dim` `=` $dim attr-dict
    `:` type($source) `into` type($target)
  }];
  let hasVerifier = 1;
}

def Tile_FinalizeReducerOp : Tile_Op<"finalize_reducer", [Tile_InKernel]> {
  let summary = "Combine the per-thread copies of a reduction buffer";
  let description = [{
    Closes a reduction (TileLang's `T.alloc_reducer` / `T.finalize_reducer`):
    `reducer` is a local buffer, so each thread of the block holds a copy of
    it, and each thread has combined into its copy by `kind` the
    contributions of the loop iterations it ran (inside `tile.parallel`,
    where every iteration runs on one thread), starting from the kind's
    identity (for `max` / `min` from any value: combining it again changes
    nothing). Afterwards every thread's copy holds, element by element, the
    combination of all the block's copies, plus the optional `seed` combined
    into each element once (a sum's starting value). The copies then agree,
    so `tile.copy` may read the buffer as a tile of the block.

    `reducer` may instead be a fragment (tile-infer-layouts makes one of a
    reducer updated at the rows of parallel loops): each thread then holds
    the elements its layout gives it, the threads that hold an element (its
    replicas) a partial each, and the op combines the replicas.

    Every thread of the block must reach the op. On the CPU a block runs on
    one thread whose copy is already the result; on GPUs the copies are
    combined by warp shuffles, then through shared memory across warps.

    ```mlir
    tile.finalize_reducer sum %acc : memref<128xf32, #tile.scope<local>>
    tile.finalize_reducer sum %acc seed %s : memref<1xf32, #tile.scope<local>>, f32
    ```
  }];
  let arguments = (ins
    Tile_ReduceKindAttr:$kind,
    Arg<AnyStaticShapeMemRef, "reducer", [MemRead, MemWrite]>:$reducer,
    Optional<AnyTypeOf<[AnyInteger, AnyFloat]>>:$seed
  );
  let assemblyFormat = [{
    custom<ReduceKind>($kind) $reducer (`seed` $seed^)? attr-dict `:` type($reducer)
    (`,` type($seed)^)?
  }];
  let hasVerifier = 1;
}

class Tile_AtomicOp<string mnemonic, string what>
    : Tile_Op<mnemonic, [Tile_InKernel]> {
  let summary = "Atomic " # what # " into global or shared memory";
  let description = [{
    Atomically combines `value` into `target` at `offsets` (}] # what # [{).
    `value` is one of
    - a scalar of the target's element type: one element, executed once
      per thread that reaches it;
    - a scalar with `sizes` (one per target dimension): every element of
      the region of those sizes at `offsets` is combined with the scalar,
      once per block (TileLang's `T.atomic_add(A[i:i+32, j:j+32], 1.0)`);
    - a tile buffer of the target's rank: the whole tile, executed once per
      block, each element atomically.
    Elements of a region or tile that fall outside a global target are
    dropped.

    ```mlir
    tile.}] # mnemonic # [{ %out[%i, %j], %partial
        : memref<?x?xf32>, memref<64x64xf32, #tile.scope<fragment>>
    tile.}] # mnemonic # [{ %out[%i, %j] sizes [32, 32], %x : memref<?x?xf32>, f32
    ```
  }];
  let arguments = (ins
    Arg<AnyMemRef, "target", [MemRead, MemWrite]>:$target,
    Variadic<Index>:$offsets,
    DenseI64ArrayAttr:$static_offsets,
    OptionalAttr<DenseI64ArrayAttr>:$sizes,
    Arg<AnyType, "value or tile", [MemRead]>:$value
  );
  let assemblyFormat = [{
    $target `` custom<DynamicIndexList>($offsets, $static_offsets)
    (`sizes` $sizes^)? `,` $value attr-dict `:` type($target) `,` type($value)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::llvm::SmallVector<::mlir::OpFoldResult> getMixedOffsets();
  }];
}

def Tile_AtomicAddOp : Tile_AtomicOp<"atomic_add", "addition">;
def Tile_AtomicMaxOp : Tile_AtomicOp<"atomic_max", "maximum">;
def Tile_AtomicMinOp : Tile_AtomicOp<"atomic_min", "minimum">;

def Tile_ViewOp : Tile_Op<"view", [
    Tile_InKernel, Pure,
    DeclareOpInterfaceMethods<ViewLikeOpInterface>
  ]> {
  let summary = "A shared buffer's bytes seen as another shape and element type";
  let description = [{
    The bytes of the shared buffer `source` (a `tile.alloc_shared`, or a
    view of one) as a shared buffer of the result's shape and element type,
    row-major: element `i` of the result (linearized) is bytes
    `i * b .. (i + 1) * b - 1` of the source's bytes, for `b` bytes an
    element. Both hold the same number of bytes. Writes through either are
    seen through the other. TileLang's `T.view(buffer, shape, dtype)` of a
    shared buffer.

    ```mlir
    %b = tile.view %a : memref<64x64xf32, #tile.scope<shared>>
                     to memref<64x128xbf16, #tile.scope<shared>>
    ```
  }];
  let arguments = (ins AnyStaticShapeMemRef:$source);
  let results = (outs AnyStaticShapeMemRef:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `to` type($result)";
  let hasVerifier = 1;
}

def Tile_MakeTensorOp : Tile_Op<"make_tensor", [Tile_InKernel, Pure]> {
  let summary = "A global tensor at a device address";
  let description = [{
    The row-major global tensor of the result's shape and element type whose
    first element is at the byte `address` (an `i64`: a pointer argument, or
    one loaded from a table of pointers in memory). `sizes` gives the
    result's dynamic dimensions, in order. TileLang's
    `T.make_tensor(ptr, shape, dtype)` of a `T.ptr`.

    The tensor is memory like a tensor argument's: element accesses that can
    leave it are guarded by its sizes. Nothing checks that the address holds
    such a tensor. `tile-lower-ops` builds the memref's descriptor from the
    address and the sizes.

    ```mlir
    %a = tile.make_tensor %p(%m, %k) : memref<?x?xf16>
    %t = tile.make_tensor %q : memref<256xf32>
    ```
  }];
  let arguments = (ins I64:$address, Variadic<Index>:$sizes);
  let results = (outs AnyMemRef:$result);
  let assemblyFormat = "$address (`(` $sizes^ `)`)? attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_ScanOp : Tile_Op<"scan", [Tile_InKernel, AttrSizedOperandSegments]> {
  let summary = "Inclusive scan (prefix sum or running maximum) along one dimension";
  let description = [{
    Writes into the `target` region the inclusive scan of the `source`
    region along `dim` by `kind` (`sum`: running sum; `max`: running
    maximum): element `k` of each line along `dim` gets the combination of
    elements `0 .. k` of the source line, or with `reverse` of elements
    `k .. n-1`. TileLang's `T.cumsum` / `T.cummax`. Each region is given by
    offsets (static or `index` values) and static sizes, one per dimension
    of its buffer; the two regions have the same sizes, and a region of the
    same buffer on both sides must be the same region (in place). Elements
    outside the target region are left as they are.

    Source and target are shared or fragment buffers (the block's threads
    scan together; a fragment must be taken whole), or both local buffers
    (each thread scans its own copy). Element types are integers or floats,
    the same on both sides; a float sum may combine in any order.

    ```mlir
    tile.scan sum %s[0, 0] [64, 64] to %s[0, 0] [64, 64] dim = 1
        : memref<64x64xf32, #tile.scope<shared>> to memref<64x64xf32, #tile.scope<shared>>
    tile.scan max %big[%r, 0] [8, 40] to %out[0, 0] [8, 40] dim = 0 {reverse}
        : memref<16x64xf32, #tile.scope<shared>> to memref<8x40xf32, #tile.scope<fragment>>
    ```
  }];
  let arguments = (ins
    Tile_ReduceKindAttr:$kind,
    Arg<AnyStaticShapeMemRef, "source buffer", [MemRead]>:$source,
    Variadic<Index>:$source_offsets,
    DenseI64ArrayAttr:$static_source_offsets,
    DenseI64ArrayAttr:$source_sizes,
    Arg<AnyStaticShapeMemRef, "target buffer", [MemWrite]>:$target,
    Variadic<Index>:$target_offsets,
    DenseI64ArrayAttr:$static_target_offsets,
    DenseI64ArrayAttr:$target_sizes,
    I64Attr:$dim,
    UnitAttr:$reverse
  );
  let assemblyFormat = [{
    custom<ReduceKind>($kind) $source ``
    custom<DynamicIndexList>($source_offsets, $static_source_offsets)
    $source_sizes `to` $target ``
    custom<DynamicIndexList>($target_offsets, $static_target_offsets)
    $target_sizes `dim` `=` $dim attr-dict `:` type($source) `to` type($target)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::llvm::SmallVector<::mlir::OpFoldResult> getMixedSourceOffsets();
    ::llvm::SmallVector<::mlir::OpFoldResult> getMixedTargetOffsets();
  }];
}

//===----------------------------------------------------------------------===//
// Loops
//===----------------------------------------------------------------------===//

def Tile_ParallelOp : Tile_Op<"parallel", [
    Tile_InKernel, RecursiveMemoryEffects,
    DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRanges"]>,
    SingleBlockImplicitTerminator<"::mlir::tile::YieldOp">,
    DeclareOpInterfaceMethods<LoopLikeOpInterface,
        ["getLoopInductionVars"]>
  ]> {
  let summary = "Element-wise loop nest over a tile";
  let description = [{
    Runs its body for every index `(i0, ..., in-1)` of an iteration space of
    static `extents`; the iterations are independent and may run in any
    order. The compiler spreads them over the block's threads following the
    layout of the fragments the body touches, and vectorizes the innermost
    dimension. The body uses upstream ops (`memref.load`, `arith.*`,
    `math.*`) on tile buffers.

    ```mlir
    tile.parallel (%i, %j) in (64, 64) {
      %x = memref.load %s[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
      ...
    }
    ```
  }];
  let arguments = (ins DenseI64ArrayAttr:$extents);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "::llvm::ArrayRef<int64_t>":$extents)>];
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
  }];
}

def Tile_PipelinedOp : Tile_Op<"pipelined", [
    Tile_InKernel, RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"::mlir::tile::YieldOp">,
    DeclareOpInterfaceMethods<LoopLikeOpInterface,
        ["getLoopInductionVars", "getLoopLowerBounds", "getLoopUpperBounds",
         "getLoopSteps"]>
  ]> {
  let summary = "Serial loop software-pipelined num_stages deep";
  let description = [{
    A serial loop from `lower` to `upper` by `step` whose iterations the
    compiler overlaps: copies of iteration `k + s` run while iteration `k`
    computes, for `s < num_stages`, with multi-buffered shared memory,
    asynchronous copies and the barriers they need. The result is the same
    as the plain serial loop. `order` and `stage` pin the schedule; both are
    indexed by the body's top-level ops that have side effects (copies,
    gemms, loads and stores, loops around them), in program order: pure
    ops such as index arithmetic are scheduled with their users and are
    not listed. `stage[i]` is the pipeline stage of op `i` and `order[i]`
    its position within an iteration of the steady state. Without `stage`,
    copies from global memory into shared buffers are at stage 0 and the
    other ops at `num_stages - 1`. A load runs as many iterations ahead of
    the ops that read its buffer as their stages differ; the other ops run
    in their own iteration, in `order`.

    On sm_90a a loop whose copies load whole tiles for wgmma gemms becomes a
    TMA pipeline with a producer warpgroup; the discardable attribute
    `tile.warp_specialize = false` keeps it in the kernel's own threads.

    ```mlir
    tile.pipelined %k = %c0 to %n step %c1 num_stages = 3 {
      tile.copy %A[%m, %k] to %As : ...
      tile.gemm %As, %Bs, %Cf : ...
    }
    ```
  }];
  let arguments = (ins
    Index:$lower, Index:$upper, Index:$step,
    I64Attr:$num_stages,
    OptionalAttr<DenseI64ArrayAttr>:$order,
    OptionalAttr<DenseI64ArrayAttr>:$stage
  );
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "::mlir::Value":$lower, "::mlir::Value":$upper,
                                 "::mlir::Value":$step, "int64_t":$numStages)>];
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
    ::mlir::Value getInductionVar() { return getBodyBlock().getArgument(0); }
    /// Top-level ops of the body with side effects: those `order` and
    /// `stage` list.
    int64_t getNumScheduledOps();
  }];
}

//===----------------------------------------------------------------------===//
// Layout annotation
//===----------------------------------------------------------------------===//

def Tile_AnnotateLayoutOp : Tile_Op<"annotate_layout", [
    Tile_InKernel, MemoryEffects<[MemWrite<Tile_LayoutResource>]>
  ]> {
  let summary = "Pin the layout of a fragment, shared buffer or global tensor";
  let description = [{
    Fixes the layout of `buffer` instead of letting `tile-infer-layouts`
    choose: a `#tile.fragment` for a fragment buffer (its shape must be the
    buffer's), a `#tile.swizzle` for a shared buffer. A `#tile.layout` on a
    global tensor (a contiguous memref of the layout's logical shape, a
    parameter of the function) places the tensor's elements in its memory:
    every access of the kernel goes through it (`tile-apply-tensor-layouts`).

    ```mlir
    tile.annotate_layout %as layout(#tile.swizzle<3, 4, 3>)
        : memref<128x64xf16, #tile.scope<shared>>
    tile.annotate_layout %dq layout(#tile.layout<[64, 16] -> [16, 64],
                                                 (d0, d1) -> (d1, d0)>)
        : memref<64x16xf32>
    ```
  }];
  let arguments = (ins
    AnyStaticShapeMemRef:$buffer,
    AnyAttrOf<[Tile_FragmentLayoutAttr, Tile_SwizzleAttr,
               Tile_TensorLayoutAttr]>:$layout
  );
  let assemblyFormat = "$buffer `layout` `(` $layout `)` attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

def Tile_AnnotateSafeValueOp : Tile_Op<"annotate_safe_value", [
    Tile_InKernel, MemoryEffects<[MemWrite<Tile_LayoutResource>]>
  ]> {
  let summary = "The value that out-of-bounds loads of a global tensor read";
  let description = [{
    Loads of the global tensor `buffer` in the enclosing kernel whose index
    falls outside the tensor read `value` (a constant of its element type)
    instead of zero: guarded `memref.load`s, and copies from it that give
    no pad value of their own. `tile-guard-memory-access` applies and then
    erases the annotation. TileLang's `T.annotate_safe_value`.

    ```mlir
    %ninf = arith.constant 0xFF800000 : f32
    tile.annotate_safe_value %A, %ninf : memref<?x?xf32>, f32
    ```
  }];
  let arguments = (ins AnyMemRef:$buffer, AnyTypeOf<[AnyInteger, Index, AnyFloat]>:$value);
  let assemblyFormat = "$buffer `,` $value attr-dict `:` type($buffer) `,` type($value)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The constant value.
    ::mlir::TypedAttr getValueAttr();
  }];
}

//===----------------------------------------------------------------------===//
// Placed buffers (between the GPU lowering's passes)
//===----------------------------------------------------------------------===//

def Tile_BindStorageOp : Tile_Op<"bind_storage", [Tile_InKernel, Pure]> {
  let summary = "A tile buffer bound to the storage a target placed it in";
  let description = [{
    Stands for a tile buffer (the `tile.alloc_*` it replaces) once
    `tile-place-buffers` gave it storage of the target, so that the tile ops
    that use it still see its tile type until `tile-lower-ops` lowers them;
    `tile-lower-ops` then replaces each one by its storage (shared and local
    buffers) or drops it (fragments, whose users are all lowered). The
    attributes hold what the later passes and the op patterns need to know
    about the storage:

    - a fragment (`#tile.scope<fragment>`) is a 1-d array of each thread's
      registers (`ceildiv(elements * replicate, threads)` of the buffer's
      element type) under its `layout`, the `#tile.fragment` that
      `tile-infer-layouts` chose; `scratch_offset`, written by
      `tile-plan-scratch`, is the byte offset in dynamic shared memory of the
      copy that the lowerings stage its elements through, for uses that read
      elements other threads hold;
    - a local buffer (`#tile.scope<local>`) is an array of the buffer's shape
      private to each thread;
    - a shared buffer (`#tile.scope<shared>`) is a view of the kernel's
      dynamic shared memory of the buffer's shape (a stage of a pipeline's
      multi-buffered ring is a subview of it). `planned_offset` is
      `tile-plan-shared`'s offset of the buffer in the kernel's planned
      region: `tile-plan-scratch` places that region after the pipelines'
      stage buffers and the scratch buffers, sets the view's byte offset and
      removes the attribute. `swizzle_chunks` (2-d buffers) XORs the 16-byte
      chunk of each column with the row, in a row of that many chunks.
      `panel_rows` and `panel_bytes` (the stage buffers of an sm_90a TMA
      pipeline, always together): the storage is the buffer's shared
      address, an `index`, and a R x C buffer is laid out as
      C * bytes / `panel_bytes` panels of `panel_rows` rows of
      `panel_bytes` bytes (128, 64 or 32), each swizzled with the pattern
      of that width (TMA's `CU_TENSOR_MAP_SWIZZLE_128B` / `64B` / `32B`,
      wgmma's descriptor layouts of the same names: `#tile.swizzle<3, 4,
      3>`, `<2, 4, 3>`, `<1, 4, 3>`). The TMA pipeline chooses the width
      once, from the row bytes of the tile (see `getPanelBytes`), and every
      later step reads it here.

    ```mlir
    %regs = memref.alloca() : memref<64xf32>
    %acc = tile.bind_storage %regs {layout = #tile.fragment<[64, 64], threads = 64, ...>}
        : memref<64xf32> to memref<64x64xf32, #tile.scope<fragment>>
    %view = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>>
        to memref<64x32xf16, #gpu.address_space<workgroup>>
    %as = tile.bind_storage %view {planned_offset = 0 : i64}
        : memref<64x32xf16, #gpu.address_space<workgroup>> to memref<64x32xf16, #tile.scope<shared>>
    ```
  }];
  let arguments = (ins
    AnyTypeOf<[AnyMemRef, Index]>:$storage,
    OptionalAttr<Tile_FragmentLayoutAttr>:$layout,
    OptionalAttr<I64Attr>:$scratch_offset,
    OptionalAttr<I64Attr>:$planned_offset,
    OptionalAttr<I64Attr>:$swizzle_chunks,
    OptionalAttr<I64Attr>:$panel_rows,
    OptionalAttr<I64Attr>:$panel_bytes
  );
  let results = (outs AnyStaticShapeMemRef:$result);
  let assemblyFormat =
      "$storage attr-dict `:` type($storage) `to` type($result)";
  let builders = [
    // Without attributes; the passes set those that apply.
    OpBuilder<(ins "::mlir::Type":$type, "::mlir::Value":$storage), [{
      build($_builder, $_state, type, storage, nullptr, nullptr, nullptr,
            nullptr, nullptr, nullptr);
    }]>
  ];
  let hasVerifier = 1;
}

#endif // TILE_DIALECT_TILE_IR_TILEOPS_TD
