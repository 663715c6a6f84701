//===- ChenTest.cpp - chen-sqrt and chen-greedy ---------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/Testing/BruteForce.h"
#include "remat/Solver/Testing/ModelGraphs.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/Strategy.h"
#include "remat/Solver/Portfolio/MinimumBudget.h"

#include <gtest/gtest.h>

using namespace remat;

namespace {

/// x -> f1 -> ... -> fn -> loss, every value 10 bytes, every op time 1;
/// with `skip`, f1's output also feeds fn.
TrainingGraph chain(int n, bool skip = false) {
  ForwardGraphBuilder b;
  TensorId h = b.input("x", 10, false);
  TensorId w = b.input("w", 1, true);
  TensorId first = kNone;
  for (int i = 1; i <= n; ++i) {
    std::vector<TensorId> in{h};
    if (i == 1)
      in.push_back(w);
    if (skip && i == n)
      in.push_back(first);
    h = b.value("f" + std::to_string(i), "op", 1, in, 10);
    if (i == 1)
      first = h;
  }
  return b.build(b.value("loss", "op", 1, {h}, 1));
}

std::vector<int> forwardRuns(const TrainingGraph &g, const Schedule &s) {
  std::vector<int> runs = s.runCounts(g), out;
  for (NodeId n = 0; n < g.numNodes(); ++n)
    if (g.isForward(n))
      out.push_back(runs[n]);
  return out;
}

// 16 layers: every f_i is an articulation point, sqrt(17) ~ 4 segments of 4
// layers. The first three segments are recomputed except their cut value:
// 3 x 3 extra runs; the last segment is still live when the backward starts.
TEST(Chen, SqrtOnAChainCutsFourSegments) {
  TrainingGraph g = chain(16);
  Solution s = solve(g, "chen-sqrt", SolveOptions{});
  ASSERT_TRUE(s.feasible) << s.reason;
  EXPECT_DOUBLE_EQ(s.sim.time, g.baseTime() + 9);
  std::vector<int> runs = forwardRuns(g, s.schedule);
  for (int i : {3, 7, 11}) // f4, f8, f12: the cuts, kept.
    EXPECT_EQ(runs[i], 1) << "f" << i + 1;
  for (int i : {0, 1, 2, 4, 5, 6, 8, 9, 10})
    EXPECT_EQ(runs[i], 2) << "f" << i + 1;
  for (int i = 12; i <= 16; ++i)
    EXPECT_EQ(runs[i], 1) << "f" << i + 1;
  SimulationResult none = simulate(g, keepEverythingSchedule(g));
  EXPECT_LT(s.sim.peak, none.peak);
}

// A skip from f1 to f16 leaves f1 and f16 as the only articulation points:
// f2..f15 cannot be separated from f1's value. Half the memory lies before
// f16, so sqrt(3) ~ 2 segments cut there and recompute f1..f15.
TEST(Chen, SkipLeavesTwoCandidates) {
  TrainingGraph g = chain(16, /*skip=*/true);
  Solution s = solve(g, "chen-sqrt", SolveOptions{});
  ASSERT_TRUE(s.feasible) << s.reason;
  std::vector<int> runs = forwardRuns(g, s.schedule);
  for (int i = 0; i < 15; ++i)
    EXPECT_EQ(runs[i], 2) << "f" << i + 1;
  EXPECT_EQ(runs[15], 1);
  EXPECT_EQ(runs[16], 1); // The loss.
}

TEST(Chen, GreedyFitsTheBudgetAndIsNoBetterThanBruteForce) {
  TrainingGraph small = chain(5);
  SimulationResult none = simulate(small, keepEverythingSchedule(small));
  int fitted = 0;
  for (int64_t b = inputBytes(small); b <= none.peak; ++b) {
    SolveOptions o;
    o.budget = b;
    Solution s = solve(small, "chen-greedy", o);
    if (!s.feasible)
      continue;
    ++fitted;
    EXPECT_LE(s.sim.peak, b);
    BruteForceOptions bo;
    bo.allowDiscard = false;
    auto brute = bruteForceOptimum(small, b, bo);
    ASSERT_TRUE(brute && brute->feasible);
    EXPECT_LE(brute->time, s.sim.time);
  }
  EXPECT_GT(fitted, 3);
  // With room for everything, greedy's largest threshold cuts nothing.
  SolveOptions o;
  o.budget = none.peak;
  EXPECT_DOUBLE_EQ(solve(small, "chen-greedy", o).sim.time,
                   small.baseTime());
}

// Greedy tries many thresholds and keeps the fastest that fits: on a long
// chain its smallest budget is no higher than the sqrt plan's peak.
TEST(Chen, GreedyReachesTheSqrtPeak) {
  for (int n : {9, 16, 30, 64}) {
    TrainingGraph g = chain(n);
    Solution sq = solve(g, "chen-sqrt", SolveOptions{});
    ASSERT_TRUE(sq.feasible);
    int64_t greedy = minimumBudget(g, "chen-greedy", SolveOptions{});
    ASSERT_GT(greedy, 0);
    EXPECT_LE(greedy, sq.sim.peak) << n;
  }
}

TEST(Chen, ValidOnModelGraphs) {
  for (const TrainingGraph &g :
       {googlenetLike(300), resnetLike(300), unetLike(300)}) {
    for (const char *name : {"chen-sqrt", "chen-greedy"}) {
      Solution s = solve(g, name, SolveOptions{});
      EXPECT_TRUE(s.feasible) << name << ": " << s.reason;
      SimulationResult none = simulate(g, keepEverythingSchedule(g));
      EXPECT_LE(s.sim.peak, none.peak) << name;
    }
  }
}

} // namespace
