//===- AutoPlanner.cpp - Cheapest schedule over the affordable strategies -===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Runs the registered strategies with an auto role through solve() (so each
// schedule is checked by the Simulator against the budget) and keeps the
// fastest one; ties go to the lower peak, then to the earlier strategy in
// the registry.
//
// Running all of them is fine on the corpus (tens of nodes) and hopeless on
// a 10,000-op function: the lower-set DPs grow like the cube of the forward
// nodes, the exact one like the number of lower sets squared, the chain DPs
// like L^3 S. So auto first measures the graph (measureGraph), asks each
// strategy for its options on this graph and its run-time estimate (formulas
// fitted on this project's model graphs, docs/solver.md, "auto"), and runs
// them in their priority order, each only if the estimates so far add up to
// at most SolveOptions::timeBudget (a strategy's cheapening rule may first
// make it cheaper). Every skipped strategy and every reduction is reported
// through SolveOptions::note. Decisions depend on the graph only, never on
// the clock, so results are reproducible.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Portfolio/Auto.h"

#include <algorithm>
#include <cmath>

namespace remat {

namespace {

/// One strategy auto may run, with the options tuned for this graph.
struct Run : AutoRun {
  size_t order = 0; ///< In the registry: ties go to the earlier.
};

double estimate(const AutoRun &r, const GraphMeasures &m) {
  return r.strategy->estimate ? r.strategy->estimate(m, r.options) : 0.0;
}

/// The portfolio run of solveAuto: keeps the fastest valid schedule within
/// budget, and the notes and reasons that explain the choice.
class AutoPlanner {
public:
  AutoPlanner(const TrainingGraph &g, const SolveOptions &opts)
      : g(g), opts(opts) {}

  StrategyResult run() {
    if (firstFits() || belowTheFloor())
      return std::move(best);
    measures = measureGraph(g, opts);
    for (Run &r : candidates()) {
      if (r.strategy->autoRole.memoryCentric &&
          (best.feasible || !opts.memoryCentricFallback))
        continue; // A schedule within budget exists: -mc cannot be faster.
      if (afford(r))
        tryRun(r);
    }
    refine();
    finish();
    return std::move(best);
  }

  /// The runs of run() while no strategy has met the budget: every one of
  /// them is made then, and each depends on the graph only. So auto meets a
  /// budget (without the refinement) exactly when one of these runs does.
  std::vector<PortfolioRun> portfolio() {
    measures = measureGraph(g, opts);
    std::vector<PortfolioRun> runs;
    for (Run &r : candidates()) {
      if (r.strategy->autoRole.memoryCentric && !opts.memoryCentricFallback)
        continue;
      if (afford(r))
        runs.push_back({r.strategy->name, r.options});
    }
    return runs;
  }

private:
  void say(const std::string &n) { autoNotes.push_back("auto: " + n); }

  /// The strategies tried first (none): nothing is faster than the program
  /// itself when it fits.
  bool firstFits() {
    for (const StrategyDescriptor &d : allStrategies()) {
      if (!d.autoRole.tryFirst)
        continue;
      Solution s = solve(g, d.name, opts);
      if (!s.feasible)
        continue;
      best.feasible = true;
      best.schedule = std::move(s.schedule);
      best.chosen = s.chosen;
      return true;
    }
    return false;
  }

  /// No schedule peaks below peakLowerBound(): no strategy need try (a
  /// budget of 1 % took seconds to refuse).
  bool belowTheFloor() {
    const int64_t floor = peakLowerBound(g);
    if (opts.budget >= floor)
      return false;
    best.reason = "no schedule fits: every one peaks at " +
                  std::to_string(floor) +
                  " bytes at least (the inputs with the largest step or the "
                  "required outputs)";
    best.leastPeak = -1;
    return true;
  }

  /// The strategies with an auto role in priority order, each with the
  /// options it asks for on this graph; their notes are said once each.
  std::vector<Run> candidates() {
    const std::vector<StrategyDescriptor> &all = allStrategies();
    std::vector<Run> runs;
    std::vector<std::string> notes;
    for (size_t i = 0; i < all.size(); ++i) {
      if (all[i].autoRole.priority < 0)
        continue;
      Run r;
      r.strategy = &all[i];
      r.order = i;
      r.options = opts;
      if (all[i].autoRole.tune)
        all[i].autoRole.tune(measures, r.options, notes);
      runs.push_back(std::move(r));
    }
    std::stable_sort(runs.begin(), runs.end(), [](const Run &a, const Run &b) {
      return a.strategy->autoRole.priority < b.strategy->autoRole.priority;
    });
    for (size_t i = 0; i < notes.size(); ++i)
      if (std::find(notes.begin(), notes.begin() + i, notes[i]) ==
          notes.begin() + i)
        say(notes[i]);
    return runs;
  }

  /// Fits `r` into what is left of the time allowance (the strategy's own
  /// cheapening rule first); false (with a reason or a skip) when it does
  /// not.
  bool afford(Run &r) {
    const std::string &name = r.strategy->name;
    r.cost = estimate(r, measures);
    const std::string winner = best.feasible ? best.chosen : "";
    if (r.strategy->autoRole.cheapen)
      r.strategy->autoRole.cheapen(
          r, AutoAllowance{measures, opts.timeBudget, spent, winner,
                           [this](const std::string &n) { say(n); }});
    if (std::isinf(r.cost)) { // Not applicable, or beyond its own limits.
      const std::string why = r.strategy->notApplicable
                                  ? r.strategy->notApplicable(measures)
                                  : "";
      addReason(name + (why.empty() ? ": skipped (beyond the limits of its "
                                      "algorithm)"
                                    : ": not applicable (" + why + ")"));
      return false;
    }
    if (spent + r.cost > opts.timeBudget) {
      skipped.push_back(name + " (~" + formatSeconds(r.cost) + ")");
      return false;
    }
    spent += r.cost;
    return true;
  }

  /// Small graphs: an exact strategy, warm-started from the best plan so
  /// far (so never worse than it), may find what no structured one does.
  void refine() {
    const StrategyDescriptor *d = autoRefinement(g, opts);
    if (!d)
      return;
    Run r;
    r.strategy = d;
    r.order = d - allStrategies().data();
    r.options = d->autoRole.refineOptions ? d->autoRole.refineOptions(opts)
                                          : opts;
    if (best.feasible)
      r.options.warmStart = std::make_shared<Schedule>(best.schedule);
    tryRun(r);
  }

  void tryRun(const Run &r) {
    const std::string &name = r.strategy->name;
    std::vector<std::string> notes;
    SolveOptions o = r.options;
    o.note = [&notes](const std::string &n) { notes.push_back(n); };
    Solution s = solve(g, name, o);
    if (!s.feasible) {
      if (s.leastPeak >= 0 &&
          (best.leastPeak < 0 || s.leastPeak < best.leastPeak))
        best.leastPeak = s.leastPeak;
      addReason(name + ": " + s.reason);
      return;
    }
    bool better = !best.feasible || s.sim.time < bestSim.time ||
                  (s.sim.time == bestSim.time &&
                   (s.sim.peak < bestSim.peak ||
                    (s.sim.peak == bestSim.peak && r.order < bestOrder)));
    if (!better)
      return;
    best.feasible = true;
    best.schedule = std::move(s.schedule);
    best.chosen = s.chosen;
    best.reason = s.reason;
    best.bound = s.bound;
    best.gap = s.gap;
    bestSim = s.sim;
    bestNotes = std::move(notes);
    bestOrder = r.order;
  }

  void addReason(const std::string &r) {
    reasons += (reasons.empty() ? "" : "; ") + r;
  }

  /// Every skipped strategy and every reduction is reported.
  void finish() {
    if (!skipped.empty()) {
      std::string list;
      for (const std::string &s : skipped)
        list += (list.empty() ? "" : ", ") + s;
      say("skipped " + list + ": estimated time beyond the budget of " +
          formatSeconds(opts.timeBudget) + " (SolveOptions::timeBudget)");
    }
    if (opts.note) {
      for (const std::string &n : autoNotes)
        opts.note(n);
      if (best.feasible)
        for (const std::string &n : bestNotes)
          opts.note(n);
    }
    if (!best.feasible) {
      best.reason = "no strategy meets the budget (" + reasons + ")";
      if (!skipped.empty())
        best.reason +=
            "; skipped for time: " + std::to_string(skipped.size());
    }
  }

  const TrainingGraph &g;
  const SolveOptions &opts;
  GraphMeasures measures;
  StrategyResult best;
  SimulationResult bestSim;
  size_t bestOrder = 0;
  double spent = 0;
  std::vector<std::string> bestNotes, autoNotes, skipped;
  std::string reasons;
};

} // namespace

StrategyResult solveAuto(const TrainingGraph &g, const SolveOptions &opts) {
  return AutoPlanner(g, opts).run();
}

std::vector<PortfolioRun> autoPortfolio(const TrainingGraph &g,
                                        const SolveOptions &opts) {
  SolveOptions quiet = opts;
  quiet.note = nullptr;
  return AutoPlanner(g, quiet).portfolio();
}

const StrategyDescriptor *autoRefinement(const TrainingGraph &g,
                                         const SolveOptions &opts) {
  for (const StrategyDescriptor &d : allStrategies())
    if (d.autoRole.refines && d.autoRole.refines(g, opts))
      return &d;
  return nullptr;
}

} // namespace remat
