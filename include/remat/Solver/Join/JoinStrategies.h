//===- JoinStrategies.h - join and chain-precise --------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// chain-precise is registered here, not in Chain/: its thesis model is a
// one-branch join (Join.h), while on rotor chains it uses Chain's DP. Join
// builds on Chain (Opt_0 is Butt's chain DP), never the other way round.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SOLVER_JOIN_JOINSTRATEGIES_H
#define REMAT_SOLVER_JOIN_JOINSTRATEGIES_H

#include "remat/Solver/Core/Strategy.h"
#include "remat/Solver/Core/StrategyRegistry.h"

namespace remat {

/// Registers chain-precise and join.
void registerJoinStrategies(StrategyRegistry &registry);

/// Butt 2019 (thesis Alg. 3.4): Gruslys's DP with per-layer costs and the
/// recompute-everything fallback; exact on the thesis's chain model (a
/// one-branch join), the thesis's PyTorch mapping on rotor chains.
StrategyResult solveChainPrecise(const TrainingGraph &g,
                                 const SolveOptions &opts);
/// No schedule of chain-precise peaks below this (the smallest-budget
/// search skips the solves below it): on chain views, viaChainFloor, as for
/// the other chain strategies; on the thesis model, no claim (0).
int64_t chainPreciseFloor(const TrainingGraph &g, const SolveOptions &opts);
/// Beaumont et al. 2019, Theorem 3: k chains meeting at the loss (Siamese,
/// cross-modal), heterogeneous costs, memory in slots.
StrategyResult solveJoin(const TrainingGraph &g, const SolveOptions &opts);

} // namespace remat

#endif // REMAT_SOLVER_JOIN_JOINSTRATEGIES_H
