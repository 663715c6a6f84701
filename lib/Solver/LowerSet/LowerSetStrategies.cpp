//===- LowerSetStrategies.cpp - Descriptors of the lower-set strategies ---===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// One lower-set DP over the L_v family costs about 2.5e-10 nf^3 s; with
// segments of at most `step` forward nodes its transitions are about
// nf * step, each walking a front (measured ~2e-5 s per pair on the
// 40,000-op deep ResNet's 5,385 forward nodes). The exact DP visits pairs of
// lower sets: measured up to ~5e-6 s per (set x forward node) on U-Net
// shapes; with an unknown count auto does not try it.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/LowerSet/LowerSetStrategies.h"

#include <cmath>

namespace remat {

namespace {

double approxDP(const GraphMeasures &m, const SolveOptions &o) {
  return o.maxLowerSetStep > 0
             ? 2e-5 * m.nf * std::min<double>(m.nf, o.maxLowerSetStep)
             : 2.5e-10 * m.nf * m.nf * m.nf;
}

double exactEstimate(const GraphMeasures &m, const SolveOptions &o) {
  return m.lowerSets < 0 ? INFINITY
                         : lowerSetApproxEstimate(m, o) +
                               5e-6 * m.lowerSets * m.nf;
}

StrategyOption integerOption(std::string name, std::string help,
                             StrategyOption::Field field, double min) {
  StrategyOption o;
  o.name = std::move(name);
  o.valueName = "N";
  o.help = std::move(help);
  o.field = field;
  o.min = min;
  return o;
}

/// lowerset-exact's own limits; it falls back to the approximate DP.
std::vector<StrategyOption> exactOptions() {
  return {integerOption("max-lower-sets",
                        "lowerset-exact: give up and fall back to "
                        "lowerset-approx when the graph has more lower sets "
                        "than this",
                        &SolveOptions::maxLowerSets, 1),
          integerOption("max-lower-set-work",
                        "lowerset-exact: keep the approximate DP's plans once "
                        "its DPs over all lower sets have done this much "
                        "work (transitions L < L' tried plus front entries "
                        "scanned)",
                        &SolveOptions::maxLowerSetWork, 1)};
}

std::vector<StrategyOption> approxOptions() {
  return {integerOption("max-approx-sets",
                        "lowerset-approx: use the lower sets L_v of this many "
                        "nodes only, the slowest node of each of as many runs "
                        "of the graph (0: every node; the DP grows like the "
                        "cube of it)",
                        &SolveOptions::maxApproxSets, 0),
          integerOption("max-lower-set-step",
                        "lowerset-approx: a segment of the lower-set sequence "
                        "adds at most this many forward nodes, except the "
                        "last (0: no limit)",
                        &SolveOptions::maxLowerSetStep, 0),
          integerOption("max-approx-work",
                        "lowerset-approx: stop its DPs after this much work "
                        "(transitions tried plus front entries scanned) and "
                        "keep the best plan found by then (0: no limit; auto "
                        "sets it from its --time-budget)",
                        &SolveOptions::maxApproxWork, 0),
          integerOption("lower-set-probes",
                        "lowerset-approx: how many times the DP is re-run "
                        "with its budget raised by the slack the Simulator "
                        "measured",
                        &SolveOptions::lowerSetProbes, 0)};
}

StrategyDescriptor descriptor(std::string name, std::string description,
                              StrategyFn run, int rank, int priority) {
  StrategyDescriptor d;
  d.name = std::move(name);
  d.description = std::move(description);
  d.run = std::move(run);
  d.rank = rank;
  d.autoRole.priority = priority;
  return d;
}

} // namespace

double lowerSetApproxEstimate(const GraphMeasures &m, const SolveOptions &o) {
  return approxDP(m, o) * (1 + 0.8 * o.lowerSetProbes) + m.linearCost();
}

void registerLowerSetStrategies(StrategyRegistry &registry) {
  std::vector<StrategyOption> both = exactOptions();
  for (StrategyOption &o : approxOptions())
    both.push_back(std::move(o));

  StrategyDescriptor exact = descriptor(
      "lowerset-exact",
      "Kusumoto et al.: exact DP over all lower sets, time-centric",
      solveLowerSetExact, 90, 90);
  exact.estimate = exactEstimate;
  exact.options = both;
  registry.add(std::move(exact));

  StrategyDescriptor approx = descriptor(
      "lowerset-approx",
      "Kusumoto et al.: approximate DP over the lower sets L_v, time-centric",
      solveLowerSetApprox, 100, 50);
  approx.estimate = lowerSetApproxEstimate;
  approx.options = approxOptions();
  approx.autoRole.cheapen = cheapenLowerSetApprox;
  registry.add(std::move(approx));

  // Memory-centric: the lowest-peak plan, the same for every budget.
  StrategyDescriptor exactMC = descriptor(
      "lowerset-exact-mc",
      "Kusumoto et al.: exact DP, memory-centric (lowest peak)",
      solveLowerSetExactMC, 110, 120);
  exactMC.estimate = [](const GraphMeasures &m, const SolveOptions &o) {
    return 4 * exactEstimate(m, o);
  };
  exactMC.options = both;
  exactMC.autoRole.memoryCentric = true;
  exactMC.budgetSearch.monotone = true;
  registry.add(std::move(exactMC));

  StrategyDescriptor approxMC = descriptor(
      "lowerset-approx-mc",
      "Kusumoto et al.: approximate DP, memory-centric (lowest peak)",
      solveLowerSetApproxMC, 120, 110);
  approxMC.estimate = [](const GraphMeasures &m, const SolveOptions &o) {
    return 26 * approxDP(m, o) + m.linearCost();
  };
  approxMC.options = approxOptions();
  approxMC.autoRole.memoryCentric = true;
  approxMC.budgetSearch.monotone = true;
  registry.add(std::move(approxMC));
}

} // namespace remat
