//===- LowerSetStrategies.h - Kusumoto et al.'s lower-set strategies ------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef REMAT_SOLVER_LOWERSET_LOWERSETSTRATEGIES_H
#define REMAT_SOLVER_LOWERSET_LOWERSETSTRATEGIES_H

#include "remat/Solver/Core/Strategy.h"
#include "remat/Solver/Core/StrategyRegistry.h"

namespace remat {

/// Registers lowerset-exact, lowerset-approx and their -mc variants.
void registerLowerSetStrategies(StrategyRegistry &registry);

/// lowerset-approx's estimated seconds (its run-time estimate).
double lowerSetApproxEstimate(const GraphMeasures &m, const SolveOptions &o);
/// auto's cheapening rule for lowerset-approx (LowerSetCheapening.cpp).
void cheapenLowerSetApprox(AutoRun &r, const AutoAllowance &a);

/// Kusumoto et al. 2019: canonical strategies of lower-set sequences. Exact
/// DP over all lower sets (capped by maxLowerSets) or approximate DP over
/// the sets L_v; time-centric, or memory-centric (-mc: the lowest peak).
StrategyResult solveLowerSetExact(const TrainingGraph &g,
                                  const SolveOptions &opts);
StrategyResult solveLowerSetApprox(const TrainingGraph &g,
                                   const SolveOptions &opts);
StrategyResult solveLowerSetExactMC(const TrainingGraph &g,
                                    const SolveOptions &opts);
StrategyResult solveLowerSetApproxMC(const TrainingGraph &g,
                                     const SolveOptions &opts);

} // namespace remat

#endif // REMAT_SOLVER_LOWERSET_LOWERSETSTRATEGIES_H
