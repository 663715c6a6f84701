//===- EvictLadder.cpp - evict-ladder: greedy plans monotone in the budget ===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// evict-greedy frees what the exact budget forces it to, so a larger budget
// can give a slower plan, or one that peaks lower than the plan at a smaller
// budget (docs/solver.md). A caller that sweeps budgets (a framework's
// memory knob) wants neither. evict-ladder plans from a family fixed per
// graph: evict-greedy's plans at each rung of a ladder of budgets that
// starts at the program's own peak and steps down by 1/64 (closer near the
// top) until a rung is not met, before and after recomputations are given
// back (the one peaks lowest, the other is faster).
// At a budget it returns the fastest plan of the family whose Simulator peak
// fits (ties: the lower peak). The family does not depend on the budget, so
// as the budget grows the set that fits only grows: the time never rises,
// and the peak never falls (a plan at a larger budget that peaked lower
// would have fit the smaller one and been chosen there).
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Evict/EvictStrategies.h"
#include "remat/Solver/Evict/Eviction.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <tuple>

namespace remat {

namespace {

/// A rung every 1/2^kRungShift of the rung above: a budget between two
/// rungs costs at most that much memory against evict-greedy at the budget
/// itself (1.6 %), and the ladder from a peak to half of it has 44 rungs.
constexpr int kRungShift = 6;
/// Near the top a step of 1/64 frees several times what a budget needs (on
/// Llama's step under Inductor a budget 2.1 % under the peak got a plan
/// freeing 3.3 %, and the rewritten step ran that much more recomputation):
/// there rungs are added, the first 1/2^kFineRungShift of the peak below
/// it, each next one freeing 3/2 of what the one above frees, down to the
/// second rung of 1/64s. The coarse rungs stay: the family only grows, so
/// no budget gets a slower plan than without them. 9 rungs more.
constexpr int kFineRungShift = 10;

struct LadderPlan {
  Schedule schedule;
  double time = 0;
  int64_t peak = 0;
};
using Ladder = std::vector<LadderPlan>;

/// The program itself, then evict-greedy's plans at each rung (with the
/// caller's weightings, evictionReplays, the only option it depends on).
Ladder climbDown(const TrainingGraph &g, const SolveOptions &opts) {
  SimulatorOptions simOpts;
  simOpts.link = opts.link;
  Ladder ladder;
  Schedule program = keepEverythingSchedule(g);
  SimulationResult top = simulate(g, program, simOpts);
  ladder.push_back({std::move(program), top.time, top.peak});
  const int64_t floor = peakLowerBound(g);
  SolveOptions o = opts;
  o.note = nullptr;
  for (int64_t rung : ladderRungs(top.peak, floor)) {
    o.budget = rung;
    StrategyResult r = bestEvictionReplay(g, o);
    if (!r.feasible)
      break; // The bottom of the ladder.
    // With eager frees the replay's plan often peaks well below the rung:
    // the family keeps it (its peak may be the floor) and, the faster, the
    // plan with the recomputations the rung does not need given back.
    SimulationResult sim = simulate(g, r.schedule, simOpts);
    if (!sim.valid || sim.peak > rung)
      break; // solve() would refuse it: the same bottom.
    Schedule fuller = giveBackRecomputations(g, r.schedule, rung, simOpts);
    ladder.push_back({std::move(r.schedule), sim.time, sim.peak});
    if (fuller == ladder.back().schedule)
      continue;
    SimulationResult fullerSim = simulate(g, fuller, simOpts);
    if (fullerSim.valid && fullerSim.peak <= rung)
      ladder.push_back({std::move(fuller), fullerSim.time, fullerSim.peak});
  }
  return ladder;
}

/// The ladder of `g`, from the solves' cache when minimumBudget() shares
/// one (the ladder does not depend on the budget).
std::shared_ptr<const Ladder> ladderOf(const TrainingGraph &g,
                                       const SolveOptions &opts) {
  return cachedOrMade<Ladder>(
      opts.cache, "evict-ladder/" + std::to_string(opts.evictionReplays),
      [&] { return climbDown(g, opts); });
}

} // namespace

std::vector<int64_t> ladderRungs(int64_t top, int64_t floor) {
  std::vector<int64_t> rungs;
  for (int64_t rung = top - std::max<int64_t>(1, top >> kRungShift);
       rung >= floor && rung > 0;
       rung -= std::max<int64_t>(1, rung >> kRungShift))
    rungs.push_back(rung);
  const int64_t fineEnd = rungs.size() > 1 ? rungs[1] : floor;
  for (int64_t freed = std::max<int64_t>(1, top >> kFineRungShift);
       top - freed > fineEnd && top - freed >= floor && top - freed > 0;
       freed += std::max<int64_t>(1, freed / 2))
    rungs.push_back(top - freed);
  std::sort(rungs.begin(), rungs.end(), std::greater<int64_t>());
  rungs.erase(std::unique(rungs.begin(), rungs.end()), rungs.end());
  return rungs;
}

StrategyResult solveEvictLadder(const TrainingGraph &g,
                                const SolveOptions &opts) {
  std::shared_ptr<const Ladder> ladder = ladderOf(g, opts);
  const LadderPlan *best = nullptr;
  int64_t leastPeak = -1;
  for (const LadderPlan &p : *ladder) {
    if (leastPeak < 0 || p.peak < leastPeak)
      leastPeak = p.peak;
    if (p.peak > opts.budget)
      continue;
    if (!best || std::tie(p.time, p.peak) < std::tie(best->time, best->peak))
      best = &p;
  }
  StrategyResult r;
  if (!best) {
    r.leastPeak = leastPeak;
    r.reason = "no plan of the ladder fits: the lowest peaks at " +
               std::to_string(leastPeak) + " bytes";
    return r;
  }
  r.feasible = true;
  r.schedule = best->schedule;
  return r;
}

int64_t evictLadderFloor(const TrainingGraph &g, const SolveOptions &opts) {
  std::shared_ptr<const Ladder> ladder = ladderOf(g, opts);
  int64_t least = ladder->front().peak;
  for (const LadderPlan &p : *ladder)
    least = std::min(least, p.peak);
  return least;
}

} // namespace remat
