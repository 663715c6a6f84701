//===- ChainStrategies.cpp - Descriptors of the chain-view strategies -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Run-time estimates: fitted on ResNet/U-Net/GoogLeNet-like graphs of 300 to
// 10,000 nodes (docs/solver.md, "auto"); each chain budget tried is one DP
// over the (coarsened) chain, on two views (solveViaChain).
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Chain/ChainStrategies.h"
#include "remat/Solver/Chain/ChainSolvers.h"

#include <algorithm>
#include <cmath>

namespace remat {

namespace {

/// auto's coarsening: chains longer than this plan on this many stages with
/// at most kCoarseProbes chain budgets.
constexpr int kCoarseStages = 64;
constexpr int kCoarseProbes = 6;

/// Its own refusal threshold is 1.5e9 operations (Graph model: 4 tables).
double rotorWeakEstimate(const GraphMeasures &m, const SolveOptions &o) {
  const double S = std::max(1, o.slots), probes = std::max(1, o.chainProbes);
  const double Lw = m.chain + 1.0;
  const double work = 4 * std::pow(Lw, 5) / 12 * (S + 1);
  return m.chain < 0 || work > 1.5e9 ? INFINITY
                                     : m.linearCost() + probes * 2e-9 * work;
}

/// The fields every chain-view strategy shares.
StrategyDescriptor chainDescriptor(std::string name, std::string description,
                                   StrategyFn run, int rank, int priority) {
  StrategyDescriptor d;
  d.name = std::move(name);
  d.description = std::move(description);
  d.run = std::move(run);
  d.rank = rank;
  d.notApplicable = chainNotApplicable;
  d.autoRole.priority = priority;
  d.autoRole.tune = tuneChainForAuto;
  // Not monotone (the slots scale with the budget), so the search bisects
  // them from the proven floor: on the 90-node ResNet 19 solves of
  // chain-rotor-weak (1 s each) below a budget evict-greedy met, all below
  // this floor.
  d.budgetSearch.floor = viaChainFloor;
  return d;
}

} // namespace

StrategyOption slotsOption() {
  StrategyOption o;
  o.name = "slots";
  o.valueName = "S";
  o.help = "Memory discretisation of the chain dynamic programs (number of "
           "memory slots)";
  o.field = &SolveOptions::slots;
  o.min = 1;
  return o;
}

std::string chainNotApplicable(const GraphMeasures &m) {
  return m.chain < 0 ? "no chain view" : "";
}

void tuneChainForAuto(const GraphMeasures &m, SolveOptions &o,
                      std::vector<std::string> &notes) {
  if (m.chain <= kCoarseStages || o.maxChainStages != 0)
    return;
  o.maxChainStages = kCoarseStages;
  o.chainProbes = std::min(o.chainProbes, kCoarseProbes);
  notes.push_back("chain strategies plan on the chain coarsened from " +
                  std::to_string(m.chain) + " to " +
                  std::to_string(kCoarseStages) + " stages, with at most " +
                  std::to_string(o.chainProbes) + " chain budgets");
}

double chainDPEstimate(const GraphMeasures &m, const SolveOptions &o,
                       double perCell) {
  if (m.chain < 0)
    return INFINITY;
  const double L = std::min(m.chain, kCoarseStages);
  const double S = std::max(1, o.slots), probes = std::max(1, o.chainProbes);
  return 2 * (0.5 * m.linearCost() + probes * perCell * L * L * L * S);
}

void registerChainStrategies(StrategyRegistry &registry) {
  StrategyDescriptor revolve = chainDescriptor(
      "revolve",
      "binomial checkpointing (Griewank-Walther) on the chain view",
      solveRevolve, 20, 10);
  revolve.estimate = [](const GraphMeasures &m, const SolveOptions &) {
    return m.chain < 0 ? INFINITY : m.linearCost();
  };
  registry.add(std::move(revolve));

  StrategyDescriptor rotor = chainDescriptor(
      "chain-rotor", "rotor's persistent chain DP (a/abar), memory in slots",
      solveChainRotor, 30, 20);
  rotor.estimate = [](const GraphMeasures &m, const SolveOptions &o) {
    return chainDPEstimate(m, o, 3e-11);
  };
  rotor.options = {slotsOption()};
  registry.add(std::move(rotor));

  StrategyDescriptor weak = chainDescriptor(
      "chain-rotor-weak",
      "rotor's floating-activation DP: optimal on chains, small ones only",
      solveChainRotorWeak, 40, 80);
  weak.estimate = rotorWeakEstimate;
  weak.options = {slotsOption()};
  registry.add(std::move(weak));
}

} // namespace remat
