// Inputs broken below the level of any op: lexer and generic parser.
func.func @unterminated_string() {
  %c = arith.constant {x = "abc} 0 : index
  return
}

// -----
func.func @stray_bytes() {
  tile.kernel (%bx) in (4) threads(128) { ` $ \
  }
  return
}

// -----
"tile.kernel"
// -----
"tile.copy"(
// -----
"tile.nonexistent"() : () -> ()
// -----
tile.
// -----
tile.gemm
// -----
func.func @f() {
  tile.kernel (%bx) in (4) threads(128) {
    %x = tile.alloc_shared : memref<16xf16, #tile.scope<shared>>
    tile.copy %x to %x to %x : memref<16xf16, #tile.scope<shared>> to memref<16xf16, #tile.scope<shared>>
  }
  return
}

// -----
func.func @redefinition() {
  tile.kernel (%bx) in (4) threads(128) {
    %x = tile.alloc_shared : memref<16xf16, #tile.scope<shared>>
    %x = tile.alloc_shared : memref<16xf16, #tile.scope<shared>>
  }
  return
}

// -----
func.func @use_before_def() {
  tile.kernel (%bx) in (4) threads(128) {
    tile.clear %x : memref<16xf16, #tile.scope<shared>>
    %x = tile.alloc_shared : memref<16xf16, #tile.scope<shared>>
  }
  return
}

// -----
func.func @huge_memref(%A: memref<99999999999999999999xf16>) {
  return
}
