//===- MmaAttr.cpp - #tile.mma, the instruction choice of a gemm ----------===//

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/DialectImplementation.h"

using namespace mlir;
using namespace mlir::tile;

/// Parses the instruction shape `mMnNkK` (one keyword).
static ParseResult parseShape(AsmParser &parser, int64_t &m, int64_t &n,
                              int64_t &k) {
  llvm::SMLoc loc = parser.getCurrentLocation();
  StringRef word;
  if (parser.parseKeyword(&word))
    return failure();
  auto number = [&](char letter, int64_t &value) {
    if (word.empty() || word.front() != letter)
      return false;
    word = word.drop_front();
    size_t digits = word.find_first_not_of("0123456789");
    StringRef text = word.take_front(digits);
    word = word.drop_front(text.size());
    return !text.empty() && !text.getAsInteger(10, value);
  };
  if (!number('m', m) || !number('n', n) || !number('k', k) || !word.empty())
    return parser.emitError(loc)
           << "expected the instruction shape as mMnNkK (e.g. m16n8k16)";
  return success();
}

Attribute MmaAttr::parse(AsmParser &parser, Type) {
  llvm::SMLoc loc = parser.getCurrentLocation();
  StringRef kindName;
  int64_t m = 0, n = 0, k = 0, warpsM = 0, warpsN = 0, repeats = 1;
  if (parser.parseLess() || parser.parseKeyword(&kindName))
    return {};
  std::optional<MmaKind> kind = symbolizeMmaKind(kindName);
  if (!kind) {
    parser.emitError(loc) << "expected 'mma_sync', 'wgmma' or 'mfma', got '"
                          << kindName << "'";
    return {};
  }
  if (parser.parseComma() || parseShape(parser, m, n, k) ||
      parser.parseComma() || parser.parseKeyword("warps") ||
      parser.parseEqual() || parser.parseLSquare() ||
      parser.parseInteger(warpsM) || parser.parseComma() ||
      parser.parseInteger(warpsN) || parser.parseRSquare())
    return {};
  if (succeeded(parser.parseOptionalComma()) &&
      (parser.parseKeyword("repeats") || parser.parseEqual() ||
       parser.parseInteger(repeats)))
    return {};
  if (parser.parseGreater())
    return {};
  return parser.getChecked<MmaAttr>(loc, parser.getContext(), *kind, m, n, k,
                                    warpsM, warpsN, repeats);
}

void MmaAttr::print(AsmPrinter &printer) const {
  printer << "<" << stringifyMmaKind(getKind()) << ", m" << getM() << "n"
          << getN() << "k" << getK() << ", warps = [" << getWarpsM() << ", "
          << getWarpsN() << "]";
  if (getRepeats() != 1)
    printer << ", repeats = " << getRepeats();
  printer << ">";
}

LogicalResult MmaAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                              MmaKind kind, int64_t m, int64_t n, int64_t k,
                              int64_t warpsM, int64_t warpsN, int64_t repeats) {
  if (kind == MmaKind::MmaSync && (m != 16 || n != 8 || (k != 8 && k != 16 &&
                                                          k != 32)))
    return emitError() << "mma_sync has the shapes m16n8k8, m16n8k16 and "
                          "m16n8k32, got m"
                       << m << "n" << n << "k" << k;
  if (kind == MmaKind::Wgmma &&
      (m != 64 || n < 8 || n > 256 || n % 8 != 0 || (k != 16 && k != 32)))
    return emitError() << "wgmma has the shapes m64nNk16 and m64nNk32 with N "
                          "a multiple of 8 up to 256, got m"
                       << m << "n" << n << "k" << k;
  if (kind == MmaKind::Mfma &&
      (m != n || !((m == 32 && (k == 2 || k == 8 || k == 16)) ||
                   (m == 16 && (k == 4 || k == 16 || k == 32))) ||
       repeats != 1))
    return emitError() << "mfma has the shapes m32n32k8, m16n16k16 (16-bit "
                          "inputs), m32n32k16 and m16n16k32 (8-bit), "
                          "m32n32k2 and m16n16k4 (f32), without repeats, "
                          "got m"
                       << m << "n" << n << "k" << k;
  if (warpsM < 1 || warpsN < 1 || repeats < 1)
    return emitError() << "warps and repeats must be positive, got warps = ["
                       << warpsM << ", " << warpsN << "], repeats = "
                       << repeats;
  if (repeats > 1 && warpsN != 1)
    return emitError() << "repeats > 1 (strips 64 rows apart) needs warps "
                          "stacked along M (warps = ["
                       << warpsM << ", 1]), got warps = [" << warpsM << ", "
                       << warpsN << "]";
  if (kind == MmaKind::Wgmma && warpsM % 4 != 0)
    return emitError() << "wgmma runs on whole warpgroups, stacked along M "
                          "(warps = [4 g, 1]) or also along N (warps = "
                          "[4 gM, gN]), got warps = ["
                       << warpsM << ", " << warpsN << "]";
  return success();
}
