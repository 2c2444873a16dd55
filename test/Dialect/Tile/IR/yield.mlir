// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// tile.yield terminates the bodies of tile.kernel, tile.parallel and
// tile.pipelined. It is implicit in their custom form (inserted by the
// parser, not printed) and explicit in the generic form.

// CHECK-LABEL: func.func @implicit_yield
// CHECK-NOT: tile.yield
// GENERIC-LABEL: sym_name = "implicit_yield"
func.func @implicit_yield(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: tile.kernel
  // GENERIC: "tile.kernel"
  tile.kernel (%bx) in (%n) threads(32) {
    // CHECK: tile.parallel
    // GENERIC: "tile.parallel"
    tile.parallel (%i) in (4) {
    // GENERIC: "tile.yield"() : () -> ()
    }
    // CHECK: tile.pipelined
    // GENERIC: "tile.pipelined"
    tile.pipelined %k = %c0 to %n step %c1 num_stages = 2 {
    // GENERIC: "tile.yield"() : () -> ()
    }
  // GENERIC: "tile.yield"() : () -> ()
  }
  // CHECK: return
  return
}

// An explicit tile.yield in the custom form is accepted and elided when
// printed; so is a yield with attributes in the generic form.
// CHECK-LABEL: func.func @explicit_yield
// CHECK-NOT: tile.yield
// CHECK: return
// GENERIC-LABEL: sym_name = "explicit_yield"
func.func @explicit_yield(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // GENERIC: "tile.kernel"
  tile.kernel (%bx) in (%n) threads(32) {
    // GENERIC: "tile.parallel"
    tile.parallel (%i) in (4) {
      // GENERIC: "tile.yield"() : () -> ()
      tile.yield
    }
    // GENERIC: "tile.pipelined"
    tile.pipelined %k = %c0 to %n step %c1 num_stages = 2 {
      // GENERIC: "tile.yield"() : () -> ()
      "tile.yield"() : () -> ()
    }
    // GENERIC: "tile.yield"() : () -> ()
    tile.yield
  }
  return
}

// A yield with discardable attributes must be printed to keep them.
// CHECK-LABEL: func.func @yield_with_attributes
// GENERIC-LABEL: sym_name = "yield_with_attributes"
func.func @yield_with_attributes() {
  tile.kernel (%bx) in (1) threads(32) {
    // CHECK: tile.yield {tag}
    // GENERIC: "tile.yield"() {tag} : () -> ()
    tile.yield {tag}
  }
  return
}
