//===- Rematerialize.cpp - Fit training steps into a memory budget --------===//

#include "remat/Analysis/TrainingGraphBuilder.h"
#include "remat/Dialect/Remat/Remat.h"
#include "remat/GraphIO/Units.h"
#include "remat/Solver/Core/Strategy.h"
#include "remat/Transforms/Materialize.h"
#include "remat/Transforms/Passes.h"
#include "remat/Transforms/Prepare.h"
#include "remat/Transforms/RecomputeHints.h"
#include "remat/Transforms/RematReport.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Remarks.h"
#include "llvm/Support/FormatVariadic.h"

#include <chrono>

namespace remat {
#define GEN_PASS_DEF_REMATERIALIZE
#include "remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

namespace {

/// Wall-clock seconds since the last call (the phases of one function).
class PhaseClock {
public:
  double lap() {
    auto now = std::chrono::steady_clock::now();
    double s = std::chrono::duration<double>(now - last).count();
    last = now;
    return s;
  }

private:
  std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
};

/// The smallest budget named in an error is searched exactly on graphs of up
/// to this many nodes, and to within 1/256 of itself on larger ones, where
/// every solve near the floor takes seconds.
constexpr int kExactMinimumBudgetNodes = 1000;
constexpr int kMinimumBudgetGranularityShift = 8;

std::string percentOf(double part, double whole) {
  return whole > 0 ? llvm::formatv("{0:F1}%", 100.0 * part / whole).str()
                   : std::string("n/a");
}

struct RematerializePass
    : public remat::impl::RematerializeBase<RematerializePass> {
  using RematerializeBase::RematerializeBase;

  void runOnOperation() override {
    if (budget.empty()) {
      getOperation().emitError()
          << "-remat-rematerialize needs a budget (budget=2GiB, budget=60%)";
      return signalPassFailure();
    }
    llvm::Expected<SizeSpec> size = parseSize(budget, Units{});
    if (!size) {
      getOperation().emitError()
          << "invalid budget '" << budget
          << "': " << llvm::toString(size.takeError());
      return signalPassFailure();
    }
    if (!findStrategy(strategy)) {
      std::string names;
      for (const StrategyInfo &s : allStrategies())
        names += (names.empty() ? "" : ", ") + s.name;
      getOperation().emitError() << "unknown strategy '" << strategy
                                 << "'; available: " << names;
      return signalPassFailure();
    }
    FailureOr<std::optional<CostTable>> table =
        CostTable::loadOption(costTable, getOperation());
    if (failed(table))
      return signalPassFailure();
    CostModel costs(*table ? &**table : nullptr);

    RematReport report;
    bool failed = false;
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      if (mlir::failed(rematerialize(func, *size, costs, report)))
        failed = true;
    }
    if (!this->report.empty()) {
      std::string error;
      if (!report.write(this->report, error)) {
        getOperation().emitError() << error;
        failed = true;
      }
    }
    if (failed)
      signalPassFailure();
  }

  /// Plans and rewrites a copy of `func`; the original body is replaced
  /// only when the copy meets the budget, so a failure leaves it untouched.
  LogicalResult rematerialize(func::FuncOp original, const SizeSpec &size,
                              const CostModel &costs, RematReport &report) {
    PhaseClock clock;
    OwningOpRef<func::FuncOp> work(original.clone());
    func::FuncOp func = *work;
    prepareForRemat(func);
    FailureOr<IRTrainingGraph> ig =
        buildTrainingGraph(func, costs, RecomputeRegions::Atomic);
    if (mlir::failed(ig))
      return failure();
    SimulationResult before = simulate(ig->graph, ig->programOrder);
    if (!before.valid)
      return func.emitError() << "internal error: the program order is not "
                                 "a valid schedule: "
                              << before.error;
    int64_t budgetBytes =
        size.percent ? static_cast<int64_t>(size.value / 100.0 * before.peak)
                     : static_cast<int64_t>(size.value);
    FunctionReport &fr = report.add(func.getSymName(), strategy, budgetBytes);
    fr.ops = ig->graph.numNodes();
    fr.seconds.analysis = clock.lap();
    fr.peakBefore = before.peak;
    fr.timeBefore = before.time;

    if (ig->recomputeHints.empty() && before.peak <= budgetBytes) {
      remark::analysis(func.getLoc(), remark::RemarkOpts::name("Fits")
                                          .category("remat")
                                          .function(func.getSymName()))
          << llvm::formatv("peak {0} B already within the budget of {1} B; "
                           "nothing to do",
                           before.peak, budgetBytes)
                 .str();
      fr.strategy = "none";
      fr.fitted = true;
      fr.peakAfter = before.peak;
      fr.timeAfter = before.time;
      recordDecisions(*ig, ig->programOrder, fr);
      return success();
    }
    if (mlir::failed(applyRecomputeHints(*ig)))
      return failure();

    SolveOptions opts;
    opts.budget = budgetBytes;
    opts.slots = slots;
    // The solve, and the smallest-budget search if it fails, share the work
    // that does not depend on the budget.
    opts.cache = std::make_shared<SolveCache>();
    opts.note = [&](const std::string &msg) {
      remark::analysis(func.getLoc(), remark::RemarkOpts::name("Note")
                                          .category("remat")
                                          .function(func.getSymName()))
          << msg;
    };
    Solution sol = solve(ig->graph, strategy, opts);
    if (!sol.feasible) {
      // Some strategies are not monotone in the budget (slot rounding, model
      // slack): the smallest budget they meet may lie below one they miss.
      // A schedule for that smaller budget fits this one too.
      SolveOptions quiet = opts;
      quiet.note = nullptr;
      const int shift = ig->graph.numNodes() > kExactMinimumBudgetNodes
                            ? kMinimumBudgetGranularityShift
                            : 0;
      int64_t minimum = minimumBudget(ig->graph, strategy, quiet, shift);
      if (minimum >= 0 && minimum <= budgetBytes) {
        quiet.budget = minimum;
        sol = solve(ig->graph, strategy, quiet);
      }
      if (!sol.feasible) {
        fr.seconds.solve = clock.lap();
        fr.minimumBudget = minimum;
        InFlightDiagnostic diag = original.emitError();
        diag << "cannot fit @" << func.getSymName() << " into " << budgetBytes
             << " B (" << percentOf(budgetBytes, before.peak)
             << " of its peak without rematerialization, " << before.peak
             << " B) with strategy '" << strategy << "'";
        if (minimum > budgetBytes)
        {
          diag << "; the smallest budget it can meet is " << minimum
               << " B (" << percentOf(minimum, before.peak) << ")";
          if (shift)
            diag << ", found to within 1/" << (1 << shift);
        }
        else
          diag << "; " << sol.reason;
        return diag;
      }
    }
    fr.seconds.solve = clock.lap();

    FailureOr<MaterializeResult> done =
        materializeSchedule(func, *ig, sol.schedule);
    if (mlir::failed(done))
      return failure();
    fr.seconds.rewrite = clock.lap();

    // The guarantee, checked on the rewritten IR by the same lifetime
    // analysis the tests use.
    FailureOr<IRTrainingGraph> after =
        buildTrainingGraph(func, costs, RecomputeRegions::Flatten);
    if (mlir::failed(after))
      return failure();
    SimulationResult check = simulate(after->graph, after->programOrder);
    if (!check.valid || check.peak > budgetBytes)
      return func.emitError()
             << "internal error: the rewritten function peaks at "
             << check.peak << " B, above the budget of " << budgetBytes
             << " B (" << (check.valid ? "" : check.error) << ")";
    fr.seconds.check = clock.lap();

    original.getBody().takeBody(func.getBody());
    fr.strategy = sol.chosen;
    fr.fitted = true;
    fr.peakAfter = check.peak;
    fr.timeAfter = sol.sim.time;
    recordDecisions(*ig, sol.schedule, fr);
    remark::passed(original.getLoc(), remark::RemarkOpts::name("Rematerialized")
                                      .category("remat")
                                      .function(func.getSymName()))
        << llvm::formatv("strategy {0}: peak {1} B -> {2} B (budget {3} B), "
                         "{4} ops recomputed in {5} regions, time +{6}; "
                         "{7} ops planned in {8:F3} s (analysis {9:F3}, "
                         "solve {10:F3}, rewrite {11:F3}, check {12:F3})",
                         sol.strategy == sol.chosen
                             ? sol.chosen
                             : sol.strategy + " (" + sol.chosen + ")",
                         before.peak, check.peak, budgetBytes,
                         done->clonedOps, done->recomputeOps,
                         percentOf(sol.sim.time - before.time, before.time),
                         fr.ops, fr.seconds.total(), fr.seconds.analysis,
                         fr.seconds.solve, fr.seconds.rewrite,
                         fr.seconds.check)
               .str();
    return success();
  }

  /// One remark and one report entry per forward op: kept or recomputed.
  void recordDecisions(const IRTrainingGraph &ig, const Schedule &schedule,
                       FunctionReport &fr) {
    const TrainingGraph &g = ig.graph;
    std::vector<int> runs = schedule.runCounts(g);
    for (NodeId n = 0; n < g.numNodes(); ++n) {
      if (ig.isCopy(n)) // Counted with the op it copies.
        runs[ig.copyOf[n]] += runs[n];
    }
    for (NodeId n = 0; n < g.numNodes(); ++n) {
      if (!g.isForward(n) || ig.isCopy(n))
        continue;
      Operation *op = ig.primaryOp(n);
      int64_t bytes = 0;
      for (TensorId t : g.node(n).outputs)
        bytes += g.tensor(t).bytes;
      int recomputations = runs[n] - 1;
      fr.values.push_back(ValueDecision{op->getName().getStringRef().str(),
                                        costTableKey(op), bytes,
                                        recomputations});
      if (bytes == 0)
        continue;
      auto opts = remark::RemarkOpts::name(recomputations ? "Recomputed"
                                                          : "Kept")
                      .category("remat")
                      .function(fr.name);
      if (recomputations)
        remark::passed(op->getLoc(), opts)
            << llvm::formatv("recomputed {0}x ({1} B)", recomputations, bytes)
                   .str();
      else
        remark::analysis(op->getLoc(), opts)
            << llvm::formatv("kept ({0} B)", bytes).str();
    }
  }
};

} // namespace
