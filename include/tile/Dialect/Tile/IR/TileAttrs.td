//===- TileAttrs.td - Attributes of the tile dialect -------*- tablegen -*-===//

#ifndef TILE_DIALECT_TILE_IR_TILEATTRS_TD
#define TILE_DIALECT_TILE_IR_TILEATTRS_TD

include "tile/Dialect/Tile/IR/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

class Tile_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Tile_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Tile_Scope : I32EnumAttr<"Scope", "memory scope of a tile buffer", [
    I32EnumAttrCase<"Shared", 1, "shared">,
    I32EnumAttrCase<"Fragment", 2, "fragment">,
    I32EnumAttrCase<"Local", 3, "local">
  ]> {
  let cppNamespace = "::mlir::tile";
  let genSpecializedAttr = 0;
}

def Tile_ScopeAttr : EnumAttr<Tile_Dialect, Tile_Scope, "scope"> {
  let summary = "Memory scope of a tile buffer (a memref memory space)";
  let description = [{
    Used as the memory space of a `memref`:
    - `#tile.scope<shared>`: shared memory of a thread block (LDS on AMD).
    - `#tile.scope<fragment>`: registers; the tile is distributed over the
      threads of the block by a layout that `tile-infer-layouts` picks (or
      that `tile.annotate_layout` pins).
    - `#tile.scope<local>`: registers private to each thread; every thread
      holds the whole buffer.
    A memref without a memory space lives in global memory.
  }];
  let assemblyFormat = "`<` $value `>`";
}

def Tile_GemmWarpPolicy : I32EnumAttr<"GemmWarpPolicy",
    "how the warps of a block split a gemm's M x N output", [
    I32EnumAttrCase<"Square", 0, "square">,
    I32EnumAttrCase<"FullRow", 1, "full_row">,
    I32EnumAttrCase<"FullCol", 2, "full_col">
  ]> {
  let cppNamespace = "::mlir::tile";
  let genSpecializedAttr = 0;
}

def Tile_GemmWarpPolicyAttr
    : EnumAttr<Tile_Dialect, Tile_GemmWarpPolicy, "policy"> {
  let summary = "Warp partition of a gemm";
  let description = [{
    `square` splits M x N among the warps as evenly as the shape allows;
    `full_row` gives each warp whole rows of the output (warps stacked
    along M); `full_col` gives each warp whole columns (warps along N).
  }];
  let assemblyFormat = "`<` $value `>`";
}

def Tile_ReduceKind : I32EnumAttr<"ReduceKind", "reduction kind", [
    I32EnumAttrCase<"Sum", 0, "sum">,
    I32EnumAttrCase<"Max", 1, "max">,
    I32EnumAttrCase<"Min", 2, "min">,
    I32EnumAttrCase<"AbsSum", 3, "abssum">,
    I32EnumAttrCase<"AbsMax", 4, "absmax">
  ]> {
  let cppNamespace = "::mlir::tile";
  let genSpecializedAttr = 0;
}

def Tile_ReduceKindAttr : EnumAttr<Tile_Dialect, Tile_ReduceKind, "reduce"> {
  let summary = "Kind of a tile.reduce";
  let assemblyFormat = "`<` $value `>`";
}

def Tile_CopyInst : I32EnumAttr<"CopyInst",
    "instruction family a tile.copy should use", [
    I32EnumAttrCase<"Auto", 0, "auto">,
    I32EnumAttrCase<"Vector", 1, "vector">,
    I32EnumAttrCase<"CpAsync", 2, "cp_async">,
    I32EnumAttrCase<"Tma", 3, "tma">,
    I32EnumAttrCase<"LdMatrix", 4, "ldmatrix">,
    I32EnumAttrCase<"StMatrix", 5, "stmatrix">
  ]> {
  let cppNamespace = "::mlir::tile";
  let genSpecializedAttr = 0;
}

def Tile_CopyInstAttr : EnumAttr<Tile_Dialect, Tile_CopyInst, "copy_inst"> {
  let summary = "Instruction hint of a tile.copy";
  let description = [{
    `auto` lets the compiler choose. `vector`: plain (vectorized) loads and
    stores. `cp_async`: global to shared through `cp.async` (NVIDIA sm_80+).
    `tma`: global to/from shared through the tensor memory accelerator
    (NVIDIA sm_90a). `ldmatrix`: shared to fragment. `stmatrix`: fragment to
    shared (sm_90). Target legality is checked by `tile-verify-target`.
  }];
  let assemblyFormat = "`<` $value `>`";
}

def Tile_MmaKind : I32EnumAttr<"MmaKind",
    "the tensor-core instruction family of a gemm", [
    I32EnumAttrCase<"MmaSync", 0, "mma_sync">,
    I32EnumAttrCase<"Wgmma", 1, "wgmma">,
    I32EnumAttrCase<"Mfma", 2, "mfma">
  ]> {
  let cppNamespace = "::mlir::tile";
  let genSpecializedAttr = 0;
}

//===----------------------------------------------------------------------===//
// Layouts
//===----------------------------------------------------------------------===//

def Tile_FragmentLayoutAttr : Tile_Attr<"FragmentLayout", "fragment"> {
  let summary = "Distribution of a register tile over the threads of a block";
  let description = [{
    Maps each element of a tile of shape `shape` to a (thread, register)
    pair. `map` is an affine map from the tile's indices to two results:
    the thread that owns the element and the index of the element among
    that thread's registers. `threads` is the number of threads that hold
    the tile; with `replicate = r` the tile is held `r` times over, every
    copy at the register the map gives. Without an inverse the copies are
    the owner `t` given by the map (`0 <= t < threads / r`) and the threads
    `t + k * threads / r` for `0 < k < r`. With an inverse, the inverse
    places them: it maps every slot (thread `t < threads`, register
    `q < elements * r / threads`) to the element held there, and the map's
    thread is the owner, the copy that writes the element out. The row
    layout of an accumulator (each row held by the threads that hold its
    columns) is such a layout.

    The optional `inverse` maps (thread, register) back to the element's
    indices; the verifier checks that it inverts `map` on every owned slot,
    and with `replicate > 1` that it places each element `r` times at its
    register. Lowerings use it to let each thread walk its own registers.

    Example, the C fragment of one m16n8 `mma.sync` tile held by one warp:
    ```mlir
    #tile.fragment<[16, 8], threads = 32,
                   (d0, d1) -> ((d0 mod 8) * 4 + (d1 mod 8) floordiv 2,
                                (d1 mod 2) + (d0 floordiv 8) * 2)>
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t", "tile shape">:$shape,
    "int64_t":$threads,
    "::mlir::AffineMap":$map,
    DefaultValuedParameter<"int64_t", "1">:$replicate,
    OptionalParameter<"::mlir::AffineMap">:$inverse
  );
  // <[shape], threads = T, map[, replicate = r][, inverse = map]>
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Registers each thread holds.
    int64_t getNumRegisters() const;
    /// (thread, register) of the element at `indices`, for the owner copy.
    std::pair<int64_t, int64_t> apply(::llvm::ArrayRef<int64_t> indices) const;
    /// The indices of the element in register `reg` of `thread` (by the
    /// inverse, which the layout must have); -1 where it does not evaluate.
    ::llvm::SmallVector<int64_t> applyInverse(int64_t thread,
                                              int64_t reg) const;
  }];
}

def Tile_SwizzleAttr : Tile_Attr<"Swizzle", "swizzle"> {
  let summary = "XOR swizzle of a shared-memory buffer";
  let description = [{
    Permutes the byte offsets of a shared buffer to avoid bank conflicts and
    to match the layouts that `ldmatrix`, `wgmma` and TMA expect. With
    parameters `<bits, base, shift>`, a byte offset `o` is stored at
    `o ^ ((o >> shift) & (((1 << bits) - 1) << base))`: `bits` bits taken
    `shift` bits above bit `base` are XORed into the bits at `base`.
    `#tile.swizzle<3, 4, 3>` is the 128-byte swizzle of TMA and wgmma
    (16-byte chunks permuted within 128-byte rows), `<2, 4, 3>` the
    64-byte one and `<1, 4, 3>` the 32-byte one.
  }];
  let parameters = (ins "int64_t":$bits, "int64_t":$base, "int64_t":$shift);
  let assemblyFormat = "`<` $bits `,` $base `,` $shift `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The swizzled byte offset of `offset`.
    int64_t apply(int64_t offset) const;
  }];
}

def Tile_TensorLayoutAttr : Tile_Attr<"TensorLayout", "layout"> {
  let summary = "Placement of a global tensor's elements in its memory";
  let description = [{
    TileLang's `T.Layout(shape, lambda i, j, ...: [...])` on a global
    tensor: the element at logical index `(i0, ..., in-1)` of a tensor of
    shape `shape` lives at index `map(i0, ..., in-1)` of a row-major array
    of shape `physical`, in the same memory (both shapes hold the same
    number of elements). A kernel that pins it with `tile.annotate_layout`
    reads and writes the tensor through that placement
    (`tile-apply-tensor-layouts`); the caller passes the memory as a tensor
    of the logical shape.

    The verifier checks that the map takes `rank(shape)` dims and gives
    `rank(physical)` results, divides by positive constants only, and, for
    tensors of at most 2^20 elements, that it sends every element to its
    own index inside `physical`.

    Example, the 8x8 GEMM fragment order TileLang's flash-attention
    backward keeps its dQ accumulator in:
    ```mlir
    #tile.layout<[64, 16] -> [8, 2, 2, 32],
                 (d0, d1) -> (d0 floordiv 8, d1 floordiv 8, d1 mod 2,
                              (d0 mod 8) * 4 + (d1 mod 8) floordiv 2)>
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t", "logical shape">:$shape,
    ArrayRefParameter<"int64_t", "physical shape">:$physical,
    "::mlir::AffineMap":$map
  );
  // <[shape] -> [physical], map>
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The map from logical indices to the row-major offset of the element
    /// in the physical array.
    ::mlir::AffineMap getLinearMap() const;
  }];
}

//===----------------------------------------------------------------------===//
// Instruction choices
//===----------------------------------------------------------------------===//

def Tile_MmaAttr : Tile_Attr<"Mma", "mma"> {
  let summary = "The tensor-core instruction, its shape and warp partition of a gemm";
  let description = [{
    What `tile-select-mma` chose for one `tile.gemm` / `tile.gemm_sp` (its
    `mma` attribute); every later step reads it (`tile-infer-layouts` the
    accumulator layout, `tile-lower-ops` the instruction and its shape, the
    TMA pipeline which gemms it feeds) instead of deciding again.

    - `kind`: `mma_sync` (a warp's m16n8kK `mma.sync`, sm_80 and later) or
      `wgmma` (a warpgroup's asynchronous m64nNkK `wgmma.mma_async` from
      shared-memory descriptors, sm_90a), or `mfma` (a 64-lane wavefront's
      `v_mfma_*` on AMD gfx942: `warps` then counts wavefronts).
    - `mMnNkK`: the shape of one instruction: m16n8k8 (tf32), m16n8k16
      (16-bit inputs) or m16n8k32 (8-bit) for `mma_sync`; m64nNk16 (16-bit)
      or m64nNk32 (fp8), N a multiple of 8 up to 256, for `wgmma`; m32n32k8 /
      m16n16k16 (16-bit inputs) or m32n32k16 / m16n16k32 (8-bit) for `mfma`
      (see `getMfmaAccumulatorLayout`).
    - `warps = [wm, wn]`: the block's warps split the M x N output into
      wm x wn warp tiles; with `repeats = r` (r > 1, wn = 1) each warpgroup
      takes r blocks of 64 rows and each warp r 16-row strips 64 rows apart
      (see the accumulator layout of `getMmaSyncAccumulatorLayout`).

    ```mlir
    tile.gemm %a, %b, %c {mma = #tile.mma<wgmma, m64n128k16, warps = [4, 1]>}
    tile.gemm %a, %b, %c {mma = #tile.mma<mma_sync, m16n8k16, warps = [2, 2]>}
    ```
  }];
  let parameters = (ins
    "::mlir::tile::MmaKind":$kind,
    "int64_t":$m,
    "int64_t":$n,
    "int64_t":$k,
    "int64_t":$warpsM,
    "int64_t":$warpsN,
    DefaultValuedParameter<"int64_t", "1">:$repeats
  );
  // <kind, mMnNkK, warps = [wm, wn][, repeats = r]>
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

#endif // TILE_DIALECT_TILE_IR_TILEATTRS_TD
