//===- JoinStrategies.cpp - Descriptors of chain-precise and join ---------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/Join/JoinStrategies.h"
#include "remat/Solver/Chain/ChainStrategies.h"

namespace remat {

void registerJoinStrategies(StrategyRegistry &registry) {
  StrategyDescriptor precise;
  precise.name = "chain-precise";
  precise.description = "Butt's precise chain DP (Gruslys generalised to "
                        "per-layer costs), quadratic fallback";
  precise.run = solveChainPrecise;
  precise.rank = 50;
  precise.estimate = [](const GraphMeasures &m, const SolveOptions &o) {
    return chainDPEstimate(m, o, 5e-11);
  };
  precise.notApplicable = chainNotApplicable;
  precise.options = {slotsOption()};
  precise.autoRole.priority = 70;
  precise.autoRole.tune = tuneChainForAuto;
  // Not monotone (slots scale with the budget): bisected from its floor. On
  // rnn.unrolled (511 ops) at min it saves 8 of 16 solves of 24 chain DPs.
  precise.budgetSearch.floor = chainPreciseFloor;
  registry.add(std::move(precise));

  StrategyDescriptor join;
  join.name = "join";
  join.description = "Beaumont et al. join-graph DP (k chains meeting at the "
                     "loss), memory in slots";
  join.run = solveJoin;
  join.rank = 60;
  // Recognising a join that is not one costs a scan.
  join.estimate = [](const GraphMeasures &m, const SolveOptions &) {
    return m.join ? 0.05 + m.linearCost() : 1e-6 * m.n;
  };
  join.notApplicable = [](const GraphMeasures &m) {
    return m.join ? "" : "not a join";
  };
  join.options = {slotsOption()};
  join.autoRole.priority = 60;
  registry.add(std::move(join));
}

} // namespace remat
