// Two 128 KiB shared tiles whose lifetimes do not overlap: %a is filled
// from A and written to O1, then %b from B to O2. Side by side they need
// 256 KiB, more than sm_90a's 227 KiB; tile-plan-shared gives both offset
// 0 (one 128 KiB region) and a barrier between %a's last read and %b's
// first write.
func.func @reuse(%A: memref<128x512xf16>, %B: memref<128x512xf16>,
                 %O1: memref<128x512xf16>, %O2: memref<128x512xf16>) {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<128x512xf16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<128x512xf16, #tile.scope<shared>>
    tile.copy %A to %a : memref<128x512xf16> to memref<128x512xf16, #tile.scope<shared>>
    tile.copy %a to %O1 : memref<128x512xf16, #tile.scope<shared>> to memref<128x512xf16>
    tile.copy %B to %b : memref<128x512xf16> to memref<128x512xf16, #tile.scope<shared>>
    tile.copy %b to %O2 : memref<128x512xf16, #tile.scope<shared>> to memref<128x512xf16>
  }
  return
}
