//===- SizedSolve.h - Plans that choose the sizes of sized parts ---------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// solve() plans a graph whose every tensor has one size. solveSized() plans
// one with sized parts (SizedParts.h: a checkpointed scan's slot buffers and
// reversal) through the strategy's own model of the choices, where it has
// one (StrategyDescriptor::runSized: checkmate-milp; auto through its
// exact refinement, on the graphs it refines). The schedule is checked by
// the Simulator on the graph at the choices taken, as solve() checks.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SOLVER_PORTFOLIO_SIZEDSOLVE_H
#define REMAT_SOLVER_PORTFOLIO_SIZEDSOLVE_H

#include "remat/Solver/Core/SizedParts.h"
#include "remat/Solver/Core/Strategy.h"

#include <string>
#include <vector>

namespace remat {

struct SizedSolution {
  Solution solution;      ///< Of withSizes(g, parts, picks).
  std::vector<int> picks; ///< Per part, the choice taken.
};

/// The descriptor whose model chooses sizes when `strategy` plans `g` with
/// `opts` (the strategy's own, or auto's refinement), with the options it
/// is run with; nullptr when none does.
const StrategyDescriptor *sizingStrategy(const TrainingGraph &g,
                                         const std::string &strategy,
                                         const SolveOptions &opts,
                                         SolveOptions *runOptions = nullptr);

/// Plans `g` and its parts' choices together (sizingStrategy), warm-started
/// from opts.warmStart at `warmPicks` when set; infeasible, with a reason,
/// when no model of the strategy chooses sizes.
SizedSolution solveSized(const TrainingGraph &g,
                         const std::vector<SizedPart> &parts,
                         const std::string &strategy, const SolveOptions &opts,
                         const std::vector<int> &warmPicks);

} // namespace remat

#endif // REMAT_SOLVER_PORTFOLIO_SIZEDSOLVE_H
