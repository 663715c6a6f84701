//===- MILPOffloadTest.cpp - checkmate-milp-offload -----------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/Strategy.h"
#include "remat/Solver/MILP/CheckmateMILP.h"
#include "remat/Solver/Testing/ModelGraphs.h"
#include "remat/Solver/Testing/OffloadOracle.h"
#include "remat/Solver/Testing/RandomGraphs.h"

#include "GradientFirst.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

using namespace remat;

namespace {

CopyLink linkOf(double bytesPerTime, double latency = 0) {
  CopyLink l;
  l.toHostBytesPerTime = l.toDeviceBytesPerTime = bytesPerTime;
  l.latency = latency;
  return l;
}

Solution solveWith(const TrainingGraph &g, const std::string &strategy,
                   int64_t budget, const CopyLink &link) {
  SolveOptions o;
  o.budget = budget;
  o.link = link;
  o.milpSeconds = 20;
  return solve(g, strategy, o);
}

/// The model alone (no fallback), in the default order.
CheckmateResult modelAlone(const TrainingGraph &g, int64_t budget,
                           const CopyLink &link) {
  CheckmateOptions co;
  co.budget = budget;
  co.link = &link;
  co.seconds = 20;
  std::unique_ptr<milp::Backend> cbc = milp::createCbcBackend();
  return solveCheckmate(g, co, *cbc);
}

// f1 makes a (100 B, 200 units) that only bw reads again at the end; f4
// holds c + d (110 B). Every plan without offload that keeps a holds a + c +
// d = 210 during f4. When f1 runs once (randomness) that is the recompute
// floor; when it may run again, dropping a and recomputing f1 before bw
// meets 120 B but costs f1's 200 units. With 10 B per unit, a's copies take
// 10 units each: offloaded at the boundary after f2, a leaves during f3
// (10 units: a + b + c = 120 B held), gone before f4; prefetched at the
// boundary before f6 (50 units: a + e + f = 120 B), back before bw. So 120 B
// is met with every node run once (480 units) and nothing below it: f3
// holds a while it leaves.
struct ExpensiveActivation {
  TrainingGraph g;
  TensorId a;
  explicit ExpensiveActivation(bool recomputable) {
    TensorId x = g.addInput("x", 0);
    NodeId f1 = g.addNode("f1", NodeKind::Forward, 200, {x}, {100});
    g.node(f1).recomputable = recomputable;
    a = g.node(f1).outputs[0];
    TensorId prev = a;
    const double times[] = {10, 10, 100, 100, 50};
    const int64_t sizes[] = {10, 10, 100, 10, 10};
    for (int i = 0; i < 5; ++i) {
      NodeId f = g.addNode("f" + std::to_string(i + 2), NodeKind::Forward,
                           times[i], {prev}, {sizes[i]});
      prev = g.node(f).outputs[0];
    }
    NodeId bw = g.addNode("bw", NodeKind::Backward, 10, {a, prev}, {1});
    g.markRequired(g.node(bw).outputs[0]);
  }
};

TEST(MILPOffload, MeetsABudgetBelowTheRecomputeFloor) {
  ExpensiveActivation p(/*recomputable=*/false);
  const CopyLink link = linkOf(10);
  EXPECT_TRUE(solveWith(p.g, "checkmate-milp", 210, link).feasible);
  EXPECT_FALSE(solveWith(p.g, "checkmate-milp", 209, link).feasible);

  CheckmateResult m = modelAlone(p.g, 120, link);
  ASSERT_TRUE(m.schedule);
  EXPECT_EQ(m.status, milp::Status::Optimal);
  EXPECT_DOUBLE_EQ(m.time, 480);
  SimulatorOptions so;
  so.link = link;
  SimulationResult sim = simulate(p.g, *m.schedule, so);
  ASSERT_EQ(sim.hostCopies.size(), 1u);
  EXPECT_EQ(sim.hostCopies[0].tensor, p.a);
  EXPECT_TRUE(sim.hostCopies[0].hidden);
  EXPECT_EQ(sim.peak, 120);

  Solution s = solveWith(p.g, "checkmate-milp-offload", 120, link);
  ASSERT_TRUE(s.feasible) << s.reason;
  EXPECT_DOUBLE_EQ(s.sim.time, 480);
  // Below 120 only a plan in which f3 waits for a's copy to end fits: the
  // model has no such waits (it proves nothing of its own fits), the
  // strategy returns offload-greedy's.
  CheckmateResult below = modelAlone(p.g, 119, link);
  EXPECT_EQ(below.status, milp::Status::Infeasible);
  Solution awaited = solveWith(p.g, "checkmate-milp-offload", 119, link);
  ASSERT_TRUE(awaited.feasible) << awaited.reason;
  EXPECT_LE(awaited.sim.peak, 119);
  ASSERT_EQ(awaited.sim.hostCopies.size(), 1u);
  EXPECT_TRUE(awaited.sim.hostCopies[0].awaited);
  // Too slow a link (f3's 10 units hide no 100 B copy at 5 B per unit):
  // nothing below 210 B.
  EXPECT_FALSE(modelAlone(p.g, 209, linkOf(5)).schedule);
}

// The host holds a (100 B) while it is away: a host budget of 99 B leaves
// no plan at 120 B where f1 runs once (proven by the model, and no
// candidate of the strategy holds less); 100 B leaves the copy's. Where f1
// may run again, 99 B gives recompute's plan (200 units slower).
TEST(MILPOffload, KeepsTheHostWithinItsBudget) {
  const CopyLink link = linkOf(10);
  ExpensiveActivation pinned(/*recomputable=*/false);
  CheckmateOptions co;
  co.budget = 120;
  co.link = &link;
  co.seconds = 20;
  co.hostBudget = 99;
  std::unique_ptr<milp::Backend> cbc = milp::createCbcBackend();
  CheckmateResult m = solveCheckmate(pinned.g, co, *cbc);
  EXPECT_FALSE(m.schedule);
  EXPECT_EQ(m.status, milp::Status::Infeasible);
  co.hostBudget = 100;
  m = solveCheckmate(pinned.g, co, *cbc);
  ASSERT_TRUE(m.schedule);
  EXPECT_DOUBLE_EQ(m.time, 480);

  SolveOptions o;
  o.budget = 120;
  o.link = link;
  o.milpSeconds = 20;
  o.hostBudget = 99;
  Solution s = solve(pinned.g, "checkmate-milp-offload", o);
  EXPECT_FALSE(s.feasible);
  o.hostBudget = 100;
  s = solve(pinned.g, "checkmate-milp-offload", o);
  ASSERT_TRUE(s.feasible) << s.reason;
  EXPECT_EQ(s.sim.hostPeak, 100);

  ExpensiveActivation free(/*recomputable=*/true);
  o.hostBudget = 99;
  s = solve(free.g, "checkmate-milp-offload", o);
  ASSERT_TRUE(s.feasible) << s.reason;
  EXPECT_EQ(s.sim.hostPeak, 0);
  EXPECT_DOUBLE_EQ(s.sim.time, 680);
}

// GradientFirst: kept on the device, g1 is live through bw2 (410 B);
// returned from the host (offloaded after bw1, 10 units at 10 B per unit,
// hidden by mid's 20) the step holds bw2's 310 B at the program's 50 units.
// The oracle agrees (OffloadPlannerTest); the model finds it alone, and
// only with results allowed to leave.
TEST(MILPOffload, ReturnsResultsFromTheHostOnlyWhenAllowed) {
  GradientFirst p;
  const CopyLink link = linkOf(10);
  CheckmateOptions co;
  co.budget = 310;
  co.link = &link;
  co.seconds = 20;
  std::unique_ptr<milp::Backend> cbc = milp::createCbcBackend();
  CheckmateResult m = solveCheckmate(p.g, co, *cbc);
  EXPECT_FALSE(m.schedule);
  co.resultsMayLeave = true;
  m = solveCheckmate(p.g, co, *cbc);
  ASSERT_TRUE(m.schedule);
  EXPECT_EQ(m.status, milp::Status::Optimal);
  EXPECT_DOUBLE_EQ(m.time, 50);
  SimulatorOptions so;
  so.link = link;
  SimulationResult sim = simulate(p.g, *m.schedule, so);
  ASSERT_TRUE(sim.valid) << sim.error;
  EXPECT_EQ(sim.peak, 310);
  ASSERT_EQ(sim.hostCopies.size(), 1u);
  EXPECT_EQ(sim.hostCopies[0].tensor, p.g1);
  EXPECT_EQ(sim.hostCopies[0].prefetchStep, -1);
  co.budget = 309; // bw2 alone holds 310.
  EXPECT_FALSE(solveCheckmate(p.g, co, *cbc).schedule);

  SolveOptions o;
  o.budget = 310;
  o.link = link;
  o.milpSeconds = 20;
  EXPECT_FALSE(solve(p.g, "checkmate-milp-offload", o).feasible);
  o.offloadResults = true;
  Solution s = solve(p.g, "checkmate-milp-offload", o);
  ASSERT_TRUE(s.feasible) << s.reason;
  EXPECT_DOUBLE_EQ(s.sim.time, 50);
}

// Where f1 may run again, 120 B is met by recompute alone, 200 units
// slower than by the copy.
TEST(MILPOffload, CopiesWhereACopyIsCheaperThanARecomputation) {
  ExpensiveActivation p(/*recomputable=*/true);
  const CopyLink link = linkOf(10);
  Solution recompute = solveWith(p.g, "checkmate-milp", 120, link);
  ASSERT_TRUE(recompute.feasible) << recompute.reason;
  EXPECT_DOUBLE_EQ(recompute.sim.time, 680);
  Solution s = solveWith(p.g, "checkmate-milp-offload", 120, link);
  ASSERT_TRUE(s.feasible) << s.reason;
  EXPECT_DOUBLE_EQ(s.sim.time, 480);
  EXPECT_TRUE(s.schedule.hasCopies());
}

int64_t programPeak(const TrainingGraph &g) {
  return simulate(g, keepEverythingSchedule(g)).peak;
}

/// `s` without its Await steps (the MILP's model has none).
Schedule withoutAwaits(const Schedule &s) {
  std::vector<Step> steps;
  for (const Step &st : s.steps())
    if (!st.isAwait())
      steps.push_back(st);
  return Schedule(std::move(steps));
}

/// The oracle's best time within `budget` on its frontier, -1 for none.
double oracleWithin(const std::vector<std::pair<int64_t, double>> &front,
                    int64_t budget) {
  double best = -1;
  for (const auto &p : front)
    if (p.first <= budget)
      best = p.second;
  return best;
}

// On tiny random steps at every budget from the proven floor to the
// program's peak: every plan is valid within budget, never slower than the
// recompute-only MILP's, and as fast as the oracle's optimum over the same
// run orders (the program, its recompute variants, and the plan's own runs)
// with every choice of offloads. The model alone (no fallback) reaches it
// too: on these steps its stage boundaries (copies issued before a stage's
// first run) lose nothing to the oracle's positions between any two runs.
TEST(MILPOffload, MatchesTheOracleOnTinySteps) {
  RandomDagOptions dag;
  dag.costs.maxBytes = 8;
  dag.costs.maxTime = 20;
  const CopyLink link = linkOf(4); // An 8 B copy takes 2 units.
  int compared = 0, equal = 0, belowFloor = 0, modelFaster = 0, skipped = 0,
      modelEqual = 0, awaitedOnly = 0;
  double worst = 0;
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    TrainingGraph g = randomTrainingDag(seed, 2 + seed % 2, dag);
    const int64_t lo = peakLowerBound(g), hi = programPeak(g);
    std::vector<Solution> plans;
    std::vector<Schedule> runOrders;
    for (int64_t b = lo; b <= hi; ++b) {
      plans.push_back(solveWith(g, "checkmate-milp-offload", b, link));
      if (plans.back().feasible)
        runOrders.push_back(withoutAwaits(plans.back().schedule));
    }
    // Without awaits: the model has none (the strategy may be faster, or
    // meet a budget, with offload-greedy's plan that waits for a copy).
    auto front = offloadOracleFrontier(g, link, runOrders, 400000, false,
                                       /*awaits=*/false);
    if (!front) {
      ++skipped;
      continue;
    }
    for (int64_t b = lo; b <= hi; ++b) {
      SCOPED_TRACE("seed " + std::to_string(seed) + " budget " +
                   std::to_string(b));
      const Solution &s = plans[b - lo];
      const double oracle = oracleWithin(*front, b);
      Solution recompute = solveWith(g, "checkmate-milp", b, link);
      if (!s.feasible) {
        EXPECT_FALSE(recompute.feasible);
        EXPECT_LT(oracle, 0) << "the oracle meets a budget the MILP misses";
        continue;
      }
      EXPECT_LE(s.sim.peak, b);
      if (recompute.feasible)
        EXPECT_LE(s.sim.time, recompute.sim.time + 1e-9);
      else
        belowFloor += s.schedule.hasCopies();
      if (oracle < 0) { // Met only by waiting for a copy to the host.
        EXPECT_TRUE(std::any_of(s.sim.hostCopies.begin(),
                                s.sim.hostCopies.end(),
                                [](const HostCopy &c) { return c.awaited; }));
        ++awaitedOnly;
        continue;
      }
      ++compared;
      equal += s.sim.time <= oracle + 1e-9;
      modelFaster += s.sim.time < oracle - 1e-9;
      worst = std::max(worst, s.sim.time / oracle - 1);
      CheckmateResult m = modelAlone(g, b, link);
      modelEqual += m.schedule && m.time <= oracle + 1e-9;
      EXPECT_LE(s.sim.time, oracle + 1e-9) << s.schedule.str(g);
      EXPECT_TRUE(m.schedule && m.time <= oracle + 1e-9);
    }
  }
  std::printf("checkmate-milp-offload vs oracle: %d plans, %d as fast (the "
              "model's own plan: %d), %d faster, worst %.2f %% slower, %d "
              "below the recompute floor, %d met only waiting for a copy, %d "
              "graphs skipped\n",
              compared, equal, modelEqual, modelFaster, 100 * worst, belowFloor,
              awaitedOnly, skipped);
  EXPECT_GT(compared, 45);
  EXPECT_GT(belowFloor, 0);
}

// With results allowed to leave, on tiny random steps whose weights'
// gradients are made early: every plan is valid within budget, never
// faster than the oracle's optimum over the same run orders with results
// leaving (the oracle is exact over its space, the MILP's plan is in it),
// never slower than the MILP without results leaving, and somewhere it
// meets a budget that one misses.
TEST(MILPOffload, ResultsLeavingMatchTheOracle) {
  RandomDagOptions dag;
  dag.costs.maxBytes = 8;
  dag.costs.maxTime = 20;
  dag.weightsPercent = 70;
  const CopyLink link = linkOf(4);
  int compared = 0, equal = 0, onlyLeaving = 0, skipped = 0;
  for (uint64_t seed = 1; seed <= 16; ++seed) {
    TrainingGraph g = randomTrainingDag(seed, 2 + seed % 2, dag);
    const int64_t lo = peakLowerBound(g, true), hi = programPeak(g);
    std::vector<Solution> plans, staying;
    std::vector<Schedule> runOrders;
    for (int64_t b = lo; b <= hi; ++b) {
      SolveOptions o;
      o.budget = b;
      o.link = link;
      o.milpSeconds = 20;
      staying.push_back(solve(g, "checkmate-milp-offload", o));
      o.offloadResults = true;
      plans.push_back(solve(g, "checkmate-milp-offload", o));
      if (plans.back().feasible)
        runOrders.push_back(plans.back().schedule);
    }
    auto front = offloadOracleFrontier(g, link, runOrders, 400000, true,
                                       /*awaits=*/false);
    if (!front) {
      ++skipped;
      continue;
    }
    for (int64_t b = lo; b <= hi; ++b) {
      SCOPED_TRACE("seed " + std::to_string(seed) + " budget " +
                   std::to_string(b));
      const Solution &s = plans[b - lo], &stay = staying[b - lo];
      if (stay.feasible)
        EXPECT_TRUE(s.feasible);
      if (!s.feasible)
        continue;
      onlyLeaving += !stay.feasible;
      EXPECT_LE(s.sim.peak, b);
      if (stay.feasible)
        EXPECT_LE(s.sim.time, stay.sim.time + 1e-9);
      const double oracle = oracleWithin(*front, b);
      ASSERT_GE(oracle, 0);
      EXPECT_GE(s.sim.time, oracle - 1e-9) << s.schedule.str(g);
      ++compared;
      equal += s.sim.time <= oracle + 1e-9;
    }
  }
  std::printf("checkmate-milp-offload, results leaving, vs oracle: %d plans, "
              "%d as fast, %d budgets met only with results leaving, %d "
              "graphs skipped\n",
              compared, equal, onlyLeaving, skipped);
  EXPECT_GT(compared, 20);
  EXPECT_GT(onlyLeaving, 0);
}

} // namespace
