// tile-gpu-module-to-binary: each gpu.module becomes a gpu.binary, as with
// upstream's gpu-module-to-binary; with keep-isa each cubin object also
// holds the PTX ptxas assembled, the same text format=isa gives, and the
// cubin is the same bytes as without keep-isa.
//
// REQUIRES: ptxas
//
// RUN: tile-opt %s --tile-gpu-module-to-binary="format=bin keep-isa=true toolkit=/usr/local/cuda" | FileCheck %s --check-prefix=KEEP
// RUN: tile-opt %s --tile-gpu-module-to-binary="format=bin toolkit=/usr/local/cuda" | FileCheck %s --check-prefix=BIN
//
// The kept PTX is format=isa's; the objects are format=bin's.
// RUN: tile-opt %s --tile-gpu-module-to-binary="format=isa toolkit=/usr/local/cuda" -o %t.isa.mlir
// RUN: %python %S/../../../Target/NVVM/extract_ptx.py %t.isa.mlir %t.isa.ptx --kernel second
// RUN: tile-opt %s --tile-gpu-module-to-binary="format=bin keep-isa=true toolkit=/usr/local/cuda" -o %t.keep.mlir
// RUN: %python %S/../../../Target/NVVM/extract_ptx.py %t.keep.mlir %t.keep.ptx --kernel second
// RUN: diff %t.isa.ptx %t.keep.ptx
// RUN: tile-opt %s --tile-gpu-module-to-binary="format=bin toolkit=/usr/local/cuda" -o %t.bin.mlir
// RUN: grep -o 'bin = "[^"]*"' %t.bin.mlir > %t.bin.objects
// RUN: grep -o 'bin = "[^"]*"' %t.keep.mlir | diff %t.bin.objects -
//
// RUN: tile-opt %s --tile-gpu-module-to-binary="format=bin keep-isa=true toolkit=/usr/local/cuda" | tile-opt | FileCheck %s --check-prefix=KEEP
//
// A failed serialization names the kernel module and who launches it,
// after the serializer's errors (here a ptxas that fails).
// RUN: rm -rf %t.cuda && mkdir -p %t.cuda/bin %t.cuda/nvvm/libdevice
// RUN: ln -s /usr/local/cuda/nvvm/libdevice/libdevice.10.bc %t.cuda/nvvm/libdevice/
// RUN: printf '#!/bin/sh\necho "ptxas fatal   : out of luck" >&2\nexit 1\n' > %t.cuda/bin/ptxas
// RUN: chmod +x %t.cuda/bin/ptxas
// RUN: not tile-opt %s --tile-gpu-module-to-binary="format=bin toolkit=%t.cuda" 2>&1 | FileCheck %s --check-prefix=PTXAS
//
// RUN: not tile-opt %s --tile-gpu-module-to-binary="format=isa keep-isa=true" 2>&1 | FileCheck %s --check-prefix=ISA
// RUN: not tile-opt %s --tile-gpu-module-to-binary="format=llvm" 2>&1 | FileCheck %s --check-prefix=FORMAT

// KEEP: gpu.binary @first [#gpu.object<#nvvm.target<chip = "sm_80">, properties = {{{.*}}isa = "//{{[^"]*}}.target sm_80{{[^"]*}}.entry first_kernel{{[^"]*}}"}, bin = "\7FELF
// KEEP: gpu.binary @second [#gpu.object<#nvvm.target<chip = "sm_90a">, properties = {{{.*}}isa = "//{{[^"]*}}.target sm_90a{{[^"]*}}.entry second_kernel{{[^"]*}}"}, bin = "\7FELF

// BIN-NOT: isa =
// BIN: gpu.binary @first [#gpu.object<#nvvm.target<chip = "sm_80">, {{.*}}bin = "\7FELF
// BIN-NOT: isa =
// BIN: gpu.binary @second [#gpu.object<#nvvm.target<chip = "sm_90a">, {{.*}}bin = "\7FELF

// PTXAS: error: `ptxas` invocation failed. Log:
// PTXAS-NEXT: ptxas fatal   : out of luck
// PTXAS: error: kernel module @first (launched by @host) was not serialized for [#nvvm.target<chip = "sm_80">]: the errors above say why

// ISA: error: tile-gpu-module-to-binary: keep-isa is for format bin or fatbin; with format=isa the object is the assembly
// FORMAT: error: tile-gpu-module-to-binary: unknown format 'llvm' (expected isa, bin or fatbin)

module attributes {gpu.container_module} {
  func.func @host(%p: !llvm.ptr<1>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @first::@first_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%p : !llvm.ptr<1>)
    return
  }
  gpu.module @first [#nvvm.target<chip = "sm_80">] {
    llvm.func @first_kernel(%p: !llvm.ptr<1>) attributes {gpu.kernel, nvvm.kernel} {
      %c = llvm.mlir.constant(1.0 : f32) : f32
      llvm.store %c, %p : f32, !llvm.ptr<1>
      llvm.return
    }
  }
  gpu.module @second [#nvvm.target<chip = "sm_90a">] {
    llvm.func @second_kernel(%p: !llvm.ptr<1>, %v: i32) attributes {nvvm.kernel} {
      llvm.store %v, %p : i32, !llvm.ptr<1>
      llvm.return
    }
  }
}
