// The NVVM pipeline on the sm_90a GEMM example prints the IR after each of
// its passes, and the IR between the steps of the GPU middle end parses
// back (the placed buffers are tile.bind_storage ops with declared
// attributes, the pipelines' state declared tile.* attributes).
//
// RUN: tile-opt %S/../../../../examples/gemm/gemm_sm90.mlir --tile-to-nvvm="chip=sm_90a format=isa" --mlir-print-ir-after-all -o /dev/null 2>&1 | FileCheck %s
// CHECK: IR Dump After TilePlanShared (tile-plan-shared)
// CHECK: tile.alloc_shared {offset = 0 : i64}
// CHECK: IR Dump After TilePlaceBuffers (tile-place-buffers)
// CHECK: tile.bind_storage %{{.*}} {planned_offset = 0 : i64}
// CHECK: IR Dump After TileSoftwarePipeline (tile-software-pipeline)
// CHECK: tile.bind_storage %{{.*}} {panel_bytes = 128 : i64, panel_rows = 128 : i64}
// CHECK: IR Dump After TilePlanScratch (tile-plan-scratch)
// CHECK: IR Dump After TileLowerOps (tile-lower-ops)
// CHECK-NOT: tile.bind_storage
// CHECK: IR Dump After TileLowerKernel (tile-lower-kernel)
//
// Stopping after each step: its output parses back and prints the same.
// RUN: tile-opt %S/../../../../examples/gemm/gemm_sm90.mlir --tile-verify-target=target=sm_90a --canonicalize --tile-guard-memory-access --tile-apply-tensor-layouts --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --verify-roundtrip -o %t.placed.mlir
// RUN: tile-opt %t.placed.mlir --tile-software-pipeline=target=sm_90a --verify-roundtrip -o %t.pipelined.mlir
// RUN: tile-opt %t.pipelined.mlir --tile-plan-scratch=target=sm_90a --verify-roundtrip -o %t.planned.mlir
// RUN: tile-opt %t.planned.mlir --tile-lower-ops=target=sm_90a --verify-roundtrip -o /dev/null
// The same steps from the printed IR give the code of the whole pipeline.
// RUN: tile-opt %t.planned.mlir --tile-lower-ops=target=sm_90a --tile-lower-kernel=target=sm_90a | FileCheck %s --check-prefix=LOWERED
// RUN: tile-opt %S/../../../../examples/gemm/gemm_sm90.mlir --tile-verify-target=target=sm_90a --canonicalize --tile-guard-memory-access --tile-apply-tensor-layouts --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a --tile-lower-kernel=target=sm_90a > %t.direct.mlir
// RUN: tile-opt %t.planned.mlir --tile-lower-ops=target=sm_90a --tile-lower-kernel=target=sm_90a | diff %t.direct.mlir -
// LOWERED-NOT: tile.kernel
// LOWERED: gpu.launch
// LOWERED-NOT: tile.{{(bind_storage|copy|gemm|kernel)}}
