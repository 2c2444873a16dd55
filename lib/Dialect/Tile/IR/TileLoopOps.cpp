//===- TileLoopOps.cpp - The loops and the storage binding of tile --------===//
//
// tile.parallel, tile.pipelined, tile.annotate_layout and tile.bind_storage;
// TileOps.cpp has the kernel, the buffers and the copies, TileComputeOps.cpp
// the computing ops, TileOpsCommon.h what they share.
//
//===----------------------------------------------------------------------===//

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
