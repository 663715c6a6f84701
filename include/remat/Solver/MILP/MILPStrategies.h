//===- MILPStrategies.h - checkmate-milp ----------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef REMAT_SOLVER_MILP_MILPSTRATEGIES_H
#define REMAT_SOLVER_MILP_MILPSTRATEGIES_H

#include "remat/Solver/Core/Strategy.h"
#include "remat/Solver/Core/StrategyRegistry.h"

namespace remat {

/// Registers checkmate-milp and checkmate-milp-offload.
void registerMILPStrategies(StrategyRegistry &registry);

/// Checkmate's MILP (Jain et al. 2020) over this project's memory model,
/// solved by COIN-OR CBC within SolveOptions::milpSeconds, warm-started from
/// a lower-set plan; StrategyResult::bound and gap say what it proved.
StrategyResult solveCheckmateMILP(const TrainingGraph &g,
                                  const SolveOptions &opts);

/// The same MILP with a third state, the host (copies over
/// SolveOptions::link): the fastest of its plan, the recompute-only MILP's
/// and offload-greedy's that the Simulator puts within budget. Not run by
/// auto (offload is off by default until a GPU run has measured it).
StrategyResult solveCheckmateMILPOffload(const TrainingGraph &g,
                                         const SolveOptions &opts);

/// The same MILP with the sized parts' choices as binaries of the model
/// (CheckmateMILP.h): the best (choices, schedule) pair within the search
/// limits, never worse than the warm start (SolveOptions::warmStart at
/// `warmPicks`).
SizedStrategyResult solveCheckmateMILPSized(const TrainingGraph &g,
                                            const std::vector<SizedPart> &parts,
                                            const SolveOptions &opts,
                                            const std::vector<int> &warmPicks);

/// Whether auto refines with checkmate-milp on this graph (small ones), and
/// the options it gives it (a branch-and-bound node limit, a clock limit).
bool autoRunsMILP(const TrainingGraph &g, const SolveOptions &opts);
SolveOptions autoMILPOptions(const SolveOptions &opts);

/// The plans checkmate-milp starts from, the first that meets the budget
/// (without SolveOptions::warmStart): lower sets, then evict-greedy, which
/// meets budgets below their reach. It meets every budget they meet, so its
/// smallest-budget search searches theirs.
inline const std::vector<std::string> kMILPWarmStarts = {"lowerset-exact",
                                                         "evict-greedy"};

/// The smallest-budget search's probes below the other strategies' budget:
/// at most this many solves of at most this many seconds.
constexpr int kMinimumBudgetMILPProbes = 2;
constexpr double kMinimumBudgetMILPSeconds = 0.2;

} // namespace remat

#endif // REMAT_SOLVER_MILP_MILPSTRATEGIES_H
