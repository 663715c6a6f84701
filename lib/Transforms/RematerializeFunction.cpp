//===- RematerializeFunction.cpp - Fit one function into a budget ---------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The phases, each a function a reader can name: analyse (IR -> graph and
// the peak without rematerialization), plan (solve; when that misses, search
// the smallest budget), materialize and check the guarantee on the rewritten
// IR, then record the decisions as remarks and report entries.
//
//===----------------------------------------------------------------------===//

#include "remat/Transforms/Rematerialize.h"

#include "remat/Analysis/Collectives.h"
#include "remat/Analysis/DevicePeaks.h"
#include "remat/Analysis/PipelineTime.h"
#include "remat/Analysis/ShapeBounds.h"
#include "remat/Analysis/TrainingGraphBuilder.h"
#include "remat/Dialect/Remat/Remat.h"
#include "remat/Loops/CheckpointScans.h"
#include "remat/Loops/StashRings.h"
#include "remat/Solver/Core/Strategy.h"
#include "remat/Solver/Portfolio/MinimumBudget.h"
#include "remat/Solver/Portfolio/SizedSolve.h"
#include "remat/Transforms/FloorBreakdown.h"
#include "remat/Transforms/HostStackChoice.h"
#include "remat/Transforms/RowsRecomputedChoice.h"
#include "remat/Transforms/Materialize.h"
#include "remat/Transforms/MicroBatch.h"
#include "remat/Transforms/Prepare.h"
#include "remat/Transforms/RecomputeHints.h"
#include "remat/Transforms/StashRingStages.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Remarks.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/FormatVariadic.h"

#include <chrono>

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

/// The strategy offload=true weighs beside the one asked for.
constexpr const char *kOffloadStrategy = "offload-greedy";


/// Whether every tensor.empty of `func` carries the number -remat-prepare
/// gives each op's own initial value.
bool initialValuesNumbered(func::FuncOp func) {
  return !func.walk([](tensor::EmptyOp empty) {
                return empty->hasAttr(RematDialect::kInitAttrName)
                           ? WalkResult::advance()
                           : WalkResult::interrupt();
              })
              .wasInterrupted();
}

remark::RemarkOpts remarkOpts(llvm::StringRef name, llvm::StringRef function) {
  return remark::RemarkOpts::name(name).category("remat").function(function);
}

/// One function's planning state, from analysis to the checked rewrite.
class FunctionFitter {
public:
  /// `symbolScope`: where symbols are looked up when `original` is a
  /// detached copy (default: its parent).
  FunctionFitter(func::FuncOp original, const RematOptions &options,
                 const CostModel &costs, RematResult &result,
                 Operation *symbolScope = nullptr)
      : original(original), options(options), costs(costs), result(result),
        fr(result.report),
        symbolScope(symbolScope ? symbolScope : original->getParentOp()) {}

  LogicalResult run() {
    // Embedders call this without a pass that declares the dialect: the
    // rewrite creates remat.recompute regions.
    original->getContext()->getOrLoadDialect<RematDialect>();
    if (microBatchLoop(original)) // The step is the loop's body.
      return rematerializeMicroBatchStep(original, options, costs, result);
    work = original.clone();
    func = *work;
    if (failed(analyse()))
      return failure();
    if (ig->recomputeHints.empty() && !options.budget.minimum) {
      // The input as it is, when it fits as the lowering will run it: the
      // lowering prepares it too (each op its own initial value), and the
      // prepared copy's peak (analyse()) is the one it measures. An input
      // whose initial values are not all numbered (remat.init) is returned
      // prepared: a cse after the pass could otherwise merge the fills
      // into a tensor.empty the clean-up shared (the ResNet example then
      // peaked 9 % higher). One already prepared (an output of this pass)
      // is returned unchanged.
      std::optional<int64_t> peak = peakAsIs(original);
      if (peak && *peak <= fr.budget &&
          (!preparedPeak || *preparedPeak <= fr.budget) &&
          initialValuesNumbered(original))
        return keepAsIs(preparedPeak.value_or(*peak), /*usePrepared=*/false);
      if (preparedPeak && *preparedPeak <= fr.budget)
        return keepAsIs(*preparedPeak, /*usePrepared=*/true);
    }
    FailureOr<bool> checkpointed = checkpointScans();
    if (failed(checkpointed))
      return failure();
    if (*checkpointed && ig->recomputeHints.empty() && !options.budget.minimum)
      if (std::optional<int64_t> peak = peakAsIs(func);
          peak && *peak <= fr.budget)
        return keepAsIs(*peak, /*usePrepared=*/true);
    if (failed(dropStashRings()))
      return failure();
    if (failed(applyRecomputeHints(*ig)))
      return failure();
    // The planner's graph of an offloaded body has copy steps no strategy
    // replans (they are not nodes).
    if (!func.getBody().getOps<OffloadOp>().empty())
      return original.emitError()
             << "@" << func.getSymName()
             << " already copies values to the host (remat.offload) and "
                "does not fit the budget as it is: plan the function "
                "without its host copies";
    std::optional<Solution> sol = plan();
    if (!sol)
      return failure();
    // The input is a plan too: at the smallest budget, one the program as
    // written already meets is not traded for a larger one.
    if (options.budget.minimum && ig->recomputeHints.empty() &&
        preparedPeak && *preparedPeak <= fr.budget)
      return keepAsWritten(fr.budget, sol->strategy == sol->chosen
                                          ? sol->chosen
                                          : sol->strategy + " (" +
                                                sol->chosen + ")");
    if (failed(rewriteAndCheck(*sol)))
      return failure();
    // Made from the program as written, before it is replaced.
    std::optional<StagePlan> staged;
    if (sol->chosen == "none")
      staged = dropRingsOnLeadingStages(original, droppedRings, fr.budget,
                                        costs, scope(), ringsShared);
    original.getBody().takeBody(func.getBody());
    recordSuccess(*sol);
    if (staged)
      keepRingsOnLaterStages(*staged);
    return success();
  }

private:
  /// Builds the graph of the prepared copy and the no-remat peak.
  LogicalResult analyse() {
    prepareForRemat(func);
    FailureOr<IRTrainingGraph> built =
        buildTrainingGraph(func, costs, RecomputeRegions::Atomic, scope());
    if (failed(built))
      return failure();
    ig = std::move(*built);
    for (Operation *call : ig->opaqueCalls)
      remark::analysis(call->getLoc(),
                       remarkOpts("OpaqueCall", func.getSymName()))
          << ("the memory @" + cast<func::CallOp>(call).getCallee() +
              " allocates inside is not counted (no body here, or a "
              "recursive call): inline it, or give the call a remat.cost "
              "with its workspace")
                 .str();
    before = ig->simulateProgram();
    if (!before.valid)
      return func.emitError() << "internal error: the program order is not "
                                 "a valid schedule: "
                              << before.error;
    // The peak of the program as it runs: the lifetime timeline of the
    // prepared copy (each op with its own initial value, as the lowering
    // prepares it too). The planner's graph never assumes an in-place
    // update a plan could break, so it may count more. Percent budgets and
    // the report use this one.
    preparedPeak = peakAsIs(func);
    peakBefore = preparedPeak.value_or(before.peak);
    if (options.budget.minimum) {
      fr.budget = -1; // Found by plan().
    } else {
      llvm::Expected<int64_t> budget =
          resolveBudget(options.budget, peakBefore);
      if (!budget)
        return original.emitError() << llvm::toString(budget.takeError());
      fr.budget = *budget;
    }
    fr.name = func.getSymName().str();
    fr.bounds = describeBounds(original);
    fr.strategy = options.strategy;
    fr.budgetIsMinimum = options.budget.minimum;
    fr.ops = ig->graph.numNodes();
    fr.seconds.analysis = clock.lap();
    fr.peakBefore = peakBefore;
    // Where a branch on the device index chooses what each device holds,
    // the bounds combine every device's choices: the report gives the
    // largest device's peak (plans are still checked against peakBefore).
    std::vector<int64_t> perDevice = devicePeaks(func, costs, scope());
    if (!perDevice.empty())
      fr.peakBefore = std::min(fr.peakBefore, *llvm::max_element(perDevice));
    fr.timeBefore = before.time;
    timeAsIs = before.time;
    return success();
  }

  /// Scans (ScanLoops.h) keep the checkpoints of the fastest plan of the
  /// whole function within the budget (the strategy solves the graph with
  /// each scan as a node resized to the counts tried, ScanSlots.h); the
  /// rewrite checked with those counts becomes the body, re-analysed.
  FailureOr<bool> checkpointScans() {
    auto graphOf = [&](func::FuncOp copy, const RegionRuns &runs) {
      prepareForRemat(copy);
      return buildTrainingGraph(copy, costs, RecomputeRegions::Atomic, scope(),
                                &runs);
    };
    SolveOptions opts = options.solve;
    opts.budget = fr.budget;
    opts.note = nullptr;
    auto plan = [&, opts](const TrainingGraph &g) -> std::optional<GraphPlan> {
      Solution sol = solve(g, options.strategy, opts);
      if (!sol.feasible)
        return std::nullopt;
      return GraphPlan{sol.sim.time, std::move(sol.schedule)};
    };
    // Where the strategy has a model that chooses sizes (checkmate-milp;
    // auto on the graphs it refines with it), every scan's slots are also
    // chosen in it, with the schedule.
    PlanSized planSized;
    planSized.applies = [&, opts](const TrainingGraph &g) {
      return sizingStrategy(g, options.strategy, opts) != nullptr;
    };
    planSized.plan = [&, opts](const TrainingGraph &g,
                               const std::vector<SizedPart> &parts,
                               const std::vector<int> &warmPicks,
                               const Schedule &warm)
        -> std::optional<SizedPlan> {
      SolveOptions o = opts;
      o.warmStart = std::make_shared<Schedule>(warm);
      SizedSolution s = solveSized(g, parts, options.strategy, o, warmPicks);
      if (!s.solution.feasible)
        return std::nullopt;
      return SizedPlan{std::move(s.picks), std::move(s.solution.schedule)};
    };
    // Whether a count fits as the program is: by the guarantee's analysis
    // (peakAsIs), which takes the in-place writes the order as written
    // allows; the planner's graph may count a buffer more.
    auto timelineOf = [&](func::FuncOp prepared, const RegionRuns &runs) {
      return buildTrainingGraph(prepared, costs, RecomputeRegions::Flatten,
                                scope(), &runs);
    };
    ScanPlanning planning{graphOf,
                          costs,
                          plan,
                          planSized,
                          /*adoptChecked=*/true,
                          timelineOf};
    // At the smallest budget, the fewest slots (-1).
    FailureOr<ScansRewritten> rewritten =
        checkpointScansWithin(func, options.budget.minimum ? -1 : fr.budget,
                              planning, options.scanSlots);
    if (failed(rewritten))
      return failure();
    if (rewritten->count == 0)
      return false;
    checkpointedScans = rewritten->count;
    if (!rewritten->prepared)
      prepareForRemat(func);
    FailureOr<IRTrainingGraph> built = buildTrainingGraph(
        func, costs, RecomputeRegions::Atomic, scope(), &rewritten->runs);
    if (failed(built))
      return failure();
    ig = std::move(*built);
    timeAsIs = ig->simulateProgram().time;
    fr.ops = ig->graph.numNodes();
    return true;
  }

  /// A copy of the function with some stash rings dropped, its graph, and
  /// what it dropped.
  struct RingVariant {
    OwningOpRef<func::FuncOp> copy;
    std::optional<IRTrainingGraph> graph;
    size_t rings = 0;
    int64_t bytes = 0;
    /// Where the dropped rings' rows are computed (costTableKey).
    std::vector<std::string> producers;
    /// Which rings: by loop (StashRingStages.h).
    RingsByLoop byLoop;
    /// Whether reads of one row share what they recompute
    /// (recomputeStashRings' `share`).
    bool shared = true;
  };

  /// The rings of `func` that can be dropped: (loop in walk order, its
  /// iteration argument), and their bytes.
  struct DroppableRing {
    size_t loop;
    unsigned arg;
  };
  SmallVector<DroppableRing> droppableRings() {
    SmallVector<DroppableRing> rings;
    size_t index = 0;
    func.walk([&](scf::ForOp loop) {
      for (unsigned arg : findStashRings(loop).dropped)
        rings.push_back({index, arg});
      ++index;
    });
    return rings;
  }

  /// Where each of `rings` is computed (costTableKey), in order.
  std::vector<std::string> ringProducers(ArrayRef<DroppableRing> rings) {
    SmallVector<scf::ForOp> loops;
    func.walk([&](scf::ForOp loop) { loops.push_back(loop); });
    std::vector<std::string> keys;
    for (const DroppableRing &r : rings) {
      StashRings found = findStashRings(loops[r.loop]);
      for (auto [i, arg] : llvm::enumerate(found.dropped))
        if (arg == r.arg)
          keys.push_back(costTableKey(found.droppedProducers[i]));
    }
    return keys;
  }

  /// The copy of the function with `chosen` of `rings` dropped.
  FailureOr<RingVariant> withRingsDropped(ArrayRef<DroppableRing> rings,
                                          const llvm::SmallBitVector &chosen,
                                          bool share = true) {
    RingVariant v;
    v.shared = share;
    v.copy = func.clone();
    SmallVector<scf::ForOp> loops;
    v.copy->walk([&](scf::ForOp loop) { loops.push_back(loop); });
    IRRewriter rewriter(v.copy->getContext());
    for (auto [index, loop] : llvm::enumerate(loops)) {
      SmallVector<unsigned> only;
      for (auto [i, r] : llvm::enumerate(rings))
        if (chosen[i] && r.loop == index)
          only.push_back(r.arg);
      if (only.empty())
        continue;
      v.byLoop.push_back({index, only});
      StashRings found = findStashRings(loop);
      for (unsigned arg : only)
        for (auto [i, dropped] : llvm::enumerate(found.dropped))
          if (dropped == arg)
            v.producers.push_back(costTableKey(found.droppedProducers[i]));
      v.rings += only.size();
      v.bytes += found.droppedBytes * static_cast<int64_t>(only.size()) /
                 static_cast<int64_t>(found.dropped.size());
      recomputeStashRings(rewriter, loop, only, share);
    }
    prepareForRemat(*v.copy);
    FailureOr<IRTrainingGraph> built = buildTrainingGraph(
        *v.copy, costs, RecomputeRegions::Atomic, scope());
    if (failed(built))
      return failure();
    v.graph = std::move(*built);
    return v;
  }

  /// Loops that stash rows in rings (StashRings.h: a 1F1B pipeline step):
  /// the copies that drop rings derived from others (every choice of them
  /// up to 4 rings, else each first n in program order) are planned whole
  /// beside the function as it is; the fastest plan within the budget wins,
  /// or, at the smallest budget, the smallest budget (fewer rings on a
  /// tie). Every rank runs the same program, so the one plan is for the
  /// stage that holds the most.
  LogicalResult dropStashRings() {
    SmallVector<DroppableRing> rings = droppableRings();
    if (rings.empty())
      return success();
    const size_t n = rings.size();
    SmallVector<llvm::SmallBitVector> choices = ringChoices(n);
    SolveOptions opts = options.solve;
    opts.note = nullptr;
    const int shift = minimumBudgetShift();
    auto score = [&](const TrainingGraph &g) {
      return ringScore(g, opts, shift);
    };
    std::optional<double> best = score(ig->graph);
    std::optional<RingVariant> winner;
    for (const llvm::SmallBitVector &chosen : choices) {
      FailureOr<RingVariant> v = withRingsDropped(rings, chosen);
      if (failed(v))
        return failure();
      std::optional<double> s = score(v->graph->graph);
      if (!s || (best && *s >= *best &&
                 !(*s == *best && winner && v->rings < winner->rings)))
        continue;
      best = s;
      winner = std::move(*v);
    }
    // Every ring dropped with each read recomputing its row alone: more
    // time than sharing, less memory (a block's backward reads its last
    // rows first; shared, every row recomputed on the way lives from that
    // read to its own). It wins where the shared forms miss the budget,
    // or at min where its budget is smaller.
    llvm::SmallBitVector all(n, true);
    FailureOr<RingVariant> alone =
        withRingsDropped(rings, all, /*share=*/false);
    if (failed(alone))
      return failure();
    if (std::optional<double> s = score(alone->graph->graph);
        s && (!best || *s < *best)) {
      best = s;
      winner = std::move(*alone);
    }
    if (!winner && !best && !options.budget.minimum)
      explainRingsMinimum(*alone, n, opts, shift);
    if (!winner)
      return success();
    adoptRings(*winner, rings);
    return success();
  }

  /// The choices of rings to drop: every one up to 4 rings, else each first
  /// n in program order.
  static SmallVector<llvm::SmallBitVector> ringChoices(size_t n) {
    SmallVector<llvm::SmallBitVector> choices;
    if (n <= 4) {
      for (unsigned mask = 1; mask < (1u << n); ++mask) {
        llvm::SmallBitVector c(n);
        for (size_t i = 0; i < n; ++i)
          if (mask & (1u << i))
            c.set(i);
        choices.push_back(std::move(c));
      }
    } else {
      for (size_t k = 1; k <= n; ++k) {
        llvm::SmallBitVector c(n);
        c.set(0, k);
        choices.push_back(std::move(c));
      }
    }
    return choices;
  }

  /// How a plan compares: at min its smallest budget, else its time (a
  /// plan that misses the budget never wins).
  std::optional<double> ringScore(const TrainingGraph &g,
                                  const SolveOptions &opts, int shift) {
    if (options.budget.minimum) {
      int64_t m = minimumBudget(g, options.strategy, opts, shift);
      return m < 0 ? std::nullopt : std::optional<double>(double(m));
    }
    SolveOptions o = opts;
    o.budget = fr.budget;
    Solution sol = solve(g, options.strategy, o);
    return sol.feasible ? std::optional<double>(sol.sim.time) : std::nullopt;
  }

  /// Nothing meets the budget: the error names the smallest budget, which
  /// dropping every ring (each read alone) may lower, and what that program
  /// holds at its peak there.
  void explainRingsMinimum(const RingVariant &alone, size_t n,
                           const SolveOptions &opts, int shift) {
    const TrainingGraph &g = alone.graph->graph;
    ringsMinimum = minimumBudget(g, options.strategy, opts, shift);
    ringsDroppable = n;
    SolveOptions o = opts;
    o.budget = ringsMinimum;
    if (Solution at = solve(g, options.strategy, o);
        ringsMinimum >= 0 && at.feasible)
      ringsFloor = explainPeak(*alone.graph, at.schedule);
  }

  /// Takes the winning copy's body and graph, and records and remarks
  /// which rings it drops.
  void adoptRings(RingVariant &winner, ArrayRef<DroppableRing> rings) {
    const size_t n = rings.size();
    func.getBody().takeBody(winner.copy->getBody());
    ig = std::move(*winner.graph);
    timeAsIs = ig->simulateProgram().time;
    fr.ops = ig->graph.numNodes();
    fr.stashRingsDropped = winner.rings;
    fr.stashRingsRecomputed = winner.producers;
    fr.stashRingsKept.clear();
    for (const std::string &key : ringProducers(rings))
      if (!llvm::is_contained(winner.producers, key))
        fr.stashRingsKept.push_back(key);
    droppedRings = winner.byLoop;
    ringsShared = winner.shared;
    remark::passed(func.getLoc(), remarkOpts("StashRings", func.getSymName()))
        << llvm::formatv(
               "{0} of {1} stash ring(s) dropped ({2} B): each row read back "
               "is recomputed from the rows of the rings kept, in the loop "
               "body{4} (the rows of {3}). Assumed, not proved: the rows read "
               "before any iteration wrote them reach only masked values (a "
               "pipeline's bubbles)",
               winner.rings, n, winner.bytes,
               llvm::join(winner.producers, ", "),
               winner.shared ? "" : ", each read alone (none shares what "
                                     "another recomputed: least memory)")
               .str();
  }

  /// Where the plan is the stash rings dropped and nothing else: they are
  /// dropped only on the leading stages that need it for the budget
  /// (StashRingStages.h), the later stages keep their rows. The decisions
  /// recorded stay those of the stage that drops them.
  /// The critical path of both plans is reported (PipelineTime.h): a
  /// later stage's recomputation is on the pipeline's critical path where
  /// an earlier stage waits for its gradients, so this one is never slower.
  void keepRingsOnLaterStages(StagePlan &staged) {
    std::optional<PipelineTime> everyStage =
        pipelineTime(original, costs, scope());
    std::optional<PipelineTime> leading =
        pipelineTime(*staged.func, costs, scope());
    original.getBody().takeBody(staged.func->getBody());
    fr.stashRingStages = staged.stages;
    std::string times;
    if (leading) { // The plan's: the report's after (Rematerialize.cpp).
      fr.pipelineTimeAfter = leading->criticalPath;
      fr.deviceBusy = leading->busy;
    }
    if (everyStage && leading) {
      fr.pipelineTimeEveryStage = everyStage->criticalPath;
      times = llvm::formatv("; the pipeline's critical path is {0} against "
                            "{1} with every stage recomputing",
                            leading->criticalPath, everyStage->criticalPath)
                  .str();
    }
    remark::passed(original.getLoc(),
                   remarkOpts("StashRings", original.getSymName()))
        << llvm::formatv(
               "the stash rings are dropped on stages 0 to {0} only: the "
               "later stages hold fewer rows and keep them within the "
               "budget of {1} B (each device's peak: {2} B), so they do "
               "not recompute{3}",
               staged.stages - 1, fr.budget,
               llvm::join(llvm::map_range(staged.peaks,
                                          [](int64_t p) {
                                            return std::to_string(p);
                                          }),
                          ", "),
               times)
               .str();
  }

  /// The peak of `f` as it is, by the lifetime analysis that checks the
  /// guarantee (recomputations already in the IR, from an earlier run,
  /// count as the ops they are); std::nullopt when it cannot be built.
  std::optional<int64_t> peakAsIs(func::FuncOp f) {
    return functionPeak(f, costs, RecomputeRegions::Flatten, scope());
  }

  /// The function already fits and has no hints: nothing is recomputed.
  /// When only the prepared copy fits (each op with its own initial value;
  /// CSE had merged them), it replaces the body, so that the IR and the
  /// reported peak agree.
  LogicalResult keepAsIs(int64_t peak, bool usePrepared) {
    if (checkpointedScans)
      remark::passed(func.getLoc(),
                     remarkOpts("Rematerialized", func.getSymName()))
          << llvm::formatv("{0} scan(s) checkpointed: peak {1} B -> {2} B "
                           "(budget {3} B), time +{4}; nothing else to do",
                           checkpointedScans, shownPeak(), peak, fr.budget,
                           percentOf(timeAsIs - shownTime(), shownTime()))
                 .str();
    else
      remark::analysis(func.getLoc(), remarkOpts("Fits", func.getSymName()))
          << llvm::formatv("peak {0} B already within the budget of {1} B; "
                           "nothing to do",
                           peak, fr.budget)
                     .str() +
                 boundsNote();
    if (usePrepared)
      original.getBody().takeBody(func.getBody());
    // The report names what made the function fit.
    fr.strategy = checkpointedScans ? "scan-checkpointing" : "none";
    fr.fitted = true;
    fr.peakAfter = peak;
    fr.timeAfter = timeAsIs;
    recordDecisions(ig->programOrder);
    return success();
  }

  /// --remat-budget=min found no budget below the peak of the program as
  /// written: the written program (each op with its own initial value, as
  /// the lowering prepares it) is the answer, analysed afresh for the
  /// report.
  LogicalResult keepAsWritten(int64_t strategyMinimum,
                              const std::string &strategy) {
    work = original.clone();
    func = *work;
    checkpointedScans = 0;
    fr.stashRingsDropped = 0;
    fr.stashRingsRecomputed.clear();
    floor = FloorBreakdown();
    fr.floor.clear();
    if (failed(analyse()))
      return failure();
    fr.budget = peakBefore;
    remark::analysis(func.getLoc(), remarkOpts("Note", func.getSymName()))
        << llvm::formatv("the smallest budget strategy {0} meets, {1} B, is "
                         "not below the peak of the program as written, {2} "
                         "B: kept as written",
                         strategy, strategyMinimum, peakBefore)
               .str();
    return keepAsIs(peakBefore, /*usePrepared=*/true);
  }

  /// Solves at the budget; when that misses, searches the smallest budget
  /// the strategy meets and uses it if it is below the budget. Emits the
  /// error and returns std::nullopt when nothing fits.
  std::optional<Solution> plan() {
    SolveOptions opts = options.solve;
    opts.budget = fr.budget;
    // The solve, and the smallest-budget search if it fails, share the work
    // that does not depend on the budget.
    opts.cache = std::make_shared<SolveCache>();
    opts.note = [&](const std::string &msg) {
      remark::analysis(func.getLoc(), remarkOpts("Note", func.getSymName()))
          << msg;
    };
    if (options.budget.minimum)
      return planAtMinimum(opts);
    Solution sol = withHostCopies(solve(ig->graph, options.strategy, opts),
                                  opts);
    if (sol.feasible) {
      fr.seconds.solve = clock.lap();
      return sol;
    }
    // Some strategies are not monotone in the budget (slot rounding, model
    // slack): the smallest budget they meet may lie below one they miss.
    // A schedule for that smaller budget fits this one too.
    SolveOptions quiet = opts;
    quiet.note = nullptr;
    const int shift = minimumBudgetShift();
    std::string by;
    int64_t minimum = smallestBudget(quiet, shift, by);
    if (minimum >= 0 && minimum <= fr.budget) {
      quiet.budget = minimum;
      sol = solveWith(by, quiet);
    }
    fr.seconds.solve = clock.lap();
    if (sol.feasible)
      return sol;
    // Smaller with the stash rings dropped (dropStashRings): that program's
    // peak is not the one a plan of this graph would explain.
    const bool byRings = ringsMinimum >= 0 && ringsMinimum < minimum;
    if (byRings) {
      minimum = ringsMinimum;
      floor = ringsFloor;
      fr.floor.assign(floor.parts.begin(), floor.parts.end());
    }
    // The step as written meets its own peak (--remat-budget=min keeps it,
    // keepAsWritten): a strategy's smallest above it is not the smallest.
    const bool asWritten = !byRings && minimum > peakBefore;
    if (asWritten)
      minimum = peakBefore;
    fr.minimumBudget = minimum;
    if (minimum > fr.budget && !byRings && !asWritten) {
      // What the smallest budget is made of: the plan at it, at its peak.
      quiet.budget = minimum;
      Solution atMinimum = solveWith(by, quiet);
      if (atMinimum.feasible) {
        floor = explainPeak(*ig, atMinimum.schedule);
        fr.floor.assign(floor.parts.begin(), floor.parts.end());
      }
    }
    reportMiss(minimum, shift, sol.reason, byRings, asWritten);
    return std::nullopt;
  }

  /// offload=true: offload-greedy's plan (keep, recompute or copy to the
  /// host) instead of `sol` where it meets the budget and `sol` does not,
  /// or is faster. A strategy that plans copies itself is left alone.
  Solution withHostCopies(Solution sol, const SolveOptions &opts) {
    if (!offloadsBeside())
      return sol;
    Solution copies = solve(ig->graph, kOffloadStrategy, opts);
    if (!copies.feasible ||
        (sol.feasible && copies.sim.time >= sol.sim.time))
      return sol;
    copies.strategy = options.strategy;
    return copies;
  }

  /// Whether offload-greedy is weighed beside the strategy asked for.
  bool offloadsBeside() const {
    const StrategyInfo *named = findStrategy(options.strategy);
    return options.offload && !(named && named->plansHostCopies);
  }

  /// The smallest budget the strategy meets and, with offload=true, the
  /// smallest offload-greedy meets when that is lower (host copies reach
  /// below the recomputation floor); `by` names which (-1: none).
  int64_t smallestBudget(const SolveOptions &opts, int shift,
                         std::string &by) {
    by = options.strategy;
    int64_t minimum = minimumBudget(ig->graph, options.strategy, opts, shift);
    if (!offloadsBeside())
      return minimum;
    int64_t copies = minimumBudget(ig->graph, kOffloadStrategy, opts, shift);
    if (copies >= 0 && (minimum < 0 || copies < minimum)) {
      by = kOffloadStrategy;
      return copies;
    }
    return minimum;
  }

  /// The plan of `by` (the strategy asked for, or offload-greedy beside it)
  /// at opts.budget, named as the strategy asked for.
  Solution solveWith(const std::string &by, const SolveOptions &opts) {
    if (by == options.strategy)
      return withHostCopies(solve(ig->graph, by, opts), opts);
    Solution sol = solve(ig->graph, by, opts);
    sol.strategy = options.strategy;
    return sol;
  }

  /// --remat-budget=min: the smallest budget the strategy meets, then the
  /// plan at it.
  std::optional<Solution> planAtMinimum(SolveOptions opts) {
    opts.note = nullptr;
    const int shift = minimumBudgetShift();
    std::string by;
    int64_t minimum = smallestBudget(opts, shift, by);
    std::optional<Solution> sol;
    if (minimum >= 0) {
      opts.budget = minimum;
      sol = solveWith(by, opts);
    }
    fr.seconds.solve = clock.lap();
    if (!sol || !sol->feasible) {
      original.emitError() << "cannot fit @" << func.getSymName()
                           << " with strategy '" << options.strategy
                           << "' at any budget"
                           << (sol ? ": " + sol->reason : std::string());
      return std::nullopt;
    }
    fr.budget = minimum;
    floor = explainPeak(*ig, sol->schedule);
    fr.floor.assign(floor.parts.begin(), floor.parts.end());
    return sol;
  }

  int minimumBudgetShift() const { return remat::minimumBudgetShift(ig->graph); }

  /// The peak and time messages speak of: the program as written, also
  /// where this is a variant of it (RematOptions::asWritten).
  int64_t shownPeak() const {
    return options.asWritten.peak > 0 ? options.asWritten.peak : peakBefore;
  }
  double shownTime() const {
    return options.asWritten.time > 0 ? options.asWritten.time : before.time;
  }

  /// The error for a missed budget: `minimum` is the smallest budget,
  /// `byRings` when it is met only with the stash rings dropped,
  /// `asWritten` when only the step as written meets it.
  void reportMiss(int64_t minimum, int shift, const std::string &reason,
                  bool byRings, bool asWritten) {
    InFlightDiagnostic diag = original.emitError();
    diag << "cannot fit @" << func.getSymName() << " into " << fr.budget
         << " B (" << percentOf(fr.budget, shownPeak())
         << " of its peak without rematerialization, " << shownPeak()
         << " B) with strategy '" << options.strategy << "'"
         << (offloadsBeside() ? " and host offload" : "");
    if (offloadsBeside() && options.solve.hostBudget != kUnlimitedBudget)
      diag << " within a host budget of " << options.solve.hostBudget << " B";
    if (minimum > fr.budget) {
      diag << "; the smallest budget it can meet is " << minimum << " B ("
           << percentOf(minimum, shownPeak()) << ")";
      if (asWritten)
        diag << ": the step as written (nothing the strategy recomputes "
                "lowers its peak)";
      else if (shift)
        diag << ", found to within 1/" << (1 << shift);
      if (byRings)
        diag << ", with its " << ringsDroppable
             << " stash ring(s) dropped (--remat-budget=min)";
      if (!floor.parts.empty())
        diag << "; at its peak (notes):";
      attachFloorNotes(diag, floor);
    } else {
      diag << "; " << reason;
    }
  }

  /// Materializes the schedule into the copy and checks the guarantee with
  /// the same lifetime analysis the tests use.
  LogicalResult rewriteAndCheck(const Solution &sol) {
    FailureOr<MaterializeResult> done =
        materializeSchedule(func, *ig, sol.schedule);
    if (failed(done))
      return failure();
    result.clonedOps = done->clonedOps;
    result.recomputeOps = done->recomputeOps;
    fr.seconds.rewrite = clock.lap();

    FailureOr<IRTrainingGraph> after =
        buildTrainingGraph(func, costs, RecomputeRegions::Flatten, scope());
    if (failed(after))
      return failure();
    SimulationResult check = after->simulateProgram();
    if (!check.valid || check.peak > fr.budget)
      return func.emitError()
             << "internal error: the rewritten function peaks at "
             << check.peak << " B, above the budget of " << fr.budget
             << " B (" << (check.valid ? "" : check.error) << ")";
    fr.seconds.check = clock.lap();
    fr.peakAfter = check.peak;
    fr.hostPeak = check.hostPeak;
    return success();
  }

  void recordSuccess(const Solution &sol) {
    // What made it fit, when the planner recomputed nothing more.
    fr.strategy = sol.chosen != "none" ? sol.chosen
                  : fr.stashRingsDropped ? "stash-rings"
                  : checkpointedScans    ? "scan-checkpointing"
                                         : sol.chosen;
    fr.fitted = true;
    fr.timeAfter = sol.sim.time;
    fr.bound = sol.bound;
    fr.gap = sol.gap;
    result.schedule = sol.schedule;
    recordDecisions(sol.schedule);
    recordHostCopies(sol);
    remark::passed(original.getLoc(),
                   remarkOpts("Rematerialized", func.getSymName()))
        << llvm::formatv("strategy {0}: peak {1} B -> {2} B (budget {3} B), "
                         "{4} ops recomputed in {5} regions, time +{6}; "
                         "{7} ops planned in {8:F3} s (analysis {9:F3}, "
                         "solve {10:F3}, rewrite {11:F3}, check {12:F3})",
                         sol.strategy == sol.chosen
                             ? sol.chosen
                             : sol.strategy + " (" + sol.chosen + ")",
                         shownPeak(), fr.peakAfter, fr.budget,
                         result.clonedOps, result.recomputeOps,
                         percentOf(sol.sim.time - shownTime(), shownTime()),
                         fr.ops, fr.seconds.total(), fr.seconds.analysis,
                         fr.seconds.solve, fr.seconds.rewrite,
                         fr.seconds.check)
                   .str() +
               boundsNote();
  }

  /// For dynamic shapes: what the peaks above are and why they hold.
  std::string boundsNote() const {
    if (fr.bounds.empty())
      return "";
    return "; peaks at the bounds " + fr.bounds +
           ", so peak <= budget for every size up to them";
  }

  /// The values the plan copies to the host: the report's "offload", a
  /// remark each.
  void recordHostCopies(const Solution &sol) {
    const TrainingGraph &g = ig->graph;
    for (const HostCopy &c : sol.sim.hostCopies) {
      NodeId producer = g.tensor(c.tensor).producer;
      Operation *op = ig->primaryOp(producer);
      const bool returned = c.prefetchStep < 0 && g.isRequired(c.tensor);
      fr.offloaded.push_back(
          HostCopyDecision{op->getName().getStringRef().str(), costTableKey(op),
                           c.bytes, c.hidden, c.stall, returned, c.awaited});
      remark::passed(op->getLoc(), remarkOpts("Offloaded", fr.name))
          << llvm::formatv(
                 "{0} ({1} B), copies {2}{3}",
                 returned ? "a result copied to the host once "
                            "produced and returned from there"
                          : "offloaded to the host and back",
                 c.bytes,
                 c.hidden
                     ? std::string("hidden")
                     : llvm::formatv("not hidden (stall {0})", c.stall).str(),
                 c.awaited ? "; a later run waits for its copy "
                             "to the host to end"
                           : "")
                 .str();
    }
    if (fr.offloaded.empty())
      return;
    fr.overlappedPeak = sol.sim.peak;
    fr.stall = sol.sim.stall;
  }

  /// One remark and one report entry per forward op: kept or recomputed
  /// (an offloaded value's remark is recordHostCopies').
  void recordDecisions(const Schedule &schedule) {
    const TrainingGraph &g = ig->graph;
    std::vector<int> runs = schedule.runCounts(g);
    std::vector<char> offloaded(g.numNodes(), 0);
    for (const Step &step : schedule.steps())
      if (step.isOffload())
        offloaded[g.tensor(step.id).producer] = 1;
    for (NodeId n = 0; n < g.numNodes(); ++n) {
      if (ig->isCopy(n)) // Counted with the op it copies.
        runs[ig->copyOf[n]] += runs[n];
    }
    for (NodeId n = 0; n < g.numNodes(); ++n) {
      if (!g.isForward(n) || ig->isCopy(n))
        continue;
      Operation *op = ig->primaryOp(n);
      int64_t bytes = 0;
      for (TensorId t : g.node(n).outputs)
        bytes += g.tensor(t).bytes;
      int recomputations = runs[n] - 1;
      std::optional<CollectiveInfo> collective = collectiveInfo(op, scope());
      std::optional<double> collectiveCost;
      if (collective)
        collectiveCost = g.node(n).time;
      fr.values.push_back(ValueDecision{op->getName().getStringRef().str(),
                                        costTableKey(op), bytes,
                                        recomputations, collectiveCost});
      if (bytes == 0 || (offloaded[n] && !recomputations))
        continue;
      auto opts = remarkOpts(recomputations ? "Recomputed" : "Kept", fr.name);
      if (recomputations && collective)
        remark::passed(op->getLoc(), opts)
            << llvm::formatv("recomputed {0}x ({1} B): re-runs the "
                             "collective over {2} devices, {3} B sent per "
                             "device, cost {4} per run",
                             recomputations, bytes, collective->groupSize,
                             static_cast<int64_t>(
                                 collectiveBytesSent(*collective)),
                             *collectiveCost)
                   .str();
      else if (recomputations)
        remark::passed(op->getLoc(), opts)
            << llvm::formatv("recomputed {0}x ({1} B)", recomputations, bytes)
                   .str();
      else if (static_cast<size_t>(n) < ig->keptBecause.size() &&
               !ig->keptBecause[n].empty())
        remark::analysis(op->getLoc(), opts)
            << llvm::formatv("kept ({0} B), never recomputed: {1}", bytes,
                             ig->keptBecause[n])
                   .str();
      else
        remark::analysis(op->getLoc(), opts)
            << llvm::formatv("kept ({0} B)", bytes).str();
    }
  }

  func::FuncOp original, func;
  OwningOpRef<func::FuncOp> work; ///< The copy `func` is, until adopted.
  /// Callees are looked up in the original's module (the copies are
  /// detached from it).
  Operation *scope() const { return symbolScope; }
  const RematOptions &options;
  const CostModel &costs;
  RematResult &result;
  FunctionReport &fr;
  Operation *symbolScope;
  PhaseClock clock;
  std::optional<IRTrainingGraph> ig;
  SimulationResult before; ///< The program without rematerialization.
  /// The lifetime timeline's peak of the prepared copy as analysed (before
  /// any rewrite), and the peak percentages are of: it, else before.peak.
  std::optional<int64_t> preparedPeak;
  int64_t peakBefore = 0;
  /// What the smallest budget is made of, when it was searched.
  FloorBreakdown floor;
  /// The time of the copy as it stands (scans checkpointed, nothing else).
  double timeAsIs = 0;
  /// Scans checkpointed in the copy (checkpointScans()).
  int checkpointedScans = 0;
  /// The stash rings dropped (dropStashRings()).
  RingsByLoop droppedRings;
  /// Whether their recomputed rows are shared by a block's reads.
  bool ringsShared = true;
  /// Where no plan met the budget: the smallest budget with every
  /// droppable stash ring dropped, and how many (-1, 0: not computed), and
  /// what that program holds at its peak there.
  int64_t ringsMinimum = -1;
  FloorBreakdown ringsFloor;
  size_t ringsDroppable = 0;
};

} // namespace

LogicalResult remat::rematerializeFunction(func::FuncOp func,
                                           const RematOptions &options,
                                           const CostModel &costs,
                                           RematResult &result) {
  // A micro-batch step plans its body as a function of the module.
  if (microBatchLoop(func))
    return FunctionFitter(func, options, costs, result).run();
  Operation *scope = func->getParentOp();
  auto fitOne = [&](func::FuncOp copy, const RematOptions &o, RematResult &r) {
    return FunctionFitter(copy, o, costs, r, scope).run();
  };
  auto fitRows = [&](func::FuncOp copy, const RematOptions &o,
                     RematResult &r) {
    return fitWithRowsRecomputed(copy, o, r, fitOne);
  };
  if (options.offload)
    return fitWithHostStacks(func, options, result, fitRows);
  return fitRows(func, options, result);
}

FailureOr<RematResult> remat::rematerializeFunction(func::FuncOp func,
                                                    const RematOptions &options,
                                                    const CostModel &costs) {
  RematResult result;
  if (failed(rematerializeFunction(func, options, costs, result)))
    return failure();
  return result;
}
