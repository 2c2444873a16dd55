// RUN: tile-opt %s --tile-gpu-module-to-binary -split-input-file -verify-diagnostics

// A kernel lowered for NVIDIA (nvvm.kernel) in a module serialized for an
// AMD target, and the other way round: refused before the backend (which
// aborts on the foreign calling convention) sees it.
module attributes {gpu.container_module} {
  gpu.module @nvidia_kernels [#rocdl.target<chip = "gfx942">] {
    // expected-error @below {{kernel lowered for another vendor ('nvvm.kernel') in gpu.module @nvidia_kernels, which is serialized for #rocdl.target<chip = "gfx942">}}
    llvm.func @k(%p: !llvm.ptr<1>) attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @amd_kernels [#nvvm.target<chip = "sm_90a">] {
    // expected-error @below {{kernel lowered for another vendor ('rocdl.kernel') in gpu.module @amd_kernels, which is serialized for #nvvm.target<chip = "sm_90a">}}
    llvm.func @k(%p: !llvm.ptr<1>) attributes {gpu.kernel, rocdl.kernel} {
      llvm.return
    }
  }
}
