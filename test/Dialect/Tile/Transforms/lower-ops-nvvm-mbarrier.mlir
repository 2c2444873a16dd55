// tile-lower-ops on the mbarriers of TileLang's T.alloc_barrier (upstream
// nvgpu.mbarrier ops in the kernel body). sm_90a keeps the parity wait for
// upstream's `mbarrier.try_wait` loop; sm_80, which has mbarriers but not
// that instruction, waits in a loop of `mbarrier.test_wait.parity` on the
// barrier's shared address.
//
// RUN: tile-opt %s --tile-lower-ops=target=sm_80 | FileCheck %s --check-prefix=SM80
// RUN: tile-opt %s --tile-lower-ops=target=sm_90a | FileCheck %s --check-prefix=SM90

!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>

// SM80-LABEL: func.func @wait
// SM80: %[[BARS:.*]] = nvgpu.mbarrier.create
// SM80: nvgpu.mbarrier.arrive %[[BARS]][%[[IDX:.*]]]
// SM80: %[[ADDR:.*]] = nvgpu.mbarrier.get %[[BARS]][%[[IDX]]] {{.*}} -> i32
// SM80: %[[PAR:.*]] = arith.extui %[[BIT:.*]] : i1 to i32
// SM80: llvm.inline_asm has_side_effects {{.*}}mbarrier.test_wait.parity.shared.b64 done, [$0], $1;{{.*}}@!done bra WAIT;{{.*}} "r,r,~{memory}" %[[ADDR]], %[[PAR]] : (i32, i32) -> ()
// SM80-NOT: nvgpu.mbarrier.try_wait.parity
// SM90-LABEL: func.func @wait
// SM90: nvgpu.mbarrier.arrive
// SM90: nvgpu.mbarrier.try_wait.parity %{{.*}}[%{{.*}}], %{{.*}}, %{{.*}} : <memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
// SM90-NOT: llvm.inline_asm
func.func @wait(%parity: i1) {
  tile.kernel (%bx) in (1) threads(128) {
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %hint = arith.constant 10000000 : index
    %bars = nvgpu.mbarrier.create -> !bars
    nvgpu.mbarrier.init %bars[%c1], %c128 : !bars
    %t = nvgpu.mbarrier.arrive %bars[%c1] : !bars -> !nvgpu.mbarrier.token
    nvgpu.mbarrier.try_wait.parity %bars[%c1], %parity, %hint : !bars
  }
  return
}
