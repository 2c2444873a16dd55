//===- CpuRunner.h - JIT-compile and run tile kernels on the CPU -*- C++
//-*-===//
//
// Compiles a module once (tile-to-cpu, LLVM -O3 for the host CPU) and calls
// its functions many times with host buffers.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNNER_CPURUNNER_H
#define TILE_RUNNER_CPURUNNER_H

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringMap.h"

#include <memory>
#include <string>

namespace mlir::tile {

/// Collects the diagnostics emitted while it lives as
/// "file:line:col: error: message" lines (notes included), located at the
/// first file position of their location (a fused, call-site or named
/// location's).
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext *context);
  std::string take();
  /// Whether an error was emitted: a pass that reports one fails the
  /// compilation even where it returned success.
  bool sawError() const { return errors; }

private:
  std::string text;
  bool errors = false;
  ScopedDiagnosticHandler handler;
};

/// One argument of a call: a strided buffer or a scalar.
struct RunArg {
  enum class Kind { MemRef, Int, Float } kind = Kind::Int;
  void *data = nullptr;
  SmallVector<int64_t> sizes;
  SmallVector<int64_t> strides; // in elements
  int64_t intValue = 0;
  double floatValue = 0;
};

class CpuModule {
public:
  /// Lowers `module` in place with tile-to-cpu and JIT-compiles it. On
  /// failure returns null and puts the diagnostics in `error`.
  static std::unique_ptr<CpuModule> compile(ModuleOp module,
                                            std::string &error);

  /// Calls the function `name` (of the module given to compile()).
  LogicalResult invoke(StringRef name, ArrayRef<RunArg> args,
                       std::string &error);

  /// The optimized LLVM IR that was compiled.
  StringRef getLLVMIR() const { return llvmIR; }

  /// Writes the compiled code as a shared library (object file linked with
  /// ld.lld against libomp) that exports `_mlir_<name>(void **args)` for
  /// each function: the packed calling convention of invoke().
  LogicalResult writeSharedLibrary(StringRef path, std::string &error);

private:
  CpuModule() = default;
  std::unique_ptr<ExecutionEngine> engine;
  llvm::StringMap<SmallVector<Type>> signatures;
  std::string llvmIR;
};

/// Registers the LLVM IR translations the CPU runner needs in `registry`.
void registerCpuTranslations(DialectRegistry &registry);

} // namespace mlir::tile

#endif // TILE_RUNNER_CPURUNNER_H
