//===- ChainStrategies.h - revolve, chain-rotor, chain-rotor-weak ---------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef REMAT_SOLVER_CHAIN_CHAINSTRATEGIES_H
#define REMAT_SOLVER_CHAIN_CHAINSTRATEGIES_H

#include "remat/Solver/Core/Strategy.h"
#include "remat/Solver/Core/StrategyRegistry.h"

namespace remat {

/// Registers revolve, chain-rotor and chain-rotor-weak.
void registerChainStrategies(StrategyRegistry &registry);

/// --slots, shared by every DP that counts memory in slots (chains, joins).
StrategyOption slotsOption();
/// What the chain DPs need to know about a graph: a chain view.
std::string chainNotApplicable(const GraphMeasures &m);
/// auto plans chain strategies on a chain coarsened to 64 stages when it is
/// longer (they lose almost nothing there, and the search over chain budgets
/// stays cheap).
void tuneChainForAuto(const GraphMeasures &m, SolveOptions &o,
                      std::vector<std::string> &notes);
/// The cost of one chain DP plan search: `perCell` seconds per (stage^3 x
/// slot) for each chain budget tried, on two views (solveViaChain).
double chainDPEstimate(const GraphMeasures &m, const SolveOptions &o,
                       double perCell);

/// Griewank-Walther binomial checkpointing on the chain view (stores only a;
/// F_all right before each B), with as many checkpoints as the budget allows.
StrategyResult solveRevolve(const TrainingGraph &g, const SolveOptions &opts);
/// Rotor's persistent chain DP (Alg. 3) with opts.slots memory slots.
StrategyResult solveChainRotor(const TrainingGraph &g, const SolveOptions &opts);
/// Rotor's weakly persistent DP (Alg. 1): optimal on chains, small ones only.
StrategyResult solveChainRotorWeak(const TrainingGraph &g,
                                   const SolveOptions &opts);

} // namespace remat

#endif // REMAT_SOLVER_CHAIN_CHAINSTRATEGIES_H
