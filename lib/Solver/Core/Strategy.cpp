//===- Strategy.cpp - Registry look-up and the checked solve --------------===//

#include "remat/Solver/Core/Strategy.h"
#include "remat/Solver/Core/StrategyRegistry.h"

namespace remat {

const std::vector<StrategyInfo> &allStrategies() {
  return StrategyRegistry::global().all();
}

const StrategyInfo *findStrategy(const std::string &name) {
  return StrategyRegistry::global().find(name);
}

Solution solve(const TrainingGraph &g, const std::string &strategy,
               const SolveOptions &opts) {
  Solution sol;
  sol.strategy = strategy;
  const StrategyInfo *info = findStrategy(strategy);
  if (!info) {
    sol.reason = "unknown strategy '" + strategy + "'";
    return sol;
  }
  StrategyResult res = info->run(g, opts);
  sol.chosen = res.chosen.empty() ? strategy : res.chosen;
  if (!res.feasible) {
    sol.reason = res.reason;
    sol.leastPeak = res.leastPeak;
    return sol;
  }
  sol.schedule = std::move(res.schedule);
  sol.bound = res.bound;
  sol.gap = res.gap;
  sol.sim = simulate(g, sol.schedule);
  if (!sol.sim.valid) {
    // A strategy bug, never a user error: say so loudly.
    sol.reason = "internal error: strategy '" + strategy +
                 "' produced an invalid schedule: " + sol.sim.error;
    return sol;
  }
  if (sol.sim.peak > opts.budget) {
    sol.leastPeak = sol.sim.peak;
    sol.reason = "strategy '" + strategy + "' reaches a peak of " +
                 std::to_string(sol.sim.peak) + " bytes, above the budget";
    return sol;
  }
  if (!res.reason.empty())
    sol.reason = res.reason;
  sol.feasible = true;
  return sol;
}

} // namespace remat
