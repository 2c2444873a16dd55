//===- GpuLowering.cpp - The target primitives' default forms -------------===//

#include "tile/Conversion/TileToGPU/GpuLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include "llvm/Support/ErrorHandling.h"

using namespace mlir;
using namespace mlir::tile;

GpuLowering::~GpuLowering() = default;

Value GpuLowering::shuffleXor(OpBuilder &b, Location loc, Value v,
                              int64_t mask) const {
  Type type = v.getType();
  Value wide = v;
  if (isa<FloatType>(type) && type.getIntOrFloatBitWidth() < 32)
    wide = arith::ExtFOp::create(b, loc, b.getF32Type(), v);
  else if (type.isInteger() && type.getIntOrFloatBitWidth() < 32)
    wide = arith::ExtSIOp::create(b, loc, b.getI32Type(), v);
  Value shuffled = gpu::ShuffleOp::create(b, loc, wide, mask, getWarpSize(),
                                          gpu::ShuffleMode::XOR)
                       .getShuffleResult();
  if (wide == v)
    return shuffled;
  if (isa<FloatType>(type))
    return arith::TruncFOp::create(b, loc, type, shuffled);
  return arith::TruncIOp::create(b, loc, type, shuffled);
}

Value GpuLowering::emitFastExp2(OpBuilder &, Location, Value) const {
  llvm_unreachable("emitFastExp2 on a target without hasFastExp2");
}

void GpuLowering::emitAtomicAddVector(OpBuilder &, Location, Value,
                                      ValueRange) const {
  llvm_unreachable("emitAtomicAddVector on a target without vector atomics");
}
