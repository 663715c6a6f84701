//===- CheckpointScansPass.cpp - -remat-checkpoint-scans ------------------===//
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
#include "remat/Transforms/CheckpointScans.h"
#include "remat/Transforms/Passes.h"

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

/// The peak of `func` as it stands (loops as single ops), or nullopt.
std::optional<int64_t> programPeak(func::FuncOp func) {
  CostModel costs;
  FailureOr<IRTrainingGraph> g =
      buildTrainingGraph(func, costs, RecomputeRegions::Flatten);
  if (failed(g))
    return std::nullopt;
  SimulationResult sim = simulate(g->graph, g->programOrder);
  return sim.valid ? std::optional<int64_t>(sim.peak) : std::nullopt;
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
    if (func.isExternal())
      return success();
    SmallVector<scf::ForOp> loops;
    for (Operation &op : func.getBody().getOps())
      if (auto loop = dyn_cast<scf::ForOp>(op))
        loops.push_back(loop);
    llvm::SmallPtrSet<Operation *, 4> reversed;
    for (scf::ForOp loop : loops) {
      if (reversed.contains(loop))
        continue;
      auto match = matchScan(loop);
      if (auto *why = std::get_if<std::string>(&match)) {
        loop.emitRemark() << "loop not checkpointed: " << *why;
        continue;
      }
      ScanPair &scan = std::get<ScanPair>(match);
      reversed.insert(scan.backward);
      FailureOr<int64_t> k = chooseSlots(func, scan, size);
      if (failed(k))
        return failure();
      LoopReversalCounts counts = countLoopReversal(scan.steps, *k);
      loop.emitRemark() << llvm::formatv(
          "scan of {0} steps checkpointed with {1} slots of {2} B (stacks of "
          "{3} B dropped): {4} forward steps (minimum for {1} checkpoints "
          "plus one), {5} reversal actions",
          scan.steps, *k, scan.carryBytes, scan.stackBytes, counts.forwardSteps,
          counts.actions);
      checkpointScan(scan, *k);
    }
    return success();
  }

  /// The option, or the most slots whose estimate fits the budget: the
  /// peak as it stands, less the stacks, plus the slots and the working
  /// carry of the advance loops.
  FailureOr<int64_t> chooseSlots(func::FuncOp func, ScanPair &scan,
                                 const std::optional<SizeSpec> &size) {
    if (!size)
      return std::min<int64_t>(slots, scan.steps);
    std::optional<int64_t> peak = programPeak(func);
    if (!peak)
      return scan.forward.emitError()
             << "remat-checkpoint-scans: cannot estimate the peak of @"
             << func.getSymName();
    llvm::Expected<int64_t> bytes = resolveBudget(*size, *peak);
    if (!bytes)
      return scan.forward.emitError() << llvm::toString(bytes.takeError());
    const int64_t rest = *peak - scan.stackBytes + scan.carryBytes;
    const int64_t fit =
        scan.carryBytes > 0 ? (*bytes - rest) / scan.carryBytes : scan.steps;
    if (fit < 1)
      scan.forward.emitRemark()
          << "the budget of " << *bytes << " B leaves no room for a "
          << "checkpoint (" << rest + scan.carryBytes
          << " B estimated with one); keeping one";
    return std::clamp<int64_t>(fit, 1, scan.steps);
  }
};

} // namespace
