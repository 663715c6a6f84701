//===- SizedSolve.cpp - Plans that choose the sizes of sized parts --------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/Portfolio/SizedSolve.h"
#include "remat/Solver/Portfolio/Auto.h"

namespace remat {

const StrategyDescriptor *sizingStrategy(const TrainingGraph &g,
                                         const std::string &strategy,
                                         const SolveOptions &opts,
                                         SolveOptions *runOptions) {
  const StrategyDescriptor *d = findStrategy(strategy);
  if (!d)
    return nullptr;
  SolveOptions o = opts;
  if (!d->runSized && d->budgetSearch.portfolio) {
    d = autoRefinement(g, opts);
    if (d && d->autoRole.refineOptions)
      o = d->autoRole.refineOptions(opts);
  }
  if (!d || !d->runSized)
    return nullptr;
  if (runOptions)
    *runOptions = o;
  return d;
}

SizedSolution solveSized(const TrainingGraph &g,
                         const std::vector<SizedPart> &parts,
                         const std::string &strategy, const SolveOptions &opts,
                         const std::vector<int> &warmPicks) {
  SizedSolution out;
  Solution &sol = out.solution;
  sol.strategy = strategy;
  if (std::optional<std::string> why = verifySizedParts(g, parts)) {
    sol.reason = "internal error: " + *why;
    return out;
  }
  SolveOptions o;
  const StrategyDescriptor *d = sizingStrategy(g, strategy, opts, &o);
  if (!d) {
    sol.reason = "strategy '" + strategy +
                 "' has no model that chooses sizes on this graph";
    return out;
  }
  sol.chosen = d->name;
  SizedStrategyResult res = d->runSized(g, parts, o, warmPicks);
  if (!res.result.feasible) {
    sol.reason = res.result.reason;
    return out;
  }
  if (res.picks.size() != parts.size()) {
    sol.reason = "internal error: strategy '" + d->name +
                 "' chose no size for some part";
    return out;
  }
  for (size_t i = 0; i < parts.size(); ++i)
    if (res.picks[i] < 0 ||
        res.picks[i] >= static_cast<int>(parts[i].choices.size())) {
      sol.reason = "internal error: strategy '" + d->name +
                   "' chose a size out of range";
      return out;
    }
  // The Simulator checks the schedule on the graph at the choices taken.
  const TrainingGraph at = withSizes(g, parts, res.picks);
  sol.schedule = std::move(res.result.schedule);
  sol.bound = res.result.bound;
  sol.gap = res.result.gap;
  sol.sim = simulate(at, sol.schedule);
  if (!sol.sim.valid) {
    sol.reason = "internal error: strategy '" + d->name +
                 "' produced an invalid schedule: " + sol.sim.error;
    return out;
  }
  if (sol.sim.peak > opts.budget) {
    sol.reason = "strategy '" + d->name + "' reaches a peak of " +
                 std::to_string(sol.sim.peak) + " bytes, above the budget";
    return out;
  }
  sol.feasible = true;
  out.picks = std::move(res.picks);
  return out;
}

} // namespace remat
