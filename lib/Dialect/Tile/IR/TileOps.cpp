//===- TileOps.cpp - Operations of the tile dialect -----------------------===//

#include "TileOpsCommon.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// A shape as `[a, b, ?]` for diagnostics.
std::string mlir::tile::shapeStr(ArrayRef<int64_t> shape) {
  std::string str;
  llvm::raw_string_ostream os(str);
  os << "[";
  llvm::interleaveComma(shape, os, [&](int64_t d) {
    if (ShapedType::isDynamic(d))
      os << "?";
    else
      os << d;
  });
  os << "]";
  return str;
}

static SmallVector<int64_t> dropUnitDims(ArrayRef<int64_t> shape) {
  return llvm::filter_to_vector(shape, [](int64_t d) { return d != 1; });
}

bool mlir::tile::isTileScope(MemRefType type, ArrayRef<Scope> allowed) {
  std::optional<Scope> scope = getScope(type);
  return scope && llvm::is_contained(allowed, *scope);
}

/// Checks that `type` is a buffer of one of the `allowed` scopes.
LogicalResult mlir::tile::verifyScope(Operation *op, StringRef what, MemRefType type,
                                 ArrayRef<Scope> allowed) {
  if (isTileScope(type, allowed))
    return success();
  auto diag = op->emitOpError() << what << " must be a ";
  llvm::interleave(
      allowed, diag, [&](Scope s) { diag << stringifyScope(s); }, " or ");
  return diag << " buffer (memory space #tile.scope<...>), got a "
              << stringifyScopeOf(type) << " memref " << type;
}

/// Checks that a memref's element type is an integer or float.
static LogicalResult verifyElementType(Operation *op, StringRef what,
                                       MemRefType type) {
  Type elt = type.getElementType();
  if (isa<IntegerType, FloatType, IndexType>(elt))
    return success();
  return op->emitOpError() << what
                           << " must have an integer or float element type, "
                              "got "
                           << elt;
}

static bool isFp8(Type t) {
  return isa<Float8E4M3FNType, Float8E5M2Type, Float8E4M3FNUZType,
             Float8E5M2FNUZType>(t);
}

/// Element types that tensor-core style gemms accept (target-independent).
bool mlir::tile::isLegalGemmTypes(Type a, Type b, Type c, bool sparse) {
  if (a.isF16() && b.isF16())
    return c.isF16() || c.isF32();
  if (a.isBF16() && b.isBF16())
    return c.isF32();
  if (a.isF32() && b.isF32())
    return !sparse && c.isF32();
  if (isFp8(a) && isFp8(b))
    return c.isF32() || c.isF16();
  if (a.isInteger(8) && b.isInteger(8))
    return c.isInteger(32);
  return false;
}


/// Parses an optional `[ index-list ]`; `present` tells whether it was there.
static ParseResult
parseOptionalIndexList(OpAsmParser &parser,
                       SmallVectorImpl<OpAsmParser::UnresolvedOperand> &values,
                       DenseI64ArrayAttr &integers, bool &present) {
  present = false;
  if (failed(parser.parseOptionalLSquare()))
    return success();
  present = true;
  if (succeeded(parser.parseOptionalRSquare())) {
    integers = parser.getBuilder().getDenseI64ArrayAttr({});
    return success();
  }
  if (parseDynamicIndexList(parser, values, integers, /*valueTypes=*/nullptr,
                            AsmParser::Delimiter::None) ||
      parser.parseRSquare())
    return failure();
  return success();
}

LogicalResult mlir::tile::verifyInKernel(Operation *op) {
  if (op->getParentOfType<KernelOp>())
    return success();
  return op->emitOpError() << "must be inside a tile.kernel: tile ops and "
                              "buffers belong to the blocks of a kernel";
}

LogicalResult mlir::tile::verifySignlessIntegers(Operation *op) {
  auto check = [&](Type type, StringRef what, unsigned index) -> LogicalResult {
    Type elt = getElementTypeOrSelf(type);
    auto integer = dyn_cast<IntegerType>(elt);
    if (!integer || integer.isSignless())
      return success();
    return op->emitOpError()
           << what << " #" << index << " has "
           << (elt == type ? "type " : "element type ") << elt
           << "; tile ops take signless integers (i" << integer.getWidth()
           << "): as in arith, signedness belongs to the operations, not "
              "to the data";
  };
  for (auto [i, type] : llvm::enumerate(op->getOperandTypes()))
    if (failed(check(type, "operand", i)))
      return failure();
  for (auto [i, type] : llvm::enumerate(op->getResultTypes()))
    if (failed(check(type, "result", i)))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

static constexpr StringLiteral kBlockIndexNames[] = {"bx", "by", "bz"};

/// The tile.yield that ends a body is implicit in the custom form; it is
/// printed only when it carries attributes, which would otherwise be lost.
bool mlir::tile::needsExplicitTerminator(Region &body) {
  return !body.empty() && !body.front().empty() &&
         !body.front().back().getAttrs().empty();
}

void KernelOp::build(OpBuilder &builder, OperationState &state,
                     ArrayRef<OpFoldResult> grid, int64_t threads) {
  SmallVector<Value> dynamicGrid;
  SmallVector<int64_t> staticGrid;
  dispatchIndexOpFoldResults(grid, dynamicGrid, staticGrid);
  state.addOperands(dynamicGrid);
  state.addAttribute(getStaticGridAttrName(state.name),
                     builder.getDenseI64ArrayAttr(staticGrid));
  state.addAttribute(getThreadsAttrName(state.name),
                     builder.getI64IntegerAttr(threads));
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  for (size_t i = 0; i < grid.size(); ++i)
    block->addArgument(builder.getIndexType(), state.location);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(block);
  YieldOp::create(builder, state.location);
}

SmallVector<OpFoldResult> KernelOp::getMixedGrid() {
  return getMixedValues(getStaticGrid(), getDynamicGrid(), getContext());
}

void KernelOp::getAsmBlockArgumentNames(Region &region,
                                        OpAsmSetValueNameFn setNameFn) {
  for (auto [i, arg] : llvm::enumerate(region.getArguments()))
    if (i < std::size(kBlockIndexNames))
      setNameFn(arg, kBlockIndexNames[i]);
}

// (%bx, %by) in (%n, 8) threads(128) [cluster(2, 1)] attr-dict region
ParseResult KernelOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::Argument> indices;
  if (parser.parseArgumentList(indices, AsmParser::Delimiter::Paren))
    return failure();
  for (OpAsmParser::Argument &arg : indices)
    arg.type = parser.getBuilder().getIndexType();

  SmallVector<OpAsmParser::UnresolvedOperand> dynamicGrid;
  DenseI64ArrayAttr staticGrid;
  int64_t threads;
  if (parser.parseKeyword("in") ||
      parseDynamicIndexList(parser, dynamicGrid, staticGrid,
                            /*valueTypes=*/nullptr,
                            AsmParser::Delimiter::Paren) ||
      parser.parseKeyword("threads") || parser.parseLParen() ||
      parser.parseInteger(threads) || parser.parseRParen())
    return failure();
  if (parser.resolveOperands(dynamicGrid, parser.getBuilder().getIndexType(),
                             result.operands))
    return failure();
  result.addAttribute(getStaticGridAttrName(result.name), staticGrid);
  result.addAttribute(getThreadsAttrName(result.name),
                      parser.getBuilder().getI64IntegerAttr(threads));

  if (succeeded(parser.parseOptionalKeyword("cluster"))) {
    SmallVector<int64_t> cluster;
    if (parser.parseCommaSeparatedList(
            AsmParser::Delimiter::Paren, [&]() -> ParseResult {
              return parser.parseInteger(cluster.emplace_back());
            }))
      return failure();
    result.addAttribute(getClusterAttrName(result.name),
                        parser.getBuilder().getDenseI64ArrayAttr(cluster));
  }

  if (parseCheckedAttrDict<KernelOp>(parser, result, /*withKeyword=*/true))
    return failure();
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, indices))
    return failure();
  KernelOp::ensureTerminator(*body, parser.getBuilder(), result.location);
  return success();
}

void KernelOp::print(OpAsmPrinter &p) {
  p << " (";
  llvm::interleaveComma(getBlockIndices(), p,
                        [&](BlockArgument arg) { p.printOperand(arg); });
  p << ") in ";
  printDynamicIndexList(p, *this, getDynamicGrid(), getStaticGrid(),
                        TypeRange(), AsmParser::Delimiter::Paren);
  p << " threads(" << getThreads() << ")";
  if (std::optional<ArrayRef<int64_t>> cluster = getCluster()) {
    p << " cluster(";
    llvm::interleaveComma(*cluster, p);
    p << ")";
  }
  p.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(),
      {getStaticGridAttrName(), getThreadsAttrName(), getClusterAttrName()});
  p << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/needsExplicitTerminator(getBody()));
}

LogicalResult KernelOp::verify() {
  ArrayRef<int64_t> grid = getStaticGrid();
  if (grid.empty() || grid.size() > 3)
    return emitOpError() << "needs a grid of 1 to 3 dimensions, got "
                         << grid.size();
  if (failed(verifyListOfOperandsOrIntegers(*this, "grid", grid.size(), grid,
                                            getDynamicGrid())))
    return failure();
  for (auto [i, extent] : llvm::enumerate(grid))
    if (!ShapedType::isDynamic(extent) && extent <= 0)
      return emitOpError() << "grid extent " << i << " must be positive, got "
                           << extent;
  if (getBody().empty())
    return emitOpError() << "needs a body";
  Block &body = getBodyBlock();
  if (body.getNumArguments() != grid.size())
    return emitOpError() << "body must take one block index per grid "
                            "dimension: expected "
                         << grid.size() << ", got " << body.getNumArguments();
  for (BlockArgument arg : body.getArguments())
    if (!arg.getType().isIndex())
      return emitOpError() << "block indices must have type index, got "
                           << arg.getType();
  // I64Attr getters are unsigned: read the attribute as signed so that a
  // negative count is rejected rather than taken as a huge one.
  int64_t threads = getThreadsAttr().getInt();
  if (threads <= 0)
    return emitOpError() << "needs threads > 0, got " << threads;
  if (std::optional<ArrayRef<int64_t>> cluster = getCluster()) {
    if (cluster->size() != grid.size())
      return emitOpError() << "cluster must have one extent per grid "
                              "dimension ("
                           << grid.size() << "), got " << cluster->size();
    for (auto [i, c] : llvm::enumerate(*cluster)) {
      if (c <= 0)
        return emitOpError()
               << "cluster extent " << i << " must be positive, got " << c;
      if (!ShapedType::isDynamic(grid[i]) && grid[i] % c != 0)
        return emitOpError()
               << "cluster extent " << i << " (" << c
               << ") must divide the grid extent (" << grid[i] << ")";
    }
  }
  if ((*this)->getParentOfType<KernelOp>())
    return emitOpError() << "cannot be nested in another tile.kernel";
  return success();
}

LogicalResult KernelOp::verifyRegions() {
  // Shared, fragment and local buffers are the block's own: one from
  // outside (a function argument) would have no storage in the block.
  // (After the nested ops' own verifiers, which report what else is wrong
  // with such a buffer first.)
  WalkResult captured = getBody().walk([&](Operation *op) {
    for (Value operand : op->getOperands()) {
      auto type = dyn_cast<MemRefType>(operand.getType());
      if (!type || !getScope(type) ||
          getBody().isAncestor(operand.getParentRegion()))
        continue;
      op->emitOpError() << "uses a " << stringifyScopeOf(type)
                        << " buffer defined outside its tile.kernel (" << type
                        << "); tile buffers belong to the blocks of "
                           "a kernel: allocate it inside with tile.alloc_"
                        << stringifyScopeOf(type)
                        << ", or pass a global memref (no memory space)";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (captured.wasInterrupted())
    return failure();
  if (failed(verifySharedPlan()))
    return failure();
  return verifyOnChipIndices(*this);
}

LogicalResult KernelOp::verifySharedPlan() {
  // tile-plan-shared's placement: all shared buffers planned or none, each
  // inside the planned region.
  std::optional<uint64_t> planned = getPlannedSharedBytes();
  if (planned && int64_t(*planned) < 0)
    return emitOpError() << "has planned_shared_bytes "
                         << int64_t(*planned) << "; it must be >= 0";
  WalkResult bad = getBody().walk([&](AllocSharedOp alloc) {
    std::optional<uint64_t> offset = alloc.getOffset();
    if (!planned && offset) {
      alloc.emitOpError() << "has a shared-memory offset, but its kernel has "
                             "no planned_shared_bytes (tile-plan-shared "
                             "writes both)";
      return WalkResult::interrupt();
    }
    if (planned && !offset) {
      alloc.emitOpError() << "has no shared-memory offset in a kernel whose "
                             "shared buffers are planned (tile-plan-shared "
                             "gives every one an offset)";
      return WalkResult::interrupt();
    }
    if (planned && getBufferBytes(alloc.getType()) >
                       int64_t(*planned) - int64_t(*offset)) {
      alloc.emitOpError() << "of " << getBufferBytes(alloc.getType())
                          << " bytes at offset " << int64_t(*offset)
                          << " ends outside the kernel's planned "
                          << int64_t(*planned) << " bytes of shared memory";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(bad.wasInterrupted());
}

namespace {
/// Turns constant dynamic grid extents into static ones.
struct FoldConstantGrid : public OpRewritePattern<KernelOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(KernelOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<OpFoldResult> grid = op.getMixedGrid();
    std::optional<ArrayRef<int64_t>> cluster = op.getCluster();
    bool changed = false;
    for (auto [i, ofr] : llvm::enumerate(grid)) {
      auto value = dyn_cast<Value>(ofr);
      if (!value)
        continue;
      std::optional<int64_t> cst = getConstantIntValue(value);
      // A non-positive constant, or one that the cluster extent does not
      // divide, would make the op invalid; leave it for the runtime check
      // rather than turning it into a verifier failure.
      if (!cst || *cst <= 0)
        continue;
      if (cluster && i < cluster->size() && (*cluster)[i] > 0 &&
          *cst % (*cluster)[i] != 0)
        continue;
      ofr = rewriter.getIndexAttr(*cst);
      changed = true;
    }
    if (!changed)
      return failure();
    SmallVector<Value> dynamicGrid;
    SmallVector<int64_t> staticGrid;
    dispatchIndexOpFoldResults(grid, dynamicGrid, staticGrid);
    rewriter.modifyOpInPlace(op, [&]() {
      op.getDynamicGridMutable().assign(dynamicGrid);
      op.setStaticGrid(staticGrid);
    });
    return success();
  }
};
} // namespace

void KernelOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                           MLIRContext *context) {
  results.add<FoldConstantGrid>(context);
}

//===----------------------------------------------------------------------===//
// Alloc ops
//===----------------------------------------------------------------------===//

template <typename AllocOpT> static LogicalResult verifyAlloc(AllocOpT op) {
  MemRefType type = op.getType();
  Scope expected = AllocOpT::getExpectedScope();
  std::optional<Scope> scope = getScope(type);
  if (!scope || *scope != expected)
    return op.emitOpError() << "result must be in memory space #tile.scope<"
                            << stringifyScope(expected) << ">, got " << type;
  if (type.getRank() == 0)
    return op.emitOpError() << "needs a buffer of rank >= 1 (use shape [1] "
                               "for a scalar)";
  // (No index is inside a buffer without elements: every access to one is
  // out of bounds, and folding would turn its indices into constants the
  // bounds check refuses.)
  if (llvm::is_contained(type.getShape(), 0))
    return op.emitOpError() << "needs a buffer of at least one element in "
                               "every dimension, got "
                            << type;
  if (!type.getLayout().isIdentity())
    return op.emitOpError() << "buffer must have the identity layout; "
                               "swizzles are set with tile.annotate_layout";
  if (failed(verifyElementType(op, "buffer", type)))
    return failure();
  return success();
}

LogicalResult AllocSharedOp::verify() {
  if (failed(verifyAlloc(*this)))
    return failure();
  if (std::optional<uint64_t> offset = getOffset();
      offset && (int64_t(*offset) < 0 || int64_t(*offset) % kAlignment != 0))
    return emitOpError() << "has offset " << int64_t(*offset)
                         << "; shared buffers are placed at non-negative "
                            "multiples of "
                         << kAlignment << " bytes";
  return success();
}
LogicalResult AllocFragmentOp::verify() { return verifyAlloc(*this); }
LogicalResult AllocLocalOp::verify() { return verifyAlloc(*this); }

//===----------------------------------------------------------------------===//
// CopyOp
//===----------------------------------------------------------------------===//

SmallVector<OpFoldResult> CopyOp::getMixedSourceOffsets() {
  return mixedOffsetsOf(*this, /*target=*/false);
}

SmallVector<OpFoldResult> CopyOp::getMixedTargetOffsets() {
  return mixedOffsetsOf(*this, /*target=*/true);
}

SmallVector<int64_t> CopyOp::getTileShape() {
  return dropUnitDims(getSourceSizes());
}

namespace {
/// One side of a tile.copy as parsed: buffer, optional offsets and sizes.
struct CopySide {
  OpAsmParser::UnresolvedOperand buffer;
  SmallVector<OpAsmParser::UnresolvedOperand> dynamicOffsets;
  DenseI64ArrayAttr staticOffsets;
  bool hasOffsets = false;
  SmallVector<int64_t> sizes;
  bool hasSizes = false;
  llvm::SMLoc loc;
};
} // namespace

static ParseResult parseCopySide(OpAsmParser &parser, CopySide &side) {
  side.loc = parser.getCurrentLocation();
  if (parser.parseOperand(side.buffer) ||
      parseOptionalIndexList(parser, side.dynamicOffsets, side.staticOffsets,
                             side.hasOffsets))
    return failure();
  if (!side.hasOffsets || failed(parser.parseOptionalLSquare()))
    return success();
  side.hasSizes = true;
  if (succeeded(parser.parseOptionalRSquare()))
    return success();
  return failure(parser.parseCommaSeparatedList([&]() -> ParseResult {
    return parser.parseInteger(side.sizes.emplace_back());
  }) || parser.parseRSquare());
}

/// Fills in what the textual form left out (see the op description).
static ParseResult resolveCopySide(OpAsmParser &parser, CopySide &side,
                                   MemRefType type, const CopySide &other,
                                   MemRefType otherType) {
  if (!side.hasOffsets) {
    if (!type.hasStaticShape())
      return parser.emitError(side.loc)
             << "a dynamically shaped buffer needs explicit offsets";
    side.staticOffsets = parser.getBuilder().getDenseI64ArrayAttr(
        SmallVector<int64_t>(type.getRank(), 0));
    side.sizes = llvm::to_vector(type.getShape());
    return success();
  }
  if (side.hasSizes)
    return success();
  bool otherKnown = other.hasSizes || !other.hasOffsets;
  if (!otherKnown || otherType.getRank() != type.getRank())
    return parser.emitError(side.loc)
           << "cannot infer the region sizes of this side: give them as "
              "`[offsets] [sizes]`";
  side.sizes =
      other.hasSizes ? other.sizes : llvm::to_vector(otherType.getShape());
  return success();
}

// %src[offsets] [sizes] to %dst[offsets] [sizes] attr-dict : type to type
ParseResult CopyOp::parse(OpAsmParser &parser, OperationState &result) {
  CopySide source, target;
  Type sourceType, targetType;
  if (parseCopySide(parser, source) || parser.parseKeyword("to") ||
      parseCopySide(parser, target) ||
      parseCheckedAttrDict<CopyOp>(parser, result, /*withKeyword=*/false) ||
      parser.parseColonType(sourceType) || parser.parseKeyword("to") ||
      parser.parseType(targetType))
    return failure();
  auto sourceMemRef = dyn_cast<MemRefType>(sourceType);
  auto targetMemRef = dyn_cast<MemRefType>(targetType);
  if (!sourceMemRef || !targetMemRef)
    return parser.emitError(parser.getNameLoc())
           << "expected memref types, got " << sourceType << " and "
           << targetType;
  if (resolveCopySide(parser, source, sourceMemRef, target, targetMemRef) ||
      resolveCopySide(parser, target, targetMemRef, source, sourceMemRef))
    return failure();

  Builder &b = parser.getBuilder();
  Type index = b.getIndexType();
  if (parser.resolveOperand(source.buffer, sourceType, result.operands) ||
      parser.resolveOperands(source.dynamicOffsets, index, result.operands) ||
      parser.resolveOperand(target.buffer, targetType, result.operands) ||
      parser.resolveOperands(target.dynamicOffsets, index, result.operands))
    return failure();
  result.addAttribute(getStaticSourceOffsetsAttrName(result.name),
                      source.staticOffsets);
  result.addAttribute(getSourceSizesAttrName(result.name),
                      b.getDenseI64ArrayAttr(source.sizes));
  result.addAttribute(getStaticTargetOffsetsAttrName(result.name),
                      target.staticOffsets);
  result.addAttribute(getTargetSizesAttrName(result.name),
                      b.getDenseI64ArrayAttr(target.sizes));
  result.addAttribute(
      getOperandSegmentSizesAttrName(result.name),
      b.getDenseI32ArrayAttr(
          {1, static_cast<int32_t>(source.dynamicOffsets.size()), 1,
           static_cast<int32_t>(target.dynamicOffsets.size())}));
  return success();
}

/// True when a side is the whole statically shaped buffer.
static bool isWholeBuffer(MemRefType type, ArrayRef<int64_t> staticOffsets,
                          ArrayRef<int64_t> sizes) {
  return type.hasStaticShape() &&
         llvm::all_of(staticOffsets, [](int64_t o) { return o == 0; }) &&
         sizes == type.getShape();
}

static void printCopySide(OpAsmPrinter &p, CopyOp op, Value buffer,
                          OperandRange dynamicOffsets,
                          ArrayRef<int64_t> staticOffsets,
                          ArrayRef<int64_t> sizes, bool whole, bool otherWhole,
                          MemRefType otherType) {
  p.printOperand(buffer);
  if (whole)
    return;
  printDynamicIndexList(p, op, dynamicOffsets, staticOffsets);
  // Sizes that the parser would infer from a whole-buffer other side are
  // left out.
  if (otherWhole && otherType.getShape() == sizes)
    return;
  p << " [";
  llvm::interleaveComma(sizes, p);
  p << "]";
}

void CopyOp::print(OpAsmPrinter &p) {
  MemRefType sourceType = getSource().getType();
  MemRefType targetType = getTarget().getType();
  bool sourceWhole =
      isWholeBuffer(sourceType, getStaticSourceOffsets(), getSourceSizes());
  bool targetWhole =
      isWholeBuffer(targetType, getStaticTargetOffsets(), getTargetSizes());
  p << " ";
  printCopySide(p, *this, getSource(), getSourceOffsets(),
                getStaticSourceOffsets(), getSourceSizes(), sourceWhole,
                targetWhole, targetType);
  p << " to ";
  printCopySide(p, *this, getTarget(), getTargetOffsets(),
                getStaticTargetOffsets(), getTargetSizes(), targetWhole,
                sourceWhole, sourceType);
  SmallVector<StringRef> elided = {
      getOperandSegmentSizesAttrName(), getStaticSourceOffsetsAttrName(),
      getSourceSizesAttrName(), getStaticTargetOffsetsAttrName(),
      getTargetSizesAttrName()};
  if (getInst() == CopyInst::Auto)
    elided.push_back(getInstAttrName());
  p.printOptionalAttrDict((*this)->getAttrs(), elided);
  p << " : " << sourceType << " to " << targetType;
}

/// Checks the offsets and sizes of one side of a copy.
LogicalResult mlir::tile::verifyCopyRegion(Operation *op, StringRef side,
                                      MemRefType type,
                                      ArrayRef<int64_t> staticOffsets,
                                      ValueRange dynamicOffsets,
                                      ArrayRef<int64_t> sizes) {
  int64_t rank = type.getRank();
  if (failed(verifyListOfOperandsOrIntegers(op, (side + " offsets").str(), rank,
                                            staticOffsets, dynamicOffsets)))
    return failure();
  if (static_cast<int64_t>(sizes.size()) != rank)
    return op->emitOpError()
           << "expected " << rank << " " << side << " sizes (the rank of "
           << type << "), got " << sizes.size();
  for (int64_t size : sizes)
    if (size <= 0)
      return op->emitOpError()
             << side << " sizes must be positive, got " << shapeStr(sizes);
  if (isGlobal(type))
    return success();
  // Tile buffers have no out-of-bounds semantics: the region must fit.
  for (int64_t d = 0; d < rank; ++d) {
    int64_t offset = staticOffsets[d];
    if (ShapedType::isDynamic(offset))
      continue;
    int64_t dimSize = type.getDimSize(d);
    if (ShapedType::isDynamic(dimSize))
      continue;
    // Written so that it cannot overflow: sizes are positive here.
    if (offset < 0 || sizes[d] > dimSize || offset > dimSize - sizes[d])
      return op->emitOpError()
             << side << " region (offset " << offset << ", size " << sizes[d]
             << " in dim " << d << ") does not fit in the "
             << stringifyScopeOf(type) << " buffer " << type;
  }
  return success();
}

LogicalResult CopyOp::verify() {
  if (failed(verifyOneSourceOneTarget(*this)))
    return failure();
  MemRefType sourceType = getSource().getType();
  MemRefType targetType = getTarget().getType();
  if (failed(verifyElementType(*this, "source", sourceType)) ||
      failed(verifyElementType(*this, "target", targetType)))
    return failure();
  for (MemRefType type : {sourceType, targetType})
    if (!isGlobal(type) && !getScope(type))
      return emitOpError() << "expects global memrefs or tile buffers, got "
                              "memory space "
                           << type.getMemorySpace();
  if (failed(verifyCopyRegion(*this, "source", sourceType,
                              getStaticSourceOffsets(), getSourceOffsets(),
                              getSourceSizes())) ||
      failed(verifyCopyRegion(*this, "target", targetType,
                              getStaticTargetOffsets(), getTargetOffsets(),
                              getTargetSizes())))
    return failure();
  if (dropUnitDims(getSourceSizes()) != dropUnitDims(getTargetSizes())) {
    auto diag = emitOpError()
                << "source region " << shapeStr(getSourceSizes())
                << " and target region " << shapeStr(getTargetSizes())
                << " differ after dropping unit dimensions ("
                << shapeStr(dropUnitDims(getSourceSizes())) << " vs "
                << shapeStr(dropUnitDims(getTargetSizes())) << ")";
    return diag;
  }
  if (std::optional<TypedAttr> pad = getPad()) {
    if (!isa<IntegerAttr, FloatAttr>(*pad) ||
        pad->getType() != sourceType.getElementType())
      return emitOpError() << "pad must be a scalar of the source element "
                              "type "
                           << sourceType.getElementType() << ", got " << *pad;
  }

  std::optional<Scope> src = getScope(sourceType);
  std::optional<Scope> dst = getScope(targetType);
  auto expect = [&](bool ok, StringRef what) -> LogicalResult {
    if (ok)
      return success();
    return emitOpError() << "instruction '" << stringifyCopyInst(getInst())
                         << "' copies " << what << ", not "
                         << stringifyScopeOf(sourceType) << " to "
                         << stringifyScopeOf(targetType);
  };
  switch (getInst()) {
  case CopyInst::Auto:
  case CopyInst::Vector:
    return success();
  case CopyInst::CpAsync:
    return expect(!src && dst == Scope::Shared, "global to shared");
  case CopyInst::Tma:
    return expect((!src && dst == Scope::Shared) ||
                      (src == Scope::Shared && !dst),
                  "global to shared or shared to global");
  case CopyInst::LdMatrix:
    return expect(src == Scope::Shared && dst == Scope::Fragment,
                  "shared to fragment");
  case CopyInst::StMatrix:
    return expect(src == Scope::Fragment && dst == Scope::Shared,
                  "fragment to shared");
  }
  return success();
}
