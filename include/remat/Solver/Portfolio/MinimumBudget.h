//===- MinimumBudget.h - The smallest budget a strategy meets -------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef REMAT_SOLVER_PORTFOLIO_MINIMUMBUDGET_H
#define REMAT_SOLVER_PORTFOLIO_MINIMUMBUDGET_H

#include "remat/Solver/Core/Strategy.h"

#include <cstdint>
#include <string>

namespace remat {

/// The smallest budget (bytes) for which solve() succeeds with `strategy`,
/// found by binary search between the proven floor (peakLowerBound) and the
/// no-remat peak. For a portfolio (auto), each of its runs (autoPortfolio)
/// lowers the best budget so far in turn: a run whose strategy is monotone
/// in the budget is settled by one failed probe below it, the others are
/// searched fully; then, on graphs where auto refines, a few short solves
/// of the refinement bisect below it (budgetSearch.probes). A strategy with
/// budgetSearch.searchVia searches the lowest of those ones' budgets, then
/// its own probes.
/// Below a strategy's proven floor (budgetSearch.floor) nothing is solved:
/// the answer is the same, sooner. Returns -1 when even the no-remat peak
/// fails. With `granularityShift` k > 0 the search stops once the range is
/// within 1/2^k of the budget found (fewer solves on large graphs; budgets
/// below 2^k bytes stay exact).
int64_t minimumBudget(const TrainingGraph &g, const std::string &strategy,
                      const SolveOptions &opts, int granularityShift = 0);

/// The granularity the tools search `g`'s smallest budget with: exact on
/// graphs of up to 1,000 nodes, to within 1/256 of itself on larger ones,
/// where every solve near the floor takes seconds.
int minimumBudgetShift(const TrainingGraph &g);

} // namespace remat

#endif // REMAT_SOLVER_PORTFOLIO_MINIMUMBUDGET_H
