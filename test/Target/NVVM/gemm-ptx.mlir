// The whole NVIDIA pipeline, tile-to-nvvm with format=isa: the host side
// launches the outlined kernel, whose gpu.binary holds PTX for the chosen
// chip. The PTX is checked as printed, inside the gpu.binary's escaped
// `assembly` string (\0A newlines, \09 tabs).
//
// The seed GEMM (examples/gemm/gemm.mlir: 128x128x32 f16 tiles, f32
// accumulators, 4 warps, a 3-stage pipelined K loop). sm_80: ldmatrix and
// mma.sync m16n8k16 on the tensor cores, tiles brought into shared memory
// in 16-byte pieces (ld.global.v4, or cp.async in the pipelined loop).
// sm_90a: A's rows of 32 halves are 64-byte swizzled panels, so TMA loads
// both tiles and wgmma m64n128k16 multiplies them, two 64-row blocks a
// warpgroup. Its grid depends on the sizes (it may exceed a wave), so the
// one warpgroup issues its own loads: no producer warpgroup, two or three
// blocks an SM.
// RUN: tile-opt %tile_src_root/examples/gemm/gemm.mlir --tile-to-nvvm='chip=sm_80 format=isa' | FileCheck %s --check-prefixes=GEMM,GEMM-SM80
// RUN: tile-opt %tile_src_root/examples/gemm/gemm.mlir --tile-to-nvvm='chip=sm_90a format=isa' | FileCheck %s --check-prefixes=GEMM,GEMM-SM90A
//
// The kernel below copies a tile through shared memory: 16-byte vector
// loads and stores on both sides, one barrier between them.
// RUN: tile-opt %s --tile-to-nvvm='chip=sm_80 format=isa' | FileCheck %s --check-prefixes=COPY,COPY-SM80
// RUN: tile-opt %s --tile-to-nvvm='chip=sm_90a format=isa' | FileCheck %s --check-prefixes=COPY,COPY-SM90A

// GEMM: module attributes {gpu.container_module} {
// GEMM: llvm.func @gemm(
// GEMM: gpu.launch_func @gemm_kernel::@gemm_kernel blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}}) : i64 dynamic_shared_memory_size %{{.*}} args(
// GEMM-SM80: gpu.binary @gemm_kernel [#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">, properties = {{{.*}}}, assembly = "
// GEMM-SM90A: gpu.binary @gemm_kernel [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">, properties = {{{.*}}}, assembly = "
// GEMM-SM80-SAME: .target sm_80\0A
// GEMM-SM90A-SAME: .target sm_90a\0A
// GEMM-SAME: .address_size 64\0A
// GEMM-SAME: .visible .entry gemm_kernel(
// GEMM-SM80-SAME: .maxntid 128, 1, 1
// GEMM-SM90A-SAME: .maxntid 128, 1, 1
// GEMM-DAG: bar.sync
// GEMM-SM80-DAG: {{ld.global.v4.b32|cp.async.cg.shared.global}}
// GEMM-SM80-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// GEMM-SM80-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// GEMM-SM80-DAG: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// GEMM-SM90A-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// GEMM-SM90A-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// GEMM: \09ret;\0A
// GEMM-SAME: }\0A">]
// GEMM-NOT: gpu.binary

// COPY: gpu.launch_func @copy_kernel::@copy_kernel
// COPY-SM80: gpu.binary @copy_kernel [#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">
// COPY-SM90A: gpu.binary @copy_kernel [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">
// COPY-SM80-SAME: .target sm_80\0A
// COPY-SM90A-SAME: .target sm_90a\0A
// COPY-SAME: .visible .entry copy_kernel(
// COPY-SAME: .maxntid 128, 1, 1
// COPY-SAME: .shared .align 16 .b8 __dynamic_shmem__0;
// COPY-SAME: ld.global.v4.b32
// COPY-SAME: st.shared.v4.b32
// COPY-SAME: bar.sync
// COPY-SAME: ld.shared.v4.b32
// COPY-SAME: st.global.v4.b32
// COPY-SAME: \09ret;\0A
// COPY-SAME: }\0A">]
func.func @copy(%A: memref<?x?xf16>, %C: memref<?x?xf16>) {
  %c64 = arith.constant 64 : index
  tile.kernel (%bx, %by) in (4, 4) threads(128) {
    %S = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    %m = arith.muli %by, %c64 : index
    %n = arith.muli %bx, %c64 : index
    tile.copy %A[%m, %n] to %S : memref<?x?xf16> to memref<64x64xf16, #tile.scope<shared>>
    tile.copy %S to %C[%m, %n] : memref<64x64xf16, #tile.scope<shared>> to memref<?x?xf16>
  }
  return
}
