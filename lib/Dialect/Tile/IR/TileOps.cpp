//===- TileOps.cpp - Operations of the tile dialect -----------------------===//

#include "tile/Dialect/Tile/IR/TileDialect.h"

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
static std::string shapeStr(ArrayRef<int64_t> shape) {
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

static bool isTileScope(MemRefType type, ArrayRef<Scope> allowed) {
  std::optional<Scope> scope = getScope(type);
  return scope && llvm::is_contained(allowed, *scope);
}

/// Checks that `type` is a buffer of one of the `allowed` scopes.
static LogicalResult verifyScope(Operation *op, StringRef what, MemRefType type,
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
static bool isLegalGemmTypes(Type a, Type b, Type c, bool sparse) {
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

static constexpr StringLiteral kLegalGemmTypes =
    "f16 x f16 -> f16 | f32, bf16 x bf16 -> f32, f32 x f32 -> f32, "
    "fp8 x fp8 -> f32 | f16, i8 x i8 -> i32";

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

/// Parses an optional attribute dictionary (with the `attributes` keyword
/// when `withKeyword`) and checks the inherent attributes it sets: without
/// this check a custom parser silently drops an inherent attribute of the
/// wrong kind (for example `order = [1, 0]` instead of `array<i64: 1, 0>`).
template <typename OpT>
static ParseResult parseCheckedAttrDict(OpAsmParser &parser,
                                        OperationState &result,
                                        bool withKeyword) {
  llvm::SMLoc loc = parser.getCurrentLocation();
  if (withKeyword ? parser.parseOptionalAttrDictWithKeyword(result.attributes)
                  : parser.parseOptionalAttrDict(result.attributes))
    return failure();
  return OpT::verifyInherentAttrs(result.name, result.attributes, [&]() {
    return parser.emitError(loc)
           << "'" << result.name.getStringRef() << "' op ";
  });
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
static bool needsExplicitTerminator(Region &body) {
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

/// The source or target offsets of a copy-like op (tile.copy, tile.scan:
/// buffers with static and dynamic offsets on both sides).
template <typename CopyLikeOp>
static SmallVector<OpFoldResult> mixedOffsetsOf(CopyLikeOp op, bool target) {
  if (target)
    return getMixedValues(op.getStaticTargetOffsets(), op.getTargetOffsets(),
                          op.getContext());
  return getMixedValues(op.getStaticSourceOffsets(), op.getSourceOffsets(),
                        op.getContext());
}

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
static LogicalResult verifyCopyRegion(Operation *op, StringRef side,
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
  // ODS checks that operandSegmentSizes adds up, not that the single
  // operands get exactly one value each; getSource() / getTarget() read out
  // of their segment otherwise.
  unsigned numSources = getODSOperandIndexAndLength(0).second;
  unsigned numTargets = getODSOperandIndexAndLength(2).second;
  if (numSources != 1 || numTargets != 1)
    return emitOpError() << "operandSegmentSizes must give one source and "
                            "one target buffer, got "
                         << numSources << " and " << numTargets;
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

//===----------------------------------------------------------------------===//
// GemmOp / GemmSpOp
//===----------------------------------------------------------------------===//

int64_t GemmOp::getM() {
  MemRefType a = getA().getType();
  return a.getDimSize(getTransposeA() ? 1 : 0);
}
int64_t GemmOp::getK() {
  MemRefType a = getA().getType();
  return a.getDimSize(getTransposeA() ? 0 : 1);
}
int64_t GemmOp::getN() {
  MemRefType b = getB().getType();
  return b.getDimSize(getTransposeB() ? 0 : 1);
}

static LogicalResult verifyRank2(Operation *op, StringRef name,
                                 MemRefType type) {
  if (type.getRank() == 2)
    return success();
  return op->emitOpError() << "operand " << name << " must be a 2-d tile, got "
                           << type;
}

static LogicalResult verifyGemmOperands(Operation *op, MemRefType a,
                                        MemRefType b, MemRefType c) {
  if (failed(verifyRank2(op, "A", a)) || failed(verifyRank2(op, "B", b)) ||
      failed(verifyRank2(op, "C", c)))
    return failure();
  if (failed(
          verifyScope(op, "operand A", a, {Scope::Shared, Scope::Fragment})) ||
      failed(
          verifyScope(op, "operand B", b, {Scope::Shared, Scope::Fragment})) ||
      failed(verifyScope(op, "accumulator C", c, {Scope::Fragment})))
    return failure();
  return success();
}

/// The #tile.mma of a gemm (M x N x K, A of `aElt`), if it has one: the
/// instruction's shape and the warp partition must tile the gemm over the
/// kernel's warps.
/// An mfma choice: K of one instruction is 64 bytes of inputs a lane row
/// for the 32x32 shapes and 128 for 16x16 (m32n32k8 f16, m16n16k32 i8),
/// the waves' tiles are whole instructions, one wave per 64 threads.
static LogicalResult verifyMfmaChoice(Operation *op, MmaAttr mma, int64_t m,
                                      int64_t n, int64_t k, int64_t bits) {
  int64_t wantK = (mma.getM() == 32 ? 128 : 256) / bits;
  if (mma.getK() != wantK || k % wantK != 0)
    return op->emitOpError()
           << "has " << mma << ", whose K must be " << wantK << " for "
           << bits << "-bit inputs and divide the gemm's K (" << k << ")";
  int64_t rowsM, colsN, waves;
  if (llvm::MulOverflow(mma.getWarpsM(), mma.getM(), rowsM) ||
      llvm::MulOverflow(mma.getWarpsN(), mma.getN(), colsN) ||
      llvm::MulOverflow(mma.getWarpsM(), mma.getWarpsN(), waves) ||
      m % rowsM != 0 || n % colsN != 0)
    return op->emitOpError() << "has " << mma << ", which does not tile its "
                             << m << "x" << n << " output";
  auto kernel = op->getParentOfType<KernelOp>();
  if (kernel && (kernel.getThreads() % 64 != 0 ||
                 uint64_t(waves) != kernel.getThreads() / 64))
    return op->emitOpError()
           << "has " << mma << ", a partition over " << waves
           << " 64-lane wavefronts, but the kernel has "
           << kernel.getThreads() << " threads";
  return success();
}

static LogicalResult verifyMmaChoice(Operation *op, MmaAttr mma, int64_t m,
                                     int64_t n, int64_t k, Type aElt) {
  if (!mma)
    return success();
  int64_t bits = aElt.getIntOrFloatBitWidth();
  bool fp8 = isa<Float8E4M3FNType, Float8E5M2Type>(aElt);
  bool wgmma = mma.getKind() == MmaKind::Wgmma;
  if (mma.getKind() == MmaKind::Mfma)
    return verifyMfmaChoice(op, mma, m, n, k, bits);
  if (mma.getK() != 256 / bits || k % mma.getK() != 0)
    return op->emitOpError()
           << "has " << mma << ", whose K must be " << 256 / bits
           << " for inputs of " << aElt << " and divide the gemm's K (" << k
           << ")";
  // (Products of the attribute's fields may overflow: then nothing fits.)
  int64_t strips, rowsM, colsN, warps;
  bool overflow =
      llvm::MulOverflow(mma.getWarpsM(), int64_t{16}, strips) ||
      llvm::MulOverflow(strips, mma.getRepeats(), rowsM) ||
      llvm::MulOverflow(mma.getWarpsN(), int64_t{8}, colsN) ||
      llvm::MulOverflow(mma.getWarpsM(), mma.getWarpsN(), warps);
  if (overflow ||
      (wgmma ? (m != rowsM || n != mma.getN() * mma.getWarpsN())
             : (m % rowsM != 0 || n % colsN != 0)))
    return op->emitOpError() << "has " << mma << ", which does not tile its "
                             << m << "x" << n << " output";
  if (!wgmma && fp8)
    return op->emitOpError() << "has fp8 inputs, which run as wgmma only, but "
                             << mma << " asks for mma_sync";
  auto kernel = op->getParentOfType<KernelOp>();
  if (kernel && (kernel.getThreads() % 32 != 0 ||
                 uint64_t(warps) != kernel.getThreads() / 32))
    return op->emitOpError()
           << "has " << mma << ", a partition over " << warps
           << " warps, but the kernel has " << kernel.getThreads()
           << " threads";
  return success();
}

LogicalResult GemmOp::verify() {
  MemRefType a = getA().getType(), b = getB().getType(), c = getC().getType();
  if (failed(verifyGemmOperands(*this, a, b, c)))
    return failure();
  int64_t kb = b.getDimSize(getTransposeB() ? 1 : 0);
  if (getK() != kb)
    return emitOpError() << "K of A (" << getK() << ", A is " << a
                         << (getTransposeA() ? " transposed" : "")
                         << ") does not match K of B (" << kb << ", B is " << b
                         << (getTransposeB() ? " transposed" : "") << ")";
  if (c.getDimSize(0) != getM() || c.getDimSize(1) != getN())
    return emitOpError() << "accumulator C must be " << getM() << "x" << getN()
                         << " (M x N), got " << c;
  if (!isLegalGemmTypes(a.getElementType(), b.getElementType(),
                        c.getElementType(), /*sparse=*/false))
    return emitOpError() << "unsupported element types " << a.getElementType()
                         << " x " << b.getElementType() << " -> "
                         << c.getElementType()
                         << "; legal are: " << kLegalGemmTypes;
  return verifyMmaChoice(*this, getMmaAttr(), getM(), getN(), getK(),
                         a.getElementType());
}

LogicalResult GemmSpOp::verify() {
  MemRefType a = getA().getType(), e = getE().getType(), b = getB().getType(),
             c = getC().getType();
  if (failed(verifyGemmOperands(*this, a, b, c)) ||
      failed(verifyRank2(*this, "E", e)) ||
      failed(verifyScope(*this, "metadata E", e,
                         {Scope::Shared, Scope::Fragment})))
    return failure();
  int64_t k = b.getDimSize(getTransposeB() ? 1 : 0);
  int64_t n = b.getDimSize(getTransposeB() ? 0 : 1);
  int64_t m = a.getDimSize(0);
  if (k % 4 != 0)
    return emitOpError() << "K (" << k
                         << ") must be a multiple of 4 for 2:4 sparsity";
  if (a.getDimSize(1) * 2 != k)
    return emitOpError() << "compressed A must be M x K/2 = " << m << "x"
                         << k / 2 << " for K = " << k << " (from B), got " << a;
  auto metaType = dyn_cast<IntegerType>(e.getElementType());
  if (!metaType || !llvm::is_contained({8u, 16u, 32u}, metaType.getWidth()))
    return emitOpError() << "metadata E must have element type i8, i16 or "
                            "i32, got "
                         << e.getElementType();
  int64_t width = metaType.getWidth();
  if (k % width != 0 || e.getDimSize(0) != m || e.getDimSize(1) != k / width)
    return emitOpError() << "metadata E must be M x K/" << width << " = " << m
                         << "x" << (k / width) << " for K = " << k
                         << " and element type " << metaType << ", got " << e;
  if (c.getDimSize(0) != m || c.getDimSize(1) != n)
    return emitOpError() << "accumulator C must be " << m << "x" << n
                         << " (M x N), got " << c;
  if (!isLegalGemmTypes(a.getElementType(), b.getElementType(),
                        c.getElementType(), /*sparse=*/true))
    return emitOpError() << "unsupported element types " << a.getElementType()
                         << " x " << b.getElementType() << " -> "
                         << c.getElementType()
                         << " for a sparse gemm; legal are f16 x f16 -> f16 | "
                            "f32, bf16 x bf16 -> f32, fp8 x fp8 -> f32 | f16, "
                            "i8 x i8 -> i32";
  if (getMmaAttr() && getMmaAttr().getKind() != MmaKind::MmaSync)
    return emitOpError() << "runs as mma_sync on its expanded A, but has "
                         << getMmaAttr();
  return verifyMmaChoice(*this, getMmaAttr(), m, n, k, a.getElementType());
}

//===----------------------------------------------------------------------===//
// FillOp / ClearOp
//===----------------------------------------------------------------------===//

static constexpr std::initializer_list<Scope> kTileScopes = {
    Scope::Shared, Scope::Fragment, Scope::Local};

LogicalResult FillOp::verify() {
  MemRefType type = getBuffer().getType();
  if (failed(verifyScope(*this, "buffer", type, kTileScopes)))
    return failure();
  if (getValue().getType() != type.getElementType())
    return emitOpError() << "value type " << getValue().getType()
                         << " must be the buffer's element type "
                         << type.getElementType();
  return success();
}

namespace {
/// fill with +0 (or integer 0) is clear.
struct FillZeroToClear : public OpRewritePattern<FillOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FillOp op,
                                PatternRewriter &rewriter) const override {
    if (!matchPattern(op.getValue(), m_Zero()) &&
        !matchPattern(op.getValue(), m_PosZeroFloat()))
      return failure();
    rewriter.replaceOpWithNewOp<ClearOp>(op, op.getBuffer());
    return success();
  }
};
} // namespace

void FillOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  results.add<FillZeroToClear>(context);
}

LogicalResult ClearOp::verify() {
  return verifyScope(*this, "buffer", getBuffer().getType(), kTileScopes);
}

//===----------------------------------------------------------------------===//
// ReduceOp
//===----------------------------------------------------------------------===//

static ParseResult parseReduceKind(OpAsmParser &parser, ReduceKindAttr &kind) {
  llvm::SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<ReduceKind> value = symbolizeReduceKind(keyword);
  if (!value)
    return parser.emitError(loc)
           << "unknown reduction '" << keyword
           << "'; expected sum, max, min, abssum or absmax";
  kind = ReduceKindAttr::get(parser.getContext(), *value);
  return success();
}

static void printReduceKind(OpAsmPrinter &p, Operation *, ReduceKindAttr kind) {
  p << stringifyReduceKind(kind.getValue());
}

LogicalResult ReduceOp::verify() {
  MemRefType src = getSource().getType(), dst = getTarget().getType();
  if (failed(verifyScope(*this, "source", src, kTileScopes)) ||
      failed(verifyScope(*this, "target", dst, kTileScopes)))
    return failure();
  int64_t rank = src.getRank();
  if (rank == 0)
    return emitOpError() << "source must have rank >= 1";
  // The I64Attr getter is unsigned; a negative dim must not wrap around.
  int64_t dim = getDimAttr().getInt();
  if (dim < 0 || dim >= rank)
    return emitOpError() << "dim " << dim << " is out of range for a "
                         << "source of rank " << rank;
  SmallVector<int64_t> expected = llvm::to_vector(src.getShape());
  expected.erase(expected.begin() + dim);
  if (expected.empty())
    expected.push_back(1);
  if (dst.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "target shape must be " << shapeStr(expected)
                         << " (source shape without dim " << dim << "), got "
                         << shapeStr(dst.getShape());
  if (src.getElementType() != dst.getElementType())
    return emitOpError() << "source and target element types differ: "
                         << src.getElementType() << " vs "
                         << dst.getElementType();
  if (!isa<FloatType, IntegerType>(src.getElementType()))
    return emitOpError() << "reduces integer or float tiles, got "
                         << src.getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// FinalizeReducerOp
//===----------------------------------------------------------------------===//

LogicalResult FinalizeReducerOp::verify() {
  MemRefType type = getReducer().getType();
  if (failed(verifyScope(*this, "reducer", type, {Scope::Local})))
    return failure();
  ReduceKind kind = getKind();
  if (kind != ReduceKind::Sum && kind != ReduceKind::Max &&
      kind != ReduceKind::Min)
    return emitOpError() << "combines by sum, max or min, got "
                         << stringifyReduceKind(kind);
  Type elt = type.getElementType();
  if (!isa<FloatType, IntegerType>(elt))
    return emitOpError() << "reduces integer or float buffers, got " << elt;
  if (getSeed() && getSeed().getType() != elt)
    return emitOpError() << "seed must have the reducer's element type "
                         << elt << ", got " << getSeed().getType();
  return success();
}

//===----------------------------------------------------------------------===//
// Atomic ops
//===----------------------------------------------------------------------===//

template <typename AtomicOpT> static LogicalResult verifyAtomic(AtomicOpT op) {
  MemRefType target = op.getTarget().getType();
  if (!isGlobal(target) && !isTileScope(target, {Scope::Shared}))
    return op.emitOpError() << "target must be global or shared memory, got "
                            << stringifyScopeOf(target) << " " << target;
  if (failed(verifyListOfOperandsOrIntegers(op, "offsets", target.getRank(),
                                            op.getStaticOffsets(),
                                            op.getOffsets())))
    return failure();
  Type elt = target.getElementType();
  if (!isa<FloatType>(elt) && !elt.isInteger(32) && !elt.isInteger(64))
    return op.emitOpError()
           << "supports float, i32 and i64 targets, got " << elt;
  Type valueType = op.getValue().getType();
  if (std::optional<ArrayRef<int64_t>> sizes = op.getSizes()) {
    if (isa<MemRefType>(valueType))
      return op.emitOpError()
             << "takes sizes only with a scalar value (a tile value gives "
                "the region's shape)";
    if (static_cast<int64_t>(sizes->size()) != target.getRank())
      return op.emitOpError()
             << "expected " << target.getRank()
             << " sizes (one per target dimension), got " << sizes->size();
    if (llvm::any_of(*sizes, [](int64_t s) { return s <= 0; }))
      return op.emitOpError() << "sizes must be positive";
  }
  if (auto tileType = dyn_cast<MemRefType>(valueType)) {
    if (!tileType.hasStaticShape())
      return op.emitOpError()
             << "value tile must be a statically shaped tile buffer, got "
             << tileType;
    if (failed(verifyScope(op, "value tile", tileType, kTileScopes)))
      return failure();
    if (tileType.getRank() != target.getRank())
      return op.emitOpError()
             << "value tile rank (" << tileType.getRank()
             << ") must equal the target rank (" << target.getRank() << ")";
    if (tileType.getElementType() != elt)
      return op.emitOpError()
             << "value tile element type " << tileType.getElementType()
             << " must be the target's " << elt;
    return success();
  }
  if (valueType != elt)
    return op.emitOpError() << "value must be a " << elt
                            << " scalar or a tile buffer, got " << valueType;
  return success();
}

#define TILE_ATOMIC_OP_METHODS(OpT)                                            \
  LogicalResult OpT::verify() { return verifyAtomic(*this); }                  \
  SmallVector<OpFoldResult> OpT::getMixedOffsets() {                           \
    return getMixedValues(getStaticOffsets(), getOffsets(), getContext());     \
  }
TILE_ATOMIC_OP_METHODS(AtomicAddOp)
TILE_ATOMIC_OP_METHODS(AtomicMaxOp)
TILE_ATOMIC_OP_METHODS(AtomicMinOp)
#undef TILE_ATOMIC_OP_METHODS

//===----------------------------------------------------------------------===//
// ViewOp
//===----------------------------------------------------------------------===//

Value ViewOp::getViewSource() { return getSource(); }

LogicalResult MakeTensorOp::verify() {
  MemRefType type = getType();
  if (type.getMemorySpace())
    return emitOpError() << "makes a global tensor (no memory space), got "
                         << type;
  if (!type.getLayout().isIdentity())
    return emitOpError() << "makes a row-major tensor, got " << type;
  Type elt = type.getElementType();
  if (!elt.isIntOrFloat())
    return emitOpError() << "elements must be integers or floats, got "
                         << elt;
  if (static_cast<int64_t>(getSizes().size()) != type.getNumDynamicDims())
    return emitOpError() << "has " << getSizes().size()
                         << " sizes for the " << type.getNumDynamicDims()
                         << " dynamic dimensions of " << type;
  return success();
}

LogicalResult ViewOp::verify() {
  MemRefType src = getSource().getType(), dst = getResult().getType();
  if (failed(verifyScope(*this, "source", src, {Scope::Shared})) ||
      failed(verifyScope(*this, "result", dst, {Scope::Shared})))
    return failure();
  for (auto [what, type] : {std::make_pair("source", src),
                            std::make_pair("result", dst)}) {
    Type elt = type.getElementType();
    // float4_e2m1fn is stored two a byte (tile-emulate-fp4): its rows must
    // be whole bytes.
    bool packedFp4 = isa<Float4E2M1FNType>(elt) && type.getRank() > 0 &&
                     type.getShape().back() % 2 == 0;
    if (!packedFp4 &&
        (!elt.isIntOrFloat() || elt.getIntOrFloatBitWidth() % 8 != 0))
      return emitOpError() << what << " elements must be integers or floats "
                                      "of whole bytes (or float4_e2m1fn "
                                      "rows of an even length), got "
                           << elt;
    if (!type.getLayout().isIdentity())
      return emitOpError() << what << " must be a row-major buffer, got "
                           << type;
  }
  if (getBufferBytes(src) != getBufferBytes(dst))
    return emitOpError() << "views the " << getBufferBytes(src)
                         << " bytes of " << src << " as the "
                         << getBufferBytes(dst) << " bytes of " << dst
                         << ": both must hold the same bytes";
  // After tile-place-buffers a shared buffer is the tile.bind_storage of
  // its placed bytes.
  if (!getSource().getDefiningOp<AllocSharedOp>() &&
      !getSource().getDefiningOp<ViewOp>() &&
      !getSource().getDefiningOp<BindStorageOp>())
    return emitOpError() << "views a tile.alloc_shared buffer or a view of "
                            "one";
  return success();
}

//===----------------------------------------------------------------------===//
// ScanOp
//===----------------------------------------------------------------------===//

SmallVector<OpFoldResult> ScanOp::getMixedSourceOffsets() {
  return mixedOffsetsOf(*this, /*target=*/false);
}

SmallVector<OpFoldResult> ScanOp::getMixedTargetOffsets() {
  return mixedOffsetsOf(*this, /*target=*/true);
}

LogicalResult ScanOp::verify() {
  unsigned numSources = getODSOperandIndexAndLength(0).second;
  unsigned numTargets = getODSOperandIndexAndLength(2).second;
  if (numSources != 1 || numTargets != 1)
    return emitOpError() << "operandSegmentSizes must give one source and "
                            "one target buffer, got "
                         << numSources << " and " << numTargets;
  if (getKind() != ReduceKind::Sum && getKind() != ReduceKind::Max)
    return emitOpError() << "scans by sum or max, got "
                         << stringifyReduceKind(getKind());
  MemRefType src = getSource().getType(), dst = getTarget().getType();
  if (failed(verifyScope(*this, "source", src, kTileScopes)) ||
      failed(verifyScope(*this, "target", dst, kTileScopes)))
    return failure();
  if ((getScope(src) == Scope::Local) != (getScope(dst) == Scope::Local))
    return emitOpError() << "scans a block's tile (shared or fragment "
                            "buffers) or each thread's own copy (local "
                            "buffers on both sides), not "
                         << stringifyScopeOf(src) << " to "
                         << stringifyScopeOf(dst);
  if (src.getElementType() != dst.getElementType())
    return emitOpError() << "source and target element types differ: "
                         << src.getElementType() << " vs "
                         << dst.getElementType();
  Type elt = src.getElementType();
  if (!(elt.isInteger() && elt.getIntOrFloatBitWidth() >= 8) &&
      !isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(elt))
    return emitOpError() << "scans tiles of 8- to 64-bit integers or of f16, "
                            "bf16, f32 or f64, got "
                         << elt;
  if (src.getRank() == 0 || src.getRank() != dst.getRank())
    return emitOpError() << "source and target must have the same rank >= 1, "
                            "got "
                         << src.getRank() << " and " << dst.getRank();
  if (failed(verifyCopyRegion(*this, "source", src, getStaticSourceOffsets(),
                              getSourceOffsets(), getSourceSizes())) ||
      failed(verifyCopyRegion(*this, "target", dst, getStaticTargetOffsets(),
                              getTargetOffsets(), getTargetSizes())))
    return failure();
  if (getSourceSizes() != getTargetSizes())
    return emitOpError() << "source region " << shapeStr(getSourceSizes())
                         << " and target region " << shapeStr(getTargetSizes())
                         << " must have the same sizes";
  // The I64Attr getter is unsigned; a negative dim must not wrap around.
  int64_t dim = getDimAttr().getInt();
  if (dim < 0 || dim >= src.getRank())
    return emitOpError() << "dim " << dim << " is out of range for regions "
                         << "of rank " << src.getRank();
  for (auto [what, type, sizes] :
       {std::make_tuple("source", src, getSourceSizes()),
        std::make_tuple("target", dst, getTargetSizes())})
    if (getScope(type) == Scope::Fragment && type.getShape() != sizes)
      return emitOpError() << "scans a fragment whole: the " << what
                           << " region " << shapeStr(sizes)
                           << " must be the fragment's shape "
                           << shapeStr(type.getShape());
  if (getSource() == getTarget() &&
      (getMixedSourceOffsets() != getMixedTargetOffsets()))
    return emitOpError() << "scans a buffer in place only over one region: "
                            "the source and target offsets differ";
  return success();
}

//===----------------------------------------------------------------------===//
// ParallelOp
//===----------------------------------------------------------------------===//

void ParallelOp::build(OpBuilder &builder, OperationState &state,
                       ArrayRef<int64_t> extents) {
  state.addAttribute(getExtentsAttrName(state.name),
                     builder.getDenseI64ArrayAttr(extents));
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  for (size_t i = 0; i < extents.size(); ++i)
    block->addArgument(builder.getIndexType(), state.location);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(block);
  YieldOp::create(builder, state.location);
}

// (%i, %j) in (64, 64) attr-dict region
ParseResult ParallelOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::Argument> ivs;
  SmallVector<int64_t> extents;
  if (parser.parseArgumentList(ivs, AsmParser::Delimiter::Paren) ||
      parser.parseKeyword("in") ||
      parser.parseCommaSeparatedList(
          AsmParser::Delimiter::Paren, [&]() -> ParseResult {
            return parser.parseInteger(extents.emplace_back());
          }))
    return failure();
  for (OpAsmParser::Argument &iv : ivs)
    iv.type = parser.getBuilder().getIndexType();
  result.addAttribute(getExtentsAttrName(result.name),
                      parser.getBuilder().getDenseI64ArrayAttr(extents));
  if (parseCheckedAttrDict<ParallelOp>(parser, result, /*withKeyword=*/true))
    return failure();
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, ivs))
    return failure();
  ParallelOp::ensureTerminator(*body, parser.getBuilder(), result.location);
  return success();
}

void ParallelOp::print(OpAsmPrinter &p) {
  p << " (";
  llvm::interleaveComma(getBodyBlock().getArguments(), p,
                        [&](BlockArgument arg) { p.printOperand(arg); });
  p << ") in (";
  llvm::interleaveComma(getExtents(), p);
  p << ")";
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(),
                                     {getExtentsAttrName()});
  p << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/needsExplicitTerminator(getBody()));
}

LogicalResult ParallelOp::verify() {
  ArrayRef<int64_t> extents = getExtents();
  if (extents.empty())
    return emitOpError() << "needs at least one dimension";
  for (auto [i, e] : llvm::enumerate(extents))
    if (e <= 0)
      return emitOpError() << "extent " << i << " must be positive, got " << e;
  if (getBody().empty())
    return emitOpError() << "needs a body";
  Block &body = getBodyBlock();
  if (body.getNumArguments() != extents.size())
    return emitOpError() << "body must take one index per dimension: "
                            "expected "
                         << extents.size() << ", got "
                         << body.getNumArguments();
  for (BlockArgument arg : body.getArguments())
    if (!arg.getType().isIndex())
      return emitOpError() << "induction variables must have type index, got "
                           << arg.getType();
  return success();
}

SmallVector<Region *> ParallelOp::getLoopRegions() { return {&getBody()}; }

std::optional<SmallVector<Value>> ParallelOp::getLoopInductionVars() {
  return SmallVector<Value>(getBodyBlock().getArguments());
}

//===----------------------------------------------------------------------===//
// PipelinedOp
//===----------------------------------------------------------------------===//

void PipelinedOp::build(OpBuilder &builder, OperationState &state, Value lower,
                        Value upper, Value step, int64_t numStages) {
  state.addOperands({lower, upper, step});
  state.addAttribute(getNumStagesAttrName(state.name),
                     builder.getI64IntegerAttr(numStages));
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  block->addArgument(builder.getIndexType(), state.location);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(block);
  YieldOp::create(builder, state.location);
}

// %k = %lb to %ub step %s num_stages = 3 attr-dict region
ParseResult PipelinedOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::Argument iv;
  OpAsmParser::UnresolvedOperand lower, upper, step;
  int64_t numStages;
  Type index = parser.getBuilder().getIndexType();
  if (parser.parseArgument(iv) || parser.parseEqual() ||
      parser.parseOperand(lower) || parser.parseKeyword("to") ||
      parser.parseOperand(upper) || parser.parseKeyword("step") ||
      parser.parseOperand(step) || parser.parseKeyword("num_stages") ||
      parser.parseEqual() || parser.parseInteger(numStages) ||
      parser.resolveOperand(lower, index, result.operands) ||
      parser.resolveOperand(upper, index, result.operands) ||
      parser.resolveOperand(step, index, result.operands))
    return failure();
  iv.type = index;
  result.addAttribute(getNumStagesAttrName(result.name),
                      parser.getBuilder().getI64IntegerAttr(numStages));
  if (parseCheckedAttrDict<PipelinedOp>(parser, result, /*withKeyword=*/true))
    return failure();
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, {iv}))
    return failure();
  PipelinedOp::ensureTerminator(*body, parser.getBuilder(), result.location);
  return success();
}

void PipelinedOp::print(OpAsmPrinter &p) {
  p << " ";
  p.printOperand(getInductionVar());
  p << " = " << getLower() << " to " << getUpper() << " step " << getStep()
    << " num_stages = " << getNumStages();
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(),
                                     {getNumStagesAttrName()});
  p << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/needsExplicitTerminator(getBody()));
}

LogicalResult PipelinedOp::verify() {
  // The I64Attr getter is unsigned; read it signed so that negative stage
  // counts are rejected.
  int64_t numStages = getNumStagesAttr().getInt();
  if (numStages < 1)
    return emitOpError() << "num_stages must be >= 1, got " << numStages;
  if (getBody().empty())
    return emitOpError() << "needs a body";
  Block &body = getBodyBlock();
  if (body.getNumArguments() != 1 || !body.getArgument(0).getType().isIndex())
    return emitOpError() << "body must take one index induction variable";
  if (std::optional<int64_t> step = getConstantIntValue(getStep()))
    if (*step <= 0)
      return emitOpError() << "step must be positive, got " << *step;
  // Pure ops (index arithmetic, constants) are scheduled with their users
  // and are not listed, so canonicalization cannot invalidate the lists.
  // Counting them asks the body's ops for their memory effects, which is
  // only safe once they are valid (an op's effects read its operand
  // segments, for one); the verifier gets to them only after this op, so
  // check them here first. Their own diagnostics say what is wrong.
  if (!getOrder() && !getStage())
    return success();
  for (Operation &op : body.without_terminator())
    if (failed(mlir::verify(&op)))
      return failure();
  int64_t numOps = getNumScheduledOps();
  auto checkList = [&](StringRef name,
                       std::optional<ArrayRef<int64_t>> list) -> LogicalResult {
    if (!list)
      return success();
    if (static_cast<int64_t>(list->size()) != numOps)
      return emitOpError() << name
                           << " must have one entry per op of the "
                              "body with side effects ("
                           << numOps << "), got " << list->size();
    return success();
  };
  if (failed(checkList("order", getOrder())) ||
      failed(checkList("stage", getStage())))
    return failure();
  if (std::optional<ArrayRef<int64_t>> order = getOrder()) {
    SmallVector<bool> seen(numOps, false);
    for (int64_t pos : *order) {
      if (pos < 0 || pos >= numOps || seen[pos])
        return emitOpError()
               << "order must be a permutation of 0.." << numOps - 1;
      seen[pos] = true;
    }
  }
  if (std::optional<ArrayRef<int64_t>> stage = getStage())
    for (int64_t s : *stage)
      if (s < 0 || s >= numStages)
        return emitOpError()
               << "stage " << s << " is out of range [0, " << numStages << ")";
  return success();
}

int64_t PipelinedOp::getNumScheduledOps() {
  int64_t count = 0;
  for (Operation &op : getBodyBlock().without_terminator())
    if (!isMemoryEffectFree(&op))
      ++count;
  return count;
}

SmallVector<Region *> PipelinedOp::getLoopRegions() { return {&getBody()}; }

std::optional<SmallVector<Value>> PipelinedOp::getLoopInductionVars() {
  return SmallVector<Value>{getInductionVar()};
}
std::optional<SmallVector<OpFoldResult>> PipelinedOp::getLoopLowerBounds() {
  return SmallVector<OpFoldResult>{getLower()};
}
std::optional<SmallVector<OpFoldResult>> PipelinedOp::getLoopUpperBounds() {
  return SmallVector<OpFoldResult>{getUpper()};
}
std::optional<SmallVector<OpFoldResult>> PipelinedOp::getLoopSteps() {
  return SmallVector<OpFoldResult>{getStep()};
}

//===----------------------------------------------------------------------===//
// AnnotateLayoutOp
//===----------------------------------------------------------------------===//

LogicalResult AnnotateLayoutOp::verify() {
  MemRefType type = getBuffer().getType();
  auto sameShape = [&](ArrayRef<int64_t> shape, StringRef layout,
                       StringRef buffer) -> LogicalResult {
    if (shape == type.getShape())
      return success();
    return emitOpError() << layout << " layout shape " << shapeStr(shape)
                         << " must equal the " << buffer << " shape "
                         << shapeStr(type.getShape());
  };
  if (auto fragment = dyn_cast<FragmentLayoutAttr>(getLayout())) {
    if (failed(verifyScope(*this, "a buffer with a #tile.fragment layout", type,
                           {Scope::Fragment})))
      return failure();
    return sameShape(fragment.getShape(), "fragment", "buffer");
  }
  if (auto layout = dyn_cast<TensorLayoutAttr>(getLayout())) {
    if (!isGlobal(type) || !type.getLayout().isIdentity())
      return emitOpError() << "a #tile.layout places the elements of a "
                              "contiguous global tensor; the buffer is "
                           << type;
    return sameShape(layout.getShape(), "tensor", "tensor's");
  }
  return verifyScope(*this, "a buffer with a #tile.swizzle layout", type,
                     {Scope::Shared});
}

//===----------------------------------------------------------------------===//
// BindStorageOp
//===----------------------------------------------------------------------===//

LogicalResult BindStorageOp::verify() {
  MemRefType type = getResult().getType();
  std::optional<Scope> scope = getScope(type);
  if (!scope)
    return emitOpError() << "result must be a tile buffer (memory space "
                            "#tile.scope<...>), got "
                         << type;
  auto belongsTo = [&](StringRef attr, bool present,
                       Scope owner) -> LogicalResult {
    if (!present || *scope == owner)
      return success();
    return emitOpError() << "'" << attr << "' belongs to "
                         << stringifyScope(owner) << " buffers, not to a "
                         << stringifyScope(*scope) << " buffer";
  };
  if (failed(belongsTo("layout", bool(getLayout()), Scope::Fragment)) ||
      failed(belongsTo("scratch_offset", bool(getScratchOffset()),
                       Scope::Fragment)) ||
      failed(belongsTo("planned_offset", bool(getPlannedOffset()),
                       Scope::Shared)) ||
      failed(belongsTo("swizzle_chunks", bool(getSwizzleChunks()),
                       Scope::Shared)) ||
      failed(belongsTo("panel_rows", bool(getPanelRows()), Scope::Shared)))
    return failure();
  if (bool(getPanelRows()) != bool(getPanelBytes()))
    return emitOpError() << "'panel_rows' and 'panel_bytes' go together";
  if (std::optional<uint64_t> bytes = getPanelBytes();
      bytes && !llvm::is_contained({32, 64, 128}, int64_t(*bytes)))
    return emitOpError() << "has panel_bytes " << int64_t(*bytes)
                         << "; panels are 128, 64 or 32 bytes wide (the "
                            "TMA / wgmma swizzle widths)";
  for (auto [name, offset] : {std::pair{"scratch_offset", getScratchOffset()},
                              std::pair{"planned_offset", getPlannedOffset()}})
    if (offset && (int64_t(*offset) < 0 ||
                   int64_t(*offset) % AllocSharedOp::kAlignment != 0))
      return emitOpError() << "has " << name << " " << int64_t(*offset)
                           << "; shared buffers are placed at non-negative "
                              "multiples of "
                           << AllocSharedOp::kAlignment << " bytes";
  for (auto [name, count] : {std::pair{"swizzle_chunks", getSwizzleChunks()},
                             std::pair{"panel_rows", getPanelRows()}})
    if (count && int64_t(*count) <= 0)
      return emitOpError() << "has " << name << " " << int64_t(*count)
                           << "; it must be positive";
  if (getSwizzleChunks() && (type.getRank() != 2 || getPanelRows()))
    return emitOpError() << "'swizzle_chunks' swizzles plain 2-d shared "
                            "buffers; the buffer is "
                         << type << (getPanelRows() ? " in panels" : "");

  // The storage: a shared address for panel buffers, else a memref of the
  // buffer's elements.
  if (getPanelRows()) {
    if (!getStorage().getType().isIndex())
      return emitOpError() << "with 'panel_rows' binds a shared address "
                              "(index), got "
                           << getStorage().getType();
    int64_t rowBits = type.getRank() == 2 && type.getElementType().isIntOrFloat()
                          ? type.getDimSize(1) * type.getElementTypeBitWidth()
                          : 0;
    if (rowBits == 0 || rowBits % (int64_t(*getPanelBytes()) * 8) != 0)
      return emitOpError() << "with 'panel_bytes' " << int64_t(*getPanelBytes())
                           << " needs a 2-d buffer whose rows are whole "
                              "panels, got "
                           << type;
    return success();
  }
  auto storage = dyn_cast<MemRefType>(getStorage().getType());
  if (!storage)
    return emitOpError() << "binds an index (a shared address) only with "
                            "'panel_rows'";
  if (storage.getElementType() != type.getElementType())
    return emitOpError() << "storage element type " << storage.getElementType()
                         << " must be the buffer's " << type.getElementType();
  if (*scope != Scope::Fragment) {
    if (storage.getShape() != type.getShape())
      return emitOpError() << "storage shape " << shapeStr(storage.getShape())
                           << " must be the buffer's shape "
                           << shapeStr(type.getShape());
    return success();
  }
  FragmentLayoutAttr layout = getLayoutAttr();
  if (!layout)
    return emitOpError() << "binds a fragment without its 'layout' (the "
                            "#tile.fragment of tile-infer-layouts)";
  if (layout.getShape() != type.getShape())
    return emitOpError() << "fragment layout shape "
                         << shapeStr(layout.getShape())
                         << " must equal the buffer shape "
                         << shapeStr(type.getShape());
  int64_t registers = llvm::divideCeil(
      type.getNumElements() * layout.getReplicate(), layout.getThreads());
  if (storage.getRank() != 1 || storage.getDimSize(0) != registers)
    return emitOpError() << "binds a fragment to " << storage
                         << "; its layout gives each thread " << registers
                         << " registers, a "
                         << MemRefType::get({registers}, type.getElementType());
  return success();
}

#define GET_OP_CLASSES
#include "tile/Dialect/Tile/IR/TileOps.cpp.inc"
