//===- Monotone.h - auto-monotone: plans monotone in the budget -----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef REMAT_SOLVER_PORTFOLIO_MONOTONE_H
#define REMAT_SOLVER_PORTFOLIO_MONOTONE_H

#include "remat/Solver/Core/Strategy.h"

namespace remat {

/// The fastest plan that fits (ties: the lower peak) of a family fixed per
/// graph: evict-ladder's plans and auto's plan at auto's smallest budget.
/// Monotone in the budget: a larger budget never gives a slower plan, nor
/// one that peaks lower.
StrategyResult solveAutoMonotone(const TrainingGraph &g,
                                 const SolveOptions &opts);

/// The lowest peak of that family: auto-monotone meets exactly the budgets
/// at or above it.
int64_t autoMonotoneFloor(const TrainingGraph &g, const SolveOptions &opts);

} // namespace remat

#endif // REMAT_SOLVER_PORTFOLIO_MONOTONE_H
