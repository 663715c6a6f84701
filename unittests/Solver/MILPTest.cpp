//===- MILPTest.cpp - checkmate-milp against the brute-force oracle -------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/Strategy.h"
#include "remat/Solver/MILP/CheckmateMILP.h"
#include "remat/Solver/Testing/BruteForce.h"
#include "remat/Solver/Testing/ModelGraphs.h"
#include "remat/Solver/Testing/RandomGraphs.h"
#include "remat/Solver/Portfolio/MinimumBudget.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>

using namespace remat;

namespace {

int64_t noRematPeak(const TrainingGraph &g) {
  return simulate(g, keepEverythingSchedule(g)).peak;
}

/// Every budget from the proven floor to the no-remat peak, about `steps`
/// of them.
std::vector<int64_t> budgets(const TrainingGraph &g, int steps = 6) {
  const int64_t lo = peakLowerBound(g), hi = noRematPeak(g);
  std::vector<int64_t> out;
  for (int64_t b = lo; b <= hi; b += std::max<int64_t>(1, (hi - lo) / steps))
    out.push_back(b);
  return out;
}

Solution solveMILP(const TrainingGraph &g, int64_t budget, double seconds = 20) {
  SolveOptions o;
  o.budget = budget;
  o.milpSeconds = seconds;
  return solve(g, "checkmate-milp", o);
}

/// A chain-shaped training step: each forward node reads its predecessor,
/// backward nodes as autodiff makes them. Its first-computation order is
/// forced, so the MILP's fixed order restricts nothing.
TrainingGraph chainStep(uint64_t seed, int length) {
  RandomDagOptions o;
  o.skipPercent = 0;
  return randomTrainingDag(seed, length, o);
}

} // namespace

// On chains the MILP is exact: its optimum equals the brute force's at every
// budget, and it is feasible exactly where the brute force is.
TEST(MILP, EqualsBruteForceOnChains) {
  int compared = 0;
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    TrainingGraph g = chainStep(seed, 2 + seed % 3);
    for (int64_t b : budgets(g)) {
      SCOPED_TRACE("seed " + std::to_string(seed) + " budget " +
                   std::to_string(b));
      auto oracle = bruteForceOptimum(g, b, {/*allowDiscard=*/false});
      if (!oracle)
        continue;
      Solution s = solveMILP(g, b);
      ASSERT_EQ(s.feasible, oracle->feasible) << s.reason;
      if (!s.feasible)
        continue;
      EXPECT_NEAR(s.sim.time, oracle->time, 1e-9);
      EXPECT_LE(s.sim.peak, b);
      EXPECT_NEAR(s.gap, 0, 1e-6);
      EXPECT_NEAR(s.bound, s.sim.time, 1e-6 * s.sim.time);
      ++compared;
    }
  }
  EXPECT_GT(compared, 25);
}

// On DAGs with skips and branches (multi-output nodes, workspaces,
// non-recomputable ops) the fixed order may cost it the optimum, never
// validity: it never beats the brute force nor meets a budget the brute
// force cannot, every schedule is valid within budget, and its bound (valid
// within its order) is at most its time.
TEST(MILP, NeverBeatsBruteForceOnRandomDags) {
  int compared = 0, equal = 0;
  for (uint64_t seed = 1; seed <= 16; ++seed) {
    TrainingGraph g;
    if (seed % 2) {
      g = randomTrainingDag(seed, 3 + seed % 2);
    } else {
      RandomBranchyOptions o;
      o.nonRecomputablePercent = seed % 4 == 0 ? 20 : 0;
      o.maxWorkspace = seed % 3 == 0 ? 2 : 0;
      g = randomBranchyDag(seed, 3 + seed % 2, o);
    }
    for (int64_t b : budgets(g, 4)) {
      SCOPED_TRACE("seed " + std::to_string(seed) + " budget " +
                   std::to_string(b));
      auto oracle = bruteForceOptimum(g, b, {/*allowDiscard=*/false});
      if (!oracle)
        continue;
      Solution s = solveMILP(g, b);
      if (s.feasible) {
        ASSERT_TRUE(oracle->feasible) << "the MILP met a budget nothing meets";
        EXPECT_GE(s.sim.time, oracle->time - 1e-9);
        EXPECT_LE(s.sim.peak, b);
        EXPECT_LE(s.bound, s.sim.time + 1e-9);
        equal += std::abs(s.sim.time - oracle->time) < 1e-9;
      }
      compared += oracle->feasible;
    }
  }
  EXPECT_GT(compared, 30);
  // The fixed order seldom matters on such small steps (35 of 43 here).
  EXPECT_GT(equal * 10, compared * 7);
}

// Several recomputations of one value: on this step with long skips every
// lower-set plan (each value recomputed at most once) needs the no-remat
// peak, 68 B. The MILP fits into 48 B by recomputing f2 twice in the
// backward pass (for bf4 and again for bf3), which the Simulator confirms.
TEST(MILP, RecomputesAValueMoreThanOnce) {
  RandomDagOptions d;
  d.skipPercent = 80;
  d.costs.maxBytes = 8;
  TrainingGraph g = randomTrainingDag(23, 7, d);
  ASSERT_EQ(noRematPeak(g), 68);
  EXPECT_EQ(minimumBudget(g, "lowerset-exact", {}), 68);
  Solution s = solveMILP(g, 48);
  ASSERT_TRUE(s.feasible) << s.reason;
  EXPECT_LE(s.sim.peak, 48);
  std::vector<int> runs = s.schedule.runCounts(g);
  EXPECT_TRUE(std::any_of(runs.begin(), runs.end(),
                          [](int r) { return r >= 3; }));
  // auto has the MILP in its portfolio on small graphs: it meets 48 B too.
  SolveOptions o;
  o.budget = 48;
  EXPECT_TRUE(solve(g, "auto", o).feasible);
}

/// A tiny U-Net: encoder e1 -> e2 -> e3, decoder d3 -> d2 -> d1 with skips
/// e2 -> d2 and e1 -> d1 (8 B each, d1 the 1-B loss), and a backward pass
/// that reads only the loss. Without recomputation the skip sources are
/// held through the decoder: 33 B at d3 (x, e1, e2, e3, d3).
TrainingGraph tinyUNet() {
  TrainingGraph g;
  TensorId x = g.addInput("x", 1);
  auto out = [&](NodeId n) { return g.node(n).outputs[0]; };
  NodeId e1 = g.addNode("e1", NodeKind::Forward, 1, {x}, {8});
  NodeId e2 = g.addNode("e2", NodeKind::Forward, 1, {out(e1)}, {8});
  NodeId e3 = g.addNode("e3", NodeKind::Forward, 1, {out(e2)}, {8});
  NodeId d3 = g.addNode("d3", NodeKind::Forward, 1, {out(e3)}, {8});
  NodeId d2 = g.addNode("d2", NodeKind::Forward, 1, {out(d3), out(e2)}, {8});
  NodeId d1 = g.addNode("d1", NodeKind::Forward, 1, {out(d2), out(e1)}, {1});
  NodeId b1 = g.addNode("b1", NodeKind::Backward, 1, {out(d1)}, {1});
  NodeId bx = g.addNode("bx", NodeKind::Backward, 1, {out(b1)}, {1});
  g.markRequired(out(d1));
  g.markRequired(out(bx));
  return g;
}

// Forward-phase recomputation: the lower-set strategies recompute nothing
// before the backward starts, so they need the no-remat peak, 33 B. Dropping
// e1 after e2 and recomputing it right before d1 needs 25 B (the brute
// force's optimum: 9, one extra run); the MILP finds it, and so does auto.
TEST(MILP, RecomputesInTheForwardPhaseOnATinyUNet) {
  TrainingGraph g = tinyUNet();
  ASSERT_EQ(noRematPeak(g), 33);
  EXPECT_EQ(minimumBudget(g, "lowerset-exact", {}), 33);
  auto oracle = bruteForceOptimum(g, 25, {/*allowDiscard=*/false});
  ASSERT_TRUE(oracle && oracle->feasible);
  EXPECT_FALSE(bruteForceOptimum(g, 24, {false})->feasible);
  Solution s = solveMILP(g, 25);
  ASSERT_TRUE(s.feasible) << s.reason;
  EXPECT_NEAR(s.sim.time, oracle->time, 1e-9);
  // e1 runs twice before the first backward node.
  int e1Runs = 0;
  for (const Step &step : s.schedule.steps()) {
    if (!step.isRun())
      continue;
    if (!g.isForward(step.id))
      break;
    e1Runs += g.node(step.id).name == "e1";
  }
  EXPECT_EQ(e1Runs, 2);
  EXPECT_EQ(minimumBudget(g, "auto", {}), 25);
}

// The warm start is the first incumbent: the answer is never slower than it,
// even with almost no time to search.
TEST(MILP, WarmStartNeverMakesItWorse) {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    TrainingGraph g = randomTrainingDag(seed, 8);
    for (int percent : {60, 80}) {
      SolveOptions o;
      o.budget = noRematPeak(g) * percent / 100;
      Solution warm = solve(g, "lowerset-approx", o);
      if (!warm.feasible)
        continue;
      o.warmStart = std::make_shared<Schedule>(warm.schedule);
      o.milpSeconds = 0.05;
      Solution s = solve(g, "checkmate-milp", o);
      ASSERT_TRUE(s.feasible) << s.reason;
      EXPECT_LE(s.sim.time, warm.sim.time + 1e-9);
      EXPECT_LE(s.sim.peak, o.budget);
    }
  }
}

// The time limit holds on a graph CBC cannot finish quickly, and the answer
// is still a valid schedule (the warm start at worst) with a gap.
TEST(MILP, RespectsItsTimeLimit) {
  TrainingGraph g = randomTrainingDag(7, 20);
  SolveOptions o;
  o.budget = noRematPeak(g) * 55 / 100;
  auto timed = [&](double milpSeconds) {
    o.milpSeconds = milpSeconds;
    auto start = std::chrono::steady_clock::now();
    Solution s = solve(g, "checkmate-milp", o);
    return std::make_pair(s, std::chrono::duration<double>(
                                 std::chrono::steady_clock::now() - start)
                                 .count());
  };
  // What does not search (the model, the warm start) is timed on its own,
  // so that a slow machine or a sanitizer build moves both sides.
  double setUp = timed(0.01).second;
  auto [s, seconds] = timed(1);
  EXPECT_LT(seconds, 2 * setUp + 1 + 4); // 1 s of search, generous slack.
  if (s.feasible) {
    EXPECT_LE(s.sim.peak, o.budget);
    EXPECT_LE(s.bound, s.sim.time + 1e-9);
  }
}

// The formulation itself: the no-remat order with ample memory is optimal
// at the base time, and a budget below the inputs is proven infeasible.
TEST(MILP, TrivialBudgets) {
  TrainingGraph g = randomTrainingDag(3, 5);
  CheckmateOptions co;
  co.budget = noRematPeak(g); // The strategy answers this one without CBC.
  co.seconds = 20;
  std::unique_ptr<milp::Backend> cbc = milp::createCbcBackend();
  CheckmateResult ample = solveCheckmate(g, co, *cbc);
  ASSERT_TRUE(ample.schedule);
  EXPECT_EQ(ample.status, milp::Status::Optimal);
  EXPECT_NEAR(ample.time, g.baseTime(), 1e-9);
  Solution none = solveMILP(g, inputBytes(g) - 1);
  EXPECT_FALSE(none.feasible);
}

// Where the whole program fits, checkmate-milp returns it as optimal without
// building the model (CBC's root LP alone took 4.4 s on the 90-node ResNet):
// every node runs at least once in any schedule.
TEST(MILP, TheWholeProgramWhereItFits) {
  TrainingGraph g = resnetLike(60);
  SolveOptions o;
  o.budget = noRematPeak(g);
  std::vector<std::string> notes;
  o.note = [&](const std::string &n) { notes.push_back(n); };
  Solution s = solve(g, "checkmate-milp", o);
  ASSERT_TRUE(s.feasible) << s.reason;
  EXPECT_EQ(s.schedule.steps().size(),
            keepEverythingSchedule(g).steps().size());
  EXPECT_NEAR(s.sim.time, g.baseTime(), 1e-9);
  EXPECT_NEAR(s.bound, s.sim.time, 1e-9);
  EXPECT_EQ(s.gap, 0);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("whole program"), std::string::npos) << notes[0];
}

// The first-computation order of a schedule lists each node once, at its
// first run.
TEST(MILP, FirstComputationOrder) {
  TrainingGraph g = chainStep(1, 3);
  Schedule s = keepEverythingSchedule(g);
  std::vector<NodeId> order = firstComputationOrder(g, s);
  EXPECT_EQ(order, g.defaultOrder());
}
