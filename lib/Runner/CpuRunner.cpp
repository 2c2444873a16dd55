//===- CpuRunner.cpp - JIT-compile and run tile kernels on the CPU --------===//

#include "tile/Runner/CpuRunner.h"

#include "tile/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#ifdef TILE_IN_PROCESS_LLD
#include "lld/Common/Driver.h"
#include <mutex>
LLD_HAS_DRIVER(elf)
#endif
#ifdef TILE_LIBOMP_BESIDE
#include <dlfcn.h>
#endif

using namespace mlir;
using namespace mlir::tile;

#ifndef TILE_LIBOMP_PATH
#define TILE_LIBOMP_PATH "libomp.so"
#endif
#ifndef TILE_LLD_PATH
#define TILE_LLD_PATH "ld.lld"
#endif

/// The OpenMP runtime that kernels call: the one the build found, or in the
/// wheel (TILE_LIBOMP_BESIDE) the copy beside this library.
static std::string libompPath() {
#ifdef TILE_LIBOMP_BESIDE
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(&libompPath), &info) && info.dli_fname) {
    llvm::SmallString<256> path(llvm::sys::path::parent_path(info.dli_fname));
    llvm::sys::path::append(path, TILE_LIBOMP_BESIDE);
    return path.str().str();
  }
#endif
  return TILE_LIBOMP_PATH;
}

/// Runs the ELF linker with `argv` (argv[0] names it); its output goes to
/// `log`. Returns whether it succeeded, with `error` saying why not.
static bool runLinker(ArrayRef<StringRef> argv, std::string &log,
                      std::string &error) {
#ifdef TILE_IN_PROCESS_LLD
  // lld keeps its state in globals: one link at a time.
  static std::mutex linkerMutex;
  std::lock_guard<std::mutex> lock(linkerMutex);
  std::vector<std::string> strings(argv.begin(), argv.end());
  std::vector<const char *> args;
  for (const std::string &arg : strings)
    args.push_back(arg.c_str());
  llvm::raw_string_ostream os(log);
  lld::Result result =
      lld::lldMain(args, os, os, {{lld::Gnu, &lld::elf::link}});
  if (result.retCode != 0)
    error = "lld returned " + std::to_string(result.retCode);
  return result.retCode == 0;
#else
  llvm::SmallString<128> logFile;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("tile-link", "log", logFile)) {
    error = "cannot create a temporary file: " + ec.message();
    return false;
  }
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(logFile),
                                          StringRef(logFile)};
  int rc = llvm::sys::ExecuteAndWait(argv[0], argv, std::nullopt, redirects,
                                     /*SecondsToWait=*/60, 0, &error);
  if (auto output = llvm::MemoryBuffer::getFile(logFile))
    log = (*output)->getBuffer().str();
  llvm::sys::fs::remove(logFile);
  return rc == 0;
#endif
}

DiagnosticCollector::DiagnosticCollector(MLIRContext *context)
    : handler(context, [this](Diagnostic &diag) {
        llvm::raw_string_ostream os(text);
        errors |= diag.getSeverity() == DiagnosticSeverity::Error;
        auto emit = [&](Diagnostic &d) {
          FileLineColLoc loc;
          d.getLocation()->walk([&](Location inner) {
            loc = dyn_cast<FileLineColLoc>(inner);
            return loc ? WalkResult::interrupt() : WalkResult::advance();
          });
          if (loc)
            os << loc.getFilename().getValue() << ":" << loc.getLine() << ":"
               << loc.getColumn() << ": ";
          switch (d.getSeverity()) {
          case DiagnosticSeverity::Error:
            os << "error: ";
            break;
          case DiagnosticSeverity::Warning:
            os << "warning: ";
            break;
          case DiagnosticSeverity::Note:
            os << "note: ";
            break;
          case DiagnosticSeverity::Remark:
            os << "remark: ";
            break;
          }
          os << d << "\n";
        };
        emit(diag);
        for (Diagnostic &note : diag.getNotes())
          emit(note);
        return success();
      }) {}

std::string DiagnosticCollector::take() {
  std::string result = std::move(text);
  text.clear();
  return result;
}

void mlir::tile::registerCpuTranslations(DialectRegistry &registry) {
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerOpenMPDialectTranslation(registry);
}

/// Defines __truncsfbf2 (f32 -> bf16, rounding to nearest even; NaN stays a
/// quiet NaN) in `m`. Where the CPU has no bf16 conversion instruction
/// (x86 before AVX512-BF16) LLVM calls it for every bf16 value it rounds,
/// phis and selects of bf16 included, and GCC 12's libgcc lacks it: the
/// kernel, JIT-run or linked into a shared library, carries its own.
static void defineBf16Truncation(llvm::Module &m) {
  const char *name = "__truncsfbf2";
  if (llvm::Function *existing = m.getFunction(name);
      existing && !existing->isDeclaration())
    return;
  llvm::LLVMContext &ctx = m.getContext();
  auto *type = llvm::FunctionType::get(llvm::Type::getBFloatTy(ctx),
                                       {llvm::Type::getFloatTy(ctx)}, false);
  auto *fn = llvm::cast<llvm::Function>(
      m.getOrInsertFunction(name, type).getCallee());
  fn->setLinkage(llvm::GlobalValue::ExternalLinkage);
  fn->setVisibility(llvm::GlobalValue::HiddenVisibility);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  llvm::Value *x = fn->getArg(0);
  llvm::Value *bits = b.CreateBitCast(x, b.getInt32Ty());
  llvm::Value *high = b.CreateLShr(bits, 16);
  llvm::Value *lsb = b.CreateAnd(high, 1);
  llvm::Value *rounded =
      b.CreateLShr(b.CreateAdd(bits, b.CreateAdd(lsb, b.getInt32(0x7FFF))), 16);
  llvm::Value *quiet = b.CreateOr(high, 0x40);
  llvm::Value *nan = b.CreateFCmpUNO(x, x);
  llvm::Value *result = b.CreateSelect(nan, quiet, rounded);
  b.CreateRet(b.CreateBitCast(b.CreateTrunc(result, b.getInt16Ty()),
                              llvm::Type::getBFloatTy(ctx)));
}

std::unique_ptr<CpuModule> CpuModule::compile(ModuleOp module,
                                              std::string &error) {
  MLIRContext *context = module.getContext();
  DiagnosticCollector diagnostics(context);
  std::unique_ptr<CpuModule> result(new CpuModule());
  for (auto func : module.getOps<func::FuncOp>())
    result->signatures[func.getName()] =
        llvm::to_vector(func.getFunctionType().getInputs());

  PassManager pm(context);
  buildTileToCPUPipeline(pm);
  if (failed(pm.run(module)) || diagnostics.sawError()) {
    error = diagnostics.take();
    if (error.empty())
      error = "error: tile-to-cpu failed\n";
    return nullptr;
  }

  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder) {
    error = "error: " + llvm::toString(builder.takeError()) + "\n";
    return nullptr;
  }
  builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  // Position-independent code, so that the object can also be linked into a
  // shared library (writeSharedLibrary).
  builder->setRelocationModel(llvm::Reloc::PIC_);
  builder->setCodeModel(llvm::CodeModel::Small);
  auto machine = builder->createTargetMachine();
  if (!machine) {
    error = "error: " + llvm::toString(machine.takeError()) + "\n";
    return nullptr;
  }
  auto optimize = makeOptimizingTransformer(3, 0, machine->get());
  std::string &llvmIR = result->llvmIR;
  auto transformer = [&](llvm::Module *m) -> llvm::Error {
    defineBf16Truncation(*m);
    if (llvm::Error err = optimize(m))
      return err;
    llvm::raw_string_ostream os(llvmIR);
    m->print(os, nullptr);
    return llvm::Error::success();
  };
  ExecutionEngineOptions options;
  options.transformer = transformer;
  options.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  std::string libomp = libompPath();
  SmallVector<StringRef> libs = {libomp};
  options.sharedLibPaths = libs;
  options.enableObjectDump = true;
  options.enableGDBNotificationListener = false;
  options.enablePerfNotificationListener = false;
  auto engine = ExecutionEngine::create(module, options, std::move(*machine));
  if (!engine) {
    error = diagnostics.take() +
            "error: " + llvm::toString(engine.takeError()) + "\n";
    return nullptr;
  }
  result->engine = std::move(*engine);
  result->engine->initialize();
  return result;
}

LogicalResult CpuModule::invoke(StringRef name, ArrayRef<RunArg> args,
                                std::string &error) {
  auto it = signatures.find(name);
  if (it == signatures.end()) {
    error = "error: no function named '" + name.str() + "' in the module\n";
    return failure();
  }
  ArrayRef<Type> types = it->second;
  if (types.size() != args.size()) {
    error = "error: '" + name.str() + "' takes " +
            std::to_string(types.size()) + " arguments, got " +
            std::to_string(args.size()) + "\n";
    return failure();
  }

  // Each argument becomes one or more scalars (a memref: allocated and
  // aligned pointers, offset, sizes, strides); the packed call takes their
  // addresses.
  std::vector<std::unique_ptr<char[]>> storage;
  SmallVector<void *> packed;
  auto push = [&](const void *value, size_t bytes) {
    storage.emplace_back(new char[8]());
    std::memcpy(storage.back().get(), value, bytes);
    packed.push_back(storage.back().get());
  };
  for (auto [i, type, arg] : llvm::enumerate(types, args)) {
    std::string where =
        "argument " + std::to_string(i) + " of '" + name.str() + "'";
    if (auto memref = dyn_cast<MemRefType>(type)) {
      if (arg.kind != RunArg::Kind::MemRef ||
          static_cast<int64_t>(arg.sizes.size()) != memref.getRank() ||
          arg.strides.size() != arg.sizes.size()) {
        error = "error: " + where + " must be a buffer of rank " +
                std::to_string(memref.getRank()) + "\n";
        return failure();
      }
      for (auto [d, size] : llvm::enumerate(memref.getShape())) {
        if (!ShapedType::isDynamic(size) && size != arg.sizes[d]) {
          error = "error: " + where + " must have size " +
                  std::to_string(size) + " in dim " + std::to_string(d) +
                  ", got " + std::to_string(arg.sizes[d]) + "\n";
          return failure();
        }
      }
      int64_t offset = 0;
      push(&arg.data, sizeof(void *));
      push(&arg.data, sizeof(void *));
      push(&offset, sizeof(int64_t));
      for (int64_t size : arg.sizes)
        push(&size, sizeof(int64_t));
      for (int64_t stride : arg.strides)
        push(&stride, sizeof(int64_t));
      continue;
    }
    if (type.isIndex() || type.isInteger(64)) {
      push(&arg.intValue, sizeof(int64_t));
    } else if (type.isInteger(32)) {
      int32_t v = static_cast<int32_t>(arg.intValue);
      push(&v, sizeof(v));
    } else if (type.isF64()) {
      push(&arg.floatValue, sizeof(double));
    } else if (type.isF32()) {
      float v = static_cast<float>(arg.floatValue);
      push(&v, sizeof(v));
    } else {
      std::string typeStr;
      llvm::raw_string_ostream os(typeStr);
      os << type;
      error = "error: " + where + " has type " + typeStr +
              ", which the CPU runner cannot pass (use memref, index, i32, "
              "i64, f32 or f64)\n";
      return failure();
    }
    bool wantInt = !isa<FloatType>(type);
    if ((arg.kind == RunArg::Kind::Int) != wantInt) {
      error = "error: " + where + " must be " +
              (wantInt ? "an integer" : "a float") + "\n";
      return failure();
    }
  }
  if (llvm::Error err = engine->invokePacked(name, packed)) {
    error = "error: " + llvm::toString(std::move(err)) + "\n";
    return failure();
  }
  return success();
}

LogicalResult CpuModule::writeSharedLibrary(StringRef path,
                                            std::string &error) {
  llvm::SmallString<128> object(path);
  object += ".o";
  engine->dumpToObjectFile(object);
  if (!llvm::sys::fs::exists(object)) {
    error =
        "error: could not write the object file " + object.str().str() + "\n";
    return failure();
  }
  std::string libomp = libompPath();
  std::string rpath = llvm::sys::path::parent_path(libomp).str();
  std::string out = path.str(), obj = object.str().str();
  SmallVector<StringRef> argv = {TILE_LLD_PATH, "-shared", "-o",     out,
                                 obj,           libomp,    "-rpath", rpath};
  std::string log, message;
  bool linked = runLinker(argv, log, message);
  llvm::sys::fs::remove(object);
  if (!linked) {
    error = "error: linking " + out + " with " TILE_LLD_PATH " failed: " +
            message + (log.empty() ? "" : "\n" + log) + "\n";
    return failure();
  }
  return success();
}
