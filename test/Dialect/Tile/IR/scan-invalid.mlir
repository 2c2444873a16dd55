// RUN: tile-opt %s -split-input-file -verify-diagnostics

func.func @unknown_kind() {
  tile.kernel (%bx) in (1) threads(128) {
    %s = tile.alloc_shared : memref<64xf32, #tile.scope<shared>>
    // expected-error @below {{unknown reduction 'prod'; expected sum, max, min, abssum or absmax}}
    tile.scan prod %s[0] [64] to %s[0] [64] dim = 0 : memref<64xf32, #tile.scope<shared>> to memref<64xf32, #tile.scope<shared>>
  }
  return
}

// -----

func.func @min_kind() {
  tile.kernel (%bx) in (1) threads(128) {
    %s = tile.alloc_shared : memref<64xf32, #tile.scope<shared>>
    // expected-error @below {{'tile.scan' op scans by sum or max, got min}}
    tile.scan min %s[0] [64] to %s[0] [64] dim = 0 : memref<64xf32, #tile.scope<shared>> to memref<64xf32, #tile.scope<shared>>
  }
  return
}

// -----

func.func @global_source(%g: memref<64xf32>) {
  tile.kernel (%bx) in (1) threads(128) {
    %s = tile.alloc_shared : memref<64xf32, #tile.scope<shared>>
    // expected-error @below {{'tile.scan' op source must be a shared or fragment or local buffer (memory space #tile.scope<...>), got a global memref 'memref<64xf32>'}}
    tile.scan sum %g[0] [64] to %s[0] [64] dim = 0 : memref<64xf32> to memref<64xf32, #tile.scope<shared>>
  }
  return
}

// -----

func.func @local_to_shared() {
  tile.kernel (%bx) in (1) threads(128) {
    %l = tile.alloc_local : memref<64xf32, #tile.scope<local>>
    %s = tile.alloc_shared : memref<64xf32, #tile.scope<shared>>
    // expected-error @below {{'tile.scan' op scans a block's tile (shared or fragment buffers) or each thread's own copy (local buffers on both sides), not local to shared}}
    tile.scan sum %l[0] [64] to %s[0] [64] dim = 0 : memref<64xf32, #tile.scope<local>> to memref<64xf32, #tile.scope<shared>>
  }
  return
}

// -----

func.func @element_types() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64xf32, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<64xf16, #tile.scope<shared>>
    // expected-error @below {{'tile.scan' op source and target element types differ: 'f32' vs 'f16'}}
    tile.scan sum %a[0] [64] to %b[0] [64] dim = 0 : memref<64xf32, #tile.scope<shared>> to memref<64xf16, #tile.scope<shared>>
  }
  return
}

// -----

func.func @index_elements() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64xindex, #tile.scope<shared>>
    // expected-error @below {{'tile.scan' op scans tiles of 8- to 64-bit integers or of f16, bf16, f32 or f64, got 'index'}}
    tile.scan sum %a[0] [64] to %a[0] [64] dim = 0 : memref<64xindex, #tile.scope<shared>> to memref<64xindex, #tile.scope<shared>>
  }
  return
}

// -----

func.func @ranks() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64xf32, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<1x64xf32, #tile.scope<shared>>
    // expected-error @below {{'tile.scan' op source and target must have the same rank >= 1, got 1 and 2}}
    tile.scan sum %a[0] [64] to %b[0, 0] [1, 64] dim = 0 : memref<64xf32, #tile.scope<shared>> to memref<1x64xf32, #tile.scope<shared>>
  }
  return
}

// -----

func.func @region_outside() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<8x64xf32, #tile.scope<shared>>
    // expected-error @below {{'tile.scan' op source region (offset 4, size 8 in dim 0) does not fit in the shared buffer 'memref<8x64xf32, #tile.scope<shared>>'}}
    tile.scan sum %a[4, 0] [8, 64] to %a[4, 0] [8, 64] dim = 0 : memref<8x64xf32, #tile.scope<shared>> to memref<8x64xf32, #tile.scope<shared>>
  }
  return
}

// -----

func.func @sizes_differ() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<8x64xf32, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<8x64xf32, #tile.scope<shared>>
    // expected-error @below {{'tile.scan' op source region [8, 32] and target region [4, 64] must have the same sizes}}
    tile.scan sum %a[0, 0] [8, 32] to %b[0, 0] [4, 64] dim = 1 : memref<8x64xf32, #tile.scope<shared>> to memref<8x64xf32, #tile.scope<shared>>
  }
  return
}

// -----

func.func @dim_out_of_range() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<8x64xf32, #tile.scope<shared>>
    // expected-error @below {{'tile.scan' op dim 2 is out of range for regions of rank 2}}
    tile.scan sum %a[0, 0] [8, 64] to %a[0, 0] [8, 64] dim = 2 : memref<8x64xf32, #tile.scope<shared>> to memref<8x64xf32, #tile.scope<shared>>
  }
  return
}

// -----

func.func @part_of_fragment() {
  tile.kernel (%bx) in (1) threads(128) {
    %f = tile.alloc_fragment : memref<8x64xf32, #tile.scope<fragment>>
    %s = tile.alloc_shared : memref<8x32xf32, #tile.scope<shared>>
    // expected-error @below {{'tile.scan' op scans a fragment whole: the source region [8, 32] must be the fragment's shape [8, 64]}}
    tile.scan sum %f[0, 0] [8, 32] to %s[0, 0] [8, 32] dim = 1 : memref<8x64xf32, #tile.scope<fragment>> to memref<8x32xf32, #tile.scope<shared>>
  }
  return
}

// -----

func.func @overlapping_regions() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<8x64xf32, #tile.scope<shared>>
    // expected-error @below {{'tile.scan' op scans a buffer in place only over one region: the source and target offsets differ}}
    tile.scan sum %a[0, 0] [8, 32] to %a[0, 16] [8, 32] dim = 1 : memref<8x64xf32, #tile.scope<shared>> to memref<8x64xf32, #tile.scope<shared>>
  }
  return
}

// -----

func.func @outside_kernel() {
  %a = memref.alloca() : memref<64xf32, #tile.scope<shared>>
  // expected-error @below {{'tile.scan' op must be inside a tile.kernel}}
  tile.scan sum %a[0] [64] to %a[0] [64] dim = 0 : memref<64xf32, #tile.scope<shared>> to memref<64xf32, #tile.scope<shared>>
  return
}
