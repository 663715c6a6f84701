//===- CheckpointScansPass.cpp - -remat-checkpoint-scans ------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Chooses the number of checkpoints of each scan (the option, or the largest
// whose estimated peak fits the budget) and rewrites it; every loop that is
// not checkpointed gets a remark naming the reason.
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/TrainingGraphBuilder.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Loop/LoopReversal.h"
#include "remat/Support/Units.h"
#include "remat/Loops/CheckpointScans.h"
#include "remat/Loops/ForwardStackReads.h"
#include "remat/Loops/BlockStacks.h"
#include "remat/Loops/PartStacks.h"
#include "remat/Loops/NestedScans.h"
#include "remat/Loops/TensorCarries.h"
#include "remat/Transforms/Passes.h"
#include "remat/Transforms/Prepare.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/Support/FormatVariadic.h"

namespace remat {
#define GEN_PASS_DEF_CHECKPOINTSCANSPASS
#include "remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

namespace {

/// The peak of `func` prepared as the planner and the lowerings prepare it,
/// or nullopt.
std::optional<int64_t> preparedPeak(func::FuncOp func) {
  OwningOpRef<func::FuncOp> copy(func.clone());
  prepareForRemat(*copy);
  return functionPeak(*copy, CostModel(), RecomputeRegions::Flatten,
                      func->getParentOp());
}

struct CheckpointScansPass
    : public remat::impl::CheckpointScansPassBase<CheckpointScansPass> {
  using Base::Base;

  void runOnOperation() override {
    std::optional<SizeSpec> size;
    if (!budget.empty()) {
      llvm::Expected<SizeSpec> parsed = parseSize(budget, Units());
      if (!parsed) {
        emitError(getOperation().getLoc())
            << "remat-checkpoint-scans: " << llvm::toString(parsed.takeError());
        return signalPassFailure();
      }
      size = *parsed;
    } else if (slots < 1) {
      emitError(getOperation().getLoc())
          << "remat-checkpoint-scans: give slots=K (K >= 1) or a budget";
      return signalPassFailure();
    }
    WalkResult r = getOperation()->walk([&](func::FuncOp func) {
      return succeeded(runOnFunction(func, size)) ? WalkResult::advance()
                                                  : WalkResult::interrupt();
    });
    if (r.wasInterrupted())
      signalPassFailure();
  }

  LogicalResult runOnFunction(func::FuncOp func,
                              const std::optional<SizeSpec> &size) {
    if (func.isExternal() || !func.getBody().hasOneBlock())
      return success();
    // A loop keeping its state in its stack carries it (as
    // -remat-normalize-input does before -remat-fit), so it reads as a scan.
    unrollScansOfScans(func);
    splitPartStacks(func);
    blockFlatStacks(func);
    forwardStackReads(func);
    carryFloatScalarsAsTensors(func);
    int64_t bytes = 0;
    if (size) {
      std::optional<int64_t> peak = preparedPeak(func);
      if (!peak)
        return func.emitError()
               << "remat-checkpoint-scans: cannot compute the peak of @"
               << func.getSymName();
      llvm::Expected<int64_t> resolved = resolveBudget(*size, *peak);
      if (!resolved)
        return func.emitError() << llvm::toString(resolved.takeError());
      bytes = *resolved;
      if (*peak <= bytes) {
        func.emitRemark() << "fits the budget of " << bytes
                          << " B without checkpointing its loops";
        return success();
      }
    }
    auto graphOf = [&](func::FuncOp copy, const RegionRuns &runs) {
      prepareForRemat(copy);
      return buildTrainingGraph(copy, CostModel(), RecomputeRegions::Flatten,
                                func->getParentOp(), &runs);
    };
    CostModel costs;
    ScanPlanning planning{graphOf, costs, /*plan=*/{}};
    return success(succeeded(checkpointScansWithin(
        func, bytes, planning, size ? 0 : int64_t(slots),
        size ? 0 : int64_t(resizeFrom))));
  }
};

} // namespace
