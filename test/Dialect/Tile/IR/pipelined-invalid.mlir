// RUN: tile-opt %s -split-input-file -verify-diagnostics

func.func @zero_stages(%lb: index, %ub: index, %st: index) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.pipelined' op num_stages must be >= 1, got 0}}
    tile.pipelined %k = %lb to %ub step %st num_stages = 0 {
    }
  }
  return
}

// -----

func.func @negative_stages(%lb: index, %ub: index, %st: index) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.pipelined' op num_stages must be >= 1, got -2}}
    tile.pipelined %k = %lb to %ub step %st num_stages = -2 {
    }
  }
  return
}

// -----

// The ODS region constraint fires before the op's own "needs a body".
func.func @empty_region(%lb: index) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.pipelined' op region #0 ('body') failed to verify constraint: region with 1 blocks}}
    "tile.pipelined"(%lb, %lb, %lb) <{num_stages = 2 : i64}> ({
    }) : (index, index, index) -> ()
  }
  return
}

// -----

func.func @two_ivs(%lb: index) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.pipelined' op body must take one index induction variable}}
    "tile.pipelined"(%lb, %lb, %lb) <{num_stages = 2 : i64}> ({
    ^bb0(%i: index, %j: index):
      "tile.yield"() : () -> ()
    }) : (index, index, index) -> ()
  }
  return
}

// -----

func.func @iv_type(%lb: index) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.pipelined' op body must take one index induction variable}}
    "tile.pipelined"(%lb, %lb, %lb) <{num_stages = 2 : i64}> ({
    ^bb0(%i: i32):
      "tile.yield"() : () -> ()
    }) : (index, index, index) -> ()
  }
  return
}

// -----

func.func @zero_step(%lb: index, %ub: index) {
  %c0 = arith.constant 0 : index
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.pipelined' op step must be positive, got 0}}
    tile.pipelined %k = %lb to %ub step %c0 num_stages = 2 {
    }
  }
  return
}

// -----

func.func @negative_step(%lb: index, %ub: index) {
  %cm1 = arith.constant -1 : index
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.pipelined' op step must be positive, got -1}}
    tile.pipelined %k = %lb to %ub step %cm1 num_stages = 2 {
    }
  }
  return
}

// -----

func.func @order_size(%A: memref<?x?xf16>, %lb: index, %ub: index, %st: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    // expected-error @below {{'tile.pipelined' op order must have one entry per op of the body with side effects (2), got 3}}
    tile.pipelined %k = %lb to %ub step %st num_stages = 2 attributes {order = array<i64: 0, 1, 2>} {
      tile.copy %A[0, %k] to %As : memref<?x?xf16> to memref<64x32xf16, #tile.scope<shared>>
      tile.clear %As : memref<64x32xf16, #tile.scope<shared>>
    }
  }
  return
}

// -----

func.func @stage_size(%A: memref<?x?xf16>, %lb: index, %ub: index, %st: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    // expected-error @below {{'tile.pipelined' op stage must have one entry per op of the body with side effects (2), got 1}}
    tile.pipelined %k = %lb to %ub step %st num_stages = 2 attributes {stage = array<i64: 0>} {
      tile.copy %A[0, %k] to %As : memref<?x?xf16> to memref<64x32xf16, #tile.scope<shared>>
      tile.clear %As : memref<64x32xf16, #tile.scope<shared>>
    }
  }
  return
}

// -----

// An empty body has no ops to order.
func.func @order_empty_body(%lb: index, %ub: index, %st: index) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.pipelined' op order must have one entry per op of the body with side effects (0), got 1}}
    tile.pipelined %k = %lb to %ub step %st num_stages = 2 attributes {order = array<i64: 0>} {
    }
  }
  return
}

// -----

func.func @order_duplicate(%A: memref<?x?xf16>, %lb: index, %ub: index, %st: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    // expected-error @below {{'tile.pipelined' op order must be a permutation of 0..1}}
    tile.pipelined %k = %lb to %ub step %st num_stages = 2 attributes {order = array<i64: 1, 1>} {
      tile.copy %A[0, %k] to %As : memref<?x?xf16> to memref<64x32xf16, #tile.scope<shared>>
      tile.clear %As : memref<64x32xf16, #tile.scope<shared>>
    }
  }
  return
}

// -----

func.func @order_out_of_range(%A: memref<?x?xf16>, %lb: index, %ub: index, %st: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    // expected-error @below {{'tile.pipelined' op order must be a permutation of 0..2}}
    tile.pipelined %k = %lb to %ub step %st num_stages = 2 attributes {order = array<i64: 0, 3, 1>} {
      tile.copy %A[0, %k] to %As : memref<?x?xf16> to memref<64x32xf16, #tile.scope<shared>>
      tile.clear %As : memref<64x32xf16, #tile.scope<shared>>
      tile.clear %As : memref<64x32xf16, #tile.scope<shared>>
    }
  }
  return
}

// -----

func.func @order_negative(%A: memref<?x?xf16>, %lb: index, %ub: index, %st: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    // expected-error @below {{'tile.pipelined' op order must be a permutation of 0..1}}
    tile.pipelined %k = %lb to %ub step %st num_stages = 2 attributes {order = array<i64: -1, 0>} {
      tile.copy %A[0, %k] to %As : memref<?x?xf16> to memref<64x32xf16, #tile.scope<shared>>
      tile.clear %As : memref<64x32xf16, #tile.scope<shared>>
    }
  }
  return
}

// -----

func.func @stage_too_large(%A: memref<?x?xf16>, %lb: index, %ub: index, %st: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    // expected-error @below {{'tile.pipelined' op stage 3 is out of range [0, 3)}}
    tile.pipelined %k = %lb to %ub step %st num_stages = 3 attributes {stage = array<i64: 0, 3>} {
      tile.copy %A[0, %k] to %As : memref<?x?xf16> to memref<64x32xf16, #tile.scope<shared>>
      tile.clear %As : memref<64x32xf16, #tile.scope<shared>>
    }
  }
  return
}

// -----

func.func @stage_negative(%A: memref<?x?xf16>, %lb: index, %ub: index, %st: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    // expected-error @below {{'tile.pipelined' op stage -1 is out of range [0, 2)}}
    tile.pipelined %k = %lb to %ub step %st num_stages = 2 attributes {stage = array<i64: -1, 0>} {
      tile.copy %A[0, %k] to %As : memref<?x?xf16> to memref<64x32xf16, #tile.scope<shared>>
      tile.clear %As : memref<64x32xf16, #tile.scope<shared>>
    }
  }
  return
}

// -----

// An inherent attribute of the wrong kind is rejected, not silently dropped.
func.func @order_attr_kind(%lb: index, %ub: index, %st: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    // expected-error @below {{'tile.pipelined' op attribute 'order' failed to satisfy constraint: i64 dense array attribute}}
    tile.pipelined %k = %lb to %ub step %st num_stages = 2 attributes {order = [0]} {
      tile.clear %As : memref<64x32xf16, #tile.scope<shared>>
    }
  }
  return
}

// -----

func.func @stage_attr_kind(%lb: index, %ub: index, %st: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    // expected-error @below {{'tile.pipelined' op attribute 'stage' failed to satisfy constraint: i64 dense array attribute}}
    tile.pipelined %k = %lb to %ub step %st num_stages = 2 attributes {stage = 0 : i64} {
      tile.clear %As : memref<64x32xf16, #tile.scope<shared>>
    }
  }
  return
}

// -----

// expected-note @below {{prior use here}}
func.func @non_index_bound(%lb: i32, %ub: index, %st: index) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{use of value '%lb' expects different type than prior uses: 'index' vs 'i32'}}
    tile.pipelined %k = %lb to %ub step %st num_stages = 2 {
    }
  }
  return
}

// -----

func.func @missing_num_stages(%lb: index, %ub: index, %st: index) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{expected 'num_stages'}}
    tile.pipelined %k = %lb to %ub step %st {
    }
  }
  return
}
