//===- MonotonePlanner.cpp - auto-monotone: plans monotone in the budget --===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A framework's memory knob is swept: its users expect a larger budget never
// to give a slower step, nor one that peaks lower (PyTorch's memory-budget
// partitioner is reported not to be). auto cannot promise it: each of its
// runs plans for the exact budget. auto-monotone chooses from a family of
// plans fixed per graph, the fastest that fits (ties: the lower peak), which
// is monotone by construction (EvictLadder.cpp says why). The family:
// evict-ladder's plans, and auto's plan at the smallest budget auto meets,
// which on small graphs (the MILP) or chains (the DPs) peaks well below the
// ladder's lowest.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Portfolio/Monotone.h"
#include "remat/Solver/Portfolio/MinimumBudget.h"

#include <memory>
#include <optional>
#include <tuple>

namespace remat {

namespace {

constexpr const char *kLadder = "evict-ladder";

/// auto's plan at its smallest budget, with eager frees (as the rewritten
/// program frees), and the strategy that made it.
struct LeastPlan {
  Schedule schedule;
  SimulationResult sim;
  std::string chosen;
};

std::optional<LeastPlan> planAtAutosMinimum(const TrainingGraph &g,
                                            SolveOptions o) {
  o.note = nullptr;
  // auto as users get it, whatever a caller's search has turned off: the
  // family must not change with the caller.
  const SolveOptions defaults;
  o.autoMILP = defaults.autoMILP;
  o.memoryCentricFallback = defaults.memoryCentricFallback;
  const int64_t least = minimumBudget(g, "auto", o, minimumBudgetShift(g));
  if (least < 0)
    return std::nullopt;
  o.budget = least;
  Solution s = solve(g, "auto", o);
  if (!s.feasible)
    return std::nullopt;
  SimulatorOptions simOpts;
  simOpts.link = o.link;
  LeastPlan p{s.schedule.withEagerFrees(g), {}, s.chosen};
  p.sim = simulate(g, p.schedule, simOpts);
  if (!p.sim.valid || p.sim.peak > least)
    return std::nullopt; // Not a plan solve() would return: left out.
  return p;
}

/// The plan, from the solves' cache when one is shared.
std::shared_ptr<const std::optional<LeastPlan>>
leastPlanOf(const TrainingGraph &g, const SolveOptions &opts) {
  return cachedOrMade<std::optional<LeastPlan>>(
      opts.cache, "auto-monotone/least",
      [&] { return planAtAutosMinimum(g, opts); });
}

} // namespace

StrategyResult solveAutoMonotone(const TrainingGraph &g,
                                 const SolveOptions &opts) {
  Solution ladder = solve(g, kLadder, opts);
  std::shared_ptr<const std::optional<LeastPlan>> least = leastPlanOf(g, opts);
  StrategyResult r;
  const bool leastFits = *least && (*least)->sim.peak <= opts.budget;
  if (leastFits &&
      (!ladder.feasible ||
       std::tie((*least)->sim.time, (*least)->sim.peak) <
           std::tie(ladder.sim.time, ladder.sim.peak))) {
    r.feasible = true;
    r.schedule = (*least)->schedule;
    r.chosen = (*least)->chosen;
    return r;
  }
  if (ladder.feasible) {
    r.feasible = true;
    r.schedule = std::move(ladder.schedule);
    r.chosen = kLadder;
    return r;
  }
  r.leastPeak = ladder.leastPeak;
  if (*least && (r.leastPeak < 0 || (*least)->sim.peak < r.leastPeak))
    r.leastPeak = (*least)->sim.peak;
  r.reason = "no plan of the family fits: the lowest peaks at " +
             std::to_string(r.leastPeak) + " bytes";
  return r;
}

int64_t autoMonotoneFloor(const TrainingGraph &g, const SolveOptions &opts) {
  const StrategyDescriptor *ladder = findStrategy(kLadder);
  int64_t floor = ladder->budgetSearch.floor(g, opts);
  std::shared_ptr<const std::optional<LeastPlan>> least = leastPlanOf(g, opts);
  if (*least)
    floor = std::min(floor, (*least)->sim.peak);
  return floor;
}

} // namespace remat
