//===- EvictStrategies.cpp - Descriptors of evict-greedy and its ladder ---===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/Evict/EvictStrategies.h"

#include <algorithm>

namespace remat {

namespace {

/// Each replay scans the stored values per free: quadratic (0.03 s on the
/// 10,000-op ResNet's 3,456 nodes, 0.45 s on the 40,000-op one's 13,842).
double estimate(const GraphMeasures &m, const SolveOptions &o) {
  return std::max(1, o.evictionReplays) *
         (2.5e-9 * m.n * m.n + m.linearCost());
}

/// Small graphs: every weighting, when all of them take under a tenth of
/// the allowance (a few hundred nodes). On the random 29-41-node steps of
/// docs/benchmarks.md they take evict-greedy alone from 11 to 15 of 20
/// pairs within 2 % of the MILP optimum, and give the MILP a better start.
/// Otherwise fewer weightings only beyond twice the allowance, and at least
/// one: on graphs of thousands of nodes it is the best planner auto has, and
/// which weighting wins there depends on small things (operand order after
/// canonicalization took the 40,000-op ResNet at 70 % from 0.41 % to 12 %
/// with one weighting; the best of four is 0.41 % on both forms).
void cheapen(AutoRun &r, const AutoAllowance &a) {
  SolveOptions all = r.options;
  all.evictionReplays = kEvictionWeightings;
  if (estimate(a.measures, all) <= 0.1 * a.timeBudget) {
    r.options = all;
    r.cost = estimate(a.measures, all);
    return;
  }
  const int replays = r.options.evictionReplays;
  const double allowance =
      std::max(a.timeBudget - a.spent, 2 * a.timeBudget);
  while (r.cost > allowance && r.options.evictionReplays > 1) {
    --r.options.evictionReplays;
    r.cost = estimate(a.measures, r.options);
  }
  if (r.options.evictionReplays < replays)
    a.say("evict-greedy replays with " +
          std::to_string(r.options.evictionReplays) + " weighting(s) instead "
          "of " + std::to_string(replays) + " (estimated time)");
  r.cost = std::min(r.cost, std::max(0.0, a.timeBudget - a.spent));
}

/// The ladder's rungs from a peak down to a third of it, the common depth
/// (its plans are evict-greedy's at each rung).
constexpr double kEstimatedRungs = 70;

double ladderEstimate(const GraphMeasures &m, const SolveOptions &o) {
  return kEstimatedRungs * estimate(m, o);
}

} // namespace

void registerEvictStrategies(StrategyRegistry &registry) {
  StrategyDescriptor d;
  d.name = "evict-greedy";
  d.description = "replay the program, freeing the value cheapest to "
                  "recompute per byte until its next read (DTR-like); "
                  "recomputes anywhere, scales to any size";
  d.run = solveEvictGreedy;
  d.rank = 140;
  d.estimate = estimate;
  d.autoRole.priority = 40;
  d.autoRole.cheapen = cheapen;
  registry.add(std::move(d));

  // Not in auto: its point is a family of plans that does not depend on the
  // budget, which auto's other runs at the budget would break.
  StrategyDescriptor ladder;
  ladder.name = "evict-ladder";
  ladder.description =
      "evict-greedy's plans at a ladder of budgets fixed per graph (each "
      "1/64 below the last, closer near the peak), the fastest that fits: "
      "monotone in the budget (a larger budget never gives a slower plan or "
      "a lower peak); not run by auto";
  ladder.run = solveEvictLadder;
  ladder.rank = 145;
  ladder.estimate = ladderEstimate;
  ladder.budgetSearch.monotone = true;
  ladder.budgetSearch.floor = evictLadderFloor;
  registry.add(std::move(ladder));
}

} // namespace remat
