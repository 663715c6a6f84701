//===- Strategy.h - Common interface of all rematerialization strategies -===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A strategy turns (graph, budget) into a Schedule. Strategies are looked up
// by name; nothing outside lib/Solver knows how one works. Every returned
// schedule is checked with the Simulator by the caller (solve() does it), so a
// strategy whose internal model differs from the Simulator's (lower sets, the
// join paper's slots) can never make a budget look met when it is not.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SOLVER_CORE_STRATEGY_H
#define REMAT_SOLVER_CORE_STRATEGY_H

#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/SolveOptions.h"
#include "remat/Solver/Core/StrategyDescriptor.h"

#include <string>
#include <vector>

namespace remat {

/// All registered strategies (StrategyRegistry::global()), by rank.
const std::vector<StrategyInfo> &allStrategies();
/// Looks a strategy up by name; nullptr if unknown.
const StrategyInfo *findStrategy(const std::string &name);

/// Every option the registered strategies declare, once per name (options
/// shared by strategies, like slots, are one setting), in registry order:
/// the one declaration the pass, -remat-fit and remat-plan build flags from.
std::vector<StrategyOption> allStrategyOptions();
/// The first option of allStrategyOptions() whose value in `o` is out of
/// range, as "slots must be at least 1, got 0"; "" when all are in range.
std::string checkStrategyOptions(const SolveOptions &o);

/// Help of the settings every front end shares besides the strategies'
/// options: the budget and the strategy (listing the registered names).
std::string budgetHelp();
std::string strategyHelp();

/// The outcome of solve(): the schedule and what the Simulator measured.
struct Solution {
  bool feasible = false;
  std::string strategy; ///< The strategy that produced the schedule.
  std::string chosen;   ///< For auto: the strategy that won (else = strategy).
  std::string reason;   ///< Why infeasible.
  /// When infeasible: the lowest peak of a valid schedule the strategy made
  /// (-1: none). A budget this large is met by some strategy.
  int64_t leastPeak = -1;
  /// The proven lower bound on the time and the optimality gap, where the
  /// strategy knows them (StrategyResult::bound, gap); -1 otherwise.
  double bound = -1;
  double gap = -1;
  Schedule schedule;
  SimulationResult sim;
};

/// Runs a strategy and checks its schedule with the Simulator: the schedule
/// is reported feasible only when it is valid and its peak <= budget.
Solution solve(const TrainingGraph &g, const std::string &strategy,
               const SolveOptions &opts);

} // namespace remat

#endif // REMAT_SOLVER_CORE_STRATEGY_H
