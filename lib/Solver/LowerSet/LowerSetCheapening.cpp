//===- LowerSetCheapening.cpp - How auto makes lowerset-approx affordable -===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/LowerSet/LowerSetStrategies.h"

#include <algorithm>

namespace remat {

namespace {

/// Large graphs: lowerset-approx's segments add at most this many forward
/// nodes (SolveOptions::maxLowerSetStep).
constexpr int kLargeGraphStep = 8;

/// The approximate DP's work per second (transitions plus front entries),
/// at the slow end of what it was measured at: ~6e7 on DenseNet-121's dense
/// blocks, ~1.3e8 on deep ResNets.
constexpr double kApproxWorkPerSecond = 1e8;

/// The estimates see the graph's size, not its fronts: on densely connected
/// graphs they were 13x low (DenseNet-121: ~0.6 s estimated, 8 s run). The
/// run's work is capped at what the seconds it was admitted with buy.
void capWork(AutoRun &r, const AutoAllowance &a) {
  if (r.options.maxApproxWork > 0)
    return; // The user's.
  const double seconds = std::max(r.cost, a.timeBudget - a.spent);
  r.options.maxApproxWork = static_cast<int64_t>(
      std::min(9e18, std::max(1.0, seconds * kApproxWorkPerSecond)));
}

/// The probes (re-runs at raised budgets) go first when time is short.
void dropProbes(AutoRun &r, const AutoAllowance &a) {
  const int probes = r.options.lowerSetProbes;
  for (int p : {1, 0})
    if (a.spent + r.cost > a.timeBudget && r.options.lowerSetProbes > p) {
      r.options.lowerSetProbes = p;
      r.cost = lowerSetApproxEstimate(a.measures, r.options);
      if (a.spent + r.cost <= a.timeBudget)
        a.say("lowerset-approx runs with " + std::to_string(p) +
              " probe(s) instead of " + std::to_string(probes) +
              " (estimated time)");
    }
}

/// Segments of at most kLargeGraphStep forward nodes, with as many probes
/// as fit and at least one.
void limitSegments(AutoRun &r, const AutoAllowance &a, int probes) {
  r.options.maxLowerSetStep = kLargeGraphStep;
  int p = probes;
  for (; p > 1; --p) {
    r.options.lowerSetProbes = p;
    if (a.spent + lowerSetApproxEstimate(a.measures, r.options) <=
        a.timeBudget)
      break;
  }
  r.options.lowerSetProbes = std::min(probes, std::max(p, 1));
  r.cost = std::min(lowerSetApproxEstimate(a.measures, r.options),
                    std::max(0.0, a.timeBudget - a.spent));
  SolveOptions whole = r.options;
  whole.maxLowerSetStep = 0;
  whole.lowerSetProbes = 0;
  a.say("lowerset-approx plans segments of at most " +
        std::to_string(kLargeGraphStep) + " forward nodes with " +
        std::to_string(r.options.lowerSetProbes) +
        " probe(s) (the whole family would take ~" +
        formatSeconds(lowerSetApproxEstimate(a.measures, whole)) + ")");
}

} // namespace

/// The probes go first when time is short. On graphs where even one DP over
/// the whole L_v family does not fit, its segments are limited (linear time;
/// on deep networks the good segments are short), unless evict-greedy met
/// the budget: on such graphs only these two get close to the optimum, and
/// a probe halves the overhead the model's slack costs. Whatever runs has
/// its work capped at the seconds it was admitted with.
void cheapenLowerSetApprox(AutoRun &r, const AutoAllowance &a) {
  const int probes = r.options.lowerSetProbes;
  dropProbes(r, a);
  if (a.spent + r.cost <= a.timeBudget || r.options.maxLowerSetStep > 0)
    return capWork(r, a);
  if (a.winner == "evict-greedy")
    return; // As good or better on deep graphs (docs/benchmarks.md): skip.
  limitSegments(r, a, probes);
  capWork(r, a);
}

} // namespace remat
