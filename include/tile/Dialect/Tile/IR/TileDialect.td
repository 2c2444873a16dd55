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
