//===- DiscardableAttrs.cpp - Verifying the tile.* attributes -------------===//
//
// Every `tile.*` attribute an op or a function argument may carry is
// declared in TileDialect.td (discardableAttrs); the dialect checks each
// one's value and the ops it may sit on, and refuses undeclared names, so
// the passes exchange nothing unchecked.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// How one discardable attribute is checked: its value, and the ops
/// (by name; empty: none, function arguments only) it may sit on.
struct AttrRule {
  StringLiteral name;
  StringLiteral valueKind; // for diagnostics
  bool (*valueOk)(Attribute);
  std::initializer_list<StringLiteral> ops;
};

bool isUnit(Attribute a) { return isa<UnitAttr>(a); }
bool isBool(Attribute a) { return isa<BoolAttr>(a); }
bool isLayout(Attribute a) { return isa<FragmentLayoutAttr>(a); }
bool isPositive(Attribute a) {
  auto i = dyn_cast_if_present<IntegerAttr>(a);
  return i && i.getType().isSignlessInteger(64) && i.getInt() > 0;
}
bool isNonNegative(Attribute a) {
  auto i = dyn_cast_if_present<IntegerAttr>(a);
  return i && i.getType().isSignlessInteger(64) && i.getInt() >= 0;
}
/// A TMA descriptor's description: {param, box, swizzle[, store]}.
bool isTmaInfo(Attribute a) {
  auto dict = dyn_cast<DictionaryAttr>(a);
  if (!dict || !isNonNegative(dict.get("param")) ||
      !isa_and_nonnull<DenseI64ArrayAttr>(dict.get("box")) ||
      !isPositive(dict.get("swizzle")))
    return false;
  for (NamedAttribute field : dict)
    if (!llvm::is_contained({"param", "box", "swizzle", "store"},
                            field.getName().strref()))
      return false;
  return !dict.get("store") || isa<BoolAttr>(dict.get("store"));
}

const AttrRule kRules[] = {
    {TileDialect::ScratchOffsetAttrHelper::getNameStr(),
     "a non-negative i64", isNonNegative,
     {"tile.reduce", "tile.gemm_sp", "tile.finalize_reducer", "tile.scan"}},
    {TileDialect::WgmmaPendingAttrHelper::getNameStr(), "a unit attribute",
     isUnit, {"tile.gemm"}},
    {TileDialect::ProducerThreadsAttrHelper::getNameStr(), "a positive i64",
     isPositive, {"tile.kernel"}},
    {TileDialect::ConsumerThreadsAttrHelper::getNameStr(), "a positive i64",
     isPositive, {"scf.if"}},
    {TileDialect::SharedBytesAttrHelper::getNameStr(), "a non-negative i64",
     isNonNegative, {"tile.kernel"}},
    {TileDialect::LayoutAttrHelper::getNameStr(), "a #tile.fragment",
     isLayout, {"tile.alloc_fragment"}},
    {TileDialect::WarpSpecializeAttrHelper::getNameStr(), "a bool", isBool,
     {"tile.pipelined"}},
    {TileDialect::DisableTmaAttrHelper::getNameStr(), "a unit attribute",
     isUnit, {"tile.copy"}},
    {TileDialect::MinPtxAttrHelper::getNameStr(), "a positive i64",
     isPositive, {"llvm.inline_asm"}},
    {TileDialect::TmaAttrHelper::getNameStr(),
     "{param = i64, box = array<i64>, swizzle = i64[, store = bool]}",
     isTmaInfo, {}},
};

const AttrRule *findRule(StringRef name) {
  for (const AttrRule &rule : kRules)
    if (rule.name == name)
      return &rule;
  return nullptr;
}

/// Checks `attr` on `op` (or, with `onArgument`, on an argument of one of
/// its regions).
LogicalResult verifyTileAttr(Operation *op, NamedAttribute attr,
                             bool onArgument) {
  StringRef name = attr.getName().strref();
  const AttrRule *rule = findRule(name);
  if (!rule)
    return op->emitError() << "'" << name
                           << "' is not an attribute of the tile dialect";
  bool placeOk = onArgument ? rule->ops.size() == 0
                            : llvm::is_contained(rule->ops,
                                                 op->getName().getStringRef());
  if (!placeOk) {
    InFlightDiagnostic diag = op->emitError() << "'" << name << "' ";
    if (rule->ops.size() == 0)
      return diag << "belongs on a function argument";
    diag << (onArgument ? "belongs on an op, one of " : "is only valid on ");
    llvm::interleaveComma(rule->ops, diag,
                          [&](StringLiteral n) { diag << "'" << n << "'"; });
    return diag;
  }
  if (!rule->valueOk(attr.getValue()))
    return op->emitError() << "'" << name << "' must be " << rule->valueKind
                           << ", got " << attr.getValue();
  return success();
}

} // namespace

LogicalResult TileDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  return verifyTileAttr(op, attr, /*onArgument=*/false);
}

LogicalResult TileDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned regionIndex,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  return verifyTileAttr(op, attr, /*onArgument=*/true);
}
