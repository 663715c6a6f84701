//===- GPUMergeModules.cpp - One gpu.module for all kernels ---------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// `-remat-gpu-merge-modules`: gpu-kernel-outlining makes one gpu.module per
// kernel; a training step then loads hundreds of binaries. Moving all kernels
// into one module makes it one PTX/cubin and one module load.
//
//===----------------------------------------------------------------------===//

#include "remat/GPU/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

namespace remat {
#define GEN_PASS_DEF_GPUMERGEMODULESPASS
#include "remat/GPU/Passes.h.inc"
} // namespace remat

using namespace mlir;

namespace {

struct GPUMergeModulesPass
    : public remat::impl::GPUMergeModulesPassBase<GPUMergeModulesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto modules = llvm::to_vector(module.getOps<gpu::GPUModuleOp>());
    if (modules.size() < 2 && (modules.empty() ||
                               modules.front().getName() == moduleName))
      return;
    for (gpu::GPUModuleOp m : modules)
      if (m.getTargetsAttr() || m.getOffloadingHandlerAttr()) {
        m.emitError("remat-gpu-merge-modules: merge before targets are "
                    "attached (nvvm-attach-target)");
        return signalPassFailure();
      }

    // The merged module takes the place of the first one.
    OpBuilder b(modules.front());
    auto merged =
        gpu::GPUModuleOp::create(b, modules.front().getLoc(), moduleName);
    SymbolTable mergedTable(merged);
    DenseMap<Attribute, StringAttr> renamed;
    for (gpu::GPUModuleOp m : modules) {
      for (Operation &op : llvm::make_early_inc_range(*m.getBody())) {
        if (op.hasTrait<OpTrait::IsTerminator>())
          continue; // gpu.module has none since LLVM 19; older ones did.
        op.moveBefore(merged.getBody(), merged.getBody()->end());
        // Kernel names come from their functions and are already unique in
        // the outer module; insert() renames on a clash all the same.
        if (auto sym = dyn_cast<SymbolOpInterface>(op)) {
          StringAttr old = sym.getNameAttr();
          mergedTable.insert(&op);
          renamed[SymbolRefAttr::get(m.getNameAttr(),
                                     {FlatSymbolRefAttr::get(old)})] =
              sym.getNameAttr();
        }
      }
      m.erase();
    }
    if (SymbolTable(module).lookup(moduleName) != merged) {
      merged.emitError() << "remat-gpu-merge-modules: the symbol '"
                         << moduleName << "' is taken";
      return signalPassFailure();
    }
    StringAttr name = merged.getNameAttr();

    module.walk([&](gpu::LaunchFuncOp launch) {
      auto it = renamed.find(launch.getKernel());
      if (it == renamed.end())
        return;
      launch.setKernelAttr(
          SymbolRefAttr::get(name, {FlatSymbolRefAttr::get(it->second)}));
    });
  }
};

} // namespace
