//===- MinimumBudget.cpp - The smallest budget a strategy meets -----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/Portfolio/MinimumBudget.h"
#include "remat/Solver/Portfolio/Auto.h"

#include <algorithm>
#include <limits>

namespace remat {

namespace {

/// Past a failed probe just below the best budget so far, a run that is not
/// monotone is bisected only to within 1/2^kPastAFailedProbeShift of that
/// budget (or the search's own resolution, if coarser). On every shipped
/// input no such run ever found a budget below the best one (303 runs), while
/// the exact bisection, whose probes crowd below the best budget, took up to
/// 14 solves a run: on rnn.unrolled.mlir 8 each of chain-rotor and
/// chain-precise, 24 chain DPs a solve. Small budgets (join's 27 B island
/// below 29 B) are still bisected to the byte.
constexpr int kPastAFailedProbeShift = 6;

/// minimumBudgetShift(): exact up to this many nodes, within 1/2^shift above.
constexpr int kExactMinimumBudgetNodes = 1000;
constexpr int kMinimumBudgetGranularityShift = 8;

/// A bracket [lo, hi] around the smallest budget: the searched solves fail
/// at lo (or lo is below every peak) and succeed at hi. Strategies whose
/// discretisation scales with the budget may not be monotone; the search
/// still ends on a budget they meet.
class BudgetSearch {
public:
  BudgetSearch(int64_t lo, int64_t hi, int granularityShift)
      : lo(lo), hi(hi), shift(granularityShift) {}

  /// Narrows the bracket with `feasibleAt` (at most `maxSteps` probes), to
  /// within hi >> `coarseShift` when that is given and coarser.
  template <typename Feasible>
  void bisect(Feasible feasibleAt, int maxSteps, int coarseShift = 0) {
    const int s = coarseShift > 0 && (shift == 0 || coarseShift < shift)
                      ? coarseShift
                      : shift;
    for (int step = 0; step < maxSteps && !close(s); ++step) {
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
  int64_t improvement() const { return hi - step(shift); }
  bool close() const { return close(shift); }

  int64_t lo, hi;

private:
  bool close(int s) const { return hi - lo <= step(s); }
  int64_t step(int s) const {
    return s > 0 ? std::max<int64_t>(1, hi >> s) : 1;
  }
  int shift;
};

/// Solves of one strategy at varying budgets with fixed other options.
/// Below the strategy's proven floor (budgetSearch.floor) the answer is
/// known: no solve, and no lowest peak to report.
class Prober {
public:
  Prober(const TrainingGraph &g, const std::string &strategy, SolveOptions o)
      : g(g), strategy(strategy), o(std::move(o)) {
    const StrategyDescriptor *d = findStrategy(strategy);
    if (d && d->budgetSearch.floor)
      floor = d->budgetSearch.floor(g, this->o);
  }

  /// Whether it meets `budget`; records a lower peak the strategy reports
  /// when it fails.
  bool operator()(int64_t budget, int64_t *leastPeak = nullptr) {
    if (budget < floor)
      return false;
    o.budget = budget;
    Solution s = solve(g, strategy, o);
    if (!s.feasible && leastPeak)
      *leastPeak = s.leastPeak;
    return s.feasible;
  }

private:
  const TrainingGraph &g;
  const std::string strategy;
  SolveOptions o;
  int64_t floor = 0;
};

/// Whether one failed solve just below the best budget so far proves that
/// `strategy` cannot improve on it.
bool isMonotone(const std::string &strategy) {
  const StrategyDescriptor *d = findStrategy(strategy);
  return d && d->budgetSearch.monotone;
}

/// Lowers search.hi to the smallest budget `strategy` meets below it
/// (search.lo: the floor, which no strategy beats): a probe at the floor,
/// where strategies that report the lowest peak they saw (lower sets) name
/// a budget close to their smallest, then bisection. With `pruneFirst`, a
/// probe just below hi comes first: most of auto's runs cannot beat the
/// best so far, and for a strategy monotone in the budget one failed solve
/// says so; the others (join's slots) are searched on, to within
/// kPastAFailedProbeShift.
void lowerWith(const TrainingGraph &g, const std::string &strategy,
               const SolveOptions &o, BudgetSearch &search, bool pruneFirst) {
  Prober feasible(g, strategy, o);
  bool failedJustBelow = false;
  if (pruneFirst && !search.close()) {
    if (feasible(search.improvement()))
      search.hi = search.improvement();
    else if (isMonotone(strategy))
      return;
    else
      failedJustBelow = true;
  }
  if (search.hi <= search.lo)
    return;
  int64_t least = -1;
  if (feasible(search.lo, &least))
    return void(search.hi = search.lo); // lo is the proven floor.
  auto at = [&](int64_t b) { return feasible(b); };
  search.tryLower(at, least);
  search.bisect(at, std::numeric_limits<int>::max(),
                failedJustBelow ? kPastAFailedProbeShift : 0);
}

/// auto meets a budget when one of its runs does: each run's smallest
/// budget, most runs settled by one failed probe below the best so far
/// (rather than every run at every step of one bisection).
void lowerWithPortfolio(const TrainingGraph &g, SolveOptions &o,
                        BudgetSearch &search, int64_t floor) {
  for (PortfolioRun &run : autoPortfolio(g, o)) {
    run.options.cache = o.cache;
    search.lo = floor; // Another run may succeed where this one failed.
    lowerWith(g, run.strategy, run.options, search, /*pruneFirst=*/true);
  }
}

/// A few short solves of `d` from the proven floor: it may succeed where
/// the others failed, but a solve at an infeasible budget runs to its time
/// limit. None on graphs where such short solves cannot succeed.
void probeBelow(const TrainingGraph &g, const StrategyDescriptor &d,
                const SolveOptions &o, BudgetSearch &search, int64_t floor) {
  const BudgetSearchRole &role = d.budgetSearch;
  if (role.probesHelp && !role.probesHelp(g))
    return;
  Prober feasible(g, d.name, role.probeOptions ? role.probeOptions(o) : o);
  search.lo = floor;
  search.bisect([&](int64_t b) { return feasible(b); }, role.probes);
}

} // namespace

int64_t minimumBudget(const TrainingGraph &g, const std::string &strategy,
                      const SolveOptions &opts, int granularityShift) {
  SolveOptions o = opts;
  o.note = nullptr;
  o.autoMILP = false; // auto's refinement: see the end.
  if (!o.cache)
    o.cache = std::make_shared<SolveCache>(); // Budget-independent work.
  const int64_t peak = simulate(g, keepEverythingSchedule(g)).peak;
  if (!Prober(g, strategy, o)(peak))
    return -1;
  if (peak == 0)
    return 0;
  // Known infeasible: below peakLowerBound().
  const int64_t floor =
      std::min(peakLowerBound(g, opts.offloadResults), peak);
  BudgetSearch search(floor, peak, granularityShift);
  const StrategyDescriptor &d = *findStrategy(strategy); // It solved.
  if (d.budgetSearch.portfolio) {
    lowerWithPortfolio(g, o, search, floor);
  } else if (d.budgetSearch.searchVia.empty()) {
    lowerWith(g, strategy, o, search, /*pruneFirst=*/false);
  } else {
    // The lowest of theirs: each lowers the best so far in turn.
    bool first = true;
    for (const std::string &via : d.budgetSearch.searchVia) {
      search.lo = floor; // Another may succeed where this one failed.
      lowerWith(g, via, o, search, /*pruneFirst=*/!first);
      first = false;
    }
  }
  // Below every other run's smallest budget auto's refinement runs as the
  // strategy itself does with auto's limits (no plan to warm-start from),
  // so the probes call it alone.
  if (d.budgetSearch.probes > 0)
    probeBelow(g, d, o, search, floor);
  else if (d.budgetSearch.portfolio)
    if (const StrategyDescriptor *r = autoRefinement(g, opts))
      probeBelow(g, *r,
                 r->autoRole.refineOptions ? r->autoRole.refineOptions(o) : o,
                 search, floor);
  return search.hi;
}

int minimumBudgetShift(const TrainingGraph &g) {
  return g.numNodes() > kExactMinimumBudgetNodes
             ? kMinimumBudgetGranularityShift
             : 0;
}

} // namespace remat
