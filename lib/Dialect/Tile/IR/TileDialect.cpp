//===- TileDialect.cpp - The tile dialect and its attributes --------------===//

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tile;

#include "tile/Dialect/Tile/IR/TileDialect.cpp.inc"
#include "tile/Dialect/Tile/IR/TileEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tile/Dialect/Tile/IR/TileAttrs.cpp.inc"

void TileDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tile/Dialect/Tile/IR/TileOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tile/Dialect/Tile/IR/TileAttrs.cpp.inc"
      >();
}

std::optional<Scope> mlir::tile::getScope(MemRefType type) {
  if (auto scope = dyn_cast_or_null<ScopeAttr>(type.getMemorySpace()))
    return scope.getValue();
  return std::nullopt;
}

bool mlir::tile::isGlobal(MemRefType type) {
  return !type.getMemorySpace();
}

StringRef mlir::tile::stringifyScopeOf(MemRefType type) {
  if (std::optional<Scope> scope = getScope(type))
    return stringifyScope(*scope);
  return isGlobal(type) ? "global" : "foreign";
}

//===----------------------------------------------------------------------===//
// FragmentLayoutAttr
//===----------------------------------------------------------------------===//

// Layouts larger than this are not enumerated by the verifier.
static constexpr int64_t kMaxEnumeratedElements = 1 << 20;

LogicalResult
FragmentLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                           ArrayRef<int64_t> shape, int64_t threads,
                           AffineMap map, int64_t replicate) {
  if (shape.empty())
    return emitError() << "fragment layout needs a shape of rank >= 1";
  int64_t numElements = 1;
  for (int64_t dim : shape) {
    if (dim <= 0)
      return emitError() << "fragment layout shape must be positive, got "
                         << dim;
    numElements *= dim;
  }
  if (threads <= 0)
    return emitError() << "fragment layout needs threads > 0, got " << threads;
  if (replicate <= 0 || threads % replicate != 0)
    return emitError() << "fragment layout replicate (" << replicate
                       << ") must be positive and divide threads (" << threads
                       << ")";
  if (map.getNumDims() != shape.size() || map.getNumSymbols() != 0 ||
      map.getNumResults() != 2)
    return emitError() << "fragment layout map must take " << shape.size()
                       << " dims, no symbols, and give 2 results (thread, "
                          "register), got "
                       << AffineMapAttr::get(map);
  if (numElements > kMaxEnumeratedElements)
    return success();

  // Every element must land on an owner thread in range, and no two elements
  // may share a (thread, register) slot.
  int64_t owners = threads / replicate;
  llvm::DenseSet<std::pair<int64_t, int64_t>> slots;
  SmallVector<int64_t> index(shape.size(), 0);
  for (int64_t linear = 0; linear < numElements; ++linear) {
    int64_t rest = linear;
    for (int64_t d = shape.size() - 1; d >= 0; --d) {
      index[d] = rest % shape[d];
      rest /= shape[d];
    }
    SmallVector<int64_t> result = map.compose(index);
    if (result[0] < 0 || result[0] >= owners || result[1] < 0) {
      auto diag = emitError() << "fragment layout maps element [";
      llvm::interleaveComma(index, diag);
      return diag << "] to thread " << result[0] << ", register "
                  << result[1] << "; expected a thread in [0, " << owners
                  << ") and a register >= 0";
    }
    if (!slots.insert({result[0], result[1]}).second) {
      auto diag = emitError() << "fragment layout maps element [";
      llvm::interleaveComma(index, diag);
      return diag << "] to (thread " << result[0] << ", register "
                  << result[1] << "), which another element already uses";
    }
  }
  return success();
}

std::pair<int64_t, int64_t>
FragmentLayoutAttr::apply(ArrayRef<int64_t> indices) const {
  SmallVector<int64_t> result = getMap().compose(indices);
  return {result[0], result[1]};
}

int64_t FragmentLayoutAttr::getNumRegisters() const {
  int64_t numElements = 1;
  for (int64_t dim : getShape())
    numElements *= dim;
  return numElements * getReplicate() / getThreads();
}

//===----------------------------------------------------------------------===//
// SwizzleAttr
//===----------------------------------------------------------------------===//

LogicalResult SwizzleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  int64_t bits, int64_t base, int64_t shift) {
  if (bits < 0 || base < 0 || shift < 0)
    return emitError() << "swizzle parameters must be non-negative, got <"
                       << bits << ", " << base << ", " << shift << ">";
  if (shift < bits)
    return emitError() << "swizzle shift (" << shift
                       << ") must be at least bits (" << bits
                       << ") so that the XOR source and target bits do not "
                          "overlap";
  if (bits + base + shift > 32)
    return emitError() << "swizzle touches bits beyond 32: <" << bits << ", "
                       << base << ", " << shift << ">";
  return success();
}

int64_t SwizzleAttr::apply(int64_t offset) const {
  int64_t mask = ((int64_t{1} << getBits()) - 1) << getBase();
  return offset ^ ((offset >> getShift()) & mask);
}
