//===- Auto.h - auto: the fastest plan of the affordable strategies -------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// auto runs the registered strategies that declare an auto role
// (StrategyDescriptor::autoRole), in their priority order, each only while
// their estimated run times fit SolveOptions::timeBudget, keeps the fastest
// schedule within budget, and may refine it with an exact strategy on small
// graphs. No strategy is named here: the descriptors say everything.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SOLVER_PORTFOLIO_AUTO_H
#define REMAT_SOLVER_PORTFOLIO_AUTO_H

#include "remat/Solver/Core/Strategy.h"
#include "remat/Solver/Core/StrategyRegistry.h"

#include <string>
#include <vector>

namespace remat {

/// Registers auto itself.
void registerPortfolioStrategies(StrategyRegistry &registry);

/// Runs every other strategy and returns the fastest schedule within budget
/// (StrategyResult::chosen names the winner).
StrategyResult solveAuto(const TrainingGraph &g, const SolveOptions &opts);

/// Measures the graph once for every strategy's estimate.
GraphMeasures measureGraph(const TrainingGraph &g, const SolveOptions &opts);

/// One strategy run of auto, with the options auto gives it on this graph.
struct PortfolioRun {
  std::string strategy;
  SolveOptions options;
};
/// What auto runs (before its refinement) when no strategy meets the
/// budget; it depends on the graph, not on the budget. auto without the
/// refinement meets a budget exactly when one of these runs does:
/// minimumBudget() searches each run's smallest budget instead of auto's.
std::vector<PortfolioRun> autoPortfolio(const TrainingGraph &g,
                                        const SolveOptions &opts);

/// The strategy auto refines with on this graph (autoRole.refines), or
/// nullptr.
const StrategyDescriptor *autoRefinement(const TrainingGraph &g,
                                         const SolveOptions &opts);

} // namespace remat

#endif // REMAT_SOLVER_PORTFOLIO_AUTO_H
