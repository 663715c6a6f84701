//===- EvictStrategies.h - evict-greedy and evict-ladder ------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef REMAT_SOLVER_EVICT_EVICTSTRATEGIES_H
#define REMAT_SOLVER_EVICT_EVICTSTRATEGIES_H

#include "remat/Solver/Core/Strategy.h"
#include "remat/Solver/Core/StrategyRegistry.h"

#include <cstdint>
#include <vector>

namespace remat {

/// Registers evict-greedy and evict-ladder.
void registerEvictStrategies(StrategyRegistry &registry);

/// Replays the program within the budget, freeing the stored value that is
/// cheapest to recompute per byte and per step until its next read (DTR's
/// rule with the future known) and recomputing on demand: in the forward
/// pass too, as often as needed. Linear-ish time: for graphs of any size.
StrategyResult solveEvictGreedy(const TrainingGraph &g,
                                const SolveOptions &opts);

/// evict-greedy's plan before its recomputations are given back: the
/// fastest replay within the budget, with eager frees (the lowest peak of
/// those runs). solveEvictGreedy() is giveBackRecomputations() of it.
StrategyResult bestEvictionReplay(const TrainingGraph &g,
                                  const SolveOptions &opts);

/// The budgets of evict-ladder's rungs below the program's peak `top`,
/// highest first, down to `floor`: each 1/64 below the one above, and
/// between the peak and the second of those, rungs closer together (1/1024
/// of the peak below it, then each freeing 3/2 of what the one above
/// frees), where 1/64 would free several times what a budget needs.
std::vector<int64_t> ladderRungs(int64_t top, int64_t floor);

/// evict-greedy's plans at a ladder of budgets fixed per graph (the
/// program's peak, then ladderRungs(), down to the first rung not met),
/// each before and after its recomputations are given back; at a budget,
/// the fastest of them that fits. Its
/// plans are monotone in the budget: a larger budget never gives a slower
/// plan, nor one that peaks lower.
StrategyResult solveEvictLadder(const TrainingGraph &g,
                                const SolveOptions &opts);

/// The lowest peak of evict-ladder's plans: it meets exactly the budgets at
/// or above it.
int64_t evictLadderFloor(const TrainingGraph &g, const SolveOptions &opts);

} // namespace remat

#endif // REMAT_SOLVER_EVICT_EVICTSTRATEGIES_H
