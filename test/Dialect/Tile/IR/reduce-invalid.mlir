// RUN: tile-opt %s -split-input-file -verify-diagnostics

func.func @unknown_kind() {
  tile.kernel (%bx) in (1) threads(128) {
    %s = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    %m = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    // expected-error @below {{unknown reduction 'prod'; expected sum, max, min, abssum or absmax}}
    tile.reduce prod %s into %m dim = 1 : memref<64x64xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @global_source(%s: memref<64x64xf32>) {
  tile.kernel (%bx) in (1) threads(128) {
    %m = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.reduce' op source must be a shared or fragment or local buffer (memory space #tile.scope<...>), got a global memref 'memref<64x64xf32>'}}
    tile.reduce sum %s into %m dim = 1 : memref<64x64xf32> into memref<64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @global_target(%m: memref<64xf32>) {
  tile.kernel (%bx) in (1) threads(128) {
    %s = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.reduce' op target must be a shared or fragment or local buffer (memory space #tile.scope<...>), got a global memref 'memref<64xf32>'}}
    tile.reduce sum %s into %m dim = 1 : memref<64x64xf32, #tile.scope<fragment>> into memref<64xf32>
  }
  return
}

// -----

func.func @rank_0_source(%s: memref<f32, #tile.scope<local>>) {
  tile.kernel (%bx) in (1) threads(128) {
    %m = tile.alloc_local : memref<1xf32, #tile.scope<local>>
    // expected-error @below {{'tile.reduce' op source must have rank >= 1}}
    tile.reduce sum %s into %m dim = 0 : memref<f32, #tile.scope<local>> into memref<1xf32, #tile.scope<local>>
  }
  return
}

// -----

func.func @dim_too_large() {
  tile.kernel (%bx) in (1) threads(128) {
    %s = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    %m = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.reduce' op dim 2 is out of range for a source of rank 2}}
    tile.reduce sum %s into %m dim = 2 : memref<64x64xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @dim_negative() {
  tile.kernel (%bx) in (1) threads(128) {
    %s = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    %m = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.reduce' op dim -1 is out of range for a source of rank 2}}
    tile.reduce sum %s into %m dim = -1 : memref<64x64xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @target_shape() {
  tile.kernel (%bx) in (1) threads(128) {
    %s = tile.alloc_fragment : memref<64x32xf32, #tile.scope<fragment>>
    %m = tile.alloc_fragment : memref<32xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.reduce' op target shape must be [64] (source shape without dim 1), got [32]}}
    tile.reduce max %s into %m dim = 1 : memref<64x32xf32, #tile.scope<fragment>> into memref<32xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// Keeping the reduced dimension as a unit dimension is not accepted.
func.func @target_keeps_dim() {
  tile.kernel (%bx) in (1) threads(128) {
    %s = tile.alloc_fragment : memref<64x32xf32, #tile.scope<fragment>>
    %m = tile.alloc_fragment : memref<64x1xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.reduce' op target shape must be [64] (source shape without dim 1), got [64, 1]}}
    tile.reduce max %s into %m dim = 1 : memref<64x32xf32, #tile.scope<fragment>> into memref<64x1xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @one_d_into_scalar() {
  tile.kernel (%bx) in (1) threads(128) {
    %s = tile.alloc_local : memref<16xf32, #tile.scope<local>>
    %m = tile.alloc_local : memref<2xf32, #tile.scope<local>>
    // expected-error @below {{'tile.reduce' op target shape must be [1] (source shape without dim 0), got [2]}}
    tile.reduce sum %s into %m dim = 0 : memref<16xf32, #tile.scope<local>> into memref<2xf32, #tile.scope<local>>
  }
  return
}

// -----

func.func @element_types() {
  tile.kernel (%bx) in (1) threads(128) {
    %s = tile.alloc_fragment : memref<64x64xf16, #tile.scope<fragment>>
    %m = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.reduce' op source and target element types differ: 'f16' vs 'f32'}}
    tile.reduce sum %s into %m dim = 1 : memref<64x64xf16, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @index_elements() {
  tile.kernel (%bx) in (1) threads(128) {
    %s = tile.alloc_local : memref<8xindex, #tile.scope<local>>
    %m = tile.alloc_local : memref<1xindex, #tile.scope<local>>
    // expected-error @below {{'tile.reduce' op reduces integer or float tiles, got 'index'}}
    tile.reduce sum %s into %m dim = 0 : memref<8xindex, #tile.scope<local>> into memref<1xindex, #tile.scope<local>>
  }
  return
}

// -----

func.func @clear_not_bool() {
  tile.kernel (%bx) in (1) threads(128) {
    %s = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    %m = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.reduce' op attribute 'clear' failed to satisfy constraint: bool attribute}}
    tile.reduce sum %s into %m dim = 1 {clear = 0 : i32} : memref<64x64xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
  }
  return
}
