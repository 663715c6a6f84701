//===- Strategy.cpp - Registry, checked solve and minimum budget ----------===//

#include "remat/Solver/Core/Strategy.h"
#include "remat/Solver/Core/Strategies.h"

#include <algorithm>
#include <limits>

namespace remat {

const std::vector<StrategyInfo> &allStrategies() {
  static const std::vector<StrategyInfo> registry = {
      {"none", "keep every forward value; no recomputation", solveNone},
      {"revolve", "binomial checkpointing (Griewank-Walther) on the chain "
                  "view", solveRevolve},
      {"chain-rotor", "rotor's persistent chain DP (a/abar), memory in slots",
       solveChainRotor},
      {"chain-rotor-weak", "rotor's floating-activation DP: optimal on "
                           "chains, small ones only", solveChainRotorWeak},
      {"chain-precise", "Butt's precise chain DP (Gruslys generalised to "
                        "per-layer costs), quadratic fallback",
       solveChainPrecise},
      {"join", "Beaumont et al. join-graph DP (k chains meeting at the "
               "loss), memory in slots", solveJoin},
      {"chen-sqrt", "Chen et al.: sqrt(n) segments cut at articulation "
                    "points, each recomputed once", solveChenSqrt},
      {"chen-greedy", "Chen et al.: budget-greedy segments (threshold "
                      "search), each recomputed once", solveChenGreedy},
      {"lowerset-exact", "Kusumoto et al.: exact DP over all lower sets, "
                         "time-centric", solveLowerSetExact},
      {"lowerset-approx", "Kusumoto et al.: approximate DP over the lower "
                          "sets L_v, time-centric", solveLowerSetApprox},
      {"lowerset-exact-mc", "Kusumoto et al.: exact DP, memory-centric "
                            "(lowest peak)", solveLowerSetExactMC},
      {"lowerset-approx-mc", "Kusumoto et al.: approximate DP, "
                             "memory-centric (lowest peak)",
       solveLowerSetApproxMC},
      {"checkmate-milp", "Checkmate's MILP solved by CBC (exact for its "
                         "order; recomputes anywhere, reports a bound)",
       solveCheckmateMILP},
      {"evict-greedy", "replay the program, freeing the value cheapest to "
                       "recompute per byte until its next read (DTR-like); "
                       "recomputes anywhere, scales to any size",
       solveEvictGreedy},
      {"auto", "run every applicable strategy, keep the fastest schedule "
               "within budget", solveAuto},
  };
  return registry;
}

const StrategyInfo *findStrategy(const std::string &name) {
  for (const StrategyInfo &s : allStrategies())
    if (s.name == name)
      return &s;
  return nullptr;
}

Solution solve(const TrainingGraph &g, const std::string &strategy,
               const SolveOptions &opts) {
  Solution sol;
  sol.strategy = strategy;
  const StrategyInfo *info = findStrategy(strategy);
  if (!info) {
    sol.reason = "unknown strategy '" + strategy + "'";
    return sol;
  }
  StrategyResult res = info->run(g, opts);
  sol.chosen = res.chosen.empty() ? strategy : res.chosen;
  if (!res.feasible) {
    sol.reason = res.reason;
    sol.leastPeak = res.leastPeak;
    return sol;
  }
  sol.schedule = std::move(res.schedule);
  sol.bound = res.bound;
  sol.gap = res.gap;
  sol.sim = simulate(g, sol.schedule);
  if (!sol.sim.valid) {
    // A strategy bug, never a user error: say so loudly.
    sol.reason = "internal error: strategy '" + strategy +
                 "' produced an invalid schedule: " + sol.sim.error;
    return sol;
  }
  if (sol.sim.peak > opts.budget) {
    sol.leastPeak = sol.sim.peak;
    sol.reason = "strategy '" + strategy + "' reaches a peak of " +
                 std::to_string(sol.sim.peak) + " bytes, above the budget";
    return sol;
  }
  if (!res.reason.empty())
    sol.reason = res.reason;
  sol.feasible = true;
  return sol;
}

int64_t minimumBudget(const TrainingGraph &g, const std::string &strategy,
                      const SolveOptions &opts, int granularityShift) {
  SolveOptions o = opts;
  o.note = nullptr;
  o.autoMILP = false; // See the end.
  if (!o.cache)
    o.cache = std::make_shared<SolveCache>(); // Budget-independent work.
  int64_t hi = simulate(g, keepEverythingSchedule(g)).peak;
  o.budget = hi;
  if (!solve(g, strategy, o).feasible)
    return -1;
  // Known infeasible: below peakLowerBound(). One probe at the bound tells
  // whether it suffices and, where the strategy reports the lowest peak it
  // saw (lowerset-*, auto), an upper end close to the answer.
  int64_t lo = std::min(peakLowerBound(g), hi);
  o.budget = lo;
  Solution least = solve(g, strategy, o);
  if (least.feasible)
    return lo;
  if (least.leastPeak > lo && least.leastPeak < hi) {
    o.budget = least.leastPeak;
    if (solve(g, strategy, o).feasible) {
      hi = least.leastPeak;
      // Below that peak the memory-centric variants cannot succeed.
      o.memoryCentricFallback = false;
    }
  }
  // Invariant: solve(hi) is feasible, solve(lo) is not. Strategies whose
  // discretisation scales with the budget may not be monotone; the search
  // still returns a budget they meet.
  auto close = [&] {
    return hi - lo <= (granularityShift > 0
                           ? std::max<int64_t>(1, hi >> granularityShift)
                           : 1);
  };
  auto bisect = [&](int maxSteps) {
    for (int step = 0; step < maxSteps && !close(); ++step) {
      int64_t mid = lo + (hi - lo) / 2;
      o.budget = mid;
      if (solve(g, strategy, o).feasible)
        hi = mid;
      else
        lo = mid;
    }
  };
  bisect(std::numeric_limits<int>::max());
  // The MILP meets budgets below the other strategies' on small graphs, but
  // a call at an infeasible budget runs to its time limit: a few short
  // probes, from the proven floor (it may succeed where the others failed).
  if (strategy == "auto" && opts.autoMILP) {
    o.autoMILP = true;
    o.milpSeconds = std::min(opts.milpSeconds, kMinimumBudgetMILPSeconds);
    lo = std::min(peakLowerBound(g), hi);
    bisect(kMinimumBudgetMILPProbes);
  }
  return hi;
}

} // namespace remat
