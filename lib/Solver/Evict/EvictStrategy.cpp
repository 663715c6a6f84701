//===- EvictStrategy.cpp - evict-greedy: the best of a few replays --------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The replay's choice of what to free is a heuristic, and no single weighting
// of size against distance wins everywhere (large early activations of a
// U-Net vs. many small ones of a ResNet), so the strategy replays the program
// with up to 24 weightings (SolveOptions::evictionReplays; the one that
// wins most often on the model graphs first) and keeps the fastest schedule
// the Simulator accepts within budget. Each replay is O(runs x stored values).
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Evict/EvictStrategies.h"
#include "remat/Solver/Evict/Eviction.h"

#include <algorithm>

namespace remat {

StrategyResult bestEvictionReplay(const TrainingGraph &g,
                                  const SolveOptions &opts) {
  // The four that win most often on the model graphs first; the others
  // matter on small graphs, where replays cost microseconds and auto runs
  // them all.
  static const EvictionHeuristic kWeightings[kEvictionWeightings] = {
      {1, 3},   {1, 2},   {1, 1},   {1, 0.5}, {1, 0},   {1, 4},
      {0.5, 1}, {0.5, 2}, {0.5, 3}, {1.5, 1}, {1.5, 2}, {1.5, 3},
      {2, 1},   {2, 2},   {2, 3},   {2, 4},   {0.5, 0}, {1.5, 0},
      {0, 1},   {0, 2},   {3, 2},   {3, 4},   {1, 6},   {2, 6}};
  const std::vector<NodeId> targets = g.defaultOrder();
  StrategyResult best;
  // The replay keeps values for recomputations as long as memory allows, so
  // it may recompute where the program itself fits: nothing beats that.
  Schedule program = keepEverythingSchedule(g);
  SimulationResult bestSim = simulate(g, program);
  if (bestSim.valid && bestSim.peak <= opts.budget) {
    best.feasible = true;
    best.schedule = std::move(program);
    return best;
  }
  std::string why;
  const int replays =
      std::clamp(opts.evictionReplays, 1, kEvictionWeightings);
  Schedule scratch; // The failed replays' storage, reused.
  for (int i = 0; i < replays; ++i) {
    const EvictionHeuristic &h = kWeightings[i];
    EvictionPlan plan = planByEviction(g, targets, opts.budget, h, &scratch);
    if (!plan.schedule) {
      why = plan.reason;
      continue;
    }
    SimulationResult sim = simulate(g, *plan.schedule);
    if (!sim.valid || sim.peak > opts.budget)
      continue; // solve() would reject it; another weighting may do better.
    if (best.feasible && sim.time >= bestSim.time)
      continue;
    best.feasible = true;
    best.schedule = std::move(*plan.schedule);
    bestSim = sim;
  }
  if (!best.feasible) {
    best.reason = why.empty() ? "no replay stays within the budget" : why;
    return best;
  }
  // What runs frees each value after its last read.
  best.schedule = best.schedule.withEagerFrees(g);
  return best;
}

StrategyResult solveEvictGreedy(const TrainingGraph &g,
                                const SolveOptions &opts) {
  StrategyResult r = bestEvictionReplay(g, opts);
  // Freeing eagerly leaves memory that some recomputations do not need.
  if (r.feasible)
    r.schedule = giveBackRecomputations(g, r.schedule, opts.budget);
  return r;
}

} // namespace remat
