//===- OffloadStrategies.cpp - offload-greedy ------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/Offload/OffloadStrategies.h"

#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Evict/EvictStrategies.h"
#include "remat/Solver/Offload/CopyInsteadOfRecompute.h"
#include "remat/Solver/Offload/OffloadPlanner.h"
#include "remat/Solver/Offload/PolishCopies.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace remat {

namespace {

/// evict-greedy's plans are made at the budget times these: a recompute
/// plan a little above the budget leaves the offloads less to do.
constexpr double kBaseBudgetFactors[] = {1.0, 1.1, 1.25, 1.5, 2.0, 3.0};

double estimate(const GraphMeasures &m, const SolveOptions &o) {
  // Six evict-greedy runs, then per base a simulation per candidate tried.
  double evict = std::max(1, o.evictionReplays) *
                 (2.5e-9 * m.n * m.n + m.linearCost());
  return 6 * evict + 7 * 1e-7 * m.n * m.n;
}

} // namespace

std::vector<Schedule> offloadGreedyBases(const TrainingGraph &g,
                                         const SolveOptions &opts,
                                         int64_t programPeak) {
  std::vector<Schedule> bases{keepEverythingSchedule(g)};
  for (double f : kBaseBudgetFactors) {
    double b = std::floor(static_cast<double>(opts.budget) * f);
    if (b >= static_cast<double>(programPeak))
      break;
    SolveOptions o = opts;
    o.budget = static_cast<int64_t>(b);
    o.note = nullptr;
    StrategyResult r = solveEvictGreedy(g, o);
    if (r.feasible &&
        std::find(bases.begin(), bases.end(), r.schedule) == bases.end())
      bases.push_back(std::move(r.schedule));
  }
  return bases;
}

StrategyResult solveOffloadGreedy(const TrainingGraph &g,
                                  const SolveOptions &opts) {
  StrategyResult res;
  if (!opts.link.usable()) {
    res.reason = "offload-greedy needs a copy link with positive bandwidths "
                 "and a non-negative latency";
    return res;
  }
  SimulatorOptions so;
  so.link = opts.link;
  Schedule program = keepEverythingSchedule(g);
  SimulationResult programSim = simulate(g, program, so);
  if (!programSim.valid) {
    res.reason = "the program itself is not a valid schedule: " +
                 programSim.error;
    return res;
  }
  if (programSim.peak <= opts.budget) {
    res.feasible = true;
    res.schedule = std::move(program);
    return res;
  }
  OffloadPlanOptions po;
  po.budget = opts.budget;
  po.link = opts.link;
  po.offloadResults = opts.offloadResults;
  po.hostBudget = opts.hostBudget;
  bool found = false;
  double bestTime = 0;
  int64_t bestPeak = 0, leastPeak = -1;
  // Copies to meet the budget, then copies (or keeping) instead of
  // recomputations where the Simulator finds the plan faster.
  auto plan = [&](const Schedule &base, const OffloadPlanOptions &meet) {
    Schedule plan =
        copyInsteadOfRecompute(g, offloadUntilBudget(g, base, meet), po);
    SimulationResult sim = simulate(g, plan, so);
    if (!sim.valid)
      return; // Never returned; both passes keep valid plans.
    if (leastPeak < 0 || sim.peak < leastPeak)
      leastPeak = sim.peak;
    if (sim.peak > opts.budget || sim.hostPeak > opts.hostBudget)
      return;
    if (!found || sim.time < bestTime ||
        (sim.time == bestTime && sim.peak < bestPeak)) {
      found = true;
      bestTime = sim.time;
      bestPeak = sim.peak;
      res.schedule = std::move(plan);
    }
  };
  const std::vector<Schedule> bases =
      offloadGreedyBases(g, opts, programSim.peak);
  for (const Schedule &base : bases) {
    // Every node once and nothing stalling (the program's time) is the
    // least any plan takes: no other base can beat it.
    if (found && bestTime <= programSim.time)
      break;
    plan(base, po);
  }
  // Then copies that stall, where they make a plan faster than the best so
  // far (a prefetch's wait also lets an offload end before the run that
  // waits), or meet the budget at all.
  for (const Schedule &base : bases) {
    if (found && bestTime <= programSim.time)
      break;
    OffloadPlanOptions stalling = po;
    stalling.stallBelow =
        found ? bestTime : std::numeric_limits<double>::infinity();
    plan(base, stalling);
  }
  // Then, where nothing met the budget, copies to the host that block what
  // runs after them (the rule's plans then hold no copy in flight), as
  // awaits on the overlapping link; the polish drops the awaits the plan
  // does not need.
  OffloadPlanOptions blocking = po;
  blocking.link.offloadsBlock = true;
  blocking.stallBelow = std::numeric_limits<double>::infinity();
  for (size_t b = 0; b < bases.size() && !found; ++b) {
    Schedule s = offloadUntilBudget(g, bases[b], blocking);
    s = copyInsteadOfRecompute(g, s, blocking);
    plan(awaitEveryOffload(s), po);
  }
  if (!found) {
    res.reason = "no plan of keep, recompute (evict-greedy) and offloads "
                 "meets the budget";
    res.leastPeak = leastPeak;
    return res;
  }
  // The fastest plan's copies moved where that is faster still (the
  // winner only: polishing every base's plan doubled the time on large
  // steps for no plan more found).
  res.schedule = polishCopies(g, res.schedule, po);
  res.feasible = true;
  return res;
}

void registerOffloadStrategies(StrategyRegistry &registry) {
  StrategyDescriptor d;
  d.name = "offload-greedy";
  d.description = "keep, recompute (evict-greedy) or offload to the host: "
                  "the largest tensors at the peak whose copies the compute "
                  "in between hides (XLA's rule); not run by auto";
  d.run = solveOffloadGreedy;
  d.rank = 145;
  d.estimate = estimate;
  d.plansHostCopies = true;
  registry.add(std::move(d));
}

} // namespace remat
