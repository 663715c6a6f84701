//===- CopyInsteadOfRecompute.h - Trade recomputations for copies ---------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The second half of the scalable offload rule: where a plan recomputes a
// value, keeping the value, or copying it to the host after its last use
// and back before its next read, may be cheaper (POET, OFFMATE: offload the
// expensive values, recompute the cheap ones). offloadUntilBudget only adds
// copies to a plan; this pass removes recomputations, and the Simulator says
// whether the plan got faster within the budget.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SOLVER_OFFLOAD_COPYINSTEADOFRECOMPUTE_H
#define REMAT_SOLVER_OFFLOAD_COPYINSTEADOFRECOMPUTE_H

#include "remat/Solver/Offload/OffloadPlanner.h"

namespace remat {

/// `plan` (valid, within opts.budget) with recomputations removed while one
/// removal makes it faster: for each recomputation (a later run of a node),
/// the node's earlier outputs kept on the device instead, or offloaded right
/// after their last use and prefetched before their next read (at each of
/// the few latest positions), and the recomputations that then feed nothing
/// removed too. A candidate is kept only when the Simulator finds it valid,
/// within budget and faster (stalls included): first improvement, until
/// none or opts.maxTries candidates. The result is never slower than `plan`.
Schedule copyInsteadOfRecompute(const TrainingGraph &g, const Schedule &plan,
                                const OffloadPlanOptions &opts);

} // namespace remat

#endif // REMAT_SOLVER_OFFLOAD_COPYINSTEADOFRECOMPUTE_H
