//===- tile-run.cpp - Run a tile kernel on the CPU with generated data ----===//
//
//   tile-run kernel.mlir --entry=gemm --arg=f16:200x136 --arg=f16:136x328 \
//       --arg=f32:200x328:poison --save=DIR [--seed=N] [--repeat=N]
//
// Compiles the module with tile-to-cpu, fills each buffer argument with
// seeded random data (uniform in [-1, 1) for floats, [-8, 8] for integers),
// zeros or NaN ("poison", to catch elements a kernel never writes), calls
// the entry, and saves every buffer before (inN.npy) and after (outN.npy)
// the call, for an independent check with numpy. Scalars: --arg=i64:42.
//
//===----------------------------------------------------------------------===//

#include "tile/InitAllTile.h"
#include "tile/Runner/CpuRunner.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <random>

using namespace mlir;
using namespace mlir::tile;
namespace cl = llvm::cl;

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input.mlir>"),
                                      cl::Required);
static cl::opt<std::string> entry("entry", cl::desc("Function to call"),
                                  cl::Required);
static cl::list<std::string>
    argSpecs("arg", cl::desc("<dtype>:<d0>x<d1>...[:rand|zero|poison] or "
                             "<dtype>:<value> for a scalar"));
static cl::opt<std::string> saveDir("save",
                                    cl::desc("Directory for the .npy files"));
static cl::opt<unsigned> seed("seed", cl::desc("Random seed"), cl::init(0));
static cl::opt<unsigned> repeat("repeat",
                                cl::desc("Calls to time (after one warm-up)"),
                                cl::init(0));

namespace {

struct DType {
  StringRef name;  // as on the command line
  StringRef descr; // numpy descr
  unsigned bytes;
  bool isFloat;
};

const DType kDTypes[] = {
    {"f64", "<f8", 8, true},  {"f32", "<f4", 4, true},
    {"f16", "<f2", 2, true},  {"bf16", "<f4", 2, true},
    {"i64", "<i8", 8, false}, {"i32", "<i4", 4, false},
    {"i16", "<i2", 2, false}, {"i8", "|i1", 1, false},
};

const DType *lookupDType(StringRef name) {
  for (const DType &d : kDTypes)
    if (d.name == name)
      return &d;
  return nullptr;
}

struct Buffer {
  const DType *dtype;
  SmallVector<int64_t> shape;
  std::vector<char> data;
};

void storeFloat(const DType &d, char *p, double v) {
  if (d.name == "f64") {
    std::memcpy(p, &v, 8);
  } else if (d.name == "f32") {
    float f = static_cast<float>(v);
    std::memcpy(p, &f, 4);
  } else {
    llvm::APFloat f(v);
    bool lost;
    f.convert(d.name == "f16" ? llvm::APFloat::IEEEhalf()
                              : llvm::APFloat::BFloat(),
              llvm::APFloat::rmNearestTiesToEven, &lost);
    uint16_t bits = f.bitcastToAPInt().getZExtValue();
    std::memcpy(p, &bits, 2);
  }
}

void storeInt(const DType &d, char *p, int64_t v) {
  std::memcpy(p, &v, d.bytes); // little endian
}

/// Writes a .npy file (version 1.0); bf16 is saved as f32 (exactly), since
/// numpy has no bf16.
bool writeNpy(const std::string &path, const Buffer &b) {
  if (b.dtype->name == "bf16") {
    Buffer wide{lookupDType("f32"), b.shape, {}};
    wide.data.resize(b.data.size() * 2);
    for (size_t e = 0; e < b.data.size() / 2; ++e) {
      uint32_t bits;
      uint16_t half;
      std::memcpy(&half, b.data.data() + 2 * e, 2);
      bits = uint32_t(half) << 16;
      std::memcpy(wide.data.data() + 4 * e, &bits, 4);
    }
    return writeNpy(path, wide);
  }
  std::string shape = "(";
  for (int64_t s : b.shape)
    shape += std::to_string(s) + ",";
  shape += ")";
  std::string header = "{'descr': '" + b.dtype->descr.str() +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += "\n";
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return false;
  os << "\x93NUMPY" << char(1) << char(0);
  uint16_t len = header.size();
  os.write(reinterpret_cast<const char *>(&len), 2);
  os << header;
  os.write(b.data.data(), b.data.size());
  return true;
}

int fail(const Twine &message) {
  llvm::errs() << "tile-run: " << message << "\n";
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerAllTilePasses();
  cl::ParseCommandLineOptions(argc, argv, "Run a tile kernel on the CPU\n");

  DialectRegistry registry;
  registerAllTileDialects(registry);
  registerCpuTranslations(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  std::string errorMessage;
  auto file = openInputFile(inputFile, &errorMessage);
  if (!file)
    return fail(errorMessage);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler sourceHandler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!module)
    return 1;

  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::uniform_int_distribution<int64_t> ints(-8, 8);
  std::vector<Buffer> buffers(argSpecs.size());
  SmallVector<RunArg> args;
  for (auto [i, spec] : llvm::enumerate(argSpecs)) {
    SmallVector<StringRef> parts;
    StringRef(spec).split(parts, ':');
    const DType *dtype = parts.empty() ? nullptr : lookupDType(parts[0]);
    if (!dtype || parts.size() < 2 || parts.size() > 3)
      return fail("bad --arg '" + spec + "'");
    RunArg &arg = args.emplace_back();
    bool isShape = parts[1].contains('x') || parts.size() == 3 ||
                   parts[1].starts_with("[");
    if (!isShape) {
      if (dtype->isFloat) {
        arg.kind = RunArg::Kind::Float;
        if (parts[1].getAsDouble(arg.floatValue))
          return fail("bad scalar in --arg '" + spec + "'");
      } else {
        arg.kind = RunArg::Kind::Int;
        if (parts[1].getAsInteger(10, arg.intValue))
          return fail("bad scalar in --arg '" + spec + "'");
      }
      continue;
    }
    Buffer &buf = buffers[i];
    buf.dtype = dtype;
    SmallVector<StringRef> dims;
    parts[1].trim("[]").split(dims, 'x');
    int64_t count = 1;
    for (StringRef d : dims) {
      int64_t size;
      if (d.getAsInteger(10, size) || size < 0)
        return fail("bad shape in --arg '" + spec + "'");
      buf.shape.push_back(size);
      count *= size;
    }
    StringRef init = parts.size() == 3 ? parts[2] : "rand";
    buf.data.assign(count * dtype->bytes, 0);
    for (int64_t e = 0; e < count; ++e) {
      char *p = buf.data.data() + e * dtype->bytes;
      if (init == "rand") {
        if (dtype->isFloat)
          storeFloat(*dtype, p, uniform(rng));
        else
          storeInt(*dtype, p, ints(rng));
      } else if (init == "poison") {
        if (dtype->isFloat)
          storeFloat(*dtype, p, std::nan(""));
        else
          storeInt(*dtype, p, 0x5a5a5a5a5a5a5a5a);
      } else if (init != "zero") {
        return fail("unknown initializer '" + init + "'");
      }
    }
    arg.kind = RunArg::Kind::MemRef;
    arg.data = buf.data.data();
    arg.sizes = buf.shape;
    arg.strides.assign(buf.shape.size(), 1);
    for (int64_t d = static_cast<int64_t>(buf.shape.size()) - 2; d >= 0; --d)
      arg.strides[d] = arg.strides[d + 1] * buf.shape[d + 1];
  }

  if (!saveDir.empty()) {
    llvm::sys::fs::create_directories(saveDir);
    for (auto [i, buf] : llvm::enumerate(buffers))
      if (buf.dtype &&
          !writeNpy(saveDir + "/in" + std::to_string(i) + ".npy", buf))
        return fail("cannot write to " + saveDir);
  }

  auto start = std::chrono::steady_clock::now();
  std::unique_ptr<CpuModule> compiled =
      CpuModule::compile(*module, errorMessage);
  if (!compiled) {
    llvm::errs() << errorMessage;
    return 1;
  }
  double compileSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (failed(compiled->invoke(entry, args, errorMessage))) {
    llvm::errs() << errorMessage;
    return 1;
  }
  if (!saveDir.empty())
    for (auto [i, buf] : llvm::enumerate(buffers))
      if (buf.dtype &&
          !writeNpy(saveDir + "/out" + std::to_string(i) + ".npy", buf))
        return fail("cannot write to " + saveDir);

  if (repeat > 0) {
    std::vector<double> times;
    for (unsigned r = 0; r < repeat; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      if (failed(compiled->invoke(entry, args, errorMessage))) {
        llvm::errs() << errorMessage;
        return 1;
      }
      times.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
              .count());
    }
    std::sort(times.begin(), times.end());
    llvm::outs() << llvm::format("compile_s %.4f median_s %.6f\n",
                                 compileSeconds, times[times.size() / 2]);
  }
  return 0;
}
