//===- TestAnalysisPasses.cpp - Analyses printed as remarks (tests) -------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Analysis/TrainingGraphBuilder.h"
#include "remat/Solver/LowerSet/LowerSet.h"
#include "remat/Solver/Core/Simulator.h"
#include "TestPasses.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/FormatVariadic.h"

namespace remat {
#define GEN_PASS_DEF_TESTTRAININGGRAPHPASS
#define GEN_PASS_DEF_TESTTIMELINEPASS
#define GEN_PASS_DEF_TESTLOWERSETSPASS
#include "TestPasses.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

namespace {

/// Runs `fn` on the graph of every function with a body; fails when a graph
/// cannot be built.
template <typename Fn>
LogicalResult forEachGraph(ModuleOp module, RecomputeRegions regions,
                           int64_t alignment, Fn fn) {
  CostModel costs(/*table=*/nullptr, alignment);
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    FailureOr<IRTrainingGraph> ig = buildTrainingGraph(func, costs, regions);
    if (failed(ig))
      return failure();
    fn(func, *ig);
  }
  return success();
}

struct TestTrainingGraphPass
    : public remat::impl::TestTrainingGraphPassBase<TestTrainingGraphPass> {
  using TestTrainingGraphPassBase::TestTrainingGraphPassBase;
  void runOnOperation() override {
    if (failed(forEachGraph(
        getOperation(), RecomputeRegions::Atomic, alignment,
        [](func::FuncOp func, const IRTrainingGraph &ig) {
          const TrainingGraph &g = ig.graph;
          int forward = 0;
          for (NodeId n = 0; n < g.numNodes(); ++n) {
            const Node &node = g.node(n);
            forward += g.isForward(n);
            std::string bytes;
            for (TensorId t : node.outputs)
              bytes += (bytes.empty() ? "" : ",") +
                       std::to_string(g.tensor(t).bytes);
            ig.primaryOp(n)->emitRemark()
                << llvm::formatv("{0}{1}, bytes [{2}], time {3}",
                                 g.isForward(n) ? "forward" : "backward",
                                 g.isForward(n)
                                     ? (node.recomputable ? ", recomputable"
                                                          : ", never recomputed")
                                     : "",
                                 bytes, node.time)
                       .str()
                << (node.workspace
                        ? ", workspace " + std::to_string(node.workspace)
                        : std::string())
                << (node.overwrites != kNone
                        ? ", overwrites " + g.tensor(node.overwrites).name
                        : std::string());
          }
          func.emitRemark() << llvm::formatv(
              "{0} forward ops, {1} backward ops, loss {2}", forward,
              g.numNodes() - forward, g.tensor(ig.loss).name);
        })))
      signalPassFailure();
  }
};

struct TestTimelinePass
    : public remat::impl::TestTimelinePassBase<TestTimelinePass> {
  using TestTimelinePassBase::TestTimelinePassBase;
  void runOnOperation() override {
    bool overBudget = false;
    if (failed(forEachGraph(
        getOperation(), RecomputeRegions::Flatten, alignment,
        [&](func::FuncOp func, const IRTrainingGraph &ig) {
          SimulatorOptions opts;
          opts.recordTimeline = true;
          const Schedule &order = ig.programOrder;
          SimulationResult sim = ig.simulateProgram(opts);
          if (!sim.valid) {
            func.emitError() << "invalid program order: " << sim.error;
            return;
          }
          // Report each op's Run step, with what is live once its dead
          // inputs have been freed (the Free steps that follow it).
          const auto &steps = order.steps();
          if (maxPeak >= 0 && sim.peak > maxPeak) {
            func.emitError() << "peak " << sim.peak << " B exceeds "
                             << maxPeak << " B";
            overBudget = true;
          }
          for (size_t i = 0; i < steps.size() && !quiet; ++i) {
            if (!steps[i].isRun())
              continue;
            size_t last = i;
            while (last + 1 < steps.size() && steps[last + 1].isFree())
              ++last;
            ig.primaryOp(steps[i].id)->emitRemark() << llvm::formatv(
                "holds {0} B while running, {1} B live after",
                sim.usageDuringStep[i], sim.liveAfterStep[last]);
          }
          InFlightDiagnostic d = func.emitRemark();
          d << "peak " << sim.peak << " B";
          if (sim.peakStep >= 0 && !quiet) {
            const Step &at = steps[sim.peakStep];
            if (at.isRun())
              d.attachNote(ig.primaryOp(at.id)->getLoc()) << "peak reached here";
            else // A prefetch: the value it brings back.
              d.attachNote(ig.tensorValues[at.id].getLoc())
                  << "peak reached here, prefetching this value";
          }
        })) || overBudget)
      signalPassFailure();
  }
};

struct TestLowerSetsPass
    : public remat::impl::TestLowerSetsPassBase<TestLowerSetsPass> {
  using TestLowerSetsPassBase::TestLowerSetsPassBase;
  void runOnOperation() override {
    int64_t limit = cap;
    // Lower sets are a property of the graph: exact tensor bytes.
    if (failed(forEachGraph(
        getOperation(), RecomputeRegions::Atomic, /*alignment=*/1,
        [limit](func::FuncOp func, const IRTrainingGraph &ig) {
          LowerSetModel model(ig.graph);
          for (int v = 0; v < model.size(); ++v) {
            const uint64_t *lv = model.ancestors(v);
            LowerSetInfo info = model.info(lv);
            ig.primaryOp(model.node(v))->emitRemark() << llvm::formatv(
                "L_v has {0} ops ({1} B), boundary {2} ops", info.size,
                info.mem, info.boundary.size());
          }
          LowerSetFamily all = allLowerSets(model, limit);
          InFlightDiagnostic d = func.emitRemark();
          d << model.size() << " forward ops, ";
          if (all.complete)
            d << all.size() << " lower sets";
          else
            d << "more than " << limit << " lower sets";
        })))
      signalPassFailure();
  }
};

} // namespace
