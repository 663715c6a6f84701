//===- BaselineStrategies.cpp - Descriptors of none and Chen's strategies -===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/Baselines/BaselineStrategies.h"

namespace remat {

void registerBaselineStrategies(StrategyRegistry &registry) {
  StrategyDescriptor none;
  none.name = "none";
  none.description = "keep every forward value; no recomputation";
  none.run = solveNone;
  none.rank = 10;
  none.estimate = [](const GraphMeasures &, const SolveOptions &) {
    return 0.0;
  };
  none.autoRole.tryFirst = true;
  none.budgetSearch.monotone = true; // One schedule for every budget.
  registry.add(std::move(none));

  StrategyDescriptor sqrt;
  sqrt.name = "chen-sqrt";
  sqrt.description = "Chen et al.: sqrt(n) segments cut at articulation "
                     "points, each recomputed once";
  sqrt.run = solveChenSqrt;
  sqrt.rank = 70;
  sqrt.estimate = [](const GraphMeasures &m, const SolveOptions &) {
    return 0.3 * m.linearCost();
  };
  sqrt.autoRole.priority = 30;
  sqrt.budgetSearch.monotone = true; // Its segments ignore the budget.
  registry.add(std::move(sqrt));

  StrategyDescriptor greedy;
  greedy.name = "chen-greedy";
  greedy.description = "Chen et al.: budget-greedy segments (threshold "
                       "search), each recomputed once";
  greedy.run = solveChenGreedy;
  greedy.rank = 80;
  greedy.estimate = [](const GraphMeasures &m, const SolveOptions &) {
    return 1.5e-7 * m.nf * m.nf + m.linearCost();
  };
  greedy.autoRole.priority = 100;
  registry.add(std::move(greedy));
}

} // namespace remat
