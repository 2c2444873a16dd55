// tile-lower-ops for sm_90a on flash attention (the kernel of
// examples/flash_attention in ../../../Target/NVVM/Inputs): the pipelined
// loop's K and V copies and the Q copy before it become TMA loads of
// [1, 64, 1, 64] boxes of the 4-d [batch, seq, heads, dim] tensors; S = Q K^T
// runs as wgmma from shared-memory descriptors, O += P V as wgmma with P
// from registers (inline assembly, since nvvm.wgmma.mma_async takes A
// descriptors only). Each gemm waits for its wgmmas (the softmax reads S
// right away), and each iteration releases its own stage.
//
// RUN: tile-opt %S/../../../Target/NVVM/Inputs/flash-attention.mlir --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a | FileCheck %s

// One descriptor per tensor: K (param 1), V (param 2), Q (param 0).
// CHECK-LABEL: func.func @main(
// CHECK-SAME: !llvm.ptr {tile.tma = {box = array<i64: 1, 64, 1, 64>, param = 1 : i64, swizzle = 128 : i64}}
// CHECK-SAME: !llvm.ptr {tile.tma = {box = array<i64: 1, 64, 1, 64>, param = 2 : i64, swizzle = 128 : i64}}
// CHECK-SAME: !llvm.ptr {tile.tma = {box = array<i64: 1, 64, 1, 64>, param = 0 : i64, swizzle = 128 : i64}}
// CHECK: tile.kernel {{.*}} threads(128) attributes {tile.producer_threads = 128 : i64
// Full and empty barriers of the 2 stages, then Q's.
// CHECK-COUNT-5: nvvm.mbarrier.init
// CHECK: nvvm.fence.mbarrier.init
// The consumers wait for Q once, before the loop.
// CHECK: nvvm.mbarrier.try_wait.parity %{{.*}}, %c0_i32
// CHECK: scf.for
// S = Q K^T: 4 wgmma m64n64k16 from descriptors, then wait_group 0.
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: "wgmma.wait_group.sync.aligned 0;
// The softmax: shuffles.
// CHECK: gpu.shuffle  xor
// O += P V: P's words ready before the fence, 4 wgmmas from registers.
// CHECK: vector.bitcast %{{.*}} : vector<2xf16> to vector<1xi32>
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: llvm.inline_asm has_side_effects "{\0A.reg .pred p;\0Asetp.ne.b32 p, $69, 0;\0Awgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {$0, {{.*}}}, {$64, $65, $66, $67}, $68, p, 1, 1, 1;\0A}"
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: "wgmma.wait_group.sync.aligned 0;
// This iteration's stage goes back to the producer.
// CHECK: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// CHECK-NEXT: }
// The producer thread: Q (8 KB), then K and V (16 KB) each iteration.
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c8192_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}]
// CHECK: scf.for
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c16384_i32
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global
