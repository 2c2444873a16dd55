// RUN: tile-opt %s -split-input-file -verify-diagnostics

#rows = #tile.fragment<[4, 32], threads = 32, (d0, d1) -> (d1, d0), inverse = (d0, d1) -> (d1, d0)>

func.func @outside_kernel(%m: memref<4xf32>) {
  // expected-error @below {{'tile.bind_storage' op must be inside a tile.kernel}}
  %b = tile.bind_storage %m : memref<4xf32> to memref<4xf32, #tile.scope<local>>
  return
}

// -----

func.func @not_a_tile_buffer(%m: memref<4xf32>) {
  tile.kernel (%bx) in (1) threads(32) {
    // expected-error @below {{result must be a tile buffer (memory space #tile.scope<...>), got 'memref<4xf32>'}}
    %b = tile.bind_storage %m : memref<4xf32> to memref<4xf32>
  }
  return
}

// -----

#rows = #tile.fragment<[4, 32], threads = 32, (d0, d1) -> (d1, d0), inverse = (d0, d1) -> (d1, d0)>
func.func @layout_on_shared(%m: memref<4x32xf32, 3>) {
  tile.kernel (%bx) in (1) threads(32) {
    // expected-error @below {{'layout' belongs to fragment buffers, not to a shared buffer}}
    %b = tile.bind_storage %m {layout = #rows} : memref<4x32xf32, 3> to memref<4x32xf32, #tile.scope<shared>>
  }
  return
}

// -----

func.func @planned_offset_on_local(%m: memref<4xf32>) {
  tile.kernel (%bx) in (1) threads(32) {
    // expected-error @below {{'planned_offset' belongs to shared buffers, not to a local buffer}}
    %b = tile.bind_storage %m {planned_offset = 0 : i64} : memref<4xf32> to memref<4xf32, #tile.scope<local>>
  }
  return
}

// -----

func.func @scratch_on_shared(%m: memref<4xf32, 3>) {
  tile.kernel (%bx) in (1) threads(32) {
    // expected-error @below {{'scratch_offset' belongs to fragment buffers, not to a shared buffer}}
    %b = tile.bind_storage %m {scratch_offset = 0 : i64} : memref<4xf32, 3> to memref<4xf32, #tile.scope<shared>>
  }
  return
}

// -----

func.func @unaligned_offset(%m: memref<4xf32, 3>) {
  tile.kernel (%bx) in (1) threads(32) {
    // expected-error @below {{has planned_offset 64; shared buffers are placed at non-negative multiples of 128 bytes}}
    %b = tile.bind_storage %m {planned_offset = 64 : i64} : memref<4xf32, 3> to memref<4xf32, #tile.scope<shared>>
  }
  return
}

// -----

func.func @zero_panel_rows(%a: index) {
  tile.kernel (%bx) in (1) threads(32) {
    // expected-error @below {{has panel_rows 0; it must be positive}}
    %b = tile.bind_storage %a {panel_bytes = 128 : i64, panel_rows = 0 : i64} : index to memref<64x64xf16, #tile.scope<shared>>
  }
  return
}

// -----

func.func @swizzle_1d(%m: memref<64xf16, 3>) {
  tile.kernel (%bx) in (1) threads(32) {
    // expected-error @below {{'swizzle_chunks' swizzles plain 2-d shared buffers; the buffer is 'memref<64xf16, #tile.scope<shared>>'}}
    %b = tile.bind_storage %m {swizzle_chunks = 2 : i64} : memref<64xf16, 3> to memref<64xf16, #tile.scope<shared>>
  }
  return
}

// -----

func.func @panels_of_a_memref(%m: memref<64x64xf16, 3>) {
  tile.kernel (%bx) in (1) threads(32) {
    // expected-error @below {{with 'panel_rows' binds a shared address (index), got 'memref<64x64xf16, 3>'}}
    %b = tile.bind_storage %m {panel_bytes = 128 : i64, panel_rows = 64 : i64} : memref<64x64xf16, 3> to memref<64x64xf16, #tile.scope<shared>>
  }
  return
}

// -----

func.func @address_without_panels(%a: index) {
  tile.kernel (%bx) in (1) threads(32) {
    // expected-error @below {{binds an index (a shared address) only with 'panel_rows'}}
    %b = tile.bind_storage %a : index to memref<64x64xf16, #tile.scope<shared>>
  }
  return
}

// -----

func.func @element_type(%m: memref<4xf16>) {
  tile.kernel (%bx) in (1) threads(32) {
    // expected-error @below {{storage element type 'f16' must be the buffer's 'f32'}}
    %b = tile.bind_storage %m : memref<4xf16> to memref<4xf32, #tile.scope<local>>
  }
  return
}

// -----

func.func @shape(%m: memref<8xf32, 3>) {
  tile.kernel (%bx) in (1) threads(32) {
    // expected-error @below {{storage shape [8] must be the buffer's shape [4]}}
    %b = tile.bind_storage %m : memref<8xf32, 3> to memref<4xf32, #tile.scope<shared>>
  }
  return
}

// -----

func.func @fragment_without_layout(%m: memref<4xf32>) {
  tile.kernel (%bx) in (1) threads(32) {
    // expected-error @below {{binds a fragment without its 'layout' (the #tile.fragment of tile-infer-layouts)}}
    %b = tile.bind_storage %m : memref<4xf32> to memref<4x32xf32, #tile.scope<fragment>>
  }
  return
}

// -----

#rows = #tile.fragment<[4, 32], threads = 32, (d0, d1) -> (d1, d0), inverse = (d0, d1) -> (d1, d0)>
func.func @layout_shape(%m: memref<4xf32>) {
  tile.kernel (%bx) in (1) threads(32) {
    // expected-error @below {{fragment layout shape [4, 32] must equal the buffer shape [4, 16]}}
    %b = tile.bind_storage %m {layout = #rows} : memref<4xf32> to memref<4x16xf32, #tile.scope<fragment>>
  }
  return
}

// -----

#rows = #tile.fragment<[4, 32], threads = 32, (d0, d1) -> (d1, d0), inverse = (d0, d1) -> (d1, d0)>
func.func @registers(%m: memref<8xf32>) {
  tile.kernel (%bx) in (1) threads(32) {
    // expected-error @below {{binds a fragment to 'memref<8xf32>'; its layout gives each thread 4 registers, a 'memref<4xf32>'}}
    %b = tile.bind_storage %m {layout = #rows} : memref<8xf32> to memref<4x32xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @panel_rows_without_bytes(%a: index) {
  tile.kernel (%bx) in (1) threads(32) {
    // expected-error @below {{'panel_rows' and 'panel_bytes' go together}}
    %b = tile.bind_storage %a {panel_rows = 64 : i64} : index to memref<64x64xf16, #tile.scope<shared>>
  }
  return
}

// -----

func.func @panel_bytes_not_a_swizzle(%a: index) {
  tile.kernel (%bx) in (1) threads(32) {
    // expected-error @below {{has panel_bytes 16; panels are 128, 64 or 32 bytes wide}}
    %b = tile.bind_storage %a {panel_bytes = 16 : i64, panel_rows = 64 : i64} : index to memref<64x64xf16, #tile.scope<shared>>
  }
  return
}

// -----

func.func @rows_not_whole_panels(%a: index) {
  tile.kernel (%bx) in (1) threads(32) {
    // expected-error @below {{with 'panel_bytes' 128 needs a 2-d buffer whose rows are whole panels, got 'memref<64x32xf16, #tile.scope<shared>>'}}
    %b = tile.bind_storage %a {panel_bytes = 128 : i64, panel_rows = 64 : i64} : index to memref<64x32xf16, #tile.scope<shared>>
  }
  return
}
