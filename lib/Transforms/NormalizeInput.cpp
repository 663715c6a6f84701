//===- NormalizeInput.cpp - Inline and lower affine, where needed ---------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Runs upstream's inliner and -lower-affine as nested pipelines, each only
// when the module holds something it would change: both walk and rewrite
// every function (the inliner canonicalizes each callable), which costs
// seconds on a large step that has no call and no affine op. Then loop
// counters held in 0-d tensors become scalars (remat/Loops/ScalarCounters.h),
// in the functions that have one, and a counter carried beside a loop's
// induction variable is read as a function of it; an outer scan of a few iterations over
// inner ones is unrolled (remat/Loops/NestedScans.h); a stack written k rows
// per iteration is retyped as a stack of k-row blocks
// (remat/Loops/BlockStacks.h); a loop's reads of rows of a stack it writes
// are carried instead (remat/Loops/ForwardStackReads.h); and a stacking
// loop's float scalars are carried as 0-d tensors
// (remat/Loops/TensorCarries.h).

#include "remat/Transforms/Passes.h"
#include "remat/Loops/BlockStacks.h"
#include "remat/Loops/PartStacks.h"
#include "remat/Loops/ForwardStackReads.h"
#include "remat/Loops/ConsumedStacks.h"
#include "remat/Loops/NestedScans.h"
#include "remat/Loops/TensorCarries.h"
#include "remat/Loops/ScalarCounters.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

namespace remat {
#define GEN_PASS_DEF_NORMALIZEINPUTPASS
#include "remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;

namespace {
OpPassManager inlinerPipeline() {
  OpPassManager pm(ModuleOp::getOperationName());
  pm.addPass(createInlinerPass());
  return pm;
}

OpPassManager lowerAffinePipeline() {
  OpPassManager pm(ModuleOp::getOperationName());
  pm.addPass(createLowerAffinePass());
  return pm;
}

/// A call, or a private callable the inliner would drop once unused.
bool hasInlinerWork(ModuleOp module) {
  return module
      .walk([](Operation *op) {
        if (isa<CallOpInterface>(op))
          return WalkResult::interrupt();
        auto symbol = dyn_cast<SymbolOpInterface>(op);
        if (symbol && symbol.isPrivate() && isa<CallableOpInterface>(op))
          return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

bool hasAffineOps(ModuleOp module) {
  return module
      .walk([](Operation *op) {
        return isa_and_present<affine::AffineDialect>(op->getDialect())
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

struct NormalizeInputPass
    : public remat::impl::NormalizeInputPassBase<NormalizeInputPass> {
  using NormalizeInputPassBase::NormalizeInputPassBase;
  void getDependentDialects(DialectRegistry &registry) const override {
    inlinerPipeline().getDependentDialects(registry);
    lowerAffinePipeline().getDependentDialects(registry);
    registry.insert<tensor::TensorDialect>(); // Scalar counters' edges.
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool changed = false;
    if (inlineCalls && hasInlinerWork(module)) {
      OpPassManager inliner = inlinerPipeline();
      if (failed(runPipeline(inliner, module)))
        return signalPassFailure();
      changed = true;
    }
    // After inlining: a callee may have brought affine ops in.
    if (hasAffineOps(module)) {
      OpPassManager lowerAffine = lowerAffinePipeline();
      if (failed(runPipeline(lowerAffine, module)))
        return signalPassFailure();
      changed = true;
    }
    if (failed(remat::scalarizeTensorCounters(module, changed)))
      return signalPassFailure();
    if (remat::readLoopCountersAsIterations(module) > 0)
      changed = true;
    // Outer scans over inner ones unrolled first: the inner ones are then
    // loops of the function's block, as the steps below expect.
    if (remat::unrollScansOfScans(module) > 0)
      changed = true;
    // Parts before blocks: a part may itself be written in blocks.
    if (remat::splitPartStacks(module) > 0)
      changed = true;
    // Blocks before forwarding: a read of the loop's own stack is then a
    // whole row.
    if (remat::blockFlatStacks(module) > 0)
      changed = true;
    // After the counters: a StableHLO while's rows are read by them.
    if (remat::forwardStackReads(module) > 0)
      changed = true;
    // A backward loop's stack written into the stack it consumes row by
    // row; after the unrolling, which exposes such pairs of loops.
    int consumed = 0;
    module.walk(
        [&](func::FuncOp f) { consumed += remat::writeIntoConsumedStacks(f); });
    if (consumed > 0)
      changed = true;
    // A scan's float scalar carries as 0-d tensors (what its checkpoints
    // hold); after the counters, which go the other way for integers.
    if (remat::carryFloatScalarsAsTensors(module) > 0)
      changed = true;
    // Unchanged IR is not verified again (a quarter second at 40k ops).
    if (!changed)
      markAllAnalysesPreserved();
  }
};
} // namespace
