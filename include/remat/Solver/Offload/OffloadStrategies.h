//===- OffloadStrategies.h - Strategies that use host memory --------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SOLVER_OFFLOAD_OFFLOADSTRATEGIES_H
#define REMAT_SOLVER_OFFLOAD_OFFLOADSTRATEGIES_H

#include "remat/Solver/Core/StrategyRegistry.h"

namespace remat {

/// Registers offload-greedy (not run by auto: offload is off by default
/// until a GPU run has measured it).
void registerOffloadStrategies(StrategyRegistry &registry);

/// Plans with keep, recompute and offload: offloadUntilBudget
/// (OffloadPlanner.h) applied to the program and to evict-greedy's plans
/// at budgets from the budget up to the program's peak; the fastest plan
/// the Simulator puts within the budget wins. Copies are timed on
/// SolveOptions::link.
StrategyResult solveOffloadGreedy(const TrainingGraph &g,
                                  const SolveOptions &opts);

/// The schedules without copies solveOffloadGreedy starts from: the
/// program, then evict-greedy's plans at the budget times 1, 1.1, 1.25,
/// 1.5, 2 and 3 while that stays below `programPeak`.
std::vector<Schedule> offloadGreedyBases(const TrainingGraph &g,
                                         const SolveOptions &opts,
                                         int64_t programPeak);

} // namespace remat

#endif // REMAT_SOLVER_OFFLOAD_OFFLOADSTRATEGIES_H
