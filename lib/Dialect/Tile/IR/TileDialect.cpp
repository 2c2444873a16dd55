//===- TileDialect.cpp - The tile dialect and its attributes --------------===//

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/BitVector.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <limits>
#include <optional>

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

bool mlir::tile::isGlobal(MemRefType type) { return !type.getMemorySpace(); }

bool mlir::tile::isReducer(Value buffer) {
  return llvm::any_of(buffer.getUsers(), llvm::IsaPred<FinalizeReducerOp>);
}

std::optional<SharedEpilogue> mlir::tile::getSharedEpilogue(Value tile) {
  auto type = dyn_cast<MemRefType>(tile.getType());
  if (!type || getScope(type) != Scope::Shared ||
      !llvm::hasNItems(tile.getUsers(), 2))
    return std::nullopt;
  auto whole = [&](ArrayRef<int64_t> sizes, ValueRange offsets,
                   ArrayRef<int64_t> staticOffsets) {
    return sizes == type.getShape() && offsets.empty() &&
           llvm::all_of(staticOffsets, [](int64_t o) { return o == 0; });
  };
  SharedEpilogue ep;
  for (Operation *user : tile.getUsers()) {
    auto copy = dyn_cast<CopyOp>(user);
    if (!copy)
      return std::nullopt;
    if (copy.getTarget() == tile && copy.getSource() != tile)
      ep.in = copy;
    else if (copy.getSource() == tile && copy.getTarget() != tile)
      ep.out = copy;
  }
  if (!ep.in || !ep.out || ep.in->getBlock() != ep.out->getBlock() ||
      !ep.in->isBeforeInBlock(ep.out))
    return std::nullopt;
  MemRefType from = ep.in.getSource().getType();
  MemRefType to = ep.out.getTarget().getType();
  if (getScope(from) != Scope::Fragment || from.getShape() != type.getShape() ||
      ArrayRef<int64_t>(ep.in.getSourceSizes()) != from.getShape() ||
      !whole(ep.in.getTargetSizes(), ep.in.getTargetOffsets(),
             ep.in.getStaticTargetOffsets()) ||
      !isGlobal(to) || to.getElementType() != type.getElementType() ||
      !whole(ep.out.getSourceSizes(), ep.out.getSourceOffsets(),
             ep.out.getStaticSourceOffsets()))
    return std::nullopt;
  for (Operation *op = ep.in->getNextNode(); op != ep.out;
       op = op->getNextNode())
    if (!isMemoryEffectFree(op) || op->getNumRegions() != 0)
      return std::nullopt;
  return ep;
}

bool mlir::tile::isPipelinedGemmEpilogue(Value tile) {
  std::optional<SharedEpilogue> ep = getSharedEpilogue(tile);
  if (!ep)
    return false;
  Value fragment = ep->in.getSource();
  return llvm::any_of(fragment.getUsers(), [&](Operation *user) {
    auto gemm = dyn_cast<GemmOp>(user);
    auto loop =
        gemm ? dyn_cast<PipelinedOp>(gemm->getParentOp()) : PipelinedOp();
    return loop && gemm.getC() == fragment &&
           loop->getBlock() == ep->in->getBlock() &&
           loop->isBeforeInBlock(ep->in);
  });
}

SmallVector<SharedLifetime> mlir::tile::getSharedLifetimes(KernelOp kernel) {
  Block &body = kernel.getBodyBlock();
  llvm::DenseMap<Operation *, int64_t> position;
  for (auto [i, op] : llvm::enumerate(body))
    position[&op] = i;
  SmallVector<SharedLifetime> lifetimes;
  kernel.walk([&](AllocSharedOp alloc) {
    SharedLifetime life{alloc, std::numeric_limits<int64_t>::max(), -1, false};
    SmallVector<Value> worklist = {alloc.getResult()};
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      for (Operation *user : v.getUsers()) {
        if (auto view = dyn_cast<ViewLikeOpInterface>(user);
            view && view.getViewSource() == v)
          llvm::append_range(worklist, user->getResults());
        int64_t at = position.lookup(body.findAncestorOpInBlock(*user));
        life.first = std::min(life.first, at);
        life.last = std::max(life.last, at);
        life.used = true;
      }
    }
    if (!life.used)
      life.first = life.last =
          position.lookup(body.findAncestorOpInBlock(*alloc));
    lifetimes.push_back(life);
  });
  return lifetimes;
}

int64_t mlir::tile::getBufferBytes(MemRefType type) {
  Type elt = type.getElementType();
  uint64_t bits = elt.isIntOrFloat() ? elt.getIntOrFloatBitWidth() : 64;
  uint64_t elements = 1;
  bool overflow = false, stepOverflow = false;
  for (int64_t dim : type.getShape()) {
    elements = llvm::SaturatingMultiply(
        elements, static_cast<uint64_t>(std::max<int64_t>(dim, 0)),
        &stepOverflow);
    overflow |= stepOverflow;
  }
  uint64_t totalBits = llvm::SaturatingMultiply(elements, bits, &stepOverflow);
  overflow |= stepOverflow;
  uint64_t bytes = totalBits / 8 + (totalBits % 8 != 0);
  if (overflow || bytes > uint64_t(std::numeric_limits<int64_t>::max()))
    return std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(bytes);
}

int64_t mlir::tile::addBytes(int64_t a, int64_t b) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  return b > kMax - a ? kMax : a + b;
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

/// Evaluates a symbol-free affine expression at `dims`. Unlike
/// AffineMap::compose, never builds IR and never returns a non-constant:
/// std::nullopt on signed overflow, on a division or modulo by a value that
/// is not positive and on symbols or out-of-range dimensions.
static std::optional<int64_t> evaluate(AffineExpr expr,
                                       ArrayRef<int64_t> dims) {
  switch (expr.getKind()) {
  case AffineExprKind::Constant:
    return cast<AffineConstantExpr>(expr).getValue();
  case AffineExprKind::DimId: {
    unsigned pos = cast<AffineDimExpr>(expr).getPosition();
    if (pos >= dims.size())
      return std::nullopt;
    return dims[pos];
  }
  case AffineExprKind::SymbolId:
    return std::nullopt;
  default:
    break;
  }
  auto binary = cast<AffineBinaryOpExpr>(expr);
  std::optional<int64_t> lhs = evaluate(binary.getLHS(), dims);
  if (!lhs)
    return std::nullopt;
  std::optional<int64_t> rhs = evaluate(binary.getRHS(), dims);
  if (!rhs)
    return std::nullopt;
  int64_t result;
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    if (llvm::AddOverflow(*lhs, *rhs, result))
      return std::nullopt;
    return result;
  case AffineExprKind::Mul:
    if (llvm::MulOverflow(*lhs, *rhs, result))
      return std::nullopt;
    return result;
  case AffineExprKind::Mod:
    if (*rhs <= 0)
      return std::nullopt;
    result = *lhs % *rhs;
    return result < 0 ? result + *rhs : result;
  case AffineExprKind::FloorDiv:
    if (*rhs <= 0)
      return std::nullopt;
    return *lhs / *rhs - (*lhs % *rhs != 0 && *lhs < 0 ? 1 : 0);
  case AffineExprKind::CeilDiv:
    if (*rhs <= 0)
      return std::nullopt;
    return *lhs / *rhs + (*lhs % *rhs != 0 && *lhs > 0 ? 1 : 0);
  default:
    return std::nullopt;
  }
}

/// The row-major index of element `linear` of a tile of `shape`.
static void delinearize(int64_t linear, ArrayRef<int64_t> shape,
                        MutableArrayRef<int64_t> index) {
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    index[d] = linear % shape[d];
    linear /= shape[d];
  }
}

/// The divisor of the first `mod`, `floordiv` or `ceildiv` in `expr` whose
/// right-hand side is not a positive constant, if any.
static std::optional<AffineExpr> findBadDivisor(AffineExpr expr) {
  std::optional<AffineExpr> bad;
  expr.walk([&](AffineExpr sub) {
    if (bad)
      return;
    if (sub.getKind() != AffineExprKind::Mod &&
        sub.getKind() != AffineExprKind::FloorDiv &&
        sub.getKind() != AffineExprKind::CeilDiv)
      return;
    AffineExpr rhs = cast<AffineBinaryOpExpr>(sub).getRHS();
    auto cst = dyn_cast<AffineConstantExpr>(rhs);
    if (!cst || cst.getValue() <= 0)
      bad = rhs;
  });
  return bad;
}

LogicalResult FragmentLayoutAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, ArrayRef<int64_t> shape,
    int64_t threads, AffineMap map, int64_t replicate, AffineMap inverse) {
  if (shape.empty())
    return emitError() << "fragment layout needs a shape of rank >= 1";
  int64_t numElements = 1;
  bool tooLarge = false;
  for (int64_t dim : shape) {
    if (dim <= 0)
      return emitError() << "fragment layout shape must be positive, got "
                         << dim;
    tooLarge |= llvm::MulOverflow(numElements, dim, numElements);
  }
  if (threads <= 0)
    return emitError() << "fragment layout needs threads > 0, got " << threads;
  if (replicate <= 0 || threads % replicate != 0)
    return emitError() << "fragment layout replicate (" << replicate
                       << ") must be positive and divide threads (" << threads
                       << ")";
  if (!map)
    return emitError() << "fragment layout needs a map";
  if (map.getNumDims() != shape.size() || map.getNumSymbols() != 0 ||
      map.getNumResults() != 2)
    return emitError() << "fragment layout map must take " << shape.size()
                       << " dims, no symbols, and give 2 results (thread, "
                          "register), got "
                       << AffineMapAttr::get(map);
  for (AffineExpr result : map.getResults())
    if (std::optional<AffineExpr> divisor = findBadDivisor(result)) {
      std::string text;
      llvm::raw_string_ostream os(text);
      divisor->print(os);
      return emitError() << "fragment layout map divides by " << text
                         << "; mod, floordiv and ceildiv need a positive "
                            "constant divisor";
    }
  if (inverse) {
    if (inverse.getNumDims() != 2 || inverse.getNumSymbols() != 0 ||
        inverse.getNumResults() != shape.size())
      return emitError() << "fragment layout inverse must take 2 dims "
                            "(thread, register), no symbols, and give "
                         << shape.size() << " results, got "
                         << AffineMapAttr::get(inverse);
    for (AffineExpr result : inverse.getResults())
      if (findBadDivisor(result))
        return emitError() << "fragment layout inverse divides by a "
                              "non-positive or non-constant value";
  }
  if (tooLarge || numElements > kMaxEnumeratedElements)
    return success();

  // Every element must land on an owner thread in range, and no two elements
  // may share a (thread, register) slot. With an inverse the replicas are
  // wherever it puts them, so any thread may be the owner.
  bool placedByInverse = inverse && replicate > 1;
  int64_t owners = placedByInverse ? threads : threads / replicate;
  llvm::DenseSet<std::pair<int64_t, int64_t>> slots;
  SmallVector<int64_t> index(shape.size(), 0);
  for (int64_t linear = 0; linear < numElements; ++linear) {
    delinearize(linear, shape, index);
    std::optional<int64_t> thread = evaluate(map.getResult(0), index);
    std::optional<int64_t> reg = evaluate(map.getResult(1), index);
    if (!thread || !reg) {
      auto diag = emitError() << "fragment layout map overflows at element [";
      llvm::interleaveComma(index, diag);
      return diag << "]";
    }
    int64_t result[2] = {*thread, *reg};
    if (result[0] < 0 || result[0] >= owners || result[1] < 0) {
      auto diag = emitError() << "fragment layout maps element [";
      llvm::interleaveComma(index, diag);
      return diag << "] to thread " << result[0] << ", register " << result[1]
                  << "; expected a thread in [0, " << owners
                  << ") and a register >= 0";
    }
    if (!slots.insert({result[0], result[1]}).second) {
      auto diag = emitError() << "fragment layout maps element [";
      llvm::interleaveComma(index, diag);
      return diag << "] to (thread " << result[0] << ", register " << result[1]
                  << "), which another element already uses";
    }
    if (inverse) {
      int64_t slot[2] = {result[0], result[1]};
      bool same = true;
      for (auto [d, expr] : llvm::enumerate(inverse.getResults())) {
        std::optional<int64_t> v = evaluate(expr, slot);
        same &= v && *v == index[d];
      }
      if (!same) {
        auto diag = emitError() << "fragment layout inverse does not map "
                                   "(thread "
                                << result[0] << ", register " << result[1]
                                << ") back to element [";
        llvm::interleaveComma(index, diag);
        return diag << "]";
      }
    }
  }
  if (!placedByInverse)
    return success();

  // Replicas: every slot (thread t, register q) of every thread holds an
  // element, at the register its owner holds it in, and each element is
  // held `replicate` times.
  int64_t total = numElements * replicate;
  if (total % threads != 0)
    return emitError() << "fragment layout with replicate = " << replicate
                       << " holds " << total
                       << " element copies, not a multiple of the " << threads
                       << " threads";
  int64_t registers = total / threads;
  llvm::DenseMap<int64_t, int64_t> copies;
  for (int64_t t = 0; t < threads; ++t) {
    for (int64_t q = 0; q < registers; ++q) {
      int64_t slot[2] = {t, q};
      SmallVector<int64_t> element;
      int64_t linear = 0;
      bool inRange = true;
      for (auto [d, expr] : llvm::enumerate(inverse.getResults())) {
        std::optional<int64_t> v = evaluate(expr, slot);
        inRange &= v && *v >= 0 && *v < shape[d];
        element.push_back(v.value_or(-1));
        linear = linear * shape[d] + element.back();
      }
      std::optional<int64_t> reg =
          inRange ? evaluate(map.getResult(1), element) : std::nullopt;
      if (!inRange || reg != q) {
        auto diag = emitError() << "fragment layout inverse maps (thread " << t
                                << ", register " << q << ") to element [";
        llvm::interleaveComma(element, diag);
        return diag << "], which "
                    << (inRange ? "the map places in another register"
                                : "is outside the shape");
      }
      ++copies[linear];
    }
  }
  for (auto [linear, count] : copies)
    if (count != replicate)
      return emitError() << "fragment layout holds element " << linear
                         << " (row-major) " << count
                         << " times; replicate = " << replicate;
  return success();
}

Attribute FragmentLayoutAttr::parse(AsmParser &parser, Type) {
  SmallVector<int64_t> shape;
  int64_t threads = 0, replicate = 1;
  AffineMap map, inverse;
  llvm::SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() ||
      parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                     [&]() -> ParseResult {
                                       return parser.parseInteger(
                                           shape.emplace_back());
                                     }) ||
      parser.parseComma() || parser.parseKeyword("threads") ||
      parser.parseEqual() || parser.parseInteger(threads) ||
      parser.parseComma() || parser.parseAffineMap(map))
    return {};
  bool seenReplicate = false, seenInverse = false;
  while (succeeded(parser.parseOptionalComma())) {
    StringRef key;
    llvm::SMLoc keyLoc = parser.getCurrentLocation();
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return {};
    if (key == "replicate" && !seenReplicate && !seenInverse) {
      seenReplicate = true;
      if (parser.parseInteger(replicate))
        return {};
    } else if (key == "inverse" && !seenInverse) {
      seenInverse = true;
      if (parser.parseAffineMap(inverse))
        return {};
    } else {
      parser.emitError(keyLoc)
          << "expected 'replicate' or 'inverse' (once each, in that order), "
             "got '"
          << key << "'";
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<FragmentLayoutAttr>(
      loc, parser.getContext(), shape, threads, map, replicate, inverse);
}

void FragmentLayoutAttr::print(AsmPrinter &printer) const {
  printer << "<[";
  llvm::interleaveComma(getShape(), printer);
  printer << "], threads = " << getThreads() << ", " << getMap();
  if (getReplicate() != 1)
    printer << ", replicate = " << getReplicate();
  if (getInverse())
    printer << ", inverse = " << getInverse();
  printer << ">";
}

std::pair<int64_t, int64_t>
FragmentLayoutAttr::apply(ArrayRef<int64_t> indices) const {
  // -1 for what the verifier could not check (layouts too large to
  // enumerate whose map overflows).
  std::optional<int64_t> thread = evaluate(getMap().getResult(0), indices);
  std::optional<int64_t> reg = evaluate(getMap().getResult(1), indices);
  return {thread.value_or(-1), reg.value_or(-1)};
}

SmallVector<int64_t> FragmentLayoutAttr::applyInverse(int64_t thread,
                                                     int64_t reg) const {
  int64_t slot[2] = {thread, reg};
  SmallVector<int64_t> indices;
  for (AffineExpr expr : getInverse().getResults())
    indices.push_back(evaluate(expr, slot).value_or(-1));
  return indices;
}

int64_t FragmentLayoutAttr::getNumRegisters() const {
  // Saturates rather than overflows for absurdly large layouts.
  int64_t numElements = 1;
  for (int64_t dim : getShape())
    if (llvm::MulOverflow(numElements, dim, numElements))
      return std::numeric_limits<int64_t>::max();
  int64_t total;
  if (llvm::MulOverflow(numElements, getReplicate(), total))
    return std::numeric_limits<int64_t>::max();
  return total / getThreads();
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

//===----------------------------------------------------------------------===//
// TensorLayoutAttr
//===----------------------------------------------------------------------===//

LogicalResult
TensorLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         ArrayRef<int64_t> shape, ArrayRef<int64_t> physical,
                         AffineMap map) {
  auto count = [&](ArrayRef<int64_t> dims, StringRef what,
                   int64_t &n) -> LogicalResult {
    n = 1;
    if (dims.empty())
      return emitError() << "tensor layout needs a " << what
                         << " shape of rank >= 1";
    for (int64_t dim : dims) {
      if (dim <= 0)
        return emitError() << "tensor layout " << what
                           << " shape must be positive, got " << dim;
      if (llvm::MulOverflow(n, dim, n))
        return emitError() << "tensor layout " << what
                           << " shape overflows 64 bits";
    }
    return success();
  };
  int64_t numElements, numPhysical;
  if (failed(count(shape, "logical", numElements)) ||
      failed(count(physical, "physical", numPhysical)))
    return failure();
  if (numElements != numPhysical)
    return emitError() << "tensor layout holds " << numElements
                       << " elements in a physical shape of " << numPhysical;
  if (!map || map.getNumDims() != shape.size() || map.getNumSymbols() != 0 ||
      map.getNumResults() != physical.size())
    return emitError() << "tensor layout map must take " << shape.size()
                       << " dims, no symbols, and give " << physical.size()
                       << " results, got "
                       << (map ? AffineMapAttr::get(map) : Attribute());
  for (AffineExpr result : map.getResults())
    if (findBadDivisor(result))
      return emitError() << "tensor layout map divides by a non-positive or "
                            "non-constant value";
  if (numElements > kMaxEnumeratedElements)
    return success();
  // A bijection onto the physical array: every element in range, none
  // sharing an index with another.
  llvm::BitVector used(numElements);
  SmallVector<int64_t> index(shape.size(), 0);
  for (int64_t linear = 0; linear < numElements; ++linear) {
    delinearize(linear, shape, index);
    int64_t offset = 0;
    for (auto [d, expr] : llvm::enumerate(map.getResults())) {
      std::optional<int64_t> v = evaluate(expr, index);
      if (!v || *v < 0 || *v >= physical[d]) {
        auto diag = emitError() << "tensor layout maps element [";
        llvm::interleaveComma(index, diag);
        diag << "] outside the physical shape [";
        llvm::interleaveComma(physical, diag);
        return diag << "] (result " << d << " is "
                    << (v ? std::to_string(*v) : std::string("undefined"))
                    << ")";
      }
      offset = offset * physical[d] + *v;
    }
    if (used.test(offset)) {
      auto diag = emitError() << "tensor layout maps element [";
      llvm::interleaveComma(index, diag);
      return diag << "] to the place of another element";
    }
    used.set(offset);
  }
  return success();
}

Attribute TensorLayoutAttr::parse(AsmParser &parser, Type) {
  SmallVector<int64_t> shape, physical;
  AffineMap map;
  llvm::SMLoc loc = parser.getCurrentLocation();
  auto dims = [&](SmallVector<int64_t> &out) {
    return parser.parseCommaSeparatedList(
        AsmParser::Delimiter::Square,
        [&]() -> ParseResult { return parser.parseInteger(out.emplace_back()); });
  };
  if (parser.parseLess() || dims(shape) || parser.parseArrow() ||
      dims(physical) || parser.parseComma() || parser.parseAffineMap(map) ||
      parser.parseGreater())
    return {};
  return parser.getChecked<TensorLayoutAttr>(loc, parser.getContext(), shape,
                                             physical, map);
}

void TensorLayoutAttr::print(AsmPrinter &printer) const {
  printer << "<[";
  llvm::interleaveComma(getShape(), printer);
  printer << "] -> [";
  llvm::interleaveComma(getPhysical(), printer);
  printer << "], " << getMap() << ">";
}

AffineMap TensorLayoutAttr::getLinearMap() const {
  AffineExpr offset = getAffineConstantExpr(0, getContext());
  for (auto [d, expr] : llvm::enumerate(getMap().getResults()))
    offset = offset * getPhysical()[d] + expr;
  return AffineMap::get(getShape().size(), 0, offset);
}
