//===- Strategy.cpp - Registry look-up and the checked solve --------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/Core/Strategy.h"
#include "remat/Solver/Core/StrategyRegistry.h"

#include <algorithm>

namespace remat {

const std::vector<StrategyInfo> &allStrategies() {
  return StrategyRegistry::global().all();
}

const StrategyInfo *findStrategy(const std::string &name) {
  return StrategyRegistry::global().find(name);
}

std::vector<StrategyOption> allStrategyOptions() {
  std::vector<StrategyOption> options;
  for (const StrategyDescriptor &d : allStrategies())
    for (const StrategyOption &o : d.options)
      if (std::none_of(options.begin(), options.end(),
                       [&](const StrategyOption &seen) {
                         return seen.name == o.name;
                       }))
        options.push_back(o);
  return options;
}

std::string checkStrategyOptions(const SolveOptions &o) {
  for (const StrategyOption &option : allStrategyOptions())
    if (std::string wrong = option.checkValue(o); !wrong.empty())
      return wrong;
  return "";
}

std::string budgetHelp() {
  return "Peak-memory budget: bytes with a unit (B, KB, KiB, MB, MiB, GB, "
         "GiB; KB = 1000 B, KiB = 1024 B), a percentage of the peak "
         "without rematerialization (e.g. 60%), or 'min': the smallest "
         "budget the strategy meets";
}

std::string strategyHelp() {
  std::string names;
  // Strategies that plan host copies are remat-plan --offload's only.
  for (const StrategyDescriptor &d : allStrategies())
    if (d.name != "auto" && !d.plansHostCopies)
      names += (names.empty() ? "" : ", ") + d.name;
  return "Strategy that chooses what to keep and what to recompute: auto "
         "(default: the fastest schedule of all that apply and meet the "
         "budget) or one of " +
         names;
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
  SimulatorOptions simOpts;
  simOpts.link = opts.link;
  sol.sim = simulate(g, sol.schedule, simOpts);
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
  if (sol.sim.hostPeak > opts.hostBudget) {
    sol.reason = "strategy '" + strategy + "' holds " +
                 std::to_string(sol.sim.hostPeak) +
                 " bytes on the host, above the host budget of " +
                 std::to_string(opts.hostBudget);
    return sol;
  }
  if (!res.reason.empty())
    sol.reason = res.reason;
  sol.feasible = true;
  return sol;
}

} // namespace remat
