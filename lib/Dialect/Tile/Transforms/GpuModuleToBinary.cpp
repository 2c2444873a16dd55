//===- GpuModuleToBinary.cpp - tile-gpu-module-to-binary ------------------===//
//
// GPU modules serialized to gpu.binary by their targets, as upstream's
// gpu-module-to-binary does; with keep-isa, each binary object also keeps
// the assembly (PTX, AMDGCN) that was assembled into it, so that one
// serialization gives both.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Target/LLVM/ROCDL/Utils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEGPUMODULETOBINARY
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The property of a gpu.object that holds its assembly.
constexpr StringLiteral kIsaProperty = "isa";

/// The attribute (an integer: 81 for PTX ISA 8.1) that a lowering puts on
/// an op that needs at least that PTX version.
constexpr StringLiteral kMinPtxAttr =
    TileDialect::MinPtxAttrHelper::getNameStr();

/// `features` with its PTX version ("+ptxNN") at least `ptx`.
std::string withPtxAtLeast(StringRef features, int64_t ptx) {
  SmallVector<StringRef> parts;
  features.split(parts, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  std::string out;
  bool found = false;
  for (StringRef part : parts) {
    std::string piece = part.str();
    int64_t version;
    if (part.consume_front("+ptx") && !part.getAsInteger(10, version)) {
      found = true;
      if (version < ptx)
        piece = "+ptx" + std::to_string(ptx);
    }
    out += (out.empty() ? "" : ",") + piece;
  }
  if (!found)
    out += (out.empty() ? "+ptx" : ",+ptx") + std::to_string(ptx);
  return out;
}

/// Raises the PTX version of the NVVM targets of each gpu.module in `root`
/// to what its ops marked `tile.min_ptx` need (the marks are dropped).
void raisePtxVersions(ModuleOp root) {
  for (auto module : root.getBody()->getOps<gpu::GPUModuleOp>()) {
    int64_t need = 0;
    module.walk([&](Operation *op) {
      if (auto mark = op->getAttrOfType<IntegerAttr>(kMinPtxAttr)) {
        need = std::max(need, mark.getInt());
        op->removeAttr(kMinPtxAttr);
      }
    });
    ArrayAttr targets = module.getTargetsAttr();
    if (!need || !targets)
      continue;
    SmallVector<Attribute> raised;
    for (Attribute t : targets) {
      auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(t);
      raised.push_back(
          nvvm ? NVVM::NVVMTargetAttr::get(
                     nvvm.getContext(), nvvm.getO(), nvvm.getTriple(),
                     nvvm.getChip(), withPtxAtLeast(nvvm.getFeatures(), need),
                     nvvm.getFlags(), nvvm.getLink(), nvvm.getVerifyTarget())
               : t);
    }
    module.setTargetsAttr(ArrayAttr::get(module.getContext(), raised));
  }
}

/// Refuses a gpu.module whose kernels were lowered for one vendor but that
/// is to be serialized for the other's target (an `nvvm.kernel` function
/// for a #rocdl.target, a `rocdl.kernel` one for a #nvvm.target): the
/// backend would abort on their calling convention.
LogicalResult checkKernelVendors(ModuleOp root) {
  bool ok = true;
  for (auto module : root.getBody()->getOps<gpu::GPUModuleOp>()) {
    ArrayAttr targets = module.getTargetsAttr();
    if (!targets)
      continue;
    for (Attribute t : targets) {
      StringRef foreign = isa<NVVM::NVVMTargetAttr>(t)    ? "rocdl.kernel"
                          : isa<ROCDL::ROCDLTargetAttr>(t) ? "nvvm.kernel"
                                                           : "";
      if (foreign.empty())
        continue;
      module.walk([&](Operation *op) {
        if (!op->hasAttr(foreign))
          return WalkResult::advance();
        op->emitError() << "kernel lowered for another vendor ('" << foreign
                        << "') in gpu.module @" << module.getName()
                        << ", which is serialized for " << t;
        ok = false;
        return WalkResult::interrupt();
      });
    }
  }
  return success(ok);
}

/// The gpu.module ops directly in `op` (those upstream serializes), with
/// how many objects (one per target) each will become.
SmallVector<std::pair<StringAttr, size_t>> modulesToSerialize(Operation *op) {
  SmallVector<std::pair<StringAttr, size_t>> modules;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (auto module : block.getOps<gpu::GPUModuleOp>())
        modules.emplace_back(module.getSymNameAttr(),
                             module.getTargetsAttr()
                                 ? module.getTargetsAttr().size()
                                 : 0);
  return modules;
}

/// Names the kernel whose serialization failed (the first of `modules` that
/// is still a gpu.module), and the host functions that launch it: the
/// serializer's own errors (ptxas's log) name neither the same way.
void reportUnserialized(ModuleOp root,
                        ArrayRef<std::pair<StringAttr, size_t>> modules) {
  for (StringAttr name : llvm::make_first_range(modules)) {
    auto module =
        SymbolTable::lookupNearestSymbolFrom<gpu::GPUModuleOp>(root, name);
    if (!module)
      continue;
    SmallVector<std::string> hosts;
    root.walk([&](gpu::LaunchFuncOp launch) {
      auto host = launch->getParentOfType<SymbolOpInterface>();
      if (launch.getKernelModuleName() == name && host &&
          !llvm::is_contained(hosts, host.getName().str()))
        hosts.push_back(host.getName().str());
    });
    InFlightDiagnostic diag = module.emitError();
    diag << "kernel module @" << name.getValue();
    if (!hosts.empty())
      diag << " (launched by @" << llvm::join(hosts, ", @") << ")";
    diag << " was not serialized for " << module.getTargetsAttr()
         << ": the errors above say why";
    return;
  }
}

struct TileGpuModuleToBinaryPass
    : public tile::impl::TileGpuModuleToBinaryBase<TileGpuModuleToBinaryPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp root = getOperation();
    std::optional<gpu::CompilationTarget> target =
        llvm::StringSwitch<std::optional<gpu::CompilationTarget>>(format)
            .Cases({"assembly", "isa"}, gpu::CompilationTarget::Assembly)
            .Cases({"binary", "bin"}, gpu::CompilationTarget::Binary)
            .Cases({"fatbinary", "fatbin"}, gpu::CompilationTarget::Fatbin)
            .Default(std::nullopt);
    if (!target) {
      root.emitError() << "tile-gpu-module-to-binary: unknown format '"
                       << format << "' (expected isa, bin or fatbin)";
      return signalPassFailure();
    }
    if (keepIsa && *target == gpu::CompilationTarget::Assembly) {
      root.emitError() << "tile-gpu-module-to-binary: keep-isa is for "
                          "format bin or fatbin; with format=isa the object "
                          "is the assembly";
      return signalPassFailure();
    }

    if (failed(checkKernelVendors(root)))
      return signalPassFailure();
    raisePtxVersions(root);
    SmallVector<std::pair<StringAttr, size_t>> modules =
        modulesToSerialize(root);
    // ROCDL's serializer does not report the assembly it assembles: the
    // modules are serialized to assembly, then assembled and linked here
    // as it would (ROCDL::assembleIsa, ROCDL::linkObjectCode).
    if (keepIsa && allTargetsAreROCDL(root)) {
      gpu::TargetOptions assembly(toolkitPath, {}, {}, {},
                                  gpu::CompilationTarget::Assembly);
      if (failed(gpu::transformGpuModulesToBinaries(root, nullptr,
                                                    assembly))) {
        reportUnserialized(root, modules);
        return signalPassFailure();
      }
      if (failed(assembleROCDLObjects(modules, *target)))
        return signalPassFailure();
      return;
    }
    // The serializer calls back with each object's assembly, module by
    // module and target by target, before it assembles it.
    SmallVector<std::string> isas;
    auto keep = [&](StringRef isa) { isas.push_back(isa.str()); };
    std::optional<SymbolTable> table;
    auto lazyTable = [&]() -> SymbolTable * {
      if (!table)
        table.emplace(root);
      return &*table;
    };
    gpu::TargetOptions options(
        toolkitPath, /*librariesToLink=*/{}, /*cmdOptions=*/{},
        /*elfSection=*/{}, *target, lazyTable, /*initialLlvmIRCallback=*/{},
        /*linkedLlvmIRCallback=*/{}, /*optimizedLlvmIRCallback=*/{},
        keepIsa ? function_ref<void(StringRef)>(keep)
                : function_ref<void(StringRef)>());
    if (failed(gpu::transformGpuModulesToBinaries(root, nullptr, options))) {
      reportUnserialized(root, modules);
      return signalPassFailure();
    }
    if (keepIsa && failed(attachIsa(modules, isas)))
      return signalPassFailure();
  }

  /// True when every gpu.module of `root` has targets, all of them
  /// #rocdl.target.
  static bool allTargetsAreROCDL(ModuleOp root) {
    bool any = false, all = true;
    for (auto module : root.getBody()->getOps<gpu::GPUModuleOp>()) {
      ArrayAttr targets = module.getTargetsAttr();
      if (!targets || targets.empty())
        return false;
      for (Attribute t : targets) {
        any = true;
        all &= isa<ROCDL::ROCDLTargetAttr>(t);
      }
    }
    return any && all;
  }

  /// Replaces each assembly object of the binaries made from `modules` by
  /// its code object (format `target`: bin links it to a hsaco), keeping
  /// the assembly as its `isa` property.
  LogicalResult
  assembleROCDLObjects(ArrayRef<std::pair<StringAttr, size_t>> modules,
                       gpu::CompilationTarget target) {
    ModuleOp root = getOperation();
    MLIRContext *ctx = root.getContext();
    for (StringAttr name : llvm::make_first_range(modules)) {
      auto binary = SymbolTable::lookupNearestSymbolFrom<gpu::BinaryOp>(
          root, name);
      auto emitError = [&] { return binary.emitError(); };
      SmallVector<Attribute> objects;
      for (Attribute attr : binary.getObjects()) {
        auto object = cast<gpu::ObjectAttr>(attr);
        auto rocdl = cast<ROCDL::ROCDLTargetAttr>(object.getTarget());
        StringRef isa = object.getObject().getValue();
        FailureOr<SmallVector<char, 0>> code =
            ROCDL::assembleIsa(isa, rocdl.getTriple(), rocdl.getChip(),
                               rocdl.getFeatures(), emitError);
        if (succeeded(code) && target == gpu::CompilationTarget::Binary)
          code = ROCDL::linkObjectCode(*code, toolkitPath, emitError);
        if (failed(code))
          return failure();
        NamedAttrList properties(object.getProperties());
        properties.set(kIsaProperty, StringAttr::get(ctx, isa));
        objects.push_back(gpu::ObjectAttr::get(
            ctx, rocdl, target,
            StringAttr::get(ctx, StringRef(code->data(), code->size())),
            properties.getDictionary(ctx), object.getKernels()));
      }
      binary.setObjectsAttr(ArrayAttr::get(ctx, objects));
    }
    return success();
  }

  /// Adds the `isa` property to each object of the binaries made from
  /// `modules`, in the order the serializer reported the assemblies.
  LogicalResult attachIsa(ArrayRef<std::pair<StringAttr, size_t>> modules,
                          ArrayRef<std::string> isas) {
    ModuleOp root = getOperation();
    MLIRContext *ctx = root.getContext();
    size_t next = 0;
    for (auto [name, numObjects] : modules) {
      auto binary = SymbolTable::lookupNearestSymbolFrom<gpu::BinaryOp>(
          root, name);
      if (!binary || binary.getObjects().size() != numObjects ||
          next + numObjects > isas.size())
        return root.emitError()
               << "tile-gpu-module-to-binary: the target of gpu.module @"
               << name.getValue() << " gave no assembly to keep";
      SmallVector<Attribute> objects;
      for (Attribute attr : binary.getObjects()) {
        auto object = cast<gpu::ObjectAttr>(attr);
        NamedAttrList properties(object.getProperties());
        properties.set(kIsaProperty, StringAttr::get(ctx, isas[next++]));
        objects.push_back(gpu::ObjectAttr::get(
            ctx, object.getTarget(), object.getFormat(), object.getObject(),
            properties.getDictionary(ctx), object.getKernels()));
      }
      binary.setObjectsAttr(ArrayAttr::get(ctx, objects));
    }
    return success();
  }
};

} // namespace
