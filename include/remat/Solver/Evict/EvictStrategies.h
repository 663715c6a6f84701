//===- EvictStrategies.h - evict-greedy -----------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef REMAT_SOLVER_EVICT_EVICTSTRATEGIES_H
#define REMAT_SOLVER_EVICT_EVICTSTRATEGIES_H

#include "remat/Solver/Core/Strategy.h"
#include "remat/Solver/Core/StrategyRegistry.h"

namespace remat {

/// Registers evict-greedy.
void registerEvictStrategies(StrategyRegistry &registry);

/// Replays the program within the budget, freeing the stored value that is
/// cheapest to recompute per byte and per step until its next read (DTR's
/// rule with the future known) and recomputing on demand: in the forward
/// pass too, as often as needed. Linear-ish time: for graphs of any size.
StrategyResult solveEvictGreedy(const TrainingGraph &g,
                                const SolveOptions &opts);

} // namespace remat

#endif // REMAT_SOLVER_EVICT_EVICTSTRATEGIES_H
