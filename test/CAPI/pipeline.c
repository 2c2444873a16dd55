// The C API's pipelines: tilePipelineStages, and tilePipeline for each
// target and stage, printed from the pass managers the compiler runs.
// RUN: %cc %s -I%tile_src_root/include -L%tile_lib_dir -lTileMLIRCAPI \
// RUN:   -Wl,-rpath,%tile_lib_dir -o %t
// RUN: %t | FileCheck %s

#include "tile-c/TileMLIR.h"

#include <stdio.h>

static void print(const char *target, const char *stage) {
  char *error = NULL;
  char *text = tilePipeline(target, stage, &error);
  printf("%s %s: %s\n", target, stage, text ? text : error);
  tileFreeString(text ? text : error);
}

static const char *kernel =
    "func.func @fill(%a: memref<64xf32>) {\n"
    "  tile.kernel (%bx) in (1) threads(64) {\n"
    "    %f = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>\n"
    "    %one = arith.constant 1.0 : f32\n"
    "    tile.fill %f, %one : memref<64xf32, #tile.scope<fragment>>, f32\n"
    "    tile.copy %f to %a[0] : memref<64xf32, #tile.scope<fragment>> to "
    "memref<64xf32>\n"
    "  }\n"
    "  return\n"
    "}\n";

int main(void) {
  // CHECK: stages: tile,verified,lower-ops,lower-kernel,llvm
  printf("stages: %s\n", tilePipelineStages());

  // CHECK: cpu tile: builtin.module()
  print("cpu", "tile");
  // CHECK: cpu verified: builtin.module(tile-verify-target{target=cpu},canonicalize{{[{][^}]*[}]}})
  print("cpu", "verified");
  // CHECK: cpu lower-ops: builtin.module(tile-verify-target{target=cpu},canonicalize{{[{][^}]*[}]}},
  // CHECK-SAME: tile-insert-barriers,tile-guard-memory-access,tile-apply-tensor-layouts,tile-lower-ops{target=cpu})
  print("cpu", "lower-ops");
  // CHECK: cpu lower-kernel: {{.*}},tile-lower-ops{target=cpu},tile-lower-kernel{target=cpu},tile-emulate-fp4,tile-lower-fp8-casts{target=cpu},canonicalize{{[{][^}]*[}]}},cse)
  print("cpu", "lower-kernel");
  // CHECK: cpu llvm: {{.*}},cse,loop-invariant-code-motion,convert-scf-to-cf{{.*}},convert-func-to-llvm
  // CHECK-SAME: ,reconcile-unrealized-casts,canonicalize{{[{][^}]*[}]}})
  print("cpu", "llvm");

  // CHECK: sm_80 lower-ops: builtin.module(tile-verify-target{target=sm_80},
  // CHECK-SAME: tile-insert-barriers,tile-guard-memory-access,tile-apply-tensor-layouts,
  // CHECK-SAME: tile-select-mma{target=sm_80},tile-warp-specialize{target=sm_80},tile-infer-layouts{target=sm_80},
  // CHECK-SAME: tile-plan-shared{target=sm_80},tile-place-buffers{target=sm_80},
  // CHECK-SAME: tile-software-pipeline{target=sm_80},tile-plan-scratch{target=sm_80},
  // CHECK-SAME: tile-lower-ops{target=sm_80})
  print("sm_80", "lower-ops");
  // CHECK: sm_90a lower-kernel: {{.*}}tile-lower-ops{target=sm_90a},tile-lower-kernel{target=sm_90a},tile-emulate-fp4,tile-lower-fp8-casts{target=sm_90a},canonicalize{{[{][^}]*[}]}},cse)
  print("sm_90a", "lower-kernel");
  // CHECK: sm_90a llvm: {{.*}},cse,func.func(gpu-eliminate-barriers),gpu-launch-sink-index-computations,gpu-kernel-outlining
  // CHECK-SAME: nvvm-attach-target{{[{].*}}chip=sm_90a{{.*}}gpu.module(convert-gpu-to-nvvm{{.*}}tile-mark-tma-params,
  // CHECK-SAME: tile-gpu-module-to-binary{format=isa keep-isa=false toolkit={{.*}}},convert-math-to-llvm
  print("sm_90a", "llvm");

  // CHECK: cpu ptx: error: unknown stage 'ptx'; expected one of tile, verified, lower-ops, lower-kernel, llvm
  print("cpu", "ptx");
  // CHECK: sm_70 llvm: error: unknown target 'sm_70'; expected one of cpu, sm_80, sm_90a, gfx942
  print("sm_70", "llvm");
  // CHECK: gfx942 llvm: {{.*}}tile-lower-ops{target=gfx942},tile-lower-kernel{target=gfx942}
  // CHECK-SAME: rocdl-attach-target{{[{].*}}chip=gfx942{{.*}}gpu.module(math-expand-ops{{.*}}),gpu.module(convert-gpu-to-rocdl{{.*}}chipset=gfx942
  // CHECK-SAME: tile-gpu-module-to-binary{format=isa keep-isa=false toolkit={{.*}}},convert-math-to-llvm
  print("gfx942", "llvm");

  // The text is a pipeline tileRunPipeline runs.
  // CHECK-LABEL: lowered:
  // CHECK: tile.kernel
  // CHECK-NOT: tile.fill
  // CHECK-NOT: tile.copy
  // CHECK: return
  char *error = NULL;
  char *pipeline = tilePipeline("cpu", "lower-ops", &error);
  char *ir = tileRunPipeline(kernel, pipeline, &error);
  printf("lowered:\n%s\n", ir ? ir : error);
  tileFreeString(ir ? ir : error);
  tileFreeString(pipeline);
  return 0;
}
