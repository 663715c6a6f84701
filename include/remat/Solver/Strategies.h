//===- Strategies.h - Entry points of the individual strategies ----------===//
//
// One function per strategy, each implemented in its own file of lib/Solver.
// Callers normally go through solve() in Strategy.h, which checks the result
// with the Simulator.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SOLVER_STRATEGIES_H
#define REMAT_SOLVER_STRATEGIES_H

#include "remat/Solver/Strategy.h"

namespace remat {

/// Keep everything: the program without rematerialization.
StrategyResult solveNone(const TrainingGraph &g, const SolveOptions &opts);

} // namespace remat

#endif // REMAT_SOLVER_STRATEGIES_H
