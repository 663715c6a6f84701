//===- EvictionTest.cpp - evict-greedy against the Simulator and oracles --===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/Strategy.h"
#include "remat/Solver/Evict/Eviction.h"
#include "remat/Solver/Testing/BruteForce.h"
#include "remat/Solver/Testing/ModelGraphs.h"
#include "remat/Solver/Testing/RandomGraphs.h"
#include "remat/Solver/Portfolio/MinimumBudget.h"

#include <gtest/gtest.h>

using namespace remat;

namespace {

int64_t noRematPeak(const TrainingGraph &g) {
  return simulate(g, keepEverythingSchedule(g)).peak;
}

/// Random steps of every kind the replay must handle: skips, two-output
/// nodes, nodes that must run once, workspaces.
std::vector<TrainingGraph> randomSteps() {
  std::vector<TrainingGraph> out;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    out.push_back(randomTrainingDag(seed, 6 + seed % 5));
    RandomBranchyOptions b;
    b.twoOutputPercent = 30;
    b.nonRecomputablePercent = 15;
    b.maxWorkspace = 3;
    out.push_back(randomBranchyDag(seed, 5 + seed % 4, b));
  }
  return out;
}

/// Did a forward node run a second time before the first backward node?
bool recomputesInForwardPhase(const TrainingGraph &g, const Schedule &s) {
  std::vector<int> runs(g.numNodes(), 0);
  for (const Step &step : s.steps()) {
    if (!step.isRun())
      continue;
    if (!g.isForward(step.id))
      return false;
    if (++runs[step.id] == 2)
      return true;
  }
  return false;
}

} // namespace

// Every plan is valid and within budget, at every budget from the proven
// floor to the no-remat peak; and it does meet budgets below the peak.
TEST(Eviction, ValidAndWithinBudgetOnRandomSteps) {
  int below = 0;
  for (const TrainingGraph &g : randomSteps()) {
    const int64_t lo = peakLowerBound(g), hi = noRematPeak(g);
    for (int64_t b = lo; b <= hi; ++b) {
      for (EvictionHeuristic h : {EvictionHeuristic{1, 2},
                                  EvictionHeuristic{1, 0.5}}) {
        EvictionPlan p = planByEviction(g, g.defaultOrder(), b, h);
        if (!p.schedule) {
          EXPECT_FALSE(p.reason.empty());
          continue;
        }
        SimulationResult sim = simulate(g, *p.schedule);
        ASSERT_TRUE(sim.valid) << sim.error << "\n"
                               << p.schedule->str(g);
        EXPECT_LE(sim.peak, b);
        below += b < hi;
      }
    }
  }
  EXPECT_GT(below, 50);
}

// With memory to spare nothing is recomputed; at the no-remat peak the
// strategy returns the program itself.
TEST(Eviction, AmpleBudgetRecomputesNothing) {
  for (const TrainingGraph &g : randomSteps()) {
    EvictionPlan p = planByEviction(g, g.defaultOrder(), kUnlimitedBudget);
    ASSERT_TRUE(p.schedule.has_value()) << p.reason;
    EXPECT_EQ(simulate(g, *p.schedule).time, g.baseTime());
    SolveOptions o;
    o.budget = noRematPeak(g);
    Solution s = solve(g, "evict-greedy", o);
    ASSERT_TRUE(s.feasible) << s.reason;
    EXPECT_EQ(s.sim.time, g.baseTime());
  }
  TrainingGraph unet = unetLike(40);
  SolveOptions o;
  o.budget = noRematPeak(unet);
  EXPECT_EQ(solve(unet, "evict-greedy", o).sim.time, unet.baseTime());
}

// The brute force searches every schedule: evict-greedy is never faster than
// its optimum, and never feasible where it proves that nothing is.
TEST(Eviction, NeverBeatsTheBruteForce) {
  int compared = 0, equal = 0;
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    TrainingGraph g = randomTrainingDag(seed, 3 + seed % 3);
    for (int64_t b = peakLowerBound(g); b <= noRematPeak(g); ++b) {
      auto oracle = bruteForceOptimum(g, b, {/*allowDiscard=*/false});
      if (!oracle)
        continue;
      SolveOptions o;
      o.budget = b;
      Solution s = solve(g, "evict-greedy", o);
      if (!oracle->feasible) {
        EXPECT_FALSE(s.feasible) << "budget " << b;
        continue;
      }
      if (!s.feasible)
        continue;
      ++compared;
      EXPECT_GE(s.sim.time, oracle->time - 1e-9);
      equal += s.sim.time <= oracle->time + 1e-9;
    }
  }
  EXPECT_GT(compared, 20);
  EXPECT_GT(equal, compared / 2); // A heuristic, but mostly optimal here.
}

// On the U-Net-like step evict-greedy meets budgets far below the lower-set
// plans' floor, close to the proven one; at 40 % of the no-remat peak it
// frees skip sources during the forward pass and recomputes them there,
// which no lower-set plan can.
TEST(Eviction, BeatsLowerSetsOnAUNetAndRecomputesInTheForwardPhase) {
  TrainingGraph g = unetLike(80);
  SolveOptions o;
  int64_t lowerSets = minimumBudget(g, "lowerset-exact", o);
  int64_t evict = minimumBudget(g, "evict-greedy", o);
  ASSERT_GT(evict, 0);
  EXPECT_LT(evict, lowerSets * 3 / 4);
  EXPECT_LE(evict, peakLowerBound(g) * 21 / 20);
  // auto keeps the best of its portfolio: at least as low.
  EXPECT_LE(minimumBudget(g, "auto", o), evict);

  o.budget = noRematPeak(g) * 4 / 10;
  ASSERT_LT(o.budget, lowerSets);
  Solution s = solve(g, "evict-greedy", o);
  ASSERT_TRUE(s.feasible) << s.reason;
  EXPECT_TRUE(recomputesInForwardPhase(g, s.schedule));
}

// Long freed chains are walked without recursion: a 3,000-node chain at a
// budget that keeps only a few values.
TEST(Eviction, DeepChainsAtSmallBudgets) {
  RandomDagOptions ro;
  ro.skipPercent = 0;
  TrainingGraph g = randomTrainingDag(7, 1500, ro);
  const int64_t hi = noRematPeak(g);
  EvictionPlan p = planByEviction(g, g.defaultOrder(), hi / 8);
  ASSERT_TRUE(p.schedule.has_value()) << p.reason;
  SimulationResult sim = simulate(g, *p.schedule);
  ASSERT_TRUE(sim.valid) << sim.error;
  EXPECT_LE(sim.peak, hi / 8);
  EXPECT_GT(sim.time, g.baseTime());
}

// Below what any run of a node needs, the replay says so.
TEST(Eviction, RefusesBudgetsBelowOneStep) {
  TrainingGraph g = randomTrainingDag(3, 6);
  EvictionPlan p = planByEviction(g, g.defaultOrder(), peakLowerBound(g) - 1);
  EXPECT_FALSE(p.schedule.has_value());
  EXPECT_FALSE(p.reason.empty());
}
