//===- PolishCopies.h - Local moves of a plan's host copies -----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// offloadUntilBudget places each copy by a rule (right after the last use,
// as late as the compute hides the copy back); the Simulator may find a
// faster plan a few steps away: a copy issued one run earlier or later,
// a round trip the plan no longer needs, or another tensor on the host.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SOLVER_OFFLOAD_POLISHCOPIES_H
#define REMAT_SOLVER_OFFLOAD_POLISHCOPIES_H

#include "remat/Solver/Offload/OffloadPlanner.h"

namespace remat {

/// `plan` improved by first-improvement local search over its copy steps:
/// each offload or prefetch moved up to 4 steps either way, and each stay
/// on the host dropped (its offload and the prefetch that ends it), as it
/// is or, where that is over the budget, with offloadUntilBudget's copies of
/// other tensors (stalls allowed while faster); frees placed eagerly again.
/// A candidate is kept when the Simulator finds it valid, within
/// `opts.budget` and `opts.hostBudget`, and faster. At most
/// `opts.swapTries` candidates, fewer on long plans (each is a simulation
/// of the whole plan). Last, each Await is dropped where the plan stays
/// within the budgets and no slower (a wait that waits for nothing).
/// Returns `plan` itself when it has no copies or is not valid within the
/// budgets.
Schedule polishCopies(const TrainingGraph &g, const Schedule &plan,
                      const OffloadPlanOptions &opts);

} // namespace remat

#endif // REMAT_SOLVER_OFFLOAD_POLISHCOPIES_H
