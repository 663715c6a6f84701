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

namespace {

/// A bracket [lo, hi] around the smallest budget: the searched solves fail
/// at lo (or lo is below every peak) and succeed at hi. Strategies whose
/// discretisation scales with the budget may not be monotone; the search
/// still ends on a budget they meet.
class BudgetSearch {
public:
  BudgetSearch(int64_t lo, int64_t hi, int granularityShift)
      : lo(lo), hi(hi), shift(granularityShift) {}

  /// Narrows the bracket with `feasibleAt` (at most `maxSteps` probes).
  template <typename Feasible> void bisect(Feasible feasibleAt, int maxSteps) {
    for (int step = 0; step < maxSteps && !close(); ++step) {
      int64_t mid = lo + (hi - lo) / 2;
      if (feasibleAt(mid))
        hi = mid;
      else
        lo = mid;
    }
  }
  /// Lowers hi to `b` (< hi) if `feasibleAt(b)`; true if it did.
  template <typename Feasible> bool tryLower(Feasible feasibleAt, int64_t b) {
    if (b >= hi || b <= lo || !feasibleAt(b))
      return false;
    hi = b;
    return true;
  }
  /// The budget just below hi that would still count as an improvement.
  int64_t improvement() const { return hi - step(); }
  bool close() const { return hi - lo <= step(); }

  int64_t lo, hi;

private:
  int64_t step() const {
    return shift > 0 ? std::max<int64_t>(1, hi >> shift) : 1;
  }
  int shift;
};

/// Solves at `budget` with the options' other settings; records a lower
/// peak the strategy reports when it fails.
bool feasibleAt(const TrainingGraph &g, const std::string &strategy,
                SolveOptions &o, int64_t budget, int64_t *leastPeak = nullptr) {
  o.budget = budget;
  Solution s = solve(g, strategy, o);
  if (!s.feasible && leastPeak)
    *leastPeak = s.leastPeak;
  return s.feasible;
}

/// Lowers search.hi to the smallest budget `strategy` meets below it
/// (search.lo: the floor, which no strategy beats): a probe at the floor,
/// where strategies that report the lowest peak they saw (lower sets) name
/// a budget close to their smallest, then bisection. With `pruneFirst`, a
/// probe just below hi comes first: most of auto's runs cannot beat the
/// best so far, and one failed solve says so (a strategy that is not
/// monotone in the budget, join's slots say, may then be cut short).
void lowerWith(const TrainingGraph &g, const std::string &strategy,
               SolveOptions o, BudgetSearch &search, bool pruneFirst) {
  auto feasible = [&](int64_t b) { return feasibleAt(g, strategy, o, b); };
  if (pruneFirst && !search.close()) {
    if (!feasible(search.improvement()))
      return;
    search.hi = search.improvement();
  }
  if (search.hi <= search.lo)
    return;
  int64_t least = -1;
  if (feasibleAt(g, strategy, o, search.lo, &least))
    return void(search.hi = search.lo); // lo is the proven floor.
  search.tryLower(feasible, least);
  search.bisect(feasible, std::numeric_limits<int>::max());
}

} // namespace

int64_t minimumBudget(const TrainingGraph &g, const std::string &strategy,
                      const SolveOptions &opts, int granularityShift) {
  SolveOptions o = opts;
  o.note = nullptr;
  o.autoMILP = false; // See the end.
  if (!o.cache)
    o.cache = std::make_shared<SolveCache>(); // Budget-independent work.
  const int64_t peak = simulate(g, keepEverythingSchedule(g)).peak;
  if (!feasibleAt(g, strategy, o, peak))
    return -1;
  if (peak == 0)
    return 0;
  // Known infeasible: below peakLowerBound().
  const int64_t floor = std::min(peakLowerBound(g), peak);
  BudgetSearch search(floor, peak, granularityShift);
  if (strategy == "checkmate-milp") {
    // Each MILP solve at an infeasible budget runs to its time limit (a
    // fuzzed refusal took 2 minutes): its warm start, lowerset-exact, meets
    // every budget its own search finds, and the short probes below go
    // lower.
    lowerWith(g, "lowerset-exact", o, search, /*pruneFirst=*/false);
  } else if (strategy != "auto") {
    lowerWith(g, strategy, o, search, /*pruneFirst=*/false);
  } else {
    // auto meets a budget when one of its runs does: each run's smallest
    // budget, most runs settled by one failed probe below the best so far
    // (rather than every run at every step of one bisection).
    for (PortfolioRun &run : autoPortfolio(g, o)) {
      run.options.cache = o.cache;
      search.lo = floor; // Another run may succeed where this one failed.
      lowerWith(g, run.strategy, run.options, search, /*pruneFirst=*/true);
    }
  }
  // The MILP meets budgets below the other strategies' on small graphs, but
  // a call at an infeasible budget runs to its time limit: a few short
  // probes, from the proven floor (it may succeed where the others failed).
  // Below every other run's smallest budget auto's MILP runs as
  // checkmate-milp does with auto's limits (no plan to warm-start from), so
  // the probes call it alone.
  const bool milp = strategy == "checkmate-milp";
  if (milp || (strategy == "auto" && autoRunsMILP(g, opts))) {
    SolveOptions m = milp ? o : autoMILPOptions(o);
    m.milpSeconds = std::min(m.milpSeconds, kMinimumBudgetMILPSeconds);
    search.lo = floor;
    search.bisect(
        [&](int64_t b) { return feasibleAt(g, "checkmate-milp", m, b); },
        kMinimumBudgetMILPProbes);
  }
  return search.hi;
}

} // namespace remat
