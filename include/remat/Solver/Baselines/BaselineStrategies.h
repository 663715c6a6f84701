//===- BaselineStrategies.h - none, chen-sqrt, chen-greedy ----------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef REMAT_SOLVER_BASELINES_BASELINESTRATEGIES_H
#define REMAT_SOLVER_BASELINES_BASELINESTRATEGIES_H

#include "remat/Solver/Core/Strategy.h"
#include "remat/Solver/Core/StrategyRegistry.h"

namespace remat {

/// Registers none, chen-sqrt and chen-greedy.
void registerBaselineStrategies(StrategyRegistry &registry);

/// Keep everything: the program without rematerialization.
StrategyResult solveNone(const TrainingGraph &g, const SolveOptions &opts);

/// Chen et al. 2016: segments cut at articulation points, each recomputed
/// once before its backward; sqrt(n) segments, or budget-greedy thresholds.
StrategyResult solveChenSqrt(const TrainingGraph &g, const SolveOptions &opts);
StrategyResult solveChenGreedy(const TrainingGraph &g,
                               const SolveOptions &opts);

} // namespace remat

#endif // REMAT_SOLVER_BASELINES_BASELINESTRATEGIES_H
