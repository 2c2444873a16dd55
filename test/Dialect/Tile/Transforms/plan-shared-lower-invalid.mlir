// tile-lower-ops places shared buffers where tile-plan-shared put them: on
// a GPU target a buffer without an offset is an error at the buffer.
// RUN: tile-opt %s --tile-place-buffers=target=sm_80 --tile-software-pipeline=target=sm_80 --tile-plan-scratch=target=sm_80 --tile-lower-ops=target=sm_80 -verify-diagnostics
// RUN: tile-opt %s --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a -verify-diagnostics

func.func @unplanned(%h: f16) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.alloc_shared' op has no shared-memory offset; run tile-plan-shared first}}
    %a = tile.alloc_shared : memref<64xf16, #tile.scope<shared>>
    tile.fill %a, %h : memref<64xf16, #tile.scope<shared>>, f16
  }
  return
}
