//===- TileDialect.td - The tile dialect -------------------*- tablegen -*-===//
//
// The `tile` dialect: TileLang's programming model as MLIR operations.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_IR_TILEDIALECT_TD
#define TILE_DIALECT_TILE_IR_TILEDIALECT_TD

include "mlir/IR/OpBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::mlir::tile";
  let summary = "Tile-level GPU kernels: blocks that move and multiply tiles";
  let description = [{
    A `tile` program is a grid of thread blocks (`tile.kernel`). Each block
    allocates buffers in shared memory (`tile.alloc_shared`), in registers
    distributed over its threads (`tile.alloc_fragment`) or private to each
    thread (`tile.alloc_local`), moves tiles between global memory and those
    buffers (`tile.copy`) and computes on them (`tile.gemm`, `tile.reduce`,
    `tile.parallel`, ...). Tile operations have block-cooperative,
    synchronous semantics: the compiler decides which thread does what,
    inserts barriers and picks instructions.

    Buffers are ordinary `memref`s whose memory space is a `#tile.scope`
    attribute, so upstream `memref`, `vector` and `arith` operations apply
    to them unchanged. A memref without a memory space is global memory.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect"
  ];
  let useDefaultAttributePrinterParser = 1;
  let hasCanonicalizer = 0;
  // Every `tile.*` attribute that ops and function arguments carry between
  // passes (verifyOperationAttribute / verifyRegionArgAttribute check each
  // value and where it sits, and refuse undeclared names):
  // - front end / tile-apply-pass-configs: `disable_tma` (tile.copy),
  //   `warp_specialize` (tile.pipelined);
  // - tile-infer-layouts: `layout` (tile.alloc_fragment), a #tile.fragment;
  // - the NVIDIA lowering between its passes (a placed buffer's storage is
  //   a tile.bind_storage, whose attributes are its own):
  //   `scratch_offset` (a reduction's, sparse gemm's or reducer's shared
  //   scratch), `wgmma_pending` (tile.gemm), `shared_bytes` and
  //   `producer_threads` (tile.kernel), `consumer_threads` (the consumers'
  //   scf.if), and `tma` on the function argument that carries a TMA
  //   descriptor;
  // - the NVIDIA lowering to tile-gpu-module-to-binary: `min_ptx` (an
  //   llvm.inline_asm whose instruction needs that PTX ISA version, 81 for
  //   8.1), which raises the kernel's PTX version and drops the mark.
  let discardableAttrs = (ins
    "::mlir::UnitAttr":$disable_tma,
    "::mlir::BoolAttr":$warp_specialize,
    "::mlir::Attribute":$layout,
    "::mlir::IntegerAttr":$scratch_offset,
    "::mlir::UnitAttr":$wgmma_pending,
    "::mlir::IntegerAttr":$shared_bytes,
    "::mlir::IntegerAttr":$producer_threads,
    "::mlir::IntegerAttr":$consumer_threads,
    "::mlir::DictionaryAttr":$tma,
    "::mlir::IntegerAttr":$min_ptx
  );
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
}

// Integers in tile ops are signless, as in arith: what their bits mean is
// up to the ops (TileLang's uint8 is i8). Checks the element types of
// memref operands and results and the types of scalar operands.
def Tile_SignlessIntegers : NativeOpTrait<"SignlessIntegers"> {
  let cppNamespace = "::mlir::tile";
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, !listconcat(traits, [Tile_SignlessIntegers])>;

#endif // TILE_DIALECT_TILE_IR_TILEDIALECT_TD
