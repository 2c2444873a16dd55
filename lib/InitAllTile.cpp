//===- InitAllTile.cpp - Register the tile dialect and passes -------------===//

#include "tile/InitAllTile.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"
#include "tile/Pipelines/Pipelines.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVM/ROCDL/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void mlir::tile::registerAllTileDialects(DialectRegistry &registry) {
  registry
      .insert<tile::TileDialect, amdgpu::AMDGPUDialect, arith::ArithDialect,
              cf::ControlFlowDialect, func::FuncDialect, gpu::GPUDialect,
              LLVM::LLVMDialect, math::MathDialect, memref::MemRefDialect,
              NVVM::NVVMDialect, nvgpu::NVGPUDialect, omp::OpenMPDialect,
              ROCDL::ROCDLDialect, scf::SCFDialect, vector::VectorDialect>();
  // The ConvertToLLVM interfaces (cf, arith, ... inside gpu.module), the
  // GPU target attributes' serializers and the other upstream extensions.
  registerAllExtensions(registry);
  // gpu-module-to-binary translates device modules to LLVM IR in-process.
  registerAllToLLVMIRTranslations(registry);
  // Serializers of #nvvm.target (PTX, cubin via ptxas) and #rocdl.target.
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  ROCDL::registerROCDLTargetInterfaceExternalModels(registry);
}

void mlir::tile::registerAllTilePasses() {
  registerTilePasses();
  registerTilePipelines();
}
